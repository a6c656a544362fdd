/* cpu/warp.c: the CPU affine warp (semantics §13), HWC images -> an NCHW batch,
 * and the driver of the perspective warp (its rows: cpu/warp_persp.c).
 *
 * Output pixel (x, y) of image n is the mean of s*s samples; sample (i, j) sits at
 *   X = x + d[i], Y = y + d[j],  d[k] = (2k + 1 - s) / (2s)   (= k/s - (s-1)/(2s))
 * and maps to the source through the inverse matrix, evaluated in double as
 *   sx = m00*X + (m01*Y + m02),  sy = m10*X + (m11*Y + m12)
 * (the matrix is float32, widened exactly). Bilinear: x0 = floor(sx), fx = sx - x0
 * (same in y); a neighbour outside [0, W) x [0, H) takes the background value.
 * Coordinates are first clamped to [-2, W+1] x [-2, H+1]: beyond that every
 * neighbour of a sample lies outside in that direction, so nothing changes.
 *
 * Three kernels, chosen per image by aug__warp_kind (scalar/warp.h; the third,
 * float32, is in cpu/warp_float.c):
 *  - exact (any dtypes): everything in double,
 *      v = (1-fy)*((1-fx)*v00 + fx*v01) + fy*((1-fx)*v10 + fx*v11),
 *    mean = sum / s^2 (no division for s = 1), stored with saturate_cast. This is
 *    the float64 evaluation of the definition.
 *  - fixed point (uint8 -> uint8, channel stride 1, background integers in
 *    [0, 255], source sides <= 2^20, s <= 16): positions are rounded to 1/2048 px,
 *      q = trunc((sx + 16) * 2048 + 0.5),  x0 = (q >> 11) - 16,  fx = q & 2047
 *    (sx + 16 >= 14 after the clamp, so trunc is floor), then in 32-bit integers
 *      t = v00*(2048-fx) + v01*fx,  b = v10*(2048-fx) + v11*fx,
 *      r = t*(2048-fy) + b*fy                        (<= 255 * 2^22 < 2^31)
 *    and the output is (r + 2^21) >> 22 for s = 1; for 1 < s <= 16 each sample adds
 *    (r + 32) >> 6 to a 32-bit sum A and the output is
 *    floor(floor((A + s^2 * 2^15) / 2^16) / s^2), the mean rounded half up. The
 *    position error is at most 2^-12 px per axis, so the value before rounding is
 *    within 255 * 2 * 2^-12 < 0.125 (+ 2^-16 per sample) of the exact one and the
 *    result within +-1 of saturate_cast of the exact value. A CUDA backend reproduces this bit for bit
 *    with the same integer steps and the double expressions above evaluated
 *    without FMA contraction (__dmul_rn / __dadd_rn).
 *
 * Options (core/warp.h's plan): the other borders map each neighbour's index
 * with aug__warp_index (the interior fast paths never need it) and bound the
 * coordinates with aug__warp_bound; nearest neighbour is cpu/warp_nearest.c,
 * bicubic (affine and perspective) cpu/warp_cubic.c;
 * the output may be NHWC (element strides cx->dc, cx->dx): the uint8 s = 1 rows
 * then go through a CHUNK-wide tile that is scattered after each row. Axis-aligned
 * matrices (m01 = m10 = 0) with s = 1 and planar output take cpu/warp_axis.c's
 * separable form of the fixed-point kernel (same bytes, about 3x faster).
 *
 * Work is split into tasks of whole output rows (a fixed number per task, from
 * the shapes only), so the result does not depend on the thread count. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cpu.h"
#include "cpu/convert.h"
#include "core/error.h"
#include "cpu/pool.h"
#include "cpu/simd.h"
#include "core/warp.h"
#include "warp_impl.h"
#if AUG__X86
#include <immintrin.h>
#endif

#define FP_BITS AUG__WARP_FP_BITS
#define FP_ONE AUG__WARP_FP_ONE
#define FP_OFFSET AUG__WARP_FP_OFFSET
#define FP_MAX_SIDE AUG__WARP_FP_MAX_SIDE

#define sample_offset warp_sample_offset
#define floor_small warp_floor_small
#define clampd warp_clampd

/* ---- exact kernel: double, any dtypes -------------------------------------------- */

/* Loads of one source element as double, per dtype. */
#define LOAD_BOOL(p) (double)(*(const uint8_t *)(p) != 0)
#define LOAD_INT8(p) (double)*(const int8_t *)(p)
#define LOAD_INT16(p) (double)*(const int16_t *)(p)
#define LOAD_INT32(p) (double)*(const int32_t *)(p)
#define LOAD_INT64(p) (double)*(const int64_t *)(p)
#define LOAD_UINT8(p) (double)*(const uint8_t *)(p)
#define LOAD_UINT16(p) (double)*(const uint16_t *)(p)
#define LOAD_UINT32(p) (double)*(const uint32_t *)(p)
#define LOAD_UINT64(p) (double)*(const uint64_t *)(p)
#define LOAD_FLOAT16(p) (double)aug__f16_to_f32(*(const uint16_t *)(p))
#define LOAD_BFLOAT16(p) (double)aug__bf16_to_f32(*(const uint16_t *)(p))
#define LOAD_FLOAT32(p) (double)*(const float *)(p)
#define LOAD_FLOAT64(p) *(const double *)(p)

/* acc[c * CHUNK + k] += the bilinear sample of the four neighbours at q00 .. q11
 * (channel c0's bytes) for channels c0 .. c0+cn-1. */
#define SAMPLE_4(E, q00, q01, q10, q11)                                                                   \
    for (int c = 0; c < cn; c++) {                                                                        \
        int64_t o = c * im->sc;                                                                           \
        acc[c * CHUNK + k] += aug__warp_bilinear_f64(LOAD_##E((q00) + o), LOAD_##E((q01) + o),            \
                                                     LOAD_##E((q10) + o), LOAD_##E((q11) + o), fx, fy);   \
    }

/* acc[c * CHUNK + k] += bilinear sample at (sx[k], sy[k]) for channels c0 .. c0+cn-1. */
#define DEF_SAMPLER(E)                                                                                    \
    static void sample_##E(const warp_img *im, const double *sx, const double *sy, int cw, int64_t c0,   \
                           int cn, const double *bg, double *acc) {                                      \
        for (int k = 0; k < cw; k++) {                                                                    \
            double fx0 = floor_small(sx[k]), fy0 = floor_small(sy[k]);                                    \
            double fx = sx[k] - fx0, fy = sy[k] - fy0;                                                    \
            int64_t ix = (int64_t)fx0, iy = (int64_t)fy0;                                                 \
            int vx0 = ix >= 0 && ix < im->W, vx1 = ix + 1 >= 0 && ix + 1 < im->W;                         \
            int vy0 = iy >= 0 && iy < im->H, vy1 = iy + 1 >= 0 && iy + 1 < im->H;                         \
            int interior = vx0 & vx1 & vy0 & vy1;                                                         \
            if (!interior && im->border != AUG__WB_CONSTANT) { /* every neighbour maps inside */          \
                int64_t jx0 = aug__warp_index(ix, im->W, im->border), jx1 = aug__warp_index(ix + 1, im->W, im->border); \
                int64_t jy0 = aug__warp_index(iy, im->H, im->border), jy1 = aug__warp_index(iy + 1, im->H, im->border); \
                const char *q00 = im->base + (jy0 * im->sh + jx0 * im->sw + c0 * im->sc);                 \
                const char *q01 = im->base + (jy0 * im->sh + jx1 * im->sw + c0 * im->sc);                 \
                const char *q10 = im->base + (jy1 * im->sh + jx0 * im->sw + c0 * im->sc);                 \
                const char *q11 = im->base + (jy1 * im->sh + jx1 * im->sw + c0 * im->sc);                 \
                SAMPLE_4(E, q00, q01, q10, q11);                                                          \
                continue;                                                                                 \
            }                                                                                             \
            if (!(vx0 | vx1) || !(vy0 | vy1)) {                                                           \
                for (int c = 0; c < cn; c++) acc[c * CHUNK + k] += bg[c0 + c];                           \
                continue;                                                                                 \
            }                                                                                             \
            /* byte offsets; a pointer is formed only for a neighbour inside */                           \
            int64_t o00 = iy * im->sh + ix * im->sw + c0 * im->sc;                                        \
            int64_t o01 = o00 + im->sw, o10 = o00 + im->sh, o11 = o10 + im->sw;                           \
            if (interior) { /* no selects */                                                              \
                const char *q00 = im->base + o00, *q01 = im->base + o01;                                  \
                const char *q10 = im->base + o10, *q11 = im->base + o11;                                  \
                SAMPLE_4(E, q00, q01, q10, q11);                                                          \
                continue;                                                                                 \
            }                                                                                             \
            int v00 = vy0 & vx0, v01 = vy0 & vx1, v10 = vy1 & vx0, v11 = vy1 & vx1;                       \
            for (int c = 0; c < cn; c++) {                                                                \
                int64_t o = c * im->sc;                                                                   \
                double b = bg[c0 + c];                                                                    \
                double a00 = v00 ? LOAD_##E(im->base + (o00 + o)) : b;                                    \
                double a01 = v01 ? LOAD_##E(im->base + (o01 + o)) : b;                                    \
                double a10 = v10 ? LOAD_##E(im->base + (o10 + o)) : b;                                    \
                double a11 = v11 ? LOAD_##E(im->base + (o11 + o)) : b;                                    \
                acc[c * CHUNK + k] += aug__warp_bilinear_f64(a00, a01, a10, a11, fx, fy);                 \
            }                                                                                             \
        }                                                                                                 \
    }
DEF_SAMPLER(BOOL)
DEF_SAMPLER(INT8)
DEF_SAMPLER(INT16)
DEF_SAMPLER(INT32)
DEF_SAMPLER(INT64)
DEF_SAMPLER(UINT8)
DEF_SAMPLER(UINT16)
DEF_SAMPLER(UINT32)
DEF_SAMPLER(UINT64)
DEF_SAMPLER(FLOAT16)
DEF_SAMPLER(BFLOAT16)
DEF_SAMPLER(FLOAT32)
DEF_SAMPLER(FLOAT64)

typedef void (*sampler_fn)(const warp_img *, const double *, const double *, int, int64_t, int, const double *,
                           double *);
static const sampler_fn SAMPLERS[AUG_NUM_DTYPES] = {
    [AUG_BOOL] = sample_BOOL,         [AUG_INT8] = sample_INT8,       [AUG_INT16] = sample_INT16,
    [AUG_INT32] = sample_INT32,       [AUG_INT64] = sample_INT64,     [AUG_UINT8] = sample_UINT8,
    [AUG_UINT16] = sample_UINT16,     [AUG_UINT32] = sample_UINT32,   [AUG_UINT64] = sample_UINT64,
    [AUG_FLOAT16] = sample_FLOAT16,   [AUG_BFLOAT16] = sample_BFLOAT16, [AUG_FLOAT32] = sample_FLOAT32,
    [AUG_FLOAT64] = sample_FLOAT64,
};

/* Source coordinates of sample (i, j) for output pixels x0 .. x0+cw-1 of row y, clamped. */
static void coords_f64(const warp_img *im, int64_t y, int j, int64_t x0, int i, int cw, double *sx, double *sy) {
    const double *m = im->m;
    double Y = (double)y + sample_offset(im, j), di = sample_offset(im, i);
    double bx = aug__warp_rowterm(m[1], Y, m[2]), by = aug__warp_rowterm(m[4], Y, m[5]);
    int32_t xs = (int32_t)x0; /* Wt < 2^31 (checked by the driver); exact in double either way */
    if (im->projective) { /* constant border: outside the plane is (-2, -2), every neighbour outside */
        for (int k = 0; k < cw; k++)
            if (!aug__warp_project(m, (double)(xs + k) + di, Y, im->W, im->H, im->border, &sx[k], &sy[k]))
                sx[k] = sy[k] = -2.0;
        return;
    }
    if (im->border == AUG__WB_CONSTANT || im->border == AUG__WB_REPLICATE) {
        double w = (double)im->W, h = (double)im->H;
        for (int k = 0; k < cw; k++) {
            double X = (double)(xs + k) + di;
            sx[k] = aug__warp_coord(m[0], X, bx, w);
            sy[k] = aug__warp_coord(m[3], X, by, h);
        }
        return;
    }
    for (int k = 0; k < cw; k++) {
        double X = (double)(xs + k) + di;
        sx[k] = aug__warp_coord_b(m[0], X, bx, im->W, im->border);
        sy[k] = aug__warp_coord_b(m[3], X, by, im->H, im->border);
    }
}

static void rows_exact(const warp_ctx *cx, const warp_img *im, int64_t n, int64_t y0, int64_t y1) {
    const aug__warp_plan *pl = cx->plan;
    int64_t C = pl->channels, Wt = pl->width;
    sampler_fn sample = SAMPLERS[im->dtype];
    double sx[CHUNK], sy[CHUNK], acc[CGROUP * CHUNK];
    /* column blocks outside, rows inside: a tile of the output reads a compact
     * region of the source, which stays in cache */
    for (int64_t x0 = 0; x0 < Wt; x0 += CHUNK) {
        int cw = (int)(Wt - x0 < CHUNK ? Wt - x0 : CHUNK);
        for (int64_t y = y0; y < y1; y++) {
            for (int64_t c0 = 0; c0 < C; c0 += CGROUP) {
                int cn = (int)(C - c0 < CGROUP ? C - c0 : CGROUP);
                memset(acc, 0, sizeof(double) * (size_t)(cn * CHUNK));
                for (int j = 0; j < im->s; j++)
                    for (int i = 0; i < im->s; i++) {
                        coords_f64(im, y, j, x0, i, cw, sx, sy);
                        sample(im, sx, sy, cw, c0, cn, pl->background, acc);
                    }
                warp_store_acc(cx, n, c0, cn, y, x0, cw, im->s, acc);
            }
        }
    }
}

/* ---- fixed-point kernel: uint8 -> uint8 -------------------------------------------- */

void aug__warp_coords_fixed(const warp_img *im, int64_t y, int j, int64_t x0, int i, int cw, int32_t *qx,
                            int32_t *qy) {
    double sx[CHUNK], sy[CHUNK];
    coords_f64(im, y, j, x0, i, cw, sx, sy);
    for (int k = 0; k < cw; k++) {
        qx[k] = aug__warp_fixed_pos(sx[k]);
        qy[k] = aug__warp_fixed_pos(sy[k]);
    }
}

/* The 2^22-scaled bilinear value of a channel of a sample whose four neighbours
 * are inside; p0 the top-left neighbour's channel, p1 the one below. */
static inline uint32_t bilerp_u8(const uint8_t *p0, const uint8_t *p1, int64_t sw, uint32_t fx, uint32_t fy) {
    return aug__warp_bilerp_u8(p0[0], p0[sw], p1[0], p1[sw], fx, fy);
}

/* Border sample: any neighbour may be outside and take the background byte
 * (constant border) or map to a source pixel (the other borders). */
static inline void border_u8(const warp_img *im, const uint8_t *bg, int64_t ix, int64_t iy, uint32_t fx,
                             uint32_t fy, int64_t c0, int cn, uint32_t *r) {
    const int64_t sc = im->sc;
    if (im->border != AUG__WB_CONSTANT) {
        int64_t jx0 = aug__warp_index(ix, im->W, im->border), jx1 = aug__warp_index(ix + 1, im->W, im->border);
        int64_t jy0 = aug__warp_index(iy, im->H, im->border), jy1 = aug__warp_index(iy + 1, im->H, im->border);
        const uint8_t *q00 = (const uint8_t *)im->base + (jy0 * im->sh + jx0 * im->sw + c0 * sc);
        const uint8_t *q01 = (const uint8_t *)im->base + (jy0 * im->sh + jx1 * im->sw + c0 * sc);
        const uint8_t *q10 = (const uint8_t *)im->base + (jy1 * im->sh + jx0 * im->sw + c0 * sc);
        const uint8_t *q11 = (const uint8_t *)im->base + (jy1 * im->sh + jx1 * im->sw + c0 * sc);
        for (int c = 0; c < cn; c++)
            r[c] = aug__warp_bilerp_u8(q00[c * sc], q01[c * sc], q10[c * sc], q11[c * sc], fx, fy);
        return;
    }
    int vx0 = ix >= 0 && ix < im->W, vx1 = ix + 1 >= 0 && ix + 1 < im->W;
    int vy0 = iy >= 0 && iy < im->H, vy1 = iy + 1 >= 0 && iy + 1 < im->H;
    /* byte offsets; a pointer is formed only for a neighbour inside */
    const uint8_t *base = (const uint8_t *)im->base;
    int64_t o00 = iy * im->sh + ix * im->sw + c0 * sc, o01 = o00 + im->sw, o10 = o00 + im->sh, o11 = o10 + im->sw;
    int v00 = vy0 & vx0, v01 = vy0 & vx1, v10 = vy1 & vx0, v11 = vy1 & vx1;
    for (int c = 0; c < cn; c++) {
        uint32_t b = bg[c0 + c];
        int64_t oc = c * sc;
        uint32_t a00 = v00 ? base[o00 + oc] : b, a01 = v01 ? base[o01 + oc] : b;
        uint32_t a10 = v10 ? base[o10 + oc] : b, a11 = v11 ? base[o11 + oc] : b;
        r[c] = aug__warp_bilerp_u8(a00, a01, a10, a11, fx, fy);
    }
}

/* One s = 1 output pixel k from its fixed-point position: all cn channels. */
static inline void pixel_s1_u8(const warp_img *im, const uint8_t *bg, int32_t qxk, int32_t qyk, int cn,
                               uint8_t *out, int64_t plane, int k) {
    int64_t ix = aug__warp_fixed_cell(qxk), iy = aug__warp_fixed_cell(qyk);
    uint32_t fx = aug__warp_fixed_frac(qxk), fy = aug__warp_fixed_frac(qyk);
    if ((uint32_t)ix < (uint32_t)(im->W - 1) && (uint32_t)iy < (uint32_t)(im->H - 1)) {
        const uint8_t *p0 = (const uint8_t *)im->base + iy * im->sh + ix * im->sw, *p1 = p0 + im->sh;
        for (int c = 0; c < cn; c++)
            out[c * plane + k] = aug__warp_fixed_s1(bilerp_u8(p0 + c * im->sc, p1 + c * im->sc, im->sw, fx, fy));
    } else {
        uint32_t r[CGROUP];
        border_u8(im, bg, ix, iy, fx, fy, 0, cn, r);
        for (int c = 0; c < cn; c++) out[c * plane + k] = aug__warp_fixed_s1(r[c]);
    }
}

/* s = 1, all channels in one pass: writes bytes straight into the output planes.
 * NC > 0 fixes the channel count at compile time (1, 3, 4); 0 reads cn_rt. */
#define DEF_ROW_S1(NAME, NC)                                                                             \
    static void NAME(const warp_img *im, const uint8_t *bg, const int32_t *qx, const int32_t *qy, int cw, \
                     int cn_rt, uint8_t *out, int64_t plane) {                                          \
        const int cn = NC > 0 ? NC : cn_rt;                                                              \
        for (int k = 0; k < cw; k++) pixel_s1_u8(im, bg, qx[k], qy[k], cn, out, plane, k);              \
    }
DEF_ROW_S1(row_s1_c1, 1)
DEF_ROW_S1(row_s1_c3, 3)
DEF_ROW_S1(row_s1_c4, 4)
DEF_ROW_S1(row_s1_cn, 0)

#define FP_ACC_SHIFT AUG__WARP_FP_ACC_SHIFT
#define FP_MAX_S AUG__WARP_FP_MAX_S

static inline void pixel_acc_u8(const warp_img *im, const uint8_t *bg, int32_t qxk, int32_t qyk, int64_t c0, int cn,
                                uint32_t *acc, int k) {
    int64_t ix = aug__warp_fixed_cell(qxk), iy = aug__warp_fixed_cell(qyk);
    uint32_t fx = aug__warp_fixed_frac(qxk), fy = aug__warp_fixed_frac(qyk);
    if ((uint32_t)ix < (uint32_t)(im->W - 1) && (uint32_t)iy < (uint32_t)(im->H - 1)) {
        const uint8_t *p0 = (const uint8_t *)im->base + iy * im->sh + ix * im->sw + c0 * im->sc, *p1 = p0 + im->sh;
        for (int c = 0; c < cn; c++)
            acc[c * CHUNK + k] += aug__warp_fixed_acc(bilerp_u8(p0 + c * im->sc, p1 + c * im->sc, im->sw, fx, fy));
    } else {
        uint32_t r[CGROUP];
        border_u8(im, bg, ix, iy, fx, fy, c0, cn, r);
        for (int c = 0; c < cn; c++) acc[c * CHUNK + k] += aug__warp_fixed_acc(r[c]);
    }
}

/* The mean of s*s sums (s >= 2), rounded half up: floor((acc + s^2 * 2^15) / (s^2 * 2^16)),
 * computed as floor(floor((acc + s^2 * 2^15) / 2^16) / s^2) (equal for positive integers). */
static void finish_acc_u8(const uint32_t *acc, int cw, int s, uint8_t *out, int64_t dx) {
    const uint32_t recip = aug__warp_fixed_recip(s);
    if (dx == 1) { /* vectorises */
        for (int k = 0; k < cw; k++) out[k] = aug__warp_fixed_mean_r(acc[k], s, recip);
        return;
    }
    for (int k = 0; k < cw; k++) out[k * dx] = aug__warp_fixed_mean_r(acc[k], s, recip);
}

#if AUG__X86
/* The fixed-point kernel for 1 to 4 packed channels, 8 output pixels per step
 * with AVX2, for sample (i, j) of row y: stores bytes (acc == NULL, s = 1) or adds
 * to the 32-bit sums acc[c * CHUNK + k] (s > 1). It uses the same double expressions as coords_fixed (mul, add, max, min,
 * truncation; no FMA) and the same integer steps as bilerp_u8, so its bytes equal
 * the portable kernel's (tests/c/test_warp.c checks). Each neighbour is one
 * 32-bit load holding the pixel's channels (plus bytes of the next pixel, never
 * past the image's last byte: such steps, and steps with a border pixel, go
 * through pixel_s1_u8). Steps entirely outside the source store the background.
 * The loads are 8 scalar loads per vector rather than vpgatherdd: on AMD Zen 4
 * that makes the kernel about 1.3x faster on a cached source, 1.8x on a cold one.
 * A planar source (channel planes sc bytes apart, sw = 1: CHW, the policies' warps)
 * loads each channel's neighbour pair as one 16-bit load instead (about 4x the
 * portable kernel's speed on a 224 x 224 x 3 image). A group whose neighbours lie
 * on at most ROWS_MAX source rows and close columns (translations, shears,
 * rotations up to about 45 degrees) reads each row once instead (warp_rows8,
 * below): the timm policy's geometric ops on CHW 224 x 224 images take 15-31% less
 * time (translations 26%, ShearX 30%, ShearY 0.27 20%, Rotate 27 degrees 15%). */
/* The perspective form of warp_coords8 (constant border): u, v, w of the 8 pixels
 * as aug__warp_project computes them (mul, add, div; no FMA), points outside the
 * source plane (w <= 0, not finite) set to (-2, -2), the rest clamped to
 * [-2, W + 1] x [-2, H + 1]: the scalar rule's bits. */
typedef struct warp_persp_avx2 {
    __m256d m6, bw, zero, neg2;
} warp_persp_avx2;

__attribute__((target("avx2"))) static inline void warp_persp_init(const warp_img *im, double Y, warp_persp_avx2 *p) {
    p->m6 = _mm256_set1_pd(im->m[6]), p->bw = _mm256_set1_pd(aug__warp_rowterm(im->m[7], Y, im->m[8]));
    p->zero = _mm256_setzero_pd(), p->neg2 = _mm256_set1_pd(-2.0);
}

__attribute__((target("avx2"))) static inline void warp_coords8_persp(const warp_coords_avx2 *k,
                                                                      const warp_persp_avx2 *p, int32_t x,
                                                                      warp_xy8 *c) {
    __m256i xi = _mm256_add_epi32(_mm256_set1_epi32(x), k->lane);
    __m256d X[2] = {_mm256_add_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(xi)), k->di),
                    _mm256_add_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(xi, 1)), k->di)};
    __m256d out[2][2];
    for (int h = 0; h < 2; h++) {
        __m256d w = _mm256_add_pd(_mm256_mul_pd(p->m6, X[h]), p->bw);
        __m256d u = _mm256_div_pd(_mm256_add_pd(_mm256_mul_pd(k->m0, X[h]), k->bx), w);
        __m256d v = _mm256_div_pd(_mm256_add_pd(_mm256_mul_pd(k->m3, X[h]), k->by), w);
        __m256d ok = _mm256_and_pd(_mm256_cmp_pd(w, p->zero, _CMP_GT_OQ),
                                   _mm256_and_pd(_mm256_cmp_pd(_mm256_sub_pd(u, u), p->zero, _CMP_EQ_OQ),
                                                 _mm256_cmp_pd(_mm256_sub_pd(v, v), p->zero, _CMP_EQ_OQ)));
        u = _mm256_min_pd(_mm256_max_pd(u, k->lo), k->hx), v = _mm256_min_pd(_mm256_max_pd(v, k->lo), k->hy);
        out[h][0] = _mm256_blendv_pd(p->neg2, u, ok), out[h][1] = _mm256_blendv_pd(p->neg2, v, ok);
    }
    c->x0 = out[0][0], c->y0 = out[0][1], c->x1 = out[1][0], c->y1 = out[1][1];
}

static inline int32_t ld4(const uint8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline int32_t ld2(const uint8_t *p) {
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

/* One channel of 8 pixels from its neighbour pairs, top = v00 | v01 << 16 and
 * bot = v10 | v11 << 16 per 32-bit lane: bilerp_u8's integers, stored as bytes
 * (acc == NULL) or added to the sums acc[c * CHUNK + k ..]. */
__attribute__((target("avx2"))) static inline void bilerp8_store(__m256i top, __m256i bot, __m256i wx, __m256i gy,
                                                                 __m256i fy, int c, int k, uint32_t *acc,
                                                                 uint8_t *out, int64_t plane) {
    __m256i t = _mm256_madd_epi16(top, wx), b = _mm256_madd_epi16(bot, wx);
    __m256i r = _mm256_add_epi32(_mm256_mullo_epi32(t, gy), _mm256_mullo_epi32(b, fy));
    if (acc) {
        __m256i *pa = (__m256i *)(acc + c * CHUNK + k);
        r = _mm256_srli_epi32(_mm256_add_epi32(r, _mm256_set1_epi32(1 << (FP_ACC_SHIFT - 1))), FP_ACC_SHIFT);
        _mm256_storeu_si256(pa, _mm256_add_epi32(_mm256_loadu_si256(pa), r));
        return;
    }
    r = _mm256_srli_epi32(_mm256_add_epi32(r, _mm256_set1_epi32(1 << 21)), 22);
    __m256i p16 = _mm256_packus_epi32(r, r);    /* per 128-bit half: r0..3 r0..3 | r4..7 r4..7 */
    __m256i p8 = _mm256_packus_epi16(p16, p16);
    __m128i v = _mm_unpacklo_epi32(_mm256_castsi256_si128(p8), _mm256_extracti128_si256(p8, 1));
    _mm_storel_epi64((__m128i *)(out + c * plane + k), v);
}

/* Row loads of a group of 8 pixels whose neighbours lie on few source rows
 * (translations, shears, small rotations: the policies' geometric ops): the top
 * neighbours on rows ym .. ym + nr - 1 (nr <= ROWS_MAX), the bottom ones one row
 * lower, each row read once with 16-byte loads and spread to the lanes by a
 * byte shuffle, where the general step makes 8 scalar loads per row. The lanes'
 * words are the scalar loads' bytes, so the results are the same. */
#define ROWS_MAX 6
/* Packed sources (4 vectors per row pair, where the scalar step makes 32 loads for
 * all channels): at most 2 rows; with 3 or more rows they were slower than the
 * scalar loads (HWC 224 x 224 x 3: ShearY 0.27 +4%, Rotate 27 degrees +9%). */
#define ROWS_MAX_PACKED 2

typedef struct warp_rows8 {
    int nr;                       /* rows of the top neighbours; 0: the group takes the scalar loads */
    int64_t o;                    /* byte offset of the loads' first row and column */
    int64_t oh;                   /* packed: the upper 4 lanes' load, bytes after o */
    __m256i shuf;                 /* the byte shuffle (within each 128-bit half) */
    __m256i sel[ROWS_MAX];        /* sel[r], 1 <= r < nr: the lanes whose top neighbours lie on row ym + r */
} warp_rows8;

/* The group's rows from its cells (ix, iy), all interior (the caller checked),
 * the top neighbours' rows ym + dy, 0 <= dy < nr: planar (sw = 1), lane l's pair
 * is bytes dx, dx + 1 of a 16-byte load at column xm (the smaller of lanes 0 and
 * 7's, dx = ix - xm <= 14); packed (sc = 1, sw <= 4), lane l's 4 bytes at its
 * pixel (ld4's) are bytes rel .. rel + 3 of its half's 16-byte load at pixel
 * x0 + d4 (x0: lane 0's cell, dx = ix - x0, d4: the half's first lane's dx, rel =
 * (dx - d4) * sw <= 12), its right neighbour's the same bytes of the load sw bytes
 * further. The last byte read, on the bottom row of the last channel, must be the
 * image's last byte or before (last); else nr = 0, as for a group on more rows
 * (ROWS_MAX, ROWS_MAX_PACKED) or columns. The cells of an affine map are monotone
 * in x, so lanes 0 and 7 bound them; the checks hold for any cells. */
__attribute__((target("avx2"))) static inline void warp_rows8_plan(__m256i ix, __m256i iy, int planar, int64_t sh,
                                                                   int64_t sw, int64_t sc, int cn, int64_t last,
                                                                   warp_rows8 *g) {
    g->nr = 0;
    int32_t x0 = _mm256_cvtsi256_si32(ix), x7 = _mm256_extract_epi32(ix, 7);
    int32_t y0 = _mm256_cvtsi256_si32(iy), y7 = _mm256_extract_epi32(iy, 7);
    int32_t ym = y0 < y7 ? y0 : y7, nr = (y0 < y7 ? y7 - y0 : y0 - y7) + 1;
    if (nr > ROWS_MAX) return;
    __m256i dy = _mm256_sub_epi32(iy, _mm256_set1_epi32(ym));
    __m256i ok = _mm256_cmpeq_epi32(_mm256_min_epu32(dy, _mm256_set1_epi32(nr - 1)), dy);
    int64_t end;
    if (planar) {
        int32_t xm = x0 < x7 ? x0 : x7;
        __m256i dx = _mm256_sub_epi32(ix, _mm256_set1_epi32(xm));
        ok = _mm256_and_si256(ok, _mm256_cmpeq_epi32(_mm256_min_epu32(dx, _mm256_set1_epi32(14)), dx));
        /* dword (dx, zero, dx + 1, zero): v[dx] | v[dx + 1] << 16 */
        g->shuf = _mm256_add_epi32(_mm256_or_si256(dx, _mm256_slli_epi32(dx, 16)),
                                   _mm256_set1_epi32((int32_t)0x80018000));
        g->o = ym * sh + xm, g->oh = 0;
        end = g->o + nr * sh + (cn - 1) * sc + 15;
    } else {
        if (sw > 4 || nr > ROWS_MAX_PACKED) return;
        __m256i dx = _mm256_sub_epi32(ix, _mm256_set1_epi32(x0));
        __m256i rel = _mm256_mullo_epi32(_mm256_sub_epi32(dx, _mm256_shuffle_epi32(dx, 0)),
                                         _mm256_set1_epi32((int32_t)sw));
        ok = _mm256_and_si256(ok, _mm256_cmpeq_epi32(_mm256_min_epu32(rel, _mm256_set1_epi32(12)), rel));
        /* dword (rel, rel + 1, rel + 2, rel + 3): the pixel's 4 bytes */
        g->shuf = _mm256_add_epi32(_mm256_mullo_epi32(rel, _mm256_set1_epi32(0x01010101)),
                                   _mm256_set1_epi32(0x03020100));
        g->o = ym * sh + x0 * sw, g->oh = (int64_t)_mm256_extract_epi32(dx, 4) * sw;
        if (g->oh < 0) return;
        end = g->o + nr * sh + g->oh + sw + 15;
    }
    if (end > last || _mm256_movemask_epi8(ok) != -1) return;
    for (int r = 1; r < nr; r++) g->sel[r] = _mm256_cmpeq_epi32(dy, _mm256_set1_epi32(r));
    g->nr = nr;
}

/* One row's lanes: planar, the pairs (v00 | v01 << 16); packed (a constant where
 * inlined), the 4 bytes at a pixel. */
__attribute__((target("avx2"))) static inline __m256i warp_rows8_load(const warp_rows8 *g, int packed,
                                                                       const uint8_t *p) {
    __m128i lo = _mm_loadu_si128((const __m128i *)p);
    __m256i v = packed && g->oh ? _mm256_inserti128_si256(_mm256_castsi128_si256(lo),
                                                          _mm_loadu_si128((const __m128i *)(p + g->oh)), 1)
                                : _mm256_broadcastsi128_si256(lo);
    return _mm256_shuffle_epi8(v, g->shuf);
}

/* The top (row r of each lane) and bottom (row r + 1) vectors of the nr + 1 rows
 * at p, sh apart: the lanes' loads. Inlined with nr = g->nr a constant (below). */
__attribute__((target("avx2"), always_inline)) static inline void warp_rows8_get(const warp_rows8 *g, int nr,
                                                                                int packed, const uint8_t *p,
                                                                                int64_t sh, __m256i *top,
                                                                                __m256i *bot) {
    __m256i t = warp_rows8_load(g, packed, p), b = t;
    for (int r = 1; r <= nr; r++) {
        __m256i v = warp_rows8_load(g, packed, p + r * sh);
        b = r == 1 ? v : _mm256_blendv_epi8(b, v, g->sel[r - 1]);
        if (r < nr) t = _mm256_blendv_epi8(t, v, g->sel[r]);
    }
    *top = t, *bot = b;
}

/* A planar group's cn channels (planes sc apart from p) from its rows. */
__attribute__((target("avx2"), always_inline)) static inline void
warp_rows8_planar(const warp_rows8 *g, int nr, const uint8_t *p, int64_t sh, int64_t sc, int cn, __m256i wx,
                  __m256i gy, __m256i fy, int k, uint32_t *acc, uint8_t *out, int64_t plane) {
    for (int c = 0; c < cn; c++) {
        __m256i top, bot;
        warp_rows8_get(g, nr, 0, p + c * sc, sh, &top, &bot);
        bilerp8_store(top, bot, wx, gy, fy, c, k, acc, out, plane);
    }
}

__attribute__((target("avx2"))) void aug__warp_row_avx2(const warp_img *im, const uint8_t *bg, int64_t y, int j,
                                                        int64_t x0, int i, int cw, int cn, uint8_t *out, int64_t plane,
                                                        uint32_t *acc) {
    const double *m = im->m;
    double Y = (double)y + sample_offset(im, j), di = sample_offset(im, i);
    double bx = m[1] * Y + m[2], by = m[4] * Y + m[5];
    warp_coords_avx2 kc;
    warp_coords_init(im, bx, by, di, &kc);
    warp_persp_avx2 kp;
    warp_persp_init(im, Y, &kp); /* used only for a homography (m[6..8] = 0, 0, 1 otherwise) */
    const __m256d off = _mm256_set1_pd(FP_OFFSET), scale = _mm256_set1_pd(FP_ONE), half = _mm256_set1_pd(0.5);
    const __m256i fmask = _mm256_set1_epi32(FP_ONE - 1);
    const __m256i ione = _mm256_set1_epi32(FP_ONE), ioff = _mm256_set1_epi32(FP_OFFSET);
    const __m256i minus1 = _mm256_set1_epi32(-1), wl = _mm256_set1_epi32((int32_t)(im->W - 1));
    const __m256i hl = _mm256_set1_epi32((int32_t)(im->H - 1)), vsh = _mm256_set1_epi32((int32_t)im->sh);
    const __m256i vsw = _mm256_set1_epi32((int32_t)im->sw), ff = _mm256_set1_epi32(0xff);
    /* a 4-byte load at o11 must end at the image's last byte or before: o11 < last - 2 */
    const __m256i lastm2 = _mm256_set1_epi32((int32_t)((im->H - 1) * im->sh + (im->W - 1) * im->sw + cn - 1 - 2));
    const int sw = (int)im->sw;
    /* the image's last byte (positive strides): the row loads end there or before */
    const int64_t last = (im->H - 1) * im->sh + (im->W - 1) * im->sw + (int64_t)(cn - 1) * im->sc;
    /* planar: channels in planes sc bytes apart (sw = 1, as a CHW source); else packed (sc = 1) */
    const int planar = im->sc != 1;
    const uint8_t *base = (const uint8_t *)im->base;
    const int reflecting = im->border == AUG__WB_REFLECT || im->border == AUG__WB_SYMMETRIC;
    int32_t qx[8], qy[8];
    int k = 0;
    for (; k + 8 <= cw; k += 8) {
        /* raw coordinates, clamped (constant, replicate: the bound) */
        warp_xy8 sc;
        if (im->projective) {
            warp_coords8_persp(&kc, &kp, (int32_t)(x0 + k), &sc);
        } else if (warp_coords8(&kc, (int32_t)(x0 + k), reflecting, &sc)) {
            aug__warp_coords_fixed(im, y, j, x0 + k, i, 8, qx, qy);
            for (int l = 0; l < 8; l++) {
                if (acc) pixel_acc_u8(im, bg, qx[l], qy[l], 0, cn, acc, k + l);
                else pixel_s1_u8(im, bg, qx[l], qy[l], cn, out, plane, k + l);
            }
            continue;
        }
#define WARP_Q(C) _mm256_cvttpd_epi32(_mm256_add_pd(_mm256_mul_pd(_mm256_add_pd(C, off), scale), half))
        __m256i vqx = _mm256_setr_m128i(WARP_Q(sc.x0), WARP_Q(sc.x1));
        __m256i vqy = _mm256_setr_m128i(WARP_Q(sc.y0), WARP_Q(sc.y1));
#undef WARP_Q
        __m256i ix = _mm256_sub_epi32(_mm256_srai_epi32(vqx, FP_BITS), ioff);
        __m256i iy = _mm256_sub_epi32(_mm256_srai_epi32(vqy, FP_BITS), ioff);
        /* every neighbour outside: x0 < -1 or x0 > W - 1 (same in y) */
        __m256i outside = _mm256_or_si256(
            _mm256_or_si256(_mm256_cmpgt_epi32(minus1, ix), _mm256_cmpgt_epi32(ix, wl)),
            _mm256_or_si256(_mm256_cmpgt_epi32(minus1, iy), _mm256_cmpgt_epi32(iy, hl)));
        if (im->border == AUG__WB_CONSTANT && _mm256_movemask_epi8(outside) == -1) {
            if (!acc)
                for (int c = 0; c < cn; c++) memset(out + c * plane + k, bg[c], 8);
            else /* (bg * 2^22 + 32) >> 6 = bg * 2^16 */
                for (int c = 0; c < cn; c++)
                    for (int l = 0; l < 8; l++) acc[c * CHUNK + k + l] += (uint32_t)bg[c] << (22 - FP_ACC_SHIFT);
            continue;
        }
        __m256i o00 = _mm256_add_epi32(_mm256_mullo_epi32(iy, vsh), _mm256_mullo_epi32(ix, vsw));
        __m256i o11 = _mm256_add_epi32(o00, _mm256_add_epi32(vsh, vsw));
        /* interior: 0 <= x0 < W - 1 and 0 <= y0 < H - 1, and the loads stay inside */
        __m256i inside = _mm256_and_si256(
            _mm256_and_si256(_mm256_cmpgt_epi32(ix, minus1), _mm256_cmpgt_epi32(wl, ix)),
            _mm256_and_si256(_mm256_cmpgt_epi32(iy, minus1), _mm256_cmpgt_epi32(hl, iy)));
        if (!planar) inside = _mm256_and_si256(inside, _mm256_cmpgt_epi32(lastm2, o11));
        if (_mm256_movemask_epi8(inside) != -1) {
            _mm256_storeu_si256((__m256i *)qx, vqx);
            _mm256_storeu_si256((__m256i *)qy, vqy);
            for (int l = 0; l < 8; l++) {
                if (acc) pixel_acc_u8(im, bg, qx[l], qy[l], 0, cn, acc, k + l);
                else pixel_s1_u8(im, bg, qx[l], qy[l], cn, out, plane, k + l);
            }
            continue;
        }
        __m256i fx = _mm256_and_si256(vqx, fmask), fy = _mm256_and_si256(vqy, fmask);
        __m256i wx = _mm256_or_si256(_mm256_sub_epi32(ione, fx), _mm256_slli_epi32(fx, 16)); /* (gx, fx) pairs */
        __m256i gy = _mm256_sub_epi32(ione, fy);
        /* the neighbours' bytes: the group's rows (warp_rows8) or 8 scalar loads per row */
        warp_rows8 g;
        warp_rows8_plan(ix, iy, planar, im->sh, im->sw, im->sc, cn, last, &g);
        if (planar && g.nr) { /* one branch on the row count per group, not one per channel */
#define ROWS8_PLANAR(N) warp_rows8_planar(&g, N, base + g.o, im->sh, im->sc, cn, wx, gy, fy, k, acc, out, plane)
            switch (g.nr) {
            case 1: ROWS8_PLANAR(1); break;
            case 2: ROWS8_PLANAR(2); break;
            case 3: ROWS8_PLANAR(3); break;
            case 4: ROWS8_PLANAR(4); break;
            case 5: ROWS8_PLANAR(5); break;
            default: ROWS8_PLANAR(g.nr); break;
            }
#undef ROWS8_PLANAR
            continue;
        }
        int32_t ofs[8];
        if (!g.nr) _mm256_storeu_si256((__m256i *)ofs, o00);
        if (planar) { /* channel c's plane at c * sc: each neighbour pair is one 16-bit load */
            for (int c = 0; c < cn; c++) {
                const uint8_t *pc = base + c * im->sc;
#define LD2(P) ld2((P) + ofs[0]), ld2((P) + ofs[1]), ld2((P) + ofs[2]), ld2((P) + ofs[3]), ld2((P) + ofs[4]), \
               ld2((P) + ofs[5]), ld2((P) + ofs[6]), ld2((P) + ofs[7])
                __m256i T = _mm256_setr_epi32(LD2(pc)), Bt = _mm256_setr_epi32(LD2(pc + im->sh));
#undef LD2
                /* (v0 | v1 << 8) -> (v0 | v1 << 16) */
                __m256i top = _mm256_or_si256(_mm256_and_si256(T, ff),
                                              _mm256_slli_epi32(_mm256_andnot_si256(ff, T), 8));
                __m256i bot = _mm256_or_si256(_mm256_and_si256(Bt, ff),
                                              _mm256_slli_epi32(_mm256_andnot_si256(ff, Bt), 8));
                bilerp8_store(top, bot, wx, gy, fy, c, k, acc, out, plane);
            }
            continue;
        }
        __m256i A, B, Cv, D; /* the 4 bytes at each neighbour: top left, top right, bottom left, bottom right */
        if (g.nr) {
            warp_rows8_get(&g, g.nr, 1, base + g.o, im->sh, &A, &Cv);
            warp_rows8_get(&g, g.nr, 1, base + g.o + sw, im->sh, &B, &D);
        } else {
#define LD4(P) ld4((P) + ofs[0]), ld4((P) + ofs[1]), ld4((P) + ofs[2]), ld4((P) + ofs[3]), ld4((P) + ofs[4]), \
               ld4((P) + ofs[5]), ld4((P) + ofs[6]), ld4((P) + ofs[7])
            A = _mm256_setr_epi32(LD4(base)), B = _mm256_setr_epi32(LD4(base + sw));
            Cv = _mm256_setr_epi32(LD4(base + im->sh)), D = _mm256_setr_epi32(LD4(base + im->sh + sw));
#undef LD4
        }
        for (int c = 0; c < cn; c++) {
            __m128i sh = _mm_cvtsi32_si128(8 * c);
            __m256i top = _mm256_or_si256(_mm256_and_si256(_mm256_srl_epi32(A, sh), ff),
                                          _mm256_slli_epi32(_mm256_and_si256(_mm256_srl_epi32(B, sh), ff), 16));
            __m256i bot = _mm256_or_si256(_mm256_and_si256(_mm256_srl_epi32(Cv, sh), ff),
                                          _mm256_slli_epi32(_mm256_and_si256(_mm256_srl_epi32(D, sh), ff), 16));
            bilerp8_store(top, bot, wx, gy, fy, c, k, acc, out, plane);
        }
    }
    if (k < cw) {
        int32_t tx[8], ty[8];
        aug__warp_coords_fixed(im, y, j, x0 + k, i, cw - k, tx, ty);
        for (int l = 0; l < cw - k; l++) {
            if (acc) pixel_acc_u8(im, bg, tx[l], ty[l], 0, cn, acc, k + l);
            else pixel_s1_u8(im, bg, tx[l], ty[l], cn, out, plane, k + l);
        }
    }
}
#endif

/* The tile's planes [c * CHUNK + k] into a pixel-strided (HWC) output row. The
 * strides are locals: byte stores may alias anything, so fields read through a
 * pointer would be reloaded per byte. */
static void scatter_u8(const uint8_t *tile, int cw, int64_t C, uint8_t *out, int64_t dx, int64_t dc) {
    if (C == 3 && dc == 1 && dx == 3) {
        for (int k = 0; k < cw; k++)
            out[3 * k] = tile[k], out[3 * k + 1] = tile[CHUNK + k], out[3 * k + 2] = tile[2 * CHUNK + k];
        return;
    }
    for (int k = 0; k < cw; k++)
        for (int64_t c = 0; c < C; c++) out[k * dx + c * dc] = tile[c * CHUNK + k];
}

static void rows_fixed(const warp_ctx *cx, const warp_img *im, const uint8_t *bg, int64_t n, int64_t y0,
                       int64_t y1) {
    const aug__warp_plan *pl = cx->plan;
    int64_t C = pl->channels, Wt = pl->width;
    int32_t qx[CHUNK], qy[CHUNK];
    uint32_t acc[CGROUP * CHUNK];
    uint8_t tile[CGROUP * CHUNK]; /* s = 1 bytes of a pixel-strided (HWC) output, before the scatter */
    uint8_t *dst = (uint8_t *)cx->dst;
    int s = im->s;
    /* the AVX2 step needs 1-4 adjacent channels (or planes with sw = 1), positive strides, byte offsets in
     * int32, and sides of 4 or more for the reflecting borders (row_avx2) */
    int avx2 = cx->simd >= AUG__SIMD_AVX2 && C <= 4 && (im->sc == 1 || (im->sw == 1 && im->sc > 0)) &&
               im->sw > 0 && im->sh > 0 &&
               (im->border == AUG__WB_CONSTANT || im->border == AUG__WB_REPLICATE || (im->W >= 4 && im->H >= 4)) &&
               (im->H - 1) * im->sh + (im->W - 1) * im->sw + 8 < INT32_MAX && Wt < INT32_MAX - 8;
    (void)avx2;
#if AUG__X86
    if (avx2 && im->sc == 1 && aug__warp_rows_axis_u8(cx, im, bg, n, y0, y1)) return;
#endif
    /* column blocks outside, rows inside: a tile of the output reads a compact
     * region of the source, which stays in cache */
    for (int64_t x0 = 0; x0 < Wt; x0 += CHUNK) {
        int cw = (int)(Wt - x0 < CHUNK ? Wt - x0 : CHUNK);
        for (int64_t y = y0; y < y1; y++) {
            if (s == 1 && C <= CGROUP) {
                /* planes of the output (dx = 1), else the tile */
                int planar = cx->dx == 1;
                uint8_t *out = planar ? dst + warp_dst_at(cx, n, 0, y, x0) : tile;
                int64_t plane = planar ? cx->dc : CHUNK;
#if AUG__X86
                if (avx2) aug__warp_row_avx2(im, bg, y, 0, x0, 0, cw, (int)C, out, plane, NULL);
                else
#endif
                {
                    aug__warp_coords_fixed(im, y, 0, x0, 0, cw, qx, qy);
                    switch (C) {
                    case 1: row_s1_c1(im, bg, qx, qy, cw, 1, out, plane); break;
                    case 3: row_s1_c3(im, bg, qx, qy, cw, 3, out, plane); break;
                    case 4: row_s1_c4(im, bg, qx, qy, cw, 4, out, plane); break;
                    default: row_s1_cn(im, bg, qx, qy, cw, (int)C, out, plane); break;
                    }
                }
                if (!planar) scatter_u8(tile, cw, C, dst + warp_dst_at(cx, n, 0, y, x0), cx->dx, cx->dc);
                continue;
            }
            if (s == 1) {
                /* more channels than a group: the s = 1 rows group by group (a view of the
                 * image from channel c0 on), so each value is rounded once, as in the CUDA
                 * kernel; the accumulator below would round (r + 2^5) >> 6, then again */
                aug__warp_coords_fixed(im, y, 0, x0, 0, cw, qx, qy);
                for (int64_t c0 = 0; c0 < C; c0 += CGROUP) {
                    const int cn = (int)(C - c0 < CGROUP ? C - c0 : CGROUP), planar = cx->dx == 1;
                    warp_img g = *im;
                    g.base = im->base + c0 * im->sc;
                    uint8_t *out = planar ? dst + warp_dst_at(cx, n, c0, y, x0) : tile;
                    row_s1_cn(&g, bg + c0, qx, qy, cw, cn, out, planar ? cx->dc : CHUNK);
                    if (!planar) scatter_u8(tile, cw, cn, dst + warp_dst_at(cx, n, c0, y, x0), cx->dx, cx->dc);
                }
                continue;
            }
            for (int64_t c0 = 0; c0 < C; c0 += CGROUP) {
                int cn = (int)(C - c0 < CGROUP ? C - c0 : CGROUP);
                memset(acc, 0, sizeof(uint32_t) * (size_t)(cn * CHUNK));
                /* the row terms of sample row j are shared by its s samples and by
                 * every pixel: coords_fixed computes them once per call */
                for (int j = 0; j < s; j++)
                    for (int i = 0; i < s; i++) {
#if AUG__X86
                        if (avx2) {
                            aug__warp_row_avx2(im, bg, y, j, x0, i, cw, cn, NULL, 0, acc);
                            continue;
                        }
#endif
                        aug__warp_coords_fixed(im, y, j, x0, i, cw, qx, qy);
                        for (int k = 0; k < cw; k++) pixel_acc_u8(im, bg, qx[k], qy[k], c0, cn, acc, k);
                    }
                for (int c = 0; c < cn; c++)
                    finish_acc_u8(acc + c * CHUNK, cw, s, dst + warp_dst_at(cx, n, c0 + c, y, x0), cx->dx);
            }
        }
    }
}

/* ---- driver -------------------------------------------------------------------------- */

static void image_setup(const warp_ctx *cx, int64_t n, warp_img *im) {
    const aug__warp_plan *pl = cx->plan;
    const aug_tensor *t = pl->src[n];
    int64_t item = aug_dtype_info(t->dtype)->size;
    im->base = aug_tensor_ptr(t);
    im->H = t->shape[0];
    im->W = t->shape[1];
    im->C = t->shape[2];
    im->sh = t->strides[0] * item;
    im->sw = t->strides[1] * item;
    im->sc = t->strides[2] * item;
    im->dtype = t->dtype;
    const int nm = cx->projective ? 9 : 6;
    im->m[6] = 0.0, im->m[7] = 0.0, im->m[8] = 1.0;
    for (int k = 0; k < nm; k++) im->m[k] = (double)pl->matrices[nm * n + k];
    im->s = pl->supersampling[n];
    im->border = pl->border;
    im->projective = cx->projective;
    for (int k = 0; k < im->s && k < 64; k++) im->d[k] = aug__warp_offset(k, im->s);
}

static void warp_task(void *ctx, int64_t task, int worker) {
    (void)worker;
    const warp_ctx *cx = ctx;
    int64_t n = task / cx->tasks_per_image, blk = task % cx->tasks_per_image;
    int64_t y0 = blk * cx->rows_per_task, y1 = y0 + cx->rows_per_task;
    if (y1 > cx->plan->height) y1 = cx->plan->height;
    warp_img im;
    image_setup(cx, n, &im);
    if (cx->plan->interp == AUG_WARP_CUBIC) {
        aug__warp_rows_cubic(cx, &im, n, y0, y1);
        return;
    }
    if (cx->projective) {
        /* the constant border's fixed-point images (at most a channel group: s = 1 stores the
         * byte of r) take the affine kernel with projected coordinates (coords_f64, the AVX2
         * step): the same bytes, several times faster; the rest cpu/warp_persp.c */
        if (cx->plan->interp != AUG_WARP_NEAREST && im.border == AUG__WB_CONSTANT && cx->plan->channels <= CGROUP &&
            aug__warp_persp_kind(im.dtype, cx->dst_dtype, im.H, im.W, im.s, cx->bg_u8 != NULL, cx->bg_f32 != NULL,
                                 im.border) == AUG__WARP_FIXED)
            rows_fixed(cx, &im, cx->bg_u8, n, y0, y1);
        else
            aug__warp_rows_persp(cx, &im, n, y0, y1);
        return;
    }
    if (cx->plan->interp == AUG_WARP_NEAREST) {
        aug__warp_rows_nearest(cx, &im, cx->bg_dst, n, y0, y1);
        return;
    }
    switch (aug__warp_kind(im.dtype, cx->dst_dtype, im.sc, im.H, im.W, im.s, cx->bg_u8 != NULL, cx->bg_f32 != NULL,
                           im.border)) {
    case AUG__WARP_FIXED: rows_fixed(cx, &im, cx->bg_u8, n, y0, y1); break;
    case AUG__WARP_FLOAT: aug__warp_rows_float(cx, &im, n, y0, y1); break;
    default: rows_exact(cx, &im, n, y0, y1);
    }
}

static aug_status warp_exec(const aug__warp_plan *plan, int level, int projective);

aug_status aug__cpu_warp_affine(const aug__warp_plan *plan) {
    return warp_exec(plan, aug__simd_level(), 0);
}

aug_status aug__cpu_warp_affine_level(const aug__warp_plan *plan, int level) { return warp_exec(plan, level, 0); }

/* The perspective family (cpu/warp_persp.c's rows under this driver). */
aug_status aug__cpu_warp_perspective(const aug__warp_plan *plan) {
    return warp_exec(plan, aug__simd_level(), 1);
}

aug_status aug__cpu_warp_perspective_level(const aug__warp_plan *plan, int level) {
    return warp_exec(plan, level, 1);
}

static aug_status warp_exec(const aug__warp_plan *plan, int level, int projective) {
    warp_ctx cx;
    memset(&cx, 0, sizeof cx);
    cx.plan = plan;
    cx.projective = projective;
    cx.simd = level;
    cx.dst = aug_tensor_ptr(plan->dst);
    cx.dst_dtype = plan->dst->dtype;
    cx.dst_item = aug_dtype_info(cx.dst_dtype)->size;
    cx.dn = plan->dst->strides[0], cx.dc = plan->dst->strides[1];
    cx.dy = plan->dst->strides[2], cx.dx = plan->dst->strides[3];
    if (plan->height == 0 || plan->width == 0 || plan->channels == 0) return AUG_OK;
    /* the background as bytes for the fixed-point kernel, if it is representable */
    /* and rounded to float32 for the float32 kernel, if finite there */
    uint8_t bg_stack[CGROUP], *bg = plan->channels <= CGROUP ? bg_stack : malloc((size_t)plan->channels);
    float bgf_stack[CGROUP], *bgf = plan->channels <= CGROUP ? bgf_stack : malloc(sizeof(float) * (size_t)plan->channels);
    if (!bg || !bgf) {
        if (bg != bg_stack) free(bg);
        if (bgf != bgf_stack) free(bgf);
        return AUG__NOMEM(plan->func);
    }
    int bg_ok = 1, bgf_ok = 1;
    for (int64_t c = 0; c < plan->channels; c++) {
        bg_ok &= aug__warp_bg_byte(plan->background[c], &bg[c]);
        bgf_ok &= aug__warp_bg_float(plan->background[c], &bgf[c]);
    }
    cx.bg_u8 = bg_ok ? bg : NULL;
    cx.bg_f32 = bgf_ok ? bgf : NULL;
    /* and converted to the destination dtype (saturate_cast) for the nearest kernel */
    char *bgd = malloc((size_t)(plan->channels * cx.dst_item));
    if (!bgd) {
        if (bg != bg_stack) free(bg);
        if (bgf != bgf_stack) free(bgf);
        return AUG__NOMEM(plan->func);
    }
    aug__convert((const char *)plan->background, sizeof(double), AUG_FLOAT64, bgd, cx.dst_item, cx.dst_dtype,
                 plan->channels);
    cx.bg_dst = bgd;
    /* About 4096 output pixels per task: enough work to hide the task hand-out and
     * to make CHUNK-wide tiles tall enough for cache reuse, small enough to balance
     * a 224x224 image over a dozen cores. */
    int64_t rows = 4096 / plan->width;
    cx.rows_per_task = rows < 1 ? 1 : rows;
    cx.tasks_per_image = (plan->height + cx.rows_per_task - 1) / cx.rows_per_task;
    aug__parallel_for(plan->n * cx.tasks_per_image, warp_task, &cx);
    if (bg != bg_stack) free(bg);
    if (bgf != bgf_stack) free(bgf);
    free(bgd);
    return AUG_OK;
}
