"""The perspective warp's Python side (docs/warp.md "Perspective"): warp_perspective with
targets=, torchvision's perspective (transforms.v2.functional.perspective: its coefficient
solve, _get_perspective_coeffs, written out below) and torchvision's RandomPerspective
sampler (random_perspective_points: the four corners moved inward by up to
distortion_scale * half the size), which the batch stage augpy.image.RandomPerspective
(augpy/_perspective_stage.py) draws per image from the seed model.

torchvision's coefficients (a, b, c, d, e, f, g, h) map an output point to the source point
``((a x + b y + c) / (g x + h y + 1), (d x + e y + f) / (g x + h y + 1))`` in continuous
coordinates (a pixel's centre at +0.5, as grid_sample with align_corners=False reads them);
augpy's matrix maps pixel indices (centres at integers, as warp_affine and OpenCV), so
``M = T(-0.5) H T(0.5)`` with H the coefficients as a 3 x 3 matrix.
"""
import numpy as np

from . import _augpy
from ._affine import _prepare, _warp
from ._geometry import _check, _documented, _follow, _hw

_SHIFT = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.5], [0.0, 0.0, 1.0]])
_UNSHIFT = np.array([[1.0, 0.0, -0.5], [0.0, 1.0, -0.5], [0.0, 0.0, 1.0]])


@_documented(_augpy.warp_perspective, "(dst, moved)")
def warp_perspective(src, dst, matrix, background=None, supersampling=1, *, interpolation="linear",
                     border="constant", layout=None, src_layout=None, targets=None):
    func = "augpy.warp_perspective"
    _check(targets, func)
    if targets is not None and isinstance(src, (list, tuple)):
        raise ValueError(f"{func}: targets= follows one image; for a batch use the batch stages or "
                         f"augpy.transform_boxes_batch")
    res = _augpy.warp_perspective(src, dst, matrix, background, supersampling, interpolation=interpolation,
                                  border=border, layout=layout, src_layout=src_layout)
    if targets is None:
        return res
    s, d = _hw(src, src_layout, func), _hw(dst, layout, func)
    return res, _follow(targets, matrix, s, d, func)


def _points(value, func, name):
    a = np.asarray(value, dtype=np.float64)
    if a.shape != (4, 2) or not np.isfinite(a).all():
        raise ValueError(f"{func}: {name} must be 4 finite (x, y) points (top-left, top-right, bottom-right, "
                         f"bottom-left), got {value!r}")
    return a


def perspective_coeffs(startpoints, endpoints):
    """torchvision's _get_perspective_coeffs: the 8 coefficients (a, b, c, d, e, f, g, h),
    rounded to float32 as torchvision returns them, of the map from the output (endpoints)
    to the source (startpoints): 4 (x, y) points each, [top-left, top-right, bottom-right,
    bottom-left]. The 8 x 8 system is solved in float64 (torchvision: least squares, gels)."""
    func = "augpy.perspective_coeffs"
    s, e = _points(startpoints, func, "startpoints"), _points(endpoints, func, "endpoints")
    a = np.zeros((8, 8))
    for i, ((x, y), (u, v)) in enumerate(zip(e, s)):
        a[2 * i] = [x, y, 1, 0, 0, 0, -u * x, -u * y]
        a[2 * i + 1] = [0, 0, 0, x, y, 1, -v * x, -v * y]
    try:
        res = np.linalg.solve(a, s.reshape(8))
    except np.linalg.LinAlgError:
        raise ValueError(f"{func}: the points do not determine a perspective (three of them on a line?): "
                         f"startpoints {s.tolist()}, endpoints {e.tolist()}") from None
    if not np.isfinite(res).all():
        raise ValueError(f"{func}: the points do not determine a perspective: {s.tolist()}, {e.tolist()}")
    return res.astype(np.float32).astype(np.float64).tolist()


def perspective_matrix(startpoints, endpoints):
    """augpy's (3, 3) float64 matrix (output pixel index -> source pixel index, what
    warp_perspective takes) of torchvision's perspective(startpoints, endpoints)."""
    c = perspective_coeffs(startpoints, endpoints)
    h = np.array([c[0:3], c[3:6], [c[6], c[7], 1.0]])
    return _UNSHIFT @ h @ _SHIFT


def perspective(image, startpoints, endpoints, interpolation="bilinear", fill=0, layout=None, *, targets=None):
    """torchvision's perspective (transforms.v2.functional.perspective) on an image or a batch:
    the output shows the source's `startpoints` (4 (x, y) corners: top-left, top-right,
    bottom-right, bottom-left) at `endpoints`; a batch takes one pair or one per image
    ((N, 4, 2) each). interpolation 'bilinear' (torchvision's default) or 'nearest'; fill the
    value outside the source (a number or one per channel). Layout and targets= as
    augpy.affine. Returns a new tensor (and the moved targets)."""
    func = "augpy.perspective"
    _check(targets, func)
    src, lay, n, h, w = _prepare(image, layout, func)
    sp, ep = np.asarray(startpoints, np.float64), np.asarray(endpoints, np.float64)
    sp = np.broadcast_to(sp, (n, 4, 2)) if sp.shape == (4, 2) else sp
    ep = np.broadcast_to(ep, (n, 4, 2)) if ep.shape == (4, 2) else ep
    if sp.shape != (n, 4, 2) or ep.shape != (n, 4, 2):
        raise ValueError(f"{func}: startpoints and endpoints must be 4 (x, y) points or one set per image "
                         f"({n} images), got shapes {sp.shape} and {ep.shape}")
    m = np.stack([perspective_matrix(sp[i], ep[i]) for i in range(n)]).astype(np.float32)
    return _warp(src, lay, m, (h, w), (h, w), n, interpolation, fill, targets, func,
                 warp=_augpy.warp_perspective)


def random_perspective_points(u, height, width, distortion_scale):
    """torchvision's RandomPerspective corners from 8 uniform draws u in [0, 1): (startpoints,
    endpoints) as lists of 4 [x, y] ints. Each corner moves inward by an integer uniform in
    [0, int(distortion_scale * (size // 2))] per axis (torchvision's torch.randint bounds)."""
    bh = int(distortion_scale * (height // 2)) + 1
    bw = int(distortion_scale * (width // 2)) + 1

    def randint(v, lo, hi):  # torch.randint(lo, hi): hi - lo values
        return lo + min(int(v * (hi - lo)), hi - lo - 1)

    end = [[randint(u[0], 0, bw), randint(u[1], 0, bh)],
           [randint(u[2], width - bw, width), randint(u[3], 0, bh)],
           [randint(u[4], width - bw, width), randint(u[5], height - bh, height)],
           [randint(u[6], 0, bw), randint(u[7], height - bh, height)]]
    start = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
    return start, end
