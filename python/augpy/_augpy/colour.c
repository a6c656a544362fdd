/* _augpy/colour.c: augpy's colour functions (docs/colour.md), a thin layer over
 * aug/colour.h: adjust_brightness / contrast / saturation / hue, rgb_to_grayscale,
 * rgb_to_hsv, hsv_to_rgb, color_jitter (per-image factors and order, with
 * augpy.lighting fused when its parameters are given) and
 * color_jitter_params (ColorJitter's sampling from a RandomNumberGenerator or
 * from per-image generator states).
 * Per-image factors are a number or one per image (augpy_parse_per_image: lists,
 * tuples, numpy arrays); the order is a sequence of N rows of 4 ints. Sequences
 * are copied into tuples before their items are read (an item's __float__ may
 * change a list). */
#include "augpy.h"

typedef aug_status (*factor_fn)(const aug_tensor *, double, aug_tensor **);

/* The image (channels first: (C, H, W) or (N, C, H, W)) and out=: augpy_image_io. */
static int image_io(augpy_state *st, PyObject *obj, PyObject *out_obj, augpy_image *im, augpy_image *out,
                    const char *func) {
    return augpy_image_io(st, obj, out_obj, AUGPY_CHW | AUGPY_NCHW, im, out, func, "imtensor");
}

AUGPY_SIG(adjust_brightness_sig, "adjust_brightness", {"imtensor|tensor"}, {"brightness_factor"}, {"out", "None"});
AUGPY_SIG(adjust_contrast_sig, "adjust_contrast", {"imtensor|tensor"}, {"contrast_factor"}, {"out", "None"});
AUGPY_SIG(adjust_saturation_sig, "adjust_saturation", {"imtensor|tensor"}, {"saturation_factor"}, {"out", "None"});
AUGPY_SIG(adjust_hue_sig, "adjust_hue", {"imtensor|tensor"}, {"hue_factor"}, {"out", "None"});

/* sig: the function's spec, its second parameter the factor */
static PyObject *adjust(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, const char *func,
                        augpy_sig *sig, factor_fn fn) {
    const char *fname = sig->params[1].name;
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[3];
    double f;
    if (!st || augpy_parse_args(func, args, nargs, kwnames, sig, a) < 0) return NULL;
    augpy_image im, out;
    if (augpy_parse_double(a[1], &f, func, fname) < 0 || image_io(st, a[0], a[2], &im, &out, func) < 0) return NULL;
    aug_tensor *res = out.t;
    aug_status s;
    AUGPY_CALL(s, aug_tensor_size(im.t), fn(im.t, f, &res));
    return augpy_image_result(st, s, res, &im, &out, a[2], func);
}

static PyObject *fn_adjust_brightness(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    return adjust(m, args, nargs, kwnames, "augpy.adjust_brightness", &adjust_brightness_sig, aug_adjust_brightness);
}
static PyObject *fn_adjust_contrast(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    return adjust(m, args, nargs, kwnames, "augpy.adjust_contrast", &adjust_contrast_sig, aug_adjust_contrast);
}
static PyObject *fn_adjust_saturation(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    return adjust(m, args, nargs, kwnames, "augpy.adjust_saturation", &adjust_saturation_sig, aug_adjust_saturation);
}
static PyObject *fn_adjust_hue(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    return adjust(m, args, nargs, kwnames, "augpy.adjust_hue", &adjust_hue_sig, aug_adjust_hue);
}

AUGPY_SIG(rgb_to_grayscale_sig, "rgb_to_grayscale", {"imtensor|tensor"}, {"num_output_channels", "1"},
          {"out", "None"});

static PyObject *fn_rgb_to_grayscale(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    const char *func = "augpy.rgb_to_grayscale";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[3];
    int64_t noc = 1;
    if (!st || augpy_parse_args(func, args, nargs, kwnames, &rgb_to_grayscale_sig, a) < 0) return NULL;
    augpy_image im, out;
    if (a[1] && augpy_parse_int64(a[1], &noc, func, "num_output_channels") < 0) return NULL;
    if (noc != 1 && noc != 3) {
        PyErr_Format(PyExc_ValueError, "%s: num_output_channels must be 1 or 3, got %lld", func, (long long)noc);
        return NULL;
    }
    if (image_io(st, a[0], a[2], &im, &out, func) < 0) return NULL;
    aug_tensor *res = out.t;
    aug_status s;
    AUGPY_CALL(s, aug_tensor_size(im.t), aug_rgb_to_grayscale(im.t, (int)noc, &res));
    return augpy_image_result(st, s, res, &im, &out, a[2], func);
}

AUGPY_SIG(rgb_to_hsv_sig, "rgb_to_hsv", {"imtensor|tensor"}, {"out", "None"});
AUGPY_SIG(hsv_to_rgb_sig, "hsv_to_rgb", {"imtensor|tensor"}, {"out", "None"});

static PyObject *hsv(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, const char *func,
                     augpy_sig *sig, aug_status (*fn)(const aug_tensor *, aug_tensor **)) {
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[2];
    if (!st || augpy_parse_args(func, args, nargs, kwnames, sig, a) < 0) return NULL;
    augpy_image im, out;
    if (image_io(st, a[0], a[1], &im, &out, func) < 0) return NULL;
    aug_tensor *res = out.t;
    aug_status s;
    AUGPY_CALL(s, aug_tensor_size(im.t), fn(im.t, &res));
    return augpy_image_result(st, s, res, &im, &out, a[1], func);
}
static PyObject *fn_rgb_to_hsv(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    return hsv(m, args, nargs, kwnames, "augpy.rgb_to_hsv", &rgb_to_hsv_sig, aug_rgb_to_hsv);
}
static PyObject *fn_hsv_to_rgb(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    return hsv(m, args, nargs, kwnames, "augpy.hsv_to_rgb", &hsv_to_rgb_sig, aug_hsv_to_rgb);
}

/* A per-image factor (augpy_parse_per_image: a number or n of them, n * per values;
 * None: *out = NULL) into a new array. 0 or -1. */
static int parse_factors(PyObject *obj, int64_t n, int64_t per, double **out, const char *func, const char *name) {
    *out = NULL;
    if (!obj || obj == Py_None) return 0;
    return (*out = augpy_per_image_alloc(obj, n, per, func, name)) ? 0 : -1;
}

/* N rows of 4 ints (None: *out = NULL). 0 or -1. */
static int parse_order(PyObject *obj, int64_t n, int32_t **out, const char *func) {
    *out = NULL;
    if (!obj || obj == Py_None) return 0;
    PyObject *seq = PySequence_Tuple(obj);
    if (!seq) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: order must be None or N rows of 4 ints, not '%.100s'", func,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
    int32_t *v = NULL;
    if ((int64_t)len != n) {
        PyErr_Format(PyExc_ValueError, "%s: order has %zd rows but the batch has %lld images", func, len, (long long)n);
        goto fail;
    }
    v = PyMem_Malloc((size_t)(4 * n + 1) * sizeof(int32_t));
    if (!v) {
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        PyObject *row = PySequence_Tuple(PySequence_Fast_GET_ITEM(seq, i));
        if (!row || PySequence_Fast_GET_SIZE(row) != 4) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "%s: order[%zd] must be a sequence of 4 ints", func, i);
            Py_XDECREF(row);
            goto fail;
        }
        for (int k = 0; k < 4; k++) {
            int64_t x;
            PyObject *item = PySequence_Fast_GET_ITEM(row, k);
            if (augpy_parse_int64(item, &x, func, "order") < 0) {
                if (PyErr_ExceptionMatches(PyExc_TypeError)) { /* e.g. numpy's own message for an array item */
                    PyErr_Clear();
                    PyErr_Format(PyExc_TypeError, "%s: order[%zd][%d] must be an int, not '%.100s'", func, i, k,
                                 Py_TYPE(item)->tp_name);
                }
                Py_DECREF(row);
                goto fail;
            }
            v[4 * i + k] = x < -1 ? -1 : x > 4 ? 4 : (int32_t)x; /* out-of-range values stay out of range */
        }
        Py_DECREF(row);
    }
    Py_DECREF(seq);
    *out = v;
    return 0;
fail:
    PyMem_Free(v);
    Py_DECREF(seq);
    return -1;
}

AUGPY_SIG(color_jitter_sig, "color_jitter", {"imtensor|tensor"}, {"brightness", "None"}, {"contrast", "None"},
          {"saturation", "None"}, {"hue", "None"}, {"order", "None"}, {"out", "None"}, {"gammagrays", "None"},
          {"gammacolors", "None"}, {"contrasts", "None"}, {"vmin", "None"}, {"vmax", "None"});

static PyObject *fn_color_jitter(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char *const fnames[] = {"brightness", "contrast", "saturation", "hue"};
    static const char *const lnames[] = {"gammagrays", "gammacolors", "contrasts", "vmin", "vmax"};
    const char *func = "augpy.color_jitter";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[12];
    if (!st || augpy_parse_args(func, args, nargs, kwnames, &color_jitter_sig, a) < 0) return NULL;
    augpy_image imi, outi;
    if (image_io(st, a[0], a[6], &imi, &outi, func) < 0) return NULL;
    aug_tensor *im = imi.t;
    int64_t n = im->ndim == 4 ? im->shape[0] : 1, c = im->ndim >= 3 ? im->shape[im->ndim - 3] : 1;
    double *f[4] = {NULL, NULL, NULL, NULL}, *gg = NULL, *gc = NULL, *ct = NULL;
    int32_t *order = NULL;
    PyObject *ret = NULL;
    for (int k = 0; k < 4; k++)
        if (parse_factors(a[1 + k], n, 1, &f[k], func, fnames[k]) < 0) goto done;
    if (parse_order(a[5], n, &order, func) < 0) goto done;
    /* the fused lighting: all five of its arguments, or none */
    int given = 0;
    for (int k = 0; k < 5; k++) given += a[7 + k] && a[7 + k] != Py_None;
    aug_jitter_lighting light = {NULL, NULL, NULL, 0.0, 0.0};
    if (given && given < 5) {
        for (int k = 0; k < 5; k++)
            if (!a[7 + k] || a[7 + k] == Py_None) {
                PyErr_Format(PyExc_ValueError,
                             "%s: the lighting needs gammagrays, gammacolors, contrasts, vmin and vmax; %s is missing",
                             func, lnames[k]);
                break;
            }
        goto done;
    }
    if (given &&
        (parse_factors(a[7], n, 1, &gg, func, "gammagrays") < 0 ||
         parse_factors(a[8], n, c, &gc, func, "gammacolors") < 0 ||
         parse_factors(a[9], n, 1, &ct, func, "contrasts") < 0 ||
         augpy_parse_double(a[10], &light.vmin, func, "vmin") < 0 ||
         augpy_parse_double(a[11], &light.vmax, func, "vmax") < 0))
        goto done;
    light.gammagrays = gg, light.gammacolors = gc, light.contrasts = ct;
    aug_tensor *res = outi.t;
    aug_status s;
    AUGPY_CALL(s, aug_tensor_size(im),
               aug_color_jitter_lighting(im, f[0], f[1], f[2], f[3], order, given ? &light : NULL, &res));
    ret = augpy_image_result(st, s, res, &imi, &outi, a[6], func);
done:
    augpy_image_release(&imi); /* (augpy_image_result released them already when it ran) */
    augpy_image_release(&outi);
    for (int k = 0; k < 4; k++) PyMem_Free(f[k]);
    PyMem_Free(order);
    PyMem_Free(gg);
    PyMem_Free(gc);
    PyMem_Free(ct);
    return ret;
}

/* A ColorJitter parameter: None -> not sampled; a number v -> (max(0, 1 - v), 1 + v)
 * (hue: (-v, v)); a pair (lo, hi) as is. A range equal to (1, 1) ((0, 0) for hue)
 * is not sampled either (torchvision's _check_input). 1: range set, 0: none, -1 error. */
static int parse_range(PyObject *obj, int hue, double r[2], const char *func, const char *name) {
    if (!obj || obj == Py_None) return 0;
    const double center = hue ? 0.0 : 1.0;
    if (PySequence_Check(obj) && !PyUnicode_Check(obj)) {
        PyObject *seq = PySequence_Tuple(obj);
        if (!seq) return -1;
        int ok = PySequence_Fast_GET_SIZE(seq) == 2;
        if (!ok)
            PyErr_Format(PyExc_ValueError, "%s: %s must be a number or a pair (min, max)", func, name);
        else if (augpy_parse_double(PySequence_Fast_GET_ITEM(seq, 0), &r[0], func, name) < 0 ||
                 augpy_parse_double(PySequence_Fast_GET_ITEM(seq, 1), &r[1], func, name) < 0)
            ok = 0;
        Py_DECREF(seq);
        if (!ok) return -1;
    } else {
        double v;
        if (augpy_parse_double(obj, &v, func, name) < 0) return -1;
        if (!(v >= 0.0) || (hue && v > 0.5)) {
            PyErr_Format(PyExc_ValueError, "%s: %s = %R must be %s", func, name, obj,
                         hue ? "in [0, 0.5]" : "non-negative");
            return -1;
        }
        r[0] = hue ? -v : (1.0 - v > 0.0 ? 1.0 - v : 0.0);
        r[1] = center + v;
    }
    return r[0] == center && r[1] == center ? 0 : 1;
}

static PyObject *list_or_none(const double *v, int64_t n) {
    if (!v) return Py_NewRef(Py_None);
    PyObject *l = PyList_New((Py_ssize_t)n);
    for (int64_t i = 0; l && i < n; i++) {
        PyObject *x = PyFloat_FromDouble(v[i]);
        if (!x) {
            Py_CLEAR(l);
            break;
        }
        PyList_SET_ITEM(l, (Py_ssize_t)i, x);
    }
    return l;
}

/* The result dict of color_jitter_params from the n outputs (o[k] NULL: not sampled). */
static PyObject *params_dict(int64_t n, double *const o[4], const int32_t *order) {
    PyObject *ret = NULL, *ol = PyList_New((Py_ssize_t)n);
    for (int64_t i = 0; ol && i < n; i++) {
        PyObject *row = Py_BuildValue("(iiii)", order[4 * i], order[4 * i + 1], order[4 * i + 2], order[4 * i + 3]);
        if (!row) {
            Py_CLEAR(ol);
            break;
        }
        PyList_SET_ITEM(ol, (Py_ssize_t)i, row);
    }
    PyObject *l[4];
    for (int k = 0; k < 4; k++) l[k] = list_or_none(o[k], n);
    if (ol && l[0] && l[1] && l[2] && l[3])
        ret = Py_BuildValue("{sOsOsOsOsO}", "brightness", l[0], "contrast", l[1], "saturation", l[2], "hue", l[3],
                            "order", ol);
    for (int k = 0; k < 4; k++) Py_XDECREF(l[k]);
    Py_XDECREF(ol);
    return ret;
}

/* rng: a generator (one uniform fill of n * 7 values) or n (seed, calls) states
 * (aug_color_jitter_sample_states: image k from states[k] alone, no generator advanced). */
AUGPY_SIG(color_jitter_params_sig, "color_jitter_params", {"rng"}, {"n"}, {"brightness", "None"},
          {"contrast", "None"}, {"saturation", "None"}, {"hue", "None"}, {"random_order", "True"});

static PyObject *fn_color_jitter_params(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char *const fnames[] = {"brightness", "contrast", "saturation", "hue"};
    const char *func = "augpy.color_jitter_params";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[7];
    int64_t n;
    if (!st || augpy_parse_args(func, args, nargs, kwnames, &color_jitter_params_sig, a) < 0 ||
        augpy_parse_int64(a[1], &n, func, "n") < 0)
        return NULL;
    if (n < 0 || n > ((int64_t)1 << 24)) { /* 16 Mi images: 896 MiB of draws */
        PyErr_Format(PyExc_ValueError, "%s: n = %lld must be in [0, 2**24]", func, (long long)n);
        return NULL;
    }
    /* a RandomNumberGenerator (or an object with its uniform method), else the per-image states */
    int generator = PyObject_TypeCheck(a[0], st->RandomType);
    if (!generator &&
        (PyUnicode_Check(a[0]) || PyBytes_Check(a[0]) || PyByteArray_Check(a[0]) || !PySequence_Check(a[0]))) {
        int duck = PyObject_HasAttrString(a[0], "uniform");
        if (!duck) {
            PyErr_Format(PyExc_TypeError,
                         "%s: rng must be an augpy.RandomNumberGenerator or a sequence of n (seed, calls) pairs, not "
                         "'%.100s'",
                         func, Py_TYPE(a[0])->tp_name);
            return NULL;
        }
        generator = 1;
    }
    aug_rng_state *states = NULL;
    if (!generator) {
        Py_ssize_t ns = augpy_parse_rng_states(a[0], &states, func, "rng");
        if (ns < 0) return NULL;
        if ((int64_t)ns != n) {
            PyErr_Format(PyExc_ValueError, "%s: %zd generator states (rng) but n = %lld", func, ns, (long long)n);
            PyMem_Free(states);
            return NULL;
        }
    }
    int random_order = a[6] ? PyObject_IsTrue(a[6]) : 1;
    double ranges[4][2];
    int use[4];
    for (int k = 0; random_order >= 0 && k < 4; k++)
        if ((use[k] = parse_range(a[2 + k], k == 3, ranges[k], func, fnames[k])) < 0) random_order = -1;
    if (random_order < 0) {
        PyMem_Free(states);
        return NULL;
    }
    const double *rp[4];
    for (int k = 0; k < 4; k++) rp[k] = use[k] ? ranges[k] : NULL;
    /* the ranges are checked before anything is drawn (a failed call leaves the generator as it was) */
    double dummy[4];
    int32_t dummy_order[4];
    aug_status s0 = aug_color_jitter_params(0, NULL, rp[0], rp[1], rp[2], rp[3], random_order, &dummy[0], &dummy[1],
                                            &dummy[2], &dummy[3], dummy_order);
    if (s0 != AUG_OK) {
        PyMem_Free(states);
        return augpy_raise(st, s0, func);
    }
    PyObject *ret = NULL;
    double *outs = PyMem_Malloc((size_t)(4 * n + 1) * sizeof(double));
    int32_t *order = PyMem_Malloc((size_t)(4 * n + 1) * sizeof(int32_t));
    double *o[4];
    for (int k = 0; k < 4; k++) o[k] = use[k] && outs ? outs + k * n : NULL;
    if (!outs || !order) {
        PyErr_NoMemory();
    } else if (states) {
        aug_status s = aug_color_jitter_sample_states(states, n, rp[0], rp[1], rp[2], rp[3], random_order, o[0], o[1],
                                                      o[2], o[3], order);
        ret = s != AUG_OK ? augpy_raise(st, s, func) : params_dict(n, o, order);
    } else {
        /* the uniforms: one fill of the generator into a float64 buffer of n * 7 values */
        PyObject *ba = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(n * 7 * (int64_t)sizeof(double)));
        PyObject *mv = ba ? PyMemoryView_FromObject(ba) : NULL;
        PyObject *dv = mv ? PyObject_CallMethod(mv, "cast", "s", "d") : NULL;
        PyObject *r = dv ? PyObject_CallMethod(a[0], "uniform", "Odd", dv, 0.0, 1.0) : NULL;
        if (r) {
            const double *u = (const double *)(const void *)PyByteArray_AS_STRING(ba);
            aug_status s =
                aug_color_jitter_params(n, u, rp[0], rp[1], rp[2], rp[3], random_order, o[0], o[1], o[2], o[3], order);
            ret = s != AUG_OK ? augpy_raise(st, s, func) : params_dict(n, o, order);
        }
        Py_XDECREF(r);
        /* release the views (the bytearray is freed with them), keeping a pending error */
        PyObject *et, *ev, *tb;
        PyErr_Fetch(&et, &ev, &tb);
        PyObject *views[2] = {dv, mv};
        for (int i = 0; i < 2; i++) {
            PyObject *rel = views[i] ? PyObject_CallMethod(views[i], "release", NULL) : NULL;
            if (views[i] && !rel) PyErr_Clear();
            Py_XDECREF(rel);
            Py_XDECREF(views[i]);
        }
        PyErr_Restore(et, ev, tb);
        Py_XDECREF(ba);
    }
    PyMem_Free(outs);
    PyMem_Free(order);
    PyMem_Free(states);
    return ret;
}

static PyMethodDef colour_functions[] = {
    {"adjust_brightness", (PyCFunction)(void (*)(void))fn_adjust_brightness, METH_FASTCALL | METH_KEYWORDS,
     "torchvision's adjust_brightness: x * factor clamped to [0, 255] / [0, 65535] (uint8 / uint16, then truncated)\n"
     "or [0, 1] (float32). imtensor: (N, C, H, W) or (C, H, W), C = 1 or 3, uint8, uint16 or float32, any\n"
     "strides; factor >= 0.\n"
     "out may be imtensor (in place). Returns the new tensor if out is None, else out."},
    {"adjust_contrast", (PyCFunction)(void (*)(void))fn_adjust_contrast, METH_FASTCALL | METH_KEYWORDS,
     "torchvision's adjust_contrast: blend each image with the mean of its grayscale (floored for integers):\n"
     "x * f + mean * (1 - f), clamped (integers: truncated). factor >= 0. Layout and out as adjust_brightness."},
    {"adjust_saturation", (PyCFunction)(void (*)(void))fn_adjust_saturation, METH_FASTCALL | METH_KEYWORDS,
     "torchvision's adjust_saturation: blend each pixel with its grayscale 0.2989 R + 0.587 G + 0.114 B\n"
     "(floored for integers). factor >= 0. A 1-channel image is returned unchanged (copied into out)."},
    {"adjust_hue", (PyCFunction)(void (*)(void))fn_adjust_hue, METH_FASTCALL | METH_KEYWORDS,
     "torchvision's adjust_hue: RGB -> HSV in float32 (integers scaled by 1/bound), h = (h + factor) mod 1,\n"
     "back to RGB (uint8: trunc(v * 255.999); uint16: min(trunc(v * 65536), 65535)). factor in [-0.5, 0.5].\n"
     "A 1-channel image is unchanged."},
    {"rgb_to_grayscale", (PyCFunction)(void (*)(void))fn_rgb_to_grayscale, METH_FASTCALL | METH_KEYWORDS,
     "torchvision's rgb_to_grayscale: 0.2989 R + 0.587 G + 0.114 B in float32 (truncated for integers), in 1 or\n"
     "3 identical channels. A 1-channel input is copied (or repeated). uint8, uint16 or float32."},
    {"rgb_to_hsv", (PyCFunction)(void (*)(void))fn_rgb_to_hsv, METH_FASTCALL | METH_KEYWORDS,
     "float32 RGB (C = 3) to HSV (h in [0, 1), s in [0, 1], v = max(R, G, B)), torchvision's _rgb_to_hsv.\n"
     "imtensor: (3, H, W) or (N, 3, H, W), channels first. Returns a new tensor, or out."},
    {"hsv_to_rgb", (PyCFunction)(void (*)(void))fn_hsv_to_rgb, METH_FASTCALL | METH_KEYWORDS,
     "float32 HSV (C = 3) to RGB, torchvision's _hsv_to_rgb (p, q, t clamped to [0, 1]).\n"
     "imtensor: (3, H, W) or (N, 3, H, W), channels first. Returns a new tensor, or out."},
    {"color_jitter", (PyCFunction)(void (*)(void))fn_color_jitter, METH_FASTCALL | METH_KEYWORDS,
     "ColorJitter on a batch in one pass: image n gets brightness[n], contrast[n], saturation[n], hue[n]\n"
     "(sequences of N factors; None skips the step) in the order order[n] (N rows, each a permutation of\n"
     "0 brightness, 1 contrast, 2 saturation, 3 hue; None: 0, 1, 2, 3), each step exactly as adjust_*.\n"
     "With gammagrays (N), gammacolors (N*C or (N, C)), contrasts (N) and vmin, vmax (all five or none),\n"
     "augpy.lighting of the result in the same pass (the values as float32, so the result is exactly\n"
     "color_jitter then lighting). out may be imtensor (in place). Returns the new tensor if out is None,\n"
     "else out. imtensor and out may be arrays (numpy, torch, DLPack, buffer), used without a copy, as in\n"
     "every colour function; an image laid out (its layout string or its shape) other than NCHW / CHW (an\n"
     "NHWC batch) is a ValueError."},
    {"color_jitter_params", (PyCFunction)(void (*)(void))fn_color_jitter_params, METH_FASTCALL | METH_KEYWORDS,
     "ColorJitter's parameters for n images from a RandomNumberGenerator (one uniform fill of n * 7 values),\n"
     "or from a sequence of n (seed, calls) generator states, image k drawn from states[k] alone (as image 0\n"
     "of a generator at that state; none is advanced):\n"
     "brightness/contrast/saturation v -> factor uniform in [max(0, 1 - v), 1 + v], hue v -> [-v, v], or\n"
     "(min, max) pairs; None (or a range (1, 1) / (0, 0) for hue) is not sampled. Returns a dict with\n"
     "'brightness', 'contrast', 'saturation', 'hue' (lists of n floats or None) and 'order' (n tuples, a\n"
     "random permutation of (0, 1, 2, 3) each, or (0, 1, 2, 3) when random_order is false), ready for\n"
     "color_jitter(im, **params)."},
    {NULL, NULL, 0, NULL},
};

static augpy_sig *const colour_sigs[] = {
    &adjust_brightness_sig, &adjust_contrast_sig, &adjust_saturation_sig, &adjust_hue_sig, &rgb_to_grayscale_sig,
    &rgb_to_hsv_sig,        &hsv_to_rgb_sig,      &color_jitter_sig,       &color_jitter_params_sig, NULL};

int augpy_init_colour(PyObject *module, augpy_state *st) {
    (void)st;
    if (augpy_sign_methods(colour_functions, colour_sigs) < 0) return -1;
    return PyModule_AddFunctions(module, colour_functions);
}
