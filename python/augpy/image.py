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
``Lighting`` applies ``augpy.lighting`` to such a batch in place. Both take a
batch dict ``{'image': ..., 'augmentation': [dict, ...]}``; each augmentation
dict holds keyword arguments of ``make_transform`` (DecodeWarp) or the keys
``gamma_gray``, ``gamma_color``, ``contrast`` (Lighting). Missing keys take the
documented defaults; an explicit value, 0 included, is always used.
"""
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import _augpy

__all__ = ["DecodeWarp", "Lighting", "Lightning"]

# Keyword arguments of make_transform that an augmentation dict may carry.
WARP_KEYS = ("angle", "scale", "aspect", "shift", "shear", "hmirror", "vmirror", "scale_mode",
             "max_supersampling")


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

    An instance may be used in a forked child (a DataLoader worker): the child
    gets its own decoder threads and decoders on first use.
    """

    def __init__(self, batch_size, shape, background=None, dtype=None, cpu_threads=1, num_buffers=2,
                 decode_buffer_size=None, max_pixels=None):
        func = "DecodeWarp"
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

    def _decode_warp(self, data, params, dst, handoff):
        decoder, buffer = self._decoder()
        stream = _augpy.get_current_stream()
        stream.wait_event(handoff)  # earlier readers of this ring buffer come first
        img = decoder.decode(data, buffer)
        kwargs = {k: params[k] for k in WARP_KEYS if k in params}
        matrix, supersampling = _augpy.make_transform(img.shape[:2], self.shape[1:], **kwargs)
        _augpy.warp_affine(img, dst, matrix, self.background, supersampling)
        done = _augpy.CudaEvent()
        done.record(stream)
        return done

    def __call__(self, batch):
        """Decode ``batch['image']`` (a list of JPEG byte strings) and warp each
        image with its ``batch['augmentation']`` dict into the next batch buffer.
        Returns ``batch`` with ``'image'`` replaced by the (n, C, H, W) batch."""
        func = "DecodeWarp"
        augmentation = _check_batch(batch, func, self.batch_size)
        images = list(batch["image"])
        n = len(images)
        if n > self.batch_size:
            raise ValueError(f"{func}: {n} images for a batch size of {self.batch_size}")
        augmentation = _augmentation_list(augmentation, n, func)
        if self._pid != os.getpid():
            self._start_threads()
        index = self._next
        buffer = self.buffers[index]
        self._next = (self._next + 1) % self.num_buffers
        handoff = _augpy.CudaEvent()
        handoff.record()  # all the caller has queued so far, readers of this buffer included
        jobs = [(images[i], augmentation[i], buffer[i], handoff) for i in range(n)]
        if self._pool is None:
            self._done[index] = [self._decode_warp(*job) for job in jobs]
        else:
            # list() re-raises the first failure after all jobs ended.
            self._done[index] = list(self._pool.map(lambda job: self._decode_warp(*job), jobs))
        batch["image"] = self.finalize_batch(buffer if n == self.batch_size else buffer[:n])
        return batch

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
        _augpy.lighting(image, _augpy.array_to_tensor(gray), _augpy.array_to_tensor(color.reshape(-1)),
                        _augpy.array_to_tensor(contrast), self.min_value, self.max_value, out=image)
        return batch


# The manual's spelling of the class name.
Lightning = Lighting
