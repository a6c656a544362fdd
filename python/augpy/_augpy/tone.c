/* _augpy/tone.c: augpy's tone ops (docs/colour.md) over aug/colour.h's:
 * invert (torchvision's: 255 - x for uint8, 65535 - x for uint16, 1 - x for
 * float32 / float64), posterize (bits) and solarize (threshold), their
 * operands given once or one per image, on an image of any layout (HW, HWC, CHW, NHWC, NCHW; the
 * layout does not change the values, so none is asked for or inferred) or a
 * batch, out= allowed (the image itself: in place); and the autotone ops
 * (core/autotone.h), per channel: equalize, autocontrast and adjust_sharpness
 * (sharpness_factor once or one per image), whose image's layout string says
 * where its channels are (without one: channels first). */
#include <math.h>
#include "augpy.h"

/* imtensor and out= of a tone op: out being imtensor is one import, written in
 * place. 0 or -1 (both released). */
static int tone_images(augpy_state *st, PyObject *img, PyObject *out_obj, augpy_image *im, augpy_image *out,
                       const char *func) {
    memset(out, 0, sizeof *out);
    const int inplace = out_obj && out_obj == img;
    if (augpy_image_arg(st, img, inplace, im, func, "imtensor") < 0) return -1;
    if (inplace) {
        *out = *im;
        Py_INCREF(out->obj);
    } else if (augpy_image_out(st, out_obj, out, func) < 0) {
        augpy_image_release(im);
        return -1;
    }
    return 0;
}

/* The images of im: N of an (N, ., ., .) batch, else 1. */
static int64_t image_count(const aug_tensor *im) { return im->ndim == 4 ? im->shape[0] : 1; }

/* An integer operand given as a number or one per image (augpy_parse_per_image): a
 * PyMem array of *count values, *count = 1 when they are all equal (or n is 0). NULL with
 * TypeError ("must be integers") for a non-integral value, ValueError ("must be
 * in [lo, hi]") beyond int32. */
static int32_t *int_operand(PyObject *obj, int64_t n, int32_t lo, int32_t hi, int64_t *count, const char *func,
                            const char *name) {
    if (n < 1) n = 1; /* an empty batch: one value, checked all the same */
    double *v = augpy_per_image_alloc(obj, n, 1, func, name);
    int32_t *r = v ? PyMem_Malloc((size_t)(n + 1) * sizeof(int32_t)) : NULL;
    if (v && !r) PyErr_NoMemory();
    *count = 1;
    for (int64_t i = 0; r && i < n; i++) {
        if (v[i] == floor(v[i]) && v[i] >= INT32_MIN && v[i] <= INT32_MAX) {
            r[i] = (int32_t)v[i];
            if (r[i] != r[0]) *count = n;
            continue;
        }
        PyObject *f = PyFloat_FromDouble(v[i]);
        if (f && v[i] != floor(v[i]))
            PyErr_Format(PyExc_TypeError, "%s: %s must be integers, got %R", func, name, f);
        else if (f)
            PyErr_Format(PyExc_ValueError, "%s: %s must be in [%d, %d], got %R", func, name, (int)lo, (int)hi, f);
        Py_XDECREF(f);
        PyMem_Free(r), r = NULL;
    }
    PyMem_Free(v);
    return r;
}

/* A float operand given as a number or one per image: a PyMem array of *count
 * values, *count = 1 when they are all equal (or n is 0); NULL with the error set. */
static double *float_operand(PyObject *obj, int64_t n, int64_t *count, const char *func, const char *name) {
    if (n < 1) n = 1;
    double *v = augpy_per_image_alloc(obj, n, 1, func, name);
    *count = 1;
    for (int64_t i = 1; v && i < n; i++)
        if (!(v[i] == v[0])) *count = n;
    return v;
}

AUGPY_SIG(invert_sig, "invert", {"imtensor|tensor"}, {"out", "None"});

static PyObject *fn_invert(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    const char *func = "augpy.invert";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[2];
    augpy_image im, out;
    if (!st || augpy_parse_args(func, args, nargs, kwnames, &invert_sig, a) < 0 ||
        tone_images(st, a[0], a[1], &im, &out, func) < 0)
        return NULL;
    aug_tensor *res = out.t;
    aug_status s;
    AUGPY_CALL(s, aug_tensor_size(im.t), aug_invert(im.t, &res));
    return augpy_image_result(st, s, res, &im, &out, a[1], func);
}

AUGPY_SIG(posterize_sig, "posterize", {"imtensor|tensor"}, {"bits"}, {"out", "None"});

static PyObject *fn_posterize(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    const char *func = "augpy.posterize";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[3];
    augpy_image im, out;
    if (!st || augpy_parse_args(func, args, nargs, kwnames, &posterize_sig, a) < 0 ||
        tone_images(st, a[0], a[2], &im, &out, func) < 0)
        return NULL;
    int64_t count;
    int32_t *bits = int_operand(a[1], image_count(im.t), 0, 32, &count, func, "bits");
    if (!bits) {
        augpy_image_release(&im), augpy_image_release(&out);
        return NULL;
    }
    aug_tensor *res = out.t;
    aug_status s;
    AUGPY_CALL(s, aug_tensor_size(im.t), aug_posterize(im.t, bits, count, &res));
    PyMem_Free(bits);
    return augpy_image_result(st, s, res, &im, &out, a[2], func);
}

AUGPY_SIG(solarize_sig, "solarize", {"imtensor|tensor"}, {"threshold"}, {"out", "None"});

static PyObject *fn_solarize(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    const char *func = "augpy.solarize";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[3];
    augpy_image im, out;
    if (!st || augpy_parse_args(func, args, nargs, kwnames, &solarize_sig, a) < 0 ||
        tone_images(st, a[0], a[2], &im, &out, func) < 0)
        return NULL;
    int64_t count;
    double *threshold = float_operand(a[1], image_count(im.t), &count, func, "threshold");
    if (!threshold) {
        augpy_image_release(&im), augpy_image_release(&out);
        return NULL;
    }
    aug_tensor *res = out.t;
    aug_status s;
    AUGPY_CALL(s, aug_tensor_size(im.t), aug_solarize(im.t, threshold, count, &res));
    PyMem_Free(threshold);
    return augpy_image_result(st, s, res, &im, &out, a[2], func);
}

AUGPY_SIG(equalize_sig, "equalize", {"imtensor|tensor"}, {"out", "None"});
AUGPY_SIG(autocontrast_sig, "autocontrast", {"imtensor|tensor"}, {"out", "None"});

/* equalize or autocontrast (the parameterless autotone ops). */
static PyObject *autotone_plain(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                                const char *func, augpy_sig *sig, aug_status (*op)(const aug_tensor *, aug_tensor **)) {
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[2];
    augpy_image im, out;
    if (!st || augpy_parse_args(func, args, nargs, kwnames, sig, a) < 0 ||
        tone_images(st, a[0], a[1], &im, &out, func) < 0)
        return NULL;
    aug_tensor *res = out.t;
    aug_status s;
    AUGPY_CALL(s, aug_tensor_size(im.t), op(im.t, &res));
    return augpy_image_result(st, s, res, &im, &out, a[1], func);
}

static PyObject *fn_equalize(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    return autotone_plain(m, args, nargs, kwnames, "augpy.equalize", &equalize_sig, aug_equalize);
}

static PyObject *fn_autocontrast(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    return autotone_plain(m, args, nargs, kwnames, "augpy.autocontrast", &autocontrast_sig, aug_autocontrast);
}

AUGPY_SIG(adjust_sharpness_sig, "adjust_sharpness", {"imtensor|tensor"}, {"sharpness_factor"}, {"out", "None"});

static PyObject *fn_adjust_sharpness(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    const char *func = "augpy.adjust_sharpness";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[3];
    augpy_image im, out;
    if (!st || augpy_parse_args(func, args, nargs, kwnames, &adjust_sharpness_sig, a) < 0 ||
        tone_images(st, a[0], a[2], &im, &out, func) < 0)
        return NULL;
    int64_t count;
    double *factor = float_operand(a[1], image_count(im.t), &count, func, "sharpness_factor");
    if (!factor) {
        augpy_image_release(&im), augpy_image_release(&out);
        return NULL;
    }
    aug_tensor *res = out.t;
    aug_status s;
    AUGPY_CALL(s, aug_tensor_size(im.t), aug_adjust_sharpness(im.t, factor, count, &res));
    PyMem_Free(factor);
    return augpy_image_result(st, s, res, &im, &out, a[2], func);
}

static PyMethodDef tone_functions[] = {
    {"invert", (PyCFunction)(void (*)(void))fn_invert, METH_FASTCALL | METH_KEYWORDS,
     "torchvision's invert: 255 - x for uint8 (65535 - x for uint16), 1.0 - x for float32 and float64\n"
     "(torchvision's bound for floats is 1.0; values outside [0, 1] are not clamped), per value.\n"
     "imtensor: an image (H, W), (H, W, C), (C, H, W) or a batch (N, H, W, C), (N, C, H, W), any channel\n"
     "count, any strides; a Tensor or an array (numpy, torch, DLPack, buffer), used without a copy. Its\n"
     "layout string, when it has one, must be one of those and is kept. out may be imtensor (in place).\n"
     "Returns the new tensor if out is None, else out."},
    {"posterize", (PyCFunction)(void (*)(void))fn_posterize, METH_FASTCALL | METH_KEYWORDS,
     "torchvision's posterize: an integer keeps its high `bits` bits (x & mask; bits >= 8 leaves uint8 unchanged,\n"
     ">= 16 uint16), a float becomes clamp(floor(x * 2**bits), 0, 2**bits - 1) / 2**bits in its own type.\n"
     "imtensor: an image of any layout or a batch, as for invert (out likewise). bits: an int in [0, 32], or\n"
     "one per image of an (N, ., ., .) batch (a sequence, array or tensor of N ints).\n"
     "Returns the new tensor if out is None, else out."},
    {"solarize", (PyCFunction)(void (*)(void))fn_solarize, METH_FASTCALL | METH_KEYWORDS,
     "torchvision's solarize: x >= threshold ? invert(x) : x (compared in float32 for integer and float32\n"
     "images, as torch compares an image with a Python float).\n"
     "imtensor: an image of any layout or a batch, as for invert (out likewise). threshold: a number <= the\n"
     "dtype's largest value (255 for uint8, 65535 for uint16, 1.0 for floats), or one per image of an\n"
     "(N, ., ., .) batch. Returns the new tensor if out is None, else out."},
    {"equalize", (PyCFunction)(void (*)(void))fn_equalize, METH_FASTCALL | METH_KEYWORDS,
     "torchvision's equalize, per channel: a 256-bin histogram, then PIL's lookup table (a channel with\n"
     "fewer than 255 values below its highest level is kept). float32 is binned as trunc(x * 255.999)\n"
     "(outside [0, 1]: clamped) and comes back as level / 255. uint16: 65536 bins, level k ->\n"
     "min((cum[k - 1] * 65535 + d // 2) // d, 65535), d the values below the highest level (d = 0: kept).\n"
     "imtensor: uint8, uint16 or float32, (H, W), (C, H, W), (H, W, C) or a batch (N, C, H, W), (N, H, W, C), any\n"
     "channel count, any strides; its layout string says where the channels are (without one: channels\n"
     "first, as torchvision) and is kept. out may be imtensor (in place).\n"
     "Returns the new tensor if out is None, else out."},
    {"autocontrast", (PyCFunction)(void (*)(void))fn_autocontrast, METH_FASTCALL | METH_KEYWORDS,
     "torchvision's autocontrast, per channel: (x - min) / ((max - min) * (1 / bound)) in float32, clamped\n"
     "to [0, bound] (255 for uint8, 65535 for uint16, truncated; 1.0 for float32); a flat channel is kept, a NaN makes its\n"
     "channel NaN. imtensor and out as for equalize. Returns the new tensor if out is None, else out."},
    {"adjust_sharpness", (PyCFunction)(void (*)(void))fn_adjust_sharpness, METH_FASTCALL | METH_KEYWORDS,
     "torchvision's adjust_sharpness, per channel: each interior value x becomes x + (1 - f) * (blurred - x),\n"
     "blurred its 3 x 3 smoothing (1/13 around 5/13; rounded for integers), clamped to [0, bound]; the border\n"
     "is kept (clamped), a channel of at most 2 rows or columns returned as it is. sharpness_factor: a\n"
     "finite number >= 0 (0 blurs, 1 keeps, 2 sharpens), or one per image of an (N, ., ., .) batch.\n"
     "imtensor and out as for equalize. Returns the new tensor if out is None, else out."},
    {NULL, NULL, 0, NULL},
};

static augpy_sig *const tone_sigs[] = {&invert_sig,   &posterize_sig,    &solarize_sig,
                                       &equalize_sig, &autocontrast_sig, &adjust_sharpness_sig, NULL};

int augpy_init_tone(PyObject *module, augpy_state *st) {
    (void)st;
    if (augpy_sign_methods(tone_functions, tone_sigs) < 0) return -1;
    return PyModule_AddFunctions(module, tone_functions);
}
