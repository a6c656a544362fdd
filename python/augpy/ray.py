"""augpy.ray: decode and augment Ray Data batches (docs/scale-out.md).

Imported only on request (``import augpy.ray``): it imports ray, which
``import augpy`` never does.

``DecodeAugment`` is a callable class for ``Dataset.map_batches``: it takes a batch
of ``ray.data.read_binary_files(..., include_paths=True)`` rows (``{'bytes': ...,
'path': ...}``), decodes and warps them with ``augpy.image.DecodeWarp`` (plus any
further stages) and returns ``{'image': (n, C, H, W) numpy array, 'path': ...}``::

    ds = ray.data.read_binary_files("s3://bucket/train", include_paths=True)
    ds = ds.map_batches(augpy.ray.DecodeAugment, fn_constructor_kwargs=dict(shape=(3, 224, 224),
                        augment=augpy.data.RandomWarp(angle=10, hmirror=0.5), seed=1),
                        batch_size=64, concurrency=4, num_cpus=1, batch_format="numpy")

``decode_augment`` does the same as a plain function (a Ray task per block).

Seeds: each row's augmentation is drawn from a numpy Generator seeded with
``SeedSequence([seed, epoch, crc32(path)])``: the same row gets the same
augmentation however Ray splits the data into blocks and batches and whichever
actor runs it, so a run is reproducible and equal to an in-process run
(``DecodeAugment(...)(batch)``) with the same seed. Pass a new ``epoch`` for a new
stream.

The returned images are copies (numpy), so the DecodeWarp ring buffer is never
handed to Ray (its ownership rule: a batch stays valid for num_buffers - 1 further
calls).
"""
import importlib
import zlib

import numpy as np

from . import _augpy
from . import image as _image

# This module is for Ray: importing it without ray fails here (importlib keeps type
# checkers from requiring ray's stubs).
ray = importlib.import_module("ray")

__all__ = ["DecodeAugment", "decode_augment", "row_rng"]


def row_rng(seed, path, epoch=0):
    """The Generator of one row: ``SeedSequence([seed, epoch, crc32(path)])``."""
    p = path if isinstance(path, bytes) else str(path).encode("utf-8")
    return np.random.default_rng(np.random.SeedSequence([int(seed), int(epoch), zlib.crc32(p)]))


class DecodeAugment:
    """Callable class for ``map_batches`` (see the module doc).

    :param shape: (C, H, W) of the output images
    :param augment: ``augment(rng, key, metadata) -> make_transform kwargs`` (e.g.
        ``augpy.data.RandomWarp``); None: no augmentation
    :param seed: base seed of the per-row Generators
    :param epoch: mixed into the seeds
    :param background, dtype, cpu_threads, dct_scale: passed to DecodeWarp
    :param stages: callable returning further stages run after DecodeWarp (e.g.
        ``lambda: [augpy.image.Lighting(64)]``), or None
    :param max_batch_size: the DecodeWarp buffers' batch size; larger batches are
        processed in pieces
    """

    def __init__(self, shape=(3, 224, 224), augment=None, seed=0, epoch=0, background=None, dtype=None,
                 cpu_threads=1, stages=None, max_batch_size=256, dct_scale=None):
        self.shape = tuple(shape)
        self.augment = augment
        self.seed = int(seed)
        self.epoch = int(epoch)
        self.max_batch_size = int(max_batch_size)
        self.decode_warp = _image.DecodeWarp(self.max_batch_size, self.shape, background=background, dtype=dtype,
                                             cpu_threads=cpu_threads, num_buffers=2, dct_scale=dct_scale)
        self.stages = list(stages()) if stages is not None else []

    def __call__(self, batch):
        func = "augpy.ray.DecodeAugment"
        if not isinstance(batch, dict) or "bytes" not in batch:
            raise TypeError(f"{func}: expected a dict batch with a 'bytes' column (read_binary_files rows), "
                            f"got {type(batch).__name__}")
        data = list(batch["bytes"])
        paths = list(batch["path"]) if "path" in batch else [str(i) for i in range(len(data))]
        if len(paths) != len(data):
            raise ValueError(f"{func}: {len(paths)} paths for {len(data)} rows")
        images = []
        for start in range(0, len(data), self.max_batch_size):
            part = slice(start, start + self.max_batch_size)
            augmentation = []
            for p in paths[part]:
                augmentation.append({} if self.augment is None else
                                    self.augment(row_rng(self.seed, p, self.epoch), p, {"path": p}))
            b = {"image": [bytes(d) for d in data[part]], "augmentation": augmentation}
            b = self.decode_warp(b)
            for stage in self.stages:
                b = stage(b)
            images.append(b["image"].numpy())  # a copy: the ring buffer stays augpy's
        out = dict(batch)
        del out["bytes"]
        out["image"] = (np.concatenate(images) if images else
                        np.zeros((0,) + self.shape, dtype=_augpy.to_numpy_dtype(self.decode_warp.dtype)))
        out["path"] = np.asarray(paths)
        return out


def decode_augment(batch, shape=(3, 224, 224), augment=None, seed=0, epoch=0, **kwargs):
    """``DecodeAugment(shape, augment, seed, epoch, **kwargs)(batch)`` as a plain function
    (for ``map_batches(augpy.ray.decode_augment, fn_kwargs=...)`` as Ray tasks)."""
    return DecodeAugment(shape, augment, seed, epoch, max_batch_size=max(1, len(batch.get("bytes", ()))),
                         **kwargs)(batch)
