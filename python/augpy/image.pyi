"""Stubs of augpy.image: the batch stages (augpy/_decode_stage.py, augpy/_imagenet_stages.py,
augpy/_colour_stages.py). Every stage is a callable batch dict -> batch dict
(``{'image': ..., 'augmentation': [dict, ...], ...}``: ``Dict[str, Any]``)."""
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, SupportsIndex, Tuple, TypedDict, Union

import numpy
import numpy.typing
from typing_extensions import Unpack

from ._augpy import Tensor, _DTypeLike, _RangeLike

__all__ = ["ColorJitter", "DecodeWarp", "ImageNetEval", "ImageNetTrain", "Lighting", "Lightning", "Normalize",
           "imagenet_eval", "imagenet_train"]

_Batch = Dict[str, Any]
# A stage, or any callable taking and returning a batch dict (``transforms=``).
_Stage = Callable[[Dict[str, Any]], Dict[str, Any]]
# An int the runtime checks with isinstance(v, (int, numpy.integer)) (bool is refused there).
_Int = Union[int, numpy.integer[Any]]
# An int or (height, width).
_SizeLike = Union[_Int, Sequence[_Int]]
# One value per channel (or one for all): a number, a sequence or an array.
_PerChannel = Union[float, Sequence[float], numpy.typing.NDArray[Any]]
# C background values: a tensor, a sequence or an array; None: zeros.
_Background = Union[Tensor, Sequence[float], numpy.typing.NDArray[Any], None]
# A seed: None (entropy drawn once) or an int in [0, 2**64).
_Seed = Optional[SupportsIndex]

# torchvision's ImageNet statistics in pixel units (0..255)
IMAGENET_MEAN: Tuple[float, float, float]
IMAGENET_STD: Tuple[float, float, float]
# make_transform's keyword arguments that an augmentation dict may carry
WARP_KEYS: Tuple[str, ...]


class DecodeWarp:
    """Decode JPEGs (and PNGs) and warp them into (N, C, H, W) batch tensors from a ring of
    ``num_buffers`` buffers; each ``batch['augmentation'][i]`` holds make_transform's keyword
    arguments and gets the warp's ``matrix`` and ``source_size``."""

    box_format: str
    box_params: Optional[Dict[str, Any]]
    ignore_index: int
    on_error: str
    skipped: int
    batch_size: int
    shape: Tuple[int, int, int]
    dtype: _DTypeLike
    cpu_threads: int
    num_buffers: int
    background: Tensor
    decode_buffer_size: Optional[int]
    max_pixels: Optional[int]
    dct_scale: Optional[bool]
    buffers: List[Tensor]
    def __init__(self, batch_size: _Int, shape: Sequence[_Int], background: _Background = None,
                 dtype: Optional[_DTypeLike] = None, cpu_threads: _Int = 1, num_buffers: _Int = 2,
                 decode_buffer_size: Optional[_Int] = None, max_pixels: Optional[_Int] = None,
                 dct_scale: Optional[bool] = None, on_error: str = "raise") -> None: ...
    def __call__(self, batch: _Batch) -> _Batch:
        """Decode ``batch['image']`` (a list of JPEG or PNG files: bytes-like, paths or DLPack
        tensors) and warp each image into the next batch buffer; returns ``batch`` with
        ``'image'`` the (n, C, H, W) batch."""
    def finalize_batch(self, buffer: Tensor) -> Tensor:
        """Make a batch buffer (or a view of one) ready for the caller's current stream."""
    def close(self) -> None:
        """Stop the decoder threads."""
    def __del__(self) -> None: ...


class _ImageNetTrainKwargs(TypedDict, total=False):
    """ImageNetTrain's parameters that imagenet_train passes on (its **kwargs)."""

    scale: Sequence[float]
    ratio: Sequence[float]
    hflip: float
    cpu_threads: _Int
    num_buffers: _Int
    max_supersampling: int
    dct_scale: Optional[bool]
    background: _Background
    decode_buffer_size: Optional[_Int]
    max_pixels: Optional[_Int]
    on_error: str


class _ImageNetEvalKwargs(TypedDict, total=False):
    """ImageNetEval's parameters that imagenet_eval passes on (its **kwargs)."""

    cpu_threads: _Int
    num_buffers: _Int
    max_supersampling: int
    dct_scale: Optional[bool]
    background: _Background
    decode_buffer_size: Optional[_Int]
    max_pixels: Optional[_Int]
    on_error: str


class ImageNetTrain(DecodeWarp):
    """ImageNet-style training stage: RandomResizedCrop + horizontal flip, region-decoded with
    DCT scaling, into uint8 (N, 3, H, W) batches; ``transforms`` run after it."""

    stream: Optional[str]
    seed: Optional[int]
    scale: Tuple[float, ...]
    ratio: Tuple[float, ...]
    hflip: float
    max_supersampling: int
    transforms: Tuple[_Stage, ...]
    def __init__(self, batch_size: _Int, size: _SizeLike = 224, scale: Sequence[float] = (0.08, 1.0),
                 ratio: Sequence[float] = ..., hflip: float = 0.5, cpu_threads: _Int = 1, num_buffers: _Int = 2,
                 seed: _Seed = None, max_supersampling: int = 3, dct_scale: Optional[bool] = None,
                 background: _Background = None, decode_buffer_size: Optional[_Int] = None,
                 max_pixels: Optional[_Int] = None, transforms: Iterable[_Stage] = (),
                 on_error: str = "raise") -> None: ...
    def __call__(self, batch: _Batch) -> _Batch:
        """Decode ``batch['image']`` into the next ring buffer; ``'image'`` becomes the uint8
        (n, 3, H, W) batch and ``'augmentation'`` records the draws, after ``transforms``."""


class ImageNetEval(DecodeWarp):
    """ImageNet-style evaluation stage: Resize(resize) (shorter side) + CenterCrop(size) as one
    warp, into uint8 (N, 3, H, W) batches; ``transforms`` run after it."""

    resize: int
    max_supersampling: int
    transforms: Tuple[_Stage, ...]
    def __init__(self, batch_size: _Int, size: _SizeLike = 224, resize: _Int = 256, cpu_threads: _Int = 1,
                 num_buffers: _Int = 2, max_supersampling: int = 3, dct_scale: Optional[bool] = None,
                 background: _Background = None, decode_buffer_size: Optional[_Int] = None,
                 max_pixels: Optional[_Int] = None, transforms: Iterable[_Stage] = (),
                 on_error: str = "raise") -> None: ...
    def __call__(self, batch: _Batch) -> _Batch:
        """Decode ``batch['image']`` into the next ring buffer; ``'image'`` becomes the uint8
        (n, 3, H, W) batch, after ``transforms``."""


class Lighting:
    """Apply ``augpy.lighting`` to a batch (N, C, H, W) in place, with each augmentation dict's
    ``gamma_gray``, ``gamma_color`` and ``contrast``."""

    batch_size: int
    channels: int
    min_value: float
    max_value: float
    def __init__(self, batch_size: _Int, channels: _Int = 3, min_value: float = 0, max_value: float = 255) -> None: ...
    def __call__(self, batch: _Batch) -> _Batch:
        """Apply the lighting to ``batch['image']`` in place; returns ``batch``."""


# The manual's spelling of the class name.
Lightning = Lighting


class ColorJitter:
    """torchvision's ColorJitter on a uint8 or float32 (N, 3, H, W) batch, in place, with
    per-image factors and order drawn by the seed model (stream ``'ColorJitter'``)."""

    stream: Optional[str]
    seed: Optional[int]
    lighting: bool
    min_value: float
    max_value: float
    ranges: Dict[str, _RangeLike]
    random_order: bool
    def __init__(self, brightness: _RangeLike = 0.4, contrast: _RangeLike = 0.4, saturation: _RangeLike = 0.4,
                 hue: _RangeLike = 0.1, random_order: bool = True, seed: _Seed = None, lighting: bool = False,
                 min_value: float = 0, max_value: float = 255) -> None: ...
    def __call__(self, batch: _Batch) -> _Batch:
        """Jitter ``batch['image']`` in place; each augmentation dict gets ``color_jitter``."""


class Normalize:
    """``(x - mean) / std`` per channel of a (N, C, H, W) batch into float32 (or ``dtype``) batches
    in ``layout`` 'NCHW' or 'NHWC', from a ring of ``num_buffers`` buffers."""

    batch_size: int
    num_buffers: int
    mean: List[float]
    std: List[float]
    dtype: _DTypeLike
    layout: str
    def __init__(self, batch_size: _Int, mean: _PerChannel = ..., std: _PerChannel = ...,
                 dtype: Optional[_DTypeLike] = None, layout: str = "NCHW", num_buffers: _Int = 2) -> None: ...
    def __call__(self, batch: _Batch) -> _Batch:
        """``batch['image']`` normalized into the next ring buffer; returns ``batch``."""


def imagenet_train(batch_size: _Int, size: _SizeLike = 224,
                   jitter: Optional[Tuple[_RangeLike, _RangeLike, _RangeLike, _RangeLike]] = (0.4, 0.4, 0.4, 0.1),
                   mean: _PerChannel = ..., std: _PerChannel = ..., dtype: Optional[_DTypeLike] = None,
                   layout: str = "NCHW", seed: _Seed = None,
                   **kwargs: Unpack[_ImageNetTrainKwargs]) -> ImageNetTrain:
    """The ImageNet training recipe as one stage: ImageNetTrain -> ColorJitter(*jitter) (None: none)
    -> Normalize (the ImageNetTrain stage, the others its ``transforms``)."""
def imagenet_eval(batch_size: _Int, size: _SizeLike = 224, resize: _Int = 256, mean: _PerChannel = ...,
                  std: _PerChannel = ..., dtype: Optional[_DTypeLike] = None, layout: str = "NCHW",
                  **kwargs: Unpack[_ImageNetEvalKwargs]) -> ImageNetEval:
    """The ImageNet evaluation recipe as one stage: ImageNetEval -> Normalize."""
