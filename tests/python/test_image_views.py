"""Views everywhere: lighting and the blurs take strided inputs (a crop of a batch, a flipped view,
a transposed HWC -> CHW view, negative strides) and give exactly the result of the same values made
contiguous first; on the default device (CPU, or the emulated cuda:0 under MODE=emu)."""
import numpy as np
import pytest

import augpy

DTYPES = ["uint8", "int16", "float32", "float64"]


def batch(rng, d, shape=(4, 3, 14, 17)):
    if d in ("float32", "float64"):
        return augpy.array_to_tensor(rng.uniform(0, 255, shape).astype(d))
    return augpy.array_to_tensor(rng.integers(0, 200, shape).astype(d))


def views(t):
    """Strided views of an (N, C, H, W) batch, each (N', C, H', W')."""
    hwc = augpy.array_to_tensor(np.ascontiguousarray(t.numpy().transpose(0, 2, 3, 1)))
    return {
        "crop": t[1:3, :, 2:11, 3:15],
        "flip_w": t[:, :, :, ::-1],
        "flip_hw": t[:, :, ::-1, ::-1],
        "step": t[::2, :, ::2, 1::3],
        "hwc_permuted": hwc.permute(0, 3, 1, 2),
        "reversed_batch": t[::-1],
    }


def same(a, b):
    np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("d", DTYPES)
def test_lighting_views(rng, d):
    t = batch(rng, d)
    for name, v in views(t).items():
        assert not v.is_contiguous, name
        n, c = v.shape[0], v.shape[1]
        gg = augpy.array_to_tensor(rng.uniform(0.5, 2.0, n).astype(np.float32))
        gc = augpy.array_to_tensor(rng.uniform(0.7, 1.4, n * c).astype(np.float32))
        ct = augpy.array_to_tensor(rng.uniform(-1.0, 1.0, n).astype(np.float32))
        same(augpy.lighting(v, gg, gc, ct, 0, 255), augpy.lighting(v.contiguous(), gg, gc, ct, 0, 255))
        one = v[0]  # a strided (C, H, W) image
        same(augpy.lighting(one, gg[:1], gc[:c], ct[:1], 0, 255),
             augpy.lighting(one.contiguous(), gg[:1], gc[:c], ct[:1], 0, 255))


@pytest.mark.parametrize("d", DTYPES)
def test_blur_views(rng, d):
    t = batch(rng, d)
    for name, v in views(t).items():
        sig = augpy.array_to_tensor(np.linspace(0.6, 2.2, v.shape[0]).astype(np.float32))
        same(augpy.gaussian_blur(v, sig, 9), augpy.gaussian_blur(v.contiguous(), sig, 9))
        one = v[-1]
        for k in (1, 3, 4):
            same(augpy.box_blur_single(one, k), augpy.box_blur_single(one.contiguous(), k))
        for s in (0.0, 1.3):
            same(augpy.gaussian_blur_single(one, s), augpy.gaussian_blur_single(one.contiguous(), s))


def test_output_may_be_the_viewed_memory(rng):
    """The strided input is packed first, so the result may go to memory the view reads."""
    t = batch(rng, "uint8", (2, 3, 8, 9))
    flipped = t[:, :, :, ::-1]
    want = augpy.box_blur_single(flipped[0].contiguous(), 3)
    out = augpy.array_to_tensor(t.numpy()[0])
    same(augpy.box_blur_single(out[:, :, ::-1], 3, out=out), want)
    gg = augpy.array_to_tensor(np.ones(2, np.float32) * 1.5)
    gc = augpy.array_to_tensor(np.ones(6, np.float32))
    ct = augpy.array_to_tensor(np.array([0.3, -0.2], np.float32))
    want = augpy.lighting(flipped.contiguous(), gg, gc, ct, 0, 255)
    out = augpy.array_to_tensor(t.numpy())
    same(augpy.lighting(out[:, :, :, ::-1], gg, gc, ct, 0, 255, out=out), want)
    with pytest.raises(ValueError, match="augpy.lighting.*contiguous"):
        v = out[:, :, :, ::-1]
        augpy.lighting(v, gg, gc, ct, 0, 255, out=v)
