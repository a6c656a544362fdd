/* core/tensor_impl.h: internals shared by the tensor, view, copy and storage files (private).
 *
 * Storage allocation through a device's backend, view construction, C-order
 * strides, argument checks and device names used in messages. */
#ifndef AUG_CORE_TENSOR_IMPL_H
#define AUG_CORE_TENSOR_IMPL_H

#include "aug/tensor.h"
#include "error.h"

/* New storage of nbytes (0 allowed) on `dev`, allocated by the device's backend
 * (64-byte aligned on the CPU). NULL with an error prefixed by func if the device
 * is unavailable or memory runs out. New reference. */
AUG__HIDDEN aug_storage *aug__storage_alloc(const char *func, aug_device dev, size_t nbytes);

/* aug_tensor_empty with errors prefixed by func. New. */
AUG__HIDDEN aug_tensor *aug__tensor_empty(const char *func, int ndim, const int64_t *shape, aug_dtype dtype,
                                          aug_device device);

/* aug__tensor_empty for a shape already known valid (0 <= ndim <= AUG_MAX_DIMS, no
 * negative extent: another tensor's, or a broadcast of such): skips that check. */
AUG__HIDDEN aug_tensor *aug__tensor_empty_checked(const char *func, int ndim, const int64_t *shape,
                                                  aug_dtype dtype, aug_device device);

/* The device a storage lives on (borrowed storage, non-NULL). */
AUG__HIDDEN aug_device aug__storage_device(const aug_storage *s);

/* AUG_OK if t is non-NULL with a valid ndim, dtype and shape; else an error
 * prefixed by func ("aug_x: tensor is NULL"). */
AUG__HIDDEN aug_status aug__tensor_check(const char *func, const aug_tensor *t);

/* AUG_OK if every element of t (an output about to be written) has memory of its
 * own; else AUG_ERR_VALUE "func: <what> has ...". Elements that share memory make
 * the result depend on the order of writes, i.e. on the thread count. The check
 * is sufficient, not exact: the dimensions of extent > 1, sorted by |stride|,
 * must each step past everything the smaller ones span (|stride_k| >= 1 +
 * sum_{j<k} (extent_j - 1) |stride_j|, in elements). That proves the elements
 * distinct for every contiguous, transposed, sliced, flipped or strided view;
 * the rare strides that interleave without overlapping (shape (3, 2), strides
 * (2, 3)) are refused too, with the same message. Zero strides name the axis. */
AUG__HIDDEN aug_status aug__check_no_self_overlap(const char *func, const aug_tensor *t, const char *what);
/* 1 if two tensors' element ranges in one storage intersect (by their byte extents:
 * interleaved views that touch no common element count too). */
AUG__HIDDEN int aug__tensors_overlap(const aug_tensor *a, const aug_tensor *b);

/* A new tensor struct describing the same view as t, holding a new reference to
 * its storage (t may be storage-less). NULL with an error on allocation failure. */
AUG__HIDDEN aug_tensor *aug__tensor_new_view(const char *func, const aug_tensor *t);

/* C-order element strides for shape (zero extents count as 1, as NumPy does). */
AUG__HIDDEN void aug__contiguous_strides(int ndim, const int64_t *shape, int64_t *strides);

/* AUG_OK if shape `s` broadcasts to `d` (trailing alignment, s extents 1 or equal,
 * sn <= dn); else AUG_ERR_VALUE "func: cannot broadcast shape (3,) to (2, 4)". */
AUG__HIDDEN aug_status aug__check_broadcast_to(const char *func, int sn, const int64_t *s, int dn,
                                               const int64_t *d);

/* "cpu", "cuda:1" (at most 32 bytes with the terminator). Returns buf. */
AUG__HIDDEN char *aug__device_str(aug_device dev, char *buf, size_t len);

/* Saturating copy of src (broadcast) into dst, and fill of dst with a scalar;
 * the workers of aug_copy / aug_fill with errors prefixed by func. */
AUG__HIDDEN aug_status aug__copy(const char *func, const aug_tensor *src, aug_tensor *dst);
AUG__HIDDEN aug_status aug__fill(const char *func, aug_tensor *dst, const aug_scalar *value);

/* Byte size of a valid dtype (from the one dtype list). */
static inline int64_t aug__dtype_size(aug_dtype t) {
    static const uint8_t sizes[] = {
#define AUG_X_(e, name, kind, size, code, temp) size,
        AUG_DTYPE_LIST(AUG_X_)
#undef AUG_X_
    };
    return sizes[t];
}

static inline int aug__dtype_ok(aug_dtype t) { return (int)t >= 0 && (int)t < (int)AUG_NUM_DTYPES; }

/* ndim in 0 ... AUG_MAX_DIMS, shape non-NULL when ndim > 0, no negative extent. */
AUG__HIDDEN aug_status aug__check_shape(const char *func, int ndim, const int64_t *shape);
/* NumPy's size rule: the non-zero extents times the item size fit in int64
 * (AUG_ERR_VALUE, NumPy's "array is too big; ..."); *nbytes (may be NULL) gets that product. */
AUG__HIDDEN aug_status aug__check_nbytes(const char *func, int ndim, const int64_t *shape, aug_dtype dtype,
                                         int64_t *nbytes);

/* The output of an image op that keeps its input's shape and dtype: *out ==
 * NULL allocates one (stored in *res, caller frees on error); otherwise *out
 * must match `ref` in device, shape and dtype and be contiguous, and *res =
 * *out. `what` names ref in messages ("the input", "the image"). */
AUG__HIDDEN aug_status aug__out_like(const char *func, aug_tensor *const *out, const aug_tensor *ref,
                                     const char *what, aug_tensor **res);

/* A 0-d tensor over `elem` (which must stay alive during use), no storage: how
 * the core hands a host scalar to the planner. */
AUG__HIDDEN void aug__tensor_0d(aug_tensor *t, void *elem, aug_dtype dtype);

/* Number of elements with overflow check; -1 if the product exceeds INT64_MAX. */
AUG__HIDDEN int64_t aug__shape_size(int ndim, const int64_t *shape);

/* 1 if the two devices are the same. */
static inline int aug__device_eq(aug_device a, aug_device b) { return a.type == b.type && a.id == b.id; }

#endif
