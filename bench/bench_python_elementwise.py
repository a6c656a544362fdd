"""bench/bench_python_elementwise.py: the core elementwise targets of semantics §18, called
from Python through augpy (so the binding is in the timed path), against OpenCV and
NumPy in the same run.

  - uint8 saturating add, 64 MiB, with out=   vs cv2.add(a, b, dst=out)
                                              and np.clip(a.astype(np.int16) + b, 0, 255).astype(np.uint8)
  - float32 -> uint8 saturating cast, 16 Mi   vs cv2.multiply(f, 1.0, dtype=cv2.CV_8U)
  - uint8 sum, 64 MiB (exact, upcast=True)    vs cv2.sumElems(a)

First on one core (augpy.set_num_threads(1), the AUG_NUM_THREADS=1 equivalent, and
cv2.setNumThreads(1)), then on all cores. Best of REPS runs with time.perf_counter, augpy's and
the peers' calls alternating;
ratio = peer time / augpy time (> 1: augpy faster).

    python bench/bench_python_elementwise.py
"""
import functools
import os

import cv2
import numpy as np

import benchutil  # bench/benchutil.py (the script's folder is on sys.path)

import augpy

REPS = 15
best_ms_interleaved = functools.partial(benchutil.best_ms_interleaved, reps=REPS)
MIB = 1 << 20



def data():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 256, 64 * MIB, dtype=np.uint8)
    b = rng.integers(0, 256, 64 * MIB, dtype=np.uint8)
    f = (rng.integers(0, 600, 16 * MIB) - 150 + 0.25).astype(np.float32)
    return a, b, f


def run(threads, a, b, f, ta, tb, tf):
    augpy.set_num_threads(threads)
    cv2.setNumThreads(threads)
    out, tout = np.empty_like(a), augpy.zeros(a.shape, augpy.uint8)
    tcast = augpy.zeros(f.shape, augpy.uint8)
    assert int(augpy.sum(ta, upcast=True)) == int(cv2.sumElems(a)[0])
    t_add, t_cv_add, t_np_add = best_ms_interleaved([
        lambda: augpy.add(ta, tb, out=tout), lambda: cv2.add(a, b, dst=out),
        lambda: np.clip(a.astype(np.int16) + b, 0, 255).astype(np.uint8)])
    t_cast, t_cv_cast = best_ms_interleaved([lambda: augpy.cast(tf, tcast),
                                             lambda: cv2.multiply(f, 1.0, dtype=cv2.CV_8U)])
    t_sum, t_cv_sum = best_ms_interleaved([lambda: augpy.sum(ta, upcast=True), lambda: cv2.sumElems(a)])
    return [
        ("uint8 saturating add 64 MiB, out=", t_add, "cv2.add(dst=)", t_cv_add),
        ("uint8 saturating add 64 MiB, out=", t_add, "numpy clip emulation", t_np_add),
        ("float32->uint8 cast 16 Mi", t_cast, "cv2.multiply(f,1,CV_8U)", t_cv_cast),
        ("uint8 sum 64 MiB", t_sum, "cv2.sumElems", t_cv_sum),
    ]


def main():
    a, b, f = data()
    ta, tb, tf = augpy.array_to_tensor(a), augpy.array_to_tensor(b), augpy.array_to_tensor(f)
    cores = len(os.sched_getaffinity(0))
    print(f"# {cores} cores; best of {REPS}; ratio = peer time / augpy time (>1: augpy faster)")
    for threads in sorted({1, cores}):
        print(f"\n## threads = {threads}")
        for name, t_aug, peer, t_peer in run(threads, a, b, f, ta, tb, tf):
            target = 8.0 if peer == "numpy clip emulation" else 2.0 if peer.startswith("cv2.multiply") else 1.0
            benchutil.record(f"Python: {name}", threads, t_aug, peer, t_peer, target)
            print(f"{name} ({peer}): augpy {t_aug:.2f} ms, peer {t_peer:.2f} ms, ratio {t_peer / t_aug:.2f}x")
    augpy.set_num_threads(0)


if __name__ == "__main__":
    main()
