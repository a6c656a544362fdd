/* _augpy/blur.c: augpy.box_blur_single, gaussian_blur_single, gaussian_blur and
 * PIL's GaussianBlur pil_gaussian_blur_single / pil_gaussian_blur
 * (semantics §13; augpy manual 3.1.4.4, quoted in docs/sources/augpy-manual.md), a
 * thin layer over the aug blur functions. sigmas is a number or one per image: a
 * float32 tensor, or a number, numpy array or sequence (augpy_per_image_tensor). */
#include "augpy.h"

AUGPY_SIG(box_blur_single_sig, "box_blur_single", {"input|tensor"}, {"ksize"}, {"out", "None"});

static PyObject *fn_box_blur_single(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    const char *func = "augpy.box_blur_single";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[3];
    int ksize;
    augpy_image in, out;
    if (!st || augpy_parse_args(func, args, nargs, kwnames, &box_blur_single_sig, a) < 0 ||
        augpy_parse_int(a[1], &ksize, func, "ksize") < 0 ||
        augpy_image_io(st, a[0], a[2], AUGPY_CHW, &in, &out, func, "input") < 0)
        return NULL;
    aug_tensor *res = out.t;
    aug_status s;
    AUGPY_CALL(s, aug_tensor_size(in.t), aug_box_blur_single(in.t, ksize, &res));
    return augpy_image_result(st, s, res, &in, &out, a[2], func);
}

AUGPY_SIG(gaussian_blur_single_sig, "gaussian_blur_single", {"input|tensor"}, {"sigma"}, {"out", "None"});

static PyObject *fn_gaussian_blur_single(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    const char *func = "augpy.gaussian_blur_single";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[3];
    if (!st || augpy_parse_args(func, args, nargs, kwnames, &gaussian_blur_single_sig, a) < 0)
        return NULL;
    if (PyBool_Check(a[1]) || !PyNumber_Check(a[1]) || PyComplex_Check(a[1])) {
        PyErr_Format(PyExc_TypeError, "%s: sigma must be a number, not '%.100s'", func, Py_TYPE(a[1])->tp_name);
        return NULL;
    }
    double sigma;
    augpy_image in, out;
    if (augpy_parse_double(a[1], &sigma, func, "sigma") < 0 || /* ValueError for ints beyond the double range */
        augpy_image_io(st, a[0], a[2], AUGPY_CHW, &in, &out, func, "input") < 0)
        return NULL;
    aug_tensor *res = out.t;
    aug_status s;
    AUGPY_CALL(s, aug_tensor_size(in.t), aug_gaussian_blur_single(in.t, sigma, &res));
    return augpy_image_result(st, s, res, &in, &out, a[2], func);
}

AUGPY_SIG(gaussian_blur_sig, "gaussian_blur", {"input|tensor"}, {"sigmas"}, {"max_ksize"}, {"out", "None"});

static PyObject *fn_gaussian_blur(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    const char *func = "augpy.gaussian_blur";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[4];
    int max_ksize;
    augpy_image in, out;
    if (!st || augpy_parse_args(func, args, nargs, kwnames, &gaussian_blur_sig, a) < 0 ||
        augpy_parse_int(a[2], &max_ksize, func, "max_ksize") < 0 ||
        augpy_image_io(st, a[0], a[3], AUGPY_NCHW, &in, &out, func, "input") < 0)
        return NULL;
    aug_tensor *tmp = NULL, *res = out.t;
    aug_tensor *sig = augpy_per_image_tensor(st, a[1], in.t->shape[0], 1, in.t->device, func, "sigmas", &tmp);
    aug_status s = AUG_OK;
    if (sig) AUGPY_CALL(s, aug_tensor_size(in.t), aug_gaussian_blur(in.t, sig, max_ksize, &res));
    aug_tensor_free(tmp);
    if (!sig) {
        augpy_image_release(&in);
        augpy_image_release(&out);
        return NULL;
    }
    return augpy_image_result(st, s, res, &in, &out, a[3], func);
}

AUGPY_SIG(pil_gaussian_blur_single_sig, "pil_gaussian_blur_single", {"input|tensor"}, {"radius"}, {"out", "None"});

static PyObject *fn_pil_gaussian_blur_single(PyObject *m, PyObject *const *args, Py_ssize_t nargs,
                                             PyObject *kwnames) {
    const char *func = "augpy.pil_gaussian_blur_single";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[3];
    if (!st || augpy_parse_args(func, args, nargs, kwnames, &pil_gaussian_blur_single_sig, a) < 0)
        return NULL;
    if (PyBool_Check(a[1]) || !PyNumber_Check(a[1]) || PyComplex_Check(a[1])) {
        PyErr_Format(PyExc_TypeError, "%s: radius must be a number, not '%.100s'", func, Py_TYPE(a[1])->tp_name);
        return NULL;
    }
    double radius;
    augpy_image in, out;
    if (augpy_parse_double(a[1], &radius, func, "radius") < 0 ||
        augpy_image_io(st, a[0], a[2], AUGPY_CHW, &in, &out, func, "input") < 0)
        return NULL;
    aug_tensor *res = out.t;
    aug_status s;
    AUGPY_CALL(s, aug_tensor_size(in.t), aug_pil_gaussian_blur_single(in.t, radius, &res));
    return augpy_image_result(st, s, res, &in, &out, a[2], func);
}

AUGPY_SIG(pil_gaussian_blur_sig, "pil_gaussian_blur", {"input|tensor"}, {"radii"}, {"out", "None"});

static PyObject *fn_pil_gaussian_blur(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    const char *func = "augpy.pil_gaussian_blur";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[3];
    augpy_image in, out;
    if (!st || augpy_parse_args(func, args, nargs, kwnames, &pil_gaussian_blur_sig, a) < 0 ||
        augpy_image_io(st, a[0], a[2], AUGPY_NCHW, &in, &out, func, "input") < 0)
        return NULL;
    aug_tensor *tmp = NULL, *res = out.t;
    aug_tensor *rad = augpy_per_image_tensor(st, a[1], in.t->shape[0], 1, in.t->device, func, "radii", &tmp);
    aug_status s = AUG_OK;
    if (rad) AUGPY_CALL(s, aug_tensor_size(in.t), aug_pil_gaussian_blur(in.t, rad, &res));
    aug_tensor_free(tmp);
    if (!rad) {
        augpy_image_release(&in);
        augpy_image_release(&out);
        return NULL;
    }
    return augpy_image_result(st, s, res, &in, &out, a[2], func);
}

static PyMethodDef blur_functions[] = {
    {"box_blur_single", (PyCFunction)(void (*)(void))fn_box_blur_single, METH_FASTCALL | METH_KEYWORDS,
     "Box blur of one image (C, H, W), any dtype: the mean over the ksize x ksize window at offsets\n"
     "-ksize//2 .. -ksize//2 + ksize - 1 (an even ksize shifts up/left by half a pixel); edges replicated.\n"
     "out may be input. Returns the new tensor if out is None, else out.\n"
     "input and out may be arrays (numpy, torch, DLPack, buffer), used without a copy; an input laid out\n"
     "(its layout string or its shape) other than CHW is a ValueError."},
    {"gaussian_blur_single", (PyCFunction)(void (*)(void))fn_gaussian_blur_single, METH_FASTCALL | METH_KEYWORDS,
     "Gaussian blur of one image (C, H, W), any dtype: ksize = max(3, int(sigma * 6.6 - 2.3) | 1), weights\n"
     "exp(-i^2 / (2 sigma^2)) normalised to 1, separable, edges replicated, one rounding at the end.\n"
     "sigma <= 0 copies. out may be input. Returns the new tensor if out is None, else out.\n"
     "input and out may be arrays (numpy, torch, DLPack, buffer), used without a copy; an input laid out\n"
     "(its layout string or its shape) other than CHW is a ValueError."},
    {"gaussian_blur", (PyCFunction)(void (*)(void))fn_gaussian_blur, METH_FASTCALL | METH_KEYWORDS,
     "Gaussian blur of a batch (N, C, H, W) with one sigma per image (float32 tensor, numpy array or\n"
     "sequence): ksize = min(max_ksize, max(3, int(sigma * 6.6 - 2.3) | 1)), weights renormalised over the\n"
     "clipped window (an even ksize covers -ksize/2 .. ksize/2 - 1). out may be input. Returns the new tensor\n"
     "if out is None, else out. input and out may be arrays (numpy, torch, DLPack, buffer), used without a\n"
     "copy; an input laid out (its layout string or its shape) other than NCHW (an NHWC batch) is a ValueError."},
    {"pil_gaussian_blur_single", (PyCFunction)(void (*)(void))fn_pil_gaussian_blur_single,
     METH_FASTCALL | METH_KEYWORDS,
     "PIL's ImageFilter.GaussianBlur(radius) on one uint8 image (C, H, W), bit-exact with Pillow: the\n"
     "float32 radius gives Pillow's extended box radius b (r = int(b)), then 3 box passes along W and 3\n"
     "along H, each out[j] = (ww * sum(x[j-r..j+r]) + fw * (x[j-r-1] + x[j+r+1]) + 2**23) >> 24 with\n"
     "ww = int(2**24 / (2b + 1)), fw = (2**24 - (2r + 1) ww) // 2, indices clamped to the line.\n"
     "radius 0 copies; radius must be in [0, 1e6] (ValueError otherwise, NaN too); another dtype is a\n"
     "TypeError. out may be input. Returns the new tensor if out is None, else out."},
    {"pil_gaussian_blur", (PyCFunction)(void (*)(void))fn_pil_gaussian_blur, METH_FASTCALL | METH_KEYWORDS,
     "PIL's ImageFilter.GaussianBlur on a uint8 batch (N, C, H, W) with one radius per image (a number,\n"
     "or a float32 tensor, numpy array or sequence of N): pil_gaussian_blur_single's definition per image.\n"
     "out may be input. Returns the new tensor if out is None, else out."},
    {NULL, NULL, 0, NULL},
};

static augpy_sig *const blur_sigs[] = {&box_blur_single_sig, &gaussian_blur_single_sig, &gaussian_blur_sig,
                                       &pil_gaussian_blur_single_sig, &pil_gaussian_blur_sig, NULL};

int augpy_init_blur(PyObject *module, augpy_state *st) {
    (void)st;
    if (augpy_sign_methods(blur_functions, blur_sigs) < 0) return -1;
    return PyModule_AddFunctions(module, blur_functions);
}
