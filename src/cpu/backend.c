/* cpu/backend.c: the CPU backend table (core/backend.h): host memory, the
 * device, stream and event entries, and the compute entries of the family files
 * (cpu.h).
 *
 * Host memory is 64-byte aligned (one cache line, and the widest SIMD vector,
 * AVX-512) and sizes are rounded up to a multiple of 64, so a zero-byte request
 * still returns a unique, freeable pointer. Blocks of 4 MiB and more are advised
 * to use transparent huge pages (as NumPy does): a streaming kernel over 4 KiB
 * pages spends a third of its time on TLB misses (a 64 MiB uint8 sum: 3.3 ms
 * against 2.0 ms on huge pages). The advice is a hint; failure is harmless.
 *
 * The host is one device. Work runs as it is submitted, so a stream is always
 * complete: its handle is NULL, synchronising returns at once, waiting on an
 * event is a no-op. An event records the host's monotonic clock, so elapsed
 * times between two records are real. Device properties describe the host the
 * way augpy's CudaDeviceProp can: name from /proc/cpuinfo's "model name", one
 * "multiprocessor" with one "core" per usable CPU, host memory as global memory,
 * L2 size as the C library reports it, warp size and block limits 1 (one
 * thread per work item), CUDA's grid limits; the rest 0. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <stdint.h>
#include <sys/mman.h>
#endif
#include "cpu.h"
#include "cpu/jpeg.h"
#include "cpu/pool.h"
#include "core/blur.h"
#include "core/lighting.h"
#include "core/colour.h"
#include "core/normalize.h"
#include "core/random.h"
#include "core/warp.h"
#include "core/resize.h"
#include "core/tensor_impl.h"

#define CPU_ALIGN 64
#define CPU_HUGE_MIN ((size_t)4 << 20)
#define CPU_HUGE_PAGE ((size_t)2 << 20)

static void *cpu_alloc(int device_id, size_t nbytes, void *stream) {
    (void)device_id, (void)stream;
    if (nbytes > SIZE_MAX - CPU_ALIGN) return NULL;
    size_t rounded = (nbytes + CPU_ALIGN - 1) / CPU_ALIGN * CPU_ALIGN;
    if (rounded == 0) rounded = CPU_ALIGN;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (rounded >= CPU_HUGE_MIN && rounded <= SIZE_MAX - CPU_HUGE_PAGE) {
        /* a block of whole 2 MiB pages, so that all of it (not only its aligned
         * interior) can be backed by transparent huge pages: a stream over a
         * 64 MiB tensor read 6% faster */
        size_t whole = (rounded + CPU_HUGE_PAGE - 1) / CPU_HUGE_PAGE * CPU_HUGE_PAGE;
        void *p = aligned_alloc(CPU_HUGE_PAGE, whole);
        if (p) (void)madvise(p, whole, MADV_HUGEPAGE);
        return p;
    }
#endif
    return aligned_alloc(CPU_ALIGN, rounded);
}

static void cpu_free(int device_id, void *ptr, size_t nbytes, void *stream) {
    (void)device_id, (void)nbytes, (void)stream;
    free(ptr);
}

static aug_status cpu_memcpy(void *dst, aug_device dst_dev, const void *src, aug_device src_dev, size_t n,
                             void *stream, int blocking) {
    (void)stream, (void)blocking;
    if (dst_dev.type != AUG_DEVICE_CPU || src_dev.type != AUG_DEVICE_CPU) {
        char a[48], b[48];
        return aug__error(AUG_ERR_VALUE, "aug_copy", "the cpu backend cannot copy from %s to %s",
                          aug__device_str(src_dev, a, sizeof a), aug__device_str(dst_dev, b, sizeof b));
    }
    if (n > 0) memmove(dst, src, n);
    return AUG_OK;
}

/* ---- devices ------------------------------------------------------------------------------ */

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

static size_t host_total_memory(void) {
    long long kib = meminfo_kib("MemTotal");
    if (kib >= 0) return (size_t)kib * 1024;
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (size_t)pages * (size_t)size : 0;
}

static int cpu_device_count(void) { return 1; }

static aug_status cpu_device_props(int device_id, aug_device_props *p) {
    (void)device_id;
    if (!proc_field("/proc/cpuinfo", "model name", p->name, sizeof p->name)) snprintf(p->name, sizeof p->name, "cpu");
    int cores = usable_cores();
    p->multiProcessorCount = cores;
    p->coresPerMultiprocessor = 1;
    p->numCudaCores = cores;
    p->totalGlobalMem = host_total_memory();
#ifdef _SC_LEVEL2_CACHE_SIZE
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    p->l2CacheSize = l2 > 0 ? (int)l2 : 0;
#endif
    p->warpSize = 1;
    p->maxThreadsPerBlock = 1;
    p->maxThreadsPerMultiProcessor = 1;
    p->maxThreadsDim[0] = p->maxThreadsDim[1] = p->maxThreadsDim[2] = 1;
    p->maxGridSize[0] = 2147483647;
    p->maxGridSize[1] = p->maxGridSize[2] = 65535;
    return AUG_OK;
}

/* used = total - MemAvailable (MemFree on old kernels). */
static aug_status cpu_meminfo(int device_id, size_t *used, size_t *free_bytes, size_t *total) {
    (void)device_id;
    size_t t = host_total_memory();
    long long avail = meminfo_kib("MemAvailable");
    if (avail < 0) avail = meminfo_kib("MemFree");
    size_t f = avail < 0 ? 0 : (size_t)avail * 1024;
    if (f > t) f = t;
    *total = t;
    *free_bytes = f;
    *used = t - f;
    return AUG_OK;
}

static aug_status cpu_release(int device_id) {
    (void)device_id; /* host memory is not cached */
    return AUG_OK;
}

/* ---- streams and events ---------------------------------------------------------------- */

static aug_status cpu_stream_new(int device_id, int priority, void **handle) {
    (void)device_id, (void)priority;
    *handle = NULL;
    return AUG_OK;
}
static void cpu_stream_free(int device_id, void *handle) { (void)device_id, (void)handle; }
static aug_status cpu_stream_sync(int device_id, void *handle) { (void)device_id, (void)handle; return AUG_OK; }
static int cpu_stream_query(int device_id, void *handle) { (void)device_id, (void)handle; return 1; }
static aug_status cpu_stream_wait(int device_id, void *stream, void *event) {
    (void)device_id, (void)stream, (void)event;
    return AUG_OK;
}
static aug_status cpu_synchronize(int device_id) { (void)device_id; return AUG_OK; }

/* The run entry: every compute family of the registry (core/backend.h), each by
 * its function aug__cpu_<entry>, interruptible (aug_set_interrupt_check,
 * cpu/pool.c): a plan whose tasks were cut short by the caller's interrupt check
 * returns AUG_ERR_INTERRUPTED; its output holds partial results. */
static aug_status cpu_run(aug__family family, const void *plan) {
    (void)aug__interrupt_take();
    aug_status st;
    const char *func;
    switch (family) {
#define X_(F, entry, plan_t, what)                                                                  \
    case AUG__FAMILY_##F:                                                                           \
        st = aug__cpu_##entry((const plan_t *)plan), func = ((const plan_t *)plan)->func;           \
        break;
        AUG__COMPUTE_FAMILIES(X_)
#undef X_
    default: return aug__error(AUG_ERR_VALUE, "aug__cpu_backend", "no compute family %d", (int)family);
    }
    if (!aug__interrupt_take()) return st;
    return aug__error(AUG_ERR_INTERRUPTED, func, "interrupted; the output holds partial results");
}
static void cpu_priority_range(int device_id, int *least, int *greatest) {
    (void)device_id;
    *least = *greatest = 0;
}

typedef struct cpu_event {
    double ms;    /* monotonic clock at the last record */
    int recorded;
} cpu_event;

static aug_status cpu_event_new(int device_id, void **handle) {
    (void)device_id;
    *handle = calloc(1, sizeof(cpu_event));
    return *handle ? AUG_OK : AUG__NOMEM("aug_event_new");
}
static void cpu_event_free(int device_id, void *handle) { (void)device_id, free(handle); }
static aug_status cpu_event_record(int device_id, void *event, void *stream) {
    (void)device_id, (void)stream;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    cpu_event *e = event;
    e->ms = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
    e->recorded = 1;
    return AUG_OK;
}
static int cpu_event_query(int device_id, void *event) { (void)device_id, (void)event; return 1; }
static aug_status cpu_event_sync(int device_id, void *event) { (void)device_id, (void)event; return AUG_OK; }
static aug_status cpu_event_elapsed(int device_id, void *start, void *end, float *ms) {
    (void)device_id;
    const cpu_event *a = start, *b = end; /* the core checked that both were recorded */
    *ms = (float)(b->ms - a->ms);
    return AUG_OK;
}

const aug__backend aug__cpu_backend = {
    .name = "cpu",
    .type = AUG_DEVICE_CPU,
    .device_count = cpu_device_count,
    .device_props = cpu_device_props,
    .alloc = cpu_alloc,
    .free = cpu_free,
    .memcpy = cpu_memcpy,
    .meminfo = cpu_meminfo,
    .release = cpu_release,
    .host_alloc = NULL,
    .host_free = NULL,
    .stream_new = cpu_stream_new,
    .stream_free = cpu_stream_free,
    .stream_sync = cpu_stream_sync,
    .stream_query = cpu_stream_query,
    .stream_wait = cpu_stream_wait,
    .event_new = cpu_event_new,
    .event_free = cpu_event_free,
    .event_record = cpu_event_record,
    .event_query = cpu_event_query,
    .event_sync = cpu_event_sync,
    .event_elapsed = cpu_event_elapsed,
    .synchronize = cpu_synchronize,
    .priority_range = cpu_priority_range,
    .supports = NULL, /* the CPU runs every plan */
    .run = cpu_run,
    .jpeg_new = aug__cpu_jpeg_open,
    .jpeg_free = aug__cpu_jpeg_close,
    .jpeg_header = aug__cpu_jpeg_header_entry,
    .jpeg_decode = aug__cpu_jpeg_decode_entry,
    .jpeg_describe = aug__libjpeg_describe,
    .jpeg_decode_region = aug__libjpeg_decode_region,
};
