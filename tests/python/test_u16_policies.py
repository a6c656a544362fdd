"""The policy ops (augpy.image.apply_policy, RandAugment, TrivialAugmentWide, AutoAugment) on
uint16 images (issue 31): each op is the augpy function torchvision's _apply_image_or_video_transform
names, with torchvision's bound for the dtype (_max_value(uint16) = 65535: Solarize's threshold is
65535 * magnitude), the functions themselves being checked on uint16 in test_u16_colour.py,
test_u16_autotone.py and test_posterize.py / test_solarize.py (torch 2.15 has no uint16 comparison
kernels, so torchvision's own Solarize and Posterize cannot run on uint16); the stages keep uint16
and replay their recorded ops; CPU and CUDA byte for byte (MODE=emu)."""
import numpy as np
import pytest

import augpy
from augpy.image import POLICY_OPS, AutoAugment, RandAugment, TrivialAugmentWide, apply_policy
from conftest import ON_CUDA, host_tensor


def image(rng):
    x = rng.integers(0, 65536, (3, 24, 32), dtype=np.uint16)
    x[:, 8:16] = np.clip(rng.normal(20000, 800, (3, 8, 32)), 0, 65535).astype(np.uint16)
    return x


def arr(t):
    return augpy.tensor_to_array(t)


def ref(x, op, m):
    """The op through its augpy function with torchvision's uint16 bound."""
    t = augpy.array_to_tensor(x)
    return {
        "Identity": lambda: x,
        "Brightness": lambda: arr(augpy.adjust_brightness(t, 1.0 + m)),
        "Color": lambda: arr(augpy.adjust_saturation(t, 1.0 + m)),
        "Contrast": lambda: arr(augpy.adjust_contrast(t, 1.0 + m)),
        "Sharpness": lambda: arr(augpy.adjust_sharpness(t, 1.0 + m)),
        "Posterize": lambda: arr(augpy.posterize(t, int(m))),
        "Solarize": lambda: arr(augpy.solarize(t, 65535.0 * m)),
        "AutoContrast": lambda: arr(augpy.autocontrast(t)),
        "Equalize": lambda: arr(augpy.equalize(t)),
        "Invert": lambda: 65535 - x,
    }[op]()


@pytest.mark.parametrize("op,m", [("Identity", 0.0), ("Brightness", 0.45), ("Color", -0.6), ("Contrast", 0.3),
                                  ("Sharpness", 0.9), ("Posterize", 5), ("Solarize", 0.5), ("Solarize", 0.02),
                                  ("AutoContrast", 0.0), ("Equalize", 0.0), ("Invert", 0.0)])
def test_pixel_ops_use_the_uint16_bound(rng, op, m):
    x = image(rng)
    got = arr(apply_policy(augpy.array_to_tensor(x), [(op, m)]))
    assert got.dtype == np.uint16
    np.testing.assert_array_equal(got, ref(x, op, m))


def test_solarize_threshold_scales_to_65535(rng):
    x = image(rng)
    got = arr(apply_policy(augpy.array_to_tensor(x), [("Solarize", 0.5)]))
    want = np.where(x >= 32767.5, 65535 - x, x)
    np.testing.assert_array_equal(got, want)
    assert (x[x < 32768] > 255).any()  # values an 8-bit threshold (127.5) would have inverted


@pytest.mark.parametrize("op", ["ShearX", "ShearY", "TranslateX", "TranslateY", "Rotate"])
def test_geometric_ops_keep_uint16(rng, op):
    x = image(rng)
    got = arr(apply_policy(augpy.array_to_tensor(x), [(op, 7.0 if op.startswith("T") else 0.2)], fill=0))
    assert got.dtype == np.uint16 and got.shape == x.shape and got.max() > 255


@pytest.mark.parametrize("stage", [lambda: RandAugment(num_ops=3, magnitude=12, seed=3),
                                   lambda: TrivialAugmentWide(seed=4), lambda: AutoAugment(seed=5)])
def test_stages_on_uint16_batches_replay(rng, stage):
    x = np.stack([image(rng) for _ in range(6)])
    batch = stage()({"image": augpy.array_to_tensor(x.copy())})
    got = arr(batch["image"])
    assert got.dtype == np.uint16 and got.max() > 255
    s = stage()
    for k, a in enumerate(batch["augmentation"]):
        np.testing.assert_array_equal(got[k], arr(s._apply_ops(augpy.array_to_tensor(x[k]), a[s.key])))


@pytest.mark.skipif(not ON_CUDA, reason="the CUDA backend is not the default device (MODE=emu runs it)")
def test_cpu_and_cuda_agree_bit_for_bit(rng):
    x = image(rng)
    for op in POLICY_OPS:
        m = 3.0 if op == "Posterize" else 0.4
        a = arr(apply_policy(host_tensor(x), [(op, m)]))
        b = arr(apply_policy(augpy.array_to_tensor(x), [(op, m)]))
        assert a.tobytes() == b.tobytes(), op
