/* core/transfer.c: moving tensors between devices and the host (aug_tensor_to,
 * aug_tensor_read, aug_tensor_write, host buffers, foreign-stream sync).
 *
 * Every transfer is a byte copy of a C-contiguous tensor through the backend's
 * memcpy entry, queued on the current stream of the device involved (the CUDA
 * one when there is one); strided tensors are packed first on their own device
 * (an elementwise copy) or unpacked there afterwards. Host sources are always
 * consumed before a call returns (the copy is blocking), so a caller may free
 * or reuse them at once; the CUDA backend does that for an upload of at most
 * AUG__STAGED_UPLOAD_MAX bytes (and a copy within one device) without a host
 * wait, returning with the copy queued on the current stream, which every
 * later reader (an op, aug_tensor_read) follows.
 *
 * A copy between two devices (cuda:0 -> cuda:1) runs on the source's current
 * stream, ordered with events both ways: after the work queued so far on the
 * destination's current stream (the destination block may come from the pool
 * with such work still using it: the pool reuses a block at once on the stream
 * that freed it), and before the work queued later there (so a free of the
 * destination on that stream covers the copy). */
#include <stdlib.h>
#include <string.h>
#include "backend.h"
#include "tensor_impl.h"

/* The backend doing a copy between a and b: the CUDA one if either is CUDA. */
static const aug__backend *copier(const char *func, aug_device a, aug_device b, aug_device *dev) {
    *dev = a.type == AUG_DEVICE_CUDA ? a : b;
    return aug__backend_for(func, *dev);
}

static int64_t nbytes_of(const aug_tensor *t) { return aug_tensor_size(t) * aug__dtype_size(t->dtype); }

/* Makes `stream` (a handle of wait_dev) wait for the work queued so far on the
 * current stream of dev (both devices of be). */
static aug_status wait_for(const aug__backend *be, aug_device wait_dev, void *stream, aug_device dev) {
    void *ev = NULL;
    aug_status st = be->event_new(dev.id, &ev);
    if (st) return st;
    st = be->event_record(dev.id, ev, aug_stream_handle(aug_current_stream(dev)));
    if (st == AUG_OK) st = be->stream_wait(wait_dev.id, stream, ev);
    be->event_free(dev.id, ev); /* a wait already queued still sees the record */
    return st;
}

/* A blocking copy from src_dev to dst_dev (two devices of be), ordered with the
 * current streams of both (see the top of the file). */
static aug_status peer_copy(const aug__backend *be, void *dst, aug_device dst_dev, const void *src, aug_device src_dev,
                            size_t n) {
    void *s = aug_stream_handle(aug_current_stream(src_dev)), *d = aug_stream_handle(aug_current_stream(dst_dev));
    aug_status st = wait_for(be, src_dev, s, dst_dev);
    if (st == AUG_OK) st = be->memcpy(dst, dst_dev, src, src_dev, n, s, 1);
    /* the copy is done here, but the destination's order must not rest on that */
    if (st == AUG_OK) st = wait_for(be, dst_dev, d, src_dev);
    return st;
}

aug_tensor *aug_tensor_to(const aug_tensor *t, aug_device device) {
    static const char func[] = "aug_tensor_to";
    if (aug__tensor_check(func, t) != AUG_OK) return NULL;
    aug_tensor *src = aug_tensor_contiguous(t); /* on t's device */
    if (!src) return NULL;
    aug_tensor *dst = aug__tensor_empty(func, t->ndim, t->shape, t->dtype, device);
    aug_status st = dst ? AUG_OK : aug_last_status();
    if (st == AUG_OK && nbytes_of(t) > 0) {
        aug_device via;
        const aug__backend *be = copier(func, src->device, device, &via);
        if (!be)
            st = aug_last_status();
        else if (src->device.type == device.type && src->device.id != device.id)
            st = peer_copy(be, aug_tensor_ptr(dst), device, aug_tensor_ptr(src), src->device, (size_t)nbytes_of(t));
        else
            st = be->memcpy(aug_tensor_ptr(dst), device, aug_tensor_ptr(src), src->device, (size_t)nbytes_of(t),
                            aug_stream_handle(aug_current_stream(via)), 1);
    }
    aug_tensor_free(src);
    if (st != AUG_OK) {
        aug_tensor_free(dst);
        return NULL;
    }
    memcpy(dst->layout, t->layout, sizeof dst->layout);
    return dst;
}

static aug_status check_bytes(const char *func, const aug_tensor *t, const void *p, size_t nbytes) {
    aug_status st = aug__tensor_check(func, t);
    if (st) return st;
    if ((int64_t)nbytes != nbytes_of(t))
        return aug__error(AUG_ERR_VALUE, func, "the host buffer has %zu bytes but the tensor holds %lld", nbytes,
                          (long long)nbytes_of(t));
    if (!p && nbytes) return aug__error(AUG_ERR_VALUE, func, "the host pointer is NULL");
    return AUG_OK;
}

aug_status aug_tensor_read(const aug_tensor *t, void *dst, size_t nbytes, int blocking) {
    static const char func[] = "aug_tensor_read";
    aug_status st = check_bytes(func, t, dst, nbytes);
    if (st || nbytes == 0) return st;
    aug_tensor *src = aug_tensor_contiguous(t);
    if (!src) return aug_last_status();
    aug_device via;
    const aug__backend *be = copier(func, src->device, aug_cpu_device(), &via);
    st = be ? be->memcpy(dst, aug_cpu_device(), aug_tensor_ptr(src), src->device, nbytes,
                         aug_stream_handle(aug_current_stream(via)), blocking)
            : aug_last_status();
    aug_tensor_free(src); /* stream-ordered: a queued copy still reads it safely */
    return st;
}

aug_status aug_tensor_write(aug_tensor *t, const void *src, size_t nbytes) {
    static const char func[] = "aug_tensor_write";
    aug_status st = check_bytes(func, t, src, nbytes);
    if (st || nbytes == 0) return st;
    aug_tensor *dst = aug_tensor_is_contiguous(t) ? aug__tensor_new_view(func, t)
                                                  : aug__tensor_empty(func, t->ndim, t->shape, t->dtype, t->device);
    if (!dst) return aug_last_status();
    aug_device via;
    const aug__backend *be = copier(func, t->device, aug_cpu_device(), &via);
    st = be ? be->memcpy(aug_tensor_ptr(dst), t->device, src, aug_cpu_device(), nbytes,
                         aug_stream_handle(aug_current_stream(via)), 1)
            : aug_last_status();
    if (st == AUG_OK && dst->data + dst->byte_offset != t->data + t->byte_offset) st = aug__copy(func, dst, t);
    aug_tensor_free(dst);
    return st;
}

void *aug_host_alloc(aug_device dev, size_t nbytes) {
    static const char func[] = "aug_host_alloc";
    const aug__backend *be = aug__backend_for(func, dev);
    if (!be) return NULL;
    void *p = be->host_alloc ? be->host_alloc(nbytes) : aligned_alloc(64, (nbytes + 63) / 64 * 64 + 64);
    if (!p) aug__error(AUG_ERR_MEMORY, func, "out of memory (failed to allocate %zu bytes of host memory)", nbytes);
    return p;
}

void aug_host_free(aug_device dev, void *ptr) {
    if (!ptr) return;
    const aug__backend *be = aug__backend_for("aug_host_free", dev);
    if (be && be->host_free)
        be->host_free(ptr);
    else
        free(ptr);
}

aug_status aug_stream_sync_handle(aug_device dev, void *handle) {
    static const char func[] = "aug_stream_sync_handle";
    const aug__backend *be = aug__backend_for(func, dev);
    if (!be) return aug_last_status();
    if (dev.type == AUG_DEVICE_CPU) return AUG_OK;
    return wait_for(be, dev, handle, dev);
}
