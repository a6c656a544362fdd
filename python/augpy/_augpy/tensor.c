/* _augpy/tensor.c: the Tensor type (augpy.Tensor, alias augpy.Tensor).
 *
 * A Tensor object owns one aug_tensor (a strided view over reference-counted
 * storage), so views made by indexing keep their base's memory alive without
 * referencing the base object. This file holds construction, properties, repr,
 * NumPy basic indexing (__getitem__/__setitem__ through aug_tensor_index),
 * reshape/contiguous, iteration and the single-element conversions; the buffer
 * protocol and numpy conversions are in tensor_io.c, DLPack in dlpack.c, and the
 * number protocol and op methods (ops.c, reduce.c) are merged into the type here. */
#include "augpy.h"
#include <structmember.h>
#include <string.h>

#define MAX_INDEX_ITEMS 64

static inline aug_tensor *T(PyObject *self) { return ((AugTensorObject *)self)->t; }

/* ---- helpers shared with other files -------------------------------------------- */

int augpy_is_tensor(augpy_state *st, PyObject *obj) { return PyObject_TypeCheck(obj, st->TensorType); }

aug_tensor *augpy_tensor_arg(augpy_state *st, PyObject *obj, const char *func, const char *argname) {
    if (!augpy_is_tensor(st, obj)) {
        PyErr_Format(PyExc_TypeError, "%s: %s must be a Tensor, got %.100s", func, argname,
                     Py_TYPE(obj)->tp_name);
        return NULL;
    }
    return T(obj);
}

PyObject *augpy_wrap(augpy_state *st, aug_tensor *t) {
    if (t == NULL) return NULL;
    AugTensorObject *obj = (AugTensorObject *)st->TensorType->tp_alloc(st->TensorType, 0);
    if (obj == NULL) {
        aug_tensor_free(t);
        return NULL;
    }
    obj->t = t;
    obj->weakreflist = NULL;
    obj->exports = 0;
    return (PyObject *)obj;
}

PyObject *augpy_device_str(aug_device dev) {
    if (dev.type == AUG_DEVICE_CPU) return PyUnicode_FromString("cpu");
    return PyUnicode_FromFormat("cuda:%d", dev.id);
}

/* "(2, 2, 4)", "(3)", "()" -- the manual's repr format. */
static PyObject *shape_str(const aug_tensor *t) {
    char buf[AUG_MAX_DIMS * 22 + 4];
    size_t pos = 0;
    buf[pos++] = '(';
    for (int d = 0; d < t->ndim; d++)
        pos += (size_t)snprintf(buf + pos, sizeof buf - pos, d ? ", %lld" : "%lld", (long long)t->shape[d]);
    buf[pos++] = ')';
    buf[pos] = '\0';
    return PyUnicode_FromString(buf);
}

/* ---- construction ----------------------------------------------------------------- */

static PyObject *tensor_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"shape", "dtype", "device_id", NULL};
    PyObject *shape_obj, *dtype_obj = Py_None, *device_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OO:Tensor", kwlist, &shape_obj, &dtype_obj, &device_obj))
        return NULL;
    augpy_state *st = augpy_state_from_type(type);
    if (st == NULL) return NULL;
    int64_t shape[AUG_MAX_DIMS];
    int ndim = augpy_parse_shape(shape_obj, shape, "Tensor");
    if (ndim < 0) return NULL;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] < 0) {
            PyErr_Format(PyExc_ValueError, "Tensor: shape entries must be >= 0, got %lld", (long long)shape[d]);
            return NULL;
        }
    }
    aug_dtype dt = AUG_UINT8;
    if (dtype_obj != Py_None && augpy_parse_dtype(st, dtype_obj, &dt, "Tensor") < 0) return NULL;
    aug_device dev = aug_default_device();
    if (device_obj && augpy_parse_device_id(device_obj, 0, &dev, "Tensor") < 0) return NULL;
    aug_tensor *t = aug_tensor_empty(ndim, shape, dt, dev);
    if (t == NULL) return augpy_raise(st, AUG_OK, "Tensor");
    AugTensorObject *obj = (AugTensorObject *)type->tp_alloc(type, 0);
    if (obj == NULL) {
        aug_tensor_free(t);
        return NULL;
    }
    obj->t = t;
    return (PyObject *)obj;
}

static void tensor_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    AugTensorObject *obj = (AugTensorObject *)self;
    if (obj->weakreflist != NULL) PyObject_ClearWeakRefs(self);
    aug_tensor_free(obj->t);
    obj->t = NULL;
    tp->tp_free(self);
    Py_DECREF(tp);
}

/* ---- properties -------------------------------------------------------------------- */

/* A tuple of Python ints from n int64 values (shapes, strides). */
PyObject *augpy_int64_tuple(int n, const int64_t *v) {
    PyObject *tup = PyTuple_New(n);
    if (tup == NULL) return NULL;
    for (int d = 0; d < n; d++) {
        PyObject *item = PyLong_FromLongLong((long long)v[d]);
        if (item == NULL) {
            Py_DECREF(tup);
            return NULL;
        }
        PyTuple_SET_ITEM(tup, d, item);
    }
    return tup;
}

static PyObject *get_shape(PyObject *self, void *Py_UNUSED(c)) {
    return augpy_int64_tuple(T(self)->ndim, T(self)->shape);
}
static PyObject *get_strides(PyObject *self, void *Py_UNUSED(c)) {
    return augpy_int64_tuple(T(self)->ndim, T(self)->strides);
}
static PyObject *get_ndim(PyObject *self, void *Py_UNUSED(c)) { return PyLong_FromLong(T(self)->ndim); }
static PyObject *get_size(PyObject *self, void *Py_UNUSED(c)) { return PyLong_FromLongLong(aug_tensor_size(T(self))); }
static PyObject *get_itemsize(PyObject *self, void *Py_UNUSED(c)) {
    return PyLong_FromLongLong(aug_tensor_itemsize(T(self)));
}
static PyObject *get_nbytes(PyObject *self, void *Py_UNUSED(c)) {
    return PyLong_FromLongLong(aug_tensor_size(T(self)) * aug_tensor_itemsize(T(self)));
}
static PyObject *get_ptr(PyObject *self, void *Py_UNUSED(c)) { return PyLong_FromVoidPtr(aug_tensor_ptr(T(self))); }
static PyObject *get_byte_offset(PyObject *self, void *Py_UNUSED(c)) {
    return PyLong_FromLongLong(T(self)->byte_offset);
}
static PyObject *get_is_contiguous(PyObject *self, void *Py_UNUSED(c)) {
    return PyBool_FromLong(aug_tensor_is_contiguous(T(self)));
}
static PyObject *get_device(PyObject *self, void *Py_UNUSED(c)) { return augpy_device_str(T(self)->device); }
static PyObject *get_device_id(PyObject *self, void *Py_UNUSED(c)) { return PyLong_FromLong(T(self)->device.id); }
static PyObject *get_layout(PyObject *self, void *Py_UNUSED(c)) { return PyUnicode_FromString(T(self)->layout); }

static PyObject *get_dtype(PyObject *self, void *Py_UNUSED(c)) {
    augpy_state *st = augpy_state_from_obj(self);
    return st ? augpy_dtype_object(st, T(self)->dtype) : NULL;
}

static int set_layout(PyObject *self, PyObject *value, void *Py_UNUSED(c)) {
    const char *layout = "";
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "Tensor.layout: cannot delete the layout (assign '' instead)");
        return -1;
    }
    if (value != Py_None) {
        if (!PyUnicode_Check(value)) {
            PyErr_Format(PyExc_TypeError, "Tensor.layout: layout must be a str, got %.100s",
                         Py_TYPE(value)->tp_name);
            return -1;
        }
        if ((layout = augpy_layout_chars(value, "Tensor.layout")) == NULL) return -1;
    }
    aug_status status = aug_tensor_set_layout(T(self), layout);
    if (status != AUG_OK) {
        augpy_state *st = augpy_state_from_obj(self);
        augpy_raise(st, status, "Tensor.layout");
        return -1;
    }
    return 0;
}

static PyObject *tensor_repr(PyObject *self) {
    const aug_tensor *t = T(self);
    PyObject *shape = shape_str(t), *device = augpy_device_str(t->device);
    PyObject *res = NULL;
    if (shape && device)
        res = PyUnicode_FromFormat("<Tensor shape=%U, device=%U, dtype=%s>", shape, device,
                                   aug_dtype_name(t->dtype));
    Py_XDECREF(shape);
    Py_XDECREF(device);
    return res;
}

/* ---- indexing ---------------------------------------------------------------------- */

static int index_err_type(PyObject *item, const char *func) {
    PyErr_Format(PyExc_IndexError,
                 "%s: only integers, slices (`:`), ellipsis (`...`), None, integer or boolean arrays and "
                 "tuples of these are valid indices, got %.100s",
                 func, Py_TYPE(item)->tp_name);
    return -1;
}

static int slice_part(PyObject *v, int64_t *out, int *has, const char *func) {
    *has = 0;
    if (v == Py_None) return 0;
    if (!PyIndex_Check(v)) {
        PyErr_Format(PyExc_TypeError, "%s: slice indices must be integers or None, got %.100s", func,
                     Py_TYPE(v)->tp_name);
        return -1;
    }
    /* Out-of-range bounds clamp (as NumPy's do); -PY_SSIZE_T_MAX keeps negation safe. */
    Py_ssize_t i = PyNumber_AsSsize_t(v, NULL);
    if (i == -1 && PyErr_Occurred()) return -1;
    if (i < -PY_SSIZE_T_MAX) i = -PY_SSIZE_T_MAX;
    *out = (int64_t)i;
    *has = 1;
    return 0;
}

int augpy_parse_index_item(PyObject *item, aug_index *ix, const char *func) {
    memset(ix, 0, sizeof *ix);
    if (item == Py_None) {
        ix->kind = AUG_INDEX_NEWAXIS;
        return 0;
    }
    if (item == Py_Ellipsis) {
        ix->kind = AUG_INDEX_ELLIPSIS;
        return 0;
    }
    if (PySlice_Check(item)) {
        PySliceObject *sl = (PySliceObject *)item;
        int has_step;
        ix->kind = AUG_INDEX_SLICE;
        if (slice_part(sl->start, &ix->start, &ix->has_start, func) < 0) return -1;
        if (slice_part(sl->stop, &ix->stop, &ix->has_stop, func) < 0) return -1;
        if (slice_part(sl->step, &ix->step, &has_step, func) < 0) return -1;
        if (!has_step) ix->step = 1;
        return 0;
    }
    if (PyBool_Check(item) || !PyIndex_Check(item)) return index_err_type(item, func);
    Py_ssize_t i = PyNumber_AsSsize_t(item, PyExc_IndexError);
    if (i == -1 && PyErr_Occurred()) {
        if (PyErr_ExceptionMatches(PyExc_IndexError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_IndexError, "%s: index %R is out of bounds", func, item);
        }
        return -1;
    }
    ix->kind = AUG_INDEX_INT;
    ix->i = (int64_t)i;
    return 0;
}

/* The view self[key] as a new aug_tensor, or NULL with an exception. */
static aug_tensor *index_view(PyObject *self, PyObject *key, const char *func) {
    aug_index idx[MAX_INDEX_ITEMS];
    int n = 0;
    if (PyTuple_Check(key)) {
        Py_ssize_t len = PyTuple_GET_SIZE(key);
        if (len > MAX_INDEX_ITEMS) {
            PyErr_Format(PyExc_IndexError, "%s: too many indices (%zd)", func, len);
            return NULL;
        }
        for (Py_ssize_t k = 0; k < len; k++)
            if (augpy_parse_index_item(PyTuple_GET_ITEM(key, k), &idx[n++], func) < 0) return NULL;
    } else {
        if (augpy_parse_index_item(key, &idx[n++], func) < 0) return NULL;
    }
    int ellipses = 0;
    for (int k = 0; k < n; k++) ellipses += idx[k].kind == AUG_INDEX_ELLIPSIS;
    if (ellipses > 1) { /* NumPy raises IndexError here (aug_tensor_index: ValueError) */
        PyErr_Format(PyExc_IndexError, "%s: an index can only have a single ellipsis ('...')", func);
        return NULL;
    }
    aug_tensor *view = aug_tensor_index(T(self), n, idx);
    if (view == NULL) augpy_raise(augpy_state_from_obj(self), AUG_OK, func);
    return view;
}

static PyObject *tensor_getitem(PyObject *self, PyObject *key) {
    augpy_state *st = augpy_state_from_obj(self);
    if (st == NULL) return NULL;
    if (augpy_index_is_advanced(st, key)) return augpy_index_get(st, self, key, "Tensor.__getitem__");
    return augpy_wrap(st, index_view(self, key, "Tensor.__getitem__"));
}

/* dst[...] = value for a tensor, scalar or array-like value. 0 or -1. */
static int assign(augpy_state *st, aug_tensor *dst, PyObject *value, const char *func) {
    if (augpy_is_tensor(st, value)) return augpy_copy_into(st, T(value), dst, func);
    aug_scalar s;
    /* a weak int beyond int64 / uint64 takes dst's dtype */
    int r = augpy_is_big_int(value) ? (augpy_big_int_scalar(value, dst->dtype, &s, func) < 0 ? -1 : 1)
                                    : augpy_parse_scalar(st, value, &s);
    if (r < 0) return -1;
    if (r == 1) {
        aug_status status;
        AUGPY_CALL(status, aug_tensor_size(dst), aug_fill(dst, &s));
        if (status != AUG_OK) {
            augpy_raise(st, status, func);
            return -1;
        }
        return 0;
    }
    if (PyUnicode_Check(value) || PyBytes_Check(value) || value == Py_None) {
        PyErr_Format(PyExc_TypeError, "%s: cannot assign %.100s to a tensor; expected a tensor, an array or a scalar",
                     func, Py_TYPE(value)->tp_name);
        return -1;
    }
    augpy_bufview view;
    if (augpy_bufview_get(st, value, 0, &view, func) < 0) return -1;
    int ret = augpy_copy_into(st, view.t, dst, func);
    augpy_bufview_release(&view);
    return ret;
}

static int tensor_setitem(PyObject *self, PyObject *key, PyObject *value) {
    static const char *func = "Tensor.__setitem__";
    if (value == NULL) {
        PyErr_Format(PyExc_TypeError, "%s: tensor elements cannot be deleted", func);
        return -1;
    }
    augpy_state *st = augpy_state_from_obj(self);
    if (st == NULL) return -1;
    if (augpy_index_is_advanced(st, key)) return augpy_index_set(st, self, key, value, func);
    aug_tensor *view = index_view(self, key, func);
    if (view == NULL) return -1;
    int ret = assign(st, view, value, func);
    aug_tensor_free(view);
    return ret;
}

static Py_ssize_t tensor_length(PyObject *self) {
    if (T(self)->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "len() of a 0-d tensor");
        return -1;
    }
    return (Py_ssize_t)T(self)->shape[0];
}

/* self[i] for iteration (sequence protocol). */
static PyObject *tensor_item(PyObject *self, Py_ssize_t i) {
    if (T(self)->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "iteration over a 0-d tensor");
        return NULL;
    }
    if (i < 0 || i >= T(self)->shape[0]) {
        PyErr_Format(PyExc_IndexError, "Tensor: index %zd is out of bounds for axis 0 with size %lld", i,
                     (long long)T(self)->shape[0]);
        return NULL;
    }
    aug_index ix = {.kind = AUG_INDEX_INT, .i = (int64_t)i};
    augpy_state *st = augpy_state_from_obj(self);
    if (st == NULL) return NULL;
    aug_tensor *view = aug_tensor_index(T(self), 1, &ix);
    if (view == NULL) return augpy_raise(st, AUG_OK, "Tensor.__iter__");
    return augpy_wrap(st, view);
}

static PyObject *tensor_iter(PyObject *self) {
    if (T(self)->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "iteration over a 0-d tensor");
        return NULL;
    }
    return PySeqIter_New(self);
}

/* ---- single-element conversions ---------------------------------------------------- */

/* The one element of a size-1 tensor as a Python bool/int/float. */
static PyObject *single_value(PyObject *self, const char *what) {
    const aug_tensor *t = T(self);
    int64_t size = aug_tensor_size(t);
    if (size != 1) {
        PyObject *shape = shape_str(t);
        if (shape == NULL) return NULL;
        if (strcmp(what, "bool") == 0)
            PyErr_Format(PyExc_ValueError,
                         "Tensor: the truth value of a tensor with %lld elements (shape %U) is ambiguous",
                         (long long)size, shape);
        else
            PyErr_Format(size == 0 ? PyExc_ValueError : PyExc_TypeError,
                         "Tensor: only tensors with one element can be converted to %s, got shape %U", what,
                         shape);
        Py_DECREF(shape);
        return NULL;
    }
    int64_t zeros[AUG_MAX_DIMS] = {0};
    aug_scalar s;
    aug_status status = aug_tensor_get_item(t, zeros, &s);
    if (status != AUG_OK) return augpy_raise(augpy_state_from_obj(self), status, "Tensor");
    return augpy_scalar_to_py(&s);
}

static int tensor_bool(PyObject *self) {
    PyObject *v = single_value(self, "bool");
    if (v == NULL) return -1;
    int r = PyObject_IsTrue(v);
    Py_DECREF(v);
    return r;
}

static PyObject *tensor_int(PyObject *self) {
    PyObject *v = single_value(self, "int");
    if (v == NULL) return NULL;
    PyObject *r = PyNumber_Long(v);
    Py_DECREF(v);
    return r;
}

static PyObject *tensor_float(PyObject *self) {
    PyObject *v = single_value(self, "float");
    if (v == NULL) return NULL;
    PyObject *r = PyNumber_Float(v);
    Py_DECREF(v);
    return r;
}

static PyObject *tensor_index(PyObject *self) {
    aug_kind kind = aug_dtype_info(T(self)->dtype)->kind;
    if (T(self)->ndim != 0 || (kind != AUG_KIND_INT && kind != AUG_KIND_UINT)) {
        PyErr_Format(PyExc_TypeError,
                     "Tensor: only 0-d integer tensors can be converted to an index, got ndim %d dtype %s",
                     T(self)->ndim, aug_dtype_name(T(self)->dtype));
        return NULL;
    }
    return single_value(self, "int");
}

/* ---- methods ------------------------------------------------------------------------- */

static PyObject *tensor_reshape(PyObject *self, PyObject *args, PyObject *kwargs) {
    static const char *func = "Tensor.reshape";
    augpy_state *st = augpy_state_from_obj(self);
    if (st == NULL) return NULL;
    PyObject *shape_obj = args;
    if (PyTuple_GET_SIZE(args) == 1) shape_obj = PyTuple_GET_ITEM(args, 0);
    if (kwargs && PyDict_GET_SIZE(kwargs) > 0) { /* the manual's reshape(shape=[6, 4]) */
        PyObject *kw = PyDict_GetItemString(kwargs, "shape");
        if (!kw || PyDict_GET_SIZE(kwargs) != 1 || PyTuple_GET_SIZE(args) > 0) {
            PyErr_Format(PyExc_TypeError, "%s() takes the shape as extents or as one sequence, or shape=; "
                         "got %zd positional arguments and keywords %R", func, PyTuple_GET_SIZE(args), kwargs);
            return NULL;
        }
        shape_obj = kw;
    }
    int64_t shape[AUG_MAX_DIMS];
    int ndim = augpy_parse_shape(shape_obj, shape, func);
    if (ndim < 0) return NULL;
    aug_tensor *view = aug_tensor_reshape(T(self), ndim, shape);
    if (view == NULL) return augpy_raise(st, AUG_OK, func);
    return augpy_wrap(st, view);
}

static PyObject *tensor_transpose(PyObject *self, PyObject *args) {
    static const char *func = "Tensor.transpose";
    augpy_state *st = augpy_state_from_obj(self);
    if (st == NULL) return NULL;
    const int ndim = T(self)->ndim;
    int perm[AUG_MAX_DIMS];
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    PyObject *axes = args;
    /* one argument: None, or a sequence of axes (tuple, list, 1-d array), else one int */
    PyObject *one = n == 1 ? PyTuple_GET_ITEM(args, 0) : NULL;
    int one_seq = one && (one == Py_None || PyTuple_Check(one) || PyList_Check(one));
    if (one && !one_seq && !PyLong_Check(one) && !PyUnicode_Check(one) && PySequence_Check(one)) {
        one_seq = PyObject_Length(one) >= 0;
        if (!one_seq) PyErr_Clear(); /* a 0-d array: an int */
    }
    if (one && !one_seq && !PyIndex_Check(one)) {
        PyErr_Format(PyExc_TypeError, "%s: axes must be ints or one sequence of ints, got %.100s", func,
                     Py_TYPE(one)->tp_name);
        return NULL;
    }
    if (one_seq) {
        axes = one;
        n = axes == Py_None ? 0 : PySequence_Size(axes);
        if (n < 0) return NULL;
    }
    if (n == 0) {
        for (int d = 0; d < ndim; d++) perm[d] = ndim - 1 - d; /* numpy's default: reversed */
    } else if (n != ndim) {
        PyErr_Format(PyExc_ValueError, "%s: axes don't match the tensor: %zd axes for %d dimensions", func, n, ndim);
        return NULL;
    } else {
        int seen[AUG_MAX_DIMS] = {0};
        for (Py_ssize_t d = 0; d < n; d++) {
            PyObject *item = PySequence_GetItem(axes, d);
            if (item == NULL) return NULL;
            int ax;
            int r = augpy_parse_int(item, &ax, func, "axis");
            Py_DECREF(item);
            if (r < 0) return NULL;
            if (ax < -ndim || ax >= ndim) {
                PyErr_Format(PyExc_ValueError, "%s: axis %d is out of bounds for a tensor of dimension %d", func, ax,
                             ndim);
                return NULL;
            }
            ax = ax < 0 ? ax + ndim : ax;
            if (seen[ax]++) {
                PyErr_Format(PyExc_ValueError, "%s: repeated axis %d in transpose", func, ax);
                return NULL;
            }
            perm[d] = ax;
        }
    }
    aug_tensor *view = aug_tensor_permute(T(self), perm);
    if (view == NULL) return augpy_raise(st, AUG_OK, func);
    return augpy_wrap(st, view);
}

static PyObject *tensor_contiguous(PyObject *self, PyObject *Py_UNUSED(unused)) {
    augpy_state *st = augpy_state_from_obj(self);
    if (st == NULL) return NULL;
    if (aug_tensor_is_contiguous(T(self))) return Py_NewRef(self);
    aug_tensor *packed;
    AUGPY_CALL(packed, aug_tensor_size(T(self)), aug_tensor_contiguous(T(self)));
    if (packed == NULL) return augpy_raise(st, AUG_OK, "Tensor.contiguous");
    return augpy_wrap(st, packed);
}

static PyMethodDef tensor_own_methods[] = {
    {"reshape", (PyCFunction)(void (*)(void))tensor_reshape, METH_VARARGS | METH_KEYWORDS,
     "reshape($self, /, shape, *extents)\n--\n\n"
     "A view with the same memory and a different shape with the same number of elements;\n"
     "one extent may be -1 (inferred). Only contiguous tensors can be reshaped (ValueError\n"
     "naming contiguous() otherwise). The shape is one sequence (or shape=[6, 4], the manual's\n"
     "form) or the extents as separate arguments (reshape(6, 4))."},
    {"transpose", tensor_transpose, METH_VARARGS,
     "transpose($self, /, *axes)\n--\n\n"
     "A view with the dimensions permuted, as numpy.transpose: axes (separate ints or one sequence)\n"
     "name the source dimension of each result dimension, negative ones counted from the end; none\n"
     "reverses the order. A layout string is permuted with the dimensions (\"HWC\" -> \"CHW\")."},
    {"contiguous", tensor_contiguous, METH_NOARGS,
     "contiguous($self, /)\n--\n\n"
     "This tensor if it is C-contiguous, else a packed copy."},
    {"numpy", (PyCFunction)(void (*)(void))augpy_tensor_numpy_method, METH_VARARGS | METH_KEYWORDS,
     "numpy($self, /, array=None, blocking=True)\n--\n\n"
     "Copy the tensor into a new numpy array, or into `array` (any writable buffer) and return\n"
     "it as a numpy array. Returns once the data is there. With blocking=False and no array, a\n"
     "CUDA tensor's copy is queued on the current stream into page-locked memory and the array\n"
     "returned at once: synchronise the stream (or device) before reading it. On the CPU every\n"
     "copy is synchronous."},
    {"to", (PyCFunction)(void (*)(void))augpy_tensor_to_method, METH_FASTCALL | METH_KEYWORDS,
     "This tensor on `device` ('cpu', 'cuda', 'cuda:N', or a device_id of the default backend) and/or\n"
     "as `dtype` (saturating, as astype), as torch's Tensor.to: to(device), to(dtype) (a dtype in the\n"
     "first place), to(device, dtype). Itself when nothing changes, else a packed copy (queued on\n"
     "the current stream; a copy to the cpu returns once the data is there)."},
    {"cpu", augpy_tensor_cpu_method, METH_NOARGS,
     "cpu($self, /)\n--\n\nThis tensor on the cpu: itself, or a copy (returns once the data is there)."},
    {"cuda", (PyCFunction)(void (*)(void))augpy_tensor_cuda_method, METH_FASTCALL | METH_KEYWORDS,
     "This tensor on cuda:device_id: itself, or a copy. ValueError "
     "without such a device."},
    {"__array__", (PyCFunction)(void (*)(void))augpy_tensor_array_method, METH_VARARGS | METH_KEYWORDS,
     "__array__($self, /, dtype=None, copy=None)\n--\n\nnumpy array protocol: a numpy.ndarray with a copy of the values."},
    {"__dlpack__", (PyCFunction)(void (*)(void))augpy_tensor_dlpack, METH_FASTCALL | METH_KEYWORDS,
     "__dlpack__($self, /, *, stream=None, max_version=None, dl_device=None, copy=None)\n--\n\n"
     "Export the tensor as a DLPack capsule (zero copy): 'dltensor_versioned' when max_version\n"
     ">= (1, 0), else the legacy 'dltensor'. A CUDA tensor's consumer stream (None or 1: the legacy\n"
     "default stream, 2: per-thread, -1: no synchronisation, else a cudaStream_t) waits for the work\n"
     "queued so far. dl_device may ask for another device (a packed copy, unless copy=False); copy=True\n"
     "always copies. A view with negative strides (t[::-1]), which PyTorch and TensorFlow reject, is\n"
     "exported as a packed copy (BufferError naming contiguous() with copy=False)."},
    {"__dlpack_device__", augpy_tensor_dlpack_device, METH_NOARGS,
     "__dlpack_device__($self, /)\n--\n\n(device_type, device_id) as DLPack codes: (1, 0) for the CPU."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef tensor_getset[] = {
    {"shape", get_shape, NULL, "Tensor shape (tuple of ints).", NULL},
    {"strides", get_strides, NULL,
     "Tensor strides in elements (not bytes): the number of elements to skip to reach the next\n"
     "element along each dimension. May be 0 (broadcast) or negative.",
     NULL},
    {"ndim", get_ndim, NULL, "Number of dimensions.", NULL},
    {"size", get_size, NULL, "Number of elements in the tensor.", NULL},
    {"itemsize", get_itemsize, NULL, "Size of one element in bytes.", NULL},
    {"nbytes", get_nbytes, NULL, "size * itemsize.", NULL},
    {"dtype", get_dtype, NULL, "Tensor data type (DLDataType).", NULL},
    {"ptr", get_ptr, NULL,
     "Address of the first element (element [0, ..., 0]); it already includes byte_offset.", NULL},
    {"byte_offset", get_byte_offset, NULL,
     "Offset in bytes of the first element from the start of the tensor's memory block\n"
     "(the DLPack data pointer is ptr - byte_offset).",
     NULL},
    {"is_contiguous", get_is_contiguous, NULL,
     "True if the elements are packed in C order (extent-1 dimensions ignored).", NULL},
    {"device", get_device, NULL, "Device the memory lives on: 'cpu' or 'cuda:N'.", NULL},
    {"device_id", get_device_id, NULL, "Device index (0 for the CPU).", NULL},
    {"layout", get_layout, set_layout,
     "DALI-style layout string, one character per dimension (e.g. 'HWC'), or ''. Settable.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMemberDef tensor_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(AugTensorObject, weakreflist), READONLY, NULL},
    {NULL, 0, 0, 0, NULL}};

static const char tensor_doc[] =
    "Tensor(shape, dtype=None, device_id=0)\n--\n\n"
    "augpy's tensor: a DLPack-compatible strided view over reference-counted memory on the\n"
    "default device (cuda:0 when available, else the CPU). The memory is not initialised.\n"
    "dtype None is uint8.\n"
    "NumPy basic indexing, broadcasting saturating math, the buffer protocol (CPU) and\n"
    "DLPack are supported. augpy.Tensor is the same class.";

static PyType_Slot tensor_own_slots[] = {
    {Py_tp_doc, (void *)tensor_doc},
    {Py_tp_new, tensor_new},
    {Py_tp_dealloc, tensor_dealloc},
    {Py_tp_repr, tensor_repr},
    {Py_tp_str, augpy_tensor_str},
    {Py_tp_members, tensor_members},
    {Py_tp_iter, tensor_iter},
    {Py_mp_subscript, tensor_getitem},
    {Py_mp_ass_subscript, tensor_setitem},
    {Py_mp_length, tensor_length},
    {Py_sq_length, tensor_length},
    {Py_sq_item, tensor_item},
    {Py_nb_bool, tensor_bool},
    {Py_nb_int, tensor_int},
    {Py_nb_float, tensor_float},
    {Py_nb_index, tensor_index},
    {Py_bf_getbuffer, augpy_tensor_getbuffer},
    {Py_bf_releasebuffer, augpy_tensor_releasebuffer},
    {Py_tp_richcompare, augpy_tensor_richcompare},
    {0, NULL}};

/* Our methods followed by those of ops.c, reduce.c and mathfuncs.c; built once,
 * lives as long as the process (types keep pointers into it). A name defined
 * twice is an error (SystemError at import), not a silent override. */
static PyMethodDef *all_methods = NULL;
static PyGetSetDef *all_getset = NULL;

static int build_methods(void) {
    if (all_methods != NULL) return 0;
    PyMethodDef *const tables[] = {tensor_own_methods, augpy_tensor_op_methods, augpy_tensor_reduce_methods,
                                   augpy_tensor_math_methods, augpy_tensor_extra_methods};
    augpy_sig *const *const sigs[] = {augpy_tensor_io_sigs, augpy_tensor_op_sigs, augpy_tensor_reduce_sigs,
                                      augpy_tensor_math_sigs, augpy_tensor_extra_sigs};
    size_t ntables = sizeof tables / sizeof tables[0], total = 0;
    for (size_t t = 0; t < ntables; t++)
        if (augpy_sign_methods(tables[t], sigs[t]) < 0) return -1;
    for (size_t t = 0; t < ntables; t++)
        for (const PyMethodDef *d = tables[t]; d->ml_name; d++) total++;
    PyMethodDef *m = PyMem_RawCalloc(total + 1, sizeof *m);
    if (m == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    size_t k = 0;
    for (size_t t = 0; t < ntables; t++) {
        for (const PyMethodDef *d = tables[t]; d->ml_name; d++) {
            for (size_t j = 0; j < k; j++) {
                if (strcmp(d->ml_name, m[j].ml_name) == 0) {
                    PyErr_Format(PyExc_SystemError, "augpy: Tensor method '%s' is defined twice", d->ml_name);
                    PyMem_RawFree(m);
                    return -1;
                }
            }
            m[k++] = *d;
        }
    }
    all_methods = m;
    /* the properties: ours, then tensor_methods.c's */
    size_t ng = 0, ne = 0;
    while (tensor_getset[ng].name) ng++;
    while (augpy_tensor_extra_getset[ne].name) ne++;
    all_getset = PyMem_RawCalloc(ng + ne + 1, sizeof *all_getset);
    if (all_getset == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(all_getset, tensor_getset, ng * sizeof *all_getset);
    memcpy(all_getset + ng, augpy_tensor_extra_getset, ne * sizeof *all_getset);
    return 0;
}

int augpy_init_tensor(PyObject *module, augpy_state *st) {
    if (build_methods() < 0) return -1;
    size_t n_own = sizeof tensor_own_slots / sizeof tensor_own_slots[0] - 1, n_ops = 0;
    while (augpy_tensor_number_slots[n_ops].slot) n_ops++;
    PyType_Slot *slots = PyMem_Calloc(n_own + n_ops + 3, sizeof *slots);
    if (slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < n_own; i++) slots[k++] = tensor_own_slots[i];
    for (size_t i = 0; i < n_ops; i++) {
        int dup = 0; /* a slot this file defines wins */
        for (size_t j = 0; j < n_own; j++) dup |= augpy_tensor_number_slots[i].slot == tensor_own_slots[j].slot;
        if (!dup) slots[k++] = augpy_tensor_number_slots[i];
    }
    slots[k++] = (PyType_Slot){Py_tp_methods, all_methods};
    slots[k++] = (PyType_Slot){Py_tp_getset, all_getset};
    slots[k] = (PyType_Slot){0, NULL};
    PyType_Spec spec = {
        .name = "augpy._augpy.Tensor",
        .basicsize = sizeof(AugTensorObject),
        .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
        .slots = slots,
    };
    st->TensorType = (PyTypeObject *)PyType_FromModuleAndSpec(module, &spec, NULL);
    PyMem_Free(slots);
    if (st->TensorType == NULL) return -1;
    /* NumPy defers `ndarray op tensor` to our reflected operators (saturating, a
     * tensor result) only when the class opts out of ufuncs this way. */
    if (PyDict_SetItemString(st->TensorType->tp_dict, "__array_ufunc__", Py_None) < 0) return -1;
    PyType_Modified(st->TensorType);
    /* augpy.Tensor, and CudaTensor: the augpy manual's name for the same class */
    if (PyModule_AddObjectRef(module, "Tensor", (PyObject *)st->TensorType) < 0) return -1;
    return PyModule_AddObjectRef(module, "CudaTensor", (PyObject *)st->TensorType);
}
