/* cpu/warp_cubic_avx2.c: the AVX2 step of the bicubic warp (cpu/warp_cubic.c),
 * uint8 and float32 sources, affine and perspective.
 *
 * Four output pixels per step, one per double lane: the lanes evaluate
 * scalar/warp.h's bicubic rule with the scalar kernel's operations in the same
 * order (coordinates m0 X + rowterm, then / w for a homography; the bound as a
 * clamp or, for the reflecting borders, the identity on [-2, P); floor; Keys'
 * weights; the row dots, then the column dot; the sum of samples), each an IEEE
 * double operation on its lane without contraction, so every lane holds the
 * scalar kernel's bits. A step is taken only where its four pixels' 16 taps
 * all lie inside the source (no border rule); the others (edges, the
 * background, the reflecting borders' fmod, points outside a homography's
 * plane, a row's tail) are left to the scalar kernel, which the returned mask
 * tells. */
#include <stdint.h>
#include "cpu.h"
#include "warp_impl.h"

#if AUG__X86
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))

/* The taps of lane l of row q, tap u: p[l] + q * sh + u * sw, as 4 doubles. */
#define LOAD_U8(p, o) _mm256_cvtepi32_pd(_mm_setr_epi32(*(const uint8_t *)((p)[0] + (o)), \
                                                        *(const uint8_t *)((p)[1] + (o)), \
                                                        *(const uint8_t *)((p)[2] + (o)), \
                                                        *(const uint8_t *)((p)[3] + (o))))
#define LOAD_F32(p, o) _mm256_cvtps_pd(_mm_setr_ps(*(const float *)((p)[0] + (o)), *(const float *)((p)[1] + (o)), \
                                                   *(const float *)((p)[2] + (o)), *(const float *)((p)[3] + (o))))

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
    *ok = _mm256_and_pd(*ok, _mm256_and_pd(_mm256_cmp_pd(v, lo, _CMP_GE_OQ),
                                           _mm256_cmp_pd(v, _mm256_set1_pd(p), _CMP_LT_OQ)));
    return v;
}

#define DEF_ROW(NAME, LOAD)                                                                                            \
    AVX2 static uint64_t NAME(const warp_img *im, int64_t y, int j, int64_t x0, int i, int cw, int64_t c0, int cn,    \
                              double *acc) {                                                                           \
        const double *m = im->m;                                                                                       \
        const double Y = (double)y + warp_sample_offset(im, j);                                                        \
        const __m256d di = _mm256_set1_pd(warp_sample_offset(im, i));                                                 \
        const __m256d m0 = _mm256_set1_pd(m[0]), m3 = _mm256_set1_pd(m[3]), m6 = _mm256_set1_pd(m[6]);                \
        const __m256d bx = _mm256_set1_pd(aug__warp_rowterm(m[1], Y, m[2]));                                          \
        const __m256d by = _mm256_set1_pd(aug__warp_rowterm(m[4], Y, m[5]));                                          \
        const __m256d bw = _mm256_set1_pd(aug__warp_rowterm(m[7], Y, m[8]));                                          \
        const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1.0);                                           \
        const __m256d hx = _mm256_set1_pd((double)im->W - 2.0), hy = _mm256_set1_pd((double)im->H - 2.0);             \
        const __m128i sh = _mm_set1_epi32((int32_t)im->sh), sw = _mm_set1_epi32((int32_t)im->sw);                     \
        const int64_t rs = im->sh, ts = im->sw;                                                                        \
        const int32_t xs = (int32_t)x0;                                                                                \
        uint64_t done = 0;                                                                                             \
        for (int k = 0; k + 4 <= cw; k += 4) {                                                                         \
            const __m256d X = _mm256_add_pd(_mm256_cvtepi32_pd(_mm_add_epi32(_mm_set1_epi32(xs + k),                  \
                                                                             _mm_setr_epi32(0, 1, 2, 3))), di);       \
            __m256d u = _mm256_add_pd(_mm256_mul_pd(m0, X), bx), v = _mm256_add_pd(_mm256_mul_pd(m3, X), by);          \
            __m256d ok = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));                                                  \
            if (im->projective) {                                                                                      \
                const __m256d w = _mm256_add_pd(_mm256_mul_pd(m6, X), bw);                                             \
                ok = _mm256_cmp_pd(w, zero, _CMP_GT_OQ);                                                               \
                u = _mm256_div_pd(u, w), v = _mm256_div_pd(v, w);                                                      \
                ok = _mm256_and_pd(ok, _mm256_cmp_pd(_mm256_sub_pd(u, u), zero, _CMP_EQ_OQ));                          \
                ok = _mm256_and_pd(ok, _mm256_cmp_pd(_mm256_sub_pd(v, v), zero, _CMP_EQ_OQ));                          \
            }                                                                                                          \
            const __m256d sx = bound4(u, im->W, im->border, &ok), sy = bound4(v, im->H, im->border, &ok);             \
            /* floor (+ 0 makes -0 the scalar kernel's +0); every tap inside: 1 <= floor <= side - 3 */               \
            const __m256d fx = _mm256_add_pd(_mm256_floor_pd(sx), zero), fy = _mm256_add_pd(_mm256_floor_pd(sy), zero); \
            ok = _mm256_and_pd(ok, _mm256_and_pd(_mm256_cmp_pd(fx, one, _CMP_GE_OQ), _mm256_cmp_pd(fx, hx, _CMP_LT_OQ))); \
            ok = _mm256_and_pd(ok, _mm256_and_pd(_mm256_cmp_pd(fy, one, _CMP_GE_OQ), _mm256_cmp_pd(fy, hy, _CMP_LT_OQ))); \
            if (_mm256_movemask_pd(ok) != 15) continue;                                                                \
            __m256d wx[4], wy[4];                                                                                      \
            weights4(_mm256_sub_pd(sx, fx), wx);                                                                       \
            weights4(_mm256_sub_pd(sy, fy), wy);                                                                       \
            const __m128i ix = _mm_sub_epi32(_mm256_cvttpd_epi32(fx), _mm_set1_epi32(1));                              \
            const __m128i iy = _mm_sub_epi32(_mm256_cvttpd_epi32(fy), _mm_set1_epi32(1));                              \
            int32_t off[4];                                                                                            \
            _mm_storeu_si128((__m128i *)off, _mm_add_epi32(_mm_mullo_epi32(iy, sh), _mm_mullo_epi32(ix, sw)));        \
            for (int c = 0; c < cn; c++) {                                                                             \
                const char *base = im->base + (c0 + c) * im->sc;                                                       \
                const char *p[4] = {base + off[0], base + off[1], base + off[2], base + off[3]};                       \
                __m256d r[4];                                                                                          \
                for (int q = 0; q < 4; q++) {                                                                          \
                    const int64_t o = q * rs;                                                                          \
                    r[q] = dot4(wx, LOAD(p, o), LOAD(p, o + ts), LOAD(p, o + 2 * ts), LOAD(p, o + 3 * ts));            \
                }                                                                                                      \
                double *a = acc + c * CHUNK + k;                                                                       \
                _mm256_storeu_pd(a, _mm256_add_pd(_mm256_loadu_pd(a), dot4(wy, r[0], r[1], r[2], r[3])));              \
            }                                                                                                          \
            done |= (uint64_t)15 << k;                                                                                 \
        }                                                                                                              \
        return done;                                                                                                   \
    }
DEF_ROW(row_u8, LOAD_U8)
DEF_ROW(row_f32, LOAD_F32)

uint64_t aug__warp_cubic_row_avx2(const warp_img *im, int64_t y, int j, int64_t x0, int i, int cw, int64_t c0, int cn,
                                  double *acc) {
    return im->dtype == AUG_UINT8 ? row_u8(im, y, j, x0, i, cw, c0, cn, acc)
                                  : row_f32(im, y, j, x0, i, cw, c0, cn, acc);
}

int aug__warp_cubic_avx2_ok(const warp_img *im, int64_t Wt) {
    /* the tap offsets (iy - 1) sh + (ix - 1) sw in int32 */
    const int64_t span = (im->H < 0 ? 0 : im->H) * (im->sh < 0 ? -im->sh : im->sh) +
                         (im->W < 0 ? 0 : im->W) * (im->sw < 0 ? -im->sw : im->sw);
    return (im->dtype == AUG_UINT8 || im->dtype == AUG_FLOAT32) && span < INT32_MAX / 2 && im->W < INT32_MAX / 2 &&
           im->H < INT32_MAX / 2 && Wt < INT32_MAX - 64;
}
#endif
