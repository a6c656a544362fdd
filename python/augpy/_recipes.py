"""augpy/_recipes.py: the training recipes of today as one call each, over imagenet_train's
stage chain (re-exported by augpy.image): ``timm_train`` (timm's ``create_transform`` for
DeiT / ConvNeXt / ViT: RRC + flip + RandAugment + normalize + RandomErasing, MixUp/CutMix as the
last stage) and ``cifar_train`` (random crop with padding 4 + flip + normalize)."""
from ._colour_stages import IMAGENET_MEAN, IMAGENET_STD
from ._crop import RandomCrop
from ._erasing import RandomErasing
from ._imagenet_stages import _stage_list, imagenet_train
from ._timm import rand_augment_transform
from ._timm_3a import auto_augment_transform
from ._timm_mixup import Mixup

# torchvision's CIFAR-10 statistics (the reference scripts' values) times 255.
CIFAR_MEAN = (0.4914 * 255, 0.4822 * 255, 0.4465 * 255)
CIFAR_STD = (0.2470 * 255, 0.2435 * 255, 0.2616 * 255)


def _policy(auto_augment, mean, seed, func):
    """timm's auto_augment argument: None, a 'rand-...' string (timm's fill: the mean rounded), timm's
    AutoAugment '3a' ('3a-mstd0.5': auto_augment_transform, as create_transform sends it) or a stage."""
    if auto_augment is None or callable(auto_augment):
        return auto_augment
    if isinstance(auto_augment, str) and auto_augment.startswith("rand"):
        fill = tuple(min(255, int(round(float(m)))) for m in mean)
        return rand_augment_transform(auto_augment, seed=seed, fill=fill, translate_pct=0.45)
    if isinstance(auto_augment, str) and auto_augment.split("-")[0] == "3a":
        return auto_augment_transform(auto_augment, seed=seed)
    raise ValueError(f"{func}: auto_augment must be None, a timm RandAugment string ('rand-m9-mstd0.5-inc1'), "
                     f"'3a' or a stage, got {auto_augment!r}")


def _mixing(mixup, seed, func):
    if mixup is None or callable(mixup):
        return mixup
    if isinstance(mixup, dict):
        return Mixup(**dict({"seed": seed}, **mixup))
    raise ValueError(f"{func}: mixup must be None, a dict of augpy.image.Mixup's arguments or a stage, "
                     f"got {mixup!r}")


def timm_train(batch_size, size=224, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), hflip=0.5,
               auto_augment="rand-m9-mstd0.5-inc1", re_prob=0.25, re_mode="pixel", re_count=1, mixup=None,
               mean=IMAGENET_MEAN, std=IMAGENET_STD, dtype=None, layout="NCHW", seed=None, interpolation="bilinear",
               **kwargs):
    """timm's training transform (``timm.data.create_transform(is_training=True)``, DeiT's and
    ConvNeXt's recipe) as one stage: ImageNetTrain (region decode, random resized crop ``size``
    with ``scale`` / ``ratio``, flip ``hflip``) -> timm's RandAugment (``auto_augment``: a timm
    string, filled with the mean as timm does, or any stage; None: none) on the uint8 pixels ->
    Normalize -> RandomErasing(``re_prob``, ``re_mode`` 'const' | 'rand' | 'pixel', up to
    ``re_count`` rectangles) on the normalised floats -> ``mixup``: None, a dict of
    ``augpy.image.Mixup``'s arguments (DeiT: ``dict(mixup_alpha=0.8, cutmix_alpha=1.0,
    label_smoothing=0.1, num_classes=1000)``) or a mixing stage, which takes the labels from the
    batch's metadata and leaves ``batch['target']`` (StageDataset yields it). Colour jitter is
    off, as in timm when auto_augment is set. ``interpolation``: the crop's resize, ``'bilinear'``
    (the default), ``'bicubic'`` or ``'random'`` (each image draws one of the two, as timm's
    ``RandomResizedCropAndInterpolation`` does with timm's train.py default
    ``--train-interpolation random``; recorded in its dict), with augpy's supersampled warp
    (ImageNetTrain's ``interpolation``). kwargs go to ImageNetTrain (cpu_threads,
    num_buffers, dct_scale, on_error, ...). Differences from timm: the crop is resized with
    augpy's supersampled warp (PIL's resize filters differ: docs/warp.md "Bicubic"), and the
    policy's ops are augpy's (docs/policies.md says where they differ from PIL's)."""
    func = "timm_train"
    re_prob = float(re_prob)
    if not 0.0 <= re_prob <= 1.0:
        raise ValueError(f"{func}: re_prob must be in [0, 1], got {re_prob!r}")
    after = []
    if re_prob > 0:
        after.append(RandomErasing(p=re_prob, mode=re_mode, min_count=1, max_count=re_count, seed=seed))
    mix = _mixing(mixup, seed, func)
    if mix is not None:
        after.append(mix)
    return imagenet_train(batch_size, size, jitter=None, mean=mean, std=std, dtype=dtype, layout=layout, seed=seed,
                          policy=_policy(auto_augment, mean, seed, func), after=after, scale=scale, ratio=ratio,
                          hflip=hflip, interpolation=interpolation, **kwargs)


def cifar_train(batch_size, size=32, padding=4, hflip=0.5, mean=CIFAR_MEAN, std=CIFAR_STD, policy=None, after=None,
                dtype=None, layout="NCHW", seed=None, **kwargs):
    """The CIFAR training recipe (torchvision's and most papers'): each image decoded and taken
    whole at ``size`` x ``size`` (ImageNetTrain with scale and ratio 1: an exact copy for a
    size x size image), flipped with probability ``hflip``, ``RandomCrop(size, padding)`` (zero
    padding) -> ``policy`` (stages on the uint8 pixels, e.g. AutoAugment('cifar10')) ->
    Normalize with CIFAR-10's statistics -> ``after`` (stages on the floats, e.g. RandomErasing
    or a Mixup). kwargs go to ImageNetTrain."""
    func = "cifar_train"
    crop = RandomCrop(size, padding=padding, seed=seed)
    return imagenet_train(batch_size, size, jitter=None, mean=mean, std=std, dtype=dtype, layout=layout, seed=seed,
                          policy=[crop] + _stage_list(policy, func, "policy"), after=after, scale=(1.0, 1.0),
                          ratio=(1.0, 1.0), hflip=hflip, **kwargs)
