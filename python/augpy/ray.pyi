"""Stubs of augpy.ray (augpy/ray.py): decode and augment Ray Data batches. They need neither
ray nor its stubs: batches are ``Dict[str, Any]`` (columns of numpy arrays or lists)."""
import os
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, TypedDict, Union

import numpy
import numpy.typing
from typing_extensions import Unpack

from ._augpy import _DTypeLike, _RangeLike
from .data import _Augment
from .image import DecodeWarp, _Background, _Int, _PerChannel, _SizeLike

__all__ = ["StageAugment", "ImageNetTrain", "DecodeAugment", "decode_augment", "row_key", "row_rng"]

# A stage: a callable batch dict -> batch dict (augpy.image's stages or your own).
_Stage = Callable[[Dict[str, Any]], Dict[str, Any]]
_Path = Union[str, "os.PathLike[str]"]
# A row's path: a str, bytes or os.PathLike (anything else is str()-ed).
_RowPath = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]


def row_key(path: _RowPath, root: Optional[_Path] = None) -> str:
    """The key of a row: its path relative to ``root`` without the extension ('/'
    separated), as ``augpy.data.FolderSource(root)`` keys it; the path without its
    extension when root is None."""
def row_rng(seed: int, path: _RowPath, epoch: int = 0) -> numpy.random.Generator:
    """Legacy: the numpy Generator ``SeedSequence([seed, epoch, crc32(path)])`` of augpy
    before the seed model (kept for code that recorded its draws)."""


class StageAugment:
    """Callable class for ``map_batches`` (see the module doc).

    :param make_stages: callable returning the stages (a stage or a list; the first
        takes the encoded images), e.g. ``functools.partial(augpy.image.imagenet_train, 64)``
    :param seed, epoch: the seed model's seed and epoch
    :param root: the folder the paths are under (keys and class labels as
        ``FolderSource(root)``); None: keys are the paths, no labels
    :param augment: ``augment(generator, key, metadata) -> dict`` per row (as StageDataset's)
    :param on_error: None: the stages' own; ``'raise'``, ``'skip'`` or ``'warn'``
    :param keep_paths: also return the ``'path'`` column (a string column)"""

    stages: List[_Stage]
    seed: int
    epoch: int
    root: Optional[str]
    classes: Optional[Dict[str, int]]
    augment: Optional[_Augment]
    keep_paths: bool
    max_batch_size: int
    def __init__(self, make_stages: Callable[[], Union[_Stage, Sequence[_Stage]]], seed: int = 0, epoch: int = 0,
                 root: Optional[_Path] = None, augment: Optional[_Augment] = None, on_error: Optional[str] = None,
                 keep_paths: bool = False) -> None: ...
    def __call__(self, batch: Dict[str, Any]) -> Dict[str, Any]:
        """The rows of ``batch`` decoded and augmented: 'image' (and 'label', 'path') numpy arrays."""


class _RecipeKwargs(TypedDict, total=False):
    """augpy.image.imagenet_train's keyword arguments that ImageNetTrain passes on (**recipe)."""

    size: _SizeLike
    jitter: Optional[Tuple[_RangeLike, _RangeLike, _RangeLike, _RangeLike]]
    mean: _PerChannel
    std: _PerChannel
    dtype: Optional[_DTypeLike]
    layout: str
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


class ImageNetTrain(StageAugment):
    """``StageAugment`` with the ImageNet training recipe ``augpy.image.imagenet_train``
    (random resized crop + flip, ``ColorJitter(*jitter)``, ``Normalize``): the same
    images as ``augpy.torch.StageDataset`` with that recipe gives for the same keys,
    seed and epoch.

    :param root, seed, epoch, on_error, keep_paths: as StageAugment
    :param batch_size: the stage's batch size (rows are processed in pieces of it)
    :param recipe: keyword arguments of ``augpy.image.imagenet_train`` (size, scale,
        ratio, jitter, mean, std, dtype, layout, cpu_threads, ...)"""

    def __init__(self, root: Optional[_Path] = None, seed: int = 0, epoch: int = 0, batch_size: _Int = 64,
                 on_error: Optional[str] = None, keep_paths: bool = False,
                 **recipe: Unpack[_RecipeKwargs]) -> None: ...


class _DecodeAugmentKwargs(TypedDict, total=False):
    """DecodeAugment's parameters that decode_augment passes on (**kwargs)."""

    background: _Background
    dtype: Optional[_DTypeLike]
    cpu_threads: _Int
    stages: Optional[Callable[[], Iterable[_Stage]]]
    dct_scale: Optional[bool]
    root: Optional[_Path]
    on_error: Optional[str]
    keep_paths: bool


class DecodeAugment(StageAugment):
    """Callable class for ``map_batches``: ``augpy.image.DecodeWarp`` with per-row
    ``augment`` draws (see the module doc).

    :param shape: (C, H, W) of the output images
    :param augment: ``augment(generator, key, metadata) -> make_transform kwargs`` (e.g.
        ``augpy.data.RandomWarp``); None: no augmentation
    :param seed, epoch, root, on_error, keep_paths: as StageAugment
    :param background, dtype, cpu_threads, dct_scale: passed to DecodeWarp
    :param stages: callable returning further stages run after DecodeWarp (e.g.
        ``lambda: [augpy.image.Lighting(64)]``), or None
    :param max_batch_size: the DecodeWarp buffers' batch size; larger batches are
        processed in pieces"""

    shape: Tuple[int, ...]
    decode_warp: DecodeWarp
    def __init__(self, shape: Sequence[int] = (3, 224, 224), augment: Optional[_Augment] = None, seed: int = 0,
                 epoch: int = 0, background: _Background = None, dtype: Optional[_DTypeLike] = None,
                 cpu_threads: _Int = 1, stages: Optional[Callable[[], Iterable[_Stage]]] = None,
                 max_batch_size: int = 256, dct_scale: Optional[bool] = None, root: Optional[_Path] = None,
                 on_error: Optional[str] = None, keep_paths: bool = False) -> None: ...
    def __call__(self, batch: Dict[str, Any]) -> Dict[str, Any]: ...


def decode_augment(batch: Dict[str, Any], shape: Sequence[int] = (3, 224, 224), augment: Optional[_Augment] = None,
                   seed: int = 0, epoch: int = 0, **kwargs: Unpack[_DecodeAugmentKwargs]) -> Dict[str, Any]:
    """``DecodeAugment(shape, augment, seed, epoch, **kwargs)(batch)`` as a plain function
    (for ``map_batches(augpy.ray.decode_augment, fn_kwargs=...)`` as Ray tasks)."""
