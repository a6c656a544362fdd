/* core/index.c: aug_tensor_index_get and aug_tensor_index_put (aug/index.h),
 * NumPy indexing with index tensors, run from the plan of index_plan.c.
 *
 * Without index tensors the plan's view is the result (get) or the target of a
 * copy (put). With them the gather and the scatter are one kernel on t's device
 * (aug_take / aug_put over V's advanced dimensions, the B dimensions of the
 * result or of the value merged into one). With duplicated indices the last
 * write wins (aug_put keeps the last of repeated rows). A write through one
 * boolean mask over t's leading dimensions of a value that is the same for
 * every selected entry (t[mask] = 0, img[mask] = (255, 0, 0)) is one WHERE
 * kernel instead, t = where(mask, value, t) in t's dtype. */
#include <string.h>
#include "index_plan.h"
#include "tensor_impl.h"

/* V with the advanced dims first (in the order of the index arrays), as aug_take /
 * aug_put index them. New view. */
static aug_tensor *adv_first(const aug__index_plan *P) {
    int perm[AUG_MAX_DIMS], isadv[AUG_MAX_DIMS] = {0}, k = 0;
    for (int i = 0; i < P->nadv; i++) {
        perm[k++] = P->advdim[i];
        isadv[P->advdim[i]] = 1;
    }
    for (int d = 0; d < P->V->ndim; d++)
        if (!isadv[d]) perm[k++] = d;
    return aug_tensor_permute(P->V, perm);
}

/* A (B, rest)-ordered view W as (nB, rest): its B dims merged into one. NULL (no
 * error) when their strides do not allow it. */
static aug_tensor *rows_view(const aug__index_plan *P, const aug_tensor *W) {
    for (int d = 0, prev = -1; d < P->nb; d++) { /* consecutive extents > 1 must nest (extent-1 dims: any stride) */
        if (W->shape[d] == 1) continue;
        if (prev >= 0 && W->strides[prev] != W->strides[d] * W->shape[d]) return NULL;
        prev = d;
    }
    aug_tensor *v = aug_tensor_view(W);
    if (!v) return NULL;
    int64_t stride = 0;
    for (int d = P->nb - 1; d >= 0; d--)
        if (W->shape[d] != 1) {
            stride = W->strides[d];
            break;
        }
    v->shape[0] = P->nB;
    v->strides[0] = stride;
    for (int d = 0; d < P->nrest; d++) {
        v->shape[1 + d] = W->shape[P->nb + d];
        v->strides[1 + d] = W->strides[P->nb + d];
    }
    v->ndim = 1 + P->nrest;
    memset(v->layout, 0, sizeof v->layout);
    return v;
}

/* *out = the gather of the plan into a new tensor. */
static aug_status gather(const char *func, const aug_tensor *t, const aug__index_plan *P, aug_tensor **out) {
    aug_tensor *res = aug_tensor_empty(P->out_ndim, P->out_shape, t->dtype, t->device);
    aug_tensor *W = res ? aug_tensor_permute(res, P->perm) : NULL;
    aug_tensor *R = W ? rows_view(P, W) : NULL; /* res is packed: its B dims always merge */
    aug_tensor *A = R ? adv_first(P) : NULL;
    aug_status st = A ? aug_take(A, P->nadv, P->idx, P->nB, &R) : AUG_ERR_MEMORY;
    if (st != AUG_OK) st = aug__index_reraise(func, A ? st : AUG_OK);
    aug_tensor_free(A);
    aug_tensor_free(R);
    aug_tensor_free(W);
    if (st == AUG_OK) *out = res;
    else aug_tensor_free(res);
    return st;
}

aug_status aug_tensor_index_get(const aug_tensor *t, int n, const aug_index_item *items, aug_tensor **out) {
    static const char *func = "aug_tensor_index_get";
    if (!out) return aug__error(AUG_ERR_VALUE, func, "out is NULL");
    if (*out) return aug__error(AUG_ERR_VALUE, func, "*out must be NULL (the result is a new view or tensor)");
    aug__index_plan P;
    aug_status st = aug__index_plan_build(func, t, n, items, &P);
    if (st != AUG_OK) return st;
    if (!P.advanced) {
        *out = P.V;
        P.V = NULL;
    } else {
        st = gather(func, t, &P, out);
    }
    aug__index_plan_free(&P);
    return st;
}

/* ---- writing ----------------------------------------------------------------------- */

/* value broadcast to the plan's result shape (a scalar as a 0-d tensor of V's
 * dtype first, in *tmp). New view, or NULL with the error set. */
static aug_tensor *value_to_result(const char *func, const aug__index_plan *P, aug_operand value, aug_tensor **tmp) {
    const aug_tensor *v = value.tensor;
    int ndim = P->advanced ? P->out_ndim : P->V->ndim;
    const int64_t *shape = P->advanced ? P->out_shape : P->V->shape;
    if (!v && !(v = *tmp = aug_tensor_full(0, NULL, P->V->dtype, P->V->device, &value.scalar))) {
        aug__index_reraise(func, AUG_OK);
        return NULL;
    }
    aug_tensor *bc = aug_tensor_broadcast_to(v, ndim, shape);
    if (!bc) {
        char a[192], b[192];
        aug__error(AUG_ERR_VALUE, func,
                   "shape mismatch: value array of shape %s could not be broadcast to indexing result of shape %s",
                   aug_shape_str(v->ndim, v->shape, a, sizeof a), aug_shape_str(ndim, shape, b, sizeof b));
    }
    return bc;
}

/* The scatter of the value (broadcast to the result, bc) through the plan. */
static aug_status scatter(const char *func, const aug__index_plan *P, const aug_tensor *bc) {
    aug_tensor *W = aug_tensor_permute(bc, P->perm), *packed = NULL;
    aug_tensor *R = W ? rows_view(P, W) : NULL;
    if (W && !R) { /* B dims that do not merge (a partly broadcast value): packed first */
        packed = aug_tensor_empty(W->ndim, W->shape, W->dtype, W->device);
        if (packed && aug_copy(W, packed) == AUG_OK) R = rows_view(P, packed);
    }
    aug_tensor *A = R ? adv_first(P) : NULL;
    aug_status st = A ? aug_put(A, P->nadv, P->idx, P->nB, R) : AUG_ERR_MEMORY;
    if (st != AUG_OK) st = aug__index_reraise(func, A ? st : AUG_OK);
    aug_tensor_free(A);
    aug_tensor_free(R);
    aug_tensor_free(packed);
    aug_tensor_free(W);
    return st;
}

/* t = where(mask, value, t): mask (bool, t's leading dims) and a value tensor
 * moved to t's device when elsewhere. */
static aug_status where_put(const char *func, aug_tensor *t, const aug_tensor *mask, aug_operand value) {
    aug_tensor *mtmp = NULL, *vtmp = NULL, *mview = NULL;
    aug_status st = AUG_OK;
    if (mask->device.type != t->device.type || mask->device.id != t->device.id)
        mask = mtmp = aug_tensor_to(mask, t->device);
    const aug_tensor *v = value.tensor;
    if (mask && v && (v->device.type != t->device.type || v->device.id != t->device.id))
        value.tensor = vtmp = aug_tensor_to(v, t->device);
    if (mask && (!v || value.tensor) && (mview = aug_tensor_view(mask))) {
        for (int d = mask->ndim; d < t->ndim; d++) {
            mview->shape[d] = 1;
            mview->strides[d] = 0;
        }
        mview->ndim = t->ndim;
        memset(mview->layout, 0, sizeof mview->layout);
        aug_operand in[3] = {aug_operand_tensor(mview), value, aug_operand_tensor(t)};
        aug_tensor *out = t;
        st = aug_elementwise(func, AUG_OP_WHERE, 3, in, t->dtype, AUG_DTYPE_AUTO, &out);
    } else {
        st = aug__index_reraise(func, AUG_OK);
    }
    aug_tensor_free(mview);
    aug_tensor_free(vtmp);
    aug_tensor_free(mtmp);
    return st;
}

/* 1 when items are one bool mask over t's leading dims and value is the same for
 * every selected entry (a scalar, or a tensor broadcastable to t's other dims). */
static int is_mask_fill(const aug_tensor *t, int n, const aug_index_item *items, aug_operand value) {
    if (n != 1 || !items || items[0].kind != AUG_INDEX_TENSOR || !items[0].tensor) return 0;
    const aug_tensor *m = items[0].tensor, *v = value.tensor;
    if (m->dtype != AUG_BOOL || m->ndim < 1 || m->ndim > t->ndim) return 0;
    for (int d = 0; d < m->ndim; d++)
        if (m->shape[d] != t->shape[d]) return 0;
    if (!v) return 1;
    if (v->ndim > t->ndim - m->ndim) return 0;
    for (int d = 0; d < v->ndim; d++) {
        int64_t e = v->shape[v->ndim - 1 - d];
        if (e != 1 && e != t->shape[t->ndim - 1 - d]) return 0;
    }
    return 1;
}

aug_status aug_tensor_index_put(aug_tensor *t, int n, const aug_index_item *items, aug_operand value) {
    static const char *func = "aug_tensor_index_put";
    aug_status st = aug__tensor_check(func, t);
    if (st == AUG_OK && value.tensor) st = aug__tensor_check(func, value.tensor);
    if (st != AUG_OK) return st;
    if (is_mask_fill(t, n, items, value) && aug__tensor_check(func, items[0].tensor) == AUG_OK)
        return where_put(func, t, items[0].tensor, value);
    aug__index_plan P;
    if ((st = aug__index_plan_build(func, t, n, items, &P)) != AUG_OK) return st;
    aug_tensor *tmp = NULL, *bc = value_to_result(func, &P, value, &tmp);
    if (!bc) st = aug_last_status();
    else if (P.advanced) st = scatter(func, &P, bc);
    else if ((st = aug_copy(bc, P.V)) != AUG_OK) st = aug__index_reraise(func, st);
    aug_tensor_free(bc);
    aug_tensor_free(tmp);
    aug__index_plan_free(&P);
    return st;
}
