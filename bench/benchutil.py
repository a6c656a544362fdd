"""bench/benchutil.py: the timing helper every bench script shares, and the results record.

Times are the best of `reps` runs (the least disturbed by other work on a shared
machine), after one warm-up call (page faults, worker-pool start).

Each script also hands its rows to record(): augpy's figure, the peer's, the ratio
(> 1: augpy ahead) and the target ratio (semantics §18). At exit the rows go to
$AUG_BENCH_RESULTS/<script>.json (default build/bench-results/), which
bench/report.py turns into docs/benchmarks.md and docs/benchmarks.png.
"""
import atexit
import datetime
import json
import os
import platform
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS_DIR = os.environ.get("AUG_BENCH_RESULTS", os.path.join(ROOT, "build", "bench-results"))

_rows = []


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


def best_ms_interleaved(fns, reps, warmup=True):
    """best_ms of each of several functions, their calls alternating (a, b, a, b, ...), so
    that a slow phase of a shared machine hits every contender alike. Returns a list of
    milliseconds in the order of fns."""
    if warmup:
        for fn in fns:
            fn()
    best = [float("inf")] * len(fns)
    for _ in range(reps):
        for k, fn in enumerate(fns):
            t0 = time.perf_counter()
            fn()
            best[k] = min(best[k], (time.perf_counter() - t0) * 1e3)
    return best


def best_cpu_ms(fn, reps, warmup=True):
    """Best process CPU time (all threads) of fn() over reps calls, in milliseconds: steadier
    than wall time on a shared machine."""
    if warmup:
        fn()
    best = float("inf")
    for _ in range(reps):
        t0 = time.process_time()
        fn()
        best = min(best, (time.process_time() - t0) * 1e3)
    return best


def record(name, threads, ours, peer, peer_value, target=None, unit="ms"):
    """One benchmark row. unit "ms"/"us" (times: ratio = peer / ours) or "images/s"
    (rates: ratio = ours / peer); target is the ratio to reach, None for an
    informational row. Returns the ratio."""
    rate = unit.endswith("/s")
    ratio = ours / peer_value if rate else peer_value / ours
    _rows.append({"name": name, "threads": threads, "augpy": ours, "peer": peer, "peer_value": peer_value,
                  "unit": unit, "ratio": ratio, "target": target})
    return ratio


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _versions():
    out = {}
    for mod in ("augpy", "cv2", "numpy", "PIL"):
        m = sys.modules.get(mod)
        if m is not None:
            out[mod] = getattr(m, "__version__", "?")
    return out


@atexit.register
def _write():
    if not _rows:
        return
    script = os.path.splitext(os.path.basename(sys.argv[0]))[0]
    os.makedirs(RESULTS_DIR, exist_ok=True)
    doc = {"script": script, "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "cpu": _cpu_model(), "cores": len(os.sched_getaffinity(0)), "python": platform.python_version(),
           "versions": _versions(), "simd": os.environ.get("AUG_SIMD", "auto"), "rows": _rows}
    with open(os.path.join(RESULTS_DIR, script + ".json"), "w") as f:
        json.dump(doc, f, indent=1)
