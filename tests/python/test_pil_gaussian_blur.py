"""augpy.pil_gaussian_blur_single / pil_gaussian_blur (PIL's ImageFilter.GaussianBlur, docs/filters.md)
against the NumPy definition (pilblur_ref.py: Pillow's extended box blur, bit-exact): random radii and
sizes (radius 0, below 1, wider than the image; 1 x 1 and 2 x 3 images), per-image radii, out= and in
place, on the session's device (the emulated CUDA device with MODE=emu) and the CPU byte for byte; against
Pillow itself when it is installed; then bad input with its errors."""
import math

import numpy as np
import pytest

import augpy
from conftest import host_tensor
from pilblur_ref import pil_gaussian_blur_ref as ref


def blur(x, radius):
    return augpy.tensor_to_array(augpy.pil_gaussian_blur_single(augpy.array_to_tensor(x), radius))


@pytest.mark.parametrize("shape", [(1, 1, 1), (1, 2, 3), (3, 2, 3), (3, 17, 23), (1, 40, 3), (4, 9, 31)])
@pytest.mark.parametrize("radius", [0.0, 1e-40, 0.01, 0.1, 0.5, 1.0, 1.37, 2.0, 3.3, 7.9, 25.0, 300.0])
def test_matches_definition(rng, shape, radius):
    x = rng.integers(0, 256, shape, dtype=np.uint8)
    got = blur(x, radius)
    want = ref(x, radius)
    assert got.dtype == np.uint8 and got.shape == x.shape
    np.testing.assert_array_equal(got, want)
    cpu = augpy.tensor_to_array(augpy.pil_gaussian_blur_single(host_tensor(x), radius))
    assert cpu.tobytes() == got.tobytes()


def test_random_sizes_and_radii(rng):
    for _ in range(60):
        shape = tuple(int(v) for v in rng.integers(1, 40, 3))
        shape = (shape[0] % 4 + 1,) + shape[1:]
        radius = float(rng.choice([rng.uniform(0, 3), rng.uniform(0, 50)]))
        x = rng.integers(0, 256, shape, dtype=np.uint8)
        np.testing.assert_array_equal(blur(x, radius), ref(x, radius), err_msg=f"{shape} radius {radius}")


def test_batch_per_image_radii_out_in_place(rng):
    x = rng.integers(0, 256, (5, 3, 21, 18), dtype=np.uint8)
    radii = [1.5, 0.0, 0.3, 40.0, 2.0]
    want = np.stack([ref(x[i], r) for i, r in enumerate(radii)])
    for rad in (radii, np.asarray(radii, np.float32), augpy.array_to_tensor(np.asarray(radii, np.float32))):
        np.testing.assert_array_equal(augpy.tensor_to_array(augpy.pil_gaussian_blur(augpy.array_to_tensor(x), rad)),
                                      want)
    one = np.stack([ref(x[i], 1.1) for i in range(5)])
    np.testing.assert_array_equal(augpy.tensor_to_array(augpy.pil_gaussian_blur(augpy.array_to_tensor(x), 1.1)), one)
    t = augpy.array_to_tensor(x)
    out = augpy.empty((5, 3, 21, 18), dtype=augpy.uint8)
    assert augpy.pil_gaussian_blur(t, radii, out=out) is out
    np.testing.assert_array_equal(augpy.tensor_to_array(out), want)
    assert augpy.pil_gaussian_blur(t, radii, out=t) is t  # in place
    np.testing.assert_array_equal(augpy.tensor_to_array(t), want)
    s = augpy.array_to_tensor(x[0])
    assert augpy.pil_gaussian_blur_single(s, 1.5, out=s) is s
    np.testing.assert_array_equal(augpy.tensor_to_array(s), want[0])


def test_strided_input(rng):
    x = rng.integers(0, 256, (3, 30, 40), dtype=np.uint8)
    view = x[:, ::-1, ::2]  # flipped rows, every other column
    got = augpy.tensor_to_array(augpy.pil_gaussian_blur_single(view, 2.2))
    np.testing.assert_array_equal(got, ref(np.ascontiguousarray(view), 2.2))


def test_matches_pillow(rng):
    Image = pytest.importorskip("PIL.Image")
    ImageFilter = pytest.importorskip("PIL.ImageFilter")
    for shape, radius in [((3, 31, 45), 1.3), ((3, 8, 9), 0.4), ((1, 20, 17), 2.0), ((3, 5, 6), 12.0)]:
        x = rng.integers(0, 256, shape, dtype=np.uint8)
        mode = "RGB" if shape[0] == 3 else "L"
        im = Image.fromarray(x.transpose(1, 2, 0) if shape[0] == 3 else x[0], mode)
        want = np.asarray(im.filter(ImageFilter.GaussianBlur(radius)))
        want = want.transpose(2, 0, 1) if shape[0] == 3 else want[None]
        np.testing.assert_array_equal(blur(x, radius), want)


def test_bad_input():
    x = np.zeros((3, 4, 5), np.uint8)
    for bad in (-1.0, -1e-9, math.nan, math.inf, -math.inf, 2e6):
        with pytest.raises(ValueError, match=r"augpy.pil_gaussian_blur_single: radius = .* must be in \[0, 1e\+06\]"):
            blur(x, bad)
    with pytest.raises(TypeError, match="radius must be a number, not 'str'"):
        augpy.pil_gaussian_blur_single(augpy.array_to_tensor(x), "1")
    with pytest.raises(TypeError, match="radius must be a number, not 'bool'"):
        augpy.pil_gaussian_blur_single(augpy.array_to_tensor(x), True)
    for dt in (np.uint16, np.float32, np.int8):
        with pytest.raises(TypeError, match=r"input must be uint8 \(PIL's 8-bit images\), not"):
            blur(x.astype(dt), 1.0)
    b = augpy.array_to_tensor(np.zeros((2, 3, 4, 5), np.uint8))
    with pytest.raises(ValueError, match=r"augpy.pil_gaussian_blur: radii\[1\] = -1 must be in \[0"):
        augpy.pil_gaussian_blur(b, [1.0, -1.0])
    with pytest.raises(ValueError, match=r"radii\[0\] = nan"):
        augpy.pil_gaussian_blur(b, [math.nan, 1.0])
    with pytest.raises(ValueError, match="radii"):
        augpy.pil_gaussian_blur(b, [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match=r"_single: input must be \(C, H, W\), got shape \(2, 3, 4, 5\)"):
        augpy.pil_gaussian_blur_single(b, 1.0)
