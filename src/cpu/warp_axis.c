/* cpu/warp_axis.c: the uint8 fixed-point warp (cpu/warp.c) for axis-aligned
 * matrices, m01 = m10 = 0 (random resized crops, flips, resizes), s = 1, planar
 * output, 1 to 4 packed channels: the same bytes as aug__warp_row_avx2, separably.
 *
 * With m01 = 0 the x position of output column x is m00*X + (0*Y + m02) = m00*X + m02
 * for every row, and with m10 = 0 the y position is the same for every column
 * (0*X is +0 for X >= 0, and adding a signed zero changes nothing that the clamp
 * and the rounding see). So the positions are computed once per column and once
 * per row, by aug__warp_coords_fixed itself, and the bilinear value
 *     r = t*(2048-fy) + b*fy,  t = v00*(2048-fx) + v01*fx,  b = v10*(2048-fx) + v11*fx
 * is evaluated as the same integers in two passes: t and b are each a horizontal
 * pass over one source row ("h-rows", kept for the next output row, which often
 * reads the same source rows), then r = t*2048 + (b-t)*fy (equal mod 2^32, and
 * r < 2^31) and the byte (r + 2^21) >> 22.
 *
 * Only interior pixels take this path (0 <= x0 < W-1, 0 <= y0 < H-1, and each
 * neighbour pair one 8-byte load that ends inside the image); groups of 8 output
 * pixels with another pixel, tails and rows outside go through
 * aug__warp_row_avx2, so borders of every kind keep its bytes. */
#include <stdint.h>
#include <string.h>
#include "cpu/simd.h"
#include "warp_impl.h"
#if AUG__X86
#include <immintrin.h>

/* Output columns per block; the h-rows of a block are 4 x BLK int32 each. */
#define BLK 256

typedef struct axis_block {
    int64_t x0;
    int bw;
    int32_t q[BLK];        /* fixed-point x positions */
    int32_t ofs[BLK];      /* byte offset of the left neighbour in its row */
    int32_t w[BLK];        /* (2048 - fx) | fx << 16: the weight pair for _mm256_madd_epi16 */
    uint8_t ok[BLK / 8];   /* the group of 8 columns is interior in x */
    int32_t top[BLK / 8];  /* its largest offset: source rows r with r*sh + top <= last - 7 may load it */
    int64_t row[2];        /* the source rows held in h[] (-1: none) */
    int32_t h[2][4 * BLK]; /* h[s][c * BLK + k]: t (or b) of column k, channel c */
} axis_block;

typedef struct axis_ctx {
    const warp_img *im;
    int cn;
    int64_t last;        /* byte offset of the image's last byte */
    __m256i lo[4], hi[4]; /* per channel: the shuffles of pixels (0, 1 | 4, 5) and (2, 3 | 6, 7) to (v0, v1) */
} axis_ctx;

/* 8 bytes at p + a (low half) and p + b (high half). */
static inline __m128i ld_pair(const uint8_t *p, int32_t a, int32_t b) {
    int64_t u, v;
    memcpy(&u, p + a, 8);
    memcpy(&v, p + b, 8);
    return _mm_set_epi64x(v, u);
}

static int group_loads(const axis_ctx *ax, const axis_block *bk, int g, int64_t r) {
    return bk->ok[g] && r * ax->im->sh + bk->top[g] <= ax->last - 7;
}

/* The horizontal pass over source row r into h (the groups group_loads allows). */
__attribute__((target("avx2"))) static void h_row(const axis_ctx *ax, const axis_block *bk, int64_t r, int32_t *h) {
    const uint8_t *p = (const uint8_t *)ax->im->base + r * ax->im->sh;
    for (int g = 0; g < bk->bw / 8; g++) {
        if (!group_loads(ax, bk, g, r)) continue;
        const int32_t *o = bk->ofs + 8 * g;
        __m256i A = _mm256_setr_m128i(ld_pair(p, o[0], o[1]), ld_pair(p, o[4], o[5]));
        __m256i B = _mm256_setr_m128i(ld_pair(p, o[2], o[3]), ld_pair(p, o[6], o[7]));
        __m256i w = _mm256_loadu_si256((const __m256i *)(bk->w + 8 * g));
        for (int c = 0; c < ax->cn; c++) {
            __m256i v = _mm256_or_si256(_mm256_shuffle_epi8(A, ax->lo[c]), _mm256_shuffle_epi8(B, ax->hi[c]));
            _mm256_storeu_si256((__m256i *)(h + c * BLK + 8 * g), _mm256_madd_epi16(v, w));
        }
    }
}

/* The h-row of source row r, computed unless held; the slot of row `keep` stays. */
static const int32_t *h_get(const axis_ctx *ax, axis_block *bk, int64_t r, int64_t keep) {
    for (int s = 0; s < 2; s++)
        if (bk->row[s] == r) return bk->h[s];
    int s = bk->row[0] == keep ? 1 : 0;
    h_row(ax, bk, r, bk->h[s]);
    bk->row[s] = r;
    return bk->h[s];
}

/* Output row y of the block: the vertical pass where both h-rows hold the group. */
__attribute__((target("avx2"))) static void v_row(const axis_ctx *ax, axis_block *bk, const uint8_t *bg, int64_t y,
                                                  int32_t qy, uint8_t *out, int64_t plane) {
    const warp_img *im = ax->im;
    int64_t iy = aug__warp_fixed_cell(qy);
    int cn = ax->cn;
    if (iy < 0 || iy >= im->H - 1) {
        for (int64_t k = 0; k < bk->bw; k += CHUNK) {
            int cw = bk->bw - k < CHUNK ? (int)(bk->bw - k) : CHUNK;
            aug__warp_row_avx2(im, bg, y, 0, bk->x0 + k, 0, cw, cn, out + k, plane, NULL);
        }
        return;
    }
    const int32_t *t = h_get(ax, bk, iy, iy + 1), *b = h_get(ax, bk, iy + 1, iy);
    const __m256i fy = _mm256_set1_epi32((int32_t)aug__warp_fixed_frac(qy)), rnd = _mm256_set1_epi32(1 << 21);
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    int g = 0;
    for (; g < bk->bw / 8; g++) {
        int k = 8 * g;
        if (!group_loads(ax, bk, g, iy + 1)) {
            aug__warp_row_avx2(im, bg, y, 0, bk->x0 + k, 0, 8, cn, out + k, plane, NULL);
            continue;
        }
        __m256i r[4];
        for (int c = 0; c < cn; c++) {
            __m256i tv = _mm256_loadu_si256((const __m256i *)(t + c * BLK + k));
            __m256i bv = _mm256_loadu_si256((const __m256i *)(b + c * BLK + k));
            __m256i v = _mm256_add_epi32(_mm256_slli_epi32(tv, 11), _mm256_mullo_epi32(_mm256_sub_epi32(bv, tv), fy));
            r[c] = _mm256_srli_epi32(_mm256_add_epi32(v, rnd), 22);
        }
        for (int c = cn; c < 4; c++) r[c] = r[0];
        /* bytes, per 128-bit half: c0 0-3, c1 0-3, c2 0-3, c3 0-3 | the same for pixels 4-7 */
        __m256i p = _mm256_packus_epi16(_mm256_packus_epi32(r[0], r[1]), _mm256_packus_epi32(r[2], r[3]));
        p = _mm256_permutevar8x32_epi32(p, order); /* c0 0-7, c1 0-7, c2 0-7, c3 0-7 */
        uint64_t lanes[4];
        _mm256_storeu_si256((__m256i *)lanes, p);
        for (int c = 0; c < cn; c++) memcpy(out + c * plane + k, &lanes[c], 8);
    }
    if (8 * g < bk->bw)
        aug__warp_row_avx2(im, bg, y, 0, bk->x0 + 8 * g, 0, bk->bw - 8 * g, cn, out + 8 * g, plane, NULL);
}

static void block_columns(const axis_ctx *ax, axis_block *bk) {
    const warp_img *im = ax->im;
    int32_t qy[CHUNK];
    for (int k = 0; k < bk->bw; k += CHUNK)
        aug__warp_coords_fixed(im, 0, 0, bk->x0 + k, 0, bk->bw - k < CHUNK ? bk->bw - k : CHUNK, bk->q + k, qy);
    for (int g = 0; g < bk->bw / 8; g++) {
        int ok = 1;
        int32_t top = 0;
        for (int k = 8 * g; k < 8 * g + 8; k++) {
            int64_t ix = aug__warp_fixed_cell(bk->q[k]);
            uint32_t fx = aug__warp_fixed_frac(bk->q[k]);
            ok &= ix >= 0 && ix < im->W - 1;
            bk->ofs[k] = ok ? (int32_t)(ix * im->sw) : 0;
            bk->w[k] = (int32_t)((AUG__WARP_FP_ONE - fx) | fx << 16);
            if (bk->ofs[k] > top) top = bk->ofs[k];
        }
        bk->ok[g] = (uint8_t)ok;
        bk->top[g] = top;
    }
    bk->row[0] = bk->row[1] = -1;
}

__attribute__((target("avx2"))) int aug__warp_rows_axis_u8(const warp_ctx *cx, const warp_img *im, const uint8_t *bg,
                                                            int64_t n, int64_t y0, int64_t y1) {
    int64_t C = cx->plan->channels;
    if (im->projective || im->m[1] != 0.0 || im->m[3] != 0.0 || im->s != 1 || cx->dx != 1 || C > 4 || im->sw + C > 8) return 0;
    axis_ctx ax = {.im = im, .cn = (int)C, .last = (im->H - 1) * im->sh + (im->W - 1) * im->sw + C - 1};
    for (int c = 0; c < ax.cn; c++) {
        /* 16-bit lanes (byte c, byte sw + c) of the 8 bytes at 0 and at 8 of each half, into
         * 32-bit lanes 0, 1 (lo) or 2, 3 (hi); index -1 gives a zero byte */
        int8_t l[16], h[16];
        memset(l, -1, sizeof l);
        memset(h, -1, sizeof h);
        for (int e = 0; e < 2; e++) {
            l[4 * e] = h[8 + 4 * e] = (int8_t)(8 * e + c);
            l[4 * e + 2] = h[8 + 4 * e + 2] = (int8_t)(8 * e + im->sw + c);
        }
        __m128i lo = _mm_loadu_si128((const __m128i *)l), hi = _mm_loadu_si128((const __m128i *)h);
        ax.lo[c] = _mm256_setr_m128i(lo, lo);
        ax.hi[c] = _mm256_setr_m128i(hi, hi);
    }
    axis_block bk;
    int32_t qx[CHUNK], qy[CHUNK];
    uint8_t *dst = (uint8_t *)cx->dst;
    for (int64_t x0 = 0; x0 < cx->plan->width; x0 += BLK) {
        bk.x0 = x0;
        bk.bw = (int)(cx->plan->width - x0 < BLK ? cx->plan->width - x0 : BLK);
        block_columns(&ax, &bk);
        for (int64_t y = y0; y < y1; y++) {
            aug__warp_coords_fixed(im, y, 0, x0, 0, 1, qx, qy);
            v_row(&ax, &bk, bg, y, qy[0], dst + warp_dst_at(cx, n, 0, y, x0), cx->dc);
        }
    }
    return 1;
}
#endif
