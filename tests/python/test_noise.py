"""RandomNumberGenerator.gaussian_noise with a float x or out (or a 32/64-bit integer or bool one):
tested equal, byte for byte, to the composition it is defined as: a float32 gaussian fill of the same
generator state, then augpy.add(x, noise, out=out); per-image std against the fill with (0, 1) scaled
in float64 (NumPy) and rounded to float32, then add. 8/16-bit integer x into 8/16-bit integer out
takes the integer rule instead (test_noise_table.py). On the default device (CPU, or the emulated
cuda:0 under MODE=emu)."""
import numpy as np
import pytest

import augpy
import filterref as R

DTYPES = ["uint8", "int8", "int16", "uint16", "int32", "int64", "float16", "bfloat16", "float32", "float64", "bool"]
SMALL_INTS = ("uint8", "int8", "int16", "uint16")  # x and out both: the integer rule


def same(a, b):
    a, b = R.read(a), R.read(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))


def composition(x, state, mean, std, out_dtype, stds=None):
    g = augpy.RandomNumberGenerator(seed=0)
    g.set_state(state)
    noise = augpy.empty(tuple(x.shape), dtype=augpy.float32)
    if stds is None:
        g.gaussian(noise, mean, std)
    else:  # the (0, 1) fill, scaled per image in float64, rounded to float32
        g.gaussian(noise, 0.0, 1.0)
        z = noise.numpy().astype(np.float64)
        s = np.asarray(stds, np.float32).astype(np.float64).reshape((-1,) + (1,) * (z.ndim - 1))
        noise = augpy.array_to_tensor((mean + s * z).astype(np.float32))
    out = augpy.empty(tuple(x.shape), dtype=out_dtype)
    augpy.add(x, noise, out=out)
    return out, g.get_state()


@pytest.mark.parametrize("d", DTYPES)
@pytest.mark.parametrize("dout", ["same", "uint8", "float32", "int16"])
def test_equals_fill_then_add(rng, d, dout):
    if d in SMALL_INTS and (dout == "same" or dout in SMALL_INTS):
        pytest.skip("the integer rule (test_noise_table.py)")
    x = R.make(R.random_image(rng, (3, 17, 29), d), d)
    out_dtype = x.dtype if dout == "same" else R.adtype(dout)
    g = augpy.RandomNumberGenerator(seed=1234)
    g.gaussian(augpy.empty((5,), dtype=augpy.float32))  # a later call number than 0
    state = g.get_state()
    for mean, std in [(0.0, 25.0), (3.5, 0.0), (-100.0, 1e3)]:
        out = augpy.empty(tuple(x.shape), dtype=out_dtype)
        r = g.gaussian_noise(x, std, mean, out=out)
        assert r is out
        want, want_state = composition(x, state, mean, std, out_dtype)
        same(out, want)
        assert g.get_state() == want_state  # one call, as the fill
        state = want_state


@pytest.mark.parametrize("d", ["int32", "float32", "int64", "float64"])
def test_per_image_std(rng, d):
    x = R.make(R.random_image(rng, (4, 3, 11, 13), d), d)
    stds = [0.0, 5.0, 17.5, 100.0]
    g = augpy.RandomNumberGenerator(seed=99)
    state = g.get_state()
    got = g.gaussian_noise(x, stds, mean=1.25)
    assert got.dtype == x.dtype and tuple(got.shape) == tuple(x.shape)
    want, _ = composition(x, state, 1.25, None, x.dtype, stds=stds)
    same(got, want)
    g.set_state(state)  # a tensor of stds gives the same
    same(g.gaussian_noise(x, augpy.array_to_tensor(np.asarray(stds, np.float32))), composition(x, state, 0.0, None,
                                                                                               x.dtype, stds)[0])
    g.set_state(state)  # equal stds equal the scalar std
    same(g.gaussian_noise(x, [7.0] * 4), (g.set_state(state), g.gaussian_noise(x, 7.0))[1])


def test_views_draw_in_c_order(rng):
    """A strided x (a flipped, transposed or sliced view) gets draw i at its i-th element in C order."""
    base = R.make(R.random_image(rng, (6, 10, 12), "uint8"), "uint8")
    g = augpy.RandomNumberGenerator(seed=5)
    for v in [base[::-1], base.permute(2, 0, 1), base[1:5, ::3, 2:11], base[:, :, ::-2]]:
        state = g.get_state()
        got = g.gaussian_noise(v, 30.0)
        g.set_state(state)
        same(got, g.gaussian_noise(v.contiguous(), 30.0))
        assert got.is_contiguous


def test_in_place_and_strided_out(rng):
    x = R.make(R.random_image(rng, (2, 8, 9), "uint8"), "uint8")
    g = augpy.RandomNumberGenerator(seed=7)
    state = g.get_state()
    want = g.gaussian_noise(x, 12.0)
    g.set_state(state)
    y = augpy.array_to_tensor(x.numpy())
    assert g.gaussian_noise(y, 12.0, out=y) is y
    same(y, want)
    big = augpy.zeros((2, 8, 18), dtype=augpy.float32)
    g.set_state(state)
    g.gaussian_noise(x, 12.0, out=big[:, :, ::2])
    g.set_state(state)
    same(big[:, :, ::2].contiguous(), g.gaussian_noise(x, 12.0, out=augpy.empty((2, 8, 9), dtype=augpy.float32)))


def test_empty_counts_a_call():
    g = augpy.RandomNumberGenerator(seed=3)
    s0 = g.get_state()
    g.gaussian_noise(augpy.empty((0, 4), dtype=augpy.uint8), 1.0)
    assert g.get_state()[1] == s0[1] + 1


@pytest.mark.parametrize("kw,exc,msg", [
    (dict(std=-1.0), ValueError, "std = -1 must be finite and >= 0"),
    (dict(std=float("nan")), ValueError, "std = nan"),
    (dict(std=float("inf")), ValueError, "std = inf"),
    (dict(std=1.0, mean=float("nan")), ValueError, "mean must be finite"),
    (dict(std=[1.0, 2.0]), ValueError, "stds has shape (2,) but (3,) is needed"),
    (dict(std=[1.0, -2.0, 3.0]), ValueError, "stds[1] = -2"),
    (dict(std=[1.0, float("nan"), 3.0]), ValueError, "stds[1] = nan"),
    (dict(std="abc"), TypeError, "std"),
])
def test_bad_input(rng, kw, exc, msg):
    x = R.make(R.random_image(rng, (3, 4, 5), "uint8"), "uint8")
    g = augpy.RandomNumberGenerator(seed=1)
    s0 = g.get_state()
    with pytest.raises(exc) as e:
        g.gaussian_noise(x, **kw)
    assert "gaussian_noise" in str(e.value) and msg in str(e.value), str(e.value)
    assert g.get_state() == s0  # a refused call does not count


def test_bad_out(rng):
    x = R.make(R.random_image(rng, (3, 4, 5), "uint8"), "uint8")
    g = augpy.RandomNumberGenerator(seed=1)
    with pytest.raises(ValueError, match="out has shape"):
        g.gaussian_noise(x, 1.0, out=augpy.empty((3, 4, 6), dtype=augpy.uint8))
    with pytest.raises(ValueError, match="overlaps x"):
        g.gaussian_noise(x, 1.0, out=x[::-1])
    with pytest.raises(TypeError, match="x"):
        g.gaussian_noise(np.zeros(3), 1.0)
