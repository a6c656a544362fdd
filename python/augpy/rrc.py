"""augpy.rrc: RandomResizedCrop parameters and scaled-decode plans (docs/rrc.md).

Thin wrappers over the C API of ``aug/rrc.h``: ``random_resized_crop`` samples
torchvision's RandomResizedCrop crops from an augpy ``RandomNumberGenerator``
(one generator call per batch, so a batch is reproducible from the generator's
state), or from one generator state per image (the per-sample streams of
docs/random.md; ``sample_rng_states`` makes them), and returns, per image, the
crop, the warp matrix onto the output size and the plan of a DCT-scaled
region decode; ``plan_decode`` plans that decode for any warp matrix;
``resize_center_crop_matrix`` is the evaluation transform (resize the shorter
side, centre crop) as one warp.
"""
import operator
from typing import Iterable, List, Tuple

import numpy as np

from . import _augpy

__all__ = ["random_resized_crop", "plan_decode", "resize_center_crop_matrix", "sample_rng_states"]


def sample_rng_states(rngs: Iterable[Tuple[int, int, int]], stream: str) -> List[Tuple[int, int]]:
    """The generator states of stream ``stream`` for samples with ``'rng': (seed, epoch, sample)``:
    ``[(stream_seed(seed, epoch, stream), sample) for (seed, epoch, sample) in rngs]``, one
    ``(seed, calls)`` state per sample for ``random_resized_crop`` / ``color_jitter_params``
    (docs/random.md, "Per-sample streams")."""
    func = "augpy.sample_rng_states"
    try:
        triples = [tuple(t) for t in rngs]
    except TypeError:
        raise TypeError(f"{func}: rngs must be a sequence of (seed, epoch, sample) triples") from None
    out = []
    for i, t in enumerate(triples):
        if len(t) != 3:
            raise ValueError(f"{func}: rngs[{i}] must be a (seed, epoch, sample) triple, got {len(t)} values")
        seed, epoch, sample = t
        try:
            sample = operator.index(sample)
        except TypeError:
            raise TypeError(f"{func}: rngs[{i}] sample must be an int, not {type(sample).__name__!r}") from None
        if not 0 <= sample < 1 << 64:
            shown = sample if sample.bit_length() <= 256 else f"(an int of {sample.bit_length()} bits)"
            raise ValueError(f"{func}: rngs[{i}] sample = {shown} is out of range [0, 2**64)")
        out.append((_augpy.stream_seed(seed, epoch, stream), sample))
    return out


def _size2(value, name, func):
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value), int(value)
    try:
        h, w = value
    except Exception:  # noqa: BLE001 - any failure of a user's sequence is a bad argument
        raise TypeError(f"{func}: {name} must be an int or a (height, width) pair") from None
    return h, w


def _pairs(sizes, func):
    """The (height, width) pairs of sizes as two lists (ints checked by the C layer)."""
    try:
        pairs = [tuple(p) for p in sizes]
    except Exception:  # noqa: BLE001
        raise TypeError(f"{func}: sizes must be a sequence of (height, width) pairs") from None
    for p in pairs:
        if len(p) != 2:
            raise ValueError(f"{func}: sizes must be (height, width) pairs, got one of {len(p)} values")
    return [p[0] for p in pairs], [p[1] for p in pairs]


def random_resized_crop(rng, sizes, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), hflip=0.0,
                        max_supersampling=3, dct_scale=True, roi=True):
    """Sample one RandomResizedCrop per image (torchvision's get_params).

    :param rng: an ``augpy.RandomNumberGenerator``; one call of its counter is used. Or a
        sequence of len(sizes) generator states ``(seed, calls)``, one per image: image k is
        drawn as image 0 of a generator at state rng[k] (none is advanced; see
        ``sample_rng_states``)
    :param sizes: the images' (height, width) pairs (a sequence or an (n, 2) array)
    :param size: the output size, an int or (height, width)
    :param scale: area fraction range of the crop
    :param ratio: aspect ratio (w / h) range; drawn log-uniformly
    :param hflip: probability of mirroring horizontally
    :param max_supersampling: cap of the warp's supersampling (antialiasing)
    :param dct_scale: plan decodes at libjpeg's DCT scale M/8 (JPEG only; pass
        False for PNG files)
    :param roi: plan region decodes (only the pixels the warp reads)
    :returns: a dict of numpy arrays, n = len(sizes): ``crop`` (n, 4) int64 (y, x,
        h, w in the full image), ``hflip`` (n,) bool, ``matrix`` (n, 2, 3) float32
        (output pixel -> full-image pixel) and ``supersampling`` (n,) for a
        full decode; ``scale`` (n,) M of the decode at M/8, ``roi`` (n, 4) (y, x,
        h, w in the scaled image), ``roi_matrix`` (n, 2, 3) and
        ``roi_supersampling`` (n,) for ``Decoder.decode(data, roi=roi, scale=(M,
        8))`` followed by ``warp_affine(img, dst, roi_matrix, ..., roi_supersampling)``.
    """
    func = "random_resized_crop"
    heights, widths = _pairs(sizes, func)
    oh, ow = _size2(size, "size", func)
    items = _augpy._random_resized_crop(rng, heights, widths, oh, ow, scale, ratio, hflip, max_supersampling,
                                        dct_scale, roi)
    n = len(items)
    out = {
        "crop": np.array([it[0] for it in items], dtype=np.int64).reshape(n, 4),
        "hflip": np.array([it[1] for it in items], dtype=bool).reshape(n),
        "matrix": np.array([it[2] for it in items], dtype=np.float32).reshape(n, 2, 3),
        "supersampling": np.array([it[3] for it in items], dtype=np.int32).reshape(n),
        "scale": np.array([it[4][0] for it in items], dtype=np.int32).reshape(n),
        "roi": np.array([it[4][1] for it in items], dtype=np.int64).reshape(n, 4),
        "roi_matrix": np.array([it[4][2] for it in items], dtype=np.float32).reshape(n, 2, 3),
        "roi_supersampling": np.array([it[4][3] for it in items], dtype=np.int32).reshape(n),
    }
    return out


def plan_decode(matrix, source_size, output_size, supersampling=1, dct_scale=True, roi=True):
    """Plan the decode of a warp (``aug_plan_decode``).

    :param matrix: the (2, 3) inverse map output pixel -> source pixel (e.g. from
        ``make_transform`` on the full image size)
    :param source_size: (height, width) of the full image
    :param output_size: (height, width) of the warp's output
    :param supersampling: the warp's supersampling for the full image
    :param dct_scale: True: choose the smallest DCT scale M/8 (M = 1, 2, 4, 8) that keeps >= 1
        source pixel per output pixel in every direction (else M = 8); False: no scaling (M = 8,
        the given supersampling); an int M (1, 2, 4 or 8): plan at that scale as True would
        have planned at it (``aug_plan_decode_at``: a recorded scale replays)
    :param roi: decode only the pixels the warp reads
    :returns: dict ``scale`` (M), ``roi`` (y, x, h, w in the scaled image),
        ``matrix`` (2, 3) float32 for the region decode, ``supersampling``
    """
    func = "plan_decode"
    try:
        m = np.array(matrix, dtype=np.float64).reshape(-1)
    except Exception:  # noqa: BLE001
        raise TypeError(f"{func}: matrix must be a (2, 3) array of numbers") from None
    if m.size != 6:
        raise ValueError(f"{func}: matrix must have 6 values (2, 3), got {m.size}")
    sh, sw = _size2(source_size, "source_size", func)
    oh, ow = _size2(output_size, "output_size", func)
    if not isinstance(dct_scale, (bool, np.bool_)):
        dct_scale = check_dct_scale(dct_scale, func)
    scale_m, region, mat, ss = _augpy._plan_decode(m.tolist(), sh, sw, oh, ow, supersampling, dct_scale, roi)
    return {"scale": scale_m, "roi": region, "matrix": np.array(mat, dtype=np.float32).reshape(2, 3),
            "supersampling": ss}


def check_dct_scale(value, func, name="dct_scale"):
    """A decode scale M given as a number: an int 1, 2, 4 or 8 (TypeError / ValueError naming
    func, name and the value otherwise)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{func}: {name} must be True, False or a scale M of 1, 2, 4 or 8, got {value!r}")
    if value not in (1, 2, 4, 8):
        raise ValueError(f"{func}: {name} must be 1, 2, 4 or 8 (the decode's scale M/8), got {value}")
    return int(value)


def resize_center_crop_matrix(source_size, size=224, resize=256, max_supersampling=3):
    """torchvision's ``Resize(resize)`` + ``CenterCrop(size)`` as one warp:
    returns (matrix (2, 3) float32, supersampling) for ``warp_affine``."""
    func = "resize_center_crop_matrix"
    sh, sw = _size2(source_size, "source_size", func)
    oh, ow = _size2(size, "size", func)
    mat, ss = _augpy._resize_center_crop_matrix(sh, sw, resize, oh, ow, max_supersampling)
    return np.array(mat, dtype=np.float32).reshape(2, 3), ss
