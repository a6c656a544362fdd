"""Images of more than 4 channels (multispectral tiles: 13 bands, uint16; issue 31) through the
geometric ops, the blurs and normalize with per-channel mean / std (docs/formats.md
"Multispectral images"). A band of a many-channel result equals the one-channel op on that band
(the one-channel paths are checked against OpenCV / NumPy elsewhere), the copying ops and
normalize equal NumPy, and CPU and CUDA agree byte for byte (MODE=emu). The uint8 affine warp of
more than 16 channels rounds each value once, as the s = 1 kernel does (the CPU rounded twice
there, through the supersampling accumulator: off by one on about 1 value in 130 000)."""
import numpy as np
import pytest

import augpy
from augpy.image import Normalize
from conftest import ON_CUDA, host_tensor

BANDS = 13


def tile(rng, c=BANDS, h=48, w=56, dt=np.uint16):
    """An (H, W, C) tile: smooth bands with noise, over the dtype's range."""
    top = np.iinfo(dt).max
    yy, xx = np.mgrid[0:h, 0:w]
    base = np.stack([(np.sin(xx / (3 + k) + yy / (5 + k)) + 1) / 2 for k in range(c)], -1)
    noisy = base * 0.8 * top + rng.uniform(0, 0.2 * top, (h, w, c))
    return np.clip(noisy, 0, top).astype(dt)


def warp(x, m, interp, s=1, cpu=False, shape=(40, 44), border="constant"):
    t = augpy.array_to_tensor(x)
    out = augpy.Tensor((x.shape[2],) + shape, dtype=t.dtype)
    if cpu:
        t, out = t.cpu(), out.cpu()
    t.layout, out.layout = "HWC", "CHW"
    augpy.warp_affine(t, out, m, [7] * x.shape[2], s, interpolation=interp, border=border)
    return augpy.tensor_to_array(out)


def per_band(fn, x):
    """fn of each (H, W, 1) band, stacked on the first axis (fn returns CHW)."""
    return np.concatenate([fn(np.ascontiguousarray(x[:, :, k:k + 1])) for k in range(x.shape[2])])


def matrix(h, w, out, angle=17.0, scale=0.85):
    m, _ = augpy.make_transform((h, w), out, angle=angle, scale=scale, shear=(0.1, 0.0))
    return np.asarray(m, np.float32)


@pytest.mark.parametrize("interp,s", [("nearest", 1), ("linear", 1), ("linear", 3)])
@pytest.mark.parametrize("border", ["constant", "reflect"])
def test_warp_13_bands_equals_each_band(rng, interp, s, border):
    x = tile(rng)
    m = matrix(48, 56, (40, 44))
    got = warp(x, m, interp, s, border=border)
    assert got.shape == (BANDS, 40, 44) and got.dtype == np.uint16
    np.testing.assert_array_equal(got, per_band(lambda b: warp(b, m, interp, s, border=border), x))


@pytest.mark.parametrize("dt", [np.uint8, np.uint16])
def test_warp_of_17_to_24_channels_rounds_once(rng, dt):
    """2.1M values of full-range noise: about 16 of them sit where rounding the 2^22-scaled
    bilinear value to 2^16 first and then to an integer gives one more than rounding it once."""
    c = 21
    x = rng.integers(0, np.iinfo(dt).max + 1, (120, 160, c)).astype(dt)
    m = matrix(120, 160, (200, 500), angle=-23.0, scale=1.9)
    got = warp(x, m, "linear", shape=(200, 500))
    np.testing.assert_array_equal(got, per_band(lambda b: warp(b, m, "linear", shape=(200, 500)), x))


@pytest.mark.parametrize("interp", ["nearest", "linear", "area"])
def test_resize_13_bands_equals_each_band(rng, interp):
    x = tile(rng)
    got = augpy.tensor_to_array(augpy.resize(augpy.array_to_tensor(x), (30, 25), interp))
    assert got.shape == (30, 25, BANDS)
    want = np.stack([augpy.tensor_to_array(augpy.resize(augpy.array_to_tensor(np.ascontiguousarray(x[:, :, k])),
                                                        (30, 25), interp)) for k in range(BANDS)], -1)
    np.testing.assert_array_equal(got, want)


def test_copying_ops_equal_numpy(rng):
    x = tile(rng)
    t = augpy.array_to_tensor(x)
    np.testing.assert_array_equal(augpy.tensor_to_array(augpy.hflip(t)), x[:, ::-1])
    np.testing.assert_array_equal(augpy.tensor_to_array(augpy.vflip(t)), x[::-1])
    np.testing.assert_array_equal(augpy.tensor_to_array(augpy.crop(t, 3, 4, 20, 30)), x[3:23, 4:34])
    got = augpy.tensor_to_array(augpy.pad(t, (2, 3), padding_mode="reflect", layout="HWC"))
    np.testing.assert_array_equal(got, np.pad(x, ((3, 3), (2, 2), (0, 0)), mode="reflect"))


@pytest.mark.parametrize("op", ["gaussian", "box"])
def test_blur_13_bands_equals_each_band(rng, op):
    x = np.ascontiguousarray(tile(rng).transpose(2, 0, 1))  # CHW
    # sigma 1.75: the same in float32, gaussian_blur's per-image sigmas
    fn = (lambda a: augpy.gaussian_blur_single(a, 1.75)) if op == "gaussian" else (lambda a: augpy.box_blur_single(a, 5))
    got = augpy.tensor_to_array(fn(augpy.array_to_tensor(x)))
    want = np.concatenate([augpy.tensor_to_array(fn(augpy.array_to_tensor(np.ascontiguousarray(x[k:k + 1]))))
                           for k in range(BANDS)])
    np.testing.assert_array_equal(got, want)
    batch = augpy.tensor_to_array(augpy.gaussian_blur(augpy.array_to_tensor(np.stack([x, x[::-1].copy()])),
                                                      [1.75, 0.875], 31))
    assert batch.shape == (2, BANDS) + x.shape[1:]
    if op == "gaussian":
        np.testing.assert_array_equal(batch[0], got)


def test_normalize_per_band_mean_std(rng):
    x = tile(rng)
    mean = np.linspace(2000, 30000, BANDS)
    std = np.linspace(800, 12000, BANDS)
    want = ((x.astype(np.float64) - mean) / std).transpose(2, 0, 1)
    got = augpy.tensor_to_array(augpy.crop_mirror_normalize(augpy.array_to_tensor(x), mean=list(mean),
                                                            std=list(std), layout="HWC"))
    assert got.dtype == np.float32 and got.shape == (BANDS, 48, 56)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    batch = np.ascontiguousarray(np.stack([x, x]).transpose(0, 3, 1, 2))
    out = Normalize(2, mean=mean, std=std)({"image": augpy.array_to_tensor(batch)})["image"]
    np.testing.assert_allclose(augpy.tensor_to_array(out)[1], want, rtol=1e-5, atol=1e-5)


@pytest.mark.skipif(not ON_CUDA, reason="the CUDA backend is not the default device (MODE=emu runs it)")
@pytest.mark.parametrize("dt", [np.uint8, np.uint16])
def test_cpu_and_cuda_agree_bit_for_bit(rng, dt):
    x = rng.integers(0, np.iinfo(dt).max + 1, (60, 80, 19)).astype(dt)
    m = matrix(60, 80, (70, 90), angle=31.0, scale=1.3)
    for interp, s in (("nearest", 1), ("linear", 1), ("linear", 2)):
        for border in ("constant", "replicate", "symmetric"):
            a = warp(x, m, interp, s, cpu=True, shape=(70, 90), border=border)
            b = warp(x, m, interp, s, shape=(70, 90), border=border)
            assert a.tobytes() == b.tobytes(), (interp, s, border)
    # enough values (1.4M) that the once-in-130 000 double rounding would show
    big = rng.integers(0, np.iinfo(dt).max + 1, (120, 160, 19)).astype(dt)
    mb = matrix(120, 160, (200, 360), angle=-23.0, scale=1.9)
    assert (warp(big, mb, "linear", cpu=True, shape=(200, 360)).tobytes()
            == warp(big, mb, "linear", shape=(200, 360)).tobytes())
    chw = np.ascontiguousarray(x.transpose(2, 0, 1))
    assert (augpy.tensor_to_array(augpy.gaussian_blur_single(host_tensor(chw), 1.3)).tobytes()
            == augpy.tensor_to_array(augpy.gaussian_blur_single(augpy.array_to_tensor(chw), 1.3)).tobytes())
    assert (augpy.tensor_to_array(augpy.resize(host_tensor(x), (33, 41), "area")).tobytes()
            == augpy.tensor_to_array(augpy.resize(augpy.array_to_tensor(x), (33, 41), "area")).tobytes())
