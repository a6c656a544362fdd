/* scalar/warp.h: the arithmetic of one affine-warp sample (semantics §13,
 * docs/warp.md; private, shared by every backend).
 *
 * Output pixel (x, y) is the mean of s*s samples; sample (i, j) sits at
 *   X = x + d[i], Y = y + d[j],  d[k] = (2k + 1 - s) / (2s)
 * and maps to the source through the inverse matrix (float32, widened exactly),
 * evaluated in double without contraction as
 *   sx = clamp(m00*X + (m01*Y + m02), -2, W+1),  sy = clamp(m10*X + (m11*Y + m12), -2, H+1)
 * (beyond the clamp every neighbour lies outside in that direction, so nothing
 * changes). Three interpolations, chosen per image by the backend:
 *  - exact (any dtypes), double: x0 = floor(sx), fx = sx - x0 (same in y),
 *      v = (1-fy)*((1-fx)*v00 + fx*v01) + fy*((1-fx)*v10 + fx*v11);
 *  - fixed point (uint8 -> uint8): positions rounded to 1/2048 px,
 *      q = trunc((sx + 16) * 2048 + 0.5), x0 = (q >> 11) - 16, fx = q & 2047,
 *      r = (v00*(2048-fx) + v01*fx)*(2048-fy) + (v10*(2048-fx) + v11*fx)*fy   (< 2^31)
 *    stored as (r + 2^21) >> 22 for s = 1; for s > 1 each sample adds
 *    (r + 32) >> 6 to a 32-bit sum A and the output is
 *    floor(floor((A + s^2 * 2^15) / 2^16) / s^2);
 *  - float32 (8/16-bit and float32 sources): fx = (float)(sx - x0),
 *      v = gy*(gx*v00 + fx*v01) + fy*(gx*v10 + fx*v11) in float32, gx = 1 - fx.
 * A neighbour outside [0, W) x [0, H) takes the background value (constant
 * border) or is mapped into the source by aug__warp_index (replicate, reflect-101,
 * symmetric; the coordinate is then bounded by aug__warp_bound instead of the
 * clamp). Nearest neighbour reads the cell aug__warp_nearest_cell of the pixel
 * centre's bounded coordinate. Bicubic (any dtypes, double) reads the 4 x 4 taps
 * around the bounded coordinate with Keys' weights (below). */
#ifndef AUG_SCALAR_WARP_H
#define AUG_SCALAR_WARP_H

#include "hd.h"

/* The fixed-point kernel's constants: 11 fraction bits keep r below 2^31; the
 * offset makes the clamped coordinate positive before truncation; the largest
 * source side keeps (side + 1 + offset) * 2048 < 2^31; each sample of s <= 16
 * adds at most 255 * 2^16 to the 32-bit sum. */
#define AUG__WARP_FP_BITS 11
#define AUG__WARP_FP_ONE (1 << AUG__WARP_FP_BITS)
#define AUG__WARP_FP_OFFSET 16
#define AUG__WARP_FP_MAX_SIDE (1 << 20)
#define AUG__WARP_FP_ACC_SHIFT 6
#define AUG__WARP_FP_MAX_S 16

/* d[k] = (2k + 1 - s) / (2s), exact in double. */
AUG_HD double aug__warp_offset(int k, int s) { return (double)(2 * k + 1 - s) / (double)(2 * s); }

/* floor of a clamped coordinate (it fits int64) without a libm call (baseline
 * x86-64 has no rounding instruction): truncate, then step down where that
 * rounded up. */
AUG_HD double aug__warp_floor(double v) {
    double t = (double)(int64_t)v;
    return t > v ? t - 1.0 : t;
}

AUG_HD double aug__warp_clamp(double v, double lo, double hi) {
    v = v > lo ? v : lo;
    return v < hi ? v : hi;
}

/* m_y * Y + m_c, the part of a coordinate shared by a row. */
AUG_HD double aug__warp_rowterm(double m_y, double Y, double m_c) { return m_y * Y + m_c; }

/* One clamped coordinate: clamp(m_x * X + rowterm, -2, side + 1). */
AUG_HD double aug__warp_coord(double m_x, double X, double rowterm, double side) {
    return aug__warp_clamp(m_x * X + rowterm, -2.0, side + 1.0);
}

/* ---- borders (aug_warp_border: 0 constant, 1 replicate, 2 reflect-101, 3 symmetric) ---- */

enum { AUG__WB_CONSTANT = 0, AUG__WB_REPLICATE = 1, AUG__WB_REFLECT = 2, AUG__WB_SYMMETRIC = 3 };

/* The period of a reflecting border on a side of n >= 1 pixels (0: none). */
AUG_HD double aug__warp_period(int64_t n, int border) {
    if (border == AUG__WB_REFLECT) return (double)(2 * n - 2);
    if (border == AUG__WB_SYMMETRIC) return (double)(2 * n);
    return 0.0;
}

/* A coordinate brought into a bounded range without changing the result:
 * constant and replicate (and reflect-101 on a 1-pixel side) clamp to
 * [-2, n + 1] (beyond, every neighbour is outside / the edge pixel); the
 * reflecting borders reduce v modulo their period P with fmod (exact: v - kP
 * has v's fraction, and the extension repeats every P pixels), then add P
 * below -2, so the result lies in [-2, P). */
AUG_HD double aug__warp_bound(double v, int64_t n, int border) {
    double p = aug__warp_period(n, border);
    if (p == 0.0) return aug__warp_clamp(v, -2.0, (double)n + 1.0);
    if (v >= -2.0 && v < p) return v; /* what fmod gives there, without the call */
    double r = fmod(v, p);
    return r < -2.0 ? r + p : r;
}

/* The source index a neighbour at integer position i (|i| < 2^52) reads on a
 * side of n pixels, or -1 (outside: the background) for the constant border. */
AUG_HD int64_t aug__warp_index(int64_t i, int64_t n, int border) {
    if (i >= 0 && i < n) return i;
    if (border == AUG__WB_CONSTANT) return -1;
    if (border == AUG__WB_REPLICATE || n == 1) return i < 0 ? 0 : n - 1;
    int64_t p = border == AUG__WB_REFLECT ? 2 * n - 2 : 2 * n;
    i %= p;
    if (i < 0) i += p;
    if (i < n) return i;
    return border == AUG__WB_REFLECT ? p - i : p - 1 - i;
}

/* One bounded coordinate: bound(m_x * X + rowterm). */
AUG_HD double aug__warp_coord_b(double m_x, double X, double rowterm, int64_t n, int border) {
    return aug__warp_bound(m_x * X + rowterm, n, border);
}

/* The nearest-neighbour cell of a bounded coordinate: floor(c + 0.5), the
 * addition rounded to double (half-way points go up, as in OpenCV). */
AUG_HD int64_t aug__warp_nearest_cell(double c) { return (int64_t)aug__warp_floor(c + 0.5); }

/* The double interpolation. */
AUG_HD double aug__warp_bilinear_f64(double a00, double a01, double a10, double a11, double fx, double fy) {
    double wx0 = 1.0 - fx, wy0 = 1.0 - fy;
    return wy0 * (wx0 * a00 + fx * a01) + fy * (wx0 * a10 + fx * a11);
}

/* The float32 interpolation (fx, fy already rounded to float32). */
AUG_HD float aug__warp_bilinear_f32(float a00, float a01, float a10, float a11, float fx, float fy) {
    float gx = 1.0f - fx, gy = 1.0f - fy;
    return gy * (gx * a00 + fx * a01) + fy * (gx * a10 + fx * a11);
}

/* A clamped coordinate as a fixed-point position (sx + 16 >= 14: trunc is floor). */
AUG_HD int32_t aug__warp_fixed_pos(double sv) {
    return (int32_t)((sv + AUG__WARP_FP_OFFSET) * AUG__WARP_FP_ONE + 0.5);
}
AUG_HD int64_t aug__warp_fixed_cell(int32_t q) { return (int64_t)(q >> AUG__WARP_FP_BITS) - AUG__WARP_FP_OFFSET; }
AUG_HD uint32_t aug__warp_fixed_frac(int32_t q) { return (uint32_t)q & (AUG__WARP_FP_ONE - 1); }

/* The 2^22-scaled bilinear value from the four neighbours' bytes. */
AUG_HD uint32_t aug__warp_bilerp_u8(uint32_t a00, uint32_t a01, uint32_t a10, uint32_t a11, uint32_t fx,
                                    uint32_t fy) {
    uint32_t gx = AUG__WARP_FP_ONE - fx, gy = AUG__WARP_FP_ONE - fy;
    return (a00 * gx + a01 * fx) * gy + (a10 * gx + a11 * fx) * fy;
}

/* s = 1: the byte of r. s > 1: what one sample adds to the sum, and the mean of
 * s*s sums rounded half up, floor((A + s^2 2^15) / (s^2 2^16)) computed as
 * floor(floor((A + s^2 2^15) / 2^16) / s^2) (equal for positive integers). */
AUG_HD uint8_t aug__warp_fixed_s1(uint32_t r) { return (uint8_t)((r + (1u << 21)) >> 22); }
AUG_HD uint32_t aug__warp_fixed_acc(uint32_t r) {
    return (r + (1u << (AUG__WARP_FP_ACC_SHIFT - 1))) >> AUG__WARP_FP_ACC_SHIFT;
}
AUG_HD uint8_t aug__warp_fixed_mean(uint32_t acc, int s) {
    uint32_t ss = (uint32_t)(s * s), half = ss << (21 - AUG__WARP_FP_ACC_SHIFT);
    return (uint8_t)(((acc + half) >> (22 - AUG__WARP_FP_ACC_SHIFT)) / ss);
}

/* aug__warp_fixed_mean with the division by s^2 (s >= 2) as a multiplication, for
 * the CPU (a 32-bit division per value took about 1 ns, 15% of an s = 2 warp):
 * t = floor((A + s^2 2^15) / 2^16) < 2^16 (A <= s^2 * 255 * 2^16), and with
 * r = ceil(2^32 / s^2) = 2^32 / s^2 + e/s^2, e < s^2 <= 256, (t * r) >> 32 is
 * floor(t / s^2) exactly because t * e < 2^24 < 2^32 (tests/c/test_warp_options.c
 * checks every t). */
AUG_HD uint32_t aug__warp_fixed_recip(int s) {
    uint64_t ss = (uint64_t)s * (uint64_t)s;
    return (uint32_t)(((1ull << 32) + ss - 1) / ss);
}
AUG_HD uint8_t aug__warp_fixed_mean_r(uint32_t acc, int s, uint32_t recip) {
    uint32_t ss = (uint32_t)(s * s), half = ss << (21 - AUG__WARP_FP_ACC_SHIFT);
    uint32_t t = (acc + half) >> (22 - AUG__WARP_FP_ACC_SHIFT);
    return (uint8_t)(((uint64_t)t * recip) >> 32);
}

/* ---- bicubic (docs/warp.md "Bicubic") --------------------------------------------
 * Keys' cubic convolution with a = -0.75 (OpenCV's INTER_CUBIC, torch's bicubic)
 * over the 4 x 4 source values around the bounded coordinate (sx, sy), in double:
 *   x0 = floor(sx), tx = sx - x0 (same in y), taps x0-1 .. x0+2 / y0-1 .. y0+2,
 *   r_j = ((wx0*a_j0 + wx1*a_j1) + wx2*a_j2) + wx3*a_j3      (row j of the taps)
 *   v   = ((wy0*r_0 + wy1*r_1) + wy2*r_2) + wy3*r_3
 * with each tap mapped by aug__warp_index (the constant border: the background
 * outside) and a sample whose 16 taps all lie outside the background exactly. */

/* The weights of the taps x0-1 .. x0+2 at fraction t in [0, 1), OpenCV's
 * interpolateCubic evaluated in double without contraction (every constant is
 * exact): w0 = ((A(t+1) - 5A)(t+1) + 8A)(t+1) - 4A, w1 = ((A+2)t - (A+3))t t + 1,
 * w2 the same at 1 - t, w3 = 1 - w0 - w1 - w2 (left to right). */
#define AUG__WARP_CUBIC_A (-0.75)
/* Weight q (0 .. 3) alone, the same value (the GPU kernel computes each tap's
 * weight where it uses it: four held in registers spilled). */
AUG_HD double aug__warp_cubic_weight(double t, int q) {
    const double A = AUG__WARP_CUBIC_A, t1 = t + 1.0, u = 1.0 - t;
    const double w0 = ((A * t1 - 5.0 * A) * t1 + 8.0 * A) * t1 - 4.0 * A;
    const double w1 = ((A + 2.0) * t - (A + 3.0)) * t * t + 1.0;
    const double w2 = ((A + 2.0) * u - (A + 3.0)) * u * u + 1.0;
    return q == 0 ? w0 : q == 1 ? w1 : q == 2 ? w2 : 1.0 - w0 - w1 - w2;
}
AUG_HD void aug__warp_cubic_weights(double t, double *w) {
    const double A = AUG__WARP_CUBIC_A, t1 = t + 1.0, u = 1.0 - t;
    w[0] = ((A * t1 - 5.0 * A) * t1 + 8.0 * A) * t1 - 4.0 * A;
    w[1] = ((A + 2.0) * t - (A + 3.0)) * t * t + 1.0;
    w[2] = ((A + 2.0) * u - (A + 3.0)) * u * u + 1.0;
    w[3] = 1.0 - w[0] - w[1] - w[2];
}

/* One row (or the column of rows) of a sample: ((w0 a0 + w1 a1) + w2 a2) + w3 a3
 * (the GPU kernel accumulates the same terms in the same order one at a time). */
AUG_HD double aug__warp_cubic_dot(const double *w, double a0, double a1, double a2, double a3) {
    return ((w[0] * a0 + w[1] * a1) + w[2] * a2) + w[3] * a3;
}

/* Whether every tap of the cell with floors (ix, iy) lies outside a source of
 * W x H under the constant border (the sample is then the background). */
AUG_HD int aug__warp_cubic_outside(int64_t ix, int64_t iy, int64_t W, int64_t H, int border) {
    return border == AUG__WB_CONSTANT && (ix + 2 < 0 || ix - 1 >= W || iy + 2 < 0 || iy - 1 >= H);
}

/* ---- the perspective warp (a 3 x 3 homography; docs/warp.md "Perspective") ---- */

/* The source point of sample (X, Y) under the inverse homography m (9 values,
 * row-major, float32 widened exactly), each row as the affine coordinate is
 * computed (no contraction):
 *   u = m0*X + (m1*Y + m2),  v = m3*X + (m4*Y + m5),  w = m6*X + (m7*Y + m8),
 *   sx = u / w,  sy = v / w,
 * then bounded by aug__warp_bound like an affine coordinate. Returns 0 when the
 * point lies outside the source plane (w <= 0 or NaN, or sx / sy not finite):
 * the sample then takes the background value whatever the border. With the
 * last row (0, 0, 1), w is exactly 1 and (sx, sy) are warp_affine's coordinates. */
AUG_HD int aug__warp_project(const double *m, double X, double Y, int64_t W, int64_t H, int border, double *sx,
                             double *sy) {
    const double w = m[6] * X + aug__warp_rowterm(m[7], Y, m[8]);
    if (!(w > 0.0)) return 0;
    const double u = (m[0] * X + aug__warp_rowterm(m[1], Y, m[2])) / w;
    const double v = (m[3] * X + aug__warp_rowterm(m[4], Y, m[5])) / w;
    if (!(u - u == 0.0) || !(v - v == 0.0)) return 0; /* inf or NaN */
    *sx = aug__warp_bound(u, W, border);
    *sy = aug__warp_bound(v, H, border);
    return 1;
}

/* ---- which interpolation an image takes ---------------------------------------- */

/* CUBIC: a bicubic image (any dtypes, double throughout): cuda/warp.cu's image
 * table marks them so when the plan's interpolation is cubic; aug__warp_kind
 * never returns it. */
enum { AUG__WARP_EXACT = 0, AUG__WARP_FIXED = 1, AUG__WARP_FLOAT = 2, AUG__WARP_CUBIC = 3 };

/* Whether float32 holds every value of a source dtype (the float32 kernel's sources). */
AUG_HD int aug__warp_float_source(int dtype) {
    return dtype == AUG_BOOL || dtype == AUG_INT8 || dtype == AUG_INT16 || dtype == AUG_UINT8 ||
           dtype == AUG_UINT16 || dtype == AUG_FLOAT16 || dtype == AUG_BFLOAT16 || dtype == AUG_FLOAT32;
}

/* A background value as the fixed-point kernel's byte (an integer in [0, 255])
 * and as the float32 kernel's float (finite there); 0 when it is not one. */
AUG_HD int aug__warp_bg_byte(double b, uint8_t *out) {
    if (!(b >= 0.0 && b <= 255.0 && b == aug__warp_floor(b))) return 0;
    *out = (uint8_t)b;
    return 1;
}
AUG_HD int aug__warp_bg_float(double b, float *out) {
    if (!(fabs(b) <= 3.4028234663852886e38)) return 0; /* rounds to a finite float32; NaN fails */
    *out = (float)b;
    return 1;
}

/* The kernel of one bilinear image: fixed point for uint8 -> uint8 with byte
 * backgrounds (or a border that never reads them), sides <= 2^20 (2^19 - 16
 * for the reflecting borders, whose bounded coordinates reach 2 * side) and
 * s <= 16; float32 for the float32 sources into anything but float64 with
 * float backgrounds; exact (double) otherwise. bytes_ok / floats_ok: every
 * background value converts. The channel stride does not matter. */
AUG_HD int aug__warp_kind(int src_dtype, int dst_dtype, int64_t channel_bytes, int64_t H, int64_t W, int s,
                          int bytes_ok, int floats_ok, int border) {
    (void)channel_bytes;
    if (H < 1 || W < 1) return AUG__WARP_EXACT;
    if (border != AUG__WB_CONSTANT) bytes_ok = floats_ok = 1; /* the background is never read */
    int64_t max_side = border >= AUG__WB_REFLECT ? AUG__WARP_FP_MAX_SIDE / 2 - 16 : AUG__WARP_FP_MAX_SIDE;
    if (src_dtype == AUG_UINT8 && dst_dtype == AUG_UINT8 && bytes_ok && H <= max_side && W <= max_side &&
        s <= AUG__WARP_FP_MAX_S)
        return AUG__WARP_FIXED;
    if (floats_ok && dst_dtype != AUG_FLOAT64 && aug__warp_float_source(src_dtype)) return AUG__WARP_FLOAT;
    return AUG__WARP_EXACT;
}

/* The kernel of one bilinear perspective image: aug__warp_kind's, except that a
 * sample outside the source plane reads the background under every border, so
 * the fixed-point / float32 kernels need byte / float backgrounds whatever the
 * border. */
AUG_HD int aug__warp_persp_kind(int src_dtype, int dst_dtype, int64_t H, int64_t W, int s, int bytes_ok,
                                int floats_ok, int border) {
    int k = aug__warp_kind(src_dtype, dst_dtype, 0, H, W, s, bytes_ok, floats_ok, border);
    if (k == AUG__WARP_FIXED && !bytes_ok)
        k = floats_ok && dst_dtype != AUG_FLOAT64 && aug__warp_float_source(src_dtype) ? AUG__WARP_FLOAT
                                                                                       : AUG__WARP_EXACT;
    if (k == AUG__WARP_FLOAT && !floats_ok) k = AUG__WARP_EXACT;
    return k;
}

#endif
