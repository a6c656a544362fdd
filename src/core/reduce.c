/* core/reduce.c: aug_reduce (semantics §10), the backend-neutral half of the reductions.
 *
 * Validates the axes (NumPy's wording), chooses the result dtype, allocates or
 * checks the output, and hands the backend a plan (core/plan.h) built over a view
 * of the output with the input's ndim (extent 1, stride 0 on every reduced axis). A given
 * output of another dtype receives saturate_cast of the exact result (one rounding);
 * a float sum or mean in the result's own dtype rounds as IEEE does (+-inf).
 * An output that shares storage with the input is written through a temporary. */
#include <string.h>
#include "backend.h"
#include "tensor_impl.h"

static const char *reduce_func(aug_reduce_op op) {
    switch (op) {
    case AUG_REDUCE_SUM: return "aug_sum";
    case AUG_REDUCE_MIN: return "aug_min";
    case AUG_REDUCE_MAX: return "aug_max";
    case AUG_REDUCE_MEAN: return "aug_mean";
    case AUG_REDUCE_ALL: return "aug_all";
    case AUG_REDUCE_ANY: return "aug_any";
    case AUG_REDUCE_ARGMIN: return "aug_argmin";
    case AUG_REDUCE_ARGMAX: return "aug_argmax";
    }
    return NULL;
}

/* semantics §10 / ops.h: the dtype of a newly allocated result. */
static aug_dtype reduce_dtype(aug_reduce_op op, aug_dtype in, int upcast) {
    aug_kind kind = aug_dtype_info(in)->kind;
    switch (op) {
    case AUG_REDUCE_SUM:
        if (!upcast) return in;
        return kind == AUG_KIND_FLOAT ? AUG_FLOAT64 : kind == AUG_KIND_INT ? AUG_INT64 : AUG_UINT64;
    case AUG_REDUCE_MEAN:
        return kind == AUG_KIND_FLOAT ? in : AUG_FLOAT64;
    case AUG_REDUCE_ALL:
    case AUG_REDUCE_ANY:
        return AUG_BOOL;
    case AUG_REDUCE_ARGMIN:
    case AUG_REDUCE_ARGMAX:
        return AUG_INT64;
    default:
        return in;
    }
}

/* Normalises the axes into a bit mask; NumPy's messages for bad ones. */
static aug_status reduce_axes(const char *func, int ndim, int naxes, const int *axes, uint32_t *mask) {
    *mask = 0;
    if (naxes < 0) {
        for (int d = 0; d < ndim; d++) *mask |= 1u << d;
        return AUG_OK;
    }
    if (naxes > 0 && !axes) return aug__error(AUG_ERR_VALUE, func, "axes is NULL but naxes is %d", naxes);
    for (int i = 0; i < naxes; i++) {
        int a = axes[i];
        if (a < -ndim || a >= ndim)
            return aug__error(AUG_ERR_VALUE, func, "axis %d is out of bounds for tensor of dimension %d", a, ndim);
        if (a < 0) a += ndim;
        if (*mask & (1u << a)) return aug__error(AUG_ERR_VALUE, func, "duplicate value in 'axis'");
        *mask |= 1u << a;
    }
    return AUG_OK;
}

aug_status aug_reduce(aug_reduce_op op, const aug_tensor *t, int naxes, const int *axes, int keepdim, int upcast,
                      aug_tensor **out) {
    const char *func = reduce_func(op);
    if (!func) return aug__error(AUG_ERR_VALUE, "aug_reduce", "invalid reduction op %d", (int)op);
    aug_status st = aug__tensor_check(func, t);
    if (st) return st;
    if (!out) return aug__error(AUG_ERR_VALUE, func, "out is NULL");
    const int is_arg = op == AUG_REDUCE_ARGMIN || op == AUG_REDUCE_ARGMAX;
    if (is_arg && naxes > 1)
        return aug__error(AUG_ERR_VALUE, func, "axis must be a single axis or all axes, got %d axes", naxes);
    uint32_t mask;
    if ((st = reduce_axes(func, t->ndim, naxes, axes, &mask))) return st;

    /* Output shape, and the sizes of the kept and reduced spaces. */
    int ondim = 0;
    int64_t oshape[AUG_MAX_DIMS], osize = 1, rsize = 1;
    for (int d = 0; d < t->ndim; d++) {
        if (mask & (1u << d)) {
            rsize *= t->shape[d];
            if (keepdim) oshape[ondim++] = 1;
        } else {
            osize *= t->shape[d];
            oshape[ondim++] = t->shape[d];
        }
    }
    if (rsize == 0 && osize > 0 && (op == AUG_REDUCE_MIN || op == AUG_REDUCE_MAX))
        return aug__error(AUG_ERR_VALUE, func, "zero-size tensor to reduction operation %s which has no identity",
                          op == AUG_REDUCE_MIN ? "min" : "max");
    if (rsize == 0 && is_arg) /* NumPy raises even when the result would be empty */
        return aug__error(AUG_ERR_VALUE, func, "attempt to get %s of an empty sequence",
                          op == AUG_REDUCE_ARGMIN ? "argmin" : "argmax");

    aug__need need = {AUG__FAMILY_REDUCE, (int)op, t->dtype, *out ? (*out)->dtype : reduce_dtype(op, t->dtype, upcast)};
    const aug__backend *be = aug__backend_supporting(func, t->device, &need);
    if (!be) return aug_last_status();

    aug_tensor *res = *out, *tmp = NULL;
    if (res) {
        if ((st = aug__tensor_check(func, res))) return st;
        char a[48], b[48];
        if (!aug__device_eq(res->device, t->device))
            return aug__error(AUG_ERR_VALUE, func, "out is on device %s but the input is on %s",
                              aug__device_str(res->device, a, sizeof a), aug__device_str(t->device, b, sizeof b));
        int same = res->ndim == ondim;
        for (int d = 0; same && d < ondim; d++) same = res->shape[d] == oshape[d];
        if (!same) {
            char sa[160], sb[160];
            return aug__error(AUG_ERR_VALUE, func, "out has shape %s but the reduction result has shape %s",
                              aug_shape_str(res->ndim, res->shape, sa, sizeof sa),
                              aug_shape_str(ondim, oshape, sb, sizeof sb));
        }
        for (int d = 0; d < ondim; d++)
            if (res->shape[d] > 1 && res->strides[d] == 0)
                return aug__error(AUG_ERR_VALUE, func,
                                  "out is a broadcast view (stride 0 on dim %d) and cannot be written", d);
        aug_status ovl = aug__check_no_self_overlap(func, res, "out");
        if (ovl != AUG_OK) return ovl;
        /* Writing an element would change inputs of later ones: use a temporary. */
        if (res->storage && res->storage == t->storage) {
            tmp = aug_tensor_empty(ondim, oshape, res->dtype, res->device);
            if (!tmp) return aug_last_status();
        }
    } else {
        tmp = aug_tensor_empty(ondim, oshape, reduce_dtype(op, t->dtype, upcast), t->device);
        if (!tmp) return aug_last_status();
    }

    /* The plan's view: the result with the input's ndim. */
    const aug_tensor *dst = tmp ? tmp : res;
    aug_tensor view = *dst;
    view.ndim = t->ndim;
    view.layout[0] = '\0';
    for (int d = 0, j = 0; d < t->ndim; d++) {
        if (mask & (1u << d)) {
            view.shape[d] = 1;
            view.strides[d] = 0;
            if (keepdim) j++;
        } else {
            view.shape[d] = t->shape[d];
            view.strides[d] = dst->strides[j++];
        }
    }
    aug__reduce_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.func = func;
    plan.op = op;
    plan.exec = aug__exec_for(t->device);
    aug__plan_reduce(&plan, t, mask, &view);
    /* A float result in its own dtype rounds as IEEE arithmetic does (+-inf beyond
     * the range); an `out` of another dtype is a conversion and saturates. */
    plan.ieee_out = dst->dtype == reduce_dtype(op, t->dtype, upcast);
    st = plan.O == 0 ? AUG_OK : aug__dispatch_reduce(be, &plan);
    if (st == AUG_OK && res && tmp) st = aug__copy(func, tmp, res);
    if (st) {
        aug_tensor_free(tmp);
        return st;
    }
    if (res) aug_tensor_free(tmp);
    else *out = tmp;
    return AUG_OK;
}
