"""PNG decoding and the decoder's channel modes (augpy.Decoder, docs/jpeg.md "PNG").

Every PNG is made in the test: by Pillow (palette with and without tRNS, gray, gray+alpha,
RGB, RGBA, 1-bit, 16-bit gray), by OpenCV (16-bit RGB / RGBA) and by a small independent
encoder below (Adam7 interlacing, 2/4-bit gray, 16-bit gray+alpha, tRNS on gray/RGB).
References: Pillow's convert('RGB'/'RGBA'/'L'/'LA') for 8-bit files, NumPy for 16-bit ones
(v * 255 + 32767) // 65535 (Pillow keeps the high byte of 16-bit RGB instead: documented).
Corrupt and truncated files raise augpy's JpegError naming the function, never crash."""
import io
import struct
import zlib

import numpy as np
import pytest
from PIL import Image

import augpy
from jpegref import assert_decoded

cv2 = pytest.importorskip("cv2")


def rgb_image(h, w, seed=0, channels=3):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    base = [x * 255 // max(w - 1, 1), y * 255 // max(h - 1, 1), (x + y) * 127 // max(h + w - 2, 1),
            255 - x * 200 // max(w - 1, 1)]
    img = np.stack(base[:channels], -1) + rng.integers(-25, 26, (h, w, channels))
    return np.clip(img, 0, 255).astype(np.uint8)


def pil_png(im, **kw):
    f = io.BytesIO()
    im.save(f, "PNG", **kw)
    return f.getvalue()


def luma(rgb):
    """Pillow's rgb2l: (19595 R + 38470 G + 7471 B + 2^15) >> 16."""
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    return ((r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16).astype(np.uint8)


def to8(v):
    return ((v.astype(np.int64) * 255 + 32767) // 65535).astype(np.uint8)


# ---- an independent minimal PNG encoder (filter 0, optional Adam7) ---------------------------

def _chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def _pack_rows(samples, bit_depth):
    """samples (h, w*c) ints -> filtered scanlines (filter byte 0)."""
    out = b""
    for row in samples:
        if bit_depth == 16:
            raw = row.astype(">u2").tobytes()
        elif bit_depth == 8:
            raw = row.astype(np.uint8).tobytes()
        else:
            per = 8 // bit_depth
            padded = np.zeros(-(-len(row) // per) * per, dtype=np.int64)
            padded[:len(row)] = row
            packed = np.zeros(len(padded) // per, dtype=np.int64)
            for k in range(per):
                packed = packed | (padded[k::per] << (8 - bit_depth * (k + 1)))
            raw = packed.astype(np.uint8).tobytes()
        out += b"\x00" + raw
    return out


ADAM7 = [(0, 0, 8, 8), (0, 4, 8, 8), (4, 0, 8, 4), (0, 2, 4, 4), (2, 0, 4, 2), (0, 1, 2, 2), (1, 0, 2, 1)]


def make_png(samples, colour_type, bit_depth, interlace=False, trns=None, plte=None):
    """samples: (h, w, c) array of sample values of the file."""
    h, w, c = samples.shape
    if interlace:
        data = b""
        for y0, x0, dy, dx in ADAM7:
            sub = samples[y0::dy, x0::dx]
            if sub.size:
                data += _pack_rows(sub.reshape(sub.shape[0], -1), bit_depth)
    else:
        data = _pack_rows(samples.reshape(h, -1), bit_depth)
    png = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, bit_depth, colour_type, 0, 0,
                                                             1 if interlace else 0))
    if plte is not None:
        png += _chunk(b"PLTE", plte.astype(np.uint8).tobytes())
    if trns is not None:
        png += _chunk(b"tRNS", trns)
    return png + _chunk(b"IDAT", zlib.compress(data)) + _chunk(b"IEND", b"")


@pytest.fixture(scope="module")
def dec():
    return augpy.Decoder()


# ---- 8-bit files from Pillow against Pillow ----------------------------------------------------

def pillow_files():
    rgb = rgb_image(37, 53)
    rgba = rgb_image(37, 53, 1, 4)
    p = Image.fromarray(rgb).quantize(37)
    return {
        "RGB": pil_png(Image.fromarray(rgb)),
        "RGBA": pil_png(Image.fromarray(rgba, "RGBA")),
        "L": pil_png(Image.fromarray(rgb).convert("L")),
        "LA": pil_png(Image.fromarray(rgba, "RGBA").convert("LA")),
        "P": pil_png(p),
        "P_trns": pil_png(p, transparency=3),
        "1": pil_png(Image.fromarray(rgb).convert("1")),
        "L_trns": pil_png(Image.fromarray(rgb).convert("L"), transparency=100),
        "RGB_trns": pil_png(Image.fromarray(rgb), transparency=tuple(int(v) for v in rgb[3, 4])),
        "RGB_1x1": pil_png(Image.fromarray(rgb[:1, :1])),
        "RGB_wide": pil_png(Image.fromarray(rgb_image(3, 300, 5))),
    }


FILES = pillow_files()
UNCHANGED = {"RGB": ("RGB", 3), "RGBA": ("RGBA", 4), "L": ("L", 1), "LA": ("LA", 2), "P": ("RGB", 3),
             "P_trns": ("RGBA", 4), "1": ("L", 1), "L_trns": ("LA", 2), "RGB_trns": ("RGBA", 4),
             "RGB_1x1": ("RGB", 3), "RGB_wide": ("RGB", 3)}


@pytest.mark.parametrize("name", sorted(FILES))
def test_pillow_files(dec, name):
    data = FILES[name]
    im = Image.open(io.BytesIO(data))
    rgba = np.asarray(im.convert("RGBA"))
    assert np.array_equal(dec.decode(data).numpy(), np.asarray(im.convert("RGB")))
    assert np.array_equal(dec.decode(data, mode="rgba").numpy(), rgba)
    gray = dec.decode(data, mode="gray").numpy()
    assert gray.shape == rgba.shape[:2] + (1,)
    assert np.array_equal(gray[..., 0], luma(rgba))
    if name not in ("L_trns",):  # Pillow's L -> LA ignores a tRNS chunk; RGBA keeps it (as here)
        assert np.array_equal(gray[..., 0], np.asarray(im.convert("L")))
    ga = dec.decode(data, mode="LA").numpy()
    assert np.array_equal(ga[..., 0], luma(rgba)) and np.array_equal(ga[..., 1], rgba[..., 3])
    pil_mode, c = UNCHANGED[name]
    un = dec.decode(data, mode="unchanged").numpy()
    assert un.shape[2] == c
    ref = np.asarray(im.convert(pil_mode)) if pil_mode != "LA" else np.stack([luma(rgba), rgba[..., 3]], -1)
    assert np.array_equal(un.reshape(ref.shape), ref)
    info = dec.info(data)
    assert info["format"] == "png" and info["components"] == c and info["channels"] == 3
    assert (info["height"], info["width"]) == rgba.shape[:2]
    assert info["transparency"] == ("trns" in name)


def test_info_fields(dec):
    assert dec.info(FILES["P"]) == {"format": "png", "height": 37, "width": 53, "channels": 3, "components": 3,
                                    "colour_space": "Palette", "bit_depth": 8, "interlaced": False,
                                    "transparency": False}
    assert dec.info(FILES["1"])["bit_depth"] == 1
    assert dec.info(FILES["LA"])["colour_space"] == "GrayscaleAlpha"


# ---- 16-bit, low bit depths, interlacing: the test's encoder and OpenCV, NumPy references ------

@pytest.mark.parametrize("interlace", [False, True])
@pytest.mark.parametrize("colour_type,channels,depth", [(0, 1, 16), (4, 2, 16), (2, 3, 16), (6, 4, 16),
                                                         (0, 1, 8), (2, 3, 8), (6, 4, 8), (0, 1, 2), (0, 1, 4),
                                                         (0, 1, 1)])
@pytest.mark.parametrize("shape", [(13, 11), (1, 9), (9, 1), (33, 47)])
def test_encoded(dec, interlace, colour_type, channels, depth, shape):
    rng = np.random.default_rng(depth * 100 + colour_type)
    s = rng.integers(0, 1 << depth, shape + (channels,), dtype=np.int64)
    data = make_png(s, colour_type, depth, interlace)
    if depth == 16:
        v = to8(s)
    else:
        v = (s * 255 // ((1 << depth) - 1)).astype(np.uint8)
    rgb = v if channels >= 3 else np.repeat(v[..., :1], 3, -1)
    rgb = rgb[..., :3]
    alpha = v[..., -1] if channels in (2, 4) else np.full(shape, 255, np.uint8)
    assert np.array_equal(dec.decode(data).numpy(), rgb)
    assert np.array_equal(dec.decode(data, mode="rgba").numpy(), np.concatenate([rgb, alpha[..., None]], -1))
    assert np.array_equal(dec.decode(data, mode="gray").numpy()[..., 0], luma(rgb))
    un = dec.decode(data, mode="unchanged").numpy()
    assert un.shape == shape + (channels,)
    assert np.array_equal(un, v)
    if depth == 8 or (depth < 8):  # Pillow reads these exactly; interlaced too
        pil = np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))
        assert np.array_equal(dec.decode(data).numpy(), pil)
    info = dec.info(data)
    assert info["interlaced"] == interlace and info["bit_depth"] == depth


def test_opencv_16bit(dec):
    rng = np.random.default_rng(3)
    for c in (3, 4):
        s = rng.integers(0, 65536, (21, 19, c), dtype=np.uint16)
        ok, enc = cv2.imencode(".png", s)  # OpenCV stores BGR(A)
        assert ok
        rgb = s[..., [2, 1, 0] + ([3] if c == 4 else [])]
        out = dec.decode(enc.tobytes(), mode="unchanged").numpy()
        assert np.array_equal(out, to8(rgb))
        # Pillow (16-bit RGB opened as 8-bit) keeps the high byte: differs by at most 1
        pil = np.asarray(Image.open(io.BytesIO(enc.tobytes())).convert("RGB")).astype(int)
        assert np.abs(dec.decode(enc.tobytes()).numpy().astype(int) - pil).max() <= 1


def test_trns_gray_and_rgb(dec):
    s = np.arange(12, dtype=np.int64).reshape(3, 4, 1) * 20
    data = make_png(s, 0, 8, trns=struct.pack(">H", 40))
    out = dec.decode(data, mode="unchanged").numpy()
    assert out.shape == (3, 4, 2)
    assert np.array_equal(out[..., 1], np.where(s[..., 0] == 40, 0, 255))
    plte = np.array([[10, 20, 30], [40, 50, 60], [70, 80, 90]])
    idx = np.array([[0, 1, 2], [2, 1, 0]]).reshape(2, 3, 1)
    data = make_png(idx, 3, 8, plte=plte, trns=bytes([0, 128]))
    out = dec.decode(data, mode="rgba").numpy()
    assert np.array_equal(out[..., :3], plte[idx[..., 0]])
    assert np.array_equal(out[..., 3], np.array([0, 128, 255])[idx[..., 0]])


# ---- roi, buffer, limit, JPEG modes ---------------------------------------------------------

def test_roi_and_scale(dec):
    data = FILES["RGBA"]
    full = dec.decode(data, mode="rgba").numpy()
    part = dec.decode(data, roi=(3, 5, 10, 20), mode="rgba").numpy()
    assert np.array_equal(part, full[3:13, 5:25])
    assert np.array_equal(dec.decode(data, roi=(0, 0, 37, 53)).numpy(), full[..., :3])
    assert np.array_equal(dec.decode(data, scale=1).numpy(), full[..., :3])
    with pytest.raises(ValueError, match="Decoder.decode: scale 4/8 is for JPEG files"):
        dec.decode(data, scale=0.5)
    with pytest.raises(ValueError, match="Decoder.decode: roi .* not inside the decoded image of 37 x 53"):
        dec.decode(data, roi=(30, 0, 8, 5))


def test_buffer(dec):
    data = FILES["LA"]
    buf = augpy.zeros((37 * 53 * 2,), augpy.uint8)
    out = dec.decode(data, buffer=buf, mode="gray_alpha")
    assert out.ptr == buf.ptr and out.shape == (37, 53, 2) and out.layout == "HWC"
    ref = np.asarray(Image.open(io.BytesIO(data)).convert("LA"))
    assert np.array_equal(out.numpy(), ref)
    with pytest.raises(ValueError, match="too small for the 37 x 53 x 4 image"):
        dec.decode(data, buffer=buf, mode="rgba")


def test_limit():
    small = augpy.Decoder(max_pixels=37 * 53 - 1)
    with pytest.raises(augpy.JpegError, match="Decoder.decode: image of 37 x 53 = 1961 pixels is larger"):
        small.decode(FILES["RGB"])
    with pytest.raises(augpy.JpegError, match="larger than the decoder's limit"):
        small.decode(FILES["RGB"], roi=(0, 0, 2, 2))  # a PNG decodes whole: the limit bounds the image
    assert augpy.Decoder(max_pixels=37 * 53).decode(FILES["RGB"]).shape == (37, 53, 3)


def test_jpeg_modes(dec):
    rgb = rgb_image(40, 56, 7)
    f = io.BytesIO()
    Image.fromarray(rgb).save(f, "JPEG", quality=90)
    data = f.getvalue()
    pil = Image.open(io.BytesIO(data))
    full = np.asarray(pil.convert("RGB"))
    assert np.array_equal(dec.decode(data, mode="gray").numpy()[..., 0], np.asarray(pil.convert("L")))
    assert np.array_equal(dec.decode(data, mode="rgba").numpy(), np.asarray(pil.convert("RGBA")))
    assert_decoded(dec.engine, dec.decode(data, mode="unchanged").numpy(), data)  # RGB: nvJPEG's on 'nvjpeg'
    assert full.shape == (40, 56, 3)
    ga = dec.decode(data, mode="LA", roi=(2, 3, 10, 11), scale=0.5).numpy()
    half = dec.decode(data, scale=0.5).numpy()[2:12, 3:14]
    assert np.array_equal(ga[..., 0], luma(half)) and (ga[..., 1] == 255).all()
    f = io.BytesIO()
    Image.fromarray(rgb).convert("L").save(f, "JPEG", quality=90)
    g = f.getvalue()
    un = dec.decode(g, mode="unchanged").numpy()
    assert un.shape == (40, 56, 1)
    assert np.array_equal(un[..., 0], np.asarray(Image.open(io.BytesIO(g)).convert("L")))


def test_bad_mode(dec):
    with pytest.raises(ValueError, match="Decoder.decode: mode must be None, 'rgb'"):
        dec.decode(FILES["RGB"], mode="cmyk")
    with pytest.raises(TypeError, match="Decoder.decode: mode must be None or a str"):
        dec.decode(FILES["RGB"], mode=3)


# ---- damage -------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["RGB", "P_trns", "LA"])
def test_truncated_and_corrupt(dec, name):
    data = FILES[name]
    for n in list(range(0, 60)) + list(range(60, len(data) - 12, 7)):
        with pytest.raises(augpy.JpegError, match="Decoder.decode"):
            dec.decode(data[:n])
    rng = np.random.default_rng(0)
    for _ in range(200):  # a flipped byte: a CRC/zlib/header error, never a crash
        b = bytearray(data)
        b[int(rng.integers(8, len(b)))] ^= int(rng.integers(1, 256))
        try:
            out = dec.decode(bytes(b))
            assert out.shape[2] == 3
        except augpy.JpegError as e:
            assert str(e).startswith("Decoder.decode: PNG")
    with pytest.raises(augpy.JpegError, match="Decoder.info: PNG"):
        dec.info(data[:20])


def test_truncated_png_raises_decode_error(dec):
    """A truncated or corrupt PNG raises DecodeError (libspng decodes on the CPU on every device),
    also caught as NvJpegError, with libspng's reason after "PNG: "."""
    data = FILES["RGB"]
    for cut in (len(data) // 2, len(data) - 13, 8, 20):
        for call in (dec.decode, lambda b: dec.decode(b, mode="rgba"), lambda b: dec.decode(b, roi=(0, 0, 2, 2))):
            with pytest.raises(augpy.DecodeError, match=r"^Decoder.decode: PNG: end of stream$") as e:
                call(data[:cut])
            assert isinstance(e.value, augpy.NvJpegError)
    with pytest.raises(augpy.DecodeError, match=r"^Decoder.info: PNG: \S"):
        dec.info(data[:20])
    bad = bytearray(data)
    bad[20] ^= 0xFF  # IHDR's height: libspng checks it before the chunk's CRC
    with pytest.raises(augpy.NvJpegError, match=r"^Decoder.decode: PNG: invalid image height$") as e:
        dec.decode(bytes(bad))
    assert type(e.value) is augpy.DecodeError


def test_truncated_interlaced_png_raises_decode_error(dec):
    """An Adam7 file cut inside its image data: DecodeError "end of stream" (libspng's
    SPNG_IO_EOF is -1, which the row-by-row decode once took for its own "interrupted":
    a KeyboardInterrupt with no Ctrl-C; found by fuzz_png, seed regress-adam7-io-eof.png)."""
    data = make_png(np.arange(40 * 30 * 3).reshape(40, 30, 3) % 251, 2, 8, True)
    assert dec.decode(data).shape == (40, 30, 3)
    for cut in (60, len(data) // 2, len(data) - 20):
        for call in (dec.decode, lambda b: dec.decode(b, mode="gray"), lambda b: dec.decode(b, roi=(1, 2, 3, 4))):
            with pytest.raises(augpy.DecodeError, match=r"^Decoder.decode: PNG: end of stream$"):
                call(data[:cut])


def test_interlaced_bad_crc_reported(dec):
    data = bytearray(make_png(np.zeros((4, 4, 3), np.int64), 2, 8, True))
    data[-20] ^= 0xFF  # inside the IDAT chunk
    with pytest.raises(augpy.JpegError, match="Decoder.decode: PNG"):
        dec.decode(bytes(data))
