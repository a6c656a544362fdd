"""augpy.torch.StageDataset and augpy tensors in worker processes.

Runs with real torch when it is importable (then also through torch's DataLoader with
fork / spawn / forkserver workers) and otherwise against a minimal stand-in module
(torch.utils.data.IterableDataset / get_worker_info, torch.from_dlpack,
torch.initial_seed), installed only while this module's tests run. Either way:
batches equal an in-process evaluation (decode, make_transform, warp_affine with the
same Generator draws); workers read disjoint shares with different augmentation
streams, reproducibly; copy=False hands over the ring buffer and refuses to rewrite an
unreleased batch. The standard library's multiprocessing (fork, spawn, forkserver Pools,
with timeouts so that a hang fails) returns augpy tensors from workers by pickling.
    python -m pytest tests/python/test_torch_adapter.py   (with or without torch)
"""
import functools
import importlib
import multiprocessing as mp
import queue
import sys
import time
import types

import cv2
import numpy as np
import pytest
from conftest import UNDER_ASAN

# Worker processes (fork, spawn and forkserver all fork this multi-threaded process first):
# GCC 12's libasan is not fork-safe then (test_fork.py), so `make pytest-asan` skips them.
no_workers_under_asan = pytest.mark.skipif(UNDER_ASAN, reason="worker processes under libasan (see test_fork.py)")

import augpy
import augpy.data
import augpy.image

SHAPE = (3, 24, 32)
TIMEOUT = 120  # seconds for a pool / loader to deliver; a hang fails the test instead


def make_jpegs(folder, n, seed=0):
    rng = np.random.default_rng(seed)
    for i in range(n):
        h, w = int(rng.integers(20, 60)), int(rng.integers(20, 60))
        img = cv2.GaussianBlur(rng.integers(0, 256, (h, w, 3), dtype=np.uint8), (5, 5), 0)
        ok, enc = cv2.imencode(".jpg", img)
        assert ok
        (folder / f"img_{i:03d}.jpg").write_bytes(enc.tobytes())


def make_stages(num_buffers=2):
    """Top-level (picklable for spawn): the stages built in each worker."""
    # full decodes, as reference_batches makes them (DecodeWarp's DCT scaling off)
    return [augpy.image.DecodeWarp(4, SHAPE, num_buffers=num_buffers, dct_scale=False)]


AUGMENT = augpy.data.RandomWarp(angle=20, scale=(0.8, 1.2), hmirror=0.5)


def reference_batches(root, worker_id, num_workers, seed, epoch=0, batch_size=4):
    """In-process: the same files, draws and ops, one image at a time."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, worker_id, epoch]))
    decoder = augpy.Decoder()
    out = []
    samples = list(augpy.data.iter_folder(root, worker_id=worker_id, num_workers=num_workers))
    for start in range(0, len(samples), batch_size):
        imgs, keys = [], []
        for data, key, meta in samples[start:start + batch_size]:
            params = AUGMENT(rng, key, meta)
            img = decoder.decode(data)
            m, s = augpy.make_transform(img.shape[:2], SHAPE[1:], **params)
            dst = augpy.CudaTensor(SHAPE, dtype=augpy.uint8)
            augpy.warp_affine(img, dst, m, None, s)
            imgs.append(dst.numpy())
            keys.append(key)
        out.append((np.stack(imgs), keys))
    return out


# ---- torch or the stand-in ------------------------------------------------------------------------

def _standin():
    torch = types.ModuleType("torch")
    utils = types.ModuleType("torch.utils")
    data = types.ModuleType("torch.utils.data")

    class Tensor:
        def __init__(self, array):
            self.array = array

        def clone(self):
            return Tensor(self.array.copy())

        def numpy(self):
            return self.array

    class IterableDataset:
        def __init__(self):
            pass

    data.IterableDataset = IterableDataset
    data.worker_info = None
    data.get_worker_info = lambda: data.worker_info
    torch.utils = utils
    utils.data = data
    torch.Tensor = Tensor
    torch.initial_seed = lambda: 12345
    torch.from_dlpack = lambda t: Tensor(np.from_dlpack(t) if t.device == "cpu" else t.numpy())
    torch.is_standin = True
    return {"torch": torch, "torch.utils": utils, "torch.utils.data": data}


@pytest.fixture(scope="module")
def atorch():
    """(augpy.torch, torch): the real ones, or the module over the stand-in."""
    try:
        import torch  # noqa: F401
        real = True
    except ImportError:
        real = False
    if real and augpy.array_to_tensor(np.zeros(1)).device != "cpu" and not torch.cuda.is_available():
        pytest.skip("the default device is an (emulated) CUDA device torch cannot see: its DLPack tensors "
                    "cannot become torch tensors here")
    saved = {k: sys.modules.get(k) for k in ("torch", "torch.utils", "torch.utils.data", "augpy.torch")}
    if not real:
        sys.modules.update(_standin())
    sys.modules.pop("augpy.torch", None)
    mod = importlib.import_module("augpy.torch")
    yield mod, sys.modules["torch"]
    for k, v in saved.items():
        if v is None:
            sys.modules.pop(k, None)
        else:
            sys.modules[k] = v
    if not real and hasattr(augpy, "torch"):
        del augpy.torch


def as_numpy(t):
    return t.numpy() if not hasattr(t, "cpu") else t.cpu().numpy()


def test_import_augpy_does_not_import_torch():
    import subprocess
    code = "import sys, augpy, augpy.data, augpy.targets; print('torch' in sys.modules, 'ray' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False False", out.stdout + out.stderr


def test_batches_equal_in_process(atorch, tmp_path):
    at, torch = atorch
    make_jpegs(tmp_path, 10)
    ds = at.StageDataset(at.FolderSource(tmp_path), make_stages, 4, augment=AUGMENT, seed=7)
    got = list(ds)
    ref = reference_batches(tmp_path, 0, 1, 7)
    assert [b["key"] for b in got] == [k for _, k in ref]
    for b, (images, _) in zip(got, ref):
        np.testing.assert_array_equal(as_numpy(b["image"]), images)
    again = [as_numpy(b["image"]) for b in ds]  # the same epoch again: the same stream
    for a, b in zip(again, got):
        np.testing.assert_array_equal(a, as_numpy(b["image"]))
    ds.set_epoch(1)
    other = [as_numpy(b["image"]) for b in ds]
    assert any(not np.array_equal(a, b) for a, b in zip(other, again))


def test_worker_share_and_stream(atorch, tmp_path):
    at, torch = atorch
    if not getattr(torch, "is_standin", False):
        pytest.skip("get_worker_info is simulated with the stand-in; real workers: test_dataloader_workers")
    make_jpegs(tmp_path, 9)
    data = sys.modules["torch.utils.data"]
    ds = at.StageDataset(at.FolderSource(tmp_path), make_stages, 4, augment=AUGMENT, seed=7)
    try:
        keys = {}
        for wid in (0, 1):
            data.worker_info = types.SimpleNamespace(id=wid, num_workers=2, seed=99 + wid)
            got = list(ds)
            ref = reference_batches(tmp_path, wid, 2, 7)
            keys[wid] = [k for b in got for k in b["key"]]
            for b, (images, _) in zip(got, ref):
                np.testing.assert_array_equal(as_numpy(b["image"]), images)
        assert set(keys[0]).isdisjoint(keys[1]) and len(keys[0]) + len(keys[1]) == 9
        # seed=None: torch's per-worker seed decides the stream
        ds2 = at.StageDataset(at.FolderSource(tmp_path), make_stages, 4, augment=AUGMENT)
        data.worker_info = types.SimpleNamespace(id=0, num_workers=1, seed=5)
        a = [as_numpy(b["image"]) for b in ds2]
        b = [as_numpy(b["image"]) for b in ds2]
        data.worker_info = types.SimpleNamespace(id=0, num_workers=1, seed=6)
        c = [as_numpy(b["image"]) for b in ds2]
        assert all(np.array_equal(x, y) for x, y in zip(a, b))
        assert any(not np.array_equal(x, y) for x, y in zip(a, c))
    finally:
        data.worker_info = None


def test_handover_and_release(atorch, tmp_path):
    at, torch = atorch
    make_jpegs(tmp_path, 20)
    ds = at.StageDataset(at.FolderSource(tmp_path), functools.partial(make_stages, 3), 4, augment=AUGMENT, seed=1,
                         copy=False)
    ref = reference_batches(tmp_path, 0, 1, 1)
    it = iter(ds)
    # asking for the next batch while holding num_buffers - 1 = 2 unreleased ones is fine
    held = [next(it), next(it), next(it)]
    for b, (images, _) in zip(held, ref):
        np.testing.assert_array_equal(as_numpy(b["image"]), images)
    with pytest.raises(RuntimeError, match=r"batch 0 is still held \(copy=False\).*release"):
        next(it)
    # released: the dataset goes on, and the ring buffer of batch 0 is rewritten (zero copy)
    it = iter(ds)
    b0 = next(it)
    view = b0["image"]
    b0["release"]()
    b0["release"]()  # twice is harmless
    b1 = next(it)
    b2 = next(it)
    np.testing.assert_array_equal(as_numpy(b2["image"]), ref[2][0])
    b3 = next(it)  # reuses batch 0's buffer (b1 and b2 are still held: 2 = num_buffers - 1)
    np.testing.assert_array_equal(as_numpy(b3["image"]), ref[3][0])
    if not getattr(torch, "is_standin", False) or augpy.array_to_tensor(np.zeros(1)).device == "cpu":
        np.testing.assert_array_equal(as_numpy(view), ref[3][0])  # the same memory: zero copy
    with pytest.raises(RuntimeError, match="batch 1 is still held"):
        next(it)


def test_bad_arguments(atorch, tmp_path):
    at, _ = atorch
    with pytest.raises(TypeError, match="augpy.torch.StageDataset: source must be a callable"):
        at.StageDataset(None, make_stages, 4)
    with pytest.raises(ValueError, match="batch_size must be a positive int, got 0"):
        at.StageDataset(at.FolderSource(tmp_path), make_stages, 0)
    with pytest.raises(ValueError, match="seed must be a non-negative int or None, got -1"):
        at.StageDataset(at.FolderSource(tmp_path), make_stages, 2, seed=-1)


# ---- real torch DataLoader workers -------------------------------------------------------------

@no_workers_under_asan
@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_dataloader_workers(atorch, tmp_path, method):
    at, torch = atorch
    if getattr(torch, "is_standin", False):
        pytest.skip("needs torch's DataLoader")
    skip_fork_on_cuda(method)
    from torch.utils.data import DataLoader
    make_jpegs(tmp_path, 12)
    ds = at.StageDataset(at.FolderSource(tmp_path), make_stages, 4, augment=AUGMENT, seed=11)

    def run():
        loader = DataLoader(ds, batch_size=None, num_workers=2, multiprocessing_context=method, timeout=TIMEOUT)
        return list(loader)

    got = run()
    keys = sorted(k for b in got for k in b["key"])
    assert keys == [f"img_{i:03d}" for i in range(12)]
    refs = {tuple(k): images for w in (0, 1) for images, k in reference_batches(tmp_path, w, 2, 11)}
    for b in got:
        np.testing.assert_array_equal(b["image"].numpy(), refs[tuple(b["key"])])
    again = run()
    assert sorted(tuple(b["key"]) for b in again) == sorted(tuple(b["key"]) for b in got)


# ---- the standard library's multiprocessing ------------------------------------------------------

def skip_fork_on_cuda(method):
    """CUDA does not survive fork() (in CUDA itself, and so in the CUDA backend): with a
    CUDA default device, DataLoader workers must use spawn or forkserver."""
    if method == "fork" and augpy.array_to_tensor(np.zeros(1)).device != "cpu":
        pytest.skip("a CUDA default device: fork workers cannot use it (use spawn / forkserver)")


def _mp_worker(args):
    """Decode and warp one worker's share; returns augpy tensors (pickled to the parent)."""
    root, worker_id, num_workers, seed = args
    rng = np.random.default_rng(np.random.SeedSequence([seed, worker_id, 0]))
    stage = make_stages()[0]
    out = []
    for batch in augpy.data.batches(augpy.data.iter_folder(root, worker_id=worker_id, num_workers=num_workers), 4,
                                    AUGMENT, rng):
        batch = stage(batch)
        out.append((batch["image"].clone() if hasattr(batch["image"], "clone") else batch["image"], batch["key"]))
    return out


@no_workers_under_asan
@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_multiprocessing_pool_pickles_tensors(tmp_path, method):
    if method not in mp.get_all_start_methods():
        pytest.skip(f"no {method} start method here")
    skip_fork_on_cuda(method)
    make_jpegs(tmp_path, 10)
    ctx = mp.get_context(method)
    with ctx.Pool(2) as pool:
        result = pool.map_async(_mp_worker, [(str(tmp_path), w, 2, 5) for w in (0, 1)]).get(timeout=TIMEOUT)
    for w, batches in enumerate(result):
        ref = reference_batches(tmp_path, w, 2, 5)
        assert len(batches) == len(ref)
        for (t, keys), (images, rkeys) in zip(batches, ref):
            assert isinstance(t, augpy.Tensor)
            assert keys == rkeys
            np.testing.assert_array_equal(t.numpy(), images)


def _queue_producer(root, q):
    for item in _mp_worker((root, 0, 1, 3)):
        q.put(item)
    q.put(None)


@no_workers_under_asan
@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_multiprocessing_process_queue(tmp_path, method):
    """A DataLoader-like producer process feeding a queue (what torch's workers do)."""
    skip_fork_on_cuda(method)
    make_jpegs(tmp_path, 6)
    ctx = mp.get_context(method)
    q = ctx.Queue()
    p = ctx.Process(target=_queue_producer, args=(str(tmp_path), q))
    p.start()
    try:
        got = []
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                item = q.get(timeout=1)
            except queue.Empty:
                assert p.is_alive(), f"the producer died (exit code {p.exitcode})"
                assert time.monotonic() < deadline, "no batch within the timeout"
                continue
            if item is None:
                break
            got.append(item)
    finally:
        p.join(timeout=TIMEOUT)
        if p.is_alive():
            p.kill()
    assert p.exitcode == 0
    ref = reference_batches(tmp_path, 0, 1, 3)
    for (t, keys), (images, rkeys) in zip(got, ref):
        assert keys == rkeys
        np.testing.assert_array_equal(t.numpy(), images)
