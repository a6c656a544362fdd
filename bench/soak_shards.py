"""bench/soak_shards.py: a memory soak of the tar-shard loader over hostile shards (issue 32).

Builds a folder of WebDataset-style tar shards that a careless reader would choke on, mixed
with valid JPEG and PNG samples, then runs ``augpy.data.ShardSource`` -> ``augpy.torch.
StageDataset`` (DecodeWarp, ``on_error='skip'``) through a DataLoader with 2 persistent
workers, epoch after epoch, for ``--seconds``. Every second it samples the RSS of the main
process and of each worker (psutil when installed, else /proc). The shards:

- ``valid-*.tar``: JPEG (augpy's samples, and synthetic ones) and PNG images with .cls/.json;
- ``bomb.tar.gz``: one member of 1 GiB of zeros, 4.7 MB compressed (over max_image_bytes:
  never held, but a gzip stream must be inflated to skip it, seconds of CPU per epoch);
- ``claims.tar``: headers claiming members of 1 GiB and 8 GiB, cut short after 4 KiB;
- ``sparse.tar``: a GNU sparse member declaring 1 GiB (2 KB on disk);
- ``tiny.tar``: 20 000 one-byte members, and one key with 1 000 members (over max_members);
- ``meta.tar``: bad UTF-8, bad JSON, JSON nested 200 000 deep, a bad int, reserved names;
- ``badimg.tar``: a truncated JPEG, bytes that are no image, a PNG cut short, an 8192 x 8192
  PNG of zeros (144 KB: a decode of 192 MiB of pixels, inside the default max_pixels);
- ``truncated.tar`` and ``truncated.tar.gz``: valid shards cut in the middle of a member.

It prints the batches, the skipped samples, and the peak and final RSS of the main process
and of each worker, and exits 1 when a bound is broken: any process's RSS over --max-rss-mb
(default 1024; the peaks come from the 8192 x 8192 decode, about +200 MB for a moment), or a
process whose lowest RSS over the last 20 % of the run is more than --max-growth-mb (default
64) above its lowest over 20-40 % of it (a leak raises the floor; the first epochs'
allocations and one decode's transient peak do not count). Not part of ``make test``
(minutes). Run it from a build:

    PYTHONPATH=build/pkg python bench/soak_shards.py --seconds 120

Without torch the project's stand-in (tests/python/torch_standin.py, a faithful model of
DataLoader's worker processes) is used; ``--torch`` insists on the real one."""
import argparse
import functools
import gzip
import io
import json
import os
import sys
import tarfile
import tempfile
import threading
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LIMITS = dict(max_image_bytes=16 << 20, max_meta_bytes=64 << 10, max_members=256)


# ---- the shards --------------------------------------------------------------------------------

def _add(tar, name, raw):
    info = tarfile.TarInfo(name)
    info.size = len(raw)
    tar.addfile(info, io.BytesIO(raw))


def _images():
    """A few valid (extension, bytes): augpy's sample JPEGs and synthetic JPEG/PNG files."""
    import cv2
    out = []
    samples = os.path.join(ROOT, "python", "augpy", "samples")
    for name in sorted(os.listdir(samples))[:4]:
        if name.endswith(".jpg"):
            with open(os.path.join(samples, name), "rb") as f:
                out.append((".jpg", f.read()))
    rng = np.random.default_rng(0)
    for k in range(4):
        img = rng.integers(0, 256, (96 + 16 * k, 128, 4), np.uint8)
        out.append((".jpg", cv2.imencode(".jpg", img[:, :, :3])[1].tobytes()))
        out.append((".png", cv2.imencode(".png", img[:, :, :(1, 3, 4, 3)[k]])[1].tobytes()))
    return out


def _header(name, size, typeflag=b"0", extra=None):
    """A raw GNU tar header block (checksum filled in); extra: {offset: bytes}."""
    h = bytearray(512)
    h[0:len(name)] = name.encode()
    h[100:108] = b"0000644\0"
    h[108:116] = h[116:124] = b"0000000\0"
    h[124:136] = b"%011o\0" % size if size < 8 ** 11 else b"\x80" + size.to_bytes(11, "big")
    h[136:148] = b"%011o\0" % 0
    h[156:157] = typeflag
    h[257:265] = b"ustar  \0"  # GNU magic
    for off, raw in (extra or {}).items():
        h[off:off + len(raw)] = raw
    h[148:156] = b" " * 8
    h[148:156] = b"%06o\0 " % sum(h)
    return bytes(h)


def build_shards(d):
    images = _images()
    paths = []

    def valid(path, n, start):
        with tarfile.open(path, "w") as tar:
            for i in range(n):
                ext, raw = images[(start + i) % len(images)]
                key = f"s{start + i:06d}"
                _add(tar, key + ext, raw)
                _add(tar, key + ".cls", str(i % 10).encode())
                _add(tar, key + ".json", json.dumps({"i": i, "tags": ["a", "b"]}).encode())
        return path

    for k in range(4):
        paths.append(valid(os.path.join(d, f"valid-{k}.tar"), 24, 100 * k))

    # a gzip bomb: 1 GiB of zeros in one member, about 1 MB compressed (written in chunks)
    bomb = os.path.join(d, "bomb.tar.gz")
    with open(bomb, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=1) as gz:
        gz.write(_header("bomb/x.jpg", 1 << 30))
        zero = bytes(1 << 22)
        for _ in range(256):
            gz.write(zero)
        gz.write(bytes(1024))
    paths.append(bomb)

    # members claiming far more than the file holds
    with open(os.path.join(d, "claims.tar"), "wb") as f:
        f.write(_header("c1.jpg", 1 << 30) + b"\xff\xd8\xff" + bytes(4093))
        f.write(_header("c2.png", 8 << 30) + bytes(4096))
    paths.append(os.path.join(d, "claims.tar"))

    # a GNU sparse member: 512 bytes stored, a real size of 1 GiB (sparse map at 386, realsize at 483)
    sparse = os.path.join(d, "sparse.tar")
    entry = b"%011o\0" % ((1 << 30) - 512) + b"%011o\0" % 512
    with open(sparse, "wb") as f:
        f.write(_header("sp.jpg", 512, b"S", {386: entry, 483: b"%011o\0" % (1 << 30)}) + bytes(512))
        f.write(bytes(1024))  # the end-of-archive blocks
    paths.append(sparse)

    # many tiny members, and one key with 1000 members
    tiny = os.path.join(d, "tiny.tar")
    with tarfile.open(tiny, "w") as tar:
        for i in range(20000):
            _add(tar, f"t{i:06d}.cls", b"1")
        for i in range(1000):
            _add(tar, f"many.m{i}.txt", b"x")
        ext, raw = images[0]
        _add(tar, "many" + ext, raw)
    paths.append(tiny)

    # metadata that does not parse, and reserved names
    meta = os.path.join(d, "meta.tar")
    ext, raw = images[1]
    with tarfile.open(meta, "w") as tar:
        for key, mext, mraw in [("m1", ".txt", b"\xff\xfe\xfd"), ("m2", ".json", b"{not json"),
                                ("m3", ".json", b"[" * 200000 + b"]" * 200000), ("m4", ".cls", b"seven"),
                                ("m5", ".__shard__", b"x"), ("m6", ".__key__", b"x"),
                                ("m7", ".json", b"[" * 100 + b"]" * 100)]:
            _add(tar, key + ext, raw)
            _add(tar, key + mext, mraw)
    paths.append(meta)

    # images the decoder refuses, and a big (but allowed) one
    import cv2
    badimg = os.path.join(d, "badimg.tar")
    jpg = images[0][1]
    png = cv2.imencode(".png", np.zeros((64, 64, 3), np.uint8))[1].tobytes()
    big = cv2.imencode(".png", np.zeros((8192, 8192), np.uint16))[1].tobytes()
    with tarfile.open(badimg, "w") as tar:
        for key, ext, data in [("b1", ".jpg", jpg[:len(jpg) // 2]), ("b2", ".jpg", b"no image at all"),
                               ("b3", ".png", png[:len(png) - 20]), ("b4", ".png", big),
                               ("b5", ".jpg", b"\xff\xd8\xff" + os.urandom(3000))]:
            _add(tar, key + ext, data)
            _add(tar, key + ".cls", b"2")
    paths.append(badimg)

    # valid shards cut in the middle of a member
    whole = valid(os.path.join(d, "whole.tmp"), 12, 900)
    with open(whole, "rb") as f:
        raw = f.read()
    os.remove(whole)
    with open(os.path.join(d, "truncated.tar"), "wb") as f:
        f.write(raw[:len(raw) * 2 // 3 + 100])
    gz = gzip.compress(raw)
    with open(os.path.join(d, "truncated.tar.gz"), "wb") as f:
        f.write(gz[:len(gz) // 2])
    paths += [os.path.join(d, "truncated.tar"), os.path.join(d, "truncated.tar.gz")]
    return paths


# ---- RSS ---------------------------------------------------------------------------------------

def _children(pid):
    """Child pids of pid (psutil, else /proc/*/stat)."""
    try:
        import psutil
        return [c.pid for c in psutil.Process(pid).children(recursive=True)]
    except ImportError:
        pass
    kids = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            if int(stat[stat.rindex(")") + 2:].split()[1]) == pid:
                kids.append(int(name))
    return kids


def _rss_mb(pid):
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20
    except (OSError, ValueError, IndexError):
        return None


class Sampler(threading.Thread):
    """RSS of this process and its children, every `period` seconds: {pid: [(t, MB), ...]}."""

    def __init__(self, period=1.0):
        super().__init__(daemon=True)
        self.period, self.samples, self.stop = period, {}, threading.Event()
        self.t0 = time.monotonic()

    def sample(self):
        me = os.getpid()
        for pid in [me] + _children(me):
            mb = _rss_mb(pid)
            if mb is not None:
                self.samples.setdefault(pid, []).append((time.monotonic() - self.t0, mb))

    def run(self):
        while not self.stop.wait(self.period):
            self.sample()


# ---- the soak ----------------------------------------------------------------------------------

def make_stages(batch):
    import augpy.image
    return augpy.image.DecodeWarp(batch, (3, 64, 64), on_error="skip")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=120.0)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--max-rss-mb", type=float, default=1024.0)
    p.add_argument("--max-growth-mb", type=float, default=64.0)
    p.add_argument("--dir", default=None, help="build the shards here (default: a temporary folder)")
    p.add_argument("--torch", action="store_true", help="require the real torch")
    a = p.parse_args(argv)

    try:
        import torch  # noqa: F401
        which = "torch " + torch.__version__
    except ImportError:
        if a.torch:
            raise
        sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
        import torch_standin
        torch_standin.install()
        which = "the torch stand-in (tests/python/torch_standin.py)"
    import logging
    import torch.utils.data
    import augpy.data
    import augpy.torch
    logging.getLogger("augpy").setLevel(logging.ERROR)  # every hostile shard warns, by design

    tmp = None if a.dir else tempfile.TemporaryDirectory()
    d = a.dir or tmp.name
    os.makedirs(d, exist_ok=True)
    t = time.monotonic()
    shards = build_shards(d)
    size = sum(os.path.getsize(s) for s in shards)
    print(f"soak_shards: {len(shards)} shards, {size / 2**20:.1f} MB on disk, built in {time.monotonic() - t:.1f} s; "
          f"{which}, {a.workers} workers, limits {LIMITS}")

    source = augpy.data.ShardSource(shards, on_error="skip", **LIMITS)
    ds = augpy.torch.StageDataset(source, functools.partial(make_stages, a.batch), a.batch, seed=1, shuffle=True,
                                  shuffle_buffer=64, on_error="skip")
    loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=a.workers, persistent_workers=a.workers > 0)
    sampler = Sampler()
    sampler.sample()
    sampler.start()
    t0, batches, images, skipped, epoch = time.monotonic(), 0, 0, 0, 0
    while time.monotonic() - t0 < a.seconds:
        ds.set_epoch(epoch)
        for batch in loader:
            batches += 1
            images += int(batch["image"].shape[0])
            skipped += len(batch.get("skipped", ()))
            if time.monotonic() - t0 >= a.seconds:
                break
        epoch += 1
    elapsed = time.monotonic() - t0
    sampler.stop.set()
    sampler.join()
    sampler.sample()
    del loader  # ends the workers
    if tmp is not None:
        tmp.cleanup()

    print(f"soak_shards: {elapsed:.0f} s, {epoch} epoch(s) started, {batches} batches, {images} images, "
          f"{skipped} skipped samples")
    bad = []
    me = os.getpid()

    def floor(s, lo, hi):
        """The lowest RSS sampled between fractions lo and hi of the run: what a leak raises,
        where the transient peak of one big decode does not count."""
        return min([mb for t, mb in s if lo * elapsed <= t < hi * elapsed] or [s[-1][1]])

    for pid, s in sorted(sampler.samples.items(), key=lambda kv: kv[0] != me):
        if len(s) < 3:
            continue
        name = "main" if pid == me else f"worker {pid}"
        peak = max(mb for _, mb in s)
        base, end = floor(s, 0.2, 0.4), floor(s, 0.8, 1.01)
        print(f"  {name:>14}: start {s[0][1]:6.1f} MB, peak {peak:6.1f} MB, final {s[-1][1]:6.1f} MB; lowest "
              f"{base:6.1f} MB over 20-40 % of the run, {end:6.1f} MB over the last 20 %: {end - base:+6.1f} MB "
              f"({len(s)} samples)")
        if peak > a.max_rss_mb:
            bad.append(f"{name}: peak RSS {peak:.0f} MB over --max-rss-mb {a.max_rss_mb:.0f}")
        if end - base > a.max_growth_mb:
            bad.append(f"{name}: grew {end - base:.0f} MB from 20-40 % of the run to its last 20 % "
                       f"(--max-growth-mb {a.max_growth_mb:.0f})")
    if batches == 0:
        bad.append("no batch came out")
    for b in bad:
        print("FAIL " + b)
    print("soak_shards: " + ("FAILED" if bad else "ok: RSS bounded"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
