"""timm's RandAugment in augpy (augpy.image.rand_augment_transform, RandAugment.from_timm,
TimmRandAugment, apply_timm_policy) against timm's own pieces (data/timm_randaugment.npz,
recorded with timm 1.0.31 and Pillow 13.0.0 by data/record_timm_randaugment.py): each op's
argument by timm's level rule, each op's image against timm's PIL op (the bounds of
docs/policies.md: the look-up-table ops, Brightness and Sharpness exact; AutoContrast, Color
and Contrast within 1; the warps within 1 where PIL reads four pixels inside the image, the
fill exactly where it reads none, the one-pixel band between unconstrained), and what timm makes
of config strings. Then the stage's draws against timm's definition (chi-square, binomial and
KS tests with fixed seeds), records and replays, and malformed input."""
import json
import math
import pathlib
import pickle

import numpy as np
import pytest

import augpy
from augpy import _timm

DATA = np.load(pathlib.Path(__file__).parent / "data" / "timm_randaugment.npz")
OPS = sorted(int(k[2:-5]) for k in DATA.files if k.startswith("op") and k.endswith("_name"))
CONFIGS = sorted(int(k[6:]) for k in DATA.files if k.startswith("config") and k[6:].isdigit())
EXACT = ("Invert", "Equalize", "Posterize", "PosterizeIncreasing", "Solarize", "SolarizeIncreasing", "SolarizeAdd",
         "Brightness", "BrightnessIncreasing", "Sharpness", "SharpnessIncreasing")
WARPS = ("Rotate", "ShearX", "ShearY", "TranslateXRel", "TranslateYRel")


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


def source_points(name, a, h, w):
    """Where PIL reads each output pixel, in source pixel indices (its pixel-centre rule)."""
    data = {"Rotate": lambda: _timm._pil_rotate_data(a, w, h), "ShearX": lambda: (1, a, 0, 0, 1, 0),
            "ShearY": lambda: (1, 0, 0, a, 1, 0), "TranslateXRel": lambda: (1, 0, a * w, 0, 1, 0),
            "TranslateYRel": lambda: (1, 0, 0, 0, 1, a * h)}[name]()
    p, q, c, r, s, f = data
    y, x = np.mgrid[0:h, 0:w]
    return p * (x + 0.5) + q * (y + 0.5) + c - 0.5, r * (x + 0.5) + s * (y + 0.5) + f - 0.5


@pytest.mark.parametrize("i", OPS)
def test_ops_match_timm(i):
    name, magnitude = str(DATA[f"op{i}_name"]), float(DATA[f"op{i}_magnitude"])
    args = json.loads(str(DATA[f"op{i}_args"]))
    arg = _timm.level_arg(name, magnitude, bool(DATA[f"op{i}_negated"]), {"translate_pct": 0.45})
    assert (arg is None and args == []) or [arg] == args and type(arg) is type(args[0]), (arg, args)
    want = DATA[f"op{i}_out"]
    got = augpy.tensor_to_array(augpy.image.apply_timm_policy(DATA["u8"], [(name, arg)]))
    diff = np.abs(got.astype(int) - want)
    if name in EXACT:
        assert diff.max() == 0, (name, arg)
    elif name in WARPS:
        sx, sy = source_points(name, arg, 24, 32)
        inside = (sx >= 0) & (sx <= 31) & (sy >= 0) & (sy <= 23)
        outside = (sx < -1) | (sx > 32) | (sy < -1) | (sy > 24)
        assert diff[:, inside].max() <= 1 and (diff[:, outside] == 0).all(), (name, arg)
        assert (~inside & ~outside).mean() < 0.08  # the band left free is one pixel wide
    else:  # AutoContrast, Color, Contrast: torchvision's arithmetic against PIL's
        assert diff.max() <= 1, (name, arg)


def test_posterize_zero_bits():
    """Pillow >= 10 refuses 0 bits (timm's Posterize below magnitude 2.5, PosterizeIncreasing at 10, as
    recorded); augpy keeps older Pillow's and torchvision's meaning: every bit cleared."""
    assert any(k.startswith("posterize0_") for k in DATA.files)
    got = augpy.tensor_to_array(augpy.image.apply_timm_policy(DATA["u8"], [("PosterizeIncreasing", 0)]))
    assert (got == 0).all()


@pytest.mark.parametrize("k", CONFIGS)
def test_configs_match_timm(k):
    config, made = str(DATA[f"config{k}"]), json.loads(str(DATA[f"config{k}_made"]))
    for stage in (augpy.image.rand_augment_transform(config), augpy.image.RandAugment.from_timm(config)):
        assert isinstance(stage, augpy.image.TimmRandAugment)
        assert list(stage.names) == made["names"]
        assert stage.prob == made["prob"] and stage.magnitude == made["magnitude"]
        assert stage.num_ops == made["num_layers"]
        assert stage.magnitude_std == made["magnitude_std"] or math.isinf(stage.magnitude_std) and \
            made["magnitude_std"] > 100
        assert stage.magnitude_max == made["magnitude_max"]
        if made["weights"] is None:
            assert stage.weights is None
        else:
            assert np.allclose(stage.weights, made["weights"], rtol=0, atol=1e-15)


def draws(stage, n, seed=3):
    rng = augpy.RandomNumberGenerator(seed=seed)
    u = np.empty((n, stage.draws))
    rng.uniform(u, 0.0, 1.0)
    return [stage._record(u[i], 24, 32) for i in range(n)]


def test_draws_follow_timm():
    n = 6000
    stage = augpy.image.rand_augment_transform("rand-m9-mstd0.5-inc1")
    recs = draws(stage, n)
    ops = [op for r in recs for op, _ in r["timm_policy"]]
    # each of the 2 ops applied with p = 0.5, chosen uniformly from the 15 of the increasing set
    assert abs(len(ops) - n) < 4 * (2 * n * 0.25) ** 0.5
    assert chisquare_ok([ops.count(o) for o in _timm.RAND_INCREASING_TRANSFORMS], np.full(15, len(ops) / 15))[0]
    # magnitudes: 9 + N(0, 0.5) clipped to [0, 10]
    mags = [m for r in recs for m in r["timm_magnitudes"]]
    ref = np.clip(np.random.default_rng(0).normal(9, 0.5, 5000), 0, 10)
    assert ks_ok(mags, ref)[0] and max(mags) <= 10.0
    assert abs(np.mean([m == 10.0 for m in mags]) - np.mean(ref == 10.0)) < 0.02
    # the sign of a signed op: 1/2
    rot = [a for r in recs for op, a in r["timm_policy"] if op == "Rotate"]
    assert abs(np.mean([a < 0 for a in rot]) - 0.5) < 4 * (0.25 / len(rot)) ** 0.5
    # mstd > 100: uniform in [0, m]
    uni = draws(augpy.image.rand_augment_transform("rand-m8-mstd101-p1.0"), 2000)
    assert ks_ok([m for r in uni for m in r["timm_magnitudes"]], np.random.default_rng(1).uniform(0, 8, 4000))[0]


def test_weighted_draws():
    """'tweights': ops drawn by weight, without replacement (numpy's choice(replace=False, p=))."""
    stage = augpy.image.rand_augment_transform("rand-m9-n2-p1.0-tweights")
    recs = draws(stage, 6000)
    assert all(len({op for op, _ in r["timm_policy"]}) == 2 for r in recs)
    first = [r["timm_policy"][0][0] for r in recs]
    assert chisquare_ok([first.count(o) for o in stage.names], stage.weights * len(first))[0]
    second = [r["timm_policy"][1][0] for r in recs]
    w = stage.weights
    p2 = np.array([sum(w[i] * w[j] / (1 - w[i]) for i in range(len(w)) if i != j) for j in range(len(w))])
    assert chisquare_ok([second.count(o) for o in stage.names], p2 * len(second))[0]


def batch_of(n=6, seed=0):
    x = np.random.default_rng(seed).integers(0, 256, (n, 3, 20, 24), dtype=np.uint8)
    return {"image": augpy.array_to_tensor(x), "augmentation": [{"rng": (7, 1, k)} for k in range(n)]}


def test_stage_records_and_replays():
    stage = augpy.image.RandAugment.from_timm("rand-m9-mstd0.5-inc1", fill=(124, 116, 104))
    src = augpy.tensor_to_array(batch_of()["image"]).copy()
    out = stage(batch_of())
    got = augpy.tensor_to_array(out["image"])
    recs = [a["timm_policy"] for a in out["augmentation"]]
    assert len({json.dumps(r) for r in recs}) > 1
    for k in range(6):
        one = augpy.image.apply_timm_policy(src[k], recs[k], fill=(124, 116, 104))
        assert np.array_equal(got[k], augpy.tensor_to_array(one))
    assert [a["timm_policy"] for a in pickle.loads(pickle.dumps(stage))(batch_of())["augmentation"]] == recs
    given = batch_of()
    given["augmentation"] = [{"timm_policy": r} for r in recs]
    assert np.array_equal(augpy.tensor_to_array(stage(given)["image"]), got)


@pytest.mark.parametrize("config,msg", [
    ("rand-x9", r"augpy.image.rand_augment_transform: unknown section 'x9' in 'rand-x9'"),
    ("augmix-m3", r"augpy.image.rand_augment_transform: config 'augmix-m3' must start with 'rand'"),
    ("rand-m", r"augpy.image.rand_augment_transform: unknown section 'm'"),
    ("rand-m9-w0", r"augpy.image.rand_augment_transform: unknown section 'w0'"),
    ("rand-mstdx", r"augpy.image.rand_augment_transform: unknown section 'mstdx'"),
    ("rand-p0.5.1", r"augpy.image.rand_augment_transform: section 'p0.5.1' of 'rand-p0.5.1' needs a number"),
    ("rand-m11", r"TimmRandAugment: magnitude must be in \[0, 10\] .*got 11"),
    ("rand-p1.5", r"TimmRandAugment: prob must be in \[0, 1\], got 1.5"),
    ("rand-m9-t4a", r"TimmRandAugment: transforms must be None, 'weights', '3a', '3aw' or a list"),
    ("rand-n20-tweights", r"TimmRandAugment: num_ops must be at most 15 with weights"),
    (9, r"augpy.image.rand_augment_transform: config must be a string"),
])
def test_bad_configs(config, msg):
    with pytest.raises(ValueError, match=msg):
        augpy.image.rand_augment_transform(config)


def test_bad_input():
    with pytest.raises(ValueError, match=r"RandAugment.from_timm: unknown section 'q1'"):
        augpy.image.RandAugment.from_timm("rand-q1")
    with pytest.raises(ValueError, match="TimmRandAugment: batch\\['image'\\] must be uint8"):
        augpy.image.rand_augment_transform("rand-m9")({"image": augpy.array_to_tensor(np.zeros((2, 3, 4, 4),
                                                                                                np.float32))})
    with pytest.raises(ValueError, match="augpy.image.apply_timm_policy: unknown op 'Warp'"):
        augpy.image.apply_timm_policy(np.zeros((3, 4, 4), np.uint8), [("Warp", 1.0)])
    with pytest.raises(ValueError, match="augpy.image.apply_timm_policy: image must be a uint8"):
        augpy.image.apply_timm_policy(np.zeros((3, 4, 4), np.float32), [])
    with pytest.raises(ValueError, match="TimmRandAugment: magnitude_std must be >= 0"):
        augpy.image.TimmRandAugment(magnitude_std=-1)


def test_own_record_key_beside_torchvisions_policies():
    """Composed after a torchvision policy, timm's stage draws its own ops (its 'timm_policy'),
    not a replay of the other's 'policy' (whose magnitudes mean other arguments)."""
    b = batch_of()
    out = augpy.image.Compose([augpy.image.RandAugment(num_ops=1),
                               augpy.image.rand_augment_transform("rand-m9-p1.0")])(b)
    for a in out["augmentation"]:
        assert len(a["policy"]) == 1 and len(a["timm_policy"]) == 2
