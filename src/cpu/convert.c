/* cpu/convert.c: aug__convert, the CPU's saturating conversion of runs between
 * any two of the 14 compute types (semantics §2), aug__convert_ieee (float
 * results rounded to their dtype as IEEE does, §7), and aug_cast_run.
 *
 * The per-element rule is scalar/cast.h's (shared with the CUDA backend). Here it
 * is instantiated as one tight loop per (source, destination) pair, generated
 * from the ctype list, with a contiguous fast path; range tests that cannot fail
 * for a pair fold away, so the loops vectorise. float32/float64 -> 8/16/32-bit
 * integers also have SSE2 and AVX2 paths (AVX2 chosen at run time, cpu/simd.h),
 * checked against the portable ones by the tests. */
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "cpu/convert.h"
#include "cpu/simd.h"
#if AUG__X86
#include <immintrin.h>
#endif

typedef void (*run_fn)(const char *src, int64_t ss, char *dst, int64_t ds, int64_t n);

/* memcpy loads and stores: runs need not be aligned; compilers turn them into
 * plain (vector) moves. */
#define DEF_RUN(S, D)                                                                            \
    static void run_##S##_##D(const char *src, int64_t ss, char *dst, int64_t ds, int64_t n) {   \
        const int64_t sz_s = (int64_t)sizeof(AUG__CT_T(S)), sz_d = (int64_t)sizeof(AUG__CT_T(D)); \
        if (ss == sz_s && ds == sz_d) {                                                          \
            for (int64_t i = 0; i < n; i++) {                                                    \
                AUG__CT_T(S) x;                                                                  \
                memcpy(&x, src + i * sz_s, sizeof x);                                            \
                AUG__CT_T(D) y = AUG__CV(S, D, x);                                               \
                memcpy(dst + i * sz_d, &y, sizeof y);                                            \
            }                                                                                    \
        } else {                                                                                 \
            for (int64_t i = 0; i < n; i++, src += ss, dst += ds) {                              \
                AUG__CT_T(S) x;                                                                  \
                memcpy(&x, src, sizeof x);                                                       \
                AUG__CT_T(D) y = AUG__CV(S, D, x);                                               \
                memcpy(dst, &y, sizeof y);                                                       \
            }                                                                                    \
        }                                                                                        \
    }
#define DEF_ROW(S) AUG__CTYPE_LIST_WITH(DEF_RUN, S)
AUG__CTYPE_LIST(DEF_ROW)

#define RUN_ENTRY(S, D) run_##S##_##D,
#define RUN_ROW(S) {AUG__CTYPE_LIST_WITH(RUN_ENTRY, S)},
static const run_fn run_table[AUG__NUM_CTYPES][AUG__NUM_CTYPES] = {AUG__CTYPE_LIST(RUN_ROW)};

/* ---- SSE2: float32/float64 -> 8/16/32-bit integers -------------------------------
 * NaN -> 0 and clamping in float, then cvtps2dq/cvtpd2dq round half to even under
 * the default MXCSR, and the packs are exact because the values are in range.
 * sse_to_int returns how many leading elements it converted; the portable loop
 * does the rest (and is what the tests compare these paths against). */
#ifdef __SSE2__
/* Four float32 / float64 at p as int32: NaN -> 0, clamped to [lo, hi], rounded. */
static inline __m128i sse_load4_f32(const char *p, double lo, double hi) {
    __m128 v = _mm_loadu_ps((const float *)(const void *)p);
    v = _mm_and_ps(v, _mm_cmpord_ps(v, v));
    v = _mm_min_ps(_mm_max_ps(v, _mm_set1_ps((float)lo)), _mm_set1_ps((float)hi)); /* bounds exact */
    return _mm_cvtps_epi32(v);
}
static inline __m128i sse_load4_f64(const char *p, double lo, double hi) {
    const __m128d l = _mm_set1_pd(lo), h = _mm_set1_pd(hi);
    __m128d a = _mm_loadu_pd((const double *)(const void *)p);
    __m128d b = _mm_loadu_pd((const double *)(const void *)(p + 16));
    a = _mm_min_pd(_mm_max_pd(_mm_and_pd(a, _mm_cmpord_pd(a, a)), l), h);
    b = _mm_min_pd(_mm_max_pd(_mm_and_pd(b, _mm_cmpord_pd(b, b)), l), h);
    return _mm_unpacklo_epi64(_mm_cvtpd_epi32(a), _mm_cvtpd_epi32(b));
}

#define SSE_TO_INT_LOOPS(LOAD4, ES)                                                                 \
    switch (dst_t) {                                                                                \
    case AUG_UINT8:                                                                                 \
    case AUG_INT8: {                                                                                \
        const double lo = dst_t == AUG_UINT8 ? 0.0 : -128.0, hi = dst_t == AUG_UINT8 ? 255.0 : 127.0; \
        for (; i + 16 <= n; i += 16) {                                                              \
            __m128i a = _mm_packs_epi32(LOAD4(src + ES * i, lo, hi), LOAD4(src + ES * (i + 4), lo, hi)); \
            __m128i b = _mm_packs_epi32(LOAD4(src + ES * (i + 8), lo, hi),                          \
                                        LOAD4(src + ES * (i + 12), lo, hi));                        \
            __m128i p = dst_t == AUG_UINT8 ? _mm_packus_epi16(a, b) : _mm_packs_epi16(a, b);        \
            _mm_storeu_si128((__m128i *)(void *)(dst + i), p);                                      \
        }                                                                                           \
        break;                                                                                      \
    }                                                                                               \
    case AUG_UINT16: {                                                                              \
        const double lo = 0.0, hi = 65535.0;                                                        \
        for (; i + 8 <= n; i += 8) {                                                                \
            /* no unsigned 32->16 pack in SSE2: sign-extend the low halves, then packs is exact */ \
            __m128i a = LOAD4(src + ES * i, lo, hi), b = LOAD4(src + ES * (i + 4), lo, hi);         \
            a = _mm_srai_epi32(_mm_slli_epi32(a, 16), 16);                                          \
            b = _mm_srai_epi32(_mm_slli_epi32(b, 16), 16);                                          \
            _mm_storeu_si128((__m128i *)(void *)(dst + 2 * i), _mm_packs_epi32(a, b));              \
        }                                                                                           \
        break;                                                                                      \
    }                                                                                               \
    case AUG_INT16: {                                                                               \
        const double lo = -32768.0, hi = 32767.0;                                                   \
        for (; i + 8 <= n; i += 8) {                                                                \
            __m128i a = LOAD4(src + ES * i, lo, hi), b = LOAD4(src + ES * (i + 4), lo, hi);         \
            _mm_storeu_si128((__m128i *)(void *)(dst + 2 * i), _mm_packs_epi32(a, b));              \
        }                                                                                           \
        break;                                                                                      \
    }                                                                                               \
    default:                                                                                        \
        break;                                                                                      \
    }

static int64_t sse_to_int(const char *src, int src_t, char *dst, int dst_t, int64_t n) {
    int64_t i = 0;
    if (src_t == AUG_FLOAT32) {
        if (dst_t == AUG_INT32) {
            /* 2^31 - 1 is not a float: out of range converts to 0x80000000, right for
             * <= -2^31; flipping the bits where v >= 2^31 gives INT32_MAX */
            const __m128 two31 = _mm_set1_ps(0x1p31f);
            for (; i + 4 <= n; i += 4) {
                __m128 v = _mm_loadu_ps((const float *)(const void *)(src + 4 * i));
                v = _mm_and_ps(v, _mm_cmpord_ps(v, v));
                __m128i r = _mm_xor_si128(_mm_cvtps_epi32(v), _mm_castps_si128(_mm_cmpge_ps(v, two31)));
                _mm_storeu_si128((__m128i *)(void *)(dst + 4 * i), r);
            }
            return i;
        }
        SSE_TO_INT_LOOPS(sse_load4_f32, 4)
    } else if (src_t == AUG_FLOAT64) {
        if (dst_t == AUG_INT32) {
            for (; i + 4 <= n; i += 4) {
                __m128i r = sse_load4_f64(src + 8 * i, -0x1p31, 0x1p31 - 1); /* both exact in double */
                _mm_storeu_si128((__m128i *)(void *)(dst + 4 * i), r);
            }
            return i;
        }
        SSE_TO_INT_LOOPS(sse_load4_f64, 8)
    }
    return i;
}
#endif

/* ---- AVX2: the same conversions, 8 int32 per vector ------------------------------
 * The same NaN mask, clamps, cvtps2dq/cvtpd2dq (MXCSR rounding, as SSE2) and
 * saturating packs as the SSE2 path on wider vectors, so the results are identical.
 * AVX2 packs work within each 128-bit half, which interleaves 4-element groups: a
 * cross-lane permute puts them back in order before each store. */
#if AUG__X86
#define AVX2_FN __attribute__((target("avx2"))) static inline
AVX2_FN __m256 avx_clamp_ps(__m256 v, double lo, double hi) {
    v = _mm256_and_ps(v, _mm256_cmp_ps(v, v, _CMP_ORD_Q)); /* NaN -> 0 */
    return _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps((float)lo)), _mm256_set1_ps((float)hi));
}
AVX2_FN __m256d avx_clamp_pd(__m256d v, double lo, double hi) {
    v = _mm256_and_pd(v, _mm256_cmp_pd(v, v, _CMP_ORD_Q));
    return _mm256_min_pd(_mm256_max_pd(v, _mm256_set1_pd(lo)), _mm256_set1_pd(hi));
}
/* Eight float32 / float64 at p as int32: NaN -> 0, clamped to [lo, hi], rounded. */
AVX2_FN __m256i avx_load8_f32(const char *p, double lo, double hi) {
    return _mm256_cvtps_epi32(avx_clamp_ps(_mm256_loadu_ps((const float *)(const void *)p), lo, hi));
}
AVX2_FN __m256i avx_load8_f64(const char *p, double lo, double hi) {
    const double *d = (const double *)(const void *)p;
    __m128i a = _mm256_cvtpd_epi32(avx_clamp_pd(_mm256_loadu_pd(d), lo, hi));
    __m128i b = _mm256_cvtpd_epi32(avx_clamp_pd(_mm256_loadu_pd(d + 4), lo, hi));
    return _mm256_inserti128_si256(_mm256_castsi128_si256(a), b, 1);
}

/* For 8-bit results, elements e0..e31 in int32 vectors A..D: packs(A, B) is
 * [A0-3 B0-3 | A4-7 B4-7], the byte pack [A0-3 B0-3 C0-3 D0-3 | A4-7 B4-7 C4-7 D4-7],
 * so its dwords 0,4,1,5,2,6,3,7 are e0..e31. For 16-bit ones, the quadwords 0,2,1,3
 * of [A0-3 B0-3 | A4-7 B4-7] (0xd8); AVX2 has the unsigned 32->16 pack SSE2 lacks. */
#define AVX_TO_INT_LOOPS(LOAD8, ES)                                                              \
    switch (dst_t) {                                                                             \
    case AUG_UINT8:                                                                              \
    case AUG_INT8: {                                                                             \
        const int u = dst_t == AUG_UINT8;                                                        \
        const double lo = u ? 0.0 : -128.0, hi = u ? 255.0 : 127.0;                              \
        const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);                         \
        for (; i + 32 <= n; i += 32) {                                                           \
            const char *q = src + ES * i;                                                        \
            __m256i a = _mm256_packs_epi32(LOAD8(q, lo, hi), LOAD8(q + ES * 8, lo, hi));         \
            __m256i b = _mm256_packs_epi32(LOAD8(q + ES * 16, lo, hi), LOAD8(q + ES * 24, lo, hi)); \
            __m256i p = u ? _mm256_packus_epi16(a, b) : _mm256_packs_epi16(a, b);                \
            _mm256_storeu_si256((__m256i *)(void *)(dst + i), _mm256_permutevar8x32_epi32(p, order)); \
        }                                                                                        \
        break;                                                                                   \
    }                                                                                            \
    case AUG_UINT16:                                                                             \
    case AUG_INT16: {                                                                            \
        const int u = dst_t == AUG_UINT16;                                                       \
        const double lo = u ? 0.0 : -32768.0, hi = u ? 65535.0 : 32767.0;                        \
        for (; i + 16 <= n; i += 16) {                                                           \
            __m256i a = LOAD8(src + ES * i, lo, hi), b = LOAD8(src + ES * (i + 8), lo, hi);      \
            __m256i p = u ? _mm256_packus_epi32(a, b) : _mm256_packs_epi32(a, b);                \
            _mm256_storeu_si256((__m256i *)(void *)(dst + 2 * i), _mm256_permute4x64_epi64(p, 0xd8)); \
        }                                                                                        \
        break;                                                                                   \
    }                                                                                            \
    default:                                                                                     \
        break;                                                                                   \
    }

__attribute__((target("avx2"))) static int64_t avx_to_int(const char *src, int src_t, char *dst, int dst_t,
                                                          int64_t n) {
    int64_t i = 0;
    if (src_t == AUG_FLOAT32) {
        if (dst_t == AUG_INT32) { /* as in sse_to_int: flip cvtps2dq's INT32_MIN where v >= 2^31 */
            const __m256 two31 = _mm256_set1_ps(0x1p31f);
            for (; i + 8 <= n; i += 8) {
                __m256 v = _mm256_loadu_ps((const float *)(const void *)(src + 4 * i));
                v = _mm256_and_ps(v, _mm256_cmp_ps(v, v, _CMP_ORD_Q));
                __m256i big = _mm256_castps_si256(_mm256_cmp_ps(v, two31, _CMP_GE_OQ));
                __m256i r = _mm256_xor_si256(_mm256_cvtps_epi32(v), big);
                _mm256_storeu_si256((__m256i *)(void *)(dst + 4 * i), r);
            }
            return i;
        }
        AVX_TO_INT_LOOPS(avx_load8_f32, 4)
    } else if (src_t == AUG_FLOAT64) {
        if (dst_t == AUG_INT32) {
            for (; i + 8 <= n; i += 8) {
                __m256i r = avx_load8_f64(src + 8 * i, -0x1p31, 0x1p31 - 1); /* both exact in double */
                _mm256_storeu_si256((__m256i *)(void *)(dst + 4 * i), r);
            }
            return i;
        }
        AVX_TO_INT_LOOPS(avx_load8_f64, 8)
    }
    return i;
}
#undef AVX2_FN
#undef AVX_TO_INT_LOOPS
#endif

/* AVX2 for whole vectors, SSE2 for what is left of 16-element blocks, then the
 * portable loop. */
void aug__convert_contig(const char *src, int src_t, char *dst, int dst_t, int64_t n, int level) {
    const int64_t ss = aug__ctype_size(src_t), ds = aug__ctype_size(dst_t);
    int64_t done = 0;
#if AUG__X86
    if (level >= AUG__SIMD_AVX2) done = avx_to_int(src, src_t, dst, dst_t, n);
#endif
#ifdef __SSE2__
    if (level >= AUG__SIMD_SSE2) done += sse_to_int(src + done * ss, src_t, dst + done * ds, dst_t, n - done);
#endif
    (void)level;
    if (done < n) run_table[src_t][dst_t](src + done * ss, ss, dst + done * ds, ds, n - done);
}

/* ---- same-type copies ------------------------------------------------------ */

static void copy_run(const char *src, int64_t ss, char *dst, int64_t ds, int64_t n, int size) {
    if (ss == size && ds == size) {
        memmove(dst, src, (size_t)n * (size_t)size);
        return;
    }
    switch (size) {
#define COPY_CASE(SZ, TY)                                                   \
    case SZ:                                                                \
        for (int64_t i = 0; i < n; i++, src += ss, dst += ds) {             \
            TY t;                                                           \
            memcpy(&t, src, sizeof t);                                      \
            memcpy(dst, &t, sizeof t);                                      \
        }                                                                   \
        break;
        COPY_CASE(1, uint8_t)
        COPY_CASE(2, uint16_t)
        COPY_CASE(4, uint32_t)
        COPY_CASE(8, uint64_t)
        COPY_CASE(16, aug__u128)
#undef COPY_CASE
    default:
        break;
    }
}

void aug__convert(const char *src, int64_t src_stride, int src_t, char *dst, int64_t dst_stride, int dst_t,
                  int64_t n) {
    if (n <= 0 || src_t < 0 || src_t >= AUG__NUM_CTYPES || dst_t < 0 || dst_t >= AUG__NUM_CTYPES) return;
    if (src_t == dst_t) {
        copy_run(src, src_stride, dst, dst_stride, n, aug__ctype_size(src_t));
        return;
    }
    if ((src_t == AUG_FLOAT32 || src_t == AUG_FLOAT64) && src_stride == aug__ctype_size(src_t) &&
        dst_stride == aug__ctype_size(dst_t)) {
        aug__convert_contig(src, src_t, dst, dst_t, n, aug__simd_level());
        return;
    }
    run_table[src_t][dst_t](src, src_stride, dst, dst_stride, n);
}

/* ---- IEEE narrowing of float results (scalar/cast.h) ------------------------------ */

#define DEF_IEEE_RUN(NAME, ST, DT, FN)                                                          \
    static void NAME(const char *src, int64_t ss, char *dst, int64_t ds, int64_t n) {            \
        if (ss == (int64_t)sizeof(ST) && ds == (int64_t)sizeof(DT)) {                            \
            for (int64_t i = 0; i < n; i++) {                                                    \
                ST x;                                                                            \
                memcpy(&x, src + i * (int64_t)sizeof(ST), sizeof x);                             \
                DT y = FN(x);                                                                    \
                memcpy(dst + i * (int64_t)sizeof(DT), &y, sizeof y);                             \
            }                                                                                    \
        } else {                                                                                 \
            for (int64_t i = 0; i < n; i++, src += ss, dst += ds) {                              \
                ST x;                                                                            \
                memcpy(&x, src, sizeof x);                                                       \
                DT y = FN(x);                                                                    \
                memcpy(dst, &y, sizeof y);                                                       \
            }                                                                                    \
        }                                                                                        \
    }
static inline float f64_to_f32_ieee(double x) { return (float)x; }
DEF_IEEE_RUN(ieee_f32_f16, float, uint16_t, aug__f32_to_f16_ieee)
DEF_IEEE_RUN(ieee_f32_bf16, float, uint16_t, aug__f32_to_bf16_ieee)
DEF_IEEE_RUN(ieee_f64_f16, double, uint16_t, aug__f64_to_f16_ieee)
DEF_IEEE_RUN(ieee_f64_bf16, double, uint16_t, aug__f64_to_bf16_ieee)
DEF_IEEE_RUN(ieee_f64_f32, double, float, f64_to_f32_ieee)
#undef DEF_IEEE_RUN

void aug__convert_ieee(const char *src, int64_t src_stride, int src_t, char *dst, int64_t dst_stride, int dst_t,
                       int64_t n) {
    run_fn f = NULL;
    if (src_t == AUG__CT_FLOAT32)
        f = dst_t == AUG__CT_FLOAT16 ? ieee_f32_f16 : dst_t == AUG__CT_BFLOAT16 ? ieee_f32_bf16 : NULL;
    else if (src_t == AUG__CT_FLOAT64)
        f = dst_t == AUG__CT_FLOAT16    ? ieee_f64_f16
            : dst_t == AUG__CT_BFLOAT16 ? ieee_f64_bf16
            : dst_t == AUG__CT_FLOAT32  ? ieee_f64_f32
                                        : NULL;
    if (!f || n <= 0) {
        aug__convert(src, src_stride, src_t, dst, dst_stride, dst_t, n);
        return;
    }
    f(src, src_stride, dst, dst_stride, n);
}

aug_status aug_cast_run(const void *src, int64_t src_stride, aug_dtype src_t, void *dst, int64_t dst_stride,
                        aug_dtype dst_t, int64_t n) {
    static const char fn[] = "aug_cast_run";
    if (!aug_dtype_is_valid(src_t)) return aug__error(AUG_ERR_TYPE, fn, "invalid source dtype %d", (int)src_t);
    if (!aug_dtype_is_valid(dst_t))
        return aug__error(AUG_ERR_TYPE, fn, "invalid destination dtype %d", (int)dst_t);
    if (n < 0) return aug__error(AUG_ERR_VALUE, fn, "n must be >= 0, got %lld", (long long)n);
    if (n == 0) return AUG_OK;
    if (!src) return aug__error(AUG_ERR_VALUE, fn, "src is NULL");
    if (!dst) return aug__error(AUG_ERR_VALUE, fn, "dst is NULL");
    aug__convert(src, src_stride, (int)src_t, dst, dst_stride, (int)dst_t, n);
    return AUG_OK;
}

