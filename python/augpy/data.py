"""augpy.data: samples for the batch stages from folders, file lists and WebDataset-style tar shards.

Every source gives ``(data, key, metadata)``: the encoded image bytes, a key that
names the sample (a str), and a dict of whatever else is known about it.
``batches`` groups them into the batch dicts of ``augpy.image.DecodeWarp`` and the
other batch stages::

    {'image': [bytes, ...], 'augmentation': [dict, ...], 'key': [str, ...],
     'metadata': [dict, ...], 'index': [int, ...]}

Indexable sources (``len(src)``, ``src[i]``, a fixed order)
-----------------------------------------------------------

- ``FolderSource(root, recursive=True, extensions=IMAGE_EXTENSIONS, follow_symlinks=False)``: the image
  files of a folder with torchvision ``ImageFolder``'s conventions.
  ``src.classes`` is the sorted list of the names of root's sub-folders that hold at
  least one image, ``src.class_to_idx`` maps them to 0, 1, ...; a file's class is
  the first folder below root (``root/cat/2019/a.jpg`` is a ``cat``).
  ``src.samples`` is the list of ``(path, class_index)`` in ImageFolder's order (by
  class, then by folder, then by file name; ``src.targets`` the class indices),
  followed by the files directly in root, which have label ``''`` and class index
  -1 (ImageFolder ignores them). ``src[i]`` is ``(bytes, key, {'path': str, 'label':
  class name, 'class_index': int})`` with key = the path relative to root without
  its extension, ``/`` separated (``'n01440764/n01440764_10026'``); ``src.keys``
  lists them. One difference from ImageFolder: a class folder without images (or
  with only other files) is left out of ``classes``, where ImageFolder raises
  FileNotFoundError (or, with ``allow_empty=True``, gives it an index). So wherever
  ImageFolder accepts a folder, ``classes``, ``class_to_idx`` and ``samples``
  (the class files) equal ImageFolder's. ``recursive=False`` lists only the files
  directly in root (no classes). Extensions match case-insensitively. Only regular
  files are listed and read (a FIFO or a link to a device named ``x.jpg`` is left
  out; a file that turned into one after the listing is an OSError). Links are
  followed (each real folder once) while they stay inside root; a link that leads
  outside it is a ValueError naming it, unless ``follow_symlinks=True`` (a folder of
  links into a full dataset is common; an untrusted folder's link to /etc is not).
- ``FileListSource(paths, labels=None, root=None, keys=None)``: an explicit list of
  files. key = the path relative to ``root`` without its extension when root is
  given, else the path itself without its extension (or ``keys[i]``). ``labels``:
  one per path, all ints (class indices, kept; ``classes`` is ``['0', '1', ...,
  str(max)]``, -1 means unlabelled) or all strs (class names; ``classes`` their
  sorted unique names, indices through ``class_to_idx``). Same interface as
  FolderSource (``samples``, ``targets``, ``keys``, ``src[i]``); the order is the
  list's.

A key names one sample: two files with the same key (``a.jpg`` and ``a.png`` in one
folder) raise ValueError naming the key. The sources hold plain attributes
(picklable, cheap to send to DataLoader workers); a file is read when its sample is
asked for. ``src(worker_id, num_workers)`` (the older call) iterates over every
num_workers-th sample starting at worker_id: FolderSource in the order of the keys'
relative paths as ``iter_folder`` sorts them, FileListSource in list order.

Streamed sources: tar shards
----------------------------

- ``ShardSource(shards, image_extensions=IMAGE_EXTENSIONS, on_error='raise', max_image_bytes,
  max_meta_bytes, max_members)``: tar files as WebDataset
  writes them (a path, a brace pattern, or a list of them). A sample is the run of
  consecutive members that share a key (the member path up to the first dot of
  its file name), e.g. ``n01440764_10026.jpg`` + ``.cls`` + ``.json``. The image
  member (the first with an image extension) is the data; the others go into
  metadata by extension: ``.cls`` / ``.idx`` / ``.index`` -> int, ``.json`` -> parsed JSON,
  ``.txt`` -> str, anything else -> bytes; plus ``'__shard__'``. Samples without
  an image are skipped. Only the standard library's ``tarfile`` reads the tars
  (streaming: a shard is read once, front to back, one member at a time, keeping
  no member headers). Bounded: an image member over ``max_image_bytes`` (256 MiB),
  another member over ``max_meta_bytes`` (4 MiB) or a key with more than
  ``max_members`` (256) members is a bad sample and is never read; so is a member
  named ``<key>.__shard__`` / ``<key>.__key__`` (reserved) or metadata that does not
  parse. Sparse members, links, devices and FIFOs are skipped with a warning on the
  ``augpy`` logger. ``on_error`` says what a bad sample, or a shard that cannot be
  read to its end, does, as for the stages: ``'raise'`` (ValueError naming the shard
  and the member), ``'skip'`` (the sample, or the rest of the shard, is left out) or
  ``'warn'`` (skip and log). ``iter_shards`` takes the same options.

  ``src.samples(seed, epoch, shuffle, shuffle_buffer, worker_id, num_workers)``
  yields one worker's samples of one epoch. With ``shuffle``: the shard order is
  ``epoch_order(len(shards), seed, epoch, True)`` (a new permutation per epoch),
  worker w reads the shards ``w::num_workers`` of that order, and its samples pass
  through a shuffle buffer of ``shuffle_buffer`` samples (WebDataset's scheme: the
  first ``shuffle_buffer`` samples fill it, then each new sample takes the place of
  a random one, which is emitted; at the end the rest come out in random order).
  A sample therefore moves forward by less than ``shuffle_buffer`` places; a buffer
  of 0 or 1 keeps the order within the shards. The buffer's draws come from
  ``numpy.random.default_rng([seed, epoch, worker_id, num_workers])``: as in
  WebDataset, the order of a shard-shuffled epoch depends on the number of workers
  (each epoch still reads every sample exactly once over all workers). Without
  ``shuffle``: the shards in the given order, ``w::num_workers``, no buffer.
  ``src(worker_id, num_workers)`` (the older call) is ``samples`` without shuffle.
- ``shuffled(samples, buffer_size, rng)``: that shuffle buffer for any iterable of
  samples (e.g. your own streamed source), drawing from the numpy Generator ``rng``.

Order and randomness: one seed, one model
-----------------------------------------

Every random choice is a pure function of ``(seed, epoch, sample, stream)``, all
ints in [0, 2^64) (``augpy.stream_seed(seed, epoch, stream)`` mixes the first two
with the stream's name; ``augpy.sample_id(key)`` is a 64-bit hash of a key):

- ``epoch_order(n, seed, epoch, shuffle)``: the order in which an epoch visits an
  indexable source's n samples, a numpy int64 permutation of ``range(n)`` (the
  identity when not shuffle): the stable argsort of n uint64 values drawn over
  the whole uint64 range by
  ``augpy.RandomNumberGenerator(seed=augpy.stream_seed(seed, epoch, "shuffle")).uniform``.
- ``sample_generator(seed, epoch, sample)``: the numpy Generator an ``augment``
  callable gets for one sample:
  ``numpy.random.Generator(numpy.random.Philox(key=augpy.stream_seed(seed, epoch, "augment"), counter=sample))``.
  A sample's augmentation is thus the same whichever worker, batch or position it
  lands in.
- ``batches(samples, batch_size, augment=None, rng=None, drop_last=False, seed=None,
  epoch=0, indices=None)``: batch dicts of ``batch_size`` samples (the last one
  smaller unless drop_last). With ``seed``: each sample's augmentation dict is
  ``{'rng': (seed, epoch, augpy.sample_id(key))}`` (the stages draw their own
  parameters from it), updated with ``augment(sample_generator(seed, epoch,
  sample_id(key)), key, metadata)`` when ``augment`` is given. Without ``seed`` (the
  older form): ``augment(rng, key, metadata)`` draws from ``rng``, one numpy
  Generator, in sample order; without augment the dicts are empty. ``indices`` (an
  iterable parallel to samples, e.g. the source positions) fills ``'index'``, else
  -1. A data item that is not bytes-like raises TypeError naming its key and type;
  an exception raised by the source itself passes through unchanged.
- ``RandomWarp(...)``: a picklable ``augment`` callable drawing make_transform
  parameters.

Seeds, epochs and samples are ints in [0, 2^64): another type raises TypeError,
a value out of range ValueError, both naming the function.

Older helpers
-------------

- ``iter_folder(root, recursive=False)``: the image files of a folder, sorted by
  their relative path; key = the path relative to root without its extension;
  metadata ``{'path': str, 'label': str}`` with the file's parent folder name as
  label (ImageNet's layout) or '' at the top level (note: FolderSource's label is
  the first folder below root instead, ImageFolder's class).
- ``iter_shards(shards)``: the samples of tar shards in order (see ShardSource).
- ``list_images(root, recursive=False)``: the image paths of a folder, sorted.
- ``expand_shards('data/train-{000000..000146}.tar')``: brace ranges as WebDataset
  writes them; ``split(items, worker_id, num_workers)``: a worker's share.

PNG, WebP, TIFF and AVIF files (``IMAGE_EXTENSIONS``: .jpg .jpeg .png .webp .tif .tiff .avif) are
listed and read like JPEGs, and every stage decodes them (the format comes from the
bytes, not the extension; pass ``extensions=('.jpg', '.jpeg')`` to read only JPEGs).

The iterators take ``worker_id`` / ``num_workers`` and then read only that
worker's share: every num_workers-th shard (tar) or file (folder), starting at
worker_id. With more workers than shards some workers get nothing.
"""
import operator
import os
import re

import numpy as np

from . import _augpy
from ._files import allowed, check_inside, read_regular
from ._sampling import check_on_error
from ._shards import MAX_IMAGE_BYTES, MAX_META_BYTES, MAX_MEMBERS, check_limits, samples_of_tar

__all__ = ["IMAGE_EXTENSIONS", "FolderSource", "FileListSource", "ShardSource", "epoch_order", "sample_generator",
           "shuffled", "list_images", "iter_folder", "expand_shards", "split", "iter_shards", "batches", "RandomWarp"]

IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".webp", ".tif", ".tiff", ".avif")

_U64 = 1 << 64
_MASK = _U64 - 1


def _check_u64(value, name, func):
    """value as a Python int in [0, 2^64): TypeError for other types, ValueError out of range."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{func}: {name} must be an int in [0, 2**64), got bool")
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{func}: {name} must be an int in [0, 2**64), got {type(value).__name__}") from None
    if not 0 <= v < _U64:
        raise ValueError(f"{func}: {name} must be in [0, 2**64), got {v}")
    return v


def _stream_seed(seed, epoch, stream):
    return _augpy.stream_seed(seed, epoch, stream)


def _sample_id(key):
    return _augpy.sample_id(key)


def epoch_order(n, seed, epoch=0, shuffle=True):
    """The order in which epoch ``epoch`` visits n samples: a numpy int64 permutation of
    range(n); the identity when not ``shuffle``. It is the stable argsort of n uint64
    values drawn over the whole uint64 range by
    ``RandomNumberGenerator(seed=stream_seed(seed, epoch, "shuffle")).uniform``."""
    func = "augpy.data.epoch_order"
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"{func}: n must be an int, got {type(n).__name__}")
    n = int(n)
    if n < 0:
        raise ValueError(f"{func}: n must be >= 0, got {n}")
    if not shuffle:
        if seed is not None:
            _check_u64(seed, "seed", func)
        _check_u64(epoch, "epoch", func)
        return np.arange(n, dtype=np.int64)
    seed = _check_u64(seed, "seed", func)
    epoch = _check_u64(epoch, "epoch", func)
    values = np.empty(n, np.uint64)
    # on the CPU whatever the default device: the same values, no device round trip
    _augpy._host_generator((_stream_seed(seed, epoch, "shuffle"), 0)).uniform(values, 0.0, float(_U64))
    return np.argsort(values, kind="stable").astype(np.int64)


def sample_generator(seed, epoch, sample):
    """The numpy Generator an ``augment`` callable gets for one sample:
    ``Generator(Philox(key=stream_seed(seed, epoch, "augment"), counter=sample))``."""
    func = "augpy.data.sample_generator"
    seed = _check_u64(seed, "seed", func)
    epoch = _check_u64(epoch, "epoch", func)
    sample = _check_u64(sample, "sample", func)
    return np.random.Generator(np.random.Philox(key=_stream_seed(seed, epoch, "augment"), counter=sample))


# ---- workers, extensions, listing ---------------------------------------------------------------

def _check_worker(worker_id, num_workers, func):
    if num_workers is None and worker_id is None:
        return 0, 1
    if worker_id is None or num_workers is None:
        raise ValueError(f"{func}: give both worker_id and num_workers, or neither")
    for name, v in (("worker_id", worker_id), ("num_workers", num_workers)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{func}: {name} must be an int, got {type(v).__name__}")
    worker_id, num_workers = int(worker_id), int(num_workers)
    if num_workers < 1 or not 0 <= worker_id < num_workers:
        raise ValueError(f"{func}: worker_id {worker_id} must be in [0, num_workers) with num_workers >= 1, "
                         f"got num_workers {num_workers}")
    return worker_id, num_workers


def split(items, worker_id, num_workers):
    """Worker ``worker_id``'s share of ``items``: every num_workers-th, from worker_id."""
    worker_id, num_workers = _check_worker(worker_id, num_workers, "augpy.data.split")
    return list(items)[worker_id::num_workers]


def _extensions(extensions):
    if isinstance(extensions, str):
        extensions = (extensions,)
    return tuple(e.lower() if e.startswith(".") else "." + e.lower() for e in extensions)


def list_images(root, recursive=False, extensions=IMAGE_EXTENSIONS, follow_symlinks=False):
    """The image files under ``root`` (case-insensitive extensions), sorted by
    their path relative to root (``/`` separated). Regular files only; a link whose
    target leaves root is a ValueError unless ``follow_symlinks``."""
    return _list_images(root, recursive, extensions, follow_symlinks, "augpy.data.list_images")


def _list_images(root, recursive, extensions, follow_symlinks, func):
    if not os.path.isdir(root):
        raise FileNotFoundError(f"{func}: {root!r} is not a folder")
    ext = _extensions(extensions)
    real_root = os.path.realpath(root)
    found = []
    if recursive:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            for name in filenames:
                path = os.path.join(dirpath, name)
                if os.path.splitext(name)[1].lower() in ext and allowed(path, real_root, follow_symlinks, func):
                    found.append(os.path.relpath(path, root).replace(os.sep, "/"))
    else:
        for name in os.listdir(root):
            path = os.path.join(root, name)
            if os.path.splitext(name)[1].lower() in ext and allowed(path, real_root, follow_symlinks, func):
                found.append(name)
    return [os.path.join(root, rel) for rel in sorted(found)]


def iter_folder(root, recursive=False, extensions=IMAGE_EXTENSIONS, worker_id=None, num_workers=None,
                follow_symlinks=False):
    """Yield ``(bytes, key, metadata)`` for the image files of a folder (see the module doc)."""
    func = "augpy.data.iter_folder"
    worker_id, num_workers = _check_worker(worker_id, num_workers, func)
    for path in _list_images(root, recursive, extensions, follow_symlinks, func)[worker_id::num_workers]:
        rel = os.path.relpath(path, root).replace(os.sep, "/")
        key = os.path.splitext(rel)[0]
        parent = os.path.dirname(rel)
        yield read_regular(path, func), key, {"path": path, "label": os.path.basename(parent)}


# ---- indexable sources --------------------------------------------------------------------------

class _IndexableSource:
    """What FolderSource and FileListSource share: samples / targets / keys / classes /
    class_to_idx as plain attributes, ``len``, ``src[i]`` and the older ``src(worker_id,
    num_workers)`` call."""

    _name = "augpy.data._IndexableSource"

    def _finish(self, paths, class_indices, keys):
        seen = {}
        for path, key in zip(paths, keys):
            if key in seen:
                raise ValueError(f"{self._name}: duplicate key {key!r}: {seen[key]!r} and {path!r} are the same "
                                 f"sample (keys are paths without their extension)")
            seen[key] = path
        self.samples = list(zip(paths, class_indices))
        self.targets = list(class_indices)
        self.keys = list(keys)

    @property
    def imgs(self):
        """ImageFolder's other name for samples."""
        return self.samples

    def __len__(self):
        return len(self.samples)

    def _index(self, i):
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
            raise TypeError(f"{self._name}: index must be an int, got {type(i).__name__}")
        n = len(self.samples)
        j = int(i) + n if i < 0 else int(i)
        if not 0 <= j < n:
            raise IndexError(f"{self._name}: index {int(i)} out of range for {n} samples")
        return j

    def __getitem__(self, i):
        """``(bytes, key, {'path': str, 'label': class name or '', 'class_index': int})``."""
        j = self._index(i)
        path, c = self.samples[j]
        data = read_regular(path, self._name)
        return data, self.keys[j], {"path": path, "label": self.classes[c] if c >= 0 else "", "class_index": c}

    def _legacy_order(self):
        return range(len(self.samples))

    def __call__(self, worker_id, num_workers):
        """The older source call: an iterator over every num_workers-th sample from worker_id."""
        worker_id, num_workers = _check_worker(worker_id, num_workers, self._name)
        order = list(self._legacy_order())[worker_id::num_workers]
        return (self[j] for j in order)


class FolderSource(_IndexableSource):
    """The image files of a folder with torchvision ImageFolder's conventions (see the module doc):
    ``classes``, ``class_to_idx``, ``samples`` [(path, class_index)], ``targets``, ``keys``,
    ``len(src)``, ``src[i] -> (bytes, key, {'path', 'label', 'class_index'})``."""

    _name = "augpy.data.FolderSource"

    def __init__(self, root, recursive=True, extensions=IMAGE_EXTENSIONS, follow_symlinks=False):
        if not isinstance(root, (str, os.PathLike)):
            raise TypeError(f"{self._name}: root must be a path, got {type(root).__name__}")
        root = os.fspath(root)
        if not os.path.isdir(root):
            raise FileNotFoundError(f"{self._name}: {root!r} is not a folder")
        self.root, self.recursive = root, bool(recursive)
        self.extensions = _extensions(extensions)
        self.follow_symlinks = bool(follow_symlinks)
        ext, real_root = self.extensions, os.path.realpath(root)

        def is_image(path):
            return os.path.splitext(path)[1].lower() in ext and allowed(path, real_root, self.follow_symlinks, self._name)

        def is_folder(path):
            return os.path.isdir(path) and bool(check_inside(path, real_root, self.follow_symlinks, self._name))

        top = sorted(e.name for e in os.scandir(root) if is_image(e.path))
        class_files = []  # (class name, [paths in ImageFolder's order])
        if self.recursive:
            for name in sorted(e.name for e in os.scandir(root) if is_folder(e.path)):
                visited = set()
                found = []
                for dirpath, dirnames, filenames in os.walk(os.path.join(root, name), followlinks=True):
                    visited.add(os.path.realpath(dirpath))
                    dirnames[:] = [d for d in dirnames if os.path.realpath(os.path.join(dirpath, d)) not in visited
                                   and is_folder(os.path.join(dirpath, d))]
                    found.append((dirpath, sorted(f for f in filenames if is_image(os.path.join(dirpath, f)))))
                paths = [os.path.join(d, f) for d, files in sorted(found) for f in files]
                if paths:
                    class_files.append((name, paths))
        self.classes = [name for name, _ in class_files]
        self.class_to_idx = {name: i for i, name in enumerate(self.classes)}
        paths = [p for _, ps in class_files for p in ps] + [os.path.join(root, f) for f in top]
        indices = [i for i, (_, ps) in enumerate(class_files) for _ in ps] + [-1] * len(top)
        keys = [os.path.splitext(os.path.relpath(p, root).replace(os.sep, "/"))[0] for p in paths]
        self._finish(paths, indices, keys)

    def _legacy_order(self):
        rel = [os.path.relpath(p, self.root).replace(os.sep, "/") for p, _ in self.samples]
        return sorted(range(len(rel)), key=rel.__getitem__)

    def __repr__(self):
        return (f"FolderSource(root={self.root!r}, {len(self)} samples, {len(self.classes)} classes"
                f"{'' if self.recursive else ', recursive=False'})")


class FileListSource(_IndexableSource):
    """An explicit list of image files (see the module doc): ``len(src)``, ``src[i]``,
    ``samples``, ``targets``, ``keys``, ``classes``, ``class_to_idx``."""

    _name = "augpy.data.FileListSource"

    def __init__(self, paths, labels=None, root=None, keys=None):
        func = self._name
        if isinstance(paths, (str, bytes, os.PathLike)):
            raise TypeError(f"{func}: paths must be a list of paths, got one {type(paths).__name__}")
        paths = list(paths)
        for p in paths:
            if not isinstance(p, (str, os.PathLike)):
                raise TypeError(f"{func}: every path must be a str or os.PathLike, got {type(p).__name__}")
        paths = [os.fspath(p) for p in paths]
        self.root = None if root is None else os.fspath(root)
        if keys is not None:
            keys = list(keys)
            if len(keys) != len(paths):
                raise ValueError(f"{func}: {len(keys)} keys for {len(paths)} paths")
            for k in keys:
                if not isinstance(k, str):
                    raise TypeError(f"{func}: every key must be a str, got {type(k).__name__}")
        elif self.root is not None:
            keys = []
            for p in paths:
                rel = os.path.relpath(p, self.root)
                if rel == os.pardir or rel.startswith(os.pardir + os.sep) or os.path.isabs(rel):
                    raise ValueError(f"{func}: {p!r} is not under root {self.root!r}")
                keys.append(os.path.splitext(rel.replace(os.sep, "/"))[0])
        else:
            keys = [os.path.splitext(p.replace(os.sep, "/"))[0] for p in paths]
        if labels is None:
            self.classes, indices = [], [-1] * len(paths)
        else:
            labels = list(labels)
            if len(labels) != len(paths):
                raise ValueError(f"{func}: {len(labels)} labels for {len(paths)} paths")
            if labels and all(isinstance(v, str) for v in labels):
                self.classes = sorted(set(labels))
                lookup = {name: i for i, name in enumerate(self.classes)}
                indices = [lookup[v] for v in labels]
            else:
                indices = []
                for v in labels:
                    if isinstance(v, (bool, np.bool_, str)) or not isinstance(v, (int, np.integer)):
                        raise TypeError(f"{func}: labels must be all ints (class indices) or all strs (class "
                                        f"names), got a {type(v).__name__} ({v!r})")
                    if v < -1:
                        raise ValueError(f"{func}: a class index must be >= 0 (or -1: unlabelled), got {int(v)}")
                    indices.append(int(v))
                self.classes = [str(i) for i in range(max(indices, default=-1) + 1)]
        self.class_to_idx = {name: i for i, name in enumerate(self.classes)}
        self._finish(paths, indices, keys)

    def __repr__(self):
        root = "" if self.root is None else f", root={self.root!r}"
        return f"FileListSource({len(self)} samples, {len(self.classes)} classes{root})"


# ---- tar shards ---------------------------------------------------------------------------------

_BRACES = re.compile(r"\{(\d+)\.\.(\d+)\}")


def expand_shards(pattern):
    """``'a-{000..002}.tar'`` -> ['a-000.tar', 'a-001.tar', 'a-002.tar'] (every brace
    range, zero padded to the width of its first bound); a list of patterns is
    expanded item by item."""
    if isinstance(pattern, (list, tuple)):
        return [s for p in pattern for s in expand_shards(p)]
    if not isinstance(pattern, (str, os.PathLike)):
        raise TypeError(f"augpy.data.expand_shards: expected a path or a list of paths, got {type(pattern).__name__}")
    pattern = os.fspath(pattern)
    m = _BRACES.search(pattern)
    if not m:
        return [pattern]
    lo, hi = int(m.group(1)), int(m.group(2))
    if hi < lo:
        raise ValueError(f"augpy.data.expand_shards: empty range {m.group(0)} in {pattern!r}")
    width = len(m.group(1))
    out = []
    for i in range(lo, hi + 1):
        out.extend(expand_shards(pattern[:m.start()] + str(i).zfill(width) + pattern[m.end():]))
    return out


def iter_shards(shards, image_extensions=IMAGE_EXTENSIONS, worker_id=None, num_workers=None, on_error="raise",
                max_image_bytes=MAX_IMAGE_BYTES, max_meta_bytes=MAX_META_BYTES, max_members=MAX_MEMBERS):
    """Yield ``(bytes, key, metadata)`` for the samples of WebDataset-style tar
    shards (a path, a brace pattern, or a list of them; see the module doc)."""
    func = "augpy.data.iter_shards"
    worker_id, num_workers = _check_worker(worker_id, num_workers, func)
    on_error = check_on_error(on_error, func)
    limits = check_limits(func, max_image_bytes, max_meta_bytes, max_members)
    ext = _extensions(image_extensions)
    return _iter_shards(expand_shards(shards)[worker_id::num_workers], ext, on_error, limits)


def _iter_shards(paths, ext, on_error, limits):
    for path in paths:
        yield from samples_of_tar(path, ext, on_error, limits)


def shuffled(samples, buffer_size, rng):
    """``samples`` (any iterable) through a shuffle buffer of ``buffer_size`` items, WebDataset's
    bounded scheme: the first buffer_size items fill it, then each new item takes the place of a
    random one (``rng.integers(buffer_size)``), which is emitted; at the end the rest come out in
    random order. An item moves forward by less than buffer_size places; 0 or 1 keeps the order.
    ``rng``: a numpy Generator (e.g. ``sample_generator(seed, epoch, worker)``)."""
    func = "augpy.data.shuffled"
    if isinstance(buffer_size, bool) or not isinstance(buffer_size, (int, np.integer)):
        raise TypeError(f"{func}: buffer_size must be an int, got {type(buffer_size).__name__}")
    if buffer_size < 0:
        raise ValueError(f"{func}: buffer_size must be >= 0, got {int(buffer_size)}")
    if buffer_size <= 1:
        return iter(samples)
    if not hasattr(rng, "integers"):
        raise TypeError(f"{func}: rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return _shuffle_buffer(iter(samples), int(buffer_size), rng)


def _shuffle_buffer(items, size, rng):
    """shuffled's buffer (size >= 1)."""
    buf = []
    for item in items:
        if len(buf) < size:
            buf.append(item)
            continue
        j = int(rng.integers(size))
        out, buf[j] = buf[j], item
        yield out
    while buf:
        j = int(rng.integers(len(buf)))
        buf[j], buf[-1] = buf[-1], buf[j]
        yield buf.pop()


class ShardSource:
    """WebDataset-style tar shards as a streamed source (see the module doc): ``src.samples(seed,
    epoch, shuffle, shuffle_buffer, worker_id, num_workers)`` for one worker's epoch, and the
    older ``src(worker_id, num_workers)`` (every num_workers-th shard, in order)."""

    _name = "augpy.data.ShardSource"

    def __init__(self, shards, image_extensions=IMAGE_EXTENSIONS, on_error="raise", max_image_bytes=MAX_IMAGE_BYTES,
                 max_meta_bytes=MAX_META_BYTES, max_members=MAX_MEMBERS):
        self.shards = expand_shards(shards)
        self.image_extensions = image_extensions
        self.on_error = check_on_error(on_error, self._name)
        self.limits = check_limits(self._name, max_image_bytes, max_meta_bytes, max_members)

    def __call__(self, worker_id, num_workers):
        worker_id, num_workers = _check_worker(worker_id, num_workers, self._name)
        return _iter_shards(self.shards[worker_id::num_workers], _extensions(self.image_extensions), self.on_error,
                            self.limits)

    def shard_order(self, seed, epoch, shuffle=True):
        """The shards in epoch ``epoch``'s order (``epoch_order`` of their count)."""
        return [self.shards[i] for i in epoch_order(len(self.shards), seed, epoch, shuffle)]

    def samples(self, seed=None, epoch=0, shuffle=False, shuffle_buffer=1000, worker_id=0, num_workers=1):
        """Worker ``worker_id``'s ``(bytes, key, metadata)`` of epoch ``epoch`` (see the module doc)."""
        func = f"{self._name}.samples"
        worker_id, num_workers = _check_worker(worker_id, num_workers, func)
        if isinstance(shuffle_buffer, bool) or not isinstance(shuffle_buffer, (int, np.integer)):
            raise TypeError(f"{func}: shuffle_buffer must be an int, got {type(shuffle_buffer).__name__}")
        if shuffle_buffer < 0:
            raise ValueError(f"{func}: shuffle_buffer must be >= 0, got {int(shuffle_buffer)}")
        if shuffle:
            seed = _check_u64(seed, "seed", func)
        elif seed is not None:
            _check_u64(seed, "seed", func)
        epoch = _check_u64(epoch, "epoch", func)
        ext = _extensions(self.image_extensions)
        mine = self.shard_order(seed, epoch, bool(shuffle))[worker_id::num_workers]

        stream = _iter_shards(mine, ext, self.on_error, self.limits)
        if not shuffle or shuffle_buffer <= 1:
            return stream
        return shuffled(stream, shuffle_buffer, np.random.default_rng([seed, epoch, worker_id, num_workers]))

    def __repr__(self):
        return f"ShardSource({len(self.shards)} shards)"


# ---- batches ------------------------------------------------------------------------------------

def _new_batch():
    return {"image": [], "augmentation": [], "key": [], "metadata": [], "index": []}


def batches(samples, batch_size, augment=None, rng=None, drop_last=False, seed=None, epoch=0, indices=None):
    """Group ``(bytes, key, metadata)`` samples into batch dicts of ``batch_size`` (the last
    one smaller unless drop_last): ``{'image', 'augmentation', 'key', 'metadata', 'index'}``.

    With ``seed``: each augmentation dict is ``{'rng': (seed, epoch, sample_id(key))}``,
    updated with ``augment(sample_generator(seed, epoch, sample_id(key)), key, metadata)``
    when augment is given. Without seed: ``augment(rng, key, metadata)`` draws from
    ``rng`` (a numpy Generator) in sample order, and without augment every dict is empty.
    ``indices``: an iterable parallel to samples giving ``'index'`` (else -1)."""
    func = "augpy.data.batches"
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise ValueError(f"{func}: batch_size must be a positive int, got {batch_size!r}")
    if augment is not None and not callable(augment):
        raise TypeError(f"{func}: augment must be a callable (rng, key, metadata) -> dict, "
                        f"got {type(augment).__name__}")
    if seed is not None:
        if rng is not None:
            raise ValueError(f"{func}: give seed (per-sample generators) or rng (one generator), not both")
        seed = _check_u64(seed, "seed", func)
        epoch = _check_u64(epoch, "epoch", func)
    elif augment is not None and rng is None:
        raise ValueError(f"{func}: augment needs an rng (numpy.random.Generator) or a seed")
    return _batches(samples, int(batch_size), augment, rng, drop_last, seed, epoch, indices, func)


def _batches(samples, batch_size, augment, rng, drop_last, seed, epoch, indices, func):
    index_iter = iter(indices) if indices is not None else None
    cur = _new_batch()
    for n, item in enumerate(samples):  # an exception of the source passes through unchanged
        try:
            data, key, meta = item
        except (TypeError, ValueError):
            raise TypeError(f"{func}: sample {n} must be a (data, key, metadata) tuple, "
                            f"got {type(item).__name__}") from None
        if not isinstance(data, (bytes, bytearray)):
            try:
                memoryview(data)
            except TypeError:
                raise TypeError(f"{func}: sample {n} (key {key!r}): the data must be bytes-like (the encoded "
                                f"file), got {type(data).__name__}") from None
        if index_iter is not None:
            try:
                index = next(index_iter)
            except StopIteration:
                raise ValueError(f"{func}: indices ran out at sample {n} (key {key!r}): give one per sample") \
                    from None
            if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
                raise TypeError(f"{func}: index of sample {n} (key {key!r}) must be an int, "
                                f"got {type(index).__name__}")
            index = int(index)
        else:
            index = -1
        if seed is not None:
            try:
                sid = _sample_id(key)
            except (TypeError, ValueError) as e:
                raise type(e)(f"{func}: sample {n}: key {key!r} cannot name a sample ({e})") from None
            aug = {"rng": (seed, epoch, sid)}
            if augment is not None:
                drawn = augment(sample_generator(seed, epoch, sid), key, meta)
                if not isinstance(drawn, dict):
                    raise TypeError(f"{func}: augment must return a dict (sample {n}, key {key!r}), "
                                    f"got {type(drawn).__name__}")
                aug.update(drawn)
        else:
            aug = augment(rng, key, meta) if augment is not None else {}
        cur["image"].append(data)
        cur["key"].append(key)
        cur["metadata"].append(meta)
        cur["augmentation"].append(aug)
        cur["index"].append(index)
        if len(cur["image"]) == batch_size:
            yield cur
            cur = _new_batch()
    if cur["image"] and not drop_last:
        yield cur


class RandomWarp:
    """A picklable ``augment`` callable: draws make_transform parameters.

    angle uniform in [-angle, angle] degrees; scale uniform in ``scale`` (lo, hi);
    aspect uniform in ``aspect``; shift (y, x) uniform in [-shift, shift];
    hmirror / vmirror with the given probabilities. Draw order per sample:
    angle, scale, aspect, shift y, shift x, hmirror, vmirror.
    """

    def __init__(self, angle=0.0, scale=(1.0, 1.0), aspect=(1.0, 1.0), shift=0.0, hmirror=0.0, vmirror=0.0):
        self.angle = float(angle)
        self.scale = tuple(float(v) for v in scale)
        self.aspect = tuple(float(v) for v in aspect)
        self.shift = float(shift)
        self.hmirror = float(hmirror)
        self.vmirror = float(vmirror)
        for name, (lo, hi) in (("scale", self.scale), ("aspect", self.aspect)):
            if not 0 < lo <= hi:
                raise ValueError(f"RandomWarp: {name} must be (lo, hi) with 0 < lo <= hi, got {(lo, hi)}")
        for name, p in (("hmirror", self.hmirror), ("vmirror", self.vmirror)):
            if not 0 <= p <= 1:
                raise ValueError(f"RandomWarp: {name} is a probability in [0, 1], got {p}")

    def __call__(self, rng, key=None, metadata=None):
        """{'angle', 'scale', 'aspect', 'shift', 'hmirror', 'vmirror'}: make_transform's keyword arguments."""
        return {
            "angle": float(rng.uniform(-self.angle, self.angle)),
            "scale": float(rng.uniform(*self.scale)),
            "aspect": float(rng.uniform(*self.aspect)),
            "shift": (float(rng.uniform(-self.shift, self.shift)), float(rng.uniform(-self.shift, self.shift))),
            "hmirror": bool(rng.random() < self.hmirror),
            "vmirror": bool(rng.random() < self.vmirror),
        }
