"""augpy.image.Mixup against timm's own (data/timm_mixup.npz, recorded with timm 1.0.31 by
data/record_timm_mixup.py): for each recorded call of timm's Mixup (batch, pair and elem
modes; MixUp, CutMix, the switch, minmax boxes, correct_lam off, label smoothing, prob), augpy
replaying timm's draws gives timm's images and soft targets bit for bit; mixup_target's
targets for given lams; rand_bbox's boxes for fixed lams (two-sample KS). Then the stage's own
draws: lam ~ Beta(alpha, alpha) (KS), the switch and prob rates (binomial), the seed model,
and bad input."""
import json
import pathlib
import pickle

import numpy as np
import pytest

import augpy
from augpy import _timm_mixup

DATA = np.load(pathlib.Path(__file__).parent / "data" / "timm_mixup.npz")
CALLS = sorted(int(k[4:-7]) for k in DATA.files if k.startswith("call") and k.endswith("_params"))


def ks_ok(a, b):
    a, b = np.sort(np.asarray(a, float)), np.sort(np.asarray(b, float))
    grid = np.concatenate([a, b])
    d = np.abs(np.searchsorted(a, grid, side="right") / len(a) - np.searchsorted(b, grid, side="right") / len(b)).max()
    return d < 1.95 * np.sqrt((len(a) + len(b)) / (len(a) * len(b))), d


@pytest.mark.parametrize("i", CALLS)
def test_calls_match_timm(i):
    params = json.loads(str(DATA[f"call{i}_params"]))
    records = json.loads(str(DATA[f"call{i}_records"]))
    batch = {"image": augpy.array_to_tensor(DATA["images"].copy()), "label": DATA["labels"],
             "augmentation": [{"timm_mixup": r} for r in records]}
    out = augpy.image.Mixup(**params)(batch)
    assert np.array_equal(augpy.tensor_to_array(out["image"]), DATA[f"call{i}_images"]), params
    got = augpy.tensor_to_array(out["target"])
    assert got.dtype == np.float32 and np.array_equal(got, DATA[f"call{i}_targets"]), params


@pytest.mark.parametrize("k", range(5))
def test_targets_match_mixup_target(k):
    lam, smoothing = DATA[f"target{k}_lam"], float(DATA[f"target{k}_smoothing"])
    mode = "batch" if lam.ndim == 0 else "elem"
    mix = augpy.image.Mixup(label_smoothing=smoothing, num_classes=10, mode=mode)
    records = [{"lam": float(lam), "box": None}] * 8 if mode == "batch" else \
        [{"lam": float(v), "box": None} for v in lam[:, 0]]
    like = augpy.array_to_tensor(DATA["images"])
    got = augpy.tensor_to_array(mix._targets(DATA["labels"], records, like))
    assert np.array_equal(got, DATA[f"target{k}_out"])


@pytest.mark.parametrize("k", range(3))
def test_rand_bbox_matches_timm(k):
    lam = float(DATA["bbox_lam"][k])
    rng = augpy.RandomNumberGenerator(seed=40 + k)
    u = np.empty((2000, 2))
    rng.uniform(u, 0.0, 1.0)
    ours = np.array([_timm_mixup.rand_bbox(u[i], 12, 16, lam) for i in range(2000)])
    theirs = DATA[f"bbox{k}"]
    for j in range(4):
        ok, d = ks_ok(ours[:, j], theirs[:, j])
        assert ok, (lam, j, d)
    area = lambda b: (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])  # noqa: E731
    assert ks_ok(area(ours), area(theirs))[0]


def batch_of(n=8, seed=0, epoch=1):
    x = np.random.default_rng(seed).standard_normal((n, 3, 12, 16)).astype(np.float32)
    return {"image": augpy.array_to_tensor(x), "label": np.arange(n) % 10,
            "augmentation": [{"rng": (5, epoch, k)} for k in range(n)]}


def test_draws_follow_the_definition():
    """elem mode: lam ~ Beta(alpha) for MixUp; the CutMix share is switch_prob; prob's share mixes."""
    stage = augpy.image.Mixup(mixup_alpha=0.8, cutmix_alpha=1.0, prob=0.7, switch_prob=0.4, mode="elem",
                              num_classes=10)
    recs = []
    for e in range(250):
        recs += [a["timm_mixup"] for a in stage(batch_of(epoch=e))["augmentation"]]
    n = len(recs)
    mixed = [r for r in recs if r["lam"] != 1.0]
    assert abs(len(mixed) / n - 0.7) < 4 * (0.21 / n) ** 0.5
    cut = [r for r in mixed if r["box"] is not None]
    assert abs(len(cut) / len(mixed) - 0.4) < 4 * (0.24 / len(mixed)) ** 0.5
    lams = [r["lam"] for r in mixed if r["box"] is None]
    assert ks_ok(lams, np.random.default_rng(3).beta(0.8, 0.8, 4000))[0]
    for r in cut:  # correct_lam: the box's true area
        x1, y1, x2, y2 = r["box"]
        assert r["lam"] == float(np.float32(1 - (x2 - x1) * (y2 - y1) / (12 * 16)))


@pytest.mark.parametrize("mode", ["batch", "pair", "elem"])
def test_stage_seed_model(mode):
    stage = augpy.image.Mixup(mixup_alpha=0.8, cutmix_alpha=1.0, mode=mode, num_classes=10)
    src = augpy.tensor_to_array(batch_of()["image"]).copy()
    out = stage(batch_of())
    recs = [a["timm_mixup"] for a in out["augmentation"]]
    if mode == "batch":
        assert all(r == recs[0] for r in recs)
    if mode == "pair":
        assert recs == recs[::-1]
    t = augpy.tensor_to_array(out["target"])
    assert t.shape == (8, 10) and np.allclose(t.sum(1), 1.0, atol=1e-5)
    # a pickled copy draws the same; another epoch draws anew; the records replay
    assert [a["timm_mixup"] for a in pickle.loads(pickle.dumps(stage))(batch_of())["augmentation"]] == recs
    assert [a["timm_mixup"] for a in stage(batch_of(epoch=2))["augmentation"]] != recs
    given = batch_of()
    given["image"] = augpy.array_to_tensor(src.copy())
    given["augmentation"] = [{"timm_mixup": r} for r in recs]
    again = stage(given)
    assert np.array_equal(augpy.tensor_to_array(again["image"]), augpy.tensor_to_array(out["image"]))
    assert np.array_equal(augpy.tensor_to_array(again["target"]), t)


def test_label_smoothing_values():
    out = augpy.image.Mixup(mixup_alpha=0.5, prob=0.0, label_smoothing=0.1, num_classes=10)(batch_of())
    t = augpy.tensor_to_array(out["target"])
    assert np.array_equal(t[np.arange(8), np.arange(8)], np.full(8, np.float32(1 - 0.1 + 0.01)))
    assert np.allclose(np.sort(t, 1)[:, :-1], np.float32(0.01))


@pytest.mark.parametrize("call,msg", [
    (lambda: augpy.image.Mixup(mode="sample"), "Mixup: mode must be 'batch', 'pair' or 'elem', got 'sample'"),
    (lambda: augpy.image.Mixup(mixup_alpha=-1), "Mixup: mixup_alpha must be >= 0 and finite"),
    (lambda: augpy.image.Mixup(mixup_alpha=0, cutmix_alpha=0), "Mixup: one of mixup_alpha > 0"),
    (lambda: augpy.image.Mixup(cutmix_minmax=(0.8, 0.2)), r"Mixup: cutmix_minmax must be \(min, max\)"),
    (lambda: augpy.image.Mixup(cutmix_minmax=0.5), r"Mixup: cutmix_minmax must be \(min, max\)"),
    (lambda: augpy.image.Mixup(prob=1.5), r"Mixup: prob must be in \[0, 1\], got 1.5"),
    (lambda: augpy.image.Mixup(label_smoothing=1.0), r"Mixup: label_smoothing must be in \[0, 1\)"),
    (lambda: augpy.image.Mixup(num_classes=0), "Mixup: num_classes must be an int >= 1"),
    (lambda: augpy.image.Mixup(correct_lam="yes"), "Mixup: correct_lam must be True or False"),
    (lambda: augpy.image.Mixup(num_classes=10)(dict(batch_of(), label=[0, 1, 2])), "Mixup: 3 labels for 8 images"),
    (lambda: augpy.image.Mixup(num_classes=5)(batch_of()), r"Mixup: labels must be in \[0, 5\), got 0 .. 7"),
    (lambda: augpy.image.Mixup(num_classes=10)(batch_of(n=7)), "Mixup: the batch size must be even"),
    (lambda: augpy.image.Mixup(num_classes=10)({"image": batch_of()["image"]}), "Mixup: the batch has no 'label'"),
    (lambda: augpy.image.Mixup(num_classes=10)({"image": augpy.array_to_tensor(np.zeros((2, 3, 4, 4), np.uint8)),
                                                "label": [0, 1]}), "must be a float"),
    (lambda: augpy.image.Mixup(num_classes=10)(dict(batch_of(), augmentation=[{"timm_mixup": {"lam": 2.0,
                                                                                               "box": None}}] * 8)),
     r"Mixup: augmentation\[0\]\['timm_mixup'\] lam must be in \[0, 1\]"),
])
def test_bad_input(call, msg):
    with pytest.raises(ValueError, match=msg):
        call()
