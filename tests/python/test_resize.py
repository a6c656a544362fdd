"""augpy.resize / resize_batch and the flip / crop views (docs/resize.md).

References, independent of augpy: resizeref.py (the documented definition in NumPy: tap
tables from the formulas in Python floats, sums in the compute type in the documented order,
so results must be equal bit for bit), cv2.resize (INTER_NEAREST exactly; INTER_LINEAR and
INTER_AREA within the documented tolerances: OpenCV's uint8 paths use 11-bit fixed-point
weights and its float paths float32 positions), Pillow's Image.resize(BILINEAR) (antialiased
on downscale; uint8 Pillow rounds between its two passes), and NumPy slicing for the views.
"""
import cv2
import numpy as np
import pytest
from PIL import Image

import augpy
from conftest import DEVICE, ON_CUDA
import resizeref

INTERPS = [("nearest", False), ("bilinear", False), ("bilinear", True), ("area", False)]
CV = {"nearest": cv2.INTER_NEAREST, "bilinear": cv2.INTER_LINEAR, "area": cv2.INTER_AREA}
# (H, W) -> (h, w): odd sizes 1, 7, 63, 65, up and down, integer and non-integer ratios
CASES = [((7, 63), (65, 1)), ((63, 65), (7, 7)), ((65, 63), (63, 65)), ((1, 7), (7, 1)), ((1, 1), (3, 5)),
         ((24, 40), (9, 15)), ((30, 20), (60, 40)), ((33, 47), (33, 47)), ((64, 48), (32, 24)), ((13, 17), (40, 9))]


def rand_image(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return (rng.random(shape) * 300 - 20).astype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    info = np.iinfo(dtype)
    lo, hi = max(info.min, -(2 ** 40)), min(info.max, 2 ** 40)
    return rng.integers(lo, hi, shape, endpoint=True, dtype=np.int64).astype(dtype)


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
    if a.dtype.kind == "f":
        eq = (a == b) | (np.isnan(a) & np.isnan(b))
        assert eq.all(), f"{(~eq).sum()} values differ, e.g. {a[~eq][:5]} vs {b[~eq][:5]}"
    else:
        assert np.array_equal(a, b), f"{(a != b).sum()} values differ"


# ---- the definition, exactly --------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["uint8", "int16", "uint16", "float16", "float32", "int32", "float64", "bool"])
@pytest.mark.parametrize("interp,aa", INTERPS)
def test_matches_reference(dtype, interp, aa):
    rng = np.random.default_rng(abs(hash((dtype, interp, aa))) % 2 ** 32)
    for (H, W), (h, w) in CASES:
        img = rand_image(rng, (H, W, 3), dtype)
        r = augpy.resize(augpy.array_to_tensor(img), (h, w), interp, antialias=aa)
        assert r.layout == "HWC" and r.device == DEVICE and r.dtype == augpy.to_augpy_dtype(img.dtype)
        same(r.numpy(), resizeref.resize_hwc(img, h, w, interp, aa))


@pytest.mark.parametrize("interp,aa", INTERPS)
def test_uint8_against_float64(interp, aa):
    """uint8 computes in float32; the float64 evaluation of the same definition, rounded, agrees
    except where that value lies within float32 rounding (1e-4) of a half-integer."""
    rng = np.random.default_rng(18)
    for (H, W), (h, w) in CASES:
        img = rand_image(rng, (H, W, 3), "uint8")
        got = augpy.resize(augpy.array_to_tensor(img), (h, w), interp, antialias=aa).numpy().astype(int)
        exact = resizeref.resize_hwc(img, h, w, interp, aa, out_dtype="float64")  # computed in float64
        want = np.clip(np.rint(exact), 0, 255).astype(int)
        near_tie = np.abs(exact - np.floor(exact) - 0.5) < 1e-4
        assert np.abs(got - want).max() <= 1
        assert (got[~near_tie] == want[~near_tie]).all()


@pytest.mark.parametrize("interp,aa", INTERPS)
def test_out_dtype_and_strides(interp, aa):
    rng = np.random.default_rng(5)
    img = rand_image(rng, (20, 30, 2), "uint8")
    t = augpy.array_to_tensor(img)
    for odt in ("float32", "float64", "int8", "uint16"):
        out = augpy.zeros((11, 17, 2), getattr(augpy, odt))
        assert augpy.resize(t, (11, 17), interp, antialias=aa, out=out) is out
        same(out.numpy(), resizeref.resize_hwc(img, 11, 17, interp, aa, out_dtype=odt))
    # a strided output: every other column of a wider tensor, channels reversed
    big = augpy.zeros((11, 34, 2), augpy.uint8)
    view = big[:, ::2, ::-1]
    augpy.resize(t, (11, 17), interp, antialias=aa, out=view)
    same(big.numpy()[:, ::2, ::-1], resizeref.resize_hwc(img, 11, 17, interp, aa))
    assert (big.numpy()[:, 1::2] == 0).all()


@pytest.mark.parametrize("interp,aa", INTERPS)
def test_layouts(interp, aa):
    rng = np.random.default_rng(6)
    imgs = rand_image(rng, (3, 19, 23, 4), "uint8")
    want = np.stack([resizeref.resize_hwc(im, 10, 31, interp, aa) for im in imgs])
    nhwc = augpy.array_to_tensor(imgs)
    same(augpy.resize(nhwc, (10, 31), interp, aa, layout="NHWC").numpy(), want)
    nchw = augpy.array_to_tensor(np.ascontiguousarray(imgs.transpose(0, 3, 1, 2)))
    r = augpy.resize(nchw, (10, 31), interp, aa)  # 4-D without a layout: NCHW
    assert r.layout == "NCHW" and r.shape == (3, 4, 10, 31)
    same(r.numpy(), want.transpose(0, 3, 1, 2))
    chw = augpy.array_to_tensor(np.ascontiguousarray(imgs[1].transpose(2, 0, 1)))
    chw.layout = "CHW"
    same(augpy.resize(chw, (10, 31), interp, aa).numpy(), want[1].transpose(2, 0, 1))
    hw = augpy.array_to_tensor(np.ascontiguousarray(imgs[2, :, :, 0]))
    same(augpy.resize(hw, (10, 31), interp, aa).numpy(), want[2, :, :, 0])


@pytest.mark.parametrize("interp,aa", INTERPS)
def test_strided_inputs(interp, aa):
    """Flips, crops, steps and transposed views resize like their contiguous copies."""
    rng = np.random.default_rng(7)
    img = rand_image(rng, (40, 50, 3), "float32")
    t = augpy.array_to_tensor(img)
    views = [(t[::-1, ::2], img[::-1, ::2]), (augpy.hflip(t), img[:, ::-1]),
             (augpy.crop(t, 3, 5, 20, 31), img[3:23, 5:36]), (t[5:30:3, ::-3, ::-1], img[5:30:3, ::-3, ::-1])]
    for v, ref in views:
        same(augpy.resize(v, (13, 21), interp, aa).numpy(), resizeref.resize_hwc(np.ascontiguousarray(ref), 13, 21,
                                                                                 interp, aa))
    t.layout = "HWC"
    chw = t.permute(2, 0, 1)  # a transposed view, layout CHW
    assert chw.layout == "CHW"
    same(augpy.resize(chw, (13, 21), interp, aa).numpy(), resizeref.resize_hwc(img, 13, 21, interp, aa).transpose(2, 0, 1))


def test_nan_inf_and_exact_copies():
    img = np.array([[0, 1, np.inf, 3], [4, np.nan, 6, 7], [8, 9, 10, -np.inf]], np.float32)[..., None]
    t = augpy.array_to_tensor(img)
    for interp, aa in INTERPS:
        same(augpy.resize(t, (5, 7), interp, aa).numpy(), resizeref.resize_hwc(img, 5, 7, interp, aa))
        same(augpy.resize(t, (3, 4), interp, aa).numpy(), img)  # same size: a copy
    big = np.array([[2 ** 62 + 1, -(2 ** 63)], [2 ** 63 - 1, 5]], np.int64)[..., None]
    for interp, aa in INTERPS:  # int64 beyond 2^53 survives an exact copy
        same(augpy.resize(augpy.array_to_tensor(big), (2, 2), interp, aa).numpy(), big)
    same(augpy.resize(augpy.array_to_tensor(big), (4, 4), "nearest").numpy(), big.repeat(2, 0).repeat(2, 1))


# ---- peers ----------------------------------------------------------------------------------------

PEER_SIZES = [(1, 1), (7, 5), (63, 65), (65, 63), (130, 33), (24, 24)]


@pytest.mark.parametrize("interp", ["nearest", "bilinear", "area"])
def test_against_cv2(interp):
    """uint8: equal for nearest, within 1 for linear and area; float32: within 2e-3 (OpenCV's
    float32 positions) on values in [0, 256)."""
    rng = np.random.default_rng(8)
    for H, W in [(1, 9), (7, 64), (63, 65), (100, 1), (65, 100)]:
        img = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
        imf = img.astype(np.float32) + rng.random((H, W, 3), dtype=np.float32)
        t, tf = augpy.array_to_tensor(img), augpy.array_to_tensor(imf)
        for h, w in PEER_SIZES:
            r = augpy.resize(t, (h, w), interp, antialias=False).numpy().astype(int)
            c = cv2.resize(img, (w, h), interpolation=CV[interp]).reshape(h, w, 3)
            assert np.abs(r - c).max() <= (0 if interp == "nearest" else 1), ((H, W), (h, w))
            r = augpy.resize(tf, (h, w), interp, antialias=False).numpy()
            c = cv2.resize(imf, (w, h), interpolation=CV[interp]).reshape(h, w, 3)
            np.testing.assert_allclose(r, c, rtol=0, atol=0 if interp == "nearest" else 2e-3)


def test_against_pillow():
    """Antialiased bilinear: Pillow's BILINEAR within 1 on uint8 (Pillow rounds to uint8 between
    its passes) and within 1e-3 on float32 (mode 'F', Pillow sums in double)."""
    rng = np.random.default_rng(9)
    for H, W in [(1, 9), (7, 64), (63, 65), (100, 1), (65, 100), (333, 500)]:
        img = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
        imf = img.astype(np.float32) + rng.random((H, W, 3), dtype=np.float32)
        t, tf = augpy.array_to_tensor(img), augpy.array_to_tensor(imf)
        for h, w in PEER_SIZES + [(224, 224)]:
            r = augpy.resize(t, (h, w), "bilinear", antialias=True).numpy().astype(int)
            p = np.asarray(Image.fromarray(img).resize((w, h), Image.BILINEAR)).astype(int).reshape(h, w, 3)
            assert np.abs(r - p).max() <= 1, ((H, W), (h, w))
            r = augpy.resize(tf, (h, w), "bilinear", antialias=True).numpy()
            p = np.stack([np.asarray(Image.fromarray(imf[:, :, c], mode="F").resize((w, h), Image.BILINEAR))
                          for c in range(3)], -1)
            np.testing.assert_allclose(r, p, rtol=0, atol=1e-3)


def test_antialias_only_changes_shrinking_axes():
    rng = np.random.default_rng(10)
    t = augpy.array_to_tensor(rand_image(rng, (20, 30, 3), "float32"))
    for size in [(40, 60), (20, 30), (40, 31)]:  # no axis shrinks
        same(augpy.resize(t, size, antialias=True).numpy(), augpy.resize(t, size, antialias=False).numpy())
    assert not np.array_equal(augpy.resize(t, (7, 30), antialias=True).numpy(),
                              augpy.resize(t, (7, 30), antialias=False).numpy())


# ---- sizes, batches ---------------------------------------------------------------------------------

def test_int_size_is_the_shorter_side():
    for (H, W), s, want in [((333, 500), 224, (224, 336)), ((500, 333), 224, (336, 224)), ((64, 64), 10, (10, 10)),
                            ((1, 1000), 5, (5, 5000)), ((480, 640), 256, (256, 341))]:
        t = augpy.zeros((H, W, 1), augpy.uint8)
        assert augpy.resize(t, s).shape[:2] == want
        # torchvision's rule: int(size * long / short)
        short, long = min(H, W), max(H, W)
        assert max(want) == int(s * long / short)


@pytest.mark.parametrize("interp,aa", INTERPS)
def test_resize_batch(interp, aa):
    rng = np.random.default_rng(11)
    imgs = [rand_image(rng, (H, W, 3), "uint8") for H, W in [(7, 9), (65, 63), (33, 33), (7, 9), (1, 100)]]
    ts = [augpy.array_to_tensor(i) for i in imgs]
    want = np.stack([resizeref.resize_hwc(i, 16, 24, interp, aa) for i in imgs])
    b = augpy.resize_batch(ts, (16, 24), interp, aa)
    assert b.shape == (5, 3, 16, 24) and b.layout == "NCHW"
    same(b.numpy(), want.transpose(0, 3, 1, 2))
    b = augpy.resize_batch(ts, (16, 24), interp, aa, out_layout="NHWC", dtype=augpy.float32)
    assert b.shape == (5, 16, 24, 3) and b.layout == "NHWC"
    same(b.numpy(), np.stack([resizeref.resize_hwc(i, 16, 24, interp, aa, out_dtype="float32") for i in imgs]))
    out = augpy.zeros((5, 3, 16, 24), augpy.uint8)
    assert augpy.resize_batch(ts, (16, 24), interp, aa, out=out) is out
    same(out.numpy(), want.transpose(0, 3, 1, 2))
    # CHW sources and a square int size
    chw = [t.permute(2, 0, 1) for t in ts]
    same(augpy.resize_batch(chw, 12, interp, aa, layout="CHW").numpy(),
         np.stack([resizeref.resize_hwc(i, 12, 12, interp, aa) for i in imgs]).transpose(0, 3, 1, 2))


# ---- bad input ----------------------------------------------------------------------------------------

def test_bad_input():
    t = augpy.zeros((8, 9, 3), augpy.uint8)
    for size in [(0, 5), (5, 0), (-1, 3), 0, -7, (2 ** 31, 4), 2 ** 40]:
        with pytest.raises(ValueError, match="augpy.resize: size"):
            augpy.resize(t, size)
    for size in [float("nan"), (float("nan"), 3), (1.5, 2), "ab", None, True]:
        with pytest.raises(TypeError, match="augpy.resize: size"):
            augpy.resize(t, size)
    with pytest.raises(ValueError, match="augpy.resize: size must be \\(height, width\\), got 3 values"):
        augpy.resize(t, (1, 2, 3))
    with pytest.raises(ValueError, match="augpy.resize: unknown interpolation 'lanczos'"):
        augpy.resize(t, (4, 4), "lanczos")
    with pytest.raises(ValueError, match="augpy.resize: interpolation 'cubic' is not supported"):
        augpy.resize(t, (4, 4), "cubic")
    with pytest.raises(TypeError, match="augpy.resize: interpolation must be a str"):
        augpy.resize(t, (4, 4), 1)
    with pytest.raises(ValueError, match="augpy.resize: a tensor of shape \\(8,\\) without a layout"):
        augpy.resize(augpy.zeros((8,), augpy.uint8), (4, 4))
    with pytest.raises(ValueError, match="augpy.resize: a tensor of shape \\(1, 2, 8, 9, 3\\)"):
        augpy.resize(augpy.zeros((1, 2, 8, 9, 3), augpy.uint8), (4, 4))
    with pytest.raises(ValueError, match="layout 'NCHW' has 4 dimensions but the tensor has shape \\(8, 9, 3\\)"):
        augpy.resize(t, (4, 4), layout="NCHW")
    with pytest.raises(ValueError, match="augpy.resize: layout 'HWCX' is not supported"):
        augpy.resize(t, (4, 4), layout="HWCX")
    d = augpy.Decoder()  # a decoded image carries "HWC"
    with open(__import__("pathlib").Path(augpy.__file__).parent / "samples" / "sample_00.jpg", "rb") as f:
        img = d.decode(f.read())
    with pytest.raises(ValueError, match="augpy.resize: layout 'CHW' was given but the tensor's layout is 'HWC'"):
        augpy.resize(img, (4, 4), layout="CHW")
    with pytest.raises(ValueError, match="augpy.resize: the image is empty \\(H = 0, W = 9\\)"):
        augpy.resize(augpy.zeros((0, 9, 3), augpy.uint8), (4, 4))
    assert augpy.resize(augpy.zeros((8, 9, 0), augpy.uint8), (4, 4)).shape == (4, 4, 0)
    with pytest.raises(ValueError, match="augpy.resize: out has shape \\(4, 5, 3\\) but the result has shape"):
        augpy.resize(t, (4, 4), out=augpy.zeros((4, 5, 3), augpy.uint8))
    with pytest.raises(ValueError, match="augpy.resize: the output overlaps the image"):
        augpy.resize(t, (4, 4), out=t[:4, :4])
    if DEVICE == "cpu":  # an output whose elements share memory (a NumPy view imported by DLPack)
        base = np.zeros(64, np.uint8)
        shared = np.lib.stride_tricks.as_strided(base, shape=(4, 4, 3), strides=(4, 1, 1))
        with pytest.raises(ValueError, match="augpy.resize: the output has self-overlapping"):
            augpy.resize(t, (4, 4), out=augpy.from_dlpack(shared))
        assert not base.any()
    with pytest.raises(TypeError, match="augpy.resize: image must be a Tensor or an array"):
        augpy.resize([[1, 2], [3, 4]], (2, 2))  # a list is no array (it would need a copy)
    with pytest.raises(ValueError, match="augpy.resize: cannot tell the layout of image from its shape \\(4, 4, 3\\)"
                                         ".*pass layout="):
        augpy.resize(np.zeros((4, 4, 3), np.uint8), (2, 2))  # a NumPy array: an ambiguous shape needs layout=
    with pytest.raises(ValueError, match="augpy.resize_batch: images is empty"):
        augpy.resize_batch([], (4, 4))
    with pytest.raises(ValueError, match="augpy.resize_batch: image 1 has 1 channels but dst has 3"):
        augpy.resize_batch([t, augpy.zeros((5, 5, 1), augpy.uint8)], (4, 4))
    with pytest.raises(ValueError, match=r"augpy.resize_batch: layout 'NHWC' is not supported \(HW, HWC, CHW\)"):
        augpy.resize_batch([augpy.zeros((1, 5, 5, 1), augpy.uint8)], (4, 4), layout="NHWC")
    with pytest.raises(ValueError, match="augpy.resize_batch: out_layout 'CHW' is not NCHW or NHWC"):
        augpy.resize_batch([t], (4, 4), out_layout="CHW")
    with pytest.raises(ValueError, match="augpy.resize_batch: out is 4 x 4 but size is \\(5, 5\\)"):
        augpy.resize_batch([t], (5, 5), out=augpy.zeros((1, 3, 4, 4), augpy.uint8))
    with pytest.raises(ValueError, match="augpy.resize_batch: dst holds 2 images"):
        augpy.resize_batch([t], (4, 4), out=augpy.zeros((2, 3, 4, 4), augpy.uint8))


# ---- NumPy arrays: no copy, the layout from the shape (test_layout.py has the rule's cases) -------------

def test_numpy_hwc_uint8_without_copy():
    rng = np.random.default_rng(40)
    img = rand_image(rng, (31, 45, 3), "uint8")
    t = augpy.array_to_tensor(img)
    for interp, aa in INTERPS:
        r = augpy.resize(img, (13, 21), interp, aa)  # the array itself, not a tensor made from it
        assert isinstance(r, augpy.Tensor) and r.layout == "HWC" and r.device == "cpu"
        same(r.numpy(), augpy.resize(t, (13, 21), interp, aa).numpy())
    out = np.zeros((13, 21, 3), np.uint8)          # an array out=: written in place, returned
    assert augpy.resize(img, (13, 21), out=out) is out
    same(out, resizeref.resize_hwc(img, 13, 21, "bilinear", True))
    view = augpy.crop(img, 2, 3, 20, 30)            # a view of the array's memory
    img[2, 3] = 255 - img[2, 3]
    same(view.numpy()[0, 0], img[2, 3])


def test_numpy_chw_is_resized_as_chw():
    rng = np.random.default_rng(41)
    hwc = rand_image(rng, (16, 24, 3), "uint8")
    chw = np.ascontiguousarray(hwc.transpose(2, 0, 1))  # (3, 16, 24): channels first, from the shape
    want = resizeref.resize_hwc(hwc, 8, 12, "bilinear", True).transpose(2, 0, 1)
    for x in (chw, augpy.asarray(chw)):                # also augpy.asarray's tensor without a layout
        r = augpy.resize(x, (8, 12))
        assert r.shape == (3, 8, 12) and r.layout == "CHW"
        same(r.numpy(), want)
    r = augpy.resize(chw, 4)                            # int size: the shorter side of H = 16, W = 24
    assert r.shape == (3, 4, 6)


# ---- flip, crop, center_crop ---------------------------------------------------------------------------

def shares_memory(view, base):
    """True if writing through `base` shows in `view` (no copy was made)."""
    base.fill(7)
    return bool((view.numpy() == 7).all())


def test_flip_and_crop_views():
    rng = np.random.default_rng(12)
    img = rand_image(rng, (9, 11, 3), "uint8")
    t = augpy.array_to_tensor(img)
    same(augpy.flip(t).numpy(), img[:, ::-1])
    same(augpy.hflip(t).numpy(), img[:, ::-1])
    same(augpy.vflip(t).numpy(), img[::-1])
    same(augpy.flip(t, True, True).numpy(), img[::-1, ::-1])
    same(augpy.flip(t, False, False).numpy(), img)
    assert augpy.flip(t).strides[1] < 0 and augpy.hflip(t).layout == "HWC"
    same(augpy.crop(t, 2, 3, 5, 7).numpy(), img[2:7, 3:10])
    same(augpy.crop(t, 0, 0, 9, 11).numpy(), img)
    chw = augpy.array_to_tensor(np.ascontiguousarray(img.transpose(2, 0, 1)))
    chw.layout = "CHW"
    same(augpy.hflip(chw).numpy(), img.transpose(2, 0, 1)[:, :, ::-1])
    same(augpy.crop(chw, 1, 2, 3, 4).numpy(), img.transpose(2, 0, 1)[:, 1:4, 2:6])
    batch = augpy.array_to_tensor(np.stack([img, img[::-1]]).transpose(0, 3, 1, 2).copy())
    same(augpy.vflip(batch).numpy(), np.stack([img, img[::-1]]).transpose(0, 3, 1, 2)[:, :, ::-1])
    for v in [augpy.hflip(t), augpy.crop(t, 2, 3, 5, 7), augpy.center_crop(t, (3, 3))]:
        assert shares_memory(v, t)


def test_crop_out_of_range():
    t = augpy.zeros((9, 11, 3), augpy.uint8)
    msg = "augpy.crop: crop \\(y=5, x=0, h=5, w=11\\) does not fit the image \\(H=9, W=11\\)"
    with pytest.raises(ValueError, match=msg):
        augpy.crop(t, 5, 0, 5, 11)
    for args in [(-1, 0, 2, 2), (0, -1, 2, 2), (0, 0, 0, 2), (0, 0, 2, 0), (0, 10, 1, 2), (2 ** 62, 0, 2 ** 62, 1)]:
        with pytest.raises(ValueError, match="augpy.crop: crop \\(y="):
            augpy.crop(t, *args)
    with pytest.raises(TypeError, match="augpy.crop: y must be an int"):
        augpy.crop(t, 1.0, 0, 2, 2)
    with pytest.raises(ValueError, match="augpy.center_crop: size \\(0, 2\\)|augpy.center_crop: size"):
        augpy.center_crop(t, (0, 2))


def ref_center_crop(img, h, w):
    """torchvision.transforms.functional.center_crop on an (H, W, C) array: pad with zeros, then crop."""
    H, W = img.shape[:2]
    if h > H or w > W:
        pl, pt = (w - W) // 2 if w > W else 0, (h - H) // 2 if h > H else 0
        pr, pb = (w - W + 1) // 2 if w > W else 0, (h - H + 1) // 2 if h > H else 0
        img = np.pad(img, ((pt, pb), (pl, pr), (0, 0)))
        H, W = img.shape[:2]
    top, left = int(round((H - h) / 2.0)), int(round((W - w) / 2.0))
    return img[top:top + h, left:left + w]


def test_center_crop():
    rng = np.random.default_rng(13)
    for H, W in [(7, 9), (8, 8), (9, 12), (1, 1)]:
        img = rand_image(rng, (H, W, 2), "uint8")
        t = augpy.array_to_tensor(img)
        for h, w in [(2, 2), (5, 3), (3, 4), (H, W), (H + 3, W), (H, W + 4), (H + 1, W + 2), (1, 1), (10, 1)]:
            r = augpy.center_crop(t, (h, w))
            assert r.layout == "HWC"
            same(r.numpy(), ref_center_crop(img, h, w))
        same(augpy.center_crop(t, 3).numpy(), ref_center_crop(img, 3, 3))


def test_flip_batch():
    rng = np.random.default_rng(14)
    imgs = rand_image(rng, (4, 3, 5, 6), "int16")
    flags = [True, False, True, False]
    want = imgs.copy()
    want[0], want[2] = imgs[0, :, :, ::-1], imgs[2, :, :, ::-1]
    t = augpy.array_to_tensor(imgs)
    same(augpy.flip_batch(t, flags).numpy(), want)
    want_v = imgs.copy()
    want_v[0], want_v[2] = imgs[0, :, ::-1, ::-1], imgs[2, :, ::-1, ::-1]
    same(augpy.flip_batch(t, flags, True, True).numpy(), want_v)
    nhwc = augpy.array_to_tensor(np.ascontiguousarray(imgs.transpose(0, 2, 3, 1)))
    same(augpy.flip_batch(nhwc, flags, layout="NHWC").numpy(), want.transpose(0, 2, 3, 1))
    assert augpy.flip_batch(t, flags, out=t) is t  # in place
    same(t.numpy(), want)
    with pytest.raises(ValueError, match="augpy.flip_batch: 3 flags were given for a batch of 4 images"):
        augpy.flip_batch(t, flags[:3])
    with pytest.raises(ValueError, match="augpy.flip_batch: out overlaps the batch without being it"):
        augpy.flip_batch(t[:3], flags[:3], out=t[1:])
    with pytest.raises(ValueError, match="augpy.flip_batch: out \\(\\(4, 3, 5, 6\\), uint8\\) must have"):
        augpy.flip_batch(t, flags, out=augpy.zeros((4, 3, 5, 6), augpy.uint8))
    with pytest.raises(ValueError, match=r"augpy.flip_batch: layout 'HWC' is not supported \(NHWC, NCHW\)"):
        augpy.flip_batch(augpy.zeros((3, 4, 5), augpy.uint8), [1, 0, 1])


def test_next_ops_read_the_views():
    """warp_affine (HWC, any strides) and resize read flipped / cropped views as their copies."""
    rng = np.random.default_rng(15)
    img = rand_image(rng, (30, 40, 3), "uint8")
    t = augpy.array_to_tensor(img)
    m = np.array([[1.3, 0.1, 2.0], [-0.1, 1.2, 1.0]], np.float32)
    for view, ref in [(augpy.hflip(t), img[:, ::-1]), (augpy.vflip(augpy.crop(t, 4, 6, 20, 25)), img[4:24, 6:31][::-1])]:
        copy = augpy.array_to_tensor(np.ascontiguousarray(ref))
        a, b = augpy.zeros((3, 16, 16), augpy.uint8), augpy.zeros((3, 16, 16), augpy.uint8)
        augpy.warp_affine(view, a, m)
        augpy.warp_affine(copy, b, m)
        same(a.numpy(), b.numpy())
        same(augpy.resize(view, (11, 13)).numpy(), augpy.resize(copy, (11, 13)).numpy())


# ---- torchvision, recorded (data/record_resize_torchvision.py) ------------------------------------

def test_against_torchvision_recorded():
    """torchvision.transforms.v2.functional.resize on CHW tensors: antialiased bilinear and plain
    bilinear within 1 on uint8 and 1e-3 on float32 (values in [0, 256)); nearest equal (torchvision
    and OpenCV pick floor(o * in / out) alike at these sizes)."""
    import pathlib
    data = np.load(pathlib.Path(__file__).parent / "data" / "resize_torchvision.npz")
    k = 0
    while f"c{k}_u8" in data:
        h, w = (int(v) for v in data[f"c{k}_size"])
        for tag in ("u8", "f32"):
            src = augpy.array_to_tensor(data[f"c{k}_{tag}"])
            src.layout = "CHW"
            for name, interp, aa in [("bilinear_aa", "bilinear", True), ("bilinear", "bilinear", False),
                                     ("nearest", "nearest", False)]:
                want = data[f"c{k}_{tag}_{name}"]
                if name == "bilinear_aa" and w == 1:
                    # torch's antialiased interpolate (2.15) returns one value for every row when the
                    # output is one column wide; Pillow (and the definition) do not: compare with Pillow
                    mode = "F" if tag == "f32" else "L"
                    want = np.stack([np.asarray(Image.fromarray(p, mode=mode).resize((w, h), Image.BILINEAR))
                                     for p in data[f"c{k}_{tag}"]])
                got = augpy.resize(src, (h, w), interp, antialias=aa).numpy()
                tol = 0 if name == "nearest" else (1 if tag == "u8" else 1e-3)
                np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=0, atol=tol,
                                           err_msg=f"case {k} {tag} {name}")
        k += 1
    assert k == 6


@pytest.mark.parametrize("interp,aa", INTERPS)
def test_thread_count_does_not_matter(interp, aa):
    rng = np.random.default_rng(17)
    t = augpy.array_to_tensor(rand_image(rng, (301, 257, 3), "uint8"))
    results = []
    # the CPU pool's size never reaches a device's kernels: one pass there (checked against the reference)
    for threads in (0,) if ON_CUDA else (1, 3, 0):
        augpy.set_num_threads(threads)
        try:
            results.append([augpy.resize(t, size, interp, aa).numpy() for size in [(97, 131), (640, 515)]])
        finally:
            augpy.set_num_threads(0)
    for r in results[1:]:
        for a, b in zip(results[0], r):
            same(a, b)
    same(results[0][0], resizeref.resize_hwc(t.numpy(), 97, 131, interp, aa))


def test_empty_batches():
    t = augpy.zeros((0, 3, 8, 9), augpy.uint8)
    assert augpy.resize(t, (4, 5)).shape == (0, 3, 4, 5)
    assert augpy.flip_batch(t, []).shape == (0, 3, 8, 9)
