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
    lambda t: augpy.resize(t, (4, 4), "lanczos"),
    lambda t: augpy.resize_batch([t], (4, 4), "lanczos"),
    lambda t: augpy.warp_affine(t, augpy.empty((3, 4, 4), dtype=augpy.uint8), [[1, 0, 0], [0, 1, 0]],
                                interpolation="lanczos")])
def test_interp_one_message(rng, call):
    with pytest.raises(ValueError, match=r"augpy\.\w+: unknown interpolation 'lanczos' "
                                         r"\(expected 'linear', 'nearest', 'area' or 'cubic'\)"):
        call(image(rng))


def test_interp_not_supported_names_op_and_modes(rng):
    with pytest.raises(ValueError, match=r"augpy.warp_affine: interpolation 'area' is not supported "
                                         r"\(linear, nearest, cubic\)"):
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


# ---- a number or one per image -------------------------------------------------------------------

class _Hostile:
    """A number whose __float__ raises: the parser passes its error on."""
    def __float__(self):
        raise RuntimeError("hostile __float__")


def _batch(rng, n=2):
    return augpy.array_to_tensor(rng.integers(0, 256, (n, 3, 6, 7), dtype=np.uint8))


def _light(x, **kw):
    p = dict(gammagrays=[1.2, 1.2], gammacolors=[0.9] * 6, contrasts=[0.3, 0.3], vmin=0, vmax=255)
    return augpy.lighting(x, **dict(p, **kw))


def _jitter(x, **kw):
    return augpy.color_jitter(x, **kw)


def _cmn(x, **kw):
    return augpy.crop_mirror_normalize(x, crop=(4, 5), **kw)


# (call, name, scalar, per-image value for 2 images (the scalar repeated))
PER_IMAGE = [
    (lambda x, v: augpy.gaussian_blur(x, v, 9), "augpy.gaussian_blur: sigmas", 1.5),
    (lambda x, v: _light(x, gammagrays=v), "augpy.lighting: gammagrays", 1.2),
    (lambda x, v: _light(x, contrasts=v), "augpy.lighting: contrasts", 0.3),
    (lambda x, v: _jitter(x, brightness=v), "augpy.color_jitter: brightness", 1.25),
    (lambda x, v: _jitter(x, hue=v), "augpy.color_jitter: hue", 0.1),
    (lambda x, v: _cmn(x, crop_pos_x=v), "augpy.crop_mirror_normalize: crop_pos_x", 0.25),
    (lambda x, v: _cmn(x, mirror=v), "augpy.crop_mirror_normalize: mirror", 1),
]


@pytest.mark.parametrize("call, name, scalar", PER_IMAGE, ids=[p[1] for p in PER_IMAGE])
def test_per_image_number_sequence_array(rng, call, name, scalar):
    x = _batch(rng)
    want = call(x, [scalar, scalar]).numpy()
    for v in (scalar, (scalar, scalar), np.array([scalar, scalar]), np.float32(scalar), [np.float64(scalar)] * 2,
              (s for s in [scalar, scalar])):
        np.testing.assert_array_equal(call(x, v).numpy(), want)


@pytest.mark.parametrize("call, name, scalar", PER_IMAGE, ids=[p[1] for p in PER_IMAGE])
def test_per_image_one_message(rng, call, name, scalar):
    x = _batch(rng)
    with pytest.raises(TypeError, match=rf"^{name} must be a number or 2 numbers \(one per image\), not 'str'$"):
        call(x, "ab")
    with pytest.raises(TypeError, match=rf"^{name} must be a number or 2 numbers \(one per image\), not 'object'$"):
        call(x, object())
    with pytest.raises(ValueError, match=rf"^{name} has 3 values for 2 images$"):
        call(x, [scalar] * 3)
    with pytest.raises(RuntimeError, match="hostile __float__"):
        call(x, _Hostile())
    with pytest.raises(RuntimeError, match="hostile __float__"):
        call(x, [scalar, _Hostile()])


def test_per_image_per_channel_and_tensors(rng):
    x = _batch(rng)
    want = _light(x).numpy()
    # gammacolors: a number, N * C flat, (N, C) rows, a float32 tensor (as before)
    for v in (0.9, [0.9] * 6, [[0.9] * 3] * 2, np.full((2, 3), 0.9),
              augpy.array_to_tensor(np.full(6, 0.9, np.float32))):
        np.testing.assert_array_equal(_light(x, gammacolors=v).numpy(), want)
    with pytest.raises(ValueError, match=r"^augpy.lighting: gammacolors has 5 values for 2 images \(3 per image\)$"):
        _light(x, gammacolors=[0.9] * 5)
    sig = augpy.gaussian_blur(x, [1.5, 1.5], 9).numpy()
    np.testing.assert_array_equal(augpy.gaussian_blur(x, augpy.array_to_tensor(np.full(2, 1.5, np.float32)), 9).numpy(),
                                  sig)
    # an augpy tensor keeps the C function's own checks
    with pytest.raises(TypeError, match=r"augpy.gaussian_blur.*float32"):
        augpy.gaussian_blur(x, augpy.array_to_tensor(np.ones(2)), 9)


def test_warp_supersampling_one_message(rng):
    src = _batch(rng)
    dst = augpy.empty((2, 3, 6, 7), dtype=augpy.uint8)
    eye = [[1, 0, 0], [0, 1, 0]]
    with pytest.raises(TypeError,
                       match=r"warp_affine: supersampling must be an int or 2 ints \(one per image\), not 'str'"):
        augpy.warp_affine(src, dst, [eye, eye], supersampling="ab")
    with pytest.raises(ValueError, match=r"warp_affine: supersampling has 3 values for 2 images"):
        augpy.warp_affine(src, dst, [eye, eye], supersampling=[1, 1, 1])
