"""Hostile callers and runaway arguments (issue 12): DLPack producers whose deleter is
Python code, unbounded supersampling, Ctrl-C during long calls, self-overlapping
outputs.

Checks that could crash or hang the interpreter run in a child interpreter with
a timeout, so a failure fails the test instead of killing pytest.
"""
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import augpy
from conftest import DEVICE, ON_CUDA

HERE = os.path.dirname(os.path.abspath(__file__))


def child(code, timeout=120, **popen):
    """Start `code` in a fresh interpreter (a session of its own); returns the Popen."""
    env = dict(os.environ)
    env["PYTHONWARNINGS"] = "ignore::DeprecationWarning"
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=HERE, start_new_session=True, **popen)


def finish(p, timeout=120):
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        pytest.fail(f"child interpreter hung (> {timeout} s): {out!r} {err!r}")
    return p.returncode, out, err


def run_ok(code, timeout=120):
    rc, out, err = finish(child(code), timeout)
    assert rc == 0, f"exit {rc}\nstdout: {out}\nstderr: {err}"
    return out


# ---- DLPack import: a producer deleter written in Python ---------------------------------------

CTYPES_DLPACK = """
import ctypes, gc, sys
import numpy as np
import augpy

class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]
class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]
class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]
class DLManagedTensor(ctypes.Structure):
    pass
DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER)]

PyCapsule_New = ctypes.pythonapi.PyCapsule_New
PyCapsule_New.restype = ctypes.py_object
PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]

calls = []
def deleter(ptr):
    calls.append(ptr[0].dl_tensor.ndim)   # Python code: fails if an exception is pending
deleter_c = DELETER(deleter)

arr = np.arange(6, dtype=np.float32)
shape = (ctypes.c_int64 * 1)(6)
NAME = b"dltensor"
def capsule():
    m = DLManagedTensor()
    m.dl_tensor.data = arr.ctypes.data
    m.dl_tensor.device = DLDevice(1, 0)        # kDLCPU
    m.dl_tensor.ndim = 1
    m.dl_tensor.dtype = DLDataType(2, 32, 1)   # float32
    m.dl_tensor.shape = shape
    m.deleter = deleter_c
    keep.append(m)
    return PyCapsule_New(ctypes.addressof(m), NAME, None)
keep = []
"""


def test_dlpack_python_deleter_with_exception_pending():
    """The imported tensor is freed while the TypeError of the call that used it is being raised:
    the caller sees that TypeError (not SystemError) and the ctypes deleter runs once."""
    out = run_ok(CTYPES_DLPACK + """
t = augpy.from_dlpack(capsule())
assert t.numpy().tolist() == list(range(6)) and calls == []
del t
gc.collect()
assert calls == [1], calls
try:
    augpy.add(augpy.from_dlpack(capsule()), object())   # the tensor dies with the TypeError set
except TypeError as e:
    print("TypeError:", e)
except SystemError as e:
    print("SystemError:", e)
gc.collect()
assert calls == [1, 1], calls
# the deleter itself raising: reported as unraisable, the caller's result is unaffected
def bad(ptr):
    calls.append("bad")
    raise RuntimeError("deleter failed")
bad_c = DELETER(bad)
seen = []
sys.unraisablehook = lambda u: seen.append(u.exc_type)
m = DLManagedTensor()
m.dl_tensor.data = arr.ctypes.data
m.dl_tensor.device = DLDevice(1, 0)
m.dl_tensor.ndim = 1
m.dl_tensor.dtype = DLDataType(2, 32, 1)
m.dl_tensor.shape = shape
m.deleter = bad_c
t = augpy.from_dlpack(PyCapsule_New(ctypes.addressof(m), NAME, None))
assert float(augpy.add(t, 1).numpy()[5]) == 6.0
del t
gc.collect()
assert calls[-1] == "bad"
print("done")
""")
    assert "TypeError:" in out and "SystemError" not in out, out
    assert out.strip().endswith("done")


# ---- self-overlapping outputs ------------------------------------------------------------------

from numpy.lib.stride_tricks import as_strided  # noqa: E402


def overlapping(shape, strides, dtype=np.float32, size=64):
    """A writable NumPy view whose elements share memory, imported via DLPack (a CPU tensor)."""
    base = np.zeros(size, dtype)
    item = base.itemsize
    start = 8 if min(strides) < 0 else 0
    v = as_strided(base[start:], shape=shape, strides=tuple(s * item for s in strides))
    return augpy.from_dlpack(v), v


# Elements sharing memory; the last two are distinct but interleave (refused by design: the check
# proves distinctness by sorting axes by stride, see aug__check_no_self_overlap and docs/semantics.md).
SELF_OVERLAP = [((3, 3), (1, 1)), ((4, 4), (2, 1)), ((2, 3, 4), (12, 1, 2)), ((5,), (0,)), ((3, 3), (-1, 1)),
                ((3, 2), (2, 3)), ((2, 3, 4), (12, 2, 3))]


@pytest.mark.parametrize("shape,strides", SELF_OVERLAP)
def test_self_overlapping_out_refused(shape, strides):
    """Every op writing an output refuses one whose elements may share memory (its result would
    depend on the thread count); the memory is not written."""
    t, v = overlapping(shape, strides)
    msg = r"(self-overlapping strides|zero stride|stride 0)"
    src = augpy.array_to_tensor(np.arange(np.prod(shape), dtype=np.float32).reshape(shape)).cpu()
    ones7 = augpy.array_to_tensor(np.ones((7,) + shape, np.float32)).cpu()
    calls = {
        "add": lambda: augpy.add(src, 1, out=t),
        "mul": lambda: augpy.mul(src, src, out=t),
        "fill": lambda: augpy.fill(3, t),
        "Tensor.fill": lambda: t.fill(3),
        "copy": lambda: augpy.copy(src, t),
        "cast": lambda: augpy.cast(augpy.cast(src, augpy.int32), t),
        "sum": lambda: augpy.sum(ones7, 0, out=t),
        "max": lambda: augpy.max(ones7, 0, out=t),
        "index put": lambda: t.__setitem__([0, 1], 5),
        "mask put": lambda: t.__setitem__(np.ones(shape, bool), 5),
        "mask put values": lambda: t.__setitem__(np.ones(shape, bool), src.ravel()),
    }
    for name, call in calls.items():
        with pytest.raises(ValueError, match=msg):
            call()
        assert not v.any(), name


def test_self_overlapping_random_target():
    rng = augpy.RandomNumberGenerator(seed=3)
    for fill in (rng.uniform, rng.gaussian):
        arr = as_strided(np.zeros(16, np.float32), shape=(4, 4), strides=(4, 4))  # an array target
        with pytest.raises(ValueError, match="RandomNumberGenerator.(uniform|gaussian): .*self-overlapping"):
            fill(arr, 0, 1)
        assert not arr.any()
        if not ON_CUDA:  # a tensor target must be on the generator's device
            t, v = overlapping((3, 3), (1, 1))
            with pytest.raises(ValueError, match="(uniform|gaussian): target has self-overlapping"):
                fill(t, 0, 1)
            assert not v.any()


def test_image_outputs_must_be_distinct():
    """Warp, lighting and blur outputs must be contiguous: an overlapping view is refused."""
    img = augpy.array_to_tensor(np.ones((2, 3, 4, 4), np.float32)).cpu()
    t, v = overlapping((2, 3, 4, 4), (0, 1, 4, 1), size=256)
    with pytest.raises(ValueError, match="out must be contiguous"):
        augpy.lighting(img, [1, 1], [[1, 1, 1]] * 2, [0, 0], 0, 1, out=t)
    with pytest.raises(ValueError, match="contiguous"):
        augpy.gaussian_blur(img, [1.0, 1.0], 5, out=t)
    src = augpy.array_to_tensor(np.ones((4, 4, 3), np.float32)).cpu()
    with pytest.raises(ValueError, match="warp_affine"):
        augpy.warp_affine([src, src], t, [[[1, 0, 0], [0, 1, 0]]] * 2)
    assert not v.any()


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_distinct_strided_outputs_accepted(threads):
    """Views whose elements are distinct (transposed, stepped, flipped, padded rows) are written
    like NumPy does, whatever the thread count."""
    augpy.set_num_threads(threads)
    try:
        rng = np.random.default_rng(7)
        for make in (lambda b: b.reshape(6, 8).T, lambda b: b.reshape(6, 8)[::2, ::-3],
                     lambda b: b.reshape(4, 12)[:, 1:9:2], lambda b: b.reshape(2, 3, 8).transpose(2, 0, 1)[::-1]):
            base = np.zeros(48, np.float32)
            v = make(base)
            t = augpy.from_dlpack(v)
            x = rng.standard_normal(v.shape).astype(np.float32)
            augpy.add(augpy.array_to_tensor(x).cpu(), 1, out=t)
            assert np.array_equal(v, x + np.float32(1))
            touched = np.zeros(48, bool)
            make(touched)[...] = True
            assert not base[~touched].any()  # nothing outside the view was written
            s = augpy.sum(augpy.array_to_tensor(np.stack([x, x])).cpu(), 0, out=t)
            assert np.allclose(v, x + x) and s.shape == v.shape
    finally:
        augpy.set_num_threads(0)


# ---- Ctrl-C during long calls -----------------------------------------------------------------

LONG_CALLS = {
    # seconds to minutes each on the CPU backend; the GIL is released throughout
    "warp_affine": """
        src = augpy.array_to_tensor(np.zeros((1500, 1500, 3), np.float32))
        dst = augpy.Tensor((3, 1500, 1500), augpy.float32)
        call = lambda: augpy.warp_affine(src, dst, [[1, 0, 0], [0, 1, 0]], None, 16)
        """,
    "gaussian_blur": """
        img = augpy.array_to_tensor(np.zeros((3, 2000, 2000), np.float32))
        call = lambda: augpy.gaussian_blur_single(img, 150.0)
        """,
    "random_gaussian": """
        rng = augpy.RandomNumberGenerator(seed=1)
        t = augpy.Tensor((60_000_000,), augpy.float64)
        call = lambda: rng.gaussian(t, 0, 1)
        """,
}


@pytest.mark.parametrize("name", sorted(LONG_CALLS))
def test_ctrl_c_interrupts_long_call(name):
    """SIGINT 0.5 s into a long call raises KeyboardInterrupt from that call within a couple of seconds
    (the CPU backend polls Python's signal handlers between tasks)."""
    code = textwrap.dedent("""
        import signal, time, sys
        import numpy as np
        import augpy
        # Python's own handler even where the runner ignores SIGINT (a shell's background
        # job inherits SIG_IGN, and so would this child: then no KeyboardInterrupt at all)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        augpy.set_num_threads(2)
        """) + textwrap.dedent(LONG_CALLS[name]) + textwrap.dedent("""
        print("start", flush=True)
        t0 = time.monotonic()
        try:
            call()
            print("finished without interruption after %.2f s" % (time.monotonic() - t0), flush=True)
        except KeyboardInterrupt:
            print("KeyboardInterrupt after %.2f s" % (time.monotonic() - t0), flush=True)
        """)
    env = dict(os.environ, AUG_CUDA_BACKEND="off", PYTHONWARNINGS="ignore")
    env.pop("AUG_REQUIRE_CUDA", None)
    env.pop("AUG_DEVICE", None)
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env, cwd=HERE, start_new_session=True)
    try:
        line = p.stdout.readline()
        assert line.strip() == "start", (line, p.stderr.read() if p.poll() is not None else "")
        time.sleep(0.5)
        sent = time.monotonic()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
        waited = time.monotonic() - sent
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        pytest.fail(f"{name}: not interrupted within 30 s: {out!r} {err!r}")
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert p.returncode == 0, (out, err)
    assert "KeyboardInterrupt after" in out, out
    assert waited < 3.0, f"{name}: {waited:.2f} s from SIGINT to exit"


def test_signal_handler_runs_during_long_call():
    """A handler that does not raise runs while the call is in progress, and the call then completes
    (the output is whole)."""
    code = textwrap.dedent("""
        import signal, time
        import numpy as np
        import augpy
        seen = []
        signal.signal(signal.SIGUSR1, lambda *_: seen.append(time.monotonic()))
        src = augpy.array_to_tensor(np.full((1200, 1200, 3), 7, np.float32))
        dst = augpy.Tensor((3, 1200, 1200), augpy.float32)
        print("start", flush=True)
        augpy.warp_affine(src, dst, [[1, 0, 0], [0, 1, 0]], None, 16)
        end = time.monotonic()
        assert len(seen) == 1 and seen[0] < end - 0.05, (seen, end)
        assert (dst.numpy()[:, 1:-1, 1:-1] == 7).all()
        print("ok %.2f s before the end" % (end - seen[0]), flush=True)
        """)
    env = dict(os.environ, AUG_CUDA_BACKEND="off", AUG_NUM_THREADS="2")
    env.pop("AUG_REQUIRE_CUDA", None)
    env.pop("AUG_DEVICE", None)
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env, cwd=HERE, start_new_session=True)
    try:
        assert p.stdout.readline().strip() == "start"
        time.sleep(0.2)
        p.send_signal(signal.SIGUSR1)
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert p.returncode == 0 and out.startswith("ok"), (out, err)
