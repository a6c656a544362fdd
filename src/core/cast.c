/* core/cast.c: aug__convert, the one saturating conversion between any two of the
 * 14 compute types (the 13 dtypes and AUG__I128), and the element helpers built on
 * it (SPEC 2).
 *
 * Every source value is first loaded into one of five intermediates that hold it
 * exactly: int64 (bool, int8..int64, uint8..uint32), uint64, i128, float (float16,
 * bfloat16, float32) or double. A small function per (intermediate, destination
 * class) then rounds and saturates it. The 196 (source, destination) pairs are
 * generated from one list as tight loops with a contiguous fast path; range tests
 * that cannot fail for a pair are compile-time constants and fold away, so the
 * loops vectorise. float32/float64 -> 8/16/32-bit integers also have SSE2 and AVX2
 * paths (AVX2 chosen at run time, core/simd.h), checked against the portable ones
 * by the tests. */
#include <float.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "ctype.h"
#include "simd.h"
#if AUG__X86
#include <immintrin.h>
#endif

typedef aug__i128 q_t;

/* ---- wide integers -> floats ------------------------------------------------ */

/* Compresses a magnitude to at most `bits` significant bits, OR-ing every dropped
 * bit into the lowest kept one ("round to odd"): *k * 2^*s then rounds to any
 * precision of at most bits - 2 exactly as m itself would, so a following float
 * conversion rounds only once. */
static inline uint64_t odd_compress(aug__u128 m, int bits, int *s) {
    uint64_t hi = (uint64_t)(m >> 64), lo = (uint64_t)m;
    int len = hi ? 128 - __builtin_clzll(hi) : (lo ? 64 - __builtin_clzll(lo) : 0);
    int shift = len > bits ? len - bits : 0;
    *s = shift;
    if (shift == 0) return lo;
    aug__u128 dropped = m & ((((aug__u128)1) << shift) - 1);
    return (uint64_t)(m >> shift) | (dropped != 0);
}

static inline float pow2f(int s) { return aug__bits_f32((uint32_t)(127 + s) << 23); } /* 0 <= s <= 127 */
static inline double pow2d(int s) {
    uint64_t w = (uint64_t)(1023 + s) << 52;
    double d;
    memcpy(&d, &w, sizeof d);
    return d;
}

/* bfloat16 keeps 8 significant bits; a 24-bit round-to-odd value is exact in float32. */
static inline uint16_t bf16_from_mag(aug__u128 m, int neg) {
    int s;
    uint64_t k = odd_compress(m, 24, &s);
    float f = (float)k * pow2f(s);
    return aug__f32_to_bf16(neg ? -f : f);
}

/* ---- converters: cvk_<intermediate>_<destination class> --------------------------
 * Intermediates: L int64, U uint64, Q i128, F float, D double. Destination
 * classes: B bool, I integer whose range fits int64 (all but uint64), U64, Q i128,
 * H float16, BH bfloat16, F float32, D float64. smin/smax are the source range,
 * dmin/dmax the destination range (integer classes only), all constants. */

#define RANGE q_t smin, q_t smax, q_t dmin, q_t dmax
#define UNUSED_RANGE (void)smin, (void)smax, (void)dmin, (void)dmax

static inline uint8_t cvk_L_B(int64_t v, RANGE) { UNUSED_RANGE; return v != 0; }
static inline int64_t cvk_L_I(int64_t v, RANGE) {
    /* when smin < dmin, dmin lies inside the source range (dmin <= 0 < smax), so
     * the comparisons are in the source's own type */
    if (smin < dmin && v < (int64_t)dmin) return (int64_t)dmin;
    if (smax > dmax && v > (int64_t)dmax) return (int64_t)dmax;
    return v;
}
static inline uint64_t cvk_L_U64(int64_t v, RANGE) { UNUSED_RANGE; return v < 0 ? 0 : (uint64_t)v; }
static inline q_t cvk_L_Q(int64_t v, RANGE) { UNUSED_RANGE; return v; }
static inline uint16_t cvk_L_H(int64_t v, RANGE) {
    (void)dmin, (void)dmax;
    /* |v| >= 65520 rounds beyond 65504 and saturates; clamping there keeps the value
     * exact in float32 (below 2^24), so only the float16 rounding remains */
    if (smin < -65520 && v < -65520) v = -65520;
    if (smax > 65520 && v > 65520) v = 65520;
    return aug__f32_to_f16((float)(int32_t)v);
}
static inline uint16_t cvk_L_BH(int64_t v, RANGE) {
    (void)dmin, (void)dmax;
    if (smin >= -(1 << 24) && smax <= (1 << 24)) return aug__f32_to_bf16((float)(int32_t)v); /* exact */
    return bf16_from_mag(v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0);
}
/* int64/uint64 -> float/double: the C conversion rounds once, to nearest even
 * (IEEE / C11 Annex F; GCC's uint64 sequence keeps a sticky bit). Sources that fit
 * int32 convert from int32, which vectorises. */
#define FITS_I32 (smin >= INT32_MIN && smax <= INT32_MAX)
static inline float cvk_L_F(int64_t v, RANGE) {
    (void)dmin, (void)dmax;
    return FITS_I32 ? (float)(int32_t)v : (float)v;
}
static inline double cvk_L_D(int64_t v, RANGE) {
    (void)dmin, (void)dmax;
    return FITS_I32 ? (double)(int32_t)v : (double)v;
}

static inline uint8_t cvk_U_B(uint64_t v, RANGE) { UNUSED_RANGE; return v != 0; }
static inline int64_t cvk_U_I(uint64_t v, RANGE) {
    (void)smin, (void)smax, (void)dmin;
    return v > (uint64_t)dmax ? (int64_t)dmax : (int64_t)v;
}
static inline uint64_t cvk_U_U64(uint64_t v, RANGE) { UNUSED_RANGE; return v; }
static inline q_t cvk_U_Q(uint64_t v, RANGE) { UNUSED_RANGE; return (q_t)v; }
static inline uint16_t cvk_U_H(uint64_t v, RANGE) {
    UNUSED_RANGE;
    return aug__f32_to_f16((float)(v > 65520 ? 65520 : v));
}
static inline uint16_t cvk_U_BH(uint64_t v, RANGE) { UNUSED_RANGE; return bf16_from_mag(v, 0); }
static inline float cvk_U_F(uint64_t v, RANGE) { UNUSED_RANGE; return (float)v; }
static inline double cvk_U_D(uint64_t v, RANGE) { UNUSED_RANGE; return (double)v; }

static inline uint8_t cvk_Q_B(q_t v, RANGE) { UNUSED_RANGE; return v != 0; }
static inline int64_t cvk_Q_I(q_t v, RANGE) {
    (void)smin, (void)smax;
    return (int64_t)aug__clamp_i128(v, dmin, dmax);
}
static inline uint64_t cvk_Q_U64(q_t v, RANGE) { UNUSED_RANGE; return aug__sat_u64(v); }
static inline q_t cvk_Q_Q(q_t v, RANGE) { UNUSED_RANGE; return v; }
static inline uint16_t cvk_Q_H(q_t v, RANGE) {
    UNUSED_RANGE;
    return aug__f32_to_f16((float)(int32_t)aug__clamp_i128(v, -65520, 65520));
}
static inline uint16_t cvk_Q_BH(q_t v, RANGE) {
    UNUSED_RANGE;
    return bf16_from_mag(v < 0 ? -(aug__u128)v : (aug__u128)v, v < 0);
}
/* 62-bit round-to-odd, then one rounding by the int64 conversion; the power-of-two
 * scale is exact (|v| < 2^127 stays below FLT_MAX). */
static inline float cvk_Q_F(q_t v, RANGE) {
    UNUSED_RANGE;
    int s;
    uint64_t k = odd_compress(v < 0 ? -(aug__u128)v : (aug__u128)v, 62, &s);
    float f = (float)(int64_t)k * pow2f(s);
    return v < 0 ? -f : f;
}
static inline double cvk_Q_D(q_t v, RANGE) {
    UNUSED_RANGE;
    int s;
    uint64_t k = odd_compress(v < 0 ? -(aug__u128)v : (aug__u128)v, 62, &s);
    double f = (double)(int64_t)k * pow2d(s);
    return v < 0 ? -f : f;
}

/* double -> integer: NaN -> 0, then clamp and round half to even. Ranges up to
 * 32 bits are exact in double, so clamping comes first (vectorisable); 64-bit and
 * wider ranges test against the exact power of two above the maximum. */
static inline int64_t cvk_D_I(double v, RANGE) {
    (void)smin, (void)smax;
    if (dmax <= INT32_MAX) { /* int32 conversion vectorises, int64 does not (SSE2) */
        v = v == v ? v : 0.0;
        v = v < (double)dmin ? (double)dmin : v;
        v = v > (double)dmax ? (double)dmax : v;
        return (int32_t)aug__rne_f64(v);
    }
    if (dmax < ((q_t)1 << 53)) {
        v = v == v ? v : 0.0;
        v = v < (double)dmin ? (double)dmin : v;
        v = v > (double)dmax ? (double)dmax : v;
        return (int64_t)aug__rne_f64(v);
    }
    if (v != v) return 0;
    if (v >= 0x1p63) return INT64_MAX;
    if (v <= -0x1p63) return INT64_MIN;
    return (int64_t)aug__rne_f64(v);
}
static inline uint64_t cvk_D_U64(double v, RANGE) {
    UNUSED_RANGE;
    if (!(v > 0)) return 0; /* NaN, negative, zero */
    if (v >= 0x1p64) return UINT64_MAX;
    return (uint64_t)aug__rne_f64(v);
}
static inline q_t cvk_D_Q(double v, RANGE) {
    UNUSED_RANGE;
    if (v != v) return 0;
    if (v >= 0x1p127) return AUG__I128_MAX;
    if (v <= -0x1p127) return AUG__I128_MIN;
    return (q_t)aug__rne_f64(v);
}
static inline uint8_t cvk_D_B(double v, RANGE) { UNUSED_RANGE; return v != 0; } /* NaN -> 1 */
static inline uint16_t cvk_D_H(double v, RANGE) { UNUSED_RANGE; return aug_f64_to_f16(v); }
static inline uint16_t cvk_D_BH(double v, RANGE) { UNUSED_RANGE; return aug_f64_to_bf16(v); }
static inline float cvk_D_F(double v, RANGE) {
    UNUSED_RANGE;
    double a = fabs(v);
    if (a > FLT_MAX && a != INFINITY) v = copysign(FLT_MAX, v); /* saturate, not inf */
    return (float)v;
}
static inline double cvk_D_D(double v, RANGE) { UNUSED_RANGE; return v; }

/* float -> integer: ranges within +-2^22 clamp and round in float32 (the magic-
 * number rounding is valid there); wider ones go through double, which is exact. */
static inline int64_t cvk_F_I(float v, RANGE) {
    if (dmin >= -(1 << 22) && dmax <= (1 << 22)) {
        v = v == v ? v : 0.0f;
        v = v < (float)dmin ? (float)dmin : v;
        v = v > (float)dmax ? (float)dmax : v;
        return (int32_t)aug__rne_f32(v);
    }
    return cvk_D_I(v, smin, smax, dmin, dmax);
}
static inline uint8_t cvk_F_B(float v, RANGE) { UNUSED_RANGE; return v != 0; }
static inline uint64_t cvk_F_U64(float v, RANGE) { return cvk_D_U64(v, smin, smax, dmin, dmax); }
static inline q_t cvk_F_Q(float v, RANGE) { return cvk_D_Q(v, smin, smax, dmin, dmax); }
static inline uint16_t cvk_F_H(float v, RANGE) { UNUSED_RANGE; return aug__f32_to_f16(v); }
static inline uint16_t cvk_F_BH(float v, RANGE) { UNUSED_RANGE; return aug__f32_to_bf16(v); }
static inline float cvk_F_F(float v, RANGE) { UNUSED_RANGE; return v; }
static inline double cvk_F_D(float v, RANGE) { UNUSED_RANGE; return v; }

/* ---- the ctype list ------------------------------------------------------------
 * Per ctype: storage type T_, load into the intermediate LD_, intermediate class
 * IC_, destination class DC_, value range MN_/MX_ (0 for floats, unused). The
 * order is the ctype numbering (the 13 dtypes, then AUG__I128). */

#define T_BOOL uint8_t
#define T_INT8 int8_t
#define T_INT16 int16_t
#define T_INT32 int32_t
#define T_INT64 int64_t
#define T_UINT8 uint8_t
#define T_UINT16 uint16_t
#define T_UINT32 uint32_t
#define T_UINT64 uint64_t
#define T_FLOAT16 uint16_t
#define T_BFLOAT16 uint16_t
#define T_FLOAT32 float
#define T_FLOAT64 double
#define T_I128 q_t

#define LD_BOOL(x) ((int64_t)((x) != 0)) /* any nonzero byte reads as true */
#define LD_INT8(x) ((int64_t)(x))
#define LD_INT16(x) ((int64_t)(x))
#define LD_INT32(x) ((int64_t)(x))
#define LD_INT64(x) ((int64_t)(x))
#define LD_UINT8(x) ((int64_t)(x))
#define LD_UINT16(x) ((int64_t)(x))
#define LD_UINT32(x) ((int64_t)(x))
#define LD_UINT64(x) (x)
#define LD_FLOAT16(x) aug__f16_to_f32(x)
#define LD_BFLOAT16(x) aug__bf16_to_f32(x)
#define LD_FLOAT32(x) (x)
#define LD_FLOAT64(x) (x)
#define LD_I128(x) (x)

#define IC_BOOL L
#define IC_INT8 L
#define IC_INT16 L
#define IC_INT32 L
#define IC_INT64 L
#define IC_UINT8 L
#define IC_UINT16 L
#define IC_UINT32 L
#define IC_UINT64 U
#define IC_FLOAT16 F
#define IC_BFLOAT16 F
#define IC_FLOAT32 F
#define IC_FLOAT64 D
#define IC_I128 Q

#define DC_BOOL B
#define DC_INT8 I
#define DC_INT16 I
#define DC_INT32 I
#define DC_INT64 I
#define DC_UINT8 I
#define DC_UINT16 I
#define DC_UINT32 I
#define DC_UINT64 U64
#define DC_FLOAT16 H
#define DC_BFLOAT16 BH
#define DC_FLOAT32 F
#define DC_FLOAT64 D
#define DC_I128 Q

#define MN_BOOL 0
#define MX_BOOL 1
#define MN_INT8 INT8_MIN
#define MX_INT8 INT8_MAX
#define MN_INT16 INT16_MIN
#define MX_INT16 INT16_MAX
#define MN_INT32 INT32_MIN
#define MX_INT32 INT32_MAX
#define MN_INT64 INT64_MIN
#define MX_INT64 INT64_MAX
#define MN_UINT8 0
#define MX_UINT8 UINT8_MAX
#define MN_UINT16 0
#define MX_UINT16 UINT16_MAX
#define MN_UINT32 0
#define MX_UINT32 UINT32_MAX
#define MN_UINT64 0
#define MX_UINT64 ((q_t)UINT64_MAX)
#define MN_FLOAT16 0
#define MX_FLOAT16 0
#define MN_BFLOAT16 0
#define MX_BFLOAT16 0
#define MN_FLOAT32 0
#define MX_FLOAT32 0
#define MN_FLOAT64 0
#define MX_FLOAT64 0
#define MN_I128 AUG__I128_MIN
#define MX_I128 AUG__I128_MAX

#define CT_LIST_A(X) X(BOOL) X(INT8) X(INT16) X(INT32) X(INT64) X(UINT8) X(UINT16) X(UINT32) \
    X(UINT64) X(FLOAT16) X(BFLOAT16) X(FLOAT32) X(FLOAT64) X(I128)
#define CT_LIST_B(X, S) X(S, BOOL) X(S, INT8) X(S, INT16) X(S, INT32) X(S, INT64) X(S, UINT8) \
    X(S, UINT16) X(S, UINT32) X(S, UINT64) X(S, FLOAT16) X(S, BFLOAT16) X(S, FLOAT32)          \
    X(S, FLOAT64) X(S, I128)

#define CVK(ic, dc) CVK_(ic, dc)
#define CVK_(ic, dc) cvk_##ic##_##dc
/* One element of ctype S converted to ctype D. */
#define CV(S, D, x) ((T_##D)CVK(IC_##S, DC_##D)(LD_##S(x), MN_##S, MX_##S, MN_##D, MX_##D))

typedef void (*run_fn)(const char *src, int64_t ss, char *dst, int64_t ds, int64_t n);

/* memcpy loads and stores: runs need not be aligned; compilers turn them into
 * plain (vector) moves. */
#define DEF_RUN(S, D)                                                                      \
    static void run_##S##_##D(const char *src, int64_t ss, char *dst, int64_t ds, int64_t n) { \
        const int64_t sz_s = (int64_t)sizeof(T_##S), sz_d = (int64_t)sizeof(T_##D);       \
        if (ss == sz_s && ds == sz_d) {                                                    \
            for (int64_t i = 0; i < n; i++) {                                              \
                T_##S x;                                                                   \
                memcpy(&x, src + i * sz_s, sizeof x);                                      \
                T_##D y = CV(S, D, x);                                                     \
                memcpy(dst + i * sz_d, &y, sizeof y);                                      \
            }                                                                              \
        } else {                                                                           \
            for (int64_t i = 0; i < n; i++, src += ss, dst += ds) {                        \
                T_##S x;                                                                   \
                memcpy(&x, src, sizeof x);                                                 \
                T_##D y = CV(S, D, x);                                                     \
                memcpy(dst, &y, sizeof y);                                                 \
            }                                                                              \
        }                                                                                  \
    }
#define DEF_ROW(S) CT_LIST_B(DEF_RUN, S)
CT_LIST_A(DEF_ROW)

#define RUN_ENTRY(S, D) run_##S##_##D,
#define RUN_ROW(S) {CT_LIST_B(RUN_ENTRY, S)},
static const run_fn run_table[AUG__NUM_CTYPES][AUG__NUM_CTYPES] = {CT_LIST_A(RUN_ROW)};

#define COUNT_ONE(S) +1
_Static_assert(0 CT_LIST_A(COUNT_ONE) == AUG__NUM_CTYPES, "ctype list out of step with aug_dtype");
_Static_assert(AUG_BOOL == 0 && AUG_INT64 == 4 && AUG_UINT64 == 8 && AUG_FLOAT64 == 12 && AUG__I128 == 13,
               "ctype list order must match the dtype enum");

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

/* Contiguous float32/float64 -> 8/16/32-bit integers at SIMD level `level` (at
 * most aug__simd_cpu_level()): AVX2 for whole vectors, SSE2 for what is left of
 * 16-element blocks, then the portable loop. Exposed (hidden) for the tests. */
AUG__HIDDEN void aug__convert_contig(const char *src, int src_t, char *dst, int dst_t, int64_t n, int level);
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

/* ---- element helpers ------------------------------------------------------- */

#define ID_BOOL AUG_BOOL
#define ID_INT8 AUG_INT8
#define ID_INT16 AUG_INT16
#define ID_INT32 AUG_INT32
#define ID_INT64 AUG_INT64
#define ID_UINT8 AUG_UINT8
#define ID_UINT16 AUG_UINT16
#define ID_UINT32 AUG_UINT32
#define ID_UINT64 AUG_UINT64
#define ID_FLOAT16 AUG_FLOAT16
#define ID_BFLOAT16 AUG_BFLOAT16
#define ID_FLOAT32 AUG_FLOAT32
#define ID_FLOAT64 AUG_FLOAT64
#define ID_I128 AUG__I128

static inline int ctype_is_float(int t) {
    return t == AUG_FLOAT16 || t == AUG_BFLOAT16 || t == AUG_FLOAT32 || t == AUG_FLOAT64;
}

void aug__load_wide(const void *p, int t, aug__i128 *iv, double *fv, int *is_float) {
    *is_float = ctype_is_float(t);
    if (*is_float)
        aug__convert(p, 0, t, (char *)fv, 0, AUG_FLOAT64, 1); /* exact */
    else
        aug__convert(p, 0, t, (char *)iv, 0, AUG__I128, 1); /* exact; bool reads 0/1 */
}

#define STORE_CASE(S, D)                 \
    case ID_##D: {                       \
        T_##D y = CV(S, D, v);           \
        memcpy(p, &y, sizeof y);         \
        break;                           \
    }

void aug__store_i128(aug__i128 v, int t, void *p) {
    switch (t) {
        CT_LIST_B(STORE_CASE, I128)
    default:
        break;
    }
}

void aug__store_f64(double v, int t, void *p) {
    switch (t) {
        CT_LIST_B(STORE_CASE, FLOAT64)
    default:
        break;
    }
}

/* Exact: d's integer part is exact in i128 once |d| < 2^127, and the fraction
 * decides ties between a and that integer part. */
int aug__cmp_i128_f64(aug__i128 a, double d) {
    if (d != d) return 2;
    if (d >= 0x1p127) return -1;
    if (d < -0x1p127) return 1;
    double t = trunc(d);
    aug__i128 ti = (aug__i128)t;
    if (a != ti) return a < ti ? -1 : 1;
    return d > t ? -1 : (d < t ? 1 : 0);
}

/* ---- public wrappers -------------------------------------------------------- */

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

/* The ctype and address holding a scalar's value (SPEC: the member matching its kind). */
static int scalar_source(const aug_scalar *s, const void **p) {
    switch (aug_dtype_info(s->dtype)->kind) {
    case AUG_KIND_UINT:
        *p = &s->v.u;
        return AUG_UINT64;
    case AUG_KIND_FLOAT:
        *p = &s->v.f;
        return AUG_FLOAT64;
    default:
        *p = &s->v.i;
        return AUG_INT64;
    }
}

aug_status aug_scalar_store(const aug_scalar *s, aug_dtype dst_t, void *dst) {
    static const char fn[] = "aug_scalar_store";
    if (!s) return aug__error(AUG_ERR_VALUE, fn, "scalar is NULL");
    if (!dst) return aug__error(AUG_ERR_VALUE, fn, "dst is NULL");
    if (!aug_dtype_is_valid(s->dtype))
        return aug__error(AUG_ERR_TYPE, fn, "invalid scalar dtype %d", (int)s->dtype);
    if (!aug_dtype_is_valid(dst_t))
        return aug__error(AUG_ERR_TYPE, fn, "invalid destination dtype %d", (int)dst_t);
    const void *p;
    int st = scalar_source(s, &p);
    aug__convert(p, 0, st, dst, 0, (int)dst_t, 1);
    return AUG_OK;
}

/* CAST_LIMITS (SPEC 2), derived from the cast rules:
 *  - to an integer type: from a float, both ends of the range (inf and -inf reach
 *    them); from an integer or bool, each end the source can exceed.
 *  - to bool: 0 where the source has negative values, 1 where it has values > 1.
 *  - to a float type: from a wider float, +-the largest finite value (finite values
 *    saturate there); from an integer, only float16 can saturate (|x| >= 65520 rounds
 *    beyond 65504); inf itself is representable, so wider-range casts give None. */
aug_status aug_cast_limits(aug_dtype from, aug_dtype to, int *has_min, aug_scalar *vmin, int *has_max,
                           aug_scalar *vmax) {
    static const char fn[] = "aug_cast_limits";
    if (!aug_dtype_is_valid(from)) return aug__error(AUG_ERR_TYPE, fn, "invalid source dtype %d", (int)from);
    if (!aug_dtype_is_valid(to)) return aug__error(AUG_ERR_TYPE, fn, "invalid destination dtype %d", (int)to);
    if (!has_min || !vmin || !has_max || !vmax) return aug__error(AUG_ERR_VALUE, fn, "output pointer is NULL");
    const aug_dtype_traits *f = aug_dtype_info(from), *t = aug_dtype_info(to);
    int lo = 0, hi = 0;
    if (t->kind != AUG_KIND_FLOAT) {
        if (f->kind == AUG_KIND_FLOAT) {
            lo = hi = 1;
        } else {
            lo = f->imin < t->imin;
            hi = f->umax > t->umax;
        }
    } else if (f->kind == AUG_KIND_FLOAT) {
        lo = hi = f->fmax > t->fmax;
    } else if (to == AUG_FLOAT16) {
        lo = f->imin <= -65520;
        hi = f->umax >= 65520;
    }
    *has_min = lo;
    *has_max = hi;
    vmin->dtype = vmax->dtype = to;
    vmin->weak = vmax->weak = 0;
    switch (t->kind) {
    case AUG_KIND_FLOAT:
        vmin->v.f = lo ? t->fmin : 0.0;
        vmax->v.f = hi ? t->fmax : 0.0;
        break;
    case AUG_KIND_UINT:
        vmin->v.u = 0;
        vmax->v.u = hi ? t->umax : 0;
        break;
    default: /* int, bool */
        vmin->v.i = lo ? t->imin : 0;
        vmax->v.i = hi ? (int64_t)t->umax : 0;
        break;
    }
    return AUG_OK;
}
