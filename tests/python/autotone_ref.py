"""torchvision v2's equalize, autocontrast and adjust_sharpness written out with NumPy for the
autotone tests (test_equalize.py, test_autocontrast.py, test_adjust_sharpness.py): per channel of
an (N, C, H, W) array, torch's float32 arithmetic step by step (the sharpness blur as float32
fused multiply-adds row by row, emulated exactly enough in long double)."""
import numpy as np

F32 = np.float32


def channels_first(x, layout):
    """(N, C, H, W) view of x (HW, CHW, HWC, NCHW, NHWC) and the function putting one back."""
    if layout == "HW":
        return x[None, None], lambda y: y[0, 0]
    if layout in ("CHW", "NCHW"):
        return (x[None] if layout == "CHW" else x), (lambda y: y[0]) if layout == "CHW" else (lambda y: y)
    nchw = (x[None] if layout == "HWC" else x).transpose(0, 3, 1, 2)
    back = lambda y: y.transpose(0, 2, 3, 1)[0] if layout == "HWC" else y.transpose(0, 2, 3, 1)  # noqa: E731
    return nchw, back


def levels(x):
    """float32 -> the uint8 level equalize bins by (x * 255.999 truncated; outside: clamped)."""
    y = x.astype(F32) * F32(255.999)
    return np.clip(np.nan_to_num(y, nan=0.0), 0, 255).astype(np.uint8)


def equalize_plane(q):
    hist = np.bincount(q.ravel(), minlength=256)
    top = hist[np.nonzero(hist)[0][-1]]
    step = (q.size - top) // 255
    if step == 0:
        return q
    lut = np.zeros(256, np.int64)
    lut[1:] = np.minimum((np.cumsum(hist)[:-1] + step // 2) // step, 255)
    return lut[q].astype(np.uint8)


def equalize(x, layout):
    v, back = channels_first(x, layout)
    q = v if v.dtype == np.uint8 else levels(v)
    out = np.stack([np.stack([equalize_plane(q[n, c]) for c in range(q.shape[1])]) for n in range(q.shape[0])])
    return back(out if x.dtype == np.uint8 else (out.astype(F32) * F32(1 / 255)).astype(F32))


def autocontrast(x, layout):
    v, back = channels_first(x, layout)
    u8 = x.dtype == np.uint8
    bound = F32(255 if u8 else 1)
    xf = v.astype(F32)
    lo, hi = xf.min(axis=(2, 3), keepdims=True), xf.max(axis=(2, 3), keepdims=True)
    flat = lo == hi
    inv = np.where(flat, F32(1), (hi - lo) * F32(1 / float(bound))).astype(F32)
    off = np.where(flat, F32(0), lo).astype(F32)
    with np.errstate(invalid="ignore", divide="ignore"):
        y = np.clip((xf - off) / inv, 0, bound).astype(F32)
    return back(y.astype(np.uint8) if u8 else y)


def _fma(a, b, c):
    return (a.astype(np.longdouble) * np.longdouble(b) + c.astype(np.longdouble)).astype(F32)


def adjust_sharpness(x, layout, factors):
    """factors: one per image of the (N, ...) view."""
    v, back = channels_first(x, layout)
    u8 = x.dtype == np.uint8
    xf = v.astype(F32)
    n, c, h, w = xf.shape
    if h <= 2 or w <= 2:
        return x.copy()
    a, b = F32(1 / 13), F32(5 / 13)
    acc = np.zeros((n, c, h - 2, w - 2), F32)
    for i in range(3):
        for j in range(3):
            acc = _fma(xf[:, :, i:h - 2 + i, j:w - 2 + j], b if i == j == 1 else a, acc)
    if u8:
        acc = np.rint(acc).astype(F32)
    out = xf.copy()
    mid = out[:, :, 1:-1, 1:-1]
    alpha = np.array([F32(1.0 - f) for f in factors], F32).reshape(n, 1, 1, 1)
    out[:, :, 1:-1, 1:-1] = (mid.astype(np.longdouble) + (acc - mid).astype(np.longdouble) * alpha).astype(F32)
    out = np.clip(out, 0, 255 if u8 else 1).astype(F32)
    return back(out.astype(np.uint8) if u8 else out)
