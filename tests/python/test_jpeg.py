"""augpy.Decoder and augpy.jpeg_info (semantics §13): every JPEG is generated in the test
(Pillow, OpenCV) and the decoded pixels must equal Pillow's
np.asarray(Image.open(f).convert('RGB')) exactly: baseline 4:4:4 / 4:2:2 / 4:2:0
(and OpenCV's 4:4:0 / 4:1:1), progressive, restart markers, grayscale, CMYK. On the 'nvjpeg'
engine the files nvJPEG decodes must equal libjpeg-turbo's fast-upsampling decode instead
(nvJPEG replicates chroma; jpegref.py): exactly on the emulation, within IDCT rounding on a GPU.
Corrupt data (truncation at many offsets, seeded byte flips, non-JPEG bytes) raises
NvJpegError or decodes to a valid tensor, never crashes; the buffer rules; no leak.
Sampling factors TurboJPEG 2.1 cannot name (the libjpeg fallback) come from
rewriting the SOF factors of a Pillow/OpenCV file so the entropy data still fits
(same blocks per MCU and MCU count); more such factors are in tests/c/test_jpeg.c."""
import copy
import gc
import io
import multiprocessing
import os
import pickle
import re
import threading

import numpy as np
import pytest
from PIL import Image

import augpy
from conftest import decode_error, rss_bound
from jpegref import assert_decoded, expected_rgb, mismatch

cv2 = pytest.importorskip("cv2")

SIZES = [(37, 53), (480, 640), (1, 1), (8, 8), (17, 9)]


def image(h, w, seed=0, channels=3):
    """Smooth gradients plus noise: exercises both DC and AC coefficients."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    base = [(x * 255 // max(w - 1, 1)), (y * 255 // max(h - 1, 1)), ((x + y) * 127 // max(h + w - 2, 1)),
            (255 - x * 200 // max(w - 1, 1))]
    img = np.stack(base[:channels], -1) + rng.integers(-25, 26, (h, w, channels))
    return np.clip(img, 0, 255).astype(np.uint8)


def pil_jpeg(arr, mode=None, **kw):
    b = io.BytesIO()
    im = Image.fromarray(arr if arr.ndim == 3 and arr.shape[2] != 1 else arr.reshape(arr.shape[:2]))
    if mode:
        im = Image.fromarray(arr, mode) if mode == "CMYK" else im.convert(mode)
    im.save(b, "JPEG", **kw)
    return b.getvalue()


def pillow_rgb(data):
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


@pytest.fixture(scope="module")
def dec():
    return augpy.Decoder()


def check(dec, data):
    """dec's decode of data: Pillow's pixels (on 'nvjpeg': the fast-upsampling decode's)."""
    t = dec.decode(data)
    ref = pillow_rgb(data)
    assert t.shape == ref.shape and t.dtype == augpy.uint8
    assert t.layout == "HWC"
    assert_decoded(dec.engine, t.numpy(), data)
    assert augpy.jpeg_info(data) == ref.shape[:2]
    return t


def same(dec_or_engine, got, data):
    """Whether got is what a decoder (or engine) must give for data (jpegref.expected_rgb)."""
    engine = dec_or_engine if isinstance(dec_or_engine, str) else dec_or_engine.engine
    return mismatch(np.asarray(got), *expected_rgb(engine, data)) is None


@pytest.mark.parametrize("h,w", SIZES)
@pytest.mark.parametrize("subsampling", [0, 1, 2])
@pytest.mark.parametrize("progressive", [False, True])
def test_pillow_baseline_progressive(dec, h, w, subsampling, progressive):
    data = pil_jpeg(image(h, w, seed=h * w + subsampling), quality=90, subsampling=subsampling,
                    progressive=progressive)
    assert (data[2:4] != b"\xff\xc2") or progressive
    check(dec, data)


@pytest.mark.parametrize("quality", [5, 50, 100])
def test_quality(dec, quality):
    check(dec, pil_jpeg(image(64, 80, seed=quality), quality=quality, subsampling=2))


@pytest.mark.parametrize("factor", ["411", "420", "422", "440", "444"])
@pytest.mark.parametrize("h,w", [(37, 53), (480, 640)])
def test_opencv_sampling_factors(dec, factor, h, w):
    f = getattr(cv2, "IMWRITE_JPEG_SAMPLING_FACTOR_" + factor)
    ok, enc = cv2.imencode(".jpg", image(h, w, seed=3), [cv2.IMWRITE_JPEG_QUALITY, 90,
                                                         cv2.IMWRITE_JPEG_SAMPLING_FACTOR, f])
    assert ok
    check(dec, enc.tobytes())


def sof_patch(data, factors):
    """Rewrites the (h, v) sampling factor of every component in the SOF segment."""
    data = bytearray(data)
    i = 2
    while True:
        assert data[i] == 0xFF
        marker, length = data[i + 1], int.from_bytes(data[i + 2:i + 4], "big")
        if marker in (0xC0, 0xC1, 0xC2):
            assert data[i + 9] == len(factors)
            for k, (h, v) in enumerate(factors):
                data[i + 11 + 3 * k] = h << 4 | v
            return bytes(data)
        i += 2 + length


def opencv_jpeg(arr, factor, **params):
    flags = [cv2.IMWRITE_JPEG_QUALITY, 90, cv2.IMWRITE_JPEG_SAMPLING_FACTOR,
             getattr(cv2, "IMWRITE_JPEG_SAMPLING_FACTOR_" + factor)]
    for k, v in params.items():
        flags += [getattr(cv2, "IMWRITE_JPEG_" + k.upper()), v]
    ok, enc = cv2.imencode(".jpg", arr, flags)
    assert ok
    return enc.tobytes()


@pytest.mark.parametrize("h,w", [(64, 96), (32, 32), (480, 640)])
@pytest.mark.parametrize("kind", ["baseline", "progressive", "restart", "opencv411", "opencv420_progressive"])
def test_luma_1x4(dec, h, w, kind):
    """Y 1x4, Cb/Cr 1x1 (4:4:1): TurboJPEG 2.1 cannot name it ("Could not determine
    subsampling type"); libjpeg and Pillow decode it. Made from a 4:2:0 or 4:1:1 file
    (4 luma blocks per MCU; H a multiple of 32 and W of 32 keep the MCU count)."""
    arr = image(h, w, seed=h + w)
    if kind.startswith("opencv"):
        data = opencv_jpeg(arr, kind[6:9], progressive=int(kind.endswith("progressive")))
    else:
        data = pil_jpeg(arr, quality=90, subsampling=2, progressive=kind == "progressive",
                        **({"restart_marker_blocks": 3} if kind == "restart" else {}))
    data = sof_patch(data, [(1, 4), (1, 1), (1, 1)])
    t = check(dec, data)
    assert t.shape == (h, w, 3)
    # Truncations of the fallback's files raise too, and the decoder recovers.
    for n in truncations(len(data))[::4]:
        with pytest.raises(augpy.NvJpegError, match="Decoder.decode: "):
            dec.decode(data[:n])
    check(dec, data)


def test_warning_policy(dec):
    """libjpeg warnings are errors (semantics §13: corrupt data raises). Pillow ignores
    warnings: it decodes a file with stray bytes before a marker to the clean image
    and raises only on truncation (its own 'image file is truncated' check)."""
    data = pil_jpeg(image(48, 64, seed=10), quality=90)
    ref = pillow_rgb(data)
    sos = data.index(b"\xff\xda")
    for bad, marker in [(data[:-2] + b"\x55" * 16 + data[-2:], "0xd9"),
                        (data[:sos] + b"\x00\x01" + data[sos:], "0xda")]:
        assert np.array_equal(pillow_rgb(bad), ref)
        if dec.engine == "nvjpeg":  # nvJPEG's own affair: an error, or the clean file's pixels
            try:
                assert same(dec, dec.decode(bad).numpy(), data)
            except augpy.DecodeError as e:
                assert re.search(decode_error(dec, f"extraneous bytes before marker {marker}"), str(e))
            continue
        with pytest.raises(augpy.DecodeError, match=decode_error(dec, f"extraneous bytes before marker {marker}")):
            dec.decode(bad)
    for cut in (data[:-2], data[: len(data) // 2]):  # no EOI / half the data: both raise
        with pytest.raises(OSError, match="truncated"):
            pillow_rgb(cut)
        with pytest.raises(augpy.DecodeError, match=decode_error(dec, "Premature end of JPEG file")):
            dec.decode(cut)
    # Bytes after the EOI marker are not read by either.
    assert same(dec, dec.decode(data + b"trailing").numpy(), data)


@pytest.mark.parametrize("interval", [1, 2, 7])
@pytest.mark.parametrize("progressive", [0, 1])
def test_restart_markers_opencv(dec, interval, progressive):
    ok, enc = cv2.imencode(".jpg", image(37, 53, seed=interval), [cv2.IMWRITE_JPEG_RST_INTERVAL, interval,
                                                                  cv2.IMWRITE_JPEG_PROGRESSIVE, progressive])
    data = enc.tobytes()
    assert b"\xff\xdd" in data and b"\xff\xd0" in data  # DRI segment and an RST0 marker
    check(dec, data)


@pytest.mark.parametrize("kw", [{"restart_marker_blocks": 3}, {"restart_marker_rows": 1}])
def test_restart_markers_pillow(dec, kw):
    data = pil_jpeg(image(480, 640, seed=9), quality=90, **kw)
    assert b"\xff\xdd" in data
    check(dec, data)


@pytest.mark.parametrize("h,w", [(37, 53), (480, 640)])
@pytest.mark.parametrize("progressive", [False, True])
def test_grayscale(dec, h, w, progressive):
    data = pil_jpeg(image(h, w, seed=5), mode="L", quality=90, progressive=progressive)
    assert Image.open(io.BytesIO(data)).mode == "L"
    t = check(dec, data)
    g = t.numpy()
    assert np.array_equal(g[..., 0], g[..., 1]) and np.array_equal(g[..., 0], g[..., 2])


@pytest.mark.parametrize("h,w", [(37, 53), (480, 640)])
@pytest.mark.parametrize("progressive", [False, True])
def test_cmyk(dec, h, w, progressive):
    data = pil_jpeg(image(h, w, seed=6, channels=4), mode="CMYK", quality=90, progressive=progressive)
    assert Image.open(io.BytesIO(data)).mode == "CMYK"
    check(dec, data)


def test_cmyk_extremes(dec):
    """Flat patches at quality 100 with C, K at 0 and 255 (the inversion convention)."""
    vals = [0, 1, 128, 254, 255]
    arr = np.array([[(c, m, 255 - c, k) for c in vals for m in (0, 255)] for k in vals], np.uint8)
    arr = np.repeat(np.repeat(arr, 8, 0), 8, 1)
    check(dec, pil_jpeg(arr, mode="CMYK", quality=100, subsampling=0))


def test_rgb_colorspace_adobe(dec):
    """A JPEG stored in RGB (no YCbCr transform): Pillow's keep_rgb option."""
    data = pil_jpeg(image(37, 53, seed=7), quality=90, subsampling=0, keep_rgb=True)
    check(dec, data)


def test_data_types(dec):
    data = pil_jpeg(image(37, 53), quality=90)
    ref = pillow_rgb(data)
    for obj in [data, bytearray(data), memoryview(data), np.frombuffer(data, np.uint8),
                np.frombuffer(data, np.uint8).copy(), memoryview(b"xx" + data)[2:]]:
        assert same(dec, dec.decode(obj).numpy(), data)
        assert dec.decode(data=obj).shape == ref.shape
    assert augpy.jpeg_info(bytearray(data)) == (37, 53)


def test_wrong_types(dec):
    data = pil_jpeg(image(8, 8), quality=90)
    for bad in [5, None, [1, 2], np.frombuffer(data * 2, np.uint8)[::2]]:
        with pytest.raises(TypeError, match="Decoder.decode: data must be"):
            dec.decode(bad)
    with pytest.raises(TypeError, match="jpeg_info: data must be"):
        augpy.jpeg_info(None)
    # a str is a path (test_jpeg_roi.py::test_paths)
    with pytest.raises(FileNotFoundError, match="no-such-file.jpg"):
        augpy.jpeg_info("no-such-file.jpg")
    with pytest.raises(TypeError, match="Decoder.decode"):
        dec.decode()
    with pytest.raises(TypeError, match="Decoder.decode"):
        dec.decode(data, bogus=1)
    with pytest.raises(TypeError, match="buffer"):
        dec.decode(data, np.zeros(1000, np.uint8))
    with pytest.raises(TypeError):
        augpy.Decoder(device_padding="x")
    with pytest.raises(ValueError, match=r"^Decoder: host_padding = -1 is out of range \[0, "):
        augpy.Decoder(host_padding=-1)


def test_decoder_args():
    d = augpy.Decoder(0, 0, True)
    assert d.gpu_huffman is True and d.device_padding == 0
    d = augpy.Decoder()
    assert (d.device_padding, d.host_padding, d.gpu_huffman) == (16777216, 8388608, False)
    assert "Decoder" in repr(d)


def test_not_jpeg(dec):
    with pytest.raises(augpy.NvJpegError,
                       match=r"^Decoder.decode: not a JPEG, PNG, WebP, TIFF or AVIF file \(starts with 47 49 46 38 39 61 20 6e\)$"):
        dec.decode(b"GIF89a not a jpeg at all")
    with pytest.raises(augpy.JpegError, match=r"^Decoder.decode: not a JPEG, PNG, WebP, TIFF or AVIF file \(empty\)$"):
        dec.decode(b"")
    with pytest.raises(augpy.DecodeError, match=r"^jpeg_info: not a JPEG, PNG, WebP, TIFF or AVIF file \(starts with 00 01\)$"):
        augpy.jpeg_info(b"\x00\x01")
    png = io.BytesIO()
    Image.fromarray(image(8, 8)).save(png, "PNG")
    # PNG is the decoder's second format (test_png.py)
    assert np.array_equal(dec.decode(png.getvalue()).numpy(), image(8, 8))
    assert issubclass(augpy.NvJpegError, RuntimeError)


def truncations(n):
    return sorted(set([n * k // 40 for k in range(1, 40)] + list(range(n - 6, n - 1)) + [1, 2, 3]))


@pytest.mark.parametrize("kind", ["baseline", "progressive", "gray", "cmyk", "restart"])
def test_truncated(dec, kind):
    arr = image(48, 64, seed=11, channels=4 if kind == "cmyk" else 3)
    if kind == "restart":
        data = pil_jpeg(arr, quality=90, restart_marker_blocks=2)
    else:
        data = pil_jpeg(arr, mode={"gray": "L", "cmyk": "CMYK"}.get(kind), quality=90,
                        progressive=kind == "progressive")
    buf = augpy.zeros((64 * 48 * 3,), augpy.uint8)
    for n in truncations(len(data)):
        for b in (None, buf):
            with pytest.raises(augpy.NvJpegError, match="Decoder.decode: "):
                dec.decode(data[:n], b)
    # The decoder still works after all those errors.
    check(dec, data)


def test_byte_flips(dec):
    """Seeded random corruption: either an NvJpegError or a valid tensor."""
    rng = np.random.default_rng(1234)
    sources = [pil_jpeg(image(37, 53, seed=1), quality=90),
               pil_jpeg(image(37, 53, seed=2), quality=90, progressive=True),
               pil_jpeg(image(37, 53, seed=3, channels=4), mode="CMYK", quality=90)]
    outcomes = {"error": 0, "ok": 0}
    for i in range(300):
        data = bytearray(sources[i % len(sources)])
        for _ in range(rng.integers(1, 4)):
            data[rng.integers(0, len(data))] = rng.integers(0, 256)
        try:
            t = dec.decode(bytes(data))
        except augpy.NvJpegError as e:
            assert str(e).startswith("Decoder.decode: ")
            outcomes["error"] += 1
        else:
            assert t.ndim == 3 and t.shape[2] == 3 and t.dtype == augpy.uint8
            t.numpy()
            outcomes["ok"] += 1
    assert outcomes["error"] > 0 and outcomes["ok"] > 0
    check(dec, sources[0])


# ---- DecodeError: every decoder's errors ----------------------------------------------------------

def test_decode_error_class():
    assert issubclass(augpy.DecodeError, augpy.NvJpegError) and augpy.DecodeError is not augpy.NvJpegError
    assert issubclass(augpy.DecodeError, RuntimeError) and augpy.JpegError is augpy.NvJpegError
    assert augpy.DecodeError.__module__ == "augpy" and augpy.DecodeError is augpy._augpy.DecodeError
    assert "DecodeError" in augpy.__all__
    assert augpy.DecodeError.__doc__.startswith("DecodeError(*args)")
    # errors of worker processes come back pickled
    e = pickle.loads(pickle.dumps(augpy.DecodeError("Decoder.decode: Premature end of JPEG file")))
    assert type(e) is augpy.DecodeError and str(e) == "Decoder.decode: Premature end of JPEG file"


def test_truncated_jpeg_raises_decode_error(dec):
    """A truncated JPEG raises DecodeError (also caught as NvJpegError), whatever the engine, with
    libjpeg's reason, from every way of decoding it. On the 'nvjpeg' engine (whose other calls
    run on the CPU) the full decode is refused before nvJPEG sees the file, which nvJPEG would
    decode without an error: the core's marker walk finds no EOI and says where the data ends."""
    data = pil_jpeg(image(48, 64, seed=5), quality=90)
    half = data[: len(data) // 2]
    calls = [dec.decode, lambda b: dec.decode(b, scale=0.5), lambda b: dec.decode(b, roi=(0, 0, 40, 40)),
             lambda b: dec.decode(b, mode="gray"), lambda b: dec.decode(b, scale=0.5, contiguous=False)]
    for k, call in enumerate(calls):
        with pytest.raises(augpy.NvJpegError) as e:
            call(half)
        assert type(e.value) is augpy.DecodeError
        reason = "Premature end of JPEG file"
        if k == 0 and dec.engine == "nvjpeg":
            reason += rf" \(its {len(half)} bytes end inside the entropy-coded data of scan 1; no EOI marker\)"
        assert re.fullmatch(f"Decoder.decode: {reason}", str(e.value)), str(e.value)
    try:
        dec.decode(data[:300])
    except augpy.NvJpegError as e:  # the manual's name still catches it
        assert isinstance(e, RuntimeError)
    else:
        raise AssertionError("no error")
    for func, call in (("Decoder.info", dec.info), ("jpeg_info", augpy.jpeg_info)):
        with pytest.raises(augpy.DecodeError, match=f"^{func}: "):
            call(data[:40])  # cut inside the header
    check(dec, data)


NOT_IMAGES = [
    (b"", "(empty)"),
    (b"abc", "(starts with 61 62 63)"),
    (b"<html>\n<head><title>404 Not Found</title></head>\n", "(starts with 3c 68 74 6d 6c 3e 0a 3c)"),
    (b"\xff", "(starts with ff)"),
    (b"\x89PNG\r\n\x1a", "(starts with 89 50 4e 47 0d 0a 1a)"),  # a PNG's signature is 8 bytes
    (bytes(range(200, 256)), "(starts with c8 c9 ca cb cc cd ce cf)"),
]


@pytest.mark.parametrize("data,start", NOT_IMAGES)
def test_not_an_image_message(dec, tmp_path, data, start):
    """Bytes that start neither a JPEG (FF D8) nor a PNG (its 8-byte signature): DecodeError naming
    the first (up to 8) bytes in hex, the same from every entry and for every kind of data."""
    calls = [("Decoder.decode", dec.decode), ("Decoder.decode", lambda b: dec.decode(b, scale=0.25)),
             ("Decoder.decode", lambda b: dec.decode(b, roi=(0, 0, 1, 1), mode="rgba")),
             ("Decoder.info", dec.info), ("jpeg_info", augpy.jpeg_info)]
    path = tmp_path / "page.jpg"
    path.write_bytes(data)
    kinds = [data, bytearray(data), memoryview(data), np.frombuffer(data, np.uint8), str(path), path]
    for func, call in calls:
        for d in kinds:
            with pytest.raises(augpy.DecodeError) as e:
                call(d)
            assert str(e.value) == f"{func}: not a JPEG, PNG, WebP, TIFF or AVIF file {start}"


def test_jpeg_start_keeps_libjpeg_reason(dec):
    """FF D8 starts a JPEG: what follows is judged by libjpeg-turbo, whose reason is kept."""
    for data in (b"\xff\xd8", b"\xff\xd8\xff", b"\xff\xd8\x00\x00garbage"):
        with pytest.raises(augpy.DecodeError, match="^Decoder.decode: ") as e:
            dec.decode(data)
        assert type(e.value) is augpy.DecodeError and "not a JPEG, PNG, WebP, TIFF or AVIF file" not in str(e.value)


# ---- pickling -------------------------------------------------------------------------------------

def attrs(d):
    return (d.device_padding, d.host_padding, d.gpu_huffman, d.max_pixels, d.max_scan_pixels, d.engine, repr(d))


def test_decoder_pickles():
    d = augpy.Decoder(1024, 2048, True, max_pixels=5000, max_scan_pixels=77777)
    device = repr(d).split("device=")[1].split(",")[0]
    assert d.__reduce__() == (augpy._augpy._decoder_restore, (device, 1024, 2048, True, 5000, 77777))
    # a pickle made before max_scan_pixels (five arguments) still loads, with the default
    assert augpy._augpy._decoder_restore("cpu", 1024, 2048, True, 5000).max_scan_pixels == 1 << 32
    small, big = pil_jpeg(image(37, 53, seed=6), quality=90), pil_jpeg(image(80, 80, seed=7), quality=90)
    copies = [pickle.loads(pickle.dumps(d, p)) for p in range(pickle.HIGHEST_PROTOCOL + 1)]
    copies += [copy.deepcopy(d), copy.copy(d), copy.deepcopy([d, d])[1]]
    for c in copies:
        assert type(c) is augpy.Decoder and c is not d and attrs(c) == attrs(d)
        assert same(c, c.decode(small).numpy(), small)
        with pytest.raises(augpy.DecodeError, match="limit of 5000 pixels"):
            c.decode(big)  # the limit travelled
    defaults = pickle.loads(pickle.dumps(augpy.Decoder()))
    assert attrs(defaults) == attrs(augpy.Decoder())


def test_decoder_restore_checks_its_arguments():
    restore = augpy._augpy._decoder_restore
    r = restore("cpu", 0, 0, False, 100)  # a CPU decoder whatever the current device
    assert (r.device_padding, r.host_padding, r.gpu_huffman, r.max_pixels, r.engine) == (0, 0, False, 100,
                                                                                          "libjpeg-turbo")
    assert repr(r).startswith("<Decoder device=cpu, ")
    with pytest.raises(ValueError, match="does not exist"):
        restore("cuda:999", 0, 0, False, 100)
    with pytest.raises(ValueError, match="device must be"):
        restore("gpu", 0, 0, False, 100)
    with pytest.raises(ValueError, match="max_pixels must be in"):
        restore("cpu", 0, 0, False, 0)
    with pytest.raises(ValueError, match="host_padding"):
        restore("cpu", 0, -1, False, 100)
    with pytest.raises(TypeError):
        restore("cpu", 0, 0, False)


def test_decoder_in_spawned_process():
    """A Decoder pickles into a fresh process (multiprocessing's spawn method): it decodes there,
    with its max_pixels, and a decode error comes back as DecodeError."""
    data = pil_jpeg(image(37, 53, seed=8), quality=90)
    big = pil_jpeg(image(80, 80, seed=9), quality=90)
    d = augpy.Decoder(max_pixels=5000)
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        got = pool.apply_async(d.decode, (data,)).get(timeout=240)
        info = pool.apply_async(d.info, (data,)).get(timeout=60)
        remote = pool.apply_async(pickle.loads, (pickle.dumps(d),)).get(timeout=60)
        with pytest.raises(augpy.DecodeError, match="^Decoder.decode: image of 80 x 80 = 6400 pixels is larger than "
                                                    "the decoder's limit of 5000 pixels"):
            pool.apply_async(d.decode, (big,)).get(timeout=60)
        with pytest.raises(augpy.DecodeError, match=r"^Decoder.decode: not a JPEG, PNG, WebP, TIFF or AVIF file \(starts with 61 62 63\)$"):
            pool.apply_async(d.decode, (b"abc",)).get(timeout=60)
    assert same(d, got.numpy(), data)
    assert (info["height"], info["width"]) == (37, 53)
    assert attrs(remote) == attrs(d)


def test_huge_header_refused(dec):
    """A header claiming 65000 x 65000 pixels is refused before allocating 12 GiB."""
    data = bytearray(pil_jpeg(image(16, 16), quality=90))
    sof = data.index(b"\xff\xc0")
    data[sof + 5:sof + 9] = (65000).to_bytes(2, "big") * 2
    with pytest.raises(augpy.NvJpegError, match="65000 x 65000 = 4225000000 pixels is larger than the decoder's limit "
                                                "of 268435456 pixels"):
        dec.decode(bytes(data))
    assert augpy.jpeg_info(bytes(data)) == (65000, 65000)
    with pytest.raises(augpy.NvJpegError, match="limit of 2147483648 pixels"):
        augpy.Decoder(max_pixels=2**31).decode(bytes(data))


def test_max_pixels_limit():
    """A small file claiming 16384 x 16384 (805 MB of RGB) is refused by default, before allocating;
    Decoder(max_pixels=...) moves the limit both ways."""
    data = bytearray(pil_jpeg(image(16, 16), quality=90))
    sof = data.index(b"\xff\xc0")
    data[sof + 5:sof + 9] = (16385).to_bytes(2, "big") + (16384).to_bytes(2, "big")
    d = augpy.Decoder()
    assert d.max_pixels == 2**28 and "max_pixels=268435456" in repr(d)
    with pytest.raises(augpy.NvJpegError, match=r"Decoder.decode: image of 16385 x 16384 = 268451840 pixels is "
                                                r"larger than the decoder's limit of 268435456 pixels"):
        d.decode(bytes(data))
    good = pil_jpeg(image(30, 40), quality=90)
    assert augpy.Decoder(max_pixels=1200).decode(good).shape == (30, 40, 3)
    with pytest.raises(augpy.NvJpegError, match="30 x 40 = 1200 pixels is larger than the decoder's limit of 1199"):
        augpy.Decoder(max_pixels=1199).decode(good)
    for bad in (0, -1, 2**31 + 1):
        with pytest.raises(ValueError, match=r"Decoder: max_pixels must be in \[1, 2\*\*31\], got"):
            augpy.Decoder(max_pixels=bad)
    with pytest.raises(TypeError):
        augpy.Decoder(max_pixels=1.5)
    with pytest.raises(TypeError):
        augpy.Decoder(1, 2, False, 100)  # keyword-only


def test_decodewarp_max_pixels():
    from augpy.image import DecodeWarp
    good = pil_jpeg(image(30, 40), quality=90)
    dw = DecodeWarp(1, (3, 8, 8), max_pixels=1000)
    with pytest.raises(augpy.NvJpegError, match="limit of 1000 pixels"):
        dw({"image": [good]})
    assert DecodeWarp(1, (3, 8, 8), max_pixels=1200)({"image": [good]})["image"].shape == (1, 3, 8, 8)
    with pytest.raises(ValueError):
        DecodeWarp(1, (3, 8, 8), max_pixels=0)


def test_buffer(dec):
    data = pil_jpeg(image(37, 53, seed=4), quality=90)
    exact = augpy.zeros((37 * 53 * 3,), augpy.uint8)
    t = dec.decode(data, exact)
    assert t.ptr == exact.ptr and t.shape == (37, 53, 3) and t.layout == "HWC"
    assert same(dec, t.numpy(), data)
    assert same(dec, exact.numpy().reshape(37, 53, 3), data)
    big = augpy.zeros((100, 100, 3), augpy.uint8)
    t = dec.decode(data, buffer=big)
    assert t.ptr == big.ptr and same(dec, t.numpy(), data)
    del big
    gc.collect()
    assert same(dec, t.numpy(), data)  # the result keeps the memory alive

    with pytest.raises(ValueError, match="5882 elements is too small for the 37 x 53 x 3 image \\(5883"):
        dec.decode(data, augpy.zeros((37 * 53 * 3 - 1,), augpy.uint8))
    with pytest.raises(TypeError, match="buffer must be uint8, not float32"):
        dec.decode(data, augpy.zeros((37 * 53 * 3,), augpy.float32))
    strided = augpy.zeros((37 * 53 * 3, 2), augpy.uint8)[:, 0]
    with pytest.raises(ValueError, match="contiguous"):
        dec.decode(data, strided)


def test_buffer_corrupt_returns_nothing(dec):
    data = pil_jpeg(image(37, 53), quality=90)
    buf = augpy.zeros((37 * 53 * 3,), augpy.uint8)
    result = None
    with pytest.raises(augpy.NvJpegError):
        result = dec.decode(data[: len(data) // 2], buf)
    assert result is None


def test_threads():
    """Decoders in several threads (GIL released) and one decoder shared by threads."""
    datas = [pil_jpeg(image(96, 128, seed=s), quality=90, subsampling=s % 3) for s in range(6)]
    shared = augpy.Decoder()
    refs = [expected_rgb(shared.engine, d) for d in datas]
    errors = []

    def work(own):
        d = augpy.Decoder() if own else shared
        try:
            for _ in range(15):
                for data, (ref, exact) in zip(datas, refs):
                    assert mismatch(d.decode(data).numpy(), ref, exact) is None
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i % 2 == 0,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@rss_bound
def test_no_leak():
    good = pil_jpeg(image(64, 64), quality=90)
    cmyk = pil_jpeg(image(64, 64, channels=4), mode="CMYK", quality=90)
    bad = good[: len(good) // 2]
    buf = augpy.zeros((64 * 64 * 3,), augpy.uint8)

    def run(n):
        for _ in range(n):
            d = augpy.Decoder()
            d.decode(good)
            d.decode(cmyk, buf)
            try:
                d.decode(bad, buf)
            except augpy.NvJpegError:
                pass
            augpy.jpeg_info(good)

    run(300)
    gc.collect()
    before = rss()
    run(3000)
    gc.collect()
    assert rss() - before < 4 << 20
