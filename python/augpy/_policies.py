"""torchvision's automatic augmentation policies as batch stages: RandAugment and
TrivialAugmentWide (transforms.v2), each image of a batch drawing its own ops and magnitudes
from the seed model (augpy/_sampling.py; stream: the class name), recorded in its
augmentation dict as ``'policy': [(op, magnitude), ...]`` and replayed from it.

The ops are torchvision's, each through augpy's own function: Identity, ShearX / ShearY and
TranslateX / TranslateY (augpy.affine), Rotate (augpy.rotate), Brightness / Color / Contrast
(augpy.adjust_brightness / adjust_saturation / adjust_contrast), Sharpness
(augpy.adjust_sharpness), Posterize, Solarize, AutoContrast, Equalize and Invert. Their
magnitude tables are torchvision's, computed in float32 as torch.linspace computes them
(docs/policies.md). ``apply_policy`` runs a given list of (op, magnitude) on one image.
"""
import math

import numpy as np

from . import _affine
from . import _augpy
from ._colour_stages import _image_batch
from ._decode_stage import _augmentation_list, _restore_stage
from ._sampling import Sampled, generator_at


def _linspace32(start, end, steps):
    """torch.linspace in float32 as its CPU kernel computes it: step = (end - start) / (steps - 1)
    in float32, then start + step * i for the first half and end - step * (steps - 1 - i) for
    the rest, each a fused multiply-add (one rounding: the float32 product is exact in float64)."""
    start, end = np.float32(start), np.float32(end)
    if steps == 1:
        return np.array([start], np.float32)
    step = np.float64(np.float32((end - start) / np.float32(steps - 1)))
    i = np.arange(steps, dtype=np.float64)
    half = steps // 2
    lo = np.float64(start) + step * i[:half]
    hi = np.float64(end) - step * (steps - 1 - i[half:])
    return np.concatenate([lo, hi]).astype(np.float32)


def _posterize_bits(bins, span):
    """8 - round(arange(bins) / ((bins - 1) / span)) as torch computes it (float32, half to even)."""
    q = np.arange(bins, dtype=np.float32) / np.float32((bins - 1) / span)
    return (8 - np.round(q)).astype(np.int32)


# op -> (magnitudes(bins, height, width) or None, signed)
RAND_AUGMENT = {
    "Identity": (None, False),
    "ShearX": (lambda b, h, w: _linspace32(0.0, 0.3, b), True),
    "ShearY": (lambda b, h, w: _linspace32(0.0, 0.3, b), True),
    "TranslateX": (lambda b, h, w: _linspace32(0.0, 150.0 / 331.0 * w, b), True),
    "TranslateY": (lambda b, h, w: _linspace32(0.0, 150.0 / 331.0 * h, b), True),
    "Rotate": (lambda b, h, w: _linspace32(0.0, 30.0, b), True),
    "Brightness": (lambda b, h, w: _linspace32(0.0, 0.9, b), True),
    "Color": (lambda b, h, w: _linspace32(0.0, 0.9, b), True),
    "Contrast": (lambda b, h, w: _linspace32(0.0, 0.9, b), True),
    "Sharpness": (lambda b, h, w: _linspace32(0.0, 0.9, b), True),
    "Posterize": (lambda b, h, w: _posterize_bits(b, 4), False),
    "Solarize": (lambda b, h, w: _linspace32(1.0, 0.0, b), False),
    "AutoContrast": (None, False),
    "Equalize": (None, False),
}

TRIVIAL_AUGMENT_WIDE = {
    "Identity": (None, False),
    "ShearX": (lambda b, h, w: _linspace32(0.0, 0.99, b), True),
    "ShearY": (lambda b, h, w: _linspace32(0.0, 0.99, b), True),
    "TranslateX": (lambda b, h, w: _linspace32(0.0, 32.0, b), True),
    "TranslateY": (lambda b, h, w: _linspace32(0.0, 32.0, b), True),
    "Rotate": (lambda b, h, w: _linspace32(0.0, 135.0, b), True),
    "Brightness": (lambda b, h, w: _linspace32(0.0, 0.99, b), True),
    "Color": (lambda b, h, w: _linspace32(0.0, 0.99, b), True),
    "Contrast": (lambda b, h, w: _linspace32(0.0, 0.99, b), True),
    "Sharpness": (lambda b, h, w: _linspace32(0.0, 0.99, b), True),
    "Posterize": (lambda b, h, w: _posterize_bits(b, 6), False),
    "Solarize": (lambda b, h, w: _linspace32(1.0, 0.0, b), False),
    "AutoContrast": (None, False),
    "Equalize": (None, False),
}

OPS = tuple(RAND_AUGMENT) + ("Invert",)


def apply_policy(image, ops, interpolation="nearest", fill=0):
    """One image (C, H, W), uint8, uint16 or float32, through ops: a sequence of (op, magnitude) with
    op one of augpy.image.POLICY_OPS, exactly as torchvision's _apply_image_or_video_transform
    applies them. Returns a new tensor."""
    func = "augpy.image.apply_policy"
    t = image if isinstance(image, _augpy.Tensor) else _augpy.asarray(image)
    if t.ndim != 3:
        raise ValueError(f"{func}: image must be (C, H, W), got shape {tuple(t.shape)}")
    for item in ops:
        op, magnitude = _check_op(item, OPS, func)
        t = _apply_one(t, op, magnitude, interpolation, fill)
    return t


def _check_op(item, names, func, what="magnitude", none_ok=False):
    """(op, its number as a float) of one (name, number) item of an op list; TypeError or ValueError
    naming func for anything else (none_ok: a None number is 0.0)."""
    try:
        op, value = item
        value = 0.0 if none_ok and value is None else float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{func}: each op must be (name, {what}), got {item!r}") from None
    if op not in names:
        raise ValueError(f"{func}: unknown op {op!r} (one of {', '.join(names)})")
    return op, value


# aug_image_op_kind (aug/policy.h) of the ops _augpy._image_ops_batch runs, by the names the policies use
IMAGE_OP = {"Identity": 0, "Warp": 1, "Brightness": 2, "Contrast": 3, "Color": 4, "Sharpness": 5, "Posterize": 6,
            "Solarize": 7, "SolarizeAdd": 8, "AutoContrast": 9, "Equalize": 10, "Invert": 11, "GaussianBlur": 12}


def _value_row(op, arg=0.0):
    """The row of a pixel-value op (IMAGE_OP's name) with its argument."""
    return [IMAGE_OP[op], float(arg)] + [0.0] * 6


def _solarize_bound(dtype):
    """torchvision's bound of Solarize's magnitude: the dtype's largest value (_max_value), 1.0 for floats."""
    return 1.0 if dtype in (_augpy.float32, _augpy.float64) else 65535.0 if dtype == _augpy.uint16 else 255.0


def _warp_row(matrix):
    """The row of a warp by the (2, 3) float32 inverse map `matrix` (same size, the stage's fill)."""
    return [IMAGE_OP["Warp"], 0.0] + [float(v) for v in np.asarray(matrix, np.float32).reshape(6)]


def _apply_one(t, op, m, interpolation, fill):
    if op == "Identity":
        return t
    if op in ("ShearX", "ShearY"):
        s = math.degrees(math.atan(m))
        return _affine.affine(t, 0.0, (0, 0), 1.0, (s, 0.0) if op == "ShearX" else (0.0, s), interpolation, fill,
                              center=(0, 0), layout="CHW")
    if op in ("TranslateX", "TranslateY"):
        tr = (int(m), 0) if op == "TranslateX" else (0, int(m))
        return _affine.affine(t, 0.0, tr, 1.0, (0.0, 0.0), interpolation, fill, layout="CHW")
    if op == "Rotate":
        return _affine.rotate(t, m, interpolation, fill=fill, layout="CHW")
    if op == "Brightness":
        return _augpy.adjust_brightness(t, 1.0 + m)
    if op == "Color":
        return _augpy.adjust_saturation(t, 1.0 + m)
    if op == "Contrast":
        return _augpy.adjust_contrast(t, 1.0 + m)
    if op == "Sharpness":
        return _augpy.adjust_sharpness(t, 1.0 + m)
    if op == "Posterize":
        return _augpy.posterize(t, int(m))
    if op == "Solarize":
        return _augpy.solarize(t, _solarize_bound(t.dtype) * m)
    if op == "AutoContrast":
        return _augpy.autocontrast(t)
    if op == "Equalize":
        return _augpy.equalize(t)
    return _augpy.invert(t)  # "Invert"


def _check_int(value, name, lo, func):
    if isinstance(value, bool) or not hasattr(value, "__index__") or value.__index__() < lo:
        raise ValueError(f"{func}: {name} must be an int >= {lo}, got {value!r}")
    return value.__index__()


class _Policy(Sampled):
    """A policy stage on a uint8, uint16 or float32 (N, C, H, W) batch, in place."""

    space: dict = {}  # op -> (magnitude table or None, signed); each policy draws with its own _draw
    key = "policy"  # the augmentation dict's key of the ops an image ran

    def __reduce__(self):
        return _restore_stage, (type(self), self._params, self._sampling_state())

    def _apply_ops(self, image, ops):
        """One image through its ops: what _apply_batch does to each image (the tests' reference)."""
        return apply_policy(image, ops, self.interpolation, self.fill)

    def _record(self, u, h, w):
        """What an image's augmentation dict records from its uniforms u: 'policy', the ops."""
        return {self.key: self._draw(u, h, w)}

    def __call__(self, batch):
        """Each image of ``batch['image']`` through its own ops, in place; each augmentation dict
        gets ``'policy'``: the (op, magnitude) list it ran (a given one is replayed)."""
        func = type(self).__name__
        image = _image_batch(batch, func, "(N, C, H, W)", pixels=True)
        if image.dtype not in (_augpy.uint8, _augpy.uint16, _augpy.float32):
            # checked before any image changes (the ops would refuse it image by image)
            raise ValueError(f"{func}: batch['image'] must be uint8, uint16 or float32, got {image.dtype}")
        n, _, h, w = image.shape
        augmentation = [dict(a) for a in _augmentation_list(batch.get("augmentation"), n, func)]
        states = self._rng_states(augmentation)
        all_ops = []
        for k in range(n):
            ops = augmentation[k].get(self.key)
            if ops is None:
                record = self._record(generator_at(states[k], self.draws)[1], h, w)
                augmentation[k].update(record)
                ops = record[self.key]
            all_ops.append(ops)
        self._apply_batch(image, all_ops)
        batch["augmentation"] = augmentation
        return batch

    def _apply_batch(self, image, all_ops):
        """Every image's ops in one call (_augpy._image_ops_batch: on the CPU the images spread
        over the threads, each image's ops on one; on a GPU they queue on the stream with no
        host wait; docs/policies.md "Speed"). The results are those of apply_policy (or
        apply_timm_policy) per image; a bad op is refused before any image changes."""
        h, w = image.shape[2], image.shape[3]
        rows, offsets = [], [0]
        for ops in all_ops:
            for item in ops:
                row = self._op_row(item, h, w, image.dtype)
                if row is not None:
                    rows.append(row)
            offsets.append(len(rows))
        _augpy._image_ops_batch(image, np.array(rows, np.float64).reshape(-1, 8), np.array(offsets, np.int64),
                                self.fill, _affine._INTERP[self.interpolation])

    def _op_row(self, item, h, w, dtype):
        """apply_policy's op (op, magnitude) as an _image_ops_batch row (None: Identity), with
        apply_policy's checks."""
        op, m = _check_op(item, OPS, "augpy.image.apply_policy")
        if op == "Identity":
            return None
        if op in ("ShearX", "ShearY", "TranslateX", "TranslateY", "Rotate"):
            func = "augpy.rotate" if op == "Rotate" else "augpy.affine"
            if op == "Rotate":
                mat = _affine._rotate_matrices(1, h, w, m, None, func)[1]
            elif op in ("ShearX", "ShearY"):
                s = math.degrees(math.atan(m))
                mat = _affine._affine_matrices(1, h, w, 0.0, (0, 0), 1.0, (s, 0.0) if op == "ShearX" else (0.0, s),
                                               (0, 0), func)
            else:
                tr = (int(m), 0) if op == "TranslateX" else (0, int(m))
                mat = _affine._affine_matrices(1, h, w, 0.0, tr, 1.0, (0.0, 0.0), None, func)
            return _warp_row(_affine._augpy_matrix(mat, (h, w), (h, w))[0])
        if op == "Solarize":
            return _value_row("Solarize", _solarize_bound(dtype) * m)
        if op == "Posterize":
            return _value_row("Posterize", int(m))
        if op in ("Brightness", "Color", "Contrast", "Sharpness"):
            return _value_row(op, 1.0 + m)
        return _value_row(op)  # AutoContrast, Equalize, Invert


class RandAugment(_Policy):
    """torchvision's ``RandAugment(num_ops, magnitude, num_magnitude_bins, interpolation, fill)``
    on a uint8, uint16 or float32 (N, C, H, W) batch, in place: each image applies ``num_ops`` ops drawn
    uniformly from the 14 of RandAugment's space at bin ``magnitude`` of its table, the sign of a
    signed op's magnitude drawn with probability 1/2. Each augmentation dict gets ``'policy'``,
    the image's list of (op, magnitude); a dict that has one is replayed. Draws follow the seed
    model (augpy.image; stream 'RandAugment'): a pure function of the dict's ``rng``."""

    space = RAND_AUGMENT

    def __init__(self, num_ops=2, magnitude=9, num_magnitude_bins=31, interpolation="nearest", fill=0, seed=None):
        func = "RandAugment"
        self._params = dict(num_ops=num_ops, magnitude=magnitude, num_magnitude_bins=num_magnitude_bins,
                            interpolation=interpolation, fill=fill, seed=seed)
        self.num_ops = _check_int(num_ops, "num_ops", 0, func)
        self.num_magnitude_bins = _check_int(num_magnitude_bins, "num_magnitude_bins", 2, func)
        self.magnitude = _check_int(magnitude, "magnitude", 0, func)
        if self.magnitude >= self.num_magnitude_bins:
            raise ValueError(f"{func}: magnitude must be below num_magnitude_bins ({self.num_magnitude_bins}), "
                             f"got {magnitude!r}")
        if interpolation not in ("nearest", "bilinear"):
            raise ValueError(f"{func}: interpolation must be 'nearest' or 'bilinear', got {interpolation!r}")
        self.interpolation, self.fill = interpolation, fill
        self.draws = 2 * self.num_ops
        self._init_sampling(seed)

    @staticmethod
    def from_timm(config_str, seed=None, *, interpolation="bilinear", fill=(128, 128, 128), translate_pct=0.45):
        """timm's RandAugment from its config string (``'rand-m9-mstd0.5-inc1'``): an
        augpy.image.TimmRandAugment, as augpy.image.rand_augment_transform makes it."""
        from ._timm import TimmRandAugment, parse_config
        return TimmRandAugment(**parse_config(config_str, "RandAugment.from_timm"), seed=seed,
                               interpolation=interpolation, fill=fill, translate_pct=translate_pct)

    def _draw(self, u, h, w):
        names = list(self.space)
        ops = []
        for i in range(self.num_ops):
            op = names[min(int(u[2 * i] * len(names)), len(names) - 1)]
            table, signed = self.space[op]
            m = 0.0
            if table is not None:
                m = float(table(self.num_magnitude_bins, h, w)[self.magnitude])
                if signed and u[2 * i + 1] <= 0.5:
                    m = -m
            ops.append((op, m))
        return ops


class TrivialAugmentWide(_Policy):
    """torchvision's ``TrivialAugmentWide(num_magnitude_bins, interpolation, fill)`` on a uint8,
    uint16 or float32 (N, C, H, W) batch, in place: each image applies one op drawn uniformly from the
    wide space, at a magnitude bin drawn uniformly, the sign of a signed op drawn with
    probability 1/2. Records and replays ``'policy'`` as RandAugment does (stream
    'TrivialAugmentWide')."""

    space = TRIVIAL_AUGMENT_WIDE

    def __init__(self, num_magnitude_bins=31, interpolation="nearest", fill=0, seed=None):
        func = "TrivialAugmentWide"
        self._params = dict(num_magnitude_bins=num_magnitude_bins, interpolation=interpolation, fill=fill, seed=seed)
        self.num_magnitude_bins = _check_int(num_magnitude_bins, "num_magnitude_bins", 2, func)
        if interpolation not in ("nearest", "bilinear"):
            raise ValueError(f"{func}: interpolation must be 'nearest' or 'bilinear', got {interpolation!r}")
        self.interpolation, self.fill = interpolation, fill
        self.draws = 3
        self._init_sampling(seed)

    def _draw(self, u, h, w):
        names = list(self.space)
        op = names[min(int(u[0] * len(names)), len(names) - 1)]
        table, signed = self.space[op]
        m = 0.0
        if table is not None:
            b = min(int(u[1] * self.num_magnitude_bins), self.num_magnitude_bins - 1)
            m = float(table(self.num_magnitude_bins, h, w)[b])
            if signed and u[2] <= 0.5:
                m = -m
        return [(op, m)]
