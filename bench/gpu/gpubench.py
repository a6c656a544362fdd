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


# ---- what the emulated device measures (tests/cuda_emu/emu_memstats.cpp) -----------------
#
# On the emulated device (AUG_CUDA_BACKEND=emu) each case is run once more with the
# emulator recording every global load and store, and one line gives, over the kernels
# the call launched: the memory efficiency (bytes the threads used / 32-byte sectors
# touched x 32, per warp-wide access), the least theoretical occupancy (resident warps
# per SM / 64, from the kernels' registers and shared memory), the host waits of the
# call (with the API calls that waited), and a predicted fraction of the device copy's
# bandwidth on an H200 by this model, simple on purpose:
#     predicted = efficiency x min(1, occupancy / 0.5)
# (a streaming kernel moves memory at the copy's rate when every sector it fetches is
# fully used and at least half of an SM's warps are resident to hide the latency;
# instruction costs, tails of small grids and host waits are not in it). On a GPU
# (no emulator) nothing is printed.
PREDICT_OCCUPANCY = 0.5

_emu = None


def _emu_module():
    """The loaded emulated CUDA module (ctypes), or False on a GPU."""
    global _emu
    if _emu is None:
        _emu = False
        import ctypes
        import os
        try:
            with open("/proc/self/maps") as f:
                paths = {line.split()[-1] for line in f if "libaug_cuda" in line}
        except OSError:
            paths = set()
        for path in sorted(paths):
            try:
                lib = ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_NOW)
                lib.aug_emu_memstats_report.restype = ctypes.c_longlong
                lib.aug_emu_memstats_report.argtypes = [ctypes.c_char_p, ctypes.c_longlong]
                lib.aug_emu_host_waits.restype = ctypes.c_longlong
                lib.aug_emu_host_waits.argtypes = [ctypes.c_void_p]
                lib.aug_emu_host_waits_by_api.restype = ctypes.c_longlong
                lib.aug_emu_host_waits_by_api.argtypes = [ctypes.c_char_p, ctypes.c_longlong]
                _emu = lib
                break
            except (OSError, AttributeError):
                continue
    return _emu


def _emu_text(fn):
    import ctypes
    n = fn(None, 0)
    buf = ctypes.create_string_buffer(n + 1)
    fn(buf, n + 1)
    return buf.value.decode()


def _ratio(used, sector_bytes):
    """used / sector_bytes, or None where there was no such access."""
    return used / sector_bytes if sector_bytes else None


def emu_measure(fn):
    """Runs fn() once with the emulator recording; returns a dict of the figures above
    (efficiency, load and store efficiency, occupancy, host waits and their API calls,
    predicted, kernels, sites: the least efficient source lines), or None on a GPU.
    An efficiency is None where no such access was recorded."""
    lib = _emu_module()
    if not lib:
        return None
    augpy.synchronize()
    lib.aug_emu_memstats_reset()
    lib.aug_emu_memstats_enable(1)
    apis0 = _emu_text(lib.aug_emu_host_waits_by_api)
    w0 = lib.aug_emu_host_waits(None)
    try:
        fn()
        waits = lib.aug_emu_host_waits(None) - w0
        apis1 = _emu_text(lib.aug_emu_host_waits_by_api)
        augpy.synchronize()
    finally:
        lib.aug_emu_memstats_enable(0)
    before = dict(line.rsplit(" ", 1) for line in apis0.splitlines())
    by_api = {}
    for line in apis1.splitlines():
        api, c = line.rsplit(" ", 1)
        if int(c) > int(before.get(api, 0)):
            by_api[api] = int(c) - int(before.get(api, 0))
    ld = [0, 0]
    st = [0, 0]
    occ, kernels, sites = 1.0, [], []
    for line in _emu_text(lib.aug_emu_memstats_report).splitlines():
        f = line.split()
        if f[0] == "kernel":
            kernels.append(f[1])
            occ = min(occ, float(f[5]))
            ld[0] += int(f[8]); ld[1] += int(f[9])
            st[0] += int(f[11]); st[1] += int(f[12])
        elif f[0] == "site" and int(f[6]) > 0:
            sites.append((int(f[5]) / int(f[6]), f"{f[1]} {f[2]} {f[3]}"))
    eff = _ratio(ld[0] + st[0], ld[1] + st[1])  # None: no access recorded
    return {"efficiency": eff, "load": _ratio(*ld), "store": _ratio(*st), "occupancy": occ, "host_waits": waits,
            "wait_apis": by_api, "kernels": kernels,
            "predicted": None if eff is None else eff * min(1.0, occ / PREDICT_OCCUPANCY),
            "sites": sorted(sites)[:3], "bytes": ld[0] + st[0]}


def _fmt(v):
    return "-" if v is None else f"{v:.3f}"


def emu_row(fn):
    """Prints the emulator's line for fn (nothing on a GPU); returns emu_measure's dict."""
    m = emu_measure(fn)
    if m is None:
        return None
    waits = m["host_waits"]
    why = f" ({', '.join(f'{a} {c}' for a, c in sorted(m['wait_apis'].items()))})" if waits else ""
    if m["efficiency"] is None:  # kernels whose accesses do not go through the recording layer
        print(f"  {'':<44} emu: memory not measured (no access recorded), occupancy {m['occupancy']:.2f}, "
              f"host waits {waits}{why} [{' '.join(m['kernels'])}]")
        return m
    print(f"  {'':<44} emu: memory efficiency {m['efficiency']:.3f} (loads {_fmt(m['load'])}, stores "
          f"{_fmt(m['store'])}), occupancy {m['occupancy']:.2f}, host waits {waits}{why}, "
          f"predicted H200 {m['predicted']:.0%} of copy bandwidth [{' '.join(m['kernels'])}]")
    return m
