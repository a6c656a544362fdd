"""augpy's geometric ops with ``targets=``: the masks, boxes and keypoints of one image
follow it through resize, flip, hflip, vflip, crop, center_crop and warp_affine.

Each function is the extension's (same arguments, same result) plus a keyword
``targets``: a dict with any of ``boxes`` ((n, 4); ``labels`` filtered alike),
``keypoints`` ((n, 2|3|4); ``keypoint_labels`` alike), ``mask`` (an (H, W) integer
mask of the image's size), and the settings ``box_format`` ('xyxy'), ``box_params``
(transform_boxes' normalized / min_area / min_visibility) and ``ignore_index`` (255,
the mask value outside the source). Any other key is a TypeError that lists these.
With targets the call returns ``(result, moved)``, ``moved`` the dict with the
targets moved by the op's matrix (augpy.targets: resize_matrix, flip_matrix,
crop_matrix, center_crop_matrix, or warp_affine's own matrix; a mask comes back
(Ht, Wt)); warp_affine's result is its dst.
docs/targets.md has the conventions and examples.

Each wrapper's docstring is the extension function's (its arguments, layouts and
results) followed by the targets= paragraph below, so help(augpy.resize) shows both.
"""
from . import _augpy
from . import targets as _targets

_SETTINGS = ("box_format", "box_params", "ignore_index")
_KEYS = ("boxes", "labels", "keypoints", "keypoint_labels", "mask") + _SETTINGS

_TARGETS_DOC = """
targets: None, or a dict of the image's targets that follow it through the op: any of
'boxes' ((n, 4); 'labels' filtered alike), 'keypoints' ((n, 2|3|4); 'keypoint_labels'
alike), 'mask' (an (H, W) integer mask of the image's size) and the settings
'box_format' ('xyxy', 'xywh' or 'cxcywh'), 'box_params' (a dict of transform_boxes'
normalized / min_area / min_visibility) and 'ignore_index' (255: the mask value outside
the source). Any other key is a TypeError listing these. With targets the call returns
{returns}, moved being a new dict of the moved targets (boxes and keypoints that leave
the image dropped with their labels; the mask (Ht, Wt), warped nearest-neighbour) and
the settings as given. targets= follows one image: a batch is a ValueError (use the
batch stages or augpy.transform_boxes_batch). docs/targets.md has the conventions."""


def _documented(cfunc, returns):
    """The wrapper's __doc__: the extension function's docstring, then targets=."""
    def wrap(func):
        func.__doc__ = (cfunc.__doc__ or "").rstrip() + "\n" + _TARGETS_DOC.format(returns=returns)
        return func
    return wrap


def _check(targets, func):
    """TypeError for targets that are no dict or hold an unknown key (before the op runs)."""
    if targets is None:
        return
    if not isinstance(targets, dict):
        raise TypeError(f"{func}: targets must be a dict (boxes, labels, keypoints, keypoint_labels, mask), "
                        f"got {type(targets).__name__}")
    unknown = sorted(set(targets) - set(_KEYS), key=str)
    if unknown:
        raise TypeError(f"{func}: unknown targets key{'s' if len(unknown) > 1 else ''} "
                        f"{', '.join(repr(k) for k in unknown)} (accepted: {', '.join(_KEYS)})")


def _follow(targets, matrix, source_hw, target_hw, func):
    _check(targets, func)
    batch = {}
    for key, batch_key in (("boxes", "boxes"), ("labels", "labels"), ("keypoints", "keypoints"),
                           ("keypoint_labels", "keypoint_labels"), ("mask", "masks")):
        if targets.get(key) is not None:
            batch[batch_key] = [targets[key]]
    _targets.transform_batch_targets(batch, [matrix], [source_hw], target_hw,
                                     box_format=targets.get("box_format", "xyxy"),
                                     box_params=targets.get("box_params"),
                                     ignore_index=targets.get("ignore_index", 255), func=func)
    moved = {k: v for k, v in targets.items() if k in _SETTINGS}
    for key, batch_key in (("boxes", "boxes"), ("labels", "labels"), ("keypoints", "keypoints"),
                           ("keypoint_labels", "keypoint_labels"), ("mask", "masks")):
        if batch_key in batch:
            moved[key] = batch[batch_key][0]
    return moved


def _hw(image, layout, func):
    n, h, w, _ = _augpy.image_dims(image, layout)
    if n != 1:
        raise ValueError(f"{func}: targets= follows one image; for a batch ({n} images) use the batch stages "
                         f"or augpy.transform_boxes_batch")
    return h, w


@_documented(_augpy.resize, "(resized, moved)")
def resize(image, size, interpolation="linear", antialias=True, layout=None, out=None, *, targets=None):
    _check(targets, "augpy.resize")
    res = _augpy.resize(image, size, interpolation, antialias, layout, out)
    if targets is None:
        return res
    src, dst = _hw(image, layout, "augpy.resize"), _hw(res, layout, "augpy.resize")
    return res, _follow(targets, _targets.resize_matrix(src, dst), src, dst, "augpy.resize")


def _flipped(res, image, layout, targets, horizontal, vertical, func):
    """A flip's result, with the targets moved when given."""
    if targets is None:
        return res
    hw = _hw(image, layout, func)
    return res, _follow(targets, _targets.flip_matrix(hw, horizontal, vertical), hw, hw, func)


@_documented(_augpy.flip, "(view, moved)")
def flip(image, horizontal=True, vertical=False, layout=None, *, targets=None):
    _check(targets, "augpy.flip")
    res = _augpy.flip(image, horizontal, vertical, layout)
    return _flipped(res, image, layout, targets, bool(horizontal), bool(vertical), "augpy.flip")


@_documented(_augpy.hflip, "(view, moved)")
def hflip(image, layout=None, *, targets=None):
    _check(targets, "augpy.hflip")
    return _flipped(_augpy.hflip(image, layout), image, layout, targets, True, False, "augpy.hflip")


@_documented(_augpy.vflip, "(view, moved)")
def vflip(image, layout=None, *, targets=None):
    _check(targets, "augpy.vflip")
    return _flipped(_augpy.vflip(image, layout), image, layout, targets, False, True, "augpy.vflip")


@_documented(_augpy.crop, "(view, moved)")
def crop(image, y, x, h, w, layout=None, *, targets=None):
    _check(targets, "augpy.crop")
    res = _augpy.crop(image, y, x, h, w, layout)
    if targets is None:
        return res
    src = _hw(image, layout, "augpy.crop")
    return res, _follow(targets, _targets.crop_matrix(int(y), int(x)), src, (int(h), int(w)), "augpy.crop")


@_documented(_augpy.center_crop, "(result, moved)")
def center_crop(image, size, layout=None, *, targets=None):
    _check(targets, "augpy.center_crop")
    res = _augpy.center_crop(image, size, layout)
    if targets is None:
        return res
    src, dst = _hw(image, layout, "augpy.center_crop"), _hw(res, layout, "augpy.center_crop")
    return res, _follow(targets, _targets.center_crop_matrix(src, dst), src, dst, "augpy.center_crop")


@_documented(_augpy.warp_affine, "(dst, moved)")
def warp_affine(src, dst, matrix, background=None, supersampling=1, *, interpolation="linear", border="constant",
                layout=None, src_layout=None, targets=None):
    _check(targets, "augpy.warp_affine")
    if targets is not None and isinstance(src, (list, tuple)):
        raise ValueError("augpy.warp_affine: targets= follows one image; for a batch use the batch stages "
                         "or augpy.transform_boxes_batch")
    res = _augpy.warp_affine(src, dst, matrix, background, supersampling, interpolation=interpolation,
                             border=border, layout=layout, src_layout=src_layout)
    if targets is None:
        return res
    s, d = _hw(src, src_layout, "augpy.warp_affine"), _hw(dst, layout, "augpy.warp_affine")
    return res, _follow(targets, matrix, s, d, "augpy.warp_affine")
