"""Random hostile calls over augpy's whole public API (issue 12).

Every module function, class and method of augpy (and augpy.math) is found by
introspection and called with arguments drawn from a hostile pool: wrong types,
edge shapes, 0-d / empty / strided tensors, huge ints, NaN, objects whose
__index__ / __float__ / __bool__ / __len__ / __iter__ / __array__ / __dlpack__
raise or mutate the list holding them, lists mutated while read, bad DLPack
capsules and producers, damaged JPEG bytes. Call i of seed S is generated from
random.Random(f"{S}:{i}") alone, so any call can be replayed by itself.

The calls run in child processes, in batches; the parent reports as a finding:
  - a crash (the child died: signal or abort) or a hang (no progress for --timeout s),
  - SystemError, or any exception type outside the documented ones (ALLOWED),
  - a message that is CPython's bare conversion text (no function name).
An exception raised by a hostile object itself (Hostile) is not a finding.
Each finding names the seed, the call index and the call; replay one with
    python hostile_driver.py --seed S --replay I        (in this process, verbose)

Usage: python hostile_driver.py [--seed S] [--calls N | --seconds T] [--batch B] [--jobs J]
Exit status 1 when there are findings. The pytest test (test_hostile.py) runs a
bounded number of calls; `make fuzz-python` runs it for longer.
"""
import argparse
import ctypes
import gc
import functools
import io
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
import traceback

import numpy as np

import augpy


class Hostile(Exception):
    """Raised by the hostile objects: propagating it is the right answer."""


# OSError: a str or os.PathLike given as data is a path (FileNotFoundError naming the function
# and the path is the right answer for augpy.jpeg_info('bool')).
ALLOWED = (TypeError, ValueError, IndexError, OverflowError, MemoryError, BufferError, KeyError,
           AttributeError, NotImplementedError, OSError, Hostile)
ALLOWED_AUGPY = ("NvJpegError", "JpegError", "DecodeError", "MemoryError", "CudaError", "CuRandError", "CuBlasError")
# CPython's own texts, which reach the user only when a conversion is not checked by us.
BARE_MESSAGES = ("Python int too large to convert", "int too large to convert", "returned a result with an exception",
                 "error return without exception set", "an integer is required", "cannot be interpreted as an integer",
                 "Exceeds the limit", "NULL result without error")

# Calls left out: they replace the process-wide state in ways that make the following
# calls meaningless (the default device), or are private.
SKIP = {"set_default_device", "set_num_threads"}


# ---- the hostile objects ------------------------------------------------------------------

class BadIndex:
    def __index__(self):
        raise Hostile("__index__")


class BadFloat:
    def __float__(self):
        raise Hostile("__float__")


class BadBool:
    def __bool__(self):
        raise Hostile("__bool__")


class BadLen(list):
    def __len__(self):
        raise Hostile("__len__")


class BadIter(list):
    def __iter__(self):
        raise Hostile("__iter__")


class BadGetitem(tuple):
    def __getitem__(self, k):
        raise Hostile("__getitem__")


class BadArray:
    def __array__(self, *a, **k):
        raise Hostile("__array__")


class BadInterface:
    __array_interface__ = property(lambda self: {"shape": (2 ** 62,), "typestr": "<f4", "data": (0, False),
                                                 "version": 3})


class WeirdInterface:
    __array_interface__ = {"shape": "x", "typestr": 5, "version": 3}


class BadDLPack:
    def __init__(self, result, device):
        self.result, self.device = result, device

    def __dlpack__(self, *a, **k):
        if self.result is None:
            raise Hostile("__dlpack__")
        return self.result

    def __dlpack_device__(self):
        return self.device


class BadEq:
    def __eq__(self, other):
        raise Hostile("__eq__")

    __hash__ = None


class BadDtypeScalar(np.float32):
    """A NumPy scalar whose dtype attribute raises."""

    @property
    def dtype(self):
        raise Hostile("dtype")


class BigIndex:
    def __index__(self):
        return 10 ** 5000


class FloatIndex:
    def __index__(self):
        return 2.5  # not an int: TypeError from PyNumber_Index


class IntSub(int):
    def __index__(self):
        raise Hostile("int subclass __index__")


class Mutator:
    """__index__ / __float__ / __bool__ that change the list holding this object."""

    def __init__(self, value, how):
        self.value, self.how, self.holder = value, how, None

    def _mutate(self):
        h = self.holder
        if h is None:
            return
        if self.how == "clear":
            h.clear()
        elif self.how == "junk":
            h[:] = [b"junk"] * 8
        elif self.how == "grow":
            h.extend(range(100))
        elif self.how == "tensors":
            h[:] = [object()] * 3
        elif self.how == "release":  # drop the tensors and return cached memory meanwhile
            h.clear()
            gc.collect()
            augpy.release()

    def __index__(self):
        self._mutate()
        return int(self.value)

    def __float__(self):
        self._mutate()
        return float(self.value)

    def __bool__(self):
        self._mutate()
        return bool(self.value)


def make_jpegs():
    try:
        from PIL import Image
    except ImportError:
        return [b"\xff\xd8\xff\xd9"]
    arr = (np.arange(16 * 24 * 3) % 251).astype(np.uint8).reshape(16, 24, 3)
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format="JPEG", quality=80)
    good = buf.getvalue()
    gray = io.BytesIO()
    Image.fromarray(arr[:, :, 0]).save(gray, format="JPEG", progressive=True)
    return [good, gray.getvalue()]


JPEGS = make_jpegs()


def damaged_jpeg(r):
    data = bytearray(r.choice(JPEGS))
    kind = r.randrange(5)
    if kind == 0:
        return bytes(data[:r.randrange(len(data))])
    if kind == 1:
        for _ in range(r.randrange(1, 8)):
            data[r.randrange(len(data))] = r.randrange(256)
        return bytes(data)
    if kind == 2:  # a marker's length field
        k = r.randrange(2, min(len(data), 400))
        data[k:k + 2] = r.choice([b"\xff\xff", b"\x00\x00", b"\x00\x01"])
        return bytes(data)
    if kind == 3:  # the SOF's height / width
        i = data.find(b"\xff\xc0")
        i = i if i >= 0 else data.find(b"\xff\xc2")
        if i >= 0:
            data[i + 5:i + 9] = bytes(r.randrange(256) for _ in range(4))
        return bytes(data)
    return bytes(data) + bytes(r.randrange(256) for _ in range(r.randrange(1, 64)))


# ---- argument pools ---------------------------------------------------------------------------

DTYPES = [augpy.bool_, augpy.uint8, augpy.int8, augpy.uint16, augpy.int16, augpy.uint32, augpy.int32,
          augpy.uint64, augpy.int64, augpy.float16, augpy.float32, augpy.float64]
if hasattr(augpy, "bfloat16"):
    DTYPES.append(augpy.bfloat16)
SHAPES = [(), (0,), (1,), (3,), (2, 3), (3, 4, 4), (4, 4, 3), (2, 4, 4, 3), (2, 3, 4, 4), (1, 2, 0), (2, 1, 3),
          (1, 1, 1, 1, 1, 1)]
HUGE_INTS = [2 ** 31, -2 ** 31 - 1, 2 ** 62, 2 ** 63, -2 ** 63 - 1, 2 ** 64, 2 ** 70, -2 ** 70, 10 ** 30, 2 ** 1100,
             -2 ** 1100]
SMALL_INTS = [0, 1, 2, 3, 4, -1, -2, 7, 16]
FLOATS = [0.0, -0.0, 0.5, 1.5, -2.5, 1e300, -1e-300, float("nan"), float("inf"), float("-inf"), 3.0]
STRINGS = ["", "cpu", "cuda", "cuda:0", "cuda:1", "cuda:99", "float32", "uint8", "bool", "x" * 300, "\x00",
           "é", "shortest", "longest", "HWC", "CHW"]


def rand_tensor(r, shape=None, dtype=None):
    shape = shape if shape is not None else r.choice(SHAPES)
    dtype = dtype or r.choice(DTYPES)
    t = augpy.zeros(shape, dtype)
    k = r.randrange(6)
    if k == 0 and t.ndim >= 1 and t.shape[0] > 0:
        t.fill(r.choice([1, 3, -1, 200, 0.5]))
        return t
    if k == 1 and t.ndim >= 2:
        return t.transpose()  # a strided view
    if k == 2 and t.ndim >= 1:
        return t[::2]
    if k == 3 and t.device != "cpu" and r.random() < 0.5:
        return t.cpu()  # devices mixed with the session's
    return t


def rand_array(r):
    k = r.randrange(8)
    shape = r.choice(SHAPES)
    if k == 0:
        return np.zeros(shape, r.choice(["u1", "i2", "f4", "f8", "?", "u8", "i8", "f2"]))
    if k == 1:
        return np.zeros(shape, ">f4")  # non-native byte order
    if k == 2:
        return np.array(["a", "b"])
    if k == 3:
        return np.array([object(), 1], dtype=object)
    if k == 4:
        return np.zeros((2, 3), np.complex64)
    if k == 5:
        return np.arange(24, dtype=np.float32).reshape(2, 3, 4)[:, ::2, ::-1]  # negative strides
    if k == 6:
        a = np.zeros((3, 4), np.uint8)
        a.setflags(write=False)
        return a
    return np.float32(1.5) if r.random() < 0.5 else np.int64(-3)


def bad_capsule(r):
    k = r.randrange(5)
    if k == 0:  # a consumed capsule
        cap = np.zeros(3, np.float32).__dlpack__()
        try:
            augpy.from_dlpack(cap) if hasattr(augpy, "from_dlpack") else None
        except Exception:
            pass
        return cap
    if k == 1:  # a capsule of another name around a real pointer
        PyCapsule_New = ctypes.pythonapi.PyCapsule_New
        PyCapsule_New.restype = ctypes.py_object
        PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return PyCapsule_New(ctypes.addressof(ctypes.c_int(0)), r.choice([b"other", b"used_dltensor", None]), None)
    if k == 2:
        return np.arange(6, dtype=np.int16).reshape(2, 3)[:, ::2].__dlpack__()
    if k == 3:
        return rand_tensor(r).__dlpack__()
    return rand_tensor(r).__dlpack__(max_version=(1, 0))


def hostile_value(r, depth=0):
    """One argument value from the hostile pool."""
    k = r.randrange(30)
    if k == 0:
        return None
    if k == 1:
        return r.choice(SMALL_INTS)
    if k == 2:
        return r.choice(HUGE_INTS)
    if k == 3:
        return r.choice(FLOATS)
    if k == 4:
        return r.choice([True, False])
    if k == 5:
        return r.choice(STRINGS)
    if k == 6:
        return r.choice([b"", bytearray(b"abc"), memoryview(b"xyz")] + JPEGS) if r.random() < 0.4 else damaged_jpeg(r)
    if k in (7, 8, 9):
        return rand_tensor(r)
    if k == 10:
        return rand_array(r)
    if k == 11:
        return r.choice(DTYPES + ["float32", np.float64, np.dtype("u1"), np.dtype(">i4"), np.complex64, object])
    if k == 12:
        return r.choice([BadIndex(), BadFloat(), BadBool(), BadArray(), BadInterface(), WeirdInterface(), BadEq(),
                         BigIndex(), FloatIndex(), IntSub(3), object(), complex(1, 2), {}, set(), {"a": 1},
                         BadDtypeScalar(1.5)])
    if k == 13:
        return r.choice([BadLen([1, 2]), BadIter([1, 2]), BadGetitem((1, 2)), BadLen(), BadIter([rand_tensor(r)])])
    if k in (14, 15):
        return mutating_list(r)
    if k == 16:
        return bad_capsule(r)
    if k == 17:
        return BadDLPack(r.choice([None, 5, "x", bad_capsule(r)]),
                         r.choice([(1, 0), (2, 0), (2, 2 ** 70), ("a", "b"), None, (1,), (1, 0, 0), BadIndex()]))
    if k == 18:
        return augpy.Constant(r.choice([0, 1, -1, 300, 2.5]), r.choice(DTYPES))
    if k == 19:
        objs = [augpy.CudaStream, augpy.CudaEvent] + [getattr(augpy, n) for n in ("WarpScaleMode",)
                                                      if hasattr(augpy, n)]
        try:
            return r.choice(objs)()
        except Exception:
            return augpy.CudaStream()
    if k == 20 and depth < 2:
        return [hostile_value(r, depth + 1) for _ in range(r.randrange(0, 4))]
    if k == 21 and depth < 2:
        return tuple(hostile_value(r, depth + 1) for _ in range(r.randrange(0, 4)))
    if k == 22:
        return [r.choice(SMALL_INTS + [BadIndex(), 2 ** 63, 1.5, None]) for _ in range(r.randrange(0, 9))]
    if k == 23:
        return [rand_tensor(r) for _ in range(r.randrange(0, 3))]
    if k == 24:
        return [[r.choice([1, 0, 0.5, 2]) for _ in range(3)] for _ in range(r.randrange(1, 3))]
    if k == 25:
        return (x for x in [1, 2, 3])  # a generator
    if k == 26:
        return list(range(r.choice([8, 9, 40, 1000])))
    if k == 27:
        return r.choice([np.nan, np.float16(65504), np.uint64(2 ** 64 - 1), np.int8(-128), np.bool_(True)])
    return plausible_value(r)


def mutating_list(r, kind=None):
    """A list whose first item (mostly) changes the list when converted."""
    how = r.choice(["clear", "junk", "grow", "tensors", "release"])
    if kind in ("shape", "int"):
        m, rest = Mutator(r.choice([3, 2, 1, 4]), how), r.choice([[4], [4, 3], [2, 2, 2]])
    elif kind in ("float", "matrix"):
        m, rest = Mutator(r.choice([1.0, 0.5, 2.0]), how), r.choice([[1.0], [0.0, 1.0], [1.0, 0.0, 0.0, 1.0, 0.0]])
    elif kind == "tensor":
        m, rest = Mutator(3, how), [rand_tensor(r, (12,)) for _ in range(r.randrange(1, 3))]
    else:
        m = Mutator(r.choice([3, 2, 0, 1.0, 4]), how)
        rest = r.choice([[4], [4, 3], [], [rand_tensor(r)], [1.0, 2.0], [[1, 0, 0], [0, 1, 0]]])
    lst = [m] + list(rest)
    if r.random() < 0.15:
        lst.reverse()
    m.holder = lst
    return lst


def plausible_value(r):
    """A value that is often right, so calls get past the first check."""
    k = r.randrange(8)
    if k <= 2:
        return rand_tensor(r, shape=r.choice([(3, 4, 4), (4, 4, 3), (2, 3, 4, 4), (2, 4, 4, 3), (3,), (2, 3)]),
                           dtype=r.choice([augpy.uint8, augpy.float32, augpy.int32]))
    if k == 3:
        return r.choice([(4, 4), [4, 4], (2, 3), 3])
    if k == 4:
        return r.choice(SMALL_INTS)
    if k == 5:
        return r.choice([augpy.float32, augpy.uint8])
    if k == 6:
        return np.array([[1, 0, 0], [0, 1, 0]], np.float32)
    return r.choice(FLOATS[:5])


# Arguments by parameter name: a right value most of the time (so that calls get
# past the first check) or a hostile one of the same kind.
KINDS = [
    ("shape", {"shape", "size", "source_size", "target_size", "shape_input", "src_dims", "sizes", "new_shape",
               "dl_device", "max_version", "state"}),
    ("float", {"angle", "scale", "aspect", "shifty", "shiftx", "sheary", "shearx", "sigma", "alpha", "beta",
               "gamma", "rel_shape", "shift", "shear", "eigvals", "eigvecs", "sigmas", "mean", "std"}),
    ("int", {"device_id", "seed", "ksize", "max_ksize", "supersampling", "max_supersampling", "blocks_per_sm",
             "threads", "num_threads", "microseconds", "priority", "axis", "lanes", "bits", "code", "device_padding",
             "host_padding", "source_height", "source_width", "target_height", "target_width", "stream", "device",
             "index", "key", "value_int", "n", "flags", "scale_mode"}),
    ("bool", {"keepdim", "keepdims", "upcast", "hmirror", "vmirror", "copy", "blocking", "gpu_huffman",
              "destruct", "non_blocking"}),
    ("dtype", {"dtype", "numpy_dtype", "augpy_dtype", "to", "dst_dtype"}),
    ("matrix", {"matrix"}),
    ("bytes", {"data_bytes", "jpeg", "buffer"}),
    ("str", {"layout", "name"}),
]


def kind_of(name):
    for kind, names in KINDS:
        if name in names:
            return kind
    return "tensor"


def plausible_for(r, name):
    """value_for without hostility (nor the odd hostile_value)."""
    return value_for(r, name, 0.0, anything=False)


def value_for(r, name, hostility=0.3, anything=True):
    kind = kind_of(name)
    if anything and r.random() < 0.15:
        return hostile_value(r)  # anything at all
    hostile = r.random() < hostility
    if kind == "shape":
        if hostile:
            return r.choice([mutating_list(r, kind), mutating_list(r, kind), [BadIndex(), 4], [2 ** 63, 2],
                             (2 ** 62, 4), [BigIndex()], [-1, 3], [IntSub(2), 2], [FloatIndex()], BadLen([1, 2]),
                             BadIter([3]), "ab", (4, 4, 4, 4, 4, 4, 4, 4, 4)])
        return r.choice([(4, 4), [4, 4], (2, 3), (3,), (), (0, 3), [1, 2, 3], (12,), (3, 4)])
    if kind == "float":
        if hostile:
            return r.choice([float("nan"), float("inf"), -1e308, BadFloat(), 2 ** 1100, 10 ** 400,
                             mutating_list(r, kind), [float("nan"), 1.0], [BadFloat(), 1.0], BadIndex(), "1.0"])
        return r.choice([0.0, 1.0, 0.5, 2.0, -30.0, [1.0, 1.0], [0.1, 0.2], (0.0, 0.0), [0.5, 0.5, 0.5]])
    if kind == "int":
        if hostile:
            return r.choice(HUGE_INTS + [BadIndex(), BigIndex(), FloatIndex(), IntSub(1), True, 1.5, -1, "0",
                                         mutating_list(r, kind), [2, 2 ** 63], None])
        return r.choice([0, 1, 2, 3, -1, 0, 1, None])
    if kind == "bool":
        if hostile:
            return r.choice([BadBool(), Mutator(1, "clear"), np.array([True, False]), rand_tensor(r), 2 ** 70])
        return r.choice([True, False, 0, 1])
    if kind == "dtype":
        if hostile:
            return r.choice(["float128", np.complex64, object, np.dtype(">f4"), "", BadEq(), 5, rand_tensor(r)])
        return r.choice(DTYPES + [np.float32, "uint8", np.dtype("i2")])
    if kind == "matrix":
        if hostile:
            return r.choice([np.full((2, 3), np.nan, np.float32), [[BadFloat(), 0, 0], [0, 1, 0]],
                             mutating_list(r, kind), np.zeros((2, 2, 3), ">f4"), rand_tensor(r), [[1, 0, 0]] * 3,
                             np.zeros((0, 2, 3))])
        return r.choice([np.array([[1, 0, 0], [0, 1, 0]], np.float32), [[1, 0, 0.5], [0, 1, 0]],
                         np.tile(np.array([[1, 0, 0], [0, 1, 0]], np.float32), (2, 1, 1))])
    if kind == "bytes":
        return damaged_jpeg(r) if hostile else r.choice(JPEGS)
    if kind == "str":
        return r.choice(STRINGS + [None, BadEq()]) if hostile else r.choice(["HWC", None, "ab"])
    if hostile:
        return mutating_list(r, "tensor") if r.random() < 0.1 else hostile_value(r)
    return plausible_value(r)


# ---- the API ------------------------------------------------------------------------------------

def param_names(fn):
    import inspect
    try:
        sig = inspect.signature(fn)
    except (ValueError, TypeError):
        return None
    return [(p.name, p.kind, p.default is not p.empty) for p in sig.parameters.values()
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name not in ("self", "$self")]


def api():
    """[(name, kind, obj)]: kind 'func' (module function or class), or 'method' (name of a class)."""
    import enum
    entries = []
    seen = set()
    mods = [("augpy", augpy)]
    if hasattr(augpy, "math"):
        mods.append(("augpy.math", augpy.math))
    for mname, mod in mods:
        for name in sorted(dir(mod)):
            if name.startswith("_") or name in SKIP:
                continue
            obj = getattr(mod, name)
            if isinstance(obj, type) and issubclass(obj, BaseException) or id(obj) in seen:
                continue  # exceptions, and aliases (CudaTensor is Tensor)
            seen.add(id(obj))
            if callable(obj):
                entries.append((f"{mname}.{name}", "func", obj))
            if isinstance(obj, type) and obj.__module__.startswith("augpy") and not issubclass(obj, enum.Enum):
                for meth in sorted(dir(obj)):
                    if meth in ("__init_subclass__", "__subclasshook__", "__class__", "__new__", "__getattribute__",
                                "__setattr__", "__delattr__", "__dir__", "__format__", "__reduce_ex__",
                                "__sizeof__", "__class_getitem__") or meth in SKIP:
                        continue
                    if meth.startswith("_") and not meth.startswith("__"):
                        continue
                    attr = getattr(obj, meth, None)
                    if callable(attr):
                        entries.append((f"{mname}.{name}.{meth}", "method", (obj, meth)))
    return entries


API = api()


def instance_of(r, cls):
    if cls is augpy.Tensor or cls.__name__ == "Tensor":
        return rand_tensor(r) if r.random() < 0.7 else rand_tensor(r, (3, 4, 4))
    if cls.__name__ == "DLDataType":
        return r.choice(DTYPES)
    if cls.__name__ == "Constant":
        return augpy.Constant(r.choice([1, -3, 2.5]), r.choice(DTYPES))
    if cls.__name__ == "WarpScaleMode":
        return cls(r.randrange(2))
    return cls()


def make_call(seed, i):
    """The call number i of `seed`: (text, thunk)."""
    r = random.Random(f"{seed}:{i}")
    name, kind, obj = r.choice(API)
    if kind == "func":
        fn = obj
        target = None
    else:
        cls, meth = obj
        try:
            target = instance_of(r, cls) if r.random() < 0.95 else hostile_value(r)  # or an unbound call on junk
        except Exception:
            target = hostile_value(r)
        fn = getattr(target, meth) if isinstance(target, cls) else functools.partial(getattr(cls, meth), target)
    import inspect
    params = param_names(fn)
    if params is None:  # no signature: anything
        params = [(f"arg{k}", inspect.Parameter.POSITIONAL_ONLY, False) for k in range(r.randrange(0, 4))]
    names = [p[0] for p in params]
    if r.random() < 0.15:  # any number of positional arguments
        npos = r.randrange(0, len(names) + 2)
    else:  # the required ones, some optional ones; the rest maybe by keyword
        nreq = sum(1 for p in params if not p[2])
        npos_max = sum(1 for p in params if p[1] != inspect.Parameter.KEYWORD_ONLY)
        npos = r.randrange(nreq, max(nreq, npos_max) + 1)
    # half the calls have one hostile argument (so that it is reached), the others any number
    focus = r.randrange(len(names)) if names and r.random() < 0.5 else None
    hostility = 0.0 if focus is not None else r.choice([0.1, 0.3, 0.6])

    jpeg = "decode" in name or "jpeg" in name  # their `data` is JPEG bytes

    def value(k, pname):
        pname = "jpeg" if jpeg and pname == "data" else pname
        if k == focus:
            return value_for(r, pname, 1.0)
        return value_for(r, pname, hostility) if focus is None else plausible_for(r, pname)
    args = [value(k, names[k] if k < len(names) else "") for k in range(npos)]
    kwargs = {}
    for k, (pname, pkind, _) in enumerate(params[npos:], start=npos):
        if pkind != inspect.Parameter.POSITIONAL_ONLY and (r.random() < 0.5 or k == focus):
            kwargs[pname] = value(k, pname)
    if r.random() < 0.05:
        kwargs[r.choice(["bogus", "out", "dtype", "device_id", "keepdim", "blocks_per_sm"])] = hostile_value(r)
    text = f"{name}(" + ", ".join([short_repr(a) for a in args] + [f"{k}={short_repr(v)}" for k, v in kwargs.items()]) \
        + ")" + (f"  [self={short_repr(target)}]" if target is not None else "")
    return text, lambda: fn(*args, **kwargs)


def short_repr(v):
    try:
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) > 2 ** 80:
            return f"{'-' if v < 0 else ''}<int of {v.bit_length()} bits>"
        if isinstance(v, (bytes, bytearray)) and len(v) > 24:
            return f"<{type(v).__name__} of {len(v)}>"
        if isinstance(v, (list, tuple)):
            inner = ", ".join(short_repr(x) for x in v[:8]) + (", ..." if len(v) > 8 else "")
            return f"[{inner}]" if isinstance(v, list) else f"({inner})"
        if isinstance(v, np.ndarray):
            return f"np.ndarray(shape={v.shape}, dtype={v.dtype})"
        if isinstance(v, Mutator):
            return f"Mutator({v.value!r}, {v.how!r})"
        s = repr(v)
    except Exception as e:  # a hostile repr
        s = f"<{type(v).__name__}: repr raised {type(e).__name__}>"
    return s if len(s) < 120 else s[:117] + "..."


def classify(exc):
    """None when exc is an acceptable answer, else why it is a finding."""
    if isinstance(exc, SystemError):
        return "SystemError"
    msg = str(exc)
    for bare in BARE_MESSAGES:
        if bare in msg and not isinstance(exc, Hostile):
            return f"bare CPython message ({bare!r})"
    if isinstance(exc, ALLOWED):
        return None
    if type(exc).__module__ == "augpy" and type(exc).__name__ in ALLOWED_AUGPY:
        return None
    return f"undocumented exception type {type(exc).__module__}.{type(exc).__name__}"


def run_one(seed, i, verbose=False):
    """Runs call i; returns a finding dict or None."""
    try:
        text, thunk = make_call(seed, i)
    except Exception as e:  # building the arguments failed: not a call of augpy's, but say so
        return {"i": i, "call": "<argument generation>", "why": f"generator error {type(e).__name__}: {e}"}
    if verbose:
        print(f"call {i}: {text}", flush=True)
    try:
        res = thunk()
        if verbose:
            print("  ->", short_repr(res))
        del res
    except BaseException as e:  # noqa: B902 - everything is classified
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        why = classify(e)
        if verbose:
            print(f"  raised {type(e).__name__}: {short_repr(str(e))}" + (f"   FINDING: {why}" if why else ""))
            if why:
                traceback.print_exc()
        if why:
            return {"i": i, "call": text, "why": why, "exc": f"{type(e).__name__}: {str(e)[:300]}"}
    return None


def child(seed, start, count):
    out = sys.stdout
    for i in range(start, start + count):
        out.write(f"S {i}\n")
        out.flush()
        f = run_one(seed, i)
        if f:
            out.write("F " + json.dumps(f) + "\n")
            out.flush()
    out.write("D\n")
    out.flush()
    os._exit(0)  # no interpreter teardown: a crash there would be blamed on the last call


# ---- the parent ---------------------------------------------------------------------------------

def spawn(seed, start, count):
    """A child running calls start..start+count-1; its output goes to files (no pipe to fill)."""
    cmd = [sys.executable, "-W", "ignore", os.path.abspath(__file__), "--child", "--seed", str(seed), "--start",
           str(start), "--count", str(count)]
    out, err = tempfile.TemporaryFile("w+"), tempfile.TemporaryFile("w+")
    proc = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
    proc.files = (out, err)
    return proc


def collect(proc):
    outs = []
    for f in proc.files:
        f.seek(0)
        outs.append(f.read())
        f.close()
    return outs


def run_batches(seed, ncalls, seconds, batch, jobs, timeout):
    """Runs calls 0.. of `seed` (ncalls of them, or until `seconds` pass); returns findings."""
    findings = []
    t0 = time.monotonic()
    next_i = 0
    running = []  # [proc, start, count, time of the last progress, output size then]
    done_calls = 0

    def more():
        if seconds is not None:
            return time.monotonic() - t0 < seconds
        return next_i < ncalls

    while more() or running:
        while more() and len(running) < jobs:
            count = batch if seconds is not None else min(batch, ncalls - next_i)
            running.append([spawn(seed, next_i, count), next_i, count, time.monotonic(), 0])
            next_i += count
        # wait for one batch to end or time out
        time.sleep(0.05)
        for entry in list(running):
            proc, start, count, last_progress, size = entry
            now_size = os.fstat(proc.files[0].fileno()).st_size  # each call writes "S i" first
            if now_size != size:
                entry[3:5] = [time.monotonic(), now_size]
            if proc.poll() is None and time.monotonic() - entry[3] < timeout:
                continue
            hung = proc.poll() is None
            if hung:
                proc.kill()
            proc.wait()
            out, err = collect(proc)
            running.remove(entry)
            last = None
            finished = False
            for line in out.splitlines():
                if line.startswith("S "):
                    last = int(line[2:])
                elif line.startswith("F "):
                    findings.append(json.loads(line[2:]))
                elif line == "D":
                    finished = True
            done_calls += (last - start + 1) if last is not None else 0
            if finished and proc.returncode == 0:
                continue
            if last is None:
                findings.append({"i": start, "call": "<child start>", "why": f"child failed: {err[-2000:]}"})
                continue
            text, _ = make_call(seed, last)
            what = "hang" if hung else f"crash (exit status {proc.returncode})"
            findings.append({"i": last, "call": text, "why": what, "exc": err[-1500:]})
            # go on after the culprit with a new child
            rest = start + count - last - 1
            if rest > 0 and (seconds is None or more()):
                running.append([spawn(seed, last + 1, rest), last + 1, rest, time.monotonic(), 0])
    return findings, done_calls, time.monotonic() - t0


def report(seed, findings, ncalls, secs):
    lines = [f"hostile_driver: seed {seed}: {ncalls} calls in {secs:.1f} s, {len(findings)} finding(s)"]
    for f in findings:
        lines.append(f"  call {f['i']}: {f['why']}\n    {f['call']}")
        if f.get("exc"):
            lines.append("    " + f["exc"].strip().replace("\n", "\n    ")[-1500:])
        lines.append(f"    replay: python {os.path.relpath(__file__)} --seed {seed} --replay {f['i']}")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--calls", type=int, default=3000)
    p.add_argument("--seconds", type=float, default=None, help="run for this long instead of --calls")
    p.add_argument("--batch", type=int, default=500)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timeout", type=float, default=60.0, help="seconds one call may run")
    p.add_argument("--replay", type=int, default=None, help="run call I in this process, verbosely")
    p.add_argument("--list", action="store_true", help="print the calls without running them")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--count", type=int, default=0, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        child(a.seed, a.start, a.count)
    if a.replay is not None:
        f = run_one(a.seed, a.replay, verbose=True)
        return 1 if f else 0
    if a.list:
        for i in range(a.calls):
            print(i, make_call(a.seed, i)[0])
        return 0
    findings, n, secs = run_batches(a.seed, a.calls, a.seconds, a.batch, a.jobs, a.timeout)
    print(report(a.seed, findings, n, secs))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
