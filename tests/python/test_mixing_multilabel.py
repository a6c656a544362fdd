"""Multi-label and soft targets through the mixing stages: augpy.image.Mixup (timm's) and MixUp /
CutMix (torchvision's) take (N, num_classes) float, bool or int targets as batch['label'] (an
array, a sequence or a tensor) or as each metadata dict's 'target', mixed with the same lam.
One-hot rows give exactly the targets of class indices, so timm's recorded calls
(data/timm_mixup.npz) check the smoothing and mixing; soft and multi-hot rows are checked
against a NumPy reference (timm's smoothing of a one-hot row, y (1 - s) + s / C, then
y lam + y.flip(0) (1 - lam)); bad shapes are errors naming the stage and the shapes."""
import json
import pathlib

import numpy as np
import pytest

import augpy

DATA = np.load(pathlib.Path(__file__).parent / "data" / "timm_mixup.npz")
CALLS = sorted(int(k[4:-7]) for k in DATA.files if k.startswith("call") and k.endswith("_params"))


def one_hot(labels, c, dtype=np.float32):
    y = np.zeros((len(labels), c), dtype)
    y[np.arange(len(labels)), labels] = 1
    return y


@pytest.mark.parametrize("i", CALLS)
def test_one_hot_rows_give_timms_targets(i):
    params = json.loads(str(DATA[f"call{i}_params"]))
    records = json.loads(str(DATA[f"call{i}_records"]))
    c = params.get("num_classes", 1000)
    for label in (one_hot(DATA["labels"], c), one_hot(DATA["labels"], c, bool),
                  augpy.array_to_tensor(one_hot(DATA["labels"], c))):
        batch = {"image": augpy.array_to_tensor(DATA["images"].copy()), "label": label,
                 "augmentation": [{"timm_mixup": r} for r in records]}
        out = augpy.image.Mixup(**params)(batch)
        assert np.array_equal(augpy.tensor_to_array(out["image"]), DATA[f"call{i}_images"])
        got = augpy.tensor_to_array(out["target"])
        assert got.dtype == np.float32 and np.array_equal(got, DATA[f"call{i}_targets"]), params


def images(n=8, seed=0):
    return augpy.array_to_tensor(np.random.default_rng(seed).normal(size=(n, 3, 12, 16)).astype(np.float32))


def soft_labels(n=8, c=6, seed=1):
    rng = np.random.default_rng(seed)
    multi_hot = (rng.random((n, c)) < 0.4).astype(np.float32)
    soft = rng.dirichlet(np.ones(c), n).astype(np.float32)
    return multi_hot, soft


@pytest.mark.parametrize("mode", ["batch", "pair", "elem"])
@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_soft_and_multi_hot_against_reference(mode, smoothing):
    for y in soft_labels():
        stage = augpy.image.Mixup(mixup_alpha=0.8, cutmix_alpha=1.0, mode=mode, label_smoothing=smoothing,
                                  num_classes=6, seed=4)
        out = stage({"image": images(), "label": y})
        lam = np.array([a["timm_mixup"]["lam"] for a in out["augmentation"]], np.float64)[:, None]
        assert len(set(lam[:, 0])) > (0 if mode == "batch" else 1)
        ys = y.astype(np.float64) * (1 - smoothing) + smoothing / 6
        want = ys * lam + ys[::-1] * (1 - lam)
        got = augpy.tensor_to_array(out["target"])
        assert got.dtype == np.float32 and got.shape == (8, 6)
        np.testing.assert_allclose(got, want, rtol=0, atol=2e-7)
        # the images are mixed as with class indices: the same records replayed with int labels
        again = stage({"image": images(), "label": np.arange(8) % 6, "augmentation": out["augmentation"]})
        assert np.array_equal(augpy.tensor_to_array(again["image"]), augpy.tensor_to_array(out["image"]))


def test_targets_from_metadata():
    multi_hot, _ = soft_labels()
    stage = augpy.image.Mixup(mixup_alpha=1.0, num_classes=6, label_smoothing=0.1, seed=2)
    meta = [{"path": f"{k}.jpg", "target": multi_hot[k].tolist()} for k in range(8)]
    out = stage({"image": images(), "metadata": meta})
    ref = stage({"image": images(), "label": multi_hot, "augmentation": out["augmentation"]})
    assert np.array_equal(augpy.tensor_to_array(out["target"]), augpy.tensor_to_array(ref["target"]))
    assert out["label"].dtype == np.float32 and out["label"].shape == (8, 6)
    # class indices in the metadata still win (augpy.data's class_index)
    both = [dict(m, class_index=k % 6) for k, m in enumerate(meta)]
    assert augpy.image.Mixup(num_classes=6)({"image": images(), "metadata": both})["label"].dtype == np.int64


def test_torchvision_mixup_cutmix_take_soft_targets():
    _, soft = soft_labels()
    x = augpy.tensor_to_array(images())
    imgs, t = augpy.image.mixup(augpy.array_to_tensor(x.copy()), soft, 0.3, 6)
    want = np.roll(soft, 1, 0) * np.float32(0.7) + soft * np.float32(0.3)
    assert np.array_equal(augpy.tensor_to_array(t), want)
    imgs, t, lam = augpy.image.cutmix(augpy.array_to_tensor(x.copy()), soft, (2, 3, 10, 9), 6)
    want = np.roll(soft, 1, 0) * np.float32(1 - lam) + soft * np.float32(lam)
    assert np.array_equal(augpy.tensor_to_array(t), want)
    out = augpy.image.MixUp(num_classes=6, seed=1)({"image": augpy.array_to_tensor(x.copy()), "label": soft})
    lam = out["augmentation"][0]["mixup"]
    want = np.roll(soft, 1, 0) * np.float32(1 - lam) + soft * np.float32(lam)
    assert np.array_equal(augpy.tensor_to_array(out["target"]), want)


@pytest.mark.parametrize("label,msg", [
    (np.zeros((8, 5), np.float32), r"Mixup: \(N, num_classes\) targets must have shape \(8, 6\) for 8 images and "
                                   r"num_classes=6, got \(8, 5\)"),
    (np.zeros((6, 6), np.float32), r"Mixup: \(N, num_classes\) targets must have shape \(8, 6\) .* got \(6, 6\)"),
    (np.zeros((8, 6, 1), np.float32), r"Mixup: labels must be N integer class indices or \(N, num_classes\) float "
                                      r"targets, got shape \(8, 6, 1\)"),
    (np.full((8, 6), np.nan, np.float32), "Mixup: targets must be finite"),
    (np.zeros(8, np.float32), r"Mixup: labels must be N integer class indices or \(N, num_classes\)"),
])
def test_bad_targets(label, msg):
    x = augpy.tensor_to_array(images())
    with pytest.raises(ValueError, match=msg):
        augpy.image.Mixup(num_classes=6)({"image": augpy.array_to_tensor(x), "label": label})
    assert np.array_equal(x, augpy.tensor_to_array(images()))


def test_bad_metadata_targets():
    meta = [{"target": [0, 1, 0]}] * 7 + [{"target": [0, 1]}]
    with pytest.raises(ValueError, match=r"Mixup: metadata\[7\]\['target'\] has shape \(2,\), metadata\[0\]'s \(3,\)"):
        augpy.image.Mixup(num_classes=3)({"image": images(), "metadata": meta})
    meta = [{"target": [0, 1, 0]}] * 7 + [{"target": [0, "x", 1]}]
    with pytest.raises(ValueError, match=r"Mixup: metadata\[7\]\['target'\] must be a sequence of numbers"):
        augpy.image.Mixup(num_classes=3)({"image": images(), "metadata": meta})
    with pytest.raises(ValueError, match="MixUp: the batch has no 'label' .* its metadata no class_index or target"):
        augpy.image.MixUp(num_classes=3)({"image": images(), "metadata": [{"path": "a"}] * 8})
