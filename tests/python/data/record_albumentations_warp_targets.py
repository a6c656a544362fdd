"""Record albumentations' boxes, keypoints and masks through A.Rotate, A.Affine (with shear) and
A.Perspective for tests/python/test_targets_albumentations.py.

Run it from the repository root with the peers venv, .venv-peers (`make bench-peers` creates it
with the Makefile's pinned PEER_DEPS); it expects albumentations==2.0.8 and
opencv-python-headless==5.0.0.93 (numpy==2.4.6) and refuses to record with other versions
(peer_versions.py). It does not import augpy:
    .venv-peers/bin/python tests/python/data/record_albumentations_warp_targets.py

Each case runs one A.Compose([transform]) on a uint8 image (h, w) of flat blocks, an integer mask
(h, w), pascal_voc and coco boxes (row numbers as a label field) and xyas keypoints (angle in
degrees, remove_invisible=True and False), and stores under "<case>/<field>": the inputs, the
settings, the forward matrices albumentations used (rebuilt with its own functions and checked:
cv2 warping the image with "forward" must equal the transform's image exactly; "bbox_forward"
is the matrix its boxes went through, on pixel-edge coordinates) and its outputs (image, mask,
kept boxes and rows per format, keypoints and rows). Perspective's points are fixed by a
subclass whose get_params_dependent_on_data is A.Perspective's with the random corners replaced
by given ones (order_points, compute_perspective_params: albumentations' own code).
"""

from peer_versions import check_peers  # this folder's helper: the Makefile's pinned peer versions

check_peers(__doc__, "albumentations", "opencv-python-headless", "numpy")  # before importing them

import pathlib

import albumentations as A
import cv2
import numpy as np
from albumentations.augmentations.geometric import functional as fgeometric

OUT = pathlib.Path(__file__).resolve().parent / "albumentations_warp_targets.npz"
FILL_MASK = 255  # augpy's default ignore_index outside the source


class FixedPerspective(A.Perspective):
    """A.Perspective with given corner points (fractions of the width / height, albumentations'
    generate_perspective_points after its jitter) instead of random ones."""

    def __init__(self, points, **kw):
        super().__init__(**kw)
        self.fixed_points = np.asarray(points, np.float64)

    def get_params_dependent_on_data(self, params, data):
        h, w = params["shape"][:2]
        points = self.fixed_points * np.array([w, h])
        points = fgeometric.order_points(points)
        matrix, max_width, max_height = fgeometric.compute_perspective_params(points, (h, w))
        return {"matrix": matrix, "max_height": max_height, "max_width": max_width, "matrix_bbox": matrix}


def block_image(h, w):
    """One channel (the warp is per channel) of 6 x 5 blocks: flat areas keep the file small, the
    edges between them show the interpolation."""
    y, x = np.mgrid[0:h, 0:w]
    return ((x // 6 + 3 * (y // 5)) * 37 % 251).astype(np.uint8)


def make_mask(rng, h, w):
    m = np.zeros((h, w), np.uint8)
    for label in (1, 2, 3, 4):
        y0, x0 = rng.integers(0, h - 8), rng.integers(0, w - 8)
        m[y0:y0 + rng.integers(5, h // 2), x0:x0 + rng.integers(5, w // 2)] = label
    m[rng.random((h, w)) < 0.03] = 7  # isolated pixels: a nearest rule off by one shows
    return m


def make_boxes(rng, h, w):
    x0 = rng.uniform(0, w - 8, 7)
    y0 = rng.uniform(0, h - 8, 7)
    x1 = np.minimum(x0 + rng.uniform(4, w / 2, 7), w)
    y1 = np.minimum(y0 + rng.uniform(4, h / 2, 7), h)
    b = np.round(np.stack([x0, y0, x1, y1], 1), 2)
    corner = np.array([[0.0, 0.0, 6.0, 5.0], [w - 5.0, h - 4.0, w, h], [0.0, 0.0, w, h]])  # leave / fill
    return np.vstack([b, corner])


def make_keypoints(rng, h, w):
    kp = np.stack([rng.uniform(0, w - 1, 12), rng.uniform(0, h - 1, 12), rng.uniform(0, 360, 12),
                   rng.uniform(0.5, 3, 12)], 1).round(3)
    return np.vstack([kp, [[0.0, 0.0, 10.0, 1.0], [w - 1.0, h - 1.0, 200.0, 2.0]]])


def label_boxes(mask):
    """The pixel-edge box of each label 1..4 of the mask (x_min, y_min, x_max + 1, y_max + 1)."""
    out = []
    for label in (1, 2, 3, 4):
        ys, xs = np.nonzero(mask == label)
        out.append([xs.min(), ys.min(), xs.max() + 1.0, ys.max() + 1.0])
    return np.array(out, np.float64)


def run(name, transform, hw, forward, bbox_forward, rng, record, min_visibility=0.0, extra=None, out_hw=None,
        boxes_of_labels=False):
    h, w = hw
    oh, ow = out_hw or hw
    image, mask = block_image(h, w), make_mask(rng, h, w)
    boxes, kps = make_boxes(rng, h, w), make_keypoints(rng, h, w)
    if boxes_of_labels:  # boxes whose pixels the warped mask shows (exactly, for a 90 degree turn)
        boxes = label_boxes(mask)
    rows = np.arange(len(boxes))
    p = f"{name}/"
    for fmt in ("pascal_voc", "coco"):
        inp = boxes.copy()
        if fmt == "coco":
            inp[:, 2:] -= inp[:, :2]
        for remove in (True, False):
            comp = A.Compose([transform], bbox_params=A.BboxParams(format=fmt, label_fields=["rows"],
                                                                   min_visibility=min_visibility),
                             keypoint_params=A.KeypointParams(format="xyas", label_fields=["kp_rows"],
                                                              remove_invisible=remove, angle_in_degrees=True))
            res = comp(image=image, mask=mask, bboxes=inp, rows=rows, keypoints=kps, kp_rows=np.arange(len(kps)))
            if fmt == "pascal_voc":
                record[p + f"kp_out_remove{int(remove)}"] = np.asarray(res["keypoints"], np.float64).reshape(-1, 4)
                record[p + f"kp_rows_remove{int(remove)}"] = np.asarray(res["kp_rows"], np.int64)
        record[p + f"boxes_in_{fmt}"] = inp
        record[p + f"boxes_out_{fmt}"] = np.asarray(res["bboxes"], np.float64).reshape(-1, 4)
        record[p + f"rows_{fmt}"] = np.asarray(res["rows"], np.int64)
    warp = cv2.warpPerspective if forward[2].tolist() != [0, 0, 1] else \
        (lambda im, m, size, **k: cv2.warpAffine(im, m[:2], size, **k))
    ref = warp(image, forward, (ow, oh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    assert np.array_equal(ref, res["image"]), f"{name}: the rebuilt forward matrix does not give A's image"
    ref = warp(mask, forward, (ow, oh), flags=cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT,
               borderValue=FILL_MASK)
    assert np.array_equal(ref, res["mask"]), f"{name}: the rebuilt forward matrix does not give A's mask"
    record[p + "image_in"], record[p + "image_out"] = image, res["image"]
    record[p + "mask_in"], record[p + "mask_out"] = mask, res["mask"]
    record[p + "kp_in"] = kps
    record[p + "size"] = np.array(hw)
    record[p + "out_size"] = np.array((oh, ow))
    record[p + "min_visibility"] = np.float64(min_visibility)
    record[p + "forward"] = forward
    record[p + "bbox_forward"] = bbox_forward
    for k, v in (extra or {}).items():
        record[p + k] = np.asarray(v)


def affine_forward(hw, rotate, shear=(0.0, 0.0), scale=1.0, translate=(0, 0), shift=fgeometric.center):
    """A.Affine's matrix (its _get_shear_params negates the drawn shear angles)."""
    return fgeometric.create_affine_transformation_matrix(
        translate={"x": translate[0], "y": translate[1]}, shear={"x": -shear[0], "y": -shear[1]},
        scale={"x": scale, "y": scale}, rotate=rotate, shift=shift(hw))


def main():
    rng = np.random.default_rng(20261129)
    record, names = {}, []
    for i, (hw, angle, method, vis) in enumerate([((48, 64), 30.0, "largest_box", 0.0),
                                                  ((80, 100), -110.0, "largest_box", 0.3),
                                                  ((48, 64), 72.5, "ellipse", 0.0)]):
        t = A.Rotate(limit=(angle, angle), p=1.0, border_mode=cv2.BORDER_CONSTANT, crop_border=False,
                     rotate_method=method, interpolation=cv2.INTER_LINEAR, fill=0, fill_mask=FILL_MASK)
        name = f"rotate{i}"
        run(name, t, hw, affine_forward(hw, angle), affine_forward(hw, angle, shift=fgeometric.center_bbox), rng,
            record, vis, {"angle": angle, "rotate_method": method})
        names.append(name)
    for i, (hw, rot, shear, scale, tr) in enumerate([((80, 100), 20.0, (15.0, -10.0), 0.9, (6, -4)),
                                                     ((48, 64), -35.0, (0.0, 25.0), 1.2, (-3, 5))]):
        t = A.Affine(rotate=(rot, rot), shear={"x": (shear[0], shear[0]), "y": (shear[1], shear[1])},
                     scale=(scale, scale), translate_px={"x": (tr[0], tr[0]), "y": (tr[1], tr[1])},
                     fit_output=False, keep_ratio=True, rotate_method="largest_box", border_mode=cv2.BORDER_CONSTANT,
                     fill=0, fill_mask=FILL_MASK, interpolation=cv2.INTER_LINEAR, p=1.0)
        name = f"affine_shear{i}"
        run(name, t, hw, affine_forward(hw, rot, shear, scale, tr),
            affine_forward(hw, rot, shear, scale, tr, shift=fgeometric.center_bbox), rng, record, 0.0,
            {"rotate": rot, "shear": shear, "scale": scale, "translate": tr})
        names.append(name)
    # fit_output=True: albumentations shifts the image's matrix and the boxes' matrix each by its own
    # floor of the moved corners, so at 90 degrees its boxes sit 1 px from its image
    hw, rot = (40, 60), 90.0
    t = A.Affine(rotate=(rot, rot), fit_output=True, border_mode=cv2.BORDER_CONSTANT, fill=0, fill_mask=FILL_MASK,
                 interpolation=cv2.INTER_LINEAR, p=1.0)
    fwd, out_hw = fgeometric.compute_affine_warp_output_shape(affine_forward(hw, rot), hw)
    fwd_box, _ = fgeometric.compute_affine_warp_output_shape(affine_forward(hw, rot, shift=fgeometric.center_bbox), hw)
    run("affine_fit", t, hw, fwd, fwd_box, rng, record, 0.0, {"rotate": rot, "scale": 1.0}, out_hw=out_hw,
        boxes_of_labels=True)
    names.append("affine_fit")
    for i, (hw, pts) in enumerate([((48, 64), [[0.05, 0.10], [0.92, 0.02], [0.80, 0.95], [0.12, 0.85]]),
                                   ((80, 100), [[0.20, 0.03], [0.97, 0.15], [0.90, 0.75], [0.02, 0.98]])]):
        h, w = hw
        t = FixedPerspective(pts, keep_size=True, fit_output=False, border_mode=cv2.BORDER_CONSTANT, fill=0,
                             fill_mask=FILL_MASK, interpolation=cv2.INTER_LINEAR, p=1.0)
        corners = fgeometric.order_points(np.asarray(pts, np.float64) * np.array([w, h]))
        matrix, max_w, max_h = fgeometric.compute_perspective_params(corners, hw)
        forward = np.diag([w / max_w, h / max_h, 1.0]) @ matrix  # keep_size=True
        name = f"perspective{i}"
        run(name, t, hw, forward, forward, rng, record, 0.0, {"points": corners, "max_size": [max_h, max_w]})
        names.append(name)
    record["cases"] = np.array(names)
    record["versions"] = np.array([A.__version__, cv2.__version__, np.__version__])
    np.savez_compressed(OUT, **record)
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes, {len(names)} cases, albumentations {A.__version__})")


if __name__ == "__main__":
    main()
