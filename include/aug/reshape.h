/* aug/reshape.h: DALI's reshape / reinterpret (`fn.reshape`, semantics §12): a new view of
 * a contiguous tensor with another shape, layout and/or dtype. No data is copied.
 *
 * Ownership: aug_reshape and aug_reshape_batch return NEW views (free them with
 * aug_tensor_free); they share, and keep alive, the input's storage, so writes
 * through a view show in the input. Arguments are borrowed.
 *
 * Rules (DALI's, exactly where DALI defines them):
 * - At most one of shape_input, shape and rel_shape ("Shape input, `shape` argument
 *   and `rel_shape` argument are mutually exclusive"). Giving nothing at all (no
 *   shape, rel_shape, src_dims, layout or dtype) is an error: the call is a no-op.
 * - shape / shape_input: one negative extent is a wildcard inferred from the byte
 *   size ("Only one negative extent is allowed"); an extent of 0 is illegal. The
 *   result must occupy exactly the input's bytes.
 * - rel_shape: out[d] = round_half_away(float(rel[d]) * in[src_d]) computed in
 *   float32, src_d = src_dims[d] when given (where src_dims[d] == -1, in[src_d]
 *   counts as 1), else d. A negative entry is the wildcard. Without src_dims its
 *   length may exceed the input's ndim by one only when the last entry is negative;
 *   with src_dims both lengths must be equal.
 * - src_dims: indices into the input's dims, -1 inserts an extent of 1. Alone (no
 *   shape source) the volume must match. It cannot be combined with shape or
 *   shape_input (DALI ignores it there; we refuse).
 * - layout: NULL = not given (kept when the output ndim equals the input layout's
 *   length, else cleared); "" clears; otherwise one character per output dim.
 * - dtype: AUG_DTYPE_AUTO keeps the dtype; another dtype reinterprets the bytes.
 *   Without a shape source the innermost extent is rescaled (its byte size must be
 *   divisible by the new itemsize); wildcard inference works in bytes.
 * - The input must be C-contiguous (AUG_ERR_VALUE otherwise), and a reinterpreted
 *   dtype must be naturally aligned at the view's address. */
#ifndef AUG_RESHAPE_H
#define AUG_RESHAPE_H
#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct aug_reshape_args {
    int has_shape_input;          /* DALI's second positional input */
    int shape_input_ndim;         /* number of entries (0 ... AUG_MAX_DIMS) */
    const int64_t *shape_input;
    int has_shape;                /* the `shape` argument */
    int shape_ndim;
    const int64_t *shape;
    int has_rel_shape;
    int rel_ndim;                 /* 1 ... AUG_MAX_DIMS */
    const float *rel_shape;
    int has_src_dims;
    int src_ndim;                 /* 0 ... AUG_MAX_DIMS */
    const int *src_dims;
    const char *layout;           /* NULL = not given; "" clears */
    aug_dtype dtype;              /* AUG_DTYPE_AUTO = keep */
} aug_reshape_args;

/* Zero-initialised arguments with dtype = AUG_DTYPE_AUTO and no layout. */
AUG_API aug_reshape_args aug_reshape_args_init(void);

/* *out = a NEW view of t reshaped per `a`. *out must be NULL on entry (a view
 * cannot be written into an existing tensor); it stays NULL on error. */
AUG_API aug_status aug_reshape(const aug_tensor *t, const aug_reshape_args *a, aug_tensor **out);

/* A batch of n samples, each reshaped on its own: nargs == 1 applies args[0] to
 * every sample, nargs == n gives sample i args[i] (DALI's per-sample shapes).
 * out[0..n) receive NEW views; on error every out[i] is NULL and the message
 * names the sample where it matters. */
AUG_API aug_status aug_reshape_batch(int n, const aug_tensor *const *in, const aug_reshape_args *args,
                                     int nargs, aug_tensor **out);

#ifdef __cplusplus
}
#endif
#endif
