"""A mutation fuzzer for augpy.data's tar-shard reader (augpy/_shards.py).

Each input starts as a small valid WebDataset-style tar (plain, or gzip-compressed) and
is mutated: random bytes flipped, a header's size / type / name field rewritten (a size
of gigabytes, a sparse or device type, a reserved name), members repeated under one key,
cut short, or bytes inserted. It is read with on_error='raise' (the only exception allowed
is ValueError, which must name the function and the shard) and with on_error='skip'
(nothing may be raised at all), with small limits, under tracemalloc: the reader's peak
must stay within a few times its limits whatever the header claims. A finding prints the
seed and the input number; --replay runs one input again.

    python fuzz_shards.py --seconds 600 --seed 1
    python fuzz_shards.py --seed 1 --replay 1234
"""
import argparse
import gzip
import io
import os
import random
import sys
import tarfile
import tempfile
import time
import tracemalloc

import augpy.data as data

LIMITS = dict(max_image_bytes=64 << 10, max_meta_bytes=8 << 10, max_members=16)
PEAK = 4 << 20  # bytes the reader may hold at once with these limits


def valid_tar(rng):
    f = io.BytesIO()
    with tarfile.open(fileobj=f, mode="w", format=rng.choice([tarfile.USTAR_FORMAT, tarfile.GNU_FORMAT,
                                                               tarfile.PAX_FORMAT])) as tar:
        for k in range(rng.randint(1, 6)):
            key = f"dir{rng.randint(0, 2)}/s{k}"
            for ext, raw in ((".jpg", b"\xff\xd8" + bytes(rng.randint(0, 300))),
                             (".cls", str(rng.randint(0, 9)).encode()),
                             (".json", b'{"a": [1, 2, {"b": "c"}]}'), (".txt", "caption é".encode())):
                if rng.random() < 0.8:
                    info = tarfile.TarInfo(key + ext)
                    info.size = len(raw)
                    tar.addfile(info, io.BytesIO(raw))
    return bytearray(f.getvalue())


def octal(n, width):
    return (b"%0*o" % (width - 1, n))[-(width - 1):] + b"\0"


def headers_of(buf):
    return [i for i in range(0, len(buf) - 511, 512) if buf[i + 257:i + 262] == b"ustar"]


def mutate(rng, buf):
    for _ in range(rng.randint(1, 4)):
        headers = headers_of(buf)
        kind = rng.randrange(8)
        if kind == 0 and buf:  # flip bytes
            for _ in range(rng.randint(1, 8)):
                buf[rng.randrange(len(buf))] = rng.randrange(256)
        elif kind == 1 and headers:  # a size of up to gigabytes
            h = rng.choice(headers)
            buf[h + 124:h + 136] = octal(rng.choice([0, 1, 511, 513, 1 << 20, 1 << 30, (1 << 33) - 1]), 12)
        elif kind == 2 and headers:  # another type: sparse, links, devices, FIFOs, folders, pax, GNU long name
            h = rng.choice(headers)
            buf[h + 156] = rng.choice(b"0123456SLKgxD")
        elif kind == 3 and headers:  # a reserved, empty or odd name
            h = rng.choice(headers)
            name = rng.choice([b"k.__shard__", b"k.__key__", b"", b".jpg", b"a..jpg", b"../../x.jpg", b"\xff\xfe.txt"])
            buf[h:h + 100] = name.ljust(100, b"\0")
        elif kind == 4:  # cut short
            del buf[rng.randrange(len(buf) + 1):]
        elif kind == 5 and buf:  # bytes inserted
            at = rng.randrange(len(buf))
            buf[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 700)))
        elif kind == 6 and headers:  # a header repeated: members under one key
            h = rng.choice(headers)
            buf[h:h] = buf[h:h + 512] * rng.randint(1, 40)
        elif kind == 7 and headers:  # a bad checksum or a bad octal field
            h = rng.choice(headers)
            buf[h + 148 + rng.randrange(8)] = rng.choice(b"9x \0")
    for h in headers_of(buf):  # checksums right most of the time, so that the mutations get past them
        if rng.random() < 0.8:
            block = bytearray(buf[h:h + 512])
            block[148:156] = b" " * 8
            buf[h + 148:h + 156] = octal(sum(block), 7) + b" "
    return bytes(gzip.compress(bytes(buf), 1) if rng.random() < 0.25 else buf)


def run_one(seed, i, path):
    """None when input i of seed behaves, else the finding (a string)."""
    rng = random.Random(f"{seed}:{i}")
    raw = mutate(rng, valid_tar(rng))
    with open(path, "wb") as f:
        f.write(raw)
    for on_error in ("raise", "skip"):
        tracemalloc.start()
        try:
            list(data.iter_shards(path, on_error=on_error, **LIMITS))
        except ValueError as e:
            if on_error == "skip":
                return f"on_error='skip' raised ValueError: {e}"
            if not str(e).startswith("augpy.data.iter_shards: ") or repr(path)[1:-1] not in str(e):
                return f"a ValueError that names no function or shard: {e}"
        except Exception as e:  # noqa: BLE001 - any other exception is the finding
            return f"{type(e).__name__} with on_error={on_error!r}: {e}"
        finally:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        if peak > PEAK:
            return f"peak {peak} bytes with on_error={on_error!r} (limits {LIMITS})"
    return None


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--replay", type=int, default=None)
    a = p.parse_args(argv)
    import logging
    logging.getLogger("augpy").setLevel(logging.ERROR)  # the reader's warnings are expected here
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "shard.tar")
        if a.replay is not None:
            print(run_one(a.seed, a.replay, path) or "no finding")
            return 0
        t0, i, findings = time.monotonic(), 0, 0
        while time.monotonic() - t0 < a.seconds:
            bad = run_one(a.seed, i, path)
            if bad:
                findings += 1
                print(f"input {i}: {bad}\n  replay: python fuzz_shards.py --seed {a.seed} --replay {i}")
            i += 1
        print(f"fuzz_shards: seed {a.seed}: {i} inputs in {time.monotonic() - t0:.1f} s, {findings} finding(s)")
        return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
