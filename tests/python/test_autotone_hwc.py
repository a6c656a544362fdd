"""autocontrast and equalize of channels-last images (HWC / NHWC) on the session's device
against the CPU, bit for bit: 1 to 5 channels (CUDA takes up to 4 a block per image,
src/cuda/autotone.cu aug__k_*_px, and 5 a block per plane), widths that leave every
alignment, uint8 / uint16 / float32, new tensors and in place."""
import numpy as np
import pytest

import augpy
from conftest import host_tensor

SHAPES = [(17, 23, 1), (9, 31, 2), (13, 7, 3), (3, 40, 9, 4), (2, 11, 5, 5), (300, 1, 3), (2, 64, 64, 3)]


def image(rng, shape, dt):
    if dt == np.float32:
        return (rng.random(shape) * 1.2 - 0.1).astype(np.float32)
    hi = 256 if dt == np.uint8 else 65536
    x = rng.integers(0, hi, shape).astype(dt)
    x[..., 0] //= 3  # channels of different ranges: a channel mixed up with another shows
    return x


@pytest.mark.parametrize("op", ["autocontrast", "equalize"])
@pytest.mark.parametrize("dt", [np.uint8, np.uint16, np.float32])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_channels_last_matches_cpu(rng, op, dt, shape):
    fn = getattr(augpy, op)
    x = image(rng, shape, dt)
    layout = "HWC" if len(shape) == 3 else "NHWC"
    t, h = augpy.array_to_tensor(x), host_tensor(x)
    t.layout = h.layout = layout
    want = augpy.tensor_to_array(fn(h)).tobytes()
    assert augpy.tensor_to_array(fn(t)).tobytes() == want
    fn(t, out=t)  # in place
    assert augpy.tensor_to_array(t).tobytes() == want
