"""augpy's random-resized-crop sampler and region decode against NVIDIA DALI's CPU
fn.decoders.image_random_crop (data/dali_rrc.npz, recorded by data/record_dali_rrc.py with
DALI 2.4; docs/rrc.md "Against DALI's image_random_crop"). DALI is not needed here.

- Sampler: augpy.random_resized_crop follows torchvision; DALI's generator draws the same area
  fraction and log-uniform aspect, so the crop distributions agree (two-sample KS, alpha =
  0.001) where both accept a try. They differ, as documented, in the fallback after 10 failed
  tries (DALI: the ratio-clamped window with int() instead of round(), at a RANDOM anchor;
  torchvision: round(), centred) and in DALI also rejecting a try whose rounded w/h leaves the
  ratio range: the tests check both the shared part and the documented differences.
- Pixels: augpy.Decoder().decode(jpeg, roi=...) equals DALI's decoded crops bit for bit (both
  libjpeg-turbo, ISLOW IDCT, fancy upsampling), for 4:2:0, 4:2:2, 4:4:4, grayscale and a
  progressive file, on the default device (CPU, or the emulated cuda:0 under MODE=emu)."""
import json
import math
import pathlib

import numpy as np
import pytest

import augpy
from jpegref import assert_decoded

DATA = np.load(pathlib.Path(__file__).with_name("data") / "dali_rrc.npz")
SIZES = [tuple(int(v) for v in s) for s in DATA["sizes"]]
LO, HI = (float(np.float32(r)) for r in DATA["ratio"])  # DALI holds the ratio range in float32
ALPHA_001 = 1.95  # KS critical value factor at alpha = 0.001


def ks(x, y):
    """Two-sample Kolmogorov-Smirnov statistic."""
    x, y = np.sort(x), np.sort(y)
    grid = np.concatenate([x, y])
    return np.abs(np.searchsorted(x, grid, "right") / len(x) - np.searchsorted(y, grid, "right") / len(y)).max()


def dali_crops(k):
    return DATA[f"crops_{k}"].astype(np.int64)


def augpy_crops(k, seed):
    H, W = SIZES[k]
    n = len(DATA[f"crops_{k}"])
    rng = augpy.RandomNumberGenerator(seed=seed)
    return augpy.random_resized_crop(rng, [(H, W)] * n, 224, scale=tuple(DATA["area"]),
                                     ratio=tuple(DATA["ratio"]))["crop"].astype(np.int64)


def fallback_shapes(H, W):
    """(DALI's, torchvision's) window after the failed tries: the whole image clamped to the
    ratio range, DALI with int() of a float32 product, torchvision with round()."""
    if W / H > HI:
        return (H, max(1, int(np.float32(H) * np.float32(HI)))), (H, round(H * DATA["ratio"][1]))
    if W / H < LO:
        return (max(1, int(np.float32(W) * np.float32(1 / np.float32(LO)))), W), (round(W / DATA["ratio"][0]), W)
    return (H, W), (H, W)


FEATURES = {
    "area fraction": lambda c, H, W: c[:, 2] * c[:, 3] / (H * W),
    "log aspect": lambda c, H, W: np.log(c[:, 3] / c[:, 2]),
    "centre y": lambda c, H, W: c[:, 0] + c[:, 2] / 2,
    "centre x": lambda c, H, W: c[:, 1] + c[:, 3] / 2,
}


def test_recording():
    assert str(DATA["dali_version"]).startswith("2.")
    for k, (H, W) in enumerate(SIZES):
        c = dali_crops(k)
        assert len(c) >= 2000 and int(DATA[f"located_exact_{k}"]) == len(c)
        # every DALI window lies in the image
        assert (c[:, :2] >= 0).all() and (c[:, 2:] >= 1).all()
        assert (c[:, 0] + c[:, 2] <= H).all() and (c[:, 1] + c[:, 3] <= W).all()


@pytest.mark.parametrize("k", [0, 1, 2])
def test_distribution_matches_dali(k):
    """Photo-sized images (DALI falls back ~never): same area, aspect and position laws."""
    H, W = SIZES[k]
    d, o = dali_crops(k), augpy_crops(k, 40 + k)
    crit = ALPHA_001 * math.sqrt(2.0 / len(d))
    for name, f in FEATURES.items():
        assert ks(f(o, H, W), f(d, H, W)) < crit, (H, W, name)
    # the anchor is uniform in [0, H - h] x [0, W - w] in both
    for axis in (0, 1):
        span = (H, W)[axis] - d[:, 2 + axis]
        rel_d = d[span > 0, axis] / span[span > 0]
        span_o = (H, W)[axis] - o[:, 2 + axis]
        rel_o = o[span_o > 0, axis] / span_o[span_o > 0]
        assert ks(rel_o, rel_d) < ALPHA_001 * math.sqrt(1 / len(rel_d) + 1 / len(rel_o))
    n = len(d)
    hist_d, edges = np.histogram(FEATURES["area fraction"](d, H, W), bins=10, range=(0, 1))
    hist_o, _ = np.histogram(FEATURES["area fraction"](o, H, W), bins=edges)
    assert np.abs(hist_o - hist_d).max() < 0.03 * n + 40


@pytest.mark.parametrize("k", range(5))
def test_dali_checks_the_rounded_ratio(k):
    """DALI rejects a try whose rounded w / h leaves [3/4, 4/3] (torchvision and augpy check only
    w <= W, h <= H: see the next test)."""
    H, W = SIZES[k]
    d = dali_crops(k)
    ratio = d[:, 3] / d[:, 2]
    # (the fallback windows are clamped to the range too)
    assert (ratio >= LO).all() and (ratio <= HI).all(), (H, W)


def test_augpy_rounded_ratio_may_leave_the_range():
    """torchvision's rule (augpy's): a few tenths of a percent of the photo-sized crops have a
    rounded w / h just outside [3/4, 4/3], by rounding only (|log error| < 1/h + 1/w)."""
    hw = np.concatenate([augpy_crops(k, 40 + k)[:, 2:] for k in range(3)])
    r = hw[:, 1] / hw[:, 0]
    outside = np.mean((r < 0.75) | (r > 4 / 3))
    assert 0 < outside < 0.01
    assert np.all(np.abs(np.log(r)) < math.log(4 / 3) + 1 / hw[:, 0] + 1 / hw[:, 1])


@pytest.mark.parametrize("k", [3, 4])
def test_fallback_differs_as_documented(k):
    """100x1000 and 333x50 fall back often. Same fallback rate, and the same law for the
    accepted tries; the fallback window is DALI's int() vs torchvision's round() of the
    clamped side (equal for 100x1000: 133; 66 vs 67 for 333x50), at a uniform random anchor in
    DALI, centred in torchvision/augpy."""
    H, W = SIZES[k]
    d, o = dali_crops(k), augpy_crops(k, 50 + k)
    fb_dali, fb_tv = fallback_shapes(H, W)
    assert fb_dali == ((100, 133) if k == 3 else (66, 50)) and fb_tv == ((100, 133) if k == 3 else (67, 50))
    is_fb_d = (d[:, 2] == fb_dali[0]) & (d[:, 3] == fb_dali[1])
    shape_o = (o[:, 2] == fb_tv[0]) & (o[:, 3] == fb_tv[1])
    is_fb_o = shape_o & (o[:, 0] == (H - fb_tv[0]) // 2) & (o[:, 1] == (W - fb_tv[1]) // 2)
    # augpy: (nearly) every window of the fallback shape is the centre one (a try of that shape is rare)
    assert is_fb_o.sum() >= 0.98 * shape_o.sum()
    assert 0.3 < is_fb_d.mean() < 0.9 and abs(is_fb_d.mean() - is_fb_o.mean()) < 0.05, (is_fb_d.mean(), is_fb_o.mean())
    if k == 4:  # torchvision's 67x50 fallback (w/h = 0.746) is outside DALI's ratio check: DALI never makes it
        assert not ((d[:, 2] == 67) & (d[:, 3] == 50)).any()
    # DALI's fallback anchor: uniform over the free axis (mean near the centre, the whole range used)
    axis = 1 if W > H else 0
    free = (W if axis else H) - (fb_dali[1] if axis else fb_dali[0])
    a = d[is_fb_d, axis]
    assert a.min() <= 0.02 * free and a.max() >= 0.98 * free
    assert abs(a.mean() - free / 2) < 4 * free / math.sqrt(12 * len(a))
    # the accepted tries: same law
    dd, oo = d[~is_fb_d], o[~is_fb_o]
    crit = ALPHA_001 * math.sqrt(1 / len(dd) + 1 / len(oo))
    for name, f in FEATURES.items():
        assert ks(f(oo, H, W), f(dd, H, W)) < crit, (H, W, name)


NAMES = json.loads(str(DATA["px_names"]))


@pytest.fixture(scope="module")
def dec():
    return augpy.Decoder()


@pytest.mark.parametrize("name", NAMES)
def test_region_decode_equals_dali(dec, name):
    """Bit for bit: DALI's image_random_crop windows (located in its full decode) and its
    image_slice windows at odd offsets, decoded by augpy with roi=(y, x, h, w)."""
    data = DATA[f"px/{name}/jpeg"].tobytes()
    full = DATA[f"px/{name}/full"]
    if dec.engine == "nvjpeg":  # a whole decode is nvJPEG's (chroma replicated); DALI's recorded one, its CPU's
        assert_decoded(dec.engine, dec.decode(data).numpy(), data)
    else:
        assert np.array_equal(dec.decode(data).numpy(), full)
    windows = DATA[f"px/{name}/windows"]
    assert len(windows) >= 8
    for i, (y, x, h, w) in enumerate(windows.tolist()):
        want = DATA[f"px/{name}/crop{i}"]
        assert want.shape == (h, w, 3)
        got = dec.decode(data, roi=(y, x, h, w))
        assert got.shape == (h, w, 3)
        assert np.array_equal(got.numpy(), want), (name, i, (y, x, h, w))


def test_imagenet_plan_of_a_dali_window_decodes_it(dec):
    """A DALI window warped to its own size through random_resized_crop's matrix convention at
    scale 8/8: the planned region decode holds the window, and the warp reproduces DALI's crop
    (identity scale: pixel centres land on pixel centres)."""
    data = DATA["px/s420/jpeg"].tobytes()
    y, x, h, w = DATA["px/s420/windows"][0].tolist()
    want = DATA["px/s420/crop0"]
    m = np.array([[1, 0, x], [0, 1, y]], np.float32)
    p = augpy.plan_decode(m, tuple(DATA["px/s420/full"].shape[:2]), (h, w), 1, dct_scale=False)
    ry, rx, rh, rw = p["roi"]
    assert ry <= y and rx <= x and ry + rh >= y + h and rx + rw >= x + w
    part = dec.decode(data, roi=tuple(int(v) for v in p["roi"]))
    out = augpy.zeros((3, h, w), augpy.uint8)
    augpy.warp_affine(part, out, p["matrix"], None, 1)
    assert np.array_equal(np.moveaxis(out.numpy(), 0, 2), want)


def test_torchvision_recording_shows_the_same_differences():
    """Peer against peer, no augpy: torchvision's recorded crops (data/rrc_torchvision.npz, case 0
    = the same scale and ratio) follow DALI's law on 480x640, and fall back to the centred
    round() window (100x133 at x = 433; 67x50 at y = 133) where DALI uses int() and a random anchor."""
    tv = np.load(pathlib.Path(__file__).with_name("data") / "rrc_torchvision.npz")
    assert np.allclose(tv["cases"][0], [*DATA["area"], *DATA["ratio"]])
    tv_sizes = [tuple(int(v) for v in s) for s in tv["sizes"]]
    for k, (H, W) in enumerate(SIZES):
        if (H, W) not in tv_sizes:
            continue
        t = tv[f"crops_0_{tv_sizes.index((H, W))}"].astype(np.int64)
        d = dali_crops(k)
        fb_dali, fb_tv = fallback_shapes(H, W)
        if k == 0:
            crit = ALPHA_001 * math.sqrt(1 / len(t) + 1 / len(d))
            for name, f in FEATURES.items():
                assert ks(f(t, H, W), f(d, H, W)) < crit, name
            continue
        shape_t = (t[:, 2] == fb_tv[0]) & (t[:, 3] == fb_tv[1])
        centred = shape_t & (t[:, 0] == (H - fb_tv[0]) // 2) & (t[:, 1] == (W - fb_tv[1]) // 2)
        assert centred.sum() >= 0.98 * shape_t.sum() and abs(centred.mean() - np.mean(
            (d[:, 2] == fb_dali[0]) & (d[:, 3] == fb_dali[1]))) < 0.05
