/* _augpy/normalize.c: augpy.crop_mirror_normalize (DALI's fn.crop_mirror_normalize)
 * over aug_crop_mirror_normalize(_batch). It only turns Python arguments into the
 * C parameters: images (a 3-D Tensor, a 4-D batch Tensor or a list of 3-D
 * Tensors), per-channel and per-image values (a number or a sequence), layouts
 * and the out-of-bounds policy by name. */
#include "augpy.h"
#include "aug/normalize.h"

#define MAX_VALUES 1024 /* per-channel values: 3 float arrays of this size live on the stack */

/* A number or a sequence of numbers -> vals (up to max); returns the count or -1. */
static int parse_floats(PyObject *obj, float *vals, int max, const char *func, const char *name) {
    if (PyNumber_Check(obj) && !PySequence_Check(obj)) {
        double d;
        if (augpy_parse_double(obj, &d, func, name) < 0) return -1;
        vals[0] = (float)d;
        return 1;
    }
    PyObject *seq = PySequence_Fast(obj, "");
    if (!seq) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: %s must be a number or a sequence of numbers, not '%.100s'", func, name,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n < 1 || n > max) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "%s: %s must have 1 to %d values, got %zd", func, name, max, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        double d;
        if (augpy_parse_double(PySequence_Fast_GET_ITEM(seq, i), &d, func, name) < 0) {
            Py_DECREF(seq);
            return -1;
        }
        vals[i] = (float)d;
    }
    Py_DECREF(seq);
    return (int)n;
}

/* anchor: (y, x) for every image, or a sequence of n (y, x) pairs. */
static int parse_anchors(PyObject *obj, int64_t *vals, Py_ssize_t n, const char *func) {
    PyObject *seq = PySequence_Fast(obj, "");
    if (!seq) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: anchor must be a (y, x) pair or a sequence of them, not '%.100s'", func,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    int r = 0;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
    if (len == 2 && !PySequence_Check(PySequence_Fast_GET_ITEM(seq, 0))) {
        int64_t y, x;
        r = augpy_parse_int64(PySequence_Fast_GET_ITEM(seq, 0), &y, func, "anchor") < 0 ||
                    augpy_parse_int64(PySequence_Fast_GET_ITEM(seq, 1), &x, func, "anchor") < 0
                ? -1 : 0;
        for (Py_ssize_t i = 0; r == 0 && i < n; i++) vals[2 * i] = y, vals[2 * i + 1] = x;
    } else if (len != n) {
        PyErr_Format(PyExc_ValueError, "%s: anchor has %zd entries but there are %zd images", func, len, n);
        r = -1;
    } else {
        for (Py_ssize_t i = 0; r == 0 && i < n; i++) {
            PyObject *pair = PySequence_Fast(PySequence_Fast_GET_ITEM(seq, i), "");
            if (!pair || PySequence_Fast_GET_SIZE(pair) != 2) {
                PyErr_Clear();
                PyErr_Format(PyExc_ValueError, "%s: anchor[%zd] must be a (y, x) pair", func, i);
                r = -1;
            } else if (augpy_parse_int64(PySequence_Fast_GET_ITEM(pair, 0), &vals[2 * i], func, "anchor") < 0 ||
                       augpy_parse_int64(PySequence_Fast_GET_ITEM(pair, 1), &vals[2 * i + 1], func, "anchor") < 0) {
                r = -1;
            }
            Py_XDECREF(pair);
        }
    }
    Py_DECREF(seq);
    return r;
}

/* A layout keyword (augpy_parse_layout): "HWC", "CHW", or with the batch's "N"
 * ("NHWC", "NCHW"), into the flag *out: 1 when the layout is `one`'s ("CHW" for
 * the input's in_chw, "HWC" for the output's out_nhwc); None leaves it. */
static int parse_layout(augpy_state *st, PyObject *obj, const char *one, int *out, const char *func,
                        const char *name) {
    const char *s;
    if (augpy_parse_layout(st, obj, "HWC,CHW,NHWC,NCHW", &s, func, name) < 0) return -1;
    if (s) *out = strcmp(s + (s[0] == 'N'), one) == 0;
    return 0;
}

/* The argument slots of crop_mirror_normalize (its names[] order). */
enum { IMG, CROP, CH, CW, PX, PY, ANCHOR, MIRROR, MEAN, STD };
enum { SCALE = STD + 1, SHIFT, FILL, DTYPE, INL, OUTL, PAD, OOB, OUT, NSLOTS };

/* The per-channel values of crop_mirror_normalize (on the caller's stack). */
typedef struct {
    float mean[MAX_VALUES], std[MAX_VALUES], fill[MAX_VALUES];
} cmn_values;

/* The arguments that do not depend on the images. 0 or -1. */
static int parse_params(augpy_state *st, PyObject **a, aug_cmn_params *p, aug_dtype *dtype, cmn_values *v,
                        const char *func) {
    double d;
    if ((a[DTYPE] && a[DTYPE] != Py_None && augpy_parse_dtype(st, a[DTYPE], dtype, func) < 0) ||
        parse_layout(st, a[INL], "CHW", &p->in_chw, func, "layout") < 0 ||
        parse_layout(st, a[OUTL], "HWC", &p->out_nhwc, func, "out_layout") < 0)
        return -1;
    if (a[SCALE]) {
        if (augpy_parse_double(a[SCALE], &d, func, "scale") < 0) return -1;
        p->scale = (float)d;
    }
    if (a[SHIFT]) {
        if (augpy_parse_double(a[SHIFT], &d, func, "shift") < 0) return -1;
        p->shift = (float)d;
    }
    if (a[PAD]) {
        int b = PyObject_IsTrue(a[PAD]);
        if (b < 0) return -1;
        p->pad_output = b;
    }
    if (a[OOB] && a[OOB] != Py_None) {
        const char *s = PyUnicode_Check(a[OOB]) ? PyUnicode_AsUTF8(a[OOB]) : NULL;
        if (s && strcmp(s, "error") == 0)
            p->oob = AUG_OOB_ERROR;
        else if (s && strcmp(s, "pad") == 0)
            p->oob = AUG_OOB_PAD;
        else if (s && strcmp(s, "trim_to_shape") == 0)
            p->oob = AUG_OOB_TRIM;
        else {
            PyErr_Format(PyExc_ValueError, "%s: out_of_bounds_policy must be 'error', 'pad' or 'trim_to_shape', got %R",
                         func, a[OOB]);
            return -1;
        }
    }
    if (a[CROP] && a[CROP] != Py_None) {
        if ((a[CH] && a[CH] != Py_None) || (a[CW] && a[CW] != Py_None)) {
            PyErr_Format(PyExc_ValueError, "%s: give crop or crop_h/crop_w, not both", func);
            return -1;
        }
        PyObject *seq = PySequence_Fast(a[CROP], "");
        if (!seq || PySequence_Fast_GET_SIZE(seq) != 2) {
            Py_XDECREF(seq);
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "%s: crop must be a (h, w) pair", func);
            return -1;
        }
        int r = augpy_parse_int64(PySequence_Fast_GET_ITEM(seq, 0), &p->crop_h, func, "crop") < 0 ||
                augpy_parse_int64(PySequence_Fast_GET_ITEM(seq, 1), &p->crop_w, func, "crop") < 0;
        Py_DECREF(seq);
        if (r) return -1;
    } else if ((a[CH] && a[CH] != Py_None && augpy_parse_int64(a[CH], &p->crop_h, func, "crop_h") < 0) ||
               (a[CW] && a[CW] != Py_None && augpy_parse_int64(a[CW], &p->crop_w, func, "crop_w") < 0)) {
        return -1;
    }
    if (a[MEAN] && (p->nmean = parse_floats(a[MEAN], v->mean, MAX_VALUES, func, "mean")) < 0) return -1;
    if (a[STD] && (p->nstd = parse_floats(a[STD], v->std, MAX_VALUES, func, "std")) < 0) return -1;
    if (a[FILL] && (p->nfill = parse_floats(a[FILL], v->fill, MAX_VALUES, func, "fill_values")) < 0) return -1;
    p->mean = v->mean, p->std = v->std, p->fill = v->fill;
    return 0;
}

/* The images: one 3-D image or a 4-D batch (an augpy tensor or a foreign array),
 * or a list of 3-D images; views[i] the images (owned for a tensor, borrowed from
 * ims for a list). */
typedef struct {
    augpy_image one;
    augpy_image *ims;
    PyObject *seq;
    aug_tensor **views;
    Py_ssize_t n;
    int single;
} cmn_images;

static void images_release(cmn_images *c) {
    if (!c->seq && c->views)
        for (Py_ssize_t i = 0; i < c->n; i++) aug_tensor_free(c->views[i]);
    PyMem_Free(c->views);
    augpy_image_seq_release(c->ims, c->n);
    augpy_image_release(&c->one);
    Py_XDECREF(c->seq);
}

/* The images and, when layout= was not given, in_chw from their layout
 * strings or shapes (augpy_image_layout; default HWC). 0 or -1 (c to release). */
static int parse_images(augpy_state *st, PyObject *images, int layout_given, cmn_images *c, int *in_chw,
                        const char *func) {
    memset(c, 0, sizeof *c);
    const char *l = NULL;
    if (PyList_Check(images) || PyTuple_Check(images)) {
        if (!(c->seq = PySequence_Tuple(images))) return -1;
        c->n = PyTuple_GET_SIZE(c->seq);
        if (!(c->ims = augpy_image_seq(st, c->seq, func, "images")) ||
            !(c->views = PyMem_Calloc((size_t)(c->n > 0 ? c->n : 1), sizeof *c->views)))
            return c->ims ? (PyErr_NoMemory(), -1) : -1;
        for (Py_ssize_t i = 0; i < c->n; i++) c->views[i] = c->ims[i].t; /* borrowed */
        if (!layout_given &&
            augpy_images_layout(c->ims, c->n, AUGPY_HWC | AUGPY_CHW, &l, func, "images", "layout") < 0)
            return -1;
    } else {
        if (augpy_image_arg(st, images, 0, &c->one, func, "images") < 0) return -1;
        aug_tensor *t = c->one.t;
        if (t->ndim != 3 && t->ndim != 4) {
            PyErr_Format(PyExc_ValueError, "%s: images must be a 3-D image, a 4-D batch or a list of images, got a "
                         "%d-D tensor", func, t->ndim);
            return -1;
        }
        c->single = t->ndim == 3;
        c->n = c->single ? 1 : (Py_ssize_t)t->shape[0];
        if (!layout_given && augpy_image_layout(&c->one, AUGPY_ANY_LAYOUT, &l, func, "images", "layout") < 0)
            return -1;
        if (!l && (!strcmp(t->layout, "CHW") || !strcmp(t->layout, "NCHW"))) l = t->layout;
        if (!(c->views = PyMem_Calloc((size_t)(c->n > 0 ? c->n : 1), sizeof *c->views))) return PyErr_NoMemory(), -1;
        for (Py_ssize_t i = 0; i < c->n; i++) {
            aug_index ix = {AUG_INDEX_INT, (int64_t)i, 0, 0, 1, 0, 0};
            c->views[i] = c->single ? aug_tensor_view(t) : aug_tensor_index(t, 1, &ix);
            if (!c->views[i]) return augpy_raise(st, aug_last_status(), func), -1;
        }
    }
    if (l) *in_chw = strcmp(l, "CHW") == 0 || strcmp(l, "NCHW") == 0;
    return 0;
}

/* crop_pos_x / crop_pos_y, anchor and mirror (one value or one per image) into
 * pos, anchors, mirror (n entries; tmp scratch), set in p. 0 or -1. */
static int parse_per_image_params(PyObject **a, Py_ssize_t n, aug_cmn_params *p, float *pos, int64_t *anchors,
                                  uint8_t *mirror, double *tmp, const char *func) {
    if ((a[PX] && a[PX] != Py_None) || (a[PY] && a[PY] != Py_None)) {
        for (Py_ssize_t i = 0; i < n; i++) pos[2 * i] = pos[2 * i + 1] = 0.5f;
        if (a[PY] && a[PY] != Py_None) {
            if (augpy_parse_per_image(a[PY], n, 1, tmp, func, "crop_pos_y") < 0) return -1;
            for (Py_ssize_t i = 0; i < n; i++) pos[2 * i] = (float)tmp[i];
        }
        if (a[PX] && a[PX] != Py_None) {
            if (augpy_parse_per_image(a[PX], n, 1, tmp, func, "crop_pos_x") < 0) return -1;
            for (Py_ssize_t i = 0; i < n; i++) pos[2 * i + 1] = (float)tmp[i];
        }
        p->crop_pos = pos;
    }
    if (a[ANCHOR] && a[ANCHOR] != Py_None) {
        if (p->crop_pos) {
            PyErr_Format(PyExc_ValueError, "%s: give anchor or crop_pos_x/crop_pos_y, not both", func);
            return -1;
        }
        if (parse_anchors(a[ANCHOR], anchors, n, func) < 0) return -1;
        p->anchors = anchors;
    }
    if (a[MIRROR] && a[MIRROR] != Py_None) {
        if (augpy_parse_per_image(a[MIRROR], n, 1, tmp, func, "mirror") < 0) return -1;
        for (Py_ssize_t i = 0; i < n; i++) {
            float v = (float)tmp[i];
            if (v != 0.0f && v != 1.0f) {
                PyErr_Format(PyExc_ValueError, "%s: mirror values must be 0 or 1, got %g", func, (double)v);
                return -1;
            }
            mirror[i] = v != 0.0f;
        }
        p->mirror = mirror;
    }
    return 0;
}

AUGPY_SIG(crop_mirror_normalize_sig, "crop_mirror_normalize", {"images"}, {"crop", "None"}, {"crop_h", "None"},
          {"crop_w", "None"}, {"crop_pos_x", "None"}, {"crop_pos_y", "None"}, {"anchor", "None"}, {"mirror", "None"},
          {"mean", "0.0"}, {"std", "1.0"}, {"scale", "1.0"}, {"shift", "0.0"}, {"fill_values", "0.0"},
          {"dtype", "None"}, {"layout|input_layout", "None"}, {"out_layout|output_layout", "'CHW'"},
          {"pad_output", "False"}, {"out_of_bounds_policy", "'error'"}, {"out", "None"});

static PyObject *fn_cmn(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    const char *func = "augpy.crop_mirror_normalize";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[NSLOTS];
    if (!st || augpy_parse_args(func, args, nargs, kwnames, &crop_mirror_normalize_sig, a) < 0) return NULL;
    aug_cmn_params p = aug_cmn_params_default();
    aug_dtype dtype = AUG_FLOAT32;
    cmn_values vals;
    if (parse_params(st, a, &p, &dtype, &vals, func) < 0) return NULL;
    augpy_image outi;
    cmn_images c;
    if (augpy_image_out(st, a[OUT], &outi, func) < 0) return NULL;
    PyObject *ret = NULL;
    float *pos = NULL;
    double *tmp = NULL;
    int64_t *anchors = NULL;
    uint8_t *mirror = NULL;
    if (parse_images(st, a[IMG], a[INL] && a[INL] != Py_None, &c, &p.in_chw, func) < 0) goto done;
    Py_ssize_t n = c.n, cnt = n > 0 ? n : 1;
    pos = PyMem_Calloc((size_t)(2 * cnt), sizeof(float));
    anchors = PyMem_Calloc((size_t)(2 * cnt), sizeof(int64_t));
    mirror = PyMem_Calloc((size_t)cnt, 1);
    tmp = PyMem_Calloc((size_t)cnt, sizeof(double));
    if (!pos || !anchors || !mirror || !tmp) {
        PyErr_NoMemory();
        goto done;
    }
    if (n == 0) {
        PyErr_Format(PyExc_ValueError, "%s: no images", func);
        goto done;
    }
    if (parse_per_image_params(a, n, &p, pos, anchors, mirror, tmp, func) < 0) goto done;
    aug_tensor *res = outi.t;
    aug_status s;
    int64_t work = 0;
    for (Py_ssize_t i = 0; i < n; i++) work += aug_tensor_size(c.views[i]);
    if (c.single)
        AUGPY_CALL(s, work, aug_crop_mirror_normalize(c.views[0], dtype, &p, &res));
    else
        AUGPY_CALL(s, work,
                   aug_crop_mirror_normalize_batch((int64_t)n, (const aug_tensor *const *)c.views, dtype, &p, &res));
    if (s != AUG_OK)
        ret = augpy_raise(st, s, func);
    else
        ret = outi.t ? Py_NewRef(a[OUT]) : augpy_wrap(st, res);
done:
    PyMem_Free(pos), PyMem_Free(anchors), PyMem_Free(mirror), PyMem_Free(tmp);
    images_release(&c);
    augpy_image_release(&outi);
    return ret;
}

static PyMethodDef normalize_functions[] = {
    {"crop_mirror_normalize", (PyCFunction)(void (*)(void))fn_cmn, METH_FASTCALL | METH_KEYWORDS,
     "DALI's fn.crop_mirror_normalize (dtype None: float32): crop a window of each image, mirror it horizontally (per image),\n"
     "output = scale * (input - mean) / std + shift per channel, converted to dtype with saturation.\n"
     "images: a 3-D image (H, W, C) (or (C, H, W) with layout='CHW'), a 4-D batch, or a list of\n"
     "images of any sizes; any dtype and strides. crop=(h, w) or crop_h/crop_w (default: the whole\n"
     "image); crop_pos_x/crop_pos_y in [0, 1] (default 0.5; a number or one per image) place the window\n"
     "at round(pos * (extent - crop)) (half away from zero), or anchor=(y, x) (one pair or one per image)\n"
     "places it explicitly. mirror: 0/1 or one per image. mean/std/fill_values: a number or one per\n"
     "channel. layout (None: the images' layout strings or shapes, else 'HWC') and out_layout 'CHW' or 'HWC'\n"
     "(batches get N in front; the old keywords input_layout= / output_layout= are accepted); pad_output pads the channels to the\n"
     "next power of two. out_of_bounds_policy: 'error' (default), 'pad' (fill_values outside the image)\n"
     "or 'trim_to_shape'. Returns a new tensor, or out. docs/normalize.md gives the exact arithmetic."},
    {NULL, NULL, 0, NULL},
};

int augpy_init_normalize(PyObject *module, augpy_state *st) {
    (void)st;
    static augpy_sig *const sigs[] = {&crop_mirror_normalize_sig, NULL};
    if (augpy_sign_methods(normalize_functions, sigs) < 0) return -1;
    return PyModule_AddFunctions(module, normalize_functions);
}
