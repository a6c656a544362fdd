"""Decoder.decode(data, roi=..., scale=...) and Decoder.info (semantics §13, docs/jpeg.md
"Decoding only what is needed"). References, all independent of augpy:
- a region decode equals Pillow's full decode cut with NumPy (scale 1) or, scaled, Pillow's
  draft() decode (libjpeg's DCT scaling; 1/2, 1/4, 1/8) and libjpeg-turbo's `djpeg -scale M/8`
  (every factor; skipped where djpeg is not installed), cut with NumPy, at every alignment;
- `djpeg -crop` (libjpeg-turbo's own cropped decode) agrees away from its band's edge columns;
- info() against Pillow's reading of the header (size, mode, sampling, progressive, Adobe
  transform) on the bundled samples and on generated grayscale / CMYK / progressive files.
Bad roi / scale / data values raise ValueError / TypeError naming the function and value.
Runs on the session's device (CUDA decodes regions on the CPU and uploads). On the 'nvjpeg'
engine a whole-image decode (scale 1, no roi) is nvJPEG's, whose chroma is replicated: it is
compared with libjpeg-turbo's fast-upsampling decode (jpegref.py) and regions with the CPU's
full decode."""
import fractions
import io
import os
import pathlib
import shutil
import subprocess

import numpy as np
import pytest
from PIL import Image, JpegImagePlugin

import augpy
from conftest import decode_error
from jpegref import assert_decoded

SAMPLES = pathlib.Path(augpy.__file__).parent / "samples"
DJPEG = shutil.which("djpeg")
needs_djpeg = pytest.mark.skipif(DJPEG is None, reason="djpeg (libjpeg-turbo-progs) not installed")


def image(h, w, seed=0, channels=3):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    base = [x * 255 // max(w - 1, 1), y * 255 // max(h - 1, 1), (x + y) * 127 // max(h + w - 2, 1),
            255 - x * 200 // max(w - 1, 1)]
    img = np.stack(base[:channels], -1) + rng.integers(-25, 26, (h, w, channels))
    return np.clip(img, 0, 255).astype(np.uint8)


def jpeg(h, w, mode="RGB", seed=0, **kw):
    arr = image(h, w, seed, 4 if mode == "CMYK" else 3)
    im = Image.fromarray(arr, mode) if mode == "CMYK" else Image.fromarray(arr).convert(mode)
    b = io.BytesIO()
    im.save(b, "JPEG", quality=90, **kw)
    return b.getvalue()


def pillow_rgb(data, draft=None):
    im = Image.open(io.BytesIO(data))
    if draft is not None:
        im.draft(im.mode, (im.width * draft[0] // draft[1], im.height * draft[0] // draft[1]))
    return np.asarray(im.convert("RGB"))


def djpeg(data, *args):
    out = subprocess.run([DJPEG, *args], input=data, capture_output=True, check=True).stdout
    return np.asarray(Image.open(io.BytesIO(out)).convert("RGB"))


@pytest.fixture(scope="module")
def dec():
    return augpy.Decoder()


FILES = {
    "420": jpeg(45, 61, subsampling=2),
    "422-prog": jpeg(45, 61, subsampling=1, progressive=True),
    "444": jpeg(33, 70, subsampling=0, seed=2),
    "gray": jpeg(40, 37, "L", seed=3),
    "cmyk": jpeg(41, 50, "CMYK", seed=4),
    "420-restart": jpeg(50, 43, subsampling=2, seed=5, restart_marker_blocks=2),
}
POS = [0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 33]
EXT = [1, 2, 8, 16, 19]


def rois(H, W):
    for i, y in enumerate(POS[::2]):
        for x in POS:
            for k, h in enumerate(EXT):
                w = EXT[(k + i + x) % len(EXT)]
                if y + h <= H and x + w <= W:
                    yield y, x, h, w


def check_rois(dec, data, full, scale=None):
    H, W = full.shape[:2]
    for y, x, h, w in rois(H, W):
        t = dec.decode(data, roi=(y, x, h, w), scale=scale)
        assert t.shape == (h, w, 3) and t.layout == "HWC" and t.dtype == augpy.uint8
        got = t.numpy()
        assert np.array_equal(got, full[y:y + h, x:x + w]), (scale, (y, x, h, w))


@pytest.mark.parametrize("name", FILES)
def test_roi_equals_full_decode_cut(dec, name):
    data = FILES[name]
    check_rois(dec, data, pillow_rgb(data))


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("scale", [(1, 2), (1, 4), (1, 8)])
def test_scale_equals_pillow_draft(dec, name, scale):
    data = FILES[name]
    ref = pillow_rgb(data, draft=scale)
    H, W = Image.open(io.BytesIO(data)).size[::-1]
    assert ref.shape[:2] == (-(-H * scale[0] // scale[1]), -(-W * scale[0] // scale[1]))
    got = dec.decode(data, scale=scale).numpy()
    assert np.array_equal(got, ref)
    check_rois(dec, data, ref, scale)


@needs_djpeg
@pytest.mark.parametrize("name", [n for n in FILES if n != "cmyk"])  # djpeg writes no CMYK PPM
@pytest.mark.parametrize("m", [1, 3, 5, 6, 7, 8, 9, 12, 16])
def test_scale_equals_djpeg(dec, name, m):
    data = FILES[name]
    ref = djpeg(data, "-scale", f"{m}/8")
    got = dec.decode(data, scale=fractions.Fraction(m, 8)).numpy()
    if m == 8:  # scale 1 is a whole-image decode: nvJPEG's on the 'nvjpeg' engine
        assert_decoded(dec.engine, got, data)
    else:
        assert got.shape == ref.shape and np.array_equal(got, ref)
    check_rois(dec, data, ref, (m, 8))


@needs_djpeg
@pytest.mark.parametrize("name", ["420", "422-prog", "444", "gray"])
@pytest.mark.parametrize("m", [8, 4])
def test_roi_agrees_with_djpeg_crop(dec, name, m):
    """djpeg -crop widens X to an iMCU boundary and replicates chroma into its band's first
    and last columns (fancy upsampling at the band edge); elsewhere it equals our region (which
    asks libjpeg for two more columns each side so its own columns equal the full decode)."""
    data = FILES[name]
    full = djpeg(data, "-scale", f"{m}/8")
    H, W = full.shape[:2]
    for y, x, h, w in rois(H, W):
        if w < 8:  # narrower bands of djpeg differ from the full decode in more than the edge columns
            continue
        ref = djpeg(data, "-scale", f"{m}/8", "-crop", f"{w}x{h}+{x}+{y}")
        left = x - (ref.shape[1] - w)  # the band's first column in the image
        assert ref.shape[0] == h and 0 <= left <= x
        got = dec.decode(data, roi=(y, x, h, w), scale=(m, 8)).numpy()
        band = np.zeros(W, bool)
        band[left + 1:left + ref.shape[1] - 1] = True  # djpeg's interior columns
        band[:1] = band[-1:] = True                    # ... and the image's own edges
        band[left] |= left == 0
        band[left + ref.shape[1] - 1] |= left + ref.shape[1] == W
        keep = band[x:x + w]
        assert np.array_equal(got[:, keep], ref[:, x - left:x - left + w][:, keep]), (y, x, h, w)


@pytest.mark.parametrize("spelling", [0.5, (1, 2), (2, 4), (4, 8), fractions.Fraction(1, 2)])
def test_scale_spellings(dec, spelling):
    data = FILES["420"]
    assert dec.decode(data, scale=spelling).shape == (23, 31, 3)
    assert dec.decode(data, scale=1).shape == dec.decode(data, scale=1.0).shape == (45, 61, 3)


def test_roi_and_scale_whole_image_and_buffer(dec):
    data = FILES["420"]
    full = pillow_rgb(data)
    assert np.array_equal(dec.decode(data, roi=(0, 0, 45, 61)).numpy(), full)
    t = dec.decode(data, roi=(5, 6, 10, 12), scale=(1, 1))
    assert t.device == augpy.Tensor((1,)).device  # the session's device (emu: cuda:0, uploaded)
    buf = augpy.zeros((10 * 12 * 3,), augpy.uint8)
    t = dec.decode(data, buf, roi=(5, 6, 10, 12))
    assert t.ptr == buf.ptr and np.array_equal(t.numpy(), full[5:15, 6:18])
    with pytest.raises(ValueError, match="too small"):
        dec.decode(data, buf, roi=(5, 6, 10, 13))


def test_max_pixels_bounds_the_output():
    data = FILES["420"]  # 45 x 61 = 2745 pixels
    small = augpy.Decoder(max_pixels=200)
    with pytest.raises(augpy.NvJpegError, match="45 x 61 = 2745 pixels is larger"):
        small.decode(data)
    assert small.decode(data, roi=(3, 4, 10, 20)).shape == (10, 20, 3)
    assert small.decode(data, scale=(1, 8)).shape == (6, 8, 3)
    with pytest.raises(augpy.NvJpegError, match="23 x 31 = 713 pixels is larger"):
        small.decode(data, scale=0.5)


@pytest.mark.parametrize("scale,exc,msg", [
    (0, ValueError, "scale 0 is not one of libjpeg-turbo's factors"),
    (-0.5, ValueError, "scale -0.5 is not one"),
    (2.125, ValueError, "scale 17/8 is not one"),
    (3, ValueError, "scale 3/1 is not one"),
    (1 / 3, ValueError, "is not one of"),
    (0.1, ValueError, "scale 0.1 is not one"),
    ((1, 0), ValueError, "not one of"),
    ((1, 3), ValueError, "not one of"),
    ((1, 2, 3), TypeError, "scale must be a number or a \\(num, denom\\) pair"),
    ((1.0, 2), TypeError, "scale\\[0\\]"),
    (float("nan"), ValueError, "scale nan is not one"),
    (float("-inf"), ValueError, "scale -inf is not one"),
    (True, TypeError, "scale must be a number"),
    ("1/2", TypeError, "scale must be a number"),
    ([1, 2], TypeError, "scale must be a number"),
])
def test_bad_scale(dec, scale, exc, msg):
    with pytest.raises(exc, match=msg):
        dec.decode(FILES["420"], scale=scale)


@pytest.mark.parametrize("roi,scale,exc,msg", [
    ((-1, 0, 1, 1), None, ValueError, "roi\\[0\\] \\(y\\) = -1 is out of range"),
    ((0, -1, 1, 1), None, ValueError, "roi\\[1\\] \\(x\\)"),
    ((0, 0, 0, 1), None, ValueError, "roi\\[2\\] \\(h\\) = 0"),
    ((0, 0, 1, 0), None, ValueError, "roi\\[3\\] \\(w\\) = 0"),
    ((0, 0, 46, 1), None, ValueError, "not inside the decoded image of 45 x 61"),
    ((44, 60, 2, 1), None, ValueError, "roi \\(y=44, x=60, h=2, w=1\\) is not inside"),
    ((20, 20, 8, 8), 0.5, ValueError, "not inside the scaled image of 23 x 31"),
    ((0, 0, 1), None, ValueError, "roi must have 4 values"),
    ((0, 0, 1, 1, 1), None, ValueError, "roi must have 4 values"),
    ((0, 0, 1.0, 1), None, TypeError, "roi\\[2\\]"),
    ((0, 0, 2**70, 1), None, ValueError, "out of range"),
    (5, None, TypeError, "roi must be a sequence"),
    ("0001", None, TypeError, "roi must be a sequence"),
])
def test_bad_roi(dec, roi, scale, exc, msg):
    with pytest.raises(exc, match=msg):
        dec.decode(FILES["420"], roi=roi, scale=scale)
    with pytest.raises(exc):
        dec.decode(FILES["420"], roi=roi, scale=scale)  # and the decoder still works after it
    assert dec.decode(FILES["420"], roi=[1, 2, 3, 4]).shape == (3, 4, 3)


def test_truncated_region(dec):
    data = FILES["420"][: len(FILES["420"]) // 2]
    # scaled / region decodes run on libjpeg-turbo whatever the engine: its reason
    with pytest.raises(augpy.DecodeError, match="^Decoder.decode: Premature end of JPEG file$"):
        dec.decode(data, scale=0.5)
    with pytest.raises(augpy.DecodeError):
        dec.decode(data, roi=(40, 0, 5, 61))
    # documented: rows below the region are not read (the top rows need the first two iMCU rows)
    cut = FILES["420"][: len(FILES["420"]) * 3 // 4]
    with pytest.raises(augpy.DecodeError, match=decode_error(dec, "Premature end of JPEG file")):
        dec.decode(cut)  # the whole image: nvJPEG's on the 'nvjpeg' engine
    assert np.array_equal(dec.decode(cut, roi=(0, 0, 2, 61)).numpy(), pillow_rgb(FILES["420"])[:2])


# ---- info ---------------------------------------------------------------------------------

def pillow_info(data):
    im = Image.open(io.BytesIO(data))
    sampling = {0: "4:4:4", 1: "4:2:2", 2: "4:2:0"}.get(JpegImagePlugin.get_sampling(im))
    cs = {"L": "Grayscale", "RGB": "YCbCr", "CMYK": "CMYK"}[im.mode]
    if im.mode == "CMYK" and im.info.get("adobe_transform") == 2:
        cs = "YCCK"
    if im.mode == "RGB" and im.info.get("adobe_transform") == 0:
        cs = "RGB"
    return {"height": im.height, "width": im.width, "components": len(im.getbands()), "colour_space": cs,
            "sampling": "4:0:0" if im.mode == "L" else sampling, "progressive": bool(im.info.get("progressive"))}


@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.jpg")) + list(FILES))
def test_info_matches_pillow(dec, path):
    data = FILES[path] if path in FILES else path.read_bytes()
    info = dec.info(data)
    ref = pillow_info(data)
    assert set(info) == {"format", "height", "width", "channels", "components", "colour_space", "sampling",
                         "progressive"}
    assert info["format"] == "jpeg"
    assert info["channels"] == 3 and isinstance(info["progressive"], bool)
    if ref["sampling"] is None:  # Pillow names only 4:4:4 / 4:2:2 / 4:2:0
        ref["sampling"] = info["sampling"]
    assert {k: info[k] for k in ref} == ref
    assert augpy.jpeg_info(data) == (info["height"], info["width"])
    assert dec.decode(data).shape == (info["height"], info["width"], info["channels"])


def test_info_sampling_names(dec):
    cv2 = pytest.importorskip("cv2")
    img = image(32, 48)
    for factor, name in [(cv2.IMWRITE_JPEG_SAMPLING_FACTOR_440, "4:4:0"),
                         (cv2.IMWRITE_JPEG_SAMPLING_FACTOR_411, "4:1:1")]:
        ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_SAMPLING_FACTOR, factor])
        assert ok and dec.info(enc.tobytes())["sampling"] == name
    assert dec.info(FILES["cmyk"])["sampling"] == "4:4:4"  # Pillow writes CMYK unsubsampled
    data = bytearray(FILES["444"])  # rewrite Cr's factors to 1x2 in the SOF: not a named mode
    sof = data.index(b"\xff\xc0")
    assert data[sof + 9] == 3 and data[sof + 17] == 0x11
    data[sof + 17] = 0x12
    assert dec.info(bytes(data))["sampling"] == "1x1,1x1,1x2"
    data[sof + 17], data[sof + 11] = 0x11, 0x12
    assert dec.info(bytes(data))["sampling"] == "4:4:0"


@pytest.mark.parametrize("bad,exc", [(b"", augpy.NvJpegError), (b"not a jpeg", augpy.NvJpegError),
                                     (None, TypeError), (1.5, TypeError)])
def test_info_bad_input(dec, bad, exc):
    with pytest.raises(exc, match="Decoder.info"):
        dec.info(bad)
    with pytest.raises(augpy.NvJpegError, match="Decoder.info"):
        dec.info(FILES["420"][:20])


# ---- data: paths and DLPack ---------------------------------------------------------------

def test_paths(dec, tmp_path):
    data = FILES["420"]
    p = tmp_path / "x.jpg"
    p.write_bytes(data)
    full = pillow_rgb(data)
    for arg in (str(p), p):
        assert_decoded(dec.engine, dec.decode(arg).numpy(), data)
        assert np.array_equal(dec.decode(arg, roi=(1, 2, 3, 4)).numpy(), full[1:4, 2:6])
        assert dec.info(arg)["width"] == 61 and augpy.jpeg_info(arg) == (45, 61)

    class Fs:
        def __fspath__(self):
            return str(p)
    assert dec.decode(Fs()).shape == (45, 61, 3)
    with pytest.raises(FileNotFoundError, match="nope.jpg"):
        dec.decode(str(tmp_path / "nope.jpg"))
    with pytest.raises(IsADirectoryError):
        dec.info(tmp_path)


class DL:
    """A DLPack-only producer (no buffer protocol), like a torch tensor from read_file."""

    def __init__(self, arr):
        self.arr = arr

    def __dlpack__(self, **kw):
        return self.arr.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self.arr.__dlpack_device__()


def test_dlpack(dec):
    data = FILES["422-prog"]
    arr = np.frombuffer(data, np.uint8)
    full = pillow_rgb(data)
    assert_decoded(dec.engine, dec.decode(DL(arr)).numpy(), data)
    assert np.array_equal(dec.decode(DL(arr), scale=0.25).numpy(), pillow_rgb(data, draft=(1, 4)))
    assert dec.info(DL(arr))["progressive"] is True
    assert augpy.jpeg_info(DL(arr)) == full.shape[:2]
    with pytest.raises(TypeError, match="contiguous 1-d uint8 tensor on the CPU, got a 2-d uint8"):
        dec.decode(DL(arr[: len(arr) // 2 * 2].reshape(2, -1)))
    with pytest.raises(TypeError, match="got a 1-d int16"):
        dec.decode(DL(arr[: len(arr) // 2 * 2].view(np.int16)))
    with pytest.raises(TypeError, match="contiguous"):
        dec.decode(DL(arr.copy()[::2]))  # writable: imported as a strided view
    with pytest.raises(augpy.DecodeError, match=r"not a JPEG, PNG, WebP, TIFF or AVIF file \(starts with ff ff( [0-9a-f]{2}){6}\)"):
        dec.decode(DL(arr[::2]))  # read-only: from_dlpack copies, the elements are every other byte
    torch = pytest.importorskip("torch")
    assert np.array_equal(dec.decode(torch.from_numpy(arr.copy())).numpy(), full)


def test_buffer_kinds_still_work(dec):
    data = FILES["444"]
    full = pillow_rgb(data)
    for obj in (data, bytearray(data), memoryview(data), np.frombuffer(data, np.uint8)):
        assert np.array_equal(dec.decode(obj, roi=(2, 3, 4, 5)).numpy(), full[2:6, 3:8])
    with pytest.raises(TypeError, match="C-contiguous"):
        dec.decode(np.frombuffer(data * 2, np.uint8)[::2])
    with pytest.raises(TypeError, match="a CPU uint8 DLPack tensor or a path, not int"):
        dec.decode(5)


def on_cpu(t):
    return str(t.device).startswith("cpu")


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("scale", [None, (1, 2), (3, 8)])
def test_view_decode_equals_compact(dec, name, scale):
    """contiguous=False: the same pixels as the compact decode; on a CPU decoder a strided view
    of the band libjpeg wrote (rows (w + 68) * 3 bytes apart), except for CMYK files (compact)."""
    data = FILES[name]
    full = dec.decode(data, scale=scale).numpy()
    if scale is None and dec.engine == "nvjpeg":  # that was nvJPEG's; regions are the CPU's
        full = pillow_rgb(data)
    H, W = full.shape[:2]
    for y, x, h, w in list(rois(H, W))[::3] + [(0, 0, H, W)]:
        t = dec.decode(data, roi=(y, x, h, w), scale=scale, contiguous=False)
        assert t.shape == (h, w, 3) and t.layout == "HWC" and t.dtype == augpy.uint8
        if on_cpu(t) and name != "cmyk":
            assert t.strides == ((w + 68) * 3, 3, 1) and (h == 1 or not t.is_contiguous)
        else:
            assert t.is_contiguous
        assert np.array_equal(t.numpy(), full[y:y + h, x:x + w]), (scale, (y, x, h, w))


def test_view_decode_buffer_and_fallbacks(dec):
    data = FILES["420"]
    full = pillow_rgb(data)
    compact = (10 * 12 * 3,)
    # a buffer that holds the band: the view lives in it
    big = augpy.zeros((10 * (12 + 68) * 3,), augpy.uint8)
    t = dec.decode(data, big, roi=(5, 6, 10, 12), contiguous=False)
    assert np.array_equal(t.numpy(), full[5:15, 6:18])
    if on_cpu(t):
        assert big.ptr <= t.ptr < big.ptr + 3 * 68 and t.strides == (80 * 3, 3, 1)
    # one that only holds the compact image: a compact decode in it
    small = augpy.zeros(compact, augpy.uint8)
    t = dec.decode(data, small, roi=(5, 6, 10, 12), contiguous=False)
    assert t.ptr == small.ptr and t.is_contiguous and np.array_equal(t.numpy(), full[5:15, 6:18])
    # whole images, other modes and PNG decode compactly
    assert dec.decode(data, contiguous=False).is_contiguous
    assert dec.decode(data, roi=(5, 6, 10, 12), mode="gray", contiguous=False).is_contiguous
    png = io.BytesIO()
    Image.fromarray(full).save(png, "PNG")
    assert dec.decode(png.getvalue(), roi=(5, 6, 10, 12), contiguous=False).is_contiguous
    with pytest.raises(TypeError, match="Decoder.decode: contiguous must be True or False"):
        dec.decode(data, roi=(5, 6, 10, 12), contiguous=1)


def test_view_decode_warps_like_compact(dec):
    data = FILES["444"]
    m = np.array([[0.7, 0.1, 3.0], [-0.1, 0.8, 2.0]], np.float32)
    a = dec.decode(data, roi=(3, 9, 20, 40), contiguous=False)
    b = dec.decode(data, roi=(3, 9, 20, 40))
    out_a, out_b = augpy.Tensor((3, 16, 24), augpy.uint8), augpy.Tensor((3, 16, 24), augpy.uint8)
    augpy.warp_affine(a, out_a, m, None, 2)
    augpy.warp_affine(b, out_b, m, None, 2)
    assert np.array_equal(out_a.numpy(), out_b.numpy())
