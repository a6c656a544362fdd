"""augpy.transform_boxes / transform_keypoints (+ _batch): boxes and keypoints follow a warp.

Against albumentations 2.0.8 (recorded by data/record_albumentations_targets.py: A.Affine
with rotation, scale and translation, A.HorizontalFlip, A.VerticalFlip, A.Crop; min_area
and min_visibility filters; pascal_voc, coco, yolo and albumentations box formats;
keypoints with angle and scale, removed or kept). Albumentations' A.Affine changes a
keypoint's angle by +atan2(-m10, m00), the opposite sign of what the image shows and of
its own flips and RandomRotate90; augpy follows the image (the angle of the transformed
direction), checked here against a NumPy evaluation of two points along the direction.
Invariants: the identity keeps everything; a flip twice is the identity; a box that leaves
the image is dropped. Devices: tensors on the default device (the emulated CUDA device
under MODE=emu) come back there. Bad input names the function and the value.
"""
import pathlib

import numpy as np
import pytest

import augpy

DATA = np.load(pathlib.Path(__file__).resolve().parent / "data" / "albumentations_targets.npz")
CASES = [str(c) for c in DATA["cases"]]
FORMATS = {"pascal_voc": ("xyxy", False), "coco": ("xywh", False), "yolo": ("cxcywh", True),
           "albumentations": ("xyxy", True)}


def case(name, field):
    return DATA[f"{name}/{field}"]


def sizes(name):
    return tuple(int(v) for v in case(name, "source_size")), tuple(int(v) for v in case(name, "target_size"))


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_boxes_match_albumentations(name, fmt):
    ours, normalized = FORMATS[fmt]
    src, dst = sizes(name)
    boxes = case(name, f"boxes_in_{fmt}")
    labels = [f"obj{i}" for i in range(len(boxes))]
    out, keep, kept_labels = augpy.transform_boxes(
        boxes, case(name, "inverse"), src, dst, format=ours, normalized=normalized,
        min_area=float(case(name, "min_area")), min_visibility=float(case(name, "min_visibility")), labels=labels)
    assert keep.dtype == np.int64
    np.testing.assert_array_equal(keep, case(name, f"rows_{fmt}"))
    assert kept_labels == [labels[i] for i in keep]
    scale = 1.0 if normalized else max(src + dst)
    np.testing.assert_allclose(out, case(name, f"boxes_out_{fmt}"), rtol=0, atol=2e-5 * scale)


def direction_angles(kp, forward):
    """The angle of the transformed direction, from two points (NumPy float64)."""
    a = np.radians(kp[:, 2])
    p0 = kp[:, :2]
    p1 = p0 + 1e-3 * np.stack([np.cos(a), np.sin(a)], 1)
    q0 = p0 @ forward[:, :2].T + forward[:, 2]
    q1 = p1 @ forward[:, :2].T + forward[:, 2]
    d = q1 - q0
    return np.degrees(np.arctan2(d[:, 1], d[:, 0])) % 360


def angle_diff(a, b):
    return np.abs((np.asarray(a) - np.asarray(b) + 180) % 360 - 180)


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("remove", [True, False])
def test_keypoints_match_albumentations(name, remove):
    src, dst = sizes(name)
    kp = case(name, "kp_in")
    inv = case(name, "inverse")
    out, visible = augpy.transform_keypoints(kp, inv, dst, remove_invisible=remove)
    ref = case(name, f"kp_out_remove{int(remove)}")
    rows = case(name, f"kp_rows_remove{int(remove)}")
    if remove:
        np.testing.assert_array_equal(visible, rows)
    else:
        assert len(out) == len(kp)
    np.testing.assert_allclose(out[:, :2], ref[:, :2], rtol=0, atol=2e-4)
    np.testing.assert_allclose(out[:, 3], ref[:, 3], rtol=1e-5)
    forward = np.linalg.inv(np.vstack([inv.astype(np.float32).astype(np.float64), [0, 0, 1]]))[:2]
    kin = kp[visible] if remove else kp
    assert angle_diff(out[:, 2], direction_angles(kin, forward)).max() < 1e-3
    assert ((out[:, 2] >= 0) & (out[:, 2] < 360)).all()
    if name.startswith("affine"):
        # albumentations' A.Affine: angle + r where the image turns by -r (see the module doc)
        assert angle_diff(out[:, 2], 2 * kin[:, 2] - ref[:, 2]).max() < 1e-3
    else:
        assert angle_diff(out[:, 2], ref[:, 2]).max() < 1e-3


def test_identity_keeps_everything():
    rng = np.random.default_rng(1)
    x0 = rng.uniform(0, 50, 20)
    y0 = rng.uniform(0, 30, 20)
    boxes = np.stack([x0, y0, x0 + rng.uniform(1, 30, 20), y0 + rng.uniform(1, 30, 20)], 1)
    out, keep = augpy.transform_boxes(boxes, np.eye(2, 3), (60, 80), (60, 80))
    np.testing.assert_array_equal(keep, np.arange(20))
    np.testing.assert_array_equal(out, boxes)  # float64 in, float64 out, exact
    kp = np.stack([rng.uniform(0, 79, 20), rng.uniform(0, 59, 20), rng.uniform(0, 359, 20), rng.uniform(1, 2, 20)], 1)
    kout, vis = augpy.transform_keypoints(kp, np.eye(2, 3), (60, 80))
    np.testing.assert_array_equal(vis, np.arange(20))
    np.testing.assert_allclose(kout, kp, rtol=1e-6, atol=1e-4)


@pytest.mark.parametrize("fmt", ["xyxy", "xywh", "cxcywh"])
def test_flip_twice_is_identity(fmt):
    H, W = 48, 64
    flips = [np.array([[-1, 0, W - 1], [0, 1, 0]], float), np.array([[1, 0, 0], [0, -1, H - 1]], float)]
    boxes = np.array([[1, 2, 30, 40], [10.5, 0, 64, 48], [0, 0, 1, 1]], float)
    if fmt == "xywh":
        boxes[:, 2:] -= boxes[:, :2]
    elif fmt == "cxcywh":
        boxes = np.c_[(boxes[:, :2] + boxes[:, 2:]) / 2, boxes[:, 2:] - boxes[:, :2]]
    for m in flips:
        once, _ = augpy.transform_boxes(boxes, m, (H, W), (H, W), format=fmt)
        twice, keep = augpy.transform_boxes(once, m, (H, W), (H, W), format=fmt)
        np.testing.assert_array_equal(keep, [0, 1, 2])
        np.testing.assert_allclose(twice, boxes, atol=1e-5)
    kp = np.array([[0, 0, 10, 1], [63, 47, 200, 2], [31.5, 20, 90, 1]])
    for m in flips:
        once, _ = augpy.transform_keypoints(kp, m, (H, W))
        twice, _ = augpy.transform_keypoints(once, m, (H, W))
        np.testing.assert_allclose(twice[:, :2], kp[:, :2], atol=1e-5)
        assert angle_diff(twice[:, 2], kp[:, 2]).max() < 1e-4


def test_box_that_leaves_is_dropped_labels_aligned():
    boxes = np.array([[0, 0, 10, 10], [30, 0, 60, 10], [20, 20, 30, 30]], float)
    shift = np.array([[1, 0, -40], [0, 1, 0]], float)  # content moves right by 40
    out, keep, labels = augpy.transform_boxes(boxes, shift, (64, 100), (64, 64), labels=np.array([7, 8, 9]))
    np.testing.assert_array_equal(keep, [0, 2])
    np.testing.assert_array_equal(labels, [7, 9])
    np.testing.assert_allclose(out, [[40, 0, 50, 10], [60, 20, 64, 30]])
    out, keep = augpy.transform_boxes(boxes, shift, (64, 100), (64, 64), min_visibility=0.5)
    np.testing.assert_array_equal(keep, [0])
    out, keep = augpy.transform_boxes(boxes, shift, (64, 100), (64, 64), min_area=40.5)
    np.testing.assert_array_equal(keep, [0])
    kp = np.array([[10, 5], [30, 5], [23.9, 5]])
    out, vis, lab = augpy.transform_keypoints(kp, shift, (64, 64), remove_invisible=True, labels=["a", "b", "c"])
    assert lab == ["a", "c"] and out.shape == (2, 2)
    out, vis, lab = augpy.transform_keypoints(kp, shift, (64, 64), remove_invisible=False, labels=["a", "b", "c"])
    assert lab == ["a", "b", "c"] and out.shape == (3, 2)
    np.testing.assert_array_equal(vis, [0, 2])


def test_with_make_transform_and_warp():
    """A box drawn into an image moves with it: the warped image's nonzero region
    lies inside the transformed box (bilinear spreads at most a pixel)."""
    img = np.zeros((60, 80, 3), np.uint8)
    img[20:30, 10:40] = 255
    m, _ = augpy.make_transform((60, 80), (64, 64), angle=25, scale=0.8)
    dst = augpy.Tensor((3, 64, 64), dtype=augpy.uint8)
    augpy.warp_affine(augpy.array_to_tensor(img), dst, m, supersampling=1)
    ys, xs = np.nonzero(dst.numpy()[0] > 0)
    (box,), keep = augpy.transform_boxes(np.array([[10, 20, 40, 30]]), m, (60, 80), (64, 64))
    assert xs.min() >= box[0] - 1 and xs.max() + 1 <= box[2] + 1
    assert ys.min() >= box[1] - 1 and ys.max() + 1 <= box[3] + 1
    assert xs.min() <= box[0] + 2 and xs.max() + 1 >= box[2] - 2


def test_tensors_stay_on_their_device():
    boxes = augpy.array_to_tensor(np.array([[0, 0, 10, 10], [30, 0, 60, 10]], np.float64))
    shift = np.array([[1, 0, -40], [0, 1, 0]], float)
    out, keep, labels = augpy.transform_boxes(boxes, shift, (64, 100), (64, 64),
                                              labels=augpy.array_to_tensor(np.array([3, 4], np.int32)))
    assert isinstance(out, augpy.Tensor) and out.device == boxes.device and out.dtype == augpy.float64
    assert keep.device == boxes.device and keep.dtype == augpy.int64
    np.testing.assert_array_equal(out.numpy(), [[40, 0, 50, 10]])
    np.testing.assert_array_equal(labels.numpy(), [3])
    kp = augpy.array_to_tensor(np.array([[10, 5, 0], [30, 5, 0]], np.float32))
    out, vis = augpy.transform_keypoints(kp, shift, (64, 64))
    assert out.device == kp.device and out.dtype == augpy.float32
    np.testing.assert_array_equal(out.numpy(), [[50, 5, 0]])
    np.testing.assert_array_equal(vis.numpy(), [0])


def test_batch_list_and_padded_agree():
    name = "affine1"
    src, dst = sizes(name)
    b = case(name, "boxes_in_pascal_voc")
    parts = [b[:5], b[5:5], b[5:]]
    mats = np.stack([case(name, "inverse"), np.eye(2, 3), case("hflip", "inverse")])
    outs, keeps, labs = augpy.transform_boxes_batch(parts, mats, src, dst, labels=[list(range(len(p))) for p in parts])
    for p, m, o, k, lab in zip(parts, mats, outs, keeps, labs):
        ref, rk = augpy.transform_boxes(p, m, src, dst)
        np.testing.assert_array_equal(o, ref)
        np.testing.assert_array_equal(k, rk)
        assert lab == list(rk)
    M = max(len(p) for p in parts)
    padded = np.zeros((3, M, 4))
    for i, p in enumerate(parts):
        padded[i, :len(p)] = p
    counts = [len(p) for p in parts]
    out, out_counts, keep = augpy.transform_boxes_batch(padded, mats, [src] * 3, dst, counts=counts)
    assert out.shape == (3, M, 4) and keep.shape == (3, M)
    for i in range(3):
        assert out_counts[i] == len(outs[i])
        np.testing.assert_array_equal(out[i, :out_counts[i]], outs[i])
        assert (out[i, out_counts[i]:] == 0).all()
        np.testing.assert_array_equal(keep[i, :out_counts[i]], keeps[i])
        assert (keep[i, out_counts[i]:] == -1).all()
    t = augpy.array_to_tensor(padded)
    tout, tcounts, tkeep = augpy.transform_boxes_batch(t, mats, src, dst, counts=counts)
    assert tout.device == t.device and tcounts == out_counts
    np.testing.assert_array_equal(tout.numpy(), out)
    kouts, kvis = augpy.transform_keypoints_batch([case(name, "kp_in"), case("hflip", "kp_in")], mats[[0, 2]], dst)
    np.testing.assert_array_equal(kvis[0], case(name, "kp_rows_remove1"))


@pytest.mark.parametrize("call, exc, message", [
    (lambda: augpy.transform_boxes([[10, 0, 5, 4]], np.eye(2, 3), (8, 8), (8, 8)), ValueError,
     "augpy.transform_boxes: box 0 has x_max < x_min (5 < 10)"),
    (lambda: augpy.transform_boxes([[0, 0, 1, 1], [0, 5, 1, 4]], np.eye(2, 3), (8, 8), (8, 8)), ValueError,
     "augpy.transform_boxes: box 1 has y_max < y_min (4 < 5)"),
    (lambda: augpy.transform_boxes([[0, 0, 1, 1], [0, np.nan, 1, 1]], np.eye(2, 3), (8, 8), (8, 8)), ValueError,
     "augpy.transform_boxes: box 1 has a non-finite coordinate nan (column 1)"),
    (lambda: augpy.transform_boxes([[0, 0, -1, 1]], np.eye(2, 3), (8, 8), (8, 8), format="xywh"), ValueError,
     "augpy.transform_boxes: box 0 has a negative width -1"),
    (lambda: augpy.transform_boxes([[0, 0, 1]], np.eye(2, 3), (8, 8), (8, 8)), ValueError,
     "augpy.transform_boxes: boxes must have shape (n, 4), got (1, 3)"),
    (lambda: augpy.transform_boxes([[0, 0, 1, 1]], np.eye(2, 3), (8, 8), (8, 8), format="yolo"), ValueError,
     "augpy.transform_boxes: unknown box format 'yolo' (expected 'xyxy', 'xywh' or 'cxcywh')"),
    (lambda: augpy.transform_boxes([[0, 0, 1, 1]], np.eye(2, 3), (8, 8), (8, 8), min_visibility=1.5), ValueError,
     "augpy.transform_boxes: min_visibility must be in [0, 1], got 1.5"),
    (lambda: augpy.transform_boxes([[0, 0, 1, 1]], np.eye(2, 3), (8, 8), (8, 8), min_area=-2), ValueError,
     "augpy.transform_boxes: min_area must be finite and >= 0, got -2"),
    (lambda: augpy.transform_boxes([[0, 0, 1, 1]], np.eye(4, 3), (8, 8), (8, 8)), ValueError,
     "augpy.transform_boxes: matrix must have shape (2, 3) (the warp matrix) or (3, 3) (a homography), "
     "got (4, 3)"),
    (lambda: augpy.transform_boxes([[0, 0, 1, 1]], np.zeros((2, 3)), (8, 8), (8, 8)), ValueError,
     "augpy.transform_boxes: matrix [[0, 0], [0, 0]] is singular"),
    (lambda: augpy.transform_boxes([[0, 0, 1, 1]], np.eye(2, 3), (8, 8), (0, 8)), ValueError,
     "augpy.transform_boxes: target size must be positive, got (0, 8)"),
    (lambda: augpy.transform_boxes([[0, 0, 1, 1]], np.eye(2, 3), (8, 8), (8, 8), labels=[1, 2]), ValueError,
     "augpy.transform_boxes: labels has 2 entries for 1 targets"),
    (lambda: augpy.transform_keypoints([[0, 0, 1, 1, 1]], np.eye(2, 3), (8, 8)), ValueError,
     "augpy.transform_keypoints: keypoints must have shape (n, 2) or (n, 3) or (n, 4), got (1, 5)"),
    (lambda: augpy.transform_keypoints([[0, np.inf]], np.eye(2, 3), (8, 8)), ValueError,
     "augpy.transform_keypoints: keypoint 0 has a non-finite value inf (column 1)"),
    (lambda: augpy.transform_boxes_batch([np.zeros((0, 4))] * 2, np.stack([np.eye(2, 3)] * 3), (8, 8), (8, 8)),
     ValueError, "augpy.transform_boxes_batch: matrices must have shape (2, 2, 3) or (2, 3, 3) (one per image), "
     "got (3, 2, 3)"),
    (lambda: augpy.transform_boxes_batch([np.zeros((0, 4))] * 2, np.eye(2, 3), (8, 8), (8, 8), labels=[[]]),
     ValueError, "augpy.transform_boxes_batch: labels has 1 entries for 2 images"),
    (lambda: augpy.transform_boxes_batch([np.zeros((0, 4)), [[3, 0, 1, 1]]], np.eye(2, 3), (8, 8), (8, 8)),
     ValueError, "augpy.transform_boxes_batch: image 1: augpy.transform_boxes: box 0 has x_max < x_min (1 < 3)"),
    (lambda: augpy.transform_boxes_batch(np.zeros((2, 3, 4)), np.eye(2, 3), (8, 8), (8, 8), counts=[1, 4]),
     ValueError, "augpy.transform_boxes_batch: counts[1] = 4 is outside [0, 3]"),
    (lambda: augpy.transform_boxes_batch(np.zeros((2, 3, 4)), np.eye(2, 3), (8, 8), (8, 8), counts=[1]),
     ValueError, "augpy.transform_boxes_batch: counts must have 2 values (one per image), got shape (1,)"),
    (lambda: augpy.transform_boxes_batch(np.zeros((2, 3, 5)), np.eye(2, 3), (8, 8), (8, 8)),
     ValueError, "augpy.transform_boxes_batch: boxes must be a list of (n, 4) arrays or a padded (N, M, 4) array"),
])
def test_bad_input(call, exc, message):
    with pytest.raises(exc) as info:
        call()
    assert message in str(info.value), str(info.value)


# ---- properties: composition and containment (NumPy float64 as the reference) --------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def random_inverse(draw, h, w):
    """make_transform's matrix for random parameters (the inverse map)."""
    m, _ = augpy.make_transform((h, w), (h, w), angle=draw(st.floats(-180, 180)), scale=draw(st.floats(0.5, 2)),
                                hmirror=draw(st.booleans()), shift=(draw(st.floats(-1, 1)), draw(st.floats(-1, 1))))
    return m.astype(np.float64)


def compose(inv1, inv2):
    """The inverse map of "op 1 then op 2": source <- inv1 <- inv2 <- output."""
    a = np.vstack([inv1, [0, 0, 1]]) @ np.vstack([inv2, [0, 0, 1]])
    return a[:2]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_keypoints_compose(data):
    H, W = 50, 70
    inv1 = random_inverse(data.draw, H, W)
    inv2 = random_inverse(data.draw, H, W)
    n = data.draw(st.integers(1, 6))
    kp = np.array([[data.draw(st.floats(0, W - 1)), data.draw(st.floats(0, H - 1)), data.draw(st.floats(0, 359)),
                    data.draw(st.floats(0.5, 2))] for _ in range(n)])
    # float32 matrices: compose what the functions see
    inv1, inv2 = inv1.astype(np.float32).astype(np.float64), inv2.astype(np.float32).astype(np.float64)
    step, _ = augpy.transform_keypoints(kp, inv1, (H, W), remove_invisible=False)
    two, _ = augpy.transform_keypoints(step, inv2, (H, W), remove_invisible=False)
    direct, _ = augpy.transform_keypoints(kp, compose(inv1, inv2), (H, W), remove_invisible=False)
    np.testing.assert_allclose(two[:, [0, 1, 3]], direct[:, [0, 1, 3]], rtol=1e-5, atol=1e-3)
    assert angle_diff(two[:, 2], direct[:, 2]).max() < 1e-3


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_box_encloses_its_transformed_points(data):
    """Every point of a box (edge coordinates) lands inside the transformed, clipped box."""
    H, W = 50, 70
    inv = random_inverse(data.draw, H, W).astype(np.float32).astype(np.float64)
    x0, y0 = data.draw(st.floats(0, W - 2)), data.draw(st.floats(0, H - 2))
    box = np.array([[x0, y0, data.draw(st.floats(x0 + 1, W)), data.draw(st.floats(y0 + 1, H))]])
    out, keep = augpy.transform_boxes(box, inv, (H, W), (H, W))
    fwd = np.linalg.inv(np.vstack([inv, [0, 0, 1]]))[:2]
    u = np.linspace(0, 1, 7)
    pts = np.array([[box[0, 0] + a * (box[0, 2] - box[0, 0]), box[0, 1] + b * (box[0, 3] - box[0, 1])]
                    for a in u for b in u])
    q = (pts - 0.5) @ fwd[:, :2].T + fwd[:, 2] + 0.5
    inside = (q[:, 0] >= 0) & (q[:, 0] <= W) & (q[:, 1] >= 0) & (q[:, 1] <= H)
    corners = q[[0, 6, 42, 48]]
    lo, hi = np.clip(corners.min(0), 0, [W, H]), np.clip(corners.max(0), 0, [W, H])
    if len(keep) == 0:  # dropped: the clipped enclosing box has no area
        assert (hi - lo).prod() <= 1e-9
        return
    qi = q[inside]
    assert (qi[:, 0] >= out[0, 0] - 1e-6).all() and (qi[:, 0] <= out[0, 2] + 1e-6).all()
    assert (qi[:, 1] >= out[0, 1] - 1e-6).all() and (qi[:, 1] <= out[0, 3] + 1e-6).all()
    np.testing.assert_allclose(out[0, [0, 1]], lo, atol=1e-6)
    np.testing.assert_allclose(out[0, [2, 3]], hi, atol=1e-6)


# ---- targets= of the geometric ops (augpy/_geometry.py) -----------------------------------------------

@pytest.mark.parametrize("op", [lambda im, t: augpy.resize(im, (6, 8), targets=t),
                                lambda im, t: augpy.flip(im, targets=t),
                                lambda im, t: augpy.hflip(im, targets=t),
                                lambda im, t: augpy.vflip(im, targets=t),
                                lambda im, t: augpy.crop(im, 1, 1, 6, 8, targets=t),
                                lambda im, t: augpy.center_crop(im, 6, targets=t)])
def test_unknown_targets_key_is_a_type_error(op):
    img = augpy.zeros((10, 12, 3), augpy.uint8)
    with pytest.raises(TypeError, match=r"augpy\.\w+: unknown targets key 'box' \(accepted: boxes, labels, "
                                        r"keypoints, keypoint_labels, mask, box_format, box_params, ignore_index\)"):
        op(img, {"box": [[0, 0, 2, 2]]})
    with pytest.raises(TypeError, match=r"unknown targets keys 'box', 'points'"):
        op(img, {"box": [[0, 0, 2, 2]], "points": [[1, 1]]})


def test_unknown_targets_key_leaves_dst_untouched():
    dst = np.full((3, 6, 8), 7, np.uint8)
    with pytest.raises(TypeError, match="augpy.warp_affine: unknown targets key 'box'"):
        augpy.warp_affine(np.zeros((10, 12, 3), np.uint8), dst, np.eye(2, 3), targets={"box": [[0, 0, 2, 2]]})
    assert (dst == 7).all()  # checked before the warp ran


def test_mask_comes_back_as_ht_wt():
    """docs/targets.md: a moved mask is (Ht, Wt), the target image's size (no leading 1)."""
    mask = np.arange(10 * 12, dtype=np.uint8).reshape(10, 12)
    img = np.zeros((10, 12, 3), np.uint8)  # a NumPy image works as well as a tensor
    _, moved = augpy.resize(img, (5, 6), targets={"mask": mask})
    assert tuple(moved["mask"].shape) == (5, 6)
    _, moved = augpy.hflip(img, targets={"mask": mask})
    assert tuple(moved["mask"].shape) == (10, 12)
    np.testing.assert_array_equal(moved["mask"].numpy(), mask[:, ::-1])
    dst = np.zeros((3, 4, 4), np.uint8)
    res, moved = augpy.warp_affine(img, dst, np.eye(2, 3), layout="CHW", targets={"mask": mask})
    assert res is dst
    assert tuple(moved["mask"].shape) == (4, 4)


def test_sequences_mutated_while_read():
    """A list whose element's __float__ empties it while NumPy reads it: a ValueError naming the
    function and the argument (was NumPy's bare RuntimeError, issue 32 item 6)."""
    class Clearing(float):
        def __new__(cls, value, seq):
            obj = float.__new__(cls, value)
            obj.seq = seq
            return obj

        def __float__(self):
            self.seq.clear()
            return 1.0

    m = np.eye(2, 3)
    kp = [[1.0, 2.0], [3.0, 4.0]]
    kp[0][0] = Clearing(3.0, kp)
    with pytest.raises(ValueError, match="augpy.transform_keypoints: keypoints changed while it was read"):
        augpy.transform_keypoints(kp, m, (10, 10))
    boxes = [[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]]
    boxes[0][0] = Clearing(1.0, boxes)
    with pytest.raises(ValueError, match="augpy.transform_boxes: boxes changed while it was read"):
        augpy.transform_boxes(boxes, m, (10, 10), (10, 10))
