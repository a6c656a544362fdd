"""augpy box_blur_single / gaussian_blur_single / gaussian_blur (semantics §13, manual
3.1.4.4) against NumPy float64 references with edge padding (filterref.py) and
against cv2.sepFilter2D with BORDER_REPLICATE, saturated per semantics §2."""
import cv2
import numpy as np
import pytest

import augpy
import filterref as R

# Value ranges per dtype: 64-bit integers stay where float64 sums are exact.
VRANGE = {"int64": (-(2 ** 40), 2 ** 40), "uint64": (0, 2 ** 41)}


def image(rng, shape, d):
    return R.random_image(rng, shape, d, *VRANGE.get(d, (None, None)))


def check(d, got, want, exact_frac=0.99):
    got = np.asarray(got)
    if d in R.FLOATS:
        rtol = {"float16": 2e-3, "bfloat16": 1e-2, "float32": 2e-5, "float64": 1e-12}[d]
        np.testing.assert_allclose(got.astype(np.float64), np.asarray(want, np.float64), rtol=rtol, atol=rtol * 300)
        return
    g = got.astype(object) if d in ("int64", "uint64") else got.astype(np.int64)
    w = np.asarray(want).astype(object) if d in ("int64", "uint64") else np.asarray(want).astype(np.int64)
    diff = np.abs(np.asarray(g - w, dtype=np.float64))
    assert diff.max() <= 1, f"max diff {diff.max()}"
    assert (diff == 0).mean() >= exact_frac


# ---- box blur ---------------------------------------------------------------------

@pytest.mark.parametrize("d", R.DTYPES)
@pytest.mark.parametrize("c", [1, 3, 4])
@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_box_blur_matches_reference(rng, d, c, k):
    x = image(rng, (c, 11, 14), d)
    got = augpy.box_blur_single(R.make(x, d), k)
    assert got.dtype == R.adtype(d) and tuple(got.shape) == x.shape
    if d in R.FLOATS:
        want = R.sep_filter(x.astype(np.float64), np.full(k, 1.0 / k))
    else:
        want = R.box_sum(x.astype(np.int64), k) / float(k * k)  # exact sums, one division
    # the integer mean is exact in augpy: equal to the correctly rounded reference
    check(d, R.read(got), R.saturate(want, d), exact_frac=1.0)


@pytest.mark.parametrize("k", [3, 4, 5, 6])
def test_box_blur_uint8_vs_cv2(rng, k):
    x = rng.integers(0, 256, (3, 40, 50), dtype=np.uint8)
    got = augpy.box_blur_single(augpy.array_to_tensor(x), k).numpy()
    for ch in range(3):
        # cv2.filter2D is a correlation; anchor k//2 gives offsets -k//2 .. k - 1 - k//2
        ref = cv2.filter2D(x[ch].astype(np.float64), -1, np.full((k, k), 1.0 / (k * k)), anchor=(k // 2, k // 2),
                           borderType=cv2.BORDER_REPLICATE)
        assert np.abs(got[ch].astype(np.int64) - R.saturate(ref, "uint8")).max() <= 1
        # exact .5 means (sum = 18 mod 36 for k = 6) round either way in cv2's
        # 1/k^2 weights; augpy's exact mean rounds them to even (checked above)
        assert (got[ch] == R.saturate(ref, "uint8")).mean() > 0.96


def test_box_blur_even_k_shifts_up_left():
    """k = 2 averages the pixel with its up/left neighbours (offsets -1, 0)."""
    x = np.zeros((1, 5, 5), np.float32)
    x[0, 2, 2] = 4.0
    got = augpy.box_blur_single(augpy.array_to_tensor(x), 2).numpy()[0]
    want = np.zeros((5, 5))
    want[2:4, 2:4] = 1.0
    np.testing.assert_array_equal(got, want)


def test_box_blur_kernel_larger_than_image(rng):
    x = rng.integers(0, 256, (2, 3, 4), dtype=np.uint8)
    for k in (7, 8, 30):
        got = augpy.box_blur_single(augpy.array_to_tensor(x), k).numpy()
        want = R.saturate(R.box_sum(x, k) / float(k * k), "uint8")
        np.testing.assert_array_equal(got, want)


# ---- gaussian_blur_single --------------------------------------------------------------

@pytest.mark.parametrize("d", R.DTYPES)
@pytest.mark.parametrize("c", [1, 3, 4])
@pytest.mark.parametrize("sigma", [0.5, 1.3, 2.0])
def test_gaussian_blur_single_matches_reference(rng, d, c, sigma):
    x = image(rng, (c, 17, 19), d)
    got = augpy.gaussian_blur_single(R.make(x, d), sigma)
    assert got.dtype == R.adtype(d) and tuple(got.shape) == x.shape
    w = R.gaussian_weights(sigma, R.gaussian_ksize(sigma))
    check(d, R.read(got), R.saturate(R.sep_filter(x.astype(np.float64), w), d))


@pytest.mark.parametrize("sigma", [0.8, 2.0, 3.5])
def test_gaussian_blur_uint8_vs_cv2(rng, sigma):
    x = rng.integers(0, 256, (3, 48, 64), dtype=np.uint8)
    got = augpy.gaussian_blur_single(augpy.array_to_tensor(x), sigma).numpy()
    k = R.gaussian_ksize(sigma)
    w = R.gaussian_weights(sigma, k)
    for ch in range(3):
        ref = cv2.sepFilter2D(x[ch].astype(np.float64), -1, w, w, borderType=cv2.BORDER_REPLICATE)
        ref = R.saturate(ref, "uint8")
        assert np.abs(got[ch].astype(np.int64) - ref).max() <= 1
        assert (got[ch] == ref).mean() > 0.999


def test_gaussian_blur_ksize_formula():
    for sigma, k in [(0.1, 3), (0.5, 3), (0.9, 3), (1.0, 5), (1.5, 7), (2.0, 11), (30.0, 195), (40.0, 261)]:
        assert R.gaussian_ksize(sigma) == k


@pytest.mark.parametrize("d", ["uint8", "float32", "int64"])
def test_gaussian_blur_sigma_nonpositive_copies(rng, d):
    x = R.random_image(rng, (3, 6, 7), d)  # full range: a copy must be exact for int64 too
    for sigma in (0.0, -1.5):
        got = augpy.gaussian_blur_single(R.make(x, d), sigma)
        np.testing.assert_array_equal(R.read(got), x)


@pytest.mark.parametrize("sigma", [40.0, 1000.0])
def test_gaussian_blur_large_sigma(rng, sigma):
    x = rng.integers(0, 256, (2, 30, 37), dtype=np.uint8)
    got = augpy.gaussian_blur_single(augpy.array_to_tensor(x), sigma).numpy()
    k = R.gaussian_ksize(sigma)  # 261 / 6597: wider than the image, taps beyond it read the edge
    want = R.saturate(R.sep_filter(x.astype(np.float64), R.gaussian_weights(sigma, k)), "uint8")
    check("uint8", got, want)


def test_gaussian_blur_huge_sigma_is_edge_weighted_mean(rng):
    """sigma = 1e9: ksize ~ 6.6e9, the weights are flat; every pixel tends to the
    mean of the replicated row/column, where the edge values carry almost all weight."""
    x = rng.uniform(0, 1, (1, 5, 6))
    got = augpy.gaussian_blur_single(augpy.array_to_tensor(x), 1e9).numpy()
    # flat weights over a window of K >> size: result -> value of the edges, weighted 1/2 each
    col = 0.5 * (x[:, :1, :] + x[:, -1:, :])
    want = 0.5 * (col[..., :1] + col[..., -1:])
    np.testing.assert_allclose(got, np.broadcast_to(want, x.shape), rtol=1e-6, atol=1e-6)


# ---- gaussian_blur (batched) -----------------------------------------------------------

@pytest.mark.parametrize("d", R.DTYPES)
@pytest.mark.parametrize("max_ksize", [3, 4, 7, 100])
def test_gaussian_blur_batch_matches_reference(rng, d, max_ksize):
    sigmas = np.array([0.0, 0.7, 1.6, 3.0], np.float32)
    x = image(rng, (4, 3, 15, 16), d)
    got = augpy.gaussian_blur(R.make(x, d), augpy.array_to_tensor(sigmas), max_ksize)
    assert got.dtype == R.adtype(d) and tuple(got.shape) == x.shape
    got = R.read(got)
    for i, s in enumerate(sigmas.astype(np.float64)):
        k = R.gaussian_ksize(s, max_ksize)
        if k == 1:
            np.testing.assert_array_equal(got[i], x[i])
            continue
        w = R.gaussian_weights(s, k)  # renormalised over the clipped (maybe even) window
        check(d, got[i], R.saturate(R.sep_filter(x[i].astype(np.float64), w), d))


def test_gaussian_blur_batch_equals_single(rng):
    x = rng.integers(0, 256, (3, 3, 20, 21), dtype=np.uint8)
    sig = [0.9, 2.0, 4.0]
    got = augpy.gaussian_blur(augpy.array_to_tensor(x), sig, 1000).numpy()
    for i, s in enumerate(sig):
        one = augpy.gaussian_blur_single(augpy.array_to_tensor(x[i]), float(np.float32(s))).numpy()
        np.testing.assert_array_equal(got[i], one)


# ---- NumPy arrays (no copy) and layouts ---------------------------------------------------------

def test_gaussian_blur_numpy_without_copy(rng):
    x = rng.integers(0, 256, (3, 3, 20, 21), dtype=np.uint8)
    sig = [0.9, 2.0, 4.0]
    want = augpy.gaussian_blur(augpy.array_to_tensor(x), sig, 9).numpy()
    got = augpy.gaussian_blur(x, sig, 9)            # the array itself: an augpy tensor comes back
    assert isinstance(got, augpy.Tensor) and got.layout == "NCHW"
    np.testing.assert_array_equal(got.numpy(), want)
    out = np.zeros_like(x)
    assert augpy.gaussian_blur(x, sig, 9, out=out) is out
    np.testing.assert_array_equal(out, want)
    assert augpy.gaussian_blur(x, sig, 9, out=x) is x  # in place on the array
    np.testing.assert_array_equal(x, want)
    one = rng.integers(0, 256, (3, 20, 30), dtype=np.uint8)
    np.testing.assert_array_equal(augpy.box_blur_single(one, 5).numpy(),
                                  augpy.box_blur_single(augpy.array_to_tensor(one), 5).numpy())


def test_nhwc_batch_is_refused(rng):
    nhwc = rng.integers(0, 256, (2, 16, 16, 3), dtype=np.uint8)
    with pytest.raises(ValueError, match=r"augpy.gaussian_blur: input of shape \(2, 16, 16, 3\) is laid out as "
                                         r"'NHWC' \(inferred from its shape\) but augpy.gaussian_blur takes 'NCHW'"):
        augpy.gaussian_blur(nhwc, [1.0, 1.0], 7)
    t = augpy.array_to_tensor(np.ascontiguousarray(nhwc.transpose(0, 3, 1, 2)))
    t.layout = "NCHW"
    augpy.gaussian_blur(t, [1.0, 1.0], 7)          # the same data channels first is fine
    lab = augpy.resize_batch([augpy.array_to_tensor(nhwc[0])], (16, 16), out_layout="NHWC")
    assert lab.layout == "NHWC"
    with pytest.raises(ValueError, match=r"augpy.gaussian_blur: input has layout 'NHWC' but augpy.gaussian_blur "
                                         r"takes 'NCHW'"):
        augpy.gaussian_blur(lab, [1.0], 7)
    with pytest.raises(ValueError, match=r"augpy.box_blur_single: input of shape \(16, 16, 3\) is laid out as 'HWC'"):
        augpy.box_blur_single(nhwc[0], 3)


# ---- out=, in place, threads ---------------------------------------------------------------

def test_blur_out_and_in_place(rng):
    x = rng.integers(0, 256, (3, 20, 30), dtype=np.uint8)
    want = augpy.box_blur_single(augpy.array_to_tensor(x), 5).numpy()
    t = augpy.array_to_tensor(x)
    assert augpy.box_blur_single(t, 5, out=t) is t
    np.testing.assert_array_equal(t.numpy(), want)
    o = augpy.array_to_tensor(np.zeros_like(x))
    assert augpy.box_blur_single(augpy.array_to_tensor(x), 5, out=o) is o
    np.testing.assert_array_equal(o.numpy(), want)
    want = augpy.gaussian_blur_single(augpy.array_to_tensor(x), 2.0).numpy()
    t = augpy.array_to_tensor(x)
    assert augpy.gaussian_blur_single(t, 2.0, out=t) is t
    np.testing.assert_array_equal(t.numpy(), want)
    b = augpy.array_to_tensor(x[None].copy())
    want = augpy.gaussian_blur(augpy.array_to_tensor(x[None]), [1.5], 9).numpy()
    assert augpy.gaussian_blur(b, [1.5], 9, out=b) is b
    np.testing.assert_array_equal(b.numpy(), want)
    assert augpy.gaussian_blur_single(augpy.array_to_tensor(x), 1.0).layout == "CHW" \
        if hasattr(augpy.Tensor, "layout") else True


def test_blur_thread_count_independent(rng):
    x = rng.integers(0, 256, (2, 3, 150, 170), dtype=np.uint8)
    old = augpy.get_num_threads()
    try:
        augpy.set_num_threads(1)
        a = augpy.gaussian_blur(augpy.array_to_tensor(x), [1.0, 2.5], 31).numpy()
        b1 = augpy.box_blur_single(augpy.array_to_tensor(x[0]), 4).numpy()
        augpy.set_num_threads(max(2, old))
        b = augpy.gaussian_blur(augpy.array_to_tensor(x), [1.0, 2.5], 31).numpy()
        b2 = augpy.box_blur_single(augpy.array_to_tensor(x[0]), 4).numpy()
    finally:
        augpy.set_num_threads(old)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(b1, b2)


def test_blur_empty_image():
    x = augpy.array_to_tensor(np.zeros((3, 0, 5), np.uint8))
    assert tuple(augpy.gaussian_blur_single(x, 2.0).shape) == (3, 0, 5)
    assert tuple(augpy.box_blur_single(x, 3).shape) == (3, 0, 5)


def test_blur_bad_inputs(rng):
    x = augpy.array_to_tensor(rng.integers(0, 256, (3, 8, 9), dtype=np.uint8))
    b = augpy.array_to_tensor(rng.integers(0, 256, (2, 3, 8, 9), dtype=np.uint8))
    with pytest.raises(ValueError, match=r"augpy.box_blur_single.*ksize = 0"):
        augpy.box_blur_single(x, 0)
    with pytest.raises(TypeError, match=r"augpy.box_blur_single.*ksize"):
        augpy.box_blur_single(x, 3.0)
    with pytest.raises(ValueError, match=r"augpy.box_blur_single.*shape"):
        augpy.box_blur_single(b, 3)
    with pytest.raises(ValueError, match=r"augpy.box_blur_single.*contiguous"):  # a strided out (inputs may be)
        augpy.box_blur_single(x, 3, out=augpy.array_to_tensor(np.zeros((3, 8, 18), np.uint8))[:, :, ::2])
    with pytest.raises(TypeError, match=r"augpy.box_blur_single.*dtype"):
        augpy.box_blur_single(x, 3, out=augpy.array_to_tensor(np.zeros((3, 8, 9), np.int16)))
    with pytest.raises(ValueError, match=r"augpy.box_blur_single.*shape"):
        augpy.box_blur_single(x, 3, out=augpy.array_to_tensor(np.zeros((3, 8, 8), np.uint8)))
    with pytest.raises(ValueError, match=r"augpy.gaussian_blur_single.*sigma"):
        augpy.gaussian_blur_single(x, float("nan"))
    with pytest.raises(ValueError, match=r"augpy.gaussian_blur_single.*sigma"):
        augpy.gaussian_blur_single(x, float("inf"))
    with pytest.raises(TypeError, match=r"augpy.gaussian_blur_single.*sigma"):
        augpy.gaussian_blur_single(x, "2")
    with pytest.raises(ValueError, match=r"augpy.gaussian_blur_single.*shape"):
        augpy.gaussian_blur_single(b, 1.0)
    with pytest.raises(ValueError, match=r"augpy.gaussian_blur.*sigmas\[1\]"):
        augpy.gaussian_blur(b, [1.0, float("nan")], 9)
    with pytest.raises(ValueError, match=r"augpy.gaussian_blur.*sigmas"):
        augpy.gaussian_blur(b, [1.0], 9)
    with pytest.raises(TypeError, match=r"augpy.gaussian_blur.*float32"):
        augpy.gaussian_blur(b, augpy.array_to_tensor(np.ones(2)), 9)
    with pytest.raises(ValueError, match=r"augpy.gaussian_blur.*max_ksize"):
        augpy.gaussian_blur(b, [1.0, 2.0], 0)
    with pytest.raises(ValueError, match=r"augpy.gaussian_blur.*shape"):
        augpy.gaussian_blur(x, [1.0, 2.0, 3.0], 9)
    with pytest.raises(TypeError, match=r"augpy.gaussian_blur.*sigmas"):
        augpy.gaussian_blur(b, None, 9)



# ---- 8-bit kernels on large images (the SIMD paths and row bands) ---------------------

def _large_images(rng):
    y, x = np.mgrid[0:203, 0:317]
    smooth = 127.5 + 100 * np.sin(x / 23.0) * np.cos(y / 17.0) + (x + y) * 0.05
    smooth = np.clip(smooth, 0, 255).astype(np.uint8)
    return {"random": rng.integers(0, 256, (3, 203, 317), dtype=np.uint8),
            "smooth": np.stack([smooth, smooth[::-1], 255 - smooth])}


@pytest.mark.parametrize("sigma", [0.6, 1.0, 2.0, 3.3, 6.0])
@pytest.mark.parametrize("kind", ["random", "smooth"])
@pytest.mark.parametrize("d", ["uint8", "int8"])
def test_gaussian_8bit_large_vs_float64(rng, sigma, kind, d):
    x = _large_images(rng)[kind]
    if d == "int8":
        x = (x.astype(np.int16) - 128).astype(np.int8)
    got = augpy.gaussian_blur_single(augpy.array_to_tensor(x), sigma).numpy().astype(np.int64)
    w = R.gaussian_weights(sigma, R.gaussian_ksize(sigma))
    want = R.saturate(R.sep_filter(x.astype(np.float64), w), d).astype(np.int64)
    diff = np.abs(got - want)
    assert diff.max() <= 1
    assert (diff == 0).mean() >= 0.999


@pytest.mark.parametrize("k", list(range(1, 18)))
@pytest.mark.parametrize("d", ["uint8", "int8"])
def test_box_8bit_large_exact(rng, k, d):
    x = _large_images(rng)["random"][:, :61, :]
    if d == "int8":
        x = (x.astype(np.int16) - 128).astype(np.int8)
    got = augpy.box_blur_single(augpy.array_to_tensor(x), k).numpy()
    want = R.saturate(R.box_sum(x.astype(np.int64), k) / float(k * k), d)
    np.testing.assert_array_equal(got, want)
