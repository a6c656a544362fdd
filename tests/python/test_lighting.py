"""augpy.lighting (semantics §13, manual 3.1.4.3) against a NumPy float64 implementation
of the semantics §13 formula, saturated per semantics §2 (filterref.py)."""
import numpy as np
import pytest

import augpy
import filterref as R

# vmin/vmax per dtype: the usual value range of images of that dtype.
RANGES = {"bool": (0, 1), "int8": (-128, 127), "int16": (-32768, 32767), "int32": (-1000, 100000),
          "int64": (-(2 ** 40), 2 ** 40), "uint8": (0, 255), "uint16": (0, 65535), "uint32": (0, 2 ** 32 - 1),
          "uint64": (0, 2 ** 50), "float16": (0.0, 1.0), "bfloat16": (0.0, 1.0), "float32": (-1.0, 2.0),
          "float64": (0.0, 255.0)}


def params(rng, n, c, contrasts=None):
    gg = rng.uniform(0.5, 2.0, n).astype(np.float32)
    gc = rng.uniform(0.7, 1.4, (n, c)).astype(np.float32)
    ct = (rng.uniform(-1.0, 1.0, n) if contrasts is None else np.asarray(contrasts, np.float64)).astype(np.float32)
    return gg, gc, ct


def check(d, got, want):
    got = np.asarray(got)
    if d in ("float16", "bfloat16", "float32", "float64"):
        rtol = {"float16": 1e-3, "bfloat16": 8e-3, "float32": 1e-6, "float64": 1e-12}[d]
        np.testing.assert_allclose(got.astype(np.float64), np.asarray(want, np.float64), rtol=rtol, atol=rtol)
    elif d in ("int64", "uint64"):
        g = got.astype(object).reshape(-1)
        w = np.asarray(want, object).reshape(-1)
        assert all(abs(int(a) - int(b)) <= max(1, abs(int(b)) * 1e-12) for a, b in zip(g, w))
    elif d in ("int32", "uint32"):
        diff = np.abs(got.astype(np.int64) - np.asarray(want).astype(np.int64))
        assert diff.max() <= 1 and (diff == 0).mean() > 0.999
    else:
        np.testing.assert_array_equal(got, np.asarray(want))


@pytest.mark.parametrize("d", R.DTYPES)
@pytest.mark.parametrize("c", [1, 3, 4])
def test_lighting_matches_reference(rng, d, c):
    n, h, w = 3, 9, 13
    lo, hi = RANGES[d]
    x = R.random_image(rng, (n, c, h, w), d, *((lo - 10, hi + 10) if d in R.FLOATS else (None, None)))
    gg, gc, ct = params(rng, n, c, contrasts=[0.7, -0.6, 0.0])
    got = augpy.lighting(R.make(x, d), augpy.array_to_tensor(gg), augpy.array_to_tensor(gc.reshape(-1)),
                         augpy.array_to_tensor(ct), lo, hi)
    assert got.dtype == R.adtype(d) and tuple(got.shape) == x.shape
    check(d, R.read(got), R.saturate(R.lighting(x, gg, gc, ct, lo, hi), d))


@pytest.mark.parametrize("d", ["uint8", "int8", "uint16", "int16", "bool"])
def test_lighting_table_path_every_value(rng, d):
    """Planes larger than the table use the lookup table: every input value appears."""
    lo, hi = R.limits(d)
    vals = np.arange(lo, hi + 1, dtype=np.int64)
    size = 65536 + 4 if d in ("uint16", "int16") else 300
    x = np.resize(vals, 2 * size).reshape(2, 1, 2, size // 2 if size % 2 == 0 else size).astype(np.dtype(d))
    x = x.reshape(2, 1, 2, -1)
    for ct in ([0.9, -0.9], [-1.0, 1.0], [0.0, 0.3]):
        gg, gc, ctv = params(rng, 2, 1, contrasts=ct)
        got = augpy.lighting(R.make(x, d), gg, gc, ctv, 0 if d == "bool" else lo, hi)
        check(d, R.read(got), R.saturate(R.lighting(x, gg, gc, ctv, 0 if d == "bool" else lo, hi), d))


def test_lighting_uint8_photo_sized(rng):
    x = rng.integers(0, 256, (2, 3, 48, 64), dtype=np.uint8)
    gg, gc, ct = params(rng, 2, 3)
    got = augpy.lighting(augpy.array_to_tensor(x), gg, gc, ct, 0, 255)
    np.testing.assert_array_equal(got.numpy(), R.saturate(R.lighting(x, gg, gc, ct, 0, 255), "uint8"))


def test_lighting_identity_and_extremes():
    x = np.arange(256, dtype=np.uint8).reshape(1, 1, 16, 16)
    t = augpy.array_to_tensor(x)
    one = np.ones(1, np.float32)
    np.testing.assert_array_equal(augpy.lighting(t, one, one, np.zeros(1, np.float32), 0, 255).numpy(), x)
    # gamma 2 on 0..255: (x/255)^2 * 255
    got = augpy.lighting(t, [2.0], [1.0], [0.0], 0, 255).numpy()
    np.testing.assert_array_equal(got, np.rint((x / 255.0) ** 2 * 255).astype(np.uint8))
    # values outside [vmin, vmax] are clipped first
    got = augpy.lighting(t, [1.0], [1.0], [0.0], 100, 200).numpy()
    np.testing.assert_array_equal(got, np.clip(x, 100, 200))


def test_lighting_three_dim_image_and_2d_gammacolors(rng):
    x = rng.integers(0, 256, (3, 5, 7), dtype=np.uint8)
    gg, gc, ct = params(rng, 1, 3)
    got = augpy.lighting(augpy.array_to_tensor(x), gg, augpy.array_to_tensor(gc), ct, 0, 255)
    assert tuple(got.shape) == (3, 5, 7)
    np.testing.assert_array_equal(got.numpy(), R.saturate(R.lighting(x[None], gg, gc, ct, 0, 255), "uint8")[0])


@pytest.mark.parametrize("d", ["uint8", "uint16", "float32", "int32"])
def test_lighting_in_place_and_out(rng, d):
    lo, hi = RANGES[d]
    x = R.random_image(rng, (2, 3, 11, 17), d, *((lo, hi) if d in R.FLOATS else (None, None)))
    gg, gc, ct = params(rng, 2, 3)
    want = R.saturate(R.lighting(x, gg, gc, ct, lo, hi), d)
    t = R.make(x, d)
    r = augpy.lighting(t, gg, gc, ct, lo, hi, out=t)
    assert r is t
    check(d, R.read(t), want)
    o = augpy.empty_like(R.make(x, d)) if hasattr(augpy, "empty_like") else R.make(np.zeros_like(x), d)
    r = augpy.lighting(R.make(x, d), gg, gc, ct, lo, hi, out=o)
    assert r is o
    check(d, R.read(o), want)


def test_lighting_thread_count_independent(rng):
    x = rng.integers(0, 65536, (4, 3, 130, 140), dtype=np.uint16)
    gg, gc, ct = params(rng, 4, 3)
    old = augpy.get_num_threads()
    try:
        augpy.set_num_threads(1)
        a = augpy.lighting(augpy.array_to_tensor(x), gg, gc, ct, 0, 65535).numpy()
        augpy.set_num_threads(max(2, old))
        b = augpy.lighting(augpy.array_to_tensor(x), gg, gc, ct, 0, 65535).numpy()
    finally:
        augpy.set_num_threads(old)
    np.testing.assert_array_equal(a, b)


def test_lighting_bad_inputs(rng):
    x = augpy.array_to_tensor(rng.integers(0, 256, (2, 3, 4, 5), dtype=np.uint8))
    gg, gc, ct = params(rng, 2, 3)
    f = augpy.lighting
    with pytest.raises(ValueError, match=r"augpy.lighting.*shape"):
        f(augpy.array_to_tensor(np.zeros((4, 5), np.uint8)), gg, gc, ct, 0, 255)
    with pytest.raises(ValueError, match=r"augpy.lighting.*gammagrays"):
        f(x, gg[:1], gc, ct, 0, 255)
    with pytest.raises(ValueError, match=r"augpy.lighting.*gammacolors"):
        f(x, gg, gc[:, :2], ct, 0, 255)
    with pytest.raises(ValueError, match=r"augpy.lighting.*contrasts"):
        f(x, gg, gc, np.zeros(3, np.float32), 0, 255)
    with pytest.raises(ValueError, match=r"augpy.lighting.*contrasts\[1\]"):
        f(x, gg, gc, [0.0, float("nan")], 0, 255)
    with pytest.raises(ValueError, match=r"augpy.lighting.*contrasts\[0\] = 1.5"):
        f(x, gg, gc, [1.5, 0.0], 0, 255)
    with pytest.raises(ValueError, match=r"augpy.lighting.*gammagrays\[0\]"):
        f(x, [float("nan"), 1.0], gc, ct, 0, 255)
    with pytest.raises(ValueError, match=r"augpy.lighting.*gammacolors\[4\]"):
        f(x, gg, [1, 1, 1, 1, 0, 1], ct, 0, 255)
    with pytest.raises(ValueError, match=r"augpy.lighting.*vmin"):
        f(x, gg, gc, ct, 255, 0)
    with pytest.raises(ValueError, match=r"augpy.lighting.*vmin"):
        f(x, gg, gc, ct, 0, float("inf"))
    with pytest.raises(TypeError, match=r"augpy.lighting.*float32"):
        f(x, augpy.array_to_tensor(gg.astype(np.float64)), gc, ct, 0, 255)
    with pytest.raises(TypeError, match=r"augpy.lighting.*gammagrays"):
        f(x, "abc", gc, ct, 0, 255)
    with pytest.raises(TypeError, match=r"augpy.lighting.*vmin"):
        f(x, gg, gc, ct, "0", 255)
    with pytest.raises(TypeError, match=r"augpy.lighting: imtensor must be a Tensor or an array"):
        f("abc", gg, gc, ct, 0, 255)
    with pytest.raises(ValueError, match=r"augpy.lighting.*shape \(2,\)"):  # a NumPy array is an image argument
        f(gg, gg, gc, ct, 0, 255)
    with pytest.raises(TypeError, match=r"augpy.lighting.*dtype"):
        f(x, gg, gc, ct, 0, 255, out=augpy.array_to_tensor(np.zeros((2, 3, 4, 5), np.float32)))
    with pytest.raises(ValueError, match=r"augpy.lighting.*shape"):
        f(x, gg, gc, ct, 0, 255, out=augpy.array_to_tensor(np.zeros((2, 3, 4, 4), np.uint8)))
    with pytest.raises(ValueError, match=r"augpy.lighting.*contiguous"):  # a strided out (inputs may be)
        f(x, gg, gc, ct, 0, 255, out=augpy.array_to_tensor(np.zeros((2, 3, 4, 10), np.uint8))[:, :, :, ::2])
