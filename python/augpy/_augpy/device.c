/* _augpy/device.c: devices, streams, events, device properties and memory info.
 *
 * The seed's CUDA device API (CudaDevice, CudaStream, CudaEvent, default_stream,
 * get_current_device, get_current_stream, get_device_properties -> CudaDeviceProp,
 * meminfo, release, synchronize) for the CPU backend, where work is synchronous:
 * synchronisation, recording and releasing are no-ops and queries answer "done",
 * so code written for the GPU runs unchanged (SPEC 4). The current device and
 * stream are thread-local, kept in the thread state dict; activate() remembers
 * the previous one and deactivate() restores it, as in the seed.
 *
 * CudaDeviceProp of the CPU: name is /proc/cpuinfo's "model name",
 * multiProcessorCount and numCudaCores are the usable cores (one "core" per
 * "multiprocessor"), totalGlobalMem is the host memory, l2CacheSize the L2 size
 * when the C library reports it; warpSize, maxThreadsPerBlock, maxThreadsDim and
 * maxThreadsPerMultiProcessor are 1 (one thread per work item); maxGridSize is
 * CUDA's (2^31-1, 65535, 65535); register, shared and constant memory sizes,
 * compute capability and stream priorities are 0. */
#include "augpy.h"
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <structmember.h>
#include <unistd.h>

static const char KEY_DEVICE[] = "augpy.current_device";
static const char KEY_STREAM[] = "augpy.current_stream";

/* ---- thread-local current device / stream -------------------------------------------- */

static PyObject *tls_get(const char *key) { /* borrowed or NULL (no error) */
    PyObject *dict = PyThreadState_GetDict();
    return dict ? PyDict_GetItemString(dict, key) : NULL;
}

static int tls_set(const char *key, PyObject *value) { /* value NULL: delete */
    PyObject *dict = PyThreadState_GetDict();
    if (dict == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "augpy: no thread state dict");
        return -1;
    }
    if (value != NULL) return PyDict_SetItemString(dict, key, value);
    if (PyDict_GetItemString(dict, key) != NULL) return PyDict_DelItemString(dict, key);
    return 0;
}

static int current_device_id(void) {
    PyObject *v = tls_get(KEY_DEVICE);
    return v ? (int)PyLong_AsLong(v) : 0;
}

static int parse_device_id(PyObject *obj, int *out, int allow_default, const char *func) {
    if (PyBool_Check(obj) || !PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: device_id must be an int, got %.100s", func, Py_TYPE(obj)->tp_name);
        return -1;
    }
    int overflow = 0;
    long v = PyLong_AsLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (allow_default && v == -1 && !overflow) {
        *out = -1;
        return 0;
    }
    if (overflow || v > INT_MAX || v < INT_MIN) {
        PyErr_Format(PyExc_ValueError, "%s: invalid device_id %R", func, obj);
        return -1;
    }
    aug_device dev;
    if (augpy_device_from_id((int)v, &dev, func) < 0) return -1;
    *out = dev.id;
    return 0;
}

/* ---- CudaDevice ----------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    int device_id;
    int prev;
} DeviceObject;

static PyObject *get_device_properties_impl(augpy_state *st, int device_id);

static PyObject *device_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"device_id", NULL};
    PyObject *id_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:CudaDevice", kwlist, &id_obj)) return NULL;
    int id = 0;
    if (id_obj && parse_device_id(id_obj, &id, 0, "CudaDevice") < 0) return NULL;
    DeviceObject *self = (DeviceObject *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    self->device_id = id;
    self->prev = -1;
    return (PyObject *)self;
}

static PyObject *device_activate(PyObject *self, PyObject *Py_UNUSED(unused)) {
    DeviceObject *d = (DeviceObject *)self;
    d->prev = current_device_id();
    PyObject *v = PyLong_FromLong(d->device_id);
    if (v == NULL) return NULL;
    int r = tls_set(KEY_DEVICE, v);
    Py_DECREF(v);
    if (r < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *device_deactivate(PyObject *self, PyObject *Py_UNUSED(unused)) {
    DeviceObject *d = (DeviceObject *)self;
    if (d->prev >= 0) {
        PyObject *v = PyLong_FromLong(d->prev);
        if (v == NULL) return NULL;
        int r = tls_set(KEY_DEVICE, v);
        Py_DECREF(v);
        if (r < 0) return NULL;
        d->prev = -1;
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
    return PyLong_FromLong(((DeviceObject *)self)->device_id);
}

static PyObject *device_get_properties(PyObject *self, PyObject *Py_UNUSED(unused)) {
    augpy_state *st = augpy_state_from_obj(self);
    return st ? get_device_properties_impl(st, ((DeviceObject *)self)->device_id) : NULL;
}

static PyObject *noop(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(args)) { Py_RETURN_NONE; }

/* synchronize(microseconds=100): nothing is ever pending on the CPU. */
static PyObject *noop_sync(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"microseconds", NULL};
    int us = 100;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|i:synchronize", kwlist, &us)) return NULL;
    Py_RETURN_NONE;
}

static PyObject *device_repr(PyObject *self) {
    aug_device dev = aug_default_device();
    return PyUnicode_FromFormat("<CudaDevice %d (%s)>", ((DeviceObject *)self)->device_id,
                                dev.type == AUG_DEVICE_CPU ? "cpu" : "cuda");
}

static PyMethodDef device_methods[] = {
    {"activate", device_activate, METH_NOARGS,
     "activate() -> None\n--\n\nMake this the current device of this thread and remember the previous one."},
    {"deactivate", device_deactivate, METH_NOARGS,
     "deactivate() -> None\n--\n\nMake the previous device current again."},
    {"get_device", device_get_device, METH_NOARGS, "get_device() -> int\n--\n\nThe device ID."},
    {"get_properties", device_get_properties, METH_NOARGS,
     "get_properties() -> CudaDeviceProp\n--\n\nThe device properties, see get_device_properties."},
    {"synchronize", noop, METH_NOARGS,
     "synchronize() -> None\n--\n\nBlock until all work on this device has finished (CPU: returns at once)."},
    {"__enter__", device_enter, METH_NOARGS, NULL},
    {"__exit__", device_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

static PyType_Slot device_slots[] = {
    {Py_tp_doc, "CudaDevice(device_id: int = 0)\n--\n\nA compute device. On the CPU backend only device 0 exists.\n"
                "Usable as a context manager (activate/deactivate)."},
    {Py_tp_new, device_new},
    {Py_tp_repr, device_repr},
    {Py_tp_methods, device_methods},
    {0, NULL}};

static PyType_Spec device_spec = {"augpy._augpy.CudaDevice", sizeof(DeviceObject), 0,
                                  Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE, device_slots};

/* ---- CudaStream ------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    int device_id;
    int priority;
    int is_default;
    PyObject *prev; /* stream current before activate() */
} StreamObject;

static PyObject *default_stream_of(PyTypeObject *tp) { /* new ref */
    PyObject *module = PyType_GetModule(tp);
    return module ? PyObject_GetAttrString(module, "default_stream") : NULL;
}

static PyObject *stream_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"device_id", "priority", NULL};
    PyObject *id_obj = NULL;
    int priority = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|Oi:CudaStream", kwlist, &id_obj, &priority)) return NULL;
    int id = 0;
    if (id_obj && parse_device_id(id_obj, &id, 1, "CudaStream") < 0) return NULL;
    if (id == -1) {
        /* The seed: device_id=-1 (and priority=-1) names the default stream. */
        PyObject *def = default_stream_of(type);
        if (def != NULL || PyErr_Occurred()) return def;
    }
    StreamObject *self = (StreamObject *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    self->device_id = id < 0 ? 0 : id;
    self->priority = 0; /* priorities are clipped to the device's range, [0, 0] on the CPU */
    self->is_default = id == -1;
    self->prev = NULL;
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
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    stream_clear(self);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyObject *current_stream(PyTypeObject *tp) { /* new ref */
    PyObject *cur = tls_get(KEY_STREAM);
    return cur ? Py_NewRef(cur) : default_stream_of(tp);
}

static PyObject *stream_activate(PyObject *self, PyObject *Py_UNUSED(unused)) {
    StreamObject *s = (StreamObject *)self;
    PyObject *prev = current_stream(Py_TYPE(self));
    if (prev == NULL) return NULL;
    Py_XSETREF(s->prev, prev);
    if (tls_set(KEY_STREAM, self) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *stream_deactivate(PyObject *self, PyObject *Py_UNUSED(unused)) {
    StreamObject *s = (StreamObject *)self;
    if (s->prev != NULL) {
        if (tls_set(KEY_STREAM, s->prev) < 0) return NULL;
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

static PyObject *stream_repr(PyObject *self) {
    StreamObject *s = (StreamObject *)self;
    if (s->is_default) return PyUnicode_FromString("<CudaStream default>");
    return PyUnicode_FromFormat("<CudaStream device_id=%d, priority=%d>", s->device_id, s->priority);
}

static PyObject *query_true(PyObject *Py_UNUSED(self), PyObject *Py_UNUSED(unused)) { Py_RETURN_TRUE; }

static PyMethodDef stream_methods[] = {
    {"activate", stream_activate, METH_NOARGS,
     "activate() -> None\n--\n\nMake this the current stream of this thread and remember the previous one."},
    {"deactivate", stream_deactivate, METH_NOARGS,
     "deactivate() -> None\n--\n\nMake the previous stream current again."},
    {"synchronize", (PyCFunction)(void (*)(void))noop_sync, METH_VARARGS | METH_KEYWORDS,
     "synchronize(microseconds: int = 100) -> None\n--\n\n"
     "Block until all work on this stream has finished (CPU: work is synchronous, returns at once)."},
    {"query", query_true, METH_NOARGS, "query() -> bool\n--\n\nTrue if all work on the stream has finished."},
    {"__enter__", stream_enter, METH_NOARGS, NULL},
    {"__exit__", stream_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

static PyMemberDef stream_members[] = {
    {"device_id", T_INT, offsetof(StreamObject, device_id), READONLY, "Device of the stream."},
    {"priority", T_INT, offsetof(StreamObject, priority), READONLY, "Priority after clipping to the valid range."},
    {NULL, 0, 0, 0, NULL}};

static PyType_Slot stream_slots[] = {
    {Py_tp_doc, "CudaStream(device_id: int = 0, priority: int = 0)\n--\n\n"
                "A computation stream. device_id=-1 (with priority=-1) gives augpy.default_stream. On the CPU\n"
                "work is synchronous and priorities clip to 0. Usable as a context manager."},
    {Py_tp_new, stream_new},
    {Py_tp_dealloc, stream_dealloc},
    {Py_tp_traverse, stream_traverse},
    {Py_tp_clear, stream_clear},
    {Py_tp_repr, stream_repr},
    {Py_tp_methods, stream_methods},
    {Py_tp_members, stream_members},
    {0, NULL}};

static PyType_Spec stream_spec = {"augpy._augpy.CudaStream", sizeof(StreamObject), 0,
                                  Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE, stream_slots};

/* ---- CudaEvent --------------------------------------------------------------------------- */

static PyObject *event_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    if (!PyArg_ParseTuple(args, ":CudaEvent") || (kwargs && PyDict_GET_SIZE(kwargs))) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "CudaEvent: takes no arguments");
        return NULL;
    }
    return type->tp_alloc(type, 0);
}

static PyMethodDef event_methods[] = {
    {"record", noop, METH_NOARGS, "record() -> None\n--\n\nRecord the event on the current stream."},
    {"query", query_true, METH_NOARGS, "query() -> bool\n--\n\nTrue if the event has occurred."},
    {"synchronize", (PyCFunction)(void (*)(void))noop_sync, METH_VARARGS | METH_KEYWORDS,
     "synchronize(microseconds: int = 100) -> None\n--\n\nBlock until the event has occurred."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot event_slots[] = {
    {Py_tp_doc, "CudaEvent()\n--\n\nAn event on the current stream; on the CPU every event has already occurred."},
    {Py_tp_new, event_new},
    {Py_tp_methods, event_methods},
    {0, NULL}};

static PyType_Spec event_spec = {"augpy._augpy.CudaEvent", sizeof(PyObject), 0,
                                 Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE, event_slots};

/* ---- CudaDeviceProp ------------------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    PyObject *name, *maxThreadsDim, *maxGridSize;
    long long totalGlobalMem, sharedMemPerBlock, sharedMemPerMultiprocessor, totalConstMem, l2CacheSize;
    int major, minor, multiProcessorCount, coresPerMultiprocessor, numCudaCores, warpSize;
    int maxThreadsPerBlock, maxThreadsPerMultiProcessor, regsPerBlock, regsPerMultiprocessor;
    int leastStreamPriority, greatestStreamPriority;
    char streamPrioritiesSupported;
} PropObject;

/* First "key : value" line of a /proc file whose key is `key`; 0 if absent. */
static int proc_field(const char *path, const char *key, char *out, size_t outlen) {
    FILE *f = fopen(path, "r");
    if (f == NULL) return 0;
    char line[512];
    size_t klen = strlen(key);
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        if (strncmp(line, key, klen) != 0) continue;
        char *p = line + klen;
        while (*p == ' ' || *p == '\t') p++;
        if (*p != ':') continue;
        p++;
        while (*p == ' ' || *p == '\t') p++;
        size_t n = strcspn(p, "\n");
        if (n >= outlen) n = outlen - 1;
        memcpy(out, p, n);
        out[n] = '\0';
        found = 1;
    }
    fclose(f);
    return found;
}

static long long meminfo_kib(const char *key) {
    char buf[64];
    return proc_field("/proc/meminfo", key, buf, sizeof buf) ? atoll(buf) : -1;
}

static int usable_cores(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static long long host_total_memory(void) {
    long long kib = meminfo_kib("MemTotal");
    if (kib >= 0) return kib * 1024;
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (long long)pages * size : 0;
}

static PyObject *get_device_properties_impl(augpy_state *st, int device_id) {
    (void)device_id; /* validated by the caller; the CPU backend has one device */
    PropObject *p = (PropObject *)st->DevicePropType->tp_alloc(st->DevicePropType, 0);
    if (p == NULL) return NULL;
    char name[256];
    if (!proc_field("/proc/cpuinfo", "model name", name, sizeof name)) strcpy(name, "cpu");
    p->name = PyUnicode_DecodeUTF8(name, (Py_ssize_t)strlen(name), "replace");
    p->maxThreadsDim = Py_BuildValue("(iii)", 1, 1, 1);
    p->maxGridSize = Py_BuildValue("(iii)", 2147483647, 65535, 65535);
    if (!p->name || !p->maxThreadsDim || !p->maxGridSize) {
        Py_DECREF(p);
        return NULL;
    }
    int cores = usable_cores();
    p->totalGlobalMem = host_total_memory();
#ifdef _SC_LEVEL2_CACHE_SIZE
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    p->l2CacheSize = l2 > 0 ? l2 : 0;
#endif
    p->multiProcessorCount = cores;
    p->coresPerMultiprocessor = 1;
    p->numCudaCores = cores;
    p->warpSize = 1;
    p->maxThreadsPerBlock = 1;
    p->maxThreadsPerMultiProcessor = 1;
    return (PyObject *)p;
}

static PyObject *prop_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    if (!PyArg_ParseTuple(args, ":CudaDeviceProp") || (kwargs && PyDict_GET_SIZE(kwargs))) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "CudaDeviceProp: takes no arguments");
        return NULL;
    }
    augpy_state *st = augpy_state_from_type(type);
    return st ? get_device_properties_impl(st, current_device_id()) : NULL;
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
    return PyUnicode_FromFormat("<CudaDeviceProp name=%R, multiProcessorCount=%d, totalGlobalMem=%lld>", p->name,
                                p->multiProcessorCount, p->totalGlobalMem);
}

#define PROP_INT(field, doc) {#field, T_INT, offsetof(PropObject, field), READONLY, doc}
#define PROP_LL(field, doc) {#field, T_LONGLONG, offsetof(PropObject, field), READONLY, doc}
static PyMemberDef prop_members[] = {
    {"name", T_OBJECT, offsetof(PropObject, name), READONLY, "ASCII string identifying the device."},
    PROP_LL(totalGlobalMem, "Global memory available on the device in bytes (CPU: host memory)."),
    PROP_LL(sharedMemPerBlock, "Shared memory available per block in bytes."),
    PROP_LL(sharedMemPerMultiprocessor, "Shared memory available per multiprocessor in bytes."),
    PROP_LL(totalConstMem, "Constant memory available on the device in bytes."),
    PROP_LL(l2CacheSize, "Size of the L2 cache in bytes."),
    PROP_INT(major, "Major compute capability (CPU: 0)."),
    PROP_INT(minor, "Minor compute capability (CPU: 0)."),
    PROP_INT(multiProcessorCount, "Number of multiprocessors on the device (CPU: usable cores)."),
    PROP_INT(coresPerMultiprocessor, "Number of cores per multiprocessor."),
    PROP_INT(numCudaCores, "Total number of cores."),
    PROP_INT(warpSize, "Warp size in threads."),
    PROP_INT(maxThreadsPerBlock, "Maximum number of threads per block."),
    PROP_INT(maxThreadsPerMultiProcessor, "Maximum resident threads per multiprocessor."),
    PROP_INT(regsPerBlock, "32-bit registers available per block."),
    PROP_INT(regsPerMultiprocessor, "32-bit registers available per multiprocessor."),
    PROP_INT(leastStreamPriority, "Lowest priority a stream on this device can have."),
    PROP_INT(greatestStreamPriority, "Highest priority a stream on this device can have."),
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
    {Py_tp_doc, "CudaDeviceProp()\n--\n\nThe cudaDeviceProp fields listed in the manual, plus stream priorities,\n"
                "coresPerMultiprocessor/coresPerSM, numCudaCores and maxGridSize. CudaDeviceProp() describes\n"
                "the current device; see augpy.get_device_properties."},
    {Py_tp_new, prop_new},
    {Py_tp_dealloc, prop_dealloc},
    {Py_tp_repr, prop_repr},
    {Py_tp_members, prop_members},
    {Py_tp_getset, prop_getset},
    {0, NULL}};

static PyType_Spec prop_spec = {"augpy._augpy.CudaDeviceProp", sizeof(PropObject), 0,
                                Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE, prop_slots};

/* ---- module functions -------------------------------------------------------------------- */

static PyObject *get_current_device(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(u)) {
    return PyLong_FromLong(current_device_id());
}

static PyObject *get_current_stream(PyObject *module, PyObject *Py_UNUSED(u)) {
    PyObject *cur = tls_get(KEY_STREAM);
    return cur ? Py_NewRef(cur) : PyObject_GetAttrString(module, "default_stream");
}

static PyObject *get_device_properties(PyObject *module, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"device_id", NULL};
    PyObject *id_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:get_device_properties", kwlist, &id_obj)) return NULL;
    int id = current_device_id();
    if (id_obj && parse_device_id(id_obj, &id, 0, "get_device_properties") < 0) return NULL;
    return get_device_properties_impl(augpy_state_from_module(module), id);
}

static PyObject *meminfo(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"device_id", NULL};
    PyObject *id_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:meminfo", kwlist, &id_obj)) return NULL;
    int id = 0;
    if (id_obj && parse_device_id(id_obj, &id, 0, "meminfo") < 0) return NULL;
    long long total = host_total_memory();
    long long avail = meminfo_kib("MemAvailable");
    if (avail < 0) avail = meminfo_kib("MemFree");
    long long free_bytes = avail < 0 ? 0 : avail * 1024;
    if (free_bytes > total) free_bytes = total;
    return Py_BuildValue("(LLL)", total - free_bytes, free_bytes, total);
}

static PyObject *synchronize(PyObject *Py_UNUSED(m), PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"device_id", NULL};
    PyObject *id_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:synchronize", kwlist, &id_obj)) return NULL;
    int id = 0;
    if (id_obj && id_obj != Py_None && parse_device_id(id_obj, &id, 0, "synchronize") < 0) return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef device_functions[] = {
    {"get_current_device", get_current_device, METH_NOARGS,
     "get_current_device() -> int\n--\n\nThe active device ID of this thread."},
    {"get_current_stream", get_current_stream, METH_NOARGS,
     "get_current_stream() -> CudaStream\n--\n\nThe active stream of this thread (default_stream unless one "
     "was activated)."},
    {"get_device_properties", (PyCFunction)(void (*)(void))get_device_properties, METH_VARARGS | METH_KEYWORDS,
     "get_device_properties(device_id: int = current) -> CudaDeviceProp\n--\n\nProperties of the device."},
    {"meminfo", (PyCFunction)(void (*)(void))meminfo, METH_VARARGS | METH_KEYWORDS,
     "meminfo(device_id: int = 0) -> (used, free, total)\n--\n\n"
     "Used, free and total memory of the device in bytes, in the seed's order (CPU: host memory;\n"
     "free is MemAvailable)."},
    {"release", noop, METH_NOARGS,
     "release() -> None\n--\n\nRelease cached device memory. The CPU backend keeps no cache: a no-op."},
    {"synchronize", (PyCFunction)(void (*)(void))synchronize, METH_VARARGS | METH_KEYWORDS,
     "synchronize(device_id: int = None) -> None\n--\n\nBlock until all work on the device has finished "
     "(CPU: returns at once)."},
    {NULL, NULL, 0, NULL}};

static int add_type(PyObject *module, PyType_Spec *spec, PyTypeObject **slot) {
    *slot = (PyTypeObject *)PyType_FromModuleAndSpec(module, spec, NULL);
    if (*slot == NULL) return -1;
    return PyModule_AddObjectRef(module, strrchr(spec->name, '.') + 1, (PyObject *)*slot);
}

int augpy_init_device(PyObject *module, augpy_state *st) {
    if (add_type(module, &device_spec, &st->DeviceType) < 0 || add_type(module, &stream_spec, &st->StreamType) < 0 ||
        add_type(module, &event_spec, &st->EventType) < 0 || add_type(module, &prop_spec, &st->DevicePropType) < 0)
        return -1;
    StreamObject *def = (StreamObject *)st->StreamType->tp_alloc(st->StreamType, 0);
    if (def == NULL) return -1;
    def->is_default = 1;
    int r = PyModule_AddObjectRef(module, "default_stream", (PyObject *)def);
    Py_DECREF(def);
    if (r < 0) return -1;
    return PyModule_AddFunctions(module, device_functions);
}
