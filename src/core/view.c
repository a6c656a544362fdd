/* core/view.c: views over a tensor's storage: basic indexing, permute, reshape,
 * broadcast_to, and contiguous().
 *
 * Indexing follows NumPy basic indexing exactly: ints (negative count from the
 * back), slices with Python's slice.indices() clamping, None and one Ellipsis.
 * Every view holds a new reference to the base's storage.
 *
 * Layout strings follow a view where each output dimension still is an input
 * dimension: slices, Ellipsis, view(), broadcast_to() to the same ndim and
 * contiguous() keep the letters; an int index drops its dimension's letter;
 * permute() permutes the letters. Where a dimension appears that has no letter
 * (None, broadcast_to a higher ndim) or dimensions are regrouped (reshape to a
 * different ndim) the layout is cleared; reshape to the same ndim keeps it (as
 * DALI's reshape does when no layout is given). */
#include <stdlib.h>
#include <string.h>
#include "tensor_impl.h"

/* Python slice.indices(size) for step != 0: sets *start and returns the length. */
static int64_t slice_indices(const aug_index *ix, int64_t size, int64_t *start_out) {
    int64_t step = ix->step;
    int64_t lower = step > 0 ? 0 : -1, upper = step > 0 ? size : size - 1;
    int64_t start, stop;
    if (!ix->has_start) {
        start = step > 0 ? lower : upper;
    } else {
        start = ix->start;
        if (start < 0) {
            start += size; /* cannot overflow: start < 0 <= size */
            if (start < lower) start = lower;
        } else if (start > upper) {
            start = upper;
        }
    }
    if (!ix->has_stop) {
        stop = step > 0 ? upper : lower;
    } else {
        stop = ix->stop;
        if (stop < 0) {
            stop += size;
            if (stop < lower) stop = lower;
        } else if (stop > upper) {
            stop = upper;
        }
    }
    *start_out = start;
    /* start and stop lie in [-1, size], so the differences cannot overflow. */
    if (step > 0) return stop > start ? (stop - start - 1) / step + 1 : 0;
    if (start <= stop) return 0;
    if (step == INT64_MIN) return 1; /* -step is not representable; any step beyond size gives 1 */
    return (start - stop - 1) / (-step) + 1;
}

aug_tensor *aug_tensor_index(const aug_tensor *t, int n, const aug_index *idx) {
    static const char *func = "aug_tensor_index";
    if (aug__tensor_check(func, t) != AUG_OK) return NULL;
    if (n < 0) {
        aug__error(AUG_ERR_VALUE, func, "number of indices %d is negative", n);
        return NULL;
    }
    if (n > 0 && !idx) {
        aug__error(AUG_ERR_VALUE, func, "index array is NULL");
        return NULL;
    }
    int consumed = 0, newaxes = 0, ellipses = 0, ints = 0;
    for (int k = 0; k < n; k++) {
        switch (idx[k].kind) {
        case AUG_INDEX_INT:
            consumed++;
            ints++;
            break;
        case AUG_INDEX_SLICE:
            consumed++;
            break;
        case AUG_INDEX_NEWAXIS:
            newaxes++;
            break;
        case AUG_INDEX_ELLIPSIS:
            if (++ellipses > 1) {
                aug__error(AUG_ERR_VALUE, func, "an index can only have a single ellipsis ('...')");
                return NULL;
            }
            break;
        default:
            aug__error(AUG_ERR_VALUE, func, "invalid index kind %d at position %d", (int)idx[k].kind, k);
            return NULL;
        }
    }
    if (consumed > t->ndim) {
        aug__error(AUG_ERR_INDEX, func, "too many indices for tensor: tensor is %d-dimensional, but %d were indexed",
                   t->ndim, consumed);
        return NULL;
    }
    int out_ndim = t->ndim - ints + newaxes;
    if (out_ndim > AUG_MAX_DIMS) {
        aug__error(AUG_ERR_INDEX, func, "the result would have %d dimensions (at most %d are supported)", out_ndim,
                   AUG_MAX_DIMS);
        return NULL;
    }

    int64_t shape[AUG_MAX_DIMS], strides[AUG_MAX_DIMS];
    char layout[AUG_MAX_DIMS + 1] = {0};
    int keep_layout = t->layout[0] != '\0' && newaxes == 0;
    int64_t offset = 0; /* in elements */
    int offset_overflow = 0;
    int d = 0, o = 0;   /* next input / output dimension */
    for (int k = 0; k <= n; k++) {
        /* Past the last index, the remaining dimensions are taken whole (an implicit Ellipsis). */
        aug_index_kind kind = k < n ? idx[k].kind : AUG_INDEX_ELLIPSIS;
        if (k == n && ellipses) break;
        switch (kind) {
        case AUG_INDEX_INT: {
            int64_t i = idx[k].i, size = t->shape[d];
            if (i < 0) i += size;
            if (i < 0 || i >= size) {
                aug__error(AUG_ERR_INDEX, func, "index %lld is out of bounds for axis %d with size %lld",
                           (long long)idx[k].i, d, (long long)size);
                return NULL;
            }
            /* A zero-size base's strides are unchecked: its products may overflow.
             * The offset is then unused (the view is empty too), see below. */
            int64_t step_off;
            if (__builtin_mul_overflow(i, t->strides[d], &step_off) || __builtin_add_overflow(offset, step_off, &offset))
                offset_overflow = 1;
            d++;
            break;
        }
        case AUG_INDEX_SLICE: {
            if (idx[k].step == 0) { /* in index order, as NumPy: `t[5, ::0]` is an IndexError on 3 rows */
                aug__error(AUG_ERR_VALUE, func, "slice step cannot be zero");
                return NULL;
            }
            int64_t start, len = slice_indices(&idx[k], t->shape[d], &start), st;
            int64_t step_off;
            if (len > 0 && (__builtin_mul_overflow(start, t->strides[d], &step_off) ||
                            __builtin_add_overflow(offset, step_off, &offset)))
                offset_overflow = 1;
            /* With len <= 1 the stride is never used to step; keep it representable. */
            if (__builtin_mul_overflow(t->strides[d], idx[k].step, &st)) st = t->strides[d];
            shape[o] = len;
            strides[o] = st;
            layout[o++] = t->layout[d++];
            break;
        }
        case AUG_INDEX_NEWAXIS:
            shape[o] = 1;
            strides[o++] = 0;
            break;
        case AUG_INDEX_ELLIPSIS: {
            int whole = t->ndim - consumed;
            for (int j = 0; j < whole; j++) {
                shape[o] = t->shape[d];
                strides[o] = t->strides[d];
                layout[o++] = t->layout[d++];
            }
            consumed = t->ndim; /* an Ellipsis covers the rest once */
            break;
        }
        case AUG_INDEX_TENSOR: break; /* refused above (aug_tensor_index_get takes index tensors) */
        }
    }
    aug_tensor *v = aug__tensor_new_view(func, t);
    if (!v) return NULL;
    v->ndim = out_ndim;
    for (int j = 0; j < out_ndim; j++) {
        v->shape[j] = shape[j];
        v->strides[j] = strides[j];
    }
    /* A non-empty view of a non-empty base: element `offset` is inside the storage. */
    if (aug__shape_size(out_ndim, shape) != 0 && !offset_overflow) v->byte_offset += offset * aug__dtype_size(t->dtype);
    memset(v->layout, 0, sizeof v->layout);
    if (keep_layout) memcpy(v->layout, layout, (size_t)out_ndim);
    return v;
}

aug_tensor *aug_tensor_view(const aug_tensor *t) {
    static const char *func = "aug_tensor_view";
    if (aug__tensor_check(func, t) != AUG_OK) return NULL;
    return aug__tensor_new_view(func, t);
}

aug_tensor *aug_tensor_permute(const aug_tensor *t, const int *perm) {
    static const char *func = "aug_tensor_permute";
    if (aug__tensor_check(func, t) != AUG_OK) return NULL;
    if (t->ndim > 0 && !perm) {
        aug__error(AUG_ERR_VALUE, func, "perm is NULL");
        return NULL;
    }
    int axes[AUG_MAX_DIMS], seen[AUG_MAX_DIMS] = {0};
    for (int j = 0; j < t->ndim; j++) {
        int a = perm[j] < 0 ? perm[j] + t->ndim : perm[j];
        if (a < 0 || a >= t->ndim) {
            aug__error(AUG_ERR_VALUE, func, "axis %d is out of bounds for tensor of dimension %d", perm[j], t->ndim);
            return NULL;
        }
        if (seen[a]++) {
            aug__error(AUG_ERR_VALUE, func, "repeated axis %d in permutation", perm[j]);
            return NULL;
        }
        axes[j] = a;
    }
    aug_tensor *v = aug__tensor_new_view(func, t);
    if (!v) return NULL;
    int has_layout = t->layout[0] != '\0';
    for (int j = 0; j < t->ndim; j++) {
        v->shape[j] = t->shape[axes[j]];
        v->strides[j] = t->strides[axes[j]];
        if (has_layout) v->layout[j] = t->layout[axes[j]];
    }
    return v;
}

aug_tensor *aug_tensor_reshape(const aug_tensor *t, int ndim, const int64_t *shape) {
    static const char *func = "aug_tensor_reshape";
    if (aug__tensor_check(func, t) != AUG_OK) return NULL;
    if (ndim < 0 || ndim > AUG_MAX_DIMS) {
        aug__error(AUG_ERR_VALUE, func, "ndim %d is out of range (0 to %d)", ndim, AUG_MAX_DIMS);
        return NULL;
    }
    if (ndim > 0 && !shape) {
        aug__error(AUG_ERR_VALUE, func, "shape is NULL");
        return NULL;
    }
    char sb[256];
    int wildcard = -1;
    int64_t known = 1, size = aug__shape_size(t->ndim, t->shape);
    int fits = 1;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] == -1) {
            if (wildcard >= 0) {
                aug__error(AUG_ERR_VALUE, func, "can only specify one unknown dimension (-1) in shape %s",
                           aug_shape_str(ndim, shape, sb, sizeof sb));
                return NULL;
            }
            wildcard = d;
        } else if (shape[d] < 0) {
            aug__error(AUG_ERR_VALUE, func, "negative extent %lld in shape %s", (long long)shape[d],
                       aug_shape_str(ndim, shape, sb, sizeof sb));
            return NULL;
        } else if (fits && __builtin_mul_overflow(known, shape[d], &known)) {
            fits = 0;
        }
    }
    /* A zero `known` makes -1 ambiguous (NumPy refuses it too). */
    int ok = fits && (wildcard < 0 ? known == size : known != 0 && size % known == 0);
    if (!ok) {
        aug__error(AUG_ERR_VALUE, func, "cannot reshape tensor of size %lld into shape %s", (long long)size,
                   aug_shape_str(ndim, shape, sb, sizeof sb));
        return NULL;
    }
    int64_t final[AUG_MAX_DIMS];
    for (int d = 0; d < ndim; d++) final[d] = d == wildcard ? size / known : shape[d];
    /* NumPy's size rule holds for an empty tensor's new shape too: (0, 2**62, 4) is too big */
    if (aug__check_nbytes(func, ndim, final, t->dtype, NULL) != AUG_OK) return NULL;
    if (!aug_tensor_is_contiguous(t)) {
        aug__error(AUG_ERR_VALUE, func, "tensor is not contiguous; call contiguous() first");
        return NULL;
    }
    aug_tensor *v = aug__tensor_new_view(func, t);
    if (!v) return NULL;
    for (int d = 0; d < ndim; d++) v->shape[d] = final[d];
    aug__contiguous_strides(ndim, v->shape, v->strides);
    if (ndim != t->ndim) memset(v->layout, 0, sizeof v->layout);
    v->ndim = ndim;
    return v;
}

aug_tensor *aug_tensor_broadcast_to(const aug_tensor *t, int ndim, const int64_t *shape) {
    static const char *func = "aug_tensor_broadcast_to";
    if (aug__tensor_check(func, t) != AUG_OK || aug__check_shape(func, ndim, shape) != AUG_OK ||
        aug__check_broadcast_to(func, t->ndim, t->shape, ndim, shape) != AUG_OK ||
        aug__check_nbytes(func, ndim, shape, t->dtype, NULL) != AUG_OK)
        return NULL;
    aug_tensor *v = aug__tensor_new_view(func, t);
    if (!v) return NULL;
    int lead = ndim - t->ndim;
    for (int d = 0; d < ndim; d++) {
        int s = d - lead; /* source dimension, < 0 for a new leading one */
        v->shape[d] = shape[d];
        v->strides[d] = s >= 0 && t->shape[s] == shape[d] ? t->strides[s] : 0;
    }
    if (ndim != t->ndim) memset(v->layout, 0, sizeof v->layout);
    v->ndim = ndim;
    return v;
}

aug_tensor *aug_tensor_contiguous(const aug_tensor *t) {
    static const char *func = "aug_tensor_contiguous";
    if (aug__tensor_check(func, t) != AUG_OK) return NULL;
    if (aug_tensor_is_contiguous(t)) return aug__tensor_new_view(func, t);
    aug_tensor *c = aug__tensor_empty(func, t->ndim, t->shape, t->dtype, t->device);
    if (!c) return NULL;
    if (aug__copy(func, t, c) != AUG_OK) {
        aug_tensor_free(c);
        return NULL;
    }
    memcpy(c->layout, t->layout, sizeof c->layout);
    return c;
}
