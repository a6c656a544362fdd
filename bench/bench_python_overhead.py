"""bench/bench_python_overhead.py: Python call overhead of a small augpy op (semantics §18:
"Python overhead of a small op <= NumPy's").

Times a 3x3 uint8 add through the operator (t1 + t2) and through the functional API
with an output (augpy.add(t1, t2, out=o)) against NumPy's a + b and np.add(a, b, out=o),
best of several repeats of many calls, and prints per-call times and the ratio
peer / augpy (> 1: augpy has less overhead).

    python bench/bench_python_overhead.py
"""
import time

import numpy as np

import benchutil  # bench/benchutil.py (the script's folder is on sys.path)

import augpy

CALLS = 100_000
REPEATS = 7


def best_us(fn):
    best = float("inf")
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        for _ in range(CALLS):
            fn()
        best = min(best, (time.perf_counter() - t0) / CALLS * 1e6)
    return best


def main():
    a = np.arange(9, dtype=np.uint8).reshape(3, 3)
    b = np.full((3, 3), 200, np.uint8)
    o = np.empty_like(a)
    t1, t2 = augpy.array_to_tensor(a), augpy.array_to_tensor(b)
    to = augpy.zeros((3, 3), augpy.uint8)
    add = augpy.add
    rows = [
        ("3x3 uint8 t1 + t2", lambda: t1 + t2, "a + b", lambda: a + b),
        ("3x3 uint8 augpy.add(out=)", lambda: add(t1, t2, out=to), "np.add(out=)", lambda: np.add(a, b, out=o)),
    ]
    print(f"# best of {REPEATS} x {CALLS} calls; ratio = peer time / augpy time (>1: augpy faster)")
    for name, fn, peer, peer_fn in rows:
        t_aug, t_peer = best_us(fn), best_us(peer_fn)
        benchutil.record(f"overhead: {name}", 1, t_aug, peer, t_peer, 1.0, unit="us")
        print(f"{name}: augpy {t_aug:.3f} us, peer ({peer}) {t_peer:.3f} us, ratio {t_peer / t_aug:.2f}x")


if __name__ == "__main__":
    main()
