/* _augpy/targets.c: the C side of augpy's co-transforms of boxes and keypoints
 * (aug/targets.h, docs/targets.md), thin layers over aug_boxes_affine(_batch) and
 * aug_keypoints_affine. The public functions (augpy.transform_boxes, ...) are in
 * augpy/targets.py, which handles numpy in / out, labels and lists of images.
 *
 *   _boxes_affine(boxes, matrix, source_size, target_size, format, normalized, min_area,
 *                 min_visibility, func) -> (Tensor (k, 4), Tensor int64 (k,))
 *   _boxes_affine_batch(boxes, counts, matrices, source_sizes, target_size, format, normalized,
 *                       min_area, min_visibility, func) -> (Tensor (N, M, 4), list counts, Tensor (N, M))
 *   _keypoints_affine(keypoints, matrix, target_size, remove_invisible, func)
 *       -> (Tensor (rows, ncols), Tensor int64 (visible,))
 *
 * boxes / keypoints: an augpy tensor (any device; results on the same device) or
 * an array-like (copied to a CPU tensor). matrix: 6 numbers (the warp matrix,
 * row-major); matrices: 6N numbers; sizes: (height, width) pairs; func: the name
 * errors carry. */
#include "augpy.h"

/* A tensor argument: borrowed Tensor, or an array-like copied to a new CPU tensor in *tmp. */
static aug_tensor *tensor_or_array(augpy_state *st, PyObject *obj, const char *func, const char *name,
                                   aug_tensor **tmp) {
    *tmp = NULL;
    if (augpy_is_tensor(st, obj)) return augpy_tensor_arg(st, obj, func, name);
    *tmp = augpy_tensor_from_buffer(st, obj, aug_cpu_device(), func);
    return *tmp;
}

/* Exactly n numbers of a sequence into float (f) or int64 (i) storage. */
static int parse_numbers(PyObject *obj, Py_ssize_t n, float *f, int64_t *i, const char *func, const char *name) {
    PyObject *seq = PySequence_Check(obj) && !PyUnicode_Check(obj) ? PySequence_Tuple(obj) : NULL;
    if (!seq) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: %s must be a sequence of numbers, not '%.100s'", func, name,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    int rc = 0;
    if (PyTuple_GET_SIZE(seq) != n) {
        PyErr_Format(PyExc_ValueError, "%s: %s must have %zd values, got %zd", func, name, n, PyTuple_GET_SIZE(seq));
        rc = -1;
    }
    for (Py_ssize_t k = 0; k < n && rc == 0; k++) {
        PyObject *item = PyTuple_GET_ITEM(seq, k);
        if (f) {
            double d;
            rc = augpy_parse_double(item, &d, func, name);
            f[k] = (float)d;
        } else {
            rc = augpy_parse_int64(item, &i[k], func, name);
        }
    }
    Py_DECREF(seq);
    return rc;
}

static int parse_box_params(augpy_state *st, PyObject *const *a, aug_box_params *p, const char *func) {
    (void)st;
    *p = aug_box_params_default();
    if (a[0]) {
        if (!PyUnicode_Check(a[0])) {
            PyErr_Format(PyExc_TypeError, "%s: format must be a str, not '%.100s'", func, Py_TYPE(a[0])->tp_name);
            return -1;
        }
        const char *s = PyUnicode_AsUTF8(a[0]);
        if (!s) return -1;
        if (aug_box_format_parse(s, &p->format, func) != AUG_OK) {
            PyErr_SetString(PyExc_ValueError, aug_last_error());
            return -1;
        }
    }
    if (a[1] && (p->normalized = PyObject_IsTrue(a[1])) < 0) return -1;
    if (a[2] && augpy_parse_double(a[2], &p->min_area, func, "min_area") < 0) return -1;
    if (a[3] && augpy_parse_double(a[3], &p->min_visibility, func, "min_visibility") < 0) return -1;
    return 0;
}

static const char *func_name(PyObject *obj, const char *dflt) {
    if (obj && PyUnicode_Check(obj)) {
        const char *s = PyUnicode_AsUTF8(obj);
        if (s) return s;
        PyErr_Clear();
    }
    return dflt;
}

AUGPY_SIG(boxes_affine_sig, "_boxes_affine", {"boxes"}, {"matrix"}, {"source_size"}, {"target_size"},
          {"format", "'xyxy'"}, {"normalized", "False"}, {"min_area", "0.0"}, {"min_visibility", "0.0"},
          {"func", "None"});

static PyObject *fn_boxes_affine(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    enum { BOXES, MAT, SRC, DST, FMT, NORM, AREA, VIS, FUNC, NSLOTS };
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[NSLOTS];
    if (!st || augpy_parse_args("augpy._boxes_affine", args, nargs, kwnames, &boxes_affine_sig, a) < 0) return NULL;
    const char *func = func_name(a[FUNC], "augpy.transform_boxes");
    float mat[6];
    int64_t src[2], dst[2];
    aug_box_params p;
    if (parse_numbers(a[MAT], 6, mat, NULL, func, "matrix") < 0 ||
        parse_numbers(a[SRC], 2, NULL, src, func, "source_size") < 0 ||
        parse_numbers(a[DST], 2, NULL, dst, func, "target_size") < 0 || parse_box_params(st, a + FMT, &p, func) < 0)
        return NULL;
    aug_tensor *tmp, *boxes = tensor_or_array(st, a[BOXES], func, "boxes", &tmp);
    if (!boxes) return NULL;
    aug_tensor *out = NULL, *keep = NULL;
    aug_status s = aug_boxes_affine(boxes, mat, src[0], src[1], dst[0], dst[1], &p, &out, &keep);
    aug_tensor_free(tmp);
    if (s != AUG_OK) return augpy_raise(st, s, func);
    PyObject *o = augpy_wrap(st, out);
    PyObject *k = o ? augpy_wrap(st, keep) : (aug_tensor_free(keep), NULL);
    if (!o || !k) {
        Py_XDECREF(o);
        return NULL;
    }
    return Py_BuildValue("(NN)", o, k);
}

AUGPY_SIG(boxes_affine_batch_sig, "_boxes_affine_batch", {"boxes"}, {"counts"}, {"matrices"}, {"source_sizes"},
          {"target_size"}, {"format", "'xyxy'"}, {"normalized", "False"}, {"min_area", "0.0"},
          {"min_visibility", "0.0"}, {"func", "None"});

static PyObject *fn_boxes_affine_batch(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    enum { BOXES, COUNTS, MATS, SRCS, DST, FMT, NORM, AREA, VIS, FUNC, NSLOTS };
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[NSLOTS];
    if (!st || augpy_parse_args("augpy._boxes_affine_batch", args, nargs, kwnames, &boxes_affine_batch_sig, a) < 0)
        return NULL;
    const char *func = func_name(a[FUNC], "augpy.transform_boxes_batch");
    aug_box_params p;
    int64_t dst[2];
    if (parse_numbers(a[DST], 2, NULL, dst, func, "target_size") < 0 || parse_box_params(st, a + FMT, &p, func) < 0)
        return NULL;
    aug_tensor *tmp, *boxes = tensor_or_array(st, a[BOXES], func, "boxes", &tmp);
    if (!boxes) return NULL;
    PyObject *ret = NULL;
    float *mats = NULL;
    int64_t *sizes = NULL, *counts = NULL, *oc = NULL;
    if (boxes->ndim != 3 || boxes->shape[2] != 4) {
        char sb[96];
        PyErr_Format(PyExc_ValueError, "%s: boxes must have shape (N, M, 4), got %s", func,
                     aug_shape_str(boxes->ndim, boxes->shape, sb, sizeof sb));
        goto done;
    }
    Py_ssize_t n = (Py_ssize_t)boxes->shape[0];
    mats = PyMem_Malloc(sizeof(float) * (size_t)(6 * n + 1));
    sizes = PyMem_Malloc(sizeof(int64_t) * (size_t)(2 * n + 1));
    counts = PyMem_Malloc(sizeof(int64_t) * (size_t)(n + 1));
    oc = PyMem_Malloc(sizeof(int64_t) * (size_t)(n + 1));
    if (!mats || !sizes || !counts || !oc) {
        PyErr_NoMemory();
        goto done;
    }
    int have_counts = a[COUNTS] && a[COUNTS] != Py_None;
    if (parse_numbers(a[MATS], 6 * n, mats, NULL, func, "matrices") < 0 ||
        parse_numbers(a[SRCS], 2 * n, NULL, sizes, func, "source_sizes") < 0 ||
        (have_counts && parse_numbers(a[COUNTS], n, NULL, counts, func, "counts") < 0))
        goto done;
    aug_tensor *out = NULL, *keep = NULL;
    aug_status s =
        aug_boxes_affine_batch(boxes, have_counts ? counts : NULL, mats, sizes, dst[0], dst[1], &p, &out, oc, &keep);
    if (s != AUG_OK) {
        augpy_raise(st, s, func);
        goto done;
    }
    PyObject *o = augpy_wrap(st, out);
    PyObject *k = o ? augpy_wrap(st, keep) : (aug_tensor_free(keep), NULL);
    PyObject *c = k ? PyList_New(n) : NULL;
    for (Py_ssize_t i = 0; c && i < n; i++) {
        PyObject *v = PyLong_FromLongLong(oc[i]);
        if (!v) {
            Py_CLEAR(c);
            break;
        }
        PyList_SET_ITEM(c, i, v);
    }
    if (!c) {
        Py_XDECREF(o);
        Py_XDECREF(k);
        goto done;
    }
    ret = Py_BuildValue("(NNN)", o, c, k);
done:
    PyMem_Free(mats);
    PyMem_Free(sizes);
    PyMem_Free(counts);
    PyMem_Free(oc);
    aug_tensor_free(tmp);
    return ret;
}

AUGPY_SIG(keypoints_affine_sig, "_keypoints_affine", {"keypoints"}, {"matrix"}, {"target_size"},
          {"remove_invisible", "False"}, {"func", "None"});

static PyObject *fn_keypoints_affine(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    enum { KP, MAT, DST, REMOVE, FUNC, NSLOTS };
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[NSLOTS];
    if (!st || augpy_parse_args("augpy._keypoints_affine", args, nargs, kwnames, &keypoints_affine_sig, a) < 0) return NULL;
    const char *func = func_name(a[FUNC], "augpy.transform_keypoints");
    float mat[6];
    int64_t dst[2];
    int remove = 0;
    if (parse_numbers(a[MAT], 6, mat, NULL, func, "matrix") < 0 ||
        parse_numbers(a[DST], 2, NULL, dst, func, "target_size") < 0 ||
        (a[REMOVE] && (remove = PyObject_IsTrue(a[REMOVE])) < 0))
        return NULL;
    aug_tensor *tmp, *kp = tensor_or_array(st, a[KP], func, "keypoints", &tmp);
    if (!kp) return NULL;
    aug_tensor *out = NULL, *keep = NULL;
    aug_status s = aug_keypoints_affine(kp, mat, dst[0], dst[1], remove, &out, &keep);
    aug_tensor_free(tmp);
    if (s != AUG_OK) return augpy_raise(st, s, func);
    PyObject *o = augpy_wrap(st, out);
    PyObject *k = o ? augpy_wrap(st, keep) : (aug_tensor_free(keep), NULL);
    if (!o || !k) {
        Py_XDECREF(o);
        return NULL;
    }
    return Py_BuildValue("(NN)", o, k);
}

static PyMethodDef targets_functions[] = {
    {"_boxes_affine", (PyCFunction)(void (*)(void))fn_boxes_affine, METH_FASTCALL | METH_KEYWORDS,
     "Boxes (n, 4) through the warp matrix (6 numbers, the inverse map): (boxes (k, 4), kept rows int64 (k,)).\n"
     "See augpy.transform_boxes."},
    {"_boxes_affine_batch", (PyCFunction)(void (*)(void))fn_boxes_affine_batch, METH_FASTCALL | METH_KEYWORDS,
     "Padded boxes (N, M, 4) with counts (N values or None): (boxes (N, M, 4), counts list, kept rows (N, M)).\n"
     "See augpy.transform_boxes_batch."},
    {"_keypoints_affine", (PyCFunction)(void (*)(void))fn_keypoints_affine, METH_FASTCALL | METH_KEYWORDS,
     "Keypoints (n, 2|3|4) through the warp matrix: (keypoints, visible rows int64). See "
     "augpy.transform_keypoints."},
    {NULL, NULL, 0, NULL},
};

int augpy_init_targets(PyObject *module, augpy_state *st) {
    (void)st;
    static augpy_sig *const sigs[] = {&boxes_affine_sig, &boxes_affine_batch_sig, &keypoints_affine_sig, NULL};
    if (augpy_sign_methods(targets_functions, sigs) < 0) return -1;
    return PyModule_AddFunctions(module, targets_functions);
}
