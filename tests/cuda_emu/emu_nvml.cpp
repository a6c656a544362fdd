/* emu_nvml.cpp: the NVML stand-in of the emulation (nvmlInit_v2,
 * nvmlDeviceGetCount_v2, nvmlShutdown), for the module's probe (src/cuda/probe.cu).
 *
 * Like the real NVML it counts every GPU (AUG_EMU_DEVICES) whatever
 * CUDA_VISIBLE_DEVICES says, and it does not initialise the emulated runtime:
 * a process that only asked NVML can fork children that use the runtime
 * (AUG_EMU_FORK=driver). AUG_EMU_NO_NVML=1: NVML is absent (nvmlInit_v2 fails
 * with NVML_ERROR_LIBRARY_NOT_FOUND), so the probe cannot tell; so is it with
 * AUG_EMU_NO_DRIVER=1 (no driver at all: emu_runtime.cpp). */
#include "emu_internal.h"

#include <cstdlib>
#include <cstring>

namespace {
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlErrorUninitialized = 1;
constexpr int kNvmlErrorInvalidArgument = 2;
constexpr int kNvmlErrorLibraryNotFound = 12;
std::atomic<int> g_nvml_inits{0};
} /* namespace */

extern "C" {

int nvmlInit_v2(void) {
    const char *off = getenv("AUG_EMU_NO_NVML");
    const char *no_driver = getenv("AUG_EMU_NO_DRIVER");
    if ((off && !strcmp(off, "1")) || (no_driver && !strcmp(no_driver, "1"))) return kNvmlErrorLibraryNotFound;
    g_nvml_inits.fetch_add(1);
    return kNvmlSuccess;
}

int nvmlShutdown(void) {
    int n = g_nvml_inits.load();
    while (n > 0 && !g_nvml_inits.compare_exchange_weak(n, n - 1)) {
    }
    return n > 0 ? kNvmlSuccess : kNvmlErrorUninitialized;
}

int nvmlDeviceGetCount_v2(unsigned int *count) {
    if (g_nvml_inits.load() <= 0) return kNvmlErrorUninitialized;
    if (!count) return kNvmlErrorInvalidArgument;
    *count = (unsigned int)aug_emu::config().ndev_physical;
    return kNvmlSuccess;
}

} /* extern "C" */
