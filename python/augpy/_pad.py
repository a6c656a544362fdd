"""augpy.pad: torchvision's pad (transforms.v2.functional.pad) on an image or a batch, by copies
(the fill or the image into a new tensor, then each band from a flipped or broadcast view of
the rows / columns it mirrors) when one reflection reaches, else over augpy's warp_affine:
nearest interpolation with an integer translation matrix, so every output pixel reads exactly
one source pixel (the border mode supplying the pixels outside: 'constant' the fill, 'edge'
warp's 'replicate', 'reflect' its 'reflect' (OpenCV BORDER_REFLECT_101) and 'symmetric' its
'symmetric' (BORDER_REFLECT)). Either way the result equals numpy.pad's modes 'constant',
'edge', 'reflect' and 'symmetric' bit for bit (tests/python/test_pad_crop.py), on every device.
Padding wider than the image reflects again, as numpy.pad does (torch's reflect padding
refuses it). ``shifted`` (the warp) also serves random_crop and RandomCrop (augpy/_crop.py)."""
import numpy as np

from . import _affine
from . import _augpy
from . import _geometry

# The largest size or offset (exclusive): a float32 matrix holds integers exactly below 2**24.
LIMIT = 1 << 24

# torchvision's padding_mode -> warp_affine's border
PADDING_MODES = {"constant": "constant", "edge": "replicate", "reflect": "reflect", "symmetric": "symmetric"}


def parse_padding(padding, func):
    """torchvision's padding forms (an int; (all,); (left/right, top/bottom); (left, top, right,
    bottom)) as (left, top, right, bottom) ints >= 0."""
    def is_int(v):
        return not isinstance(v, bool) and hasattr(v, "__index__")
    if is_int(padding):
        vals = [padding.__index__()]
    else:
        try:
            vals = list(padding)
        except TypeError:
            raise TypeError(f"{func}: padding must be an int or a sequence of 1, 2 or 4 ints, "
                            f"got {padding!r}") from None
        if not all(is_int(v) for v in vals):
            raise TypeError(f"{func}: padding must be an int or a sequence of 1, 2 or 4 ints, got {padding!r}")
        vals = [v.__index__() for v in vals]
    if len(vals) == 1:
        vals = vals * 4
    elif len(vals) == 2:
        vals = [vals[0], vals[1], vals[0], vals[1]]
    elif len(vals) != 4:
        raise ValueError(f"{func}: padding must have 1, 2 or 4 values, got {len(vals)}: {padding!r}")
    if min(vals) < 0:
        raise ValueError(f"{func}: padding must be >= 0, got {padding!r}")
    if max(vals) >= LIMIT:
        raise ValueError(f"{func}: padding must be below 2**24, got {max(vals)}")
    return tuple(vals)


def border_of(padding_mode, func):
    """warp_affine's border for a torchvision padding_mode."""
    border = PADDING_MODES.get(padding_mode) if isinstance(padding_mode, str) else None
    if border is None:
        raise ValueError(f"{func}: padding_mode must be 'constant', 'edge', 'reflect' or 'symmetric', "
                         f"got {padding_mode!r}")
    return border


def translation(n, dy, dx):
    """(n, 2, 3) float32 matrices reading output pixel (y, x) at source (y + dy[k], x + dx[k])."""
    m = np.zeros((n, 2, 3), np.float32)
    m[:, 0, 0] = m[:, 1, 1] = 1.0
    m[:, 0, 2] = np.broadcast_to(np.asarray(dx, np.float64), (n,))
    m[:, 1, 2] = np.broadcast_to(np.asarray(dy, np.float64), (n,))
    return m


def _fill_array(fill, func):
    """fill (None: 0) as a float64 array of 0 or 1 dimensions, finite."""
    try:
        f = np.asarray(fill if fill is not None else 0, np.float64)
    except (OverflowError, TypeError, ValueError):
        f = np.array(np.nan)
    if f.ndim > 1 or not np.isfinite(f).all():
        raise ValueError(f"{func}: fill must be a finite number or one per channel, got {fill!r}")
    return f


def shifted(src, lay, n, h, w, out_hw, dy, dx, fill, border, targets, func):
    """src (n images of layout lay, h x w) read at integer offsets into a new out_hw tensor."""
    if border != "constant" and (h == 0 or w == 0) and out_hw[0] * out_hw[1] > 0:
        raise ValueError(f"{func}: an empty {h} x {w} image has no pixels to pad with in mode {border!r}")
    _fill_array(fill, func)
    offset = int(max(np.max(np.abs(dy)), np.max(np.abs(dx))))
    if max(offset, out_hw[0], out_hw[1]) >= LIMIT:
        raise ValueError(f"{func}: sizes and offsets must be below 2**24 (exact in float32), got size "
                         f"{out_hw} and an offset of {offset}")
    return _affine._warp(src, lay, translation(n, dy, dx), (h, w), out_hw, n, "nearest", fill, targets, func,
                         border)


def _index(nd, ax, a, b):
    idx = [slice(None)] * nd
    idx[ax] = slice(a, b)
    return tuple(idx)


def _fill_bands(dst, lay, ax, lo, size, before, after, border):
    """The padded bands of dst along axis ax (the image at lo .. lo + size - 1 there) copied
    from the image: one reflection reaches (reflect: bands below size, symmetric: up to size)."""
    nd = len(lay)
    horizontal = lay[ax] == "W"
    for p, first in ((before, True), (after, False)):
        if p == 0:
            continue
        band = dst[_index(nd, ax, lo - p, lo) if first else _index(nd, ax, lo + size, lo + size + p)]
        if border == "replicate":
            edge = lo if first else lo + size - 1
            source = dst[_index(nd, ax, edge, edge + 1)]  # broadcast over the band
        else:
            if first:  # rows lo - p .. lo - 1 read image rows p .. 1 (reflect) / p - 1 .. 0 (symmetric)
                a = lo + 1 if border == "reflect" else lo
            else:  # rows after read image rows size - 2 .. size - 1 - p / size - 1 .. size - p
                a = (lo + size - 1 if border == "reflect" else lo + size) - p
            source = _augpy.flip(dst[_index(nd, ax, a, a + p)], horizontal, not horizontal, layout=lay)
        _augpy.copy(source, band)


def _copied(src, lay, h, w, pads, f, border, func):
    """pad by copies: the fill (constant) or the interior, then the bands along H, then W."""
    left, top, right, bottom = pads
    shape = list(src.shape)
    hx, wx = lay.index("H"), lay.index("W")
    shape[hx], shape[wx] = h + top + bottom, w + left + right
    dst = _augpy.empty(tuple(shape), dtype=src.dtype)
    if dst.device != src.device:
        dst = dst.to(src.device)
    dst.layout = lay
    idx = [slice(None)] * len(lay)
    idx[hx], idx[wx] = slice(top, top + h), slice(left, left + w)
    if border == "constant":
        c = shape[lay.index("C")] if "C" in lay else 1
        if f.ndim == 1 and f.size not in (1, c):
            raise ValueError(f"{func}: fill has {f.size} values for {c} channels")
        # filled by value, a channel at a time (a copy of the array would upload it from pageable
        # memory: a host wait on a GPU); fill converts a value as copy does
        if f.size == 1:
            _augpy.fill(float(f.reshape(-1)[0]), dst)
        else:
            for k in range(f.size):
                band = [slice(None)] * len(lay)
                band[lay.index("C")] = slice(k, k + 1)
                _augpy.fill(float(f[k]), dst[tuple(band)])
    if h and w:
        _augpy.copy(src, dst[tuple(idx)])
    if border != "constant":
        _fill_bands(dst, lay, hx, top, h, top, bottom, border)  # full rows: the W bands are redone next
        _fill_bands(dst, lay, wx, left, w, left, right, border)
    return dst


def _one_reflection(border, h, w, pads):
    left, top, right, bottom = pads
    reach = {"constant": None, "replicate": None, "reflect": 1, "symmetric": 0}[border]
    return reach is None or max(top, bottom) <= h - reach and max(left, right) <= w - reach


def pad(image, padding, fill=0, padding_mode="constant", layout=None, *, targets=None):
    """torchvision's pad (transforms.v2.functional.pad): a new tensor with ``padding`` pixels
    added around each image of ``image`` (HW, HWC, CHW, NHWC or NCHW; layout as augpy.affine:
    the given one, the tensor's layout string, else the shape's), any dtype, on its device.

    :param padding: an int (every side), (left/right, top/bottom) or (left, top, right,
        bottom); every value >= 0
    :param fill: the value of padded pixels in mode 'constant' (a number or one per channel)
    :param padding_mode: 'constant', 'edge' (the edge pixel repeated), 'reflect' (mirrored
        without repeating the edge: 2 1 | 1 2 3 | 2 1 ... as numpy.pad 'reflect') or
        'symmetric' (mirrored with the edge: 1 | 1 2 3 | 3)
    :param targets: boxes / keypoints / masks to shift with the image (as augpy.warp_affine)

    Exact: the pixels equal numpy.pad's (copies, or a warp with an integer translation when
    the padding is wider than one reflection or targets are given)."""
    func = "augpy.pad"
    _geometry._check(targets, func)
    left, top, right, bottom = parse_padding(padding, func)
    border = border_of(padding_mode, func)
    src, lay, n, h, w = _affine._prepare(image, layout, func)
    out_hw = (h + top + bottom, w + left + right)
    if targets is None and h and w and max(out_hw) < LIMIT and _one_reflection(border, h, w, (left, top, right,
                                                                                                 bottom)):
        return _copied(src, lay, h, w, (left, top, right, bottom), _fill_array(fill, func), border, func)
    return shifted(src, lay, n, h, w, out_hw, -top, -left, fill, border, targets, func)
