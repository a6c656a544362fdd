"""The training loader as a user meets it: an ImageNet-style folder (4 classes, one
truncated JPEG) -> augpy.data.FolderSource -> augpy.torch.StageDataset with the
ImageNet recipe -> torch's DataLoader (the real one when torch is importable, else
tests/python/torch_standin.py's model of it) with 0, 1, 2 and 3 workers, fork and spawn.

Checked: batches mix classes; every file once per epoch; epochs differ and repeat
exactly under the same seed; the same batches, sample for sample and batch for batch,
for any worker count; resuming from state_dict() mid-epoch gives the rest of the
epoch; a recorded augmentation dict replays its image; the truncated file raises
augpy.DecodeError naming it, or is skipped with batches kept full; labels are int64;
the stages pickle and run in a spawned process; hostile sources and state dicts give
clear errors."""
import functools
import io
import multiprocessing as mp
import os
import pickle
import warnings

import numpy as np
import pytest
from conftest import UNDER_ASAN
from PIL import Image

import augpy
import augpy.data
import augpy.image

try:
    import torch  # noqa: F401
    import torch.utils.data  # noqa: F401
    _STANDIN = None
except ImportError:
    import torch_standin
    _STANDIN = torch_standin

ON_CPU = augpy.array_to_tensor(np.zeros(1)).device == "cpu"
TIMEOUT = 120
CLASSES = ["cat", "dog", "fox", "owl"]
BATCH = 4


@pytest.fixture(scope="module")
def atorch():
    """augpy.torch over torch or the stand-in (installed for this module's tests)."""
    import importlib
    import sys
    if _STANDIN is not None:
        _STANDIN.install()
    sys.modules.pop("augpy.torch", None)
    mod = importlib.import_module("augpy.torch")
    yield mod, sys.modules["torch"]
    sys.modules.pop("augpy.torch", None)
    if _STANDIN is not None:
        _STANDIN.uninstall()


def _jpeg(rng, h, w):
    y, x = np.mgrid[0:h, 0:w]
    img = np.stack([x * 255 // w, y * 255 // h, (x * y) % 256], -1) + rng.integers(-20, 21, (h, w, 3))
    buf = io.BytesIO()
    Image.fromarray(np.clip(img, 0, 255).astype(np.uint8)).save(buf, "JPEG", quality=90)
    return buf.getvalue()


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """4 classes x 5 JPEGs of different sizes; cat/c4.jpg is truncated."""
    root = tmp_path_factory.mktemp("imagefolder")
    rng = np.random.default_rng(0)
    for c in CLASSES:
        (root / c).mkdir()
        for i in range(5):
            data = _jpeg(rng, int(rng.integers(40, 90)), int(rng.integers(40, 90)))
            (root / c / f"{c[0]}{i}.jpg").write_bytes(data)
    bad = root / "cat" / "c4.jpg"  # cut inside the scan: the header reads, the decode fails
    bad.write_bytes(bad.read_bytes()[:len(bad.read_bytes()) * 3 // 5])
    return root


def recipe(on_error="raise"):
    """Top-level (picklable for spawn): the ImageNet recipe at 32 x 32."""
    return augpy.image.imagenet_train(BATCH, size=32, on_error=on_error)


def loader(at, torch, ds, workers, method=None):
    kw = dict(batch_size=None, num_workers=workers, timeout=TIMEOUT if workers else 0)
    if workers and method:
        kw["multiprocessing_context"] = method
    return torch.utils.data.DataLoader(ds, **kw)


def as_np(t):
    return t.numpy() if not hasattr(t, "cpu") else t.cpu().numpy()


def run_epoch(at, torch, ds, workers=0, method=None):
    return [(list(b["key"]), as_np(b["image"]), as_np(b["label"])) for b in loader(at, torch, ds, workers, method)]


def dataset(at, root, **kw):
    kw.setdefault("on_error", "skip")
    return at.StageDataset(augpy.data.FolderSource(root), functools.partial(recipe), BATCH, **kw)


def good_source(root):
    """The folder's readable files as a FileListSource with their class labels."""
    good = [(p, c) for p, c in augpy.data.FolderSource(root).samples if "c4" not in p]
    return augpy.data.FileListSource([p for p, _ in good], labels=[c for _, c in good], root=root)


def methods():
    out = [None]
    if UNDER_ASAN:
        return out  # worker processes under libasan: see test_fork.py
    for m in ("fork", "spawn"):
        if m in mp.get_all_start_methods() and (m != "fork" or ON_CPU):
            out.append(m)
    return out


# ---- shuffling, labels, epochs -----------------------------------------------------------------

def test_shuffled_epochs_mix_classes_and_repeat(atorch, folder):
    at, torch = atorch
    ds = dataset(at, folder, seed=3, shuffle=True)
    e0 = run_epoch(at, torch, ds)
    keys0 = [k for keys, _, _ in e0 for k in keys]
    good = sorted(f"{c}/{c[0]}{i}" for c in CLASSES for i in range(5) if (c, i) != ("cat", 4))
    assert sorted(keys0) == good  # every readable file exactly once
    assert all(len(keys) == BATCH for keys, _, _ in e0[:-1])  # the skipped file is replaced
    assert any(len({k.split("/")[0] for k in keys}) > 1 for keys, _, _ in e0)
    for keys, _, labels in e0:
        assert labels.dtype == np.int64 and list(labels) == [CLASSES.index(k.split("/")[0]) for k in keys]
    ds.set_epoch(1)
    e1 = run_epoch(at, torch, ds)
    assert [k for keys, _, _ in e1 for k in keys] != keys0
    ds2 = dataset(at, folder, seed=3, shuffle=True)
    again = run_epoch(at, torch, ds2)
    assert [keys for keys, _, _ in again] == [keys for keys, _, _ in e0]
    for (_, a, _), (_, b, _) in zip(again, e0):
        np.testing.assert_array_equal(a, b)
    # the same sample in another epoch: another crop
    first = dict(zip(keys0, (img for _, imgs, _ in e0 for img in imgs)))
    second = dict(zip([k for keys, _, _ in e1 for k in keys], (img for _, imgs, _ in e1 for img in imgs)))
    assert all(not np.array_equal(first[k], second[k]) for k in good[:5])


def test_drop_last_and_len(atorch, folder):
    at, torch = atorch
    ds = dataset(at, folder, seed=4, shuffle=True, drop_last=True)
    ds.source = good_source(folder)  # 19 files: 4 full batches of 4, the last 3 dropped
    assert len(ds) == 4
    got = run_epoch(at, torch, ds)
    assert [len(k) for k, _, _ in got] == [4, 4, 4, 4]
    kept = [k for keys, _, _ in got for k in keys]
    assert len(set(kept)) == 16
    full = dataset(at, folder, seed=4, shuffle=True)
    full.source = ds.source
    assert len(full) == 5 and [k for keys, _, _ in run_epoch(at, torch, full) for k in keys][:16] == kept


def test_no_shuffle_keeps_sorted_order(atorch, folder):
    at, torch = atorch
    keys = [k for keys, _, _ in run_epoch(at, torch, dataset(at, folder, seed=1)) for k in keys]
    assert keys == sorted(keys)


@pytest.mark.filterwarnings("ignore:.*without set_epoch")
@pytest.mark.parametrize("method", methods())
def test_same_batches_for_any_worker_count(atorch, folder, method):
    at, torch = atorch
    ds = dataset(at, folder, seed=5, shuffle=True, on_error="raise")
    ds.source = good_source(folder)
    ds.set_epoch(2)
    ref = run_epoch(at, torch, ds, 0)
    for workers in ((1, 2, 3) if method else (0,)):
        got = run_epoch(at, torch, ds, workers, method)
        assert [k for k, _, _ in got] == [k for k, _, _ in ref], workers
        for (_, a, la), (_, b, lb) in zip(got, ref):
            np.testing.assert_array_equal(a, b)
            np.testing.assert_array_equal(la, lb)


@pytest.mark.parametrize("method", [m for m in methods() if m])
def test_persistent_workers_follow_set_epoch(atorch, folder, method):
    """Persistent DataLoader workers keep their dataset copy across epochs: set_epoch and
    load_state_dict in the main process still reach them (shared memory)."""
    at, torch = atorch
    if _STANDIN is not None and method != "fork":
        pytest.skip("the stand-in pickles a spawned worker's dataset before the process starts (its interpreter "
                    "has no torch to unpickle with), so shared memory cannot travel; real torch passes")
    ds = dataset(at, folder, seed=8, shuffle=True)
    ds.source = good_source(folder)
    dl = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=2, multiprocessing_context=method,
                                     persistent_workers=True, timeout=TIMEOUT)
    seen = []
    for epoch in range(3):
        ds.set_epoch(epoch)
        seen.append([list(b["key"]) for b in dl])
    for epoch in range(3):
        ref = dataset(at, folder, seed=8, shuffle=True)
        ref.source = good_source(folder)
        ref.set_epoch(epoch)
        assert seen[epoch] == [list(b["key"]) for b in ref]
    assert seen[0] != seen[1] != seen[2]
    blob = pickle.loads(pickle.dumps(ds))  # a plain pickle keeps the values, not the shared memory
    assert blob.state_dict() == ds.state_dict()


def test_seed_none_is_drawn_once_from_torch(atorch, folder):
    at, torch = atorch
    torch.manual_seed(123)
    a = dataset(at, folder, shuffle=True)
    torch.manual_seed(123)
    b = dataset(at, folder, shuffle=True)
    assert a.state_dict()["seed"] == b.state_dict()["seed"]
    ka = [k for keys, _, _ in run_epoch(at, torch, a) for k in keys]
    kb = [k for keys, _, _ in run_epoch(at, torch, b) for k in keys]
    assert ka == kb


def test_epoch_repeated_without_set_epoch_warns(atorch, folder):
    at, torch = atorch
    ds = dataset(at, folder, seed=1)
    list(ds)
    with pytest.warns(UserWarning, match="without set_epoch"):
        list(ds)
    ds.set_epoch(1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        list(ds)


# ---- resume and replay -----------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore:.*without set_epoch")
def test_resume_mid_epoch(atorch, folder):
    at, torch = atorch
    ds = dataset(at, folder, seed=9, shuffle=True, on_error="raise")
    ds.source = good_source(folder)
    ds.set_epoch(4)
    full = [(k, img) for b in ds for k, img in zip(b["key"], as_np(b["image"]))]
    for k in (1, 6, 8, 18):
        state = ds.state_dict(samples_seen=k)
        fresh = dataset(at, folder, seed=0, shuffle=True, on_error="raise")
        fresh.source = ds.source
        fresh.load_state_dict(pickle.loads(pickle.dumps(state)))
        rest = [(key, img) for b in fresh for key, img in zip(b["key"], as_np(b["image"]))]
        assert [key for key, _ in rest] == [key for key, _ in full[k:]]
        for (_, a), (_, b) in zip(rest, full[k:]):
            np.testing.assert_array_equal(a, b)
    # in-process progress: state_dict() after two batches
    it = iter(ds)
    next(it), next(it)
    assert ds.state_dict()["sample"] == 2 * BATCH


def test_recorded_augmentation_replays(atorch, folder):
    at, torch = atorch
    ds = dataset(at, folder, seed=2, shuffle=True)
    ds.set_epoch(7)
    batch = next(iter(ds))
    stage = recipe()
    for i, key in enumerate(batch["key"]):
        data = (folder / (key + ".jpg")).read_bytes()
        again = stage({"image": [data], "augmentation": [batch["augmentation"][i]]})
        np.testing.assert_array_equal(again["image"].numpy()[0], as_np(batch["image"])[i])
        assert again["augmentation"][0]["crop"] == batch["augmentation"][i]["crop"]


def test_hostile_state_dicts(atorch, folder):
    at, _ = atorch
    ds = dataset(at, folder, seed=1)
    good = ds.state_dict()
    with pytest.raises(TypeError, match="load_state_dict: state must be a dict"):
        ds.load_state_dict([1, 2])
    with pytest.raises(ValueError, match="exactly the keys"):
        ds.load_state_dict(dict(good, extra=1))
    with pytest.raises(ValueError, match="source of 3 samples"):
        ds.load_state_dict(dict(good, size=3))
    with pytest.raises(ValueError, match=r"state\['sample'\] 99 is past"):
        ds.load_state_dict(dict(good, sample=99))
    with pytest.raises(ValueError, match=r"state\['epoch'\]"):
        ds.load_state_dict(dict(good, epoch=-1))
    with pytest.raises(ValueError, match="shuffle=True"):
        ds.load_state_dict(dict(good, shuffle=True))
    with pytest.raises((TypeError, ValueError), match="seed"):
        ds.load_state_dict(dict(good, seed="x"))
    with pytest.raises(ValueError, match="samples_seen"):
        ds.state_dict(samples_seen=-2)


# ---- bad files ---------------------------------------------------------------------------------

def test_drop_last_refills_from_the_samples_past_the_last_batch(atorch, folder):
    """With drop_last, the samples past the last whole batch replace a skipped file (they are
    never a batch of their own): 17 good files and the truncated one make 4 whole batches of 4
    (before, the batch with the bad file came out short and was dropped: 3); 19 good files the
    same 4 batches as ever, the last 3 samples unread."""
    at, torch = atorch
    files = augpy.data.FolderSource(folder).samples
    good = [(p, c) for p, c in files if "c4" not in p]  # 19
    bad = [(p, c) for p, c in files if "c4" in p]
    for pick, skipped in ((good[:2] + bad + good[2:17], 1), (good, 0)):
        src = augpy.data.FileListSource([p for p, _ in pick], labels=[c for _, c in pick], root=folder)
        ds = at.StageDataset(src, functools.partial(recipe), BATCH, seed=2, shuffle=False, drop_last=True,
                             on_error="skip")
        assert len(ds) == 4
        got = list(ds)
        keys = [k for b in got for k in b["key"]]
        assert [len(b["key"]) for b in got] == [4, 4, 4, 4] and len(set(keys)) == 16
        assert ds.skipped == skipped and all("c4" not in k for k in keys)


def test_truncated_file_raises_decode_error_naming_it(atorch, folder):
    at, torch = atorch
    ds = dataset(at, folder, seed=1, on_error="raise")
    with pytest.raises(augpy.DecodeError, match=r"image \d \(cat/c4, jpeg\):") as info:
        list(ds)
    assert isinstance(info.value, augpy.NvJpegError)


def test_skip_and_warn(atorch, folder, caplog):
    at, torch = atorch
    ds = dataset(at, folder, seed=1, on_error="warn")
    with caplog.at_level("WARNING", logger="augpy"):
        batches = list(ds)
    assert "cat/c4" in caplog.text
    assert ds.skipped == 1
    skipped = [s for b in batches for s in b.get("skipped", ())]
    assert [s[1] for s in skipped] == ["cat/c4"]
    assert [len(b["key"]) for b in batches] == [4, 4, 4, 4, 3]


@pytest.mark.parametrize("copy", [True, False])
def test_refills_over_several_stage_calls(atorch, copy):
    """A batch that needs two refills (three stage calls, more than the ring's two buffers):
    every kept image equals the same key's image from a clean run."""
    at, _ = atorch
    rng = np.random.default_rng(5)
    good = {f"g{i}": _jpeg(rng, 40 + i, 50) for i in range(7)}
    order = ["g0", "b0", "b1", "b2", "b3", "g1", "b4", "g2", "g3", "g4", "g5", "g6"]
    samples = [(good[k] if k in good else b"\xff\xd8\xff\xe0 broken", k, {}) for k in order]

    def source(worker_id, num_workers):
        return iter(samples)

    def clean(worker_id, num_workers):
        return iter([s for s in samples if s[1] in good])

    make = functools.partial(augpy.image.DecodeWarp, 4, (3, 16, 16), num_buffers=2, on_error="skip")
    got = list(at.StageDataset(source, make, 4, seed=3, copy=copy,
                               augment=augpy.data.RandomWarp(angle=30, hmirror=0.5)))
    ref = list(at.StageDataset(clean, make, 4, seed=3, augment=augpy.data.RandomWarp(angle=30, hmirror=0.5)))
    assert [b["key"] for b in got] == [["g0", "g1", "g2", "g3"], ["g4", "g5", "g6"]]
    assert [b["key"] for b in ref] == [["g0", "g1", "g2", "g3"], ["g4", "g5", "g6"]]
    for b, r in zip(got, ref):
        np.testing.assert_array_equal(as_np(b["image"]), as_np(r["image"]))
    assert [s[1] for s in got[0]["skipped"]] == ["b0", "b1", "b2", "b3", "b4"]


def _mixing_recipe():
    """Top-level (picklable): timm's recipe at 16 x 16 with timm's Mixup, whose pairs need an
    even batch."""
    return augpy.image.timm_train(4, size=16, re_prob=0, mixup=dict(mixup_alpha=0.8, cutmix_alpha=1.0,
                                                                      label_smoothing=0.1, num_classes=3))


@pytest.mark.parametrize("copy", [True, False])
def test_skipped_file_refilled_before_the_mixing_stage(atorch, copy):
    """A skipped file inside a batch of a recipe that mixes: the batch runs again, whole, with
    the next sample in the skipped one's place, so the mixing stage sees one full (even) batch,
    and it equals the batch of a source without the bad files (targets too). Before, the stages
    ran on the 3 good images, and Mixup refused the odd batch."""
    at, torch = atorch
    rng = np.random.default_rng(8)
    good = {f"g{i}": _jpeg(rng, 30 + 3 * i, 40) for i in range(9)}
    order = ["g0", "b0", "g1", "g2", "g3", "b1", "b2", "g4", "g5", "g6", "g7", "g8"]
    samples = [(good[k] if k in good else b"\xff\xd8\xff\xe0 broken", k, {"class_index": int(k[1:]) % 3})
               for k in order]

    def source(worker_id, num_workers):
        return iter(samples)

    def clean(worker_id, num_workers):
        return iter([s for s in samples if s[1] in good])

    def run(src, **kw):
        out = []
        for b in at.StageDataset(src, _mixing_recipe, 4, seed=3, drop_last=True, **kw):
            out.append(dict(b, image=as_np(b["image"]).copy(), target=as_np(b["target"]).copy()))
            b.get("release", lambda: None)()
        return out

    got = run(source, copy=copy, on_error="skip")
    ref = run(clean)
    assert [b["key"] for b in got] == [["g0", "g1", "g2", "g3"], ["g4", "g5", "g6", "g7"]]
    assert [b["key"] for b in ref] == [b["key"] for b in got]
    for b, r in zip(got, ref):
        np.testing.assert_array_equal(b["image"], r["image"])
        np.testing.assert_array_equal(b["target"], r["target"])
        np.testing.assert_allclose(b["target"].sum(1), 1.0, rtol=1e-6)
    assert [s[1] for s in got[0]["skipped"]] == ["b0"]
    assert [s[1] for s in got[1]["skipped"]] == ["b1", "b2"]
    # a make_stages that hands back one stage every epoch: the stage keeps its transforms
    stage = _mixing_recipe()
    ds = at.StageDataset(source, lambda: stage, 4, seed=3, on_error="skip", drop_last=True)
    for epoch in range(2):
        ds.set_epoch(epoch)
        assert all("target" in b for b in ds) and len(stage.transforms) == 3


def test_stage_level_skip_keeps_ring_consistent():
    """A stage alone with on_error='skip': the batch comes back shorter, the kept images
    equal a batch without the bad file, and the next call is right."""
    rng = np.random.default_rng(1)
    files = [_jpeg(rng, 50, 60) for _ in range(4)]
    bad = files[1][:200]  # cut inside the header: the stage's header read fails
    stage = augpy.image.ImageNetTrain(4, size=24, seed=3, on_error="skip", cpu_threads=2)
    aug = [{"rng": (3, 0, k)} for k in range(4)]
    out = stage({"image": [files[0], bad, files[2], files[3]], "augmentation": [dict(a) for a in aug],
                 "key": ["a", "b", "c", "d"]})
    assert out["key"] == ["a", "c", "d"] and out["image"].shape[0] == 3 and stage.skipped == 1
    assert out["skipped"][0][:2] == (1, "b")
    ref = augpy.image.ImageNetTrain(4, size=24)({"image": [files[0], files[2], files[3]],
                                                  "augmentation": [dict(aug[k]) for k in (0, 2, 3)]})
    np.testing.assert_array_equal(out["image"].numpy(), ref["image"].numpy())
    nxt = stage({"image": files, "augmentation": [dict(a) for a in aug]})
    ref = augpy.image.ImageNetTrain(4, size=24)({"image": files, "augmentation": [dict(a) for a in aug]})
    np.testing.assert_array_equal(nxt["image"].numpy(), ref["image"].numpy())


def test_garbage_bytes_message():
    stage = augpy.image.ImageNetTrain(1, size=8)
    with pytest.raises(augpy.DecodeError, match=r"image 0 \(bytes, unknown\): .*not a JPEG, PNG, WebP, TIFF or AVIF file \(starts with "
                                                r"3c 68 74 6d 6c"):
        stage({"image": [b"<html><body>"]})


# ---- pickling ------------------------------------------------------------------------------------

def _run_pickled(blob, data):
    stage = pickle.loads(blob)
    out = stage({"image": data, "augmentation": [{"rng": (1, 0, k)} for k in range(len(data))]})
    return out["image"].numpy()


@pytest.mark.skipif(UNDER_ASAN, reason="worker processes under libasan (see test_fork.py)")
def test_stages_pickle_into_a_spawned_process():
    rng = np.random.default_rng(2)
    data = [_jpeg(rng, 40, 50) for _ in range(3)]
    stages = [augpy.image.imagenet_train(3, size=16, seed=4, cpu_threads=2),
              augpy.image.ImageNetEval(3, size=16, resize=20),
              augpy.image.DecodeWarp(3, (3, 16, 16), on_error="skip")]
    for stage in stages:
        blob = pickle.dumps(stage)
        back = pickle.loads(blob)
        assert type(back) is type(stage) and back.batch_size == 3 and back.on_error == stage.on_error
        want = stage({"image": data, "augmentation": [{"rng": (1, 0, k)} for k in range(3)]})["image"].numpy()
        with mp.get_context("spawn").Pool(1) as pool:
            got = pool.apply_async(_run_pickled, (blob, data)).get(timeout=TIMEOUT)
        np.testing.assert_array_equal(got, want)
    for stage in (augpy.image.ColorJitter(seed=3), augpy.image.Normalize(2), augpy.image.Lighting(2),
                  augpy.Decoder()):
        assert type(pickle.loads(pickle.dumps(stage))) is type(stage)
    jitter = augpy.image.ColorJitter(seed=None)
    img = augpy.array_to_tensor(np.full((2, 3, 4, 4), 100, np.uint8))
    jitter({"image": img})
    clone = pickle.loads(pickle.dumps(jitter))  # the stream goes on where it stood
    a = jitter({"image": augpy.array_to_tensor(np.full((2, 3, 4, 4), 100, np.uint8))})["augmentation"]
    b = clone({"image": augpy.array_to_tensor(np.full((2, 3, 4, 4), 100, np.uint8))})["augmentation"]
    assert a == b


# ---- bad arguments and hostile sources --------------------------------------------------------

def test_bad_arguments(atorch, folder):
    at, _ = atorch
    src = augpy.data.FolderSource(folder)
    with pytest.raises(TypeError, match="unexpected keyword"):
        at.StageDataset(src, recipe, 4, shufle=True)
    with pytest.raises(ValueError, match="on_error must be"):
        at.StageDataset(src, recipe, 4, on_error="ignore")
    with pytest.raises(ValueError, match="output must be"):
        at.StageDataset(src, recipe, 4, output="list")
    with pytest.raises(ValueError, match="seed must be in"):
        at.StageDataset(src, recipe, 4, seed=2**64)
    with pytest.raises(TypeError, match="seed must be an int"):
        at.StageDataset(src, recipe, 4, seed=1.5)
    with pytest.raises(ValueError, match="set_epoch: epoch"):
        at.StageDataset(src, recipe, 4).set_epoch(-1)
    with pytest.raises(TypeError, match="unexpected keyword"):
        augpy.image.ImageNetTrain(4, sise=32)


def test_hostile_sources(atorch, folder):
    at, _ = atorch
    data = (folder / "dog" / "d0.jpg").read_bytes()

    def raising(worker_id, num_workers):
        yield data, "a", {}
        raise RuntimeError("disk gone")

    with pytest.raises(RuntimeError, match="disk gone"):
        list(at.StageDataset(raising, recipe, 1, seed=0))

    def not_triples(worker_id, num_workers):
        yield 42

    with pytest.raises(TypeError, match=r"\(bytes, key, metadata\)"):
        list(at.StageDataset(not_triples, recipe, 1, seed=0))

    def not_bytes(worker_id, num_workers):
        yield 3.5, "k", {}

    with pytest.raises(TypeError):
        list(at.StageDataset(not_bytes, recipe, 1, seed=0))
    with pytest.raises(ValueError, match="output='tuple' needs a label"):
        list(at.StageDataset(lambda w, n: iter([(data, "a", {})]), recipe, 1, seed=0, output="tuple"))
