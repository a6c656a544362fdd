"""augpy.adjust_sharpness (docs/colour.md, "Per-channel tone ops") against torchvision v2's
definition written out with NumPy (autotone_ref.py): uint8 and float32 (values outside [0, 1]
too), every layout, one factor or one per image, images of at most 2 rows or columns (returned as
they are), strided views, out= and in place, the session's device against the CPU; then bad
factors, bad images and hostile arguments. torchvision's own results: test_tone_torchvision.py."""
import numpy as np
import pytest

import augpy
from autotone_ref import adjust_sharpness as ref
from conftest import host_tensor

SHAPES = {"HW": (13, 17), "CHW": (3, 13, 17), "HWC": (13, 17, 3), "NCHW": (3, 2, 9, 11), "NHWC": (3, 9, 11, 2)}


def image(rng, shape, dt):
    if dt == np.uint8:
        return rng.integers(0, 256, shape, dtype=np.uint8)
    return (rng.random(shape) * 1.2 - 0.1).astype(np.float32)


def tensor(x, layout):
    t = augpy.array_to_tensor(x)
    t.layout = layout
    return t


@pytest.mark.parametrize("dt", [np.uint8, np.float32])
@pytest.mark.parametrize("layout", list(SHAPES))
@pytest.mark.parametrize("factor", [0.0, 0.5, 1.0, 2.0, 7.25])
def test_matches_definition(rng, dt, layout, factor):
    x = image(rng, SHAPES[layout], dt)
    r = augpy.adjust_sharpness(tensor(x, layout), factor)
    assert r.layout == layout
    got = augpy.tensor_to_array(r)
    n = SHAPES[layout][0] if len(layout) == 4 else 1
    assert got.dtype == x.dtype and got.tobytes() == ref(x, layout, [factor] * n).tobytes()
    h = host_tensor(x)
    h.layout = layout
    assert augpy.tensor_to_array(augpy.adjust_sharpness(h, factor)).tobytes() == got.tobytes()  # the CPU


@pytest.mark.parametrize("dt", [np.uint8, np.float32])
def test_factor_per_image(rng, dt):
    x = image(rng, (4, 3, 10, 12), dt)
    f = [0.0, 0.3, 1.0, 3.0]
    for given in (f, np.array(f), augpy.array_to_tensor(np.array(f, np.float32)), tuple(f)):
        got = augpy.tensor_to_array(augpy.adjust_sharpness(x, given))
        assert got.tobytes() == ref(x, "NCHW", f).tobytes(), given


def test_small_images_are_kept():
    for shape in ((3, 2, 9), (3, 9, 2), (1, 1)):
        x = np.linspace(-0.5, 1.5, np.prod(shape), dtype=np.float32).reshape(shape)
        assert np.array_equal(augpy.tensor_to_array(augpy.adjust_sharpness(x, 2.0)), x)  # not clamped


def test_out_in_place_and_views(rng):
    x = image(rng, (2, 3, 8, 8), np.uint8)
    t = augpy.array_to_tensor(x)
    out = augpy.empty((2, 3, 8, 8), dtype=augpy.uint8)
    assert augpy.adjust_sharpness(t, [0.5, 2.0], out=out) is out
    assert np.array_equal(augpy.tensor_to_array(out), ref(x, "NCHW", [0.5, 2.0]))
    assert augpy.adjust_sharpness(t, 2.0, out=t) is t  # in place reads a copy of its neighbours
    assert np.array_equal(augpy.tensor_to_array(t), ref(x, "NCHW", [2.0, 2.0]))
    v = augpy.array_to_tensor(x)[:, :, ::-2, 1::2]
    assert np.array_equal(augpy.tensor_to_array(augpy.adjust_sharpness(v, 0.2)),
                          ref(x[:, :, ::-2, 1::2], "NCHW", [0.2, 0.2]))
    assert augpy.adjust_sharpness(augpy.Tensor((0, 3, 4, 4), dtype=augpy.float32), 2.0).shape == (0, 3, 4, 4)


@pytest.mark.parametrize("factor,exc,msg", [
    (-0.5, ValueError, r"augpy.adjust_sharpness: factor must be a finite number >= 0, got -0.5"),
    (float("nan"), ValueError, "augpy.adjust_sharpness: factor must be a finite number >= 0, got nan"),
    (float("inf"), ValueError, "augpy.adjust_sharpness: factor must be a finite number >= 0, got inf"),
    ([1, 2], ValueError, "augpy.adjust_sharpness: sharpness_factor has 2 values for 3 images"),
    ([1, 2, -1], ValueError, r"factor must be a finite number >= 0, got -1 \(image 2\)"),
    ("2", TypeError, "augpy.adjust_sharpness: sharpness_factor must be"),
    (None, TypeError, "augpy.adjust_sharpness: sharpness_factor must be"),
])
def test_bad_factors(factor, exc, msg):
    with pytest.raises(exc, match=msg):
        augpy.adjust_sharpness(augpy.Tensor((3, 3, 4, 4), dtype=augpy.uint8), factor)


def test_bad_images_and_calls():
    with pytest.raises(TypeError, match="augpy.adjust_sharpness: image dtype int8 is not supported"):
        augpy.adjust_sharpness(augpy.Tensor((3, 4, 4), dtype=augpy.int8), 1.0)
    with pytest.raises(ValueError, match=r"augpy.adjust_sharpness: sharpness_factor has 2 values for 1 image \(give 1\)"):
        augpy.adjust_sharpness(augpy.Tensor((3, 4, 4), dtype=augpy.uint8), [1, 2])
    t = augpy.Tensor((3, 4, 4), dtype=augpy.uint8)
    with pytest.raises(TypeError, match="augpy.adjust_sharpness"):
        augpy.adjust_sharpness(t)
    with pytest.raises(TypeError, match="augpy.adjust_sharpness: out must be"):
        augpy.adjust_sharpness(t, 1.0, out="out")
    with pytest.raises(ValueError, match="augpy.adjust_sharpness"):
        augpy.adjust_sharpness(t, 1.0, out=t[:, :2])


def test_hostile_factors():
    class Mutating:  # __float__ that empties the list it is read from
        def __init__(self, seq):
            self.seq = seq

        def __float__(self):
            self.seq.clear()
            return 1.0

    seq = [1.0, 1.0, 1.0]
    seq[0] = Mutating(seq)
    x = np.random.default_rng(5).integers(0, 256, (3, 1, 5, 5), dtype=np.uint8)
    got = augpy.adjust_sharpness(x, seq)  # read from a snapshot: factor 1 keeps every value
    assert np.array_equal(augpy.tensor_to_array(got), x)

    class Boom:
        def __float__(self):
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        augpy.adjust_sharpness(np.zeros((4, 4), np.uint8), Boom())
