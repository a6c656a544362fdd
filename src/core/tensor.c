/* core/tensor.c: tensor creation, properties, layouts, element access.
 *
 * A tensor is a strided view (element strides, byte offset) over a reference-
 * counted storage (storage.c). Creation checks ndim (0 ... AUG_MAX_DIMS), the
 * dtype, negative extents and size overflow: like NumPy, the product of the
 * non-zero extents times the item size must fit in int64 even when another extent
 * is 0, so every stride and byte offset of the tensor is representable. */
#include <stdlib.h>
#include <string.h>
#include "backend.h"
#include "ctype.h"
#include "recycle.h"
#include "tensor_impl.h"

/* ---- checks and helpers -------------------------------------------------------- */

int64_t aug__shape_size(int ndim, const int64_t *shape) {
    if (ndim < 0 || (ndim > 0 && !shape)) return -1;
    int64_t n = 1;
    int overflow = 0;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] < 0) return -1;
        if (shape[d] == 0) return 0;
        if (!overflow && __builtin_mul_overflow(n, shape[d], &n)) overflow = 1;
    }
    /* An overflowing prefix is only harmless when a later extent is 0 (checked above). */
    return overflow ? -1 : n;
}

aug_status aug__check_shape(const char *func, int ndim, const int64_t *shape) {
    if (ndim < 0 || ndim > AUG_MAX_DIMS)
        return aug__error(AUG_ERR_VALUE, func, "ndim %d is out of range (0 to %d)", ndim, AUG_MAX_DIMS);
    if (ndim > 0 && !shape) return aug__error(AUG_ERR_VALUE, func, "shape is NULL");
    for (int d = 0; d < ndim; d++)
        if (shape[d] < 0) {
            char b[256];
            return aug__error(AUG_ERR_VALUE, func, "negative extent %lld in shape %s", (long long)shape[d],
                              aug_shape_str(ndim, shape, b, sizeof b));
        }
    return AUG_OK;
}

aug_status aug__check_nbytes(const char *func, int ndim, const int64_t *shape, aug_dtype dtype, int64_t *nbytes) {
    /* NumPy's rule: the non-zero extents times the item size must not overflow. */
    int64_t n = aug__dtype_size(dtype);
    for (int d = 0; d < ndim; d++)
        if (__builtin_mul_overflow(n, shape[d] ? shape[d] : 1, &n)) {
            char b[256];
            /* NumPy's error and wording (ValueError) */
            return aug__error(AUG_ERR_VALUE, func,
                              "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible "
                              "size (shape %s, dtype %s)",
                              aug_shape_str(ndim, shape, b, sizeof b), aug_dtype_name(dtype));
        }
    if (nbytes) *nbytes = n;
    return AUG_OK;
}

static aug_status check_dtype(const char *func, aug_dtype dtype) {
    if (!aug__dtype_ok(dtype)) return aug__error(AUG_ERR_TYPE, func, "invalid dtype %d", (int)dtype);
    return AUG_OK;
}

aug_status aug__tensor_check(const char *func, const aug_tensor *t) {
    if (!t) return aug__error(AUG_ERR_VALUE, func, "tensor is NULL");
    aug_status st = aug__check_shape(func, t->ndim, t->shape);
    if (st == AUG_OK) st = check_dtype(func, t->dtype);
    return st;
}

/* Byte range [lo, hi) a non-empty tensor's elements span inside its storage. */
static void byte_extent(const aug_tensor *t, int64_t *lo, int64_t *hi) {
    int64_t item = aug__dtype_size(t->dtype);
    int64_t a = t->byte_offset, b = t->byte_offset;
    for (int d = 0; d < t->ndim; d++) {
        int64_t span = (t->shape[d] - 1) * t->strides[d] * item;
        if (span < 0) a += span;
        else b += span;
    }
    *lo = a;
    *hi = b + item;
}

int aug__tensors_overlap(const aug_tensor *a, const aug_tensor *b) {
    if (!a->storage || a->storage != b->storage || aug_tensor_size(a) == 0 || aug_tensor_size(b) == 0) return 0;
    int64_t alo, ahi, blo, bhi;
    byte_extent(a, &alo, &ahi);
    byte_extent(b, &blo, &bhi);
    return alo < bhi && blo < ahi;
}

aug_status aug__check_no_self_overlap(const char *func, const aug_tensor *t, const char *what) {
    int n = 0, axis[AUG_MAX_DIMS];
    uint64_t step[AUG_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++) {
        if (t->shape[d] == 0) return AUG_OK; /* no elements */
        if (t->shape[d] == 1) continue;
        if (t->strides[d] == 0)
            return aug__error(AUG_ERR_VALUE, func,
                              "%s has a zero stride on axis %d, so several elements share one memory location; "
                              "write to a contiguous tensor instead", what, d);
        uint64_t a = t->strides[d] < 0 ? (uint64_t)0 - (uint64_t)t->strides[d] : (uint64_t)t->strides[d];
        int i = n++;
        for (; i > 0 && step[i - 1] > a; i--) { /* insertion sort by |stride| */
            step[i] = step[i - 1];
            axis[i] = axis[i - 1];
        }
        step[i] = a;
        axis[i] = d;
    }
    uint64_t span = 1; /* elements covered by the dimensions with smaller strides */
    for (int i = 0; i < n; i++) {
        if (step[i] < span) {
            char sh[160], sd[160];
            return aug__error(AUG_ERR_VALUE, func,
                              "%s has self-overlapping strides (shape %s, strides %s): axis %d steps by %llu "
                              "elements but the axes with smaller strides span %llu, so its elements may share "
                              "memory and the result would depend on the order of writes; write to a contiguous "
                              "tensor instead",
                              what, aug_shape_str(t->ndim, t->shape, sh, sizeof sh),
                              aug_shape_str(t->ndim, t->strides, sd, sizeof sd), axis[i],
                              (unsigned long long)step[i], (unsigned long long)span);
        }
        uint64_t add;
        if (__builtin_mul_overflow((uint64_t)(t->shape[axis[i]] - 1), step[i], &add) ||
            __builtin_add_overflow(span, add, &span))
            span = UINT64_MAX;
    }
    return AUG_OK;
}

void aug__contiguous_strides(int ndim, const int64_t *shape, int64_t *strides) {
    /* Only a zero-size tensor can have extents whose product overflows (the 0
     * keeps its size representable); its strides never step, so the running
     * product saturates there instead of overflowing. */
    int64_t s = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        strides[d] = s;
        if (__builtin_mul_overflow(s, shape[d] > 0 ? shape[d] : 1, &s)) s = INT64_MAX;
    }
}

aug_tensor *aug__tensor_new_view(const char *func, const aug_tensor *t) {
    aug_tensor *v = malloc(sizeof *v);
    if (!v) {
        AUG__NOMEM(func);
        return NULL;
    }
    *v = *t;
    v->layout[AUG_MAX_DIMS] = '\0';
    aug_storage_retain(v->storage);
    return v;
}

void aug__tensor_0d(aug_tensor *t, void *elem, aug_dtype dtype) {
    memset(t, 0, sizeof *t);
    t->storage = NULL;
    t->data = elem;
    t->byte_offset = 0;
    t->device = aug_cpu_device();
    t->ndim = 0;
    t->dtype = dtype;
}

/* ---- creation ------------------------------------------------------------------ */

/* Freed tensor structs are recycled (core/recycle.h) for aug__tensor_empty (a small
 * op allocates and frees one per call). Every tensor struct is a malloc'd block of
 * at least sizeof(aug_tensor), so any of them may be recycled. */
static aug_tensor *tensor_struct_new(void) {
    aug_tensor *t = aug__recycle_get(AUG__RECYCLE_TENSOR);
    if (!t) return calloc(1, sizeof *t);
    memset(t, 0, sizeof *t);
    return t;
}

static void tensor_struct_free(aug_tensor *t) {
    if (!aug__recycle_put(AUG__RECYCLE_TENSOR, t)) free(t);
}

aug_tensor *aug__tensor_empty(const char *func, int ndim, const int64_t *shape, aug_dtype dtype,
                               aug_device device) {
    if (aug__check_shape(func, ndim, shape) != AUG_OK) return NULL;
    return aug__tensor_empty_checked(func, ndim, shape, dtype, device);
}

aug_tensor *aug__tensor_empty_checked(const char *func, int ndim, const int64_t *shape, aug_dtype dtype,
                                       aug_device device) {
    int64_t nbytes;
    if (check_dtype(func, dtype) != AUG_OK || aug__check_nbytes(func, ndim, shape, dtype, &nbytes) != AUG_OK)
        return NULL;
    if (aug__shape_size(ndim, shape) == 0) nbytes = 0;
    aug_tensor *t = tensor_struct_new();
    if (!t) {
        AUG__NOMEM(func);
        return NULL;
    }
    t->storage = aug__storage_alloc(func, device, (size_t)nbytes);
    if (!t->storage) {
        tensor_struct_free(t);
        return NULL;
    }
    t->data = aug_storage_ptr(t->storage);
    t->byte_offset = 0;
    t->device = device;
    t->ndim = ndim;
    t->dtype = dtype;
    for (int d = 0; d < ndim; d++) t->shape[d] = shape[d];
    aug__contiguous_strides(ndim, t->shape, t->strides);
    return t;
}

aug_tensor *aug_tensor_empty(int ndim, const int64_t *shape, aug_dtype dtype, aug_device device) {
    return aug__tensor_empty("aug_tensor_empty", ndim, shape, dtype, device);
}

aug_tensor *aug_tensor_zeros(int ndim, const int64_t *shape, aug_dtype dtype, aug_device device) {
    static const char *func = "aug_tensor_zeros";
    aug_tensor *t = aug__tensor_empty(func, ndim, shape, dtype, device);
    if (!t) return NULL;
    if (device.type == AUG_DEVICE_CPU) { /* all-zero bytes are 0 / +0.0 / false in every dtype */
        memset(t->data, 0, (size_t)(aug__shape_size(ndim, shape) * aug__dtype_size(dtype)));
        return t;
    }
    aug_scalar zero = aug_scalar_int(0);
    if (aug__fill(func, t, &zero) != AUG_OK) {
        aug_tensor_free(t);
        return NULL;
    }
    return t;
}

aug_tensor *aug_tensor_full(int ndim, const int64_t *shape, aug_dtype dtype, aug_device device,
                            const aug_scalar *value) {
    static const char *func = "aug_tensor_full";
    if (!value) {
        aug__error(AUG_ERR_VALUE, func, "value is NULL");
        return NULL;
    }
    aug_tensor *t = aug__tensor_empty(func, ndim, shape, dtype, device);
    if (!t) return NULL;
    if (aug__fill(func, t, value) != AUG_OK) {
        aug_tensor_free(t);
        return NULL;
    }
    return t;
}

aug_tensor *aug_tensor_empty_like(const aug_tensor *t, aug_dtype dtype) {
    static const char *func = "aug_tensor_empty_like";
    if (aug__tensor_check(func, t) != AUG_OK) return NULL;
    aug_tensor *r = aug__tensor_empty(func, t->ndim, t->shape, dtype == AUG_DTYPE_AUTO ? t->dtype : dtype, t->device);
    if (r) memcpy(r->layout, t->layout, sizeof r->layout);
    return r;
}

aug_tensor *aug_tensor_from_storage(aug_storage *s, int64_t byte_offset, int ndim, const int64_t *shape,
                                    const int64_t *strides, aug_dtype dtype) {
    static const char *func = "aug_tensor_from_storage";
    if (!s) {
        aug__error(AUG_ERR_VALUE, func, "storage is NULL");
        return NULL;
    }
    if (aug__check_shape(func, ndim, shape) != AUG_OK || check_dtype(func, dtype) != AUG_OK) return NULL;
    int64_t st[AUG_MAX_DIMS];
    if (strides)
        memcpy(st, strides, (size_t)ndim * sizeof *st);
    else
        aug__contiguous_strides(ndim, shape, st);
    int64_t size = aug__shape_size(ndim, shape), item = aug__dtype_size(dtype);
    int64_t nbytes = (int64_t)aug_storage_nbytes(s);
    int bad = size < 0;
    int64_t lo = byte_offset, hi = byte_offset; /* byte range [lo, hi + item) reached */
    if (!bad && size > 0) {
        for (int d = 0; d < ndim && !bad; d++) {
            int64_t span;
            if (__builtin_mul_overflow(st[d], shape[d] - 1, &span) || __builtin_mul_overflow(span, item, &span)) {
                bad = 1;
                break;
            }
            bad = span < 0 ? __builtin_add_overflow(lo, span, &lo) : __builtin_add_overflow(hi, span, &hi);
        }
        bad = bad || lo < 0 || hi > nbytes - item;
    } else if (!bad) {
        bad = byte_offset < 0 || byte_offset > nbytes;
    }
    if (bad) {
        char b[256];
        aug__error(AUG_ERR_VALUE, func,
                   "a %s view with shape %s at byte offset %lld does not fit in a storage of %lld bytes",
                   aug_dtype_name(dtype), aug_shape_str(ndim, shape, b, sizeof b), (long long)byte_offset,
                   (long long)nbytes);
        return NULL;
    }
    aug_tensor *t = calloc(1, sizeof *t);
    if (!t) {
        AUG__NOMEM(func);
        return NULL;
    }
    aug_storage_retain(s);
    t->storage = s;
    t->data = aug_storage_ptr(s);
    t->byte_offset = byte_offset;
    t->device = aug__storage_device(s);
    t->ndim = ndim;
    t->dtype = dtype;
    for (int d = 0; d < ndim; d++) {
        t->shape[d] = shape[d];
        t->strides[d] = st[d];
    }
    return t;
}

void aug_tensor_free(aug_tensor *t) {
    if (!t) return;
    aug_storage_release(t->storage);
    tensor_struct_free(t);
}

/* ---- properties ---------------------------------------------------------------- */

int64_t aug_tensor_size(const aug_tensor *t) {
    if (aug__tensor_check("aug_tensor_size", t) != AUG_OK) return -1;
    return aug__shape_size(t->ndim, t->shape);
}

int64_t aug_tensor_itemsize(const aug_tensor *t) {
    if (aug__tensor_check("aug_tensor_itemsize", t) != AUG_OK) return -1;
    return aug__dtype_size(t->dtype);
}

int aug_tensor_is_contiguous(const aug_tensor *t) {
    if (aug__tensor_check("aug_tensor_is_contiguous", t) != AUG_OK) return 0;
    if (aug__shape_size(t->ndim, t->shape) == 0) return 1;
    int64_t expect = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        if (t->shape[d] == 1) continue;
        if (t->strides[d] != expect) return 0;
        expect *= t->shape[d];
    }
    return 1;
}

void *aug_tensor_ptr(const aug_tensor *t) {
    if (!t) {
        aug__error(AUG_ERR_VALUE, "aug_tensor_ptr", "tensor is NULL");
        return NULL;
    }
    return t->data ? t->data + t->byte_offset : NULL;
}

aug_status aug_tensor_set_layout(aug_tensor *t, const char *layout) {
    static const char *func = "aug_tensor_set_layout";
    aug_status st = aug__tensor_check(func, t);
    if (st != AUG_OK) return st;
    if (!layout) layout = "";
    size_t n = strnlen(layout, AUG_MAX_DIMS + 1);
    if (n != 0 && n != (size_t)t->ndim)
        return aug__error(AUG_ERR_VALUE, func, "layout \"%.*s\" has %s%zu characters but the tensor has %d dimensions",
                          AUG_MAX_DIMS + 1, layout, n > AUG_MAX_DIMS ? "more than " : "",
                          n > AUG_MAX_DIMS ? (size_t)AUG_MAX_DIMS : n, t->ndim);
    memset(t->layout, 0, sizeof t->layout);
    memcpy(t->layout, layout, n);
    return AUG_OK;
}

/* ---- element access ------------------------------------------------------------ */

aug_status aug_tensor_get_item(const aug_tensor *t, const int64_t *index, aug_scalar *out) {
    static const char *func = "aug_tensor_get_item";
    aug_status st = aug__tensor_check(func, t);
    if (st != AUG_OK) return st;
    if (!out) return aug__error(AUG_ERR_VALUE, func, "out is NULL");
    if (t->ndim > 0 && !index) return aug__error(AUG_ERR_VALUE, func, "index is NULL");
    if (!t->data) return aug__error(AUG_ERR_VALUE, func, "tensor has no data");
    int64_t item = aug__dtype_size(t->dtype), off = t->byte_offset;
    for (int d = 0; d < t->ndim; d++) {
        int64_t i = index[d] < 0 ? index[d] + t->shape[d] : index[d];
        if (i < 0 || i >= t->shape[d])
            return aug__error(AUG_ERR_INDEX, func, "index %lld is out of bounds for axis %d with size %lld",
                              (long long)index[d], d, (long long)t->shape[d]);
    }
    /* All indices are in range, so the tensor is not empty and its strides are
     * validated (a zero-size tensor's are not: multiplying them could overflow). */
    for (int d = 0; d < t->ndim; d++) {
        int64_t i = index[d] < 0 ? index[d] + t->shape[d] : index[d];
        off += i * t->strides[d] * item;
    }
    _Alignas(16) char elem[16];
    if (t->device.type == AUG_DEVICE_CPU) {
        memcpy(elem, t->data + off, (size_t)item);
    } else {
        const aug__backend *be = aug__backend_for(func, t->device);
        if (!be) return aug_last_status();
        st = be->memcpy(elem, aug_cpu_device(), t->data + off, t->device, (size_t)item,
                        aug_stream_handle(aug_current_stream(t->device)), 1);
        if (st != AUG_OK) return st;
    }
    const aug_dtype_traits *tr = aug_dtype_info(t->dtype);
    out->dtype = t->dtype;
    out->weak = 0;
    switch (tr->kind) {
    case AUG_KIND_UINT:
        aug__convert_one(elem, (int)t->dtype, &out->v.u, AUG_UINT64);
        break;
    case AUG_KIND_FLOAT:
        aug__convert_one(elem, (int)t->dtype, &out->v.f, AUG_FLOAT64);
        break;
    default:
        aug__convert_one(elem, (int)t->dtype, &out->v.i, AUG_INT64);
        break;
    }
    return AUG_OK;
}

aug_status aug__out_like(const char *func, aug_tensor *const *out, const aug_tensor *ref, const char *what,
                         aug_tensor **res) {
    aug_tensor *t = *out;
    if (!t) {
        *res = aug__tensor_empty(func, ref->ndim, ref->shape, ref->dtype, ref->device);
        return *res ? AUG_OK : aug_last_status();
    }
    aug_status st = aug__tensor_check(func, t);
    if (st) return st;
    char a[160], b[160];
    if (!aug__device_eq(t->device, ref->device))
        return aug__error(AUG_ERR_VALUE, func, "out is on device %s but %s is on %s", aug__device_str(t->device, a, sizeof a),
                          what, aug__device_str(ref->device, b, sizeof b));
    int same = t->ndim == ref->ndim;
    for (int d = 0; same && d < ref->ndim; d++) same = t->shape[d] == ref->shape[d];
    if (!same)
        return aug__error(AUG_ERR_VALUE, func, "out has shape %s but %s has shape %s", aug_shape_str(t->ndim, t->shape, a, sizeof a),
                          what, aug_shape_str(ref->ndim, ref->shape, b, sizeof b));
    if (t->dtype != ref->dtype)
        return aug__error(AUG_ERR_TYPE, func, "out has dtype %s but %s has dtype %s", aug_dtype_name(t->dtype), what,
                          aug_dtype_name(ref->dtype));
    if (!aug_tensor_is_contiguous(t)) return aug__error(AUG_ERR_VALUE, func, "out must be contiguous");
    *res = t;
    return AUG_OK;
}
