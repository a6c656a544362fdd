/* _augpy/rrc.c: _random_resized_crop and _plan_decode over aug/rrc.h
 * (aug_random_resized_crop, aug_plan_decode, aug_plan_decode_at). They return plain tuples; the
 * public functions augpy.random_resized_crop / augpy.plan_decode
 * (python/augpy/rrc.py) turn them into numpy arrays. The generator is read
 * and advanced through its get_state / set_state; a sequence of per-image
 * (seed, calls) states in its place draws image k from states[k] alone. */
#include "augpy.h"

#include "aug/rrc.h"

static PyObject *floats6(const float m[6]) {
    return Py_BuildValue("(dddddd)", (double)m[0], (double)m[1], (double)m[2], (double)m[3], (double)m[4],
                         (double)m[5]);
}

/* (scale_m, roi, matrix, supersampling) */
static PyObject *plan_tuple(const aug_decode_plan *p) {
    PyObject *roi = augpy_int64_tuple(4, p->roi), *m = floats6(p->matrix);
    if (roi == NULL || m == NULL) {
        Py_XDECREF(roi);
        Py_XDECREF(m);
        return NULL;
    }
    return Py_BuildValue("(iNNi)", p->scale_m, roi, m, p->supersampling);
}

static int parse_pair(PyObject *obj, double v[2], const char *func, const char *name) {
    PyObject *seq = PySequence_Check(obj) ? PySequence_Tuple(obj) : NULL;
    if (seq == NULL || PyTuple_GET_SIZE(seq) != 2) {
        Py_XDECREF(seq);
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: %s must be a pair of numbers (min, max)", func, name);
        return -1;
    }
    int r = augpy_parse_double(PyTuple_GET_ITEM(seq, 0), &v[0], func, name) < 0 ||
                    augpy_parse_double(PyTuple_GET_ITEM(seq, 1), &v[1], func, name) < 0
                ? -1
                : 0;
    Py_DECREF(seq);
    return r;
}

/* obj's items as a tuple (PySequence_Fast, a list copied): an item's __index__
 * may change the list while the items are read. New reference or NULL. */
static PyObject *snapshot(PyObject *obj, const char *msg) {
    PyObject *fast = PySequence_Fast(obj, msg);
    if (fast == NULL || !PyList_Check(fast)) return fast;
    PyObject *t = PyList_AsTuple(fast);
    Py_DECREF(fast);
    return t;
}

/* aug_random_resized_crop on a copy of the RandomNumberGenerator rng_obj's state,
 * which then advances by one call (through its get_state / set_state). 0 or -1. */
static int draw_generator(augpy_state *st, PyObject *rng_obj, Py_ssize_t n, const int64_t *dims, int64_t oh, int64_t ow,
                          const aug_rrc_params *p, aug_rrc *out, const char *func) {
    PyObject *state = PyObject_CallMethod(rng_obj, "get_state", NULL);
    unsigned long long seed, calls;
    if (state == NULL || !PyArg_ParseTuple(state, "KK", &seed, &calls)) {
        Py_XDECREF(state);
        return -1;
    }
    Py_DECREF(state);
    uint64_t s64 = seed;
    aug_rng_state rs = {seed, calls};
    aug_status status = AUG_OK;
    aug_rng *rng = aug_rng_new(aug_cpu_device(), &s64);
    if (rng == NULL || aug_rng_set_state(rng, &rs) != AUG_OK ||
        (status = aug_random_resized_crop(rng, n, dims, dims + n, oh, ow, p, out)) != AUG_OK) {
        augpy_raise(st, status != AUG_OK ? status : aug_last_status(), func);
        aug_rng_free(rng);
        return -1;
    }
    aug_rng_free(rng);
    PyObject *r = PyObject_CallMethod(rng_obj, "set_state", "((KK))", seed, calls + 1);
    if (r == NULL) return -1;
    Py_DECREF(r);
    return 0;
}

/* _random_resized_crop(rng, heights, widths, out_height, out_width, scale, ratio, hflip, max_supersampling,
 * dct_scale, roi) -> [(crop, hflip, matrix, supersampling, (scale_m, roi, matrix, supersampling)), ...]
 * rng: a RandomNumberGenerator (aug_random_resized_crop, one call of it) or a sequence of n (seed, calls)
 * states (aug_random_resized_crop_states; no generator is advanced). */
AUGPY_SIG(random_resized_crop_sig, "_random_resized_crop", {"rng"}, {"heights"}, {"widths"}, {"out_height"},
          {"out_width"}, {"scale"}, {"ratio"}, {"hflip"}, {"max_supersampling"}, {"dct_scale"}, {"roi"});

static PyObject *py_rrc(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char func[] = "random_resized_crop";
    PyObject *a[11];
    if (augpy_parse_args(func, args, nargs, kwnames, &random_resized_crop_sig, a) < 0) return NULL;
    augpy_state *st = augpy_state_from_module(module);
    if (st == NULL) return NULL;
    /* rng: a generator, or one (seed, calls) state per image (parsed first, from a snapshot) */
    aug_rng_state *states = NULL;
    Py_ssize_t nstates = 0;
    if (!PyObject_TypeCheck(a[0], st->RandomType) && (nstates = augpy_parse_rng_states(a[0], &states, func, "rng")) < 0)
        return NULL;
    aug_rrc_params p = aug_rrc_params_default();
    double sc[2], ra[2];
    int64_t oh, ow;
    if (parse_pair(a[5], sc, func, "scale") < 0 || parse_pair(a[6], ra, func, "ratio") < 0 ||
        augpy_parse_double(a[7], &p.hflip, func, "hflip") < 0 ||
        augpy_parse_int(a[8], &p.max_supersampling, func, "max_supersampling") < 0 ||
        augpy_parse_int64(a[3], &oh, func, "size") < 0 || augpy_parse_int64(a[4], &ow, func, "size") < 0) {
        PyMem_Free(states);
        return NULL;
    }
    p.scale_min = sc[0], p.scale_max = sc[1], p.ratio_min = ra[0], p.ratio_max = ra[1];
    if ((p.dct_scale = PyObject_IsTrue(a[9])) < 0 || (p.use_roi = PyObject_IsTrue(a[10])) < 0) {
        PyMem_Free(states);
        return NULL;
    }
    PyObject *hs = snapshot(a[1], "random_resized_crop: sizes must be a sequence of (height, width)");
    PyObject *ws = hs ? snapshot(a[2], "random_resized_crop: sizes must be a sequence of (height, width)") : NULL;
    PyObject *result = NULL;
    int64_t *dims = NULL;
    aug_rrc *out = NULL;
    if (ws == NULL) goto done;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(hs);
    if (PySequence_Fast_GET_SIZE(ws) != n) {
        PyErr_Format(PyExc_ValueError, "%s: %zd heights but %zd widths", func, n, PySequence_Fast_GET_SIZE(ws));
        goto done;
    }
    if (states != NULL && nstates != n) {
        PyErr_Format(PyExc_ValueError, "%s: %zd generator states (rng) but %zd images", func, nstates, n);
        goto done;
    }
    dims = PyMem_Malloc(sizeof(int64_t) * 2 * (size_t)(n + 1));
    out = PyMem_Malloc(sizeof(aug_rrc) * (size_t)(n + 1));
    if (dims == NULL || out == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (augpy_parse_int64(PySequence_Fast_GET_ITEM(hs, i), &dims[i], func, "height") < 0 ||
            augpy_parse_int64(PySequence_Fast_GET_ITEM(ws, i), &dims[n + i], func, "width") < 0)
            goto done;
    if (states != NULL) {
        aug_status status = aug_random_resized_crop_states(states, n, dims, dims + n, oh, ow, &p, out);
        if (status != AUG_OK) {
            augpy_raise(st, status, func);
            goto done;
        }
    } else if (draw_generator(st, a[0], n, dims, oh, ow, &p, out, func) < 0) {
        goto done;
    }
    if ((result = PyList_New(n)) == NULL) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *crop = augpy_int64_tuple(4, out[i].crop), *m = floats6(out[i].matrix),
                 *plan = plan_tuple(&out[i].plan);
        PyObject *item = crop && m && plan ? Py_BuildValue("(NNNiN)", crop, PyBool_FromLong(out[i].hflip), m,
                                                           out[i].supersampling, plan)
                                           : NULL;
        if (item == NULL) {
            Py_XDECREF(crop), Py_XDECREF(m), Py_XDECREF(plan);
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, i, item);
    }
done:
    PyMem_Free(states);
    PyMem_Free(dims);
    PyMem_Free(out);
    Py_XDECREF(hs);
    Py_XDECREF(ws);
    return result;
}

/* _plan_decode(matrix (6 numbers), src_height, src_width, out_height, out_width, supersampling, dct_scale, roi):
 * dct_scale True / False as aug_plan_decode's, an int M (1, 2, 4, 8) aug_plan_decode_at's scale */
AUGPY_SIG(plan_decode_sig, "_plan_decode", {"matrix"}, {"src_height"}, {"src_width"}, {"out_height"},
          {"out_width"}, {"supersampling"}, {"dct_scale"}, {"roi"});

static PyObject *py_plan(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char func[] = "plan_decode";
    PyObject *a[8];
    if (augpy_parse_args(func, args, nargs, kwnames, &plan_decode_sig, a) < 0) return NULL;
    augpy_state *st = augpy_state_from_module(module);
    if (st == NULL) return NULL;
    PyObject *seq = PySequence_Check(a[0]) ? PySequence_Tuple(a[0]) : NULL;
    if (seq == NULL || PyTuple_GET_SIZE(seq) != 6) {
        Py_XDECREF(seq);
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: matrix must have 6 values (a 2x3 matrix)", func);
        return NULL;
    }
    float m[6];
    for (int i = 0; i < 6; i++) {
        double v;
        if (augpy_parse_double(PyTuple_GET_ITEM(seq, i), &v, func, "matrix") < 0) {
            Py_DECREF(seq);
            return NULL;
        }
        m[i] = (float)v;
    }
    Py_DECREF(seq);
    int64_t sh, sw, oh, ow;
    int ss, dct, roi;
    if (augpy_parse_int64(a[1], &sh, func, "source_size") < 0 ||
        augpy_parse_int64(a[2], &sw, func, "source_size") < 0 ||
        augpy_parse_int64(a[3], &oh, func, "output_size") < 0 ||
        augpy_parse_int64(a[4], &ow, func, "output_size") < 0 ||
        augpy_parse_int(a[5], &ss, func, "supersampling") < 0 || (roi = PyObject_IsTrue(a[7])) < 0)
        return NULL;
    /* dct_scale: a bool (the planner's scale / none) or the scale M itself */
    int at = !PyBool_Check(a[6]);
    if (at ? augpy_parse_int(a[6], &dct, func, "dct_scale") < 0 : (dct = PyObject_IsTrue(a[6])) < 0) return NULL;
    aug_decode_plan plan;
    aug_status status = at ? aug_plan_decode_at(m, sh, sw, oh, ow, ss, dct, roi, &plan)
                           : aug_plan_decode(m, sh, sw, oh, ow, ss, dct, roi, &plan);
    if (status != AUG_OK) return augpy_raise(st, status, func);
    return plan_tuple(&plan);
}

/* _resize_center_crop_matrix(src_height, src_width, resize, out_height, out_width, max_supersampling)
 * -> (matrix (6 floats), supersampling) */
AUGPY_SIG(resize_center_crop_matrix_sig, "_resize_center_crop_matrix", {"src_height"}, {"src_width"}, {"resize"},
          {"out_height"}, {"out_width"}, {"max_supersampling"});

static PyObject *py_center(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char func[] = "resize_center_crop_matrix";
    PyObject *a[6];
    if (augpy_parse_args(func, args, nargs, kwnames, &resize_center_crop_matrix_sig, a) < 0) return NULL;
    augpy_state *st = augpy_state_from_module(module);
    if (st == NULL) return NULL;
    int64_t v[5];
    int mss;
    static const char *const what[] = {"source_size", "source_size", "resize", "size", "size"};
    for (int i = 0; i < 5; i++)
        if (augpy_parse_int64(a[i], &v[i], func, what[i]) < 0) return NULL;
    if (augpy_parse_int(a[5], &mss, func, "max_supersampling") < 0) return NULL;
    float m[6];
    int ss = 1;
    aug_status status = aug_resize_center_crop_matrix(v[0], v[1], v[2], v[3], v[4], mss, m, &ss);
    if (status != AUG_OK) return augpy_raise(st, status, func);
    PyObject *mt = floats6(m);
    return mt ? Py_BuildValue("(Ni)", mt, ss) : NULL;
}

static PyMethodDef rrc_functions[] = {
    {"_resize_center_crop_matrix", (PyCFunction)(void (*)(void))py_center, METH_FASTCALL | METH_KEYWORDS,
     "aug_resize_center_crop_matrix: (matrix, supersampling). Use augpy.resize_center_crop_matrix."},
    {"_random_resized_crop", (PyCFunction)(void (*)(void))py_rrc, METH_FASTCALL | METH_KEYWORDS,
     "aug_random_resized_crop: per image (crop, hflip, matrix, supersampling, (scale_m, roi, matrix, "
     "supersampling)); rng may also be a sequence of n (seed, calls) states, one per image "
     "(aug_random_resized_crop_states). Use augpy.random_resized_crop."},
    {"_plan_decode", (PyCFunction)(void (*)(void))py_plan, METH_FASTCALL | METH_KEYWORDS,
     "aug_plan_decode (dct_scale a bool) or aug_plan_decode_at (dct_scale the scale M: 1, 2, 4 or 8):\n"
     "(scale_m, roi, matrix, supersampling). Use augpy.plan_decode."},
    {NULL, NULL, 0, NULL}};

int augpy_init_rrc(PyObject *module, augpy_state *st) {
    (void)st;
    static augpy_sig *const sigs[] = {&resize_center_crop_matrix_sig, &random_resized_crop_sig, &plan_decode_sig, NULL};
    if (augpy_sign_methods(rrc_functions, sigs) < 0) return -1;
    return PyModule_AddFunctions(module, rrc_functions);
}
