/* core/backend.c: choosing the backend that serves a device, and the one
 * "not supported" error.
 *
 * The CPU backend serves the one host device, cpu (id 0); the CUDA backend, when
 * its module is loaded, serves cuda:0 ... cuda:N-1. */
#include <stdio.h>
#include "backend.h"
#include "tensor_impl.h"

char *aug__device_str(aug_device dev, char *buf, size_t len) {
    if (!buf || len == 0) return buf;
    if (dev.type == AUG_DEVICE_CPU && dev.id == 0)
        snprintf(buf, len, "cpu");
    else if (dev.type == AUG_DEVICE_CPU)
        snprintf(buf, len, "cpu:%d", dev.id);
    else if (dev.type == AUG_DEVICE_CUDA)
        snprintf(buf, len, "cuda:%d", dev.id);
    else
        snprintf(buf, len, "device(type=%d, id=%d)", (int)dev.type, dev.id);
    return buf;
}

/* Test hook: tables that serve a device type instead of the normal ones. */
static const aug__backend *overrides[3];

void aug__backend_override(aug_device_type type, const aug__backend *be) {
    if ((int)type >= 1 && (int)type <= 2) overrides[type] = be;
}

const aug__backend *aug__backend_for(const char *func, aug_device dev) {
    char name[48];
    switch (dev.type) {
    case AUG_DEVICE_CPU:
        if (dev.id == 0) return overrides[AUG_DEVICE_CPU] ? overrides[AUG_DEVICE_CPU] : &aug__cpu_backend;
        aug__error(AUG_ERR_VALUE, func, "device %s is not available (the host is cpu:0)",
                   aug__device_str(dev, name, sizeof name));
        return NULL;
    case AUG_DEVICE_CUDA: {
        const aug__backend *be = overrides[AUG_DEVICE_CUDA] ? overrides[AUG_DEVICE_CUDA] : aug__cuda_backend();
        if (!be) {
            aug__error(AUG_ERR_CUDA, func, "device %s is not available (%s)", aug__device_str(dev, name, sizeof name),
                       aug_cuda_status());
            return NULL;
        }
        int n = be->device_count();
        if (dev.id < 0 || dev.id >= n) {
            aug__error(AUG_ERR_CUDA, func, "device %s is not available (%d CUDA device%s)",
                       aug__device_str(dev, name, sizeof name), n, n == 1 ? "" : "s");
            return NULL;
        }
        return be;
    }
    }
    aug__error(AUG_ERR_VALUE, func, "invalid device type %d", (int)dev.type);
    return NULL;
}

const char *aug__family_name(aug__family f) {
    static const char *const names[AUG__NUM_FAMILIES] = {
#define X_(F, entry, plan, what) what,
        AUG__COMPUTE_FAMILIES(X_)
#undef X_
        "JPEG decoding",
    };
    return (int)f >= 0 && f < AUG__NUM_FAMILIES ? names[f] : "this operation";
}

static int has_entry(const aug__backend *be, aug__family f) {
    if (f == AUG__FAMILY_JPEG) return be->jpeg_decode != NULL;
    return (int)f >= 0 && f < AUG__FAMILY_JPEG && be->run != NULL;
}

const aug__backend *aug__backend_supporting(const char *func, aug_device dev, const aug__need *need) {
    const aug__backend *be = aug__backend_for(func, dev);
    if (!be) return NULL;
    if (has_entry(be, need->family) && (!be->supports || be->supports(need))) return be;
    char name[48];
    const char *what = need->family == AUG__FAMILY_ELEMENTWISE ? aug_op_name((aug_op)need->op) : aug__family_name(need->family);
    if (need->dtype != AUG_DTYPE_AUTO)
        aug__error(AUG_ERR_TYPE, func, "%s is not supported on %s for dtype %s", what,
                   aug__device_str(dev, name, sizeof name), aug_dtype_name(need->dtype));
    else
        aug__error(AUG_ERR_TYPE, func, "%s is not supported on %s", what, aug__device_str(dev, name, sizeof name));
    return NULL;
}
