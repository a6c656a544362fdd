/* core/elementwise.c: the elementwise entry points of aug/ops.h (semantics §5-9).
 *
 * Validates the operands, asks core/promote.c for the result and compute types,
 * broadcasts shapes and layouts, allocates or checks the output, plans the loop
 * (core/plan.c) and hands the plan to the backend of the output's device.
 * Scalars enter the planner as
 * storage-less 0-d tensors over a local element holding the value the decision
 * chose (exact, or already rounded / saturated where semantics.md says so).
 *
 * Operands of one shape and device (the common small op) skip the broadcast and
 * the planner's re-checks of what check_operands checked.
 *
 * Layouts (DALI): non-empty operand layouts must be equal or one a suffix of the
 * other; a new output takes the longest one when its length equals the output's
 * ndim (a shorter layout does not describe the leading broadcast dimensions, so
 * the output then has none). */
#include <string.h>
#include "backend.h"
#include "promote.h"
#include "tensor_impl.h"

static int op_ok(aug_op op) { return (int)op >= 0 && op < AUG_NUM_OPS; }

aug_operand aug_operand_tensor(const aug_tensor *t) {
    aug_operand o;
    memset(&o, 0, sizeof o);
    o.tensor = t;
    return o;
}

aug_operand aug_operand_scalar(aug_scalar s) {
    aug_operand o;
    memset(&o, 0, sizeof o);
    o.scalar = s;
    return o;
}

/* ---- argument checks ----------------------------------------------------------------- */

/* Checks op, arity and operands; *ntensors counts the tensor operands. */
static aug_status check_operands(const char *func, aug_op op, int nin, const aug_operand *in, int *ntensors) {
    if (!op_ok(op)) return aug__error(AUG_ERR_VALUE, func, "invalid op %d", (int)op);
    if (nin != aug_op_arity(op))
        return aug__error(AUG_ERR_VALUE, func, "`%s` takes %d operand%s, got %d", aug_op_name(op), aug_op_arity(op),
                          aug_op_arity(op) == 1 ? "" : "s", nin);
    if (!in) return aug__error(AUG_ERR_VALUE, func, "operands are NULL");
    int nt = 0, typed = 0;
    for (int i = 0; i < nin; i++) {
        if (in[i].tensor) {
            aug_status st = aug__tensor_check(func, in[i].tensor);
            if (st != AUG_OK) return st;
            nt++;
            typed++;
        } else {
            if (!aug__dtype_ok(in[i].scalar.dtype))
                return aug__error(AUG_ERR_TYPE, func, "operand %d: invalid scalar dtype %d", i,
                                  (int)in[i].scalar.dtype);
            if (!in[i].scalar.weak) typed++;
        }
    }
    if (typed == 0) return aug__error(AUG_ERR_VALUE, func, "at least one operand must be a tensor or a typed scalar");
    *ntensors = nt;
    return AUG_OK;
}

aug_status aug_op_result_dtype(const char *func, aug_op op, int nin, const aug_operand *in, aug_dtype *result) {
    if (!func) func = aug__op_func(op);
    int nt;
    aug_status st = check_operands(func, op, nin, in, &nt);
    if (st != AUG_OK) return st;
    if (!result) return aug__error(AUG_ERR_VALUE, func, "result is NULL");
    return aug__ew_result_dtype(func, op, nin, in, result);
}

/* Broadcast shape of the tensor operands, and the device they share. */
static aug_status broadcast_operands(const char *func, int nin, const aug_operand *in, int *ndim, int64_t *shape,
                                     aug_device *dev) {
    int first = 1;
    *ndim = 0;
    for (int i = 0; i < nin; i++) {
        const aug_tensor *t = in[i].tensor;
        if (!t) continue;
        if (first) {
            *dev = t->device;
            *ndim = t->ndim;
            memcpy(shape, t->shape, sizeof(int64_t) * (size_t)t->ndim);
            first = 0;
            continue;
        }
        if (!aug__device_eq(*dev, t->device)) {
            char a[48], b[48];
            return aug__error(AUG_ERR_VALUE, func, "operands are on different devices (%s and %s)",
                              aug__device_str(*dev, a, sizeof a), aug__device_str(t->device, b, sizeof b));
        }
        int64_t prev[AUG_MAX_DIMS];
        int pn = *ndim;
        memcpy(prev, shape, sizeof(int64_t) * (size_t)pn);
        aug_status st = aug_broadcast_shapes(func, pn, prev, t->ndim, t->shape, ndim, shape);
        if (st != AUG_OK) return st;
    }
    return AUG_OK;
}

/* Every tensor operand has the first one's shape and device (the common case of
 * a small op: nothing to broadcast); *first is that operand. */
static int same_shapes(int nin, const aug_operand *in, const aug_tensor **first) {
    const aug_tensor *f = NULL;
    for (int i = 0; i < nin; i++) {
        const aug_tensor *t = in[i].tensor;
        if (!t) continue;
        if (!f) {
            f = t;
            continue;
        }
        if (t->ndim != f->ndim || !aug__device_eq(t->device, f->device) ||
            memcmp(t->shape, f->shape, sizeof(int64_t) * (size_t)f->ndim) != 0)
            return 0;
    }
    *first = f;
    return f != NULL;
}

/* The layout of the result (see the file comment); "" if none. */
static aug_status result_layout(const char *func, int nin, const aug_operand *in, char *layout) {
    layout[0] = '\0';
    for (int i = 0; i < nin; i++) {
        const aug_tensor *t = in[i].tensor;
        if (!t || !t->layout[0]) continue;
        size_t la = strlen(layout), lb = strnlen(t->layout, AUG_MAX_DIMS);
        const char *lng = la >= lb ? layout : t->layout, *sht = la >= lb ? t->layout : layout;
        size_t ll = la >= lb ? la : lb, ls = la >= lb ? lb : la;
        if (memcmp(lng + (ll - ls), sht, ls) != 0)
            return aug__error(AUG_ERR_VALUE, func,
                              "layouts \"%s\" and \"%.*s\" are incompatible: one must be a suffix of the other",
                              layout, (int)lb, t->layout);
        if (lb > la) {
            memcpy(layout, t->layout, lb);
            layout[lb] = '\0';
        }
    }
    return AUG_OK;
}

/* ---- running a plan ------------------------------------------------------------------ */

aug_status aug__run_elementwise(const char *func, aug_op op, const aug__ew_operands *ops) {
    aug__ew_plan plan; /* the planner clears plan.loop first thing */
    plan.func = func;
    plan.op = op;
    plan.exec = aug__exec_for(ops->out ? ops->out->device : aug_cpu_device());
    aug__need need = {AUG__FAMILY_ELEMENTWISE, (int)op, ops->out ? ops->out->dtype : AUG_DTYPE_AUTO,
                      AUG_DTYPE_AUTO};
    const aug__backend *be = aug__backend_supporting(func, plan.exec.device, &need);
    if (!be) return aug_last_status();
    int noop;
    aug__plan_temps temps;
    aug_status st = aug__plan_elementwise(&plan, ops, &noop, &temps);
    if (st == AUG_OK && !noop) st = aug__dispatch_elementwise(be, &plan);
    aug__plan_release(&temps);
    return st;
}

/* t rounded to the float dtype dt as IEEE arithmetic does (+-inf beyond the
 * range): through FLOAT64, which holds every integer within half an ulp of dt
 * (53 >= 2 * 24 + 2 bits, so the two roundings agree with one). */
static aug_status cast_ieee(const char *func, const aug_tensor *t, aug_dtype dt, aug_tensor **out) {
    aug_tensor *o = aug__tensor_empty(func, t->ndim, t->shape, dt, t->device);
    if (!o) return aug_last_status();
    aug__ew_operands ops;
    memset(&ops, 0, sizeof ops);
    ops.nin = 1;
    ops.in[0] = t;
    ops.in_ctype[0] = AUG_FLOAT64;
    ops.out = o;
    ops.out_ctype = AUG_FLOAT64;
    ops.ieee_out = 1;
    aug_status st = aug__run_elementwise(func, AUG_OP_COPY, &ops);
    if (st != AUG_OK) {
        aug_tensor_free(o);
        return st;
    }
    *out = o;
    return AUG_OK;
}

/* ---- the entry point ----------------------------------------------------------------- */

aug_status aug_elementwise(const char *func, aug_op op, int nin, const aug_operand *in, aug_dtype compute,
                           aug_dtype result, aug_tensor **out) {
    if (!func) func = aug__op_func(op);
    int nt;
    aug_status st = check_operands(func, op, nin, in, &nt);
    if (st != AUG_OK) return st;
    if (!out) return aug__error(AUG_ERR_VALUE, func, "out is NULL");
    if (nt == 0) return aug__error(AUG_ERR_VALUE, func, "at least one operand must be a tensor");
    if (compute != AUG_DTYPE_AUTO && !aug__dtype_ok(compute))
        return aug__error(AUG_ERR_TYPE, func, "invalid compute dtype %d", (int)compute);
    if (result != AUG_DTYPE_AUTO && !aug__dtype_ok(result))
        return aug__error(AUG_ERR_TYPE, func, "invalid result dtype %d", (int)result);

    aug__ew_decision d;
    st = aug__ew_decide(func, op, nin, in, compute, &d);
    if (st != AUG_OK) return st;

    int ndim;
    int64_t shape[AUG_MAX_DIMS];
    aug_device dev;
    const aug_tensor *first;
    const int same = same_shapes(nin, in, &first);
    if (same) {
        ndim = first->ndim;
        memcpy(shape, first->shape, sizeof(int64_t) * (size_t)ndim);
        dev = first->device;
    } else {
        st = broadcast_operands(func, nin, in, &ndim, shape, &dev);
        if (st != AUG_OK) return st;
    }
    char layout[AUG_MAX_DIMS + 1];
    st = result_layout(func, nin, in, layout);
    if (st != AUG_OK) return st;

    aug_tensor *dst = *out, *fresh = NULL;
    if (dst) {
        st = aug__tensor_check(func, dst);
        if (st != AUG_OK) return st;
        if (!aug__device_eq(dst->device, dev)) {
            char a[48], b[48];
            return aug__error(AUG_ERR_VALUE, func, "out is on %s but the operands are on %s",
                              aug__device_str(dst->device, a, sizeof a), aug__device_str(dev, b, sizeof b));
        }
        if (dst->ndim != ndim || memcmp(dst->shape, shape, sizeof(int64_t) * (size_t)ndim) != 0) {
            char a[256], b[256];
            return aug__error(AUG_ERR_VALUE, func, "output shape %s does not match the broadcast shape %s",
                              aug_shape_str(dst->ndim, dst->shape, a, sizeof a), aug_shape_str(ndim, shape, b, sizeof b));
        }
    } else {
        fresh = aug__tensor_empty_checked("aug_tensor_empty", ndim, shape,
                                          result != AUG_DTYPE_AUTO ? result : d.result, dev);
        if (!fresh) return aug_last_status();
        if (layout[0] && strlen(layout) == (size_t)ndim) aug_tensor_set_layout(fresh, layout);
        dst = fresh;
    }

    /* Operands as the planner sees them: tensors (cast first where decided) and
     * storage-less 0-d scalars over local elements. */
    _Alignas(16) unsigned char elems[AUG__MAX_INPUTS][16];
    aug_tensor scalars[AUG__MAX_INPUTS];
    aug_tensor *casts[AUG__MAX_INPUTS] = {NULL, NULL, NULL};
    aug__ew_operands ops;
    memset(&ops, 0, sizeof ops);
    ops.nin = nin;
    ops.out = dst;
    ops.out_ctype = d.out_ctype;
    /* A float result stored as its own dtype R rounds as IEEE arithmetic does; an
     * output of another dtype (out=, in place, an explicit result) is a
     * conversion and saturates (semantics §2, §7). */
    ops.checked = same; /* check_operands checked them; casts and scalars keep that */
    ops.ieee_out = aug__op_class_of(d.op) != AUG__CLASS_COPY && dst->dtype == d.result &&
                   aug_dtype_info(dst->dtype)->kind == AUG_KIND_FLOAT;
    for (int i = 0; i < nin && st == AUG_OK; i++) {
        ops.in_ctype[i] = d.in_ctype[i];
        if (in[i].tensor) {
            ops.in[i] = in[i].tensor;
            if (d.precast[i] != AUG_DTYPE_AUTO) {
                st = d.precast_ieee ? cast_ieee(func, in[i].tensor, d.precast[i], &casts[i])
                                    : aug_cast(in[i].tensor, d.precast[i], &casts[i]);
                ops.in[i] = casts[i];
            }
        } else {
            memset(elems[i], 0, sizeof elems[i]);
            st = aug_scalar_store(&d.value[i], d.elem[i], elems[i]);
            aug__tensor_0d(&scalars[i], elems[i], d.elem[i]);
            ops.in[i] = &scalars[i];
        }
    }
    if (st == AUG_OK) st = aug__run_elementwise(func, d.op, &ops);
    for (int i = 0; i < nin; i++) aug_tensor_free(casts[i]);
    if (st != AUG_OK) {
        aug_tensor_free(fresh);
        return st;
    }
    *out = dst;
    return AUG_OK;
}

/* ---- operator conveniences --------------------------------------------------------- */

aug_status aug_unary(aug_op op, const aug_tensor *a, aug_tensor **out) {
    const char *func = aug__op_func(op);
    if (!a) return aug__error(AUG_ERR_VALUE, func, "tensor is NULL");
    aug_operand in[1] = {aug_operand_tensor(a)};
    return aug_elementwise(func, op, 1, in, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, out);
}

aug_status aug_binary(aug_op op, const aug_tensor *a, const aug_tensor *b, aug_tensor **out) {
    const char *func = aug__op_func(op);
    if (!a || !b) return aug__error(AUG_ERR_VALUE, func, "tensor is NULL");
    aug_operand in[2] = {aug_operand_tensor(a), aug_operand_tensor(b)};
    return aug_elementwise(func, op, 2, in, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, out);
}

aug_status aug_binary_scalar(aug_op op, const aug_tensor *a, aug_scalar b, aug_tensor **out) {
    const char *func = aug__op_func(op);
    if (!a) return aug__error(AUG_ERR_VALUE, func, "tensor is NULL");
    aug_operand in[2] = {aug_operand_tensor(a), aug_operand_scalar(b)};
    return aug_elementwise(func, op, 2, in, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, out);
}

aug_status aug_binary_rscalar(aug_op op, aug_scalar a, const aug_tensor *b, aug_tensor **out) {
    const char *func = aug__op_func(op);
    if (!b) return aug__error(AUG_ERR_VALUE, func, "tensor is NULL");
    aug_operand in[2] = {aug_operand_scalar(a), aug_operand_tensor(b)};
    return aug_elementwise(func, op, 2, in, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, out);
}

/* ---- augpy functional forms (semantics §9) ----------------------------------------------- */

static int functional_op_ok(aug_op op) {
    switch (op) {
    case AUG_OP_ADD: case AUG_OP_SUB: case AUG_OP_MUL: case AUG_OP_DIV_RNE:
    case AUG_OP_EQ: case AUG_OP_NE: case AUG_OP_LT: case AUG_OP_LE: case AUG_OP_GT: case AUG_OP_GE:
        return 1;
    default:
        return 0;
    }
}

aug_status aug_functional_scalar(const char *func, aug_op op, const aug_tensor *t, aug_scalar s, int reflected,
                                 aug_tensor **out) {
    if (!func) func = aug__op_func(op);
    if (!functional_op_ok(op))
        return aug__error(AUG_ERR_VALUE, func, "op `%s` has no augpy functional form", aug_op_name(op));
    aug_status st = aug__tensor_check(func, t);
    if (st != AUG_OK) return st;
    if (!aug__dtype_ok(s.dtype)) return aug__error(AUG_ERR_TYPE, func, "invalid scalar dtype %d", (int)s.dtype);
    aug_operand in[2] = {aug_operand_tensor(t), aug_operand_scalar(s)};
    if (reflected) {
        in[0] = aug_operand_scalar(s);
        in[1] = aug_operand_tensor(t);
    }
    /* Comparisons are exact, as the operators (semantics §19). */
    if (aug__op_class_of(op) == AUG__CLASS_CMP)
        return aug_elementwise(func, op, 2, in, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, out);
    const aug_dtype_traits *tt = aug_dtype_info(t->dtype), *ts = aug_dtype_info(s.dtype);
    if (tt->kind != AUG_KIND_FLOAT && ts->kind != AUG_KIND_FLOAT) /* exact, then saturated into t's dtype */
        return aug_elementwise(func, op, 2, in, AUG_DTYPE_AUTO, t->dtype, out);
    /* In the temp type; augpy div is true division there. */
    return aug_elementwise(func, op == AUG_OP_DIV_RNE ? AUG_OP_TRUEDIV : op, 2, in, tt->temp, t->dtype, out);
}

aug_status aug_functional_tensor(const char *func, aug_op op, const aug_tensor *a, const aug_tensor *b,
                                 aug_tensor **out) {
    if (!func) func = aug__op_func(op);
    if (!functional_op_ok(op))
        return aug__error(AUG_ERR_VALUE, func, "op `%s` has no augpy functional form", aug_op_name(op));
    if (!a || !b) return aug__error(AUG_ERR_VALUE, func, "tensor is NULL");
    if (!out) return aug__error(AUG_ERR_VALUE, func, "out is NULL");
    aug_operand in[2] = {aug_operand_tensor(a), aug_operand_tensor(b)};
    if (!*out || aug__op_class_of(op) == AUG__CLASS_CMP)
        return aug_elementwise(func, op, 2, in, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, out);
    /* With out: computed in the promoted type R (floats in R's temp type), then
     * saturated into out. */
    aug_dtype r;
    aug_status st = aug_op_result_dtype(func, op, 2, in, &r);
    if (st != AUG_OK) return st;
    const aug_dtype_traits *tr = aug_dtype_info(r);
    aug_dtype compute = tr->kind == AUG_KIND_FLOAT ? tr->temp : r;
    if (op == AUG_OP_DIV_RNE && tr->kind == AUG_KIND_FLOAT) op = AUG_OP_TRUEDIV;
    return aug_elementwise(func, op, 2, in, compute, AUG_DTYPE_AUTO, out);
}

aug_status aug_fma(double scalar, const aug_tensor *t1, const aug_tensor *t2, aug_tensor **out) {
    static const char *func = "aug_fma";
    if (!t1 || !t2) return aug__error(AUG_ERR_VALUE, func, "tensor is NULL");
    aug_operand in[3] = {aug_operand_scalar(aug_scalar_float(scalar)), aug_operand_tensor(t1),
                         aug_operand_tensor(t2)};
    return aug_elementwise(func, AUG_OP_FMA, 3, in, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, out);
}

aug_status aug_fma_operands(aug_operand a, aug_operand b, aug_operand c, aug_tensor **out) {
    static const char *func = "aug_fma";
    if (!a.tensor && !b.tensor && !c.tensor) return aug__error(AUG_ERR_VALUE, func, "at least one operand must be a tensor");
    aug_operand in[3] = {a, b, c};
    return aug_elementwise(func, AUG_OP_FMA, 3, in, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, out);
}
