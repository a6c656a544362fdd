"""The augpy manual's examples ("Examples" and "CudaTensor" sections of the seed)
as literal tests, on the default device (the CPU where there is no GPU).

Deviations semantics.md makes are applied: comparisons give bool tensors (semantics §19),
repr shows `device=cpu` and a one-tuple as `(3,)`, and since a new tensor is
uninitialised (the manual's own note) the examples that print zeros fill first."""
import numpy as np
import pytest

import augpy


def test_create_and_basic_math():
    t = augpy.CudaTensor((3, 3)).fill(7)
    assert t.numpy().tolist() == [[7, 7, 7]] * 3
    t += 11
    assert t.numpy().tolist() == [[18, 18, 18]] * 3
    assert t.dtype == augpy.uint8


def test_array_to_tensor_example():
    array = np.array([124, 116, 104], dtype=np.uint8)
    background = augpy.array_to_tensor(array)
    assert tuple(background.shape) == (3,)
    assert background.dtype == augpy.uint8
    assert background.numpy().tolist() == [124, 116, 104]


def test_cudatensor_indexing_examples():
    t = augpy.CudaTensor((2, 2, 4), augpy.uint8)
    assert tuple(t.shape) == (2, 2, 4)
    assert tuple(t[1, 1, 3].shape) == ()
    assert tuple(t[-1].shape) == (2, 4)
    assert tuple(t[:, 0].shape) == (2, 4)
    assert tuple(t[:, 1:, 1:-1].shape) == (2, 1, 2)
    assert tuple(t[:, :, ::2].shape) == (2, 2, 2)


def test_cudatensor_math_examples():
    t = augpy.CudaTensor((2, 2, 4), augpy.uint8)
    t.fill(0)
    assert t.numpy().tolist() == np.zeros((2, 2, 4), np.uint8).tolist()
    t += 3
    assert t.numpy().tolist() == np.full((2, 2, 4), 3).tolist()
    r = 5 - t
    assert r.dtype == augpy.uint8 and r.numpy().tolist() == np.full((2, 2, 4), 2).tolist()
    c = t > (t - 1)
    assert c.dtype == augpy.bool_
    assert c.numpy().astype(np.uint8).tolist() == np.ones((2, 2, 4), np.uint8).tolist()


def test_saturating_example():
    t = augpy.CudaTensor((2, 2, 4), augpy.uint8)
    t[:] = 40
    assert t.numpy().tolist() == np.full((2, 2, 4), 40).tolist()
    r = 0 - t
    assert r.dtype == augpy.uint8 and r.numpy().tolist() == np.zeros((2, 2, 4)).tolist()


def test_broadcasting_example():
    t1 = augpy.CudaTensor((3, 1), augpy.uint8).fill(0)
    t2 = augpy.CudaTensor((1, 3), augpy.uint8).fill(0)
    r = (t1 + 3) * (t2 + 4)
    assert r.dtype == augpy.uint8
    assert r.numpy().tolist() == [[12, 12, 12]] * 3


def test_fma_noise_example():
    """`augpy.fma(0.5, noise, warped[0], warped[0])`: noise int8, image uint8, in place."""
    rng = np.random.default_rng(5)
    noise_np = np.clip(np.round(rng.normal(5, 80, (224, 224))), -128, 127).astype(np.int8)
    img_np = rng.integers(0, 256, (3, 224, 224)).astype(np.uint8)
    noise, warped = augpy.array_to_tensor(noise_np), augpy.array_to_tensor(img_np)
    r = augpy.fma(0.5, noise, warped[0], warped[0])
    assert tuple(r.shape) == (224, 224)
    exact = 0.5 * noise_np.astype(np.float64) + img_np[0]
    expected = np.clip(np.round(exact), 0, 255).astype(np.uint8)  # np.round: half to even
    res = warped.numpy()
    np.testing.assert_array_equal(res[0], expected)
    np.testing.assert_array_equal(res[1:], img_np[1:])  # other channels untouched


def test_sum_returns_scalar_tensor():
    t = augpy.CudaTensor((3, 3)).fill(100)
    s = augpy.sum(t)
    assert tuple(s.shape) == () and s.dtype == augpy.uint8 and int(s) == 255
    s = t.sum(upcast=True)
    assert tuple(s.shape) == () and int(s) == 900


def test_repr_on_cpu():
    if augpy.CudaTensor((1,)).device != "cpu":
        pytest.skip("default device is a GPU")
    t = augpy.CudaTensor((2, 2, 4), augpy.uint8)
    # the manual prints <CudaTensor ...>: the class is augpy.Tensor now (CudaTensor its alias)
    assert repr(t) == "<Tensor shape=(2, 2, 4), device=cpu, dtype=uint8>"
    assert repr(t[1, 1, 3]) == "<Tensor shape=(), device=cpu, dtype=uint8>"


def test_make_transform_example():
    if not hasattr(augpy, "make_transform"):
        pytest.skip("augpy.make_transform is not built")
    warped = augpy.CudaTensor((3, 224, 224))
    m, s = augpy.make_transform((480, 640), warped.shape[1:], angle=10)
    np.testing.assert_allclose(np.asarray(m.numpy() if hasattr(m, "numpy") else m),
                               [[2.1103022, -0.37210324, 125.3217], [0.37210324, 2.1103022, -38.029423]],
                               rtol=1e-6)
