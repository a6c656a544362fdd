"""augpy.solarize (docs/colour.md, "Tone ops") against torchvision's definition written out
with NumPy: x >= threshold ? invert(x) : x, compared in float32 for the integer and float32
images (torch promotes an integer or float32 image against a Python float to float32) and in
float64 for float64; one threshold for every image and one per image of a batch, layouts,
views, out= and in place, on the session's device and the CPU alike; then bad thresholds, bad
images and hostile arguments."""
import numpy as np
import pytest

import augpy
from conftest import DEVICE, host_tensor

TOP = {np.uint8: 255, np.uint16: 65535, np.float32: 1.0, np.float64: 1.0}


def ref(x, threshold):
    dt = x.dtype.type
    inv = (TOP[dt] - x).astype(x.dtype)
    cmp = x >= np.float64(threshold) if dt is np.float64 else x.astype(np.float32) >= np.float32(threshold)
    return np.where(cmp, inv, x)


def values(rng, shape, dt):
    if np.issubdtype(dt, np.integer):
        return rng.integers(0, np.iinfo(dt).max + 1, shape, dtype=dt)
    return (rng.random(shape) * 1.4 - 0.2).astype(dt)


@pytest.mark.parametrize("dt", [np.uint8, np.uint16, np.float32, np.float64])
@pytest.mark.parametrize("frac", [-0.5, 0.0, 0.3, 0.5, 0.9999999, 1.0])
def test_matches_definition(rng, dt, frac):
    x = values(rng, (9, 11, 3), dt)
    threshold = TOP[dt] * frac
    t = augpy.array_to_tensor(x)
    t.layout = "HWC"
    r = augpy.solarize(t, threshold)
    assert r.layout == "HWC" and r.device == t.device
    got = augpy.tensor_to_array(r)
    assert got.dtype == x.dtype and np.array_equal(got, ref(x, threshold))
    cpu = augpy.tensor_to_array(augpy.solarize(host_tensor(x), threshold))
    assert cpu.tobytes() == got.tobytes()


@pytest.mark.parametrize("dt", [np.uint8, np.uint16, np.float32, np.float64])
def test_threshold_per_image(rng, dt):
    x = values(rng, (4, 3, 6, 7), dt)
    thr = [TOP[dt] * f for f in (0.0, 0.25, 0.75, 1.0)]
    for given in (thr, np.array(thr), augpy.array_to_tensor(np.array(thr, np.float64))):
        got = augpy.tensor_to_array(augpy.solarize(x, given))
        for n in range(4):
            assert np.array_equal(got[n], ref(x[n], thr[n]))


def test_float32_comparison():
    # 0.3 as float32 is above 0.3 as float64: torch compares in float32 and inverts it
    x = np.array([[0.3, 0.1, 0.29999998]], np.float32)
    got = augpy.tensor_to_array(augpy.solarize(x, 0.30000000000000004))
    assert np.array_equal(got, np.array([[np.float32(1) - np.float32(0.3), 0.1, 0.29999998]], np.float32))
    d = np.array([[0.3]], np.float64)
    assert augpy.tensor_to_array(augpy.solarize(d, 0.30000000000000004))[0, 0] == 0.3
    u = np.arange(256, dtype=np.uint8).reshape(1, 256)
    assert augpy.tensor_to_array(augpy.solarize(u, 254.9999999))[0, 255] == 0  # 255 in float32


def test_out_in_place_and_views(rng):
    x = values(rng, (2, 8, 8, 3), np.uint8)
    t = augpy.array_to_tensor(x)
    out = augpy.empty((2, 8, 8, 3), dtype=augpy.uint8)
    assert augpy.solarize(t, [10, 200], out=out) is out
    assert np.array_equal(augpy.tensor_to_array(out)[1], ref(x[1], 200))
    assert augpy.solarize(t, 128, out=t) is t
    assert np.array_equal(augpy.tensor_to_array(t), ref(x, 128))
    v = augpy.array_to_tensor(x)[:, ::-1, ::2]
    assert np.array_equal(augpy.tensor_to_array(augpy.solarize(v, 99.5)), ref(x[:, ::-1, ::2], 99.5))
    if DEVICE == "cpu":
        a = x.copy()
        assert augpy.solarize(a, 64, out=a) is a and np.array_equal(a, ref(x, 64))
    assert augpy.solarize(augpy.Tensor((0, 4, 4, 3), dtype=augpy.uint8), 3).shape == (0, 4, 4, 3)


@pytest.mark.parametrize("threshold,exc,msg", [
    (256, ValueError, "augpy.solarize: threshold must be <= 255, the largest uint8 value, got 256"),
    (float("nan"), ValueError, "augpy.solarize: threshold must be <= 255, the largest uint8 value, got nan"),
    (float("inf"), ValueError, "got inf"),
    ([1, 2], ValueError, "augpy.solarize: threshold has 2 values for 3 images"),
    ([1, 2, 300], ValueError, r"augpy.solarize: threshold must be <= 255, .*got 300 \(image 2\)"),
    ("1", TypeError, "augpy.solarize: threshold must be a number or 3 numbers"),
    (None, TypeError, "augpy.solarize: threshold must be"),
])
def test_bad_threshold(threshold, exc, msg):
    with pytest.raises(exc, match=msg):
        augpy.solarize(augpy.Tensor((3, 3, 4, 4), dtype=augpy.uint8), threshold)


def test_bad_images_and_calls():
    with pytest.raises(ValueError, match="threshold must be <= 1, the largest float32 value, got 1.5"):
        augpy.solarize(augpy.Tensor((3, 4, 4), dtype=augpy.float32), 1.5)
    with pytest.raises(TypeError, match="augpy.solarize: image dtype float16 is not supported"):
        augpy.solarize(augpy.Tensor((3, 4, 4), dtype=augpy.float16), 0.5)
    with pytest.raises(TypeError, match="augpy.solarize: threshold must be a number, not 'str'"):
        augpy.solarize(augpy.Tensor((3, 4, 4), dtype=augpy.uint8), "x")
    t = augpy.Tensor((3, 4, 4), dtype=augpy.uint8)
    with pytest.raises(TypeError, match="augpy.solarize"):
        augpy.solarize(t)
    with pytest.raises(TypeError, match="augpy.solarize: imtensor must be"):
        augpy.solarize(b"\x00" * 16, 1)
    with pytest.raises(ValueError, match="augpy.solarize: out has shape"):
        augpy.solarize(t, 1, out=augpy.Tensor((3, 4, 5), dtype=augpy.uint8))
