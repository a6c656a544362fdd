"""The ImageNet recipe stages of augpy.image: ColorJitter and Normalize as batch stages, and
imagenet_train / imagenet_eval, which chain them after ImageNetTrain / ImageNetEval.

References: Normalize against NumPy float64 (x - mean) / std; the ColorJitter stage against
augpy.color_jitter with the factors drawn from the same generator state (the op itself is
checked against torchvision in test_colour.py); the chained stages against the stages run one
after the other with the same seeds.
"""
import io

import numpy as np
import pytest
from PIL import Image

import augpy
from augpy.image import ColorJitter, ImageNetEval, ImageNetTrain, Normalize, imagenet_eval, imagenet_train

MEAN = np.array([0.485, 0.456, 0.406]) * 255
STD = np.array([0.229, 0.224, 0.225]) * 255


def jpegs(n, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        h, w = (120 + 17 * i, 160 - 9 * i)
        y, x = np.mgrid[0:h, 0:w]
        img = np.stack([(x * 3 + i) % 256, (y * 2) % 256, (x + y) % 256], -1) + rng.integers(0, 20, (h, w, 3))
        buf = io.BytesIO()
        Image.fromarray(np.clip(img, 0, 255).astype(np.uint8)).save(buf, format="JPEG", quality=90)
        out.append(buf.getvalue())
    return out


def batch_of(n, c=3, h=20, w=24, seed=1):
    return np.random.default_rng(seed).integers(0, 256, (n, c, h, w), dtype=np.uint8)


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_normalize_against_numpy(layout):
    x = batch_of(5)
    stage = Normalize(8, layout=layout)
    out = stage({"image": augpy.array_to_tensor(x)})["image"]
    want = (x.astype(np.float64) - MEAN[:, None, None]) / STD[:, None, None]
    if layout == "NHWC":
        want = want.transpose(0, 2, 3, 1)
    assert out.dtype == augpy.float32 and tuple(out.shape) == want.shape
    np.testing.assert_allclose(out.numpy(), want, rtol=0, atol=2e-6)


def test_normalize_ring_and_dtype():
    stage = Normalize(4, mean=[10], std=[2], dtype=augpy.float16, num_buffers=2)
    x = augpy.array_to_tensor(batch_of(4, c=1))
    a = stage({"image": x})["image"]
    a_copy = a.numpy().copy()
    b = stage({"image": x})["image"]
    c = stage({"image": x})["image"]
    assert a.dtype == augpy.float16
    np.testing.assert_array_equal(a.numpy(), a_copy)  # rewritten by the third call, with equal values
    np.testing.assert_array_equal(c.numpy(), ((batch_of(4, c=1) - 10.0) / 2).astype(np.float16))


def test_color_jitter_stage_equals_the_op():
    x = batch_of(6)
    stage = ColorJitter(0.4, 0.4, 0.4, 0.1, seed=5)
    got = stage({"image": augpy.array_to_tensor(x.copy())})
    states = augpy.sample_rng_states([(5, 0, k) for k in range(6)], "ColorJitter")  # the seed model's draws
    params = augpy.color_jitter_params(states, 6, brightness=0.4, contrast=0.4,
                                       saturation=0.4, hue=0.1, random_order=True)
    want = augpy.color_jitter(augpy.array_to_tensor(x.copy()), **params)
    np.testing.assert_array_equal(got["image"].numpy(), want.numpy())
    assert [a["color_jitter"]["brightness"] for a in got["augmentation"]] == list(params["brightness"])
    assert [list(a["color_jitter"]["order"]) for a in got["augmentation"]] == [list(o) for o in params["order"]]
    assert all("contrast" not in a for a in got["augmentation"])  # no clash with Lighting's key
    # the next call draws new factors
    again = stage({"image": augpy.array_to_tensor(x.copy())})["image"].numpy()
    assert not np.array_equal(again, got["image"].numpy())


def test_imagenet_train_chain_equals_the_stages():
    data = jpegs(4)
    full = imagenet_train(4, size=32, seed=3)
    got = full({"image": list(data)})
    crop = ImageNetTrain(4, size=32, seed=3)
    step = crop({"image": list(data)})
    step = ColorJitter(seed=4)(step)
    step = Normalize(4)(step)
    assert got["image"].dtype == augpy.float32 and tuple(got["image"].shape) == (4, 3, 32, 32)
    np.testing.assert_array_equal(got["image"].numpy(), step["image"].numpy())
    assert all("crop" in a and "hue" in a["color_jitter"] for a in got["augmentation"])
    # undoing the normalisation gives pixels in 0..255
    pix = got["image"].numpy() * STD[:, None, None] + MEAN[:, None, None]
    assert pix.min() > -0.01 and pix.max() < 255.01


def test_imagenet_eval_chain():
    data = jpegs(3)
    got = imagenet_eval(3, size=24, resize=28, layout="NHWC")({"image": list(data)})["image"]
    ref = ImageNetEval(3, size=24, resize=28)({"image": list(data)})["image"].numpy()
    want = ((ref.astype(np.float64) - MEAN[:, None, None]) / STD[:, None, None]).transpose(0, 2, 3, 1)
    np.testing.assert_allclose(got.numpy(), want, atol=2e-6)


def test_bad_parameters():
    with pytest.raises(ValueError, match="Normalize: layout"):
        Normalize(2, layout="CHW")
    with pytest.raises(ValueError, match="Normalize: batch_size"):
        Normalize(0)
    with pytest.raises((ValueError, TypeError)):
        ColorJitter(brightness=-1)
    with pytest.raises((ValueError, TypeError)):
        ColorJitter(hue=0.7)
    with pytest.raises(ValueError, match="Normalize: batch\\['image'\\] must be"):
        Normalize(2)({"image": augpy.zeros((3, 4, 4), augpy.uint8)})
    with pytest.raises(ValueError, match="Normalize: 3 images for a batch size of 2"):
        Normalize(2)({"image": augpy.zeros((3, 3, 4, 4), augpy.uint8)})
    with pytest.raises(TypeError, match="ColorJitter: batch must be a dict"):
        ColorJitter()([1, 2])
    with pytest.raises((ValueError, TypeError), match="color_jitter|3 channels|channel"):
        ColorJitter(seed=1)({"image": augpy.zeros((2, 4, 5, 5), augpy.uint8)})
