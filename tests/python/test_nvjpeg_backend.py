"""nvJPEG's backend choice (cuda/jpeg.cu): the hardware decode engines (batched API) where the
device has them, the hybrid / GPU-Huffman backend elsewhere, reported by Decoder.jpeg_backend;
buffers growing through augpy's pools, never cudaFree. Runs on the emulator's stand-in nvJPEG
(AUG_EMU_NVJPEG=1; tests/cuda_emu/emu_nvjpeg.cpp), whose AUG_EMU_NVJPEG_HW knob gives the
emulated device the engines or not, and whose counters (aug_emu_nvjpeg_counters, over ctypes)
tell where buffers came from. The hardware path is proven on that stand-in only: no GPU with
JPEG engines has run it."""
import numpy as np
import pytest

import augpy
from augpy.image import DecodeWarp
from jpegref import assert_decoded
from nvjpeg_standin import ENGINES, FILES, MIXED, NEEDS_STANDIN, PROGRESSIVE, bad_tables, counters, host_waits

pytestmark = NEEDS_STANDIN


def decoder(monkeypatch, hw, **kw):
    """A Decoder made while the emulated device has the engines (hw '1') or not ('0', 'init-fails')."""
    monkeypatch.setenv("AUG_EMU_NVJPEG_HW", hw)
    return augpy.Decoder(**kw)


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


def test_decode_batch_is_one_batched_call(monkeypatch):
    """Decoder._decode_batch: the files the engines take in ONE nvjpegDecodeBatched call (initialised
    once for that many), each the bytes of the single-image paths; None for the others."""
    hw, single = decoder(monkeypatch, "1"), decoder(monkeypatch, "0")
    batches = []
    for rounds in range(3):  # both slots, then the first again (initialised for 5 already)
        counters(reset=True)
        batches.append(hw._decode_batch(MIXED))
        c = counters()
        assert c["batched_calls"] == 1 and c["batched"] == len(ENGINES), c
        assert c["batched_inits"] == (1 if rounds < 2 else 0) and c["host_decodes"] == 0, c
        # per file: nvjpegJpegStreamParse + nvjpegDecodeBatchedSupported (not for the CMYK and PNG
        # files the core keeps back), then the initialisation and the one batched call
        assert c["calls"] == 2 * 6 + c["batched_inits"] + 1, c
    for got in batches:
        assert [i for i, g in enumerate(got) if g is not None] == ENGINES
        for i in ENGINES:
            assert got[i].shape == single.decode(MIXED[i]).shape and got[i].layout == "HWC"
            np.testing.assert_array_equal(got[i].numpy(), single.decode(MIXED[i]).numpy())
            np.testing.assert_array_equal(got[i].numpy(), hw.decode(MIXED[i]).numpy())
            assert_decoded("nvjpeg", got[i].numpy(), MIXED[i])
    # without the engines: nothing batched, no nvJPEG call
    counters(reset=True)
    assert single._decode_batch(MIXED) == [None] * len(MIXED)
    assert counters()["calls"] == 0
    assert hw._decode_batch([]) == []


def test_decode_batch_failure_falls_back_per_file(monkeypatch):
    """A file that fails inside the batched call fails that call (nvJPEG names no file): every file
    is left to the single path, where only the bad one fails."""
    hw = decoder(monkeypatch, "1")
    bad = bad_tables(FILES[1])
    with pytest.raises(augpy.DecodeError):
        hw.decode(bad)
    counters(reset=True)
    assert hw._decode_batch([FILES[0], bad, FILES[2]]) == [None, None, None]
    assert counters()["batched_calls"] == 1
    # the decoder goes on: the next batch decodes (on the other slot) and the first slot's state too
    for _ in range(2):
        got = hw._decode_batch([FILES[0], FILES[2]])
        np.testing.assert_array_equal(got[1].numpy(), hw.decode(FILES[2]).numpy())


def stage_batch(stage, images):
    rng = np.random.default_rng(3)
    params = [{"angle": float(rng.uniform(-20, 20)), "scale": float(rng.uniform(0.8, 1.3)), "hmirror": bool(i % 2)}
              for i in range(len(images))]
    out = stage({"image": list(images), "augmentation": params})
    return out["image"].numpy(), out


@pytest.mark.parametrize("threads", [1, 3])
def test_decode_warp_batch_is_one_batched_call(monkeypatch, threads):
    """DecodeWarp with the hardware backend: one nvjpegDecodeBatched call per batch for the engines'
    files (before: one per file), the others one by one, the bytes of the per-image hardware path
    and of the hybrid one."""
    monkeypatch.setenv("AUG_EMU_NVJPEG_HW", "1")
    stage = DecodeWarp(len(MIXED), (3, 24, 20), cpu_threads=threads)
    per_image = DecodeWarp(len(MIXED), (3, 24, 20), cpu_threads=threads)
    per_image._batches = lambda decoder: False  # the per-image hardware path (before batches)
    for _ in range(2):
        counters(reset=True)
        got, out = stage_batch(stage, MIXED)
        c = counters()
        assert c["batched_calls"] == 1 and c["batched"] == len(ENGINES) and c["host_decodes"] == 1, c
        counters(reset=True)
        want, _ = stage_batch(per_image, MIXED)
        c = counters()
        assert c["batched_calls"] == len(ENGINES) and c["host_decodes"] == 1, c
        np.testing.assert_array_equal(got, want)
        assert [a["source_size"] for a in out["augmentation"]][:3] == [(37, 53), (90, 70), (64, 64)]
    monkeypatch.setenv("AUG_EMU_NVJPEG_HW", "0")
    hybrid = DecodeWarp(len(MIXED), (3, 24, 20), cpu_threads=threads)
    np.testing.assert_array_equal(stage_batch(hybrid, MIXED)[0], got)
    for s in (stage, per_image, hybrid):
        s.close()


def test_decode_warp_batch_keeps_per_file_errors(monkeypatch):
    """A bad file in a batch fails only its own image ('skip'), the rest are the per-image path's."""
    monkeypatch.setenv("AUG_EMU_NVJPEG_HW", "1")
    images = [FILES[0], bad_tables(FILES[1]), FILES[2], b"not an image", FILES[3]]
    stage = DecodeWarp(len(images), (3, 24, 20), on_error="skip")
    got, out = stage_batch(stage, images)
    assert stage.skipped == 2 and got.shape[0] == 3
    per_image = DecodeWarp(len(images), (3, 24, 20), on_error="skip")
    per_image._batches = lambda decoder: False
    np.testing.assert_array_equal(got, stage_batch(per_image, images)[0])
    with pytest.raises(augpy.DecodeError, match="image 1"):
        stage_batch(DecodeWarp(len(images), (3, 24, 20)), images)


def test_decode_warp_batch_has_no_host_waits(monkeypatch):
    """A DecodeWarp batch on the hardware backend waits for nothing on the host once the decoder's
    buffers are grown and free (before: cudaEventSynchronize on every file)."""
    monkeypatch.setenv("AUG_EMU_NVJPEG_HW", "1")
    stage = DecodeWarp(len(MIXED), (3, 24, 20))
    for _ in range(2):  # both slots' buffers, the pools' blocks
        stage_batch(stage, MIXED)
    augpy.synchronize()
    before = host_waits()
    out = stage({"image": list(MIXED), "augmentation": [{"angle": 10.0 * i} for i in range(len(MIXED))]})
    assert host_waits() - before == 0
    assert out["image"].shape == (len(MIXED), 3, 24, 20)
