"""The conventions every image op shares (docs/semantics.md "Conventions of image ops"): one
interpolation vocabulary parsed once in C (aliases, case, the default 'linear', one message), layout
strings with one message, and the old spellings (resize's 'bilinear', crop_mirror_normalize's
input_layout= / output_layout=) still accepted."""
import numpy as np
import pytest

import augpy


def image(rng, shape=(9, 11, 3)):
    return augpy.array_to_tensor(rng.integers(0, 256, shape, dtype=np.uint8))


@pytest.fixture
def rng():
    return np.random.default_rng(27)


# ---- interpolation -------------------------------------------------------------------------------

@pytest.mark.parametrize("name, canonical", [
    ("linear", "linear"), ("bilinear", "linear"), ("LINEAR", "linear"), ("inter_linear", "linear"),
    ("nearest", "nearest"), ("Inter_Nearest", "nearest"), ("area", "area"), ("INTER_AREA", "area")])
def test_resize_interp_aliases(rng, name, canonical):
    t = image(rng)
    want = augpy.resize(t, (5, 6), canonical).numpy()
    np.testing.assert_array_equal(augpy.resize(t, (5, 6), name).numpy(), want)
    np.testing.assert_array_equal(augpy.resize_batch([t, t], (5, 6), name, out_layout="NHWC").numpy()[1], want)


def test_default_is_linear_everywhere(rng):
    t = image(rng)
    np.testing.assert_array_equal(augpy.resize(t, (5, 6)).numpy(), augpy.resize(t, (5, 6), "linear").numpy())
    # the old default spelling stays accepted
    np.testing.assert_array_equal(augpy.resize(t, (5, 6), "bilinear").numpy(), augpy.resize(t, (5, 6)).numpy())
    eye = [[1, 0, 0.5], [0, 1, 0.25]]
    a = augpy.warp_affine(t, augpy.empty((3, 8, 8), dtype=augpy.uint8), eye)
    b = augpy.warp_affine(t, augpy.empty((3, 8, 8), dtype=augpy.uint8), eye, interpolation="Bilinear")
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    c = augpy.warp_affine(t, augpy.empty((3, 8, 8), dtype=augpy.uint8), eye, interpolation="inter_nearest")
    d = augpy.warp_affine(t, augpy.empty((3, 8, 8), dtype=augpy.uint8), eye, interpolation="nearest")
    np.testing.assert_array_equal(c.numpy(), d.numpy())


@pytest.mark.parametrize("call", [
    lambda t: augpy.resize(t, (4, 4), "cubic"),
    lambda t: augpy.resize_batch([t], (4, 4), "cubic"),
    lambda t: augpy.warp_affine(t, augpy.empty((3, 4, 4), dtype=augpy.uint8), [[1, 0, 0], [0, 1, 0]],
                                interpolation="cubic")])
def test_interp_one_message(rng, call):
    with pytest.raises(ValueError, match=r"augpy\.\w+: unknown interpolation 'cubic' "
                                         r"\(expected 'linear', 'nearest' or 'area'\)"):
        call(image(rng))


def test_interp_not_supported_names_op_and_modes(rng):
    with pytest.raises(ValueError, match=r"augpy.warp_affine: interpolation 'area' is not supported "
                                         r"\(linear, nearest\)"):
        augpy.warp_affine(image(rng), augpy.empty((3, 4, 4), dtype=augpy.uint8), [[1, 0, 0], [0, 1, 0]],
                          interpolation="inter_area")


def test_interp_none_is_the_default(rng):
    t = image(rng)
    np.testing.assert_array_equal(augpy.resize(t, (5, 6), None).numpy(), augpy.resize(t, (5, 6)).numpy())


# ---- layouts -------------------------------------------------------------------------------------

def test_cmn_old_and_new_layout_keywords(rng):
    t = image(rng, (3, 10, 12))
    old = augpy.crop_mirror_normalize(t, crop=(5, 5), input_layout="CHW", output_layout="HWC").numpy()
    new = augpy.crop_mirror_normalize(t, crop=(5, 5), layout="CHW", out_layout="HWC").numpy()
    np.testing.assert_array_equal(old, new)
    assert new.shape == (5, 5, 3)
    with pytest.raises(TypeError):
        augpy.crop_mirror_normalize(t, layout="CHW", input_layout="CHW")


@pytest.mark.parametrize("call, msg", [
    (lambda t: augpy.resize(t, (4, 4), layout="HCW"), r"augpy.resize: layout 'HCW' is not supported"),
    (lambda t: augpy.crop_mirror_normalize(t, layout="HCW"),
     r"augpy.crop_mirror_normalize: layout 'HCW' is not supported \(HWC, CHW, NHWC, NCHW\)"),
    (lambda t: augpy.warp_affine(t, augpy.empty((3, 4, 4), dtype=augpy.uint8), [[1, 0, 0], [0, 1, 0]],
                                 src_layout="HCW"),
     r"augpy.warp_affine: src_layout 'HCW' is not supported \(CHW, HWC\)")])
def test_layout_one_message(rng, call, msg):
    with pytest.raises(ValueError, match=msg):
        call(image(rng))


@pytest.mark.parametrize("call", [
    lambda t: augpy.resize(t, (4, 4), layout=3),
    lambda t: augpy.crop_mirror_normalize(t, out_layout=3),
    lambda t: augpy.warp_affine(t, augpy.empty((3, 4, 4), dtype=augpy.uint8), [[1, 0, 0], [0, 1, 0]], layout=3)])
def test_layout_type_message(rng, call):
    with pytest.raises(TypeError, match=r"augpy\.\w+: \w*layout must be a str or None, not 'int'"):
        call(image(rng))


# ---- results -------------------------------------------------------------------------------------

def test_every_op_returns_out(rng):
    """Each image op returns its result: out= itself when given (warp_affine: dst)."""
    chw = augpy.array_to_tensor(rng.integers(0, 256, (3, 8, 9), dtype=np.uint8))
    batch = augpy.array_to_tensor(rng.integers(0, 256, (2, 3, 8, 9), dtype=np.uint8))
    hwc = image(rng, (8, 9, 3))
    f32 = lambda *s: augpy.array_to_tensor(np.ones(s, np.float32))  # noqa: E731
    calls = [
        (lambda o: augpy.box_blur_single(chw, 3, out=o), (3, 8, 9)),
        (lambda o: augpy.gaussian_blur_single(chw, 1.0, out=o), (3, 8, 9)),
        (lambda o: augpy.gaussian_blur(batch, f32(2), 5, out=o), (2, 3, 8, 9)),
        (lambda o: augpy.lighting(batch, f32(2), f32(2, 3), augpy.array_to_tensor(np.zeros(2, np.float32)),
                                  0, 255, out=o), (2, 3, 8, 9)),
        (lambda o: augpy.adjust_brightness(chw, 1.5, out=o), (3, 8, 9)),
        (lambda o: augpy.rgb_to_grayscale(chw, out=o), (1, 8, 9)),
        (lambda o: augpy.color_jitter(batch, brightness=[1.0, 1.2], out=o), (2, 3, 8, 9)),
        (lambda o: augpy.resize(hwc, (4, 5), out=o), (4, 5, 3)),
        (lambda o: augpy.resize_batch([hwc, hwc], (4, 5), out=o), (2, 3, 4, 5)),
        (lambda o: augpy.flip_batch(batch, [1, 0], out=o), (2, 3, 8, 9)),
    ]
    for call, shape in calls:
        out = augpy.empty(shape, dtype=augpy.uint8)
        assert call(out) is out
        assert tuple(call(None).shape) == shape
    dst = augpy.empty((3, 8, 9), dtype=augpy.uint8)
    assert augpy.warp_affine(hwc, dst, [[1, 0, 0], [0, 1, 0]]) is dst
    out = augpy.empty((3, 4, 4), dtype=augpy.float32)
    assert augpy.crop_mirror_normalize(hwc, crop=(4, 4), out=out) is out
