"""timm's RandAugment (timm.data.auto_augment, timm 1.0.31) as a batch stage on uint8 (N, C, H,
W) batches: the config string ``'rand-m9-mstd0.5-inc1'`` (rand_augment_transform's sections m,
n, p, mstd, mmax, inc, t), timm's op sets (_RAND_TRANSFORMS, _RAND_INCREASING_TRANSFORMS, the
'weights' set; the '3a' / '3aw' three-augment sets, whose Desaturate and GaussianBlur are in
augpy/_timm_3a.py) and its level-to-argument rules (_LEVEL_DENOM = 10), each image drawing its
ops, their application (probability ``p`` per op), magnitude noise and signs from the seed model
(stream 'TimmRandAugment'). Recorded as ``'timm_policy'``: the (timm op name, its argument) list
the image ran (its own key: timm's arguments are not torchvision's magnitudes), and
``'timm_magnitudes'``: each applied op's magnitude after noise and clipping.

timm's ops are PIL's; here each runs on the tensor through augpy: the geometric ones warp with
PIL's own affine matrices (the output pixel centre mapped through PIL's ``data``), the tone
ones through augpy's torchvision-defined functions (docs/policies.md states where the two
differ)."""
import math
import re
from statistics import NormalDist

import numpy as np

from . import _augpy
from ._colour_stages import _image_batch
from ._policies import _Policy, _check_int, _check_op, _value_row, _warp_row
from . import _timm_3a

_LEVEL_DENOM = 10.0

RAND_TRANSFORMS = ("AutoContrast", "Equalize", "Invert", "Rotate", "Posterize", "Solarize", "SolarizeAdd", "Color",
                   "Contrast", "Brightness", "Sharpness", "ShearX", "ShearY", "TranslateXRel", "TranslateYRel")
RAND_INCREASING_TRANSFORMS = ("AutoContrast", "Equalize", "Invert", "Rotate", "PosterizeIncreasing",
                              "SolarizeIncreasing", "SolarizeAdd", "ColorIncreasing", "ContrastIncreasing",
                              "BrightnessIncreasing", "SharpnessIncreasing", "ShearX", "ShearY", "TranslateXRel",
                              "TranslateYRel")
RAND_3A = ("SolarizeIncreasing", "Desaturate", "GaussianBlur")  # timm's '3a' set (_RAND_3A)
RAND_WEIGHTED_3A = {"SolarizeIncreasing": 6, "Desaturate": 6, "GaussianBlur": 6, "Rotate": 3, "ShearX": 2,
                    "ShearY": 2, "PosterizeIncreasing": 1, "AutoContrast": 1, "ColorIncreasing": 1,
                    "SharpnessIncreasing": 1, "ContrastIncreasing": 1, "BrightnessIncreasing": 1, "Equalize": 1,
                    "Invert": 1}  # timm's '3aw' set (_RAND_WEIGHTED_3A)
RAND_WEIGHTED_0 = {"Rotate": 3, "ShearX": 2, "ShearY": 2, "TranslateXRel": 1, "TranslateYRel": 1,
                   "ColorIncreasing": .25, "SharpnessIncreasing": 0.25, "AutoContrast": 0.25,
                   "SolarizeIncreasing": .05, "SolarizeAdd": .05, "ContrastIncreasing": .05,
                   "BrightnessIncreasing": .05, "Equalize": .05, "PosterizeIncreasing": 0.05, "Invert": 0.05}


def _enhance(level, _):
    return level / _LEVEL_DENOM * 1.8 + 0.1


def _posterize(level, _):
    return int(level / _LEVEL_DENOM * 4)


def _solarize(level, _):
    return min(256, int(level / _LEVEL_DENOM * 256))


# timm's LEVEL_TO_ARG: name -> (argument of the level without its sign, signed)
LEVEL_TO_ARG = {
    "AutoContrast": (None, False),
    "Equalize": (None, False),
    "Invert": (None, False),
    "Rotate": (lambda level, hp: level / _LEVEL_DENOM * 30.0, True),
    "Posterize": (_posterize, False),
    "PosterizeIncreasing": (lambda level, hp: 4 - _posterize(level, hp), False),
    "Solarize": (_solarize, False),
    "SolarizeIncreasing": (lambda level, hp: 256 - _solarize(level, hp), False),
    "SolarizeAdd": (lambda level, hp: min(128, int(level / _LEVEL_DENOM * 110)), False),
    "Color": (_enhance, False),
    "Contrast": (_enhance, False),
    "Brightness": (_enhance, False),
    "Sharpness": (_enhance, False),
    "ShearX": (lambda level, hp: level / _LEVEL_DENOM * 0.3, True),
    "ShearY": (lambda level, hp: level / _LEVEL_DENOM * 0.3, True),
    "TranslateXRel": (lambda level, hp: level / _LEVEL_DENOM * hp["translate_pct"], True),
    "TranslateYRel": (lambda level, hp: level / _LEVEL_DENOM * hp["translate_pct"], True),
    "Desaturate": (_timm_3a.desaturate_arg, False),  # the '3a' ops (augpy/_timm_3a.py)
    "GaussianBlur": (_timm_3a.gaussian_blur_arg, False),
}
for _name in ("Color", "Contrast", "Brightness", "Sharpness"):
    # level / 10 * 0.9 with a random sign; the factor is max(0.1, 1 + that) (TimmRandAugment._record)
    LEVEL_TO_ARG[_name + "Increasing"] = (lambda level, hp: level / _LEVEL_DENOM * 0.9, True)
del _name
TIMM_OPS = tuple(LEVEL_TO_ARG)


def level_arg(op, magnitude, negate, hparams):
    """timm's argument of op at magnitude (its LEVEL_TO_ARG), a signed one negated when negate
    (_randomly_negate's draw > 0.5); None for the ops without one."""
    level_fn, signed = LEVEL_TO_ARG[op]
    if level_fn is None:
        return None
    arg = level_fn(magnitude, hparams)
    if signed and negate:
        arg = -arg
    if op.endswith("Increasing") and not op.startswith(("Posterize", "Solarize")):
        arg = max(0.1, 1.0 + arg)  # timm's enhancement factor, kept >= 0.1
    return arg


def _pil_affine(t, data, interpolation, fill):
    """PIL's Image.transform(size, AFFINE, data) on a CHW tensor: PIL maps the output pixel
    centre (x + 0.5, y + 0.5) through data to a source point and reads it at its pixel centres,
    so in pixel indices the source is (a x + b y + (a + b) / 2 + c - 1/2, likewise)."""
    m = _pil_matrix(data)
    dst = _augpy.empty(tuple(t.shape), dtype=t.dtype)
    if dst.device != t.device:
        dst = dst.to(t.device)
    interp = "linear" if interpolation == "bilinear" else "nearest"
    _augpy.warp_affine(t, dst, m, fill, interpolation=interp, layout="CHW", src_layout="CHW")
    return dst


def _pil_rotate_data(degrees, w, h):
    """PIL's Image.rotate matrix (no expand, about the centre (w / 2, h / 2))."""
    angle = -math.radians(degrees % 360.0)
    m = [round(math.cos(angle), 15), round(math.sin(angle), 15), 0.0,
         round(-math.sin(angle), 15), round(math.cos(angle), 15), 0.0]
    cx, cy = w / 2.0, h / 2.0
    m[2] = m[0] * -cx + m[1] * -cy + cx
    m[5] = m[3] * -cx + m[4] * -cy + cy
    return m


def apply_timm_policy(image, ops, interpolation="bilinear", fill=(128, 128, 128)):
    """One uint8 image (C, H, W) through ops: a sequence of (timm op name, argument) with the
    name one of augpy.image.TIMM_OPS and the argument what timm's level-to-argument rule gives
    (degrees, a shear factor, a fraction of the size, bits, a threshold, an added value, an
    enhancement factor, Desaturate's amount (1: grayscale), GaussianBlur's radius; none for
    AutoContrast, Equalize and Invert). Returns a new tensor."""
    func = "augpy.image.apply_timm_policy"
    t = image if isinstance(image, _augpy.Tensor) else _augpy.asarray(image)
    if t.ndim != 3 or t.dtype != _augpy.uint8:
        raise ValueError(f"{func}: image must be a uint8 (C, H, W) tensor, got {t.dtype} of shape {tuple(t.shape)}")
    if interpolation not in ("nearest", "bilinear"):
        raise ValueError(f"{func}: interpolation must be 'nearest' or 'bilinear', got {interpolation!r}")
    for item in ops:
        op, arg = _check_op(item, TIMM_OPS, func, "argument", none_ok=True)
        t = _apply_one(t, op, arg, interpolation, fill)
    return t


def _pil_matrix(data):
    """_pil_affine's augpy matrix of PIL's affine data."""
    a, b, c, d, e, f = data
    return np.array([[a, b, (a + b) / 2 + c - 0.5], [d, e, (d + e) / 2 + f - 0.5]], np.float32)


def _op_row(op, arg, h, w):
    """_apply_one's op as an _augpy._image_ops_batch row (None: the image is kept), with
    _apply_one's checks."""
    if op == "Desaturate":
        return _value_row("Color", _timm_3a.desaturate_factor(arg))  # _timm_3a.desaturate's adjust_saturation
    if op == "GaussianBlur":
        return _value_row("GaussianBlur", _timm_3a.check_radius(arg))
    if op in ("AutoContrast", "Equalize", "Invert"):
        return _value_row(op)
    if op == "Rotate":
        return _warp_row(_pil_matrix(_pil_rotate_data(arg, w, h))) if arg % 360.0 else None
    if op.startswith("Posterize"):
        return _value_row("Posterize", int(arg)) if arg < 8 else None
    if op.startswith("Solarize") and op != "SolarizeAdd":
        return _value_row("Solarize", arg) if arg <= 255 else None
    if op == "SolarizeAdd":
        return _value_row("SolarizeAdd", int(arg))
    for name in ("Color", "Contrast", "Brightness", "Sharpness"):
        if op in (name, name + "Increasing"):
            return _value_row(name, arg)
    data = {"ShearX": (1, arg, 0, 0, 1, 0), "ShearY": (1, 0, 0, arg, 1, 0), "TranslateXRel": (1, 0, arg * w, 0, 1, 0),
            "TranslateYRel": (1, 0, 0, 0, 1, arg * h)}[op]
    return _warp_row(_pil_matrix(data))


def _apply_one(t, op, arg, interpolation, fill):
    h, w = t.shape[1], t.shape[2]
    if op == "Desaturate":
        return _timm_3a.desaturate(t, arg)
    if op == "GaussianBlur":
        return _timm_3a.pil_gaussian_blur(t, arg)
    if op == "AutoContrast":
        return _augpy.autocontrast(t)
    if op == "Equalize":
        return _augpy.equalize(t)
    if op == "Invert":
        return _augpy.invert(t)
    if op == "Rotate":
        return _pil_affine(t, _pil_rotate_data(arg, w, h), interpolation, fill) if arg % 360.0 else t
    if op.startswith("Posterize"):
        return _augpy.posterize(t, int(arg)) if arg < 8 else t
    if op.startswith("Solarize") and op != "SolarizeAdd":
        return _augpy.solarize(t, arg) if arg <= 255 else t  # PIL: i < thresh kept
    if op == "SolarizeAdd":
        return _augpy.where(_augpy.lt(t, 128), _augpy.add(t, int(arg)), t)  # saturating add
    for name, fn in (("Color", _augpy.adjust_saturation), ("Contrast", _augpy.adjust_contrast),
                     ("Brightness", _augpy.adjust_brightness), ("Sharpness", _augpy.adjust_sharpness)):
        if op == name:
            return fn(t, arg)
        if op == name + "Increasing":
            return fn(t, arg)
    if op == "ShearX":
        return _pil_affine(t, (1, arg, 0, 0, 1, 0), interpolation, fill)
    if op == "ShearY":
        return _pil_affine(t, (1, 0, 0, arg, 1, 0), interpolation, fill)
    if op == "TranslateXRel":
        return _pil_affine(t, (1, 0, arg * w, 0, 1, 0), interpolation, fill)
    return _pil_affine(t, (1, 0, 0, 0, 1, arg * h), interpolation, fill)  # TranslateYRel


def parse_config(config_str, func="augpy.image.rand_augment_transform"):
    """timm's rand_augment_transform config string as a dict of TimmRandAugment's arguments."""
    if not isinstance(config_str, str):
        raise ValueError(f"{func}: config must be a string such as 'rand-m9-mstd0.5-inc1', got {config_str!r}")
    parts = config_str.split("-")
    if parts[0] != "rand":
        raise ValueError(f"{func}: config {config_str!r} must start with 'rand' (timm's RandAugment)")
    out = {}
    for c in parts[1:]:
        if c.startswith("t"):
            out["transforms"] = c[1:]
            continue
        m = re.fullmatch(r"(mstd|mmax|inc|m|n|p)(\d.*)", c)
        if m is None:
            raise ValueError(f"{func}: unknown section {c!r} in {config_str!r} (m, n, p, mstd, mmax, inc, t)")
        key, val = m.groups()
        try:
            if key in ("mstd", "p"):
                v = float(val)
            else:
                v = int(val)
        except ValueError:
            raise ValueError(f"{func}: section {c!r} of {config_str!r} needs a number after {key!r}") from None
        out[{"m": "magnitude", "n": "num_ops", "p": "prob", "mstd": "magnitude_std", "mmax": "magnitude_max",
             "inc": "increasing"}[key]] = bool(v) if key == "inc" else v
    return out


class TimmRandAugment(_Policy):
    """timm's RandAugment (``rand_augment_transform(config_str)``) on a uint8 (N, C, H, W)
    batch, in place. Each image draws ``num_ops`` ops (uniformly with replacement, or by the
    'weights' or '3aw' set's weights without replacement); each is applied with probability
    ``prob``, at ``magnitude`` plus N(0, magnitude_std) noise (uniform in [0, magnitude] for an infinite
    or > 100 std), clipped to [0, magnitude_max or 10], its argument by timm's level rule, a
    signed one negated with probability 1/2. ``fill``: the value outside a warped image (timm's
    img_mean; 128 per channel by default), ``interpolation`` 'bilinear' or 'nearest' (timm picks
    bilinear or bicubic at random unless told), ``translate_pct``: TranslateXRel / YRel's range.
    Records ``'timm_policy'`` ((op, argument) list, replayed when given) and
    ``'timm_magnitudes'``."""

    key = "timm_policy"

    def __init__(self, magnitude=10, num_ops=2, prob=0.5, magnitude_std=0.0, magnitude_max=None,
                 increasing=False, transforms=None, interpolation="bilinear", fill=(128, 128, 128),
                 translate_pct=0.45, seed=None):
        func = "TimmRandAugment"
        self._params = dict(magnitude=magnitude, num_ops=num_ops, prob=prob, magnitude_std=magnitude_std,
                            magnitude_max=magnitude_max, increasing=increasing, transforms=transforms,
                            interpolation=interpolation, fill=fill, translate_pct=translate_pct, seed=seed)
        self.magnitude = _check_int(magnitude, "magnitude", 0, func)
        self.magnitude_max = None if magnitude_max is None else _check_int(magnitude_max, "magnitude_max", 0, func)
        upper = self.magnitude_max if self.magnitude_max else _LEVEL_DENOM
        if self.magnitude > upper:
            raise ValueError(f"{func}: magnitude must be in [0, {upper:g}] (timm's levels; raise it with "
                             f"magnitude_max), got {magnitude!r}")
        self.num_ops = _check_int(num_ops, "num_ops", 0, func)
        self.prob = float(prob) if isinstance(prob, (int, float)) and not isinstance(prob, bool) else math.nan
        if not 0.0 <= self.prob <= 1.0:
            raise ValueError(f"{func}: prob must be in [0, 1], got {prob!r}")
        std = float(magnitude_std) if isinstance(magnitude_std, (int, float)) else math.nan
        if not std >= 0:
            raise ValueError(f"{func}: magnitude_std must be >= 0 (inf or > 100: uniform), got {magnitude_std!r}")
        self.magnitude_std = math.inf if std > 100 else std
        self.increasing = bool(increasing)
        self.weights = None
        if transforms is None or transforms in ("", "default"):
            names = RAND_INCREASING_TRANSFORMS if self.increasing else RAND_TRANSFORMS
        elif transforms in ("weights", "3aw"):
            names, w = zip(*(RAND_WEIGHTED_0 if transforms == "weights" else RAND_WEIGHTED_3A).items())
            self.weights = np.array(w, np.float64) / sum(w)
        elif transforms == "3a":
            names = RAND_3A
        elif isinstance(transforms, (list, tuple)) and transforms and all(n in LEVEL_TO_ARG for n in transforms):
            names = tuple(transforms)
        else:
            raise ValueError(f"{func}: transforms must be None, 'weights', '3a', '3aw' or a list of "
                             f"augpy.image.TIMM_OPS names, got {transforms!r}")
        if self.weights is not None and self.num_ops > len(names):
            raise ValueError(f"{func}: num_ops must be at most {len(names)} with weights (drawn without "
                             f"replacement), got {num_ops!r}")
        if interpolation not in ("nearest", "bilinear"):
            raise ValueError(f"{func}: interpolation must be 'nearest' or 'bilinear', got {interpolation!r}")
        self.names, self.interpolation, self.fill = tuple(names), interpolation, fill
        self.hparams = {"translate_pct": float(translate_pct)}
        self.draws = 4 * self.num_ops
        self._init_sampling(seed)

    def _choose(self, u):
        if self.weights is None:
            return [self.names[min(int(v * len(self.names)), len(self.names) - 1)] for v in u]
        left = list(range(len(self.names)))
        chosen = []
        for v in u:  # weighted draws without replacement, one at a time
            p = self.weights[left] / self.weights[left].sum()
            i = min(int(np.searchsorted(np.cumsum(p), v, side="right")), len(left) - 1)
            chosen.append(self.names[left.pop(i)])
        return chosen

    def _magnitude(self, z, u):
        m = float(self.magnitude)
        if self.magnitude_std == math.inf:
            m = u * m
        elif self.magnitude_std > 0:
            m = m + self.magnitude_std * z
        return max(0.0, min(m, self.magnitude_max or _LEVEL_DENOM))

    def _record(self, u, h, w):
        n = self.num_ops
        # uniforms: n op choices, n apply draws, n signs, n for uniform magnitudes; the
        # gaussians follow in the same stream (u's generator is gone: derive them from u)
        z = _normals(u[3 * n:4 * n])
        ops, magnitudes = [], []
        for k, op in enumerate(self._choose(u[:n])):
            if self.prob < 1.0 and u[n + k] > self.prob:
                continue
            m = self._magnitude(z[k], u[3 * n + k])
            ops.append((op, level_arg(op, m, u[2 * n + k] > 0.5, self.hparams)))
            magnitudes.append(m)
        return {"timm_policy": ops, "timm_magnitudes": magnitudes}

    def _draw(self, u, h, w):
        return self._record(u, h, w)["timm_policy"]

    def _apply_ops(self, image, ops):
        return apply_timm_policy(image, ops, self.interpolation, self.fill)

    def _op_row(self, item, h, w, dtype):
        op, arg = _check_op(item, TIMM_OPS, "augpy.image.apply_timm_policy", "argument", none_ok=True)
        return _op_row(op, arg, h, w)

    def __call__(self, batch):
        image = _image_batch(batch, "TimmRandAugment", "uint8 (N, C, H, W)", pixels=True)
        if image.dtype != _augpy.uint8:
            raise ValueError(f"TimmRandAugment: batch['image'] must be uint8 (timm's ops are PIL's), got {image.dtype}")
        return super().__call__(batch)


def _normals(u):
    """N(0, 1) values from uniforms in [0, 1) by the inverse normal CDF (one per uniform)."""
    nd = NormalDist()
    return [nd.inv_cdf(min(max(v, 1e-300), 1 - 1e-16)) for v in u]


def rand_augment_transform(config_str, seed=None, *, interpolation="bilinear", fill=(128, 128, 128),
                           translate_pct=0.45):
    """timm's ``rand_augment_transform(config_str)`` as augpy's stage: a TimmRandAugment (uint8
    (N, C, H, W) batches). config_str: 'rand' then '-'-separated sections m (magnitude, 0..10),
    n (ops per image), p (probability of each op, default 0.5), mstd (magnitude noise), mmax
    (the magnitude's upper clip), inc (1: the increasing-severity op set), t ('weights', or '3a' /
    '3aw': timm's three-augment sets), e.g. 'rand-m9-mstd0.5-inc1'. interpolation, fill and
    translate_pct: TimmRandAugment's."""
    return TimmRandAugment(**parse_config(config_str), seed=seed, interpolation=interpolation, fill=fill,
                           translate_pct=translate_pct)
