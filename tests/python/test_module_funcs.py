"""augpy.empty, arange, asarray, tensor, stack, concatenate and where, on the
session's device, against NumPy and opsref's independent promotion and casts."""
import math

import numpy as np
import pytest

import augpy
from conftest import DEVICE
from opsref import DTYPES, adtype, gen, make, name_of, promote, pyvals, read, sat_cast, store_value, expected_array


def same(t, expected, dtype=None):
    got = read(t)
    assert t.device == DEVICE
    assert got.shape == np.shape(expected)
    if dtype is not None:
        assert t.dtype == dtype
    np.testing.assert_array_equal(got, expected)


# ---- empty -----------------------------------------------------------------------------

def test_empty():
    t = augpy.empty((2, 3))
    assert t.shape == (2, 3) and t.dtype == augpy.uint8 and t.device == DEVICE
    t = augpy.empty(4, augpy.float64)
    assert t.shape == (4,) and t.dtype == augpy.float64
    assert augpy.empty(shape=(), dtype="int16").shape == ()
    with pytest.raises(ValueError, match="augpy.empty"):
        augpy.empty((2, -1))


# ---- arange -----------------------------------------------------------------------------

@pytest.mark.parametrize("args", [(5,), (0,), (-3,), (2, 9), (9, 2), (2, 9, 3), (10, 0, -3), (-5, 5, 7),
                                  (2**40, 2**40 + 5), (1, 2, 1)])
def test_arange_ints(args):
    same(augpy.arange(*args), np.arange(*args, dtype=np.int64), augpy.int64)


@pytest.mark.parametrize("args", [(2.5,), (0, 1, 0.1), (1, 2, 0.25), (5, 1.0, -0.5), (0.0, 0.3, 0.1), (-1, 1.5)])
def test_arange_floats(args):
    expected = np.arange(*args, dtype=np.float64)
    n = math.ceil((args[1] - args[0]) / (args[2] if len(args) > 2 else 1)) if len(args) > 1 else math.ceil(args[0])
    assert len(expected) == max(0, n)
    same(augpy.arange(*args), expected.astype(np.float32), augpy.float32)


def test_arange_dtype_and_keywords():
    same(augpy.arange(0, 300, 50, dtype=augpy.uint8), np.array([0, 50, 100, 150, 200, 250], np.uint8))
    same(augpy.arange(250, 260, dtype=augpy.uint8), np.minimum(np.arange(250, 260), 255).astype(np.uint8))
    same(augpy.arange(start=1, stop=4, step=1, dtype="float64"), np.arange(1, 4, dtype=np.float64))
    same(augpy.arange(stop=3), np.arange(3))
    assert augpy.arange(3, device_id=augpy.Tensor((1,)).device_id).device == DEVICE


def test_arange_errors():
    with pytest.raises(ValueError, match="step must not be zero"):
        augpy.arange(0, 5, 0)
    with pytest.raises(ValueError, match="finite"):
        augpy.arange(0, float("inf"))
    with pytest.raises(TypeError, match="augpy.arange: stop must be an int or a float"):
        augpy.arange("5")
    with pytest.raises(TypeError, match="missing required argument 'stop'"):
        augpy.arange()


# ---- asarray, tensor --------------------------------------------------------------------

def test_asarray_and_tensor():
    a = np.arange(6, dtype=np.int16).reshape(2, 3)
    for fn in (augpy.asarray, augpy.tensor):
        same(fn(a), a, augpy.int16)
        same(fn([[1, 2], [3, 4]]), np.array([[1, 2], [3, 4]]), augpy.int64)
        same(fn((1.5, 2.5)), np.array([1.5, 2.5]), augpy.float64)
        same(fn((5,)), np.array([5]))
        same(fn(7), np.array(7))
        same(fn(a, dtype=augpy.uint8), a.astype(np.uint8), augpy.uint8)
        same(fn(np.array([-1.0, 300.0]), augpy.uint8), np.array([0, 255], np.uint8))
    t = augpy.asarray(a)
    assert augpy.asarray(t) is t
    assert augpy.asarray(t, dtype=augpy.int16) is t
    c = augpy.tensor(t)
    assert c is not t
    c[0, 0] = 100
    assert int(t[0, 0]) == 0
    same(augpy.asarray(t, augpy.float32), a.astype(np.float32), augpy.float32)
    with pytest.raises(TypeError, match="augpy.asarray"):
        augpy.asarray("abc")


# ---- stack, concatenate -------------------------------------------------------------------

@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_stack(axis):
    rng = np.random.default_rng(axis + 10)
    arrs = [rng.integers(-50, 50, (2, 3)).astype(np.int16) for _ in range(3)]
    same(augpy.stack([augpy.asarray(x) for x in arrs], axis=axis), np.stack(arrs, axis=axis), augpy.int16)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concatenate(axis):
    rng = np.random.default_rng(axis + 20)
    shapes = [(2, 3), (2, 1), (2, 4)] if axis != 0 else [(1, 3), (4, 3), (2, 3)]
    arrs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    same(augpy.concatenate(tuple(augpy.asarray(x) for x in arrs), axis), np.concatenate(arrs, axis=axis))


def test_join_promotion_arrays_out_dtype():
    a = augpy.asarray(np.array([1, 2], np.uint8))
    b = augpy.asarray(np.array([-1, 3], np.int8))
    r = augpy.concatenate([a, b])
    assert r.dtype == adtype(promote("uint8", "int8"))
    same(r, np.array([1, 2, -1, 3]))
    same(augpy.stack([a, [7, 8]]), np.array([[1, 2], [7, 8]]))  # a list is copied to a's device
    same(augpy.stack([a, b], dtype=augpy.float32), np.array([[1, 2], [-1, 3]], np.float32), augpy.float32)
    out = augpy.zeros((2, 2), augpy.uint8)
    assert augpy.stack([a, b], axis=1, out=out) is out
    same(out, np.array([[1, 0], [2, 3]], np.uint8))  # saturated into out's dtype


def test_join_errors():
    a = augpy.zeros((2, 3))
    with pytest.raises(ValueError, match="need at least one array"):
        augpy.stack([])
    with pytest.raises(ValueError, match=r"item 1 has shape \(3, 2\)"):
        augpy.stack([a, augpy.zeros((3, 2))])
    with pytest.raises(ValueError, match="except the concatenation axis"):
        augpy.concatenate([a, augpy.zeros((3, 2))], axis=1)
    with pytest.raises(IndexError, match="axis 3 is out of bounds"):
        augpy.stack([a, a], axis=3)
    with pytest.raises(ValueError, match="zero-dimensional"):
        augpy.concatenate([augpy.zeros(()), augpy.zeros(())])
    with pytest.raises(TypeError, match="sequence of tensors"):
        augpy.stack(a)
    with pytest.raises(ValueError, match=r"out has shape"):
        augpy.stack([a, a], out=augpy.zeros((2, 3)))


# ---- where --------------------------------------------------------------------------------

def expected_where(c, x, y, r):
    cb = np.asarray(c).astype(bool) | np.isnan(np.asarray(c, dtype=np.float64))
    xv, yv = np.broadcast_arrays(pyvals(x), pyvals(y))
    vals = np.where(np.broadcast_to(cb, np.broadcast(cb, xv).shape), xv, yv)
    return expected_array(np.vectorize(lambda v: store_value(v, r, r), otypes=[object])(vals)
                          if vals.size else vals, r)


@pytest.mark.parametrize("dx", DTYPES)
def test_where_dtypes(dx):
    rng = np.random.default_rng(DTYPES.index(dx))
    for dy in DTYPES:
        x = gen(rng, dx, (3, 4))
        y = gen(rng, dy, (4,))
        c = rng.integers(0, 3, (3, 1)) > 0
        r = promote(dx, dy)
        t = augpy.where(make(c, "bool"), make(x, dx), make(y, dy))
        assert name_of(t.dtype) == r
        np.testing.assert_array_equal(read(t), expected_where(c, x, y, r))


@pytest.mark.parametrize("dc", ["uint8", "int32", "float32", "float64", "float16"])
def test_where_condition_any_dtype(dc):
    c = np.array([0, 1, -2, 0.5, np.nan, -0.0] if dc.startswith("float") else [0, 1, 2, 0, 7, 0]).astype(dc)
    x = np.arange(6, dtype=np.int16)
    t = augpy.where(augpy.asarray(c), augpy.asarray(x), -x)
    truth = (c != 0) | np.isnan(c.astype(np.float64))
    same(t, np.where(truth, x, -x), augpy.int16)


def test_where_scalars_and_out():
    x = augpy.asarray(np.array([[1, 2, 3]], np.uint8))
    mask = x > 1
    same(augpy.where(mask, x, 0), np.array([[0, 2, 3]], np.uint8), augpy.uint8)
    same(augpy.where(mask, 2.5, x), np.array([[1, 2.5, 2.5]], np.float32), augpy.float32)
    same(augpy.where(mask, 1, 0), np.array([[0, 1, 1]], np.uint8), augpy.uint8)  # two weak ints: as full()
    same(augpy.where(mask, augpy.Constant(-1, augpy.int16), x), np.array([[1, -1, -1]], np.int16))
    same(augpy.where(True, x, 9), np.array([[1, 2, 3]], np.uint8))
    same(augpy.where(np.array([True, False, True]), x, np.array([7, 8, 9], np.uint8)), np.array([[1, 8, 3]]))
    out = augpy.zeros((2, 3), augpy.int8)
    assert augpy.where(mask, augpy.asarray(np.array([[200], [-5]], np.int16)), x, out=out) is out
    same(out, np.array([[1, 127, 127], [1, -5, -5]], np.int8))
    # float16 and bfloat16 keep their values
    h = augpy.asarray(np.array([0.1, 65504, -np.inf], np.float16))
    same(augpy.where(augpy.asarray(np.array([1, 0, 1], bool)), h, h * 0), np.array([0.1, 0, -np.inf], np.float16))


def test_where_one_argument_is_nonzero():
    a = np.array([[0, 3, 0], [1, 0, 2]], np.int32)
    res = augpy.where(augpy.asarray(a))
    assert isinstance(res, tuple) and len(res) == 2
    for got, want in zip(res, np.nonzero(a)):
        same(got, want, augpy.int64)
    res = augpy.where([0.0, 1.5, np.nan])
    same(res[0], np.array([1, 2]))


def test_where_errors():
    x = augpy.zeros((2,))
    with pytest.raises(ValueError, match="either both or neither"):
        augpy.where(x, x)
    with pytest.raises(ValueError, match="cannot broadcast"):
        augpy.where(augpy.zeros((3,)), x, x)
    with pytest.raises(TypeError, match="augpy.where: x must be"):
        augpy.where(x, "a", x)
    with pytest.raises(TypeError, match="at least one"):
        augpy.where(True, 1, 2)
    with pytest.raises(ValueError, match="0-d"):
        augpy.where(augpy.zeros(()))
