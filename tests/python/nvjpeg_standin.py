"""The emulator's stand-in nvJPEG (AUG_EMU_NVJPEG=1; tests/cuda_emu/emu_nvjpeg.cpp) as the nvJPEG
suites see it: the loaded emulated module, its counters and host-wait count over ctypes, and the
files those suites decode (baseline JPEGs the engines take, a progressive, a CMYK and a PNG file,
a file that fails only once decoded)."""
import ctypes
import io

import numpy as np
import pytest
from PIL import Image

from conftest import DECODE_ENGINE, emulated_module


MODULE = emulated_module() if DECODE_ENGINE == "nvjpeg" else None
# the mark of the suites that need the stand-in (their pytestmark)
NEEDS_STANDIN = pytest.mark.skipif(MODULE is None, reason="needs the emulator's stand-in nvJPEG (AUG_EMU_NVJPEG=1)")


COUNTERS = ("alloc_malloc", "alloc_free", "cuda_malloc", "cuda_free", "batched", "batched_calls", "batched_inits",
            "host_decodes", "calls")


def counters(reset=False):
    """The stand-in's counters: allocator mallocs / frees, cudaMalloc / cudaFree, images decoded
    by nvjpegDecodeBatched, its calls, nvjpegDecodeBatchedInitialize calls, decoupled host decodes
    (nvjpegDecodeJpegHost) and every nvJPEG call the module made."""
    fn = ctypes.CDLL(MODULE).aug_emu_nvjpeg_counters
    fn.argtypes = [ctypes.POINTER(ctypes.c_long), ctypes.c_int]
    out = (ctypes.c_long * len(COUNTERS))()
    fn(out, int(reset))
    return dict(zip(COUNTERS, out))


def host_waits():
    """The calling thread's host waits so far (the emulated runtime's count)."""
    fn = ctypes.CDLL(MODULE).aug_emu_host_waits
    fn.argtypes = [ctypes.POINTER(ctypes.c_char_p)]
    fn.restype = ctypes.c_longlong
    return fn(None)


def jpeg(h, w, seed, mode="RGB", progressive=False, subsampling=2):
    rng = np.random.default_rng(seed)
    shape = (h, w, 3) if mode == "RGB" else (h, w)
    img = Image.fromarray(rng.integers(0, 256, shape, dtype=np.uint8), mode)
    f = io.BytesIO()
    kw = {} if mode == "L" else {"subsampling": subsampling}
    img.save(f, "JPEG", quality=90, progressive=progressive, **kw)
    return f.getvalue()


FILES = [jpeg(37, 53, 1), jpeg(64, 64, 2, subsampling=0), jpeg(120, 90, 3, subsampling=1), jpeg(200, 301, 4),
         jpeg(31, 17, 5, mode="L")]
PROGRESSIVE = jpeg(90, 70, 6, progressive=True)


def bad_tables(data):
    """data with its first scan's first component pointing at Huffman tables 3 (never defined):
    the header reads and the markers reach the EOI, the decode fails ("Huffman table 0x03 was
    not defined"): a file that fails only once decoded."""
    b = bytearray(data)
    sos = b.index(b"\xff\xda")
    b[sos + 6] = 0x33  # FF DA, length (2), Ns, then Cs and Td/Ta of the first component
    return bytes(b)


def png(h, w, seed):
    f = io.BytesIO()
    Image.fromarray(np.random.default_rng(seed).integers(0, 256, (h, w, 3), dtype=np.uint8)).save(f, "PNG")
    return f.getvalue()


CMYK = (lambda f: (Image.new("CMYK", (24, 20), (10, 200, 30, 5)).save(f, "JPEG"), f.getvalue())[1])(io.BytesIO())
# a batch: the engines' files (FILES) among a progressive, a CMYK and a PNG file (the single path)
MIXED = [FILES[0], PROGRESSIVE, FILES[1], CMYK, FILES[2], png(33, 41, 9), FILES[3], FILES[4]]
ENGINES = [i for i, f in enumerate(MIXED) if f in FILES]
