"""Regressions from comparing augpy with NVIDIA DALI (issue 11, "Wrong results").

1. A float result rounds to its dtype as IEEE does (overflow -> +-inf) whatever wider
   type computed it; only explicit conversions (cast, copy, an out= of another dtype)
   saturate finite values (semantics §2, §7, §10).
2. Float `//` and `%` are NumPy's floor_divide / remainder in the result dtype for
   every integer operand width (oracle: NumPy itself).
3. Bitwise ops and shifts act on the exact operand values (infinitely sign-extended
   two's complement), then saturate (oracle: Python ints).
4. min, max and clamp refuse all-bool inputs with DALI's wording.
Each runs in the session's device (CPU, or the emulated CUDA device).
"""
import math
import pathlib

import numpy as np
import pytest

import augpy
import augpy.math as am
import opsref as R

INTS = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]
FLT_MAX = float(np.finfo(np.float32).max)


def one(value, d):
    return R.make(np.array([value]), d)


def val(t):
    return R.read(t).reshape(-1)[0]



# ---- DALI's own results, recorded (data/record_dali_overflow.py; DALI 2.4 CPU operators) ----

DALI_BINARY = {"mul": lambda a, b: a * b, "truediv": lambda a, b: a / b, "add": lambda a, b: a + b,
               "sub": lambda a, b: a - b, "pow": am.pow, "fpow": am.fpow}
DALI_UNARY = {"exp": am.exp, "sinh": am.sinh, "cosh": am.cosh}
EXACT_OPS = {"mul", "truediv", "add", "sub"}


def test_matches_dali_recorded():
    """augpy against DALI's recorded outputs for float results that overflow: the same dtype,
    inf where DALI gives inf, the same value for + - * / and within 2 ulp for the math functions."""
    rec = np.load(pathlib.Path(__file__).parent / "data" / "dali_overflow.npz")
    n_inf = 0
    for i in range(int(rec["n"])):
        op, a = str(rec[f"c{i}_op"]), rec[f"c{i}_a"]
        want = rec[f"c{i}_r"]
        if op in DALI_BINARY:
            b = rec[f"c{i}_b"]
            got = R.read(DALI_BINARY[op](R.make(a, a.dtype.name), R.make(b, b.dtype.name)))
        else:
            got = R.read(DALI_UNARY[op](R.make(a, a.dtype.name)))
        what = f"case {i}: {op} {a.dtype} {a.tolist()} " + (f"{rec[f'c{i}_b'].dtype}" if op in DALI_BINARY else "")
        assert got.dtype == want.dtype, what
        assert np.array_equal(np.isinf(got), np.isinf(want)) and np.array_equal(got[np.isinf(got)],
                                                                              want[np.isinf(want)]), (what, got, want)
        n_inf += int(np.isinf(want).sum())
        fin = np.isfinite(want)
        if op in EXACT_OPS:
            np.testing.assert_array_equal(got[fin], want[fin], err_msg=what)
        else:
            np.testing.assert_array_max_ulp(got[fin], want[fin], maxulp=2)
    assert n_inf > 40  # the recording does exercise overflow


# ---- 1. float results round as IEEE does -------------------------------------------------

@pytest.mark.parametrize("d", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"])
def test_float32_times_int_overflows_to_inf(d):
    # float32 * int16 ran in float32, float32 * int32 in float64: both give inf now
    x = one(3e38, "float32")
    r = x * one(3, d)
    assert r.dtype == augpy.float32 and val(r) == math.inf
    assert val(-x * one(3, d)) == -math.inf
    assert val(x * augpy.Constant(3, R.adtype(d))) == math.inf  # a typed constant


@pytest.mark.parametrize("d", ["int16", "int32", "int64", "uint32", "uint64"])
def test_math_functions_overflow_to_inf(d):
    x = one(100, d)
    for f in (am.exp, am.sinh, am.cosh):
        r = f(x)
        assert r.dtype == augpy.float32 and val(r) == math.inf, (f.__name__, d)
    if d[0] == "i":
        assert val(am.sinh(one(-100, d))) == -math.inf
    assert val(am.fpow(one(10, d), one(39, d))) == math.inf


@pytest.mark.parametrize("d", ["int32", "int64", "uint32"])
def test_division_and_powers_overflow_to_inf(d):
    big, tiny = one(2 ** 31 - 1, d), one(1e-38, "float32")
    assert val(big / tiny) == math.inf
    assert val(big // tiny) == math.inf
    assert val(one(10.0, "float32") ** one(39, d)) == math.inf
    assert val(am.pow(one(10.0, "float32"), one(39, d))) == math.inf


def test_narrow_float_results_overflow_to_inf():
    h = one(60000, "float16")
    assert val(h * 2) == math.inf and val(h + h) == math.inf                 # computed in float32
    assert val(h * one(2, "int32")) == math.inf                              # computed in float64
    assert val(augpy.fma(1000.0, one(100, "float16"), one(0, "float16"))) == math.inf
    b = one(3e38, "bfloat16")
    assert val(b * 2) == math.inf and val(b * one(2, "int64")) == math.inf
    assert val(am.exp(one(20, "float16"))) == math.inf
    with np.errstate(over="ignore"):
        assert np.float16(60000) * np.float16(2) == np.inf  # NumPy agrees


def test_float_sums_overflow_to_inf():
    t = R.make(np.array([3e38, 3e38], np.float32), "float32")
    assert val(augpy.sum(t)) == math.inf
    assert val(augpy.mean(t)) == np.float32(3e38)
    h = R.make(np.full(100, 1000, np.float16), "float16")
    assert val(augpy.sum(h)) == math.inf


def test_explicit_conversions_still_saturate():
    d = R.make(np.array([1e39, -1e39], np.float64), "float64")
    assert R.read(augpy.cast(d, augpy.float32)).tolist() == [FLT_MAX, -FLT_MAX]
    dst = R.make(np.zeros(2, np.float32), "float32")
    augpy.copy(d, dst)
    assert R.read(dst).tolist() == [FLT_MAX, -FLT_MAX]
    # an out= of another dtype receives the value in the compute type, saturated
    out = R.make(np.zeros(1, np.float16), "float16")
    am.exp(one(100, "int32"), out=out)
    assert val(out) == 65504.0
    t = R.make(np.array([3e38, 3e38], np.float32), "float32")
    o16 = R.make(np.zeros((), np.float16), "float16")
    augpy.sum(t, out=o16)
    assert float(R.read(o16)) == 65504.0
    # in place into another dtype is a conversion too
    h = R.make(np.array([60000.0], np.float16), "float16")
    h *= one(2.0, "float32")  # result float32 (120000), stored into float16
    assert val(h) == 65504.0


# ---- 2. float floor division and remainder: NumPy in the result type ------------------------

EDGE_F = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 0.001, -0.001, 0.1, -0.1, 3.0, -3.0,
          1e-30, -1e-30, 1e-42, 2.5, 7.0, 1e30, -1e30, 65504.0, 3e38, 1e300]


def int_values(d, rng, n):
    if d == "bool":
        return np.array([0, 1] * (n // 2), bool)
    lo, hi = R.limits(d)
    edge = [v for v in (0, 1, -1, 5, 255, 65535, lo, hi, lo + 1, hi - 1, 2 ** 31, 2 ** 24 + 1) if lo <= v <= hi]
    rest = [int(v) for v in rng.integers(lo, hi, size=n - len(edge), endpoint=True, dtype=np.dtype(d))]
    return np.array(edge + rest, dtype=d)


def float_values(d, rng, n):
    npd = np.float32 if d == "bfloat16" else np.dtype(d).type
    with np.errstate(over="ignore"):
        edge = [npd(v) for v in EDGE_F]
        mags = 10.0 ** rng.uniform(-6, 6, size=n - len(edge)) * rng.choice([-1, 1], size=n - len(edge))
        vals = np.array(edge + [npd(v) for v in mags], dtype=npd)
    if d == "bfloat16":
        vals = R.bf16_round(vals)  # exact bfloat16 values (as float32)
    return vals


def numpy_floordiv_mod(op, a, b, r):
    """np.floor_divide / np.remainder of a and b (NumPy arrays) in result dtype r, the
    operands converted to r first (bfloat16: computed in float32 and rounded, as the
    float16 loops of NumPy do)."""
    fn = np.floor_divide if op == "//" else np.remainder
    with np.errstate(all="ignore"):
        if r == "bfloat16":
            ab = np.array([R.narrow(v, "bfloat16") for v in a.tolist()], np.float32)
            bb = np.array([R.narrow(v, "bfloat16") for v in b.tolist()], np.float32)
            res = fn(ab, bb)
            return np.array([R.narrow(float(v), "bfloat16") for v in res], np.float32)
        return fn(a.astype(r), b.astype(r))


def same_floats(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    ok = (got == want) & (np.signbit(got) == np.signbit(want)) | (np.isnan(got) & np.isnan(want))
    return ok


@pytest.mark.parametrize("op", ["//", "%"])
@pytest.mark.parametrize("fd", FLOATS)
@pytest.mark.parametrize("idt", INTS)
def test_float_floordiv_mod_match_numpy_for_every_int_width(op, fd, idt):
    rng = np.random.default_rng(hash((op, fd, idt)) % 2 ** 32)
    n = 64
    iv, fv = int_values(idt, rng, n), float_values(fd, rng, n)
    ti, tf = R.make(iv, idt), R.make(fv, fd)
    # every pairing: broadcast (n, 1) against (1, n)
    for (a, ta), (b, tb) in (((iv, ti), (fv, tf)), ((fv, tf), (iv, ti))):
        A, B = np.broadcast_arrays(a.reshape(-1, 1), b.reshape(1, -1))
        res = (ta.reshape((n, 1)) // tb.reshape((1, n))) if op == "//" else (ta.reshape((n, 1)) % tb.reshape((1, n)))
        assert R.name_of(res.dtype) == fd
        want = numpy_floordiv_mod(op, A.reshape(-1), B.reshape(-1), fd).reshape(n, n)
        ok = same_floats(R.read(res), want)
        bad = np.argwhere(~ok)[:5]
        assert ok.all(), [(A[tuple(i)], B[tuple(i)], R.read(res)[tuple(i)], want[tuple(i)]) for i in bad]


@pytest.mark.parametrize("op", ["//", "%"])
@pytest.mark.parametrize("db", FLOATS)
@pytest.mark.parametrize("da", FLOATS)
def test_float_floordiv_mod_match_numpy_for_float_pairs(op, da, db):
    rng = np.random.default_rng(hash((op, da, db)) % 2 ** 32)
    n = 48
    a, b = float_values(da, rng, n), float_values(db, rng, n)
    ta, tb = R.make(a, da), R.make(b, db)
    res = (ta.reshape((n, 1)) // tb.reshape((1, n))) if op == "//" else (ta.reshape((n, 1)) % tb.reshape((1, n)))
    r = R.name_of(res.dtype)
    assert r == R.promote(da, db)
    A, B = np.broadcast_arrays(a.reshape(-1, 1), b.reshape(1, -1))
    want = numpy_floordiv_mod(op, A.reshape(-1), B.reshape(-1), r).reshape(n, n)
    ok = same_floats(R.read(res), want)
    bad = np.argwhere(~ok)[:5]
    assert ok.all(), [(A[tuple(i)], B[tuple(i)], R.read(res)[tuple(i)], want[tuple(i)]) for i in bad]


def test_floordiv_issue_examples():
    f = one(0.001, "float32")
    for d in ("uint8", "uint16", "uint32", "uint64", "int32", "int64"):
        assert val(one(5, d) // f) == 4999.0, d  # the floor of the exact quotient 4999.99989...
        assert val(one(5, d) % f) == np.remainder(np.float32(5), np.float32(0.001)), d
    assert np.floor_divide(np.float32(5), np.float32(0.001)) == 4999.0
    x = one(2.0 ** 31, "float32")
    for d in ("int16", "int32", "int64", "uint8"):
        assert val(x // one(255, d)) == np.floor_divide(np.float32(2 ** 31), np.float32(255)) == 8421504.0, d
    assert val(one(1.0, "float64") // 0.1) == 9.0  # Python and NumPy: 1.0 // 0.1 == 9.0
    assert val(one(5, "uint32") // augpy.Constant(0.001, augpy.float32)) == 4999.0


# ---- 3. bitwise ops and shifts on exact values ----------------------------------------------

def int_edges(d):
    if d == "bool":
        return [0, 1]
    lo, hi = R.limits(d)
    return sorted({v for v in (lo, lo + 1, -129, -128, -2, -1, 0, 1, 2, 7, 63, 64, 127, 128, 255, 300,
                               2 ** 31, 2 ** 62, 2 ** 63 - 1, 2 ** 63, hi - 1, hi) if lo <= v <= hi})


def exact_ref(op, x, y, r):
    x, y = int(x), int(y)
    if op == "&":
        v = x & y
    elif op == "|":
        v = x | y
    elif op == "^":
        v = x ^ y
    else:  # x * 2**k, floor for >>; a negative count shifts the other way
        k = y if op == "<<" else -y
        v = (x << min(k, 200) if x else 0) if k >= 0 else x >> min(-k, 200)
    if r == "bool":
        return bool(v)
    lo, hi = R.limits(r)
    return min(hi, max(lo, v))


@pytest.mark.parametrize("op", ["&", "|", "^", "<<", ">>"])
@pytest.mark.parametrize("db", INTS)
@pytest.mark.parametrize("da", INTS)
def test_bitwise_on_exact_values(op, da, db):
    if op in ("<<", ">>") and da == db == "bool":
        return  # refused (DALI)
    a, b = int_edges(da), int_edges(db)
    ta, tb = R.make(np.array(a, da), da), R.make(np.array(b, db), db)
    res = {"&": lambda x, y: x & y, "|": lambda x, y: x | y, "^": lambda x, y: x ^ y,
           "<<": lambda x, y: x << y, ">>": lambda x, y: x >> y}[op](ta.reshape((len(a), 1)),
                                                                   tb.reshape((1, len(b))))
    r = R.name_of(res.dtype)
    assert r == R.promote(da, db)
    got = R.read(res)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            want = exact_ref(op, x, y, r)
            assert int(got[i, j]) == int(want), f"{da}({x}) {op} {db}({y}) = {got[i, j]}, want {want} ({r})"


@pytest.mark.parametrize("k", [-70, -64, -63, -1, 0, 1, 2, 62, 63, 64, 100])
@pytest.mark.parametrize("op", ["<<", ">>"])
def test_shift_by_one_count_on_exact_values(op, k):
    # a uint64 tensor beyond int64 with a typed int8 / int16 count: int64 result, computed on
    # the exact values (the broadcast-count loops)
    x = [0, 1, 5, 2 ** 62, 2 ** 63 - 1, 2 ** 63, 2 ** 63 + 12345, 2 ** 64 - 1] * 9
    t = R.make(np.array(x, np.uint64), "uint64")
    cd = "int8" if -128 <= k <= 127 else "int16"
    res = (t << augpy.Constant(k, R.adtype(cd))) if op == "<<" else (t >> augpy.Constant(k, R.adtype(cd)))
    assert res.dtype == augpy.int64
    assert [int(v) for v in R.read(res)] == [exact_ref(op, v, k, "int64") for v in x]


def test_bitwise_issue_examples():
    m, u = one(-128, "int8"), R.make(np.array([2 ** 63], np.uint64), "uint64")
    r = m & u
    assert r.dtype == augpy.int64 and val(r) == 2 ** 63 - 1  # exact 2^63, saturated
    assert val(u >> one(1, "int8")) == 2 ** 62                # exact 2^62 fits
    u8 = R.make(np.array([0, 7, 200, 255], np.uint8), "uint8")
    assert R.read(u8 & 300).tolist() == [0, 7 & 300, 200 & 300, 255 & 300]  # 300 = 0b100101100
    assert R.read(u8 & -1).tolist() == [0, 7, 200, 255]
    assert R.read(u8 | -256).tolist() == [0, 0, 0, 0]  # negative: saturates to 0
    assert R.read(u8 ^ 256).tolist() == [255] * 4      # exact 256 + x saturates


# ---- 4. min, max and clamp refuse all-bool inputs ---------------------------------------------

def test_min_max_clamp_refuse_booleans():
    b = R.make(np.array([True, False]), "bool")
    for name in ("min", "max"):
        with pytest.raises(TypeError, match=f"Inputs to arithmetic operator `{name}` cannot be booleans."):
            getattr(am, name)(b, b)
        with pytest.raises(TypeError, match="cannot be booleans"):
            getattr(am, name)(b, True)
    with pytest.raises(TypeError, match="Inputs to arithmetic operator `clamp` cannot be booleans."):
        am.clamp(b, b, b)
    # a non-bool operand promotes as before
    assert am.max(b, 1).dtype == augpy.int32
    assert R.read(am.clamp(b, one(0, "uint8"), one(1, "uint8"))).tolist() == [1, 0]
