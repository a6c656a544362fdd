"""augpy.image.AutoAugment and AugMix against torchvision's own runs
(data/torchvision_autoaugment.npz, recorded with torchvision 0.29.2 by
data/record_torchvision_autoaugment.py): the 10-bin magnitude tables value for value; for each
recorded run, the ops (and AugMix's weights) torchvision drew, replayed by augpy, give
torchvision's image (exact, but for nearest sampling's half-pixel ties and bilinear sampling's
documented bound of 1 per op, test_affine.py); every recorded AutoAugment run is a sub-policy of
its table. Then the stages: the distributions of sub-policies, ops, bins, signs, depths and
weights against the definitions (chi-square, binomial and KS tests with fixed seeds), records
and replays, the seed model and bad arguments."""
import json
import pathlib
import pickle

import numpy as np
import pytest

import augpy
from conftest import DEVICE, ON_CUDA
from augpy import _augmix, _autoaugment

DATA = np.load(pathlib.Path(__file__).parent / "data" / "torchvision_autoaugment.npz")
AA_RUNS = sorted(int(k[2:-7]) for k in DATA.files if k.startswith("aa") and k.endswith("_policy"))
AM_RUNS = sorted(int(k[2:-7]) for k in DATA.files if k.startswith("am") and k.endswith("_params"))
GEOMETRIC = {"ShearX", "ShearY", "Rotate", "TranslateX", "TranslateY"}
# nearest sampling's half-pixel ties: a shear s about the corner reads x + s (y + 0.5), a tie on every
# fifth row for AutoAugment's shears (s = k * 0.3 / 9), where half the pixels round the other way
TIES = 0.11
SPACES = {"AutoAugment": _autoaugment.AUTO_AUGMENT, "AugMix": _augmix.AUGMIX}


def chisquare_ok(counts, expected):
    counts, expected = np.asarray(counts, float), np.asarray(expected, float)
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    k = len(counts) - 1  # the 0.1% point of chi-square(k) (Wilson-Hilferty)
    return chi2 < k * (1 - 2 / (9 * k) + 3.09 * (2 / (9 * k)) ** 0.5) ** 3, chi2


def ks_ok(a, b):
    a, b = np.sort(np.asarray(a, float)), np.sort(np.asarray(b, float))
    grid = np.concatenate([a, b])
    d = np.abs(np.searchsorted(a, grid, side="right") / len(a) - np.searchsorted(b, grid, side="right") / len(b)).max()
    return d < 1.95 * np.sqrt((len(a) + len(b)) / (len(a) * len(b))), d


@pytest.mark.parametrize("policy", sorted(SPACES))
def test_tables_are_torchvisions(policy):
    for op, (table, _) in SPACES[policy].items():
        key = f"table_{policy}_{op}"
        if table is None:
            assert key not in DATA.files
            continue
        got, want = table(10, 24, 32), DATA[key]
        assert got.dtype.kind == want.dtype.kind and np.array_equal(got, want), (policy, op, got, want)


@pytest.mark.parametrize("i", AA_RUNS)
def test_autoaugment_runs_match_torchvision(i):
    ops = json.loads(str(DATA[f"aa{i}_ops"]))
    dname, want = str(DATA[f"aa{i}_dtype"]), DATA[f"aa{i}_out"]
    # the run is one of the policy's sub-policies (a subsequence of it, at its bins' magnitudes)
    table = _autoaugment.POLICIES[str(DATA[f"aa{i}_policy"])]

    def fits(sub):
        it = iter(sub)
        for op, m in ops:
            for name, _, b in it:
                t = _autoaugment.AUTO_AUGMENT[name][0]
                if name == op and (t is None or np.isclose(abs(m), t(10, 24, 32)[b])):
                    break
            else:
                return False
        return True
    assert any(fits(sub) for sub in table), ops
    got = augpy.tensor_to_array(augpy.image.apply_policy(augpy.array_to_tensor(DATA[dname]), ops))
    assert got.dtype == want.dtype and got.shape == want.shape
    diff = np.abs(got.astype(np.float64) - want) > (1e-6 if dname == "f32" else 0)
    assert diff.mean() <= (TIES if any(op in GEOMETRIC for op, _ in ops) else 0.0), (ops, diff.mean())


@pytest.mark.parametrize("i", AM_RUNS)
def test_augmix_runs_match_torchvision(i):
    params = json.loads(str(DATA[f"am{i}_params"]))
    dname, want = str(DATA[f"am{i}_dtype"]), DATA[f"am{i}_out"]
    chains = json.loads(str(DATA[f"am{i}_chains"]))
    space = _augmix.AUGMIX if params["all_ops"] else _augmix.AUGMIX_PARTIAL
    assert len(chains) == params["mixture_width"]
    for chain in chains:
        assert 1 <= len(chain) <= 3 and (params["chain_depth"] <= 0 or len(chain) == params["chain_depth"])
        for op, m in chain:
            table = space[op][0]
            assert table is None or np.isclose(abs(m), table(10, 24, 32)[:params["severity"]]).any(), (op, m)
    record = {"m": float(DATA[f"am{i}_m"][0]), "weights": DATA[f"am{i}_weights"].tolist(), "chains": chains}
    got = augpy.tensor_to_array(augpy.image.apply_augmix(augpy.array_to_tensor(DATA[dname]), record,
                                                         params["interpolation"]))
    assert got.dtype == want.dtype and got.shape == want.shape
    diff = np.abs(got.astype(np.float64) - want)
    geometric = any(op in GEOMETRIC for chain in chains for op, _ in chain)
    if not geometric:
        assert diff.max() <= (2e-6 if dname == "f32" else 0), (chains, diff.max())
    elif params["interpolation"] == "bilinear":
        # each warp within 1 (uint8; 2e-6 float), mixed with weights < 1; a later Posterize or Solarize
        # step turns a pixel 1 off on its edge into a step's height off
        assert (diff > (1e-5 if dname == "f32" else 1)).mean() <= 0.01, (chains, diff.max())
    else:  # nearest: exact but at half-pixel ties
        assert (diff > (2e-6 if dname == "f32" else 0)).mean() <= TIES, (chains, diff)


def batch_of(n, dtype=np.uint8, seed=0):
    x = np.random.default_rng(seed).integers(0, 256, (n, 3, 20, 24), dtype=np.uint8)
    if dtype == np.float32:
        x = x.astype(np.float32) / 255
    return {"image": augpy.array_to_tensor(x), "augmentation": [{"rng": (7, 1, k)} for k in range(n)]}


@pytest.mark.parametrize("stage,key,apply", [
    (augpy.image.AutoAugment("svhn"), "policy", augpy.image.apply_policy),
    (augpy.image.AutoAugment("imagenet", interpolation="bilinear", fill=9), "policy",
     lambda x, r: augpy.image.apply_policy(x, r, "bilinear", 9)),
    (augpy.image.AugMix(), "augmix", augpy.image.apply_augmix),
    (augpy.image.AugMix(severity=7, mixture_width=2, chain_depth=2, interpolation="nearest"), "augmix",
     lambda x, r: augpy.image.apply_augmix(x, r, "nearest")),
])
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_stage_records_and_replays(stage, key, apply, dtype):
    b = batch_of(8, dtype)
    src = augpy.tensor_to_array(b["image"]).copy()
    out = stage(b)
    got = augpy.tensor_to_array(out["image"])
    records = [a[key] for a in out["augmentation"]]
    assert len({json.dumps(r) for r in records}) > 1  # images draw their own
    for k in range(8):
        assert np.array_equal(got[k], augpy.tensor_to_array(apply(src[k], records[k])))
    # the same rng triples draw the same (a pickled stage, another batch position)
    again = batch_of(8, dtype)
    again["augmentation"] = list(reversed(again["augmentation"]))
    twin = pickle.loads(pickle.dumps(stage))
    assert [a[key] for a in twin(again)["augmentation"]] == list(reversed(records))
    # another epoch draws anew; a recorded dict replays
    other = batch_of(8, dtype)
    other["augmentation"] = [{"rng": (7, 2, k)} for k in range(8)]
    assert [a[key] for a in stage(other)["augmentation"]] != records
    given = batch_of(8, dtype)
    given["augmentation"] = [{key: r} for r in records]
    assert np.array_equal(augpy.tensor_to_array(stage(given)["image"]), got)


def test_autoaugment_distribution():
    """Sub-policy uniform over the 25; each op applied with its probability; signs 1/2."""
    n = 6000
    rng = augpy.RandomNumberGenerator(seed=17)
    u = np.empty((n, 5))
    rng.uniform(u, 0.0, 1.0)
    for policy in ("imagenet", "cifar10", "svhn"):
        aa = augpy.image.AutoAugment(policy)
        recs = [aa._record(u[i], 24, 32) for i in range(n)]
        index = np.array([r["sub_policy"] for r in recs])
        ok, chi2 = chisquare_ok(np.bincount(index, minlength=25), np.full(25, n / 25))
        assert ok, (policy, chi2)
        applied, expected, signs = 0, 0.0, []
        for r in recs:
            sub = _autoaugment.POLICIES[policy][r["sub_policy"]]
            expected += sum(p for _, p, _ in sub)
            applied += len(r["policy"])
            signs += [m < 0 for op, m in r["policy"] if _autoaugment.AUTO_AUGMENT[op][1] and m != 0]
        var = sum(p * (1 - p) for r in recs for _, p, _ in _autoaugment.POLICIES[policy][r["sub_policy"]])
        assert abs(applied - expected) < 4 * var ** 0.5, (policy, applied, expected)
        assert abs(np.mean(signs) - 0.5) < 4 * (0.25 / len(signs)) ** 0.5
    # one op's probability on its own: imagenet's sub-policy 0 applies Posterize with 0.4
    aa = augpy.image.AutoAugment("imagenet")
    first = [aa._record(np.r_[0.0, u[i, 1:]], 24, 32)["policy"] for i in range(n)]
    rate = np.mean([any(op == "Posterize" for op, _ in ops) for ops in first])
    assert abs(rate - 0.4) < 4 * (0.24 / n) ** 0.5


def test_augmix_distribution():
    """Ops uniform over the space, bins uniform below severity, depths uniform in 1..3, m[0] ~
    Beta(alpha, alpha), each mixing weight / m[1] ~ Beta(alpha, (k - 1) alpha)."""
    n = 1500
    for alpha, severity, width in ((1.0, 3, 3), (0.5, 10, 4)):
        stage = augpy.image.AugMix(severity=severity, mixture_width=width, alpha=alpha)
        rng = augpy.RandomNumberGenerator(seed=23)
        recs = [stage._draw(rng, 24, 32) for _ in range(n)]
        ops = [op for r in recs for c in r["chains"] for op, _ in c]
        names = list(_augmix.AUGMIX)
        counts = [ops.count(name) for name in names]
        assert chisquare_ok(counts, np.full(len(names), len(ops) / len(names)))[0]
        depths = np.bincount([len(c) for r in recs for c in r["chains"]], minlength=4)[1:]
        assert chisquare_ok(depths, np.full(3, n * width / 3))[0]
        rot = _augmix.AUGMIX["Rotate"][0](10, 24, 32)
        bins = [int(np.argmin(np.abs(rot - abs(m)))) for r in recs for c in r["chains"] for op, m in c
                if op == "Rotate"]
        assert max(bins) == severity - 1
        assert chisquare_ok(np.bincount(bins, minlength=severity), np.full(severity, len(bins) / severity))[0]
        m0 = np.array([r["m"] for r in recs])
        assert ks_ok(m0, np.random.default_rng(1).beta(alpha, alpha, 4000))[0]
        w = np.array([r["weights"] for r in recs])
        assert np.allclose(m0 + w.sum(1), 1.0, atol=1e-5)
        assert ks_ok(w[:, 0] / (1 - m0), np.random.default_rng(2).beta(alpha, (width - 1) * alpha, 4000))[0]


def test_augmix_partial_space():
    stage = augpy.image.AugMix(all_ops=False, chain_depth=3, seed=4)
    out = stage(batch_of(16))
    ops = {op for a in out["augmentation"] for c in a["augmix"]["chains"] for op, _ in c}
    assert ops <= set(_augmix.AUGMIX_PARTIAL) and len(ops) > 4
    assert all(len(c) == 3 for a in out["augmentation"] for c in a["augmix"]["chains"])


@pytest.mark.parametrize("make,msg", [
    (lambda: augpy.image.AutoAugment("imagenet2012"),
     "AutoAugment: policy must be 'imagenet', 'cifar10' or 'svhn', got 'imagenet2012'"),
    (lambda: augpy.image.AutoAugment(interpolation="cubic"), "AutoAugment: interpolation must be"),
    (lambda: augpy.image.AugMix(severity=11), r"AugMix: severity must be in \[1, 10\], got 11"),
    (lambda: augpy.image.AugMix(severity=0), "AugMix: severity must be an int >= 1, got 0"),
    (lambda: augpy.image.AugMix(mixture_width=0), "AugMix: mixture_width must be an int >= 1"),
    (lambda: augpy.image.AugMix(chain_depth=1.5), "AugMix: chain_depth must be an int"),
    (lambda: augpy.image.AugMix(alpha=0.0), "AugMix: alpha must be positive and finite, got 0.0"),
    (lambda: augpy.image.AugMix(alpha="x"), "AugMix: alpha must be positive and finite, got 'x'"),
    (lambda: augpy.image.AugMix(all_ops=1), "AugMix: all_ops must be True or False"),
    (lambda: augpy.image.AugMix()({"image": augpy.array_to_tensor(np.zeros((1, 3, 4, 4), np.int16))}),
     "AugMix: batch\\['image'\\] must be uint8 or float32"),
    (lambda: augpy.image.apply_augmix(np.zeros((3, 4, 4), np.uint8), {"m": 1.0}),
     "augpy.image.apply_augmix: record must be"),
    (lambda: augpy.image.apply_augmix(np.zeros((3, 4, 4), np.uint8), {"m": 1.0, "weights": [0.5], "chains": []}),
     "augpy.image.apply_augmix: 1 weights for 0 chains"),
])
def test_bad_arguments(make, msg):
    with pytest.raises(ValueError, match=msg):
        make()


@pytest.mark.skipif(not ON_CUDA, reason="needs the CUDA backend (make pytest-emu runs it on the emulated devices)")
def test_device_batches_match_the_cpu():
    """Each new stage on a batch on the device: the same draws and images as on the CPU."""
    x = np.random.default_rng(0).integers(0, 256, (4, 3, 20, 24), dtype=np.uint8)
    f = np.random.default_rng(0).standard_normal((4, 3, 20, 24)).astype(np.float32)
    cases = [(augpy.image.AutoAugment("svhn"), x), (augpy.image.AugMix(), x), (augpy.image.AugMix(), f.clip(0, 1)),
             (augpy.image.rand_augment_transform("rand-m9-mstd0.5-inc1"), x)]
    cases += [(augpy.image.Mixup(mixup_alpha=0.8, cutmix_alpha=1.0, mode=m, num_classes=10), f)
              for m in ("batch", "pair", "elem")]
    for stage, arr in cases:
        runs = []
        for device in ("cpu", DEVICE):
            b = {"image": augpy.array_to_tensor(arr.copy()).to(device), "label": np.arange(4),
                 "augmentation": [{"rng": (1, 0, k)} for k in range(4)]}
            out = stage(b)
            assert out["image"].device == b["image"].device
            runs.append([augpy.tensor_to_array(out[k].to("cpu")) for k in ("image", "target") if k in out])
        assert all(np.array_equal(a, b) for a, b in zip(*runs)), type(stage).__name__
