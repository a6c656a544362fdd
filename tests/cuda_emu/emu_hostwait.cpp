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
 * aug_emu_set_order), and the count per API call through aug_emu_host_waits_by_api
 * (benchmarks: which call waited); AUG_EMU_HOST_WAITS=1 also prints each wait to
 * stderr with the calling thread's count, for finding a wait's caller. */
#include "emu_internal.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace aug_emu {

namespace {
struct WaitCount {
    long long n = 0;
    const char *last = nullptr;
    std::map<std::string, long long> by_api;
};
WaitCount &waits() { return per_thread<WaitCount>(); }
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
    w.by_api[api]++;
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

/* The host waits of the calling thread so far per API call, as text: one line
 * "API COUNT" per call that waited, in name order, written into buf (cap bytes,
 * NUL-terminated when cap > 0); returns the length of the whole text. */
extern "C" __attribute__((visibility("default"))) long long aug_emu_host_waits_by_api(char *buf, long long cap) {
    std::string t;
    for (const auto &e : aug_emu::waits().by_api) t += e.first + " " + std::to_string(e.second) + "\n";
    if (buf && cap > 0) {
        size_t m = std::min((size_t)cap - 1, t.size());
        memcpy(buf, t.data(), m);
        buf[m] = 0;
    }
    return (long long)t.size();
}
