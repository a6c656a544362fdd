"""augpy.RandomNumberGenerator (semantics §11): determinism, distribution tests against
closed-form references (chi-square, Kolmogorov-Smirnov with the normal CDF from
math.erf, binomial tolerances from math.erfc), endpoints, every dtype, bad input.

All generators use fixed seeds, so every statistic is computed on the same numbers
each run: a test fails only if the implementation changes (or is wrong), and the
thresholds are set wide (p < 1e-4 or 5 standard errors) so a correct one passes.
"""
import ctypes
import gc
import math
import pickle

import numpy as np
import pytest

import augpy
from conftest import ALL_DTYPE_NAMES, DEVICE_ID, augpy_dtype, rss_bound
from nvjpeg_standin import emulated_module

RNG = augpy.RandomNumberGenerator


def values(t):
    """A tensor's values as numpy (bfloat16 read back through float32)."""
    if t.dtype == augpy.bfloat16:
        return t.numpy(np.empty(t.shape, np.float32))
    return t.numpy()


def filled(kind, shape, dtype, *params, seed=1234):
    t = augpy.Tensor(shape, dtype=augpy_dtype(dtype) if isinstance(dtype, str) else dtype)
    getattr(RNG(seed=seed), kind)(t, *params)
    return values(t)


def chi2_critical(dof, z=4.0):
    """Upper chi-square quantile (Wilson-Hilferty) at standard-normal score z (p ~ 3e-5)."""
    h = 2.0 / (9.0 * dof)
    return dof * (1.0 - h + z * math.sqrt(h)) ** 3


def chi2(counts, expected):
    counts = np.asarray(counts, np.float64)
    return float(((counts - expected) ** 2 / expected).sum())


def ks_statistic(sample, cdf):
    x = np.sort(np.asarray(sample, np.float64))
    n = x.size
    f = cdf(x)
    i = np.arange(1, n + 1)
    return max(float((i / n - f).max()), float((f - (i - 1) / n).max()))


def ks_critical(n):
    # alpha = 1e-4: sqrt(-ln(alpha / 2) / 2) = 2.2254
    return 2.2254 / math.sqrt(n)


_erf = np.frompyfunc(math.erf, 1, 1)


def normal_cdf(mean, std):
    return lambda x: 0.5 * (1.0 + _erf((x - mean) / (std * math.sqrt(2.0))).astype(np.float64))


# ---- determinism -------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPE_NAMES)
@pytest.mark.parametrize("kind", ["uniform", "gaussian"])
def test_same_seed_same_bytes(dtype, kind):
    params = (-50, 100) if kind == "uniform" else (3, 40)
    a = filled(kind, (37, 101), dtype, *params, seed=77)
    b = filled(kind, (37, 101), dtype, *params, seed=77)
    c = filled(kind, (37, 101), dtype, *params, seed=78)
    assert a.tobytes() == b.tobytes()
    if dtype != "bool" or kind == "uniform":
        assert a.tobytes() != c.tobytes()


def test_state_replay_and_pickle():
    g = RNG(seed=2 ** 64 - 1)
    a, b = augpy.Tensor((1000,), dtype=augpy.float32), augpy.Tensor((1000,), dtype=augpy.float32)
    g.uniform(a, 0, 1)
    state = g.get_state()
    assert state == (2 ** 64 - 1, 1)
    g.gaussian(a, 0, 1)
    g.set_state(state)
    g.gaussian(b, 0, 1)
    assert a.numpy().tobytes() == b.numpy().tobytes()
    # a pickled generator continues where the original is
    g2 = pickle.loads(pickle.dumps(g))
    assert g2.get_state() == g.get_state() == (2 ** 64 - 1, 2)
    g.uniform(a, 0, 1)
    g2.uniform(b, 0, 1)
    assert a.numpy().tobytes() == b.numpy().tobytes()
    assert "seed=18446744073709551615 calls=3" in repr(g)
    assert g.seed == 2 ** 64 - 1 and g.device_id == DEVICE_ID


def test_entropy_seed():
    assert RNG().get_state()[0] != RNG().get_state()[0]
    assert RNG(device_id=None, seed=None).get_state()[1] == 0


def test_threads_and_strides_do_not_matter():
    ref = filled("gaussian", (65, 3001), "float32", 0, 1)
    try:
        for n in (1, 3):
            augpy.set_num_threads(n)
            assert filled("gaussian", (65, 3001), "float32", 0, 1).tobytes() == ref.tobytes()
    finally:
        augpy.set_num_threads(0)
    # a strided view gets, in C order, the values of a contiguous tensor of its shape
    base = augpy.Tensor((130, 3001), dtype=augpy.float32)
    view = base[::-2, :]
    assert view.shape == (65, 3001)
    RNG(seed=1234).gaussian(view, 0, 1)
    np.testing.assert_array_equal(view.numpy(), ref)
    # an inner stride of 2 likewise
    base = augpy.Tensor((65, 6002), dtype=augpy.float32)
    RNG(seed=1234).gaussian(base[:, 1::2], 0, 1)
    np.testing.assert_array_equal(base.numpy()[:, 1::2], ref)


def test_numpy_array_target():
    a = np.zeros((10, 20), np.float64)
    RNG(seed=5).uniform(a, 2, 3)
    assert a.tobytes() == filled("uniform", (10, 20), "float64", 2, 3, seed=5).tobytes()
    # a non-contiguous numpy view
    b = np.zeros((20, 40), np.float64)
    RNG(seed=5).uniform(b[::2, ::2], 2, 3)
    np.testing.assert_array_equal(b[::2, ::2], a)
    assert (b[1::2] == 0).all()


@pytest.mark.parametrize("dtype", ["float64", "float32", "uint8", "int64"])
def test_numpy_target_continues_the_stream_without_waiting(dtype):
    """A uniform draw into a NumPy array gives the values of a draw into a tensor of the generator's
    device and leaves the generator where that draw would (the next draws agree); on a CUDA device it
    is drawn on the host (the same bits), with no host wait (the emulated runtime's count): before,
    a device draw and a copy back that waited for the stream."""
    a, b = RNG(seed=9), RNG(seed=9)
    host = np.zeros(37, dtype)
    gc.collect()  # earlier tests' tensors freed now, not inside the draw
    waits = emulated_host_waits()
    a.uniform(host, 0, 200)
    if waits is not None:
        assert emulated_host_waits() - waits == 0
    t = augpy.Tensor((37,), dtype=augpy_dtype(dtype))
    b.uniform(t, 0, 200)
    np.testing.assert_array_equal(host, values(t))
    assert a.get_state() == b.get_state()
    a.uniform(host, 0, 200)
    b.uniform(t, 0, 200)
    np.testing.assert_array_equal(host, values(t))


def emulated_host_waits():
    """The calling thread's host waits on the emulated CUDA device, or None elsewhere."""
    path = emulated_module()
    if path is None or augpy.Tensor((1,)).device == "cpu":
        return None
    fn = ctypes.CDLL(path).aug_emu_host_waits
    fn.argtypes = [ctypes.POINTER(ctypes.c_char_p)]
    fn.restype = ctypes.c_longlong
    return fn(None)


# ---- distributions -------------------------------------------------------------------

def test_uint8_chi_square():
    n = 1 << 20
    v = filled("uniform", (n,), "uint8", 0, 256)
    counts = np.bincount(v, minlength=256)
    assert counts.size == 256
    assert chi2(counts, n / 256) < chi2_critical(255)


@pytest.mark.parametrize("vmin,vmax", [(-2.0 ** 39 + 12345, 2.0 ** 40 + 777), (-2.0 ** 63, 2.0 ** 63)])
def test_int64_wide_range_chi_square(vmin, vmax):
    n = 1 << 18
    v = filled("uniform", (n,), "int64", vmin, vmax, seed=99)
    lo, count = math.ceil(vmin), math.ceil(vmax) - math.ceil(vmin)
    assert v.min() >= lo and v.max() < vmax
    # 64 buckets of the high bits of the offset from lo
    offsets = [int(x) - lo for x in v]
    buckets = np.bincount([o * 64 // count for o in offsets], minlength=64)
    assert chi2(buckets, n / 64) < chi2_critical(63)
    # and the low bits are uniform too (64 buckets)
    low = np.bincount([o % 64 for o in offsets], minlength=64)
    assert chi2(low, n / 64) < chi2_critical(63)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_uniform_ks(dtype):
    v = filled("uniform", (50000,), dtype, -3, 5, seed=11)
    assert v.min() >= -3 and v.max() < 5
    d = ks_statistic(v, lambda x: (x + 3) / 8)
    assert d < ks_critical(v.size)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gaussian_ks_and_moments(dtype):
    n = 50000
    v = filled("gaussian", (n,), dtype, 2.5, 3.0, seed=12)
    assert np.isfinite(v).all()
    d = ks_statistic(v, normal_cdf(2.5, 3.0))
    assert d < ks_critical(n)
    v = v.astype(np.float64)
    assert abs(v.mean() - 2.5) < 5 * 3.0 / math.sqrt(n)
    assert abs(v.std() - 3.0) < 5 * 3.0 / math.sqrt(2 * n)


def test_gaussian_tails_reach_beyond_6_sigma():
    v = filled("gaussian", (1 << 22,), "float32", 0, 1, seed=3)
    # P(|z| > 4.5) = 6.8e-6: about 28 expected
    k = int((np.abs(v) > 4.5).sum())
    assert 5 < k < 60


def test_int8_gaussian_saturation_frequencies():
    # the manual's example: int8, mean 5, std 80 clips at 127 / -128
    n = 1 << 20
    v = filled("gaussian", (n,), "int8", 5, 80, seed=21).astype(np.int64)
    s = 80 * math.sqrt(2)
    # round half to even: 127 <- (126.5, inf), -128 <- (-inf, -127.5]
    p_hi = 0.5 * math.erfc((126.5 - 5) / s)
    p_lo = 0.5 * math.erfc((5 + 127.5) / s)
    p_zero = 0.5 * (math.erfc((-0.5 - 5) / s) - math.erfc((0.5 - 5) / s))
    for value, p in ((127, p_hi), (-128, p_lo), (0, p_zero)):
        k = int((v == value).sum())
        assert abs(k - n * p) < 5 * math.sqrt(n * p * (1 - p)), (value, k, n * p)
    assert v.min() == -128 and v.max() == 127


def test_bool_distributions():
    n = 100000
    coin = filled("uniform", (n,), "bool", 0, 2)
    assert abs(int(coin.sum()) - n / 2) < 5 * math.sqrt(n / 4)
    # gaussian: round(v) != 0, i.e. |v| > 0.5 (0.5 rounds to 0)
    g = filled("gaussian", (n,), "bool", 0, 1)
    p = math.erfc(0.5 / math.sqrt(2))
    assert abs(int(g.sum()) - n * p) < 5 * math.sqrt(n * p * (1 - p))


# ---- endpoints and ranges -------------------------------------------------------------

def test_float32_endpoints_with_rounding():
    # [1, 1 + 2^-21) holds exactly 4 float32 values, each with probability 1/4
    vmax = 1.0 + 2.0 ** -21
    v = filled("uniform", (100000,), "float32", 1.0, vmax, seed=8)
    vals, counts = np.unique(v, return_counts=True)
    np.testing.assert_array_equal(vals, np.float32(1.0) + np.float32(2.0 ** -23) * np.arange(4, dtype=np.float32))
    assert chi2(counts, v.size / 4) < chi2_critical(3)
    assert (v.astype(np.float64) < vmax).all()


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_vmin_occurs_vmax_never(dtype):
    f = np.finfo(dtype)
    vmin = 3.0
    vmax = float(np.nextafter(np.nextafter(np.array(3.0, dtype), np.inf), np.inf))  # two values
    v = filled("uniform", (20000,), dtype, vmin, vmax, seed=9)
    assert (v == np.array(vmin, dtype)).any()
    assert (v.astype(np.float64) < vmax).all()
    assert f.bits > 0


def test_integer_endpoints():
    v = filled("uniform", (20000,), "int16", -3, 4)
    assert set(np.unique(v).tolist()) == set(range(-3, 4))
    v = filled("uniform", (20000,), "int32", -3.5, 3.5)  # ceil(-3.5) = -3 ... 3
    assert set(np.unique(v).tolist()) == set(range(-3, 4))
    # ranges beyond the dtype are clipped to it
    v = filled("uniform", (20000,), "uint8", -100, 1000)
    assert v.min() == 0 and v.max() == 255
    counts = np.bincount(v, minlength=256)
    assert chi2(counts, v.size / 256) < chi2_critical(255)


@pytest.mark.parametrize("dtype", ALL_DTYPE_NAMES)
def test_every_dtype_in_range(dtype):
    v = filled("uniform", (7, 13, 11), dtype, -10.25, 10.5).astype(np.float64)
    info_min = 0 if dtype == "bool" or dtype.startswith("uint") else -10
    info_max = 1 if dtype == "bool" else 10
    if dtype.startswith("float") or dtype == "bfloat16":
        assert v.min() >= -10.25 and v.max() < 10.5
    else:
        assert v.min() == info_min and v.max() == info_max
    g = filled("gaussian", (7, 13, 11), dtype, 1, 20).astype(np.float64)
    assert np.isfinite(g).all()
    if dtype not in ("bool",) and not dtype.startswith("float") and dtype != "bfloat16":
        assert (g == np.round(g)).all()
    if dtype.startswith("uint"):
        assert (g >= 0).all() and (g == 0).any()  # negative draws saturate to 0


def test_large_parameters_saturate():
    g = filled("gaussian", (1000,), "float16", 0, 1e6)
    assert np.isfinite(g).all() and np.abs(g).max() == np.finfo(np.float16).max
    u = filled("uniform", (1000,), "float32", -1e308, 1e308)
    assert np.isfinite(u).all()
    # uniform ranges are clipped to the dtype: uniform over [-65504, 65504], no pile-up at the ends
    h = filled("uniform", (20000,), "float16", -1e6, 1e6).astype(np.float64)
    assert h.min() >= -65504 and h.max() <= 65504
    assert (np.abs(h) == 65504).sum() < 20
    assert ks_statistic(h, lambda x: (x + 65504) / 131008) < ks_critical(h.size) + 1e-3
    u = filled("uniform", (1000,), "float64", -1.7e308, 1.7e308)
    assert np.isfinite(u).all() and (u > 0).any() and (u < 0).any()


# ---- bad input --------------------------------------------------------------------------

@pytest.mark.parametrize("args,match", [
    ((1.0, 1.0), "vmin must be < vmax"),
    ((2.0, 1.0), "vmin must be < vmax"),
    ((float("nan"), 1.0), "vmin must be finite"),
    ((0.0, float("inf")), "vmax must be finite"),
    ((0.0, 10 ** 400), "vmax must be finite"),
])
def test_uniform_bad_values(args, match):
    g = RNG(seed=1)
    t = augpy.Tensor((4,), dtype=augpy.float32)
    with pytest.raises(ValueError, match="RandomNumberGenerator.uniform: " + match):
        g.uniform(t, *args)
    assert g.get_state() == (1, 0)  # failed calls do not count


def test_empty_integer_range():
    t = augpy.Tensor((4,), dtype=augpy.int8)
    with pytest.raises(ValueError, match=r"RandomNumberGenerator.uniform: no int8 value in \[0.2"):
        RNG(seed=1).uniform(t, 0.2, 0.9)
    with pytest.raises(ValueError, match="no uint8 value"):
        RNG(seed=1).uniform(augpy.Tensor((4,), dtype=augpy.uint8), -5, 0)


@pytest.mark.parametrize("args,match", [
    ((0.0, -1.0), "std must be >= 0"),
    ((float("nan"), 1.0), "mean must be finite"),
    ((0.0, float("inf")), "std must be finite"),
])
def test_gaussian_bad_values(args, match):
    t = augpy.Tensor((4,), dtype=augpy.float32)
    with pytest.raises(ValueError, match="RandomNumberGenerator.gaussian: " + match):
        RNG(seed=1).gaussian(t, *args)


def test_bad_types_and_arguments():
    g = RNG(seed=1)
    t = augpy.Tensor((4,), dtype=augpy.float32)
    with pytest.raises(TypeError, match="RandomNumberGenerator.uniform"):
        g.uniform(t, "a", 1)
    with pytest.raises(TypeError, match="RandomNumberGenerator.uniform"):
        g.uniform([1, 2], 0, 1)
    with pytest.raises(TypeError, match="RandomNumberGenerator.uniform"):
        g.uniform(t, 0)
    with pytest.raises(ValueError, match="RandomNumberGenerator.gaussian: threads"):
        g.gaussian(t, threads=-1)
    with pytest.raises(ValueError, match="RandomNumberGenerator: seed must be in"):
        RNG(seed=-1)
    with pytest.raises(ValueError, match="RandomNumberGenerator: seed must be in"):
        RNG(seed=2 ** 64)
    with pytest.raises(TypeError, match="RandomNumberGenerator: seed must be an int"):
        RNG(seed=1.5)
    with pytest.raises(ValueError, match="RandomNumberGenerator: invalid device_id"):
        RNG(device_id=5)
    with pytest.raises(TypeError, match="set_state"):
        g.set_state(5)
    with pytest.raises(ValueError, match="set_state"):
        g.set_state((1, 2, 3))
    with pytest.raises(ValueError, match="set_state: calls must be in"):
        g.set_state((1, -2))
    ro = np.zeros(4)
    ro.flags.writeable = False
    with pytest.raises((ValueError, TypeError, BufferError)):
        g.uniform(ro, 0, 1)
    # keywords and defaults
    g.uniform(target=t, vmin=0, vmax=1, blocks_per_sm=8, threads=0)
    g.gaussian(t)
    assert g.get_state() == (1, 2)


# ---- leaks -------------------------------------------------------------------------------

@rss_bound
def test_no_leaks():
    import gc
    import os

    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    t = augpy.Tensor((3, 3), dtype=augpy.uint8)
    arr = np.zeros(5)

    def calls():
        g = RNG(seed=3)
        g.uniform(t, 0, 10)
        g.gaussian(arr, 0, 1)
        g.set_state(g.get_state())
        pickle.loads(pickle.dumps(g))
        repr(g)
        for bad in (lambda: g.uniform(t, 1, 0), lambda: g.uniform(t, "x", 1), lambda: RNG(seed=-1),
                    lambda: g.set_state((1, -1)), lambda: g.uniform(t, 0.2, 0.9)):
            try:
                bad()
            except (ValueError, TypeError):
                pass

    for _ in range(2000):
        calls()
    gc.collect()
    before = rss()
    for _ in range(20000):
        calls()
    gc.collect()
    assert rss() - before < 4 << 20
