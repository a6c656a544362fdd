"""The NumPy definition of PIL's ImageFilter.GaussianBlur(radius) (Pillow's extended box blur,
BoxBlur.c: 3 passes of a box of fractional radius along W, then along H, a uint8 rounding after
each), bit-exact with Pillow: the reference of augpy.pil_gaussian_blur(_single). It was
augpy/_timm_3a.py's implementation before the op moved to C."""
import math

import numpy as np


def _F(x):
    """x as a float32 (C's float arithmetic)."""
    return np.float32(x)


def _box_radius(radius, passes=3):
    """Pillow's _gaussian_blur_radius: the extended box radius (float32 arithmetic, as its C)
    whose ``passes`` box blurs have the variance radius ** 2."""
    r = _F(radius)
    sigma2 = _F(r * r) / _F(passes)
    big_l = _F(math.sqrt(12.0 * float(sigma2) + 1.0))
    l = _F(math.floor((float(big_l) - 1.0) / 2.0))
    a = (_F(2) * l + _F(1)) * (l * (l + _F(1)) - _F(3) * sigma2)
    a = a / (_F(6) * (sigma2 - (l + _F(1)) * (l + _F(1))))
    return _F(l + a)


def _box_passes(a, radius, passes=3):
    """Pillow's ImagingHorizontalBoxBlur ``passes`` times along the last axis of a uint8 array:
    each output pixel is the sum of the 2 R + 1 pixels about it (R = int(radius)) times ww plus
    the two next ones times fw, + 2**23, >> 24 (ww = 2**24 / (2 radius + 1) in float32,
    truncated; fw = (2**24 - (2 R + 1) ww) / 2), indices clamped to the line (its edge pixels
    repeated), rounded to uint8 after each pass. uint32 holds every sum: (2 R + 1) ww + 2 fw
    <= 2**24, times 255, plus 2**23. The line sits in a buffer with R + 1 pixels of margin."""
    r = int(radius)
    ww = np.uint32(int(_F(1 << 24) / (radius * _F(2) + _F(1))))
    fw = np.uint32(((1 << 24) - (r * 2 + 1) * int(ww)) // 2)
    n = a.shape[-1]
    buf = np.empty(a.shape[:-1] + (n + 2 * r + 2,), np.uint32)
    mid = buf[..., r + 1:r + 1 + n]
    mid[...] = a
    acc, far = np.empty(a.shape, np.uint32), np.empty(a.shape, np.uint32)
    for _ in range(passes):
        buf[..., :r + 1] = buf[..., r + 1:r + 2]  # the margins: the edge pixels
        buf[..., r + 1 + n:] = buf[..., r + n:r + n + 1]
        np.copyto(acc, buf[..., 1:n + 1])  # the window of pixel j: buf[j + 1 .. j + 2 r + 1]
        for k in range(2, 2 * r + 2):
            acc += buf[..., k:k + n]
        np.add(buf[..., 0:n], buf[..., 2 * r + 2:2 * r + 2 + n], out=far)
        acc *= ww
        far *= fw
        acc += far
        acc += np.uint32(1 << 23)
        np.right_shift(acc, 24, out=mid)
    return mid.astype(np.uint8)


def pil_gaussian_blur_ref(a, radius):
    """The definition on a uint8 (C, H, W) or (N, C, H, W) NumPy array, one radius."""
    a = np.asarray(a)
    box = _box_radius(radius)
    if radius == 0 or box == 0 or a.size == 0:
        return a.copy()
    a = _box_passes(a, box)
    return np.ascontiguousarray(_box_passes(np.ascontiguousarray(np.swapaxes(a, -1, -2)), box).swapaxes(-1, -2))
