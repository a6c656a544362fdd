"""augpy.image.RandomGrayscale, RandomGaussianBlur and RandomJpegQuality: torchvision's
samplers (the definitions, chi-square / Kolmogorov-Smirnov at fixed seeds, and torchvision's own
recorded draws, data/torchvision_crops.npz by data/record_torchvision_crops.py), the pixels
(rgb_to_grayscale against torchvision's recorded output; the blur and the JPEG round trip
against augpy's own ops per recorded draw), per image on the session's device (`make
pytest-emu`: the emulated CUDA devices), recorded and replayed, pickled; bad input."""
import pathlib
import pickle

import numpy as np
import pytest

import augpy

TV = np.load(pathlib.Path(__file__).parent / "data" / "torchvision_crops.npz")


def tensor(a):
    return augpy.array_to_tensor(np.ascontiguousarray(a))


def images(n, c=3, h=8, w=10, dtype=np.uint8, seed=0):
    a = np.random.default_rng(seed).integers(0, 256, (n, c, h, w))
    return a.astype(dtype) if dtype == np.uint8 else (a / 255.0).astype(dtype)


def batch(a, seed=11):
    return {"image": tensor(a), "augmentation": [{"rng": (seed, 1, k)} for k in range(len(a))]}


def binomial_ok(hits, n, p):
    """hits of n within 4 standard deviations of n p."""
    return abs(hits - n * p) <= 4 * np.sqrt(n * p * (1 - p)) + 1e-9


def ks_uniform_ok(x, lo, hi):
    """One-sample KS against U(lo, hi) at the 0.1% level (asymptotic critical value 1.95 / sqrt(n))."""
    x = np.sort((np.asarray(x, float) - lo) / (hi - lo))
    n = len(x)
    d = max((np.arange(1, n + 1) / n - x).max(), (x - np.arange(n) / n).max())
    return d < 1.95 / np.sqrt(n), d


def ks2_ok(a, b):
    a, b = np.sort(np.asarray(a, float)), np.sort(np.asarray(b, float))
    grid = np.concatenate([a, b])
    d = np.abs(np.searchsorted(a, grid, side="right") / len(a) - np.searchsorted(b, grid, side="right") / len(b)).max()
    return d < 1.95 * np.sqrt((len(a) + len(b)) / (len(a) * len(b))), d


def chi2_uniform_ok(values, lo, hi):
    k = hi - lo + 1
    counts = np.bincount(np.asarray(values) - lo, minlength=k)
    exp = len(values) / k
    stat = ((counts - exp) ** 2 / exp).sum()
    df = k - 1
    crit = df * (1 - 2 / (9 * df) + 3.09 * np.sqrt(2 / (9 * df))) ** 3  # 0.1% (Wilson-Hilferty)
    return counts.size == k and stat < crit, stat


# ---- RandomGrayscale -------------------------------------------------------------------------------

def test_grayscale_pixels_match_torchvision():
    rgb = TV["rgb"]
    for dtype, want in ((np.uint8, TV["gray3"]), (np.float32, TV["gray3_float"])):
        a = rgb[None] if dtype == np.uint8 else (rgb[None].astype(np.float32) / 255)
        out = augpy.image.RandomGrayscale(p=1.0)({"image": tensor(a)})
        assert out["augmentation"][0]["grayscale"] is True
        np.testing.assert_array_equal(out["image"].numpy()[0], want)  # bit-exact, uint8 and float32


def test_grayscale_probability_per_image_and_replay():
    n, p = 3000, 0.3
    a = images(n, h=2, w=2)
    b = batch(a)
    out = augpy.image.RandomGrayscale(p=p)(b)
    flags = np.array([d["grayscale"] for d in out["augmentation"]])
    assert binomial_ok(flags.sum(), n, p), flags.sum()
    got = out["image"].numpy()
    np.testing.assert_array_equal(got[~flags], a[~flags])  # the others are untouched
    gray = augpy.rgb_to_grayscale(tensor(a[flags]), 3).numpy()
    np.testing.assert_array_equal(got[flags], gray)
    stage = augpy.image.RandomGrayscale(p=p)
    again = pickle.loads(pickle.dumps(stage))(batch(a))
    assert [d["grayscale"] for d in again["augmentation"]] == flags.tolist()
    replay = stage({"image": tensor(a), "augmentation": [{"grayscale": bool(f)} for f in flags]})
    np.testing.assert_array_equal(replay["image"].numpy(), got)
    one = augpy.image.RandomGrayscale(p=1.0)({"image": tensor(a[:4, :1])})  # one channel: unchanged
    np.testing.assert_array_equal(one["image"].numpy(), a[:4, :1])


def test_grayscale_runs_of_chosen_images_and_strided_batches():
    """The chosen images go through rgb_to_grayscale a run of consecutive images at a time, in
    place; a strided batch (a view) the same, through a copy: every image equals the per-image
    result and the others are untouched."""
    a = images(12, h=9, w=13, seed=3)
    flags = [True, True, False, True, False, False, True, True, True, False, True, True]
    want = a.copy()
    for k, f in enumerate(flags):
        if f:
            want[k] = augpy.rgb_to_grayscale(tensor(a[k]), 3).numpy()
    aug = [{"grayscale": f} for f in flags]
    out = augpy.image.RandomGrayscale(p=0.5)({"image": tensor(a), "augmentation": aug})
    np.testing.assert_array_equal(out["image"].numpy(), want)
    base = tensor(np.concatenate([a, a], axis=3))
    view = base[:, :, :, 13:]  # not contiguous
    out = augpy.image.RandomGrayscale(p=0.5)({"image": view, "augmentation": aug})
    np.testing.assert_array_equal(out["image"].numpy(), want)
    np.testing.assert_array_equal(base.numpy()[:, :, :, :13], a)


# ---- RandomGaussianBlur ------------------------------------------------------------------------------

def test_blur_sigma_sampler():
    n = 4000
    out = augpy.image.RandomGaussianBlur(3, sigma=(0.1, 2.0), seed=2)({"image": tensor(np.zeros((n, 1, 3, 3),
                                                                                               np.uint8))})
    sigmas = np.array([d["gaussian_blur"] for d in out["augmentation"]])
    assert ks_uniform_ok(sigmas, 0.1, 2.0)[0]
    assert ks_uniform_ok(TV["blur_sigmas"], 0.1, 2.0)[0]  # torchvision's own draws, the same test
    assert ks2_ok(sigmas, TV["blur_sigmas"])[0]
    half = augpy.image.RandomGaussianBlur(3, p=0.25, seed=2)({"image": tensor(np.zeros((n, 1, 3, 3), np.uint8))})
    applied = sum(d["gaussian_blur"] is not None for d in half["augmentation"])
    assert binomial_ok(applied, n, 0.25), applied


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_blur_pixels_per_image(dtype):
    a = images(6, h=12, w=14, dtype=dtype, seed=3)
    stage = augpy.image.RandomGaussianBlur(7, sigma=(0.5, 3.0), p=0.5, seed=1)
    out = stage(batch(a, seed=5))
    got = out["image"].numpy()
    sigmas = [d["gaussian_blur"] for d in out["augmentation"]]
    assert any(s is None for s in sigmas) and any(s is not None for s in sigmas)
    for k, s in enumerate(sigmas):
        if s is None:
            np.testing.assert_array_equal(got[k], a[k])
        else:
            want = augpy.gaussian_blur(tensor(a[k:k + 1]), np.float32([s]), 7).numpy()[0]
            np.testing.assert_array_equal(got[k], want)
            assert not np.array_equal(got[k], a[k])


# ---- RandomJpegQuality --------------------------------------------------------------------------------

def test_jpeg_quality_sampler():
    n = 4000
    out = augpy.image.RandomJpegQuality((20, 29), seed=4)
    u = np.empty((n, out.draws))
    augpy.RandomNumberGenerator(seed=4).uniform(u, 0.0, 1.0)
    qualities = np.array([out._draw(v) for v in u])
    staged = out({"image": tensor(np.zeros((50, 1, 8, 8), np.uint8))})
    assert all(20 <= d["jpeg_quality"] <= 29 for d in staged["augmentation"])
    for values in (qualities, TV["jpeg_qualities"]):
        ok, stat = chi2_uniform_ok(values, 20, 29)
        assert ok, stat
    a, b = np.bincount(qualities - 20, minlength=10), np.bincount(TV["jpeg_qualities"] - 20, minlength=10)
    e = (a + b) / 2
    assert (((a - e) ** 2 + (b - e) ** 2) / e).sum() < 27.88  # homogeneity, 9 df, 0.1%
    rng = augpy.RandomNumberGenerator(seed=8)
    u = np.empty((n, 2))
    rng.uniform(u, 0.0, 1.0)
    applied = sum(augpy.image.RandomJpegQuality(50, p=0.4)._draw(v) is not None for v in u)
    assert binomial_ok(applied, n, 0.4), applied


@pytest.mark.parametrize("c", [3, 1])
def test_jpeg_round_trip_per_image(c):
    a = images(4, c=c, h=17, w=23, seed=6)
    stage = augpy.image.RandomJpegQuality((10, 90), p=0.75, seed=3)
    out = stage(batch(a, seed=2))
    got = out["image"].numpy()
    dec = augpy.Decoder()
    qs = [d["jpeg_quality"] for d in out["augmentation"]]
    assert any(q is not None for q in qs)
    for k, q in enumerate(qs):
        if q is None:
            np.testing.assert_array_equal(got[k], a[k])
            continue
        img = a[k].transpose(1, 2, 0)
        data = augpy.encode_jpeg(img if c == 3 else img[:, :, 0], q)
        want = dec.decode(data, mode="unchanged").numpy()
        np.testing.assert_array_equal(got[k], want.transpose(2, 0, 1))
    replay = augpy.image.RandomJpegQuality((10, 90))({"image": tensor(a),
                                                      "augmentation": [{"jpeg_quality": q} for q in qs]})
    np.testing.assert_array_equal(replay["image"].numpy(), got)


# ---- bad input -------------------------------------------------------------------------------------

@pytest.mark.parametrize("make, err, match", [
    (lambda: augpy.image.RandomGrayscale(p=-0.1), ValueError, r"RandomGrayscale: p must be in \[0, 1\], got -0.1"),
    (lambda: augpy.image.RandomGrayscale(p=1.5), ValueError, r"RandomGrayscale: p must be in \[0, 1\], got 1.5"),
    (lambda: augpy.image.RandomGrayscale(p="x"), TypeError, r"RandomGrayscale: p must be a number"),
    (lambda: augpy.image.RandomGaussianBlur(3, p=2), ValueError, r"RandomGaussianBlur: p must be in \[0, 1\], got 2"),
    (lambda: augpy.image.RandomGaussianBlur(4), ValueError,
     r"RandomGaussianBlur: kernel_size must be odd, positive and below 2\*\*31, got 4"),
    (lambda: augpy.image.RandomGaussianBlur(2**70 + 1), ValueError, r"RandomGaussianBlur: kernel_size must be odd"),
    (lambda: augpy.image.RandomGaussianBlur(3, sigma=2**1100), ValueError, r"RandomGaussianBlur: sigma must be"),
    (lambda: augpy.image.RandomGaussianBlur(3, sigma=(0.1, 1e300)), ValueError, r"finite in float32"),
    (lambda: augpy.image.RandomJpegQuality(50, p=2**1100), ValueError, r"RandomJpegQuality: p must be in \[0, 1\]"),
    (lambda: augpy.image.RandomGaussianBlur((3, 5)), ValueError, r"kernel_size must be square .* got \(3, 5\)"),
    (lambda: augpy.image.RandomGaussianBlur(3, sigma=(2.0, 1.0)), ValueError,
     r"RandomGaussianBlur: sigma must be positive.* got \(2.0, 1.0\)"),
    (lambda: augpy.image.RandomGaussianBlur(3, sigma=0), ValueError, r"RandomGaussianBlur: sigma must be positive"),
    (lambda: augpy.image.RandomJpegQuality(0), ValueError, r"RandomJpegQuality: quality must be in 1..100 .* got 0"),
    (lambda: augpy.image.RandomJpegQuality(101), ValueError, r"RandomJpegQuality: quality .* got 101"),
    (lambda: augpy.image.RandomJpegQuality((60, 50)), ValueError, r"RandomJpegQuality: quality .* got \(60, 50\)"),
    (lambda: augpy.image.RandomJpegQuality(50, p=-1), ValueError, r"RandomJpegQuality: p must be in \[0, 1\], got -1"),
])
def test_bad_arguments(make, err, match):
    with pytest.raises(err, match=match):
        make()


def test_bad_batches():
    with pytest.raises(TypeError, match=r"RandomJpegQuality: the batch must be uint8"):
        augpy.image.RandomJpegQuality(50)({"image": tensor(np.zeros((1, 3, 8, 8), np.float32))})
    with pytest.raises(ValueError, match=r"RandomJpegQuality: images must have 1 or 3 channels, got 4"):
        augpy.image.RandomJpegQuality(50)({"image": tensor(np.zeros((1, 4, 8, 8), np.uint8))})
    with pytest.raises(ValueError, match=r"RandomJpegQuality: augmentation\[0\]\['jpeg_quality'\] .* got 0"):
        augpy.image.RandomJpegQuality(50)({"image": tensor(np.zeros((1, 3, 8, 8), np.uint8)),
                                           "augmentation": [{"jpeg_quality": 0}]})
    with pytest.raises(ValueError, match=r"RandomGrayscale: images must have 1 or 3 channels, got 2"):
        augpy.image.RandomGrayscale(1.0)({"image": tensor(np.zeros((1, 2, 8, 8), np.uint8))})
    with pytest.raises(ValueError, match=r"RandomGaussianBlur: augmentation\[0\]\['gaussian_blur'\] .* got 1e\+300"):
        augpy.image.RandomGaussianBlur(3)({"image": tensor(np.zeros((1, 3, 8, 8), np.uint8)),
                                           "augmentation": [{"gaussian_blur": 1e300}]})
    with pytest.raises(ValueError, match=r"RandomGaussianBlur: augmentation\[0\]\['gaussian_blur'\] .* got -1"):
        augpy.image.RandomGaussianBlur(3)({"image": tensor(np.zeros((1, 3, 8, 8), np.uint8)),
                                           "augmentation": [{"gaussian_blur": -1}]})
