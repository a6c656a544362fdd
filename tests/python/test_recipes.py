"""The one-call training recipes (augpy.image.timm_train, cifar_train, imagenet_train's policy= /
after=) and the guard that keeps pixel-value stages off a normalised batch: CIFAR's crop + flip
against NumPy's pad / slice / flip, timm's soft targets against timm's mixup_target formula for the
recorded lam and the metadata's labels, the stage order, StageDataset yielding (images, targets),
and bad arguments."""
import io
import sys

import numpy as np
import pytest
from PIL import Image

import augpy
import augpy.image as im
from augpy import tensor_to_array as t2a

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from test_loader import _jpeg, atorch  # noqa: E402,F401 (atorch: augpy.torch over torch or its stand-in)


def _png(a):
    buf = io.BytesIO()
    Image.fromarray(a).save(buf, "PNG")
    return buf.getvalue()


def _unnormalise(x, mean, std):
    """uint8 pixels back from a normalised float32 NCHW batch (exact: the error is far below 0.5)."""
    m = np.asarray(mean, np.float64).reshape(1, -1, 1, 1)
    s = np.asarray(std, np.float64).reshape(1, -1, 1, 1)
    return np.rint(x.astype(np.float64) * s + m).astype(np.int64)


def test_cifar_train_is_numpy_pad_crop_flip():
    """cifar_train's pixels before Normalize equal NumPy's flip -> zero pad 4 -> crop at the recorded
    corner, image by image (random 32x32 PNGs: lossless), and the draws cover both flips and every offset."""
    rng = np.random.default_rng(5)
    imgs = [rng.integers(0, 256, (32, 32, 3), dtype=np.uint8) for _ in range(64)]
    stage = im.cifar_train(64, seed=3)
    b = stage({"image": [_png(a) for a in imgs]})
    assert b["image"].shape == (64, 3, 32, 32) and b.get("normalized")
    got = _unnormalise(t2a(b["image"]), im.CIFAR_MEAN, im.CIFAR_STD)
    flips, tops = set(), set()
    for k, a in enumerate(imgs):
        rec = b["augmentation"][k]
        top, left = rec["random_crop"]
        flips.add(bool(rec["hflip"]))
        tops.add(top)
        src = a[:, ::-1] if rec["hflip"] else a
        want = np.pad(src, ((4, 4), (4, 4), (0, 0)))[top:top + 32, left:left + 32].transpose(2, 0, 1)
        np.testing.assert_array_equal(got[k], want, err_msg=f"image {k}: {rec}")
    assert flips == {False, True} and len(tops) >= 7


def test_timm_train_chain_and_targets():
    """timm_train: policy on uint8 -> Normalize -> RandomErasing -> Mixup, in that order; the targets
    are timm's mixup_target (label smoothing 0.1) for the recorded lam with the metadata's labels."""
    rng = np.random.default_rng(1)
    datas = [_jpeg(rng, int(rng.integers(60, 120)), int(rng.integers(60, 120))) for _ in range(8)]
    mix = dict(mixup_alpha=0.8, cutmix_alpha=1.0, label_smoothing=0.1, num_classes=5)
    stage = im.timm_train(8, size=48, mixup=mix, seed=2)
    names = [type(t).__name__ for t in stage.transforms]
    assert names == ["TimmRandAugment", "Normalize", "RandomErasing", "Mixup"]
    labels = np.array([3, 1, 4, 1, 0, 2, 2, 4])
    b = stage({"image": datas, "metadata": [{"class_index": int(c)} for c in labels]})
    assert b["image"].shape == (8, 3, 48, 48) and b["image"].dtype == augpy.float32
    target = t2a(b["target"])
    lam = b["augmentation"][0]["timm_mixup"]["lam"]
    off, on = 0.1 / 5, 1 - 0.1 + 0.1 / 5
    one = np.full((8, 5), off)
    one[np.arange(8), labels] = on
    flipped = one[::-1]
    np.testing.assert_allclose(target, lam * one + (1 - lam) * flipped, rtol=0, atol=1e-6)
    for a in b["augmentation"]:
        assert {"timm_policy", "erasing", "timm_mixup", "crop", "hflip"} <= set(a)


def test_timm_train_options():
    s = im.timm_train(4, re_prob=0, auto_augment=None)
    assert [type(t).__name__ for t in s.transforms] == ["Normalize"]
    spy = []
    s = im.timm_train(4, size=32, re_prob=0, auto_augment=lambda b: spy.append(b["image"].dtype) or b)
    rng = np.random.default_rng(0)
    s({"image": [_jpeg(rng, 40, 50) for _ in range(4)]})
    assert spy[0] == augpy.uint8  # the policy sees pixels, not normalised floats
    # timm fills the policy's warps with the mean rounded
    s = im.timm_train(4)
    assert tuple(s.transforms[0].fill) == (124, 116, 104)


@pytest.mark.parametrize("make", [
    lambda: im.RandAugment(), lambda: im.TrivialAugmentWide(), lambda: im.AutoAugment(),
    lambda: im.AugMix(), lambda: im.ColorJitter(0.4, 0.4, 0.4, 0.1), lambda: im.RandomGrayscale(p=1.0),
    lambda: im.RandomJpegQuality((50, 90)), lambda: im.Lighting(4), lambda: im.rand_augment_transform("rand-m9"),
])
def test_pixel_stages_refuse_a_normalised_batch(make):
    """A pixel-value stage after Normalize would train on wrong images without an error: it is a ValueError
    naming the stage and where it belongs; before Normalize the same stage runs."""
    rng = np.random.default_rng(0)
    imgs = [_png(rng.integers(0, 256, (16, 16, 3), dtype=np.uint8)) for _ in range(4)]
    stage = make()
    with pytest.raises(ValueError, match=r"normalised by Normalize.*place it before Normalize"):
        im.imagenet_train(4, size=16, jitter=None, after=[stage], seed=0)({"image": imgs})
    im.imagenet_train(4, size=16, jitter=None, policy=[stage], seed=0)({"image": imgs})


def test_float_stages_run_after_normalize():
    rng = np.random.default_rng(0)
    imgs = [_png(rng.integers(0, 256, (16, 16, 3), dtype=np.uint8)) for _ in range(4)]
    after = [im.RandomErasing(p=1.0, mode="pixel"), im.RandomGaussianBlur(3, p=1.0),
             im.MixUp(num_classes=3)]
    b = im.imagenet_train(4, size=16, jitter=None, after=after, seed=0)(
        {"image": imgs, "metadata": [{"class_index": i % 3} for i in range(4)]})
    assert t2a(b["target"]).shape == (4, 3)


def test_mixing_without_labels_is_a_clear_error():
    x = augpy.array_to_tensor(np.zeros((4, 3, 8, 8), np.float32))
    for stage in (im.MixUp(num_classes=3), im.CutMix(num_classes=3), im.Mixup(num_classes=3)):
        with pytest.raises(ValueError, match=r"no 'label'.*class_index"):
            stage({"image": x, "metadata": [{"path": "a"}] * 4})


@pytest.mark.parametrize("kw, match", [
    (dict(auto_augment="autoaug-v0"), "auto_augment must be"),
    (dict(auto_augment=5), "auto_augment must be"),
    (dict(re_prob=1.5), r"re_prob must be in \[0, 1\], got 1.5"),
    (dict(mixup=0.8), "mixup must be"),
    (dict(auto_augment="rand-m99"), r"magnitude must be in \[0, 10\].*got 99"),
    (dict(re_mode="noise"), "mode"),
])
def test_timm_train_bad_arguments(kw, match):
    with pytest.raises(ValueError, match=match):
        im.timm_train(4, **kw)


def test_recipe_stage_lists_are_checked():
    with pytest.raises(ValueError, match=r"imagenet_train: policy must be a stage"):
        im.imagenet_train(4, policy=[3])
    with pytest.raises(ValueError, match=r"cifar_train: policy must be a stage"):
        im.cifar_train(4, policy="RandAugment")


def test_stage_dataset_yields_images_and_targets(atorch, tmp_path):
    """timm_train with mixup inside StageDataset: the mixing stage finds the labels in the batch's
    metadata, and output='tuple' yields (images, soft targets) as torch tensors."""
    mod, torch = atorch
    import augpy.data
    rng = np.random.default_rng(3)
    for c in ("a", "b", "c"):
        (tmp_path / c).mkdir()
        for i in range(4):
            (tmp_path / c / f"{i}.jpg").write_bytes(_jpeg(rng, 40 + 3 * i, 50))
    src = augpy.data.FolderSource(str(tmp_path))
    make = lambda: im.timm_train(4, size=32, mixup=dict(mixup_alpha=0.8, cutmix_alpha=1.0, num_classes=3))
    ds = mod.StageDataset(src, make, 4, seed=0, output="tuple")
    batches = list(ds)
    assert len(batches) == 3
    x, y = batches[0]
    assert tuple(x.shape) == (4, 3, 32, 32) and tuple(y.shape) == (4, 3)
    np.testing.assert_allclose(np.asarray(y).sum(1), 1.0, atol=1e-5)
