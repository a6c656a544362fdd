/* _augpy/jpeg_encode.c: augpy.encode_jpeg over aug_jpeg_encode (docs/jpeg.md
 * "Encoding"): one uint8 image (HW, HWC or CHW: layout= or the tensor's layout
 * string or its shape, as augpy.resize reads it; a Tensor or any array) to the
 * bytes of a JPEG file. The GIL is released while encoding. */
#include "augpy.h"

AUGPY_SIG(encode_jpeg_sig, "encode_jpeg", {"image"}, {"quality", "75"}, {"layout", "None"});

static PyObject *fn_encode_jpeg(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    enum { IM, QUALITY, LAYOUT, NSLOTS };
    const char *func = "augpy.encode_jpeg";
    augpy_state *st = augpy_state_from_module(m);
    PyObject *a[NSLOTS], *ret = NULL;
    if (!st || augpy_parse_args(func, args, nargs, kwnames, &encode_jpeg_sig, a) < 0) return NULL;
    int64_t quality = 75;
    if (a[QUALITY] && augpy_parse_int_range(a[QUALITY], 1, 100, &quality, func, "quality") < 0) return NULL;
    augpy_image im = {0};
    const char *layout = NULL;
    if (augpy_image_arg(st, a[IM], 0, &im, func, "image") < 0) return NULL;
    if (augpy_parse_layout(st, a[LAYOUT], NULL, &layout, func, "layout") < 0) goto done;
    if (!layout && !im.t->layout[0] && im.t->ndim == 2) layout = "HW";
    if (!layout && im.t->ndim != 2 && augpy_image_layout(&im, AUGPY_HWC | AUGPY_CHW, &layout, func, "image", NULL) < 0)
        goto done;
    aug_tensor *res = NULL;
    aug_status s;
    AUGPY_CALL(s, aug_tensor_size(im.t), aug_jpeg_encode(im.t, layout, (int)quality, &res));
    if (s != AUG_OK) {
        augpy_raise(st, s, func);
    } else {
        ret = PyBytes_FromStringAndSize((const char *)aug_tensor_ptr(res), (Py_ssize_t)aug_tensor_size(res));
        aug_tensor_free(res);
    }
done:
    augpy_image_release(&im);
    return ret;
}

static PyMethodDef jpeg_encode_functions[] = {
    {"encode_jpeg", (PyCFunction)(void (*)(void))fn_encode_jpeg, METH_FASTCALL | METH_KEYWORDS,
     "Encode one uint8 image as a JPEG file with libjpeg-turbo: bytes.\n\n"
     "image: (H, W), (H, W, C) or (C, H, W) with C = 1 (grayscale JPEG) or 3 (RGB, stored as YCbCr 4:2:0), any\n"
     "strides, on any device (a CUDA tensor is read back to the host); a Tensor or an array. quality: 1..100\n"
     "(libjpeg's scaling of the standard tables). The settings are PIL's defaults (4:2:0, accurate DCT, standard\n"
     "Huffman tables), so decoding the file gives Pillow's pixels for im.save(f, 'JPEG', quality=q).\n"
     "layout: 'HW', 'HWC' or 'CHW' (None: the tensor's layout string, else its shape's). ValueError for quality\n"
     "outside 1..100, other channel counts or sizes; TypeError for a dtype other than uint8."},
    {NULL, NULL, 0, NULL}};

int augpy_init_jpeg_encode(PyObject *module, augpy_state *st) {
    (void)st;
    static augpy_sig *const sigs[] = {&encode_jpeg_sig, NULL};
    if (augpy_sign_methods(jpeg_encode_functions, sigs) < 0) return -1;
    return PyModule_AddFunctions(module, jpeg_encode_functions);
}
