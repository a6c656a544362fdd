/* core/copy.c: aug_copy, aug_fill and aug_cast: saturating copies through the
 * backend's elementwise entry with an AUG_OP_COPY plan.
 *
 * A fill value enters as a storage-less 0-d tensor over one host element that holds
 * the scalar exactly: a weak int as int64 (uint64 above INT64_MAX), a weak float as
 * float64, a typed scalar as its own dtype. The engine then saturate-casts it into
 * every element of the destination. Any overlap between src and dst is handled by
 * the planner (core/plan.c); a source on another device is moved first
 * (core/transfer.c). */
#include <string.h>
#include "backend.h"
#include "tensor_impl.h"

aug_status aug__copy(const char *func, const aug_tensor *src, aug_tensor *dst) {
    aug_status st = aug__tensor_check(func, src);
    if (st == AUG_OK) st = aug__tensor_check(func, dst);
    if (st != AUG_OK) return st;
    st = aug__check_broadcast_to(func, src->ndim, src->shape, dst->ndim, dst->shape);
    if (st != AUG_OK) return st;
    /* A storage-less 0-d source is a host scalar that any backend can read; a
     * tensor on another device is moved to dst's first. */
    int host_scalar = src->storage == NULL && src->ndim == 0;
    if (!host_scalar && !aug__device_eq(src->device, dst->device)) {
        aug_tensor *moved = aug_tensor_to(src, dst->device);
        if (!moved) return aug_last_status();
        st = aug__copy(func, moved, dst);
        aug_tensor_free(moved);
        return st;
    }
    aug__ew_operands ops;
    memset(&ops, 0, sizeof ops);
    ops.nin = 1;
    ops.in[0] = src;
    ops.in_ctype[0] = (int)src->dtype;
    ops.out = dst;
    ops.out_ctype = (int)dst->dtype;
    return aug__run_elementwise(func, AUG_OP_COPY, &ops);
}

aug_status aug_copy(const aug_tensor *src, aug_tensor *dst) { return aug__copy("aug_copy", src, dst); }

aug_status aug__fill(const char *func, aug_tensor *dst, const aug_scalar *value) {
    aug_status st = aug__tensor_check(func, dst);
    if (st != AUG_OK) return st;
    if (!value) return aug__error(AUG_ERR_VALUE, func, "value is NULL");
    if (!aug__dtype_ok(value->dtype))
        return aug__error(AUG_ERR_TYPE, func, "invalid scalar dtype %d", (int)value->dtype);
    union {
        int64_t i;
        uint64_t u;
        double f;
        _Alignas(16) char bytes[16];
    } elem;
    memset(&elem, 0, sizeof elem);
    const aug_dtype_traits *tr = aug_dtype_info(value->dtype);
    /* The member holding the value, as a wide dtype, and its bytes. */
    aug_dtype wide = tr->kind == AUG_KIND_UINT ? AUG_UINT64 : tr->kind == AUG_KIND_FLOAT ? AUG_FLOAT64 : AUG_INT64;
    const void *src = tr->kind == AUG_KIND_UINT ? (const void *)&value->v.u
                      : tr->kind == AUG_KIND_FLOAT ? (const void *)&value->v.f
                                                   : (const void *)&value->v.i;
    aug_dtype elem_t;
    if (value->weak || value->dtype == wide) {
        elem_t = wide; /* the value as given, never rounded */
        memcpy(elem.bytes, src, 8);
    } else {
        elem_t = value->dtype; /* typed: already representable in its dtype */
        aug__convert_one(src, (int)wide, elem.bytes, (int)elem_t);
    }
    aug_tensor scalar;
    aug__tensor_0d(&scalar, elem.bytes, elem_t);
    return aug__copy(func, &scalar, dst);
}

aug_status aug_fill(aug_tensor *dst, const aug_scalar *value) { return aug__fill("aug_fill", dst, value); }

aug_status aug_cast(const aug_tensor *t, aug_dtype dtype, aug_tensor **out) {
    static const char *func = "aug_cast";
    aug_status st = aug__tensor_check(func, t);
    if (st != AUG_OK) return st;
    if (!out) return aug__error(AUG_ERR_VALUE, func, "out is NULL");
    if (dtype != AUG_DTYPE_AUTO && !aug__dtype_ok(dtype))
        return aug__error(AUG_ERR_TYPE, func, "invalid dtype %d", (int)dtype);
    if (*out) {
        if (dtype != AUG_DTYPE_AUTO && dtype != (*out)->dtype)
            return aug__error(AUG_ERR_TYPE, func, "dtype %s does not match out's dtype %s", aug_dtype_name(dtype),
                              aug_dtype_name((*out)->dtype));
        return aug__copy(func, t, *out);
    }
    aug_tensor *r = aug__tensor_empty(func, t->ndim, t->shape, dtype == AUG_DTYPE_AUTO ? t->dtype : dtype, t->device);
    if (!r) return aug_last_status();
    memcpy(r->layout, t->layout, sizeof r->layout);
    st = aug__copy(func, t, r);
    if (st != AUG_OK) {
        aug_tensor_free(r);
        return st;
    }
    *out = r;
    return AUG_OK;
}
