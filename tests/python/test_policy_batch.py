"""The policy stages' batch path (_augpy._image_ops_batch, aug_image_ops_batch: every image's op
list in one call, the images spread over the CPU threads) against the image-by-image path
(augpy.image.apply_policy / apply_timm_policy per image): bit for bit, for every op of
torchvision's and timm's policies (timm's '3a' Desaturate and PIL's blur too), uint8 / uint16 /
float32, replayed op lists of several ops, 1, 2 and 4 threads; on a CUDA batch (the suite's
device in the emulated session) the stages take the same path, the images queued in order,
with the CPU's bytes and no host wait; bad input."""

import numpy as np
import pytest

import augpy
from augpy import _augpy, _policies, _timm
from augpy.image import RandAugment, TimmAutoAugment, TimmRandAugment, apply_policy, apply_timm_policy
from conftest import ON_CUDA, host_tensor, host_waits_of

TV_OPS = [("Identity", 0.0), ("ShearX", 0.21), ("ShearY", -0.3), ("TranslateX", 5.6), ("TranslateY", -7.0),
          ("Rotate", 23.5), ("Rotate", -400.0), ("Brightness", 0.45), ("Color", -0.6), ("Contrast", 0.3),
          ("Sharpness", -0.9), ("Sharpness", 0.7), ("Posterize", 3.0), ("Posterize", 8.0), ("Solarize", 0.5),
          ("AutoContrast", 0.0), ("Equalize", 0.0), ("Invert", 0.0)]
TIMM_OPS = [("AutoContrast", None), ("Equalize", None), ("Invert", None), ("Rotate", 27.0), ("Rotate", -9.5),
            ("Rotate", 360.0), ("Rotate", 0.0), ("PosterizeIncreasing", 1), ("Posterize", 8), ("Posterize", 2),
            ("SolarizeIncreasing", 26), ("Solarize", 256), ("SolarizeAdd", 99), ("SolarizeAdd", 0),
            ("ColorIncreasing", 1.81), ("Contrast", 0.28), ("BrightnessIncreasing", 0.1), ("Sharpness", 1.9),
            ("ShearX", 0.27), ("ShearY", -0.3), ("TranslateXRel", 0.405), ("TranslateYRel", -0.2),
            ("Desaturate", 1.0), ("Desaturate", 0.55), ("Desaturate", 0.0), ("GaussianBlur", 1.3),
            ("GaussianBlur", 0.0), ("GaussianBlur", 0.1), ("GaussianBlur", 2.0)]
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


def run_stage(stage, x, policies, key, threads, device=False):
    """stage on x (a CPU batch, or one on the suite's device) with the op lists replayed, on
    `threads` threads."""
    before = augpy.get_num_threads()
    augpy.set_num_threads(threads)
    try:
        t = augpy.array_to_tensor(x.copy()) if device else host_tensor(x.copy())
        b = {"image": t, "augmentation": [{key: p} for p in policies]}
        return augpy.tensor_to_array(stage(b)["image"])
    finally:
        augpy.set_num_threads(before)


# threads 0: the batch on the suite's device (a CUDA one in the emulated session), the
# references on the CPU
ON_DEVICE = pytest.param(0, marks=pytest.mark.skipif(not ON_CUDA, reason="the suite's device is the CPU"))


@pytest.mark.parametrize("threads", [1, 2, 4, ON_DEVICE])
@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("interpolation,fill", [("nearest", 0), ("bilinear", (10, 200, 77))])
def test_torchvision_batch_equals_per_image(dtype, threads, interpolation, fill):
    rng = np.random.default_rng(5)
    policies = lists(TV_OPS, 12, rng)
    x = images(dtype, len(policies), rng)
    stage = RandAugment(interpolation=interpolation, fill=fill)
    got = run_stage(stage, x, policies, "policy", threads or 1, device=not threads)
    for k, ops in enumerate(policies):
        want = augpy.tensor_to_array(apply_policy(host_tensor(x[k]), ops, interpolation, fill))
        assert got[k].tobytes() == want.tobytes(), (k, ops)


@pytest.mark.parametrize("threads", [1, 2, 4, ON_DEVICE])
@pytest.mark.parametrize("interpolation", ["nearest", "bilinear"])
def test_timm_batch_equals_per_image(threads, interpolation):
    rng = np.random.default_rng(6)
    policies = lists(TIMM_OPS, 12, rng)
    x = images("u8", len(policies), rng, (3, 24, 21))
    stage = TimmRandAugment(interpolation=interpolation, fill=(124, 116, 104))
    got = run_stage(stage, x, policies, "timm_policy", threads or 1, device=not threads)
    for k, ops in enumerate(policies):
        want = augpy.tensor_to_array(apply_timm_policy(host_tensor(x[k]), ops, interpolation, (124, 116, 104)))
        assert got[k].tobytes() == want.tobytes(), (k, ops)


@pytest.mark.parametrize("device", [False, pytest.param(True, marks=ON_DEVICE.marks)])
def test_stage_takes_the_batch_path(monkeypatch, device):
    """A batch, on the CPU or a CUDA device, goes through _image_ops_batch once per stage call,
    timm's '3a' ops (Desaturate, PIL's blur) and TimmAutoAugment too."""
    calls = []
    real = _augpy._image_ops_batch
    monkeypatch.setattr(_augpy, "_image_ops_batch", lambda *a: calls.append(1) or real(*a))
    rng = np.random.default_rng(1)
    x = images("u8", 4, rng)
    run_stage(TimmRandAugment(), x, [[("Invert", None)]] * 4, "timm_policy", 2, device)
    assert calls == [1]
    got = run_stage(TimmRandAugment(), x, [[("Desaturate", 1.0)], [("Invert", None)]] * 2, "timm_policy", 2, device)
    assert calls == [1, 1]
    assert got[1].tobytes() == (255 - x[1]).tobytes()
    gray = augpy.tensor_to_array(augpy.adjust_saturation(host_tensor(x[0]), 0.0))
    assert got[0].tobytes() == gray.tobytes()
    run_stage(TimmAutoAugment(), x, [[("GaussianBlur", 0.7)]] * 4, "timm_auto_augment", 1, device)
    assert calls == [1, 1, 1]


@pytest.mark.parametrize("threads", [1, 2, ON_DEVICE])
@pytest.mark.parametrize("magnitude_std", [0.0, 0.5])
def test_timm_auto_augment_batch_equals_per_image(threads, magnitude_std):
    """TimmAutoAugment('3a') with its own draws (Solarize, Desaturate, PIL's blur of a drawn
    radius) through the batch path against apply_timm_policy image by image on the CPU, and
    on the batch's device."""
    rng = np.random.default_rng(8)
    x = images("u8", 24, rng, (3, 23, 30))
    before = augpy.get_num_threads()
    augpy.set_num_threads(threads or 1)
    try:
        t = augpy.array_to_tensor(x.copy()) if not threads else host_tensor(x.copy())
        out = TimmAutoAugment(magnitude_std=magnitude_std, seed=4)({"image": t})
    finally:
        augpy.set_num_threads(before)
    got = augpy.tensor_to_array(out["image"])
    names = set()
    for k, a in enumerate(out["augmentation"]):
        ops = a["timm_auto_augment"]
        names.add(ops[0][0])
        want = augpy.tensor_to_array(apply_timm_policy(host_tensor(x[k]), ops))
        assert got[k].tobytes() == want.tobytes(), (k, ops)
        if not threads:  # the image-by-image path on the batch's device
            want_dev = augpy.tensor_to_array(apply_timm_policy(augpy.array_to_tensor(x[k].copy()), ops))
            assert got[k].tobytes() == want_dev.tobytes(), (k, ops)
    assert names == {"Solarize", "Desaturate", "GaussianBlur"}


@pytest.mark.skipif(not ON_CUDA, reason="the suite's device is the CPU")
def test_device_stages_make_no_host_waits():
    """Each policy stage on a device batch, its op lists given (replayed), queues its work and
    returns: no host wait (the emulated runtime's count of the calling thread), once the pools
    are warm. (Drawing the lists, on the host: test_host_draws.py.)"""
    rng = np.random.default_rng(3)
    x = augpy.array_to_tensor(images("u8", 16, rng, (3, 32, 28)))  # the module is loaded by now
    stages = [TimmAutoAugment(magnitude_std=0.5, seed=1), TimmRandAugment(num_ops=3, seed=2, fill=(1, 2, 3)),
              TimmRandAugment(transforms="3aw", seed=5), RandAugment(num_ops=3, seed=3, fill=(9, 8, 7)),
              augpy.image.TrivialAugmentWide(seed=4), augpy.image.AutoAugment(seed=6)]
    for stage in stages:
        drawn = stage({"image": x})["augmentation"]  # and warm: the pools, the staging ring
        waits, _ = host_waits_of(lambda: stage({"image": x, "augmentation": drawn}))
        assert waits == 0, type(stage).__name__


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
    blur = [_policies.IMAGE_OP["GaussianBlur"], 1.0] + [0.0] * 6
    # refused before image 0's invert runs (checked below: nothing changed)
    for radius, shown in ((-0.5, "-0.5"), (-np.inf, "-inf"), (np.nan, "nan"), (np.inf, "inf"), (2e6, "2e[+]06")):
        cases.append(((t, np.array([inv, [blur[0], radius] + blur[2:]]), np.array([0, 1, 2], np.int64)), ValueError,
                      rf"_image_ops_batch: ops\[1\]: pil_gaussian_blur's radius must be in \[0, 1e\+06\], got {shown}"))
    t16 = host_tensor(np.zeros((2, 3, 8, 8), np.uint16))
    cases += [((t16, np.array([blur]), ok_off), TypeError, r"_image_ops_batch: ops\[0\]: pil_gaussian_blur takes "
               "uint8, got uint16"),
              ((t, np.array([[13.0] + inv[1:]]), ok_off), ValueError, r"_image_ops_batch: ops\[0\]: no op kind 13")]
    for args, exc, msg in cases:
        with pytest.raises(exc, match=msg):
            f(*args)
        assert not augpy.tensor_to_array(args[0]).any(), msg  # nothing changed
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


@pytest.mark.parametrize("radius", [-1.0, float("nan"), float("inf")])
def test_stage_refuses_a_bad_radius_before_any_image_changes(radius):
    """A replayed blur radius apply_timm_policy refuses is refused with its message, every image
    as it was (image 0's Invert not run)."""
    x = np.full((3, 3, 6, 5), 7, np.uint8)
    t = augpy.array_to_tensor(x.copy())
    aug = [{"timm_auto_augment": [("Invert", None)]}, {"timm_auto_augment": [("GaussianBlur", radius)]},
           {"timm_auto_augment": [("Desaturate", 1.0)]}]
    with pytest.raises(ValueError, match="augpy.image.apply_timm_policy: GaussianBlur's radius must be a finite "
                                         "number >= 0, got"):
        TimmAutoAugment()({"image": t, "augmentation": aug})
    assert augpy.tensor_to_array(t).tobytes() == x.tobytes()
