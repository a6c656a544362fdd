"""The blurs and rgb_to_grayscale on uint16 images against OpenCV's 16U paths, recorded (so that
no cv2 is needed here) by data/record_opencv_u16_filters.py: GaussianBlur and blur (boxFilter)
with BORDER_REPLICATE, cvtColor RGB2GRAY. Bounds measured against OpenCV 5.0 (issue 31,
docs/semantics.md "Image ops by dtype"); exact float64 references of the blur definitions
(filterref.py) bound augpy's own rounding; CPU and CUDA byte for byte (MODE=emu)."""
import pathlib

import numpy as np
import pytest

import augpy
import filterref as R
from conftest import ON_CUDA, host_tensor

CV = np.load(pathlib.Path(__file__).parent / "data" / "opencv_u16_filters.npz")


def chw(a):
    return np.ascontiguousarray(a.transpose(2, 0, 1))


def diff(got, want):
    return np.abs(got.astype(np.int64) - want.astype(np.int64))


@pytest.mark.parametrize("sigma", list(CV["sigmas"]))
def test_gaussian_blur_vs_opencv_16u(sigma):
    for img, want in zip(CV["hwc"], CV[f"gauss_{sigma}"]):
        got = augpy.tensor_to_array(augpy.gaussian_blur_single(augpy.array_to_tensor(chw(img)), float(sigma)))
        d = diff(got, chw(want))
        # OpenCV 5's 16U Gaussian is up to 1.006 from the exact float64 result (15% of the noise
        # image's values rounded the other way); augpy's float32 sums stay within 0.505 of it
        assert d.max() <= 1 and (d == 0).mean() >= 0.8, (d.max(), (d == 0).mean())
        w = R.gaussian_weights(float(sigma), R.gaussian_ksize(float(sigma)))
        exact = R.sep_filter(chw(img).astype(np.float64), w)
        assert np.abs(got - exact).max() <= 0.505
        assert (got != R.saturate(exact, "uint16")).mean() <= 0.005


@pytest.mark.parametrize("k", list(CV["boxes"]))
def test_box_blur_vs_opencv_16u(k):
    for img, want in zip(CV["hwc"], CV[f"box_{k}"]):
        got = augpy.tensor_to_array(augpy.box_blur_single(augpy.array_to_tensor(chw(img)), int(k)))
        d = diff(got, chw(want))
        assert d.max() <= 1 and (d == 0).mean() >= 0.99, (d.max(), (d == 0).mean())
        exact = R.saturate(R.box_sum(chw(img), int(k)) / float(k * k), "uint16")
        assert diff(got, exact).max() <= 1


def test_grayscale_vs_opencv_16u():
    """torchvision's weights (0.2989, 0.587, 0.114; truncated) against OpenCV's (0.299, 0.587,
    0.114; rounded): within 0.0001 * 65535 + 1 = 7.6."""
    for img, want in zip(CV["hwc"], CV["gray"]):
        got = augpy.tensor_to_array(augpy.rgb_to_grayscale(augpy.array_to_tensor(chw(img)), 1))[0]
        assert diff(got, want).max() <= 8


@pytest.mark.skipif(not ON_CUDA, reason="the CUDA backend is not the default device (MODE=emu runs it)")
def test_blurs_cpu_and_cuda_agree_bit_for_bit(rng):
    x = rng.integers(0, 65536, (3, 3, 29, 41), dtype=np.uint16)
    for k in (2, 3, 5):
        assert (augpy.tensor_to_array(augpy.box_blur_single(host_tensor(x[0]), k)).tobytes()
                == augpy.tensor_to_array(augpy.box_blur_single(augpy.array_to_tensor(x[0]), k)).tobytes())
    s = np.array([0.7, 1.9, 3.3], np.float32)
    assert (augpy.tensor_to_array(augpy.gaussian_blur(host_tensor(x), s, 31)).tobytes()
            == augpy.tensor_to_array(augpy.gaussian_blur(augpy.array_to_tensor(x), s, 31)).tobytes())
