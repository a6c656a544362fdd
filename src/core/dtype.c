/* core/dtype.c: dtype traits, DLPack codes, type promotion and scalars (semantics §1, §6).
 *
 * The traits table is generated from AUG_DTYPE_LIST; promotion is a 13x13 data
 * table copied from semantics §6. Typed scalar constants are saturate-cast through
 * aug__convert_one (core/cast.c), so a constant holds exactly what a tensor of its
 * dtype would hold. */
#include <float.h>
#include "ctype.h"

/* Value ranges per dtype (imin, umax, fmin, fmax of aug_dtype_traits) from the
 * ctype rows of scalar/cast.h: integers exactly in imin/umax, floats' lowest and
 * highest finite values in fmin/fmax; for integers fmin/fmax are the range's
 * ends rounded inward to double, so a double clamped to them always converts
 * without overflow. */
#define LIM_(N) (int64_t)(AUG__CT_MN(N)), (uint64_t)(AUG__CT_MX(N)), AUG__CT_FMIN(N), AUG__CT_FMAX(N)
#define TRAITS_(name_, kind_, size_, code_, temp_, imin_, umax_, fmin_, fmax_)                             \
    {.name = name_, .kind = kind_, .size = size_, .dl_code = code_, .dl_bits = 8 * (size_), .temp = temp_, \
     .imin = imin_, .umax = umax_, .fmin = fmin_, .fmax = fmax_}
#define TRAITS(...) TRAITS_(__VA_ARGS__)
#define TRAITS_ENTRY(e, name, kind, size, code, temp) \
    [AUG_##e] = TRAITS(name, kind, size, code, AUG_##temp, LIM_(e)),

static const aug_dtype_traits traits[] = {AUG_DTYPE_LIST(TRAITS_ENTRY)};

_Static_assert(sizeof traits / sizeof traits[0] == AUG_NUM_DTYPES, "traits table out of step with AUG_DTYPE_LIST");
_Static_assert(AUG_NUM_DTYPES == 13, "SPEC 1 has 13 dtypes");

int aug_dtype_is_valid(aug_dtype t) { return (int)t >= 0 && (int)t < AUG_NUM_DTYPES; }

const aug_dtype_traits *aug_dtype_info(aug_dtype t) {
    if (!aug_dtype_is_valid(t)) {
        aug__error(AUG_ERR_TYPE, "aug_dtype_info", "invalid dtype %d", (int)t);
        return NULL;
    }
    return &traits[t];
}

const char *aug_dtype_name(aug_dtype t) { return aug_dtype_is_valid(t) ? traits[t].name : "invalid"; }

const char *aug__ctype_name(int ctype) {
    return ctype == AUG__I128 ? "int128" : aug_dtype_name((aug_dtype)ctype);
}

aug_status aug_dtype_from_dlpack(uint8_t code, uint8_t bits, uint16_t lanes, aug_dtype *out) {
    static const char fn[] = "aug_dtype_from_dlpack";
    if (!out) return aug__error(AUG_ERR_VALUE, fn, "out is NULL");
    if (lanes != 1) return aug__error(AUG_ERR_TYPE, fn, "lanes must be 1, got %u", (unsigned)lanes);
    for (int t = 0; t < AUG_NUM_DTYPES; t++) {
        if (traits[t].dl_code == code && traits[t].dl_bits == bits) {
            *out = (aug_dtype)t;
            return AUG_OK;
        }
    }
    return aug__error(AUG_ERR_TYPE, fn, "unsupported DLPack dtype (code %u, bits %u)", (unsigned)code,
                      (unsigned)bits);
}

/* semantics §6, row by row (upper triangle as printed, the table is symmetric). */
#define b_ AUG_BOOL
#define i8 AUG_INT8
#define i16 AUG_INT16
#define i32 AUG_INT32
#define i64 AUG_INT64
#define u8 AUG_UINT8
#define u16 AUG_UINT16
#define u32 AUG_UINT32
#define u64 AUG_UINT64
#define f16 AUG_FLOAT16
#define bf AUG_BFLOAT16
#define f32 AUG_FLOAT32
#define f64 AUG_FLOAT64
static const signed char promote_table[AUG_NUM_DTYPES][AUG_NUM_DTYPES] = {
    /*         b_   i8   i16  i32  i64  u8   u16  u32  u64  f16  bf   f32  f64 */
    /* b_  */ {b_,  i8,  i16, i32, i64, u8,  u16, u32, u64, f16, bf,  f32, f64},
    /* i8  */ {i8,  i8,  i16, i32, i64, i16, i32, i64, i64, f16, bf,  f32, f64},
    /* i16 */ {i16, i16, i16, i32, i64, i16, i32, i64, i64, f16, bf,  f32, f64},
    /* i32 */ {i32, i32, i32, i32, i64, i32, i32, i64, i64, f16, bf,  f32, f64},
    /* i64 */ {i64, i64, i64, i64, i64, i64, i64, i64, i64, f16, bf,  f32, f64},
    /* u8  */ {u8,  i16, i16, i32, i64, u8,  u16, u32, u64, f16, bf,  f32, f64},
    /* u16 */ {u16, i32, i32, i32, i64, u16, u16, u32, u64, f16, bf,  f32, f64},
    /* u32 */ {u32, i64, i64, i64, i64, u32, u32, u32, u64, f16, bf,  f32, f64},
    /* u64 */ {u64, i64, i64, i64, i64, u64, u64, u64, u64, f16, bf,  f32, f64},
    /* f16 */ {f16, f16, f16, f16, f16, f16, f16, f16, f16, f16, f32, f32, f64},
    /* bf  */ {bf,  bf,  bf,  bf,  bf,  bf,  bf,  bf,  bf,  f32, bf,  f32, f64},
    /* f32 */ {f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f64},
    /* f64 */ {f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64, f64},
};
#undef b_
#undef i8
#undef i16
#undef i32
#undef i64
#undef u8
#undef u16
#undef u32
#undef u64
#undef f16
#undef bf
#undef f32
#undef f64

aug_dtype aug_promote(aug_dtype a, aug_dtype b) {
    if (!aug_dtype_is_valid(a) || !aug_dtype_is_valid(b)) {
        aug__error(AUG_ERR_TYPE, "aug_promote", "invalid dtype %d", (int)(aug_dtype_is_valid(a) ? b : a));
        return AUG_DTYPE_AUTO;
    }
    return (aug_dtype)promote_table[a][b];
}

/* ---- scalars ------------------------------------------------------------------ */

aug_scalar aug_scalar_int(int64_t v) {
    aug_scalar s = {.dtype = AUG_INT64, .weak = 1};
    s.v.i = v;
    return s;
}

aug_scalar aug_scalar_uint(uint64_t v) {
    if (v <= (uint64_t)INT64_MAX) return aug_scalar_int((int64_t)v);
    aug_scalar s = {.dtype = AUG_UINT64, .weak = 1};
    s.v.u = v;
    return s;
}

aug_scalar aug_scalar_float(double v) {
    aug_scalar s = {.dtype = AUG_FLOAT64, .weak = 1};
    s.v.f = v;
    return s;
}

aug_scalar aug_scalar_bool(int v) {
    aug_scalar s = {.dtype = AUG_BOOL, .weak = 0};
    s.v.i = v != 0;
    return s;
}

/* value (of ctype src_t at p) saturate-cast into dtype, then widened exactly into
 * the member matching the dtype's kind. */
static aug_status scalar_typed(const char *fn, const void *p, int src_t, aug_dtype dtype, aug_scalar *out) {
    if (!aug_dtype_is_valid(dtype)) return aug__error(AUG_ERR_TYPE, fn, "invalid dtype %d", (int)dtype);
    if (!out) return aug__error(AUG_ERR_VALUE, fn, "out is NULL");
    unsigned char elem[16];
    aug__convert_one(p, src_t, elem, (int)dtype);
    aug_scalar s = {.dtype = dtype, .weak = 0};
    switch (traits[dtype].kind) {
    case AUG_KIND_UINT:
        aug__convert_one(elem, (int)dtype, &s.v.u, AUG_UINT64);
        break;
    case AUG_KIND_FLOAT:
        aug__convert_one(elem, (int)dtype, &s.v.f, AUG_FLOAT64);
        break;
    default:
        aug__convert_one(elem, (int)dtype, &s.v.i, AUG_INT64);
        break;
    }
    *out = s;
    return AUG_OK;
}

aug_status aug_scalar_typed_int(int64_t value, aug_dtype dtype, aug_scalar *out) {
    return scalar_typed("aug_scalar_typed_int", &value, AUG_INT64, dtype, out);
}

aug_status aug_scalar_typed_uint(uint64_t value, aug_dtype dtype, aug_scalar *out) {
    return scalar_typed("aug_scalar_typed_uint", &value, AUG_UINT64, dtype, out);
}

aug_status aug_scalar_typed_float(double value, aug_dtype dtype, aug_scalar *out) {
    return scalar_typed("aug_scalar_typed_float", &value, AUG_FLOAT64, dtype, out);
}

aug_dtype aug_scalar_result_dtype(const aug_scalar *s, aug_dtype other) {
    static const char fn[] = "aug_scalar_result_dtype";
    if (!s) {
        aug__error(AUG_ERR_VALUE, fn, "scalar is NULL");
        return AUG_DTYPE_AUTO;
    }
    if (!aug_dtype_is_valid(s->dtype)) {
        aug__error(AUG_ERR_TYPE, fn, "invalid scalar dtype %d", (int)s->dtype);
        return AUG_DTYPE_AUTO;
    }
    if (!s->weak) return s->dtype;
    if (!aug_dtype_is_valid(other)) {
        aug__error(AUG_ERR_TYPE, fn, "invalid dtype %d", (int)other);
        return AUG_DTYPE_AUTO;
    }
    aug_kind sk = traits[s->dtype].kind, ok = traits[other].kind;
    if (sk == AUG_KIND_FLOAT) return ok == AUG_KIND_FLOAT ? other : AUG_FLOAT32;
    if (sk == AUG_KIND_BOOL) return aug_promote(AUG_BOOL, other); /* a weak bool acts as a bool tensor */
    return ok == AUG_KIND_BOOL ? AUG_INT32 : other;
}
