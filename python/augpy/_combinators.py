"""Combinators over batch stages, deciding per image: ``Compose`` (stages in order),
``RandomApply(stages, p)`` (each image runs the stages with probability p) and ``RandomChoice``
/ ``OneOf`` (each image runs one stage drawn with the given weights). An image's decision is
drawn from the seed model and recorded in its augmentation dict under the combinator's ``key``,
which is also its stream: by default the class name and its stages' (``'RandomApply(ColorJitter)'``);
give ``key=`` to tell apart two combinators over the same stages. True / False for RandomApply,
the chosen index for RandomChoice; a recorded decision is replayed.

The images a stage runs on are gathered into a sub-batch (their augmentation dicts with them;
a stage that takes a batch dict of ``image`` and ``augmentation``, in place or not), and its
results are written back to their places. The stages keep their own records.
"""
import numpy as np

from . import _augpy
from ._colour_stages import _image_batch
from ._decode_stage import _augmentation_list
from ._sampling import Sampled, generator_at


def _run_on(stage, batch, idx, func):
    """Runs stage on the images idx of batch (a sub-batch), writing the results back."""
    if not idx:
        return
    image = batch["image"]
    whole = len(idx) == image.shape[0]
    sub = image if whole else _augpy.stack([image[i] for i in idx])
    out = stage({"image": sub, "augmentation": [batch["augmentation"][i] for i in idx]})
    res = out["image"]
    if tuple(res.shape) != tuple(sub.shape) or res.dtype != sub.dtype:
        raise ValueError(f"{func}: a stage changed the images from {tuple(sub.shape)} {sub.dtype} to "
                         f"{tuple(res.shape)} {res.dtype}; per-image choices need stages that keep both")
    if whole:
        if res is not image:
            _augpy.copy(res, image)
    else:
        for j, i in enumerate(idx):
            _augpy.copy(res[j], image[i])
    for j, i in enumerate(idx):
        batch["augmentation"][i] = out["augmentation"][j]


def _stages(stages, func):
    stages = list(stages) if isinstance(stages, (list, tuple)) else [stages]
    if not stages or not all(callable(s) for s in stages):
        raise TypeError(f"{func}: stages must be a stage or a non-empty list of stages (callables on a batch)")
    return stages


def _default_key(func, stages):
    return f"{func}({', '.join(type(s).__name__ for s in stages)})"


class Compose:
    """The stages in order, on the whole batch (``batch = stage(batch)`` for each)."""

    def __init__(self, stages):
        self.stages = _stages(stages, "Compose")

    def __call__(self, batch):
        for s in self.stages:
            batch = s(batch)
        return batch


class _PerImage(Sampled):
    def _decide(self, batch):
        func = type(self).__name__
        image = _image_batch(batch, func, "(N, C, H, W)")
        n = image.shape[0]
        batch["augmentation"] = [dict(a) for a in _augmentation_list(batch.get("augmentation"), n, func)]
        states = self._rng_states(batch["augmentation"])
        out = []
        for k, a in enumerate(batch["augmentation"]):
            if self.key in a:
                out.append(self._check_record(a[self.key], func, k))
                continue
            out.append(self._from_uniform(float(generator_at(states[k], 1)[1][0])))
            a[self.key] = out[-1]
        return out


class RandomApply(_PerImage):
    """Each image runs ``stages`` (in order) with probability ``p``, decided per image and
    recorded as ``augmentation[key] = True / False``."""

    def __init__(self, stages, p=0.5, key=None, seed=None):
        func = "RandomApply"
        self.stages = _stages(stages, func)
        p = float(p)
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"{func}: p must be in [0, 1], got {p!r}")
        self.p = p
        self.key = self.stream = key or _default_key(func, self.stages)
        self._init_sampling(seed)

    def _from_uniform(self, u):
        return u < self.p

    def _check_record(self, value, func, k):
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{func}: augmentation[{k}][{self.key!r}] must be True or False, got {value!r}")
        return bool(value)

    def __call__(self, batch):
        chosen = self._decide(batch)
        idx = [k for k, c in enumerate(chosen) if c]
        for s in self.stages:
            _run_on(s, batch, idx, "RandomApply")
        return batch


class RandomChoice(_PerImage):
    """Each image runs one of ``stages``, drawn with probabilities proportional to
    ``weights`` (None: equal), recorded as ``augmentation[key]`` = the stage's index.
    ``OneOf`` is the same (albumentations' name)."""

    def __init__(self, stages, weights=None, key=None, seed=None):
        func = type(self).__name__
        self.stages = _stages(stages, func)
        w = np.ones(len(self.stages)) if weights is None else np.asarray(weights, np.float64)
        if w.shape != (len(self.stages),) or not np.isfinite(w).all() or (w < 0).any() or w.sum() <= 0:
            raise ValueError(f"{func}: weights must be {len(self.stages)} finite values >= 0 with a positive sum, "
                             f"got {weights!r}")
        self.weights = w / w.sum()
        self._cum = np.cumsum(self.weights)
        self.key = self.stream = key or _default_key(func, self.stages)
        self._init_sampling(seed)

    def _from_uniform(self, u):
        return int(min(np.searchsorted(self._cum, u, side="right"), len(self.stages) - 1))

    def _check_record(self, value, func, k):
        if isinstance(value, bool) or not hasattr(value, "__index__") or not 0 <= value < len(self.stages):
            raise ValueError(f"{func}: augmentation[{k}][{self.key!r}] must be a stage index in "
                             f"[0, {len(self.stages)}), got {value!r}")
        return value.__index__()

    def __call__(self, batch):
        chosen = self._decide(batch)
        for j, s in enumerate(self.stages):
            _run_on(s, batch, [k for k, c in enumerate(chosen) if c == j], type(self).__name__)
        return batch


class OneOf(RandomChoice):
    __doc__ = RandomChoice.__doc__
