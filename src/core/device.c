/* core/device.c: devices, streams, events, synchronisation, memory info and
 * launch settings (aug/device.h; semantics §4), over the backend table.
 *
 * A stream or event is a small core object holding its device and the backend's
 * handle. Each device has one default stream, created on first use and kept for
 * the life of the process; on CUDA its handle is NULL, the legacy default
 * stream, which is what other libraries (PyTorch, CuPy) use by default too.
 * Streams and events belong to the device they were made for, whatever device
 * is current when they are used: the backend's entries get that device's id
 * (a NULL handle is the legacy stream of THAT device). The current device, each
 * device's current stream and the launch settings are thread-local, as in CUDA
 * and the augpy manual.
 *
 * The default device is cuda:0 when a CUDA device is present, else cpu (counted
 * by the CUDA module's probe, without starting CUDA: core/cuda_module.c);
 * AUG_DEVICE=cpu|cuda|cuda:N overrides (semantics §4). A request that cannot be
 * honoured falls back to cpu and records the reason in aug_last_error() (a status
 * of AUG_ERR_CUDA) so the fallback is visible; explicitly requesting an absent
 * cuda device anywhere fails. */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "backend.h"
#include "tensor_impl.h"

/* Device ids a thread can hold a current stream for (per device type). */
#define MAX_DEVICES 64

struct aug_stream {
    aug_device device;
    int priority;
    int is_default;
    void *handle; /* the backend's */
};

struct aug_event {
    aug_device device;
    void *handle;
    int recorded;  /* aug_event_record succeeded once (elapsed times need two such events) */
};

static _Thread_local int tls_has_device;
static _Thread_local aug_device tls_device;
static _Thread_local aug_stream *tls_stream[2][MAX_DEVICES]; /* [cpu, cuda][id]; NULL: default */
static _Thread_local aug__launch tls_launch;

static int type_index(aug_device_type t) { return t == AUG_DEVICE_CUDA ? 1 : 0; }

/* ---- devices ----------------------------------------------------------------------- */

aug_device aug_cpu_device(void) { return (aug_device){AUG_DEVICE_CPU, 0}; }

aug_device aug_default_device(void) {
    static const char func[] = "aug_default_device";
    const char *env = getenv("AUG_DEVICE");
    if (!env || !*env) return aug_device_count(AUG_DEVICE_CUDA) > 0 ? (aug_device){AUG_DEVICE_CUDA, 0} : aug_cpu_device();
    if (strcasecmp(env, "cpu") == 0) return aug_cpu_device();
    if (strncasecmp(env, "cuda", 4) == 0) {
        const char *rest = env + 4;
        char *end = NULL;
        long id = 0;
        if (*rest == ':') {
            id = strtol(rest + 1, &end, 10);
            if (end == rest + 1 || *end || id < 0 || id > INT_MAX) {
                aug__error(AUG_ERR_VALUE, func, "AUG_DEVICE=%s is not one of cpu, cuda, cuda:N; using cpu", env);
                return aug_cpu_device();
            }
        } else if (*rest) {
            aug__error(AUG_ERR_VALUE, func, "AUG_DEVICE=%s is not one of cpu, cuda, cuda:N; using cpu", env);
            return aug_cpu_device();
        }
        int n = aug_device_count(AUG_DEVICE_CUDA);
        if (n == 0)
            aug__error(AUG_ERR_CUDA, func, "AUG_DEVICE=%s requests cuda, but %s; using cpu", env, aug_cuda_status());
        else if (id >= n)
            aug__error(AUG_ERR_CUDA, func, "AUG_DEVICE=%s requests cuda:%ld, but there %s %d CUDA device%s; using cpu",
                       env, id, n == 1 ? "is" : "are", n, n == 1 ? "" : "s");
        else
            return (aug_device){AUG_DEVICE_CUDA, (int)id};
        return aug_cpu_device();
    }
    aug__error(AUG_ERR_VALUE, func, "AUG_DEVICE=%s is not one of cpu, cuda, cuda:N; using cpu", env);
    return aug_cpu_device();
}

int aug_device_count(aug_device_type type) {
    if (type == AUG_DEVICE_CPU) return 1;
    if (type != AUG_DEVICE_CUDA) return 0;
    return aug__cuda_device_count();
}

aug_status aug_device_check(aug_device dev) {
    return aug__backend_for("aug_device_check", dev) ? AUG_OK : aug_last_status();
}

aug_status aug_device_properties(aug_device dev, aug_device_props *out) {
    static const char func[] = "aug_device_properties";
    if (!out) return aug__error(AUG_ERR_VALUE, func, "out is NULL");
    const aug__backend *be = aug__backend_for(func, dev);
    if (!be) return aug_last_status();
    memset(out, 0, sizeof *out);
    return be->device_props(dev.id, out);
}

aug_device aug_current_device(void) {
    if (!tls_has_device) {
        tls_device = aug_default_device();
        tls_has_device = 1;
    }
    return tls_device;
}

aug_status aug_set_current_device(aug_device dev) {
    if (!aug__backend_for("aug_set_current_device", dev)) return aug_last_status();
    tls_device = dev;
    tls_has_device = 1;
    return AUG_OK;
}

/* ---- streams ------------------------------------------------------------------------ */

static aug_stream default_streams[2][MAX_DEVICES];
static pthread_once_t defaults_once = PTHREAD_ONCE_INIT;

static void init_defaults(void) {
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < MAX_DEVICES; i++) {
            default_streams[t][i].device.type = t ? AUG_DEVICE_CUDA : AUG_DEVICE_CPU;
            default_streams[t][i].device.id = i;
            default_streams[t][i].is_default = 1;
        }
}

static aug_status check_id(const char *func, aug_device dev) {
    if (!aug__backend_for(func, dev)) return aug_last_status();
    if (dev.id >= MAX_DEVICES)
        return aug__error(AUG_ERR_VALUE, func, "device id %d is beyond the supported %d", dev.id, MAX_DEVICES);
    return AUG_OK;
}

aug_stream *aug_default_stream(aug_device dev) {
    if (check_id("aug_default_stream", dev) != AUG_OK) return NULL;
    pthread_once(&defaults_once, init_defaults);
    return &default_streams[type_index(dev.type)][dev.id];
}

aug_stream *aug_current_stream(aug_device dev) {
    if (check_id("aug_current_stream", dev) != AUG_OK) return NULL;
    aug_stream *s = tls_stream[type_index(dev.type)][dev.id];
    if (s) return s;
    /* aug_default_stream without checking dev again (every op asks for this) */
    pthread_once(&defaults_once, init_defaults);
    return &default_streams[type_index(dev.type)][dev.id];
}

aug_status aug_set_current_stream(aug_stream *s) {
    if (!s) return aug__error(AUG_ERR_VALUE, "aug_set_current_stream", "stream is NULL");
    tls_stream[type_index(s->device.type)][s->device.id] = s->is_default ? NULL : s;
    return AUG_OK;
}

aug_stream *aug_stream_new(aug_device dev, int priority) {
    static const char func[] = "aug_stream_new";
    if (check_id(func, dev) != AUG_OK) return NULL;
    const aug__backend *be = aug__backend_for(func, dev);
    int least = 0, greatest = 0;
    be->priority_range(dev.id, &least, &greatest);
    if (priority > least || priority < greatest) {
        char name[48];
        aug__error(AUG_ERR_VALUE, func, "priority %d is outside the range of %s: %d (most urgent) to %d (least)",
                   priority, aug__device_str(dev, name, sizeof name), greatest, least);
        return NULL;
    }
    aug_stream *s = calloc(1, sizeof *s);
    if (!s) {
        AUG__NOMEM(func);
        return NULL;
    }
    s->device = dev;
    s->priority = priority;
    if (be->stream_new(dev.id, priority, &s->handle) != AUG_OK) {
        free(s);
        return NULL;
    }
    return s;
}

void aug_stream_free(aug_stream *s) {
    if (!s || s->is_default) return;
    int t = type_index(s->device.type);
    if (tls_stream[t][s->device.id] == s) tls_stream[t][s->device.id] = NULL;
    const aug__backend *be = aug__backend_for("aug_stream_free", s->device);
    if (be) be->stream_free(s->device.id, s->handle);
    free(s);
}

aug_device aug_stream_device(const aug_stream *s) { return s ? s->device : aug_cpu_device(); }
int aug_stream_priority(const aug_stream *s) { return s ? s->priority : 0; }
void *aug_stream_handle(const aug_stream *s) { return s ? s->handle : NULL; }

aug_status aug_stream_synchronize(aug_stream *s) {
    static const char func[] = "aug_stream_synchronize";
    if (!s) return aug__error(AUG_ERR_VALUE, func, "stream is NULL");
    const aug__backend *be = aug__backend_for(func, s->device);
    return be ? be->stream_sync(s->device.id, s->handle) : aug_last_status();
}

int aug_stream_query(aug_stream *s) {
    static const char func[] = "aug_stream_query";
    if (!s) {
        aug__error(AUG_ERR_VALUE, func, "stream is NULL");
        return -1;
    }
    const aug__backend *be = aug__backend_for(func, s->device);
    return be ? be->stream_query(s->device.id, s->handle) : -1;
}

static aug_status check_same_device(const char *func, aug_device a, aug_device b) {
    if (aug__device_eq(a, b)) return AUG_OK;
    char x[48], y[48];
    return aug__error(AUG_ERR_VALUE, func, "the stream is on %s but the event on %s", aug__device_str(a, x, sizeof x),
                      aug__device_str(b, y, sizeof y));
}

/* A stream may wait for an event of another device of its type (CUDA allows it:
 * cuda:1's stream waits for work of cuda:0), not for one of another type. */
aug_status aug_stream_wait_event(aug_stream *s, aug_event *e) {
    static const char func[] = "aug_stream_wait_event";
    if (!s || !e) return aug__error(AUG_ERR_VALUE, func, "%s is NULL", s ? "event" : "stream");
    if (s->device.type != e->device.type) return check_same_device(func, s->device, e->device);
    const aug__backend *be = aug__backend_for(func, s->device);
    if (!be || !aug__backend_for(func, e->device)) return aug_last_status();
    return be->stream_wait(s->device.id, s->handle, e->handle);
}

/* ---- events ------------------------------------------------------------------------- */

aug_event *aug_event_new(aug_device dev) {
    static const char func[] = "aug_event_new";
    const aug__backend *be = aug__backend_for(func, dev);
    if (!be) return NULL;
    aug_event *e = calloc(1, sizeof *e);
    if (!e) {
        AUG__NOMEM(func);
        return NULL;
    }
    e->device = dev;
    if (be->event_new(dev.id, &e->handle) != AUG_OK) {
        free(e);
        return NULL;
    }
    return e;
}

void aug_event_free(aug_event *e) {
    if (!e) return;
    const aug__backend *be = aug__backend_for("aug_event_free", e->device);
    if (be) be->event_free(e->device.id, e->handle);
    free(e);
}

aug_status aug_event_record(aug_event *e, aug_stream *s) {
    static const char func[] = "aug_event_record";
    if (!e) return aug__error(AUG_ERR_VALUE, func, "event is NULL");
    if (!s) s = aug_current_stream(e->device);
    if (!s) return aug_last_status();
    aug_status st = check_same_device(func, s->device, e->device);
    if (st) return st;
    const aug__backend *be = aug__backend_for(func, e->device);
    if (!be) return aug_last_status();
    st = be->event_record(e->device.id, e->handle, s->handle);
    if (st == AUG_OK) e->recorded = 1;
    return st;
}

int aug_event_query(aug_event *e) {
    static const char func[] = "aug_event_query";
    if (!e) {
        aug__error(AUG_ERR_VALUE, func, "event is NULL");
        return -1;
    }
    const aug__backend *be = aug__backend_for(func, e->device);
    return be ? be->event_query(e->device.id, e->handle) : -1;
}

aug_status aug_event_synchronize(aug_event *e) {
    static const char func[] = "aug_event_synchronize";
    if (!e) return aug__error(AUG_ERR_VALUE, func, "event is NULL");
    const aug__backend *be = aug__backend_for(func, e->device);
    return be ? be->event_sync(e->device.id, e->handle) : aug_last_status();
}

aug_status aug_event_elapsed_ms(aug_event *start, aug_event *end, float *ms) {
    static const char func[] = "aug_event_elapsed_ms";
    if (!start || !end || !ms) return aug__error(AUG_ERR_VALUE, func, "an argument is NULL");
    if (!aug__device_eq(start->device, end->device))
        return aug__error(AUG_ERR_VALUE, func, "the events are on different devices");
    if (!start->recorded || !end->recorded)
        return aug__error(AUG_ERR_VALUE, func, "both events must have been recorded");
    const aug__backend *be = aug__backend_for(func, start->device);
    return be ? be->event_elapsed(start->device.id, start->handle, end->handle, ms) : aug_last_status();
}

aug_status aug_synchronize(aug_device dev) {
    const aug__backend *be = aug__backend_for("aug_synchronize", dev);
    return be ? be->synchronize(dev.id) : aug_last_status();
}

/* ---- memory ------------------------------------------------------------------------- */

aug_status aug_device_meminfo(aug_device dev, size_t *used, size_t *free_bytes, size_t *total) {
    static const char func[] = "aug_device_meminfo";
    if (!used || !free_bytes || !total) return aug__error(AUG_ERR_VALUE, func, "an output pointer is NULL");
    const aug__backend *be = aug__backend_for(func, dev);
    return be ? be->meminfo(dev.id, used, free_bytes, total) : aug_last_status();
}

aug_status aug_device_release(aug_device dev) {
    const aug__backend *be = aug__backend_for("aug_device_release", dev);
    return be ? be->release(dev.id) : aug_last_status();
}

/* ---- launch settings and execution contexts -------------------------------------------- */

aug_status aug_set_launch(int blocks_per_sm, int threads) {
    if (blocks_per_sm < 0 || threads < 0)
        return aug__error(AUG_ERR_VALUE, "aug_set_launch", "%s must be >= 0 (0 = automatic), got %d",
                          blocks_per_sm < 0 ? "blocks_per_sm" : "threads", blocks_per_sm < 0 ? blocks_per_sm : threads);
    tls_launch.blocks_per_sm = blocks_per_sm;
    tls_launch.threads = threads;
    return AUG_OK;
}

void aug_get_launch(int *blocks_per_sm, int *threads) {
    if (blocks_per_sm) *blocks_per_sm = tls_launch.blocks_per_sm;
    if (threads) *threads = tls_launch.threads;
}

aug__exec aug__exec_for(aug_device dev) {
    aug__exec e;
    e.device = dev;
    e.stream = aug_current_stream(dev);
    e.stream_handle = e.stream ? e.stream->handle : NULL;
    e.launch = tls_launch;
    return e;
}
