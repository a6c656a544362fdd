"""augpy.math (semantics §8): every DALI math function over every dtype, against NumPy
float64 evaluated on the inputs converted to the compute type, within semantics §8's ulp
bounds (float32 2 ulp, float64 4 ulp, float16/bfloat16 1 ulp after rounding), and
the exact integer functions (abs, pow, min, max, clamp) against exact Python ints."""
import inspect
import math
import pathlib
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import augpy
import augpy.math as am
import opsref as R

FLOAT_FUNCS = {
    "fabs": np.fabs, "floor": np.floor, "ceil": np.ceil, "sqrt": np.sqrt,
    "rsqrt": lambda x: 1.0 / np.sqrt(x), "cbrt": np.cbrt, "exp": np.exp, "log": np.log,
    "log2": np.log2, "log10": np.log10, "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh,
    "tanh": np.tanh, "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
}
FLOAT_BINARY = {"fpow": np.vectorize(R.c_pow), "atan2": np.arctan2}
ULPS = {"float64": 4, "float32": 2, "float16": 1, "bfloat16": 1}
ALL_NAMES = ["abs", "fabs", "floor", "ceil", "pow", "fpow", "min", "max", "clamp", "sqrt", "rsqrt", "cbrt",
             "exp", "log", "log2", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh",
             "cosh", "tanh", "asinh", "acosh", "atanh"]
METHODS = ["abs", "fabs", "floor", "ceil", "pow", "sqrt", "cbrt", "exp", "log", "log2", "log10", "sin", "cos",
           "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh"]


def float_result(*dtypes):
    p = dtypes[0]
    for d in dtypes[1:]:
        p = R.promote(p, d)
    return p if R.kind(p) == "f" else "float32"


def ref_float(fn, values, dtypes, rd):
    """fn in float64 on the operands converted to the compute type, rounded to rd."""
    c = R.float_compute_type(rd, *dtypes)

    def one(*xs):
        args = [np.float64(float(R.to_compute(x, c))) for x in xs]
        with np.errstate(all="ignore"):
            v = float(fn(*args))
        if rd == "float64" or c == "float64":
            return R.narrow(v, rd)  # a float64 result is stored with saturate_cast
        v32 = float(R.round_f32(v))  # a float32 computation overflows to inf (IEEE)
        return v32 if rd == "float32" else R.narrow(v32, rd)
    with np.errstate(all="ignore"):
        return np.vectorize(one, otypes=[object])(*[np.asarray(v, dtype=object) for v in values])


def tensor_and_values(d, seed, shape=(4, 5)):
    t = R.make(R.gen(np.random.default_rng(seed), d, shape), d)
    return t, R.pyvals(R.read(t))


def test_all_names_exist():
    for n in ALL_NAMES:
        assert callable(getattr(am, n)), n
        assert getattr(am, n).__name__ == n
    for n in METHODS:
        assert callable(getattr(augpy.Tensor, n)), n


OPS_H = pathlib.Path(__file__).resolve().parents[2] / "include" / "aug" / "ops.h"


def op_list():
    """(name, arity, PY) of every entry of the C op list AUG_OP_LIST (aug/ops.h)."""
    text = OPS_H.read_text()
    body = text[text.index("#define AUG_OP_LIST(X)"):]
    body = body[:body.index("\n\n")]
    rows = re.findall(r"X\(\s*(\w+)\s*,\s*\"[^\"]*\"\s*,\s*(\d)\s*,\s*(\w+)\s*,\s*\w+\s*,\s*\w+\s*,"
                      r"\s*[01]\s*,\s*(\w+)\s*\)", body)
    assert len(rows) == body.count("X("), "an AUG_OP_LIST row did not parse"
    return [(name, int(arity), py) for _, arity, name, py in rows]


def test_math_exposure_follows_the_c_op_list():
    """augpy.math holds exactly the ops whose PY column is MATH or METHOD, with
    the op's arity and a docstring with a signature; the METHOD ones are Tensor
    methods with the tensor as first operand."""
    ops = op_list()
    exposed = {name: arity for name, arity, py in ops if py in ("MATH", "METHOD")}
    assert set(am.__all__) == set(exposed) == set(ALL_NAMES)
    assert {name for name, _, py in ops if py == "METHOD"} == set(METHODS)
    assert {py for _, _, py in ops} <= {"NONE", "MATH", "METHOD"}
    t = augpy.array_to_tensor(np.array([0.25, 0.5], np.float32))
    for name, arity in exposed.items():
        fn = getattr(am, name)
        assert fn is getattr(augpy._augpy, "_math_" + name)
        params = list(inspect.signature(fn).parameters)
        assert params[-1] == "out" and len(params) == arity + 1, (name, params)
        assert fn.__doc__ and fn.__doc__.strip(), name
        args = [t] * arity
        if name in METHODS:
            method = getattr(augpy.Tensor, name)
            assert list(inspect.signature(method).parameters) == ["self"] + params[1:], name
            assert method.__doc__ == fn.__doc__, name
            np.testing.assert_array_equal(getattr(t, name)(*args[1:]).numpy(), fn(*args).numpy())
        else:
            assert not hasattr(augpy.Tensor, name) or name in ("min", "max"), name  # min/max: reductions


@pytest.mark.parametrize("d", R.DTYPES)
@pytest.mark.parametrize("name", list(FLOAT_FUNCS))
def test_unary_float_functions(name, d):
    t, x = tensor_and_values(d, seed=len(name))
    if d == "bool":  # DALI: math on all-bool inputs is arithmetic on booleans
        with pytest.raises(TypeError, match=f"augpy.math.{name}: Inputs to arithmetic operator `{name}` "
                                            "cannot be booleans"):
            getattr(am, name)(t)
        return
    rd = float_result(d)
    res = getattr(am, name)(t)
    assert R.name_of(res.dtype) == rd
    R.assert_same(R.read(res), ref_float(FLOAT_FUNCS[name], [x], [d], rd), rd, ulps=ULPS[rd],
                  msg=f"math.{name}({d})")
    if name in METHODS:
        R.assert_same(R.read(getattr(t, name)()), R.read(res), rd, msg=f"Tensor.{name}")


@pytest.mark.parametrize("d2", ["uint8", "int32", "float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("d1", R.DTYPES)
@pytest.mark.parametrize("name", list(FLOAT_BINARY))
def test_binary_float_functions(name, d1, d2):
    t1, x1 = tensor_and_values(d1, seed=1, shape=(3, 4))
    t2, x2 = tensor_and_values(d2, seed=2, shape=(4,))
    rd = float_result(d1, d2)
    res = getattr(am, name)(t1, t2)
    assert R.name_of(res.dtype) == rd
    R.assert_same(R.read(res), ref_float(FLOAT_BINARY[name], [x1, x2], [d1, d2], rd), rd, ulps=ULPS[rd],
                  msg=f"math.{name}({d1}, {d2})")


def ulp_error32(y, ref):
    """|y - ref| in float32 ulps at ref (real-valued: a correctly rounded result is <= 0.5);
    ref is float64, and where it or y is not a finite float32 (inf, NaN, beyond the range)
    the error is 0 if y is ref rounded, else inf."""
    y = y.astype(np.float64)
    with np.errstate(all="ignore"):
        r32 = ref.astype(np.float32)
        err = np.abs(y - ref) / np.ldexp(1.0, np.maximum(np.frexp(ref)[1], -125) - 24)
    special = ~np.isfinite(r32) | ~np.isfinite(y)
    same = (y == r32) | (np.isnan(y) & np.isnan(ref))
    return np.where(special, np.where(same, 0.0, np.inf), err)


def test_float32_tan_atan2_pow_round_once():
    """float32 tan, atan2, fpow and ** are the float64 functions rounded once (scalar/math.h),
    so on a GPU they keep semantics §8's 2 ulp whatever CUDA's float versions do (tanf 4 ulp,
    atan2f 3, powf 4): correctly rounded but for the double rounding, here against NumPy's
    float64 on 1 Mi inputs each (the float libraries' versions reach 1.3-1.5 ulp)."""
    rng = np.random.default_rng(26)
    n = 1 << 20
    bits = rng.integers(0, 1 << 32, size=n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    x = np.where(np.arange(n) % 2 == 1, rng.uniform(-20, 20, n).astype(np.float32), bits)
    a = rng.uniform(-4, 4, n).astype(np.float32)
    b = rng.uniform(-4, 4, n).astype(np.float32)
    base = rng.uniform(0, 10, n).astype(np.float32)
    expo = rng.uniform(-30, 30, n).astype(np.float32)
    neg = np.arange(n) % 4 == 1  # negative bases with integer exponents
    base[neg], expo[neg] = -base[neg], np.floor(expo[neg])
    t = lambda v: R.make(v, "float32")  # noqa: E731
    with np.errstate(all="ignore"):
        cases = [("tan", R.read(am.tan(t(x))), np.tan(x.astype(np.float64))),
                 ("atan2", R.read(am.atan2(t(a), t(b))), np.arctan2(a.astype(np.float64), b.astype(np.float64))),
                 ("fpow", R.read(am.fpow(t(base), t(expo))),
                  np.power(base.astype(np.float64), expo.astype(np.float64))),
                 ("**", R.read(t(base) ** t(expo)), np.power(base.astype(np.float64), expo.astype(np.float64)))]
    for name, got, ref in cases:
        err = ulp_error32(got, ref)
        i = int(np.argmax(err))
        assert err[i] <= 0.5 + 2.0 ** -20, f"float32 {name}: {err[i]:.3f} ulp at input {i} ({got[i]!r})"


def test_log_is_natural():
    t = R.make(np.array([1.0, math.e, 10.0], np.float64), "float64")
    np.testing.assert_allclose(R.read(am.log(t)), [0.0, 1.0, math.log(10.0)], rtol=1e-15)
    np.testing.assert_allclose(R.read(am.log10(t)), [0.0, math.log10(math.e), 1.0], rtol=1e-15)


def test_out_of_domain_is_nan():
    t = R.make(np.array([-1.0, 2.0], np.float32), "float32")
    assert np.isnan(R.read(am.sqrt(t))[0]) and np.isnan(R.read(am.log(t))[0])
    assert np.isnan(R.read(am.asin(t))[1]) and np.isnan(R.read(am.atanh(t))[1])
    assert R.read(am.log(R.make(np.zeros(1, np.float32), "float32")))[0] == -np.inf


# ---- exact integer functions: abs, pow, min, max, clamp ----------------------------------

@pytest.mark.parametrize("d", R.DTYPES[1:])
def test_abs(d):
    t, x = tensor_and_values(d, seed=5)
    exp, rd = R.ref_unary("abs", x, d)
    R.assert_same(R.read(am.abs(t)), exp, rd, msg=f"abs({d})")
    R.assert_same(R.read(t.abs()), exp, rd, msg=f"Tensor.abs({d})")


def minmax_ref(name, x, dx, y, dy):
    r = R.promote(dx, dy)
    if R.kind(r) in "iu" or r == "bool":
        f = (lambda u, v: R.int_op(name, u, v, r)) if r != "bool" else \
            (lambda u, v: bool(min(u, v) if name == "min" else max(u, v)))
        return np.vectorize(f, otypes=[object])(np.asarray(x, dtype=object), np.asarray(y, dtype=object)), r
    c = R.float_compute_type(r, dx, dy)
    return np.vectorize(lambda u, v: R.narrow(R.float_op(name, R.to_compute(u, c), R.to_compute(v, c)), r),
                        otypes=[object])(np.asarray(x, dtype=object), np.asarray(y, dtype=object)), r


@pytest.mark.parametrize("d2", R.DTYPES)
@pytest.mark.parametrize("d1", R.DTYPES)
def test_min_max_pow(d1, d2):
    t1, x1 = tensor_and_values(d1, seed=8, shape=(3, 4))
    t2, x2 = tensor_and_values(d2, seed=9, shape=(4,))
    for name in ("min", "max"):
        if d1 == d2 == "bool":  # DALI: arithmetic on booleans (issue 11)
            with pytest.raises(TypeError, match=f"Inputs to arithmetic operator `{name}` cannot be booleans"):
                getattr(am, name)(t1, t2)
            continue
        exp, rd = minmax_ref(name, x1, d1, x2, d2)
        res = getattr(am, name)(t1, t2)
        assert R.name_of(res.dtype) == rd
        R.assert_same(R.read(res), exp, rd, msg=f"{name}({d1}, {d2})")
    try:
        exp, rd = R.ref_binary("**", x1, d1, x2, d2)
    except TypeError:
        with pytest.raises(TypeError):
            am.pow(t1, t2)
        return
    R.assert_same(R.read(am.pow(t1, t2)), exp, rd, ulps=ULPS.get(rd, 0), msg=f"pow({d1}, {d2})")


def test_integer_pow_examples():
    b = R.make(np.array([1, 2, 0, -1, -2, 3, 2], np.int32), "int32")
    e = R.make(np.array([-1, -1, -1, -3, -1, 40, 31], np.int32), "int32")
    assert R.read(am.pow(b, e)).tolist() == [1, 0, 2 ** 31 - 1, -1, 0, 2 ** 31 - 1, 2 ** 31 - 1]
    assert R.read(b ** 2).tolist() == [1, 4, 0, 1, 4, 9, 4]


@settings(max_examples=120, deadline=None)
@given(dv=st.sampled_from(R.DTYPES[1:]), dl=st.sampled_from(R.DTYPES[1:]), dh=st.sampled_from(R.DTYPES[1:]),
       seed=st.integers(0, 2 ** 32 - 1))
def test_clamp(dv, dl, dh, seed):
    rng = np.random.default_rng(seed)
    tv = R.make(R.gen(rng, dv, (2, 3)), dv)
    tl = R.make(R.gen(rng, dl, (3,)), dl)
    th = R.make(R.gen(rng, dh, (2, 1)), dh)
    xv, xl, xh = (R.pyvals(R.read(t)) for t in (tv, tl, th))
    r = R.promote(R.promote(dv, dl), dh)
    if R.kind(r) in "iu":
        f = lambda v, lo, hi: R.sat_cast(min(max(int(v), int(lo)), int(hi)), r)  # noqa: E731
    else:
        c = R.float_compute_type(r, dv, dl, dh)  # an int32/int64 bound is not rounded to float32 first

        def f(v, lo, hi):
            m = R.float_op("max", R.to_compute(v, c), R.to_compute(lo, c))
            return R.narrow(R.float_op("min", m, R.to_compute(hi, c)), r)
    exp = np.vectorize(f, otypes=[object])(*(np.asarray(a, dtype=object) for a in (xv, xl, xh)))
    res = am.clamp(tv, tl, th)
    assert R.name_of(res.dtype) == r and tuple(res.shape) == (2, 3)
    R.assert_same(R.read(res), exp, r, msg=f"clamp({dv}, {dl}, {dh})")


def test_clamp_scalars_and_inverted_bounds():
    t = R.make(np.array([0, 5, 10, 200], np.uint8), "uint8")
    assert R.read(am.clamp(t, 3, 100)).tolist() == [3, 5, 10, 100]
    assert R.read(am.clamp(t, 100, 3)).tolist() == [3, 3, 3, 3]
    assert am.clamp(t, 3, 100).dtype == augpy.uint8
    assert R.read(am.min(t, 7)).tolist() == [0, 5, 7, 7]
    assert R.read(am.max(300, t)).tolist() == [255] * 4
    f = R.make(np.array([np.nan, 1.0], np.float32), "float32")
    assert np.isnan(R.read(am.min(f, 0.0))[0]) and np.isnan(R.read(am.max(0.0, f))[0])


def test_clamp_rounds_a_wide_integer_once():
    """int32 2**30 + 2**22 + 1 into bfloat16 (semantics §2): one rounding gives 2**30 + 2**23;
    through float32 it would first become the tie 2**30 + 2**22 and then 2**30."""
    v = R.make(np.array([2 ** 30 + 2 ** 22 + 1, 2 ** 30 + 2 ** 22 + 1], np.int32), "int32")
    lo = R.make(np.array([-1e30, 2 ** 31], np.float32), "bfloat16")
    hi = R.make(np.array([1e30, 1e30], np.float32), "bfloat16")
    res = am.clamp(v, lo, hi)
    assert res.dtype == augpy.bfloat16
    assert R.read(res).tolist() == [2 ** 30 + 2 ** 23, 2 ** 31]
    assert R.read(am.max(lo, v)).tolist() == [2 ** 30 + 2 ** 23, 2 ** 31]


def test_scalar_operands_and_keywords():
    t = R.make(np.array([1.0, 4.0], np.float32), "float32")
    assert R.read(am.pow(2, t)).tolist() == [2.0, 16.0]
    assert R.read(am.pow(base=t, exponent=2)).tolist() == [1.0, 16.0]
    assert R.read(am.sqrt(input=t)).tolist() == [1.0, 2.0]
    assert R.read(am.atan2(t, 0.0)).tolist() == pytest.approx([math.pi / 2] * 2)
    assert R.read(t.pow(2)).tolist() == [1.0, 16.0]
    assert R.read(t.atan2(t)).tolist() == pytest.approx([math.pi / 4] * 2)
    assert R.read(am.fpow(R.make(np.array([2], np.uint8), "uint8"), -1)).tolist() == [0.5]
    assert am.fpow(R.make(np.array([2], np.uint8), "uint8"), 2).dtype == augpy.float32


def test_out_argument():
    t = R.make(np.array([1, 4, 9, 250], np.uint8), "uint8")
    out = R.make(np.zeros(4, np.uint8), "uint8")
    r = am.sqrt(t, out=out)
    assert r is out
    assert R.read(out).tolist() == [1, 2, 3, 16]
    o16 = R.make(np.zeros(4, np.int16), "int16")
    assert am.max(t, 3, out=o16) is o16
    assert R.read(o16).tolist() == [3, 4, 9, 250]
    t2 = R.make(np.array([0.25, 4.0], np.float32), "float32")
    assert t2.sqrt(out=t2) is t2 and R.read(t2).tolist() == [0.5, 2.0]
    with pytest.raises(ValueError):
        am.sqrt(t, out=R.make(np.zeros(3, np.float32), "float32"))
    with pytest.raises(TypeError):
        am.sqrt(t, out=np.zeros(4))


def test_bad_arguments():
    t = R.make(np.array([1.0], np.float32), "float32")
    with pytest.raises(TypeError, match="augpy.math.sqrt"):
        am.sqrt("x")
    with pytest.raises(TypeError, match="at least one argument must be a Tensor"):
        am.min(1, 2)
    with pytest.raises(TypeError):
        am.sqrt()
    with pytest.raises(TypeError, match="positional"):
        am.sqrt(t, t, t)
    with pytest.raises(TypeError, match="unexpected keyword"):
        am.sqrt(t, bogus=1)
    with pytest.raises(TypeError):
        am.clamp(t, 1)
