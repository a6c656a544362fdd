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

The code: augpy/_decode_stage.py (DecodeWarp and the shared helpers),
augpy/_imagenet_stages.py (the ImageNet stages and recipes), augpy/_colour_stages.py
(Lighting, ColorJitter, Normalize).
"""
from ._colour_stages import IMAGENET_MEAN, IMAGENET_STD  # noqa: F401 (public constants)
from ._colour_stages import ColorJitter, Lighting, Lightning, Normalize
from ._decode_stage import WARP_KEYS, DecodeWarp  # noqa: F401 (WARP_KEYS: public)
from ._imagenet_stages import ImageNetEval, ImageNetTrain, imagenet_eval, imagenet_train

__all__ = ["ColorJitter", "DecodeWarp", "ImageNetEval", "ImageNetTrain", "Lighting", "Lightning", "Normalize",
           "imagenet_eval", "imagenet_train"]

# The public names live here (their reprs, pickles and docs say augpy.image).
for _obj in (ColorJitter, DecodeWarp, ImageNetEval, ImageNetTrain, Lighting, Normalize, imagenet_eval, imagenet_train):
    _obj.__module__ = __name__
del _obj
