"""augpy.targets: boxes and keypoints follow an image through a geometric op.

Every function takes the op's warp matrix: the (2, 3) INVERSE map (output pixel ->
source pixel) that ``make_transform`` returns and ``warp_affine`` uses, and moves
the targets with its forward map (computed in double by the C library,
aug/targets.h). Conventions (albumentations'): keypoints are pixel-centre
coordinates like the matrix; box coordinates are pixel edges (a box (0, 0, W, H)
covers a W x H image). docs/targets.md has the details and examples.

Inputs may be numpy arrays / sequences (results are numpy arrays) or augpy
tensors on any device (results are tensors on the same device).
"""
import numpy as np

from . import _augpy

__all__ = ["transform_boxes", "transform_boxes_batch", "transform_keypoints", "transform_keypoints_batch",
           "BOX_FORMATS"]

BOX_FORMATS = ("xyxy", "xywh", "cxcywh")


def _matrix(matrix, func, name="matrix"):
    m = np.asarray(matrix.numpy() if isinstance(matrix, _augpy.CudaTensor) else matrix, dtype=np.float64)
    if m.shape != (2, 3):
        raise ValueError(f"{func}: {name} must have shape (2, 3) (the warp matrix), got {m.shape}")
    return m.reshape(6).tolist()


def _matrices(matrices, n, func):
    m = np.asarray(matrices.numpy() if isinstance(matrices, _augpy.CudaTensor) else matrices, dtype=np.float64)
    if m.shape == (2, 3):
        m = np.broadcast_to(m, (n, 2, 3))
    if m.shape != (n, 2, 3):
        raise ValueError(f"{func}: matrices must have shape ({n}, 2, 3) (one per image), got {m.shape}")
    return m


def _size(size, func, name):
    s = tuple(size)
    if len(s) != 2:
        raise ValueError(f"{func}: {name} must be (height, width), got {size!r}")
    return s


def _sizes(sizes, n, func):
    s = np.asarray(sizes)
    if s.shape == (2,):
        s = np.broadcast_to(s, (n, 2))
    if s.shape != (n, 2) or not np.issubdtype(s.dtype, np.integer):
        raise ValueError(f"{func}: source_sizes must be one (height, width) of ints or {n} of them, "
                         f"got shape {s.shape}")
    return s


def _is_tensor(x):
    return isinstance(x, _augpy.CudaTensor)


def _out(t, as_tensor):
    return t if as_tensor else t.numpy()


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
        boxes = np.asarray(boxes)
    _check_rows(boxes, (4,), func, "boxes")
    m = _matrix(matrix, func)
    out, keep = _augpy._boxes_affine(boxes, m, _size(source_size, func, "source_size"),
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
        boxes = np.asarray(boxes)
    shape = tuple(boxes.shape) if hasattr(boxes, "shape") else np.shape(boxes)
    if len(shape) != 3 or shape[2] != 4:
        raise ValueError(f"{func}: boxes must be a list of (n, 4) arrays or a padded (N, M, 4) array, "
                         f"got shape {shape}")
    n = shape[0]
    m = _matrices(matrices, n, func)
    s = _sizes(source_sizes, n, func)
    if counts is not None:
        c = np.asarray(counts.numpy() if _is_tensor(counts) else counts)
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
        keypoints = np.asarray(keypoints)
    _check_rows(keypoints, (2, 3, 4), func, "keypoints")
    m = _matrix(matrix, func)
    out, keep = _augpy._keypoints_affine(keypoints, m, _size(target_size, func, "target_size"), remove_invisible,
                                         func)
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
