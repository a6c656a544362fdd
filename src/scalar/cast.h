/* scalar/cast.h: the compute types and the saturating conversion between any
 * two of them (semantics §2; private, shared by every backend).
 *
 * A compute type ("ctype") is what a kernel reads and writes: one of the 13
 * dtypes, or AUG__I128, the exact integer type. AUG__CTYPE_LIST is the one list
 * of ctypes; every per-ctype table of the library (kernel tables, loads,
 * conversion runs, dtype limits) is generated from it.
 *
 * A conversion first loads the source value into one of five intermediates that
 * hold it exactly: int64 (bool, int8..int64, uint8..uint32), uint64, i128, float
 * (float16, bfloat16, float32) or double. A small function per (intermediate,
 * destination class) then rounds and saturates it: round half to even, NaN -> 0,
 * +-inf -> the ends, float narrowing saturates finite values to the largest
 * finite value, bool = x != 0. Range tests that cannot fail for a pair are
 * compile-time constants and fold away, so loops over one pair vectorise. */
#ifndef AUG_SCALAR_CAST_H
#define AUG_SCALAR_CAST_H

#include "aug/dtype.h"
#include "float16.h"

/* ---- the ctype list -----------------------------------------------------------
 * One row per ctype, in ctype order (the dtype enum, then I128):
 *   (ENUM, S, T, IC, DC, MN, MX, LD, FMIN, FMAX)
 *   ENUM  AUG_<ENUM> (AUG__I128 for I128); S  suffix of per-ctype scalar functions;
 *   T     storage type; IC  load intermediate (IL int64, IU uint64, IQ i128, IF
 *         float, ID double); DC  destination class (DB bool, DI integer fitting
 *         int64, DU64, DQ i128, DH float16, DBH bfloat16, DF float32, DD float64);
 *         (two-letter names: one-letter ones collide with macros such as
 *         <complex.h>'s I);
 *   MN MX value range of integers (0 for floats); LD  T -> intermediate;
 *   FMIN FMAX  the range as doubles: lowest/highest finite for floats; for
 *         integers the ends rounded inward, so a double clamped to them converts
 *         without overflow. */
#define AUG__CTROW_BOOL     (BOOL, b, uint8_t, IL, DB, 0, 1, AUG__LD_BOOL, 0.0, 1.0)
#define AUG__CTROW_INT8     (INT8, i8, int8_t, IL, DI, INT8_MIN, INT8_MAX, AUG__LD_I64, -128.0, 127.0)
#define AUG__CTROW_INT16    (INT16, i16, int16_t, IL, DI, INT16_MIN, INT16_MAX, AUG__LD_I64, -32768.0, 32767.0)
#define AUG__CTROW_INT32    (INT32, i32, int32_t, IL, DI, INT32_MIN, INT32_MAX, AUG__LD_I64, -2147483648.0, 2147483647.0)
#define AUG__CTROW_INT64    (INT64, i64, int64_t, IL, DI, INT64_MIN, INT64_MAX, AUG__LD_I64, -0x1p63, 0x1.fffffffffffffp62)
#define AUG__CTROW_UINT8    (UINT8, u8, uint8_t, IL, DI, 0, UINT8_MAX, AUG__LD_I64, 0.0, 255.0)
#define AUG__CTROW_UINT16   (UINT16, u16, uint16_t, IL, DI, 0, UINT16_MAX, AUG__LD_I64, 0.0, 65535.0)
#define AUG__CTROW_UINT32   (UINT32, u32, uint32_t, IL, DI, 0, UINT32_MAX, AUG__LD_I64, 0.0, 4294967295.0)
#define AUG__CTROW_UINT64   (UINT64, u64, uint64_t, IU, DU64, 0, ((aug__i128)UINT64_MAX), AUG__LD_ID, 0.0, 0x1.fffffffffffffp63)
#define AUG__CTROW_FLOAT16  (FLOAT16, f16, uint16_t, IF, DH, 0, 0, aug__f16_to_f32, -65504.0, 65504.0)
#define AUG__CTROW_BFLOAT16 (BFLOAT16, bf16, uint16_t, IF, DBH, 0, 0, aug__bf16_to_f32, -0x1.fep127, 0x1.fep127)
#define AUG__CTROW_FLOAT32  (FLOAT32, f32, float, IF, DF, 0, 0, AUG__LD_ID, -0x1.fffffep127, 0x1.fffffep127)
#define AUG__CTROW_FLOAT64  (FLOAT64, f64, double, ID, DD, 0, 0, AUG__LD_ID, -0x1.fffffffffffffp1023, 0x1.fffffffffffffp1023)
#define AUG__CTROW_I128     (I128, i128, aug__i128, IQ, DQ, AUG__I128_MIN, AUG__I128_MAX, AUG__LD_ID, 0.0, 0.0)

/* X(NAME) for every ctype, in order; the _WITH form passes A first, for the
 * nested (source, destination) expansions. */
#define AUG__CTYPE_LIST(X) X(BOOL) X(INT8) X(INT16) X(INT32) X(INT64) X(UINT8) X(UINT16) X(UINT32) \
    X(UINT64) X(FLOAT16) X(BFLOAT16) X(FLOAT32) X(FLOAT64) X(I128)
#define AUG__CTYPE_LIST_WITH(X, A) X(A, BOOL) X(A, INT8) X(A, INT16) X(A, INT32) X(A, INT64) X(A, UINT8) \
    X(A, UINT16) X(A, UINT32) X(A, UINT64) X(A, FLOAT16) X(A, BFLOAT16) X(A, FLOAT32) X(A, FLOAT64) X(A, I128)

/* Column accessors: AUG__CT_T(INT8) is int8_t, ... */
#define AUG__CT_E_(E, S, T, IC, DC, MN, MX, LD, FMIN, FMAX) E
#define AUG__CT_S_(E, S, T, IC, DC, MN, MX, LD, FMIN, FMAX) S
#define AUG__CT_T_(E, S, T, IC, DC, MN, MX, LD, FMIN, FMAX) T
#define AUG__CT_IC_(E, S, T, IC, DC, MN, MX, LD, FMIN, FMAX) IC
#define AUG__CT_DC_(E, S, T, IC, DC, MN, MX, LD, FMIN, FMAX) DC
#define AUG__CT_MN_(E, S, T, IC, DC, MN, MX, LD, FMIN, FMAX) MN
#define AUG__CT_MX_(E, S, T, IC, DC, MN, MX, LD, FMIN, FMAX) MX
#define AUG__CT_LD_(E, S, T, IC, DC, MN, MX, LD, FMIN, FMAX) LD
#define AUG__CT_FMIN_(E, S, T, IC, DC, MN, MX, LD, FMIN, FMAX) FMIN
#define AUG__CT_FMAX_(E, S, T, IC, DC, MN, MX, LD, FMIN, FMAX) FMAX
#define AUG__CT_APPLY_(F, row) F row
#define AUG__CT_S(N) AUG__CT_APPLY_(AUG__CT_S_, AUG__CTROW_##N)
#define AUG__CT_T(N) AUG__CT_APPLY_(AUG__CT_T_, AUG__CTROW_##N)
#define AUG__CT_IC(N) AUG__CT_APPLY_(AUG__CT_IC_, AUG__CTROW_##N)
#define AUG__CT_DC(N) AUG__CT_APPLY_(AUG__CT_DC_, AUG__CTROW_##N)
#define AUG__CT_MN(N) AUG__CT_APPLY_(AUG__CT_MN_, AUG__CTROW_##N)
#define AUG__CT_MX(N) AUG__CT_APPLY_(AUG__CT_MX_, AUG__CTROW_##N)
#define AUG__CT_LD(N) AUG__CT_APPLY_(AUG__CT_LD_, AUG__CTROW_##N)
#define AUG__CT_FMIN(N) AUG__CT_APPLY_(AUG__CT_FMIN_, AUG__CTROW_##N)
#define AUG__CT_FMAX(N) AUG__CT_APPLY_(AUG__CT_FMAX_, AUG__CTROW_##N)
/* 1 for the float ctypes (intermediate IF or ID). */
#define AUG__CT_ISF(N) AUG__CT_ISF_(AUG__CT_IC(N))
#define AUG__CT_ISF_(ic) AUG__CT_ISF__(ic)
#define AUG__CT_ISF__(ic) AUG__ISF_##ic
#define AUG__ISF_IL 0
#define AUG__ISF_IU 0
#define AUG__ISF_IQ 0
#define AUG__ISF_IF 1
#define AUG__ISF_ID 1

/* The ctype numbers: the dtype enum's values, then I128. */
enum {
#define AUG__CT_ENUM_(N) AUG__CT_##N,
    AUG__CTYPE_LIST(AUG__CT_ENUM_)
#undef AUG__CT_ENUM_
    AUG__NUM_CTYPES
};
#define AUG__I128 ((int)AUG__CT_I128)
#if defined(__cplusplus)
static_assert(AUG__CT_I128 == (int)AUG_NUM_DTYPES, "the ctype list must follow the dtype enum");
static_assert(AUG__CT_FLOAT64 == (int)AUG_FLOAT64 && AUG__CT_UINT64 == (int)AUG_UINT64 && AUG__CT_INT8 == (int)AUG_INT8,
              "the ctype list must follow the dtype enum");
#else
_Static_assert(AUG__CT_I128 == (int)AUG_NUM_DTYPES, "the ctype list must follow the dtype enum");
_Static_assert(AUG__CT_FLOAT64 == (int)AUG_FLOAT64 && AUG__CT_UINT64 == (int)AUG_UINT64 && AUG__CT_INT8 == (int)AUG_INT8,
               "the ctype list must follow the dtype enum");
#endif

/* Byte size of a ctype (0 for an unknown one). */
AUG_HD int aug__ctype_size(int ctype) {
    switch (ctype) {
#define AUG__CT_SIZE_(N) case AUG__CT_##N: return (int)sizeof(AUG__CT_T(N));
        AUG__CTYPE_LIST(AUG__CT_SIZE_)
#undef AUG__CT_SIZE_
    default:
        return 0;
    }
}

/* Loads into the intermediate. */
#define AUG__LD_BOOL(x) ((int64_t)((x) != 0)) /* any non-zero byte reads as true */
#define AUG__LD_I64(x) ((int64_t)(x))
#define AUG__LD_ID(x) (x)

/* ---- wide integers -> floats ------------------------------------------------ */

/* Compresses a magnitude to at most `bits` significant bits, OR-ing every dropped
 * bit into the lowest kept one ("round to odd"): *k * 2^*s then rounds to any
 * precision of at most bits - 2 exactly as m itself would, so a following float
 * conversion rounds only once. */
AUG_HD uint64_t aug__odd_compress(aug__u128 m, int bits, int *s) {
    uint64_t hi = (uint64_t)(m >> 64), lo = (uint64_t)m;
    int len = hi ? 128 - aug__clz64(hi) : (lo ? 64 - aug__clz64(lo) : 0);
    int shift = len > bits ? len - bits : 0;
    *s = shift;
    if (shift == 0) return lo;
    aug__u128 dropped = m & ((((aug__u128)1) << shift) - 1);
    return (uint64_t)(m >> shift) | (uint64_t)(dropped != 0);
}

AUG_HD float aug__pow2f(int s) { return aug__bits_f32((uint32_t)(127 + s) << 23); } /* 0 <= s <= 127 */
AUG_HD double aug__pow2d(int s) { return aug__bits_f64((uint64_t)(1023 + s) << 52); }

/* bfloat16 keeps 8 significant bits; a 24-bit round-to-odd value is exact in float32. */
AUG_HD uint16_t aug__bf16_from_mag(aug__u128 m, int neg) {
    int s;
    uint64_t k = aug__odd_compress(m, 24, &s);
    float f = (float)k * aug__pow2f(s);
    return aug__f32_to_bf16(neg ? -f : f);
}

/* ---- converters: aug__cvk_<intermediate>_<destination class> ----------------------
 * smin/smax are the source range, dmin/dmax the destination range (integer
 * classes only), all constants at every call site. */
#define AUG__RANGE aug__i128 smin, aug__i128 smax, aug__i128 dmin, aug__i128 dmax
#define AUG__UNUSED_RANGE (void)smin, (void)smax, (void)dmin, (void)dmax

AUG_HD uint8_t aug__cvk_IL_DB(int64_t v, AUG__RANGE) { AUG__UNUSED_RANGE; return v != 0; }
AUG_HD int64_t aug__cvk_IL_DI(int64_t v, AUG__RANGE) {
    /* when smin < dmin, dmin lies inside the source range (dmin <= 0 < smax), so
     * the comparisons are in the source's own type */
    if (smin < dmin && v < (int64_t)dmin) return (int64_t)dmin;
    if (smax > dmax && v > (int64_t)dmax) return (int64_t)dmax;
    return v;
}
AUG_HD uint64_t aug__cvk_IL_DU64(int64_t v, AUG__RANGE) { AUG__UNUSED_RANGE; return v < 0 ? 0 : (uint64_t)v; }
AUG_HD aug__i128 aug__cvk_IL_DQ(int64_t v, AUG__RANGE) { AUG__UNUSED_RANGE; return v; }
AUG_HD uint16_t aug__cvk_IL_DH(int64_t v, AUG__RANGE) {
    (void)dmin, (void)dmax;
    /* |v| >= 65520 rounds beyond 65504 and saturates; clamping there keeps the value
     * exact in float32 (below 2^24), so only the float16 rounding remains */
    if (smin < -65520 && v < -65520) v = -65520;
    if (smax > 65520 && v > 65520) v = 65520;
    return aug__f32_to_f16((float)(int32_t)v);
}
AUG_HD uint16_t aug__cvk_IL_DBH(int64_t v, AUG__RANGE) {
    (void)dmin, (void)dmax;
    if (smin >= -(1 << 24) && smax <= (1 << 24)) return aug__f32_to_bf16((float)(int32_t)v); /* exact */
    return aug__bf16_from_mag(v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0);
}
/* int64/uint64 -> float/double: the C conversion rounds once, to nearest even
 * (IEEE / C11 Annex F; CUDA's cvt.rn). Sources that fit int32 convert from
 * int32, which vectorises. */
#define AUG__FITS_I32 (smin >= INT32_MIN && smax <= INT32_MAX)
AUG_HD float aug__cvk_IL_DF(int64_t v, AUG__RANGE) {
    (void)dmin, (void)dmax;
    return AUG__FITS_I32 ? (float)(int32_t)v : (float)v;
}
AUG_HD double aug__cvk_IL_DD(int64_t v, AUG__RANGE) {
    (void)dmin, (void)dmax;
    return AUG__FITS_I32 ? (double)(int32_t)v : (double)v;
}

AUG_HD uint8_t aug__cvk_IU_DB(uint64_t v, AUG__RANGE) { AUG__UNUSED_RANGE; return v != 0; }
AUG_HD int64_t aug__cvk_IU_DI(uint64_t v, AUG__RANGE) {
    (void)smin, (void)smax, (void)dmin;
    return v > (uint64_t)dmax ? (int64_t)dmax : (int64_t)v;
}
AUG_HD uint64_t aug__cvk_IU_DU64(uint64_t v, AUG__RANGE) { AUG__UNUSED_RANGE; return v; }
AUG_HD aug__i128 aug__cvk_IU_DQ(uint64_t v, AUG__RANGE) { AUG__UNUSED_RANGE; return (aug__i128)v; }
AUG_HD uint16_t aug__cvk_IU_DH(uint64_t v, AUG__RANGE) {
    AUG__UNUSED_RANGE;
    return aug__f32_to_f16((float)(v > 65520 ? 65520 : v));
}
AUG_HD uint16_t aug__cvk_IU_DBH(uint64_t v, AUG__RANGE) { AUG__UNUSED_RANGE; return aug__bf16_from_mag(v, 0); }
AUG_HD float aug__cvk_IU_DF(uint64_t v, AUG__RANGE) { AUG__UNUSED_RANGE; return (float)v; }
AUG_HD double aug__cvk_IU_DD(uint64_t v, AUG__RANGE) { AUG__UNUSED_RANGE; return (double)v; }

AUG_HD uint8_t aug__cvk_IQ_DB(aug__i128 v, AUG__RANGE) { AUG__UNUSED_RANGE; return v != 0; }
AUG_HD aug__i128 aug__clip_i128(aug__i128 v, aug__i128 lo, aug__i128 hi) { return v < lo ? lo : (v > hi ? hi : v); }
AUG_HD int64_t aug__cvk_IQ_DI(aug__i128 v, AUG__RANGE) {
    (void)smin, (void)smax;
    return (int64_t)aug__clip_i128(v, dmin, dmax);
}
AUG_HD uint64_t aug__cvk_IQ_DU64(aug__i128 v, AUG__RANGE) {
    AUG__UNUSED_RANGE;
    return (uint64_t)aug__clip_i128(v, 0, (aug__i128)UINT64_MAX);
}
AUG_HD aug__i128 aug__cvk_IQ_DQ(aug__i128 v, AUG__RANGE) { AUG__UNUSED_RANGE; return v; }
AUG_HD uint16_t aug__cvk_IQ_DH(aug__i128 v, AUG__RANGE) {
    AUG__UNUSED_RANGE;
    return aug__f32_to_f16((float)(int32_t)aug__clip_i128(v, -65520, 65520));
}
AUG_HD uint16_t aug__cvk_IQ_DBH(aug__i128 v, AUG__RANGE) {
    AUG__UNUSED_RANGE;
    return aug__bf16_from_mag(v < 0 ? (aug__u128)0 - (aug__u128)v : (aug__u128)v, v < 0);
}
/* 62-bit round-to-odd, then one rounding by the int64 conversion; the power-of-two
 * scale is exact (|v| < 2^127 stays below FLT_MAX). */
AUG_HD float aug__cvk_IQ_DF(aug__i128 v, AUG__RANGE) {
    AUG__UNUSED_RANGE;
    int s;
    uint64_t k = aug__odd_compress(v < 0 ? (aug__u128)0 - (aug__u128)v : (aug__u128)v, 62, &s);
    float f = (float)(int64_t)k * aug__pow2f(s);
    return v < 0 ? -f : f;
}
AUG_HD double aug__cvk_IQ_DD(aug__i128 v, AUG__RANGE) {
    AUG__UNUSED_RANGE;
    int s;
    uint64_t k = aug__odd_compress(v < 0 ? (aug__u128)0 - (aug__u128)v : (aug__u128)v, 62, &s);
    double f = (double)(int64_t)k * aug__pow2d(s);
    return v < 0 ? -f : f;
}

/* double -> integer: NaN -> 0, then clamp and round half to even. Ranges up to
 * 32 bits are exact in double, so clamping comes first (vectorisable); 64-bit and
 * wider ranges test against the exact power of two above the maximum. The C
 * conversions below only ever see in-range integral values (the CUDA cvt
 * instructions would clamp and map NaN differently otherwise). */
AUG_HD int64_t aug__cvk_ID_DI(double v, AUG__RANGE) {
    (void)smin, (void)smax;
    if (dmax <= INT32_MAX) { /* int32 conversion vectorises, int64 does not (SSE2) */
        v = v == v ? v : 0.0;
        v = v < (double)dmin ? (double)dmin : v;
        v = v > (double)dmax ? (double)dmax : v;
        return (int32_t)aug__rne_f64(v);
    }
    if (dmax < ((aug__i128)1 << 53)) {
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
AUG_HD uint64_t aug__cvk_ID_DU64(double v, AUG__RANGE) {
    AUG__UNUSED_RANGE;
    if (!(v > 0)) return 0; /* NaN, negative, zero */
    if (v >= 0x1p64) return UINT64_MAX;
    return (uint64_t)aug__rne_f64(v);
}
AUG_HD aug__i128 aug__cvk_ID_DQ(double v, AUG__RANGE) {
    AUG__UNUSED_RANGE;
    if (v != v) return 0;
    if (v >= 0x1p127) return AUG__I128_MAX;
    if (v <= -0x1p127) return AUG__I128_MIN;
    return (aug__i128)aug__rne_f64(v);
}
AUG_HD uint8_t aug__cvk_ID_DB(double v, AUG__RANGE) { AUG__UNUSED_RANGE; return v != 0; } /* NaN -> 1 */
AUG_HD uint16_t aug__cvk_ID_DH(double v, AUG__RANGE) { AUG__UNUSED_RANGE; return aug__f64_to_f16(v); }
AUG_HD uint16_t aug__cvk_ID_DBH(double v, AUG__RANGE) { AUG__UNUSED_RANGE; return aug__f64_to_bf16(v); }
AUG_HD float aug__cvk_ID_DF(double v, AUG__RANGE) {
    AUG__UNUSED_RANGE;
    double a = fabs(v);
    if (a > 0x1.fffffep127 && a != INFINITY) v = copysign(0x1.fffffep127, v); /* saturate, not inf */
    return (float)v;
}
AUG_HD double aug__cvk_ID_DD(double v, AUG__RANGE) { AUG__UNUSED_RANGE; return v; }

/* float -> integer: ranges within +-2^22 clamp and round in float32 (the magic-
 * number rounding is valid there); wider ones go through double, which is exact. */
AUG_HD int64_t aug__cvk_IF_DI(float v, AUG__RANGE) {
    if (dmin >= -(1 << 22) && dmax <= (1 << 22)) {
        v = v == v ? v : 0.0f;
        v = v < (float)dmin ? (float)dmin : v;
        v = v > (float)dmax ? (float)dmax : v;
        return (int32_t)aug__rne_f32(v);
    }
    return aug__cvk_ID_DI(v, smin, smax, dmin, dmax);
}
AUG_HD uint8_t aug__cvk_IF_DB(float v, AUG__RANGE) { AUG__UNUSED_RANGE; return v != 0; }
AUG_HD uint64_t aug__cvk_IF_DU64(float v, AUG__RANGE) { return aug__cvk_ID_DU64(v, smin, smax, dmin, dmax); }
AUG_HD aug__i128 aug__cvk_IF_DQ(float v, AUG__RANGE) { return aug__cvk_ID_DQ(v, smin, smax, dmin, dmax); }
AUG_HD uint16_t aug__cvk_IF_DH(float v, AUG__RANGE) { AUG__UNUSED_RANGE; return aug__f32_to_f16(v); }
AUG_HD uint16_t aug__cvk_IF_DBH(float v, AUG__RANGE) { AUG__UNUSED_RANGE; return aug__f32_to_bf16(v); }
AUG_HD float aug__cvk_IF_DF(float v, AUG__RANGE) { AUG__UNUSED_RANGE; return v; }
AUG_HD double aug__cvk_IF_DD(float v, AUG__RANGE) { AUG__UNUSED_RANGE; return v; }

#undef AUG__FITS_I32
#undef AUG__RANGE
#undef AUG__UNUSED_RANGE

/* One element x of ctype S converted to ctype D (S, D: names of the list). */
#define AUG__CVK(ic, dc) AUG__CVK_(ic, dc)
#define AUG__CVK_(ic, dc) aug__cvk_##ic##_##dc
#define AUG__CV(S, D, x)                                                                        \
    ((AUG__CT_T(D))AUG__CVK(AUG__CT_IC(S), AUG__CT_DC(D))(AUG__CT_LD(S)(x), AUG__CT_MN(S),      \
                                                          AUG__CT_MX(S), AUG__CT_MN(D), AUG__CT_MX(D)))

/* ---- element helpers --------------------------------------------------------- */

/* Stores v, an exact integer or a double, into an element of ctype t at p. */
AUG_HD void aug__store_i128(aug__i128 v, int t, void *p) {
    AUG__MEM_STORE(p, aug__ctype_size(t));
    switch (t) {
#define AUG__STORE_CASE_(S, D)                       \
    case AUG__CT_##D: {                              \
        AUG__CT_T(D) y = AUG__CV(S, D, v);           \
        memcpy(p, &y, sizeof y);                     \
        break;                                       \
    }
        AUG__CTYPE_LIST_WITH(AUG__STORE_CASE_, I128)
    default:
        break;
    }
}
AUG_HD void aug__store_f64(double v, int t, void *p) {
    AUG__MEM_STORE(p, aug__ctype_size(t));
    switch (t) {
        AUG__CTYPE_LIST_WITH(AUG__STORE_CASE_, FLOAT64)
#undef AUG__STORE_CASE_
    default:
        break;
    }
}

/* ---- float results: IEEE rounding ----------------------------------------------
 * An arithmetic float result computed in a wider ctype (float16/bfloat16 in
 * FLOAT32, float32 in FLOAT64 next to a wide integer) is rounded to its dtype as
 * IEEE arithmetic does: to nearest even, +-inf beyond the range, NaN kept
 * (semantics §7, "Float results"). Only conversions (saturate_cast, §2) stop a
 * finite value at the largest finite one. aug__ieee_narrowing tells whether a
 * (ctype, dtype) pair is such a narrowing; for any other pair the IEEE store is
 * the ordinary conversion. */
AUG_HD int aug__ieee_narrowing(int src_t, int dst_t) {
    if (src_t == AUG__CT_FLOAT32) return dst_t == AUG__CT_FLOAT16 || dst_t == AUG__CT_BFLOAT16;
    if (src_t == AUG__CT_FLOAT64)
        return dst_t == AUG__CT_FLOAT16 || dst_t == AUG__CT_BFLOAT16 || dst_t == AUG__CT_FLOAT32;
    return 0;
}
AUG_HD void aug__ieee_store_f32(float v, int t, void *p) {
    uint16_t h;
    switch (t) {
    case AUG__CT_FLOAT16: h = aug__f32_to_f16_ieee(v); memcpy(p, &h, sizeof h); break;
    case AUG__CT_BFLOAT16: h = aug__f32_to_bf16_ieee(v); memcpy(p, &h, sizeof h); break;
    default: aug__store_f64((double)v, t, p); break; /* exact widening, then the conversion */
    }
}
AUG_HD void aug__ieee_store_f64(double v, int t, void *p) {
    uint16_t h;
    float f;
    switch (t) {
    case AUG__CT_FLOAT16: h = aug__f64_to_f16_ieee(v); memcpy(p, &h, sizeof h); break;
    case AUG__CT_BFLOAT16: h = aug__f64_to_bf16_ieee(v); memcpy(p, &h, sizeof h); break;
    case AUG__CT_FLOAT32: f = (float)v; memcpy(p, &f, sizeof f); break; /* C11 Annex F / cvt.rn */
    default: aug__store_f64(v, t, p); break;
    }
}

/* Loads an element of ctype t at p exactly: integers and bool into *iv, floats
 * into *fv; returns 1 for a float. */
AUG_HD int aug__load_wide(const void *p, int t, aug__i128 *iv, double *fv) {
    AUG__MEM_LOAD(p, aug__ctype_size(t));
    switch (t) {
#define AUG__LOAD_CASE_(N)                                          \
    case AUG__CT_##N: {                                             \
        AUG__CT_T(N) x;                                             \
        memcpy(&x, p, sizeof x);                                    \
        if (AUG__CT_ISF(N)) {                                       \
            *fv = AUG__CV(N, FLOAT64, x);                           \
            return 1;                                               \
        }                                                           \
        *iv = AUG__CV(N, I128, x);                                  \
        return 0;                                                   \
    }
        AUG__CTYPE_LIST(AUG__LOAD_CASE_)
#undef AUG__LOAD_CASE_
    default:
        *iv = 0;
        return 0;
    }
}

/* Exact comparison of an integer and a double: -1, 0, 1; 2 if d is NaN. d's
 * integer part is exact in i128 once |d| < 2^127, and the fraction decides ties
 * between a and that integer part. */
AUG_HD int aug__cmp_i128_f64(aug__i128 a, double d) {
    if (d != d) return 2;
    if (d >= 0x1p127) return -1;
    if (d < -0x1p127) return 1;
    double t = trunc(d);
    aug__i128 ti = (aug__i128)t;
    if (a != ti) return a < ti ? -1 : 1;
    return d > t ? -1 : (d < t ? 1 : 0);
}

#endif
