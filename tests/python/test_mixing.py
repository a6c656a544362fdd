"""augpy.image.MixUp / CutMix and the functional mixup / cutmix against torchvision's own
results (data/torchvision_mixing.npz, recorded with torchvision 0.29.2 by
data/record_torchvision_mixing.py): the mixed images and soft targets bit for bit for the same
lambda or box; CutMix's boxes against 4000 of torchvision's (two-sample KS); lambda's
distribution against Beta(alpha, alpha) (KS against NumPy's sampler); the stages' records, the
seed model and bad arguments."""
import pathlib
import pickle

import numpy as np
import pytest

import augpy
from augpy import _mixing

DATA = np.load(pathlib.Path(__file__).parent / "data" / "torchvision_mixing.npz")


def ks_ok(a, b):
    a, b = np.sort(np.asarray(a, float)), np.sort(np.asarray(b, float))
    grid = np.concatenate([a, b])
    d = np.abs(np.searchsorted(a, grid, side="right") / len(a) - np.searchsorted(b, grid, side="right") / len(b)).max()
    return d < 1.95 * np.sqrt((len(a) + len(b)) / (len(a) * len(b))), d


@pytest.mark.parametrize("i", range(5))
def test_mixup_matches_torchvision(i):
    x = augpy.array_to_tensor(DATA["images"].copy())
    images, targets = augpy.image.mixup(x, DATA["labels"], float(DATA[f"mixup{i}_lam"]), 10)
    assert images is x
    assert np.array_equal(augpy.tensor_to_array(images), DATA[f"mixup{i}_images"])
    got = augpy.tensor_to_array(targets)
    assert got.dtype == np.float32 and np.array_equal(got, DATA[f"mixup{i}_targets"])


@pytest.mark.parametrize("i", range(4))
def test_cutmix_matches_torchvision(i):
    x = augpy.array_to_tensor(DATA["images"].copy())
    images, targets, lam = augpy.image.cutmix(x, DATA["labels"], tuple(DATA[f"cutmix{i}_box"]), 10)
    assert np.array_equal(augpy.tensor_to_array(images), DATA[f"cutmix{i}_images"])
    assert np.array_equal(augpy.tensor_to_array(targets), DATA[f"cutmix{i}_targets"])


def test_beta_distribution():
    rng = augpy.RandomNumberGenerator(seed=3)
    for alpha in (0.2, 1.0, 0.8, 4.0):
        ours = [_mixing.sample_beta(rng, alpha) for _ in range(2000)]
        ref = np.random.default_rng(1).beta(alpha, alpha, 4000)
        ok, d = ks_ok(ours, ref)
        assert ok, (alpha, d)
        assert all(0.0 <= v <= 1.0 for v in ours)


def batch(n=8, seed=0):
    x = np.random.default_rng(seed).standard_normal((n, 3, 12, 16)).astype(np.float32)
    return {"image": augpy.array_to_tensor(x), "label": np.arange(n) % 10,
            "augmentation": [{"rng": (5, 1, k)} for k in range(n)]}


def test_cutmix_boxes_match_torchvision():
    stage = augpy.image.CutMix(alpha=1.0, num_classes=10)
    boxes = []
    for k in range(2000):
        b = batch(n=2)
        b["augmentation"] = [{"rng": (5, 1, 2 * k)}, {"rng": (5, 1, 2 * k + 1)}]
        boxes.append(stage(b)["augmentation"][0]["cutmix"])
    ours, tv = np.array(boxes), DATA["cutmix_boxes"]
    for j, name in enumerate(("x1", "y1", "x2", "y2")):
        ok, d = ks_ok(ours[:, j], tv[:, j])
        assert ok, (name, d)
    area = lambda b: (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])  # noqa: E731
    assert ks_ok(area(ours), area(tv))[0]


@pytest.mark.parametrize("cls,key", [(augpy.image.MixUp, "mixup"), (augpy.image.CutMix, "cutmix")])
def test_stages_record_and_replay(cls, key):
    stage = cls(alpha=0.8, num_classes=10)
    src = augpy.tensor_to_array(batch()["image"]).copy()
    out = stage(batch())
    rec = out["augmentation"][0][key]
    assert all(a[key] == rec for a in out["augmentation"])
    t = augpy.tensor_to_array(out["target"])
    assert t.shape == (8, 10) and np.allclose(t.sum(1), 1.0)
    # the functional form with the recorded value gives the same batch
    x = augpy.array_to_tensor(src.copy())
    if key == "mixup":
        want = augpy.image.mixup(x, np.arange(8) % 10, rec, 10)[0]
    else:
        want = augpy.image.cutmix(x, np.arange(8) % 10, rec, 10)[0]
    assert np.array_equal(augpy.tensor_to_array(out["image"]), augpy.tensor_to_array(want))
    # the seed model: a pickled copy draws the same; another epoch draws another
    assert pickle.loads(pickle.dumps(stage))(batch())["augmentation"][0][key] == rec
    other = batch()
    other["augmentation"] = [{"rng": (5, 2, k)} for k in range(8)]
    assert stage(other)["augmentation"][0][key] != rec
    # a recorded value is replayed
    given = batch()
    given["augmentation"][0][key] = rec
    assert np.array_equal(augpy.tensor_to_array(stage(given)["image"]), augpy.tensor_to_array(want))


@pytest.mark.parametrize("call,msg", [
    (lambda: augpy.image.MixUp(alpha=0, num_classes=3), "MixUp: alpha must be positive"),
    (lambda: augpy.image.CutMix(alpha=1.0, num_classes=0), "CutMix: num_classes must be an int >= 1"),
    (lambda: augpy.image.MixUp(num_classes=10)({"image": augpy.array_to_tensor(np.zeros((2, 3, 4, 4), np.uint8)),
                                               "label": [0, 1]}), "must be a float"),
    (lambda: augpy.image.MixUp(num_classes=10)({"image": batch()["image"]}), "MixUp: the batch has no 'label'"),
    (lambda: augpy.image.mixup(batch()["image"], [0, 1], 0.5, 10), "augpy.image.mixup: 2 labels for 8 images"),
    (lambda: augpy.image.mixup(batch()["image"], np.arange(8) + 5, 0.5, 10),
     r"augpy.image.mixup: labels must be in \[0, 10\), got 5 .. 12"),
    (lambda: augpy.image.mixup(batch()["image"], np.arange(8), 1.5, 10), r"augpy.image.mixup: lam must be in \[0, 1\]"),
    (lambda: augpy.image.cutmix(batch()["image"], np.arange(8), (5, 0, 2, 4), 10),
     "augpy.image.cutmix: box .* is not inside the 16 x 12 image"),
    (lambda: augpy.image.mixup(batch()["image"], np.zeros((8, 2), int), 0.5, 10),
     r"augpy.image.mixup: \(N, num_classes\) targets must have shape \(8, 10\) for 8 images and num_classes=10, "
     r"got \(8, 2\)"),
    (lambda: augpy.image.mixup(batch()["image"], np.zeros((8, 10, 1)), 0.5, 10), "labels must be N integer"),
])
def test_bad_arguments(call, msg):
    with pytest.raises(ValueError, match=msg):
        call()
