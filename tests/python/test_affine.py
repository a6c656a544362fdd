"""augpy.affine and augpy.rotate against torchvision's own results (data/torchvision_affine.npz,
recorded with torchvision.transforms.v2.functional 0.29.2 by data/record_torchvision_affine.py):
the same inverse matrix, the same output size (expand), and the pixels: exact for nearest
sampling except at ties (torchvision rounds its float32 grid half to even; augpy reads
floor(x + 0.5) in double), within 1 for uint8 and 2e-6 for float32 with bilinear sampling. Then
batches with one parameter per image, layouts, targets, and bad arguments."""
import math
import pathlib

import numpy as np
import pytest

import augpy
from augpy import _affine

DATA = np.load(pathlib.Path(__file__).parent / "data" / "torchvision_affine.npz")
NCASES = len([k for k in DATA.files if k.endswith("_kind")])
TIES = {9}  # ShearY about the corner: 4.6% of the source coordinates sit on a rounding tie


def case(i):
    kind = str(DATA[f"case{i}_kind"])
    angle, tx, ty, sc, shx, shy, cx, cy, ex = DATA[f"case{i}_args"]
    center = None if math.isnan(cx) else (cx, cy)
    return kind, angle, (tx, ty), sc, (shx, shy), center, bool(ex)


def run(i, image, interp, layout=None):
    kind, angle, translate, scale, shear, center, expand = case(i)
    if kind == "rotate":
        return augpy.rotate(image, angle, interp, expand=expand, center=center, layout=layout)
    return augpy.affine(image, angle, translate, scale, shear, interp, center=center, layout=layout)


@pytest.mark.parametrize("i", range(NCASES))
def test_matrix_is_torchvisions(i):
    kind, angle, translate, scale, shear, center, _ = case(i)
    c = np.zeros((1, 2)) if center is None else np.array([[center[0] - 16.0, center[1] - 12.0]])
    if kind == "rotate":
        m = _affine.torchvision_matrix(np.array([-(angle % 360)]), np.zeros((1, 2)), np.ones(1), np.zeros((1, 2)), c)
    else:
        m = _affine.torchvision_matrix(np.array([angle]), np.array([translate]), np.array([scale]),
                                       np.array([shear]), c)
    np.testing.assert_allclose(m[0].ravel(), DATA[f"case{i}_matrix"], rtol=0, atol=1e-12)


@pytest.mark.parametrize("i", range(NCASES))
@pytest.mark.parametrize("dname", ["u8", "f32"])
@pytest.mark.parametrize("interp", ["nearest", "bilinear"])
def test_pixels_match_torchvision(i, dname, interp):
    want = DATA[f"case{i}_{dname}_{interp}"]
    t = augpy.array_to_tensor(DATA[dname])
    t.layout = "CHW"
    got = augpy.tensor_to_array(run(i, t, interp))
    assert got.shape == want.shape and got.dtype == want.dtype
    d = np.abs(got.astype(np.float64) - want.astype(np.float64))
    if interp == "nearest":
        assert (d > 0).mean() <= (0.05 if i in TIES else 0.0), (i, (d > 0).mean())
    else:
        assert d.max() <= (1 if dname == "u8" else 2e-6), (i, d.max())


def test_layouts_and_foreign_arrays():
    chw = DATA["u8"]
    want = augpy.tensor_to_array(run(4, augpy.array_to_tensor(chw), "bilinear", layout="CHW"))
    hwc = np.ascontiguousarray(chw.transpose(1, 2, 0))
    got = augpy.tensor_to_array(run(4, hwc, "bilinear"))  # (24, 32, 3): channels last by its shape
    assert np.array_equal(got.transpose(2, 0, 1), want)
    gray = augpy.tensor_to_array(augpy.rotate(chw[0], 30.0))  # (H, W)
    assert np.array_equal(gray, augpy.tensor_to_array(augpy.rotate(chw, 30.0, layout="CHW"))[0])


def test_batch_with_a_parameter_per_image():
    batch = np.stack([DATA["u8"]] * 3)
    angles, shears = [0.0, 15.0, -40.0], [(0.0, 0.0), (10.0, 0.0), (0.0, -5.0)]
    got = augpy.tensor_to_array(augpy.affine(batch, angles, (2, -1), 1.1, shears, "bilinear", fill=[10, 20, 30]))
    for k in range(3):
        one = augpy.affine(DATA["u8"], angles[k], (2, -1), 1.1, shears[k], "bilinear", fill=[10, 20, 30],
                           layout="CHW")
        assert np.array_equal(got[k], augpy.tensor_to_array(one))
    r = augpy.tensor_to_array(augpy.rotate(batch, [90.0, 180.0, 270.0]))
    assert np.array_equal(r[1], DATA["u8"][:, ::-1, ::-1])
    e = augpy.rotate(batch, 90.0, expand=True)
    assert e.shape == (3, 3, 32, 24) and np.array_equal(augpy.tensor_to_array(e)[0], np.rot90(DATA["u8"], 1, (1, 2)))


def test_fill_and_targets():
    img = np.full((1, 20, 20), 100, np.uint8)
    out = augpy.tensor_to_array(augpy.affine(img, translate=(5, 0), fill=7, layout="CHW"))
    assert (out[0, :, :5] == 7).all() and (out[0, :, 5:] == 100).all()
    res, moved = augpy.rotate(np.zeros((3, 20, 30), np.uint8), 90.0, expand=True,
                              targets={"keypoints": np.array([[0.5, 0.5], [15.0, 10.0]], np.float32)})
    assert res.shape == (3, 30, 20)
    # keypoints in pixel-centre coordinates (docs/targets.md): the input's centre (14.5, 9.5) becomes
    # the output's (9.5, 14.5) and (x, y) - centre turns counter-clockwise: (dx, dy) -> (dy, -dx)
    np.testing.assert_allclose(moved["keypoints"], [[0.5, 28.5], [10.0, 14.0]], atol=1e-4)


@pytest.mark.parametrize("call,exc,msg", [
    (lambda t: augpy.affine(t, interpolation="cubic"), ValueError, "augpy.affine: interpolation must be"),
    (lambda t: augpy.affine(t, scale=0.0), ValueError, "augpy.affine: scale must be positive"),
    (lambda t: augpy.affine(t, angle=float("nan")), ValueError, "augpy.affine: angle must be finite"),
    (lambda t: augpy.affine(t, translate=(1, 2, 3)), ValueError, "augpy.affine: translate must be 2 numbers"),
    (lambda t: augpy.rotate(t, [1.0, 2.0]), ValueError, r"augpy.rotate: angle must be a number or one per image"),
    (lambda t: augpy.rotate(t, 10.0, layout="NCHW"), ValueError, "augpy.rotate: layout 'NCHW' does not fit"),
    (lambda t: augpy.rotate(t, 10.0, targets={"box": 1}), TypeError, "augpy.rotate: unknown targets key 'box'"),
    (lambda t: augpy.rotate(np.zeros((2, 3, 8, 8), np.uint8), [1.0, 2.0], expand=True), ValueError,
     "augpy.rotate: expand=True needs one angle"),
    (lambda t: augpy.rotate(np.zeros((2, 3, 8, 8), np.uint8), 5.0, targets={}), ValueError,
     "augpy.rotate: targets= follows one image"),
])
def test_bad_arguments(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call(augpy.array_to_tensor(DATA["u8"]))
