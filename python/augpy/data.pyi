"""Stubs of augpy.data (augpy/data.py): samples for the batch stages from folders, file lists
and WebDataset-style tar shards. Every source gives ``(data, key, metadata)`` samples
(``_Sample``); ``batches`` groups them into batch dicts (``Dict[str, Any]``)."""
import os
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, SupportsIndex, Tuple, TypeVar, Union

import numpy
import numpy.typing

_T = TypeVar("_T")

# A sample as the sources give it: (encoded image bytes, key, metadata).
_Sample = Tuple[bytes, str, Dict[str, Any]]
# A sample as batches() takes it: the data may be any bytes-like object.
_SampleLike = Tuple[Union[bytes, bytearray, memoryview], str, Dict[str, Any]]
# An int the runtime checks with isinstance(v, (int, numpy.integer)) (bool is refused there).
_Int = Union[int, numpy.integer[Any]]
# A seed, epoch or sample: an int in [0, 2**64) (operator.index; bool is refused).
_UInt64 = SupportsIndex
_Path = Union[str, "os.PathLike[str]"]
# Extensions: one ('.jpg' or 'jpg') or several; matched case-insensitively.
_Extensions = Union[str, Iterable[str]]
# Shards: a path, a brace pattern ('a-{000..009}.tar') or a list / tuple of them.
_Shards = Union[_Path, List[_Path], Tuple[_Path, ...]]
# augment(generator, key, metadata) -> the sample's augmentation dict.
_Augment = Callable[[numpy.random.Generator, str, Dict[str, Any]], Dict[str, Any]]

__all__ = ["IMAGE_EXTENSIONS", "FolderSource", "FileListSource", "ShardSource", "epoch_order", "sample_generator",
           "shuffled", "list_images", "iter_folder", "expand_shards", "split", "iter_shards", "batches", "RandomWarp"]

IMAGE_EXTENSIONS: Tuple[str, ...]

def epoch_order(n: _Int, seed: Optional[_UInt64], epoch: _UInt64 = 0,
                shuffle: bool = True) -> numpy.typing.NDArray[numpy.int64]:
    """The order in which epoch ``epoch`` visits n samples: a numpy int64 permutation of
    range(n); the identity when not ``shuffle``. It is the stable argsort of n uint64
    values drawn over the whole uint64 range by
    ``RandomNumberGenerator(seed=stream_seed(seed, epoch, "shuffle")).uniform``."""
def sample_generator(seed: _UInt64, epoch: _UInt64, sample: _UInt64) -> numpy.random.Generator:
    """The numpy Generator an ``augment`` callable gets for one sample:
    ``Generator(Philox(key=stream_seed(seed, epoch, "augment"), counter=sample))``."""
def split(items: Iterable[_T], worker_id: Optional[_Int], num_workers: Optional[_Int]) -> List[_T]:
    """Worker ``worker_id``'s share of ``items``: every num_workers-th, from worker_id."""
def list_images(root: _Path, recursive: bool = False, extensions: _Extensions = ...,
                follow_symlinks: bool = False) -> List[str]:
    """The image files under ``root`` (case-insensitive extensions), sorted by
    their path relative to root (``/`` separated). Regular files only; a link whose
    target leaves root is a ValueError unless ``follow_symlinks``."""
def iter_folder(root: _Path, recursive: bool = False, extensions: _Extensions = ...,
                worker_id: Optional[_Int] = None, num_workers: Optional[_Int] = None,
                follow_symlinks: bool = False) -> Iterator[_Sample]:
    """Yield ``(bytes, key, metadata)`` for the image files of a folder (see the module doc)."""


class _IndexableSource:
    """What FolderSource and FileListSource share: samples / targets / keys / classes /
    class_to_idx as plain attributes, ``len``, ``src[i]`` and the older ``src(worker_id,
    num_workers)`` call."""

    samples: List[Tuple[str, int]]
    targets: List[int]
    keys: List[str]
    classes: List[str]
    class_to_idx: Dict[str, int]
    @property
    def imgs(self) -> List[Tuple[str, int]]:
        """ImageFolder's other name for samples."""
    def __len__(self) -> int: ...
    def __getitem__(self, i: _Int) -> _Sample:
        """``(bytes, key, {'path': str, 'label': class name or '', 'class_index': int})``."""
    def __call__(self, worker_id: Optional[_Int], num_workers: Optional[_Int]) -> Iterator[_Sample]:
        """The older source call: an iterator over every num_workers-th sample from worker_id."""


class FolderSource(_IndexableSource):
    """The image files of a folder with torchvision ImageFolder's conventions (see the module doc):
    ``classes``, ``class_to_idx``, ``samples`` [(path, class_index)], ``targets``, ``keys``,
    ``len(src)``, ``src[i] -> (bytes, key, {'path', 'label', 'class_index'})``."""

    root: str
    recursive: bool
    extensions: Tuple[str, ...]
    follow_symlinks: bool
    def __init__(self, root: _Path, recursive: bool = True, extensions: _Extensions = ...,
                 follow_symlinks: bool = False) -> None: ...


class FileListSource(_IndexableSource):
    """An explicit list of image files (see the module doc): ``len(src)``, ``src[i]``,
    ``samples``, ``targets``, ``keys``, ``classes``, ``class_to_idx``."""

    root: Optional[str]
    def __init__(self, paths: Iterable[_Path], labels: Union[Iterable[_Int], Iterable[str], None] = None,
                 root: Optional[_Path] = None, keys: Optional[Iterable[str]] = None) -> None: ...


def expand_shards(pattern: _Shards) -> List[str]:
    """``'a-{000..002}.tar'`` -> ['a-000.tar', 'a-001.tar', 'a-002.tar'] (every brace
    range, zero padded to the width of its first bound); a list of patterns is
    expanded item by item."""
def iter_shards(shards: _Shards, image_extensions: _Extensions = ..., worker_id: Optional[_Int] = None,
                num_workers: Optional[_Int] = None, on_error: str = "raise", max_image_bytes: _Int = 268435456,
                max_meta_bytes: _Int = 4194304, max_members: _Int = 256) -> Iterator[_Sample]:
    """Yield ``(bytes, key, metadata)`` for the samples of WebDataset-style tar
    shards (a path, a brace pattern, or a list of them; see the module doc)."""
def shuffled(samples: Iterable[_T], buffer_size: _Int, rng: numpy.random.Generator) -> Iterator[_T]:
    """``samples`` (any iterable) through a shuffle buffer of ``buffer_size`` items, WebDataset's
    bounded scheme: the first buffer_size items fill it, then each new item takes the place of a
    random one (``rng.integers(buffer_size)``), which is emitted; at the end the rest come out in
    random order. An item moves forward by less than buffer_size places; 0 or 1 keeps the order.
    ``rng``: a numpy Generator (e.g. ``sample_generator(seed, epoch, worker)``)."""


class ShardSource:
    """WebDataset-style tar shards as a streamed source (see the module doc): ``src.samples(seed,
    epoch, shuffle, shuffle_buffer, worker_id, num_workers)`` for one worker's epoch, and the
    older ``src(worker_id, num_workers)`` (every num_workers-th shard, in order)."""

    shards: List[str]
    image_extensions: _Extensions
    on_error: str
    limits: Tuple[int, int, int]
    def __init__(self, shards: _Shards, image_extensions: _Extensions = ..., on_error: str = "raise",
                 max_image_bytes: _Int = 268435456, max_meta_bytes: _Int = 4194304,
                 max_members: _Int = 256) -> None: ...
    def __call__(self, worker_id: Optional[_Int], num_workers: Optional[_Int]) -> Iterator[_Sample]: ...
    def shard_order(self, seed: Optional[_UInt64], epoch: _UInt64, shuffle: bool = True) -> List[str]:
        """The shards in epoch ``epoch``'s order (``epoch_order`` of their count)."""
    def samples(self, seed: Optional[_UInt64] = None, epoch: _UInt64 = 0, shuffle: bool = False,
                shuffle_buffer: _Int = 1000, worker_id: _Int = 0, num_workers: _Int = 1) -> Iterator[_Sample]:
        """Worker ``worker_id``'s ``(bytes, key, metadata)`` of epoch ``epoch`` (see the module doc)."""


def batches(samples: Iterable[_SampleLike], batch_size: _Int, augment: Optional[_Augment] = None,
            rng: Optional[numpy.random.Generator] = None, drop_last: bool = False, seed: Optional[_UInt64] = None,
            epoch: _UInt64 = 0, indices: Optional[Iterable[_Int]] = None) -> Iterator[Dict[str, Any]]:
    """Group ``(bytes, key, metadata)`` samples into batch dicts of ``batch_size`` (the last
    one smaller unless drop_last): ``{'image', 'augmentation', 'key', 'metadata', 'index'}``.

    With ``seed``: each augmentation dict is ``{'rng': (seed, epoch, sample_id(key))}``,
    updated with ``augment(sample_generator(seed, epoch, sample_id(key)), key, metadata)``
    when augment is given. Without seed: ``augment(rng, key, metadata)`` draws from
    ``rng`` (a numpy Generator) in sample order, and without augment every dict is empty.
    ``indices``: an iterable parallel to samples giving ``'index'`` (else -1)."""


class RandomWarp:
    """A picklable ``augment`` callable: draws make_transform parameters.

    angle uniform in [-angle, angle] degrees; scale uniform in ``scale`` (lo, hi);
    aspect uniform in ``aspect``; shift (y, x) uniform in [-shift, shift];
    hmirror / vmirror with the given probabilities. Draw order per sample:
    angle, scale, aspect, shift y, shift x, hmirror, vmirror."""

    angle: float
    scale: Tuple[float, float]
    aspect: Tuple[float, float]
    shift: float
    hmirror: float
    vmirror: float
    def __init__(self, angle: float = 0.0, scale: Iterable[float] = (1.0, 1.0), aspect: Iterable[float] = (1.0, 1.0),
                 shift: float = 0.0, hmirror: float = 0.0, vmirror: float = 0.0) -> None: ...
    def __call__(self, rng: numpy.random.Generator, key: Optional[str] = None,
                 metadata: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        """{'angle', 'scale', 'aspect', 'shift', 'hmirror', 'vmirror'}: make_transform's keyword arguments."""
