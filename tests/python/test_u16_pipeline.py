"""A 16-bit pipeline (issue 31): 16-bit PNG / TIFF files decoded with decode_dtype='uint16'
through the DecodeWarp / ImageNetTrain / ImageNetEval stages into uint16 batches, then
Normalize to float32 with mean / std in 16-bit units (docs/formats.md "16-bit pipelines").

References: the files' own 16-bit samples (written by OpenCV), augpy.warp_affine of the
decoded image with the matrix the stage records, and (x - mean) / std in NumPy.
"""
import cv2
import numpy as np
import pytest

import augpy
from conftest import DECODE_ENGINE
from augpy.image import DecodeWarp, ImageNetEval, ImageNetTrain, Normalize, imagenet_train

MEAN16 = [v * 257 for v in (123.675, 116.28, 103.53)]
STD16 = [v * 257 for v in (58.395, 57.12, 57.375)]


def files(h, w, seed):
    """A 16-bit RGB image over the whole range and its PNG and TIFF files."""
    img = np.random.default_rng(seed).integers(0, 65536, (h, w, 3)).astype(np.uint16)
    img = cv2.GaussianBlur(img, (5, 5), 1.0)
    out = []
    for ext in (".png", ".tiff"):
        ok, f = cv2.imencode(ext, img[..., ::-1])  # OpenCV writes BGR
        assert ok
        out.append(f.tobytes())
    return img, out


def host(t):
    return t.cpu().numpy()


def warped(img, matrix, shape, s):
    """augpy.warp_affine of a decoded image into a (C, H, W) uint16 tensor."""
    dst = augpy.Tensor((3,) + tuple(shape), dtype=augpy.uint16)
    augpy.warp_affine(augpy.array_to_tensor(img), dst, np.asarray(matrix, np.float32).reshape(2, 3), None, s)
    return host(dst)


@pytest.mark.parametrize("which", [0, 1])
def test_imagenet_train_identity_keeps_16_bits(which):
    """A crop of the whole image at the output size with no flip is the identity warp: the
    uint16 batch is the file's samples bit for bit, and Normalize gives (x - mean) / std."""
    img, fs = files(32, 48, 1)
    stage = ImageNetTrain(2, (32, 48), scale=(1.0, 1.0), ratio=(1.5, 1.5), hflip=0.0, seed=0,
                          decode_dtype="uint16")
    assert stage.dtype == augpy.uint16 and stage.decode_dtype == augpy.uint16
    batch = stage({"image": [fs[which], fs[which]]})
    got = host(batch["image"])
    assert got.dtype == np.uint16 and got.shape == (2, 3, 32, 48)
    assert np.array_equal(got[0], img.transpose(2, 0, 1)) and np.array_equal(got[1], got[0])
    out = host(Normalize(2, MEAN16, STD16)(batch)["image"])
    want = (img.transpose(2, 0, 1).astype(np.float64) - np.array(MEAN16)[:, None, None]) / \
        np.array(STD16)[:, None, None]
    assert out.dtype == np.float32
    np.testing.assert_allclose(out[0], want, rtol=1e-6, atol=1e-6)


def test_imagenet_train_crops_equal_warp_of_decode():
    """Random crops enlarged (no supersampling): each uint16 image equals warp_affine of the
    16-bit decode with the recorded full-image matrix; values beyond 255 survive."""
    img, (png, tif) = files(40, 40, 2)
    stage = ImageNetTrain(4, 64, seed=7, decode_dtype=augpy.uint16)
    batch = stage({"image": [png, tif, png, tif]})
    got = host(batch["image"])
    assert got.max() > 255
    for i, a in enumerate(batch["augmentation"]):
        assert a["source_size"] == (40, 40)
        assert np.array_equal(got[i], warped(img, a["matrix"], (64, 64), 1)), i


def test_decode_warp_and_eval_uint16():
    img, (png, tif) = files(50, 70, 3)
    dw = DecodeWarp(2, (3, 30, 30), dtype=augpy.uint16, decode_dtype="uint16")
    batch = dw({"image": [png, tif], "augmentation": [dict(angle=20), dict(scale=1.3, hmirror=True)]})
    got = host(batch["image"])
    for i, kw in enumerate((dict(angle=20), dict(scale=1.3, hmirror=True))):
        m, s = augpy.make_transform((50, 70), (30, 30), **kw)
        assert np.array_equal(got[i], warped(img, m, (30, 30), s))
    ev = ImageNetEval(2, 24, 28, decode_dtype="uint16")
    batch = ev({"image": [png, tif]})
    got = host(batch["image"])
    m, s = augpy.resize_center_crop_matrix((50, 70), 24, 28)
    assert got.dtype == np.uint16 and np.array_equal(got[0], warped(img, m, (24, 24), s))
    assert np.array_equal(got[1], got[0])


def test_8_bit_files_widen_by_257():
    """An 8-bit PNG or JPEG through a uint16 stage (the identity warp) is the uint8 stage's
    batch times 257 (docs/formats.md: 8-bit samples widen by 257)."""
    rgb = np.random.default_rng(4).integers(0, 256, (32, 48, 3)).astype(np.uint8)
    kw = dict(scale=(1.0, 1.0), ratio=(1.5, 1.5), hflip=0.0, seed=0)
    for ext in (".png", ".jpg"):  # a JPEG takes the planned (region, DCT-scaled) decode
        f = cv2.imencode(ext, rgb[..., ::-1])[1].tobytes()
        b16 = host(ImageNetTrain(1, (32, 48), decode_dtype="uint16", **kw)({"image": [f]})["image"])
        b8 = host(ImageNetTrain(1, (32, 48), **kw)({"image": [f]})["image"])
        if ext == ".jpg" and DECODE_ENGINE == "nvjpeg":
            # uint16 JPEGs decode on the CPU (nvJPEG is 8-bit: docs/formats.md); the uint8 stage
            # decodes there too when it plans (dct_scale=True), else on nvJPEG, whose pixels differ
            b8 = host(ImageNetTrain(1, (32, 48), dct_scale=True, **kw)({"image": [f]})["image"])
        assert b8.dtype == np.uint8 and np.array_equal(b16, b8.astype(np.uint16) * 257), ext


def test_imagenet_train_recipe_uint16():
    """imagenet_train passes decode_dtype on: 16-bit in, float32 out, mean / std in 16-bit units."""
    img, (png, _) = files(32, 48, 5)
    stage = imagenet_train(1, (32, 48), jitter=None, mean=MEAN16, std=STD16, scale=(1.0, 1.0),
                           ratio=(1.5, 1.5), hflip=0.0, seed=0, decode_dtype="uint16")
    out = host(stage({"image": [png]})["image"])
    want = (img.transpose(2, 0, 1) - np.array(MEAN16)[:, None, None]) / np.array(STD16)[:, None, None]
    np.testing.assert_allclose(out[0], want, rtol=1e-6, atol=1e-6)


def test_decode_dtype_errors_and_pickle():
    import pickle
    with pytest.raises(TypeError, match=r"ImageNetTrain: decode_dtype must be None, 'uint8' or 'uint16', "
                                        r"got 'float32'"):
        ImageNetTrain(1, 8, decode_dtype="float32")
    with pytest.raises(TypeError, match="DecodeWarp: decode_dtype"):
        DecodeWarp(1, (3, 8, 8), decode_dtype=np.int16)
    st = pickle.loads(pickle.dumps(ImageNetEval(1, 8, 10, decode_dtype=np.uint16)))
    assert st.decode_dtype == augpy.uint16 and st.dtype == augpy.uint16
    assert DecodeWarp(1, (3, 8, 8)).decode_dtype == augpy.uint8
