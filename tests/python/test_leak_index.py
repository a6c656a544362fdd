"""No leaks in the creation functions, where and advanced indexing: repeated calls
(successful and failing) do not grow the resident set or Python's allocations."""
import gc
import tracemalloc

import numpy as np

import augpy
from conftest import rss_bound
from test_leak import MIB, rss, run


def make_calls():
    a = augpy.asarray(np.arange(24, dtype=np.int16).reshape(2, 3, 4))
    m = a.numpy() % 3 == 0
    mt = augpy.asarray(m)
    idx = augpy.asarray(np.array([2, 0, -1]))

    def failing(fn):
        def call():
            try:
                fn()
            except (ValueError, TypeError, IndexError):
                pass
        return call

    def sets():
        a[[1, 0]] = 5
        a[:, [2, 1]] = np.array([1, 2, 3, 4])
        a[mt] = a[mt]
        a[0, idx] = (1, 2, 3, 4)

    return [
        lambda: augpy.empty((3, 2)), lambda: augpy.arange(7), lambda: augpy.arange(0, 1, 0.1),
        lambda: augpy.asarray([1, 2]), lambda: augpy.asarray(a), lambda: augpy.tensor(a, augpy.float32),
        lambda: augpy.stack([a, a, [[[0] * 4] * 3] * 2], 1), lambda: augpy.concatenate((a, a), -1),
        lambda: augpy.where(mt, a, 1.5), lambda: augpy.where(a), lambda: augpy.where(m, 1, a, out=a),
        lambda: a[[1, 0]], lambda: a[m], lambda: a[:, idx, [0, 1, 2]], lambda: a[[0, 1], :, [3, 2]], sets,
        failing(lambda: a[[5]]), failing(lambda: a[m[0]]), failing(lambda: a[[0.5]]),
        failing(lambda: a.__setitem__([0, 1], np.zeros(7))), failing(lambda: augpy.stack([a, a[0]])),
        failing(lambda: augpy.concatenate([])), failing(lambda: augpy.where(a, a)),
        failing(lambda: augpy.where(a, "x", a)), failing(lambda: augpy.arange(0, 1, 0)),
        failing(lambda: augpy.asarray("x")), failing(lambda: a[[0, 1], [0, 1, 2]]),
    ]


@rss_bound
def test_rss_does_not_grow():
    calls = make_calls()
    run(calls, 3000)
    gc.collect()
    before = rss()
    run(calls, 30_000)
    gc.collect()
    grown = rss() - before
    assert grown < 4 * MIB, f"resident set grew by {grown / MIB:.1f} MiB over 3 * 10^4 calls"


def test_tracemalloc_sees_no_growth():
    calls = make_calls()
    run(calls, 2000)
    gc.collect()
    tracemalloc.start()
    try:
        run(calls, 2000)
        gc.collect()
        first = tracemalloc.take_snapshot()
        run(calls, 10_000)
        gc.collect()
        second = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    diff = sum(s.size_diff for s in second.compare_to(first, "filename"))
    assert diff < 64 * 1024, f"Python allocations grew by {diff} bytes over 10000 calls"
