"""16-bit images through the geometric ops (issue 31; docs/semantics.md "Image ops by dtype").

References independent of augpy: OpenCV's 16U warpAffine / warpPerspective (WARP_INVERSE_MAP)
and resize, NumPy slicing / np.pad for the copying ops. Nearest neighbour and the copying ops
are bit-exact; the bilinear and area results are within the bounds measured against OpenCV 5
(stated at each test). The CPU and the (emulated) CUDA backend agree bit for bit.
"""
import cv2
import numpy as np
import pytest

import augpy

BORDERS = {"constant": cv2.BORDER_CONSTANT, "replicate": cv2.BORDER_REPLICATE,
           "reflect": cv2.BORDER_REFLECT_101, "symmetric": cv2.BORDER_REFLECT}
INTERPS = {"nearest": cv2.INTER_NEAREST, "linear": cv2.INTER_LINEAR}
BG = [1000, 65535, 7]
PERSP = np.array([[0.9, 0.15, 3.0], [-0.1, 1.05, -2.0], [4e-4, -3e-4, 1.0]], np.float32)


def u16_image(kind, h=60, w=80, c=3, seed=0):
    """Noise over the whole 16-bit range (the steepest case) or a smooth image."""
    rng = np.random.default_rng(seed)
    img = rng.integers(0, 65536, (h, w, c)).astype(np.uint16)
    return cv2.GaussianBlur(img, (7, 7), 2.0) if kind == "smooth" else img


def affine_matrix(img, shape):
    m, _ = augpy.make_transform(img.shape[:2], shape, angle=23, scale=0.9, shear=(0.1, 0))
    return np.asarray(m, np.float32)


def near_half(m, shape):
    """Output pixels whose source point lies within 2^-9 px of a half-pixel in x or y."""
    y, x = np.mgrid[0:shape[0], 0:shape[1]].astype(np.float64)
    m = np.asarray(m, np.float64)
    w = m[2, 0] * x + m[2, 1] * y + m[2, 2] if m.shape[0] == 3 else 1.0
    u, v = (m[0, 0] * x + m[0, 1] * y + m[0, 2]) / w, (m[1, 0] * x + m[1, 1] * y + m[1, 2]) / w
    return (np.abs(u - np.floor(u) - 0.5) < 2 ** -9) | (np.abs(v - np.floor(v) - 0.5) < 2 ** -9)


def augpy_warp(img, shape, m, interp, border, perspective=False):
    dst = augpy.Tensor(tuple(shape) + (img.shape[2],), dtype=augpy.to_augpy_dtype(img.dtype))
    op = augpy.warp_perspective if perspective else augpy.warp_affine
    op(augpy.array_to_tensor(img), dst, m, BG, interpolation=interp, border=border, layout="HWC")
    return dst.numpy()


@pytest.mark.parametrize("kind", ["noise", "smooth"])
@pytest.mark.parametrize("interp", list(INTERPS))
@pytest.mark.parametrize("border", list(BORDERS))
@pytest.mark.parametrize("perspective", [False, True])
def test_warp_uint16_vs_opencv(kind, interp, border, perspective):
    img = u16_image(kind, seed=len(border))
    shape = (45, 50)
    m = PERSP if perspective else affine_matrix(img, shape)
    got = augpy_warp(img, shape, m, interp, border, perspective).astype(np.int64)
    cv = cv2.warpPerspective if perspective else cv2.warpAffine
    want = cv(img, m, (shape[1], shape[0]), flags=INTERPS[interp] | cv2.WARP_INVERSE_MAP,
              borderMode=BORDERS[border], borderValue=BG).astype(np.int64)
    d = np.abs(got - want)
    if interp == "nearest":
        # equal except where a coordinate lies within 2^-9 px of a half-pixel (docs/warp.md:
        # OpenCV rounds such ties its own way)
        assert not (d.any(axis=2) & ~near_half(m, shape)).any()
    else:
        # augpy's float32 bilinear against OpenCV's: measured max 1 (affine) and 2
        # (perspective, on noise), on at most ~10% of the values (semantics §13)
        assert d.max() <= (2 if perspective else 1)
        assert (d > 0).mean() <= 0.12
        assert (d > 1).mean() <= 1e-3


@pytest.mark.parametrize("interp", ["nearest", "linear", "area"])
@pytest.mark.parametrize("size", [(23, 31), (131, 97), (40, 200)])
@pytest.mark.parametrize("kind", ["noise", "smooth"])
def test_resize_uint16_vs_opencv(interp, size, kind):
    img = u16_image(kind, 61, 83, 3, seed=size[0])
    got = augpy.resize(augpy.array_to_tensor(img), size, interp, False, "HWC").numpy().astype(np.int64)
    ci = {"nearest": cv2.INTER_NEAREST, "linear": cv2.INTER_LINEAR, "area": cv2.INTER_AREA}[interp]
    want = cv2.resize(img, (size[1], size[0]), interpolation=ci).astype(np.int64)
    d = np.abs(got - want)
    # nearest and a whole-pixel area mean are exact; OpenCV's fixed-point linear / area
    # weights differ from augpy's float32 ones by at most 1 on ~0.2% of the values
    assert d.max() <= (0 if interp == "nearest" else 1)
    assert (d > 0).mean() <= 5e-3


def test_resize_uint16_triangle_keeps_range():
    """The antialiased (triangle) shrink of full-range noise stays in [0, 65535] and equals the
    float64 weighted mean rounded (the mean of equal values is exact)."""
    img = np.full((40, 50, 1), 65535, np.uint16)
    img[::2] = 0
    got = augpy.resize(augpy.array_to_tensor(img), (20, 25), "linear", True, "HWC").numpy()
    assert got.dtype == np.uint16
    flat = np.full((40, 50, 1), 65535, np.uint16)
    assert np.array_equal(augpy.resize(augpy.array_to_tensor(flat), (13, 17), "linear", True, "HWC").numpy(),
                          np.full((13, 17, 1), 65535, np.uint16))
    assert abs(int(got.astype(np.int64).mean()) - 32767) <= 1


@pytest.mark.parametrize("name", ["uint16", "int16", "float16"])
def test_copying_ops_exact(name):
    rng = np.random.default_rng(5)
    if name == "float16":
        img = rng.uniform(-6e4, 6e4, (9, 11, 3)).astype(np.float16)
    else:
        info = np.iinfo(name)
        img = rng.integers(info.min, info.max, (9, 11, 3), endpoint=True).astype(name)
    t = augpy.array_to_tensor(img)
    assert np.array_equal(augpy.hflip(t).numpy(), img[:, ::-1])
    assert np.array_equal(augpy.vflip(t).numpy(), img[::-1])
    assert np.array_equal(augpy.flip(t, True, True).numpy(), img[::-1, ::-1])
    assert np.array_equal(augpy.crop(t, 2, 3, 4, 5).numpy(), img[2:6, 3:8])
    assert np.array_equal(augpy.center_crop(t, (5, 7)).numpy(), img[2:7, 2:9])
    for mode, np_mode in (("edge", "edge"), ("reflect", "reflect"), ("symmetric", "symmetric")):
        got = augpy.pad(t, (1, 2, 3, 4), padding_mode=mode).numpy()
        assert got.dtype == img.dtype
        assert np.array_equal(got, np.pad(img, ((2, 4), (1, 3), (0, 0)), np_mode))
    fill = 65535 if name == "uint16" else -32768 if name == "int16" else -2.5
    got = augpy.pad(t, 2, fill=fill).numpy()
    assert np.array_equal(got, np.pad(img, ((2, 2), (2, 2), (0, 0)), constant_values=np.array(fill, img.dtype)))
    rc = augpy.random_crop(t, (12, 14), pad_if_needed=True, fill=fill,
                           rng=augpy.RandomNumberGenerator(seed=3)).numpy()
    assert rc.dtype == img.dtype and rc.shape == (12, 14, 3)
    assert np.isin(rc, np.append(img.ravel(), np.array(fill, img.dtype))).all()


def test_warp_saturates_into_uint16():
    """A float32 source beyond uint16's range saturates to [0, 65535]; a 16-bit background
    of 65535 stays exact; uint16 -> uint8 saturates at 255 (semantics §13)."""
    src = np.array([[-5.0, 70000.0], [65535.4, 1.5]], np.float32)[..., None]
    ident = np.array([[1, 0, 0], [0, 1, 0]], np.float32)
    dst = augpy.Tensor((2, 3, 1), dtype=augpy.uint16)
    augpy.warp_affine(augpy.array_to_tensor(src), dst, ident, [65535], layout="HWC")
    assert dst.numpy()[..., 0].tolist() == [[0, 65535, 65535], [65535, 2, 65535]]
    u8 = augpy.Tensor((2, 2, 1), dtype=augpy.uint8)
    augpy.warp_affine(augpy.array_to_tensor(np.array([[[300], [7]], [[65535], [0]]], np.uint16)), u8, ident,
                      layout="HWC")
    assert u8.numpy()[..., 0].tolist() == [[255, 7], [255, 0]]


def _cuda():
    try:
        return augpy.Tensor((1,)).cuda().device
    except (ValueError, RuntimeError):
        pytest.skip("no CUDA device (run with AUG_CUDA_BACKEND=emu)")


@pytest.mark.parametrize("name", ["uint16", "int16", "float16"])
def test_cpu_cuda_parity(name):
    """Every geometric op on the CPU and the CUDA device, bit for bit (tests/c/parity has the
    exhaustive cases; this is the Python path)."""
    dev = _cuda()
    img = u16_image("noise", 37, 41, 3, seed=9)
    img = img.astype(np.int32) - 32768 if name == "int16" else img
    img = (img.astype(np.float32) / 7).astype(np.float16) if name == "float16" else img.astype(name)
    cpu, gpu = augpy.array_to_tensor(img).cpu(), augpy.array_to_tensor(img).to(dev)
    m = affine_matrix(img, (29, 33))
    for interp in INTERPS:
        for border in BORDERS:
            for persp, mat in ((False, m), (True, PERSP)):
                op = augpy.warp_perspective if persp else augpy.warp_affine
                res = []
                for src in (cpu, gpu):
                    dst = augpy.empty_like(src[:29, :33])
                    op(src, dst, mat, BG, 2, interpolation=interp, border=border, layout="HWC")
                    res.append(dst.cpu().numpy())
                assert np.array_equal(res[0], res[1], equal_nan=True), (interp, border, persp)
    for interp in ("nearest", "linear", "area"):
        for size, aa in (((19, 60), False), ((11, 13), True)):
            a = augpy.resize(cpu, size, interp, aa, "HWC").numpy()
            b = augpy.resize(gpu, size, interp, aa, "HWC").cpu().numpy()
            assert np.array_equal(a, b, equal_nan=True), (interp, size, aa)
    assert np.array_equal(augpy.pad(cpu, 3, padding_mode="reflect").numpy(),
                          augpy.pad(gpu, 3, padding_mode="reflect").cpu().numpy())


def test_uint16_simd_equals_portable(tmp_path):
    """The AVX2 warp's 16-bit pixel loads (1-4 adjacent channels; 5 take the portable path)
    give the portable C kernel's bytes (AUG_SIMD=sse2) with every border, s = 1 and 2."""
    import os
    import subprocess
    import sys
    code = f"""
import numpy as np, augpy
rng = np.random.default_rng(11)
out = []
for c in (1, 2, 3, 4, 5):
    img = rng.integers(0, 65536, (37, 53, c)).astype(np.uint16)
    m, _ = augpy.make_transform(img.shape[:2], (41, 57), angle=7, scale=1.05)
    for border in ("constant", "replicate", "reflect", "symmetric"):
        for s in (1, 2):
            for dt in (augpy.uint16, augpy.float32):
                dst = augpy.Tensor((c, 41, 57), dtype=dt)
                augpy.warp_affine(augpy.array_to_tensor(img), dst, m, [65535] * c, s, border=border)
                out.append(dst.numpy().view(np.uint8).ravel())
np.save(r'{tmp_path}/' + __import__('os').environ.get('AUG_SIMD', 'auto') + '.npy', np.concatenate(out))
"""
    for simd in ("sse2", "auto"):
        env = {k: v for k, v in os.environ.items() if k != "AUG_SIMD"}
        if simd == "sse2":
            env["AUG_SIMD"] = "sse2"
        subprocess.run([sys.executable, "-c", code], check=True, env=env)
    assert np.array_equal(np.load(tmp_path / "sse2.npy"), np.load(tmp_path / "auto.npy"))
