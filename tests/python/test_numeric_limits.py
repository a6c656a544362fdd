"""augpy.numeric_limits.CAST_LIMITS (semantics §2): the seed's examples, the integer
pairs against numpy.iinfo, and agreement with what saturating casts produce."""
import itertools

import numpy as np
import pytest

import augpy
from augpy.numeric_limits import CAST_LIMITS
from conftest import ALL_DTYPE_NAMES, augpy_dtype

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "float32", "float64"]


def test_seed_examples():
    assert CAST_LIMITS[np.uint16, np.uint32] == (None, None)
    assert CAST_LIMITS[augpy.uint64, augpy.int32] == (None, 2147483647)
    assert CAST_LIMITS[np.float64, augpy.int16] == (-32768, 32767)
    assert CAST_LIMITS[augpy.float32, np.uint64] == (0, 18446744073709551615)


def test_mapping():
    assert len(CAST_LIMITS) == 13 * 13
    keys = list(CAST_LIMITS)
    assert (augpy.uint8, augpy.int8) in keys
    assert all(isinstance(a, augpy.DLDataType) and isinstance(b, augpy.DLDataType) for a, b in keys)
    assert CAST_LIMITS[np.dtype("int16"), "uint8"] == CAST_LIMITS[augpy.int16, augpy.uint8]
    assert (np.uint8, np.int8) in CAST_LIMITS
    assert "x" not in CAST_LIMITS
    for bad in [augpy.uint8, (augpy.uint8,), (np.complex64, np.uint8), ("foo", "bar")]:
        with pytest.raises(KeyError):
            CAST_LIMITS[bad]
    for name in ALL_DTYPE_NAMES:
        assert CAST_LIMITS[augpy_dtype(name), augpy_dtype(name)] == (None, None)


@pytest.mark.parametrize("src, dst", list(itertools.product(INTS, INTS)))
def test_integer_pairs(src, dst):
    s, d = np.iinfo(src), np.iinfo(dst)
    expect = (int(d.min) if s.min < d.min else None, int(d.max) if s.max > d.max else None)
    got = CAST_LIMITS[np.dtype(src), np.dtype(dst)]
    assert got == expect
    assert all(v is None or type(v) is int for v in got)


def extremes(name):
    if name in FLOATS:
        f = np.finfo(name)
        return np.array([-np.inf, f.min, -1.0, 0.0, 1.0, f.max, np.inf], dtype=name)
    i = np.iinfo(name)
    return np.array([i.min, i.max], dtype=name)


@pytest.mark.parametrize("src, dst", list(itertools.product(INTS + FLOATS, INTS)))
def test_limits_agree_with_casts(src, dst):
    vmin, vmax = CAST_LIMITS[augpy_dtype(src), augpy_dtype(dst)]
    a = extremes(src)
    out = augpy.Tensor(a.shape, augpy_dtype(dst))
    augpy.array_to_tensor(a, out)  # saturating cast (aug_copy)
    got = [int(v) for v in out.numpy()]
    lo, hi = min(got), max(got)
    info = np.iinfo(dst)
    assert lo == (vmin if vmin is not None else int(a.min()))
    assert hi == (vmax if vmax is not None else int(a.max()))
    assert info.min <= lo and hi <= info.max


def test_float_targets():
    lo, hi = CAST_LIMITS[augpy.float64, augpy.float32]
    assert lo is None or isinstance(lo, float)
    assert hi is None or isinstance(hi, float)
    assert CAST_LIMITS[augpy.float32, augpy.float64] == (None, None)
    assert CAST_LIMITS[augpy.int8, augpy.float32] == (None, None)
