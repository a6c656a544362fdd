"""Boxes, keypoints and masks through rotate / affine with shear / perspective against
albumentations 2.0.8 (A.Rotate, A.Affine, A.Affine(fit_output=True), A.Perspective with fixed
corners; recorded by data/record_albumentations_warp_targets.py into
data/albumentations_warp_targets.npz).

augpy takes the inverse of albumentations' forward matrix F (augpy.rotate builds the same one
from the angle). What matches: keypoint positions (1e-4 px) and the visible rows; boxes
(1e-4 px, the kept rows) of A.Rotate / A.Affine, whose boxes go through a second matrix about
(w/2, h/2) on pixel edges, T(0.5) F T(-0.5), which is augpy's box rule for every matrix; the
nearest-neighbour masks bit for bit; the bilinear image within 1. What differs (docs/targets.md
"Against albumentations"): A.Perspective moves box edges with F itself (augpy's boxes equal
its boxes given T(-0.5) F T(0.5), and differ by about half a pixel with F); A.Affine with
fit_output=True floors its image and box matrices apart (its boxes 1 px off its own mask at
90 degrees; augpy's boxes are the mask's pixels); keypoint angles and scales (augpy: the
map's Jacobian at the point; albumentations: a constant from F, the angle of A.Rotate /
A.Affine with the opposite sign of the image's turn); rotate_method='ellipse' (augpy has the
corners' box, which holds the ellipse's).
"""
import pathlib

import numpy as np
import pytest

import augpy

DATA = np.load(pathlib.Path(__file__).resolve().parent / "data" / "albumentations_warp_targets.npz")
CASES = [str(c) for c in DATA["cases"]]
FORMATS = {"pascal_voc": "xyxy", "coco": "xywh"}


def g(case, field):
    return DATA[f"{case}/{field}"]


def shift(t):
    return np.array([[1.0, 0.0, t], [0.0, 1.0, t], [0.0, 0.0, 1.0]])


def is_perspective(case):
    return g(case, "forward")[2].tolist() != [0.0, 0.0, 1.0]


def inverse(case, f=None):
    """augpy's matrix: the inverse map of F ((2, 3) for an affine F, (3, 3) for a homography)."""
    m = np.linalg.inv(g(case, "forward") if f is None else f)
    return m if is_perspective(case) else m[:2]


def method(case):
    """A.Rotate's rotate_method ('largest_box', 'ellipse'); None for the other transforms."""
    key = f"{case}/rotate_method"
    return str(DATA[key]) if key in DATA.files else None


def size(case):
    return tuple(int(v) for v in g(case, "size"))


def out_size(case):
    return tuple(int(v) for v in g(case, "out_size"))


def box_offset(case):
    """(dx, dy): albumentations' box matrix minus T(0.5) F T(-0.5), a whole-pixel translation
    (0, 0) but with A.Affine(fit_output=True), which floors the moved corners of each matrix on
    its own."""
    f, fb = g(case, "forward"), g(case, "bbox_forward")
    d = fb - shift(0.5) @ f @ shift(-0.5)
    np.testing.assert_allclose(d[:, :2], 0, atol=1e-12)
    np.testing.assert_allclose(d[:2, 2], np.round(d[:2, 2]), atol=1e-9)
    return np.round(d[:2, 2])


def project(f, p):
    q = p @ f[:2, :2].T + f[:2, 2]
    return q / (p @ f[2, :2] + f[2, 2])[:, None]


def jacobian_angle_scale(f, kp):
    """The direction's angle (degrees) and sqrt|det| of the map's Jacobian at each keypoint,
    by central differences in float64."""
    e = 1e-4
    p = kp[:, :2]
    jx = (project(f, p + [e, 0]) - project(f, p - [e, 0])) / (2 * e)
    jy = (project(f, p + [0, e]) - project(f, p - [0, e])) / (2 * e)
    a = np.radians(kp[:, 2])
    d = jx * np.cos(a)[:, None] + jy * np.sin(a)[:, None]
    det = jx[:, 0] * jy[:, 1] - jx[:, 1] * jy[:, 0]
    return np.degrees(np.arctan2(d[:, 1], d[:, 0])) % 360, np.sqrt(np.abs(det))


def angle_diff(a, b):
    return np.abs((np.asarray(a) - np.asarray(b) + 180) % 360 - 180)


@pytest.mark.parametrize("case", CASES)
def test_box_matrix_is_augpys_rule(case):
    """A.Rotate / A.Affine move boxes with T(0.5) F T(-0.5) (about (w/2, h/2) on pixel edges),
    exactly augpy's p' = F (p - 0.5) + 0.5, but with fit_output=True one pixel off;
    A.Perspective with F itself."""
    if is_perspective(case):
        np.testing.assert_array_equal(g(case, "bbox_forward"), g(case, "forward"))
    elif case == "affine_fit":
        assert np.abs(box_offset(case)).max() == 1.0
    else:
        assert np.abs(box_offset(case)).max() == 0.0


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_boxes(case, fmt):
    hw, ohw = size(case), out_size(case)
    ref, rows = g(case, f"boxes_out_{fmt}"), g(case, f"rows_{fmt}")
    boxes, vis = g(case, f"boxes_in_{fmt}"), float(g(case, "min_visibility"))
    out, keep = augpy.transform_boxes(boxes, inverse(case), hw, ohw, format=FORMATS[fmt], min_visibility=vis)
    if is_perspective(case):
        # albumentations moves the edges with F: augpy given T(-0.5) F T(0.5) does the same
        same, same_keep = augpy.transform_boxes(boxes, inverse(case, shift(-0.5) @ g(case, "forward") @ shift(0.5)),
                                                hw, hw, format=FORMATS[fmt], min_visibility=vis)
        np.testing.assert_array_equal(same_keep, rows)
        np.testing.assert_allclose(same, ref, rtol=0, atol=1e-4)
        # with F (augpy's convention) the rows are the same here; a coordinate is off by at most
        # the largest shift of the box's corners between the two rules (twice that for a coco size)
        np.testing.assert_array_equal(keep, rows)
        f = g(case, "forward")
        xyxy = g(case, "boxes_in_pascal_voc")[keep]
        c = np.stack([xyxy[:, [0, 1]], xyxy[:, [2, 1]], xyxy[:, [0, 3]], xyxy[:, [2, 3]]], 1).reshape(-1, 2)
        moved = np.abs(project(f, c) - project(shift(0.5) @ f @ shift(-0.5), c)).reshape(-1, 8).max(1)
        bound = moved[:, None] * (np.array([1, 1, 1, 1]) if fmt == "pascal_voc" else np.array([1, 1, 2, 2]))
        diff = np.abs(out - ref)
        assert (diff <= bound + 1e-4).all() and diff.max() > 0.1
    elif case == "affine_fit":
        # the boxes of the mask's labels turned by 90 degrees: augpy's are the pixels albumentations'
        # own mask shows, albumentations' are one pixel off
        np.testing.assert_array_equal(keep, rows)
        mask, truth = g(case, "mask_out"), []
        for label in (1, 2, 3, 4):
            ys, xs = np.nonzero(mask == label)
            truth.append([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1])
        truth = np.array(truth, np.float64)
        if fmt == "coco":
            truth[:, 2:] -= truth[:, :2]
        np.testing.assert_allclose(out, truth, rtol=0, atol=1e-4)
        dx, dy = box_offset(case)
        np.testing.assert_allclose(ref, out + (np.array([dx, dy, dx, dy]) if fmt == "pascal_voc" else
                                               np.array([dx, dy, 0, 0])), rtol=0, atol=1e-4)
    elif method(case) == "ellipse":
        # the ellipse inscribed in a box: its image lies inside the image of the box's corners
        np.testing.assert_array_equal(keep, rows)
        x0, y0, x1, y1 = (out if fmt == "pascal_voc" else np.c_[out[:, :2], out[:, :2] + out[:, 2:]]).T
        a0, b0, a1, b1 = (ref if fmt == "pascal_voc" else np.c_[ref[:, :2], ref[:, :2] + ref[:, 2:]]).T
        tol = 1e-4
        assert ((a0 >= x0 - tol) & (b0 >= y0 - tol) & (a1 <= x1 + tol) & (b1 <= y1 + tol)).all()
        assert ((x1 - x0) - (a1 - a0)).max() > 1.0
    else:
        np.testing.assert_array_equal(keep, rows)
        np.testing.assert_allclose(out, ref, rtol=0, atol=1e-4)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("remove", [True, False])
def test_keypoints(case, remove):
    hw, kp, f = size(case), g(case, "kp_in"), g(case, "forward")
    out, visible = augpy.transform_keypoints(kp, inverse(case), out_size(case), remove_invisible=remove)
    ref = g(case, f"kp_out_remove{int(remove)}")
    np.testing.assert_array_equal(visible, g(case, "kp_rows_remove1"))
    if not remove:
        np.testing.assert_array_equal(g(case, "kp_rows_remove0"), np.arange(len(kp)))
    np.testing.assert_allclose(out[:, :2], ref[:, :2], rtol=0, atol=1e-4)
    kin = kp[visible] if remove else kp
    # augpy: the angle of the transformed direction and sqrt|det J| at the point
    ang, sc = jacobian_angle_scale(f, kin)
    assert angle_diff(out[:, 2], ang).max() < 1e-3
    np.testing.assert_allclose(out[:, 3], kin[:, 3] * sc, rtol=1e-6)
    # albumentations: a constant from the matrix
    if is_perspective(case):
        h, w = hw
        mh, mw = (int(v) for v in g(case, "max_size"))
        m = np.diag([mw / w, mh / h, 1.0]) @ f  # its matrix before keep_size's scaling
        turn = np.degrees(np.arctan2(m[1, 0], m[0, 0]))
        factor = max(np.sign(m[0, 0]) * np.hypot(m[0, 0], m[0, 1]),
                     np.sign(m[1, 1]) * np.hypot(m[1, 0], m[1, 1])) * max(w / mw, h / mh)
    else:
        turn = np.degrees(np.arctan2(-f[1, 0], f[0, 0]))
        factor = float(g(case, "scale")) if f"{case}/scale" in DATA.files else 1.0
    assert angle_diff(ref[:, 2], kin[:, 2] + turn).max() < 1e-3
    np.testing.assert_allclose(ref[:, 3], kin[:, 3] * factor, rtol=1e-5)
    if case.startswith("rotate"):  # the same turn, the opposite sign
        assert angle_diff(out[:, 2], 2 * kin[:, 2] - ref[:, 2]).max() < 1e-3


def warp_with_targets(case):
    """augpy's op on the recorded image with the mask, boxes and keypoints as targets=."""
    hw, image = out_size(case), g(case, "image_in")
    targets = {"mask": g(case, "mask_in"), "ignore_index": 255, "boxes": g(case, "boxes_in_pascal_voc"),
               "keypoints": g(case, "kp_in"), "box_params": {"min_visibility": float(g(case, "min_visibility"))}}
    if case.startswith("rotate"):  # about the same centre, ((w - 1) / 2, (h - 1) / 2)
        return augpy.rotate(image, float(g(case, "angle")), interpolation="bilinear", layout="HW", targets=targets)
    dst = augpy.Tensor(hw, dtype=augpy.uint8)
    warp = augpy.warp_perspective if is_perspective(case) else augpy.warp_affine
    return warp(augpy.array_to_tensor(image), dst, inverse(case), 0.0, targets=targets)


@pytest.mark.parametrize("case", CASES)
def test_targets_through_the_ops(case):
    """augpy.rotate (the angle alone), warp_affine and warp_perspective with targets=: the mask
    bit for bit, the image within 1, the keypoints and (affine) boxes as albumentations'."""
    image, moved = warp_with_targets(case)
    np.testing.assert_array_equal(moved["mask"].numpy(), g(case, "mask_out"))
    diff = np.abs(image.numpy().astype(np.int16) - g(case, "image_out"))
    assert diff.max() <= 1 and (diff > 0).mean() < 0.01  # OpenCV rounds positions to 1/32 px
    np.testing.assert_allclose(moved["keypoints"][:, :2], g(case, "kp_out_remove1")[:, :2], rtol=0, atol=1e-4)
    rows = g(case, "rows_pascal_voc")
    assert len(moved["boxes"]) == len(rows)
    if not is_perspective(case) and method(case) != "ellipse" and case != "affine_fit":
        np.testing.assert_allclose(moved["boxes"], g(case, "boxes_out_pascal_voc"), rtol=0, atol=1e-4)
