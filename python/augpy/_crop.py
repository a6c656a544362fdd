"""Random and evaluation crops: torchvision's RandomCrop (transforms.v2.RandomCrop: optional
padding, pad_if_needed, the crop's corner drawn uniformly, make_params written out in
``crop_params``) as the functional ``random_crop`` and the batch stage ``RandomCrop`` (per image
from the seed model, stream 'RandomCrop'; each augmentation dict records ``'random_crop'``:
(top, left) in the padded image, replayed when given; the batch's boxes, keypoints and masks
follow each image's shift, augpy.targets.transform_batch_targets), and ``five_crop`` / ``ten_crop``
(torchvision's order: top-left, top-right, bottom-left, bottom-right, centre; then the same of
the flipped image). Padding and crop are one warp with an integer translation (augpy/_pad.py):
exactly torchvision's pad followed by its crop."""
import numpy as np

from . import _affine
from . import _augpy
from . import _geometry
from ._colour_stages import _image_batch
from ._decode_stage import _augmentation_list, _restore_stage
from . import _pad
from . import _sampling
from . import targets as _targets


def parse_size(size, func):
    """torchvision's size: an int or a sequence of 1 or 2 ints, as (height, width) >= 1."""
    def is_int(v):
        return not isinstance(v, bool) and hasattr(v, "__index__")
    vals = [size] if is_int(size) else None
    if vals is None:
        try:
            vals = list(size)
        except TypeError:
            vals = []
    if len(vals) not in (1, 2) or not all(is_int(v) for v in vals):
        raise TypeError(f"{func}: size must be an int or (height, width) ints, got {size!r}")
    vals = [v.__index__() for v in vals] * (3 - len(vals))
    if min(vals[:2]) < 1:
        raise ValueError(f"{func}: size must be >= 1, got {size!r}")
    if max(vals[:2]) >= _pad.LIMIT:
        big = max(vals[:2])  # an int past CPython's str() limit is named by its bits
        raise ValueError(f"{func}: size must be below 2**24, got "
                         f"{big if big.bit_length() < 1000 else f'an int of {big.bit_length()} bits'}")
    return vals[0], vals[1]


def crop_params(h, w, size, padding, pad_if_needed, u_top, u_left, func):
    """torchvision's RandomCrop.make_params for an h x w image: ((left, top, right, bottom)
    padding, top, left), top and left in the padded image, drawn from uniforms u in [0, 1) as
    torch.randint(0, n) draws (each of the n values equally likely)."""
    left_pad, top_pad, right_pad, bottom_pad = padding or (0, 0, 0, 0)
    ph, pw = h + top_pad + bottom_pad, w + left_pad + right_pad
    ch, cw = size
    if pad_if_needed:
        if ph < ch:
            diff = ch - ph
            top_pad, bottom_pad, ph = top_pad + diff, bottom_pad + diff, ph + 2 * diff
        if pw < cw:
            diff = cw - pw
            left_pad, right_pad, pw = left_pad + diff, right_pad + diff, pw + 2 * diff
    if ph < ch or pw < cw:
        raise ValueError(f"{func}: crop size {(ch, cw)} is larger than the {'padded ' if padding else ''}"
                         f"image {(ph, pw)} (pad_if_needed=True pads it)")
    top = min(int(u_top * (ph - ch + 1)), ph - ch) if ph > ch else 0
    left = min(int(u_left * (pw - cw + 1)), pw - cw) if pw > cw else 0
    return (left_pad, top_pad, right_pad, bottom_pad), top, left


def _check_args(size, padding, pad_if_needed, padding_mode, func):
    size = parse_size(size, func)
    padding = _pad.parse_padding(padding, func) if padding is not None else None
    return size, padding, bool(pad_if_needed), _pad.border_of(padding_mode, func)


def random_crop(image, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant", layout=None, *,
                rng=None):
    """torchvision's RandomCrop on one image (HW, HWC, CHW; or a batch NHWC / NCHW, cropped
    alike, as torchvision crops a batch tensor): pad by ``padding`` (augpy.pad's forms,
    ``fill`` and ``padding_mode``), pad more when the image is smaller than ``size`` and
    ``pad_if_needed``, then crop ``size`` (an int or (height, width)) at a corner drawn
    uniformly. rng: an augpy.RandomNumberGenerator (two uniforms drawn; None: a generator
    seeded from the OS). Returns a new tensor. ValueError when the crop is larger than the
    (padded) image without pad_if_needed."""
    func = "augpy.random_crop"
    size, padding, pad_if_needed, border = _check_args(size, padding, pad_if_needed, padding_mode, func)
    src, lay, n, h, w = _affine._prepare(image, layout, func)
    if rng is None:
        rng = _augpy.RandomNumberGenerator()
    u = np.empty(2, np.float64)
    rng.uniform(u, 0.0, 1.0)
    pads, top, left = crop_params(h, w, size, padding, pad_if_needed, u[0], u[1], func)
    return _pad.shifted(src, lay, n, h, w, size, top - pads[1], left - pads[0], fill, border, None, func)


class RandomCrop(_sampling.Sampled):
    """torchvision's ``RandomCrop(size, padding, pad_if_needed, fill, padding_mode)`` on a
    (N, C, H, W) batch (or one whose layout string is 'NHWC'; any dtype, any device): a new
    batch of (height, width) images, each image
    cropped at its own corner drawn from the seed model (augpy.image; stream 'RandomCrop').
    Each augmentation dict gets ``'random_crop'``: (top, left) in the padded image
    (torchvision's params); a dict that has one is replayed. The CIFAR recipe is
    ``RandomCrop(32, padding=4)``. ValueError when the crop is larger than the (padded)
    image without pad_if_needed.

    Targets: boxes, keypoints and masks of the batch (augpy.targets.transform_batch_targets,
    as RandomPerspective; settings: the attributes box_format, box_params, ignore_index)
    follow each image's padding and crop, a translation by (left_pad - left, top_pad - top):
    boxes are shifted and clipped to the crop (dropped when nothing is left), keypoints
    outside the crop are dropped, and masks are cropped alike with ``ignore_index`` in the
    padding whatever ``padding_mode`` is (a reflected band holds no labelled object: its
    pixels are ignored, and reflected copies of boxes or keypoints are not added)."""

    draws = 2
    box_format = "xyxy"
    box_params = None
    ignore_index = 255

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant", seed=None):
        func = "RandomCrop"
        self._params = dict(size=size, padding=padding, pad_if_needed=pad_if_needed, fill=fill,
                            padding_mode=padding_mode, seed=seed)
        self.size, self.padding, self.pad_if_needed, self._border = _check_args(size, padding, pad_if_needed,
                                                                                 padding_mode, func)
        self.fill, self.padding_mode = fill, padding_mode
        self._init_sampling(seed)

    def __reduce__(self):
        return _restore_stage, (type(self), self._params, self._sampling_state())

    def __call__(self, batch):
        """``batch['image']`` replaced by the new batch of crops; each augmentation dict gets
        ``'random_crop'``."""
        func = "RandomCrop"
        image = _image_batch(batch, func, "(N, C, H, W)")
        lay = image.layout if image.layout in ("NCHW", "NHWC") else "NCHW"
        n, h, w = image.shape[0], image.shape[lay.index("H")], image.shape[lay.index("W")]
        augmentation = [dict(a) for a in _augmentation_list(batch.get("augmentation"), n, func)]
        states = self._rng_states(augmentation)
        pads, _, _ = crop_params(h, w, self.size, self.padding, self.pad_if_needed, 0.0, 0.0, func)
        ph, pw = h + pads[1] + pads[3], w + pads[0] + pads[2]
        dy, dx = np.empty(n, np.int64), np.empty(n, np.int64)
        for k in range(n):
            rec = augmentation[k].get("random_crop")
            if rec is None:
                u = _sampling.generator_at(states[k], self.draws)[1]
                _, top, left = crop_params(h, w, self.size, self.padding, self.pad_if_needed, u[0], u[1], func)
                augmentation[k]["random_crop"] = (top, left)
            else:
                top, left = _recorded(rec, ph - self.size[0], pw - self.size[1], k, func)
            dy[k], dx[k] = top - pads[1], left - pads[0]
        out = _pad.shifted(image, lay, n, h, w, self.size, dy, dx, self.fill, self._border, None, func)
        batch["image"] = out
        batch["augmentation"] = augmentation
        return _targets.transform_batch_targets(batch, _pad.translation(n, dy, dx).astype(np.float64),
                                                [(h, w)] * n, self.size, self.box_format, self.box_params,
                                                self.ignore_index, func)


def _recorded(rec, max_top, max_left, k, func):
    try:
        top, left = (v.__index__() for v in rec)
    except (TypeError, ValueError, AttributeError):
        raise TypeError(f"{func}: augmentation[{k}]['random_crop'] must be (top, left) ints, got {rec!r}") from None
    if not (0 <= top <= max_top and 0 <= left <= max_left):
        raise ValueError(f"{func}: augmentation[{k}]['random_crop'] = {rec!r} is outside 0..{max_top}, "
                         f"0..{max_left}")
    return top, left


def five_crop(image, size, layout=None):
    """torchvision's five_crop: the (top-left, top-right, bottom-left, bottom-right, centre)
    crops of ``size`` (an int or (height, width)) of an image or a batch (views, no copy; the
    centre as augpy.center_crop: its offset round((H - h) / 2), half to even). ValueError when
    size is larger than the image."""
    func = "augpy.five_crop"
    ch, cw = parse_size(size, func)
    _, h, w, _ = _augpy.image_dims(image, layout)
    if ch > h or cw > w:
        raise ValueError(f"{func}: crop size {(ch, cw)} is larger than the image {(h, w)}")
    crop = _augpy.crop
    return (crop(image, 0, 0, ch, cw, layout), crop(image, 0, w - cw, ch, cw, layout),
            crop(image, h - ch, 0, ch, cw, layout), crop(image, h - ch, w - cw, ch, cw, layout),
            _geometry.center_crop(image, (ch, cw), layout))


def ten_crop(image, size, vertical_flip=False, layout=None):
    """torchvision's ten_crop: five_crop of the image, then five_crop of it flipped
    left-right (or upside down with vertical_flip=True); ten views."""
    func = "augpy.ten_crop"
    parse_size(size, func)
    flipped = _augpy.vflip(image, layout) if vertical_flip else _augpy.hflip(image, layout)
    return five_crop(image, size, layout) + five_crop(flipped, size, layout)
