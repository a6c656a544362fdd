/* cuda/memory.cu: device memory for the CUDA backend: a stream-ordered caching
 * pool, page-locked host memory, copies and memory info (semantics §4).
 *
 * cudaMalloc and cudaFree synchronise the device and cost tens of
 * microseconds, so freed blocks are kept per device and handed out again. A
 * block freed while work queued on stream S may still use it is reused at once
 * by allocations for S (stream order puts the new work after the old), and by
 * allocations for any other stream only once an event recorded on S at the
 * free has completed. (Work queued on streams other than the freeing thread's
 * current stream must be synchronised by the caller before the free, as with
 * PyTorch's allocator.) Pools, events and stream handles are per device: every
 * entry makes its device current first, so the NULL handle of a block is that
 * device's legacy stream. A peer copy (cudaMemcpyPeerAsync, queued on the
 * source device's stream) does not follow that rule by itself: its caller
 * (core/transfer.c) orders it after the work queued on the destination's
 * current stream (which a block handed out at once may still be used by) and
 * before the later work there (which a free of the destination covers).
 *
 * When cudaMalloc fails, the pool returns every idle block to the device and
 * tries once more; a second failure is AUG_ERR_MEMORY (augpy.MemoryError). A
 * sticky error (an earlier kernel fault) is no lack of memory: it is recorded
 * as a broken context (AUG_ERR_CUDA, aug__cuda_broken), which the core keeps.
 *
 * Sizes are rounded up to 512 bytes (1 MiB above 1 MiB), and a cached block
 * serves a request of at least half its size, so a pool of mixed tensor sizes
 * stays compact.
 *
 * fork(): the pool locks are taken around fork (pthread_atfork) so the child's
 * lists are consistent and its locks free; a child cannot use a CUDA context
 * its parent created anyway (its calls fail with CudaError), but it must not
 * hang on a lock a parent thread held. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "cuda/cuda.h"

#define SMALL_ROUND ((size_t)512)
#define LARGE_ROUND ((size_t)1 << 20)

typedef struct block {
    void *ptr;
    size_t size;
    cudaStream_t stream; /* the stream the freeing thread had */
    cudaEvent_t event;   /* recorded on stream at the free */
    struct block *next;
} block;

typedef struct pool {
    pthread_mutex_t mu;
    block *free_list;
    block *spare;        /* unused block records */
    cudaEvent_t *events; /* idle events (timing disabled) */
    int nevents, cap_events;
} pool;

static pool *pools;
static int npools;
static pthread_mutex_t host_mu = PTHREAD_MUTEX_INITIALIZER; /* the page-locked cache (below) */
static void host_drain(void);
static void host_track(const void *p, size_t n, int dev, cudaStream_t s);

static void atfork_prepare(void) {
    for (int i = 0; i < npools; i++) pthread_mutex_lock(&pools[i].mu);
    pthread_mutex_lock(&host_mu);
}
static void atfork_parent(void) {
    pthread_mutex_unlock(&host_mu);
    for (int i = npools - 1; i >= 0; i--) pthread_mutex_unlock(&pools[i].mu);
}
static void atfork_child(void) {
    for (int i = 0; i < npools; i++) pthread_mutex_init(&pools[i].mu, NULL);
    pthread_mutex_init(&host_mu, NULL);
}

int aug__cuda_pool_init(int ndevices) {
    pools = (pool *)calloc((size_t)ndevices, sizeof(pool));
    if (!pools) return 0;
    for (int i = 0; i < ndevices; i++) pthread_mutex_init(&pools[i].mu, NULL);
    npools = ndevices;
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
    return aug__cuda_staging_init(ndevices);
}

static size_t rounded(size_t n) {
    size_t r = n < LARGE_ROUND ? SMALL_ROUND : LARGE_ROUND;
    if (n == 0) return SMALL_ROUND;
    return n > SIZE_MAX - r ? 0 : (n + r - 1) / r * r;
}

/* An idle event, or a new one (caller holds the lock and has set the device). */
static cudaEvent_t take_event(pool *p) {
    if (p->nevents > 0) return p->events[--p->nevents];
    cudaEvent_t e = NULL;
    if (cudaEventCreateWithFlags(&e, cudaEventDisableTiming) != cudaSuccess) return NULL;
    return e;
}

static void give_event(pool *p, cudaEvent_t e) {
    if (!e) return;
    if (p->nevents == p->cap_events) {
        int cap = p->cap_events ? 2 * p->cap_events : 16;
        cudaEvent_t *n = (cudaEvent_t *)realloc(p->events, (size_t)cap * sizeof *n);
        if (!n) {
            cudaEventDestroy(e);
            return;
        }
        p->events = n;
        p->cap_events = cap;
    }
    p->events[p->nevents++] = e;
}

/* A cached block for size on stream, unlinked; NULL if none fits (lock held). */
static block *take_block(pool *p, size_t size, cudaStream_t stream) {
    block **best = NULL;
    for (block **b = &p->free_list; *b; b = &(*b)->next) {
        block *c = *b;
        if (c->size < size || c->size / 2 > size) continue;
        if (best && (*best)->size <= c->size) continue;
        if (c->stream != stream && c->event && cudaEventQuery(c->event) != cudaSuccess) {
            cudaGetLastError(); /* cudaErrorNotReady: still in use, and not an error to report */
            continue;
        }
        best = b;
        if (c->size == size) break;
    }
    if (!best) return NULL;
    block *c = *best;
    *best = c->next;
    return c;
}

/* Returns every idle block of the pool to the device (lock held, device set). */
static void drain(pool *p) {
    block *b = p->free_list;
    p->free_list = NULL;
    while (b) {
        block *next = b->next;
        if (b->event) {
            cudaEventSynchronize(b->event);
            give_event(p, b->event);
        }
        cudaFree(b->ptr);
        b->next = p->spare;
        p->spare = b;
        b = next;
    }
}

/* aug__cuda_alloc; *recorded: 1 when an error other than a lack of memory was
 * recorded for func (the device could not be made current, a broken context). */
static void *alloc_block(const char *func, int device_id, size_t nbytes, void *stream, int *recorded) {
    *recorded = 0;
    if (device_id < 0 || device_id >= npools) return NULL;
    size_t size = rounded(nbytes);
    if (size == 0) return NULL;
    if (aug__cuda_use(func, device_id) != AUG_OK) {
        *recorded = 1;
        return NULL;
    }
    pool *p = &pools[device_id];
    pthread_mutex_lock(&p->mu);
    void *ptr = NULL;
    block *b = take_block(p, size, (cudaStream_t)stream);
    if (b) {
        ptr = b->ptr;
        give_event(p, b->event);
        b->next = p->spare;
        p->spare = b;
    } else {
        cudaError_t e = cudaMalloc(&ptr, size);
        if (e != cudaSuccess && !aug__cuda_sticky(e)) {
            cudaGetLastError(); /* the failed allocation is not a sticky error */
            drain(p);
            e = cudaMalloc(&ptr, size);
        }
        if (e != cudaSuccess) {
            ptr = NULL;
            if (aug__cuda_sticky(e)) {
                aug__cuda_broken(func, e, "cudaMalloc");
                *recorded = 1;
            } else {
                cudaGetLastError();
            }
        }
    }
    pthread_mutex_unlock(&p->mu);
    return ptr;
}

void *aug__cuda_alloc(int device_id, size_t nbytes, void *stream) {
    int recorded;
    return alloc_block("aug_alloc", device_id, nbytes, stream, &recorded); /* the core reports a NULL */
}

void aug__cuda_free(int device_id, void *ptr, size_t nbytes, void *stream) {
    if (!ptr || device_id < 0 || device_id >= npools) return;
    if (aug__cuda_use("aug_free", device_id) != AUG_OK) return;
    pool *p = &pools[device_id];
    pthread_mutex_lock(&p->mu);
    block *b = p->spare;
    if (b) p->spare = b->next;
    else b = (block *)malloc(sizeof *b);
    cudaEvent_t e = b ? take_event(p) : NULL;
    if (!b || !e || cudaEventRecord(e, (cudaStream_t)stream) != cudaSuccess) {
        /* no record to cache it with: wait for the stream, then return it */
        cudaGetLastError();
        cudaStreamSynchronize((cudaStream_t)stream);
        cudaFree(ptr);
        give_event(p, e);
        if (b) {
            b->next = p->spare;
            p->spare = b;
        }
    } else {
        b->ptr = ptr;
        b->size = rounded(nbytes);
        b->stream = (cudaStream_t)stream;
        b->event = e;
        b->next = p->free_list;
        p->free_list = b;
    }
    pthread_mutex_unlock(&p->mu);
}

aug_status aug__cuda_tmp_upload(const char *func, int device_id, const void *src, size_t n, cudaStream_t stream,
                                void **dst) {
    *dst = aug__cuda_tmp_alloc(func, device_id, n, stream);
    if (!*dst) return AUG_ERR_MEMORY; /* tmp_alloc records its error */
    aug_status st = aug__cuda_upload(func, *dst, src, n, stream);
    if (st != AUG_OK) {
        aug__cuda_tmp_free(device_id, *dst, n, stream);
        *dst = NULL;
    }
    return st;
}

void *aug__cuda_tmp_alloc(const char *func, int device_id, size_t nbytes, cudaStream_t stream) {
    int recorded;
    void *p = alloc_block(func, device_id, nbytes, stream, &recorded);
    if (!p && !recorded)
        aug__error(AUG_ERR_MEMORY, func, "out of memory (failed to allocate %zu bytes on cuda:%d)", nbytes, device_id);
    return p;
}

void aug__cuda_tmp_free(int device_id, void *ptr, size_t nbytes, cudaStream_t stream) {
    aug__cuda_free(device_id, ptr, nbytes, stream);
}

aug_status aug__cuda_release(int device_id) {
    static const char func[] = "aug_device_release";
    aug_status st = aug__cuda_use(func, device_id);
    if (st) return st;
    pool *p = &pools[device_id];
    pthread_mutex_lock(&p->mu);
    drain(p);
    pthread_mutex_unlock(&p->mu);
    host_drain();
    aug__cuda_use(func, device_id);
    return AUG_OK;
}

aug_status aug__cuda_meminfo(int device_id, size_t *used, size_t *free_bytes, size_t *total) {
    static const char func[] = "aug_device_meminfo";
    aug_status st = aug__cuda_use(func, device_id);
    if (st) return st;
    size_t f = 0, t = 0;
    AUG_CUDA(func, cudaMemGetInfo(&f, &t));
    *free_bytes = f;
    *total = t;
    *used = t > f ? t - f : 0;
    return AUG_OK;
}

/* ---- host memory and copies ------------------------------------------------------------ */

/* Page-locked host memory (aug_host_alloc: numpy(blocking=False), the decoders'
 * staging) is cached too: cudaMallocHost and cudaFreeHost synchronise the device.
 * Every asynchronous copy from or to a block goes through aug__cuda_memcpy,
 * which records the block's event after it (a copy on another stream first
 * waits for the previous one, so the event covers every copy queued so far);
 * a freed block is handed out again only once that event has completed, so a
 * block freed with its copy still queued is never overwritten under it. At most
 * HOST_CACHE bytes are kept; beyond, a free returns the block (waiting). */
#define HOST_CACHE ((size_t)256 << 20)

typedef struct hblock {
    void *ptr;
    size_t size;
    int event_dev;     /* the device of event */
    cudaEvent_t event; /* recorded after the last copy queued from or to the block, or NULL */
    struct hblock *next;
} hblock;

static hblock *host_live, *host_idle;
static size_t host_idle_bytes;

static int host_event_done(hblock *b) {
    if (!b->event) return 1;
    int cur = -1;
    cudaGetDevice(&cur);
    if (cur != b->event_dev) cudaSetDevice(b->event_dev);
    cudaError_t e = cudaEventQuery(b->event);
    if (cur >= 0 && cur != b->event_dev) cudaSetDevice(cur);
    if (e != cudaSuccess) cudaGetLastError(); /* not ready: not an error to report */
    return e == cudaSuccess;
}

void *aug__cuda_host_alloc(size_t nbytes) {
    size_t size = rounded(nbytes ? nbytes : 1);
    if (size == 0) return NULL;
    pthread_mutex_lock(&host_mu);
    hblock **best = NULL;
    for (hblock **b = &host_idle; *b; b = &(*b)->next) {
        hblock *c = *b;
        if (c->size < size || c->size / 2 > size) continue;
        if (best && (*best)->size <= c->size) continue;
        if (!host_event_done(c)) continue; /* a copy still reads or writes it */
        best = b;
        if (c->size == size) break;
    }
    hblock *c = NULL;
    if (best) {
        c = *best;
        *best = c->next;
        host_idle_bytes -= c->size;
    } else if ((c = (hblock *)calloc(1, sizeof *c)) != NULL) {
        if (cudaMallocHost(&c->ptr, size) != cudaSuccess) {
            cudaGetLastError();
            free(c);
            c = NULL;
        } else {
            c->size = size;
        }
    }
    if (c) {
        c->next = host_live;
        host_live = c;
    }
    pthread_mutex_unlock(&host_mu);
    return c ? c->ptr : NULL;
}

/* The live block holding [p, p + n), unlinked when unlink; NULL if none (lock held). */
static hblock *host_find(const void *p, size_t n, int unlink) {
    for (hblock **b = &host_live; *b; b = &(*b)->next) {
        hblock *c = *b;
        if ((const char *)p < (const char *)c->ptr || (size_t)((const char *)p - (const char *)c->ptr) > c->size ||
            n > c->size - (size_t)((const char *)p - (const char *)c->ptr))
            continue;
        if (unlink) *b = c->next;
        return c;
    }
    return NULL;
}

static void host_release_block(hblock *c) {
    if (c->event) {
        cudaSetDevice(c->event_dev);
        cudaEventDestroy(c->event);
    }
    cudaFreeHost(c->ptr); /* waits for the device */
    free(c);
}

void aug__cuda_host_free(void *ptr) {
    if (!ptr) return;
    pthread_mutex_lock(&host_mu);
    hblock *c = host_find(ptr, 0, 1);
    const int cache = c && host_idle_bytes + c->size <= HOST_CACHE;
    if (cache) {
        c->next = host_idle;
        host_idle = c;
        host_idle_bytes += c->size;
    }
    pthread_mutex_unlock(&host_mu);
    if (!c) {
        cudaFreeHost(ptr); /* not from the cache */
    } else if (!cache) {
        int cur = -1;
        cudaGetDevice(&cur);
        host_release_block(c);
        if (cur >= 0) cudaSetDevice(cur);
    }
}

void aug__cuda_host_free_after(void *ptr, size_t nbytes, int device_id, cudaStream_t stream) {
    if (!ptr) return;
    host_track(ptr, nbytes, device_id, stream);
    aug__cuda_host_free(ptr);
}

/* Returns the idle page-locked blocks (aug_device_release; waits for the device). */
static void host_drain(void) {
    pthread_mutex_lock(&host_mu);
    hblock *b = host_idle;
    host_idle = NULL;
    host_idle_bytes = 0;
    pthread_mutex_unlock(&host_mu);
    while (b) {
        hblock *next = b->next;
        host_release_block(b);
        b = next;
    }
}

/* After a copy queued on s (of device dev) from or to host memory p: the event
 * of p's block, if p is in one, now follows that copy. */
static void host_track(const void *p, size_t n, int dev, cudaStream_t s) {
    pthread_mutex_lock(&host_mu);
    hblock *c = host_find(p, n, 0);
    if (c) {
        if (c->event && c->event_dev != dev) { /* another device's: s waits for it, then one of dev */
            if (!host_event_done(c)) cudaStreamWaitEvent(s, c->event, 0);
            cudaSetDevice(c->event_dev);
            cudaEventDestroy(c->event);
            cudaSetDevice(dev);
            c->event = NULL;
        }
        if (c->event && !host_event_done(c)) cudaStreamWaitEvent(s, c->event, 0); /* covers the earlier copy */
        if (!c->event && cudaEventCreateWithFlags(&c->event, cudaEventDisableTiming) != cudaSuccess) c->event = NULL;
        c->event_dev = dev;
        if (c->event && cudaEventRecord(c->event, s) != cudaSuccess) {
            cudaGetLastError();
            cudaStreamSynchronize(s); /* no record: the copy is done when the block is reused */
        }
    }
    pthread_mutex_unlock(&host_mu);
}

aug_status aug__cuda_memcpy(void *dst, aug_device dst_dev, const void *src, aug_device src_dev, size_t n,
                            void *stream, int blocking) {
    static const char func[] = "aug_copy";
    if (n == 0) return AUG_OK;
    cudaStream_t s = (cudaStream_t)stream;
    int src_cuda = src_dev.type == AUG_DEVICE_CUDA, dst_cuda = dst_dev.type == AUG_DEVICE_CUDA;
    aug_status st = aug__cuda_use(func, src_cuda ? src_dev.id : dst_dev.id);
    if (st) return st;
    /* A blocking upload of at most AUG__STAGED_UPLOAD_MAX bytes goes through the
     * staging ring: the host bytes are in page-locked memory when the call returns
     * (the caller may free or reuse its buffer at once) and the copy is queued on
     * s, no host wait (without page-locked memory the ring's upload waits, as a
     * blocking copy did). A larger one waits below. */
    if (blocking && !src_cuda && dst_cuda && n <= AUG__STAGED_UPLOAD_MAX) return aug__cuda_upload(func, dst, src, n, s);
    /* Within one device's memory a blocking copy is only queued: whatever reads the
     * destination (an op, a read back to the host) is queued on a stream after it,
     * and the source's memory is freed stream-ordered, as an op's operands are. */
    if (blocking && src_cuda && dst_cuda && src_dev.id == dst_dev.id) blocking = 0;
    if (src_cuda && dst_cuda && src_dev.id != dst_dev.id) /* s: the source's; ordered by the caller */
        AUG_CUDA(func, cudaMemcpyPeerAsync(dst, dst_dev.id, src, src_dev.id, n, s));
    else
        AUG_CUDA(func, cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, s));
    if (blocking) AUG_CUDA(func, cudaStreamSynchronize(s)); /* a read back, a large upload, a peer copy */
    else if (!src_cuda || !dst_cuda) host_track(src_cuda ? dst : src, n, src_cuda ? src_dev.id : dst_dev.id, s);
    return AUG_OK;
}
