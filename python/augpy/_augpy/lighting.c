/* _augpy/lighting.c: augpy.lighting (semantics §13; augpy manual 3.1.4.3, quoted in
 * docs/sources/augpy-manual.md), a thin layer over aug_lighting. The parameters are
 * a number or one per image (per channel for gammacolors): float32 tensors, or
 * numbers, numpy arrays or sequences (augpy_per_image_tensor, on the image's device). */
#include "augpy.h"

AUGPY_SIG(lighting_sig, "lighting", {"imtensor|tensor"}, {"gammagrays"}, {"gammacolors"}, {"contrasts"}, {"vmin"},
          {"vmax"}, {"out", "None"});

static PyObject *fn_lighting(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    enum { IM, GG, GC, CT, VMIN, VMAX, OUT, NSLOTS };
    const char *func = "augpy.lighting";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[NSLOTS];
    double vmin, vmax;
    if (!st || augpy_parse_args(func, args, nargs, kwnames, &lighting_sig, a) < 0)
        return NULL;
    augpy_image im, out;
    if (augpy_parse_double(a[VMIN], &vmin, func, "vmin") < 0 || augpy_parse_double(a[VMAX], &vmax, func, "vmax") < 0 ||
        augpy_image_io(st, a[IM], a[OUT], AUGPY_CHW | AUGPY_NCHW, &im, &out, func, "imtensor") < 0)
        return NULL;
    if (im.t->ndim != 3 && im.t->ndim != 4) { /* before the parameters, counted by the image's shape */
        char sa[96];
        PyErr_Format(PyExc_ValueError, "%s: image must be (N, C, H, W) or (C, H, W), got shape %s", func,
                     aug_shape_str(im.t->ndim, im.t->shape, sa, sizeof sa));
        augpy_image_release(&im);
        augpy_image_release(&out);
        return NULL;
    }
    aug_device dev = im.t->device;
    aug_tensor *tmp[3] = {NULL, NULL, NULL};
    int64_t n = im.t->ndim == 4 ? im.t->shape[0] : 1, c = im.t->ndim >= 3 ? im.t->shape[im.t->ndim - 3] : 1;
    aug_tensor *gg = augpy_per_image_tensor(st, a[GG], n, 1, dev, func, "gammagrays", &tmp[0]);
    aug_tensor *gc = gg ? augpy_per_image_tensor(st, a[GC], n, c, dev, func, "gammacolors", &tmp[1]) : NULL;
    aug_tensor *ct = gc ? augpy_per_image_tensor(st, a[CT], n, 1, dev, func, "contrasts", &tmp[2]) : NULL;
    PyObject *ret = NULL;
    if (ct) {
        aug_tensor *res = out.t;
        aug_status s;
        AUGPY_CALL(s, aug_tensor_size(im.t), aug_lighting(im.t, gg, gc, ct, vmin, vmax, &res));
        ret = augpy_image_result(st, s, res, &im, &out, a[OUT], func);
    }
    for (int i = 0; i < 3; i++)
        aug_tensor_free(tmp[i]);
    augpy_image_release(&im); /* (augpy_image_result released them already when it ran) */
    augpy_image_release(&out);
    return ret;
}

static PyMethodDef lighting_functions[] = {
    {"lighting", (PyCFunction)(void (*)(void))fn_lighting, METH_FASTCALL | METH_KEYWORDS,
     "Contrast and gamma change of a batch of images (N, C, H, W) (or one image (C, H, W)), any dtype.\n"
     "gammagrays: N values; gammacolors: N*C values (or (N, C)); contrasts: N values in [-1, 1]; float32\n"
     "tensors, or numpy arrays / sequences (converted). Per value: v = clip((x - vmin) / (vmax - vmin), 0, 1);\n"
     "v = (1 - |c|) v + |c| f(v) (f_pos for c >= 0, f_neg for c < 0); v = v ** (gammagray * gammacolor);\n"
     "saturate_cast(v (vmax - vmin) + vmin). out may be imtensor (in place). Returns the new tensor if out is\n"
     "None, else out. imtensor and out may be arrays (numpy, torch, DLPack, buffer), used without a copy;\n"
     "an image laid out (its layout string or its shape) other than NCHW / CHW is a ValueError."},
    {NULL, NULL, 0, NULL},
};

int augpy_init_lighting(PyObject *module, augpy_state *st) {
    (void)st;
    static augpy_sig *const sigs[] = {&lighting_sig, NULL};
    if (augpy_sign_methods(lighting_functions, sigs) < 0) return -1;
    return PyModule_AddFunctions(module, lighting_functions);
}
