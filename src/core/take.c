/* core/take.c: aug_take and aug_put (aug/tensor.h), NumPy's integer-array
 * indexing of the leading dimensions: the backend-neutral half.
 *
 * The core checks the indices (negative ones wrap; out of range is AUG_ERR_INDEX
 * naming the index, the axis and its size), turns each index tuple into the byte
 * offset of its row, and hands the backend one plan of rows (core/plan.h
 * aug__take_plan). aug_put first brings the value to the tensor's dtype, device
 * and shape (a temporary copy unless it already is one and does not share the
 * tensor's storage), and keeps, of repeated rows, the one with the largest b,
 * so the backend may write the rows in any order. */
#include <stdlib.h>
#include <string.h>
#include "backend.h"
#include "tensor_impl.h"

typedef struct row {
    int64_t off, b;
} row;

static int row_cmp(const void *pa, const void *pb) {
    const row *a = pa, *b = pb;
    if (a->off != b->off) return a->off < b->off ? -1 : 1;
    return a->b < b->b ? -1 : a->b > b->b;
}

/* Byte offsets of the n rows of t selected by idx (checked); NULL on error. */
static int64_t *row_offsets(const char *func, const aug_tensor *t, int k, const int64_t *const *idx, int64_t n) {
    int64_t *off = calloc((size_t)(n > 0 ? n : 1), sizeof *off);
    if (!off) {
        aug__error(AUG_ERR_MEMORY, func, "out of host memory for %lld offsets", (long long)n);
        return NULL;
    }
    const int64_t es = aug_dtype_info(t->dtype)->size;
    for (int d = 0; d < k; d++) {
        const int64_t size = t->shape[d], st = t->strides[d] * es;
        for (int64_t b = 0; b < n; b++) {
            int64_t x = idx[d][b];
            if (x < -size || x >= size) {
                free(off);
                aug__error(AUG_ERR_INDEX, func, "index %lld is out of bounds for axis %d with size %lld",
                           (long long)x, d, (long long)size);
                return NULL;
            }
            off[b] += (x < 0 ? x + size : x) * st;
        }
    }
    return off;
}

static aug_status check_args(const char *func, const aug_tensor *t, int k, const int64_t *const *idx, int64_t n) {
    aug_status st = aug__tensor_check(func, t);
    if (st != AUG_OK) return st;
    if (k < 1 || k > t->ndim)
        return aug__error(AUG_ERR_VALUE, func, "k = %d must be in [1, %d] (the tensor's dimensions)", k, t->ndim);
    if (n < 0) return aug__error(AUG_ERR_VALUE, func, "n = %lld must be >= 0", (long long)n);
    if (n > 0 && !idx) return aug__error(AUG_ERR_VALUE, func, "idx is NULL");
    for (int d = 0; n > 0 && d < k; d++)
        if (!idx[d]) return aug__error(AUG_ERR_VALUE, func, "idx[%d] is NULL", d);
    return AUG_OK;
}

/* The plan's rest dims (t's dims k..) with both sides' byte strides; o is the
 * (n, rest) side. */
static void plan_rest(aug__take_plan *p, const aug_tensor *t, int k, const aug_tensor *o) {
    const int64_t es = aug_dtype_info(t->dtype)->size;
    p->itemsize = (int)es;
    p->ndim = t->ndim - k;
    p->rest = 1;
    for (int d = 0; d < p->ndim; d++) {
        p->shape[d] = t->shape[k + d];
        p->t_st[d] = t->strides[k + d] * es;
        p->o_st[d] = o->strides[1 + d] * es;
        p->rest *= p->shape[d];
    }
}

/* Plans and runs n row copies between t (rows at byte offsets t_off) and o (rows
 * at o_off): gathers into o, or with put scatters o into t. */
static aug_status run_take(const aug__backend *be, const char *func, int put, int64_t n, const int64_t *t_off,
                           const int64_t *o_off, const aug_tensor *t, int k, const aug_tensor *o) {
    aug__take_plan p;
    memset(&p, 0, sizeof p);
    p.func = func;
    p.put = put;
    p.n = n;
    p.t_off = t_off;
    p.o_off = o_off;
    p.t_base = (char *)aug_tensor_ptr(t);
    p.o_base = (char *)aug_tensor_ptr(o);
    plan_rest(&p, t, k, o);
    p.exec = aug__exec_for(t->device);
    return n * p.rest > 0 ? aug__dispatch_take(be, &p) : AUG_OK;
}

aug_status aug_take(const aug_tensor *t, int k, const int64_t *const *idx, int64_t n, aug_tensor **out) {
    static const char *func = "aug_take";
    if (!out) return aug__error(AUG_ERR_VALUE, func, "out is NULL");
    aug_status st = check_args(func, t, k, idx, n);
    if (st != AUG_OK) return st;
    int64_t shape[AUG_MAX_DIMS];
    const int ndim = t->ndim - k + 1;
    shape[0] = n;
    for (int d = 1; d < ndim; d++) shape[d] = t->shape[k + d - 1];
    if (*out) {
        st = aug__tensor_check(func, *out);
        if (st != AUG_OK) return st;
        int same = (*out)->ndim == ndim && (*out)->dtype == t->dtype && (*out)->device.type == t->device.type &&
                   (*out)->device.id == t->device.id;
        for (int d = 0; same && d < ndim; d++) same = (*out)->shape[d] == shape[d];
        if (!same) {
            char a[96], b[96];
            return aug__error(AUG_ERR_VALUE, func, "out must be a %s tensor of shape %s on the tensor's device, got %s %s",
                              aug_dtype_name(t->dtype), aug_shape_str(ndim, shape, a, sizeof a),
                              aug_dtype_name((*out)->dtype), aug_shape_str((*out)->ndim, (*out)->shape, b, sizeof b));
        }
    }
    aug__need need = {AUG__FAMILY_TAKE, 0, t->dtype, AUG_DTYPE_AUTO};
    const aug__backend *be = aug__backend_supporting(func, t->device, &need);
    if (!be) return aug_last_status();
    int64_t *toff = row_offsets(func, t, k, idx, n);
    if (!toff) return aug_last_status();
    aug_tensor *res = *out ? *out : aug_tensor_empty(ndim, shape, t->dtype, t->device);
    int64_t *ooff = res ? calloc((size_t)(n > 0 ? n : 1), sizeof *ooff) : NULL;
    if (!res || !ooff) {
        if (res && res != *out) aug_tensor_free(res);
        free(toff);
        return res ? aug__error(AUG_ERR_MEMORY, func, "out of host memory") : aug_last_status();
    }
    const int64_t es = aug_dtype_info(t->dtype)->size;
    for (int64_t b = 0; b < n; b++) ooff[b] = b * res->strides[0] * es;
    st = run_take(be, func, 0, n, toff, ooff, t, k, res);
    free(toff);
    free(ooff);
    if (st != AUG_OK) {
        if (res != *out) aug_tensor_free(res);
        return st;
    }
    *out = res;
    return AUG_OK;
}

aug_status aug_put(aug_tensor *t, int k, const int64_t *const *idx, int64_t n, const aug_tensor *value) {
    static const char *func = "aug_put";
    aug_status st = check_args(func, t, k, idx, n);
    if (st != AUG_OK) return st;
    if ((st = aug__check_no_self_overlap(func, t, "the target")) != AUG_OK) return st;
    st = aug__tensor_check(func, value);
    if (st != AUG_OK) return st;
    int64_t shape[AUG_MAX_DIMS];
    const int ndim = t->ndim - k + 1;
    shape[0] = n;
    for (int d = 1; d < ndim; d++) shape[d] = t->shape[k + d - 1];
    aug__need need = {AUG__FAMILY_TAKE, 0, t->dtype, AUG_DTYPE_AUTO};
    const aug__backend *be = aug__backend_supporting(func, t->device, &need);
    if (!be) return aug_last_status();
    int64_t *toff = row_offsets(func, t, k, idx, n);
    if (!toff) return aug_last_status();
    aug_tensor *v = aug_tensor_broadcast_to(value, ndim, shape); /* checks the shapes */
    if (!v) {
        free(toff);
        return aug_last_status();
    }
    if (value->dtype != t->dtype || value->device.type != t->device.type || value->device.id != t->device.id ||
        value->storage == t->storage) {
        aug_tensor *c = aug_tensor_empty(ndim, shape, t->dtype, t->device);
        st = c ? aug_copy(v, c) : aug_last_status();
        aug_tensor_free(v);
        if (st != AUG_OK) {
            aug_tensor_free(c);
            free(toff);
            return st;
        }
        v = c;
    }
    row *rows = malloc((size_t)(n > 0 ? n : 1) * sizeof *rows);
    int64_t *ooff = rows ? malloc((size_t)(n > 0 ? n : 1) * sizeof *ooff) : NULL;
    if (!ooff) {
        st = aug__error(AUG_ERR_MEMORY, func, "out of host memory");
        free(toff);
        free(rows);
        aug_tensor_free(v);
        return st;
    }
    /* Of repeated rows keep the last (largest b): sorted by (offset, b). */
    for (int64_t b = 0; b < n; b++) rows[b] = (row){toff[b], b};
    qsort(rows, (size_t)n, sizeof *rows, row_cmp);
    const int64_t es = aug_dtype_info(t->dtype)->size;
    int64_t m = 0;
    for (int64_t j = 0; j < n; j++) {
        if (j + 1 < n && rows[j + 1].off == rows[j].off) continue;
        toff[m] = rows[j].off;
        ooff[m] = rows[j].b * v->strides[0] * es;
        m++;
    }
    st = run_take(be, func, 1, m, toff, ooff, t, k, v);
    free(toff);
    free(rows);
    free(ooff);
    aug_tensor_free(v);
    return st;
}
