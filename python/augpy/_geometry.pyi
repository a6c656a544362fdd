"""Stubs of augpy/_geometry.py: the geometric ops with targets= (an unknown targets key is a
TypeError; the runtime docstrings are the extension's plus the targets= paragraph)."""
from typing import Any, Dict, Optional, Sequence, SupportsIndex, Tuple, Union

from ._augpy import Tensor, _Image

_Targets = Optional[Dict[str, Any]]
_SizeLike = Union[SupportsIndex, Sequence[SupportsIndex]]


def resize(image: _Image, size: _SizeLike, interpolation: str = "linear", antialias: bool = True,
           layout: Optional[str] = None, out: Optional[_Image] = None, *, targets: _Targets = None) -> Any:
    """Resize an image (HW, HWC, CHW) or a batch (NHWC, NCHW) to size = (height, width), or with an int size
    make the shorter side that long (torchvision). interpolation: 'linear' (also 'bilinear'), 'nearest' or 'area' (OpenCV's
    INTER_NEAREST, INTER_LINEAR, INTER_AREA); antialias: bilinear shrinking uses Pillow's widened triangle
    filter (torchvision antialias=True). Any dtype and strides; saturate_cast.
    layout: None reads the tensor's layout string; without one a 3-D shape with channels (at most 4) on
    exactly one end is HWC or CHW, a 4-D one NHWC or NCHW by its last three dimensions, a torch tensor
    channels first when it can be; other shapes take HWC (3-D) / NCHW (4-D) for augpy tensors and are a
    ValueError asking for layout= for arrays (docs/semantics.md, layouts).
    image: an augpy tensor, or a NumPy array / CPU torch tensor / any object with __dlpack__, the buffer
    protocol or __array_interface__, used without a copy (the result is an augpy tensor).
    Returns a new tensor, or out (any dtype and strides; a writable array is written in place).

    targets: None, or a dict of the image's targets that follow it through the op: any of
    'boxes' ((n, 4); 'labels' filtered alike), 'keypoints' ((n, 2|3|4); 'keypoint_labels'
    alike), 'mask' (an (H, W) integer mask of the image's size) and the settings
    'box_format' ('xyxy', 'xywh' or 'cxcywh'), 'box_params' (a dict of transform_boxes'
    normalized / min_area / min_visibility) and 'ignore_index' (255: the mask value outside
    the source). Any other key is a TypeError listing these. With targets the call returns
    (resized, moved), moved being a new dict of the moved targets (boxes and keypoints that leave
    the image dropped with their labels; the mask (Ht, Wt), warped nearest-neighbour) and
    the settings as given. targets= follows one image: a batch is a ValueError (use the
    batch stages or augpy.transform_boxes_batch). docs/targets.md has the conventions."""
def flip(image: _Image, horizontal: bool = True, vertical: bool = False, layout: Optional[str] = None, *,
         targets: _Targets = None) -> Any:
    """A view of the image(s) mirrored left-right and/or upside down (negative strides, no copy).
    image: HW, HWC, CHW, NHWC or NCHW (layout as augpy.resize); an array is viewed without a copy.

    targets: None, or a dict of the image's targets that follow it through the op: any of
    'boxes' ((n, 4); 'labels' filtered alike), 'keypoints' ((n, 2|3|4); 'keypoint_labels'
    alike), 'mask' (an (H, W) integer mask of the image's size) and the settings
    'box_format' ('xyxy', 'xywh' or 'cxcywh'), 'box_params' (a dict of transform_boxes'
    normalized / min_area / min_visibility) and 'ignore_index' (255: the mask value outside
    the source). Any other key is a TypeError listing these. With targets the call returns
    (view, moved), moved being a new dict of the moved targets (boxes and keypoints that leave
    the image dropped with their labels; the mask (Ht, Wt), warped nearest-neighbour) and
    the settings as given. targets= follows one image: a batch is a ValueError (use the
    batch stages or augpy.transform_boxes_batch). docs/targets.md has the conventions."""
def hflip(image: _Image, layout: Optional[str] = None, *, targets: _Targets = None) -> Any:
    """flip(image, horizontal=True): a left-right mirrored view.
    image: HW, HWC, CHW, NHWC or NCHW (layout as augpy.resize); an array is viewed without a copy.

    targets: None, or a dict of the image's targets that follow it through the op: any of
    'boxes' ((n, 4); 'labels' filtered alike), 'keypoints' ((n, 2|3|4); 'keypoint_labels'
    alike), 'mask' (an (H, W) integer mask of the image's size) and the settings
    'box_format' ('xyxy', 'xywh' or 'cxcywh'), 'box_params' (a dict of transform_boxes'
    normalized / min_area / min_visibility) and 'ignore_index' (255: the mask value outside
    the source). Any other key is a TypeError listing these. With targets the call returns
    (view, moved), moved being a new dict of the moved targets (boxes and keypoints that leave
    the image dropped with their labels; the mask (Ht, Wt), warped nearest-neighbour) and
    the settings as given. targets= follows one image: a batch is a ValueError (use the
    batch stages or augpy.transform_boxes_batch). docs/targets.md has the conventions."""
def vflip(image: _Image, layout: Optional[str] = None, *, targets: _Targets = None) -> Any:
    """flip(image, False, True): an upside-down view.
    image: HW, HWC, CHW, NHWC or NCHW (layout as augpy.resize); an array is viewed without a copy.

    targets: None, or a dict of the image's targets that follow it through the op: any of
    'boxes' ((n, 4); 'labels' filtered alike), 'keypoints' ((n, 2|3|4); 'keypoint_labels'
    alike), 'mask' (an (H, W) integer mask of the image's size) and the settings
    'box_format' ('xyxy', 'xywh' or 'cxcywh'), 'box_params' (a dict of transform_boxes'
    normalized / min_area / min_visibility) and 'ignore_index' (255: the mask value outside
    the source). Any other key is a TypeError listing these. With targets the call returns
    (view, moved), moved being a new dict of the moved targets (boxes and keypoints that leave
    the image dropped with their labels; the mask (Ht, Wt), warped nearest-neighbour) and
    the settings as given. targets= follows one image: a batch is a ValueError (use the
    batch stages or augpy.transform_boxes_batch). docs/targets.md has the conventions."""
def crop(image: _Image, y: SupportsIndex, x: SupportsIndex, h: SupportsIndex, w: SupportsIndex,
         layout: Optional[str] = None, *, targets: _Targets = None) -> Any:
    """A view of rows y .. y+h-1 and columns x .. x+w-1 of the image(s); ValueError when it does not fit.
    image: HW, HWC, CHW, NHWC or NCHW (layout as augpy.resize); an array is viewed without a copy.

    targets: None, or a dict of the image's targets that follow it through the op: any of
    'boxes' ((n, 4); 'labels' filtered alike), 'keypoints' ((n, 2|3|4); 'keypoint_labels'
    alike), 'mask' (an (H, W) integer mask of the image's size) and the settings
    'box_format' ('xyxy', 'xywh' or 'cxcywh'), 'box_params' (a dict of transform_boxes'
    normalized / min_area / min_visibility) and 'ignore_index' (255: the mask value outside
    the source). Any other key is a TypeError listing these. With targets the call returns
    (view, moved), moved being a new dict of the moved targets (boxes and keypoints that leave
    the image dropped with their labels; the mask (Ht, Wt), warped nearest-neighbour) and
    the settings as given. targets= follows one image: a batch is a ValueError (use the
    batch stages or augpy.transform_boxes_batch). docs/targets.md has the conventions."""
def center_crop(image: _Image, size: _SizeLike, layout: Optional[str] = None, *,
                targets: _Targets = None) -> Any:
    """torchvision's CenterCrop: size = (h, w) or an int; a view when it fits (offset round((H - h) / 2)),
    else a new tensor with the image centred on zeros.
    image: HW, HWC, CHW, NHWC or NCHW (layout as augpy.resize); an array is viewed without a copy.

    targets: None, or a dict of the image's targets that follow it through the op: any of
    'boxes' ((n, 4); 'labels' filtered alike), 'keypoints' ((n, 2|3|4); 'keypoint_labels'
    alike), 'mask' (an (H, W) integer mask of the image's size) and the settings
    'box_format' ('xyxy', 'xywh' or 'cxcywh'), 'box_params' (a dict of transform_boxes'
    normalized / min_area / min_visibility) and 'ignore_index' (255: the mask value outside
    the source). Any other key is a TypeError listing these. With targets the call returns
    (result, moved), moved being a new dict of the moved targets (boxes and keypoints that leave
    the image dropped with their labels; the mask (Ht, Wt), warped nearest-neighbour) and
    the settings as given. targets= follows one image: a batch is a ValueError (use the
    batch stages or augpy.transform_boxes_batch). docs/targets.md has the conventions."""
def warp_affine(src: Union[_Image, Sequence[_Image]], dst: _Image, matrix: Any, background: Any = None,
                supersampling: Union[int, Sequence[int]] = 1, *, interpolation: str = "linear",
                border: str = "constant", layout: Optional[str] = None, src_layout: Optional[str] = None,
                targets: _Targets = None) -> Any:
    """Affine warp of an (H, W, C) image into a (C, Ht, Wt) tensor with bilinear interpolation and s x s supersampling; pixels outside the source take `background` (None: zeros; a tensor, number or sequence of C values). Batch form: src a list of (H_i, W_i, C) tensors or an (N, H, W, C) tensor, dst (N, C, Ht, Wt), matrix (N, 2, 3), supersampling an int or N ints. Any dtypes; results saturate. interpolation: 'linear' (also 'bilinear'), 'nearest' (one source value, never blended: masks and labels; supersampling ignored) or 'cubic' (also 'bicubic': Keys' a = -0.75 over 4x4 taps, OpenCV's INTER_CUBIC, in double). border: 'constant' (background), 'replicate', 'reflect' (OpenCV BORDER_REFLECT_101) or 'symmetric' (BORDER_REFLECT).
    layout: dst's layout, 'CHW' or 'HWC' ('NCHW' / 'NHWC' for a batch); src_layout: 'HWC' or 'CHW' ('NHWC' / 'NCHW' for a batch tensor).
    None reads the layout string, else the shape (channels, at most 4, on exactly one end; torch tensors channels first), else HWC sources and CHW outputs (augpy tensors) or a ValueError asking for the layout (arrays). (H, W) sources and (Ht, Wt) / (N, Ht, Wt) outputs are one channel.
    src and dst may be NumPy arrays, CPU torch tensors or any object with __dlpack__ / the buffer protocol, used without a copy (dst, written in place, must be writable and C-contiguous).
    Returns dst (the object given), as the other image ops return their out=.

    targets: None, or a dict of the image's targets that follow it through the op: any of
    'boxes' ((n, 4); 'labels' filtered alike), 'keypoints' ((n, 2|3|4); 'keypoint_labels'
    alike), 'mask' (an (H, W) integer mask of the image's size) and the settings
    'box_format' ('xyxy', 'xywh' or 'cxcywh'), 'box_params' (a dict of transform_boxes'
    normalized / min_area / min_visibility) and 'ignore_index' (255: the mask value outside
    the source). Any other key is a TypeError listing these. With targets the call returns
    (dst, moved), moved being a new dict of the moved targets (boxes and keypoints that leave
    the image dropped with their labels; the mask (Ht, Wt), warped nearest-neighbour) and
    the settings as given. targets= follows one image: a batch is a ValueError (use the
    batch stages or augpy.transform_boxes_batch). docs/targets.md has the conventions."""
