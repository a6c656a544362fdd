"""augpy.color_jitter with the lighting fused (gammagrays, gammacolors, contrasts, vmin, vmax;
docs/colour.md) against its definition: augpy.color_jitter, then augpy.lighting with the values as
float32 tensors, byte for byte (each of the two is tested against independent references in
test_colour.py and test_lighting.py). uint8 and float32, 1 and 3 channels, random orders, each
jitter step on and off, small images (the CPU lighting's direct path) and larger ones (its
tables), in place and out of place, strided views, 1-3 threads; the CPU and CUDA backends byte for
byte (MODE=emu); the ColorJitter stage with lighting=True against ColorJitter then Lighting; bad
input."""
import math

import numpy as np
import pytest

import augpy
from augpy.image import ColorJitter, Lighting
from conftest import DEVICE, ON_CUDA, host_tensor

STEPS = ["brightness", "contrast", "saturation", "hue"]


def image(rng, dtype, n, c, h, w):
    if dtype == np.uint8:
        return rng.integers(0, 256, (n, c, h, w)).astype(np.uint8)
    x = (rng.random((n, c, h, w), dtype=np.float32) * 1.2 - 0.1).astype(np.float32)
    x[-1, 0, 0, :4] = [np.nan, np.inf, -np.inf, 3e38]  # carried through both ops alike
    return x


def light_params(rng, n, c, vmax):
    gg = rng.uniform(0.3, 3.0, n)
    gc = rng.uniform(0.5, 2.0, (n, c))
    ct = rng.uniform(-1.0, 1.0, n)
    ct[0], gg[0] = -1.0, 1.0  # the curves' ends
    if n > 1:
        ct[1] = 1.0
    if n > 2:
        ct[2] = 0.0
    return {"gammagrays": gg, "gammacolors": gc, "contrasts": ct, "vmin": 0, "vmax": vmax}


def jitter_params(rng, n, use):
    p = {"brightness": rng.uniform(0.0, 2.0, n), "contrast": rng.uniform(0.0, 2.0, n),
         "saturation": rng.uniform(0.0, 2.0, n), "hue": rng.uniform(-0.5, 0.5, n),
         "order": np.array([rng.permutation(4) for _ in range(n)], np.int32)}
    for k, s in enumerate(STEPS):
        if not use & (1 << k):
            p[s] = None
    return p


def reference(t, jp, lp):
    """color_jitter, then lighting with float32 parameter tensors."""
    r = augpy.color_jitter(t, **jp)
    f32 = lambda v: augpy.array_to_tensor(np.asarray(v, np.float32).reshape(-1))  # noqa: E731
    return augpy.lighting(r, f32(lp["gammagrays"]), f32(lp["gammacolors"]), f32(lp["contrasts"]), lp["vmin"],
                          lp["vmax"])


def same_bytes(got, want):
    g, w = augpy.tensor_to_array(got), augpy.tensor_to_array(want)
    assert g.dtype == w.dtype and g.shape == w.shape
    if g.tobytes() != w.tobytes():
        bad = np.argwhere(g.view(np.uint8) != w.view(np.uint8)) if g.dtype == np.uint8 else np.argwhere(
            (g != w) & ~(np.isnan(g) & np.isnan(w)))
        raise AssertionError(f"{len(bad)} of {g.size} differ, first at {bad[0].tolist()}: "
                             f"{g[tuple(bad[0])]} != {w[tuple(bad[0])]}")


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("c", [1, 3])
@pytest.mark.parametrize("size", [(7, 9), (23, 29)])  # 63 values per plane (lighting's direct path), 667
def test_fused_equals_jitter_then_lighting(rng, dtype, c, size):
    n = 6
    x = image(rng, dtype, n, c, *size)
    vmax = 255 if dtype == np.uint8 else 1.0
    for use in range(16):  # every subset of the four steps
        jp = jitter_params(rng, n, use)
        lp = light_params(rng, n, c, vmax)
        t = augpy.array_to_tensor(x)
        want = reference(t, jp, lp)
        assert augpy.tensor_to_array(want).tobytes() != augpy.tensor_to_array(augpy.color_jitter(t, **jp)).tobytes()
        same_bytes(augpy.color_jitter(t, **jp, **lp), want)
        # in place
        t2 = augpy.array_to_tensor(x)
        assert augpy.color_jitter(t2, out=t2, **jp, **lp) is t2
        same_bytes(t2, want)
        # into another tensor
        o = augpy.array_to_tensor(np.zeros_like(x))
        assert augpy.color_jitter(t, out=o, **jp, **lp) is o
        same_bytes(o, want)


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_fused_vmin_vmax_and_single_image(rng, dtype):
    x = image(rng, dtype, 4, 3, 19, 21)
    for vmin, vmax in ((10, 200), (-50.0, 300.0), (0.2, 0.7)):
        jp = jitter_params(rng, 4, 15)
        lp = dict(light_params(rng, 4, 3, vmax), vmin=vmin)
        t = augpy.array_to_tensor(x)
        same_bytes(augpy.color_jitter(t, **jp, **lp), reference(t, jp, lp))
    # one (C, H, W) image: N = 1; gammacolors as a flat list; numpy float32 inputs
    t1 = augpy.array_to_tensor(np.ascontiguousarray(x[0]))
    jp = {"brightness": [1.3], "contrast": [0.6], "saturation": [1.7], "hue": [0.2], "order": [[2, 0, 3, 1]]}
    lp = {"gammagrays": np.float32([0.8]), "gammacolors": [1.2, 0.9, 1.1], "contrasts": [-0.4], "vmin": 0,
          "vmax": 255 if dtype == np.uint8 else 1}
    same_bytes(augpy.color_jitter(t1, **jp, **lp), reference(t1, jp, lp))


def test_fused_parameters_are_rounded_to_float32(rng):
    """Values between float32 numbers give aug_lighting's result of their float32 roundings."""
    x = image(rng, np.float32, 2, 3, 16, 16)
    t = augpy.array_to_tensor(x)
    lp = {"gammagrays": [1.0 + 1e-9, 0.7 + 1e-12], "gammacolors": [[1.3 + 1e-10] * 3, [0.9] * 3],
          "contrasts": [0.3 + 1e-10, 1.0 + 1e-12], "vmin": 0, "vmax": 1}
    same_bytes(augpy.color_jitter(t, brightness=[1.1, 0.9], **lp), reference(t, {"brightness": [1.1, 0.9]}, lp))


@pytest.mark.skipif(not ON_CUDA, reason="the CUDA backend is not the default device (MODE=emu runs it)")
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("c", [1, 3])
def test_cpu_and_cuda_agree_bit_for_bit(rng, dtype, c):
    n = 5
    x = image(rng, dtype, n, c, 33, 47)
    for use in (15, 3, 12, 0):
        jp = jitter_params(rng, n, use)
        lp = light_params(rng, n, c, 255 if dtype == np.uint8 else 1.0)
        cpu = augpy.color_jitter(host_tensor(x), **jp, **lp)
        dev = augpy.array_to_tensor(x)
        assert dev.device == DEVICE
        got = augpy.color_jitter(dev, **jp, **lp)
        assert got.device == DEVICE
        assert augpy.tensor_to_array(got).tobytes() == augpy.tensor_to_array(cpu).tobytes()


def test_without_lighting_is_color_jitter(rng):
    x = image(rng, np.uint8, 3, 3, 12, 12)
    jp = jitter_params(rng, 3, 15)
    t = augpy.array_to_tensor(x)
    none = {"gammagrays": None, "gammacolors": None, "contrasts": None, "vmin": None, "vmax": None}
    same_bytes(augpy.color_jitter(t, **jp, **none), augpy.color_jitter(t, **jp))


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_stage_with_lighting_equals_two_stages(rng, dtype):
    n, c = 5, 3
    x = image(rng, dtype, n, c, 24, 20)
    vmax = 255 if dtype == np.uint8 else 1
    aug = [{"gamma_gray": 1.4, "gamma_color": [0.8, 1.0, 1.2], "contrast": 0.5},
           {"contrast": -0.7}, {}, {"gamma_color": 0.6}, {"gamma_gray": 0.5, "contrast": 1.0}]
    fused = ColorJitter(seed=5, lighting=True, max_value=vmax)
    b1 = fused({"image": augpy.array_to_tensor(x), "augmentation": [dict(a) for a in aug]})
    jitter, light = ColorJitter(seed=5), Lighting(n, c, 0, vmax)
    b2 = jitter({"image": augpy.array_to_tensor(x), "augmentation": [dict(a) for a in aug]})
    assert b1["augmentation"] == b2["augmentation"]
    # the Lighting stage straight after the ColorJitter stage, on the dicts ColorJitter returned:
    # its factors live under "color_jitter", so Lighting reads the lighting's own keys
    assert all(a["contrast"] == b.get("contrast") for a, b in zip(b2["augmentation"], aug) if "contrast" in b)
    light(b2)
    same_bytes(b1["image"], b2["image"])


def test_bad_input(rng):
    x = augpy.array_to_tensor(image(rng, np.uint8, 2, 3, 8, 8))
    ok = {"gammagrays": [1.0, 1.0], "gammacolors": [1.0] * 6, "contrasts": [0.0, 0.0], "vmin": 0, "vmax": 255}

    def bad(msg, exc=ValueError, **kw):
        with pytest.raises(exc, match=msg):
            augpy.color_jitter(x, brightness=[1.0, 1.1], **dict(ok, **kw))

    bad(r"augpy\.color_jitter: .*contrasts\[1\] = 1\.5 is outside \[-1, 1\]", contrasts=[0.0, 1.5])
    bad(r"contrasts\[0\] = -1\.01 is outside", contrasts=[-1.01, 0.0])
    bad(r"contrasts\[0\] = nan is outside", contrasts=[math.nan, 0.0])
    bad(r"gammagrays\[1\] = nan must be finite and > 0", gammagrays=[1.0, math.nan])
    bad(r"gammagrays\[0\] = 0 must be finite and > 0", gammagrays=[0.0, 1.0])
    bad(r"gammagrays\[0\] = 1e-60 must be finite and > 0 \(as float32\)", gammagrays=[1e-60, 1.0])
    bad(r"gammacolors\[4\] = inf must be finite", gammacolors=[1.0] * 4 + [math.inf, 1.0])
    bad(r"gammacolors\[0\] = -1 must be finite and > 0", gammacolors=[-1.0] + [1.0] * 5)
    bad(r"vmin = 255 and vmax = 255 must be finite with vmin < vmax", vmin=255)
    bad(r"vmin = 0 and vmax = nan must be", vmax=math.nan)
    bad(r"vmin = -inf and vmax = 255 must be", vmin=-math.inf)
    bad(r"gammagrays has 3 values for 2 images", gammagrays=[1.0] * 3)
    bad(r"contrasts has 1 values for 2 images", contrasts=[0.0])
    bad(r"gammacolors has 5 values for 2 images \(3 per image\)", gammacolors=[1.0] * 5)
    bad(r"gammacolors has 8 values for 2 images \(3 per image\)", gammacolors=[[1.0] * 4] * 2)
    bad(r"gammacolors must be a number or 6 numbers \(3 per image\), not \'str\'", TypeError, gammacolors="1")
    bad(r"vmax must be|vmax", TypeError, vmax="x")
    bad(r"the lighting needs gammagrays, gammacolors, contrasts, vmin and vmax; vmax is missing", vmax=None)
    bad(r"; gammagrays is missing", gammagrays=None)
    # the jitter's own checks still name augpy.color_jitter
    with pytest.raises(ValueError, match=r"augpy\.color_jitter: .*brightness\[0\] = -1"):
        augpy.color_jitter(x, brightness=[-1.0, 1.0], **ok)
    with pytest.raises(ValueError, match="must be below"):
        ColorJitter(lighting=True, min_value=3, max_value=3)


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_fused_strided_view_and_thread_count(rng, dtype):
    """A strided view (a flip of a crop) is read as its contiguous copy; any thread count gives the
    same bytes (the uint8 tables are built one task per (image, channel))."""
    base = image(rng, dtype, 5, 3, 30, 34)
    view = augpy.array_to_tensor(base)[:, :, 2:27, ::-1]
    copy = augpy.array_to_tensor(np.ascontiguousarray(base[:, :, 2:27, ::-1]))
    jp = jitter_params(rng, 5, 15)
    lp = light_params(rng, 5, 3, 255 if dtype == np.uint8 else 1.0)
    want = reference(copy, jp, lp)
    same_bytes(augpy.color_jitter(view, **jp, **lp), want)
    threads = augpy.get_num_threads()
    try:
        for k in (1, 2, 3):
            augpy.set_num_threads(k)
            same_bytes(augpy.color_jitter(copy, **jp, **lp), want)
    finally:
        augpy.set_num_threads(threads)
