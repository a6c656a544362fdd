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
and threads (``_fill``), overriding the per-image ``_decode_warp`` and its
whole-image warp ``_warp_whole`` (which a batch decoded in one nvJPEG call also
takes; a stage that overrides ``_decode_warp`` alone decodes file by file).
``decode_warp`` is DecodeWarp's decode + warp of one image as a function.
``Lighting`` applies ``augpy.lighting`` to such a batch in place. Both take a
batch dict ``{'image': ..., 'augmentation': [dict, ...]}``; each augmentation
dict holds keyword arguments of ``make_transform`` (DecodeWarp; also ``interpolation``,
'bilinear' / 'bicubic' / 'nearest', the warp of that image) or the keys
``gamma_gray``, ``gamma_color``, ``contrast`` (Lighting). Missing keys take the
documented defaults; an explicit value, 0 included, is always used.

Randomness (one model for every stage and for ``augpy.torch.StageDataset`` /
``augpy.ray``): each image's augmentation dict carries ``'rng': (seed, epoch,
sample)``; a stage that draws (``ImageNetTrain``: crops and flips, ``ColorJitter``:
factors and order) draws image k's values from the Philox generator state
``(augpy.stream_seed(seed, epoch, stage.stream), sample)``, ``stream`` being the
class's name. So a draw is a pure function of (seed, epoch, sample, stream), never
of the thread, the DataLoader worker, the batch position or of earlier draws, and a
recorded dict given back with its image replays it. StageDataset sets ``rng`` =
(its seed, the epoch, ``augpy.sample_id(key)``); a stage called with dicts without
``rng`` sets (its ``seed``, or entropy drawn once, 0, the running count of images).

Bad files: the decoding stages take ``on_error='raise' | 'skip' | 'warn'``
(``augpy.DecodeError`` naming the image, or the image left out of the batch and
listed in ``batch['skipped']``). Every stage pickles (its parameters and counts).

The code: augpy/_decode_stage.py (DecodeWarp and the shared helpers),
augpy/_imagenet_stages.py (the ImageNet stages and recipes), augpy/_colour_stages.py
(Lighting, ColorJitter, Normalize), augpy/_crop.py (RandomCrop), augpy/_random_stages.py
(RandomGrayscale, RandomGaussianBlur, RandomJpegQuality); the policies and mixing: augpy/_policies.py
(RandAugment, TrivialAugmentWide), _autoaugment.py, _augmix.py, _timm.py (timm's
RandAugment), _timm_3a.py (timm's three-augment ops and AutoAugment '3a'), _mixing.py (MixUp, CutMix), _timm_mixup.py (timm's Mixup), _erasing.py and
_combinators.py (docs/policies.md); _recipes.py (timm_train, cifar_train).
"""
from ._colour_stages import IMAGENET_MEAN, IMAGENET_STD  # noqa: F401 (public constants)
from ._colour_stages import ColorJitter, Lighting, Lightning, Normalize
from ._decode_stage import WARP_KEYS, DecodeWarp, decode_warp  # noqa: F401 (WARP_KEYS: public)
from ._imagenet_stages import ImageNetEval, ImageNetTrain, imagenet_eval, imagenet_train
from ._combinators import Compose, OneOf, RandomApply, RandomChoice
from ._erasing import RandomErasing
from ._perspective_stage import RandomPerspective
from ._mixing import CutMix, MixUp, cutmix, mixup
from ._policies import OPS as POLICY_OPS  # noqa: F401 (public constant)
from ._policies import RandAugment, TrivialAugmentWide, apply_policy
from ._crop import RandomCrop
from ._random_stages import RandomGaussianBlur, RandomGrayscale, RandomJpegQuality
from ._autoaugment import AutoAugment
from ._augmix import AugMix, apply_augmix
from ._timm_mixup import Mixup
from ._timm import TIMM_OPS, TimmRandAugment, apply_timm_policy, rand_augment_transform
from ._timm_3a import TimmAutoAugment, auto_augment_transform
from ._recipes import CIFAR_MEAN, CIFAR_STD, cifar_train, timm_train  # noqa: F401 (CIFAR_*: public)

__all__ = ["ColorJitter", "DecodeWarp", "decode_warp", "ImageNetEval", "ImageNetTrain", "Lighting", "Lightning",
           "Normalize", "POLICY_OPS", "RandAugment", "RandomErasing", "TrivialAugmentWide", "apply_policy",
           "imagenet_eval", "imagenet_train", "MixUp", "CutMix", "mixup", "cutmix", "Compose",
           "RandomApply", "RandomChoice", "OneOf", "RandomCrop", "RandomGrayscale", "RandomGaussianBlur",
           "RandomJpegQuality", "AutoAugment", "AugMix", "apply_augmix", "Mixup", "TIMM_OPS",
           "TimmRandAugment", "apply_timm_policy", "rand_augment_transform", "TimmAutoAugment",
           "auto_augment_transform", "timm_train",
           "cifar_train", "RandomPerspective"]

# The public names live here (their reprs, pickles and docs say augpy.image).
for _obj in (ColorJitter, DecodeWarp, decode_warp, ImageNetEval, ImageNetTrain, Lighting, Normalize, RandAugment,
             RandomErasing, TrivialAugmentWide, apply_policy, imagenet_eval, imagenet_train, MixUp,
             CutMix, mixup, cutmix, Compose, RandomApply, RandomChoice, OneOf, RandomCrop,
             RandomGrayscale, RandomGaussianBlur, RandomJpegQuality, AutoAugment, AugMix, apply_augmix,
             Mixup, TimmRandAugment, apply_timm_policy, rand_augment_transform, TimmAutoAugment,
             auto_augment_transform, timm_train, cifar_train, RandomPerspective):
    _obj.__module__ = __name__
del _obj
