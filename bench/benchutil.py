"""bench/benchutil.py: the timing helper every bench script shares.

Times are the best of `reps` runs (the least disturbed by other work on a shared
machine), after one warm-up call (page faults, worker-pool start).
"""
import time


def best_ms(fn, reps, warmup=True):
    """Best wall time of fn() over reps calls, in milliseconds."""
    if warmup:
        fn()
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, (time.perf_counter() - t0) * 1e3)
    return best
