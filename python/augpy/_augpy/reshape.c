/* _augpy/reshape.c: augpy.reshape, DALI's fn.reshape / reinterpret (semantics §12), over
 * aug_reshape_batch.
 *
 *   reshape(data, shape_input=None, *, shape=None, rel_shape=None, src_dims=None,
 *           layout=None, dtype=None)
 *
 * data is a Tensor (one sample; a Tensor comes back) or a list/tuple of Tensors (a
 * batch; a list comes back, each sample reshaped on its own). shape_input / shape /
 * rel_shape: a number, a sequence, a 1-D augpy tensor or array (every sample), or a
 * 2-D one / a list of rows (one row per sample, DALI's per-sample argument). The
 * results are views: no data is copied. C errors come back as "reshape: <DALI's
 * message>". */
#include "augpy.h"

#include <limits.h>
#include <string.h>

static const char *const FUNC = "reshape";

/* A parsed shape-like argument: rows x cols values (rows == 1 unless is2d). */
typedef struct {
    int given, is2d;
    Py_ssize_t rows, cols;
    int64_t *iv;   /* integer arguments */
    float *fv;     /* rel_shape */
} matrix;

static void matrix_free(matrix *m) {
    PyMem_Free(m->iv);
    PyMem_Free(m->fv);
    m->iv = NULL;
    m->fv = NULL;
}

static int matrix_alloc(matrix *m, Py_ssize_t rows, Py_ssize_t cols, int want_float) {
    m->rows = rows;
    m->cols = cols;
    size_t n = (size_t)(rows * cols) + 1; /* + 1: never a zero-size request */
    if (want_float) m->fv = PyMem_Calloc(n, sizeof(float));
    else m->iv = PyMem_Calloc(n, sizeof(int64_t));
    if (!m->fv && !m->iv) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* A Python number -> slot k of m. */
static int store_number(PyObject *item, matrix *m, Py_ssize_t k, const char *argname) {
    if (m->fv) {
        if (PyBool_Check(item) || !(PyFloat_Check(item) || PyIndex_Check(item) || PyNumber_Check(item))) {
            PyErr_Format(PyExc_TypeError, "%s: `%s` must contain numbers, got %R", FUNC, argname, item);
            return -1;
        }
        double v = PyFloat_AsDouble(item);
        if (v == -1.0 && PyErr_Occurred()) {
            if (!PyLong_Check(item) || !PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
            PyErr_Clear(); /* an int beyond the double range */
            PyObject *desc = augpy_int_desc(item);
            if (desc) PyErr_Format(PyExc_ValueError, "%s: value %U in `%s` is out of range", FUNC, desc, argname);
            Py_XDECREF(desc);
            return -1;
        }
        m->fv[k] = (float)v; /* semantics §12: float32(rel[d]) */
        return 0;
    }
    if (PyBool_Check(item) || PyFloat_Check(item) || !PyIndex_Check(item)) {
        PyErr_Format(PyExc_TypeError, "%s: `%s` must contain integers, got %R", FUNC, argname, item);
        return -1;
    }
    PyObject *ix = PyNumber_Index(item);
    if (!ix) return -1;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(ix, &overflow);
    if (v == -1 && PyErr_Occurred()) {
        Py_DECREF(ix);
        return -1;
    }
    if (overflow) {
        PyObject *desc = augpy_int_desc(ix);
        if (desc) PyErr_Format(PyExc_ValueError, "%s: value %U in `%s` is out of range", FUNC, desc, argname);
        Py_XDECREF(desc);
        Py_DECREF(ix);
        return -1;
    }
    Py_DECREF(ix);
    m->iv[k] = v;
    return 0;
}

/* Values of a 0/1/2-d tensor (any device, dtype, strides) into m. */
static int from_tensor(augpy_state *st, const aug_tensor *t, matrix *m, const char *argname, int want_float) {
    const aug_dtype_traits *tr = aug_dtype_info(t->dtype);
    int ok = tr && (tr->kind == AUG_KIND_INT || tr->kind == AUG_KIND_UINT || (want_float && tr->kind == AUG_KIND_FLOAT));
    if (!ok) {
        int si = strcmp(argname, "shape_input") == 0;
        PyErr_Format(PyExc_TypeError, "%s: %s%s%s must have %s type; got: %s", FUNC, si ? "" : "`",
                     si ? "Shape input" : argname, si ? "" : "`",
                     want_float ? "a numeric (non-bool)" : "integral", aug_dtype_name(t->dtype));
        return -1;
    }
    if (t->ndim > 2) {
        PyErr_Format(PyExc_ValueError,
                     "%s: shape input must be a list of 1D tensors or a single 2D tensor; `%s` has %d dimensions",
                     FUNC, argname, t->ndim);
        return -1;
    }
    m->is2d = t->ndim == 2;
    Py_ssize_t rows = t->ndim == 2 ? (Py_ssize_t)t->shape[0] : 1;
    Py_ssize_t cols = t->ndim == 0 ? 1 : (Py_ssize_t)t->shape[t->ndim - 1];
    if (matrix_alloc(m, rows, cols, want_float) < 0) return -1;
    int64_t idx[2];
    for (Py_ssize_t r = 0; r < rows; r++)
        for (Py_ssize_t c = 0; c < cols; c++) {
            idx[0] = t->ndim == 2 ? r : c;
            idx[1] = c;
            aug_scalar s;
            aug_status status = aug_tensor_get_item(t, idx, &s);
            if (status != AUG_OK) {
                augpy_raise(st, status, FUNC);
                return -1;
            }
            Py_ssize_t k = r * cols + c;
            if (want_float) {
                m->fv[k] = tr->kind == AUG_KIND_FLOAT ? (float)s.v.f
                           : tr->kind == AUG_KIND_UINT ? (float)s.v.u : (float)s.v.i;
            } else if (tr->kind == AUG_KIND_UINT && s.v.u > (uint64_t)INT64_MAX) {
                PyErr_Format(PyExc_ValueError, "%s: value %llu in `%s` is out of range", FUNC,
                             (unsigned long long)s.v.u, argname);
                return -1;
            } else {
                m->iv[k] = tr->kind == AUG_KIND_UINT ? (int64_t)s.v.u : s.v.i;
            }
        }
    return 0;
}

static int is_seq(PyObject *o) { return PyList_Check(o) || PyTuple_Check(o); }
/* A scalar number (Python or numpy scalar); arrays and tensors are not, even 0-d. */
static int is_number(augpy_state *st, PyObject *o) {
    if (PyLong_Check(o) || PyFloat_Check(o)) return 1;
    if (augpy_is_tensor(st, o) || PySequence_Check(o) || PyUnicode_Check(o) || PyBytes_Check(o)) return 0;
    return PyIndex_Check(o) || PyNumber_Check(o);
}

/* Any array-like object that is not a Python list/tuple or number: an augpy tensor,
 * or a buffer / __array_interface__ object (numpy arrays and scalars). */
static int from_array(augpy_state *st, PyObject *obj, matrix *m, const char *argname, int want_float) {
    if (augpy_is_tensor(st, obj)) return from_tensor(st, ((AugTensorObject *)obj)->t, m, argname, want_float);
    augpy_bufview view;
    if (augpy_bufview_get(st, obj, 0, &view, FUNC) < 0) return -1;
    int r = from_tensor(st, view.t, m, argname, want_float);
    augpy_bufview_release(&view);
    return r;
}

/* obj -> m. Returns 0 (m->given = 0 for None) or -1. */
static int parse_matrix(augpy_state *st, PyObject *obj, const char *argname, int want_float, matrix *m) {
    memset(m, 0, sizeof *m);
    if (!obj || obj == Py_None) return 0;
    if (PyList_Check(obj)) {
        /* A tuple snapshot: an item's __index__ / __float__ may mutate the list being read. */
        PyObject *snap = PySequence_Tuple(obj);
        if (!snap) return -1;
        int r = parse_matrix(st, snap, argname, want_float, m);
        Py_DECREF(snap);
        return r;
    }
    m->given = 1;
    if (!is_seq(obj)) {
        if (is_number(st, obj)) {
            if (matrix_alloc(m, 1, 1, want_float) < 0) return -1;
            return store_number(obj, m, 0, argname);
        }
        if (PyUnicode_Check(obj) || PyBytes_Check(obj)) {
            PyErr_Format(PyExc_TypeError, "%s: `%s` must be a sequence, an array or a tensor, not %.100s", FUNC,
                         argname, Py_TYPE(obj)->tp_name);
            return -1;
        }
        return from_array(st, obj, m, argname, want_float);
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
    int rows_form = n > 0 && !is_number(st, PySequence_Fast_GET_ITEM(obj, 0));
    if (!rows_form) {
        if (matrix_alloc(m, 1, n, want_float) < 0) return -1;
        for (Py_ssize_t i = 0; i < n; i++)
            if (store_number(PySequence_Fast_GET_ITEM(obj, i), m, i, argname) < 0) return -1;
        return 0;
    }
    /* A list of rows, one per sample. */
    m->is2d = 1;
    for (Py_ssize_t r = 0; r < n; r++) {
        matrix row;
        PyObject *item = PySequence_Fast_GET_ITEM(obj, r);
        if (PyUnicode_Check(item) || PyBytes_Check(item)) {
            PyErr_Format(PyExc_TypeError, "%s: `%s` must contain numbers, got %R", FUNC, argname, item);
            return -1;
        }
        if (is_number(st, item)) {
            PyErr_Format(PyExc_TypeError, "%s: `%s` mixes numbers and per-sample rows: %R", FUNC, argname, obj);
            return -1;
        }
        if (parse_matrix(st, item, argname, want_float, &row) < 0) {
            matrix_free(&row);
            return -1;
        }
        if (row.is2d || !row.given) {
            matrix_free(&row);
            PyErr_Format(PyExc_ValueError, "%s: shape input must be a list of 1D tensors or a single 2D tensor; got %R",
                         FUNC, obj);
            return -1;
        }
        if (r == 0 && matrix_alloc(m, n, row.cols, want_float) < 0) {
            matrix_free(&row);
            return -1;
        }
        if (row.cols != m->cols) {
            matrix_free(&row);
            PyErr_Format(PyExc_ValueError, "%s: All samples must have the same number of dimensions; `%s` is %R",
                         FUNC, argname, obj);
            return -1;
        }
        if (want_float) memcpy(m->fv + r * m->cols, row.fv, sizeof(float) * (size_t)m->cols);
        else memcpy(m->iv + r * m->cols, row.iv, sizeof(int64_t) * (size_t)m->cols);
        matrix_free(&row);
    }
    return 0;
}

static PyObject *reshape_parsed(augpy_state *st, PyObject **p);

/* data and shape_input by position, the others by keyword */
AUGPY_SIG_KWONLY(reshape_sig, "reshape", 2, {"data"}, {"shape_input", "None"}, {"shape", "None"},
                 {"rel_shape", "None"}, {"src_dims", "None"}, {"layout", "None"}, {"dtype", "None"});

static PyObject *fn_reshape(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    enum { DATA, SHAPE_INPUT, SHAPE, REL, SRC, LAYOUT, DTYPE, NSLOTS };
    augpy_state *st = augpy_state_from_module(module);
    if (!st) return NULL;
    PyObject *p[NSLOTS] = {NULL};
    if (augpy_parse_args(FUNC, args, nargs, kwnames, &reshape_sig, p) < 0) return NULL;
    if (!PyList_Check(p[DATA])) return reshape_parsed(st, p);
    /* A list of tensors is read after the other arguments ran Python code (__index__ ...)
     * that may change it: a tuple snapshot holds the tensors checked below. */
    PyObject *list = p[DATA];
    p[DATA] = PySequence_Tuple(list);
    if (!p[DATA]) return NULL;
    PyObject *r = reshape_parsed(st, p);
    Py_DECREF(p[DATA]);
    return r;
}

/* data: one tensor or (batch) a tuple of n tensors. 0 or -1. */
static int check_data(augpy_state *st, PyObject *data, int *batch, Py_ssize_t *n) {
    *batch = is_seq(data);
    *n = *batch ? PySequence_Fast_GET_SIZE(data) : 1;
    if (*n > INT_MAX) {
        PyErr_Format(PyExc_ValueError, "%s: a batch of %zd samples is too large", FUNC, *n);
        return -1;
    }
    if (!*batch && !augpy_is_tensor(st, data)) {
        PyErr_Format(PyExc_TypeError, "%s: data must be a Tensor or a list of Tensors, not %.100s", FUNC,
                     Py_TYPE(data)->tp_name);
        return -1;
    }
    for (Py_ssize_t i = 0; *batch && i < *n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(data, i);
        if (!augpy_is_tensor(st, item)) {
            PyErr_Format(PyExc_TypeError, "%s: data[%zd] must be a Tensor, not %.100s", FUNC, i,
                         Py_TYPE(item)->tp_name);
            return -1;
        }
    }
    return 0;
}

/* layout (an ASCII str, one character per dimension, or None) and dtype into base. 0 or -1. */
static int parse_layout_dtype(augpy_state *st, PyObject *layout_obj, PyObject *dtype_obj, aug_reshape_args *base) {
    if (layout_obj && layout_obj != Py_None) {
        if (!PyUnicode_Check(layout_obj)) {
            PyErr_Format(PyExc_TypeError, "%s: layout must be a str, not %.100s", FUNC, Py_TYPE(layout_obj)->tp_name);
            return -1;
        }
        const char *layout = augpy_layout_chars(layout_obj, FUNC);
        if (!layout) return -1;
        base->layout = layout;
    }
    if (dtype_obj && dtype_obj != Py_None && augpy_parse_dtype(st, dtype_obj, &base->dtype, FUNC) < 0) return -1;
    return 0;
}

/* src_dims (parsed into src: a 1-D list of ints) into src_buf and base. 0 or -1. */
static int use_src_dims(PyObject *obj, const matrix *src, int *src_buf, aug_reshape_args *base) {
    if (!src->given) return 0;
    if (src->is2d) {
        PyErr_Format(PyExc_ValueError, "%s: `src_dims` must be a 1-D list of ints, got %R", FUNC, obj);
        return -1;
    }
    if (src->cols > AUG_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "%s: `src_dims` has %zd elements; the output can have at most %d dimensions",
                     FUNC, src->cols, AUG_MAX_DIMS);
        return -1;
    }
    for (Py_ssize_t i = 0; i < src->cols; i++) {
        if (src->iv[i] < INT_MIN || src->iv[i] > INT_MAX) {
            PyErr_Format(PyExc_ValueError, "%s: `src_dims[%zd] == %lld` is out of bounds", FUNC, i,
                         (long long)src->iv[i]);
            return -1;
        }
        src_buf[i] = (int)src->iv[i];
    }
    base->has_src_dims = 1;
    base->src_ndim = (int)src->cols;
    base->src_dims = src_buf;
    return 0;
}

/* The number of args structs: one per row of a 2-D shape argument (whose rows
 * must be one per sample when it is the only shape source), else 1. -1 on error. */
static Py_ssize_t count_arg_rows(const matrix *ms, const char *const *mnames, Py_ssize_t n) {
    for (int k = 0; k < 3; k++)
        if (ms[k].given && ms[k].cols > AUG_MAX_DIMS) {
            PyErr_Format(PyExc_ValueError, "%s: `%s` has %zd elements; the output can have at most %d dimensions",
                         FUNC, mnames[k], ms[k].cols, AUG_MAX_DIMS);
            return -1;
        }
    Py_ssize_t nargs_c = 1;
    for (int k = 0; k < 3; k++)
        if (ms[k].given && ms[k].is2d) nargs_c = ms[k].rows;
    int ngiven = (ms[0].given != 0) + (ms[1].given != 0) + (ms[2].given != 0);
    /* A 2-D argument has one row per sample: a single row is not shared (DALI). With
     * several shape sources the C call reports the mutual exclusion first. */
    for (int k = 0; k < 3; k++)
        if (ngiven == 1 && ms[k].given && ms[k].is2d && ms[k].rows != n) {
            PyErr_Format(PyExc_ValueError, "%s: The new shape must have same number of samples. Got %zd, expected %zd",
                         FUNC, ms[k].rows, n);
            return -1;
        }
    if (nargs_c > INT_MAX) {
        PyErr_Format(PyExc_ValueError, "%s: too many rows in the shape argument", FUNC);
        return -1;
    }
    return nargs_c;
}

/* per[j] = base with row j (or the one row) of shape_input / shape / rel_shape. */
static void fill_arg_rows(const matrix *ms, const aug_reshape_args *base, aug_reshape_args *per, Py_ssize_t nargs_c) {
    for (Py_ssize_t j = 0; j < nargs_c; j++) {
        aug_reshape_args *a = &per[j];
        *a = *base;
        for (int k = 0; k < 3; k++) {
            if (!ms[k].given) continue;
            Py_ssize_t row = ms[k].is2d ? j : 0;
            int cols = (int)ms[k].cols;
            if (k == 0) {
                a->has_shape_input = 1;
                a->shape_input_ndim = cols;
                a->shape_input = ms[k].iv + row * cols;
            } else if (k == 1) {
                a->has_shape = 1;
                a->shape_ndim = cols;
                a->shape = ms[k].iv + row * cols;
            } else {
                a->has_rel_shape = 1;
                a->rel_ndim = cols;
                a->rel_shape = ms[k].fv + row * cols;
            }
        }
    }
    if (nargs_c == 0) per[0] = *base; /* an empty 2-D argument: checks still see the flags */
}

/* The result: outs[0] wrapped, or (batch) a list of the n wrapped outputs; the
 * wrapped entries of outs are set to NULL (the caller frees the rest). */
static PyObject *wrap_outputs(augpy_state *st, int batch, Py_ssize_t n, aug_tensor **outs) {
    if (!batch) {
        PyObject *r = augpy_wrap(st, outs[0]);
        outs[0] = NULL;
        return r;
    }
    PyObject *result = PyList_New(n);
    if (!result) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *w = augpy_wrap(st, outs[i]);
        outs[i] = NULL;
        if (!w) {
            Py_DECREF(result);
            return NULL;
        }
        PyList_SET_ITEM(result, i, w);
    }
    return result;
}

/* fn_reshape once its arguments are bound (p[DATA] a tensor, or a tuple or tuple
 * snapshot of tensors). */
static PyObject *reshape_parsed(augpy_state *st, PyObject **p) {
    enum { DATA, SHAPE_INPUT, SHAPE, REL, SRC, LAYOUT, DTYPE, NSLOTS };
    static const char *const mnames[3] = {"shape_input", "shape", "rel_shape"};
    PyObject *data = p[DATA];
    int batch;
    Py_ssize_t n;
    aug_reshape_args base = aug_reshape_args_init();
    if (check_data(st, data, &batch, &n) < 0 || parse_layout_dtype(st, p[LAYOUT], p[DTYPE], &base) < 0) return NULL;

    matrix ms[3], src;
    memset(ms, 0, sizeof ms);
    memset(&src, 0, sizeof src);
    PyObject *result = NULL;
    aug_reshape_args *per = NULL;
    aug_tensor **outs = NULL;
    const aug_tensor **ins = NULL;
    int src_buf[AUG_MAX_DIMS];
    for (int k = 0; k < 3; k++)
        if (parse_matrix(st, p[SHAPE_INPUT + k], mnames[k], k == 2, &ms[k]) < 0) goto done;
    if (parse_matrix(st, p[SRC], "src_dims", 0, &src) < 0 || use_src_dims(p[SRC], &src, src_buf, &base) < 0)
        goto done;
    Py_ssize_t nargs_c = count_arg_rows(ms, mnames, n);
    if (nargs_c < 0) goto done;
    per = PyMem_Calloc((size_t)nargs_c + 1, sizeof *per);
    outs = PyMem_Calloc((size_t)n + 1, sizeof *outs);
    ins = PyMem_Calloc((size_t)n + 1, sizeof *ins);
    if (!per || !outs || !ins) {
        PyErr_NoMemory();
        goto done;
    }
    fill_arg_rows(ms, &base, per, nargs_c);
    for (Py_ssize_t i = 0; i < n; i++)
        ins[i] = ((AugTensorObject *)(batch ? PySequence_Fast_GET_ITEM(data, i) : data))->t;
    aug_status status = aug_reshape_batch((int)n, ins, per, (int)nargs_c, outs);
    if (status != AUG_OK)
        augpy_raise(st, status, FUNC);
    else
        result = wrap_outputs(st, batch, n, outs);
done:
    if (outs)
        for (Py_ssize_t i = 0; i < n; i++) aug_tensor_free(outs[i]);
    PyMem_Free(outs);
    PyMem_Free(ins);
    PyMem_Free(per);
    for (int k = 0; k < 3; k++) matrix_free(&ms[k]);
    matrix_free(&src);
    return result;
}

static PyMethodDef reshape_functions[] = {
    {"reshape", (PyCFunction)(void (*)(void))fn_reshape, METH_FASTCALL | METH_KEYWORDS,
     "DALI's fn.reshape: a view of `data` (a Tensor, or a list of Tensors reshaped one by one) with a new\n"
     "shape, layout and/or dtype; no data is copied (the input must be contiguous). One negative extent is "
     "inferred; rel_shape multiplies input extents (src_dims picks which, -1 inserts a 1); dtype "
     "reinterprets the bytes. A 2-D shape_input/shape/rel_shape gives one row per sample."},
    {NULL, NULL, 0, NULL},
};

int augpy_init_reshape(PyObject *module, augpy_state *st) {
    (void)st;
    static augpy_sig *const sigs[] = {&reshape_sig, NULL};
    if (augpy_sign_methods(reshape_functions, sigs) < 0) return -1;
    return PyModule_AddFunctions(module, reshape_functions);
}
