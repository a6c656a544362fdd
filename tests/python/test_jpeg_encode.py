"""augpy.encode_jpeg (aug_jpeg_encode, libjpeg-turbo's tjCompress2): decoding its file gives
the pixels of Pillow's encoding of the same image at the same quality (the independent
reference: Pillow's own libjpeg, 4:2:0, its default settings), for RGB and grayscale, HWC /
CHW / HW and strided inputs, on the session's device (`make pytest-emu`: a CUDA tensor goes
through the host); the file's header says 4:2:0 baseline; bad input names the function and the
value."""
import io

import numpy as np
import pytest

import augpy

PIL = pytest.importorskip("PIL.Image")


def pil_jpeg(a, quality):
    buf = io.BytesIO()
    PIL.fromarray(a).save(buf, "JPEG", quality=quality)
    return buf.getvalue()


def decode(data):
    return augpy.Decoder().decode(data, mode="unchanged").cpu().numpy()


def photo(h=37, w=53, seed=0):
    """A smooth image with noise (a photo-like spectrum, so that quality matters)."""
    y, x = np.mgrid[0:h, 0:w]
    base = np.stack([128 + 100 * np.sin(x / 7.0), 128 + 100 * np.cos(y / 5.0), (x * 3 + y * 2) % 256], -1)
    noise = np.random.default_rng(seed).normal(0, 12, (h, w, 3))
    return np.clip(base + noise, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("quality", [1, 10, 50, 75, 95, 100])
def test_rgb_equals_pillow(quality):
    a = photo()
    ours = augpy.encode_jpeg(augpy.array_to_tensor(a), quality)
    assert isinstance(ours, bytes) and ours[:2] == b"\xff\xd8"
    theirs = pil_jpeg(a, quality)
    np.testing.assert_array_equal(decode(ours), decode(theirs))
    assert ours == theirs  # the same settings: the same file, byte for byte
    info = augpy.Decoder().info(ours)
    assert info["sampling"] == "4:2:0" and not info["progressive"] and (info["height"], info["width"]) == (37, 53)


@pytest.mark.parametrize("quality", [5, 75, 100])
def test_gray_equals_pillow(quality):
    g = photo(seed=1)[:, :, 0]
    for image in (g, g[:, :, None], g[None]):
        ours = augpy.encode_jpeg(augpy.array_to_tensor(np.ascontiguousarray(image)), quality)
        assert augpy.Decoder().info(ours)["components"] == 1
        np.testing.assert_array_equal(decode(ours)[:, :, 0], decode(pil_jpeg(g, quality))[:, :, 0])


def test_layouts_and_strides():
    a = photo(20, 30)
    want = decode(pil_jpeg(a, 80))
    chw = augpy.array_to_tensor(np.ascontiguousarray(a.transpose(2, 0, 1)))
    np.testing.assert_array_equal(decode(augpy.encode_jpeg(chw, 80)), want)
    np.testing.assert_array_equal(decode(augpy.encode_jpeg(a, quality=80)), want)  # a NumPy array
    big = augpy.array_to_tensor(photo(40, 60))
    view = big[::2, ::2]  # strided
    np.testing.assert_array_equal(decode(augpy.encode_jpeg(view, 80)),
                                  decode(pil_jpeg(np.ascontiguousarray(photo(40, 60)[::2, ::2]), 80)))
    # quality changes the file and the pixels
    assert len(augpy.encode_jpeg(a, 10)) < len(augpy.encode_jpeg(a, 95))


@pytest.mark.parametrize("quality", [0, 101, -5])
def test_bad_quality(quality):
    with pytest.raises(ValueError, match=rf"augpy.encode_jpeg: quality = {quality} is out of range \[1, 100\]"):
        augpy.encode_jpeg(photo(8, 8), quality)


def test_bad_images():
    with pytest.raises(TypeError, match=r"augpy.encode_jpeg: image must be uint8, not float32"):
        augpy.encode_jpeg(np.zeros((8, 8, 3), np.float32), 50)
    with pytest.raises(ValueError, match=r"augpy.encode_jpeg: image must have 1 or 3 channels, got 4"):
        augpy.encode_jpeg(augpy.array_to_tensor(np.zeros((8, 8, 4), np.uint8)), 50, layout="HWC")
    with pytest.raises(ValueError, match=r"augpy.encode_jpeg: image of 0 x 8"):
        augpy.encode_jpeg(augpy.array_to_tensor(np.zeros((0, 8, 3), np.uint8)), 50, layout="HWC")
    with pytest.raises(TypeError, match=r"augpy.encode_jpeg: quality must be an int"):
        augpy.encode_jpeg(photo(8, 8), 50.5)
