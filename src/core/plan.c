/* core/plan.c: the planner of elementwise and reduction plans (core/plan.h).
 *
 * Steps of aug__plan_elementwise:
 *  1. check the operands; broadcast every input to the output's shape (byte
 *     stride 0 on broadcast dimensions); a storage-less 0-d input is a host
 *     scalar whose element is copied into the plan;
 *  2. an input whose memory range intersects the output's, unless it is the
 *     identical view with the same dtype, is first copied to a private
 *     contiguous tensor on the same device (through the backend, like any copy);
 *  3. drop extent-1 dimensions, make the output's strides positive, order the
 *     dimensions by decreasing output stride (a stable sort), and merge adjacent
 *     dimensions that are contiguous for every operand.
 * Short cuts for small ops: inputs the caller has checked (ops->checked: aug_elementwise
 * when every tensor operand has the output's shape and device) skip step 1's checks, and
 * contiguous same-shape operands (plan_contiguous) skip steps 2 and 3.
 * Nothing here depends on the backend or on the number of threads. */
#include <stdlib.h>
#include <string.h>
#include "plan.h"
#include "tensor_impl.h"

/* Byte strides of t broadcast to out's shape, over out's dimensions. */
static aug_status broadcast_strides(const char *func, const aug_tensor *t, const aug_tensor *out, int64_t *bst) {
    int lead = out->ndim - t->ndim;
    int64_t item = aug__dtype_size(t->dtype);
    for (int d = 0; d < out->ndim; d++) {
        int s = d - lead;
        bst[d] = 0;
        if (s >= 0 && t->shape[s] == out->shape[d] && out->shape[d] > 1 &&
            __builtin_mul_overflow(t->strides[s], item, &bst[d]))
            return aug__error(AUG_ERR_OVERFLOW, func, "tensor strides are too large");
    }
    return AUG_OK;
}

/* Address range [lo, hi) touched by a view with byte strides bst over `shape`. */
static void byte_range(const char *base, int ndim, const int64_t *shape, const int64_t *bst, int64_t item,
                       uintptr_t *lo, uintptr_t *hi) {
    uintptr_t l = (uintptr_t)base, h = (uintptr_t)base + (uintptr_t)item;
    for (int d = 0; d < ndim; d++) {
        int64_t span = bst[d] * (shape[d] - 1);
        if (span < 0)
            l -= (uintptr_t)(-span);
        else
            h += (uintptr_t)span;
    }
    *lo = l;
    *hi = h;
}

static int is_host_scalar(const aug_tensor *t) { return t->storage == NULL && t->ndim == 0; }

static aug_status check_operand(const char *func, const aug_tensor *t, const char *what, aug_device dev) {
    aug_status st = aug__tensor_check(func, t);
    if (st != AUG_OK) return st;
    if (!is_host_scalar(t) && !aug__device_eq(t->device, dev)) {
        char a[48], b[48];
        return aug__error(AUG_ERR_VALUE, func, "%s is on %s but the operation runs on %s", what,
                          aug__device_str(t->device, a, sizeof a), aug__device_str(dev, b, sizeof b));
    }
    if (!t->data && aug__shape_size(t->ndim, t->shape) != 0)
        return aug__error(AUG_ERR_VALUE, func, "%s has no data", what);
    return AUG_OK;
}

/* Drop extent-1 dims, flip negative output strides, sort by output stride, merge. */
static void simplify(aug__loop *p, int nops, const aug_tensor *out, int64_t (*bst)[AUG_MAX_DIMS]) {
    const int o = p->nin;
    int nd = 0;
    for (int d = 0; d < out->ndim; d++) {
        if (out->shape[d] == 1) continue;
        p->shape[nd] = out->shape[d];
        for (int i = 0; i < nops; i++) p->stride[i][nd] = bst[i][d];
        nd++;
    }
    for (int d = 0; d < nd; d++) {
        if (p->stride[o][d] >= 0) continue;
        for (int i = 0; i < nops; i++) {
            if (p->base[i]) p->base[i] += p->stride[i][d] * (p->shape[d] - 1);
            p->stride[i][d] = -p->stride[i][d];
        }
    }
    /* Stable insertion sort, outermost = largest output stride. */
    for (int d = 1; d < nd; d++)
        for (int e = d; e > 0 && p->stride[o][e - 1] < p->stride[o][e]; e--) {
            int64_t s = p->shape[e];
            p->shape[e] = p->shape[e - 1];
            p->shape[e - 1] = s;
            for (int i = 0; i < nops; i++) {
                s = p->stride[i][e];
                p->stride[i][e] = p->stride[i][e - 1];
                p->stride[i][e - 1] = s;
            }
        }
    int j = 0;
    for (int d = 1; d < nd; d++) {
        int merge = 1;
        for (int i = 0; i < nops && merge; i++) merge = p->stride[i][j] == p->stride[i][d] * p->shape[d];
        if (merge) {
            p->shape[j] *= p->shape[d];
            for (int i = 0; i < nops; i++) p->stride[i][j] = p->stride[i][d];
        } else {
            j++;
            p->shape[j] = p->shape[d];
            for (int i = 0; i < nops; i++) p->stride[i][j] = p->stride[i][d];
        }
    }
    p->ndim = nd ? j + 1 : 1;
    if (nd == 0) { /* one element */
        p->shape[0] = 1;
        for (int i = 0; i < nops; i++) p->stride[i][0] = 0;
    }
}

/* t has out's shape and C-contiguous strides. */
static int contiguous_like(const aug_tensor *t, const aug_tensor *out) {
    if (t->ndim != out->ndim) return 0;
    int64_t expect = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        if (t->shape[d] != out->shape[d]) return 0;
        if (t->shape[d] != 1 && t->strides[d] != expect) return 0;
        expect *= t->shape[d];
    }
    return 1;
}

/* The common case in one step: a C-contiguous output and inputs of its shape that
 * are C-contiguous (or host scalars) and either disjoint from the output or the
 * output itself with its dtype. The loop is then one dimension of `size`
 * elements; what the general steps would produce, without their work. Returns 0
 * when the case does not apply (nothing is written then). */
static int plan_contiguous(aug__loop *p, const aug__ew_operands *ops, int64_t size) {
    const aug_tensor *out = ops->out;
    if (!contiguous_like(out, out)) return 0;
    char *out_base = out->data + out->byte_offset;
    const uintptr_t out_lo = (uintptr_t)out_base, out_hi = out_lo + (uintptr_t)(size * aug__dtype_size(out->dtype));
    for (int i = 0; i < ops->nin; i++) {
        const aug_tensor *t = ops->in[i];
        if (is_host_scalar(t)) continue;
        if (!contiguous_like(t, out)) return 0;
        char *b = t->data + t->byte_offset;
        uintptr_t lo = (uintptr_t)b, hi = lo + (uintptr_t)(size * aug__dtype_size(t->dtype));
        if (lo < out_hi && out_lo < hi && !(b == out_base && t->dtype == out->dtype)) return 0;
        if (b == out_base && ops->nin == 1) return 0; /* a copy onto itself: the general path's no-op */
    }
    const int nin = ops->nin;
    p->nin = nin;
    p->size = size;
    p->out_contiguous = 1;
    p->ieee_out = ops->ieee_out;
    p->ndim = 1;
    p->shape[0] = size;
    for (int i = 0; i <= nin; i++) {
        const aug_tensor *t = i < nin ? ops->in[i] : out;
        int scalar = i < nin && is_host_scalar(t);
        if (scalar) memcpy(p->scalar[i], t->data, (size_t)aug__dtype_size(t->dtype));
        p->base[i] = scalar ? NULL : t->data + t->byte_offset;
        p->stride[i][0] = scalar ? 0 : aug__dtype_size(t->dtype);
        p->dtype[i] = (int)t->dtype;
        p->ctype[i] = i < nin ? ops->in_ctype[i] : ops->out_ctype;
    }
    return 1;
}

aug_status aug__plan_elementwise(aug__ew_plan *plan, const aug__ew_operands *ops, int *noop,
                                 aug__plan_temps *temps) {
    const char *func = plan->func ? plan->func : "aug_elementwise";
    memset(temps, 0, sizeof *temps);
    *noop = 0;
    aug__loop *p = &plan->loop;
    memset(p, 0, sizeof *p);
    if (ops->nin < 1 || ops->nin > AUG__MAX_INPUTS)
        return aug__error(AUG_ERR_VALUE, func, "number of inputs %d is out of range (1 to %d)", ops->nin,
                          AUG__MAX_INPUTS);
    const aug_device dev = plan->exec.device;
    const aug_tensor *out = ops->out;
    aug_status st = check_operand(func, out, "the output", dev);
    if (st != AUG_OK) return st;
    if (is_host_scalar(out)) return aug__error(AUG_ERR_VALUE, func, "the output has no storage");
    for (int i = 0; i < ops->nin; i++) {
        const aug_tensor *t = ops->in[i];
        if (ops->checked) { /* only what the caller's checks leave out */
            if (!t->data && aug__shape_size(t->ndim, t->shape) != 0)
                return aug__error(AUG_ERR_VALUE, func, "an input has no data");
        } else {
            if ((st = check_operand(func, t, "an input", dev)) != AUG_OK) return st;
            if ((st = aug__check_broadcast_to(func, t->ndim, t->shape, out->ndim, out->shape)) != AUG_OK)
                return st;
        }
        if (ops->in_ctype[i] < 0 || ops->in_ctype[i] >= AUG__NUM_CTYPES)
            return aug__error(AUG_ERR_VALUE, func, "invalid compute type %d", ops->in_ctype[i]);
    }
    if (ops->out_ctype < 0 || ops->out_ctype >= AUG__NUM_CTYPES)
        return aug__error(AUG_ERR_VALUE, func, "invalid compute type %d", ops->out_ctype);
    int64_t size = aug__shape_size(out->ndim, out->shape);
    if (size == 0) {
        *noop = 1;
        return AUG_OK;
    }
    if (plan_contiguous(p, ops, size)) return AUG_OK;
    if ((st = aug__check_no_self_overlap(func, out, "the output")) != AUG_OK) return st;

    const int nin = ops->nin, nops = nin + 1;
    int64_t bst[AUG__MAX_OPS][AUG_MAX_DIMS];
    p->nin = nin;
    p->size = size;
    p->out_contiguous = aug_tensor_is_contiguous(out);
    p->ieee_out = ops->ieee_out;
    if ((st = broadcast_strides(func, out, out, bst[nin])) != AUG_OK) return st;
    char *out_base = out->data + out->byte_offset;
    uintptr_t out_lo, out_hi;
    byte_range(out_base, out->ndim, out->shape, bst[nin], aug__dtype_size(out->dtype), &out_lo, &out_hi);
    int same_view_copy = 0;
    const aug_tensor *in[AUG__MAX_INPUTS];
    for (int i = 0; i < nin && st == AUG_OK; i++) {
        in[i] = ops->in[i];
        if (is_host_scalar(in[i])) {
            memcpy(p->scalar[i], in[i]->data, (size_t)aug__dtype_size(in[i]->dtype));
            memset(bst[i], 0, sizeof bst[i]);
            continue;
        }
        if ((st = broadcast_strides(func, in[i], out, bst[i])) != AUG_OK) break;
        char *b = in[i]->data + in[i]->byte_offset;
        uintptr_t lo, hi;
        byte_range(b, out->ndim, out->shape, bst[i], aug__dtype_size(in[i]->dtype), &lo, &hi);
        if (lo >= out_hi || out_lo >= hi) continue; /* disjoint */
        int identical = b == out_base && in[i]->dtype == out->dtype &&
                        memcmp(bst[i], bst[nin], (size_t)out->ndim * sizeof(int64_t)) == 0;
        if (identical) {
            same_view_copy = plan->op == AUG_OP_COPY && nin == 1 && ops->in_ctype[0] == (int)in[0]->dtype &&
                             ops->out_ctype == (int)out->dtype;
            continue;
        }
        aug_tensor *tmp = aug__tensor_empty(func, in[i]->ndim, in[i]->shape, in[i]->dtype, dev);
        if (!tmp) {
            st = aug_last_status();
            break;
        }
        temps->t[i] = tmp;
        if ((st = aug__copy(func, in[i], tmp)) != AUG_OK) break;
        in[i] = tmp;
        st = broadcast_strides(func, in[i], out, bst[i]);
    }
    if (st != AUG_OK) {
        aug__plan_release(temps);
        return st;
    }
    if (same_view_copy) {
        *noop = 1;
        return AUG_OK;
    }
    for (int i = 0; i < nops; i++) {
        const aug_tensor *t = i < nin ? in[i] : out;
        p->base[i] = i < nin && is_host_scalar(t) ? NULL : t->data + t->byte_offset;
        p->dtype[i] = (int)t->dtype;
        p->ctype[i] = i < nin ? ops->in_ctype[i] : ops->out_ctype;
    }
    simplify(p, nops, out, bst);
    return AUG_OK;
}

void aug__plan_release(aug__plan_temps *temps) {
    for (int i = 0; i < AUG__MAX_INPUTS; i++) {
        aug_tensor_free(temps->t[i]);
        temps->t[i] = NULL;
    }
}

/* ---- reductions ------------------------------------------------------------------- */

/* Splits the input's dims into reduced and kept lists, drops extent-1 dims and
 * merges neighbours whose strides chain (C order is preserved). */
void aug__plan_reduce(aug__reduce_plan *plan, const aug_tensor *in, uint32_t mask, const aug_tensor *out) {
    const int64_t isz = aug__dtype_size(in->dtype), osz = aug__dtype_size(out->dtype);
    plan->in_dtype = (int)in->dtype;
    plan->out_dtype = (int)out->dtype;
    plan->in0 = in->data + in->byte_offset;
    plan->out0 = out->data + out->byte_offset;
    plan->nr = plan->no = 0;
    plan->R = plan->O = 1;
    for (int d = 0; d < in->ndim; d++) {
        int64_t e = in->shape[d];
        if (mask & (1u << d)) {
            plan->R *= e;
            if (e == 1) continue;
            int64_t st = in->strides[d] * isz;
            if (plan->nr > 0 && plan->rst[plan->nr - 1] == st * e) {
                plan->rext[plan->nr - 1] *= e;
                plan->rst[plan->nr - 1] = st;
            } else {
                plan->rext[plan->nr] = e;
                plan->rst[plan->nr++] = st;
            }
        } else {
            plan->O *= e;
            if (e == 1) continue;
            int64_t si = in->strides[d] * isz, so = out->strides[d] * osz;
            int k = plan->no - 1;
            if (k >= 0 && plan->ost_in[k] == si * e && plan->ost_out[k] == so * e) {
                plan->oext[k] *= e;
                plan->ost_in[k] = si;
                plan->ost_out[k] = so;
            } else {
                plan->oext[plan->no] = e;
                plan->ost_in[plan->no] = si;
                plan->ost_out[plan->no++] = so;
            }
        }
    }
}

/* ---- one tensor's dims --------------------------------------------------------------- */

int aug__coalesce(const aug_tensor *t, int *nd, int64_t *shape, int64_t *bstride) {
    const int64_t item = aug__dtype_size(t->dtype);
    int n = 0, aliased = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (t->shape[d] == 1) continue;
        int64_t bs = t->strides[d] * item;
        if (bs == 0) aliased = 1;
        if (n > 0 && bstride[n - 1] == bs * t->shape[d]) {
            shape[n - 1] *= t->shape[d];
            bstride[n - 1] = bs;
        } else {
            shape[n] = t->shape[d];
            bstride[n] = bs;
            n++;
        }
    }
    if (n == 0) { /* 0-d or all extents 1 */
        shape[0] = 1;
        bstride[0] = item;
        n = 1;
    }
    *nd = n;
    return aliased;
}
