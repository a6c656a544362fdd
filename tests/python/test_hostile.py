"""Hostile Python callers (issue 12): objects whose __index__ / __float__ / __bool__
mutate or raise, lists changed while they are read, out-of-range ints, huge shapes,
huge int scalars. Each check runs in a child interpreter with a timeout, so a crash
or a hang fails the test instead of killing pytest; the child imports augpy from
where this process did, with the same environment (backend, default device).

The last test runs the random hostile-call driver (hostile_driver.py) for a bounded
number of calls; `make fuzz-python` runs it for longer."""
import os
import subprocess
import sys
import textwrap

import augpy

HERE = os.path.dirname(os.path.abspath(__file__))
AUGPY_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(augpy.__file__)))


def child_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([AUGPY_ROOT, HERE] + [p for p in [env.get("PYTHONPATH")] if p])
    return env


def run_child(code, timeout=120):
    """Runs `code` (after `import augpy, numpy as np` and the helpers of PRELUDE) in a
    child; fails on a crash, a hang or a failed assertion there."""
    src = "import augpy\nimport numpy as np\n" + PRELUDE + textwrap.dedent(code) + "\nprint('child done')\n"
    try:
        r = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True, timeout=timeout,
                           env=child_env())
    except subprocess.TimeoutExpired:
        raise AssertionError(f"the child hung (over {timeout} s) running:\n{src}") from None
    assert r.returncode == 0 and r.stdout.endswith("child done\n"), \
        f"child exited with {r.returncode}\n--- code\n{src}\n--- stdout\n{r.stdout}\n--- stderr\n{r.stderr}"
    return r.stdout


# Helpers the children share: a list whose first item's conversion clears it (or
# replaces its items), as in the reproducer.
PRELUDE = """
import re

def raises(exc, pattern, fn, *a, **k):
    try:
        fn(*a, **k)
    except exc as e:
        assert re.search(pattern, str(e)), f"{type(e).__name__}: {e!r} does not match {pattern!r}"
        return e
    raise AssertionError(f"{fn} did not raise {exc.__name__}")

def clearing(first, *rest, conv="__index__"):
    '''A list whose first item's conversion (returning `first`) clears the list.'''
    L = []
    class Item:
        pass
    setattr(Item, conv, lambda self: (L.clear(), first)[1])
    L[:] = [Item(), *rest]
    return L

def replacing(first, *rest, conv="__index__", junk=b"junk"):
    '''A list whose first item's conversion replaces every item with `junk`.'''
    L = []
    class Item:
        pass
    setattr(Item, conv, lambda self: (L.__setitem__(slice(None), [junk] * 10), first)[1])
    L[:] = [Item(), *rest]
    return L
"""


def test_shapes_from_mutating_lists():
    # The shape is read from a snapshot of the list taken before any __index__ ran.
    run_child("""
    for make in (clearing, replacing):
        assert augpy.zeros(make(3, 4)).shape == (3, 4)
        assert augpy.ones(make(3, 4)).shape == (3, 4)
        assert augpy.full(make(3, 4), 7).numpy().tolist() == [[7] * 4] * 3
        assert augpy.Tensor(make(3, 4)).shape == (3, 4)
        assert augpy.Tensor(make(3, 4), augpy.float32).shape == (3, 4)
        assert augpy.zeros((12,)).reshape(make(3, 4)).shape == (3, 4)
        assert augpy.empty_like(augpy.zeros(make(3, 4))).shape == (3, 4)
    """)


def test_dali_reshape_mutating_lists():
    run_child("""
    t = augpy.zeros((12,))
    for make in (clearing, replacing):
        assert augpy.reshape(t, shape=make(3, 4)).shape == (3, 4)
        assert augpy.reshape(t, make(3, 4)).shape == (3, 4)
        assert augpy.reshape(augpy.zeros((6, 2)), rel_shape=make(0.5, 2.0, conv="__float__")).shape == (3, 4)
        assert augpy.reshape(augpy.zeros((3, 4)), src_dims=make(1, 0)).shape == (4, 3)
    # data: a list of tensors whose items are replaced by bytes while the shape is parsed
    D = [augpy.zeros((12,)), augpy.zeros((12,))]
    class I:
        def __index__(self):
            D[:] = [b"xx"] * 5
            return 3
    out = augpy.reshape(D, shape=[I(), 4])
    assert [o.shape for o in out] == [(3, 4), (3, 4)]
    D[:] = [augpy.zeros((12,))]
    class J:
        def __index__(self):
            D.clear()
            return 3
    assert [o.shape for o in augpy.reshape(D, shape=[J(), 4])] == [(3, 4)]
    """)


def test_warp_mutating_lists():
    run_child("""
    for make in (clearing, replacing):
        m, ss = augpy.make_transform(make(4, 4), [4, 4])
        assert m.shape == (2, 3) and ss >= 1
        m2, _ = augpy.make_transform([4, 4], make(4, 4))
        assert np.allclose(m, m2)
        m3, _ = augpy.make_transform([4, 4], [4, 4], shift=make(0.0, 0.0, conv="__float__"))
        m4, _ = augpy.make_transform([4, 4], [4, 4], shear=make(0.0, 0.0, conv="__float__"))
        assert np.allclose(m, m3) and np.allclose(m, m4)
        src = augpy.zeros((2, 4, 4, 3), augpy.float32)
        dst = augpy.zeros((2, 3, 4, 4), augpy.float32)
        augpy.warp_affine(src, dst, [[[1, 0, 0], [0, 1, 0]]] * 2, supersampling=make(2, 2))
    """)


def test_flags_evaluated_in_order():
    # sum(-1, keepdim=obj): the tensor argument fails first; obj.__bool__ must not run
    # with that exception pending (SystemError before).
    run_child("""
    calls = []
    class Flag:
        def __bool__(self):
            calls.append(1)
            return True
    for fn in (augpy.sum, augpy.mean, augpy.min, augpy.max, augpy.all, augpy.any):
        raises(TypeError, fn.__name__ + ": tensor must be", fn, -1, keepdim=Flag())
    raises(TypeError, "augpy.sum: tensor must be", augpy.sum, -1, keepdim=Flag(), upcast=Flag())
    assert calls == []
    class Boom(Exception):
        pass
    class Bad:
        def __bool__(self):
            raise Boom("bool")
    t = augpy.zeros((2, 3))
    raises(Boom, "bool", augpy.sum, t, keepdim=Bad(), upcast=Flag())
    raises(Boom, "bool", augpy.sum, t, upcast=Bad(), axis="x")
    assert calls == []
    raises(TypeError, "augpy.sum: axis", augpy.sum, t, keepdim=Flag(), axis="x")
    assert augpy.sum(t, 1, keepdim=Flag()).shape == (2, 1)
    """)


def test_int_arguments_name_function_and_range():
    run_child("""
    s = augpy.CudaStream()
    raises(ValueError, r"^CudaStream.synchronize: microseconds = 9223372036854775808 is out of range "
           r"\\[-2147483648, 2147483647\\]$", s.synchronize, 2 ** 63)
    raises(ValueError, r"^CudaEvent.synchronize: microseconds = -2147483649 is out of range",
           augpy.CudaEvent().synchronize, -2 ** 31 - 1)
    raises(ValueError, r"^DLDataType: code = 18446744073709551616 is out of range \\[0, 255\\]$",
           augpy.DLDataType, 2 ** 64, 8)
    raises(ValueError, r"^DLDataType: bits = -1 is out of range \\[0, 255\\]$", augpy.DLDataType, 1, -1)
    raises(ValueError, r"^DLDataType: lanes = 65536 is out of range \\[0, 65535\\]$", augpy.DLDataType, 1, 8, 65536)
    raises(TypeError, r"^DLDataType: code must be an int", augpy.DLDataType, 1.5, 8)
    assert augpy.DLDataType(1, 8) == augpy.uint8
    raises(ValueError, r"^Decoder: device_padding = -\\(an int of 301 bits\\) is out of range "
           r"\\[0, 9223372036854775807\\]$", augpy.Decoder, -2 ** 300)
    raises(ValueError, r"^Decoder: device_padding = -1606938044258990275541962092341162602522202993782792835301376 is "
           r"out of range", augpy.Decoder, -2 ** 200)
    raises(ValueError, r"^Decoder: host_padding = -1 is out of range", augpy.Decoder, 0, -1)
    raises(ValueError, r"^Tensor: invalid device_id 2147483648", augpy.Tensor, (3,), augpy.uint8, 2 ** 31)
    raises(ValueError, r"^augpy.zeros: invalid device_id", augpy.zeros, (3,), device_id=2 ** 70)
    raises(ValueError, r"^augpy.full: invalid device_id", augpy.full, (3,), 1, device_id=2 ** 70)
    t = augpy.zeros((2,))
    raises(ValueError, r"^Tensor.__dlpack__: max_version\\[0\\] = ", t.__dlpack__, max_version=(2 ** 70, 0))
    # an __index__ that returns a huge int is reported by its value, not the object's repr
    class Huge:
        def __index__(self):
            return 10 ** 5000
    raises(ValueError, r"^CudaStream.synchronize: microseconds = \\(an int of 16610 bits\\) is out of range",
           s.synchronize, Huge())
    """)


def test_too_big_shapes_are_value_errors():
    # NumPy's rule and wording: ValueError "array is too big; ...".
    run_child("""
    big = r"array is too big; `arr.size \\* arr.dtype.itemsize` is larger than the maximum possible size"
    for exc_np, call in [
            (lambda: np.empty((2 ** 62,), np.uint32), lambda: augpy.Tensor((2 ** 62,), augpy.uint32)),
            (lambda: np.zeros((0, 2 ** 62, 4)), lambda: augpy.zeros((0, 2 ** 62, 4))),
            (lambda: np.ones((2 ** 31, 2 ** 31), np.float64), lambda: augpy.ones((2 ** 31, 2 ** 31), augpy.float64)),
            (lambda: np.full((2 ** 62, 8), 1, np.int8), lambda: augpy.full((2 ** 62, 8), 1, augpy.int8))]:
        e = raises(ValueError, big, exc_np)
        raises(ValueError, "^augpy.|^Tensor: " + big, call)
    raises(ValueError, "^Tensor.reshape: ", augpy.zeros((0,)).reshape, (0, 2 ** 62, 4))
    """)


def test_huge_int_scalars_follow_the_weak_rule():
    # NumPy 2: a Python int next to a float array becomes that float (correctly rounded);
    # beyond the double range OverflowError; next to an integer dtype it does not fit.
    run_child("""
    def sat(npdt, x):  # x written into npdt (full, fill, setitem): a conversion, saturating
        info = np.finfo(npdt)
        return np.clip(np.float64(x), info.min, info.max).astype(npdt)
    for dt, npdt in [(augpy.float64, np.float64), (augpy.float32, np.float32), (augpy.float16, np.float16)]:
        a = np.array([0.5, -3.0], npdt)
        t = augpy.array_to_tensor(a)
        for v in (2 ** 64, 2 ** 64 + 2 ** 11 + 1, -2 ** 70 - 1, 3 * 2 ** 100, 2 ** 1023):
            with np.errstate(over="ignore"):  # arithmetic: inf where float32/16 overflow, as NumPy
                exp = np.asarray(a + v)
            got = (t + v).numpy()
            assert got.dtype == npdt and got.tolist() == exp.tolist(), (dt, v, got, exp)
            assert (v + t).numpy().tolist() == exp.tolist()
            assert augpy.add(t, v).numpy().tolist() == exp.tolist()
        assert augpy.full((2,), 2 ** 64, dt).numpy().tolist() == [float(sat(npdt, 2.0 ** 64))] * 2
        f = augpy.zeros((2,), dt)
        f.fill(-2 ** 65)
        assert f.numpy().tolist() == [float(sat(npdt, -2.0 ** 65))] * 2
        f[0] = 2 ** 66
        assert f.numpy().tolist() == [float(sat(npdt, 2.0 ** 66)), float(sat(npdt, -2.0 ** 65))]
        assert augpy.full_like(f, 2 ** 64).numpy().tolist() == [float(sat(npdt, 2.0 ** 64))] * 2
    t = augpy.zeros((2,), augpy.float64)
    assert (t + 2 ** 64).numpy().tolist() == (np.zeros(2) + 2 ** 64).tolist()
    assert augpy.eq(t + 2 ** 64, 2 ** 64).numpy().tolist() == [True, True]
    assert augpy.math.clamp(t, -2 ** 70, 2 ** 70).numpy().tolist() == [0.0, 0.0]
    assert augpy.fma(2 ** 64, augpy.ones((2,), augpy.float32), augpy.ones((2,), augpy.float32)).numpy().tolist() \\
        == [2.0 ** 64] * 2
    # beyond the double range: OverflowError naming the operation (NumPy: "int too large to convert to float")
    raises(OverflowError, r"^Tensor.__add__: integer scalar \\(an int of 1101 bits\\) is too large to convert to float",
           lambda: t + 2 ** 1100)
    raises(OverflowError, r"^augpy.add: integer scalar .* too large to convert to float", augpy.add, t, -2 ** 1100)
    raises(OverflowError, r"^augpy.full: integer scalar .* too large to convert to float", augpy.full, (2,),
           10 ** 400, augpy.float64)
    # an integer (or bool) dtype cannot take it: OverflowError naming the operation and the dtype
    u = augpy.zeros((2,), augpy.uint8)
    raises(OverflowError, r"^Tensor.__add__: integer scalar 18446744073709551616 is out of range for uint8$",
           lambda: u + 2 ** 64)
    raises(OverflowError, r"^Tensor.__radd__: integer scalar .* is out of range for uint8$|^Tensor.__add__: ",
           lambda: 2 ** 64 + u)
    raises(OverflowError, r"^augpy.add: integer scalar -1180591620717411303424 is out of range for uint8$",
           augpy.add, u, -2 ** 70)
    raises(OverflowError, r"^augpy.full: integer scalar 18446744073709551616 is out of range for int64$",
           augpy.full, (2,), 2 ** 64, augpy.int64)
    raises(OverflowError, r"^augpy.full: integer scalar 18446744073709551616 is out of range \\[", augpy.full, (2,),
           2 ** 64)
    raises(OverflowError, r"^Tensor.fill: .* out of range for bool$", augpy.zeros((2,), augpy.bool_).fill, 2 ** 64)
    raises(OverflowError, r"^Tensor.__setitem__: .* out of range for uint8$", u.__setitem__, 0, 2 ** 64)
    raises(OverflowError, r"^augpy.math.clamp: .* out of range for int8$", augpy.math.clamp,
           augpy.zeros((2,), augpy.int8), -2 ** 70, 2 ** 70)
    """)


def test_random_hostile_calls():
    """A bounded run of the hostile-call driver over the whole public API (seeded: the
    same calls every run; AUG_HOSTILE_SEED / AUG_HOSTILE_CALLS choose others). A crash,
    hang, SystemError or undocumented exception fails with the call to replay."""
    import hostile_driver
    seed = int(os.environ.get("AUG_HOSTILE_SEED", "0"))
    calls = int(os.environ.get("AUG_HOSTILE_CALLS", "5000"))
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = child_env()["PYTHONPATH"]
    try:
        findings, ncalls, secs = hostile_driver.run_batches(seed, calls, None, batch=1000, jobs=2, timeout=60)
    finally:
        if old is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = old
    assert not findings, hostile_driver.report(seed, findings, ncalls, secs)
    assert ncalls == calls
