"""The colour functions on uint16 images (issue 31; docs/semantics.md, "Image ops by dtype"):
against torchvision's own uint16 results (data/record_torchvision_colour_u16.py, bound 65535)
bit for bit, except where torchvision's float -> uint16 conversion wraps (adjust_hue of a value 1.0
times 65536: torch stores 0, augpy saturates to 65535); against the documented float32 rules in
NumPy; CPU and CUDA byte for byte (MODE=emu); the fused jitter + lighting against its two steps."""
import pathlib

import numpy as np
import pytest

import augpy
from conftest import DEVICE, ON_CUDA, host_tensor

DATA = np.load(pathlib.Path(__file__).parent / "data" / "torchvision_colour_u16.npz")
ADJUST = {"brightness": augpy.adjust_brightness, "contrast": augpy.adjust_contrast,
          "saturation": augpy.adjust_saturation, "hue": augpy.adjust_hue}


def run(fn, x, *args, **kw):
    return augpy.tensor_to_array(fn(augpy.array_to_tensor(np.ascontiguousarray(x)), *args, **kw))


def assert_bits(got, want, where=""):
    assert got.dtype == want.dtype == np.uint16 and got.shape == want.shape
    bad = np.argwhere(got != want)
    assert not len(bad), (f"{where}: {len(bad)} of {got.size} differ, first at {bad[0].tolist()}: "
                          f"{got[tuple(bad[0])]} != {want[tuple(bad[0])]}")


@pytest.mark.parametrize("name", list(ADJUST))
@pytest.mark.parametrize("c", [3, 1])
def test_adjust_matches_torchvision(name, c):
    x = np.ascontiguousarray(DATA["u16"][:, :c])
    wants = DATA[name] if c == 3 else DATA[f"{name}_c1"]
    for f, want in zip(DATA[f"{name}_factors"], wants):
        got = run(ADJUST[name], x, float(f))
        if name == "hue":
            # torch's .to(uint16) of 65536.0 wraps to 0; augpy's rule saturates
            wrapped = (want == 0) & (got == 65535)
            assert wrapped.sum() < got.size // 4
            want = np.where(wrapped, np.uint16(65535), want)
        assert_bits(got, want, f"{name}({f})")
        assert_bits(run(ADJUST[name], x[0], float(f)), want[0], f"{name}({f}) of one CHW image")


def test_grayscale_matches_torchvision():
    x = DATA["u16"]
    assert_bits(run(augpy.rgb_to_grayscale, x, 1), DATA["gray1"])
    assert_bits(run(augpy.rgb_to_grayscale, x, 3), DATA["gray3"])
    assert_bits(run(augpy.rgb_to_grayscale, x[:, :1], num_output_channels=3), np.repeat(x[:, :1], 3, 1))


def gray_f32(x):
    """r * 0.2989 + g * 0.587 + b * 0.114 in float32, torch's order (fma(b, .114, fma(g, .587, r *
    .2989))): each product is exact in float64, the sums rounded to float32 (no integer value of a
    uint16 grayscale sits near a float32 rounding tie, so the float64 sums give fmaf's bits here)."""
    r, g, b = (x[:, k].astype(np.float64) for k in range(3))
    t = (r * np.float64(np.float32(0.2989))).astype(np.float32).astype(np.float64)
    t = (g * np.float64(np.float32(0.587)) + t).astype(np.float32).astype(np.float64)
    return (b * np.float64(np.float32(0.114)) + t).astype(np.float32)


def test_documented_rules_on_full_range_noise(rng):
    """Brightness (trunc(min(x * f, 65535)) in float32) and grayscale (trunc of the float32 sum)
    on 200 000 full-range values against NumPy."""
    x = rng.integers(0, 65536, (2, 3, 200, 170), dtype=np.uint16)
    for f in (0.3, 0.99, 1.0, 1.7):
        want = np.trunc(np.minimum(x.astype(np.float32) * np.float32(f), np.float32(65535))).astype(np.uint16)
        assert_bits(run(augpy.adjust_brightness, x, f), want, f"brightness({f})")
    assert_bits(run(augpy.rgb_to_grayscale, x, 1), np.trunc(gray_f32(x))[:, None].astype(np.uint16), "gray")


def test_saturation_and_hue_keep_the_range_and_identity(rng):
    x = rng.integers(0, 65536, (2, 3, 64, 80), dtype=np.uint16)
    x[0, :, 0, :6] = [[65535, 0, 65535, 0, 65535, 65535], [65535] * 6, [0, 0, 65535, 65535, 0, 65535]]
    # hue(0) is torchvision's float32 round trip x / 65535 -> HSV -> RGB -> trunc(v * 65536): values
    # above 62 000 sit within 0.06 of the next integer there, and the HSV rounding can carry them
    # over (or, for the channels HSV recomputes, under): 0.3% of full-range noise moves by one
    d = run(augpy.adjust_hue, x, 0.0).astype(np.int64) - x
    assert np.abs(d).max() == 1 and (d == 0).mean() > 0.99
    assert_bits(run(augpy.adjust_saturation, x, 1.0), x, "saturation(1) is the identity")
    assert_bits(run(augpy.adjust_contrast, x, 1.0), x, "contrast(1) is the identity")
    white = np.full((3, 4, 4), 65535, np.uint16)
    assert_bits(run(augpy.adjust_hue, white, 0.3), white, "white stays white (saturated, not wrapped)")


def test_jitter_equals_its_steps_and_lighting(rng):
    n = 4
    x = rng.integers(0, 65536, (n, 3, 37, 29), dtype=np.uint16)
    p = augpy.color_jitter_params(augpy.RandomNumberGenerator(seed=5), n, brightness=0.5, contrast=0.6,
                                  saturation=0.7, hue=0.3)
    got = run(augpy.color_jitter, x, **p)
    for i in range(n):
        y = x[i]
        for k in p["order"][i]:
            name = ["brightness", "contrast", "saturation", "hue"][k]
            y = run(ADJUST[name], y, float(p[name][i]))
        assert_bits(got[i], y, f"image {i}")
    light = dict(gammagrays=[1.0, 0.45, 2.2, 1.3], gammacolors=np.linspace(0.6, 1.8, 3 * n).reshape(n, 3),
                 contrasts=[-1.0, 1.0, 0.35, -0.6], vmin=0.0, vmax=65535.0)
    fused = run(augpy.color_jitter, x, **p, **light)
    assert_bits(fused, run(augpy.lighting, got, light["gammagrays"], light["gammacolors"].ravel(),
                           light["contrasts"], 0.0, 65535.0), "jitter + lighting")


@pytest.mark.skipif(not ON_CUDA, reason="the CUDA backend is not the default device (MODE=emu runs it)")
@pytest.mark.parametrize("c", [1, 3])
def test_cpu_and_cuda_agree_bit_for_bit(rng, c):
    n = 3
    x = rng.integers(0, 65536, (n, c, 33, 47), dtype=np.uint16)
    p = augpy.color_jitter_params(augpy.RandomNumberGenerator(seed=11), n, brightness=0.5, contrast=0.6,
                                  saturation=0.7, hue=0.3)
    cpu = augpy.tensor_to_array(augpy.color_jitter(host_tensor(x), **p))
    dev = augpy.array_to_tensor(x)
    assert dev.device == DEVICE
    assert cpu.tobytes() == augpy.tensor_to_array(augpy.color_jitter(dev, **p)).tobytes()
    for name, fn in ADJUST.items():
        f = 0.3 if name == "hue" else 1.3
        assert (augpy.tensor_to_array(fn(host_tensor(x), f)).tobytes()
                == augpy.tensor_to_array(fn(augpy.array_to_tensor(x), f)).tobytes())
    for k in (1, 3):
        assert (augpy.tensor_to_array(augpy.rgb_to_grayscale(host_tensor(x), k)).tobytes()
                == augpy.tensor_to_array(augpy.rgb_to_grayscale(augpy.array_to_tensor(x), k)).tobytes())


@pytest.mark.parametrize("dtype", [np.int16, np.float16, np.uint32])
def test_other_integer_and_half_images_are_refused(dtype):
    with pytest.raises(TypeError, match=r"augpy.adjust_brightness: image dtype \w+ is not supported "
                                        r"\(uint8, uint16 or float32\)"):
        augpy.adjust_brightness(augpy.array_to_tensor(np.zeros((3, 4, 4), dtype)), 1.2)


def test_stages_on_uint16_batches(rng):
    """ColorJitter with its fused lighting (max_value=65535) equals ColorJitter then Lighting, and
    RandomGrayscale(p=1) is rgb_to_grayscale into 3 channels, on a uint16 batch."""
    from augpy.image import ColorJitter, Lighting, RandomGrayscale
    n = 4
    x = rng.integers(0, 65536, (n, 3, 21, 26), dtype=np.uint16)
    aug = [{"gamma_gray": 1.4, "gamma_color": [0.8, 1.0, 1.2], "contrast": 0.5}, {"contrast": -0.7}, {},
           {"gamma_gray": 0.5, "contrast": 1.0}]
    fused = ColorJitter(0.4, 0.4, 0.4, 0.1, seed=5, lighting=True, max_value=65535)
    b1 = fused({"image": augpy.array_to_tensor(x), "augmentation": [dict(a) for a in aug]})
    b2 = ColorJitter(0.4, 0.4, 0.4, 0.1, seed=5)({"image": augpy.array_to_tensor(x),
                                                  "augmentation": [dict(a) for a in aug]})
    Lighting(n, 3, 0, 65535)(b2)
    got = augpy.tensor_to_array(b1["image"])
    assert_bits(got, augpy.tensor_to_array(b2["image"]), "ColorJitter(lighting=True)")
    assert got.max() > 255
    g = RandomGrayscale(p=1.0, seed=1)({"image": augpy.array_to_tensor(x)})
    assert_bits(augpy.tensor_to_array(g["image"]), run(augpy.rgb_to_grayscale, x, 3), "RandomGrayscale")
