/* emu_hostwait.cpp: counts the host waits of the emulated runtime, per calling
 * thread: the API calls that block the host until device work has finished
 * (cudaStreamSynchronize, cudaDeviceSynchronize, cudaEventSynchronize), the
 * blocking copies and fills (cudaMemcpy, cudaMemset), the asynchronous copies
 * whose host side is pageable memory (a GPU stages them through a driver buffer,
 * which waits for the stream), and the calls that synchronise implicitly
 * (cudaFree, cudaMallocHost/cudaHostAlloc, cudaFreeHost, cudaHostRegister,
 * cudaHostUnregister). A call counts whether or not the device was busy: it is
 * the call that costs a round trip on a GPU.
 *
 * Tests read the count through aug_emu_host_waits (exported for dlsym, like
 * aug_emu_set_order); AUG_EMU_HOST_WAITS=1 also prints each wait to stderr with
 * the calling thread's count, for benchmarks and for finding a wait's caller. */
#include "emu_internal.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace aug_emu {

namespace {
struct WaitCount {
    long long n = 0;
    const char *last = nullptr;
};
WaitCount &waits() {
    static thread_local WaitCount w;
    return w;
}
bool report() {
    static const bool on = [] {
        const char *v = getenv("AUG_EMU_HOST_WAITS");
        return v && strcmp(v, "1") == 0;
    }();
    return on;
}
} /* namespace */

void host_wait(const char *api) {
    WaitCount &w = waits();
    w.n++;
    w.last = api;
    if (report()) fprintf(stderr, "aug cuda_emu: host wait %lld of this thread: %s\n", w.n, api);
}

bool host_pageable(const void *p) { return lookup_ptr(p).kind == ALLOC_NONE; }

} /* namespace aug_emu */

/* The host waits of the calling thread so far; *last (when last is not NULL) names
 * the API call of the latest, or NULL. Exported (the rest of the emulation is
 * hidden), so a test finds it with dlsym in the loaded module. */
extern "C" __attribute__((visibility("default"))) long long aug_emu_host_waits(const char **last) {
    aug_emu::WaitCount &w = aug_emu::waits();
    if (last) *last = w.last;
    return w.n;
}
