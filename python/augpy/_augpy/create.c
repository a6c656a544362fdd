/* _augpy/create.c: augpy.Constant (DALI's typed, non-weak scalar) and the tensor
 * creation helpers zeros, ones, full, zeros_like, ones_like, full_like.
 * Calls aug_tensor_zeros / aug_tensor_full and the typed-scalar constructors of
 * aug/dtype.h; semantics §6 and §9. */
#include "augpy.h"

#include <math.h>
#include <string.h>

#define FASTCALL(name, fn, doc) {name, (PyCFunction)(void (*)(void))fn, METH_FASTCALL | METH_KEYWORDS, doc}

/* ---- creation: zeros, ones, full, zeros_like, ones_like, full_like ------------------ */

/* value: NULL = zeros. dtype None: with a value, the weak-scalar rule against the
 * default uint8 (int -> uint8, float -> float32, bool -> bool, Constant -> its dtype). */
static PyObject *create(augpy_state *st, PyObject *shapeobj, PyObject *value, PyObject *dtypeobj,
                        PyObject *devobj, const aug_tensor *like, const char *func) {
    int64_t shape[AUG_MAX_DIMS];
    int ndim;
    aug_device dev;
    if (like) {
        ndim = like->ndim;
        memcpy(shape, like->shape, sizeof shape);
        dev = like->device;
    } else if ((ndim = augpy_parse_shape(shapeobj, shape, func)) < 0 || augpy_parse_device_id(devobj, 1, &dev, func) < 0) {
        return NULL;
    }
    aug_scalar v = aug_scalar_int(0);
    int big = value && augpy_is_big_int(value); /* takes the dtype given (semantics §6) */
    if (value && !big) {
        int r = augpy_parse_scalar(st, value, &v);
        if (r < 0)
            return NULL;
        if (r == 0) {
            PyErr_Format(PyExc_TypeError, "%s: fill value must be a number, not '%.100s'", func,
                         Py_TYPE(value)->tp_name);
            return NULL;
        }
    }
    aug_dtype dtype = like ? like->dtype : value ? aug_scalar_result_dtype(&v, AUG_UINT8) : AUG_UINT8;
    if (dtypeobj && dtypeobj != Py_None && augpy_parse_dtype(st, dtypeobj, &dtype, func) < 0)
        return NULL;
    if (big && augpy_big_int_scalar(value, like || (dtypeobj && dtypeobj != Py_None) ? dtype : AUG_DTYPE_AUTO, &v,
                                    func) < 0)
        return NULL;
    aug_tensor *t;
    Py_BEGIN_ALLOW_THREADS
    t = value ? aug_tensor_full(ndim, shape, dtype, dev, &v) : aug_tensor_zeros(ndim, shape, dtype, dev);
    Py_END_ALLOW_THREADS
    if (!t)
        return augpy_raise(st, AUG_OK, func);
    return augpy_wrap(st, t);
}

AUGPY_SIG(zeros_sig, "zeros", {"shape"}, {"dtype", "None"}, {"device_id", "None"});

static PyObject *fn_zeros(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *a[3];
    if (augpy_parse_args("augpy.zeros", args, nargs, kwnames, &zeros_sig, a) < 0)
        return NULL;
    return create(augpy_state_from_module(m), a[0], NULL, a[1], a[2], NULL, "augpy.zeros");
}

AUGPY_SIG(ones_sig, "ones", {"shape"}, {"dtype", "None"}, {"device_id", "None"});

static PyObject *fn_ones(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *a[3];
    if (augpy_parse_args("augpy.ones", args, nargs, kwnames, &ones_sig, a) < 0)
        return NULL;
    PyObject *one = PyLong_FromLong(1); /* weak int: the default dtype stays uint8 */
    if (!one)
        return NULL;
    PyObject *res = create(augpy_state_from_module(m), a[0], one, a[1], a[2], NULL, "augpy.ones");
    Py_DECREF(one);
    return res;
}

AUGPY_SIG(full_sig, "full", {"shape"}, {"value|fill_value"}, {"dtype", "None"}, {"device_id", "None"});

static PyObject *fn_full(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *a[4];
    if (augpy_parse_args("augpy.full", args, nargs, kwnames, &full_sig, a) < 0)
        return NULL;
    return create(augpy_state_from_module(m), a[0], a[1], a[2], a[3], NULL, "augpy.full");
}

AUGPY_SIG(zeros_like_sig, "zeros_like", {"tensor"}, {"dtype", "None"});
AUGPY_SIG(ones_like_sig, "ones_like", {"tensor"}, {"dtype", "None"});

static PyObject *like(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, long fill,
                      const char *func, augpy_sig *sig) {
    PyObject *a[2];
    augpy_state *st = augpy_state_from_module(m);
    if (augpy_parse_args(func, args, nargs, kwnames, sig, a) < 0)
        return NULL;
    aug_tensor *t = augpy_tensor_arg(st, a[0], func, "tensor");
    if (!t)
        return NULL;
    PyObject *v = fill ? PyLong_FromLong(fill) : NULL;
    if (fill && !v)
        return NULL;
    PyObject *res = create(st, NULL, v, a[1], NULL, t, func);
    Py_XDECREF(v);
    return res;
}

static PyObject *fn_zeros_like(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
    return like(m, args, nargs, kw, 0, "augpy.zeros_like", &zeros_like_sig);
}

static PyObject *fn_ones_like(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kw) {
    return like(m, args, nargs, kw, 1, "augpy.ones_like", &ones_like_sig);
}

AUGPY_SIG(full_like_sig, "full_like", {"tensor"}, {"value|fill_value"}, {"dtype", "None"});

static PyObject *fn_full_like(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    const char *func = "augpy.full_like";
    PyObject *a[3];
    augpy_state *st = augpy_state_from_module(m);
    if (augpy_parse_args(func, args, nargs, kwnames, &full_like_sig, a) < 0)
        return NULL;
    aug_tensor *t = augpy_tensor_arg(st, a[0], func, "tensor");
    return t ? create(st, NULL, a[1], a[2], NULL, t, func) : NULL;
}

/* ---- augpy.Constant ------------------------------------------------------------ */

/* Constant(value, dtype=None): value saturate-cast to dtype (exactly, semantics §6).
 * dtype None: bool -> bool, int -> int32 (DALI), or int64 / uint64 when the value
 * needs it, float -> float32, a numpy scalar or Constant -> its own dtype. */
static PyObject *constant_new(PyTypeObject *tp, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"value", "dtype", NULL};
    const char *func = "augpy.Constant";
    PyObject *value, *dtobj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:Constant", kwlist, &value, &dtobj))
        return NULL;
    augpy_state *st = augpy_state_from_type(tp);
    if (!st)
        return NULL;
    aug_scalar s;
    int big = 0; /* an int outside [-2^63, 2^64 - 1]: only its sign and float value matter */
    int r = augpy_parse_scalar(st, value, &s);
    if (r < 0 && PyLong_Check(value) && PyErr_ExceptionMatches(PyExc_OverflowError)) {
        PyErr_Clear();
        big = 1;
        r = 1;
    }
    if (r < 0)
        return NULL;
    if (r == 0) {
        PyErr_Format(PyExc_TypeError, "%s: value must be a bool, int or float, not '%.100s'", func,
                     Py_TYPE(value)->tp_name);
        return NULL;
    }
    aug_dtype dtype;
    if (dtobj != Py_None) {
        if (augpy_parse_dtype(st, dtobj, &dtype, func) < 0)
            return NULL;
    } else if (PyObject_HasAttrString(value, "dtype") && !PyObject_TypeCheck(value, tp)) {
        PyObject *d = PyObject_GetAttrString(value, "dtype");
        int rc = d ? augpy_parse_dtype(st, d, &dtype, func) : -1;
        Py_XDECREF(d);
        if (rc < 0)
            return NULL;
    } else if (big) {
        PyErr_Format(PyExc_OverflowError, "%s: %R does not fit any integer dtype; pass a dtype", func, value);
        return NULL;
    } else if (!s.weak) {
        dtype = s.dtype;
    } else if (s.dtype == AUG_FLOAT64) {
        dtype = AUG_FLOAT32;
    } else if (s.dtype == AUG_UINT64) {
        dtype = AUG_UINT64;
    } else {
        dtype = s.v.i >= INT32_MIN && s.v.i <= INT32_MAX ? AUG_INT32 : AUG_INT64;
    }
    aug_scalar typed;
    aug_status status;
    const aug_dtype_traits *tr = aug_dtype_info(big ? AUG_INT64 : s.dtype);
    const aug_dtype_traits *to = aug_dtype_info(dtype);
    if (!tr || !to)
        return augpy_raise(st, AUG_OK, func);
    if (big) {
        PyObject *zero = PyLong_FromLong(0);
        int neg = zero ? PyObject_RichCompareBool(value, zero, Py_LT) : -1;
        Py_XDECREF(zero);
        if (neg < 0)
            return NULL;
        if (to->kind == AUG_KIND_FLOAT) {
            double f = PyLong_AsDouble(value); /* correctly rounded; inf when too large */
            if (f == -1.0 && PyErr_Occurred()) {
                PyErr_Clear();
                f = neg ? -HUGE_VAL : HUGE_VAL;
            }
            status = aug_scalar_typed_float(f, dtype, &typed);
        } else {
            status = neg ? aug_scalar_typed_int(INT64_MIN, dtype, &typed)
                         : aug_scalar_typed_uint(UINT64_MAX, dtype, &typed);
        }
    } else if (tr->kind == AUG_KIND_FLOAT) {
        status = aug_scalar_typed_float(s.v.f, dtype, &typed);
    } else if (tr->kind == AUG_KIND_UINT) {
        status = aug_scalar_typed_uint(s.v.u, dtype, &typed);
    } else {
        status = aug_scalar_typed_int(s.v.i, dtype, &typed);
    }
    if (status != AUG_OK)
        return augpy_raise(st, status, func);
    AugConstantObject *self = (AugConstantObject *)tp->tp_alloc(tp, 0);
    if (!self)
        return NULL;
    self->scalar = typed;
    Py_INCREF(value);
    self->value = value;
    return (PyObject *)self;
}

static int constant_traverse(PyObject *self, visitproc visit, void *arg) {
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(((AugConstantObject *)self)->value);
    return 0;
}

static int constant_clear(PyObject *self) {
    Py_CLEAR(((AugConstantObject *)self)->value);
    return 0;
}

static void constant_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    constant_clear(self);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyObject *constant_repr(PyObject *self) {
    AugConstantObject *c = (AugConstantObject *)self;
    PyObject *v = augpy_scalar_to_py(&c->scalar);
    if (!v)
        return NULL;
    PyObject *res = PyUnicode_FromFormat("Constant(%R, dtype=%s)", v, aug_dtype_name(c->scalar.dtype));
    Py_DECREF(v);
    return res;
}

static PyObject *constant_get_dtype(PyObject *self, void *Py_UNUSED(closure)) {
    augpy_state *st = augpy_state_from_obj(self);
    return st ? augpy_dtype_object(st, ((AugConstantObject *)self)->scalar.dtype) : NULL;
}

static PyObject *constant_get_value(PyObject *self, void *Py_UNUSED(closure)) {
    PyObject *v = ((AugConstantObject *)self)->value;
    Py_INCREF(v);
    return v;
}

static PyObject *constant_item(PyObject *self, PyObject *Py_UNUSED(unused)) {
    return augpy_scalar_to_py(&((AugConstantObject *)self)->scalar);
}

static PyGetSetDef constant_getset[] = {
    {"dtype", constant_get_dtype, NULL, "The constant's dtype (a DLDataType).", NULL},
    {"value", constant_get_value, NULL, "The value as given.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef constant_methods[] = {
    {"item", constant_item, METH_NOARGS, "item($self, /)\n--\n\nThe value after saturate_cast to dtype, as a Python number."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot constant_slots[] = {
    {Py_tp_new, (void *)constant_new},
    {Py_tp_dealloc, (void *)constant_dealloc},
    {Py_tp_traverse, (void *)constant_traverse},
    {Py_tp_clear, (void *)constant_clear},
    {Py_tp_repr, (void *)constant_repr},
    {Py_tp_getset, constant_getset},
    {Py_tp_methods, constant_methods},
    {Py_tp_doc, (void *)"Constant(value, dtype=None)\n--\n\n"
                        "A typed (non-weak) scalar operand, like DALI's types.Constant: it promotes like a "
                        "0-d tensor of `dtype`\ninstead of taking the other operand's type. dtype None: int32 for "
                        "an int (DALI; int64 / uint64 when the value needs it), float32 for a float, bool for a "
                        "bool,\na numpy scalar's or Constant's own dtype."},
    {0, NULL},
};

static PyType_Spec constant_spec = {
    .name = "augpy._augpy.Constant",
    .basicsize = sizeof(AugConstantObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = constant_slots,
};

static PyMethodDef create_functions[] = {
    FASTCALL("zeros", fn_zeros,
             "A new tensor of zeros (dtype None: uint8).\n"
             "shape: an int or a sequence of ints; device_id: an index into the default backend's devices (None: the "
             "default device)."),
    FASTCALL("ones", fn_ones,
             "A new tensor of ones (dtype None: uint8).\n"
             "shape: an int or a sequence of ints; device_id: an index into the default backend's devices (None: the "
             "default device)."),
    FASTCALL("full", fn_full,
             "A new tensor filled with value.\n"
             "dtype None: uint8 for an int, float32 for a float, bool for a bool, a Constant's "
             "dtype.\nshape: an int or a sequence of ints; device_id: an index into the default backend's devices "
             "(None: the default device)."),
    FASTCALL("zeros_like", fn_zeros_like,
             "Zeros with tensor's shape, device and (default) dtype.\n"
             "A new C-contiguous tensor (tensor's strides are not kept)."),
    FASTCALL("ones_like", fn_ones_like,
             "Ones with tensor's shape, device and (default) dtype.\n"
             "A new C-contiguous tensor (tensor's strides are not kept)."),
    FASTCALL("full_like", fn_full_like,
             "value with tensor's shape, device and (default) "
             "dtype.\nA new C-contiguous tensor (tensor's strides are not kept)."),
    {NULL, NULL, 0, NULL},
};

int augpy_init_create(PyObject *module, augpy_state *st) {
    PyObject *tp = PyType_FromModuleAndSpec(module, &constant_spec, NULL);
    if (!tp)
        return -1;
    st->ConstantType = (PyTypeObject *)tp; /* the state owns this reference */
    if (PyModule_AddObjectRef(module, "Constant", tp) < 0)
        return -1;
    static augpy_sig *const sigs[] = {&zeros_sig, &ones_sig, &full_sig, &zeros_like_sig, &ones_like_sig, &full_like_sig,
                                      NULL};
    if (augpy_sign_methods(create_functions, sigs) < 0)
        return -1;
    return PyModule_AddFunctions(module, create_functions);
}
