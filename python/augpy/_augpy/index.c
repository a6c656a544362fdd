/* _augpy/index.c: NumPy advanced indexing of tensors from Python: a key with
 * integer index arrays (lists, numpy arrays, augpy tensors) or boolean masks,
 * mixed with basic indices, parsed into aug_index_item[] for
 * aug_tensor_index_get (__getitem__, a copy) and aug_tensor_index_put
 * (__setitem__), which plan and run it (src/core/index_plan.c, index.c).
 *
 * Here only the Python side: which objects are index arrays, numpy arrays and
 * lists as CPU tensors over their buffers (augpy tensors are passed as they
 * are, on their device), and the value as an operand. */
#include <string.h>
#include "augpy.h"

#define MAX_ITEMS AUG_INDEX_MAX_ITEMS

static inline aug_tensor *T(PyObject *self) { return ((AugTensorObject *)self)->t; }

/* ---- classification ------------------------------------------------------------------ */

/* 1 if obj is an array-like index (not a 0-d integer array, which is an int). */
static int is_array_index(augpy_state *st, PyObject *obj) {
    if (PyLong_Check(obj) || PySlice_Check(obj) || obj == Py_None || obj == Py_Ellipsis) return 0; /* the usual */
    if (PyList_Check(obj)) return 1;
    if (augpy_is_tensor(st, obj)) return T(obj)->ndim > 0 || T(obj)->dtype == AUG_BOOL;
    if (PyTuple_Check(obj) || PyUnicode_Check(obj) || PyBytes_Check(obj)) return 0;
    PyTypeObject *tp = Py_TYPE(obj);
    if (!PyObject_HasAttrString((PyObject *)tp, "__array_interface__") &&
        !PyObject_HasAttrString((PyObject *)tp, "__array__"))
        return 0;
    PyObject *nd = PyObject_GetAttrString(obj, "ndim");
    if (!nd) {
        PyErr_Clear();
        return 1;
    }
    long n = PyLong_AsLong(nd);
    Py_DECREF(nd);
    if (n == -1 && PyErr_Occurred()) PyErr_Clear();
    if (n != 0) return 1;
    PyObject *dt = PyObject_GetAttrString(obj, "dtype");
    PyObject *kind = dt ? PyObject_GetAttrString(dt, "kind") : NULL;
    Py_XDECREF(dt);
    int is_bool = kind && PyUnicode_Check(kind) && PyUnicode_CompareWithASCIIString(kind, "b") == 0;
    Py_XDECREF(kind);
    PyErr_Clear();
    return is_bool;
}

int augpy_index_is_advanced(augpy_state *st, PyObject *key) {
    if (!PyTuple_Check(key)) return is_array_index(st, key);
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(key); k++)
        if (is_array_index(st, PyTuple_GET_ITEM(key, k))) return 1;
    return 0;
}

/* ---- the key as items ------------------------------------------------------------------ */

typedef struct {
    int n;
    aug_index_item items[MAX_ITEMS];
    augpy_bufview views[MAX_ITEMS]; /* numpy index arrays (views[k].t is items[k].tensor) */
    aug_tensor *owned[MAX_ITEMS];   /* empty float arrays as int64 ([] is float64 in numpy) */
    unsigned char has_view[MAX_ITEMS];
} key_items;

static void key_free(key_items *K) {
    for (int k = 0; k < K->n; k++) {
        if (K->has_view[k]) augpy_bufview_release(&K->views[k]);
        aug_tensor_free(K->owned[k]);
    }
    K->n = 0;
}

static int dtype_kind(PyObject *arr) {
    PyObject *dt = PyObject_GetAttrString(arr, "dtype");
    PyObject *kind = dt ? PyObject_GetAttrString(dt, "kind") : NULL;
    Py_XDECREF(dt);
    int k = 0;
    if (kind && PyUnicode_Check(kind) && PyUnicode_GetLength(kind) == 1) k = (int)PyUnicode_ReadChar(kind, 0);
    Py_XDECREF(kind);
    return k;
}

/* Item k of K as the index tensor of obj (an array index). 0 or -1. */
static int array_item(augpy_state *st, PyObject *obj, key_items *K, int k, const char *func) {
    aug_index_item *it = &K->items[k];
    *it = (aug_index_item){.kind = AUG_INDEX_TENSOR};
    if (augpy_is_tensor(st, obj)) {
        it->tensor = T(obj);
        return 0;
    }
    PyObject *np = augpy_get_numpy(st);
    PyObject *arr = np ? PyObject_CallMethod(np, "asarray", "(O)", obj) : NULL;
    if (!arr) return -1;
    int kind = dtype_kind(arr), ret = -1;
    if (PyErr_Occurred()) goto done;
    if (kind != 'b' && kind != 'i' && kind != 'u' && kind != 'f') {
        PyErr_Format(PyExc_IndexError,
                     "%s: arrays used as indices must be of integer (or boolean) type, got %R", func, obj);
        goto done;
    }
    if (augpy_bufview_get(st, arr, 0, &K->views[k], func) < 0) goto done;
    K->has_view[k] = 1;
    const aug_tensor *v = K->views[k].t;
    it->tensor = v;
    if (kind == 'f' && aug_tensor_size(v) == 0) { /* [] and friends: an empty index */
        if (!(K->owned[k] = aug_tensor_empty(v->ndim, v->shape, AUG_INT64, aug_cpu_device()))) {
            augpy_raise(st, AUG_OK, func);
            goto done;
        }
        it->tensor = K->owned[k];
    }
    ret = 0;
done:
    Py_DECREF(arr);
    return ret;
}

/* The key as K's items. 0, or -1 with K holding what it must release. */
static int parse_key(augpy_state *st, PyObject *key, key_items *K, const char *func) {
    K->n = 0;
    memset(K->has_view, 0, sizeof K->has_view);
    memset(K->owned, 0, sizeof K->owned);
    int tuple = PyTuple_Check(key);
    Py_ssize_t n = tuple ? PyTuple_GET_SIZE(key) : 1;
    if (n > MAX_ITEMS) {
        PyErr_Format(PyExc_IndexError, "%s: too many indices (%zd)", func, n);
        return -1;
    }
    for (int k = 0; k < (int)n; k++) {
        PyObject *obj = tuple ? PyTuple_GET_ITEM(key, k) : key;
        K->n = k + 1;
        if (is_array_index(st, obj)) {
            if (array_item(st, obj, K, k, func) < 0) return -1;
            continue;
        }
        aug_index ix;
        if (augpy_parse_index_item(obj, &ix, func) < 0) return -1;
        K->items[k] = (aug_index_item){ix.kind, ix.i, ix.start, ix.stop, ix.step, ix.has_start, ix.has_stop, NULL};
    }
    return 0;
}

/* ---- get and set ------------------------------------------------------------------------ */

PyObject *augpy_index_get(augpy_state *st, PyObject *self, PyObject *key, const char *func) {
    key_items K;
    PyObject *res = NULL;
    if (parse_key(st, key, &K, func) == 0) {
        aug_tensor *out = NULL;
        aug_status status;
        AUGPY_CALL(status, aug_tensor_size(T(self)), aug_tensor_index_get(T(self), K.n, K.items, &out));
        res = status == AUG_OK ? augpy_wrap(st, out) : augpy_raise(st, status, func);
    }
    key_free(&K);
    return res;
}

int augpy_index_set(augpy_state *st, PyObject *self, PyObject *key, PyObject *value, const char *func) {
    key_items K;
    aug_tensor *tmp = NULL;
    int ret = -1;
    if (parse_key(st, key, &K, func) < 0) goto done;
    aug_operand op;
    int r = augpy_parse_operand(st, value, &op, &tmp, func);
    if (r < 0) goto done;
    if (r > 0 || PyUnicode_Check(value) || value == Py_None) {
        PyErr_Format(PyExc_TypeError, "%s: cannot assign %.100s to a tensor; expected a tensor, an array or a scalar",
                     func, Py_TYPE(value)->tp_name);
        goto done;
    }
    aug_status status;
    AUGPY_CALL(status, aug_tensor_size(T(self)), aug_tensor_index_put(T(self), K.n, K.items, op));
    if (status != AUG_OK) augpy_raise(st, status, func);
    else ret = 0;
done:
    aug_tensor_free(tmp);
    key_free(&K);
    return ret;
}
