"""Stubs of augpy.torch (augpy/torch.py): the batch stages as a PyTorch IterableDataset.

They need neither torch nor its stubs: torch's tensors and the IterableDataset base are
``Any`` here (so a StageDataset is accepted wherever torch's stubs want a Dataset)."""
from typing import Any, Callable, Dict, Iterable, Iterator, Optional, Protocol, Sequence, SupportsIndex, Tuple, Union

from ._augpy import Tensor
from .data import FileListSource as FileListSource
from .data import FolderSource as FolderSource
from .data import ShardSource as ShardSource
from .data import _Augment, _SampleLike, _UInt64

__all__ = ["StageDataset", "FolderSource", "FileListSource", "ShardSource", "to_torch"]

# torch.utils.data.IterableDataset (the runtime's base of StageDataset)
IterableDataset: Any

# A stage: a callable batch dict -> batch dict (augpy.image's stages or your own).
_Stage = Callable[[Dict[str, Any]], Dict[str, Any]]
# make_stages: a picklable callable returning a stage or a list of stages.
_MakeStages = Callable[[], Union[_Stage, Sequence[_Stage]]]


class _Indexable(Protocol):
    """An indexable source (FolderSource, FileListSource): len(src) and src[i] -> sample."""

    def __len__(self) -> int: ...
    def __getitem__(self, i: int, /) -> _SampleLike: ...


class _Streamed(Protocol):
    """A streamed source (ShardSource): src.samples(seed, epoch, shuffle, shuffle_buffer, worker_id, num_workers)."""

    def samples(self, seed: int, epoch: int, shuffle: bool, shuffle_buffer: int, worker_id: int,
                num_workers: int, /) -> Iterable[_SampleLike]: ...


# An augpy.data source, or a callable (worker_id, num_workers) -> samples.
_Source = Union[_Indexable, _Streamed, Callable[[int, int], Iterable[_SampleLike]]]


def to_torch(t: Tensor) -> Any:
    """A torch tensor viewing the augpy tensor ``t`` (DLPack, zero copy)."""


class StageDataset(IterableDataset):  # type: ignore[misc]  # torch's class, Any without torch's stubs
    """An IterableDataset over augpy batch stages (see the module doc).

    :param source: where the samples come from: an indexable source
        (``augpy.data.FolderSource``, ``FileListSource``: shuffled per epoch, split by
        batch across workers), a ``ShardSource`` (streamed tar shards), or a callable
        ``(worker_id, num_workers) -> iterable of (bytes, key, metadata)`` (streamed)
    :param make_stages: picklable callable returning a stage or a list of stages
        (built in each worker)
    :param batch_size: samples per batch
    :param augment: ``augment(generator, key, metadata) -> dict`` (e.g.
        ``augpy.data.RandomWarp``) given each sample's own numpy Generator
        (``augpy.data.sample_generator``); None: no augmentation dicts but ``rng``
    :param seed: int in [0, 2**64): the seed of every draw (shuffle, stages, augment);
        None: ``torch.initial_seed()`` read once, here in the main process (fresh per
        run, and fixed by ``torch.manual_seed``), shared with the workers
    :param copy: True: yield copies; False: yield the ring buffer with a release callable
    :param drop_last: drop a last, smaller batch (its samples only replace skipped files)
    :param shuffle: a new order of the samples every epoch (``set_epoch``): indexable
        sources are permuted as a whole; tar shards are permuted and then go through a
        shuffle buffer of ``shuffle_buffer`` samples (WebDataset's scheme)
    :param shuffle_buffer: the buffer's size for streamed sources
    :param on_error: None: the stages' own ``on_error``; ``'raise'``, ``'skip'`` or
        ``'warn'``: set on every stage that has one. Skipped files are replaced by the next
        samples of the worker's share and the batch runs again, whole, so batches stay full
        and every stage (a mixing stage too) sees one batch; ``self.skipped`` (in-process)
        and each batch's ``'skipped'`` list name them
    :param output: ``'dict'`` (the batch dict) or ``'tuple'`` (``(images, labels)``; ``(images, targets)``
        when a mixing stage (MixUp, CutMix, Mixup, timm_train's mixup=) made soft targets)"""

    source: _Source
    make_stages: _MakeStages
    batch_size: int
    augment: Optional[_Augment]
    seed: Optional[int]
    copy: bool
    drop_last: bool
    shuffle: bool
    shuffle_buffer: int
    on_error: Optional[str]
    output: str
    epoch: int
    skipped: int
    def __init__(self, source: _Source, make_stages: _MakeStages, batch_size: int,
                 augment: Optional[_Augment] = None, seed: Optional[_UInt64] = None, copy: bool = True,
                 drop_last: bool = False, shuffle: bool = False, shuffle_buffer: int = 1000,
                 on_error: Optional[str] = None, output: str = "dict") -> None: ...
    def set_epoch(self, epoch: SupportsIndex) -> None:
        """Epoch ``epoch``'s order and augmentations (call it before each epoch, as with
        DistributedSampler): a new stream per epoch, no replay of the earlier ones."""
    def __len__(self) -> int:
        """Batches per epoch (indexable sources; a worker's share is about len / num_workers)."""
    def state_dict(self, samples_seen: Optional[int] = None) -> Dict[str, Any]:
        """Where the epoch stands: ``{'seed', 'epoch', 'sample', 'size', 'shuffle'}``. sample =
        ``samples_seen`` (the samples the training loop has taken this epoch, counting from
        the epoch's start) or, without it, the samples this process read (num_workers=0).
        ``load_state_dict`` of it resumes the epoch at that sample."""
    def load_state_dict(self, state: Dict[str, Any]) -> None:
        """Resume: the next iteration starts at ``state['sample']`` of ``state['epoch']``'s
        order, with that seed (indexable sources; a streamed source resumes at its epoch's
        start). Raises ValueError for a state of another source or ordering."""
    def __iter__(self) -> Iterator[Any]:
        """The batches of this worker's share: dicts, or (images, labels) with output='tuple'."""
