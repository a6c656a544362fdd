"""augpy/_sampling.py: what every batch stage shares about its samples: the seed model
and bad files (docs/semantics.md §11, "The loader's randomness").

The seed model. Each image's augmentation dict carries ``'rng': (seed, epoch, sample)``
(StageDataset and ``augpy.data.batches(seed=...)`` put it there; ``sample`` is
``augpy.sample_id(key)``). A stage whose draws belong to the stream ``N`` (its
``stream`` attribute, by default its class name) draws image k's values from the
Philox generator state ``(augpy.stream_seed(seed, epoch, N), sample)``: a pure
function of (seed, epoch, sample, stream), never of the thread, the worker, the
batch position or of the draws before. A recorded dict given back replays the
image's augmentation. A stage called with dicts that carry no ``'rng'`` fills it in
from its own ``seed`` (or entropy drawn once; a forked child draws its own) with
epoch 0 and the running count of images the stage has drawn for.

Bad files. A stage's ``on_error`` says what a file that cannot be read or decoded
does: ``'raise'`` (an ``augpy.DecodeError`` naming the image's index, key or path,
sniffed format and the decoder's reason), ``'skip'`` (the image leaves the batch,
which comes back shorter; its index, name and reason are listed in
``batch['skipped']`` and counted in the stage's ``skipped``) or ``'warn'`` (skip, and
log a warning on the ``augpy`` logger)."""
import logging
import os

import numpy as np

from . import _augpy
from ._files import read_regular

ON_ERROR = ("raise", "skip", "warn")
_MASK64 = (1 << 64) - 1
_log = logging.getLogger("augpy")


def _entropy():
    return int.from_bytes(os.urandom(8), "little")


def check_seed(seed, func):
    """None or an int in [0, 2^64)."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not hasattr(seed, "__index__"):
        raise TypeError(f"{func}: seed must be an int in [0, 2**64) or None, got {type(seed).__name__}")
    seed = seed.__index__()
    if not 0 <= seed <= _MASK64:
        raise ValueError(f"{func}: seed must be in [0, 2**64), got {seed}")
    return seed


def check_on_error(on_error, func):
    if on_error not in ON_ERROR:
        raise ValueError(f"{func}: on_error must be 'raise', 'skip' or 'warn', got {on_error!r}")
    return on_error


def check_rng(value, func, i):
    """An augmentation dict's 'rng': three ints in [0, 2^64)."""
    if type(value) is tuple and len(value) == 3 and all(type(v) is int and 0 <= v <= _MASK64 for v in value):
        return value  # the common case, as batches() makes them
    try:
        triple = tuple(value)
    except TypeError:
        triple = None
    if triple is None or len(triple) != 3 or any(isinstance(v, bool) or not hasattr(v, "__index__")
                                                 for v in triple):
        raise TypeError(f"{func}: augmentation[{i}]['rng'] must be (seed, epoch, sample) ints, got {value!r}")
    triple = tuple(v.__index__() for v in triple)
    if any(not 0 <= v <= _MASK64 for v in triple):
        raise ValueError(f"{func}: augmentation[{i}]['rng'] values must be in [0, 2**64), got {triple}")
    return triple


def generator_at(state, uniforms=0):
    """A RandomNumberGenerator at one image's state (seed, calls) from ``Sampled._rng_states``,
    and ``uniforms`` float64 values in [0, 1) drawn from it first (an array; its next draws
    continue the same stream). The generator is on the CPU whatever the default device: its
    draws are host-side decisions (op lists, boxes, lam, values copied in), the same values
    as on any device (SPEC 11), made without a launch and a read-back (a host wait) each."""
    rng = _augpy._host_generator(state)
    u = np.empty(uniforms, np.float64)
    if uniforms:
        rng.uniform(u, 0.0, 1.0)
    return rng, u


class Sampled:
    """The seed model's state of a stage that draws: call ``_init_sampling(seed)`` in
    ``__init__`` and ``_rng_states(augmentation)`` per batch."""

    stream = None  # the draws' stream name; None: the class name

    def _init_sampling(self, seed):
        self.seed = check_seed(seed, type(self).__name__)
        self._seed_value = _entropy() if self.seed is None else self.seed
        self._count = 0
        self._sample_pid = os.getpid()

    def _rng_states(self, augmentation):
        """Fill a missing 'rng' into each (mutable) dict; the generator states
        (stream_seed, sample) of this stage's stream, one per image."""
        func = type(self).__name__
        if self._sample_pid != os.getpid():
            # a forked child (a DataLoader worker using the stage directly): without a seed, its
            # own entropy, so that workers do not repeat each other's draws
            if self.seed is None:
                self._seed_value, self._count = _entropy(), 0
            self._sample_pid = os.getpid()
        triples = []
        for i, a in enumerate(augmentation):
            if "rng" not in a:
                a["rng"] = (self._seed_value, 0, self._count)
                self._count += 1
            triples.append(check_rng(a["rng"], func, i))
        stream = self.stream or type(self).__name__
        seeds = {}  # the images of a batch mostly share (seed, epoch)
        for seed, epoch, _ in triples:
            if (seed, epoch) not in seeds:
                seeds[seed, epoch] = _augpy.stream_seed(seed, epoch, stream)
        return [(seeds[seed, epoch], sample) for seed, epoch, sample in triples]

    def _sampling_state(self):
        state = {"_seed_value": self._seed_value, "_count": self._count}
        if "stream" in self.__dict__:  # a stream name given to this stage
            state["stream"] = self.stream
        return state


# ---- bad files --------------------------------------------------------------------------------------

def is_bad_file(exc):
    """A decode or read failure of one file (not a bad argument or a bug)."""
    return isinstance(exc, (_augpy.NvJpegError, OSError))


SNIFF_BYTES = 64  # what sniff reads: an AVIF's 'ftyp' box lists its brands in the first few dozen bytes


def _is_avif(head):
    """An ISO BMFF 'ftyp' box first, with the brand 'avif' or 'avis' (major or compatible)."""
    if len(head) < 16 or head[4:8] != b"ftyp":
        return False
    box = int.from_bytes(head[:4], "big")
    if box < 16:
        return False
    end = min(box, len(head))
    return any(head[k:k + 4] in (b"avif", b"avis") for k in range(8, end - 3, 4) if k != 12)


def sniff(data):
    """'jpeg', 'png', 'webp', 'tiff', 'avif' or 'unknown' from a file's first bytes ('path' when it
    was not read), as the decoder tells them apart (aug_image_format_of)."""
    try:
        with memoryview(data) as view:
            head = bytes(view[:SNIFF_BYTES])
    except TypeError:
        return "path" if isinstance(data, (str, os.PathLike)) else "unknown"
    if head[:2] == b"\xff\xd8":
        return "jpeg"
    if head[:8] == b"\x89PNG\r\n\x1a\n":
        return "png"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "webp"
    if head[:4] in (b"II*\x00", b"MM\x00*", b"II+\x00", b"MM\x00+"):
        return "tiff"
    if _is_avif(head):
        return "avif"
    return "unknown"


def image_name(batch, i, data):
    """How a message names image i of a batch: its key, else its path, else 'bytes'."""
    keys = batch.get("key")
    if isinstance(keys, (list, tuple)) and i < len(keys):
        return str(keys[i])
    if isinstance(data, (str, os.PathLike)):
        return os.fspath(data)
    return "bytes"


def decode_error(func, batch, i, data, exc, origin=None):
    """An augpy.DecodeError for image i of batch that failed with exc."""
    fmt = sniff(data)
    if fmt == "path":
        try:
            fmt = sniff(read_regular(data, func, SNIFF_BYTES))
        except OSError:
            fmt = "unreadable"
    at = i if origin is None else origin[i]
    return _augpy.DecodeError(f"{func}: image {at} ({image_name(batch, i, data)}, {fmt}): {exc}")


# Batch keys that hold one entry per image and follow the images when some are dropped.
PER_IMAGE_KEYS = ("augmentation", "key", "metadata", "index", "boxes", "labels", "keypoints", "keypoint_labels",
                  "masks")


def handle_failures(stage, func, batch, images, failures, origin=None):
    """Raise for the first failed image (on_error='raise'), or drop the failed images from
    the batch's per-image lists and list them in batch['skipped']. Returns the kept indices.
    origin: each image's index in the batch as the caller gave it (when an earlier step
    already dropped some), for the messages."""
    if not failures:
        return list(range(len(images)))
    for i in sorted(failures):  # the first failure in image order that is not to be skipped
        exc = failures[i]
        if not is_bad_file(exc):
            raise exc
        if stage.on_error == "raise":
            raise decode_error(func, batch, i, images[i], exc, origin) from exc
    skipped = batch.setdefault("skipped", [])
    for i in sorted(failures):
        name, at = image_name(batch, i, images[i]), i if origin is None else origin[i]
        skipped.append((at, name, str(failures[i])))
        if stage.on_error == "warn":
            _log.warning("%s: skipped image %d (%s): %s", func, at, name, failures[i])
    stage.skipped += len(failures)
    keep = [i for i in range(len(images)) if i not in failures]
    n = len(images)
    for k in PER_IMAGE_KEYS:
        v = batch.get(k)
        if isinstance(v, (list, tuple)) and len(v) == n:
            batch[k] = [v[i] for i in keep]
        elif hasattr(v, "shape") and hasattr(v, "__getitem__") and len(getattr(v, "shape", ())) > 0 \
                and v.shape[0] == n and k != "augmentation":
            batch[k] = v[keep]
    return keep


def metadata_labels(metadata):
    """The int labels of a batch's metadata dicts (augpy.data's ``class_index`` or a shard's
    ``cls``), or None when one is missing: StageDataset's ``batch['label']`` and the mixing
    stages' labels when the batch has no 'label'."""
    out = []
    for meta in metadata:
        label = meta.get("class_index", meta.get("cls")) if isinstance(meta, dict) else None
        if isinstance(label, bool) or not isinstance(label, (int, np.integer)):
            return None
        out.append(int(label))
    return out


def metadata_targets(metadata, func):
    """The soft or multi-hot labels of a batch's metadata dicts as a float32 (N, C) array: each
    dict's ``'target'``, a sequence of C numbers (the mixing stages' labels when the batch has
    no 'label' and its metadata no class_index); None when one is missing."""
    rows = []
    for k, meta in enumerate(metadata):
        row = meta.get("target") if isinstance(meta, dict) else None
        if row is None or isinstance(row, (str, bytes)):
            return None
        try:
            row = np.asarray(row, np.float32)
        except (TypeError, ValueError):
            raise ValueError(f"{func}: metadata[{k}]['target'] must be a sequence of numbers, got {row!r}") from None
        if row.ndim != 1 or (rows and row.shape != rows[0].shape):
            raise ValueError(f"{func}: metadata[{k}]['target'] has shape {row.shape}, metadata[0]'s "
                             f"{(rows or [row])[0].shape}: give every sample one (num_classes,) target")
        rows.append(row)
    return np.stack(rows) if rows else None


def batch_labels(batch, func):
    """batch['label'], else the labels of batch['metadata'] (a batch inside StageDataset's
    stages, before it adds 'label'): its class indices, else its (N, C) float targets
    (metadata_targets), stored as batch['label']; ValueError naming func without."""
    if "label" in batch:
        return batch["label"]
    meta = batch.get("metadata") or []
    labels = metadata_labels(meta)
    if labels:
        batch["label"] = np.asarray(labels, np.int64)
        return batch["label"]
    targets = metadata_targets(meta, func)
    if targets is None:
        raise ValueError(f"{func}: the batch has no 'label' (N class indices or (N, num_classes) float targets) "
                         f"and its metadata no class_index or target")
    batch["label"] = targets
    return batch["label"]
