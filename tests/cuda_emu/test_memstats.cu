/* test_memstats.cu: the emulator's memory-efficiency counter, occupancy and host
 * waits per API call (tests/cuda_emu/emu_memstats.cpp, emu_hostwait.cpp) on
 * synthetic kernels whose figures are known:
 *   - a coalesced float copy (each warp reads and writes 128 contiguous bytes): 1.0;
 *   - floats 32 bytes apart (one per sector): 4 / 32 = 0.125;
 *   - one float read by every lane (a broadcast): 0.125 (distinct bytes);
 *   - 16-byte vectors, bytes, and a 16 x 16 block (warps formed from the linear
 *     thread index): 1.0;
 *   - a warp's 128 bytes starting 4 bytes into a sector (5 sectors): 0.8;
 *   - lanes looping different counts: the k-th access of each lane goes together;
 *   - stores into a kernel's own local buffer: not counted;
 *   - recording off: nothing recorded;
 *   - the theoretical occupancy from the block size, registers and shared memory;
 *   - cudaStreamSynchronize and cudaMemcpy counted per API call.
 * Compiled by g++ against the emulation (ctest cuda_emu_memstats). */
#include "compat.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

extern "C" int aug_emu_memstats_enable(int on);
extern "C" void aug_emu_memstats_reset(void);
extern "C" int aug_emu_memstats_kernel(const char *name, double out[9]);
extern "C" long long aug_emu_memstats_report(char *buf, long long cap);
extern "C" long long aug_emu_host_waits_by_api(char *buf, long long cap);

/* ---- kernels --------------------------------------------------------------------------- */

AUG_GLOBAL void k_ms_copy(const float *in, float *out, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        AUG_ST(out + i, AUG_LD(in + i));
}

/* Lane i reads in[8 i]: one float per 32-byte sector. */
AUG_GLOBAL void k_ms_stride8(const float *in, float *out, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) out[i] = AUG_LD(in + 8 * i);
}

AUG_GLOBAL void k_ms_broadcast(const float *in, float *out, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) out[i] = AUG_LD(in);
}

AUG_GLOBAL void k_ms_vec16(const uint4 *in, uint4 *out, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        AUG_CHECK_LOAD(in + i, uint4);
        const uint4 v = in[i];
        AUG_CHECK_STORE(out + i, uint4);
        out[i] = v;
    }
}

AUG_GLOBAL void k_ms_bytes(const uint8_t *in, uint8_t *out, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        AUG_ST(out + i, AUG_LD(in + i));
}

/* A 16 x 16 block over a w-wide image: warp k covers rows 2k and 2k + 1 of the block. */
AUG_GLOBAL void k_ms_2d(const float *in, float *out, int w) {
    const int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
    AUG_ST(out + (y * w + x), AUG_LD(in + (y * w + x)));
}

/* Lane l reads l + 1 values, in[32 k + l] for k = 0..l: the k-th reads of the lanes
 * that make them are one request each (contiguous, lanes k..31). */
AUG_GLOBAL void k_ms_uneven(const float *in, float *out) {
    const int l = threadIdx.x;
    float s = 0.0f;
    for (int k = 0; k <= l; k++) s += AUG_LD(in + (32 * k + l));
    out[l] = s;
}

/* Writes through the recording layer into its own local array only. */
AUG_GLOBAL void k_ms_local(float *out) {
    float buf[4];
    for (int k = 0; k < 4; k++) AUG_ST(buf + k, (float)k);
    out[threadIdx.x] = buf[threadIdx.x % 4];
}

/* ---- checks ------------------------------------------------------------------------------ */

static int g_fail = 0;
#define CHECK(c)                                                                 \
    do {                                                                         \
        if (!(c)) {                                                              \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
            g_fail++;                                                            \
        }                                                                        \
    } while (0)
#define CK(call) CHECK((call) == cudaSuccess)

struct Stats {
    double launches, ld_req, ld_used, ld_sect, st_req, st_used, st_sect, occ, regs;
    double ld() const { return ld_sect > 0 ? ld_used / ld_sect : -1.0; }
    double st() const { return st_sect > 0 ? st_used / st_sect : -1.0; }
};

static Stats stats(const char *name) {
    double v[9];
    Stats s = {};
    if (aug_emu_memstats_kernel(name, v) == 0) memcpy(&s, v, sizeof v);
    return s;
}

static bool near(double a, double b) { return std::fabs(a - b) < 1e-9; }

static void test_efficiency() {
    const int n = 4096;
    float *in, *out;
    CK(cudaMalloc(&in, 8 * n * sizeof(float) + 64));
    CK(cudaMalloc(&out, n * sizeof(float) + 64));
    CK(cudaMemset(in, 0, 8 * n * sizeof(float) + 64));
    aug_emu_memstats_reset();
    CHECK(aug_emu_memstats_enable(1) == 0);
    AUG_LAUNCH(k_ms_copy, 8, 256, 0, 0, in, out, n);
    AUG_LAUNCH(k_ms_stride8, 8, 256, 0, 0, in, out, n);
    AUG_LAUNCH(k_ms_broadcast, 4, 256, 0, 0, in, out, n);
    AUG_LAUNCH(k_ms_vec16, 4, 128, 0, 0, (const uint4 *)in, (uint4 *)out, n / 4);
    AUG_LAUNCH(k_ms_bytes, 4, 256, 0, 0, (const uint8_t *)in, (uint8_t *)out, n);
    AUG_LAUNCH(k_ms_2d, dim3(4, 4), dim3(16, 16), 0, 0, in, out, 64);
    AUG_LAUNCH(k_ms_uneven, 1, 32, 0, 0, in, out);
    AUG_LAUNCH(k_ms_local, 1, 64, 0, 0, out);
    CK(cudaDeviceSynchronize());
    CK(cudaGetLastError());
    /* 4 bytes in: each warp's 128 bytes touch 5 sectors */
    AUG_LAUNCH(k_ms_bytes, 1, 128, 0, 0, (const uint8_t *)in + 4, (uint8_t *)out, 128);
    CK(cudaDeviceSynchronize());
    Stats c = stats("k_ms_copy");
    CHECK(c.launches == 1 && c.ld_req == n / 32 && c.st_req == n / 32);
    CHECK(near(c.ld(), 1.0) && near(c.st(), 1.0) && c.ld_used == 4.0 * n);
    Stats s8 = stats("k_ms_stride8");
    CHECK(s8.ld_req == n / 32 && near(s8.ld(), 0.125));
    CHECK(s8.st_req == 0); /* its store is a plain one, not recorded */
    Stats b = stats("k_ms_broadcast");
    CHECK(near(b.ld(), 0.125) && b.ld_used == 4.0 * b.ld_req);
    Stats v = stats("k_ms_vec16");
    CHECK(v.ld_req == n / 4 / 32 && near(v.ld(), 1.0) && near(v.st(), 1.0) && v.ld_sect == 4.0 * n);
    Stats by = stats("k_ms_bytes");
    CHECK(by.launches == 2);
    /* n bytes aligned (n / 32 requests of 32 bytes: one sector each), then 128 bytes
     * in 4 requests of 32 bytes from offset 4: two sectors each */
    CHECK(by.ld_req == n / 32 + 4 && by.ld_used == n + 128.0 && by.ld_sect == n + 4 * 64.0);
    Stats d2 = stats("k_ms_2d");
    CHECK(d2.ld_req == 16 * 8 && near(d2.ld(), 1.0) && near(d2.st(), 1.0));
    Stats u = stats("k_ms_uneven");
    /* request k: lanes k..31 read in[32 k + k .. 32 k + 31]: 4 (32 - k) bytes in the
     * sectors covering them */
    double used = 0, sect = 0;
    for (int k = 0; k < 32; k++) {
        used += 4.0 * (32 - k);
        const long lo = (32 * k + k) * 4, hi = (32 * k + 31) * 4 + 4;
        sect += 32.0 * ((hi - 1) / 32 - lo / 32 + 1);
    }
    CHECK(u.ld_req == 32 && u.ld_used == used && u.ld_sect == sect);
    Stats loc = stats("k_ms_local");
    CHECK(loc.launches == 1 && loc.st_req == 0 && loc.ld_req == 0);
    /* misaligned: a separate check on the figures of a fresh recording */
    aug_emu_memstats_reset();
    AUG_LAUNCH(k_ms_copy, 1, 32, 0, 0, (const float *)((const char *)in + 4), out, 32);
    CK(cudaDeviceSynchronize());
    Stats m = stats("k_ms_copy");
    CHECK(m.ld_req == 1 && m.ld_sect == 5 * 32.0 && near(m.ld(), 0.8));
    /* recording off: nothing */
    CHECK(aug_emu_memstats_enable(0) == 1);
    aug_emu_memstats_reset();
    AUG_LAUNCH(k_ms_copy, 8, 256, 0, 0, in, out, n);
    CK(cudaDeviceSynchronize());
    CHECK(stats("k_ms_copy").launches == 0);
    char buf[256];
    CHECK(aug_emu_memstats_report(buf, sizeof buf) == 0 && buf[0] == 0);
    CK(cudaFree(in));
    CK(cudaFree(out));
}

AUG_GLOBAL void k_ms_shared(float *out) {
    AUG_SHARED_DYN(float, sh);
    sh[threadIdx.x] = (float)threadIdx.x;
    __syncthreads();
    AUG_ST(out + threadIdx.x, sh[blockDim.x - 1 - threadIdx.x]);
}

static void test_occupancy() {
    float *out;
    CK(cudaMalloc(&out, 1024 * sizeof(float)));
    aug_emu_memstats_reset();
    aug_emu_memstats_enable(1);
    /* not in the register table: 32 registers; 256 threads: 8 blocks of 8 warps = 64 warps */
    AUG_LAUNCH(k_ms_copy, 1, 256, 0, 0, out, out, 0);
    /* 100 KiB of dynamic shared memory (opted in): 2 blocks of 8 warps per SM, 16 / 64 */
    CK(cudaFuncSetAttribute(k_ms_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024));
    AUG_LAUNCH(k_ms_shared, 1, 256, 100 * 1024, 0, out);
    CK(cudaDeviceSynchronize());
    CK(cudaGetLastError());
    aug_emu_memstats_enable(0);
    CHECK(near(stats("k_ms_copy").occ, 1.0));
    CHECK(near(stats("k_ms_shared").occ, 0.25));
    CHECK(stats("k_ms_shared").regs == 0); /* not in the table */
    CK(cudaFree(out));
}

static long long waits_of(const char *api) {
    char buf[4096];
    aug_emu_host_waits_by_api(buf, sizeof buf);
    std::string t(buf), key = std::string(api) + " ";
    size_t at = t.find(key);
    return at == std::string::npos || (at > 0 && t[at - 1] != '\n') ? 0 : atoll(t.c_str() + at + key.size());
}

static void test_host_waits_by_api() {
    float *d, h = 0.0f;
    CK(cudaMalloc(&d, sizeof(float)));
    const long long s0 = waits_of("cudaStreamSynchronize"), m0 = waits_of("cudaMemcpy");
    CK(cudaStreamSynchronize(0));
    CK(cudaStreamSynchronize(0));
    CK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(waits_of("cudaStreamSynchronize") == s0 + 2);
    CHECK(waits_of("cudaMemcpy") == m0 + 1);
    CK(cudaFree(d));
}

int main() {
    setvbuf(stdout, nullptr, _IONBF, 0);
    struct {
        const char *name;
        void (*fn)();
    } tests[] = {{"efficiency", test_efficiency},
                 {"occupancy", test_occupancy},
                 {"host_waits_by_api", test_host_waits_by_api}};
    for (auto &t : tests) {
        int before = g_fail;
        t.fn();
        printf("%-24s %s\n", t.name, g_fail == before ? "ok" : "FAILED");
    }
    printf("%s\n", g_fail ? "FAILED" : "all tests passed");
    return g_fail ? 1 : 0;
}
