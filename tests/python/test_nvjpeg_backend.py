"""nvJPEG's backend choice (cuda/jpeg.cu): the hardware decode engines (batched API) where the
device has them, the hybrid / GPU-Huffman backend elsewhere, reported by Decoder.jpeg_backend;
buffers growing through augpy's pools, never cudaFree. Runs on the emulator's stand-in nvJPEG
(AUG_EMU_NVJPEG=1; tests/cuda_emu/emu_nvjpeg.cpp), whose AUG_EMU_NVJPEG_HW knob gives the
emulated device the engines or not, and whose counters (aug_emu_nvjpeg_counters, over ctypes)
tell where buffers came from. The hardware path is proven on that stand-in only: no GPU with
JPEG engines has run it."""
import ctypes
import io
import os

import numpy as np
import pytest
from PIL import Image

import augpy
from conftest import DECODE_ENGINE


def emulated_module():
    """The path of the loaded emulated CUDA module (libaug_cuda_emu*.so), or None."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1]
                if os.path.basename(path).startswith("libaug_cuda_emu") and ".so" in path:
                    return path
    except OSError:
        pass
    return None


MODULE = emulated_module() if DECODE_ENGINE == "nvjpeg" else None
pytestmark = pytest.mark.skipif(MODULE is None, reason="needs the emulator's stand-in nvJPEG (AUG_EMU_NVJPEG=1)")


def counters(reset=False):
    """The stand-in's counters: allocator mallocs / frees, cudaMalloc / cudaFree, batched images."""
    fn = ctypes.CDLL(MODULE).aug_emu_nvjpeg_counters
    fn.argtypes = [ctypes.POINTER(ctypes.c_long), ctypes.c_int]
    out = (ctypes.c_long * 5)()
    fn(out, int(reset))
    return dict(zip(("alloc_malloc", "alloc_free", "cuda_malloc", "cuda_free", "batched"), out))


def jpeg(h, w, seed, mode="RGB", progressive=False, subsampling=2):
    rng = np.random.default_rng(seed)
    shape = (h, w, 3) if mode == "RGB" else (h, w)
    img = Image.fromarray(rng.integers(0, 256, shape, dtype=np.uint8), mode)
    f = io.BytesIO()
    kw = {} if mode == "L" else {"subsampling": subsampling}
    img.save(f, "JPEG", quality=90, progressive=progressive, **kw)
    return f.getvalue()


def decoder(monkeypatch, hw, **kw):
    """A Decoder made while the emulated device has the engines (hw '1') or not ('0', 'init-fails')."""
    monkeypatch.setenv("AUG_EMU_NVJPEG_HW", hw)
    return augpy.Decoder(**kw)


FILES = [jpeg(37, 53, 1), jpeg(64, 64, 2, subsampling=0), jpeg(120, 90, 3, subsampling=1), jpeg(200, 301, 4),
         jpeg(31, 17, 5, mode="L")]
PROGRESSIVE = jpeg(90, 70, 6, progressive=True)


def test_backend_follows_the_engines(monkeypatch):
    assert decoder(monkeypatch, "1").jpeg_backend == "hardware (batched; other files: hybrid)"
    assert decoder(monkeypatch, "1", gpu_huffman=True).jpeg_backend == \
        "hardware (batched; other files: hybrid+gpu_huffman)"
    none = "(no hardware decoder: nvjpegCreateExV2 failed with NVJPEG_STATUS_ARCH_MISMATCH)"
    assert decoder(monkeypatch, "0").jpeg_backend == "hybrid " + none
    assert decoder(monkeypatch, "0", gpu_huffman=True).jpeg_backend == "hybrid+gpu_huffman " + none
    assert decoder(monkeypatch, "0").engine == "nvjpeg"


def test_failing_hardware_init_falls_back_to_hybrid(monkeypatch):
    d = decoder(monkeypatch, "init-fails")
    assert d.jpeg_backend == ("hybrid (no hardware decoder: nvjpegDecodeBatchedInitialize failed with "
                              "NVJPEG_STATUS_INTERNAL_ERROR)")
    ref = decoder(monkeypatch, "0")
    counters(reset=True)
    for data in FILES:
        np.testing.assert_array_equal(d.decode(data).numpy(), ref.decode(data).numpy())
    assert counters()["batched"] == 0


def test_batched_decode_equals_the_single_image_path(monkeypatch):
    hw, single = decoder(monkeypatch, "1"), decoder(monkeypatch, "0")
    for _ in range(2):  # the second round reuses both slots' grown buffers
        counters(reset=True)
        for data in FILES:
            a, b = hw.decode(data).numpy(), single.decode(data).numpy()
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a, b)
        assert counters()["batched"] == len(FILES)
    # progressive files: not the engines' (nvjpegDecodeBatchedSupported), decoded by the hybrid decoder
    counters(reset=True)
    np.testing.assert_array_equal(hw.decode(PROGRESSIVE).numpy(), single.decode(PROGRESSIVE).numpy())
    assert counters()["batched"] == 0


@pytest.mark.parametrize("hw", ["1", "0"])
def test_buffers_grow_through_augpys_pools(monkeypatch, hw):
    d = decoder(monkeypatch, hw, device_padding=0, host_padding=0)
    counters(reset=True)
    for data in sorted(FILES + [PROGRESSIVE], key=len):  # growing images: the buffers grow
        d.decode(data)
    c = counters()
    assert c["alloc_malloc"] >= 4 and c["alloc_free"] >= 2, c
    assert c["cuda_malloc"] == 0 and c["cuda_free"] == 0, c
    del d
    c = counters()
    assert c["alloc_free"] == c["alloc_malloc"] and c["cuda_free"] == 0, c  # destroyed through the pools too
