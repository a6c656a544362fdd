/* emu_memstats.cpp: what a GPU would pay for each kernel's memory accesses, measured
 * on the emulated device.
 *
 * The kernels' global loads and stores go through one layer (AUG__MEM_LOAD and
 * AUG__MEM_STORE of scalar/hd.h, AUG_CHECK_LOAD/AUG_CHECK_STORE of cuda/compat.h,
 * used by cuda/vec.cuh, ew.cuh, values.cuh and the kernels' own typed accesses).
 * While recording is on (AUG_EMU_MEMSTATS=1 in the environment, or
 * aug_emu_memstats_enable), each access of a GPU thread is kept as (source line,
 * load or store, address, size); after each block the accesses of every warp are
 * grouped per instruction: the k-th access a lane makes at a source line goes with
 * the k-th access of the other lanes of its warp at that line (what one SIMT
 * instruction of the warp issues; lanes that skip an access, e.g. a border tap,
 * shift their later ones at that line, an approximation). For each group (a
 * request, in Nsight's words):
 *   used bytes   = the distinct bytes the lanes read or wrote,
 *   sector bytes = 32 x the distinct 32-byte sectors those bytes lie in,
 * and a kernel's memory efficiency is the sum of used bytes over the sum of sector
 * bytes of all its requests (1.0: every sector fully used; a warp reading floats 32
 * bytes apart: 4 / 32 = 0.125). Only addresses inside device or page-locked
 * allocations count (a helper that writes a kernel's local buffer records nothing).
 *
 * Each launch also gets its theoretical occupancy: resident warps per SM / 64 on an
 * H100/H200, from the kernel's registers (the register table, kernel_registers), its
 * static and dynamic shared memory and the block size (occupancy_blocks).
 *
 * Figures are per kernel identifier ("aug__k_castv" for every instantiation) and per
 * source line, for the whole process; read them with aug_emu_memstats_kernel or
 * aug_emu_memstats_report (exported for dlsym, like aug_emu_launches). Recording
 * costs memory and time (a few hundred bytes per access of a block), so it is for
 * tests and benchmarks on small sizes. */
#include "emu_internal.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

namespace aug_emu {

int g_mem_record = [] {
    const char *v = getenv("AUG_EMU_MEMSTATS");
    return v && strcmp(v, "1") == 0 ? 1 : 0;
}();

namespace {

/* One access of one thread. */
struct Access {
    const char *file;
    int line;
    int store;
    uintptr_t addr;
    unsigned n;
};

/* Sums over requests. */
struct Sums {
    long long requests = 0, used = 0, sector_bytes = 0;
    void add(const Sums &o) { requests += o.requests, used += o.used, sector_bytes += o.sector_bytes; }
};

struct SiteKey {
    const char *file;
    int line;
    int store;
    bool operator==(const SiteKey &o) const {
        return line == o.line && store == o.store && (file == o.file || strcmp(file, o.file) == 0);
    }
};
struct SiteHash {
    size_t operator()(const SiteKey &k) const { return (size_t)k.line * 2 + (size_t)k.store; }
};

struct KernelStats {
    long long launches = 0;
    Sums io[2]; /* loads, stores */
    double occ_min = 2.0, occ_max = 0.0;
    int regs = 0, threads = 0;
    std::map<std::string, Sums> sites; /* "file:line ld|st" */
};

std::mutex g_mu;
std::map<std::string, KernelStats> &g_stats() {
    static std::map<std::string, KernelStats> m;
    return m;
}

/* The recorder of a stream thread (blocks run on it one after another). */
struct Recorder {
    bool active = false;
    std::vector<std::vector<Access>> lane; /* per linear thread index of the block */
    Sums io[2];
    std::unordered_map<SiteKey, Sums, SiteHash> sites;
    std::vector<PtrInfo> ranges; /* allocations seen lately (global memory) */
};
Recorder &recorder() { return per_thread<Recorder>(); }

/* Is [p, p + n) inside a device or page-locked allocation? */
bool is_global(Recorder &r, uintptr_t p, unsigned n) {
    for (const PtrInfo &i : r.ranges)
        if (in_range(i, (const void *)p, n)) return true;
    PtrInfo i = lookup_ptr((const void *)p);
    if (i.kind == ALLOC_NONE || !in_range(i, (const void *)p, n)) return false;
    if (r.ranges.size() >= 8) r.ranges.erase(r.ranges.begin());
    r.ranges.push_back(i);
    return true;
}

/* One request: the accesses of a warp's lanes at one instruction. */
void request(Recorder &r, const SiteKey &site, std::vector<std::pair<uintptr_t, unsigned>> &acc) {
    std::sort(acc.begin(), acc.end());
    long long used = 0, sectors = 0;
    uintptr_t end = 0;              /* the merged bytes so far end here */
    uintptr_t last_sector = ~(uintptr_t)0;
    bool any = false;
    for (const auto &a : acc) {
        uintptr_t lo = a.first, hi = a.first + a.second; /* [lo, hi) */
        if (any && lo < end) lo = end;
        if (lo >= hi) continue;
        used += (long long)(hi - lo);
        end = hi;
        uintptr_t s0 = lo >> 5, s1 = (hi - 1) >> 5;
        if (any && s0 == last_sector) s0++;
        if (s1 >= s0) sectors += (long long)(s1 - s0 + 1);
        last_sector = s1;
        any = true;
    }
    Sums s;
    s.requests = 1, s.used = used, s.sector_bytes = 32 * sectors;
    r.io[site.store].add(s);
    r.sites[site].add(s);
}

} /* namespace */

void mem_record(const char *file, int line, const void *p, unsigned n, int store) {
    ThreadView *v = aug_emu_cur;
    if (!v || n == 0) return;
    Recorder &r = recorder();
    if (!r.active) return;
    const dim3 &b = v->blk->bdim;
    const size_t lin = v->tid.x + (size_t)b.x * (v->tid.y + (size_t)b.y * v->tid.z);
    if (lin >= r.lane.size()) return;
    r.lane[lin].push_back(Access{file, line, store ? 1 : 0, (uintptr_t)p, n});
}

void memstats_launch_begin(const LaunchRec &L) {
    Recorder &r = recorder();
    r.active = __atomic_load_n(&g_mem_record, __ATOMIC_RELAXED) != 0;
    if (!r.active) return;
    r.lane.assign((size_t)L.block.x * L.block.y * L.block.z, std::vector<Access>());
    r.io[0] = r.io[1] = Sums();
    r.sites.clear();
    r.ranges.clear();
}

void memstats_block_end(bool ok) {
    Recorder &r = recorder();
    if (!r.active) return;
    const size_t n = r.lane.size();
    std::unordered_map<SiteKey, int, SiteHash> occ;
    struct GroupKey {
        SiteKey site;
        int k;
        bool operator<(const GroupKey &o) const {
            if (site.line != o.site.line) return site.line < o.site.line;
            if (site.store != o.site.store) return site.store < o.site.store;
            if (site.file != o.site.file) {
                int c = strcmp(site.file, o.site.file);
                if (c) return c < 0;
            }
            return k < o.k;
        }
    };
    std::map<GroupKey, std::vector<std::pair<uintptr_t, unsigned>>> groups;
    for (size_t w0 = 0; w0 < n; w0 += 32) {
        groups.clear();
        for (size_t l = w0; l < n && l < w0 + 32; l++) {
            occ.clear();
            for (const Access &a : r.lane[l]) {
                SiteKey key{a.file, a.line, a.store};
                const int k = occ[key]++;
                if (ok && is_global(r, a.addr, a.n)) groups[GroupKey{key, k}].push_back({a.addr, a.n});
            }
            r.lane[l].clear();
        }
        for (auto &g : groups) request(r, g.first.site, g.second);
    }
}

void memstats_launch_end(const LaunchRec &L) {
    Recorder &r = recorder();
    if (!r.active) return;
    r.active = false;
    const int threads = (int)(L.block.x * L.block.y * L.block.z);
    const KernelAttr k = kernel_attr(L.kfn);
    const double occ = (double)occupancy_blocks(k, threads, L.dyn) * ((threads + 31) / 32) / 64.0;
    std::lock_guard<std::mutex> lk(g_mu);
    KernelStats &s = g_stats()[kernel_identifier(L.name.c_str())];
    s.launches++;
    s.io[0].add(r.io[0]);
    s.io[1].add(r.io[1]);
    s.occ_min = std::min(s.occ_min, occ);
    s.occ_max = std::max(s.occ_max, occ);
    s.regs = std::max(s.regs, k.regs);
    s.threads = std::max(s.threads, threads);
    for (const auto &e : r.sites) {
        const char *f = strrchr(e.first.file, '/');
        char key[512];
        snprintf(key, sizeof key, "%s:%d %s", f ? f + 1 : e.first.file, e.first.line, e.first.store ? "st" : "ld");
        s.sites[key].add(e.second);
    }
    r.sites.clear();
    r.lane.clear();
}

} /* namespace aug_emu */

using aug_emu::g_stats;

/* Turns recording on (1) or off (0) for launches queued from now on; returns the
 * previous setting. Launches already queued keep the setting they started with. */
extern "C" __attribute__((visibility("default"))) int aug_emu_memstats_enable(int on) {
    return __atomic_exchange_n(&aug_emu::g_mem_record, on ? 1 : 0, __ATOMIC_RELAXED);
}

/* Forgets every kernel's figures. */
extern "C" __attribute__((visibility("default"))) void aug_emu_memstats_reset(void) {
    std::lock_guard<std::mutex> lk(aug_emu::g_mu);
    g_stats().clear();
}

/* The figures of kernel identifier `name` (e.g. "aug__k_castv") so far: out[0]
 * launches recorded, out[1..3] load requests, used bytes, sector bytes, out[4..6]
 * the same for stores, out[7] the least theoretical occupancy of its launches (0..1),
 * out[8] its registers per thread (0: not in the register table, counted as 32).
 * Returns 0, or -1 (out untouched) when no launch of it was recorded. */
extern "C" __attribute__((visibility("default"))) int aug_emu_memstats_kernel(const char *name, double out[9]) {
    std::lock_guard<std::mutex> lk(aug_emu::g_mu);
    auto it = g_stats().find(name ? name : "");
    if (it == g_stats().end()) return -1;
    const auto &s = it->second;
    const double v[9] = {(double)s.launches, (double)s.io[0].requests, (double)s.io[0].used,
                         (double)s.io[0].sector_bytes, (double)s.io[1].requests, (double)s.io[1].used,
                         (double)s.io[1].sector_bytes, s.occ_min, (double)s.regs};
    memcpy(out, v, sizeof v);
    return 0;
}

/* Every kernel's figures as text, one line per kernel then one per source line:
 *   kernel NAME LAUNCHES REGS THREADS OCC_MIN OCC_MAX LD_REQ LD_USED LD_SECTOR ST_REQ ST_USED ST_SECTOR
 *   site NAME FILE:LINE ld|st REQ USED SECTOR
 * written into buf (cap bytes, NUL-terminated when cap > 0); returns the length of
 * the whole text (a larger buffer is needed when it is >= cap). */
extern "C" __attribute__((visibility("default"))) long long aug_emu_memstats_report(char *buf, long long cap) {
    std::string t;
    char line[768];
    {
        std::lock_guard<std::mutex> lk(aug_emu::g_mu);
        for (const auto &e : g_stats()) {
            const auto &s = e.second;
            snprintf(line, sizeof line, "kernel %s %lld %d %d %.4f %.4f %lld %lld %lld %lld %lld %lld\n",
                     e.first.c_str(), s.launches, s.regs, s.threads, s.occ_min, s.occ_max, s.io[0].requests,
                     s.io[0].used, s.io[0].sector_bytes, s.io[1].requests, s.io[1].used, s.io[1].sector_bytes);
            t += line;
            for (const auto &x : s.sites) {
                snprintf(line, sizeof line, "site %s %s %lld %lld %lld\n", e.first.c_str(), x.first.c_str(),
                         x.second.requests, x.second.used, x.second.sector_bytes);
                t += line;
            }
        }
    }
    if (buf && cap > 0) {
        size_t m = std::min((size_t)cap - 1, t.size());
        memcpy(buf, t.data(), m);
        buf[m] = 0;
    }
    return (long long)t.size();
}
