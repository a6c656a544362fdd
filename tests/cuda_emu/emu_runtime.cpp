/* emu_runtime.cpp: the CUDA runtime API of the emulation, device and memory part.
 *
 * Configuration (environment, read once at the first call):
 *   AUG_EMU_DEVICES    number of emulated GPUs, 0..8 (default 2); the runtime shows
 *                      those CUDA_VISIBLE_DEVICES selects, as the real one does (unset:
 *                      all; a list of indices up to its first invalid or repeated
 *                      entry; GPU-/MIG- UUIDs one each), the emulated NVML all of them
 *   AUG_EMU_FORK       driver | always: which fork() children fail. driver (default),
 *                      the driver's rule: every call of a child fails with
 *                      cudaErrorInitializationError when its parent had initialised
 *                      the runtime (any call but the NVML stand-in, emu_nvml.cpp), and
 *                      a child of a parent that had not starts a runtime of its own.
 *                      always: every child fails, whether or not its parent had
 *                      (read when the library loads)
 *   AUG_EMU_NO_NVML=1  the NVML stand-in is absent (emu_nvml.cpp)
 *   AUG_EMU_NO_DRIVER=1  a machine without NVIDIA's driver: NVML is absent too, libcuda.so.1
 *                      does not open (emu_cublas.cpp) and cudaGetDeviceCount fails with
 *                      cudaErrorInsufficientDriver, as the static CUDA runtime does there
 *   AUG_EMU_MEMORY_MB  memory per device in MiB (default 81920, an H100's 80 GiB)
 *   AUG_EMU_ORDER      forward | reverse | shuffle: thread order between barriers and
 *                      block order (default forward)
 *   AUG_EMU_SEED       seed of the shuffled order (default 0x5eed)
 *   AUG_EMU_STACK_KB   fiber stack per GPU thread (default 64, 256 under ASan)
 *   AUG_EMU_VERBOSE=1  a note on stderr for every refused memory call
 *   AUG_EMU_FAULT      KERNEL[:ERROR]: every launch of a kernel whose name contains
 *                      KERNEL faults instead of running, leaving ERROR (a cudaError
 *                      name; default cudaErrorIllegalAddress) sticky on its device, as
 *                      an out-of-bounds or misaligned access on a GPU does
 *   AUG_EMU_NO_CUBLAS=1  the cuBLAS stand-in is absent (emu_cublas.cpp)
 *   AUG_EMU_REGISTERS  the kernels' register table (default: kernel_registers.txt
 *                      beside this file, as scripts/check_fatbin.py writes it from the
 *                      nvcc build); empty: no register budget
 *
 * Every device looks like an H100 SXM (cc 9.0, 132 SMs). Device memory is host
 * memory from posix_memalign (256-byte aligned like cudaMalloc, exact size so ASan
 * sees out-of-bounds kernel accesses), filled with 0xFF (uninitialised device
 * memory is garbage, not zeros), and kept in a registry with the pinned host
 * ranges, which the copy functions check their direction and ranges against.
 * Errors follow CUDA: each failing call records its error as the host thread's
 * last error (cudaGetLastError clears it, cudaPeekAtLastError does not); a kernel
 * fault is sticky: every later call involving the device returns
 * cudaErrorLaunchFailure (or AUG_EMU_FAULT's error) until cudaDeviceReset. After fork() the child's calls all
 * return cudaErrorInitializationError if the parent had initialised the runtime
 * (the parent's stream threads do not exist there; AUG_EMU_FORK), and after exit()
 * starts they return cudaErrorCudartUnloading. */
#include "emu_internal.h"

#include <algorithm>
#include <cerrno>
#include <map>
#include <string>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <pthread.h>

namespace aug_emu {

std::atomic<bool> g_forked{false};
std::atomic<bool> g_shutdown{false};
std::atomic<int> g_order{-1};

/* ---- configuration --------------------------------------------------------------------- */

static long long env_ll(const char *name, long long def, long long lo, long long hi) {
    const char *v = getenv(name);
    if (!v || !*v) return def;
    char *end;
    long long x = strtoll(v, &end, 0);
    if (*end || x < lo || x > hi) {
        fprintf(stderr, "aug cuda_emu: ignoring %s=%s (expected %lld..%lld)\n", name, v, lo, hi);
        return def;
    }
    return x;
}

static int parse_order(const char *s) {
    if (!s || !*s || !strcmp(s, "forward")) return ORDER_FORWARD;
    if (!strcmp(s, "reverse")) return ORDER_REVERSE;
    if (!strcmp(s, "shuffle")) return ORDER_SHUFFLE;
    return -1;
}

static bool error_named(const char *name, int *err);

/* The runtime's reading of CUDA_VISIBLE_DEVICES over `physical` GPUs. */
static int visible_devices(int physical, const char *v) {
    if (!v) return physical;
    bool seen[8] = {};
    int n = 0;
    std::string list(v);
    size_t pos = 0;
    while (n < physical) {
        size_t comma = list.find(',', pos);
        std::string tok = list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        size_t b = tok.find_first_not_of(" \t"), e = tok.find_last_not_of(" \t");
        tok = b == std::string::npos ? "" : tok.substr(b, e - b + 1);
        if (tok.empty()) break;
        if (tok.size() > 4 && (tok.compare(0, 4, "GPU-") == 0 || tok.compare(0, 4, "MIG-") == 0)) {
            n++;
        } else {
            if (tok.find_first_not_of("0123456789") != std::string::npos || tok.size() > 3) break;
            int id = atoi(tok.c_str());
            if (id >= physical || seen[id]) break;
            seen[id] = true;
            n++;
        }
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return n;
}

/* AUG_EMU_FORK=always: every fork() child fails, registered when the library loads. */
static void mark_forked() { g_forked.store(true); }
static bool fork_always() {
    const char *v = getenv("AUG_EMU_FORK");
    if (!v || !*v || !strcmp(v, "driver")) return false;
    if (!strcmp(v, "always")) return true;
    fprintf(stderr, "aug cuda_emu: ignoring AUG_EMU_FORK=%s (driver or always)\n", v);
    return false;
}
static const bool g_fork_always = [] {
    bool always = fork_always();
    if (always) pthread_atfork(nullptr, nullptr, mark_forked);
    return always;
}();

const Config &config() {
    static const Config c = [] {
        Config k;
        k.ndev_physical = (int)env_ll("AUG_EMU_DEVICES", 2, 0, 8);
        k.ndev = visible_devices(k.ndev_physical, getenv("CUDA_VISIBLE_DEVICES"));
        k.mem_bytes = (size_t)env_ll("AUG_EMU_MEMORY_MB", 81920, 1, 1ll << 30) << 20;
#if defined(__SANITIZE_ADDRESS__)
        long long stack_kb = 256; /* ASan's redzones make frames several times larger */
#else
        long long stack_kb = 64;
#endif
        k.stack_bytes = (size_t)env_ll("AUG_EMU_STACK_KB", stack_kb, 16, 1 << 20) << 10;
        k.seed = (uint64_t)env_ll("AUG_EMU_SEED", 0x5eed, LLONG_MIN, LLONG_MAX);
        k.verbose = env_ll("AUG_EMU_VERBOSE", 0, 0, 1) != 0;
        int o = parse_order(getenv("AUG_EMU_ORDER"));
        if (o < 0) {
            fprintf(stderr, "aug cuda_emu: ignoring AUG_EMU_ORDER=%s (forward, reverse or shuffle)\n",
                    getenv("AUG_EMU_ORDER"));
            o = ORDER_FORWARD;
        }
        int unset = -1;
        g_order.compare_exchange_strong(unset, o);
        k.fault_error = cudaErrorIllegalAddress;
        if (const char *f = getenv("AUG_EMU_FAULT")) {
            const char *colon = strchr(f, ':');
            k.fault_kernel.assign(f, colon ? (size_t)(colon - f) : strlen(f));
            if (colon && !error_named(colon + 1, &k.fault_error)) {
                fprintf(stderr, "aug cuda_emu: AUG_EMU_FAULT=%s: unknown error %s, using cudaErrorIllegalAddress\n", f,
                        colon + 1);
                k.fault_error = cudaErrorIllegalAddress;
            }
        }
        return k;
    }();
    return c;
}

/* ---- the register table ---------------------------------------------------------------- */

/* The identifier a kernel expression names: "(k_red_block<T>)" -> "k_red_block". */
std::string kernel_identifier(const char *expr) {
    std::string n(expr);
    size_t b = n.find_first_not_of("( ");
    n = b == std::string::npos ? "" : n.substr(b);
    size_t e = n.find_first_of("<(), ");
    if (e != std::string::npos) n.resize(e);
    size_t c = n.rfind("::");
    return c == std::string::npos ? n : n.substr(c + 2);
}

int kernel_registers(const char *launch_name) {
    static const std::map<std::string, int> table = [] {
        std::map<std::string, int> t;
        const char *env = getenv("AUG_EMU_REGISTERS");
#ifdef AUG_EMU_REGISTER_TABLE
        const char *path = env ? env : AUG_EMU_REGISTER_TABLE;
#else
        const char *path = env ? env : "";
#endif
        if (!*path) return t;
        FILE *f = fopen(path, "r");
        if (!f) {
            fprintf(stderr, "aug cuda_emu: no register table %s (%s): launches are not checked against it\n", path,
                    strerror(errno));
            return t;
        }
        char name[256];
        int regs;
        while (fscanf(f, "%255s %d", name, &regs) == 2) t[name] = regs;
        fclose(f);
        return t;
    }();
    auto it = table.find(kernel_identifier(launch_name));
    return it == table.end() ? 0 : it->second;
}

/* Launches per kernel identifier, of the whole process (aug_emu_launches). */
static std::mutex launch_count_mu;
static std::map<std::string, long long> &launch_counts() {
    static std::map<std::string, long long> m;
    return m;
}

void count_launch(const char *launch_name) {
    std::lock_guard<std::mutex> lk(launch_count_mu);
    launch_counts()[kernel_identifier(launch_name)]++;
}

/* ---- devices ---------------------------------------------------------------------------- */

static void fill_prop(cudaDeviceProp *p, int id) {
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "Emulated NVIDIA H100 (aug cuda_emu)");
    for (int i = 0; i < 16; i++) p->uuid.bytes[i] = (char)(0xa0 + i + 16 * id);
    p->totalGlobalMem = config().mem_bytes;
    p->sharedMemPerBlock = kSharedPerBlock;
    p->regsPerBlock = 65536;
    p->warpSize = 32;
    p->memPitch = 2147483647;
    p->maxThreadsPerBlock = kMaxThreadsPerBlock;
    p->maxThreadsDim[0] = 1024, p->maxThreadsDim[1] = 1024, p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 2147483647, p->maxGridSize[1] = 65535, p->maxGridSize[2] = 65535;
    p->totalConstMem = 65536;
    p->major = 9, p->minor = 0;
    p->textureAlignment = 512;
    p->texturePitchAlignment = 32;
    p->multiProcessorCount = 132;
    p->canMapHostMemory = 1;
    p->surfaceAlignment = 512;
    p->concurrentKernels = 1;
    p->ECCEnabled = 1;
    p->pciBusID = 0x18 + id;
    p->asyncEngineCount = 2;
    p->unifiedAddressing = 1;
    p->memoryBusWidth = 5120;
    p->l2CacheSize = 50 * 1024 * 1024;
    p->persistingL2CacheMaxSize = 30 * 1024 * 1024;
    p->maxThreadsPerMultiProcessor = 2048;
    p->streamPrioritiesSupported = 1;
    p->globalL1CacheSupported = 1;
    p->localL1CacheSupported = 1;
    p->sharedMemPerMultiprocessor = 228 * 1024;
    p->regsPerMultiprocessor = 65536;
    p->managedMemory = 1;
    p->concurrentManagedAccess = 1;
    p->computePreemptionSupported = 1;
    p->canUseHostPointerForRegisteredMem = 1;
    p->cooperativeLaunch = 1;
    p->sharedMemPerBlockOptin = kSharedPerBlockOptin;
    p->maxBlocksPerMultiProcessor = 32;
    p->accessPolicyMaxWindowSize = 134213632;
    p->reservedSharedMemPerBlock = 1024;
    p->hostRegisterSupported = 1;
    p->memoryPoolsSupported = 1;
    p->clusterLaunch = 1;
    p->hostNumaId = -1;
}

static void at_exit_handler() {
    if (g_forked.load()) return; /* the stream threads belong to the parent */
    g_shutdown.store(true);
    streams_shutdown();
}

State &state() {
    static State *s = [] {
        State *st = new State; /* never destroyed: stream threads may outlive static destructors */
        const Config &c = config();
        for (int i = 0; i < c.ndev; i++) {
            Device *d = new Device;
            d->id = i;
            fill_prop(&d->prop, i);
            st->devs.push_back(d);
        }
        /* the driver's rule: a child of an initialised process cannot use CUDA */
        if (!g_fork_always) pthread_atfork(nullptr, nullptr, mark_forked);
        atexit(at_exit_handler);
        return st;
    }();
    return *s;
}

/* Legacy streams are created after State exists (stream_new locks State::mu). */
static void ensure_legacy(State &st) {
    static std::once_flag once;
    std::call_once(once, [&st] {
        for (Device *d : st.devs) d->legacy = stream_new(d->id, 0, 0, true);
    });
}

/* ---- per thread, errors -------------------------------------------------------------------- */

int &cur_device() {
    static thread_local int dev = 0;
    return dev;
}

std::shared_ptr<std::atomic<int>> &thread_err_slot() {
    static thread_local std::shared_ptr<std::atomic<int>> slot = std::make_shared<std::atomic<int>>(0);
    return slot;
}

cudaError_t rec(cudaError_t e) {
    if (e != cudaSuccess) thread_err_slot()->store((int)e);
    return e;
}

cudaError_t api_enter() {
    if (g_forked.load()) return rec(cudaErrorInitializationError);
    if (g_shutdown.load()) return cudaErrorCudartUnloading;
    ensure_legacy(state());
    return cudaSuccess;
}

cudaError_t check_dev(int d) {
    int n = config().ndev;
    if (n == 0) return cudaErrorNoDevice;
    if (d < 0 || d >= n) return cudaErrorInvalidDevice;
    return cudaSuccess;
}

cudaError_t device_sticky(int dev) {
    if (dev < 0 || dev >= config().ndev) return cudaSuccess;
    return (cudaError_t)state().devs[(size_t)dev]->sticky.load();
}

void device_fault(int dev, const std::string &msg, cudaError_t err) {
    state().devs[(size_t)dev]->sticky.store(err);
    fprintf(stderr, "aug cuda_emu: device %d: %s (sticky): %s\n", dev, cudaGetErrorString(err), msg.c_str());
    fflush(stderr);
}

void note(const char *fmt, ...) {
    if (!config().verbose) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("aug cuda_emu: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

cudaError_t enter_dev() {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    if ((e = check_dev(cur_device())) != cudaSuccess) return rec(e);
    if ((e = device_sticky(cur_device())) != cudaSuccess) return rec(e);
    return cudaSuccess;
}

#define ENTER_DEV()                                     \
    do {                                                \
        cudaError_t e_ = enter_dev();                   \
        if (e_ != cudaSuccess) return e_;               \
    } while (0)

/* ---- kernels --------------------------------------------------------------------------------- */

KernelAttr kernel_attr(const void *kfn) {
    State &st = state();
    std::lock_guard<std::mutex> lk(st.mu);
    auto it = st.kattr.find(kfn);
    return it == st.kattr.end() ? KernelAttr() : it->second;
}

void kernel_set_registers(const void *kfn, int regs) {
    State &st = state();
    std::lock_guard<std::mutex> lk(st.mu);
    st.kattr[kfn].regs = regs;
}

void kernel_set_static_bytes(const void *kfn, size_t bytes) {
    State &st = state();
    std::lock_guard<std::mutex> lk(st.mu);
    long &b = st.kattr[kfn].static_bytes;
    if ((long)bytes > b) b = (long)bytes;
}

/* ---- memory registry ---------------------------------------------------------------------------- */

PtrInfo lookup_ptr(const void *p) {
    PtrInfo r;
    State &st = state();
    std::lock_guard<std::mutex> lk(st.mu);
    auto it = st.allocs.upper_bound((uintptr_t)p);
    if (it == st.allocs.begin()) return r;
    --it;
    if ((uintptr_t)p - it->first < it->second.size) {
        r.kind = it->second.kind;
        r.device = it->second.device;
        r.base = (const char *)it->first;
        r.size = it->second.size;
    }
    return r;
}

static const char *kind_name(cudaMemcpyKind k) {
    switch (k) {
    case cudaMemcpyHostToHost: return "cudaMemcpyHostToHost";
    case cudaMemcpyHostToDevice: return "cudaMemcpyHostToDevice";
    case cudaMemcpyDeviceToHost: return "cudaMemcpyDeviceToHost";
    case cudaMemcpyDeviceToDevice: return "cudaMemcpyDeviceToDevice";
    default: return "cudaMemcpyDefault";
    }
}

cudaError_t check_copy(void *dst, size_t dn, const void *src, size_t sn, cudaMemcpyKind *kind, const char *api) {
    if (dn == 0 && sn == 0) return cudaSuccess;
    if (!dst || !src) {
        note("%s: null pointer with %zu bytes", api, dn);
        return cudaErrorInvalidValue;
    }
    PtrInfo di = lookup_ptr(dst), si = lookup_ptr(src);
    bool ddev = di.kind == ALLOC_DEVICE, sdev = si.kind == ALLOC_DEVICE;
    if (*kind == cudaMemcpyDefault)
        *kind = ddev ? (sdev ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                     : (sdev ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
    bool want_ddev, want_sdev;
    switch (*kind) {
    case cudaMemcpyHostToHost: want_ddev = false, want_sdev = false; break;
    case cudaMemcpyHostToDevice: want_ddev = true, want_sdev = false; break;
    case cudaMemcpyDeviceToHost: want_ddev = false, want_sdev = true; break;
    case cudaMemcpyDeviceToDevice: want_ddev = true, want_sdev = true; break;
    default: note("%s: invalid copy kind %d", api, (int)*kind); return cudaErrorInvalidMemcpyDirection;
    }
    if (ddev != want_ddev || sdev != want_sdev) {
        note("%s(%s): the destination %p is %s and the source %p is %s", api, kind_name(*kind), dst,
             ddev ? "device memory" : "host memory", src, sdev ? "device memory" : "host memory");
        return cudaErrorInvalidValue;
    }
    /* Ranges: device allocations and pinned host ranges are known exactly. */
    if (di.kind != ALLOC_NONE && !in_range(di, dst, dn)) {
        note("%s: destination [%p, +%zu) runs past its allocation [%p, +%zu)", api, dst, dn, (const void *)di.base,
             di.size);
        return cudaErrorInvalidValue;
    }
    if (si.kind != ALLOC_NONE && !in_range(si, src, sn)) {
        note("%s: source [%p, +%zu) runs past its allocation [%p, +%zu)", api, src, sn, (const void *)si.base,
             si.size);
        return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

cudaError_t check_device_range(const void *p, size_t n, const char *api, const char *what, int device) {
    if (n == 0) return cudaSuccess;
    PtrInfo i = lookup_ptr(p);
    if (i.kind != ALLOC_DEVICE) {
        note("%s: %s %p is not device memory", api, what, p);
        return cudaErrorInvalidValue;
    }
    if (device >= 0 && i.device != device) {
        note("%s: %s %p belongs to device %d, not %d", api, what, p, i.device, device);
        return cudaErrorInvalidValue;
    }
    if (!in_range(i, p, n)) {
        note("%s: %s [%p, +%zu) runs past its allocation [%p, +%zu)", api, what, p, n, (const void *)i.base, i.size);
        return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

} /* namespace aug_emu */

using namespace aug_emu;

extern "C" {

int aug_emu_set_order(const char *order) {
    config();
    int o = parse_order(order);
    if (o < 0) return -1;
    g_order.store(o);
    return 0;
}

const char *aug_emu_get_order(void) {
    config();
    static const char *const names[] = {"forward", "reverse", "shuffle"};
    return names[g_order.load()];
}

} /* extern "C" */

extern "C" {

/* ---- device management ------------------------------------------------------------------------ */

cudaError_t cudaGetDeviceCount(int *count) {
    const char *no_driver = getenv("AUG_EMU_NO_DRIVER");
    if (no_driver && strcmp(no_driver, "1") == 0) return rec(cudaErrorInsufficientDriver);
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    if (!count) return rec(cudaErrorInvalidValue);
    *count = config().ndev;
    return config().ndev ? cudaSuccess : rec(cudaErrorNoDevice);
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    if (!prop) return rec(cudaErrorInvalidValue);
    if ((e = check_dev(device)) != cudaSuccess) return rec(e);
    *prop = state().devs[(size_t)device]->prop;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    if (!value) return rec(cudaErrorInvalidValue);
    if ((e = check_dev(device)) != cudaSuccess) return rec(e);
    const cudaDeviceProp &p = state().devs[(size_t)device]->prop;
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = (int)p.sharedMemPerBlock; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = (int)p.sharedMemPerBlockOptin; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = (int)p.sharedMemPerMultiprocessor; break;
    case cudaDevAttrReservedSharedMemoryPerBlock: *value = (int)p.reservedSharedMemPerBlock; break;
    case cudaDevAttrTotalConstantMemory: *value = (int)p.totalConstMem; break;
    case cudaDevAttrWarpSize: *value = p.warpSize; break;
    case cudaDevAttrMaxPitch: *value = (int)p.memPitch; break;
    case cudaDevAttrMaxRegistersPerBlock: *value = p.regsPerBlock; break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *value = p.regsPerMultiprocessor; break;
    case cudaDevAttrClockRate: *value = 1980000; break;
    case cudaDevAttrMemoryClockRate: *value = 2619000; break;
    case cudaDevAttrGlobalMemoryBusWidth: *value = p.memoryBusWidth; break;
    case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; break;
    case cudaDevAttrMaxPersistingL2CacheSize: *value = p.persistingL2CacheMaxSize; break;
    case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *value = p.maxBlocksPerMultiProcessor; break;
    case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
    case cudaDevAttrIntegrated: *value = 0; break;
    case cudaDevAttrCanMapHostMemory: *value = 1; break;
    case cudaDevAttrComputeMode: *value = cudaComputeModeDefault; break;
    case cudaDevAttrConcurrentKernels: *value = 1; break;
    case cudaDevAttrEccEnabled: *value = 1; break;
    case cudaDevAttrPciBusId: *value = p.pciBusID; break;
    case cudaDevAttrPciDeviceId: *value = 0; break;
    case cudaDevAttrPciDomainId: *value = 0; break;
    case cudaDevAttrAsyncEngineCount: *value = p.asyncEngineCount; break;
    case cudaDevAttrUnifiedAddressing: *value = 1; break;
    case cudaDevAttrStreamPrioritiesSupported: *value = 1; break;
    case cudaDevAttrGlobalL1CacheSupported: *value = 1; break;
    case cudaDevAttrLocalL1CacheSupported: *value = 1; break;
    case cudaDevAttrManagedMemory: *value = 1; break;
    case cudaDevAttrConcurrentManagedAccess: *value = 1; break;
    case cudaDevAttrPageableMemoryAccess: *value = 0; break;
    case cudaDevAttrCooperativeLaunch: *value = 1; break;
    case cudaDevAttrHostRegisterSupported: *value = 1; break;
    case cudaDevAttrMemoryPoolsSupported: *value = 1; break;
    case cudaDevAttrKernelExecTimeout: *value = 0; break;
    case cudaDevAttrGpuOverlap: *value = 1; break;
    default:
        note("cudaDeviceGetAttribute: attribute %d is not emulated", (int)attr);
        return rec(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    if ((e = check_dev(device)) != cudaSuccess) return rec(e);
    cur_device() = device;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    if (!device) return rec(cudaErrorInvalidValue);
    if ((e = check_dev(cur_device())) != cudaSuccess) return rec(e);
    *device = cur_device();
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    if ((e = check_dev(cur_device())) != cudaSuccess) return rec(e);
    host_wait("cudaDeviceSynchronize");
    device_wait_idle(cur_device());
    return rec(device_sticky(cur_device()));
}

/* Waits for the device's work, frees its allocations and clears a sticky fault.
 * Unlike CUDA, streams and events stay valid. */
cudaError_t cudaDeviceReset(void) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    int dev = cur_device();
    if ((e = check_dev(dev)) != cudaSuccess) return rec(e);
    device_wait_idle(dev);
    State &st = state();
    {
        std::lock_guard<std::mutex> lk(st.mu);
        for (auto it = st.allocs.begin(); it != st.allocs.end();) {
            if (it->second.device == dev && it->second.kind == ALLOC_DEVICE) {
                free((void *)it->first);
                it = st.allocs.erase(it);
            } else {
                ++it;
            }
        }
        st.devs[(size_t)dev]->used = 0;
        st.kattr.clear();
    }
    st.devs[(size_t)dev]->sticky.store(0);
    thread_err_slot()->store(0);
    return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    if (leastPriority) *leastPriority = 0;
    if (greatestPriority) *greatestPriority = -5;
    return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *driverVersion) {
    if (!driverVersion) return rec(cudaErrorInvalidValue);
    *driverVersion = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *runtimeVersion) {
    if (!runtimeVersion) return rec(cudaErrorInvalidValue);
    *runtimeVersion = CUDART_VERSION;
    return cudaSuccess;
}

/* ---- memory --------------------------------------------------------------------------------------- */

cudaError_t cudaMalloc(void **devPtr, size_t size) {
    ENTER_DEV();
    if (!devPtr) return rec(cudaErrorInvalidValue);
    *devPtr = nullptr;
    if (size == 0) return cudaSuccess;
    int dev = cur_device();
    State &st = state();
    {
        std::lock_guard<std::mutex> lk(st.mu);
        Device *d = st.devs[(size_t)dev];
        if (size > config().mem_bytes - d->used) {
            note("cudaMalloc(%zu): only %zu of %zu bytes left on device %d", size, config().mem_bytes - d->used,
                 config().mem_bytes, dev);
            return rec(cudaErrorMemoryAllocation);
        }
        d->used += size;
    }
    void *p = nullptr;
    if (posix_memalign(&p, 256, size) != 0) {
        std::lock_guard<std::mutex> lk(st.mu);
        st.devs[(size_t)dev]->used -= size;
        note("cudaMalloc(%zu): the host is out of memory", size);
        return rec(cudaErrorMemoryAllocation);
    }
    memset(p, 0xff, size);
    {
        std::lock_guard<std::mutex> lk(st.mu);
        st.allocs[(uintptr_t)p] = Alloc{size, dev, ALLOC_DEVICE};
    }
    *devPtr = p;
    return cudaSuccess;
}

/* Like a real cudaFree, waits for the device's work first (no kernel still reads
 * the block when it goes back to the host allocator). */
cudaError_t cudaFree(void *devPtr) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    if (!devPtr) return rec(device_sticky(cur_device()));
    PtrInfo i = lookup_ptr(devPtr);
    if (i.kind != ALLOC_DEVICE || i.base != devPtr) {
        note("cudaFree(%p): not the start of a device allocation", devPtr);
        return rec(cudaErrorInvalidValue);
    }
    if ((e = device_sticky(i.device)) != cudaSuccess) return rec(e);
    host_wait("cudaFree");
    device_wait_idle(i.device);
    State &st = state();
    {
        std::lock_guard<std::mutex> lk(st.mu);
        auto it = st.allocs.find((uintptr_t)devPtr);
        if (it == st.allocs.end()) return rec(cudaErrorInvalidValue); /* freed concurrently */
        st.devs[(size_t)it->second.device]->used -= it->second.size;
        st.allocs.erase(it);
    }
    free(devPtr);
    return cudaSuccess;
}

static bool overlaps_locked(State &st, uintptr_t p, size_t n) {
    auto it = st.allocs.lower_bound(p + n);
    if (it == st.allocs.begin()) return false;
    --it;
    return it->first + it->second.size > p;
}

cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags) {
    ENTER_DEV();
    (void)flags; /* portable/mapped/write-combined: all the same host memory here */
    if (!pHost) return rec(cudaErrorInvalidValue);
    *pHost = nullptr;
    if (size == 0) return cudaSuccess;
    void *p = nullptr;
    host_wait("cudaHostAlloc"); /* a GPU synchronises the device to map the pages */
    if (posix_memalign(&p, 4096, size) != 0) return rec(cudaErrorMemoryAllocation);
    State &st = state();
    std::lock_guard<std::mutex> lk(st.mu);
    st.allocs[(uintptr_t)p] = Alloc{size, cur_device(), ALLOC_PINNED};
    *pHost = p;
    return cudaSuccess;
}

cudaError_t cudaMallocHost(void **ptr, size_t size) { return cudaHostAlloc(ptr, size, cudaHostAllocDefault); }

cudaError_t cudaFreeHost(void *ptr) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    if (!ptr) return cudaSuccess;
    PtrInfo i = lookup_ptr(ptr);
    if (i.kind != ALLOC_PINNED || i.base != ptr) {
        note("cudaFreeHost(%p): not the start of a cudaMallocHost/cudaHostAlloc block", ptr);
        return rec(cudaErrorInvalidValue);
    }
    host_wait("cudaFreeHost");
    device_wait_idle(i.device); /* an async copy may still use it */
    State &st = state();
    {
        std::lock_guard<std::mutex> lk(st.mu);
        st.allocs.erase((uintptr_t)ptr);
    }
    free(ptr);
    return cudaSuccess;
}

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags) {
    ENTER_DEV();
    (void)flags;
    if (!ptr || size == 0) return rec(cudaErrorInvalidValue);
    host_wait("cudaHostRegister");
    State &st = state();
    std::lock_guard<std::mutex> lk(st.mu);
    if (overlaps_locked(st, (uintptr_t)ptr, size)) {
        note("cudaHostRegister(%p, %zu): overlaps a registered range", ptr, size);
        return rec(cudaErrorHostMemoryAlreadyRegistered);
    }
    st.allocs[(uintptr_t)ptr] = Alloc{size, cur_device(), ALLOC_REGISTERED};
    return cudaSuccess;
}

cudaError_t cudaHostUnregister(void *ptr) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    PtrInfo i = lookup_ptr(ptr);
    if (i.kind != ALLOC_REGISTERED || i.base != ptr) return rec(cudaErrorHostMemoryNotRegistered);
    host_wait("cudaHostUnregister");
    device_wait_idle(i.device);
    State &st = state();
    std::lock_guard<std::mutex> lk(st.mu);
    st.allocs.erase((uintptr_t)ptr);
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total) {
    ENTER_DEV();
    State &st = state();
    std::lock_guard<std::mutex> lk(st.mu);
    size_t used = st.devs[(size_t)cur_device()]->used;
    if (free_bytes) *free_bytes = config().mem_bytes - used;
    if (total) *total = config().mem_bytes;
    return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    if (!attributes) return rec(cudaErrorInvalidValue);
    memset(attributes, 0, sizeof *attributes);
    PtrInfo i = lookup_ptr(ptr);
    switch (i.kind) {
    case ALLOC_DEVICE:
        attributes->type = cudaMemoryTypeDevice;
        attributes->device = i.device;
        attributes->devicePointer = const_cast<void *>(ptr);
        break;
    case ALLOC_PINNED:
    case ALLOC_REGISTERED: /* mapped at the same address (unified addressing) */
        attributes->type = cudaMemoryTypeHost;
        attributes->device = i.device;
        attributes->devicePointer = const_cast<void *>(ptr);
        attributes->hostPointer = const_cast<void *>(ptr);
        break;
    default: /* CUDA 11+: success, type unregistered */
        attributes->type = cudaMemoryTypeUnregistered;
        attributes->device = -2;
        attributes->hostPointer = const_cast<void *>(ptr);
        break;
    }
    return cudaSuccess;
}

/* ---- errors -------------------------------------------------------------------------------------- */

cudaError_t cudaGetLastError(void) {
    if (g_forked.load()) return cudaErrorInitializationError;
    int e = thread_err_slot()->exchange(0);
    if (e) return (cudaError_t)e;
    if (g_shutdown.load()) return cudaSuccess;
    return device_sticky(cur_device());
}

cudaError_t cudaPeekAtLastError(void) {
    if (g_forked.load()) return cudaErrorInitializationError;
    int e = thread_err_slot()->load();
    if (e) return (cudaError_t)e;
    if (g_shutdown.load()) return cudaSuccess;
    return device_sticky(cur_device());
}

#define AUG_EMU_ERRORS(X)                                                                           \
    X(cudaSuccess, "no error")                                                                      \
    X(cudaErrorInvalidValue, "invalid argument")                                                    \
    X(cudaErrorMemoryAllocation, "out of memory")                                                   \
    X(cudaErrorInitializationError, "initialization error")                                         \
    X(cudaErrorCudartUnloading, "driver shutting down")                                             \
    X(cudaErrorInvalidConfiguration, "invalid configuration argument")                              \
    X(cudaErrorInvalidPitchValue, "invalid pitch argument")                                         \
    X(cudaErrorInvalidSymbol, "invalid device symbol")                                              \
    X(cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy")                         \
    X(cudaErrorInvalidDeviceFunction, "invalid device function")                                    \
    X(cudaErrorInvalidDevice, "invalid device ordinal")                                             \
    X(cudaErrorNoDevice, "no CUDA-capable device is detected")                                      \
    X(cudaErrorInvalidResourceHandle, "invalid resource handle")                                    \
    X(cudaErrorNotReady, "device not ready")                                                        \
    X(cudaErrorIllegalAddress, "an illegal memory access was encountered")                          \
    X(cudaErrorLaunchOutOfResources, "too many resources requested for launch")                     \
    X(cudaErrorLaunchTimeout, "the launch timed out and was terminated")                            \
    X(cudaErrorAssert, "device-side assert triggered")                                              \
    X(cudaErrorHostMemoryAlreadyRegistered, "part or all of the requested memory range is already mapped") \
    X(cudaErrorHostMemoryNotRegistered, "pointer does not correspond to a registered memory region") \
    X(cudaErrorIllegalInstruction, "an illegal instruction was encountered")                        \
    X(cudaErrorMisalignedAddress, "misaligned address")                                             \
    X(cudaErrorLaunchFailure, "unspecified launch failure")                                         \
    X(cudaErrorNotSupported, "operation not supported")                                             \
    X(cudaErrorNotPermitted, "operation not permitted")                                             \
    X(cudaErrorUnknown, "unknown error")

const char *cudaGetErrorName(cudaError_t error) {
#define X(code, text) \
    case code: return #code;
    switch (error) { AUG_EMU_ERRORS(X) default: return "cudaErrorUnknown"; }
#undef X
}

const char *cudaGetErrorString(cudaError_t error) {
#define X(code, text) \
    case code: return text;
    switch (error) { AUG_EMU_ERRORS(X) default: return "unrecognized error code"; }
#undef X
}

} /* extern "C" */

namespace aug_emu {
/* The error called `name` (AUG_EMU_FAULT). */
static bool error_named(const char *name, int *err) {
#define X(code, text)                 \
    if (strcmp(name, #code) == 0) {   \
        *err = code;                  \
        return true;                  \
    }
    AUG_EMU_ERRORS(X)
#undef X
    return false;
}
} /* namespace aug_emu */

extern "C" {

/* ---- function attributes ----------------------------------------------------------------------- */

cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    if (!func) return rec(cudaErrorInvalidDeviceFunction);
    State &st = state();
    std::lock_guard<std::mutex> lk(st.mu);
    KernelAttr &k = st.kattr[func];
    switch (attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize: {
        /* Static plus dynamic may not exceed the opt-in maximum of the device. */
        long stat = k.static_bytes < 0 ? 0 : k.static_bytes;
        if (value < 0 || (size_t)value + (size_t)stat > kSharedPerBlockOptin) {
            note("cudaFuncSetAttribute: %d dynamic + %ld static shared bytes exceed the %zu opt-in maximum", value,
                 stat, kSharedPerBlockOptin);
            return rec(cudaErrorInvalidValue);
        }
        k.max_dyn = value;
        k.max_dyn_set = true;
        return cudaSuccess;
    }
    case cudaFuncAttributePreferredSharedMemoryCarveout:
        if (value < -1 || value > 100) return rec(cudaErrorInvalidValue);
        k.carveout = value;
        return cudaSuccess;
    default: return cudaSuccess; /* accepted, no effect here */
    }
}

} /* extern "C" */

namespace aug_emu {
int occupancy_blocks(const KernelAttr &k, int block_threads, size_t dyn_bytes) {
    size_t smem = (k.static_bytes < 0 ? 0 : (size_t)k.static_bytes) + dyn_bytes + 1024;
    int warps = (block_threads + 31) / 32;
    const int regs = k.regs > 0 ? k.regs : 32;
    int n = std::min(2048 / (warps * 32), 32);
    n = std::min(n, 65536 / (warps * ((regs * 32 + 255) / 256 * 256)));
    n = std::min(n, (int)((228 * 1024) / smem));
    return n;
}
} /* namespace aug_emu */

extern "C" {

/* Resident blocks per SM on an H100: limited by 2048 threads, 32 blocks, 64K
 * registers and 228 KiB of shared memory (1 KiB reserved per block). The
 * registers per thread are the kernel's count in the register table
 * (kernel_registers, learned when the kernel was first launched; allocated per
 * warp in units of 256), or 32 before its first launch and for a kernel the
 * table lacks (one of at most 64 registers). */
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, const void *func, int blockSize,
                                                                   size_t dynamicSMemSize, unsigned int flags) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    if (!numBlocks || blockSize <= 0 || blockSize > kMaxThreadsPerBlock) return rec(cudaErrorInvalidValue);
    if (!func) return rec(cudaErrorInvalidDeviceFunction);
    *numBlocks = occupancy_blocks(kernel_attr(func), blockSize, dynamicSMemSize);
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func, int blockSize,
                                                          size_t dynamicSMemSize) {
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize, 0);
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    if (!attr) return rec(cudaErrorInvalidValue);
    if (!func) return rec(cudaErrorInvalidDeviceFunction);
    KernelAttr k = kernel_attr(func);
    memset(attr, 0, sizeof *attr);
    /* The static size is measured at the kernel's first launch (0 before it). */
    attr->sharedSizeBytes = k.static_bytes < 0 ? 0 : (size_t)k.static_bytes;
    attr->maxThreadsPerBlock = kMaxThreadsPerBlock;
    attr->numRegs = 32;
    attr->ptxVersion = 90;
    attr->binaryVersion = 90;
    attr->maxDynamicSharedSizeBytes = k.max_dyn_set ? k.max_dyn : (int)(kSharedPerBlock - attr->sharedSizeBytes);
    attr->preferredShmemCarveout = k.carveout;
    return cudaSuccess;
}

} /* extern "C" */

/* The launches so far of kernels whose identifier is `name` (e.g. "aug__k_castv"
 * for every aug__k_castv<S, D, CV>), queued by any thread. Exported like
 * aug_emu_host_waits, for tests that check which kernel an op took. */
extern "C" __attribute__((visibility("default"))) long long aug_emu_launches(const char *name) {
    std::lock_guard<std::mutex> lk(aug_emu::launch_count_mu);
    auto it = aug_emu::launch_counts().find(name ? name : "");
    return it == aug_emu::launch_counts().end() ? 0 : it->second;
}
