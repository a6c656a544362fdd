"""augpy.make_affine_matrix / make_transform / warp_affine / WarpScaleMode (semantics §13).

References are independent of augpy: the matrix formula written with NumPy
(composing 3x3 matrices), cv2.warpAffine with WARP_INVERSE_MAP for s = 1, and a
NumPy float64 implementation of the semantics §13 definition (supersampling, bilinear,
background per neighbour) for every dtype and s > 1.
"""
import math
import pickle

import cv2
import numpy as np
import pytest

import augpy
from conftest import ALL_DTYPE_NAMES, HAVE_ML_DTYPES, augpy_dtype

SEED = [[2.1103022, -0.37210324, 125.3217], [0.37210324, 2.1103022, -38.029423]]


# ---- references --------------------------------------------------------------------------

def ref_matrix(src, dst, angle=0.0, scale=1.0, aspect=1.0, shift=(0.0, 0.0), shear=(0.0, 0.0),
               hmirror=False, vmirror=False, longest=False, max_ss=3):
    sh, sw = src[0] / 2, src[1] / 2
    th, tw = dst[0] / 2, dst[1] / 2
    r = (max if longest else min)(sh / th, sw / tw) / scale
    wd, hd = abs(sw - tw * r), abs(sh - th * r)
    phi = -angle * math.pi / 180
    c, s = math.cos(phi), math.sin(phi)

    def T(x, y):
        return np.array([[1, 0, x], [0, 1, y], [0, 0, 1]], float)

    R = np.array([[c, s, 0], [-s, c, 0], [0, 0, 1]])
    D = np.diag([r * aspect * (-1 if hmirror else 1), r / aspect * (-1 if vmirror else 1), 1.0])
    S = np.array([[1, shear[1], 0], [shear[0], 1, 0], [0, 0, 1]], float)
    M = T(sw + wd * shift[1], sh + hd * shift[0]) @ R @ D @ S @ T(-tw, -th)
    return M[:2], max(1, min(max_ss, math.ceil(r)))


def ref_warp(src, m, shape, bg, s):
    """float64 semantics §13 definition: src (H, W, C) -> (C, Ht, Wt) float64 values (unrounded)."""
    H, W, C = src.shape
    Ht, Wt = shape
    srcf = src.astype(np.float64)
    m = np.asarray(m, np.float64)
    bg = np.asarray(bg, np.float64).reshape(C)
    y, x = np.mgrid[0:Ht, 0:Wt].astype(np.float64)
    o = (s - 1) / (2 * s)
    acc = np.zeros((Ht, Wt, C))
    for j in range(s):
        for i in range(s):
            X, Y = x - o + i / s, y - o + j / s
            sx = m[0, 0] * X + m[0, 1] * Y + m[0, 2]
            sy = m[1, 0] * X + m[1, 1] * Y + m[1, 2]
            x0, y0 = np.floor(sx), np.floor(sy)
            fx, fy = (sx - x0)[..., None], (sy - y0)[..., None]
            x0, y0 = x0.astype(np.int64), y0.astype(np.int64)

            def nb(yy, xx):
                inside = (xx >= 0) & (xx < W) & (yy >= 0) & (yy < H)
                v = srcf[np.clip(yy, 0, H - 1), np.clip(xx, 0, W - 1)]
                return np.where(inside[..., None], v, bg)

            acc += ((1 - fy) * ((1 - fx) * nb(y0, x0) + fx * nb(y0, x0 + 1))
                    + fy * ((1 - fx) * nb(y0 + 1, x0) + fx * nb(y0 + 1, x0 + 1)))
    return (acc / (s * s)).transpose(2, 0, 1)


def saturate(v, name):
    """saturate_cast of float64 values to dtype `name` (round half to even)."""
    if name == "bool":
        return v != 0
    dt = np.dtype(name)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return np.clip(np.rint(v), float(info.min), float(info.max))
    return v


def smooth_image(rng, h, w, c, dtype=np.uint8):
    img = rng.integers(0, 256, (h, w, c), dtype=np.uint8)
    img = cv2.GaussianBlur(img, (7, 7), 2.0)
    if img.ndim == 2:
        img = img[..., None]
    return img.astype(dtype)


def cv_warp(img, m, shape, bg):
    out = cv2.warpAffine(img, np.asarray(m, np.float32), (shape[1], shape[0]),
                         flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=tuple(float(b) for b in bg))
    if out.ndim == 2:
        out = out[..., None]
    return out.transpose(2, 0, 1)


def warp(img, shape, m, bg=None, s=1, dtype=None):
    src = augpy.array_to_tensor(np.ascontiguousarray(img))
    dt = augpy.to_augpy_dtype(img.dtype) if dtype is None else dtype
    dst = augpy.Tensor((img.shape[2],) + tuple(shape), dtype=dt)
    augpy.warp_affine(src, dst, m, bg, s)
    return dst


# ---- matrices ------------------------------------------------------------------------------

def test_seed_matrix():
    m, s = augpy.make_transform((480, 640), (224, 224), angle=10)
    assert m.dtype == np.float32 and m.shape == (2, 3)
    np.testing.assert_allclose(m, SEED, rtol=5e-7)
    assert s == 3
    out = np.zeros((2, 3), np.float32)
    assert augpy.make_affine_matrix(out, 480, 640, 224, 224, 10.0) == 3
    np.testing.assert_array_equal(out, m)
    # the manual's example: img.shape[:2] and warped.shape[1:]
    warped = augpy.Tensor((3, 224, 224))
    m2, _ = augpy.make_transform(np.zeros((480, 640, 3)).shape[:2], warped.shape[1:], angle=10)
    np.testing.assert_array_equal(m2, m)


def test_make_transform_vs_reference():
    rng = np.random.default_rng(7)
    for it in range(300):
        src = tuple(int(v) for v in rng.integers(1, 1000, 2))
        dst = tuple(int(v) for v in rng.integers(1, 500, 2))
        kw = dict(angle=float(rng.uniform(-360, 360)), scale=float(rng.uniform(0.2, 3)),
                  aspect=float(rng.uniform(0.5, 2)), shift=tuple(rng.uniform(-1, 1, 2)),
                  shear=tuple(rng.uniform(-0.5, 0.5, 2)), hmirror=bool(rng.integers(2)),
                  vmirror=bool(rng.integers(2)))
        longest = bool(rng.integers(2))
        max_ss = int(rng.integers(1, 6))
        mode = [("shortest", "longest"), (augpy.WARP_SCALE_SHORTEST, augpy.WARP_SCALE_LONGEST),
                (0, 1), ("SHORTEST", "Longest")][it % 4][int(longest)]
        m, s = augpy.make_transform(src, dst, scale_mode=mode, max_supersampling=max_ss, **kw)
        want, want_s = ref_matrix(src, dst, longest=longest, max_ss=max_ss, **kw)
        np.testing.assert_allclose(m, want, rtol=1e-6, atol=1e-6 * (src[0] + src[1]))
        assert s == want_s
        # make_affine_matrix with the same parameters writes the same matrix
        out = np.empty((2, 3), np.float32)
        s2 = augpy.make_affine_matrix(out, src[0], src[1], dst[0], dst[1], kw["angle"], kw["scale"], kw["aspect"],
                                      kw["shift"][0], kw["shift"][1], kw["shear"][0], kw["shear"][1],
                                      kw["hmirror"], kw["vmirror"], augpy.WarpScaleMode(int(longest)), max_ss)
        np.testing.assert_array_equal(out, m)
        assert s2 == s


def test_supersampling_recommendation():
    assert augpy.make_transform((100, 100), (100, 100))[1] == 1
    assert augpy.make_transform((200, 200), (100, 100))[1] == 2
    assert augpy.make_transform((201, 200), (100, 100), scale_mode="longest")[1] == 3
    assert augpy.make_transform((1000, 1000), (100, 100))[1] == 3
    assert augpy.make_transform((1000, 1000), (100, 100), max_supersampling=7)[1] == 7
    assert augpy.make_transform((1000, 1000), (100, 100), scale=10)[1] == 1
    assert augpy.make_transform((1000, 1000), (100, 100), scale=-1)[1] == 1  # r < 0


def test_make_transform_out_and_kwargs():
    out = np.zeros((2, 3), np.float32)
    m, s = augpy.make_transform((480, 640), (224, 224), angle=10, out=out)
    assert m is out
    np.testing.assert_allclose(out, SEED, rtol=5e-7)
    aug = {"angle": 10, "scale": 1, "shift": (0, 0)}
    m2, _ = augpy.make_transform((480, 640), (224, 224), **aug)
    np.testing.assert_array_equal(m2, out)
    # an unknown keyword is a TypeError naming it (it was once ignored: rotation=30 gave the identity)
    for kw in ({"rotation": 30}, {"gammagray": 1.2}, {"noise": 0.3}):
        with pytest.raises(TypeError, match=f"augpy.make_transform\\(\\) got an unexpected keyword argument "
                                            f"'{next(iter(kw))}'"):
            augpy.make_transform((480, 640), (224, 224), angle=10, **kw)
    # a strided float32 view works too
    big = np.zeros((2, 6), np.float32)
    augpy.make_affine_matrix(big[:, ::2], 480, 640, 224, 224, angle=10)
    np.testing.assert_array_equal(big[:, ::2], out)


def test_warp_scale_mode_enum():
    W = augpy.WarpScaleMode
    assert W(0) is W.WARP_SCALE_SHORTEST is augpy.WARP_SCALE_SHORTEST
    assert W(1) is W.WARP_SCALE_LONGEST is augpy.WARP_SCALE_LONGEST
    assert int(W.WARP_SCALE_LONGEST) == 1 and W.WARP_SCALE_LONGEST.value == 1
    assert W.WARP_SCALE_SHORTEST.name == "WARP_SCALE_SHORTEST"
    assert W.WARP_SCALE_SHORTEST == 0 and W.WARP_SCALE_SHORTEST != W.WARP_SCALE_LONGEST
    assert repr(W.WARP_SCALE_LONGEST) == "<WarpScaleMode.WARP_SCALE_LONGEST: 1>"
    assert str(W.WARP_SCALE_SHORTEST) == "WarpScaleMode.WARP_SCALE_SHORTEST"
    assert set(W.__members__) == {"WARP_SCALE_SHORTEST", "WARP_SCALE_LONGEST"}
    assert pickle.loads(pickle.dumps(W.WARP_SCALE_LONGEST)) is W.WARP_SCALE_LONGEST
    assert hash(W(1)) == hash(W.WARP_SCALE_LONGEST)
    with pytest.raises(ValueError, match="WarpScaleMode"):
        W(2)
    with pytest.raises(TypeError, match="WarpScaleMode"):
        W("shortest")


def test_matrix_bad_input():
    out = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="make_transform.*scale"):
        augpy.make_transform((10, 10), (10, 10), scale=0)
    with pytest.raises(ValueError, match="make_transform.*aspect"):
        augpy.make_transform((10, 10), (10, 10), aspect=0)
    with pytest.raises(ValueError, match="make_transform.*angle"):
        augpy.make_transform((10, 10), (10, 10), angle=float("nan"))
    with pytest.raises(ValueError, match="make_affine_matrix.*source size"):
        augpy.make_affine_matrix(out, 0, 10, 10, 10)
    with pytest.raises(ValueError, match="make_transform.*target size"):
        augpy.make_transform((10, 10), (10, -3))
    with pytest.raises(ValueError, match="max_supersampling"):
        augpy.make_transform((10, 10), (10, 10), max_supersampling=0)
    with pytest.raises(ValueError, match="make_transform.*scale_mode"):
        augpy.make_transform((10, 10), (10, 10), scale_mode="middle")
    with pytest.raises(TypeError, match="make_transform.*scale_mode"):
        augpy.make_transform((10, 10), (10, 10), scale_mode=1.5)
    with pytest.raises(ValueError, match="make_transform.*source_size"):
        augpy.make_transform((10, 10, 3), (10, 10))
    with pytest.raises(TypeError, match="make_transform.*source_size"):
        augpy.make_transform(10, (10, 10))
    with pytest.raises(TypeError, match="make_transform.*shift"):
        augpy.make_transform((10, 10), (10, 10), shift="ab")
    with pytest.raises(ValueError, match="make_affine_matrix.*shape \\(2, 3\\)"):
        augpy.make_affine_matrix(np.zeros((3, 2), np.float32), 10, 10, 10, 10)
    with pytest.raises(TypeError, match="make_affine_matrix.*float32"):
        augpy.make_affine_matrix(np.zeros((2, 3), np.float64), 10, 10, 10, 10)
    ro = np.zeros((2, 3), np.float32)
    ro.flags.writeable = False
    with pytest.raises((TypeError, ValueError), match="make_affine_matrix"):
        augpy.make_affine_matrix(ro, 10, 10, 10, 10)
    with pytest.raises(TypeError, match="make_affine_matrix.*source_height"):
        augpy.make_affine_matrix(out, 10.5, 10, 10, 10)
    with pytest.raises(TypeError, match="make_affine_matrix"):
        augpy.make_affine_matrix(out, 10, 10, 10)
    with pytest.raises(TypeError, match="unexpected keyword"):
        augpy.make_affine_matrix(out, 10, 10, 10, 10, bogus=1)


# ---- warp vs OpenCV (s = 1, uint8) ----------------------------------------------------------------

CV_CASES = [
    dict(angle=10),
    dict(angle=-73, scale=0.7),
    dict(angle=180, hmirror=True),
    dict(vmirror=True, hmirror=True, angle=45),
    dict(shear=(0.2, -0.3), angle=5),
    dict(scale=2.5, shift=(0.5, -0.8)),          # upscaling
    dict(scale=0.3, scale_mode="longest"),       # strong downscaling, lots of background
    dict(aspect=1.7, angle=-20, shift=(-1, 1)),
]


@pytest.mark.parametrize("kw", CV_CASES)
@pytest.mark.parametrize("channels", [1, 3, 4])
def test_warp_uint8_vs_opencv(kw, channels):
    rng = np.random.default_rng(channels)
    img = smooth_image(rng, 240, 320, channels)
    shape = (160, 176)
    bg = [124, 116, 104, 7][:channels]
    m, _ = augpy.make_transform(img.shape[:2], shape, **kw)
    got = warp(img, shape, m, bg).numpy().astype(int)
    d = np.abs(got - cv_warp(img, m, shape, bg).astype(int))
    # OpenCV rounds positions to 1/32 px: +-1 on >= 99.99% of values, +-2 elsewhere (semantics §13)
    assert d.max() <= 2
    assert (d > 1).mean() <= 1e-4
    # and within +-1 of the exact float64 evaluation everywhere
    exact = saturate(ref_warp(img, m, shape, bg, 1), "uint8")
    assert np.abs(got - exact).max() <= 1


def test_warp_seed_example_vs_opencv():
    rng = np.random.default_rng(0)
    img = smooth_image(rng, 480, 640, 3)
    bg = np.array([124, 116, 104], np.uint8)
    warped = augpy.Tensor((3, 224, 224))
    m, s = augpy.make_transform(img.shape[:2], warped.shape[1:], angle=10)
    augpy.warp_affine(augpy.array_to_tensor(img), warped, m, augpy.array_to_tensor(bg), 1)
    assert warped.layout == "CHW"
    d = np.abs(warped.numpy().astype(int) - cv_warp(img, m, (224, 224), bg))
    assert d.max() <= 2 and (d > 1).mean() <= 1e-4


# ---- warp vs the float64 definition --------------------------------------------------------------

@pytest.mark.parametrize("s", [2, 3, 4])
@pytest.mark.parametrize("channels", [1, 3, 5])
def test_warp_supersampling_uint8(s, channels):
    rng = np.random.default_rng(s * 10 + channels)
    img = rng.integers(0, 256, (50, 70, channels), dtype=np.uint8)   # noise: the hardest case
    shape = (23, 31)
    bg = list(rng.integers(0, 256, channels))
    m, _ = augpy.make_transform(img.shape[:2], shape, angle=33, shear=(0.1, 0.05), hmirror=True, scale=0.8)
    got = warp(img, shape, m, bg, s).numpy().astype(float)
    exact = saturate(ref_warp(img, m, shape, bg, s), "uint8")
    assert np.abs(got - exact).max() <= 1


@pytest.mark.parametrize("name", ALL_DTYPE_NAMES)
@pytest.mark.parametrize("s", [1, 2])
def test_warp_every_dtype(name, s):
    rng = np.random.default_rng(3)
    shape = (17, 19)
    if name == "bfloat16":
        base = rng.uniform(-100, 100, (21, 26, 3)).astype(np.float32)
        src = augpy.cast(augpy.array_to_tensor(base), augpy.bfloat16)
        img = augpy.cast(src, augpy.float32).numpy().astype(np.float64)   # the values bfloat16 holds
    else:
        if name == "bool":
            img = rng.integers(0, 2, (21, 26, 3)).astype(bool)
        elif np.dtype(name).kind in "iu":
            info = np.iinfo(name)
            lo, hi = max(int(info.min), -(2 ** 40)), min(int(info.max), 2 ** 40)
            img = rng.integers(lo, hi, (21, 26, 3), endpoint=True).astype(name)
        else:
            img = rng.uniform(-100, 100, (21, 26, 3)).astype(name)
        src = augpy.array_to_tensor(img)
    bg = [1, -2.5, 3] if name not in ("bool",) else [1, 0, 1]
    m, _ = augpy.make_transform(img.shape[:2], shape, angle=17, scale=0.9)
    dst = augpy.Tensor((3,) + shape, dtype=augpy_dtype(name))
    augpy.warp_affine(src, dst, m, bg, s)
    got = augpy.cast(dst, augpy.float64).numpy()
    exact = ref_warp(img.astype(np.float64), m, shape, bg, s)
    if name in ("float32", "float64"):
        np.testing.assert_allclose(got, exact, rtol=1e-5 if name == "float32" else 1e-12, atol=1e-4)
    elif name in ("float16", "bfloat16"):
        np.testing.assert_allclose(got, exact, rtol=1e-2, atol=0.1)
    else:
        want = saturate(exact, name)
        assert np.abs(got - want.astype(np.float64)).max() <= 1


@pytest.mark.parametrize("s", [1, 2, 3])
@pytest.mark.parametrize("channels", [1, 3, 5])
def test_warp_float32_noise(s, channels):
    """The float32 kernel on noise (steepest gradients) against the float64 definition."""
    rng = np.random.default_rng(100 + s * 10 + channels)
    img = rng.uniform(-1000, 1000, (61, 83, channels)).astype(np.float32)
    shape = (37, 45)
    bg = list(rng.uniform(-500, 500, channels))
    m, _ = augpy.make_transform(img.shape[:2], shape, angle=-41, shear=(0.05, 0.1), vmirror=True, scale=0.85)
    got = warp(img, shape, m, bg, s).numpy()
    exact = ref_warp(img, m, shape, bg, s)
    np.testing.assert_allclose(got, exact, rtol=1e-5, atol=1e-4)
    # other destinations go through the same float32 values
    for name in ("int16", "uint8"):
        g = warp(img, shape, m, bg, s, augpy_dtype(name)).numpy().astype(np.float64)
        assert np.abs(g - saturate(exact, name)).max() <= 1


@pytest.mark.parametrize("name", ["float32", "int16", "uint16", "float16"])
def test_warp_float_kernel_portable_equals_simd(name, tmp_path):
    """AUG_SIMD=sse2 (portable C) gives the same bytes as the default (AVX2 where the CPU has it)."""
    import subprocess
    import sys
    code = f"""
import numpy as np, augpy
rng = np.random.default_rng(9)
img = rng.uniform(0, 1000, (70, 90, 3)).astype('{name}')
m, _ = augpy.make_transform(img.shape[:2], (50, 60), angle=23, scale=0.9)
for s in (1, 2):
    dst = augpy.Tensor((3, 50, 60), dtype=augpy.float32)
    augpy.warp_affine(augpy.array_to_tensor(img), dst, m, [1.5, -2, 300], s)
    np.save(r'{tmp_path}/out%d_' % s + __import__('os').environ.get('AUG_SIMD', 'auto') + '.npy', dst.numpy())
"""
    import os
    for simd in ("sse2", "auto"):
        env = dict(os.environ)
        env.pop("AUG_SIMD", None)
        if simd == "sse2":
            env["AUG_SIMD"] = "sse2"
        subprocess.run([sys.executable, "-c", code], check=True, env=env)
    for s in (1, 2):
        a = np.load(tmp_path / f"out{s}_sse2.npy")
        b = np.load(tmp_path / f"out{s}_auto.npy")
        np.testing.assert_array_equal(a.view(np.uint32), b.view(np.uint32))


def test_warp_mixed_dtypes():
    rng = np.random.default_rng(4)
    img = smooth_image(rng, 40, 50, 3)
    shape = (30, 30)
    m, s = augpy.make_transform(img.shape[:2], shape, angle=-15)
    exact = ref_warp(img, m, shape, [0, 0, 0], 2)
    for name in ("float32", "int8", "uint16", "float64", "bool"):
        got = warp(img, shape, m, None, 2, augpy_dtype(name))
        g = augpy.cast(got, augpy.float64).numpy()
        if name.startswith("float"):
            np.testing.assert_allclose(g, exact, rtol=1e-5, atol=1e-4)
        else:
            assert np.abs(g - saturate(exact, name).astype(float)).max() <= 1
    # float -> uint8 saturates
    f = rng.uniform(-300, 600, (20, 20, 2)).astype(np.float32)
    got = warp(f, (20, 20), [[1, 0, 0.25], [0, 1, 0.5]], [0, 0], 1, augpy.uint8).numpy()
    exact = saturate(ref_warp(f, [[1, 0, 0.25], [0, 1, 0.5]], (20, 20), [0, 0], 1), "uint8")
    assert np.abs(got - exact).max() <= 1


def test_warp_background_per_channel():
    img = np.full((10, 10, 4), 50, np.uint8)
    far = [[1, 0, 1000], [0, 1, 0]]
    for bg, want in [([1, 2, 3, 4], [1, 2, 3, 4]), (np.array([300, -5, 7.6, 9]), [255, 0, 8, 9]),
                     (augpy.array_to_tensor(np.array([9, 8, 7, 6], np.int16)), [9, 8, 7, 6]), (5, [5] * 4),
                     (None, [0] * 4)]:
        out = warp(img, (3, 4), far, bg).numpy()
        for c in range(4):
            assert (out[c] == want[c]).all(), (bg, c, out[c])


def test_warp_identity_and_strided_src():
    rng = np.random.default_rng(5)
    img = rng.integers(0, 256, (12, 15, 3), dtype=np.uint8)
    out = warp(img, (12, 15), [[1, 0, 0], [0, 1, 0]]).numpy()
    np.testing.assert_array_equal(out, img.transpose(2, 0, 1))
    # a non-contiguous source view (every other column, channels reversed)
    t = augpy.array_to_tensor(img)[:, ::2, ::-1]
    dst = augpy.Tensor((3, 12, 8), dtype=augpy.uint8)
    augpy.warp_affine(t, dst, [[1, 0, 0], [0, 1, 0]])
    np.testing.assert_array_equal(dst.numpy(), img[:, ::2, ::-1].transpose(2, 0, 1))


# ---- batches -----------------------------------------------------------------------------------

def test_warp_batch_list_and_nhwc():
    rng = np.random.default_rng(6)
    imgs = [smooth_image(rng, h, w, 3) for h, w in [(40, 60), (64, 32), (50, 50)]]
    shape = (24, 28)
    ms, ss = [], []
    for i, im in enumerate(imgs):
        m, s = augpy.make_transform(im.shape[:2], shape, angle=30 * i, hmirror=i == 1)
        ms.append(m)
        ss.append(s)
    bg = [10, 20, 30]
    dst = augpy.Tensor((3, 3) + shape, dtype=augpy.uint8)
    augpy.warp_affine([augpy.array_to_tensor(im) for im in imgs], dst, np.stack(ms), bg, ss)
    assert dst.layout == "NCHW"
    for i, im in enumerate(imgs):
        np.testing.assert_array_equal(dst.numpy()[i], warp(im, shape, ms[i], bg, ss[i]).numpy())
    # NHWC tensor, one supersampling for all
    stack = np.stack([smooth_image(rng, 30, 40, 3) for _ in range(4)])
    m4 = np.stack([augpy.make_transform((30, 40), shape, angle=a)[0] for a in (0, 10, 20, 30)])
    dst4 = augpy.Tensor((4, 3) + shape, dtype=augpy.float32)
    augpy.warp_affine(augpy.array_to_tensor(stack), dst4, m4, None, 2)
    for i in range(4):
        np.testing.assert_array_equal(dst4.numpy()[i], warp(stack[i], shape, m4[i], None, 2, augpy.float32).numpy())


# ---- bad input ----------------------------------------------------------------------------------

def test_warp_bad_input():
    img = augpy.array_to_tensor(np.zeros((10, 10, 3), np.uint8))
    dst = augpy.Tensor((3, 8, 8), dtype=augpy.uint8)
    eye = [[1, 0, 0], [0, 1, 0]]
    with pytest.raises(ValueError, match="warp_affine.*src must be \\(H, W, C\\)"):
        augpy.warp_affine(augpy.array_to_tensor(np.zeros((10,), np.uint8)), dst, eye)
    with pytest.raises(ValueError, match="warp_affine.*dst must be \\(C, H, W\\)"):
        augpy.warp_affine(img, augpy.Tensor((8,), dtype=augpy.uint8), eye)
    # (H, W) tensors are one channel (test_warp_options.py)
    with pytest.raises(ValueError, match="warp_affine.*src image 0 has 1 channels but dst has 3"):
        augpy.warp_affine(augpy.array_to_tensor(np.zeros((10, 10), np.uint8)), dst, eye)
    with pytest.raises(ValueError, match="warp_affine.*src image 0 has 3 channels but dst has 1"):
        augpy.warp_affine(img, augpy.Tensor((8, 8), dtype=augpy.uint8), eye)
    with pytest.raises(ValueError, match="warp_affine.*4 channels but dst has 3"):
        augpy.warp_affine(augpy.array_to_tensor(np.zeros((10, 10, 4), np.uint8)), dst, eye)
    with pytest.raises(ValueError, match="warp_affine.*background has 2 values"):
        augpy.warp_affine(img, dst, eye, [1, 2])
    for ss in (0, -2, 17, 99999, 2**31 - 1):
        with pytest.raises(ValueError, match=rf"warp_affine: supersampling must be in \[1, 16\], got {ss}"):
            augpy.warp_affine(img, dst, eye, None, ss)
    with pytest.raises(ValueError, match=r"warp_affine: supersampling must be in \[1, 16\], got 99999"):
        augpy.warp_affine([img, img], augpy.Tensor((2, 3, 8, 8), dtype=augpy.uint8), [eye, eye], None, [1, 99999])
    augpy.warp_affine(img, dst, eye, None, 16)  # the largest allowed
    with pytest.raises(ValueError, match=r"max_supersampling must be in \[1, 16\], got 17"):
        augpy.make_transform((10, 10), (10, 10), max_supersampling=17)
    assert augpy.make_transform((4000, 4000), (10, 10), max_supersampling=16)[1] == 16
    with pytest.raises(ValueError, match="warp_affine.*non-finite"):
        augpy.warp_affine(img, dst, [[1, 0, float("nan")], [0, 1, 0]])
    with pytest.raises(ValueError, match="warp_affine.*matrix must have shape \\(2, 3\\)"):
        augpy.warp_affine(img, dst, [[1, 0], [0, 1]])
    with pytest.raises(ValueError, match="warp_affine.*contiguous"):
        big = augpy.Tensor((3, 8, 16), dtype=augpy.uint8)
        augpy.warp_affine(img, big[:, :, ::2], eye)
    with pytest.raises(TypeError, match="warp_affine: src must be a Tensor or an array"):
        augpy.warp_affine("abc", dst, eye)  # (a NumPy array is imported: test_layout.py)
    with pytest.raises(TypeError, match="warp_affine.*dst"):
        augpy.warp_affine(img, None, eye)
    with pytest.raises(TypeError, match="warp_affine.*supersampling"):
        augpy.warp_affine(img, dst, eye, None, 1.5)
    # batches
    dst2 = augpy.Tensor((2, 3, 8, 8), dtype=augpy.uint8)
    with pytest.raises(ValueError, match="warp_affine.*matrix must have shape \\(2, 2, 3\\)"):
        augpy.warp_affine([img, img], dst2, np.zeros((3, 2, 3)))
    with pytest.raises(ValueError, match="warp_affine.*dst holds 2 images"):
        augpy.warp_affine([img, img, img], dst2, np.tile(np.eye(2, 3), (3, 1, 1)))
    with pytest.raises(ValueError, match="warp_affine.*supersampling has 3 values for 2 images"):
        augpy.warp_affine([img, img], dst2, np.tile(np.eye(2, 3), (2, 1, 1)), None, [1, 1, 1])
    with pytest.raises(ValueError, match="warp_affine.*empty"):
        augpy.warp_affine([], dst2, np.zeros((0, 2, 3)))
    with pytest.raises(TypeError, match="warp_affine.*src\\[1\\]"):
        augpy.warp_affine([img, 5], dst2, np.tile(np.eye(2, 3), (2, 1, 1)))
    # a 3-D batch dst is (N, Ht, Wt), one channel (test_warp_options.py)
    with pytest.raises(ValueError, match="warp_affine.*dst holds 3 images \\(shape \\(3, 8, 8\\)\\) but 2"):
        augpy.warp_affine([img, img], dst, np.tile(np.eye(2, 3), (2, 1, 1)))
    with pytest.raises(ValueError, match="warp_affine.*\\(N, C, H, W\\)"):
        augpy.warp_affine([img, img], augpy.Tensor((2, 1, 3, 8, 8), dtype=augpy.uint8),
                          np.tile(np.eye(2, 3), (2, 1, 1)))


def test_bfloat16_roundtrip_if_ml_dtypes():
    if not HAVE_ML_DTYPES:
        pytest.skip("ml_dtypes not installed (bfloat16 is covered through augpy.cast above)")
    import ml_dtypes
    img = np.arange(5 * 6 * 2, dtype=np.float32).reshape(5, 6, 2).astype(ml_dtypes.bfloat16)
    out = warp(img, (5, 6), [[1, 0, 0], [0, 1, 0]]).numpy()
    np.testing.assert_array_equal(out.astype(np.float32), img.astype(np.float32).transpose(2, 0, 1))


def test_no_leaks():
    """Repeated successful and failing calls do not grow Python allocations or the RSS."""
    import gc
    import tracemalloc

    img = augpy.array_to_tensor(np.zeros((20, 20, 3), np.uint8))
    dst = augpy.Tensor((3, 8, 8), dtype=augpy.uint8)
    dst2 = augpy.Tensor((2, 3, 8, 8), dtype=augpy.uint8)
    out = np.zeros((2, 3), np.float32)
    eye = np.eye(2, 3, dtype=np.float32)
    eyes = np.stack([eye, eye])

    def calls():
        augpy.make_transform((20, 20), (8, 8), angle=5)
        augpy.make_affine_matrix(out, 20, 20, 8, 8, 5.0)
        augpy.warp_affine(img, dst, eye, [1, 2, 3], 2)
        augpy.warp_affine([img, img], dst2, eyes, None, [1, 2])
        augpy.warp_affine(augpy.array_to_tensor(np.zeros((2, 20, 20, 3), np.uint8)), dst2, eyes)
        for bad in (lambda: augpy.warp_affine(img, dst, eye, [1, 2]),
                    lambda: augpy.warp_affine([img, 5], dst2, eyes),
                    lambda: augpy.warp_affine(img, dst, [[1, 0, float("nan")], [0, 1, 0]]),
                    lambda: augpy.make_transform((20, 20), (8, 8), scale=0),
                    lambda: augpy.make_transform((20, 20), (8, 8), angle=5, unknown=1),
                    lambda: augpy.make_affine_matrix(np.zeros((3, 2), np.float32), 20, 20, 8, 8)):
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


def test_warp_affine_returns_dst():
    """warp_affine's result is its dst, the very object given (issue 27: every image op returns
    its result; before, None): an augpy tensor, and a NumPy array written in place."""
    src = np.arange(6 * 8 * 3, dtype=np.uint8).reshape(6, 8, 3)
    m = np.array([[1, 0, 0], [0, 1, 0]], np.float32)
    dst = augpy.Tensor((3, 6, 8), dtype=augpy.uint8)  # the default device, as the source
    assert augpy.warp_affine(augpy.array_to_tensor(src), dst, m) is dst
    np.testing.assert_array_equal(dst.numpy(), src.transpose(2, 0, 1))
    arr = np.zeros((6, 8, 3), np.uint8)  # arrays: both on the cpu
    assert augpy.warp_affine(src, arr, m, layout="HWC") is arr
    np.testing.assert_array_equal(arr, src)
