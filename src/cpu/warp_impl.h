/* cpu/warp_impl.h: what cpu/warp.c (driver, double and uint8 kernels) and
 * cpu/warp_float.c (float32 kernel) share (private). The arithmetic of a sample
 * is scalar/warp.h's, shared with the CUDA backend. */
#ifndef AUG_CPU_WARP_IMPL_H
#define AUG_CPU_WARP_IMPL_H
#include <stdint.h>
#include "core/warp.h"
#include "scalar/warp.h"
#include "cpu/convert.h"
#include "cpu/simd.h"

/* Output pixels per inner block: the coordinate and accumulator buffers stay on
 * the stack and in L1. */
#define CHUNK 64
/* Channels per pass of the accumulating loops (their buffers are CGROUP x CHUNK). */
#define CGROUP 16

typedef struct warp_ctx {
    const aug__warp_plan *plan;
    int64_t rows_per_task, tasks_per_image;
    char *dst;                    /* element [0, 0, 0, 0] */
    int64_t dn, dc, dy, dx;       /* its element strides (image, channel, row, pixel) */
    int64_t dst_item;
    aug_dtype dst_dtype;
    int simd;                     /* AUG__SIMD_* level of this call */
    const uint8_t *bg_u8;         /* the background as bytes when every value is an integer in
                                   * [0, 255] (else NULL: no fixed-point kernel) */
    const float *bg_f32;          /* the background rounded to float32 when every value is finite
                                   * there (else NULL: no float32 kernel) */
    const char *bg_dst;           /* the background converted to dst_dtype (nearest kernel) */
    int projective;               /* the warp_perspective family: 9 matrix values, cpu/warp_persp.c */
} warp_ctx;

/* One image's geometry, shared by all kernels. */
typedef struct warp_img {
    const char *base;             /* element [0, 0, 0] */
    int64_t H, W, C;
    int64_t sh, sw, sc;           /* strides in bytes */
    aug_dtype dtype;
    double m[9];                  /* 6 values (affine) or 9 (a homography) */
    int s;
    int border;                   /* aug_warp_border */
    int projective;               /* m is a homography (9 values): coordinates through aug__warp_project; the
                                   * affine kernels take such images only with the constant border, where a
                                   * point outside the source plane becomes (-2, -2): the background */
    double d[64];                 /* sample offsets d[k] for k < min(s, 64); larger s computes them */
} warp_img;

static inline double warp_sample_offset(const warp_img *im, int k) {
    return k < 64 ? im->d[k] : aug__warp_offset(k, im->s);
}

#define warp_floor_small aug__warp_floor
#define warp_clampd aug__warp_clamp

/* Element offset of output value (n, c, y, x). */
static inline int64_t warp_dst_at(const warp_ctx *cx, int64_t n, int64_t c, int64_t y, int64_t x) {
    return n * cx->dn + c * cx->dc + y * cx->dy + x * cx->dx;
}

/* The double accumulators of cn channels (CHUNK apart) of output row y, columns
 * x0 .. x0 + cw - 1, into dst: divided by s * s samples when supersampled, then
 * converted to the output dtype (the generic kernels' last step). */
static inline void warp_store_acc(const warp_ctx *cx, int64_t n, int64_t c0, int cn, int64_t y, int64_t x0, int cw,
                                  int s, double *acc) {
    const double ss = (double)s * (double)s;
    for (int c = 0; c < cn; c++) {
        double *a = acc + c * CHUNK;
        if (s > 1)
            for (int k = 0; k < cw; k++) a[k] /= ss;
        char *out = cx->dst + warp_dst_at(cx, n, c0 + c, y, x0) * cx->dst_item;
        aug__convert((const char *)a, sizeof(double), AUG_FLOAT64, out, cx->dx * cx->dst_item, cx->dst_dtype, cw);
    }
}

#if AUG__X86
#include <immintrin.h>
/* The AVX2 kernels' coordinate step (cpu/warp.c's uint8 kernel, cpu/warp_float.c):
 * per row and sample, the broadcast terms; per 8 output pixels, the raw source
 * coordinates m0 X + bx, m3 X + by clamped to [-2, W + 1] x [-2, H + 1] as 2 x 4
 * doubles, with the scalar kernels' operations (mul, add, max, min; no FMA), so
 * both give the scalar kernels' bits. */
typedef struct warp_coords_avx2 {
    __m256d di, m0, m3, bx, by, lo, hx, hy;
    __m256i lane;
} warp_coords_avx2;

typedef struct warp_xy8 {
    __m256d x0, x1, y0, y1; /* pixels 0-3 and 4-7 */
} warp_xy8;

__attribute__((target("avx2"))) static inline void warp_coords_init(const warp_img *im, double bx, double by,
                                                                     double di, warp_coords_avx2 *k) {
    k->di = _mm256_set1_pd(di), k->m0 = _mm256_set1_pd(im->m[0]), k->m3 = _mm256_set1_pd(im->m[3]);
    k->bx = _mm256_set1_pd(bx), k->by = _mm256_set1_pd(by), k->lo = _mm256_set1_pd(-2.0);
    k->hx = _mm256_set1_pd((double)im->W + 1.0), k->hy = _mm256_set1_pd((double)im->H + 1.0);
    k->lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
}

/* Output pixels x .. x + 7 of the row: the clamped coordinates into *c. With
 * reflecting set, returns nonzero when a raw coordinate lies outside the clamp:
 * a reflecting border's bound equals the clamp only for raw coordinates in
 * [-2, side + 1] (< the period for sides >= 4), so such a step goes scalar. */
__attribute__((target("avx2"))) static inline int warp_coords8(const warp_coords_avx2 *k, int32_t x, int reflecting,
                                                                warp_xy8 *c) {
    __m256i xi = _mm256_add_epi32(_mm256_set1_epi32(x), k->lane);
    __m256d X0 = _mm256_add_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(xi)), k->di);
    __m256d X1 = _mm256_add_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(xi, 1)), k->di);
    __m256d rx0 = _mm256_add_pd(_mm256_mul_pd(k->m0, X0), k->bx), rx1 = _mm256_add_pd(_mm256_mul_pd(k->m0, X1), k->bx);
    __m256d ry0 = _mm256_add_pd(_mm256_mul_pd(k->m3, X0), k->by), ry1 = _mm256_add_pd(_mm256_mul_pd(k->m3, X1), k->by);
    c->x0 = _mm256_min_pd(_mm256_max_pd(rx0, k->lo), k->hx), c->x1 = _mm256_min_pd(_mm256_max_pd(rx1, k->lo), k->hx);
    c->y0 = _mm256_min_pd(_mm256_max_pd(ry0, k->lo), k->hy), c->y1 = _mm256_min_pd(_mm256_max_pd(ry1, k->lo), k->hy);
    if (!reflecting) return 0;
    __m256d ne = _mm256_or_pd(_mm256_or_pd(_mm256_cmp_pd(rx0, c->x0, _CMP_NEQ_UQ), _mm256_cmp_pd(rx1, c->x1, _CMP_NEQ_UQ)),
                              _mm256_or_pd(_mm256_cmp_pd(ry0, c->y0, _CMP_NEQ_UQ), _mm256_cmp_pd(ry1, c->y1, _CMP_NEQ_UQ)));
    return _mm256_movemask_pd(ne);
}
#endif

/* cpu/warp.c's fixed-point pieces, shared with cpu/warp_axis.c: the positions
 * (x, y) of sample (i, j) of output pixels x0 .. x0+cw-1 (cw <= CHUNK) of row y
 * rounded to 1/2048 px, and the AVX2 row (s = 1: bytes into out + c * plane + k,
 * acc NULL; s > 1: sums into acc). */
AUG__HIDDEN void aug__warp_coords_fixed(const warp_img *im, int64_t y, int j, int64_t x0, int i, int cw, int32_t *qx,
                                        int32_t *qy);
#if AUG__X86
AUG__HIDDEN void aug__warp_row_avx2(const warp_img *im, const uint8_t *bg, int64_t y, int j, int64_t x0, int i, int cw,
                                    int cn, uint8_t *out, int64_t plane, uint32_t *acc);
/* The uint8 rows y0 .. y1 (s = 1 to 4) of image n for axis-aligned matrices (cpu/warp_axis.c),
 * planar output; returns 0 (nothing written) where its conditions do not hold. */
AUG__HIDDEN int aug__warp_rows_axis_u8(const warp_ctx *cx, const warp_img *im, const uint8_t *bg, int64_t n,
                                       int64_t y0, int64_t y1);
#endif

/* The float32 kernel's rows (cpu/warp_float.c). */
AUG__HIDDEN void aug__warp_rows_float(const warp_ctx *cx, const warp_img *im, int64_t n, int64_t y0, int64_t y1);
/* The nearest-neighbour rows (cpu/warp_nearest.c); bg_dst: the C background
 * values converted to the destination dtype (C * dst_item bytes). */
AUG__HIDDEN void aug__warp_rows_nearest(const warp_ctx *cx, const warp_img *im, const char *bg_dst, int64_t n,
                                        int64_t y0, int64_t y1);

/* The bicubic rows, affine and perspective (cpu/warp_cubic.c). */
AUG__HIDDEN void aug__warp_rows_cubic(const warp_ctx *cx, const warp_img *im, int64_t n, int64_t y0, int64_t y1);

#if AUG__X86
/* The vector step of the bicubic rows (cpu/warp_cubic_avx2.c; AVX2, 8 pixels per
 * step where level is AUG__SIMD_AVX512): adds sample (i, j) of output pixels
 * x0 .. x0+cw-1 of row y, channels c0 .. c0+cn-1, to acc (as the scalar kernel
 * does) for the groups of pixels whose taps all lie inside the source or that
 * are the background (bg: the C values), and returns the mask of the pixels it
 * did (bit k: pixel x0 + k); the scalar kernel does the rest. Taken for images
 * where aug__warp_cubic_avx2_ok holds. */
AUG__HIDDEN uint64_t aug__warp_cubic_row_avx2(const warp_img *im, int level, int64_t y, int j, int64_t x0, int i,
                                              int cw, int64_t c0, int cn, const double *bg, double *acc);
AUG__HIDDEN int aug__warp_cubic_avx2_ok(const warp_img *im, int64_t Wt);
#endif

/* The perspective warp's rows (cpu/warp_persp.c), linear and nearest. */
AUG__HIDDEN void aug__warp_rows_persp(const warp_ctx *cx, const warp_img *im, int64_t n, int64_t y0, int64_t y1);

#endif
