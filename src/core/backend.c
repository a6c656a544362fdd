/* core/backend.c: choosing the backend that serves a device.
 *
 * The CPU backend serves the one host device, cpu (id 0). This build has no CUDA
 * backend, so every cuda:N device is reported as unavailable. */
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

const aug__backend *aug__backend_for(const char *func, aug_device dev) {
    char name[48];
    switch (dev.type) {
    case AUG_DEVICE_CPU:
        if (dev.id == 0) return &aug__cpu_backend;
        aug__error(AUG_ERR_VALUE, func, "device %s is not available (the host is cpu:0)",
                   aug__device_str(dev, name, sizeof name));
        return NULL;
    case AUG_DEVICE_CUDA:
        aug__error(AUG_ERR_CUDA, func, "device %s is not available (aug was built without CUDA)",
                   aug__device_str(dev, name, sizeof name));
        return NULL;
    }
    aug__error(AUG_ERR_VALUE, func, "invalid device type %d", (int)dev.type);
    return NULL;
}
