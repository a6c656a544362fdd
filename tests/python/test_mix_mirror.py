"""augpy.mix_mirror (C: aug_mix_mirror; docs/policies.md "Mixing in one pass") against its
definition written out with NumPy: MixUp's a * w + b * v with each product and the sum rounded in
the dtype (the weights as float32 for float16 / float32, as augpy.mul and add round them, which is
torch's x.mul_(lam).add_(x.flip(0).mul_(1 - lam))), CutMix's box taking the mirror's values,
weights (1, 0) leaving an image as it is; odd and even batches, N = 1, one entry for all, boxes on
the edges and empty ones, views (a slice of a bigger batch, reversed images, an NHWC buffer as
NCHW); the session's device (the emulated CUDA device with MODE=emu) against the CPU byte for byte;
the composition of mul / add / copy it replaces (also inside Mixup, every float dtype and mode);
then bad input."""
import numpy as np
import pytest

import augpy
from conftest import host_tensor


def reference(x, weights, boxes):
    """The mixed batch of x (N, C, H, W) as a new array; weights / boxes: one per image or None."""
    n = x.shape[0]
    y = x.copy()
    ct = np.float64 if x.dtype == np.float64 else np.float32
    for i in range(n):
        a, b = x[i], x[n - 1 - i]
        box = boxes[i] if boxes is not None else None
        if box is not None and box[0] < box[2] and box[1] < box[3]:
            x1, y1, x2, y2 = box
            y[i][:, y1:y2, x1:x2] = b[:, y1:y2, x1:x2]
            continue
        w, v = weights[i] if weights is not None else (1.0, 0.0)
        if w == 1.0 and v == 0.0:
            continue
        p = (a.astype(ct) * ct(w)).astype(x.dtype)
        q = (b.astype(ct) * ct(v)).astype(x.dtype)
        y[i] = (p.astype(ct) + q.astype(ct)).astype(x.dtype)
    return y


def values(rng, shape, dt):
    x = ((rng.random(shape) - 0.5) * 6).astype(dt)
    x.flat[::13] = -0.0
    return x


def run(x, weights, boxes, view=None):
    """mix_mirror on the session's device and on the CPU; both results as arrays."""
    out = []
    for t in (augpy.array_to_tensor(x), host_tensor(x)):
        v = view(t) if view else t
        assert augpy.mix_mirror(v, weights, boxes) is v
        out.append(augpy.tensor_to_array(t))
    assert out[0].tobytes() == out[1].tobytes()
    return out[0]


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 2, 5, 8])
def test_matches_definition(rng, dt, n):
    x = values(rng, (n, 3, 9, 11), dt)
    lam = rng.random(n).astype(np.float32)
    weights = [(float(l), float(np.float32(1) - l)) for l in lam]
    weights[0] = (1.0, 0.0)
    boxes = [(0, 0, 0, 0)] * n
    if n > 2:
        boxes[1] = (0, 0, 11, 9)      # the whole image
        boxes[2] = (7, 4, 11, 9)      # touching the right and bottom edges
    if n > 4:
        boxes[4] = (3, 3, 3, 8)       # empty: a blend
    got = run(x, weights, boxes)
    assert np.array_equal(got, reference(x, weights, boxes), equal_nan=True)
    assert got.tobytes() == reference(x, weights, boxes).tobytes()


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_one_entry_for_all(rng, dt):
    x = values(rng, (6, 2, 5, 7), dt)
    lam = 0.3141592653589793
    got = run(x, (lam, 1.0 - lam), None)
    assert got.tobytes() == reference(x, [(lam, 1.0 - lam)] * 6, None).tobytes()
    got = run(x, None, (1, 2, 6, 5))
    assert got.tobytes() == reference(x, None, [(1, 2, 6, 5)] * 6).tobytes()
    # a weight pair for all with boxes per image
    boxes = [(0, 0, 0, 0), (0, 0, 7, 5), (0, 0, 0, 0), (2, 1, 4, 3), (0, 0, 0, 0), (0, 0, 0, 0)]
    got = run(x, (lam, 1.0 - lam), boxes)
    assert got.tobytes() == reference(x, [(lam, 1.0 - lam)] * 6, boxes).tobytes()


def test_bfloat16_matches_float32_rounded(rng):
    """bfloat16: the float32 definition with each product and the sum rounded to bfloat16
    (through augpy's own cast, which rounds to nearest even)."""
    x = values(rng, (4, 2, 6, 8), np.float32)
    xb = augpy.cast(host_tensor(x), augpy.bfloat16)
    xf = augpy.tensor_to_array(augpy.cast(xb, augpy.float32))
    w = [(0.25, 0.75), (0.6, 0.4), (1.0, 0.0), (0.1, 0.9)]
    dev = augpy.array_to_tensor(xf)
    dev = augpy.cast(dev, augpy.bfloat16)
    augpy.mix_mirror(xb, w)
    augpy.mix_mirror(dev, w)
    got = augpy.tensor_to_array(augpy.cast(xb, augpy.float32))
    assert got.tobytes() == augpy.tensor_to_array(augpy.cast(dev, augpy.float32)).tobytes()

    def bf(a):
        return augpy.tensor_to_array(augpy.cast(augpy.cast(host_tensor(np.ascontiguousarray(a, np.float32)),
                                                           augpy.bfloat16), augpy.float32))
    want = xf.copy()
    for i, (a, b) in enumerate(w):
        if (a, b) == (1.0, 0.0):
            continue
        want[i] = bf(bf(xf[i] * np.float32(a)) + bf(xf[3 - i] * np.float32(b)))
    assert got.tobytes() == want.tobytes()


def test_equals_the_composition_it_replaces(rng):
    """MixUp as augpy.mul / add composed it before (timm's x * lam + x.flip(0) * (1 - lam))."""
    x = values(rng, (4, 3, 8, 8), np.float32)
    lam = 0.7234567891
    t = augpy.array_to_tensor(x)
    orig = t.copy()
    want = augpy.empty_like(t)
    for i in range(4):
        augpy.copy(augpy.add(augpy.mul(orig[i], lam), augpy.mul(orig[3 - i], 1.0 - lam)), want[i])
    augpy.mix_mirror(t, (lam, 1.0 - lam))
    assert augpy.tensor_to_array(t).tobytes() == augpy.tensor_to_array(want).tobytes()


def test_views(rng):
    base = values(rng, (6, 4, 8, 10), np.float32)
    w = [(0.1, 0.9), (0.2, 0.8), (1.0, 0.0), (0.4, 0.6), (0.5, 0.5)]
    boxes = [(0, 0, 0, 0), (1, 1, 7, 6), (0, 0, 0, 0), (2, 0, 3, 6), (0, 0, 7, 6)]
    got = run(base, w, boxes, view=lambda t: t[5:0:-1, 1:, 2:, ::-1][:, :, ::-1][:, :3, :6, :7])
    want = base.copy()
    sub = want[5:0:-1, 1:, 2:, ::-1][:, :, ::-1][:, :3, :6, :7]
    sub[...] = reference(np.ascontiguousarray(sub), w, boxes)
    assert got.tobytes() == want.tobytes()
    # an NHWC buffer mixed as NCHW
    nhwc = values(rng, (4, 5, 6, 3), np.float32)
    got = run(nhwc, w[:4], [(0, 0, 0, 0), (1, 1, 6, 5), (2, 0, 3, 5), (0, 0, 6, 5)],
              view=lambda t: t.permute(0, 3, 1, 2) if hasattr(t, "permute") else augpy.image_dims(t, "NCHW"))
    want = reference(np.ascontiguousarray(nhwc.transpose(0, 3, 1, 2)), w[:4],
                     [(0, 0, 0, 0), (1, 1, 6, 5), (2, 0, 3, 5), (0, 0, 6, 5)]).transpose(0, 2, 3, 1)
    assert got.tobytes() == np.ascontiguousarray(want).tobytes()


def test_keep_is_not_a_blend():
    x = np.array([-0.0, 1.0, np.nan, np.inf], np.float32).reshape(2, 1, 1, 2)
    got = run(x, [(1.0, 0.0), (0.5, 0.5)], None)
    assert np.signbit(got[0, 0, 0, 0]) and got[0, 0, 0, 1] == 1.0
    assert np.isnan(got[1, 0, 0, 0]) and got[1, 0, 0, 1] == np.inf


def test_bad_input():
    x = augpy.array_to_tensor(np.zeros((2, 3, 4, 5), np.float32))
    with pytest.raises(ValueError, match=r"mix_mirror: images must be \(N, C, H, W\)"):
        augpy.mix_mirror(x[0], (0.5, 0.5))
    with pytest.raises(TypeError, match="images"):
        augpy.mix_mirror(np.zeros((2, 3, 4, 5), np.float32), (0.5, 0.5))
    with pytest.raises(TypeError, match="float16, bfloat16, float32 or float64, not uint8"):
        augpy.mix_mirror(augpy.array_to_tensor(np.zeros((2, 3, 4, 5), np.uint8)), (0.5, 0.5))
    with pytest.raises(ValueError, match="weights has 6 values for 2 images"):
        augpy.mix_mirror(x, [0.5, 0.5, 0.5, 0.5, 0.5, 0.5])
    with pytest.raises(ValueError, match=r"must be finite"):
        augpy.mix_mirror(x, (0.5, float("nan")))
    with pytest.raises(ValueError, match=r"boxes\[0\] = \(0, 0, 6, 4\) is not inside the 5 x 4 image"):
        augpy.mix_mirror(x, None, (0, 0, 6, 4))
    with pytest.raises(ValueError, match="boxes must hold integers"):
        augpy.mix_mirror(x, None, (0, 0, 2.5, 4))
    with pytest.raises(TypeError):
        augpy.mix_mirror(x, "ab")
    assert not augpy.tensor_to_array(x).any()  # nothing written


def composed_mix(image, records, mode):
    """timm's Mixup._mix as augpy composed it before mix_mirror (mul / add / copy), in place."""
    n = image.shape[0]
    if mode == "batch":
        r = records[0]
        if r["lam"] == 1.0:
            return
        orig = image.copy()
        for i in range(n):
            a, b = image[i], orig[n - 1 - i]
            if r["box"] is not None:
                x1, y1, x2, y2 = r["box"]
                augpy.copy(b[:, y1:y2, x1:x2], a[:, y1:y2, x1:x2])
            else:
                augpy.copy(augpy.add(augpy.mul(orig[i], r["lam"]), augpy.mul(b, 1.0 - r["lam"])), a)
        return
    orig = image.copy()
    for i, r in enumerate(records):
        if mode == "pair" and i >= n // 2:
            break
        if r["lam"] == 1.0:
            continue
        j = n - 1 - i
        for a, b in (((i, j), (j, i)) if mode == "pair" else ((i, j),)):
            if r["box"] is not None:
                x1, y1, x2, y2 = r["box"]
                augpy.copy(orig[b][:, y1:y2, x1:x2], image[a][:, y1:y2, x1:x2])
            else:
                lam = np.float32(r["lam"])
                augpy.copy(augpy.add(augpy.mul(orig[a], float(lam)), augpy.mul(orig[b], float(np.float32(1) - lam))),
                           image[a])


@pytest.mark.parametrize("dt", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("mode", ["batch", "pair", "elem"])
def test_mixup_equals_the_composition(rng, dt, mode):
    """Mixup's one pass against the mul / add / copy composition it replaced, every float dtype
    and mode (timm's recorded calls, test_timm_mixup.py, are float32)."""
    n, h, w = 6, 9, 13
    for seed in range(4):
        x = augpy.cast(augpy.array_to_tensor(values(rng, (n, 3, h, w), np.float32)), getattr(augpy, dt))
        want = x.copy()
        m = augpy.image.Mixup(mixup_alpha=0.8, cutmix_alpha=1.0, prob=0.8, mode=mode, num_classes=10, seed=seed)
        records = m._records([{"rng": (seed, 2, i)} for i in range(n)], n, h, w)
        m._mix(x, records)
        composed_mix(want, records, mode)
        got, ref = (augpy.tensor_to_array(augpy.cast(t, augpy.float64)) for t in (x, want))
        assert got.tobytes() == ref.tobytes()
