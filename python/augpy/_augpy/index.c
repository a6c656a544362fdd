/* _augpy/index.c: NumPy advanced indexing of tensors: integer index arrays
 * (lists, numpy arrays, augpy tensors) and boolean masks, mixed with basic
 * indices, for reading (__getitem__, a copy) and writing (__setitem__).
 *
 * The index arrays are read on the host (numpy: nonzero of the masks, range
 * checks, broadcasting); the data never leaves its device. With B the broadcast
 * shape of the index arrays, the result is `rest` (the dimensions of the basic
 * indices, in order) with B inserted where the advanced indices stand when they
 * are adjacent, or in front when a basic index separates them (NumPy's rules;
 * integer scalars next to arrays count as advanced indices, as in NumPy). The
 * basic indices are applied as a view V; the gather and scatter are one kernel
 * on the device (aug_take / aug_put over V's advanced dims, the result's or the
 * value's B dims merged into one), a k-dimensional mask over dimensions that
 * can be merged taken as a one-dimensional mask. With duplicated indices the
 * last write wins (aug_put keeps the last of repeated rows). A write through
 * one boolean mask of a value that is the same for every selected entry
 * (t[mask] = 0, img[mask] = (255, 0, 0)) is one WHERE kernel instead. */
#include <string.h>
#include "augpy.h"

#define MAX_ITEMS 64

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

/* ---- the parsed index ------------------------------------------------------------------ */

enum { E_BASIC, E_ARRAY, E_MASK };

typedef struct {
    int kind;
    aug_index ix;      /* E_BASIC */
    PyObject *arr;     /* E_ARRAY: int64 numpy array (owned); E_MASK: bool numpy array */
    int mask_ndim;     /* E_MASK */
    int sdim;          /* first source dimension it consumes (after merged masks) */
    int axis;          /* the same in the indexed tensor */
} entry;

typedef struct {
    int n;
    entry e[MAX_ITEMS + AUG_MAX_DIMS];
} index_list;

static void list_free(index_list *L) {
    for (int i = 0; i < L->n; i++) Py_XDECREF(L->e[i].arr);
    L->n = 0;
}

/* obj as a numpy array (tensors are read to the host). New reference. */
static PyObject *to_numpy(augpy_state *st, PyObject *obj, const char *func) {
    PyObject *np = augpy_get_numpy(st);
    if (!np) return NULL;
    if (augpy_is_tensor(st, obj)) return augpy_tensor_to_numpy(st, T(obj), NULL, func);
    return PyObject_CallMethod(np, "asarray", "(O)", obj);
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

static int arr_ndim(PyObject *arr) {
    PyObject *nd = PyObject_GetAttrString(arr, "ndim");
    long n = nd ? PyLong_AsLong(nd) : -1;
    Py_XDECREF(nd);
    return (int)n;
}

static int64_t arr_dim(PyObject *arr, int d) {
    PyObject *shape = PyObject_GetAttrString(arr, "shape");
    PyObject *v = shape ? PySequence_GetItem(shape, d) : NULL;
    int64_t r = v ? PyLong_AsLongLong(v) : -1;
    Py_XDECREF(v);
    Py_XDECREF(shape);
    return r;
}

/* Parses key into L: basic items, int64 index arrays and bool masks, with the
 * ellipsis expanded and each entry's first source dimension. 0 or -1. */
static int parse_key(augpy_state *st, const aug_tensor *t, PyObject *key, index_list *L, const char *func) {
    PyObject *items = PyTuple_Check(key) ? Py_NewRef(key) : PyTuple_Pack(1, key);
    if (!items) return -1;
    Py_ssize_t n = PyTuple_GET_SIZE(items);
    entry tmp[MAX_ITEMS];
    int ellipsis = -1, consumed = 0, ret = -1, m = 0;
    if (n > MAX_ITEMS) {
        PyErr_Format(PyExc_IndexError, "%s: too many indices (%zd)", func, n);
        goto done;
    }
    memset(tmp, 0, sizeof tmp);
    for (Py_ssize_t k = 0; k < n; k++, m++) {
        PyObject *it = PyTuple_GET_ITEM(items, k);
        entry *e = &tmp[k];
        if (!is_array_index(st, it)) {
            if (augpy_parse_index_item(it, &e->ix, func) < 0) goto done;
            e->kind = E_BASIC;
            if (e->ix.kind == AUG_INDEX_ELLIPSIS) {
                if (ellipsis >= 0) {
                    PyErr_Format(PyExc_IndexError, "%s: an index can only have a single ellipsis ('...')", func);
                    goto done;
                }
                ellipsis = (int)k;
            } else if (e->ix.kind != AUG_INDEX_NEWAXIS) {
                consumed++;
            }
            continue;
        }
        PyObject *arr = to_numpy(st, it, func);
        if (!arr) goto done;
        int kind = dtype_kind(arr), nd = arr_ndim(arr);
        if (nd < 0) {
            Py_DECREF(arr);
            goto done;
        }
        if (kind == 'b') {
            if (nd == 0) {
                Py_DECREF(arr);
                PyErr_Format(PyExc_IndexError, "%s: a 0-d boolean index is not supported", func);
                goto done;
            }
            e->kind = E_MASK;
            e->arr = arr;
            e->mask_ndim = nd;
            consumed += nd;
            continue;
        }
        int64_t size = 1;
        for (int d = 0; d < nd; d++) size *= arr_dim(arr, d);
        if (kind != 'i' && kind != 'u' && !(size == 0 && kind == 'f')) {
            Py_DECREF(arr);
            PyErr_Format(PyExc_IndexError,
                         "%s: arrays used as indices must be of integer (or boolean) type, got %R", func, it);
            goto done;
        }
        if (kind == 'u' && size > 0) { /* uint64 values beyond int64 would wrap in the conversion */
            PyObject *mx = PyObject_CallMethod(arr, "max", NULL);
            PyObject *big = mx ? PyLong_FromUnsignedLongLong(0x7fffffffffffffffull) : NULL;
            int over = big ? PyObject_RichCompareBool(mx, big, Py_GT) : -1;
            if (over == 1)
                PyErr_Format(PyExc_IndexError, "%s: index %S is out of bounds (beyond int64)", func, mx);
            Py_XDECREF(mx);
            Py_XDECREF(big);
            if (over != 0) {
                Py_DECREF(arr);
                goto done;
            }
        }
        PyObject *np = augpy_get_numpy(st);
        e->arr = np ? PyObject_CallMethod(np, "ascontiguousarray", "Os", arr, "int64") : NULL;
        Py_DECREF(arr);
        if (!e->arr) goto done;
        e->kind = E_ARRAY;
        consumed++;
    }
    if (consumed > t->ndim) {
        PyErr_Format(PyExc_IndexError,
                     "%s: too many indices for tensor: tensor is %d-dimensional, but %d were indexed", func, t->ndim,
                     consumed);
        goto done;
    }
    /* Expand the ellipsis (or pad at the end) with full slices. */
    L->n = 0;
    int sdim = 0;
    for (int k = 0; k <= m; k++) {
        int pad = (k == (ellipsis >= 0 ? ellipsis : m)) ? t->ndim - consumed : 0;
        for (int p = 0; p < pad; p++) {
            entry *e = &L->e[L->n++];
            memset(e, 0, sizeof *e);
            e->kind = E_BASIC;
            e->ix.kind = AUG_INDEX_SLICE;
            e->ix.step = 1;
            e->sdim = e->axis = sdim++;
        }
        if (k == m || k == ellipsis) continue;
        entry *e = &L->e[L->n++];
        *e = tmp[k];
        tmp[k].arr = NULL;
        e->sdim = e->axis = sdim;
        if (e->kind == E_MASK) sdim += e->mask_ndim;
        else if (!(e->kind == E_BASIC && e->ix.kind == AUG_INDEX_NEWAXIS)) sdim++;
    }
    ret = 0;
done:
    for (int k = 0; k < m && k < MAX_ITEMS; k++) Py_XDECREF(tmp[k].arr);
    Py_DECREF(items);
    return ret;
}

/* ---- the plan of one advanced index ------------------------------------------------------- */

typedef struct {
    aug_tensor *V;               /* source view: basic indices applied, advanced dims kept whole */
    int nadv;                    /* index arrays */
    int advdim[AUG_MAX_DIMS];    /* their dimensions in V */
    PyObject *idx[AUG_MAX_DIMS]; /* broadcast int64 numpy arrays, C-contiguous */
    Py_buffer buf[AUG_MAX_DIMS];
    int nb;                      /* ndim of B */
    int64_t B[AUG_MAX_DIMS];
    int64_t nB;                  /* elements of B */
    int nrest;
    int64_t rest[AUG_MAX_DIMS];
    int p;                       /* position of B in the result */
    int out_ndim;
    int64_t out_shape[AUG_MAX_DIMS];
    int perm[AUG_MAX_DIMS];      /* result dims -> (B, rest) order */
} adv_plan;

static void plan_free(adv_plan *P) {
    for (int i = 0; i < P->nadv; i++) {
        if (P->buf[i].obj) PyBuffer_Release(&P->buf[i]);
        Py_XDECREF(P->idx[i]);
    }
    aug_tensor_free(P->V);
}

/* A view of t with source dims [d, d + k) merged into one, or NULL if their strides
 * do not allow it (no exception). */
static aug_tensor *merge_dims(const aug_tensor *t, int d, int k) {
    for (int i = d; i < d + k - 1; i++)
        if (t->strides[i] != t->strides[i + 1] * t->shape[i + 1]) return NULL;
    aug_tensor *v = aug_tensor_view(t);
    if (!v) return NULL;
    int64_t len = 1, stride = t->strides[d + k - 1];
    for (int i = d; i < d + k; i++) len *= t->shape[i];
    v->shape[d] = len;
    v->strides[d] = stride;
    for (int i = d + k; i < t->ndim; i++) {
        v->shape[i - k + 1] = t->shape[i];
        v->strides[i - k + 1] = t->strides[i];
    }
    v->ndim = t->ndim - k + 1;
    memset(v->layout, 0, sizeof v->layout);
    return v;
}

static int build_plan(augpy_state *st, const aug_tensor *t, index_list *L, adv_plan *P, const char *func) {
    PyObject *np = augpy_get_numpy(st);
    if (!np) return -1;
    memset(P, 0, sizeof *P);
    int has_array = 0;
    for (int i = 0; i < L->n; i++) has_array |= L->e[i].kind != E_BASIC;
    /* Masks over several dims that can be merged: one dim, a flattened mask. */
    aug_tensor *src = aug_tensor_view(t);
    if (!src) return augpy_raise(st, AUG_OK, func), -1;
    int shift = 0;
    for (int i = 0; i < L->n; i++) {
        entry *e = &L->e[i];
        e->sdim -= shift;
        if (e->kind != E_MASK) continue;
        for (int d = 0; d < e->mask_ndim; d++) {
            int64_t md = arr_dim(e->arr, d), sd = src->shape[e->sdim + d];
            if (md != sd) {
                PyErr_Format(PyExc_IndexError,
                             "%s: boolean index did not match indexed tensor along axis %d; size of axis is %lld "
                             "but size of corresponding boolean axis is %lld",
                             func, e->sdim + shift + d, (long long)sd, (long long)md);
                aug_tensor_free(src);
                return -1;
            }
        }
        if (e->mask_ndim > 1) {
            aug_tensor *mv = merge_dims(src, e->sdim, e->mask_ndim);
            if (mv) {
                PyObject *flat = PyObject_CallMethod(e->arr, "reshape", "(i)", -1);
                if (!flat) {
                    aug_tensor_free(mv);
                    aug_tensor_free(src);
                    return -1;
                }
                Py_SETREF(e->arr, flat);
                aug_tensor_free(src);
                src = mv;
                shift += e->mask_ndim - 1;
                e->mask_ndim = 1;
            }
        }
    }
    /* Basic indices applied with advanced dims kept whole: V. Ints are advanced
     * (0-d index arrays) when an array is present. */
    aug_index vix[MAX_ITEMS + AUG_MAX_DIMS];
    int nv = 0, vdim = 0;
    PyObject *arrays[AUG_MAX_DIMS];
    int64_t arrsize[AUG_MAX_DIMS];
    int arraxis[AUG_MAX_DIMS];
    int narr = 0, first_adv = -1, last_adv = -1, separated = 0;
    for (int i = 0; i < L->n; i++) {
        entry *e = &L->e[i];
        int adv = e->kind != E_BASIC || (has_array && e->ix.kind == AUG_INDEX_INT);
        if (!adv) {
            vix[nv++] = e->ix;
            if (e->ix.kind != AUG_INDEX_INT) vdim++;
            continue;
        }
        if (last_adv >= 0 && last_adv != i - 1) separated = 1;
        if (first_adv < 0) first_adv = i;
        last_adv = i;
        int k = e->kind == E_MASK ? e->mask_ndim : 1;
        if (narr + k > AUG_MAX_DIMS) {
            PyErr_Format(PyExc_IndexError, "%s: too many index arrays", func);
            goto fail;
        }
        PyObject *parts = NULL;
        if (e->kind == E_MASK) {
            parts = PyObject_CallMethod(e->arr, "nonzero", NULL);
        } else if (e->kind == E_ARRAY) {
            parts = PyTuple_Pack(1, e->arr);
        } else {
            PyObject *v = PyLong_FromLongLong(e->ix.i);
            PyObject *a = v ? PyObject_CallMethod(np, "array", "Os", v, "int64") : NULL;
            Py_XDECREF(v);
            parts = a ? PyTuple_Pack(1, a) : NULL;
            Py_XDECREF(a);
        }
        if (!parts) goto fail;
        for (int d = 0; d < k; d++) {
            aug_index full;
            memset(&full, 0, sizeof full);
            full.kind = AUG_INDEX_SLICE;
            full.step = 1;
            vix[nv++] = full;
            P->advdim[narr] = vdim++;
            arrsize[narr] = src->shape[e->sdim + d];
            arraxis[narr] = e->axis + d;
            arrays[narr++] = Py_NewRef(PyTuple_GET_ITEM(parts, d));
        }
        Py_DECREF(parts);
    }
    P->V = aug_tensor_index(src, nv, vix);
    aug_tensor_free(src);
    src = NULL;
    if (!P->V) {
        for (int i = 0; i < narr; i++) Py_DECREF(arrays[i]);
        return augpy_raise(st, AUG_OK, func), -1;
    }
    /* Broadcast the arrays. */
    PyObject *tup = PyTuple_New(narr);
    if (!tup) goto fail_arrays;
    for (int i = 0; i < narr; i++) PyTuple_SET_ITEM(tup, i, Py_NewRef(arrays[i]));
    PyObject *bfn = PyObject_GetAttrString(np, "broadcast_arrays");
    PyObject *bc = bfn ? PyObject_CallObject(bfn, tup) : NULL;
    Py_XDECREF(bfn);
    Py_DECREF(tup);
    if (!bc) {
        if (PyErr_ExceptionMatches(PyExc_ValueError)) {
            PyObject *shapes = PyList_New(0);
            for (int i = 0; shapes && i < narr; i++) {
                PyObject *s = PyObject_GetAttrString(arrays[i], "shape");
                if (s) PyList_Append(shapes, s);
                Py_XDECREF(s);
            }
            PyErr_Clear();
            PyErr_Format(PyExc_IndexError, "%s: shape mismatch: indexing arrays could not be broadcast together "
                         "with shapes %R", func, shapes);
            Py_XDECREF(shapes);
        }
        goto fail_arrays;
    }
    P->nadv = narr;
    for (int i = 0; i < narr; i++) {
        PyObject *a = PySequence_GetItem(bc, i);
        P->idx[i] = a ? PyObject_CallMethod(np, "ascontiguousarray", "Os", a, "int64") : NULL;
        Py_XDECREF(a);
        if (!P->idx[i] || PyObject_GetBuffer(P->idx[i], &P->buf[i], PyBUF_C_CONTIGUOUS) < 0) {
            Py_DECREF(bc);
            goto fail_arrays;
        }
    }
    Py_DECREF(bc);
    P->nb = arr_ndim(P->idx[0]);
    P->nB = 1;
    for (int d = 0; d < P->nb; d++) {
        P->B[d] = arr_dim(P->idx[0], d);
        P->nB *= P->B[d];
    }
    /* Range checks and wrapping of negative indices. */
    for (int i = 0; i < narr; i++) {
        int64_t *v = P->buf[i].buf, size = arrsize[i];
        for (int64_t j = 0; j < P->nB; j++) {
            int64_t x = v[j];
            if (x < -size || x >= size) {
                PyErr_Format(PyExc_IndexError, "%s: index %lld is out of bounds for axis %d with size %lld", func,
                             (long long)x, arraxis[i], (long long)size);
                goto fail_arrays;
            }
        }
    }
    for (int i = 0; i < narr; i++) Py_DECREF(arrays[i]);
    /* rest, the result shape and the permutation to (B, rest). */
    int isadv[AUG_MAX_DIMS] = {0};
    for (int i = 0; i < narr; i++) isadv[P->advdim[i]] = 1;
    P->nrest = 0;
    P->p = -1;
    for (int d = 0; d < P->V->ndim; d++) {
        if (isadv[d]) {
            if (P->p < 0) P->p = P->nrest;
            continue;
        }
        P->rest[P->nrest++] = P->V->shape[d];
    }
    if (separated) P->p = 0;
    P->out_ndim = P->nrest + P->nb;
    if (P->out_ndim > AUG_MAX_DIMS) {
        PyErr_Format(PyExc_IndexError, "%s: the result would have %d dimensions (at most %d)", func, P->out_ndim,
                     AUG_MAX_DIMS);
        return -1;
    }
    for (int d = 0, r = 0; d < P->out_ndim; d++) {
        if (d >= P->p && d < P->p + P->nb) P->out_shape[d] = P->B[d - P->p];
        else P->out_shape[d] = P->rest[r++];
    }
    int k = 0;
    for (int d = 0; d < P->nb; d++) P->perm[k++] = P->p + d;
    for (int d = 0; d < P->out_ndim; d++)
        if (d < P->p || d >= P->p + P->nb) P->perm[k++] = d;
    return 0;
fail:
    aug_tensor_free(src);
fail_arrays:
    for (int i = 0; i < narr; i++) Py_XDECREF(arrays[i]);
    return -1;
}

/* V with the advanced dims first (in the order of the index arrays), as
 * aug_take / aug_put index them. New view. */
static aug_tensor *adv_first(const adv_plan *P) {
    int perm[AUG_MAX_DIMS], isadv[AUG_MAX_DIMS] = {0}, k = 0;
    for (int i = 0; i < P->nadv; i++) {
        perm[k++] = P->advdim[i];
        isadv[P->advdim[i]] = 1;
    }
    for (int d = 0; d < P->V->ndim; d++)
        if (!isadv[d]) perm[k++] = d;
    return aug_tensor_permute(P->V, perm);
}

/* A (B, rest)-ordered view W as (nB, rest): its B dims merged into one. NULL (no
 * error) when their strides do not allow it. */
static aug_tensor *rows_view(const adv_plan *P, const aug_tensor *W) {
    for (int d = 0, prev = -1; d < P->nb; d++) { /* consecutive extents > 1 must nest (extent-1 dims: any stride) */
        if (W->shape[d] == 1) continue;
        if (prev >= 0 && W->strides[prev] != W->strides[d] * W->shape[d]) return NULL;
        prev = d;
    }
    aug_tensor *v = aug_tensor_view(W);
    if (!v) return NULL;
    int64_t stride = 0;
    for (int d = P->nb - 1; d >= 0; d--)
        if (W->shape[d] != 1) {
            stride = W->strides[d];
            break;
        }
    v->shape[0] = P->nB;
    v->strides[0] = stride;
    for (int d = 0; d < P->nrest; d++) {
        v->shape[1 + d] = W->shape[P->nb + d];
        v->strides[1 + d] = W->strides[P->nb + d];
    }
    v->ndim = 1 + P->nrest;
    memset(v->layout, 0, sizeof v->layout);
    return v;
}

static aug_tensor *perm_view(const adv_plan *P, const aug_tensor *t) { return aug_tensor_permute(t, P->perm); }

PyObject *augpy_index_get(augpy_state *st, PyObject *self, PyObject *key, const char *func) {
    index_list L = {0};
    adv_plan P;
    memset(&P, 0, sizeof P);
    PyObject *res = NULL;
    aug_tensor *out = NULL, *W = NULL, *R = NULL, *A = NULL;
    if (parse_key(st, T(self), key, &L, func) < 0) goto done;
    if (build_plan(st, T(self), &L, &P, func) < 0) goto done;
    out = aug_tensor_empty(P.out_ndim, P.out_shape, T(self)->dtype, T(self)->device);
    W = out ? perm_view(&P, out) : NULL;
    R = W ? rows_view(&P, W) : NULL; /* out is packed: its B dims always merge */
    A = R ? adv_first(&P) : NULL;
    if (!A) {
        augpy_raise(st, AUG_OK, func);
        goto done;
    }
    const int64_t *idx[AUG_MAX_DIMS];
    for (int i = 0; i < P.nadv; i++) idx[i] = P.buf[i].buf;
    aug_status status;
    AUGPY_CALL(status, P.nB, aug_take(A, P.nadv, idx, P.nB, &R));
    if (status != AUG_OK) {
        augpy_raise(st, status, func);
        goto done;
    }
    res = augpy_wrap(st, out);
    out = NULL;
done:
    aug_tensor_free(A);
    aug_tensor_free(R);
    aug_tensor_free(W);
    aug_tensor_free(out);
    plan_free(&P);
    list_free(&L);
    return res;
}

/* t[mask] = value as one WHERE kernel, t = where(mask, value, t) computed in t's
 * dtype, when mask is a boolean mask over t's leading dimensions and value (a
 * number, or a tensor or array broadcastable to the remaining dimensions) is the
 * same for every selected entry. 1 done, 0 not this case (nothing raised), -1 error. */
static int set_by_where(augpy_state *st, aug_tensor *t, PyObject *key, PyObject *value, const char *func) {
    if (PyTuple_Check(key)) {
        if (PyTuple_GET_SIZE(key) != 1) return 0;
        key = PyTuple_GET_ITEM(key, 0);
    }
    if (PyList_Check(key) || PyUnicode_Check(value) || PyBytes_Check(value) || value == Py_None) return 0;
    int tensor_key = augpy_is_tensor(st, key);
    if (tensor_key ? T(key)->dtype != AUG_BOOL : !is_array_index(st, key)) return 0;
    aug_operand in[3];
    aug_tensor *vtmp = NULL, *mtmp = NULL, *mview = NULL;
    int ret = -1;
    const aug_tensor *mask;
    if (tensor_key) {
        mask = T(key);
    } else {
        PyObject *arr = to_numpy(st, key, func);
        if (!arr) return -1;
        if (dtype_kind(arr) != 'b') {
            Py_DECREF(arr);
            return 0;
        }
        mtmp = augpy_tensor_from_buffer(st, arr, t->device, func);
        Py_DECREF(arr);
        if (!mtmp) return -1;
        mask = mtmp;
    }
    int k = mask->ndim, rest = t->ndim - k, ok = k >= 1 && rest >= 0;
    for (int d = 0; ok && d < k; d++) ok = mask->shape[d] == t->shape[d];
    if (!ok) { /* the general path reports it */
        ret = 0;
        goto done;
    }
    int r = augpy_parse_operand(st, value, &in[1], &vtmp, func);
    if (r != 0) {
        ret = r > 0 ? 0 : -1;
        goto done;
    }
    if (in[1].tensor) { /* the same value for every selected entry: broadcastable to t.shape[k:] */
        const aug_tensor *v = in[1].tensor;
        ok = v->ndim <= rest;
        for (int d = 0; ok && d < v->ndim; d++) {
            int64_t e = v->shape[v->ndim - 1 - d], want = t->shape[t->ndim - 1 - d];
            ok = e == want || e == 1;
        }
        if (!ok) {
            ret = 0;
            goto done;
        }
        if (vtmp && augpy_operands_to_device(st, &in[1], &vtmp, 1, t, func) < 0) goto done;
    }
    /* the mask on t's device, with extent-1 trailing dimensions over the rest */
    if (mask->device.type != t->device.type || mask->device.id != t->device.id) {
        aug_tensor *moved = aug_tensor_to(mask, t->device);
        if (!moved) {
            augpy_raise(st, AUG_OK, func);
            goto done;
        }
        aug_tensor_free(mtmp);
        mask = mtmp = moved;
    }
    mview = aug_tensor_view(mask);
    if (!mview) {
        augpy_raise(st, AUG_OK, func);
        goto done;
    }
    for (int d = k; d < t->ndim; d++) {
        mview->shape[d] = 1;
        mview->strides[d] = 0;
    }
    mview->ndim = t->ndim;
    memset(mview->layout, 0, sizeof mview->layout);
    in[0] = aug_operand_tensor(mview);
    in[2] = aug_operand_tensor(t);
    aug_tensor *out = t;
    aug_status status;
    AUGPY_CALL(status, aug_tensor_size(t),
               aug_elementwise(func, AUG_OP_WHERE, 3, in, t->dtype, AUG_DTYPE_AUTO, &out));
    if (status != AUG_OK) augpy_raise(st, status, func);
    else ret = 1;
done:
    aug_tensor_free(mview);
    aug_tensor_free(mtmp);
    aug_tensor_free(vtmp);
    return ret;
}

int augpy_index_set(augpy_state *st, PyObject *self, PyObject *key, PyObject *value, const char *func) {
    int fast = set_by_where(st, T(self), key, value, func);
    if (fast != 0) return fast < 0 ? -1 : 0;
    index_list L = {0};
    adv_plan P;
    memset(&P, 0, sizeof P);
    int ret = -1;
    aug_tensor *tmp = NULL, *bc = NULL, *W = NULL, *R = NULL, *A = NULL, *packed = NULL;
    aug_operand op;
    const aug_tensor *dst = T(self);
    if (parse_key(st, dst, key, &L, func) < 0) goto done;
    if (build_plan(st, dst, &L, &P, func) < 0) goto done;
    int r = augpy_parse_operand(st, value, &op, &tmp, func);
    if (r < 0) goto done;
    if (r > 0 || PyUnicode_Check(value) || value == Py_None) {
        PyErr_Format(PyExc_TypeError, "%s: cannot assign %.100s to a tensor; expected a tensor, an array or a scalar",
                     func, Py_TYPE(value)->tp_name);
        goto done;
    }
    if (!op.tensor) { /* a number: one element of dst's dtype, broadcast over the rows */
        tmp = aug_tensor_full(0, NULL, dst->dtype, dst->device, &op.scalar);
        if (!tmp) {
            augpy_raise(st, AUG_OK, func);
            goto done;
        }
        op.tensor = tmp;
    } else if (tmp && augpy_operands_to_device(st, &op, &tmp, 1, dst, func) < 0) {
        goto done;
    }
    const aug_tensor *v = op.tensor; /* aug_put reads it completely first, even if it overlaps dst */
    bc = aug_tensor_broadcast_to(v, P.out_ndim, P.out_shape);
    if (!bc) {
        char a[128], b[128];
        PyErr_Format(PyExc_ValueError,
                     "%s: shape mismatch: value array of shape %s could not be broadcast to indexing result of "
                     "shape %s",
                     func, aug_shape_str(v->ndim, v->shape, a, sizeof a),
                     aug_shape_str(P.out_ndim, P.out_shape, b, sizeof b));
        goto done;
    }
    W = perm_view(&P, bc);
    R = W ? rows_view(&P, W) : NULL;
    if (W && !R) { /* B dims that do not merge (a partly broadcast value): packed first */
        packed = aug_tensor_empty(W->ndim, W->shape, W->dtype, W->device);
        if (packed && aug_copy(W, packed) == AUG_OK) R = rows_view(&P, packed);
    }
    A = R ? adv_first(&P) : NULL;
    if (!A) {
        augpy_raise(st, AUG_OK, func);
        goto done;
    }
    const int64_t *idx[AUG_MAX_DIMS];
    for (int i = 0; i < P.nadv; i++) idx[i] = P.buf[i].buf;
    aug_status status;
    AUGPY_CALL(status, P.nB, aug_put(A, P.nadv, idx, P.nB, R));
    if (status != AUG_OK) augpy_raise(st, status, func);
    else ret = 0;
done:
    aug_tensor_free(A);
    aug_tensor_free(R);
    aug_tensor_free(packed);
    aug_tensor_free(W);
    aug_tensor_free(bc);
    aug_tensor_free(tmp);
    plan_free(&P);
    list_free(&L);
    return ret;
}
