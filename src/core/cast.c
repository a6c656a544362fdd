/* core/cast.c: element conversions for the core (scalars, single elements), the
 * public scalar store and CAST_LIMITS, and the float16/bfloat16 bit functions
 * (semantics §2).
 *
 * The per-element rule is scalar/cast.h's, shared by every backend; runs of
 * elements are converted by the backends (the CPU's cpu/convert.c). */
#include "ctype.h"

void aug__convert_one(const void *src, int src_t, void *dst, int dst_t) {
    switch (src_t) {
#define ONE_CASE(S, D)                          \
    case AUG__CT_##D: {                         \
        AUG__CT_T(D) y = AUG__CV(S, D, x);      \
        memcpy(dst, &y, sizeof y);              \
        return;                                 \
    }
#define ONE_ROW(S)                              \
    case AUG__CT_##S: {                         \
        AUG__CT_T(S) x;                         \
        memcpy(&x, src, sizeof x);              \
        switch (dst_t) {                        \
            AUG__CTYPE_LIST_WITH(ONE_CASE, S)   \
        default:                                \
            return;                             \
        }                                       \
    }
        AUG__CTYPE_LIST(ONE_ROW)
#undef ONE_ROW
#undef ONE_CASE
    default:
        return;
    }
}

uint16_t aug_f64_to_f16(double x) { return aug__f64_to_f16(x); }
uint16_t aug_f64_to_bf16(double x) { return aug__f64_to_bf16(x); }
double aug_f16_to_f64(uint16_t h) { return (double)aug__f16_to_f32(h); }
double aug_bf16_to_f64(uint16_t h) { return (double)aug__bf16_to_f32(h); }

/* The ctype and address holding a scalar's value (semantics.md: the member matching its kind). */
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
    aug__convert_one(p, st, dst, (int)dst_t);
    return AUG_OK;
}

/* CAST_LIMITS (semantics §2), derived from the cast rules:
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
