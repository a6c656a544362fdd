"""An independent NumPy reference of augpy.resize's definition (docs/resize.md).

The tap tables are computed here in Python floats (IEEE double) from the formulas in the docs;
the sums run in NumPy in the compute type (float32 or float64) in the documented order (x taps
left to right, then y taps top to bottom, each sum starting from its first product), so the
result must equal augpy's bit for bit. The cast to the output dtype is round-half-even with
saturation (semantics section 2)."""
import math

import numpy as np

NEAREST, LINEAR, AREA_LINEAR, AREA, TRIANGLE = range(5)
FLOAT32_EXACT = {np.dtype(t) for t in ("bool", "int8", "int16", "uint8", "uint16", "float16", "float32")}


def scale_cv(n_in, n_out):
    return 1.0 / (n_out / n_in)


def axis_mode(interp, antialias, n_in, n_out, n_in2, n_out2):
    if interp == "nearest":
        return NEAREST
    if interp == "area":
        return AREA if scale_cv(n_in, n_out) >= 1.0 and scale_cv(n_in2, n_out2) >= 1.0 else AREA_LINEAR
    return TRIANGLE if antialias and n_in > n_out else LINEAR


def _two(f, t, n_in):
    i = int(f)
    if i < 0:
        i, t = 0, 0.0
    if i >= n_in - 1:
        i, t = n_in - 1, 0.0
    return (i, [1.0]) if t == 0.0 else (i, [1.0 - t, t])


def taps(mode, n_in, n_out, o):
    """(first source index, [weights]) of output coordinate o."""
    s = scale_cv(n_in, n_out)
    if mode == NEAREST:
        return min(int(math.floor(o * s)), n_in - 1), [1.0]
    if mode == LINEAR:
        p = (o + 0.5) * s - 0.5
        f = math.floor(p)
        return _two(f, p - f, n_in)
    if mode == AREA_LINEAR:
        f = math.floor(o * s)
        t = (o + 1.0) - (f + 1.0) * (n_out / n_in)
        t = 0.0 if t <= 0.0 else t - math.floor(t)
        return _two(f, t, n_in)
    if mode == AREA:
        f1 = o * s
        f2 = f1 + s
        cell = min(s, n_in - f1)
        i1, i2 = math.ceil(f1), math.floor(f2)
        i2 = min(i2, n_in - 1)
        i1 = min(i1, i2)
        first, w = i1, []
        if i1 - f1 > 1e-3:
            first = i1 - 1
            w.append((i1 - f1) / cell)
        w += [1.0 / cell] * (i2 - i1)
        if f2 - i2 > 1e-3:
            w.append(min(f2 - i2, 1.0, cell) / cell)
        return first, w
    # TRIANGLE: Pillow's precompute_coeffs with the bilinear filter
    sc = n_in / n_out
    c = (o + 0.5) * sc
    lo, hi = max(int(c - sc + 0.5), 0), min(int(c + sc + 0.5), n_in)
    w = [1.0 - abs(x) if abs(x) < 1.0 else 0.0 for x in [(i - c + 0.5) * (1.0 / sc) for i in range(lo, hi)]]
    while w and w[0] == 0.0:
        w.pop(0)
        lo += 1
    while len(w) > 1 and w[-1] == 0.0:
        w.pop()
    total = sum_left(w)
    return lo, [x / total for x in w]


def sum_left(values):
    acc = 0.0
    for v in values:
        acc += v
    return acc


def table(mode, n_in, n_out):
    return [taps(mode, n_in, n_out, o) for o in range(n_out)]


def saturate(values, dtype):
    """Round half to even and clamp into dtype (NaN -> 0), or IEEE-round to a float dtype with
    saturation at the largest finite value."""
    dtype = np.dtype(dtype)
    v = np.asarray(values, np.float64)
    if dtype == np.bool_:
        return v != 0
    if dtype.kind == "f":
        info = np.finfo(dtype)
        with np.errstate(over="ignore", invalid="ignore"):
            r = v.astype(dtype)
        big = np.isinf(r) & np.isfinite(v)
        r[big] = np.where(v[big] > 0, info.max, info.min)
        return r
    info = np.iinfo(dtype)
    r = np.rint(np.nan_to_num(v, nan=0.0, posinf=float(info.max), neginf=float(info.min)))
    r = np.clip(r, info.min, info.max)
    if dtype.itemsize == 8:  # beyond 2^63 float64 is exact only as a power of two: clamp explicitly
        out = np.empty(r.shape, dtype)
        flat_r, flat_o = r.ravel(), out.ravel()
        for i, x in enumerate(flat_r):
            flat_o[i] = info.max if x >= float(info.max) else info.min if x <= float(info.min) else int(x)
        return out
    return r.astype(dtype)


def resize_hwc(img, out_h, out_w, interp="bilinear", antialias=True, out_dtype=None):
    """img: (H, W, C) NumPy array of any dtype. Returns (out_h, out_w, C) in out_dtype (default: img's)."""
    out_dtype = np.dtype(out_dtype or img.dtype)
    H, W, C = img.shape
    mx = axis_mode(interp, antialias, W, out_w, H, out_h)
    my = axis_mode(interp, antialias, H, out_h, W, out_w)
    tx, ty = table(mx, W, out_w), table(my, H, out_h)
    single = all(len(w) == 1 and w[0] == 1.0 for _, w in tx + ty)
    if single:  # an exact gather, then the conversion
        rows = np.array([f for f, _ in ty])
        cols = np.array([f for f, _ in tx])
        picked = img[rows][:, cols]
        if picked.dtype == out_dtype:
            return picked.copy()
        return saturate(picked.astype(np.float64), out_dtype) if picked.dtype.kind != "i" and picked.dtype.kind != "u" \
            else _int_convert(picked, out_dtype)
    ct = np.float32 if np.dtype(img.dtype) in FLOAT32_EXACT and out_dtype != np.float64 else np.float64
    v = img.astype(ct)
    hx = np.empty((H, out_w, C), ct)
    for x, (f, w) in enumerate(tx):
        acc = ct(w[0]) * v[:, f, :]
        for k in range(1, len(w)):
            acc = acc + ct(w[k]) * v[:, f + k, :]
        hx[:, x, :] = acc
    out = np.empty((out_h, out_w, C), ct)
    for y, (f, w) in enumerate(ty):
        acc = ct(w[0]) * hx[f]
        for k in range(1, len(w)):
            acc = acc + ct(w[k]) * hx[f + k]
        out[y] = acc
    return saturate(out, out_dtype)


def _int_convert(a, dtype):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return a != 0
    if dtype.kind == "f":
        return saturate(a.astype(np.float64), dtype)
    info = np.iinfo(dtype)
    return np.clip(a.astype(object), info.min, info.max).astype(dtype)
