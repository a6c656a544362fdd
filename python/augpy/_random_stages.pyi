"""Stubs of augpy/_random_stages.py: RandomGrayscale, RandomGaussianBlur, RandomJpegQuality."""
from typing import Any, Dict, Optional, Sequence, SupportsIndex, Tuple, Union

_Batch = Dict[str, Any]
_Seed = Optional[SupportsIndex]


def check_p(p: float, func: str) -> float:
    """A probability in [0, 1] as a float."""


class RandomGrayscale:
    """torchvision's ``RandomGrayscale(p)`` on a uint8, uint16 or float32 (N, C, H, W) batch (C = 1 or
    3), in place: with probability p an image becomes its grayscale (augpy.rgb_to_grayscale:
    0.2989 R + 0.587 G + 0.114 B in float32, truncated for integers, torchvision's arithmetic) in
    all C channels. Each augmentation dict gets ``'grayscale'``: True or False."""
    stream: Optional[str]
    seed: Optional[int]
    key: str
    draws: int
    pixels: bool
    p: float
    def __init__(self, p: float = 0.1, seed: _Seed = None) -> None: ...
    def __call__(self, batch: _Batch) -> _Batch: ...


class RandomGaussianBlur:
    """A Gaussian blur of each image of a uint8 or float (N, C, H, W) batch with probability p,
    in place, at a sigma drawn as torchvision's ``GaussianBlur(kernel_size, sigma)`` draws it
    (uniform in [min, max]). The blur is augpy.gaussian_blur with ``max_ksize=kernel_size``:
    its kernel has min(kernel_size, max(3, int(sigma * 6.6 - 2.3) | 1)) taps (weights
    renormalised) and replicates the edges, where torchvision's has exactly kernel_size taps
    and reflects them (docs/policies.md states the difference). Each augmentation dict gets
    ``'gaussian_blur'``: the sigma, or None when the image was left as it is."""
    stream: Optional[str]
    seed: Optional[int]
    key: str
    draws: int
    kernel_size: int
    sigma: Tuple[float, float]
    p: float
    def __init__(self, kernel_size: Union[SupportsIndex, Sequence[SupportsIndex]],
                 sigma: Union[float, Sequence[float]] = (0.1, 2.0), p: float = 1.0, seed: _Seed = None) -> None: ...
    def __call__(self, batch: _Batch) -> _Batch: ...


class RandomJpegQuality:
    """JPEG compression artefacts (torchvision v2 ``JPEG(quality)``, albumentations'
    ``ImageCompression``) on a uint8 (N, C, H, W) batch (C = 1 or 3), in place: with
    probability p an image is encoded with libjpeg-turbo (augpy.encode_jpeg: 4:2:0, PIL's
    settings) at a quality drawn uniformly from the integers min..max, and decoded again
    (augpy.Decoder). A batch on a CUDA device goes through the host. Each augmentation dict
    gets ``'jpeg_quality'``: the quality, or None when the image was left as it is."""
    stream: Optional[str]
    seed: Optional[int]
    key: str
    draws: int
    pixels: bool
    quality: Tuple[int, int]
    p: float
    def __init__(self, quality: Union[SupportsIndex, Sequence[SupportsIndex]] = (50, 100), p: float = 1.0,
                 seed: _Seed = None) -> None: ...
    def __call__(self, batch: _Batch) -> _Batch: ...
