/* cpu/warp_cubic_avx2.c: the vector step of the bicubic warp (cpu/warp_cubic.c),
 * uint8 and float32 sources, affine and perspective: 4 output pixels per AVX2
 * step, 8 per AVX-512 step.
 *
 * One pixel per double lane: the lanes evaluate scalar/warp.h's bicubic rule
 * with the scalar kernel's operations in the same order (coordinates m0 X +
 * rowterm, then / w for a homography; the bound as a clamp or, for the
 * reflecting borders, the identity on [-2, P); floor; Keys' weights; the row
 * dots, then the column dot; the sum of samples), each an IEEE double operation
 * on its lane without contraction, so every lane holds the scalar kernel's bits.
 * A step is taken where each of its pixels either has all 16 taps inside the
 * source (no border rule) or is the background (a point outside a homography's
 * plane; every tap outside under the constant border: its sum gets the
 * background value, as in the scalar kernel). The others (a tap across an edge,
 * the reflecting borders' fmod, a row's last 1-3 pixels) are left to the scalar
 * kernel, which the returned mask tells. */
#include <stdint.h>
#include "cpu.h"
#include "warp_impl.h"

#if AUG__X86
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))

/* The taps of lane l of row q, tap u: p[l] + q * sh + u * sw, as 4 doubles. */
#define LOAD_U8(p, o)                                                                                                  \
    _mm256_cvtepi32_pd(_mm_setr_epi32(*(const uint8_t *)((p)[0] + (o)), *(const uint8_t *)((p)[1] + (o)),              \
                                      *(const uint8_t *)((p)[2] + (o)), *(const uint8_t *)((p)[3] + (o))))

/* ((w0 a0 + w1 a1) + w2 a2) + w3 a3 per lane (aug__warp_cubic_dot). */
AVX2 static inline __m256d dot4(const __m256d *w, __m256d a0, __m256d a1, __m256d a2, __m256d a3) {
    __m256d r = _mm256_add_pd(_mm256_mul_pd(w[0], a0), _mm256_mul_pd(w[1], a1));
    r = _mm256_add_pd(r, _mm256_mul_pd(w[2], a2));
    return _mm256_add_pd(r, _mm256_mul_pd(w[3], a3));
}

/* aug__warp_cubic_weights per lane. */
AVX2 static inline void weights4(__m256d t, __m256d *w) {
    const double A = AUG__WARP_CUBIC_A;
    const __m256d one = _mm256_set1_pd(1.0), a = _mm256_set1_pd(A), a5 = _mm256_set1_pd(5.0 * A);
    const __m256d a8 = _mm256_set1_pd(8.0 * A), a4 = _mm256_set1_pd(4.0 * A);
    const __m256d a2 = _mm256_set1_pd(A + 2.0), a3 = _mm256_set1_pd(A + 3.0);
    const __m256d t1 = _mm256_add_pd(t, one), u = _mm256_sub_pd(one, t);
    __m256d w0 = _mm256_sub_pd(_mm256_mul_pd(a, t1), a5);
    w0 = _mm256_add_pd(_mm256_mul_pd(w0, t1), a8);
    w0 = _mm256_sub_pd(_mm256_mul_pd(w0, t1), a4);
    __m256d w1 = _mm256_sub_pd(_mm256_mul_pd(a2, t), a3);
    w1 = _mm256_add_pd(_mm256_mul_pd(_mm256_mul_pd(w1, t), t), one);
    __m256d w2 = _mm256_sub_pd(_mm256_mul_pd(a2, u), a3);
    w2 = _mm256_add_pd(_mm256_mul_pd(_mm256_mul_pd(w2, u), u), one);
    w[0] = w0, w[1] = w1, w[2] = w2;
    w[3] = _mm256_sub_pd(_mm256_sub_pd(_mm256_sub_pd(one, w0), w1), w2);
}

/* aug__warp_bound on the lanes where it is the identity or the clamp; *ok cleared
 * where a reflecting border would take fmod (or the value is NaN). */
AVX2 static inline __m256d bound4(__m256d v, int64_t n, int border, __m256d *ok) {
    const double p = aug__warp_period(n, border);
    const __m256d lo = _mm256_set1_pd(-2.0);
    if (p == 0.0) return _mm256_min_pd(_mm256_max_pd(v, lo), _mm256_set1_pd((double)n + 1.0));
    *ok = _mm256_and_pd(
        *ok, _mm256_and_pd(_mm256_cmp_pd(v, lo, _CMP_GE_OQ), _mm256_cmp_pd(v, _mm256_set1_pd(p), _CMP_LT_OQ)));
    return v;
}

/* A row's broadcast terms (sample (i, j) of row y). */
typedef struct row_terms {
    __m256d di, m0, m3, m6, bx, by, bw, hx, hy;
    __m128i sh, sw;
    int32_t xs;
} row_terms;

AVX2 static inline void terms_init(const warp_img *im, int64_t y, int j, int64_t x0, int i, row_terms *t) {
    const double *m = im->m;
    const double Y = (double)y + warp_sample_offset(im, j);
    t->di = _mm256_set1_pd(warp_sample_offset(im, i));
    t->m0 = _mm256_set1_pd(m[0]), t->m3 = _mm256_set1_pd(m[3]), t->m6 = _mm256_set1_pd(m[6]);
    t->bx = _mm256_set1_pd(aug__warp_rowterm(m[1], Y, m[2]));
    t->by = _mm256_set1_pd(aug__warp_rowterm(m[4], Y, m[5]));
    t->bw = _mm256_set1_pd(aug__warp_rowterm(m[7], Y, m[8]));
    t->hx = _mm256_set1_pd((double)im->W - 2.0), t->hy = _mm256_set1_pd((double)im->H - 2.0);
    t->sh = _mm_set1_epi32((int32_t)im->sh), t->sw = _mm_set1_epi32((int32_t)im->sw);
    t->xs = (int32_t)x0;
}

/* Output pixels xs + k .. xs + k + 3: their weights and the byte offsets of their
 * taps (floor - 1, floor - 1); 0 where a lane's taps neither all lie inside nor
 * make it the background (*bgm: those lanes, bit l for lane l; their offsets 0,
 * which read the source's first 4 x 4 pixels: sides >= 4). */
AVX2 static inline int group4(const warp_img *im, const row_terms *t, int k, __m256d *wx, __m256d *wy, __m128i *off,
                              int *bgm) {
    const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1.0);
    const __m256d X =
        _mm256_add_pd(_mm256_cvtepi32_pd(_mm_add_epi32(_mm_set1_epi32(t->xs + k), _mm_setr_epi32(0, 1, 2, 3))), t->di);
    __m256d u = _mm256_add_pd(_mm256_mul_pd(t->m0, X), t->bx), v = _mm256_add_pd(_mm256_mul_pd(t->m3, X), t->by);
    __m256d ok = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    if (im->projective) {
        const __m256d w = _mm256_add_pd(_mm256_mul_pd(t->m6, X), t->bw);
        ok = _mm256_cmp_pd(w, zero, _CMP_GT_OQ);
        u = _mm256_div_pd(u, w), v = _mm256_div_pd(v, w);
        ok = _mm256_and_pd(ok, _mm256_cmp_pd(_mm256_sub_pd(u, u), zero, _CMP_EQ_OQ));
        ok = _mm256_and_pd(ok, _mm256_cmp_pd(_mm256_sub_pd(v, v), zero, _CMP_EQ_OQ));
    }
    const int plane = _mm256_movemask_pd(ok); /* the point lies in the source plane (a homography) */
    const __m256d sx = bound4(u, im->W, im->border, &ok), sy = bound4(v, im->H, im->border, &ok);
    /* floor (+ 0 makes a -0 the scalar kernel's +0); every tap inside: 1 <= floor < side - 2 */
    const __m256d fx = _mm256_add_pd(_mm256_floor_pd(sx), zero), fy = _mm256_add_pd(_mm256_floor_pd(sy), zero);
    __m256d in = _mm256_and_pd(_mm256_cmp_pd(fx, one, _CMP_GE_OQ), _mm256_cmp_pd(fx, t->hx, _CMP_LT_OQ));
    in = _mm256_and_pd(ok, in);
    in = _mm256_and_pd(in, _mm256_and_pd(_mm256_cmp_pd(fy, one, _CMP_GE_OQ), _mm256_cmp_pd(fy, t->hy, _CMP_LT_OQ)));
    const int inside = _mm256_movemask_pd(in);
    int bg = 0;
    if (inside != 15) {
        /* the background: outside the plane, or (constant border) every tap outside,
         * aug__warp_cubic_outside: floor < -2 or floor >= side + 1 */
        bg = 15 & ~plane;
        if (im->border == AUG__WB_CONSTANT) {
            const __m256d lo = _mm256_set1_pd(-2.0);
            __m256d out = _mm256_or_pd(_mm256_cmp_pd(fx, lo, _CMP_LT_OQ),
                                       _mm256_cmp_pd(fx, _mm256_set1_pd((double)im->W + 1.0), _CMP_GE_OQ));
            out = _mm256_or_pd(out, _mm256_cmp_pd(fy, lo, _CMP_LT_OQ));
            out = _mm256_or_pd(out, _mm256_cmp_pd(fy, _mm256_set1_pd((double)im->H + 1.0), _CMP_GE_OQ));
            bg |= plane & _mm256_movemask_pd(out);
        }
        if ((inside | bg) != 15 || im->W < 4 || im->H < 4) return 0;
    }
    weights4(_mm256_sub_pd(sx, fx), wx);
    weights4(_mm256_sub_pd(sy, fy), wy);
    const __m128i ix = _mm_sub_epi32(_mm256_cvttpd_epi32(fx), _mm_set1_epi32(1));
    const __m128i iy = _mm_sub_epi32(_mm256_cvttpd_epi32(fy), _mm_set1_epi32(1));
    *off = _mm_add_epi32(_mm_mullo_epi32(iy, t->sh), _mm_mullo_epi32(ix, t->sw));
    if (bg) *off = _mm_andnot_si128(_mm_setr_epi32(-(bg & 1), -(bg >> 1 & 1), -(bg >> 2 & 1), -(bg >> 3 & 1)), *off);
    *bgm = bg;
    return 1;
}

/* The background lanes (bit l of bgm: pixel k + l) of the cn channels: their
 * sums before a step (save), then those plus the background value, as the scalar
 * kernel adds it (restore; the step wrote whatever its offsets 0 gave). */
static void bg_save(const double *acc, int k, int n, int cn, int bgm, double *old) {
    for (int c = 0; c < cn; c++)
        for (int l = 0; l < n; l++)
            if (bgm >> l & 1) old[c * 8 + l] = acc[c * CHUNK + k + l];
}
static void bg_restore(double *acc, int k, int n, int cn, int bgm, const double *old, const double *bg) {
    for (int c = 0; c < cn; c++)
        for (int l = 0; l < n; l++)
            if (bgm >> l & 1) acc[c * CHUNK + k + l] = old[c * 8 + l] + bg[c];
}

/* acc[k .. k+3] += the column dot of the row dots r. */
AVX2 static inline void add_sample(double *a, const __m256d *wy, const __m256d *r) {
    _mm256_storeu_pd(a, _mm256_add_pd(_mm256_loadu_pd(a), dot4(wy, r[0], r[1], r[2], r[3])));
}

#define DEF_ROW(NAME, LOAD)                                                                                            \
    AVX2 static void NAME(const warp_img *im, const row_terms *t, int k, const __m256d *wx, const __m256d *wy,         \
                          __m128i off4, int64_t c0, int cn, double *acc) {                                             \
        const int64_t rs = im->sh, ts = im->sw;                                                                        \
        int32_t off[4];                                                                                                \
        _mm_storeu_si128((__m128i *)off, off4);                                                                        \
        for (int c = 0; c < cn; c++) {                                                                                 \
            const char *base = im->base + (c0 + c) * im->sc;                                                           \
            const char *p[4] = {base + off[0], base + off[1], base + off[2], base + off[3]};                           \
            __m256d r[4];                                                                                              \
            for (int q = 0; q < 4; q++) {                                                                              \
                const int64_t o = q * rs;                                                                              \
                r[q] = dot4(wx, LOAD(p, o), LOAD(p, o + ts), LOAD(p, o + 2 * ts), LOAD(p, o + 3 * ts));                \
            }                                                                                                          \
            add_sample(acc + c * CHUNK + k, wy, r);                                                                    \
        }                                                                                                              \
    }
DEF_ROW(group_u8, LOAD_U8)

/* float32: the taps of the 4 lanes with a gather each (offsets fit int32: aug__warp_cubic_avx2_ok). */
AVX2 static void group_f32(const warp_img *im, const row_terms *t, int k, const __m256d *wx, const __m256d *wy,
                           __m128i off4, int64_t c0, int cn, double *acc) {
    for (int c = 0; c < cn; c++) {
        const float *base = (const float *)(const void *)(im->base + (c0 + c) * im->sc);
        __m256d r[4];
        for (int q = 0; q < 4; q++) {
            __m256d a[4];
            for (int u = 0; u < 4; u++) {
                const __m128i o = _mm_add_epi32(off4, _mm_set1_epi32((int32_t)(q * im->sh + u * im->sw)));
                a[u] = _mm256_cvtps_pd(_mm_i32gather_ps(base, o, 1));
            }
            r[q] = dot4(wx, a[0], a[1], a[2], a[3]);
        }
        add_sample(acc + c * CHUNK + k, wy, r);
    }
}

/* uint8 pixels of at most 4 adjacent channels (sc = 1, cn <= sw <= 4, sh > 0): the
 * 4 taps x cn channels of a lane's row lie in 16 bytes, one load; a byte shuffle
 * puts channel c's taps in dword c, a 4 x 4 transpose gathers dword c of the 4
 * lanes, and a shuffle per tap widens its bytes (pick, tap: those shuffles). The
 * caller checks that the 16 bytes lie inside the image. */
AVX2 static inline __attribute__((always_inline)) void group_u8_wide(const warp_img *im, int k, const __m256d *wx,
                                                                     const __m256d *wy, __m128i off4, int64_t c0,
                                                                     int cn, const __m128i *pick, const __m128i *tap,
                                                                     double *acc) {
    int32_t off[4];
    _mm_storeu_si128((__m128i *)off, off4);
    const char *base = im->base + c0;
    __m256d v[4]; /* per channel: the column dot so far, ((wy0 r0 + wy1 r1) + wy2 r2) + wy3 r3 in its order */
    for (int q = 0; q < 4; q++) {
        const int64_t o = q * im->sh;
        __m128i l0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(base + off[0] + o)), *pick);
        __m128i l1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(base + off[1] + o)), *pick);
        __m128i l2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(base + off[2] + o)), *pick);
        __m128i l3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(base + off[3] + o)), *pick);
        const __m128i a01 = _mm_unpacklo_epi32(l0, l1), a23 = _mm_unpacklo_epi32(l2, l3);
        const __m128i b01 = _mm_unpackhi_epi32(l0, l1), b23 = _mm_unpackhi_epi32(l2, l3);
        const __m128i ch[4] = {_mm_unpacklo_epi64(a01, a23), _mm_unpackhi_epi64(a01, a23), _mm_unpacklo_epi64(b01, b23),
                               _mm_unpackhi_epi64(b01, b23)};
        for (int c = 0; c < cn; c++) {
            const __m256d r = dot4(wx, _mm256_cvtepi32_pd(_mm_shuffle_epi8(ch[c], tap[0])),
                                   _mm256_cvtepi32_pd(_mm_shuffle_epi8(ch[c], tap[1])),
                                   _mm256_cvtepi32_pd(_mm_shuffle_epi8(ch[c], tap[2])),
                                   _mm256_cvtepi32_pd(_mm_shuffle_epi8(ch[c], tap[3])));
            v[c] = q == 0 ? _mm256_mul_pd(wy[0], r) : _mm256_add_pd(v[c], _mm256_mul_pd(wy[q], r));
        }
    }
    for (int c = 0; c < cn; c++) {
        double *a = acc + c * CHUNK + k;
        _mm256_storeu_pd(a, _mm256_add_pd(_mm256_loadu_pd(a), v[c]));
    }
}

/* What a row's steps share: the broadcast terms and the 16-byte-load shuffles. */
typedef struct row_setup {
    row_terms t;
    int u8, wide; /* uint8 source; the 16-byte loads (group_u8_wide) where lim allows */
    __m128i lim;  /* a load from offset o (from base + c0, its last row) is inside the image when o <= lim */
    __m128i pick, tap[4];
} row_setup;

AVX2 static void setup_init(const warp_img *im, int64_t y, int j, int64_t x0, int i, int64_t c0, int cn,
                            row_setup *rs) {
    terms_init(im, y, j, x0, i, &rs->t);
    rs->u8 = im->dtype == AUG_UINT8;
    /* adjacent channels, taps within 16 bytes, rows forward */
    rs->wide = rs->u8 && im->sc == 1 && im->sw >= cn && im->sw <= 4 && im->sh > 0;
    const int64_t last = (im->H - 1) * im->sh + (im->W - 1) * im->sw + (im->C - 1) * im->sc; /* from base */
    const int64_t lim = last - c0 - 15 - 3 * im->sh;
    rs->lim = _mm_set1_epi32((int32_t)(lim < -1 ? -1 : lim));
    int8_t b[16];
    for (int q = 0; q < 16; q++) b[q] = -1;
    for (int c = 0; c < cn && rs->wide; c++)
        for (int u = 0; u < 4; u++) b[4 * c + u] = (int8_t)(u * im->sw + c);
    rs->pick = _mm_loadu_si128((const __m128i *)b);
    for (int u = 0; u < 4; u++)
        rs->tap[u] = _mm_setr_epi8((char)u, -1, -1, -1, (char)(4 + u), -1, -1, -1, (char)(8 + u), -1, -1, -1,
                                   (char)(12 + u), -1, -1, -1);
}

/* Pixels k .. k+3: 1 when done. */
AVX2 static inline int step4(const warp_img *im, const row_setup *rs, int k, int64_t c0, int cn, const double *bg,
                             double *acc) {
    __m256d wx[4], wy[4];
    __m128i off;
    int bgm = 0;
    double old[CGROUP * 8];
    if (!group4(im, &rs->t, k, wx, wy, &off, &bgm)) return 0;
    if (bgm) bg_save(acc, k, 4, cn, bgm, old);
    if (rs->wide && _mm_movemask_epi8(_mm_cmpgt_epi32(off, rs->lim)) == 0)
        /* the common channel counts as constants: the channel loops unrolled */
        if (cn == 3)
            group_u8_wide(im, k, wx, wy, off, c0, 3, &rs->pick, rs->tap, acc);
        else if (cn == 1)
            group_u8_wide(im, k, wx, wy, off, c0, 1, &rs->pick, rs->tap, acc);
        else
            group_u8_wide(im, k, wx, wy, off, c0, cn, &rs->pick, rs->tap, acc);
    else if (rs->u8)
        group_u8(im, &rs->t, k, wx, wy, off, c0, cn, acc);
    else
        group_f32(im, &rs->t, k, wx, wy, off, c0, cn, acc);
    if (bgm) bg_restore(acc, k, 4, cn, bgm, old, bg);
    return 1;
}

AVX2 static uint64_t row_avx2(const warp_img *im, int64_t y, int j, int64_t x0, int i, int cw, int64_t c0, int cn,
                              const double *bg, double *acc) {
    row_setup rs;
    setup_init(im, y, j, x0, i, c0, cn, &rs);
    uint64_t done = 0;
    for (int k = 0; k + 4 <= cw; k += 4)
        if (step4(im, &rs, k, c0, cn, bg, acc)) done |= (uint64_t)15 << k;
    return done;
}

/* ---- AVX-512: 8 pixels per step, the same operations on 8 lanes ---- */

#define AVX512 __attribute__((target("avx2,avx512f,avx512dq,avx512vl,avx512bw")))

AVX512 static inline __m512d dot8(const __m512d *w, __m512d a0, __m512d a1, __m512d a2, __m512d a3) {
    __m512d r = _mm512_add_pd(_mm512_mul_pd(w[0], a0), _mm512_mul_pd(w[1], a1));
    r = _mm512_add_pd(r, _mm512_mul_pd(w[2], a2));
    return _mm512_add_pd(r, _mm512_mul_pd(w[3], a3));
}

AVX512 static inline void weights8(__m512d t, __m512d *w) {
    const double A = AUG__WARP_CUBIC_A;
    const __m512d one = _mm512_set1_pd(1.0), a = _mm512_set1_pd(A), a5 = _mm512_set1_pd(5.0 * A);
    const __m512d a8 = _mm512_set1_pd(8.0 * A), a4 = _mm512_set1_pd(4.0 * A);
    const __m512d a2 = _mm512_set1_pd(A + 2.0), a3 = _mm512_set1_pd(A + 3.0);
    const __m512d t1 = _mm512_add_pd(t, one), u = _mm512_sub_pd(one, t);
    __m512d w0 = _mm512_sub_pd(_mm512_mul_pd(a, t1), a5);
    w0 = _mm512_add_pd(_mm512_mul_pd(w0, t1), a8);
    w0 = _mm512_sub_pd(_mm512_mul_pd(w0, t1), a4);
    __m512d w1 = _mm512_sub_pd(_mm512_mul_pd(a2, t), a3);
    w1 = _mm512_add_pd(_mm512_mul_pd(_mm512_mul_pd(w1, t), t), one);
    __m512d w2 = _mm512_sub_pd(_mm512_mul_pd(a2, u), a3);
    w2 = _mm512_add_pd(_mm512_mul_pd(_mm512_mul_pd(w2, u), u), one);
    w[0] = w0, w[1] = w1, w[2] = w2;
    w[3] = _mm512_sub_pd(_mm512_sub_pd(_mm512_sub_pd(one, w0), w1), w2);
}

AVX512 static inline __m512d bound8(__m512d v, int64_t n, int border, __mmask8 *ok) {
    const double p = aug__warp_period(n, border);
    const __m512d lo = _mm512_set1_pd(-2.0);
    if (p == 0.0) return _mm512_min_pd(_mm512_max_pd(v, lo), _mm512_set1_pd((double)n + 1.0));
    *ok &= (__mmask8)(_mm512_cmp_pd_mask(v, lo, _CMP_GE_OQ) & _mm512_cmp_pd_mask(v, _mm512_set1_pd(p), _CMP_LT_OQ));
    return v;
}

/* group4 on 8 lanes (pixels xs + k .. xs + k + 7). */
AVX512 static inline int group8(const warp_img *im, const row_terms *t, int k, __m512d *wx, __m512d *wy, __m256i *off,
                                int *bgm) {
    const __m512d zero = _mm512_setzero_pd(), one = _mm512_set1_pd(1.0);
    const __m512d X = _mm512_add_pd(
        _mm512_cvtepi32_pd(_mm256_add_epi32(_mm256_set1_epi32(t->xs + k), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))),
        _mm512_broadcast_f64x4(t->di));
    __m512d u = _mm512_add_pd(_mm512_mul_pd(_mm512_broadcast_f64x4(t->m0), X), _mm512_broadcast_f64x4(t->bx));
    __m512d v = _mm512_add_pd(_mm512_mul_pd(_mm512_broadcast_f64x4(t->m3), X), _mm512_broadcast_f64x4(t->by));
    __mmask8 ok = 0xff;
    if (im->projective) {
        const __m512d w = _mm512_add_pd(_mm512_mul_pd(_mm512_broadcast_f64x4(t->m6), X), _mm512_broadcast_f64x4(t->bw));
        ok = _mm512_cmp_pd_mask(w, zero, _CMP_GT_OQ);
        u = _mm512_div_pd(u, w), v = _mm512_div_pd(v, w);
        ok &= _mm512_cmp_pd_mask(_mm512_sub_pd(u, u), zero, _CMP_EQ_OQ);
        ok &= _mm512_cmp_pd_mask(_mm512_sub_pd(v, v), zero, _CMP_EQ_OQ);
    }
    const __mmask8 plane = ok;
    const __m512d sx = bound8(u, im->W, im->border, &ok), sy = bound8(v, im->H, im->border, &ok);
    const __m512d fx = _mm512_add_pd(_mm512_roundscale_pd(sx, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC), zero);
    const __m512d fy = _mm512_add_pd(_mm512_roundscale_pd(sy, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC), zero);
    const __m512d hx = _mm512_broadcast_f64x4(t->hx), hy = _mm512_broadcast_f64x4(t->hy);
    __mmask8 in = ok & _mm512_cmp_pd_mask(fx, one, _CMP_GE_OQ) & _mm512_cmp_pd_mask(fx, hx, _CMP_LT_OQ);
    in &= _mm512_cmp_pd_mask(fy, one, _CMP_GE_OQ) & _mm512_cmp_pd_mask(fy, hy, _CMP_LT_OQ);
    __mmask8 bg = 0;
    if (in != 0xff) {
        bg = (__mmask8)~plane;
        if (im->border == AUG__WB_CONSTANT) {
            const __m512d lo = _mm512_set1_pd(-2.0);
            bg |= plane & (_mm512_cmp_pd_mask(fx, lo, _CMP_LT_OQ) |
                           _mm512_cmp_pd_mask(fx, _mm512_set1_pd((double)im->W + 1.0), _CMP_GE_OQ) |
                           _mm512_cmp_pd_mask(fy, lo, _CMP_LT_OQ) |
                           _mm512_cmp_pd_mask(fy, _mm512_set1_pd((double)im->H + 1.0), _CMP_GE_OQ));
        }
        if ((__mmask8)(in | bg) != 0xff || im->W < 4 || im->H < 4) return 0;
    }
    weights8(_mm512_sub_pd(sx, fx), wx);
    weights8(_mm512_sub_pd(sy, fy), wy);
    const __m256i ix = _mm256_sub_epi32(_mm512_cvttpd_epi32(fx), _mm256_set1_epi32(1));
    const __m256i iy = _mm256_sub_epi32(_mm512_cvttpd_epi32(fy), _mm256_set1_epi32(1));
    const __m256i o = _mm256_add_epi32(_mm256_mullo_epi32(iy, _mm256_set1_epi32((int32_t)im->sh)),
                                       _mm256_mullo_epi32(ix, _mm256_set1_epi32((int32_t)im->sw)));
    *off = _mm256_maskz_mov_epi32((__mmask8)~bg, o);
    *bgm = bg;
    return 1;
}

/* The channels' column dots (v) into acc[k .. k+7]. */
AVX512 static inline void add8(double *acc, int k, int cn, const __m512d *v) {
    for (int c = 0; c < cn; c++) {
        double *a = acc + c * CHUNK + k;
        _mm512_storeu_pd(a, _mm512_add_pd(_mm512_loadu_pd(a), v[c]));
    }
}

/* group_u8_wide on 8 lanes: two 4-lane transposes per row. */
AVX512 static inline __attribute__((always_inline)) void group8_u8_wide(const warp_img *im, int k, const __m512d *wx,
                                                                        const __m512d *wy, __m256i off8, int64_t c0,
                                                                        int cn, const row_setup *rs, double *acc) {
    int32_t off[8];
    _mm256_storeu_si256((__m256i *)off, off8);
    const char *base = im->base + c0;
    __m512d v[4];
    for (int q = 0; q < 4; q++) {
        const int64_t o = q * im->sh;
        __m128i ch[2][4];
        for (int h = 0; h < 2; h++) {
            const int32_t *f = off + 4 * h;
            __m128i l0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(base + f[0] + o)), rs->pick);
            __m128i l1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(base + f[1] + o)), rs->pick);
            __m128i l2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(base + f[2] + o)), rs->pick);
            __m128i l3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(base + f[3] + o)), rs->pick);
            const __m128i a01 = _mm_unpacklo_epi32(l0, l1), a23 = _mm_unpacklo_epi32(l2, l3);
            const __m128i b01 = _mm_unpackhi_epi32(l0, l1), b23 = _mm_unpackhi_epi32(l2, l3);
            ch[h][0] = _mm_unpacklo_epi64(a01, a23), ch[h][1] = _mm_unpackhi_epi64(a01, a23);
            ch[h][2] = _mm_unpacklo_epi64(b01, b23), ch[h][3] = _mm_unpackhi_epi64(b01, b23);
        }
        for (int c = 0; c < cn; c++) {
            const __m256i b = _mm256_set_m128i(ch[1][c], ch[0][c]);
            __m512d a[4];
            for (int u = 0; u < 4; u++)
                a[u] = _mm512_cvtepi32_pd(_mm256_shuffle_epi8(b, _mm256_broadcastsi128_si256(rs->tap[u])));
            const __m512d r = dot8(wx, a[0], a[1], a[2], a[3]);
            v[c] = q == 0 ? _mm512_mul_pd(wy[0], r) : _mm512_add_pd(v[c], _mm512_mul_pd(wy[q], r));
        }
    }
    add8(acc, k, cn, v);
}

#define LOAD8_U8(p, o)                                                                                                 \
    _mm512_cvtepi32_pd(_mm256_setr_epi32(*(const uint8_t *)((p)[0] + (o)), *(const uint8_t *)((p)[1] + (o)),           \
                                         *(const uint8_t *)((p)[2] + (o)), *(const uint8_t *)((p)[3] + (o)),           \
                                         *(const uint8_t *)((p)[4] + (o)), *(const uint8_t *)((p)[5] + (o)),           \
                                         *(const uint8_t *)((p)[6] + (o)), *(const uint8_t *)((p)[7] + (o))))
#define DEF_ROW8(NAME, LOAD)                                                                                           \
    AVX512 static void NAME(const warp_img *im, int k, const __m512d *wx, const __m512d *wy, __m256i off8, int64_t c0, \
                            int cn, double *acc) {                                                                     \
        int32_t off[8];                                                                                                \
        _mm256_storeu_si256((__m256i *)off, off8);                                                                     \
        const int64_t rs = im->sh, ts = im->sw;                                                                        \
        __m512d v[CGROUP];                                                                                             \
        for (int c = 0; c < cn; c++) {                                                                                 \
            const char *base = im->base + (c0 + c) * im->sc;                                                           \
            const char *p[8];                                                                                          \
            for (int l = 0; l < 8; l++) p[l] = base + off[l];                                                          \
            for (int q = 0; q < 4; q++) {                                                                              \
                const int64_t o = q * rs;                                                                              \
                const __m512d r = dot8(wx, LOAD(p, o), LOAD(p, o + ts), LOAD(p, o + 2 * ts), LOAD(p, o + 3 * ts));     \
                v[c] = q == 0 ? _mm512_mul_pd(wy[0], r) : _mm512_add_pd(v[c], _mm512_mul_pd(wy[q], r));                \
            }                                                                                                          \
        }                                                                                                              \
        add8(acc, k, cn, v);                                                                                           \
    }
DEF_ROW8(group8_u8, LOAD8_U8)

AVX512 static void group8_f32(const warp_img *im, int k, const __m512d *wx, const __m512d *wy, __m256i off8, int64_t c0,
                              int cn, double *acc) {
    __m512d v[CGROUP];
    for (int c = 0; c < cn; c++) {
        const float *base = (const float *)(const void *)(im->base + (c0 + c) * im->sc);
        for (int q = 0; q < 4; q++) {
            __m512d a[4];
            for (int u = 0; u < 4; u++) {
                const __m256i o = _mm256_add_epi32(off8, _mm256_set1_epi32((int32_t)(q * im->sh + u * im->sw)));
                a[u] = _mm512_cvtps_pd(_mm256_i32gather_ps(base, o, 1));
            }
            const __m512d r = dot8(wx, a[0], a[1], a[2], a[3]);
            v[c] = q == 0 ? _mm512_mul_pd(wy[0], r) : _mm512_add_pd(v[c], _mm512_mul_pd(wy[q], r));
        }
    }
    add8(acc, k, cn, v);
}

AVX512 static uint64_t row_avx512(const warp_img *im, int64_t y, int j, int64_t x0, int i, int cw, int64_t c0, int cn,
                                  const double *bg, double *acc) {
    row_setup rs;
    setup_init(im, y, j, x0, i, c0, cn, &rs);
    const __m256i lim = _mm256_broadcastsi128_si256(rs.lim);
    uint64_t done = 0;
    int k = 0;
    for (; k + 8 <= cw; k += 8) {
        __m512d wx[4], wy[4];
        __m256i off;
        int bgm = 0;
        double old[CGROUP * 8];
        if (group8(im, &rs.t, k, wx, wy, &off, &bgm)) {
            if (bgm) bg_save(acc, k, 8, cn, bgm, old);
            if (rs.wide && _mm256_movemask_epi8(_mm256_cmpgt_epi32(off, lim)) == 0) {
                if (cn == 3)
                    group8_u8_wide(im, k, wx, wy, off, c0, 3, &rs, acc);
                else if (cn == 1)
                    group8_u8_wide(im, k, wx, wy, off, c0, 1, &rs, acc);
                else
                    group8_u8_wide(im, k, wx, wy, off, c0, cn, &rs, acc);
            } else if (rs.u8)
                group8_u8(im, k, wx, wy, off, c0, cn, acc);
            else
                group8_f32(im, k, wx, wy, off, c0, cn, acc);
            if (bgm) bg_restore(acc, k, 8, cn, bgm, old, bg);
            done |= (uint64_t)255 << k;
            continue;
        }
        /* an edge: the halves that lie inside */
        if (step4(im, &rs, k, c0, cn, bg, acc)) done |= (uint64_t)15 << k;
        if (step4(im, &rs, k + 4, c0, cn, bg, acc)) done |= (uint64_t)15 << (k + 4);
    }
    for (; k + 4 <= cw; k += 4)
        if (step4(im, &rs, k, c0, cn, bg, acc)) done |= (uint64_t)15 << k;
    return done;
}

uint64_t aug__warp_cubic_row_avx2(const warp_img *im, int level, int64_t y, int j, int64_t x0, int i, int cw,
                                  int64_t c0, int cn, const double *bg, double *acc) {
    return level >= AUG__SIMD_AVX512 ? row_avx512(im, y, j, x0, i, cw, c0, cn, bg + c0, acc)
                                     : row_avx2(im, y, j, x0, i, cw, c0, cn, bg + c0, acc);
}

int aug__warp_cubic_avx2_ok(const warp_img *im, int64_t Wt) {
    /* the tap offsets (iy - 1) sh + (ix - 1) sw in int32 */
    const int64_t span = (im->H < 0 ? 0 : im->H) * (im->sh < 0 ? -im->sh : im->sh) +
                         (im->W < 0 ? 0 : im->W) * (im->sw < 0 ? -im->sw : im->sw);
    return (im->dtype == AUG_UINT8 || im->dtype == AUG_FLOAT32) && span < INT32_MAX / 2 && im->W < INT32_MAX / 2 &&
           im->H < INT32_MAX / 2 && Wt < INT32_MAX - 64;
}
#endif
