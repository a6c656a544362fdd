/* _augpy/convert.c: conversions between Python objects and the aug C API's types.
 *
 * dtypes (augpy DLDataType, numpy dtypes/types, names), scalars (Python and
 * numpy numbers, augpy.Constant), operands and buffers: any object exporting the
 * buffer protocol is viewed as a CPU aug_tensor without copying (byte strides
 * become element strides), so copies in and out of numpy arrays are one aug_copy.
 * Objects without the buffer protocol (lists, __array_interface__ providers,
 * ml_dtypes bfloat16 arrays) go through numpy.asarray first. The argument
 * parsers (ints, reals, shapes, out=, launch settings) are in args.c. */
#include <string.h>
#include "augpy.h"

/* ---- dtypes -------------------------------------------------------------------- */

static int dtype_from_name(const char *name, aug_dtype *out) {
    if (strcmp(name, "bool_") == 0) {
        *out = AUG_BOOL;
        return 1;
    }
    for (int i = 0; i < AUG_NUM_DTYPES; i++) {
        if (strcmp(name, aug_dtype_name((aug_dtype)i)) == 0) {
            *out = (aug_dtype)i;
            return 1;
        }
    }
    return 0;
}

/* Classify a numpy.dtype instance. 0 ok, -1 error set. */
static int dtype_from_numpy_descr(PyObject *descr, PyObject *orig, aug_dtype *out, const char *func) {
    /* one after the other: no lookup with an exception set (descr may be a hostile dtype property) */
    PyObject *kind_obj = PyObject_GetAttrString(descr, "kind");
    PyObject *size_obj = kind_obj ? PyObject_GetAttrString(descr, "itemsize") : NULL;
    PyObject *order_obj = size_obj ? PyObject_GetAttrString(descr, "byteorder") : NULL;
    PyObject *name_obj = order_obj ? PyObject_GetAttrString(descr, "name") : NULL;
    int ret = -1;
    if (!kind_obj || !size_obj || !order_obj || !name_obj) goto done;
    const char *kind = PyUnicode_AsUTF8(kind_obj);
    const char *order = PyUnicode_AsUTF8(order_obj);
    const char *name = PyUnicode_AsUTF8(name_obj);
    long size = PyLong_AsLong(size_obj);
    if (!kind || !order || !name || (size == -1 && PyErr_Occurred())) goto done;
#if PY_BIG_ENDIAN
    const char foreign = '<';
#else
    const char foreign = '>';
#endif
    if (order[0] == foreign) {
        PyErr_Format(PyExc_TypeError, "%s: non-native byte order is not supported, got dtype %R", func, orig);
        goto done;
    }
    aug_dtype dt = AUG_DTYPE_AUTO;
    switch (kind[0]) {
    case 'b': dt = size == 1 ? AUG_BOOL : AUG_DTYPE_AUTO; break;
    case 'i':
        dt = size == 1 ? AUG_INT8 : size == 2 ? AUG_INT16 : size == 4 ? AUG_INT32 : size == 8 ? AUG_INT64 : AUG_DTYPE_AUTO;
        break;
    case 'u':
        dt = size == 1 ? AUG_UINT8 : size == 2 ? AUG_UINT16 : size == 4 ? AUG_UINT32 : size == 8 ? AUG_UINT64 : AUG_DTYPE_AUTO;
        break;
    case 'f': dt = size == 2 ? AUG_FLOAT16 : size == 4 ? AUG_FLOAT32 : size == 8 ? AUG_FLOAT64 : AUG_DTYPE_AUTO; break;
    default:
        /* ml_dtypes.bfloat16 registers as a void-kind dtype named "bfloat16". */
        if (strcmp(name, "bfloat16") == 0 && size == 2) dt = AUG_BFLOAT16;
        break;
    }
    if (dt == AUG_DTYPE_AUTO) {
        PyErr_Format(PyExc_TypeError, "%s: unsupported data type %R", func, orig);
        goto done;
    }
    *out = dt;
    ret = 0;
done:
    Py_XDECREF(kind_obj);
    Py_XDECREF(size_obj);
    Py_XDECREF(order_obj);
    Py_XDECREF(name_obj);
    return ret;
}

int augpy_parse_dtype(augpy_state *st, PyObject *obj, aug_dtype *out, const char *func) {
    if (Py_TYPE(obj) == st->DTypeType) {
        *out = ((AugDTypeObject *)obj)->dtype;
        return 0;
    }
    if (obj == Py_None) {
        PyErr_Format(PyExc_TypeError, "%s: dtype must be an augpy or numpy data type, got None", func);
        return -1;
    }
    if (PyUnicode_Check(obj)) {
        const char *name = PyUnicode_AsUTF8(obj);
        if (name == NULL) return -1;
        if (dtype_from_name(name, out)) return 0;
    }
    PyObject *np = augpy_get_numpy(st);
    if (np == NULL) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: cannot interpret %R as a data type", func, obj);
        return -1;
    }
    PyObject *dtype_type = PyObject_GetAttrString(np, "dtype");
    if (dtype_type == NULL) return -1;
    PyObject *descr = PyObject_CallFunctionObjArgs(dtype_type, obj, NULL);
    Py_DECREF(dtype_type);
    if (descr == NULL) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: cannot interpret %R as a data type", func, obj);
        return -1;
    }
    int ret = dtype_from_numpy_descr(descr, obj, out, func);
    Py_DECREF(descr);
    return ret;
}

/* ---- scalars --------------------------------------------------------------------- */

/* "12345" for an int of at most 256 bits, else "an int of N bits" (repr of a huge int
 * is slow, and refused past sys.get_int_max_str_digits()). */
PyObject *augpy_int_desc(PyObject *obj) {
    PyObject *bits = PyObject_CallMethod(obj, "bit_length", NULL);
    if (!bits) return NULL;
    long long n = PyLong_AsLongLong(bits);
    Py_DECREF(bits);
    if (n == -1 && PyErr_Occurred()) return NULL;
    if (n <= 256) return PyObject_Repr(obj);
    int sign = 0;
    (void)PyLong_AsLongLongAndOverflow(obj, &sign); /* n > 64: sign is -1 or 1 */
    return PyUnicode_FromFormat("%s(an int of %lld bits)", sign < 0 ? "-" : "", n);
}

int augpy_is_big_int(PyObject *obj) {
    if (!PyLong_Check(obj) || PyBool_Check(obj)) return 0;
    int overflow = 0;
    (void)PyLong_AsLongLongAndOverflow(obj, &overflow); /* no Python code: obj is an int */
    if (overflow == 0) return 0;
    if (overflow < 0) return 1;
    unsigned long long u = PyLong_AsUnsignedLongLong(obj);
    if (u == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 1;
    }
    return 0;
}

int augpy_big_int_scalar(PyObject *obj, aug_dtype target, aug_scalar *out, const char *func) {
    const aug_dtype_traits *tr = aug_dtype_is_valid(target) ? aug_dtype_info(target) : NULL;
    if (tr && tr->kind == AUG_KIND_FLOAT) {
        double d = PyLong_AsDouble(obj); /* correctly rounded, as NumPy's int -> float */
        if (!(d == -1.0 && PyErr_Occurred())) {
            *out = aug_scalar_float(d);
            return 0;
        }
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
        PyErr_Clear();
    }
    PyObject *desc = augpy_int_desc(obj);
    if (!desc) return -1;
    if (tr && tr->kind == AUG_KIND_FLOAT)
        PyErr_Format(PyExc_OverflowError, "%s: integer scalar %U is too large to convert to float (for %s)", func,
                     desc, aug_dtype_name(target));
    else if (tr)
        PyErr_Format(PyExc_OverflowError, "%s: integer scalar %U is out of range for %s", func, desc,
                     aug_dtype_name(target));
    else
        PyErr_Format(PyExc_OverflowError,
                     "%s: integer scalar %U is out of range [-9223372036854775808, 18446744073709551615]", func, desc);
    Py_DECREF(desc);
    return -1;
}

static int parse_pyint(PyObject *obj, aug_scalar *out) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (!overflow) {
        *out = aug_scalar_int((int64_t)v);
        return 1;
    }
    if (overflow > 0) {
        unsigned long long u = PyLong_AsUnsignedLongLong(obj);
        if (!(u == (unsigned long long)-1 && PyErr_Occurred())) {
            *out = aug_scalar_uint((uint64_t)u);
            return 1;
        }
        PyErr_Clear();
    }
    return augpy_big_int_scalar(obj, AUG_DTYPE_AUTO, out, "augpy");
}

/* numpy scalar (numpy.generic) -> weak scalar; 0 when obj is none. */
static int parse_numpy_scalar(augpy_state *st, PyObject *obj, aug_scalar *out) {
    PyObject *np = st->numpy;
    if (np == NULL) {
        /* Only look for numpy scalars if numpy is already imported. */
        PyObject *name = PyUnicode_FromString("numpy");
        if (name == NULL) return -1;
        np = PyImport_GetModule(name);
        Py_DECREF(name);
        if (np == NULL) return PyErr_Occurred() ? -1 : 0;
        st->numpy = np;
    }
    PyObject *generic = PyObject_GetAttrString(np, "generic");
    if (generic == NULL) return -1;
    int is = PyObject_IsInstance(obj, generic);
    Py_DECREF(generic);
    if (is <= 0) return is;
    PyObject *descr = PyObject_GetAttrString(obj, "dtype");
    if (descr == NULL) return -1;
    aug_dtype dt;
    int ok = dtype_from_numpy_descr(descr, obj, &dt, "augpy");
    Py_DECREF(descr);
    if (ok < 0) {
        PyErr_Clear(); /* complex, str, datetime ...: not a scalar operand */
        return 0;
    }
    switch (aug_dtype_info(dt)->kind) {
    case AUG_KIND_BOOL: {
        int v = PyObject_IsTrue(obj);
        if (v < 0) return -1;
        *out = aug_scalar_bool(v);
        return 1;
    }
    case AUG_KIND_INT:
    case AUG_KIND_UINT: {
        PyObject *i = PyNumber_Index(obj);
        if (i == NULL) return -1;
        int r = parse_pyint(i, out);
        Py_DECREF(i);
        return r;
    }
    default: {
        double v = PyFloat_AsDouble(obj);
        if (v == -1.0 && PyErr_Occurred()) return -1;
        *out = aug_scalar_float(v);
        return 1;
    }
    }
}

int augpy_parse_scalar(augpy_state *st, PyObject *obj, aug_scalar *out) {
    if (PyBool_Check(obj)) {
        *out = aug_scalar_bool(obj == Py_True);
        return 1;
    }
    if (PyLong_Check(obj)) return parse_pyint(obj, out);
    if (PyFloat_Check(obj)) {
        *out = aug_scalar_float(PyFloat_AS_DOUBLE(obj));
        return 1;
    }
    if (st->ConstantType != NULL && PyObject_TypeCheck(obj, st->ConstantType)) {
        *out = ((AugConstantObject *)obj)->scalar;
        return 1;
    }
    if (st->TensorType != NULL && PyObject_TypeCheck(obj, st->TensorType)) return 0;
    return parse_numpy_scalar(st, obj, out);
}

PyObject *augpy_scalar_to_py(const aug_scalar *s) {
    const aug_dtype_traits *tr = aug_dtype_info(s->dtype);
    if (tr == NULL) {
        PyErr_Format(PyExc_ValueError, "augpy: scalar has an invalid dtype %d", (int)s->dtype);
        return NULL;
    }
    switch (tr->kind) {
    case AUG_KIND_BOOL: return PyBool_FromLong(s->v.i != 0);
    case AUG_KIND_INT: return PyLong_FromLongLong((long long)s->v.i);
    case AUG_KIND_UINT: return PyLong_FromUnsignedLongLong((unsigned long long)s->v.u);
    default: return PyFloat_FromDouble(s->v.f);
    }
}

/* ---- buffers --------------------------------------------------------------------- */

/* Element type of a PEP 3118 format of a native, single-element type; -1 if none. */
static int dtype_from_format(const char *fmt, Py_ssize_t itemsize, aug_dtype *out) {
    if (fmt == NULL) fmt = "B";
    if (fmt[0] == '@' || fmt[0] == '=') fmt++;
#if !PY_BIG_ENDIAN
    else if (fmt[0] == '<') fmt++;
#endif
    if (fmt[0] == '\0' || fmt[1] != '\0') return -1;
    char c = fmt[0];
    if (c == '?') {
        *out = AUG_BOOL;
        return itemsize == 1 ? 0 : -1;
    }
    if (c == 'e' || c == 'f' || c == 'd') {
        *out = c == 'e' ? AUG_FLOAT16 : c == 'f' ? AUG_FLOAT32 : AUG_FLOAT64;
        return itemsize == (c == 'e' ? 2 : c == 'f' ? 4 : 8) ? 0 : -1;
    }
    if (strchr("bhilqn", c) == NULL && strchr("BHILQN", c) == NULL) return -1;
    int is_signed = strchr("bhilqn", c) != NULL;
    /* The width comes from itemsize: 'l' is 8 bytes natively on LP64, 4 in standard mode. */
    switch (itemsize) {
    case 1: *out = is_signed ? AUG_INT8 : AUG_UINT8; return 0;
    case 2: *out = is_signed ? AUG_INT16 : AUG_UINT16; return 0;
    case 4: *out = is_signed ? AUG_INT32 : AUG_UINT32; return 0;
    case 8: *out = is_signed ? AUG_INT64 : AUG_UINT64; return 0;
    default: return -1;
    }
}

/* The numpy array standing in for obj when its buffer cannot be used directly:
 * numpy.asarray(obj), viewed as uint16 for bfloat16 (*bf16 = 1) and converted to
 * native byte order. New reference or NULL. */
static PyObject *numpy_fallback(augpy_state *st, PyObject *obj, int *bf16) {
    PyObject *np = augpy_get_numpy(st);
    if (np == NULL) return NULL;
    PyObject *arr = PyObject_CallMethod(np, "asarray", "(O)", obj);
    if (arr == NULL) return NULL;
    PyObject *descr = PyObject_GetAttrString(arr, "dtype");
    if (descr == NULL) goto fail;
    PyObject *name = PyObject_GetAttrString(descr, "name");
    PyObject *native = PyObject_GetAttrString(descr, "isnative");
    Py_DECREF(descr);
    if (name == NULL || native == NULL) {
        Py_XDECREF(name);
        Py_XDECREF(native);
        goto fail;
    }
    int is_bf16 = PyUnicode_Check(name) && PyUnicode_CompareWithASCIIString(name, "bfloat16") == 0;
    int is_native = PyObject_IsTrue(native);
    Py_DECREF(name);
    Py_DECREF(native);
    if (is_bf16) {
        PyObject *view = PyObject_CallMethod(arr, "view", "s", "uint16");
        Py_SETREF(arr, view);
        if (arr == NULL) return NULL;
        *bf16 = 1;
    } else if (is_native == 0) {
        descr = PyObject_GetAttrString(arr, "dtype");
        if (descr == NULL) goto fail;
        PyObject *nd = PyObject_CallMethod(descr, "newbyteorder", "s", "=");
        Py_DECREF(descr);
        if (nd == NULL) goto fail;
        PyObject *conv = PyObject_CallMethod(arr, "astype", "(O)", nd);
        Py_DECREF(nd);
        Py_SETREF(arr, conv);
        if (arr == NULL) return NULL;
    }
    return arr;
fail:
    Py_DECREF(arr);
    return NULL;
}

/* Builds view->t over the acquired view->buf. 0 ok, 1 strides not a multiple
 * of the itemsize, 3 data not aligned for the dtype (the kernels' typed loads
 * need it; the caller falls back to a packed copy), -1 error set. */
static int bufview_make_tensor(augpy_state *st, augpy_bufview *view, aug_dtype dt, const char *func) {
    Py_buffer *b = &view->buf;
    if (b->ndim > AUG_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "%s: array has %d dimensions (at most %d are supported)", func, b->ndim,
                     AUG_MAX_DIMS);
        return -1;
    }
    Py_ssize_t itemsize = b->itemsize;
    int ndim = b->ndim;
    int64_t shape[AUG_MAX_DIMS], strides[AUG_MAX_DIMS];
    if (ndim > 0 && b->shape == NULL) { /* no shape: a 1-D run of bytes */
        ndim = 1;
        shape[0] = itemsize ? b->len / itemsize : 0;
    }
    int empty = 0;
    for (int d = 0; b->shape && d < ndim; d++) {
        shape[d] = b->shape[d];
        if (shape[d] == 0) empty = 1;
    }
    int64_t lo = 0, hi = 0; /* byte offsets of the lowest and highest reachable element */
    for (int d = 0; d < ndim; d++) {
        Py_ssize_t bs = itemsize; /* no strides given: C-contiguous */
        if (b->strides != NULL) {
            bs = b->strides[d];
        } else {
            for (int k = d + 1; b->shape && k < ndim; k++) bs *= b->shape[k];
        }
        strides[d] = 0;
        if (shape[d] <= 1 || empty) continue;
        if (bs % itemsize != 0) return 1;
        strides[d] = bs / itemsize;
        if (bs < 0) lo += (shape[d] - 1) * bs;
        else hi += (shape[d] - 1) * bs;
    }
    Py_ssize_t align = itemsize > 8 ? 8 : itemsize;
    if (!empty && align > 0 && (uintptr_t)b->buf % (uintptr_t)align != 0) return 3;
    size_t nbytes = empty ? 0 : (size_t)(hi - lo + itemsize);
    void *base = empty ? NULL : (char *)b->buf + lo;
    aug_storage *s = aug_storage_wrap(base, nbytes, aug_cpu_device(), NULL, NULL);
    if (s == NULL) {
        augpy_raise(st, AUG_OK, func);
        return -1;
    }
    view->t = aug_tensor_from_storage(s, empty ? 0 : -lo, ndim, shape, strides, dt);
    aug_storage_release(s);
    if (view->t == NULL) {
        augpy_raise(st, AUG_OK, func);
        return -1;
    }
    return 0;
}

/* Try src's buffer: 0 ok (view->buf and view->t set), 1 unusable (no error set),
 * 2 odd byte strides, 3 misaligned data, -1 error set. */
static int try_buffer(augpy_state *st, PyObject *src, int writable, int bf16, augpy_bufview *view,
                      const char *func) {
    if (!PyObject_CheckBuffer(src) || PyUnicode_Check(src)) return 1;
    int flags = PyBUF_RECORDS_RO | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(src, &view->buf, flags) < 0) {
        if (writable) { /* NumPy says ValueError, bytes BufferError: probe read-only access */
            PyErr_Clear();
            Py_buffer probe;
            if (PyObject_GetBuffer(src, &probe, PyBUF_RECORDS_RO) == 0) {
                PyBuffer_Release(&probe);
                PyErr_Format(PyExc_ValueError, "%s: the destination array is read-only", func);
                return -1;
            }
        }
        PyErr_Clear();
        return 1;
    }
    aug_dtype dt = AUG_BFLOAT16;
    int ok = bf16 ? view->buf.itemsize == 2 : dtype_from_format(view->buf.format, view->buf.itemsize, &dt) == 0;
    int r = ok ? bufview_make_tensor(st, view, dt, func) : 1;
    if (r != 0) {
        PyBuffer_Release(&view->buf);
        memset(&view->buf, 0, sizeof view->buf);
        if (r == 1 && ok) return 2;
        if (r == 3) return 3;
    }
    return r;
}

void augpy_bufview_release(augpy_bufview *view) {
    aug_tensor_free(view->t);
    view->t = NULL;
    if (view->owner != NULL) {
        PyBuffer_Release(&view->buf);
        Py_CLEAR(view->owner);
    }
}

int augpy_bufview_get(augpy_state *st, PyObject *obj, int writable, augpy_bufview *view, const char *func) {
    memset(view, 0, sizeof *view);
    int r = try_buffer(st, obj, writable, 0, view, func);
    if (r == 0) {
        view->owner = Py_NewRef(obj);
        return 0;
    }
    if (r < 0) return -1;
    if (r == 2 && writable) {
        PyErr_Format(PyExc_ValueError, "%s: the destination's strides must be multiples of its item size", func);
        return -1;
    }
    if (r == 3 && writable) {
        PyErr_Format(PyExc_ValueError, "%s: the destination's data is not aligned for its item size; pass an "
                     "aligned array (a copy, e.g. numpy.array(a))", func);
        return -1;
    }
    /* Not directly usable: numpy.asarray (packed copy for odd strides, an aligned
     * copy of misaligned data). */
    int bf16 = 0;
    PyObject *arr = NULL;
    if (r == 2 || r == 3) {
        PyObject *np = augpy_get_numpy(st);
        arr = np ? PyObject_CallMethod(np, r == 2 ? "ascontiguousarray" : "array", "(O)", obj) : NULL;
    } else {
        arr = numpy_fallback(st, obj, &bf16);
    }
    if (arr == NULL) {
        if (PyErr_ExceptionMatches(PyExc_ImportError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s: cannot convert %.100s to a tensor without numpy", func,
                         Py_TYPE(obj)->tp_name);
        }
        return -1;
    }
    /* A writable destination must share memory with obj (only the bfloat16 view does). */
    r = (writable && !bf16) ? 1 : try_buffer(st, arr, writable, bf16, view, func);
    if (r == 0) {
        view->owner = arr;
        return 0;
    }
    Py_DECREF(arr);
    if (r < 0) return -1;
    PyErr_Format(PyExc_TypeError,
                 writable ? "%s: expected a writable buffer with a supported element type (e.g. a numpy array), "
                            "got %.100s"
                          : "%s: cannot convert %.100s to a tensor: expected a buffer or array-like with a "
                            "supported element type",
                 func, Py_TYPE(obj)->tp_name);
    return -1;
}

int augpy_copy_into(augpy_state *st, const aug_tensor *src, aug_tensor *dst, const char *func) {
    aug_status status;
    AUGPY_CALL(status, aug_tensor_size(dst), aug_copy(src, dst));
    if (status != AUG_OK) {
        augpy_raise(st, status, func);
        return -1;
    }
    return 0;
}

aug_tensor *augpy_tensor_from_buffer(augpy_state *st, PyObject *obj, aug_device dev, const char *func) {
    augpy_bufview view;
    if (augpy_bufview_get(st, obj, 0, &view, func) < 0) return NULL;
    aug_tensor *t = aug_tensor_empty(view.t->ndim, view.t->shape, view.t->dtype, dev);
    if (t == NULL) {
        augpy_raise(st, AUG_OK, func);
    } else if (augpy_copy_into(st, view.t, t, func) < 0) {
        aug_tensor_free(t);
        t = NULL;
    }
    augpy_bufview_release(&view);
    return t;
}

/* ---- operands ---------------------------------------------------------------------- */

static int is_array_like(PyObject *obj) {
    if (PyUnicode_Check(obj) || PyBytes_Check(obj) || PyByteArray_Check(obj)) return 0;
    if (PyObject_CheckBuffer(obj) || PyList_Check(obj) || PyTuple_Check(obj)) return 1;
    PyTypeObject *tp = Py_TYPE(obj);
    /* Look the protocol up on the type (no instance __getattr__ surprises). */
    return PyObject_HasAttrString((PyObject *)tp, "__array_interface__") ||
           PyObject_HasAttrString((PyObject *)tp, "__array__");
}

int augpy_parse_operand(augpy_state *st, PyObject *obj, aug_operand *op, aug_tensor **tmp, const char *func) {
    *tmp = NULL;
    if (augpy_is_tensor(st, obj)) {
        *op = aug_operand_tensor(((AugTensorObject *)obj)->t);
        return 0;
    }
    aug_scalar s;
    /* a weak int beyond int64 / uint64 with no dtype to take (see augpy_parse_operands) */
    int r = augpy_is_big_int(obj) ? (augpy_big_int_scalar(obj, AUG_DTYPE_AUTO, &s, func) < 0 ? -1 : 1)
                                  : augpy_parse_scalar(st, obj, &s);
    if (r < 0) return -1;
    if (r == 1) {
        *op = aug_operand_scalar(s);
        return 0;
    }
    if (!is_array_like(obj)) return 1;
    *tmp = augpy_tensor_from_buffer(st, obj, aug_cpu_device(), func);
    if (*tmp == NULL) return -1;
    *op = aug_operand_tensor(*tmp);
    return 0;
}

int augpy_parse_operands(augpy_state *st, PyObject *const *objs, int n, aug_operand *in, aug_tensor **tmp, int *bad,
                         const char *func) {
    int nbig = 0;
    for (int i = 0; i < n; i++) tmp[i] = NULL;
    for (int i = 0; i < n; i++) {
        if (augpy_is_big_int(objs[i])) {
            nbig++;
            continue;
        }
        int r = augpy_parse_operand(st, objs[i], &in[i], &tmp[i], func);
        if (r != 0) {
            *bad = i;
            return r;
        }
    }
    if (nbig == 0) return 0;
    /* The typed operands' promotion is the dtype the weak ints take (semantics §6). */
    aug_dtype target = AUG_DTYPE_AUTO;
    for (int i = 0; i < n; i++) {
        if (augpy_is_big_int(objs[i])) continue;
        aug_dtype d = in[i].tensor ? in[i].tensor->dtype : in[i].scalar.weak ? AUG_DTYPE_AUTO : in[i].scalar.dtype;
        if (d != AUG_DTYPE_AUTO) target = target == AUG_DTYPE_AUTO ? d : aug_promote(target, d);
    }
    for (int i = 0; i < n; i++) {
        if (!augpy_is_big_int(objs[i])) continue;
        aug_scalar s;
        if (augpy_big_int_scalar(objs[i], target, &s, func) < 0) {
            *bad = i;
            return -1;
        }
        in[i] = aug_operand_scalar(s);
    }
    return 0;
}

int augpy_operands_to_device(augpy_state *st, aug_operand *in, aug_tensor **tmp, int n, const aug_tensor *hint,
                             const char *func) {
    const aug_tensor *ref = hint;
    for (int i = 0; !ref && i < n; i++)
        if (in[i].tensor && !tmp[i]) ref = in[i].tensor;
    if (!ref || ref->device.type == AUG_DEVICE_CPU) return 0;
    for (int i = 0; i < n; i++) {
        if (!tmp[i]) continue;
        aug_tensor *moved = aug_tensor_to(tmp[i], ref->device);
        if (!moved) {
            augpy_raise(st, aug_last_status(), func);
            return -1;
        }
        aug_tensor_free(tmp[i]);
        tmp[i] = moved;
        in[i].tensor = moved;
    }
    return 0;
}
