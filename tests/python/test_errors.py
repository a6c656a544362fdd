"""Bad input to the operators, functional API, math and reductions: the right
exception type with a message naming the function and the value (semantics §16); and a
subprocess run of crash-prone calls checking that the interpreter survives."""
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import augpy
import augpy.math as am
import opsref as R


def u8(shape, v=0):
    return R.make(np.full(shape, v, np.uint8), "uint8")


def f32(shape, v=0.0):
    return R.make(np.full(shape, v, np.float32), "float32")


@pytest.mark.parametrize("op,dunder", [("&", "and"), ("|", "or"), ("^", "xor")])
def test_bitwise_on_floats(op, dunder):
    fn = {"&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b}[op]
    pat = "^" + re.escape(f"Tensor.__{dunder}__: Inputs to bitwise operator `{op}` must be of integral type.")
    for a, b in ((f32(3), u8(3)), (u8(3), f32(3)), (f32(3), 1), (u8(3), 1.5), (2.5, u8(3))):
        with pytest.raises(TypeError, match=pat):
            fn(a, b)


def test_invert_and_shift_on_floats():
    with pytest.raises(TypeError, match="must be of integral type"):
        ~f32(2)
    with pytest.raises(TypeError, match="must be of integral type"):
        u8(2) << 1.5
    with pytest.raises(TypeError, match="must be of integral type"):
        f32(2) >> 1


@pytest.mark.parametrize("op", ["+", "-", "/", "//", "%", "**"])
def test_arithmetic_on_bools(op):
    b = R.make(np.array([True, False]), "bool")
    fn = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "/": lambda x, y: x / y,
          "//": lambda x, y: x // y, "%": lambda x, y: x % y, "**": lambda x, y: x ** y}[op]
    pat = "Inputs to arithmetic operator `" + op.replace("*", "\\*").replace("+", "\\+") + "` cannot be booleans"
    with pytest.raises(TypeError, match=pat):
        fn(b, b)
    with pytest.raises(TypeError, match=pat):
        fn(b, True)
    assert R.read(b * b).tolist() == [True, False]  # the one allowed arithmetic operation
    assert (b + 1).dtype == augpy.int32  # a weak int scalar is not a bool


def test_incompatible_shapes():
    a, b = u8((2, 3, 4)), u8((2, 3, 3))
    with pytest.raises(ValueError, match=r"cannot broadcast shapes \(2, 3, 4\) and \(2, 3, 3\)"):
        a + b
    with pytest.raises(ValueError, match=r"^Tensor.__mul__: cannot broadcast shapes"):
        a * b
    with pytest.raises(ValueError, match=r"^augpy.add: cannot broadcast shapes \(2, 3, 4\) and \(2, 3, 3\)"):
        augpy.add(a, b)
    with pytest.raises(ValueError, match=r"^augpy.math.max: cannot broadcast shapes"):
        am.max(a, b)
    with pytest.raises(ValueError, match="cannot broadcast shapes"):
        a < b
    with pytest.raises(ValueError, match=r"^augpy.copy: cannot broadcast shape \(2, 3, 4\) to \(2, 3, 3\)"):
        augpy.copy(a, b)
    with pytest.raises(ValueError, match="^augpy.fma: cannot broadcast shape"):
        augpy.fma(1.0, a, b)


def test_out_of_wrong_shape():
    a = u8((2, 3))
    for out in (u8((3, 2)), u8((6,)), u8((2, 3, 1)), u8(())):
        with pytest.raises(ValueError, match="augpy.add"):
            augpy.add(a, 1, out=out)
        with pytest.raises(ValueError, match="augpy.math.sqrt"):
            am.sqrt(a, out=out)
    with pytest.raises(ValueError, match="augpy.sum"):
        augpy.sum(a, 0, out=u8((2,)))
    with pytest.raises(ValueError, match="augpy.cast"):
        augpy.cast(a, u8((4,)))


def test_wrong_types():
    a = u8((2,))
    with pytest.raises(TypeError, match="augpy.add"):
        augpy.add("x", 1)
    with pytest.raises(TypeError, match="augpy.add"):
        augpy.add(a, "x")
    with pytest.raises(TypeError, match="augpy.add"):
        augpy.add(a, 1, out=np.zeros(2))
    with pytest.raises(TypeError, match="missing required argument 'other'"):  # the name in add's signature
        augpy.add(a)
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        augpy.add(a, 1, bogus=2)
    with pytest.raises(TypeError, match="multiple values for argument 'out'"):
        augpy.add(a, 1, None, out=None)
    with pytest.raises(TypeError, match="at most 5 positional"):
        augpy.add(a, 1, None, 8, 512, 7)
    with pytest.raises(TypeError, match="augpy.fma: scalar must be a number"):
        augpy.fma("x", a, a)
    with pytest.raises(TypeError, match="augpy.fma"):
        augpy.fma(1.0, a, [1, 2])
    with pytest.raises(TypeError, match="augpy.cast"):
        augpy.cast(a, "not a dtype")
    with pytest.raises(TypeError, match="augpy.fill"):
        augpy.fill("x", a)
    with pytest.raises(TypeError, match="augpy.fill"):
        augpy.fill(1, "x")
    with pytest.raises(TypeError):
        a.fill()
    with pytest.raises(TypeError, match="augpy.gemm"):
        augpy.gemm(a, 3)
    with pytest.raises(TypeError, match="augpy.sum"):
        augpy.sum(a, axis=[0, "x"])
    with pytest.raises(TypeError, match="augpy.zeros"):
        augpy.zeros((2,), dtype="bogus")
    with pytest.raises(TypeError, match="augpy.zeros"):
        augpy.zeros((2,), device_id="0")


def test_scalar_out_of_range():
    a = u8((2,))
    with pytest.raises(OverflowError):
        a + 2 ** 64
    with pytest.raises(OverflowError):
        augpy.add(a, -2 ** 70)
    with pytest.raises(ValueError, match="blocks_per_sm"):
        augpy.add(a, 1, blocks_per_sm=2 ** 40)


def test_errors_leave_out_untouched():
    a, out = u8((2, 3), 5), u8((2, 3), 9)
    with pytest.raises(ValueError):
        augpy.add(a, u8((4,)), out=out)
    assert R.read(out).tolist() == [[9] * 3] * 2


CRASH_PRONE = textwrap.dedent(r"""
    import gc, sys
    import numpy as np
    import augpy, augpy.math as am

    def expect_error(fn):
        try:
            fn()
        except (ValueError, TypeError, IndexError, OverflowError, MemoryError, RuntimeError):
            return
        raise SystemExit("no error from %r" % (fn,))

    t = augpy.zeros((2, 3))
    huge = [(2 ** 40, 2 ** 40), (2 ** 62,), (2 ** 31,) * 4, (-1,), (1,) * 9, (2 ** 63 - 1, 2)]
    for shape in huge:
        expect_error(lambda: augpy.zeros(shape))
        expect_error(lambda: augpy.full(shape, 1.5))
        expect_error(lambda: augpy.ones(shape, augpy.float64))
    expect_error(lambda: augpy.zeros(10 ** 30))
    expect_error(lambda: augpy.zeros("abc"))
    expect_error(lambda: augpy.zeros(None))
    for bad in (None, object(), "x", b"x", 2 ** 80, -2 ** 80, float("nan"), [[1], [2, 3]], {}):
        for fn in (augpy.add, augpy.sub, augpy.div, augpy.rdiv, augpy.lt, augpy.eq):
            try:
                fn(t, bad)
            except (TypeError, OverflowError, ValueError):
                pass
        for fn in (am.sqrt, am.abs, am.exp):
            expect_error(lambda: fn(bad))
        if not isinstance(bad, (int, float)):  # a number is a valid addend (a scalar fma)
            expect_error(lambda: augpy.fma(1.0, t, bad))
        expect_error(lambda: augpy.sum(bad))
        expect_error(lambda: augpy.cast(t, bad))
        try:
            t + bad
        except (TypeError, OverflowError, ValueError):
            pass
    e = augpy.zeros((0, 4), augpy.float32)
    _ = e + 1, e.sum(), e.sum(0), e.any(), am.sqrt(e), augpy.mean(e)
    expect_error(lambda: e.min())
    z = augpy.zeros(())
    _ = z + z, z.sum(), am.sqrt(z), -z, ~z
    x = augpy.zeros((3, 4), augpy.float64)
    expect_error(lambda: augpy.gemm(x, x))
    expect_error(lambda: augpy.gemm(x, x, x))
    expect_error(lambda: augpy.sum(x, (0, 1, 2, 3, 4, 5, 6, 7, 8)))
    expect_error(lambda: augpy.sum(x, -10 ** 20))
    expect_error(lambda: x.fill(np.zeros((5, 5))))
    expect_error(lambda: augpy.copy(np.zeros((2, 2)), x))
    v = x[::2, ::-1]
    v += 1
    expect_error(lambda: augpy.Constant(1, None) + object())
    for i in range(200):
        try:
            x + augpy.zeros((i % 5,))
        except ValueError:
            pass
    gc.collect()
    print("survived")
""")


def test_interpreter_survives_crash_prone_inputs():
    r = subprocess.run([sys.executable, "-c", CRASH_PRONE], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "survived" in r.stdout


# A machine without cuBLAS, and a kernel fault, as the emulated devices model them
# (tests/cuda_emu: AUG_EMU_NO_CUBLAS, AUG_EMU_FAULT), in a child interpreter: gemm alone
# fails, saying why; after the fault, the device's calls name the sticky error and say to
# restart, while the other device works on.
CUDA_FAULTS = textwrap.dedent("""
    import numpy as np
    import augpy
    a = augpy.array_to_tensor(np.ones((4, 3), np.float32)).cuda(0)
    b = augpy.array_to_tensor(np.ones((3, 2), np.float32)).cuda(0)
    try:
        augpy.gemm(a, b)
        raise SystemExit("gemm ran without cuBLAS")
    except augpy.CuBlasError as e:
        assert "cuBLAS is not available" in str(e) and "AUG_CUBLAS_LIBRARY" in str(e), str(e)
    assert (a + a).numpy().sum() == 24.0
    assert augpy.gemm(a.cpu(), b.cpu()).numpy().tolist() == [[3.0, 3.0]] * 4
    t = augpy.Tensor((1000,), dtype=augpy.float32).cuda(1)
    fill = lambda: augpy.RandomNumberGenerator(device_id=1, seed=1).uniform(t, 0, 1)
    try:
        fill()  # the fault is reported by a later call, or by this call's own launch check when the
                # faulting kernel has already run (a sticky error: the emulator's shuffled order can do that)
    except augpy.CudaError as e:
        assert "cudaErrorMisalignedAddress" in str(e) and "restart the process" in str(e), str(e)
    for call in (t.numpy, lambda: augpy.Tensor((3 << 20,), dtype=augpy.uint8).cuda(1), fill):
        try:
            call()
            raise SystemExit("no error after the fault")
        except augpy.CudaError as e:
            m = str(e)
            assert "cudaErrorMisalignedAddress" in m and "restart the process" in m, m
            assert "out of memory" not in m, m
    assert (a + a).numpy().sum() == 24.0
    print("ok")
""")


@pytest.mark.skipif(os.environ.get("AUG_CUDA_BACKEND") != "emu", reason="the emulated devices model these")
def test_missing_cublas_and_sticky_fault():
    env = dict(os.environ, AUG_EMU_NO_CUBLAS="1", AUG_EMU_FAULT="aug__k_random:cudaErrorMisalignedAddress")
    r = subprocess.run([sys.executable, "-c", CUDA_FAULTS], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0 and "ok" in r.stdout, r.stdout + r.stderr


@pytest.mark.skipif(os.environ.get("AUG_CUDA_BACKEND") != "emu", reason="the emulated devices model it")
def test_no_driver_reason():
    """The CUDA module on a machine without NVIDIA's driver (the wheel's module on a GPU-less
    host; AUG_EMU_NO_DRIVER: no NVML, no libcuda.so.1, the runtime's cudaErrorInsufficientDriver):
    cuda_status() says that the driver is missing, not that it is too old, and augpy runs on the CPU."""
    env = {k: v for k, v in os.environ.items() if k not in ("AUG_REQUIRE_CUDA", "AUG_DEVICE")}
    env["AUG_EMU_NO_DRIVER"] = "1"
    code = "import augpy; print(augpy.cuda_status()); print(augpy.zeros((1,), dtype=augpy.uint8).device)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["no CUDA device (no NVIDIA driver: libcuda.so.1 is not installed)", "cpu"], r.stdout
