"""augpy.image.RandomCrop with targets: the batch's boxes, keypoints and masks follow each image's
padding and crop. Checked against an independent NumPy reference (shift, clip, drop; numpy.pad of
the mask with ignore_index, then the slice) for every padding mode, pad_if_needed and both layouts,
and against albumentations 2.0.8's padded crop (data/albumentations_crop_targets.npz, recorded by
data/record_albumentations_crop_targets.py with the same padding and corner)."""
import pathlib

import numpy as np
import pytest

import augpy

ALB = np.load(pathlib.Path(__file__).parent / "data" / "albumentations_crop_targets.npz")


def tensor(a, layout=None):
    t = augpy.array_to_tensor(np.ascontiguousarray(a))
    if layout:
        t.layout = layout
    return t


def ref_boxes(boxes, dx, dy, ch, cw):
    """xyxy boxes moved by (-dx, -dy), clipped to the crop, kept when their area is > 0."""
    b = boxes - np.array([dx, dy, dx, dy], np.float64)
    b = np.clip(b, 0, [cw, ch, cw, ch])
    keep = np.nonzero((b[:, 2] > b[:, 0]) & (b[:, 3] > b[:, 1]))[0]
    return b[keep], keep


def ref_keypoints(kps, dx, dy, ch, cw):
    k = kps.copy()
    k[:, 0] -= dx
    k[:, 1] -= dy
    keep = np.nonzero((k[:, 0] >= 0) & (k[:, 0] < cw) & (k[:, 1] >= 0) & (k[:, 1] < ch))[0]
    return k[keep], keep


def ref_mask(mask, pads, top, left, ch, cw, ignore):
    l, t, r, b = pads
    p = np.pad(mask, [(t, b), (l, r)], constant_values=ignore)
    return p[top:top + ch, left:left + cw]


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric"])
@pytest.mark.parametrize("lay", ["NCHW", "NHWC"])
@pytest.mark.parametrize("size,padding,needed", [((10, 12), None, False), ((16, 16), 4, False),
                                                 ((24, 30), (2, 1, 3, 0), True)])
def test_targets_follow_numpy_reference(mode, lay, size, padding, needed):
    rng = np.random.default_rng(5)
    n, h, w = 6, 14, 17
    a = rng.integers(0, 256, (n, 3, h, w)).astype(np.uint8)
    boxes, labels, kps, kp_labels, masks = [], [], [], [], []
    for k in range(n):
        x0, y0 = rng.uniform(0, w - 1, 8), rng.uniform(0, h - 1, 8)
        x1, y1 = np.minimum(x0 + rng.uniform(0.5, 8, 8), w), np.minimum(y0 + rng.uniform(0.5, 8, 8), h)
        bb = np.stack([x0, y0, x1, y1], 1)
        boxes.append(bb)
        labels.append(np.arange(8) + 10 * k)
        kps.append(np.stack([rng.uniform(0, w - 1e-6, 9), rng.uniform(0, h - 1e-6, 9), rng.uniform(0, 360, 9)], 1))
        kp_labels.append([f"k{k}.{j}" for j in range(9)])
        masks.append(rng.integers(0, 4, (h, w)).astype(np.uint8))
    image = tensor(a if lay == "NCHW" else a.transpose(0, 2, 3, 1), lay)
    stage = augpy.image.RandomCrop(size, padding=padding, pad_if_needed=needed, padding_mode=mode, seed=11)
    stage.ignore_index = 200
    out = stage({"image": image, "boxes": list(boxes), "labels": list(labels), "keypoints": list(kps),
                 "keypoint_labels": list(kp_labels), "masks": list(masks)})
    from augpy._crop import crop_params
    pads, _, _ = crop_params(h, w, stage.size, stage.padding, needed, 0.0, 0.0, "t")
    ch, cw = size
    assert tuple(out["masks"].shape) == (n, ch, cw)
    corners = [d["random_crop"] for d in out["augmentation"]]
    assert len(set(corners)) > 1
    for k, (top, left) in enumerate(corners):
        dy, dx = top - pads[1], left - pads[0]
        want, keep = ref_boxes(boxes[k], dx, dy, ch, cw)
        np.testing.assert_allclose(out["boxes"][k], want, atol=1e-9)
        np.testing.assert_array_equal(out["labels"][k], labels[k][keep])
        want, keep = ref_keypoints(kps[k], dx, dy, ch, cw)
        np.testing.assert_allclose(out["keypoints"][k], want, atol=1e-9)
        assert list(out["keypoint_labels"][k]) == [kp_labels[k][j] for j in keep]
        np.testing.assert_array_equal(out["masks"].numpy()[k], ref_mask(masks[k], pads, top, left, ch, cw, 200))


def test_targets_replayed_with_the_crop():
    rng = np.random.default_rng(6)
    a = rng.integers(0, 256, (3, 3, 10, 10)).astype(np.uint8)
    boxes = [np.array([[1.0, 1.0, 6.0, 7.0]])] * 3
    first = augpy.image.RandomCrop(6, padding=2, seed=1)({"image": tensor(a), "boxes": list(boxes)})
    again = augpy.image.RandomCrop(6, padding=2, seed=99)(
        {"image": tensor(a), "boxes": list(boxes), "augmentation": first["augmentation"]})
    for k in range(3):
        np.testing.assert_array_equal(first["boxes"][k], again["boxes"][k])


def test_target_errors_name_the_stage():
    img = tensor(np.zeros((2, 3, 8, 8), np.uint8))
    with pytest.raises(ValueError, match=r"RandomCrop: batch\['boxes'\] must be a list of 2 entries"):
        augpy.image.RandomCrop(4)({"image": img, "boxes": [np.zeros((0, 4))]})
    with pytest.raises(ValueError, match=r"RandomCrop: batch\['masks'\]\[1\] has shape \(7, 8\), "
                                         r"its image is \(8, 8\)"):
        augpy.image.RandomCrop(4)({"image": img, "masks": [np.zeros((8, 8), np.uint8), np.zeros((7, 8), np.uint8)]})


@pytest.mark.parametrize("case", [str(c) for c in ALB["cases"]])
def test_against_albumentations(case):
    p = case + "/"
    pads = tuple(int(v) for v in ALB[p + "padding"])
    top, left = (int(v) for v in ALB[p + "corner"])
    size = tuple(int(v) for v in ALB[p + "size"])
    image = ALB[p + "image_in"].transpose(2, 0, 1)[None]
    stage = augpy.image.RandomCrop(size, padding=pads)
    out = stage({"image": tensor(image), "augmentation": [{"random_crop": (top, left)}],
                 "masks": [ALB[p + "mask_in"]], "boxes": [ALB[p + "boxes_in"]],
                 "labels": [np.arange(len(ALB[p + "boxes_in"]))], "keypoints": [ALB[p + "kp_in"]],
                 "keypoint_labels": [np.arange(len(ALB[p + "kp_in"]))]})
    np.testing.assert_array_equal(out["image"].numpy()[0].transpose(1, 2, 0), ALB[p + "image_out"])
    np.testing.assert_array_equal(out["masks"].numpy()[0], ALB[p + "mask_out"])
    np.testing.assert_array_equal(out["labels"][0], ALB[p + "rows"])
    np.testing.assert_allclose(out["boxes"][0], ALB[p + "boxes_out"], atol=1e-4)  # albumentations: float32
    np.testing.assert_array_equal(out["keypoint_labels"][0], ALB[p + "kp_rows"])
    np.testing.assert_allclose(out["keypoints"][0], ALB[p + "kp_out"], atol=1e-4)
