/* _augpy/resize.c: augpy.resize, resize_batch, flip, hflip, vflip, crop,
 * center_crop, flip_batch and image_dims (docs/resize.md), a thin layer over
 * aug/resize.h: argument parsing (sizes, interpolation names, layouts), the C
 * call, the result. */
#include "augpy.h"

static int parse_bool(PyObject *obj, int dflt, int *out) {
    if (!obj) {
        *out = dflt;
        return 0;
    }
    int v = PyObject_IsTrue(obj);
    if (v < 0) return -1;
    *out = v;
    return 0;
}

/* size: (h, w) or one int (with `image`: the shorter side, torchvision's rule;
 * without: a square). Sides in [1, 2^31 - 1]. */
static int parse_size(PyObject *obj, const aug_tensor *image, const char *layout, int64_t *h, int64_t *w,
                      const char *func, augpy_state *st) {
    if (PyIndex_Check(obj) || PyBool_Check(obj) || PyFloat_Check(obj)) {
        int64_t s;
        if (augpy_parse_int_range(obj, 1, INT32_MAX, &s, func, "size") < 0) return -1;
        if (!image) {
            *h = *w = s;
            return 0;
        }
        int64_t H, W;
        if (aug_image_dims(image, layout, NULL, &H, &W, NULL) != AUG_OK ||
            aug_resize_shorter_side(H, W, s, h, w) != AUG_OK) {
            augpy_raise(st, aug_last_status(), func);
            return -1;
        }
        return 0;
    }
    PyObject *seq = PySequence_Check(obj) && !PyUnicode_Check(obj) ? PySequence_Tuple(obj) : NULL;
    if (!seq) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: size must be an int or a (height, width) pair, not '%.100s'", func,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    int rc = -1;
    if (PyTuple_GET_SIZE(seq) != 2)
        PyErr_Format(PyExc_ValueError, "%s: size must be (height, width), got %zd values", func, PyTuple_GET_SIZE(seq));
    else if (augpy_parse_int_range(PyTuple_GET_ITEM(seq, 0), 1, INT32_MAX, h, func, "size[0] (height)") == 0 &&
             augpy_parse_int_range(PyTuple_GET_ITEM(seq, 1), 1, INT32_MAX, w, func, "size[1] (width)") == 0)
        rc = 0;
    Py_DECREF(seq);
    return rc;
}

AUGPY_SIG(resize_sig, "resize", {"image"}, {"size"}, {"interpolation", "'linear'"}, {"antialias", "True"},
          {"layout", "None"}, {"out", "None"});

static PyObject *fn_resize(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    enum { IM, SIZE, INTERP, AA, LAYOUT, OUT, NSLOTS };
    const char *func = "augpy.resize";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[NSLOTS], *ret = NULL;
    if (!st || augpy_parse_args(func, args, nargs, kwnames, &resize_sig, a) < 0) return NULL;
    augpy_image im, out;
    aug_interp interp;
    int aa;
    const char *layout;
    int64_t h, w;
    if (augpy_image_arg(st, a[IM], 0, &im, func, "image") < 0) return NULL;
    if (augpy_image_out(st, a[OUT], &out, func) < 0 || augpy_parse_layout(st, a[LAYOUT], NULL, &layout, func, "layout") < 0 ||
        (!layout && augpy_image_layout(&im, AUGPY_ANY_LAYOUT, &layout, func, "image", NULL) < 0) ||
        augpy_parse_interp(st, a[INTERP], &interp, func) < 0 || parse_bool(a[AA], 1, &aa) < 0 ||
        parse_size(a[SIZE], im.t, layout, &h, &w, func, st) < 0)
        goto done;
    aug_tensor *res = out.t;
    aug_status s;
    AUGPY_CALL(s, aug_tensor_size(im.t), aug_resize(im.t, layout, h, w, interp, aa, &res));
    if (s != AUG_OK)
        augpy_raise(st, s, func);
    else
        ret = out.t ? Py_NewRef(a[OUT]) : augpy_wrap(st, res);
done:
    augpy_image_release(&im);
    augpy_image_release(&out);
    return ret;
}

AUGPY_SIG(resize_batch_sig, "resize_batch", {"images"}, {"size"}, {"interpolation", "'linear'"},
          {"antialias", "True"}, {"layout", "None"}, {"out_layout", "'NCHW'"}, {"dtype", "None"}, {"out", "None"});

static PyObject *fn_resize_batch(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    enum { IMS, SIZE, INTERP, AA, LAYOUT, OLAYOUT, DTYPE, OUT, NSLOTS };
    const char *func = "augpy.resize_batch";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[NSLOTS];
    if (!st || augpy_parse_args(func, args, nargs, kwnames, &resize_batch_sig, a) < 0) return NULL;
    aug_interp interp;
    int aa;
    const char *layout, *olayout;
    int64_t h, w;
    if (augpy_parse_layout(st, a[LAYOUT], NULL, &layout, func, "layout") < 0 ||
        augpy_parse_layout(st, a[OLAYOUT], NULL, &olayout, func, "out_layout") < 0 || augpy_parse_interp(st, a[INTERP], &interp, func) < 0 ||
        parse_bool(a[AA], 1, &aa) < 0 || parse_size(a[SIZE], NULL, NULL, &h, &w, func, st) < 0)
        return NULL;
    if (!PyList_Check(a[IMS]) && !PyTuple_Check(a[IMS])) {
        PyErr_Format(PyExc_TypeError, "%s: images must be a list or tuple of tensors, not '%.100s'", func,
                     Py_TYPE(a[IMS])->tp_name);
        return NULL;
    }
    augpy_image outim;
    if (augpy_image_out(st, a[OUT], &outim, func) < 0) return NULL;
    aug_tensor *out = outim.t;
    PyObject *seq = PySequence_Tuple(a[IMS]);
    Py_ssize_t n = seq ? PyTuple_GET_SIZE(seq) : 0;
    PyObject *ret = NULL;
    const aug_tensor **srcs = seq ? PyMem_Calloc((size_t)(n > 0 ? n : 1), sizeof *srcs) : NULL;
    augpy_image *ims = NULL;
    aug_tensor *dst = NULL;
    if (!srcs) {
        if (seq) PyErr_NoMemory();
        goto done;
    }
    if (n == 0) {
        PyErr_Format(PyExc_ValueError, "%s: images is empty", func);
        goto done;
    }
    if (!(ims = augpy_image_seq(st, seq, func, "images")) ||
        (!layout && augpy_images_layout(ims, n, AUGPY_HWC | AUGPY_CHW, &layout, func, "images", NULL) < 0))
        goto done;
    int64_t volume = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        srcs[i] = ims[i].t;
        volume += aug_tensor_size(srcs[i]);
    }
    if (out) {
        dst = out;
        if (a[DTYPE] && a[DTYPE] != Py_None) {
            PyErr_Format(PyExc_ValueError, "%s: give dtype or out, not both", func);
            goto done;
        }
    } else {
        aug_dtype dt = srcs[0]->dtype;
        if (a[DTYPE] && a[DTYPE] != Py_None && augpy_parse_dtype(st, a[DTYPE], &dt, func) < 0) goto done;
        const char *ol = olayout ? olayout : "NCHW";
        int64_t c;
        if (aug_image_dims(srcs[0], layout, NULL, NULL, NULL, &c) != AUG_OK) {
            augpy_raise(st, aug_last_status(), func);
            goto done;
        }
        int64_t shape[4] = {(int64_t)n, c, h, w};
        if (strcmp(ol, "NHWC") == 0) shape[1] = h, shape[2] = w, shape[3] = c;
        else if (strcmp(ol, "NCHW") != 0) {
            PyErr_Format(PyExc_ValueError, "%s: out_layout '%s' is not NCHW or NHWC", func, ol);
            goto done;
        }
        if (!(dst = aug_tensor_empty(4, shape, dt, srcs[0]->device))) {
            augpy_raise(st, aug_last_status(), func);
            goto done;
        }
    }
    if (out) {
        /* out's own H, W must be the size */
        int64_t oh, ow;
        const char *ol = olayout ? olayout : out->layout[0] ? out->layout : "NCHW";
        if (out->ndim == 4 && (strcmp(ol, "NHWC") == 0 || strcmp(ol, "NCHW") == 0)) {
            oh = out->shape[strcmp(ol, "NHWC") == 0 ? 1 : 2], ow = out->shape[strcmp(ol, "NHWC") == 0 ? 2 : 3];
            if (oh != h || ow != w) {
                PyErr_Format(PyExc_ValueError, "%s: out is %lld x %lld but size is (%lld, %lld)", func, (long long)oh,
                             (long long)ow, (long long)h, (long long)w);
                goto done;
            }
        }
    }
    aug_status s;
    AUGPY_CALL(s, volume + aug_tensor_size(dst),
               aug_resize_batch((int64_t)n, srcs, layout, dst, olayout, interp, aa));
    if (s != AUG_OK) {
        augpy_raise(st, s, func);
        goto done;
    }
    if (out) ret = Py_NewRef(a[OUT]);
    else {
        ret = augpy_wrap(st, dst);
        dst = NULL;
    }
done:
    if (dst && dst != out) aug_tensor_free(dst);
    PyMem_Free(srcs);
    augpy_image_seq_release(ims, n);
    augpy_image_release(&outim);
    Py_XDECREF(seq);
    return ret;
}

/* The view an op made of im (NULL: its error), im released. */
static PyObject *finish_view(augpy_state *st, aug_tensor *v, augpy_image *im, const char *func) {
    PyObject *r = v ? augpy_wrap(st, v) : augpy_raise(st, AUG_OK, func);
    augpy_image_release(im);
    return r;
}

/* The image argument and the layout it is read with (layout= or, when None, the
 * tensor's or the one its shape says: augpy_image_layout). 0 or -1 (im released). */
static int image_and_layout(augpy_state *st, PyObject *obj, PyObject *layout_obj, int kinds, augpy_image *im,
                            const char **layout, const char *func) {
    if (augpy_image_arg(st, obj, 0, im, func, "image") < 0) return -1;
    if (augpy_parse_layout(st, layout_obj, NULL, layout, func, "layout") < 0 ||
        (!*layout && augpy_image_layout(im, kinds, layout, func, "image", NULL) < 0)) {
        augpy_image_release(im);
        return -1;
    }
    return 0;
}

AUGPY_SIG(flip_sig, "flip", {"image"}, {"horizontal", "True"}, {"vertical", "False"}, {"layout", "None"});
AUGPY_SIG(hflip_sig, "hflip", {"image"}, {"layout", "None"});
AUGPY_SIG(vflip_sig, "vflip", {"image"}, {"layout", "None"});

/* fixed: hflip / vflip (image, layout), else flip */
static PyObject *flip_common(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                             const char *func, int dflt_h, int dflt_v, augpy_sig *fixed) {
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[4] = {NULL, NULL, NULL, NULL};
    int h = dflt_h, v = dflt_v;
    const char *layout;
    if (!st) return NULL;
    if (fixed) {
        PyObject *b[2];
        if (augpy_parse_args(func, args, nargs, kwnames, fixed, b) < 0) return NULL;
        a[0] = b[0], a[3] = b[1];
    } else if (augpy_parse_args(func, args, nargs, kwnames, &flip_sig, a) < 0 || parse_bool(a[1], dflt_h, &h) < 0 ||
               parse_bool(a[2], dflt_v, &v) < 0)
        return NULL;
    augpy_image im;
    if (image_and_layout(st, a[0], a[3], AUGPY_ANY_LAYOUT, &im, &layout, func) < 0) return NULL;
    return finish_view(st, aug_flip(im.t, layout, h, v), &im, func);
}

static PyObject *fn_flip(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    return flip_common(m, args, nargs, kwnames, "augpy.flip", 1, 0, NULL);
}
static PyObject *fn_hflip(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    return flip_common(m, args, nargs, kwnames, "augpy.hflip", 1, 0, &hflip_sig);
}
static PyObject *fn_vflip(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    return flip_common(m, args, nargs, kwnames, "augpy.vflip", 0, 1, &vflip_sig);
}

AUGPY_SIG(crop_sig, "crop", {"image"}, {"y"}, {"x"}, {"h"}, {"w"}, {"layout", "None"});

static PyObject *fn_crop(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    const char *func = "augpy.crop";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[6];
    int64_t v[4];
    const char *layout;
    if (!st || augpy_parse_args(func, args, nargs, kwnames, &crop_sig, a) < 0) return NULL;
    augpy_image im;
    if (augpy_parse_int64(a[1], &v[0], func, "y") < 0 || augpy_parse_int64(a[2], &v[1], func, "x") < 0 ||
        augpy_parse_int64(a[3], &v[2], func, "h") < 0 || augpy_parse_int64(a[4], &v[3], func, "w") < 0 ||
        image_and_layout(st, a[0], a[5], AUGPY_ANY_LAYOUT, &im, &layout, func) < 0)
        return NULL;
    return finish_view(st, aug_crop(im.t, layout, v[0], v[1], v[2], v[3]), &im, func);
}

AUGPY_SIG(center_crop_sig, "center_crop", {"image"}, {"size"}, {"layout", "None"});

static PyObject *fn_center_crop(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    const char *func = "augpy.center_crop";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[3];
    const char *layout;
    int64_t h, w;
    if (!st || augpy_parse_args(func, args, nargs, kwnames, &center_crop_sig, a) < 0) return NULL;
    augpy_image im;
    if (parse_size(a[1], NULL, NULL, &h, &w, func, st) < 0 ||
        image_and_layout(st, a[0], a[2], AUGPY_ANY_LAYOUT, &im, &layout, func) < 0)
        return NULL;
    aug_tensor *r;
    AUGPY_CALL(r, aug_tensor_size(im.t), aug_center_crop(im.t, layout, h, w));
    return finish_view(st, r, &im, func);
}

AUGPY_SIG(flip_batch_sig, "flip_batch", {"batch"}, {"flags"}, {"horizontal", "True"}, {"vertical", "False"},
          {"layout", "None"}, {"out", "None"});

static PyObject *fn_flip_batch(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    enum { B, FLAGS, H, V, LAYOUT, OUT, NSLOTS };
    const char *func = "augpy.flip_batch";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[NSLOTS];
    int h, v;
    const char *layout;
    if (!st || augpy_parse_args(func, args, nargs, kwnames, &flip_batch_sig, a) < 0) return NULL;
    if (parse_bool(a[H], 1, &h) < 0 || parse_bool(a[V], 0, &v) < 0 ||
        augpy_parse_layout(st, a[LAYOUT], NULL, &layout, func, "layout") < 0)
        return NULL;
    /* out may be the batch itself (in place): one import of a foreign array, writable */
    int inplace = a[OUT] && a[OUT] == a[B];
    augpy_image bim, oim = {0};
    if (augpy_image_arg(st, a[B], inplace, &bim, func, "batch") < 0) return NULL;
    PyObject *ret = NULL, *seq = NULL;
    uint8_t *flags = NULL;
    if ((!inplace && augpy_image_out(st, a[OUT], &oim, func) < 0) ||
        (!layout && augpy_image_layout(&bim, AUGPY_NHWC | AUGPY_NCHW, &layout, func, "batch", NULL) < 0))
        goto done;
    aug_tensor *b = bim.t, *out = inplace ? bim.t : oim.t;
    seq = PySequence_Check(a[FLAGS]) && !PyUnicode_Check(a[FLAGS]) ? PySequence_Tuple(a[FLAGS]) : NULL;
    if (!seq) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: flags must be a sequence of bools, not '%.100s'", func,
                     Py_TYPE(a[FLAGS])->tp_name);
        goto done;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(seq);
    flags = PyMem_Malloc((size_t)(n > 0 ? n : 1));
    if (!flags) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        int f = PyObject_IsTrue(PyTuple_GET_ITEM(seq, i));
        if (f < 0) goto done;
        flags[i] = (uint8_t)f;
    }
    aug_tensor *res = out;
    aug_status s;
    AUGPY_CALL(s, aug_tensor_size(b), aug_flip_batch(b, layout, flags, (int64_t)n, h, v, &res));
    if (s != AUG_OK) augpy_raise(st, s, func);
    else ret = out ? Py_NewRef(a[OUT]) : augpy_wrap(st, res);
done:
    PyMem_Free(flags);
    Py_XDECREF(seq);
    augpy_image_release(&bim);
    augpy_image_release(&oim);
    return ret;
}

AUGPY_SIG(image_dims_sig, "image_dims", {"image"}, {"layout", "None"});

static PyObject *fn_image_dims(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    const char *func = "augpy.image_dims";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[2];
    const char *layout;
    if (!st || augpy_parse_args(func, args, nargs, kwnames, &image_dims_sig, a) < 0) return NULL;
    augpy_image im;
    if (image_and_layout(st, a[0], a[1], AUGPY_ANY_LAYOUT, &im, &layout, func) < 0) return NULL;
    int64_t d[4];
    aug_status s = aug_image_dims(im.t, layout, &d[0], &d[1], &d[2], &d[3]);
    augpy_image_release(&im);
    if (s != AUG_OK) return augpy_raise(st, s, func);
    return augpy_int64_tuple(4, d);
}

static PyMethodDef resize_functions[] = {
    {"resize", (PyCFunction)(void (*)(void))fn_resize, METH_FASTCALL | METH_KEYWORDS,
     "Resize an image (HW, HWC, CHW) or a batch (NHWC, NCHW) to size = (height, width), or with an int size\n"
     "make the shorter side that long (torchvision). interpolation: 'linear' (also 'bilinear'), 'nearest' or 'area' (OpenCV's\n"
     "INTER_NEAREST, INTER_LINEAR, INTER_AREA); antialias: bilinear shrinking uses Pillow's widened triangle\n"
     "filter (torchvision antialias=True). Any dtype and strides; saturate_cast.\n"
     "layout: None reads the tensor's layout string; without one a 3-D shape with channels (at most 4) on\n"
     "exactly one end is HWC or CHW, a 4-D one NHWC or NCHW by its last three dimensions, a torch tensor\n"
     "channels first when it can be; other shapes take HWC (3-D) / NCHW (4-D) for augpy tensors and are a\n"
     "ValueError asking for layout= for arrays (docs/semantics.md, layouts).\n"
     "image: an augpy tensor, or a NumPy array / CPU torch tensor / any object with __dlpack__, the buffer\n"
     "protocol or __array_interface__, used without a copy (the result is an augpy tensor).\n"
     "Returns a new tensor, or out (any dtype and strides; a writable array is written in place)."},
    {"resize_batch", (PyCFunction)(void (*)(void))fn_resize_batch, METH_FASTCALL | METH_KEYWORDS,
     "Resize a list of images (HW, HWC or CHW, any sizes; tensors or arrays) into one (N, C, H, W) or\n"
     "(N, H, W, C) batch (layout None: the one the images' layout strings and shapes agree on);\n"
     "size = (height, width) or an int (square). dtype: of the new batch (default: the images'). Returns the\n"
     "new batch or out."},
    {"flip", (PyCFunction)(void (*)(void))fn_flip, METH_FASTCALL | METH_KEYWORDS,
     "A view of the image(s) mirrored left-right and/or upside down (negative strides, no copy).\n"
     "image: HW, HWC, CHW, NHWC or NCHW (layout as augpy.resize); an array is viewed without a copy."},
    {"hflip", (PyCFunction)(void (*)(void))fn_hflip, METH_FASTCALL | METH_KEYWORDS,
     "flip(image, horizontal=True): a left-right mirrored view.\n"
     "image: HW, HWC, CHW, NHWC or NCHW (layout as augpy.resize); an array is viewed without a copy."},
    {"vflip", (PyCFunction)(void (*)(void))fn_vflip, METH_FASTCALL | METH_KEYWORDS,
     "flip(image, False, True): an upside-down view.\n"
     "image: HW, HWC, CHW, NHWC or NCHW (layout as augpy.resize); an array is viewed without a copy."},
    {"crop", (PyCFunction)(void (*)(void))fn_crop, METH_FASTCALL | METH_KEYWORDS,
     "A view of rows y .. y+h-1 and columns x .. x+w-1 of the image(s); ValueError when it does not fit.\n"
     "image: HW, HWC, CHW, NHWC or NCHW (layout as augpy.resize); an array is viewed without a copy."},
    {"center_crop", (PyCFunction)(void (*)(void))fn_center_crop, METH_FASTCALL | METH_KEYWORDS,
     "torchvision's CenterCrop: size = (h, w) or an int; a view when it fits (offset round((H - h) / 2)),\n"
     "else a new tensor with the image centred on zeros.\n"
     "image: HW, HWC, CHW, NHWC or NCHW (layout as augpy.resize); an array is viewed without a copy."},
    {"flip_batch", (PyCFunction)(void (*)(void))fn_flip_batch, METH_FASTCALL | METH_KEYWORDS,
     "Copy of a batch (NCHW / NHWC) with image i flipped where flags[i] is true.\n"
     "out may be batch (in place); batch and out may be arrays (layout as augpy.resize)."},
    {"image_dims", (PyCFunction)(void (*)(void))fn_image_dims, METH_FASTCALL | METH_KEYWORDS,
     "(N, H, W, C) of an image or batch under its layout (N, C = 1 when "
     "absent).\n"
     "layout None: the layout augpy.resize reads the image with (its layout string or its shape's)."},
    {NULL, NULL, 0, NULL},
};

int augpy_init_resize(PyObject *module, augpy_state *st) {
    (void)st;
    static augpy_sig *const sigs[] = {&resize_sig, &resize_batch_sig, &flip_sig,        &hflip_sig,      &vflip_sig,
                                      &crop_sig,   &center_crop_sig,  &flip_batch_sig,  &image_dims_sig, NULL};
    if (augpy_sign_methods(resize_functions, sigs) < 0) return -1;
    return PyModule_AddFunctions(module, resize_functions);
}
