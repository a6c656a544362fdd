"""Boxes and keypoints through a 3 x 3 homography (the perspective warp's matrix), in
NumPy double: augpy.targets calls these for a (3, 3) matrix whose last row is not
(0, 0, 1) (an affine one goes through the C library's aug_boxes_affine, the same result).

The matrix M is warp_perspective's INVERSE map (output pixel -> source pixel); targets
move with its inverse F = M^-1. Conventions as aug/targets.h: keypoints are pixel-centre
coordinates (p' = F p, then divided by w), box coordinates pixel edges
(p' = F (p - 0.5) + 0.5). A point whose w = (F p)_w is not positive has no place in the
output (the warp shows the background there: docs/warp.md): a keypoint there is invisible
(NaN coordinates when kept), a box with such a corner is dropped. Otherwise a box becomes
the enclosing box of its four mapped corners (exact: w is positive over the whole box, so
its image is a convex quadrilateral), clipped to the output and filtered by min_area /
min_visibility like the affine path; a keypoint's angle turns with the map's Jacobian at
the point and its scale is multiplied by sqrt(|det J|)."""
import math

import numpy as np


def forward(matrix, func):
    """F = M^-1 of a finite (3, 3) M with a nonzero determinant (else ValueError)."""
    m = np.asarray(matrix, np.float64)
    det = np.linalg.det(m) if np.isfinite(m).all() else float("nan")
    if not (math.isfinite(det) and det != 0.0):
        raise ValueError(f"{func}: the matrix must be finite and invertible, got {m.tolist()!r}")
    return np.linalg.inv(m)


def _apply(f, x, y):
    """(x', y', w) of points (x, y) under F (w: F's third row, before the division)."""
    w = f[2, 0] * x + f[2, 1] * y + f[2, 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        return (f[0, 0] * x + f[0, 1] * y + f[0, 2]) / w, (f[1, 0] * x + f[1, 1] * y + f[1, 2]) / w, w


def _to_xyxy(b, fmt, normalized, sh, sw, func):
    if b.size and not np.isfinite(b).all():
        i = int(np.argwhere(~np.isfinite(b))[0, 0])
        raise ValueError(f"{func}: box {i} has a non-finite value")
    a, c, d, e = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
    if fmt == "xyxy":
        bad = np.flatnonzero((d < a) | (e < c))
        if bad.size:
            raise ValueError(f"{func}: box {int(bad[0])} has x_max < x_min or y_max < y_min")
        r = b.copy()
    else:
        bad = np.flatnonzero((d < 0) | (e < 0))
        if bad.size:
            raise ValueError(f"{func}: box {int(bad[0])} has a negative width or height")
        x0, y0 = (a, c) if fmt == "xywh" else (a - d / 2, c - e / 2)
        r = np.stack([x0, y0, x0 + d, y0 + e], 1)
    if normalized:
        r = r * np.array([sw, sh, sw, sh], np.float64)
    return r


def _from_xyxy(r, fmt, normalized, th, tw):
    if normalized:
        r = r / np.array([tw, th, tw, th], np.float64)
    x0, y0, x1, y1 = r[:, 0], r[:, 1], r[:, 2], r[:, 3]
    if fmt == "xyxy":
        return r
    if fmt == "xywh":
        return np.stack([x0, y0, x1 - x0, y1 - y0], 1)
    return np.stack([(x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0], 1)


def boxes(b, matrix, source_size, target_size, fmt, normalized, min_area, min_visibility, func):
    """(out (k, 4) float64, keep (k,) int64) for boxes b (n, 4) float64."""
    from .targets import BOX_FORMATS
    if fmt not in BOX_FORMATS:
        raise ValueError(f"{func}: unknown box format {fmt!r} (expected 'xyxy', 'xywh' or 'cxcywh')")
    sh, sw = (int(v) for v in source_size)
    th, tw = (int(v) for v in target_size)
    if min(sh, sw, th, tw) < 1:
        raise ValueError(f"{func}: sizes must be positive, got source {source_size!r}, target {target_size!r}")
    min_area, min_visibility = float(min_area), float(min_visibility)
    if not (math.isfinite(min_area) and min_area >= 0):
        raise ValueError(f"{func}: min_area must be finite and >= 0, got {min_area!r}")
    if not 0.0 <= min_visibility <= 1.0:
        raise ValueError(f"{func}: min_visibility must be in [0, 1], got {min_visibility!r}")
    f = forward(matrix, func)
    r = _to_xyxy(np.asarray(b, np.float64).reshape(-1, 4), fmt, normalized, sh, sw, func)
    px = np.stack([r[:, 0], r[:, 2], r[:, 0], r[:, 2]], 1) - 0.5
    py = np.stack([r[:, 1], r[:, 1], r[:, 3], r[:, 3]], 1) - 0.5
    qx, qy, w = _apply(f, px, py)
    front = (w > 0).all(1)
    qx, qy = np.where(front[:, None], qx, 0.0) + 0.5, np.where(front[:, None], qy, 0.0) + 0.5
    x0, x1, y0, y1 = qx.min(1), qx.max(1), qy.min(1), qy.max(1)
    area = (x1 - x0) * (y1 - y0)
    c = np.stack([np.clip(x0, 0, tw), np.clip(y0, 0, th), np.clip(x1, 0, tw), np.clip(y1, 0, th)], 1)
    carea = (c[:, 2] - c[:, 0]) * (c[:, 3] - c[:, 1])
    keep = np.flatnonzero(front & (carea > 0) & (carea >= min_area) & (carea >= min_visibility * area))
    return _from_xyxy(c[keep], fmt, normalized, th, tw), keep.astype(np.int64)


def keypoints(kp, matrix, target_size, remove_invisible, func):
    """(out, visible int64) for keypoints kp (n, 2|3|4) float64."""
    th, tw = (int(v) for v in target_size)
    if min(th, tw) < 1:
        raise ValueError(f"{func}: target_size must be positive, got {target_size!r}")
    kp = np.asarray(kp, np.float64)
    if kp.size and not np.isfinite(kp).all():
        raise ValueError(f"{func}: keypoint {int(np.argwhere(~np.isfinite(kp))[0, 0])} has a non-finite value")
    f = forward(matrix, func)
    x, y, w = _apply(f, kp[:, 0], kp[:, 1])
    front = w > 0
    visible = front & (x >= 0) & (x < tw) & (y >= 0) & (y < th)
    out = kp.copy()
    out[:, 0], out[:, 1] = np.where(front, x, np.nan), np.where(front, y, np.nan)
    if kp.shape[1] >= 3:
        # the Jacobian of the map at the point: d(x')/d(x, y) = (F0 - x' F2) / w, likewise y'
        with np.errstate(divide="ignore", invalid="ignore"):
            j00, j01 = (f[0, 0] - x * f[2, 0]) / w, (f[0, 1] - x * f[2, 1]) / w
            j10, j11 = (f[1, 0] - y * f[2, 0]) / w, (f[1, 1] - y * f[2, 1]) / w
        a = np.radians(kp[:, 2])
        ca, sa = np.cos(a), np.sin(a)
        ang = np.degrees(np.arctan2(j10 * ca + j11 * sa, j00 * ca + j01 * sa))
        ang = np.where(ang < 0, ang + 360.0, ang)
        out[:, 2] = np.where(front, np.where(ang >= 360.0, ang - 360.0, ang), np.nan)
        if kp.shape[1] == 4:
            out[:, 3] = np.where(front, kp[:, 3] * np.sqrt(np.abs(j00 * j11 - j01 * j10)), np.nan)
    idx = np.flatnonzero(visible).astype(np.int64)
    return (out[idx] if remove_invisible else out), idx
