/* cpu/warp_nearest.c: the nearest-neighbour kernel of the CPU affine warp
 * (aug_warp_options.interpolation = AUG_WARP_NEAREST; docs/warp.md).
 *
 * Output pixel (x, y) reads one source value: the pixel centre maps through
 * the inverse matrix exactly as a bilinear sample does (scalar/warp.h, double,
 * no contraction), sx = bound(m00*x + (m01*y + m02)) (same in y), and the cell
 * is (floor(sx + 0.5), floor(sy + 0.5)); the border maps it into the source or,
 * for the constant border, outside (the background). Supersampling is ignored:
 * a mean of samples would blend labels. The value is stored with saturate_cast
 * from the source dtype (exact: no detour through double, so int64 labels
 * survive); the background, a double, is saturate_cast to the destination
 * dtype. Values are gathered per channel into a row buffer of the source dtype
 * and converted in one aug__convert call. */
#include <stdint.h>
#include <string.h>
#include "cpu.h"
#include "cpu/convert.h"
#include "cpu/simd.h"
#include "warp_impl.h"
#if AUG__X86
#include <immintrin.h>
#endif

/* Source byte offsets of the CHUNK pixels x0 .. x0+cw-1 of row y (OUTSIDE: none;
 * strides may be negative). The coordinates come first in a pass of their own
 * (the clamp of the constant / replicate borders vectorises). */
#define OUTSIDE INT64_MIN
static void nearest_offsets(const warp_img *im, int64_t y, int64_t x0, int cw, int64_t *off) {
    const double *m = im->m;
    double Y = (double)y;
    double bx = aug__warp_rowterm(m[1], Y, m[2]), by = aug__warp_rowterm(m[4], Y, m[5]);
    int32_t xs = (int32_t)x0; /* Wt < 2^31 */
    double sx[CHUNK], sy[CHUNK];
    if (im->border == AUG__WB_CONSTANT || im->border == AUG__WB_REPLICATE) {
        double w = (double)im->W, h = (double)im->H;
        for (int k = 0; k < cw; k++) {
            double X = (double)(xs + k);
            sx[k] = aug__warp_coord(m[0], X, bx, w), sy[k] = aug__warp_coord(m[3], X, by, h);
        }
    } else {
        for (int k = 0; k < cw; k++) {
            double X = (double)(xs + k);
            sx[k] = aug__warp_coord_b(m[0], X, bx, im->W, im->border);
            sy[k] = aug__warp_coord_b(m[3], X, by, im->H, im->border);
        }
    }
    const int64_t W = im->W, H = im->H, sh = im->sh, sw = im->sw;
    if (im->border == AUG__WB_CONSTANT) {
        for (int k = 0; k < cw; k++) {
            int64_t ix = aug__warp_nearest_cell(sx[k]), iy = aug__warp_nearest_cell(sy[k]);
            off[k] = (uint64_t)ix < (uint64_t)W && (uint64_t)iy < (uint64_t)H ? iy * sh + ix * sw : OUTSIDE;
        }
        return;
    }
    for (int k = 0; k < cw; k++) {
        int64_t jx = aug__warp_index(aug__warp_nearest_cell(sx[k]), W, im->border);
        int64_t jy = aug__warp_index(aug__warp_nearest_cell(sy[k]), H, im->border);
        off[k] = jy * sh + jx * sw;
    }
}

#if AUG__X86
/* nearest_offsets for the constant and replicate borders with AVX2, 8 pixels per
 * step: the same double operations (mul, add, max, min; floor(c + 0.5) exact),
 * cells and offsets in int32 (the driver checks that every offset fits). */
__attribute__((target("avx2"))) static void nearest_offsets_avx2(const warp_img *im, int64_t y, int64_t x0, int cw,
                                                                  int64_t *off) {
    const double *m = im->m;
    double Y = (double)y;
    double bx = aug__warp_rowterm(m[1], Y, m[2]), by = aug__warp_rowterm(m[4], Y, m[5]);
    const __m256d vm0 = _mm256_set1_pd(m[0]), vm3 = _mm256_set1_pd(m[3]);
    const __m256d vbx = _mm256_set1_pd(bx), vby = _mm256_set1_pd(by), lo = _mm256_set1_pd(-2.0);
    const __m256d hx = _mm256_set1_pd((double)im->W + 1.0), hy = _mm256_set1_pd((double)im->H + 1.0);
    const __m256d half = _mm256_set1_pd(0.5);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), zero = _mm256_setzero_si256();
    const __m256i wl = _mm256_set1_epi32((int32_t)(im->W - 1)), hl = _mm256_set1_epi32((int32_t)(im->H - 1));
    const __m256i vsh = _mm256_set1_epi32((int32_t)im->sh), vsw = _mm256_set1_epi32((int32_t)im->sw);
    const int replicate = im->border == AUG__WB_REPLICATE;
    int k = 0;
    for (; k + 8 <= cw; k += 8) {
        __m256i xi = _mm256_add_epi32(_mm256_set1_epi32((int32_t)(x0 + k)), lane);
        __m256d X0 = _mm256_cvtepi32_pd(_mm256_castsi256_si128(xi)), X1 = _mm256_cvtepi32_pd(_mm256_extracti128_si256(xi, 1));
#define CELL(M, B, HI, X) \
    _mm256_cvttpd_epi32(_mm256_floor_pd(_mm256_add_pd(_mm256_min_pd(_mm256_max_pd(_mm256_add_pd(_mm256_mul_pd(M, X), B), lo), HI), half)))
        __m256i ix = _mm256_setr_m128i(CELL(vm0, vbx, hx, X0), CELL(vm0, vbx, hx, X1));
        __m256i iy = _mm256_setr_m128i(CELL(vm3, vby, hy, X0), CELL(vm3, vby, hy, X1));
#undef CELL
        __m256i o;
        if (replicate) {
            ix = _mm256_min_epi32(_mm256_max_epi32(ix, zero), wl), iy = _mm256_min_epi32(_mm256_max_epi32(iy, zero), hl);
            o = _mm256_add_epi32(_mm256_mullo_epi32(iy, vsh), _mm256_mullo_epi32(ix, vsw));
        } else {
            __m256i out = _mm256_or_si256(_mm256_or_si256(_mm256_cmpgt_epi32(zero, ix), _mm256_cmpgt_epi32(ix, wl)),
                                          _mm256_or_si256(_mm256_cmpgt_epi32(zero, iy), _mm256_cmpgt_epi32(iy, hl)));
            o = _mm256_or_si256(_mm256_add_epi32(_mm256_mullo_epi32(iy, vsh), _mm256_mullo_epi32(ix, vsw)), out);
        }
        /* -1 (outside) widens to -1; offsets are >= 0 */
        __m256i lo4 = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(o)), hi4 = _mm256_cvtepi32_epi64(_mm256_extracti128_si256(o, 1));
        _mm256_storeu_si256((__m256i *)(off + k), lo4);
        _mm256_storeu_si256((__m256i *)(off + k + 4), hi4);
        for (int l = 0; l < 8; l++)
            if (off[k + l] < 0) off[k + l] = OUTSIDE;
    }
    if (k < cw) nearest_offsets(im, y, x0 + k, cw - k, off + k);
}
#endif

/* Same dtype in and out: values straight into the output (pixel stride dxb bytes). */
#define COPY(T)                                                                       \
    for (int k = 0; k < cw; k++) {                                                    \
        T v;                                                                          \
        memcpy(&v, off[k] != OUTSIDE ? base + off[k] : bgc, sizeof v);                \
        memcpy(out + k * dxb, &v, sizeof v);                                          \
    }
/* Else: gathered into buf (zeros outside), converted, the background written over. */
#define GATHER(T)                                                                     \
    for (int k = 0; k < cw; k++) {                                                    \
        T v = 0;                                                                      \
        if (off[k] != OUTSIDE) memcpy(&v, base + off[k], sizeof v);                   \
        memcpy(buf + k * (int64_t)sizeof v, &v, sizeof v);                            \
    }

void aug__warp_rows_nearest(const warp_ctx *cx, const warp_img *im, const char *bg_dst, int64_t n, int64_t y0,
                            int64_t y1) {
    const aug__warp_plan *pl = cx->plan;
    const int64_t C = pl->channels, Wt = pl->width, item = aug_dtype_info(im->dtype)->size, di = cx->dst_item;
    const int64_t dxb = cx->dx * di, sc = im->sc;
    /* a bool source may hold bytes other than 0 / 1: those go through the conversion */
    const int same = im->dtype == cx->dst_dtype && im->dtype != AUG_BOOL;
    int64_t off[CHUNK];
    _Alignas(8) char buf[CHUNK * 8];
    int avx2 = 0;
#if AUG__X86
    /* int32 cells and offsets: positive strides, the farthest byte below 2^31 */
    avx2 = cx->simd >= AUG__SIMD_AVX2 && im->sh > 0 && im->sw > 0 &&
           (im->border == AUG__WB_CONSTANT || im->border == AUG__WB_REPLICATE) &&
           (im->H + 2) * im->sh + (im->W + 2) * im->sw < INT32_MAX && Wt < INT32_MAX - 8;
#endif
    (void)avx2;
    for (int64_t x0 = 0; x0 < Wt; x0 += CHUNK) {
        int cw = (int)(Wt - x0 < CHUNK ? Wt - x0 : CHUNK);
        for (int64_t y = y0; y < y1; y++) {
#if AUG__X86
            if (avx2) nearest_offsets_avx2(im, y, x0, cw, off);
            else
#endif
                nearest_offsets(im, y, x0, cw, off);
            for (int64_t c = 0; c < C; c++) {
                const char *base = im->base + c * sc, *bgc = bg_dst + c * di;
                char *out = cx->dst + warp_dst_at(cx, n, c, y, x0) * di;
                if (same) {
                    switch (item) {
                    case 1: COPY(uint8_t) break;
                    case 2: COPY(uint16_t) break;
                    case 4: COPY(uint32_t) break;
                    default: COPY(uint64_t) break;
                    }
                    continue;
                }
                switch (item) {
                case 1: GATHER(uint8_t) break;
                case 2: GATHER(uint16_t) break;
                case 4: GATHER(uint32_t) break;
                default: GATHER(uint64_t) break;
                }
                aug__convert(buf, item, im->dtype, out, dxb, cx->dst_dtype, cw);
                for (int k = 0; k < cw; k++)
                    if (off[k] == OUTSIDE) memcpy(out + k * dxb, bgc, (size_t)di);
            }
        }
    }
}
