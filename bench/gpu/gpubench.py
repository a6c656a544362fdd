"""bench/gpu/gpubench.py: what the GPU benchmarks share.

Each benchmark runs augpy on cuda:0 and, where installed and able to use the GPU,
the peers the issues name (PyTorch, CuPy, torchvision, DALI), at the full size or,
with --smoke, at a tiny size on whatever CUDA device is present (the emulated one in
CI: `make bench-gpu-smoke`), where the figures mean nothing but every code path
runs. Times are device times (events around `reps` back-to-back launches, after a
warm-up), best of `rounds`; host CPU time per call is printed beside them.
Ratios are peer time / augpy time: > 1 means augpy is faster.
"""
import argparse
import importlib
import resource
import time

import augpy


def parse(description, default_reps=20):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--smoke", action="store_true", help="tiny sizes, every path once (CI, emulated device)")
    p.add_argument("--reps", type=int, default=default_reps, help="launches per timed round")
    p.add_argument("--rounds", type=int, default=5, help="timed rounds (the best is kept)")
    args = p.parse_args()
    if args.smoke:
        args.reps, args.rounds = 2, 1
    status = augpy.cuda_status()
    if not status.startswith("ok:"):
        raise SystemExit(f"{p.prog}: no CUDA device ({status}); set AUG_CUDA_BACKEND=emu for the emulated one")
    props = augpy.get_device_properties(0)
    print(f"device: {props.name} ({status}){'  [smoke: sizes too small to mean anything]' if args.smoke else ''}")
    return args


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def time_augpy(fn, reps, rounds):
    """(best device ms per call, host CPU ms per call) of fn() queued reps times on the
    current stream, timed with CudaEvents."""
    fn()
    augpy.synchronize()
    best, cpu = float("inf"), float("inf")
    for _ in range(rounds):
        start, end = augpy.CudaEvent(), augpy.CudaEvent()
        c0 = cpu_seconds()
        start.record()
        for _ in range(reps):
            fn()
        end.record()
        end.synchronize()
        cpu = min(cpu, (cpu_seconds() - c0) * 1e3 / reps)
        best = min(best, start.elapsed_time(end) / reps)
    return best, cpu


def peer(module):
    """The module if it imports (None otherwise), for optional peers."""
    try:
        return importlib.import_module(module)
    except Exception:  # not installed, or no GPU build
        return None


def torch_cuda():
    torch = peer("torch")
    return torch if torch is not None and torch.cuda.is_available() else None


def time_torch(torch, fn, reps, rounds):
    fn()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(rounds):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(reps):
            fn()
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end) / reps)
    return best


def time_wall(fn, sync, reps, rounds):
    """Best wall ms per call of fn() repeated reps times, sync() after each round."""
    fn()
    sync()
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        sync()
        best = min(best, (time.perf_counter() - t0) * 1e3 / reps)
    return best


def row(name, ms, cpu_ms=None, peers=()):
    """One line: augpy's time, then peer=time (ratio) for each (name, ms or None, why)."""
    text = f"  {name:<44} augpy {ms:9.4f} ms"
    if cpu_ms is not None:
        text += f" (host CPU {cpu_ms:7.4f} ms)"
    for pname, pms, why in peers:
        text += f"   {pname} {pms:9.4f} ms ({pms / ms:5.2f}x)" if pms is not None else f"   {pname}: {why}"
    print(text)
