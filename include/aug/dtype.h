/* aug/dtype.h: the 13 element types, their traits, promotion and saturating casts.
 *
 * One X-macro list (AUG_DTYPE_LIST) generates the enum and the traits table, so a
 * dtype is added in one place. semantics §1, §2 and §6. */
#ifndef AUG_DTYPE_H
#define AUG_DTYPE_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X(ENUM, name, kind, size, dlpack_code, temp) */
#define AUG_DTYPE_LIST(X)                                  \
    X(BOOL,     "bool",     AUG_KIND_BOOL,  1, 6, FLOAT32) \
    X(INT8,     "int8",     AUG_KIND_INT,   1, 0, FLOAT32) \
    X(INT16,    "int16",    AUG_KIND_INT,   2, 0, FLOAT32) \
    X(INT32,    "int32",    AUG_KIND_INT,   4, 0, FLOAT64) \
    X(INT64,    "int64",    AUG_KIND_INT,   8, 0, FLOAT64) \
    X(UINT8,    "uint8",    AUG_KIND_UINT,  1, 1, FLOAT32) \
    X(UINT16,   "uint16",   AUG_KIND_UINT,  2, 1, FLOAT32) \
    X(UINT32,   "uint32",   AUG_KIND_UINT,  4, 1, FLOAT64) \
    X(UINT64,   "uint64",   AUG_KIND_UINT,  8, 1, FLOAT64) \
    X(FLOAT16,  "float16",  AUG_KIND_FLOAT, 2, 2, FLOAT32) \
    X(BFLOAT16, "bfloat16", AUG_KIND_FLOAT, 2, 4, FLOAT32) \
    X(FLOAT32,  "float32",  AUG_KIND_FLOAT, 4, 2, FLOAT32) \
    X(FLOAT64,  "float64",  AUG_KIND_FLOAT, 8, 2, FLOAT64)

typedef enum aug_dtype {
#define AUG_X_(e, name, kind, size, code, temp) AUG_##e,
    AUG_DTYPE_LIST(AUG_X_)
#undef AUG_X_
    AUG_NUM_DTYPES,
    AUG_DTYPE_AUTO = -1 /* "choose per semantics.md" where an API takes an optional dtype */
} aug_dtype;

typedef enum aug_kind { AUG_KIND_BOOL, AUG_KIND_INT, AUG_KIND_UINT, AUG_KIND_FLOAT } aug_kind;

typedef struct aug_dtype_traits {
    const char *name;   /* "uint8" */
    aug_kind kind;
    uint8_t size;       /* bytes */
    uint8_t dl_code;    /* DLPack type code (kDLInt=0, kDLUInt=1, kDLFloat=2, kDLBfloat=4, kDLBool=6) */
    uint8_t dl_bits;    /* 8 * size */
    aug_dtype temp;     /* augpy to_temp_dtype */
    /* Value range. Integers: exact in imin/umax (imin = 0 for unsigned; umax is the
     * max as uint64, so INT64 has umax = 2^63-1). Floats: lowest/highest finite. */
    int64_t imin;
    uint64_t umax;
    double fmin, fmax;
} aug_dtype_traits;

/* Traits of a dtype; NULL (with an error) for an invalid value. Borrowed, static. */
AUG_API const aug_dtype_traits *aug_dtype_info(aug_dtype t);
AUG_API const char *aug_dtype_name(aug_dtype t); /* "uint8", or "invalid" */
AUG_API int aug_dtype_is_valid(aug_dtype t);

/* DLPack (code, bits, lanes) -> dtype. AUG_ERR_TYPE for anything else. */
AUG_API aug_status aug_dtype_from_dlpack(uint8_t code, uint8_t bits, uint16_t lanes, aug_dtype *out);

/* Binary promotion of two typed (non-weak) operands, semantics §6 table. */
AUG_API aug_dtype aug_promote(aug_dtype a, aug_dtype b);

/* A scalar operand. Weak scalars are Python numbers (semantics §6): they take the type of
 * the tensor they meet. Typed constants (weak = 0) promote like a 0-d tensor.
 * The value lives in the member matching the dtype's kind: bool/int -> i,
 * uint -> u, float -> f (already rounded to the dtype for typed float16/32).
 * A weak int uses dtype AUG_INT64 (or AUG_UINT64 when above INT64_MAX);
 * a weak float uses AUG_FLOAT64; a bool scalar is AUG_BOOL with weak = 0. */
typedef struct aug_scalar {
    aug_dtype dtype;
    int weak;
    union { int64_t i; uint64_t u; double f; } v;
} aug_scalar;

AUG_API aug_scalar aug_scalar_int(int64_t v);      /* weak int */
AUG_API aug_scalar aug_scalar_uint(uint64_t v);    /* weak int (non-negative, may exceed INT64_MAX) */
AUG_API aug_scalar aug_scalar_float(double v);     /* weak float */
AUG_API aug_scalar aug_scalar_bool(int v);         /* bool, non-weak */
/* Typed constant: `value` (exactly as given) saturate-cast to `dtype`. */
AUG_API aug_status aug_scalar_typed_int(int64_t value, aug_dtype dtype, aug_scalar *out);
AUG_API aug_status aug_scalar_typed_uint(uint64_t value, aug_dtype dtype, aug_scalar *out);
AUG_API aug_status aug_scalar_typed_float(double value, aug_dtype dtype, aug_scalar *out);

/* The dtype a weak scalar takes next to an operand of dtype `other` (semantics §6):
 * int scalar with int/uint/float -> other, with bool -> int32; float scalar with
 * float -> other, else float32; non-weak -> its own dtype. */
AUG_API aug_dtype aug_scalar_result_dtype(const aug_scalar *s, aug_dtype other);

/* Saturating cast of a contiguous or strided run of n elements (semantics §2).
 * Strides are in bytes. src and dst must not partially overlap. */
AUG_API aug_status aug_cast_run(const void *src, int64_t src_stride, aug_dtype src_t,
                                void *dst, int64_t dst_stride, aug_dtype dst_t, int64_t n);

/* Saturating cast of one scalar into `dst` (which holds one element of dst_t). */
AUG_API aug_status aug_scalar_store(const aug_scalar *s, aug_dtype dst_t, void *dst);

/* CAST_LIMITS (semantics §2): lowest and highest values a cast from -> to can produce.
 * *has_min / *has_max are 0 where every source value is representable on that side
 * (Python None). Values are given as scalars of dtype `to`. */
AUG_API aug_status aug_cast_limits(aug_dtype from, aug_dtype to,
                                   int *has_min, aug_scalar *vmin,
                                   int *has_max, aug_scalar *vmax);

/* Bit conversions for the two 16-bit float formats (round half to even;
 * finite values beyond the range saturate to the largest finite value). */
AUG_API uint16_t aug_f64_to_f16(double x);
AUG_API double aug_f16_to_f64(uint16_t h);
AUG_API uint16_t aug_f64_to_bf16(double x);
AUG_API double aug_bf16_to_f64(uint16_t h);

#ifdef __cplusplus
}
#endif
#endif
