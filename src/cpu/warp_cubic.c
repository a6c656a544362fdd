/* cpu/warp_cubic.c: the bicubic kernel of the CPU warps, affine and perspective
 * (aug_warp_options.interpolation = AUG_WARP_CUBIC; docs/warp.md "Bicubic"),
 * run by cpu/warp.c's driver (tasks of whole rows).
 *
 * Each sample's point is the bilinear kernels' (scalar/warp.h): the affine
 * coordinate bounded by the border (aug__warp_coord_b), or the homography's
 * (aug__warp_project; a point outside the source plane is the background under
 * every border). The value is Keys' cubic convolution (a = -0.75) over the 4 x 4
 * taps around it, in double, with scalar/warp.h's weights and sum order (the
 * CUDA backend calls the same functions, so the two agree bit for bit); a tap
 * outside takes the background (constant border) or is mapped into the source
 * (aug__warp_index), and a sample whose taps all lie outside is the background
 * exactly. The s*s samples are summed in double (j outer, i inner), divided by
 * s^2 when s > 1 and stored with saturate_cast (round half to even, clamped to
 * the destination's range), the exact kernel's rule. Any dtypes. uint8 and
 * float32 sources take cpu/warp_cubic_avx2.c's vector step (4 or 8 pixels in
 * double lanes, the same bits) where the CPU has AVX2 and a step's pixels are
 * inside or the background; this code does the rest and is the reference
 * (AUG_SIMD=sse2 runs it alone). */
#include <stdint.h>
#include <string.h>
#include "cpu.h"
#include "cpu/convert.h"
#include "core/warp.h"
#include "warp_impl.h"

_Static_assert(CHUNK <= 64, "the vector step's mask of done pixels is 64 bits");

/* One sample of a chunk: the weights, the taps' byte offsets (columns, rows)
 * and which lie inside, and its kind. */
enum { TAPS_BG = 0, TAPS_INSIDE = 1, TAPS_MIXED = 2, TAPS_DONE = 3 /* the AVX2 step did it */ };
typedef struct cubic_taps {
    double wx[4], wy[4];
    int64_t ox[4], oy[4];
    unsigned char vx[4], vy[4];
    int kind;
} cubic_taps;

/* The taps of the sample at bounded (sx, sy). */
static inline void taps_at(const warp_img *im, double sx, double sy, cubic_taps *t) {
    const double fx0 = aug__warp_floor(sx), fy0 = aug__warp_floor(sy);
    const int64_t ix = (int64_t)fx0, iy = (int64_t)fy0;
    if (aug__warp_cubic_outside(ix, iy, im->W, im->H, im->border)) {
        t->kind = TAPS_BG;
        return;
    }
    aug__warp_cubic_weights(sx - fx0, t->wx);
    aug__warp_cubic_weights(sy - fy0, t->wy);
    if (ix >= 1 && ix + 2 < im->W && iy >= 1 && iy + 2 < im->H) { /* every tap inside: no border */
        for (int q = 0; q < 4; q++) t->ox[q] = (ix - 1 + q) * im->sw, t->oy[q] = (iy - 1 + q) * im->sh;
        t->kind = TAPS_INSIDE;
        return;
    }
    int all = 1;
    for (int q = 0; q < 4; q++) {
        const int64_t jx = aug__warp_index(ix - 1 + q, im->W, im->border);
        const int64_t jy = aug__warp_index(iy - 1 + q, im->H, im->border);
        t->vx[q] = jx >= 0, t->vy[q] = jy >= 0;
        t->ox[q] = jx >= 0 ? jx * im->sw : 0, t->oy[q] = jy >= 0 ? jy * im->sh : 0;
        all &= (jx >= 0) & (jy >= 0);
    }
    t->kind = all ? TAPS_INSIDE : TAPS_MIXED;
}

/* The taps of sample (i, j) of output pixels x0 .. x0+cw-1 of row y; those with
 * bit k of done set are marked TAPS_DONE (the AVX2 step did them). */
static void taps_row(const warp_img *im, int64_t y, int j, int64_t x0, int i, int cw, uint64_t done, cubic_taps *t) {
    const double *m = im->m;
    const double Y = (double)y + warp_sample_offset(im, j), di = warp_sample_offset(im, i);
    const double bx = aug__warp_rowterm(m[1], Y, m[2]), by = aug__warp_rowterm(m[4], Y, m[5]);
    const int32_t xs = (int32_t)x0; /* Wt < 2^31 */
    for (int k = 0; k < cw; k++) {
        if (done >> k & 1) {
            t[k].kind = TAPS_DONE;
            continue;
        }
        const double X = (double)(xs + k) + di;
        double sx, sy;
        if (im->projective) {
            if (!aug__warp_project(m, X, Y, im->W, im->H, im->border, &sx, &sy)) {
                t[k].kind = TAPS_BG;
                continue;
            }
        } else {
            sx = aug__warp_coord_b(m[0], X, bx, im->W, im->border);
            sy = aug__warp_coord_b(m[3], X, by, im->H, im->border);
        }
        taps_at(im, sx, sy, &t[k]);
    }
}

/* Loads of one source element as double, per dtype. */
#define LD_BOOL(p) (double)(*(const uint8_t *)(p) != 0)
#define LD_INT8(p) (double)*(const int8_t *)(p)
#define LD_INT16(p) (double)*(const int16_t *)(p)
#define LD_INT32(p) (double)*(const int32_t *)(p)
#define LD_INT64(p) (double)*(const int64_t *)(p)
#define LD_UINT8(p) (double)*(const uint8_t *)(p)
#define LD_UINT16(p) (double)*(const uint16_t *)(p)
#define LD_UINT32(p) (double)*(const uint32_t *)(p)
#define LD_UINT64(p) (double)*(const uint64_t *)(p)
#define LD_FLOAT16(p) (double)aug__f16_to_f32(*(const uint16_t *)(p))
#define LD_BFLOAT16(p) (double)aug__bf16_to_f32(*(const uint16_t *)(p))
#define LD_FLOAT32(p) (double)*(const float *)(p)
#define LD_FLOAT64(p) *(const double *)(p)

/* acc[c * CHUNK + k] += the sample of taps t[k], channels c0 .. c0+cn-1. */
#define DEF_CUBIC(E)                                                                                                   \
    static void cubic_##E(const warp_img *im, const cubic_taps *t, int cw, int64_t c0, int cn, const double *bg,       \
                          double *acc) {                                                                               \
        for (int k = 0; k < cw; k++) {                                                                                 \
            const cubic_taps *p = &t[k];                                                                               \
            if (p->kind == TAPS_DONE) continue;                                                                        \
            if (p->kind == TAPS_BG) {                                                                                  \
                for (int c = 0; c < cn; c++) acc[c * CHUNK + k] += bg[c0 + c];                                         \
                continue;                                                                                              \
            }                                                                                                          \
            for (int c = 0; c < cn; c++) {                                                                             \
                const char *base = im->base + (c0 + c) * im->sc;                                                       \
                double r[4];                                                                                           \
                if (p->kind == TAPS_INSIDE) {                                                                          \
                    for (int q = 0; q < 4; q++) {                                                                      \
                        const char *row = base + p->oy[q];                                                             \
                        r[q] = aug__warp_cubic_dot(p->wx, LD_##E(row + p->ox[0]), LD_##E(row + p->ox[1]),              \
                                                   LD_##E(row + p->ox[2]), LD_##E(row + p->ox[3]));                    \
                    }                                                                                                  \
                } else {                                                                                               \
                    const double b = bg[c0 + c];                                                                       \
                    for (int q = 0; q < 4; q++) {                                                                      \
                        double a[4];                                                                                   \
                        for (int u = 0; u < 4; u++)                                                                    \
                            a[u] = p->vy[q] && p->vx[u] ? LD_##E(base + (p->oy[q] + p->ox[u])) : b;                    \
                        r[q] = aug__warp_cubic_dot(p->wx, a[0], a[1], a[2], a[3]);                                     \
                    }                                                                                                  \
                }                                                                                                      \
                acc[c * CHUNK + k] += aug__warp_cubic_dot(p->wy, r[0], r[1], r[2], r[3]);                              \
            }                                                                                                          \
        }                                                                                                              \
    }
DEF_CUBIC(BOOL)
DEF_CUBIC(INT8)
DEF_CUBIC(INT16)
DEF_CUBIC(INT32)
DEF_CUBIC(INT64)
DEF_CUBIC(UINT8)
DEF_CUBIC(UINT16)
DEF_CUBIC(UINT32)
DEF_CUBIC(UINT64)
DEF_CUBIC(FLOAT16)
DEF_CUBIC(BFLOAT16)
DEF_CUBIC(FLOAT32)
DEF_CUBIC(FLOAT64)

typedef void (*cubic_fn)(const warp_img *, const cubic_taps *, int, int64_t, int, const double *, double *);
static const cubic_fn CUBIC[AUG_NUM_DTYPES] = {
    [AUG_BOOL] = cubic_BOOL,       [AUG_INT8] = cubic_INT8,         [AUG_INT16] = cubic_INT16,
    [AUG_INT32] = cubic_INT32,     [AUG_INT64] = cubic_INT64,       [AUG_UINT8] = cubic_UINT8,
    [AUG_UINT16] = cubic_UINT16,   [AUG_UINT32] = cubic_UINT32,     [AUG_UINT64] = cubic_UINT64,
    [AUG_FLOAT16] = cubic_FLOAT16, [AUG_BFLOAT16] = cubic_BFLOAT16, [AUG_FLOAT32] = cubic_FLOAT32,
    [AUG_FLOAT64] = cubic_FLOAT64,
};

void aug__warp_rows_cubic(const warp_ctx *cx, const warp_img *im, int64_t n, int64_t y0, int64_t y1) {
    const aug__warp_plan *pl = cx->plan;
    const int64_t C = pl->channels, Wt = pl->width;
    const cubic_fn sample = CUBIC[im->dtype];
    cubic_taps taps[CHUNK];
    double acc[CGROUP * CHUNK];
#if AUG__X86
    const int avx2 = cx->simd >= AUG__SIMD_AVX2 && aug__warp_cubic_avx2_ok(im, Wt);
#endif
    for (int64_t x0 = 0; x0 < Wt; x0 += CHUNK) {
        const int cw = (int)(Wt - x0 < CHUNK ? Wt - x0 : CHUNK);
        for (int64_t y = y0; y < y1; y++) {
            /* s = 1 without the AVX2 step (the common case): the taps once for every channel group */
            int row_taps = 0;
            for (int64_t c0 = 0; c0 < C; c0 += CGROUP) {
                const int cn = (int)(C - c0 < CGROUP ? C - c0 : CGROUP);
                memset(acc, 0, sizeof(double) * (size_t)(cn * CHUNK));
                for (int j = 0; j < im->s; j++)
                    for (int i = 0; i < im->s; i++) {
                        uint64_t done = 0;
#if AUG__X86
                        if (avx2) {
                            done = aug__warp_cubic_row_avx2(im, cx->simd, y, j, x0, i, cw, c0, cn, pl->background, acc);
                            if (done == (cw >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << cw) - 1)) continue;
                        }
#endif
                        if (im->s > 1 || done || !row_taps) taps_row(im, y, j, x0, i, cw, done, taps);
                        row_taps = im->s == 1 && !done;
                        sample(im, taps, cw, c0, cn, pl->background, acc);
                    }
                warp_store_acc(cx, n, c0, cn, y, x0, cw, im->s, acc);
            }
        }
    }
}
