"""augpy.invert (docs/colour.md) against torchvision's definition written out with NumPy
(uint8 255 - x, uint16 65535 - x, float 1.0 - x, per value; torchvision v2's invert): every
image layout, batches and single images, strided and foreign (NumPy) inputs, out= and in place,
on the session's device (the emulated CUDA device with MODE=emu) and the CPU alike; then bad
input: wrong dtypes, shapes and layouts, and hostile arguments."""
import numpy as np
import pytest

import augpy
from conftest import DEVICE, host_tensor

REF = {np.uint8: lambda x: 255 - x, np.uint16: lambda x: 65535 - x,
       np.float32: lambda x: np.float32(1.0) - x, np.float64: lambda x: 1.0 - x}


def values(rng, shape, dt):
    if np.issubdtype(dt, np.integer):
        return rng.integers(0, np.iinfo(dt).max + 1, shape, dtype=dt)
    return (rng.random(shape) * 1.4 - 0.2).astype(dt)  # outside [0, 1] too: no clamp


@pytest.mark.parametrize("dt", [np.uint8, np.uint16, np.float32, np.float64])
@pytest.mark.parametrize("layout,shape", [("HW", (7, 9)), ("HWC", (7, 9, 3)), ("CHW", (1, 7, 9)),
                                          ("NHWC", (4, 5, 6, 3)), ("NCHW", (4, 3, 5, 6))])
def test_matches_definition(rng, dt, layout, shape):
    x = values(rng, shape, dt)
    t = augpy.array_to_tensor(x)
    t.layout = layout
    r = augpy.invert(t)
    assert r.layout == layout and r.device == t.device
    got = augpy.tensor_to_array(r)
    assert got.dtype == x.dtype and np.array_equal(got, REF[dt](x))
    cpu = augpy.tensor_to_array(augpy.invert(host_tensor(x)))  # the CPU backend, byte for byte
    assert cpu.tobytes() == got.tobytes()


def test_every_uint8_value_and_float_specials():
    x = np.arange(256, dtype=np.uint8).reshape(16, 16)
    assert np.array_equal(augpy.tensor_to_array(augpy.invert(augpy.array_to_tensor(x))), 255 - x)
    f = np.array([[0.0, 1.0, -0.5, 2.0], [np.inf, -np.inf, np.nan, 0.1]], np.float32)
    got = augpy.tensor_to_array(augpy.invert(augpy.array_to_tensor(f)))
    assert np.array_equal(got, np.float32(1.0) - f, equal_nan=True)


def test_out_and_in_place(rng):
    x = values(rng, (2, 3, 8, 8), np.uint8)
    t = augpy.array_to_tensor(x)
    out = augpy.empty((2, 3, 8, 8), dtype=augpy.uint8)
    assert augpy.invert(t, out=out) is out
    assert np.array_equal(augpy.tensor_to_array(out), 255 - x)
    assert augpy.invert(t, out=t) is t  # in place
    assert np.array_equal(augpy.tensor_to_array(t), 255 - x)
    a = x.copy()  # a NumPy array in place (CPU memory: used without a copy)
    if DEVICE == "cpu":
        assert augpy.invert(a, out=a) is a
        assert np.array_equal(a, 255 - x)


def test_views_and_foreign_arrays(rng):
    x = values(rng, (3, 10, 12), np.float32)
    t = augpy.array_to_tensor(x)
    v = t[:, ::-2, 1::3]  # strided, reversed
    assert np.array_equal(augpy.tensor_to_array(augpy.invert(v)), np.float32(1.0) - x[:, ::-2, 1::3])
    got = augpy.invert(x[:, ::2])  # a NumPy view, on the CPU
    assert np.array_equal(augpy.tensor_to_array(got), np.float32(1.0) - x[:, ::2])
    e = augpy.invert(augpy.Tensor((0, 3, 4, 4), dtype=augpy.float32))
    assert e.shape == (0, 3, 4, 4)


@pytest.mark.parametrize("dt", ["int8", "int16", "int32", "float16", "bool_"])
def test_bad_dtype(dt):
    name = dt.rstrip("_")
    with pytest.raises(TypeError, match=f"augpy.invert: image dtype {name} is not supported"):
        augpy.invert(augpy.Tensor((3, 4, 4), dtype=getattr(augpy, dt)))


@pytest.mark.parametrize("shape", [(16,), (1, 1, 3, 4, 4), ()])
def test_bad_shape(shape):
    with pytest.raises(ValueError, match=r"augpy.invert: image must be \(H, W\), .* got shape"):
        augpy.invert(augpy.Tensor(shape, dtype=augpy.uint8))


def test_bad_layout_and_out():
    t = augpy.Tensor((3, 4, 4), dtype=augpy.uint8)
    t.layout = "XYZ"
    with pytest.raises(ValueError, match=r"augpy.invert: layout 'XYZ' is not supported \(HW, HWC, CHW, NHWC, NCHW\)"):
        augpy.invert(t)
    t = augpy.Tensor((3, 4, 4), dtype=augpy.uint8)
    with pytest.raises(ValueError, match="augpy.invert: out has shape"):
        augpy.invert(t, out=augpy.Tensor((3, 4, 5), dtype=augpy.uint8))
    with pytest.raises(TypeError, match="augpy.invert: out has dtype float32"):
        augpy.invert(t, out=augpy.Tensor((3, 4, 4), dtype=augpy.float32))
    wide = augpy.Tensor((3, 4, 8), dtype=augpy.uint8)
    with pytest.raises(ValueError, match="augpy.invert: out must be contiguous"):
        augpy.invert(t, out=wide[:, :, ::2])
    base = augpy.Tensor((4, 4, 4), dtype=augpy.uint8)
    with pytest.raises(ValueError, match="augpy.invert: out partially overlaps the image"):
        augpy.invert(base[:3], out=base[1:])


@pytest.mark.parametrize("arg", [None, "image", b"\x00" * 16, [[1, 2], [3, 4]], 3.5, object()])
def test_hostile_arguments(arg):
    with pytest.raises(TypeError, match="augpy.invert: imtensor must be"):
        augpy.invert(arg)


def test_hostile_calls():
    t = augpy.Tensor((3, 4, 4), dtype=augpy.uint8)
    with pytest.raises(TypeError, match="augpy.invert"):
        augpy.invert()
    with pytest.raises(TypeError, match="augpy.invert"):
        augpy.invert(t, t, t)
    with pytest.raises(TypeError, match="augpy.invert"):
        augpy.invert(t, bound=1.0)
    with pytest.raises(TypeError, match="augpy.invert: out must be"):
        augpy.invert(t, out="out")
    ro = np.zeros((3, 4, 4), np.uint8)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="augpy.invert"):
        augpy.invert(t, out=ro)
    assert augpy.invert(tensor=t).shape == (3, 4, 4)  # the alias of imtensor
