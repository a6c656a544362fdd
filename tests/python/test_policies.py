"""augpy.image.RandAugment / TrivialAugmentWide and apply_policy against torchvision's own pieces
(data/torchvision_policies.npz, recorded with torchvision 0.29.2 by
data/record_torchvision_policies.py): the magnitude tables value for value, each op and two-op
chain on uint8 and float32 images (exact, but for the geometric ops' nearest-sampling ties, see
test_affine.py); then the stages: per-image draws recorded and replayed, the seed model, the
distribution of ops, signs and magnitude bins (chi-square against the policy's definition), and
bad arguments."""
import json
import pathlib
import pickle

import numpy as np
import pytest

import augpy
from augpy import _policies

DATA = np.load(pathlib.Path(__file__).parent / "data" / "torchvision_policies.npz")
CHAINS = sorted(int(k[5:-4]) for k in DATA.files if k.startswith("chain") and k.endswith("_ops"))
GEOMETRIC = {"ShearX", "ShearY", "Rotate"}
SPACES = {"RandAugment": _policies.RAND_AUGMENT, "TrivialAugmentWide": _policies.TRIVIAL_AUGMENT_WIDE}


@pytest.mark.parametrize("policy", sorted(SPACES))
def test_tables_are_torchvisions(policy):
    for op, (table, _) in SPACES[policy].items():
        key = f"table_{policy}_{op}"
        if table is None:
            assert key not in DATA.files
            continue
        want = DATA[key]
        got = table(31, 24, 32)
        assert got.dtype.kind == want.dtype.kind and np.array_equal(got, want), (policy, op, got, want)


@pytest.mark.parametrize("i", CHAINS)
@pytest.mark.parametrize("dname", ["u8", "f32"])
def test_ops_match_torchvision(i, dname):
    ops = json.loads(str(DATA[f"chain{i}_ops"]))
    want = DATA[f"chain{i}_{dname}"]
    got = augpy.tensor_to_array(augpy.image.apply_policy(augpy.array_to_tensor(DATA[dname]), ops))
    assert got.dtype == want.dtype and got.shape == want.shape
    diff = got.astype(np.float64) != want.astype(np.float64)
    if dname == "f32":
        diff = np.abs(got.astype(np.float64) - want) > 1e-6
    tied = any(op in GEOMETRIC for op, _ in ops)
    assert diff.mean() <= (0.06 if tied else 0.0), (ops, diff.mean())


def batch_of(n, seed=0):
    rng = np.random.default_rng(seed)
    return {"image": augpy.array_to_tensor(rng.integers(0, 256, (n, 3, 20, 24), dtype=np.uint8)),
            "augmentation": [{"rng": (7, 1, k)} for k in range(n)]}


@pytest.mark.parametrize("stage", [augpy.image.RandAugment(num_ops=3), augpy.image.TrivialAugmentWide()])
def test_stage_records_and_replays(stage):
    b = batch_of(8)
    src = augpy.tensor_to_array(b["image"]).copy()
    out = stage(b)
    got = augpy.tensor_to_array(out["image"])
    policies = [a["policy"] for a in out["augmentation"]]
    assert len({json.dumps(p) for p in policies}) > 1  # images draw their own
    for k in range(8):
        one = augpy.image.apply_policy(src[k], policies[k])
        assert np.array_equal(got[k], augpy.tensor_to_array(one))
    # the same rng triples draw the same ops (a fresh stage, another batch position)
    again = batch_of(8)
    again["augmentation"] = list(reversed(again["augmentation"]))
    twin = pickle.loads(pickle.dumps(stage))
    assert [a["policy"] for a in twin(again)["augmentation"]] == list(reversed(policies))
    # a recorded dict replays: ops given are not drawn
    fixed = batch_of(2)
    fixed["augmentation"] = [{"policy": [("Invert", 0.0)]}, {"policy": [("Identity", 0.0)]}]
    res = augpy.tensor_to_array(stage(fixed)["image"])
    src2 = augpy.tensor_to_array(batch_of(2)["image"])
    assert np.array_equal(res[0], 255 - src2[0]) and np.array_equal(res[1], src2[1])


def _chisquare_ok(counts, expected):
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    # the 0.1% point of the chi-square distribution with len - 1 degrees of freedom (Wilson-Hilferty)
    k = len(counts) - 1
    z = 3.09
    return chi2 < k * (1 - 2 / (9 * k) + z * (2 / (9 * k)) ** 0.5) ** 3, chi2


def test_distributions():
    n = 7000
    ra = augpy.image.RandAugment(num_ops=1, magnitude=9)
    ta = augpy.image.TrivialAugmentWide()
    rng = augpy.RandomNumberGenerator(seed=11)
    u = np.empty((n, 3))
    rng.uniform(u, 0.0, 1.0)
    ops_ra = [ra._draw(u[i, :2], 24, 32)[0] for i in range(n)]
    ops_ta = [ta._draw(u[i], 24, 32)[0] for i in range(n)]
    for ops, space in ((ops_ra, _policies.RAND_AUGMENT), (ops_ta, _policies.TRIVIAL_AUGMENT_WIDE)):
        names = list(space)
        counts = np.array([sum(op == name for op, _ in ops) for name in names], float)
        ok, chi2 = _chisquare_ok(counts, np.full(len(names), n / len(names)))
        assert ok, chi2
        signed = [m for op, m in ops if space[op][1] and m != 0]
        neg = sum(m < 0 for m in signed)
        assert abs(neg / len(signed) - 0.5) < 4 * (0.25 / len(signed)) ** 0.5
    # TrivialAugmentWide's magnitude bins are uniform: Rotate's |magnitude| over the 31 bins
    table = _policies.TRIVIAL_AUGMENT_WIDE["Rotate"][0](31, 24, 32).astype(np.float64)
    mags = [abs(m) for op, m in ops_ta if op == "Rotate"]
    counts = np.array([sum(np.isclose(m, t) for m in mags) for t in table], float)
    assert counts.sum() == len(mags)
    ok, chi2 = _chisquare_ok(counts, np.full(31, len(mags) / 31))
    assert ok, chi2


def test_float_batches():
    b = batch_of(3)
    b["image"] = augpy.array_to_tensor(augpy.tensor_to_array(b["image"]).astype(np.float32) / 255)
    out = augpy.image.RandAugment(seed=3)(b)
    assert out["image"].dtype == augpy.float32 and len(out["augmentation"][0]["policy"]) == 2


@pytest.mark.parametrize("make,msg", [
    (lambda: augpy.image.RandAugment(magnitude=31), "RandAugment: magnitude must be below num_magnitude_bins"),
    (lambda: augpy.image.RandAugment(num_ops=-1), "RandAugment: num_ops must be an int >= 0"),
    (lambda: augpy.image.RandAugment(num_ops=1.5), "RandAugment: num_ops must be an int"),
    (lambda: augpy.image.RandAugment(interpolation="cubic"), "RandAugment: interpolation must be"),
    (lambda: augpy.image.TrivialAugmentWide(num_magnitude_bins=1), "num_magnitude_bins must be an int >= 2"),
])
def test_bad_arguments(make, msg):
    with pytest.raises(ValueError, match=msg):
        make()


def test_bad_policies():
    img = np.zeros((3, 4, 4), np.uint8)
    with pytest.raises(ValueError, match="augpy.image.apply_policy: unknown op 'Warp'"):
        augpy.image.apply_policy(img, [("Warp", 1.0)])
    with pytest.raises(TypeError, match="augpy.image.apply_policy: each op must be"):
        augpy.image.apply_policy(img, ["Rotate"])
    with pytest.raises(ValueError, match=r"augpy.image.apply_policy: image must be \(C, H, W\)"):
        augpy.image.apply_policy(np.zeros((2, 3, 4, 4), np.uint8), [])
    with pytest.raises(ValueError, match="RandAugment: batch"):
        augpy.image.RandAugment()({"image": img})
