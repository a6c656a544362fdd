/* core/storage.c: reference-counted memory blocks (aug_storage).
 *
 * A storage is either allocated by a backend (freed through that backend when the
 * last reference goes) or wraps foreign memory with a deleter called exactly once.
 * The reference count is atomic, so tensors sharing a storage may be freed from
 * different threads. Backend memory is returned to the backend's pool together
 * with the freeing thread's current stream: work queued there may still use it
 * (core/backend.h). If aug_storage_wrap itself fails (out of memory) the deleter
 * is NOT called: the caller still owns the memory.
 *
 * Small CPU blocks (up to SMALL_BYTES, the results of small ops) hold their data
 * inline, 64-byte aligned like the CPU backend's memory, and are recycled through
 * core/recycle.h instead of two allocations and two frees per tensor. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include "backend.h"
#include "recycle.h"
#include "tensor_impl.h"

struct aug_storage {
    atomic_long refcount;
    void *ptr;
    size_t nbytes;
    aug_device device;
    const aug__backend *backend; /* non-NULL: memory from backend->alloc */
    void (*deleter)(void *ctx);  /* wrapped memory: called once on the last release */
    void *ctx;
    int small;                   /* a small_block from the free list (see below) */
};

/* ---- small CPU blocks ------------------------------------------------------------ */

#define SMALL_BYTES 256

typedef struct small_block {
    aug_storage s;
    _Alignas(64) unsigned char data[SMALL_BYTES];
} small_block;

static small_block *small_get(void) {
    small_block *b = aug__recycle_get(AUG__RECYCLE_STORAGE);
    return b ? b : aligned_alloc(_Alignof(small_block), sizeof(small_block));
}

static void small_put(small_block *b) {
    if (!aug__recycle_put(AUG__RECYCLE_STORAGE, b)) free(b);
}

static aug_status check_device(const char *func, aug_device dev) {
    if (dev.type != AUG_DEVICE_CPU && dev.type != AUG_DEVICE_CUDA)
        return aug__error(AUG_ERR_VALUE, func, "invalid device type %d", (int)dev.type);
    if (dev.id < 0) return aug__error(AUG_ERR_VALUE, func, "invalid device id %d", dev.id);
    return AUG_OK;
}

/* s with one reference to ptr (nbytes on device): memory of backend be, or wrapped
 * memory with its deleter, or (small) a recycled inline block. */
static aug_storage *fill(aug_storage *s, void *ptr, size_t nbytes, aug_device device, const aug__backend *be,
                         void (*deleter)(void *ctx), void *ctx, int small) {
    atomic_init(&s->refcount, 1);
    s->ptr = ptr;
    s->nbytes = nbytes;
    s->device = device;
    s->backend = be;
    s->deleter = deleter;
    s->ctx = ctx;
    s->small = small;
    return s;
}

aug_storage *aug_storage_wrap(void *ptr, size_t nbytes, aug_device device, void (*deleter)(void *ctx),
                              void *ctx) {
    static const char *func = "aug_storage_wrap";
    if (ptr == NULL && nbytes > 0) {
        aug__error(AUG_ERR_VALUE, func, "ptr is NULL but nbytes is %zu", nbytes);
        return NULL;
    }
    if (nbytes > (size_t)INT64_MAX) {
        aug__error(AUG_ERR_OVERFLOW, func, "nbytes %zu is too large", nbytes);
        return NULL;
    }
    if (check_device(func, device) != AUG_OK) return NULL;
    aug_storage *s = malloc(sizeof *s);
    if (!s) {
        AUG__NOMEM(func);
        return NULL;
    }
    return fill(s, ptr, nbytes, device, NULL, deleter, ctx, 0);
}

aug_storage *aug__storage_alloc(const char *func, aug_device dev, size_t nbytes) {
    if (check_device(func, dev) != AUG_OK) return NULL;
    const aug__backend *be = aug__backend_for(func, dev);
    if (!be) return NULL;
    if (nbytes > (size_t)INT64_MAX) {
        aug__error(AUG_ERR_OVERFLOW, func, "allocation of %zu bytes is too large", nbytes);
        return NULL;
    }
    if (dev.type == AUG_DEVICE_CPU && nbytes <= SMALL_BYTES) {
        small_block *b = small_get();
        if (!b) {
            AUG__NOMEM(func);
            return NULL;
        }
        return fill(&b->s, b->data, nbytes, dev, be, NULL, NULL, 1);
    }
    aug_storage *s = malloc(sizeof *s);
    if (!s) {
        AUG__NOMEM(func);
        return NULL;
    }
    unsigned serial = aug__error_serial();
    void *ptr = be->alloc(dev.id, nbytes, aug_stream_handle(aug_current_stream(dev)));
    if (!ptr) {
        free(s);
        if (aug__error_serial() != serial) { /* the backend said why (a broken CUDA context): keep it */
            char why[1024];
            snprintf(why, sizeof why, "%s", aug_last_error_detail());
            aug__error(aug_last_status(), func, "%s", why);
        } else {
            aug__error(AUG_ERR_MEMORY, func, "out of memory (failed to allocate %zu bytes on %s)", nbytes, be->name);
        }
        return NULL;
    }
    return fill(s, ptr, nbytes, dev, be, NULL, NULL, 0);
}

void aug_storage_retain(aug_storage *s) {
    if (s) atomic_fetch_add_explicit(&s->refcount, 1, memory_order_relaxed);
}

void aug_storage_release(aug_storage *s) {
    if (!s) return;
    /* acq_rel: every write made through other references happens-before the free. */
    if (atomic_fetch_sub_explicit(&s->refcount, 1, memory_order_acq_rel) != 1) return;
    if (s->small) {
        small_put((small_block *)(void *)s);
        return;
    }
    if (s->backend)
        s->backend->free(s->device.id, s->ptr, s->nbytes, aug_stream_handle(aug_current_stream(s->device)));
    else if (s->deleter)
        s->deleter(s->ctx);
    free(s);
}

void *aug_storage_ptr(const aug_storage *s) { return s ? s->ptr : NULL; }

size_t aug_storage_nbytes(const aug_storage *s) { return s ? s->nbytes : 0; }

aug_device aug__storage_device(const aug_storage *s) { return s->device; }
