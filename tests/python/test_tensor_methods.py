"""The tensor methods a NumPy / PyTorch user reaches for (tensor_methods.c, reduce.c):
astype / to(dtype), clone / copy, tolist, item, T, permute, transpose, squeeze,
unsqueeze, ravel, flatten, view, clip, argmin / argmax, the array interfaces,
str(), pickling and copy.copy / deepcopy, and the DLPack export of negative-stride
views. NumPy (and exact Python values from opsref) is the reference; random shapes,
dtypes and strided / reversed views come from hypothesis. The tensors live on the
session's device (the CPU, or the emulated cuda:N in the emu sessions)."""
import copy
import multiprocessing
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import augpy
from conftest import DEVICE, DTYPE_NAMES, ON_CUDA, augpy_dtype, host_tensor, random_array, rss_bound
from opsref import expected_array, pyvals, sat_cast

NP_TYPESTR = {"bool": "|b1", "int8": "|i1", "uint8": "|u1"}


def dev_tensor(a):
    """A tensor on the session's device with a copy of `a`."""
    return augpy.array_to_tensor(np.array(a, order="C")).to(DEVICE)  # (ascontiguousarray: 0-d -> 1-d)


# ---- hypothesis: an array, its tensor, and the same strided view of both ------------------

@st.composite
def views(draw, dtypes=DTYPE_NAMES, min_dims=0, max_dims=4, max_side=5, min_side=0):
    name = draw(st.sampled_from(dtypes))
    shape = tuple(draw(st.lists(st.integers(min_side, max_side), min_size=min_dims, max_size=max_dims)))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    a = random_array(np.random.default_rng(seed), shape, name)
    t = dev_tensor(a)
    # a slice with any step on each axis, then maybe a permutation
    key = []
    for n in shape:
        step = draw(st.sampled_from([1, 1, 2, -1, -2]))
        start = draw(st.integers(0, max(n - 1, 0)))
        key.append(slice(start, None, step) if step > 0 else slice(None, None, step))
    key = tuple(key)
    av, tv = a[key], t[key]
    if draw(st.booleans()) and len(shape) > 1:
        perm = draw(st.permutations(range(len(shape))))
        av, tv = av.transpose(perm), tv.transpose(perm)
    return name, av, tv


def assert_same(t, a):
    if isinstance(a, augpy.Tensor):
        assert a.dtype == t.dtype
        a = a.numpy()
    assert t.shape == a.shape
    got = t.numpy()
    assert got.dtype == a.dtype
    np.testing.assert_array_equal(got, a)


def span(t):
    """[lo, hi) byte addresses of t's elements."""
    lo = hi = t.ptr
    for n, s in zip(t.shape, t.strides):
        lo += min(0, (n - 1) * s) * t.itemsize
        hi += max(0, (n - 1) * s) * t.itemsize
    return lo, hi + t.itemsize


def shares_memory(a, b):
    """Whether the element spans of two non-empty tensors overlap."""
    (alo, ahi), (blo, bhi) = span(a), span(b)
    return alo < bhi and blo < ahi


# ---- casts and copies ---------------------------------------------------------------------

@given(views(max_dims=3), st.sampled_from(DTYPE_NAMES))
@settings(max_examples=60)
def test_astype_is_a_saturating_cast(v, to):
    _, a, t = v
    r = t.astype(to)
    assert r.dtype == augpy_dtype(to) and r.device == DEVICE and r.is_contiguous
    want = expected_array(np.vectorize(lambda x: sat_cast(x, to), otypes=[object])(pyvals(a))
                          if a.size else np.empty(a.shape, object), to)
    assert_same(r, want)
    # to(dtype) and to(device, dtype) are the same cast
    assert_same(t.to(augpy_dtype(to)), want)
    assert_same(t.to(DEVICE, to), want)
    assert_same(t.to(device=DEVICE, dtype=np.dtype(to)), want)


def test_astype_and_to_identity():
    t = dev_tensor(np.arange(6, dtype=np.int16))
    t.layout = "W"
    c = t.astype(augpy.int16)
    assert c.ptr != t.ptr and c.layout == "W"
    assert t.astype("int16", copy=False) is t
    assert t.to(augpy.int16) is t and t.to(DEVICE) is t and t.to() is t
    assert t.astype("float32", copy=False).dtype == augpy.float32
    assert t.to("cpu", "uint8").device == "cpu"


@given(views())
@settings(max_examples=40)
def test_clone_copy_tolist(v):
    _, a, t = v
    for c in (t.clone(), t.copy(), copy.copy(t), copy.deepcopy(t)):
        assert c.is_contiguous and c.device == t.device and c.dtype == t.dtype
        assert_same(c, a)
        if a.size:
            assert not shares_memory(c, t)
    assert repr(t.tolist()) == repr(a.tolist())  # (repr: NaN and -0.0 compare too)


def test_clone_is_independent_and_keeps_layout():
    t = dev_tensor(np.zeros((2, 3), np.uint8))
    t.layout = "HW"
    c = t.clone()
    c[0, 0] = 7
    assert int(t[0, 0]) == 0 and c.layout == "HW"


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_item(name):
    a = random_array(np.random.default_rng(1), (2, 3), name)
    t = dev_tensor(a)
    for idx in [(1, 2), (slice(0, 1), slice(2, 3))]:
        got, want = t[idx].item(), a[idx].item()
        assert type(got) is type(want)
        assert got == want or (got != got and want != want)
    assert isinstance(dev_tensor(np.array(True)).item(), bool)
    for args in [(0,), (4,), (-1,), (5,), (1, 2), (-1, 0), (np.int64(1), 1)]:
        got, want = t[:, ::-1].item(*args), a[:, ::-1].item(*args)
        assert type(got) is type(want)
        assert got == want or (got != got and want != want)


@pytest.mark.parametrize("shape", [(3,), (0,), (2, 2), (1, 0)])
def test_item_needs_one_element(shape):
    with pytest.raises(ValueError, match=r"Tensor.item: can only convert a tensor of size 1 to a Python scalar"):
        dev_tensor(np.zeros(shape, np.float32)).item()


def test_item_bad_indices():
    t = dev_tensor(np.zeros((2, 3), np.float32))
    with pytest.raises(IndexError, match=r"Tensor.item: index 6 is out of bounds for size 6"):
        t.item(6)
    with pytest.raises(IndexError, match=r"index -3 is out of bounds for axis of size 2"):
        t.item(-3, 0)
    with pytest.raises(ValueError, match=r"incorrect number of indices"):
        t.item(0, 0, 0)
    with pytest.raises(TypeError, match=r"indices must be ints, got float"):
        t.item(1.0)


def test_tolist_zero_d_and_bfloat16():
    assert dev_tensor(np.array(3.5, np.float32)).tolist() == 3.5
    b = augpy.cast(dev_tensor(np.array([[1.5, -2.0]], np.float32)), augpy.bfloat16)
    assert b.tolist() == [[1.5, -2.0]]


# ---- views ----------------------------------------------------------------------------------

@given(views())
@settings(max_examples=60)
def test_T_permute_transpose(v):
    _, a, t = v
    assert_same(t.T, a.T)
    assert_same(t.transpose(), a.transpose())
    perm = tuple(np.random.default_rng(a.size).permutation(a.ndim).tolist())
    neg = tuple(p - a.ndim for p in perm)
    want = a.transpose(perm)
    for got in (t.permute(*perm), t.permute(perm), t.permute(list(neg)), t.permute(np.array(perm, np.int64)),
                t.transpose(*perm), t.transpose(perm),
                t.transpose(np.array(perm))):
        assert_same(got, want)
        if a.size:
            assert got.ptr == t.ptr  # a view
    if a.ndim == 1:
        assert_same(t.transpose(np.int64(0)), a)


@given(views(min_side=1, max_side=3, max_dims=5))
@settings(max_examples=60)
def test_squeeze_unsqueeze(v):
    _, a, t = v
    assert_same(t.squeeze(), a.squeeze())
    ones = tuple(d for d in range(a.ndim) if a.shape[d] == 1)
    for d in ones:
        assert_same(t.squeeze(d), a.squeeze(d))
        assert_same(t.squeeze(d - a.ndim), a.squeeze(d - a.ndim))
    assert_same(t.squeeze(ones), a.squeeze(ones))
    if a.ndim < 8:
        for ax in range(-a.ndim - 1, a.ndim + 1):
            assert_same(t.unsqueeze(ax), np.expand_dims(a, ax))
            assert_same(t.unsqueeze(dim=ax), np.expand_dims(a, ax))


def test_squeeze_layout():
    t = dev_tensor(np.zeros((1, 4, 1, 3), np.uint8))
    t.layout = "NHCW"
    assert t.squeeze().layout == "HW"
    assert t.squeeze(0).layout == "HCW"
    assert t.unsqueeze(0).layout == ""


@given(views())
@settings(max_examples=60)
def test_ravel_flatten(v):
    _, a, t = v
    r, f = t.ravel(), t.flatten()
    assert_same(r, a.ravel())
    assert_same(f, a.flatten())
    assert f.is_contiguous and (a.size == 0 or not shares_memory(f, t))
    # ravel is a view exactly when NumPy's is (a contiguous tensor)
    assert r.is_contiguous
    if a.size > 1:
        assert (r.ptr == t.ptr and shares_memory(r, t)) == np.shares_memory(a.ravel(), a)


def test_ravel_views_contiguous_tensors_only():
    t = dev_tensor(np.arange(12, dtype=np.int32).reshape(3, 4))
    r = t.ravel()
    assert r.ptr == t.ptr and r.shape == (12,)
    r[0] = 100
    assert int(t[0, 0]) == 100
    c = t[::-1].ravel()
    assert c.is_contiguous and c.ptr != t[::-1].ptr
    want = np.arange(12).reshape(3, 4)
    want[0, 0] = 100
    np.testing.assert_array_equal(c.numpy(), want[::-1].ravel())


@given(views(), st.sampled_from(DTYPE_NAMES))
@settings(max_examples=80)
def test_view_dtype_against_numpy(v, to):
    _, a, t = v
    try:
        want = a.view(to)
    except ValueError:
        with pytest.raises(ValueError, match=r"Tensor.view"):
            t.view(to)
        return
    try:
        got = t.view(augpy_dtype(to))
    except ValueError as e:
        # NumPy accepts byte strides that are no multiple of the new itemsize or an
        # unaligned start; augpy's element strides cannot express those
        assert "not a multiple" in str(e) or "not aligned" in str(e)
        return
    assert got.ptr == t.ptr or a.size == 0
    if to == "bool" and want.size:  # NumPy's bool view keeps any byte value; augpy reads nonzero as True
        np.testing.assert_array_equal(got.numpy(), want.astype(bool) if want.dtype == bool else want)
        return
    assert_same(got, want)


def test_view_shape_and_errors():
    t = dev_tensor(np.arange(12, dtype=np.float32))
    assert_same(t.view(3, 4), np.arange(12, dtype=np.float32).reshape(3, 4))
    assert_same(t.view((2, -1)), np.arange(12, dtype=np.float32).reshape(2, 6))
    assert t.view().ptr == t.ptr
    with pytest.raises(ValueError, match="changing the dtype of a 0-d tensor"):
        t[0].view(augpy.uint8)
    with pytest.raises(ValueError, match="last axis must be contiguous"):
        t[::2].view(augpy.uint8)
    with pytest.raises(ValueError, match="must be a divisor"):
        dev_tensor(np.zeros(3, np.uint8)).view(augpy.uint16)
    with pytest.raises(ValueError, match="contiguous"):
        t.view(3, 4)[:, ::2].view(6)
    with pytest.raises(TypeError, match="Tensor.view"):
        t.view(augpy.uint8, augpy.int8)


def test_bad_axes():
    t = dev_tensor(np.zeros((2, 1, 3), np.float32))
    with pytest.raises(ValueError, match="repeated dim 0"):
        t.permute(0, 0, 1)
    with pytest.raises(ValueError, match=r"number of dims \(2\)"):
        t.permute(0, 1)
    with pytest.raises(ValueError, match="axis 3 is out of bounds"):
        t.permute(0, 1, 3)
    with pytest.raises(TypeError, match="axis must be an int"):
        t.permute(0, 1.0, 2)
    with pytest.raises(ValueError, match="repeated axis"):
        t.transpose(1, 1, 0)
    with pytest.raises(ValueError, match="size not equal to one"):
        t.squeeze(0)
    with pytest.raises(ValueError, match="duplicate value"):
        t.squeeze((1, 1))
    with pytest.raises(ValueError, match="axis -4 is out of bounds"):
        t.squeeze(-4)
    with pytest.raises(ValueError, match="axis 4 is out of bounds"):
        t.unsqueeze(4)
    with pytest.raises(TypeError, match="axis must be an int"):
        t.unsqueeze(True)
    with pytest.raises(ValueError, match="at most 8 dimensions"):
        dev_tensor(np.zeros((1,) * 8, np.uint8)).unsqueeze(0)


# ---- clip ---------------------------------------------------------------------------------------

@given(views(dtypes=["int8", "uint8", "int32", "float32", "float64"]), st.integers(-50, 50), st.integers(0, 80))
@settings(max_examples=40)
def test_clip_matches_clamp_and_numpy(v, lo, width):
    _, a, t = v
    hi = lo + width
    got = t.clip(lo, hi)
    assert_same(got, augpy.math.clamp(t, lo, hi))
    with np.errstate(invalid="ignore"):
        ref = np.clip(pyvals(a), lo, hi) if a.size else a
    want = expected_array(np.vectorize(lambda x: sat_cast(x, a.dtype.name), otypes=[object])(ref)
                          if a.size else np.empty(a.shape, object), a.dtype.name)
    if a.dtype.kind == "f":  # NaN propagates, as in numpy.clip
        with np.errstate(invalid="ignore"):
            want = np.where(np.isnan(a), np.nan, np.clip(a, lo, hi)).astype(a.dtype)
    assert_same(got, want)
    assert_same(t.clip(min=lo), augpy.math.max(t, lo))
    assert_same(t.clip(max=hi), augpy.math.min(t, hi))
    c = t.clip()
    assert_same(c, a)
    assert a.size == 0 or c.ptr != t.ptr


def test_clip_out_and_errors():
    t = dev_tensor(np.arange(6, dtype=np.float32))
    out = dev_tensor(np.zeros(6, np.float32))
    assert t.clip(1, 4, out=out) is out
    np.testing.assert_array_equal(out.numpy(), np.clip(np.arange(6, dtype=np.float32), 1, 4))
    with pytest.raises(TypeError, match="Tensor.clip"):
        t.clip("a", 3)


# ---- argmin / argmax -----------------------------------------------------------------------------

def nan_argmax(a, axis, fn):
    """NumPy's arg reduction (the first NaN wins there too)."""
    return getattr(np, fn)(a, axis=axis)


@given(views(min_side=1, max_dims=4), st.sampled_from(["argmin", "argmax"]), st.booleans(), st.data())
@settings(max_examples=80)
def test_argminmax_against_numpy(v, fn, keepdim, data):
    name, a, t = v
    if name == "bool" or data.draw(st.booleans()):
        # many ties: few distinct values
        with np.errstate(invalid="ignore"):  # inf % 3 is NaN: fine
            a = (a.astype(np.float64) % 3 if a.dtype.kind == "f" else a % 3 if name != "bool" else a).astype(a.dtype)
        t = dev_tensor(a)
    axes = [None] + list(range(-a.ndim, a.ndim))
    axis = data.draw(st.sampled_from(axes))
    got = getattr(t, fn)(axis=axis, keepdim=keepdim)
    want = getattr(np, fn)(a, axis=axis, keepdims=keepdim)
    assert got.dtype == augpy.int64 and got.device == t.device
    assert_same(got, np.asarray(want, np.int64))
    assert_same(getattr(augpy, fn)(t, axis, keepdim), np.asarray(want, np.int64))


@pytest.mark.parametrize("fn", ["argmin", "argmax"])
def test_argminmax_nan_ties_and_signed_zero(fn):
    a = np.array([[1.0, np.nan, 3.0, np.nan], [-0.0, 0.0, -0.0, 0.0], [2.0, 5.0, 5.0, -1.0]], np.float32)
    t = dev_tensor(a)
    for axis in (None, 0, 1, -1):
        np.testing.assert_array_equal(getattr(t, fn)(axis).numpy(), getattr(np, fn)(a, axis=axis))
    for name in ["float16", "float64"]:
        np.testing.assert_array_equal(getattr(t.astype(name), fn)(1).numpy(), getattr(np, fn)(a.astype(name), 1))
    # bfloat16: the same values exactly
    np.testing.assert_array_equal(getattr(t.astype("bfloat16"), fn)(1).numpy(), getattr(np, fn)(a, 1))


@pytest.mark.parametrize("fn", ["argmin", "argmax"])
def test_argminmax_long_and_extremes(fn):
    rng = np.random.default_rng(5)
    a = rng.integers(0, 3, (3, 200_003)).astype(np.uint8)  # several 65536-element chunks, many ties
    for v in (a, a[:, ::-3], a.T):
        t = dev_tensor(v)
        for axis in (None, 0, 1):
            np.testing.assert_array_equal(getattr(t, fn)(axis).numpy(), getattr(np, fn)(v, axis=axis))
    big = np.array([np.iinfo(np.int64).min, 5, np.iinfo(np.int64).max, 7, np.iinfo(np.int64).max], np.int64)
    assert int(getattr(dev_tensor(big), fn)()) == getattr(np, fn)(big)
    u = np.array([2 ** 64 - 1, 0, 2 ** 63, 2 ** 64 - 1, 0], np.uint64)
    assert int(getattr(dev_tensor(u), fn)()) == getattr(np, fn)(u)


def test_argminmax_errors_and_out():
    t = dev_tensor(np.arange(6, dtype=np.int32).reshape(2, 3))
    with pytest.raises(ValueError, match=r"attempt to get argmax of an empty sequence"):
        dev_tensor(np.zeros((0, 3), np.int32)).argmax(axis=0)
    assert dev_tensor(np.zeros((0, 3), np.int32)).argmax(axis=1).shape == (0,)
    with pytest.raises(TypeError, match="axis must be None or an int"):
        t.argmin(axis=(0, 1))
    with pytest.raises(ValueError, match="axis 2 is out of bounds"):
        augpy.argmin(t, 2)
    out = dev_tensor(np.zeros(2, np.int64))
    assert t.argmax(1, out=out) is out
    np.testing.assert_array_equal(out.numpy(), [2, 2])
    assert t.argmax().ndim == 0 and int(t.argmax()) == 5


# ---- array interfaces ------------------------------------------------------------------------

@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_array_interface(name):
    a = random_array(np.random.default_rng(2), (4, 6), name)
    t = host_tensor(a)
    for view, ref in [(t, a), (t[::-1, 1::2], a[::-1, 1::2]), (t[2, 3], a[2, 3]), (t.T, a.T)]:
        ai = view.__array_interface__
        assert ai["version"] == 3 and ai["shape"] == ref.shape
        assert ai["typestr"] == NP_TYPESTR.get(name, np.dtype(name).str)
        assert ai["data"] == (view.ptr, False)
        assert ai["strides"] == (None if view.is_contiguous else tuple(s * a.itemsize for s in view.strides))

        class Holder:  # only the interface: NumPy must read it, zero copy
            __array_interface__ = ai
        arr = np.asarray(Holder())
        assert arr.ctypes.data == view.ptr or arr.size == 0
        np.testing.assert_array_equal(arr, ref)
    assert not hasattr(t, "__cuda_array_interface__")
    with pytest.raises(AttributeError, match="on the cpu"):
        t.__cuda_array_interface__


def test_array_interface_bfloat16_is_absent():
    b = augpy.cast(host_tensor(np.ones(3, np.float32)), augpy.bfloat16)
    with pytest.raises(AttributeError, match="bfloat16 has no NumPy typestr"):
        b.__array_interface__
    assert not hasattr(b, "__array_interface__")


@pytest.mark.skipif(not ON_CUDA, reason="CUDA tensors only")
def test_cuda_array_interface():
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    t = dev_tensor(a)
    v = t[::-1, 1::2]
    ci = v.__cuda_array_interface__
    assert ci["version"] == 3 and ci["shape"] == (4, 3) and ci["typestr"] == "<f4"
    assert ci["data"] == (v.ptr, False) and ci["strides"] == (-24, 8)
    assert isinstance(ci["stream"], int) and ci["stream"] != 0
    assert t.__cuda_array_interface__["strides"] is None
    assert not hasattr(t, "__array_interface__")
    with pytest.raises(AttributeError, match="not the cpu"):
        t.__array_interface__


# ---- str -------------------------------------------------------------------------------------

@given(views(max_dims=3, max_side=5))
@settings(max_examples=30)
def test_str_is_numpys(v):
    _, a, t = v
    assert str(t) == str(a)
    assert repr(t).startswith("<Tensor shape=")


def test_str_summarises_big_tensors():
    a = np.arange(2000, dtype=np.int32)
    t = dev_tensor(a)
    assert str(t) == str(a) == "[   0    1    2 ... 1997 1998 1999]"
    b = augpy.cast(dev_tensor(np.array([1.5, -2.0], np.float32)), augpy.bfloat16)
    assert "1.5" in str(b) and "-2" in str(b)


# ---- pickle --------------------------------------------------------------------------------------

@given(views())
@settings(max_examples=40)
def test_pickle_round_trip(v):
    _, a, t = v
    for proto in (2, pickle.HIGHEST_PROTOCOL):
        u = pickle.loads(pickle.dumps(t, protocol=proto))
        assert u.device == t.device and u.dtype == t.dtype and u.is_contiguous
        assert_same(u, a)


def test_pickle_layout_and_bfloat16():
    t = dev_tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    t.layout = "HWC"
    b = augpy.cast(t, augpy.bfloat16)
    b.layout = "HWC"
    for x in (t, b, t[:, ::-1], t[0, 1, 2]):
        u = pickle.loads(pickle.dumps(x))
        assert u.layout == x.layout and u.dtype == x.dtype and u.shape == x.shape
        np.testing.assert_array_equal(augpy.cast(u, augpy.float32).numpy(), augpy.cast(x, augpy.float32).numpy())


def test_unpickle_on_a_missing_device():
    t = host_tensor(np.arange(3, dtype=np.uint8))
    func, args = t.__reduce__()
    with pytest.raises(ValueError, match=r"device 'cuda:7' does not exist"):
        func(args[0], args[1], args[2], "cuda:7", args[4])
    with pytest.raises(ValueError, match="do not fill the shape"):
        func(b"\0\0", args[1], args[2], "cpu", args[4])


def _child_sum(blob):
    t = pickle.loads(blob)
    return t.device, t.tolist(), pickle.dumps(t * 2)


def test_pickle_through_a_spawned_process():
    """DataLoader workers send tensors through pickle between processes."""
    t = dev_tensor(np.arange(6, dtype=np.int16).reshape(2, 3))[:, ::-1]
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(1) as pool:
        device, values, back = pool.apply(_child_sum, (pickle.dumps(t),))
    assert device == DEVICE and values == t.tolist()
    np.testing.assert_array_equal(pickle.loads(back).numpy(), t.numpy() * 2)


# ---- DLPack: negative strides -------------------------------------------------------------------

def test_dlpack_negative_strides_export_a_copy():
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    t = host_tensor(a)
    v = t[::-1, 1::2]
    arr = np.from_dlpack(v)  # copy=None: a packed copy every consumer accepts
    np.testing.assert_array_equal(arr, a[::-1, 1::2])
    assert arr.flags.c_contiguous and arr.ctypes.data != v.ptr
    with pytest.raises(BufferError, match=r"negative strides \(-6, 2\).*contiguous\(\)"):
        v.__dlpack__(copy=False)
    with pytest.raises(BufferError, match="contiguous"):
        augpy.export_dltensor(v)
    # positive steps stay zero copy; a reversed axis of extent 1 is no negative stride
    w = t[1::2, ::2]
    assert np.from_dlpack(w).ctypes.data == w.ptr
    one = t[1:2, ::-1][:, :1]
    assert np.from_dlpack(one).ctypes.data == one.ptr


@pytest.mark.skipif(not ON_CUDA, reason="CUDA tensors only")
def test_dlpack_negative_strides_on_cuda():
    t = dev_tensor(np.arange(12, dtype=np.int32).reshape(3, 4))
    v = t[:, ::-1]
    back = augpy.from_dlpack(v)  # augpy's own import of the exported copy
    assert back.is_contiguous and back.ptr != v.ptr
    np.testing.assert_array_equal(back.numpy(), np.arange(12, dtype=np.int32).reshape(3, 4)[:, ::-1])
    with pytest.raises(BufferError, match="negative strides"):
        v.__dlpack__(copy=False)


# ---- no leaks ------------------------------------------------------------------------------------

@rss_bound
def test_methods_do_not_leak():
    """Many calls of the methods (successful and failing) do not grow the resident set."""
    from test_leak import MIB, rss, run
    t = dev_tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    v = t[:, ::-1]
    bf = t.astype("bfloat16")

    def failing(fn):
        def call():
            try:
                fn()
            except (ValueError, TypeError, AttributeError, BufferError):
                pass
        return call

    calls = [
        lambda: t.astype("uint8"), lambda: t.to(augpy.int16), lambda: v.clone(), lambda: copy.deepcopy(v),
        lambda: v.tolist(), lambda: t[0, 0, 0].item(), lambda: v.item(5), lambda: v.T, lambda: t.permute(2, 0, 1),
        lambda: t[:, :1].squeeze(1), lambda: t.unsqueeze(0), lambda: v.ravel(), lambda: t.flatten(),
        lambda: t.view(augpy.uint8), lambda: t.clip(1, 5), lambda: v.argmax(1), lambda: augpy.argmin(t),
        lambda: str(v), lambda: pickle.loads(pickle.dumps(v)), lambda: getattr(t, "__array_interface__", None),
        lambda: getattr(t, "__cuda_array_interface__", None), lambda: np.from_dlpack(v.cpu()),
        failing(lambda: t.item()), failing(lambda: t.permute(0, 0, 1)), failing(lambda: t.squeeze(0)),
        failing(lambda: t.view("foo")), failing(lambda: v.__dlpack__(copy=False)),
        failing(lambda: bf.__array_interface__), failing(lambda: t.argmax((0, 1))), failing(lambda: t.clip("x")),
    ]
    n = 20_000 if ON_CUDA else 100_000  # (the emulated device is slow)
    run(calls, 3000)
    before = rss()
    run(calls, n)
    grown = rss() - before
    assert grown < 4 * MIB, f"resident set grew by {grown / MIB:.1f} MiB over {n} calls"
