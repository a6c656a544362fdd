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

static void atfork_prepare(void) {
    for (int i = 0; i < npools; i++) pthread_mutex_lock(&pools[i].mu);
}
static void atfork_parent(void) {
    for (int i = npools - 1; i >= 0; i--) pthread_mutex_unlock(&pools[i].mu);
}
static void atfork_child(void) {
    for (int i = 0; i < npools; i++) pthread_mutex_init(&pools[i].mu, NULL);
}

int aug__cuda_pool_init(int ndevices) {
    pools = (pool *)calloc((size_t)ndevices, sizeof(pool));
    if (!pools) return 0;
    for (int i = 0; i < ndevices; i++) pthread_mutex_init(&pools[i].mu, NULL);
    npools = ndevices;
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
    return 1;
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

aug_status aug__cuda_upload(const char *func, void *dst, const void *src, size_t n, cudaStream_t stream) {
    AUG_CUDA(func, cudaMemcpyAsync(dst, src, n, cudaMemcpyHostToDevice, stream));
    AUG_CUDA(func, cudaStreamSynchronize(stream));
    return AUG_OK;
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

void *aug__cuda_host_alloc(size_t nbytes) {
    void *p = NULL;
    if (cudaMallocHost(&p, nbytes ? nbytes : 1) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    return p;
}

void aug__cuda_host_free(void *ptr) {
    if (ptr) cudaFreeHost(ptr);
}

aug_status aug__cuda_memcpy(void *dst, aug_device dst_dev, const void *src, aug_device src_dev, size_t n,
                            void *stream, int blocking) {
    static const char func[] = "aug_copy";
    if (n == 0) return AUG_OK;
    cudaStream_t s = (cudaStream_t)stream;
    int src_cuda = src_dev.type == AUG_DEVICE_CUDA, dst_cuda = dst_dev.type == AUG_DEVICE_CUDA;
    aug_status st = aug__cuda_use(func, src_cuda ? src_dev.id : dst_dev.id);
    if (st) return st;
    if (src_cuda && dst_cuda && src_dev.id != dst_dev.id) /* s: the source's; ordered by the caller */
        AUG_CUDA(func, cudaMemcpyPeerAsync(dst, dst_dev.id, src, src_dev.id, n, s));
    else
        AUG_CUDA(func, cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, s));
    if (blocking) AUG_CUDA(func, cudaStreamSynchronize(s));
    return AUG_OK;
}
