"""JPEG decode benchmark (semantics §18: >= 0.95x libjpeg-turbo's own tjbench; batch
decode scales with threads).

One 480x640 image (gradients + noise, quality 90, 4:2:0), generated with Pillow,
decoded with augpy.Decoder, with Pillow (Image.open().convert('RGB') + np.asarray,
and Image.open().load()), and with `tjbench FILE -quiet -rgb -nowrite` (decode only:
a JPEG input makes tjbench decompress, RGB output as augpy). Prints images/s and
the ratios (augpy and tjbench are measured alternately, twice, best kept). Then N
images decoded from 1 and 2 (or more) Python threads, one Decoder per thread (the
GIL is released while decoding).

    PYTHONPATH=build/pkg python bench/bench_decode.py [--seconds 2] [--threads 1,2]
"""
import argparse
import io
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time

import numpy as np
from PIL import Image

import benchutil  # bench/benchutil.py (the script's folder is on sys.path)

import augpy


def make_jpeg(h=480, w=640, seed=0, quality=90):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    img = np.stack([x * 255 // (w - 1), y * 255 // (h - 1), (x + y) * 127 // (h + w - 2)], -1)
    img = np.clip(img + rng.integers(-25, 26, (h, w, 3)), 0, 255).astype(np.uint8)
    b = io.BytesIO()
    Image.fromarray(img).save(b, "JPEG", quality=quality, subsampling=2)  # 2 = 4:2:0
    return b.getvalue()


def rate(fn, seconds):
    """Calls per second: best of 3 rounds of about seconds/3 each."""
    fn()
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < 0.05:
        fn()
        n += 1
    per_round = max(1, int(n * seconds / 3 / 0.05))
    best = 0.0
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(per_round):
            fn()
        best = max(best, per_round / (time.perf_counter() - t0))
    return best


def tjbench_rate(data, h, w, seconds):
    """Images/s of tjbench's decompression (Mpixels/s / megapixels), or None."""
    exe = shutil.which("tjbench")
    if exe is None:
        return None
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "bench.jpg")
        with open(path, "wb") as f:
            f.write(data)
        out = subprocess.run([exe, path, "-quiet", "-rgb", "-nowrite", "-benchtime", str(seconds), "-warmup", "0.5"],
                             capture_output=True, text=True, cwd=d, check=True).stdout
    # Last line: "RGB  (TD)  YCbCr  4:2:0  640  480  N/A  N/A  179.9"; the last field is Decomp Perf.
    rows = [ln for ln in out.splitlines() if re.match(r"^\w+\s+\(", ln)]
    mpix = float(rows[-1].split()[-1])
    return mpix * 1e6 / (h * w)


def thread_rate(datas, nthreads, seconds):
    """Images/s decoding the list from nthreads threads, one Decoder each."""
    stop = time.perf_counter() + seconds
    counts = [0] * nthreads
    start = threading.Barrier(nthreads + 1)

    def work(i):
        dec = augpy.Decoder()
        start.wait()
        k = 0
        while time.perf_counter() < stop:
            dec.decode(datas[k % len(datas)])
            k += 1
        counts[i] = k

    threads = [threading.Thread(target=work, args=(i,)) for i in range(nthreads)]
    for t in threads:
        t.start()
    t0 = time.perf_counter()
    stop = t0 + seconds
    start.wait()
    for t in threads:
        t.join()
    return sum(counts) / (time.perf_counter() - t0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--threads", default="1,2")
    args = ap.parse_args()
    h, w = 480, 640
    data = make_jpeg(h, w)
    dec = augpy.Decoder()
    buf = augpy.zeros((h * w * 3,), augpy.uint8)
    assert np.array_equal(dec.decode(data).numpy(), np.asarray(Image.open(io.BytesIO(data)).convert("RGB")))

    # augpy and tjbench alternate twice and each keeps its best: the machine may be shared.
    ours, tj = 0.0, None
    for _ in range(2):
        ours = max(ours, rate(lambda: dec.decode(data), args.seconds))
        t = tjbench_rate(data, h, w, args.seconds)
        tj = t if tj is None else max(tj, t)
    res = {
        "augpy Decoder.decode": ours,
        "augpy Decoder.decode(buffer=)": rate(lambda: dec.decode(data, buf), args.seconds),
        "Pillow open().convert('RGB') + asarray":
            rate(lambda: np.asarray(Image.open(io.BytesIO(data)).convert("RGB")), args.seconds),
        "Pillow open().load()": rate(lambda: Image.open(io.BytesIO(data)).load(), args.seconds),
    }
    print(f"JPEG {w}x{h}, quality 90, 4:2:0, {len(data)} bytes; augpy {augpy.__version__}")
    print(f"{'decoder':42s} {'images/s':>10s} {'augpy / it':>11s}")
    ref = res["augpy Decoder.decode"]
    for name, r in res.items():
        if name.startswith("Pillow"):
            benchutil.record("JPEG decode 640x480", 1, ref, name, r, None, unit="images/s")
        elif name != "augpy Decoder.decode":
            benchutil.record("JPEG decode 640x480 (buffer=)", 1, r, "augpy Decoder.decode", ref, None, unit="images/s")
        print(f"{name:42s} {r:10.1f} {ref / r:10.2f}x")
    if tj is None:
        print("tjbench not found (Debian: libjpeg-turbo-progs)")
    else:
        benchutil.record("JPEG decode 640x480", 1, ref, "tjbench -rgb", tj, 0.95, unit="images/s")
        print(f"{'tjbench (libjpeg-turbo, decode to RGB)':42s} {tj:10.1f} {ref / tj:10.2f}x   (target >= 0.95x)")

    datas = [make_jpeg(h, w, seed=s) for s in range(8)]
    print(f"\nbatch decode, one Decoder per thread ({os.cpu_count()} cores):")
    base = None
    for n in [int(x) for x in args.threads.split(",")]:
        r = thread_rate(datas, n, args.seconds)
        base = base or r
        if n > 1:
            benchutil.record(f"batch decode, {n} threads", n, r, "augpy, 1 thread", base, None, unit="images/s")
        print(f"  {n} thread(s): {r:8.1f} images/s  ({r / base:.2f}x of 1 thread)")


if __name__ == "__main__":
    main()
