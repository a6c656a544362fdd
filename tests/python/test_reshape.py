"""augpy.reshape (semantics §12, DALI fn.reshape / reinterpret): the seed's examples, DALI's own
test cases, a table of argument combinations with hand-computed shapes (values checked
against NumPy's reshape / .view of the same bytes), batches, per-sample 2-D shapes,
layouts, views sharing memory, and every error with DALI's message."""
import re

import numpy as np
import pytest

import augpy


def tensor(shape, dtype=np.uint8, layout=None):
    size = int(np.prod(shape, dtype=np.int64))
    a = (np.arange(size, dtype=np.int64) * 37 + 11).astype(dtype).reshape(shape)
    t = augpy.array_to_tensor(a)
    if layout is not None:
        t.layout = layout
    return t, a


def ptr(t):
    return t.ptr


# ---- the seed's examples (semantics §12) --------------------------------------------------------------


def test_seed_examples():
    t, a = tensor((480, 640, 3))
    r = augpy.reshape(t, rel_shape=[0.5, -1])
    assert r.shape == (240, 3840)
    np.testing.assert_array_equal(r.numpy(), a.reshape(240, 3840))
    assert augpy.reshape(t, shape=[240, -1]).shape == (240, 3840)
    u, _ = tensor((300, 200, 1))
    assert augpy.reshape(u, src_dims=[-1, 1, 0]).shape == (1, 200, 300)
    assert augpy.reshape(u, src_dims=[-1, 1, 0], rel_shape=[-1, 0.5, 2]).shape == (1, 100, 600)


# ---- a table of cases: (input shape, input dtype, kwargs, expected shape, expected dtype) ------

CASES = [
    # shape alone, wildcard in each position
    ((2, 3, 4), "uint8", dict(shape=[24]), (24,), None),
    ((2, 3, 4), "uint8", dict(shape=[-1]), (24,), None),
    ((2, 3, 4), "uint8", dict(shape=[-1, 4]), (6, 4), None),
    ((2, 3, 4), "uint8", dict(shape=[6, -1]), (6, 4), None),
    ((2, 3, 4), "uint8", dict(shape=[2, -1, 3]), (2, 4, 3), None),
    ((2, 3, 4), "int16", dict(shape=(4, 3, 2)), (4, 3, 2), None),
    ((2, 3, 4), "float32", dict(shape=np.array([1, 24, 1])), (1, 24, 1), None),
    ((1,), "float64", dict(shape=[]), (), None),
    ((5,), "uint8", dict(shape=5), (5,), None),
    ((2, 3), "uint8", dict(shape=[-7, 2]), (3, 2), None),  # any negative is the wildcard
    # shape_input (positional), 1-D in each form
    ((4, 6), "uint8", dict(shape_input=[3, 8]), (3, 8), None),
    ((4, 6), "uint8", dict(shape_input=np.array([-1, 12], dtype=np.int32)), (2, 12), None),
    ((4, 6), "uint8", dict(shape_input=np.array([24], dtype=np.uint64)), (24,), None),
    ((4, 6), "uint8", dict(shape_input="tensor:[2,2,-1]"), (2, 2, 6), None),
    # rel_shape alone
    ((480, 640, 3), "uint8", dict(rel_shape=[0.5, -1]), (240, 3840), None),
    ((480, 640, 3), "uint8", dict(rel_shape=[-1, 2]), (720, 1280), None),
    ((480, 640, 3), "uint8", dict(rel_shape=[2, 0.5, 1]), (960, 320, 3), None),
    ((480, 640), "uint8", dict(rel_shape=[1, 1, -1]), (480, 640, 1), None),  # trailing wildcard adds a dim
    ((5, 6), "uint8", dict(rel_shape=[0.5, -1]), (3, 10), None),  # 2.5 rounds away from zero
    ((3, 10), "uint8", dict(rel_shape=[np.float32(5 / 6), 1]), (3, 10), None),  # float32 product is 2.5
    ((4, 6), "uint8", dict(rel_shape=np.array([0.5, 2.0], dtype=np.float64)), (2, 12), None),
    ((4, 6), "uint8", dict(rel_shape=[1, 1]), (4, 6), None),
    # src_dims alone (DALI's test table)
    ((200, 300, 1), "uint8", dict(src_dims=[0, 1]), (200, 300), None),
    ((10, 20, 30), "uint8", dict(src_dims=[1, 2, 0]), (20, 30, 10), None),
    ((1, 2, 1), "uint8", dict(src_dims=[1]), (2,), None),
    ((10, 20, 30), "uint8", dict(src_dims=[2, -1, 1, 0]), (30, 1, 20, 10), None),
    ((1, 1, 30), "uint8", dict(src_dims=[-1, 2]), (1, 30), None),
    ((1,), "int32", dict(src_dims=[]), (), None),
    ((300, 200, 1), "uint8", dict(src_dims=[-1, 1, 0]), (1, 200, 300), None),
    ((4,), "uint8", dict(src_dims=0), (4,), None),
    # src_dims with rel_shape
    ((200, 300, 100), "uint8", dict(src_dims=[2, 0, 1], rel_shape=[0.5, 0.5, -1]), (50, 100, 1200), None),
    ((300, 200, 1), "uint8", dict(src_dims=[-1, 1, 0], rel_shape=[-1, 0.5, 2]), (1, 100, 600), None),
    ((3, 10), "uint8", dict(src_dims=[0, -1, 1], rel_shape=[1, 2, 0.5]), (3, 2, 5), None),  # -1 counts as 1
    # dtype alone and with shapes (innermost rescaled / wildcard in bytes)
    ((3, 8), "uint8", dict(dtype=augpy.int32), (3, 2), "int32"),
    ((3, 2), "int32", dict(dtype=augpy.uint8), (3, 8), "uint8"),
    ((3, 8), "uint8", dict(dtype="float64"), (3, 1), "float64"),
    ((4, 4), "uint8", dict(shape=[-1], dtype=augpy.int32), (4,), "int32"),
    ((4, 4), "uint8", dict(shape=[2, -1], dtype=np.uint16), (2, 4), "uint16"),
    ((2, 3), "float32", dict(shape=[-1], dtype=augpy.uint8), (24,), "uint8"),
    ((2, 4), "int16", dict(rel_shape=[1, -1], dtype=augpy.int64), (2, 1), "int64"),
    ((6, 4), "uint8", dict(src_dims=[1, 0], dtype=augpy.uint16), (4, 3), "uint16"),
    ((2, 4), "uint16", dict(dtype=augpy.float16), (2, 4), "float16"),
    ((2, 4), "uint8", dict(dtype=augpy.int8), (2, 4), "int8"),
    # layout alone
    ((2, 3), "uint8", dict(layout="ab"), (2, 3), None),
    ((2, 3), "uint8", dict(layout=""), (2, 3), None),
]


def _materialize(kwargs):
    out = {}
    for k, v in kwargs.items():
        if isinstance(v, str) and v.startswith("tensor:"):
            v = augpy.array_to_tensor(np.array(eval(v[7:]), dtype=np.int64))
        out[k] = v
    return out


@pytest.mark.parametrize("shape,dtype,kwargs,expected,out_dtype", CASES)
def test_table(shape, dtype, kwargs, expected, out_dtype):
    t, a = tensor(shape, dtype)
    kw = _materialize(kwargs)
    si = kw.pop("shape_input", None)
    r = augpy.reshape(t, si, **kw) if si is not None else augpy.reshape(t, **kw)
    assert r.shape == expected
    assert r.ptr == t.ptr  # a view, not a copy
    assert r.is_contiguous
    ref = a.view(np.dtype(out_dtype)) if out_dtype else a
    np.testing.assert_array_equal(r.numpy(), ref.reshape(expected))
    assert r.dtype == augpy.to_augpy_dtype(ref.dtype)


def test_table_size():
    assert len(CASES) >= 30


# ---- dtype reinterpretation against numpy .view() -----------------------------------------------


@pytest.mark.parametrize("src,dst", [("uint8", "int32"), ("int32", "uint8"), ("uint8", "float32"),
                                     ("float64", "uint16"), ("int16", "uint16"), ("uint8", "int64")])
def test_reinterpret_matches_numpy_view(src, dst):
    rng = np.random.default_rng(5)
    a = rng.integers(0, 256, size=(5, 16), dtype=np.uint8).view(src)
    t = augpy.array_to_tensor(a)
    r = augpy.reshape(t, dtype=getattr(augpy, dst))
    ref = a.view(dst)
    assert r.shape == ref.shape
    np.testing.assert_array_equal(r.numpy().view(np.uint8), ref.view(np.uint8))
    back = augpy.reshape(r, dtype=getattr(augpy, src))
    np.testing.assert_array_equal(back.numpy(), a)
    assert back.ptr == t.ptr


# ---- views share memory --------------------------------------------------------------------------


def test_writes_through_view():
    t, a = tensor((4, 6), np.int16)
    r = augpy.reshape(t, shape=[-1])
    r[5] = -1234
    r[23] = 777
    got = t.numpy()
    assert got[0, 5] == -1234 and got[3, 5] == 777
    w = augpy.reshape(t, dtype=augpy.uint8)
    w[0, 0] = 0xFF
    w[0, 1] = 0x7F
    assert t.numpy()[0, 0] == 0x7FFF  # little-endian bytes of the int16


def test_view_outlives_input():
    t, a = tensor((3, 5), np.float32)
    r = augpy.reshape(t, shape=[15])
    del t
    np.testing.assert_array_equal(r.numpy(), a.reshape(15))


def test_numpy_interface_pointer():
    t, _ = tensor((2, 6), np.uint8)
    r = augpy.reshape(t, shape=[3, 4])
    assert np.asarray(r).__array_interface__["data"][0] == np.asarray(t).__array_interface__["data"][0]


def test_offset_view_keeps_offset():
    t, a = tensor((4, 6), np.uint8)
    row = t[2]
    r = augpy.reshape(row, shape=[2, 3])
    assert r.ptr == row.ptr == t.ptr + 12
    np.testing.assert_array_equal(r.numpy(), a[2].reshape(2, 3))


# ---- batches --------------------------------------------------------------------------------------


def test_batch_each_sample_on_its_own():
    (t0, a0), (t1, a1) = tensor((480, 640, 3)), tensor((320, 240, 3))
    out = augpy.reshape([t0, t1], rel_shape=[0.5, -1])
    assert isinstance(out, list)
    assert [o.shape for o in out] == [(240, 3840), (160, 1440)]
    assert out[0].ptr == t0.ptr and out[1].ptr == t1.ptr
    np.testing.assert_array_equal(out[1].numpy(), a1.reshape(160, 1440))
    out = augpy.reshape((t0, t1), shape=[-1])
    assert [o.shape for o in out] == [(921600,), (230400,)]
    assert augpy.reshape([], shape=[-1]) == []


def test_batch_src_dims():
    ts = [tensor(s)[0] for s in [(200, 300, 1), (300, 400, 1)]]
    assert [o.shape for o in augpy.reshape(ts, src_dims=[0, 1])] == [(200, 300), (300, 400)]
    ts = [tensor(s)[0] for s in [(10, 20, 30), (30, 20, 10), (2, 1, 3)]]
    assert [o.shape for o in augpy.reshape(ts, src_dims=[1, 2, 0])] == [(20, 30, 10), (20, 10, 30), (1, 3, 2)]


@pytest.mark.parametrize("form", ["list", "numpy", "tensor", "list_of_arrays"])
def test_batch_2d_shape_input(form):
    ts = [tensor((4, 6))[0], tensor((2, 5))[0], tensor((3, 3))[0]]
    rows = [[3, 8], [-1, 2], [9, 1]]
    arg = {"list": rows, "numpy": np.array(rows, dtype=np.int32),
           "tensor": augpy.array_to_tensor(np.array(rows, dtype=np.int16)),
           "list_of_arrays": [np.array(r) for r in rows]}[form]
    out = augpy.reshape(ts, arg)
    assert [o.shape for o in out] == [(3, 8), (5, 2), (9, 1)]
    out = augpy.reshape(ts, shape=arg)
    assert [o.shape for o in out] == [(3, 8), (5, 2), (9, 1)]


def test_batch_2d_rel_shape():
    ts = [tensor((4, 6))[0], tensor((10, 2))[0]]
    out = augpy.reshape(ts, rel_shape=np.array([[0.5, -1], [2, 0.5]], dtype=np.float32))
    assert [o.shape for o in out] == [(2, 12), (20, 1)]


def test_single_tensor_with_one_row():
    t, _ = tensor((4, 6))
    r = augpy.reshape(t, [[24]])
    assert r.shape == (24,)
    with pytest.raises(ValueError, match=r"^reshape: The new shape must have same number of samples\. Got 2, expected 1$"):
        augpy.reshape(t, [[24], [24]])


def test_batch_error_names_sample():
    ts = [tensor((4, 6))[0], tensor((2, 5))[0]]
    with pytest.raises(ValueError, match=r"^reshape: Input and output samples must occupy the same size in bytes\. "
                                         r"Sample index: 1, actual volume: 10 \(10 bytes\), requested volume: 24 "
                                         r"\(24 bytes\), input shape: \(2, 5\), requested shape: \(24,\)$"):
        augpy.reshape(ts, shape=[24])
    with pytest.raises(ValueError, match=r"The new shape must have same number of samples\. Got 1, expected 2"):
        augpy.reshape(ts, np.array([[4, 6]]))


# ---- layouts ---------------------------------------------------------------------------------------


def test_layout_kept_replaced_cleared():
    t, _ = tensor((4, 6, 3), layout="HWC")
    assert augpy.reshape(t, shape=[6, 4, 3]).layout == "HWC"  # same ndim: kept
    assert augpy.reshape(t, shape=[4, -1]).layout == ""  # other ndim: cleared
    assert augpy.reshape(t, shape=[4, -1], layout="ab").layout == "ab"
    assert augpy.reshape(t, layout="").layout == ""
    assert augpy.reshape(t, layout="CHW").layout == "CHW"
    assert augpy.reshape(t, src_dims=[1, 0, 2]).layout == "HWC"  # DALI keeps by ndim, not by meaning
    assert augpy.reshape(t, dtype=augpy.int8).layout == "HWC"
    assert augpy.reshape(t, src_dims=[-1, 0, 1, 2], layout="NHWC").layout == "NHWC"
    assert t.layout == "HWC"  # the input keeps its own
    with pytest.raises(ValueError, match=r"^reshape: Requested layout 'abc' is not compatible with a 2D shape$"):
        augpy.reshape(t, shape=[4, -1], layout="abc")
    with pytest.raises(TypeError, match=r"reshape: layout must be a str, not int"):
        augpy.reshape(t, layout=3)
    with pytest.raises(ValueError, match=r"reshape: layout 'H\\xe9C' must be ASCII|reshape: layout 'HéC' must be ASCII"):
        augpy.reshape(t, layout="HéC")


# ---- errors (DALI's wording) -------------------------------------------------------------------------

ERRORS = [
    ((10, 20, 20), dict(), r"`reshape` is no-op: arguments specify neither new shape, layout nor type\."),
    ((10, 20, 20), dict(shape=[-1], rel_shape=[1]),
     r"Shape input, `shape` argument and `rel_shape` argument are mutually exclusive"),
    ((10, 20, 20), dict(shape_input=[-1], shape=[-1]),
     r"Shape input, `shape` argument and `rel_shape` argument are mutually exclusive"),
    ((10, 20, 20), dict(shape_input=[-1], rel_shape=[-1]),
     r"Shape input, `shape` argument and `rel_shape` argument are mutually exclusive"),
    ((10, 20, 20), dict(shape=[-1, 2, -1]), r"Only one negative extent is allowed; got: \(-1, 2, -1\)"),
    ((10, 20, 20), dict(shape_input=[-1, -1]), r"Only one negative extent is allowed; got: \(-1, -1\)"),
    ((10, 20, 20), dict(rel_shape=[-1, 0.5, -2]), r"Only one negative extent is allowed; got: \(-1, 0\.5, -2\)"),
    ((10, 20, 20), dict(shape=[0, -1]), r"Extent of 0 is illegal; got: \(0, -1\)"),
    ((10, 20, 20), dict(shape_input=[4000, 0]), r"Extent of 0 is illegal; got: \(4000, 0\)"),
    ((10, 20, 20), dict(rel_shape=[0.5, 0]), r"Extent of 0 is illegal; got: \(0\.5, 0\)"),
    ((10, 20, 20), dict(rel_shape=[]), r"`rel_shape` specified as an empty list"),
    ((10, 20, 20), dict(rel_shape=[float("nan")]), r"`rel_shape` must be finite; got: \(nan,\)"),
    ((10, 20, 20), dict(src_dims=[1, 2]),
     r"The volume of the new shape should match the one of the original shape\. Requested a shape with 400 "
     r"elements but the original shape has 4000 elements\."),
    ((20, 10, 20), dict(src_dims=[2, 0]),
     r"The volume of the new shape should match the one of the original shape\. Requested a shape with 400 "
     r"elements but the original shape has 4000 elements\."),
    ((1, 2, 3), dict(src_dims=[2, 0, 1], rel_shape=[1, -1]),
     r"`src_dims` and `rel_shape` have different lengths: 3 vs 2"),
    ((1, 2, 3), dict(src_dims=[0, 1, 3]),
     r"`src_dims\[2\] == 3` is out of bounds\. The indices in `src_dims` should be either valid dimension indices "
     r"in range \[0\.\.2\] or -1 to insert a new dimension\."),
    ((1, 2, 3), dict(src_dims=[-2]), r"`src_dims\[0\] == -2` is out of bounds\."),
    ((1, 2, 3), dict(src_dims=[0], shape=[6]), r"`src_dims` cannot be combined with `shape`"),
    ((480, 640), dict(rel_shape=[1, -1, 1]),
     r"`rel_shape` has more elements \(3\) than there are dimensions in the input \(2\)\. To add new dimensions, "
     r"use `src_dims` to specify the mapping between input and output dimensions\."),
    ((320, 0), dict(rel_shape=[-1, 1]),
     r"Cannot infer the extent of dimension 0 when the volume of remaining dimensions is 0\. Input shape: "
     r"\(320, 0\)"),
    ((10, 20, 20), dict(shape=[20, 20]),
     r"Input and output samples must occupy the same size in bytes\. Sample index: 0, actual volume: 4000 "
     r"\(4000 bytes\), requested volume: 400 \(400 bytes\), input shape: \(10, 20, 20\), requested shape: "
     r"\(20, 20\)"),
    ((10, 20, 20), dict(shape=[-1, 3]), r"Input and output samples must occupy the same size in bytes\."),
    ((3, 5), dict(rel_shape=[0.1, 1]), r"Input and output samples must occupy .*requested volume: 0 \(0 bytes\).*requested shape: \(0, 5\)"),
    ((2, 3), dict(dtype=augpy.int32),
     r"The size, in bytes, of the innermost dimension is not divisible by the sizes of the requested output "
     r"type\. Innermost extent: 3 \(3 bytes\); int32 has 4 bytes\."),
    ((2, 3), dict(shape=[-1], dtype=augpy.int32), r"Input and output samples must occupy the same size in bytes\."),
    ((), dict(dtype=augpy.int16), r"cannot reinterpret a 0-d sample of uint8 \(1 bytes\) as int16"),
    ((4,), dict(shape=[1] * 9), r"`shape` has 9 elements; the output can have at most 8 dimensions"),
    ((4,), dict(shape=[2 ** 40, 2 ** 40, -1]), r"requested shape .* is too large|Cannot infer|same size in bytes"),
    ((4,), dict(shape=[2 ** 63]), r"value 9223372036854775808 in `shape` is out of range"),
    ((4,), dict(shape=np.zeros((2, 2, 2), dtype=np.int64)),
     r"shape input must be a list of 1D tensors or a single 2D tensor"),
    ((4,), dict(shape=[[2, 2], [4]]), r"All samples must have the same number of dimensions"),
    ((4,), dict(src_dims=[[0]]), r"`src_dims` must be a 1-D list of ints"),
]


@pytest.mark.parametrize("shape,kwargs,message", ERRORS)
def test_errors(shape, kwargs, message):
    t, _ = tensor(shape)
    kw = dict(kwargs)
    si = kw.pop("shape_input", None)
    with pytest.raises(ValueError, match="^reshape: " + message):
        augpy.reshape(t, si, **kw) if si is not None else augpy.reshape(t, **kw)


def test_non_contiguous_input():
    t, _ = tensor((4, 6))
    with pytest.raises(ValueError, match=r"^reshape: tensor is not contiguous; call contiguous\(\) first$"):
        augpy.reshape(t[:, ::2], shape=[-1])
    with pytest.raises(ValueError, match=r"not contiguous"):
        augpy.reshape([t, t.permute(1, 0) if hasattr(t, "permute") else t[:, 1:]], shape=[-1])
    r = augpy.reshape(t[:, ::2].contiguous(), shape=[-1])
    assert r.shape == (12,)


def test_misaligned_reinterpret():
    t, _ = tensor((9,))
    tail = t[1:]
    assert augpy.reshape(tail, shape=[2, 4]).shape == (2, 4)  # same dtype: any address
    with pytest.raises(ValueError, match=r"^reshape: the data at byte offset 1 is not aligned for int32"):
        augpy.reshape(tail, dtype=augpy.int32)


@pytest.mark.parametrize("kwargs,exc,message", [
    (dict(shape=[2.5]), TypeError, r"reshape: `shape` must contain integers, got 2\.5"),
    (dict(shape=[True]), TypeError, r"reshape: `shape` must contain integers, got True"),
    (dict(shape="24"), TypeError, r"reshape: `shape` must be a sequence, an array or a tensor, not str"),
    (dict(shape=np.array([24.0])), TypeError, r"reshape: `shape` must have integral type; got: float64"),
    (dict(shape_input=np.array([24.0], np.float32)), TypeError, r"reshape: Shape input must have integral type; got: float32"),
    (dict(rel_shape=["a"]), TypeError, r"reshape: `rel_shape` must contain numbers, got 'a'"),
    (dict(rel_shape=np.array([True])), TypeError, r"reshape: `rel_shape` must have a numeric"),
    (dict(dtype="nonsense"), TypeError, r"reshape"),
])
def test_argument_types(kwargs, exc, message):
    t, _ = tensor((4, 6))
    kw = dict(kwargs)
    si = kw.pop("shape_input", None)
    with pytest.raises(exc, match=message):
        augpy.reshape(t, si, **kw) if si is not None else augpy.reshape(t, **kw)


def test_data_types():
    t, _ = tensor((4, 6))
    with pytest.raises(TypeError, match=r"^reshape: data must be a Tensor or a list of Tensors, not numpy.ndarray"):
        augpy.reshape(np.zeros(4), shape=[-1])
    with pytest.raises(TypeError, match=r"^reshape: data\[1\] must be a Tensor, not int"):
        augpy.reshape([t, 3], shape=[-1])
    with pytest.raises(TypeError):
        augpy.reshape(t, [24], [24])  # shape is keyword-only
    with pytest.raises(TypeError):
        augpy.reshape()


def test_rel_shape_rounding_reference():
    """Every rel in a grid against the semantics §12 formula evaluated independently in numpy float32."""
    for n in (3, 5, 7, 10, 99):
        for rel in np.float32([0.1, 0.25, 1 / 3, 0.5, 5 / 6, 1.5, 2.5]):
            prod = np.float32(rel) * np.float32(n)
            e = int(np.floor(np.float64(prod) + 0.5))  # half away from zero (positive)
            if e == 0:
                continue
            t, _ = tensor((n, 4 * e))  # volume n*4e: the wildcard gets n*4 exactly
            r = augpy.reshape(t, rel_shape=[float(rel), -1])
            assert r.shape == (e, n * 4), (n, rel)
