"""The short paths of a small op (issue 33) give what the general ones give: operands of
one shape skip the broadcast and the planner's re-checks, two tensors skip operand
parsing, and add(out=)'s result dtype comes from the kept decision. Results against
the general path and NumPy, on the session's device; keyword aliases and errors as before."""
import numpy as np
import pytest

import augpy


def T(a):
    return augpy.array_to_tensor(np.array(a, order="C"))  # 0-d stays 0-d


@pytest.mark.parametrize("kw", [dict(tensor1="t", tensor2="u"), dict(tensor="t", other="u"),
                                dict(tensor="t", scalar="u"), dict(tensor1="t", other="u")])
def test_keyword_aliases(kw):
    a, b = np.arange(6, dtype=np.float32).reshape(2, 3), np.full((2, 3), 0.5, np.float32)
    t, u = T(a), T(b)
    args = {k: {"t": t, "u": u}[v] for k, v in kw.items()}
    np.testing.assert_array_equal(augpy.add(**args).numpy(), a + b)
    o = augpy.zeros((2, 3), augpy.float32)
    assert augpy.add(**args, out=o) is o
    np.testing.assert_array_equal(o.numpy(), a + b)


@pytest.mark.parametrize("name", ["tenso", "tensor12", "tensor1|tensor", "ou", "outs", "o", "", "|", "out\0",
                                  "other|", "scalar|tensor2"])
def test_unknown_keywords(name):
    t = T(np.zeros((2, 2), np.float32))
    with pytest.raises(TypeError, match=r"^augpy.add\(\) got an unexpected keyword argument"):
        augpy.add(t, t, **{name: None})


@pytest.mark.parametrize("da,db", [(np.float32, np.float32), (np.uint8, np.uint8), (np.uint8, np.float32),
                                   (np.int16, np.uint8), (np.float64, np.float32)])
@pytest.mark.parametrize("shape", [(3, 3), (), (0, 3), (1, 5), (2, 1, 3)])
def test_same_shape_operators(da, db, shape):
    rng = np.random.default_rng(7)
    a = (rng.random(shape) * 200).astype(da)
    b = (rng.random(shape) * 200).astype(db)
    ta, tb = T(a), T(b)
    for op in ("__add__", "__sub__", "__mul__", "__lt__"):
        # the general path: a leading extent-1 axis on one operand makes it broadcast
        exp = getattr(augpy.Tensor, op)(ta, T(b[None])).numpy()[0]
        res = getattr(ta, op)(tb)
        assert res.shape == tuple(shape) and res.numpy().dtype == exp.dtype
        np.testing.assert_array_equal(res.numpy(), exp)
        if da == db and np.dtype(da).kind == "f":
            np.testing.assert_array_equal(res.numpy(), getattr(a, op)(b))


def test_same_shape_views_and_aliasing():
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    t = T(a)
    v = t[:, ::2]  # same shape as u, not contiguous
    u = T(np.ones((4, 3), np.float32))
    np.testing.assert_array_equal((v + u).numpy(), a[:, ::2] + 1)
    # out= aliasing an input: the identical view, and a shifted one (copied first)
    o = T(a.copy())
    augpy.add(o, o, out=o)
    np.testing.assert_array_equal(o.numpy(), a + a)
    w = T(np.arange(10, dtype=np.float32))
    augpy.add(w[:9], w[1:], out=w[1:])
    exp = np.arange(10, dtype=np.float32)
    exp[1:] = exp[:9] + exp[1:]
    np.testing.assert_array_equal(w.numpy(), exp)


def test_same_shape_errors():
    t = T(np.zeros((3, 3), np.float32))
    with pytest.raises(ValueError, match=r"^augpy.add: output shape \(3, 2\) does not match the broadcast shape "
                                         r"\(3, 3\)"):
        augpy.add(t, t, out=augpy.zeros((3, 2), augpy.float32))
    with pytest.raises(ValueError, match=r"operands could not be broadcast|cannot be broadcast|broadcast"):
        t + T(np.zeros((3, 2), np.float32))
    # bitwise on floats is refused, every time (the refusal is never kept as a decision)
    for _ in range(2):
        with pytest.raises(TypeError):
            t & t


def test_saturating_out_dtype():
    """add(out=) with a narrower out saturates, with the result dtype from the kept decision."""
    a = np.array([[250, 10], [0, 255]], np.uint8)
    t = T(a)
    t + t  # keeps the (add, uint8) decision
    o = augpy.zeros((2, 2), augpy.uint8)
    augpy.add(t, t, out=o)
    np.testing.assert_array_equal(o.numpy(), np.minimum(a.astype(int) * 2, 255))
    f = T(np.array([[1e30, -1e30], [3.5, -2.25]], np.float32))
    o8 = augpy.zeros((2, 2), augpy.int8)
    augpy.add(f, f, out=o8)
    np.testing.assert_array_equal(o8.numpy(), np.array([[127, -128], [7, -4]], np.int8))
