"""augpy.torch: the batch stages as a PyTorch ``IterableDataset`` (docs/scale-out.md).

Imported only on request (``import augpy.torch``): it imports torch, which
``import augpy`` never does.

``StageDataset(source, make_stages, batch_size, ...)`` reads ``(bytes, key,
metadata)`` samples from ``source(worker_id, num_workers)`` (e.g.
``augpy.data.iter_shards`` with a fixed shard list, via ``ShardSource``), groups
them into batch dicts, runs them through the stages (``augpy.image.DecodeWarp``,
``Lighting`` or any callable taking and returning such a dict) and yields
``{'image': torch.Tensor, 'key': [...], 'metadata': [...], 'augmentation': [...]}``
with the image taken by DLPack.

Buffer ownership (the rule for every consumer): a DecodeWarp batch is a view of
one of its ``num_buffers`` ring buffers and stays valid for ``num_buffers - 1``
further calls; the call after that rewrites it. So:

- ``copy=True`` (default): the yielded tensor is a copy (``clone()``), owned by the
  consumer forever. Use this with DataLoader workers (the tensor is sent to the
  main process anyway).
- ``copy=False``: the yielded dict holds the ring buffer itself (zero copy) and a
  ``release`` callable. The dataset refuses (RuntimeError) to produce a batch that
  would rewrite a buffer whose batch was not released yet; call
  ``batch['release']()`` when done with it: when you ask for the next batch you may
  hold at most ``num_buffers - 1`` unreleased ones (the oldest of ``num_buffers``
  would be rewritten). After release the tensor's memory belongs to augpy again.
  In DataLoader worker processes the tensor is copied when it is sent to the main
  process anyway, so copy=False is for in-process loading (``num_workers=0``).

Seeds: each worker draws its augmentation from a numpy Generator seeded with
``SeedSequence([seed, worker_id, epoch])`` when ``seed`` is given (call
``set_epoch`` for a new stream per epoch), else with
``torch.utils.data.get_worker_info().seed`` (torch's per-worker seed: different
per worker and reproducible under ``torch.manual_seed`` or a DataLoader
``generator``); in the main process (no workers) torch.initial_seed(). The stages
are built inside each worker by ``make_stages()`` (a picklable callable: a
top-level function or functools.partial), so fork, spawn and forkserver all work.
"""
import importlib
from typing import Any

import numpy as np

from . import data as _data

# importlib keeps type checkers from requiring torch's stubs (augpy's stubs are checked without torch).
torch = importlib.import_module("torch")
_torch_data = importlib.import_module("torch.utils.data")
IterableDataset: Any = _torch_data.IterableDataset
get_worker_info: Any = _torch_data.get_worker_info

__all__ = ["StageDataset", "FolderSource", "ShardSource", "to_torch"]


def to_torch(t):
    """A torch tensor viewing the augpy tensor ``t`` (DLPack, zero copy)."""
    return torch.from_dlpack(t)


class FolderSource:
    """``source`` for StageDataset: ``augpy.data.iter_folder(root, recursive)`` split by worker."""

    def __init__(self, root, recursive=False, extensions=_data.IMAGE_EXTENSIONS):
        self.root, self.recursive, self.extensions = root, recursive, extensions

    def __call__(self, worker_id, num_workers):
        return _data.iter_folder(self.root, self.recursive, self.extensions, worker_id, num_workers)


class ShardSource:
    """``source`` for StageDataset: ``augpy.data.iter_shards(shards)`` split by worker (every
    num_workers-th shard)."""

    def __init__(self, shards, image_extensions=_data.IMAGE_EXTENSIONS):
        self.shards = _data.expand_shards(shards)
        self.image_extensions = image_extensions

    def __call__(self, worker_id, num_workers):
        return _data.iter_shards(self.shards, self.image_extensions, worker_id, num_workers)


class _Ring:
    """The unreleased batches of a copy=False dataset."""

    def __init__(self, num_buffers):
        self.num_buffers = num_buffers
        self.calls = 0
        self.unreleased = set()  # call numbers

    def before_call(self):
        stale = [c for c in self.unreleased if c <= self.calls - self.num_buffers]
        if stale:
            raise RuntimeError(
                f"augpy.torch.StageDataset: batch {min(stale)} is still held (copy=False) and the next batch "
                f"would rewrite its buffer: call batch['release']() when done with a batch (at most "
                f"num_buffers - 1 = {self.num_buffers - 1} unreleased batches when asking for the next), "
                f"or use copy=True")

    def issue(self):
        c = self.calls
        self.calls += 1
        self.unreleased.add(c)
        released = []

        def release():
            if not released:
                released.append(True)
                self.unreleased.discard(c)

        return release


class StageDataset(IterableDataset):
    """An IterableDataset over augpy batch stages (see the module doc).

    :param source: callable ``(worker_id, num_workers) -> iterable of (bytes, key, metadata)``
    :param make_stages: picklable callable returning a stage or a list of stages
    :param batch_size: samples per batch
    :param augment: ``augment(rng, key, metadata) -> dict`` (e.g. ``augpy.data.RandomWarp``); None: no augmentation
    :param seed: base seed (int) or None for torch's worker seeds
    :param copy: True: yield copies; False: yield the ring buffer with a release callable
    :param drop_last: drop a last, smaller batch
    """

    def __init__(self, source, make_stages, batch_size, augment=None, seed=None, copy=True, drop_last=False):
        super().__init__()
        if not callable(source):
            raise TypeError("augpy.torch.StageDataset: source must be a callable (worker_id, num_workers) -> samples")
        if not callable(make_stages):
            raise TypeError("augpy.torch.StageDataset: make_stages must be a callable returning the stages")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"augpy.torch.StageDataset: batch_size must be a positive int, got {batch_size!r}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            raise ValueError(f"augpy.torch.StageDataset: seed must be a non-negative int or None, got {seed!r}")
        self.source = source
        self.make_stages = make_stages
        self.batch_size = batch_size
        self.augment = augment
        self.seed = seed
        self.copy = bool(copy)
        self.drop_last = bool(drop_last)
        self.epoch = 0

    def set_epoch(self, epoch):
        """A new augmentation stream per epoch when ``seed`` is given."""
        self.epoch = int(epoch)

    def _worker(self):
        info = get_worker_info()
        if info is None:
            return 0, 1, (torch.initial_seed() if self.seed is None else None)
        return info.id, info.num_workers, (info.seed if self.seed is None else None)

    def rng(self, worker_id, torch_seed=None):
        """The augmentation Generator of a worker (what __iter__ uses)."""
        if self.seed is None:
            return np.random.default_rng(np.random.SeedSequence([torch_seed % 2**63, self.epoch]))
        return np.random.default_rng(np.random.SeedSequence([self.seed, worker_id, self.epoch]))

    def __iter__(self):
        worker_id, num_workers, torch_seed = self._worker()
        stages = self.make_stages()
        if not isinstance(stages, (list, tuple)):
            stages = [stages]
        ring = None
        if not self.copy:
            nb = min([getattr(s, "num_buffers", 2**31) for s in stages] or [2**31])
            ring = _Ring(nb)
        rng = self.rng(worker_id, torch_seed)
        samples = self.source(worker_id, num_workers)
        for batch in _data.batches(samples, self.batch_size, self.augment, rng, self.drop_last):
            if ring is not None:
                ring.before_call()
            for stage in stages:
                batch = stage(batch)
            image = to_torch(batch["image"])
            if self.copy:
                batch["image"] = image.clone()
            else:
                batch["image"] = image
                batch["release"] = ring.issue()
            yield batch
