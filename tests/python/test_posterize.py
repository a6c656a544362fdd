"""augpy.posterize (docs/colour.md, "Tone ops") against torchvision v2's definition written
out with NumPy (integers keep their high bits: (x >> s) << s; floats
clamp(floor(x * 2**bits), 0, 2**bits - 1) / 2**bits, exact in float64, then rounded): every
layout, one bits for every image and one per image of a batch, strided and foreign inputs,
out= and in place, on the session's device and the CPU alike; then bad bits, bad images and
hostile arguments."""
import numpy as np
import pytest

import augpy
from conftest import DEVICE, host_tensor

VALUE_BITS = {np.uint8: 8, np.uint16: 16}


def ref(x, bits):
    if x.dtype.type in VALUE_BITS:
        s = VALUE_BITS[x.dtype.type] - bits
        return x if s <= 0 else ((x >> s) << s).astype(x.dtype)
    levels = 2.0 ** bits
    y = np.clip(np.floor(x.astype(np.float64) * levels), 0, levels - 1) / levels
    return y.astype(x.dtype)


def values(rng, shape, dt):
    if np.issubdtype(dt, np.integer):
        return rng.integers(0, np.iinfo(dt).max + 1, shape, dtype=dt)
    return (rng.random(shape) * 1.4 - 0.2).astype(dt)


@pytest.mark.parametrize("dt", [np.uint8, np.uint16, np.float32, np.float64])
@pytest.mark.parametrize("bits", [0, 1, 4, 8, 12, 16, 24])
def test_matches_definition(rng, dt, bits):
    x = values(rng, (3, 9, 11), dt)
    t = augpy.array_to_tensor(x)
    t.layout = "CHW"
    r = augpy.posterize(t, bits)
    assert r.layout == "CHW" and r.device == t.device
    got = augpy.tensor_to_array(r)
    assert got.dtype == x.dtype and np.array_equal(got, ref(x, bits))
    cpu = augpy.tensor_to_array(augpy.posterize(host_tensor(x), bits))
    assert cpu.tobytes() == got.tobytes()


@pytest.mark.parametrize("dt", [np.uint8, np.uint16, np.float32, np.float64])
def test_bits_per_image(rng, dt):
    x = values(rng, (5, 6, 7, 3), dt)
    bits = [0, 2, 5, 8, 16]
    for given in (bits, np.array(bits, np.int64), augpy.array_to_tensor(np.array(bits, np.int32)), tuple(bits)):
        got = augpy.tensor_to_array(augpy.posterize(x, given))
        for n in range(5):
            assert np.array_equal(got[n], ref(x[n], bits[n])), (given, n)


def test_every_uint8_value_and_float_specials():
    x = np.arange(256, dtype=np.uint8).reshape(16, 16)
    for bits in range(10):
        assert np.array_equal(augpy.tensor_to_array(augpy.posterize(x, bits)), ref(x, min(bits, 8)))
    f = np.array([[0.0, 1.0, -0.5, 2.0], [np.inf, -np.inf, np.nan, 0.999]], np.float32)
    got = augpy.tensor_to_array(augpy.posterize(augpy.array_to_tensor(f), 3))
    assert np.array_equal(got, np.array([[0, 0.875, 0, 0.875], [0.875, 0, np.nan, 0.875]], np.float32),
                          equal_nan=True)


def test_out_in_place_and_views(rng):
    x = values(rng, (2, 3, 8, 8), np.uint8)
    t = augpy.array_to_tensor(x)
    out = augpy.empty((2, 3, 8, 8), dtype=augpy.uint8)
    assert augpy.posterize(t, [3, 5], out=out) is out
    assert np.array_equal(augpy.tensor_to_array(out)[1], ref(x[1], 5))
    assert augpy.posterize(t, 2, out=t) is t
    assert np.array_equal(augpy.tensor_to_array(t), ref(x, 2))
    v = augpy.array_to_tensor(x)[:, :, ::-2, 1::3]
    assert np.array_equal(augpy.tensor_to_array(augpy.posterize(v, 4)), ref(x[:, :, ::-2, 1::3], 4))
    if DEVICE == "cpu":
        a = x.copy()
        assert augpy.posterize(a, 1, out=a) is a and np.array_equal(a, ref(x, 1))
    e = augpy.posterize(augpy.Tensor((0, 3, 4, 4), dtype=augpy.float32), 3)
    assert e.shape == (0, 3, 4, 4)


@pytest.mark.parametrize("bits,exc,msg", [
    (-1, ValueError, r"augpy.posterize: bits must be in \[0, 32\], got -1"),
    (33, ValueError, r"augpy.posterize: bits must be in \[0, 32\], got 33"),
    (10 ** 30, ValueError, r"augpy.posterize: bits must be in \[0, 32\], got 1e\+30"),
    (4.5, TypeError, "augpy.posterize: bits must be integers, got 4.5"),
    (float("nan"), TypeError, "augpy.posterize: bits must be integers, got nan"),
    (float("inf"), ValueError, r"augpy.posterize: bits must be in \[0, 32\], got inf"),
    ([1, 2], ValueError, "augpy.posterize: bits has 2 values for 3 images"),
    ([1, 2, 40], ValueError, r"augpy.posterize: bits must be in \[0, 32\], got 40 \(image 2\)"),
    ("4", TypeError, "augpy.posterize: bits must be a number or 3 numbers"),
    (None, TypeError, "augpy.posterize: bits must be"),
])
def test_bad_bits(bits, exc, msg):
    with pytest.raises(exc, match=msg):
        augpy.posterize(augpy.Tensor((3, 3, 4, 4), dtype=augpy.uint8), bits)


def test_bad_images_and_calls():
    with pytest.raises(TypeError, match="augpy.posterize: image dtype int8 is not supported"):
        augpy.posterize(augpy.Tensor((3, 4, 4), dtype=augpy.int8), 4)
    with pytest.raises(ValueError, match=r"augpy.posterize: image must be \(H, W\)"):
        augpy.posterize(augpy.Tensor((16,), dtype=augpy.uint8), 4)
    with pytest.raises(ValueError, match=r"augpy.posterize: bits has 2 values for 1 image \(give 1\)"):
        augpy.posterize(augpy.Tensor((3, 4, 4), dtype=augpy.uint8), [1, 2])
    t = augpy.Tensor((3, 4, 4), dtype=augpy.uint8)
    with pytest.raises(TypeError, match="augpy.posterize"):
        augpy.posterize(t)
    with pytest.raises(TypeError, match="augpy.posterize: imtensor must be"):
        augpy.posterize("image", 4)
    with pytest.raises(TypeError, match="augpy.posterize: out must be"):
        augpy.posterize(t, 4, out="out")
    with pytest.raises(TypeError, match="augpy.posterize: out has dtype float32"):
        augpy.posterize(t, 4, out=augpy.Tensor((3, 4, 4), dtype=augpy.float32))


def test_hostile_bits():
    class Index:  # __float__ that mutates the list it is read from
        def __init__(self, seq):
            self.seq = seq

        def __float__(self):
            self.seq.clear()
            return 3.0

    seq = [1, 2, 3]
    seq[0] = Index(seq)
    got = augpy.posterize(np.zeros((3, 2, 2, 1), np.uint8) + 255, seq)  # read from a snapshot
    assert augpy.tensor_to_array(got)[:, 0, 0, 0].tolist() == [0xE0, 0xC0, 0xE0]

    class Boom:
        def __float__(self):
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        augpy.posterize(np.zeros((2, 2), np.uint8), Boom())
