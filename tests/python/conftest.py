"""Shared pytest set-up for the augpy suites.

Hypothesis runs without deadlines (the first call of a kernel may be slow on a
busy machine); `DTYPE_NAMES` and the helpers give every test the same view of
the 13 dtypes and their NumPy counterparts (NumPy is the independent reference).
"""
import ctypes
import gc
import importlib.util
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

import augpy

settings.register_profile(
    "augpy", deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
# CI replays the same examples every run (a landing must not depend on luck);
# local runs draw new ones and so keep finding new cases.
settings.register_profile("ci", parent=settings.get_profile("augpy"), derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "augpy")

HAVE_ML_DTYPES = importlib.util.find_spec("ml_dtypes") is not None

# The device the suite runs on: the default one, "cpu", or "cuda:0" when the CUDA
# backend runs (`make pytest-emu` runs the whole suite again on the emulated
# devices). Tests of host-only protocols (the buffer protocol, NumPy's DLPack)
# use host_tensor, so they run in both sessions.
DEVICE = augpy.Tensor((1,)).device
DEVICE_ID = augpy.Tensor((1,)).device_id  # AUG_DEVICE=cuda:1 makes it 1
ON_CUDA = DEVICE != "cpu"

# What a Decoder() of this session decodes JPEGs with: 'libjpeg-turbo' (CPU), 'nvjpeg'
# (CUDA with nvJPEG; the emulator's stand-in with AUG_EMU_NVJPEG=1) or
# 'libjpeg-turbo+upload'. The decode stages plan DCT-scaled / region decodes by default
# (dct_scale=None) only when it is not 'nvjpeg' (a planned decode runs on the CPU there).
DECODE_ENGINE = augpy.Decoder().engine
PLANS_BY_DEFAULT = DECODE_ENGINE != "nvjpeg"
# nvJPEG's own failures (cuda/jpeg.cu): "nvJPEG failed in <call>: NVJPEG_STATUS_X".
NVJPEG_FAILURE = r"nvJPEG failed in nvjpeg\w+: NVJPEG_STATUS_[A-Z_]+"


def decode_error(dec, reason):
    """The pattern a decode error of dec matches: libjpeg-turbo's reason (a regex) on the CPU
    engines; on the 'nvjpeg' engine nvJPEG refuses corrupt or truncated files with its own
    status (NVJPEG_FAILURE) where libjpeg would have said reason, so either is accepted."""
    engine = dec if isinstance(dec, str) else dec.engine
    return f"(?:{reason}|{NVJPEG_FAILURE})" if engine == "nvjpeg" else reason


# Under AddressSanitizer (`make pytest-asan` preloads libasan) the resident set
# measures ASan's quarantine and shadow memory, not ours: tests that bound its
# growth skip there (leaks are LeakSanitizer's job in the C suite).
UNDER_ASAN = "libasan" in os.environ.get("LD_PRELOAD", "")
rss_bound = pytest.mark.skipif(UNDER_ASAN, reason="the resident set is meaningless under ASan")


def host_tensor(array):
    """A CPU tensor with a copy of `array`, whatever the default device."""
    return augpy.array_to_tensor(array).cpu()

# The 12 dtypes NumPy has natively (bfloat16 needs ml_dtypes).
DTYPE_NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
               "float16", "float32", "float64"]
ALL_DTYPE_NAMES = DTYPE_NAMES[:10] + ["bfloat16"] + DTYPE_NAMES[10:]


def augpy_dtype(name):
    """augpy.DLDataType for a dtype name ('bool' -> augpy.bool_)."""
    return getattr(augpy, "bool_" if name == "bool" else name)


def random_array(rng, shape, name):
    """Random values of dtype `name` spanning its whole range (floats: also +-0, inf, nan)."""
    dt = np.dtype(name)
    if dt.kind == "b":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True)
    a = np.asarray(rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, size=shape)).astype(dt)
    flat = a.reshape(-1)
    if flat.size >= 6:
        flat[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, np.finfo(dt).max]
    return a


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


def emulated_module():
    """The path of the loaded emulated CUDA module (libaug_cuda_emu*.so), or None."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1]
                if os.path.basename(path).startswith("libaug_cuda_emu") and ".so" in path:
                    return path
    except OSError:
        pass
    return None


def emulated_runtime():
    """The loaded emulated CUDA module as a ctypes library, its count of the calling thread's host
    waits (aug_emu_host_waits(None)) typed, or None."""
    path = emulated_module()
    if path is None:
        return None
    lib = ctypes.CDLL(path)
    lib.aug_emu_host_waits.argtypes = [ctypes.c_void_p]
    lib.aug_emu_host_waits.restype = ctypes.c_longlong
    return lib


def host_waits_of(fn):
    """(the calling thread's host waits during fn(), fn()) on the emulated device, the device
    idle before and after; skips without the emulated module. Garbage is collected first and
    not during fn: an object of an earlier test freed inside fn (a decoder waits for its last
    uploads) would count its waits here."""
    lib = emulated_runtime()
    if lib is None:
        pytest.skip("needs the emulated CUDA module (its count of host waits)")
    gc.collect()
    augpy.synchronize()
    gc.disable()
    try:
        w0 = lib.aug_emu_host_waits(None)
        out = fn()
        waits = lib.aug_emu_host_waits(None) - w0
    finally:
        gc.enable()
    augpy.synchronize()
    return waits, out
