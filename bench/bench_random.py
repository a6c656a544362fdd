"""bench/bench_random.py: random fills (semantics §11) called from Python through augpy,
against NumPy's Philox bit generator in the same run.

  - float32 uniform [0, 1), 64 MiB     vs Generator(Philox(seed)).random(out=, dtype=float32)
  - float32 gaussian (0, 1), 64 MiB    vs Generator(Philox(seed)).standard_normal(out=, dtype=float32)
  - uint8 image + gaussian noise, 16 Mi values, in place: the fused
    RandomNumberGenerator.gaussian_noise(img, std, out=img) vs the two steps it replaces,
    a float32 gaussian fill then augpy.fma(std, noise, img, out=img) (same generator)
  - one 224x224x3 uint8 image + gaussian noise std 8, in place, CPU-ms per image (issue 33's
    pipeline stage): gaussian_noise (the integer rule) vs OpenCV by hand, cv2.randn into an int16
    buffer + the saturating cv2.add(img, noise, dtype=CV_8U) (skipped without cv2)

augpy's fills run one Philox-4x32-10 block per element, the integer noise one
32-bit word per element (what makes its numbers independent of threads and strides); NumPy's Philox-4x64 fills a stream and has
no threads. First on one core (augpy.set_num_threads(1)), then on all cores (NumPy
stays on one). Best of REPS runs with time.perf_counter; ratio = peer time /
augpy time (> 1: augpy faster; the target is >= 1.0 per core).

    python bench/bench_random.py
"""
import functools
import os

import numpy as np

try:
    import cv2
except ImportError:  # the OpenCV row is skipped
    cv2 = None

import benchutil  # bench/benchutil.py (the script's folder is on sys.path)

import augpy

REPS = 10
best_ms = functools.partial(benchutil.best_ms, reps=REPS)
N = 16 << 20  # 64 MiB of float32



def main():
    out = np.empty(N, np.float32)
    t = augpy.zeros((N,), augpy.float32)
    g = augpy.RandomNumberGenerator(seed=1)
    peer = np.random.Generator(np.random.Philox(1))
    t_np_u = best_ms(lambda: peer.random(out=out, dtype=np.float32))
    t_np_g = best_ms(lambda: peer.standard_normal(out=out, dtype=np.float32))
    img = augpy.zeros((N,), augpy.uint8)
    noise = augpy.zeros((N,), augpy.float32)

    def two_step():
        g.gaussian(noise, 0.0, 1.0)
        augpy.fma(8.0, noise, img, out=img)
    cores = len(os.sched_getaffinity(0))
    print(f"{'case':34s} {'threads':>7s} {'augpy ms':>9s} {'peer':>34s} {'peer ms':>8s} {'ratio':>6s}")
    for threads in (1, cores):
        augpy.set_num_threads(threads)
        rows = [("float32 uniform [0,1) 64 MiB", best_ms(lambda: g.uniform(t, 0.0, 1.0)),
                 "numpy Philox .random(float32)", t_np_u),
                ("float32 gaussian (0,1) 64 MiB", best_ms(lambda: g.gaussian(t, 0.0, 1.0)),
                 "numpy Philox .standard_normal(f32)", t_np_g),
                ("uint8 + gaussian noise fused 16 Mi", best_ms(lambda: g.gaussian_noise(img, 8.0, out=img)),
                 "f32 gaussian fill + fma (2 steps)", best_ms(two_step))]
        if cv2 is not None:
            cv2.setNumThreads(threads)
            im = augpy.full((224, 224, 3), 128, augpy.uint8)
            npim = np.full((224, 224, 3), 128, np.uint8)
            n16 = np.empty((224, 224 * 3), np.int16)

            def by_hand():
                cv2.randn(n16, 0.0, 8.0)
                cv2.add(npim, n16.reshape(224, 224, 3), dst=npim, dtype=cv2.CV_8U)
            rows.append(("uint8 224x224x3 + noise std 8", best_ms(lambda: g.gaussian_noise(im, 8.0, out=im)),
                         "cv2.randn int16 + cv2.add", best_ms(by_hand)))
        for name, ours, pname, theirs in rows:
            benchutil.record(name, threads, ours, pname, theirs, 1.0 if threads == 1 else None)
            print(f"{name:34s} {threads:7d} {ours:9.2f} {pname:>34s} {theirs:8.2f} {theirs / ours:6.2f}")
    augpy.set_num_threads(0)
    if cv2 is not None:
        cv2.setNumThreads(-1)


if __name__ == "__main__":
    main()
