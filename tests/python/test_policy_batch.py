"""The policy stages' batch path (_augpy._image_ops_batch, aug_image_ops_batch: every image's op
list in one call, the images spread over the CPU threads) against the image-by-image path
(augpy.image.apply_policy / apply_timm_policy per image): bit for bit, for every op of
torchvision's and timm's policies, uint8 / uint16 / float32, replayed op lists of several ops,
1, 2 and 4 threads; on a CUDA batch the same call runs the images in order; bad input."""
import numpy as np
import pytest

import augpy
from augpy import _augpy, _policies, _timm
from augpy.image import RandAugment, TimmRandAugment, apply_policy, apply_timm_policy
from conftest import ON_CUDA, host_tensor

TV_OPS = [("Identity", 0.0), ("ShearX", 0.21), ("ShearY", -0.3), ("TranslateX", 5.6), ("TranslateY", -7.0),
          ("Rotate", 23.5), ("Rotate", -400.0), ("Brightness", 0.45), ("Color", -0.6), ("Contrast", 0.3),
          ("Sharpness", -0.9), ("Sharpness", 0.7), ("Posterize", 3.0), ("Posterize", 8.0), ("Solarize", 0.5),
          ("AutoContrast", 0.0), ("Equalize", 0.0), ("Invert", 0.0)]
TIMM_OPS = [("AutoContrast", None), ("Equalize", None), ("Invert", None), ("Rotate", 27.0), ("Rotate", -9.5),
            ("Rotate", 360.0), ("Rotate", 0.0), ("PosterizeIncreasing", 1), ("Posterize", 8), ("Posterize", 2),
            ("SolarizeIncreasing", 26), ("Solarize", 256), ("SolarizeAdd", 99), ("SolarizeAdd", 0),
            ("ColorIncreasing", 1.81), ("Contrast", 0.28), ("BrightnessIncreasing", 0.1), ("Sharpness", 1.9),
            ("ShearX", 0.27), ("ShearY", -0.3), ("TranslateXRel", 0.405), ("TranslateYRel", -0.2)]
DTYPES = {"u8": (np.uint8, 255), "u16": (np.uint16, 65535), "f32": (np.float32, 1.0)}


def lists(ops, n, rng):
    """n op lists of 0 to 3 ops from ops (every op in some list)."""
    out = [[ops[(k + j) % len(ops)] for j in range(k % 4)] for k in range(n)]
    out += [[op] for op in ops]
    return [out[i] for i in rng.permutation(len(out))]


def images(dtype, n, rng, shape=(3, 19, 26)):
    typ, top = DTYPES[dtype]
    x = rng.integers(0, top + 1, (n,) + shape) if typ != np.float32 else rng.random((n,) + shape)
    return x.astype(typ)


def run_stage(stage, x, policies, key, threads):
    """stage on x (a CPU batch) with the op lists replayed, on `threads` threads."""
    before = augpy.get_num_threads()
    augpy.set_num_threads(threads)
    try:
        b = {"image": host_tensor(x.copy()), "augmentation": [{key: p} for p in policies]}
        return augpy.tensor_to_array(stage(b)["image"])
    finally:
        augpy.set_num_threads(before)


@pytest.mark.parametrize("threads", [1, 2, 4])
@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("interpolation,fill", [("nearest", 0), ("bilinear", (10, 200, 77))])
def test_torchvision_batch_equals_per_image(dtype, threads, interpolation, fill):
    rng = np.random.default_rng(5)
    policies = lists(TV_OPS, 12, rng)
    x = images(dtype, len(policies), rng)
    stage = RandAugment(interpolation=interpolation, fill=fill)
    got = run_stage(stage, x, policies, "policy", threads)
    for k, ops in enumerate(policies):
        want = augpy.tensor_to_array(apply_policy(host_tensor(x[k]), ops, interpolation, fill))
        assert got[k].tobytes() == want.tobytes(), (k, ops)


@pytest.mark.parametrize("threads", [1, 2, 4])
@pytest.mark.parametrize("interpolation", ["nearest", "bilinear"])
def test_timm_batch_equals_per_image(threads, interpolation):
    rng = np.random.default_rng(6)
    policies = lists(TIMM_OPS, 12, rng)
    x = images("u8", len(policies), rng, (3, 24, 21))
    stage = TimmRandAugment(interpolation=interpolation, fill=(124, 116, 104))
    got = run_stage(stage, x, policies, "timm_policy", threads)
    for k, ops in enumerate(policies):
        want = augpy.tensor_to_array(apply_timm_policy(host_tensor(x[k]), ops, interpolation, (124, 116, 104)))
        assert got[k].tobytes() == want.tobytes(), (k, ops)


def test_stage_takes_the_batch_path(monkeypatch):
    """A CPU batch goes through _image_ops_batch, once per stage call; one with timm's '3a' ops
    (no row) falls back to the image-by-image path."""
    calls = []
    real = _augpy._image_ops_batch
    monkeypatch.setattr(_augpy, "_image_ops_batch", lambda *a: calls.append(1) or real(*a))
    rng = np.random.default_rng(1)
    x = images("u8", 4, rng)
    run_stage(TimmRandAugment(), x, [[("Invert", None)]] * 4, "timm_policy", 2)
    assert calls == [1]
    got = run_stage(TimmRandAugment(), x, [[("Desaturate", 1.0)], [("Invert", None)]] * 2, "timm_policy", 2)
    assert calls == [1]
    assert got[1].tobytes() == (255 - x[1]).tobytes()


@pytest.mark.skipif(not ON_CUDA, reason="the CUDA backend is not the default device (MODE=emu runs it)")
def test_cuda_batch_runs_the_same_ops():
    rng = np.random.default_rng(2)
    policies = lists(TIMM_OPS, 6, rng)
    rows = [[_timm._op_row(op, 0.0 if a is None else float(a), 24, 21) for op, a in p] for p in policies]
    ops = np.array([r for p in rows for r in p if r is not None], np.float64).reshape(-1, 8)
    offsets = np.cumsum([0] + [sum(r is not None for r in p) for p in rows]).astype(np.int64)
    x = images("u8", len(policies), rng, (3, 24, 21))
    cpu, cuda = host_tensor(x.copy()), augpy.array_to_tensor(x.copy())
    assert cuda.device != "cpu"
    for t in (cpu, cuda):
        _augpy._image_ops_batch(t, ops, offsets, (128, 128, 128), "linear")
    assert augpy.tensor_to_array(cpu).tobytes() == augpy.tensor_to_array(cuda).tobytes()


def test_bad_input():
    t = host_tensor(np.zeros((2, 3, 8, 8), np.uint8))
    inv = [_policies.IMAGE_OP["Invert"], 0.0] + [0.0] * 6
    ok_ops, ok_off = np.array([inv], np.float64), np.array([0, 1, 1], np.int64)
    f = _augpy._image_ops_batch
    cases = [
        ((host_tensor(np.zeros((3, 8, 8), np.uint8)), ok_ops, ok_off), ValueError, "batch must be \\(N, C, H, W\\)"),
        ((t, ok_ops.astype(np.float32), ok_off), ValueError, "ops must be a float64 \\(M, 8\\) array"),
        ((t, ok_ops[:, :7], ok_off), ValueError, "ops must be a float64 \\(M, 8\\) array"),
        ((t, ok_ops, ok_off[:2]), ValueError, "offsets must be an int64 array of N \\+ 1 offsets"),
        ((t, ok_ops, np.array([0, 1, 2], np.int64)), ValueError, "offsets\\[2\\] = 2, but ops has 1 rows"),
        ((t, ok_ops, np.array([1, 1, 1], np.int64)), ValueError, "_image_ops_batch: offsets\\[0\\] must be 0"),
        ((t, np.array([inv, inv], np.float64), np.array([0, 2, 1], np.int64)), ValueError,
         "_image_ops_batch: offsets must not decrease: offsets\\[2\\] = 1 < 2"),
        ((t, np.array([[99.0] + inv[1:]]), ok_off), ValueError, "_image_ops_batch: ops\\[0\\]: no op kind"),
        ((t, np.array([[6.0, 2.5] + [0.0] * 6]), ok_off), ValueError,
         "_image_ops_batch: ops\\[0\\]: posterize needs an integer argument in \\[0, 32\\], got 2.5"),
        ((t, np.array([[8.0, 0.5] + [0.0] * 6]), ok_off), ValueError,
         "ops\\[0\\]: solarize_add needs an integer argument"),
        ((t, np.array([[2.0, -1.0] + [0.0] * 6]), np.array([0, 0, 1], np.int64)), ValueError,
         "_image_ops_batch: image 1, op 0: aug_adjust_brightness: "),
        ((t, np.array([inv, [5.0, -2.0] + [0.0] * 6]), np.array([0, 2, 2], np.int64)), ValueError,
         "_image_ops_batch: image 0, op 1: aug_adjust_sharpness: "),
    ]
    for args, exc, msg in cases:
        with pytest.raises(exc, match=msg):
            f(*args)
    with pytest.raises(ValueError, match="_image_ops_batch: interpolation must be linear or nearest"):
        f(t, ok_ops, ok_off, None, "cubic")
    frozen = host_tensor(np.zeros((2, 3, 8, 8), np.uint8))
    assert augpy.tensor_to_array(frozen).sum() == 0
    f(frozen, ok_ops, ok_off)  # image 0 inverted, image 1 without ops kept
    got = augpy.tensor_to_array(frozen)
    assert (got[0] == 255).all() and (got[1] == 0).all()


@pytest.mark.parametrize("dtype", [np.float64, np.int16, np.uint32])
def test_other_dtypes_are_refused_before_any_image_changes(dtype):
    """A batch of a dtype the ops do not take is refused by the stage, naming it and the
    dtype, before any image is changed (not by an op halfway through the batch)."""
    x = np.arange(4 * 3 * 6 * 5).reshape(4, 3, 6, 5).astype(dtype)
    t = augpy.array_to_tensor(x.copy())
    for stage in (augpy.image.RandAugment(2, 9, seed=1), augpy.image.TrivialAugmentWide(seed=1),
                  augpy.image.AutoAugment(seed=1)):
        with pytest.raises(ValueError, match=rf"^{type(stage).__name__}: batch\['image'\] must be uint8, uint16 or "
                                             rf"float32, got {np.dtype(dtype).name}"):
            stage({"image": t})
        assert np.array_equal(t.numpy(), x)
