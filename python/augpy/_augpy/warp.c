/* _augpy/warp.c: affine warps (semantics §13; augpy manual 3.1.4.2, quoted in
 * docs/sources/augpy-manual.md) over aug_make_affine_matrix and aug_warp_affine(_batch).
 *
 *   WarpScaleMode(0|1)   the enum, members also exported as module attributes
 *   make_affine_matrix(out, source_height, source_width, target_height, target_width,
 *                      angle=0.0, scale=1.0, aspect=1.0, shifty=0.0, shiftx=0.0, sheary=0.0,
 *                      shearx=0.0, hmirror=False, vmirror=False,
 *                      scale_mode=WARP_SCALE_SHORTEST, max_supersampling=3) -> int
 *   make_transform(source_size, target_size, angle=0, scale=1, aspect=1, shift=None, shear=None,
 *                  hmirror=False, vmirror=False, scale_mode='shortest', max_supersampling=3,
 *                  out=None) -> (numpy float32 (2, 3), int)
 *   warp_affine(src, dst, matrix, background=None, supersampling=1, *, interpolation='linear',
 *               border='constant', layout=None, src_layout=None) -> None
 *   warp_perspective(...): warp_affine's parameters with a (3, 3) / (N, 3, 3) homography
 *                    (aug_warp_perspective(_batch))
 *
 * warp_affine takes one (H, W, C) tensor and a (C, Ht, Wt) dst, or a batch: a
 * list/tuple of (H_i, W_i, C) tensors or an (N, H, W, C) tensor with an
 * (N, C, Ht, Wt) dst, an (N, 2, 3) matrix and one or N supersampling factors.
 * The keywords map to aug_warp_options (aug_warp_affine_ex): the names are
 * parsed by aug_warp_*_from_name; layout is dst's ("CHW"/"HWC", a batch's
 * "NCHW"/"NHWC"), src_layout the images' (None: from their layout strings).
 * The GIL is released around large warps. */
#include "augpy.h"

#include <string.h>
#include <strings.h>

/* ---- WarpScaleMode ------------------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    int value;
} ScaleModeObject;

#define NUM_MODES 2
static const char *const MODE_NAMES[NUM_MODES] = {"WARP_SCALE_SHORTEST", "WARP_SCALE_LONGEST"};

static PyObject *mode_member(PyTypeObject *type, int value) { /* new ref */
    return PyObject_GetAttrString((PyObject *)type, MODE_NAMES[value]);
}

static PyObject *mode_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"value", NULL};
    PyObject *obj;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:WarpScaleMode", kwlist, &obj)) return NULL;
    if (Py_TYPE(obj) == type) return Py_NewRef(obj);
    if (!PyLong_Check(obj) || PyBool_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "WarpScaleMode: expected an int, got '%.100s'", Py_TYPE(obj)->tp_name);
        return NULL;
    }
    int overflow;
    long v = PyLong_AsLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred()) return NULL;
    if (overflow || v < 0 || v >= NUM_MODES) {
        PyObject *desc = augpy_int_desc(obj);
        if (desc) PyErr_Format(PyExc_ValueError, "WarpScaleMode: %U is not a valid value (0 or 1)", desc);
        Py_XDECREF(desc);
        return NULL;
    }
    return mode_member(type, (int)v);
}

static PyObject *mode_repr(PyObject *self) {
    int v = ((ScaleModeObject *)self)->value;
    return PyUnicode_FromFormat("<WarpScaleMode.%s: %d>", MODE_NAMES[v], v);
}

static PyObject *mode_str(PyObject *self) {
    return PyUnicode_FromFormat("WarpScaleMode.%s", MODE_NAMES[((ScaleModeObject *)self)->value]);
}

static PyObject *mode_int(PyObject *self) { return PyLong_FromLong(((ScaleModeObject *)self)->value); }

static Py_hash_t mode_hash(PyObject *self) { return (Py_hash_t)((ScaleModeObject *)self)->value; }

/* Equal to a member of the same value, or to the int value. */
static PyObject *mode_richcompare(PyObject *a, PyObject *b, int op) {
    if (op != Py_EQ && op != Py_NE) Py_RETURN_NOTIMPLEMENTED;
    long bv;
    if (Py_TYPE(b) == Py_TYPE(a)) bv = ((ScaleModeObject *)b)->value;
    else if (PyLong_Check(b) && !PyBool_Check(b)) {
        int overflow;
        bv = PyLong_AsLongAndOverflow(b, &overflow);
        if (bv == -1 && PyErr_Occurred()) return NULL;
        if (overflow) bv = -1;
    } else Py_RETURN_NOTIMPLEMENTED;
    int eq = bv == ((ScaleModeObject *)a)->value;
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static PyObject *mode_get_name(PyObject *self, void *closure) {
    return PyUnicode_FromString(MODE_NAMES[((ScaleModeObject *)self)->value]);
}

static PyObject *mode_get_value(PyObject *self, void *closure) { return mode_int(self); }

static PyObject *mode_reduce(PyObject *self, PyObject *unused) {
    return Py_BuildValue("(O(i))", (PyObject *)Py_TYPE(self), ((ScaleModeObject *)self)->value);
}

static PyGetSetDef mode_getset[] = {
    {"name", mode_get_name, NULL, "The member's name.", NULL},
    {"value", mode_get_value, NULL, "The member's int value.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMethodDef mode_methods[] = {{"__reduce__", mode_reduce, METH_NOARGS, "__reduce__($self, /)\n--\n\nPickle as the member."}, {NULL, NULL, 0, NULL}};

static PyType_Slot mode_slots[] = {
    {Py_tp_doc, "WarpScaleMode(value)\n--\n\nEnum whether to scale relative to the shortest or longest side of "
                "the image.\n\nMembers:\n\n  WARP_SCALE_SHORTEST : Scaling is relative to the shortest side of the "
                "image.\n\n  WARP_SCALE_LONGEST : Scaling is relative to the longest side of the image."},
    {Py_tp_new, mode_new},
    {Py_tp_repr, mode_repr},
    {Py_tp_str, mode_str},
    {Py_tp_hash, mode_hash},
    {Py_tp_richcompare, mode_richcompare},
    {Py_tp_getset, mode_getset},
    {Py_tp_methods, mode_methods},
    {Py_nb_int, mode_int},
    {Py_nb_index, mode_int},
    {0, NULL}};

static PyType_Spec mode_spec = {"augpy._augpy.WarpScaleMode", sizeof(ScaleModeObject), 0,
                                Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE, mode_slots};

/* ---- argument conversion ------------------------------------------------------------------ */

/* WarpScaleMode, 0 / 1, or 'shortest' / 'longest' (any case, also the member names). */
static int parse_scale_mode(augpy_state *st, PyObject *obj, aug_warp_scale_mode *out, const char *func) {
    if (Py_TYPE(obj) == st->WarpScaleModeType) {
        *out = (aug_warp_scale_mode)((ScaleModeObject *)obj)->value;
        return 0;
    }
    if (PyUnicode_Check(obj)) {
        const char *s = PyUnicode_AsUTF8(obj);
        if (!s) return -1;
        static const char *const short_names[NUM_MODES] = {"shortest", "longest"};
        for (int v = 0; v < NUM_MODES; v++)
            if (strcasecmp(s, short_names[v]) == 0 || strcmp(s, MODE_NAMES[v]) == 0) {
                *out = (aug_warp_scale_mode)v;
                return 0;
            }
        PyErr_Format(PyExc_ValueError, "%s: scale_mode must be 'shortest' or 'longest', got %R", func, obj);
        return -1;
    }
    if (PyLong_Check(obj) && !PyBool_Check(obj)) {
        int v;
        if (augpy_parse_int(obj, &v, func, "scale_mode") < 0) return -1;
        if (v < 0 || v >= NUM_MODES) {
            PyErr_Format(PyExc_ValueError, "%s: scale_mode must be 0 or 1, got %d", func, v);
            return -1;
        }
        *out = (aug_warp_scale_mode)v;
        return 0;
    }
    PyErr_Format(PyExc_TypeError, "%s: scale_mode must be a WarpScaleMode or 'shortest' / 'longest', not '%.100s'",
                 func, Py_TYPE(obj)->tp_name);
    return -1;
}

/* A sequence of exactly two numbers (ints if `ints`). None -> 0, 0 when allow_none. */
static int parse_pair(PyObject *obj, int ints, int allow_none, double *d, int64_t *i, const char *func,
                      const char *name) {
    if (obj == Py_None && allow_none) {
        d[0] = d[1] = 0.0;
        return 0;
    }
    /* A tuple snapshot: an item's __index__ / __float__ may mutate a list being read. */
    PyObject *seq = PySequence_Check(obj) && !PyUnicode_Check(obj) ? PySequence_Tuple(obj) : NULL;
    if (!seq) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: %s must be a sequence of two %s, not '%.100s'", func, name,
                     ints ? "ints" : "numbers", Py_TYPE(obj)->tp_name);
        return -1;
    }
    int rc = 0;
    if (PySequence_Fast_GET_SIZE(seq) != 2) {
        PyErr_Format(PyExc_ValueError, "%s: %s must have two values (height, width), got %R", func, name, obj);
        rc = -1;
    }
    for (int k = 0; k < 2 && rc == 0; k++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, k);
        rc = ints ? augpy_parse_int64(item, &i[k], func, name) : augpy_parse_double(item, &d[k], func, name);
    }
    Py_DECREF(seq);
    return rc;
}

/* Writes the six values into a writable (2, 3) float32 buffer. */
static int store_matrix(augpy_state *st, PyObject *out, const float *m, const char *func) {
    augpy_bufview v;
    if (augpy_bufview_get(st, out, 1, &v, func) < 0) return -1;
    const aug_tensor *t = v.t;
    int rc = 0;
    char sbuf[96];
    if (t->dtype != AUG_FLOAT32) {
        PyErr_Format(PyExc_TypeError, "%s: out must be a float32 buffer, got %s", func, aug_dtype_name(t->dtype));
        rc = -1;
    } else if (t->ndim != 2 || t->shape[0] != 2 || t->shape[1] != 3) {
        PyErr_Format(PyExc_ValueError, "%s: out must have shape (2, 3), got %s", func,
                     aug_shape_str(t->ndim, t->shape, sbuf, sizeof sbuf));
        rc = -1;
    } else {
        float *p = aug_tensor_ptr(t);
        for (int r = 0; r < 2; r++)
            for (int c = 0; c < 3; c++) p[r * t->strides[0] + c * t->strides[1]] = m[3 * r + c];
    }
    augpy_bufview_release(&v);
    return rc;
}

/* ---- make_affine_matrix / make_transform ------------------------------------------------- */

AUGPY_SIG(make_affine_matrix_sig, "make_affine_matrix", {"out"}, {"source_height"}, {"source_width"},
          {"target_height"}, {"target_width"}, {"angle", "0.0"}, {"scale", "1.0"}, {"aspect", "1.0"}, {"shifty", "0.0"},
          {"shiftx", "0.0"}, {"sheary", "0.0"}, {"shearx", "0.0"}, {"hmirror", "False"}, {"vmirror", "False"},
          {"scale_mode", "'shortest'"}, {"max_supersampling", "3"});

static PyObject *make_affine_matrix(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    enum { OUT, SH, SW, TH, TW, ANGLE, SCALE, ASPECT, SHY, SHX, SHEARY, SHEARX, HM, VM, MODE, MAXSS, NSLOTS };
    const char *func = "augpy.make_affine_matrix";
    augpy_state *st = augpy_state_from_module(module);
    PyObject *a[NSLOTS];
    if (!st || augpy_parse_args(func, args, nargs, kwnames, &make_affine_matrix_sig, a) < 0) return NULL;
    int64_t size[4];
    for (int k = 0; k < 4; k++)
        if (augpy_parse_int64(a[SH + k], &size[k], func, make_affine_matrix_sig.params[SH + k].name) < 0) return NULL;
    aug_affine_params p = aug_affine_params_default();
    double *dv[7] = {&p.angle, &p.scale, &p.aspect, &p.shifty, &p.shiftx, &p.sheary, &p.shearx};
    for (int k = 0; k < 7; k++)
        if (a[ANGLE + k] && augpy_parse_double(a[ANGLE + k], dv[k], func, make_affine_matrix_sig.params[ANGLE + k].name) < 0)
            return NULL;
    if (a[HM] && (p.hmirror = PyObject_IsTrue(a[HM])) < 0) return NULL;
    if (a[VM] && (p.vmirror = PyObject_IsTrue(a[VM])) < 0) return NULL;
    if (a[MODE] && parse_scale_mode(st, a[MODE], &p.scale_mode, func) < 0) return NULL;
    if (a[MAXSS] && augpy_parse_int(a[MAXSS], &p.max_supersampling, func, "max_supersampling") < 0) return NULL;
    float m[6];
    int ss;
    aug_status s = aug_make_affine_matrix(m, size[0], size[1], size[2], size[3], &p, &ss);
    if (s != AUG_OK) return augpy_raise(st, s, func);
    if (store_matrix(st, a[OUT], m, func) < 0) return NULL;
    return PyLong_FromLong(ss);
}

AUGPY_SIG(make_transform_sig, "make_transform", {"source_size"}, {"target_size"}, {"angle", "0"}, {"scale", "1"},
          {"aspect", "1"}, {"shift", "None"}, {"shear", "None"}, {"hmirror", "False"}, {"vmirror", "False"},
          {"scale_mode", "'shortest'"}, {"max_supersampling", "3"}, {"out", "None"});

static PyObject *make_transform(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    enum { SRC, DST, ANGLE, SCALE, ASPECT, SHIFT, SHEAR, HM, VM, MODE, MAXSS, OUT, NSLOTS };
    const char *func = "augpy.make_transform";
    augpy_state *st = augpy_state_from_module(module);
    if (!st) return NULL;
    /* an unknown keyword (rotation=30) is a TypeError naming it, never silently the identity */
    PyObject *a[NSLOTS];
    if (augpy_parse_args(func, args, nargs, kwnames, &make_transform_sig, a) < 0) return NULL;
    double dummy[2], shift[2], shear[2];
    int64_t src[2], dst[2];
    if (parse_pair(a[SRC], 1, 0, dummy, src, func, "source_size") < 0 ||
        parse_pair(a[DST], 1, 0, dummy, dst, func, "target_size") < 0 ||
        parse_pair(a[SHIFT] ? a[SHIFT] : Py_None, 0, 1, shift, NULL, func, "shift") < 0 ||
        parse_pair(a[SHEAR] ? a[SHEAR] : Py_None, 0, 1, shear, NULL, func, "shear") < 0)
        return NULL;
    aug_affine_params p = aug_affine_params_default();
    p.shifty = shift[0], p.shiftx = shift[1], p.sheary = shear[0], p.shearx = shear[1];
    double *dv[3] = {&p.angle, &p.scale, &p.aspect};
    for (int k = 0; k < 3; k++)
        if (a[ANGLE + k] && augpy_parse_double(a[ANGLE + k], dv[k], func, make_transform_sig.params[ANGLE + k].name) < 0)
            return NULL;
    if (a[HM] && (p.hmirror = PyObject_IsTrue(a[HM])) < 0) return NULL;
    if (a[VM] && (p.vmirror = PyObject_IsTrue(a[VM])) < 0) return NULL;
    if (a[MODE] && parse_scale_mode(st, a[MODE], &p.scale_mode, func) < 0) return NULL;
    if (a[MAXSS] && augpy_parse_int(a[MAXSS], &p.max_supersampling, func, "max_supersampling") < 0) return NULL;
    float m[6];
    int ss;
    aug_status s = aug_make_affine_matrix(m, src[0], src[1], dst[0], dst[1], &p, &ss);
    if (s != AUG_OK) return augpy_raise(st, s, func);
    PyObject *out;
    if (a[OUT] && a[OUT] != Py_None) {
        out = Py_NewRef(a[OUT]);
    } else {
        PyObject *np = augpy_get_numpy(st);
        out = np ? PyObject_CallMethod(np, "empty", "((ii)s)", 2, 3, "float32") : NULL;
        if (!out) return NULL;
    }
    if (store_matrix(st, out, m, func) < 0) {
        Py_DECREF(out);
        return NULL;
    }
    return Py_BuildValue("(Ni)", out, ss);
}

/* ---- warp_affine ----------------------------------------------------------------------------- */

/* The matrices as float32, shape (rows, 3) for one image or (n, rows, 3) for a
 * batch (rows 2: affine, 3: a homography). New. */
static aug_tensor *parse_matrices(augpy_state *st, PyObject *obj, int batch, int64_t n, int rows, const char *func) {
    augpy_bufview v;
    if (augpy_bufview_get(st, obj, 0, &v, func) < 0) return NULL;
    const aug_tensor *t = v.t;
    char sbuf[96];
    int ok = batch ? (t->ndim == 3 && t->shape[0] == n && t->shape[1] == rows && t->shape[2] == 3)
                   : (t->ndim == 2 && t->shape[0] == rows && t->shape[1] == 3);
    aug_tensor *m = NULL;
    if (!ok) {
        if (batch)
            PyErr_Format(PyExc_ValueError, "%s: matrix must have shape (%lld, %d, 3) for %lld images, got %s", func,
                         (long long)n, rows, (long long)n, aug_shape_str(t->ndim, t->shape, sbuf, sizeof sbuf));
        else
            PyErr_Format(PyExc_ValueError, "%s: matrix must have shape (%d, 3), got %s", func, rows,
                         aug_shape_str(t->ndim, t->shape, sbuf, sizeof sbuf));
    } else if (aug_dtype_info(t->dtype)->kind == AUG_KIND_BOOL) {
        PyErr_Format(PyExc_TypeError, "%s: matrix must hold numbers, got bool", func);
    } else {
        m = aug_tensor_empty(t->ndim, t->shape, AUG_FLOAT32, aug_cpu_device());
        if (!m) augpy_raise(st, aug_last_status(), func);
        else if (augpy_copy_into(st, t, m, func) < 0) {
            aug_tensor_free(m);
            m = NULL;
        }
    }
    augpy_bufview_release(&v);
    return m;
}

/* background: None -> *bg = NULL; a Tensor (borrowed); a number (all channels) or an
 * array-like of C values (a new tensor on the CPU in *tmp, whatever the images' device: the
 * core reads a host background by value, where one uploaded to a GPU would be read back,
 * a host wait per call). */
int augpy_parse_background(augpy_state *st, PyObject *obj, int64_t C, const aug_tensor **bg, aug_tensor **tmp,
                           const char *func) {
    aug_device dev = aug_cpu_device();
    *bg = NULL;
    *tmp = NULL;
    if (!obj || obj == Py_None) return 0;
    if (augpy_is_tensor(st, obj)) {
        *bg = augpy_tensor_arg(st, obj, func, "background");
        return *bg ? 0 : -1;
    }
    if (PyFloat_Check(obj) || PyLong_Check(obj)) {
        double v;
        if (augpy_parse_double(obj, &v, func, "background") < 0) return -1;
        aug_scalar sv = aug_scalar_float(v);
        *tmp = aug_tensor_full(1, &C, AUG_FLOAT64, dev, &sv);
        if (!*tmp) {
            augpy_raise(st, aug_last_status(), func);
            return -1;
        }
        *bg = *tmp;
        return 0;
    }
    *tmp = augpy_tensor_from_buffer(st, obj, dev, func);
    if (!*tmp) return -1;
    *bg = *tmp;
    return 0;
}

/* A str option (None / absent: *name = NULL). */
static int option_name(PyObject *obj, const char **name, const char *func, const char *what) {
    *name = NULL;
    if (!obj || obj == Py_None) return 0;
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: %s must be a str, not '%.100s'", func, what, Py_TYPE(obj)->tp_name);
        return -1;
    }
    *name = PyUnicode_AsUTF8(obj);
    return *name ? 0 : -1;
}

/* A layout keyword (augpy_parse_layout): one image's is "CHW" / "HWC", a batch's
 * dst "NCHW" / "NHWC", a batch's src either (list images are 3-D), then the
 * aug_warp_layout it names. *name: the str (NULL when not given). */
static int parse_layout(augpy_state *st, PyObject *obj, int batch, int src, aug_warp_layout *out, const char **name,
                        const char *func) {
    const char *supported = !batch ? "CHW,HWC" : src ? "NCHW,NHWC,CHW,HWC" : "NCHW,NHWC";
    *out = AUG_WARP_LAYOUT_AUTO;
    if (augpy_parse_layout(st, obj, supported, name, func, src ? "src_layout" : "layout") < 0) return -1;
    if (!*name) return 0;
    aug_status s = aug_warp_layout_from_name(func, *name, out);
    return s ? (augpy_raise(st, s, NULL), -1) : 0;
}

/* The source images of warp_affine: one image, a list of them, or an NHWC / NCHW
 * batch tensor (viewed image by image); foreign arrays imported without a copy. */
typedef struct {
    PyObject *seq;           /* the list's snapshot, or NULL */
    augpy_image *ims;        /* the list's images, or NULL */
    augpy_image one;         /* the single image or batch tensor */
    aug_tensor **views;      /* the images of a batch tensor (owned), or NULL */
    const aug_tensor **srcs; /* n pointers to the images */
    int64_t n;
    int batch;
} warp_sources;

static void sources_release(warp_sources *w) {
    if (w->views)
        for (int64_t i = 0; i < w->n; i++) aug_tensor_free(w->views[i]);
    PyMem_Free(w->views);
    PyMem_Free(w->srcs);
    augpy_image_seq_release(w->ims, w->seq ? PyTuple_GET_SIZE(w->seq) : 0);
    augpy_image_release(&w->one);
    Py_XDECREF(w->seq);
}

static int parse_sources(augpy_state *st, PyObject *obj, warp_sources *w, const char *func) {
    memset(w, 0, sizeof *w);
    w->n = 1;
    if (PyList_Check(obj) || PyTuple_Check(obj)) {
        if (!(w->seq = PySequence_Tuple(obj))) return -1;
        w->n = PyTuple_GET_SIZE(w->seq);
        w->batch = 1;
        if (w->n == 0) {
            PyErr_Format(PyExc_ValueError, "%s: src is an empty list", func);
            return -1;
        }
        if (!(w->ims = augpy_image_seq(st, w->seq, func, "src"))) return -1;
    } else {
        if (augpy_image_arg(st, obj, 0, &w->one, func, "src") < 0) return -1;
        if (w->one.t->ndim == 4) {
            w->batch = 1;
            w->n = w->one.t->shape[0];
        }
    }
    size_t cnt = (size_t)(w->n > 0 ? w->n : 1);
    w->srcs = PyMem_Calloc(cnt, sizeof *w->srcs);
    if (!w->srcs || (w->batch && !w->seq && !(w->views = PyMem_Calloc(cnt, sizeof *w->views)))) {
        PyErr_NoMemory();
        return -1;
    }
    for (int64_t i = 0; i < w->n; i++) {
        if (w->ims) {
            w->srcs[i] = w->ims[i].t;
        } else if (w->batch) {
            aug_index idx = {.kind = AUG_INDEX_INT, .i = i};
            if (!(w->views[i] = aug_tensor_index(w->one.t, 1, &idx))) {
                augpy_raise(st, aug_last_status(), func);
                return -1;
            }
            w->srcs[i] = w->views[i];
        } else {
            w->srcs[0] = w->one.t;
        }
    }
    if (w->batch && w->n == 0) {
        PyErr_Format(PyExc_ValueError, "%s: src holds no images", func);
        return -1;
    }
    return 0;
}

/* The layouts not given: the sources' (their layout strings, or their shapes
 * say: augpy_image_layout) and dst's (its layout string or shape; 2-D and NHW
 * one-channel outputs have none). */
static int default_layouts(augpy_state *st, const warp_sources *w, const augpy_image *dst, const char *src_name,
                           const char *dst_name, aug_warp_options *opts, const char *func) {
    const char *l = NULL;
    if (!src_name) {
        int r = w->ims ? augpy_images_layout(w->ims, w->n, AUGPY_HWC | AUGPY_CHW, &l, func, "src", "src_layout")
                       : augpy_image_layout(&w->one, w->batch ? AUGPY_NHWC | AUGPY_NCHW : AUGPY_HWC | AUGPY_CHW, &l,
                                            func, "src", "src_layout");
        if (r < 0) return -1;
        if (l && aug_warp_layout_from_name(func, l, &opts->src_layout) != AUG_OK) return augpy_raise(st, 0, NULL), -1;
    }
    if (!dst_name && dst->t->ndim == 3 + w->batch) {
        int kinds = w->batch ? AUGPY_NHWC | AUGPY_NCHW : AUGPY_HWC | AUGPY_CHW;
        if (augpy_image_layout(dst, kinds, &l, func, "dst", "layout") < 0) return -1;
        const char *lab = dst->t->layout; /* dst's own layout (augpy_image_layout checked it fits) */
        if (!l && (!strcmp(lab, "HWC") || !strcmp(lab, "CHW") || !strcmp(lab, "NHWC") || !strcmp(lab, "NCHW"))) l = lab;
        if (l && aug_warp_layout_from_name(func, l, &opts->dst_layout) != AUG_OK) return augpy_raise(st, 0, NULL), -1;
    }
    return 0;
}

/* supersampling: an int, or for a batch also a sequence of n ints, into ss[n]. */
static int parse_supersampling(PyObject *obj, const warp_sources *w, int *ss, const char *func) {
    int64_t n = w->n;
    if (!obj) {
        for (int64_t i = 0; i < n; i++) ss[i] = 1;
        return 0;
    }
    if (!w->batch || PyIndex_Check(obj)) {
        if (augpy_parse_int(obj, &ss[0], func, "supersampling") < 0) return -1;
        for (int64_t i = 1; i < n; i++) ss[i] = ss[0];
        return 0;
    }
    PyObject *sq = PySequence_Check(obj) && !PyUnicode_Check(obj) && !PyBytes_Check(obj)
                       ? PySequence_Tuple(obj) : NULL; /* a snapshot, as parse_pair */
    if (!sq) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: supersampling must be an int or %lld ints (one per image), not '%.100s'",
                     func, (long long)n, Py_TYPE(obj)->tp_name);
        return -1;
    }
    int rc = 0;
    if (PyTuple_GET_SIZE(sq) != n) {
        PyErr_Format(PyExc_ValueError, "%s: supersampling has %zd values for %lld images", func, PyTuple_GET_SIZE(sq),
                     (long long)n);
        rc = -1;
    }
    for (int64_t i = 0; i < n && rc == 0; i++)
        rc = augpy_parse_int(PyTuple_GET_ITEM(sq, i), &ss[i], func, "supersampling");
    Py_DECREF(sq);
    return rc;
}

/* interpolation and the later parameters by keyword only */
AUGPY_SIG_KWONLY(warp_affine_sig, "warp_affine", 5, {"src"}, {"dst"}, {"matrix"}, {"background", "None"},
                 {"supersampling", "1"}, {"interpolation", "'linear'"}, {"border", "'constant'"}, {"layout", "None"},
                 {"src_layout", "None"});

/* warp_perspective: warp_affine's parameters, a (3, 3) / (N, 3, 3) homography */
AUGPY_SIG_KWONLY(warp_perspective_sig, "warp_perspective", 5, {"src"}, {"dst"}, {"matrix"}, {"background", "None"},
                 {"supersampling", "1"}, {"interpolation", "'linear'"}, {"border", "'constant'"}, {"layout", "None"},
                 {"src_layout", "None"});

/* Both warps (proj: the homography's). */
static PyObject *warp_call(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, int proj) {
    enum { SRC, DST, MAT, BG, SS, INTERP, BORDER, LAYOUT, SRC_LAYOUT, NSLOTS };
    const char *func = proj ? "augpy.warp_perspective" : "augpy.warp_affine";
    augpy_state *st = augpy_state_from_module(module);
    PyObject *a[NSLOTS];
    if (!st || augpy_parse_args(func, args, nargs, kwnames, proj ? &warp_perspective_sig : &warp_affine_sig, a) < 0)
        return NULL;
    aug_warp_options opts = aug_warp_options_default();
    const char *bname, *dname, *sname;
    if (augpy_parse_interp(st, a[INTERP], &opts.interpolation, func) < 0 ||
        option_name(a[BORDER], &bname, func, "border") < 0)
        return NULL;
    aug_status ost = AUG_OK;
    if (bname) ost = aug_warp_border_from_name(func, bname, &opts.border);
    if (ost) return augpy_raise(st, ost, NULL);
    augpy_image dsti;
    if (augpy_image_arg(st, a[DST], 1, &dsti, func, "dst") < 0) return NULL;
    aug_tensor *dst = dsti.t, *mat = NULL, *bgtmp = NULL;
    warp_sources w;
    int *ss = NULL;
    const aug_tensor *bg = NULL;
    PyObject *result = NULL;
    if (parse_sources(st, a[SRC], &w, func) < 0) goto done;
    if (!(ss = PyMem_Calloc((size_t)(w.n > 0 ? w.n : 1), sizeof *ss))) {
        PyErr_NoMemory();
        goto done;
    }
    if (parse_layout(st, a[LAYOUT], w.batch, 0, &opts.dst_layout, &dname, func) < 0 ||
        parse_layout(st, a[SRC_LAYOUT], w.batch, 1, &opts.src_layout, &sname, func) < 0 ||
        default_layouts(st, &w, &dsti, sname, dname, &opts, func) < 0 || parse_supersampling(a[SS], &w, ss, func) < 0 ||
        !(mat = parse_matrices(st, a[MAT], w.batch, w.n, proj ? 3 : 2, func)))
        goto done;
    /* the channel count as the core reads dst (a wrong rank is reported there) */
    int b = w.batch;
    int64_t C = dst->ndim == 3 + b ? dst->shape[opts.dst_layout == AUG_WARP_LAYOUT_HWC ? 2 + b : b]
                                   : (dst->ndim == 2 + b ? 1 : 0);
    if (augpy_parse_background(st, a[BG], C, &bg, &bgtmp, func) < 0) goto done;

    int64_t work = aug_tensor_size(dst) * (ss[0] > 0 ? ss[0] : 1); /* decides the GIL release only */
    aug_status s;
    const float *m = aug_tensor_ptr(mat);
    if (proj && b)
        AUGPY_CALL(s, work, aug_warp_perspective_batch(w.n, w.srcs, dst, m, bg, ss, &opts));
    else if (proj)
        AUGPY_CALL(s, work, aug_warp_perspective(w.srcs[0], dst, m, bg, ss[0], &opts));
    else if (b)
        AUGPY_CALL(s, work, aug_warp_affine_batch_ex(w.n, w.srcs, dst, m, bg, ss, &opts));
    else
        AUGPY_CALL(s, work, aug_warp_affine_ex(w.srcs[0], dst, m, bg, ss[0], &opts));
    if (s != AUG_OK) augpy_raise(st, s, func);
    else result = Py_NewRef(a[DST]); /* the result is dst, as out= is the result of the other ops */
done:
    sources_release(&w);
    PyMem_Free(ss);
    aug_tensor_free(mat);
    aug_tensor_free(bgtmp);
    augpy_image_release(&dsti);
    return result;
}

static PyObject *warp_affine(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    return warp_call(module, args, nargs, kwnames, 0);
}

static PyObject *warp_perspective(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    return warp_call(module, args, nargs, kwnames, 1);
}

/* ---- registration --------------------------------------------------------------------------- */

static PyMethodDef warp_functions[] = {
    {"make_affine_matrix", (PyCFunction)(void (*)(void))make_affine_matrix, METH_FASTCALL | METH_KEYWORDS,
     "Write the 2x3 inverse affine map (OpenCV warpAffine with WARP_INVERSE_MAP) into the writable float32 (2, 3) "
     "buffer `out`;\ntransforms apply in the order shear, scale & aspect, mirror, rotation (clockwise degrees), "
     "shift.\nReturns the recommended supersampling factor."},
    {"make_transform", (PyCFunction)(void (*)(void))make_transform, METH_FASTCALL | METH_KEYWORDS,
     "Convenience form of make_affine_matrix: sizes as (height, width), shift and shear as (y, x) pairs, "
     "scale_mode a WarpScaleMode or 'shortest'/'longest'.\nAn unknown keyword (e.g. rotation=30) is a TypeError "
     "naming it (the batch stages pass only these keys of an augmentation dict).\nReturns "
     "(matrix, supersampling) with matrix a float32 (2, 3) numpy array (or `out`)."},
    {"warp_affine", (PyCFunction)(void (*)(void))warp_affine, METH_FASTCALL | METH_KEYWORDS,
     "Affine warp of an (H, W, C) image into a (C, Ht, Wt) tensor with bilinear interpolation and s x s "
     "supersampling; pixels outside the source take `background` (None: zeros; a tensor, number or sequence of "
     "C values). Batch form: src a list of (H_i, W_i, C) tensors or an (N, H, W, C) tensor, dst (N, C, Ht, Wt), "
     "matrix (N, 2, 3), supersampling an int or N ints. Any dtypes; results saturate. interpolation: 'linear' "
     "(also 'bilinear'), 'nearest' (one source value, never blended: masks and labels; supersampling ignored) or "
     "'cubic' (also 'bicubic': Keys' a = -0.75 over 4x4 taps, OpenCV's INTER_CUBIC, in double). border: "
     "'constant' (background), 'replicate', 'reflect' (OpenCV BORDER_REFLECT_101) or 'symmetric' "
     "(BORDER_REFLECT).\nlayout: dst's layout, 'CHW' or 'HWC' ('NCHW' / 'NHWC' for a batch); src_layout: 'HWC' or "
     "'CHW' ('NHWC' / 'NCHW' for a batch tensor).\nNone reads the layout string, else the shape (channels, at most "
     "4, on exactly one end; torch tensors channels first), else HWC sources and CHW outputs (augpy tensors) or a "
     "ValueError asking for the layout (arrays). (H, W) sources and (Ht, Wt) / (N, Ht, Wt) outputs are one channel."
     "\nsrc and dst may be NumPy arrays, CPU torch tensors or any object with __dlpack__ / the buffer protocol, "
     "used without a copy (dst, written in place, must be writable and C-contiguous).\nReturns dst (the object "
     "given), as the other image ops return their out=."},
    {"warp_perspective", (PyCFunction)(void (*)(void))warp_perspective, METH_FASTCALL | METH_KEYWORDS,
     "Perspective warp: warp_affine with a 3x3 homography `matrix` ((N, 3, 3) for a batch), the inverse map "
     "(output pixel -> source pixel, cv2.warpPerspective with WARP_INVERSE_MAP): sample (x, y) reads the source "
     "at (u / w, v / w), (u, v, w) = matrix @ (x, y, 1). A sample with w <= 0 (or a non-finite point) lies outside "
     "the source plane and takes `background` under every border. The matrix must be finite and non-singular "
     "(else a ValueError). Everything else (background, supersampling, interpolation, border, layouts, dtypes, "
     "batches) as warp_affine; a matrix whose last row is (0, 0, 1) gives warp_affine's result.\nReturns dst."},
    {NULL, NULL, 0, NULL},
};

int augpy_init_warp(PyObject *module, augpy_state *st) {
    PyTypeObject *tp = (PyTypeObject *)PyType_FromModuleAndSpec(module, &mode_spec, NULL);
    if (!tp) return -1;
    st->WarpScaleModeType = tp;
    PyObject *members = PyDict_New();
    if (!members) return -1;
    for (int v = 0; v < NUM_MODES; v++) {
        ScaleModeObject *obj = (ScaleModeObject *)tp->tp_alloc(tp, 0);
        if (!obj) {
            Py_DECREF(members);
            return -1;
        }
        obj->value = v;
        int rc = PyDict_SetItemString(tp->tp_dict, MODE_NAMES[v], (PyObject *)obj) < 0 ||
                 PyDict_SetItemString(members, MODE_NAMES[v], (PyObject *)obj) < 0 ||
                 PyModule_AddObjectRef(module, MODE_NAMES[v], (PyObject *)obj) < 0;
        Py_DECREF(obj);
        if (rc) {
            Py_DECREF(members);
            return -1;
        }
    }
    PyObject *proxy = PyDictProxy_New(members);
    Py_DECREF(members);
    if (!proxy || PyDict_SetItemString(tp->tp_dict, "__members__", proxy) < 0) {
        Py_XDECREF(proxy);
        return -1;
    }
    Py_DECREF(proxy);
    PyType_Modified(tp);
    if (PyModule_AddObjectRef(module, "WarpScaleMode", (PyObject *)tp) < 0) return -1;
    static augpy_sig *const sigs[] = {&make_affine_matrix_sig, &make_transform_sig, &warp_affine_sig, &warp_perspective_sig,
                                      NULL};
    if (augpy_sign_methods(warp_functions, sigs) < 0) return -1;
    return PyModule_AddFunctions(module, warp_functions);
}
