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
