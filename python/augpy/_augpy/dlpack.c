/* _augpy/dlpack.c: DLPack interop, zero copy in both directions (semantics §14).
 *
 * Export (Tensor.__dlpack__, export_dltensor): the capsule holds a
 * DLManagedTensor(Versioned) whose manager_ctx is a new aug_tensor view of the
 * tensor, so the memory stays alive until the consumer calls the deleter, which
 * frees that view (storage reference counts are atomic, so no GIL is needed
 * there). Like NumPy, `data` is the address of the first element and
 * byte_offset is 0. An unconsumed capsule deletes the tensor when it dies; a
 * consumer renames it to "used_..." first.
 *
 * Import (from_dlpack, import_dltensor): the capsule is renamed to
 * "used_dltensor[_versioned]" and its memory is wrapped with aug_storage_wrap,
 * whose deleter calls the producer's deleter exactly once when the last view
 * goes, holding the GIL when the interpreter is still alive (the producer's
 * deleter may touch Python objects, e.g. NumPy's decrefs its array).
 * Decision: augpy tensors are always writable, so a versioned capsule flagged
 * read-only is imported as a copy (its memory is released right away) rather
 * than as a writable alias of memory the producer declared immutable. */
#include <stdlib.h>
#include <string.h>
#include "augpy.h"
#include "dlpack.h"

static const char NAME_LEGACY[] = "dltensor";
static const char NAME_VERSIONED[] = "dltensor_versioned";
static const char USED_LEGACY[] = "used_dltensor";
static const char USED_VERSIONED[] = "used_dltensor_versioned";

static inline aug_tensor *T(PyObject *self) { return ((AugTensorObject *)self)->t; }

/* ---- export ------------------------------------------------------------------------- */

/* One allocation: the managed struct followed by shape and strides. */
typedef struct {
    union {
        DLManagedTensor legacy;
        DLManagedTensorVersioned versioned;
    } m;
    int64_t shape[AUG_MAX_DIMS];
    int64_t strides[AUG_MAX_DIMS];
} export_block;

static void export_deleter_legacy(DLManagedTensor *self) {
    aug_tensor_free((aug_tensor *)self->manager_ctx);
    free(self);
}

static void export_deleter_versioned(DLManagedTensorVersioned *self) {
    aug_tensor_free((aug_tensor *)self->manager_ctx);
    free(self);
}

/* Capsule destructors: delete the tensor unless a consumer took it ("used_..."),
 * then free a copied custom name (kept in the capsule's context). */
static void capsule_destructor_impl(PyObject *capsule, int versioned, int destruct) {
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    const char *name = PyCapsule_GetName(capsule);
    void *custom_name = PyCapsule_GetContext(capsule);
    if (destruct && name != NULL && strncmp(name, "used_", 5) != 0) {
        void *ptr = PyCapsule_GetPointer(capsule, name);
        if (ptr == NULL) {
            PyErr_WriteUnraisable(capsule);
        } else if (versioned) {
            DLManagedTensorVersioned *m = ptr;
            if (m->deleter) m->deleter(m);
        } else {
            DLManagedTensor *m = ptr;
            if (m->deleter) m->deleter(m);
        }
    }
    PyErr_Clear();
    free(custom_name);
    PyErr_Restore(et, ev, tb);
}

static void capsule_destructor_legacy(PyObject *capsule) { capsule_destructor_impl(capsule, 0, 1); }
static void capsule_destructor_versioned(PyObject *capsule) { capsule_destructor_impl(capsule, 1, 1); }
static void capsule_destructor_name_only(PyObject *capsule) { capsule_destructor_impl(capsule, 0, 0); }

/* A capsule exporting `src` (a new view of it is taken). */
static PyObject *make_capsule(augpy_state *st, const aug_tensor *src, int versioned, int copied,
                              const char *name, int destruct, const char *func) {
    aug_tensor *view = aug_tensor_view(src);
    if (view == NULL) return augpy_raise(st, AUG_OK, func);
    export_block *block = calloc(1, sizeof *block);
    if (block == NULL) {
        aug_tensor_free(view);
        return PyErr_NoMemory();
    }
    DLTensor *dl;
    if (versioned) {
        DLManagedTensorVersioned *m = &block->m.versioned;
        m->version.major = AUGPY_DLPACK_MAJOR;
        m->version.minor = AUGPY_DLPACK_MINOR;
        m->manager_ctx = view;
        m->deleter = export_deleter_versioned;
        m->flags = copied ? DLPACK_FLAG_BITMASK_IS_COPIED : 0;
        dl = &m->dl_tensor;
    } else {
        DLManagedTensor *m = &block->m.legacy;
        m->manager_ctx = view;
        m->deleter = export_deleter_legacy;
        dl = &m->dl_tensor;
    }
    const aug_dtype_traits *tr = aug_dtype_info(view->dtype);
    dl->data = aug_tensor_ptr(view);
    dl->byte_offset = 0;
    dl->device.device_type = (int32_t)view->device.type; /* aug's codes are DLPack's */
    dl->device.device_id = view->device.id;
    dl->ndim = view->ndim;
    dl->dtype.code = tr->dl_code;
    dl->dtype.bits = tr->dl_bits;
    dl->dtype.lanes = 1;
    memcpy(block->shape, view->shape, sizeof block->shape);
    memcpy(block->strides, view->strides, sizeof block->strides);
    dl->shape = view->ndim ? block->shape : NULL;
    dl->strides = view->ndim ? block->strides : NULL;

    /* PyCapsule keeps the name pointer: standard names are static, others copied. */
    char *custom = NULL;
    const char *cname = name;
    if (strcmp(name, NAME_LEGACY) == 0) cname = NAME_LEGACY;
    else if (strcmp(name, NAME_VERSIONED) == 0) cname = NAME_VERSIONED;
    else {
        size_t len = strlen(name) + 1;
        custom = malloc(len);
        if (custom == NULL) {
            aug_tensor_free(view);
            free(block);
            return PyErr_NoMemory();
        }
        memcpy(custom, name, len);
        cname = custom;
    }
    PyCapsule_Destructor dtor = NULL;
    if (destruct) dtor = versioned ? capsule_destructor_versioned : capsule_destructor_legacy;
    else if (custom) dtor = capsule_destructor_name_only;
    PyObject *capsule = PyCapsule_New(block, cname, dtor);
    if (capsule == NULL) {
        free(custom);
        aug_tensor_free(view);
        free(block);
        return NULL;
    }
    /* Cannot fail on the valid capsule just made; the destructor frees it. */
    if (custom) (void)PyCapsule_SetContext(capsule, custom);
    return capsule;
}

static int aug__device_same(aug_device a, aug_device b) { return a.type == b.type && a.id == b.id; }

/* DLPack's stream argument for a CUDA tensor: the consumer will use the data on
 * that stream, so it waits for the work queued so far on ours. None and 1 are
 * the legacy default stream, 2 the per-thread default stream, -1 asks for no
 * synchronisation, 0 is invalid (ambiguous, as the Array API says), anything
 * else is a cudaStream_t. */
static int sync_consumer(augpy_state *st, aug_device dev, PyObject *stream, const char *func) {
    long long v = 1;
    if (stream != Py_None) {
        int64_t s;
        if (augpy_parse_int_range(stream, INT64_MIN, (int64_t)(INTPTR_MAX), &s, func, "stream") < 0) return -1;
        v = s;
    }
    if (v == -1) return 0;
    if (v == 0 || v < -1) {
        PyErr_Format(PyExc_ValueError, "%s: stream %lld is not a CUDA stream (None, 1 legacy default, 2 per-thread "
                     "default, -1 no synchronisation, or a cudaStream_t)", func, v);
        return -1;
    }
    aug_status status = aug_stream_sync_handle(dev, (void *)(uintptr_t)v);
    if (status != AUG_OK) {
        augpy_raise(st, status, func);
        return -1;
    }
    return 0;
}

static int parse_device_tuple(PyObject *obj, int *type, int *id, const char *func) {
    if (!PyTuple_Check(obj) || PyTuple_GET_SIZE(obj) != 2) {
        PyErr_Format(PyExc_TypeError, "%s: dl_device must be a (device_type, device_id) tuple, got %R", func, obj);
        return -1;
    }
    if (augpy_parse_int(PyTuple_GET_ITEM(obj, 0), type, func, "dl_device[0]") < 0) return -1;
    return augpy_parse_int(PyTuple_GET_ITEM(obj, 1), id, func, "dl_device[1]");
}

/* Whether t has a negative stride on an axis with more than one element: DLPack
 * can describe it, but PyTorch ("Storage size calculation overflowed") and
 * TensorFlow reject such capsules, so the export side never hands one out. */
static int negative_strides(const aug_tensor *t) {
    for (int d = 0; d < t->ndim; d++)
        if (t->shape[d] > 1 && t->strides[d] < 0) return 1;
    return 0;
}

static PyObject *negative_strides_error(const aug_tensor *t, const char *func, const char *how) {
    PyObject *strides = PyTuple_New(t->ndim);
    if (strides == NULL) return NULL;
    for (int d = 0; d < t->ndim; d++) {
        PyObject *v = PyLong_FromLongLong((long long)t->strides[d]);
        if (v == NULL) {
            Py_DECREF(strides);
            return NULL;
        }
        PyTuple_SET_ITEM(strides, d, v);
    }
    PyErr_Format(PyExc_BufferError,
                 "%s: the tensor has negative strides %R, which major DLPack consumers (PyTorch, TensorFlow) "
                 "reject; %s, or export tensor.contiguous()",
                 func, strides, how);
    Py_DECREF(strides);
    return NULL;
}

PyObject *augpy_tensor_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char *func = "Tensor.__dlpack__";
    static const char *const names[] = {"stream", "max_version", "dl_device", "copy"};
    PyObject *vals[4] = {Py_None, Py_None, Py_None, Py_None};
    Py_ssize_t npos = PyVectorcall_NARGS((size_t)nargs);
    if (npos > 1) {
        PyErr_Format(PyExc_TypeError, "%s: takes at most 1 positional argument (stream), got %zd", func, npos);
        return NULL;
    }
    if (npos == 1) vals[0] = args[0];
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        const char *key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
        if (key == NULL) return NULL;
        int found = 0;
        for (int j = 0; j < 4 && !found; j++) {
            if (strcmp(key, names[j]) == 0) {
                vals[j] = args[npos + k];
                found = 1;
            }
        }
        if (!found) {
            PyErr_Format(PyExc_TypeError, "%s: unexpected keyword argument '%s'", func, key);
            return NULL;
        }
    }
    augpy_state *st = augpy_state_from_obj(self);
    if (st == NULL) return NULL;
    const aug_tensor *t = T(self);
    /* stream: None, or an int (CPU work is synchronous, so nothing to order). */
    if (vals[0] != Py_None && (!PyLong_Check(vals[0]) || PyBool_Check(vals[0]))) {
        PyErr_Format(PyExc_TypeError, "%s: stream must be None or an int, got %.100s", func,
                     Py_TYPE(vals[0])->tp_name);
        return NULL;
    }
    long major = 0;
    if (vals[1] != Py_None) {
        if (!PyTuple_Check(vals[1]) || PyTuple_GET_SIZE(vals[1]) != 2) {
            PyErr_Format(PyExc_TypeError, "%s: max_version must be None or a (major, minor) tuple, got %R", func,
                         vals[1]);
            return NULL;
        }
        int64_t m;
        if (augpy_parse_int64(PyTuple_GET_ITEM(vals[1], 0), &m, func, "max_version[0]") < 0) return NULL;
        major = m > 1000 ? 1000 : m < -1000 ? -1000 : (long)m;
    }
    int copy = vals[3] == Py_None ? -1 : PyObject_IsTrue(vals[3]); /* -1: None, copy only if needed */
    if (vals[3] != Py_None && copy < 0) return NULL;
    aug_device want = t->device;
    if (vals[2] != Py_None) {
        int type, id;
        if (parse_device_tuple(vals[2], &type, &id, func) < 0) return NULL;
        int known = (type == kDLCPU && id == 0) ||
                    (type == kDLCUDA && id >= 0 && id < aug_device_count(AUG_DEVICE_CUDA));
        int other = type != (int)t->device.type || id != t->device.id;
        if (!known || (other && copy == 0)) {
            PyErr_Format(PyExc_BufferError, "%s: unsupported device requested (%d, %d)%s; the tensor is on (%d, %d)",
                         func, type, id, known ? " without a copy (copy=False)" : "", (int)t->device.type,
                         t->device.id);
            return NULL;
        }
        want.type = (aug_device_type)type;
        want.id = id;
    }
    /* negative strides: a packed copy when copying is allowed (copy=None), else refused */
    if (negative_strides(t)) {
        if (copy == 0) return negative_strides_error(t, func, "copy=False forbids the packed copy; pass copy=None");
        copy = 1;
    }
    if (copy != 1 && aug__device_same(want, t->device)) {
        if (want.type == AUG_DEVICE_CUDA && sync_consumer(st, want, vals[0], func) < 0) return NULL;
        return make_capsule(st, t, major >= 1, 0, major >= 1 ? NAME_VERSIONED : NAME_LEGACY, 1, func);
    }
    /* a packed copy, on the requested device (a copy to the cpu is complete on return) */
    aug_tensor *packed;
    Py_BEGIN_ALLOW_THREADS
    packed = aug_tensor_to(t, want);
    Py_END_ALLOW_THREADS
    if (packed == NULL) return augpy_raise(st, aug_last_status(), func);
    PyObject *res = want.type == AUG_DEVICE_CUDA && sync_consumer(st, want, vals[0], func) < 0
                        ? NULL
                        : make_capsule(st, packed, major >= 1, 1, major >= 1 ? NAME_VERSIONED : NAME_LEGACY, 1, func);
    aug_tensor_free(packed);
    return res;
}

PyObject *augpy_tensor_dlpack_device(PyObject *self, PyObject *Py_UNUSED(unused)) {
    return Py_BuildValue("(ii)", (int)T(self)->device.type, T(self)->device.id);
}

static PyObject *export_dltensor(PyObject *module, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"tensor", "name", "destruct", NULL};
    PyObject *tensor;
    const char *name = NAME_LEGACY;
    int destruct = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|sp:export_dltensor", kwlist, &tensor, &name, &destruct))
        return NULL;
    augpy_state *st = augpy_state_from_module(module);
    aug_tensor *t = augpy_tensor_arg(st, tensor, "export_dltensor", "tensor");
    if (t == NULL) return NULL;
    if (strncmp(name, "used_", 5) == 0) {
        PyErr_Format(PyExc_ValueError, "export_dltensor: name must not start with 'used_', got '%s'", name);
        return NULL;
    }
    if (negative_strides(t)) return negative_strides_error(t, "export_dltensor", "this export never copies");
    int versioned = strcmp(name, NAME_VERSIONED) == 0;
    return make_capsule(st, t, versioned, 0, name, destruct, "export_dltensor");
}

/* ---- import ---------------------------------------------------------------------------- */

typedef struct {
    void *managed;
    int versioned;
} import_ctx;

static void call_producer_deleter(import_ctx *c) {
    if (c->versioned) {
        DLManagedTensorVersioned *m = c->managed;
        if (m->deleter) m->deleter(m);
    } else {
        DLManagedTensor *m = c->managed;
        if (m->deleter) m->deleter(m);
    }
}

/* aug_storage deleter of imported memory: runs exactly once, on the last release.
 * That release may come while an exception is being raised (a Tensor argument
 * freed after the call that used it failed): the producer's deleter runs with
 * no exception set (a ctypes or cffi deleter calls Python code, which fails
 * with one pending) and the caller's exception is put back afterwards; an
 * exception the deleter itself leaves is reported as unraisable, as NumPy's
 * dlpack.c does. */
static void import_deleter(void *ctx) {
    import_ctx *c = ctx;
    if (Py_IsInitialized()) {
        PyGILState_STATE gil = PyGILState_Ensure();
        PyObject *et, *ev, *tb;
        PyErr_Fetch(&et, &ev, &tb);
        call_producer_deleter(c);
        if (PyErr_Occurred()) PyErr_WriteUnraisable(NULL);
        PyErr_Restore(et, ev, tb);
        PyGILState_Release(gil);
    } else {
        call_producer_deleter(c);
    }
    free(c);
}

/* What import_capsule reads from a DLTensor, checked before any ownership is taken. */
typedef struct {
    aug_dtype dtype;
    aug_device dev;
    int ndim;
    int64_t shape[AUG_MAX_DIMS], strides[AUG_MAX_DIMS];
    int64_t size, lo;     /* the element count; the byte offset of the lowest element (<= 0) */
    uintptr_t start, end; /* the bytes reached (0, 0 when empty) */
} dl_view;

/* Checks dl (dimensions, dtype, device, shape, strides, the bytes reached) into *v;
 * 0, or -1 with BufferError naming func. */
static int check_dltensor(const DLTensor *dl, dl_view *v, const char *func) {
    if (dl->ndim < 0 || dl->ndim > AUG_MAX_DIMS) {
        PyErr_Format(PyExc_BufferError, "%s: DLPack tensor has %d dimensions (augpy supports 0 to %d)", func,
                     (int)dl->ndim, AUG_MAX_DIMS);
        return -1;
    }
    if (aug_dtype_from_dlpack(dl->dtype.code, dl->dtype.bits, dl->dtype.lanes, &v->dtype) != AUG_OK) {
        PyErr_Format(PyExc_BufferError, "%s: unsupported DLPack dtype (code=%d, bits=%d, lanes=%d)", func,
                     (int)dl->dtype.code, (int)dl->dtype.bits, (int)dl->dtype.lanes);
        return -1;
    }
    v->dev = aug_cpu_device();
    int dt = dl->device.device_type;
    if (dt == kDLCUDA && dl->device.device_id >= 0 && dl->device.device_id < aug_device_count(AUG_DEVICE_CUDA)) {
        v->dev.type = AUG_DEVICE_CUDA;
        v->dev.id = dl->device.device_id;
    } else if (dt != kDLCPU && dt != kDLCUDAHost && dt != kDLCUDAManaged) {
        int ncuda = aug_device_count(AUG_DEVICE_CUDA);
        if (ncuda > 0)
            PyErr_Format(PyExc_BufferError, "%s: DLPack device (%d, %d) is not supported (devices: cpu, cuda:0 to "
                         "cuda:%d)", func, dt, (int)dl->device.device_id, ncuda - 1);
        else
            PyErr_Format(PyExc_BufferError, "%s: DLPack device (%d, %d) is not supported (devices: cpu; %s)", func, dt,
                         (int)dl->device.device_id, aug_cuda_status());
        return -1;
    }
    int ndim = v->ndim = dl->ndim;
    if (ndim > 0 && dl->shape == NULL) {
        PyErr_Format(PyExc_BufferError, "%s: DLPack tensor has no shape", func);
        return -1;
    }
    int64_t *shape = v->shape, *strides = v->strides;
    int64_t itemsize = aug_dtype_info(v->dtype)->size, size = 1, lo = 0, hi = 0;
    for (int d = ndim - 1; d >= 0; d--) {
        shape[d] = dl->shape[d];
        if (shape[d] < 0) {
            PyErr_Format(PyExc_BufferError, "%s: DLPack tensor has a negative extent %lld", func, (long long)shape[d]);
            return -1;
        }
        if (dl->strides) strides[d] = dl->strides[d];
        else if (d == ndim - 1) strides[d] = 1;
        else if (__builtin_mul_overflow(strides[d + 1], shape[d + 1] ? shape[d + 1] : 1, &strides[d]))
            strides[d] = 0; /* only reachable when size is 0 or overflows (rejected below) */
        if (__builtin_mul_overflow(size, shape[d], &size)) size = -1;
    }
    for (int d = 0; d < ndim && size > 0; d++) {
        int64_t span;
        if (__builtin_mul_overflow(shape[d] - 1, strides[d], &span) || __builtin_mul_overflow(span, itemsize, &span) ||
            __builtin_add_overflow(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi)) {
            size = -1;
            break;
        }
    }
    if (size < 0) {
        PyErr_Format(PyExc_BufferError, "%s: DLPack tensor size overflows", func);
        return -1;
    }
    if (size > 0 && dl->data == NULL) {
        PyErr_Format(PyExc_BufferError, "%s: DLPack tensor has a NULL data pointer", func);
        return -1;
    }
    /* The bytes reached, [data + byte_offset + lo, data + byte_offset + hi + itemsize),
     * must not wrap around the address space (a hostile byte_offset or strides), and
     * their count must fit int64 (aug's storage sizes). In integers: pointer arithmetic
     * past the object is undefined, and an empty tensor's data may be NULL. */
    uintptr_t first = 0, start = 0, end = 0;
    v->size = size, v->lo = lo, v->start = v->end = 0;
    if (size > 0) {
        uintptr_t below = (uintptr_t)0 - (uintptr_t)lo; /* -lo, lo <= 0 */
        if (__builtin_add_overflow((uintptr_t)dl->data, dl->byte_offset, &first) ||
            __builtin_sub_overflow(first, below, &start) || __builtin_add_overflow(first, (uintptr_t)hi, &end) ||
            __builtin_add_overflow(end, (uintptr_t)itemsize, &end) || end - start > (uintptr_t)INT64_MAX) {
            PyErr_Format(PyExc_BufferError,
                         "%s: DLPack tensor's memory (data %p, byte_offset %llu, shape and strides) does not fit "
                         "in the address space",
                         func, dl->data, (unsigned long long)dl->byte_offset);
            return -1;
        }
    }
    v->start = start, v->end = end;
    /* The kernels read and write whole elements (typed loads): on a GPU a misaligned
     * one is a sticky cudaErrorMisalignedAddress that ends the process's CUDA, on the
     * CPU undefined behaviour. Strides count elements, so the first one decides. */
    uintptr_t align = itemsize > 8 ? 8 : (uintptr_t)itemsize;
    if (size > 0 && first % align != 0) {
        PyErr_Format(PyExc_BufferError,
                     "%s: the DLPack tensor's data (%p + byte_offset %llu) is not aligned for %s: its address mod %d "
                     "is %d; copy or clone the array first (e.g. numpy.array(a), torch's a.clone())",
                     func, dl->data, (unsigned long long)dl->byte_offset, aug_dtype_name(v->dtype), (int)align,
                     (int)(first % align));
        return -1;
    }
    return 0;
}

/* Import the capsule; `want` is the name asked for (NULL: either standard name).
 * A read-only export (versioned capsules flag it) is imported as a copy, or with
 * `writable` refused (ValueError; the capsule is left unconsumed). */
static PyObject *import_capsule(augpy_state *st, PyObject *capsule, const char *want, int writable, const char *func) {
    if (!PyCapsule_CheckExact(capsule)) {
        PyErr_Format(PyExc_TypeError, "%s: expected a DLPack capsule, got %.100s", func, Py_TYPE(capsule)->tp_name);
        return NULL;
    }
    const char *cname = PyCapsule_GetName(capsule);
    if (cname == NULL) {
        if (PyErr_Occurred()) return NULL;
        cname = "";
    }
    if (strncmp(cname, "used_", 5) == 0) {
        PyErr_Format(PyExc_ValueError, "%s: the DLPack capsule was already consumed (it is named '%s')", func, cname);
        return NULL;
    }
    int versioned = strcmp(cname, NAME_VERSIONED) == 0;
    int name_ok = want ? strcmp(cname, want) == 0 || (strcmp(want, NAME_LEGACY) == 0 && versioned)
                       : versioned || strcmp(cname, NAME_LEGACY) == 0;
    if (!name_ok) {
        PyErr_Format(PyExc_ValueError, "%s: expected a capsule named '%s', got '%s'", func,
                     want ? want : "dltensor' or 'dltensor_versioned", cname);
        return NULL;
    }
    void *managed = PyCapsule_GetPointer(capsule, cname);
    if (managed == NULL) return NULL;
    DLTensor *dl;
    uint64_t flags = 0;
    if (versioned) {
        DLManagedTensorVersioned *m = managed;
        if (m->version.major > AUGPY_DLPACK_MAJOR) {
            PyErr_Format(PyExc_BufferError, "%s: DLPack version %u.%u is not supported (at most %d.x)", func,
                         (unsigned)m->version.major, (unsigned)m->version.minor, AUGPY_DLPACK_MAJOR);
            return NULL;
        }
        flags = m->flags;
        dl = &m->dl_tensor;
    } else {
        dl = &((DLManagedTensor *)managed)->dl_tensor;
    }

    /* Validate everything before taking ownership. */
    dl_view v;
    if (check_dltensor(dl, &v, func) < 0) return NULL;
    int readonly = (flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
    if (readonly && writable) {
        PyErr_Format(PyExc_ValueError, "%s: the destination is read-only (its DLPack export is flagged read-only)",
                     func);
        return NULL;
    }

    import_ctx *ctx = malloc(sizeof *ctx);
    if (ctx == NULL) return PyErr_NoMemory();
    ctx->managed = managed;
    ctx->versioned = versioned;
    /* Take ownership: from here on the producer's deleter is ours to call, once. */
    if (PyCapsule_SetName(capsule, versioned ? USED_VERSIONED : USED_LEGACY) < 0) {
        free(ctx);
        return NULL;
    }
    aug_storage *storage = aug_storage_wrap(v.size > 0 ? (void *)v.start : NULL,
                                            v.size > 0 ? (size_t)(v.end - v.start) : 0, v.dev, import_deleter, ctx);
    if (storage == NULL) {
        import_deleter(ctx); /* not called by a failed wrap */
        return augpy_raise(st, AUG_OK, func);
    }
    aug_tensor *t = aug_tensor_from_storage(storage, v.size > 0 ? -v.lo : 0, v.ndim, v.shape, v.strides, v.dtype);
    aug_storage_release(storage); /* t holds the reference now (or, on failure, this calls the deleter) */
    if (t == NULL) return augpy_raise(st, AUG_OK, func);
    if (readonly) {
        aug_tensor *copy = aug_tensor_empty_like(t, AUG_DTYPE_AUTO);
        if (copy == NULL) {
            aug_tensor_free(t);
            return augpy_raise(st, AUG_OK, func);
        }
        int r = augpy_copy_into(st, t, copy, func);
        aug_tensor_free(t);
        if (r < 0) {
            aug_tensor_free(copy);
            return NULL;
        }
        t = copy;
    }
    return augpy_wrap(st, t);
}

static PyObject *import_dltensor(PyObject *module, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"tensor_capsule", "name", NULL};
    PyObject *capsule;
    const char *name = NAME_LEGACY;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|s:import_dltensor", kwlist, &capsule, &name)) return NULL;
    return import_capsule(augpy_state_from_module(module), capsule, name, 0, "import_dltensor");
}

/* The `stream` to hand a producer whose __dlpack_device__() is one of our CUDA
 * devices: the handle of our current stream there (1 for the legacy default
 * stream); NULL (no error) for anything else. */
static PyObject *consumer_stream(PyObject *obj) {
    PyObject *dev = PyObject_CallMethod(obj, "__dlpack_device__", NULL);
    if (dev == NULL) {
        PyErr_Clear(); /* an older producer: no stream to give */
        return NULL;
    }
    int type = -1, id = -1;
    int ok = PyTuple_Check(dev) && PyTuple_GET_SIZE(dev) == 2 && PyLong_Check(PyTuple_GET_ITEM(dev, 0)) &&
             PyLong_Check(PyTuple_GET_ITEM(dev, 1));
    if (ok) { /* exact ints: no Python code runs; anything beyond int is no device of ours */
        int o1 = 0, o2 = 0;
        long t = PyLong_AsLongAndOverflow(PyTuple_GET_ITEM(dev, 0), &o1);
        long i = PyLong_AsLongAndOverflow(PyTuple_GET_ITEM(dev, 1), &o2);
        if (!o1 && !o2 && t >= INT_MIN && t <= INT_MAX && i >= INT_MIN && i <= INT_MAX) {
            type = (int)t;
            id = (int)i;
        }
    }
    Py_DECREF(dev);
    PyErr_Clear();
    if (type != kDLCUDA || id < 0 || id >= aug_device_count(AUG_DEVICE_CUDA)) return NULL;
    aug_device d = {AUG_DEVICE_CUDA, id};
    void *h = aug_stream_handle(aug_current_stream(d));
    aug_clear_error();
    return PyLong_FromVoidPtr(h ? h : (void *)1);
}

/* The capsule of obj.__dlpack__() (device: None or a DLPack device tuple to ask for;
 * copy: the DLPack copy flag). New reference, NULL with the error set. */
static PyObject *call_dlpack(PyObject *obj, PyObject *device, PyObject *copy, const char *func) {
    PyObject *method = PyObject_GetAttrString(obj, "__dlpack__");
    if (method == NULL) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: %.100s does not support the DLPack protocol (no __dlpack__)", func,
                     Py_TYPE(obj)->tp_name);
        return NULL;
    }
    PyObject *kw = Py_BuildValue("{s(ii)sO}", "max_version", AUGPY_DLPACK_MAJOR, AUGPY_DLPACK_MINOR, "copy", copy);
    if (kw && device != Py_None && PyDict_SetItemString(kw, "dl_device", device) < 0) Py_CLEAR(kw);
    /* data on one of our CUDA devices: the producer orders its work before our
     * current stream there (DLPack's consumer stream; 1 = the legacy default) */
    PyObject *stream = device == Py_None ? consumer_stream(obj) : NULL;
    if (PyErr_Occurred()) Py_CLEAR(kw);
    if (kw && stream && PyDict_SetItemString(kw, "stream", stream) < 0) Py_CLEAR(kw);
    PyObject *empty = PyTuple_New(0);
    PyObject *cap = (kw && empty) ? PyObject_Call(method, empty, kw) : NULL;
    if (cap == NULL && copy != Py_True && PyErr_ExceptionMatches(PyExc_TypeError)) {
        /* A producer that predates max_version/copy/dl_device: ask for a legacy capsule
         * (a device it cannot serve is rejected on import; only "cpu" is requestable). */
        PyErr_Clear();
        PyObject *skw = stream ? Py_BuildValue("{sO}", "stream", stream) : NULL;
        cap = stream ? (skw && empty ? PyObject_Call(method, empty, skw) : NULL) : PyObject_CallNoArgs(method);
        Py_XDECREF(skw);
    }
    Py_XDECREF(stream);
    Py_XDECREF(kw);
    Py_XDECREF(empty);
    Py_DECREF(method);
    return cap;
}

PyObject *augpy_import_dlpack(augpy_state *st, PyObject *obj, int writable, const char *func) {
    PyObject *cap = call_dlpack(obj, Py_None, Py_None, func);
    if (cap == NULL) return NULL;
    PyObject *res = import_capsule(st, cap, NULL, writable, func);
    Py_DECREF(cap);
    return res;
}

static PyObject *from_dlpack(PyObject *module, PyObject *args, PyObject *kwargs) {
    static const char *func = "from_dlpack";
    static char *kwlist[] = {"x", "device", "copy", NULL};
    PyObject *obj, *device = Py_None, *copy = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$OO:from_dlpack", kwlist, &obj, &device, &copy)) return NULL;
    augpy_state *st = augpy_state_from_module(module);
    if (PyCapsule_CheckExact(obj)) return import_capsule(st, obj, NULL, 0, func);
    if (device != Py_None && !(PyUnicode_Check(device) && PyUnicode_CompareWithASCIIString(device, "cpu") == 0)) {
        PyErr_Format(PyExc_ValueError, "%s: device must be None or 'cpu', got %R", func, device);
        return NULL;
    }
    PyObject *cpu = device != Py_None ? Py_BuildValue("(ii)", kDLCPU, 0) : Py_NewRef(Py_None);
    PyObject *cap = cpu ? call_dlpack(obj, cpu, copy, func) : NULL;
    Py_XDECREF(cpu);
    if (cap == NULL) return NULL;
    PyObject *res = import_capsule(st, cap, NULL, 0, func);
    Py_DECREF(cap);
    return res;
}

static PyMethodDef dlpack_functions[] = {
    {"export_dltensor", (PyCFunction)(void (*)(void))export_dltensor, METH_VARARGS | METH_KEYWORDS,
     "export_dltensor(tensor, name='dltensor', destruct=True)\n--\n\n"
     "Export a tensor as a DLPack capsule (zero copy) stored under `name`; 'dltensor_versioned'\n"
     "gives a DLPack 1.x DLManagedTensorVersioned, any other name the legacy DLManagedTensor.\n"
     "With destruct=True an unconsumed capsule releases the tensor when it is deleted; with\n"
     "destruct=False only a consumer calling the deleter does."},
    {"import_dltensor", (PyCFunction)(void (*)(void))import_dltensor, METH_VARARGS | METH_KEYWORDS,
     "import_dltensor(tensor_capsule, name='dltensor')\n--\n\n"
     "Wrap the tensor in a DLPack capsule (zero copy). The capsule is renamed to 'used_dltensor'\n"
     "('used_dltensor_versioned') and cannot be imported twice; the producer's deleter runs once,\n"
     "when the last augpy view of the memory goes. The default name also accepts versioned\n"
     "capsules. Read-only versioned capsules are imported as a copy."},
    {"from_dlpack", (PyCFunction)(void (*)(void))from_dlpack, METH_VARARGS | METH_KEYWORDS,
     "from_dlpack(x, /, *, device=None, copy=None)\n--\n\n"
     "Zero-copy tensor over the memory of any object implementing __dlpack__ (numpy arrays,\n"
     "torch tensors, ...) or over a DLPack capsule."},
    {NULL, NULL, 0, NULL}};

int augpy_init_dlpack(PyObject *module, augpy_state *st) {
    (void)st;
    return PyModule_AddFunctions(module, dlpack_functions);
}
