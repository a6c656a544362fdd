/* cpu/warp_axis.c: the uint8 fixed-point warp (cpu/warp.c) for axis-aligned
 * matrices, m01 = m10 = 0 (random resized crops, flips, resizes), s = 1 to 4, planar
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
 * r < 2^31) and the byte (r + 2^21) >> 22. Supersampled (s > 1), column k has s
 * sample positions (sample i: entry i * CHUNK + k of the block's tables) and row y
 * s sample rows j, each its own pair of source rows: every sample's r is formed as
 * above and added as aug__warp_fixed_acc(r) to the sums aug__warp_row_avx2 keeps
 * (CHUNK apart per channel), whose mean is the byte (aug__warp_fixed_mean_r).
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

/* Entries of a block's tables and of an h-row per channel: s = 1 a block of BLK
 * columns; s > 1 a block of CHUNK columns (the sums' layout), sample i at i * CHUNK. */
#define BLK 256
#define AXIS_MAX_S 4 /* BLK / CHUNK; the stages use s <= 3 */
#define SLOTS (2 * AXIS_MAX_S) /* h-rows held: an output row reads at most 2 s source rows */

typedef struct axis_block {
    int64_t x0;
    int bw;                   /* output columns */
    int stride;               /* entries between samples i and i + 1 of a column (s > 1) */
    int32_t ofs[BLK];         /* byte offset of the left neighbour in its row */
    int32_t w[BLK];           /* (2048 - fx) | fx << 16: the weight pair for _mm256_madd_epi16 */
    uint8_t ok[BLK / 8];      /* the group of 8 entries is interior in x */
    int32_t top[BLK / 8];     /* its largest offset: source rows r with r*sh + top <= last - 7 may load it */
    int64_t row[SLOTS];       /* the source rows held in h[] (-1: none) */
    int32_t h[SLOTS][4 * BLK]; /* h[slot][c * BLK + e]: t (or b) of entry e, channel c */
} axis_block;

typedef struct axis_ctx {
    const warp_img *im;
    int cn, s;
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

/* Room for the 8-byte loads from source row r on: a group whose top <= room may load there. */
static inline int64_t load_room(const axis_ctx *ax, int64_t r) { return ax->last - 7 - r * ax->im->sh; }

/* Group g (entries 8g .. 8g + 7) may be formed from the row of `room` (load_room) and the
 * one above (the tables read into locals by the callers: vector stores may alias them). */
static inline int group_loads(const uint8_t *ok, const int32_t *top, int g, int64_t room) {
    return ok[g] && top[g] <= room;
}

/* The horizontal pass over source row r into h (the groups group_loads allows). The
 * fields are locals: the vector stores may alias anything, so fields read through a
 * pointer would be reloaded after each (about 20% of the pass). */
__attribute__((target("avx2"))) static void h_row(const axis_ctx *ax, const axis_block *bk, int64_t r, int32_t *h) {
    const uint8_t *p = (const uint8_t *)ax->im->base + r * ax->im->sh;
    const int cn = ax->cn, s = ax->s, stride = bk->stride, bw = bk->bw;
    const int64_t room = load_room(ax, r);
    const uint8_t *ok = bk->ok;
    const int32_t *top = bk->top, *ofs = bk->ofs, *wt = bk->w;
    __m256i lo[4], hi[4];
    for (int c = 0; c < cn; c++) lo[c] = ax->lo[c], hi[c] = ax->hi[c];
    for (int i = 0; i < s; i++)
        for (int g = i * stride / 8, ge = (i * stride + bw) / 8; g < ge; g++) {
            if (!group_loads(ok, top, g, room)) continue;
            const int32_t *o = ofs + 8 * g;
            __m256i A = _mm256_setr_m128i(ld_pair(p, o[0], o[1]), ld_pair(p, o[4], o[5]));
            __m256i B = _mm256_setr_m128i(ld_pair(p, o[2], o[3]), ld_pair(p, o[6], o[7]));
            __m256i w = _mm256_loadu_si256((const __m256i *)(wt + 8 * g));
            for (int c = 0; c < cn; c++) {
                __m256i v = _mm256_or_si256(_mm256_shuffle_epi8(A, lo[c]), _mm256_shuffle_epi8(B, hi[c]));
                _mm256_storeu_si256((__m256i *)(h + c * BLK + 8 * g), _mm256_madd_epi16(v, w));
            }
        }
}

/* The h-rows of the source rows need[0 .. n) (each computed unless held) into hs[];
 * a slot is taken only from rows this output row does not read. */
static void h_get(const axis_ctx *ax, axis_block *bk, const int64_t *need, int n, const int32_t **hs) {
    const int slots = 2 * ax->s; /* enough: n <= 2 s */
    int used[SLOTS] = {0};
    for (int q = 0; q < n; q++) {
        hs[q] = NULL;
        for (int k = 0; k < slots; k++)
            if (bk->row[k] == need[q]) hs[q] = bk->h[k], used[k] = 1;
    }
    for (int q = 0; q < n; q++) {
        if (hs[q] != NULL) continue;
        int k = 0;
        while (used[k]) k++; /* n <= slots rows: a free slot is left */
        h_row(ax, bk, need[q], bk->h[k]);
        bk->row[k] = need[q];
        used[k] = 1;
        hs[q] = bk->h[k];
        for (int q2 = q + 1; q2 < n; q2++)
            if (need[q2] == need[q]) hs[q2] = bk->h[k];
    }
}

/* r = t * 2048 + (b - t) * fy of entries e .. e + 7, channel c (the 2^22-scaled bilinear value). */
__attribute__((target("avx2"))) static inline __m256i v_val(const int32_t *t, const int32_t *b, int c, int e,
                                                            __m256i fy) {
    __m256i tv = _mm256_loadu_si256((const __m256i *)(t + c * BLK + e));
    __m256i bv = _mm256_loadu_si256((const __m256i *)(b + c * BLK + e));
    return _mm256_add_epi32(_mm256_slli_epi32(tv, 11), _mm256_mullo_epi32(_mm256_sub_epi32(bv, tv), fy));
}

/* s = 1, output row y of the block: the vertical pass where both h-rows hold the group. */
__attribute__((target("avx2"))) static void v_row(const axis_ctx *ax, axis_block *bk, const uint8_t *bg, int64_t y,
                                                  int32_t qy, uint8_t *out, int64_t plane) {
    const warp_img *im = ax->im;
    int64_t iy = aug__warp_fixed_cell(qy);
    const int cn = ax->cn;
    if (iy < 0 || iy >= im->H - 1) {
        for (int64_t k = 0; k < bk->bw; k += CHUNK) {
            int cw = bk->bw - k < CHUNK ? (int)(bk->bw - k) : CHUNK;
            aug__warp_row_avx2(im, bg, y, 0, bk->x0 + k, 0, cw, cn, out + k, plane, NULL);
        }
        return;
    }
    const int64_t need[2] = {iy, iy + 1};
    const int32_t *hs[2];
    h_get(ax, bk, need, 2, hs);
    const int32_t *t = hs[0], *b = hs[1];
    const __m256i fy = _mm256_set1_epi32((int32_t)aug__warp_fixed_frac(qy)), rnd = _mm256_set1_epi32(1 << 21);
    const int G = bk->bw / 8;
    const int64_t room = load_room(ax, iy + 1);
    const uint8_t *ok = bk->ok;
    const int32_t *top = bk->top;
    int g = 0;
    for (; g < G; g++) {
        int k = 8 * g;
        if (!group_loads(ok, top, g, room)) {
            aug__warp_row_avx2(im, bg, y, 0, bk->x0 + k, 0, 8, cn, out + k, plane, NULL);
            continue;
        }
        /* each channel's 8 values as bytes: the low 8 of a 16-byte pack; the values are in
         * registers (a stack array of vectors indexed by the channel count was 40% of a
         * one-channel warp's time: stores and reloads) */
        __m256i r0 = _mm256_srli_epi32(_mm256_add_epi32(v_val(t, b, 0, k, fy), rnd), 22);
        __m256i r1 = cn > 1 ? _mm256_srli_epi32(_mm256_add_epi32(v_val(t, b, 1, k, fy), rnd), 22) : r0;
        __m256i r2 = cn > 2 ? _mm256_srli_epi32(_mm256_add_epi32(v_val(t, b, 2, k, fy), rnd), 22) : r0;
        __m256i r3 = cn > 3 ? _mm256_srli_epi32(_mm256_add_epi32(v_val(t, b, 3, k, fy), rnd), 22) : r0;
        /* bytes, per 128-bit half: c0 0-3, c1 0-3, c2 0-3, c3 0-3 | the same for pixels 4-7 */
        __m256i p = _mm256_packus_epi16(_mm256_packus_epi32(r0, r1), _mm256_packus_epi32(r2, r3));
        p = _mm256_permutevar8x32_epi32(p, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)); /* c0 0-7, c1 0-7, ... */
        __m128i p01 = _mm256_castsi256_si128(p), p23 = _mm256_extracti128_si256(p, 1);
        _mm_storel_epi64((__m128i *)(out + k), p01);
        if (cn > 1) _mm_storel_epi64((__m128i *)(out + plane + k), _mm_unpackhi_epi64(p01, p01));
        if (cn > 2) _mm_storel_epi64((__m128i *)(out + 2 * plane + k), p23);
        if (cn > 3) _mm_storel_epi64((__m128i *)(out + 3 * plane + k), _mm_unpackhi_epi64(p23, p23));
    }
    if (8 * g < bk->bw)
        aug__warp_row_avx2(im, bg, y, 0, bk->x0 + 8 * g, 0, bk->bw - 8 * g, cn, out + 8 * g, plane, NULL);
}

/* s > 1, output row y of the block (bw <= CHUNK columns): each sample row j's pass into
 * the sums acc (as aug__warp_row_avx2 adds them; it takes the groups this cannot), then
 * their means. */
__attribute__((target("avx2"))) static void v_row_ss(const axis_ctx *ax, axis_block *bk, const uint8_t *bg, int64_t y,
                                                     uint8_t *out, int64_t plane) {
    const warp_img *im = ax->im;
    const int cn = ax->cn, s = ax->s, G = bk->bw / 8;
    uint32_t acc[4 * CHUNK];
    memset(acc, 0, sizeof(uint32_t) * CHUNK * (size_t)cn);
    int64_t need[SLOTS], iy[AXIS_MAX_S];
    uint32_t fy[AXIS_MAX_S];
    int n = 0;
    for (int j = 0; j < s; j++) {
        int32_t qx[1], qy[1];
        aug__warp_coords_fixed(im, y, j, bk->x0, 0, 1, qx, qy);
        iy[j] = aug__warp_fixed_cell(qy[0]), fy[j] = aug__warp_fixed_frac(qy[0]);
        if (iy[j] >= 0 && iy[j] < im->H - 1) need[n++] = iy[j], need[n++] = iy[j] + 1;
    }
    const int32_t *hs[SLOTS];
    h_get(ax, bk, need, n, hs);
    const __m256i half = _mm256_set1_epi32(1 << (AUG__WARP_FP_ACC_SHIFT - 1));
    for (int j = 0, q = 0; j < s; j++) {
        if (iy[j] < 0 || iy[j] >= im->H - 1) { /* a sample row outside: every column the other way */
            for (int i = 0; i < s; i++) aug__warp_row_avx2(im, bg, y, j, bk->x0, i, bk->bw, cn, NULL, 0, acc);
            continue;
        }
        const int32_t *t = hs[q], *b = hs[q + 1];
        q += 2;
        const __m256i vfy = _mm256_set1_epi32((int32_t)fy[j]);
        const int64_t room = load_room(ax, iy[j] + 1);
        for (int i = 0; i < s; i++) {
            for (int g = 0; g < G; g++) {
                int k = 8 * g, e = i * bk->stride + k;
                if (!group_loads(bk->ok, bk->top, e / 8, room)) {
                    aug__warp_row_avx2(im, bg, y, j, bk->x0 + k, i, 8, cn, NULL, 0, acc + k);
                    continue;
                }
                for (int c = 0; c < cn; c++) {
                    __m256i r = _mm256_srli_epi32(_mm256_add_epi32(v_val(t, b, c, e, vfy), half),
                                                  AUG__WARP_FP_ACC_SHIFT);
                    __m256i *a = (__m256i *)(acc + c * CHUNK + k);
                    _mm256_storeu_si256(a, _mm256_add_epi32(_mm256_loadu_si256(a), r));
                }
            }
            if (8 * G < bk->bw)
                aug__warp_row_avx2(im, bg, y, j, bk->x0 + 8 * G, i, bk->bw - 8 * G, cn, NULL, 0, acc + 8 * G);
        }
    }
    /* the means, 8 at a time: aug__warp_fixed_mean_r's t = (A + s^2 2^15) >> 16 and (t * recip) >> 32
     * (even and odd lanes through _mm256_mul_epu32), then bytes; the tail as the rule */
    const uint32_t recip = aug__warp_fixed_recip(s);
    const __m256i vr = _mm256_set1_epi32((int32_t)recip);
    const __m256i vh = _mm256_set1_epi32((int32_t)((uint32_t)(s * s) << (21 - AUG__WARP_FP_ACC_SHIFT)));
    for (int c = 0; c < cn; c++) {
        const uint32_t *a = acc + c * CHUNK;
        uint8_t *o = out + c * plane;
        for (int g = 0; g < G; g++) {
            __m256i t = _mm256_srli_epi32(_mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(a + 8 * g)), vh),
                                          22 - AUG__WARP_FP_ACC_SHIFT);
            __m256i even = _mm256_srli_epi64(_mm256_mul_epu32(t, vr), 32);
            __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(t, 32), vr);
            __m256i m = _mm256_blend_epi32(even, odd, 0xAA);
            __m256i p = _mm256_packus_epi16(_mm256_packus_epi32(m, m), _mm256_setzero_si256());
            __m128i v = _mm_unpacklo_epi32(_mm256_castsi256_si128(p), _mm256_extracti128_si256(p, 1));
            _mm_storel_epi64((__m128i *)(o + 8 * g), v);
        }
        for (int k = 8 * G; k < bk->bw; k++) o[k] = aug__warp_fixed_mean_r(a[k], s, recip);
    }
}

/* The block's per-entry tables: sample i of column k at entry i * stride + k. */
static void block_columns(const axis_ctx *ax, axis_block *bk) {
    const warp_img *im = ax->im;
    int32_t q[CHUNK], qy[CHUNK];
    memset(bk->ok, 0, sizeof bk->ok);
    for (int i = 0; i < ax->s; i++)
        for (int k0 = 0; k0 < bk->bw; k0 += CHUNK) {
            int cw = bk->bw - k0 < CHUNK ? bk->bw - k0 : CHUNK;
            aug__warp_coords_fixed(im, 0, 0, bk->x0 + k0, i, cw, q, qy);
            for (int k = 0; k < cw; k++) {
                int e = i * bk->stride + k0 + k;
                int64_t ix = aug__warp_fixed_cell(q[k]);
                uint32_t fx = aug__warp_fixed_frac(q[k]);
                int in = ix >= 0 && ix < im->W - 1;
                bk->ofs[e] = in ? (int32_t)(ix * im->sw) : 0;
                bk->w[e] = (int32_t)((AUG__WARP_FP_ONE - fx) | fx << 16);
                if (e % 8 == 0) bk->ok[e / 8] = 1, bk->top[e / 8] = 0;
                bk->ok[e / 8] &= (uint8_t)in;
                if (bk->ofs[e] > bk->top[e / 8]) bk->top[e / 8] = bk->ofs[e];
            }
        }
    for (int k = 0; k < SLOTS; k++) bk->row[k] = -1;
}

__attribute__((target("avx2"))) int aug__warp_rows_axis_u8(const warp_ctx *cx, const warp_img *im, const uint8_t *bg,
                                                            int64_t n, int64_t y0, int64_t y1) {
    int64_t C = cx->plan->channels;
    if (im->projective || im->m[1] != 0.0 || im->m[3] != 0.0 || im->s < 1 || im->s > AXIS_MAX_S || cx->dx != 1 ||
        C > 4 || im->sw + C > 8)
        return 0;
    axis_ctx ax = {.im = im, .cn = (int)C, .s = im->s, .last = (im->H - 1) * im->sh + (im->W - 1) * im->sw + C - 1};
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
    const int64_t step = ax.s == 1 ? BLK : CHUNK;
    bk.stride = CHUNK;
    for (int64_t x0 = 0; x0 < cx->plan->width; x0 += step) {
        bk.x0 = x0;
        bk.bw = (int)(cx->plan->width - x0 < step ? cx->plan->width - x0 : step);
        block_columns(&ax, &bk);
        for (int64_t y = y0; y < y1; y++) {
            uint8_t *out = dst + warp_dst_at(cx, n, 0, y, x0);
            if (ax.s > 1) {
                v_row_ss(&ax, &bk, bg, y, out, cx->dc);
                continue;
            }
            aug__warp_coords_fixed(im, y, 0, x0, 0, 1, qx, qy);
            v_row(&ax, &bk, bg, y, qy[0], out, cx->dc);
        }
    }
    return 1;
}
#endif
