"""augpy's colour functions (docs/colour.md) against torchvision's own results, recorded by
data/record_torchvision_colour.py from torchvision.transforms.v2.functional on CPU tensors:
uint8 bit for bit, float32 bit for bit too except where a contrast step is involved (within 1e-6:
torch sums the float32 grayscale in its own order, docs/colour.md). Also: the batch jitter against its per-step definition, the CPU and CUDA backends byte for
byte (MODE=emu), ColorJitter's sampling, and bad input."""
import pathlib

import numpy as np
import pytest

import augpy
from conftest import DEVICE, ON_CUDA, host_tensor

DATA = np.load(pathlib.Path(__file__).parent / "data" / "torchvision_colour.npz")
STEPS = ["brightness", "contrast", "saturation", "hue"]
ADJUST = {"brightness": augpy.adjust_brightness, "contrast": augpy.adjust_contrast,
          "saturation": augpy.adjust_saturation, "hue": augpy.adjust_hue}


def run(fn, x, *args, **kw):
    return augpy.tensor_to_array(fn(augpy.array_to_tensor(np.ascontiguousarray(x)), *args, **kw))


def same(got, want, dt):
    assert got.dtype == want.dtype and got.shape == want.shape
    if dt in ("u8", "f32bits"):
        if not np.array_equal(got, want):
            bad = np.argwhere(got != want)
            raise AssertionError(f"{len(bad)} of {got.size} differ, first at {bad[0].tolist()}: "
                                 f"{got[tuple(bad[0])]} != {want[tuple(bad[0])]}")
    else:
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dt", ["u8", "f32"])
@pytest.mark.parametrize("name", STEPS)
def test_adjust_matches_torchvision(name, dt):
    x = DATA[dt]
    exact = "f32" if name == "contrast" and dt == "f32" else "u8"  # "u8": compare bits
    for f, want in zip(DATA[f"{name}_{dt}_factors"], DATA[f"{name}_{dt}"]):
        same(run(ADJUST[name], x, float(f)), want, exact)
        same(run(ADJUST[name], x[0], float(f)), want[0], exact)  # a single CHW image


@pytest.mark.parametrize("dt", ["u8", "f32"])
@pytest.mark.parametrize("name", STEPS)
def test_adjust_one_channel_matches_torchvision(name, dt):
    x = np.ascontiguousarray(DATA[dt][:, :1])
    exact = "f32" if name == "contrast" and dt == "f32" else "u8"
    for f, want in zip(DATA[f"{name}_{dt}_factors"], DATA[f"{name}_{dt}_c1"]):
        same(run(ADJUST[name], x, float(f)), want, exact)


@pytest.mark.parametrize("dt", ["u8", "f32"])
def test_grayscale_matches_torchvision(dt):
    x = DATA[dt]
    for k in (1, 3):
        same(run(augpy.rgb_to_grayscale, x, k), DATA[f"gray{k}_{dt}"], "u8")
        same(run(augpy.rgb_to_grayscale, x[:, :1], num_output_channels=k), DATA[f"gray{k}_{dt}_c1"], "u8")
    same(run(augpy.rgb_to_grayscale, x), DATA[f"gray1_{dt}"], "u8")


def test_grayscale_of_gray_pixels_is_truncated():
    """0.2989 + 0.587 + 0.114 = 0.9999: a gray uint8 pixel v > 0 becomes v - 1, as in torchvision."""
    v = np.arange(256, dtype=np.uint8)
    x = np.stack([v, v, v]).reshape(3, 16, 16)
    got = run(augpy.rgb_to_grayscale, x)
    np.testing.assert_array_equal(got.reshape(-1), np.maximum(v.astype(int) - 1, 0))


def _gray_definition(x):
    """torchvision's grayscale, fma(b, 0.114, fma(g, 0.587, r * 0.2989)) in float32, written with
    float64 steps that are exact here (8-bit and [0, 1] float32 inputs), rounded as fmaf rounds."""
    f = np.float32
    r, g, b = (x[:, c].astype(np.float64) for c in range(3))
    t = (r * f(0.2989).item()).astype(np.float32).astype(np.float64)
    t = (g * f(0.587).item() + t).astype(np.float32).astype(np.float64)
    gray = (b * f(0.114).item() + t).astype(np.float32)
    return np.trunc(gray).astype(np.uint8) if x.dtype == np.uint8 else gray


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_grayscale_in_place_and_vector_tails(dtype):
    """Sizes that end the CPU's 256-pixel blocks and 8-lane vectors mid-way; out= the image
    itself (RandomGrayscale's in-place runs) gives the same bits as a new tensor and as the
    definition, on the session's device."""
    rng = np.random.default_rng(5)
    for n, h, w in ((1, 1, 1), (2, 7, 3), (3, 37, 53), (2, 16, 16), (1, 224, 224)):
        a = rng.integers(0, 256, (n, 3, h, w))
        x = a.astype(np.uint8) if dtype == np.uint8 else (a / 255.0).astype(np.float32)
        want = _gray_definition(x)
        for k in (1, 3):
            same(run(augpy.rgb_to_grayscale, x, k), np.repeat(want[:, None], k, axis=1), "u8")
        t = augpy.array_to_tensor(np.ascontiguousarray(x))
        assert augpy.rgb_to_grayscale(t, 3, out=t) is t
        same(augpy.tensor_to_array(t), np.repeat(want[:, None], 3, axis=1), "u8")


def test_hsv_matches_torchvision():
    x = DATA["f32"]
    hsv = run(augpy.rgb_to_hsv, x)
    same(hsv, DATA["hsv_f32"], "f32bits")
    same(run(augpy.hsv_to_rgb, DATA["hsv_f32"]), DATA["rgb_from_hsv_f32"], "f32bits")
    np.testing.assert_allclose(run(augpy.hsv_to_rgb, hsv), x, atol=2e-6)


@pytest.mark.parametrize("dt", ["u8", "f32"])
@pytest.mark.parametrize("variant", ["all", "bc", "c1"])
def test_jitter_matches_torchvision(dt, variant):
    x = DATA[dt]
    x = np.concatenate([x] * (8 // len(x)))
    f = DATA["jitter_factors"]
    order = DATA["jitter_order"]
    kw = {s: f[:, k] for k, s in enumerate(STEPS)}
    if variant == "bc":
        kw["saturation"] = kw["hue"] = None
    if variant == "c1":
        x = np.ascontiguousarray(x[:, :1])
    want = DATA[{"all": f"jitter_{dt}", "bc": f"jitter_bc_{dt}", "c1": f"jitter_c1_{dt}"}[variant]]
    same(run(augpy.color_jitter, x, order=order, **kw), want, dt)
    # numpy arrays, lists and an order given as lists all work
    same(run(augpy.color_jitter, x, order=order.tolist(), **{k: (None if v is None else list(v))
                                                               for k, v in kw.items()}), want, dt)


def sequential(x, params, n):
    """The jitter's definition: per image, the adjust_* functions in the order."""
    out = []
    for i in range(n):
        t = augpy.array_to_tensor(np.ascontiguousarray(x[i]))
        for k in params["order"][i]:
            vals = params[STEPS[k]]
            if vals is not None:
                t = ADJUST[STEPS[k]](t, vals[i])
        out.append(augpy.tensor_to_array(t))
    return np.stack(out)


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("c", [1, 3])
def test_jitter_equals_sequential_steps(rng, dtype, c):
    n = 6
    x = rng.integers(0, 256, (n, c, 37, 41)).astype(np.uint8)
    if dtype == np.float32:
        x = rng.random((n, c, 37, 41), dtype=np.float32)
    gen = augpy.RandomNumberGenerator(seed=3)
    for spec in ({"brightness": 0.4, "contrast": 0.4, "saturation": 0.4, "hue": 0.1},
                 {"brightness": (0.0, 3.0), "contrast": (0.0, 3.0), "saturation": 0.9, "hue": 0.5},
                 {"contrast": 0.5, "hue": 0.2}, {"saturation": 0.5}, {}):
        params = augpy.color_jitter_params(gen, n, **spec)
        got = run(augpy.color_jitter, x, **params)
        same(got, sequential(x, params, n), "u8" if dtype == np.uint8 else "f32bits")


def test_jitter_in_place_and_out(rng):
    x = rng.integers(0, 256, (3, 3, 20, 30), dtype=np.uint8)
    p = {"brightness": [0.5, 1.2, 1.0], "contrast": [1.3, 0.7, 0.2], "saturation": [0.1, 2.0, 1.0],
         "hue": [0.1, -0.2, 0.5], "order": [[3, 2, 1, 0], [1, 0, 3, 2], [0, 1, 2, 3]]}
    want = run(augpy.color_jitter, x, **p)
    t = augpy.array_to_tensor(x)
    assert augpy.color_jitter(t, out=t, **p) is t
    np.testing.assert_array_equal(augpy.tensor_to_array(t), want)
    # per-image factors and the order as augpy tensors and numpy arrays
    t = augpy.array_to_tensor(x)
    got = augpy.color_jitter(t, brightness=augpy.array_to_tensor(np.array(p["brightness"])),
                             contrast=np.array(p["contrast"]), saturation=p["saturation"], hue=p["hue"],
                             order=augpy.array_to_tensor(np.array(p["order"], np.int32)))
    np.testing.assert_array_equal(augpy.tensor_to_array(got), want)
    o = augpy.array_to_tensor(np.zeros_like(x))
    assert augpy.adjust_hue(augpy.array_to_tensor(x), 0.25, out=o) is o
    np.testing.assert_array_equal(augpy.tensor_to_array(o), run(augpy.adjust_hue, x, 0.25))


def test_contrast_mean_of_a_large_image_is_exact():
    """A 1000 x 1000 white image: torchvision's float32 sum of 255 * 10^6 is exact only by luck of
    its summation order; ours is the exact sum, so the mean is 254 (the gray of 255 is 254.97) and
    the blend is exact."""
    x = np.full((3, 1000, 1000), 255, np.uint8)
    x[:, :500] = 0
    got = run(augpy.adjust_contrast, x, 0.5)
    # mean = floor(gray) = 254 on half the pixels: 127.0; 255 * 0.5 + 127 * 0.5 = 191, 0 + 63.5 -> 63
    assert set(np.unique(got[:, 500:])) == {191} and set(np.unique(got[:, :500])) == {63}


@pytest.mark.skipif(not ON_CUDA, reason="the CUDA backend is not the default device (MODE=emu runs it)")
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("c", [1, 3])
def test_cpu_and_cuda_agree_bit_for_bit(rng, dtype, c):
    n = 5
    x = rng.integers(0, 256, (n, c, 33, 47)).astype(np.uint8)
    if dtype == np.float32:
        x = rng.random((n, c, 33, 47), dtype=np.float32) * 1.2 - 0.1
    x = x.astype(dtype)
    p = augpy.color_jitter_params(augpy.RandomNumberGenerator(seed=11), n, brightness=0.5, contrast=0.6,
                                  saturation=0.7, hue=0.3)
    cpu = augpy.tensor_to_array(augpy.color_jitter(host_tensor(x), **p))
    dev = augpy.array_to_tensor(x)
    assert dev.device == DEVICE
    cuda = augpy.tensor_to_array(augpy.color_jitter(dev, **p))
    assert cpu.tobytes() == cuda.tobytes()
    for name in STEPS:
        f = 0.3 if name == "hue" else 1.3
        assert (augpy.tensor_to_array(ADJUST[name](host_tensor(x), f)).tobytes()
                == augpy.tensor_to_array(ADJUST[name](augpy.array_to_tensor(x), f)).tobytes())
    for k in (1, 3):
        assert (augpy.tensor_to_array(augpy.rgb_to_grayscale(host_tensor(x), k)).tobytes()
                == augpy.tensor_to_array(augpy.rgb_to_grayscale(augpy.array_to_tensor(x), k)).tobytes())
    if c == 3 and dtype == np.float32:
        for fn in (augpy.rgb_to_hsv, augpy.hsv_to_rgb):
            assert (augpy.tensor_to_array(fn(host_tensor(x))).tobytes()
                    == augpy.tensor_to_array(fn(augpy.array_to_tensor(x))).tobytes())


def uniforms(seed, n):
    """The draws color_jitter_params makes: one uniform fill of n * 7 float64 values."""
    u = np.empty(n * 7, np.float64)
    augpy.RandomNumberGenerator(seed=seed).uniform(u, 0.0, 1.0)
    return u.reshape(n, 7)


def test_params_follow_their_definition():
    n = 500
    p = augpy.color_jitter_params(augpy.RandomNumberGenerator(seed=42), n, brightness=0.4, contrast=(0.2, 1.9),
                                  saturation=0.0, hue=0.1)
    u = uniforms(42, n)
    np.testing.assert_allclose(p["brightness"], 0.6 + u[:, 0] * 0.8, rtol=1e-15)
    np.testing.assert_allclose(p["contrast"], 0.2 + u[:, 1] * 1.7, rtol=1e-15)
    assert p["saturation"] is None  # saturation=0 means (1, 1): not sampled, as in torchvision
    np.testing.assert_allclose(p["hue"], -0.1 + u[:, 3] * 0.2, rtol=1e-15, atol=1e-17)
    for i in range(n):
        perm = [0, 1, 2, 3]
        for k in (3, 2, 1):
            j = int(u[i, 4 + 3 - k] * (k + 1))
            perm[k], perm[j] = perm[j], perm[k]
        assert list(p["order"][i]) == perm
    # every permutation shows up, about equally often
    counts = {}
    for o in p["order"]:
        counts[o] = counts.get(o, 0) + 1
    assert len(counts) == 24 and max(counts.values()) < 45
    fixed = augpy.color_jitter_params(augpy.RandomNumberGenerator(seed=42), 3, brightness=0.4, random_order=False)
    assert fixed["order"] == [(0, 1, 2, 3)] * 3 and fixed["contrast"] is None
    assert augpy.color_jitter_params(augpy.RandomNumberGenerator(seed=42), n, brightness=0.4, contrast=(0.2, 1.9),
                                     saturation=0.0, hue=0.1) == p  # reproducible from the seed


def test_params_advance_the_generator():
    g = augpy.RandomNumberGenerator(seed=1)
    a = augpy.color_jitter_params(g, 4, brightness=0.4)
    b = augpy.color_jitter_params(g, 4, brightness=0.4)
    assert a != b and g.get_state()[1] == 2


BAD_FACTORS = [("brightness", -0.1), ("brightness", float("nan")), ("brightness", float("inf")),
               ("contrast", -1.0), ("contrast", float("nan")), ("saturation", -2.0), ("saturation", float("nan")),
               ("hue", 0.51), ("hue", -0.5001), ("hue", float("nan"))]


@pytest.mark.parametrize("name,f", BAD_FACTORS)
def test_bad_factors(name, f):
    t = augpy.array_to_tensor(np.zeros((2, 3, 4, 5), np.uint8))
    with pytest.raises(ValueError, match=f"augpy.adjust_{name}: .*{name}"):
        ADJUST[name](t, f)
    vals = [1.0 if name != "hue" else 0.0, f]
    with pytest.raises(ValueError, match=rf"augpy.color_jitter: {name}\[1\]"):
        augpy.color_jitter(t, **{name: vals})


def test_bad_images():
    for name, fn in ADJUST.items():
        for c in (2, 4):
            with pytest.raises(ValueError, match=f"augpy.adjust_{name}: image has {c} channels"):
                fn(augpy.array_to_tensor(np.zeros((1, c, 4, 4), np.uint8)), 0.1)
        with pytest.raises(TypeError, match=f"augpy.adjust_{name}: image dtype int16"):
            fn(augpy.array_to_tensor(np.zeros((1, 3, 4, 4), np.int16)), 0.1)
        with pytest.raises(ValueError, match=f"augpy.adjust_{name}: image must be"):
            fn(augpy.array_to_tensor(np.zeros((3, 4), np.uint8)), 0.1)
    strided = augpy.array_to_tensor(np.zeros((3, 4, 8), np.uint8))[:, :, ::2]
    with pytest.raises(ValueError, match="augpy.adjust_brightness: out must be contiguous"):
        augpy.adjust_brightness(strided, 1.1, out=strided)
    for fn in (augpy.rgb_to_hsv, augpy.hsv_to_rgb):
        with pytest.raises(ValueError, match="3 \\(RGB\\)"):
            fn(augpy.array_to_tensor(np.zeros((1, 4, 4), np.float32)))
        with pytest.raises(TypeError, match="float32 only"):
            fn(augpy.array_to_tensor(np.zeros((3, 4, 4), np.uint8)))
    with pytest.raises(ValueError, match="augpy.rgb_to_grayscale: num_output_channels must be 1 or 3, got 2"):
        augpy.rgb_to_grayscale(augpy.array_to_tensor(np.zeros((3, 4, 4), np.uint8)), 2)
    with pytest.raises(ValueError, match="augpy.rgb_to_grayscale: image has 4 channels"):
        augpy.rgb_to_grayscale(augpy.array_to_tensor(np.zeros((4, 4, 4), np.uint8)))
    t = augpy.array_to_tensor(np.zeros((2, 3, 4, 4), np.uint8))
    with pytest.raises(ValueError, match="augpy.adjust_hue: out is"):
        augpy.adjust_hue(t, 0.1, out=augpy.array_to_tensor(np.zeros((2, 3, 4, 5), np.uint8)))
    with pytest.raises(ValueError, match="augpy.rgb_to_grayscale: out is"):
        augpy.rgb_to_grayscale(t, 1, out=augpy.array_to_tensor(np.zeros((2, 3, 4, 4), np.uint8)))


def test_bad_per_image_arguments():
    t = augpy.array_to_tensor(np.zeros((2, 3, 4, 4), np.uint8))
    with pytest.raises(ValueError, match="augpy.color_jitter: brightness has 3 values for 2 images"):
        augpy.color_jitter(t, brightness=[1.0, 1.0, 1.0])
    # a number is one factor for every image (test_conventions.py); a str is not a number
    with pytest.raises(TypeError,
                       match=r"augpy.color_jitter: contrast must be a number or 2 numbers \(one per image\)"):
        augpy.color_jitter(t, contrast="1.0")
    with pytest.raises(ValueError, match="augpy.color_jitter: order has 1 rows"):
        augpy.color_jitter(t, brightness=[1, 1], order=[[0, 1, 2, 3]])
    with pytest.raises(ValueError, match=r"augpy.color_jitter: order\[1\] must be a sequence of 4 ints"):
        augpy.color_jitter(t, order=[[0, 1, 2, 3], [0, 1, 2]])
    for bad in ([0, 1, 2, 2], [0, 1, 2, 4], [-1, 0, 1, 2], [3, 2, 1, 99]):
        with pytest.raises(ValueError, match=r"augpy.color_jitter: order\[1\] = .* is not a permutation"):
            augpy.color_jitter(t, order=[[0, 1, 2, 3], bad])
    with pytest.raises(TypeError, match=r"augpy.color_jitter: order\[1\]\[3\] must be an int, not 'float'"):
        augpy.color_jitter(t, order=[[0, 1, 2, 3], [0, 1, 2, 3.5]])
    with pytest.raises(TypeError, match=r"augpy.color_jitter: order\[0\]\[0\] must be an int, not 'numpy.ndarray'"):
        augpy.color_jitter(t, order=np.zeros((2, 4, 1), np.int32))
    single = augpy.array_to_tensor(np.zeros((3, 4, 4), np.uint8))  # a CHW image is a batch of one
    augpy.color_jitter(single, brightness=[1.5], order=[[1, 0, 2, 3]])
    g = augpy.RandomNumberGenerator(seed=0)
    for kw, msg in (({"brightness": -0.1}, "brightness = -0.1 must be non-negative"),
                    ({"hue": 0.6}, r"hue = 0.6 must be in \[0, 0.5\]"),
                    ({"hue": (-0.6, 0.1)}, r"hue range \(-0.6, 0.1\) must lie in \[-0.5, 0.5\]"),
                    ({"contrast": (1.5, 0.5)}, "contrast range .* min <= max"),
                    ({"saturation": (-1.0, 0.5)}, "saturation range .* must lie in"),
                    ({"brightness": (1.0, 2.0, 3.0)}, "brightness must be a number or a pair"),
                    ({"contrast": (0.5, float("nan"))}, r"contrast range \(0.5, nan\) must be finite")):
        with pytest.raises(ValueError, match="augpy.color_jitter_params: " + msg):
            augpy.color_jitter_params(g, 2, **kw)
    with pytest.raises(ValueError, match="augpy.color_jitter_params: n = -1"):
        augpy.color_jitter_params(g, -1)
    assert g.get_state()[1] == 0  # failed calls draw nothing


@pytest.mark.parametrize("view", ["crop", "flip", "step", "transpose"])
def test_strided_views_equal_contiguous(view):
    """Views (a crop, a flip, a step, HWC -> CHW) are read as the contiguous copy would be."""
    rng = np.random.default_rng(3)
    base = rng.integers(0, 256, (2, 3, 12, 14), dtype=np.uint8)
    t = augpy.array_to_tensor(base)
    if view == "crop":
        v, ref = t[:, :, 2:9, 3:11], base[:, :, 2:9, 3:11]
    elif view == "flip":
        v, ref = t[:, :, ::-1, ::-1], base[:, :, ::-1, ::-1]
    elif view == "step":
        v, ref = t[:, :, ::2, 1::3], base[:, :, ::2, 1::3]
    else:
        hwc = rng.integers(0, 256, (12, 14, 3), dtype=np.uint8)
        v, ref = augpy.array_to_tensor(hwc).transpose(2, 0, 1), hwc.transpose(2, 0, 1)
    want_t = augpy.array_to_tensor(np.ascontiguousarray(ref))
    kw = dict(brightness=[1.2] * (ref.shape[0] if ref.ndim == 4 else 1), contrast=None, saturation=None, hue=None)
    if ref.ndim == 3:
        kw["brightness"] = [1.2]
    for fn, args in [(augpy.adjust_brightness, (1.3,)), (augpy.adjust_contrast, (0.7,)),
                     (augpy.adjust_saturation, (1.5,)), (augpy.adjust_hue, (0.1,))]:
        np.testing.assert_array_equal(fn(v, *args).numpy(), fn(want_t, *args).numpy())
    np.testing.assert_array_equal(augpy.color_jitter(v, **kw).numpy(), augpy.color_jitter(want_t, **kw).numpy())
