"""augpy/_imagenet_stages.py: the ImageNet stages ImageNetTrain and ImageNetEval (DecodeWarp
stages that plan DCT-scaled region decodes, docs/rrc.md) and the two recipes as one stage,
imagenet_train and imagenet_eval (re-exported by augpy.image)."""
import os

import numpy as np

from . import _augpy
from ._colour_stages import IMAGENET_MEAN, IMAGENET_STD, ColorJitter, Normalize
from ._decode_stage import (STAGE_INTERPOLATIONS, DecodeWarp, _apply_transforms, _augmentation_list, _check_batch,
                            _check_interpolations, _check_limit, _check_scales, _decode_plan_warp, _positive_int,
                            _read_info, _record, _size_pair, decode_dtype_of)
from ._sampling import Sampled, check_rng, generator_at, handle_failures

class ImageNetTrain(Sampled, DecodeWarp):
    """ImageNet-style training stage: RandomResizedCrop + horizontal flip, decoded
    with DCT scaling and regions, into uint8 (N, 3, size, size) batches.

    Per image: torchvision's RandomResizedCrop parameters (``augpy.random_resized_crop``),
    drawn as the seed model says (stream ``'ImageNetTrain'``: each image's values are a
    pure function of its augmentation dict's ``rng`` = (seed, epoch, sample), which
    StageDataset fills in; see augpy.image), then a
    region decode of the crop at the smallest libjpeg scale 1/8, 1/4, 1/2 or 1 that keeps at least
    one source pixel per output pixel, then one warp (antialiased with up to
    ``max_supersampling``^2 samples, mirrored when flipped) into a slot of the
    ring buffer. DecodeWarp's buffer ring, decoder threads and streams are reused.

    The result is the uint8 batch (pixels 0..255, layout NCHW; uint16, 0..65535, with
    ``decode_dtype='uint16'``). Colour jitter and
    normalisation are the FOLLOWING stages (hook point: ``transforms``, callables
    batch -> batch applied in order after the decode/warp, e.g. a colour-jitter
    stage then a normalize / crop_mirror_normalize stage); this stage records in
    ``batch['augmentation']`` one dict per image with ``rng``, ``crop`` (y, x, h, w),
    ``hflip`` and ``dct_scale`` (M of the M/8 decode, 8 = none); given back with its
    image, such a dict replays that image's crop and flip.

    :param batch_size: images per batch (at most)
    :param size: output size, int or (height, width)
    :param scale: area fraction range of the crop (torchvision's default (0.08, 1))
    :param ratio: aspect (w / h) range, drawn log-uniformly (default (3/4, 4/3))
    :param hflip: probability of a horizontal mirror
    :param cpu_threads, num_buffers, decode_buffer_size, max_pixels, background,
        dct_scale, on_error: as ``DecodeWarp`` (dct_scale=False decodes every image whole at
        full size and warps with the full-image matrix). Whole-image uint8 decodes (dct_scale off,
        the default on the ``'nvjpeg'`` engine) on nvJPEG's hardware backend go to the JPEG engines
        in ONE batched call per batch, as DecodeWarp's; planned decodes stay per file (docs/cuda.md)
    :param decode_dtype: None / ``'uint8'`` (the default) or ``'uint16'``: the dtype of the
        decode (``Decoder.decode``'s ``dtype=``) and of the batch; with ``'uint16'`` 16-bit
        PNG / TIFF samples keep their 16 bits, 10/12-bit AVIF and 8-bit files are scaled to
        0..65535, and a following
        ``Normalize`` takes mean / std in 16-bit units
    :param seed: the seed of images whose dicts carry no ``rng`` (called outside
        StageDataset): image k the stage sees gets ``rng`` = (seed, 0, k) (None: entropy
        drawn once; a forked child draws its own). Inside StageDataset the dataset's
        seed, epoch and each sample's key decide.
    :param max_supersampling: cap of the warp's antialiasing samples per axis
    :param transforms: callables applied to the batch dict after the decode/warp
    :param interpolation: the warp's: ``'bilinear'`` (the default), ``'bicubic'`` (Keys' a = -0.75,
        OpenCV's INTER_CUBIC, supersampled alike; docs/warp.md "Bicubic"), ``'nearest'``, or
        ``'random'``: each image draws ``'bilinear'`` or ``'bicubic'`` with probability 1/2, as
        timm's ``RandomResizedCropAndInterpolation(interpolation='random')`` does (stream
        ``'ImageNetTrain.interpolation'`` of the seed model). Unless it is ``'bilinear'``, each dict
        records the image's ``'interpolation'``; a dict that carries one replays it
    """

    _random_interpolation = True

    def __init__(self, batch_size, size=224, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), hflip=0.5,
                 cpu_threads=1, num_buffers=2, seed=None, max_supersampling=3, dct_scale=None, background=None,
                 decode_buffer_size=None, max_pixels=None, transforms=(), on_error="raise", decode_dtype=None,
                 interpolation="bilinear"):
        func = type(self).__name__
        self._params = dict(batch_size=batch_size, size=size, scale=scale, ratio=ratio, hflip=hflip,
                            cpu_threads=cpu_threads, num_buffers=num_buffers, seed=seed,
                            max_supersampling=max_supersampling, dct_scale=dct_scale, background=background,
                            decode_buffer_size=decode_buffer_size, max_pixels=max_pixels, transforms=transforms,
                            on_error=on_error, decode_dtype=decode_dtype, interpolation=interpolation)
        h, w = _size_pair(size, func)
        dt = decode_dtype_of(decode_dtype, func)
        super().__init__(batch_size, (3, h, w), background=background, dtype=dt,
                         cpu_threads=cpu_threads, num_buffers=num_buffers, decode_buffer_size=decode_buffer_size,
                         max_pixels=max_pixels, dct_scale=dct_scale, on_error=on_error, decode_dtype=dt,
                         interpolation=interpolation)
        self._init_sampling(seed)
        self.scale, self.ratio, self.hflip = tuple(scale), tuple(ratio), hflip
        self.max_supersampling = max_supersampling
        self.transforms = tuple(transforms)
        # every parameter is checked here (an empty draw uses no generator call)
        probe = _augpy.RandomNumberGenerator(seed=0)
        try:
            _augpy._random_resized_crop(probe, [], [], h, w, self.scale, self.ratio, hflip, max_supersampling,
                                        True, True)
        except (ValueError, TypeError) as e:
            raise type(e)(str(e).replace("random_resized_crop", func)) from None
        self._header = None

    def _pickled_state(self):
        return dict(super()._pickled_state(), **self._sampling_state())

    def _headers(self, images):
        """(data, (height, width), is_jpeg, gray) per image (gray: a one-component JPEG), read on the
        calling thread, and the
        failures {index: exception}."""
        if self._header is None or self._header_pid != os.getpid():
            self._header = (_augpy.Decoder() if self.max_pixels is None
                            else _augpy.Decoder(max_pixels=self.max_pixels))
            self._header_pid = os.getpid()
        out, failures = [], {}
        for i, data in enumerate(images):
            try:
                info, data = _read_info(self._header, data, self)
                jpeg = info["format"] == "jpeg"
                out.append((data, _check_limit(self._header, info), jpeg, jpeg and info.get("components") == 1))
            except Exception as e:  # noqa: BLE001 - handle_failures re-raises all but bad files
                failures[i] = e
                out.append(None)
        return out, failures

    def __call__(self, batch):
        """Decode ``batch['image']`` (JPEG or PNG files) into the next ring buffer;
        returns ``batch`` with ``'image'`` the uint8 (n, 3, H, W) batch and
        ``'augmentation'`` the drawn parameters, after ``transforms``."""
        return _apply_transforms(self.transforms, self._decoded(batch))

    def _decoded(self, batch):
        """__call__ before the transforms (StageDataset runs them once a batch's skipped files
        are replaced)."""
        func = type(self).__name__
        augmentation = _check_batch(batch, func, self.batch_size)
        images = list(batch["image"])
        n = len(images)
        if n > self.batch_size:
            raise ValueError(f"{func}: {n} images for a batch size of {self.batch_size}")
        batch["augmentation"] = [dict(a) for a in _augmentation_list(augmentation, n, func)]
        _check_interpolations(batch["augmentation"], func)
        headers, failures = self._headers(images)
        keep = handle_failures(self, func, batch, images, failures)  # files whose header fails
        headers = [headers[i] for i in keep]
        states = self._rng_states(batch["augmentation"])
        r = _augpy._random_resized_crop(states, [h[1][0] for h in headers], [h[1][1] for h in headers],
                                        self.shape[1], self.shape[2], self.scale, self.ratio, self.hflip,
                                        self.max_supersampling, True, True)
        plan = self._use_plan(self._header)
        if self.interpolation == "random":
            self._draw_interpolations(batch["augmentation"], func)
        for a, item, (_, size, jpeg, _) in zip(batch["augmentation"], r, headers):
            a.update(crop=tuple(item[0]), hflip=bool(item[1]), dct_scale=item[4][0] if jpeg and plan else 8)
            _record(a, item[2], size)
        jobs = [(item, jpeg, self._image_interp(a), gray)
                for a, item, (_, _, jpeg, gray) in zip(batch["augmentation"], r, headers)]
        batch["image"] = self._fill([h[0] for h in headers], jobs, batch, func, keep)
        return self._targets(batch, func)

    def _draw_interpolations(self, augmentation, func):
        """interpolation='random': each image's 'bilinear' (u < 1/2) or 'bicubic' from one
        uniform u of its own stream (the crop's stream name + '.interpolation'), unless its
        dict carries one."""
        stream = (self.stream or type(self).__name__) + ".interpolation"
        seeds = {}
        for i, a in enumerate(augmentation):
            if "interpolation" in a:
                continue
            seed, epoch, sample = check_rng(a["rng"], func, i)
            if (seed, epoch) not in seeds:
                seeds[seed, epoch] = _augpy.stream_seed(seed, epoch, stream)
            u = generator_at((seeds[seed, epoch], sample), 1)[1][0]
            a["interpolation"] = "bilinear" if u < 0.5 else "bicubic"

    def _decode_warp(self, decoder, buffer, data, job, dst):
        (_, _, _, _, plan), is_jpeg, interp, gray = job
        if is_jpeg and self._use_plan(decoder):
            _decode_plan_warp(decoder, buffer, data, plan, dst, self.background, self.decode_dtype,
                              STAGE_INTERPOLATIONS[interp], self._one_channel(gray, dst))
        else:
            self._warp_whole(decoder.decode(data, buffer, dtype=self.decode_dtype), job, dst)

    def _warp_whole(self, img, job, dst):
        """Warp img, the whole decode of the image's file (_decode_warp's without a plan, or the
        batched decode's: DecodeWarp._batch_job), with the crop's full-image matrix."""
        (_, _, matrix, supersampling, _), _, interp, _ = job
        self._warp(img, dst, matrix, supersampling, interp)

    def _warp(self, img, dst, matrix, supersampling, interp):
        _augpy.warp_affine(img, dst, np.array(matrix, dtype=np.float32).reshape(2, 3), self.background,
                           supersampling, interpolation=STAGE_INTERPOLATIONS[interp])


class ImageNetEval(DecodeWarp):
    """ImageNet-style evaluation stage: torchvision's ``Resize(resize)`` (shorter side)
    + ``CenterCrop(size)`` as ONE warp (``augpy.resize_center_crop_matrix``), decoded
    with DCT scaling and a region like ``ImageNetTrain``, into uint8 (N, 3, H, W)
    batches (layout NCHW). Normalisation is the following stage (``transforms``,
    as ``ImageNetTrain``; ``decode_dtype='uint16'`` gives uint16 batches, as there). Other parameters as
    ``DecodeWarp`` / ``ImageNetTrain``; each
    image's dict gets ``matrix``, ``source_size`` and ``dct_scale`` and replays as DecodeWarp's.
    """

    def __init__(self, batch_size, size=224, resize=256, cpu_threads=1, num_buffers=2, max_supersampling=3,
                 dct_scale=None, background=None, decode_buffer_size=None, max_pixels=None, transforms=(),
                 on_error="raise", decode_dtype=None):
        func = type(self).__name__
        self._params = dict(batch_size=batch_size, size=size, resize=resize, cpu_threads=cpu_threads,
                            num_buffers=num_buffers, max_supersampling=max_supersampling, dct_scale=dct_scale,
                            background=background, decode_buffer_size=decode_buffer_size, max_pixels=max_pixels,
                            transforms=transforms, on_error=on_error, decode_dtype=decode_dtype)
        h, w = _size_pair(size, func)
        dt = decode_dtype_of(decode_dtype, func)
        super().__init__(batch_size, (3, h, w), background=background, dtype=dt,
                         cpu_threads=cpu_threads, num_buffers=num_buffers, decode_buffer_size=decode_buffer_size,
                         max_pixels=max_pixels, dct_scale=dct_scale, on_error=on_error, decode_dtype=dt)
        self.resize = _positive_int("resize", resize, func)
        try:
            _augpy._resize_center_crop_matrix(1, 1, self.resize, h, w, max_supersampling)
        except (ValueError, TypeError) as e:
            raise type(e)(str(e).replace("resize_center_crop_matrix", func)) from None
        self.max_supersampling = max_supersampling
        self.transforms = tuple(transforms)

    def __call__(self, batch):
        """Decode ``batch['image']`` (JPEG or PNG files) into the next ring buffer;
        returns ``batch`` with ``'image'`` the uint8 (n, 3, H, W) batch, after ``transforms``."""
        return _apply_transforms(self.transforms, self._decoded(batch))

    def _decoded(self, batch):
        """__call__ before the transforms (as ImageNetTrain's)."""
        func = type(self).__name__
        augmentation = _check_batch(batch, func, self.batch_size)
        images = list(batch["image"])
        if len(images) > self.batch_size:
            raise ValueError(f"{func}: {len(images)} images for a batch size of {self.batch_size}")
        batch["augmentation"] = [dict(a) for a in _augmentation_list(augmentation, len(images), func)]
        _check_scales(batch["augmentation"], func)
        batch["image"] = self._fill(images, batch["augmentation"], batch, func)
        return self._targets(batch, func)

    def _decode_warp(self, decoder, buffer, data, params, dst):
        info, data = _read_info(decoder, data, self)
        size = _check_limit(decoder, info)
        if info["format"] == "jpeg" and self._use_plan(decoder):
            matrix, s = self._matrix(size)
            _record(params, matrix, size,
                    self._warp_planned(decoder, buffer, data, size, matrix, s, dst, params.get("dct_scale", True),
                                       info))
        else:
            self._warp_whole(decoder.decode(data, buffer, dtype=self.decode_dtype), params, dst)

    def _warp_whole(self, img, params, dst):
        """Warp img, the whole decode of the image's file (_decode_warp's without a plan, or the
        batched decode's: DecodeWarp._batch_job), recording the warp in params."""
        size = img.shape[:2]
        matrix, s = self._matrix(size)
        _augpy.warp_affine(img, dst, matrix, self.background, s)
        _record(params, matrix, size, 8)

    def _matrix(self, size):
        """The resize + centre crop of an image of size (h, w): the (2, 3) matrix and supersampling."""
        m, s = _augpy._resize_center_crop_matrix(size[0], size[1], self.resize, self.shape[1], self.shape[2],
                                                 self.max_supersampling)
        return np.array(m, dtype=np.float32).reshape(2, 3), s


def imagenet_train(batch_size, size=224, jitter=(0.4, 0.4, 0.4, 0.1), mean=IMAGENET_MEAN, std=IMAGENET_STD,
                   dtype=None, layout="NCHW", seed=None, policy=None, after=None, **kwargs):
    """The ImageNet training recipe as one stage: ``ImageNetTrain`` (region decode, random
    resized crop, flip) -> ``ColorJitter(*jitter)`` (None: no jitter) -> ``policy`` ->
    ``Normalize`` -> ``after``. Returns the ImageNetTrain stage with the others as its
    ``transforms``; kwargs go to ImageNetTrain (cpu_threads, num_buffers, scale, ratio, hflip,
    dct_scale, on_error, ...). ``policy``: a stage or a list of stages on the uint8 pixels
    (RandAugment, AutoAugment, RandomGrayscale, ...: they refuse a normalised batch, so this is
    their place); ``after``: stages on the normalised float batch (RandomErasing, Mixup, ...).
    The crops and the jitter draw from each image's ``rng`` (seed model, augpy.image) on
    their own streams; ``seed`` is ImageNetTrain's (images that come without ``rng``)."""
    transforms = []
    if jitter is not None:
        b, c, s, h = jitter
        transforms.append(ColorJitter(b, c, s, h, seed=seed))
    transforms += _stage_list(policy, "imagenet_train", "policy")
    transforms.append(Normalize(batch_size, mean, std, dtype, layout, kwargs.get("num_buffers", 2)))
    transforms += _stage_list(after, "imagenet_train", "after")
    return ImageNetTrain(batch_size, size, seed=seed, transforms=transforms, **kwargs)


def _stage_list(stages, func, name):
    """None, a stage or a sequence of stages (callables) as a list."""
    if stages is None:
        return []
    out = list(stages) if isinstance(stages, (list, tuple)) else [stages]
    for st in out:
        if not callable(st):
            raise ValueError(f"{func}: {name} must be a stage (a callable taking a batch dict) or a list of "
                             f"stages, got {st!r}")
    return out


def imagenet_eval(batch_size, size=224, resize=256, mean=IMAGENET_MEAN, std=IMAGENET_STD, dtype=None,
                  layout="NCHW", **kwargs):
    """The ImageNet evaluation recipe as one stage: ``ImageNetEval`` (resize the shorter
    side, centre crop) -> ``Normalize``; kwargs go to ImageNetEval."""
    norm = Normalize(batch_size, mean, std, dtype, layout, kwargs.get("num_buffers", 2))
    return ImageNetEval(batch_size, size, resize, transforms=[norm], **kwargs)
