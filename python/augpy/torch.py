"""augpy.torch: the batch stages as a PyTorch ``IterableDataset`` (docs/scale-out.md).

Imported only on request (``import augpy.torch``): it imports torch, which
``import augpy`` never does.

``StageDataset(source, make_stages, batch_size, ...)`` reads ``(bytes, key,
metadata)`` samples from a source (``augpy.data.FolderSource`` for an ImageNet-style
folder, ``FileListSource``, ``ShardSource`` for WebDataset tar shards, or a callable
``(worker_id, num_workers) -> samples``), groups them into batch dicts, runs them
through the stages (``augpy.image.ImageNetTrain``, ``DecodeWarp``, ``Lighting`` or any
callable taking and returning such a dict) and yields ``{'image': torch.Tensor,
'label': int64 tensor, 'key': [...], 'metadata': [...], 'augmentation': [...]}`` with
the image taken by DLPack, or ``(images, labels)`` with ``output='tuple'``::

    source = augpy.data.FolderSource("train")            # train/<class>/<image>.jpg
    ds = augpy.torch.StageDataset(source, functools.partial(augpy.image.imagenet_train, 64),
                                  64, seed=0, shuffle=True, output="tuple")
    loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=4)
    for epoch in range(epochs):
        ds.set_epoch(epoch)
        for images, labels in loader: ...

One randomness model (augpy.image, docs/semantics.md §11): every draw (the shuffle,
the stages' crops, flips and jitter, ``augment=``) is a pure function of (seed,
epoch, sample key, stream). So the same seed gives the same batches, every
``set_epoch(e)`` a new reproducible stream, and ``num_workers`` = 0, 1, 2, ... the
same batches in the same order: an indexable source's epoch order is cut into
batches and batch k goes to worker k % num_workers, which is the order in which
torch's DataLoader takes its workers' batches. Each sample's dict in
``batch['augmentation']`` records its ``rng`` and what the stages drew; given back
to the stages with the image it replays them. ``state_dict()`` /
``load_state_dict()`` resume an epoch at any sample. Call ``set_epoch(epoch)`` before
each epoch (as with torch's DistributedSampler): without it every epoch repeats the
first one's order and augmentations (the dataset warns when it sees this happen in
one process; fresh DataLoader workers cannot tell).

Differences on purpose: a skipped bad file (``on_error='skip'``) is replaced by the
next sample of the same worker's share (with ``drop_last``, the samples past the last
whole batch, shared out among the workers, come last in it), so with bad files the
batches depend on ``num_workers``; tar shards are split by shard across workers and shuffled through a
buffer, so their order depends on ``num_workers`` (each sample's augmentation does
not, as it follows its key).

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

The stages are built inside each worker by ``make_stages()`` (a picklable callable:
a top-level function or functools.partial), so fork, spawn and forkserver all work;
the stages also pickle, should you hand them over yourself.
"""
import importlib
import itertools
import multiprocessing
import warnings
from typing import Any

from . import data as _data
from ._sampling import _MASK64, check_on_error, check_seed, metadata_labels
from .data import FileListSource, FolderSource, ShardSource  # noqa: F401 (re-exported)

# importlib keeps type checkers from requiring torch's stubs (augpy's stubs are checked without torch).
torch = importlib.import_module("torch")
_torch_data = importlib.import_module("torch.utils.data")
IterableDataset: Any = _torch_data.IterableDataset
get_worker_info: Any = _torch_data.get_worker_info

__all__ = ["StageDataset", "FolderSource", "FileListSource", "ShardSource", "to_torch"]


def to_torch(t):
    """A torch tensor viewing the augpy tensor ``t`` (DLPack, zero copy)."""
    return torch.from_dlpack(t)


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
        when a mixing stage (MixUp, CutMix, Mixup, timm_train's mixup=) made soft targets)
    """

    def __init__(self, source, make_stages, batch_size, augment=None, seed=None, copy=True, drop_last=False,
                 shuffle=False, shuffle_buffer=1000, on_error=None, output="dict"):
        super().__init__()
        func = "augpy.torch.StageDataset"
        if not (callable(source) or _indexable(source) or hasattr(source, "samples")):
            raise TypeError(f"{func}: source must be an augpy.data source or a callable (worker_id, num_workers) "
                            f"-> samples, got {type(source).__name__}")
        if not callable(make_stages):
            raise TypeError(f"{func}: make_stages must be a callable returning the stages")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"{func}: batch_size must be a positive int, got {batch_size!r}")
        if augment is not None and not callable(augment):
            raise TypeError(f"{func}: augment must be a callable (generator, key, metadata) -> dict or None")
        if isinstance(shuffle_buffer, bool) or not isinstance(shuffle_buffer, int) or shuffle_buffer < 1:
            raise ValueError(f"{func}: shuffle_buffer must be a positive int, got {shuffle_buffer!r}")
        if on_error is not None:
            check_on_error(on_error, func)
        if output not in ("dict", "tuple"):
            raise ValueError(f"{func}: output must be 'dict' or 'tuple', got {output!r}")
        self.source = source
        self.make_stages = make_stages
        self.batch_size = batch_size
        self.augment = augment
        self.seed = check_seed(seed, func)
        self._seed = self.seed if self.seed is not None else int(torch.initial_seed()) & _MASK64
        self.copy = bool(copy)
        self.drop_last = bool(drop_last)
        self.shuffle = bool(shuffle)
        self.shuffle_buffer = shuffle_buffer
        self.on_error = on_error
        self.output = output
        self.epoch = 0
        self.skipped = 0
        self._start = 0        # the first sample of the epoch (load_state_dict)
        self._consumed = 0     # samples of this epoch read in this process
        self._iterated = None  # the (seed, epoch, start) iterated to its end in this process
        # (seed, epoch, start) in shared memory: persistent DataLoader workers keep the dataset
        # copy of the first epoch, and read set_epoch / load_state_dict from here at each epoch
        self._shared = multiprocessing.RawArray("Q", 3)
        self._publish()

    def _publish(self):
        if self._shared is not None:
            self._shared[:] = [self._seed, self.epoch, self._start]

    def __getstate__(self):
        """The shared (seed, epoch, start) travels only to processes being started (a
        DataLoader's workers); a plain pickle keeps their values."""
        state = dict(self.__dict__)
        if multiprocessing.context.get_spawning_popen() is None:
            state["_shared"] = None
        return state

    def set_epoch(self, epoch):
        """Epoch ``epoch``'s order and augmentations (call it before each epoch, as with
        DistributedSampler): a new stream per epoch, no replay of the earlier ones."""
        if isinstance(epoch, bool) or not hasattr(epoch, "__index__") or not 0 <= epoch.__index__() <= _MASK64:
            raise ValueError(f"augpy.torch.StageDataset.set_epoch: epoch must be an int in [0, 2**64), got {epoch!r}")
        epoch = epoch.__index__()
        if epoch != self.epoch:
            self._start = 0
        self.epoch = epoch
        self._consumed = self._start
        self._publish()

    def __len__(self):
        """Batches per epoch (indexable sources; a worker's share is about len / num_workers)."""
        if not _indexable(self.source):
            raise TypeError("augpy.torch.StageDataset: len() needs an indexable source (FolderSource, "
                            "FileListSource); streamed sources have no length")
        n = len(self.source) - self._start
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def state_dict(self, samples_seen=None):
        """Where the epoch stands: ``{'seed', 'epoch', 'sample', 'size', 'shuffle'}``. sample =
        ``samples_seen`` (the samples the training loop has taken this epoch, counting from
        the epoch's start) or, without it, the samples this process read (num_workers=0).
        ``load_state_dict`` of it resumes the epoch at that sample."""
        if samples_seen is None:
            sample = self._consumed
        else:
            if isinstance(samples_seen, bool) or not isinstance(samples_seen, int) or samples_seen < 0:
                raise ValueError(f"augpy.torch.StageDataset.state_dict: samples_seen must be a non-negative int, "
                                 f"got {samples_seen!r}")
            sample = samples_seen
        size = len(self.source) if _indexable(self.source) else None
        return {"seed": self._seed, "epoch": self.epoch, "sample": sample, "size": size, "shuffle": self.shuffle}

    def load_state_dict(self, state):
        """Resume: the next iteration starts at ``state['sample']`` of ``state['epoch']``'s
        order, with that seed (indexable sources; a streamed source resumes at its epoch's
        start). Raises ValueError for a state of another source or ordering."""
        func = "augpy.torch.StageDataset.load_state_dict"
        if not isinstance(state, dict):
            raise TypeError(f"{func}: state must be a dict from state_dict(), got {type(state).__name__}")
        keys = {"seed", "epoch", "sample", "size", "shuffle"}
        if set(state) != keys:
            raise ValueError(f"{func}: state must have exactly the keys {sorted(keys)}, got {sorted(state)}")
        seed = check_seed(state["seed"], func)
        if seed is None:
            raise ValueError(f"{func}: state['seed'] is None")
        epoch, sample = state["epoch"], state["sample"]
        for name, v in (("epoch", epoch), ("sample", sample)):
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= _MASK64:
                raise ValueError(f"{func}: state[{name!r}] must be an int in [0, 2**64), got {v!r}")
        size = len(self.source) if _indexable(self.source) else None
        if state["size"] != size:
            raise ValueError(f"{func}: the state is of a source of {state['size']} samples, this one has {size}")
        if state["shuffle"] is not self.shuffle:
            raise ValueError(f"{func}: the state has shuffle={state['shuffle']!r}, this dataset {self.shuffle!r}")
        if size is not None and sample > size:
            raise ValueError(f"{func}: state['sample'] {sample} is past the source's {size} samples")
        self._seed, self.epoch, self._start = seed, epoch, sample if size is not None else 0
        self._consumed = self._start
        self._iterated = None
        self._publish()

    # ---- iteration ---------------------------------------------------------------------------

    def _worker(self):
        info = get_worker_info()
        return (0, 1) if info is None else (info.id, info.num_workers)

    def _samples(self, worker_id, num_workers):
        """This worker's samples in order: (data, key, metadata, index). With drop_last, the
        samples past the last whole batch follow, shared out round-robin: never a batch of
        their own (__iter__), they replace skipped files, which would otherwise leave a batch
        short and dropped while good files go unread."""
        src = self.source
        if _indexable(src):
            order = _data.epoch_order(len(src), self._seed, self.epoch, self.shuffle)[self._start:]
            b, n = self.batch_size, len(order)
            nb = n // b if self.drop_last else -(-n // b)
            mine = [i for k in range(worker_id, nb, num_workers)  # batch k goes to worker k % num_workers
                    for i in order[k * b:(k + 1) * b]]
            if self.drop_last:
                mine += list(order[nb * b:][worker_id::num_workers])
            for i in mine:
                data, key, meta = src[int(i)]
                yield data, key, meta, int(i)
            return
        if hasattr(src, "samples"):
            it = src.samples(self._seed, self.epoch, self.shuffle, self.shuffle_buffer, worker_id, num_workers)
        else:
            it = src(worker_id, num_workers)
            if self.shuffle:
                it = _data.shuffled(it, self.shuffle_buffer, _data.sample_generator(
                    self._seed, self.epoch, worker_id * 2**32 + num_workers))
        for item in it:
            try:
                data, key, meta = item
            except (TypeError, ValueError):
                raise TypeError(f"augpy.torch.StageDataset: a source must yield (bytes, key, metadata) triples, "
                                f"got {type(item).__name__}") from None
            yield data, key, meta, -1

    def _build_stages(self):
        """(head, tail, all): the stages as callables, a decoding stage's own transforms
        (ImageNetTrain's policy, normalise, erasing, mixing, ...) after it, so that they run
        on the batch once its skipped files are replaced (_full_batch); head ends with the
        last stage that can skip files (``on_error``). The stages are not changed (a
        make_stages that hands back the same stage every epoch keeps it whole)."""
        stages = self.make_stages()
        if not isinstance(stages, (list, tuple)):
            stages = [stages]
        calls, skips = [], 0
        for stage in stages:
            if self.on_error is not None and hasattr(stage, "on_error"):
                stage.on_error = self.on_error
            decodes = hasattr(stage, "on_error") and hasattr(stage, "_decoded")
            calls.append(stage._decoded if decodes else stage)
            if hasattr(stage, "on_error"):
                skips = len(calls)
            if decodes:
                calls += list(stage.transforms)
        return calls[:skips], calls[skips:], list(stages)

    def _run(self, head, samples, ring):
        """One batch dict of samples through the head stages."""
        batch = next(_data.batches([s[:3] for s in samples], len(samples), self.augment, seed=self._seed,
                                   epoch=self.epoch, indices=[s[3] for s in samples]))
        if ring is not None:
            ring.before_call()
        for stage in head:
            batch = stage(batch)
        release = ring.issue() if ring is not None else None
        skipped = batch.get("skipped", ())
        self.skipped += len(skipped)
        return batch, release

    def __iter__(self):
        """The batches of this worker's share: dicts, or (images, labels) with output='tuple'."""
        worker_id, num_workers = self._worker()
        if self._shared is not None and get_worker_info() is not None:
            self._seed, self.epoch, self._start = (int(v) for v in self._shared)
        here = (self._seed, self.epoch, self._start)
        if self._iterated == here:
            warnings.warn(f"augpy.torch.StageDataset: epoch {self.epoch} iterated again without set_epoch(): the "
                          f"same order and augmentations as before; call set_epoch(epoch) before each epoch",
                          stacklevel=2)
        stages = self._build_stages()
        ring = None
        if not self.copy:
            nb = min([getattr(s, "num_buffers", 2**31) for s in stages[2]] or [2**31])
            ring = _Ring(nb)
        self._consumed = self._start
        samples = self._samples(worker_id, num_workers)
        while True:
            take = list(itertools.islice(samples, self.batch_size))
            if not take or self.drop_last and len(take) < self.batch_size:
                break  # the end; with drop_last, a short take is what _samples keeps for replacements
            self._consumed += len(take)
            batch, release = self._full_batch(stages, take, samples, ring)
            if batch is None:
                continue  # the samples ran out (the next take is empty), or drop_last
            yield self._hand_over(batch, release)
        self._iterated = here

    def _full_batch(self, stages, take, samples, ring):
        """The batch of take through the stages, the samples the head skipped replaced by the
        next ones: the head runs again, on the whole batch with the replacements, until nothing
        is skipped or the samples run out; then the tail runs once, so that every stage after
        the decode (a mixing stage's pairs and draws too) sees one full batch. Each sample's
        augmentation follows its key, so the kept images are the same in every run. Returns
        (batch, release); (None, None) when every sample was skipped, or the batch came out
        short and drop_last is set."""
        head, tail, _ = stages
        found = []  # what the earlier runs skipped
        while True:
            batch, release = self._run(head, take, ring)
            bad = _dropped(take, batch)
            if not bad:
                break
            found.extend(batch.get("skipped", ()))
            if release is not None:
                release()
            more = list(itertools.islice(samples, len(bad)))
            self._consumed += len(more)
            take = [s for i, s in enumerate(take) if i not in bad] + more
            if not take:
                return None, None
        if self.drop_last and _batch_len(batch) < self.batch_size:
            if release is not None:
                release()
            return None, None
        if found:
            batch["skipped"] = found + list(batch.get("skipped", ()))
        for stage in tail:
            batch = stage(batch)
        return batch, release

    def _hand_over(self, batch, release):
        """The yielded batch: the ring buffer (copy=False), or a copy."""
        image = to_torch(batch["image"])
        if self.copy:
            batch["image"] = image.clone()
        else:
            batch["image"] = image
            batch["release"] = release
        labels = metadata_labels(batch["metadata"])
        if labels is not None:
            batch["label"] = torch.tensor(labels, dtype=torch.int64)
        if "target" in batch:  # a mixing stage's soft targets (a new tensor per batch)
            batch["target"] = _as_torch(batch["target"])
            if self.output == "tuple":
                return batch["image"], batch["target"]
        if self.output == "tuple":
            if labels is None:
                raise ValueError("augpy.torch.StageDataset: output='tuple' needs a label per sample (a FolderSource "
                                 "class folder, a FileListSource label or a shard's .cls member)")
            return batch["image"], batch["label"]
        return batch


def _indexable(source):
    return hasattr(source, "__len__") and hasattr(source, "__getitem__") and not callable(getattr(
        source, "samples", None))


def _batch_len(batch):
    image = batch["image"]
    return int(image.shape[0]) if hasattr(image, "shape") else len(image)


def _as_torch(t):
    return t if isinstance(t, torch.Tensor) else to_torch(t)


def _dropped(take, batch):
    """The positions in take of the samples the stages dropped (skipped files), from the
    batch's 'key' list, which the stages keep in order; empty when none was dropped or the
    batch has no such list (a stage of one's own that drops it: the batch is then kept
    as it is)."""
    keys = batch.get("key")
    if not isinstance(keys, list) or len(keys) >= len(take):
        return set()
    bad, j = set(), 0
    for i, s in enumerate(take):
        if j < len(keys) and (keys[j] is s[1] or _same(keys[j], s[1])):
            j += 1
        else:
            bad.add(i)
    return bad if j == len(keys) else set()


def _same(a, b):
    try:
        return bool(a == b)
    except Exception:  # a key whose == is not a bool (an array): not the same sample
        return False