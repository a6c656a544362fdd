"""augpy.image.RandomErasing: its rectangles' distribution against torchvision's own sampler
(data/torchvision_erasing.npz, 4000 rectangles recorded with torchvision 0.29.2 by
data/record_torchvision_erasing.py; two-sample Kolmogorov-Smirnov tests of the area, the aspect
ratio and the position), the values written per mode on uint8 and float batches, timm's counts,
the seed model (recorded and replayed), and bad arguments."""
import pickle
import pathlib

import numpy as np
import pytest

import augpy

TV = np.load(pathlib.Path(__file__).parent / "data" / "torchvision_erasing.npz")["rects"]


def ks_ok(a, b):
    """Two-sample KS at the 0.1% level (the asymptotic critical value)."""
    a, b = np.sort(np.asarray(a, float)), np.sort(np.asarray(b, float))
    grid = np.concatenate([a, b])
    d = np.abs(np.searchsorted(a, grid, side="right") / len(a) - np.searchsorted(b, grid, side="right") / len(b)).max()
    crit = 1.95 * np.sqrt((len(a) + len(b)) / (len(a) * len(b)))
    return d < crit, d, crit


def test_sampler_matches_torchvisions():
    stage = augpy.image.RandomErasing(p=1.0, scale=(0.02, 1 / 3), ratio=(0.3, 1 / 0.3))
    rng = augpy.RandomNumberGenerator(seed=5)
    u = np.empty((4000, stage.draws))
    rng.uniform(u, 0.0, 1.0)
    ours = np.array([stage.rectangles(u[k], 32, 40)[0] for k in range(4000)])
    for name, f in (("area", lambda r: r[:, 2] * r[:, 3]), ("log ratio", lambda r: np.log(r[:, 2] / r[:, 3])),
                    ("top", lambda r: r[:, 0]), ("left", lambda r: r[:, 1]),
                    ("bottom", lambda r: r[:, 0] + r[:, 2]), ("right", lambda r: r[:, 1] + r[:, 3])):
        ok, d, crit = ks_ok(f(ours), f(TV))
        assert ok, (name, d, crit)
    assert (ours[:, 2] < 32).all() and (ours[:, 3] < 40).all() and (ours[:, :2] >= 0).all()
    assert (ours[:, 0] + ours[:, 2] <= 32).all() and (ours[:, 1] + ours[:, 3] <= 40).all()


def batch(dtype=np.uint8, n=6, fill=200):
    return {"image": augpy.array_to_tensor(np.full((n, 3, 24, 30), fill, dtype)),
            "augmentation": [{"rng": (9, 2, k)} for k in range(n)]}


def erased_mask(rects, h=24, w=30):
    m = np.zeros((h, w), bool)
    for t, l, rh, rw in rects:
        m[t:t + rh, l:l + rw] = True
    return m


@pytest.mark.parametrize("mode", ["const", "rand", "pixel"])
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_modes_write_only_the_rectangles(mode, dtype):
    stage = augpy.image.RandomErasing(p=1.0, mode=mode, value=[1, 2, 3], max_count=3)
    out = stage(batch(dtype))
    x = augpy.tensor_to_array(out["image"])
    for k, a in enumerate(out["augmentation"]):
        rects = a["erasing"]
        assert 1 <= len(rects) <= 3
        m = erased_mask(rects)
        assert (x[k][:, ~m] == 200).all()
        inside = x[k][:, m]
        if mode == "const":
            assert (inside == np.array([1, 2, 3])[:, None]).all()
        elif mode == "rand":  # one value per channel of each rectangle
            for t, l, rh, rw in rects:
                r = x[k][:, t:t + rh, l:l + rw].reshape(3, -1)
                assert (r == r[:, :1]).all() or not erased_mask([(t, l, rh, rw)]).any()
        else:
            assert len(np.unique(inside)) > 3
        if mode != "const" and dtype == np.float32:
            assert np.abs(inside).max() < 7  # N(0, 1) values


def erased_values(out):
    x = augpy.tensor_to_array(out["image"])
    return np.concatenate([x[k][:, erased_mask(a["erasing"])].ravel() for k, a in enumerate(out["augmentation"])])


def test_noise_distribution():
    stage = augpy.image.RandomErasing(p=1.0, scale=(0.3, 0.3), ratio=(1, 1), mode="pixel")
    v = erased_values(stage(batch(np.float32, n=20, fill=100)))
    assert abs(v.mean()) < 0.05 and abs(v.std() - 1) < 0.05
    u = erased_values(stage(batch(np.uint8, n=20, fill=7))).astype(int)
    counts = np.bincount(u, minlength=256)
    assert counts.min() > 0 and abs(u.mean() - 127.5) < 3


def test_probability_and_seed_model():
    stage = augpy.image.RandomErasing(p=0.25, seed=1)
    b = {"image": augpy.array_to_tensor(np.zeros((400, 1, 8, 8), np.uint8))}
    rects = [a["erasing"] for a in stage(b)["augmentation"]]
    frac = np.mean([len(r) > 0 for r in rects])
    assert abs(frac - 0.25) < 4 * np.sqrt(0.25 * 0.75 / 400)
    # the same rng triples draw the same rectangles and noise, in any batch position
    s = augpy.image.RandomErasing(p=1.0, mode="pixel")
    one, two = batch(), batch()
    two["augmentation"] = list(reversed(two["augmentation"]))
    a = s(one)
    b2 = pickle.loads(pickle.dumps(s))(two)
    assert [d["erasing"] for d in a["augmentation"]] == [d["erasing"] for d in reversed(b2["augmentation"])]
    assert np.array_equal(augpy.tensor_to_array(a["image"]), augpy.tensor_to_array(b2["image"])[::-1])
    # a recorded list is replayed
    fixed = batch(n=1)
    fixed["augmentation"] = [{"erasing": [(0, 0, 2, 3)]}]
    x = augpy.tensor_to_array(augpy.image.RandomErasing(p=0.0)(fixed)["image"])[0]
    assert (x[:, :2, :3] == 0).all() and (x[:, 2:, :] == 200).all()


@pytest.mark.parametrize("kwargs,exc,msg", [
    ({"p": 1.5}, ValueError, r"RandomErasing: p must be in \[0, 1\]"),
    ({"scale": (0.5, 0.1)}, ValueError, "RandomErasing: scale must be finite, ordered"),
    ({"scale": (0.1, 2.0)}, ValueError, "RandomErasing: scale must be at most 1"),
    ({"ratio": (0.0, 1.0)}, ValueError, "RandomErasing: ratio must be finite, ordered .* above 0"),
    ({"ratio": 3}, TypeError, "RandomErasing: ratio must be a pair of numbers"),
    ({"mode": "noise"}, ValueError, "RandomErasing: mode must be 'const', 'rand' or 'pixel'"),
    ({"value": float("nan")}, ValueError, "RandomErasing: value must be a finite number"),
    ({"min_count": 0}, ValueError, "RandomErasing: min_count must be an int >= 1"),
    ({"min_count": 3, "max_count": 2}, ValueError, r"RandomErasing: max_count \(2\) is below min_count \(3\)"),
])
def test_bad_arguments(kwargs, exc, msg):
    with pytest.raises(exc, match=msg):
        augpy.image.RandomErasing(**kwargs)


def test_bad_batches_and_tiny_images():
    with pytest.raises(ValueError, match="RandomErasing: value has 2 values for 3 channels"):
        augpy.image.RandomErasing(p=1.0, value=[1, 2])(batch())
    with pytest.raises(ValueError, match=r"RandomErasing: batch\['image'\] must be an \(N, C, H, W\) tensor"):
        augpy.image.RandomErasing()({"image": augpy.array_to_tensor(np.zeros((3, 4, 4), np.uint8))})
    # a 1 x 1 image: no rectangle fits strictly inside it, so nothing is erased (torchvision's rule)
    tiny = {"image": augpy.array_to_tensor(np.full((3, 1, 1, 1), 9, np.uint8))}
    out = augpy.image.RandomErasing(p=1.0)(tiny)
    assert [a["erasing"] for a in out["augmentation"]] == [[], [], []]
    assert (augpy.tensor_to_array(out["image"]) == 9).all()
