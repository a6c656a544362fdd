/* core/ctype.h: compute types and the saturation helpers every kernel shares (private).
 *
 * A compute type ("ctype") is what a kernel reads and writes: one of the 13 public
 * dtypes, or AUG__I128, the exact integer type (every int/uint/bool value fits, and
 * + - of two of them cannot overflow it). Saturation happens here and nowhere else:
 * compute wide, then clamp with the traits' limits (SPEC 2). */
#ifndef AUG_CORE_CTYPE_H
#define AUG_CORE_CTYPE_H

#include <math.h>
#include <string.h>
#include "aug/dtype.h"
#include "error.h"

typedef __int128 aug__i128;
typedef unsigned __int128 aug__u128;

#define AUG__I128 ((int)AUG_NUM_DTYPES)
#define AUG__NUM_CTYPES (AUG__I128 + 1)

/* Byte size of a ctype (16 for AUG__I128). */
AUG__HIDDEN int aug__ctype_size(int ctype);
AUG__HIDDEN const char *aug__ctype_name(int ctype);

/* Convert n elements between any two ctypes with saturation (SPEC 2). Strides in
 * bytes. The one conversion routine of the library (the engine uses it to fill
 * compute buffers and to store results). */
AUG__HIDDEN void aug__convert(const char *src, int64_t src_stride, int src_t,
                              char *dst, int64_t dst_stride, int dst_t, int64_t n);

/* Load one element of ctype t as an exact wide value. Integers/bool -> i128;
 * floats -> double (exact). *is_float tells which one was written. */
AUG__HIDDEN void aug__load_wide(const void *p, int t, aug__i128 *iv, double *fv, int *is_float);

/* Store helpers (round half to even, saturate, NaN -> 0, float narrowing saturates
 * to max finite, bool = x != 0). */
AUG__HIDDEN void aug__store_i128(aug__i128 v, int t, void *p);
AUG__HIDDEN void aug__store_f64(double v, int t, void *p);

/* Exact comparison of an integer and a double: -1, 0, 1; 2 if d is NaN. */
AUG__HIDDEN int aug__cmp_i128_f64(aug__i128 a, double d);

static inline aug__i128 aug__clamp_i128(aug__i128 v, aug__i128 lo, aug__i128 hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}
#define AUG__I128_MAX ((aug__i128)(((aug__u128)1 << 127) - 1))
#define AUG__I128_MIN (-AUG__I128_MAX - 1)

/* Saturating i128 -> fixed-width integers. */
static inline int8_t aug__sat_i8(aug__i128 v) { return (int8_t)aug__clamp_i128(v, INT8_MIN, INT8_MAX); }
static inline int16_t aug__sat_i16(aug__i128 v) { return (int16_t)aug__clamp_i128(v, INT16_MIN, INT16_MAX); }
static inline int32_t aug__sat_i32(aug__i128 v) { return (int32_t)aug__clamp_i128(v, INT32_MIN, INT32_MAX); }
static inline int64_t aug__sat_i64(aug__i128 v) { return (int64_t)aug__clamp_i128(v, INT64_MIN, INT64_MAX); }
static inline uint8_t aug__sat_u8(aug__i128 v) { return (uint8_t)aug__clamp_i128(v, 0, UINT8_MAX); }
static inline uint16_t aug__sat_u16(aug__i128 v) { return (uint16_t)aug__clamp_i128(v, 0, UINT16_MAX); }
static inline uint32_t aug__sat_u32(aug__i128 v) { return (uint32_t)aug__clamp_i128(v, 0, UINT32_MAX); }
static inline uint64_t aug__sat_u64(aug__i128 v) { return (uint64_t)aug__clamp_i128(v, 0, (aug__i128)UINT64_MAX); }

/* 16-bit float formats as bits. */
typedef uint16_t aug__f16;
typedef uint16_t aug__bf16;

/* Round to nearest integer, ties to even, without libm (rint is a library call on
 * baseline x86-64). Adding and subtracting 2^52 (2^23) leaves no fraction bits
 * under the default rounding mode; |x| >= 2^52 (2^23) is already an integer, and
 * NaN/inf pass through. Written as a select so loops vectorise; the assignments
 * drop any excess precision (C11 5.2.4.2.2). */
static inline double aug__rne_f64(double x) {
    double a = fabs(x);
    double t = a + 0x1p52;
    t = t - 0x1p52;
    return copysign(a < 0x1p52 ? t : a, x);
}
static inline float aug__rne_f32(float x) {
    float a = fabsf(x);
    float t = a + 0x1p23f;
    t = t - 0x1p23f;
    return copysignf(a < 0x1p23f ? t : a, x);
}

/* float16 / bfloat16 bits <-> float32. Decoding is exact; encoding rounds half to
 * even once, saturates finite values beyond the range to the largest finite value
 * (SPEC 2), keeps inf, and turns NaN into a quiet NaN with the same sign. */
static inline float aug__bits_f32(uint32_t w) { float f; memcpy(&f, &w, sizeof f); return f; }
static inline uint32_t aug__f32_bits(float f) { uint32_t w; memcpy(&w, &f, sizeof w); return w; }

/* c ? a : b as bit masks (compilers keep ?: chains on these as branches). */
static inline uint32_t aug__sel_u32(int c, uint32_t a, uint32_t b) {
    uint32_t m = 0u - (uint32_t)(c != 0);
    return (a & m) | (b & ~m);
}

/* Both directions are free of branches so conversion loops vectorise. */
static inline float aug__f16_to_f32(aug__f16 h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, a = h & 0x7fffu;
    uint32_t w = (a << 13) + 0x38000000u;                  /* rebias the exponent: 127 - 15 = 112 */
    w = aug__sel_u32(a >= 0x7c00u, w + 0x38000000u, w);    /* inf/NaN: exponent 31 + 2 * 112 = 255 */
    float sub = (float)(int32_t)a * 0x1p-24f;              /* zero/subnormal: a * 2^-24, exact */
    w = aug__sel_u32(a < 0x0400u, aug__f32_bits(sub), w);
    return aug__bits_f32(sign | w);
}

static inline aug__f16 aug__f32_to_f16(float x) {
    uint32_t w = aug__f32_bits(x);
    uint32_t sign = (w >> 16) & 0x8000u, a = w & 0x7fffffffu;
    /* normal: rebias 127 -> 15, drop 13 mantissa bits with ties to even; a carry
     * moves into the exponent */
    uint32_t r = a - 0x38000000u;
    uint32_t h = (r + 0xfffu + ((r >> 13) & 1u)) >> 13;
    /* |x| < 2^-14, subnormal: |x| * 2^24 (exact, < 1024) plus 2^23 rounds to an
     * integer that sits in the low mantissa bits (1024 is the smallest normal) */
    float t = aug__bits_f32(a) * 0x1p24f + 0x1p23f;
    h = aug__sel_u32(a < 0x38800000u, aug__f32_bits(t) - 0x4b000000u, h);
    h = aug__sel_u32(a >= 0x477fe000u, 0x7bffu, h); /* |x| >= 65504, the largest finite: saturate */
    h = aug__sel_u32(a > 0x7f800000u, 0x7e00u | ((a >> 13) & 0x3ffu), h); /* NaN, made quiet */
    h = aug__sel_u32(a == 0x7f800000u, 0x7c00u, h);
    return (uint16_t)(sign | h);
}

static inline float aug__bf16_to_f32(aug__bf16 h) { return aug__bits_f32((uint32_t)h << 16); }

static inline aug__bf16 aug__f32_to_bf16(float x) {
    uint32_t w = aug__f32_bits(x);
    uint32_t a = w & 0x7fffffffu;
    if (a > 0x7f800000u) /* NaN: keep sign and top payload, set the quiet bit */
        return (uint16_t)((w >> 16) | 0x40u);
    /* drop the low 16 bits, ties to even (subnormals included); cannot carry into the sign */
    uint32_t r = (w + 0x7fffu + ((w >> 16) & 1u)) >> 16;
    if ((r & 0x7fffu) == 0x7f80u && a != 0x7f800000u) /* rounded up to inf: saturate */
        r = (r & 0x8000u) | 0x7f7fu;
    return (uint16_t)r;
}

#endif
