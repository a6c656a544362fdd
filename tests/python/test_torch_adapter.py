"""augpy.torch.StageDataset and augpy tensors in worker processes.

Runs with real torch when it is importable and otherwise against tests/python/torch_standin.py
(a model of torch's tensors and of torch.utils.data's DataLoader with fork / spawn /
forkserver worker processes, installed only while this module's tests run). Either way:
batches equal an in-process evaluation (decode, make_transform, warp_affine with the
same Generator draws); workers read disjoint shares with different augmentation
streams, reproducibly; copy=False hands over the ring buffer and refuses to rewrite an
unreleased batch; DataLoader workers of every start method deliver every file once. The
standard library's multiprocessing (fork, spawn, forkserver Pools, with timeouts so that
a hang fails) returns augpy tensors from workers by pickling.
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


def worker_share(root, seed, epoch=0, batch_size=4, worker_id=0, num_workers=1, shuffle=False):
    """The contract's split: FolderSource's samples in epoch_order, cut into batches, batch k
    to worker k % num_workers. A list of batches of (data, key, metadata)."""
    src = augpy.data.FolderSource(str(root))
    order = augpy.data.epoch_order(len(src), seed, epoch, shuffle)
    chunks = [order[k:k + batch_size] for k in range(0, len(order), batch_size)]
    return [[src[int(i)] for i in chunk] for chunk in chunks[worker_id::num_workers]]


def reference_batches(root, seed, epoch=0, batch_size=4, worker_id=0, num_workers=1, shuffle=False):
    """In-process: the same files, draws and ops, one image at a time; each sample's augment
    draws from its own generator (seed, epoch, sample_id(key)) (the seed model)."""
    decoder = augpy.Decoder()
    out = []
    for chunk in worker_share(root, seed, epoch, batch_size, worker_id, num_workers, shuffle):
        imgs, keys = [], []
        for data, key, meta in chunk:
            params = AUGMENT(augpy.data.sample_generator(seed, epoch, augpy.sample_id(key)), key, meta)
            img = decoder.decode(data)
            m, s = augpy.make_transform(img.shape[:2], SHAPE[1:], **params)
            dst = augpy.Tensor(SHAPE, dtype=augpy.uint8)
            augpy.warp_affine(img, dst, m, None, s)
            imgs.append(dst.numpy())
            keys.append(key)
        out.append((np.stack(imgs), keys))
    return out


# ---- torch or the stand-in ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def atorch():
    """(augpy.torch, torch): the real ones, or augpy.torch over tests/python/torch_standin.py
    (installed only while this module's tests run, and only when torch is missing)."""
    import torch_standin
    saved = {k: sys.modules.get(k) for k in ("torch", "torch.utils", "torch.utils.data", "augpy.torch")}
    torch = torch_standin.install()["torch"]
    real = not torch_standin.is_standin(torch)
    if real and augpy.array_to_tensor(np.zeros(1)).device != "cpu" and not torch.cuda.is_available():
        pytest.skip("the default device is an (emulated) CUDA device torch cannot see: its DLPack tensors "
                    "cannot become torch tensors here")
    sys.modules.pop("augpy.torch", None)
    mod = importlib.import_module("augpy.torch")
    yield mod, torch
    if not real:
        torch_standin.uninstall()  # also drops augpy.torch, which bound the stand-in
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
    ref = reference_batches(tmp_path, 7)
    assert [b["key"] for b in got] == [k for _, k in ref]
    for b, (images, _) in zip(got, ref):
        np.testing.assert_array_equal(as_numpy(b["image"]), images)
    with pytest.warns(UserWarning, match="set_epoch"):  # the same epoch again: the same stream, and a warning
        again = [as_numpy(b["image"]) for b in ds]
    for a, b in zip(again, got):
        np.testing.assert_array_equal(a, as_numpy(b["image"]))
    ds.set_epoch(1)
    other = [as_numpy(b["image"]) for b in ds]
    assert any(not np.array_equal(a, b) for a, b in zip(other, again))
    shuffled = at.StageDataset(at.FolderSource(tmp_path), make_stages, 4, augment=AUGMENT, seed=7, shuffle=True)
    shuffled.set_epoch(3)
    ref = reference_batches(tmp_path, 7, epoch=3, shuffle=True)
    got = list(shuffled)
    assert [b["key"] for b in got] == [k for _, k in ref] != [k for _, k in reference_batches(tmp_path, 7, epoch=3)]
    for b, (images, _) in zip(got, ref):
        np.testing.assert_array_equal(as_numpy(b["image"]), images)


def test_worker_share_and_seed(atorch, tmp_path):
    """Worker w of W gets batches w, w + W, ... of the epoch; the stream is a function of
    the dataset's seed alone (seed=None: torch.initial_seed() read at construction), never
    of torch's per-worker seed."""
    at, torch = atorch
    if not getattr(torch, "is_standin", False):
        pytest.skip("get_worker_info is simulated with the stand-in; real workers: test_dataloader_workers")
    make_jpegs(tmp_path, 9)
    import torch_standin as data  # get_worker_info() returns its _worker_info

    def dataset(seed):
        return at.StageDataset(at.FolderSource(tmp_path), make_stages, 4, augment=AUGMENT, seed=seed)

    try:
        keys = {}
        for wid in (0, 1):
            data._worker_info = types.SimpleNamespace(id=wid, num_workers=2, seed=99 + wid)
            got = list(dataset(7))
            ref = reference_batches(tmp_path, 7, worker_id=wid, num_workers=2)
            keys[wid] = [k for b in got for k in b["key"]]
            assert [b["key"] for b in got] == [k for _, k in ref]
            for b, (images, _) in zip(got, ref):
                np.testing.assert_array_equal(as_numpy(b["image"]), images)
        assert set(keys[0]).isdisjoint(keys[1]) and len(keys[0]) + len(keys[1]) == 9
        data._worker_info = None
        torch.manual_seed(5)
        seeded = [as_numpy(b["image"]) for b in dataset(5)]
        for worker_seed in (5, 6):  # seed=None: torch.initial_seed(); torch's per-worker seed does not enter
            data._worker_info = types.SimpleNamespace(id=0, num_workers=1, seed=worker_seed)
            got = [as_numpy(b["image"]) for b in dataset(None)]
            assert len(got) == len(seeded) and all(np.array_equal(x, y) for x, y in zip(got, seeded))
        torch.manual_seed(6)
        other = [as_numpy(b["image"]) for b in dataset(None)]
        assert any(not np.array_equal(x, y) for x, y in zip(seeded, other))
    finally:
        data._worker_info = None


def test_handover_and_release(atorch, tmp_path):
    at, torch = atorch
    make_jpegs(tmp_path, 20)
    ds = at.StageDataset(at.FolderSource(tmp_path), functools.partial(make_stages, 3), 4, augment=AUGMENT, seed=1,
                         copy=False)
    ref = reference_batches(tmp_path, 1)
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
    with pytest.raises(TypeError, match="augpy.torch.StageDataset: source must be an augpy.data source or a callable"):
        at.StageDataset(None, make_stages, 4)
    with pytest.raises(ValueError, match="batch_size must be a positive int, got 0"):
        at.StageDataset(at.FolderSource(tmp_path), make_stages, 0)
    with pytest.raises(ValueError, match=r"seed must be in \[0, 2\*\*64\), got -1"):
        at.StageDataset(at.FolderSource(tmp_path), make_stages, 2, seed=-1)


# ---- real torch DataLoader workers -------------------------------------------------------------

@no_workers_under_asan
@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_dataloader_workers(atorch, tmp_path, method):
    at, torch = atorch
    skip_fork_on_cuda(method)
    DataLoader = sys.modules["torch.utils.data"].DataLoader  # torch's, or the stand-in's model of it
    make_jpegs(tmp_path, 12)
    ds = at.StageDataset(at.FolderSource(tmp_path), make_stages, 4, augment=AUGMENT, seed=11)

    def run():
        loader = DataLoader(ds, batch_size=None, num_workers=2, multiprocessing_context=method, timeout=TIMEOUT)
        return list(loader)

    got = run()
    ref = reference_batches(tmp_path, 11)  # in one process: the same batches in the same order
    assert [b["key"] for b in got] == [k for _, k in ref]
    assert sorted(k for b in got for k in b["key"]) == [f"img_{i:03d}" for i in range(12)]
    for b, (images, _) in zip(got, ref):
        np.testing.assert_array_equal(as_numpy(b["image"]), images)  # a torch tensor on the default device
    again = run()
    assert [b["key"] for b in again] == [b["key"] for b in got]


# ---- the DataLoader's rules (torch's, or the stand-in's model of them) ----------------------------

def _counting_dataset(base, get_worker_info, counts, fail_at=None):
    """An IterableDataset whose worker w yields (w, i, worker seed) for i < counts[w]."""
    class Counting(base):
        def __iter__(self):
            info = get_worker_info()
            w = info.id if info is not None else 0
            for i in range(counts[w]):
                if (w, i) == fail_at:
                    raise ValueError(f"bad item {i} of worker {w}")
                yield w, i, None if info is None else info.seed
    return Counting()


@no_workers_under_asan
def test_dataloader_rules(atorch):
    """What StageDataset relies on, checked against torch 2.15 (the stand-in was compared with
    it item for item): items come round-robin from workers 0..W-1, skipping ended ones; worker
    w's seed is base_seed + w, the base seed drawn from the generator per epoch; an exception
    in a worker is re-raised in its place, naming the worker, and the loader goes on."""
    _, torch = atorch
    data = sys.modules["torch.utils.data"]

    def run(counts, workers, fail_at=None):
        ds = _counting_dataset(data.IterableDataset, data.get_worker_info, counts, fail_at)
        torch.manual_seed(1234)
        loader = data.DataLoader(ds, batch_size=None, num_workers=workers, timeout=TIMEOUT if workers else 0,
                                 multiprocessing_context="fork" if workers else None)
        out, it = [], iter(loader)
        while True:
            try:
                w, i, seed = next(it)
                out.append((int(w), int(i), None if seed is None else int(seed)))
            except StopIteration:
                return out
            except ValueError as e:
                out.append(str(e).splitlines()[0])

    base = 3532910284440527571  # torch.manual_seed(1234): the first int64 draw of torch's generator
    assert run([3, 0, 5], 0) == [(0, 0, None), (0, 1, None), (0, 2, None)]
    assert run([3, 0, 5], 3) == [(w, i, base + w) for w, i in [(0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2),
                                                                (2, 3), (2, 4)]]
    assert run([3, 3], 2, fail_at=(1, 1)) == [(0, 0, base), (1, 0, base + 1), (0, 1, base),
                                               "Caught ValueError in DataLoader worker process 1.", (0, 2, base)]
    with pytest.raises(ValueError, match="expected unspecified shuffle option"):
        data.DataLoader(_counting_dataset(data.IterableDataset, data.get_worker_info, [1]), shuffle=True)


@no_workers_under_asan
def test_standin_hang_guard(atorch, monkeypatch):
    """A worker that hangs fails the stand-in's loader after HANG_TIMEOUT and is stopped."""
    _, torch = atorch
    if not getattr(torch, "is_standin", False):
        pytest.skip("the stand-in's own guard (torch with timeout=0 waits for ever)")
    import torch_standin

    class Hangs(torch_standin.IterableDataset):
        def __iter__(self):
            time.sleep(3600)
            yield 1

    monkeypatch.setattr(torch_standin, "HANG_TIMEOUT", 1.0)
    it = iter(torch_standin.DataLoader(Hangs(), batch_size=None, num_workers=1, multiprocessing_context="fork"))
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="timed out after 1.0 seconds"):
        next(it)
    assert time.monotonic() - start < 30
    assert not any(w.is_alive() for w in it._workers)


# ---- the standard library's multiprocessing ------------------------------------------------------

def skip_fork_on_cuda(method):
    """CUDA does not survive fork() (in CUDA itself, and so in the CUDA backend): with a
    CUDA default device, DataLoader workers must use spawn or forkserver."""
    if method == "fork" and augpy.array_to_tensor(np.zeros(1)).device != "cpu":
        pytest.skip("a CUDA default device: fork workers cannot use it (use spawn / forkserver)")


def _mp_worker(args):
    """Decode and warp one worker's share; returns augpy tensors (pickled to the parent)."""
    root, worker_id, num_workers, seed = args
    stage = make_stages()[0]
    out = []
    for chunk in worker_share(root, seed, worker_id=worker_id, num_workers=num_workers):
        batch = stage(next(augpy.data.batches(chunk, len(chunk), AUGMENT, seed=seed)))
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
        ref = reference_batches(tmp_path, 5, worker_id=w, num_workers=2)
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
    ref = reference_batches(tmp_path, 3)
    for (t, keys), (images, rkeys) in zip(got, ref):
        assert keys == rkeys
        np.testing.assert_array_equal(t.numpy(), images)
