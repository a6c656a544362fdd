"""augpy/_colour_stages.py: the colour batch stages Lighting (Lightning), ColorJitter and
Normalize (re-exported by augpy.image)."""
import numpy as np

from . import _augpy
from ._decode_stage import _augmentation_list, _check_batch, _positive_int, _restore_stage
from ._sampling import Sampled

# torchvision's ImageNet statistics, in pixel units (0..255)
IMAGENET_MEAN = (0.485 * 255, 0.456 * 255, 0.406 * 255)
IMAGENET_STD = (0.229 * 255, 0.224 * 255, 0.225 * 255)


class Lighting:
    """Apply ``augpy.lighting`` to a batch (N, C, H, W) in place.

    :param batch_size: maximum number of samples in a batch
    :param channels: channels C per image
    :param min_value: minimum brightness value, typically 0 for 8 bit images
    :param max_value: maximum brightness value, typically 255 for 8 bit images
    """

    def __init__(self, batch_size, channels=3, min_value=0, max_value=255):
        func = "Lighting"
        self.batch_size = _positive_int("batch_size", batch_size, func)
        self.channels = _positive_int("channels", channels, func)
        if not (float(min_value) < float(max_value)):
            raise ValueError(f"{func}: min_value {min_value!r} must be below max_value {max_value!r}")
        self.min_value = min_value
        self.max_value = max_value

    def __call__(self, batch):
        """Apply the lighting of each ``batch['augmentation']`` dict (keys
        ``gamma_gray`` default 1, ``gamma_color`` default C ones, ``contrast``
        default 0) to ``batch['image']`` in place; returns ``batch``."""
        func = "Lighting"
        augmentation = _check_batch(batch, func, self.batch_size)
        image = _image_batch(batch, func, "(N, C, H, W)", pixels=True)
        n, c = image.shape[0], image.shape[1]
        if n > self.batch_size:
            raise ValueError(f"{func}: {n} images for a batch size of {self.batch_size}")
        if c != self.channels:
            raise ValueError(f"{func}: images have {c} channels, expected {self.channels}")
        augmentation = _augmentation_list(augmentation, n, func)
        gray, color, contrast = _lighting_params(augmentation, n, c, func)
        # host tensors (no copy): read on the host, so the call does not wait for the GPU
        _augpy.lighting(image, _augpy.from_dlpack(gray), _augpy.from_dlpack(color.reshape(-1)),
                        _augpy.from_dlpack(contrast), self.min_value, self.max_value, out=image)
        return batch


def _lighting_params(augmentation, n, c, func):
    """Lighting's per-image values from the augmentation dicts: ``gamma_gray`` (default
    1), ``gamma_color`` (1 or C values, default ones), ``contrast`` (default 0), float32."""
    gray = np.ones(n, dtype=np.float32)
    color = np.ones((n, c), dtype=np.float32)
    contrast = np.zeros(n, dtype=np.float32)
    for i, params in enumerate(augmentation):
        if "gamma_gray" in params:
            gray[i] = params["gamma_gray"]
        if "gamma_color" in params:
            value = np.asarray(params["gamma_color"], dtype=np.float32).reshape(-1)
            if value.size not in (1, c):
                raise ValueError(f"{func}: augmentation[{i}]['gamma_color'] has {value.size} values for {c} channels")
            color[i] = value
        if "contrast" in params:
            contrast[i] = params["contrast"]
    return gray, color, contrast


# The manual's spelling of the class name.
Lightning = Lighting


def _image_batch(batch, func, shape, pixels=False):
    """batch['image'] of a batch dict, checked to be a 4-D tensor (shape: its description).
    pixels: the stage works on pixel values (policies, colour, lighting, grayscale), so a batch
    that Normalize has marked (``batch['normalized']``) is refused: on normalised floats it would
    run without an error and train on wrong images."""
    _check_batch(batch, func, None)
    image = batch["image"]
    if not isinstance(image, _augpy.Tensor) or image.ndim != 4:
        raise ValueError(f"{func}: batch['image'] must be an {shape} tensor")
    if pixels and batch.get("normalized"):
        raise ValueError(f"{func}: batch['image'] was normalised by Normalize, and {func} works on pixel values: "
                         f"place it before Normalize (imagenet_train(policy=...), timm_train and cifar_train do)")
    return image


class ColorJitter(Sampled):
    """torchvision's ``ColorJitter`` on a uint8, uint16 or float32 (N, 3, H, W) batch, in place,
    with per-image factors and step order drawn from the stage's generator
    (``augpy.color_jitter_params``; the seed model's stream ``'ColorJitter'``: each image's
    factors are a pure function of its augmentation dict's ``rng``, see augpy.image)
    and applied in one pass per image
    (``augpy.color_jitter``; docs/colour.md). Each ``batch['augmentation']`` dict
    gets the image's factors as ``color_jitter``: a dict with ``brightness``,
    ``contrast``, ``saturation``, ``hue`` and ``order`` (one key, so that they never
    mix with another stage's keys such as ``Lighting``'s ``contrast``).

    :param brightness, contrast, saturation: torchvision's ranges (a number v: factor
        in [max(0, 1 - v), 1 + v]; a pair: that range; 0 / None: the step is skipped)
    :param hue: a number h in [0, 0.5] (shift in [-h, h]) or a pair
    :param random_order: a random order of the four steps per image (torchvision's)
    :param seed: the seed of images whose dicts carry no ``rng`` (called outside StageDataset):
        image k the stage sees gets ``rng`` = (seed, 0, k) (None: entropy drawn once; a
        forked child then draws its own)
    :param lighting: also apply each image's ``Lighting`` parameters in the same pass
        (``augpy.color_jitter``'s fused lighting): the ``gamma_gray``, ``gamma_color``
        and ``contrast`` keys of the incoming ``batch['augmentation']`` dicts, with
        ``Lighting``'s defaults; the result is exactly ColorJitter followed
        by ``Lighting(..., min_value, max_value)`` with those values
    :param min_value, max_value: the lighting's value range (as ``Lighting``'s)
    """

    def __init__(self, brightness=0.4, contrast=0.4, saturation=0.4, hue=0.1, random_order=True, seed=None,
                 lighting=False, min_value=0, max_value=255):
        self._params = dict(brightness=brightness, contrast=contrast, saturation=saturation, hue=hue,
                            random_order=random_order, seed=seed, lighting=lighting, min_value=min_value,
                            max_value=max_value)
        self.lighting = bool(lighting)
        if not (float(min_value) < float(max_value)):
            raise ValueError(f"ColorJitter: min_value {min_value!r} must be below max_value {max_value!r}")
        self.min_value = min_value
        self.max_value = max_value
        self.ranges = {"brightness": brightness, "contrast": contrast, "saturation": saturation, "hue": hue}
        self.random_order = bool(random_order)
        self._init_sampling(seed)
        _augpy.color_jitter_params(_augpy.RandomNumberGenerator(seed=0), 0, random_order=self.random_order,
                                   **self.ranges)  # checks the ranges now

    def __reduce__(self):
        return _restore_stage, (type(self), self._params, self._sampling_state())

    def __call__(self, batch):
        """Jitter ``batch['image']`` in place; each augmentation dict gets ``color_jitter``."""
        func = "ColorJitter"
        image = _image_batch(batch, func, "(N, 3, H, W)", pixels=True)
        n = image.shape[0]
        augmentation = [dict(a) for a in _augmentation_list(batch.get("augmentation"), n, func)]
        states = self._rng_states(augmentation)
        params = _augpy.color_jitter_params(states, n, random_order=self.random_order, **self.ranges)
        light = {}
        if self.lighting:
            gray, color, contrast = _lighting_params(augmentation, n, image.shape[1], func)
            light = {"gammagrays": gray, "gammacolors": color, "contrasts": contrast, "vmin": self.min_value,
                     "vmax": self.max_value}
        _augpy.color_jitter(image, out=image, **params, **light)
        batch["augmentation"] = [dict(a, color_jitter={k: (v[i] if v is not None else None)
                                                       for k, v in params.items()})
                                 for i, a in enumerate(augmentation)]
        return batch


class Normalize:
    """``(x - mean) / std`` per channel of a (N, C, H, W) batch into float32 (or
    ``dtype``) batches in ``layout`` "NCHW" or "NHWC", through
    ``augpy.crop_mirror_normalize`` (DALI's arithmetic; docs/normalize.md). The
    results live in a ring of ``num_buffers`` buffers like DecodeWarp's: a returned
    batch stays valid for ``num_buffers - 1`` further calls.

    :param mean, std: per channel (or one value), in the input's units (default:
        torchvision's ImageNet statistics times 255)
    """

    def __init__(self, batch_size, mean=IMAGENET_MEAN, std=IMAGENET_STD, dtype=None, layout="NCHW",
                 num_buffers=2):
        func = "Normalize"
        self._params = dict(batch_size=batch_size, mean=mean, std=std, dtype=dtype, layout=layout,
                            num_buffers=num_buffers)
        self.batch_size = _positive_int("batch_size", batch_size, func)
        self.num_buffers = _positive_int("num_buffers", num_buffers, func)
        self.mean = [float(v) for v in np.ravel(mean)]
        self.std = [float(v) for v in np.ravel(std)]
        self.dtype = _augpy.float32 if dtype is None else dtype
        if layout not in ("NCHW", "NHWC"):
            raise ValueError(f"{func}: layout must be 'NCHW' or 'NHWC', got {layout!r}")
        self.layout = layout
        self._buffers, self._shape, self._next = [], None, 0

    def __reduce__(self):
        """Its parameters; the buffers are made anew."""
        return _restore_stage, (type(self), self._params, {})

    def __call__(self, batch):
        """``batch['image']`` normalized into the next ring buffer; returns ``batch``."""
        func = "Normalize"
        image = _image_batch(batch, func, "(N, C, H, W)")
        n, c, h, w = image.shape
        if n > self.batch_size:
            raise ValueError(f"{func}: {n} images for a batch size of {self.batch_size}")
        shape = (self.batch_size, c, h, w) if self.layout == "NCHW" else (self.batch_size, h, w, c)
        if self._shape != shape:
            self._buffers = [_augpy.Tensor(shape, dtype=self.dtype) for _ in range(self.num_buffers)]
            self._shape = shape
        out = self._buffers[self._next]
        self._next = (self._next + 1) % self.num_buffers
        out = out if n == self.batch_size else out[:n]
        batch["image"] = _augpy.crop_mirror_normalize(image, layout="CHW", out_layout=self.layout,
                                                      mean=self.mean, std=self.std, dtype=self.dtype, out=out)
        batch["normalized"] = True  # pixel-value stages after this one refuse the batch (_image_batch)
        return batch
