"""WebP and TIFF decoding, dtype= and page= (augpy.Decoder, docs/formats.md).

The files are data/formats/*, written by data/record_formats.py, with independent decodes recorded
in data/formats/formats_ref.npz: Pillow for WebP (lossless files also equal their source arrays;
lossy files equal Pillow's decode through its own libwebp, within LOSSY_BOUND), tifffile for TIFF.
The channel conversions are checked against NumPy (Pillow's luma), the 16-bit PNG path against
OpenCV's 16-bit writer. Truncated files and hostile headers (huge sizes in tiny files) raise
DecodeError naming the function, before any pixel memory is allocated."""
import io
import pathlib
import struct

import numpy as np
import pytest
from PIL import Image

import augpy

DATA = pathlib.Path(__file__).resolve().parent / "data" / "formats"
REF = np.load(DATA / "formats_ref.npz")
# Lossy WebP: augpy's libwebp (Debian's) against Pillow's (a newer one); the YUV->RGB conversion
# and the fancy upsampling have not changed between them, so the decodes are identical.
LOSSY_BOUND = 0


def read(name):
    return (DATA / name).read_bytes()


def luma(rgb):
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    return ((r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16)


def to8(v):
    return ((v.astype(np.int64) * 255 + 32767) // 65535).astype(np.uint8)


def expected(ref, mode, dtype="uint8"):
    """ref (H, W, C) in its own depth -> the decoder's output by the documented rules."""
    ref = ref if ref.ndim == 3 else ref[..., None]
    wide = ref.dtype == np.uint16
    if dtype == "uint8" or not wide:  # the channels at the lower depth, 8-bit widened last
        v, top = (to8(ref) if wide else ref).astype(np.int64), 255
    else:
        v, top = ref.astype(np.int64), 65535
    c = v.shape[-1]
    gray = v[..., 0] if c <= 2 else luma(v)
    rgb = np.repeat(v[..., :1], 3, -1) if c <= 2 else v[..., :3]
    alpha = v[..., -1] if c in (2, 4) else np.full(v.shape[:2], top)
    out = {"unchanged": v, "rgb": rgb, "gray": gray[..., None], "gray_alpha": np.stack([gray, alpha], -1),
           "rgba": np.concatenate([rgb, alpha[..., None]], -1)}[mode]
    return out.astype(np.uint8) if dtype == "uint8" else out.astype(np.uint16) * (1 if wide else 257)


@pytest.fixture(scope="module")
def dec():
    return augpy.Decoder()


def test_supported_formats():
    assert augpy.supported_formats() == ("jpeg", "png", "webp", "tiff", "avif")


# ---- WebP -----------------------------------------------------------------------------------

WEBPS = ["lossless_rgb.webp", "lossless_rgba.webp", "lossy_rgb.webp", "lossy_rgba.webp"]


@pytest.mark.parametrize("name", WEBPS)
@pytest.mark.parametrize("mode", ["rgb", "gray", "gray_alpha", "rgba", "unchanged"])
def test_webp_modes(dec, name, mode):
    ref = REF[name]
    got = dec.decode(read(name), mode=mode).numpy()
    want = expected(ref, mode)
    assert got.shape == want.shape and got.dtype == np.uint8
    assert np.abs(got.astype(int) - want.astype(int)).max(initial=0) <= (0 if "lossless" in name else LOSSY_BOUND)


def test_webp_info(dec):
    i = dec.info(read("lossy_rgba.webp"))
    assert (i["format"], i["height"], i["width"], i["components"], i["alpha"], i["compression"], i["animated"]) == \
        ("webp", 29, 41, 4, True, "lossy", False)
    assert dec.info(read("lossless_rgb.webp"))["compression"] == "lossless"
    i = dec.info(read("anim.webp"))
    assert (i["animated"], i["pages"], i["height"], i["width"]) == (True, 3, 21, 17)


def test_webp_animation_first_frame(dec):
    got = dec.decode(read("anim.webp"), mode="rgba").numpy()
    assert np.array_equal(got, REF["anim.webp"])


def test_webp_roi_dtype(dec):
    ref = REF["lossless_rgba.webp"]
    got = dec.decode(read("lossless_rgba.webp"), roi=(3, 5, 11, 7), mode="unchanged", dtype="uint16").numpy()
    assert got.dtype == np.uint16 and np.array_equal(got, ref[3:14, 5:12].astype(np.uint16) * 257)


def test_webp_lossless_alpha_straight(dec):
    """Straight (not premultiplied) alpha, RGB kept under alpha 0 (exact=True)."""
    ref = REF["lossless_rgba.webp"]
    assert np.array_equal(dec.decode(read("lossless_rgba.webp"), mode="rgb").numpy(), ref[..., :3])


# ---- TIFF -----------------------------------------------------------------------------------

TIFFS = ["gray8_strips.tif", "gray16_lzw.tif", "gray_alpha8.tif", "rgb8_deflate_tiles.tif",
         "rgb16_planar_deflate.tif", "rgba8_packbits.tif", "rgba16_planar_tiles.tif", "rgb16_tiles_bigendian.tif"]


@pytest.mark.parametrize("name", TIFFS)
@pytest.mark.parametrize("mode", ["rgb", "gray", "gray_alpha", "rgba", "unchanged"])
@pytest.mark.parametrize("dtype", ["uint8", "uint16"])
def test_tiff_modes(dec, name, mode, dtype):
    got = dec.decode(read(name), mode=mode, dtype=dtype).numpy()
    want = expected(REF[name], mode, dtype)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got, want)


@pytest.mark.parametrize("name", ["rgb8_deflate_tiles.tif", "rgba16_planar_tiles.tif", "gray16_lzw.tif",
                                  "rgb16_planar_deflate.tif"])
@pytest.mark.parametrize("roi", [(0, 0, 1, 1), (5, 7, 20, 30), (17, 15, 20, 30), (36, 44, 1, 1), (0, 0, 37, 45)])
def test_tiff_roi(dec, name, roi):
    """A region reads only the strips or tiles it touches: the same pixels as the whole image's."""
    y, x, h, w = roi
    ref = REF[name]
    ref = ref if ref.ndim == 3 else ref[..., None]
    got = dec.decode(read(name), roi=roi, mode="unchanged", dtype="uint16").numpy()
    assert np.array_equal(got, expected(ref, "unchanged", "uint16")[y:y + h, x:x + w])


def test_tiff_info(dec):
    i = dec.info(read("rgba16_planar_tiles.tif"))
    assert (i["format"], i["height"], i["width"], i["components"], i["bit_depth"], i["alpha"], i["tiled"],
            i["planar"], i["compression"], i["colour_space"]) == \
        ("tiff", 37, 45, 4, 16, True, True, True, "lzw", "RGB")
    i = dec.info(read("pages.tif"), page=1)
    assert (i["pages"], i["height"], i["width"], i["components"], i["bit_depth"]) == (2, 13, 31, 1, 16)


def test_tiff_pages(dec):
    data = read("pages.tif")
    assert np.array_equal(dec.decode(data).numpy(), REF["pages.tif:0"])
    assert np.array_equal(dec.decode(data, page=0, mode="unchanged").numpy(), REF["pages.tif:0"])
    got = dec.decode(data, page=1, mode="unchanged", dtype=augpy.uint16).numpy()
    assert np.array_equal(got[..., 0], REF["pages.tif:1"])
    with pytest.raises(ValueError, match=r"^Decoder.decode: page 2 is not in the TIFF file's 2 pages \(0..1\)$"):
        dec.decode(data, page=2)
    with pytest.raises(ValueError, match=r"Decoder.decode: page 1 is for TIFF files: a webp file has one image"):
        dec.decode(read("lossy_rgb.webp"), page=1)


def test_tiff_miniswhite_palette(dec):
    got = dec.decode(read("miniswhite8.tif"), mode="unchanged").numpy()
    assert np.array_equal(got[..., 0], 255 - REF["miniswhite8.tif"])
    idx, cmap = REF["palette8.tif"], REF["palette8.tif:cmap"]
    want = np.stack([cmap[c][idx] >> 8 for c in range(3)], -1).astype(np.uint8)
    assert np.array_equal(dec.decode(read("palette8.tif")).numpy(), want)
    assert dec.info(read("palette8.tif"))["colour_space"] == "Palette"


def test_tiff_jpeg(dec):
    """JPEG-in-TIFF (YCbCr) through libtiff's libjpeg against tifffile's (imagecodecs' libjpeg-turbo):
    the same IDCT and upsampling, within 1 for the YCbCr->RGB rounding of the two paths."""
    got = dec.decode(read("rgb8_jpeg.tif")).numpy().astype(int)
    assert np.abs(got - REF["rgb8_jpeg.tif"].astype(int)).max() <= 1


# ---- dtype on the older formats -------------------------------------------------------------

def test_png16_uint16(dec):
    cv2 = pytest.importorskip("cv2")
    rgb16 = np.random.default_rng(3).integers(0, 65536, (9, 13, 3), dtype=np.uint16)
    ok, png = cv2.imencode(".png", rgb16[..., ::-1])
    assert ok
    got = dec.decode(png.tobytes(), dtype="uint16").numpy()
    assert got.dtype == np.uint16 and np.array_equal(got, rgb16)
    assert np.array_equal(dec.decode(png.tobytes(), dtype="uint16", mode="gray").numpy()[..., 0],
                          luma(rgb16).astype(np.uint16))
    assert np.array_equal(dec.decode(png.tobytes()).numpy(), to8(rgb16))


def test_jpeg_uint16(dec):
    f = io.BytesIO()
    Image.fromarray(REF["lossless_rgb.webp"]).save(f, "JPEG")
    # libjpeg-turbo's (Pillow's) pixels on every engine: a uint16 JPEG decodes on the CPU, as the
    # modes other than RGB do (the 'nvjpeg' engine's uint8 RGB is nvJPEG's own)
    u8 = np.asarray(Image.open(io.BytesIO(f.getvalue())).convert("RGB"))
    u16 = dec.decode(f.getvalue(), dtype="uint16").numpy()
    assert u16.dtype == np.uint16 and np.array_equal(u16, u8.astype(np.uint16) * 257)
    roi = dec.decode(f.getvalue(), dtype="uint16", roi=(2, 3, 5, 6), scale=0.5, mode="gray").numpy()
    assert np.array_equal(roi, dec.decode(f.getvalue(), roi=(2, 3, 5, 6), scale=0.5, mode="gray").numpy()
                          .astype(np.uint16) * 257)


def test_dtype_buffer_and_errors(dec):
    data = read("gray16_lzw.tif")
    buf = augpy.empty((37 * 45 * 3,), augpy.uint16)
    out = dec.decode(data, buffer=buf, dtype="uint16")
    assert out.dtype == augpy.uint16 and np.array_equal(out.numpy()[..., 0], REF["gray16_lzw.tif"])
    with pytest.raises(TypeError, match=r"Decoder.decode: buffer must be uint16, not uint8"):
        dec.decode(data, buffer=augpy.empty((37 * 45 * 3,), augpy.uint8), dtype="uint16")
    with pytest.raises(TypeError, match=r"Decoder.decode: dtype must be uint8 or uint16, got float32"):
        dec.decode(data, dtype="float32")
    with pytest.raises(ValueError, match=r"Decoder.decode: scale 4/8 is for JPEG files: a TIFF decodes at scale 1"):
        dec.decode(data, scale=0.5)


# ---- errors: truncated, hostile, unsupported --------------------------------------------------

@pytest.mark.parametrize("name", ["lossy_rgb.webp", "lossless_rgba.webp", "anim.webp", "rgb8_deflate_tiles.tif",
                                  "gray16_lzw.tif", "rgb16_planar_deflate.tif"])
def test_truncated(dec, name):
    data = read(name)
    for cut in (len(data) // 2, len(data) - 40, 20, 12):
        with pytest.raises(augpy.DecodeError, match=r"^Decoder.decode: (WebP|TIFF): "):
            dec.decode(data[:cut], mode="unchanged")


def tiff_header(h, w, spp=1, bps=8, fmt=1, photometric=1, tile=None):
    """A little-endian TIFF of one IFD and no pixel data to speak of."""
    tags = [(256, 4, w), (257, 4, h), (258, 3, bps), (259, 3, 1), (262, 3, photometric), (277, 3, spp),
            (339, 3, fmt)]
    tags += [(322, 4, tile[1]), (323, 4, tile[0]), (324, 4, 8), (325, 4, 1)] if tile else \
        [(273, 4, 8), (278, 4, h), (279, 4, 1)]
    tags.sort()
    ifd = struct.pack("<H", len(tags)) + b"".join(
        struct.pack("<HHI", t, k, 1) + (struct.pack("<HH", v, 0) if k == 3 else struct.pack("<I", v))
        for t, k, v in tags) + struct.pack("<I", 0)
    return b"II*\x00" + struct.pack("<I", 12) + b"\x00\x00\x00\x00" + ifd


def test_tiff_hostile(dec):
    with pytest.raises(augpy.DecodeError, match=r"^Decoder.decode: image of 1000000 x 1000000 = 1000000000000 "
                                                 r"pixels is larger than the decoder's limit of 268435456"):
        dec.decode(tiff_header(1000000, 1000000))
    with pytest.raises(augpy.DecodeError, match=r"^Decoder.decode: TIFF: a tile of 65536 x 65536 = 4294967296 "
                                                 r"pixels is larger than the decoder's limit"):
        dec.decode(tiff_header(16, 16, tile=(65536, 65536)))
    assert dec.info(tiff_header(1000000, 1000000))["height"] == 1000000
    with pytest.raises(augpy.DecodeError, match=r"TIFF: sample format 3 is not supported"):
        dec.decode(tiff_header(4, 4, bps=16, fmt=3))
    with pytest.raises(augpy.DecodeError, match=r"TIFF: 1 bits per sample is not supported \(8 or 16\)"):
        dec.decode(tiff_header(4, 4, bps=1))
    with pytest.raises(augpy.DecodeError, match=r"TIFF: photometric 5 \(Separated \(CMYK\)\) with 4 samples"):
        dec.decode(tiff_header(4, 4, spp=4, photometric=5))


def test_webp_hostile(dec):
    """A VP8X header claiming a 16384 x 16384 canvas (a few dozen bytes): refused before decoding."""
    vp8x = b"VP8X" + struct.pack("<I", 10) + bytes([0x10, 0, 0, 0]) + (16383).to_bytes(3, "little") * 2
    alph = b"ALPH" + struct.pack("<I", 2) + b"\x00\x00"
    body = b"WEBP" + vp8x + alph
    data = b"RIFF" + struct.pack("<I", len(body)) + body
    small = augpy.Decoder(max_pixels=1 << 20)
    with pytest.raises(augpy.DecodeError, match=r"^Decoder.decode: image of 16384 x 16384 = 268435456 pixels is "
                                                r"larger than the decoder's limit of 1048576"):
        small.decode(data)
    with pytest.raises(augpy.DecodeError, match=r"^Decoder.decode: WebP: truncated file \(VP8_STATUS_NOT_ENOUGH_DATA\)"):
        dec.decode(data)


def test_sniffing_not_extension(dec, tmp_path):
    """The format comes from the bytes: a TIFF named .jpg decodes as TIFF."""
    p = tmp_path / "x.jpg"
    p.write_bytes(read("gray8_strips.tif"))
    assert np.array_equal(dec.decode(p, mode="gray").numpy()[..., 0], REF["gray8_strips.tif"])
    with pytest.raises(augpy.DecodeError, match=r"not a JPEG, PNG, WebP, TIFF or AVIF file \(starts with 52 49 46 46"):
        dec.decode(b"RIFF\x00\x00\x00\x00WAVEfmt ")


# ---- the stages and augpy.data ----------------------------------------------------------------

def png_of(arr):
    f = io.BytesIO()
    Image.fromarray(arr).save(f, "PNG")
    return f.getvalue()


def test_stages_decode_webp_and_tiff():
    """DecodeWarp and ImageNetEval read WebP and TIFF files as they read the same pixels as PNG."""
    from augpy.image import DecodeWarp, ImageNetEval
    files = [read("lossless_rgb.webp"), read("rgb8_deflate_tiles.tif"), read("rgb16_planar_deflate.tif")]
    pngs = [png_of(REF["lossless_rgb.webp"]), png_of(REF["rgb8_deflate_tiles.tif"]),
            png_of(to8(REF["rgb16_planar_deflate.tif"]))]
    params = [{"angle": 10.0, "scale": 1.2}, {"hmirror": True}, {"shift": (0.3, -0.2)}]
    dw = DecodeWarp(3, (3, 20, 24), cpu_threads=1, dct_scale=False)
    got = dw({"image": files, "augmentation": params})["image"].numpy()
    want = dw({"image": pngs, "augmentation": params})["image"].numpy()
    dw.close()
    assert np.array_equal(got, want)
    ev = ImageNetEval(3, size=16, resize=20)
    got = ev({"image": files})["image"].numpy()
    assert np.array_equal(got, ev({"image": pngs})["image"].numpy())


def test_folder_source_lists_the_extensions(tmp_path):
    from augpy import data
    assert {".webp", ".tif", ".tiff"} <= set(data.IMAGE_EXTENSIONS)
    for name in ("a.webp", "b.tif", "c.TIFF", "d.txt"):
        (tmp_path / "cls" / name).parent.mkdir(exist_ok=True)
        (tmp_path / "cls" / name).write_bytes(read("lossless_rgb.webp" if name.endswith("webp") else "gray8_strips.tif"))
    assert [p.rsplit("/", 1)[-1] for p in data.list_images(tmp_path, recursive=True)] == ["a.webp", "b.tif", "c.TIFF"]


def test_tiff_wider_than_65535(dec):
    """A roi past 65535 (JPEG's largest side) is a TIFF's business: the binding passes it on."""
    wide = (np.arange(2 * 70000) % 251).astype(np.uint8).reshape(2, 70000)
    f = io.BytesIO()
    Image.fromarray(wide).save(f, "TIFF", compression="tiff_lzw")
    got = dec.decode(f.getvalue(), roi=(1, 69000, 1, 1000), mode="gray").numpy()
    assert np.array_equal(got[..., 0], wide[1:2, 69000:70000])


def test_tiff_unwalkable_directory_chain(dec):
    """fuzz_tiff's find: a first directory libtiff reads whose chain it cannot count was 'page 0 is
    not in the TIFF file's 0 pages' (a ValueError for a corrupt file); it is one page."""
    data = (pathlib.Path(__file__).resolve().parents[1] / "fuzz" / "seeds" / "fuzz_tiff" /
            "regress_page_count.tif").read_bytes()
    assert dec.info(data)["pages"] >= 1
    try:
        dec.decode(data, mode="unchanged")
    except augpy.DecodeError as e:
        assert str(e).startswith("Decoder.decode: TIFF: ")
