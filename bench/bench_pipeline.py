"""bench/bench_pipeline.py: DecodeWarp throughput (images/s) with 1 and 2 decoder threads.

A batch of 32 JPEGs (480x640, quality 90, 4:2:0, generated) is decoded and warped to
3x224x224 uint8 with random rotations/scales (s from make_transform; DecodeWarp's default
plans DCT-scaled region decodes, bench_dct_scale.py compares with full decodes). For scale, the
same work done with OpenCV in one thread (cv2.imdecode + cv2.warpAffine, s = 1) is
timed in the same run. Prints images/s and ratios.

    python bench/bench_pipeline.py [--repeat 5]
"""
import argparse
import io
import os

import cv2
import numpy as np
from PIL import Image

import benchutil  # bench/benchutil.py (the script's folder is on sys.path)

import augpy
from augpy.image import DecodeWarp

BATCH = 32


def make_jpegs(n, seed=0):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:480, 0:640]
    out = []
    for i in range(n):
        img = np.stack([(x + 7 * i) % 256, (y + 3 * i) % 256, (x * y // 97) % 256], -1).astype(np.float64)
        img = np.clip(img + rng.normal(0, 6, img.shape), 0, 255).astype(np.uint8)
        buf = io.BytesIO()
        Image.fromarray(img).save(buf, format="JPEG", quality=90)
        out.append(buf.getvalue())
    return out



def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    data = make_jpegs(BATCH)
    rng = np.random.default_rng(1)
    params = [{"angle": float(rng.uniform(-20, 20)), "scale": float(rng.uniform(0.9, 1.2)),
               "hmirror": bool(rng.random() < 0.5)} for _ in range(BATCH)]
    batch = lambda: {"image": data, "augmentation": params}  # noqa: E731

    cv2.setNumThreads(1)

    def opencv():
        for d, p in zip(data, params):
            img = cv2.imdecode(np.frombuffer(d, np.uint8), cv2.IMREAD_COLOR)
            m, _ = augpy.make_transform(img.shape[:2], (224, 224), **p)
            cv2.warpAffine(img, m, (224, 224), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                           borderMode=cv2.BORDER_CONSTANT)

    t_cv = benchutil.best_ms(opencv, args.repeat) / 1e3
    cpu_cv = benchutil.best_cpu_ms(opencv, args.repeat) / BATCH
    print(f"{'case':<52}{'images/s':>10}{'vs cv2 1T':>11}{'CPU-ms/img':>12}")
    print(f"{'cv2.imdecode + cv2.warpAffine, 1 thread':<52}{BATCH / t_cv:10.1f}{1.0:10.2f}x{cpu_cv:12.3f}")
    for threads in (1, 2):
        if threads > (os.cpu_count() or 1):
            continue
        augpy.set_num_threads(threads)
        dw = DecodeWarp(BATCH, (3, 224, 224), cpu_threads=threads)
        t = benchutil.best_ms(lambda: dw(batch()), args.repeat) / 1e3
        benchutil.record("DecodeWarp 32 JPEGs, s from make_transform", threads, BATCH / t,
                         "cv2.imdecode + cv2.warpAffine, 1 thread", BATCH / t_cv, None, unit="images/s")
        print(f"{f'DecodeWarp, cpu_threads={threads} (s from make_transform)':<52}{BATCH / t:10.1f}{t_cv / t:10.2f}x")
        dw.close()
        for p in params:
            p["max_supersampling"] = 1
        dw = DecodeWarp(BATCH, (3, 224, 224), cpu_threads=threads)
        t = benchutil.best_ms(lambda: dw(batch()), args.repeat) / 1e3
        benchutil.record("DecodeWarp 32 JPEGs -> 224^2, s = 1", threads, BATCH / t,
                         "cv2.imdecode + cv2.warpAffine, 1 thread", BATCH / t_cv, float(threads), unit="images/s")
        cpu = benchutil.best_cpu_ms(lambda: dw(batch()), args.repeat) / BATCH
        benchutil.record("DecodeWarp 32 JPEGs -> 224^2, s = 1, CPU time per image", threads, cpu,
                         "cv2.imdecode + cv2.warpAffine, 1 thread", cpu_cv, 1.0)
        print(f"{f'DecodeWarp, cpu_threads={threads}, s=1':<52}{BATCH / t:10.1f}{t_cv / t:10.2f}x{cpu:12.3f}")
        dw.close()
        for p in params:
            del p["max_supersampling"]


if __name__ == "__main__":
    main()
