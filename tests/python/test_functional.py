"""The augpy functional API (semantics §9): add sub rsub mul div rdiv lt le gt ge eq ne
with scalars and tensors, out= (aliasing too), fma, gemm, fill, copy, cast and the
creation helpers, against opsref."""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import augpy
import opsref as R

NAMES = list(R.FUNCTIONAL)
CMP_NAMES = ["lt", "le", "gt", "ge", "eq", "ne"]


def scalars(d):
    if R.kind(d) == "f":
        return [0, 3, -1, 100, 0.5, 2.5, -1.5, 0.0]
    return [0, 3, -1, 7, 300, -300, 2 ** 40, 2 ** 63 - 1, 2 ** 64 - 1, 0.5, 2.5, -1.5, 0.0, 1e10]


def tv(d, seed, shape=(3, 4)):
    t = R.make(R.gen(np.random.default_rng(seed), d, shape), d)
    return t, R.pyvals(R.read(t))


@pytest.mark.parametrize("d", R.DTYPES)
@pytest.mark.parametrize("name", NAMES)
def test_scalar_forms(name, d):
    if d == "bool" and name not in CMP_NAMES:
        pytest.skip("arithmetic on a bool tensor: covered by the operator tests")
    t, x = tv(d, seed=len(name))
    fn = getattr(augpy, name)
    failures = []
    for s in scalars(d):
        exp, rd = R.ref_functional_scalar(name, x, d, s)
        try:
            res = fn(t, s)
            assert R.name_of(res.dtype) == rd, f"{name}({d}, {s!r}): dtype {R.name_of(res.dtype)}"
            R.assert_same(R.read(res), exp, rd, msg=f"{name}({d}, {s!r})")
            if rd == d:
                out = augpy.zeros_like(t)
                assert fn(t, s, out=out) is out
                R.assert_same(R.read(out), exp, rd, msg=f"{name}({d}, {s!r}, out=)")
        except AssertionError as e:
            failures.append(str(e))
    assert not failures, "\n".join(failures)


def test_scalar_examples():
    t = R.make(np.array([200, 0, 5, 255], np.uint8), "uint8")
    assert R.read(augpy.div(t, 3)).tolist() == [67, 0, 2, 85]
    assert R.read(augpy.div(t, 0)).tolist() == [255, 0, 255, 255]
    assert R.read(augpy.rdiv(t, 10)).tolist() == [0, 255, 2, 0]
    assert R.read(augpy.rsub(t, 5)).tolist() == [0, 5, 0, 0]
    assert R.read(augpy.sub(t, 300)).tolist() == [0, 0, 0, 0]
    assert R.read(augpy.add(t, 0.5)).tolist() == [200, 0, 6, 255]
    assert R.read(augpy.mul(t, 0.5)).tolist() == [100, 0, 2, 128]
    assert augpy.lt(t, 300).dtype == augpy.bool_
    assert R.read(augpy.lt(t, 300)).tolist() == [True] * 4
    assert R.read(augpy.ge(t, 4.5)).tolist() == [True, False, True, True]
    i = R.make(np.array([-7, 7, 0], np.int8), "int8")
    assert R.read(augpy.div(i, 2)).tolist() == [-4, 4, 0]
    assert R.read(augpy.div(i, 0)).tolist() == [-128, 127, 0]
    assert R.read(augpy.add(tensor=i, scalar=1)).tolist() == [-6, 8, 1]


@pytest.mark.parametrize("name", NAMES)
def test_tensor_forms_all_pairs(name):
    failures = []
    for da, db in itertools.product(R.DTYPES, repeat=2):
        t1, x1 = tv(da, seed=1)
        t2, x2 = tv(db, seed=2, shape=(4,))
        fn = getattr(augpy, name)
        msg = f"{name}({da}, {db})"
        try:
            exp, rd = R.ref_functional_tensor(name, x1, da, x2, db)
        except TypeError:
            try:
                with pytest.raises(TypeError):
                    fn(t1, t2)
            except BaseException as e:  # noqa: BLE001 - collect all failures
                failures.append(f"{msg}: expected TypeError ({e})")
            continue
        try:
            res = fn(t1, t2)
            assert R.name_of(res.dtype) == rd, f"{msg}: dtype {R.name_of(res.dtype)} != {rd}"
            ulps = 1 if rd == "float32" and max(R.BITS[da], R.BITS[db]) >= 32 and R.kind(da) != "f" \
                and R.kind(db) != "f" else 0
            R.assert_same(R.read(res), exp, rd, ulps=ulps, msg=msg)
            p = R.promote(da, db)
            outs = [p] if R.kind(p) == "f" else [p, "uint8", "int64", "float32"]
            if name in CMP_NAMES:
                outs = ["bool", "uint8"]
            for od in outs:
                exp, _ = R.ref_functional_tensor(name, x1, da, x2, db, out_dtype=od)
                out = augpy.zeros((3, 4), R.adtype(od))
                assert fn(t1, t2, out=out) is out
                R.assert_same(R.read(out), exp, od, ulps=ulps, msg=f"{msg}, out={od}")
        except (AssertionError, TypeError, ValueError) as e:
            failures.append(f"{msg}: {e}")
    assert not failures, "\n".join(failures[:40])


def test_tensor_form_examples():
    a = R.make(np.array([250, 7, 7, 0], np.uint8), "uint8")
    b = R.make(np.array([10, 2, 0, 0], np.uint8), "uint8")
    assert R.read(augpy.add(a, b)).tolist() == [255, 9, 7, 0]
    o = augpy.zeros((4,), augpy.uint16)
    assert R.read(augpy.add(a, b, out=o)).tolist() == [255, 9, 7, 0]  # computed in uint8
    assert R.read(augpy.div(a, b)).tolist() == [25, 4, 255, 0]  # 7/2 = 3.5 -> 4
    assert augpy.div(a, b).dtype == augpy.uint8
    assert augpy.div(a, R.make(np.ones(4, np.float32), "float32")).dtype == augpy.float32
    assert R.read(augpy.rsub(a, b)).tolist() == [0, 0, 0, 0]
    assert R.read(augpy.sub(b, a)).tolist() == [0, 0, 0, 0]
    assert augpy.gt(a, b).dtype == augpy.bool_


def test_out_aliases_input():
    a = R.make(np.array([1, 2, 3], np.int16), "int16")
    assert augpy.mul(a, a, out=a) is a
    assert R.read(a).tolist() == [1, 4, 9]
    assert augpy.sub(a, 10, out=a) is a
    assert R.read(a).tolist() == [-9, -6, -1]


@settings(max_examples=100, deadline=None)
@given(d1=st.sampled_from(R.DTYPES), d2=st.sampled_from(R.DTYPES),
       s=st.sampled_from([0.5, -2, 3, 1.25, 0, -0.75]), seed=st.integers(0, 2 ** 32 - 1))
def test_fma(d1, d2, s, seed):
    rng = np.random.default_rng(seed)
    t1 = R.make(R.gen(rng, d1, (2, 3)), d1)
    t2 = R.make(R.gen(rng, d2, (3,)), d2)
    x1, x2 = R.pyvals(R.read(t1)), R.pyvals(R.read(t2))
    exp, rd = R.ref_fma(s, x1, d1, x2, d2)
    res = augpy.fma(s, t1, t2)
    assert R.name_of(res.dtype) == d2 and tuple(res.shape) == (2, 3)
    R.assert_same(R.read(res), exp, d2, msg=f"fma({s}, {d1}, {d2})")
    out = augpy.zeros((2, 3), augpy.float64)
    exp, _ = R.ref_fma(s, x1, d1, x2, d2, out_dtype="float64")
    assert augpy.fma(s, t1, t2, out) is out
    R.assert_same(R.read(out), exp, "float64", msg=f"fma({s}, {d1}, {d2}, out=float64)")


def test_fma_seed_example():
    noise = R.make(np.array([[-15, 20, -3], [127, -128, 0]], np.int8), "int8")
    w = R.make(np.array([[124, 124, 124], [250, 3, 101]], np.uint8), "uint8")
    r = augpy.fma(0.5, noise, w, w)
    assert r is w
    assert R.read(w).tolist() == [[116, 134, 122], [255, 0, 101]]


@pytest.mark.parametrize("d", ["float32", "float64"])
def test_gemm(d):
    rng = np.random.default_rng(4)
    a, b, c = rng.standard_normal((3, 5)), rng.standard_normal((5, 4)), rng.standard_normal((3, 4))
    A, B, C = (R.make(v.astype(R.NP[d]), d) for v in (a, b, c))
    af, bf, cf = (R.read(T).astype(np.float64) for T in (A, B, C))
    rtol = 1e-5 if d == "float32" else 1e-12
    np.testing.assert_allclose(R.read(augpy.gemm(A, B)), af @ bf, rtol=rtol, atol=rtol)
    assert augpy.gemm(A, B, C, alpha=2.0, beta=0.5) is C
    np.testing.assert_allclose(R.read(C), 2 * af @ bf + 0.5 * cf, rtol=rtol, atol=rtol)
    np.testing.assert_allclose(R.read(A @ B), af @ bf, rtol=rtol, atol=rtol)
    with pytest.raises(ValueError):
        augpy.gemm(A, A)
    with pytest.raises(TypeError):
        augpy.gemm(R.make(np.ones((2, 2), np.uint8), "uint8"), R.make(np.ones((2, 2), np.uint8), "uint8"))


def _run(code, **env):
    import os
    import subprocess
    import sys
    return subprocess.run([sys.executable, "-c", code], env=dict(os.environ, **env), capture_output=True, text=True)


def test_gemm_blas_loaded_on_first_use():
    """libaug opens the BLAS at the first gemm: importing augpy starts no OpenBLAS threads
    (they poll for ~0.1 s after loading), and a BLAS that cannot be loaded is a clear error."""
    code = """
import augpy, numpy as np
def blas():
    return any("libopenblas" in l or "libcblas.so" in l or "libblas.so" in l
               for l in open("/proc/self/maps") if "scipy_openblas" not in l)
before = blas()
a = augpy.asarray(np.ones((2, 3), np.float32))
r = augpy.gemm(a, a.T)
print(before, blas(), np.asarray(r).tolist())
"""
    r = _run(code, AUG_CUDA_BACKEND="off")
    assert r.returncode == 0, r.stderr
    before, after, product = r.stdout.split(" ", 2)
    assert (before, after) == ("False", "True"), r.stdout
    assert product.strip() == "[[3.0, 3.0], [3.0, 3.0]]"
    bad = _run("import augpy, numpy as np\na = augpy.asarray(np.ones((2, 2), np.float32))\naugpy.gemm(a, a)",
               AUG_CUDA_BACKEND="off", AUG_BLAS="/nonexistent/libnoblas.so")
    assert bad.returncode != 0
    assert "gemm" in bad.stderr and "no CBLAS library could be loaded" in bad.stderr
    assert "/nonexistent/libnoblas.so" in bad.stderr


def test_fill_copy_cast():
    t = augpy.Tensor((2, 3), augpy.uint8)
    assert augpy.fill(3.5, t) is t
    assert R.read(t).tolist() == [[4] * 3] * 2
    assert t.fill(-1) is t and R.read(t).tolist() == [[0] * 3] * 2
    assert t.fill(R.make(np.array([1, 300, 2], np.int32), "int32")) is t
    assert R.read(t).tolist() == [[1, 255, 2]] * 2
    t.fill(np.array([[9], [8]], np.float64))
    assert R.read(t).tolist() == [[9] * 3, [8] * 3]
    src = R.make(np.array([-1.5, 2.5, 1e9], np.float32), "float32")
    dst = augpy.zeros((2, 3), augpy.int16)
    assert augpy.copy(src, dst) is dst
    assert R.read(dst).tolist() == [[-2, 2, 32767]] * 2
    augpy.copy(np.array([1, 2, 3], np.uint8), dst)
    assert R.read(dst).tolist() == [[1, 2, 3]] * 2
    with pytest.raises(ValueError):
        augpy.copy(R.make(np.ones(4, np.uint8), "uint8"), dst)
    f = R.make(np.array([np.nan, -np.inf, 255.5, 254.5], np.float64), "float64")
    c = augpy.cast(f, augpy.uint8)
    assert c.dtype == augpy.uint8 and R.read(c).tolist() == [0, 0, 255, 254]
    o = augpy.zeros((4,), augpy.int8)
    assert augpy.cast(f, o) is o and R.read(o).tolist() == [0, -128, 127, 127]
    o2 = augpy.zeros((4,), augpy.float16)
    assert augpy.cast(f, out=o2) is o2
    assert augpy.cast(f, dtype=augpy.bfloat16).dtype == augpy.bfloat16


@pytest.mark.parametrize("d", R.DTYPES)
def test_cast_all_dtypes(d):
    rng = np.random.default_rng(12)
    t = R.make(R.gen(rng, "float64", (20,)), "float64")
    x = R.pyvals(R.read(t))
    exp = np.vectorize(lambda v: R.sat_cast(v, d), otypes=[object])(x)
    R.assert_same(R.read(augpy.cast(t, R.adtype(d))), exp, d, msg=f"cast float64 -> {d}")


def test_creation():
    z = augpy.zeros((2, 3))
    assert z.dtype == augpy.uint8 and tuple(z.shape) == (2, 3) and R.read(z).sum() == 0
    o = augpy.ones((4,), augpy.float16)
    assert o.dtype == augpy.float16 and R.read(o).tolist() == [1.0] * 4
    assert R.read(augpy.ones(3, dtype=augpy.bool_)).tolist() == [True] * 3
    f = augpy.full((2, 2), 7)
    assert f.dtype == augpy.uint8 and R.read(f).tolist() == [[7, 7], [7, 7]]
    assert augpy.full((1,), 0.5).dtype == augpy.float32
    assert augpy.full((1,), True).dtype == augpy.bool_
    assert augpy.full((1,), augpy.Constant(3, augpy.int16)).dtype == augpy.int16
    assert R.read(augpy.full((3,), 300, augpy.uint8)).tolist() == [255] * 3
    assert R.read(augpy.full((2,), -1.5, dtype=augpy.int32)).tolist() == [-2, -2]
    assert tuple(augpy.zeros(()).shape) == () and tuple(augpy.zeros((0, 5)).shape) == (0, 5)
    t = R.make(np.array([[1.5, 2.5]], np.float64), "float64")
    zl = augpy.zeros_like(t)
    assert zl.dtype == augpy.float64 and R.read(zl).tolist() == [[0.0, 0.0]]
    assert augpy.zeros_like(t, augpy.int8).dtype == augpy.int8
    assert R.read(augpy.ones_like(t)).tolist() == [[1.0, 1.0]]
    assert R.read(augpy.full_like(t, 3)).tolist() == [[3.0, 3.0]]
    assert augpy.zeros((2,), device_id=0).dtype == augpy.uint8
    with pytest.raises((ValueError, TypeError)):
        augpy.zeros((-1, 2))
    with pytest.raises(TypeError):
        augpy.full((2,), "x")


def test_launch_arguments():
    t = R.make(np.ones(3, np.uint8), "uint8")
    for kw in ({"blocks_per_sm": 0}, {"threads": 0}, {"blocks_per_sm": 1, "threads": 1024}):
        assert R.read(augpy.add(t, 1, **kw)).tolist() == [2] * 3
    assert R.read(augpy.add(t, 1, None, 8, 512)).tolist() == [2] * 3
    with pytest.raises(ValueError, match="blocks_per_sm"):
        augpy.add(t, 1, blocks_per_sm=-1)
    with pytest.raises(TypeError, match="threads"):
        augpy.add(t, 1, threads=1.5)
    with pytest.raises(TypeError, match="threads"):
        augpy.fill(1, t, threads="x")
    with pytest.raises(ValueError, match="threads"):
        augpy.sum(t, threads=-5)
    with pytest.raises(ValueError, match="blocks_per_sm"):
        augpy.fma(1.0, t, t, blocks_per_sm=-2)
