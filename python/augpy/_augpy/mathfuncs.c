/* _augpy/mathfuncs.c: the DALI math functions of semantics §8 (abs ... atanh) as module
 * functions _math_<name> (re-exported by augpy/math.py as augpy.math.<name>) and,
 * where NumPy has a function of that name, as Tensor methods (t.sqrt(), t.pow(2)).
 * Which ops are exposed, and how, comes from the PY column of the C op list
 * (aug/ops.h AUG_OP_LIST, through augpy.h's AUGPY_MATH_OPS); this file adds the
 * docstrings.
 *
 * Each takes tensors, scalars (weak Python numbers or augpy.Constant) or arrays,
 * at least one of them a tensor, and out=None; the computation, promotion and
 * errors are aug_elementwise's. */
#include "augpy.h"

/* Argument names by arity (DALI's): unary (input), binary (left, right), clamp. */
static const char *const names1[] = {"input|x", "out"};
static const char *const names2[] = {"left|x|base", "right|y|exponent", "out"};
static const char *const names3[] = {"value|x", "lo", "hi", "out"};

/* self == NULL: module function; else a Tensor method with self as the first operand. */
static PyObject *math_call(augpy_state *st, PyObject *self, aug_op op, const char *func, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kwnames) {
    if (!st)
        return NULL;
    int arity = aug_op_arity(op);
    const char *const *names = arity == 1 ? names1 : arity == 2 ? names2 : names3;
    PyObject *a[4];
    int off = self ? 1 : 0;
    if (augpy_parse_args(func, args, nargs, kwnames, names + off, arity + 1 - off, arity - off, a + off) < 0)
        return NULL;
    if (self)
        a[0] = self;
    PyObject *outobj = a[arity];
    aug_tensor *out = NULL;
    if (augpy_parse_out(st, outobj ? outobj : Py_None, &out, func) < 0)
        return NULL;
    aug_operand in[3];
    aug_tensor *tmp[3] = {NULL, NULL, NULL};
    int ntensors = 0;
    int64_t volume = out ? aug_tensor_size(out) : 0;
    PyObject *res = NULL;
    int bad = 0;
    int r = augpy_parse_operands(st, a, arity, in, tmp, &bad, func);
    if (r < 0)
        goto done;
    if (r > 0) {
        PyErr_Format(PyExc_TypeError, "%s: argument %d must be a Tensor, an array or a number, not '%.100s'", func,
                     bad + 1, Py_TYPE(a[bad])->tp_name);
        goto done;
    }
    for (int i = 0; i < arity; i++) {
        if (in[i].tensor) {
            ntensors++;
            if (aug_tensor_size(in[i].tensor) > volume)
                volume = aug_tensor_size(in[i].tensor);
        }
    }
    if (ntensors == 0) {
        PyErr_Format(PyExc_TypeError, "%s: at least one argument must be a Tensor", func);
        goto done;
    }
    if (augpy_operands_to_device(st, in, tmp, arity, out, func) < 0)
        goto done;
    aug_tensor *result = out;
    aug_status s;
    AUGPY_CALL(s, volume, aug_elementwise(func, op, arity, in, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, &result));
    if (s != AUG_OK) {
        augpy_raise(st, s, func);
    } else if (out) {
        Py_INCREF(outobj);
        res = outobj;
    } else {
        res = augpy_wrap(st, result);
    }
done:
    for (int i = 0; i < arity; i++)
        aug_tensor_free(tmp[i]);
    return res;
}

PyObject *augpy_math_call(augpy_state *st, PyObject *self, aug_op op, const char *func, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kwnames) {
    return math_call(st, self, op, func, args, nargs, kwnames);
}

/* Docstrings: DOC_<name> is the first operand's name, the other operands (each
 * after ", "), and the description. A function's signature is
 * "name(first, others, out=None)", a method's "name($self, /, others, out=None)"
 * (the tensor is the first operand). Every op exposed by the op list needs one:
 * a missing DOC_<name> is a compile error in the tables below. */
#define DOC_abs "input", "", "Absolute value; same dtype, saturating (abs(int8 -128) = 127)."
#define DOC_fabs "input", "", "Absolute value as a float (integers -> float32)."
#define DOC_floor "input", "", "Round down; integers -> float32."
#define DOC_ceil "input", "", "Round up; integers -> float32."
#define DOC_pow "base", ", exponent", "base ** exponent (promoted type; integers exact, saturated)."
#define DOC_fpow "base", ", exponent", "base ** exponent in floating point (integers -> float32)."
#define DOC_min "left", ", right", "Elementwise minimum (promoted type; NaN propagates)."
#define DOC_max "left", ", right", "Elementwise maximum (promoted type; NaN propagates)."
#define DOC_clamp "value", ", lo, hi", "min(max(value, lo), hi) in the type promoted over all three."
#define DOC_sqrt "input", "", "Square root; integers -> float32."
#define DOC_rsqrt "input", "", "1 / sqrt(x); integers -> float32."
#define DOC_cbrt "input", "", "Cube root; integers -> float32."
#define DOC_exp "input", "", "e ** x; integers -> float32."
#define DOC_log "input", "", "Natural logarithm; integers -> float32."
#define DOC_log2 "input", "", "Base-2 logarithm; integers -> float32."
#define DOC_log10 "input", "", "Base-10 logarithm; integers -> float32."
#define DOC_sin "input", "", "Sine (radians); integers -> float32."
#define DOC_cos "input", "", "Cosine (radians); integers -> float32."
#define DOC_tan "input", "", "Tangent (radians); integers -> float32."
#define DOC_asin "input", "", "Arc sine; integers -> float32."
#define DOC_acos "input", "", "Arc cosine; integers -> float32."
#define DOC_atan "input", "", "Arc tangent; integers -> float32."
#define DOC_atan2 "left", ", right", \
    "Arc tangent of left / right using both signs (C atan2(left, right)); integers -> float32."
#define DOC_sinh "input", "", "Hyperbolic sine; integers -> float32."
#define DOC_cosh "input", "", "Hyperbolic cosine; integers -> float32."
#define DOC_tanh "input", "", "Hyperbolic tangent; integers -> float32."
#define DOC_asinh "input", "", "Inverse hyperbolic sine; integers -> float32."
#define DOC_acosh "input", "", "Inverse hyperbolic cosine; integers -> float32."
#define DOC_atanh "input", "", "Inverse hyperbolic tangent; integers -> float32."

/* The second paragraph of every math docstring. */
#define MATH_OPERANDS_DOC                                                                                              \
    "\nOperands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,\n"           \
    "broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."
#define FUNCTION_DOC_(name, first, others, what) name "(" first others ", out=None)\n--\n\n" what MATH_OPERANDS_DOC
#define METHOD_DOC_(name, first, others, what) name "($self, /" others ", out=None)\n--\n\n" what MATH_OPERANDS_DOC
#define APPLY_(macro, ...) macro(__VA_ARGS__)
#define FUNCTION_DOC(name) APPLY_(FUNCTION_DOC_, #name, DOC_##name)
#define METHOD_DOC(name) APPLY_(METHOD_DOC_, #name, DOC_##name)

/* ---- the functions and methods of the op list's PY column (augpy.h AUGPY_MATH_OPS) ---- */

#define AUGPY_MATH_FUNCTION(name, OP)                                                                      \
    static PyObject *math_##name(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {\
        return math_call(augpy_state_from_module(m), NULL, AUG_OP_##OP, "augpy.math." #name, args, nargs, \
                         kwnames);                                                                        \
    }
#define AUGPY_MATH_METHOD(name, OP)                                                                          \
    static PyObject *method_##name(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {\
        return math_call(augpy_state_from_obj(self), self, AUG_OP_##OP, "Tensor." #name, args, nargs,       \
                         kwnames);                                                                          \
    }
AUGPY_MATH_OPS
#undef AUGPY_MATH_FUNCTION
#undef AUGPY_MATH_METHOD

/* Registered as _augpy._math_<name> with __name__ <name>. */
#define AUGPY_MATH_FUNCTION(name, OP) \
    {#name, (PyCFunction)(void (*)(void))math_##name, METH_FASTCALL | METH_KEYWORDS, FUNCTION_DOC(name)},
#define AUGPY_MATH_METHOD(name, OP)
static PyMethodDef math_functions[] = {
    AUGPY_MATH_OPS
    {NULL, NULL, 0, NULL},
};
#undef AUGPY_MATH_FUNCTION
#undef AUGPY_MATH_METHOD

#define AUGPY_MATH_FUNCTION(name, OP)
#define AUGPY_MATH_METHOD(name, OP) \
    {#name, (PyCFunction)(void (*)(void))method_##name, METH_FASTCALL | METH_KEYWORDS, METHOD_DOC(name)},
PyMethodDef augpy_tensor_math_methods[] = {
    AUGPY_MATH_OPS
    {NULL, NULL, 0, NULL},
};
#undef AUGPY_MATH_FUNCTION
#undef AUGPY_MATH_METHOD

int augpy_init_math(PyObject *module, augpy_state *st) {
    (void)st;
    PyObject *modname = PyModule_GetNameObject(module);
    if (!modname)
        return -1;
    int rc = 0;
    for (PyMethodDef *def = math_functions; def->ml_name && rc == 0; def++) {
        PyObject *fn = PyCFunction_NewEx(def, module, modname);
        char attr[32];
        PyOS_snprintf(attr, sizeof attr, "_math_%s", def->ml_name);
        rc = fn ? PyModule_AddObjectRef(module, attr, fn) : -1;
        Py_XDECREF(fn);
    }
    Py_DECREF(modname);
    return rc;
}
