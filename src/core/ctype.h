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

#endif
