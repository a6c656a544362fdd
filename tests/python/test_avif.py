"""AVIF decoding (augpy.Decoder through libavif, docs/formats.md "AVIF").

The files are data/formats/*.avif, written by data/record_avif.py (Pillow's AVIF plugin and
avifenc), with independent decodes recorded in data/formats/avif_ref.npz: Pillow's 8-bit RGB(A)
decode and imagecodecs' decode at the file's own depth. augpy decodes with the system's libavif
(Debian 12: 0.11.1), the references with the libavif their wheels bundle (1.4.x); both convert
YUV to RGB with libavif's avifImageYUVToRGB (libyuv's 8-bit paths where libavif takes them):
- dtype='uint8': bit-exact against Pillow for 8-bit and 12-bit files; a 10-bit 4:4:4 file within
  PILLOW_BOUND_10 (Pillow's libavif 1.4 takes libyuv's fixed-point 10-bit path, Debian's 0.11
  its exact float path, which rounds to nearest: round(v * 255 / 1023) of the 10-bit decode
  within 1);
- dtype='uint16': round(v * 65535 / (2^d - 1)) of imagecodecs' decode at depth d, bit-exact
  (8-bit files: Pillow's decode times 257).
Truncated files and hostile headers raise DecodeError naming the function."""
import io
import json
import pathlib

import numpy as np
import pytest
from PIL import Image

import augpy

DATA = pathlib.Path(__file__).resolve().parent / "data" / "formats"
REF = np.load(DATA / "avif_ref.npz")
FILES = ["rgb8_lossy.avif", "rgba8_lossy.avif", "gray8.avif", "rgb8_lossless.avif", "rgb8_709_limited.avif",
         "rgb10.avif", "rgba12.avif"]
DEPTH = {"rgb10.avif": 10, "rgba12.avif": 12}
PILLOW_BOUND_10 = 3  # measured: 3 on 1583 of 2835 samples of rgb10.avif


def read(name):
    return (DATA / name).read_bytes()


def luma(rgb):
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    return (r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16


def convert(v, mode, own, top):
    """v (H, W, C) int64 RGB(A) or gray(+alpha) samples at 0..top -> the decoder's mode."""
    c = v.shape[-1]
    gray = v[..., 0] if c <= 2 else luma(v)
    rgb = np.repeat(v[..., :1], 3, -1) if c <= 2 else v[..., :3]
    alpha = v[..., -1] if c in (2, 4) else np.full(v.shape[:2], top)
    return {"unchanged": v[..., :own], "rgb": rgb, "gray": gray[..., None],
            "gray_alpha": np.stack([gray, alpha], -1), "rgba": np.concatenate([rgb, alpha[..., None]], -1)}[mode]


def native16(name):
    """The uint16 output's samples (the file's own channels): imagecodecs' decode scaled to 16 bits."""
    v = REF[name + ":native"].astype(np.int64)
    top = (1 << DEPTH.get(name, 8)) - 1
    return (v * 65535 + top // 2) // top


@pytest.fixture(scope="module")
def dec():
    return augpy.Decoder()


def test_supported_and_versions():
    assert "avif" in augpy.supported_formats()
    versions = json.loads(str(REF["versions"]))
    assert versions["libavif (Pillow's)"].startswith("1.")


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("mode", ["rgb", "gray", "gray_alpha", "rgba", "unchanged"])
def test_avif_uint8_against_pillow(dec, name, mode):
    ref = REF[name].astype(np.int64)  # Pillow's RGB / RGBA
    own = dec.info(read(name))["components"]
    got = dec.decode(read(name), mode=mode).numpy()
    want = convert(ref, mode, own, 255) if own >= 3 else convert(ref[..., [0, 3] if own == 2 else [0]], mode, own,
                                                                 255)
    assert got.dtype == np.uint8 and got.shape == want.shape
    bound = PILLOW_BOUND_10 if DEPTH.get(name) == 10 else 0
    assert np.abs(got.astype(np.int64) - want).max(initial=0) <= bound


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("mode", ["rgb", "gray", "rgba", "unchanged"])
def test_avif_uint16_scaled_to_16_bits(dec, name, mode):
    """dtype='uint16': v * 65535 / (2^d - 1) rounded, so white is 65535 at every depth, and the
    channel conversions run on the 16-bit samples."""
    v = native16(name)
    got = dec.decode(read(name), mode=mode, dtype="uint16").numpy()
    if name in DEPTH:  # the channels converted on the 16-bit samples
        want = convert(v, mode, v.shape[-1], 65535)
    else:  # an 8-bit file: converted at 8 bits, then widened (its uint8 output times 257)
        v8 = REF[name + ":native"].astype(np.int64)
        want = convert(v8, mode, v8.shape[-1], 255) * 257
        assert np.array_equal(v, v8 * 257)
    assert got.dtype == np.uint16 and np.array_equal(got.astype(np.int64), want)


def test_avif_high_depth_uint8_and_uint16(dec):
    """uint8 from a 10/12-bit file is libavif's conversion straight to 8 bits (rounded to nearest):
    within 1 of round(v * 255 / (2^d - 1)) of the native-depth decode where no chroma is upsampled
    (4:4:4, and alpha); a 4:2:0 file's colour differs more, as libavif upsamples its chroma with
    nearest-neighbour (libyuv) for 8-bit output and bilinear for the native depth (Pillow's uint8
    is the former, bit-exact above). The uint16 output keeps the file's levels (not 8-bit ones)."""
    for name, depth in DEPTH.items():
        v = REF[name + ":native"].astype(np.int64)
        top = (1 << depth) - 1
        got = dec.decode(read(name), mode="unchanged").numpy().astype(np.int64)
        near = np.abs(got - (v * 255 + top // 2) // top)
        assert (near if name == "rgb10.avif" else near[..., 3]).max() <= 1
        wide = dec.decode(read(name), mode="unchanged", dtype="uint16").numpy().astype(np.int64)
        assert wide.max() == 65535 or np.unique(wide % 257).size > 1
        assert np.unique(wide).size > np.unique(got).size  # more than 256 levels
        assert np.array_equal((wide * top + 32767) // 65535, v)  # the file's levels, exactly


def test_avif_lossless(dec):
    ref = REF["rgb8_lossless.avif"]
    assert np.array_equal(dec.decode(read("rgb8_lossless.avif")).numpy(), ref)


def test_avif_info(dec):
    i = dec.info(read("rgba12.avif"))
    assert i == {"format": "avif", "height": 27, "width": 35, "channels": 3, "components": 4,
                 "colour_space": "YUV420", "bit_depth": 12, "alpha": True, "pages": 1, "compression": "av1",
                 "animated": False}
    assert dec.info(read("gray8.avif"))["components"] == 1
    assert dec.info(read("gray8.avif"))["colour_space"] == "YUV400"
    assert dec.info(read("rgb10.avif"))["bit_depth"] == 10


@pytest.mark.parametrize("name", ["rgba8_lossy.avif", "rgb10.avif"])
def test_avif_roi_and_buffer(dec, name):
    data = read(name)
    whole = dec.decode(data, mode="rgba", dtype="uint16").numpy()
    roi = (3, 5, 11, 17)
    got = dec.decode(data, mode="rgba", dtype="uint16", roi=roi).numpy()
    assert np.array_equal(got, whole[3:14, 5:22])
    buf = augpy.empty((11 * 17 * 3,), augpy.uint8)
    out = dec.decode(data, roi=roi, buffer=buf)
    assert np.array_equal(out.numpy(), dec.decode(data).numpy()[3:14, 5:22])
    with pytest.raises(ValueError, match=r"Decoder.decode: scale 4/8 is for JPEG files: a AVIF decodes at scale 1"):
        dec.decode(data, scale=0.5)
    with pytest.raises(ValueError, match=r"page 1 is for TIFF files: a avif file has one image"):
        dec.decode(data, page=1)


def test_avif_truncated(dec):
    with pytest.raises(augpy.DecodeError, match=r"^Decoder.decode: AVIF: Truncated data"):
        dec.decode(read("truncated.avif"))
    data = read("rgb10.avif")
    for cut in (len(data) // 2, len(data) - 40, 40, 20):
        with pytest.raises(augpy.DecodeError, match=r"^Decoder.decode: AVIF: "):
            dec.decode(data[:cut], mode="unchanged")


def test_avif_hostile(dec):
    """An 'ispe' box claiming 1000000 x 1000000 in a 684-byte file: libavif's parse refuses it
    (over its 16384 x 16384 limit); 16000 x 16000 is refused by the decoder's limit from the
    header, before anything is allocated."""
    data = read("hostile.avif")
    with pytest.raises(augpy.DecodeError, match=r"^Decoder.decode: AVIF: .*1000000x1000000"):
        dec.decode(data)
    with pytest.raises(augpy.DecodeError, match=r"^Decoder.info: AVIF: .*1000000x1000000"):
        dec.info(data)
    k = data.index(b"ispe")
    inside = data[:k + 8] + (16000).to_bytes(4, "big") * 2 + data[k + 16:]
    assert augpy.Decoder().info(inside)["height"] == 16000
    with pytest.raises(augpy.DecodeError, match=r"^Decoder.decode: image of 16000 x 16000 = 256000000 pixels is "
                                                r"larger than the decoder's limit of 1048576"):
        augpy.Decoder(max_pixels=1 << 20).decode(inside)


def test_avif_sniffing_not_extension(dec, tmp_path):
    p = tmp_path / "x.png"
    p.write_bytes(read("rgb8_lossless.avif"))
    assert np.array_equal(dec.decode(p).numpy(), REF["rgb8_lossless.avif"])
    heic = b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic"
    with pytest.raises(augpy.DecodeError, match=r"not a JPEG, PNG, WebP, TIFF or AVIF file \(starts with 00 00 00 18"):
        dec.decode(heic)


def test_stages_and_data_read_avif(tmp_path):
    """DecodeWarp reads AVIF as it reads the same pixels as PNG; augpy.data lists .avif files and
    names the format of a failed one."""
    from augpy import data
    from augpy.image import DecodeWarp
    files = [read("rgb8_lossless.avif"), read("rgb8_lossy.avif")]
    pngs = []
    for name in ("rgb8_lossless.avif", "rgb8_lossy.avif"):
        f = io.BytesIO()
        Image.fromarray(REF[name]).save(f, "PNG")
        pngs.append(f.getvalue())
    params = [{"angle": 10.0, "scale": 1.2}, {"hmirror": True}]
    dw = DecodeWarp(2, (3, 20, 24), cpu_threads=1, dct_scale=False)
    got = dw({"image": files, "augmentation": params})["image"].numpy()
    want = dw({"image": pngs, "augmentation": params})["image"].numpy()
    assert np.array_equal(got, want)
    with pytest.raises(augpy.DecodeError, match=r"image 0 \(bytes, avif\): Decoder.decode: AVIF: "):
        dw({"image": [read("truncated.avif"), files[0]], "augmentation": params})
    dw.close()
    assert ".avif" in data.IMAGE_EXTENSIONS
    (tmp_path / "cls").mkdir()
    for name in ("a.avif", "b.AVIF", "c.txt"):
        (tmp_path / "cls" / name).write_bytes(read("rgb8_lossy.avif"))
    assert [p.rsplit("/", 1)[-1] for p in data.list_images(tmp_path, recursive=True)] == ["a.avif", "b.AVIF"]
