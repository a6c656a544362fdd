"""augpy.warp_affine's options (docs/warp.md): nearest interpolation, border modes,
layouts, masks, against a float64 evaluation of the definition (NumPy) and against
cv2.warpAffine with WARP_INVERSE_MAP and the same border.

The float64 reference applies the documented coordinate steps: sx = m00*X + (m01*Y + m02)
in double, then bound(sx): a clamp to [-2, W+1] for constant / replicate, fmod by the
period (2W-2 reflect, 2W symmetric) plus the period below -2 for the reflecting borders;
each neighbour index is mapped by the border; nearest reads floor(bound(sx) + 0.5)."""
import cv2
import numpy as np
import pytest

import augpy
from conftest import ALL_DTYPE_NAMES, augpy_dtype

BORDERS = ["constant", "replicate", "reflect", "symmetric"]
CV_BORDER = {"constant": cv2.BORDER_CONSTANT, "replicate": cv2.BORDER_REPLICATE,
             "reflect": cv2.BORDER_REFLECT_101, "symmetric": cv2.BORDER_REFLECT}


# ---- float64 reference --------------------------------------------------------------------------

def period(n, border):
    return {"reflect": 2 * n - 2, "symmetric": 2 * n}.get(border, 0)


def bound(v, n, border):
    p = period(n, border)
    if p == 0:
        return np.clip(v, -2.0, n + 1.0)
    r = np.fmod(v, float(p))
    return np.where(r < -2.0, r + p, r)


def index(i, n, border):
    """Source index of integer positions i (-1: outside, constant border)."""
    i = np.asarray(i, np.int64)
    inside = (i >= 0) & (i < n)
    if border == "constant":
        return np.where(inside, i, -1)
    if border == "replicate" or n == 1:
        return np.clip(i, 0, n - 1)
    p = period(n, border)
    j = np.mod(i, p)
    return np.where(j < n, j, (p - j) if border == "reflect" else (p - 1 - j))


def coords(m, Ht, Wt, s, i, j):
    m = np.asarray(m, np.float32).astype(np.float64)
    y, x = np.mgrid[0:Ht, 0:Wt].astype(np.float64)
    X, Y = x + (2 * i + 1 - s) / (2 * s), y + (2 * j + 1 - s) / (2 * s)
    return m[0, 0] * X + (m[0, 1] * Y + m[0, 2]), m[1, 0] * X + (m[1, 1] * Y + m[1, 2])


def ref_linear(src, m, shape, bg, s, border):
    """(H, W, C) -> (C, Ht, Wt) float64, the mean of s*s bilinear samples."""
    H, W, C = src.shape
    srcf = src.astype(np.float64)
    bg = np.broadcast_to(np.asarray(bg, np.float64), (C,))
    acc = np.zeros(tuple(shape) + (C,))
    for j in range(s):
        for i in range(s):
            sx, sy = coords(m, shape[0], shape[1], s, i, j)
            sx, sy = bound(sx, W, border), bound(sy, H, border)
            x0, y0 = np.floor(sx), np.floor(sy)
            fx, fy = (sx - x0)[..., None], (sy - y0)[..., None]
            x0, y0 = x0.astype(np.int64), y0.astype(np.int64)

            def nb(yy, xx):
                jx, jy = index(xx, W, border), index(yy, H, border)
                v = srcf[np.clip(jy, 0, H - 1), np.clip(jx, 0, W - 1)]
                return np.where(((jx >= 0) & (jy >= 0))[..., None], v, bg)

            acc += ((1 - fy) * ((1 - fx) * nb(y0, x0) + fx * nb(y0, x0 + 1))
                    + fy * ((1 - fx) * nb(y0 + 1, x0) + fx * nb(y0 + 1, x0 + 1)))
    return (acc / (s * s)).transpose(2, 0, 1)


def ref_nearest(src, m, shape, border):
    """(H, W, C) -> (index image (Ht, Wt) of flat source pixels, -1 outside), and the
    distance of each coordinate to a rounding boundary (for the cv2 comparison)."""
    H, W = src.shape[:2]
    sx, sy = coords(m, shape[0], shape[1], 1, 0, 0)
    bx, by = bound(sx, W, border), bound(sy, H, border)
    ix = index(np.floor(bx + 0.5).astype(np.int64), W, border)
    iy = index(np.floor(by + 0.5).astype(np.int64), H, border)
    flat = np.where((ix >= 0) & (iy >= 0), iy * W + ix, -1)
    dist = np.minimum(np.abs(sx + 0.5 - np.round(sx + 0.5)), np.abs(sy + 0.5 - np.round(sy + 0.5)))
    return flat, dist


def gather(src, flat, bg):
    """(C, Ht, Wt) values of src at flat indices, bg where -1 (src's dtype unless bg needs more)."""
    H, W, C = src.shape
    v = src.reshape(H * W, C)[np.clip(flat, 0, None)]
    return v, flat < 0


def saturate(v, name):
    if name == "bool":
        return v != 0
    dt = np.dtype(name)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return np.clip(np.rint(v), float(info.min), float(info.max))
    return v


def random_matrix(rng, scale=1.5, shift=60):
    a = rng.uniform(-scale, scale, (2, 2))
    c = rng.uniform(-shift / 2, shift, 2)
    return np.concatenate([a, c[:, None]], 1).astype(np.float32)


def to_numpy(t):
    a = t.numpy()
    return a


def warp(img, dst_shape, m, bg=None, s=1, dtype=None, **kw):
    src = augpy.array_to_tensor(np.ascontiguousarray(img))
    dt = augpy.to_augpy_dtype(img.dtype) if dtype is None else dtype
    dst = augpy.Tensor(tuple(dst_shape), dtype=dt)
    augpy.warp_affine(src, dst, m, bg, s, **kw)
    return dst


# ---- bilinear with borders -----------------------------------------------------------------------

@pytest.mark.parametrize("border", BORDERS)
@pytest.mark.parametrize("s", [1, 2, 3])
def test_linear_borders_float64_exact(border, s):
    """float64 -> float64 takes the exact (double) kernel: equal to the reference up to
    the order of the s*s sum (1e-12 relative)."""
    rng = np.random.default_rng(11 + s)
    for H, W, Ht, Wt in [(13, 17, 21, 19), (1, 9, 7, 5), (6, 1, 5, 8), (1, 1, 3, 3)]:
        img = rng.uniform(-100, 100, (H, W, 3))
        m = random_matrix(rng, 2.0, 40)
        out = warp(img, (3, Ht, Wt), m, [1.5, -2, 7], s, border=border).numpy()
        np.testing.assert_allclose(out, ref_linear(img, m, (Ht, Wt), [1.5, -2, 7], s, border), rtol=1e-12,
                                   atol=1e-9)


@pytest.mark.parametrize("border", BORDERS)
@pytest.mark.parametrize("s", [1, 2, 3])
def test_linear_borders_uint8_and_float32(border, s):
    """uint8 (fixed point) within +-1 of the rounded float64 value; float32 within 1e-5 relative."""
    rng = np.random.default_rng(21 + s)
    for H, W, Ht, Wt in [(31, 23, 29, 37), (5, 3, 11, 13), (2, 2, 9, 7)]:
        img = rng.integers(0, 256, (H, W, 4), dtype=np.uint8)
        m = random_matrix(rng, 1.5, max(H, W) * 2)
        ref = ref_linear(img, m, (Ht, Wt), [10, 250, 0, 77], s, border)
        out = warp(img, (4, Ht, Wt), m, [10, 250, 0, 77], s, border=border).numpy().astype(int)
        assert np.abs(out - np.clip(np.floor(ref + 0.5), 0, 255)).max() <= 1
        f = img.astype(np.float32) / 3
        out = warp(f, (4, Ht, Wt), m, [10, 250, 0, 77], s, border=border).numpy()
        np.testing.assert_allclose(out, ref_linear(f, m, (Ht, Wt), [10, 250, 0, 77], s, border), rtol=1e-5,
                                   atol=1e-4)


@pytest.mark.parametrize("border", BORDERS)
@pytest.mark.parametrize("channels", [1, 3, 4])
def test_linear_borders_vs_opencv(border, channels):
    """OpenCV 5.0 (the test environment's cv2) agrees on a smooth image within +-1 for uint8 (about
    0.1% of the values differ by 1; 4.x, which rounds positions to 1/32 px, also gives rare 2s)
    and within 0.05 for float32 (values 0..255; measured up to 0.004)."""
    rng = np.random.default_rng(channels)
    img = cv2.GaussianBlur(rng.integers(0, 256, (61, 83, channels), dtype=np.uint8), (7, 7), 2.0)
    img = img.reshape(61, 83, channels)
    for it in range(4):
        m = random_matrix(rng, 1.3, 150)
        bg = [float(v) for v in rng.integers(0, 256, channels)]
        cvo = cv2.warpAffine(img, m, (71, 53), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                             borderMode=CV_BORDER[border], borderValue=tuple(bg)).reshape(53, 71, channels)
        out = warp(img, (channels, 53, 71), m, bg, 1, border=border).numpy().transpose(1, 2, 0).astype(int)
        d = np.abs(out - cvo)
        assert d.max() <= 1 and (d == 1).mean() < 1e-2
        f = img.astype(np.float32)
        cvf = cv2.warpAffine(f, m, (71, 53), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                             borderMode=CV_BORDER[border], borderValue=tuple(bg)).reshape(53, 71, channels)
        outf = warp(f, (channels, 53, 71), m, bg, 1, border=border).numpy().transpose(1, 2, 0)
        assert np.abs(outf - cvf).max() <= 0.05


def test_linear_border_ignores_nonbyte_background():
    """Non-constant borders never read the background: a NaN-free but non-byte one changes nothing."""
    rng = np.random.default_rng(3)
    img = rng.integers(0, 256, (9, 11, 3), dtype=np.uint8)
    m = random_matrix(rng, 1.2, 30)
    for border in BORDERS[1:]:
        a = warp(img, (3, 12, 10), m, [0.5, 1e9, -7], 2, border=border).numpy()
        b = warp(img, (3, 12, 10), m, None, 2, border=border).numpy()
        np.testing.assert_array_equal(a, b)


def test_reflect_far_outside():
    """Far outside the source the reflecting borders repeat with their period (the fmod step)."""
    img = np.arange(5 * 4, dtype=np.float64).reshape(5, 4, 1)
    for border, p in (("reflect", 6), ("symmetric", 8)):
        m0 = np.array([[1, 0, 0.25], [0, 1, 0.5]], np.float32)
        far = m0.copy()
        far[0, 2] += 1000 * p
        far[1, 2] -= 700 * 2 * (5 - 1 if border == "reflect" else 5)
        a = warp(img, (1, 9, 9), m0, None, 1, border=border).numpy()
        b = warp(img, (1, 9, 9), far, None, 1, border=border).numpy()
        np.testing.assert_array_equal(a, b)
        np.testing.assert_allclose(a, ref_linear(img, m0, (9, 9), 0, 1, border), rtol=1e-12)


# ---- nearest ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ALL_DTYPE_NAMES)
@pytest.mark.parametrize("border", BORDERS)
def test_nearest_every_dtype_exact(name, border):
    """Nearest copies source values exactly (no blend, no detour through double: int64 and
    uint64 extremes survive); outside pixels take saturate_cast(background)."""
    rng = np.random.default_rng(len(name))
    dt = np.dtype(name) if name not in ("bfloat16",) else None
    if dt is None:
        pytest.skip("bfloat16 has no NumPy dtype here")
    H, W = 11, 7
    if dt.kind in "iu":
        info = np.iinfo(dt)
        img = rng.integers(info.min, info.max, (H, W, 2), dtype=dt, endpoint=True)
        img[0, 0, 0], img[1, 1, 1] = info.min, info.max
    elif dt.kind == "b":
        img = rng.integers(0, 2, (H, W, 2)).astype(bool)
    else:
        img = rng.standard_normal((H, W, 2)).astype(dt) * 1000
    for it in range(3):
        m = random_matrix(rng, 1.5, 20)
        flat, _ = ref_nearest(img, m, (9, 13), border)
        v, outside = gather(img, flat, None)
        out = warp(img, (2, 9, 13), m, 5, 3, interpolation="nearest", border=border).numpy()
        want = np.where(outside[..., None], np.array(5).astype(img.dtype), v).transpose(2, 0, 1)
        np.testing.assert_array_equal(out, want)


def test_nearest_dtype_conversion_saturates():
    img = np.array([[[-5], [300]], [[70000], [1 << 40]]], np.int64)
    m = np.array([[1, 0, 0], [0, 1, 0]], np.float32)
    out = warp(img, (1, 3, 3), m, -1, 1, dtype=augpy.uint16, interpolation="nearest").numpy()
    np.testing.assert_array_equal(out[0], [[0, 300, 0], [65535, 65535, 0], [0, 0, 0]])
    out = warp(img, (1, 2, 2), m, 1e9, 1, dtype=augpy.float32, interpolation="nearest").numpy()
    np.testing.assert_array_equal(out[0], np.float32([[-5, 300], [70000, 1 << 40]]))


@pytest.mark.parametrize("border", BORDERS)
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int32, np.float32])
def test_nearest_vs_opencv(border, dtype):
    """cv2 (5.0) computes nearest positions in float32 for 8U/16U/32F and in 1/1024 px fixed point
    for 32S: equal everywhere except coordinates within 2^-9 px of a rounding boundary."""
    rng = np.random.default_rng(7)
    H, W = 37, 53
    img = (np.arange(H * W * 2) % (251 if dtype == np.uint8 else 65521)).astype(dtype).reshape(H, W, 2)
    for it in range(20):
        m = random_matrix(rng, 1.5, 80)
        cvo = cv2.warpAffine(img, m, (47, 41), flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP,
                             borderMode=CV_BORDER[border], borderValue=(7, 9))
        out = warp(img, (41, 47, 2), m, [7, 9], 1, interpolation="nearest", border=border, layout="HWC").numpy()
        _, dist = ref_nearest(img, m, (41, 47), border)
        ok = dist > 2.0 ** -9
        np.testing.assert_array_equal(out[ok], cvo[ok])
        assert ok.mean() > 0.98


def test_opencv_int32_nearest_rule():
    """The fixed-point rule docs/warp.md quotes for cv2's 32S nearest warp (OpenCV's
    WarpAffineInvoker, AB_BITS = 10) reproduces cv2 exactly: what the 2^-9 px margin of
    test_nearest_vs_opencv covers."""
    rng = np.random.default_rng(3)
    H, W = 37, 53
    idx = np.arange(H * W, dtype=np.int32).reshape(H, W)
    for it in range(30):
        m = random_matrix(rng, 1.5, 60)
        out = cv2.warpAffine(idx, m, (47, 41), flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP,
                             borderMode=cv2.BORDER_CONSTANT, borderValue=-1)
        md = m.astype(np.float64)
        y, x = np.mgrid[0:41, 0:47]
        ix = (np.rint((md[0, 1] * y + md[0, 2]) * 1024).astype(np.int64) + 512
              + np.rint(md[0, 0] * x * 1024).astype(np.int64)) >> 10
        iy = (np.rint((md[1, 1] * y + md[1, 2]) * 1024).astype(np.int64) + 512
              + np.rint(md[1, 0] * x * 1024).astype(np.int64)) >> 10
        inside = (ix >= 0) & (ix < W) & (iy >= 0) & (iy < H)
        np.testing.assert_array_equal(out, np.where(inside, idx[np.clip(iy, 0, H - 1), np.clip(ix, 0, W - 1)], -1))


def test_nearest_ignores_supersampling_and_never_blends():
    rng = np.random.default_rng(5)
    img = rng.integers(0, 4, (20, 30, 1), dtype=np.uint8) * 60
    m = np.array([[2.3, 0.4, 1.0], [-0.3, 2.1, 2.5]], np.float32)
    outs = [warp(img, (1, 9, 12), m, 0, s, interpolation="nearest").numpy() for s in (1, 2, 16)]
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(outs[0], outs[2])
    assert set(np.unique(outs[0])) <= {0, 60, 120, 180}


# ---- masks (issue 17) -------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.int64])
def test_mask_ignore_index(dtype):
    """An (H, W) label mask warped with nearest and background=ignore_index into (Ht, Wt)."""
    rng = np.random.default_rng(9)
    mask = rng.integers(0, 21, (64, 48)).astype(dtype)
    ignore = 255 if dtype == np.uint8 else -1
    m, _ = augpy.make_transform((64, 48), (40, 40), angle=25, scale=0.8)
    src = augpy.array_to_tensor(mask)
    dst = augpy.Tensor((40, 40), dtype=augpy.to_augpy_dtype(mask.dtype))
    augpy.warp_affine(src, dst, m, background=ignore, interpolation="nearest")
    assert dst.layout == "HW"
    out = dst.numpy()
    flat, dist = ref_nearest(mask[..., None], m, (40, 40), "constant")
    want = np.where(flat < 0, ignore, mask.reshape(-1)[np.clip(flat, 0, None)]).astype(dtype)
    np.testing.assert_array_equal(out, want)
    assert (out == ignore).any() and set(np.unique(out)) <= set(range(21)) | {ignore}
    if dtype != np.int64:
        cvo = cv2.warpAffine(mask, m, (40, 40), flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP,
                             borderMode=cv2.BORDER_CONSTANT, borderValue=ignore)
        ok = dist > 2.0 ** -9
        np.testing.assert_array_equal(out[ok], cvo[ok])


# ---- layouts -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("interpolation", ["linear", "nearest"])
def test_layouts_agree(interpolation):
    rng = np.random.default_rng(13)
    img = rng.integers(0, 256, (19, 23, 3), dtype=np.uint8)
    m = random_matrix(rng, 1.4, 30)
    kw = dict(interpolation=interpolation, border="reflect")
    base = warp(img, (3, 17, 15), m, [1, 2, 3], 2, **kw)
    assert base.layout == "CHW"
    ref = base.numpy()
    hwc = warp(img, (17, 15, 3), m, [1, 2, 3], 2, layout="HWC", **kw)
    assert hwc.layout == "HWC"
    np.testing.assert_array_equal(hwc.numpy().transpose(2, 0, 1), ref)
    # a CHW source: explicit, and from the tensor's layout string
    chw = augpy.array_to_tensor(np.ascontiguousarray(img.transpose(2, 0, 1)))
    d = augpy.Tensor((3, 17, 15), dtype=augpy.uint8)
    augpy.warp_affine(chw, d, m, [1, 2, 3], 2, src_layout="CHW", **kw)
    np.testing.assert_array_equal(d.numpy(), ref)
    chw.layout = "CHW"
    augpy.warp_affine(chw, d, m, [1, 2, 3], 2, **kw)
    np.testing.assert_array_equal(d.numpy(), ref)
    # a single channel as (H, W) in and out
    d1 = augpy.Tensor((17, 15), dtype=augpy.uint8)
    augpy.warp_affine(augpy.array_to_tensor(np.ascontiguousarray(img[..., 1])), d1, m, 2, 2, **kw)
    assert d1.layout == "HW"
    np.testing.assert_array_equal(d1.numpy(), ref[1])


def test_warp_twice():
    """A warp's CHW output (layout "CHW") is a valid source: two integer translations equal
    the composed one exactly (every sample inside, weights 0 and 1)."""
    rng = np.random.default_rng(17)
    img = rng.uniform(0, 1, (32, 40, 3)).astype(np.float32)
    m1 = np.array([[1, 0, 3], [0, 1, 2]], np.float32)
    m2 = np.array([[1, 0, 4], [0, 1, 1]], np.float32)
    first = warp(img, (3, 30, 30), m1, 0, 1)
    assert first.layout == "CHW"
    second = augpy.Tensor((3, 20, 20), dtype=augpy.float32)
    augpy.warp_affine(first, second, m2, 0, 1)
    direct = warp(img, (3, 20, 20), np.array([[1, 0, 7], [0, 1, 3]], np.float32), 0, 1)
    np.testing.assert_array_equal(second.numpy(), direct.numpy())


@pytest.mark.parametrize("border", ["constant", "symmetric"])
def test_batch_layouts(border):
    rng = np.random.default_rng(19)
    imgs = [rng.integers(0, 256, (h, w, 3), dtype=np.uint8) for h, w in ((20, 30), (33, 17), (8, 9))]
    ms = np.stack([random_matrix(rng, 1.2, 25) for _ in imgs])
    srcs = [augpy.array_to_tensor(i) for i in imgs]
    for interp in ("linear", "nearest"):
        nchw = augpy.Tensor((3, 3, 11, 13), dtype=augpy.uint8)
        augpy.warp_affine(srcs, nchw, ms, [5, 6, 7], [1, 2, 3], interpolation=interp, border=border)
        nhwc = augpy.Tensor((3, 11, 13, 3), dtype=augpy.uint8)
        augpy.warp_affine(srcs, nhwc, ms, [5, 6, 7], [1, 2, 3], interpolation=interp, border=border,
                          layout="NHWC")
        assert nchw.layout == "NCHW" and nhwc.layout == "NHWC"
        np.testing.assert_array_equal(nhwc.numpy().transpose(0, 3, 1, 2), nchw.numpy())
        for i, img in enumerate(imgs):
            single = warp(img, (3, 11, 13), ms[i], [5, 6, 7], i + 1, interpolation=interp, border=border)
            np.testing.assert_array_equal(nchw.numpy()[i], single.numpy())
    # an NCHW source batch (one tensor) equals the NHWC one
    same = [rng.integers(0, 256, (12, 14, 3), dtype=np.uint8) for _ in range(2)]
    nhwc_src = augpy.array_to_tensor(np.stack(same))
    nchw_src = augpy.array_to_tensor(np.ascontiguousarray(np.stack(same).transpose(0, 3, 1, 2)))
    a = augpy.Tensor((2, 3, 9, 9), dtype=augpy.uint8)
    b = augpy.Tensor((2, 3, 9, 9), dtype=augpy.uint8)
    augpy.warp_affine(nhwc_src, a, ms[:2], 0, 1, border=border)
    augpy.warp_affine(nchw_src, b, ms[:2], 0, 1, border=border, src_layout="NCHW")
    np.testing.assert_array_equal(a.numpy(), b.numpy())


# ---- bad input ---------------------------------------------------------------------------------------

def test_options_bad_input():
    img = augpy.array_to_tensor(np.zeros((10, 10, 3), np.uint8))
    dst = augpy.Tensor((3, 8, 8), dtype=augpy.uint8)
    eye = [[1, 0, 0], [0, 1, 0]]
    with pytest.raises(ValueError, match="augpy.warp_affine: unknown interpolation 'lanczos'"):
        augpy.warp_affine(img, dst, eye, interpolation="lanczos")
    with pytest.raises(ValueError, match="augpy.warp_affine: unknown border 'wrap'"):
        augpy.warp_affine(img, dst, eye, border="wrap")
    with pytest.raises(TypeError, match="augpy.warp_affine: border must be a str"):
        augpy.warp_affine(img, dst, eye, border=1)
    with pytest.raises(TypeError, match="augpy.warp_affine: interpolation must be a str"):
        augpy.warp_affine(img, dst, eye, interpolation=0)
    with pytest.raises(ValueError,
                       match=r"augpy.warp_affine: interpolation 'area' is not supported \(linear, nearest, cubic\)"):
        augpy.warp_affine(img, dst, eye, interpolation="area")
    with pytest.raises(ValueError, match=r"augpy.warp_affine: layout 'WHC' is not supported \(CHW, HWC\)"):
        augpy.warp_affine(img, dst, eye, layout="WHC")
    with pytest.raises(ValueError, match=r"augpy.warp_affine: layout 'NCHW' is not supported \(CHW, HWC\)"):
        augpy.warp_affine(img, dst, eye, layout="NCHW")
    with pytest.raises(ValueError, match=r"augpy.warp_affine: layout 'CHW' is not supported \(NCHW, NHWC\)"):
        augpy.warp_affine([img], augpy.Tensor((1, 3, 8, 8), dtype=augpy.uint8), [eye], layout="CHW")
    with pytest.raises(ValueError, match=r"augpy.warp_affine: src_layout 'NHWC' is not supported \(CHW, HWC\)"):
        augpy.warp_affine(img, dst, eye, src_layout="NHWC")
    # the tensor's layout string contradicts the option
    chw = augpy.array_to_tensor(np.zeros((3, 10, 10), np.uint8))
    chw.layout = "CHW"
    with pytest.raises(ValueError, match='augpy.warp_affine: src image 0 has layout "CHW" but the options ask for HWC'):
        augpy.warp_affine(chw, dst, eye, src_layout="HWC")
    img.layout = "HWC"
    with pytest.raises(ValueError, match='has layout "HWC" but the options ask for CHW'):
        augpy.warp_affine(img, dst, eye, src_layout="CHW")
    # a layout that makes the channel counts disagree
    with pytest.raises(ValueError, match="augpy.warp_affine: src image 0 has 3 channels but dst has 8"):
        augpy.warp_affine(img, dst, eye, layout="HWC")
    # wrong ranks
    with pytest.raises(ValueError, match=r"augpy.warp_affine: src must be \(H, W, C\), \(C, H, W\) or \(H, W\)"):
        augpy.warp_affine(augpy.array_to_tensor(np.zeros(10, np.uint8)), dst, eye)
    with pytest.raises(ValueError, match=r"augpy.warp_affine: dst must be \(H, W, C\) or \(H, W\)"):
        augpy.warp_affine(img, augpy.Tensor((8,), dtype=augpy.uint8), eye, layout="HWC")
    with pytest.raises(ValueError, match=r"augpy.warp_affine: dst must be \(N, C, H, W\) or \(N, H, W\)"):
        augpy.warp_affine([img], augpy.Tensor((1, 1, 3, 8, 8), dtype=augpy.uint8), [eye])
    # a 2-D output needs one channel
    with pytest.raises(ValueError, match="augpy.warp_affine: src image 0 has 3 channels but dst has 1"):
        augpy.warp_affine(img, augpy.Tensor((8, 8), dtype=augpy.uint8), eye)
    # the options are keyword-only
    with pytest.raises(TypeError, match="positional arguments"):
        augpy.warp_affine(img, dst, eye, None, 1, "nearest")
    # names are case-insensitive, with the documented aliases
    for name in ("NEAREST", "Linear", "bilinear"):
        augpy.warp_affine(img, dst, eye, interpolation=name)
    for name in ("Edge", "REFLECT_101", "reflect101", "Symmetric"):
        augpy.warp_affine(img, dst, eye, border=name)


def test_options_no_leaks():
    """Repeated calls with options, good and bad, do not grow Python allocations."""
    import gc
    import tracemalloc

    img = augpy.array_to_tensor(np.zeros((20, 20, 3), np.uint8))
    mask = augpy.array_to_tensor(np.zeros((20, 20), np.int32))
    dst = augpy.Tensor((8, 8, 3), dtype=augpy.uint8)
    dm = augpy.Tensor((2, 8, 8), dtype=augpy.int32)
    eye = np.eye(2, 3, dtype=np.float32)

    def calls():
        augpy.warp_affine(img, dst, eye, [1, 2, 3], 2, border="reflect", layout="HWC")
        augpy.warp_affine([mask, mask], dm, np.stack([eye, eye]), -1, interpolation="nearest")
        for bad in (lambda: augpy.warp_affine(img, dst, eye, border="wrap"),
                    lambda: augpy.warp_affine(img, dst, eye, interpolation=3),
                    lambda: augpy.warp_affine(img, dst, eye, layout="NHWC"),
                    lambda: augpy.warp_affine([img], dm, [eye], src_layout="CHW")):
            try:
                bad()
            except (ValueError, TypeError):
                pass

    for _ in range(200):
        calls()
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    for _ in range(2000):
        calls()
    gc.collect()
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    grown = sum(s.size_diff for s in after.compare_to(before, "filename") if s.size_diff > 0)
    assert grown < 64 * 1024, grown
