"""timm's three-augment set (DeiT III's "3-Augment", timm 1.0.31's timm.data.auto_augment): the
ops Desaturate and GaussianBlur that its '3a' / '3aw' sets add to RandAugment
(augpy/_timm.py takes them through apply_timm_policy), and its AutoAugment policy '3a'
(``auto_augment_transform('3a')``, timm's ``create_transform(auto_augment='3a')``) as the stage
``TimmAutoAugment``: each image runs one of Solarize(threshold 128), Desaturate (to grayscale)
and a Gaussian blur of a radius drawn uniformly in [0.1, 2.0], chosen uniformly.

timm's ops are PIL's. Desaturate is PIL's ImageEnhance.Color at factor 1 - arg, here
augpy.adjust_saturation (torchvision's grayscale and blend: within 1 of PIL); GaussianBlur is
PIL's ImageFilter.GaussianBlur(radius), three extended box blurs per axis with a uint8 rounding
after each (Pillow's BoxBlur.c), here augpy.pil_gaussian_blur_single (bit-exact, on the image's
device; its NumPy definition: tests/python/pilblur_ref.py)."""
import math
import re

from . import _augpy
from ._colour_stages import _image_batch
from ._policies import _Policy

_LEVEL_DENOM = 10.0


def pil_gaussian_blur(image, radius):
    """PIL's ``ImageFilter.GaussianBlur(radius)`` (Pillow's ImagingGaussianBlur, 3 passes) on a
    uint8 (C, H, W) image: a new tensor on the image's device, bit-exact with Pillow
    (augpy.pil_gaussian_blur_single, on the image's device)."""
    func = "augpy.image.apply_timm_policy"
    t = image if isinstance(image, _augpy.Tensor) else _augpy.asarray(image)
    if t.ndim != 3 or t.dtype != _augpy.uint8:
        raise ValueError(f"{func}: GaussianBlur takes a uint8 (C, H, W) image, got {t.dtype} of shape "
                         f"{tuple(t.shape)}")
    return _augpy.pil_gaussian_blur_single(t, check_radius(radius))


def check_radius(radius):
    """GaussianBlur's radius, checked (apply_timm_policy's message)."""
    if not (math.isfinite(radius) and radius >= 0):
        raise ValueError(f"augpy.image.apply_timm_policy: GaussianBlur's radius must be a finite number >= 0, got "
                         f"{radius!r}")
    return radius


def desaturate_factor(arg):
    """timm's desaturate as PIL's ImageEnhance.Color factor: min(1, max(0, 1 - arg))."""
    return min(1.0, max(0.0, 1.0 - arg))


def desaturate(image, arg):
    """timm's desaturate: PIL's ImageEnhance.Color at factor desaturate_factor(arg) (arg 1:
    grayscale, 0: unchanged), as augpy.adjust_saturation (a new tensor)."""
    return _augpy.adjust_saturation(image, desaturate_factor(arg))


# timm's LEVEL_TO_ARG of the two ops (_minmax_level_to_arg: min + (max - min) * level / 10, clamped)
def desaturate_arg(level, _hparams=None):
    return min(1.0, max(0.5, 0.5 + 0.5 * (level / _LEVEL_DENOM)))


def gaussian_blur_arg(level, _hparams=None):
    return min(2.0, max(0.1, 0.1 + 1.9 * (level / _LEVEL_DENOM)))


# timm's auto_augment_policy_3a: (op, magnitude) sub-policies of one op each, applied with p 1.0
POLICY_3A = (("Solarize", 5), ("Desaturate", 10), ("GaussianBlurRand", 10))


def parse_auto_augment(config_str, func="augpy.image.auto_augment_transform"):
    """timm's auto_augment_transform config: the policy name, then sections 'mstd<float>'."""
    if not isinstance(config_str, str):
        raise ValueError(f"{func}: config must be a string such as '3a' or '3a-mstd0.5', got {config_str!r}")
    parts = config_str.split("-")
    if parts[0] != "3a":
        known = "'v0', 'v0r', 'original', 'originalr'"
        raise ValueError(f"{func}: policy {parts[0]!r} of {config_str!r}: augpy has timm's '3a' only (timm's "
                         f"{known} are not here; torchvision's AutoAugment is augpy.image.AutoAugment)")
    out = {}
    for c in parts[1:]:
        m = re.fullmatch(r"mstd(\d.*)", c)
        if m is None:
            if re.search(r"\d", c) is None:
                continue  # timm skips a section without a number
            raise ValueError(f"{func}: unknown section {c!r} in {config_str!r} (timm's AutoAugment takes mstd)")
        try:
            out["magnitude_std"] = float(m.group(1))
        except ValueError:
            raise ValueError(f"{func}: section {c!r} of {config_str!r} needs a number after 'mstd'") from None
    return out


class TimmAutoAugment(_Policy):
    """timm's AutoAugment with its '3a' policy (``auto_augment_transform('3a')``; DeiT III's
    three augmentations) on a uint8 (N, C, H, W) batch, in place: each image runs one sub-policy
    chosen uniformly: Solarize at magnitude 5 (threshold 128), Desaturate at 10 (grayscale) or
    GaussianBlurRand at 10 (PIL's Gaussian blur of a radius uniform in [0.1, 2 * factor],
    factor = magnitude / 10). With ``magnitude_std`` > 0 a magnitude gets N(0, magnitude_std)
    noise, clipped to [0, 10] (timm's AugmentOp). Each augmentation dict gets
    ``'timm_auto_augment'``: the (timm op name, argument) list the image ran (the blur recorded
    as ('GaussianBlur', its radius)), replayed when given (augpy.image.apply_timm_policy runs
    one), and ``'timm_auto_augment_magnitudes'``."""

    key = "timm_auto_augment"
    draws = 3  # the sub-policy, the magnitude noise, the blur radius
    interpolation, fill = "bilinear", (128, 128, 128)  # apply_timm_policy's, for a replayed list's warps

    def __init__(self, policy="3a", magnitude_std=0.0, seed=None):
        func = "TimmAutoAugment"
        self._params = dict(policy=policy, magnitude_std=magnitude_std, seed=seed)
        if policy != "3a":
            raise ValueError(f"{func}: policy must be '3a' (timm's three-augment policy), got {policy!r}")
        std = float(magnitude_std) if isinstance(magnitude_std, (int, float)) and \
            not isinstance(magnitude_std, bool) else math.nan
        if not std >= 0:
            raise ValueError(f"{func}: magnitude_std must be a number >= 0, got {magnitude_std!r}")
        self.policy, self.magnitude_std = policy, std
        self._init_sampling(seed)

    def _record(self, u, h, w):
        from ._timm import _normals, level_arg
        name, magnitude = POLICY_3A[min(int(u[0] * 3), 2)]
        m = float(magnitude)
        if self.magnitude_std == math.inf:
            m = u[1] * m
        elif self.magnitude_std > 0:
            m = m + self.magnitude_std * _normals([u[1]])[0]
        m = max(0.0, min(m, _LEVEL_DENOM))
        if name == "GaussianBlurRand":
            factor = min(1.0, max(0.0, m / _LEVEL_DENOM))
            op = ("GaussianBlur", float(0.1 + u[2] * (2.0 * factor - 0.1)))  # random.uniform(0.1, 2.0 * factor)
        else:
            op = (name, level_arg(name, m, False, {}))
        return {self.key: [op], "timm_auto_augment_magnitudes": [m]}

    def _draw(self, u, h, w):
        return self._record(u, h, w)[self.key]

    def _apply_ops(self, image, ops):
        from ._timm import apply_timm_policy
        return apply_timm_policy(image, ops, self.interpolation, self.fill)

    def _op_row(self, item, h, w, dtype):
        from ._timm import TIMM_OPS, _check_op, _op_row
        op, arg = _check_op(item, TIMM_OPS, "augpy.image.apply_timm_policy", "argument", none_ok=True)
        return _op_row(op, arg, h, w)

    def __call__(self, batch):
        image = _image_batch(batch, "TimmAutoAugment", "uint8 (N, C, H, W)", pixels=True)
        if image.dtype != _augpy.uint8:
            raise ValueError(f"TimmAutoAugment: batch['image'] must be uint8 (timm's ops are PIL's), got {image.dtype}")
        return super().__call__(batch)


def auto_augment_transform(config_str, seed=None):
    """timm's ``auto_augment_transform(config_str)`` as augpy's stage, for the policy '3a'
    (``create_transform(auto_augment='3a')``): a TimmAutoAugment. config_str: '3a', then
    optional '-'-separated sections mstd<float> (magnitude noise), e.g. '3a-mstd0.5'. timm's other
    policies ('v0', 'v0r', 'original', 'originalr') are a ValueError."""
    return TimmAutoAugment("3a", **parse_auto_augment(config_str), seed=seed)
