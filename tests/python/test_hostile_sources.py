"""Hostile folders, paths and tar shards (issue 32, items 3 and 4): a FIFO named x.jpg, a link
to /dev/zero, links that leave the root, a path that is a device; tar shards with a member
larger than its limit, a GNU sparse member that declares far more than it stores, many tiny
members (their headers must not be kept), a key with too many members, reserved member names,
metadata that does not parse, a damaged shard, each handled as on_error says. Memory is
measured with tracemalloc (tarfile's buffers and headers are Python objects)."""
import gzip
import io
import logging
import os
import subprocess
import sys
import tarfile
import tracemalloc

import cv2
import numpy as np
import pytest

import augpy
import augpy.data as data
from conftest import DECODE_ENGINE, ON_CUDA, UNDER_ASAN


def jpeg(seed, h=12, w=16):
    rng = np.random.default_rng(seed)
    return cv2.imencode(".jpg", rng.integers(0, 256, (h, w, 3), dtype=np.uint8))[1].tobytes()


def add(tar, name, raw):
    info = tarfile.TarInfo(name)
    info.size = len(raw)
    tar.addfile(info, io.BytesIO(raw))


# ---- folders and paths ---------------------------------------------------------------------------

@pytest.fixture
def hostile_folder(tmp_path):
    root = tmp_path / "root"
    (root / "cat").mkdir(parents=True)
    (root / "cat" / "a.jpg").write_bytes(jpeg(1))
    os.mkfifo(root / "cat" / "fifo.jpg")
    (root / "cat" / "zero.jpg").symlink_to("/dev/zero")
    (root / "cat" / "inner.jpg").symlink_to(root / "cat" / "a.jpg")  # stays inside: read
    return root


def test_folders_read_regular_files_only(hostile_folder):
    root = hostile_folder
    want = ["cat/a", "cat/inner"]
    assert [k for _, k, _ in data.iter_folder(root, recursive=True)] == want
    assert [os.path.relpath(p, root) for p in data.list_images(root, recursive=True)] == ["cat/a.jpg", "cat/inner.jpg"]
    src = data.FolderSource(root)
    assert src.keys == want and src[1][0] == jpeg(1)
    assert data.list_images(root / "cat") == [str(root / "cat" / "a.jpg"), str(root / "cat" / "inner.jpg")]


def test_links_out_of_the_root(hostile_folder, tmp_path):
    root = hostile_folder
    secret = tmp_path / "secret.jpg"
    secret.write_bytes(b"not for the dataset")
    (root / "cat" / "out.jpg").symlink_to(secret)
    msg = r"leads outside the root, to .*secret.jpg'; pass follow_symlinks=True"
    with pytest.raises(ValueError, match=r"augpy.data.FolderSource: .*out.jpg' " + msg):
        data.FolderSource(root)
    with pytest.raises(ValueError, match=r"augpy.data.iter_folder: .*out.jpg' " + msg):
        list(data.iter_folder(root, recursive=True))
    with pytest.raises(ValueError, match=r"augpy.data.list_images: .*out.jpg' " + msg):
        data.list_images(root / "cat")
    src = data.FolderSource(root, follow_symlinks=True)
    assert src.keys == ["cat/a", "cat/inner", "cat/out"] and src[2][0] == b"not for the dataset"
    got = {k: raw for raw, k, _ in data.iter_folder(root, recursive=True, follow_symlinks=True)}
    assert got["cat/out"] == b"not for the dataset"


def test_a_file_swapped_for_a_fifo_after_listing(hostile_folder):
    """The check is on the open descriptor: a path that became a FIFO after the listing is an
    OSError, not a hang."""
    root = hostile_folder
    src = data.FolderSource(root)
    os.remove(root / "cat" / "a.jpg")
    os.mkfifo(root / "cat" / "a.jpg")
    with pytest.raises(OSError, match=r"augpy.data.FolderSource: not a regular file \(a FIFO\)"):
        src[0]


def test_decoder_refuses_devices_and_fifos(hostile_folder):
    """In a child, so that a regression hangs or eats memory there, not here."""
    code = ("import augpy, sys\n"
            "d = augpy.Decoder()\n"
            "for p in sys.argv[1:]:\n"
            "    try:\n"
            "        d.decode(p)\n"
            "    except OSError as e:\n"
            "        print(type(e).__name__, e)\n")
    fifo, zero = str(hostile_folder / "cat" / "fifo.jpg"), str(hostile_folder / "cat" / "zero.jpg")
    out = subprocess.run([sys.executable, "-c", code, "/dev/zero", fifo, zero], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines == [
        "OSError [Errno 22] Decoder.decode: not a regular file (a character device): '/dev/zero'",
        f"OSError [Errno 22] Decoder.decode: not a regular file (a FIFO): '{fifo}'",
        f"OSError [Errno 22] Decoder.decode: not a regular file (a character device): '{zero}'",
    ]


def test_stage_skips_a_fifo_path(hostile_folder):
    stage = augpy.image.DecodeWarp(2, (3, 8, 8), on_error="skip")
    paths = [str(hostile_folder / "cat" / "a.jpg"), str(hostile_folder / "cat" / "fifo.jpg")]
    out = stage({"image": paths, "augmentation": [{}, {}]})
    assert out["image"].shape[0] == 1 and stage.skipped == 1
    assert "not a regular file (a FIFO)" in out["skipped"][0][2]


@pytest.mark.parametrize("stage", ["DecodeWarp", "ImageNetTrain", "ImageNetEval"])
def test_stage_errors_name_the_stage(hostile_folder, stage):
    fifo = str(hostile_folder / "cat" / "fifo.jpg")
    if stage == "DecodeWarp":
        s, batch = augpy.image.DecodeWarp(1, (3, 8, 8)), {"image": [fifo], "augmentation": [{}]}
    else:
        s, batch = getattr(augpy.image, stage)(1, 8), {"image": [fifo]}
    # DecodeWarp on the nvJPEG engine reads files through Decoder.decode, which names itself
    reader = "Decoder.decode" if DECODE_ENGINE == "nvjpeg" and stage == "DecodeWarp" else f"augpy.image.{stage}"
    with pytest.raises(augpy.DecodeError, match=rf"^{stage}: image 0 .*{reader}: not a regular file "
                                                r"\(a FIFO\)"):
        s(batch)


# ---- tar shards ----------------------------------------------------------------------------------

def test_member_over_its_limit_is_never_read(tmp_path):
    """A 1 MB .tar.gz holding one 64 MiB member: refused by name without reading it, the
    peak Python memory far below the member."""
    path = tmp_path / "bomb.tar.gz"
    with gzip.open(path, "wb", compresslevel=1) as gz, tarfile.open(fileobj=gz, mode="w|") as tar:
        info = tarfile.TarInfo("k.jpg")
        info.size = 64 << 20
        tar.addfile(info, io.BytesIO(bytes(64 << 20)))
        add(tar, "m.jpg", jpeg(2))
    assert os.path.getsize(path) < 1 << 20
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"augpy.data.iter_shards: shard .*bomb.tar.gz', member 'k.jpg': "
                                             r"67108864 bytes, over the limit of 16777216 \(max_image_bytes\)"):
            list(data.iter_shards(str(path), max_image_bytes=16 << 20))
        got = list(data.iter_shards(str(path), max_image_bytes=16 << 20, on_error="skip"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [k for _, k, _ in got] == ["m"]
    assert peak < 8 << 20, peak


def test_sparse_and_special_members_skipped_with_a_warning(tmp_path, caplog):
    path = tmp_path / "s.tar"
    with tarfile.open(path, "w", format=tarfile.GNU_FORMAT) as tar:
        sparse = tarfile.TarInfo("big.jpg")
        sparse.type = tarfile.GNUTYPE_SPARSE
        tar.addfile(sparse)
        link = tarfile.TarInfo("link.jpg")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(link)
        fifo = tarfile.TarInfo("fifo.jpg")
        fifo.type = tarfile.FIFOTYPE
        tar.addfile(fifo)
        add(tar, "ok.jpg", jpeg(3))
    with tarfile.open(path) as t:
        assert t.getmember("big.jpg").issparse()
    with caplog.at_level(logging.WARNING, logger="augpy"):
        got = list(data.iter_shards(str(path)))
    assert [k for _, k, _ in got] == ["ok"]
    text = caplog.text
    assert "skipped member 'big.jpg' (sparse)" in text and "skipped member 'link.jpg' (not a regular file)" in text
    assert "skipped member 'fifo.jpg' (not a regular file)" in text


def test_headers_are_not_kept(tmp_path):
    """20 000 tiny members (no images): tarfile keeps every header in stream mode unless told
    otherwise; the peak stays small whatever the count."""
    path = tmp_path / "many.tar"
    with tarfile.open(path, "w") as tar:
        for i in range(20000):
            add(tar, f"k{i}.txt", b"x")
    tracemalloc.start()
    try:
        assert list(data.iter_shards(str(path))) == []
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20, peak


def test_members_per_key_bounded(tmp_path):
    path = tmp_path / "wide.tar"
    with tarfile.open(path, "w") as tar:
        add(tar, "k.jpg", jpeg(4))
        for i in range(300):
            add(tar, f"k.m{i}.txt", b"x")
        add(tar, "n.jpg", jpeg(5))
    with pytest.raises(ValueError, match=r"shard .*wide.tar', key 'k': more than max_members=256 members"):
        list(data.iter_shards(str(path)))
    assert [k for _, k, _ in data.iter_shards(str(path), on_error="skip")] == ["n"]
    assert [k for _, k, _ in data.iter_shards(str(path), max_members=400)] == ["k", "n"]


def test_reserved_names_and_bad_metadata(tmp_path, caplog):
    path = tmp_path / "meta.tar"
    with tarfile.open(path, "w") as tar:
        add(tar, "a.jpg", jpeg(6))
        add(tar, "a.__shard__", b"elsewhere")
        add(tar, "b.jpg", jpeg(7))
        add(tar, "b.txt", b"\xff\xfe bad utf-8")
        add(tar, "c.jpg", jpeg(8))
        add(tar, "c.json", b"[" * 200000)
        add(tar, "d.jpg", jpeg(9))
        add(tar, "d.cls", b"seven")
        add(tar, "e.jpg", jpeg(10))
        add(tar, "e.cls", b"3")
    with pytest.raises(ValueError, match=r"shard .*meta.tar', member 'a.__shard__': __shard__ is a name augpy reserves"):
        list(data.iter_shards(str(path)))
    with caplog.at_level(logging.WARNING, logger="augpy"):
        got = list(data.iter_shards(str(path), on_error="warn"))
    assert [(k, m) for _, k, m in got] == [("e", {"cls": 3, "__shard__": str(path)})]
    for member, why in (("b.txt", "UnicodeDecodeError"), ("c.json", "RecursionError|JSONDecodeError"),
                        ("d.cls", "ValueError")):
        line = next(s for s in caplog.text.splitlines() if f"member '{member}'" in s)
        assert "cannot be read as" in line and any(w in line for w in why.split("|")), line
    assert list(data.ShardSource(str(path), on_error="skip").samples())[0][1] == "e"


def test_damaged_shard_skipped_for_the_next(tmp_path):
    good, cut = tmp_path / "good.tar", tmp_path / "cut.tar"
    with tarfile.open(good, "w") as tar:
        add(tar, "g.jpg", jpeg(11))
    with tarfile.open(cut, "w") as tar:
        add(tar, "x.jpg", jpeg(12) * 40)
        add(tar, "y.jpg", jpeg(13))
    raw = cut.read_bytes()
    cut.write_bytes(raw[:700])
    with pytest.raises(ValueError, match=r"shard .*cut.tar' is damaged"):
        list(data.iter_shards([str(cut), str(good)]))
    assert [k for _, k, _ in data.iter_shards([str(cut), str(good)], on_error="skip")] == ["g"]


@pytest.mark.parametrize("kw,exc,msg", [
    ({"on_error": "ignore"}, ValueError, "on_error must be 'raise', 'skip' or 'warn'"),
    ({"max_image_bytes": 0}, ValueError, "max_image_bytes must be >= 1, got 0"),
    ({"max_meta_bytes": 1.5}, TypeError, "max_meta_bytes must be an int, got float"),
    ({"max_members": True}, TypeError, "max_members must be an int, got bool"),
])
def test_shard_options_checked(kw, exc, msg):
    with pytest.raises(exc, match="augpy.data.iter_shards: " + msg):
        data.iter_shards("a.tar", **kw)
    with pytest.raises(exc, match="augpy.data.ShardSource: " + msg):
        data.ShardSource("a.tar", **kw)


# ---- PNG memory (issue 32, item 5) ---------------------------------------------------------------

PNG_CHILD = r'''
import resource
import cv2, numpy as np
import augpy

data = cv2.imencode(".png", np.zeros((8192, 8192), np.uint8))[1].tobytes()
dec = augpy.Decoder()
dec.decode(cv2.imencode(".png", np.zeros((8, 8), np.uint8))[1].tobytes(), mode="gray")  # warm up
def rss_mb():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmRSS")) / 1024
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t = dec.decode(data, mode="gray")
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
del t
print("%.0f %.0f" % (peak - before, rss_mb()))
'''


@pytest.mark.skipif(UNDER_ASAN or ON_CUDA, reason="the CPU decoder's memory (ASan's allocator and a CUDA "
                                                  "decoder's staging and device copy add their own)")
def test_png_decoded_row_by_row():
    """An 8192 x 8192 gray PNG (65 KB) to gray: the output is 64 MiB; the RGBA scratch of the
    whole image (256 MiB more) is gone, and nothing large is kept after the result is freed."""
    out = subprocess.run([sys.executable, "-c", PNG_CHILD], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    growth, held = map(float, out.stdout.split())
    assert growth < 64 + 40, out.stdout  # the output and a few rows, not 64 + 256 MiB
    assert held < 200, out.stdout


def test_a_declared_size_past_the_end_is_not_spun_through(tmp_path):
    """A cut tar whose member declares 8 GiB (octal) or 2^80 bytes (GNU base-256): tarfile's own
    skip of a stream reads on for the declared size after the end of the data (8 s for the
    first); the reader drains what is there and calls the shard damaged at once."""
    import time
    for size_field in (b"%011o\0" % ((1 << 33) - 1), b"\x80" + (1 << 80).to_bytes(11, "big")):
        path = tmp_path / "claims.tar"
        with tarfile.open(path, "w", format=tarfile.GNU_FORMAT) as tar:
            add(tar, "a.jpg", jpeg(20))
            add(tar, "b.jpg", jpeg(21) * 3)
        raw = bytearray(path.read_bytes())
        second = 512 + (len(jpeg(20)) + 511) // 512 * 512
        raw[second + 124:second + 136] = size_field
        block = bytearray(raw[second:second + 512])
        block[148:156] = b" " * 8
        raw[second + 148:second + 156] = b"%06o\0 " % sum(block)
        path.write_bytes(bytes(raw[:second + 2048]))
        t0 = time.monotonic()
        with pytest.raises(ValueError, match=r"shard .*claims.tar' is damaged"):
            list(data.iter_shards(str(path)))
        assert [k for _, k, _ in data.iter_shards(str(path), on_error="skip")] == ["a"]
        assert time.monotonic() - t0 < 2.0


def test_fuzz_shards_smoke():
    """tests/python/fuzz_shards.py (make fuzz-python runs it longer) for a few seconds."""
    import fuzz_shards
    assert fuzz_shards.main(["--seconds", "4", "--seed", "7"]) == 0


# ---- errors that did not help (issue 32, item 6) --------------------------------------------------

def test_squeeze_with_a_sequence_whose_len_raises():
    class Bad(list):
        def __len__(self):
            raise RuntimeError("hostile __len__")
    with pytest.raises(RuntimeError, match="hostile __len__"):  # was SystemError
        augpy.zeros((1, 3, 1)).squeeze(Bad([0]))


def test_thread_count_states_the_enforced_range():
    before = augpy.get_num_threads()
    try:
        with pytest.raises(ValueError, match=r"set_num_threads: 1000000 threads requested; at most 256 are supported"):
            augpy.set_num_threads(10**6)
        with pytest.raises(ValueError, match=r"set_num_threads: thread count 10{20} is out of range of a C int "
                                             r"\(at most 256 threads are supported"):
            augpy.set_num_threads(10**20)
    finally:
        augpy.set_num_threads(before)


def test_rebuild_tensor_layout_is_checked_as_the_setter_checks_it():
    """_rebuild_tensor (pickle's reconstructor) read a layout's UTF-8 bytes as characters."""
    for layout in ("éé", "H\x00"):
        with pytest.raises(ValueError, match=r"_rebuild_tensor: layout .* must be ASCII characters, one per dimension"):
            augpy._augpy._rebuild_tensor(bytes(24), (2, 3), augpy.float32, "cpu", layout)
    assert augpy._augpy._rebuild_tensor(bytes(24), (2, 3), augpy.float32, "cpu", "HW").layout == "HW"
