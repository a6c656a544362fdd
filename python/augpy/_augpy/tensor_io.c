/* _augpy/tensor_io.c: moving tensor data in and out of Python.
 *
 * The buffer protocol export of CPU tensors (any strides; bool as '?', float16
 * as 'e'; bfloat16 has no PEP 3118 format and raises BufferError), the numpy
 * conversions (Tensor.numpy, __array__, tensor_to_array) and the creation
 * functions array_to_tensor and empty_like, and moving tensors between devices
 * (to / cpu / cuda). Every copy is one aug_copy between the tensor and a
 * zero-copy view of the other side's buffer (convert.c), across devices where
 * they differ; numpy(blocking=False) of a CUDA tensor queues the copy into
 * page-locked memory (a HostBuffer the array keeps alive) and returns at once. */
#include <string.h>
#include "augpy.h"

static inline aug_tensor *T(PyObject *self) { return ((AugTensorObject *)self)->t; }

/* ---- buffer protocol ------------------------------------------------------------------ */

static const char *buffer_format(aug_dtype dt) {
    switch (dt) {
    case AUG_BOOL: return "?";
    case AUG_INT8: return "b";
    case AUG_INT16: return "h";
    case AUG_INT32: return "i";
    case AUG_INT64: return "q";
    case AUG_UINT8: return "B";
    case AUG_UINT16: return "H";
    case AUG_UINT32: return "I";
    case AUG_UINT64: return "Q";
    case AUG_FLOAT16: return "e";
    case AUG_FLOAT32: return "f";
    case AUG_FLOAT64: return "d";
    default: return NULL;
    }
}

int augpy_tensor_getbuffer(PyObject *self, Py_buffer *view, int flags) {
    const aug_tensor *t = T(self);
    view->obj = NULL;
    if (t->device.type != AUG_DEVICE_CPU) {
        PyErr_Format(PyExc_BufferError,
                     "Tensor: only CPU tensors support the buffer protocol, this one is on cuda:%d; "
                     "use numpy() or DLPack",
                     t->device.id);
        return -1;
    }
    const char *format = buffer_format(t->dtype);
    if (format == NULL) {
        PyErr_Format(PyExc_BufferError,
                     "Tensor: %s tensors cannot be exported through the buffer protocol (no PEP 3118 "
                     "format); use numpy() with ml_dtypes installed, or cast first",
                     aug_dtype_name(t->dtype));
        return -1;
    }
    int ndim = t->ndim;
    Py_ssize_t itemsize = (Py_ssize_t)aug_tensor_itemsize(t);
    Py_ssize_t *arrays = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(2 * ndim + 1));
    if (arrays == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    static char empty_data[1]; /* stands in for the NULL data of an empty tensor */
    void *ptr = aug_tensor_ptr(t);
    view->buf = ptr ? ptr : empty_data;
    view->itemsize = itemsize;
    view->len = (Py_ssize_t)aug_tensor_size(t) * itemsize;
    view->readonly = 0;
    view->ndim = ndim;
    view->format = (flags & PyBUF_FORMAT) ? (char *)format : NULL;
    view->shape = arrays;
    view->strides = arrays + ndim;
    view->suboffsets = NULL;
    view->internal = arrays;
    for (int d = 0; d < ndim; d++) {
        arrays[d] = (Py_ssize_t)t->shape[d];
        arrays[ndim + d] = (Py_ssize_t)(t->strides[d] * itemsize);
    }
    const char *need = NULL;
    if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS) need = "F";
    else if ((flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS) need = "C";
    else if ((flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS) need = "A";
    else if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES) need = "C";
    if (need && !PyBuffer_IsContiguous(view, need[0])) {
        PyMem_Free(arrays);
        PyErr_Format(PyExc_BufferError, "Tensor: the tensor is not %s-contiguous; call contiguous() first",
                     need[0] == 'F' ? "Fortran" : need[0] == 'A' ? "C- or Fortran" : "C");
        return -1;
    }
    if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES) view->strides = NULL;
    if ((flags & PyBUF_ND) != PyBUF_ND) view->shape = NULL;
    view->obj = Py_NewRef(self);
    ((AugTensorObject *)self)->exports++;
    return 0;
}

void augpy_tensor_releasebuffer(PyObject *self, Py_buffer *view) {
    PyMem_Free(view->internal);
    view->internal = NULL;
    ((AugTensorObject *)self)->exports--;
}

/* ---- numpy --------------------------------------------------------------------------- */

/* Copy t into the writable buffer of arr (same shape). Returns 0 or -1. */
static int copy_to_buffer(augpy_state *st, const aug_tensor *t, PyObject *arr, const char *func) {
    augpy_bufview view;
    if (augpy_bufview_get(st, arr, 1, &view, func) < 0) return -1;
    int r = augpy_copy_into(st, t, view.t, func);
    augpy_bufview_release(&view);
    return r;
}

static int same_shape(const aug_tensor *a, const aug_tensor *b) {
    if (a->ndim != b->ndim) return 0;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d]) return 0;
    return 1;
}

PyObject *augpy_tensor_to_numpy(augpy_state *st, const aug_tensor *t, PyObject *array, const char *func) {
    PyObject *np = augpy_get_numpy(st);
    if (np == NULL) return NULL;
    PyObject *arr = NULL, *nptype = NULL, *shape = NULL;
    if (array == NULL || array == Py_None) {
        nptype = augpy_numpy_type(st, t->dtype, func);
        shape = augpy_int64_tuple(t->ndim, t->shape);
        if (nptype && shape) arr = PyObject_CallMethod(np, "empty", "OO", shape, nptype);
        if (arr && copy_to_buffer(st, t, arr, func) < 0) Py_CLEAR(arr);
        goto done;
    }
    augpy_bufview view;
    if (augpy_bufview_get(st, array, 1, &view, func) < 0) return NULL;
    if (same_shape(view.t, t)) {
        int r = augpy_copy_into(st, t, view.t, func);
        augpy_bufview_release(&view);
        if (r == 0) arr = PyObject_CallMethod(np, "asarray", "(O)", array);
        goto done;
    }
    /* A raw byte buffer, or a packed buffer of t's dtype, large enough: reinterpret. */
    int64_t nbytes = aug_tensor_size(t) * aug_tensor_itemsize(t);
    int raw = PyBuffer_IsContiguous(&view.buf, 'C') && (view.buf.itemsize == 1 || view.t->dtype == t->dtype) &&
              view.buf.len >= nbytes;
    if (!raw) {
        PyObject *want = augpy_int64_tuple(t->ndim, t->shape), *got = augpy_int64_tuple(view.t->ndim, view.t->shape);
        if (want && got)
            PyErr_Format(PyExc_ValueError,
                         "%s: array of shape %R does not match the tensor's shape %R (and is not a packed buffer "
                         "of at least %lld bytes)",
                         func, got, want, (long long)nbytes);
        Py_XDECREF(want);
        Py_XDECREF(got);
        augpy_bufview_release(&view);
        return NULL;
    }
    augpy_bufview_release(&view);
    nptype = augpy_numpy_type(st, t->dtype, func);
    shape = augpy_int64_tuple(t->ndim, t->shape);
    if (nptype == NULL || shape == NULL) goto done;
    PyObject *flat = PyObject_CallMethod(np, "frombuffer", "OOL", array, nptype, (long long)aug_tensor_size(t));
    if (flat == NULL) goto done;
    arr = PyObject_CallMethod(flat, "reshape", "(O)", shape);
    Py_DECREF(flat);
    if (arr && copy_to_buffer(st, t, arr, func) < 0) Py_CLEAR(arr);
done:
    Py_XDECREF(nptype);
    Py_XDECREF(shape);
    return arr;
}

/* ---- page-locked host buffers -------------------------------------------------------- */

/* Page-locked host memory of a device (aug_host_alloc), exported through the
 * buffer protocol as bytes; freed when the last array viewing it goes. */
typedef struct {
    PyObject_HEAD
    aug_device device;
    void *ptr;
    Py_ssize_t len;
} HostBufferObject;

static int hostbuffer_getbuffer(PyObject *self, Py_buffer *view, int flags) {
    HostBufferObject *b = (HostBufferObject *)self;
    return PyBuffer_FillInfo(view, self, b->ptr, b->len, 0, flags);
}

static void hostbuffer_dealloc(PyObject *self) {
    HostBufferObject *b = (HostBufferObject *)self;
    PyTypeObject *tp = Py_TYPE(self);
    if (b->ptr) aug_host_free(b->device, b->ptr);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyType_Slot hostbuffer_slots[] = {
    {Py_tp_doc, "Page-locked host memory filled by numpy(blocking=False); synchronise the stream before reading."},
    {Py_tp_dealloc, hostbuffer_dealloc},
    {Py_bf_getbuffer, hostbuffer_getbuffer},
    {0, NULL}};

static PyType_Spec hostbuffer_spec = {"augpy._augpy.HostBuffer", sizeof(HostBufferObject), 0,
                                      Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
                                      hostbuffer_slots};

/* numpy(blocking=False) of a CUDA tensor: a new array over page-locked memory the
 * copy is queued into on the current stream. */
static PyObject *numpy_async(augpy_state *st, const aug_tensor *t, const char *func) {
    PyObject *np = augpy_get_numpy(st);
    if (np == NULL) return NULL;
    size_t nbytes = (size_t)(aug_tensor_size(t) * aug_tensor_itemsize(t));
    HostBufferObject *b = PyObject_New(HostBufferObject, st->HostBufferType);
    if (b == NULL) return NULL;
    b->device = t->device;
    b->len = (Py_ssize_t)nbytes;
    b->ptr = aug_host_alloc(t->device, nbytes ? nbytes : 1);
    PyObject *arr = NULL, *nptype = NULL, *shape = NULL, *flat = NULL;
    if (b->ptr == NULL) {
        augpy_raise(st, aug_last_status(), func);
        goto done;
    }
    aug_status status = aug_tensor_read(t, b->ptr, nbytes, 0);
    if (status != AUG_OK) {
        augpy_raise(st, status, func);
        goto done;
    }
    nptype = augpy_numpy_type(st, t->dtype, func);
    shape = augpy_int64_tuple(t->ndim, t->shape);
    if (nptype && shape) flat = PyObject_CallMethod(np, "frombuffer", "OOL", (PyObject *)b, nptype,
                                                    (long long)aug_tensor_size(t));
    if (flat) arr = PyObject_CallMethod(flat, "reshape", "(O)", shape);
done:
    Py_XDECREF(flat);
    Py_XDECREF(nptype);
    Py_XDECREF(shape);
    Py_DECREF(b);
    return arr;
}

PyObject *augpy_tensor_numpy_method(PyObject *self, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"array", "blocking", NULL};
    PyObject *array = Py_None;
    int blocking = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|Op:numpy", kwlist, &array, &blocking)) return NULL;
    augpy_state *st = augpy_state_from_obj(self);
    if (st == NULL) return NULL;
    /* CPU copies are synchronous, so blocking=False returns finished data as well;
     * into a caller's array the copy is synchronous too (its memory is pageable). */
    if (!blocking && T(self)->device.type != AUG_DEVICE_CPU && array == Py_None)
        return numpy_async(st, T(self), "Tensor.numpy");
    return augpy_tensor_to_numpy(st, T(self), array, "Tensor.numpy");
}

/* ---- devices ---------------------------------------------------------------------------- */

/* t on dev: t itself when it is there, else a copy (aug_tensor_to). */
static PyObject *move_to(PyObject *self, aug_device dev, const char *func) {
    const aug_tensor *t = T(self);
    if (t->device.type == dev.type && t->device.id == dev.id) return Py_NewRef(self);
    augpy_state *st = augpy_state_from_obj(self);
    if (st == NULL) return NULL;
    aug_tensor *moved;
    Py_BEGIN_ALLOW_THREADS
    moved = aug_tensor_to(t, dev);
    Py_END_ALLOW_THREADS
    if (moved == NULL) return augpy_raise(st, aug_last_status(), func);
    return augpy_wrap(st, moved);
}

/* Whether obj names a device rather than a dtype: an int (a device_id) or a
 * str starting with "cpu" / "cuda" (dtype names never do). */
static int device_like(PyObject *obj) {
    if (PyLong_Check(obj) && !PyBool_Check(obj)) return 1;
    if (!PyUnicode_Check(obj)) return 0;
    const char *s = PyUnicode_AsUTF8(obj);
    if (s == NULL) {
        PyErr_Clear();
        return 1; /* the device parser reports it */
    }
    return strncmp(s, "cpu", 3) == 0 || strncmp(s, "cuda", 4) == 0;
}

AUGPY_METHOD_SIG(to_method_sig, "to", {"device", "None"}, {"dtype", "None"});

PyObject *augpy_tensor_to_method(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char func[] = "Tensor.to";
    PyObject *a[2] = {NULL, NULL};
    if (augpy_parse_args(func, args, nargs, kwnames, &to_method_sig, a) < 0) return NULL;
    augpy_state *st = augpy_state_from_obj(self);
    if (st == NULL) return NULL;
    /* torch's to(dtype): a dtype in the device's place (anything else reports as a device) */
    if (nargs >= 1 && a[1] == NULL && a[0] != Py_None && !device_like(a[0])) {
        aug_dtype probe;
        if (augpy_parse_dtype(st, a[0], &probe, func) == 0) {
            a[1] = a[0];
            a[0] = NULL;
        } else {
            PyErr_Clear();
        }
    }
    aug_device dev = T(self)->device;
    if (a[0] && a[0] != Py_None && augpy_parse_device(a[0], &dev, func) < 0) return NULL;
    if (a[1] == NULL || a[1] == Py_None) return move_to(self, dev, func);
    aug_dtype dt;
    if (augpy_parse_dtype(st, a[1], &dt, func) < 0) return NULL;
    if (dt == T(self)->dtype) return move_to(self, dev, func);
    /* cast where the data is, then move the (packed) result */
    aug_tensor *cast = NULL;
    aug_status status;
    AUGPY_CALL(status, aug_tensor_size(T(self)), aug_cast(T(self), dt, &cast));
    if (status != AUG_OK) return augpy_raise(st, status, func);
    if (T(self)->layout[0]) aug_tensor_set_layout(cast, T(self)->layout);
    PyObject *obj = augpy_wrap(st, cast);
    if (obj == NULL) return NULL;
    PyObject *res = move_to(obj, dev, func);
    Py_DECREF(obj);
    return res;
}

PyObject *augpy_tensor_cpu_method(PyObject *self, PyObject *Py_UNUSED(u)) {
    return move_to(self, aug_cpu_device(), "Tensor.cpu");
}

AUGPY_METHOD_SIG(cuda_method_sig, "cuda", {"device_id", "0"});

/* the specs of tensor.c's methods implemented here */
augpy_sig *const augpy_tensor_io_sigs[] = {&to_method_sig, &cuda_method_sig, NULL};

PyObject *augpy_tensor_cuda_method(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char func[] = "Tensor.cuda";
    PyObject *a[1] = {NULL};
    if (augpy_parse_args(func, args, nargs, kwnames, &cuda_method_sig, a) < 0) return NULL;
    int id = 0;
    if (a[0] && a[0] != Py_None && augpy_parse_int(a[0], &id, func, "device_id") < 0) return NULL;
    aug_device dev = {AUG_DEVICE_CUDA, id};
    if (id < 0 || id >= aug_device_count(AUG_DEVICE_CUDA)) {
        const char *why = aug_cuda_status();
        if (aug_device_count(AUG_DEVICE_CUDA) == 0)
            PyErr_Format(PyExc_ValueError, "%s: no CUDA device (%s)", func, why[0] ? why : "none present");
        else
            PyErr_Format(PyExc_ValueError, "%s: invalid device_id %d (the cuda backend has devices 0 to %d)", func,
                         id, aug_device_count(AUG_DEVICE_CUDA) - 1);
        return NULL;
    }
    return move_to(self, dev, func);
}

PyObject *augpy_tensor_array_method(PyObject *self, PyObject *args, PyObject *kwargs) {
    static const char *func = "Tensor.__array__";
    static char *kwlist[] = {"dtype", "copy", NULL};
    PyObject *dtype = Py_None, *copy = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OO:__array__", kwlist, &dtype, &copy)) return NULL;
    augpy_state *st = augpy_state_from_obj(self);
    if (st == NULL) return NULL;
    PyObject *arr;
    if (copy == Py_False) {
        /* A view is possible through the buffer protocol (CPU, not bfloat16). */
        PyObject *np = augpy_get_numpy(st);
        if (np == NULL) return NULL;
        PyObject *mv = PyMemoryView_FromObject(self);
        if (mv == NULL) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "%s: a copy is required for a %s tensor on %s (copy=False given)",
                         func, aug_dtype_name(T(self)->dtype),
                         T(self)->device.type == AUG_DEVICE_CPU ? "the cpu" : "a cuda device");
            return NULL;
        }
        arr = PyObject_CallMethod(np, "asarray", "(O)", mv);
        Py_DECREF(mv);
    } else {
        arr = augpy_tensor_to_numpy(st, T(self), NULL, func);
    }
    if (arr == NULL || dtype == Py_None) return arr;
    PyObject *kw = Py_BuildValue("{sO}", "copy", Py_False);
    PyObject *meth = PyObject_GetAttrString(arr, "astype");
    PyObject *targs = PyTuple_Pack(1, dtype);
    PyObject *res = (kw && meth && targs) ? PyObject_Call(meth, targs, kw) : NULL;
    Py_XDECREF(kw);
    Py_XDECREF(meth);
    Py_XDECREF(targs);
    Py_DECREF(arr);
    return res;
}

/* ---- module functions ------------------------------------------------------------------ */

static PyObject *array_to_tensor(PyObject *module, PyObject *args, PyObject *kwargs) {
    static const char *func = "array_to_tensor";
    static char *kwlist[] = {"array", "device_id", "tensor", NULL};
    PyObject *array, *second = Py_None, *tensor = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OO:array_to_tensor", kwlist, &array, &second, &tensor))
        return NULL;
    augpy_state *st = augpy_state_from_module(module);
    /* The seed's overloads: array_to_tensor(array, device_id) / (array, tensor). */
    if (second != Py_None && augpy_is_tensor(st, second)) {
        if (tensor != Py_None) {
            PyErr_Format(PyExc_TypeError, "%s: got two destination tensors", func);
            return NULL;
        }
        tensor = second;
        second = Py_None;
    }
    if (tensor != Py_None) {
        aug_tensor *dst = augpy_tensor_arg(st, tensor, func, "tensor");
        if (dst == NULL) return NULL;
        if (second != Py_None) {
            PyErr_Format(PyExc_TypeError, "%s: give either device_id or tensor, not both", func);
            return NULL;
        }
        augpy_bufview view;
        if (augpy_bufview_get(st, array, 0, &view, func) < 0) return NULL;
        int r = augpy_copy_into(st, view.t, dst, func);
        augpy_bufview_release(&view);
        return r < 0 ? NULL : Py_NewRef(tensor);
    }
    aug_device dev = aug_default_device();
    if (second != Py_None && augpy_parse_device_id(second, 0, &dev, func) < 0) return NULL;
    aug_tensor *t = augpy_tensor_from_buffer(st, array, dev, func);
    return t ? augpy_wrap(st, t) : NULL;
}

static PyObject *tensor_to_array(PyObject *module, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"tensor", "array", NULL};
    PyObject *tensor, *array = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:tensor_to_array", kwlist, &tensor, &array)) return NULL;
    augpy_state *st = augpy_state_from_module(module);
    aug_tensor *t = augpy_tensor_arg(st, tensor, "tensor_to_array", "tensor");
    if (t == NULL) return NULL;
    return augpy_tensor_to_numpy(st, t, array, "tensor_to_array");
}

static PyObject *empty_like(PyObject *module, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"tensor", "dtype", NULL};
    PyObject *tensor, *dtype_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:empty_like", kwlist, &tensor, &dtype_obj)) return NULL;
    augpy_state *st = augpy_state_from_module(module);
    aug_tensor *t = augpy_tensor_arg(st, tensor, "empty_like", "tensor");
    if (t == NULL) return NULL;
    aug_dtype dt = AUG_DTYPE_AUTO;
    if (dtype_obj != Py_None && augpy_parse_dtype(st, dtype_obj, &dt, "empty_like") < 0) return NULL;
    aug_tensor *res = aug_tensor_empty_like(t, dt);
    if (res == NULL) return augpy_raise(st, AUG_OK, "empty_like");
    return augpy_wrap(st, res);
}

static PyMethodDef io_functions[] = {
    {"array_to_tensor", (PyCFunction)(void (*)(void))array_to_tensor, METH_VARARGS | METH_KEYWORDS,
     "array_to_tensor(array, device_id=0, tensor=None)\n--\n\n"
     "Copy a buffer-protocol object or array-like (any strides, any supported dtype) into a new\n"
     "tensor on the given device, or into `tensor` (broadcast, saturate_cast), which is returned.\n"
     "The seed's form array_to_tensor(array, tensor) also works. `array` may be changed or freed\n"
     "as soon as this returns; on a CUDA device the copy is then queued on the current stream\n"
     "(up to 4 MiB staged through page-locked memory, no host wait), which ops and reads on that\n"
     "stream follow (another stream: record an event)."},
    {"tensor_to_array", (PyCFunction)(void (*)(void))tensor_to_array, METH_VARARGS | METH_KEYWORDS,
     "tensor_to_array(tensor, array=None)\n--\n\n"
     "Copy a tensor into a new numpy array, or into the writable buffer `array`: one of the\n"
     "tensor's shape (values saturate-cast to its dtype), or a packed byte buffer / buffer of the\n"
     "tensor's dtype with enough room (viewed with the tensor's shape and dtype). Returns the array."},
    {"empty_like", (PyCFunction)(void (*)(void))empty_like, METH_VARARGS | METH_KEYWORDS,
     "empty_like(tensor, dtype=None)\n--\n\n"
     "A new uninitialised C-contiguous tensor with the shape, device and (unless given) dtype\n"
     "of `tensor`."},
    {NULL, NULL, 0, NULL}};

int augpy_init_tensor_io(PyObject *module, augpy_state *st) {
    st->HostBufferType = (PyTypeObject *)PyType_FromModuleAndSpec(module, &hostbuffer_spec, NULL);
    if (st->HostBufferType == NULL) return -1;
    return PyModule_AddFunctions(module, io_functions);
}
