/* scalar/resize.h: the arithmetic of resize (docs/resize.md; private, shared by
 * the core, which builds the tap tables, and every backend, which runs them).
 *
 * Each axis maps output coordinate o (0 <= o < out) to `count` consecutive
 * source indices first, first + 1, ... with weights w[0 .. count). The modes:
 *  - NEAREST (cv2.INTER_NEAREST): s = 1 / (out / in) in double,
 *    first = min(floor(o * s), in - 1), one tap of weight 1.
 *  - LINEAR (cv2.INTER_LINEAR): p = (o + 0.5) * s - 0.5, i = floor(p), t = p - i;
 *    i < 0 -> i = 0, t = 0; i >= in - 1 -> i = in - 1, t = 0; taps (1 - t, t).
 *  - AREA_LINEAR (cv2.INTER_AREA where an axis grows): i = floor(o * s),
 *    t = (o + 1) - (i + 1) * (out / in); t = t <= 0 ? 0 : t - floor(t); clamped as LINEAR.
 *  - AREA (cv2.INTER_AREA where no axis grows; OpenCV's computeResizeAreaTab):
 *    the footprint [o s, o s + s) with cell = min(s, in - o s): a partial pixel
 *    (ceil(o s) - o s) / cell on the left if > 1e-3 px, whole pixels 1 / cell,
 *    a partial pixel min(o s + s - i2, 1, cell) / cell on the right if > 1e-3 px.
 *  - TRIANGLE (Pillow's BILINEAR on a shrinking axis, torchvision antialias):
 *    s = in / out, centre c = (o + 0.5) s, taps i in [trunc(c - s + 0.5), trunc(c + s + 0.5))
 *    clipped to [0, in), weight max(0, 1 - |i + 0.5 - c| / s), normalised to sum 1.
 * Taps of weight 0 at either end of a window are dropped (so an exact position
 * takes one tap, and an inf beside it does not make NaN). Weights are doubles;
 * the float32 kernels use them rounded to float32.
 *
 * The value of output (y, x) is, in the compute type T (float or double) and
 * with no fused multiply-add:
 *   h_k = wx_0 * v(fy + k, fx) + wx_1 * v(fy + k, fx + 1) + ...   (left to right)
 *   r   = wy_0 * h_0 + wy_1 * h_1 + ...                             (top to bottom)
 * each sum starting from its first product, then stored with saturate_cast. */
#ifndef AUG_SCALAR_RESIZE_H
#define AUG_SCALAR_RESIZE_H

#include "hd.h"

enum { AUG__RS_NEAREST = 0, AUG__RS_LINEAR = 1, AUG__RS_AREA_LINEAR = 2, AUG__RS_AREA = 3, AUG__RS_TRIANGLE = 4 };

/* OpenCV's scale: 1 / (out / in), both divisions in double. */
AUG_HD double aug__resize_scale_cv(int64_t in, int64_t out) { return 1.0 / ((double)out / (double)in); }

/* The mode of one axis for interpolation interp (aug_resize_interp: 0 nearest,
 * 1 linear, 2 area). AREA takes the footprint mean only when neither axis grows
 * (OpenCV tests both scales), so the other axis's sizes are needed. */
AUG_HD int aug__resize_axis_mode(int interp, int antialias, int64_t in, int64_t out, int64_t in2, int64_t out2) {
    if (interp == 0) return AUG__RS_NEAREST;
    if (interp == 2)
        return aug__resize_scale_cv(in, out) >= 1.0 && aug__resize_scale_cv(in2, out2) >= 1.0 ? AUG__RS_AREA
                                                                                             : AUG__RS_AREA_LINEAR;
    return antialias && in > out ? AUG__RS_TRIANGLE : AUG__RS_LINEAR;
}

/* An upper bound on the taps of one output of the mode. */
AUG_HD int64_t aug__resize_max_taps(int mode, int64_t in, int64_t out) {
    switch (mode) {
    case AUG__RS_NEAREST: return 1;
    case AUG__RS_LINEAR:
    case AUG__RS_AREA_LINEAR: return 2;
    case AUG__RS_AREA: return (int64_t)ceil(aug__resize_scale_cv(in, out)) + 2;
    default: return (int64_t)ceil((double)in / (double)out) * 2 + 1;
    }
}

/* Pillow's bilinear_filter. */
AUG_HD double aug__resize_triangle(double x) {
    x = x < 0.0 ? -x : x;
    return x < 1.0 ? 1.0 - x : 0.0;
}

/* The two taps (1 - t, t) at i, clamped as OpenCV clamps. */
AUG_HD int aug__resize_two(double p_floor, double t, int64_t in, int64_t *first, double *w) {
    int64_t i = (int64_t)p_floor;
    if (i < 0) i = 0, t = 0.0;
    if (i >= in - 1) i = in - 1, t = 0.0;
    *first = i;
    w[0] = 1.0 - t;
    w[1] = t;
    return t == 0.0 ? 1 : 2;
}

/* The taps of output o: writes *first and w[0 .. cap), returns the count (>= 1). */
AUG_HD int aug__resize_taps(int mode, int64_t in, int64_t out, int64_t o, int64_t *first, double *w, int64_t cap) {
    double s = aug__resize_scale_cv(in, out);
    switch (mode) {
    case AUG__RS_NEAREST: {
        int64_t i = (int64_t)floor((double)o * s);
        *first = i < in - 1 ? i : in - 1;
        w[0] = 1.0;
        return 1;
    }
    case AUG__RS_LINEAR: {
        double p = ((double)o + 0.5) * s - 0.5, f = floor(p);
        return aug__resize_two(f, p - f, in, first, w);
    }
    case AUG__RS_AREA_LINEAR: {
        double f = floor((double)o * s);
        double t = ((double)o + 1.0) - (f + 1.0) * ((double)out / (double)in);
        t = t <= 0.0 ? 0.0 : t - floor(t);
        return aug__resize_two(f, t, in, first, w);
    }
    case AUG__RS_AREA: {
        double f1 = (double)o * s, f2 = f1 + s, rest = (double)in - f1, cell = s < rest ? s : rest;
        int64_t i1 = (int64_t)ceil(f1), i2 = (int64_t)floor(f2);
        if (i2 > in - 1) i2 = in - 1;
        if (i1 > i2) i1 = i2;
        int n = 0;
        *first = i1;
        if ((double)i1 - f1 > 1e-3) {
            *first = i1 - 1;
            w[n++] = ((double)i1 - f1) / cell;
        }
        for (int64_t i = i1; i < i2 && n < cap; i++) w[n++] = 1.0 / cell;
        if (f2 - (double)i2 > 1e-3 && n < cap) {
            double part = f2 - (double)i2;
            part = part < 1.0 ? part : 1.0;
            part = part < cell ? part : cell;
            w[n++] = part / cell;
        }
        return n;
    }
    default: { /* TRIANGLE */
        double sc = (double)in / (double)out, c = ((double)o + 0.5) * sc, ss = 1.0 / sc, ww = 0.0;
        int64_t lo = (int64_t)(c - sc + 0.5), hi = (int64_t)(c + sc + 0.5);
        lo = lo < 0 ? 0 : lo;
        hi = hi > in ? in : hi;
        int n = 0;
        for (int64_t i = lo; i < hi && n < cap; i++) {
            double v = aug__resize_triangle(((double)i - c + 0.5) * ss);
            if (n == 0 && v == 0.0) {
                lo++; /* a zero weight at the start of the window is dropped */
                continue;
            }
            w[n++] = v;
            ww += v;
        }
        while (n > 1 && w[n - 1] == 0.0) n--;
        for (int k = 0; k < n; k++) w[k] = ww != 0.0 ? w[k] / ww : w[k];
        *first = lo;
        return n;
    }
    }
}

/* The weighted sums: the first product, then each next one added. */
AUG_HD float aug__resize_first_f32(float w, float v) { return w * v; }
AUG_HD float aug__resize_next_f32(float acc, float w, float v) { return acc + w * v; }
AUG_HD double aug__resize_first_f64(double w, double v) { return w * v; }
AUG_HD double aug__resize_next_f64(double acc, double w, double v) { return acc + w * v; }

/* Whether float32 holds every value of a dtype (the float32 kernel's sources). */
AUG_HD int aug__resize_float_source(int dtype) {
    return dtype == AUG_BOOL || dtype == AUG_INT8 || dtype == AUG_INT16 || dtype == AUG_UINT8 ||
           dtype == AUG_UINT16 || dtype == AUG_FLOAT16 || dtype == AUG_BFLOAT16 || dtype == AUG_FLOAT32;
}

#endif
