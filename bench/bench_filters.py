"""bench/bench_filters.py: the semantics §18 blur and lighting targets, called from Python
through augpy (the binding is in the timed path), against OpenCV in the same run.

One 480x640 RGB uint8 image: (3, 480, 640) "CHW" for augpy, (480, 640, 3) "HWC" for
OpenCV (the same 921600 values either way).

  - gaussian_blur_single(sigma=2)   vs cv2.GaussianBlur(img, (k, k), 2, borderType=BORDER_REPLICATE),
                                       k = 11, the kernel size augpy derives from sigma 2
  - box_blur_single(5)              vs cv2.blur(img, (5, 5), borderType=BORDER_REPLICATE)
  - lighting (contrast, gamma)      vs cv2.LUT(img, table) with a precomputed 256x3 table
                                       (augpy builds its 3 tables inside the timed call)

First on one core (augpy.set_num_threads(1), cv2.setNumThreads(1)), then on all
cores. Best of REPS runs with time.perf_counter; ratio = OpenCV time / augpy time
(> 1: augpy faster). Outputs are preallocated for both.

    python bench/bench_filters.py

The machine may be shared: run it a few times and take the best figures.
"""
import functools
import os

import cv2
import numpy as np

import benchutil  # bench/benchutil.py (the script's folder is on sys.path)

import augpy

REPS = 30
best_ms = functools.partial(benchutil.best_ms, reps=REPS)



def f_pos(v):
    return 1.0037575963899724 / (1.0 + np.exp(6.279 - 12.558 * v)) - 0.0018787981949862


def run(threads, hwc, chw):
    augpy.set_num_threads(threads)
    cv2.setNumThreads(threads)
    t = augpy.array_to_tensor(chw)
    tout = augpy.array_to_tensor(np.empty_like(chw))
    dst = np.empty_like(hwc)
    sigma = 2.0
    k = max(3, int(sigma * 6.6 - 2.3) | 1)
    rows = []

    ours = best_ms(lambda: augpy.gaussian_blur_single(t, sigma, out=tout))
    peer = best_ms(lambda: cv2.GaussianBlur(hwc, (k, k), sigma, dst=dst, borderType=cv2.BORDER_REPLICATE))
    rows.append((f"gaussian sigma=2 (k={k})", ours, "cv2.GaussianBlur", peer))

    ours = best_ms(lambda: augpy.box_blur_single(t, 5, out=tout))
    peer = best_ms(lambda: cv2.blur(hwc, (5, 5), dst=dst, borderType=cv2.BORDER_REPLICATE))
    rows.append(("box 5x5", ours, "cv2.blur", peer))

    b = augpy.array_to_tensor(chw[None])
    bout = augpy.array_to_tensor(np.empty_like(chw[None]))
    gg = augpy.array_to_tensor(np.array([1.2], np.float32))
    gc = augpy.array_to_tensor(np.array([0.9, 1.0, 1.1], np.float32))
    ct = augpy.array_to_tensor(np.array([0.4], np.float32))
    v = np.arange(256) / 255.0
    v = 0.6 * v + 0.4 * f_pos(v)
    table = np.stack([np.rint(np.power(v, 1.2 * g) * 255) for g in (0.9, 1.0, 1.1)], -1)
    table = np.clip(table, 0, 255).astype(np.uint8).reshape(1, 256, 3)
    ours = best_ms(lambda: augpy.lighting(b, gg, gc, ct, 0.0, 255.0, out=bout))
    peer = best_ms(lambda: cv2.LUT(hwc, table, dst=dst))
    rows.append(("lighting (uint8)", ours, "cv2.LUT", peer))

    print(f"\n{threads} thread(s)")
    for name, ours, pname, peer in rows:
        benchutil.record(name, threads, ours, pname, peer, 1.0)
        print(f"  {name:26s} augpy {ours:8.3f} ms   {pname:17s} {peer:8.3f} ms   ratio {peer / ours:5.2f}x")


def main():
    rng = np.random.default_rng(0)
    # a smooth-ish photo stand-in: noise plus gradients (content does not change the timings)
    y, x = np.mgrid[0:480, 0:640]
    hwc = np.stack([(x * 255 // 639), (y * 255 // 479), ((x + y) % 256)], -1).astype(np.int32)
    hwc = np.clip(hwc + rng.integers(-20, 21, hwc.shape), 0, 255).astype(np.uint8)
    chw = np.ascontiguousarray(hwc.transpose(2, 0, 1))
    print(f"bench_filters: 480x640x3 uint8, cv2 {cv2.__version__}, {os.cpu_count()} cpus")
    run(1, hwc, chw)
    n = os.cpu_count() or 1
    if n > 1:
        run(n, hwc, chw)


if __name__ == "__main__":
    main()
