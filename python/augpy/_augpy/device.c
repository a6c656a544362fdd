/* _augpy/device.c: the seed's device API over aug/device.h (semantics §4): CudaDevice,
 * CudaStream, CudaEvent, CudaDeviceProp, default_stream, get_current_device,
 * get_current_stream, get_device_properties, meminfo, release, synchronize.
 *
 * Devices, the thread-local current device and current streams, streams,
 * events, properties and memory figures are the C library's. `device_id`
 * arguments index the default backend's devices (args.c). On the CPU backend
 * work is synchronous: its streams and events exist and report completion.
 *
 * Python objects: a CudaStream owns an aug_stream (aug_stream_new), except the
 * module's default_stream, which stands for the default stream of whichever
 * device it is used with (the current device, or an event's). So that
 * get_current_stream() returns the very object that was activated, each thread
 * keeps a record {device id: CudaStream} in its thread-state dict beside the C
 * library's thread-local current stream; the record also keeps an active
 * stream alive, as aug_set_current_stream requires.
 *
 * Waiting (CudaStream/CudaEvent.synchronize(microseconds)) polls the query
 * with the GIL released, sleeping `microseconds` between polls (the seed's
 * low-CPU wait), or blocks in the library's synchronize for microseconds <= 0. */
#include "augpy.h"
#include <structmember.h>
#include <string.h>
#include <time.h>

static const char RECORD_KEY[] = "augpy.current_streams";

/* ---- waiting -------------------------------------------------------------------------- */

typedef int (*query_fn)(void *obj);           /* 1 done, 0 pending, -1 error */
typedef aug_status (*sync_fn)(void *obj);

static int stream_query_(void *s) { return aug_stream_query(s); }
static aug_status stream_sync_(void *s) { return aug_stream_synchronize(s); }
static int event_query_(void *e) { return aug_event_query(e); }
static aug_status event_sync_(void *e) { return aug_event_synchronize(e); }

/* Polls between signal checks (so Ctrl-C interrupts a long wait): ~50 ms. */
#define POLL_SLICE_NS 50000000LL

static int wait_done(augpy_state *st, void *obj, query_fn query, sync_fn sync, int microseconds,
                     const char *func) {
    aug_status status = AUG_OK;
    if (microseconds <= 0) {
        Py_BEGIN_ALLOW_THREADS
        status = sync(obj);
        Py_END_ALLOW_THREADS
        if (status != AUG_OK) return (void)augpy_raise(st, status, func), -1;
        return 0;
    }
    struct timespec pause = {microseconds / 1000000, (long)(microseconds % 1000000) * 1000};
    long long polls_per_slice = POLL_SLICE_NS / ((long long)microseconds * 1000) + 1;
    for (;;) {
        int done = 0;
        Py_BEGIN_ALLOW_THREADS
        for (long long i = 0; i < polls_per_slice; i++) {
            done = query(obj);
            if (done != 0) break;
            nanosleep(&pause, NULL);
        }
        Py_END_ALLOW_THREADS
        if (done < 0) return (void)augpy_raise(st, aug_last_status(), func), -1;
        if (done > 0) return 0;
        if (PyErr_CheckSignals() < 0) return -1;
    }
}

/* CudaStream.synchronize and CudaEvent.synchronize */
AUGPY_METHOD_SIG(synchronize_method_sig, "synchronize", {"microseconds", "100"});

static int parse_microseconds(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, int *us,
                              const char *func) {
    PyObject *a[1];
    *us = 100;
    if (augpy_parse_args(func, args, nargs, kwnames, &synchronize_method_sig, a) < 0) return -1;
    return a[0] ? augpy_parse_int(a[0], us, func, "microseconds") : 0;
}

/* ---- CudaDevice ----------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    aug_device dev;
    aug_device prev; /* the current device before activate() */
    int has_prev;
} DeviceObject;

static PyObject *properties_of(augpy_state *st, aug_device dev, const char *func);

static PyObject *device_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"device_id", NULL};
    PyObject *id_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:CudaDevice", kwlist, &id_obj)) return NULL;
    aug_device dev = aug_default_device();
    if (id_obj && augpy_parse_device_id(id_obj, 0, &dev, "CudaDevice") < 0) return NULL;
    DeviceObject *self = (DeviceObject *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    self->dev = dev;
    self->has_prev = 0;
    return (PyObject *)self;
}

static PyObject *device_activate(PyObject *self, PyObject *Py_UNUSED(unused)) {
    DeviceObject *d = (DeviceObject *)self;
    aug_device prev = aug_current_device();
    aug_status status = aug_set_current_device(d->dev);
    if (status != AUG_OK) return augpy_raise(augpy_state_from_obj(self), status, "CudaDevice.activate");
    d->prev = prev;
    d->has_prev = 1;
    Py_RETURN_NONE;
}

static PyObject *device_deactivate(PyObject *self, PyObject *Py_UNUSED(unused)) {
    DeviceObject *d = (DeviceObject *)self;
    if (d->has_prev) {
        aug_status status = aug_set_current_device(d->prev);
        if (status != AUG_OK) return augpy_raise(augpy_state_from_obj(self), status, "CudaDevice.deactivate");
        d->has_prev = 0;
    }
    Py_RETURN_NONE;
}

static PyObject *device_enter(PyObject *self, PyObject *Py_UNUSED(unused)) {
    PyObject *r = device_activate(self, NULL);
    if (r == NULL) return NULL;
    Py_DECREF(r);
    return Py_NewRef(self);
}

static PyObject *device_exit(PyObject *self, PyObject *Py_UNUSED(args)) { return device_deactivate(self, NULL); }

static PyObject *device_get_device(PyObject *self, PyObject *Py_UNUSED(unused)) {
    return PyLong_FromLong(((DeviceObject *)self)->dev.id);
}

static PyObject *device_get_properties(PyObject *self, PyObject *Py_UNUSED(unused)) {
    augpy_state *st = augpy_state_from_obj(self);
    return st ? properties_of(st, ((DeviceObject *)self)->dev, "CudaDevice.get_properties") : NULL;
}

static PyObject *synchronize_device(augpy_state *st, aug_device dev, const char *func) {
    aug_status status;
    Py_BEGIN_ALLOW_THREADS
    status = aug_synchronize(dev);
    Py_END_ALLOW_THREADS
    if (status != AUG_OK) return augpy_raise(st, status, func);
    Py_RETURN_NONE;
}

static PyObject *device_synchronize(PyObject *self, PyObject *Py_UNUSED(unused)) {
    augpy_state *st = augpy_state_from_obj(self);
    return st ? synchronize_device(st, ((DeviceObject *)self)->dev, "CudaDevice.synchronize") : NULL;
}

static PyObject *device_repr(PyObject *self) {
    aug_device dev = ((DeviceObject *)self)->dev;
    return PyUnicode_FromFormat("<CudaDevice %d (%s)>", dev.id, dev.type == AUG_DEVICE_CPU ? "cpu" : "cuda");
}

static PyMethodDef device_methods[] = {
    {"activate", device_activate, METH_NOARGS,
     "activate($self, /)\n--\n\nMake this the current device of this thread and remember the previous one."},
    {"deactivate", device_deactivate, METH_NOARGS,
     "deactivate($self, /)\n--\n\nMake the device that was current before activate() current again."},
    {"get_device", device_get_device, METH_NOARGS, "get_device($self, /)\n--\n\nThe device ID."},
    {"get_properties", device_get_properties, METH_NOARGS,
     "get_properties($self, /)\n--\n\nThe device's CudaDeviceProp, see get_device_properties."},
    {"synchronize", device_synchronize, METH_NOARGS,
     "synchronize($self, /)\n--\n\nBlock until all work on this device has finished (CPU: returns at once)."},
    {"__enter__", device_enter, METH_NOARGS, "__enter__($self, /)\n--\n\nactivate(); returns self."},
    {"__exit__", device_exit, METH_VARARGS, "__exit__($self, /, *exc_info)\n--\n\ndeactivate()."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot device_slots[] = {
    {Py_tp_doc, "CudaDevice(device_id=0)\n--\n\n"
                "A device of the default backend (cuda:N on a GPU, else the CPU, where only 0 exists).\n"
                "activate() / deactivate() switch this thread's current device; also a context manager."},
    {Py_tp_new, device_new},
    {Py_tp_repr, device_repr},
    {Py_tp_methods, device_methods},
    {0, NULL}};

static PyType_Spec device_spec = {"augpy._augpy.CudaDevice", sizeof(DeviceObject), 0,
                                  Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE, device_slots};

/* ---- CudaStream ------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    aug_stream *s;      /* NULL for default_stream (the default stream of the device it is used with) */
    int owned;          /* s came from aug_stream_new */
    PyObject *prev;     /* the stream current before activate() */
    aug_device prev_dev;
} StreamObject;

static int is_stream(augpy_state *st, PyObject *obj) { return PyObject_TypeCheck(obj, st->StreamType); }

/* The aug_stream obj stands for on dev (default_stream: dev's default stream). */
static aug_stream *stream_on(PyObject *obj, aug_device dev) {
    StreamObject *s = (StreamObject *)obj;
    return s->s ? s->s : aug_default_stream(dev);
}

static aug_device stream_device(PyObject *obj) {
    StreamObject *s = (StreamObject *)obj;
    return s->s ? aug_stream_device(s->s) : aug_current_device();
}

/* This thread's record {device id: CudaStream} (borrowed), created on demand. */
static PyObject *stream_record(void) {
    PyObject *tsdict = PyThreadState_GetDict();
    if (tsdict == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "augpy: no thread state dict");
        return NULL;
    }
    PyObject *rec = PyDict_GetItemString(tsdict, RECORD_KEY);
    if (rec != NULL) return rec;
    rec = PyDict_New();
    if (rec == NULL) return NULL;
    int r = PyDict_SetItemString(tsdict, RECORD_KEY, rec);
    Py_DECREF(rec);
    return r < 0 ? NULL : rec;
}

/* The CudaStream object current on dev in this thread (new reference). */
static PyObject *current_stream_object(augpy_state *st, aug_device dev, const char *func) {
    aug_stream *cur = aug_current_stream(dev);
    if (cur == NULL) return augpy_raise(st, AUG_OK, func);
    if (cur == aug_default_stream(dev)) return Py_NewRef(st->default_stream);
    PyObject *rec = stream_record();
    if (rec == NULL) return NULL;
    PyObject *key = PyLong_FromLong(dev.id);
    if (key == NULL) return NULL;
    PyObject *obj = PyDict_GetItemWithError(rec, key);
    Py_DECREF(key);
    if (obj != NULL && ((StreamObject *)obj)->s == cur) return Py_NewRef(obj);
    if (PyErr_Occurred()) return NULL;
    /* Made current by C code behind augpy's back: a borrowed wrapper. */
    StreamObject *w = (StreamObject *)st->StreamType->tp_alloc(st->StreamType, 0);
    if (w == NULL) return NULL;
    w->s = cur;
    w->owned = 0;
    return (PyObject *)w;
}

/* Makes obj the current stream of dev, in C and in this thread's record. The
 * C library points at the stream before the record drops the previous
 * object, and is put back if the record cannot be updated, so it never points
 * at a stream whose object may be gone. */
static int set_current_stream(augpy_state *st, PyObject *obj, aug_device dev, const char *func) {
    PyObject *rec = stream_record();
    if (rec == NULL) return -1;
    aug_stream *s = stream_on(obj, dev), *old = aug_current_stream(dev);
    if (s == NULL || old == NULL) return (void)augpy_raise(st, AUG_OK, func), -1;
    PyObject *key = PyLong_FromLong(dev.id);
    if (key == NULL) return -1;
    aug_status status = aug_set_current_stream(s);
    if (status != AUG_OK) {
        Py_DECREF(key);
        return (void)augpy_raise(st, status, func), -1;
    }
    int r;
    if (obj != st->default_stream) {
        r = PyDict_SetItem(rec, key, obj);
    } else if ((r = PyDict_DelItem(rec, key)) < 0 && PyErr_ExceptionMatches(PyExc_KeyError)) {
        PyErr_Clear();
        r = 0;
    }
    Py_DECREF(key);
    if (r < 0) (void)aug_set_current_stream(old);
    return r;
}

static PyObject *stream_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"device_id", "priority", NULL};
    const char *func = "CudaStream";
    PyObject *id_obj = NULL, *prio_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OO:CudaStream", kwlist, &id_obj, &prio_obj)) return NULL;
    augpy_state *st = augpy_state_from_type(type);
    if (st == NULL) return NULL;
    /* The seed: device_id=-1 (with priority=-1) is the default stream. */
    if (id_obj && PyLong_Check(id_obj) && !PyBool_Check(id_obj)) {
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(id_obj, &overflow);
        if (v == -1 && !overflow) {
            if (PyErr_Occurred()) return NULL;
            return Py_NewRef(st->default_stream);
        }
    }
    aug_device dev = aug_default_device();
    int priority = 0;
    if ((id_obj && augpy_parse_device_id(id_obj, 0, &dev, func) < 0) ||
        (prio_obj && augpy_parse_int(prio_obj, &priority, func, "priority") < 0))
        return NULL;
    StreamObject *self = (StreamObject *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    self->s = aug_stream_new(dev, priority);
    if (self->s == NULL) {
        Py_DECREF(self);
        return augpy_raise(st, AUG_OK, func);
    }
    self->owned = 1;
    return (PyObject *)self;
}

static int stream_traverse(PyObject *self, visitproc visit, void *arg) {
    Py_VISIT(((StreamObject *)self)->prev);
    Py_VISIT(Py_TYPE(self));
    return 0;
}

static int stream_clear(PyObject *self) {
    Py_CLEAR(((StreamObject *)self)->prev);
    return 0;
}

static void stream_dealloc(PyObject *self) {
    StreamObject *s = (StreamObject *)self;
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    stream_clear(self);
    if (s->owned && s->s != NULL) {
        aug_stream *handle = s->s;
        Py_BEGIN_ALLOW_THREADS
        aug_stream_free(handle); /* waits for the stream's work */
        Py_END_ALLOW_THREADS
    }
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyObject *stream_activate(PyObject *self, PyObject *Py_UNUSED(unused)) {
    const char *func = "CudaStream.activate";
    StreamObject *s = (StreamObject *)self;
    augpy_state *st = augpy_state_from_obj(self);
    if (st == NULL) return NULL;
    aug_device dev = stream_device(self);
    PyObject *prev = current_stream_object(st, dev, func);
    if (prev == NULL) return NULL;
    if (set_current_stream(st, self, dev, func) < 0) {
        Py_DECREF(prev);
        return NULL;
    }
    Py_XSETREF(s->prev, prev);
    s->prev_dev = dev;
    Py_RETURN_NONE;
}

static PyObject *stream_deactivate(PyObject *self, PyObject *Py_UNUSED(unused)) {
    StreamObject *s = (StreamObject *)self;
    if (s->prev != NULL) {
        augpy_state *st = augpy_state_from_obj(self);
        if (st == NULL || set_current_stream(st, s->prev, s->prev_dev, "CudaStream.deactivate") < 0) return NULL;
        Py_CLEAR(s->prev);
    }
    Py_RETURN_NONE;
}

static PyObject *stream_enter(PyObject *self, PyObject *Py_UNUSED(unused)) {
    PyObject *r = stream_activate(self, NULL);
    if (r == NULL) return NULL;
    Py_DECREF(r);
    return Py_NewRef(self);
}

static PyObject *stream_exit(PyObject *self, PyObject *Py_UNUSED(args)) { return stream_deactivate(self, NULL); }

static PyObject *stream_synchronize(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    const char *func = "CudaStream.synchronize";
    augpy_state *st = augpy_state_from_obj(self);
    int us;
    if (st == NULL || parse_microseconds(args, nargs, kwnames, &us, func) < 0) return NULL;
    aug_stream *s = stream_on(self, aug_current_device());
    if (s == NULL) return augpy_raise(st, AUG_OK, func);
    if (wait_done(st, s, stream_query_, stream_sync_, us, func) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *stream_query(PyObject *self, PyObject *Py_UNUSED(unused)) {
    augpy_state *st = augpy_state_from_obj(self);
    if (st == NULL) return NULL;
    aug_stream *s = stream_on(self, aug_current_device());
    int r = s ? aug_stream_query(s) : -1;
    if (r < 0) return augpy_raise(st, AUG_OK, "CudaStream.query");
    return PyBool_FromLong(r);
}

static PyObject *stream_get_device_id(PyObject *self, void *Py_UNUSED(closure)) {
    return PyLong_FromLong(stream_device(self).id);
}

static PyObject *stream_get_priority(PyObject *self, void *Py_UNUSED(closure)) {
    StreamObject *s = (StreamObject *)self;
    return PyLong_FromLong(s->s ? aug_stream_priority(s->s) : 0);
}

static PyObject *stream_get_handle(PyObject *self, void *Py_UNUSED(closure)) {
    aug_stream *s = stream_on(self, aug_current_device());
    return PyLong_FromVoidPtr(s ? aug_stream_handle(s) : NULL);
}

static PyObject *stream_repr(PyObject *self) {
    StreamObject *s = (StreamObject *)self;
    if (s->s == NULL) return PyUnicode_FromString("<CudaStream default>");
    return PyUnicode_FromFormat("<CudaStream device_id=%d, priority=%d>", aug_stream_device(s->s).id,
                                aug_stream_priority(s->s));
}

static PyObject *stream_wait_event(PyObject *self, PyObject *event); /* after CudaEvent */

static PyMethodDef stream_methods[] = {
    {"wait_event", stream_wait_event, METH_O,
     "wait_event($self, event, /)\n--\n\nMake work queued on this stream from now on wait until `event` "
     "(recorded on\nany stream of the same device) has completed; returns at once (CPU: a no-op)."},
    {"activate", stream_activate, METH_NOARGS,
     "activate($self, /)\n--\n\nMake this the current stream of its device in this thread and remember the "
     "previous one."},
    {"deactivate", stream_deactivate, METH_NOARGS,
     "deactivate($self, /)\n--\n\nMake the stream that was current before activate() current again."},
    {"synchronize", (PyCFunction)(void (*)(void))stream_synchronize, METH_FASTCALL | METH_KEYWORDS,
     "Block until all work queued on this stream has finished, checking every `microseconds` with the\n"
     "GIL released (fewer checks, less CPU load); microseconds <= 0 blocks in the runtime's own wait."},
    {"query", stream_query, METH_NOARGS,
     "query($self, /)\n--\n\nTrue if all work queued on this stream has finished (CPU: always)."},
    {"__enter__", stream_enter, METH_NOARGS, "__enter__($self, /)\n--\n\nactivate(); returns self."},
    {"__exit__", stream_exit, METH_VARARGS, "__exit__($self, /, *exc_info)\n--\n\ndeactivate()."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef stream_getset[] = {
    {"device_id", stream_get_device_id, NULL,
     "The stream's device (default_stream: the current device).", NULL},
    {"priority", stream_get_priority, NULL, "The stream's priority (lower numbers are more urgent).", NULL},
    {"handle", stream_get_handle, NULL,
     "The backend's stream handle as an int (a cudaStream_t; 0 for a default stream and on the CPU), "
     "for interop.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot stream_slots[] = {
    {Py_tp_doc, "CudaStream(device_id=0, priority=0)\n--\n\n"
                "A new stream on a device of the default backend. Lower priorities are more urgent; a\n"
                "priority outside the device's range [greatestStreamPriority, leastStreamPriority] raises\n"
                "ValueError (the CPU has only 0). device_id=-1 (with priority=-1) gives augpy.default_stream.\n"
                "activate() / deactivate() switch this thread's current stream of the stream's device; also a\n"
                "context manager. On the CPU, work is synchronous and every stream is always complete."},
    {Py_tp_new, stream_new},
    {Py_tp_dealloc, stream_dealloc},
    {Py_tp_traverse, stream_traverse},
    {Py_tp_clear, stream_clear},
    {Py_tp_repr, stream_repr},
    {Py_tp_methods, stream_methods},
    {Py_tp_getset, stream_getset},
    {0, NULL}};

static PyType_Spec stream_spec = {"augpy._augpy.CudaStream", sizeof(StreamObject), 0,
                                  Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE, stream_slots};

/* ---- CudaEvent --------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    aug_event *e;
    aug_device dev;
} EventObject;

static PyObject *event_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    if (!PyArg_ParseTuple(args, ":CudaEvent") || (kwargs && PyDict_GET_SIZE(kwargs))) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "CudaEvent() takes no arguments");
        return NULL;
    }
    augpy_state *st = augpy_state_from_type(type);
    if (st == NULL) return NULL;
    EventObject *self = (EventObject *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    self->dev = aug_current_device();
    self->e = aug_event_new(self->dev);
    if (self->e == NULL) {
        Py_DECREF(self);
        return augpy_raise(st, AUG_OK, "CudaEvent");
    }
    return (PyObject *)self;
}

static void event_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    aug_event_free(((EventObject *)self)->e);
    tp->tp_free(self);
    Py_DECREF(tp);
}

AUGPY_METHOD_SIG(record_method_sig, "record", {"stream", "None"});

static PyObject *event_record(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    const char *func = "CudaEvent.record";
    EventObject *e = (EventObject *)self;
    augpy_state *st = augpy_state_from_obj(self);
    PyObject *a[1];
    if (st == NULL || augpy_parse_args(func, args, nargs, kwnames, &record_method_sig, a) < 0) return NULL;
    aug_stream *s = NULL; /* the current stream of the event's device */
    if (a[0] && a[0] != Py_None) {
        if (!is_stream(st, a[0])) {
            PyErr_Format(PyExc_TypeError, "%s: stream must be a CudaStream or None, got %.100s", func,
                         Py_TYPE(a[0])->tp_name);
            return NULL;
        }
        s = stream_on(a[0], e->dev);
        if (s == NULL) return augpy_raise(st, AUG_OK, func);
    }
    aug_status status = aug_event_record(e->e, s);
    if (status != AUG_OK) return augpy_raise(st, status, func);
    Py_RETURN_NONE;
}

static PyObject *stream_wait_event(PyObject *self, PyObject *event) {
    const char *func = "CudaStream.wait_event";
    augpy_state *st = augpy_state_from_obj(self);
    if (st == NULL) return NULL;
    if (!PyObject_TypeCheck(event, st->EventType)) {
        PyErr_Format(PyExc_TypeError, "%s: event must be a CudaEvent, got %.100s", func, Py_TYPE(event)->tp_name);
        return NULL;
    }
    EventObject *e = (EventObject *)event;
    aug_stream *s = stream_on(self, e->dev);
    if (s == NULL) return augpy_raise(st, AUG_OK, func);
    aug_status status = aug_stream_wait_event(s, e->e);
    if (status != AUG_OK) return augpy_raise(st, status, func);
    Py_RETURN_NONE;
}

static PyObject *event_query(PyObject *self, PyObject *Py_UNUSED(unused)) {
    int r = aug_event_query(((EventObject *)self)->e);
    if (r < 0) return augpy_raise(augpy_state_from_obj(self), AUG_OK, "CudaEvent.query");
    return PyBool_FromLong(r);
}

static PyObject *event_synchronize(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    const char *func = "CudaEvent.synchronize";
    augpy_state *st = augpy_state_from_obj(self);
    int us;
    if (st == NULL || parse_microseconds(args, nargs, kwnames, &us, func) < 0) return NULL;
    if (wait_done(st, ((EventObject *)self)->e, event_query_, event_sync_, us, func) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *event_elapsed_time(PyObject *self, PyObject *end) {
    const char *func = "CudaEvent.elapsed_time";
    augpy_state *st = augpy_state_from_obj(self);
    if (st == NULL) return NULL;
    if (!PyObject_TypeCheck(end, st->EventType)) {
        PyErr_Format(PyExc_TypeError, "%s: end_event must be a CudaEvent, got %.100s", func, Py_TYPE(end)->tp_name);
        return NULL;
    }
    float ms = 0.0f;
    aug_status status = aug_event_elapsed_ms(((EventObject *)self)->e, ((EventObject *)end)->e, &ms);
    if (status != AUG_OK) return augpy_raise(st, status, func);
    return PyFloat_FromDouble((double)ms);
}

static PyMethodDef event_methods[] = {
    {"record", (PyCFunction)(void (*)(void))event_record, METH_FASTCALL | METH_KEYWORDS,
     "Record the point reached by `stream` (None: the current stream of the event's device)."},
    {"query", event_query, METH_NOARGS,
     "query($self, /)\n--\n\nTrue if the recorded point has been reached (or nothing was recorded)."},
    {"synchronize", (PyCFunction)(void (*)(void))event_synchronize, METH_FASTCALL | METH_KEYWORDS,
     "Block until the recorded point has been reached, checking every `microseconds` with the GIL\n"
     "released; microseconds <= 0 blocks in the runtime's own wait."},
    {"elapsed_time", event_elapsed_time, METH_O,
     "elapsed_time($self, end_event, /)\n--\n\n"
     "Milliseconds from this event's recorded point to end_event's, as PyTorch's Event.elapsed_time.\n"
     "Both events must have been recorded on one device and have completed (synchronize end_event)."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot event_slots[] = {
    {Py_tp_doc, "CudaEvent()\n--\n\n"
                "An event on this thread's current device, for synchronising with a point of a stream and\n"
                "timing. On the CPU a recorded point is always reached."},
    {Py_tp_new, event_new},
    {Py_tp_dealloc, event_dealloc},
    {Py_tp_methods, event_methods},
    {0, NULL}};

static PyType_Spec event_spec = {"augpy._augpy.CudaEvent", sizeof(EventObject), 0,
                                 Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE, event_slots};

/* ---- CudaDeviceProp ------------------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    PyObject *name, *maxThreadsDim, *maxGridSize;
    unsigned long long totalGlobalMem, sharedMemPerBlock, sharedMemPerMultiprocessor, totalConstMem;
    int l2CacheSize;
    int major, minor, multiProcessorCount, coresPerMultiprocessor, numCudaCores, warpSize;
    int maxThreadsPerBlock, maxThreadsPerMultiProcessor, regsPerBlock, regsPerMultiprocessor;
    int leastStreamPriority, greatestStreamPriority;
    char streamPrioritiesSupported;
} PropObject;

static PyObject *properties_of(augpy_state *st, aug_device dev, const char *func) {
    aug_device_props p;
    aug_status status = aug_device_properties(dev, &p);
    if (status != AUG_OK) return augpy_raise(st, status, func);
    PropObject *o = (PropObject *)st->DevicePropType->tp_alloc(st->DevicePropType, 0);
    if (o == NULL) return NULL;
    p.name[sizeof p.name - 1] = '\0';
    o->name = PyUnicode_DecodeUTF8(p.name, (Py_ssize_t)strlen(p.name), "replace");
    o->maxThreadsDim = Py_BuildValue("(iii)", p.maxThreadsDim[0], p.maxThreadsDim[1], p.maxThreadsDim[2]);
    o->maxGridSize = Py_BuildValue("(iii)", p.maxGridSize[0], p.maxGridSize[1], p.maxGridSize[2]);
    if (!o->name || !o->maxThreadsDim || !o->maxGridSize) {
        Py_DECREF(o);
        return NULL;
    }
    o->totalGlobalMem = p.totalGlobalMem;
    o->sharedMemPerBlock = p.sharedMemPerBlock;
    o->sharedMemPerMultiprocessor = p.sharedMemPerMultiprocessor;
    o->totalConstMem = p.totalConstMem;
    o->l2CacheSize = p.l2CacheSize;
    o->major = p.major;
    o->minor = p.minor;
    o->multiProcessorCount = p.multiProcessorCount;
    o->coresPerMultiprocessor = p.coresPerMultiprocessor;
    o->numCudaCores = p.numCudaCores;
    o->warpSize = p.warpSize;
    o->maxThreadsPerBlock = p.maxThreadsPerBlock;
    o->maxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
    o->regsPerBlock = p.regsPerBlock;
    o->regsPerMultiprocessor = p.regsPerMultiprocessor;
    o->leastStreamPriority = p.leastStreamPriority;
    o->greatestStreamPriority = p.greatestStreamPriority;
    o->streamPrioritiesSupported = p.streamPrioritiesSupported != 0;
    return (PyObject *)o;
}

static PyObject *prop_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    if (!PyArg_ParseTuple(args, ":CudaDeviceProp") || (kwargs && PyDict_GET_SIZE(kwargs))) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "CudaDeviceProp() takes no arguments");
        return NULL;
    }
    augpy_state *st = augpy_state_from_type(type);
    return st ? properties_of(st, aug_current_device(), "CudaDeviceProp") : NULL;
}

static void prop_dealloc(PyObject *self) {
    PropObject *p = (PropObject *)self;
    PyTypeObject *tp = Py_TYPE(self);
    Py_XDECREF(p->name);
    Py_XDECREF(p->maxThreadsDim);
    Py_XDECREF(p->maxGridSize);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyObject *prop_get_cores_per_sm(PyObject *self, void *Py_UNUSED(c)) {
    return PyLong_FromLong(((PropObject *)self)->coresPerMultiprocessor);
}

static PyObject *prop_repr(PyObject *self) {
    PropObject *p = (PropObject *)self;
    return PyUnicode_FromFormat("<CudaDeviceProp name=%R, multiProcessorCount=%d, totalGlobalMem=%llu>", p->name,
                                p->multiProcessorCount, p->totalGlobalMem);
}

#define PROP_INT(field, doc) {#field, T_INT, offsetof(PropObject, field), READONLY, doc}
#define PROP_SIZE(field, doc) {#field, T_ULONGLONG, offsetof(PropObject, field), READONLY, doc}
static PyMemberDef prop_members[] = {
    {"name", T_OBJECT, offsetof(PropObject, name), READONLY, "ASCII string identifying the device."},
    PROP_SIZE(totalGlobalMem, "Global memory available on the device in bytes (CPU: host memory)."),
    PROP_SIZE(sharedMemPerBlock, "Shared memory available per block in bytes."),
    PROP_SIZE(sharedMemPerMultiprocessor, "Shared memory available per multiprocessor in bytes."),
    PROP_SIZE(totalConstMem, "Constant memory available on the device in bytes."),
    PROP_INT(l2CacheSize, "Size of the L2 cache in bytes."),
    PROP_INT(major, "Major compute capability (CPU: 0)."),
    PROP_INT(minor, "Minor compute capability (CPU: 0)."),
    PROP_INT(multiProcessorCount, "Number of multiprocessors on the device (CPU: usable cores)."),
    PROP_INT(coresPerMultiprocessor, "Number of cores per multiprocessor (CPU: 1)."),
    PROP_INT(numCudaCores, "Total number of cores."),
    PROP_INT(warpSize, "Warp size in threads."),
    PROP_INT(maxThreadsPerBlock, "Maximum number of threads per block."),
    PROP_INT(maxThreadsPerMultiProcessor, "Maximum resident threads per multiprocessor."),
    PROP_INT(regsPerBlock, "32-bit registers available per block."),
    PROP_INT(regsPerMultiprocessor, "32-bit registers available per multiprocessor."),
    PROP_INT(leastStreamPriority, "Lowest priority a stream on this device can have (numerically largest)."),
    PROP_INT(greatestStreamPriority, "Highest priority a stream on this device can have (numerically smallest)."),
    {"streamPrioritiesSupported", T_BOOL, offsetof(PropObject, streamPrioritiesSupported), READONLY,
     "Device supports stream priorities."},
    {"maxThreadsDim", T_OBJECT, offsetof(PropObject, maxThreadsDim), READONLY,
     "Maximum size of each dimension of a block."},
    {"maxGridSize", T_OBJECT, offsetof(PropObject, maxGridSize), READONLY,
     "Maximum number of blocks in each grid dimension."},
    {NULL, 0, 0, 0, NULL}};

static PyGetSetDef prop_getset[] = {
    {"coresPerSM", prop_get_cores_per_sm, NULL, "Number of cores per SM (= coresPerMultiprocessor).", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot prop_slots[] = {
    {Py_tp_doc, "CudaDeviceProp()\n--\n\n"
                "The cudaDeviceProp fields listed in the manual, plus stream priorities,\n"
                "coresPerMultiprocessor/coresPerSM, numCudaCores and maxGridSize. CudaDeviceProp() describes\n"
                "the current device; see augpy.get_device_properties. On the CPU: the host's model name, one\n"
                "multiprocessor with one core per usable core, host memory as global memory, warp and block\n"
                "sizes 1, CUDA's grid limits, 0 elsewhere."},
    {Py_tp_new, prop_new},
    {Py_tp_dealloc, prop_dealloc},
    {Py_tp_repr, prop_repr},
    {Py_tp_members, prop_members},
    {Py_tp_getset, prop_getset},
    {0, NULL}};

static PyType_Spec prop_spec = {"augpy._augpy.CudaDeviceProp", sizeof(PropObject), 0,
                                Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE, prop_slots};

/* ---- module functions -------------------------------------------------------------------- */

/* device_id argument of the module functions: None -> the current device. */
static int parse_optional_device(PyObject *obj, aug_device *dev, const char *func) {
    if (obj == NULL || obj == Py_None) {
        *dev = aug_current_device();
        return 0;
    }
    return augpy_parse_device_id(obj, 0, dev, func);
}

static PyObject *get_current_device(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(u)) {
    return PyLong_FromLong(aug_current_device().id);
}

static PyObject *get_current_stream(PyObject *module, PyObject *Py_UNUSED(u)) {
    return current_stream_object(augpy_state_from_module(module), aug_current_device(), "get_current_stream");
}

static PyObject *get_device_properties(PyObject *module, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"device_id", NULL};
    const char *func = "get_device_properties";
    PyObject *id_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:get_device_properties", kwlist, &id_obj)) return NULL;
    aug_device dev;
    if (parse_optional_device(id_obj, &dev, func) < 0) return NULL;
    return properties_of(augpy_state_from_module(module), dev, func);
}

static PyObject *meminfo(PyObject *module, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"device_id", NULL};
    PyObject *id_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:meminfo", kwlist, &id_obj)) return NULL;
    aug_device dev = aug_default_device();
    if (id_obj && augpy_parse_device_id(id_obj, 0, &dev, "meminfo") < 0) return NULL;
    size_t used = 0, free_bytes = 0, total = 0;
    aug_status status = aug_device_meminfo(dev, &used, &free_bytes, &total);
    if (status != AUG_OK) return augpy_raise(augpy_state_from_module(module), status, "meminfo");
    return Py_BuildValue("(KKK)", (unsigned long long)used, (unsigned long long)free_bytes,
                         (unsigned long long)total);
}

static PyObject *release(PyObject *module, PyObject *Py_UNUSED(u)) {
    aug_device dev = aug_default_device();
    int n = aug_device_count(dev.type);
    aug_status status = AUG_OK;
    Py_BEGIN_ALLOW_THREADS
    for (dev.id = 0; dev.id < n && status == AUG_OK; dev.id++) status = aug_device_release(dev);
    Py_END_ALLOW_THREADS
    if (status != AUG_OK) return augpy_raise(augpy_state_from_module(module), status, "release");
    Py_RETURN_NONE;
}

static PyObject *synchronize(PyObject *module, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"device_id", NULL};
    PyObject *id_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:synchronize", kwlist, &id_obj)) return NULL;
    aug_device dev;
    if (parse_optional_device(id_obj, &dev, "synchronize") < 0) return NULL;
    return synchronize_device(augpy_state_from_module(module), dev, "synchronize");
}

/* The calling thread's launch settings (aug_get_launch / aug_set_launch); the
 * functions taking blocks_per_sm / threads set them around each call and put
 * these back. Private: for tests. */
static PyObject *get_launch(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(u)) {
    int blocks_per_sm, threads;
    aug_get_launch(&blocks_per_sm, &threads);
    return Py_BuildValue("(ii)", blocks_per_sm, threads);
}

static PyObject *set_launch(PyObject *module, PyObject *args) {
    PyObject *b, *t;
    int blocks_per_sm, threads;
    if (!PyArg_ParseTuple(args, "OO:_set_launch", &b, &t) ||
        augpy_parse_int(b, &blocks_per_sm, "_set_launch", "blocks_per_sm") < 0 ||
        augpy_parse_int(t, &threads, "_set_launch", "threads") < 0)
        return NULL;
    aug_status status = aug_set_launch(blocks_per_sm, threads);
    if (status != AUG_OK) return augpy_raise(augpy_state_from_module(module), status, "_set_launch");
    Py_RETURN_NONE;
}

static PyObject *cuda_status(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(u)) {
    const char *why = aug_cuda_status();
    if (why[0] == '\0') return PyUnicode_FromFormat("ok: %d CUDA device(s)", aug_device_count(AUG_DEVICE_CUDA));
    return PyUnicode_FromString(why);
}

static PyMethodDef device_functions[] = {
    {"cuda_status", cuda_status, METH_NOARGS,
     "cuda_status()\n--\n\n'ok: N CUDA device(s)' when the CUDA backend runs, else why not (no CUDA\n"
     "module, no device, disabled by AUG_CUDA_BACKEND=off, ...)."},
    {"get_current_device", get_current_device, METH_NOARGS,
     "get_current_device()\n--\n\nThe current device ID of this thread.\n"
     "It is the default device's id unless a CudaDevice was activated on this thread."},
    {"get_current_stream", get_current_stream, METH_NOARGS,
     "get_current_stream()\n--\n\nThe current stream of this thread on its current device (default_stream "
     "unless one was activated).\nThe CUDA work of this thread's calls is queued on it."},
    {"get_device_properties", (PyCFunction)(void (*)(void))get_device_properties, METH_VARARGS | METH_KEYWORDS,
     "get_device_properties(device_id=None)\n--\n\nThe CudaDeviceProp of a device (None: the current one).\n"
     "ValueError for a device_id the default backend does not have."},
    {"meminfo", (PyCFunction)(void (*)(void))meminfo, METH_VARARGS | METH_KEYWORDS,
     "meminfo(device_id=0)\n--\n\n"
     "(used, free, total) memory of the device in bytes, in the seed's order; used includes memory\n"
     "cached for reuse by augpy's tensors (CPU: host memory, free is MemAvailable)."},
    {"release", release, METH_NOARGS,
     "release()\n--\n\nReturn the device memory cached for reuse to every device (CUDA; the CPU keeps\n"
     "no cache)."},
    {"synchronize", (PyCFunction)(void (*)(void))synchronize, METH_VARARGS | METH_KEYWORDS,
     "synchronize(device_id=None)\n--\n\nBlock until all work on the device (None: the current one) has "
     "finished\n(CPU: returns at once, its work is done when a call returns)."},
    {"_get_launch", get_launch, METH_NOARGS,
     "_get_launch()\n--\n\nThis thread's launch settings (blocks_per_sm, threads); 0 = automatic."},
    {"_set_launch", set_launch, METH_VARARGS,
     "_set_launch(blocks_per_sm, threads, /)\n--\n\nSet this thread's launch settings (calls with "
     "blocks_per_sm / threads arguments override them for their duration)."},
    {NULL, NULL, 0, NULL}};

static int add_type(PyObject *module, PyType_Spec *spec, PyTypeObject **slot) {
    *slot = (PyTypeObject *)PyType_FromModuleAndSpec(module, spec, NULL);
    if (*slot == NULL) return -1;
    return PyModule_AddObjectRef(module, strrchr(spec->name, '.') + 1, (PyObject *)*slot);
}

int augpy_init_device(PyObject *module, augpy_state *st) {
    static augpy_sig *const stream_sigs[] = {&synchronize_method_sig, NULL};
    static augpy_sig *const event_sigs[] = {&record_method_sig, &synchronize_method_sig, NULL};
    if (augpy_sign_methods(stream_methods, stream_sigs) < 0 || augpy_sign_methods(event_methods, event_sigs) < 0)
        return -1;
    if (add_type(module, &device_spec, &st->DeviceType) < 0 || add_type(module, &stream_spec, &st->StreamType) < 0 ||
        add_type(module, &event_spec, &st->EventType) < 0 || add_type(module, &prop_spec, &st->DevicePropType) < 0)
        return -1;
    /* default_stream: s == NULL, the default stream of the device it is used with. */
    st->default_stream = st->StreamType->tp_alloc(st->StreamType, 0);
    if (st->default_stream == NULL) return -1;
    if (PyModule_AddObjectRef(module, "default_stream", st->default_stream) < 0) return -1;
    return PyModule_AddFunctions(module, device_functions);
}
