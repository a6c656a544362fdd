/* _augpy/ops.c: Tensor operators (number protocol, rich comparison), Tensor.fill
 * and the augpy functional API (add ... ne, fma, gemm, fill, copy, cast).
 * augpy.Constant and zeros / ones / full live in create.c, the argument parsers
 * in args.c.
 *
 * Everything is a call into the aug C API (ops.h, tensor.h): operands are parsed
 * with augpy_parse_operand (weak Python scalars, Constants, tensors, arrays),
 * results and errors come from the library. semantics §6, §7 and §9. */
#include "augpy.h"

/* ---- helpers ------------------------------------------------------------------- */

/* Number of elements an elementwise call touches (the broadcast volume of its
 * operands, or out's size): decides whether the GIL is released. */
static int64_t ew_volume(int nin, const aug_operand *in, const aug_tensor *out) {
    int64_t ext[AUG_MAX_DIMS] = {0};
    int nd = 0;
    for (int i = 0; i < nin; i++) {
        const aug_tensor *t = in[i].tensor;
        if (!t)
            continue;
        if (t->ndim > nd)
            nd = t->ndim;
        for (int d = 0; d < t->ndim; d++) {
            int k = t->ndim - 1 - d;
            if (t->shape[k] > ext[d])
                ext[d] = t->shape[k];
        }
    }
    int64_t v = 1;
    for (int d = 0; d < nd; d++) {
        if (ext[d] > 0 && v > INT64_MAX / ext[d])
            return INT64_MAX;
        v *= ext[d];
    }
    if (out) {
        int64_t n = aug_tensor_size(out);
        if (n > v)
            v = n;
    }
    return v;
}

/* Result of an elementwise call: `outobj` (new reference) when given, else the
 * new tensor wrapped. */
static PyObject *finish(augpy_state *st, aug_status s, aug_tensor *res, PyObject *outobj, const char *func) {
    if (s != AUG_OK)
        return augpy_raise(st, s, func);
    if (outobj) {
        Py_INCREF(outobj);
        return outobj;
    }
    return augpy_wrap(st, res);
}

static void free_tmps(aug_tensor **tmp, int n) {
    for (int i = 0; i < n; i++)
        aug_tensor_free(tmp[i]);
}

/* ---- number protocol ------------------------------------------------------------- */

/* The module state reachable from either operand of a binary slot. */
static augpy_state *pair_state(PyObject *a, PyObject *b) {
    augpy_state *st = augpy_state_from_obj(a);
    if (!st) {
        PyErr_Clear();
        st = augpy_state_from_obj(b);
    }
    return st;
}

/* a op b; with `inplace` the result is stored into a (saturate_cast) and a returned. */
static PyObject *binop(PyObject *a, PyObject *b, aug_op op, const char *func, int inplace) {
    augpy_state *st = pair_state(a, b);
    if (!st)
        return NULL;
    if (inplace && !augpy_is_tensor(st, a))
        Py_RETURN_NOTIMPLEMENTED;
    aug_operand in[2];
    aug_tensor *tmp[2] = {NULL, NULL};
    PyObject *objs[2] = {a, b};
    int bad, r;
    if (augpy_is_tensor(st, a) && augpy_is_tensor(st, b)) { /* what parsing would give, without its tests */
        in[0] = aug_operand_tensor(((AugTensorObject *)a)->t);
        in[1] = aug_operand_tensor(((AugTensorObject *)b)->t);
        r = 0;
    } else {
        r = augpy_parse_operands(st, objs, 2, in, tmp, &bad, func);
    }
    if (r == 0) {
        if (!in[0].tensor && !in[1].tensor)
            r = 1;
        if (r == 0 && augpy_operands_to_device(st, in, tmp, 2, inplace ? ((AugTensorObject *)a)->t : NULL, func) < 0)
            r = -1;
    }
    if (r != 0) {
        free_tmps(tmp, 2);
        if (r < 0)
            return NULL;
        Py_RETURN_NOTIMPLEMENTED;
    }
    aug_tensor *res = inplace ? ((AugTensorObject *)a)->t : NULL;
    aug_status s;
    AUGPY_CALL(s, ew_volume(2, in, res), aug_elementwise(func, op, 2, in, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, &res));
    free_tmps(tmp, 2);
    return finish(st, s, res, inplace ? a : NULL, func);
}

static PyObject *unop(PyObject *a, aug_op op, const char *func) {
    augpy_state *st = augpy_state_from_obj(a);
    if (!st)
        return NULL;
    aug_tensor *t = augpy_tensor_arg(st, a, func, "self");
    if (!t)
        return NULL;
    aug_operand in = aug_operand_tensor(t);
    aug_tensor *res = NULL;
    aug_status s;
    AUGPY_CALL(s, aug_tensor_size(t), aug_elementwise(func, op, 1, &in, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, &res));
    return finish(st, s, res, NULL, func);
}

#define BINARY_SLOTS(name, OP)                                                                  \
    static PyObject *nb_##name(PyObject *a, PyObject *b) {                                      \
        return binop(a, b, AUG_OP_##OP, "Tensor.__" #name "__", 0);                             \
    }                                                                                           \
    static PyObject *nb_inplace_##name(PyObject *a, PyObject *b) {                              \
        return binop(a, b, AUG_OP_##OP, "Tensor.__i" #name "__", 1);                           \
    }
BINARY_SLOTS(add, ADD)
BINARY_SLOTS(sub, SUB)
BINARY_SLOTS(mul, MUL)
BINARY_SLOTS(truediv, TRUEDIV)
BINARY_SLOTS(floordiv, FLOORDIV)
BINARY_SLOTS(mod, MOD)
BINARY_SLOTS(and, AND)
BINARY_SLOTS(or, OR)
BINARY_SLOTS(xor, XOR)
BINARY_SLOTS(lshift, LSHIFT)
BINARY_SLOTS(rshift, RSHIFT)

static PyObject *nb_pow(PyObject *a, PyObject *b, PyObject *mod) {
    if (mod != Py_None) {
        PyErr_SetString(PyExc_TypeError, "Tensor.__pow__: a modulus (3-argument pow) is not supported");
        return NULL;
    }
    return binop(a, b, AUG_OP_POW, "Tensor.__pow__", 0);
}

static PyObject *nb_inplace_pow(PyObject *a, PyObject *b, PyObject *mod) {
    if (mod != Py_None) {
        PyErr_SetString(PyExc_TypeError, "Tensor.__ipow__: a modulus (3-argument pow) is not supported");
        return NULL;
    }
    return binop(a, b, AUG_OP_POW, "Tensor.__ipow__", 1);
}

static PyObject *nb_divmod(PyObject *a, PyObject *b) {
    PyObject *q = binop(a, b, AUG_OP_FLOORDIV, "Tensor.__divmod__", 0);
    if (!q || q == Py_NotImplemented)
        return q;
    PyObject *r = binop(a, b, AUG_OP_MOD, "Tensor.__divmod__", 0);
    if (!r) {
        Py_DECREF(q);
        return NULL;
    }
    PyObject *res = PyTuple_Pack(2, q, r);
    Py_DECREF(q);
    Py_DECREF(r);
    return res;
}

static PyObject *nb_neg(PyObject *a) { return unop(a, AUG_OP_NEG, "Tensor.__neg__"); }
static PyObject *nb_pos(PyObject *a) { return unop(a, AUG_OP_POS, "Tensor.__pos__"); }
static PyObject *nb_abs(PyObject *a) { return unop(a, AUG_OP_ABS, "Tensor.__abs__"); }
static PyObject *nb_invert(PyObject *a) { return unop(a, AUG_OP_INVERT, "Tensor.__invert__"); }

/* A @ B: aug_gemm (2-D float32/float64). */
static PyObject *nb_matmul(PyObject *a, PyObject *b) {
    const char *func = "Tensor.__matmul__";
    augpy_state *st = pair_state(a, b);
    if (!st)
        return NULL;
    if (!augpy_is_tensor(st, a) || !augpy_is_tensor(st, b))
        Py_RETURN_NOTIMPLEMENTED;
    aug_tensor *res = NULL;
    aug_tensor *ta = ((AugTensorObject *)a)->t, *tb = ((AugTensorObject *)b)->t;
    aug_status s;
    AUGPY_CALL(s, aug_tensor_size(ta) + aug_tensor_size(tb), aug_gemm(ta, tb, &res, 1.0, 0.0));
    return finish(st, s, res, NULL, func);
}

PyType_Slot augpy_tensor_number_slots[] = {
    {Py_nb_add, (void *)nb_add},
    {Py_nb_subtract, (void *)nb_sub},
    {Py_nb_multiply, (void *)nb_mul},
    {Py_nb_true_divide, (void *)nb_truediv},
    {Py_nb_floor_divide, (void *)nb_floordiv},
    {Py_nb_remainder, (void *)nb_mod},
    {Py_nb_divmod, (void *)nb_divmod},
    {Py_nb_power, (void *)nb_pow},
    {Py_nb_and, (void *)nb_and},
    {Py_nb_or, (void *)nb_or},
    {Py_nb_xor, (void *)nb_xor},
    {Py_nb_lshift, (void *)nb_lshift},
    {Py_nb_rshift, (void *)nb_rshift},
    {Py_nb_inplace_add, (void *)nb_inplace_add},
    {Py_nb_inplace_subtract, (void *)nb_inplace_sub},
    {Py_nb_inplace_multiply, (void *)nb_inplace_mul},
    {Py_nb_inplace_true_divide, (void *)nb_inplace_truediv},
    {Py_nb_inplace_floor_divide, (void *)nb_inplace_floordiv},
    {Py_nb_inplace_remainder, (void *)nb_inplace_mod},
    {Py_nb_inplace_power, (void *)nb_inplace_pow},
    {Py_nb_inplace_and, (void *)nb_inplace_and},
    {Py_nb_inplace_or, (void *)nb_inplace_or},
    {Py_nb_inplace_xor, (void *)nb_inplace_xor},
    {Py_nb_inplace_lshift, (void *)nb_inplace_lshift},
    {Py_nb_inplace_rshift, (void *)nb_inplace_rshift},
    {Py_nb_negative, (void *)nb_neg},
    {Py_nb_positive, (void *)nb_pos},
    {Py_nb_absolute, (void *)nb_abs},
    {Py_nb_invert, (void *)nb_invert},
    {Py_nb_matrix_multiply, (void *)nb_matmul},
    {0, NULL},
};

PyObject *augpy_tensor_richcompare(PyObject *a, PyObject *b, int op) {
    static const aug_op ops[6] = {AUG_OP_LT, AUG_OP_LE, AUG_OP_EQ, AUG_OP_NE, AUG_OP_GT, AUG_OP_GE};
    static const char *const names[6] = {"Tensor.__lt__", "Tensor.__le__", "Tensor.__eq__",
                                         "Tensor.__ne__", "Tensor.__gt__", "Tensor.__ge__"};
    if (op < 0 || op > 5)
        Py_RETURN_NOTIMPLEMENTED;
    return binop(a, b, ops[op], names[op], 0);
}

/* ---- shared bodies of fill / copy ------------------------------------------------ */

/* dst = value (a scalar: aug_fill; a tensor or array: aug_copy with broadcasting). */
static PyObject *fill_into(augpy_state *st, PyObject *dstobj, PyObject *value, augpy_launch *launch,
                           const char *func) {
    aug_tensor *dst = augpy_tensor_arg(st, dstobj, func, "dst");
    if (!dst)
        return NULL;
    aug_operand src;
    aug_tensor *tmp = NULL;
    int r;
    if (augpy_is_big_int(value)) { /* a weak int takes dst's dtype */
        r = augpy_big_int_scalar(value, dst->dtype, &src.scalar, func);
        src.tensor = NULL;
    } else {
        r = augpy_parse_operand(st, value, &src, &tmp, func);
    }
    if (r == 0 && augpy_operands_to_device(st, &src, &tmp, 1, dst, func) < 0) {
        aug_tensor_free(tmp);
        return NULL;
    }
    if (r < 0)
        return NULL;
    if (r > 0) {
        PyErr_Format(PyExc_TypeError, "%s: expected a scalar, a Tensor or an array, not '%.100s'", func,
                     Py_TYPE(value)->tp_name);
        return NULL;
    }
    aug_status s;
    if (src.tensor)
        AUGPY_CALL_LAUNCH(s, *launch, aug_tensor_size(dst), aug_copy(src.tensor, dst));
    else
        AUGPY_CALL_LAUNCH(s, *launch, aug_tensor_size(dst), aug_fill(dst, &src.scalar));
    aug_tensor_free(tmp);
    return finish(st, s, NULL, dstobj, func);
}

AUGPY_METHOD_SIG(fill_method_sig, "fill", {"value|scalar|other"}, {"blocks_per_sm", "8"}, {"threads", "0"});

static PyObject *tensor_fill(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *a[3];
    augpy_launch launch;
    augpy_state *st = augpy_state_from_obj(self);
    if (!st || augpy_parse_args("Tensor.fill", args, nargs, kwnames, &fill_method_sig, a) < 0 ||
        augpy_parse_launch("Tensor.fill", a[1], a[2], 0, &launch) < 0)
        return NULL;
    return fill_into(st, self, a[0], &launch, "Tensor.fill");
}

PyMethodDef augpy_tensor_op_methods[] = {
    {"fill", (PyCFunction)(void (*)(void))tensor_fill, METH_FASTCALL | METH_KEYWORDS,
     "Fill with a scalar, or copy a tensor / array "
     "(broadcast) into this tensor, with saturate_cast. Returns this tensor."},
    {NULL, NULL, 0, NULL},
};

/* ---- functional API: add sub rsub mul div rdiv lt le gt ge eq ne ------------------- */

static PyObject *functional(PyObject *module, aug_op op, int reflected, const char *func, augpy_sig *sig,
                            PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *a[5];
    augpy_launch launch;
    augpy_state *st = augpy_state_from_module(module);
    if (augpy_parse_args(func, args, nargs, kwnames, sig, a) < 0 ||
        augpy_parse_launch(func, a[3], a[4], AUGPY_THREADS_FUNCTIONAL, &launch) < 0)
        return NULL;
    aug_tensor *t = augpy_tensor_arg(st, a[0], func, "tensor");
    aug_tensor *out = NULL;
    if (!t || augpy_parse_out(st, a[2] ? a[2] : Py_None, &out, func) < 0)
        return NULL;
    aug_operand ops2[2], other;
    aug_tensor *tmps[2], *tmp = NULL;
    int bad;
    int r = augpy_parse_operands(st, a, 2, ops2, tmps, &bad, func); /* a[0] is a tensor: tmps[0] stays NULL */
    other = ops2[1];
    tmp = tmps[1];
    if (r == 0 && augpy_operands_to_device(st, &other, &tmp, 1, t, func) < 0) {
        aug_tensor_free(tmp);
        return NULL;
    }
    if (r != 0)
        aug_tensor_free(tmp);
    if (r < 0)
        return NULL;
    if (r > 0) {
        PyErr_Format(PyExc_TypeError, "%s: the second argument must be a scalar or a Tensor, not '%.100s'",
                     func, Py_TYPE(a[1])->tp_name);
        return NULL;
    }
    aug_operand in[2] = {aug_operand_tensor(t), other};
    aug_tensor *res = out;
    aug_status s;
    int64_t volume = ew_volume(2, in, out);
    if (!other.tensor)
        AUGPY_CALL_LAUNCH(s, launch, volume, aug_functional_scalar(func, op, t, other.scalar, reflected, &res));
    else if (reflected)
        AUGPY_CALL_LAUNCH(s, launch, volume, aug_functional_tensor(func, op, other.tensor, t, &res));
    else
        AUGPY_CALL_LAUNCH(s, launch, volume, aug_functional_tensor(func, op, t, other.tensor, &res));
    aug_tensor_free(tmp);
    return finish(st, s, res, out ? a[2] : NULL, func);
}

#define FUNCTIONAL(name, OP, reflected)                                                                 \
    AUGPY_SIG(name##_sig, #name, {"tensor|tensor1"}, {"other|scalar|tensor2"}, {"out", "None"},        \
              {"blocks_per_sm", "8"}, {"threads", "512"});                                            \
    static PyObject *fn_##name(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {\
        return functional(m, AUG_OP_##OP, reflected, "augpy." #name, &name##_sig, args, nargs, kwnames);\
    }
FUNCTIONAL(add, ADD, 0)
FUNCTIONAL(sub, SUB, 0)
FUNCTIONAL(rsub, SUB, 1)
FUNCTIONAL(mul, MUL, 0)
FUNCTIONAL(div, DIV_RNE, 0)
FUNCTIONAL(rdiv, DIV_RNE, 1)
FUNCTIONAL(lt, LT, 0)
FUNCTIONAL(le, LE, 0)
FUNCTIONAL(gt, GT, 0)
FUNCTIONAL(ge, GE, 0)
FUNCTIONAL(eq, EQ, 0)
FUNCTIONAL(ne, NE, 0)

/* ---- fma, gemm, fill, copy, cast ---------------------------------------------- */

AUGPY_SIG(fma_sig, "fma", {"scalar"}, {"tensor1"}, {"tensor2"}, {"out", "None"}, {"blocks_per_sm", "8"},
          {"threads", "512"});

static PyObject *fn_fma(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    const char *func = "augpy.fma";
    PyObject *a[6];
    augpy_launch launch;
    augpy_state *st = augpy_state_from_module(m);
    if (augpy_parse_args(func, args, nargs, kwnames, &fma_sig, a) < 0 ||
        augpy_parse_launch(func, a[4], a[5], AUGPY_THREADS_FUNCTIONAL, &launch) < 0)
        return NULL;
    aug_tensor *out = NULL;
    aug_tensor *t1 = augpy_tensor_arg(st, a[1], func, "tensor1");
    if (!t1 || augpy_parse_out(st, a[3] ? a[3] : Py_None, &out, func) < 0)
        return NULL;
    aug_tensor *res = out;
    aug_status s;
    if (!augpy_is_tensor(st, a[0]) && !PySequence_Check(a[0]) && !PyObject_CheckBuffer(a[0]) &&
        augpy_is_tensor(st, a[2])) {
        /* the classic form: a number times a tensor plus a tensor */
        double scalar;
        if (augpy_parse_number(st, a[0], &scalar, func, "scalar") < 0)
            return NULL;
        aug_tensor *t2 = augpy_tensor_arg(st, a[2], func, "tensor2");
        if (!t2)
            return NULL;
        aug_operand in[2] = {aug_operand_tensor(t1), aug_operand_tensor(t2)};
        AUGPY_CALL_LAUNCH(s, launch, ew_volume(2, in, out), aug_fma(scalar, t1, t2, &res));
        return finish(st, s, res, out ? a[3] : NULL, func);
    }
    /* broadcasting tensor (or array-like) coefficients, a number or tensor addend */
    if (!augpy_is_tensor(st, a[2]) && (!PyNumber_Check(a[2]) || PySequence_Check(a[2]))) {
        PyErr_Format(PyExc_TypeError, "%s: tensor2 must be a Tensor or a number, not '%.100s'", func,
                     Py_TYPE(a[2])->tp_name);
        return NULL;
    }
    aug_operand in[3];
    aug_tensor *tmp[3] = {NULL, NULL, NULL};
    PyObject *objs[3] = {a[0], a[1], a[2]};
    int bad;
    int r = augpy_parse_operands(st, objs, 3, in, tmp, &bad, func);
    if (r == 1) {
        PyErr_Format(PyExc_TypeError, "%s: %s must be a number, a Tensor or an array, not '%.100s'", func,
                     bad == 0 ? "scalar" : bad == 1 ? "tensor1" : "tensor2", Py_TYPE(objs[bad])->tp_name);
        r = -1;
    }
    if (r == 0 && augpy_operands_to_device(st, in, tmp, 3, out ? out : t1, func) < 0)
        r = -1;
    if (r < 0) {
        free_tmps(tmp, 3);
        return NULL;
    }
    AUGPY_CALL_LAUNCH(s, launch, ew_volume(3, in, out), aug_fma_operands(in[0], in[1], in[2], &res));
    free_tmps(tmp, 3);
    return finish(st, s, res, out ? a[3] : NULL, func);
}

AUGPY_SIG(gemm_sig, "gemm", {"A"}, {"B"}, {"C", "None"}, {"alpha", "1.0"}, {"beta", "0.0"});

static PyObject *fn_gemm(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    const char *func = "augpy.gemm";
    PyObject *a[5];
    augpy_state *st = augpy_state_from_module(m);
    double alpha = 1.0, beta = 0.0;
    if (augpy_parse_args(func, args, nargs, kwnames, &gemm_sig, a) < 0 ||
        (a[3] && augpy_parse_number(st, a[3], &alpha, func, "alpha") < 0) ||
        (a[4] && augpy_parse_number(st, a[4], &beta, func, "beta") < 0))
        return NULL;
    aug_tensor *A = augpy_tensor_arg(st, a[0], func, "A");
    aug_tensor *B = A ? augpy_tensor_arg(st, a[1], func, "B") : NULL;
    aug_tensor *C = NULL;
    if (!B || augpy_parse_out(st, a[2] ? a[2] : Py_None, &C, func) < 0)
        return NULL;
    aug_tensor *res = C;
    aug_status s;
    AUGPY_CALL(s, aug_tensor_size(A) + aug_tensor_size(B), aug_gemm(A, B, &res, alpha, beta));
    return finish(st, s, res, C ? a[2] : NULL, func);
}

AUGPY_SIG(fill_sig, "fill", {"scalar"}, {"dst"}, {"blocks_per_sm", "8"}, {"threads", "0"});

static PyObject *fn_fill(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *a[4];
    augpy_launch launch;
    augpy_state *st = augpy_state_from_module(m);
    if (augpy_parse_args("augpy.fill", args, nargs, kwnames, &fill_sig, a) < 0 ||
        augpy_parse_launch("augpy.fill", a[2], a[3], 0, &launch) < 0)
        return NULL;
    return fill_into(st, a[1], a[0], &launch, "augpy.fill");
}

AUGPY_SIG(copy_sig, "copy", {"src"}, {"dst"}, {"blocks_per_sm", "8"}, {"threads", "0"});

static PyObject *fn_copy(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    const char *func = "augpy.copy";
    PyObject *a[4];
    augpy_launch launch;
    augpy_state *st = augpy_state_from_module(m);
    if (augpy_parse_args(func, args, nargs, kwnames, &copy_sig, a) < 0 ||
        augpy_parse_launch(func, a[2], a[3], 0, &launch) < 0)
        return NULL;
    aug_tensor *dst = augpy_tensor_arg(st, a[1], func, "dst");
    if (!dst)
        return NULL;
    aug_status s;
    if (augpy_is_tensor(st, a[0])) {
        AUGPY_CALL_LAUNCH(s, launch, aug_tensor_size(dst), aug_copy(((AugTensorObject *)a[0])->t, dst));
    } else {
        augpy_bufview view; /* arrays and buffers, read in place; TypeError otherwise */
        if (augpy_bufview_get(st, a[0], 0, &view, func) < 0)
            return NULL;
        AUGPY_CALL_LAUNCH(s, launch, aug_tensor_size(dst), aug_copy(view.t, dst));
        augpy_bufview_release(&view);
    }
    return finish(st, s, NULL, a[1], func);
}

AUGPY_SIG(cast_sig, "cast", {"tensor"}, {"dtype|out"}, {"blocks_per_sm", "8"}, {"threads", "0"});

static PyObject *fn_cast(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    const char *func = "augpy.cast";
    PyObject *a[4];
    augpy_launch launch;
    augpy_state *st = augpy_state_from_module(m);
    if (augpy_parse_args(func, args, nargs, kwnames, &cast_sig, a) < 0 ||
        augpy_parse_launch(func, a[2], a[3], 0, &launch) < 0)
        return NULL;
    aug_tensor *t = augpy_tensor_arg(st, a[0], func, "tensor");
    if (!t)
        return NULL;
    aug_tensor *out = NULL;
    aug_dtype dtype;
    if (augpy_is_tensor(st, a[1])) {
        out = ((AugTensorObject *)a[1])->t;
        dtype = out->dtype;
    } else if (augpy_parse_dtype(st, a[1], &dtype, func) < 0) {
        return NULL;
    }
    aug_tensor *res = out;
    aug_status s;
    AUGPY_CALL_LAUNCH(s, launch, aug_tensor_size(t), aug_cast(t, dtype, &res));
    return finish(st, s, res, out ? a[1] : NULL, func);
}

/* ---- registration ---------------------------------------------------------------- */

#define FASTCALL(name, fn, doc) {name, (PyCFunction)(void (*)(void))fn, METH_FASTCALL | METH_KEYWORDS, doc}
#define FUNCTIONAL_DOC(name, what)                                                                                     \
    what                                                                                                               \
         "\n`other` is a scalar (result has the tensor's dtype) or a tensor (broadcast);"                              \
         "\nwith `out` the result is stored there with saturate_cast and `out` is returned."

static PyMethodDef ops_functions[] = {
    FASTCALL("add", fn_add, FUNCTIONAL_DOC("add", "tensor + other.")),
    FASTCALL("sub", fn_sub, FUNCTIONAL_DOC("sub", "tensor - other.")),
    FASTCALL("rsub", fn_rsub, FUNCTIONAL_DOC("rsub", "other - tensor.")),
    FASTCALL("mul", fn_mul, FUNCTIONAL_DOC("mul", "tensor * other.")),
    FASTCALL("div", fn_div, FUNCTIONAL_DOC("div", "tensor / other, integers rounded half to even.")),
    FASTCALL("rdiv", fn_rdiv, FUNCTIONAL_DOC("rdiv", "other / tensor, integers rounded half to even.")),
    FASTCALL("lt", fn_lt, FUNCTIONAL_DOC("lt", "tensor < other as a bool tensor.")),
    FASTCALL("le", fn_le, FUNCTIONAL_DOC("le", "tensor <= other as a bool tensor.")),
    FASTCALL("gt", fn_gt, FUNCTIONAL_DOC("gt", "tensor > other as a bool tensor.")),
    FASTCALL("ge", fn_ge, FUNCTIONAL_DOC("ge", "tensor >= other as a bool tensor.")),
    FASTCALL("eq", fn_eq, FUNCTIONAL_DOC("eq", "tensor == other as a bool tensor.")),
    FASTCALL("ne", fn_ne, FUNCTIONAL_DOC("ne", "tensor != other as a bool tensor.")),
    FASTCALL("fma", fn_fma,
             "scalar * tensor1 + tensor2 in the temp type with one rounding; new results have "
             "tensor2's dtype.\nscalar may also be a tensor (or array) that broadcasts against tensor1 "
             "(per-channel coefficients), and tensor2 a number; a tensor scalar joins the compute type's "
             "promotion, and with a number tensor2 new results have tensor1's dtype."),
    FASTCALL("gemm", fn_gemm,
             "C = alpha * (A @ B) + beta * C for 2-D float32/float64 tensors (contiguous or transposed views);\n"
             "returns C. With C None a new (m, n) tensor is returned (beta ignored)."),
    FASTCALL(
        "fill", fn_fill,
        "Fill dst with scalar (saturate_cast); "
        "returns dst.\nblocks_per_sm / threads: the CUDA launch settings of this call (the CPU backend ignores them)."),
    FASTCALL("copy", fn_copy,
             "Copy src into dst, broadcasting, with "
             "saturate_cast; returns dst.\nblocks_per_sm / threads: the CUDA launch settings of this call (the CPU "
             "backend ignores them)."),
    FASTCALL("cast", fn_cast,
             "Saturating cast to a dtype "
             "(new tensor), or with an output tensor in place of dtype (or out=) into it (returned).\nblocks_per_sm / "
             "threads: the CUDA launch settings of this call (the CPU backend ignores them)."),
    {NULL, NULL, 0, NULL},
};

augpy_sig *const augpy_tensor_op_sigs[] = {&fill_method_sig, NULL};

int augpy_init_ops(PyObject *module, augpy_state *st) {
    (void)st;
    static augpy_sig *const sigs[] = {&add_sig, &sub_sig, &rsub_sig, &mul_sig,  &div_sig,  &rdiv_sig,
                                      &lt_sig,  &le_sig,  &gt_sig,   &ge_sig,   &eq_sig,   &ne_sig,
                                      &fma_sig, &gemm_sig, &fill_sig, &copy_sig, &cast_sig, NULL};
    if (augpy_sign_methods(ops_functions, sigs) < 0) return -1;
    return PyModule_AddFunctions(module, ops_functions);
}
