"""Operators with Python scalars (weak, semantics §6), augpy.Constant (typed), NumPy
arrays, reflected forms (5 - t) and the in-place operators (semantics §7), against opsref."""
import operator
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import augpy
import opsref as R

OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
       "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "&": operator.and_,
       "|": operator.or_, "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift,
       "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
       ">": operator.gt, ">=": operator.ge}
INPLACE = {"+": operator.iadd, "-": operator.isub, "*": operator.imul, "/": operator.itruediv,
           "//": operator.ifloordiv, "%": operator.imod, "**": operator.ipow, "&": operator.iand,
           "|": operator.ior, "^": operator.ixor, "<<": operator.ilshift, ">>": operator.irshift}


def scalars_for(d, op):
    """Scalars whose conversion to the compute type is unambiguous for dtype d."""
    if op in ("<<", ">>"):
        return [0, 1, 3, 8, 63, 64, 100]
    if R.kind(d) == "f":
        return [0, 1, 5, -3, 100, -100, True, False, 0.5, 2.5, -1.5, 0.25, 0.0]
    return [0, 1, 5, -1, 7, 300, -300, 2 ** 31, 2 ** 63 - 1, -2 ** 63, 2 ** 64 - 1, True, False,
            0.5, 2.5, -1.5, 1024.25, 3e9, 0.0]


def tensor_of(d, seed=0, shape=(4, 3)):
    return R.make(R.gen(np.random.default_rng(seed), d, shape), d)


def expect(op, t, d, s, reflected):
    x = R.pyvals(R.read(t))
    if reflected:
        return R.ref_binary(op, s, None, x, d, weak_a=True)
    return R.ref_binary(op, x, d, s, None, weak_b=True)


def check(op, t, d, s, reflected):
    msg = f"{s!r} {op} {d}" if reflected else f"{d} {op} {s!r}"
    if op in ("<<", ">>") and (reflected or d == "bool"):
        return
    fn = (lambda: OPS[op](s, t)) if reflected else (lambda: OPS[op](t, s))
    try:
        exp, rd = expect(op, t, d, s, reflected)
    except TypeError as e:
        with pytest.raises(TypeError, match=re.escape(str(e))):
            fn()
        return
    res = fn()
    assert R.name_of(res.dtype) == rd, f"{msg}: dtype {R.name_of(res.dtype)} != {rd}"
    ulps = {"float64": 4, "float32": 2}.get(rd, 1) if op == "**" and R.kind(rd) == "f" else 0
    R.assert_same(R.read(res), exp, rd, ulps=ulps, msg=msg)


@pytest.mark.parametrize("d", R.DTYPES)
@pytest.mark.parametrize("op", list(OPS))
def test_weak_scalars(op, d):
    t = tensor_of(d, seed=len(op))
    failures = []
    for s in scalars_for(d, op):
        for reflected in (False, True):
            try:
                check(op, t, d, s, reflected)
            except AssertionError as e:
                failures.append(str(e))
    assert not failures, "\n".join(failures)


def test_seed_examples():
    t = R.make(np.full((2, 2, 4), 3, np.uint8), "uint8")
    assert R.read(5 - t).tolist() == np.full((2, 2, 4), 2).tolist()
    assert (5 - t).dtype == augpy.uint8
    t = R.make(np.full((2, 2, 4), 40, np.uint8), "uint8")
    assert R.read(0 - t).tolist() == np.zeros((2, 2, 4)).tolist()
    u = R.make(np.array([250, 3], np.uint8), "uint8")
    assert R.read(u + 300).tolist() == [255, 255]
    assert (u + 300).dtype == augpy.uint8
    assert R.read(u - 300).tolist() == [0, 0]


def test_weak_scalar_types():
    b = R.make(np.array([True, False]), "bool")
    assert (b + 1).dtype == augpy.int32
    assert (b + 1.5).dtype == augpy.float32
    assert (R.make(np.ones(2, np.int16), "int16") + 0.5).dtype == augpy.float32
    assert (R.make(np.ones(2, np.float16), "float16") + 0.5).dtype == augpy.float16
    assert (R.make(np.ones(2, np.float16), "float16") + 7).dtype == augpy.float16
    assert (R.make(np.ones(2, np.int8), "int8") * True).dtype == augpy.int8
    assert (R.make(np.ones(2, np.int8), "int8") / 2).dtype == augpy.float32


def test_exact_int_scalars():
    t = R.make(np.array([-2 ** 63, -1, 0, 2 ** 63 - 1], np.int64), "int64")
    assert R.read(t < 2 ** 64 - 1).tolist() == [True] * 4
    assert R.read(t + (2 ** 64 - 1)).tolist() == [2 ** 63 - 1] * 4
    assert R.read(t - (2 ** 64 - 1)).tolist() == [-2 ** 63] * 4
    assert R.read(t == 2 ** 63 - 1).tolist() == [False, False, False, True]
    u = R.make(np.array([0, 2 ** 64 - 1], np.uint64), "uint64")
    assert R.read(u > -1).tolist() == [True, True]
    assert R.read(u - (2 ** 64 - 1)).tolist() == [0, 0]
    with pytest.raises(OverflowError):
        t + 2 ** 64
    with pytest.raises(OverflowError):
        t + (-2 ** 63 - 1)


# ---- augpy.Constant ----------------------------------------------------------------------

@pytest.mark.parametrize("cd,value", [("int16", 5), ("int16", 100000), ("uint8", 300), ("float32", 2.5),
                                      ("float64", -1.5), ("int8", -3), ("bool", 1), ("uint64", 2 ** 64 - 1),
                                      ("float16", 0.1), ("bfloat16", 1.3)])
@pytest.mark.parametrize("d", ["uint8", "int8", "int32", "float16", "float32", "bool"])
def test_constant(d, cd, value):
    c = augpy.Constant(value, R.adtype(cd))
    assert c.dtype == R.adtype(cd)
    cv = R.sat_cast(value, cd)
    cv = int(cv) if R.kind(cd) != "f" else float(cv)
    assert c.item() == cv
    t = tensor_of(d, seed=11)
    x = R.pyvals(R.read(t))
    for op in ("+", "-", "*", "<", "==", "&"):
        try:
            exp, rd = R.ref_binary(op, x, d, cv, cd)
        except TypeError as e:
            with pytest.raises(TypeError, match=re.escape(str(e))):
                OPS[op](t, c)
            continue
        res = OPS[op](t, c)
        assert R.name_of(res.dtype) == rd, f"{d} {op} Constant({value}, {cd})"
        R.assert_same(R.read(res), exp, rd, msg=f"{d} {op} Constant({value}, {cd})")
        exp, rd = R.ref_binary(op, cv, cd, x, d)
        R.assert_same(R.read(OPS[op](c, t)), exp, rd, msg=f"Constant({value}, {cd}) {op} {d}")


def test_constant_defaults_and_repr():
    assert augpy.Constant(5).dtype == augpy.int32
    assert augpy.Constant(2 ** 40).dtype == augpy.int64
    assert augpy.Constant(2 ** 64 - 1).dtype == augpy.uint64
    assert augpy.Constant(0.5).dtype == augpy.float32
    assert augpy.Constant(True).dtype == augpy.bool_
    assert augpy.Constant(np.int16(3)).dtype == augpy.int16
    c = augpy.Constant(300, augpy.uint8)
    assert c.value == 300 and c.item() == 255
    assert "255" in repr(c) and "uint8" in repr(c)
    assert augpy.Constant(10 ** 30, augpy.int8).item() == 127
    assert augpy.Constant(-10 ** 30, augpy.uint16).item() == 0
    assert augpy.Constant(10 ** 30, augpy.float64).item() == 1e30
    with pytest.raises(OverflowError):
        augpy.Constant(10 ** 30)
    with pytest.raises(TypeError):
        augpy.Constant("x", augpy.uint8)
    with pytest.raises(TypeError):
        augpy.Constant(1, "not a dtype")


# ---- NumPy arrays as operands --------------------------------------------------------

def test_numpy_operand():
    t = R.make(np.array([[1, 2, 3], [250, 251, 252]], np.uint8), "uint8")
    a = np.array([10, 20, 30], np.uint8)
    r = t + a
    assert isinstance(r, augpy.Tensor)
    assert R.read(r).tolist() == [[11, 22, 33], [255, 255, 255]]
    assert R.read(t == np.array([1, 0, 3], np.int64)).tolist() == [[True, False, True], [False] * 3]
    assert R.read(t - np.float32(1.5)).dtype == np.float32


def test_numpy_on_the_left():
    t = R.make(np.array([250, 5], np.uint8), "uint8")
    r = np.array([10, 10], np.uint8) + t
    assert isinstance(r, augpy.Tensor) and R.read(r).tolist() == [255, 15]
    r = np.uint8(3) - t
    assert isinstance(r, augpy.Tensor) and R.read(r).tolist() == [0, 0]


def test_unsupported_operands():
    t = R.make(np.ones(3, np.uint8), "uint8")
    for bad in ("a", None, b"ab", object(), {1: 2}):
        with pytest.raises(TypeError):
            t + bad
        with pytest.raises(TypeError):
            bad - t
    assert (t == "a") is False
    assert (t != None) is True  # noqa: E711
    with pytest.raises(TypeError):
        pow(t, 2, 5)


# ---- in-place ------------------------------------------------------------------------

@pytest.mark.parametrize("d", R.DTYPES)
@pytest.mark.parametrize("op", list(INPLACE))
def test_inplace_scalar(op, d):
    failures = []
    for s in scalars_for(d, op):
        if op in ("<<", ">>") and d == "bool":
            continue
        t = tensor_of(d, seed=3)
        x = R.pyvals(R.read(t))
        try:
            stored, _ = R.ref_binary(op, x, d, s, None, weak_b=True, store=d)
        except TypeError as e:
            with pytest.raises(TypeError, match=re.escape(str(e))):
                INPLACE[op](t, s)
            continue
        before = t
        t = INPLACE[op](t, s)
        assert t is before
        try:
            ulps = 2 if op == "**" and R.kind(d) == "f" else 0
            R.assert_same(R.read(t), stored, d, ulps=ulps, msg=f"{d} {op}= {s!r}")
        except AssertionError as e:
            failures.append(str(e))
    assert not failures, "\n".join(failures)


@settings(max_examples=150, deadline=None)
@given(op=st.sampled_from(["+", "-", "*", "/", "//", "%", "&", "|", "^"]), d=st.sampled_from(R.DTYPES),
       e=st.sampled_from(R.DTYPES), seed=st.integers(0, 2 ** 32 - 1))
def test_inplace_tensor(op, d, e, seed):
    rng = np.random.default_rng(seed)
    t = R.make(R.gen(rng, d, (3, 4)), d)
    o = R.make(R.gen(rng, e, (4,)), e)
    x, y = R.pyvals(R.read(t)), R.pyvals(R.read(o))
    try:
        stored, _ = R.ref_binary(op, x, d, y, e, store=d)
    except TypeError as err:
        with pytest.raises(TypeError, match=re.escape(str(err))):
            INPLACE[op](t, o)
        return
    INPLACE[op](t, o)
    R.assert_same(R.read(t), stored, d, msg=f"{d} {op}= {e}")


def test_inplace_rounds_half_to_even():
    t = R.make(np.array([18, 19, 0, 254, 255], np.uint8), "uint8")
    t += 0.5
    assert R.read(t).tolist() == [18, 20, 0, 254, 255]
    t = R.make(np.array([-3, 3], np.int8), "int8")
    t *= 0.5
    assert R.read(t).tolist() == [-2, 2]
    t = R.make(np.array([7], np.uint8), "uint8")
    t /= 2
    assert R.read(t).tolist() == [4]


def test_inplace_broadcast_rules():
    t = R.make(np.zeros((2, 3), np.uint8), "uint8")
    t += R.make(np.array([1, 2, 3], np.uint8), "uint8")
    assert R.read(t).tolist() == [[1, 2, 3], [1, 2, 3]]
    small = R.make(np.zeros(3, np.uint8), "uint8")
    with pytest.raises(ValueError):
        small += R.make(np.zeros((2, 3), np.uint8), "uint8")
    view = t[:, ::2]
    view += 10
    assert R.read(t).tolist() == [[11, 2, 13], [11, 2, 13]]


def test_bool_and_conversions():
    assert bool(R.make(np.array([3], np.uint8), "uint8"))
    assert not bool(R.make(np.array(0.0, np.float32), "float32"))
    assert bool(R.make(np.array(np.nan, np.float32), "float32"))
    with pytest.raises(ValueError):
        bool(R.make(np.array([1, 2], np.uint8), "uint8"))
    assert int(R.make(np.array(-7, np.int16), "int16")) == -7
    assert float(R.make(np.array([[2.5]], np.float64), "float64")) == 2.5
    assert [10, 20, 30][R.make(np.array(1, np.int64), "int64")] == 20
    with pytest.raises(TypeError):
        [1, 2][R.make(np.array(1.0, np.float32), "float32")]
