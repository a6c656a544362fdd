"""The ImageNet stages' batches on nvJPEG's hardware backend (the emulator's stand-in,
AUG_EMU_NVJPEG=1): ImageNetTrain's and ImageNetEval's whole-image decodes of a batch's baseline
JPEGs go to the engines in ONE nvjpegDecodeBatched call (DecodeWarp._batch_job, shared with
DecodeWarp), the other files one by one; the batches are the bytes of the per-file path, a bad
file fails only its own image, and the host waits for nothing. Planned (DCT-scaled region)
decodes, which run on the CPU, stay per file."""
import threading

import numpy as np
import pytest

import augpy
from augpy.image import DecodeWarp, ImageNetEval, ImageNetTrain, imagenet_train
from nvjpeg_standin import ENGINES, FILES, MIXED, NEEDS_STANDIN, bad_tables, counters, host_waits, jpeg

pytestmark = NEEDS_STANDIN

# eight baseline JPEGs: every file the engines'
BASELINE = FILES + [jpeg(48, 40, 11), jpeg(70, 99, 12, subsampling=0), jpeg(55, 33, 13)]
SIZE = (24, 20)


def train(hw, monkeypatch, n=8, **kw):
    """An ImageNetTrain stage whose decoders see the engines (hw '1') or not ('0'); per_file=True:
    the per-file path of the hardware decoder (what every batch took before)."""
    monkeypatch.setenv("AUG_EMU_NVJPEG_HW", hw)
    per_file = kw.pop("per_file", False)
    stage = ImageNetTrain(n, SIZE, seed=5, interpolation="random", **kw)
    if per_file:
        stage._batches = lambda decoder: False
    return stage


def run(stage, images):
    """(the batch as an array, its augmentation dicts, the stand-in's counters of the call)."""
    counters(reset=True)
    out = stage({"image": list(images)})
    c = counters()
    return out["image"].numpy(), out["augmentation"], c


@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("images", [BASELINE, MIXED], ids=["baseline", "mixed"])
def test_imagenet_train_batch_is_one_batched_call(monkeypatch, threads, images):
    """One nvjpegDecodeBatched call per batch for the engines' files (before: one per file), the
    progressive, CMYK and PNG files one by one; the bytes and dicts of the per-file hardware path
    and of the hybrid decoder."""
    engines = [i for i, f in enumerate(images) if f in BASELINE]
    stage, per_file = train("1", monkeypatch, cpu_threads=threads), train("1", monkeypatch, cpu_threads=threads,
                                                                      per_file=True)
    rounds = []
    for _ in range(2):  # both slots of the decoders
        got, aug, c = run(stage, images)
        rounds.append((got, aug))
        assert c["batched_calls"] == 1 and c["batched"] == len(engines), c
        assert c["host_decodes"] == (1 if images is MIXED else 0), c  # the progressive file's hybrid decode
        want, want_aug, c = run(per_file, images)
        assert c["batched_calls"] == len(engines) and c["batched"] == len(engines), c
        np.testing.assert_array_equal(got, want)
        assert aug == want_aug
        assert {a["interpolation"] for a in aug} == {"bilinear", "bicubic"}
    hybrid = train("0", monkeypatch, cpu_threads=threads)  # the same seed: the first round's draws
    got_hybrid, aug_hybrid, c = run(hybrid, images)
    assert c["batched_calls"] == 0
    np.testing.assert_array_equal(got_hybrid, rounds[0][0])
    assert aug_hybrid == rounds[0][1]
    for s in (stage, per_file, hybrid):
        s.close()


def counting_waits(stage):
    """Wrap the stage's decoder-thread jobs so that their threads' host waits are counted too
    (the emulated runtime counts per thread); returns the list the waits are added to."""
    waits, lock = [0], threading.Lock()

    def counted(job):
        def wrapper(*args):
            before = host_waits()
            try:
                return job(*args)
            finally:
                with lock:
                    waits[0] += host_waits() - before
        return wrapper

    if stage._pool is not None:
        stage._job, stage._batch_job = counted(stage._job), counted(stage._batch_job)
    return waits


@pytest.mark.parametrize("threads", [1, 3])
def test_imagenet_train_batch_has_no_host_waits(monkeypatch, threads):
    """A batch of 8 waits for nothing on the host, on the caller's thread or the decoder threads,
    once the decoders' buffers have grown (before: a wait whenever the per-file path reused a slot
    whose image was still queued)."""
    stage = train("1", monkeypatch, cpu_threads=threads)
    waits = counting_waits(stage)
    for images in (BASELINE, MIXED):
        for _ in range(2):  # both slots' buffers, the pools' blocks
            stage({"image": list(images)})
        augpy.synchronize()
        waits[0], before = 0, host_waits()
        counters(reset=True)
        out = stage({"image": list(images)})
        assert counters()["batched_calls"] == 1
        assert host_waits() - before == 0 and waits[0] == 0
        assert out["image"].shape == (8, 3) + SIZE
    stage.close()


def test_imagenet_train_recipe_batch_has_no_host_waits(monkeypatch):
    """imagenet_train (ImageNetTrain -> ColorJitter -> Normalize) waits for nothing either (before:
    the per-file decodes' slot reuse)."""
    monkeypatch.setenv("AUG_EMU_NVJPEG_HW", "1")
    stage = imagenet_train(8, SIZE, seed=5)
    for _ in range(3):  # both slots' buffers, the pools' blocks, Normalize's ring
        stage({"image": list(BASELINE)})
    augpy.synchronize()
    before = host_waits()
    counters(reset=True)
    out = stage({"image": list(BASELINE)})
    assert counters()["batched_calls"] == 1 and host_waits() - before == 0
    assert out["image"].shape == (8, 3) + SIZE


def test_imagenet_train_batch_keeps_per_file_errors(monkeypatch):
    """A file that fails only once decoded fails the batched call: every file of it takes the
    per-file path, where only the bad one fails ('skip'; 'raise' names its image); a file whose
    header does not read is handled before the decode, as before."""
    images = [FILES[0], bad_tables(FILES[1]), FILES[2], b"not an image", FILES[3]]
    stage = train("1", monkeypatch, n=5, on_error="skip")
    got, aug, c = run(stage, images)
    assert stage.skipped == 2 and got.shape[0] == 3 and len(aug) == 3
    assert c["batched_calls"] >= 1
    want, want_aug, _ = run(train("1", monkeypatch, n=5, on_error="skip", per_file=True), images)
    np.testing.assert_array_equal(got, want)
    assert aug == want_aug
    with pytest.raises(augpy.DecodeError, match="image 1"):
        train("1", monkeypatch, n=3)({"image": images[:3]})


def test_planned_decodes_stay_per_file(monkeypatch):
    """dct_scale=True: each JPEG is decoded at its plan's DCT scale and region, which the batched API
    cannot express (that decode runs on the CPU): no batched call, the per-file path's bytes."""
    stage = train("1", monkeypatch, dct_scale=True)
    got, aug, c = run(stage, MIXED)
    assert c["batched_calls"] == 0
    assert any(a["dct_scale"] < 8 for a in aug)
    want, want_aug, _ = run(train("1", monkeypatch, dct_scale=True, per_file=True), MIXED)
    np.testing.assert_array_equal(got, want)
    assert aug == want_aug


def test_imagenet_eval_batch_is_one_batched_call(monkeypatch):
    monkeypatch.setenv("AUG_EMU_NVJPEG_HW", "1")
    stage, per_file = ImageNetEval(8, SIZE, resize=28), ImageNetEval(8, SIZE, resize=28)
    per_file._batches = lambda decoder: False
    got, aug, c = run(stage, MIXED)
    assert c["batched_calls"] == 1 and c["batched"] == len(ENGINES), c
    want, want_aug, c = run(per_file, MIXED)
    assert c["batched_calls"] == len(ENGINES), c
    np.testing.assert_array_equal(got, want)
    assert aug == want_aug and [a["source_size"] for a in aug][:2] == [(37, 53), (90, 70)]


def test_stage_overriding_decode_warp_alone_is_not_batched(monkeypatch):
    """A subclass that overrides only _decode_warp (augpy.image's extension point) keeps its own
    per-file decodes: its class does not define the whole-image warp of the batched path."""
    monkeypatch.setenv("AUG_EMU_NVJPEG_HW", "1")

    class Mine(DecodeWarp):
        def _decode_warp(self, decoder, buffer, data, params, dst):
            super()._decode_warp(decoder, buffer, data, params, dst)

    class MyTrain(ImageNetTrain):
        def _decode_warp(self, decoder, buffer, data, job, dst):
            super()._decode_warp(decoder, buffer, data, job, dst)

    for stage in (Mine(8, (3,) + SIZE), MyTrain(8, SIZE, seed=5)):
        _, _, c = run(stage, MIXED)
        assert c["batched_calls"] == len(ENGINES), c
