/* _augpy/jpeg.c: augpy.Decoder and augpy.jpeg_info (semantics §13; augpy manual
 * 3.1.4.1, quoted in docs/sources/augpy-manual.md) over aug_decoder_* / aug_jpeg_info.
 *
 * data: any C-contiguous buffer-protocol object (bytes, bytearray, memoryview,
 * numpy uint8 array), read as raw bytes without a copy; a path (str,
 * os.PathLike: the file is read); or a __dlpack__ object holding a contiguous
 * 1-d uint8 CPU tensor (zero copy, imported with from_dlpack). Decoder.decode
 * takes roi / scale (aug_decoder_decode_region); Decoder.info describes the
 * header (aug_jpeg_describe). The GIL is released
 * while decoding so several Python threads decode in parallel (DecodeWarp);
 * each Decoder has a lock, so one Decoder shared by threads is safe (the calls
 * then run one at a time); one Decoder per thread runs them concurrently. The
 * lock survives fork() (fork.c): a child whose parent forked while another
 * thread was inside decode gets a fresh lock and a fresh decoder.
 * Errors: DecodeError (a subclass of NvJpegError) for every decode error, whatever
 * the engine (corrupt data: libjpeg-turbo's, libspng's or nvJPEG's message; data
 * neither JPEG nor PNG, its first bytes in hex),
 * ValueError / TypeError (buffer rules, argument types).
 * Pickling: __reduce__ gives _decoder_restore and the constructor's arguments
 * with the device the decoder was made for; the unpickled decoder is a new one
 * (its own TurboJPEG / nvJPEG handles and buffers). */
#include <limits.h>
#include <string.h>
#include <strings.h>

#include "augpy.h"
#include "pythread.h"
#include "structmember.h"

typedef struct {
    PyObject_HEAD
    aug_decoder *dec;
    PyThread_type_lock lock;   /* serialises decode calls on this decoder */
    unsigned long lock_gen;    /* fork generation of lock (fork.c) */
    int64_t max_pixels;        /* aug_decoder_set_limit */
    int64_t max_scan_pixels;   /* aug_decoder_set_scan_limit */
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

/* A decoder of type for dev from the constructor's arguments (NULL: the defaults). */
static PyObject *decoder_make(PyTypeObject *type, aug_device dev, PyObject *dpad, PyObject *hpad, PyObject *huff,
                              PyObject *maxpix, PyObject *maxscan) {
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
    int64_t max_scan_pixels = (int64_t)1 << 32;
    if (maxscan != NULL && maxscan != Py_None) {
        if (augpy_parse_int64(maxscan, &max_scan_pixels, "Decoder", "max_scan_pixels") < 0) return NULL;
        if (max_scan_pixels < 1) {
            PyErr_Format(PyExc_ValueError, "Decoder: max_scan_pixels must be >= 1, got %lld",
                         (long long)max_scan_pixels);
            return NULL;
        }
    }
    augpy_state *st = augpy_state_from_type(type);
    if (st == NULL) return NULL;
    aug_clear_error();
    DecoderObject *self = (DecoderObject *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    self->device = dev;
    self->device_padding = dp;
    self->host_padding = hp;
    self->gpu_huffman = (char)gh;
    self->max_pixels = max_pixels;
    self->max_scan_pixels = max_scan_pixels;
    self->lock = augpy_forksafe_lock_new(&self->lock_gen);
    if (self->lock == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    self->dec = aug_decoder_new(dev, (size_t)dp, (size_t)hp, gh);
    if (self->dec == NULL || aug_decoder_set_limit(self->dec, max_pixels) != AUG_OK ||
        aug_decoder_set_scan_limit(self->dec, max_scan_pixels) != AUG_OK) {
        Py_DECREF(self);
        return augpy_raise(st, aug_last_status(), "Decoder");
    }
    return (PyObject *)self;
}

static PyObject *decoder_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"device_padding", "host_padding", "gpu_huffman", "max_pixels", "max_scan_pixels", NULL};
    PyObject *dpad = NULL, *hpad = NULL, *huff = NULL, *maxpix = NULL, *maxscan = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OOO$OO:Decoder", kwlist, &dpad, &hpad, &huff, &maxpix, &maxscan))
        return NULL;
    return decoder_make(type, aug_current_device(), dpad, hpad, huff, maxpix, maxscan);
}

/* Pickling: (_decoder_restore, (device, device_padding, host_padding,
 * gpu_huffman, max_pixels, max_scan_pixels)), device as 'cpu' / 'cuda:N'. */
static PyObject *decoder_reduce(PyObject *self, PyObject *Py_UNUSED(unused)) {
    DecoderObject *d = (DecoderObject *)self;
    PyObject *restore = PyObject_GetAttrString(PyType_GetModule(Py_TYPE(self)), "_decoder_restore");
    if (restore == NULL) return NULL;
    PyObject *dev = augpy_device_str(d->device);
    if (dev == NULL) {
        Py_DECREF(restore);
        return NULL;
    }
    return Py_BuildValue("(N(NnnNLL))", restore, dev, d->device_padding, d->host_padding,
                         PyBool_FromLong(d->gpu_huffman), (long long)d->max_pixels, (long long)d->max_scan_pixels);
}

/* The decoder a pickle describes, made for its device whatever the calling
 * thread's current device is (ValueError if this process lacks it). */
static PyObject *decoder_restore(PyObject *module, PyObject *args) {
    PyObject *device, *dpad, *hpad, *huff, *maxpix, *maxscan = NULL; /* a pickle of before max_scan_pixels: 5 */
    if (!PyArg_ParseTuple(args, "OOOOO|O:_decoder_restore", &device, &dpad, &hpad, &huff, &maxpix, &maxscan))
        return NULL;
    augpy_state *st = augpy_state_from_module(module);
    if (st == NULL) return NULL;
    aug_device dev;
    if (augpy_parse_device(device, &dev, "Decoder") < 0) return NULL;
    return decoder_make(st->DecoderType, dev, dpad, hpad, huff, maxpix, maxscan);
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
    if (fresh == NULL || aug_decoder_set_limit(fresh, d->max_pixels) != AUG_OK ||
        aug_decoder_set_scan_limit(fresh, d->max_scan_pixels) != AUG_OK) {
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

/* The bytes of a JPEG argument: a buffer view, or a CPU DLPack tensor kept alive by keep. */
typedef struct {
    Py_buffer view;
    int has_view;
    PyObject *keep; /* the augpy tensor of a DLPack import */
    const void *buf;
    size_t len;
} jpeg_data;

static void release_data(jpeg_data *d) {
    if (d->has_view) PyBuffer_Release(&d->view);
    Py_CLEAR(d->keep);
}

#define DATA_KINDS "bytes-like (bytes, bytearray, memoryview, numpy uint8 array), a CPU uint8 DLPack tensor or a path"

/* A path (str or os.PathLike): the file's contents, as a new bytes object, read by
 * augpy._files.read_regular (the one rule for paths: regular files only, so a FIFO
 * or /dev/zero is an OSError naming func rather than a hang or a read without end). */
static PyObject *read_path(PyObject *path, const char *func) {
    PyObject *files = PyImport_ImportModule("augpy._files");
    if (files == NULL) return NULL;
    PyObject *bytes = PyObject_CallMethod(files, "read_regular", "Os", path, func);
    Py_DECREF(files);
    if (bytes != NULL && !PyBytes_Check(bytes)) {
        PyErr_SetString(PyExc_TypeError, "reading the file did not give bytes");
        Py_CLEAR(bytes);
    }
    return bytes;
}

/* data: bytes-like (C-contiguous buffer protocol, read without a copy), a path
 * (str / os.PathLike: the file is read), or an object with __dlpack__ whose
 * tensor is a contiguous 1-d uint8 tensor on the CPU (zero copy). 0 ok, -1
 * with an exception naming func. */
static int get_data(augpy_state *st, PyObject *module, PyObject *obj, jpeg_data *out, const char *func) {
    memset(out, 0, sizeof *out);
    if (PyUnicode_Check(obj) || (!PyObject_CheckBuffer(obj) && PyObject_HasAttrString(obj, "__fspath__"))) {
        PyObject *bytes = read_path(obj, func);
        if (bytes == NULL) return -1;
        int r = PyObject_GetBuffer(bytes, &out->view, PyBUF_SIMPLE);
        Py_DECREF(bytes); /* the view holds it */
        if (r < 0) return -1;
        out->has_view = 1;
    } else if (PyObject_CheckBuffer(obj)) {
        if (PyObject_GetBuffer(obj, &out->view, PyBUF_SIMPLE) < 0) {
            if (PyErr_ExceptionMatches(PyExc_TypeError) || PyErr_ExceptionMatches(PyExc_BufferError) ||
                PyErr_ExceptionMatches(PyExc_ValueError)) {
                PyErr_Clear();
                PyErr_Format(PyExc_TypeError, "%s: data must be a C-contiguous bytes-like object, not %.100s", func,
                             Py_TYPE(obj)->tp_name);
            }
            return -1;
        }
        out->has_view = 1;
    } else if (PyObject_HasAttrString(obj, "__dlpack__")) {
        PyObject *imp = module ? PyObject_GetAttrString(module, "from_dlpack") : NULL;
        out->keep = imp ? PyObject_CallOneArg(imp, obj) : NULL;
        Py_XDECREF(imp);
        if (out->keep == NULL) return -1;
        const aug_tensor *t = augpy_tensor_arg(st, out->keep, func, "data");
        if (t == NULL) {
            release_data(out);
            return -1;
        }
        if (t->device.type != AUG_DEVICE_CPU || t->dtype != AUG_UINT8 || t->ndim != 1 ||
            !aug_tensor_is_contiguous(t)) {
            PyErr_Format(PyExc_TypeError,
                         "%s: a DLPack data tensor must be a contiguous 1-d uint8 tensor on the CPU, got a %d-d %s "
                         "tensor on %s",
                         func, t->ndim, aug_dtype_name(t->dtype), t->device.type == AUG_DEVICE_CPU ? "cpu" : "cuda");
            release_data(out);
            return -1;
        }
        out->buf = aug_tensor_ptr(t);
        out->len = (size_t)aug_tensor_size(t);
        return 0;
    } else {
        PyErr_Format(PyExc_TypeError, "%s: data must be " DATA_KINDS ", not %.100s", func, Py_TYPE(obj)->tp_name);
        return -1;
    }
    out->buf = out->view.buf;
    out->len = (size_t)out->view.len;
    return 0;
}

/* scale: None (1), a number with as_integer_ratio() (int, float, Fraction) or
 * a (num, denom) pair of ints. 0 or -1. */
static int parse_scale(PyObject *obj, int *num, int *denom, const char *func) {
    *num = 1, *denom = 1;
    if (obj == NULL || obj == Py_None) return 0;
    int64_t n = 0, d = 0;
    if (PyTuple_Check(obj)) {
        if (PyTuple_GET_SIZE(obj) != 2) {
            PyErr_Format(PyExc_TypeError, "%s: scale must be a number or a (num, denom) pair, got a %zd-tuple", func,
                         PyTuple_GET_SIZE(obj));
            return -1;
        }
        if (augpy_parse_int64(PyTuple_GET_ITEM(obj, 0), &n, func, "scale[0]") < 0 ||
            augpy_parse_int64(PyTuple_GET_ITEM(obj, 1), &d, func, "scale[1]") < 0)
            return -1;
    } else {
        if (PyBool_Check(obj) || !PyNumber_Check(obj)) {
            PyErr_Format(PyExc_TypeError, "%s: scale must be a number or a (num, denom) pair, not %.100s", func,
                         Py_TYPE(obj)->tp_name);
            return -1;
        }
        PyObject *ratio = PyObject_CallMethod(obj, "as_integer_ratio", NULL);
        if (ratio == NULL) {
            if (PyErr_ExceptionMatches(PyExc_ValueError) || PyErr_ExceptionMatches(PyExc_OverflowError)) {
                PyErr_Clear(); /* nan / inf */
                PyErr_Format(PyExc_ValueError, "%s: scale %R is not one of libjpeg-turbo's factors M/8, M in 1..16",
                             func, obj);
            }
            return -1;
        }
        int ok = PyTuple_Check(ratio) && PyTuple_GET_SIZE(ratio) == 2;
        int64_t pn = 0, pd = 0;
        if (ok) {
            /* exact ratios beyond int64 (0.1 is 3602879701896397/2**55) are not eighths */
            int o1 = 0, o2 = 0;
            long long a = PyLong_AsLongLongAndOverflow(PyTuple_GET_ITEM(ratio, 0), &o1);
            long long b = PyLong_AsLongLongAndOverflow(PyTuple_GET_ITEM(ratio, 1), &o2);
            if ((a == -1 || b == -1) && PyErr_Occurred()) ok = 0;
            else if (o1 || o2) pn = 0, pd = 1;
            else pn = a, pd = b;
        }
        if (!ok) {
            Py_DECREF(ratio);
            if (!PyErr_Occurred()) PyErr_Format(PyExc_TypeError, "%s: scale %R has no exact ratio", func, obj);
            return -1;
        }
        Py_DECREF(ratio);
        n = pn, d = pd;
    }
    /* Reduce by gcd so e.g. (4, 8) and 0.5 fit an int, then hand to the C check. */
    int64_t a = n < 0 ? -n : n, b = d < 0 ? -d : d;
    while (b) {
        int64_t t = a % b;
        a = b, b = t;
    }
    if (a > 1) n /= a, d /= a;
    if (n < INT_MIN || n > INT_MAX || d < INT_MIN || d > INT_MAX || n <= 0 || d <= 0) {
        PyErr_Format(PyExc_ValueError,
                     "%s: scale %R is not one of libjpeg-turbo's factors M/8, M in 1..16 (1/8, 1/4, 3/8, 1/2, ..., 2)",
                     func, obj);
        return -1;
    }
    *num = (int)n, *denom = (int)d;
    return 0;
}

/* roi: None or a sequence of 4 ints (y, x, h, w). 1 given, 0 None, -1 error. */
static int parse_roi(PyObject *obj, int64_t roi[4], const char *func) {
    if (obj == NULL || obj == Py_None) return 0;
    if (PyUnicode_Check(obj) || PyBytes_Check(obj) || !PySequence_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: roi must be a sequence (y, x, h, w) of 4 ints, not %.100s", func,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    PyObject *seq = PySequence_Tuple(obj);
    if (seq == NULL) return -1;
    if (PyTuple_GET_SIZE(seq) != 4) {
        PyErr_Format(PyExc_ValueError, "%s: roi must have 4 values (y, x, h, w), got %zd", func,
                     PyTuple_GET_SIZE(seq));
        Py_DECREF(seq);
        return -1;
    }
    static const char *const names[4] = {"roi[0] (y)", "roi[1] (x)", "roi[2] (h)", "roi[3] (w)"};
    for (int i = 0; i < 4; i++)
        if (augpy_parse_int_range(PyTuple_GET_ITEM(seq, i), i < 2 ? 0 : 1, INT32_MAX, &roi[i], func, names[i]) < 0) {
            Py_DECREF(seq);
            return -1;
        }
    Py_DECREF(seq);
    return 1;
}

/* mode: None ('rgb') or one of the names below, any case. 0 or -1. */
static int parse_mode(PyObject *obj, aug_decode_mode *mode, const char *func) {
    static const struct {
        const char *name;
        aug_decode_mode mode;
    } names[] = {{"rgb", AUG_DECODE_RGB},         {"gray", AUG_DECODE_GRAY},   {"l", AUG_DECODE_GRAY},
                 {"gray_alpha", AUG_DECODE_GRAY_ALPHA}, {"la", AUG_DECODE_GRAY_ALPHA}, {"rgba", AUG_DECODE_RGBA},
                 {"unchanged", AUG_DECODE_UNCHANGED}};
    *mode = AUG_DECODE_RGB;
    if (obj == NULL || obj == Py_None) return 0;
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: mode must be None or a str, not %.100s", func, Py_TYPE(obj)->tp_name);
        return -1;
    }
    const char *s = PyUnicode_AsUTF8(obj);
    if (s == NULL) return -1;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(s, names[i].name) == 0) {
            *mode = names[i].mode;
            return 0;
        }
    PyErr_Format(PyExc_ValueError,
                 "%s: mode must be None, 'rgb', 'gray' ('L'), 'gray_alpha' ('LA'), 'rgba' or 'unchanged', got %R",
                 func, obj);
    return -1;
}

AUGPY_METHOD_SIG(decode_method_sig, "decode", {"data"}, {"buffer", "None"}, {"roi", "None"}, {"scale", "None"},
                 {"mode", "None"}, {"contiguous", "True"}, {"dtype", "None"}, {"page", "None"});

/* dtype: None (uint8) or uint8 / uint16 as augpy_parse_dtype reads them (augpy.uint16, 'uint16',
 * numpy.uint16); others TypeError naming both. page: None (0) or an int >= 0. 0 or -1. */
static int parse_dtype_page(augpy_state *st, PyObject *dt, PyObject *pg, aug_dtype *dtype, int *page,
                            const char *func) {
    *dtype = AUG_UINT8, *page = 0;
    if (dt != NULL && dt != Py_None) {
        if (augpy_parse_dtype(st, dt, dtype, func) < 0) return -1;
        if (*dtype != AUG_UINT8 && *dtype != AUG_UINT16) {
            PyErr_Format(PyExc_TypeError, "%s: dtype must be uint8 or uint16, got %s", func, aug_dtype_name(*dtype));
            return -1;
        }
    }
    if (pg != NULL && pg != Py_None) {
        int64_t v;
        if (augpy_parse_int_range(pg, 0, INT_MAX, &v, func, "page") < 0) return -1;
        *page = (int)v;
    }
    return 0;
}

static PyObject *decoder_decode(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char func[] = "Decoder.decode";
    PyObject *slots[8] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    if (augpy_parse_args(func, args, nargs, kwnames, &decode_method_sig, slots) < 0) return NULL;
    aug_decode_mode mode;
    if (parse_mode(slots[4], &mode, func) < 0) return NULL;
    int contiguous = 1;
    if (slots[5] != NULL && slots[5] != Py_None) {
        if (!PyBool_Check(slots[5])) {
            PyErr_Format(PyExc_TypeError, "%s: contiguous must be True or False, not %.100s", func,
                         Py_TYPE(slots[5])->tp_name);
            return NULL;
        }
        contiguous = slots[5] == Py_True;
    }
    DecoderObject *d = (DecoderObject *)self;
    augpy_state *st = augpy_state_from_obj(self);
    if (st == NULL) return NULL;
    aug_dtype dtype;
    int page;
    if (parse_dtype_page(st, slots[6], slots[7], &dtype, &page, func) < 0) return NULL;
    const aug_tensor *buffer = NULL;
    if (slots[1] != NULL && slots[1] != Py_None) {
        buffer = augpy_tensor_arg(st, slots[1], func, "buffer");
        if (buffer == NULL) return NULL;
    }
    int64_t roi[4] = {0, 0, 0, 0};
    int has_roi = parse_roi(slots[2], roi, func), num = 1, denom = 1;
    if (has_roi < 0 || parse_scale(slots[3], &num, &denom, func) < 0) return NULL;
    int region = has_roi || num != denom || mode != AUG_DECODE_RGB;
    if (decoder_after_fork(st, d) < 0) return NULL;
    jpeg_data data;
    if (get_data(st, PyType_GetModule(Py_TYPE(self)), slots[0], &data, func) < 0) return NULL;
    aug_tensor *out = NULL;
    aug_status status;
    augpy_interrupt_scope scope; /* Ctrl-C stops a long libjpeg decode (progressive files) */
    augpy_interrupt_begin(&scope);
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(d->lock, WAIT_LOCK);
    if (dtype != AUG_UINT8 || page != 0) {
        aug_decode_options o = {has_roi ? roi : NULL, num, denom, mode, dtype, page};
        status = aug_decoder_decode_ex(d->dec, data.buf, data.len, &o, buffer, &out);
    } else if (region && !contiguous && mode == AUG_DECODE_RGB)
        status = aug_decoder_decode_view(d->dec, data.buf, data.len, has_roi ? roi : NULL, num, denom, buffer, &out);
    else if (region)
        status = aug_decoder_decode_as(d->dec, data.buf, data.len, has_roi ? roi : NULL, num, denom, mode, buffer,
                                       &out);
    else
        status = aug_decoder_decode(d->dec, data.buf, data.len, buffer, &out);
    PyThread_release_lock(d->lock);
    Py_END_ALLOW_THREADS
    augpy_interrupt_end(&scope);
    release_data(&data);
    if (status != AUG_OK) return augpy_raise(st, status, func);
    return augpy_wrap(st, out);
}

/* Decoder._decode_batch(files): aug_decoder_decode_batch over a sequence of data
 * (the kinds decode takes); a list with each file's image, or None where the
 * batched decoder left the file (data that get_data refuses too: decode then
 * raises its error). */
static PyObject *decoder_decode_batch(PyObject *self, PyObject *arg) {
    static const char func[] = "Decoder._decode_batch";
    DecoderObject *d = (DecoderObject *)self;
    augpy_state *st = augpy_state_from_obj(self);
    if (st == NULL) return NULL;
    PyObject *seq = PySequence_Fast(arg, "Decoder._decode_batch: files must be a sequence");
    if (seq == NULL) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > INT_MAX) {
        Py_DECREF(seq);
        return PyErr_Format(PyExc_ValueError, "%s: %zd files, at most %d", func, n, INT_MAX);
    }
    jpeg_data *data = PyMem_Calloc((size_t)n + 1, sizeof *data);
    const void **ptr = PyMem_Calloc((size_t)n + 1, sizeof *ptr);
    size_t *len = PyMem_Calloc((size_t)n + 1, sizeof *len);
    aug_tensor **out = PyMem_Calloc((size_t)n + 1, sizeof *out);
    PyObject *result = NULL;
    Py_ssize_t got = 0;
    if (data == NULL || ptr == NULL || len == NULL || out == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (; got < n; got++) {
        if (get_data(st, PyType_GetModule(Py_TYPE(self)), PySequence_Fast_GET_ITEM(seq, got), &data[got], func) < 0) {
            if (!PyErr_ExceptionMatches(PyExc_Exception)) goto done; /* KeyboardInterrupt and the like */
            PyErr_Clear();                                          /* decode reports it */
            memset(&data[got], 0, sizeof data[got]);
        }
        ptr[got] = data[got].buf, len[got] = data[got].len;
    }
    if (decoder_after_fork(st, d) < 0) goto done;
    aug_status status;
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(d->lock, WAIT_LOCK);
    status = aug_decoder_decode_batch(d->dec, (int)n, ptr, len, out);
    PyThread_release_lock(d->lock);
    Py_END_ALLOW_THREADS
    if (status != AUG_OK) {
        augpy_raise(st, status, func);
        goto done;
    }
    if ((result = PyList_New(n)) == NULL) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = out[i] ? augpy_wrap(st, out[i]) : Py_NewRef(Py_None);
        out[i] = NULL; /* the wrapper owns it (or freed it) */
        if (item == NULL) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, i, item);
    }
done:
    for (Py_ssize_t i = 0; i < got; i++) release_data(&data[i]);
    if (out != NULL)
        for (Py_ssize_t i = 0; i < n; i++) aug_tensor_free(out[i]);
    PyMem_Free(data), PyMem_Free(ptr), PyMem_Free(len), PyMem_Free(out);
    Py_DECREF(seq);
    return result;
}

/* The dicts of Decoder.info. */
static PyObject *desc_dict(const aug_jpeg_desc *s) {
    return Py_BuildValue("{sssLsLsisisssssN}", "format", "jpeg", "height", (long long)s->height, "width",
                         (long long)s->width, "channels", s->channels, "components", s->components, "colour_space",
                         s->colour_space, "sampling", s->sampling, "progressive", PyBool_FromLong(s->progressive));
}

static PyObject *png_dict(const aug_png_desc *s) {
    return Py_BuildValue("{sssLsLsisisssisNsN}", "format", "png", "height", (long long)s->height, "width",
                         (long long)s->width, "channels", 3, "components", s->channels, "colour_space",
                         s->colour_space, "bit_depth", s->bit_depth, "interlaced", PyBool_FromLong(s->interlaced),
                         "transparency", PyBool_FromLong(s->transparency));
}

/* WebP, TIFF and AVIF (aug_image_describe): the keys of PNG's and theirs. */
static PyObject *image_dict(const aug_image_desc *s) {
    PyObject *d = Py_BuildValue("{sssLsLsisisssisNsiss}", "format", aug_image_format_name(s->format), "height",
                                (long long)s->height, "width", (long long)s->width, "channels", 3, "components",
                                s->channels, "colour_space", s->colour_space, "bit_depth", s->bit_depth, "alpha",
                                PyBool_FromLong(s->alpha), "pages", s->pages, "compression", s->compression);
    if (d == NULL) return NULL;
    PyObject *a = s->format != AUG_FORMAT_TIFF ? Py_BuildValue("{sN}", "animated", PyBool_FromLong(s->animated))
                                               : Py_BuildValue("{sNsN}", "tiled", PyBool_FromLong(s->tiled), "planar",
                                                               PyBool_FromLong(s->planar));
    if (a == NULL || PyDict_Update(d, a) < 0) Py_CLEAR(d);
    Py_XDECREF(a);
    return d;
}

AUGPY_METHOD_SIG(info_method_sig, "info", {"data"}, {"page", "None"});

static PyObject *decoder_info(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char func[] = "Decoder.info";
    PyObject *slots[2] = {NULL, NULL};
    if (augpy_parse_args(func, args, nargs, kwnames, &info_method_sig, slots) < 0) return NULL;
    augpy_state *st = augpy_state_from_obj(self);
    if (st == NULL) return NULL;
    aug_dtype unused;
    int page;
    if (parse_dtype_page(st, NULL, slots[1], &unused, &page, func) < 0) return NULL;
    jpeg_data data;
    if (get_data(st, PyType_GetModule(Py_TYPE(self)), slots[0], &data, func) < 0) return NULL;
    aug_image_format fmt = aug_image_format_of(data.buf, data.len);
    if (fmt == AUG_FORMAT_WEBP || fmt == AUG_FORMAT_TIFF || fmt == AUG_FORMAT_AVIF || page != 0) {
        aug_image_desc desc;
        aug_status status = aug_image_describe(data.buf, data.len, page, &desc);
        release_data(&data);
        if (status != AUG_OK) return augpy_raise(st, status, func);
        return image_dict(&desc);
    }
    if (fmt == AUG_FORMAT_PNG) {
        aug_png_desc png;
        aug_status status = aug_png_describe(data.buf, data.len, &png);
        release_data(&data);
        if (status != AUG_OK) return augpy_raise(st, status, func);
        return png_dict(&png);
    }
    aug_jpeg_desc desc;
    aug_status status = aug_jpeg_describe(data.buf, data.len, &desc);
    release_data(&data);
    if (status != AUG_OK) return augpy_raise(st, status, func);
    return desc_dict(&desc);
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
     "Decode a JPEG or PNG image (the full file contents: bytes, bytearray, memoryview or a numpy uint8 array)\n"
     "to an (H, W, 3) uint8 RGB tensor with layout 'HWC' on the decoder's device. Grayscale and CMYK/YCCK\n"
     "files decode to RGB; baseline, progressive and restart-marker files work. The pixels equal Pillow's\n"
     "Image.open(f).convert('RGB'). buffer: None, or a contiguous uint8 tensor of at least H*W*3 elements\n"
     "on the decoder's device; the result then shares its memory. A corrupt or truncated file raises\n"
     "DecodeError (a subclass of NvJpegError; whatever the engine) with the decoder's message:\n"
     "libjpeg-turbo's or libspng's, or on the 'nvjpeg' engine for the JPEG files nvJPEG fails on\n"
     "'nvJPEG failed in <call>: NVJPEG_STATUS_X' (the buffer's contents are then unspecified); data\n"
     "that is neither JPEG nor PNG raises DecodeError 'not a JPEG, PNG, WebP, TIFF or AVIF file (starts with 3c 68 74\n"
     "6d 6c 3e 0a 3c)' (its first bytes in hex). The GIL is released while decoding.\n"
     "data may also be a path (str or os.PathLike: the file is read) or a CPU DLPack object holding a\n"
     "contiguous 1-d uint8 tensor (e.g. torchvision.io.read_file's result), read without a copy.\n"
     "scale: None, or one of libjpeg-turbo's DCT scaling factors M/8 for M in 1..16 (1/8, 1/4, 3/8,\n"
     "1/2, ..., 2) as a number (0.5, Fraction(1, 4)) or a (num, denom) pair; the scaled image is\n"
     "ceil(H*M/8) x ceil(W*M/8). roi: None, or (y, x, h, w) in pixels of the SCALED image; the result\n"
     "is then (h, w, 3), exactly those pixels, decoded without decoding the rest where libjpeg can\n"
     "(rows below the region are not read). max_pixels bounds the output size. Pixels equal\n"
     "libjpeg-turbo's djpeg -scale M/8 -crop WxH+X+Y; a CUDA decoder decodes these on the CPU and\n"
     "uploads.\n"
     "PNG files (told apart by their signature) decode with libspng on the CPU (a CUDA decoder uploads):\n"
     "palette, gray, alpha, 1..16-bit and interlaced files; 16-bit samples round to 8 bits\n"
     "(v * 255 + 32767) // 65535; roi cuts the decoded image; scale must be 1.\n"
     "mode: None or 'rgb' (3 channels), 'gray' / 'L' (1: Pillow's convert('L') luma), 'gray_alpha' /\n"
     "'LA' (2), 'rgba' (4; alpha 255 where the file has none) or 'unchanged' (the file's own channels:\n"
     "JPEG 1 or 3, PNG 1-4 with a tRNS chunk counted as alpha).\n"
     "dtype: None / 'uint8' (16-bit samples round to 8 bits) or 'uint16' / augpy.uint16: 16-bit PNG and\n"
     "TIFF samples are kept, 8-bit ones scaled by 257, 10/12-bit AVIF ones to round(v * 65535 / (2^d - 1))\n"
     "(buffer must then be uint16).\n"
     "WebP (libwebp: lossy, lossless, alpha; an animation gives its first frame), TIFF (libtiff: strips\n"
     "or tiles, chunky or planar, 8/16-bit, 1-4 samples, the usual compressions) and AVIF (libavif: 8/10/12-bit,\n"
     "alpha, gray; a sequence gives its first frame) decode on the CPU (a CUDA decoder uploads); page: the\n"
     "TIFF page (directory) to decode, 0 the first (docs/formats.md).\n"
     "contiguous=False lets a JPEG region or scaled decode on a CPU decoder (mode rgb) return a strided\n"
     "view instead: libjpeg writes the band it decodes straight into the result's memory (rows\n"
     "(w + 68) * 3 bytes apart; with buffer, when it holds h * (w + 68) * 3 elements), the same pixels\n"
     "without a copy of each row. Every op reads such views (DecodeWarp's stages use it)."},
    {"info", (PyCFunction)(void (*)(void))decoder_info, METH_FASTCALL | METH_KEYWORDS,
     "Describe a JPEG or PNG from its header alone (no pixels decoded). PNG: a dict with 'format' ('png'),\n"
     "'height', 'width', 'channels' (3), 'components' (of mode='unchanged'), 'colour_space' ('Grayscale',\n"
     "'RGB', 'Palette', 'GrayscaleAlpha', 'RGBA'), 'bit_depth', 'interlaced', 'transparency' (a tRNS chunk).\n"
     "JPEG: a dict with 'format' ('jpeg'), 'height', 'width' (of the\n"
     "full image), 'channels' (of decode's output: 3), 'components' (in the file: 1, 3 or 4),\n"
     "'colour_space' ('Grayscale', 'YCbCr', 'RGB', 'CMYK' or 'YCCK'), 'sampling' ('4:4:4', '4:2:2',\n"
     "'4:2:0', '4:4:0', '4:1:1', '4:1:0', '4:0:0' for grayscale, else the factors 'HxV,HxV,HxV') and\n"
     "'progressive' (bool). data as for decode. DecodeError if the header cannot be read.\n"
     "WebP, TIFF and AVIF: 'format' ('webp' / 'tiff' / 'avif'), 'height', 'width', 'channels' (3),\n"
     "'components', 'colour_space' (AVIF: 'YUV444', 'YUV422', 'YUV420', 'YUV400'), 'bit_depth' (AVIF 8, 10\n"
     "or 12), 'alpha', 'pages', 'compression' (AVIF 'av1'), and 'animated' (WebP, AVIF) or 'tiled' and\n"
     "'planar' (TIFF). page: the TIFF page described (0 the first)."},
    {"_decode_batch", decoder_decode_batch, METH_O,
     "_decode_batch($self, files, /)\n--\n\n"
     "Decode the files (data as for decode) at once where this decoder has a batched path (a CUDA\n"
     "decoder whose jpeg_backend is 'hardware ...': the whole baseline JPEGs the JPEG engines take, in\n"
     "ONE batched nvJPEG call, each image the bytes of decode(file)); returns a list, None for every other\n"
     "file (and for all on other decoders): decode those with decode, which raises each file's own error."},
    {"__reduce__", decoder_reduce, METH_NOARGS,
     "__reduce__($self, /)\n--\n\n"
     "Pickle as the constructor's arguments and the decoder's device: unpickling (also in a new process,\n"
     "e.g. a multiprocessing spawn worker) makes a fresh decoder with its own buffers and handles."},
    {NULL, NULL, 0, NULL}};

static PyMemberDef decoder_members[] = {
    {"device_padding", T_PYSSIZET, offsetof(DecoderObject, device_padding), READONLY, "Device memory padding."},
    {"host_padding", T_PYSSIZET, offsetof(DecoderObject, host_padding), READONLY, "Host memory padding."},
    {"gpu_huffman", T_BOOL, offsetof(DecoderObject, gpu_huffman), READONLY,
     "Huffman decoding on the GPU requested (CUDA backend)."},
    {"max_pixels", T_LONGLONG, offsetof(DecoderObject, max_pixels), READONLY,
     "The largest image (height * width pixels) this decoder decodes; larger ones raise DecodeError."},
    {"max_scan_pixels", T_LONGLONG, offsetof(DecoderObject, max_scan_pixels), READONLY,
     "The decode cost bound of progressive JPEGs: scans x pixels (DecodeError above it)."},
    {NULL, 0, 0, 0, NULL}};

static PyObject *decoder_engine(PyObject *self, void *Py_UNUSED(c)) {
    return PyUnicode_FromString(aug_decoder_engine(((DecoderObject *)self)->dec));
}

static PyObject *decoder_jpeg_backend(PyObject *self, void *Py_UNUSED(c)) {
    return PyUnicode_FromString(aug_decoder_jpeg_backend(((DecoderObject *)self)->dec));
}

static PyGetSetDef decoder_getset[] = {
    {"jpeg_backend", decoder_jpeg_backend, NULL,
     "Which backend decodes: engine's answer, except on the 'nvjpeg' engine: 'hardware (batched; other files:\n"
     "hybrid)' where the GPU has JPEG decode engines (A100/H100/H200), else 'hybrid' (or 'hybrid+gpu_huffman')\n"
     "followed by why not hardware, e.g. '(no hardware decoder: nvjpegCreateExV2 failed with\n"
     "NVJPEG_STATUS_ARCH_MISMATCH)'.",
     NULL},
    {"engine", decoder_engine, NULL,
     "What decodes the pixels: 'libjpeg-turbo' (CPU), 'nvjpeg' (CUDA; files nvJPEG refuses, e.g. CMYK, are\n"
     "decoded on the CPU and uploaded) or 'libjpeg-turbo+upload' (CUDA without nvJPEG installed).",
     NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot decoder_slots[] = {
    {Py_tp_doc, "Decoder(device_padding=16777216, host_padding=8388608, gpu_huffman=False, *, max_pixels=268435456, "
                "max_scan_pixels=4294967296)\n"
                "--\n\n"
                "JPEG and PNG decoder on the current device (CPU backend: libjpeg-turbo; CUDA backend: nvJPEG,\n"
                "see engine; PNG: libspng on the CPU, uploaded on CUDA).\n"
                "The paddings are memory hints: bytes added to scratch buffers when they grow.\n"
                "gpu_huffman is used by the CUDA backend only. Use one Decoder per thread for parallel\n"
                "decoding (a shared one serialises the calls).\n"
                "max_pixels: the largest image (height * width) decoded, in [1, 2**31]; the default 2**28\n"
                "(16384 x 16384) refuses files whose header claims more (DecodeError naming the size and the\n"
                "limit, raised before any pixel memory is allocated).\n"
                "max_scan_pixels: a progressive JPEG keeps the whole image's coefficients and reads its data\n"
                "once per scan, so its whole image is held to max_pixels even for a roi or scale, and its\n"
                "scans x pixels to max_scan_pixels (default 2**32: a usual 10-scan 16384 x 16384 file passes).\n"
                "A long progressive decode on the CPU stops on Ctrl-C.\n"
                "Decode errors are DecodeError, a subclass of NvJpegError, whatever the engine (see decode).\n"
                "A Decoder pickles (its arguments and device; unpickling makes a fresh one), so it can be\n"
                "handed to multiprocessing workers, spawned ones included."},
    {Py_tp_new, decoder_new},
    {Py_tp_dealloc, decoder_dealloc},
    {Py_tp_repr, decoder_repr},
    {Py_tp_methods, decoder_methods},
    {Py_tp_members, decoder_members},
    {Py_tp_getset, decoder_getset},
    {0, NULL}};

static PyType_Spec decoder_spec = {"augpy._augpy.Decoder", sizeof(DecoderObject), 0,
                                   Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE, decoder_slots};

AUGPY_SIG(jpeg_info_sig, "jpeg_info", {"data"});

static PyObject *jpeg_info(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char func[] = "jpeg_info";
    PyObject *slots[1] = {NULL};
    if (augpy_parse_args(func, args, nargs, kwnames, &jpeg_info_sig, slots) < 0) return NULL;
    augpy_state *st = augpy_state_from_module(module);
    if (st == NULL) return NULL;
    jpeg_data data;
    if (get_data(st, module, slots[0], &data, func) < 0) return NULL;
    int64_t h = 0, w = 0;
    aug_status status = aug_jpeg_info(data.buf, data.len, &h, &w);
    release_data(&data);
    if (status != AUG_OK) return augpy_raise(st, status, func);
    return Py_BuildValue("(LL)", (long long)h, (long long)w);
}

static PyObject *supported_formats(PyObject *module, PyObject *Py_UNUSED(unused)) {
    (void)module;
    PyObject *t = PyTuple_New(AUG_FORMAT_COUNT - 1);
    for (int i = 1; t != NULL && i < AUG_FORMAT_COUNT; i++) {
        PyObject *n = PyUnicode_FromString(aug_image_format_name((aug_image_format)i));
        if (n == NULL) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, i - 1, n);
    }
    return t;
}

static PyMethodDef jpeg_functions[] = {
    {"supported_formats", supported_formats, METH_NOARGS,
     "supported_formats()\n--\n\n"
     "The file formats Decoder reads, told apart by their first bytes: ('jpeg', 'png', 'webp', 'tiff',\n"
     "'avif').\n\n"
     "A file's extension plays no part: a TIFF named x.jpg decodes as TIFF. Decoder.info(data)['format']\n"
     "names the format of one file (docs/formats.md)."},
    {"jpeg_info", (PyCFunction)(void (*)(void))jpeg_info, METH_FASTCALL | METH_KEYWORDS,
     "Image size (height, width) of a JPEG file from its header, without decoding.\n\n"
     "data is bytes-like (the whole file or at least its header). Raises augpy.DecodeError (a subclass of\n"
     "NvJpegError) when the data is not a JPEG or its header is corrupt; Decoder.info also reads PNG files."},
    {"_decoder_restore", decoder_restore, METH_VARARGS,
     "_decoder_restore(device, device_padding, host_padding, gpu_huffman, max_pixels, max_scan_pixels=None, /)\n"
     "--\n\n"
     "Unpickle a Decoder (Decoder.__reduce__): a new one for device ('cpu' or 'cuda:N')."},
    {NULL, NULL, 0, NULL}};

int augpy_init_jpeg(PyObject *module, augpy_state *st) {
    static augpy_sig *const decoder_sigs[] = {&decode_method_sig, &info_method_sig, NULL};
    static augpy_sig *const sigs[] = {&jpeg_info_sig, NULL};
    if (augpy_sign_methods(decoder_methods, decoder_sigs) < 0 || augpy_sign_methods(jpeg_functions, sigs) < 0)
        return -1;
    st->DecoderType = (PyTypeObject *)PyType_FromModuleAndSpec(module, &decoder_spec, NULL);
    if (st->DecoderType == NULL) return -1;
    if (PyModule_AddObjectRef(module, "Decoder", (PyObject *)st->DecoderType) < 0) return -1;
    return PyModule_AddFunctions(module, jpeg_functions);
}
