"""Reductions (semantics §10): sum (with upcast), min, max, mean, all, any over axes
(None, int, negative, tuples), keepdim, out=, strided inputs, every dtype, against
exact Python references. Full reductions return 0-d tensors (the seed's "scalar tensor")."""
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes

import augpy
import opsref as R

UPCAST = {"bool": "uint64", "int8": "int64", "int16": "int64", "int32": "int64", "int64": "int64",
          "uint8": "uint64", "uint16": "uint64", "uint32": "uint64", "uint64": "uint64",
          "float16": "float64", "bfloat16": "float64", "float32": "float64", "float64": "float64"}


def values_for_sum(rng, d, shape):
    """64-bit integers stay where no partial sum leaves the 64-bit range (semantics §10
    accumulates in saturating 64-bit integers); all other dtypes use their full range."""
    if d in ("int64", "uint64"):
        lo, hi = R.limits(d)
        return rng.integers(max(lo, -2 ** 40), min(hi, 2 ** 40), size=shape).astype(R.NP[d])
    return R.gen(rng, d, shape)


def exact_sum(v, n=1):
    """sum(v) / n of finite floats, rounded once to float64 (+-inf beyond its range, where
    math.fsum raises OverflowError)."""
    try:
        return math.fsum(v) / n
    except OverflowError:
        return R.round_exact(sum(map(Fraction, v)) / n, "float64", saturate=False)


def reduce_ref(op, x, d, axes, keepdim, upcast=False):
    """Reference reduction of object array x (exact values). Returns (values, dtype)."""
    x = np.asarray(x, dtype=object)
    nd = x.ndim
    axes = tuple(range(nd)) if axes is None else tuple(a % nd for a in ((axes,) if isinstance(axes, int) else axes))
    keep = [a for a in range(nd) if a not in axes]
    moved = np.moveaxis(x, keep + list(axes), list(range(nd))) if nd else x
    out_shape = tuple(x.shape[a] for a in keep)
    n = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    flat = moved.reshape(out_shape + (n,))
    res = np.empty(out_shape, dtype=object)
    tol = np.zeros(out_shape, dtype=np.float64)
    isf = R.kind(d) == "f"
    rd = {"sum": UPCAST[d] if upcast else d, "min": d, "max": d, "all": "bool", "any": "bool",
          "mean": d if isf else "float64"}[op]
    for idx in np.ndindex(*out_shape):
        v = list(flat[idx]) if n else []
        if isf and op in ("sum", "mean") and n and all(math.isfinite(e) for e in v):
            # pairwise float64 summation: |error| <= log2(n) eps sum|x| (semantics §10: 1e-12 relative);
            # beyond float64 (float64 inputs only) a partial sum may overflow, and the order
            # then decides between +-inf, NaN and the finite value: no bound (inf) is checked
            tol[idx] = 1e-13 * exact_sum([abs(e) for e in v]) / (n if op == "mean" else 1)
        if op in ("min", "max") and not n:
            raise ValueError("empty reduction")
        if op == "sum":
            if isf:
                r = sum(v) if any(math.isinf(e) or math.isnan(e) for e in v) else exact_sum(v)
                res[idx] = R.narrow(float(r), rd)  # IEEE rounding to the result dtype: +-inf beyond it
            else:
                res[idx] = R.sat_cast(sum(int(e) for e in v), rd)
        elif op in ("min", "max"):
            if isf and any(math.isnan(e) for e in v):
                res[idx] = math.nan
            else:
                res[idx] = (min if op == "min" else max)(v)
        elif op == "mean":
            if not n:
                res[idx] = math.nan
            elif isf:
                r = sum(v) / n if any(math.isinf(e) or math.isnan(e) for e in v) else exact_sum(v, n)
                res[idx] = R.narrow(float(r), rd) if math.isfinite(r) else r
            else:
                res[idx] = float(Fraction(sum(int(e) for e in v), n))
        elif op == "all":
            res[idx] = all(e != 0 for e in v)
        else:
            res[idx] = any(e != 0 for e in v)
    if keepdim:
        shape = tuple(1 if a in axes else x.shape[a] for a in range(nd))
        res, tol = res.reshape(shape), tol.reshape(shape)
    return res, rd, tol


def spacing(e, d):
    """One ulp of dtype d at the values e (float64 array)."""
    with np.errstate(all="ignore"):
        if d == "bfloat16":
            return np.abs(np.spacing(e.astype(np.float32))).astype(np.float64) * 65536
        return np.abs(np.spacing(e.astype(R.NP[d]))).astype(np.float64)


def assert_close(actual, exp, tol, rd, msg):
    a = np.asarray(actual).astype(np.float64)
    e = R.expected_array(exp, rd).astype(np.float64)
    assert a.shape == e.shape, msg
    with np.errstate(all="ignore"):
        ok = (a == e) | (np.isnan(a) & np.isnan(e)) | (np.abs(a - e) <= tol + spacing(e, rd)) | np.isinf(tol)
    if not np.all(ok):
        bad = np.argwhere(~ok)[:5]
        raise AssertionError(f"{msg}: got {[a[tuple(i)] for i in bad]}, expected {[e[tuple(i)] for i in bad]}")


def check(op, t, d, axis, keepdim, upcast=False, method=False):
    x = R.pyvals(R.read(t))
    kw = {"keepdim": keepdim}
    if op == "sum":
        kw["upcast"] = upcast
    call = (lambda: getattr(t, op)(axis, **kw)) if method else (lambda: getattr(augpy, op)(t, axis, **kw))
    msg = f"{op}({d}{tuple(t.shape)}, axis={axis}, keepdim={keepdim}, upcast={upcast})"
    try:
        exp, rd, tol = reduce_ref(op, x, d, axis, keepdim, upcast)
    except ValueError:
        with pytest.raises(ValueError):
            call()
        return
    res = call()
    assert R.name_of(res.dtype) == rd, f"{msg}: dtype {R.name_of(res.dtype)} != {rd}"
    assert tuple(res.shape) == np.shape(exp), f"{msg}: shape {tuple(res.shape)} != {np.shape(exp)}"
    if R.kind(rd) == "f" and op in ("sum", "mean"):
        assert_close(R.read(res), exp, tol, rd, msg)
    else:
        R.assert_same(R.read(res), exp, rd, msg=msg)


@pytest.mark.parametrize("d", R.DTYPES)
@pytest.mark.parametrize("op", ["sum", "min", "max", "mean", "all", "any"])
def test_reductions_all_dtypes(op, d):
    rng = np.random.default_rng(len(op) * 31 + R.DTYPES.index(d))
    t = R.make(values_for_sum(rng, d, (3, 4, 5)), d)
    for axis in (None, 0, 1, -1, (0, 2), (2, 0, 1), ()):
        for keepdim in (False, True):
            check(op, t, d, axis, keepdim)
            if op == "sum":
                check(op, t, d, axis, keepdim, upcast=True)
    check(op, t, d, 1, False, method=True)


@settings(max_examples=150, deadline=None)
@given(op=st.sampled_from(["sum", "min", "max", "mean", "all", "any"]), d=st.sampled_from(R.DTYPES),
       shape=array_shapes(min_dims=0, max_dims=6, min_side=0, max_side=4), data=st.data(),
       seed=st.integers(0, 2 ** 32 - 1))
def test_reductions_strided(op, d, shape, data, seed):
    rng = np.random.default_rng(seed)
    steps = data.draw(st.lists(st.sampled_from([1, 2, -1, -2]), min_size=len(shape), max_size=len(shape)))
    base_shape = tuple(n * abs(s) for n, s in zip(shape, steps))
    base = R.make(values_for_sum(rng, d, base_shape), d)
    idx = tuple(slice(0, m, s) if s > 0 else slice(m - 1 if m else None, None, s) for m, s in zip(base_shape, steps))
    t = base[idx] if idx else base
    nd = len(shape)
    axis = data.draw(st.one_of(st.none(), st.integers(-nd, nd - 1) if nd else st.none(),
                               st.lists(st.integers(0, nd - 1), unique=True, max_size=nd).map(tuple) if nd
                               else st.none()))
    keepdim = data.draw(st.booleans())
    check(op, t, d, axis, keepdim, upcast=data.draw(st.booleans()) if op == "sum" else False)


def test_sum_seed_forms():
    t = R.make(np.full((4, 64), 255, np.uint8), "uint8")
    s = augpy.sum(t)
    assert tuple(s.shape) == () and s.dtype == augpy.uint8 and int(s) == 255
    up = augpy.sum(t, True)
    assert up.dtype == augpy.uint64 and int(up) == 255 * 256
    assert int(augpy.sum(t, upcast=True)) == 255 * 256
    assert int(t.sum(True)) == 255 * 256 and t.sum(upcast=True).dtype == augpy.uint64
    col = augpy.sum(t, 0, upcast=True)
    assert tuple(col.shape) == (64,) and R.read(col).tolist() == [1020] * 64
    assert tuple(augpy.sum(t, 1, True).shape) == (4, 1)  # positional keepdim
    i8 = R.make(np.array([-128, -128, 5], np.int8), "int8")
    assert int(augpy.sum(i8)) == -128 and int(augpy.sum(i8, upcast=True)) == -251
    u64 = R.make(np.array([2 ** 64 - 1, 2 ** 64 - 1], np.uint64), "uint64")
    assert int(augpy.sum(u64)) == 2 ** 64 - 1 and int(augpy.sum(u64, upcast=True)) == 2 ** 64 - 1
    big = R.make(np.array([2 ** 63 - 1, 2 ** 63 - 1], np.int64), "int64")
    assert int(augpy.sum(big)) == 2 ** 63 - 1
    b = R.make(np.array([True, True, False]), "bool")
    assert int(augpy.sum(b, upcast=True)) == 2 and augpy.sum(b).dtype == augpy.bool_


def test_float_sum_is_accurate():
    x = np.random.default_rng(1).standard_normal(1 << 16) * 1e6
    exact = math.fsum(x)
    assert abs(float(augpy.sum(R.make(x, "float64"))) - exact) <= 1e-13 * math.fsum(np.abs(x))
    f = np.full(1 << 20, 0.1, np.float32)
    s = float(augpy.sum(R.make(f, "float32")))
    assert s == float(np.float32(math.fsum(f.astype(np.float64))))
    # the float64 sum rounds to float16 as IEEE does: beyond the range it is inf, as in NumPy
    assert float(augpy.sum(R.make(np.full(100, 1000, np.float16), "float16"))) == math.inf
    with np.errstate(over="ignore"):
        assert np.sum(np.full(100, 1000, np.float16)) == np.inf


def test_float64_sum_beyond_the_range():
    """Float64 partial sums overflow (IEEE, as NumPy): one sign gives inf; the reference
    must not raise (math.fsum does) and leaves order-dependent rows unchecked."""
    fmax = R.FMAX["float64"]
    t = R.make(np.array([[-fmax, -fmax, -1.6, 0.5], [fmax, 1.0, 2.0, -3.0]]), "float64")
    assert R.read(augpy.sum(t, 1)).tolist() == [-math.inf, fmax]
    for op in ("sum", "mean"):
        for axis in (None, 0, 1):
            check(op, t, "float64", axis, False)


def test_out_and_errors():
    t = R.make(np.arange(12, dtype=np.int16).reshape(3, 4), "int16")
    out = augpy.zeros((4,), augpy.int16)
    assert augpy.sum(t, 0, out=out) is out and R.read(out).tolist() == [12, 15, 18, 21]
    out64 = augpy.zeros((3,), augpy.int64)
    assert t.sum(axis=1, upcast=True, out=out64) is out64 and R.read(out64).tolist() == [6, 22, 38]
    assert augpy.max(t, axis=-1, keepdims=True).shape == (3, 1)
    assert augpy.sum(t, 0, num_threads=0).shape == (4,)
    with pytest.raises(ValueError):
        augpy.sum(t, 0, out=augpy.zeros((3,), augpy.int16))
    with pytest.raises((ValueError, IndexError)):
        augpy.sum(t, 2)
    with pytest.raises((ValueError, IndexError)):
        augpy.sum(t, -3)
    with pytest.raises((ValueError, IndexError)):
        augpy.sum(t, 10 ** 30)
    with pytest.raises(ValueError):
        augpy.sum(t, (0, 0))
    with pytest.raises(TypeError):
        augpy.sum(t, "x")
    with pytest.raises(TypeError):
        augpy.sum(t, 1.5)
    with pytest.raises(TypeError):
        augpy.sum(t, True, upcast=True)
    with pytest.raises(TypeError):
        augpy.min(t, True)
    with pytest.raises(TypeError):
        augpy.sum([1, 2])
    with pytest.raises(ValueError):
        augpy.min(R.make(np.zeros((0, 3), np.float32), "float32"))
    assert math.isnan(float(augpy.mean(R.make(np.zeros(0, np.float32), "float32"))))
    assert bool(augpy.all(R.make(np.zeros(0, np.uint8), "uint8")))
    assert not bool(augpy.any(R.make(np.zeros(0, np.uint8), "uint8")))


def test_all_any_mean_values():
    t = R.make(np.array([[0, 1, 2], [3, 4, 5]], np.uint8), "uint8")
    assert augpy.all(t).dtype == augpy.bool_ and tuple(augpy.all(t).shape) == ()
    assert not bool(augpy.all(t)) and bool(augpy.any(t))
    assert R.read(augpy.all(t, 0)).tolist() == [False, True, True]
    assert R.read(t.any(1)).tolist() == [True, True]
    m = augpy.mean(t)
    assert m.dtype == augpy.float64 and float(m) == 2.5
    assert R.read(augpy.mean(t, 1)).tolist() == [1.0, 4.0]
    f = R.make(np.array([1.0, np.nan, 3.0], np.float32), "float32")
    assert math.isnan(float(augpy.max(f))) and math.isnan(float(f.min()))
    assert bool(augpy.all(f))


@pytest.mark.parametrize("d", ["bool", "int8", "uint8"])
def test_sum8_lengths_offsets_strides(d):
    """The 8-bit sums (vector paths on contiguous runs: SSE2, AVX2, AVX-512 with a masked
    tail) against NumPy's exact int64 sum: odd lengths around every vector and chunk
    width, unaligned starts, strided and reversed views, and row sums."""
    rng = np.random.default_rng(8)
    n = 3 * 65536 + 300
    raw = rng.integers(0, 256, n, dtype=np.uint8)
    raw[::7] = 0
    base_np = raw.view(np.int8) if d == "int8" else raw.astype(bool) if d == "bool" else raw
    base = augpy.array_to_tensor(base_np)
    for length in (1, 7, 63, 64, 65, 255, 257, 4095, 4097, 65535, 65537, 2 * 65536 + 129):
        for off in (0, 1, 3, 31, 63):
            want = int(base_np[off:off + length].sum(dtype=np.int64))
            assert int(augpy.sum(base[off:off + length], upcast=True).item()) == want, (d, length, off)
        for step in (2, 3, -1):
            v = base_np[5:5 + length * abs(step)][::step]
            want = int(v.sum(dtype=np.int64))
            got = augpy.sum(base[5:5 + length * abs(step)][::step], upcast=True)
            assert int(got.item()) == want, (d, length, step)
    rows = base_np[1:1 + 47 * 4097].reshape(47, 4097)
    got = R.read(augpy.sum(base[1:1 + 47 * 4097].reshape((47, 4097)), 1, upcast=True))
    np.testing.assert_array_equal(np.asarray(got, dtype=np.int64), rows.sum(axis=1, dtype=np.int64))
