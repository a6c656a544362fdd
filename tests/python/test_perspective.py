"""augpy.warp_perspective, augpy.perspective and augpy.image.RandomPerspective (docs/warp.md,
"Perspective"): torchvision's coefficients exactly and its pixels within the stated bounds
(data/torchvision_perspective.npz, recorded with torchvision 0.29.2 by
data/record_torchvision_perspective.py); the identity copies, an affine homography gives
warp_affine's bytes, w <= 0 reads the background under every border, the session's device
equals the CPU; the stage's corner offsets against torchvision's sampler definition
(chi-square), its record and replay, targets through the homography; bad input."""
import pathlib

import numpy as np
import pytest

import augpy
from augpy import _perspective
from conftest import host_tensor

DATA = np.load(pathlib.Path(__file__).parent / "data" / "torchvision_perspective.npz")
NCASES = len([k for k in DATA.files if k.endswith("_end")])


def _chisquare_ok(counts, expected):
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    k = len(counts) - 1  # the 0.1% point with k degrees of freedom (Wilson-Hilferty)
    return chi2 < k * (1 - 2 / (9 * k) + 3.09 * (2 / (9 * k)) ** 0.5) ** 3, chi2


@pytest.mark.parametrize("i", range(NCASES))
def test_coeffs_are_torchvisions(i):
    """The same float32 coefficients, to one float32 rounding (torchvision solves by least
    squares, QR, augpy by LU: the float64 solutions differ in the last bits, and where the
    exact value is 0 torchvision keeps a residue below 1e-12)."""
    got = np.array(augpy.perspective_coeffs(DATA[f"case{i}_start"], DATA[f"case{i}_end"]))
    np.testing.assert_allclose(got, DATA[f"case{i}_coeffs"], rtol=2.0 ** -23, atol=1e-12)


@pytest.mark.parametrize("i", range(NCASES))
def test_pixels_against_torchvision(i):
    """Where the source point is in front (w > 0 at the pixel centre): uint8 bilinear within 1
    (at most 3% of the values off by 1), float32 bilinear within 1e-5, nearest equal except where
    the source coordinate lies within 1e-3 px of a half-pixel tie (torchvision evaluates its
    grid in float32 and rounds half to even, augpy in double with floor(x + 0.5)). Where w <= 0
    (a strong distortion puts the horizon inside the output: recorded case 9) augpy shows the
    fill and torchvision the source seen through the horizon."""
    start, end = DATA[f"case{i}_start"], DATA[f"case{i}_end"]
    m = augpy.perspective_matrix(start, end).astype(np.float32).astype(np.float64)
    y, x = np.mgrid[0:24, 0:32].astype(np.float64)
    w = m[2, 0] * x + m[2, 1] * y + m[2, 2]
    sx, sy = (m[0, 0] * x + m[0, 1] * y + m[0, 2]) / w, (m[1, 0] * x + m[1, 1] * y + m[1, 2]) / w
    front = w > 0
    tie = (np.abs(sx - np.floor(sx) - 0.5) < 1e-3) | (np.abs(sy - np.floor(sy) - 0.5) < 1e-3)
    assert front.mean() > (0.1 if i == 9 else 0.99)
    for name in ("u8", "f32"):
        for interp in ("bilinear", "nearest"):
            want = DATA[f"case{i}_{name}_{interp}"]
            got = augpy.tensor_to_array(augpy.perspective(DATA[name], start, end, interpolation=interp))
            d = np.abs(got.astype(np.float64) - want.astype(np.float64))[:, front]
            fill = augpy.tensor_to_array(augpy.perspective(DATA[name], start, end, interpolation=interp))[:, ~front]
            assert (fill == 0).all()
            if interp == "nearest":
                assert not (d.max(0) > 0)[~tie[front]].any(), (name, np.argwhere(d.max(0) > 0))
            elif name == "u8":
                assert d.max() <= 1 and (d > 0).mean() <= 0.03, (d.max(), (d > 0).mean())
            else:
                assert d.max() <= 1e-5, d.max()


def _image(rng, shape=(23, 31, 3)):
    return rng.integers(0, 256, shape, dtype=np.uint8)


def test_identity_copies(rng):
    img = _image(rng)
    for border in ("constant", "replicate", "reflect", "symmetric"):
        for interp in ("linear", "nearest"):
            out = augpy.Tensor((3, 23, 31), dtype=augpy.uint8)
            augpy.warp_perspective(augpy.array_to_tensor(img), out, np.eye(3), interpolation=interp, border=border)
            assert np.array_equal(augpy.tensor_to_array(out), img.transpose(2, 0, 1))


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_affine_homography_is_warp_affine(rng, dtype):
    img = _image(rng, (40, 50, 3)).astype(dtype)
    for k, angle in enumerate((0.0, 17.0, -130.0)):
        m, s = augpy.make_transform((40, 50), (32, 36), angle=angle, scale=0.8 + 0.3 * k, shear=(0.1, 0.0))
        h = np.vstack([m, [0, 0, 1]]).astype(np.float32)
        for interp in ("linear", "nearest"):
            a = augpy.Tensor((3, 32, 36), dtype=augpy.float32)
            b = augpy.Tensor((3, 32, 36), dtype=augpy.float32)
            augpy.warp_affine(augpy.array_to_tensor(img), a, m, [9, 200, 3], s, interpolation=interp, border="reflect")
            augpy.warp_perspective(augpy.array_to_tensor(img), b, h, [9, 200, 3], s, interpolation=interp,
                                   border="reflect")
            assert augpy.tensor_to_array(a).tobytes() == augpy.tensor_to_array(b).tobytes()


def test_behind_the_horizon_is_background(rng):
    img = _image(rng, (20, 20, 1))[..., 0]
    m = np.array([[1, 0, 0], [0, 1, 0], [-1 / 10, 0, 1]], np.float32)  # w = 1 - x / 10: w <= 0 from x = 10
    for border in ("constant", "replicate", "reflect", "symmetric"):
        for interp in ("linear", "nearest"):
            out = augpy.Tensor((20, 20), dtype=augpy.uint8)
            augpy.warp_perspective(augpy.array_to_tensor(img), out, m, 77, interpolation=interp, border=border)
            o = augpy.tensor_to_array(out)
            assert (o[:, 10:] == 77).all() and (o[:, 0] == img[:, 0]).all()


def test_device_equals_cpu(rng):
    img = _image(rng, (30, 41, 3))
    ms = np.stack([_perspective.perspective_matrix([[0, 0], [40, 0], [40, 29], [0, 29]], e) for e in
                   ([[3, 2], [36, 5], [38, 27], [1, 25]], [[-5, 0], [45, 3], [40, 29], [0, 35]])]).astype(np.float32)
    ms[1, 2, 0] = -0.04  # part of the second image behind the horizon
    for interp in ("linear", "nearest"):
        for border in ("constant", "reflect"):
            for s in (1, 2):
                outs = []
                for src in (augpy.array_to_tensor(img), host_tensor(img)):
                    out = augpy.Tensor((2, 3, 24, 28), dtype=augpy.uint8)
                    out = out if out.device == src.device else out.to(src.device)
                    augpy.warp_perspective([src, src], out, ms, [1, 2, 3], s, interpolation=interp, border=border)
                    outs.append(augpy.tensor_to_array(out))
                assert outs[0].tobytes() == outs[1].tobytes()


def test_functional_batch_and_targets(rng):
    img = _image(rng, (2, 3, 24, 32))
    ends = [[[3, 2], [28, 1], [30, 22], [1, 20]], [[0, 0], [31, 0], [31, 23], [0, 23]]]
    start = [[0, 0], [31, 0], [31, 23], [0, 23]]
    out = augpy.tensor_to_array(augpy.perspective(img, start, ends))
    one = augpy.tensor_to_array(augpy.perspective(img[0], start, ends[0]))
    assert np.array_equal(out[0], one) and np.array_equal(out[1], img[1])
    # a keypoint on the one bright pixel lands where the warp puts it; a box's corners move as
    # torchvision's continuous coordinates (augpy's pixel edges) move: its forward map, the
    # inverse of the coefficients' map
    spot = np.zeros((1, 24, 32), np.uint8)
    spot[0, 10, 20] = 255
    res, moved = augpy.perspective(spot, start, ends[0], targets={"keypoints": [[20.0, 10.0]],
                                                                 "boxes": [[0, 0, 32, 24]]})
    y, x = np.unravel_index(np.argmax(augpy.tensor_to_array(res)[0]), (24, 32))
    assert abs(moved["keypoints"][0][0] - x) <= 1 and abs(moved["keypoints"][0][1] - y) <= 1
    c = augpy.perspective_coeffs(start, ends[0])
    fwd = np.linalg.inv(np.array([c[0:3], c[3:6], [c[6], c[7], 1.0]]))
    q = fwd @ np.array([[0, 32, 32, 0], [0, 0, 24, 24], [1, 1, 1, 1.0]])
    q = q[:2] / q[2]
    want = [max(q[0].min(), 0), max(q[1].min(), 0), min(q[0].max(), 32), min(q[1].max(), 24)]
    np.testing.assert_allclose(moved["boxes"][0], want, atol=1e-4)


def test_targets_affine_and_horizon():
    m, _ = augpy.make_transform((60, 80), (40, 40), angle=20)
    h = np.vstack([m, [0, 0, 1]])
    boxes = np.array([[10, 20, 40, 30], [70, 50, 80, 60]], float)
    kp = np.array([[25.0, 25.0, 30.0, 2.0], [5.0, 5.0, 0.0, 1.0]])
    a, b = augpy.transform_boxes(boxes, m, (60, 80), (40, 40)), augpy.transform_boxes(boxes, h, (60, 80), (40, 40))
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    # a homography near the affine one: the NumPy path agrees with the C one to first order
    h2 = h.copy()
    h2[2] = [1e-12, 0, 1]
    c = augpy.transform_boxes(boxes, h2, (60, 80), (40, 40))
    np.testing.assert_allclose(c[0], a[0], atol=1e-6)
    k1, k2 = augpy.transform_keypoints(kp, m, (40, 40)), augpy.transform_keypoints(kp, h2, (40, 40))
    np.testing.assert_allclose(k2[0], k1[0], atol=1e-6)
    assert np.array_equal(k1[1], k2[1])
    # forward map behind the horizon: the box is dropped, the keypoint invisible (NaN when kept)
    hz = np.array([[1, 0, 0], [0, 1, 0], [-0.1, 0, 1]])
    fb, keep = augpy.transform_boxes([[2, 2, 4, 4], [12, 2, 14, 4]], np.linalg.inv(hz), (20, 20), (20, 20))
    assert keep.tolist() == [0]
    kk, vis = augpy.transform_keypoints([[2.0, 2.0], [15.0, 2.0]], np.linalg.inv(hz), (20, 20),
                                        remove_invisible=False)
    assert vis.tolist() == [0] and np.isnan(kk[1]).all()


def _batch(n, h=64, w=64, c=1):
    return {"image": augpy.array_to_tensor(np.zeros((n, c, h, w), np.uint8))}


def test_offsets_distribution():
    """Each corner coordinate uniform over torchvision's torch.randint range (chi-square), the
    fraction warped p (within 4 standard deviations)."""
    n, scale, p = 3000, 0.5, 0.7
    stage = augpy.image.RandomPerspective(distortion_scale=scale, p=p, seed=3)
    rng = augpy.RandomNumberGenerator(seed=5)
    u = np.empty((n, stage.draws))
    rng.uniform(u, 0.0, 1.0)
    ends = [stage.endpoints(u[k], 48, 64) for k in range(n)]
    warped = np.array([e for e in ends if e is not None])
    assert abs(len(warped) - p * n) < 4 * np.sqrt(n * p * (1 - p))
    bh, bw = int(scale * 24) + 1, int(scale * 32) + 1
    ranges = [(0, bw), (0, bh), (64 - bw, 64), (0, bh), (64 - bw, 64), (48 - bh, 48), (0, bw), (48 - bh, 48)]
    flat = warped.reshape(-1, 8)
    for j, (lo, hi) in enumerate(ranges):
        assert flat[:, j].min() >= lo and flat[:, j].max() < hi
        counts = np.bincount(flat[:, j] - lo, minlength=hi - lo).astype(float)
        ok, chi2 = _chisquare_ok(counts, np.full(hi - lo, len(flat) / (hi - lo)))
        assert ok, (j, chi2)


def test_stage_records_and_replays():
    rng = np.random.default_rng(1)
    img = rng.integers(0, 256, (6, 3, 24, 32), dtype=np.uint8)
    stage = augpy.image.RandomPerspective(distortion_scale=0.6, p=0.5, seed=7)
    b1 = stage({"image": augpy.array_to_tensor(img)})
    recs = [a["perspective"] for a in b1["augmentation"]]
    assert any(r is None for r in recs) and any(r is not None for r in recs)
    out = augpy.tensor_to_array(b1["image"])
    start = [[0, 0], [31, 0], [31, 23], [0, 23]]
    for k, r in enumerate(recs):
        want = img[k] if r is None else augpy.tensor_to_array(augpy.perspective(img[k], start, r))
        assert np.array_equal(out[k], want)
    again = augpy.image.RandomPerspective(distortion_scale=0.1, p=1.0)(
        {"image": augpy.array_to_tensor(img), "augmentation": b1["augmentation"]})
    assert np.array_equal(augpy.tensor_to_array(again["image"]), out)
    # targets follow each image's matrix (identity where nothing was warped)
    boxes = [np.array([[4.0, 4.0, 20.0, 16.0]])] * 6
    b2 = augpy.image.RandomPerspective(distortion_scale=0.6, p=0.5, seed=7)(
        {"image": augpy.array_to_tensor(img), "boxes": boxes})
    for k, r in enumerate(recs):
        if r is None:
            assert np.array_equal(b2["boxes"][k], boxes[k])
        else:
            m = _perspective.perspective_matrix(start, r).astype(np.float32)
            np.testing.assert_allclose(b2["boxes"][k], augpy.transform_boxes(boxes[k], m, (24, 32), (24, 32))[0])


def test_errors(rng):
    img = augpy.array_to_tensor(_image(rng, (8, 8, 3)))
    out = augpy.Tensor((3, 8, 8), dtype=augpy.uint8)
    with pytest.raises(ValueError, match=r"augpy.warp_perspective: matrix is singular"):
        augpy.warp_perspective(img, out, [[1, 2, 3], [2, 4, 6], [0, 0, 1]])
    with pytest.raises(ValueError, match=r"augpy.warp_perspective: matrix has a non-finite value nan at \[2\]\[0\]"):
        augpy.warp_perspective(img, out, [[1, 0, 0], [0, 1, 0], [np.nan, 0, 1]])
    with pytest.raises(ValueError, match=r"augpy.warp_perspective: matrix must have shape \(3, 3\), got \(2, 3\)"):
        augpy.warp_perspective(img, out, np.eye(3)[:2])
    for bad in (-0.1, 1.5, float("nan"), "0.5"):
        with pytest.raises(ValueError, match=r"RandomPerspective: distortion_scale must be a number in \[0, 1\]"):
            augpy.image.RandomPerspective(distortion_scale=bad)
        with pytest.raises(ValueError, match=r"RandomPerspective: p must be a number in \[0, 1\], got"):
            augpy.image.RandomPerspective(p=bad)
    with pytest.raises(ValueError, match="augpy.perspective_coeffs: the points do not determine a perspective"):
        augpy.perspective_coeffs([[0, 0], [1, 0], [1, 1], [0, 1]], [[0, 0], [0, 0], [0, 0], [0, 0]])
    with pytest.raises(ValueError, match=r"augpy.perspective_coeffs: startpoints must be 4 finite"):
        augpy.perspective_coeffs([[0, 0], [1, 0], [1, 1]], [[0, 0], [1, 0], [1, 1], [0, 1]])
    with pytest.raises(ValueError, match=r"augpy.perspective: startpoints and endpoints must be 4"):
        augpy.perspective(np.zeros((2, 3, 8, 8), np.uint8), [[0, 0], [7, 0], [7, 7], [0, 7]], np.zeros((3, 4, 2)))
    with pytest.raises(ValueError, match="must be finite and invertible"):
        augpy.transform_boxes([[0, 0, 1, 1]], np.array([[1, 0, 0], [0, 1, 0], [1, 1, 1.0]]) * [[1], [1], [0]],
                              (8, 8), (8, 8))
