/* _augpy/mathfuncs.c: the DALI math functions of SPEC 8 (abs ... atanh) as module
 * functions _math_<name> (re-exported by augpy/math.py as augpy.math.<name>) and,
 * where NumPy has a function of that name, as Tensor methods (t.sqrt(), t.pow(2)).
 *
 * Each takes tensors, scalars (weak Python numbers or augpy.Constant) or arrays,
 * at least one of them a tensor, and out=None; the computation, promotion and
 * errors are aug_elementwise's. */
#include "augpy.h"

/* X(name, OP): every function of SPEC 8. */
#define MATH_LIST(X)                                                                            \
    X(abs, ABS) X(fabs, FABS) X(floor, FLOOR) X(ceil, CEIL) X(pow, POW) X(fpow, FPOW)           \
    X(min, MIN) X(max, MAX) X(clamp, CLAMP) X(sqrt, SQRT) X(rsqrt, RSQRT) X(cbrt, CBRT)         \
    X(exp, EXP) X(log, LOG) X(log2, LOG2) X(log10, LOG10) X(sin, SIN) X(cos, COS) X(tan, TAN)   \
    X(asin, ASIN) X(acos, ACOS) X(atan, ATAN) X(atan2, ATAN2) X(sinh, SINH) X(cosh, COSH)       \
    X(tanh, TANH) X(asinh, ASINH) X(acosh, ACOSH) X(atanh, ATANH)

/* Argument names by arity (DALI's): unary (input), binary (left, right), clamp. */
static const char *const names1[] = {"input|x", "out"};
static const char *const names2[] = {"left|x|base", "right|y|exponent", "out"};
static const char *const names3[] = {"value|x", "lo", "hi", "out"};

/* self == NULL: module function; else a Tensor method with self as the first operand. */
static PyObject *math_call(augpy_state *st, PyObject *self, aug_op op, const char *func, PyObject *const *args,
                           Py_ssize_t nargs, PyObject *kwnames)
{
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
    for (int i = 0; i < arity; i++) {
        int r = augpy_parse_operand(st, a[i], &in[i], &tmp[i], func);
        if (r < 0)
            goto done;
        if (r > 0) {
            PyErr_Format(PyExc_TypeError, "%s: argument %d must be a Tensor, an array or a number, not '%.100s'",
                         func, i + 1, Py_TYPE(a[i])->tp_name);
            goto done;
        }
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

#define MATH_FUNCTION_(name, OP)                                                                          \
    static PyObject *math_##name(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) \
    {                                                                                                     \
        return math_call(augpy_state_from_module(m), NULL, AUG_OP_##OP, "augpy.math." #name, args, nargs, \
                         kwnames);                                                                        \
    }
MATH_LIST(MATH_FUNCTION_)

#define MATH_METHOD_(name, OP)                                                                           \
    PyObject *augpy_method_##name(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) \
    {                                                                                                    \
        return math_call(augpy_state_from_obj(self), self, AUG_OP_##OP, "Tensor." #name, args, nargs,    \
                         kwnames);                                                                       \
    }
AUGPY_TENSOR_MATH_METHODS(MATH_METHOD_)

/* Docstrings: the DALI description of each function. */
#define DOC1(name, what) name "(input, out=None)\n--\n\n" what
#define DOC2(name, what) name "(left, right, out=None)\n--\n\n" what
static const char doc_abs[] = DOC1("abs", "Absolute value; same dtype, saturating (abs(int8 -128) = 127).");
static const char doc_fabs[] = DOC1("fabs", "Absolute value as a float (integers -> float32).");
static const char doc_floor[] = DOC1("floor", "Round down; integers -> float32.");
static const char doc_ceil[] = DOC1("ceil", "Round up; integers -> float32.");
static const char doc_pow[] = "pow(base, exponent, out=None)\n--\n\nbase ** exponent (promoted type; integers exact, "
                              "saturated).";
static const char doc_fpow[] = "fpow(base, exponent, out=None)\n--\n\nbase ** exponent in floating point "
                               "(integers -> float32).";
static const char doc_min[] = DOC2("min", "Elementwise minimum (promoted type; NaN propagates).");
static const char doc_max[] = DOC2("max", "Elementwise maximum (promoted type; NaN propagates).");
static const char doc_clamp[] = "clamp(value, lo, hi, out=None)\n--\n\nmin(max(value, lo), hi) in the type "
                                "promoted over all three.";
static const char doc_sqrt[] = DOC1("sqrt", "Square root; integers -> float32.");
static const char doc_rsqrt[] = DOC1("rsqrt", "1 / sqrt(x); integers -> float32.");
static const char doc_cbrt[] = DOC1("cbrt", "Cube root; integers -> float32.");
static const char doc_exp[] = DOC1("exp", "e ** x; integers -> float32.");
static const char doc_log[] = DOC1("log", "Natural logarithm; integers -> float32.");
static const char doc_log2[] = DOC1("log2", "Base-2 logarithm; integers -> float32.");
static const char doc_log10[] = DOC1("log10", "Base-10 logarithm; integers -> float32.");
static const char doc_sin[] = DOC1("sin", "Sine (radians); integers -> float32.");
static const char doc_cos[] = DOC1("cos", "Cosine (radians); integers -> float32.");
static const char doc_tan[] = DOC1("tan", "Tangent (radians); integers -> float32.");
static const char doc_asin[] = DOC1("asin", "Arc sine; integers -> float32.");
static const char doc_acos[] = DOC1("acos", "Arc cosine; integers -> float32.");
static const char doc_atan[] = DOC1("atan", "Arc tangent; integers -> float32.");
static const char doc_atan2[] = DOC2("atan2", "Arc tangent of left / right using both signs (C atan2(left, right)); "
                                              "integers -> float32.");
static const char doc_sinh[] = DOC1("sinh", "Hyperbolic sine; integers -> float32.");
static const char doc_cosh[] = DOC1("cosh", "Hyperbolic cosine; integers -> float32.");
static const char doc_tanh[] = DOC1("tanh", "Hyperbolic tangent; integers -> float32.");
static const char doc_asinh[] = DOC1("asinh", "Inverse hyperbolic sine; integers -> float32.");
static const char doc_acosh[] = DOC1("acosh", "Inverse hyperbolic cosine; integers -> float32.");
static const char doc_atanh[] = DOC1("atanh", "Inverse hyperbolic tangent; integers -> float32.");

/* Registered as _augpy._math_<name> with __name__ <name>. */
#define MATH_ENTRY_(name, OP) \
    {#name, (PyCFunction)(void (*)(void))math_##name, METH_FASTCALL | METH_KEYWORDS, doc_##name},
static PyMethodDef math_functions[] = {
    MATH_LIST(MATH_ENTRY_)
    {NULL, NULL, 0, NULL},
};

int augpy_init_math(PyObject *module, augpy_state *st)
{
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
