/* cuda/module.cu: the CUDA backend module: its entry point, devices, streams,
 * events, launch shapes, errors, and the backend table (core/backend.h).
 *
 * aug_cuda_module_init is the entry point (aug_cuda_module_probe, cuda/probe.cu,
 * counts the GPUs without starting CUDA). It refuses to start (and
 * says why) when the runtime sees no device: no driver, a driver too old for
 * this runtime, or no GPU; libaug then stays on the CPU. Device facts needed
 * by every launch (SM count, limits) are read once here. Streams and events
 * are the runtime's own objects; the default stream is the legacy stream
 * (handle NULL), as PyTorch and CuPy use by default. A stream or event is used
 * with its own device current (a NULL handle is the legacy stream of the
 * current device), whatever device the calling thread had current. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cuda/cuda.h"

const aug__host_api *aug__cuda_host;

#define MAX_DEVICES 64
static int ndev;
static aug__cuda_dev devs[MAX_DEVICES];

/* ---- errors --------------------------------------------------------------------------- */

/* The module's aug__error (core/error.h): the host records it. */
aug_status aug__error(aug_status st, const char *func, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    aug__cuda_host->verror(st, func, fmt, ap);
    va_end(ap);
    return st;
}

int aug__cuda_sticky(cudaError_t err) {
    switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorTensorMemoryLeak:
    case cudaErrorContained:
    case cudaErrorMpsClientTerminated:
    case cudaErrorExternalDevice: return 1;
    default: return 0;
    }
}

aug_status aug__cuda_broken(const char *func, cudaError_t err, const char *what) {
    int dev = -1;
    cudaGetDevice(&dev);
    cudaGetLastError();
    return aug__error(AUG_ERR_CUDA, func,
                      "the CUDA context of cuda:%d is broken (%s: %s, seen by %s): a kernel faulted earlier, and "
                      "every later CUDA call of this process fails; restart the process",
                      dev, cudaGetErrorName(err), cudaGetErrorString(err), what);
}

aug_status aug__cuda_fail(const char *func, cudaError_t err, const char *what, const char *file, int line) {
    const char *base = strrchr(file, '/');
    if (aug__cuda_sticky(err)) {
        char where[256];
        snprintf(where, sizeof where, "%s (%s:%d)", what, base ? base + 1 : file, line);
        return aug__cuda_broken(func, err, where);
    }
    aug_status st = err == cudaErrorMemoryAllocation ? AUG_ERR_MEMORY : AUG_ERR_CUDA;
    cudaGetLastError(); /* reported here: the next launch check must not see it again */
    return aug__error(st, func, "CUDA error %s (%s) in %s (%s:%d)%s", cudaGetErrorName(err), cudaGetErrorString(err),
                      what, base ? base + 1 : file, line,
                      err == cudaErrorInitializationError ? AUG__CUDA_FORK_HINT : "");
}

aug_status aug__cuda_launched(const char *func, const char *kernel, unsigned blocks, unsigned threads) {
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess) return AUG_OK;
    if (aug__cuda_sticky(err)) {
        char where[256];
        snprintf(where, sizeof where, "the launch of %s", kernel);
        return aug__cuda_broken(func, err, where);
    }
    return aug__error(AUG_ERR_CUDA, func, "the GPU refused the launch of %s with %u blocks of %u threads: %s (%s)",
                      kernel, blocks, threads, cudaGetErrorName(err), cudaGetErrorString(err));
}

aug_status aug__cuda_use(const char *func, int device_id) {
    int cur = -1;
    if (cudaGetDevice(&cur) == cudaSuccess && cur == device_id) return AUG_OK;
    AUG_CUDA(func, cudaSetDevice(device_id));
    return AUG_OK;
}

/* ---- devices ----------------------------------------------------------------------------- */

const aug__cuda_dev *aug__cuda_device(int device_id) { return &devs[device_id]; }

static int cuda_device_count(void) { return ndev; }

/* CUDA cores per multiprocessor by compute capability (the CUDA programming
 * guide's throughput tables): 64 FP32 lanes on Volta, Turing and GA100, 128 on
 * every later architecture up to Blackwell (sm_100, sm_120). */
static int cores_per_sm(int major, int minor) {
    if (major <= 5) return 128;
    if (major == 6) return minor == 0 ? 64 : 128;
    if (major == 7) return 64;
    if (major == 8) return minor == 0 ? 64 : 128;
    return 128;
}

static aug_status cuda_device_props(int device_id, aug_device_props *out) {
    static const char func[] = "aug_device_properties";
    struct cudaDeviceProp p;
    AUG_CUDA(func, cudaGetDeviceProperties(&p, device_id));
    snprintf(out->name, sizeof out->name, "%s", p.name);
    out->major = p.major;
    out->minor = p.minor;
    out->multiProcessorCount = p.multiProcessorCount;
    out->coresPerMultiprocessor = cores_per_sm(p.major, p.minor);
    out->numCudaCores = p.multiProcessorCount * out->coresPerMultiprocessor;
    out->totalGlobalMem = p.totalGlobalMem;
    out->totalConstMem = p.totalConstMem;
    out->sharedMemPerBlock = p.sharedMemPerBlock;
    out->sharedMemPerMultiprocessor = p.sharedMemPerMultiprocessor;
    out->regsPerBlock = p.regsPerBlock;
    out->regsPerMultiprocessor = p.regsPerMultiprocessor;
    out->warpSize = p.warpSize;
    out->maxThreadsPerBlock = p.maxThreadsPerBlock;
    out->maxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
    for (int i = 0; i < 3; i++) {
        out->maxThreadsDim[i] = p.maxThreadsDim[i];
        out->maxGridSize[i] = p.maxGridSize[i];
    }
    out->l2CacheSize = p.l2CacheSize;
    out->streamPrioritiesSupported = p.streamPrioritiesSupported;
    int least = 0, greatest = 0;
    aug_status st = aug__cuda_use(func, device_id);
    if (st) return st;
    AUG_CUDA(func, cudaDeviceGetStreamPriorityRange(&least, &greatest));
    out->leastStreamPriority = least;
    out->greatestStreamPriority = greatest;
    return AUG_OK;
}

static void cuda_priority_range(int device_id, int *least, int *greatest) {
    *least = *greatest = 0;
    if (aug__cuda_use("aug_stream_new", device_id) == AUG_OK) cudaDeviceGetStreamPriorityRange(least, greatest);
}

aug__cuda_grid aug__cuda_grid_for(const aug__exec *e, int64_t n, unsigned dflt) {
    const aug__cuda_dev *d = &devs[e->device.id];
    aug__cuda_grid g;
    g.threads = e->launch.threads > 0 ? (unsigned)e->launch.threads : dflt;
    /* never more blocks than items need: the extra ones would only exit */
    const int64_t per = g.threads ? (int64_t)g.threads : 1, need = (n + per - 1) / per;
    const int64_t cap = (int64_t)(e->launch.blocks_per_sm > 0 ? e->launch.blocks_per_sm : 8) * d->sms;
    int64_t want = need < cap ? need : cap;
    if (want < 1) want = 1;
    if (want > d->max_grid_x) want = d->max_grid_x;
    g.blocks = (unsigned)want;
    return g;
}

aug__cuda_grid aug__cuda_grid_occ(const aug__exec *e, int64_t n, unsigned dflt, const void *kernel) {
    aug__cuda_grid g = aug__cuda_grid_for(e, n, dflt);
    if (e->launch.blocks_per_sm > 0 || g.threads < 1 || g.threads > AUG_BLOCK_THREADS) return g;
    int per_sm = 0;
    /* 0 blocks (a block the kernel cannot run) or an error: left to the launch to refuse or report */
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, (int)g.threads, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        return g;
    }
    if (per_sm < 1) return g;
    const int64_t per = g.threads, need = (n + per - 1) / per, cap = (int64_t)per_sm * devs[e->device.id].sms;
    int64_t want = need < cap ? need : cap;
    if (want < 1) want = 1;
    if (want > devs[e->device.id].max_grid_x) want = devs[e->device.id].max_grid_x;
    g.blocks = (unsigned)want;
    return g;
}

/* ---- streams and events ------------------------------------------------------------------ */

static aug_status cuda_stream_new(int device_id, int priority, void **handle) {
    static const char func[] = "aug_stream_new";
    aug_status st = aug__cuda_use(func, device_id);
    if (st) return st;
    cudaStream_t s;
    /* a blocking stream: ordered after the legacy default stream's work, as
     * users of the default stream expect */
    AUG_CUDA(func, cudaStreamCreateWithPriority(&s, cudaStreamDefault, priority));
    *handle = s;
    return AUG_OK;
}

static void cuda_stream_free(int device_id, void *handle) {
    if (aug__cuda_use("aug_stream_free", device_id) != AUG_OK) return;
    cudaStreamSynchronize((cudaStream_t)handle);
    cudaStreamDestroy((cudaStream_t)handle);
}

/* Every stream and event call makes the device of its stream or event current
 * first: the NULL handle is the legacy stream of the CURRENT device, and the
 * driver refuses to record an event onto a stream of another device than the
 * event's (cudaErrorInvalidResourceHandle). */
static aug_status cuda_stream_sync(int device_id, void *handle) {
    static const char func[] = "aug_stream_synchronize";
    aug_status st = aug__cuda_use(func, device_id);
    if (st) return st;
    AUG_CUDA(func, cudaStreamSynchronize((cudaStream_t)handle));
    return AUG_OK;
}

static int cuda_stream_query(int device_id, void *handle) {
    if (aug__cuda_use("aug_stream_query", device_id) != AUG_OK) return -1;
    cudaError_t e = cudaStreamQuery((cudaStream_t)handle);
    if (e == cudaSuccess) return 1;
    if (e == cudaErrorNotReady) return cudaGetLastError(), 0; /* not an error: never left for a launch check */
    aug__cuda_fail("aug_stream_query", e, "cudaStreamQuery", __FILE__, __LINE__);
    return -1;
}

/* The event may be of another device (CUDA orders across devices this way). */
static aug_status cuda_stream_wait(int device_id, void *stream, void *event) {
    static const char func[] = "aug_stream_wait_event";
    aug_status st = aug__cuda_use(func, device_id);
    if (st) return st;
    AUG_CUDA(func, cudaStreamWaitEvent((cudaStream_t)stream, (cudaEvent_t)event, 0));
    return AUG_OK;
}

static aug_status cuda_event_new(int device_id, void **handle) {
    static const char func[] = "aug_event_new";
    aug_status st = aug__cuda_use(func, device_id);
    if (st) return st;
    cudaEvent_t e;
    AUG_CUDA(func, cudaEventCreate(&e));
    *handle = e;
    return AUG_OK;
}

static void cuda_event_free(int device_id, void *handle) {
    if (aug__cuda_use("aug_event_free", device_id) != AUG_OK) return;
    cudaEventDestroy((cudaEvent_t)handle);
}

static aug_status cuda_event_record(int device_id, void *event, void *stream) {
    static const char func[] = "aug_event_record";
    aug_status st = aug__cuda_use(func, device_id);
    if (st) return st;
    AUG_CUDA(func, cudaEventRecord((cudaEvent_t)event, (cudaStream_t)stream));
    return AUG_OK;
}

static int cuda_event_query(int device_id, void *event) {
    if (aug__cuda_use("aug_event_query", device_id) != AUG_OK) return -1;
    cudaError_t e = cudaEventQuery((cudaEvent_t)event);
    if (e == cudaSuccess) return 1;
    if (e == cudaErrorNotReady) return cudaGetLastError(), 0;
    aug__cuda_fail("aug_event_query", e, "cudaEventQuery", __FILE__, __LINE__);
    return -1;
}

static aug_status cuda_event_sync(int device_id, void *event) {
    static const char func[] = "aug_event_synchronize";
    aug_status st = aug__cuda_use(func, device_id);
    if (st) return st;
    AUG_CUDA(func, cudaEventSynchronize((cudaEvent_t)event));
    return AUG_OK;
}

static aug_status cuda_event_elapsed(int device_id, void *start, void *end, float *ms) {
    static const char func[] = "aug_event_elapsed_ms";
    aug_status st = aug__cuda_use(func, device_id);
    if (st) return st;
    AUG_CUDA(func, cudaEventElapsedTime(ms, (cudaEvent_t)start, (cudaEvent_t)end));
    return AUG_OK;
}

static aug_status cuda_synchronize(int device_id) {
    static const char func[] = "aug_synchronize";
    aug_status st = aug__cuda_use(func, device_id);
    if (st) return st;
    AUG_CUDA(func, cudaDeviceSynchronize());
    return AUG_OK;
}

/* Every plan of a family this backend has entries for runs here (elementwise
 * plans of any dtype through the conversion kernels). */
int aug__cuda_supports(const aug__need *need) {
    (void)need;
    return 1;
}

/* ---- the table --------------------------------------------------------------------------- */

/* Every compute family of the registry (core/backend.h), each by its function
 * aug__cuda_<entry>. */
static aug_status cuda_run(aug__family family, const void *plan) {
    switch (family) {
#define X_(F, entry, plan_t, what)                                                                  \
    case AUG__FAMILY_##F: return aug__cuda_##entry((const plan_t *)plan);
        AUG__COMPUTE_FAMILIES(X_)
#undef X_
    default: return aug__error(AUG_ERR_VALUE, "aug_cuda_module", "no compute family %d", (int)family);
    }
}

/* The table, filled by name (nvcc's C++ has no designated initializers). */
static aug__backend make_table(void) {
    aug__backend t;
    memset(&t, 0, sizeof t);
    t.name = "cuda";
    t.type = AUG_DEVICE_CUDA;
    t.device_count = cuda_device_count;
    t.device_props = cuda_device_props;
    t.alloc = aug__cuda_alloc;
    t.free = aug__cuda_free;
    t.memcpy = aug__cuda_memcpy;
    t.meminfo = aug__cuda_meminfo;
    t.release = aug__cuda_release;
    t.host_alloc = aug__cuda_host_alloc;
    t.host_free = aug__cuda_host_free;
    t.stream_new = cuda_stream_new;
    t.stream_free = cuda_stream_free;
    t.stream_sync = cuda_stream_sync;
    t.stream_query = cuda_stream_query;
    t.stream_wait = cuda_stream_wait;
    t.event_new = cuda_event_new;
    t.event_free = cuda_event_free;
    t.event_record = cuda_event_record;
    t.event_query = cuda_event_query;
    t.event_sync = cuda_event_sync;
    t.event_elapsed = cuda_event_elapsed;
    t.synchronize = cuda_synchronize;
    t.priority_range = cuda_priority_range;
    t.supports = aug__cuda_supports;
    t.run = cuda_run;
    /* JPEG: nvJPEG decodes whole files; headers are read and region / scaled
     * decodes done on the host (core/jpeg.c), so those entries stay NULL */
    t.jpeg_new = AUG__CUDA_JPEG(aug__cuda_jpeg_new);
    t.jpeg_free = AUG__CUDA_JPEG(aug__cuda_jpeg_free);
    t.jpeg_decode = AUG__CUDA_JPEG(aug__cuda_jpeg_decode);
    t.jpeg_decode_batch = AUG__CUDA_JPEG(aug__cuda_jpeg_decode_batch);
    t.jpeg_backend = AUG__CUDA_JPEG(aug__cuda_jpeg_backend);
    return t;
}
static const aug__backend cuda_backend = make_table();

/* ---- start ------------------------------------------------------------------------------ */

static char why_buf[512];

extern "C" __attribute__((visibility("default"))) const aug__backend *aug_cuda_module_init(const aug__host_api *host,
                                                                                           const char **why) {
    const char *bad = aug__cuda_host_check(host);
    if (bad) {
        *why = bad;
        return NULL;
    }
    aug__cuda_host = host;
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n <= 0) {
        if (e == cudaSuccess || e == cudaErrorNoDevice)
            snprintf(why_buf, sizeof why_buf, "no CUDA device");
        else if (e == cudaErrorInsufficientDriver && !aug__cuda_driver_present())
            snprintf(why_buf, sizeof why_buf, "no CUDA device (no NVIDIA driver: libcuda.so.1 is not installed)");
        else if (e == cudaErrorInsufficientDriver)
            snprintf(why_buf, sizeof why_buf, "no CUDA device (the NVIDIA driver is older than this CUDA %d.%d module "
                     "needs: %s)", CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10, cudaGetErrorString(e));
        else
            snprintf(why_buf, sizeof why_buf, "no CUDA device (%s: %s)%s", cudaGetErrorName(e), cudaGetErrorString(e),
                     e == cudaErrorInitializationError ? AUG__CUDA_FORK_HINT : "");
        *why = why_buf;
        return NULL;
    }
    if (n > MAX_DEVICES) n = MAX_DEVICES;
    for (int i = 0; i < n; i++) {
        struct cudaDeviceProp p;
        e = cudaGetDeviceProperties(&p, i);
        if (e != cudaSuccess) {
            snprintf(why_buf, sizeof why_buf, "cannot read the properties of cuda:%d (%s)", i, cudaGetErrorString(e));
            *why = why_buf;
            return NULL;
        }
        devs[i].sms = p.multiProcessorCount > 0 ? p.multiProcessorCount : 1;
        devs[i].max_threads = p.maxThreadsPerBlock;
        devs[i].max_grid_x = p.maxGridSize[0] > 0 ? p.maxGridSize[0] : 65535;
        devs[i].major = p.major;
        devs[i].minor = p.minor;
        devs[i].shared_per_block = p.sharedMemPerBlock;
    }
    if (!aug__cuda_pool_init(n)) {
        snprintf(why_buf, sizeof why_buf, "out of memory starting the CUDA memory pool");
        *why = why_buf;
        return NULL;
    }
    ndev = n;
    return &cuda_backend;
}
