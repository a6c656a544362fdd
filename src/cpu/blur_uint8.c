/* cpu/blur_uint8.c: the uint8 / int8 box and Gaussian blurs (semantics §13), one band
 * of output rows of one plane per call. int8 runs the same code on x ^ 0x80 =
 * x + 128 and flips the result back (both blurs commute with adding 128: the box
 * mean exactly, the Gaussian up to float rounding of a weight sum ~1).
 *
 * Box (ksize <= 16): exact integers. Column sums over the ksize-row window live
 * in uint16 (<= 16^2 * 255 = 65280) and slide down the band (add the row that
 * enters, subtract the one that leaves; wrap-around cancels). A row of them is
 * edge-padded and each output is the sum of ksize neighbours, then the mean is
 * rounded half to even exactly: t = sum + kk/2, q = floor(t / kk) by a 16-bit
 * multiply-high with a reciprocal proven exact for every t that can occur
 * (aug__box8_div_for; the C test checks all of them), and for even kk a tie
 * (t == q * kk) takes q & ~1.
 *
 * Gaussian: float32 with this exact order of operations (SIMD and portable C
 * give bit-identical results; the project builds with -ffp-contract=off, and a
 * CUDA kernel doing the same float32 operations in the same order matches too):
 *   vertical, per column: acc = 0; for each tap pair (offsets -i, +i with equal
 *     weights, i = 1 .. hi, when the taps are symmetric, aug__taps.sym): acc =
 *     fma(w_i, (float)x[-i] + (float)x[+i], acc) (an exact sum); then the single
 *     taps in order (the centre, or every tap when not symmetric), acc = fma(w,
 *     (float)x, acc); then the nonzero tails, acc = fma(tail, (float)edge row
 *     value, acc).
 *   horizontal, on the edge-padded float row v: the same with float pair sums
 *     (v[x - i] + v[x + i]), then acc = acc + (tail_lo * v[0]), acc + (tail_hi *
 *     v[W - 1]) for nonzero products.
 *   store: aug__blur8_round (clamp to 0 .. 255, round half to even).
 * Weights are the float32 roundings of core/blur.h's double taps. The result is
 * within float32 rounding (~1e-5) of the float64 definition, so it differs only
 * where that lies within ~1e-5 of a .5.
 *
 * The AVX2 paths take 16 (box) / 8 (Gaussian) columns at a time, the Gaussian's
 * AVX-512 path 16; remaining columns, and CPUs without AVX2, take the portable
 * loops. Each output row is
 * computed from the input alone, so the band split (and the thread count)
 * never changes a result. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "blur_uint8.h"
#include "cpu/simd.h"
#if AUG__X86
#include <immintrin.h>
#endif

#define ROW_(src, r, H, W) ((src) + ((r) < 0 ? 0 : ((r) >= (H) ? (H) - 1 : (r))) * (W))

/* ---- box ---------------------------------------------------------------------- */

#define box_mean aug__box8_mean

static void col_add_portable(uint16_t *col, const uint8_t *add, const uint8_t *sub, int64_t from, int64_t W,
                             uint8_t flip) {
    if (sub)
        for (int64_t x = from; x < W; x++) col[x] = (uint16_t)(col[x] + (uint8_t)(add[x] ^ flip) - (uint8_t)(sub[x] ^ flip));
    else
        for (int64_t x = from; x < W; x++) col[x] = (uint16_t)(col[x] + (uint8_t)(add[x] ^ flip));
}

/* hb: the padded column sums (hb[x .. x + k - 1] is output x's window) */
static void box_out_portable(const uint16_t *hb, int64_t k, int64_t from, int64_t W, aug__box8_div dv, uint8_t flip,
                             uint8_t *out) {
    uint32_t kk = (uint32_t)(k * k);
    for (int64_t x = from; x < W; x++) {
        uint32_t s = 0;
        for (int64_t i = 0; i < k; i++) s += hb[x + i];
        out[x] = (uint8_t)(box_mean(s, kk, dv) ^ flip);
    }
}

#if AUG__X86
/* always_inline bodies, instantiated for uint8 (flip 0: the xor folds away) and
 * for a few common ksizes (the tap loop unrolls) */
#define AVX2_INLINE_ static inline __attribute__((always_inline, target("avx2")))
AVX2_INLINE_ void col_add_body(uint16_t *col, const uint8_t *add, const uint8_t *sub, int64_t W, uint8_t flip) {
    __m128i f = _mm_set1_epi8((char)flip);
    int64_t x = 0;
    for (; x + 16 <= W; x += 16) {
        __m256i c = _mm256_loadu_si256((const __m256i *)(col + x));
        __m256i a = _mm256_cvtepu8_epi16(_mm_xor_si128(_mm_loadu_si128((const __m128i *)(add + x)), f));
        c = _mm256_add_epi16(c, a);
        if (sub) c = _mm256_sub_epi16(c, _mm256_cvtepu8_epi16(_mm_xor_si128(_mm_loadu_si128((const __m128i *)(sub + x)), f)));
        _mm256_storeu_si256((__m256i *)(col + x), c);
    }
    col_add_portable(col, add, sub, x, W, flip);
}

AVX2_INLINE_ void box_out_body(const uint16_t *hb, int64_t k, int64_t W, aug__box8_div dv, uint8_t flip,
                               uint8_t *out) {
    uint32_t kk = (uint32_t)(k * k);
    __m256i half = _mm256_set1_epi16((short)(kk / 2)), vkk = _mm256_set1_epi16((short)kk), one = _mm256_set1_epi16(1);
    __m256i mul = _mm256_set1_epi16((short)dv.mul);
    __m128i sh = _mm_cvtsi32_si128(dv.shift), post = _mm_cvtsi32_si128(dv.post), f = _mm_set1_epi8((char)flip);
    int64_t x = 0;
    for (; x + 16 <= W; x += 16) {
        __m256i s = _mm256_loadu_si256((const __m256i *)(hb + x));
        for (int64_t i = 1; i < k; i++) s = _mm256_add_epi16(s, _mm256_loadu_si256((const __m256i *)(hb + x + i)));
        __m256i t = _mm256_add_epi16(s, half), q = _mm256_srl_epi16(t, sh);
        if (dv.mul) q = _mm256_srl_epi16(_mm256_mulhi_epu16(q, mul), post);
        if (!(kk & 1)) {
            __m256i tie = _mm256_cmpeq_epi16(_mm256_mullo_epi16(q, vkk), t);
            q = _mm256_andnot_si256(_mm256_and_si256(tie, one), q);
        }
        __m128i b = _mm_packus_epi16(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
        _mm_storeu_si128((__m128i *)(out + x), _mm_xor_si128(b, f));
    }
    box_out_portable(hb, k, x, W, dv, flip, out);
}

__attribute__((target("avx2"))) static void col_add_avx2(uint16_t *col, const uint8_t *add, const uint8_t *sub,
                                                          int64_t W, uint8_t flip) {
    if (flip) col_add_body(col, add, sub, W, flip);
    else col_add_body(col, add, sub, W, 0);
}

__attribute__((target("avx2"))) static void box_out_avx2(const uint16_t *hb, int64_t k, int64_t W, aug__box8_div dv,
                                                          uint8_t flip, uint8_t *out) {
    if (flip) box_out_body(hb, k, W, dv, flip, out);
    else if (k == 3) box_out_body(hb, 3, W, dv, 0, out);
    else if (k == 5) box_out_body(hb, 5, W, dv, 0, out);
    else if (k == 7) box_out_body(hb, 7, W, dv, 0, out);
    else box_out_body(hb, k, W, dv, 0, out);
}
#undef AVX2_INLINE_
#endif

static void col_add(uint16_t *col, const uint8_t *add, const uint8_t *sub, int64_t W, uint8_t flip, int level) {
#if AUG__X86
    if (level >= AUG__SIMD_AVX2) {
        col_add_avx2(col, add, sub, W, flip);
        return;
    }
#endif
    col_add_portable(col, add, sub, 0, W, flip);
}

int aug__blur_box8_rows(int64_t k, const uint8_t *src, uint8_t *dst, int64_t H, int64_t W, int64_t y0, int64_t y1,
                        uint8_t flip, int level) {
    int64_t a = -(k / 2), left = k / 2, right = k - 1 - k / 2; /* window rows y + a .. y + a + k - 1 */
    uint16_t *hb = malloc((size_t)(left + W + right) * sizeof(uint16_t));
    if (!hb) return -1;
    uint16_t *col = hb + left;
    aug__box8_div dv = aug__box8_div_for(k);
    memset(col, 0, (size_t)W * sizeof(uint16_t));
    for (int64_t j = 0; j < k; j++) col_add(col, ROW_(src, y0 + a + j, H, W), NULL, W, flip, level);
    for (int64_t y = y0; y < y1; y++) {
        if (y > y0) col_add(col, ROW_(src, y + a + k - 1, H, W), ROW_(src, y - 1 + a, H, W), W, flip, level);
        for (int64_t x = 0; x < left; x++) hb[x] = col[0];
        for (int64_t x = 0; x < right; x++) col[W + x] = col[W - 1];
#if AUG__X86
        if (level >= AUG__SIMD_AVX2) {
            box_out_avx2(hb, k, W, dv, flip, dst + y * W);
            continue;
        }
#endif
        box_out_portable(hb, k, 0, W, dv, flip, dst + y * W);
    }
    free(hb);
    return 0;
}

/* ---- Gaussian ----------------------------------------------------------------- */

/* The taps of one pass in the order of the file comment: np pairs, then ns singles. */
typedef struct {
    int64_t np, ns;
    int64_t *pa, *pb, *ps; /* offsets (vertical: relative rows; horizontal: into the padded row) */
    float *wp, *ws;
} gtaps;

/* Offsets relative to the output position (the tails are not included). */
static void build(const aug__taps *t, gtaps *g) {
    int64_t n = t->hi - t->lo + 1;
    g->np = g->ns = 0;
    if (t->sym) {
        for (int64_t i = 1; i <= t->hi; i++) {
            g->pa[g->np] = -i, g->pb[g->np] = i, g->wp[g->np] = (float)t->w[t->hi + i];
            g->np++;
        }
        g->ps[0] = 0, g->ws[0] = (float)t->w[t->hi];
        g->ns = 1;
    } else {
        for (int64_t j = 0; j < n; j++) g->ps[j] = t->lo + j, g->ws[j] = (float)t->w[j];
        g->ns = n;
    }
}

/* Vertical pass of columns [from, W) over float rows (exact copies of the input
 * rows: pair sums of them are exact, as integer sums would be). */
static void gv_portable(const float *const *ra, const float *const *rb, const float *wp, int64_t np,
                        const float *const *rs, const float *ws, int64_t ns, int64_t from, int64_t W, float *v) {
    for (int64_t x = from; x < W; x++) {
        float acc = 0.0f;
        for (int64_t j = 0; j < np; j++) acc = fmaf(wp[j], ra[j][x] + rb[j][x], acc);
        for (int64_t j = 0; j < ns; j++) acc = fmaf(ws[j], rs[j][x], acc);
        v[x] = acc;
    }
}

static void u8_row_portable(const uint8_t *src, int64_t from, int64_t W, uint8_t flip, float *dst) {
    for (int64_t x = from; x < W; x++) dst[x] = (float)(uint8_t)(src[x] ^ flip);
}

/* Horizontal pass of columns [from, W) over the padded row hp (output x reads hp[x + off]). */
static void gh_portable(const float *hp, const gtaps *g, float c0, float c1, int64_t from, int64_t W, uint8_t flip,
                        uint8_t *out) {
    for (int64_t x = from; x < W; x++) {
        float acc = 0.0f;
        for (int64_t j = 0; j < g->np; j++) acc = fmaf(g->wp[j], hp[x + g->pa[j]] + hp[x + g->pb[j]], acc);
        for (int64_t j = 0; j < g->ns; j++) acc = fmaf(g->ws[j], hp[x + g->ps[j]], acc);
        if (c0 != 0.0f) acc = acc + c0;
        if (c1 != 0.0f) acc = acc + c1;
        out[x] = (uint8_t)(aug__blur8_round(acc) ^ flip);
    }
}

#if AUG__X86
/* U groups of 8 columns per pass over the taps: the weight and row-pointer
 * loads are shared by U * 8 columns (the loop is load-port bound otherwise). */
#define GV_BLOCK_(U)                                                                                          \
    for (; x + 8 * (U) <= W; x += 8 * (U)) {                                                                 \
        __m256 acc[U];                                                                                       \
        for (int u = 0; u < (U); u++) acc[u] = _mm256_setzero_ps();                                          \
        for (int64_t j = 0; j < np; j++) {                                                                   \
            __m256 w = _mm256_set1_ps(wp[j]);                                                                \
            const float *pa = ra[j] + x, *pb = rb[j] + x;                                                    \
            for (int u = 0; u < (U); u++) {                                                                  \
                __m256 s = _mm256_add_ps(_mm256_loadu_ps(pa + 8 * u), _mm256_loadu_ps(pb + 8 * u));          \
                acc[u] = _mm256_fmadd_ps(w, s, acc[u]);                                                      \
            }                                                                                                \
        }                                                                                                    \
        for (int64_t j = 0; j < ns; j++) {                                                                   \
            __m256 w = _mm256_set1_ps(ws[j]);                                                                \
            const float *ps = rs[j] + x;                                                                     \
            for (int u = 0; u < (U); u++) acc[u] = _mm256_fmadd_ps(w, _mm256_loadu_ps(ps + 8 * u), acc[u]); \
        }                                                                                                    \
        for (int u = 0; u < (U); u++) _mm256_storeu_ps(v + x + 8 * u, acc[u]);                              \
    }

__attribute__((target("avx2,fma"))) static int64_t gv_avx2(const float *const *ra, const float *const *rb,
                                                            const float *wp, int64_t np, const float *const *rs,
                                                            const float *ws, int64_t ns, int64_t W, float *v) {
    int64_t x = 0;
    GV_BLOCK_(4)
    GV_BLOCK_(1)
    return x;
}

__attribute__((target("avx2"))) static int64_t u8_row_avx2(const uint8_t *src, int64_t W, uint8_t flip, float *dst) {
    __m128i f = _mm_set1_epi8((char)flip);
    int64_t x = 0;
    for (; x + 8 <= W; x += 8)
        _mm256_storeu_ps(dst + x, _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(
                                      _mm_xor_si128(_mm_loadl_epi64((const __m128i *)(src + x)), f))));
    return x;
}

#define GH_BLOCK_(U)                                                                                          \
    for (; x + 8 * (U) <= W; x += 8 * (U)) {                                                                 \
        const float *p = hp + x;                                                                             \
        __m256 acc[U];                                                                                       \
        for (int u = 0; u < (U); u++) acc[u] = _mm256_setzero_ps();                                          \
        for (int64_t j = 0; j < np; j++) {                                                                   \
            __m256 w = _mm256_set1_ps(g->wp[j]);                                                             \
            const float *pa = p + g->pa[j], *pb = p + g->pb[j];                                              \
            for (int u = 0; u < (U); u++) {                                                                  \
                __m256 s = _mm256_add_ps(_mm256_loadu_ps(pa + 8 * u), _mm256_loadu_ps(pb + 8 * u));          \
                acc[u] = _mm256_fmadd_ps(w, s, acc[u]);                                        \
            }                                                                                                \
        }                                                                                                    \
        for (int64_t j = 0; j < ns; j++) {                                                                   \
            __m256 w = _mm256_set1_ps(g->ws[j]);                                                             \
            const float *ps = p + g->ps[j];                                                                  \
            for (int u = 0; u < (U); u++) acc[u] = _mm256_fmadd_ps(w, _mm256_loadu_ps(ps + 8 * u), acc[u]); \
        }                                                                                                    \
        for (int u = 0; u < (U); u++) {                                                                      \
            if (c0 != 0.0f) acc[u] = _mm256_add_ps(acc[u], vc0);                                             \
            if (c1 != 0.0f) acc[u] = _mm256_add_ps(acc[u], vc1);                                             \
            __m256i q = _mm256_cvtps_epi32(acc[u]); /* round half to even; |acc| <= ~255: no overflow */     \
            __m128i h = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));          \
            _mm_storel_epi64((__m128i *)(out + x + 8 * u), _mm_xor_si128(_mm_packus_epi16(h, h), f));       \
        }                                                                                                    \
    }

__attribute__((target("avx2,fma"))) static int64_t gh_avx2(const float *hp, const gtaps *g, float c0, float c1, int64_t W,
                                                        uint8_t flip, uint8_t *out) {
    __m128i f = _mm_set1_epi8((char)flip);
    __m256 vc0 = _mm256_set1_ps(c0), vc1 = _mm256_set1_ps(c1);
    int64_t x = 0, np = g->np, ns = g->ns;
    GH_BLOCK_(4)
    GH_BLOCK_(1)
    return x;
}
#undef GV_BLOCK_
#undef GH_BLOCK_

/* The same loops 16 columns wide (AVX-512F): the same float32 operations in the
 * same order per column, so the bytes equal the AVX2 and portable paths'. */
#define GV512_BLOCK_(U)                                                                                      \
    for (; x + 16 * (U) <= W; x += 16 * (U)) {                                                               \
        __m512 acc[U];                                                                                       \
        for (int u = 0; u < (U); u++) acc[u] = _mm512_setzero_ps();                                          \
        for (int64_t j = 0; j < np; j++) {                                                                   \
            __m512 w = _mm512_set1_ps(wp[j]);                                                                \
            const float *pa = ra[j] + x, *pb = rb[j] + x;                                                    \
            for (int u = 0; u < (U); u++) {                                                                  \
                __m512 s = _mm512_add_ps(_mm512_loadu_ps(pa + 16 * u), _mm512_loadu_ps(pb + 16 * u));       \
                acc[u] = _mm512_fmadd_ps(w, s, acc[u]);                                                      \
            }                                                                                                \
        }                                                                                                    \
        for (int64_t j = 0; j < ns; j++) {                                                                   \
            __m512 w = _mm512_set1_ps(ws[j]);                                                                \
            const float *ps = rs[j] + x;                                                                     \
            for (int u = 0; u < (U); u++) acc[u] = _mm512_fmadd_ps(w, _mm512_loadu_ps(ps + 16 * u), acc[u]); \
        }                                                                                                    \
        for (int u = 0; u < (U); u++) _mm512_storeu_ps(v + x + 16 * u, acc[u]);                             \
    }

#define AVX512_TARGET_ __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,fma")))

AVX512_TARGET_ static int64_t gv_avx512(const float *const *ra, const float *const *rb, const float *wp, int64_t np,
                                        const float *const *rs, const float *ws, int64_t ns, int64_t W, float *v) {
    int64_t x = 0;
    GV512_BLOCK_(4)
    GV512_BLOCK_(1)
    return x;
}

AVX512_TARGET_ static int64_t u8_row_avx512(const uint8_t *src, int64_t W, uint8_t flip, float *dst) {
    __m128i f = _mm_set1_epi8((char)flip);
    int64_t x = 0;
    for (; x + 16 <= W; x += 16)
        _mm512_storeu_ps(dst + x, _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(
                                      _mm_xor_si128(_mm_loadu_si128((const __m128i *)(src + x)), f))));
    return x;
}

#define GH512_BLOCK_(U)                                                                                      \
    for (; x + 16 * (U) <= W; x += 16 * (U)) {                                                               \
        const float *p = hp + x;                                                                             \
        __m512 acc[U];                                                                                       \
        for (int u = 0; u < (U); u++) acc[u] = _mm512_setzero_ps();                                          \
        for (int64_t j = 0; j < np; j++) {                                                                   \
            __m512 w = _mm512_set1_ps(g->wp[j]);                                                             \
            const float *pa = p + g->pa[j], *pb = p + g->pb[j];                                              \
            for (int u = 0; u < (U); u++) {                                                                  \
                __m512 s = _mm512_add_ps(_mm512_loadu_ps(pa + 16 * u), _mm512_loadu_ps(pb + 16 * u));       \
                acc[u] = _mm512_fmadd_ps(w, s, acc[u]);                                                      \
            }                                                                                                \
        }                                                                                                    \
        for (int64_t j = 0; j < ns; j++) {                                                                   \
            __m512 w = _mm512_set1_ps(g->ws[j]);                                                             \
            const float *ps = p + g->ps[j];                                                                  \
            for (int u = 0; u < (U); u++) acc[u] = _mm512_fmadd_ps(w, _mm512_loadu_ps(ps + 16 * u), acc[u]); \
        }                                                                                                    \
        for (int u = 0; u < (U); u++) {                                                                      \
            if (c0 != 0.0f) acc[u] = _mm512_add_ps(acc[u], vc0);                                             \
            if (c1 != 0.0f) acc[u] = _mm512_add_ps(acc[u], vc1);                                             \
            /* round half to even, then clamp to 0 .. 255 as AVX2's packs / packus do */                    \
            __m512i q = _mm512_max_epi32(_mm512_cvtps_epi32(acc[u]), _mm512_setzero_si512());                \
            _mm_storeu_si128((__m128i *)(out + x + 16 * u), _mm_xor_si128(_mm512_cvtusepi32_epi8(q), f));    \
        }                                                                                                    \
    }

AVX512_TARGET_ static int64_t gh_avx512(const float *hp, const gtaps *g, float c0, float c1, int64_t W, uint8_t flip,
                                        uint8_t *out) {
    __m128i f = _mm_set1_epi8((char)flip);
    __m512 vc0 = _mm512_set1_ps(c0), vc1 = _mm512_set1_ps(c1);
    int64_t x = 0, np = g->np, ns = g->ns;
    GH512_BLOCK_(4)
    GH512_BLOCK_(1)
    return x;
}
#undef GV512_BLOCK_
#undef GH512_BLOCK_
#undef AVX512_TARGET_
#endif

/* Input row r as float into the ring slot r % R. */
static void load_row(const uint8_t *src, int64_t r, int64_t W, uint8_t flip, int level, float *dst) {
    int64_t x = 0;
#if AUG__X86
    if (level >= AUG__SIMD_AVX512) x = u8_row_avx512(src + r * W, W, flip, dst);
    if (level >= AUG__SIMD_AVX2) x += u8_row_avx2(src + r * W + x, W - x, flip, dst + x);
#endif
    u8_row_portable(src + r * W, x, W, flip, dst);
}

int aug__blur_gauss8_rows(const aug__taps *tv, const aug__taps *th, const uint8_t *src, uint8_t *dst, int64_t H,
                          int64_t W, int64_t y0, int64_t y1, uint8_t flip, int level) {
    int64_t nv = tv->hi - tv->lo + 1, nh = th->hi - th->lo + 1, left = -th->lo, right = th->hi;
    int64_t R = nv < H ? nv : H; /* ring rows: one output row reads at most min(nv, H) distinct rows */
    size_t nvs = (size_t)nv + 2; /* + the two tails */
    /* scratch: tap lists, row pointers, weights, padded float row, the ring and the two edge rows */
    size_t bytes = (nvs + (size_t)nh) * (3 * sizeof(int64_t) + 2 * sizeof(float)) + 3 * nvs * sizeof(void *) +
                   (size_t)(left + W + right + (R + 2) * W) * sizeof(float);
    char *mem = malloc(bytes);
    if (!mem) return -1;
    int64_t *ip = (int64_t *)mem;
    const float **ra = (const float **)(ip + 3 * nvs + 3 * (size_t)nh), **rb = ra + nvs, **rs = rb + nvs;
    float *fp = (float *)(rs + nvs);
    gtaps gv = {0, 0, ip, ip + nvs, ip + 2 * nvs, fp, fp + nvs};
    gtaps gh = {0, 0, ip + 3 * nvs, ip + 3 * nvs + nh, ip + 3 * nvs + 2 * nh, fp + 2 * nvs, fp + 2 * nvs + nh};
    float *hp = fp + 2 * nvs + 2 * (size_t)nh, *ring = hp + left + W + right, *edge = ring + R * W;
    build(tv, &gv);
    build(th, &gh);
    /* the vertical tails read the first / last row whatever y is */
    float tl = (float)tv->tail_lo, tr = (float)tv->tail_hi, hl = (float)th->tail_lo, hr = (float)th->tail_hi;
    int64_t ns = gv.ns;
    if (tl != 0.0f) gv.ws[ns++] = tl;
    if (tr != 0.0f) gv.ws[ns++] = tr;
    for (int64_t j = 0; j < gh.np; j++) gh.pa[j] += left, gh.pb[j] += left;
    for (int64_t j = 0; j < gh.ns; j++) gh.ps[j] += left;
#if AUG__X86
    if (level >= AUG__SIMD_AVX2 && !__builtin_cpu_supports("fma")) level = AUG__SIMD_SSE2;
#endif
    if (tl != 0.0f) load_row(src, 0, W, flip, level, edge);
    if (tr != 0.0f) load_row(src, H - 1, W, flip, level, edge + W);
    float *v = hp + left;
    int64_t next = y0 + tv->lo < 0 ? 0 : y0 + tv->lo; /* the next input row to convert */
#define RING_(r) (ring + (((r) < 0 ? 0 : ((r) >= H ? H - 1 : (r))) % R) * W)
    for (int64_t y = y0; y < y1; y++) {
        for (int64_t last = y + tv->hi < H - 1 ? y + tv->hi : H - 1; next <= last; next++)
            load_row(src, next, W, flip, level, ring + (next % R) * W);
        for (int64_t j = 0; j < gv.np; j++) ra[j] = RING_(y + gv.pa[j]), rb[j] = RING_(y + gv.pb[j]);
        int64_t m = 0;
        for (; m < gv.ns; m++) rs[m] = RING_(y + gv.ps[m]);
        if (tl != 0.0f) rs[m++] = edge;
        if (tr != 0.0f) rs[m++] = edge + W;
        int64_t x = 0;
#if AUG__X86
        if (level >= AUG__SIMD_AVX512) x = gv_avx512(ra, rb, gv.wp, gv.np, rs, gv.ws, ns, W, v);
        else if (level >= AUG__SIMD_AVX2) x = gv_avx2(ra, rb, gv.wp, gv.np, rs, gv.ws, ns, W, v);
#endif
        gv_portable(ra, rb, gv.wp, gv.np, rs, gv.ws, ns, x, W, v);
        for (int64_t i = 0; i < left; i++) hp[i] = v[0];
        for (int64_t i = 0; i < right; i++) v[W + i] = v[W - 1];
        float c0 = hl * v[0], c1 = hr * v[W - 1];
        uint8_t *o = dst + y * W;
        x = 0;
#if AUG__X86
        if (level >= AUG__SIMD_AVX512) x = gh_avx512(hp, &gh, c0, c1, W, flip, o);
        else if (level >= AUG__SIMD_AVX2) x = gh_avx2(hp, &gh, c0, c1, W, flip, o);
#endif
        gh_portable(hp, &gh, c0, c1, x, W, flip, o);
    }
#undef RING_
    free(mem);
    return 0;
}
