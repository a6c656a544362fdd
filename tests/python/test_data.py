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
