/* _augpy/tensor_methods.c: the Tensor methods a NumPy / PyTorch user reaches for,
 * over the C API's views, casts and copies (tensor.c installs them on the type):
 *
 *   astype(dtype, copy=True)   clone() / copy() / __copy__ / __deepcopy__   tolist()  item()
 *   T   permute(*dims)   squeeze(axis=None)   unsqueeze(axis)   flatten()   ravel()
 *   view(dtype) / view(*shape)   clip(min=None, max=None, out=None)
 *   __array_interface__ (CPU) / __cuda_array_interface__ (CUDA)   __str__
 *   __reduce__ with the module-level reconstructor _rebuild_tensor (pickle, copy)
 *
 * Views share the storage (a new aug_tensor struct with other shape, strides or
 * dtype, never reaching outside the elements the tensor already spans); copies
 * are packed C-contiguous tensors on the same device. */
#include "augpy.h"
#include <string.h>

static inline aug_tensor *T(PyObject *self) { return ((AugTensorObject *)self)->t; }

/* An axis argument (int, numpy ints; bool refused) normalised into [0, ndim).
 * NumPy's AxisError wording, as ValueError. */
static int parse_axis(PyObject *obj, int ndim, int *out, const char *func) {
    if (PyBool_Check(obj) || !PyIndex_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: axis must be an int, got %.100s", func, Py_TYPE(obj)->tp_name);
        return -1;
    }
    int64_t v;
    PyObject *ix = PyNumber_Index(obj);
    if (ix == NULL) return -1;
    int r = augpy_parse_int64(ix, &v, func, "axis");
    Py_DECREF(ix);
    if (r < 0) return -1;
    if (v < -ndim || v >= ndim) {
        PyErr_Format(PyExc_ValueError, "%s: axis %lld is out of bounds for tensor of dimension %d", func,
                     (long long)v, ndim);
        return -1;
    }
    *out = (int)(v < 0 ? v + ndim : v);
    return 0;
}

static PyObject *wrap_or_raise(PyObject *self, aug_tensor *t, const char *func) {
    augpy_state *st = augpy_state_from_obj(self);
    if (st == NULL) {
        aug_tensor_free(t);
        return NULL;
    }
    if (t == NULL) return augpy_raise(st, AUG_OK, func);
    return augpy_wrap(st, t);
}

/* A packed copy on t's own device (values, dtype, layout). */
static aug_tensor *packed_copy(const aug_tensor *t) {
    aug_tensor *c;
    AUGPY_CALL(c, aug_tensor_size(t), aug_tensor_to(t, t->device));
    return c;
}

/* ---- copies and casts ------------------------------------------------------------------ */

static PyObject *m_clone(PyObject *self, PyObject *Py_UNUSED(u)) {
    return wrap_or_raise(self, packed_copy(T(self)), "Tensor.clone");
}

static PyObject *m_deepcopy(PyObject *self, PyObject *Py_UNUSED(memo)) {
    return wrap_or_raise(self, packed_copy(T(self)), "Tensor.__deepcopy__");
}

AUGPY_METHOD_SIG(astype_method_sig, "astype", {"dtype"}, {"copy", "True"});

static PyObject *m_astype(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char func[] = "Tensor.astype";
    PyObject *a[2];
    augpy_state *st = augpy_state_from_obj(self);
    if (st == NULL || augpy_parse_args(func, args, nargs, kwnames, &astype_method_sig, a) < 0) return NULL;
    aug_dtype dt;
    if (augpy_parse_dtype(st, a[0], &dt, func) < 0) return NULL;
    int copy = a[1] ? PyObject_IsTrue(a[1]) : 1;
    if (copy < 0) return NULL;
    const aug_tensor *t = T(self);
    if (!copy && dt == t->dtype) return Py_NewRef(self);
    aug_tensor *out = NULL;
    aug_status s;
    AUGPY_CALL(s, aug_tensor_size(t), aug_cast(t, dt, &out));
    if (s != AUG_OK) return augpy_raise(st, s, func);
    if (t->layout[0]) aug_tensor_set_layout(out, t->layout);
    return augpy_wrap(st, out);
}

/* ---- Python values --------------------------------------------------------------------- */

/* Nested lists of host's values from dimension d on (idx holds the outer indices). */
static PyObject *list_of(augpy_state *st, const aug_tensor *host, int d, int64_t *idx) {
    if (d == host->ndim) {
        aug_scalar s;
        aug_status status = aug_tensor_get_item(host, idx, &s);
        if (status != AUG_OK) return augpy_raise(st, status, "Tensor.tolist");
        return augpy_scalar_to_py(&s);
    }
    PyObject *list = PyList_New((Py_ssize_t)host->shape[d]);
    if (list == NULL) return NULL;
    for (int64_t i = 0; i < host->shape[d]; i++) {
        idx[d] = i;
        PyObject *v = list_of(st, host, d + 1, idx);
        if (v == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, v);
    }
    return list;
}

static PyObject *m_tolist(PyObject *self, PyObject *Py_UNUSED(u)) {
    const aug_tensor *t = T(self);
    augpy_state *st = augpy_state_from_obj(self);
    if (st == NULL) return NULL;
    aug_tensor *host = NULL;
    if (t->device.type != AUG_DEVICE_CPU) {
        Py_BEGIN_ALLOW_THREADS
        host = aug_tensor_to(t, aug_cpu_device());
        Py_END_ALLOW_THREADS
        if (host == NULL) return augpy_raise(st, AUG_OK, "Tensor.tolist");
    }
    int64_t idx[AUG_MAX_DIMS] = {0};
    PyObject *res = list_of(st, host ? host : t, 0, idx);
    aug_tensor_free(host);
    return res;
}

/* item(): the one element; item(i): element i in C order; item(i0, ..., in-1): that
 * element (negative indices count from the back), as numpy.ndarray.item. */
static PyObject *m_item(PyObject *self, PyObject *args) {
    static const char func[] = "Tensor.item";
    const aug_tensor *t = T(self);
    const Py_ssize_t n = PyTuple_GET_SIZE(args);
    int64_t size = aug_tensor_size(t), idx[AUG_MAX_DIMS] = {0};
    if (n == 0 && size != 1) {
        char buf[AUG_MAX_DIMS * 22 + 4];
        PyErr_Format(PyExc_ValueError, "%s: can only convert a tensor of size 1 to a Python scalar, got shape %s",
                     func, aug_shape_str(t->ndim, t->shape, buf, sizeof buf));
        return NULL;
    }
    if (n == 1 || (n > 1 && n == t->ndim)) {
        for (Py_ssize_t k = 0; k < n; k++) {
            PyObject *item = PyTuple_GET_ITEM(args, k);
            if (PyBool_Check(item) || !PyIndex_Check(item)) {
                PyErr_Format(PyExc_TypeError, "%s: indices must be ints, got %.100s", func, Py_TYPE(item)->tp_name);
                return NULL;
            }
            Py_ssize_t i = PyNumber_AsSsize_t(item, PyExc_IndexError);
            if (i == -1 && PyErr_Occurred()) return NULL;
            int64_t extent = n == 1 ? size : t->shape[k];
            if (i < -extent || i >= extent) {
                PyErr_Format(PyExc_IndexError, "%s: index %zd is out of bounds for %s %lld", func, i,
                             n == 1 ? "size" : "axis of size", (long long)extent);
                return NULL;
            }
            idx[k] = i < 0 ? i + extent : i;
        }
        if (n == 1) { /* a flat index: unravel in C order */
            int64_t flat = idx[0];
            for (int d = t->ndim - 1; d >= 0; d--) {
                idx[d] = flat % t->shape[d];
                flat /= t->shape[d];
            }
        }
    } else if (n > 1) {
        PyErr_Format(PyExc_ValueError, "%s: incorrect number of indices for tensor (%zd for %d dimensions)", func, n,
                     t->ndim);
        return NULL;
    }
    aug_scalar s;
    aug_status status = aug_tensor_get_item(t, idx, &s);
    if (status != AUG_OK) return augpy_raise(augpy_state_from_obj(self), status, func);
    return augpy_scalar_to_py(&s);
}

/* ---- views over the same elements -------------------------------------------------------- */

static PyObject *get_T(PyObject *self, void *Py_UNUSED(c)) {
    int perm[AUG_MAX_DIMS];
    const int ndim = T(self)->ndim;
    for (int d = 0; d < ndim; d++) perm[d] = ndim - 1 - d;
    return wrap_or_raise(self, aug_tensor_permute(T(self), perm), "Tensor.T");
}

/* The axes of *dims or of one sequence argument (tuple, list, 1-d array). Returns
 * their number or -1. */
static Py_ssize_t axes_args(PyObject *args, PyObject **seq) {
    *seq = args;
    if (PyTuple_GET_SIZE(args) == 1) {
        PyObject *one = PyTuple_GET_ITEM(args, 0);
        int is_seq = PyTuple_Check(one) || PyList_Check(one);
        if (!is_seq && !PyLong_Check(one) && !PyUnicode_Check(one) && PySequence_Check(one)) {
            is_seq = PyObject_Length(one) >= 0;
            if (!is_seq) PyErr_Clear(); /* a 0-d array: one axis */
        }
        if (is_seq) *seq = one;
    }
    return PySequence_Size(*seq);
}

static PyObject *m_permute(PyObject *self, PyObject *args) {
    static const char func[] = "Tensor.permute";
    const int ndim = T(self)->ndim;
    PyObject *seq;
    Py_ssize_t n = axes_args(args, &seq);
    if (n < 0) return NULL;
    if (n != ndim) {
        PyErr_Format(PyExc_ValueError, "%s: the number of dims (%zd) does not match the tensor's %d dimensions",
                     func, n, ndim);
        return NULL;
    }
    int perm[AUG_MAX_DIMS], seen[AUG_MAX_DIMS] = {0};
    for (Py_ssize_t d = 0; d < n; d++) {
        PyObject *item = PySequence_GetItem(seq, d);
        if (item == NULL) return NULL;
        int r = parse_axis(item, ndim, &perm[d], func);
        Py_DECREF(item);
        if (r < 0) return NULL;
        if (seen[perm[d]]++) {
            PyErr_Format(PyExc_ValueError, "%s: repeated dim %d in permute", func, perm[d]);
            return NULL;
        }
    }
    return wrap_or_raise(self, aug_tensor_permute(T(self), perm), func);
}

/* A view of t keeping the dims with keep[d] (extent 1 dropped): squeeze. */
static aug_tensor *drop_dims(const aug_tensor *t, const int *drop) {
    aug_tensor *v = aug_tensor_view(t);
    if (v == NULL) return NULL;
    int o = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (drop[d]) continue;
        v->shape[o] = t->shape[d];
        v->strides[o] = t->strides[d];
        if (t->layout[0]) v->layout[o] = t->layout[d];
        o++;
    }
    v->ndim = o;
    memset(v->layout + o, 0, sizeof v->layout - (size_t)o);
    return v;
}

AUGPY_METHOD_SIG(squeeze_method_sig, "squeeze", {"axis|dim", "None"});

static PyObject *m_squeeze(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char func[] = "Tensor.squeeze";
    PyObject *a[1];
    if (augpy_parse_args(func, args, nargs, kwnames, &squeeze_method_sig, a) < 0) return NULL;
    const aug_tensor *t = T(self);
    int drop[AUG_MAX_DIMS] = {0};
    if (a[0] == NULL || a[0] == Py_None) {
        for (int d = 0; d < t->ndim; d++) drop[d] = t->shape[d] == 1;
    } else {
        int single = !PyTuple_Check(a[0]) && !PyList_Check(a[0]);
        Py_ssize_t n = single ? 1 : PySequence_Size(a[0]); /* a list subclass's __len__ may raise */
        if (n < 0) return NULL;
        for (Py_ssize_t k = 0; k < n; k++) {
            PyObject *item = single ? Py_NewRef(a[0]) : PySequence_GetItem(a[0], k);
            if (item == NULL) return NULL;
            int ax, r = parse_axis(item, t->ndim, &ax, func);
            Py_DECREF(item);
            if (r < 0) return NULL;
            if (drop[ax]) {
                PyErr_Format(PyExc_ValueError, "%s: duplicate value in 'axis'", func);
                return NULL;
            }
            if (t->shape[ax] != 1) {
                PyErr_Format(PyExc_ValueError,
                             "%s: cannot select an axis to squeeze out which has size not equal to one (axis %d "
                             "has size %lld)",
                             func, ax, (long long)t->shape[ax]);
                return NULL;
            }
            drop[ax] = 1;
        }
    }
    return wrap_or_raise(self, drop_dims(t, drop), func);
}

AUGPY_METHOD_SIG(unsqueeze_method_sig, "unsqueeze", {"axis|dim"});

static PyObject *m_unsqueeze(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char func[] = "Tensor.unsqueeze";
    PyObject *a[1];
    if (augpy_parse_args(func, args, nargs, kwnames, &unsqueeze_method_sig, a) < 0) return NULL;
    const aug_tensor *t = T(self);
    if (t->ndim >= AUG_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "%s: a tensor has at most %d dimensions", func, AUG_MAX_DIMS);
        return NULL;
    }
    int ax; /* numpy.expand_dims / torch.unsqueeze: an axis of the result */
    if (parse_axis(a[0], t->ndim + 1, &ax, func) < 0) return NULL;
    aug_index idx[AUG_MAX_DIMS + 1];
    memset(idx, 0, sizeof idx);
    for (int d = 0; d <= t->ndim; d++) {
        idx[d].kind = d == ax ? AUG_INDEX_NEWAXIS : AUG_INDEX_SLICE;
        idx[d].step = 1;
    }
    return wrap_or_raise(self, aug_tensor_index(t, t->ndim + 1, idx), func);
}

/* ravel: NumPy's, a C-contiguous 1-D result: a view of a contiguous tensor, else a copy. */
static PyObject *m_ravel(PyObject *self, PyObject *Py_UNUSED(u)) {
    static const char func[] = "Tensor.ravel";
    const aug_tensor *t = T(self);
    int64_t shape[1] = {aug_tensor_size(t)};
    aug_tensor *v;
    if (aug_tensor_is_contiguous(t)) {
        v = aug_tensor_reshape(t, 1, shape);
    } else {
        aug_tensor *packed = packed_copy(t);
        v = packed ? aug_tensor_reshape(packed, 1, shape) : NULL;
        aug_tensor_free(packed);
    }
    return wrap_or_raise(self, v, func);
}

static PyObject *m_flatten(PyObject *self, PyObject *Py_UNUSED(u)) {
    const aug_tensor *t = T(self);
    aug_tensor *packed = packed_copy(t);
    int64_t shape[1] = {aug_tensor_size(t)};
    aug_tensor *v = packed ? aug_tensor_reshape(packed, 1, shape) : NULL;
    aug_tensor_free(packed);
    return wrap_or_raise(self, v, "Tensor.flatten");
}

/* view(dtype): the same bytes as another dtype, NumPy's rules; view(*shape): torch's
 * reshape without a copy. */
static PyObject *view_dtype(PyObject *self, aug_dtype dt, const char *func) {
    const aug_tensor *t = T(self);
    const int64_t isz = aug_tensor_itemsize(t), nsz = aug_dtype_info(dt)->size;
    aug_tensor *v;
    if (isz == nsz) {
        v = aug_tensor_view(t);
        if (v) v->dtype = dt;
        return wrap_or_raise(self, v, func);
    }
    const int nd = t->ndim;
    if (nd == 0) {
        PyErr_Format(PyExc_ValueError,
                     "%s: changing the dtype of a 0-d tensor is only supported if the itemsize is unchanged (%s "
                     "has %lld bytes, %s %lld)",
                     func, aug_dtype_name(t->dtype), (long long)isz, aug_dtype_name(dt), (long long)nsz);
        return NULL;
    }
    const int empty = aug_tensor_size(t) == 0; /* no element to reach: any strides do (NumPy) */
    if (!empty && t->shape[nd - 1] != 1 && t->strides[nd - 1] != 1) {
        PyErr_Format(PyExc_ValueError,
                     "%s: to change to a dtype of a different size, the last axis must be contiguous (its stride "
                     "is %lld elements; use contiguous() first)",
                     func, (long long)t->strides[nd - 1]);
        return NULL;
    }
    int64_t last_bytes = t->shape[nd - 1] * isz;
    if (last_bytes % nsz != 0) {
        PyErr_Format(PyExc_ValueError,
                     "%s: when changing to a larger dtype, its size must be a divisor of the total size in bytes of "
                     "the last axis of the tensor (%lld bytes, %s has %lld)",
                     func, (long long)last_bytes, aug_dtype_name(dt), (long long)nsz);
        return NULL;
    }
    if (!empty && t->byte_offset % nsz != 0) {
        PyErr_Format(PyExc_ValueError, "%s: the tensor's first element (byte offset %lld) is not aligned for %s",
                     func, (long long)t->byte_offset, aug_dtype_name(dt));
        return NULL;
    }
    for (int d = 0; d < nd - 1; d++) {
        if (!empty && t->shape[d] > 1 && (t->strides[d] * isz) % nsz != 0) {
            PyErr_Format(PyExc_ValueError,
                         "%s: the stride of axis %d (%lld bytes) is not a multiple of the %lld-byte %s; use "
                         "contiguous() first",
                         func, d, (long long)(t->strides[d] * isz), (long long)nsz, aug_dtype_name(dt));
            return NULL;
        }
    }
    v = aug_tensor_view(t);
    if (v == NULL) return wrap_or_raise(self, NULL, func);
    v->dtype = dt;
    for (int d = 0; d < nd - 1; d++)
        v->strides[d] = t->shape[d] > 1 && (t->strides[d] * isz) % nsz == 0 ? t->strides[d] * isz / nsz : 1;
    v->shape[nd - 1] = last_bytes / nsz;
    v->strides[nd - 1] = 1;
    return wrap_or_raise(self, v, func);
}

static PyObject *m_view(PyObject *self, PyObject *args) {
    static const char func[] = "Tensor.view";
    augpy_state *st = augpy_state_from_obj(self);
    if (st == NULL) return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    if (n == 0) return wrap_or_raise(self, aug_tensor_view(T(self)), func);
    PyObject *first = PyTuple_GET_ITEM(args, 0);
    int shape_like = PyIndex_Check(first) || PyTuple_Check(first) || PyList_Check(first);
    if (!shape_like) {
        if (n != 1) {
            PyErr_Format(PyExc_TypeError, "%s: takes one dtype or the extents of a shape, got %zd arguments", func,
                         n);
            return NULL;
        }
        aug_dtype dt;
        if (augpy_parse_dtype(st, first, &dt, func) < 0) return NULL;
        return view_dtype(self, dt, func);
    }
    PyObject *shape_obj = n == 1 ? first : args;
    int64_t shape[AUG_MAX_DIMS];
    int ndim = augpy_parse_shape(shape_obj, shape, func);
    if (ndim < 0) return NULL;
    return wrap_or_raise(self, aug_tensor_reshape(T(self), ndim, shape), func);
}

/* ---- clip: augpy.math.clamp, or max / min with one bound ---------------------------------- */

AUGPY_METHOD_SIG(clip_method_sig, "clip", {"min|a_min|lo", "None"}, {"max|a_max|hi", "None"}, {"out", "None"});

static PyObject *m_clip(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char func[] = "Tensor.clip";
    PyObject *a[3];
    augpy_state *st = augpy_state_from_obj(self);
    if (st == NULL || augpy_parse_args(func, args, nargs, kwnames, &clip_method_sig, a) < 0) return NULL;
    PyObject *lo = a[0] == Py_None ? NULL : a[0], *hi = a[1] == Py_None ? NULL : a[1];
    PyObject *out = a[2] == Py_None ? NULL : a[2];
    PyObject *call[3];
    int n = 0;
    aug_op op;
    if (lo && hi) op = AUG_OP_CLAMP, call[n++] = lo, call[n++] = hi;
    else if (lo) op = AUG_OP_MAX, call[n++] = lo;
    else if (hi) op = AUG_OP_MIN, call[n++] = hi;
    else if (!out) return wrap_or_raise(self, packed_copy(T(self)), func); /* NumPy 2: a copy */
    else {
        aug_tensor *o;
        if (augpy_parse_out(st, out, &o, func) < 0 || augpy_copy_into(st, T(self), o, func) < 0) return NULL;
        return Py_NewRef(out);
    }
    if (out) call[n++] = out;
    return augpy_math_call(st, self, op, func, call, n, NULL);
}

/* ---- array interfaces ------------------------------------------------------------------ */

/* NumPy's typestr of dtype, or NULL with AttributeError (bfloat16 has none). */
static const char *typestr(aug_dtype dt, const char *attr) {
    switch (dt) {
    case AUG_BOOL: return "|b1";
    case AUG_INT8: return "|i1";
    case AUG_UINT8: return "|u1";
    case AUG_INT16: return "<i2";
    case AUG_UINT16: return "<u2";
    case AUG_INT32: return "<i4";
    case AUG_UINT32: return "<u4";
    case AUG_INT64: return "<i8";
    case AUG_UINT64: return "<u8";
    case AUG_FLOAT16: return "<f2";
    case AUG_FLOAT32: return "<f4";
    case AUG_FLOAT64: return "<f8";
    default:
        /* AttributeError, so NumPy and hasattr() fall back to __array__ / DLPack. */
        PyErr_Format(PyExc_AttributeError,
                     "Tensor.%s: %s has no NumPy typestr (use numpy(), __array__ or DLPack instead)", attr,
                     aug_dtype_name(dt));
        return NULL;
    }
}

static PyObject *interface_dict(const aug_tensor *t, const char *attr) {
    const char *ts = typestr(t->dtype, attr);
    if (ts == NULL) return NULL;
    PyObject *shape = augpy_int64_tuple(t->ndim, t->shape), *strides = Py_None;
    if (shape == NULL) return NULL;
    if (!aug_tensor_is_contiguous(t)) {
        int64_t bs[AUG_MAX_DIMS];
        for (int d = 0; d < t->ndim; d++) bs[d] = t->strides[d] * aug_tensor_itemsize(t);
        strides = augpy_int64_tuple(t->ndim, bs);
        if (strides == NULL) {
            Py_DECREF(shape);
            return NULL;
        }
    } else {
        Py_INCREF(strides);
    }
    PyObject *d = Py_BuildValue("{sNsss(NO)sNsi}", "shape", shape, "typestr", ts, "data",
                                PyLong_FromVoidPtr(aug_tensor_ptr(t)), Py_False, "strides", strides, "version", 3);
    if (d == NULL) return NULL;
    PyObject *descr = Py_BuildValue("[(ss)]", "", ts);
    if (descr == NULL || PyDict_SetItemString(d, "descr", descr) < 0) {
        Py_XDECREF(descr);
        Py_DECREF(d);
        return NULL;
    }
    Py_DECREF(descr);
    return d;
}

static PyObject *get_array_interface(PyObject *self, void *Py_UNUSED(c)) {
    const aug_tensor *t = T(self);
    if (t->device.type != AUG_DEVICE_CPU) {
        PyErr_Format(PyExc_AttributeError,
                     "Tensor.__array_interface__: the tensor is on cuda:%d, not the cpu (use "
                     "__cuda_array_interface__, or cpu() first)",
                     t->device.id);
        return NULL;
    }
    return interface_dict(t, "__array_interface__");
}

static PyObject *get_cuda_array_interface(PyObject *self, void *Py_UNUSED(c)) {
    const aug_tensor *t = T(self);
    if (t->device.type != AUG_DEVICE_CUDA) {
        PyErr_SetString(PyExc_AttributeError,
                        "Tensor.__cuda_array_interface__: the tensor is on the cpu (use __array_interface__)");
        return NULL;
    }
    PyObject *d = interface_dict(t, "__cuda_array_interface__");
    if (d == NULL) return NULL;
    /* The stream augpy queues this device's work on (the thread's current one): the
     * consumer orders its use of the data after it. CUDA's legacy default stream
     * (handle 0) is 1 in the protocol (0 is disallowed). */
    aug_stream *s = aug_current_stream(t->device);
    void *h = s ? aug_stream_handle(s) : NULL;
    PyObject *stream = h ? PyLong_FromVoidPtr(h) : PyLong_FromLong(1);
    if (stream == NULL || PyDict_SetItemString(d, "stream", stream) < 0) {
        Py_XDECREF(stream);
        Py_DECREF(d);
        return NULL;
    }
    Py_DECREF(stream);
    return d;
}

/* ---- str: the values, NumPy's format (the repr without NumPy) ----------------------------- */

PyObject *augpy_tensor_str(PyObject *self) {
    augpy_state *st = augpy_state_from_obj(self);
    if (st == NULL) return NULL;
    const aug_tensor *t = T(self);
    aug_tensor *tmp = NULL;
    PyObject *arr = augpy_tensor_to_numpy(st, t, NULL, "Tensor.__str__");
    if (arr == NULL && t->dtype == AUG_BFLOAT16 && PyErr_ExceptionMatches(PyExc_TypeError)) {
        /* without ml_dtypes: the exact float32 values */
        PyErr_Clear();
        if (aug_cast(t, AUG_FLOAT32, &tmp) != AUG_OK) return augpy_raise(st, AUG_OK, "Tensor.__str__");
        arr = augpy_tensor_to_numpy(st, tmp, NULL, "Tensor.__str__");
        aug_tensor_free(tmp);
    }
    if (arr == NULL && PyErr_ExceptionMatches(PyExc_ImportError)) { /* no NumPy: the repr */
        PyErr_Clear();
        return PyObject_Repr(self);
    }
    if (arr == NULL) return NULL;
    PyObject *s = PyObject_Str(arr);
    Py_DECREF(arr);
    return s;
}

/* ---- pickle ----------------------------------------------------------------------------- */

static PyObject *m_reduce(PyObject *self, PyObject *Py_UNUSED(u)) {
    static const char func[] = "Tensor.__reduce__";
    augpy_state *st = augpy_state_from_obj(self);
    if (st == NULL) return NULL;
    const aug_tensor *t = T(self);
    Py_ssize_t nbytes = (Py_ssize_t)(aug_tensor_size(t) * aug_tensor_itemsize(t));
    PyObject *bytes = PyBytes_FromStringAndSize(NULL, nbytes);
    if (bytes == NULL) return NULL;
    aug_status s;
    char *dst = PyBytes_AS_STRING(bytes);
    Py_BEGIN_ALLOW_THREADS
    s = aug_tensor_read(t, dst, (size_t)nbytes, 1);
    Py_END_ALLOW_THREADS
    if (s != AUG_OK) {
        Py_DECREF(bytes);
        return augpy_raise(st, s, func);
    }
    PyObject *module = PyType_GetModule(st->TensorType);
    PyObject *rebuild = module ? PyObject_GetAttrString(module, "_rebuild_tensor") : NULL;
    PyObject *shape = augpy_int64_tuple(t->ndim, t->shape), *device = augpy_device_str(t->device);
    PyObject *res = NULL;
    if (rebuild && shape && device)
        res = Py_BuildValue("(O(OOsOs))", rebuild, bytes, shape, aug_dtype_name(t->dtype), device, t->layout);
    Py_XDECREF(rebuild);
    Py_XDECREF(shape);
    Py_XDECREF(device);
    Py_DECREF(bytes);
    return res;
}

/* _rebuild_tensor(data, shape, dtype, device, layout): pickle's reconstructor. */
AUGPY_SIG(rebuild_tensor_sig, "_rebuild_tensor", {"data"}, {"shape"}, {"dtype"}, {"device"}, {"layout"});

static PyObject *fn_rebuild(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char func[] = "augpy._rebuild_tensor";
    PyObject *a[5];
    augpy_state *st = augpy_state_from_module(module);
    if (st == NULL || augpy_parse_args(func, args, nargs, kwnames, &rebuild_tensor_sig, a) < 0) return NULL;
    int64_t shape[AUG_MAX_DIMS];
    int ndim = augpy_parse_shape(a[1], shape, func);
    aug_dtype dt;
    aug_device dev;
    if (ndim < 0 || augpy_parse_dtype(st, a[2], &dt, func) < 0 || augpy_parse_device(a[3], &dev, func) < 0)
        return NULL;
    if (!PyUnicode_Check(a[4])) {
        PyErr_Format(PyExc_TypeError, "%s: layout must be a str, got %.100s", func, Py_TYPE(a[4])->tp_name);
        return NULL;
    }
    const char *layout = augpy_layout_chars(a[4], func); /* one byte per character, as Tensor.layout */
    if (layout == NULL) return NULL;
    Py_buffer buf;
    if (PyObject_GetBuffer(a[0], &buf, PyBUF_SIMPLE) < 0) return NULL;
    aug_tensor *t = aug_tensor_empty(ndim, shape, dt, dev);
    aug_status s = t ? AUG_OK : aug_last_status();
    if (t && (size_t)buf.len != (size_t)(aug_tensor_size(t) * aug_tensor_itemsize(t))) {
        PyBuffer_Release(&buf);
        aug_tensor_free(t);
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes of data do not fill the shape and dtype", func, buf.len);
        return NULL;
    }
    if (t) {
        const void *src = buf.buf;
        size_t len = (size_t)buf.len;
        Py_BEGIN_ALLOW_THREADS
        s = aug_tensor_write(t, src, len);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&buf);
    if (s == AUG_OK && layout[0]) s = aug_tensor_set_layout(t, layout);
    if (s != AUG_OK) {
        aug_tensor_free(t);
        return augpy_raise(st, s, func);
    }
    return augpy_wrap(st, t);
}

static PyMethodDef functions[] = {
    {"_rebuild_tensor", (PyCFunction)(void (*)(void))fn_rebuild, METH_FASTCALL | METH_KEYWORDS,
     "pickle's reconstructor of a Tensor: a new packed tensor on `device` ('cpu' or 'cuda:N';\n"
     "ValueError when that device does not exist here) with the C-ordered bytes `data`."},
    {NULL, NULL, 0, NULL}};

int augpy_init_tensor_methods(PyObject *module, augpy_state *st) {
    (void)st;
    static augpy_sig *const sigs[] = {&rebuild_tensor_sig, NULL};
    if (augpy_sign_methods(functions, sigs) < 0) return -1;
    return PyModule_AddFunctions(module, functions);
}

augpy_sig *const augpy_tensor_extra_sigs[] = {&astype_method_sig, &squeeze_method_sig, &unsqueeze_method_sig,
                                              &clip_method_sig, NULL};

PyMethodDef augpy_tensor_extra_methods[] = {
    {"astype", (PyCFunction)(void (*)(void))m_astype, METH_FASTCALL | METH_KEYWORDS,
     "A new tensor of `dtype` with the values saturate_cast (as augpy.cast: out-of-range values\n"
     "clamp, NaN becomes 0 in integers). copy=False returns the tensor itself when it already has\n"
     "that dtype."},
    {"clone", m_clone, METH_NOARGS,
     "clone($self, /)\n--\n\nA packed (C-contiguous) copy on the same device, with the layout (on a CUDA\n"
     "device queued on the current stream, as an op)."},
    {"copy", m_clone, METH_NOARGS,
     "copy($self, /)\n--\n\nA packed (C-contiguous) copy on the same device, with the layout (= clone(); on a\n"
     "CUDA device queued on the current stream, as an op)."},
    {"__copy__", m_clone, METH_NOARGS, "__copy__($self, /)\n--\n\ncopy.copy(): a packed copy (= clone())."},
    {"__deepcopy__", m_deepcopy, METH_O,
     "__deepcopy__($self, memo, /)\n--\n\ncopy.deepcopy(): a packed copy (= clone())."},
    {"tolist", m_tolist, METH_NOARGS,
     "tolist($self, /)\n--\n\nThe values as nested lists of Python bool/int/float (a 0-d tensor: one\n"
     "value), as numpy.ndarray.tolist."},
    {"item", m_item, METH_VARARGS,
     "item($self, /, *index)\n--\n\n"
     "One value as a Python bool/int/float, as numpy.ndarray.item: item() needs exactly one element\n"
     "(ValueError otherwise), item(i) takes element i in C order, item(i0, ..., in-1) that element."},
    {"permute", m_permute, METH_VARARGS,
     "permute($self, /, *dims)\n--\n\n"
     "A view with the dimensions permuted, as torch.permute: every dimension once (separate ints\n"
     "or one sequence, negative counted from the end). Same as transpose(*dims) with all axes."},
    {"squeeze", (PyCFunction)(void (*)(void))m_squeeze, METH_FASTCALL | METH_KEYWORDS,
     "A view without the extent-1 dimensions (axis None), or without the given ones (an int or a\n"
     "tuple; ValueError for an axis whose extent is not 1). Layout letters follow."},
    {"unsqueeze", (PyCFunction)(void (*)(void))m_unsqueeze, METH_FASTCALL | METH_KEYWORDS,
     "A view with a new extent-1 dimension at `axis` of the result (-ndim-1 <= axis <= ndim), as\n"
     "torch.unsqueeze / numpy.expand_dims. Clears the layout."},
    {"ravel", m_ravel, METH_NOARGS,
     "ravel($self, /)\n--\n\n"
     "The elements as a C-contiguous 1-D tensor, as numpy.ravel: a view of a contiguous tensor,\n"
     "else a packed copy (reshape(-1) / view(-1) never copy)."},
    {"flatten", m_flatten, METH_NOARGS,
     "flatten($self, /)\n--\n\nThe elements as a new 1-D tensor in C order: always a copy (numpy.ndarray.flatten)."},
    {"view", m_view, METH_VARARGS,
     "view($self, /, *args)\n--\n\n"
     "view(dtype): the same memory as another dtype, NumPy's rules: with the same itemsize any\n"
     "strides; otherwise the last axis must be contiguous and its bytes a multiple of the new\n"
     "itemsize (its extent scales), and the other strides multiples of it. view(*shape): torch's\n"
     "view, a reshape without a copy (contiguous tensors only). view(): the same view."},
    {"clip", (PyCFunction)(void (*)(void))m_clip, METH_FASTCALL | METH_KEYWORDS,
     "Values limited to [min, max], as augpy.math.clamp (promoted type, NaN propagates); with one\n"
     "bound augpy.math.max / min, with none a copy. Bounds are numbers, tensors or arrays."},
    {"__reduce__", m_reduce, METH_NOARGS,
     "__reduce__($self, /)\n--\n\n"
     "pickle support: the values (C order, a CUDA tensor's copied to the host), shape, dtype,\n"
     "device and layout. A CUDA tensor unpickles onto the same device index, ValueError when\n"
     "there is no such device."},
    {NULL, NULL, 0, NULL}};

PyGetSetDef augpy_tensor_extra_getset[] = {
    {"T", get_T, NULL, "The view with the dimensions reversed (numpy.ndarray.T).", NULL},
    {"__array_interface__", get_array_interface, NULL,
     "NumPy's array interface (version 3) of a CPU tensor: shape, typestr, data (ptr, readonly),\n"
     "strides in bytes (None when C-contiguous), descr. AttributeError on a CUDA tensor and for\n"
     "bfloat16 (no NumPy typestr), so consumers fall back to __array__ / DLPack.",
     NULL},
    {"__cuda_array_interface__", get_cuda_array_interface, NULL,
     "The CUDA array interface (version 3) of a CUDA tensor: as __array_interface__ plus `stream`,\n"
     "the calling thread's current augpy stream of the device (1: CUDA's legacy default stream) on\n"
     "which the consumer must order its use of the data. AttributeError on a CPU tensor and for\n"
     "bfloat16.",
     NULL},
    {NULL, NULL, NULL, NULL, NULL}};
