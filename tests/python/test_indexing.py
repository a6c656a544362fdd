"""Advanced indexing (integer index arrays and boolean masks, mixed with basic
indices) of tensors on the session's device, reading and writing, against NumPy."""
import numpy as np
import pytest

import augpy
from conftest import DEVICE

A = np.arange(2 * 3 * 4 * 5, dtype=np.int32).reshape(2, 3, 4, 5)
M3 = (A[0] % 3) == 0            # (3, 4, 5) mask
M2 = (A[0, :, :, 0] % 7) < 3    # (3, 4) mask

KEYS = [
    [1, 0],
    [-1, 0, 1, 1],
    np.array([1, 0]),
    np.array([[0, 1], [1, 1]]),
    (slice(None), [2, 0]),
    (slice(None), [0, 2], slice(1, 3)),
    (Ellipsis, [4, -5, 0]),
    (Ellipsis, [1, 3], slice(None)),
    (0, slice(None), [1, 3]),
    ([0, 1], slice(None), [1, 2]),                  # separated by a slice: B goes first
    ([0, 1], slice(None), slice(None), [1, 2]),
    (slice(None), [0, 2], [1, 3]),                  # adjacent
    ([[0], [1]], [[0, 1, 2]]),                      # broadcast (2, 3)
    ([0, 1], [0, 1], [0, 1], [0, 1]),
    (slice(None), [1], 1),                          # int next to an array counts as advanced
    (1, [2, 0], 1),
    (slice(None), 1, slice(None), [0, 4]),          # int separated from the array by a slice
    (None, [1, 0]),
    ([1, 0], None, slice(2)),
    (slice(None, None, -1), [2, 0, 1], slice(None, None, 2)),
    A > 60,
    (1, M3),
    (slice(None), M2),
    (slice(None), M2, [0, 4, 1, 2, 3]),         # the mask's 5 entries broadcast with the array
    (np.array([True, False]), slice(None), [3]),
    (Ellipsis, np.array([True, False, True, False, True])),
    [True, False],
    np.array([], dtype=np.int64),
    [],
    (slice(None), np.zeros((3,), bool)),
    (Ellipsis, [4, 3, 2, 1, 0]),                    # strided runs (a negative step down to 0)
    (slice(None), slice(None), [0, 2, 3, 1, 3, 3, 0]),
    (slice(None), [2, 1, 0], slice(None, None, -2)),
    (Ellipsis, [0, 2, 3, 1], 1),
]


def ids(k):
    return repr(k)[:60]


@pytest.mark.parametrize("key", KEYS, ids=[ids(k) for k in KEYS])
def test_get(key):
    t = augpy.asarray(A)
    got = t[key]
    want = A[key]
    assert got.device == DEVICE and got.dtype == augpy.int32
    assert got.shape == want.shape
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("key", KEYS, ids=[ids(k) for k in KEYS])
def test_set(key):
    want = A.copy()
    want[key] = -7
    t = augpy.asarray(A)
    t[key] = -7
    np.testing.assert_array_equal(t.numpy(), want)
    # an array value broadcast to the result (NumPy's shape)
    shape = A[key].shape
    value = (np.arange(int(np.prod(shape)), dtype=np.int64) * 3 - 50).reshape(shape)
    want = A.copy()
    want[key] = value
    t = augpy.asarray(A)
    t[key] = augpy.asarray(value)
    np.testing.assert_array_equal(t.numpy(), want)
    t = augpy.asarray(A)
    t[key] = value  # a NumPy value
    np.testing.assert_array_equal(t.numpy(), want)


def test_index_sources():
    t = augpy.asarray(A[0, 0])
    idx = [3, 0, 3]
    for key in (idx, tuple([idx]), np.array(idx), np.array(idx, np.uint8), augpy.asarray(np.array(idx, np.int16)),
                augpy.asarray(np.array(idx)).cpu()):
        np.testing.assert_array_equal(t[key].numpy(), A[0, 0][idx])
    mask = A[0, 0] % 2 == 0
    for key in (mask, list(mask), augpy.asarray(mask)):
        np.testing.assert_array_equal(t[key].numpy(), A[0, 0][mask])
    # a 0-d integer array is an integer (basic indexing, a view)
    v = t[np.array(2)]
    assert v.shape == (5,)


def test_tensor_index_device_and_dtypes():
    for dt in (np.uint8, np.float32, np.float64, np.int64, bool):
        a = (np.arange(12).reshape(3, 4) % 5).astype(dt)
        t = augpy.asarray(a)
        np.testing.assert_array_equal(t[[2, 0]].numpy(), a[[2, 0]])
        np.testing.assert_array_equal(t[a > 1].numpy(), a[a > 1])


def test_set_broadcast_and_casts():
    a = np.zeros((3, 4), np.uint8)
    t = augpy.asarray(a)
    t[[0, 2]] = np.array([1, 300, -5, 7])           # broadcast over rows, saturated to uint8
    a[[0, 2]] = [1, 255, 0, 7]
    np.testing.assert_array_equal(t.numpy(), a)
    t[t.numpy() == 7] = 2.6                          # a float scalar rounds (saturate_cast)
    a[a == 7] = 3
    np.testing.assert_array_equal(t.numpy(), a)
    t[:, [1, 3]] = (9, 8)                            # a tuple value
    a[:, [1, 3]] = (9, 8)
    np.testing.assert_array_equal(t.numpy(), a)


def test_duplicates_last_write_wins():
    t = augpy.zeros((4,), augpy.int16)
    t[[1, 1, 3, 1]] = augpy.asarray(np.array([5, 6, 7, 8], np.int16))
    np.testing.assert_array_equal(t.numpy(), [0, 8, 0, 7])
    a = np.zeros((4,), np.int16)
    a[[1, 1, 3, 1]] = [5, 6, 7, 8]
    np.testing.assert_array_equal(t.numpy(), a)


def test_overlapping_value():
    a = np.arange(6, dtype=np.int32)
    t = augpy.asarray(a)
    t[[1, 2, 3]] = t[0:3]       # the value is a view of the destination: read before writing
    a[[1, 2, 3]] = a[0:3].copy()
    np.testing.assert_array_equal(t.numpy(), a)


def test_runs_and_large_mask():
    rng = np.random.default_rng(5)
    img = rng.integers(0, 256, (64, 48, 3)).astype(np.uint8)
    t = augpy.asarray(img)
    mask = img[..., 0] > 100
    np.testing.assert_array_equal(t[mask].numpy(), img[mask])
    t[mask] = np.array([1, 2, 3], np.uint8)
    img[mask] = [1, 2, 3]
    np.testing.assert_array_equal(t.numpy(), img)
    idx = np.concatenate([np.arange(5, 30), np.arange(0, 3), [47, 46]])
    np.testing.assert_array_equal(t[:, idx].numpy(), img[:, idx])
    # a non-contiguous source (mask dims cannot be merged)
    v = t[:, ::2]
    m = mask[:, ::2]
    np.testing.assert_array_equal(v[m].numpy(), img[:, ::2][m])


def test_errors():
    t = augpy.asarray(A)
    with pytest.raises(IndexError, match="index 2 is out of bounds for axis 0 with size 2"):
        t[[0, 2]]
    with pytest.raises(IndexError, match="index -6 is out of bounds for axis 3 with size 5"):
        t[..., [-6]]
    with pytest.raises(IndexError, match="boolean index did not match"):
        t[np.array([True, False, True])]
    with pytest.raises(IndexError, match="integer"):
        t[np.array([0.5, 1.0])]
    with pytest.raises(IndexError, match="could not be broadcast together"):
        t[[0, 1], [0, 1, 2]]
    with pytest.raises(IndexError, match="too many indices"):
        t[[0], [0], [0], [0], [0]]
    with pytest.raises(ValueError, match="could not be broadcast to indexing result"):
        t[[0, 1]] = np.zeros((3,))
    with pytest.raises(TypeError, match="cannot assign"):
        t[[0]] = "x"
    with pytest.raises(IndexError, match="out of bounds"):
        t[[0, 5]] = 1
    with pytest.raises(IndexError, match="index 18446744073709551615 is out of bounds"):
        t[np.array([2**64 - 1], np.uint64)]


def test_random_keys():
    """Random mixes of index arrays (with duplicates and negatives), masks, ints and slices."""
    rng = np.random.default_rng(99)
    a = rng.integers(-1000, 1000, (3, 4, 5, 2)).astype(np.int16)
    t = augpy.asarray(a)
    for _ in range(60):
        key = []
        for d in range(a.ndim):
            r = rng.random()
            if r < 0.3:
                key.append(rng.integers(-a.shape[d], a.shape[d], rng.integers(1, 6)))
            elif r < 0.4:
                key.append(rng.random(a.shape[d]) < 0.5)
            elif r < 0.5:
                key.append(int(rng.integers(-a.shape[d], a.shape[d])))
            else:
                key.append(slice(int(rng.integers(0, 2)), None, int(rng.choice([1, 2, -1]))))
        arrays = [k for k in key if isinstance(k, np.ndarray)]
        try:
            want = a[tuple(key)]
        except IndexError:
            with pytest.raises(IndexError):
                t[tuple(key)]
            continue
        got = t[tuple(key)]
        assert got.shape == want.shape, key
        np.testing.assert_array_equal(got.numpy(), want)
        b = a.copy()
        value = rng.integers(-50, 50, want.shape).astype(np.int16)
        b[tuple(key)] = value
        u = augpy.asarray(a)
        u[tuple(key)] = value
        if not any(len(np.unique(x)) < len(x) for x in arrays if x.dtype != bool):
            np.testing.assert_array_equal(u.numpy(), b)  # duplicates: NumPy's order is not promised


@pytest.mark.parametrize("dt", [np.uint8, np.int64, np.float16, np.float32, bool])
def test_mask_writes_of_one_value(dt):
    """t[mask] = v with one v for every selected entry (the WHERE kernel path) against NumPy."""
    rng = np.random.default_rng(7)
    a = (rng.integers(-300, 300, (4, 5, 3)) % (2 if dt is bool else 1000)).astype(dt)
    m2 = rng.random((4, 5)) < 0.4
    m3 = rng.random((4, 5, 3)) < 0.4
    cases = [
        (m2, 7), (m2, 2.6), (m3, -1), (m2, (1, 2, 3)), (m2, np.array([[9], [8], [7]])[:, 0]),
        (augpy.asarray(m2), 1e9), (augpy.asarray(m2).cpu(), 3), (augpy.asarray(m3), augpy.asarray(np.array(5, dt))),
        ((m2,), [4, 5, 6]), (list(map(list, m2)), 1), (m2, np.array([1.5, -2.5, 300.0])),
    ]
    for mask, value in cases:
        t = augpy.asarray(a)
        t[mask] = value
        want = a.copy()
        key = mask.numpy() if isinstance(mask, augpy.Tensor) else (
            mask if not isinstance(mask, list) else np.array(mask))
        v = value.numpy() if isinstance(value, augpy.Tensor) else np.asarray(value)
        if np.dtype(dt).kind in "iu":   # augpy saturates (round half to even); NumPy would wrap
            info = np.iinfo(dt)
            v = np.clip(np.round(v.astype(np.float64)), info.min, info.max)
        elif dt is np.float16:
            v = np.clip(v.astype(np.float64), -65504, 65504)
        want[key] = v.astype(dt) if dt is not bool else v.astype(bool)
        np.testing.assert_array_equal(t.numpy(), want, err_msg=f"{mask!r:.40} = {value!r}")


def test_mask_write_value_aliases_target():
    a = np.arange(12, dtype=np.int32).reshape(4, 3)
    t = augpy.asarray(a)
    m = a[:, 0] % 2 == 0
    t[m] = t[1]                 # a view of t itself, read before it is overwritten
    a[m] = a[1].copy()
    np.testing.assert_array_equal(t.numpy(), a)


def test_set_values_partly_broadcast_over_index_dims():
    for key, vshape in [(([[0], [1]], [[0, 1, 2]]), (2, 1, 4, 5)), (([[0], [1]], [[0, 1, 2]]), (1, 3, 1, 5)),
                        (([[1]], [[2, 0]]), (1, 2, 4, 5)), (([[1]], [[2, 0]]), (4, 1)),
                        ((slice(None), [[0, 1]], [[3], [1]]), (2, 2, 2, 5))]:
        value = (np.arange(int(np.prod(vshape))) - 7).reshape(vshape).astype(np.int32)
        want = A.copy()
        want[key] = value
        t = augpy.asarray(A)
        t[key] = augpy.asarray(value)
        np.testing.assert_array_equal(t.numpy(), want, err_msg=repr(key))
