"""MixUp and CutMix (torchvision.transforms.v2.MixUp / CutMix) as the collate step of a batch:
float (N, C, H, W) images mixed with their batch neighbour (``roll(1, 0)``: image k with image
k - 1, image 0 with the last) and integer labels turned into soft targets, a float32
(N, num_classes) tensor on the images' device. One lambda per batch, drawn from Beta(alpha,
alpha) in the seed model (stream: the class name; the state of the batch's first image), and
recorded in every augmentation dict as ``'mixup'`` / ``'cutmix'``. ``mixup`` and ``cutmix`` are
the functional forms for a given lambda or box.

The arithmetic is torchvision's, in float32: ``x.roll(1, 0) * (1 - lam) + x * lam`` for the
images of MixUp and for the one-hot labels of both; CutMix pastes the neighbour's box. Labels
that are already (N, num_classes) soft or multi-hot targets (an array or tensor as
``batch['label']``, or each metadata dict's ``'target'``) are mixed the same way in place of
the one-hot rows (torchvision's MixUp / CutMix take class indices only)."""
import math

import numpy as np

from . import _augpy
from ._colour_stages import _image_batch
from ._decode_stage import _augmentation_list, _restore_stage
from ._sampling import Sampled, batch_labels, generator_at

_FLOATS = ("float16", "bfloat16", "float32", "float64")


def _is_float(t):
    return t.dtype in tuple(getattr(_augpy, n) for n in _FLOATS)


def _rolled(x):
    """x with its first axis rolled by one (x[-1], x[0], ..., x[-2]): a new tensor."""
    return _augpy.concatenate([x[x.shape[0] - 1:], x[:x.shape[0] - 1]])


def label_array(labels, n, num_classes, func):
    """The labels of n images as a NumPy array: N integer class indices in [0, num_classes)
    (int64, 1-D), or (N, num_classes) soft / multi-hot targets (float, bool or int; finite) as
    float64 (2-D). labels: an array, a sequence, an augpy tensor or a CPU torch tensor."""
    if isinstance(labels, _augpy.Tensor):
        labels = labels.numpy()
    try:
        lab = np.asarray(labels)
    except (TypeError, ValueError, RuntimeError) as e:
        raise ValueError(f"{func}: labels must be N class indices or (N, num_classes) targets ({e})") from None
    if lab.ndim == 2 and lab.dtype.kind in "biuf":
        if lab.shape != (n, num_classes):
            raise ValueError(f"{func}: (N, num_classes) targets must have shape ({n}, {num_classes}) for {n} images "
                             f"and num_classes={num_classes}, got {lab.shape}")
        lab = lab.astype(np.float64)
        if not np.isfinite(lab).all():
            raise ValueError(f"{func}: targets must be finite, got NaN or infinity")
        return lab
    if lab.ndim != 1 or lab.dtype.kind not in "iu":
        raise ValueError(f"{func}: labels must be N integer class indices or (N, num_classes) float targets, "
                         f"got shape {lab.shape} of {lab.dtype}")
    if lab.size != n:
        raise ValueError(f"{func}: {lab.size} labels for {n} images")
    if lab.size and (lab.min() < 0 or lab.max() >= num_classes):
        raise ValueError(f"{func}: labels must be in [0, {num_classes}), got {lab.min()} .. {lab.max()}")
    return lab.astype(np.int64)


def soft_targets(labels, num_classes, lam, device_of, func):
    """torchvision's _mixup_label: one_hot(labels) rolled * (1 - lam) + one_hot * lam, float32,
    as an augpy tensor on device_of's device; (N, num_classes) targets (multi-hot or soft) are
    mixed as given, in float32, in place of the one-hot rows."""
    lab = label_array(labels, device_of.shape[0], num_classes, func)
    if lab.ndim == 2:
        one = lab.astype(np.float32)
    else:
        one = np.zeros((lab.size, num_classes), np.float32)
        one[np.arange(lab.size), lab] = 1.0
    t = np.roll(one, 1, 0) * np.float32(1.0 - lam) + one * np.float32(lam)
    out = _augpy.array_to_tensor(t.astype(np.float32))
    return out if out.device == device_of.device else out.to(device_of.device)


def _check(images, labels, num_classes, func):
    if not isinstance(images, _augpy.Tensor) or images.ndim != 4 or not _is_float(images):
        raise ValueError(f"{func}: images must be a float (N, C, H, W) tensor (mix after normalising)")
    if isinstance(num_classes, bool) or not hasattr(num_classes, "__index__") or num_classes.__index__() < 1:
        raise ValueError(f"{func}: num_classes must be an int >= 1, got {num_classes!r}")
    return num_classes.__index__()


def mixup(images, labels, lam, num_classes):
    """torchvision's MixUp for a given lam: images (a float (N, C, H, W) tensor) become
    ``images.roll(1, 0) * (1 - lam) + images * lam`` in place; returns (images, soft targets)."""
    func = "augpy.image.mixup"
    num_classes = _check(images, labels, num_classes, func)
    label_array(labels, images.shape[0], num_classes, func)  # before the images change
    lam = float(lam)
    if not 0.0 <= lam <= 1.0:
        raise ValueError(f"{func}: lam must be in [0, 1], got {lam!r}")
    a = _augpy.mul(_rolled(images), 1.0 - lam)
    _augpy.mul(images, lam, out=images)
    _augpy.add(a, images, out=images)
    return images, soft_targets(labels, num_classes, lam, images, func)


def cutmix(images, labels, box, num_classes):
    """torchvision's CutMix for a given box (x1, y1, x2, y2): the box of image k is image
    k - 1's, in place; the targets' lambda is 1 - box area / image area. Returns (images,
    soft targets, lam)."""
    func = "augpy.image.cutmix"
    num_classes = _check(images, labels, num_classes, func)
    n, _, h, w = images.shape
    x1, y1, x2, y2 = (int(v) for v in box)
    if not (0 <= x1 <= x2 <= w and 0 <= y1 <= y2 <= h):
        raise ValueError(f"{func}: box {tuple(box)} is not inside the {w} x {h} image (x1 <= x2, y1 <= y2)")
    label_array(labels, n, num_classes, func)  # before the images change
    if x2 > x1 and y2 > y1:
        patch = _rolled(images[:, :, y1:y2, x1:x2])
        _augpy.copy(patch, images[:, :, y1:y2, x1:x2])
    lam = 1.0 - (x2 - x1) * (y2 - y1) / (w * h)
    return images, soft_targets(labels, num_classes, lam, images, func), lam


def _gamma(shape, normals, uniforms):
    """One Gamma(shape, 1) value by Marsaglia and Tsang's method from streams of N(0, 1) and
    U[0, 1) draws (shape < 1: Gamma(shape + 1) * U^(1/shape)); None when the draws run out."""
    boost = 1.0
    if shape < 1.0:
        boost = next(uniforms) ** (1.0 / shape)
        shape += 1.0
    d = shape - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    for z, u in zip(normals, uniforms):
        v = (1.0 + c * z) ** 3
        if v > 0 and math.log(u) < 0.5 * z * z + d - d * v + d * math.log(v):
            return d * v * boost
    return None


def sample_dirichlet(rng, alphas):
    """A Dirichlet(alphas) sample (a list of floats summing to 1) from an augpy generator: one
    Gamma(alpha_i) value each by Marsaglia-Tsang, normalised; the draws come in blocks of
    max(64, 4k) normals and that many plus k uniforms, redrawn until every value accepts."""
    k = len(alphas)
    block = max(64, 4 * k)
    while True:
        z = np.empty(block, np.float64)
        u = np.empty(block + k, np.float64)
        rng.gaussian(z, 0.0, 1.0)
        rng.uniform(u, 0.0, 1.0)
        u = np.maximum(u, np.finfo(np.float64).tiny)  # log(0) never
        uniforms = iter(u.tolist())
        normals = iter(z.tolist())
        gammas = []
        for a in alphas:
            g = _gamma(a, normals, uniforms)
            if g is None:
                break
            gammas.append(g)
        if len(gammas) == k:
            total = sum(gammas)
            return [g / total for g in gammas] if total > 0 else [1.0 / k] * k


def sample_beta(rng, alpha):
    """A Beta(alpha, alpha) value from an augpy generator: the first of a Dirichlet(alpha,
    alpha) sample (two Gamma(alpha) values by Marsaglia-Tsang, the draws in blocks of 64
    normals and 66 uniforms until both accept)."""
    return sample_dirichlet(rng, (alpha, alpha))[0]


class _Mix(Sampled):
    def __init__(self, alpha=1.0, num_classes=None, seed=None):
        func = type(self).__name__
        self._params = dict(alpha=alpha, num_classes=num_classes, seed=seed)
        alpha = float(alpha)
        if not (alpha > 0 and math.isfinite(alpha)):
            raise ValueError(f"{func}: alpha must be positive and finite, got {alpha!r}")
        if isinstance(num_classes, bool) or not hasattr(num_classes, "__index__") or num_classes.__index__() < 1:
            raise ValueError(f"{func}: num_classes must be an int >= 1, got {num_classes!r}")
        self.alpha, self.num_classes = alpha, num_classes.__index__()
        self._init_sampling(seed)

    def __reduce__(self):
        return _restore_stage, (type(self), self._params, self._sampling_state())

    def _generator(self, augmentation):
        return generator_at(self._rng_states(augmentation)[0])[0]


class MixUp(_Mix):
    """torchvision's ``MixUp(alpha, num_classes)`` as a collate step: ``batch['image']`` (a float
    (N, C, H, W) tensor, mixed in place) and ``batch['label']`` (N class indices) become mixed
    images and ``batch['target']``, float32 (N, num_classes) soft targets. lam ~ Beta(alpha,
    alpha), one per batch (the seed model's stream 'MixUp', the first image's state); every
    augmentation dict records ``'mixup': lam`` (a batch whose first dict has one replays it)."""

    def __call__(self, batch):
        func = "MixUp"
        image = _image_batch(batch, func, "float (N, C, H, W)")
        augmentation = [dict(a) for a in _augmentation_list(batch.get("augmentation"), image.shape[0], func)]
        batch_labels(batch, func)
        lam = augmentation[0].get("mixup") if augmentation else None
        if lam is None:
            lam = sample_beta(self._generator(augmentation), self.alpha) if augmentation else 1.0
        _, batch["target"] = mixup(image, batch["label"], lam, self.num_classes)
        batch["augmentation"] = [dict(a, mixup=lam) for a in augmentation]
        return batch


class CutMix(_Mix):
    """torchvision's ``CutMix(alpha, num_classes)`` as a collate step: lam ~ Beta(alpha, alpha),
    a box of side sqrt(1 - lam) times the image's centred on a uniform pixel (clipped), image
    k's box taken from image k - 1, in place; ``batch['target']`` the soft targets of the box's
    true area. Every augmentation dict records ``'cutmix': (x1, y1, x2, y2)`` (the first dict's
    is replayed)."""

    def __call__(self, batch):
        func = "CutMix"
        image = _image_batch(batch, func, "float (N, C, H, W)")
        n, _, h, w = image.shape
        augmentation = [dict(a) for a in _augmentation_list(batch.get("augmentation"), n, func)]
        batch_labels(batch, func)
        box = augmentation[0].get("cutmix") if augmentation else None
        if box is None:
            if augmentation:
                rng = self._generator(augmentation)
                lam = sample_beta(rng, self.alpha)
                u = np.empty(2, np.float64)
                rng.uniform(u, 0.0, 1.0)
                rx, ry = min(int(u[0] * w), w - 1), min(int(u[1] * h), h - 1)
                r = 0.5 * math.sqrt(1.0 - lam)
                rw, rh = int(r * w), int(r * h)
                box = (max(rx - rw, 0), max(ry - rh, 0), min(rx + rw, w), min(ry + rh, h))
            else:
                box = (0, 0, 0, 0)
        _, batch["target"], _ = cutmix(image, batch["label"], box, self.num_classes)
        batch["augmentation"] = [dict(a, cutmix=tuple(box)) for a in augmentation]
        return batch
