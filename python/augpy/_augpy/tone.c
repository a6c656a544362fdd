/* _augpy/tone.c: augpy's tone ops (docs/colour.md) over aug/colour.h's:
 * invert (torchvision's: 255 - x for uint8, 65535 - x for uint16, 1 - x for
 * float32 / float64), on an image of any layout (HW, HWC, CHW, NHWC, NCHW; the
 * layout does not change the values, so none is asked for or inferred) or a
 * batch, out= allowed (the image itself: in place). */
#include "augpy.h"

AUGPY_SIG(invert_sig, "invert", {"imtensor|tensor"}, {"out", "None"});

static PyObject *fn_invert(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    const char *func = "augpy.invert";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[2];
    if (!st || augpy_parse_args(func, args, nargs, kwnames, &invert_sig, a) < 0) return NULL;
    augpy_image im, out;
    memset(&out, 0, sizeof out);
    int inplace = a[1] && a[1] == a[0]; /* one import, written in place */
    if (augpy_image_arg(st, a[0], inplace, &im, func, "imtensor") < 0) return NULL;
    if (inplace) {
        out = im;
        Py_INCREF(out.obj);
    } else if (augpy_image_out(st, a[1], &out, func) < 0) {
        augpy_image_release(&im);
        return NULL;
    }
    aug_tensor *res = out.t;
    aug_status s;
    AUGPY_CALL(s, aug_tensor_size(im.t), aug_invert(im.t, &res));
    return augpy_image_result(st, s, res, &im, &out, a[1], func);
}

static PyMethodDef tone_functions[] = {
    {"invert", (PyCFunction)(void (*)(void))fn_invert, METH_FASTCALL | METH_KEYWORDS,
     "torchvision's invert: 255 - x for uint8 (65535 - x for uint16), 1.0 - x for float32 and float64\n"
     "(torchvision's bound for floats is 1.0; values outside [0, 1] are not clamped), per value.\n"
     "imtensor: an image (H, W), (H, W, C), (C, H, W) or a batch (N, H, W, C), (N, C, H, W), any channel\n"
     "count, any strides; a Tensor or an array (numpy, torch, DLPack, buffer), used without a copy. Its\n"
     "layout string, when it has one, must be one of those and is kept. out may be imtensor (in place).\n"
     "Returns the new tensor if out is None, else out."},
    {NULL, NULL, 0, NULL},
};

static augpy_sig *const tone_sigs[] = {&invert_sig, NULL};

int augpy_init_tone(PyObject *module, augpy_state *st) {
    (void)st;
    if (augpy_sign_methods(tone_functions, tone_sigs) < 0) return -1;
    return PyModule_AddFunctions(module, tone_functions);
}
