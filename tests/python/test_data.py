"""augpy.data: folders and WebDataset-style tar shards as (bytes, key, metadata), made in
tmp dirs (tars written with the standard library's tarfile): sorted and recursive
listing, case-insensitive extensions, per-worker shares that partition the data, samples
grouped by key with their .cls / .json / .txt members, brace patterns, damaged shards,
batches in the DecodeWarp batch format (decoded by DecodeWarp), RandomWarp's draws."""
import io
import json
import tarfile

import cv2
import numpy as np
import pytest

import augpy
import augpy.data as data
import augpy.image
from seedref import fnv1a64 as ref_fnv1a64  # the independent references
from seedref import ref_sample_id, ref_stream_seed
from seedref import splitmix64 as ref_splitmix64


def jpeg(seed, h=20, w=24):
    rng = np.random.default_rng(seed)
    return cv2.imencode(".jpg", rng.integers(0, 256, (h, w, 3), dtype=np.uint8))[1].tobytes()


def png(seed):
    rng = np.random.default_rng(seed)
    return cv2.imencode(".png", rng.integers(0, 256, (8, 8, 3), dtype=np.uint8))[1].tobytes()


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "deep").mkdir()
    files = {"z.jpg": jpeg(1), "c.PNG": png(2), "a/x.jpeg": jpeg(3), "b/y.jpg": jpeg(4), "a/deep/w.png": png(5),
             "notes.txt": b"hi", "b/skip.json": b"{}"}
    for rel, raw in files.items():
        (tmp_path / rel).write_bytes(raw)
    return tmp_path, files


def test_folder_flat_and_recursive(folder):
    root, files = folder
    flat = list(data.iter_folder(root))
    assert [k for _, k, _ in flat] == ["c", "z"]
    assert flat[0][0] == files["c.PNG"] and flat[0][2]["label"] == ""
    rec = list(data.iter_folder(root, recursive=True))
    assert [k for _, k, _ in rec] == ["a/deep/w", "a/x", "b/y", "c", "z"]
    assert [m["label"] for _, _, m in rec] == ["deep", "a", "b", "", ""]
    assert all(raw == files[m["path"][len(str(root)) + 1:]] for raw, _, m in rec)
    assert data.list_images(root, extensions=("png",)) == [str(root / "c.PNG")]
    shares = [[k for _, k, _ in data.iter_folder(root, True, worker_id=w, num_workers=2)] for w in (0, 1)]
    assert shares == [["a/deep/w", "b/y", "z"], ["a/x", "c"]]


def write_shard(path, samples, extra_members=()):
    with tarfile.open(path, "w") as tar:
        def add(name, raw):
            info = tarfile.TarInfo(name)
            info.size = len(raw)
            tar.addfile(info, io.BytesIO(raw))
        for key, members in samples:
            for ext, raw in members.items():
                add(key + ext, raw)
        for name, raw in extra_members:
            add(name, raw)


def test_shards_group_members_by_key(tmp_path):
    s0 = [("n01440764_10026", {".jpg": jpeg(1), ".cls": b"3\n", ".json": json.dumps({"w": 24}).encode()}),
          ("n01440764_10027", {".jpg": jpeg(2), ".cls": b"4", ".txt": "héllo".encode()}),
          ("train/n015_1", {".png": png(3), ".seg.png": png(4), ".cls": b"5"}),
          ("meta_only", {".json": b"{}"})]
    s1 = [("k1", {".jpeg": jpeg(5), ".idx": b"7", ".bin": b"\x00\x01"})]
    write_shard(tmp_path / "shard-000.tar", s0)
    write_shard(tmp_path / "shard-001.tar", s1)
    got = list(data.iter_shards(str(tmp_path / "shard-{000..001}.tar")))
    assert [k for _, k, _ in got] == ["n01440764_10026", "n01440764_10027", "train/n015_1", "k1"]
    raw, key, meta = got[0]
    assert raw == s0[0][1][".jpg"] and meta["cls"] == 3 and meta["json"] == {"w": 24}
    assert meta["__shard__"] == str(tmp_path / "shard-000.tar")
    assert got[1][2]["txt"] == "héllo"
    assert got[2][0] == s0[2][1][".png"] and got[2][2]["seg.png"] == s0[2][1][".seg.png"]
    assert got[3][2]["idx"] == 7 and got[3][2]["bin"] == b"\x00\x01"
    # per worker: every other shard
    w0 = [k for _, k, _ in data.iter_shards([str(tmp_path / "shard-000.tar"), str(tmp_path / "shard-001.tar")],
                                            worker_id=0, num_workers=2)]
    w1 = [k for _, k, _ in data.iter_shards(str(tmp_path / "shard-{000..001}.tar"), worker_id=1, num_workers=2)]
    assert w0 == ["n01440764_10026", "n01440764_10027", "train/n015_1"] and w1 == ["k1"]
    # compressed shards read too (tarfile's r|*)
    with tarfile.open(tmp_path / "c.tar.gz", "w:gz") as tar:
        tar.add(tmp_path / "shard-001.tar", arcname="ignored.tar.x")  # a member without an image: skipped
    assert list(data.iter_shards(str(tmp_path / "c.tar.gz"))) == []


def test_expand_and_split():
    assert data.expand_shards("a-{08..11}.tar") == ["a-08.tar", "a-09.tar", "a-10.tar", "a-11.tar"]
    assert data.expand_shards(["x.tar", "y{1..2}-{0..1}.tar"]) == ["x.tar", "y1-0.tar", "y1-1.tar", "y2-0.tar",
                                                                   "y2-1.tar"]
    assert data.split(range(7), 1, 3) == [1, 4]
    with pytest.raises(ValueError, match=r"augpy.data.expand_shards: empty range \{3..1\}"):
        data.expand_shards("a{3..1}.tar")
    with pytest.raises(ValueError, match=r"augpy.data.split: worker_id 3 must be in \[0, num_workers\)"):
        data.split([1], 3, 3)
    with pytest.raises(ValueError, match="augpy.data.iter_folder: give both worker_id and num_workers"):
        list(data.iter_folder(".", worker_id=0))


def test_damaged_and_missing(tmp_path):
    good = tmp_path / "g.tar"
    write_shard(good, [("a", {".jpg": jpeg(1)}), ("b", {".jpg": jpeg(2)})])
    raw = good.read_bytes()
    (tmp_path / "cut.tar").write_bytes(raw[:700])
    with pytest.raises(ValueError, match=r"augpy.data.iter_shards: (shard .*cut.tar' is damaged|cannot read)"):
        list(data.iter_shards(str(tmp_path / "cut.tar")))
    with pytest.raises(ValueError, match="augpy.data.iter_shards: cannot read shard"):
        list(data.iter_shards(str(tmp_path / "missing.tar")))
    with pytest.raises(FileNotFoundError, match="augpy.data.list_images: .* is not a folder"):
        data.list_images(tmp_path / "nope")


def test_batches_feed_decodewarp(tmp_path):
    write_shard(tmp_path / "s.tar", [(f"k{i}", {".jpg": jpeg(i, 16 + i, 20), ".cls": str(i).encode()})
                                     for i in range(5)])
    rng = np.random.default_rng(0)
    aug = data.RandomWarp(angle=10, hmirror=1.0)
    bs = list(data.batches(data.iter_shards(str(tmp_path / "s.tar")), 2, aug, rng))
    assert [b["key"] for b in bs] == [["k0", "k1"], ["k2", "k3"], ["k4"]]
    assert [m["cls"] for b in bs for m in b["metadata"]] == [0, 1, 2, 3, 4]
    assert all(a["hmirror"] is True and -10 <= a["angle"] <= 10 for b in bs for a in b["augmentation"])
    assert len(list(data.batches(data.iter_shards(str(tmp_path / "s.tar")), 2, drop_last=True))) == 2
    stage = augpy.image.DecodeWarp(2, (3, 8, 8))
    out = stage(bs[0])
    assert out["image"].shape == (2, 3, 8, 8)
    with pytest.raises(ValueError, match="augpy.data.batches: augment needs an rng"):
        list(data.batches([], 2, aug))
    with pytest.raises(ValueError, match="augpy.data.batches: batch_size must be a positive int, got 0"):
        list(data.batches([], 0))


def test_random_warp_draws():
    a = data.RandomWarp(angle=30, scale=(0.5, 2), aspect=(0.9, 1.1), shift=0.2, hmirror=0.5, vmirror=0.0)
    rng = np.random.default_rng(3)
    draws = [a(rng) for _ in range(200)]
    assert all(-30 <= d["angle"] <= 30 and 0.5 <= d["scale"] <= 2 and 0.9 <= d["aspect"] <= 1.1 for d in draws)
    assert all(abs(d["shift"][0]) <= 0.2 and not d["vmirror"] for d in draws)
    assert 50 < sum(d["hmirror"] for d in draws) < 150
    again = data.RandomWarp(angle=30, scale=(0.5, 2), aspect=(0.9, 1.1), shift=0.2, hmirror=0.5)
    rng = np.random.default_rng(3)
    assert [again(rng) for _ in range(200)] == draws
    with pytest.raises(ValueError, match=r"RandomWarp: scale must be \(lo, hi\) with 0 < lo <= hi"):
        data.RandomWarp(scale=(2, 1))
    with pytest.raises(ValueError, match="RandomWarp: hmirror is a probability in"):
        data.RandomWarp(hmirror=2)


# ---- the seed model's hashes against the references of seedref.py ----------------------------------

def test_seed_model_hashes():
    assert ref_splitmix64(0) == 0xE220A8397B1DCDAF  # SplitMix64's published first output for state 0
    assert ref_fnv1a64(b"") == 0xcbf29ce484222325 and ref_fnv1a64(b"a") == 0xaf63dc4c8601ec8c
    for seed, epoch, stream in [(0, 0, "shuffle"), (2**64 - 1, 7, "augment"), (1234, 2**63, "ColorJitter")]:
        assert data._stream_seed(seed, epoch, stream) == ref_stream_seed(seed, epoch, stream)
    for key in ["", "n01440764/n01440764_10026", "héllo"]:
        assert data._sample_id(key) == ref_sample_id(key)
    assert data._sample_id(5) == 5


# ---- FolderSource: torchvision ImageFolder's conventions --------------------------------------------

def ref_image_folder(root, extensions=data.IMAGE_EXTENSIONS):
    """torchvision's ImageFolder (find_classes + make_dataset, allow_empty=False) written out."""
    import os
    classes = sorted(e.name for e in os.scandir(root) if e.is_dir())
    class_to_idx = {c: i for i, c in enumerate(classes)}
    samples, available = [], set()
    for c in sorted(class_to_idx):
        for d, _, fnames in sorted(os.walk(os.path.join(root, c), followlinks=True)):
            for f in sorted(fnames):
                if f.lower().endswith(tuple(extensions)):
                    samples.append((os.path.join(d, f), class_to_idx[c]))
                    available.add(c)
    if set(classes) - available:
        raise FileNotFoundError(f"Found no valid file for the classes {sorted(set(classes) - available)}")
    return classes, class_to_idx, samples


@pytest.fixture
def class_tree(tmp_path):
    """3 classes (one with a sub-folder; 'bee' and 'bee-2' sort differently as class names and as paths),
    a file directly in root, and two folders without images."""
    files = {"ant/a1.jpg": jpeg(1), "ant/a0.JPG": jpeg(2), "bee/b0.png": png(3), "bee/x/b1.jpg": jpeg(4),
             "bee/b2.jpeg": jpeg(5), "bee-2/c0.jpg": jpeg(6), "top.jpg": jpeg(7), "notes/readme.txt": b"hi"}
    for rel, raw in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(raw)
    (tmp_path / "empty").mkdir()
    return tmp_path, files


def test_folder_source_is_image_folder(class_tree):
    import pickle
    import shutil
    root, files = class_tree
    src = data.FolderSource(root)
    assert src.classes == ["ant", "bee", "bee-2"] and src.class_to_idx == {"ant": 0, "bee": 1, "bee-2": 2}
    with pytest.raises(FileNotFoundError, match="empty"):  # ImageFolder refuses folders without images
        ref_image_folder(root)
    shutil.rmtree(root / "empty")
    shutil.rmtree(root / "notes")
    classes, class_to_idx, ref = ref_image_folder(root)
    assert (src.classes, src.class_to_idx) == (classes, class_to_idx)
    assert src.samples[:-1] == ref and src.samples[-1] == (str(root / "top.jpg"), -1)
    assert src.imgs == src.samples and src.targets == [c for _, c in src.samples] == [0, 0, 1, 1, 1, 2, -1]
    assert src.keys == ["ant/a0", "ant/a1", "bee/b0", "bee/b2", "bee/x/b1", "bee-2/c0", "top"]
    assert len(src) == 7
    raw, key, meta = src[4]
    assert raw == files["bee/x/b1.jpg"] and key == "bee/x/b1"
    assert meta == {"path": str(root / "bee/x/b1.jpg"), "label": "bee", "class_index": 1}
    assert src[-1][1:] == ("top", {"path": str(root / "top.jpg"), "label": "", "class_index": -1})
    assert src[np.int64(0)][0] == files["ant/a0.JPG"]
    with pytest.raises(IndexError, match="augpy.data.FolderSource: index 7 out of range for 7 samples"):
        src[7]
    with pytest.raises(TypeError, match="index must be an int"):
        src["0"]
    # the older call: iter_folder's sorted order (by relative path), every num_workers-th
    legacy = [k for _, k, _ in src(0, 1)]
    assert legacy == [k for _, k, _ in data.iter_folder(root, recursive=True)]
    assert legacy == ["ant/a0", "ant/a1", "bee-2/c0", "bee/b0", "bee/b2", "bee/x/b1", "top"]
    assert [k for _, k, _ in src(1, 2)] == legacy[1::2]
    assert [m["label"] for _, _, m in src(0, 1)] == ["ant", "ant", "bee-2", "bee", "bee", "bee", ""]
    again = pickle.loads(pickle.dumps(src))
    assert vars(again) == vars(src) and again[2][0] == src[2][0]
    assert repr(src) == f"FolderSource(root={str(root)!r}, 7 samples, 3 classes)"
    flat = data.FolderSource(root, recursive=False)
    assert flat.keys == ["top"] and flat.classes == [] and flat[0][2]["class_index"] == -1
    assert data.FolderSource(root, extensions=("png",)).keys == ["bee/b0"]
    with pytest.raises(FileNotFoundError, match="augpy.data.FolderSource: .* is not a folder"):
        data.FolderSource(root / "missing")


def test_folder_source_leaves_out_folders_without_images(class_tree):
    root, _ = class_tree
    src = data.FolderSource(root)
    assert src.classes == ["ant", "bee", "bee-2"] and "empty" not in src.class_to_idx
    assert len(src) == 7


def test_folder_source_follows_folder_links_once(tmp_path):
    (tmp_path / "real" / "cls").mkdir(parents=True)
    (tmp_path / "real" / "cls" / "a.jpg").write_bytes(jpeg(1))
    (tmp_path / "real" / "cls" / "loop").symlink_to(tmp_path / "real" / "cls")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "linked").symlink_to(tmp_path / "real" / "cls")
    with pytest.raises(ValueError, match=r"augpy.data.FolderSource: .*linked' leads outside the root, to .*real/cls'; "
                                         r"pass follow_symlinks=True"):
        data.FolderSource(tmp_path / "data")
    src = data.FolderSource(tmp_path / "data", follow_symlinks=True)
    assert src.classes == ["linked"] and src.keys == ["linked/a"]
    inner = data.FolderSource(tmp_path / "real")  # the loop stays inside: followed once, no flag needed
    assert inner.classes == ["cls"] and inner.keys == ["cls/a"]


def test_file_list_source(tmp_path):
    paths = []
    for i, rel in enumerate(["x/p.jpg", "x/q.png", "y/r.jpg"]):
        (tmp_path / rel).parent.mkdir(exist_ok=True)
        (tmp_path / rel).write_bytes(jpeg(i))
        paths.append(tmp_path / rel)
    src = data.FileListSource(paths, labels=["dog", "cat", "dog"], root=tmp_path)
    assert src.keys == ["x/p", "x/q", "y/r"] and len(src) == 3
    assert src.classes == ["cat", "dog"] and src.class_to_idx == {"cat": 0, "dog": 1} and src.targets == [1, 0, 1]
    assert src[1] == (jpeg(1), "x/q", {"path": str(paths[1]), "label": "cat", "class_index": 0})
    assert [k for _, k, _ in src(1, 2)] == ["x/q"]
    assert src.samples == [(str(p), c) for p, c in zip(paths, [1, 0, 1])]
    ints = data.FileListSource([str(p) for p in paths], labels=[3, 0, -1])
    assert ints.keys == [str(p)[:-4] for p in paths] and ints.targets == [3, 0, -1]
    assert ints.classes == ["0", "1", "2", "3"] and ints[0][2]["label"] == "3" and ints[2][2]["label"] == ""
    nolabel = data.FileListSource(paths, keys=["a", "b", "c"])
    assert nolabel.keys == ["a", "b", "c"] and nolabel.classes == [] and nolabel[0][2]["class_index"] == -1
    assert "3 samples" in repr(nolabel)
    with pytest.raises(ValueError, match="augpy.data.FileListSource: 2 labels for 3 paths"):
        data.FileListSource(paths, labels=[0, 1])
    with pytest.raises(TypeError, match="all ints .* or all strs"):
        data.FileListSource(paths, labels=[0, "cat", 1])
    with pytest.raises(ValueError, match="is not under root"):
        data.FileListSource(paths, root=tmp_path / "x")
    with pytest.raises(TypeError, match="paths must be a list of paths"):
        data.FileListSource(str(paths[0]))


def test_duplicate_keys(tmp_path):
    (tmp_path / "cls").mkdir()
    (tmp_path / "cls" / "a.jpg").write_bytes(jpeg(1))
    (tmp_path / "cls" / "a.png").write_bytes(png(2))
    with pytest.raises(ValueError, match="augpy.data.FolderSource: duplicate key 'cls/a'"):
        data.FolderSource(tmp_path)
    with pytest.raises(ValueError, match="augpy.data.FileListSource: duplicate key 'cls/a'"):
        data.FileListSource([tmp_path / "cls" / "a.jpg", tmp_path / "cls" / "a.png"], root=tmp_path)
    with pytest.raises(ValueError, match="duplicate key 'k'"):
        data.FileListSource(["p.jpg", "q.jpg"], keys=["k", "k"])


# ---- epoch_order ---------------------------------------------------------------------------------

def test_epoch_order():
    n = 1000
    a = data.epoch_order(n, 42, 0, True)
    assert a.dtype == np.int64 and sorted(a.tolist()) == list(range(n))
    assert a.tolist() != list(range(n))
    assert np.array_equal(a, data.epoch_order(n, 42, 0, True))          # reproducible
    assert not np.array_equal(a, data.epoch_order(n, 42, 1, True))      # new order each epoch
    assert not np.array_equal(a, data.epoch_order(n, 43, 0, True))      # and each seed
    assert data.epoch_order(n, 42, 3, False).tolist() == list(range(n))
    assert data.epoch_order(0, 42, 0, True).tolist() == []
    # the definition: stable argsort of the uint64 values of RandomNumberGenerator(stream_seed(...)).uniform
    for seed, epoch in [(42, 0), (2**64 - 1, 5)]:
        t = augpy.Tensor((n,), dtype=augpy.uint64)
        augpy.RandomNumberGenerator(seed=ref_stream_seed(seed, epoch, "shuffle")).uniform(t, 0, 2.0**64)
        values = t.numpy()
        assert values.max() > 2**63  # the whole uint64 range
        assert np.array_equal(data.epoch_order(n, seed, epoch, True), np.argsort(values, kind="stable"))


@pytest.mark.parametrize("bad, exc", [("1", TypeError), (1.0, TypeError), (True, TypeError), (None, TypeError),
                                      (-1, ValueError), (2**64, ValueError)])
def test_bad_seeds(bad, exc):
    with pytest.raises(exc, match=r"augpy.data.epoch_order: seed must be"):
        data.epoch_order(3, bad, 0, True)
    with pytest.raises(exc, match=r"augpy.data.epoch_order: epoch must be"):
        data.epoch_order(3, 1, bad, True)
    with pytest.raises(exc, match=r"augpy.data.sample_generator: sample must be"):
        data.sample_generator(1, 0, bad)
    if bad is not None:
        with pytest.raises(exc, match=r"augpy.data.batches: seed must be"):
            data.batches([], 2, seed=bad)
    with pytest.raises(exc, match=r"augpy.data.batches: epoch must be"):
        data.batches([], 2, seed=1, epoch=bad)
    with pytest.raises(exc, match=r"augpy.data.ShardSource.samples: seed must be"):
        data.ShardSource([]).samples(bad, 0, True)


# ---- ShardSource: shard order per epoch, workers, shuffle buffer --------------------------------------

@pytest.fixture
def shards(tmp_path):
    paths = []
    for s in range(7):
        p = tmp_path / f"s-{s:03d}.tar"
        write_shard(p, [(f"s{s}_{i}", {".jpg": jpeg(10 * s + i, 8, 8), ".cls": str(s).encode()}) for i in range(5)])
        paths.append(str(p))
    return data.ShardSource(str(tmp_path / "s-{000..006}.tar")), paths


def keys_of(samples):
    return [k for _, k, _ in samples]


def test_shard_source_order_and_workers(shards):
    import pickle
    src, paths = shards
    assert src.shards == paths and repr(src) == "ShardSource(7 shards)"
    assert vars(pickle.loads(pickle.dumps(src))) == vars(src)
    everything = sorted(f"s{s}_{i}" for s in range(7) for i in range(5))
    orders = [src.shard_order(5, e) for e in range(3)]
    assert all(sorted(o) == paths for o in orders) and orders[0] != orders[1] != orders[2]
    assert orders[1] == [paths[i] for i in data.epoch_order(7, 5, 1, True)]
    for epoch in range(2):
        for w_count in (1, 2, 3):
            shares = [keys_of(src.samples(5, epoch, True, 4, w, w_count)) for w in range(w_count)]
            assert sorted(k for share in shares for k in share) == everything  # each sample once per epoch
            # worker w reads shards w::W of the epoch's order
            firsts = [src.samples(5, epoch, True, 1, w, w_count) for w in range(w_count)]
            assert [sorted({m["__shard__"] for _, _, m in f}) for f in firsts] == \
                [sorted(orders[epoch][w::w_count]) for w in range(w_count)]
    # without shuffle: today's order (the older call), no buffer
    for w in range(3):
        assert keys_of(src.samples(5, 0, False, 100, w, 3)) == keys_of(src(w, 3)) == \
            keys_of(data.iter_shards(paths, worker_id=w, num_workers=3))
    assert keys_of(src.samples()) == keys_of(data.iter_shards(paths))
    assert list(src.samples(5, 0, True, 4, 7, 8)) == []  # more workers than shards: nothing for some


def test_shard_shuffle_buffer_is_bounded_and_reproducible(shards):
    src, _ = shards
    stream = keys_of(src.samples(9, 2, True, 1))  # a buffer of 1: the shards' own order
    assert stream == [f"s{s}_{i}" for p in src.shard_order(9, 2) for s in [int(p[-7:-4])] for i in range(5)]
    assert keys_of(src.samples(9, 2, True, 0)) == stream
    pos = {k: q for q, k in enumerate(stream)}
    for size in (2, 5, 16, 100):
        out = keys_of(src.samples(9, 2, True, size))
        assert sorted(out) == sorted(stream) and out != stream
        assert max(pos[k] - p for p, k in enumerate(out)) <= size - 1  # a sample moves forward < size places
        assert out == keys_of(src.samples(9, 2, True, size))           # reproducible
        assert out != keys_of(src.samples(9, 3, True, size))           # new per epoch
    with pytest.raises(ValueError, match="augpy.data.ShardSource.samples: shuffle_buffer must be >= 0"):
        src.samples(9, 2, True, -1)
    with pytest.raises(ValueError, match=r"augpy.data.ShardSource.samples: worker_id 2 must be in \[0, num_workers"):
        src.samples(9, 2, True, 4, 2, 2)


def test_shuffle_buffer_scheme():
    class Draws:  # a scripted rng: the slots the buffer picks
        def __init__(self, slots):
            self.slots = list(slots)

        def integers(self, n):
            j = self.slots.pop(0)
            assert 0 <= j < n
            return j

    # buffer [0, 1, 2]; 3 replaces slot 1 (emit 1), 4 replaces slot 0 (emit 0); drain: slots 2, 0, 0
    out = list(data.shuffled(range(5), 3, Draws([1, 0, 2, 0, 0])))
    assert out == [1, 0, 2, 4, 3]
    assert list(data.shuffled(range(5), 1, None)) == list(range(5)) == list(data.shuffled(range(5), 0, None))
    rng = np.random.default_rng(0)
    out = list(data.shuffled(range(100), 10, rng))
    assert sorted(out) == list(range(100)) and out != list(range(100))
    assert max(q - p for p, q in enumerate(out)) <= 9
    with pytest.raises(ValueError, match="augpy.data.shuffled: buffer_size must be >= 0, got -2"):
        data.shuffled([], -2, rng)
    with pytest.raises(TypeError, match="augpy.data.shuffled: rng must be a numpy.random.Generator"):
        data.shuffled([], 4, 7)


# ---- batches with a seed ---------------------------------------------------------------------------

def test_batches_with_seed(tmp_path):
    samples = [(jpeg(i, 8, 8), f"k{i}", {"i": i}) for i in range(5)]
    bs = list(data.batches(samples, 2, seed=7, epoch=3, indices=[10, 11, 12, 13, 14]))
    assert [b["key"] for b in bs] == [["k0", "k1"], ["k2", "k3"], ["k4"]]
    assert [a for b in bs for a in b["augmentation"]] == [{"rng": (7, 3, ref_sample_id(f"k{i}"))} for i in range(5)]
    assert [b["index"] for b in bs] == [[10, 11], [12, 13], [14]]
    assert [b["index"] for b in data.batches(samples, 3, seed=7)] == [[-1] * 3, [-1] * 2]
    seen = {}

    def augment(rng, key, metadata):
        seen[key] = (rng.random(4), metadata)
        return {"angle": float(rng.uniform(-5, 5))}

    bs = list(data.batches(samples, 2, augment, seed=7, epoch=3))
    for i in range(5):
        ref = np.random.Generator(np.random.Philox(key=ref_stream_seed(7, 3, "augment"),
                                                   counter=ref_sample_id(f"k{i}")))
        assert np.array_equal(seen[f"k{i}"][0], ref.random(4)) and seen[f"k{i}"][1] == {"i": i}
        assert np.array_equal(data.sample_generator(7, 3, ref_sample_id(f"k{i}")).random(4),
                              np.random.Generator(np.random.Philox(key=ref_stream_seed(7, 3, "augment"),
                                                                   counter=ref_sample_id(f"k{i}"))).random(4))
    aug = [a for b in bs for a in b["augmentation"]]
    assert all(set(a) == {"rng", "angle"} and a["rng"] == (7, 3, ref_sample_id(a_key)) and -5 <= a["angle"] <= 5
               for a, a_key in zip(aug, [f"k{i}" for i in range(5)]))
    # a sample's augmentation depends on (seed, epoch, key) only: not on its batch or position
    warp = data.RandomWarp(angle=20, scale=(0.8, 1.2), hmirror=0.5)
    by_key = {k: a for b in data.batches(samples, 2, warp, seed=1) for k, a in zip(b["key"], b["augmentation"])}
    again = {k: a for b in data.batches(samples[::-1], 3, warp, seed=1) for k, a in zip(b["key"], b["augmentation"])}
    assert by_key == again
    other = {k: a for b in data.batches(samples, 2, warp, seed=1, epoch=1) for k, a in zip(b["key"], b["augmentation"])}
    assert all(other[k]["angle"] != by_key[k]["angle"] for k in by_key)
    stage = augpy.image.DecodeWarp(2, (3, 8, 8))
    assert stage(next(data.batches(samples, 2, warp, seed=1)))["image"].shape == (2, 3, 8, 8)
    with pytest.raises(ValueError, match="augpy.data.batches: give seed .* or rng .*, not both"):
        data.batches(samples, 2, seed=1, rng=np.random.default_rng(0))
    with pytest.raises(TypeError, match="augpy.data.batches: augment must return a dict"):
        list(data.batches(samples, 2, lambda rng, k, m: 1.0, seed=1))
    with pytest.raises(ValueError, match="augpy.data.batches: indices ran out at sample 2"):
        list(data.batches(samples, 2, seed=1, indices=[0, 1]))


# ---- hostile sources -------------------------------------------------------------------------------

class SourceBroke(Exception):
    pass


def test_hostile_sources():
    error = SourceBroke("disk gone")

    def broken():
        yield jpeg(1), "a", {}
        yield jpeg(2), "b", {}
        raise error

    with pytest.raises(SourceBroke) as info:
        list(data.batches(broken(), 1, seed=3))
    assert info.value is error  # unchanged, not wrapped
    with pytest.raises(SourceBroke):
        list(data.batches(broken(), 5))

    def augment_breaks(rng, key, metadata):
        raise error

    with pytest.raises(SourceBroke):
        list(data.batches([(b"x", "a", {})], 1, augment_breaks, seed=1))
    for bad in ["/data/a.jpg", 12, None, ["x"]]:
        with pytest.raises(TypeError, match=rf"augpy.data.batches: sample 1 \(key 'k1'\): the data must be "
                                            rf"bytes-like .*, got {type(bad).__name__}"):
            list(data.batches([(b"ok", "k0", {}), (bad, "k1", {})], 4, seed=1))
    assert next(data.batches([(bytearray(b"ok"), "k", {}), (memoryview(b"x"), "m", {})], 2))["key"] == ["k", "m"]
    with pytest.raises(TypeError, match=r"augpy.data.batches: sample 0 must be a \(data, key, metadata\) tuple, "
                                        r"got bytes"):
        list(data.batches([b"just bytes"], 2))
    with pytest.raises(TypeError, match=r"augpy.data.batches: sample 0: key 3.5 cannot name a sample"):
        list(data.batches([(b"x", 3.5, {})], 2, seed=1))
