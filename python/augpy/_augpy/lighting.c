/* _augpy/lighting.c: augpy.lighting (SPEC 13, manual 3.1.4.3), a thin layer over
 * aug_lighting. Parameter tensors may also be given as numpy arrays or sequences
 * of numbers; those are converted to float32 CPU tensors first. */
#include "augpy.h"

/* A float32 parameter: a Tensor as it is (borrowed; the C API checks its dtype),
 * or anything numpy.asarray(obj, float32) accepts, converted into *tmp. */
static aug_tensor *param_arg(augpy_state *st, PyObject *obj, const char *func, const char *name, aug_tensor **tmp)
{
    if (augpy_is_tensor(st, obj))
        return ((AugTensorObject *)obj)->t;
    if (obj == Py_None || PyUnicode_Check(obj) || PyBytes_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: %s must be a tensor or a sequence of numbers, not '%.100s'", func, name,
                     Py_TYPE(obj)->tp_name);
        return NULL;
    }
    PyObject *np = augpy_get_numpy(st);
    if (!np)
        return NULL;
    PyObject *arr = PyObject_CallMethod(np, "asarray", "Os", obj, "float32");
    if (!arr) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: %s must be a tensor or a sequence of numbers, not '%.100s'", func, name,
                     Py_TYPE(obj)->tp_name);
        return NULL;
    }
    *tmp = augpy_tensor_from_buffer(st, arr, func);
    Py_DECREF(arr);
    return *tmp;
}

static int parse_real(PyObject *obj, double *out, const char *func, const char *name)
{
    if (!PyFloat_Check(obj) && !PyLong_Check(obj) && !PyNumber_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: %s must be a number, not '%.100s'", func, name, Py_TYPE(obj)->tp_name);
        return -1;
    }
    *out = PyFloat_AsDouble(obj);
    if (*out == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: %s must be a number, not '%.100s'", func, name, Py_TYPE(obj)->tp_name);
        return -1;
    }
    return 0;
}

static PyObject *fn_lighting(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"imtensor|tensor", "gammagrays", "gammacolors", "contrasts",
                                        "vmin",           "vmax",       "out"};
    enum { IM, GG, GC, CT, VMIN, VMAX, OUT, NSLOTS };
    const char *func = "augpy.lighting";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[NSLOTS];
    double vmin, vmax;
    if (!st || augpy_parse_args(func, args, nargs, kwnames, names, NSLOTS, 6, a) < 0)
        return NULL;
    aug_tensor *im = augpy_tensor_arg(st, a[IM], func, "imtensor");
    aug_tensor *out = NULL;
    if (!im || parse_real(a[VMIN], &vmin, func, "vmin") < 0 || parse_real(a[VMAX], &vmax, func, "vmax") < 0 ||
        augpy_parse_out(st, a[OUT] ? a[OUT] : Py_None, &out, func) < 0)
        return NULL;
    aug_tensor *tmp[3] = {NULL, NULL, NULL};
    aug_tensor *gg = param_arg(st, a[GG], func, "gammagrays", &tmp[0]);
    aug_tensor *gc = gg ? param_arg(st, a[GC], func, "gammacolors", &tmp[1]) : NULL;
    aug_tensor *ct = gc ? param_arg(st, a[CT], func, "contrasts", &tmp[2]) : NULL;
    PyObject *ret = NULL;
    if (ct) {
        aug_tensor *res = out;
        aug_status s;
        AUGPY_CALL(s, aug_tensor_size(im), aug_lighting(im, gg, gc, ct, vmin, vmax, &res));
        if (s != AUG_OK)
            ret = augpy_raise_named(st, s, func);
        else if (out)
            ret = Py_NewRef(a[OUT]);
        else
            ret = augpy_wrap(st, res);
    }
    for (int i = 0; i < 3; i++)
        aug_tensor_free(tmp[i]);
    return ret;
}

static PyMethodDef lighting_functions[] = {
    {"lighting", (PyCFunction)(void (*)(void))fn_lighting, METH_FASTCALL | METH_KEYWORDS,
     "lighting(imtensor, gammagrays, gammacolors, contrasts, vmin, vmax, out=None)\n--\n\n"
     "Contrast and gamma change of a batch of images (N, C, H, W) (or one image (C, H, W)), any dtype.\n"
     "gammagrays: N values; gammacolors: N*C values (or (N, C)); contrasts: N values in [-1, 1]; float32\n"
     "tensors, or numpy arrays / sequences (converted). Per value: v = clip((x - vmin) / (vmax - vmin), 0, 1);\n"
     "v = (1 - |c|) v + |c| f(v) (f_pos for c >= 0, f_neg for c < 0); v = v ** (gammagray * gammacolor);\n"
     "saturate_cast(v (vmax - vmin) + vmin). out may be imtensor (in place). Returns the new tensor if out is\n"
     "None, else out."},
    {NULL, NULL, 0, NULL},
};

int augpy_init_lighting(PyObject *module, augpy_state *st)
{
    (void)st;
    return PyModule_AddFunctions(module, lighting_functions);
}
