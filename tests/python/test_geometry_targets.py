"""targets= of the geometric ops (augpy/_geometry.py): masks, boxes and keypoints of one image
follow hflip, vflip, flip, crop, center_crop, resize and warp_affine.

References: NumPy views of the mask (flips and crops are exact), box and keypoint arithmetic by
hand in albumentations' conventions (box edges: a flip sends x to W - x; keypoint centres: to
W - 1 - x), and, for warp_affine, transform_boxes / a nearest warp with the same matrix.
"""
import numpy as np
import pytest

import augpy

H, W = 12, 16
BOXES = np.array([[2, 1, 7, 5], [10, 6, 15, 11]], np.float64)
LABELS = np.array([3, 8])
KP = np.array([[3.0, 2.0], [12.0, 9.0]])


def image_and_mask():
    rng = np.random.default_rng(0)
    img = augpy.array_to_tensor(rng.integers(0, 256, (H, W, 3), dtype=np.uint8))
    mask = rng.integers(0, 5, (H, W), dtype=np.uint8)
    return img, mask


def targets(mask):
    return {"boxes": BOXES, "labels": LABELS, "keypoints": KP, "mask": mask}


def test_hflip_vflip_flip():
    img, mask = image_and_mask()
    view, moved = augpy.hflip(img, targets=targets(mask))
    np.testing.assert_array_equal(view.numpy(), img.numpy()[:, ::-1])
    np.testing.assert_array_equal(moved["mask"].numpy()[0] if moved["mask"].ndim == 3 else moved["mask"].numpy(),
                                  mask[:, ::-1])
    want = BOXES.copy()
    want[:, [0, 2]] = W - BOXES[:, [2, 0]]
    np.testing.assert_allclose(moved["boxes"], want, atol=1e-5)
    np.testing.assert_array_equal(moved["labels"], LABELS)
    np.testing.assert_allclose(moved["keypoints"][:, 0], W - 1 - KP[:, 0], atol=1e-5)
    _, moved = augpy.vflip(img, targets=targets(mask))
    want = BOXES.copy()
    want[:, [1, 3]] = H - BOXES[:, [3, 1]]
    np.testing.assert_allclose(moved["boxes"], want, atol=1e-5)
    np.testing.assert_array_equal(moved["mask"].numpy().reshape(H, W), mask[::-1])
    # both flips, then both again: the identity
    view, once = augpy.flip(img, True, True, targets=targets(mask))
    _, twice = augpy.flip(view, True, True, targets=dict(once, mask=once["mask"].numpy().reshape(H, W)))
    np.testing.assert_allclose(twice["boxes"], BOXES, atol=1e-5)
    np.testing.assert_allclose(twice["keypoints"], KP, atol=1e-5)
    np.testing.assert_array_equal(twice["mask"].numpy().reshape(H, W), mask)


def test_crop_and_center_crop():
    img, mask = image_and_mask()
    view, moved = augpy.crop(img, 2, 3, 8, 9, targets=targets(mask))
    np.testing.assert_array_equal(view.numpy(), img.numpy()[2:10, 3:12])
    np.testing.assert_array_equal(moved["mask"].numpy().reshape(8, 9), mask[2:10, 3:12])
    # box 0 shifted by (3, 2) and clipped; box 1 shifted and clipped at the crop's edge
    want = np.array([[0, 0, 4, 3], [7, 4, 9, 8]], np.float64)
    np.testing.assert_allclose(moved["boxes"], want, atol=1e-5)
    np.testing.assert_array_equal(moved["labels"], LABELS)
    np.testing.assert_allclose(moved["keypoints"], KP[:1] - [3, 2], atol=1e-5)  # (12-3, 9-2) = (9, 7) left
    # a crop that holds neither box drops both, with their labels
    _, moved = augpy.crop(img, 6, 0, 6, 2, targets={"boxes": BOXES, "labels": LABELS})
    assert moved["boxes"].shape == (0, 4) and len(moved["labels"]) == 0
    view, moved = augpy.center_crop(img, (6, 8), targets=targets(mask))
    np.testing.assert_array_equal(moved["mask"].numpy().reshape(6, 8), mask[3:9, 4:12])
    np.testing.assert_array_equal(view.numpy(), img.numpy()[3:9, 4:12])


def test_resize_halves():
    img, mask = image_and_mask()
    res, moved = augpy.resize(img, (H // 2, W // 2), targets=targets(mask))
    assert tuple(res.shape) == (H // 2, W // 2, 3)
    np.testing.assert_allclose(moved["boxes"], BOXES / 2, atol=1e-5)
    np.testing.assert_allclose(moved["keypoints"], (KP + 0.5) / 2 - 0.5, atol=1e-5)  # pixel centres
    # nearest at the output centres: source centre 2x + 0.5 rounds to 2x + 1
    np.testing.assert_array_equal(moved["mask"].numpy().reshape(H // 2, W // 2), mask[1::2, 1::2])


def test_warp_affine_targets_equal_the_matrix_functions():
    img, mask = image_and_mask()
    m, s = augpy.make_transform((H, W), (10, 10), angle=15, scale=1.1, hmirror=True)
    dst = augpy.Tensor((3, 10, 10), dtype=augpy.uint8)
    res, moved = augpy.warp_affine(img, dst, m, None, s, targets=targets(mask))
    assert res is dst
    boxes, _, labels = augpy.transform_boxes(BOXES, m, (H, W), (10, 10), labels=LABELS)
    np.testing.assert_allclose(moved["boxes"], boxes)
    np.testing.assert_array_equal(moved["labels"], labels)
    ref = augpy.Tensor((10, 10), dtype=augpy.uint8)
    augpy.warp_affine(augpy.array_to_tensor(mask), ref, m, [255], interpolation="nearest")
    np.testing.assert_array_equal(moved["mask"].numpy().reshape(10, 10), ref.numpy())
    assert augpy.warp_affine(img, dst, m, None, s) is dst  # without targets: dst alone


def test_identity_keeps_everything():
    img, mask = image_and_mask()
    _, moved = augpy.crop(img, 0, 0, H, W, targets=dict(targets(mask), box_format="xyxy", ignore_index=7))
    np.testing.assert_allclose(moved["boxes"], BOXES, atol=1e-6)
    np.testing.assert_allclose(moved["keypoints"], KP, atol=1e-6)
    np.testing.assert_array_equal(moved["mask"].numpy().reshape(H, W), mask)
    assert moved["ignore_index"] == 7


def test_bad_targets():
    img, mask = image_and_mask()
    with pytest.raises(TypeError, match="augpy.hflip: targets must be a dict"):
        augpy.hflip(img, targets=[BOXES])
    with pytest.raises(TypeError, match="augpy.crop: unknown targets key 'box' \\(accepted: boxes, labels"):
        augpy.crop(img, 0, 0, 4, 4, targets={"box": BOXES})
    with pytest.raises(ValueError, match="augpy.resize: targets= follows one image"):
        augpy.resize(augpy.zeros((2, 3, 8, 8), augpy.uint8), (4, 4), targets={"boxes": BOXES})
    with pytest.raises(ValueError, match="augpy.warp_affine: targets= follows one image"):
        augpy.warp_affine([img], augpy.Tensor((1, 3, 4, 4), dtype=augpy.uint8), np.eye(2, 3), targets={})
    with pytest.raises(ValueError, match="NaN"):
        augpy.hflip(img, targets={"boxes": [[0, 0, np.nan, 3]]})
    with pytest.raises(TypeError, match="integer mask"):
        augpy.hflip(img, targets={"mask": mask.astype(np.float32)})
    with pytest.raises(ValueError, match="shape"):
        augpy.hflip(img, targets={"mask": mask[:5]})
