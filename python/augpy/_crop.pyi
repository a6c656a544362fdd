"""Stubs of augpy/_crop.py: torchvision's RandomCrop (functional and batch stage), five_crop
and ten_crop."""
from typing import Any, Dict, Optional, Sequence, SupportsIndex, Tuple, Union

from ._augpy import RandomNumberGenerator, Tensor, _Image

_SizeLike = Union[SupportsIndex, Sequence[SupportsIndex]]
_Padding = Union[SupportsIndex, Sequence[SupportsIndex]]
_Batch = Dict[str, Any]


def parse_size(size: _SizeLike, func: str) -> Tuple[int, int]:
    """torchvision's size: an int or a sequence of 1 or 2 ints, as (height, width) >= 1."""
def crop_params(h: int, w: int, size: Tuple[int, int], padding: Optional[Tuple[int, int, int, int]],
                pad_if_needed: bool, u_top: float, u_left: float,
                func: str) -> Tuple[Tuple[int, int, int, int], int, int]:
    """torchvision's RandomCrop.make_params for an h x w image: ((left, top, right, bottom)
    padding, top, left), top and left in the padded image, drawn from uniforms u in [0, 1) as
    torch.randint(0, n) draws (each of the n values equally likely)."""


def random_crop(image: _Image, size: _SizeLike, padding: Optional[_Padding] = None, pad_if_needed: bool = False,
                fill: Any = 0, padding_mode: str = "constant", layout: Optional[str] = None, *,
                rng: Optional[RandomNumberGenerator] = None) -> Tensor:
    """torchvision's RandomCrop on one image (HW, HWC, CHW; or a batch NHWC / NCHW, cropped
    alike, as torchvision crops a batch tensor): pad by ``padding`` (augpy.pad's forms,
    ``fill`` and ``padding_mode``), pad more when the image is smaller than ``size`` and
    ``pad_if_needed``, then crop ``size`` (an int or (height, width)) at a corner drawn
    uniformly. rng: an augpy.RandomNumberGenerator (two uniforms drawn; None: a generator
    seeded from the OS). Returns a new tensor. ValueError when the crop is larger than the
    (padded) image without pad_if_needed."""


class RandomCrop:
    """torchvision's ``RandomCrop(size, padding, pad_if_needed, fill, padding_mode)`` on a
    (N, C, H, W) batch (or one whose layout string is 'NHWC'; any dtype, any device): a new
    batch of (height, width) images, each image
    cropped at its own corner drawn from the seed model (augpy.image; stream 'RandomCrop').
    Each augmentation dict gets ``'random_crop'``: (top, left) in the padded image
    (torchvision's params); a dict that has one is replayed. The CIFAR recipe is
    ``RandomCrop(32, padding=4)``. ValueError when the crop is larger than the (padded)
    image without pad_if_needed.

    Targets: boxes, keypoints and masks of the batch (augpy.targets.transform_batch_targets,
    as RandomPerspective; settings: the attributes box_format, box_params, ignore_index)
    follow each image's padding and crop, a translation by (left_pad - left, top_pad - top):
    boxes are shifted and clipped to the crop (dropped when nothing is left), keypoints
    outside the crop are dropped, and masks are cropped alike with ``ignore_index`` in the
    padding whatever ``padding_mode`` is (a reflected band holds no labelled object: its
    pixels are ignored, and reflected copies of boxes or keypoints are not added)."""
    stream: Optional[str]
    seed: Optional[int]
    draws: int
    box_format: str
    box_params: Optional[Dict[str, Any]]
    ignore_index: int
    size: Tuple[int, int]
    padding: Optional[Tuple[int, int, int, int]]
    pad_if_needed: bool
    fill: Any
    padding_mode: str
    def __init__(self, size: _SizeLike, padding: Optional[_Padding] = None, pad_if_needed: bool = False,
                 fill: Any = 0, padding_mode: str = "constant", seed: Optional[SupportsIndex] = None) -> None: ...
    def __call__(self, batch: _Batch) -> _Batch:
        """``batch['image']`` replaced by the new batch of crops; each augmentation dict gets
        ``'random_crop'``."""


def five_crop(image: _Image, size: _SizeLike, layout: Optional[str] = None) -> Tuple[Tensor, ...]:
    """torchvision's five_crop: the (top-left, top-right, bottom-left, bottom-right, centre)
    crops of ``size`` (an int or (height, width)) of an image or a batch (views, no copy; the
    centre as augpy.center_crop: its offset round((H - h) / 2), half to even). ValueError when
    size is larger than the image."""
def ten_crop(image: _Image, size: _SizeLike, vertical_flip: bool = False,
             layout: Optional[str] = None) -> Tuple[Tensor, ...]:
    """torchvision's ten_crop: five_crop of the image, then five_crop of it flipped
    left-right (or upside down with vertical_flip=True); ten views."""
