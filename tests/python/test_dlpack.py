"""DLPack interop (semantics §14): zero copy both ways with NumPy and with hand-built
capsules (ctypes), legacy and versioned capsules, renaming on import, producer
deleters called exactly once, and malformed capsules rejected without crashing."""
import ctypes
import gc
import weakref

import numpy as np
import pytest

import augpy
from conftest import DEVICE, DEVICE_ID, DTYPE_NAMES, HAVE_ML_DTYPES, ON_CUDA, augpy_dtype, host_tensor, random_array

# ---- the DLPack ABI in ctypes (independent of the extension's header) --------------------------


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DELETER_V = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER)]
DLManagedTensorVersioned._fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                                     ("deleter", DELETER_V), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]

api = ctypes.pythonapi
api.PyCapsule_New.restype = ctypes.py_object
api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
api.PyCapsule_GetName.restype = ctypes.c_char_p
api.PyCapsule_GetName.argtypes = [ctypes.py_object]
api.PyCapsule_GetPointer.restype = ctypes.c_void_p
api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

NAMES = {b"dltensor": b"dltensor", b"dltensor_versioned": b"dltensor_versioned"}  # names must outlive capsules


def _numpy_speaks_versioned():
    try:
        np.zeros(1).__dlpack__(max_version=(1, 0))
        return True
    except TypeError:
        return False


# NumPy >= 2.1 asks for versioned capsules (writable arrays, copy=); 2.0 only for legacy ones.
NUMPY_VERSIONED = _numpy_speaks_versioned()
needs_versioned_numpy = pytest.mark.skipif(not NUMPY_VERSIONED, reason="needs NumPy >= 2.1 (DLPack 1.0)")


def capsule_name(cap):
    return api.PyCapsule_GetName(cap).decode()


class Producer:
    """A foreign DLPack producer with a counting deleter, built with ctypes."""

    def __init__(self, array, versioned=False, flags=0, code=None, bits=None, ndim=None, device=(1, 0),
                 strides=True):
        self.array = array
        self.calls = 0
        a = array
        self.shape = (ctypes.c_int64 * max(a.ndim, 1))(*a.shape)
        self.strides = (ctypes.c_int64 * max(a.ndim, 1))(*[s // a.itemsize for s in a.strides])
        dl = DLTensor()
        dl.data = a.ctypes.data
        dl.device = DLDevice(*device)
        dl.ndim = a.ndim if ndim is None else ndim
        kind = {"b": 6, "i": 0, "u": 1, "f": 2}[a.dtype.kind]
        dl.dtype = DLDataType(kind if code is None else code, a.itemsize * 8 if bits is None else bits, 1)
        dl.shape = self.shape
        dl.strides = self.strides if strides else None
        dl.byte_offset = 0
        if versioned:
            self.deleter = DELETER_V(self._delete)
            self.managed = DLManagedTensorVersioned(DLPackVersion(1, 0), None, self.deleter, flags, dl)
            name = NAMES[b"dltensor_versioned"]
        else:
            self.deleter = DELETER(self._delete)
            self.managed = DLManagedTensor(dl, None, self.deleter)
            name = NAMES[b"dltensor"]
        self.capsule = api.PyCapsule_New(ctypes.addressof(self.managed), name, None)

    def _delete(self, _ptr):
        self.calls += 1


# ---- augpy -> numpy -------------------------------------------------------------------------------

@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_numpy_from_augpy_zero_copy(rng, name):
    a = random_array(rng, (4, 6), name)
    t = host_tensor(a)
    # (negative strides are exported as a packed copy: test_tensor_methods.py)
    for view, ref in [(t, a), (t[1::2, 1::2], a[1::2, 1::2]), (t[2, 3], a[2, 3]), (t[:, 2], a[:, 2])]:
        arr = np.from_dlpack(view)
        assert arr.dtype == a.dtype and arr.shape == view.shape
        assert arr.ctypes.data == view.ptr
        assert arr.strides == tuple(s * a.itemsize for s in view.strides)
        np.testing.assert_array_equal(arr, ref)


def test_numpy_from_augpy_shares_writes_and_outlives():
    t = host_tensor(np.zeros((2, 3), np.int32))
    arr = np.from_dlpack(t)
    if NUMPY_VERSIONED:
        assert arr.flags.writeable
        arr[1, 2] = 42
    else:  # a legacy capsule cannot say "writable", NumPy 2.0 makes the array read-only
        t[1, 2] = 42
    assert int(t[1, 2]) == 42 and arr[1, 2] == 42
    t[0, 0] = -7
    assert arr[0, 0] == -7
    del t
    gc.collect()
    assert arr.tolist() == [[-7, 0, 0], [0, 0, 42]]


def test_numpy_from_augpy_0d_and_empty():
    t = host_tensor(np.array(2.5, np.float32))
    arr = np.from_dlpack(t)
    assert arr.shape == () and arr[()] == 2.5
    e = np.from_dlpack(augpy.Tensor((0, 3), augpy.int16).cpu())
    assert e.shape == (0, 3) and e.dtype == np.int16


def test_dlpack_device():
    assert augpy.Tensor(3).__dlpack_device__() == ((2, DEVICE_ID) if ON_CUDA else (1, 0))
    assert augpy.Tensor(3).cpu().__dlpack_device__() == (1, 0)


def test_legacy_and_versioned_capsules():
    t = augpy.array_to_tensor(np.arange(6, dtype=np.uint16).reshape(2, 3))
    legacy = t.__dlpack__()
    assert capsule_name(legacy) == "dltensor"
    assert capsule_name(t.__dlpack__(max_version=(0, 8))) == "dltensor"
    versioned = t.__dlpack__(max_version=(1, 0))
    assert capsule_name(versioned) == "dltensor_versioned"
    m = DLManagedTensorVersioned.from_address(api.PyCapsule_GetPointer(versioned, b"dltensor_versioned"))
    assert (m.version.major, m.flags) == (1, 0)
    assert m.dl_tensor.data == t.ptr and m.dl_tensor.byte_offset == 0
    assert (m.dl_tensor.dtype.code, m.dl_tensor.dtype.bits, m.dl_tensor.dtype.lanes) == (1, 16, 1)
    assert [m.dl_tensor.shape[i] for i in range(2)] == [2, 3]
    assert [m.dl_tensor.strides[i] for i in range(2)] == [3, 1]
    for cap in (legacy, versioned):
        back = augpy.from_dlpack(cap)
        assert back.ptr == t.ptr
        assert capsule_name(cap) == "used_" + ("dltensor_versioned" if cap is versioned else "dltensor")
    del legacy, versioned, back  # consumed capsules: the views free themselves


def test_dlpack_copy():
    t = augpy.array_to_tensor(np.arange(12, dtype=np.float32).reshape(3, 4))[:, ::2]
    cap = t.__dlpack__(max_version=(1, 0), copy=True)
    m = DLManagedTensorVersioned.from_address(api.PyCapsule_GetPointer(cap, b"dltensor_versioned"))
    assert m.flags & 2  # IS_COPIED
    c = augpy.from_dlpack(cap)
    assert c.ptr != t.ptr and c.is_contiguous
    np.testing.assert_array_equal(c.numpy(), t.numpy())
    if not NUMPY_VERSIONED:
        return
    arr = np.from_dlpack(t, copy=True, device="cpu")
    assert arr.ctypes.data != t.ptr
    np.testing.assert_array_equal(arr, t.numpy())


@pytest.mark.parametrize("kwargs, exc, msg", [
    ({"stream": "x"}, TypeError, r"Tensor.__dlpack__: stream must be None or an int"),
    ({"max_version": 1}, TypeError, r"Tensor.__dlpack__: max_version must be None or a \(major, minor\)"),
    ({"dl_device": (2, 9)}, BufferError, r"Tensor.__dlpack__: unsupported device requested \(2, 9\); the "),
    ({"dl_device": (1, 1)}, BufferError, r"Tensor.__dlpack__: unsupported device requested \(1, 1\); the "),
    ({"dl_device": "cpu"}, TypeError, r"Tensor.__dlpack__: dl_device must be a"),
    ({"foo": 1}, TypeError, r"Tensor.__dlpack__: unexpected keyword argument 'foo'"),
])
def test_dlpack_argument_errors(kwargs, exc, msg):
    with pytest.raises(exc, match=msg):
        augpy.Tensor(3).__dlpack__(**kwargs)


def test_dlpack_accepts_cpu_stream_and_device():
    t = augpy.Tensor(3).cpu()
    assert capsule_name(t.__dlpack__(stream=None, dl_device=(1, 0), copy=False)) == "dltensor"
    assert capsule_name(t.__dlpack__(stream=0, max_version=(1, 2))) == "dltensor_versioned"


# ---- numpy -> augpy -------------------------------------------------------------------------------

@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_augpy_from_numpy_zero_copy(rng, name):
    base = random_array(rng, (5, 6), name)
    for a in (base, base[::2, ::-1], base[3], base[1, 2], base[:, 4:4]):
        a = np.asarray(a)
        t = augpy.from_dlpack(a)
        assert t.dtype is augpy_dtype(name)
        assert t.shape == a.shape
        if a.size:
            assert t.ptr == a.ctypes.data
        if a.size > 1:
            assert tuple(s for s, n in zip(t.strides, t.shape) if n > 1) == \
                tuple(s // a.itemsize for s, n in zip(a.strides, a.shape) if n > 1)
        np.testing.assert_array_equal(t.numpy(), a)


def test_augpy_from_numpy_writes_through():
    a = np.zeros((3, 4), np.int64)
    t = augpy.from_dlpack(a)
    t[1, ::2] = 9
    assert a[1].tolist() == [9, 0, 9, 0]
    a[2, 3] = -1
    assert int(t[2, 3]) == -1


def test_producer_kept_alive_and_released_once():
    a = np.arange(10.0)
    r = weakref.ref(a)
    t = augpy.from_dlpack(a)
    v = t[2:5]
    del a
    gc.collect()
    assert r() is not None
    del t
    gc.collect()
    assert r() is not None  # the view still needs the memory
    assert v.numpy().tolist() == [2.0, 3.0, 4.0]
    del v
    gc.collect()
    assert r() is None


@needs_versioned_numpy
def test_readonly_producer_is_copied():
    a = np.arange(6, dtype=np.uint8)
    a.flags.writeable = False
    t = augpy.from_dlpack(a)
    assert t.ptr != a.ctypes.data
    assert t.numpy().tolist() == list(range(6))
    t[0] = 100  # the copy is writable; the read-only source is untouched
    assert a[0] == 0
    b = augpy.from_dlpack(np.broadcast_to(np.arange(3), (4, 3)))  # read-only view
    assert b.shape == (4, 3) and b.numpy()[3].tolist() == [0, 1, 2]


def test_from_dlpack_of_augpy_tensor_bfloat16():
    t = augpy.Tensor((2, 3), augpy.bfloat16)
    u = augpy.from_dlpack(t)
    assert u.ptr == t.ptr and u.dtype is augpy.bfloat16 and u is not t


@pytest.mark.skipif(not HAVE_ML_DTYPES, reason="needs ml_dtypes")
def test_bfloat16_numpy_via_dlpack():
    import ml_dtypes
    t = augpy.array_to_tensor(np.array([1.5, -2.0], dtype=ml_dtypes.bfloat16))
    try:
        arr = np.from_dlpack(t)
    except BufferError:
        pytest.skip("this numpy cannot import kDLBfloat")
    assert arr.dtype == ml_dtypes.bfloat16 and arr.ctypes.data == t.ptr


# ---- capsules: foreign producers, names, errors ------------------------------------------------------

@pytest.mark.parametrize("versioned", [False, True])
def test_foreign_deleter_called_exactly_once(versioned):
    p = Producer(np.arange(12, dtype=np.int16).reshape(3, 4), versioned=versioned)
    t = augpy.import_dltensor(p.capsule, "dltensor_versioned" if versioned else "dltensor")
    assert capsule_name(p.capsule) == ("used_dltensor_versioned" if versioned else "used_dltensor")
    assert t.ptr == p.array.ctypes.data and p.calls == 0
    views = [t[1], t[:, ::2], t.reshape(12)]
    del t
    gc.collect()
    assert p.calls == 0
    np.testing.assert_array_equal(views[1].numpy(), p.array[:, ::2])
    del views
    gc.collect()
    assert p.calls == 1
    with pytest.raises(ValueError, match=r"import_dltensor: the DLPack capsule was already consumed"):
        augpy.import_dltensor(p.capsule)
    gc.collect()
    assert p.calls == 1


def test_foreign_without_strides_and_readonly():
    p = Producer(np.arange(6, dtype=np.float32).reshape(2, 3), strides=False)
    t = augpy.from_dlpack(p.capsule)
    assert t.strides == (3, 1) and t.numpy().tolist() == [[0, 1, 2], [3, 4, 5]]
    del t
    gc.collect()
    assert p.calls == 1
    ro = Producer(np.arange(4, dtype=np.uint8), versioned=True, flags=1)
    t = augpy.from_dlpack(ro.capsule)
    assert ro.calls == 1  # read-only: copied, memory handed back at once
    assert t.ptr != ro.array.ctypes.data and t.numpy().tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("kwargs, msg", [
    ({"code": 5, "bits": 64}, r"unsupported DLPack dtype \(code=5, bits=64, lanes=1\)"),
    ({"ndim": 9}, r"DLPack tensor has 9 dimensions"),
    ({"ndim": -1}, r"DLPack tensor has -1 dimensions"),
    ({"device": (2, 9)}, r"DLPack device \(2, 9\) is not supported"),
    ({"device": (7, 0)}, r"DLPack device \(7, 0\) is not supported"),
])
def test_malformed_capsules_rejected(kwargs, msg):
    p = Producer(np.zeros((2, 2), np.float64), **kwargs)
    with pytest.raises(BufferError, match=r"import_dltensor: " + msg):
        augpy.import_dltensor(p.capsule)
    assert capsule_name(p.capsule) == "dltensor"  # not taken
    assert p.calls == 0


def test_capsule_names():
    t = augpy.array_to_tensor(np.arange(3, dtype=np.int8))
    cap = augpy.export_dltensor(t, "foo")
    assert capsule_name(cap) == "foo"
    with pytest.raises(ValueError, match=r"import_dltensor: expected a capsule named 'dltensor', got 'foo'"):
        augpy.import_dltensor(cap)
    u = augpy.import_dltensor(cap, name="foo")
    assert u.ptr == t.ptr and capsule_name(cap) == "used_dltensor"
    versioned = augpy.export_dltensor(t, name="dltensor_versioned")
    assert capsule_name(versioned) == "dltensor_versioned"
    assert augpy.import_dltensor(versioned).ptr == t.ptr  # the default name accepts versioned capsules
    with pytest.raises(ValueError, match=r"export_dltensor: name must not start with 'used_'"):
        augpy.export_dltensor(t, "used_x")


def test_export_unconsumed_and_not_destructed():
    t = augpy.array_to_tensor(np.arange(4, dtype=np.float64))
    cap = augpy.export_dltensor(t)
    del cap  # unconsumed: the capsule releases its view
    gc.collect()
    cap = augpy.export_dltensor(t, destruct=False)
    u = augpy.import_dltensor(cap)  # the importer calls the deleter
    del cap, t
    gc.collect()
    assert u.numpy().tolist() == [0, 1, 2, 3]


def test_manual_export_import_roundtrip():
    t = host_tensor(np.arange(24, dtype=np.uint8).reshape(2, 3, 4))
    capsule = augpy.export_dltensor(t)
    arr = np.from_dlpack(type("Holder", (), {"__dlpack__": lambda self, **kw: capsule,
                                             "__dlpack_device__": lambda self: (1, 0)})())
    assert arr.ctypes.data == t.ptr and arr.shape == (2, 3, 4)


@pytest.mark.parametrize("args, exc, msg", [
    ((object(),), TypeError, r"from_dlpack: object does not support the DLPack protocol"),
    ((3,), TypeError, r"from_dlpack: int does not support the DLPack protocol"),
])
def test_from_dlpack_errors(args, exc, msg):
    with pytest.raises(exc, match=msg):
        augpy.from_dlpack(*args)


def test_import_errors():
    with pytest.raises(TypeError, match=r"import_dltensor: expected a DLPack capsule, got list"):
        augpy.import_dltensor([])
    with pytest.raises(ValueError, match=r"from_dlpack: device must be None or 'cpu'"):
        augpy.from_dlpack(np.zeros(2), device="cuda")
    assert augpy.from_dlpack(np.zeros(2), device="cpu").shape == (2,)


class OldProducer:
    """A producer that predates max_version."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return (1, 0)


def test_old_producer_gets_legacy_call():
    a = np.arange(5, dtype=np.int32)
    t = augpy.from_dlpack(OldProducer(a))
    assert t.ptr == a.ctypes.data


# ---- hostile capsules (STYLE 11; the fields tests/fuzz cannot reach from C) ----------------------

def _dl(p):
    """The DLTensor inside a Producer's managed struct (edited in place: the capsule points at it)."""
    return p.managed.dl_tensor


def _set_shape(p, shape, strides=None):
    p.shape = (ctypes.c_int64 * len(shape))(*shape)
    _dl(p).shape = p.shape
    _dl(p).ndim = len(shape)
    if strides is not None:
        p.strides = (ctypes.c_int64 * len(strides))(*strides)
        _dl(p).strides = p.strides


I64_MAX = 2**63 - 1


@pytest.mark.parametrize("versioned", [False, True])
@pytest.mark.parametrize("edit, msg", [
    (lambda p: _set_shape(p, [2, -3]), r"DLPack tensor has a negative extent -3"),
    (lambda p: _set_shape(p, [2**40, 2**40]), r"DLPack tensor size overflows"),
    (lambda p: _set_shape(p, [3, 2], [I64_MAX, 1]), r"DLPack tensor size overflows"),
    (lambda p: _set_shape(p, [3, 2], [-(2**62), 1]), r"DLPack tensor size overflows"),
    (lambda p: setattr(_dl(p), "shape", None), r"DLPack tensor has no shape"),
    (lambda p: setattr(_dl(p), "data", None), r"DLPack tensor has a NULL data pointer"),
    (lambda p: setattr(_dl(p), "ndim", 9), r"DLPack tensor has 9 dimensions"),
    (lambda p: setattr(_dl(p).dtype, "lanes", 4), r"unsupported DLPack dtype \(code=2, bits=64, lanes=4\)"),
    (lambda p: setattr(_dl(p).dtype, "lanes", 0), r"unsupported DLPack dtype \(code=2, bits=64, lanes=0\)"),
    (lambda p: setattr(_dl(p).dtype, "bits", 0), r"unsupported DLPack dtype \(code=2, bits=0, lanes=1\)"),
    # byte_offset that wraps the address space (any data pointer + 2^64 - 8)
    (lambda p: setattr(_dl(p), "byte_offset", 2**64 - 8), r"DLPack tensor.s memory \(data .*\) does not fit in the address space"),
    # strides reaching below address 0: a small fake pointer walked backwards
    (lambda p: (setattr(_dl(p), "data", 64), _set_shape(p, [4], [-(2**40)])), r"DLPack tensor.s memory \(data .*\) does not fit in the address space"),
    # reaching past the top of the address space
    (lambda p: (setattr(_dl(p), "data", 2**64 - 4096), _set_shape(p, [4], [2**20])),
     r"DLPack tensor.s memory \(data .*\) does not fit in the address space"),
    # a byte count over 2^63 without any single overflow
    (lambda p: (setattr(_dl(p), "data", 2**62), _set_shape(p, [2, 2], [2**59, -(2**59)])),
     r"DLPack tensor.s memory \(data .*\) does not fit in the address space"),
])
def test_hostile_capsules_rejected(versioned, edit, msg):
    p = Producer(np.zeros((2, 2), np.float64), versioned=versioned)
    edit(p)
    with pytest.raises(BufferError, match=r"import_dltensor: " + msg):
        augpy.import_dltensor(p.capsule, "dltensor_versioned" if versioned else "dltensor")
    assert capsule_name(p.capsule) == ("dltensor_versioned" if versioned else "dltensor")  # not taken
    assert p.calls == 0


def test_empty_capsule_with_null_data_and_any_offset():
    """An empty tensor reaches no byte: NULL data, a wild byte_offset or strides are fine."""
    p = Producer(np.zeros((2, 2), np.float64))
    _set_shape(p, [3, 0], [I64_MAX, -(2**62)])
    _dl(p).data = None
    _dl(p).byte_offset = 2**64 - 1
    t = augpy.import_dltensor(p.capsule)
    assert t.shape == (3, 0) and t.numpy().shape == (3, 0)
    assert t[2].shape == (0,) and t[1:3].shape == (2, 0)
    del t
    gc.collect()
    assert p.calls == 1


def test_capsule_with_byte_offset_and_negative_strides():
    """A valid capsule using byte_offset and a negative stride: the view sees the right bytes."""
    a = np.arange(10, dtype=np.int32)
    p = Producer(a)
    _dl(p).byte_offset = 9 * 4  # element [0] is a[9]
    _set_shape(p, [5], [-2])
    t = augpy.import_dltensor(p.capsule)
    assert t.numpy().tolist() == [9, 7, 5, 3, 1]
    del t
    gc.collect()
    assert p.calls == 1


# ---- alignment: the kernels' typed loads need elements aligned for their dtype (issue 26) ----------

@pytest.mark.parametrize("dtype, data_off, byte_offset, mod", [
    (np.float32, 0, 1, 1), (np.int32, 2, 0, 2), (np.float64, 4, 0, 4), (np.int16, 0, 3, 1),
    (np.float64, 1, 2, 3)])
def test_misaligned_cpu_capsule_refused(dtype, data_off, byte_offset, mod):
    base = np.zeros(64, np.uint8)
    item = np.dtype(dtype).itemsize
    p = Producer(np.zeros(4, dtype))
    _dl(p).data = base.ctypes.data + data_off
    _dl(p).byte_offset = byte_offset
    with pytest.raises(BufferError, match=r"^import_dltensor: the DLPack tensor's data \(.* \+ byte_offset %d\) is "
                       r"not aligned for %s: its address mod %d is %d; copy or clone the array first"
                       % (byte_offset, np.dtype(dtype).name, item, mod)):
        augpy.import_dltensor(p.capsule)
    assert capsule_name(p.capsule) == "dltensor" and p.calls == 0  # not taken


def test_aligned_offsets_and_bytes_accepted():
    """An aligned byte_offset, and one-byte dtypes at any address, import as before."""
    a = np.arange(16, dtype=np.uint8)
    p = Producer(a[1:])  # odd address, itemsize 1
    assert augpy.import_dltensor(p.capsule).numpy().tolist() == list(range(1, 16))
    b = np.arange(8, dtype=np.float32)
    q = Producer(b)
    _dl(q).byte_offset = 8
    _set_shape(q, [6])
    assert augpy.import_dltensor(q.capsule).numpy().tolist() == list(range(2, 8))


def test_misaligned_numpy_array():
    """NumPy exports a misaligned array over DLPack: from_dlpack refuses it, the buffer paths copy it."""
    raw = bytearray(np.arange(9, dtype=np.float32).tobytes() + b"\0")
    a = np.frombuffer(raw, np.float32, 8, 1)
    assert not a.flags.aligned
    with pytest.raises(BufferError, match=r"^from_dlpack: the DLPack tensor's data .* is not aligned for float32: "
                       r"its address mod 4 is 1"):
        augpy.from_dlpack(a)
    want = a.copy()
    np.testing.assert_array_equal(augpy.array_to_tensor(a).numpy(), want)  # a copy through an aligned array
    zero = augpy.zeros((8,), dtype=augpy.float32)
    np.testing.assert_array_equal(augpy.add(zero, a).numpy(), want)         # an operand: converted
    with pytest.raises(ValueError, match=r"not aligned"):
        augpy.tensor_to_array(augpy.array_to_tensor(want), np.frombuffer(bytearray(36), np.float32, 8, 1))


@pytest.mark.skipif(not ON_CUDA, reason="CUDA tensors")
def test_misaligned_cuda_capsule_refused():
    """A CUDA capsule one byte into an allocation is refused at import: a kernel's load there would
    leave a sticky cudaErrorMisalignedAddress (the emulated devices fault like a GPU)."""
    t = augpy.Tensor((64,), augpy.uint8)
    p = Producer(np.zeros(8, np.float32), device=(2, DEVICE_ID))
    _dl(p).data = t.ptr + 1
    with pytest.raises(BufferError, match=r"^from_dlpack: the DLPack tensor's data .* is not aligned for float32: "
                       r"its address mod 4 is 1; copy or clone"):
        augpy.from_dlpack(p.capsule)
    assert p.calls == 0
    q = Producer(np.zeros(8, np.float32), device=(2, DEVICE_ID))
    _dl(q).data = t.ptr + 4  # aligned: imported, and a kernel reads it
    got = augpy.from_dlpack(q.capsule)
    assert got.device == DEVICE and (got + 1).numpy().shape == (8,)
    del got
    gc.collect()
    assert q.calls == 1


# ---- CUDA tensors (the emulated devices of `make pytest-emu`, or a GPU) ---------------------------

@pytest.mark.skipif(not ON_CUDA, reason="CUDA tensors")
def test_cuda_export_import_zero_copy():
    t = augpy.array_to_tensor(np.arange(12, dtype=np.int16).reshape(3, 4))[:, ::2]
    cap = t.__dlpack__(max_version=(1, 0))
    m = DLManagedTensorVersioned.from_address(api.PyCapsule_GetPointer(cap, b"dltensor_versioned"))
    assert (m.dl_tensor.device.device_type, m.dl_tensor.device.device_id) == (2, DEVICE_ID)  # kDLCUDA
    assert m.dl_tensor.data + m.dl_tensor.byte_offset == t.ptr
    assert [m.dl_tensor.strides[i] for i in range(2)] == [4, 2]
    back = augpy.from_dlpack(cap)
    assert back.ptr == t.ptr and back.device == DEVICE and back.strides == (4, 2)
    np.testing.assert_array_equal(back.numpy(), np.arange(12).reshape(3, 4)[:, ::2])
    # NumPy takes host memory only: it asks for a copy on the cpu, or refuses device memory
    np.testing.assert_array_equal(np.from_dlpack(t, device="cpu"), np.arange(12).reshape(3, 4)[:, ::2])
    with pytest.raises((RuntimeError, BufferError)):
        np.from_dlpack(t)
    with pytest.raises(BufferError, match=r"unsupported device requested \(1, 0\) without a copy \(copy=False\)"):
        t.__dlpack__(dl_device=(1, 0), copy=False)
    assert augpy.from_dlpack(t.__dlpack__(dl_device=(1, 0))).device == "cpu"


@pytest.mark.skipif(not ON_CUDA, reason="CUDA tensors")
def test_cuda_consumer_stream_waits():
    """__dlpack__(stream=s) makes the consumer's stream wait for the producer's queued work."""
    t = augpy.zeros((1 << 18,), dtype=augpy.uint8)
    for _ in range(5):
        t += 3  # queued on the current (default) stream
    s = augpy.CudaStream()
    cap = t.__dlpack__(stream=s.handle)
    with s:  # the consumer reads on s
        assert np.all(augpy.from_dlpack(cap).numpy() == 15)
    for stream in (None, 1, 2, -1):
        augpy.from_dlpack(t.__dlpack__(stream=stream))
    with pytest.raises(ValueError, match=r"^Tensor.__dlpack__: stream 0 is not a CUDA stream"):
        t.__dlpack__(stream=0)


@pytest.mark.skipif(not ON_CUDA, reason="CUDA tensors")
def test_from_dlpack_gives_cuda_producers_our_stream():
    t = augpy.zeros((4,), dtype=augpy.uint8)
    seen = []

    class Producer:
        def __dlpack_device__(self):
            return (2, DEVICE_ID)

        def __dlpack__(self, **kw):
            seen.append(kw.get("stream"))
            return t.__dlpack__(**kw)

    augpy.from_dlpack(Producer())
    s = augpy.CudaStream()
    with s:
        augpy.from_dlpack(Producer())
    assert seen == [augpy.default_stream.handle or 1, s.handle]
