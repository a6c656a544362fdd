"""augpy.autocontrast (docs/colour.md, "Per-channel tone ops") against torchvision v2's
definition written out with NumPy (autotone_ref.py): uint8 and float32, every layout, flat and
narrow channels, a NaN, strided views, out= and in place, the session's device against the CPU;
then bad images and calls. torchvision's own results: test_tone_torchvision.py."""
import numpy as np
import pytest

import augpy
from autotone_ref import autocontrast as ref
from conftest import host_tensor

SHAPES = {"HW": (13, 17), "CHW": (3, 13, 17), "HWC": (13, 17, 3), "NCHW": (2, 4, 9, 11), "NHWC": (2, 9, 11, 4)}


def image(rng, shape, dt):
    if dt == np.uint8:
        return rng.integers(20, 230, shape, dtype=np.uint8)
    return (rng.random(shape) * 0.6 + 0.1).astype(np.float32)


def run(x, layout=None, **kw):
    t = augpy.array_to_tensor(x)
    if layout:
        t.layout = layout
    r = augpy.autocontrast(t, **kw)
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
    assert augpy.tensor_to_array(augpy.autocontrast(h)).tobytes() == got.tobytes()  # the CPU
    if layout in ("HW", "CHW", "NCHW"):  # no layout string: channels first
        assert run(x).tobytes() == got.tobytes()


def test_flat_channel_and_nan():
    x = np.stack([np.full((5, 7), 77, np.uint8), np.arange(35, dtype=np.uint8).reshape(5, 7) + 100])
    got = run(x)
    assert np.array_equal(got[0], x[0]) and got[1].min() == 0 and got[1].max() == 254  # torch's float32: 254.99..
    assert np.array_equal(got, ref(x, "CHW"))
    f = np.random.default_rng(3).random((2, 5, 7), dtype=np.float32)
    f[1, 2, 3] = np.nan
    g = run(f)
    assert np.isnan(g[1]).all() and not np.isnan(g[0]).any() and g[0].min() == 0 and g[0].max() >= 0.9999999
    assert g.tobytes() == ref(f, "CHW").tobytes()


def test_out_in_place_and_views(rng):
    x = image(rng, (2, 3, 8, 8), np.float32)
    t = augpy.array_to_tensor(x)
    out = augpy.empty((2, 3, 8, 8), dtype=augpy.float32)
    assert augpy.autocontrast(t, out=out) is out
    assert np.array_equal(augpy.tensor_to_array(out), ref(x, "NCHW"))
    assert augpy.autocontrast(t, out=t) is t
    assert np.array_equal(augpy.tensor_to_array(t), ref(x, "NCHW"))
    v = augpy.array_to_tensor(x)[:, :, ::-2, 1::3]
    assert np.array_equal(augpy.tensor_to_array(augpy.autocontrast(v)), ref(x[:, :, ::-2, 1::3], "NCHW"))


def test_bad_images_and_calls():
    with pytest.raises(TypeError, match=r"augpy.autocontrast: image dtype float64 is not supported"):
        augpy.autocontrast(augpy.Tensor((3, 4, 4), dtype=augpy.float64))
    with pytest.raises(ValueError, match=r"augpy.autocontrast: image must be \(H, W\)"):
        augpy.autocontrast(augpy.Tensor((1, 1, 3, 4, 4), dtype=augpy.uint8))
    with pytest.raises(TypeError, match="augpy.autocontrast: imtensor must be"):
        augpy.autocontrast(None)
    with pytest.raises(TypeError, match="augpy.autocontrast: out has dtype uint8"):
        augpy.autocontrast(augpy.Tensor((3, 4, 4), dtype=augpy.float32), out=augpy.Tensor((3, 4, 4), dtype=augpy.uint8))
