"""The Tensor type (semantics §3): creation, properties, repr, NumPy basic indexing,
assignment with broadcasting and saturation, numpy conversions, the buffer
protocol and bad input. NumPy on the same shapes is the reference."""
import gc
import operator
import weakref

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import augpy
from conftest import DEVICE, DEVICE_ID, DTYPE_NAMES, HAVE_ML_DTYPES, ON_CUDA, augpy_dtype, host_tensor, random_array


def filled(a):
    """A tensor holding a copy of numpy array a."""
    return augpy.array_to_tensor(a)


# ---- creation and properties ------------------------------------------------------------

def test_create_default():
    t = augpy.Tensor((2, 2, 4))
    assert t.shape == (2, 2, 4)
    assert t.strides == (8, 4, 1)
    assert t.dtype is augpy.uint8
    assert (t.ndim, t.size, t.itemsize, t.nbytes) == (3, 16, 1, 16)
    assert t.is_contiguous
    assert t.device == DEVICE and t.device_id == DEVICE_ID
    assert t.layout == ""
    assert t.byte_offset == 0
    assert isinstance(t.ptr, int) and t.ptr != 0
    assert augpy.CudaTensor is augpy.Tensor


@pytest.mark.parametrize("name", DTYPE_NAMES + ["bfloat16"])
def test_create_dtypes(name):
    t = augpy.Tensor([3, 5], dtype=augpy_dtype(name))
    assert t.dtype is augpy_dtype(name)
    assert t.itemsize == t.dtype.itemsize
    assert t.strides == (5, 1)


def test_create_dtype_spellings():
    assert augpy.Tensor(4, np.int16).dtype is augpy.int16
    assert augpy.Tensor(4, dtype="float32").dtype is augpy.float32
    assert augpy.Tensor(4, dtype=np.dtype("u2")).dtype is augpy.uint16
    assert augpy.Tensor(shape=(1,), dtype=augpy.int8, device_id=0).dtype is augpy.int8


def test_create_shapes():
    assert augpy.Tensor(5).shape == (5,)
    assert augpy.Tensor(()).shape == ()
    assert augpy.Tensor([]).size == 1
    assert augpy.Tensor((0, 3)).size == 0
    assert augpy.Tensor((1,) * 8).ndim == 8
    assert augpy.Tensor(np.array([2, 3])).shape == (2, 3)


@pytest.mark.parametrize("args, exc, msg", [
    (((-3,),), ValueError, r"Tensor: shape entries must be >= 0, got -3"),
    (((2, -1),), ValueError, r"Tensor: shape entries must be >= 0, got -1"),
    (("ab",), TypeError, r"Tensor: shape must be an int or a sequence of ints, got str"),
    (((1.5, 2),), TypeError, r"Tensor: shape entries must be integers, got float"),
    (((1,) * 9,), ValueError, r"Tensor: too many dimensions in shape: 9 \(at most 8"),
    ((None,), TypeError, r"Tensor: shape must be an int or a sequence of ints, got NoneType"),
    (((2 ** 70,),), ValueError, r"Tensor: shape entry \d+ is too large"),
    (((2,), "foo"), TypeError, r"Tensor: cannot interpret 'foo' as a data type"),
    (((2,), np.complex64), TypeError, r"Tensor: unsupported data type"),
    (((2,), augpy.uint8, 99), ValueError, r"Tensor: invalid device_id 99"),
    (((2,), augpy.uint8, -1), ValueError, r"Tensor: invalid device_id -1"),
])
def test_create_errors(args, exc, msg):
    with pytest.raises(exc, match=msg):
        augpy.Tensor(*args)


def test_create_too_large():
    with pytest.raises((MemoryError, OverflowError, ValueError), match=r"Tensor: "):
        augpy.Tensor((2 ** 40, 2 ** 40))


# ---- repr (the manual's examples; device=cuda:0 on a GPU) -----------------------------------------------

def test_repr_manual_examples():
    t = augpy.Tensor((2, 2, 4), augpy.uint8)
    assert repr(t) == f"<Tensor shape=(2, 2, 4), device={DEVICE}, dtype=uint8>"
    assert repr(t[1, 1, 3]) == f"<Tensor shape=(), device={DEVICE}, dtype=uint8>"
    assert repr(t[-1]) == f"<Tensor shape=(2, 4), device={DEVICE}, dtype=uint8>"
    assert repr(t[:, 0]) == f"<Tensor shape=(2, 4), device={DEVICE}, dtype=uint8>"
    assert repr(t[:, 1:, 1:-1]) == f"<Tensor shape=(2, 1, 2), device={DEVICE}, dtype=uint8>"
    assert repr(t[:, :, ::2]) == f"<Tensor shape=(2, 2, 2), device={DEVICE}, dtype=uint8>"
    background = augpy.array_to_tensor(np.array([124, 116, 104], dtype=np.uint8))
    assert repr(background) == f"<Tensor shape=(3), device={DEVICE}, dtype=uint8>"
    assert str(background) == "[124 116 104]"  # str shows the values, as NumPy's
    assert repr(augpy.Tensor((1,), augpy.float64)) == f"<Tensor shape=(1), device={DEVICE}, dtype=float64>"


# ---- indexing against NumPy ----------------------------------------------------------------

index_item = st.one_of(
    st.integers(-6, 6),
    st.builds(slice, st.none() | st.integers(-8, 8), st.none() | st.integers(-8, 8),
              st.none() | st.integers(-4, 4)),
    st.just(Ellipsis),
    st.none(),
)
index_expr = st.one_of(index_item, st.lists(index_item, max_size=5).map(tuple))


def numpy_outcome(a, idx):
    try:
        return a[idx], None
    except (IndexError, ValueError, TypeError) as e:
        return None, type(e)


@given(shape=st.lists(st.integers(0, 5), max_size=4), idx=index_expr)
def test_getitem_matches_numpy(shape, idx):
    a = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    t = filled(a)
    expect, exc = numpy_outcome(a, idx)
    if exc is None and expect.ndim > 8:
        exc = IndexError  # augpy tensors have at most 8 dimensions
    if exc is not None:
        # Both reject the index; for several faults at once (a zero step and too many
        # indices) NumPy and aug may report a different one first.
        with pytest.raises((IndexError, ValueError), match=r"Tensor.__getitem__: ") as info:
            t[idx]
        items = idx if isinstance(idx, tuple) else (idx,)
        if sum(i is not None and i is not Ellipsis for i in items) <= len(shape):
            assert info.type is exc
        return
    v = t[idx]
    assert v.shape == expect.shape
    np.testing.assert_array_equal(v.numpy(), expect)
    # A view: writing through it changes the base like NumPy's view does.
    if v.size:
        v[...] = -1
        b = a.copy()
        b[idx] = -1
        np.testing.assert_array_equal(t.numpy(), b)


@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3), idx=index_expr,
       value=st.integers(-1000, 1000))
def test_setitem_matches_numpy(shape, idx, value):
    a = np.arange(int(np.prod(shape)), dtype=np.int16).reshape(shape)
    t = filled(a)
    try:
        a[idx] = value
    except (IndexError, ValueError):
        with pytest.raises((IndexError, ValueError)):
            t[idx] = value
        return
    t[idx] = value
    np.testing.assert_array_equal(t.numpy(), a)


def test_getitem_views_share_memory():
    t = filled(np.arange(24, dtype=np.uint8).reshape(2, 3, 4))
    v = t[1, ::-1, 1::2]
    assert v.strides == (-4, 2)
    assert v.ptr == t.ptr + 12 + 8 + 1
    assert v.byte_offset == 21
    assert not v.is_contiguous
    assert t[1].is_contiguous
    del t
    gc.collect()
    np.testing.assert_array_equal(v.numpy(), np.arange(24).reshape(2, 3, 4)[1, ::-1, 1::2])


def test_getitem_scalar_result_is_0d():
    t = filled(np.arange(16, dtype=np.uint8).reshape(2, 2, 4))
    e = t[1, 1, 3]
    assert e.shape == () and e.ndim == 0 and e.size == 1
    assert int(e) == 15
    assert t[np.int64(1), np.uint8(0)].shape == (4,)


@pytest.mark.parametrize("idx, exc, msg", [
    ((5,), IndexError, r"Tensor.__getitem__: index 5 is out of bounds for axis 0 with size 2"),
    ((0, 0, 0, 0), IndexError, r"Tensor.__getitem__: too many indices"),
    ((slice(None, None, 0),), ValueError, r"Tensor.__getitem__: slice step cannot be zero"),
    ((5, slice(None, None, 0)), IndexError, r"Tensor.__getitem__: index 5 is out of bounds for axis 0"),
    ((slice(None, None, 0), 5), ValueError, r"Tensor.__getitem__: slice step cannot be zero"),
    ((Ellipsis, Ellipsis), IndexError, r"Tensor.__getitem__: an index can only have a single ellipsis"),
    (([0, 2],), IndexError, r"Tensor.__getitem__: index 2 is out of bounds for axis 0 with size 2"),
    (([0.5],), IndexError, r"Tensor.__getitem__: arrays used as indices must be of integer"),
    ((1.0,), IndexError, r"Tensor.__getitem__: only integers, slices .* got float"),
    ((True,), IndexError, r"Tensor.__getitem__: only integers, slices .* got bool"),
    (("a",), IndexError, r"Tensor.__getitem__: only integers, slices .* got str"),
    ((slice(0.5, 2),), TypeError, r"Tensor.__getitem__: slice indices must be integers or None"),
    ((2 ** 70,), IndexError, r"Tensor.__getitem__: index 1180591620717411303424 is out of bounds"),
])
def test_getitem_errors(idx, exc, msg):
    t = augpy.Tensor((2, 3, 4))
    with pytest.raises(exc, match=msg):
        t[idx]


def test_index_0d():
    t = filled(np.array(7, dtype=np.int64))
    assert t[()].shape == ()
    assert t[...].shape == ()
    assert t[None].shape == (1,)
    with pytest.raises(IndexError, match=r"too many indices"):
        t[0]


def test_huge_slice_bounds_clamp():
    a = np.arange(10)
    t = filled(a)
    for sl in [slice(-2 ** 70, 2 ** 70), slice(2 ** 70, -2 ** 70, -1), slice(None, None, -2 ** 70)]:
        np.testing.assert_array_equal(t[sl].numpy(), a[sl])


# ---- assignment ------------------------------------------------------------------------------

@pytest.mark.parametrize("name, value, expect", [
    ("uint8", 300, 255), ("uint8", -5, 0), ("uint8", 2.5, 2), ("uint8", 3.5, 4), ("uint8", float("nan"), 0),
    ("uint8", float("inf"), 255), ("int8", 1000, 127), ("int8", -1000, -128), ("int8", -128.5, -128),
    ("uint64", 2 ** 64 - 1, 2 ** 64 - 1), ("int64", 2 ** 64 - 1, 2 ** 63 - 1), ("uint32", -1, 0),
    ("bool", 7, True), ("bool", 0.0, False), ("bool", float("nan"), True), ("float32", 1e300, 3.4028234663852886e38),
    ("float16", 70000, 65504.0), ("int32", True, 1), ("uint8", np.float32(7.5), 8), ("int16", np.int64(-40000), -32768),
])
def test_setitem_scalar_saturates(name, value, expect):
    t = augpy.Tensor((2, 3), augpy_dtype(name))
    t[:] = value
    out = t.numpy()
    assert out.dtype == np.dtype(name)
    assert np.all(out == expect), (out, expect)


def test_setitem_manual_example():
    t = augpy.Tensor((2, 2, 4), augpy.uint8)
    t[:] = 40
    np.testing.assert_array_equal(t.numpy(), np.full((2, 2, 4), 40, np.uint8))


def test_setitem_array_broadcast_and_saturate():
    t = filled(np.zeros((3, 4), np.int16))
    t[1:] = np.array([1, 100000, -100000, 4], dtype=np.int64)
    np.testing.assert_array_equal(t.numpy(), [[0, 0, 0, 0], [1, 32767, -32768, 4], [1, 32767, -32768, 4]])
    t[0] = [9, 8, 7, 6]
    assert t[0].numpy().tolist() == [9, 8, 7, 6]
    t[:, 1] = np.array([[5], [6], [7]], np.uint8)[:, 0]
    assert t[:, 1].numpy().tolist() == [5, 6, 7]
    t[2, ::-1] = np.arange(4.0) + 0.5  # round half to even
    assert t[2].numpy().tolist() == [4, 2, 2, 0]


def test_setitem_tensor_broadcast():
    t = filled(np.zeros((2, 3, 4), np.float32))
    src = filled(np.arange(4, dtype=np.uint8))
    t[1] = src
    np.testing.assert_array_equal(t[1].numpy(), np.broadcast_to(np.arange(4), (3, 4)))
    t[0, :, 1:3] = filled(np.array([[1.5], [2.5], [-3.0]]))
    np.testing.assert_array_equal(t[0, :, 1:3].numpy(), [[1.5, 1.5], [2.5, 2.5], [-3.0, -3.0]])


def test_setitem_overlapping():
    a = np.arange(10, dtype=np.int32)
    t = filled(a)
    t[1:] = t[:-1]
    a[1:] = a[:-1].copy()
    np.testing.assert_array_equal(t.numpy(), a)
    t[::-1] = t
    np.testing.assert_array_equal(t.numpy(), a[::-1])


@pytest.mark.parametrize("value, exc, msg", [
    ("abc", TypeError, r"Tensor.__setitem__: cannot assign str"),
    (None, TypeError, r"Tensor.__setitem__: cannot assign NoneType"),
    (np.zeros(3), ValueError, r"Tensor.__setitem__: .*broadcast"),
    (object(), TypeError, r"Tensor.__setitem__: cannot convert object"),
    (2 ** 64, OverflowError, r"out of range"),
    (np.array(["x"]), TypeError, r"Tensor.__setitem__: "),
])
def test_setitem_errors(value, exc, msg):
    t = augpy.Tensor((2, 4))
    with pytest.raises(exc, match=msg):
        t[0] = value


def test_delitem():
    t = augpy.Tensor((2, 4))
    with pytest.raises(TypeError, match=r"cannot be deleted"):
        del t[0]


# ---- numpy conversions ------------------------------------------------------------------------

@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 5), (2, 0, 3), (2, 3, 1, 4)])
def test_roundtrip_all_dtypes(rng, name, shape):
    a = random_array(rng, shape, name)
    t = augpy.array_to_tensor(a)
    assert t.dtype is augpy_dtype(name)
    assert t.shape == a.shape and t.is_contiguous
    assert t.ptr != a.ctypes.data or a.size == 0  # a copy
    outs = (t.numpy(), augpy.tensor_to_array(t), np.array(t), t.numpy(blocking=False))
    augpy.synchronize()  # the non-blocking copy is queued (CUDA)
    for out in outs:
        assert out.dtype == a.dtype and out.shape == a.shape
        np.testing.assert_array_equal(out, a)


@pytest.mark.parametrize("name", ["uint8", "int16", "float64", "bool", "float16"])
def test_strided_sources(rng, name):
    base = random_array(rng, (6, 8, 3), name)
    for a in (base[::2, ::-3], base.transpose(2, 0, 1), base[:, 3], np.broadcast_to(base[0, 0], (4, 3)),
              base[::-1, :, ::-1][1:, 2:5]):
        t = augpy.array_to_tensor(a)
        np.testing.assert_array_equal(t.numpy(), a)
        # ... and the strided tensor views back out to numpy.
        view = augpy.array_to_tensor(base)[::2, ::-3]
        np.testing.assert_array_equal(view.numpy(), base[::2, ::-3])


def test_odd_byte_strides_and_byte_order():
    rec = np.zeros(5, dtype=[("a", "u1"), ("b", "<i4")])
    rec["b"] = [1, -2, 3, -4, 5]
    t = augpy.array_to_tensor(rec["b"])  # byte stride 5: not a multiple of the itemsize
    assert t.dtype is augpy.int32
    assert t.numpy().tolist() == [1, -2, 3, -4, 5]
    be = np.arange(6, dtype=">u2").reshape(2, 3)
    t = augpy.array_to_tensor(be)
    assert t.dtype is augpy.uint16
    np.testing.assert_array_equal(t.numpy(), be)


def test_array_to_tensor_other_sources():
    assert augpy.array_to_tensor([1, 2, 3]).numpy().tolist() == [1, 2, 3]
    assert augpy.array_to_tensor([[1.5, 2]]).dtype is augpy.float64
    t = augpy.array_to_tensor(b"\x01\x02\xff")
    assert t.dtype is augpy.uint8 and t.numpy().tolist() == [1, 2, 255]
    t = augpy.array_to_tensor(bytearray(b"ab"), 0)
    assert t.numpy().tolist() == [97, 98]
    t = augpy.array_to_tensor(memoryview(np.arange(6, dtype=np.float32).reshape(2, 3))[::-1])
    np.testing.assert_array_equal(t.numpy(), np.arange(6, dtype=np.float32).reshape(2, 3)[::-1])
    src = augpy.array_to_tensor(np.arange(4, dtype=np.int8))
    assert augpy.array_to_tensor(src).numpy().tolist() == [0, 1, 2, 3]  # a CPU tensor is a buffer
    assert augpy.array_to_tensor(np.float32(2.5)).shape == ()


def test_array_to_tensor_into_tensor():
    dst = augpy.Tensor((2, 3), augpy.uint8)
    res = augpy.array_to_tensor(np.array([[-1.0, 2.5, 300.0]]), dst)
    assert res is dst
    assert dst.numpy().tolist() == [[0, 2, 255]] * 2
    res = augpy.array_to_tensor(np.array([7, 8, 9]), tensor=dst[1])
    assert dst.numpy().tolist() == [[0, 2, 255], [7, 8, 9]]


@pytest.mark.parametrize("args, kwargs, exc, msg", [
    ((object(),), {}, TypeError, r"array_to_tensor: cannot convert object"),
    (("abc",), {}, TypeError, r"array_to_tensor: "),
    ((np.zeros(2, np.complex64),), {}, TypeError, r"array_to_tensor: "),
    ((np.zeros(3), 99), {}, ValueError, r"array_to_tensor: invalid device_id 99"),
    ((np.zeros(3), "x"), {}, TypeError, r"array_to_tensor: device_id must be an int"),
    ((np.zeros(3),), {"tensor": 5}, TypeError, r"array_to_tensor: tensor must be a Tensor"),
    ((np.zeros(3),), {"tensor": augpy.Tensor(4)}, ValueError, r"array_to_tensor: .*broadcast"),
    ((np.zeros([1] * 9),), {}, ValueError, r"array_to_tensor: array has 9 dimensions"),
])
def test_array_to_tensor_errors(args, kwargs, exc, msg):
    with pytest.raises(exc, match=msg):
        augpy.array_to_tensor(*args, **kwargs)


def test_tensor_to_array_into_buffer():
    t = augpy.array_to_tensor(np.array([[-5, 100, 300], [1, 2, 3]], np.int16))
    out = np.zeros((2, 3), np.uint8)
    res = augpy.tensor_to_array(t, out)
    assert res is out
    assert out.tolist() == [[0, 100, 255], [1, 2, 3]]  # saturate_cast into the array's dtype
    strided = np.zeros((4, 6), np.float64)[::2, ::2]
    assert t.numpy(strided) is strided
    assert strided.tolist() == [[-5, 100, 300], [1, 2, 3]]
    raw = bytearray(12)
    arr = augpy.tensor_to_array(t, raw)
    assert arr.dtype == np.int16 and arr.shape == (2, 3)
    assert np.frombuffer(raw, np.int16).tolist() == [-5, 100, 300, 1, 2, 3]
    flat = np.zeros(6, np.int16)
    assert t.numpy(flat).shape == (2, 3) and flat.tolist() == [-5, 100, 300, 1, 2, 3]


@pytest.mark.parametrize("array, exc, msg", [
    (np.zeros((3, 2), np.float32), ValueError, r"tensor_to_array: array of shape \(3, 2\) does not match"),
    (bytearray(5), ValueError, r"tensor_to_array: array of shape \(5,\) does not match"),
    (b"\x00" * 12, ValueError, r"tensor_to_array: the destination array is read-only"),
    ([0] * 6, TypeError, r"tensor_to_array: expected a writable buffer"),
    (np.zeros((2, 3), np.complex64), TypeError, r"tensor_to_array: "),
])
def test_tensor_to_array_errors(array, exc, msg):
    t = augpy.array_to_tensor(np.zeros((2, 3), np.int16))
    with pytest.raises(exc, match=msg):
        augpy.tensor_to_array(t, array)


def test_tensor_to_array_readonly_array():
    a = np.zeros((2, 3), np.int16)
    a.flags.writeable = False
    with pytest.raises(ValueError, match=r"read-only"):
        augpy.array_to_tensor(np.ones((2, 3))).numpy(a)


def test_tensor_to_array_type_errors():
    with pytest.raises(TypeError, match=r"tensor_to_array: tensor must be a Tensor, got list"):
        augpy.tensor_to_array([1, 2])


def test_array_protocol():
    t = augpy.array_to_tensor(np.arange(6, dtype=np.int32).reshape(2, 3))
    a = t.__array__()
    assert a.dtype == np.int32 and a.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert t.__array__(np.float64).dtype == np.float64
    if ON_CUDA:  # device memory: numpy can only have a copy
        with pytest.raises(ValueError, match=r"^Tensor.__array__: a copy is required for a int32 tensor on a "
                                             r"cuda device \(copy=False given\)$"):
            t.__array__(copy=False)
        t = t.cpu()
    v = t.__array__(copy=False)
    v[0, 0] = 42
    assert int(t[0, 0]) == 42


def test_large_copy_releases_gil(rng):
    a = random_array(rng, (300, 1000), "uint16")
    t = augpy.array_to_tensor(a)
    np.testing.assert_array_equal(t.numpy(), a)
    t[:] = 7
    assert np.all(t.numpy() == 7)


@pytest.mark.skipif(not HAVE_ML_DTYPES, reason="needs ml_dtypes")
def test_bfloat16_numpy():
    import ml_dtypes
    a = np.array([1.0, -2.5, 3.140625, np.inf], dtype=ml_dtypes.bfloat16)
    t = augpy.array_to_tensor(a)
    assert t.dtype is augpy.bfloat16
    out = t.numpy()
    assert out.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(out.astype(np.float32), a.astype(np.float32))
    t[1] = 0.5
    assert float(t[1]) == 0.5


# ---- buffer protocol ----------------------------------------------------------------------------

@pytest.mark.parametrize("name, fmt", [("bool", "?"), ("int8", "b"), ("int16", "h"), ("int32", "i"), ("int64", "q"),
                                       ("uint8", "B"), ("uint16", "H"), ("uint32", "I"), ("uint64", "Q"),
                                       ("float16", "e"), ("float32", "f"), ("float64", "d")])
def test_buffer_formats(rng, name, fmt):
    a = random_array(rng, (3, 4), name)
    t = host_tensor(a)
    m = memoryview(t)
    assert m.format == fmt and m.itemsize == a.itemsize
    assert m.shape == (3, 4) and m.strides == a.strides
    assert not m.readonly
    np.testing.assert_array_equal(np.asarray(t), a)


def test_buffer_strided_zero_copy():
    t = host_tensor(np.arange(24, dtype=np.float32).reshape(4, 6))
    v = t[::-1, 1::2]
    m = memoryview(v)
    assert m.strides == (-24, 8)
    a = np.asarray(v)
    assert a.ctypes.data == v.ptr
    np.testing.assert_array_equal(a, np.arange(24, dtype=np.float32).reshape(4, 6)[::-1, 1::2])
    a[0, 0] = -1  # shared memory
    assert float(t[3, 1]) == -1
    assert bytes(m) == a.tobytes()
    with pytest.raises(BufferError, match=r"not C-contiguous"):
        np.frombuffer(v, np.float32)
    del m, a
    assert memoryview(t[2]).c_contiguous


def test_buffer_0d_and_broadcast():
    t = host_tensor(np.array(3.5))
    m = memoryview(t)
    assert m.ndim == 0 and m.shape == () and m.tobytes() == np.float64(3.5).tobytes()


def test_buffer_bfloat16_rejected():
    t = augpy.Tensor((2,), augpy.bfloat16).cpu()
    with pytest.raises(BufferError, match=r"Tensor: bfloat16 tensors cannot be exported"):
        memoryview(t)


@pytest.mark.skipif(not ON_CUDA, reason="a CUDA tensor")
def test_buffer_refused_on_cuda():
    t = augpy.array_to_tensor(np.arange(4, dtype=np.uint8))
    with pytest.raises(BufferError, match=rf"^Tensor: only CPU tensors support the buffer protocol, this one is "
                                          rf"on {DEVICE}; use numpy\(\) or DLPack$"):
        memoryview(t)
    np.testing.assert_array_equal(np.asarray(t), np.arange(4))  # numpy falls back to __array__ (a copy)


def test_buffer_keeps_tensor_alive():
    t = host_tensor(np.arange(5, dtype=np.int64))
    m = memoryview(t)
    r = weakref.ref(t)
    del t
    gc.collect()
    assert r() is not None
    assert m.tolist() == [0, 1, 2, 3, 4]
    m.release()
    gc.collect()
    assert r() is None


# ---- length, iteration, scalars -------------------------------------------------------------------

def test_len_and_iter():
    a = np.arange(12).reshape(3, 4)
    t = augpy.array_to_tensor(a)
    assert len(t) == 3
    rows = list(t)
    assert len(rows) == 3
    for row, ref in zip(rows, a):
        np.testing.assert_array_equal(row.numpy(), ref)
    assert [int(x) for x in t[1]] == [4, 5, 6, 7]
    assert len(augpy.Tensor((0, 2))) == 0 and list(augpy.Tensor((0, 2))) == []
    s = augpy.Tensor(())
    with pytest.raises(TypeError, match=r"len\(\) of a 0-d tensor"):
        len(s)
    with pytest.raises(TypeError, match=r"iteration over a 0-d tensor"):
        iter(s)


def test_scalar_conversions():
    t = augpy.array_to_tensor(np.array([[2.75]], np.float32))
    assert float(t) == 2.75 and int(t) == 2 and bool(t)
    i = augpy.array_to_tensor(np.array(-7, np.int8))
    assert operator.index(i) == -7 and int(i) == -7 and float(i) == -7.0
    assert [10, 20, 30][augpy.array_to_tensor(np.array(1, np.uint64))] == 20
    assert not bool(augpy.array_to_tensor(np.array([False])))
    big = augpy.array_to_tensor(np.array(2 ** 64 - 1, np.uint64))
    assert int(big) == 2 ** 64 - 1
    with pytest.raises(ValueError, match=r"Tensor: the truth value of a tensor with 2 elements"):
        bool(augpy.Tensor(2))
    with pytest.raises(TypeError, match=r"Tensor: only tensors with one element can be converted to int"):
        int(augpy.Tensor(2))
    with pytest.raises(ValueError, match=r"Tensor: only tensors with one element .* float"):
        float(augpy.Tensor(0))
    with pytest.raises(TypeError, match=r"Tensor: only 0-d integer tensors"):
        operator.index(t)
    with pytest.raises(TypeError, match=r"Tensor: only 0-d integer tensors"):
        operator.index(augpy.array_to_tensor(np.array([3])))


# ---- reshape, contiguous, layout, empty_like -------------------------------------------------------

def test_reshape():
    a = np.arange(24, dtype=np.int16)
    t = augpy.array_to_tensor(a)
    for shape in [(2, 3, 4), (4, -1), (-1,), (1, 24, 1), [6, 4]]:
        r = t.reshape(shape)
        np.testing.assert_array_equal(r.numpy(), a.reshape(shape))
        assert r.ptr == t.ptr
    assert t.reshape(2, 12).shape == (2, 12)
    assert augpy.array_to_tensor(np.array(5)).reshape(1, 1).shape == (1, 1)


@pytest.mark.parametrize("shape, exc, msg", [
    ((5, 5), ValueError, r"Tensor.reshape: cannot reshape tensor of size 24 into shape \(5, 5\)"),
    ((-1, -1), ValueError, r"Tensor.reshape: can only specify one unknown dimension"),
    ((2, -3), ValueError, r"Tensor.reshape: "),
    (("a",), TypeError, r"Tensor.reshape: shape entries must be integers"),
    ((1,) * 9, ValueError, r"Tensor.reshape: too many dimensions"),
])
def test_reshape_errors(shape, exc, msg):
    t = augpy.Tensor(24)
    with pytest.raises(exc, match=msg):
        t.reshape(shape)


def test_reshape_non_contiguous():
    t = augpy.Tensor((4, 6))[:, ::2]
    with pytest.raises(ValueError, match=r"Tensor.reshape: .*contiguous\(\)"):
        t.reshape(12)
    c = t.contiguous()
    assert c.is_contiguous and c.strides == (3, 1)
    np.testing.assert_array_equal(c.numpy(), t.numpy())
    assert c.reshape(12).shape == (12,)
    assert c.contiguous() is c


def test_layout():
    t = augpy.Tensor((2, 3, 4))
    t.layout = "HWC"
    assert t.layout == "HWC"
    assert t[0].layout in ("", "WC")  # the C library decides how views keep layouts
    t.layout = None
    assert t.layout == ""
    with pytest.raises(ValueError, match=r"Tensor.layout: "):
        t.layout = "HW"
    with pytest.raises(TypeError, match=r"Tensor.layout: layout must be a str, got int"):
        t.layout = 3


def test_empty_like():
    t = augpy.Tensor((2, 5), augpy.int16)[:, ::2]
    e = augpy.empty_like(t)
    assert e.shape == (2, 3) and e.dtype is augpy.int16 and e.is_contiguous
    assert augpy.empty_like(t, augpy.float32).dtype is augpy.float32
    assert augpy.empty_like(t, dtype=np.uint8).dtype is augpy.uint8
    with pytest.raises(TypeError, match=r"empty_like: tensor must be a Tensor, got numpy.ndarray"):
        augpy.empty_like(np.zeros(3))


def test_weakref_and_gc():
    t = augpy.Tensor(3)
    r = weakref.ref(t)
    assert r() is t
    del t
    gc.collect()
    assert r() is None


def test_cudatensor_is_the_manuals_name_for_tensor():
    """augpy.Tensor is the class; CudaTensor, the augpy manual's name, is the same type object,
    so the old spellings (constructor, isinstance, pickles) keep working."""
    import pickle
    assert augpy.CudaTensor is augpy.Tensor and augpy._augpy.CudaTensor is augpy._augpy.Tensor
    assert augpy.Tensor.__name__ == "Tensor" and "CudaTensor" in augpy.__all__ and "Tensor" in augpy.__all__
    t = augpy.CudaTensor((2, 3), dtype=augpy.float32)
    t.fill(1.5)
    assert type(t) is augpy.Tensor and isinstance(t, augpy.CudaTensor) and isinstance(t, augpy.Tensor)
    assert repr(t).startswith("<Tensor shape=(2, 3), device=")
    u = pickle.loads(pickle.dumps(t))
    assert type(u) is augpy.Tensor and u.numpy().tolist() == [[1.5] * 3] * 2
    with pytest.raises(TypeError, match=r"^Tensor: shape must be an int or a sequence of ints, got str"):
        augpy.CudaTensor("ab")
    with pytest.raises(TypeError, match=r"out must be a Tensor or None"):
        augpy.add(t, t, out=1)
