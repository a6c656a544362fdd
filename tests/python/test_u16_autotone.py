"""equalize, autocontrast and adjust_sharpness on uint16 images (issue 31; docs/colour.md,
docs/semantics.md "Image ops by dtype"): autocontrast and adjust_sharpness against torchvision's
own uint16 results (data/record_torchvision_colour_u16.py) bit for bit; equalize against an exact
NumPy reference of its 65536-bin rule (torchvision bins uint16 in 256 levels); CPU and CUDA byte
for byte (MODE=emu)."""
import pathlib

import numpy as np
import pytest

import augpy
from conftest import ON_CUDA, host_tensor

DATA = np.load(pathlib.Path(__file__).parent / "data" / "torchvision_colour_u16.npz")


def run(fn, x, *args, **kw):
    return augpy.tensor_to_array(fn(augpy.array_to_tensor(np.ascontiguousarray(x)), *args, **kw))


def assert_bits(got, want, where=""):
    assert got.dtype == want.dtype == np.uint16 and got.shape == want.shape
    bad = np.argwhere(got != want)
    assert not len(bad), (f"{where}: {len(bad)} of {got.size} differ, first at {bad[0].tolist()}: "
                          f"{got[tuple(bad[0])]} != {want[tuple(bad[0])]}")


def equalize_ref(x):
    """The 65536-bin rule per plane of (..., H, W): d = values - count of the highest level present;
    lut[k] = min((cum[k - 1] * 65535 + d // 2) // d, 65535), lut[0] = 0; d = 0 keeps the plane."""
    out = np.empty_like(x)
    flat, oflat = x.reshape(-1, *x.shape[-2:]), out.reshape(-1, *x.shape[-2:])
    for p in range(flat.shape[0]):
        hist = np.bincount(flat[p].ravel(), minlength=65536).astype(np.int64)
        d = flat[p].size - hist[np.nonzero(hist)[0][-1]]
        if d == 0:
            oflat[p] = flat[p]
            continue
        cum = np.concatenate([[0], np.cumsum(hist)[:-1]])
        lut = np.minimum((cum * 65535 + d // 2) // d, 65535).astype(np.uint16)
        oflat[p] = lut[flat[p]]
    return out


def test_autocontrast_matches_torchvision():
    assert_bits(run(augpy.autocontrast, DATA["u16"]), DATA["autocontrast"])


def test_sharpness_matches_torchvision():
    x = DATA["u16"]
    for f, want in zip(DATA["sharpness_factors"], DATA["sharpness"]):
        assert_bits(augpy.tensor_to_array(augpy.adjust_sharpness(augpy.array_to_tensor(x), float(f))), want,
                    f"sharpness({f})")


def test_equalize_65536_bins(rng):
    x = rng.integers(0, 65536, (2, 3, 150, 160), dtype=np.uint16)
    x[1, 0] = (x[1, 0] // 4096) * 4096 + 7  # 16 levels
    x[1, 1] = np.clip(rng.normal(20000, 300, (150, 160)), 0, 65535).astype(np.uint16)  # a narrow band
    x[1, 2] = 1234  # flat: kept
    want = equalize_ref(x)
    assert_bits(run(augpy.equalize, x), want, "NCHW")
    # channels last: the same planes
    hwc = np.ascontiguousarray(x[0].transpose(1, 2, 0))
    t = augpy.array_to_tensor(hwc)
    t.layout = "HWC"
    got = augpy.tensor_to_array(augpy.equalize(t))
    assert_bits(got, np.ascontiguousarray(want[0].transpose(1, 2, 0)), "HWC")
    # the narrow band spreads over the whole range
    assert want[1, 1].min() < 2000 and want[1, 1].max() > 63000


def test_autocontrast_stretches_to_full_range(rng):
    x = rng.integers(1000, 3001, (3, 40, 50), dtype=np.uint16)
    x[2] = 500
    got = run(augpy.autocontrast, x)
    assert got[:2].min() == 0 and got[:2].max() == 65535
    assert_bits(got[2], x[2], "a flat plane is kept")
    lo, hi = np.float32(x[0].min()), np.float32(x[0].max())
    inv = (hi - lo) * np.float32(1.0 / 65535.0)
    want = np.trunc(np.clip((x[0].astype(np.float32) - lo) / inv, 0, 65535)).astype(np.uint16)
    assert_bits(got[0], want, "(x - lo) / ((hi - lo) / 65535), truncated")


@pytest.mark.skipif(not ON_CUDA, reason="the CUDA backend is not the default device (MODE=emu runs it)")
def test_cpu_and_cuda_agree_bit_for_bit(rng):
    x = rng.integers(0, 65536, (3, 3, 70, 90), dtype=np.uint16)
    x[2] = np.clip(rng.normal(30000, 2000, (3, 70, 90)), 0, 65535).astype(np.uint16)
    for fn, args in ((augpy.equalize, ()), (augpy.autocontrast, ()), (augpy.adjust_sharpness, (1.7,))):
        assert (augpy.tensor_to_array(fn(host_tensor(x), *args)).tobytes()
                == augpy.tensor_to_array(fn(augpy.array_to_tensor(x), *args)).tobytes()), fn.__name__
