/* _augpy/reduce.c: reductions sum, min, max, mean, all, any, argmin, argmax (semantics
 * §10) as module functions and Tensor methods, over aug_reduce.
 *
 *   sum(tensor, axis=None, keepdim=False, upcast=False, out=None, blocks_per_sm=8, threads=0)
 *   min / max / mean / all / any(tensor, axis=None, keepdim=False, out=None, ...)
 *   argmin / argmax(tensor, axis=None, keepdim=False, out=None, ...): axis None or an int
 *
 * axis: None (all axes), an int (negative from the back) or a tuple of ints.
 * A full reduction returns a 0-d tensor, as the seed's "sum value as scalar
 * tensor" (use float(t) / int(t) / t.numpy() for the Python value). The seed's
 * overload sum(tensor, upcast) is kept: a bool in the axis position is `upcast`.
 * With out= the result is stored there and `out` is returned. */
#include "augpy.h"

#include <limits.h>

/* axis -> (naxes, axes); naxes -1 means every axis. 0 ok, -1 error. */
static int parse_axes(PyObject *obj, int *naxes, int *axes, const char *func) {
    if (!obj || obj == Py_None) {
        *naxes = -1;
        return 0;
    }
    PyObject *seq = NULL;
    Py_ssize_t n = 1;
    if (!PyLong_Check(obj)) {
        if (!PyTuple_Check(obj) && !PyList_Check(obj)) {
            PyErr_Format(PyExc_TypeError, "%s: axis must be None, an int or a tuple of ints, not '%.100s'", func,
                         Py_TYPE(obj)->tp_name);
            return -1;
        }
        seq = obj;
        n = PySequence_Fast_GET_SIZE(seq);
        if (n > AUG_MAX_DIMS) {
            PyErr_Format(PyExc_ValueError, "%s: too many axes %R (a tensor has at most %d dimensions)", func, obj,
                         AUG_MAX_DIMS);
            return -1;
        }
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = seq ? PySequence_Fast_GET_ITEM(seq, i) : obj;
        if (!PyLong_Check(item) || PyBool_Check(item)) {
            PyErr_Format(PyExc_TypeError, "%s: axis must be None, an int or a tuple of ints, not %R", func, obj);
            return -1;
        }
        int overflow;
        long v = PyLong_AsLongAndOverflow(item, &overflow);
        if (v == -1 && PyErr_Occurred())
            return -1;
        if (overflow || v < INT_MIN || v > INT_MAX) {
            PyObject *desc = augpy_int_desc(item);
            if (desc)
                PyErr_Format(PyExc_ValueError, "%s: axis %U is out of range", func, desc);
            Py_XDECREF(desc);
            return -1;
        }
        axes[i] = (int)v;
    }
    *naxes = (int)n;
    return 0;
}

/* The parameters of sum, and of the other reductions (no upcast). */
#define SUM_PARAMS                                                                                              \
    {"tensor"}, {"axis", "None"}, {"keepdim|keepdims", "False"}, {"upcast", "False"}, {"out", "None"},           \
        {"blocks_per_sm", "8"}, {"threads|num_threads", "0"}
#define REDUCE_PARAMS                                                                                           \
    {"tensor"}, {"axis", "None"}, {"keepdim|keepdims", "False"}, {"out", "None"}, {"blocks_per_sm", "8"},        \
        {"threads|num_threads", "0"}

/* sig: the function's spec, or the method's (without the tensor: self). */
static PyObject *reduce_call(augpy_state *st, PyObject *self, aug_reduce_op op, const char *func, augpy_sig *sig,
                             PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    enum { T, AXIS, KEEP, UPCAST, OUT, BPS, THREADS, NSLOTS };
    if (!st)
        return NULL;
    int is_sum = op == AUG_REDUCE_SUM;
    int off = self ? 1 : 0;
    PyObject *p[NSLOTS];
    PyObject *a[NSLOTS] = {NULL};
    if (augpy_parse_args(func, args, nargs, kwnames, sig, p + off) < 0)
        return NULL;
    if (self)
        p[T] = self;
    if (is_sum) {
        for (int i = 0; i < NSLOTS; i++)
            a[i] = p[i];
    } else {
        a[T] = p[0], a[AXIS] = p[1], a[KEEP] = p[2], a[OUT] = p[3], a[BPS] = p[4], a[THREADS] = p[5];
    }
    /* the seed's sum(tensor, upcast: bool) */
    if (is_sum && a[AXIS] && PyBool_Check(a[AXIS]) && nargs > 1 - off && args[1 - off] == a[AXIS]) {
        if (a[UPCAST]) {
            PyErr_Format(PyExc_TypeError, "%s: axis must be None, an int or a tuple of ints, not bool", func);
            return NULL;
        }
        a[UPCAST] = a[AXIS];
        a[AXIS] = NULL;
    }
    augpy_launch launch;
    if (augpy_parse_launch(func, a[BPS], a[THREADS], 0, &launch) < 0)
        return NULL;
    aug_tensor *t = augpy_tensor_arg(st, a[T], func, "tensor");
    aug_tensor *out = NULL;
    int axes[AUG_MAX_DIMS], naxes;
    int keepdim = 0, upcast = 0;
    /* One argument after the other: a flag's __bool__ must not run with an exception set. */
    if (!t || (a[KEEP] && (keepdim = PyObject_IsTrue(a[KEEP])) < 0) ||
        (a[UPCAST] && (upcast = PyObject_IsTrue(a[UPCAST])) < 0) || parse_axes(a[AXIS], &naxes, axes, func) < 0 ||
        augpy_parse_out(st, a[OUT] ? a[OUT] : Py_None, &out, func) < 0)
        return NULL;
    if ((op == AUG_REDUCE_ARGMIN || op == AUG_REDUCE_ARGMAX) && a[AXIS] && a[AXIS] != Py_None &&
        !PyLong_Check(a[AXIS])) {
        PyErr_Format(PyExc_TypeError, "%s: axis must be None or an int, not '%.100s'", func,
                     Py_TYPE(a[AXIS])->tp_name);
        return NULL;
    }
    aug_tensor *res = out;
    aug_status s;
    AUGPY_CALL_LAUNCH(s, launch, aug_tensor_size(t), aug_reduce(op, t, naxes, axes, keepdim, upcast, &res));
    if (s != AUG_OK)
        return augpy_raise(st, s, func);
    if (out) {
        Py_INCREF(a[OUT]);
        return a[OUT];
    }
    return augpy_wrap(st, res);
}

#define REDUCE_FUNCTIONS_(name, OP, PARAMS)                                                                  \
    AUGPY_SIG(name##_sig, #name, PARAMS);                                                                    \
    AUGPY_METHOD_SIG_OF(name##_method_sig, #name, name##_sig);                                               \
    static PyObject *fn_##name(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {    \
        return reduce_call(augpy_state_from_module(m), NULL, AUG_REDUCE_##OP, "augpy." #name, &name##_sig,   \
                           args, nargs, kwnames);                                                            \
    }                                                                                                        \
    static PyObject *method_##name(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {\
        return reduce_call(augpy_state_from_obj(self), self, AUG_REDUCE_##OP, "Tensor." #name,               \
                           &name##_method_sig, args, nargs, kwnames);                                        \
    }
REDUCE_FUNCTIONS_(sum, SUM, SUM_PARAMS)
REDUCE_FUNCTIONS_(min, MIN, REDUCE_PARAMS)
REDUCE_FUNCTIONS_(max, MAX, REDUCE_PARAMS)
REDUCE_FUNCTIONS_(mean, MEAN, REDUCE_PARAMS)
REDUCE_FUNCTIONS_(all, ALL, REDUCE_PARAMS)
REDUCE_FUNCTIONS_(any, ANY, REDUCE_PARAMS)
REDUCE_FUNCTIONS_(argmin, ARGMIN, REDUCE_PARAMS)
REDUCE_FUNCTIONS_(argmax, ARGMAX, REDUCE_PARAMS)

/* The descriptions. */
#define REDUCE_COMMON                                                                                                  \
    "keepdim keeps the reduced axes with extent 1; out receives the result (saturate_cast) and is returned;\n"         \
    "blocks_per_sm / threads: the CUDA launch settings of this call (the CPU backend ignores them)."
#define SUM_DOC                                                                                                        \
    "Sum over `axis` (None: all axes, giving a 0-d tensor; an int or a tuple of ints). Integers accumulate "           \
    "exactly and saturate to the input dtype, or with upcast=True are returned as int64 / uint64 / float64. "          \
    "sum(tensor, upcast) with a bool second argument is the seed's form.\n" REDUCE_COMMON
#define REDUCE_DOC(what)                                                                                               \
    what " over `axis` (None: all axes, giving a 0-d tensor; an int or a tuple of ints, negative "                     \
         "allowed).\n" REDUCE_COMMON
#define MIN_DOC REDUCE_DOC("Minimum (NaN propagates; an empty reduction raises ValueError)")
#define MAX_DOC REDUCE_DOC("Maximum (NaN propagates; an empty reduction raises ValueError)")
#define MEAN_DOC REDUCE_DOC("Mean (float inputs keep their dtype, integers give float64)")
#define ALL_DOC REDUCE_DOC("True where every element is nonzero, as a bool tensor,")
#define ANY_DOC REDUCE_DOC("True where some element is nonzero, as a bool tensor,")
#define ARG_DOC(name, what)                                                                                            \
    "The int64 index of the first " what " over `axis` (None: the flat index in C order, a 0-d tensor; an "            \
    "int: the index along that axis), as numpy." name ": a NaN counts as the " what " (the first NaN wins), "          \
    "-0.0 equals 0.0. An empty reduction raises ValueError.\n" REDUCE_COMMON
#define ARGMIN_DOC ARG_DOC("argmin", "minimum")
#define ARGMAX_DOC ARG_DOC("argmax", "maximum")

#define FUNCTION_(name, DOC) {#name, (PyCFunction)(void (*)(void))fn_##name, METH_FASTCALL | METH_KEYWORDS, DOC}
#define METHOD_(name, DOC) {#name, (PyCFunction)(void (*)(void))method_##name, METH_FASTCALL | METH_KEYWORDS, DOC}

static PyMethodDef reduce_functions[] = {
    FUNCTION_(sum, SUM_DOC),
    FUNCTION_(min, MIN_DOC),
    FUNCTION_(max, MAX_DOC),
    FUNCTION_(mean, MEAN_DOC),
    FUNCTION_(all, ALL_DOC),
    FUNCTION_(any, ANY_DOC),
    FUNCTION_(argmin, ARGMIN_DOC),
    FUNCTION_(argmax, ARGMAX_DOC),
    {NULL, NULL, 0, NULL},
};

PyMethodDef augpy_tensor_reduce_methods[] = {
    METHOD_(sum, SUM_DOC),
    METHOD_(min, MIN_DOC),
    METHOD_(max, MAX_DOC),
    METHOD_(mean, MEAN_DOC),
    METHOD_(all, ALL_DOC),
    METHOD_(any, ANY_DOC),
    METHOD_(argmin, ARGMIN_DOC),
    METHOD_(argmax, ARGMAX_DOC),
    {NULL, NULL, 0, NULL},
};

#define REDUCE_SIGS_(suffix)                                                                               \
    {&sum##suffix, &min##suffix, &max##suffix, &mean##suffix, &all##suffix, &any##suffix, &argmin##suffix,     \
     &argmax##suffix, NULL}
augpy_sig *const augpy_tensor_reduce_sigs[] = REDUCE_SIGS_(_method_sig);

int augpy_init_reduce(PyObject *module, augpy_state *st) {
    (void)st;
    static augpy_sig *const sigs[] = REDUCE_SIGS_(_sig);
    if (augpy_sign_methods(reduce_functions, sigs) < 0)
        return -1;
    return PyModule_AddFunctions(module, reduce_functions);
}
