"""augpy.image: batch stages of an augmentation pipeline (augpy manual 3.1.5).

``DecodeWarp`` decodes a list of JPEGs (``cpu_threads`` decoders in parallel;
the decoder and the warp release the GIL) and warps each image into one slot of
an (N, C, H, W) batch tensor taken from a small ring of ``num_buffers`` buffers.
On a CUDA device each decoder thread queues its uploads / nvJPEG work and warps
on a stream of its own and the call returns without waiting for them: the
caller's current stream is made to wait (events), so the next batch decodes
while the GPU still warps this one, and a ring buffer is rewritten only after
the work the caller queued before asking for it (which may still read it) has
finished.
``ImageNetTrain`` (RandomResizedCrop + flip) and ``ImageNetEval`` (resize +
centre crop) are DecodeWarp stages for ImageNet-style training and evaluation:
they plan DCT-scaled region decodes (docs/rrc.md) and reuse DecodeWarp's ring
and threads (``_fill``), overriding only the per-image ``_decode_warp``.
``Lighting`` applies ``augpy.lighting`` to such a batch in place. Both take a
batch dict ``{'image': ..., 'augmentation': [dict, ...]}``; each augmentation
dict holds keyword arguments of ``make_transform`` (DecodeWarp) or the keys
``gamma_gray``, ``gamma_color``, ``contrast`` (Lighting). Missing keys take the
documented defaults; an explicit value, 0 included, is always used.
"""
import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait

import numpy as np

from . import _augpy
from .targets import transform_batch_targets

__all__ = ["ColorJitter", "DecodeWarp", "ImageNetEval", "ImageNetTrain", "Lighting", "Lightning", "Normalize",
           "imagenet_eval", "imagenet_train"]

# torchvision's ImageNet statistics, in pixel units (0..255)
IMAGENET_MEAN = (0.485 * 255, 0.456 * 255, 0.406 * 255)
IMAGENET_STD = (0.229 * 255, 0.224 * 255, 0.225 * 255)

# Keyword arguments of make_transform that an augmentation dict may carry.
WARP_KEYS = ("angle", "scale", "aspect", "shift", "shear", "hmirror", "vmirror", "scale_mode",
             "max_supersampling")


def _read_info(decoder, data):
    """(decoder.info(data), data), a path read once into bytes."""
    if isinstance(data, (str, os.PathLike)):
        with open(data, "rb") as f:
            data = f.read()
    return decoder.info(data), data


def _check_limit(decoder, header):
    """The header's (height, width); the decoder's max_pixels bounds the whole
    image as for a full decode (a region decode alone bounds only its output)."""
    h, w = header["height"], header["width"]
    if h * w > decoder.max_pixels:
        raise _augpy.NvJpegError(
            f"Decoder.decode: image of {h} x {w} = {h * w} pixels is larger than the decoder's limit of "
            f"{decoder.max_pixels} pixels (raise it with aug_decoder_set_limit / Decoder(max_pixels=...), at most 2^31)")
    return h, w


def _positive_int(name, value, func):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{func}: {name} must be a positive int, got {value!r}")
    return int(value)


def _check_batch(batch, func, batch_size):
    if not isinstance(batch, dict) or "image" not in batch:
        raise TypeError(f"{func}: batch must be a dict with an 'image' key, got {type(batch).__name__}")
    augmentation = batch.get("augmentation")
    return augmentation


def _augmentation_list(augmentation, n, func):
    if augmentation is None:
        return [{}] * n
    augmentation = list(augmentation)
    if len(augmentation) != n:
        raise ValueError(f"{func}: {len(augmentation)} augmentation dicts for {n} images")
    for i, params in enumerate(augmentation):
        if not isinstance(params, dict):
            raise TypeError(f"{func}: augmentation[{i}] must be a dict, got {type(params).__name__}")
    return augmentation


class DecodeWarp:
    """Decode JPEGs and warp them into batch tensors (N, C, H, W).

    :param batch_size: number of samples in a batch
    :param shape: shape (C, H, W) of one image in the batch
    :param background: C background values (tensor or sequence); None: zeros
    :param dtype: dtype of the batch buffers
    :param cpu_threads: number of parallel decoders
    :param num_buffers: number of batch buffers used in turn; a returned batch
        stays valid until ``num_buffers - 1`` further calls
    :param decode_buffer_size: elements of a pre-allocated decode buffer per
        decoder (must hold H*W*3 of the largest image); None: a new buffer per image
    :param max_pixels: the largest image (height * width) decoded, passed to each
        ``Decoder``; None: the Decoder's default (2**28)
    :param dct_scale: decode each JPEG at the smallest libjpeg DCT scale M/8 (1/8, 1/4, 1/2, 1) that
        still gives the warp at least one source pixel per output pixel, and only
        the region the warp reads (``augpy.plan_decode``); the matrix and the
        supersampling are adjusted to that decode. None (the default): on, except
        for decoders whose engine is ``'nvjpeg'`` (a scaled decode runs on the CPU);
        False: always decode the whole image at full size (PNG files always are)

    An instance may be used in a forked child (a DataLoader worker): the child
    gets its own decoder threads and decoders on first use.

    Targets (docs/targets.md): each ``batch['augmentation'][i]`` gets ``matrix``
    (6 floats, the warp of the FULL decoded image, output pixel -> source pixel)
    and ``source_size`` (h, w); optional batch keys ``boxes`` (+ ``labels``),
    ``keypoints`` (+ ``keypoint_labels``) and ``masks`` are moved with those
    matrices (``augpy.targets.transform_batch_targets``; settings: the attributes
    ``box_format``, ``box_params``, ``ignore_index``).
    """

    box_format = "xyxy"
    box_params = None
    ignore_index = 255

    def __init__(self, batch_size, shape, background=None, dtype=None, cpu_threads=1, num_buffers=2,
                 decode_buffer_size=None, max_pixels=None, dct_scale=None):
        func = type(self).__name__
        self.batch_size = _positive_int("batch_size", batch_size, func)
        shape = tuple(shape)
        if len(shape) != 3:
            raise ValueError(f"{func}: shape must be (C, H, W), got {shape!r}")
        self.shape = tuple(_positive_int("shape", s, func) for s in shape)
        self.dtype = _augpy.uint8 if dtype is None else dtype
        self.cpu_threads = _positive_int("cpu_threads", cpu_threads, func)
        self.num_buffers = _positive_int("num_buffers", num_buffers, func)
        channels = self.shape[0]
        if background is None:
            background = np.zeros(channels, dtype=np.float64)
        if not isinstance(background, _augpy.CudaTensor):
            background = _augpy.array_to_tensor(np.ascontiguousarray(background, dtype=np.float64).reshape(-1))
        if background.size != channels:
            raise ValueError(f"{func}: background has {background.size} values, expected {channels} (one per channel)")
        self.background = background
        if decode_buffer_size is not None:
            decode_buffer_size = _positive_int("decode_buffer_size", decode_buffer_size, func)
        self.decode_buffer_size = decode_buffer_size
        if max_pixels is not None:
            max_pixels = _positive_int("max_pixels", max_pixels, func)
        self.max_pixels = max_pixels
        if dct_scale is not None and not isinstance(dct_scale, (bool, np.bool_)):
            raise TypeError(f"{func}: dct_scale must be None, True or False, got {dct_scale!r}")
        self.dct_scale = None if dct_scale is None else bool(dct_scale)
        self.buffers = [_augpy.CudaTensor((self.batch_size,) + self.shape, dtype=self.dtype)
                        for _ in range(self.num_buffers)]
        for b in self.buffers:
            b.layout = "NCHW"
        self._next = 0
        self._done = [[] for _ in range(self.num_buffers)]  # per buffer: events of its last fill
        self._start_threads()

    def _start_threads(self):
        # A forked child inherits the pool object but none of its threads (it
        # would wait forever for them), and the parent's per-thread decoders:
        # __call__ starts both afresh when the process id has changed.
        self._pid = os.getpid()
        self._local = threading.local()
        self._pool = ThreadPoolExecutor(self.cpu_threads) if self.cpu_threads > 1 else None

    def _decoder(self):
        local = self._local
        if not hasattr(local, "decoder"):
            if self._pool is not None:  # a worker thread: a stream of its own
                local.stream = _augpy.CudaStream()
                local.stream.activate()
            local.decoder = (_augpy.Decoder() if self.max_pixels is None
                             else _augpy.Decoder(max_pixels=self.max_pixels))
            local.buffer = (None if self.decode_buffer_size is None
                            else _augpy.CudaTensor((self.decode_buffer_size,), dtype=_augpy.uint8))
        return local.decoder, local.buffer

    def _use_plan(self, decoder):
        """Whether this decoder plans scaled / region decodes (dct_scale)."""
        if self.dct_scale is None:
            return decoder.engine != "nvjpeg"
        return self.dct_scale

    def _warp_planned(self, decoder, buffer, data, size, matrix, supersampling, dst):
        """Decode data (a JPEG of the given (height, width)) as plan_decode says for
        the full-image warp (matrix, supersampling) and warp it into dst."""
        scale_m, roi, m, s = _augpy._plan_decode(matrix.reshape(-1).tolist(), size[0], size[1], self.shape[1],
                                                 self.shape[2], supersampling, True, True)
        img = decoder.decode(data, buffer, roi=roi, scale=(scale_m, 8), contiguous=False)
        _augpy.warp_affine(img, dst, np.array(m, dtype=np.float32).reshape(2, 3), self.background, s)

    def _thread_cap(self):
        """On a decoder thread (cpu_threads > 1): its share of the CPU workers for its own
        calls (the warp), so that the threads, already parallel over the images, do not
        each wake the whole pool onto the cores the others decode on."""
        if self._pool is not None:
            _augpy.set_thread_num_threads(max(1, _augpy.get_num_threads() // self.cpu_threads))

    def _decode_warp(self, data, params, dst, handoff):
        self._thread_cap()
        decoder, buffer = self._decoder()
        stream = _augpy.get_current_stream()
        stream.wait_event(handoff)  # earlier readers of this ring buffer come first
        kwargs = {k: params[k] for k in WARP_KEYS if k in params}
        info = _read_info(decoder, data) if self._use_plan(decoder) else None
        if info is not None and info[0]["format"] == "jpeg":
            header, data = info
            size = _check_limit(decoder, header)
            matrix, supersampling = _augpy.make_transform(size, self.shape[1:], **kwargs)
            self._warp_planned(decoder, buffer, data, size, matrix, supersampling, dst)
            _record(params, matrix, size)
        else:
            data = info[1] if info is not None else data
            img = decoder.decode(data, buffer)
            matrix, supersampling = _augpy.make_transform(img.shape[:2], self.shape[1:], **kwargs)
            _augpy.warp_affine(img, dst, matrix, self.background, supersampling)
            _record(params, matrix, img.shape[:2])
        done = _augpy.CudaEvent()
        done.record(stream)
        return done

    def __call__(self, batch):
        """Decode ``batch['image']`` (a list of JPEG or PNG files: bytes-like,
        paths or DLPack tensors) and warp each image with its
        ``batch['augmentation']`` dict into the next batch buffer.
        Returns ``batch`` with ``'image'`` replaced by the (n, C, H, W) batch."""
        func = type(self).__name__
        augmentation = _check_batch(batch, func, self.batch_size)
        images = list(batch["image"])
        n = len(images)
        if n > self.batch_size:
            raise ValueError(f"{func}: {n} images for a batch size of {self.batch_size}")
        # copies: the caller's dicts stay as given (the copies get matrix and source_size)
        augmentation = [dict(a) for a in _augmentation_list(augmentation, n, func)]
        batch["image"] = self._fill(images, augmentation)
        batch["augmentation"] = augmentation
        return self._targets(batch, func)

    def _targets(self, batch, func):
        """Move the batch's optional boxes / keypoints / masks (no work without them)."""
        aug = batch["augmentation"]
        return transform_batch_targets(batch, [a["matrix"] for a in aug], [a["source_size"] for a in aug],
                                       self.shape[1:], self.box_format, self.box_params, self.ignore_index, func)

    def _fill(self, images, params):
        """The ring-buffer machinery shared by the stages: run
        ``self._decode_warp(images[i], params[i], slot i, handoff)`` for every
        image (on the decoder threads) into the next ring buffer and return the
        (n, C, H, W) batch, finalized for the caller's stream."""
        n = len(images)
        if self._pid != os.getpid():
            self._start_threads()
        index = self._next
        buffer = self.buffers[index]
        self._next = (self._next + 1) % self.num_buffers
        handoff = _augpy.CudaEvent()
        handoff.record()  # all the caller has queued so far, readers of this buffer included
        jobs = [(images[i], params[i], buffer[i], handoff) for i in range(n)]
        if self._pool is None:
            self._done[index] = [self._decode_warp(*job) for job in jobs]
        else:
            # Largest files first, so that the batch does not end on one thread decoding a
            # big image while the others idle; then the first failure (in image order)
            # is raised once every job has ended.
            futures = [None] * n
            for i in sorted(range(n), key=lambda i: -_size_hint(images[i])):
                futures[i] = self._pool.submit(self._decode_warp, *jobs[i])
            wait(futures)
            self._done[index] = [f.result() for f in futures]
        return self.finalize_batch(buffer if n == self.batch_size else buffer[:n])

    def finalize_batch(self, buffer):
        """Make a batch buffer (or a view of one) ready for use on the caller's
        current stream and return it: that stream waits for the decodes and
        warps queued for it (on the CPU they have ended when the calls return).
        Nothing blocks the host; numpy() or DLPack with the consumer's stream
        see the final values."""
        stream = _augpy.get_current_stream()
        for index, b in enumerate(self.buffers):
            if b.ptr <= buffer.ptr < b.ptr + max(b.nbytes, 1):
                for done in self._done[index]:
                    stream.wait_event(done)
        buffer.layout = "NCHW"
        return buffer

    def close(self):
        """Stop the decoder threads (also done when the object is collected)."""
        if self._pool is not None:
            if self._pid == os.getpid():  # a forked child has none of these threads
                self._pool.shutdown(wait=True)
            self._pool = None

    def __del__(self):
        pool = getattr(self, "_pool", None)
        if pool is not None and getattr(self, "_pid", None) == os.getpid():
            pool.shutdown(wait=False)


def _size_hint(image):
    """The encoded size of a bytes-like image (0 for paths and other objects): the
    decoders' work order."""
    try:
        with memoryview(image) as view:
            return view.nbytes
    except Exception:  # not bytes-like: the decode reports what is wrong with it
        return 0


def _record(params, matrix, size):
    """Record the full-image warp of one image in its augmentation dict."""
    params["matrix"] = tuple(float(v) for v in np.asarray(matrix, dtype=np.float64).reshape(6))
    params["source_size"] = (int(size[0]), int(size[1]))


def _size_pair(size, func):
    if isinstance(size, (int, np.integer)) and not isinstance(size, bool):
        size = (size, size)
    size = tuple(size)
    if len(size) != 2:
        raise ValueError(f"{func}: size must be an int or (height, width), got {size!r}")
    return tuple(_positive_int("size", v, func) for v in size)


def _apply_transforms(transforms, batch):
    for t in transforms:
        batch = t(batch)
    return batch


class ImageNetTrain(DecodeWarp):
    """ImageNet-style training stage: RandomResizedCrop + horizontal flip, decoded
    with DCT scaling and regions, into uint8 (N, 3, size, size) batches.

    Per image: torchvision's RandomResizedCrop parameters (``augpy.random_resized_crop``,
    drawn from this stage's ``RandomNumberGenerator``: one generator call per batch,
    so ``seed`` makes the batches reproducible for any ``cpu_threads``), then a
    region decode of the crop at the smallest libjpeg scale 1/8, 1/4, 1/2 or 1 that keeps at least
    one source pixel per output pixel, then one warp (antialiased with up to
    ``max_supersampling``^2 samples, mirrored when flipped) into a slot of the
    ring buffer. DecodeWarp's buffer ring, decoder threads and streams are reused.

    The result is the uint8 batch (pixels 0..255, layout NCHW). Colour jitter and
    normalisation are the FOLLOWING stages (hook point: ``transforms``, callables
    batch -> batch applied in order after the decode/warp, e.g. a colour-jitter
    stage then a normalize / crop_mirror_normalize stage); this stage records in
    ``batch['augmentation']`` one dict per image with ``crop`` (y, x, h, w),
    ``hflip`` and ``dct_scale`` (M of the M/8 decode, 8 = none).

    :param batch_size: images per batch (at most)
    :param size: output size, int or (height, width)
    :param scale: area fraction range of the crop (torchvision's default (0.08, 1))
    :param ratio: aspect (w / h) range, drawn log-uniformly (default (3/4, 4/3))
    :param hflip: probability of a horizontal mirror
    :param cpu_threads, num_buffers, decode_buffer_size, max_pixels, background,
        dct_scale: as ``DecodeWarp`` (dct_scale=False decodes every image whole at
        full size and warps with the full-image matrix)
    :param seed: seed of the stage's generator ``self.rng`` (None: from the OS; a
        forked child then draws its own, so DataLoader workers differ; with a seed,
        give each worker its own generator, e.g. in ``worker_init_fn``:
        ``stage.rng = augpy.RandomNumberGenerator(seed=seed + worker_id)``)
    :param max_supersampling: cap of the warp's antialiasing samples per axis
    :param transforms: callables applied to the batch dict after the decode/warp
    """

    def __init__(self, batch_size, size=224, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), hflip=0.5,
                 cpu_threads=1, num_buffers=2, seed=None, max_supersampling=3, dct_scale=None, background=None,
                 decode_buffer_size=None, max_pixels=None, transforms=()):
        func = type(self).__name__
        h, w = _size_pair(size, func)
        super().__init__(batch_size, (3, h, w), background=background, dtype=_augpy.uint8,
                         cpu_threads=cpu_threads, num_buffers=num_buffers, decode_buffer_size=decode_buffer_size,
                         max_pixels=max_pixels, dct_scale=dct_scale)
        self.seed = seed
        self.rng = _augpy.RandomNumberGenerator(seed=seed)
        self._rng_pid = os.getpid()
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

    def _headers(self, images):
        """(data, (height, width), is_jpeg) per image, read on the calling thread."""
        if self._header is None or self._header_pid != os.getpid():
            self._header = (_augpy.Decoder() if self.max_pixels is None
                            else _augpy.Decoder(max_pixels=self.max_pixels))
            self._header_pid = os.getpid()
        out = []
        for data in images:
            info, data = _read_info(self._header, data)
            out.append((data, _check_limit(self._header, info), info["format"] == "jpeg"))
        return out

    def __call__(self, batch):
        """Decode ``batch['image']`` (JPEG or PNG files) into the next ring buffer;
        returns ``batch`` with ``'image'`` the uint8 (n, 3, H, W) batch and
        ``'augmentation'`` the drawn parameters, after ``transforms``."""
        func = type(self).__name__
        _check_batch(batch, func, self.batch_size)
        images = list(batch["image"])
        n = len(images)
        if n > self.batch_size:
            raise ValueError(f"{func}: {n} images for a batch size of {self.batch_size}")
        headers = self._headers(images)
        if self._rng_pid != os.getpid():
            # a forked child (a DataLoader worker): without a seed, draw its own entropy, so
            # that workers do not repeat each other's crops; a given seed stays reproducible
            # (give each worker its own: stage.rng = augpy.RandomNumberGenerator(seed=...))
            if self.seed is None:
                self.rng = _augpy.RandomNumberGenerator()
            self._rng_pid = os.getpid()
        r = _augpy._random_resized_crop(self.rng, [hw[0] for _, hw, _ in headers], [hw[1] for _, hw, _ in headers],
                                        self.shape[1], self.shape[2], self.scale, self.ratio, self.hflip,
                                        self.max_supersampling, True, True)
        jobs = [(item, headers[i][2]) for i, item in enumerate(r)]
        batch["image"] = self._fill([data for data, _, _ in headers], jobs)
        batch["augmentation"] = [{"crop": tuple(item[0]), "hflip": bool(item[1]),
                                  "dct_scale": item[4][0] if jpeg and self._use_plan(self._header) else 8}
                                 for item, jpeg in jobs]
        for a, (item, _), (_, size, _) in zip(batch["augmentation"], jobs, headers):
            _record(a, item[2], size)
        return _apply_transforms(self.transforms, self._targets(batch, func))

    def _decode_warp(self, data, job, dst, handoff):
        self._thread_cap()
        decoder, buffer = self._decoder()
        stream = _augpy.get_current_stream()
        stream.wait_event(handoff)
        (crop, flip, matrix, supersampling, plan), is_jpeg = job
        if is_jpeg and self._use_plan(decoder):
            scale_m, roi, m, s = plan
            img = decoder.decode(data, buffer, roi=roi, scale=(scale_m, 8), contiguous=False)
        else:
            img, m, s = decoder.decode(data, buffer), matrix, supersampling
        _augpy.warp_affine(img, dst, np.array(m, dtype=np.float32).reshape(2, 3), self.background, s)
        done = _augpy.CudaEvent()
        done.record(stream)
        return done


class ImageNetEval(DecodeWarp):
    """ImageNet-style evaluation stage: torchvision's ``Resize(resize)`` (shorter side)
    + ``CenterCrop(size)`` as ONE warp (``augpy.resize_center_crop_matrix``), decoded
    with DCT scaling and a region like ``ImageNetTrain``, into uint8 (N, 3, H, W)
    batches (layout NCHW). Normalisation is the following stage (``transforms``,
    as ``ImageNetTrain``). Other parameters as ``DecodeWarp`` / ``ImageNetTrain``.
    """

    def __init__(self, batch_size, size=224, resize=256, cpu_threads=1, num_buffers=2, max_supersampling=3,
                 dct_scale=None, background=None, decode_buffer_size=None, max_pixels=None, transforms=()):
        func = type(self).__name__
        h, w = _size_pair(size, func)
        super().__init__(batch_size, (3, h, w), background=background, dtype=_augpy.uint8,
                         cpu_threads=cpu_threads, num_buffers=num_buffers, decode_buffer_size=decode_buffer_size,
                         max_pixels=max_pixels, dct_scale=dct_scale)
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
        func = type(self).__name__
        _check_batch(batch, func, self.batch_size)
        images = list(batch["image"])
        if len(images) > self.batch_size:
            raise ValueError(f"{func}: {len(images)} images for a batch size of {self.batch_size}")
        augmentation = [{} for _ in images]
        batch["image"] = self._fill(images, augmentation)
        batch["augmentation"] = augmentation
        return _apply_transforms(self.transforms, self._targets(batch, func))

    def _thread_cap(self):
        """On a decoder thread (cpu_threads > 1): its share of the CPU workers for its own
        calls (the warp), so that the threads, already parallel over the images, do not
        each wake the whole pool onto the cores the others decode on."""
        if self._pool is not None:
            _augpy.set_thread_num_threads(max(1, _augpy.get_num_threads() // self.cpu_threads))

    def _decode_warp(self, data, params, dst, handoff):
        self._thread_cap()
        decoder, buffer = self._decoder()
        stream = _augpy.get_current_stream()
        stream.wait_event(handoff)
        info, data = _read_info(decoder, data)
        size = _check_limit(decoder, info)
        m, s = _augpy._resize_center_crop_matrix(size[0], size[1], self.resize, self.shape[1], self.shape[2],
                                                 self.max_supersampling)
        matrix = np.array(m, dtype=np.float32).reshape(2, 3)
        _record(params, matrix, size)
        if info["format"] == "jpeg" and self._use_plan(decoder):
            self._warp_planned(decoder, buffer, data, size, matrix, s, dst)
        else:
            _augpy.warp_affine(decoder.decode(data, buffer), dst, matrix, self.background, s)
        done = _augpy.CudaEvent()
        done.record(stream)
        return done


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
        image = batch["image"]
        if not isinstance(image, _augpy.CudaTensor) or image.ndim != 4:
            raise ValueError(f"{func}: batch['image'] must be an (N, C, H, W) tensor")
        n, c = image.shape[0], image.shape[1]
        if n > self.batch_size:
            raise ValueError(f"{func}: {n} images for a batch size of {self.batch_size}")
        if c != self.channels:
            raise ValueError(f"{func}: images have {c} channels, expected {self.channels}")
        augmentation = _augmentation_list(augmentation, n, func)
        gray, color, contrast = _lighting_params(augmentation, n, c, func)
        _augpy.lighting(image, _augpy.array_to_tensor(gray), _augpy.array_to_tensor(color.reshape(-1)),
                        _augpy.array_to_tensor(contrast), self.min_value, self.max_value, out=image)
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


class ColorJitter:
    """torchvision's ``ColorJitter`` on a uint8 or float32 (N, 3, H, W) batch, in place,
    with per-image factors and step order drawn from the stage's generator
    (``augpy.color_jitter_params``) and applied in one pass per image
    (``augpy.color_jitter``; docs/colour.md). Each ``batch['augmentation']`` dict
    gets the image's factors as ``color_jitter``: a dict with ``brightness``,
    ``contrast``, ``saturation``, ``hue`` and ``order`` (one key, so that they never
    mix with another stage's keys such as ``Lighting``'s ``contrast``).

    :param brightness, contrast, saturation: torchvision's ranges (a number v: factor
        in [max(0, 1 - v), 1 + v]; a pair: that range; 0 / None: the step is skipped)
    :param hue: a number h in [0, 0.5] (shift in [-h, h]) or a pair
    :param random_order: a random order of the four steps per image (torchvision's)
    :param seed: the generator's seed (None: from the OS; a forked child then draws its own)
    :param lighting: also apply each image's ``Lighting`` parameters in the same pass
        (``augpy.color_jitter``'s fused lighting): the ``gamma_gray``, ``gamma_color``
        and ``contrast`` keys of the incoming ``batch['augmentation']`` dicts, with
        ``Lighting``'s defaults; the result is exactly ColorJitter followed
        by ``Lighting(..., min_value, max_value)`` with those values
    :param min_value, max_value: the lighting's value range (as ``Lighting``'s)
    """

    def __init__(self, brightness=0.4, contrast=0.4, saturation=0.4, hue=0.1, random_order=True, seed=None,
                 lighting=False, min_value=0, max_value=255):
        self.lighting = bool(lighting)
        if not (float(min_value) < float(max_value)):
            raise ValueError(f"ColorJitter: min_value {min_value!r} must be below max_value {max_value!r}")
        self.min_value = min_value
        self.max_value = max_value
        self.ranges = {"brightness": brightness, "contrast": contrast, "saturation": saturation, "hue": hue}
        self.random_order = bool(random_order)
        self.seed = seed
        self.rng = _augpy.RandomNumberGenerator(seed=seed)
        self._pid = os.getpid()
        _augpy.color_jitter_params(_augpy.RandomNumberGenerator(seed=0), 0, random_order=self.random_order,
                                   **self.ranges)  # checks the ranges now

    def __call__(self, batch):
        func = "ColorJitter"
        _check_batch(batch, func, None)
        image = batch["image"]
        if not isinstance(image, _augpy.CudaTensor) or image.ndim != 4:
            raise ValueError(f"{func}: batch['image'] must be an (N, 3, H, W) tensor")
        n = image.shape[0]
        augmentation = _augmentation_list(batch.get("augmentation"), n, func)
        if self._pid != os.getpid():  # a forked DataLoader worker: its own stream unless seeded
            if self.seed is None:
                self.rng = _augpy.RandomNumberGenerator()
            self._pid = os.getpid()
        params = _augpy.color_jitter_params(self.rng, n, random_order=self.random_order, **self.ranges)
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
        self.batch_size = _positive_int("batch_size", batch_size, func)
        self.num_buffers = _positive_int("num_buffers", num_buffers, func)
        self.mean = [float(v) for v in np.ravel(mean)]
        self.std = [float(v) for v in np.ravel(std)]
        self.dtype = _augpy.float32 if dtype is None else dtype
        if layout not in ("NCHW", "NHWC"):
            raise ValueError(f"{func}: layout must be 'NCHW' or 'NHWC', got {layout!r}")
        self.layout = layout
        self._buffers, self._shape, self._next = [], None, 0

    def __call__(self, batch):
        func = "Normalize"
        _check_batch(batch, func, None)
        image = batch["image"]
        if not isinstance(image, _augpy.CudaTensor) or image.ndim != 4:
            raise ValueError(f"{func}: batch['image'] must be an (N, C, H, W) tensor")
        n, c, h, w = image.shape
        if n > self.batch_size:
            raise ValueError(f"{func}: {n} images for a batch size of {self.batch_size}")
        shape = (self.batch_size, c, h, w) if self.layout == "NCHW" else (self.batch_size, h, w, c)
        if self._shape != shape:
            self._buffers = [_augpy.CudaTensor(shape, dtype=self.dtype) for _ in range(self.num_buffers)]
            self._shape = shape
        out = self._buffers[self._next]
        self._next = (self._next + 1) % self.num_buffers
        out = out if n == self.batch_size else out[:n]
        batch["image"] = _augpy.crop_mirror_normalize(image, input_layout="CHW", output_layout=self.layout,
                                                      mean=self.mean, std=self.std, dtype=self.dtype, out=out)
        return batch


def imagenet_train(batch_size, size=224, jitter=(0.4, 0.4, 0.4, 0.1), mean=IMAGENET_MEAN, std=IMAGENET_STD,
                   dtype=None, layout="NCHW", seed=None, **kwargs):
    """The ImageNet training recipe as one stage: ``ImageNetTrain`` (region decode, random
    resized crop, flip) -> ``ColorJitter(*jitter)`` (None: no jitter) -> ``Normalize``.
    Returns the ImageNetTrain stage with the other two as its ``transforms``; kwargs go to
    ImageNetTrain (cpu_threads, num_buffers, scale, ratio, hflip, dct_scale, ...). With a
    seed the jitter draws from seed + 1 (the crops from seed)."""
    transforms = []
    if jitter is not None:
        b, c, s, h = jitter
        transforms.append(ColorJitter(b, c, s, h, seed=None if seed is None else seed + 1))
    transforms.append(Normalize(batch_size, mean, std, dtype, layout, kwargs.get("num_buffers", 2)))
    return ImageNetTrain(batch_size, size, seed=seed, transforms=transforms, **kwargs)


def imagenet_eval(batch_size, size=224, resize=256, mean=IMAGENET_MEAN, std=IMAGENET_STD, dtype=None,
                  layout="NCHW", **kwargs):
    """The ImageNet evaluation recipe as one stage: ``ImageNetEval`` (resize the shorter
    side, centre crop) -> ``Normalize``; kwargs go to ImageNetEval."""
    norm = Normalize(batch_size, mean, std, dtype, layout, kwargs.get("num_buffers", 2))
    return ImageNetEval(batch_size, size, resize, transforms=[norm], **kwargs)
