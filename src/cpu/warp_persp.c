/* cpu/warp_persp.c: the CPU perspective warp's rows (the warp_perspective
 * family; docs/warp.md "Perspective"), run by cpu/warp.c's driver (tasks of
 * whole rows, the background as bytes / floats / dst values).
 *
 * Each sample goes through aug__warp_project (scalar/warp.h, which
 * cuda/warp.cu's perspective kernel calls too): its source point u / w, v / w,
 * bounded like an affine coordinate, or "outside the source plane" (w <= 0, not
 * finite), which reads the background under every border. The point is then
 * sampled with the arithmetic of the kernel aug__warp_persp_kind picks, the
 * affine kernels' (fixed point for uint8 -> uint8, float32, double; nearest),
 * so a homography whose last row is (0, 0, 1) gives warp_affine's values. One
 * pixel at a time: the projective division leaves no row structure to share. */
#include <stdint.h>
#include <string.h>
#include "cpu.h"
#include "cpu/convert.h"
#include "core/warp.h"
#include "warp_impl.h"

/* One value of ctype t at p as double / float (scalar/cast.h's conversion). */
#define LOAD_CASE_(D, S)                          \
    case AUG__CT_##S: {                           \
        AUG__CT_T(S) x;                           \
        memcpy(&x, p, sizeof x);                  \
        return AUG__CV(S, D, x);                  \
    }
static double load_f64(const char *p, int t) {
    switch (t) {
        AUG__CTYPE_LIST_WITH(LOAD_CASE_, FLOAT64)
    default: return 0.0;
    }
}
static float load_f32(const char *p, int t) {
    switch (t) {
        AUG__CTYPE_LIST_WITH(LOAD_CASE_, FLOAT32)
    default: return 0.0f;
    }
}
#undef LOAD_CASE_

/* The four neighbours of cell (ix, iy): byte offsets of channel 0 (formed only
 * for a neighbour inside) and whether each is inside (constant border; the
 * others map every neighbour into the source). Order 00, 01, 10, 11. */
typedef struct cell4 {
    int64_t o[4];
    int v[4];
} cell4;

static inline void cell_at(const warp_img *im, int64_t ix, int64_t iy, cell4 *k) {
    const int64_t x0 = aug__warp_index(ix, im->W, im->border), x1 = aug__warp_index(ix + 1, im->W, im->border);
    const int64_t y0 = aug__warp_index(iy, im->H, im->border), y1 = aug__warp_index(iy + 1, im->H, im->border);
    k->v[0] = y0 >= 0 && x0 >= 0, k->v[1] = y0 >= 0 && x1 >= 0;
    k->v[2] = y1 >= 0 && x0 >= 0, k->v[3] = y1 >= 0 && x1 >= 0;
    k->o[0] = k->v[0] ? y0 * im->sh + x0 * im->sw : 0, k->o[1] = k->v[1] ? y0 * im->sh + x1 * im->sw : 0;
    k->o[2] = k->v[2] ? y1 * im->sh + x0 * im->sw : 0, k->o[3] = k->v[3] ? y1 * im->sh + x1 * im->sw : 0;
}

/* ---- fixed point (uint8 -> uint8) ---------------------------------------------- */

/* The 2^22-scaled values of channels c0 .. c0+cn-1 of sample (X, Y). */
static inline void sample_u8(const warp_img *im, const uint8_t *bg, double X, double Y, int64_t c0, int cn,
                             uint32_t *r) {
    double sx, sy;
    if (!aug__warp_project(im->m, X, Y, im->W, im->H, im->border, &sx, &sy)) {
        for (int c = 0; c < cn; c++) {
            const uint32_t b = bg[c0 + c];
            r[c] = aug__warp_bilerp_u8(b, b, b, b, 0, 0);
        }
        return;
    }
    const int32_t qx = aug__warp_fixed_pos(sx), qy = aug__warp_fixed_pos(sy);
    const int64_t ix = aug__warp_fixed_cell(qx), iy = aug__warp_fixed_cell(qy);
    const uint32_t fx = aug__warp_fixed_frac(qx), fy = aug__warp_fixed_frac(qy);
    const uint8_t *base = (const uint8_t *)im->base + c0 * im->sc;
    const int64_t sc = im->sc, sw = im->sw;
    if ((uint64_t)ix < (uint64_t)(im->W - 1) && (uint64_t)iy < (uint64_t)(im->H - 1)) {
        const uint8_t *p0 = base + iy * im->sh + ix * sw, *p1 = p0 + im->sh;
        for (int c = 0; c < cn; c++)
            r[c] = aug__warp_bilerp_u8(p0[c * sc], p0[c * sc + sw], p1[c * sc], p1[c * sc + sw], fx, fy);
        return;
    }
    cell4 k;
    cell_at(im, ix, iy, &k);
    for (int c = 0; c < cn; c++) {
        const uint32_t b = bg[c0 + c];
        const int64_t oc = c * sc;
        r[c] = aug__warp_bilerp_u8(k.v[0] ? base[k.o[0] + oc] : b, k.v[1] ? base[k.o[1] + oc] : b,
                                   k.v[2] ? base[k.o[2] + oc] : b, k.v[3] ? base[k.o[3] + oc] : b, fx, fy);
    }
}

static void rows_u8(const warp_ctx *cx, const warp_img *im, int64_t n, int64_t y0, int64_t y1) {
    const int64_t C = cx->plan->channels, Wt = cx->plan->width;
    const int s = im->s;
    uint8_t *dst = (uint8_t *)cx->dst;
    uint32_t r[CGROUP], acc[CGROUP];
    for (int64_t y = y0; y < y1; y++)
        for (int64_t x = 0; x < Wt; x++)
            for (int64_t c0 = 0; c0 < C; c0 += CGROUP) {
                const int cn = (int)(C - c0 < CGROUP ? C - c0 : CGROUP);
                if (s == 1) {
                    sample_u8(im, cx->bg_u8, (double)x, (double)y, c0, cn, r);
                    for (int c = 0; c < cn; c++) dst[warp_dst_at(cx, n, c0 + c, y, x)] = aug__warp_fixed_s1(r[c]);
                    continue;
                }
                memset(acc, 0, sizeof acc);
                for (int j = 0; j < s; j++)
                    for (int i = 0; i < s; i++) {
                        sample_u8(im, cx->bg_u8, (double)x + warp_sample_offset(im, i),
                                  (double)y + warp_sample_offset(im, j), c0, cn, r);
                        for (int c = 0; c < cn; c++) acc[c] += aug__warp_fixed_acc(r[c]);
                    }
                for (int c = 0; c < cn; c++) dst[warp_dst_at(cx, n, c0 + c, y, x)] = aug__warp_fixed_mean(acc[c], s);
            }
}

/* ---- float32 and double ---------------------------------------------------------- */

/* The float32 (f32 set) or double sample of channels c0 .. c0+cn-1 at (X, Y),
 * into out[c * CHUNK] as float / double. */
static inline void sample_fd(const warp_img *im, const warp_ctx *cx, int f32, double X, double Y, int64_t c0, int cn,
                             float *of, double *od) {
    const double *bgd = cx->plan->background;
    const float *bgf = cx->bg_f32;
    double sx, sy;
    int inside = aug__warp_project(im->m, X, Y, im->W, im->H, im->border, &sx, &sy);
    cell4 k = {{0, 0, 0, 0}, {0, 0, 0, 0}};
    double fx0 = 0.0, fy0 = 0.0;
    if (inside) {
        fx0 = aug__warp_floor(sx), fy0 = aug__warp_floor(sy);
        cell_at(im, (int64_t)fx0, (int64_t)fy0, &k);
        inside = k.v[0] | k.v[1] | k.v[2] | k.v[3];
    }
    const char *base = im->base + c0 * im->sc;
    for (int c = 0; c < cn; c++) {
        const int64_t oc = c * im->sc;
        if (f32) {
            const float b = bgf[c0 + c];
            if (!inside) {
                of[c * CHUNK] = b;
                continue;
            }
            float a[4];
            for (int q = 0; q < 4; q++) a[q] = k.v[q] ? load_f32(base + k.o[q] + oc, im->dtype) : b;
            of[c * CHUNK] = aug__warp_bilinear_f32(a[0], a[1], a[2], a[3], (float)(sx - fx0), (float)(sy - fy0));
        } else {
            const double b = bgd[c0 + c];
            if (!inside) {
                od[c * CHUNK] = b;
                continue;
            }
            double a[4];
            for (int q = 0; q < 4; q++) a[q] = k.v[q] ? load_f64(base + k.o[q] + oc, im->dtype) : b;
            od[c * CHUNK] = aug__warp_bilinear_f64(a[0], a[1], a[2], a[3], sx - fx0, sy - fy0);
        }
    }
}

/* s = 1: the float32 values stored as they are, else the samples summed in
 * double (j outer, i inner, from 0) and divided by s^2; the double kernel sums
 * its double samples the same way (cuda/warp.cu's order). */
static void rows_fd(const warp_ctx *cx, const warp_img *im, int f32, int64_t n, int64_t y0, int64_t y1) {
    const int64_t C = cx->plan->channels, Wt = cx->plan->width;
    const int s = im->s;
    const double ss = (double)s * (double)s;
    float fbuf[CGROUP * CHUNK];
    double dbuf[CGROUP * CHUNK], acc[CGROUP * CHUNK];
    for (int64_t x0 = 0; x0 < Wt; x0 += CHUNK) {
        const int cw = (int)(Wt - x0 < CHUNK ? Wt - x0 : CHUNK);
        for (int64_t y = y0; y < y1; y++)
            for (int64_t c0 = 0; c0 < C; c0 += CGROUP) {
                const int cn = (int)(C - c0 < CGROUP ? C - c0 : CGROUP);
                for (int k = 0; k < cw; k++) {
                    const double x = (double)(x0 + k);
                    if (s == 1) {
                        sample_fd(im, cx, f32, x, (double)y, c0, cn, fbuf + k, dbuf + k);
                        continue;
                    }
                    for (int c = 0; c < cn; c++) acc[c * CHUNK + k] = 0.0;
                    for (int j = 0; j < s; j++)
                        for (int i = 0; i < s; i++) {
                            sample_fd(im, cx, f32, x + warp_sample_offset(im, i), (double)y + warp_sample_offset(im, j),
                                      c0, cn, fbuf + k, dbuf + k);
                            for (int c = 0; c < cn; c++)
                                acc[c * CHUNK + k] += f32 ? (double)fbuf[c * CHUNK + k] : dbuf[c * CHUNK + k];
                        }
                    for (int c = 0; c < cn; c++) acc[c * CHUNK + k] /= ss;
                }
                for (int c = 0; c < cn; c++) {
                    char *out = cx->dst + warp_dst_at(cx, n, c0 + c, y, x0) * cx->dst_item;
                    const int64_t os = cx->dx * cx->dst_item;
                    if (s > 1) aug__convert((const char *)(acc + c * CHUNK), sizeof(double), AUG_FLOAT64, out, os,
                                            cx->dst_dtype, cw);
                    else if (f32) aug__convert((const char *)(fbuf + c * CHUNK), sizeof(float), AUG_FLOAT32, out, os,
                                               cx->dst_dtype, cw);
                    else aug__convert((const char *)(dbuf + c * CHUNK), sizeof(double), AUG_FLOAT64, out, os,
                                      cx->dst_dtype, cw);
                }
            }
    }
}

/* ---- nearest ----------------------------------------------------------------------- */

/* The source value at the nearest cell of the pixel centre's point, converted
 * exactly (aug__convert from the source dtype), or the background in the
 * destination dtype outside (the plane, or the source under the constant border). */
#define OUTSIDE INT64_MIN

static void rows_nearest(const warp_ctx *cx, const warp_img *im, int64_t n, int64_t y0, int64_t y1) {
    const int64_t C = cx->plan->channels, Wt = cx->plan->width, di = cx->dst_item;
    const int64_t item = aug_dtype_info(im->dtype)->size;
    int64_t off[CHUNK];
    _Alignas(8) char buf[CHUNK * 8];
    for (int64_t x0 = 0; x0 < Wt; x0 += CHUNK) {
        const int cw = (int)(Wt - x0 < CHUNK ? Wt - x0 : CHUNK);
        for (int64_t y = y0; y < y1; y++) {
            for (int k = 0; k < cw; k++) {
                double sx, sy;
                off[k] = OUTSIDE;
                if (!aug__warp_project(im->m, (double)(x0 + k), (double)y, im->W, im->H, im->border, &sx, &sy))
                    continue;
                const int64_t jx = aug__warp_index(aug__warp_nearest_cell(sx), im->W, im->border);
                const int64_t jy = aug__warp_index(aug__warp_nearest_cell(sy), im->H, im->border);
                if (jx >= 0 && jy >= 0) off[k] = jy * im->sh + jx * im->sw; /* may be negative (strides) */
            }
            for (int64_t c = 0; c < C; c++) {
                char *out = cx->dst + warp_dst_at(cx, n, c, y, x0) * di;
                for (int k = 0; k < cw; k++) {
                    if (off[k] != OUTSIDE) memcpy(buf + k * item, im->base + off[k] + c * im->sc, (size_t)item);
                    else memset(buf + k * item, 0, (size_t)item); /* replaced by the background below */
                }
                aug__convert(buf, item, im->dtype, out, cx->dx * di, cx->dst_dtype, cw);
                for (int k = 0; k < cw; k++)
                    if (off[k] == OUTSIDE) memcpy(out + k * cx->dx * di, cx->bg_dst + c * di, (size_t)di);
            }
        }
    }
}

void aug__warp_rows_persp(const warp_ctx *cx, const warp_img *im, int64_t n, int64_t y0, int64_t y1) {
    if (cx->plan->interp == AUG_WARP_NEAREST) {
        rows_nearest(cx, im, n, y0, y1);
        return;
    }
    switch (aug__warp_persp_kind(im->dtype, cx->dst_dtype, im->H, im->W, im->s, cx->bg_u8 != NULL,
                                 cx->bg_f32 != NULL, im->border)) {
    case AUG__WARP_FIXED: rows_u8(cx, im, n, y0, y1); break;
    case AUG__WARP_FLOAT: rows_fd(cx, im, 1, n, y0, y1); break;
    default: rows_fd(cx, im, 0, n, y0, y1);
    }
}
