"""augpy/_decode_stage.py: DecodeWarp, the decode + warp batch stage (re-exported by
augpy.image, whose docstring describes the stages), and the helpers the other stages
(augpy/_imagenet_stages.py, augpy/_colour_stages.py) share: argument checks, the
augmentation dicts, the per-image record of the warp."""
import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait

import numpy as np

from . import _augpy
from ._files import read_regular
from ._sampling import check_on_error, handle_failures
from .rrc import check_dct_scale
from .targets import transform_batch_targets

# The stages' interpolation names -> the warp's (an augmentation dict's 'interpolation' is one
# of the keys; 'random' is a stage setting: each image draws 'bilinear' or 'bicubic').
STAGE_INTERPOLATIONS = {"bilinear": "linear", "bicubic": "cubic", "nearest": "nearest"}
_INTERP_ALIASES = {"linear": "bilinear", "cubic": "bicubic"}


def interpolation_of(value, func, random=False, where="interpolation"):
    """A stage's (or an augmentation dict's) interpolation as its canonical name: 'bilinear'
    (also 'linear'), 'bicubic' ('cubic'), 'nearest', and with random=True 'random'."""
    name = _INTERP_ALIASES.get(value, value) if isinstance(value, str) else None
    if name in STAGE_INTERPOLATIONS or (random and name == "random"):
        return name
    allowed = "'bilinear', 'bicubic', 'nearest'" + (" or 'random'" if random else "")
    raise ValueError(f"{func}: {where} must be {allowed}, got {value!r}")


def _check_interpolations(params, func):
    """The 'interpolation' an augmentation dict may carry (errors before any decode)."""
    for i, p in enumerate(params):
        if "interpolation" in p:
            p["interpolation"] = interpolation_of(p["interpolation"], func,
                                                  where=f"augmentation[{i}]['interpolation']")


# Keyword arguments of make_transform that an augmentation dict may carry.
WARP_KEYS = ("angle", "scale", "aspect", "shift", "shear", "hmirror", "vmirror", "scale_mode",
             "max_supersampling")


def _read_info(decoder, data, stage):
    """(decoder.info(data), data), a path read once into bytes (errors name the stage)."""
    if isinstance(data, (str, os.PathLike)):
        data = read_regular(data, f"augpy.image.{type(stage).__name__}")
    return decoder.info(data), data


def _check_limit(decoder, header):
    """The header's (height, width); the decoder's max_pixels bounds the whole
    image as for a full decode (a region decode alone bounds only its output)."""
    h, w = header["height"], header["width"]
    if h * w > decoder.max_pixels:
        raise _augpy.DecodeError(
            f"Decoder.decode: image of {h} x {w} = {h * w} pixels is larger than the decoder's limit of "
            f"{decoder.max_pixels} pixels (raise it with aug_decoder_set_limit / Decoder(max_pixels=...), at most 2^31)")
    return h, w


def decode_dtype_of(value, func):
    """A stage's decode_dtype: None / 'uint8' (the default) or 'uint16' (docs/formats.md)."""
    if value is None:
        return _augpy.uint8
    for dt in (_augpy.uint8, _augpy.uint16):
        try:
            if value == dt or value == dt.name or np.dtype(value) == np.dtype(dt.name):
                return dt
        except TypeError:
            pass
    raise TypeError(f"{func}: decode_dtype must be None, 'uint8' or 'uint16', got {value!r}")


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
    :param decode_dtype: the dtype each file is decoded to (``Decoder.decode``'s ``dtype=``):
        None / ``'uint8'`` (the default) or ``'uint16'`` (16-bit PNG and TIFF samples kept,
        10/12-bit AVIF ones scaled to 0..65535, 8-bit ones widened by 257; docs/formats.md), warped into ``dtype`` with the warp's
        saturating rule (a uint16 batch of a uint16 decode keeps every bit)
    :param cpu_threads: number of parallel decoders
    :param num_buffers: number of batch buffers used in turn; a returned batch
        stays valid until ``num_buffers - 1`` further calls
    :param decode_buffer_size: elements of a pre-allocated decode buffer per
        decoder (must hold H*W*3 of the largest image); None: a new buffer per image
    :param max_pixels: the largest image (height * width) decoded, passed to each
        ``Decoder``; None: the Decoder's default (2**28)
    :param on_error: what a file that cannot be read or decoded does: ``'raise'`` (default;
        ``augpy.DecodeError`` naming the image's index, key or path, format and the
        decoder's reason), ``'skip'`` (the batch comes back without it: see
        ``batch['skipped']`` and the count ``self.skipped``) or ``'warn'`` (skip and log)
    :param dct_scale: decode each JPEG at the smallest libjpeg DCT scale M/8 (1/8, 1/4, 1/2, 1) that
        still gives the warp at least one source pixel per output pixel in every
        direction (the matrix's smaller singular value times M/8 >= 1), and only
        the region the warp reads (``augpy.plan_decode``); the matrix and the
        supersampling are adjusted to that decode. Any affine: rotations, shears,
        flips; a warp that enlarges somewhere decodes at full size (M = 8). None (the default): on, except
        for decoders whose engine is ``'nvjpeg'`` (a scaled decode runs on the CPU);
        False: always decode the whole image at full size (PNG files always are).
        Each image's dict gets ``dct_scale`` (M; 8 for a full decode); a dict that
        carries one (1, 2, 4 or 8) is decoded at that scale while the stage plans,
        so a recorded dict replays. A grayscale JPEG (with dct_scale on, a uint8 decode, a CPU
        batch and the same background value in every channel given as numbers) is decoded
        once to its samples and warped into the first channel, which is copied to the others:
        the same bytes as its RGB decode warped channel by channel, for a third of the work.
    :param interpolation: the warp's: ``'bilinear'`` (the default: supersampled bilinear),
        ``'bicubic'`` (Keys' a = -0.75 cubic, OpenCV's INTER_CUBIC, with the same supersampling;
        docs/warp.md "Bicubic") or ``'nearest'``. A dict that carries ``'interpolation'`` is
        warped with that one; a stage whose interpolation is not bilinear records it in each dict

    On a CUDA decoder with nvJPEG's hardware backend (``Decoder.jpeg_backend`` 'hardware ...'),
    whole-image uint8 decodes of a batch's baseline JPEGs go to the JPEG engines in ONE batched
    call on one decoder thread (the bytes of the per-image path); the other files are decoded one
    by one as usual, and a bad file fails only its own image (docs/cuda.md).

    An instance may be used in a forked child (a DataLoader worker): the child
    gets its own decoder threads and decoders on first use. It pickles (its
    parameters; threads, buffers and decoders are made anew), so it can be handed
    to a spawned process or a Ray actor.

    Targets (docs/targets.md): each ``batch['augmentation'][i]`` gets ``matrix``
    (6 floats, the warp of the FULL decoded image, output pixel -> source pixel),
    ``source_size`` (h, w) and ``dct_scale``; optional batch keys ``boxes`` (+ ``labels``),
    ``keypoints`` (+ ``keypoint_labels``) and ``masks`` are moved with those
    matrices (``augpy.targets.transform_batch_targets``; settings: the attributes
    ``box_format``, ``box_params``, ``ignore_index``).
    """

    box_format = "xyxy"
    box_params = None
    ignore_index = 255
    _random_interpolation = False  # whether interpolation='random' draws per image (ImageNetTrain)

    def __init__(self, batch_size, shape, background=None, dtype=None, cpu_threads=1, num_buffers=2,
                 decode_buffer_size=None, max_pixels=None, dct_scale=None, on_error="raise", decode_dtype=None,
                 interpolation="bilinear"):
        func = type(self).__name__
        self.__dict__.setdefault("_params", dict(
            batch_size=batch_size, shape=shape, background=background, dtype=dtype, cpu_threads=cpu_threads,
            num_buffers=num_buffers, decode_buffer_size=decode_buffer_size, max_pixels=max_pixels,
            dct_scale=dct_scale, on_error=on_error, decode_dtype=decode_dtype, interpolation=interpolation))
        self.interpolation = interpolation_of(interpolation, func, random=self._random_interpolation)
        self.on_error = check_on_error(on_error, func)
        self.skipped = 0
        self.batch_size = _positive_int("batch_size", batch_size, func)
        shape = tuple(shape)
        if len(shape) != 3:
            raise ValueError(f"{func}: shape must be (C, H, W), got {shape!r}")
        self.shape = tuple(_positive_int("shape", s, func) for s in shape)
        self.dtype = _augpy.uint8 if dtype is None else dtype
        self.decode_dtype = decode_dtype_of(decode_dtype, func)
        self.cpu_threads = _positive_int("cpu_threads", cpu_threads, func)
        self.num_buffers = _positive_int("num_buffers", num_buffers, func)
        channels = self.shape[0]
        if background is None:
            background = np.zeros(channels, dtype=np.float64)
        # grayscale JPEGs are decoded to one channel and warped once when every channel's background is
        # the same (values given here; a tensor is not read)
        self._gray_once = (not isinstance(background, _augpy.Tensor) and channels > 1 and
                           bool(np.all(np.asarray(background, dtype=np.float64) ==
                                       np.asarray(background, dtype=np.float64).reshape(-1)[0])))
        if not isinstance(background, _augpy.Tensor):
            # on the host: each warp reads it there, without waiting for the GPU
            background = _augpy.from_dlpack(np.ascontiguousarray(background, dtype=np.float64).reshape(-1).copy())
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
        self.buffers = [_augpy.Tensor((self.batch_size,) + self.shape, dtype=self.dtype)
                        for _ in range(self.num_buffers)]
        for b in self.buffers:
            b.layout = "NCHW"
        self._next = 0
        self._done = [[] for _ in range(self.num_buffers)]  # per buffer: events of its last fill
        self._pending = {}  # buffer index -> the futures of a fill an exception left running
        self._start_threads()

    def __reduce__(self):
        """Pickle the constructor's parameters and the stage's state (counts, the seed
        model's draws); threads, buffers, decoders and events are made anew."""
        return _restore_stage, (type(self), self._params, self._pickled_state())

    def _pickled_state(self):
        return {"on_error": self.on_error, "skipped": self.skipped}

    def _start_threads(self):
        # A forked child inherits the pool object but none of its threads (it
        # would wait forever for them), and the parent's per-thread decoders:
        # __call__ starts both afresh when the process id has changed.
        self._pid = os.getpid()
        self._local = threading.local()
        self._pool = (ThreadPoolExecutor(self.cpu_threads, initializer=self._cap_thread)
                      if self.cpu_threads > 1 else None)

    def _cap_thread(self):
        """A decoder thread's share of the CPU workers for its own calls (the warp): the
        threads, already parallel over the images, would otherwise each wake the whole pool
        onto the cores the others decode on. Set when the thread starts and again per job
        (set_num_threads may have changed in between)."""
        _augpy.set_thread_num_threads(max(1, _augpy.get_num_threads() // self.cpu_threads))

    def _decoder(self):
        local = self._local
        if not hasattr(local, "decoder"):
            if self._pool is not None:  # a worker thread: a stream of its own
                local.stream = _augpy.CudaStream()
                local.stream.activate()
            local.decoder = (_augpy.Decoder() if self.max_pixels is None
                             else _augpy.Decoder(max_pixels=self.max_pixels))
            local.buffer = (None if self.decode_buffer_size is None
                            else _augpy.Tensor((self.decode_buffer_size,), dtype=self.decode_dtype))
        return local.decoder, local.buffer

    def _use_plan(self, decoder):
        """Whether this decoder plans scaled / region decodes (dct_scale)."""
        if self.dct_scale is None:
            return decoder.engine != "nvjpeg"
        return self.dct_scale

    def _warp_planned(self, decoder, buffer, data, size, matrix, supersampling, dst, scale=True, header=None,
                      interpolation=None):
        """Decode data (a JPEG of the given (height, width)) as plan_decode says for
        the full-image warp (matrix, supersampling) and warp it into dst with ``interpolation``
        (a stage name; None: the stage's); returns the scale M.
        header (decoder.info's): a grayscale file may take the one-channel path (_warp_planned)."""
        gray = self._one_channel(header is not None and header.get("components") == 1, dst)
        return _warp_planned(decoder, buffer, data, size, matrix, supersampling, dst, self.background, scale,
                             self.decode_dtype, self._warp_interp(interpolation), gray)

    def _one_channel(self, gray, dst):
        """Whether a grayscale JPEG (gray) takes the one-channel path of _decode_plan_warp: a uint8
        decode, one background value for every channel, dst on the CPU."""
        return gray and self._gray_once and self.decode_dtype == _augpy.uint8 and dst.device == "cpu"

    def _image_interp(self, params):
        """The interpolation of one image (its dict's, else the stage's), recorded in the dict
        unless it is the default bilinear of a bilinear stage."""
        name = params.get("interpolation", self.interpolation)
        if name != "bilinear" or self.interpolation != "bilinear":
            params["interpolation"] = name
        return name

    def _warp_interp(self, name):
        """The warp's name of a stage interpolation (None: the stage's, which is then not 'random')."""
        return STAGE_INTERPOLATIONS[name or self.interpolation]

    def _job(self, data, params, dst, handoff):
        """One image of _fill, on a decoder thread (or the caller's): the thread's decoder and
        pool share, the wait for earlier readers of this ring buffer, ``_decode_warp``,
        and the event that marks it done on this thread's stream."""
        if self._pool is not None:
            self._cap_thread()
        decoder, buffer = self._decoder()
        stream = _augpy.get_current_stream()
        stream.wait_event(handoff)  # earlier readers of this ring buffer come first
        self._decode_warp(decoder, buffer, data, params, dst)
        done = _augpy.CudaEvent()
        done.record(stream)
        return done

    def _decode_warp(self, decoder, buffer, data, params, dst):
        """Decode one image with this thread's decoder and warp it into dst as params says
        (recording the warp in params); the stages override this (and _warp_whole)."""
        info = _read_info(decoder, data, self) if self._use_plan(decoder) else None
        if info is not None and info[0]["format"] == "jpeg":
            header, data = info
            size = _check_limit(decoder, header)
            kwargs = {k: params[k] for k in WARP_KEYS if k in params}
            matrix, supersampling = _augpy.make_transform(size, self.shape[1:], **kwargs)
            scale = self._warp_planned(decoder, buffer, data, size, matrix, supersampling, dst,
                                       params.get("dct_scale", True), header, self._image_interp(params))
            _record(params, matrix, size, scale)
        else:
            data = info[1] if info is not None else data
            self._warp_whole(decoder.decode(data, buffer, dtype=self.decode_dtype), params, dst)

    def _warp_whole(self, img, params, dst):
        """Warp img, the whole decode of this image's file, into dst as params says (recording the
        warp in params): _decode_warp's path without a plan, and the batched decode's (_batch_job).
        A stage that overrides _decode_warp overrides this too, or its batches are not batched."""
        kwargs = {k: params[k] for k in WARP_KEYS if k in params}
        interp = self._warp_interp(self._image_interp(params))
        matrix, supersampling = _augpy.make_transform(img.shape[:2], self.shape[1:], **kwargs)
        _augpy.warp_affine(img, dst, matrix, self.background, supersampling, interpolation=interp)
        _record(params, matrix, img.shape[:2], 8)

    def _batches(self, decoder):
        """Whether this stage decodes a batch's files in one batched call of decoder: whole-image
        decodes (no planned region decodes, uint8) on a decoder with nvJPEG's hardware backend (the
        JPEG engines' batched API; docs/cuda.md), by a stage whose _warp_whole is its _decode_warp's
        whole-image path (the class that defines one defines the other)."""
        return (_definer(type(self), "_decode_warp") is _definer(type(self), "_warp_whole") and
                self.decode_dtype == _augpy.uint8 and not self._use_plan(decoder) and
                decoder.jpeg_backend.startswith("hardware"))

    def _batch_job(self, images, params, buffer, handoff):
        """The batched part of _fill, on one decoder thread (or the caller's): the files the
        hardware decoder takes, decoded in one call (``Decoder._decode_batch``) and warped on this
        thread's stream. Returns (the indices done, their events, {index: exception} of their warps);
        the other files are left to ``_job``, one by one, which reports each file's own error."""
        if self._pool is not None:
            self._cap_thread()
        decoder, _ = self._decoder()
        if not self._batches(decoder):
            return set(), [], {}
        stream = _augpy.get_current_stream()
        stream.wait_event(handoff)  # earlier readers of this ring buffer come first
        taken, failures = set(), {}
        for i, img in enumerate(decoder._decode_batch(images)):
            if img is None:
                continue
            taken.add(i)
            try:
                self._warp_whole(img, params[i], buffer[i])
            except Exception as e:  # noqa: BLE001 - handle_failures re-raises all but bad files
                failures[i] = e
        done = _augpy.CudaEvent()
        done.record(stream)
        return taken, [done], failures

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
        # copies: the caller's dicts stay as given (the copies get matrix, source_size, dct_scale)
        batch["augmentation"] = [dict(a) for a in _augmentation_list(augmentation, n, func)]
        _check_scales(batch["augmentation"], func)
        _check_interpolations(batch["augmentation"], func)
        batch["image"] = self._fill(images, batch["augmentation"], batch, func)
        return self._targets(batch, func)

    def _targets(self, batch, func):
        """Move the batch's optional boxes / keypoints / masks (no work without them)."""
        aug = batch["augmentation"]
        return transform_batch_targets(batch, [a["matrix"] for a in aug], [a["source_size"] for a in aug],
                                       self.shape[1:], self.box_format, self.box_params, self.ignore_index, func)

    def _fill(self, images, params, batch, func, origin=None):
        """The ring-buffer machinery shared by the stages: run
        ``self._decode_warp(decoder, buffer, images[i], params[i], slot i)`` for every
        image (on the decoder threads) into the next ring buffer and return the
        (n, C, H, W) batch, finalized for the caller's stream. Failed images are
        handled as ``on_error`` says (``handle_failures``): the kept ones are moved to
        the front of the buffer and the batch's per-image lists follow them."""
        n = len(images)
        if self._pid != os.getpid():
            self._start_threads()
        index = self._next
        buffer = self.buffers[index]
        self._next = (self._next + 1) % self.num_buffers
        self._settle(index)
        handoff = _augpy.CudaEvent()
        handoff.record()  # all the caller has queued so far, readers of this buffer included
        jobs = [(images[i], params[i], buffer[i], handoff) for i in range(n)]
        # first the files a hardware decoder takes, in one batched call (_batch_job); then the rest
        taken, done, failures = self._batch_phase(index, images, params, buffer, handoff)
        rest = [i for i in range(n) if i not in taken]
        if self._pool is None:
            for i in rest:
                try:
                    done.append(self._job(*jobs[i]))
                except Exception as e:  # noqa: BLE001 - handle_failures re-raises all but bad files
                    failures[i] = e
        else:
            # Largest files first, so that the batch does not end on one thread decoding a
            # big image while the others idle; failures are handled once every job has ended.
            futures = []
            try:
                for i in sorted(rest, key=lambda i: -_size_hint(images[i])):
                    futures.append((i, self._pool.submit(self._job, *jobs[i])))
                wait([f for _, f in futures])
            except BaseException:
                # Ctrl-C (or any exception) while the jobs run: the jobs not started are
                # cancelled, and this buffer is not filled again (nor handed out) before
                # the running ones have ended (_settle), so they cannot write into a batch
                # the caller holds. The exception leaves at once.
                for _, f in futures:
                    f.cancel()
                self._pending[index] = [f for _, f in futures]
                raise
            for i, f in sorted(futures, key=lambda p: p[0]):
                if f.exception() is None:
                    done.append(f.result())
                elif isinstance(f.exception(), Exception):
                    failures[i] = f.exception()
                else:
                    raise f.exception()
        self._done[index] = done
        keep = handle_failures(self, func, batch, images, failures, origin)
        if failures:
            # the kept images move to the front of the buffer, after their decodes and warps
            stream = _augpy.get_current_stream()
            for event in done:
                stream.wait_event(event)
            for j, i in enumerate(keep):
                if i != j:
                    buffer[j] = buffer[i]
            moved = _augpy.CudaEvent()
            moved.record(stream)
            self._done[index] = [moved]
            n = len(keep)
        return self.finalize_batch(buffer if n == self.batch_size else buffer[:n])

    def _batch_phase(self, index, images, params, buffer, handoff):
        """_batch_job on a decoder thread (the caller's without a pool): (indices done, events,
        failures); an exception while it runs leaves it pending for _settle, as _fill's jobs. A CPU
        batch has no batched decoder: no job for it (a hand-off per batch on the hot path)."""
        if buffer.device == "cpu":
            return set(), [], {}
        if self._pool is None:
            return self._batch_job(images, params, buffer, handoff)
        future = self._pool.submit(self._batch_job, images, params, buffer, handoff)
        try:
            wait([future])
        except BaseException:
            future.cancel()
            self._pending[index] = [future]
            raise
        return future.result()

    def _settle(self, index):
        """Before buffer ``index`` is filled again: the jobs an interrupted fill left
        running there have ended, and the caller's stream waits for their device work."""
        pending = self._pending.pop(index, None)
        if not pending:
            return
        wait(pending)
        stream = _augpy.get_current_stream()
        for f in pending:
            if not f.cancelled() and f.exception() is None:
                result = f.result()  # a job's event, or _batch_job's (indices, events, failures)
                for event in (result[1] if isinstance(result, tuple) else [result]):
                    stream.wait_event(event)

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


def _restore_stage(cls, params, state):
    """Unpickle a stage: a new one from its parameters, then its state."""
    stage = cls(**params)
    stage.__dict__.update(state)
    return stage


def _definer(cls, name):
    """The class of cls's method resolution order that defines the attribute name."""
    return next(c for c in cls.__mro__ if name in c.__dict__)


def _size_hint(image):
    """The encoded size of a bytes-like image (0 for paths and other objects): the
    decoders' work order."""
    try:
        with memoryview(image) as view:
            return view.nbytes
    except Exception:  # not bytes-like: the decode reports what is wrong with it
        return 0


def _record(params, matrix, size, scale=None):
    """Record the full-image warp of one image in its augmentation dict (and the scale M
    of its decode, when given)."""
    params["matrix"] = tuple(float(v) for v in np.asarray(matrix, dtype=np.float64).reshape(6))
    params["source_size"] = (int(size[0]), int(size[1]))
    if scale is not None:
        params["dct_scale"] = int(scale)


def _check_scales(params, func):
    """The dct_scale an augmentation dict may carry: 1, 2, 4 or 8 (errors before any decode)."""
    for i, p in enumerate(params):
        if "dct_scale" in p:
            check_dct_scale(p["dct_scale"], func, f"augmentation[{i}]['dct_scale']")


def _warp_planned(decoder, buffer, data, size, matrix, supersampling, dst, background, scale, dtype=None,
                  interpolation="linear", gray=False):
    """Decode data (a JPEG of the given (height, width)) as plan_decode plans the full-image
    warp (matrix, supersampling) into dst ((C, H, W)) at the scale ``scale`` (True: the
    planner's; an int M: that one) and ``dtype`` (None: uint8), warp it into dst with the
    warp's ``interpolation`` (the plan's roi holds the bicubic taps too: each position's
    floor - 1 .. floor + 2); returns the scale M.
    gray (a grayscale JPEG, a uint8 decode, one background value for every channel, dst on the CPU):
    the file's samples are decoded once (mode 'unchanged'), warped into dst's first channel and
    copied to the others: the bytes of the RGB decode (which repeats the samples in every
    channel) warped channel by channel, for a third of the decode's output and of the warp."""
    plan = _augpy._plan_decode(np.asarray(matrix).reshape(-1).tolist(), size[0], size[1],
                               dst.shape[-2], dst.shape[-1], supersampling, scale, True)
    _decode_plan_warp(decoder, buffer, data, plan, dst, background, dtype, interpolation, gray)
    return plan[0]


def _decode_plan_warp(decoder, buffer, data, plan, dst, background, dtype, interpolation, gray):
    """Decode data as plan = (scale M, roi, matrix, supersampling) of _plan_decode says and warp it
    into dst with the warp's ``interpolation``; gray: _warp_planned's one-channel path."""
    scale_m, roi, m, s = plan
    m = np.array(m, dtype=np.float32).reshape(2, 3)
    if gray:
        img = decoder.decode(data, buffer, roi=roi, scale=(scale_m, 8), mode="unchanged")
        _augpy.warp_affine(img, dst[0:1], m, background[0:1], s, interpolation=interpolation)
        _augpy.copy(dst[0:1], dst[1:])
        return
    img = decoder.decode(data, buffer, roi=roi, scale=(scale_m, 8), contiguous=False, dtype=dtype)
    _augpy.warp_affine(img, dst, m, background, s, interpolation=interpolation)


def decode_warp(data, out, background=None, decoder=None, dct_scale=None, matrix=None, supersampling=1, **warp):
    """Decode one JPEG or PNG file and warp it into ``out`` in one call: the functional form
    of ``DecodeWarp`` for one image.

    :param data: the file (bytes-like or a path)
    :param out: the (C, H, W) tensor written
    :param background: C values outside the source (None: zeros)
    :param decoder: an ``augpy.Decoder`` (None: a new one)
    :param dct_scale: True: a JPEG is decoded at the DCT scale M/8 and region that
        ``augpy.plan_decode`` plans for the warp (as ``DecodeWarp``); an int M (1, 2, 4, 8):
        at that scale; False: the whole image at full size; None (the default): True unless
        the decoder's engine is ``'nvjpeg'`` (as ``DecodeWarp``)
    :param matrix: the (2, 3) full-image inverse map (output pixel -> source pixel) with
        ``supersampling``; None: ``make_transform(source size, out's size, **warp)``
    :param warp: ``make_transform``'s keyword arguments (only without ``matrix``)
    :returns: ``{'matrix', 'source_size', 'dct_scale'}`` as DecodeWarp records them
    """
    func = "decode_warp"
    if matrix is not None and warp:
        raise TypeError(f"{func}: give matrix or make_transform's keywords ({', '.join(sorted(warp))}), not both")
    if dct_scale is not None:
        dct_scale = (bool(dct_scale) if isinstance(dct_scale, (bool, np.bool_))
                     else check_dct_scale(dct_scale, func))
    shape = tuple(out.shape)
    if len(shape) != 3:
        raise ValueError(f"{func}: out must be a (C, H, W) tensor, got shape {shape}")
    decoder = _augpy.Decoder() if decoder is None else decoder
    if dct_scale is None:
        dct_scale = decoder.engine != "nvjpeg"
    if isinstance(data, (str, os.PathLike)):
        data = read_regular(data, f"augpy.image.{func}")
    header = decoder.info(data)
    size = _check_limit(decoder, header)
    if matrix is None:
        matrix, supersampling = _augpy.make_transform(size, shape[1:], **warp)
    try:
        matrix = np.asarray(matrix, dtype=np.float32).reshape(2, 3)
    except (TypeError, ValueError):
        raise ValueError(f"{func}: matrix must be a (2, 3) array of numbers, got {matrix!r}") from None
    if not np.isfinite(matrix).all():
        raise ValueError(f"{func}: matrix must be finite, got {matrix.tolist()}")
    params = {}
    if header["format"] == "jpeg" and dct_scale is not False:
        _record(params, matrix, size, _warp_planned(decoder, None, data, size, matrix, supersampling, out,
                                                    background, dct_scale))
    else:
        _augpy.warp_affine(decoder.decode(data), out, matrix, background, supersampling)
        _record(params, matrix, size, 8)
    return params


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
