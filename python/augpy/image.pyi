"""Stubs of augpy.image: the batch stages (augpy/_decode_stage.py, augpy/_imagenet_stages.py,
augpy/_colour_stages.py). Every stage is a callable batch dict -> batch dict
(``{'image': ..., 'augmentation': [dict, ...], ...}``: ``Dict[str, Any]``)."""
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, SupportsIndex, Tuple, TypedDict, Union

import numpy
import numpy.typing
from typing_extensions import Unpack

from ._augpy import Tensor, _DTypeLike, _RangeLike
from ._crop import RandomCrop as RandomCrop
from ._random_stages import RandomGaussianBlur as RandomGaussianBlur
from ._random_stages import RandomGrayscale as RandomGrayscale
from ._random_stages import RandomJpegQuality as RandomJpegQuality

__all__ = [
    "ColorJitter", "DecodeWarp", "decode_warp", "ImageNetEval", "ImageNetTrain", "Lighting", "Lightning",
    "Normalize", "POLICY_OPS", "RandAugment", "RandomErasing", "TrivialAugmentWide", "apply_policy",
    "imagenet_eval", "imagenet_train", "MixUp", "CutMix", "mixup", "cutmix", "Compose", "RandomApply",
    "RandomChoice", "OneOf", "RandomCrop", "RandomGrayscale", "RandomGaussianBlur", "RandomJpegQuality",
    "AutoAugment", "AugMix", "apply_augmix", "Mixup", "TIMM_OPS", "TimmRandAugment", "apply_timm_policy",
    "rand_augment_transform", "TimmAutoAugment", "auto_augment_transform", "timm_train", "cifar_train",
    "RandomPerspective",
]

_Batch = Dict[str, Any]
# A stage, or any callable taking and returning a batch dict (``transforms=``).
_Stage = Callable[[Dict[str, Any]], Dict[str, Any]]
# One stage or a list of them (the recipes' policy= and after=).
_Stages = Union[_Stage, Sequence[_Stage]]
# An int the runtime checks with isinstance(v, (int, numpy.integer)) (bool is refused there).
_Int = Union[int, numpy.integer[Any]]
# An int or (height, width).
_SizeLike = Union[_Int, Sequence[_Int]]
# One value per channel (or one for all): a number, a sequence or an array.
_PerChannel = Union[float, Sequence[float], numpy.typing.NDArray[Any]]
# C background values: a tensor, a sequence or an array; None: zeros.
_Background = Union[Tensor, Sequence[float], numpy.typing.NDArray[Any], None]
# A seed: None (entropy drawn once) or an int in [0, 2**64).
_Seed = Optional[SupportsIndex]

# torchvision's ImageNet statistics in pixel units (0..255)
IMAGENET_MEAN: Tuple[float, float, float]
IMAGENET_STD: Tuple[float, float, float]
# make_transform's keyword arguments that an augmentation dict may carry
WARP_KEYS: Tuple[str, ...]


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
    ``box_format``, ``box_params``, ``ignore_index``)."""

    box_format: str
    box_params: Optional[Dict[str, Any]]
    ignore_index: int
    on_error: str
    skipped: int
    batch_size: int
    shape: Tuple[int, int, int]
    dtype: _DTypeLike
    cpu_threads: int
    num_buffers: int
    background: Tensor
    decode_buffer_size: Optional[int]
    max_pixels: Optional[int]
    dct_scale: Optional[bool]
    decode_dtype: _DTypeLike
    interpolation: str
    buffers: List[Tensor]
    def __init__(self, batch_size: _Int, shape: Sequence[_Int], background: _Background = None,
                 dtype: Optional[_DTypeLike] = None, cpu_threads: _Int = 1, num_buffers: _Int = 2,
                 decode_buffer_size: Optional[_Int] = None, max_pixels: Optional[_Int] = None,
                 dct_scale: Optional[bool] = None, on_error: str = "raise",
                 decode_dtype: Optional[_DTypeLike] = None, interpolation: str = "bilinear") -> None: ...
    def __call__(self, batch: _Batch) -> _Batch:
        """Decode ``batch['image']`` (a list of JPEG or PNG files: bytes-like,
        paths or DLPack tensors) and warp each image with its
        ``batch['augmentation']`` dict into the next batch buffer.
        Returns ``batch`` with ``'image'`` replaced by the (n, C, H, W) batch."""
    def finalize_batch(self, buffer: Tensor) -> Tensor:
        """Make a batch buffer (or a view of one) ready for use on the caller's
        current stream and return it: that stream waits for the decodes and
        warps queued for it (on the CPU they have ended when the calls return).
        Nothing blocks the host; numpy() or DLPack with the consumer's stream
        see the final values."""
    def close(self) -> None:
        """Stop the decoder threads (also done when the object is collected)."""
    def __del__(self) -> None: ...


def decode_warp(data: Any, out: Tensor, background: _Background = None, decoder: Any = None,
                dct_scale: Union[bool, int, None] = None, matrix: Any = None, supersampling: _Int = 1,
                **warp: Any) -> Dict[str, Any]:
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
    :returns: ``{'matrix', 'source_size', 'dct_scale'}`` as DecodeWarp records them"""


class _RecipeKwargs(TypedDict, total=False):
    """ImageNetTrain's parameters that timm_train and cifar_train pass on (their **kwargs)."""

    cpu_threads: _Int
    num_buffers: _Int
    max_supersampling: int
    dct_scale: Optional[bool]
    background: _Background
    decode_buffer_size: Optional[_Int]
    max_pixels: Optional[_Int]
    on_error: str
    decode_dtype: Optional[_DTypeLike]


class _ImageNetTrainKwargs(_RecipeKwargs, total=False):
    """ImageNetTrain's parameters that imagenet_train passes on (its **kwargs)."""

    scale: Sequence[float]
    ratio: Sequence[float]
    hflip: float
    interpolation: str


class _ImageNetEvalKwargs(TypedDict, total=False):
    """ImageNetEval's parameters that imagenet_eval passes on (its **kwargs)."""

    cpu_threads: _Int
    num_buffers: _Int
    max_supersampling: int
    dct_scale: Optional[bool]
    background: _Background
    decode_buffer_size: Optional[_Int]
    max_pixels: Optional[_Int]
    on_error: str
    decode_dtype: Optional[_DTypeLike]


class ImageNetTrain(DecodeWarp):
    """ImageNet-style training stage: RandomResizedCrop + horizontal flip, decoded
    with DCT scaling and regions, into uint8 (N, 3, size, size) batches.

    Per image: torchvision's RandomResizedCrop parameters (``augpy.random_resized_crop``),
    drawn as the seed model says (stream ``'ImageNetTrain'``: each image's values are a
    pure function of its augmentation dict's ``rng`` = (seed, epoch, sample), which
    StageDataset fills in; see augpy.image), then a
    region decode of the crop at the smallest libjpeg scale 1/8, 1/4, 1/2 or 1 that keeps at least
    one source pixel per output pixel, then one warp (antialiased with up to
    ``max_supersampling``^2 samples, mirrored when flipped) into a slot of the
    ring buffer. DecodeWarp's buffer ring, decoder threads and streams are reused.

    The result is the uint8 batch (pixels 0..255, layout NCHW; uint16, 0..65535, with
    ``decode_dtype='uint16'``). Colour jitter and
    normalisation are the FOLLOWING stages (hook point: ``transforms``, callables
    batch -> batch applied in order after the decode/warp, e.g. a colour-jitter
    stage then a normalize / crop_mirror_normalize stage); this stage records in
    ``batch['augmentation']`` one dict per image with ``rng``, ``crop`` (y, x, h, w),
    ``hflip`` and ``dct_scale`` (M of the M/8 decode, 8 = none); given back with its
    image, such a dict replays that image's crop and flip.

    :param batch_size: images per batch (at most)
    :param size: output size, int or (height, width)
    :param scale: area fraction range of the crop (torchvision's default (0.08, 1))
    :param ratio: aspect (w / h) range, drawn log-uniformly (default (3/4, 4/3))
    :param hflip: probability of a horizontal mirror
    :param cpu_threads, num_buffers, decode_buffer_size, max_pixels, background,
        dct_scale, on_error: as ``DecodeWarp`` (dct_scale=False decodes every image whole at
        full size and warps with the full-image matrix). Whole-image uint8 decodes (dct_scale off,
        the default on the ``'nvjpeg'`` engine) on nvJPEG's hardware backend go to the JPEG engines
        in ONE batched call per batch, as DecodeWarp's; planned decodes stay per file (docs/cuda.md)
    :param decode_dtype: None / ``'uint8'`` (the default) or ``'uint16'``: the dtype of the
        decode (``Decoder.decode``'s ``dtype=``) and of the batch; with ``'uint16'`` 16-bit
        PNG / TIFF samples keep their 16 bits, 10/12-bit AVIF and 8-bit files are scaled to
        0..65535, and a following
        ``Normalize`` takes mean / std in 16-bit units
    :param seed: the seed of images whose dicts carry no ``rng`` (called outside
        StageDataset): image k the stage sees gets ``rng`` = (seed, 0, k) (None: entropy
        drawn once; a forked child draws its own). Inside StageDataset the dataset's
        seed, epoch and each sample's key decide.
    :param max_supersampling: cap of the warp's antialiasing samples per axis
    :param transforms: callables applied to the batch dict after the decode/warp
    :param interpolation: the warp's: ``'bilinear'`` (the default), ``'bicubic'`` (Keys' a = -0.75,
        OpenCV's INTER_CUBIC, supersampled alike; docs/warp.md "Bicubic"), ``'nearest'``, or
        ``'random'``: each image draws ``'bilinear'`` or ``'bicubic'`` with probability 1/2, as
        timm's ``RandomResizedCropAndInterpolation(interpolation='random')`` does (stream
        ``'ImageNetTrain.interpolation'`` of the seed model). Unless it is ``'bilinear'``, each dict
        records the image's ``'interpolation'``; a dict that carries one replays it"""

    stream: Optional[str]
    seed: Optional[int]
    scale: Tuple[float, ...]
    ratio: Tuple[float, ...]
    hflip: float
    max_supersampling: int
    transforms: Tuple[_Stage, ...]
    def __init__(self, batch_size: _Int, size: _SizeLike = 224, scale: Sequence[float] = (0.08, 1.0),
                 ratio: Sequence[float] = ..., hflip: float = 0.5, cpu_threads: _Int = 1, num_buffers: _Int = 2,
                 seed: _Seed = None, max_supersampling: int = 3, dct_scale: Optional[bool] = None,
                 background: _Background = None, decode_buffer_size: Optional[_Int] = None,
                 max_pixels: Optional[_Int] = None, transforms: Iterable[_Stage] = (),
                 on_error: str = "raise", decode_dtype: Optional[_DTypeLike] = None,
                 interpolation: str = "bilinear") -> None: ...
    def __call__(self, batch: _Batch) -> _Batch:
        """Decode ``batch['image']`` (JPEG or PNG files) into the next ring buffer;
        returns ``batch`` with ``'image'`` the uint8 (n, 3, H, W) batch and
        ``'augmentation'`` the drawn parameters, after ``transforms``."""


class ImageNetEval(DecodeWarp):
    """ImageNet-style evaluation stage: torchvision's ``Resize(resize)`` (shorter side)
    + ``CenterCrop(size)`` as ONE warp (``augpy.resize_center_crop_matrix``), decoded
    with DCT scaling and a region like ``ImageNetTrain``, into uint8 (N, 3, H, W)
    batches (layout NCHW). Normalisation is the following stage (``transforms``,
    as ``ImageNetTrain``; ``decode_dtype='uint16'`` gives uint16 batches, as there). Other parameters as
    ``DecodeWarp`` / ``ImageNetTrain``; each
    image's dict gets ``matrix``, ``source_size`` and ``dct_scale`` and replays as DecodeWarp's."""

    resize: int
    max_supersampling: int
    transforms: Tuple[_Stage, ...]
    def __init__(self, batch_size: _Int, size: _SizeLike = 224, resize: _Int = 256, cpu_threads: _Int = 1,
                 num_buffers: _Int = 2, max_supersampling: int = 3, dct_scale: Optional[bool] = None,
                 background: _Background = None, decode_buffer_size: Optional[_Int] = None,
                 max_pixels: Optional[_Int] = None, transforms: Iterable[_Stage] = (),
                 on_error: str = "raise", decode_dtype: Optional[_DTypeLike] = None) -> None: ...
    def __call__(self, batch: _Batch) -> _Batch:
        """Decode ``batch['image']`` (JPEG or PNG files) into the next ring buffer;
        returns ``batch`` with ``'image'`` the uint8 (n, 3, H, W) batch, after ``transforms``."""


class Lighting:
    """Apply ``augpy.lighting`` to a batch (N, C, H, W) in place.

    :param batch_size: maximum number of samples in a batch
    :param channels: channels C per image
    :param min_value: minimum brightness value, typically 0 for 8 bit images
    :param max_value: maximum brightness value, typically 255 for 8 bit images"""

    batch_size: int
    channels: int
    min_value: float
    max_value: float
    def __init__(self, batch_size: _Int, channels: _Int = 3, min_value: float = 0, max_value: float = 255) -> None: ...
    def __call__(self, batch: _Batch) -> _Batch:
        """Apply the lighting of each ``batch['augmentation']`` dict (keys
        ``gamma_gray`` default 1, ``gamma_color`` default C ones, ``contrast``
        default 0) to ``batch['image']`` in place; returns ``batch``."""


# The manual's spelling of the class name.
Lightning = Lighting


class ColorJitter:
    """torchvision's ``ColorJitter`` on a uint8, uint16 or float32 (N, 3, H, W) batch, in place,
    with per-image factors and step order drawn from the stage's generator
    (``augpy.color_jitter_params``; the seed model's stream ``'ColorJitter'``: each image's
    factors are a pure function of its augmentation dict's ``rng``, see augpy.image)
    and applied in one pass per image
    (``augpy.color_jitter``; docs/colour.md). Each ``batch['augmentation']`` dict
    gets the image's factors as ``color_jitter``: a dict with ``brightness``,
    ``contrast``, ``saturation``, ``hue`` and ``order`` (one key, so that they never
    mix with another stage's keys such as ``Lighting``'s ``contrast``).

    :param brightness, contrast, saturation: torchvision's ranges (a number v: factor
        in [max(0, 1 - v), 1 + v]; a pair: that range; 0 / None: the step is skipped)
    :param hue: a number h in [0, 0.5] (shift in [-h, h]) or a pair
    :param random_order: a random order of the four steps per image (torchvision's)
    :param seed: the seed of images whose dicts carry no ``rng`` (called outside StageDataset):
        image k the stage sees gets ``rng`` = (seed, 0, k) (None: entropy drawn once; a
        forked child then draws its own)
    :param lighting: also apply each image's ``Lighting`` parameters in the same pass
        (``augpy.color_jitter``'s fused lighting): the ``gamma_gray``, ``gamma_color``
        and ``contrast`` keys of the incoming ``batch['augmentation']`` dicts, with
        ``Lighting``'s defaults; the result is exactly ColorJitter followed
        by ``Lighting(..., min_value, max_value)`` with those values
    :param min_value, max_value: the lighting's value range (as ``Lighting``'s)"""

    stream: Optional[str]
    seed: Optional[int]
    lighting: bool
    min_value: float
    max_value: float
    ranges: Dict[str, _RangeLike]
    random_order: bool
    def __init__(self, brightness: _RangeLike = 0.4, contrast: _RangeLike = 0.4, saturation: _RangeLike = 0.4,
                 hue: _RangeLike = 0.1, random_order: bool = True, seed: _Seed = None, lighting: bool = False,
                 min_value: float = 0, max_value: float = 255) -> None: ...
    def __call__(self, batch: _Batch) -> _Batch:
        """Jitter ``batch['image']`` in place; each augmentation dict gets ``color_jitter``."""


POLICY_OPS: Tuple[str, ...]


def apply_policy(image: Any, ops: Sequence[Tuple[str, float]], interpolation: str = "nearest",
                 fill: Any = 0) -> Tensor:
    """One image (C, H, W), uint8, uint16 or float32, through ops: a sequence of (op, magnitude) with
    op one of augpy.image.POLICY_OPS, exactly as torchvision's _apply_image_or_video_transform
    applies them. Returns a new tensor."""


class RandAugment:
    """torchvision's ``RandAugment(num_ops, magnitude, num_magnitude_bins, interpolation, fill)``
    on a uint8, uint16 or float32 (N, C, H, W) batch, in place: each image applies ``num_ops`` ops drawn
    uniformly from the 14 of RandAugment's space at bin ``magnitude`` of its table, the sign of a
    signed op's magnitude drawn with probability 1/2. Each augmentation dict gets ``'policy'``,
    the image's list of (op, magnitude); a dict that has one is replayed. Draws follow the seed
    model (augpy.image; stream 'RandAugment'): a pure function of the dict's ``rng``."""
    stream: Optional[str]
    seed: Optional[int]
    num_ops: int
    magnitude: int
    num_magnitude_bins: int
    interpolation: str
    fill: Any
    draws: int
    space: Dict[str, Tuple[Optional[Callable[[int, int, int], numpy.ndarray]], bool]]
    def __init__(self, num_ops: int = 2, magnitude: int = 9, num_magnitude_bins: int = 31,
                 interpolation: str = "nearest", fill: Any = 0, seed: _Seed = None) -> None: ...
    def __call__(self, batch: _Batch) -> _Batch:
        """Each image of ``batch['image']`` through its own ops, in place; each augmentation dict
        gets ``'policy'``: the (op, magnitude) list it ran (a given one is replayed)."""
    @staticmethod
    def from_timm(config_str: str, seed: _Seed = None, *, interpolation: str = "bilinear", fill: Any = (128, 128, 128),
                  translate_pct: float = 0.45) -> "TimmRandAugment":
        """timm's RandAugment from its config string (``'rand-m9-mstd0.5-inc1'``): an
        augpy.image.TimmRandAugment, as augpy.image.rand_augment_transform makes it."""


TIMM_OPS: Tuple[str, ...]


def apply_timm_policy(image: Any, ops: Sequence[Tuple[str, Optional[float]]], interpolation: str = "bilinear",
                      fill: Any = (128, 128, 128)) -> Tensor:
    """One uint8 image (C, H, W) through ops: a sequence of (timm op name, argument) with the
    name one of augpy.image.TIMM_OPS and the argument what timm's level-to-argument rule gives
    (degrees, a shear factor, a fraction of the size, bits, a threshold, an added value, an
    enhancement factor, Desaturate's amount (1: grayscale), GaussianBlur's radius; none for
    AutoContrast, Equalize and Invert). Returns a new tensor."""


class TimmRandAugment:
    """timm's RandAugment (``rand_augment_transform(config_str)``) on a uint8 (N, C, H, W)
    batch, in place. Each image draws ``num_ops`` ops (uniformly with replacement, or by the
    'weights' or '3aw' set's weights without replacement); each is applied with probability
    ``prob``, at ``magnitude`` plus N(0, magnitude_std) noise (uniform in [0, magnitude] for an infinite
    or > 100 std), clipped to [0, magnitude_max or 10], its argument by timm's level rule, a
    signed one negated with probability 1/2. ``fill``: the value outside a warped image (timm's
    img_mean; 128 per channel by default), ``interpolation`` 'bilinear' or 'nearest' (timm picks
    bilinear or bicubic at random unless told), ``translate_pct``: TranslateXRel / YRel's range.
    Records ``'timm_policy'`` ((op, argument) list, replayed when given) and
    ``'timm_magnitudes'``."""
    stream: Optional[str]
    seed: Optional[int]
    magnitude: int
    magnitude_max: Optional[int]
    num_ops: int
    prob: float
    magnitude_std: float
    increasing: bool
    weights: Optional[numpy.ndarray]
    names: Tuple[str, ...]
    interpolation: str
    fill: Any
    hparams: Dict[str, float]
    draws: int
    key: str
    def __init__(self, magnitude: int = 10, num_ops: int = 2, prob: float = 0.5, magnitude_std: float = 0.0,
                 magnitude_max: Optional[int] = None, increasing: bool = False,
                 transforms: Union[None, str, Sequence[str]] = None, interpolation: str = "bilinear",
                 fill: Any = (128, 128, 128), translate_pct: float = 0.45, seed: _Seed = None) -> None: ...
    def __call__(self, batch: _Batch) -> _Batch: ...


def rand_augment_transform(config_str: str, seed: _Seed = None, *, interpolation: str = "bilinear",
                           fill: Any = (128, 128, 128), translate_pct: float = 0.45) -> TimmRandAugment:
    """timm's ``rand_augment_transform(config_str)`` as augpy's stage: a TimmRandAugment (uint8
    (N, C, H, W) batches). config_str: 'rand' then '-'-separated sections m (magnitude, 0..10),
    n (ops per image), p (probability of each op, default 0.5), mstd (magnitude noise), mmax
    (the magnitude's upper clip), inc (1: the increasing-severity op set), t ('weights', or '3a' /
    '3aw': timm's three-augment sets), e.g. 'rand-m9-mstd0.5-inc1'. interpolation, fill and
    translate_pct: TimmRandAugment's."""


class TimmAutoAugment:
    """timm's AutoAugment with its '3a' policy (``auto_augment_transform('3a')``; DeiT III's
    three augmentations) on a uint8 (N, C, H, W) batch, in place: each image runs one sub-policy
    chosen uniformly: Solarize at magnitude 5 (threshold 128), Desaturate at 10 (grayscale) or
    GaussianBlurRand at 10 (PIL's Gaussian blur of a radius uniform in [0.1, 2 * factor],
    factor = magnitude / 10). With ``magnitude_std`` > 0 a magnitude gets N(0, magnitude_std)
    noise, clipped to [0, 10] (timm's AugmentOp). Each augmentation dict gets
    ``'timm_auto_augment'``: the (timm op name, argument) list the image ran (the blur recorded
    as ('GaussianBlur', its radius)), replayed when given (augpy.image.apply_timm_policy runs
    one), and ``'timm_auto_augment_magnitudes'``."""
    stream: Optional[str]
    seed: Optional[int]
    policy: str
    magnitude_std: float
    draws: int
    key: str
    interpolation: str
    fill: Any
    def __init__(self, policy: str = "3a", magnitude_std: float = 0.0, seed: _Seed = None) -> None: ...
    def __call__(self, batch: _Batch) -> _Batch: ...


def auto_augment_transform(config_str: str, seed: _Seed = None) -> TimmAutoAugment:
    """timm's ``auto_augment_transform(config_str)`` as augpy's stage, for the policy '3a'
    (``create_transform(auto_augment='3a')``): a TimmAutoAugment. config_str: '3a', then
    optional '-'-separated sections mstd<float> (magnitude noise), e.g. '3a-mstd0.5'. timm's other
    policies ('v0', 'v0r', 'original', 'originalr') are a ValueError."""


class AutoAugment:
    """torchvision's ``AutoAugment(policy, interpolation, fill)`` on a uint8, uint16 or float32 (N, C,
    H, W) batch, in place: each image draws one of the policy's 25 sub-policies uniformly, then
    applies each of its two ops with the op's probability, at the op's magnitude bin of the
    10-bin table, a signed magnitude negated with probability 1/2. ``policy``: 'imagenet',
    'cifar10' or 'svhn'. Each augmentation dict gets ``'policy'`` (the (op, magnitude) list the
    image ran; replayed when given) and ``'sub_policy'`` (the drawn index). Draws follow the
    seed model (stream 'AutoAugment')."""
    stream: Optional[str]
    seed: Optional[int]
    policy: str
    sub_policies: Tuple[Tuple[Tuple[str, float, Optional[int]], ...], ...]
    interpolation: str
    fill: Any
    draws: int
    space: Dict[str, Tuple[Optional[Callable[[int, int, int], numpy.ndarray]], bool]]
    def __init__(self, policy: str = "imagenet", interpolation: str = "nearest", fill: Any = 0,
                 seed: _Seed = None) -> None: ...
    def __call__(self, batch: _Batch) -> _Batch:
        """Each image of ``batch['image']`` through its own ops, in place; each augmentation dict
        gets ``'policy'``: the (op, magnitude) list it ran (a given one is replayed)."""


def apply_augmix(image: Any, record: Dict[str, Any], interpolation: str = "bilinear", fill: Any = 0) -> Tensor:
    """One image (C, H, W), uint8 or float32, through an AugMix record ``{'m': m0, 'weights':
    [w_i], 'chains': [[(op, magnitude), ...], ...]}``: ``m0 * x + sum(w_i * chain_i(x))`` in
    float32, truncated back to uint8 for a uint8 image. Returns a new tensor."""


class AugMix:
    """torchvision's ``AugMix(severity, mixture_width, chain_depth, alpha, all_ops,
    interpolation, fill)`` on a uint8 or float32 (N, C, H, W) batch, in place, each image with
    its own draws (stream 'AugMix'). ``all_ops=False`` leaves out Brightness, Color, Contrast
    and Sharpness. Each augmentation dict gets ``'augmix'`` (``m``, ``weights``, ``chains``);
    a dict that has one is replayed."""
    stream: Optional[str]
    seed: Optional[int]
    severity: int
    mixture_width: int
    chain_depth: int
    alpha: float
    all_ops: bool
    interpolation: str
    fill: Any
    space: Dict[str, Tuple[Optional[Callable[[int, int, int], numpy.ndarray]], bool]]
    def __init__(self, severity: int = 3, mixture_width: int = 3, chain_depth: int = -1, alpha: float = 1.0,
                 all_ops: bool = True, interpolation: str = "bilinear", fill: Any = 0,
                 seed: _Seed = None) -> None: ...
    def __call__(self, batch: _Batch) -> _Batch:
        """Each image of ``batch['image']`` through its own AugMix, in place; each augmentation
        dict gets ``'augmix'`` (a given one is replayed)."""


class Mixup:
    """timm's ``Mixup(mixup_alpha, cutmix_alpha, cutmix_minmax, prob, switch_prob, mode,
    correct_lam, label_smoothing, num_classes)`` as a collate step: ``batch['image']`` (a float
    (N, C, H, W) tensor, N even, mixed in place) and ``batch['label']`` (N class indices, or
    (N, num_classes) soft / multi-hot targets) become mixed images and ``batch['target']``,
    float32 (N, num_classes) label-smoothed soft targets. Each augmentation dict records
    ``'timm_mixup'``: ``{'lam', 'box'}`` (module docstring: augpy/_timm_mixup.py)."""
    stream: Optional[str]
    seed: Optional[int]
    mixup_alpha: float
    cutmix_alpha: float
    cutmix_minmax: Optional[Tuple[float, float]]
    prob: float
    switch_prob: float
    mode: str
    correct_lam: bool
    label_smoothing: float
    num_classes: int
    def __init__(self, mixup_alpha: float = 1.0, cutmix_alpha: float = 0.0,
                 cutmix_minmax: Optional[Sequence[float]] = None, prob: float = 1.0, switch_prob: float = 0.5,
                 mode: str = "batch", correct_lam: bool = True, label_smoothing: float = 0.1,
                 num_classes: int = 1000, seed: _Seed = None) -> None: ...
    def __call__(self, batch: _Batch) -> _Batch:
        """Mix ``batch['image']`` in place and set ``batch['target']``; each augmentation dict
        gets ``'timm_mixup'`` (when every dict has one, they are replayed)."""


class RandomErasing:
    """Erase rectangles of each image of a uint8 or float32 (N, C, H, W) batch, in place.

    :param p: the probability that an image is erased at all
    :param scale: the range of the erased area as a fraction of the image's (shared by the
        image's rectangles: each gets ``area / count``, timm's rule)
    :param ratio: the range of the rectangles' aspect ratio (height / width), drawn log-uniform
    :param mode: what the rectangle holds: 'const' (``value``: a number or one per channel),
        'rand' (one random value per channel) or 'pixel' (a random value per pixel). Random
        values are N(0, 1) for float images (timm's, for normalised batches) and uniform in
        0..255 for uint8 images.
    :param value: the constant of mode 'const'
    :param min_count, max_count: the number of rectangles per erased image, uniform in
        [min_count, max_count] (max_count None: min_count)
    :param seed: the seed of images whose dicts carry no ``rng`` (see augpy.image)

    A rectangle is drawn as torchvision draws one: up to 10 attempts of (area, aspect ratio)
    until the rectangle fits strictly inside the image (h < H and w < W), then its top-left
    corner uniformly; after 10 failed attempts that rectangle is left out (timm's rule;
    torchvision erases nothing then too, its fallback being the whole image unchanged), and
    so is a rectangle of no area (a 1 x 1 image's)."""
    stream: Optional[str]
    seed: Optional[int]
    p: float
    scale: Tuple[float, float]
    ratio: Tuple[float, float]
    mode: str
    value: numpy.ndarray
    min_count: int
    max_count: int
    def __init__(self, p: float = 0.5, scale: Sequence[float] = (0.02, 0.3333333333333333),
                 ratio: Sequence[float] = (0.3, 3.3333333333333335), mode: str = "const", value: Any = 0,
                 min_count: int = 1, max_count: Optional[int] = None, seed: _Seed = None) -> None: ...
    def rectangles(self, u: numpy.ndarray, h: int, w: int) -> List[Tuple[int, int, int, int]]:
        """The rectangles (top, left, height, width) that uniform draws u (self.draws values in
        [0, 1)) give an h x w image."""
    @property
    def draws(self) -> int: ...
    def __call__(self, batch: _Batch) -> _Batch:
        """Erase each image's rectangles in ``batch['image']`` in place; each augmentation dict
        gets ``'erasing'``, its list of (top, left, height, width)."""



class RandomPerspective:
    """torchvision's RandomPerspective on an (N, C, H, W) batch (any dtype warp_perspective
    takes): each image, with probability `p`, is warped so that its corners move inward by
    up to `distortion_scale` times half its size (random_perspective_points), drawn from the
    seed model (stream 'RandomPerspective'). batch['image'] is replaced by the warped batch
    (layout NCHW); each augmentation dict records ``'perspective'``: the 4 endpoints [x, y]
    of the moved corners, or None (not warped); a recorded value is replayed. Boxes,
    keypoints and masks of the batch (augpy.targets.transform_batch_targets: settings the
    attributes box_format, box_params, ignore_index) follow each image's matrix.

    :param distortion_scale: in [0, 1]
    :param p: the probability that an image is warped, in [0, 1]
    :param interpolation: 'bilinear' (torchvision's default) or 'nearest'
    :param fill: the value outside the source: a number or one per channel
    :param seed: the seed of images whose dicts carry no ``rng`` (see augpy.image)"""
    stream: Optional[str]
    seed: Optional[int]
    box_format: str
    box_params: Optional[Dict[str, Any]]
    ignore_index: int
    draws: int
    distortion_scale: float
    p: float
    interpolation: str
    fill: numpy.ndarray
    def __init__(self, distortion_scale: float = 0.5, p: float = 0.5, interpolation: str = "bilinear",
                 fill: Any = 0, seed: _Seed = None) -> None: ...
    def endpoints(self, u: numpy.ndarray, height: int, width: int) -> Optional[List[List[int]]]:
        """The endpoints of an image from its draws u (9 values in [0, 1)), or None (not warped)."""
    def __call__(self, batch: _Batch) -> _Batch: ...

def mixup(images: Tensor, labels: Any, lam: float, num_classes: int) -> Tuple[Tensor, Tensor]:
    """torchvision's MixUp for a given lam: images (a float (N, C, H, W) tensor) become
    ``images.roll(1, 0) * (1 - lam) + images * lam`` in place; returns (images, soft targets)."""


def cutmix(images: Tensor, labels: Any, box: Sequence[int], num_classes: int) -> Tuple[Tensor, Tensor, float]:
    """torchvision's CutMix for a given box (x1, y1, x2, y2): the box of image k is image
    k - 1's, in place; the targets' lambda is 1 - box area / image area. Returns (images,
    soft targets, lam)."""


class MixUp:
    """torchvision's ``MixUp(alpha, num_classes)`` as a collate step: ``batch['image']`` (a float
    (N, C, H, W) tensor, mixed in place) and ``batch['label']`` (N class indices) become mixed
    images and ``batch['target']``, float32 (N, num_classes) soft targets. lam ~ Beta(alpha,
    alpha), one per batch (the seed model's stream 'MixUp', the first image's state); every
    augmentation dict records ``'mixup': lam`` (a batch whose first dict has one replays it)."""
    stream: Optional[str]
    seed: Optional[int]
    alpha: float
    num_classes: int
    def __init__(self, alpha: float = 1.0, num_classes: Optional[int] = None, seed: _Seed = None) -> None: ...
    def __call__(self, batch: _Batch) -> _Batch: ...


class CutMix:
    """torchvision's ``CutMix(alpha, num_classes)`` as a collate step: lam ~ Beta(alpha, alpha),
    a box of side sqrt(1 - lam) times the image's centred on a uniform pixel (clipped), image
    k's box taken from image k - 1, in place; ``batch['target']`` the soft targets of the box's
    true area. Every augmentation dict records ``'cutmix': (x1, y1, x2, y2)`` (the first dict's
    is replayed)."""
    stream: Optional[str]
    seed: Optional[int]
    alpha: float
    num_classes: int
    def __init__(self, alpha: float = 1.0, num_classes: Optional[int] = None, seed: _Seed = None) -> None: ...
    def __call__(self, batch: _Batch) -> _Batch: ...


class Compose:
    """The stages in order, on the whole batch (``batch = stage(batch)`` for each)."""
    stages: List[Callable[[_Batch], _Batch]]
    def __init__(self, stages: Union[Callable[[_Batch], _Batch], Sequence[Callable[[_Batch], _Batch]]]) -> None: ...
    def __call__(self, batch: _Batch) -> _Batch: ...


class RandomApply:
    """Each image runs ``stages`` (in order) with probability ``p``, decided per image and
    recorded as ``augmentation[key] = True / False``."""
    stream: Optional[str]
    seed: Optional[int]
    stages: List[Callable[[_Batch], _Batch]]
    p: float
    key: str
    def __init__(self, stages: Union[Callable[[_Batch], _Batch], Sequence[Callable[[_Batch], _Batch]]],
                 p: float = 0.5, key: Optional[str] = None, seed: _Seed = None) -> None: ...
    def __call__(self, batch: _Batch) -> _Batch: ...


class RandomChoice:
    """Each image runs one of ``stages``, drawn with probabilities proportional to
    ``weights`` (None: equal), recorded as ``augmentation[key]`` = the stage's index.
    ``OneOf`` is the same (albumentations' name)."""
    stream: Optional[str]
    seed: Optional[int]
    stages: List[Callable[[_Batch], _Batch]]
    weights: numpy.ndarray
    key: str
    def __init__(self, stages: Union[Callable[[_Batch], _Batch], Sequence[Callable[[_Batch], _Batch]]],
                 weights: Optional[Sequence[float]] = None, key: Optional[str] = None, seed: _Seed = None) -> None: ...
    def __call__(self, batch: _Batch) -> _Batch: ...


class OneOf(RandomChoice):
    """Each image runs one of ``stages``, drawn with probabilities proportional to
    ``weights`` (None: equal), recorded as ``augmentation[key]`` = the stage's index.
    ``OneOf`` is the same (albumentations' name)."""


class TrivialAugmentWide:
    """torchvision's ``TrivialAugmentWide(num_magnitude_bins, interpolation, fill)`` on a uint8,
    uint16 or float32 (N, C, H, W) batch, in place: each image applies one op drawn uniformly from the
    wide space, at a magnitude bin drawn uniformly, the sign of a signed op drawn with
    probability 1/2. Records and replays ``'policy'`` as RandAugment does (stream
    'TrivialAugmentWide')."""
    stream: Optional[str]
    seed: Optional[int]
    num_magnitude_bins: int
    interpolation: str
    fill: Any
    draws: int
    space: Dict[str, Tuple[Optional[Callable[[int, int, int], numpy.ndarray]], bool]]
    def __init__(self, num_magnitude_bins: int = 31, interpolation: str = "nearest", fill: Any = 0,
                 seed: _Seed = None) -> None: ...
    def __call__(self, batch: _Batch) -> _Batch:
        """Each image of ``batch['image']`` through its own ops, in place; each augmentation dict
        gets ``'policy'``: the (op, magnitude) list it ran (a given one is replayed)."""


class Normalize:
    """``(x - mean) / std`` per channel of a (N, C, H, W) batch into float32 (or
    ``dtype``) batches in ``layout`` "NCHW" or "NHWC", through
    ``augpy.crop_mirror_normalize`` (DALI's arithmetic; docs/normalize.md). The
    results live in a ring of ``num_buffers`` buffers like DecodeWarp's: a returned
    batch stays valid for ``num_buffers - 1`` further calls.

    :param mean, std: per channel (or one value), in the input's units (default:
        torchvision's ImageNet statistics times 255)"""

    batch_size: int
    num_buffers: int
    mean: List[float]
    std: List[float]
    dtype: _DTypeLike
    layout: str
    def __init__(self, batch_size: _Int, mean: _PerChannel = ..., std: _PerChannel = ...,
                 dtype: Optional[_DTypeLike] = None, layout: str = "NCHW", num_buffers: _Int = 2) -> None: ...
    def __call__(self, batch: _Batch) -> _Batch:
        """``batch['image']`` normalized into the next ring buffer; returns ``batch``."""


def imagenet_train(batch_size: _Int, size: _SizeLike = 224,
                   jitter: Optional[Tuple[_RangeLike, _RangeLike, _RangeLike, _RangeLike]] = (0.4, 0.4, 0.4, 0.1),
                   mean: _PerChannel = ..., std: _PerChannel = ..., dtype: Optional[_DTypeLike] = None,
                   layout: str = "NCHW", seed: _Seed = None, policy: Optional[_Stages] = None,
                   after: Optional[_Stages] = None, **kwargs: Unpack[_ImageNetTrainKwargs]) -> ImageNetTrain:
    """The ImageNet training recipe as one stage: ``ImageNetTrain`` (region decode, random
    resized crop, flip) -> ``ColorJitter(*jitter)`` (None: no jitter) -> ``policy`` ->
    ``Normalize`` -> ``after``. Returns the ImageNetTrain stage with the others as its
    ``transforms``; kwargs go to ImageNetTrain (cpu_threads, num_buffers, scale, ratio, hflip,
    dct_scale, on_error, ...). ``policy``: a stage or a list of stages on the uint8 pixels
    (RandAugment, AutoAugment, RandomGrayscale, ...: they refuse a normalised batch, so this is
    their place); ``after``: stages on the normalised float batch (RandomErasing, Mixup, ...).
    The crops and the jitter draw from each image's ``rng`` (seed model, augpy.image) on
    their own streams; ``seed`` is ImageNetTrain's (images that come without ``rng``)."""
def imagenet_eval(batch_size: _Int, size: _SizeLike = 224, resize: _Int = 256, mean: _PerChannel = ...,
                  std: _PerChannel = ..., dtype: Optional[_DTypeLike] = None, layout: str = "NCHW",
                  **kwargs: Unpack[_ImageNetEvalKwargs]) -> ImageNetEval:
    """The ImageNet evaluation recipe as one stage: ``ImageNetEval`` (resize the shorter
    side, centre crop) -> ``Normalize``; kwargs go to ImageNetEval."""


CIFAR_MEAN: Tuple[float, float, float]
CIFAR_STD: Tuple[float, float, float]


def timm_train(batch_size: _Int, size: _SizeLike = 224, scale: Sequence[float] = (0.08, 1.0),
               ratio: Sequence[float] = ..., hflip: float = 0.5,
               auto_augment: Union[None, str, _Stage] = "rand-m9-mstd0.5-inc1", re_prob: float = 0.25,
               re_mode: str = "pixel", re_count: _Int = 1, mixup: Union[None, Dict[str, Any], _Stage] = None,
               mean: _PerChannel = ..., std: _PerChannel = ..., dtype: Optional[_DTypeLike] = None,
               layout: str = "NCHW", seed: _Seed = None, interpolation: str = "bilinear",
               **kwargs: Unpack[_RecipeKwargs]) -> ImageNetTrain:
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


def cifar_train(batch_size: _Int, size: _SizeLike = 32, padding: _Int = 4, hflip: float = 0.5,
                mean: _PerChannel = ..., std: _PerChannel = ..., policy: Optional[_Stages] = None,
                after: Optional[_Stages] = None, dtype: Optional[_DTypeLike] = None, layout: str = "NCHW",
                seed: _Seed = None, **kwargs: Unpack[_RecipeKwargs]) -> ImageNetTrain:
    """The CIFAR training recipe (torchvision's and most papers'): each image decoded and taken
    whole at ``size`` x ``size`` (ImageNetTrain with scale and ratio 1: an exact copy for a
    size x size image), flipped with probability ``hflip``, ``RandomCrop(size, padding)`` (zero
    padding) -> ``policy`` (stages on the uint8 pixels, e.g. AutoAugment('cifar10')) ->
    Normalize with CIFAR-10's statistics -> ``after`` (stages on the floats, e.g. RandomErasing
    or a Mixup). kwargs go to ImageNetTrain."""
