"""A small, faithful model of the parts of torch that data-loading tests and the docs'
examples use, for machines without torch (`make test` does not install it: its wheel
pulls gigabytes of CUDA libraries). Only numpy and the standard library.

    import torch_standin
    modules = torch_standin.install()   # the stand-in, only when `import torch` fails
    ...                                 # import torch / torch.utils.data as usual
    torch_standin.uninstall()           # removes it (and modules that imported it)

What it models (torch 2.x, read from torch/utils/data/dataloader.py, _utils/worker.py,
_utils/fetch.py, _utils/collate.py):

- ``torch.Tensor`` over a numpy array (shape, dtype, numpy() sharing memory, clone,
  tolist, item, indexing, elementwise ``==``, cpu(), DLPack both ways, pickles as its
  array); ``tensor`` (python floats become float32, ints int64), ``as_tensor``,
  ``from_numpy``, ``from_dlpack``, ``stack``, ``cat``, ``equal``, the dtypes;
  ``torch.cuda.is_available()`` is False (``Tensor.cuda()`` raises, as a CPU-only torch's).
- Seeds: the default generator is seeded from OS entropy at start (``initial_seed()``),
  ``manual_seed``; ``Generator`` (default seed 67280421310721) is torch's mt19937 and
  ``torch.empty((), dtype=torch.int64).random_(generator=g)`` draws exactly torch's
  value, so a DataLoader's base seed (and so each worker's ``get_worker_info().seed``
  = base_seed + worker id) equals real torch's for the same ``manual_seed`` / generator.
  ``randperm`` (RandomSampler's order) is a permutation from the generator, but not
  torch's permutation.
- ``torch.utils.data``: ``Dataset``, ``IterableDataset``, ``get_worker_info``,
  ``default_convert``, ``default_collate`` (the common cases), and ``DataLoader``:
  * num_workers=0: the dataset is iterated (or indexed) in this process.
  * num_workers=W>0: W daemon processes of the given start method (a name or a context;
    default the platform's), each with its own copy of the dataset (fork: inherited;
    spawn / forkserver: pickled), ``get_worker_info()`` = (id, num_workers,
    seed=base_seed + id, dataset), ``random`` / ``numpy.random`` / ``torch`` seeded as
    torch seeds them, ``worker_init_fn(id)`` first, then ``iter(dataset)``. The base seed
    is drawn from the loader's generator (or the default one) once per iterator, i.e.
    per epoch (once for ever with persistent_workers).
  * Tasks are sent round-robin to the active workers, prefetch_factor (2) per worker
    outstanding, and the main process yields the results in task order: with
    batch_size=None and an IterableDataset, worker 0's first item, worker 1's first, ...,
    worker 0's second, ..., skipping workers whose iterator has ended.
  * An exception in a worker is re-raised in the main process at its place in that
    order as ``ExcType("Caught ExcType in DataLoader worker process N.\\nOriginal
    Traceback ...")`` (RuntimeError when the type cannot be built from one string);
    the loader can go on after it, the failed worker's iterator is then finished.
  * persistent_workers=True keeps the processes (and their copies of the dataset, so a
    ``set_epoch`` in the main process does not reach them) and the base seed across
    epochs.
  * IterableDataset refuses ``shuffle=True`` (ValueError) as torch does; a map-style
    Dataset with batch_size=k and shuffle=True draws its order from the generator.
  * default collate_fn: ``default_convert`` with batch_size=None (numpy arrays become
    tensors, and a tuple becomes a list), ``default_collate`` with batch_size=k.

Deviations, all on the side of failing loudly: timeout=0 waits at most
``HANG_TIMEOUT`` (120 s) instead of for ever, then shuts the workers down and raises; a
worker whose item cannot be pickled sends that error (torch prints it in the worker and
the main process waits); a worker that died is reported at the next wait (torch: at once,
by SIGCHLD). ``uninstall()`` and interpreter exit stop the workers of live iterators.
"""
import collections.abc
import copy as _copy
import importlib
import itertools
import multiprocessing as mp
import os
import queue
import random
import re
import sys
import time
import traceback
import types
import weakref
from multiprocessing.reduction import ForkingPickler

import numpy as np

HANG_TIMEOUT = 120.0  # seconds: a loader with timeout=0 gives up (and stops its workers) after this
_POLL = 0.1  # seconds between checks of the workers while waiting
_JOIN = 5.0  # torch's MP_STATUS_CHECK_INTERVAL: how long shutdown waits for a worker before terminating it
_NAMES = ("torch", "torch.cuda", "torch.utils", "torch.utils.data")

# ---- dtypes ---------------------------------------------------------------------------------------


class dtype:
    def __init__(self, name, np_dtype):
        self.name, self.np = name, np.dtype(np_dtype)
        self.is_floating_point = self.np.kind == "f"

    def __repr__(self):
        return f"torch.{self.name}"

    def __reduce__(self):
        return (_dtype_by_name, (self.name,))


_DTYPES = {n: dtype(n, t) for n, t in [
    ("bool", np.bool_), ("uint8", np.uint8), ("int8", np.int8), ("int16", np.int16), ("int32", np.int32),
    ("int64", np.int64), ("uint16", np.uint16), ("uint32", np.uint32), ("uint64", np.uint64),
    ("float16", np.float16), ("float32", np.float32), ("float64", np.float64)]}
_BY_NP = {d.np: d for d in _DTYPES.values()}


def _dtype_by_name(name):
    return _DTYPES[name]


def _np_dtype(d):
    if d is None:
        return None
    if isinstance(d, dtype):
        return d.np
    return np.dtype(np.float32 if d is float else d)


# ---- Tensor ---------------------------------------------------------------------------------------


def _arr(x):
    return x._a if isinstance(x, Tensor) else x


class Tensor:
    """A CPU tensor over a numpy array (``numpy()`` shares its memory, as torch's does)."""

    __array_priority__ = 1000

    def __init__(self, array):
        self._a = np.asarray(array)

    # what a tensor is
    shape = property(lambda self: tuple(self._a.shape))
    ndim = property(lambda self: self._a.ndim)
    dtype = property(lambda self: _BY_NP[self._a.dtype])
    device = property(lambda self: "cpu")
    is_cuda = False

    def size(self, dim=None):
        return self.shape if dim is None else self.shape[dim]

    def dim(self):
        return self._a.ndim

    def numel(self):
        return int(self._a.size)

    def numpy(self):
        return self._a

    def __array__(self, dtype=None, copy=None):
        return self._a if dtype is None else self._a.astype(dtype)

    def __dlpack__(self, *args, **kwargs):
        return self._a.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()

    def tolist(self):
        return self._a.tolist()

    def item(self):
        if self._a.size != 1:
            raise RuntimeError(f"a Tensor with {self._a.size} elements cannot be converted to Scalar")
        return self._a.reshape(()).item()

    # copies and conversions
    def clone(self):
        return Tensor(self._a.copy())

    def cpu(self):
        return self

    def contiguous(self):
        return Tensor(np.ascontiguousarray(self._a))

    def to(self, *args, **kwargs):
        d = kwargs.get("dtype")
        for a in args:
            if isinstance(a, dtype):
                d = a
            elif str(a) != "cpu":
                raise AssertionError("Torch not compiled with CUDA enabled (torch_standin: CPU only)")
        return self if d is None or d.np == self._a.dtype else Tensor(self._a.astype(d.np))

    def cuda(self, *args, **kwargs):
        raise AssertionError("Torch not compiled with CUDA enabled (torch_standin: CPU only)")

    def float(self):
        return self.to(float32)

    def long(self):
        return self.to(int64)

    def random_(self, generator=None):
        if self._a.dtype != np.int64:
            raise NotImplementedError("torch_standin: random_() is modelled for int64 tensors only")
        g = generator or _default_generator
        flat = self._a.reshape(-1)
        for i in range(flat.size):
            flat[i] = g._random64() % 2**63
        return self

    # indexing, comparison, iteration
    def __len__(self):
        if self._a.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return len(self._a)

    def __getitem__(self, idx):
        idx = tuple(_arr(i) for i in idx) if isinstance(idx, tuple) else _arr(idx)
        return Tensor(np.asarray(self._a[idx]))

    def __setitem__(self, idx, value):
        self._a[_arr(idx)] = _arr(value)

    def __iter__(self):
        if self._a.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (Tensor(np.asarray(r)) for r in self._a)

    def __eq__(self, other):
        return Tensor(self._a == _arr(other))

    def __ne__(self, other):
        return Tensor(self._a != _arr(other))

    __hash__ = object.__hash__

    def __bool__(self):
        if self._a.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._a.reshape(()))

    def __int__(self):
        return int(self.item())

    def __float__(self):
        return float(self.item())

    def __index__(self):
        return int(self.item())

    def __reduce__(self):
        return (Tensor, (np.ascontiguousarray(self._a),))

    def __repr__(self):
        body = np.array2string(self._a, separator=", ", prefix="tensor(")
        extra = "" if self._a.dtype in (np.int64, np.float32, np.bool_) else f", dtype={self.dtype!r}"
        return f"tensor({body}{extra})"


def tensor(data, dtype=None):
    """A copy of data; python floats become float32 and ints int64 (torch's defaults)."""
    if isinstance(data, Tensor):
        data = data._a
    src_is_array = isinstance(data, np.ndarray)
    a = np.array(data, dtype=_np_dtype(dtype))
    if dtype is None and not src_is_array:
        if a.dtype == np.float64:
            a = a.astype(np.float32)
        elif a.dtype.kind in "iu":
            a = a.astype(np.int64)
    _check_convertible(a)
    return Tensor(a)


def _check_convertible(a):
    if a.dtype not in _BY_NP:
        t = a.dtype.type
        raise TypeError(f"can't convert np.ndarray of type {t.__module__}.{t.__name__}. The only supported types "
                        "are: float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, "
                        "uint32, uint16, uint8, and bool.")


def as_tensor(data, dtype=None):
    if isinstance(data, Tensor) and dtype is None:
        return data
    if isinstance(data, np.ndarray):
        _check_convertible(data)
        return Tensor(data if dtype is None else data.astype(_np_dtype(dtype), copy=False))
    return tensor(data, dtype)


def from_numpy(a):
    if not isinstance(a, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(a).__name__})")
    return as_tensor(a)


def from_dlpack(obj):
    """numpy.from_dlpack; an augpy tensor on a (possibly emulated) CUDA device, which a CPU-only
    torch could not take, comes over as a host copy (obj.numpy())."""
    try:
        return Tensor(np.from_dlpack(obj))
    except (BufferError, RuntimeError, TypeError, ValueError):
        if hasattr(obj, "numpy") and str(getattr(obj, "device", "cpu")) != "cpu":
            return Tensor(np.asarray(obj.numpy()))
        raise


def stack(tensors, dim=0):
    return Tensor(np.stack([_arr(t) for t in tensors], axis=dim))


def cat(tensors, dim=0):
    return Tensor(np.concatenate([_arr(t) for t in tensors], axis=dim))


def equal(a, b):
    a, b = _arr(a), _arr(b)
    return a.shape == b.shape and bool(np.array_equal(a, b))


def is_tensor(x):
    return isinstance(x, Tensor)


def empty(*size, dtype=None):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    return Tensor(np.zeros(size, dtype=_np_dtype(dtype) or np.float32))


def zeros(*size, dtype=None):
    return empty(*size, dtype=dtype)


# ---- generators -----------------------------------------------------------------------------------


class Generator:
    """torch's CPU generator: mt19937 seeded with the low 32 bits of the seed; random64() is
    two 32-bit outputs (high, low)."""

    def __init__(self, device="cpu"):
        self.manual_seed(67280421310721)

    def manual_seed(self, seed):
        seed = int(seed) % 2**64
        self._seed = seed
        self._mt = np.random.MT19937()
        self._mt._legacy_seeding(seed & 0xFFFFFFFF)
        return self

    def initial_seed(self):
        return self._seed

    def seed(self):
        s = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(s)
        return s

    def _random64(self):
        hi, lo = (int(x) for x in self._mt.random_raw(2))
        return (hi << 32) | lo


_default_generator = Generator()
_default_generator.seed()  # torch seeds its default generator from OS entropy at start


def manual_seed(seed):
    _default_generator.manual_seed(seed)
    return _default_generator


def initial_seed():
    return _default_generator.initial_seed()


def seed():
    return _default_generator.seed()


def randperm(n, generator=None):
    """A permutation of range(n) drawn from the generator (not torch's permutation)."""
    g = generator or _default_generator
    return Tensor(np.random.default_rng(g._random64()).permutation(n).astype(np.int64))


def _base_seed(generator):
    """torch.empty((), dtype=torch.int64).random_(generator=generator).item()"""
    return empty((), dtype=int64).random_(generator=generator).item()


def set_num_threads(n):
    pass


def get_num_threads():
    return 1


uint8, int64, float32, float64, bool_ = (_DTYPES[n] for n in ("uint8", "int64", "float32", "float64", "bool"))

# ---- torch.utils.data: datasets, worker info, collation -------------------------------------------


class Dataset:
    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")


class IterableDataset(Dataset):
    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")


class WorkerInfo:
    __slots__ = ("id", "num_workers", "seed", "dataset")

    def __init__(self, id, num_workers, seed, dataset):  # noqa: A002
        self.id, self.num_workers, self.seed, self.dataset = id, num_workers, seed, dataset

    def __repr__(self):
        return f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed}, dataset={self.dataset!r})"


_worker_info = None


def get_worker_info():
    """In a DataLoader worker: its WorkerInfo; in the main process: None."""
    return _worker_info


_STR_OBJ = re.compile(r"[SaUO]")


def default_convert(data):
    """batch_size=None's collate_fn: numpy arrays (not str / object) and numpy scalars become
    tensors, recursively through mappings and sequences; a tuple becomes a list (torch's rule)."""
    t = type(data)
    if isinstance(data, Tensor):
        return data
    if t.__module__ == "numpy" and t.__name__ not in ("str_", "string_", "bytes_"):
        if t.__name__ == "ndarray" and _STR_OBJ.search(data.dtype.str) is not None:
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = _copy.copy(data)
                clone.update({k: default_convert(data[k]) for k in data})
                return clone
            return t({k: default_convert(data[k]) for k in data})
        except TypeError:
            return {k: default_convert(data[k]) for k in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return t(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = _copy.copy(data)
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return t([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def default_collate(batch):
    """batch_size=k's collate_fn, the common cases: tensors and numpy arrays stacked, numbers
    to a tensor (float -> float64, int -> int64), str / bytes kept as a list, mappings and
    sequences collated per field (a tuple gives a list)."""
    elem = batch[0]
    t = type(elem)
    if isinstance(elem, Tensor):
        return stack(batch)
    if t.__module__ == "numpy" and t.__name__ not in ("str_", "string_", "bytes_"):
        if t.__name__ in ("ndarray", "memmap"):
            if _STR_OBJ.search(elem.dtype.str) is not None:
                raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                                f"lists; found {elem.dtype}")
            return stack([as_tensor(b) for b in batch])
        if elem.shape == ():
            return as_tensor(np.array(batch))
    if isinstance(elem, bool) or isinstance(elem, int):
        return tensor(batch, dtype=int64 if not isinstance(elem, bool) else bool_)
    if isinstance(elem, float):
        return tensor(batch, dtype=float64)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        out = {k: default_collate([d[k] for d in batch]) for k in elem}
        try:
            return t(out)
        except TypeError:
            return out
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return t(*(default_collate(s) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        n = len(next(it))
        if not all(len(e) == n for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        cols = [default_collate(list(s)) for s in zip(*batch)]
        if isinstance(elem, tuple):
            return cols
        try:
            return t(cols)
        except TypeError:
            return cols
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                    f"found {t}")



class _KeyErrorMessage(str):
    def __repr__(self):
        return self


class _ExceptionWrapper:
    """torch._utils.ExceptionWrapper: the exception type and its formatted traceback."""

    def __init__(self, where):
        exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exception


class _IterableDatasetStopIteration:
    def __init__(self, worker_id):
        self.worker_id = worker_id


class _ResumeIteration:
    pass


class _Fetcher:
    """torch's _IterableDatasetFetcher / _MapDatasetFetcher."""

    def __init__(self, iterable, dataset, auto_collation, collate_fn, drop_last):
        self.iterable, self.dataset = iterable, dataset
        self.auto_collation, self.collate_fn, self.drop_last = auto_collation, collate_fn, drop_last
        self.dataset_iter = iter(dataset) if iterable else None
        self.ended = False

    def fetch(self, index):
        if not self.iterable:
            data = [self.dataset[i] for i in index] if self.auto_collation else self.dataset[index]
            return self.collate_fn(data)
        if self.ended:
            raise StopIteration
        if self.auto_collation:
            data = []
            for _ in index:
                try:
                    data.append(next(self.dataset_iter))
                except StopIteration:
                    self.ended = True
                    break
            if len(data) == 0 or (self.drop_last and len(data) < len(index)):
                raise StopIteration
        else:
            data = next(self.dataset_iter)
        return self.collate_fn(data)


# ---- the worker process ---------------------------------------------------------------------------

def _generate_state(base_seed, worker_id):
    """torch.utils.data._utils.worker._generate_state: the numpy seed of a worker."""
    INIT_A, MULT_A, INIT_B, MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
    MIX_MULT_L, MIX_MULT_R, XSHIFT, MASK32 = 0xCA01F9DD, 0x4973F715, 16, 0xFFFFFFFF
    entropy = [worker_id, base_seed & MASK32, base_seed >> 32, 0]
    hash_const_a = INIT_A

    def hash_(value):
        nonlocal hash_const_a
        value = (value ^ hash_const_a) & MASK32
        hash_const_a = (hash_const_a * MULT_A) & MASK32
        value = (value * hash_const_a) & MASK32
        return (value ^ (value >> XSHIFT)) & MASK32

    def mix(x, y):
        r = ((MIX_MULT_L * x) & MASK32) - ((MIX_MULT_R * y) & MASK32) & MASK32
        r &= MASK32
        return (r ^ (r >> XSHIFT)) & MASK32

    pool = [hash_(e) for e in entropy]
    for i_src in range(4):
        for i_dst in range(4):
            if i_src != i_dst:
                pool[i_dst] = mix(pool[i_dst], hash_(pool[i_src]))
    hash_const_b = INIT_B
    state = []
    for v in pool:
        v = (v ^ hash_const_b) & MASK32
        hash_const_b = (hash_const_b * MULT_B) & MASK32
        v = (v * hash_const_b) & MASK32
        state.append((v ^ (v >> XSHIFT)) & MASK32)
    return state


def _dumps(obj):
    return bytes(ForkingPickler.dumps(obj))


def _worker_loop(payload, index_queue, data_queue, done_event, base_seed, worker_id, num_workers):
    """torch.utils.data._utils.worker._worker_loop, for this stand-in."""
    global _worker_info
    manager_pid = os.getppid()  # torch's ManagerWatchdog: stop when the process that started this one is gone
    if isinstance(payload, bytes):  # spawn / forkserver: a fresh interpreter, without torch
        install()
        payload = ForkingPickler.loads(payload)
    dataset, iterable, auto_collation, collate_fn, drop_last, init_fn = payload
    try:
        seed = base_seed + worker_id
        random.seed(seed)
        manual_seed(seed)
        np.random.seed(_generate_state(base_seed, worker_id))
        _worker_info = WorkerInfo(worker_id, num_workers, seed, dataset)
        where = f"in DataLoader worker process {worker_id}"
        init_exception = None
        fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = _Fetcher(iterable, dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_exception = _ExceptionWrapper(where)
        iteration_end = False
        while os.getppid() == manager_pid:
            try:
                r = index_queue.get(timeout=_POLL)
            except queue.Empty:
                continue
            if isinstance(r, _ResumeIteration):
                data_queue.put((r, None))
                iteration_end = False
                fetcher = _Fetcher(iterable, dataset, auto_collation, collate_fn, drop_last)
                continue
            if r is None:
                break
            if done_event.is_set() or iteration_end:
                continue
            idx, index = r
            if init_exception is not None:
                data, init_exception = init_exception, None
            else:
                try:
                    data = fetcher.fetch(index)
                except Exception as e:
                    if isinstance(e, StopIteration) and iterable:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                    else:
                        data = _ExceptionWrapper(where)
            try:
                blob = _dumps(data)
            except Exception:  # torch: printed by the queue's feeder thread, and the main process waits
                wrapper = _ExceptionWrapper(where)
                try:
                    blob = _dumps(wrapper)
                except Exception:
                    wrapper.exc_type = RuntimeError
                    blob = _dumps(wrapper)
            data_queue.put((idx, blob))
            del data, r
    except KeyboardInterrupt:
        pass
    finally:
        _worker_info = None
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()


# ---- DataLoader -----------------------------------------------------------------------------------

_live_iterators = weakref.WeakSet()


class _InfiniteConstantSampler:
    def __iter__(self):
        return itertools.repeat(None)


class _RandomSampler:
    def __init__(self, n, generator):
        self.n, self.generator = n, generator

    def __iter__(self):
        g = self.generator
        if g is None:
            g = Generator().manual_seed(_base_seed(None))
        yield from randperm(self.n, generator=g).tolist()


def _batched(sampler, batch_size, drop_last):
    batch = []
    for i in sampler:
        batch.append(i)
        if len(batch) == batch_size:
            yield batch
            batch = []
    if batch and not drop_last:
        yield batch


class DataLoader:
    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                             "to enable multiprocessing, otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if sampler is not None or batch_sampler is not None:
            raise NotImplementedError("torch_standin: sampler / batch_sampler are not modelled")
        self.iterable = isinstance(dataset, IterableDataset)
        if self.iterable and shuffle not in {False, None}:
            raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                             f"shuffle={shuffle}")
        if batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                             "drop_last")
        self.dataset, self.batch_size, self.shuffle = dataset, batch_size, bool(shuffle)
        self.num_workers, self.drop_last, self.timeout = num_workers, drop_last, timeout
        self.worker_init_fn, self.generator, self.prefetch_factor = worker_init_fn, generator, prefetch_factor
        self.persistent_workers, self.pin_memory = persistent_workers, pin_memory
        self.collate_fn = collate_fn or (default_collate if batch_size is not None else default_convert)
        if multiprocessing_context is not None:
            if num_workers == 0:
                raise ValueError(f"multiprocessing_context can only be used with multi-process loading "
                                 f"(num_workers > 0), but got num_workers={num_workers}")
            if isinstance(multiprocessing_context, str):
                valid = mp.get_all_start_methods()
                if multiprocessing_context not in valid:
                    raise ValueError(f"multiprocessing_context option should specify a valid start method in "
                                     f"{valid!r}, but got multiprocessing_context={multiprocessing_context!r}")
                multiprocessing_context = mp.get_context(multiprocessing_context)
        self.multiprocessing_context = multiprocessing_context
        self._iterator = None

    def _index_sampler(self):
        if self.iterable:
            sampler = _InfiniteConstantSampler()
        elif self.shuffle:
            sampler = _RandomSampler(len(self.dataset), self.generator)
        else:
            sampler = range(len(self.dataset))
        if self.batch_size is None:
            return iter(sampler)
        return _batched(sampler, self.batch_size, self.drop_last)

    def __iter__(self):
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        if self.persistent_workers:
            if self._iterator is None:
                self._iterator = _MultiProcessIter(self)
            else:
                self._iterator._reset(self)
            return self._iterator
        return _MultiProcessIter(self)

    def __len__(self):
        n = len(self.dataset)
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


class _SingleProcessIter:
    def __init__(self, loader):
        if loader.timeout != 0:  # torch's own assertion (seen with torch 2.x on the GPU machine)
            raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")
        self._sampler_iter = loader._index_sampler()
        self._base_seed = _base_seed(loader.generator)  # drawn as torch draws it, unused here
        self._fetcher = _Fetcher(loader.iterable, loader.dataset, loader.batch_size is not None, loader.collate_fn,
                                 loader.drop_last)

    def __iter__(self):
        return self

    def __next__(self):
        index = next(self._sampler_iter)
        return self._fetcher.fetch(index)


class _MultiProcessIter:
    def __init__(self, loader):
        self._sampler_iter = None
        self._base_seed = _base_seed(loader.generator)
        self._num_workers = loader.num_workers
        self._prefetch_factor = loader.prefetch_factor
        self._persistent = loader.persistent_workers
        self._timeout = loader.timeout
        self._iterable = loader.iterable
        self._shutdown = False
        self._workers_status = [True] * self._num_workers
        self._index_queues, self._workers = [], []
        ctx = loader.multiprocessing_context or mp.get_context()
        payload = (loader.dataset, loader.iterable, loader.batch_size is not None, loader.collate_fn,
                   loader.drop_last, loader.worker_init_fn)
        if ctx.get_start_method() != "fork":
            payload = _dumps(payload)  # a pickling error comes from here, as from torch's Process.start()
        self._result_queue = ctx.Queue()
        self._done_event = ctx.Event()
        _live_iterators.add(self)
        for i in range(self._num_workers):
            iq = ctx.Queue()
            iq.cancel_join_thread()
            w = ctx.Process(target=_worker_loop, args=(payload, iq, self._result_queue, self._done_event,
                                                       self._base_seed, i, self._num_workers))
            w.daemon = True
            w.start()
            self._index_queues.append(iq)
            self._workers.append(w)
        self._reset(loader, first_iter=True)

    def __iter__(self):
        return self

    def _reset(self, loader, first_iter=False):
        self._sampler_iter = loader._index_sampler()
        self._send_idx = self._rcvd_idx = 0
        self._task_info = {}
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            for q in self._index_queues:
                q.put(_ResumeIteration())
            pending = self._num_workers
            while pending > 0:
                idx, _ = self._get_data()
                if isinstance(idx, _ResumeIteration):
                    pending -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_put_index(self):
        try:
            index = next(self._sampler_iter)
        except StopIteration:
            return
        for _ in range(self._num_workers):
            w = next(self._worker_queue_idx_cycle)
            if self._workers_status[w]:
                break
        else:
            return
        self._index_queues[w].put((self._send_idx, index))
        self._task_info[self._send_idx] = (w,)
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _get_data(self):
        limit = self._timeout if self._timeout > 0 else HANG_TIMEOUT
        deadline = time.monotonic() + limit
        while True:
            try:
                idx, blob = self._result_queue.get(timeout=_POLL)
                return idx, (ForkingPickler.loads(blob) if isinstance(blob, bytes) else blob)
            except queue.Empty:
                pass
            failed = [w for i, w in enumerate(self._workers) if self._workers_status[i] and not w.is_alive()]
            if failed:
                self._shutdown_workers()
                codes = ", ".join(f"pid {w.pid}: exit code {w.exitcode}" for w in failed)
                raise RuntimeError(f"DataLoader worker ({codes}) exited unexpectedly")
            if time.monotonic() > deadline:
                self._shutdown_workers()
                if self._timeout > 0:
                    raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
                raise RuntimeError(f"DataLoader timed out after {HANG_TIMEOUT} seconds (torch_standin's hang "
                                   f"guard: torch with timeout=0 would wait for ever); workers stopped")

    def __next__(self):
        while True:
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info:
                    if len(info) == 2 or self._workers_status[info[0]]:
                        break
                    del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                if not self._persistent:
                    self._shutdown_workers()
                raise StopIteration
            if len(self._task_info[self._rcvd_idx]) == 2:
                _, data = self._task_info.pop(self._rcvd_idx)
                self._rcvd_idx += 1
                return self._process_data(data)
            if self._shutdown:
                raise RuntimeError("torch_standin: the DataLoader's workers were shut down")
            idx, data = self._get_data()
            self._tasks_outstanding -= 1
            if self._iterable and isinstance(data, _IterableDatasetStopIteration):
                if self._persistent:
                    self._workers_status[data.worker_id] = False
                else:
                    self._mark_worker_as_unavailable(data.worker_id)
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                self._task_info[idx] += (data,)
            else:
                del self._task_info[idx]
                self._rcvd_idx += 1
                return self._process_data(data)

    def _process_data(self, data):
        self._try_put_index()
        if isinstance(data, _ExceptionWrapper):
            data.reraise()
        return data

    def _mark_worker_as_unavailable(self, worker_id):
        self._index_queues[worker_id].put(None)
        self._workers_status[worker_id] = False

    def _shutdown_workers(self):
        if self._shutdown:
            return
        self._shutdown = True
        try:
            self._done_event.set()
            for i, q in enumerate(self._index_queues):
                if self._persistent or self._workers_status[i]:
                    q.put(None)
                    self._workers_status[i] = False
            deadline = time.monotonic() + _JOIN
            for w in self._workers:
                w.join(timeout=max(0.0, deadline - time.monotonic()))
                if w.is_alive():
                    w.terminate()
                    w.join(timeout=_JOIN)
                if w.is_alive():
                    w.kill()
                    w.join(timeout=_JOIN)
            for q in self._index_queues:
                q.cancel_join_thread()
                q.close()
            self._result_queue.cancel_join_thread()
            self._result_queue.close()
        finally:
            _live_iterators.discard(self)

    def __del__(self):
        try:
            self._shutdown_workers()
        except Exception:
            pass


def _shutdown_all():
    for it in list(_live_iterators):
        it._shutdown_workers()


import atexit  # noqa: E402

atexit.register(_shutdown_all)

# ---- the modules ----------------------------------------------------------------------------------

_torch = types.ModuleType("torch", "torch_standin: a small model of torch (tests/python/torch_standin.py)")
_utils = types.ModuleType("torch.utils")
_data = types.ModuleType("torch.utils.data")
for _name in ["Tensor", "dtype", "tensor", "as_tensor", "from_numpy", "from_dlpack", "stack", "cat", "equal",
              "is_tensor", "empty", "zeros", "Generator", "manual_seed", "initial_seed", "seed", "randperm",
              "set_num_threads", "get_num_threads"]:
    setattr(_torch, _name, globals()[_name])
for _name, _d in [*_DTYPES.items(), ("float", float32), ("double", float64), ("long", int64), ("int", _DTYPES["int32"]),
                  ("half", _DTYPES["float16"])]:
    setattr(_torch, _name, _d)
_torch.is_standin = True
_cuda = types.ModuleType("torch.cuda", "torch_standin: no CUDA (a CPU-only torch)")
_cuda.is_available = lambda: False
_cuda.device_count = lambda: 0
_torch.cuda = _cuda
_torch.utils = _utils
_utils.data = _data
for _name in ["Dataset", "IterableDataset", "DataLoader", "get_worker_info", "default_convert", "default_collate"]:
    setattr(_data, _name, globals()[_name])
_data.WorkerInfo = WorkerInfo
MODULES = {"torch": _torch, "torch.cuda": _cuda, "torch.utils": _utils, "torch.utils.data": _data}


def install(force=False):
    """Puts the stand-in into sys.modules when `import torch` fails (or when force), and returns
    the modules `import torch` now gives: {'torch': ..., 'torch.cuda': ..., 'torch.utils': ...,
    'torch.utils.data': ...}."""
    if not force and all(sys.modules.get(n) is m for n, m in MODULES.items()):
        return dict(MODULES)
    if not force:
        try:
            importlib.import_module("torch.utils.data")
            return {n: sys.modules.get(n) for n in _NAMES}
        except ImportError:
            pass
    for n in _NAMES:
        sys.modules.pop(n, None)
    sys.modules.update(MODULES)
    return dict(MODULES)


def uninstall():
    """Stops the workers of live loaders, and removes the stand-in from sys.modules together
    with the modules that bound it (e.g. augpy.torch: `torch = import_module('torch')`), so
    that the next import finds a real torch or a fresh install()."""
    _shutdown_all()
    if sys.modules.get("torch") is not _torch:
        return
    for n in _NAMES:
        if sys.modules.get(n) is MODULES[n]:
            del sys.modules[n]
    ours = {id(m) for m in MODULES.values()}
    for name, mod in list(sys.modules.items()):
        d = getattr(mod, "__dict__", None)
        if (d is globals() or name == "__main__" or name.rpartition(".")[2].startswith(("test_", "conftest"))
                or not isinstance(d, dict)):
            continue
        if any(id(v) in ours for v in list(d.values())):
            del sys.modules[name]
            parent, _, child = name.rpartition(".")
            if parent and getattr(sys.modules.get(parent), child, None) is mod:
                delattr(sys.modules[parent], child)


def is_standin(module):
    return module is _torch
