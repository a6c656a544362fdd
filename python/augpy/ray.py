"""augpy.ray: decode and augment Ray Data batches (docs/scale-out.md).

Imported only on request (``import augpy.ray``): it imports ray, which
``import augpy`` never does.

``StageAugment`` is a callable class for ``Dataset.map_batches``: it takes a batch
of ``ray.data.read_binary_files(..., include_paths=True)`` rows (``{'bytes': ...,
'path': ...}``), runs them through augpy batch stages (built once per actor by
``make_stages``) and returns ``{'image': (n, C, H, W) numpy array, 'label': int64}``
(label only when ``root`` is given: the class folder's index, as
``augpy.data.FolderSource(root)`` numbers them). ``ImageNetTrain`` is it with the
ImageNet training recipe (random resized crop, flip, colour jitter, normalize:
``augpy.image.imagenet_train``)::

    ds = ray.data.read_binary_files("/data/train", include_paths=True)
    ds = ds.map_batches(augpy.ray.ImageNetTrain, fn_constructor_kwargs=dict(root="/data/train", seed=0,
                        epoch=epoch, size=224), batch_size=64, num_cpus=1, batch_format="numpy",
                        compute=ray.data.ActorPoolStrategy(min_size=1, max_size=cpus - 1))
    for batch in ds.iter_torch_batches(batch_size=64): ...

(Size the actor pool below the cluster's CPUs: the read tasks need CPUs too, and a pool
that holds them all waits for ever; docs/scale-out.md.)

``DecodeAugment`` is the decode + warp stage alone (``augpy.image.DecodeWarp`` with
``augment=`` draws such as ``augpy.data.RandomWarp``), ``decode_augment`` the same as a
plain function (a Ray task per block).

Seeds: the seed model of augpy.image. A row's key is its path relative to ``root``
without the extension (the key ``augpy.data.FolderSource(root)`` gives it; without
root, the path without the extension), and its augmentation dict's ``rng`` is
``(seed, epoch, augpy.sample_id(key))``: the same row gets the same augmentation
however Ray splits the data into blocks and batches, whichever actor runs it and
however many there are, and the same as ``augpy.torch.StageDataset`` gives that sample
with the same seed and epoch. Pass a new ``epoch`` for a new stream.

The returned images are copies (numpy), so a stage's ring buffer is never handed to
Ray. The outputs hold no string column (``iter_torch_batches`` cannot convert one);
``keep_paths=True`` adds ``'path'``. Bad files follow the stages' ``on_error`` (skipped
rows are left out of the output).
"""
import importlib
import os
import zlib

import numpy as np

from . import _augpy
from . import data as _data
from . import image as _image

# This module is for Ray: importing it without ray fails here (importlib keeps type
# checkers from requiring ray's stubs).
ray = importlib.import_module("ray")

__all__ = ["StageAugment", "ImageNetTrain", "DecodeAugment", "decode_augment", "row_key", "row_rng"]


def row_key(path, root=None):
    """The key of a row: its path relative to ``root`` without the extension ('/'
    separated), as ``augpy.data.FolderSource(root)`` keys it; the path without its
    extension when root is None."""
    path = os.fsdecode(path) if isinstance(path, (bytes, os.PathLike)) else str(path)
    if root is not None:
        path = os.path.relpath(path, os.fspath(root)).replace(os.sep, "/")
    return os.path.splitext(path)[0]


def row_rng(seed, path, epoch=0):
    """Legacy: the numpy Generator ``SeedSequence([seed, epoch, crc32(path)])`` of augpy
    before the seed model (kept for code that recorded its draws)."""
    p = path if isinstance(path, bytes) else str(path).encode("utf-8")
    return np.random.default_rng(np.random.SeedSequence([int(seed), int(epoch), zlib.crc32(p)]))


class StageAugment:
    """Callable class for ``map_batches`` (see the module doc).

    :param make_stages: callable returning the stages (a stage or a list; the first
        takes the encoded images), e.g. ``functools.partial(augpy.image.imagenet_train, 64)``
    :param seed, epoch: the seed model's seed and epoch
    :param root: the folder the paths are under (keys and class labels as
        ``FolderSource(root)``); None: keys are the paths, no labels
    :param augment: ``augment(generator, key, metadata) -> dict`` per row (as StageDataset's)
    :param on_error: None: the stages' own; ``'raise'``, ``'skip'`` or ``'warn'``
    :param keep_paths: also return the ``'path'`` column (a string column)
    """

    def __init__(self, make_stages, seed=0, epoch=0, root=None, augment=None, on_error=None, keep_paths=False):
        func = type(self).__name__
        stages = make_stages()
        self.stages = list(stages) if isinstance(stages, (list, tuple)) else [stages]
        if not self.stages:
            raise ValueError(f"augpy.ray.{func}: make_stages returned no stage")
        if on_error is not None:
            for s in self.stages:
                if hasattr(s, "on_error"):
                    s.on_error = on_error
        self.seed, self.epoch = int(seed), int(epoch)
        self.root = None if root is None else os.fspath(root)
        self.classes = _data.FolderSource(self.root).class_to_idx if self.root is not None else None
        self.augment = augment
        self.keep_paths = bool(keep_paths)
        self.max_batch_size = int(getattr(self.stages[0], "batch_size", 256))

    def _metadata(self, path, key):
        meta = {"path": path}
        if self.classes is not None:
            label = key.split("/", 1)[0] if "/" in key else ""
            meta["label"], meta["class_index"] = label, self.classes.get(label, -1)
        return meta

    def __call__(self, batch):
        """The rows of ``batch`` decoded and augmented: 'image' (and 'label', 'path') numpy arrays."""
        func = f"augpy.ray.{type(self).__name__}"
        if not isinstance(batch, dict) or "bytes" not in batch:
            raise TypeError(f"{func}: expected a dict batch with a 'bytes' column (read_binary_files rows), "
                            f"got {type(batch).__name__}")
        data = list(batch["bytes"])
        paths = [str(p) for p in batch["path"]] if "path" in batch else [str(i) for i in range(len(data))]
        if len(paths) != len(data):
            raise ValueError(f"{func}: {len(paths)} paths for {len(data)} rows")
        images, labels, kept = [], [], []
        for start in range(0, len(data), self.max_batch_size):
            part = range(start, min(start + self.max_batch_size, len(data)))
            samples = []
            for i in part:
                key = row_key(paths[i], self.root)
                samples.append((bytes(data[i]), key, self._metadata(paths[i], key)))
            b = next(_data.batches(samples, len(samples), self.augment, seed=self.seed, epoch=self.epoch,
                                   indices=list(part)))
            for stage in self.stages:
                b = stage(b)
            images.append(b["image"].numpy())  # a copy: the ring buffer stays augpy's
            labels.extend(m.get("class_index", -1) for m in b["metadata"])
            kept.extend(b["index"])
        out = {k: v for k, v in batch.items() if k not in ("bytes", "path")}
        if len(kept) != len(data):
            out = {k: np.asarray(v)[kept] for k, v in out.items()}
        out["image"] = (np.concatenate(images) if images else
                        np.zeros((0,) + tuple(getattr(self.stages[0], "shape", ())), dtype=np.uint8))
        if self.classes is not None:
            out["label"] = np.asarray(labels, dtype=np.int64)
        if self.keep_paths:
            out["path"] = np.asarray([paths[i] for i in kept])
        return out


class ImageNetTrain(StageAugment):
    """``StageAugment`` with the ImageNet training recipe ``augpy.image.imagenet_train``
    (random resized crop + flip, ``ColorJitter(*jitter)``, ``Normalize``): the same
    images as ``augpy.torch.StageDataset`` with that recipe gives for the same keys,
    seed and epoch.

    :param root, seed, epoch, on_error, keep_paths: as StageAugment
    :param batch_size: the stage's batch size (rows are processed in pieces of it)
    :param recipe: keyword arguments of ``augpy.image.imagenet_train`` (size, scale,
        ratio, jitter, mean, std, dtype, layout, cpu_threads, ...)
    """

    def __init__(self, root=None, seed=0, epoch=0, batch_size=64, on_error=None, keep_paths=False, **recipe):
        super().__init__(lambda: _image.imagenet_train(batch_size, **recipe), seed=seed, epoch=epoch, root=root,
                         on_error=on_error, keep_paths=keep_paths)


class DecodeAugment(StageAugment):
    """Callable class for ``map_batches``: ``augpy.image.DecodeWarp`` with per-row
    ``augment`` draws (see the module doc).

    :param shape: (C, H, W) of the output images
    :param augment: ``augment(generator, key, metadata) -> make_transform kwargs`` (e.g.
        ``augpy.data.RandomWarp``); None: no augmentation
    :param seed, epoch, root, on_error, keep_paths: as StageAugment
    :param background, dtype, cpu_threads, dct_scale: passed to DecodeWarp
    :param stages: callable returning further stages run after DecodeWarp (e.g.
        ``lambda: [augpy.image.Lighting(64)]``), or None
    :param max_batch_size: the DecodeWarp buffers' batch size; larger batches are
        processed in pieces
    """

    def __init__(self, shape=(3, 224, 224), augment=None, seed=0, epoch=0, background=None, dtype=None,
                 cpu_threads=1, stages=None, max_batch_size=256, dct_scale=None, root=None, on_error=None,
                 keep_paths=False):
        shape = tuple(shape)

        def make():
            warp = _image.DecodeWarp(int(max_batch_size), shape, background=background, dtype=dtype,
                                     cpu_threads=cpu_threads, num_buffers=2, dct_scale=dct_scale)
            return [warp] + (list(stages()) if stages is not None else [])

        super().__init__(make, seed=seed, epoch=epoch, root=root, augment=augment, on_error=on_error,
                         keep_paths=keep_paths)
        self.shape = shape
        self.decode_warp = self.stages[0]

    def __call__(self, batch):
        out = super().__call__(batch)
        if len(out["image"]) == 0:
            out["image"] = np.zeros((0,) + self.shape, dtype=_augpy.to_numpy_dtype(self.decode_warp.dtype))
        return out


def decode_augment(batch, shape=(3, 224, 224), augment=None, seed=0, epoch=0, **kwargs):
    """``DecodeAugment(shape, augment, seed, epoch, **kwargs)(batch)`` as a plain function
    (for ``map_batches(augpy.ray.decode_augment, fn_kwargs=...)`` as Ray tasks)."""
    return DecodeAugment(shape, augment, seed, epoch, max_batch_size=max(1, len(batch.get("bytes", ()))),
                         **kwargs)(batch)
