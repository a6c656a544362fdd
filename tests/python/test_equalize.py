"""augpy.equalize (docs/colour.md, "Per-channel tone ops") against torchvision v2's definition
written out with NumPy (autotone_ref.py): uint8 and float32, every layout (channels first without
a layout string), flat and two-valued channels, float32 outside [0, 1] and NaN, strided views,
out= and in place, the session's device against the CPU; then bad images and calls. torchvision's
own results: test_tone_torchvision.py."""
import numpy as np
import pytest

import augpy
from autotone_ref import equalize as ref
from conftest import host_tensor

SHAPES = {"HW": (13, 17), "CHW": (3, 13, 17), "HWC": (13, 17, 3), "NCHW": (2, 4, 9, 11), "NHWC": (2, 9, 11, 4)}


def image(rng, shape, dt):
    if dt == np.uint8:
        return rng.integers(0, 256, shape, dtype=np.uint8)
    return (rng.random(shape) * 1.4 - 0.2).astype(np.float32)


def run(x, layout=None, **kw):
    t = augpy.array_to_tensor(x)
    if layout:
        t.layout = layout
    r = augpy.equalize(t, **kw)
    assert r.layout == (layout or "")
    return augpy.tensor_to_array(r)


@pytest.mark.parametrize("dt", [np.uint8, np.float32])
@pytest.mark.parametrize("layout", list(SHAPES))
def test_matches_definition(rng, dt, layout):
    x = image(rng, SHAPES[layout], dt)
    got = run(x, layout)
    assert got.dtype == x.dtype and got.tobytes() == ref(x, layout).tobytes()
    h = host_tensor(x)
    h.layout = layout
    assert augpy.tensor_to_array(augpy.equalize(h)).tobytes() == got.tobytes()  # the CPU
    if layout in ("HW", "CHW", "NCHW"):  # no layout string: channels first
        assert run(x).tobytes() == got.tobytes()


def test_special_channels():
    x = np.zeros((3, 10, 30), np.uint8)
    x[0] = 77                                         # flat: kept (step 0)
    x[1] = np.where(np.arange(300).reshape(10, 30) % 3 == 0, 10, 200)   # two values
    x[2] = np.resize(np.arange(256, dtype=np.uint8), (10, 30))
    got = run(x)
    assert np.array_equal(got, ref(x, "CHW")) and np.array_equal(got[0], x[0])
    f = np.array([[[0.0, 1.0, -0.5, 2.0], [np.inf, -np.inf, np.nan, 0.5]]], np.float32)
    assert run(f).tobytes() == ref(f, "CHW").tobytes()


def test_out_in_place_and_views(rng):
    x = image(rng, (2, 3, 8, 8), np.uint8)
    t = augpy.array_to_tensor(x)
    out = augpy.empty((2, 3, 8, 8), dtype=augpy.uint8)
    assert augpy.equalize(t, out=out) is out
    assert np.array_equal(augpy.tensor_to_array(out), ref(x, "NCHW"))
    assert augpy.equalize(t, out=t) is t
    assert np.array_equal(augpy.tensor_to_array(t), ref(x, "NCHW"))
    v = augpy.array_to_tensor(x)[:, :, ::-2, 1::3]
    assert np.array_equal(augpy.tensor_to_array(augpy.equalize(v)), ref(x[:, :, ::-2, 1::3], "NCHW"))
    assert augpy.equalize(augpy.Tensor((0, 3, 4, 4), dtype=augpy.float32)).shape == (0, 3, 4, 4)


def test_bad_images_and_calls():
    with pytest.raises(TypeError,
                       match=r"augpy.equalize: image dtype int16 is not supported \(uint8, uint16 or float32\)"):
        augpy.equalize(augpy.Tensor((3, 4, 4), dtype=augpy.int16))
    with pytest.raises(ValueError, match=r"augpy.equalize: image must be \(H, W\)"):
        augpy.equalize(augpy.Tensor((16,), dtype=augpy.uint8))
    t = augpy.Tensor((3, 4, 4), dtype=augpy.uint8)
    with pytest.raises(TypeError, match="augpy.equalize"):
        augpy.equalize()
    with pytest.raises(TypeError, match="augpy.equalize: imtensor must be"):
        augpy.equalize("image")
    with pytest.raises(TypeError, match="augpy.equalize: out must be"):
        augpy.equalize(t, out="out")
    with pytest.raises(TypeError, match="augpy.equalize: out has dtype float32"):
        augpy.equalize(t, out=augpy.Tensor((3, 4, 4), dtype=augpy.float32))
    with pytest.raises(TypeError, match="augpy.equalize"):
        augpy.equalize(t, 3)
