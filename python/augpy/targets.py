"""augpy.targets: boxes and keypoints follow an image through a geometric op.

Every function takes the op's warp matrix: the (2, 3) INVERSE map (output pixel ->
source pixel) that ``make_transform`` returns and ``warp_affine`` uses, and moves
the targets with its forward map (computed in double by the C library,
aug/targets.h), or the (3, 3) homography that ``warp_perspective`` uses (NumPy
double, augpy/_homography.py; one whose last row is (0, 0, 1) is the affine
matrix of its first two rows). Conventions (albumentations'): keypoints are pixel-centre
coordinates like the matrix; box coordinates are pixel edges (a box (0, 0, W, H)
covers a W x H image). docs/targets.md has the details and examples.

Inputs may be numpy arrays / sequences (results are numpy arrays) or augpy
tensors on any device (results are tensors on the same device).
"""
import numpy as np

from . import _augpy
from . import _homography as _homography_mod

__all__ = ["transform_boxes", "transform_boxes_batch", "transform_keypoints", "transform_keypoints_batch",
           "BOX_FORMATS", "resize_matrix", "flip_matrix", "crop_matrix", "center_crop_matrix", "center_crop_offsets",
           "transform_batch_targets"]

BOX_FORMATS = ("xyxy", "xywh", "cxcywh")


def _array(value, func, name, dtype=None):
    """np.asarray(value, dtype) of a user's sequence (an augpy tensor through .numpy()); a
    sequence that changes while numpy reads it (a hostile element's __float__ clearing its
    list) is a ValueError naming the function and the argument, not numpy's RuntimeError; so is
    an int too large for the dtype (2**1100 as float64: CPython's bare OverflowError)."""
    try:
        return np.asarray(value.numpy() if isinstance(value, _augpy.Tensor) else value, dtype=dtype)
    except RuntimeError as e:
        raise ValueError(f"{func}: {name} changed while it was read ({e})") from None
    except OverflowError:
        raise ValueError(f"{func}: {name} holds an integer too large for {np.dtype(dtype).name}") from None


def _float_array(value, func, name):
    """value as a float64 array (_array)."""
    return _array(value, func, name, np.float64)


def _matrix(matrix, func, name="matrix"):
    m = _float_array(matrix, func, name)
    if m.shape != (2, 3):
        raise ValueError(f"{func}: {name} must have shape (2, 3) (the warp matrix) or (3, 3) (a homography), "
                         f"got {m.shape}")
    return m.reshape(6).tolist()


def _matrices(matrices, n, func):
    """(n, 2, 3) matrices, or (n, 3, 3) homographies (one of either for all); homographies
    whose last rows are all (0, 0, 1) come back as their (n, 2, 3) affine rows."""
    m = _float_array(matrices, func, "matrices")
    if m.shape in ((2, 3), (3, 3)):
        m = np.broadcast_to(m, (n,) + m.shape)
    if m.shape != (n, 2, 3) and m.shape != (n, 3, 3):
        raise ValueError(f"{func}: matrices must have shape ({n}, 2, 3) or ({n}, 3, 3) (one per image), "
                         f"got {m.shape}")
    return _affine_rows(m)


def _affine_rows(m):
    """m[..., :2, :] when m is a stack of homographies with last rows (0, 0, 1), else m."""
    if m.shape[-2] == 3 and (m[..., 2, :] == np.array([0.0, 0.0, 1.0])).all():
        return m[..., :2, :]
    return m


def _homography(matrix, func):
    """A (3, 3) matrix that is no affine map as float64, else None (the C path's (2, 3))."""
    m = _float_array(matrix, func, "matrix")
    if m.shape == (3, 3) and _affine_rows(m).shape == (3, 3):
        return m
    return None


def _plain(matrix, func):
    """matrix as the C path takes it: the (2, 3) rows of an affine (3, 3) homography."""
    m = _float_array(matrix, func, "matrix")
    return _affine_rows(m) if m.shape == (3, 3) else m


def _tensor_like(a, like):
    """A NumPy result as a tensor on like's device when like is a tensor."""
    if not _is_tensor(like):
        return a
    t = _augpy.array_to_tensor(np.ascontiguousarray(a))
    return t if t.device == like.device else t.to(like.device)


def _size(size, func, name):
    s = tuple(size)
    if len(s) != 2:
        raise ValueError(f"{func}: {name} must be (height, width), got {size!r}")
    return s


def _sizes(sizes, n, func):
    s = _array(sizes, func, "source_sizes")
    if s.shape == (2,):
        s = np.broadcast_to(s, (n, 2))
    if s.shape != (n, 2) or not np.issubdtype(s.dtype, np.integer):
        raise ValueError(f"{func}: source_sizes must be one (height, width) of ints or {n} of them, "
                         f"got shape {s.shape}")
    return s


def _is_tensor(x):
    return isinstance(x, _augpy.Tensor)


def _out(t, as_tensor):
    return t.numpy() if not as_tensor and _is_tensor(t) else t


def _take_labels(labels, keep, n, func):
    """labels[keep] for a numpy array / tensor / list of n labels."""
    if _is_tensor(labels):
        if labels.ndim < 1 or labels.shape[0] != n:
            raise ValueError(f"{func}: labels has {labels.shape[0] if labels.ndim else 0} entries for {n} targets")
        k = keep if _is_tensor(keep) else _augpy.array_to_tensor(np.asarray(keep, dtype=np.int64))
        if k.device != labels.device:
            k = k.to(labels.device)
        return labels[k] if k.size else labels[0:0]
    if len(labels) != n:
        raise ValueError(f"{func}: labels has {len(labels)} entries for {n} targets")
    idx = keep.numpy() if _is_tensor(keep) else np.asarray(keep)
    if isinstance(labels, np.ndarray):
        return labels[idx]
    return [labels[int(i)] for i in idx]


def _check_rows(x, ncols, func, name):
    """Shape check with the function's name before the C call (which names its own)."""
    shape = tuple(x.shape) if hasattr(x, "shape") else np.shape(x)
    if len(shape) != 2 or (shape[1] not in ncols):
        want = " or ".join(f"(n, {c})" for c in ncols)
        raise ValueError(f"{func}: {name} must have shape {want}, got {shape}")


def transform_boxes(boxes, matrix, source_size, target_size, format="xyxy", normalized=False, min_area=0.0,
                    min_visibility=0.0, labels=None):
    """Move boxes (n, 4) with a geometric op given by its warp ``matrix``.

    Each box becomes the enclosing box of its four transformed corners, is
    clipped to the target image and dropped when its visible area is 0, below
    ``min_area`` (pixels) or below ``min_visibility`` times its transformed,
    unclipped area.

    :param boxes: (n, 4) in ``format`` ('xyxy', 'xywh' or 'cxcywh'); pixel
        coordinates, or fractions of the image size with ``normalized=True``
    :param matrix: the (2, 3) warp matrix (inverse map) of the op
    :param source_size: (height, width) of the input image
    :param target_size: (height, width) of the output image
    :param labels: optional n labels (array, tensor or list), filtered alike
    :returns: ``(boxes, keep)``, or ``(boxes, keep, labels)`` with labels; keep
        holds the int64 indices of the input rows that were kept
    """
    func = "augpy.transform_boxes"
    if not _is_tensor(boxes):
        boxes = _array(boxes, func, "boxes")
    _check_rows(boxes, (4,), func, "boxes")
    h = _homography(matrix, func)
    if h is not None:
        b = boxes.numpy() if _is_tensor(boxes) else boxes
        out, keep = _homography_mod.boxes(np.asarray(b, np.float64), h, _size(source_size, func, "source_size"),
                                          _size(target_size, func, "target_size"), format, normalized, min_area,
                                          min_visibility, func)
        out, keep = _tensor_like(out, boxes), _tensor_like(keep, boxes)
    else:
        out, keep = _augpy._boxes_affine(boxes, _matrix(_plain(matrix, func), func), _size(source_size, func, "source_size"),
                                         _size(target_size, func, "target_size"), format, normalized, min_area,
                                         min_visibility, func)
    t = _is_tensor(boxes)
    result = (_out(out, t), _out(keep, t))
    if labels is not None:
        n = boxes.shape[0] if hasattr(boxes, "shape") else len(boxes)
        result += (_take_labels(labels, result[1], n, func),)
    return result


def transform_boxes_batch(boxes, matrices, source_sizes, target_size, counts=None, format="xyxy",
                          normalized=False, min_area=0.0, min_visibility=0.0, labels=None):
    """The batch form of ``transform_boxes``, for ragged boxes:

    - ``boxes`` a list of N arrays/tensors (n_i, 4): returns lists
      ``(boxes, keep)`` (``(boxes, keep, labels)`` with ``labels``, a list of N
      label arrays/lists);
    - ``boxes`` one padded (N, M, 4) array/tensor with ``counts`` (N valid rows
      per image; None: all M): returns ``(boxes (N, M, 4), counts (list),
      keep (N, M) int64)`` with each image's kept boxes first, zeros and -1 after
      (``labels`` is not taken: index a padded (N, M) label array with keep).

    ``matrices``: (N, 2, 3) (or one (2, 3) for all); ``source_sizes``: N
    (height, width) pairs or one for all; one ``target_size``.
    """
    func = "augpy.transform_boxes_batch"
    if isinstance(boxes, (list, tuple)):
        n = len(boxes)
        m = _matrices(matrices, n, func)
        s = _sizes(source_sizes, n, func)
        if counts is not None:
            raise ValueError(f"{func}: counts is for a padded (N, M, 4) tensor, not a list of boxes")
        if labels is not None and len(labels) != n:
            raise ValueError(f"{func}: labels has {len(labels)} entries for {n} images")
        outs, keeps, labs = [], [], []
        for i, b in enumerate(boxes):
            try:
                r = transform_boxes(b, m[i], tuple(int(v) for v in s[i]), target_size, format, normalized,
                                    min_area, min_visibility, None if labels is None else labels[i])
            except (ValueError, TypeError) as e:
                raise type(e)(f"{func}: image {i}: {e}") from None
            outs.append(r[0])
            keeps.append(r[1])
            if labels is not None:
                labs.append(r[2])
        return (outs, keeps, labs) if labels is not None else (outs, keeps)
    if labels is not None:
        raise ValueError(f"{func}: labels is taken with a list of boxes; index padded labels with keep")
    if not _is_tensor(boxes):
        boxes = _array(boxes, func, "boxes")
    shape = tuple(boxes.shape) if hasattr(boxes, "shape") else np.shape(boxes)
    if len(shape) != 3 or shape[2] != 4:
        raise ValueError(f"{func}: boxes must be a list of (n, 4) arrays or a padded (N, M, 4) array, "
                         f"got shape {shape}")
    n = shape[0]
    m = _matrices(matrices, n, func)
    if m.shape[1] == 3:
        raise ValueError(f"{func}: a padded (N, M, 4) batch takes (N, 2, 3) affine matrices; give homographies "
                         f"with a list of boxes")
    s = _sizes(source_sizes, n, func)
    if counts is not None:
        c = _array(counts, func, "counts")
        if c.shape != (n,):
            raise ValueError(f"{func}: counts must have {n} values (one per image), got shape {c.shape}")
        counts = c.tolist()
    out, out_counts, keep = _augpy._boxes_affine_batch(
        boxes, counts, m.reshape(-1).tolist(), s.reshape(-1).tolist(), _size(target_size, func, "target_size"),
        format, normalized, min_area, min_visibility, func)
    t = _is_tensor(boxes)
    return _out(out, t), out_counts, _out(keep, t)


def transform_keypoints(keypoints, matrix, target_size, remove_invisible=True, labels=None):
    """Move keypoints (n, 2|3|4): x, y [, angle in degrees [, scale]] with a
    geometric op given by its warp ``matrix`` (pixel-centre coordinates).

    The angle becomes that of the transformed direction, in [0, 360) (a rotation
    adds its angle, a horizontal flip gives 180 - angle); the scale is
    multiplied by sqrt(|det|) of the forward map. A keypoint is visible when
    0 <= x < width and 0 <= y < height of ``target_size``.

    :param remove_invisible: True: drop the keypoints that left the image;
        False: keep all rows (flag them with the returned indices)
    :param labels: optional n labels, filtered like the rows
    :returns: ``(keypoints, visible)`` (``+ (labels,)``), visible the int64
        indices of the input rows inside the image
    """
    func = "augpy.transform_keypoints"
    if not _is_tensor(keypoints):
        keypoints = _array(keypoints, func, "keypoints")
    _check_rows(keypoints, (2, 3, 4), func, "keypoints")
    h = _homography(matrix, func)
    if h is not None:
        k = keypoints.numpy() if _is_tensor(keypoints) else keypoints
        out, keep = _homography_mod.keypoints(np.asarray(k, np.float64), h, _size(target_size, func, "target_size"),
                                              remove_invisible, func)
        out, keep = _tensor_like(out, keypoints), _tensor_like(keep, keypoints)
    else:
        out, keep = _augpy._keypoints_affine(keypoints, _matrix(_plain(matrix, func), func),
                                             _size(target_size, func, "target_size"), remove_invisible, func)
    t = _is_tensor(keypoints)
    result = (_out(out, t), _out(keep, t))
    if labels is not None:
        n = keypoints.shape[0] if hasattr(keypoints, "shape") else len(keypoints)
        if remove_invisible:
            result += (_take_labels(labels, result[1], n, func),)
        else:
            if len(labels) != n:
                raise ValueError(f"{func}: labels has {len(labels)} entries for {n} targets")
            result += (labels,)
    return result


def transform_keypoints_batch(keypoints, matrices, target_size, remove_invisible=True, labels=None):
    """``transform_keypoints`` per image of a batch: ``keypoints`` a list of N
    (n_i, 2|3|4) arrays/tensors, ``matrices`` (N, 2, 3); returns lists."""
    func = "augpy.transform_keypoints_batch"
    if not isinstance(keypoints, (list, tuple)):
        raise TypeError(f"{func}: keypoints must be a list of (n, 2|3|4) arrays, got {type(keypoints).__name__}")
    n = len(keypoints)
    m = _matrices(matrices, n, func)
    if labels is not None and len(labels) != n:
        raise ValueError(f"{func}: labels has {len(labels)} entries for {n} images")
    results = []
    for i, k in enumerate(keypoints):
        try:
            results.append(transform_keypoints(k, m[i], target_size, remove_invisible,
                                               None if labels is None else labels[i]))
        except (ValueError, TypeError) as e:
            raise type(e)(f"{func}: image {i}: {e}") from None
    return tuple(list(r) for r in zip(*results)) if results else ([], []) if labels is None else ([], [], [])


# --- the warp matrices of the other geometric ops (docs/targets.md) ----------------------------------------
# Each is the (2, 3) float64 INVERSE map (output pixel centre -> source pixel centre) that ``warp_affine``
# takes; feed it to transform_boxes / transform_keypoints (or warp a mask with interpolation='nearest').

def _hw(value, func, name):
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        value = (value, value)
    try:
        h, w = value
    except Exception:  # noqa: BLE001 - any failure of a user's sequence is a bad argument
        raise TypeError(f"{func}: {name} must be an int or a (height, width) pair, got {value!r}") from None
    for v in (h, w):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{func}: {name} must hold positive ints, got {value!r}")
    return int(h), int(w)


def resize_matrix(src_hw, dst_hw):
    """The matrix of ``augpy.resize(img, dst_hw)`` on an image of ``src_hw``:
    pixel centres align, scale = in / out per axis (src = (dst + 0.5) * s - 0.5)."""
    func = "augpy.resize_matrix"
    (sh, sw), (dh, dw) = _hw(src_hw, func, "src_hw"), _hw(dst_hw, func, "dst_hw")
    sx, sy = sw / dw, sh / dh
    return np.array([[sx, 0.0, 0.5 * sx - 0.5], [0.0, sy, 0.5 * sy - 0.5]])


def flip_matrix(hw, horizontal=True, vertical=False):
    """The matrix of ``augpy.flip(img, horizontal, vertical)`` on an (h, w) image
    (x -> w - 1 - x, y -> h - 1 - y); it is its own inverse."""
    h, w = _hw(hw, "augpy.flip_matrix", "hw")
    m = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    if horizontal:
        m[0] = (-1.0, 0.0, w - 1.0)
    if vertical:
        m[1] = (0.0, -1.0, h - 1.0)
    return m


def crop_matrix(y, x):
    """The matrix of ``augpy.crop(img, y, x, h, w)``: a shift by (x, y) (the crop's
    size is the target size; a negative offset is padding)."""
    for name, v in (("y", y), ("x", x)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer, float, np.floating)) or not np.isfinite(v):
            raise ValueError(f"augpy.crop_matrix: {name} must be a finite number, got {v!r}")
    return np.array([[1.0, 0.0, float(x)], [0.0, 1.0, float(y)]])


def center_crop_offsets(hw, size):
    """(y, x) of ``augpy.center_crop(img, size)`` on an (h, w) image: round((h - ch) / 2)
    when the crop fits, -((ch - h) // 2) (zero padding before) when it does not."""
    func = "augpy.center_crop_matrix"
    (h, w), (ch, cw) = _hw(hw, func, "hw"), _hw(size, func, "size")

    def off(n, c):
        return int(round((n - c) / 2)) if c <= n else -((c - n) // 2)
    return off(h, ch), off(w, cw)


def center_crop_matrix(hw, size):
    """The matrix of ``augpy.center_crop(img, size)`` on an (h, w) image: the shift
    ``crop_matrix(*center_crop_offsets(hw, size))`` (negative offsets where the crop is
    larger than the image and center_crop pads with zeros)."""
    y, x = center_crop_offsets(hw, size)
    return crop_matrix(y, x)


# --- targets through the batch stages (augpy.image) -------------------------------------------------------

TARGET_KEYS = ("boxes", "keypoints", "masks")


def transform_batch_targets(batch, matrices, source_sizes, target_size, box_format="xyxy", box_params=None,
                            ignore_index=255, func="augpy.transform_batch_targets"):
    """Move the optional targets of a batch dict with each image's warp matrix,
    in place; returns ``batch``. Keys (all optional; nothing is done without them):

    - ``boxes``: a list of N (n_i, 4) arrays/tensors in ``box_format``; with
      ``labels`` (a list of N label arrays/lists) filtered alike.
      ``box_params``: a dict of transform_boxes' normalized / min_area / min_visibility.
    - ``keypoints``: a list of N (n_i, 2|3|4); those that leave the image are
      dropped, and ``keypoint_labels`` (a list of N) alike.
    - ``masks``: a list of N (H_i, W_i) integer arrays/tensors, each of its image's
      source size; replaced by one (N, Ht, Wt) tensor of the first mask's dtype and
      device, warped nearest-neighbour, ``ignore_index`` outside the source.
    """
    present = [k for k in TARGET_KEYS if batch.get(k) is not None]
    if not present:
        return batch
    n = len(matrices)
    m = np.asarray(matrices, dtype=np.float64)
    m = _affine_rows(m.reshape(n, 3, 3) if m.size == 9 * n else m.reshape(n, 2, 3))
    sizes = np.asarray(source_sizes, dtype=np.int64).reshape(n, 2)
    th, tw = target_size
    for key in present:
        if isinstance(batch[key], (str, bytes)) or not hasattr(batch[key], "__len__") or len(batch[key]) != n:
            got = len(batch[key]) if hasattr(batch[key], "__len__") else type(batch[key]).__name__
            raise ValueError(f"{func}: batch['{key}'] must be a list of {n} entries (one per image), got {got}")
    if "boxes" in present:
        params = dict(box_params or {})
        bad = set(params) - {"normalized", "min_area", "min_visibility"}
        if bad:
            raise ValueError(f"{func}: box_params takes normalized, min_area, min_visibility; got {sorted(bad)}")
        labels = batch.get("labels")
        for i, b in enumerate(batch["boxes"]):
            bb = b if _is_tensor(b) else _float_array(b, func, f"batch['boxes'][{i}]")
            if bb.size and not _is_tensor(bb) and not np.all(np.isfinite(bb)):
                raise ValueError(f"{func}: batch['boxes'][{i}] holds NaN or infinite coordinates")
        r = transform_boxes_batch(list(batch["boxes"]), m, sizes, (th, tw), format=box_format, labels=labels,
                                  **params)
        batch["boxes"] = r[0]
        if labels is not None:
            batch["labels"] = r[2]
    if "keypoints" in present:
        labels = batch.get("keypoint_labels")
        r = transform_keypoints_batch(list(batch["keypoints"]), m, (th, tw), True, labels)
        batch["keypoints"] = r[0]
        if labels is not None:
            batch["keypoint_labels"] = r[2]
    if "masks" in present:
        batch["masks"] = _warp_masks(list(batch["masks"]), m, sizes, (th, tw), ignore_index, func)
    return batch


def _warp_masks(masks, m, sizes, target_size, ignore_index, func):
    tensors = []
    for i, mask in enumerate(masks):
        t = mask if _is_tensor(mask) else None
        if t is None:
            a = _array(mask, func, f"batch['masks'][{i}]")
            if not (np.issubdtype(a.dtype, np.integer) or a.dtype == np.bool_):
                raise TypeError(f"{func}: batch['masks'][{i}] must be an integer mask, got dtype {a.dtype}")
            t = _augpy.array_to_tensor(np.ascontiguousarray(a.astype(np.uint8) if a.dtype == np.bool_ else a))
        elif t.dtype not in (_augpy.uint8, _augpy.int8, _augpy.uint16, _augpy.int16, _augpy.uint32,
                             _augpy.int32, _augpy.int64):
            raise TypeError(f"{func}: batch['masks'][{i}] must be an integer mask, got dtype {t.dtype}")
        if tuple(t.shape) != tuple(int(v) for v in sizes[i]):
            raise ValueError(f"{func}: batch['masks'][{i}] has shape {tuple(t.shape)}, "
                             f"its image is {tuple(int(v) for v in sizes[i])} (height, width)")
        tensors.append(t)
    out = _augpy.Tensor((len(masks),) + tuple(target_size), dtype=tensors[0].dtype,
                            device_id=tensors[0].device_id)
    for i, t in enumerate(tensors):
        if t.dtype != out.dtype or t.device != out.device:
            raise TypeError(f"{func}: batch['masks'][{i}] has dtype {t.dtype} on {t.device}, mask 0 "
                            f"{out.dtype} on {out.device}: give all masks one dtype and device")
        warp = _augpy.warp_perspective if m.shape[1] == 3 else _augpy.warp_affine
        warp(t, out[i], m[i].astype(np.float32), [float(ignore_index)], interpolation="nearest")
    out.layout = "NHW"
    return out
