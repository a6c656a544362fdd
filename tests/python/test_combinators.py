"""augpy.image.Compose, RandomApply, RandomChoice / OneOf: per-image decisions from the seed
model, recorded and replayed, the chosen images (and only they) through the stages with their
augmentation dicts, the frequencies against p and the weights, and bad arguments."""
import numpy as np
import pytest

import augpy


def invert_stage(batch):
    """A stage: inverts its images in place and marks their dicts."""
    augpy.invert(batch["image"], out=batch["image"])
    batch["augmentation"] = [dict(a, inverted=True) for a in batch["augmentation"]]
    return batch


def add_stage(v):
    def stage(batch):
        x = batch["image"]
        return {"image": augpy.add(x, v), "augmentation": [dict(a, added=v) for a in batch["augmentation"]]}
    return stage


def batch(n=400, value=10):
    return {"image": augpy.array_to_tensor(np.full((n, 1, 2, 2), value, np.uint8)),
            "augmentation": [{"rng": (3, 0, k)} for k in range(n)]}


def test_random_apply_per_image():
    stage = augpy.image.RandomApply(invert_stage, p=0.3)
    out = stage(batch())
    x = augpy.tensor_to_array(out["image"])[:, 0, 0, 0]
    chosen = np.array([a[stage.key] for a in out["augmentation"]])
    assert stage.key == "RandomApply(function)"
    assert abs(chosen.mean() - 0.3) < 4 * np.sqrt(0.21 / 400)
    assert (x[chosen] == 245).all() and (x[~chosen] == 10).all()
    assert all(a.get("inverted", False) == c for a, c in zip(out["augmentation"], chosen))
    # replayed from the records, and the same from the same rng in another order
    again = batch()
    again["augmentation"] = [dict(a) for a in out["augmentation"]]
    y = augpy.tensor_to_array(augpy.image.RandomApply(invert_stage, p=0.9)(again)["image"])[:, 0, 0, 0]
    assert np.array_equal(y, x)
    # another key draws other decisions for the same images
    other = augpy.image.RandomApply(invert_stage, p=0.3, key="second")(batch())
    assert [a["second"] for a in other["augmentation"]] != list(chosen)


def test_random_choice_weights():
    stage = augpy.image.OneOf([add_stage(1), add_stage(2), add_stage(3)], weights=[0.2, 0.3, 0.5])
    out = stage(batch(n=1000))
    x = augpy.tensor_to_array(out["image"])[:, 0, 0, 0]
    idx = np.array([a[stage.key] for a in out["augmentation"]])
    assert np.array_equal(x, 10 + idx + 1)
    assert all(a["added"] == i + 1 for a, i in zip(out["augmentation"], idx))
    counts = np.bincount(idx, minlength=3)
    expected = np.array([0.2, 0.3, 0.5]) * 1000
    assert ((counts - expected) ** 2 / expected).sum() < 13.8  # chi-square, 2 dof, 0.1%


def test_compose_and_whole_batch():
    out = augpy.image.Compose([add_stage(5), invert_stage])(batch(n=3))
    assert (augpy.tensor_to_array(out["image"]) == 255 - 15).all()
    out = augpy.image.RandomApply([add_stage(5), add_stage(1)], p=1.0)(batch(n=3))  # every image: in place
    assert (augpy.tensor_to_array(out["image"]) == 16).all()
    out = augpy.image.RandomChoice([add_stage(5)], seed=1)({"image": augpy.array_to_tensor(np.zeros((2, 1, 1, 1),
                                                                                                      np.uint8))})
    assert [a["RandomChoice(function)"] for a in out["augmentation"]] == [0, 0]


def test_bad_arguments():
    with pytest.raises(ValueError, match=r"RandomApply: p must be in \[0, 1\]"):
        augpy.image.RandomApply(invert_stage, p=2)
    with pytest.raises(TypeError, match="RandomChoice: stages must be a stage or a non-empty list"):
        augpy.image.RandomChoice([])
    with pytest.raises(ValueError, match="OneOf: weights must be 2 finite values"):
        augpy.image.OneOf([invert_stage, invert_stage], weights=[1, -1])
    shrink = lambda b: {"image": b["image"][:, :, :1], "augmentation": b["augmentation"]}  # noqa: E731
    with pytest.raises(ValueError, match="RandomApply: a stage changed the images"):
        augpy.image.RandomApply(shrink, p=0.5)(batch(n=20))
    bad = batch(n=2)
    bad["augmentation"][0]["RandomApply(function)"] = "yes"
    with pytest.raises(TypeError, match=r"RandomApply: augmentation\[0\]\['RandomApply\(function\)'\] must be True"):
        augpy.image.RandomApply(invert_stage)(bad)
    bad = batch(n=2)
    bad["augmentation"][1]["RandomChoice(function)"] = 4
    with pytest.raises(ValueError, match="must be a stage index in"):
        augpy.image.RandomChoice(invert_stage)(bad)
