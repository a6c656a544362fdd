/* _augpy/args.c: the generic argument parsers of the extension.
 *
 * The parsers here turn one argument into a C value with the extension's
 * messages, each naming the Python function and the argument (augpy_parse_args,
 * which binds the arguments to a function's spec, is in argspec.c): ints, reals, numbers (scalars and Constants),
 * shapes, `out=`, float32 parameter tensors, device ids and the launch
 * settings blocks_per_sm / threads. The image functions take their images through
 * one converter here (augpy_image_arg: augpy tensors as they are, foreign arrays
 * imported without a copy by DLPack or the buffer protocol) and read a tensor
 * without a layout string by its shape (augpy_image_layout; docs/semantics.md §13).
 * The conventions every image op shares are parsed here once: the interpolation
 * (augpy_parse_interp), layout strings (augpy_parse_layout) and the parameters
 * given as a number or one per image (augpy_parse_per_image and its tensor form).
 * Conversions of tensors, arrays, dtypes and scalars themselves are in convert.c. */
#include <string.h>
#include "augpy.h"

/* ---- numbers --------------------------------------------------------------------- */

int augpy_parse_int_range(PyObject *obj, int64_t lo, int64_t hi, int64_t *out, const char *func, const char *name) {
    if (PyBool_Check(obj) || !PyIndex_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: %s must be an int, not '%.100s'", func, name, Py_TYPE(obj)->tp_name);
        return -1;
    }
    PyObject *i = PyNumber_Index(obj);
    if (!i) return -1;
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
    if (v == -1 && PyErr_Occurred()) {
        Py_DECREF(i);
        return -1;
    }
    if (overflow || v < lo || v > hi) {
        /* i, not obj: __index__ gave the value (obj's repr may be anything) */
        PyObject *desc = augpy_int_desc(i);
        Py_DECREF(i);
        if (!desc) return -1;
        PyErr_Format(PyExc_ValueError, "%s: %s = %U is out of range [%lld, %lld]", func, name, desc, (long long)lo,
                     (long long)hi);
        Py_DECREF(desc);
        return -1;
    }
    Py_DECREF(i);
    *out = v;
    return 0;
}

int augpy_parse_int64(PyObject *obj, int64_t *out, const char *func, const char *name) {
    return augpy_parse_int_range(obj, INT64_MIN, INT64_MAX, out, func, name);
}

int augpy_parse_int(PyObject *obj, int *out, const char *func, const char *name) {
    int64_t v;
    if (augpy_parse_int_range(obj, INT32_MIN, INT32_MAX, &v, func, name) < 0) return -1;
    *out = (int)v;
    return 0;
}

int augpy_parse_double(PyObject *obj, double *out, const char *func, const char *name) {
    if (PyNumber_Check(obj)) {
        double v = PyFloat_AsDouble(obj);
        if (!(v == -1.0 && PyErr_Occurred())) {
            *out = v;
            return 0;
        }
        if (PyErr_ExceptionMatches(PyExc_OverflowError)) { /* an int beyond the double range */
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "%s: %s must be finite, got %R", func, name, obj);
            return -1;
        }
        if (!PyErr_ExceptionMatches(PyExc_TypeError)) return -1;
        PyErr_Clear();
    }
    PyErr_Format(PyExc_TypeError, "%s: %s must be a number, not '%.100s'", func, name, Py_TYPE(obj)->tp_name);
    return -1;
}

int augpy_parse_number(augpy_state *st, PyObject *obj, double *out, const char *func, const char *name) {
    aug_scalar s;
    /* a double parameter: an int of any size is its nearest double */
    int r = augpy_is_big_int(obj) ? (augpy_big_int_scalar(obj, AUG_FLOAT64, &s, func) < 0 ? -1 : 1)
                                  : augpy_parse_scalar(st, obj, &s);
    if (r < 0) return -1;
    if (r == 0) {
        PyErr_Format(PyExc_TypeError, "%s: %s must be a number, not '%.100s'", func, name, Py_TYPE(obj)->tp_name);
        return -1;
    }
    const aug_dtype_traits *tr = aug_dtype_info(s.dtype);
    if (!tr) return (void)augpy_raise(st, AUG_OK, func), -1;
    *out = tr->kind == AUG_KIND_FLOAT ? s.v.f : tr->kind == AUG_KIND_UINT ? (double)s.v.u : (double)s.v.i;
    return 0;
}

/* ---- shapes ---------------------------------------------------------------------- */

static int parse_extent(PyObject *item, int64_t *out, const char *func) {
    if (PyBool_Check(item) || !PyIndex_Check(item)) {
        PyErr_Format(PyExc_TypeError, "%s: shape entries must be integers, got %.100s", func,
                     Py_TYPE(item)->tp_name);
        return -1;
    }
    PyObject *i = PyNumber_Index(item);
    if (i == NULL) return -1;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
    if (v == -1 && PyErr_Occurred()) {
        Py_DECREF(i);
        return -1;
    }
    if (overflow) {
        PyObject *desc = augpy_int_desc(i);
        if (desc) PyErr_Format(PyExc_ValueError, "%s: shape entry %U is too large", func, desc);
        Py_XDECREF(desc);
        Py_DECREF(i);
        return -1;
    }
    Py_DECREF(i);
    *out = (int64_t)v;
    return 0;
}

int augpy_parse_shape(PyObject *obj, int64_t *shape, const char *func) {
    if (PyIndex_Check(obj) && !PySequence_Check(obj)) return parse_extent(obj, &shape[0], func) < 0 ? -1 : 1;
    if (PyUnicode_Check(obj) || PyBytes_Check(obj) || PyByteArray_Check(obj) || !PySequence_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: shape must be an int or a sequence of ints, got %.100s", func,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    /* A tuple snapshot: the entries' __index__ may mutate a list being read. */
    PyObject *seq = PySequence_Tuple(obj);
    if (seq == NULL) return -1;
    Py_ssize_t n = PyTuple_GET_SIZE(seq);
    if (n > AUG_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "%s: too many dimensions in shape: %zd (at most %d are supported)", func,
                     n, AUG_MAX_DIMS);
        Py_DECREF(seq);
        return -1;
    }
    for (Py_ssize_t d = 0; d < n; d++) {
        if (parse_extent(PyTuple_GET_ITEM(seq, d), &shape[d], func) < 0) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    return (int)n;
}

/* ---- tensor arguments -------------------------------------------------------------- */

int augpy_parse_out(augpy_state *st, PyObject *obj, aug_tensor **out, const char *func) {
    if (obj == NULL || obj == Py_None) {
        *out = NULL;
        return 0;
    }
    if (!augpy_is_tensor(st, obj)) {
        PyErr_Format(PyExc_TypeError, "%s: out must be a Tensor or None, got %.100s", func,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    *out = ((AugTensorObject *)obj)->t;
    return 0;
}

aug_tensor *augpy_float32_arg(augpy_state *st, PyObject *obj, aug_device dev, const char *func, const char *name,
                              aug_tensor **tmp) {
    if (augpy_is_tensor(st, obj)) return ((AugTensorObject *)obj)->t;
    PyObject *arr = NULL, *np = NULL;
    if (obj != Py_None && !PyUnicode_Check(obj) && !PyBytes_Check(obj)) {
        np = augpy_get_numpy(st);
        if (!np) return NULL;
        arr = PyObject_CallMethod(np, "asarray", "Os", obj, "float32");
    }
    if (!arr) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: %s must be a tensor or a sequence of numbers, not '%.100s'", func, name,
                     Py_TYPE(obj)->tp_name);
        return NULL;
    }
    *tmp = augpy_tensor_from_buffer(st, arr, dev, func);
    Py_DECREF(arr);
    return *tmp;
}

/* ---- "a number or one per image" ------------------------------------------------------ */

/* The message naming what such a parameter takes: "<func>: <name> must be a number
 * or <n> numbers (one per image), not '<type>'" (per > 1: "(<per> per image)"). */
static void per_image_type_error(PyObject *obj, int64_t n, int64_t per, const char *func, const char *name) {
    if (per == 1 && n == 1)
        PyErr_Format(PyExc_TypeError, "%s: %s must be a number, not '%.100s'", func, name, Py_TYPE(obj)->tp_name);
    else if (per == 1)
        PyErr_Format(PyExc_TypeError, "%s: %s must be a number or %lld numbers (one per image), not '%.100s'", func,
                     name, (long long)n, Py_TYPE(obj)->tp_name);
    else
        PyErr_Format(PyExc_TypeError, "%s: %s must be a number or %lld numbers (%lld per image), not '%.100s'", func,
                     name, (long long)(n * per), (long long)per, Py_TYPE(obj)->tp_name);
}

/* 1 when obj holds values to read one by one (a sequence, a NumPy array or an augpy
 * tensor with a length), 0 when it is one value (a number, a 0-d array or tensor,
 * or anything else, left to augpy_parse_double's message), -1 on an error. */
static int has_items(PyObject *obj) {
    if (PyUnicode_Check(obj) || PyBytes_Check(obj) || !PySequence_Check(obj)) return 0;
    if (PySequence_Size(obj) >= 0) return 1;
    if (!PyErr_ExceptionMatches(PyExc_TypeError)) return -1; /* "len() of a 0-d tensor": one value */
    PyErr_Clear();
    return 0;
}

/* One item of the sequence: a number, or a row of numbers (a nested sequence or a
 * NumPy row), stored at vals[*k...] while *k < count (counted on beyond it). */
static int per_image_item(PyObject *item, double *vals, int64_t count, int64_t *k, const char *func,
                          const char *name) {
    int rows = has_items(item);
    if (rows < 0) return -1;
    PyObject *row = rows ? PySequence_Tuple(item) : NULL;
    if (rows && !row) return -1;
    Py_ssize_t m = row ? PyTuple_GET_SIZE(row) : 1;
    for (Py_ssize_t j = 0; j < m; j++) {
        double d;
        if (augpy_parse_double(row ? PyTuple_GET_ITEM(row, j) : item, &d, func, name) < 0) {
            Py_XDECREF(row);
            return -1;
        }
        if (*k < count) vals[*k] = d;
        ++*k;
    }
    Py_XDECREF(row);
    return 0;
}

int augpy_parse_per_image(PyObject *obj, int64_t n, int64_t per, double *vals, const char *func, const char *name) {
    const int64_t count = n * per;
    int items = PyNumber_Check(obj) ? has_items(obj) : 1;
    if (items < 0) return -1;
    if (!items) {
        double d;
        if (augpy_parse_double(obj, &d, func, name) < 0) return -1;
        for (int64_t i = 0; i < count; i++) vals[i] = d;
        return 0;
    }
    /* a snapshot first: an item's __float__ may change a list */
    PyObject *seq = PyUnicode_Check(obj) || PyBytes_Check(obj) ? NULL : PySequence_Tuple(obj);
    if (!seq) {
        if (PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_TypeError)) return -1;
        PyErr_Clear();
        per_image_type_error(obj, n, per, func, name);
        return -1;
    }
    int64_t k = 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(seq); i++) {
        if (per_image_item(PyTuple_GET_ITEM(seq, i), vals, count, &k, func, name) < 0) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    if (k == count) return 0;
    if (per == 1 && n == 1)
        PyErr_Format(PyExc_ValueError, "%s: %s has %lld values for 1 image (give 1)", func, name, (long long)k);
    else if (per == 1)
        PyErr_Format(PyExc_ValueError, "%s: %s has %lld values for %lld images", func, name, (long long)k,
                     (long long)n);
    else
        PyErr_Format(PyExc_ValueError, "%s: %s has %lld values for %lld images (%lld per image)", func, name,
                     (long long)k, (long long)n, (long long)per);
    return -1;
}

double *augpy_per_image_alloc(PyObject *obj, int64_t n, int64_t per, const char *func, const char *name) {
    double *v = PyMem_Malloc((size_t)(n * per + 1) * sizeof(double));
    if (!v) return (double *)PyErr_NoMemory();
    if (augpy_parse_per_image(obj, n, per, v, func, name) < 0) {
        PyMem_Free(v);
        return NULL;
    }
    return v;
}

aug_tensor *augpy_per_image_tensor(augpy_state *st, PyObject *obj, int64_t n, int64_t per, aug_device dev,
                                   const char *func, const char *name, aug_tensor **tmp) {
    *tmp = NULL;
    if (augpy_is_tensor(st, obj)) return ((AugTensorObject *)obj)->t;
    const int64_t count = n * per;
    double *v = augpy_per_image_alloc(obj, n, per, func, name);
    float *f = v ? PyMem_Malloc((size_t)(count + 1) * sizeof(float)) : NULL;
    if (v && !f) PyErr_NoMemory();
    aug_tensor *t = f ? aug_tensor_empty(1, &count, AUG_FLOAT32, dev) : NULL;
    if (f && !t) augpy_raise(st, AUG_OK, func);
    if (t) {
        for (int64_t i = 0; i < count; i++) f[i] = (float)v[i];
        aug_status s = aug_tensor_write(t, f, (size_t)count * sizeof(float));
        if (s != AUG_OK) {
            aug_tensor_free(t);
            t = NULL;
            augpy_raise(st, s, func);
        }
    }
    PyMem_Free(v);
    PyMem_Free(f);
    return *tmp = t;
}

/* ---- image arguments ------------------------------------------------------------------- */

/* An object whose type comes from torch (module 'torch' or 'torch.*'): found
 * without importing torch. */
static int is_torch_object(PyObject *obj) {
    PyObject *mod = PyObject_GetAttrString((PyObject *)Py_TYPE(obj), "__module__");
    int r = 0;
    if (mod && PyUnicode_Check(mod)) {
        const char *s = PyUnicode_AsUTF8(mod);
        r = s && strncmp(s, "torch", 5) == 0 && (s[5] == '\0' || s[5] == '.');
    }
    Py_XDECREF(mod);
    PyErr_Clear();
    return r;
}

static int type_has(PyObject *obj, const char *name) {
    int r = PyObject_HasAttrString((PyObject *)Py_TYPE(obj), name);
    PyErr_Clear();
    return r;
}

/* The storage deleter of a buffer-protocol import: releases the buffer (with the
 * GIL, keeping any exception being raised), as dlpack.c's import_deleter. */
static void buffer_deleter(void *ctx) {
    augpy_bufview *v = ctx;
    if (Py_IsInitialized()) {
        PyGILState_STATE gil = PyGILState_Ensure();
        PyObject *et, *ev, *tb;
        PyErr_Fetch(&et, &ev, &tb);
        augpy_bufview_release(v);
        PyErr_Restore(et, ev, tb);
        PyGILState_Release(gil);
    }
    free(v);
}

/* A Tensor object over the memory of a buffer-protocol / __array_interface__ object
 * (no copy, except numpy's packed copy of odd strides for a read-only use). */
static PyObject *import_buffer(augpy_state *st, PyObject *obj, int writable, const char *func) {
    augpy_bufview *v = malloc(sizeof *v);
    if (!v) return PyErr_NoMemory();
    if (augpy_bufview_get(st, obj, writable, v, func) < 0) {
        free(v);
        return NULL;
    }
    aug_tensor *vt = v->t;
    v->t = NULL;
    aug_storage *s =
        aug_storage_wrap(aug_storage_ptr(vt->storage), aug_storage_nbytes(vt->storage), vt->device, buffer_deleter, v);
    if (!s) {
        aug_tensor_free(vt);
        augpy_bufview_release(v);
        free(v);
        return augpy_raise(st, AUG_OK, func);
    }
    aug_tensor *t = aug_tensor_from_storage(s, vt->byte_offset, vt->ndim, vt->shape, vt->strides, vt->dtype);
    aug_storage_release(s); /* t holds it now (or, on failure, this runs the deleter) */
    aug_tensor_free(vt);
    return t ? augpy_wrap(st, t) : augpy_raise(st, AUG_OK, func);
}

int augpy_image_arg(augpy_state *st, PyObject *obj, int writable, augpy_image *im, const char *func, const char *name) {
    memset(im, 0, sizeof *im);
    if (augpy_is_tensor(st, obj)) {
        im->obj = Py_NewRef(obj);
        im->t = ((AugTensorObject *)obj)->t;
        return 0;
    }
    int dl = 0, buf = 0;
    if (obj != Py_None && !PyUnicode_Check(obj) && !PyBytes_Check(obj)) {
        dl = type_has(obj, "__dlpack__");
        buf = PyObject_CheckBuffer(obj) || type_has(obj, "__array_interface__");
    }
    if (!dl && !buf) {
        PyErr_Format(PyExc_TypeError,
                     "%s: %s must be a Tensor or an array (numpy, torch: any object with __dlpack__, the "
                     "buffer protocol or __array_interface__), got %.100s",
                     func, name, Py_TYPE(obj)->tp_name);
        return -1;
    }
    PyObject *res = dl ? augpy_import_dlpack(st, obj, writable, func) : NULL;
    if (!res && buf && (!dl || PyErr_ExceptionMatches(PyExc_Exception))) {
        PyErr_Clear(); /* DLPack cannot serve it (a dtype, a read-only numpy 1.x array): the buffer */
        res = import_buffer(st, obj, writable, func);
    }
    if (!res) return -1;
    im->obj = res;
    im->t = ((AugTensorObject *)res)->t;
    im->foreign = 1;
    im->torch = is_torch_object(obj);
    return 0;
}

int augpy_image_out(augpy_state *st, PyObject *obj, augpy_image *im, const char *func) {
    if (obj == NULL || obj == Py_None) {
        memset(im, 0, sizeof *im);
        return 0;
    }
    return augpy_image_arg(st, obj, 1, im, func, "out");
}

void augpy_image_release(augpy_image *im) {
    Py_CLEAR(im->obj);
    im->t = NULL;
}

/* ---- the conventions of image ops (aug/conventions.h) ------------------------------- */

int augpy_parse_interp(augpy_state *st, PyObject *obj, aug_interp *out, const char *func) {
    *out = AUG_INTERP_LINEAR;
    if (!obj || obj == Py_None) return 0;
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: interpolation must be a str ('linear', 'nearest', 'area' or 'cubic'), not '%.100s'",
                     func, Py_TYPE(obj)->tp_name);
        return -1;
    }
    const char *s = PyUnicode_AsUTF8(obj);
    if (!s) return -1;
    aug_status status = aug_interp_from_name(func, s, out);
    return status ? (augpy_raise(st, status, NULL), -1) : 0;
}

int augpy_parse_layout(augpy_state *st, PyObject *obj, const char *supported, const char **out, const char *func,
                       const char *name) {
    *out = NULL;
    if (!obj || obj == Py_None) return 0;
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: %s must be a str or None, not '%.100s'", func, name, Py_TYPE(obj)->tp_name);
        return -1;
    }
    const char *s = PyUnicode_AsUTF8(obj);
    if (!s) return -1;
    if (supported) {
        aug_status status = aug_layout_check(func, name, s, supported);
        if (status) return augpy_raise(st, status, NULL), -1;
    }
    *out = s;
    return 0;
}

/* ---- layouts of images without one ----------------------------------------------------- */

static const char *const LAYOUT_NAMES[4] = {"HWC", "CHW", "NHWC", "NCHW"};

static int layout_bit(const char *s) {
    for (int i = 0; i < 4; i++)
        if (strcmp(s, LAYOUT_NAMES[i]) == 0) return 1 << i;
    return 0;
}

/* "'CHW' or 'NCHW'": the layouts of kinds. */
static const char *kinds_str(int kinds, char *buf, size_t len) {
    size_t pos = 0;
    int first = 1, count = 0;
    for (int i = 0; i < 4; i++) count += (kinds >> i) & 1;
    buf[0] = '\0';
    for (int i = 0, k = 0; i < 4; i++) {
        if (!(kinds & (1 << i))) continue;
        k++;
        pos += (size_t)PyOS_snprintf(buf + pos, len - pos, "%s'%s'",
                                     first        ? ""
                                     : k == count ? " or "
                                                  : ", ",
                                     LAYOUT_NAMES[i]);
        first = 0;
    }
    return buf;
}

int augpy_infer_layout(const aug_tensor *t, int torch) {
    if (t->ndim != 3 && t->ndim != 4) return 0;
    int b = t->ndim == 4;
    int64_t first = t->shape[b], last = t->shape[b + 2];
    int hwc = b ? AUGPY_NHWC : AUGPY_HWC, chw = b ? AUGPY_NCHW : AUGPY_CHW;
    if (torch && first <= 4) return chw; /* torch's convention: channels first */
    if (last <= 4 && first > 4) return hwc;
    if (first <= 4 && last > 4) return chw;
    return 0;
}

int augpy_image_layout(const augpy_image *im, int kinds, const char **layout, const char *func, const char *name,
                       const char *param) {
    const aug_tensor *t = im->t;
    char sbuf[96], kbuf[64];
    *layout = NULL;
    if (t->layout[0]) { /* the tensor's own layout: the op reads it (an image op's own rules) */
        int bit = layout_bit(t->layout);
        if (bit && !(kinds & bit)) {
            PyErr_Format(PyExc_ValueError, "%s: %s has layout '%s' but %s takes %s", func, name, t->layout, func,
                         kinds_str(kinds, kbuf, sizeof kbuf));
            return -1;
        }
        return 0;
    }
    if (t->ndim != 3 && t->ndim != 4) return 0; /* HW, or a shape the op rejects itself */
    int fits = kinds & (t->ndim == 3 ? AUGPY_HWC | AUGPY_CHW : AUGPY_NHWC | AUGPY_NCHW);
    if (!fits) return 0;
    int bit = augpy_infer_layout(t, im->torch);
    if (bit && !(kinds & bit)) {
        PyErr_Format(PyExc_ValueError,
                     "%s: %s of shape %s is laid out as '%s' (inferred from its shape) but %s takes %s", func, name,
                     aug_shape_str(t->ndim, t->shape, sbuf, sizeof sbuf), LAYOUT_NAMES[__builtin_ctz((unsigned)bit)],
                     func, kinds_str(kinds, kbuf, sizeof kbuf));
        return -1;
    }
    if (!bit && (fits & (fits - 1)) == 0) bit = fits; /* the op's only reading */
    if (!bit) {
        if (!im->foreign) return 0; /* an augpy tensor without a layout: the op's documented default */
        PyErr_Format(PyExc_ValueError,
                     "%s: cannot tell the layout of %s from its shape %s (channels, at most 4, on exactly one "
                     "end): pass %s= (%s)",
                     func, name, aug_shape_str(t->ndim, t->shape, sbuf, sizeof sbuf), param ? param : "layout",
                     kinds_str(fits, kbuf, sizeof kbuf));
        return -1;
    }
    *layout = LAYOUT_NAMES[__builtin_ctz((unsigned)bit)];
    return 0;
}

int augpy_image_io(augpy_state *st, PyObject *obj, PyObject *out_obj, int kinds, augpy_image *im, augpy_image *out,
                   const char *func, const char *name) {
    const char *unused;
    int inplace = out_obj && out_obj == obj; /* one import, written in place */
    memset(out, 0, sizeof *out);
    if (augpy_image_arg(st, obj, inplace, im, func, name) < 0) return -1;
    if (inplace) {
        *out = *im;
        Py_INCREF(out->obj);
    } else if (augpy_image_out(st, out_obj, out, func) < 0) {
        augpy_image_release(im);
        return -1;
    }
    if (augpy_image_layout(im, kinds, &unused, func, name, NULL) < 0) {
        augpy_image_release(im);
        augpy_image_release(out);
        return -1;
    }
    return 0;
}

PyObject *augpy_image_result(augpy_state *st, aug_status s, aug_tensor *res, augpy_image *im, augpy_image *out,
                             PyObject *out_obj, const char *func) {
    PyObject *r = s != AUG_OK ? augpy_raise(st, s, func) : out->t ? Py_NewRef(out_obj) : augpy_wrap(st, res);
    augpy_image_release(im);
    augpy_image_release(out);
    return r;
}

augpy_image *augpy_image_seq(augpy_state *st, PyObject *tuple, const char *func, const char *name) {
    Py_ssize_t n = PyTuple_GET_SIZE(tuple);
    augpy_image *ims = PyMem_Calloc((size_t)(n > 0 ? n : 1), sizeof *ims);
    if (!ims) return (augpy_image *)PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++) {
        char argname[64];
        PyOS_snprintf(argname, sizeof argname, "%s[%zd]", name, i);
        if (augpy_image_arg(st, PyTuple_GET_ITEM(tuple, i), 0, &ims[i], func, argname) < 0) {
            augpy_image_seq_release(ims, i);
            return NULL;
        }
    }
    return ims;
}

void augpy_image_seq_release(augpy_image *ims, Py_ssize_t n) {
    if (!ims) return;
    for (Py_ssize_t i = 0; i < n; i++) augpy_image_release(&ims[i]);
    PyMem_Free(ims);
}

int augpy_images_layout(const augpy_image *ims, Py_ssize_t n, int kinds, const char **layout, const char *func,
                        const char *name, const char *param) {
    const char *common = NULL;
    Py_ssize_t at = 0;
    *layout = NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        char argname[64];
        const char *l;
        PyOS_snprintf(argname, sizeof argname, "%s[%zd]", name, i);
        if (augpy_image_layout(&ims[i], kinds, &l, func, argname, param) < 0) return -1;
        if (!l && layout_bit(ims[i].t->layout)) l = ims[i].t->layout;
        if (!l) continue;
        if (common && strcmp(common, l) != 0) {
            PyErr_Format(PyExc_ValueError, "%s: %s[%zd] is laid out as '%s' but %s[%zd] as '%s': pass %s=", func, name,
                         at, common, name, i, l, param ? param : "layout");
            return -1;
        }
        if (!common) common = l, at = i;
    }
    if (common) *layout = LAYOUT_NAMES[__builtin_ctz((unsigned)layout_bit(common))]; /* a static string */
    return 0;
}

/* ---- devices ----------------------------------------------------------------------- */

/* "(the cpu backend has device 0 only)", "(the cuda backend has devices 0 to 3)". */
static const char *backend_devices(aug_device dev, char *buf, size_t len) {
    int n = aug_device_count(dev.type);
    const char *name = dev.type == AUG_DEVICE_CPU ? "cpu" : "cuda";
    if (n <= 1) PyOS_snprintf(buf, len, "the %s backend has device 0 only", name);
    else PyOS_snprintf(buf, len, "the %s backend has devices 0 to %d", name, n - 1);
    return buf;
}

int augpy_device_from_id(int device_id, aug_device *out, const char *func) {
    aug_device dev = aug_default_device();
    if (device_id < 0 || device_id >= aug_device_count(dev.type)) {
        char buf[64];
        PyErr_Format(PyExc_ValueError, "%s: invalid device_id %d (%s)", func, device_id,
                     backend_devices(dev, buf, sizeof buf));
        return -1;
    }
    dev.id = device_id;
    *out = dev;
    return 0;
}

int augpy_parse_device_id(PyObject *obj, int allow_none, aug_device *out, const char *func) {
    if (allow_none && (obj == NULL || obj == Py_None)) {
        *out = aug_default_device();
        return 0;
    }
    if (obj == NULL || PyBool_Check(obj) || !PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: device_id must be an int%s, got %.100s", func,
                     allow_none ? " or None" : "", obj ? Py_TYPE(obj)->tp_name : "nothing");
        return -1;
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (overflow || v < INT32_MIN || v > INT32_MAX) {
        char buf[64];
        PyObject *desc = augpy_int_desc(obj);
        if (desc)
            PyErr_Format(PyExc_ValueError, "%s: invalid device_id %U (%s)", func, desc,
                         backend_devices(aug_default_device(), buf, sizeof buf));
        Py_XDECREF(desc);
        return -1;
    }
    return augpy_device_from_id((int)v, out, func);
}

int augpy_parse_device(PyObject *obj, aug_device *out, const char *func) {
    if (PyLong_Check(obj) && !PyBool_Check(obj)) return augpy_parse_device_id(obj, 0, out, func);
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: device must be 'cpu', 'cuda', 'cuda:N' or a device_id int, got %.100s",
                     func, Py_TYPE(obj)->tp_name);
        return -1;
    }
    const char *s = PyUnicode_AsUTF8(obj);
    if (s == NULL) return -1;
    aug_device dev = {AUG_DEVICE_CPU, 0};
    char *end = NULL;
    if (strcmp(s, "cpu") == 0) {
        *out = dev;
        return 0;
    }
    if (strcmp(s, "cuda") == 0) {
        dev.type = AUG_DEVICE_CUDA;
    } else if (strncmp(s, "cuda:", 5) == 0 && s[5] >= '0' && s[5] <= '9') {
        long v = strtol(s + 5, &end, 10);
        if (*end != '\0' || v > INT32_MAX) goto bad;
        dev.type = AUG_DEVICE_CUDA;
        dev.id = (int)v;
    } else {
        goto bad;
    }
    if (dev.id >= aug_device_count(AUG_DEVICE_CUDA)) {
        PyErr_Format(PyExc_ValueError, "%s: device %R does not exist (%s)", func, obj, aug_cuda_status()[0]
                         ? aug_cuda_status() : "there are fewer CUDA devices");
        return -1;
    }
    *out = dev;
    return 0;
bad:
    PyErr_Format(PyExc_ValueError, "%s: device must be 'cpu', 'cuda' or 'cuda:N', got %R", func, obj);
    return -1;
}

/* ---- launch settings ------------------------------------------------------------------ */

static int parse_launch_arg(const char *func, const char *name, PyObject *obj, int *out) {
    if (!obj) return 0;
    if (!PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: %s must be an int, not '%.100s'", func, name, Py_TYPE(obj)->tp_name);
        return -1;
    }
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (overflow || v < 0 || v > INT32_MAX) {
        PyErr_Format(PyExc_ValueError, "%s: %s must be an int in [0, 2147483647], got %R", func, name, obj);
        return -1;
    }
    *out = (int)v;
    return 0;
}

int augpy_parse_launch(const char *func, PyObject *blocks_per_sm, PyObject *threads, int default_threads,
                       augpy_launch *launch) {
    launch->blocks_per_sm = AUGPY_BLOCKS_PER_SM;
    launch->threads = default_threads;
    launch->saved_blocks_per_sm = launch->saved_threads = 0;
    if (parse_launch_arg(func, "blocks_per_sm", blocks_per_sm, &launch->blocks_per_sm) < 0) return -1;
    return parse_launch_arg(func, "threads", threads, &launch->threads);
}

void augpy_launch_begin(augpy_launch *launch) {
    aug_get_launch(&launch->saved_blocks_per_sm, &launch->saved_threads);
    /* Cannot fail: augpy_parse_launch admits only values >= 0. */
    (void)aug_set_launch(launch->blocks_per_sm, launch->threads);
}

void augpy_launch_end(const augpy_launch *launch) {
    (void)aug_set_launch(launch->saved_blocks_per_sm, launch->saved_threads);
}

const char *augpy_layout_chars(PyObject *value, const char *func) {
    Py_ssize_t len;
    const char *layout = PyUnicode_AsUTF8AndSize(value, &len);
    if (layout == NULL) return NULL;
    /* One byte per dimension: non-ASCII letters or an embedded NUL would make the
     * C string's length differ from the str's. */
    if (!PyUnicode_IS_ASCII(value) || (Py_ssize_t)strlen(layout) != len) {
        PyErr_Format(PyExc_ValueError, "%s: layout %R must be ASCII characters, one per dimension", func, value);
        return NULL;
    }
    return layout;
}
