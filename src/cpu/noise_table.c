/* cpu/noise_table.c: the CPU's integer Gaussian noise by table (the rule:
 * scalar/noise_table.h; the distribution: docs/semantics.md §11.2).
 *
 * A run's Philox blocks floor(i / 4) come from aug__philox_run, their four words
 * are laid out in element order, each word u maps to k through the image's
 * table, and x + k is stored saturated.
 *
 * The portable path maps u with aug__noise_table_k (the shared rule). The AVX2
 * path gets the same k, 8 words at a time, from one gather of a finer guide
 * built per call from each table: AUG__NOISE_FINE buckets of 2^20 values of u,
 * bucket b = u >> 20 holding the count c(u) = #{j : q[j] <= u} that the rule
 * returns (k = kmin + c(u)) as a word B << 20 | T (bits 20 .. 30, 0 .. 19):
 *   no threshold in (lo, hi] (lo = b * 2^20, hi = lo + 2^20 - 1):  B = c(lo), T = 0
 *   one, q[c(lo)]:  B = c(lo) + 1, T = q[c(lo)] - lo (>= 1)
 *   and c(u) = B - (u - lo < T) for both; with two or more, bit 31 is set,
 *   B = c(lo), T = 0, and the rule's search continues from c(lo) with masked
 *   gathers of q (only far in the tails: a bucket has two thresholds only where
 *   two k have probabilities below 2^-12).
 * The count is c(u) either way, so the bytes are the portable path's
 * (tests/python/test_noise_table.py compares both with the definition and with
 * each other). Tables with more than FINE_MAX_M thresholds (16-bit images with
 * std above ~150) take the portable path.
 * uint8 x and out with unit strides add and saturate in the vector registers
 * (16 words at a time with AVX-512);
 * other integer dtypes go through aug__convert as the portable path does. */
#include <stdlib.h>
#include <string.h>
#include "cpu/noise_table.h"
#include "cpu/convert.h"
#include "cpu/random.h"
#include "cpu/simd.h"
#include "scalar/noise_table.h"
#if AUG__X86
#include <immintrin.h>
#endif

#define BLOCK 512
#define FINE_SHIFT (32 - AUG__NOISE_FINE_BITS)       /* u >> FINE_SHIFT: the bucket */
#define FINE_LOW ((1u << FINE_SHIFT) - 1)             /* u & FINE_LOW: u within its bucket */
#define FINE_MAX_M ((1u << (31 - FINE_SHIFT)) - 2)    /* B = c + 1 <= m + 1 fits bits 20 .. 30 */

/* The fine guide of table t into f (the file comment's encoding). */
static void fine_of(const uint32_t *t, uint32_t *f) {
    const uint32_t m = t[1], *q = t + AUG__NOISE_HEADER;
    uint32_t c = 0;
    for (uint32_t b = 0; b < AUG__NOISE_FINE; b++) {
        const uint32_t lo = b << FINE_SHIFT, hi = lo + FINE_LOW;
        while (c < m && q[c] <= lo) c++;
        uint32_t d = c;
        while (d < m && q[d] <= hi) d++;
        if (d == c) f[b] = c << FINE_SHIFT; /* no threshold: c(u) = c */
        else if (d == c + 1) f[b] = ((c + 1) << FINE_SHIFT) | (q[c] - lo); /* q[c] - lo in [1, 2^20) */
        else f[b] = 0x80000000u | (c << FINE_SHIFT);
        c = d; /* c(next lo) >= c(hi) */
    }
}

static int by_u32(const void *a, const void *b) {
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

int aug__noise_fine_build(const aug__noise_plan *g, aug__noise_fine *f) {
    f->words = NULL, f->of = NULL;
    if (g->table_words >= ((int64_t)1 << 32)) return 1;
    for (int64_t at = 0; at < g->table_words; at += AUG__NOISE_HEADER + g->table[at + 1])
        if (g->table[at + 1] > FINE_MAX_M) return 1; /* too many thresholds for the encoding */
    if (!g->table_of) {
        f->words = malloc(AUG__NOISE_FINE * sizeof(uint32_t));
        if (!f->words) return -1;
        fine_of(g->table, f->words);
        return 0;
    }
    const int64_t nimg = g->n / g->per_image;
    uint32_t *u = malloc((size_t)(nimg + 1) * sizeof(uint32_t));
    f->of = malloc((size_t)(nimg + 1) * sizeof(uint32_t));
    if (!u || !f->of) goto nomem;
    memcpy(u, g->table_of, (size_t)nimg * sizeof(uint32_t));
    qsort(u, (size_t)nimg, sizeof(uint32_t), by_u32);
    int64_t nt = 0; /* the distinct tables, in offset order */
    for (int64_t i = 0; i < nimg; i++)
        if (i == 0 || u[i] != u[nt - 1]) u[nt++] = u[i];
    f->words = malloc((size_t)nt * AUG__NOISE_FINE * sizeof(uint32_t));
    if (!f->words) goto nomem;
    for (int64_t i = 0; i < nt; i++) fine_of(g->table + u[i], f->words + (size_t)i * AUG__NOISE_FINE);
    for (int64_t i = 0; i < nimg; i++) {
        const uint32_t *hit = bsearch(&g->table_of[i], u, (size_t)nt, sizeof(uint32_t), by_u32);
        f->of[i] = (uint32_t)(hit - u) * AUG__NOISE_FINE;
    }
    free(u);
    return 0;
nomem:
    free(u);
    aug__noise_fine_free(f);
    return -1;
}

void aug__noise_fine_free(aug__noise_fine *f) {
    free(f->words), free(f->of);
    f->words = NULL, f->of = NULL;
}

/* x + k for m words ue (element order), the portable rule. */
static void apply_portable(const aug__noise_plan *g, const uint32_t *t, const uint32_t *ue, int64_t m, const char *x,
                           int64_t xs, char *out, int64_t os) {
    _Alignas(64) int32_t v[BLOCK];
    aug__convert(x, xs, g->x_dtype, (char *)v, (int64_t)sizeof(int32_t), AUG_INT32, m);
    for (int64_t j = 0; j < m; j++) v[j] += aug__noise_table_k(t, ue[j]);
    aug__convert((const char *)v, (int64_t)sizeof(int32_t), AUG_INT32, out, os, g->out_dtype, m);
}

#if AUG__X86
#define AVX2_INLINE_ static inline __attribute__((always_inline, target("avx2")))

/* c(u) of the 8 words U: from the fine guide, and for the lanes whose bucket
 * holds two thresholds or more the rule's search from the bucket's count. */
AVX2_INLINE_ __m256i count8(const uint32_t *f, const uint32_t *q, __m256i vm, __m256i U) {
    const __m256i F = _mm256_i32gather_epi32((const int *)f, _mm256_srli_epi32(U, FINE_SHIFT), 4);
    const __m256i low = _mm256_set1_epi32((int)FINE_LOW), thr = _mm256_and_si256(F, low);
    const __m256i B = _mm256_and_si256(_mm256_srli_epi32(F, FINE_SHIFT), _mm256_set1_epi32(0x7ff));
    __m256i c = _mm256_add_epi32(B, _mm256_cmpgt_epi32(thr, _mm256_and_si256(U, low))); /* B - (u_low < thr) */
    __m256i act = _mm256_srai_epi32(F, 31);
    if (__builtin_expect(!_mm256_testz_si256(act, act), 0)) {
        do {
            act = _mm256_and_si256(act, _mm256_cmpgt_epi32(vm, c)); /* c < m (m < 2^31) */
            const __m256i qc = _mm256_mask_i32gather_epi32(_mm256_setzero_si256(), (const int *)q, c, act, 4);
            act = _mm256_and_si256(act, _mm256_cmpeq_epi32(_mm256_max_epu32(qc, U), U)); /* q[c] <= u */
            c = _mm256_sub_epi32(c, act);
        } while (!_mm256_testz_si256(act, act));
    }
    return c;
}

/* u[0 .. 4 nb) = the words of blocks 0 .. nb - 1 in element order (w[i][b] is
 * word i of block b). */
__attribute__((target("avx2"))) static void interleave_avx2(const uint32_t *w0, const uint32_t *w1,
                                                             const uint32_t *w2, const uint32_t *w3, int64_t nb,
                                                             uint32_t *u) {
    int64_t b = 0;
    for (; b + 8 <= nb; b += 8) {
        const __m256i a = _mm256_loadu_si256((const __m256i *)(w0 + b));
        const __m256i bb = _mm256_loadu_si256((const __m256i *)(w1 + b));
        const __m256i c = _mm256_loadu_si256((const __m256i *)(w2 + b));
        const __m256i d = _mm256_loadu_si256((const __m256i *)(w3 + b));
        const __m256i t0 = _mm256_unpacklo_epi32(a, bb), t1 = _mm256_unpackhi_epi32(a, bb);
        const __m256i t2 = _mm256_unpacklo_epi32(c, d), t3 = _mm256_unpackhi_epi32(c, d);
        const __m256i s0 = _mm256_unpacklo_epi64(t0, t2), s1 = _mm256_unpackhi_epi64(t0, t2);
        const __m256i s2 = _mm256_unpacklo_epi64(t1, t3), s3 = _mm256_unpackhi_epi64(t1, t3);
        _mm256_storeu_si256((__m256i *)(u + 4 * b), _mm256_permute2x128_si256(s0, s1, 0x20));
        _mm256_storeu_si256((__m256i *)(u + 4 * b + 8), _mm256_permute2x128_si256(s2, s3, 0x20));
        _mm256_storeu_si256((__m256i *)(u + 4 * b + 16), _mm256_permute2x128_si256(s0, s1, 0x31));
        _mm256_storeu_si256((__m256i *)(u + 4 * b + 24), _mm256_permute2x128_si256(s2, s3, 0x31));
    }
    for (; b < nb; b++) u[4 * b] = w0[b], u[4 * b + 1] = w1[b], u[4 * b + 2] = w2[b], u[4 * b + 3] = w3[b];
}

/* uint8 x and out, unit strides: out[j] = saturate(x[j] + kmin + c(ue[j])). */
__attribute__((target("avx2"))) static void apply_u8_avx2(const uint32_t *t, const uint32_t *f, const uint32_t *ue,
                                                           int64_t m, const uint8_t *x, uint8_t *out) {
    const uint32_t *q = t + AUG__NOISE_HEADER;
    const __m256i vm = _mm256_set1_epi32((int32_t)t[1]), kmin = _mm256_set1_epi32((int32_t)t[0]);
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    int64_t j = 0;
    for (; j + 32 <= m; j += 32) {
        __m256i v[4];
        for (int h = 0; h < 4; h++) {
            const __m256i U = _mm256_loadu_si256((const __m256i *)(ue + j + 8 * h));
            const __m256i xv = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(x + j + 8 * h)));
            v[h] = _mm256_add_epi32(_mm256_add_epi32(xv, kmin), count8(f, q, vm, U));
        }
        /* int32 -> uint16 -> uint8 with saturation, lanes back in order */
        const __m256i b = _mm256_packus_epi16(_mm256_packus_epi32(v[0], v[1]), _mm256_packus_epi32(v[2], v[3]));
        _mm256_storeu_si256((__m256i *)(out + j), _mm256_permutevar8x32_epi32(b, order));
    }
    for (; j < m; j++) {
        const int32_t r = (int32_t)x[j] + aug__noise_table_k(t, ue[j]);
        out[j] = (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
    }
}

/* apply_u8_avx2 16 words at a time (AVX-512F/BW: the same counts). GCC's -O0
 * gather macros pass the __mmask16 to a builtin taking a short: the warning is
 * the header's, silenced for this function. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-conversion"
#define AVX512_TARGET_ __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2")))
AVX512_TARGET_ static void apply_u8_avx512(const uint32_t *t, const uint32_t *f, const uint32_t *ue, int64_t m,
                                           const uint8_t *x, uint8_t *out) {
    const uint32_t *q = t + AUG__NOISE_HEADER;
    const __m512i vm = _mm512_set1_epi32((int32_t)t[1]), kmin = _mm512_set1_epi32((int32_t)t[0]);
    const __m512i low = _mm512_set1_epi32((int)FINE_LOW), bmask = _mm512_set1_epi32(0x7ff);
    const __m512i one = _mm512_set1_epi32(1), zero = _mm512_setzero_si512();
    int64_t j = 0;
    for (; j + 16 <= m; j += 16) {
        const __m512i U = _mm512_loadu_si512((const void *)(ue + j));
        const __m512i F = _mm512_i32gather_epi32(_mm512_srli_epi32(U, FINE_SHIFT), (const void *)f, 4);
        const __m512i B = _mm512_and_si512(_mm512_srli_epi32(F, FINE_SHIFT), bmask);
        const __mmask16 below = _mm512_cmplt_epi32_mask(_mm512_and_si512(U, low), _mm512_and_si512(F, low));
        __m512i c = _mm512_mask_sub_epi32(B, below, B, one); /* B - (u_low < T) */
        __mmask16 act = _mm512_cmplt_epi32_mask(F, zero);
        while (__builtin_expect(act != 0, 0)) {
            act &= _mm512_cmplt_epi32_mask(c, vm);
            const __m512i qc = _mm512_mask_i32gather_epi32(zero, act, c, (const void *)q, 4);
            act &= _mm512_cmple_epu32_mask(qc, U);
            c = _mm512_mask_add_epi32(c, act, c, one);
        }
        const __m512i xv = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(x + j)));
        const __m512i v = _mm512_max_epi32(_mm512_add_epi32(_mm512_add_epi32(xv, kmin), c), zero);
        _mm_storeu_si128((__m128i *)(out + j), _mm512_cvtusepi32_epi8(v)); /* min(v, 255) */
    }
    if (j < m) apply_u8_avx2(t, f, ue + j, m - j, x + j, out + j);
}
#pragma GCC diagnostic pop
#undef AVX512_TARGET_

/* Any integer dtypes and strides: v = x as int32, v += k, stored saturated. */
__attribute__((target("avx2"))) static void apply_avx2(const aug__noise_plan *g, const uint32_t *t, const uint32_t *f,
                                                        const uint32_t *ue, int64_t m, const char *x, int64_t xs,
                                                        char *out, int64_t os) {
    const uint32_t *q = t + AUG__NOISE_HEADER;
    const __m256i vm = _mm256_set1_epi32((int32_t)t[1]), kmin = _mm256_set1_epi32((int32_t)t[0]);
    _Alignas(64) int32_t v[BLOCK];
    aug__convert(x, xs, g->x_dtype, (char *)v, (int64_t)sizeof(int32_t), AUG_INT32, m);
    int64_t j = 0;
    for (; j + 8 <= m; j += 8) {
        const __m256i U = _mm256_loadu_si256((const __m256i *)(ue + j));
        const __m256i xv = _mm256_load_si256((const __m256i *)(v + j));
        _mm256_store_si256((__m256i *)(v + j), _mm256_add_epi32(_mm256_add_epi32(xv, kmin), count8(f, q, vm, U)));
    }
    for (; j < m; j++) v[j] += aug__noise_table_k(t, ue[j]);
    aug__convert((const char *)v, (int64_t)sizeof(int32_t), AUG_INT32, out, os, g->out_dtype, m);
}
#undef AVX2_INLINE_
#endif

int aug__noise_table_u8(int level, const uint32_t *t, const uint32_t *u, int64_t n, const uint8_t *x,
                        uint8_t *out) {
#if AUG__X86
    if (level >= AUG__SIMD_AVX2) {
        if (t[1] > FINE_MAX_M) return -1;
        uint32_t *f = malloc(AUG__NOISE_FINE * sizeof(uint32_t));
        if (!f) return -1;
        fine_of(t, f);
        if (level >= AUG__SIMD_AVX512) apply_u8_avx512(t, f, u, n, x, out);
        else apply_u8_avx2(t, f, u, n, x, out);
        free(f);
        return 0;
    }
#endif
    for (int64_t j = 0; j < n; j++) {
        const int32_t r = (int32_t)x[j] + aug__noise_table_k(t, u[j]);
        out[j] = (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
    }
    return 0;
}

void aug__noise_table_run(int level, const aug__noise_plan *g, const aug__rand_params *p, const uint32_t *t,
                          const uint32_t *f, int64_t i0, int64_t n, const char *x, int64_t xs, char *out, int64_t os) {
    _Alignas(64) uint32_t w[4][BLOCK / 4 + 2], u[BLOCK + 8];
#if AUG__X86
    const int avx2 = f && level >= AUG__SIMD_AVX2;
    const int u8 = g->x_dtype == AUG__CT_UINT8 && g->out_dtype == AUG__CT_UINT8 && xs == 1 && os == 1;
#endif
    for (int64_t off = 0; off < n; off += BLOCK) {
        const int64_t m = n - off < BLOCK ? n - off : BLOCK, e0 = i0 + off;
        const int64_t b0 = e0 >> 2, nb = ((e0 + m - 1) >> 2) - b0 + 1;
        aug__philox_run(level, p->key, p->call, (uint64_t)b0, nb, w[0], w[1], w[2], w[3]);
        const uint32_t *ue = u + (e0 & 3); /* element e0's word */
#if AUG__X86
        if (avx2) {
            interleave_avx2(w[0], w[1], w[2], w[3], nb, u);
            const uint8_t *x8 = (const uint8_t *)x + off;
            uint8_t *o8 = (uint8_t *)out + off;
            if (u8 && level >= AUG__SIMD_AVX512) apply_u8_avx512(t, f, ue, m, x8, o8);
            else if (u8) apply_u8_avx2(t, f, ue, m, x8, o8);
            else apply_avx2(g, t, f, ue, m, x + off * xs, xs, out + off * os, os);
            continue;
        }
#endif
        for (int64_t j = 0; j < nb; j++)
            u[4 * j] = w[0][j], u[4 * j + 1] = w[1][j], u[4 * j + 2] = w[2][j], u[4 * j + 3] = w[3][j];
        apply_portable(g, t, ue, m, x + off * xs, xs, out + off * os, os);
    }
}
