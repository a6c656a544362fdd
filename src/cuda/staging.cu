/* cuda/staging.cu: the page-locked staging ring that carries the parameters of
 * an op (image lists, taps, tables, index offsets) to the device without a host
 * wait (docs/cuda.md, "No host waits inside an op"), and the blocking uploads of
 * at most AUG__STAGED_UPLOAD_MAX bytes (aug__cuda_memcpy: array_to_tensor,
 * Tensor.to, the decoders' fallback while its staging buffers are queued).
 *
 * An upload copies the host bytes into a slot of a ring of page-locked memory
 * (one per device, RING_BYTES, allocated at its first use), queues the copy
 * from the slot to the device buffer on the op's stream and records an event
 * after it. The host buffer may be freed at once, and the call returns while
 * the stream is still busy. A slot is written again only once its event has
 * completed: slots are handed out in order around the ring, and when the next
 * one would overlap a slot still in flight (the ring is full of copies queued
 * behind busy streams) the host waits for that oldest slot alone, the only wait
 * left. An upload larger than CHUNK_BYTES goes through several slots.
 *
 * Each device's ring has its own lock (any thread, any stream of the device);
 * the caller has made the device current. Without page-locked memory (the
 * allocation failed) an upload copies from the caller's memory and waits for
 * the stream, as before the ring. fork(): the locks are re-initialised in the
 * child, which cannot use its parent's CUDA context anyway. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "cuda/cuda.h"

#define RING_BYTES ((size_t)8 << 20)
#define CHUNK_BYTES (RING_BYTES / 4)
#define RING_SLOTS 512
#define SLOT_ALIGN ((size_t)256)

typedef struct slot {
    size_t off, len;
    cudaEvent_t done; /* recorded after the copy out of [off, off + len) */
} slot;

typedef struct ring {
    pthread_mutex_t mu;
    char *buf;      /* RING_BYTES page-locked, or NULL before the first upload */
    int no_pinned;  /* the allocation failed: upload from the caller's memory */
    size_t head;    /* where the next slot starts */
    slot slots[RING_SLOTS]; /* in flight, oldest at first, circular */
    int first, count;
    cudaEvent_t idle[RING_SLOTS]; /* events of retired slots */
    int nidle;
} ring;

static ring *rings;
static int nrings;

static void atfork_child(void) {
    for (int i = 0; i < nrings; i++) pthread_mutex_init(&rings[i].mu, NULL);
}

int aug__cuda_staging_init(int ndevices) {
    rings = (ring *)calloc((size_t)ndevices, sizeof(ring));
    if (!rings) return 0;
    for (int i = 0; i < ndevices; i++) pthread_mutex_init(&rings[i].mu, NULL);
    nrings = ndevices;
    pthread_atfork(NULL, NULL, atfork_child);
    return 1;
}

/* Retires the oldest slot, waiting for its copy if it is still queued (lock held). */
static cudaError_t retire_oldest(ring *r) {
    slot *s = &r->slots[r->first];
    cudaError_t e = cudaEventQuery(s->done);
    if (e == cudaErrorNotReady) {
        cudaGetLastError(); /* not an error: the copy is still queued */
        e = cudaEventSynchronize(s->done); /* the ring is full: the one wait left */
    }
    if (e != cudaSuccess) return e;
    r->idle[r->nidle++] = s->done;
    r->first = (r->first + 1) % RING_SLOTS;
    r->count--;
    return cudaSuccess;
}

/* The offset of n free bytes (n <= RING_BYTES) at the ring's head, retiring the
 * oldest slots in the way (lock held). The live slots lie in [oldest, head)
 * when that does not wrap, else in [oldest, end) and [0, head). */
static cudaError_t reserve(ring *r, size_t n, size_t *off) {
    for (;;) {
        if (r->count == 0) {
            r->head = 0;
            *off = 0;
            return cudaSuccess;
        }
        if (r->count < RING_SLOTS) {
            const size_t oldest = r->slots[r->first].off;
            if (oldest >= r->head) { /* wrapped: free is [head, oldest) */
                if (r->head + n <= oldest) {
                    *off = r->head;
                    return cudaSuccess;
                }
            } else { /* free is [head, end) and [0, oldest) */
                if (r->head + n <= RING_BYTES) {
                    *off = r->head;
                    return cudaSuccess;
                }
                if (n <= oldest) {
                    *off = 0;
                    return cudaSuccess;
                }
            }
        }
        cudaError_t e = retire_oldest(r);
        if (e != cudaSuccess) return e;
    }
}

/* Queues one chunk (n <= CHUNK_BYTES) through a slot (lock held). */
static aug_status stage_chunk(const char *func, ring *r, char *dst, const char *src, size_t n, cudaStream_t stream) {
    size_t off = 0;
    AUG_CUDA(func, reserve(r, n, &off));
    memcpy(r->buf + off, src, n);
    cudaEvent_t done = NULL;
    if (r->nidle > 0) done = r->idle[--r->nidle];
    else AUG_CUDA(func, cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    cudaError_t e = cudaMemcpyAsync(dst, r->buf + off, n, cudaMemcpyHostToDevice, stream);
    if (e == cudaSuccess) e = cudaEventRecord(done, stream);
    if (e != cudaSuccess) {
        r->idle[r->nidle++] = done;
        cudaStreamSynchronize(stream); /* a copy may be queued: the slot stays unused until it is done */
        cudaGetLastError();
        return aug__cuda_fail(func, e, "queueing an upload", __FILE__, __LINE__);
    }
    slot *s = &r->slots[(r->first + r->count) % RING_SLOTS];
    s->off = off;
    s->len = n;
    s->done = done;
    r->count++;
    r->head = off + (n + SLOT_ALIGN - 1) / SLOT_ALIGN * SLOT_ALIGN;
    return AUG_OK;
}

aug_status aug__cuda_upload(const char *func, void *dst, const void *src, size_t n, cudaStream_t stream) {
    if (n == 0) return AUG_OK;
    int dev = -1;
    AUG_CUDA(func, cudaGetDevice(&dev));
    if (dev < 0 || dev >= nrings) return aug__error(AUG_ERR_CUDA, func, "no staging ring for cuda:%d", dev);
    ring *r = &rings[dev];
    pthread_mutex_lock(&r->mu);
    if (!r->buf && !r->no_pinned && cudaMallocHost((void **)&r->buf, RING_BYTES) != cudaSuccess) {
        cudaGetLastError(); /* no page-locked memory: the waiting path below */
        r->buf = NULL;
        r->no_pinned = 1;
    }
    aug_status st = AUG_OK;
    if (!r->buf) {
        cudaError_t e = cudaMemcpyAsync(dst, src, n, cudaMemcpyHostToDevice, stream);
        if (e == cudaSuccess) e = cudaStreamSynchronize(stream); /* src may be freed on return */
        if (e != cudaSuccess) st = aug__cuda_fail(func, e, "uploading host data", __FILE__, __LINE__);
    }
    for (size_t done = 0; r->buf && st == AUG_OK && done < n; done += CHUNK_BYTES) {
        const size_t len = n - done < CHUNK_BYTES ? n - done : CHUNK_BYTES;
        st = stage_chunk(func, r, (char *)dst + done, (const char *)src + done, len, stream);
    }
    pthread_mutex_unlock(&r->mu);
    return st;
}
