"""augpy.fma with broadcasting tensor coefficients and a scalar addend, against NumPy float64:
r = a * b + c with one rounding in the temp type of promote(b, c) (joined by a when a is a tensor),
stored with saturate_cast. On the default device (CPU, or the emulated cuda:0 under MODE=emu)."""
import numpy as np
import pytest

import augpy
import filterref as R


def ref(a, b, c, compute, out_dtype):
    """a*b + c in float64 from the operands rounded to the compute type, then rounded to the compute type
    (float32: the float64 value rounded once more; values here keep that exact or 1 ulp), saturated."""
    ct = np.dtype(compute)
    v = (np.asarray(a, np.float64).astype(ct).astype(np.float64) * np.asarray(b, np.float64).astype(ct)
         + np.asarray(c, np.float64).astype(ct))
    return R.saturate(v.astype(ct).astype(np.float64), out_dtype)


def test_per_channel_coefficients_scalar_addend(rng):
    img = rng.integers(0, 256, (3, 8, 9), dtype=np.uint8)
    inv = np.array([1 / 58.395, 1 / 57.12, 1 / 57.375], np.float32).reshape(3, 1, 1)
    got = augpy.fma(augpy.array_to_tensor(inv), augpy.array_to_tensor(img), -2.0)
    assert got.dtype == augpy.uint8 and tuple(got.shape) == (3, 8, 9)  # tensor1's dtype
    np.testing.assert_array_equal(got.numpy(), ref(inv, img, -2.0, "float32", "uint8"))
    out = augpy.empty((3, 8, 9), dtype=augpy.float32)
    assert augpy.fma(augpy.array_to_tensor(inv), augpy.array_to_tensor(img), -2.125, out=out) is out
    np.testing.assert_allclose(out.numpy(), ref(inv, img, -2.125, "float32", "float32"), rtol=1.2e-7, atol=0)
    # an array-like coefficient is converted
    got = augpy.fma(inv, augpy.array_to_tensor(img), 0.5, out=augpy.empty((3, 8, 9), dtype=augpy.float32))
    np.testing.assert_allclose(got.numpy(), ref(inv, img, 0.5, "float32", "float32"), rtol=1.2e-7, atol=0)


def test_float64_coefficient_joins_the_compute_type(rng):
    x = rng.standard_normal((8, 9)).astype(np.float32)
    a = rng.standard_normal((1, 9))
    got = augpy.fma(augpy.array_to_tensor(a), augpy.array_to_tensor(x), 0.1)
    assert got.dtype == augpy.float32
    want = (a * x.astype(np.float64) + 0.1).astype(np.float32)
    np.testing.assert_allclose(got.numpy(), want, rtol=1.2e-7, atol=0)


@pytest.mark.parametrize("d1,d2", [("uint8", "float32"), ("int16", "int16"), ("float32", "uint8"),
                                   ("float64", "float16"), ("uint8", "uint8")])
def test_three_way_broadcast(rng, d1, d2):
    a = rng.uniform(-2, 2, (3, 1, 1)).astype(np.float32)
    b = R.random_image(rng, (1, 8, 9), d1)
    c = R.random_image(rng, (3, 8, 1), d2)
    got = augpy.fma(augpy.array_to_tensor(a), R.make(b, d1), R.make(c, d2))
    assert got.dtype == R.adtype(d2) and tuple(got.shape) == (3, 8, 9)
    compute = "float64" if "float64" in (d1, d2) else "float32"
    want = ref(a, b, c, compute, d2)
    g = R.read(got).astype(np.float64)
    if d2 in ("float32", "float16"):
        np.testing.assert_allclose(g, np.asarray(want, np.float64), rtol=1e-3 if d2 == "float16" else 1.2e-7)
    else:
        np.testing.assert_array_equal(g, np.asarray(want, np.float64))


def test_scalars_everywhere_but_the_multiplied_tensor(rng):
    x = rng.integers(0, 100, (4, 5), dtype=np.int16)
    got = augpy.fma(3, augpy.array_to_tensor(x), 7)
    assert got.dtype == augpy.int16
    np.testing.assert_array_equal(got.numpy(), 3 * x.astype(np.int64) + 7)
    # the classic form is unchanged: a number times a tensor plus a tensor, tensor2's dtype
    got = augpy.fma(0.5, augpy.array_to_tensor(x), augpy.array_to_tensor(x.astype(np.float32)))
    assert got.dtype == augpy.float32
    np.testing.assert_array_equal(got.numpy(), (1.5 * x).astype(np.float32))


def test_errors(rng):
    t = augpy.array_to_tensor(rng.integers(0, 9, (3, 4), dtype=np.uint8))
    with pytest.raises(ValueError, match="^augpy.fma: cannot broadcast"):
        augpy.fma(augpy.array_to_tensor(np.ones((2, 1), np.float32)), t, 1.0)
    with pytest.raises(TypeError, match="augpy.fma: tensor2 must be a Tensor or a number"):
        augpy.fma(augpy.array_to_tensor(np.ones((3, 1), np.float32)), t, [1, 2])
    with pytest.raises(TypeError, match="augpy.fma: scalar must be a number"):
        augpy.fma("x", t, 1.0)
    with pytest.raises(TypeError, match="augpy.fma: tensor1"):
        augpy.fma(1.0, 2.0, 1.0)
