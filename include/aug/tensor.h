/* aug/tensor.h: tensors (DLPack-compatible strided views over reference-counted
 * storage), views, indexing, reshape, layouts. semantics §3.
 *
 * Ownership: every function returning aug_tensor* returns a NEW tensor the caller
 * frees with aug_tensor_free(); views share (and keep alive) the storage of their
 * base. Arguments are borrowed. Strides are in ELEMENTS and may be 0 or negative. */
#ifndef AUG_TENSOR_H
#define AUG_TENSOR_H

#include "dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum aug_device_type { AUG_DEVICE_CPU = 1, AUG_DEVICE_CUDA = 2 } aug_device_type; /* = DLPack kDLCPU/kDLCUDA */

typedef struct aug_device {
    aug_device_type type;
    int id;
} aug_device;

/* Reference-counted memory block. Opaque. */
typedef struct aug_storage aug_storage;

typedef struct aug_tensor {
    aug_storage *storage;     /* owned reference */
    char *data;               /* start of the storage's memory (DLPack data) */
    int64_t byte_offset;      /* element [0,...,0] lives at data + byte_offset */
    aug_device device;
    int ndim;                 /* 0 ... AUG_MAX_DIMS */
    aug_dtype dtype;
    int64_t shape[AUG_MAX_DIMS];
    int64_t strides[AUG_MAX_DIMS]; /* elements */
    char layout[AUG_MAX_DIMS + 1]; /* "" or one character per dimension */
} aug_tensor;

/* ---- storage ---------------------------------------------------------------- */

/* Wrap foreign memory (e.g. an imported DLPack tensor). `deleter(ctx)` (may be
 * NULL) is called exactly once when the last reference goes. On failure (NULL:
 * ptr NULL with nbytes > 0, an unavailable device, out of memory) the deleter
 * is not called and the memory stays the caller's. New reference. */
AUG_API aug_storage *aug_storage_wrap(void *ptr, size_t nbytes, aug_device device,
                                      void (*deleter)(void *ctx), void *ctx);
AUG_API void aug_storage_retain(aug_storage *s);
AUG_API void aug_storage_release(aug_storage *s);
AUG_API void *aug_storage_ptr(const aug_storage *s);
AUG_API size_t aug_storage_nbytes(const aug_storage *s);

/* ---- creation --------------------------------------------------------------- */

/* The default device: cuda:0 when built with CUDA and a GPU is present, else cpu;
 * AUG_DEVICE=cpu|cuda overrides. */
AUG_API aug_device aug_default_device(void);
AUG_API aug_device aug_cpu_device(void);

/* Uninitialised C-contiguous tensor. Checks ndim, negative extents, byte-size
 * overflow. New. */
AUG_API aug_tensor *aug_tensor_empty(int ndim, const int64_t *shape, aug_dtype dtype, aug_device device);
/* Filled with zeros / with a scalar (saturate-cast). New. */
AUG_API aug_tensor *aug_tensor_zeros(int ndim, const int64_t *shape, aug_dtype dtype, aug_device device);
AUG_API aug_tensor *aug_tensor_full(int ndim, const int64_t *shape, aug_dtype dtype, aug_device device,
                                    const aug_scalar *value);
AUG_API aug_tensor *aug_tensor_empty_like(const aug_tensor *t, aug_dtype dtype /* AUTO = same */);

/* A tensor over existing storage (retains it). strides in elements, or NULL
 * for C-contiguous ones. Validates that every reachable element lies inside
 * the storage. New. */
AUG_API aug_tensor *aug_tensor_from_storage(aug_storage *s, int64_t byte_offset, int ndim,
                                            const int64_t *shape, const int64_t *strides,
                                            aug_dtype dtype);

AUG_API void aug_tensor_free(aug_tensor *t); /* NULL is fine */

/* ---- properties ------------------------------------------------------------- */

AUG_API int64_t aug_tensor_size(const aug_tensor *t);      /* number of elements */
AUG_API int64_t aug_tensor_itemsize(const aug_tensor *t);
AUG_API int aug_tensor_is_contiguous(const aug_tensor *t); /* C order (extent-1 dims ignored) */
AUG_API void *aug_tensor_ptr(const aug_tensor *t);         /* data + byte_offset */
/* Set the layout string ("" clears; else strlen must equal ndim). */
AUG_API aug_status aug_tensor_set_layout(aug_tensor *t, const char *layout);

/* ---- views ------------------------------------------------------------------ */

/* One entry of a NumPy basic index. */
typedef enum aug_index_kind {
    AUG_INDEX_INT,      /* i (negative counts from the back) */
    AUG_INDEX_SLICE,    /* start:stop:step, each optional */
    AUG_INDEX_NEWAXIS,  /* None */
    AUG_INDEX_ELLIPSIS, /* ... */
    AUG_INDEX_TENSOR    /* an index array or mask: aug_index_item (aug/index.h) only */
} aug_index_kind;

typedef struct aug_index {
    aug_index_kind kind;
    int64_t i;                      /* INT */
    int64_t start, stop, step;      /* SLICE; step must be set (!= 0; 1 for a plain start:stop) */
    int has_start, has_stop;        /* SLICE: 0 = omitted */
} aug_index;

/* NumPy basic indexing: t[idx[0], ..., idx[n-1]]. IndexError for out-of-range
 * ints or too many indices, ValueError for step 0 or two ellipses. New view. */
AUG_API aug_tensor *aug_tensor_index(const aug_tensor *t, int n, const aug_index *idx);

/* Same view as t (new struct, shared storage). New. */
AUG_API aug_tensor *aug_tensor_view(const aug_tensor *t);
/* Permute dimensions (perm is a permutation of 0..ndim-1): dimension d of the
 * view is dimension perm[d] of t, and so is the layout letter ("HWC" with
 * {2, 0, 1} becomes "CHW"). New view. Layouts follow views where each output
 * dimension still is an input one (slices keep the letters, an int index drops
 * its letter); None, broadcasting to more dimensions and reshape to another
 * ndim clear the layout (semantics §12). */
AUG_API aug_tensor *aug_tensor_permute(const aug_tensor *t, const int *perm);
/* View with the same number of elements; one -1 is inferred. Requires a
 * contiguous tensor (ValueError naming contiguous() otherwise). New view. */
AUG_API aug_tensor *aug_tensor_reshape(const aug_tensor *t, int ndim, const int64_t *shape);
/* View broadcast to `shape` (stride 0 on broadcast dims). New view. */
AUG_API aug_tensor *aug_tensor_broadcast_to(const aug_tensor *t, int ndim, const int64_t *shape);
/* A packed C-contiguous copy, or a new view of t when it already is. New. */
AUG_API aug_tensor *aug_tensor_contiguous(const aug_tensor *t);

/* Broadcast shapes per NumPy (semantics §5). out_shape has room for AUG_MAX_DIMS.
 * Error text: "cannot broadcast shapes (2, 3, 4) and (2, 3, 3)" prefixed by `func`. */
AUG_API aug_status aug_broadcast_shapes(const char *func, int na, const int64_t *a, int nb, const int64_t *b,
                                        int *out_ndim, int64_t *out_shape);

/* Format a shape as "(2, 3, 4)" / "(5,)" / "()". Returns buf. */
AUG_API char *aug_shape_str(int ndim, const int64_t *shape, char *buf, size_t len);

/* ---- copies ----------------------------------------------------------------- */

/* dst[...] = src broadcast to dst's shape, with saturate_cast. dst may overlap src.
 * src and dst may be on different devices (src is first moved to dst's). */
AUG_API aug_status aug_copy(const aug_tensor *src, aug_tensor *dst);
/* Fill every element of dst with the scalar (saturate_cast). */
AUG_API aug_status aug_fill(aug_tensor *dst, const aug_scalar *value);
/* New tensor of dtype with t's values (saturate_cast). With *out given it writes
 * there (shape must broadcast). */
AUG_API aug_status aug_cast(const aug_tensor *t, aug_dtype dtype, aug_tensor **out);

/* ---- advanced-index copies (NumPy integer-array indexing) ------------------------ */

/* Gather and scatter along the leading k dimensions of t (1 <= k <= t->ndim), with
 * k host arrays idx[0 .. k-1] of n indices each (negative counts from the back;
 * out of range: AUG_ERR_INDEX "index 5 is out of bounds for axis 0 with size 3").
 * One kernel on the tensor's device; the index arrays are uploaded.
 * aug_take: out[b, ...] = t[idx[0][b], ..., idx[k-1][b], ...], out of shape
 *   (n, t->shape[k:]) and t's dtype on t's device: allocated when *out is NULL,
 *   else it must have that shape and dtype (any strides).
 * aug_put: t[idx[0][b], ..., idx[k-1][b], ...] = value[b, ...] for every b: value
 *   broadcasts to (n, t->shape[k:]), saturate-cast to t's dtype, from any device
 *   (read completely before t is written, even when it overlaps t). With repeated
 *   index tuples the entry with the largest b wins (NumPy's "last write wins"). */
AUG_API aug_status aug_take(const aug_tensor *t, int k, const int64_t *const *idx, int64_t n, aug_tensor **out);
AUG_API aug_status aug_put(aug_tensor *t, int k, const int64_t *const *idx, int64_t n, const aug_tensor *value);

/* ---- moving data between devices and the host ------------------------------- */

/* A new C-contiguous tensor on `device` with t's dtype, values and layout (a
 * copy also when the device is t's own). Any pair of devices. New. */
AUG_API aug_tensor *aug_tensor_to(const aug_tensor *t, aug_device device);

/* Copies t's elements in C order into host memory dst of nbytes (which must be
 * t's size times its item size). blocking = 0 on a CUDA device only queues the
 * copy on the current stream (dst should be page-locked, aug_host_alloc, and
 * must not be read before the stream is synchronised); otherwise it returns
 * once dst holds the data. */
AUG_API aug_status aug_tensor_read(const aug_tensor *t, void *dst, size_t nbytes, int blocking);

/* Copies nbytes of C-ordered host elements of t's dtype into t (any strides);
 * returns once src may be reused. */
AUG_API aug_status aug_tensor_write(aug_tensor *t, const void *src, size_t nbytes);

/* Read one element (index of t.ndim ints, negative allowed) as a scalar of t's dtype. */
AUG_API aug_status aug_tensor_get_item(const aug_tensor *t, const int64_t *index, aug_scalar *out);

#ifdef __cplusplus
}
#endif
#endif
