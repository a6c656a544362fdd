/* _augpy/random.c: augpy.RandomNumberGenerator (semantics §11, manual 3.1.3) over the
 * aug_rng C API: uniform / gaussian fills of any tensor (or writable buffer such
 * as a numpy array), get_state / set_state, pickling.
 *
 * Fills of more than AUGPY_GIL_THRESHOLD elements run with the GIL released;
 * a per-generator lock keeps two threads from using one generator at once
 * (the second waits), so the call counter stays consistent. The lock survives
 * fork() (fork.c): a child forked while another thread was inside a fill gets
 * a fresh lock (the generator's state is the one the parent had at fork time).
 *
 * Also the per-sample streams of aug/random.h: stream_seed, sample_id and the
 * parser of per-image generator states (seed, calls) that random_resized_crop
 * and color_jitter_params take in place of a generator. */
#include "augpy.h"
#include <pythread.h>

typedef struct {
    PyObject_HEAD
    aug_rng *rng;
    PyThread_type_lock lock;
    unsigned long lock_gen; /* fork generation of lock (fork.c) */
    int device_id;
} RngObject;

static const char TYPE_NAME[] = "RandomNumberGenerator";

static int parse_seed(PyObject *obj, uint64_t *out, const char *func) {
    if (PyBool_Check(obj) || !PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: seed must be an int or None, not '%.100s'", func, Py_TYPE(obj)->tp_name);
        return -1;
    }
    unsigned long long v = PyLong_AsUnsignedLongLong(obj);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyObject *desc = augpy_int_desc(obj);
        if (desc) PyErr_Format(PyExc_ValueError, "%s: seed must be in [0, 2**64), got %U", func, desc);
        Py_XDECREF(desc);
        return -1;
    }
    *out = (uint64_t)v;
    return 0;
}

/* A generator of type on dev (seed NULL: the OS entropy source). */
static PyObject *rng_make(augpy_state *st, PyTypeObject *type, aug_device dev, const uint64_t *seed) {
    RngObject *self = (RngObject *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    self->device_id = dev.id;
    self->lock = augpy_forksafe_lock_new(&self->lock_gen);
    if (self->lock == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    self->rng = aug_rng_new(dev, seed);
    if (self->rng == NULL) {
        Py_DECREF(self);
        return augpy_raise(st, aug_last_status(), TYPE_NAME);
    }
    return (PyObject *)self;
}

static PyObject *rng_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"device_id", "seed", NULL};
    PyObject *dev_obj = Py_None, *seed_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OO:RandomNumberGenerator", kwlist, &dev_obj, &seed_obj))
        return NULL;
    augpy_state *st = augpy_state_from_type(type);
    if (st == NULL) return NULL;
    aug_device dev;
    if (augpy_parse_device_id(dev_obj, 1, &dev, TYPE_NAME) < 0) return NULL;
    uint64_t seed = 0;
    if (seed_obj != Py_None && parse_seed(seed_obj, &seed, TYPE_NAME) < 0) return NULL;
    return rng_make(st, type, dev, seed_obj == Py_None ? NULL : &seed);
}

static void rng_dealloc(PyObject *obj) {
    RngObject *self = (RngObject *)obj;
    PyTypeObject *tp = Py_TYPE(obj);
    aug_rng_free(self->rng);
    if (self->lock) PyThread_free_lock(self->lock);
    tp->tp_free(obj);
    Py_DECREF(tp);
}

static int lock_rng(RngObject *self) {
    if (augpy_forksafe_lock_check(&self->lock, &self->lock_gen) < 0) return -1;
    if (!PyThread_acquire_lock(self->lock, NOWAIT_LOCK)) {
        Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(self->lock, WAIT_LOCK);
        Py_END_ALLOW_THREADS
    }
    return 0;
}

AUGPY_METHOD_SIG(uniform_method_sig, "uniform", {"target"}, {"vmin"}, {"vmax"}, {"blocks_per_sm", "8"},
                 {"threads", "0"});
AUGPY_METHOD_SIG(gaussian_method_sig, "gaussian", {"target"}, {"mean", "0.0"}, {"std", "1.0"},
                 {"blocks_per_sm", "8"}, {"threads", "0"});

/* A uniform fill of a host target for rng on another device: uniform values are the same bit for
 * bit on every backend (aug/random.h), so a CPU generator at rng's state draws them in place, and
 * rng takes its state after (one call on). The device draw and copy back would wait for the
 * stream: a host wait per draw in every stage that draws its parameters into NumPy arrays. */
static aug_status host_uniform(aug_rng *rng, aug_tensor *t, double vmin, double vmax) {
    aug_rng_state s;
    aug_status st = aug_rng_get_state(rng, &s);
    if (st != AUG_OK) return st;
    aug_rng *host = aug_rng_new(aug_cpu_device(), &s.seed);
    if (host == NULL) return aug_last_status();
    if ((st = aug_rng_set_state(host, &s)) == AUG_OK && (st = aug_rng_uniform(host, t, vmin, vmax)) == AUG_OK &&
        (st = aug_rng_get_state(host, &s)) == AUG_OK)
        st = aug_rng_set_state(rng, &s);
    aug_rng_free(host);
    return st;
}

/* uniform / gaussian: (target, p0, p1, blocks_per_sm, threads). */
static PyObject *fill(PyObject *obj, int gaussian, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    const char *func = gaussian ? "RandomNumberGenerator.gaussian" : "RandomNumberGenerator.uniform";
    RngObject *self = (RngObject *)obj;
    augpy_state *st = augpy_state_from_obj(obj);
    if (st == NULL) return NULL;
    PyObject *a[5];
    augpy_launch launch;
    if (augpy_parse_args(func, args, nargs, kwnames, gaussian ? &gaussian_method_sig : &uniform_method_sig, a) < 0 ||
        augpy_parse_launch(func, a[3], a[4], 0, &launch) < 0)
        return NULL;
    double p0 = 0.0, p1 = 1.0;
    if (a[1] && augpy_parse_double(a[1], &p0, func, gaussian ? "mean" : "vmin") < 0) return NULL;
    if (a[2] && augpy_parse_double(a[2], &p1, func, gaussian ? "std" : "vmax") < 0) return NULL;
    aug_tensor *t = NULL;
    augpy_bufview view = {0};
    int have_view = 0;
    if (augpy_is_tensor(st, a[0])) {
        t = augpy_tensor_arg(st, a[0], func, "target");
    } else if (PyObject_CheckBuffer(a[0])) {
        if (augpy_bufview_get(st, a[0], 1, &view, func) < 0) return NULL;
        t = view.t;
        have_view = 1;
    } else {
        PyErr_Format(PyExc_TypeError, "%s: target must be a Tensor or a writable array, not '%.100s'", func,
                     Py_TYPE(a[0])->tp_name);
        return NULL;
    }
    if (t == NULL) return NULL;
    /* an array target of a CUDA generator: uniform values drawn on the host (host_uniform);
     * gaussian ones (equal across backends only within ulps) drawn on the device, then copied */
    aug_tensor *dev_tmp = NULL;
    aug_device gdev = aug_rng_device(self->rng);
    const int on_host = have_view && gdev.type != AUG_DEVICE_CPU && !gaussian;
    if (have_view && gdev.type != AUG_DEVICE_CPU && gaussian) {
        dev_tmp = aug_tensor_empty(t->ndim, t->shape, t->dtype, gdev);
        if (dev_tmp == NULL) {
            augpy_bufview_release(&view);
            return augpy_raise(st, aug_last_status(), func);
        }
    }
    aug_tensor *fill_t = dev_tmp ? dev_tmp : t;
    aug_status status;
    if (lock_rng(self) < 0) {
        aug_tensor_free(dev_tmp);
        if (have_view) augpy_bufview_release(&view);
        return NULL;
    }
    if (gaussian)
        AUGPY_CALL_LAUNCH(status, launch, aug_tensor_size(t), aug_rng_gaussian(self->rng, fill_t, p0, p1));
    else if (on_host)
        AUGPY_CALL_LAUNCH(status, launch, aug_tensor_size(t), host_uniform(self->rng, t, p0, p1));
    else
        AUGPY_CALL_LAUNCH(status, launch, aug_tensor_size(t), aug_rng_uniform(self->rng, fill_t, p0, p1));
    PyThread_release_lock(self->lock);
    if (status == AUG_OK && dev_tmp) AUGPY_CALL(status, aug_tensor_size(t), aug_copy(dev_tmp, t));
    aug_tensor_free(dev_tmp);
    if (have_view) augpy_bufview_release(&view);
    if (status != AUG_OK) return augpy_raise(st, status, func);
    Py_RETURN_NONE;
}

static PyObject *rng_uniform(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    return fill(self, 0, args, nargs, kwnames);
}

static PyObject *rng_gaussian(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    return fill(self, 1, args, nargs, kwnames);
}

/* gaussian_noise(x, std=1.0, mean=0.0, out=None): aug_rng_gaussian_noise; std a
 * number, or per image (a Tensor, array or sequence: float32 on x's device). */
AUGPY_METHOD_SIG(gaussian_noise_method_sig, "gaussian_noise", {"x"}, {"std", "1.0"}, {"mean", "0.0"}, {"out", "None"},
                 {"blocks_per_sm", "8"}, {"threads", "0"});

static PyObject *rng_gaussian_noise(PyObject *obj, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    const char *func = "RandomNumberGenerator.gaussian_noise";
    RngObject *self = (RngObject *)obj;
    augpy_state *st = augpy_state_from_obj(obj);
    if (st == NULL) return NULL;
    PyObject *a[6];
    augpy_launch launch;
    if (augpy_parse_args(func, args, nargs, kwnames, &gaussian_noise_method_sig, a) < 0 ||
        augpy_parse_launch(func, a[4], a[5], 0, &launch) < 0)
        return NULL;
    double mean = 0.0, std = 1.0;
    if (a[2] && augpy_parse_double(a[2], &mean, func, "mean") < 0) return NULL;
    aug_tensor *x = augpy_tensor_arg(st, a[0], func, "x");
    aug_tensor *out = NULL, *stds = NULL, *tmp = NULL;
    if (!x || augpy_parse_out(st, a[3] ? a[3] : Py_None, &out, func) < 0) return NULL;
    if (a[1] && a[1] != Py_None) {
        if (PyNumber_Check(a[1]) && !PySequence_Check(a[1]) && !augpy_is_tensor(st, a[1])) {
            if (augpy_parse_double(a[1], &std, func, "std") < 0) return NULL;
        } else if (!(stds = augpy_float32_arg(st, a[1], x->device, func, "std", &tmp))) {
            return NULL;
        }
    }
    aug_tensor *res = out;
    aug_status status;
    if (lock_rng(self) < 0) {
        aug_tensor_free(tmp);
        return NULL;
    }
    AUGPY_CALL_LAUNCH(status, launch, aug_tensor_size(x), aug_rng_gaussian_noise(self->rng, x, mean, std, stds, &res));
    PyThread_release_lock(self->lock);
    aug_tensor_free(tmp);
    if (status != AUG_OK) return augpy_raise(st, status, func);
    if (out) return Py_NewRef(a[3]);
    return augpy_wrap(st, res);
}

static PyObject *rng_get_state(PyObject *obj, PyObject *Py_UNUSED(unused)) {
    RngObject *self = (RngObject *)obj;
    aug_rng_state s;
    if (lock_rng(self) < 0) return NULL;
    aug_rng_get_state(self->rng, &s);
    PyThread_release_lock(self->lock);
    return Py_BuildValue("(KK)", (unsigned long long)s.seed, (unsigned long long)s.calls);
}

static PyObject *rng_set_state(PyObject *obj, PyObject *state) {
    static const char func[] = "RandomNumberGenerator.set_state";
    RngObject *self = (RngObject *)obj;
    if (!PyTuple_Check(state) && !PyList_Check(state)) {
        PyErr_Format(PyExc_TypeError, "%s: state must be a (seed, calls) tuple from get_state(), not '%.100s'",
                     func, Py_TYPE(state)->tp_name);
        return NULL;
    }
    if (PySequence_Size(state) != 2) {
        PyErr_Format(PyExc_ValueError, "%s: state must be a (seed, calls) pair, got %R", func, state);
        return NULL;
    }
    aug_rng_state s;
    PyObject *seed = PySequence_GetItem(state, 0);
    PyObject *calls = seed ? PySequence_GetItem(state, 1) : NULL; /* not with an exception set */
    int r = seed && calls ? 0 : -1;
    if (r == 0) r = parse_seed(seed, &s.seed, func);
    if (r == 0 && parse_seed(calls, &s.calls, func) < 0) {
        if (PyErr_ExceptionMatches(PyExc_ValueError)) {
            PyErr_Clear();
            PyObject *desc = augpy_int_desc(calls);
            if (desc) PyErr_Format(PyExc_ValueError, "%s: calls must be in [0, 2**64), got %U", func, desc);
            Py_XDECREF(desc);
        }
        r = -1;
    }
    Py_XDECREF(seed);
    Py_XDECREF(calls);
    if (r < 0 || lock_rng(self) < 0) return NULL;
    aug_rng_set_state(self->rng, &s);
    PyThread_release_lock(self->lock);
    Py_RETURN_NONE;
}

/* Pickling: RandomNumberGenerator(device_id, seed) then set_state(state). */
static PyObject *rng_reduce(PyObject *obj, PyObject *Py_UNUSED(unused)) {
    RngObject *self = (RngObject *)obj;
    PyObject *state = rng_get_state(obj, NULL);
    if (state == NULL) return NULL;
    PyObject *r = Py_BuildValue("(O(iO)N)", (PyObject *)Py_TYPE(obj), self->device_id, PyTuple_GET_ITEM(state, 0),
                                state);
    return r;
}

static PyObject *rng_setstate(PyObject *obj, PyObject *state) { return rng_set_state(obj, state); }

static PyObject *rng_repr(PyObject *obj) {
    RngObject *self = (RngObject *)obj;
    aug_rng_state s;
    aug_rng_get_state(self->rng, &s);
    PyObject *dev = augpy_device_str(aug_rng_device(self->rng));
    if (dev == NULL) return NULL;
    PyObject *r = PyUnicode_FromFormat("<RandomNumberGenerator device=%U seed=%llu calls=%llu (Philox-4x32-10)>",
                                       dev, (unsigned long long)s.seed, (unsigned long long)s.calls);
    Py_DECREF(dev);
    return r;
}

static PyObject *rng_get_seed(PyObject *obj, void *Py_UNUSED(closure)) {
    aug_rng_state s;
    aug_rng_get_state(((RngObject *)obj)->rng, &s);
    return PyLong_FromUnsignedLongLong((unsigned long long)s.seed);
}

static PyObject *rng_get_device_id(PyObject *obj, void *Py_UNUSED(closure)) {
    return PyLong_FromLong(((RngObject *)obj)->device_id);
}

static PyGetSetDef rng_getset[] = {
    {"seed", rng_get_seed, NULL, "The 64-bit seed (the Philox key).", NULL},
    {"device_id", rng_get_device_id, NULL, "The generator's device.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMethodDef rng_methods[] = {
    {"uniform", (PyCFunction)(void (*)(void))rng_uniform, METH_FASTCALL | METH_KEYWORDS,
     "Fill target with values uniform in [vmin, vmax); vmin can occur, vmax never. Integer\n"
     "targets get every integer of the dtype in [ceil(vmin), vmax) with equal probability.\n"
     "Reproducible: element i (C order) of the n-th call draws from Philox counter (i, n).\n"
     "target: a Tensor on the generator's device, or a writable array (a CUDA generator draws its\n"
     "values, the same bits, on the host without waiting for the device; gaussian draws on the\n"
     "device and copies the values into the array)."},
    {"gaussian", (PyCFunction)(void (*)(void))rng_gaussian, METH_FASTCALL | METH_KEYWORDS,
     "Fill target with normal values (Box-Muller). Integer targets get the value rounded half\n"
     "to even and saturated to the dtype; bool targets get round(value) != 0."},
    {"gaussian_noise", (PyCFunction)(void (*)(void))rng_gaussian_noise, METH_FASTCALL | METH_KEYWORDS,
     "x + Gaussian noise in one pass, saturated. x and out both int8/uint8/int16/uint16: x + k with k the\n"
     "exact discretised round(mean + std * N(0, 1)), drawn by table from one 32-bit Philox word per value\n"
     "(docs/semantics.md 11.2). Otherwise exactly add(x, n, out=out) where n is the float32 tensor\n"
     "gaussian(n, mean, std) would fill with this generator's current state. Counts one call.\n"
     "std: a number, or one value per image (x's first axis) as a float32 Tensor, array or sequence. Any\n"
     "dtype in and out; out may be x (in place). Returns out, or a new tensor of x's shape and dtype."},
    {"get_state", rng_get_state, METH_NOARGS,
     "get_state($self, /)\n--\n\nThe state, a tuple (seed, calls): set_state(state) replays the fills from here."},
    {"set_state", rng_set_state, METH_O, "set_state($self, state, /)\n--\n\nRestore a state from get_state()."},
    {"__reduce__", rng_reduce, METH_NOARGS, "__reduce__($self, /)\n--\n\nPickle with the state."},
    {"__setstate__", rng_setstate, METH_O, "__setstate__($self, state, /)\n--\n\nset_state(state)."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot rng_slots[] = {
    {Py_tp_doc, "RandomNumberGenerator(device_id=None, seed=None)\n--\n\n"
                "Counter-based Philox-4x32-10 generator filling tensors of every dtype. device_id=None\n"
                "uses the default device; seed=None reads the OS entropy source. The same seed gives\n"
                "the same values for any thread count, strides or backend (SPEC 11)."},
    {Py_tp_new, rng_new},
    {Py_tp_dealloc, rng_dealloc},
    {Py_tp_repr, rng_repr},
    {Py_tp_methods, rng_methods},
    {Py_tp_getset, rng_getset},
    {0, NULL}};

static PyType_Spec rng_spec = {"augpy._augpy.RandomNumberGenerator", sizeof(RngObject), 0,
                               Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE, rng_slots};

/* ---- per-sample streams (aug_stream_seed, aug_sample_id) ------------------------------- */

/* A failed PyNumber_Index: a TypeError (e.g. __index__ returned a str) gets the
 * function's name; anything else (the object's own exception) passes through. */
static void name_index_error(const char *func, const char *name) {
    if (!PyErr_ExceptionMatches(PyExc_TypeError)) return;
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    PyErr_NormalizeException(&et, &ev, &tb);
    PyObject *msg = ev ? PyObject_Str(ev) : NULL;
    if (msg)
        PyErr_Format(PyExc_TypeError, "%s: %s must be an int: %U", func, name, msg);
    else
        PyErr_Format(PyExc_TypeError, "%s: %s must be an int", func, name);
    Py_XDECREF(msg);
    Py_XDECREF(et);
    Py_XDECREF(ev);
    Py_XDECREF(tb);
}

/* i (an int) as a uint64, else ValueError naming func and name. */
static int uint64_of(PyObject *i, uint64_t *out, const char *func, const char *name) {
    unsigned long long v = PyLong_AsUnsignedLongLong(i); /* OverflowError when negative or too large */
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
        PyErr_Clear();
        PyObject *desc = augpy_int_desc(i);
        if (desc) PyErr_Format(PyExc_ValueError, "%s: %s = %U is out of range [0, 2**64)", func, name, desc);
        Py_XDECREF(desc);
        return -1;
    }
    *out = (uint64_t)v;
    return 0;
}

int augpy_parse_uint64(PyObject *obj, uint64_t *out, const char *func, const char *name) {
    if (PyBool_Check(obj) || !PyIndex_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: %s must be an int in [0, 2**64), not '%.100s'", func, name,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    PyObject *i = PyNumber_Index(obj);
    if (i == NULL) {
        name_index_error(func, name);
        return -1;
    }
    int r = uint64_of(i, out, func, name);
    Py_DECREF(i);
    return r;
}

static int is_text(PyObject *obj) { return PyUnicode_Check(obj) || PyBytes_Check(obj) || PyByteArray_Check(obj); }

Py_ssize_t augpy_parse_rng_states(PyObject *obj, aug_rng_state **out, const char *func, const char *name) {
    *out = NULL;
    if (is_text(obj) || !PySequence_Check(obj)) {
        PyErr_Format(PyExc_TypeError,
                     "%s: %s must be an augpy.RandomNumberGenerator or a sequence of (seed, calls) pairs, not "
                     "'%.100s'",
                     func, name, Py_TYPE(obj)->tp_name);
        return -1;
    }
    PyObject *seq = PySequence_Tuple(obj); /* a snapshot: the items' __index__ may change obj */
    if (seq == NULL) return -1;
    Py_ssize_t n = PyTuple_GET_SIZE(seq);
    aug_rng_state *states = PyMem_Malloc(sizeof(aug_rng_state) * (size_t)(n + 1));
    if (states == NULL) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *item = PyTuple_GET_ITEM(seq, k);
        char what[64];
        if (is_text(item) || !PySequence_Check(item)) {
            PyErr_Format(PyExc_TypeError, "%s: %s[%zd] must be a (seed, calls) pair of ints, not '%.100s'", func, name,
                         k, Py_TYPE(item)->tp_name);
            goto fail;
        }
        PyObject *pair = PySequence_Tuple(item);
        if (pair == NULL) goto fail;
        if (PyTuple_GET_SIZE(pair) != 2) {
            PyErr_Format(PyExc_ValueError, "%s: %s[%zd] must be a (seed, calls) pair, got %zd values", func, name, k,
                         PyTuple_GET_SIZE(pair));
            Py_DECREF(pair);
            goto fail;
        }
        int r = 0;
        for (int j = 0; r == 0 && j < 2; j++) {
            snprintf(what, sizeof what, "%s[%zd] %s", name, k, j ? "calls" : "seed");
            r = augpy_parse_uint64(PyTuple_GET_ITEM(pair, j), j ? &states[k].calls : &states[k].seed, func, what);
        }
        Py_DECREF(pair);
        if (r < 0) goto fail;
    }
    Py_DECREF(seq);
    *out = states;
    return n;
fail:
    Py_DECREF(seq);
    PyMem_Free(states);
    return -1;
}

/* stream_seed(seed, epoch, stream) -> aug_stream_seed */
AUGPY_SIG(stream_seed_sig, "stream_seed", {"seed"}, {"epoch"}, {"stream"});

static PyObject *py_stream_seed(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char func[] = "augpy.stream_seed";
    PyObject *a[3];
    uint64_t seed, epoch;
    if (augpy_parse_args(func, args, nargs, kwnames, &stream_seed_sig, a) < 0 ||
        augpy_parse_uint64(a[0], &seed, func, "seed") < 0 || augpy_parse_uint64(a[1], &epoch, func, "epoch") < 0)
        return NULL;
    if (!PyUnicode_Check(a[2])) {
        PyErr_Format(PyExc_TypeError, "%s: stream must be a str, not '%.100s'", func, Py_TYPE(a[2])->tp_name);
        return NULL;
    }
    Py_ssize_t len;
    const char *s = PyUnicode_AsUTF8AndSize(a[2], &len);
    if (s == NULL) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s: stream %R cannot be encoded as UTF-8", func, a[2]);
        return NULL;
    }
    if ((size_t)len != strlen(s)) {
        PyErr_Format(PyExc_ValueError, "%s: stream %R contains a NUL character", func, a[2]);
        return NULL;
    }
    return PyLong_FromUnsignedLongLong((unsigned long long)aug_stream_seed(seed, epoch, s));
}

/* sample_id(key) -> aug_sample_id of a str's UTF-8 or a bytes-like object's bytes; an int is its own id */
AUGPY_SIG(sample_id_sig, "sample_id", {"key"});

static PyObject *py_sample_id(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    static const char func[] = "augpy.sample_id";
    PyObject *a[1];
    if (augpy_parse_args(func, args, nargs, kwnames, &sample_id_sig, a) < 0) return NULL;
    PyObject *key = a[0];
    uint64_t id;
    if (PyUnicode_Check(key)) {
        Py_ssize_t len;
        const char *s = PyUnicode_AsUTF8AndSize(key, &len);
        if (s == NULL) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "%s: key %R cannot be encoded as UTF-8", func, key);
            return NULL;
        }
        return PyLong_FromUnsignedLongLong((unsigned long long)aug_sample_id(s, (size_t)len));
    }
    int index = !PyBool_Check(key) && PyIndex_Check(key), buffer = PyObject_CheckBuffer(key);
    if (index && buffer && !PyLong_Check(key)) {
        /* numpy integer scalars and 0-d arrays are ints; other arrays are bytes */
        Py_buffer view;
        if (PyObject_GetBuffer(key, &view, PyBUF_ND) < 0) {
            PyErr_Clear();
            index = 0;
        } else {
            index = view.ndim == 0;
            PyBuffer_Release(&view);
        }
        buffer = !index;
    }
    if (index) {
        if (augpy_parse_uint64(key, &id, func, "key") < 0) return NULL;
        return PyLong_FromUnsignedLongLong((unsigned long long)id);
    }
    if (buffer) {
        Py_buffer view;
        if (PyObject_GetBuffer(key, &view, PyBUF_SIMPLE) < 0) {
            if (!PyErr_ExceptionMatches(PyExc_BufferError) && !PyErr_ExceptionMatches(PyExc_TypeError) &&
                !PyErr_ExceptionMatches(PyExc_ValueError))
                return NULL;
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s: key must be a contiguous bytes-like object, '%.100s' is not", func,
                         Py_TYPE(key)->tp_name);
            return NULL;
        }
        id = aug_sample_id(view.buf, (size_t)view.len);
        PyBuffer_Release(&view);
        return PyLong_FromUnsignedLongLong((unsigned long long)id);
    }
    PyErr_Format(PyExc_TypeError, "%s: key must be a str, a bytes-like object or an int in [0, 2**64), not '%.100s'",
                 func, Py_TYPE(key)->tp_name);
    return NULL;
}

/* _host_generator(state): a RandomNumberGenerator on the CPU at state (seed, calls), whatever the
 * default device. The stages draw their host-side decisions (op lists, crop boxes, lam) with it:
 * the same values as a generator on any device (SPEC 11), with no device launch and no read-back.
 * Pickled, it comes back on the default device (the same values). */
static PyObject *py_host_generator(PyObject *module, PyObject *state) {
    augpy_state *st = augpy_state_from_module(module);
    if (st == NULL) return NULL;
    PyObject *g = rng_make(st, st->RandomType, aug_cpu_device(), &(uint64_t){0});
    if (g == NULL) return NULL;
    PyObject *r = rng_set_state(g, state);
    if (r == NULL) {
        Py_DECREF(g);
        return NULL;
    }
    Py_DECREF(r);
    return g;
}

static PyMethodDef seed_functions[] = {
    {"_host_generator", py_host_generator, METH_O,
     "_host_generator(state)\n--\n\n"
     "A RandomNumberGenerator on the CPU at state (seed, calls) from get_state(), whatever the default\n"
     "device: the same values as on any device, drawn on the host (the stages' decisions)."},
    {"stream_seed", (PyCFunction)(void (*)(void))py_stream_seed, METH_FASTCALL | METH_KEYWORDS,
     "aug_stream_seed: the Philox seed of stream `stream` (a str, hashed as UTF-8) of epoch `epoch` of a\n"
     "pipeline seeded `seed` (ints in [0, 2**64)): splitmix64(splitmix64(splitmix64(seed) ^ epoch) ^\n"
     "fnv1a64(stream)). Image k of a stage draws as image 0 of a RandomNumberGenerator at state\n"
     "(stream_seed(seed, epoch, stream), sample_id(key)) (docs/random.md, \"Per-sample streams\")."},
    {"sample_id", (PyCFunction)(void (*)(void))py_sample_id, METH_FASTCALL | METH_KEYWORDS,
     "aug_sample_id: the 64-bit id of a sample's key, splitmix64(fnv1a64(bytes)) of a str's UTF-8\n"
     "or a bytes-like object's bytes; an int in [0, 2**64) (numpy integers too) is its own id."},
    {NULL, NULL, 0, NULL}};

int augpy_init_random(PyObject *module, augpy_state *st) {
    static augpy_sig *const rng_sigs[] = {&uniform_method_sig, &gaussian_method_sig, &gaussian_noise_method_sig, NULL};
    static augpy_sig *const sigs[] = {&stream_seed_sig, &sample_id_sig, NULL};
    if (augpy_sign_methods(rng_methods, rng_sigs) < 0 || augpy_sign_methods(seed_functions, sigs) < 0) return -1;
    st->RandomType = (PyTypeObject *)PyType_FromModuleAndSpec(module, &rng_spec, NULL);
    if (st->RandomType == NULL) return -1;
    if (PyModule_AddObjectRef(module, "RandomNumberGenerator", (PyObject *)st->RandomType) < 0) return -1;
    return PyModule_AddFunctions(module, seed_functions);
}
