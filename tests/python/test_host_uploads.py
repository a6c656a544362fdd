"""Host data reaching a device batch without a host wait (issue 30, "no host waits inside an op";
docs/cuda.md): RandomErasing's 'rand' and 'pixel' values, MixUp's / CutMix's and timm's Mixup's
soft targets (and Mixup's copies on the device), array_to_tensor of small arrays, Tensor.to() of
a CPU tensor and Tensor.copy() on the device, and the CPU decoder's fallback of ImageNetTrain /
DecodeWarp (no nvJPEG) in the steady state. A blocking upload of at most 4 MiB
(AUG__STAGED_UPLOAD_MAX) goes through the page-locked staging ring and returns with the copy
queued; a copy within one device's memory is only queued. Each call runs behind a busy stream
and must return while the stream is still busy, with no host wait counted by the emulated CUDA
runtime (AUG_CUDA_BACKEND=emu); the results are the CPU's, also when the host array is
overwritten right after the call (the staging ring holds its own copy). A larger upload still
waits, and is still right."""

import io

import numpy as np
import pytest

import augpy
from augpy import _augpy
from augpy.image import CutMix, DecodeWarp, ImageNetTrain, Mixup, MixUp, RandomErasing
from conftest import DECODE_ENGINE, ON_CUDA, host_tensor, host_waits_of

pytestmark = pytest.mark.skipif(not ON_CUDA, reason="the suite's device is the CPU")

STAGED_MAX = 4 << 20  # AUG__STAGED_UPLOAD_MAX (src/core/backend.h)
_BUSY = []


def behind_busy_stream(fn, tries=6):
    """(host waits, result) of fn() called behind a busy stream: the stream is kept busy longer
    until it was still busy when fn returned (a call that counted a wait ends the tries; one that
    waited without counting leaves the stream idle every time and fails)."""
    if not _BUSY:
        _BUSY.append(augpy.array_to_tensor(np.zeros(1 << 20, np.float32)))
    reps = 8
    for _ in range(tries):
        def busy_then_fn(reps=reps):
            for _ in range(reps):  # queued: no host wait
                _augpy.fill(1.0, _BUSY[0])
            busy_done = augpy.CudaEvent()
            busy_done.record()
            out = fn()
            return out, not busy_done.query()  # a query does not wait

        waits, (out, still_busy) = host_waits_of(busy_then_fn)
        if waits or still_busy:
            return waits, out
        reps *= 4
    pytest.fail("the stream was never still busy when the call returned: it waits without counting")


def as_bytes(t):
    return augpy.tensor_to_array(t).tobytes()


def dicts(n, seed=0):
    return [{"rng": (91, seed, 300 + k)} for k in range(n)]


# ---- the batch stages ---------------------------------------------------------------------

ERASING = [(mode, dtype) for mode in ("const", "rand", "pixel") for dtype in ("uint8", "float32")]


@pytest.mark.parametrize("mode,dtype", ERASING, ids=[f"{m}-{d}" for m, d in ERASING])
def test_random_erasing_makes_no_host_waits(mode, dtype):
    """RandomErasing on a device batch (up to 3 rectangles an image): 'rand' and 'pixel' upload
    their host-drawn values through the staging ring (a pageable copy per rectangle before),
    'const' fills by value; the CPU's rectangles and bytes."""
    rng = np.random.default_rng(11)
    x = (rng.integers(0, 256, (6, 3, 28, 31)).astype(np.uint8) if dtype == "uint8"
         else rng.standard_normal((6, 3, 28, 31)).astype(np.float32))
    make = lambda: RandomErasing(p=1.0, mode=mode, max_count=3, seed=4)
    stage = make()
    stage({"image": augpy.array_to_tensor(x.copy())})  # warm: the pools, the staging ring
    dev = augpy.array_to_tensor(x.copy())
    waits, out = behind_busy_stream(lambda: stage({"image": dev, "augmentation": dicts(6)}))
    assert waits == 0, (mode, dtype)
    cpu = make()({"image": host_tensor(x.copy()), "augmentation": dicts(6)})
    assert [a["erasing"] for a in out["augmentation"]] == [a["erasing"] for a in cpu["augmentation"]]
    assert sum(len(a["erasing"]) for a in cpu["augmentation"]) > 6  # several rectangles an image
    assert as_bytes(out["image"]) == as_bytes(cpu["image"])
    assert as_bytes(out["image"]) != x.tobytes()


MIXES = [("MixUp", lambda: MixUp(alpha=1.0, num_classes=10, seed=2)),
         ("CutMix", lambda: CutMix(alpha=1.0, num_classes=10, seed=3))]
MIXES += [(f"Mixup-{mode}-{kind}", (lambda mode=mode, kind=kind: Mixup(
    mixup_alpha=1.0 if kind == "mixup" else 0.0, cutmix_alpha=1.0 if kind == "cutmix" else 0.0,
    mode=mode, num_classes=10, seed=5)))
    for mode in ("batch", "pair", "elem") for kind in ("mixup", "cutmix")]


@pytest.mark.parametrize("name,make", MIXES, ids=[m[0] for m in MIXES])
def test_mixing_makes_no_host_waits(name, make):
    """MixUp, CutMix and timm's Mixup (each mode, mixing and cutting) on a device batch: the soft
    targets are uploaded through the staging ring and the device copies (timm's originals and
    box swaps) are queued, no host wait; the CPU's images, targets and records."""
    rng = np.random.default_rng(12)
    x = rng.standard_normal((8, 3, 20, 18)).astype(np.float32)
    labels = np.array([3, 1, 4, 1, 5, 9, 2, 6])
    stage = make()
    stage({"image": augpy.array_to_tensor(x.copy()), "label": labels, "augmentation": dicts(8)})  # warm
    dev = augpy.array_to_tensor(x.copy())
    waits, out = behind_busy_stream(lambda: stage({"image": dev, "label": labels, "augmentation": dicts(8, 1)}))
    assert waits == 0, name
    cpu = make()({"image": host_tensor(x.copy()), "label": labels, "augmentation": dicts(8, 1)})
    assert out["target"].device == dev.device
    assert out["augmentation"] == cpu["augmentation"]
    assert as_bytes(out["target"]) == as_bytes(cpu["target"])
    assert as_bytes(out["image"]) == as_bytes(cpu["image"])
    assert as_bytes(out["image"]) != x.tobytes()  # something was mixed


# ---- uploads and copies -------------------------------------------------------------------

SMALL = [("bytes", (7,), np.uint8), ("1KiB", (16, 16), np.float32), ("1MiB", (512, 512), np.float32),
         ("at-max", (STAGED_MAX // 8,), np.float64)]


@pytest.mark.parametrize("name,shape,dtype", SMALL, ids=[s[0] for s in SMALL])
def test_array_to_tensor_is_staged(name, shape, dtype):
    """array_to_tensor of at most 4 MiB: no host wait, the copy still queued behind the busy
    stream on return, and the array's values even when it is overwritten at once."""
    a = (np.arange(np.prod(shape)) % 251).astype(dtype).reshape(shape)
    want = a.copy()
    augpy.array_to_tensor(a)  # warm

    def upload():
        t = augpy.array_to_tensor(a)
        a[...] = 77  # the staging ring has its own copy
        return t

    waits, t = behind_busy_stream(upload)
    assert waits == 0, name
    assert t.numpy().tobytes() == want.tobytes()
    a[...] = want
    u = augpy.array_to_tensor(a)
    a[...] = 0
    assert float(u.reshape((-1,))[-1]) == float(want.reshape(-1)[-1])  # a one-value read follows it too


def test_large_upload_waits_and_is_right():
    """An upload above AUG__STAGED_UPLOAD_MAX keeps the blocking copy: one host wait, the values."""
    a = (np.arange(STAGED_MAX // 4 + 1024) % 1000).astype(np.float32)
    want = a.copy()
    augpy.array_to_tensor(a)
    waits, t = behind_busy_stream(lambda: augpy.array_to_tensor(a))
    assert waits >= 1
    a[...] = -1
    assert t.numpy().tobytes() == want.tobytes()


def test_to_and_copy_are_queued():
    """Tensor.to() of a CPU tensor (staged) and Tensor.copy() / to() within the device (queued):
    no host wait; the values, also after the sources change right after the calls."""
    x = np.random.default_rng(13).standard_normal((3, 40, 50)).astype(np.float32)
    cpu = host_tensor(x)
    dev = augpy.array_to_tensor(x)
    cpu.to(dev.device), dev.copy()  # warm

    def calls():
        moved = cpu.to(dev.device)
        _augpy.fill(5.0, cpu)  # the CPU source changes at once
        copied = dev.copy()
        strided = dev[:, ::2, 1:].copy()
        _augpy.fill(-3.0, dev)  # queued after the copies: they keep the old values
        return moved, copied, strided

    waits, (moved, copied, strided) = behind_busy_stream(calls)
    assert waits == 0
    assert moved.device == dev.device and copied.device == dev.device
    assert moved.numpy().tobytes() == x.tobytes()
    assert copied.numpy().tobytes() == x.tobytes()
    assert strided.numpy().tobytes() == np.ascontiguousarray(x[:, ::2, 1:]).tobytes()
    assert float(dev.reshape((-1,))[0]) == -3.0


# ---- the decode stages without nvJPEG -----------------------------------------------------

def _jpeg(h, w, seed):
    from PIL import Image
    img = Image.fromarray(np.random.default_rng(seed).integers(0, 256, (h, w, 3), dtype=np.uint8))
    f = io.BytesIO()
    img.save(f, "JPEG", quality=90)
    return f.getvalue()


DECODES = [("ImageNetTrain", lambda: ImageNetTrain(8, (24, 20), seed=5), lambda n: dicts(n, 2)),
           ("DecodeWarp", lambda: DecodeWarp(8, (3, 24, 20), dct_scale=False),
            lambda n: [{"angle": 7.0 * k, "scale": 1.1, "hmirror": k % 2 == 1} for k in range(n)])]


@pytest.mark.skipif(DECODE_ENGINE != "libjpeg-turbo+upload", reason="the CPU decoder's fallback (no nvJPEG)")
@pytest.mark.parametrize("name,make,params", DECODES, ids=[d[0] for d in DECODES])
def test_decode_stages_without_nvjpeg_make_no_host_waits(name, make, params):
    """ImageNetTrain / DecodeWarp on the device with the CPU decoder's fallback, in the steady
    state (both ring buffers and both staging buffers used): a batch behind a busy stream, whose
    decoded images find both staging buffers still queued and go through the staging ring, makes
    no host wait and gives the bytes of the same batch on an idle stream."""
    files = [_jpeg(40 + 7 * k, 50 + 5 * k, k) for k in range(8)]
    stage = make()
    for _ in range(3):  # warm: the ring buffers, the decoder's staging buffers, the pools
        stage({"image": list(files), "augmentation": params(8)})
    augpy.synchronize()
    want = stage({"image": list(files), "augmentation": params(8)})
    want_bytes, want_aug = as_bytes(want["image"]), want["augmentation"]
    waits, out = behind_busy_stream(lambda: stage({"image": list(files), "augmentation": params(8)}))
    assert waits == 0, name
    assert out["augmentation"] == want_aug
    assert as_bytes(out["image"]) == want_bytes
    stage.close()
