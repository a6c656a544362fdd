"""torchvision's affine and rotate (transforms.v2.functional.affine / rotate) over augpy's
warp_affine: the same parameters (angle in degrees, counter-clockwise for rotate and
clockwise for affine as torchvision has them, translate in pixels, scale, shear in degrees,
center, expand, fill), the same inverse matrix (torchvision's _get_inverse_affine_matrix,
written out below), the same output size for ``expand``, and the moved targets. An
(N, ., ., .) batch takes one value or one per image for each parameter.

augpy's matrix maps an output pixel index to the source pixel index (OpenCV's
WARP_INVERSE_MAP); torchvision's maps centred coordinates (the image centre at the origin,
``(size - 1) / 2`` from the first pixel, as grid_sample with align_corners=False reads them),
so ``M_augpy = A (p - c_out) + t + c_in`` with ``[A | t]`` torchvision's matrix.
Pixels: nearest reads ``floor(x + 0.5)`` where torchvision rounds half to even (they differ
only at exact ties), and bilinear blends the fill as a constant border where torchvision
multiplies by its sampled mask; docs/warp.md states the bounds.
"""
import numpy as np

from . import _augpy
from . import _geometry

_INTERP = {"nearest": "nearest", "bilinear": "linear", "linear": "linear"}


def _per_image(value, n, width, func, name):
    """value as an (n, width) float64 array: one value (or pair) for every image, or one per image."""
    try:
        a = np.asarray(value, dtype=np.float64)
    except OverflowError:
        raise ValueError(f"{func}: {name} must be finite, got an int too large for a float") from None
    except RuntimeError as e:  # NumPy's "Content of sequences changed": an item's __float__ changed its list
        raise ValueError(f"{func}: {name} changed while it was read ({e})") from None
    if a.ndim == 0 and width == 1 or a.shape == (width,) and width > 1:
        a = np.broadcast_to(a.reshape(1, width), (n, width))
    elif a.shape == (n,) and width == 1:
        a = a.reshape(n, 1)
    elif a.shape != (n, width):
        what = "a number" if width == 1 else f"{width} numbers"
        raise ValueError(f"{func}: {name} must be {what} or one per image ({n} images), got shape {a.shape}")
    if not np.isfinite(a).all():
        raise ValueError(f"{func}: {name} must be finite, got {value!r}")
    return a


def torchvision_matrix(angle, translate, scale, shear, center):
    """torchvision's inverse affine matrices (_get_inverse_affine_matrix, inverted=True) for
    (n,) angles, (n, 2) translations, (n,) scales, (n, 2) shears and (n, 2) centres in
    centred coordinates: an (n, 2, 3) float64 array mapping centred output coordinates to
    centred source coordinates."""
    rot, sx, sy = np.radians(angle), np.radians(shear[:, 0]), np.radians(shear[:, 1])
    a = np.cos(rot - sy) / np.cos(sy)
    b = -(a * np.tan(sx) + np.sin(rot))
    c = np.sin(rot - sy) / np.cos(sy)
    d = np.cos(rot) - c * np.tan(sx)
    m = np.stack([np.stack([d, -b, np.zeros_like(d)], -1), np.stack([-c, a, np.zeros_like(d)], -1)], 1)
    m /= scale[:, None, None]
    m[:, :, 2] = 0.0
    cx, cy = center[:, 0], center[:, 1]
    px, py = cx + translate[:, 0], cy + translate[:, 1]
    m[:, 0, 2] = cx - m[:, 0, 0] * px - m[:, 0, 1] * py
    m[:, 1, 2] = cy - m[:, 1, 0] * px - m[:, 1, 1] * py
    return m


def _expanded_size(m, h, w):
    """torchvision's output (height, width) of a rotation with expand=True
    (_compute_affine_output_size: the corners mapped in float32, 1e-4 truncation)."""
    hw, hh = 0.5 * w, 0.5 * h
    pts = np.array([[-hw, -hh, 1.0], [-hw, hh, 1.0], [hw, hh, 1.0], [hw, -hh, 1.0]], np.float32)
    new = pts @ m.astype(np.float32).T
    lo, hi = new.min(0) + np.float32([hw, hh]), new.max(0) + np.float32([hw, hh])
    tol = np.float32(1e-4)
    inv = np.float32(1.0) / tol
    cmax = np.ceil(np.trunc(hi * inv) * tol)
    cmin = np.floor(np.trunc(lo * inv) * tol)
    size = cmax - cmin
    return int(size[1]), int(size[0])


def _augpy_matrix(m, src_hw, dst_hw):
    """torchvision's centred matrices (n, 2, 3) as augpy's pixel-index matrices (float32)."""
    c_in = np.array([(src_hw[1] - 1) * 0.5, (src_hw[0] - 1) * 0.5])
    c_out = np.array([(dst_hw[1] - 1) * 0.5, (dst_hw[0] - 1) * 0.5])
    out = m.copy()
    out[:, :, 2] = m[:, :, 2] - m[:, :, :2] @ c_out + c_in
    return out.astype(np.float32)


def _prepare(image, layout, func):
    """(the image as a tensor, its layout, N, H, W): the layout given, else the tensor's
    layout string, else the shape's (channels, at most 4, on one end; channels first
    when both ends could be)."""
    src = image if isinstance(image, _augpy.Tensor) else _augpy.asarray(image)
    lay = layout or src.layout or _infer(src, func)
    if not isinstance(lay, str) or len(lay) != src.ndim or lay not in ("HW", "HWC", "CHW", "NHWC", "NCHW"):
        raise ValueError(f"{func}: layout {lay!r} does not fit an image of shape {tuple(src.shape)} "
                         f"(HW, HWC, CHW, NHWC or NCHW)")
    n = src.shape[0] if "N" in lay else 1
    return src, lay, n, src.shape[lay.index("H")], src.shape[lay.index("W")]


def _warp(src, lay, matrices, src_hw, dst_hw, n, interpolation, fill, targets, func, border="constant",
          warp=None):
    """Warps src (one image or an n-image batch of layout lay) with augpy matrices into a new tensor
    (border: warp_affine's border mode; warp: _augpy.warp_affine, or warp_perspective for (n, 3, 3)
    homographies)."""
    warp = warp or _augpy.warp_affine
    interp = _INTERP.get(interpolation) if isinstance(interpolation, str) else None
    if interp is None:
        raise ValueError(f"{func}: interpolation must be 'nearest' or 'bilinear', got {interpolation!r}")
    shape = list(src.shape)
    shape[lay.index("H")], shape[lay.index("W")] = dst_hw
    dst = _augpy.empty(tuple(shape), dtype=src.dtype)  # on the current device
    if dst.device != src.device:
        dst = dst.to(src.device)
    dst.layout = lay
    if lay == "HW":  # warp_affine's one-channel images
        warp(src, dst, matrices[0], fill, interpolation=interp, border=border)
    else:
        warp(src, dst, matrices if "N" in lay else matrices[0], fill, interpolation=interp, border=border,
             layout=lay, src_layout=lay)
    if targets is None:
        return dst
    if n != 1 or "N" in lay:
        raise ValueError(f"{func}: targets= follows one image; for a batch use the batch stages")
    return dst, _geometry._follow(targets, matrices[0], src_hw, dst_hw, func)


def _infer(t, func):
    if t.ndim == 2:
        return "HW"
    if t.ndim == 3:
        return "CHW" if t.shape[0] <= 4 and t.shape[2] > 4 else "HWC" if t.shape[2] <= 4 else "CHW"
    if t.ndim == 4:
        return "NCHW" if t.shape[1] <= 4 and t.shape[3] > 4 else "NHWC" if t.shape[3] <= 4 else "NCHW"
    raise ValueError(f"{func}: an image must be (H, W), (C, H, W), (H, W, C) or a batch, got shape {tuple(t.shape)}")


def _centre(center, n, h, w, func):
    """torchvision's centre in centred coordinates: (0, 0) when None, else the pixel
    coordinates (x, y) minus half the size."""
    if center is None:
        return np.zeros((n, 2))
    return _per_image(center, n, 2, func, "center") - np.array([w * 0.5, h * 0.5])


def _affine_matrices(n, h, w, angle, translate, scale, shear, center, func):
    """affine's torchvision matrices (n, 2, 3) for n images of h x w (centred coordinates)."""
    shear = np.asarray(shear, np.float64)
    if shear.ndim == 0:
        shear = np.array([float(shear), 0.0])
    ang = _per_image(angle, n, 1, func, "angle")[:, 0]
    sc = _per_image(scale, n, 1, func, "scale")[:, 0]
    if (sc <= 0).any():
        raise ValueError(f"{func}: scale must be positive, got {scale!r}")
    return torchvision_matrix(ang, _per_image(translate, n, 2, func, "translate"), sc,
                              _per_image(shear, n, 2, func, "shear"), _centre(center, n, h, w, func))


def _rotate_matrices(n, h, w, angle, center, func):
    """rotate's angles (n,) and torchvision matrices (n, 2, 3) for n images of h x w."""
    ang = _per_image(angle, n, 1, func, "angle")[:, 0]
    return ang, torchvision_matrix(-(ang % 360.0), np.zeros((n, 2)), np.ones(n), np.zeros((n, 2)),
                                   _centre(center, n, h, w, func))


def affine(image, angle=0.0, translate=(0, 0), scale=1.0, shear=(0.0, 0.0), interpolation="nearest", fill=0,
           center=None, layout=None, *, targets=None):
    """torchvision's affine (transforms.v2.functional.affine) on an image or a batch: rotation
    by `angle` degrees (clockwise, torchvision's sign), translation (x, y) in pixels, `scale`,
    shear (x, y) in degrees (one number: x), about `center` (x, y) in pixels (None: the image
    centre); the output has the input's size. Each parameter: one value, or one per image of a
    batch. interpolation 'nearest' (torchvision's default) or 'bilinear'; fill: the value of
    pixels from outside the image (a number or one per channel). Layout: the tensor's layout
    string, else inferred from the shape (channels at most 4 on one end), else `layout`.
    Returns a new tensor (and the moved targets with targets=, as augpy.warp_affine)."""
    func = "augpy.affine"
    _geometry._check(targets, func)
    src, lay, n, h, w = _prepare(image, layout, func)
    m = _affine_matrices(n, h, w, angle, translate, scale, shear, center, func)
    return _warp(src, lay, _augpy_matrix(m, (h, w), (h, w)), (h, w), (h, w), n, interpolation, fill, targets,
                 func)


def rotate(image, angle, interpolation="nearest", expand=False, center=None, fill=0, layout=None, *,
           targets=None):
    """torchvision's rotate (transforms.v2.functional.rotate): `angle` degrees
    counter-clockwise about `center` (x, y) in pixels (None: the image centre); expand=True
    enlarges the output to hold the whole rotated image (torchvision's size rule; one angle
    for the batch then). interpolation, fill, layout and targets as for augpy.affine."""
    func = "augpy.rotate"
    _geometry._check(targets, func)
    src, lay, n, h, w = _prepare(image, layout, func)
    ang, m = _rotate_matrices(n, h, w, angle, center, func)
    out_hw = (h, w)
    if expand:
        if len(set(ang.tolist())) > 1:
            raise ValueError(f"{func}: expand=True needs one angle for the whole batch (the output size "
                             f"depends on it)")
        out_hw = _expanded_size(m[0], h, w)
    return _warp(src, lay, _augpy_matrix(m, (h, w), out_hw), (h, w), out_hw, n, interpolation, fill, targets,
                 func)
