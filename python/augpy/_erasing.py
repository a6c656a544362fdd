"""RandomErasing as a batch stage: torchvision's sampler (transforms.v2.RandomErasing: area
fraction uniform in ``scale``, log aspect ratio uniform in ``log(ratio)``, 10 attempts, the
rectangle placed uniformly) with timm's fill modes and counts (timm.data.RandomErasing:
``mode`` 'const' / 'rand' / 'pixel', ``min_count`` / ``max_count`` rectangles sharing the area),
per image of a uint8 or float (N, C, H, W) batch, in place, drawn from the seed model (stream
'RandomErasing'). Each augmentation dict records ``'erasing'``: the list of (top, left,
height, width) rectangles it erased; a recorded list is replayed (its noise drawn again from
the same state)."""
import math

import numpy as np

from . import _augpy
from ._colour_stages import _image_batch
from ._decode_stage import _augmentation_list, _restore_stage
from ._sampling import Sampled, generator_at

MODES = ("const", "rand", "pixel")
_ATTEMPTS = 10


def _pair(value, name, func, lo=None):
    try:
        a, b = (float(v) for v in value)
    except (TypeError, ValueError):
        raise TypeError(f"{func}: {name} must be a pair of numbers, got {value!r}") from None
    if not (math.isfinite(a) and math.isfinite(b)) or a > b or (lo is not None and a <= lo):
        raise ValueError(f"{func}: {name} must be finite, ordered (lo <= hi)"
                         f"{'' if lo is None else f' and above {lo}'}, got {value!r}")
    return a, b


class RandomErasing(Sampled):
    """Erase rectangles of each image of a uint8 or float32 (N, C, H, W) batch, in place.

    :param p: the probability that an image is erased at all
    :param scale: the range of the erased area as a fraction of the image's (shared by the
        image's rectangles: each gets ``area / count``, timm's rule)
    :param ratio: the range of the rectangles' aspect ratio (height / width), drawn log-uniform
    :param mode: what the rectangle holds: 'const' (``value``: a number or one per channel),
        'rand' (one random value per channel) or 'pixel' (a random value per pixel). Random
        values are N(0, 1) for float images (timm's, for normalised batches) and uniform in
        0..255 for uint8 images.
    :param value: the constant of mode 'const'
    :param min_count, max_count: the number of rectangles per erased image, uniform in
        [min_count, max_count] (max_count None: min_count)
    :param seed: the seed of images whose dicts carry no ``rng`` (see augpy.image)

    A rectangle is drawn as torchvision draws one: up to 10 attempts of (area, aspect ratio)
    until the rectangle fits strictly inside the image (h < H and w < W), then its top-left
    corner uniformly; after 10 failed attempts that rectangle is left out (timm's rule;
    torchvision erases nothing then too, its fallback being the whole image unchanged), and
    so is a rectangle of no area (a 1 x 1 image's)."""

    def __init__(self, p=0.5, scale=(0.02, 1.0 / 3.0), ratio=(0.3, 1.0 / 0.3), mode="const", value=0,
                 min_count=1, max_count=None, seed=None):
        func = "RandomErasing"
        self._params = dict(p=p, scale=scale, ratio=ratio, mode=mode, value=value, min_count=min_count,
                            max_count=max_count, seed=seed)
        p = float(p)
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"{func}: p must be in [0, 1], got {p!r}")
        self.p = p
        self.scale = _pair(scale, "scale", func, lo=0.0)
        self.ratio = _pair(ratio, "ratio", func, lo=0.0)
        if self.scale[1] > 1.0:
            raise ValueError(f"{func}: scale must be at most 1 (a fraction of the image), got {scale!r}")
        if mode not in MODES:
            raise ValueError(f"{func}: mode must be 'const', 'rand' or 'pixel', got {mode!r}")
        self.mode = mode
        v = np.asarray(value, np.float64)
        if v.ndim > 1 or not np.isfinite(v).all():
            raise ValueError(f"{func}: value must be a finite number or one per channel, got {value!r}")
        self.value = v
        for name, c in (("min_count", min_count), ("max_count", max_count)):
            if c is not None and (isinstance(c, bool) or not hasattr(c, "__index__") or c.__index__() < 1):
                raise ValueError(f"{func}: {name} must be an int >= 1, got {c!r}")
        self.min_count = min_count.__index__()
        self.max_count = self.min_count if max_count is None else max_count.__index__()
        if self.max_count < self.min_count:
            raise ValueError(f"{func}: max_count ({self.max_count}) is below min_count ({self.min_count})")
        self._log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        self._init_sampling(seed)

    def __reduce__(self):
        return _restore_stage, (type(self), self._params, self._sampling_state())

    def rectangles(self, u, h, w):
        """The rectangles (top, left, height, width) that uniform draws u (self.draws values in
        [0, 1)) give an h x w image."""
        if u[0] >= self.p:
            return []
        span = self.max_count - self.min_count + 1
        count = self.min_count + min(int(u[1] * span), span - 1)
        area = h * w
        out, k = [], 2
        for _ in range(count):
            for _ in range(_ATTEMPTS):
                ua, ur, ut, ul = u[k:k + 4]
                k += 4
                target = area * (self.scale[0] + ua * (self.scale[1] - self.scale[0])) / count
                aspect = math.exp(self._log_ratio[0] + ur * (self._log_ratio[1] - self._log_ratio[0]))
                rh = int(round(math.sqrt(target * aspect)))
                rw = int(round(math.sqrt(target / aspect)))
                if rh < h and rw < w:
                    if rh > 0 and rw > 0:  # an empty rectangle erases nothing: not recorded
                        out.append((min(int(ut * (h - rh + 1)), h - rh), min(int(ul * (w - rw + 1)), w - rw), rh, rw))
                    break
        return out

    @property
    def draws(self):
        return 2 + 4 * _ATTEMPTS * self.max_count

    def __call__(self, batch):
        """Erase each image's rectangles in ``batch['image']`` in place; each augmentation dict
        gets ``'erasing'``, its list of (top, left, height, width)."""
        func = "RandomErasing"
        image = _image_batch(batch, func, "(N, C, H, W)")
        n, c, h, w = image.shape
        if self.mode == "const" and self.value.ndim == 1 and self.value.shape[0] not in (1, c):
            raise ValueError(f"{func}: value has {self.value.shape[0]} values for {c} channels")
        is_float = image.dtype in (_augpy.float16, _augpy.bfloat16, _augpy.float32, _augpy.float64)
        augmentation = [dict(a) for a in _augmentation_list(batch.get("augmentation"), n, func)]
        states = self._rng_states(augmentation)
        for k in range(n):
            rng, u = generator_at(states[k], self.draws)
            rects = augmentation[k].get("erasing")
            if rects is None:
                rects = self.rectangles(u, h, w)
                augmentation[k]["erasing"] = rects
            for top, left, rh, rw in rects:
                self._erase(image[k, :, top:top + rh, left:left + rw], rng, c, rh, rw, is_float)
        batch["augmentation"] = augmentation
        return batch

    def _erase(self, view, rng, c, rh, rw, is_float):
        if self.mode == "const":  # by value, a channel at a time: no upload
            values = self.value.reshape(-1)
            if values.size == 1:
                _augpy.fill(float(values[0]), view)
            else:
                for ch in range(c):
                    _augpy.fill(float(values[ch]), view[ch:ch + 1])
            return
        shape = (c, 1, 1) if self.mode == "rand" else (c, rh, rw)
        if is_float:
            vals = np.empty(shape, np.float32)
            rng.gaussian(vals, 0.0, 1.0)
        else:
            vals = np.empty(shape, np.uint8)
            rng.uniform(vals, 0.0, 256.0)
        _augpy.copy(np.ascontiguousarray(np.broadcast_to(vals, (c, rh, rw))), view)
