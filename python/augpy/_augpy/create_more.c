/* _augpy/create_more.c: the NumPy-style module functions empty, arange, asarray,
 * tensor, stack, concatenate and where.
 *
 * empty/arange/asarray/tensor create tensors (aug_tensor_empty plus one aug_copy
 * from a host tensor); stack and concatenate copy each input into a view of the
 * result (backend copies, any device); where(cond, x, y) is the WHERE op of the
 * C op list (a kernel on both backends), where(cond) NumPy's nonzero (the index
 * list is computed on the host). */
#include <math.h>
#include <string.h>
#include "augpy.h"

#define FASTCALL(name, fn, doc) {name, (PyCFunction)(void (*)(void))fn, METH_FASTCALL | METH_KEYWORDS, doc}

static inline aug_tensor *T(PyObject *self) { return ((AugTensorObject *)self)->t; }

/* dtype argument: None keeps *dt. 0 or -1. */
static int opt_dtype(augpy_state *st, PyObject *obj, aug_dtype *dt, const char *func) {
    return (obj && obj != Py_None) ? augpy_parse_dtype(st, obj, dt, func) : 0;
}

/* ---- empty ------------------------------------------------------------------------ */

AUGPY_SIG(empty_sig, "empty", {"shape"}, {"dtype", "None"}, {"device_id", "None"});

static PyObject *fn_empty(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char *func = "augpy.empty";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[3];
    int64_t shape[AUG_MAX_DIMS];
    int ndim;
    aug_device dev;
    aug_dtype dt = AUG_UINT8;
    if (augpy_parse_args(func, args, nargs, kwnames, &empty_sig, a) < 0) return NULL;
    if ((ndim = augpy_parse_shape(a[0], shape, func)) < 0 || opt_dtype(st, a[1], &dt, func) < 0 ||
        augpy_parse_device_id(a[2], 1, &dev, func) < 0)
        return NULL;
    aug_tensor *t = aug_tensor_empty(ndim, shape, dt, dev);
    return t ? augpy_wrap(st, t) : augpy_raise(st, AUG_OK, func);
}

/* ---- arange ----------------------------------------------------------------------- */

static int is_int_arg(PyObject *o) { return PyLong_Check(o) || (PyIndex_Check(o) && !PyFloat_Check(o)); }

/* A host tensor's values copied (saturate_cast) into a new tensor of dt on dev. */
static PyObject *from_host(augpy_state *st, aug_tensor *host, aug_dtype dt, aug_device dev, const char *func) {
    aug_tensor *t = aug_tensor_empty(host->ndim, host->shape, dt, dev);
    if (!t) {
        aug_tensor_free(host);
        return augpy_raise(st, AUG_OK, func);
    }
    int r = augpy_copy_into(st, host, t, func);
    aug_tensor_free(host);
    if (r < 0) {
        aug_tensor_free(t);
        return NULL;
    }
    return augpy_wrap(st, t);
}

AUGPY_SIG(arange_sig, "arange", {"start", "None"}, {"stop", "None"}, {"step", "None"}, {"dtype", "None"},
          {"device_id", "None"});

static PyObject *fn_arange(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char *func = "augpy.arange";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[5];
    if (augpy_parse_args(func, args, nargs, kwnames, &arange_sig, a) < 0) return NULL;
    PyObject *ostart = a[0], *ostop = a[1], *ostep = a[2];
    if (ostop == Py_None) ostop = NULL;
    if (ostep == Py_None) ostep = NULL;
    if (!ostart || ostart == Py_None) {
        if (!ostop) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument 'stop'", func);
            return NULL;
        }
        ostart = NULL;
    } else if (!ostop) { /* arange(stop) */
        ostop = ostart;
        ostart = NULL;
    }
    PyObject *objs[3] = {ostart, ostop, ostep};
    const char *argn[3] = {"start", "stop", "step"};
    int all_int = 1;
    for (int i = 0; i < 3; i++) {
        if (!objs[i]) continue;
        if (PyBool_Check(objs[i]) || (!PyIndex_Check(objs[i]) && !PyFloat_Check(objs[i]) &&
                                      !PyObject_HasAttrString((PyObject *)Py_TYPE(objs[i]), "__float__"))) {
            PyErr_Format(PyExc_TypeError, "%s: %s must be an int or a float, not '%.100s'", func, argn[i],
                         Py_TYPE(objs[i])->tp_name);
            return NULL;
        }
        all_int = all_int && is_int_arg(objs[i]);
    }
    aug_device dev;
    aug_dtype dt = all_int ? AUG_INT64 : AUG_FLOAT32;
    if (opt_dtype(st, a[3], &dt, func) < 0 || augpy_parse_device_id(a[4], 1, &dev, func) < 0) return NULL;
    int64_t n;
    aug_tensor *host;
    if (all_int) {
        int64_t start = 0, stop, step = 1;
        if ((ostart && augpy_parse_int64(ostart, &start, func, "start") < 0) ||
            augpy_parse_int64(ostop, &stop, func, "stop") < 0 ||
            (ostep && augpy_parse_int64(ostep, &step, func, "step") < 0))
            return NULL;
        if (step == 0) {
            PyErr_Format(PyExc_ValueError, "%s: step must not be zero", func);
            return NULL;
        }
        __int128 span = (__int128)stop - start, len;
        len = step > 0 ? (span + step - 1) / step : (span + step + 1) / step;
        if (len < 0) len = 0;
        if (len > ((__int128)1 << 40)) {
            PyErr_Format(PyExc_ValueError, "%s: too many elements", func);
            return NULL;
        }
        n = (int64_t)len;
        host = aug_tensor_empty(1, &n, AUG_INT64, aug_cpu_device());
        if (!host) return augpy_raise(st, AUG_OK, func);
        int64_t *p = aug_tensor_ptr(host);
        for (int64_t i = 0; i < n; i++) p[i] = (int64_t)((__int128)start + (__int128)i * step);
    } else {
        double start = 0, stop, step = 1;
        if ((ostart && augpy_parse_double(ostart, &start, func, "start") < 0) ||
            augpy_parse_double(ostop, &stop, func, "stop") < 0 ||
            (ostep && augpy_parse_double(ostep, &step, func, "step") < 0))
            return NULL;
        if (step == 0) {
            PyErr_Format(PyExc_ValueError, "%s: step must not be zero", func);
            return NULL;
        }
        double len = ceil((stop - start) / step);
        if (!isfinite(start) || !isfinite(stop) || !isfinite(step) || !isfinite(len)) {
            PyErr_Format(PyExc_ValueError, "%s: start, stop and step must be finite", func);
            return NULL;
        }
        if (len > 1099511627776.0) {
            PyErr_Format(PyExc_ValueError, "%s: too many elements", func);
            return NULL;
        }
        n = len > 0 ? (int64_t)len : 0;
        host = aug_tensor_empty(1, &n, AUG_FLOAT64, aug_cpu_device());
        if (!host) return augpy_raise(st, AUG_OK, func);
        double *p = aug_tensor_ptr(host);
        for (int64_t i = 0; i < n; i++) p[i] = start + (double)i * step;
    }
    return from_host(st, host, dt, dev, func);
}

/* ---- asarray, tensor ---------------------------------------------------------------- */

AUGPY_SIG(asarray_sig, "asarray", {"a|obj|data"}, {"dtype", "None"}, {"device_id", "None"}); /* NumPy's name */
AUGPY_SIG(tensor_sig, "tensor", {"data|obj|a"}, {"dtype", "None"}, {"device_id", "None"});  /* torch.tensor's */

/* copy: 0 = asarray (a tensor of the right dtype and device is returned as is). */
static PyObject *convert_obj(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, int copy,
                             const char *func) {
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[3];
    if (augpy_parse_args(func, args, nargs, kwnames, copy ? &tensor_sig : &asarray_sig, a) < 0) return NULL;
    aug_device dev = aug_default_device();
    int has_dev = a[2] && a[2] != Py_None;
    if (has_dev && augpy_parse_device_id(a[2], 0, &dev, func) < 0) return NULL;
    aug_tensor *src = NULL, *tmp = NULL;
    if (augpy_is_tensor(st, a[0])) {
        src = T(a[0]);
        if (!has_dev) dev = src->device;
    } else {
        if (PyUnicode_Check(a[0]) || PyBytes_Check(a[0]) || a[0] == Py_None) {
            PyErr_Format(PyExc_TypeError, "%s: cannot convert '%.100s' to a tensor", func, Py_TYPE(a[0])->tp_name);
            return NULL;
        }
        tmp = augpy_tensor_from_buffer(st, a[0], aug_cpu_device(), func);
        if (!tmp) return NULL;
        src = tmp;
    }
    aug_dtype dt = src->dtype;
    if (opt_dtype(st, a[1], &dt, func) < 0) {
        aug_tensor_free(tmp);
        return NULL;
    }
    if (!copy && !tmp && dt == src->dtype && dev.type == src->device.type && dev.id == src->device.id)
        return Py_NewRef(a[0]);
    aug_tensor *t = aug_tensor_empty(src->ndim, src->shape, dt, dev);
    if (t) aug_tensor_set_layout(t, src->layout);
    int r = t ? augpy_copy_into(st, src, t, func) : -1;
    if (!t) augpy_raise(st, AUG_OK, func);
    aug_tensor_free(tmp);
    if (r < 0) {
        aug_tensor_free(t);
        return NULL;
    }
    return augpy_wrap(st, t);
}

static PyObject *fn_asarray(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    return convert_obj(m, args, nargs, kwnames, 0, "augpy.asarray");
}

static PyObject *fn_tensor(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    return convert_obj(m, args, nargs, kwnames, 1, "augpy.tensor");
}

/* ---- stack, concatenate ---------------------------------------------------------------- */

typedef struct {
    Py_ssize_t n;
    aug_tensor **t;   /* borrowed or owned (own[i]) */
    char *own;
    PyObject *seq;
} join_args;

static void join_free(join_args *j) {
    for (Py_ssize_t i = 0; i < j->n; i++)
        if (j->own[i]) aug_tensor_free(j->t[i]);
    PyMem_Free(j->t);
    PyMem_Free(j->own);
    Py_XDECREF(j->seq);
}

/* The tensors of a sequence: tensors as they are, array-likes copied to the
 * device of the first tensor (the default device when none is a tensor). */
static int join_parse(augpy_state *st, PyObject *obj, join_args *j, const char *func) {
    memset(j, 0, sizeof *j);
    if (augpy_is_tensor(st, obj) || !PySequence_Check(obj) || PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: expected a sequence of tensors, got '%.100s'", func, Py_TYPE(obj)->tp_name);
        return -1;
    }
    j->seq = PySequence_Tuple(obj); /* a snapshot: the caller's list may change under us */
    if (!j->seq) return -1;
    Py_ssize_t n = PyTuple_GET_SIZE(j->seq);
    if (n == 0) {
        PyErr_Format(PyExc_ValueError, "%s: need at least one array to join", func);
        return -1;
    }
    j->t = PyMem_Calloc((size_t)n, sizeof *j->t);
    j->own = PyMem_Calloc((size_t)n, 1);
    if (!j->t || !j->own) {
        PyErr_NoMemory();
        return -1;
    }
    j->n = n; /* join_free walks own[0 .. n) */
    aug_device dev = aug_default_device();
    for (Py_ssize_t i = 0; i < j->n; i++)
        if (augpy_is_tensor(st, PyTuple_GET_ITEM(j->seq, i))) {
            dev = T(PyTuple_GET_ITEM(j->seq, i))->device;
            break;
        }
    for (Py_ssize_t i = 0; i < j->n; i++) {
        PyObject *it = PyTuple_GET_ITEM(j->seq, i);
        if (augpy_is_tensor(st, it)) {
            j->t[i] = T(it);
            if (j->t[i]->device.type != dev.type || j->t[i]->device.id != dev.id) {
                PyObject *a = augpy_device_str(dev), *b = augpy_device_str(j->t[i]->device);
                if (a && b) PyErr_Format(PyExc_ValueError, "%s: all tensors must be on one device, got %U and %U "
                                         "(item %zd)", func, a, b, i);
                Py_XDECREF(a);
                Py_XDECREF(b);
                return -1;
            }
            continue;
        }
        if (PyUnicode_Check(it) || PyBytes_Check(it) || it == Py_None) {
            PyErr_Format(PyExc_TypeError, "%s: item %zd must be a tensor or an array, not '%.100s'", func, i,
                         Py_TYPE(it)->tp_name);
            return -1;
        }
        j->t[i] = augpy_tensor_from_buffer(st, it, dev, func);
        if (!j->t[i]) return -1;
        j->own[i] = 1;
    }
    return 0;
}

static int norm_axis(PyObject *obj, int ndim, int *axis, const char *func) {
    int64_t ax = 0;
    if (obj && obj != Py_None && augpy_parse_int64(obj, &ax, func, "axis") < 0) return -1;
    if (ax < -ndim || ax >= ndim) {
        PyErr_Format(PyExc_IndexError, "%s: axis %lld is out of bounds for array of dimension %d", func,
                     (long long)ax, ndim);
        return -1;
    }
    *axis = (int)(ax < 0 ? ax + ndim : ax);
    return 0;
}

/* The result: out= (checked shape) or a new tensor of dtype (None: promoted). */
static aug_tensor *join_result(augpy_state *st, join_args *j, PyObject *outobj, PyObject *dtobj, int ndim,
                               const int64_t *shape, const char *func) {
    if (outobj && outobj != Py_None) {
        aug_tensor *out;
        if (augpy_parse_out(st, outobj, &out, func) < 0) return NULL;
        if (dtobj && dtobj != Py_None) {
            PyErr_Format(PyExc_TypeError, "%s: give either out or dtype, not both", func);
            return NULL;
        }
        int same = out->ndim == ndim;
        for (int d = 0; same && d < ndim; d++) same = out->shape[d] == shape[d];
        if (!same) {
            char a[128], b[128];
            PyErr_Format(PyExc_ValueError, "%s: out has shape %s, the result has shape %s", func,
                         aug_shape_str(out->ndim, out->shape, a, sizeof a), aug_shape_str(ndim, shape, b, sizeof b));
            return NULL;
        }
        return aug_tensor_view(out);
    }
    aug_dtype dt = j->t[0]->dtype;
    for (Py_ssize_t i = 1; i < j->n; i++) dt = aug_promote(dt, j->t[i]->dtype);
    if (opt_dtype(st, dtobj, &dt, func) < 0) return NULL;
    aug_tensor *r = aug_tensor_empty(ndim, shape, dt, j->t[0]->device);
    if (!r) augpy_raise(st, AUG_OK, func);
    return r;
}

AUGPY_SIG(stack_sig, "stack", {"arrays|tensors"}, {"axis", "0"}, {"out", "None"}, {"dtype", "None"});
AUGPY_SIG(concatenate_sig, "concatenate", {"arrays|tensors"}, {"axis", "0"}, {"out", "None"}, {"dtype", "None"});

/* stack: 1 (a new axis), concatenate: 0. */
static PyObject *join(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, int stack,
                      const char *func) {
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[4];
    if (augpy_parse_args(func, args, nargs, kwnames, stack ? &stack_sig : &concatenate_sig, a) < 0) return NULL;
    join_args j;
    PyObject *res = NULL;
    aug_tensor *out = NULL;
    if (join_parse(st, a[0], &j, func) < 0) goto done;
    const aug_tensor *t0 = j.t[0];
    int axis, ndim = t0->ndim + stack;
    int64_t shape[AUG_MAX_DIMS];
    if (!stack && t0->ndim == 0) {
        PyErr_Format(PyExc_ValueError, "%s: zero-dimensional arrays cannot be concatenated", func);
        goto done;
    }
    if (ndim > AUG_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "%s: the result would have %d dimensions (at most %d)", func, ndim,
                     AUG_MAX_DIMS);
        goto done;
    }
    if (norm_axis(a[1], ndim, &axis, func) < 0) goto done;
    int64_t total = 0;
    for (Py_ssize_t i = 0; i < j.n; i++) {
        const aug_tensor *t = j.t[i];
        int ok = t->ndim == t0->ndim;
        for (int d = 0; ok && d < t->ndim; d++) ok = t->shape[d] == t0->shape[d] || (!stack && d == axis);
        if (!ok) {
            char s0[128], s1[128];
            PyErr_Format(PyExc_ValueError, "%s: %s; item 0 has shape %s, item %zd has shape %s", func,
                         stack ? "all input arrays must have the same shape"
                               : "all input array dimensions except the concatenation axis must match",
                         aug_shape_str(t0->ndim, t0->shape, s0, sizeof s0), i,
                         aug_shape_str(t->ndim, t->shape, s1, sizeof s1));
            goto done;
        }
        total += stack ? 1 : t->shape[axis];
    }
    for (int d = 0, s = 0; d < ndim; d++, s++) {
        if (d == axis && stack) s--; /* the new axis has no input dim */
        shape[d] = d == axis ? total : t0->shape[s];
    }
    out = join_result(st, &j, a[2], a[3], ndim, shape, func);
    if (!out) goto done;
    int64_t pos = 0;
    for (Py_ssize_t i = 0; i < j.n; i++) {
        aug_index idx[AUG_MAX_DIMS];
        memset(idx, 0, sizeof idx);
        for (int d = 0; d < ndim; d++) {
            idx[d].kind = AUG_INDEX_SLICE;
            idx[d].step = 1;
        }
        int64_t len = stack ? 1 : j.t[i]->shape[axis];
        if (stack) {
            idx[axis].kind = AUG_INDEX_INT;
            idx[axis].i = pos;
        } else {
            idx[axis].start = pos;
            idx[axis].stop = pos + len;
            idx[axis].has_start = idx[axis].has_stop = 1;
        }
        pos += len;
        aug_tensor *v = aug_tensor_index(out, ndim, idx);
        if (!v) {
            augpy_raise(st, AUG_OK, func);
            goto done;
        }
        int r = augpy_copy_into(st, j.t[i], v, func);
        aug_tensor_free(v);
        if (r < 0) goto done;
    }
    if (a[2] && a[2] != Py_None) {
        aug_tensor_free(out);
        out = NULL;
        res = Py_NewRef(a[2]);
    } else {
        res = augpy_wrap(st, out);
        out = NULL;
    }
done:
    aug_tensor_free(out);
    join_free(&j);
    return res;
}

static PyObject *fn_stack(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    return join(m, args, nargs, kwnames, 1, "augpy.stack");
}

static PyObject *fn_concatenate(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    return join(m, args, nargs, kwnames, 0, "augpy.concatenate");
}

/* ---- where -------------------------------------------------------------------------- */

/* NumPy's nonzero of a tensor: a tuple of ndim int64 tensors on its device (the
 * index list is computed on the host). */
PyObject *augpy_nonzero(augpy_state *st, PyObject *tensor, const char *func) {
    const aug_tensor *t = T(tensor);
    if (t->ndim == 0) {
        PyErr_Format(PyExc_ValueError, "%s: cannot find the nonzero elements of a 0-d tensor; use t[None]", func);
        return NULL;
    }
    PyObject *arr = augpy_tensor_to_numpy(st, t, NULL, func);
    if (!arr) return NULL;
    PyObject *nz = PyObject_CallMethod(arr, "nonzero", NULL);
    Py_DECREF(arr);
    if (!nz) return NULL;
    PyObject *res = PyTuple_New(PyTuple_GET_SIZE(nz));
    for (Py_ssize_t d = 0; res && d < PyTuple_GET_SIZE(nz); d++) {
        aug_tensor *h = augpy_tensor_from_buffer(st, PyTuple_GET_ITEM(nz, d), t->device, func);
        aug_tensor *c = NULL;
        if (h && h->dtype != AUG_INT64 && aug_cast(h, AUG_INT64, &c) != AUG_OK) augpy_raise(st, AUG_OK, func);
        PyObject *w = NULL;
        if (h && h->dtype == AUG_INT64) {
            w = augpy_wrap(st, h);
            h = NULL;
        } else if (c) {
            w = augpy_wrap(st, c);
        }
        aug_tensor_free(h);
        if (!w) Py_CLEAR(res);
        else PyTuple_SET_ITEM(res, d, w);
    }
    Py_DECREF(nz);
    return res;
}

AUGPY_SIG(where_sig, "where", {"condition|cond"}, {"x", "None"}, {"y", "None"}, {"out", "None"});

static PyObject *fn_where(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char *func = "augpy.where";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[4];
    if (augpy_parse_args(func, args, nargs, kwnames, &where_sig, a) < 0) return NULL;
    PyObject *outobj = a[3] && a[3] != Py_None ? a[3] : NULL;
    if (!a[1] && !a[2]) {
        if (outobj) {
            PyErr_Format(PyExc_TypeError, "%s: out is only accepted with x and y", func);
            return NULL;
        }
        if (augpy_is_tensor(st, a[0])) return augpy_nonzero(st, a[0], func);
        aug_tensor *t = augpy_tensor_from_buffer(st, a[0], aug_default_device(), func);
        PyObject *w = t ? augpy_wrap(st, t) : NULL;
        PyObject *res = w ? augpy_nonzero(st, w, func) : NULL;
        Py_XDECREF(w);
        return res;
    }
    if (!a[1] || !a[2]) {
        PyErr_Format(PyExc_ValueError, "%s: either both or neither of x and y should be given", func);
        return NULL;
    }
    aug_tensor *out = NULL;
    if (outobj && augpy_parse_out(st, outobj, &out, func) < 0) return NULL;
    aug_operand in[3];
    aug_tensor *tmp[3] = {NULL, NULL, NULL};
    PyObject *res = NULL;
    int ntensors = 0, ntmp = 0;
    int64_t volume = out ? aug_tensor_size(out) : 0;
    static const char *const argn[3] = {"condition", "x", "y"};
    for (int i = 0; i < 3; i++) {
        int r = augpy_parse_operand(st, a[i], &in[i], &tmp[i], func);
        if (r < 0) goto done;
        if (r > 0) {
            PyErr_Format(PyExc_TypeError, "%s: %s must be a Tensor, an array or a number, not '%.100s'", func,
                         argn[i], Py_TYPE(a[i])->tp_name);
            goto done;
        }
        if (in[i].tensor) {
            ntensors += tmp[i] == NULL;
            ntmp += tmp[i] != NULL;
            if (aug_tensor_size(in[i].tensor) > volume) volume = aug_tensor_size(in[i].tensor);
        }
    }
    if (ntensors + ntmp == 0 && !out) {
        PyErr_Format(PyExc_TypeError, "%s: at least one of condition, x and y must be a tensor or an array", func);
        goto done;
    }
    if (ntensors == 0 && !out) { /* only arrays: they go to the default device */
        aug_device dev = aug_default_device();
        for (int i = 0; i < 3; i++) {
            if (!tmp[i] || dev.type == AUG_DEVICE_CPU) continue;
            aug_tensor *moved = aug_tensor_to(tmp[i], dev);
            if (!moved) {
                augpy_raise(st, AUG_OK, func);
                goto done;
            }
            aug_tensor_free(tmp[i]);
            tmp[i] = moved;
            in[i].tensor = moved;
        }
    } else if (augpy_operands_to_device(st, in, tmp, 3, out, func) < 0) {
        goto done;
    }
    aug_tensor *result = out;
    aug_status s;
    AUGPY_CALL(s, volume, aug_elementwise(func, AUG_OP_WHERE, 3, in, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, &result));
    if (s != AUG_OK) augpy_raise(st, s, func);
    else res = out ? Py_NewRef(outobj) : augpy_wrap(st, result);
done:
    for (int i = 0; i < 3; i++) aug_tensor_free(tmp[i]);
    return res;
}

static PyMethodDef create_more_functions[] = {
    FASTCALL("empty", fn_empty,
             "New tensor of the given shape and dtype (default uint8, as zeros) on device_id (default: the\n"
             "current device), its values uninitialised."),
    FASTCALL("arange", fn_arange,
             "Evenly spaced values in [start, stop), as numpy.arange: arange(stop), arange(start, stop[, step]);\n"
             "ceil((stop - start) / step) elements, value i = start + i * step. dtype None: int64 when start,\n"
             "stop and step are ints, else float32 (augpy's float default, as full()); a given dtype receives\n"
             "the values saturate-cast (computed in int64 or float64). step 0 is a ValueError."),
    FASTCALL("asarray", fn_asarray,
             "a as a tensor: a tensor of that dtype on that device is returned itself; otherwise a new\n"
             "tensor (saturate-cast to dtype, copied to device_id). Arrays, nested lists and tuples and\n"
             "numbers take NumPy's dtype (Python ints int64, floats float64) unless dtype is given;\n"
             "device_id None: the tensor's own device, else the current device."),
    FASTCALL("tensor", fn_tensor,
             "A new tensor with a copy of data's values (as asarray, but always a copy).\n"
             "data: a tensor, a NumPy array or any array-like; dtype None keeps data's dtype; device_id None: "
             "the default device."),
    FASTCALL("stack", fn_stack,
             "Join tensors of one shape along a new axis (numpy.stack). Items may be tensors (all on one\n"
             "device) or arrays (copied there). The result dtype is the promotion of the items' dtypes\n"
             "unless dtype is given; out receives the values saturate-cast."),
    FASTCALL("concatenate", fn_concatenate,
             "Join tensors along an existing axis (numpy.concatenate); shapes must match except on axis.\n"
             "Items, dtype and out as in stack."),
    FASTCALL("where", fn_where,
             "Elementwise x where condition else y, broadcast together (numpy.where). condition may be of\n"
             "any dtype (non-zero, NaN included, is true); the result dtype is the promotion of x and y\n"
             "(augpy's rules; Python numbers are weak, two of them resolve as in full()); out receives the\n"
             "selected values saturate-cast. where(condition) alone returns numpy.nonzero's tuple of int64\n"
             "index tensors (on condition's device)."),
    {NULL, NULL, 0, NULL},
};

int augpy_init_create_more(PyObject *module, augpy_state *st) {
    (void)st;
    static augpy_sig *const sigs[] = {&empty_sig, &arange_sig, &asarray_sig, &tensor_sig,
                                      &stack_sig, &concatenate_sig, &where_sig, NULL};
    if (augpy_sign_methods(create_more_functions, sigs) < 0) return -1;
    return PyModule_AddFunctions(module, create_more_functions);
}
