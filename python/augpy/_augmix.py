"""torchvision's AugMix (transforms.v2.AugMix) as a batch stage. Each image draws, from the seed
model (stream 'AugMix'): m ~ Dirichlet(alpha, alpha) (the original image's weight m[0]),
mixing weights Dirichlet(alpha, ..., alpha) times m[1], one per chain, and ``mixture_width``
chains of ``chain_depth`` ops (uniform in 1 .. 3 when it is not positive), each op uniform in
the space, its magnitude bin uniform below ``severity`` of the 10-bin table, a signed one
negated with probability 1/2. The image becomes ``m[0] * x + sum(w_i * chain_i(x))``, computed
in float32 as torchvision computes it and truncated back to uint8 (torch's ``.to(uint8)``).
The augmentation dict records ``'augmix'``: ``{'m': m[0], 'weights': [w_i], 'chains': [[(op,
magnitude), ...], ...]}`` (float32 values as Python floats); a recorded one is replayed.
``apply_augmix`` runs such a record on one image."""
import math

import numpy as np

from . import _augpy
from ._colour_stages import _image_batch
from ._decode_stage import _augmentation_list, _restore_stage
from ._mixing import sample_dirichlet
from ._policies import RAND_AUGMENT, _check_int, _linspace32, _posterize_bits, apply_policy
from ._sampling import Sampled, generator_at

AUGMIX_PARTIAL = {
    "ShearX": RAND_AUGMENT["ShearX"],
    "ShearY": RAND_AUGMENT["ShearY"],
    "TranslateX": (lambda b, h, w: _linspace32(0.0, w / 3.0, b), True),
    "TranslateY": (lambda b, h, w: _linspace32(0.0, h / 3.0, b), True),
    "Rotate": RAND_AUGMENT["Rotate"],
    "Posterize": (lambda b, h, w: _posterize_bits(b, 4) - 4, False),
    "Solarize": RAND_AUGMENT["Solarize"],
    "AutoContrast": (None, False),
    "Equalize": (None, False),
}
AUGMIX = dict(AUGMIX_PARTIAL, **{op: RAND_AUGMENT[op] for op in ("Brightness", "Color", "Contrast", "Sharpness")})


def _float32(v):
    return float(np.float32(v))


def apply_augmix(image, record, interpolation="bilinear", fill=0):
    """One image (C, H, W), uint8 or float32, through an AugMix record ``{'m': m0, 'weights':
    [w_i], 'chains': [[(op, magnitude), ...], ...]}``: ``m0 * x + sum(w_i * chain_i(x))`` in
    float32, truncated back to uint8 for a uint8 image. Returns a new tensor."""
    func = "augpy.image.apply_augmix"
    t = image if isinstance(image, _augpy.Tensor) else _augpy.asarray(image)
    if t.ndim != 3 or t.dtype not in (_augpy.uint8, _augpy.float32):
        raise ValueError(f"{func}: image must be a uint8 or float32 (C, H, W), got shape {tuple(t.shape)}")
    try:
        m0, weights, chains = float(record["m"]), [float(v) for v in record["weights"]], list(record["chains"])
    except (TypeError, KeyError, ValueError):
        raise ValueError(f"{func}: record must be {{'m': float, 'weights': [float], 'chains': [[(op, "
                         f"magnitude), ...]]}}, got {record!r}") from None
    if len(weights) != len(chains):
        raise ValueError(f"{func}: {len(weights)} weights for {len(chains)} chains")
    as_float = t if t.dtype == _augpy.float32 else _augpy.cast(t, _augpy.float32)
    mix = _augpy.mul(as_float, _float32(m0))
    for w, chain in zip(weights, chains):
        aug = apply_policy(t, chain, interpolation, fill)
        if aug.dtype != _augpy.float32:
            aug = _augpy.cast(aug, _augpy.float32)
        _augpy.add(mix, _augpy.mul(aug, _float32(w)), out=mix)
    if t.dtype == _augpy.float32:
        return mix
    return _augpy.cast(mix.floor(), _augpy.uint8)  # torch's .to(uint8) truncates; the mix is >= 0


class AugMix(Sampled):
    """torchvision's ``AugMix(severity, mixture_width, chain_depth, alpha, all_ops,
    interpolation, fill)`` on a uint8 or float32 (N, C, H, W) batch, in place, each image with
    its own draws (stream 'AugMix'). ``all_ops=False`` leaves out Brightness, Color, Contrast
    and Sharpness. Each augmentation dict gets ``'augmix'`` (``m``, ``weights``, ``chains``);
    a dict that has one is replayed."""

    def __init__(self, severity=3, mixture_width=3, chain_depth=-1, alpha=1.0, all_ops=True,
                 interpolation="bilinear", fill=0, seed=None):
        func = "AugMix"
        self._params = dict(severity=severity, mixture_width=mixture_width, chain_depth=chain_depth, alpha=alpha,
                            all_ops=all_ops, interpolation=interpolation, fill=fill, seed=seed)
        self.severity = _check_int(severity, "severity", 1, func)
        if self.severity > 10:
            raise ValueError(f"{func}: severity must be in [1, 10], got {severity!r}")
        self.mixture_width = _check_int(mixture_width, "mixture_width", 1, func)
        if isinstance(chain_depth, bool) or not hasattr(chain_depth, "__index__"):
            raise ValueError(f"{func}: chain_depth must be an int (<= 0: 1 to 3 at random), got {chain_depth!r}")
        self.chain_depth = chain_depth.__index__()
        try:
            self.alpha = float(alpha)
        except (TypeError, ValueError):
            self.alpha = math.nan
        if not (self.alpha > 0 and math.isfinite(self.alpha)):
            raise ValueError(f"{func}: alpha must be positive and finite, got {alpha!r}")
        if not isinstance(all_ops, bool):
            raise ValueError(f"{func}: all_ops must be True or False, got {all_ops!r}")
        if interpolation not in ("nearest", "bilinear"):
            raise ValueError(f"{func}: interpolation must be 'nearest' or 'bilinear', got {interpolation!r}")
        self.all_ops, self.interpolation, self.fill = all_ops, interpolation, fill
        self.space = AUGMIX if all_ops else AUGMIX_PARTIAL
        self._init_sampling(seed)

    def __reduce__(self):
        return _restore_stage, (type(self), self._params, self._sampling_state())

    def _draw(self, rng, h, w):
        """One image's record from its generator."""
        m0, m1 = (_float32(v) for v in sample_dirichlet(rng, (self.alpha, self.alpha)))
        d = sample_dirichlet(rng, (self.alpha,) * self.mixture_width)
        weights = [float(np.float32(v) * np.float32(m1)) for v in d]
        names = list(self.space)
        chains = []
        for _ in range(self.mixture_width):
            depth = self.chain_depth
            if depth <= 0:
                u = np.empty(1, np.float64)
                rng.uniform(u, 0.0, 1.0)
                depth = 1 + min(int(u[0] * 3), 2)
            u = np.empty(3 * depth, np.float64)
            rng.uniform(u, 0.0, 1.0)
            chain = []
            for i in range(depth):
                op = names[min(int(u[3 * i] * len(names)), len(names) - 1)]
                table, signed = self.space[op]
                m = 0.0
                if table is not None:
                    m = float(table(10, h, w)[min(int(u[3 * i + 1] * self.severity), self.severity - 1)])
                    if signed and u[3 * i + 2] <= 0.5:
                        m = -m
                chain.append((op, m))
            chains.append(chain)
        return {"m": m0, "weights": weights, "chains": chains}

    def __call__(self, batch):
        """Each image of ``batch['image']`` through its own AugMix, in place; each augmentation
        dict gets ``'augmix'`` (a given one is replayed)."""
        func = "AugMix"
        image = _image_batch(batch, func, "(N, C, H, W)", pixels=True)
        n, _, h, w = image.shape
        if image.dtype not in (_augpy.uint8, _augpy.float32):
            raise ValueError(f"{func}: batch['image'] must be uint8 or float32, got {image.dtype}")
        augmentation = [dict(a) for a in _augmentation_list(batch.get("augmentation"), n, func)]
        states = self._rng_states(augmentation)
        for k in range(n):
            record = augmentation[k].get("augmix")
            if record is None:
                record = self._draw(generator_at(states[k])[0], h, w)
                augmentation[k]["augmix"] = record
            _augpy.copy(apply_augmix(image[k], record, self.interpolation, self.fill), image[k])
        batch["augmentation"] = augmentation
        return batch
