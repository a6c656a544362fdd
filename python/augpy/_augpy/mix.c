/* _augpy/mix.c: augpy.mix_mirror, a thin layer over aug_mix_mirror (MixUp /
 * CutMix of a float batch with its mirror, in place; timm's Mixup uses it). The
 * weights and boxes are one pair / box for every image or one per image, as
 * numbers, sequences or NumPy arrays (augpy_parse_per_image), kept on the host. */
#include <math.h>
#include "augpy.h"

AUGPY_SIG(mix_mirror_sig, "mix_mirror", {"images"}, {"weights", "None"}, {"boxes", "None"});

/* obj as per values for each of the n images, or per values for all of them
 * (*count 1): a new PyMem array, or NULL with the error of the per-image form. */
static double *parse_entries(PyObject *obj, int64_t n, int64_t per, int64_t *count, const char *func,
                             const char *name) {
    *count = n;
    double *v = augpy_per_image_alloc(obj, n, per, func, name);
    if (v || n == 1 || !PyErr_ExceptionMatches(PyExc_ValueError)) return v;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    v = augpy_per_image_alloc(obj, 1, per, func, name);
    if (v) {
        *count = 1;
        Py_XDECREF(type), Py_XDECREF(value), Py_XDECREF(tb);
        return v;
    }
    PyErr_Clear();
    PyErr_Restore(type, value, tb);
    return NULL;
}

static PyObject *fn_mix_mirror(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    enum { IM, WEIGHTS, BOXES, NSLOTS };
    const char *func = "augpy.mix_mirror";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[NSLOTS];
    if (!st || augpy_parse_args(func, args, nargs, kwnames, &mix_mirror_sig, a) < 0) return NULL;
    for (int k = WEIGHTS; k < NSLOTS; k++)
        if (!a[k]) a[k] = Py_None; /* absent: the default */
    aug_tensor *im = augpy_tensor_arg(st, a[IM], func, "images");
    if (!im) return NULL;
    if (im->ndim != 4) {
        char sa[96];
        return PyErr_Format(PyExc_ValueError, "%s: images must be (N, C, H, W), got shape %s", func,
                            aug_shape_str(im->ndim, im->shape, sa, sizeof sa));
    }
    const int64_t n = im->shape[0];
    int64_t cw = 0, cb = 0;
    double *w = a[WEIGHTS] == Py_None ? NULL : parse_entries(a[WEIGHTS], n, 2, &cw, func, "weights");
    if (a[WEIGHTS] != Py_None && !w) return NULL;
    double *bd = a[BOXES] == Py_None ? NULL : parse_entries(a[BOXES], n, 4, &cb, func, "boxes");
    int64_t *boxes = NULL;
    PyObject *ret = NULL;
    if (a[BOXES] != Py_None && !bd) goto done;
    if (w && bd && cw != cb) { /* one entry for all of one and per image of the other: widen the one */
        int64_t per = cw == 1 ? 2 : 4;
        double *one = cw == 1 ? w : bd, *all = PyMem_Malloc((size_t)(n * per + 1) * sizeof(double));
        if (!all) {
            PyErr_NoMemory();
            goto done;
        }
        for (int64_t k = 0; k < n * per; k++) all[k] = one[k % per];
        PyMem_Free(one);
        if (cw == 1) w = all, cw = n;
        else bd = all, cb = n;
    }
    if (bd) {
        boxes = PyMem_Malloc((size_t)(4 * cb + 1) * sizeof(int64_t));
        if (!boxes) {
            PyErr_NoMemory();
            goto done;
        }
        for (int64_t k = 0; k < 4 * cb; k++) {
            if (!(bd[k] == floor(bd[k]) && fabs(bd[k]) < 0x1p62)) {
                char num[40];
                snprintf(num, sizeof num, "%g", bd[k]);
                PyErr_Format(PyExc_ValueError, "%s: boxes must hold integers, got %s", func, num);
                goto done;
            }
            boxes[k] = (int64_t)bd[k];
        }
    }
    {
        const int64_t count = w ? cw : bd ? cb : 1;
        aug_status s;
        AUGPY_CALL(s, aug_tensor_size(im), aug_mix_mirror(im, w, boxes, count));
        if (s != AUG_OK) augpy_raise(st, s, func);
        else Py_INCREF(a[IM]), ret = a[IM];
    }
done:
    PyMem_Free(w);
    PyMem_Free(bd);
    PyMem_Free(boxes);
    return ret;
}

static PyMethodDef mix_functions[] = {
    {"mix_mirror", (PyCFunction)(void (*)(void))fn_mix_mirror, METH_FASTCALL | METH_KEYWORDS,
     "Mix a float (N, C, H, W) batch (float16, bfloat16, float32, float64; any strides) in place with its\n"
     "mirror, image i with image N - 1 - i (an odd batch's middle image with itself), in one pass: from the\n"
     "original values a (image i) and b (its mirror), image i becomes b inside its box (x1, y1, x2, y2) when\n"
     "that is non-empty (CutMix), else a * w + b * v with its weights (w, v) (MixUp: each product and the sum\n"
     "rounded in the dtype, the weights rounded to float32 for the 16- and 32-bit floats, exactly as\n"
     "mul(a, w) + mul(b, v)); weights exactly (1, 0) leave it as it is. weights: one (w, v) pair for every\n"
     "image or one per image (None: (1, 0)); boxes: one box for every image or one per image, an image without\n"
     "a box given an empty one such as (0, 0, 0, 0) (None: no boxes). Returns images. C: aug_mix_mirror."},
    {NULL, NULL, 0, NULL},
};

int augpy_init_mix(PyObject *module, augpy_state *st) {
    (void)st;
    static augpy_sig *const sigs[] = {&mix_mirror_sig, NULL};
    if (augpy_sign_methods(mix_functions, sigs) < 0) return -1;
    return PyModule_AddFunctions(module, mix_functions);
}
