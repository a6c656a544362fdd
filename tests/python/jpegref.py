"""The reference for JPEG pixels decoded on the 'nvjpeg' engine (ctypes over libturbojpeg.so.0).

nvJPEG upsamples chroma by replication (libjpeg's "fast upsampling"), not with libjpeg-turbo's
default triangular ("fancy") filter that the CPU decoder and Pillow use: on an H200, 4:2:0
files with noisy chroma differed from the CPU decode by a mean of 5.7 (at most 83), exactly as
libjpeg-turbo's own TJFLAG_FASTUPSAMPLE decode differs from its default; 4:4:4 files differed by
IDCT rounding only. So the reference for nvJPEG is an independent libjpeg-turbo decode with
TJFLAG_FASTUPSAMPLE and the accurate integer IDCT: equal on the emulation (whose stand-in nvJPEG,
tests/cuda_emu/emu_nvjpeg.cpp, decodes that way), within MEAN / MAX on a GPU. Files the engine
leaves to the CPU (CMYK/YCCK, headers TurboJPEG refuses: the libjpeg fallback) keep Pillow's
pixels. tests/c/helpers/th_jpeg.c is the same reference for the C tests."""
import ctypes
import io
import os

import numpy as np
from PIL import Image

# IDCT rounding on a GPU: values move by 1 or 2 here and there (a mean of 0.04 on a 480x640
# 4:4:4 file), colour conversion scales a chroma difference by up to 1.8. These bounds leave room
# for that and still fail fancy upsampling (a mean of 5.7) or another image's pixels.
MEAN = 1.0
MAX = 8

EMULATED = os.environ.get("AUG_CUDA_BACKEND") == "emu"

_TJPF_RGB = 0
_TJCS_CMYK, _TJCS_YCCK = 3, 4
_TJFLAG_FASTUPSAMPLE, _TJFLAG_ACCURATEDCT, _TJFLAG_STOPONWARNING = 256, 4096, 8192

_tj = ctypes.CDLL("libturbojpeg.so.0")
_tj.tjInitDecompress.restype = ctypes.c_void_p
_tj.tjDestroy.argtypes = [ctypes.c_void_p]
_tj.tjDecompressHeader3.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_ulong] + [
    ctypes.POINTER(ctypes.c_int)] * 4
_tj.tjDecompress2.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_int,
                              ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int]
_tj.tjGetErrorStr2.argtypes = [ctypes.c_void_p]
_tj.tjGetErrorStr2.restype = ctypes.c_char_p


def fast_upsampling_rgb(data, fancy=False):
    """libjpeg-turbo's RGB decode of data with fast upsampling (fancy=True: its default, Pillow's
    pixels) and the accurate IDCT, or None when nvJPEG never sees the file: CMYK/YCCK, or a
    header TurboJPEG refuses."""
    data = bytes(data)
    h = _tj.tjInitDecompress()
    try:
        w, ht, ss, cs = (ctypes.c_int() for _ in range(4))
        if _tj.tjDecompressHeader3(h, data, len(data), w, ht, ss, cs) != 0 or cs.value in (_TJCS_CMYK, _TJCS_YCCK):
            return None
        out = np.empty((ht.value, w.value, 3), np.uint8)
        flags = _TJFLAG_ACCURATEDCT | _TJFLAG_STOPONWARNING | (0 if fancy else _TJFLAG_FASTUPSAMPLE)
        if _tj.tjDecompress2(h, data, len(data), out.ctypes.data, w.value, 0, ht.value, _TJPF_RGB, flags) != 0:
            raise ValueError(f"libjpeg-turbo: {_tj.tjGetErrorStr2(h).decode()}")
        return out
    finally:
        _tj.tjDestroy(h)


def expected_rgb(engine, data):
    """(pixels, exact): what a decoder of `engine` must give for the JPEG `data`: Pillow's
    convert('RGB') exactly, or on 'nvjpeg', for the files nvJPEG decodes, the fast-upsampling
    decode (exactly on the emulation, within MEAN / MAX on a GPU)."""
    if engine == "nvjpeg":
        ref = fast_upsampling_rgb(data)
        if ref is not None:
            return ref, EMULATED
    return np.asarray(Image.open(io.BytesIO(bytes(data))).convert("RGB")), True


def mismatch(got, ref, exact):
    """None when got matches ref (exactly, or within MEAN / MAX), else what differs."""
    if got.shape != ref.shape:
        return f"shape {got.shape}, expected {ref.shape}"
    if np.array_equal(got, ref):
        return None
    d = np.abs(got.astype(np.int16) - ref.astype(np.int16))
    mean, worst = float(d.mean()), int(d.max())
    if not exact and mean <= MEAN and worst <= MAX:
        return None
    return (f"{np.count_nonzero(d)} values differ: mean |diff| {mean:.4f}, max {worst}"
            f"{' (exact expected)' if exact else f' (bounds: mean {MEAN}, max {MAX})'}")


def assert_decoded(engine, got, data):
    """got (a NumPy array) is what a decoder of `engine` must give for the JPEG `data`."""
    ref, exact = expected_rgb(engine, data)
    why = mismatch(np.asarray(got), ref, exact)
    assert why is None, f"{engine}: {why}"
