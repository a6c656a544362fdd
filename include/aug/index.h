/* aug/index.h: NumPy indexing in full: t[items] and t[items] = value, where the
 * items mix ints, slices, None, one Ellipsis and index tensors (integer arrays
 * and boolean masks: NumPy's advanced indexing). semantics §3.
 *
 * The result is exactly NumPy's: without index tensors a view (as
 * aug_tensor_index, tensor.h), with them a new C-contiguous copy whose shape
 * puts the broadcast shape of the index arrays where the advanced items stand
 * when they are adjacent, or first when a basic item separates them (ints
 * next to index tensors count as advanced, as in NumPy). A 0-d integer tensor
 * is an int. Index tensors may live on any device; they are read to the host
 * (masks become their nonzero() coordinates), checked, and the gather or
 * scatter runs as one kernel on t's device (aug_take / aug_put). */
#ifndef AUG_INDEX_H
#define AUG_INDEX_H

#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* At most this many items in one index (as NumPy's 64). */
#define AUG_INDEX_MAX_ITEMS 64

/* One item: the fields of aug_index (tensor.h) for kind INT, SLICE, NEWAXIS and
 * ELLIPSIS (a SLICE must set step), or kind AUG_INDEX_TENSOR with `tensor` an
 * integer tensor of indices (negative count from the back) or a bool mask
 * (over as many dimensions as it has, each of their extent). Borrowed. */
typedef struct aug_index_item {
    aug_index_kind kind;
    int64_t i;                  /* INT */
    int64_t start, stop, step;  /* SLICE */
    int has_start, has_stop;    /* SLICE: 0 = omitted */
    const aug_tensor *tensor;   /* TENSOR */
} aug_index_item;

/* *out = t[items[0], ..., items[n-1]]: a new view without index tensors, else a
 * new tensor of t's dtype on t's device. *out must be NULL (it is set on success
 * only). AUG_ERR_INDEX as NumPy's IndexError: an index out of bounds ("index 5 is
 * out of bounds for axis 0 with size 3"), too many indices, two ellipses, a
 * non-integer index tensor, a mask whose shape does not match, index arrays that
 * do not broadcast together, a 0-d mask. */
AUG_API aug_status aug_tensor_index_get(const aug_tensor *t, int n, const aug_index_item *items, aug_tensor **out);

/* t[items] = value: value (a scalar, or a tensor of any dtype on any device,
 * read completely before t is written even when it overlaps t) broadcast to the
 * shape aug_tensor_index_get would return (AUG_ERR_VALUE "shape mismatch: ..."
 * otherwise) and saturate-cast to t's dtype. Of repeated index tuples the last
 * one's value wins. The errors of aug_tensor_index_get. */
AUG_API aug_status aug_tensor_index_put(aug_tensor *t, int n, const aug_index_item *items, aug_operand value);

#ifdef __cplusplus
}
#endif
#endif
