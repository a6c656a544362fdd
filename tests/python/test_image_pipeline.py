"""augpy.image.DecodeWarp / Lighting and the augpy-demo job.

The classes are checked against the functions they compose, called by hand
(Decoder.decode + make_transform + warp_affine, lighting), which have their own
reference tests against Pillow/OpenCV/NumPy. The demo is checked for
reproducibility (same seed -> same bytes, any thread count) and its errors.
"""
import io
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

import augpy
from conftest import DECODE_ENGINE, PLANS_BY_DEFAULT
from jpegref import EMULATED, assert_decoded, expected_rgb, mismatch
from augpy.image import DecodeWarp, Lighting, Lightning

SAMPLES = pathlib.Path(augpy.__file__).resolve().parent / "samples"


def jpeg(h, w, seed):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    img = np.stack([x * 255 // max(w - 1, 1), y * 255 // max(h - 1, 1), (x + y) % 256], -1)
    img = np.clip(img + rng.normal(0, 8, img.shape), 0, 255).astype(np.uint8)
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, format="JPEG", quality=90)
    return buf.getvalue()


IMAGES = [jpeg(48, 64, 1), jpeg(60, 40, 2), jpeg(33, 57, 3)]
PARAMS = [{"angle": 10.0, "scale": 1.2, "hmirror": True},
          {"shift": (0.5, -0.5), "shear": (0.1, 0.0), "aspect": 1.3, "unrelated": "ignored"},
          {}]
BG = (124, 116, 104)


def by_hand(data, params, shape, background, dtype=augpy.uint8):
    img = augpy.Decoder().decode(data)
    keys = ("angle", "scale", "aspect", "shift", "shear", "hmirror", "vmirror", "scale_mode", "max_supersampling")
    m, s = augpy.make_transform(img.shape[:2], shape[1:], **{k: v for k, v in params.items() if k in keys})
    dst = augpy.Tensor(shape, dtype=dtype)
    augpy.warp_affine(img, dst, m, augpy.array_to_tensor(np.array(background, np.float64)), s)
    return dst.numpy()


@pytest.mark.parametrize("threads", [1, 2])
def test_decode_warp_matches_manual_calls(threads):
    dw = DecodeWarp(4, (3, 20, 24), background=BG, cpu_threads=threads, dct_scale=False)
    out = dw({"image": IMAGES, "augmentation": PARAMS})
    batch = out["image"]
    assert batch.shape == (3, 3, 20, 24) and batch.dtype == augpy.uint8
    got = batch.numpy()
    for i in range(3):
        np.testing.assert_array_equal(got[i], by_hand(IMAGES[i], PARAMS[i], (3, 20, 24), BG))
    dw.close()


def on_cpu(data, params, shape, background):
    """The CPU backend's result whatever the default device: the pixels a whole-image decode of
    the session's engine must give (Pillow's, the CPU decoder's; on 'nvjpeg' libjpeg-turbo's
    fast-upsampling decode, jpegref.py) warped on CPU tensors. Compare with `close`."""
    img = augpy.array_to_tensor(expected_rgb(DECODE_ENGINE, data)[0]).cpu()
    keys = ("angle", "scale", "aspect", "shift", "shear", "hmirror", "vmirror", "scale_mode", "max_supersampling")
    m, s = augpy.make_transform(img.shape[:2], shape[1:], **{k: v for k, v in params.items() if k in keys})
    dst = augpy.Tensor(shape).cpu()
    augpy.warp_affine(img, dst, m, augpy.array_to_tensor(np.array(background, np.float64)).cpu(), s)
    return dst.numpy()


def close(got, ref, what=""):
    """got equals on_cpu's ref: exactly, or within jpegref's bounds where a GPU's nvJPEG decoded
    (a warp mixes neighbouring pixels, so its differences stay within the decode's)."""
    why = mismatch(got, ref, exact=DECODE_ENGINE != "nvjpeg" or EMULATED)
    assert why is None, f"{what}: {why}"


@pytest.mark.parametrize("threads", [1, 2])
def test_decode_warp_sample_set_equals_cpu(threads):
    """DecodeWarp on the default device (cuda:0 in the emulated session) gives the CPU's bytes."""
    files = sorted(SAMPLES.glob("*.jpg"))
    data = [f.read_bytes() for f in files]
    rng = np.random.default_rng(7)
    params = [{"angle": float(rng.uniform(-30, 30)), "scale": float(rng.uniform(0.7, 1.5)),
               "shift": (float(rng.uniform(-1, 1)), float(rng.uniform(-1, 1))), "hmirror": bool(i % 2)}
              for i in range(len(data))]
    dw = DecodeWarp(len(data), (3, 64, 80), background=BG, cpu_threads=threads, dct_scale=False)
    got = dw({"image": data, "augmentation": params})["image"].numpy()
    for i in range(len(data)):
        close(got[i], on_cpu(data[i], params[i], (3, 64, 80), BG), files[i].name)
    dw.close()


def test_decode_warp_ring_is_stream_safe():
    """A ring buffer is rewritten only after the work queued on the caller's stream (which
    still reads it) has run; batches are ready on the caller's stream without a host wait."""
    dw = DecodeWarp(3, (3, 20, 24), background=BG, cpu_threads=2, num_buffers=2, dct_scale=False)
    many = augpy.zeros((300, 1, 1, 1, 1), dtype=augpy.uint8)
    augpy.synchronize()
    with augpy.CudaStream():  # a stream of the caller's (no implicit order with the decoders')
        first = dw({"image": IMAGES, "augmentation": PARAMS})["image"]
        # long work queued on the caller's stream, reading buffer 0 (still running when the
        # decoders of the next calls start)
        readers = [first + many for _ in range(3)]
        for k in range(3):  # buffer 1, buffer 0 again, buffer 1
            order = IMAGES[k + 1:] + IMAGES[:k + 1]
            dw({"image": order, "augmentation": PARAMS})
        expect = np.stack([on_cpu(IMAGES[i], PARAMS[i], (3, 20, 24), BG) for i in range(3)])
        for r in readers:
            close(r.numpy(), np.broadcast_to(expect, (300,) + expect.shape))
    dw.close()


def first_error(data):
    """The message of the first call DecodeWarp makes on data: Decoder.info where it plans the
    decode (libjpeg's header reader: "Premature end of JPEG file" for a file cut in its header),
    Decoder.decode on the 'nvjpeg' engine ("... missing SOS marker")."""
    dec = augpy.Decoder()
    with pytest.raises(augpy.DecodeError) as e:
        (dec.info if PLANS_BY_DEFAULT else dec.decode)(data)
    return str(e.value)


def test_decode_warp_threads_work_largest_first_and_report_in_image_order():
    """With cpu_threads > 1 the decoders take the largest files first (the batch does not
    end on one thread with a big image); the bytes are those of one thread, and of several
    failures the first in image order is raised, after every job ended."""
    big = jpeg(240, 320, 7)
    images = [IMAGES[0], big, bytearray(IMAGES[1]), memoryview(IMAGES[2]), jpeg(120, 90, 8)]
    params = [PARAMS[0], PARAMS[1], PARAMS[2], PARAMS[0], PARAMS[1]]
    one = DecodeWarp(5, (3, 20, 24), background=BG, cpu_threads=1)
    two = DecodeWarp(5, (3, 20, 24), background=BG, cpu_threads=3)
    want = one({"image": images, "augmentation": params})["image"].numpy()
    np.testing.assert_array_equal(two({"image": images, "augmentation": params})["image"].numpy(), want)
    # image 1 (small: decoded last) and image 3 (not a JPEG) fail; image 1's error is raised
    for bad in ([big, IMAGES[0][:200], big, b"not an image", big], [big, b"not an image", big, IMAGES[0][:200]]):
        expect = re.escape(f"DecodeWarp: image 1 (bytes, jpeg): {first_error(bad[1])}") \
            if bad[1].startswith(b"\xff\xd8") else "not a JPEG, PNG, WebP, TIFF or AVIF file"
        with pytest.raises(Exception, match=expect):
            two({"image": bad})
    # the stage still works afterwards
    np.testing.assert_array_equal(two({"image": images, "augmentation": params})["image"].numpy(), want)
    one.close()
    two.close()


def test_decode_warp_dtype_buffers_and_decode_buffer():
    dw = DecodeWarp(2, (3, 16, 16), background=BG, dtype=augpy.float32, num_buffers=2, decode_buffer_size=64 * 64 * 3, dct_scale=False)
    a = dw({"image": IMAGES[:2], "augmentation": PARAMS[:2]})["image"]
    assert a.dtype == augpy.float32 and a.shape == (2, 3, 16, 16)
    first = a.numpy().copy()
    b = dw({"image": IMAGES[:2], "augmentation": PARAMS[:2]})["image"]
    # Two buffers in turn: the first result is not overwritten by the second call.
    np.testing.assert_array_equal(a.numpy(), first)
    np.testing.assert_array_equal(b.numpy(), first)
    np.testing.assert_array_equal(first[0], by_hand(IMAGES[0], PARAMS[0], (3, 16, 16), BG, augpy.float32))


def test_decode_warp_default_background_and_missing_augmentation():
    dw = DecodeWarp(1, (3, 30, 30), dct_scale=False)
    # scale 0.25 leaves most of the canvas empty: the default background is 0.
    got = dw({"image": IMAGES[:1], "augmentation": [{"scale": 0.25}]})["image"].numpy()
    assert got[0, :, 0, 0].tolist() == [0, 0, 0]
    got2 = dw({"image": IMAGES[:1]})["image"].numpy()
    np.testing.assert_array_equal(got2[0], by_hand(IMAGES[0], {}, (3, 30, 30), (0, 0, 0)))


def test_explicit_zero_is_kept():
    # augpy replaced falsy values by defaults; here an explicit 0 is used as given.
    dw = DecodeWarp(1, (3, 8, 8), dct_scale=False)
    with pytest.raises(ValueError):
        dw({"image": IMAGES[:1], "augmentation": [{"scale": 0}]})
    light = Lighting(1)
    t = augpy.array_to_tensor(np.full((1, 3, 2, 2), 100, np.uint8))
    with pytest.raises(ValueError, match="gammagrays"):  # gamma 0 reaches lighting, which refuses it
        light({"image": t, "augmentation": [{"gamma_gray": 0}]})
    light({"image": t, "augmentation": [{"gamma_gray": 2, "contrast": 0}]})
    assert t.numpy().tolist() == np.full((1, 3, 2, 2), 39).tolist()  # 255 * (100/255) ** 2 = 39.2


def test_lighting_matches_function():
    rng = np.random.default_rng(5)
    arr = rng.integers(0, 256, (2, 3, 5, 7), dtype=np.uint8)
    params = [{"gamma_gray": 1.3, "gamma_color": [0.9, 1.0, 1.1], "contrast": 0.4},
              {"gamma_gray": 0.8, "contrast": -0.3}]
    t = augpy.array_to_tensor(arr)
    out = Lightning(4, channels=3)({"image": t, "augmentation": params})
    assert out["image"] is t
    expect = augpy.lighting(augpy.array_to_tensor(arr),
                            augpy.array_to_tensor(np.array([1.3, 0.8], np.float32)),
                            augpy.array_to_tensor(np.array([0.9, 1.0, 1.1, 1, 1, 1], np.float32)),
                            augpy.array_to_tensor(np.array([0.4, -0.3], np.float32)), 0, 255)
    np.testing.assert_array_equal(t.numpy(), expect.numpy())


@pytest.mark.parametrize("kwargs, match", [
    ({"batch_size": 0, "shape": (3, 4, 4)}, "batch_size"),
    ({"batch_size": 2, "shape": (4, 4)}, "shape"),
    ({"batch_size": 2, "shape": (3, 4, 4), "background": (1, 2)}, "background"),
    ({"batch_size": 2, "shape": (3, 4, 4), "cpu_threads": 0}, "cpu_threads"),
    ({"batch_size": 2, "shape": (3, 4, 4), "num_buffers": -1}, "num_buffers"),
])
def test_decode_warp_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        DecodeWarp(**kwargs)


def test_decode_warp_bad_batches():
    dw = DecodeWarp(2, (3, 8, 8))
    with pytest.raises(ValueError, match="3 images for a batch size of 2"):
        dw({"image": IMAGES, "augmentation": PARAMS})
    with pytest.raises(ValueError, match="augmentation dicts"):
        dw({"image": IMAGES[:2], "augmentation": PARAMS[:1]})
    with pytest.raises(TypeError, match="'image' key"):
        dw([IMAGES[0]])
    with pytest.raises(augpy.NvJpegError):
        dw({"image": [IMAGES[0][:200]]})


def test_lighting_bad_arguments():
    light = Lighting(2, channels=3)
    with pytest.raises(ValueError, match="channels"):
        light({"image": augpy.Tensor((1, 4, 2, 2)), "augmentation": [{}]})
    with pytest.raises(ValueError, match="gamma_color"):
        light({"image": augpy.zeros((1, 3, 2, 2)), "augmentation": [{"gamma_color": [1, 2]}]})
    with pytest.raises(ValueError, match="min_value"):
        Lighting(2, min_value=5, max_value=5)


# ---- the demo ---------------------------------------------------------------------

def run_demo(tmp_path, *args):
    cmd = [sys.executable, "-m", "augpy.demo", "--images", "6", "--batch-size", "4", "--size", "48", "64",
           "--output", str(tmp_path), "--no-progress", *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    return proc


def test_demo_is_reproducible(tmp_path):
    a, b, c, d = (tmp_path / x for x in "abcd")
    runs = [run_demo(a, "--seed", "3", "--threads", "1"), run_demo(b, "--seed", "3", "--threads", "2"),
            run_demo(c, "--seed", "4")]
    for p in runs:
        assert p.returncode == 0, p.stderr
        assert "images/s" in p.stdout and "contact sheet" in p.stdout
    sheet = (a / "contact_sheet.png").read_bytes()
    assert sheet == (b / "contact_sheet.png").read_bytes()
    assert sheet != (c / "contact_sheet.png").read_bytes()
    img = np.asarray(Image.open(io.BytesIO(sheet)))
    # 6 pairs, 4 per row: 2 rows of 48 px, 4 columns of two 64 px images (4 px gaps).
    assert img.shape == (2 * 52 + 4, 4 * (128 + 12) + 4, 3)
    # A folder of the user's own JPEGs works too.
    d.mkdir()
    (d / "x.jpg").write_bytes(IMAGES[0])
    p = run_demo(tmp_path / "e", str(d))
    assert p.returncode == 0, p.stderr


def test_demo_imagenet_recipe(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    runs = [run_demo(a, "--recipe", "imagenet", "--seed", "3", "--threads", "1"),
            run_demo(b, "--recipe", "imagenet", "--seed", "3", "--threads", "2")]
    for p in runs:
        assert p.returncode == 0, p.stderr
        assert "recipe imagenet" in p.stdout and "DCT scales" in p.stdout and "eval" in p.stdout
    assert (a / "contact_sheet.png").read_bytes() == (b / "contact_sheet.png").read_bytes()
    d = tmp_path / "png"
    d.mkdir()
    Image.open(io.BytesIO(IMAGES[0])).save(d / "x.png")
    p = run_demo(tmp_path / "c", "--recipe", "imagenet", str(d))
    assert p.returncode == 0, p.stderr


def test_demo_errors(tmp_path):
    p = run_demo(tmp_path, str(tmp_path / "missing"))
    assert p.returncode != 0 and "does not exist" in p.stderr
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "broken.jpg").write_bytes(IMAGES[0][:300])
    p = run_demo(tmp_path, str(tmp_path / "bad"))
    assert p.returncode == 1 and "broken.jpg" in p.stderr
    p = run_demo(tmp_path, "--batch-size", "0")
    assert p.returncode == 2 and "--batch-size" in p.stderr


def test_samples_are_small_and_decode():
    files = sorted(SAMPLES.glob("*.jpg"))
    assert len(files) >= 8
    assert sum(f.stat().st_size for f in files) < 400 * 1024
    for f in files:
        data = f.read_bytes()
        img = augpy.Decoder().decode(data)
        assert_decoded(DECODE_ENGINE, img.numpy(), data)
