/* _augpy/blur.c: augpy.box_blur_single, gaussian_blur_single and gaussian_blur
 * (semantics §13, manual 3.1.4.4), a thin layer over the aug blur functions. sigmas
 * may also be a numpy array or a sequence of numbers (converted to a float32
 * CPU tensor). */
#include "augpy.h"

static PyObject *finish(augpy_state *st, aug_status s, aug_tensor *res, PyObject *out_obj, const char *func) {
    if (s != AUG_OK)
        return augpy_raise(st, s, func);
    if (out_obj)
        return Py_NewRef(out_obj);
    return augpy_wrap(st, res);
}

static PyObject *fn_box_blur_single(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char *const names[] = {"input|tensor", "ksize", "out"};
    const char *func = "augpy.box_blur_single";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[3];
    int ksize;
    if (!st || augpy_parse_args(func, args, nargs, kwnames, names, 3, 2, a) < 0)
        return NULL;
    aug_tensor *in = augpy_tensor_arg(st, a[0], func, "input");
    aug_tensor *out = NULL;
    if (!in || augpy_parse_int(a[1], &ksize, func, "ksize") < 0 ||
        augpy_parse_out(st, a[2] ? a[2] : Py_None, &out, func) < 0)
        return NULL;
    aug_tensor *res = out;
    aug_status s;
    AUGPY_CALL(s, aug_tensor_size(in), aug_box_blur_single(in, ksize, &res));
    return finish(st, s, res, out ? a[2] : NULL, func);
}

static PyObject *fn_gaussian_blur_single(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char *const names[] = {"input|tensor", "sigma", "out"};
    const char *func = "augpy.gaussian_blur_single";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[3];
    if (!st || augpy_parse_args(func, args, nargs, kwnames, names, 3, 2, a) < 0)
        return NULL;
    aug_tensor *in = augpy_tensor_arg(st, a[0], func, "input");
    aug_tensor *out = NULL;
    if (!in)
        return NULL;
    if (PyBool_Check(a[1]) || !PyNumber_Check(a[1]) || PyComplex_Check(a[1])) {
        PyErr_Format(PyExc_TypeError, "%s: sigma must be a number, not '%.100s'", func, Py_TYPE(a[1])->tp_name);
        return NULL;
    }
    double sigma;
    if (augpy_parse_double(a[1], &sigma, func, "sigma") < 0) /* ValueError for ints beyond the double range */
        return NULL;
    if (augpy_parse_out(st, a[2] ? a[2] : Py_None, &out, func) < 0)
        return NULL;
    aug_tensor *res = out;
    aug_status s;
    AUGPY_CALL(s, aug_tensor_size(in), aug_gaussian_blur_single(in, sigma, &res));
    return finish(st, s, res, out ? a[2] : NULL, func);
}

static PyObject *fn_gaussian_blur(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char *const names[] = {"input|tensor", "sigmas", "max_ksize", "out"};
    const char *func = "augpy.gaussian_blur";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[4];
    int max_ksize;
    if (!st || augpy_parse_args(func, args, nargs, kwnames, names, 4, 3, a) < 0)
        return NULL;
    aug_tensor *in = augpy_tensor_arg(st, a[0], func, "input");
    aug_tensor *out = NULL, *tmp = NULL;
    if (!in || augpy_parse_int(a[2], &max_ksize, func, "max_ksize") < 0 ||
        augpy_parse_out(st, a[3] ? a[3] : Py_None, &out, func) < 0)
        return NULL;
    aug_tensor *sig = augpy_float32_arg(st, a[1], in->device, func, "sigmas", &tmp);
    if (!sig)
        return NULL;
    aug_tensor *res = out;
    aug_status s;
    AUGPY_CALL(s, aug_tensor_size(in), aug_gaussian_blur(in, sig, max_ksize, &res));
    aug_tensor_free(tmp);
    return finish(st, s, res, out ? a[3] : NULL, func);
}

static PyMethodDef blur_functions[] = {
    {"box_blur_single", (PyCFunction)(void (*)(void))fn_box_blur_single, METH_FASTCALL | METH_KEYWORDS,
     "box_blur_single(input, ksize, out=None)\n--\n\n"
     "Box blur of one image (C, H, W), any dtype: the mean over the ksize x ksize window at offsets\n"
     "-ksize//2 .. -ksize//2 + ksize - 1 (an even ksize shifts up/left by half a pixel); edges replicated.\n"
     "out may be input. Returns the new tensor if out is None, else out."},
    {"gaussian_blur_single", (PyCFunction)(void (*)(void))fn_gaussian_blur_single, METH_FASTCALL | METH_KEYWORDS,
     "gaussian_blur_single(input, sigma, out=None)\n--\n\n"
     "Gaussian blur of one image (C, H, W), any dtype: ksize = max(3, int(sigma * 6.6 - 2.3) | 1), weights\n"
     "exp(-i^2 / (2 sigma^2)) normalised to 1, separable, edges replicated, one rounding at the end.\n"
     "sigma <= 0 copies. out may be input. Returns the new tensor if out is None, else out."},
    {"gaussian_blur", (PyCFunction)(void (*)(void))fn_gaussian_blur, METH_FASTCALL | METH_KEYWORDS,
     "gaussian_blur(input, sigmas, max_ksize, out=None)\n--\n\n"
     "Gaussian blur of a batch (N, C, H, W) with one sigma per image (float32 tensor, numpy array or\n"
     "sequence): ksize = min(max_ksize, max(3, int(sigma * 6.6 - 2.3) | 1)), weights renormalised over the\n"
     "clipped window (an even ksize covers -ksize/2 .. ksize/2 - 1). out may be input. Returns the new tensor\n"
     "if out is None, else out."},
    {NULL, NULL, 0, NULL},
};

int augpy_init_blur(PyObject *module, augpy_state *st) {
    (void)st;
    return PyModule_AddFunctions(module, blur_functions);
}
