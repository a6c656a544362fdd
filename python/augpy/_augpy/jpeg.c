/* _augpy/jpeg.c: augpy.Decoder and augpy.jpeg_info (semantics §13, manual 3.1.4.1)
 * over aug_decoder_* / aug_jpeg_info.
 *
 * data: any C-contiguous buffer-protocol object (bytes, bytearray, memoryview,
 * numpy uint8 array), read as raw bytes without a copy. The GIL is released
 * while decoding so several Python threads decode in parallel (DecodeWarp);
 * each Decoder has a lock, so one Decoder shared by threads is safe (the calls
 * then run one at a time); one Decoder per thread runs them concurrently. The
 * lock survives fork() (fork.c): a child whose parent forked while another
 * thread was inside decode gets a fresh lock and a fresh decoder.
 * Errors: NvJpegError (corrupt data, libjpeg-turbo's message), ValueError /
 * TypeError (buffer rules, argument types). */
#include "augpy.h"
#include "pythread.h"
#include "structmember.h"

typedef struct {
    PyObject_HEAD
    aug_decoder *dec;
    PyThread_type_lock lock;   /* serialises decode calls on this decoder */
    unsigned long lock_gen;    /* fork generation of lock (fork.c) */
    int64_t max_pixels;        /* aug_decoder_set_limit */
    aug_device device;
    Py_ssize_t device_padding, host_padding;
    char gpu_huffman;         /* T_BOOL member */
} DecoderObject;

static int parse_size(PyObject *obj, Py_ssize_t def, Py_ssize_t *out, const char *name) {
    if (obj == NULL || obj == Py_None) {
        *out = def;
        return 0;
    }
    int64_t v;
    if (augpy_parse_int_range(obj, 0, PY_SSIZE_T_MAX, &v, "Decoder", name) < 0) return -1;
    *out = v;
    return 0;
}

static PyObject *decoder_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"device_padding", "host_padding", "gpu_huffman", "max_pixels", NULL};
    PyObject *dpad = NULL, *hpad = NULL, *huff = NULL, *maxpix = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OOO$O:Decoder", kwlist, &dpad, &hpad, &huff, &maxpix))
        return NULL;
    Py_ssize_t dp, hp;
    /* The manual's defaults: 16 MiB device and 8 MiB host padding. */
    if (parse_size(dpad, 16777216, &dp, "device_padding") < 0 || parse_size(hpad, 8388608, &hp, "host_padding") < 0)
        return NULL;
    int gh = huff ? PyObject_IsTrue(huff) : 0;
    if (gh < 0) return NULL;
    int64_t max_pixels = (int64_t)1 << 28;
    if (maxpix != NULL && maxpix != Py_None) {
        if (augpy_parse_int64(maxpix, &max_pixels, "Decoder", "max_pixels") < 0) return NULL;
        if (max_pixels < 1 || max_pixels > ((int64_t)1 << 31)) {
            PyErr_Format(PyExc_ValueError, "Decoder: max_pixels must be in [1, 2**31], got %lld",
                         (long long)max_pixels);
            return NULL;
        }
    }
    augpy_state *st = augpy_state_from_type(type);
    if (st == NULL) return NULL;
    aug_device dev = aug_current_device();
    aug_clear_error();
    DecoderObject *self = (DecoderObject *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    self->device = dev;
    self->device_padding = dp;
    self->host_padding = hp;
    self->gpu_huffman = (char)gh;
    self->max_pixels = max_pixels;
    self->lock = augpy_forksafe_lock_new(&self->lock_gen);
    if (self->lock == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    self->dec = aug_decoder_new(dev, (size_t)dp, (size_t)hp, gh);
    if (self->dec == NULL || aug_decoder_set_limit(self->dec, max_pixels) != AUG_OK) {
        Py_DECREF(self);
        return augpy_raise(st, aug_last_status(), "Decoder");
    }
    return (PyObject *)self;
}

/* The first call after a fork: a lock held at fork time (another thread of the
 * parent was decoding) is replaced, and so is the decoder it guarded, whose
 * state that thread left mid-decode (the old one is leaked: it may be
 * inconsistent). 0 or -1. */
static int decoder_after_fork(augpy_state *st, DecoderObject *d) {
    int r = augpy_forksafe_lock_check(&d->lock, &d->lock_gen);
    if (r <= 0) return r;
    aug_decoder *fresh = aug_decoder_new(d->device, (size_t)d->device_padding, (size_t)d->host_padding,
                                         d->gpu_huffman);
    if (fresh == NULL || aug_decoder_set_limit(fresh, d->max_pixels) != AUG_OK) {
        aug_decoder_free(fresh);
        augpy_raise(st, aug_last_status(), "Decoder.decode");
        return -1;
    }
    d->dec = fresh;
    return 0;
}

static void decoder_dealloc(PyObject *self) {
    DecoderObject *d = (DecoderObject *)self;
    PyTypeObject *tp = Py_TYPE(self);
    aug_decoder_free(d->dec);
    if (d->lock) PyThread_free_lock(d->lock);
    tp->tp_free(self);
    Py_DECREF(tp);
}

/* A read-only contiguous byte view of data. 0 ok, -1 with TypeError naming func. */
static int get_data(PyObject *obj, Py_buffer *view, const char *func) {
    if (PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError,
                     "%s: data must be bytes-like (bytes, bytearray, memoryview, numpy uint8 array), not str", func);
        return -1;
    }
    if (PyObject_GetBuffer(obj, view, PyBUF_SIMPLE) == 0) return 0;
    if (PyErr_ExceptionMatches(PyExc_TypeError) || PyErr_ExceptionMatches(PyExc_BufferError) ||
        PyErr_ExceptionMatches(PyExc_ValueError)) {
        int had_buffer = PyObject_CheckBuffer(obj);
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: data must be %s, not %.100s", func,
                     had_buffer ? "a C-contiguous bytes-like object" : "bytes-like (bytes, bytearray, memoryview, "
                                                                       "numpy uint8 array)",
                     Py_TYPE(obj)->tp_name);
    }
    return -1;
}

static PyObject *decoder_decode(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char func[] = "Decoder.decode";
    static const char *const names[] = {"data", "buffer"};
    PyObject *slots[2] = {NULL, NULL};
    if (augpy_parse_args(func, args, nargs, kwnames, names, 2, 1, slots) < 0) return NULL;
    DecoderObject *d = (DecoderObject *)self;
    augpy_state *st = augpy_state_from_obj(self);
    if (st == NULL) return NULL;
    const aug_tensor *buffer = NULL;
    if (slots[1] != NULL && slots[1] != Py_None) {
        buffer = augpy_tensor_arg(st, slots[1], func, "buffer");
        if (buffer == NULL) return NULL;
    }
    if (decoder_after_fork(st, d) < 0) return NULL;
    Py_buffer view;
    if (get_data(slots[0], &view, func) < 0) return NULL;
    aug_tensor *out = NULL;
    aug_status status;
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(d->lock, WAIT_LOCK);
    status = aug_decoder_decode(d->dec, view.buf, (size_t)view.len, buffer, &out);
    PyThread_release_lock(d->lock);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    if (status != AUG_OK) return augpy_raise(st, status, func);
    return augpy_wrap(st, out);
}

static PyObject *decoder_repr(PyObject *self) {
    DecoderObject *d = (DecoderObject *)self;
    PyObject *dev = augpy_device_str(d->device);
    if (dev == NULL) return NULL;
    PyObject *r = PyUnicode_FromFormat(
        "<Decoder device=%U, device_padding=%zd, host_padding=%zd, gpu_huffman=%s, max_pixels=%lld>", dev,
        d->device_padding, d->host_padding, d->gpu_huffman ? "True" : "False", (long long)d->max_pixels);
    Py_DECREF(dev);
    return r;
}

static PyMethodDef decoder_methods[] = {
    {"decode", (PyCFunction)(void (*)(void))decoder_decode, METH_FASTCALL | METH_KEYWORDS,
     "decode($self, /, data, buffer=None)\n--\n\n"
     "Decode a JPEG image (the full file contents: bytes, bytearray, memoryview or a numpy uint8 array)\n"
     "to an (H, W, 3) uint8 RGB tensor with layout 'HWC' on the decoder's device. Grayscale and CMYK/YCCK\n"
     "files decode to RGB; baseline, progressive and restart-marker files work. The pixels equal Pillow's\n"
     "Image.open(f).convert('RGB'). buffer: None, or a contiguous uint8 tensor of at least H*W*3 elements\n"
     "on the decoder's device; the result then shares its memory. A corrupt or truncated file raises\n"
     "NvJpegError with libjpeg-turbo's message (the buffer's contents are then unspecified). The GIL is\n"
     "released while decoding."},
    {NULL, NULL, 0, NULL}};

static PyMemberDef decoder_members[] = {
    {"device_padding", T_PYSSIZET, offsetof(DecoderObject, device_padding), READONLY, "Device memory padding."},
    {"host_padding", T_PYSSIZET, offsetof(DecoderObject, host_padding), READONLY, "Host memory padding."},
    {"gpu_huffman", T_BOOL, offsetof(DecoderObject, gpu_huffman), READONLY,
     "Huffman decoding on the GPU requested (CUDA backend)."},
    {"max_pixels", T_LONGLONG, offsetof(DecoderObject, max_pixels), READONLY,
     "The largest image (height * width pixels) this decoder decodes; larger ones raise NvJpegError."},
    {NULL, 0, 0, 0, NULL}};

static PyObject *decoder_engine(PyObject *self, void *Py_UNUSED(c)) {
    return PyUnicode_FromString(aug_decoder_engine(((DecoderObject *)self)->dec));
}

static PyGetSetDef decoder_getset[] = {
    {"engine", decoder_engine, NULL,
     "What decodes the pixels: 'libjpeg-turbo' (CPU), 'nvjpeg' (CUDA; files nvJPEG refuses, e.g. CMYK, are\n"
     "decoded on the CPU and uploaded) or 'libjpeg-turbo+upload' (CUDA without nvJPEG installed).",
     NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot decoder_slots[] = {
    {Py_tp_doc, "Decoder(device_padding=16777216, host_padding=8388608, gpu_huffman=False, *, max_pixels=268435456)\n"
                "--\n\n"
                "JPEG decoder on the current device (CPU backend: libjpeg-turbo; CUDA backend: nvJPEG,\n"
                "see engine).\n"
                "The paddings are memory hints: bytes added to scratch buffers when they grow.\n"
                "gpu_huffman is used by the CUDA backend only. Use one Decoder per thread for parallel\n"
                "decoding (a shared one serialises the calls).\n"
                "max_pixels: the largest image (height * width) decoded, in [1, 2**31]; the default 2**28\n"
                "(16384 x 16384) refuses files whose header claims more (NvJpegError naming the size and the\n"
                "limit, raised before any pixel memory is allocated)."},
    {Py_tp_new, decoder_new},
    {Py_tp_dealloc, decoder_dealloc},
    {Py_tp_repr, decoder_repr},
    {Py_tp_methods, decoder_methods},
    {Py_tp_members, decoder_members},
    {Py_tp_getset, decoder_getset},
    {0, NULL}};

static PyType_Spec decoder_spec = {"augpy._augpy.Decoder", sizeof(DecoderObject), 0,
                                   Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE, decoder_slots};

static PyObject *jpeg_info(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char func[] = "jpeg_info";
    static const char *const names[] = {"data"};
    PyObject *slots[1] = {NULL};
    if (augpy_parse_args(func, args, nargs, kwnames, names, 1, 1, slots) < 0) return NULL;
    Py_buffer view;
    if (get_data(slots[0], &view, func) < 0) return NULL;
    int64_t h = 0, w = 0;
    aug_status status = aug_jpeg_info(view.buf, (size_t)view.len, &h, &w);
    PyBuffer_Release(&view);
    if (status != AUG_OK) return augpy_raise(augpy_state_from_module(module), status, func);
    return Py_BuildValue("(LL)", (long long)h, (long long)w);
}

static PyMethodDef jpeg_functions[] = {
    {"jpeg_info", (PyCFunction)(void (*)(void))jpeg_info, METH_FASTCALL | METH_KEYWORDS,
     "jpeg_info(data)\n--\n\n"
     "Image size (height, width) of a JPEG file from its header, without decoding. NvJpegError if the header is corrupt."},
    {NULL, NULL, 0, NULL}};

int augpy_init_jpeg(PyObject *module, augpy_state *st) {
    st->DecoderType = (PyTypeObject *)PyType_FromModuleAndSpec(module, &decoder_spec, NULL);
    if (st->DecoderType == NULL) return -1;
    if (PyModule_AddObjectRef(module, "Decoder", (PyObject *)st->DecoderType) < 0) return -1;
    return PyModule_AddFunctions(module, jpeg_functions);
}
