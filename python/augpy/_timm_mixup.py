"""timm's Mixup (timm.data.mixup.Mixup, timm 1.0.31) as the collate step of a batch: MixUp or
CutMix, switched per decision, each image mixed with its mirror in the batch (image i with
image N - 1 - i, timm's ``flip(0)``), the integer labels turned into label-smoothed soft
targets, a float32 (N, num_classes) tensor on the images' device.

One decision (mix or not with ``prob``, CutMix or MixUp with ``switch_prob`` when both alphas
are positive, lam ~ Beta(alpha, alpha) of the chosen one, CutMix's box) per batch
(``mode='batch'``: the first image's state), per mirrored pair ('pair': image i's, i < N / 2)
or per image ('elem'), from the seed model (stream 'Mixup'). Each augmentation dict records
``'timm_mixup'``: ``{'lam': lam, 'box': (x1, y1, x2, y2) or None}`` (a batch whose dicts all
have one replays them). The arithmetic is timm's: lam a float64 per batch and a float32 per
pair or image; MixUp ``x * lam + mirror * (1 - lam)`` in float32; CutMix's box as rand_bbox
draws it (sides ``int(size * sqrt(1 - lam))``, centred on a uniform pixel, clipped) or as
rand_bbox_minmax does, lam corrected to ``1 - box area / image area`` (``correct_lam``, always
with ``cutmix_minmax``); targets ``y * lam + y.flip(0) * (1 - lam)`` with ``y`` the one-hot
labels at ``1 - smoothing + smoothing / num_classes`` and ``smoothing / num_classes``.

Multi-label: labels that are already (N, num_classes) soft or multi-hot targets (an array or
tensor as ``batch['label']``, or each metadata dict's ``'target'``; timm's mixup_target takes
class indices only) are smoothed as timm smooths a one-hot row, ``y (1 - smoothing) +
smoothing / num_classes`` (in float64, then float32: a one-hot row gives timm's values bit for
bit), and mixed with the same lam."""
import math

import numpy as np

from . import _augpy
from ._colour_stages import _image_batch
from ._decode_stage import _augmentation_list, _restore_stage
from ._mixing import _is_float, label_array, sample_beta
from ._sampling import Sampled, batch_labels, generator_at

MODES = ("batch", "pair", "elem")


def _unit(value, name, func, closed=True):
    try:
        v = float(value)
    except (TypeError, ValueError):
        v = math.nan
    if not (0.0 <= v <= 1.0 if closed else 0.0 <= v < 1.0):
        raise ValueError(f"{func}: {name} must be in [0, 1{']' if closed else ')'}, got {value!r}")
    return v


def _alpha(value, name, func):
    try:
        v = float(value)
    except (TypeError, ValueError):
        v = math.nan
    if not (v >= 0 and math.isfinite(v)):
        raise ValueError(f"{func}: {name} must be >= 0 and finite (0: off), got {value!r}")
    return v


def _randint(u, low, high):
    """numpy's randint(low, high) from a uniform u in [0, 1)."""
    return low + min(int(u * (high - low)), high - low - 1)


def rand_bbox(u, h, w, lam):
    """timm's rand_bbox for lam and two uniforms (cy, cx): (x1, y1, x2, y2)."""
    ratio = math.sqrt(1.0 - lam)
    cut_h, cut_w = int(h * ratio), int(w * ratio)
    cy, cx = _randint(u[0], 0, h), _randint(u[1], 0, w)
    yl, yh = min(max(cy - cut_h // 2, 0), h), min(max(cy + (cut_h + 1) // 2, 0), h)
    xl, xh = min(max(cx - cut_w // 2, 0), w), min(max(cx + (cut_w + 1) // 2, 0), w)
    return xl, yl, xh, yh


def rand_bbox_minmax(u, h, w, minmax):
    """timm's rand_bbox_minmax for four uniforms (cut_h, cut_w, top, left): (x1, y1, x2, y2)."""
    cut_h = _randint(u[0], int(h * minmax[0]), int(h * minmax[1]))
    cut_w = _randint(u[1], int(w * minmax[0]), int(w * minmax[1]))
    yl, xl = _randint(u[2], 0, h - cut_h + 1), _randint(u[3], 0, w - cut_w + 1)
    return xl, yl, xl + cut_w, yl + cut_h


class Mixup(Sampled):
    """timm's ``Mixup(mixup_alpha, cutmix_alpha, cutmix_minmax, prob, switch_prob, mode,
    correct_lam, label_smoothing, num_classes)`` as a collate step: ``batch['image']`` (a float
    (N, C, H, W) tensor, N even, mixed in place) and ``batch['label']`` (N class indices, or
    (N, num_classes) soft / multi-hot targets) become mixed images and ``batch['target']``,
    float32 (N, num_classes) label-smoothed soft targets. Each augmentation dict records
    ``'timm_mixup'``: ``{'lam', 'box'}`` (module docstring: augpy/_timm_mixup.py)."""

    def __init__(self, mixup_alpha=1.0, cutmix_alpha=0.0, cutmix_minmax=None, prob=1.0, switch_prob=0.5,
                 mode="batch", correct_lam=True, label_smoothing=0.1, num_classes=1000, seed=None):
        func = "Mixup"
        self._params = dict(mixup_alpha=mixup_alpha, cutmix_alpha=cutmix_alpha, cutmix_minmax=cutmix_minmax,
                            prob=prob, switch_prob=switch_prob, mode=mode, correct_lam=correct_lam,
                            label_smoothing=label_smoothing, num_classes=num_classes, seed=seed)
        self.mixup_alpha = _alpha(mixup_alpha, "mixup_alpha", func)
        self.cutmix_alpha = _alpha(cutmix_alpha, "cutmix_alpha", func)
        self.cutmix_minmax = None
        if cutmix_minmax is not None:
            try:
                lo, hi = (float(v) for v in cutmix_minmax)
            except (TypeError, ValueError):
                lo = hi = math.nan
            if not 0.0 <= lo < hi <= 1.0:
                raise ValueError(f"{func}: cutmix_minmax must be (min, max) with 0 <= min < max <= 1, "
                                 f"got {cutmix_minmax!r}")
            self.cutmix_minmax = (lo, hi)
            self.cutmix_alpha = 1.0  # timm's rule: minmax forces CutMix on with alpha 1
        if self.mixup_alpha == 0 and self.cutmix_alpha == 0:
            raise ValueError(f"{func}: one of mixup_alpha > 0, cutmix_alpha > 0 or cutmix_minmax must be given, "
                             f"got mixup_alpha={mixup_alpha!r}, cutmix_alpha={cutmix_alpha!r}")
        self.prob = _unit(prob, "prob", func)
        self.switch_prob = _unit(switch_prob, "switch_prob", func)
        if mode not in MODES:
            raise ValueError(f"{func}: mode must be 'batch', 'pair' or 'elem', got {mode!r}")
        if not isinstance(correct_lam, bool):
            raise ValueError(f"{func}: correct_lam must be True or False, got {correct_lam!r}")
        self.label_smoothing = _unit(label_smoothing, "label_smoothing", func, closed=False)
        if isinstance(num_classes, bool) or not hasattr(num_classes, "__index__") or num_classes.__index__() < 1:
            raise ValueError(f"{func}: num_classes must be an int >= 1, got {num_classes!r}")
        self.mode, self.correct_lam, self.num_classes = mode, correct_lam, num_classes.__index__()
        self._init_sampling(seed)

    def __reduce__(self):
        return _restore_stage, (type(self), self._params, self._sampling_state())

    def _decide(self, state, h, w, f32):
        """One decision's record {'lam', 'box'} from a generator state (f32: lam as a float32)."""
        rng, u = generator_at(state, 2)
        if not u[0] < self.prob:
            return {"lam": 1.0, "box": None}
        if self.mixup_alpha > 0 and self.cutmix_alpha > 0:
            cut = bool(u[1] < self.switch_prob)
        else:
            cut = self.cutmix_alpha > 0
        lam = sample_beta(rng, self.cutmix_alpha if cut else self.mixup_alpha)
        if f32:
            lam = float(np.float32(lam))
        if not cut:
            return {"lam": lam, "box": None}
        v = np.empty(4, np.float64)
        rng.uniform(v, 0.0, 1.0)
        if self.cutmix_minmax is not None:
            box = rand_bbox_minmax(v, h, w, self.cutmix_minmax)
        else:
            box = rand_bbox(v, h, w, lam)
        if self.correct_lam or self.cutmix_minmax is not None:
            lam = 1.0 - (box[2] - box[0]) * (box[3] - box[1]) / float(h * w)
            if f32:
                lam = float(np.float32(lam))
        return {"lam": lam, "box": tuple(int(v) for v in box)}

    def _records(self, augmentation, n, h, w):
        states = self._rng_states(augmentation)
        if self.mode == "batch":
            return [self._decide(states[0], h, w, False)] * n
        if self.mode == "pair":
            half = [self._decide(states[i], h, w, True) for i in range(n // 2)]
            return half + half[::-1]
        return [self._decide(states[i], h, w, True) for i in range(n)]

    def __call__(self, batch):
        """Mix ``batch['image']`` in place and set ``batch['target']``; each augmentation dict
        gets ``'timm_mixup'`` (when every dict has one, they are replayed)."""
        func = "Mixup"
        image = _image_batch(batch, func, "float (N, C, H, W)")
        if not _is_float(image):
            raise ValueError(f"{func}: batch['image'] must be a float (N, C, H, W) tensor (mix after normalising), "
                             f"got {image.dtype}")
        n, _, h, w = image.shape
        if n % 2:
            raise ValueError(f"{func}: the batch size must be even (timm's rule), got {n}")
        batch_labels(batch, func)
        labels = self._labels(batch["label"], n, func)
        augmentation = [dict(a) for a in _augmentation_list(batch.get("augmentation"), n, func)]
        if augmentation and all("timm_mixup" in a for a in augmentation):
            records = [_check_record(a["timm_mixup"], h, w, func, k) for k, a in enumerate(augmentation)]
        else:
            records = self._records(augmentation, n, h, w)
        self._mix(image, records)
        batch["target"] = self._targets(labels, records, image)
        batch["augmentation"] = [dict(a, timm_mixup=r) for a, r in zip(augmentation, records)]
        return batch

    def _labels(self, labels, n, func):
        return label_array(labels, n, self.num_classes, func)

    def _mix(self, image, records):
        """Every image mixed with its mirror in one pass (augpy.mix_mirror: the original values
        of both, so no copy of the batch): 'batch' one lam or box for all, 'pair' image i's
        record for i and N-1-i, 'elem' each image's own. MixUp's weights are the values timm
        multiplies by (lam and 1 - lam as floats in 'batch', float32 per pair or image), each
        product and the sum rounded in the batch's dtype."""
        n = image.shape[0]
        if self.mode == "batch":
            r = records[0] if n else {"lam": 1.0, "box": None}
            if r["lam"] == 1.0:
                return
            if r["box"] is not None:
                _augpy.mix_mirror(image, None, r["box"])
            else:
                _augpy.mix_mirror(image, (r["lam"], 1.0 - r["lam"]))
            return
        weights, boxes = [], []
        for i in range(n):
            r = records[min(i, n - 1 - i)] if self.mode == "pair" else records[i]
            if r["lam"] == 1.0:
                weights.append((1.0, 0.0))
                boxes.append((0, 0, 0, 0))
            elif r["box"] is not None:
                weights.append((1.0, 0.0))
                boxes.append(r["box"])
            else:
                lam = np.float32(r["lam"])
                weights.append((float(lam), float(np.float32(1) - lam)))
                boxes.append((0, 0, 0, 0))
        _augpy.mix_mirror(image, weights, boxes)

    def _targets(self, labels, records, like):
        n = labels.shape[0]
        off = self.label_smoothing / self.num_classes
        if labels.ndim == 2:  # soft / multi-hot: timm's smoothing of a one-hot row, y (1 - s) + s / C
            y1 = (labels * (1.0 - self.label_smoothing) + off).astype(np.float32)
        else:
            y1 = np.full((n, self.num_classes), np.float32(off), np.float32)
            y1[np.arange(n), labels] = np.float32(1.0 - self.label_smoothing + off)
        y2 = y1[::-1]
        if self.mode == "batch":
            lam = records[0]["lam"] if n else 1.0
            t = y1 * np.float32(lam) + y2 * np.float32(1.0 - lam)
        else:
            lam = np.array([r["lam"] for r in records], np.float32)[:, None]
            t = y1 * lam + y2 * (np.float32(1) - lam)
        out = _augpy.array_to_tensor(np.ascontiguousarray(t, np.float32))
        return out if out.device == like.device else out.to(like.device)


def _check_record(record, h, w, func, k):
    try:
        lam, box = float(record["lam"]), record["box"]
        box = None if box is None else tuple(int(v) for v in box)
    except (TypeError, KeyError, ValueError):
        raise ValueError(f"{func}: augmentation[{k}]['timm_mixup'] must be {{'lam': float, 'box': (x1, y1, x2, y2) "
                         f"or None}}, got {record!r}") from None
    if not 0.0 <= lam <= 1.0:
        raise ValueError(f"{func}: augmentation[{k}]['timm_mixup'] lam must be in [0, 1], got {lam!r}")
    if box is not None and (len(box) != 4 or not (0 <= box[0] <= box[2] <= w and 0 <= box[1] <= box[3] <= h)):
        raise ValueError(f"{func}: augmentation[{k}]['timm_mixup'] box {box} is not inside the {w} x {h} image")
    return {"lam": lam, "box": box}
