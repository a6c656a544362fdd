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

/* self == NULL: module function; else a Tensor method with self as the first operand. sig:
 * the function's spec (its arity operands, then out), or the method's (without the first). */
static PyObject *math_call(augpy_state *st, PyObject *self, aug_op op, const char *func, augpy_sig *sig,
                           PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    if (!st)
        return NULL;
    int arity = aug_op_arity(op);
    PyObject *a[4];
    int off = self ? 1 : 0;
    if (augpy_parse_args(func, args, nargs, kwnames, sig, a + off) < 0)
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

/* The parameters by arity (DALI's names, with the other names as keyword aliases):
 * unary (input), binary (left, right; pow: base, exponent), clamp (value, lo, hi). */
#define PARAMS_UNARY {"input|x"}, {"out", "None"}
#define PARAMS_BINARY {"left|x|base"}, {"right|y|exponent"}, {"out", "None"}
#define PARAMS_POW {"base|left|x"}, {"exponent|right|y"}, {"out", "None"}
#define PARAMS_CLAMP {"value|x"}, {"lo"}, {"hi"}, {"out", "None"}

/* Docstrings: DOC_<name> is the parameters (PARAMS_<kind>) and the description. A
 * function's signature is "name(operands, out=None)", a method's "name($self, /,
 * the other operands, out=None)" (the tensor is the first operand). Every op
 * exposed by the op list needs one: a missing DOC_<name> is a compile error below. */
#define DOC_abs UNARY, "Absolute value; same dtype, saturating (abs(int8 -128) = 127)."
#define DOC_fabs UNARY, "Absolute value as a float (integers -> float32)."
#define DOC_floor UNARY, "Round down; integers -> float32."
#define DOC_ceil UNARY, "Round up; integers -> float32."
#define DOC_pow POW, "base ** exponent (promoted type; integers exact, saturated)."
#define DOC_fpow POW, "base ** exponent in floating point (integers -> float32)."
#define DOC_min BINARY, "Elementwise minimum (promoted type; NaN propagates)."
#define DOC_max BINARY, "Elementwise maximum (promoted type; NaN propagates)."
#define DOC_clamp CLAMP, "min(max(value, lo), hi) in the type promoted over all three."
#define DOC_sqrt UNARY, "Square root; integers -> float32."
#define DOC_rsqrt UNARY, "1 / sqrt(x); integers -> float32."
#define DOC_cbrt UNARY, "Cube root; integers -> float32."
#define DOC_exp UNARY, "e ** x; integers -> float32."
#define DOC_log UNARY, "Natural logarithm; integers -> float32."
#define DOC_log2 UNARY, "Base-2 logarithm; integers -> float32."
#define DOC_log10 UNARY, "Base-10 logarithm; integers -> float32."
#define DOC_sin UNARY, "Sine (radians); integers -> float32."
#define DOC_cos UNARY, "Cosine (radians); integers -> float32."
#define DOC_tan UNARY, "Tangent (radians); integers -> float32."
#define DOC_asin UNARY, "Arc sine; integers -> float32."
#define DOC_acos UNARY, "Arc cosine; integers -> float32."
#define DOC_atan UNARY, "Arc tangent; integers -> float32."
#define DOC_atan2 BINARY, \
    "Arc tangent of left / right using both signs (C atan2(left, right)); integers -> float32."
#define DOC_sinh UNARY, "Hyperbolic sine; integers -> float32."
#define DOC_cosh UNARY, "Hyperbolic cosine; integers -> float32."
#define DOC_tanh UNARY, "Hyperbolic tangent; integers -> float32."
#define DOC_asinh UNARY, "Inverse hyperbolic sine; integers -> float32."
#define DOC_acosh UNARY, "Inverse hyperbolic cosine; integers -> float32."
#define DOC_atanh UNARY, "Inverse hyperbolic tangent; integers -> float32."

/* The second paragraph of every math docstring. */
#define MATH_OPERANDS_DOC                                                                                              \
    "\nOperands: tensors, numbers (weak scalars), augpy.Constant values or arrays, at least one a tensor,\n"           \
    "broadcast together. Returns a new tensor, or writes into out (saturate_cast) and returns it."
#define DOC_TEXT_(params, what) what MATH_OPERANDS_DOC
#define APPLY_(macro, ...) macro(__VA_ARGS__)
#define FUNCTION_DOC(name) APPLY_(DOC_TEXT_, DOC_##name)
#define METHOD_DOC(name) APPLY_(DOC_TEXT_, DOC_##name)

/* ---- the specs: math_<name>_sig, and math_<name>_method_sig without the tensor ---- */

#define MATH_SIG_(name, params, what) AUGPY_SIG(math_##name##_sig, #name, PARAMS_##params);
#define AUGPY_MATH_FUNCTION(name, OP) APPLY_(MATH_SIG_, name, DOC_##name)
#define AUGPY_MATH_METHOD(name, OP) AUGPY_METHOD_SIG_OF(math_##name##_method_sig, #name, math_##name##_sig);
AUGPY_MATH_OPS
#undef AUGPY_MATH_FUNCTION
#undef AUGPY_MATH_METHOD

/* The spec of augpy.math.<op>; NULL for an op without one. */
static augpy_sig *math_sig(aug_op op) {
#define AUGPY_MATH_FUNCTION(name, OP) \
    if (op == AUG_OP_##OP) return &math_##name##_sig;
#define AUGPY_MATH_METHOD(name, OP)
    AUGPY_MATH_OPS
#undef AUGPY_MATH_FUNCTION
#undef AUGPY_MATH_METHOD
    return NULL;
}

PyObject *augpy_math_call(augpy_state *st, PyObject *self, aug_op op, const char *func, PyObject *const *args,
                          Py_ssize_t nargs, PyObject *kwnames) {
    augpy_sig *sig = math_sig(op);
    if (!sig) {
        PyErr_Format(PyExc_SystemError, "%s: no such math op", func);
        return NULL;
    }
    if (!self) return math_call(st, self, op, func, sig, args, nargs, kwnames);
    /* self is the first operand: the function's spec without it */
    augpy_sig rest = {sig->name, sig->params + 1, sig->nparams - 1, sig->npos - 1, 1,
                      sig->nrequired < 0 ? -1 : sig->nrequired - 1};
    return math_call(st, self, op, func, &rest, args, nargs, kwnames);
}

/* ---- the functions and methods of the op list's PY column (augpy.h AUGPY_MATH_OPS) ---- */

#define AUGPY_MATH_FUNCTION(name, OP)                                                                      \
    static PyObject *math_##name(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {\
        return math_call(augpy_state_from_module(m), NULL, AUG_OP_##OP, "augpy.math." #name,              \
                         &math_##name##_sig, args, nargs, kwnames);                                       \
    }
#define AUGPY_MATH_METHOD(name, OP)                                                                          \
    static PyObject *method_##name(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {\
        return math_call(augpy_state_from_obj(self), self, AUG_OP_##OP, "Tensor." #name,                    \
                         &math_##name##_method_sig, args, nargs, kwnames);                                  \
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

#define AUGPY_MATH_FUNCTION(name, OP)
#define AUGPY_MATH_METHOD(name, OP) &math_##name##_method_sig,
augpy_sig *const augpy_tensor_math_sigs[] = {AUGPY_MATH_OPS NULL};
#undef AUGPY_MATH_FUNCTION
#undef AUGPY_MATH_METHOD

int augpy_init_math(PyObject *module, augpy_state *st) {
    (void)st;
#define AUGPY_MATH_FUNCTION(name, OP) &math_##name##_sig,
#define AUGPY_MATH_METHOD(name, OP)
    static augpy_sig *const sigs[] = {AUGPY_MATH_OPS NULL};
#undef AUGPY_MATH_FUNCTION
#undef AUGPY_MATH_METHOD
    if (augpy_sign_methods(math_functions, sigs) < 0)
        return -1;
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
