"""NumPy float64 references for the lighting and blur tests (semantics §13).

Nothing here calls augpy's math: values are computed in float64 from the semantics §13
formulas, then stored with the semantics §2 saturate_cast (round half to even, clip;
NaN -> 0). bfloat16 tensors are written and read through float32 casts.
"""
import numpy as np

import augpy

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "bfloat16", "float32", "float64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]


def adtype(d):
    return getattr(augpy, "bool_" if d == "bool" else d)


def npdtype(d):
    return np.dtype(np.float32 if d == "bfloat16" else d)


def limits(d):
    if d == "bool":
        return 0, 1
    info = np.iinfo(np.dtype(d))
    return int(info.min), int(info.max)


def make(a, d):
    """A tensor of dtype d holding the values of a (exactly representable in d)."""
    t = augpy.array_to_tensor(np.ascontiguousarray(np.asarray(a, npdtype(d))))
    return augpy.cast(t, augpy.bfloat16) if d == "bfloat16" else t


def read(t):
    if t.dtype == augpy.bfloat16:
        t = augpy.cast(t, augpy.float32)
    return np.asarray(t.numpy())


def saturate(v, d):
    """float64 array -> values of dtype d per semantics §2 (as float64 for floats, exact ints as object for 64-bit)."""
    v = np.asarray(v, np.float64)
    if d == "bool":
        return (v != 0) | np.isnan(v)
    if d in FLOATS:
        if d == "float64":
            return v
        if d == "bfloat16":
            x = v.astype(np.float32)
            u = x.view(np.uint32).astype(np.uint64)
            return ((u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000).astype(np.uint32).view(np.float32)
        return v.astype(np.dtype(d)).astype(np.float64)
    lo, hi = limits(d)
    r = np.rint(np.nan_to_num(v, nan=0.0, posinf=np.inf, neginf=-np.inf))
    if d in ("int64", "uint64"):
        out = np.empty(r.shape, object)
        flat = r.reshape(-1)
        out.reshape(-1)[:] = [lo if x <= lo else hi if x >= hi else int(x) for x in flat]
        return out
    return np.clip(r, lo, hi).astype(np.dtype(d))


def random_image(rng, shape, d, lo=None, hi=None):
    """Random values of dtype d over [lo, hi] (default: the dtype's range; floats [-100, 300])."""
    if d == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if d in FLOATS:
        lo = -100.0 if lo is None else lo
        hi = 300.0 if hi is None else hi
        v = rng.uniform(lo, hi, size=shape).astype(npdtype(d))
        if d == "bfloat16":
            v = (v.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)
        if d == "float16":
            v = v.astype(np.float16)
        return v
    a, b = limits(d)
    lo = a if lo is None else lo
    hi = b if hi is None else hi
    return rng.integers(lo, hi, size=shape, endpoint=True, dtype=np.dtype(d))


# ---- lighting ----------------------------------------------------------------------

def f_pos(v):
    return 1.0037575963899724 / (1.0 + np.exp(6.279 - 12.558 * v)) - 0.0018787981949862


def f_neg(v):
    return 0.1755606108304832 * np.arctanh(1.986608 * v - 0.993304) + 0.5


def lighting(x, gammagrays, gammacolors, contrasts, vmin, vmax):
    """semantics §13 in float64 on an (N, C, H, W) array; returns float64 before saturate_cast."""
    x = np.asarray(x, np.float64)
    n, c = x.shape[:2]
    gg = np.asarray(gammagrays, np.float32).astype(np.float64).reshape(n)
    gc = np.asarray(gammacolors, np.float32).astype(np.float64).reshape(n, c)
    ct = np.asarray(contrasts, np.float32).astype(np.float64).reshape(n)
    rng = vmax - vmin
    out = np.empty_like(x)
    for i in range(n):
        v = np.clip((x[i] - vmin) / rng, 0.0, 1.0)
        a = abs(ct[i])
        f = f_pos(v) if ct[i] >= 0 else f_neg(v)
        v = (1.0 - a) * v + a * f
        for j in range(c):
            out[i, j] = np.power(v[j], gg[i] * gc[i, j]) * rng + vmin
    return out


# ---- blur ----------------------------------------------------------------------------

def gaussian_ksize(sigma, max_ksize=None):
    if sigma <= 0:
        return 1
    k = max(3, int(sigma * 6.6 - 2.3) | 1)
    return min(k, max_ksize) if max_ksize else k


def gaussian_weights(sigma, k):
    i = np.arange(-(k // 2), -(k // 2) + k, dtype=np.float64)
    w = np.exp(-(i * i) / (2.0 * sigma * sigma))
    return w / w.sum()


def sep_filter(x, w):
    """Separable correlation of (..., H, W) float64 with taps w at offsets -k//2 .. -k//2+k-1,
    edges replicated (NumPy edge padding, any kernel size)."""
    k = len(w)
    a = k // 2
    b = k - 1 - a
    pad = [(0, 0)] * (x.ndim - 2)
    p = np.pad(x, pad + [(a, b), (0, 0)], mode="edge")
    H, W = x.shape[-2:]
    v = sum(w[j] * p[..., j:j + H, :] for j in range(k))
    p = np.pad(v, pad + [(0, 0), (a, b)], mode="edge")
    return sum(w[j] * p[..., :, j:j + W] for j in range(k))


def box_sum(x, k):
    """Exact window sums (int64 for integer input) of a (..., H, W) array."""
    return sep_filter(np.asarray(x, np.int64 if np.asarray(x).dtype.kind in "biu" else np.float64),
                      np.ones(k, np.int64))
