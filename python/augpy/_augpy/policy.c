/* _augpy/policy.c: _image_ops_batch, aug_image_ops_batch (aug/policy.h) for the
 * policy stages (augpy/_policies.py): a batch's per-image op lists in one call.
 *   _image_ops_batch(batch, ops, offsets, background=None, interpolation='linear')
 * batch: a writable (N, C, H, W) tensor or array, changed in place; ops: an (M, 8)
 * float64 array, a row per op (kind as aug_image_op_kind, argument, the warp's six
 * matrix entries); offsets: N + 1 int64 (image i runs rows offsets[i] ... offsets[i + 1]
 * - 1); background and interpolation as warp_affine's. Returns None. */
#include "augpy.h"

AUGPY_SIG(image_ops_batch_sig, "_image_ops_batch", {"batch"}, {"ops"}, {"offsets"}, {"background", "None"},
          {"interpolation", "'linear'"});

/* A float64 (M, 8) (rows = 2) or int64 (N + 1,) (rows = 1) host array as a view. */
static int host_array(augpy_state *st, PyObject *obj, aug_dtype dtype, int ndim, int64_t len, augpy_bufview *v,
                      const char *func, const char *name) {
    if (augpy_bufview_get(st, obj, 0, v, func) < 0) return -1;
    const aug_tensor *t = v->t;
    int ok = t->dtype == dtype && t->ndim == ndim && (ndim == 2 ? t->shape[1] == 8 : t->shape[0] == len);
    if (!ok) {
        PyErr_Format(PyExc_ValueError, "%s: %s must be %s, got %s of %d dimensions (first %lld)", func, name,
                     ndim == 2 ? "a float64 (M, 8) array" : "an int64 array of N + 1 offsets", aug_dtype_name(t->dtype),
                     t->ndim, (long long)(t->ndim ? t->shape[0] : 0));
        augpy_bufview_release(v);
        return -1;
    }
    return 0;
}

static PyObject *fn_image_ops_batch(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    const char *func = "augpy._image_ops_batch";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[5];
    if (!st || augpy_parse_args(func, args, nargs, kwnames, &image_ops_batch_sig, a) < 0) return NULL;
    aug_interp interp = AUG_INTERP_LINEAR;
    if (a[4] && augpy_parse_interp(st, a[4], &interp, func) < 0) return NULL;
    augpy_image im;
    if (augpy_image_arg(st, a[0], 1, &im, func, "batch") < 0) return NULL;
    PyObject *result = NULL;
    augpy_bufview ov = {0}, fv = {0};
    aug_tensor *bgtmp = NULL;
    aug_image_op *ops = NULL;
    int64_t *off = NULL;
    const aug_tensor *bg = NULL;
    if (im.t->ndim != 4) {
        PyErr_Format(PyExc_ValueError, "%s: batch must be (N, C, H, W), got %d dimensions", func, im.t->ndim);
        goto done;
    }
    int64_t n = im.t->shape[0];
    if (host_array(st, a[2], AUG_INT64, 1, n + 1, &fv, func, "offsets") < 0 ||
        host_array(st, a[1], AUG_FLOAT64, 2, 0, &ov, func, "ops") < 0 ||
        /* a number or values: on the host (the warps read it without waiting for the device) */
        augpy_parse_background(st, a[3], im.t->shape[1], &bg, &bgtmp, func) < 0)
        goto done;
    const aug_tensor *ot = ov.t, *ft = fv.t;
    int64_t nops = ot->shape[0];
    if (!(off = PyMem_Calloc((size_t)(n + 1), sizeof *off))) {
        PyErr_NoMemory();
        goto done;
    }
    const char *fb = aug_tensor_ptr(ft);
    for (int64_t i = 0; i <= n; i++) off[i] = *(const int64_t *)(fb + i * ft->strides[0] * 8);
    if (off[n] > nops) {
        PyErr_Format(PyExc_ValueError, "%s: offsets[%lld] = %lld, but ops has %lld rows", func, (long long)n,
                     (long long)off[n], (long long)nops);
        goto done;
    }
    if (!(ops = PyMem_Calloc((size_t)(nops > 0 ? nops : 1), sizeof *ops))) {
        PyErr_NoMemory();
        goto done;
    }
    const char *ob = aug_tensor_ptr(ot);
    for (int64_t j = 0; j < nops; j++) {
        double row[8];
        for (int k = 0; k < 8; k++) row[k] = *(const double *)(ob + (j * ot->strides[0] + k * ot->strides[1]) * 8);
        ops[j].kind = row[0] >= 0 && row[0] <= 1000 && row[0] == (int)row[0] ? (aug_image_op_kind)(int)row[0]
                                                                             : (aug_image_op_kind)9999; /* refused by the core */
        ops[j].arg = row[1];
        for (int k = 0; k < 6; k++) ops[j].matrix[k] = (float)row[2 + k];
    }
    aug_status s;
    AUGPY_CALL(s, aug_tensor_size(im.t), aug_image_ops_batch(im.t, ops, off, bg, interp));
    if (s != AUG_OK) augpy_raise(st, s, func);
    else result = Py_NewRef(Py_None);
done:
    augpy_bufview_release(&ov);
    augpy_bufview_release(&fv);
    aug_tensor_free(bgtmp);
    PyMem_Free(ops);
    PyMem_Free(off);
    augpy_image_release(&im);
    return result;
}

static PyMethodDef policy_functions[] = {
    {"_image_ops_batch", (PyCFunction)(void (*)(void))fn_image_ops_batch, METH_FASTCALL | METH_KEYWORDS,
     "aug_image_ops_batch: image i of the (N, C, H, W) batch through its ops, in place (the policy stages'\n"
     "per-image op lists as one call; on the CPU the images spread over the threads). ops: a float64 (M, 8)\n"
     "array, a row per op: aug_image_op_kind, argument, the warp's 2 x 3 inverse map; offsets: N + 1 int64,\n"
     "image i running rows offsets[i] ... offsets[i + 1] - 1. background and interpolation as warp_affine's."},
    {NULL, NULL, 0, NULL},
};

static augpy_sig *const policy_sigs[] = {&image_ops_batch_sig, NULL};

int augpy_init_policy(PyObject *module, augpy_state *st) {
    (void)st;
    if (augpy_sign_methods(policy_functions, policy_sigs) < 0) return -1;
    return PyModule_AddFunctions(module, policy_functions);
}
