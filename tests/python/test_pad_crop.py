"""augpy.pad, augpy.random_crop / augpy.image.RandomCrop and augpy.five_crop / ten_crop:
pad bit-exact with numpy.pad (the independent reference) in every mode, layout, dtype and
padding size (wider than the image included), on the session's device (`make pytest-emu` runs
it on the emulated CUDA devices); torchvision's own pad, RandomCrop (its recorded make_params
replayed), five_crop and ten_crop (data/torchvision_crops.npz, recorded with torchvision 0.29.2
by data/record_torchvision_crops.py); RandomCrop's corner distribution (chi-square against the
uniform definition and two-sample against torchvision's draws); the seed model; bad input."""
import pathlib
import pickle

import numpy as np
import pytest

import augpy
from augpy._crop import crop_params
from augpy._pad import parse_padding

TV = np.load(pathlib.Path(__file__).parent / "data" / "torchvision_crops.npz")
NP_MODES = {"constant": "constant", "edge": "edge", "reflect": "reflect", "symmetric": "symmetric"}


def tensor(a, layout=None):
    t = augpy.array_to_tensor(np.ascontiguousarray(a))
    if layout:
        t.layout = layout
    return t


def np_pad(a, lay, padding, mode, fill):
    """numpy.pad of an image / batch of layout lay by (left, top, right, bottom)."""
    l, t, r, b = padding
    width = [(0, 0)] * a.ndim
    width[lay.index("H")], width[lay.index("W")] = (t, b), (l, r)
    if mode != "constant":
        return np.pad(a, width, mode=NP_MODES[mode])
    if np.ndim(fill) == 0:
        return np.pad(a, width, mode="constant", constant_values=fill)
    out = np.empty([s + sum(w) for s, w in zip(a.shape, width)], a.dtype)
    c_ax = lay.index("C")
    for c, v in enumerate(fill):
        idx = [slice(None)] * a.ndim
        idx[c_ax] = c
        out[tuple(idx)] = np.pad(a[tuple(idx)], [w for i, w in enumerate(width) if i != c_ax], constant_values=v)
    return out


SHAPES = {"HW": (5, 7), "HWC": (5, 7, 3), "CHW": (3, 5, 7), "NCHW": (2, 3, 5, 7), "NHWC": (2, 5, 7, 3)}


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric"])
@pytest.mark.parametrize("lay", list(SHAPES))
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("padding", [0, 2, (1, 3), (1, 2, 3, 4), (9, 0, 0, 13), (0, 6, 11, 0)])
def test_pad_equals_numpy(mode, lay, dtype, padding):
    rng = np.random.default_rng(1)
    a = (rng.integers(0, 256, SHAPES[lay]) if dtype == np.uint8 else rng.normal(size=SHAPES[lay])).astype(dtype)
    fill = (10, 20, 30) if mode == "constant" and "C" in lay else 7
    got = augpy.pad(tensor(a, lay), padding, fill=fill, padding_mode=mode)
    full = parse_padding(padding, "t")
    want = np_pad(a, lay, full, mode, fill)
    assert got.shape == want.shape and got.layout == lay
    np.testing.assert_array_equal(got.numpy(), want)


def test_pad_degenerate_images_and_default_layout():
    a = np.arange(3 * 1 * 1, dtype=np.uint8).reshape(3, 1, 1)  # 1 x 1: every mode repeats the pixel
    for mode in ("edge", "reflect", "symmetric"):
        np.testing.assert_array_equal(augpy.pad(tensor(a, "CHW"), 3, padding_mode=mode).numpy(),
                                      np.pad(a, [(0, 0), (3, 3), (3, 3)], mode=mode))
    b = np.arange(2 * 6 * 3, dtype=np.uint8).reshape(6, 3, 2)  # HWC without a layout string: the shape's
    np.testing.assert_array_equal(augpy.pad(b, (1, 2)).numpy(), np.pad(b, [(2, 2), (1, 1), (0, 0)]))


def test_pad_matches_torchvision():
    image = TV["image"]
    for mode in ("constant", "edge", "reflect", "symmetric"):
        fill = [10, 20, 30] if mode == "constant" else 0
        got = augpy.pad(tensor(image), [1, 2, 3, 4], fill=fill, padding_mode=mode)
        np.testing.assert_array_equal(got.numpy(), TV[f"pad_{mode}"], err_msg=mode)


def test_pad_targets_follow():
    img = tensor(np.zeros((3, 10, 12), np.uint8))
    _, moved = augpy.pad(img, (2, 3, 0, 0), targets={"boxes": np.array([[1.0, 1.0, 5.0, 6.0]])})
    np.testing.assert_allclose(moved["boxes"].numpy() if hasattr(moved["boxes"], "numpy") else moved["boxes"],
                               [[3.0, 4.0, 7.0, 9.0]])


@pytest.mark.parametrize("padding, err, match", [
    (-1, ValueError, r"augpy.pad: padding must be >= 0, got -1"),
    ((1, -2), ValueError, r"augpy.pad: padding must be >= 0, got \(1, -2\)"),
    ((1, 2, 3), ValueError, r"augpy.pad: padding must have 1, 2 or 4 values, got 3"),
    (1.5, TypeError, r"augpy.pad: padding must be an int"),
    ("2", TypeError, r"augpy.pad: padding must be an int"),
    (2**1100, ValueError, r"augpy.pad: padding must be below 2\*\*24"),
])
def test_pad_bad_padding(padding, err, match):
    with pytest.raises(err, match=match):
        augpy.pad(tensor(np.zeros((3, 4, 5), np.uint8)), padding)


def test_pad_bad_mode_and_empty_image():
    with pytest.raises(ValueError, match=r"augpy.pad: padding_mode must be .* got 'wrap'"):
        augpy.pad(tensor(np.zeros((3, 4, 5), np.uint8)), 1, padding_mode="wrap")
    for fill in (2**1100, float("nan"), "x"):
        with pytest.raises(ValueError, match=r"augpy.pad: fill must be a finite number or one per channel"):
            augpy.pad(tensor(np.zeros((3, 4, 5), np.uint8)), 1, fill=fill)
    with pytest.raises(ValueError, match=r"augpy.pad: an empty 0 x 5 image"):
        augpy.pad(tensor(np.zeros((3, 0, 5), np.uint8)), 1, padding_mode="edge")


# ---- RandomCrop ---------------------------------------------------------------------------------

def _case(i):
    sh, sw, l, t, r, b, needed = (int(v) for v in TV["crop_cases"][i])
    padding = None if l < 0 else (l, t, r, b)
    return (sh, sw), padding, bool(needed)


@pytest.mark.parametrize("i", range(len(TV["crop_cases"])))
def test_random_crop_replays_torchvision(i):
    size, padding, needed = _case(i)
    params = TV[f"crop_{i}_params"]
    stage = augpy.image.RandomCrop(size, padding=padding, pad_if_needed=needed, fill=7,
                                   padding_mode="reflect" if padding else "constant")
    image = tensor(TV["image"][None])
    batch = stage({"image": image, "augmentation": [{"random_crop": (int(params[4]), int(params[5]))}]})
    np.testing.assert_array_equal(batch["image"].numpy()[0], TV[f"crop_{i}_out"])
    # the padding torchvision chose is the one augpy computes
    pads, _, _ = crop_params(7, 9, size, padding, needed, 0.0, 0.0, "t")
    assert list(pads) == [int(params[0]), int(params[1]), int(params[2]), int(params[3])]


def chi2_uniform_ok(values, k):
    """Chi-square of k equally likely values at the 0.1% level (Wilson-Hilferty's critical value)."""
    counts = np.bincount(values, minlength=k)
    exp = len(values) / k
    stat = ((counts - exp) ** 2 / exp).sum()
    df = k - 1
    crit = df * (1 - 2 / (9 * df) + 3.09 * np.sqrt(2 / (9 * df))) ** 3
    return stat < crit and counts.size == k, stat, crit


def test_random_crop_corner_distribution():
    stage = augpy.image.RandomCrop((1, 4), seed=3)
    n = 4000
    batch = stage({"image": tensor(np.zeros((n, 1, 1, 13), np.uint8))})
    lefts = np.array([a["random_crop"][1] for a in batch["augmentation"]])
    ok, stat, crit = chi2_uniform_ok(lefts, 10)
    assert ok, (stat, crit)
    ok, stat, crit = chi2_uniform_ok(TV["crop_lefts"], 10)  # torchvision's own draws pass the same test
    assert ok, (stat, crit)
    # and the two samples agree (chi-square of homogeneity, 9 degrees of freedom, 0.1%: 27.88)
    a, b = np.bincount(lefts, minlength=10), np.bincount(TV["crop_lefts"], minlength=10)
    e = (a + b) / 2
    assert (((a - e) ** 2 + (b - e) ** 2) / e).sum() < 27.88


def test_random_crop_per_image_recorded_and_replayed():
    rng = np.random.default_rng(2)
    a = rng.integers(0, 256, (5, 3, 12, 14)).astype(np.uint8)
    stage = augpy.image.RandomCrop((8, 8), padding=2, padding_mode="symmetric")
    aug = [{"rng": (4, 0, k)} for k in range(5)]
    out = stage({"image": tensor(a), "augmentation": aug})
    padded = np.pad(a, [(0, 0), (0, 0), (2, 2), (2, 2)], mode="symmetric")
    corners = [d["random_crop"] for d in out["augmentation"]]
    assert len(set(corners)) > 1  # per image
    for k, (top, left) in enumerate(corners):
        np.testing.assert_array_equal(out["image"].numpy()[k], padded[k, :, top:top + 8, left:left + 8])
    again = pickle.loads(pickle.dumps(stage))({"image": tensor(a), "augmentation": aug})
    assert [d["random_crop"] for d in again["augmentation"]] == corners  # a pure function of rng
    replay = augpy.image.RandomCrop((8, 8), padding=2, padding_mode="symmetric")(
        {"image": tensor(a), "augmentation": [{"random_crop": c} for c in corners]})
    np.testing.assert_array_equal(replay["image"].numpy(), out["image"].numpy())


def test_random_crop_functional():
    a = np.arange(3 * 6 * 7, dtype=np.uint8).reshape(3, 6, 7)
    got = augpy.random_crop(tensor(a), 4, padding=1, rng=augpy.RandomNumberGenerator(seed=1)).numpy()
    padded = np.pad(a, [(0, 0), (1, 1), (1, 1)])
    hits = [(t, l) for t in range(5) for l in range(6) if np.array_equal(padded[:, t:t + 4, l:l + 4], got)]
    assert hits
    same = augpy.random_crop(tensor(a), 4, padding=1, rng=augpy.RandomNumberGenerator(seed=1)).numpy()
    np.testing.assert_array_equal(got, same)
    np.testing.assert_array_equal(augpy.random_crop(tensor(a), (6, 7)).numpy(), a)  # the whole image


def test_random_crop_bad_input():
    img = tensor(np.zeros((3, 6, 7), np.uint8))
    with pytest.raises(ValueError, match=r"augpy.random_crop: crop size \(8, 8\) is larger than the image \(6, 7\)"):
        augpy.random_crop(img, 8)
    np.testing.assert_array_equal(augpy.random_crop(img, 8, pad_if_needed=True).shape, (3, 8, 8))
    with pytest.raises(ValueError, match=r"RandomCrop: crop size \(9, 9\) is larger than the padded image \(8, 9\)"):
        augpy.image.RandomCrop(9, padding=1)({"image": tensor(np.zeros((1, 3, 6, 7), np.uint8))})
    with pytest.raises(ValueError, match=r"augpy.random_crop: padding must be below 2\*\*24"):
        augpy.random_crop(img, 3, padding=2**1100)
    with pytest.raises(ValueError, match=r"RandomCrop: size must be below 2\*\*24"):
        augpy.image.RandomCrop(2**40)
    with pytest.raises(ValueError, match=r"RandomCrop: padding must be >= 0, got -1"):
        augpy.image.RandomCrop(4, padding=-1)
    with pytest.raises(ValueError, match=r"RandomCrop: size must be >= 1, got 0"):
        augpy.image.RandomCrop(0)
    with pytest.raises(ValueError, match=r"RandomCrop: padding_mode must be"):
        augpy.image.RandomCrop(4, padding_mode="mirror")
    with pytest.raises(ValueError, match=r"RandomCrop: augmentation\[0\]\['random_crop'\] = \(5, 0\) is outside"):
        augpy.image.RandomCrop(4)({"image": tensor(np.zeros((1, 3, 6, 7), np.uint8)),
                                   "augmentation": [{"random_crop": (5, 0)}]})


# ---- five_crop / ten_crop -------------------------------------------------------------------------

def test_five_and_ten_crop_match_torchvision():
    big = tensor(TV["big"])
    for k, c in enumerate(augpy.five_crop(big, (5, 6))):
        np.testing.assert_array_equal(c.numpy(), TV[f"five_{k}"], err_msg=str(k))
    for tag, vertical in (("h", False), ("v", True)):
        crops = augpy.ten_crop(big, [5, 6], vertical_flip=vertical)
        assert len(crops) == 10
        for k, c in enumerate(crops):
            np.testing.assert_array_equal(c.numpy(), TV[f"ten_{tag}_{k}"], err_msg=f"{tag} {k}")


def test_five_crop_batch_and_bad_size():
    a = np.arange(2 * 3 * 6 * 8, dtype=np.uint8).reshape(2, 3, 6, 8)
    crops = augpy.five_crop(tensor(a), 4)
    np.testing.assert_array_equal(crops[3].numpy(), a[:, :, 2:, 4:])
    np.testing.assert_array_equal(crops[4].numpy(), a[:, :, 1:5, 2:6])
    with pytest.raises(ValueError, match=r"augpy.five_crop: crop size \(7, 4\) is larger than the image \(6, 8\)"):
        augpy.five_crop(tensor(a), (7, 4))
    with pytest.raises(ValueError, match=r"augpy.ten_crop: size must be >= 1, got -1"):
        augpy.ten_crop(tensor(a), -1)
