"""Per-image random stages over augpy's ops, each a batch stage drawing from the seed model
(augpy/_sampling.py; stream: the class name) and recording its draw in each image's
augmentation dict (a recorded value is replayed):

- ``RandomGrayscale(p)``: torchvision's (transforms.v2.RandomGrayscale): with probability p an
  image becomes augpy.rgb_to_grayscale of itself in all its channels (``'grayscale'``: bool);
- ``RandomGaussianBlur(kernel_size, sigma, p)``: torchvision's GaussianBlur sampler (sigma
  uniform in [lo, hi]) applied with probability p through augpy.gaussian_blur
  (``'gaussian_blur'``: the sigma, or None);
- ``RandomJpegQuality(quality, p)``: torchvision v2's JPEG / albumentations' ImageCompression:
  with probability p an image is encoded with libjpeg-turbo at a quality drawn uniformly from
  the integers lo..hi (augpy.encode_jpeg) and decoded again (``'jpeg_quality'``: the quality,
  or None).

An image is changed when its first uniform draw is below p (torchvision's
``torch.rand(1) < p``)."""
import math

import numpy as np

from . import _augpy
from ._colour_stages import _image_batch
from ._decode_stage import _augmentation_list, _restore_stage
from . import _sampling


def check_p(p, func):
    """A probability in [0, 1] as a float."""
    if isinstance(p, bool) or not isinstance(p, (int, float, np.integer, np.floating)):
        raise TypeError(f"{func}: p must be a number in [0, 1], got {p!r}")
    try:
        p = float(p)
    except OverflowError:
        p = math.inf
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{func}: p must be in [0, 1], got {p!r}")
    return p


class _RandomStage(_sampling.Sampled):
    """A stage that changes some images of a (N, C, H, W) batch in place: ``key`` is the
    augmentation dict's record, ``_draw(u)`` the record from this image's uniforms (None: left
    as it is), ``_apply(image, records)`` does the work."""

    key = None
    draws = 2
    pixels = False  # True: refuses a batch Normalize has marked (_colour_stages._image_batch)

    def __reduce__(self):
        return _restore_stage, (type(self), self._params, self._sampling_state())

    def __call__(self, batch):
        func = type(self).__name__
        image = _image_batch(batch, func, "(N, C, H, W)", self.pixels)
        n = image.shape[0]
        augmentation = [dict(a) for a in _augmentation_list(batch.get("augmentation"), n, func)]
        states = self._rng_states(augmentation)
        records = []
        for k in range(n):
            if self.key not in augmentation[k]:
                augmentation[k][self.key] = self._draw(_sampling.generator_at(states[k], self.draws)[1])
            records.append(augmentation[k][self.key])
        self._apply(image, records, func)
        batch["augmentation"] = augmentation
        return batch


class RandomGrayscale(_RandomStage):
    """torchvision's ``RandomGrayscale(p)`` on a uint8, uint16 or float32 (N, C, H, W) batch (C = 1 or
    3), in place: with probability p an image becomes its grayscale (augpy.rgb_to_grayscale:
    0.2989 R + 0.587 G + 0.114 B in float32, truncated for integers, torchvision's arithmetic) in
    all C channels. Each augmentation dict gets ``'grayscale'``: True or False."""

    key = "grayscale"
    draws = 1
    pixels = True

    def __init__(self, p=0.1, seed=None):
        self._params = dict(p=p, seed=seed)
        self.p = check_p(p, "RandomGrayscale")
        self._init_sampling(seed)

    def _draw(self, u):
        return bool(u[0] < self.p)

    def _apply(self, image, records, func):
        c = image.shape[1]
        if c not in (1, 3):
            raise ValueError(f"{func}: images must have 1 or 3 channels, got {c}")
        for k, gray in enumerate(records):
            if not isinstance(gray, (bool, np.bool_)):
                raise TypeError(f"{func}: augmentation[{k}]['grayscale'] must be a bool, got {gray!r}")
        if c == 1:
            return
        # one call per run of consecutive chosen images, in place (rgb_to_grayscale's out may be its image)
        n, k = len(records), 0
        while k < n:
            if not records[k]:
                k += 1
                continue
            end = k + 1
            while end < n and records[end]:
                end += 1
            view = image[k:end]
            if view.is_contiguous:
                _augpy.rgb_to_grayscale(view, 3, out=view)
            else:
                _augpy.copy(_augpy.rgb_to_grayscale(view, 3), view)
            k = end


_INT_MAX = 2**31 - 1
_FLOAT32_MAX = float(np.finfo(np.float32).max)


def _kernel_size(kernel_size, func):
    """torchvision's kernel_size (an int or two equal ints here: augpy's blur is square), odd, >= 1."""
    vals = [kernel_size] if not isinstance(kernel_size, (list, tuple)) else list(kernel_size)
    if len(vals) not in (1, 2) or any(isinstance(v, bool) or not hasattr(v, "__index__") for v in vals):
        raise TypeError(f"{func}: kernel_size must be an int or a pair of ints, got {kernel_size!r}")
    vals = [v.__index__() for v in vals]
    if any(v < 1 or v % 2 == 0 or v > _INT_MAX for v in vals):
        raise ValueError(f"{func}: kernel_size must be odd, positive and below 2**31, got {kernel_size!r}")
    if len(set(vals)) != 1:
        raise ValueError(f"{func}: kernel_size must be square (augpy's blur is), got {kernel_size!r}")
    return vals[0]


def _sigma_range(sigma, func):
    """torchvision's sigma: a number s (the range (s, s)) or (lo, hi) with 0 < lo <= hi."""
    try:
        lo, hi = (float(sigma), float(sigma)) if np.ndim(sigma) == 0 else (float(v) for v in sigma)
    except OverflowError:
        lo = hi = math.inf
    except (TypeError, ValueError):
        raise TypeError(f"{func}: sigma must be a number or (min, max), got {sigma!r}") from None
    if not (0.0 < lo <= hi <= _FLOAT32_MAX):
        raise ValueError(f"{func}: sigma must be positive, finite in float32 and (min, max) with min <= max, "
                         f"got {sigma!r}")
    return lo, hi


class RandomGaussianBlur(_RandomStage):
    """A Gaussian blur of each image of a uint8 or float (N, C, H, W) batch with probability p,
    in place, at a sigma drawn as torchvision's ``GaussianBlur(kernel_size, sigma)`` draws it
    (uniform in [min, max]). The blur is augpy.gaussian_blur with ``max_ksize=kernel_size``:
    its kernel has min(kernel_size, max(3, int(sigma * 6.6 - 2.3) | 1)) taps (weights
    renormalised) and replicates the edges, where torchvision's has exactly kernel_size taps
    and reflects them (docs/policies.md states the difference). Each augmentation dict gets
    ``'gaussian_blur'``: the sigma, or None when the image was left as it is."""

    key = "gaussian_blur"

    def __init__(self, kernel_size, sigma=(0.1, 2.0), p=1.0, seed=None):
        func = "RandomGaussianBlur"
        self._params = dict(kernel_size=kernel_size, sigma=sigma, p=p, seed=seed)
        self.kernel_size = _kernel_size(kernel_size, func)
        self.sigma = _sigma_range(sigma, func)
        self.p = check_p(p, func)
        self._init_sampling(seed)

    def _draw(self, u):
        if u[0] >= self.p:
            return None
        lo, hi = self.sigma
        return lo + u[1] * (hi - lo)

    def _apply(self, image, records, func):
        sigmas = np.zeros(len(records), np.float32)
        for k, s in enumerate(records):
            if s is not None:
                try:
                    v = float(s)
                except OverflowError:
                    v = math.inf
                except (TypeError, ValueError):
                    raise TypeError(f"{func}: augmentation[{k}]['gaussian_blur'] must be a number or None, "
                                    f"got {s!r}") from None
                if not 0.0 < v <= _FLOAT32_MAX:
                    raise ValueError(f"{func}: augmentation[{k}]['gaussian_blur'] must be a positive sigma, "
                                     f"finite in float32, got {s!r}")
                sigmas[k] = v
        if sigmas.any():
            _augpy.gaussian_blur(image, sigmas, self.kernel_size, out=image)


def _quality_range(quality, func):
    """An int or (lo, hi) ints with 1 <= lo <= hi <= 100."""
    vals = [quality] if np.ndim(quality) == 0 else list(quality)
    if len(vals) not in (1, 2) or any(isinstance(v, bool) or not hasattr(v, "__index__") for v in vals):
        raise TypeError(f"{func}: quality must be an int or (min, max) ints, got {quality!r}")
    vals = [v.__index__() for v in vals] * (3 - len(vals))
    if not 1 <= vals[0] <= vals[1] <= 100:
        raise ValueError(f"{func}: quality must be in 1..100 with min <= max, got {quality!r}")
    return vals[0], vals[1]


class RandomJpegQuality(_RandomStage):
    """JPEG compression artefacts (torchvision v2 ``JPEG(quality)``, albumentations'
    ``ImageCompression``) on a uint8 (N, C, H, W) batch (C = 1 or 3), in place: with
    probability p an image is encoded with libjpeg-turbo (augpy.encode_jpeg: 4:2:0, PIL's
    settings) at a quality drawn uniformly from the integers min..max, and decoded again
    (augpy.Decoder). A batch on a CUDA device goes through the host. Each augmentation dict
    gets ``'jpeg_quality'``: the quality, or None when the image was left as it is."""

    key = "jpeg_quality"
    pixels = True

    def __init__(self, quality=(50, 100), p=1.0, seed=None):
        func = "RandomJpegQuality"
        self._params = dict(quality=quality, p=p, seed=seed)
        self.quality = _quality_range(quality, func)
        self.p = check_p(p, func)
        self._decoder = None
        self._init_sampling(seed)

    def _draw(self, u):
        if u[0] >= self.p:
            return None
        lo, hi = self.quality
        return lo + min(int(u[1] * (hi - lo + 1)), hi - lo)

    def _apply(self, image, records, func):
        c = image.shape[1]
        if image.dtype != _augpy.uint8:
            raise TypeError(f"{func}: the batch must be uint8, got {image.dtype}")
        if c not in (1, 3):
            raise ValueError(f"{func}: images must have 1 or 3 channels, got {c}")
        for k, q in enumerate(records):
            if q is None:
                continue
            if isinstance(q, bool) or not hasattr(q, "__index__") or not 1 <= q.__index__() <= 100:
                raise ValueError(f"{func}: augmentation[{k}]['jpeg_quality'] must be an int in 1..100 or None, "
                                 f"got {q!r}")
            if self._decoder is None:
                self._decoder = _augpy.Decoder()
            view = image[k]
            data = _augpy.encode_jpeg(view, q.__index__(), layout="CHW")
            res = self._decoder.decode(data, mode="unchanged" if c == 1 else None)
            res = res.permute(2, 0, 1)
            if res.device != view.device:
                res = res.to(view.device)
            _augpy.copy(res, view)
