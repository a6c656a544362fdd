"""Tensor (+) tensor operators (semantics §5-§7) over every dtype pair, against opsref.

Every binary operator is checked for all 13 x 13 dtype pairs on broadcasting
shapes, and property-tested with hypothesis over shapes (0-d, empty, up to 8-d),
strided views (steps, negative steps) and broadcasting. Unary operators per dtype.
"""
import itertools
import operator
import re
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import augpy
import opsref as R
from conftest import ON_CUDA

BINARY = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
          "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "&": operator.and_,
          "|": operator.or_, "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift,
          "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
          ">": operator.gt, ">=": operator.ge}
UNARY = {"-": operator.neg, "+": operator.pos, "~": operator.invert, "abs": abs}


def tolerance(op, da, db, rd):
    """ulps allowed: pow is a transcendental for floats (semantics §8: 2 ulp f32, 4 ulp f64)."""
    if op == "**" and R.kind(rd) == "f":
        return {"float64": 4, "float32": 2}.get(rd, 1)
    return 0


def shift_counts(rng, d, shape):
    """Non-negative shift counts, some at or beyond the bit width."""
    hi = min(R.limits(d)[1], 70)
    return rng.integers(0, hi, size=shape, endpoint=True).astype(R.NP[d])


def check_binary(op, ta, tb, da, db, msg=""):
    xa, xb = R.pyvals(R.read(ta)), R.pyvals(R.read(tb))
    try:
        exp, rd = R.ref_binary(op, xa, da, xb, db)
    except TypeError as e:
        with pytest.raises(TypeError, match=re.escape(str(e))):
            BINARY[op](ta, tb)
        return
    res = BINARY[op](ta, tb)
    assert R.name_of(res.dtype) == rd, f"{msg}: dtype {R.name_of(res.dtype)} != {rd}"
    assert tuple(res.shape) == np.broadcast_shapes(tuple(ta.shape), tuple(tb.shape))
    R.assert_same(R.read(res), exp, rd, ulps=tolerance(op, da, db, rd), msg=msg)


@pytest.mark.parametrize("da", R.DTYPES)
@pytest.mark.parametrize("op", list(BINARY))
def test_binary_all_dtype_pairs(op, da):
    rng = np.random.default_rng(zlib.crc32(f"{op} {da}".encode()))
    failures = []
    for db in R.DTYPES:
        if op in ("<<", ">>") and "bool" in (da, db):
            continue
        av = R.gen(rng, da, (3, 4))
        bv = shift_counts(rng, db, (4,)) if op in ("<<", ">>") and R.kind(db) in "iu" else R.gen(rng, db, (4,))
        try:
            check_binary(op, R.make(av, da), R.make(bv, db), da, db, msg=f"{da} {op} {db}")
        except AssertionError as e:
            failures.append(str(e))
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("d", R.DTYPES)
@pytest.mark.parametrize("op", list(UNARY))
def test_unary(op, d):
    rng = np.random.default_rng(7)
    t = R.make(R.gen(rng, d, (5, 3)), d)
    x = R.pyvals(R.read(t))
    try:
        exp, rd = R.ref_unary(op, x, d)
    except TypeError:
        with pytest.raises(TypeError):
            UNARY[op](t)
        return
    res = UNARY[op](t)
    assert R.name_of(res.dtype) == rd
    R.assert_same(R.read(res), exp, rd, msg=f"{op}{d}")


def test_unary_saturates():
    t = R.make(np.array([-128, -127, 0, 127], np.int8), "int8")
    assert R.read(-t).tolist() == [127, 127, 0, -127]
    assert R.read(abs(t)).tolist() == [127, 127, 0, 127]
    u = R.make(np.array([0, 1, 255], np.uint8), "uint8")
    assert R.read(-u).tolist() == [0, 0, 0]
    assert R.read(~u).tolist() == [255, 254, 0]
    b = R.make(np.array([True, False]), "bool")
    assert R.read(~b).tolist() == [False, True]


# ---- hypothesis: shapes, strides, broadcasting ---------------------------------------------

@st.composite
def binary_cases(draw):
    op = draw(st.sampled_from(list(BINARY)))
    da = draw(st.sampled_from(R.DTYPES))
    db = draw(st.sampled_from(R.DTYPES))
    if op in ("<<", ">>"):
        da = draw(st.sampled_from(R.INTS))
        db = draw(st.sampled_from(R.INTS))
    shapes = draw(mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=8, min_side=0, max_side=3))
    steps = [draw(st.lists(st.sampled_from([1, 1, 2, -1, -2]), min_size=len(s), max_size=len(s)))
             for s in shapes.input_shapes]
    seed = draw(st.integers(0, 2 ** 32 - 1))
    return op, da, db, shapes.input_shapes, steps, seed


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(binary_cases())
def test_binary_strided_broadcast(case):
    op, da, db, shapes, steps, seed = case
    rng = np.random.default_rng(seed)
    tensors = []
    for d, shape, stp in zip((da, db), shapes, steps):
        base_shape = tuple(n * abs(s) for n, s in zip(shape, stp))
        if op in ("<<", ">>") and d == db:
            vals = shift_counts(rng, d, base_shape)
        else:
            vals = R.gen(rng, d, base_shape)
        idx = tuple(slice(0, m, s) if s > 0 else slice(m - 1 if m else None, None, s)
                    for m, s in zip(base_shape, stp))
        base_t = R.make(vals, d)
        view = base_t[idx] if idx else base_t
        assert tuple(view.shape) == tuple(shape)
        np.testing.assert_array_equal(R.read(view), vals[idx] if idx else vals)
        tensors.append(view)
    check_binary(op, tensors[0], tensors[1], da, db, msg=f"{da}{shapes[0]} {op} {db}{shapes[1]}")


@pytest.mark.parametrize("da,db", [("uint8", "int8"), ("float32", "int16"), ("int64", "uint64"),
                                   ("float16", "float64"), ("bool", "uint8")])
def test_transposed_views(da, db):
    """Transposed (permuted) views: made zero-copy from NumPy through DLPack on the CPU,
    with transpose() and slicing of device tensors on CUDA."""
    rng = np.random.default_rng(3)
    a = R.gen(rng, da, (3, 4, 5))
    b = R.gen(rng, db, (5, 4, 3))
    if ON_CUDA:
        ta = R.make(a, da).transpose(2, 1, 0)
        tb = R.make(b, db)[::-1, :, ::2].transpose((1, 0, 2))
    else:
        ta = augpy.from_dlpack(a.transpose(2, 1, 0))
        tb = augpy.from_dlpack(b[::-1, :, ::2].transpose(1, 0, 2))
    assert tuple(ta.shape) == (5, 4, 3) and not ta.is_contiguous
    np.testing.assert_array_equal(R.read(ta), a.transpose(2, 1, 0))
    tc = R.make(R.gen(rng, da, (5, 1)), da)
    for op in ("+", "*", "<", "//", "&"):
        check_binary(op, ta, R.make(b, db), da, db, msg=f"{da}.T {op} {db}")
        check_binary(op, tb, tc, db, da, msg=f"{db} permuted view {op} {da}")


def test_broadcast_layouts_and_shapes():
    a = R.make(np.arange(6, dtype=np.uint8).reshape(2, 3, 1), "uint8")
    b = R.make(np.arange(4, dtype=np.uint8), "uint8")
    r = a + b
    assert tuple(r.shape) == (2, 3, 4)
    np.testing.assert_array_equal(R.read(r), np.arange(6).reshape(2, 3, 1) + np.arange(4))
    e = R.make(np.zeros((0, 3), np.float32), "float32")
    assert tuple((e * R.make(np.ones(3, np.float32), "float32")).shape) == (0, 3)


@pytest.mark.parametrize("da,db", [("uint8", "uint8"), ("int8", "uint8"), ("float16", "bfloat16"),
                                   ("int64", "uint64"), ("int32", "float64")])
def test_promotion_spot_checks(da, db):
    r = R.make(np.ones(2, R.NP[da]), da) + R.make(np.ones(2, R.NP[db]), db)
    assert R.name_of(r.dtype) == R.promote(da, db)


def test_promotion_table_is_symmetric_and_folds():
    for a, b in itertools.product(R.DTYPES, repeat=2):
        assert R.promote(a, b) == R.promote(b, a)
    assert R.promote(R.promote("int8", "uint8"), "uint16") == "int32"


def test_small_results_are_distinct():
    """Small results come from a recycled pool of blocks: many alive at once never share
    memory, and freed ones come back with new contents."""
    t = augpy.array_to_tensor(np.zeros((3, 3), np.int32))
    for _ in range(3):
        res = [t + i for i in range(300)]
        for i, r in enumerate(res):
            np.testing.assert_array_equal(augpy.tensor_to_array(r), np.full((3, 3), i, np.int32))
        del res
