"""timm's three-augment set (DeiT III; timm 1.0.31): the Desaturate and GaussianBlur ops, the
RandAugment sets 't3a' / 't3aw' and AutoAugment '3a' (augpy.image.auto_augment_transform),
against timm's own outputs and draws recorded by data/record_timm_3a.py (data/timm_3a.npz).

Bounds, given the op and its argument: GaussianBlur equals PIL's ImageFilter.GaussianBlur bit
for bit (Pillow's three extended box blurs written out); Desaturate is within 1 of PIL's
ImageEnhance.Color (torchvision's grayscale 0.2989 R + 0.587 G + 0.114 B, truncated, against
PIL's L conversion, rounded); Solarize is exact (tests/python/test_timm_randaugment.py). The
choices: chi-square against timm's definition (uniform over the 3 sub-policies of '3a', uniform
with replacement over 't3a', weighted without replacement over 't3aw') and against timm's own
recorded choices; GaussianBlurRand's radius by KS against timm's recorded radii."""
import json
import pathlib
import pickle

import numpy as np
import pytest

import augpy
from augpy import _timm, _timm_3a
from conftest import host_tensor

DATA = np.load(pathlib.Path(__file__).parent / "data" / "timm_3a.npz")
OPS = sorted(int(k[2:-5]) for k in DATA.files if k.startswith("op") and k.endswith("_name"))


def chisquare_ok(counts, expected):
    counts, expected = np.asarray(counts, float), np.asarray(expected, float)
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    k = len(counts) - 1
    return chi2 < k * (1 - 2 / (9 * k) + 3.09 * (2 / (9 * k)) ** 0.5) ** 3, chi2


def ks_ok(a, b):
    a, b = np.sort(np.asarray(a, float)), np.sort(np.asarray(b, float))
    grid = np.concatenate([a, b])
    d = np.abs(np.searchsorted(a, grid, side="right") / len(a) - np.searchsorted(b, grid, side="right") / len(b)).max()
    return d < 1.95 * np.sqrt((len(a) + len(b)) / (len(a) * len(b))), d


@pytest.mark.parametrize("i", OPS)
def test_ops_match_timm(i):
    name, arg = str(DATA[f"op{i}_name"]), float(DATA[f"op{i}_arg"])
    src, want = DATA[str(DATA[f"op{i}_src"])], DATA[f"op{i}_out"]
    got = augpy.tensor_to_array(augpy.image.apply_timm_policy(src, [(name, arg)]))
    diff = np.abs(got.astype(int) - want)
    assert diff.max() <= (0 if name == "GaussianBlur" else 1), (name, arg, diff.max())


def test_gaussian_blur_edges_and_gray():
    """A 1-channel image, a 1-pixel line and radius 0 (PIL: a copy)."""
    a = np.arange(5, dtype=np.uint8).reshape(1, 1, 5) * 50
    np.testing.assert_array_equal(_timm_3a.pil_gaussian_blur(a, 0.0).numpy(), a)
    got = _timm_3a.pil_gaussian_blur(a, 2.0).numpy()
    assert got.shape == (1, 1, 5) and got[0, 0, 0] < got[0, 0, 4] and got.min() > 0
    with pytest.raises(ValueError, match="GaussianBlur's radius must be a finite number >= 0, got -1"):
        _timm_3a.pil_gaussian_blur(a, -1.0)
    with pytest.raises(ValueError, match=r"GaussianBlur takes a uint8 \(C, H, W\) image"):
        _timm_3a.pil_gaussian_blur(a.astype(np.float32), 1.0)


def test_levels_match_timm():
    for name, m, want in json.loads(str(DATA["levels"])):
        if name == "GaussianBlurRand":
            continue  # its factor m / 10 is drawn from inside the op: TimmAutoAugment's record holds the radius
        assert _timm.level_arg(name, m, False, {}) == pytest.approx(want, abs=1e-12), (name, m)


@pytest.mark.parametrize("k", range(4))
def test_rand_configs_match_timm(k):
    config, made = str(DATA[f"ra{k}"]), json.loads(str(DATA[f"ra{k}_made"]))
    stage = augpy.image.rand_augment_transform(config)
    assert list(stage.names) == made["names"]
    assert stage.prob == made["prob"] and stage.magnitude == made["magnitude"] and stage.num_ops == made["num_layers"]
    assert stage.magnitude_std == made["magnitude_std"]
    if made["weights"] is None:
        assert stage.weights is None
    else:
        assert np.allclose(stage.weights, made["weights"], rtol=0, atol=1e-15)


@pytest.mark.parametrize("k", range(2))
def test_auto_augment_configs_match_timm(k):
    config, made = str(DATA[f"aa{k}"]), json.loads(str(DATA[f"aa{k}_made"]))
    stage = augpy.image.auto_augment_transform(config)
    assert [[o[:3] for o in sub] for sub in made] == [[[name, 1.0, m]] for name, m in _timm_3a.POLICY_3A]
    assert all(o[3] == stage.magnitude_std for sub in made for o in sub)  # timm's AugmentOp.magnitude_std


def records(stage, n, seed=3):
    rng = augpy.RandomNumberGenerator(seed=seed)
    u = np.empty((n, stage.draws))
    rng.uniform(u, 0.0, 1.0)
    return [stage._record(u[i], 24, 32) for i in range(n)]


def test_auto_augment_draws_follow_timm():
    n = 6000
    recs = records(augpy.image.auto_augment_transform("3a"), n)
    names = [r["timm_auto_augment"][0][0] for r in recs]
    counts = [names.count(x) for x in ("Solarize", "Desaturate", "GaussianBlur")]
    assert chisquare_ok(counts, [n / 3] * 3)[0], counts  # random.choice of the 3 sub-policies
    timm = np.bincount(DATA["aa_choices"], minlength=3)
    assert chisquare_ok(timm, [len(DATA["aa_choices"]) / 3] * 3)[0]  # timm's own draws pass the same test
    e = (np.array(counts) + timm) / 2  # and the two samples agree (homogeneity, 2 df, 0.1%: 13.82)
    assert (((counts - e) ** 2 + (timm - e) ** 2) / e).sum() < 13.82
    # the arguments: threshold 128, full desaturation, radius uniform in [0.1, 2.0] as timm's
    assert {a for r in recs for o, a in r["timm_auto_augment"] if o == "Solarize"} == {128}
    assert {a for r in recs for o, a in r["timm_auto_augment"] if o == "Desaturate"} == {1.0}
    radii = [a for r in recs for o, a in r["timm_auto_augment"] if o == "GaussianBlur"]
    assert 0.1 <= min(radii) and max(radii) <= 2.0
    assert ks_ok(radii, DATA["aa_blur_radii"])[0]
    # mstd: magnitude 5 + N(0, 0.5) for Solarize, clipped to [0, 10]
    noisy = records(augpy.image.auto_augment_transform("3a-mstd0.5"), 3000)
    mags = [r["timm_auto_augment_magnitudes"][0] for r in noisy if r["timm_auto_augment"][0][0] == "Solarize"]
    assert ks_ok(mags, np.random.default_rng(0).normal(5, 0.5, 4000))[0]


def test_rand_3a_draws():
    n = 6000
    stage = augpy.image.rand_augment_transform("rand-m9-p1.0-t3a")
    ops = [op for r in records(stage, n) for op, _ in r["timm_policy"]]
    assert len(ops) == 2 * n
    assert chisquare_ok([ops.count(o) for o in _timm.RAND_3A], [2 * n / 3] * 3)[0]
    stage = augpy.image.rand_augment_transform("rand-m9-n2-p1.0-t3aw")
    recs = records(stage, n)
    assert all(len({op for op, _ in r["timm_policy"]}) == 2 for r in recs)  # without replacement
    first = [r["timm_policy"][0][0] for r in recs]
    assert chisquare_ok([first.count(o) for o in stage.names], stage.weights * n)[0]


def batch_of(n=6, seed=0):
    x = np.random.default_rng(seed).integers(0, 256, (n, 3, 20, 24), dtype=np.uint8)
    return {"image": augpy.array_to_tensor(x), "augmentation": [{"rng": (7, 1, k)} for k in range(n)]}


@pytest.mark.parametrize("make", [lambda: augpy.image.auto_augment_transform("3a-mstd0.5"),
                                  lambda: augpy.image.rand_augment_transform("rand-m9-mstd0.5-t3aw")])
def test_stage_records_and_replays(make):
    stage = make()
    key = stage.key
    src = augpy.tensor_to_array(batch_of()["image"]).copy()
    out = stage(batch_of())
    got = augpy.tensor_to_array(out["image"])
    recs = [a[key] for a in out["augmentation"]]
    assert len({json.dumps(r) for r in recs}) > 1
    for k in range(6):
        one = augpy.image.apply_timm_policy(src[k], recs[k])
        assert np.array_equal(got[k], augpy.tensor_to_array(one))
    assert [a[key] for a in pickle.loads(pickle.dumps(stage))(batch_of())["augmentation"]] == recs
    given = batch_of()
    given["augmentation"] = [{key: r} for r in recs]
    assert np.array_equal(augpy.tensor_to_array(stage(given)["image"]), got)


def test_device_batch():
    """A batch on the session's device (make pytest-emu: an emulated CUDA device) gives the pixels of
    the same batch on the host."""
    stage = augpy.image.auto_augment_transform("3a")
    x = augpy.tensor_to_array(batch_of(9)["image"])
    outs = []
    for t in (augpy.array_to_tensor(x), host_tensor(x)):
        b = batch_of(9)
        b["image"] = t
        out = stage(b)
        assert out["image"].device == t.device
        outs.append(augpy.tensor_to_array(out["image"]))
    np.testing.assert_array_equal(outs[0], outs[1])


@pytest.mark.parametrize("config,msg", [
    ("v0", r"augpy.image.auto_augment_transform: policy 'v0' of 'v0': augpy has timm's '3a' only"),
    ("3a-x1", r"augpy.image.auto_augment_transform: unknown section 'x1' in '3a-x1'"),
    ("3a-mstd0.5.1", r"section 'mstd0.5.1' of '3a-mstd0.5.1' needs a number after 'mstd'"),
    (3, r"augpy.image.auto_augment_transform: config must be a string"),
])
def test_bad_auto_augment_configs(config, msg):
    with pytest.raises(ValueError, match=msg):
        augpy.image.auto_augment_transform(config)


def test_bad_input():
    with pytest.raises(ValueError, match="TimmAutoAugment: policy must be '3a'"):
        augpy.image.TimmAutoAugment("v0")
    with pytest.raises(ValueError, match="TimmAutoAugment: magnitude_std must be a number >= 0, got -1"):
        augpy.image.TimmAutoAugment(magnitude_std=-1)
    with pytest.raises(ValueError, match=r"TimmAutoAugment: batch\['image'\] must be uint8"):
        augpy.image.auto_augment_transform("3a")({"image": augpy.array_to_tensor(np.zeros((2, 3, 4, 4), np.float32))})
    with pytest.raises(ValueError, match="TimmRandAugment: transforms must be None, 'weights', '3a', '3aw'"):
        augpy.image.rand_augment_transform("rand-m9-t4a")


def test_timm_train_takes_3a():
    """timm's create_transform(auto_augment='3a') goes to auto_augment_transform; so does timm_train's."""
    stage = augpy.image.timm_train(4, re_prob=0, auto_augment="3a-mstd0.5", seed=3)
    policy = stage.transforms[0]
    assert isinstance(policy, augpy.image.TimmAutoAugment) and policy.magnitude_std == 0.5
    with pytest.raises(ValueError, match=r"timm_train: auto_augment must be None, a timm RandAugment string .*'3a'"):
        augpy.image.timm_train(4, auto_augment="original")
