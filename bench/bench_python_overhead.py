"""bench/bench_python_overhead.py: Python call overhead of a small augpy op (semantics §18:
"Python overhead of a small op <= NumPy's"; issue 33).

Times a 3x3 add through the operator (t1 + t2) and through the functional API with an
output (augpy.add(t1, t2, out=o)) against NumPy's a + b and np.add(a, b, out=o), for
uint8 and float32, and a 224x224x3 float32 t1 + t2 (informational: a mid-size op must
not lose what the small-op paths gain). Each figure is the best of several repeats of
many calls, in CPU time per call (time.process_time: a busy machine's other processes do
not count); it prints the ratio peer / augpy (> 1: augpy has less overhead).

    python bench/bench_python_overhead.py
"""
import time

import numpy as np

import benchutil  # bench/benchutil.py (the script's folder is on sys.path)

import augpy

CALLS = 100_000
REPEATS = 7


def best_us(fn, calls=CALLS):
    best = float("inf")
    for _ in range(REPEATS):
        t0 = time.process_time()
        for _ in range(calls):
            fn()
        best = min(best, (time.process_time() - t0) / calls * 1e6)
    return best


def small_rows(npdt, dt):
    a = np.arange(9, dtype=npdt).reshape(3, 3)
    b = np.full((3, 3), 200, npdt)
    o = np.empty_like(a)
    t1, t2 = augpy.array_to_tensor(a), augpy.array_to_tensor(b)
    to = augpy.zeros((3, 3), dt)
    add = augpy.add
    name = np.dtype(npdt).name
    return [
        (f"3x3 {name} t1 + t2", lambda: t1 + t2, "a + b", lambda: a + b, CALLS, 1.0),
        (f"3x3 {name} augpy.add(out=)", lambda: add(t1, t2, out=to), "np.add(out=)",
         lambda: np.add(a, b, out=o), CALLS, 1.0),
    ]


def main():
    rng = np.random.default_rng(0)
    A = rng.random((224, 224, 3), dtype=np.float32)
    B = rng.random((224, 224, 3), dtype=np.float32)
    T1, T2 = augpy.array_to_tensor(A), augpy.array_to_tensor(B)
    rows = small_rows(np.uint8, augpy.uint8) + small_rows(np.float32, augpy.float32) + [
        ("224x224x3 float32 t1 + t2", lambda: T1 + T2, "a + b", lambda: A + B, CALLS // 100, None)]
    print(f"# best of {REPEATS} repeats, CPU time per call; ratio = peer time / augpy time (>1: augpy faster)")
    for name, fn, peer, peer_fn, calls, target in rows:
        t_aug, t_peer = best_us(fn, calls), best_us(peer_fn, calls)
        benchutil.record(f"overhead: {name}", augpy.get_num_threads(), t_aug, peer, t_peer, target, unit="us")
        print(f"{name}: augpy {t_aug:.3f} us, peer ({peer}) {t_peer:.3f} us, ratio {t_peer / t_aug:.2f}x")


if __name__ == "__main__":
    main()
