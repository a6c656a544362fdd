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
    """An IterableDataset over augpy batch stages: yields batch dicts (``output='dict'``: 'image' a
    torch tensor, 'label', 'key', 'metadata', 'augmentation', ...) or ``(images, labels)``
    (``output='tuple'``)."""

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
        """Epoch ``epoch``'s order and augmentations (call it before each epoch)."""
    def __len__(self) -> int:
        """Batches per epoch (indexable sources only: TypeError for streamed ones)."""
    def state_dict(self, samples_seen: Optional[int] = None) -> Dict[str, Any]:
        """``{'seed', 'epoch', 'sample', 'size', 'shuffle'}``: where the epoch stands."""
    def load_state_dict(self, state: Dict[str, Any]) -> None:
        """Resume the epoch at ``state['sample']`` (a state_dict() of this dataset's source)."""
    def __iter__(self) -> Iterator[Any]:
        """The batches of this worker's share: dicts, or (images, labels) with output='tuple'."""
