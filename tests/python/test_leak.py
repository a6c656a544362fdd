"""No leaks in the operator / functional / math / reduction / device bindings: 10^5 small
calls (successful and failing) do not grow the resident set by more than a few MiB,
and tracemalloc sees no growth of Python allocations."""
import gc
import os
import tracemalloc

import numpy as np
import pytest

import augpy
from conftest import rss_bound
import augpy.math as am

MIB = 1 << 20


def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def make_calls():
    a = augpy.array_to_tensor(np.arange(9, dtype=np.uint8).reshape(3, 3))
    b = augpy.array_to_tensor(np.full((3, 3), 200, np.uint8))
    f = augpy.array_to_tensor(np.linspace(0, 1, 9, dtype=np.float32).reshape(3, 3))
    o = augpy.zeros((3, 3))
    bad = augpy.zeros((4,))
    arr = np.ones(3, np.uint8)
    c = augpy.Constant(3, augpy.int16)

    def failing(fn):
        def call():
            try:
                fn()
            except (ValueError, TypeError, OverflowError):
                pass
        return call

    def inplace():
        o.fill(1)
        t = o
        t += a
        t *= 0.5

    def streams():
        s = augpy.CudaStream()
        with s:
            start, end = augpy.CudaEvent(), augpy.CudaEvent()
            start.record()
            end.record(s)
            end.synchronize(0)
            start.elapsed_time(end)
            augpy.get_current_stream()
        s.synchronize()

    return [
        streams, lambda: augpy.get_device_properties(0).name, lambda: augpy.meminfo(),
        failing(lambda: augpy.CudaStream(0, 3)), failing(lambda: augpy.CudaEvent().elapsed_time("x")),
        lambda: a + b, lambda: augpy.add(a, b, out=o), lambda: a + 1, lambda: 5 - a, lambda: a < b,
        lambda: a * c, lambda: a + arr, lambda: am.sqrt(f), lambda: am.clamp(a, 2, 5), lambda: augpy.sum(a),
        lambda: a.sum(0, keepdim=True), lambda: augpy.mean(f, (0, 1)), lambda: augpy.fma(0.5, a, b),
        lambda: augpy.cast(f, augpy.uint8), lambda: augpy.full((2, 2), 1.5), lambda: augpy.Constant(2.5),
        lambda: augpy.div(a, 3, out=o), lambda: divmod(a, b), lambda: -f, inplace,
        failing(lambda: a + bad), failing(lambda: augpy.add(a, "x")), failing(lambda: a & f),
        failing(lambda: augpy.sum(a, 5)), failing(lambda: a + 2 ** 70), failing(lambda: augpy.add(a, 1, bogus=1)),
        failing(lambda: am.sqrt(a, out=bad)), failing(lambda: augpy.zeros((-1,))),
    ]


def run(calls, n):
    k = len(calls)
    for i in range(n):
        calls[i % k]()


@rss_bound
def test_rss_does_not_grow():
    calls = make_calls()
    run(calls, 5000)
    gc.collect()
    before = rss()
    run(calls, 100_000)
    gc.collect()
    grown = rss() - before
    assert grown < 4 * MIB, f"resident set grew by {grown / MIB:.1f} MiB over 10^5 calls"


def test_tracemalloc_sees_no_growth():
    calls = make_calls()
    run(calls, 3000)
    gc.collect()
    tracemalloc.start()
    try:
        run(calls, 3000)
        gc.collect()
        first = tracemalloc.take_snapshot()
        run(calls, 20_000)
        gc.collect()
        second = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    diff = sum(s.size_diff for s in second.compare_to(first, "filename"))
    assert diff < 64 * 1024, f"Python allocations grew by {diff} bytes over 20000 calls"


@rss_bound
@pytest.mark.parametrize("shape", [(1 << 20,)])
def test_large_results_are_freed(shape):
    a = augpy.zeros(shape, augpy.float64)
    run([lambda: a + 1.0, lambda: am.exp(a), lambda: augpy.sum(a, upcast=True)], 30)
    gc.collect()
    before = rss()
    run([lambda: a + 1.0, lambda: am.exp(a), lambda: augpy.sum(a, upcast=True)], 300)
    gc.collect()
    assert rss() - before < 16 * MIB
