/* emu_internal.h: state shared by the emulation library's sources (internal).
 *
 *   emu_runtime.cpp  configuration, devices, errors, memory registry, device and
 *                    memory API, error strings, exit and fork handling
 *   emu_stream.cpp   streams (one host thread each), events, launches, async copies
 *   emu_block.cpp    the block scheduler: fibers, barriers, warp ops, shared memory
 *   emu_fiber.cpp    context switch and stacks
 *   emu_cublas.cpp   the cuBLAS stand-in
 *   emu_nvml.cpp     the NVML stand-in (device count without initialising)
 *   emu_hostwait.cpp the count of host waits per calling thread
 *   emu_memstats.cpp the memory efficiency and occupancy of each kernel's launches */
#ifndef AUG_EMU_INTERNAL_H
#define AUG_EMU_INTERNAL_H

#include "cuda_emu.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace aug_emu {

struct Executor;

/* The calling thread's T, made on first use and kept in a process-wide list, never
 * freed: a thread_local object with a destructor registers it with
 * __cxa_thread_atexit, whose record LeakSanitizer reports as leaked in a child
 * forked while stream threads run (their exit handlers never run there). One list
 * per T (the recorders of emu_memstats.cpp, the wait counts of emu_hostwait.cpp). */
template <typename T> T &per_thread() {
    static thread_local T *mine = nullptr;
    if (!mine) {
        static std::mutex mu;
        static std::vector<T *> *all = new std::vector<T *>;
        std::lock_guard<std::mutex> lock(mu);
        all->push_back(mine = new T);
    }
    return *mine;
}

/* ---- configuration (environment, read once) ------------------------------------- */
enum Order { ORDER_FORWARD, ORDER_REVERSE, ORDER_SHUFFLE };
struct Config {
    int ndev_physical;  /* AUG_EMU_DEVICES, 0..8, default 2 (the emulated NVML's count) */
    int ndev;           /* those of them CUDA_VISIBLE_DEVICES selects (the runtime's count) */
    size_t mem_bytes;   /* AUG_EMU_MEMORY_MB per device, default 81920 */
    size_t stack_bytes; /* AUG_EMU_STACK_KB per fiber, default 64 (256 under ASan) */
    uint64_t seed;      /* AUG_EMU_SEED for the shuffled order */
    bool verbose;       /* AUG_EMU_VERBOSE=1: notes on refused API calls */
    std::string fault_kernel; /* AUG_EMU_FAULT: launches of kernels whose name contains it fault */
    int fault_error;          /* ... leaving this error sticky (default cudaErrorIllegalAddress) */
};
const Config &config();
extern std::atomic<int> g_order; /* AUG_EMU_ORDER / aug_emu_set_order */

/* Emulated hardware limits (an H100 SXM). */
constexpr size_t kSharedPerBlock = 48 * 1024;       /* static limit, default dynamic limit */
constexpr size_t kSharedPerBlockOptin = 227 * 1024; /* cudaFuncAttributeMaxDynamicSharedMemorySize cap */
constexpr int kMaxThreadsPerBlock = 1024;

/* ---- kernels --------------------------------------------------------------------- */
/* Registers per thread of the kernel a launch names (AUG_LAUNCH's kernel expression,
 * e.g. "(k_red_block<T>)": its identifier, k_red_block), from the table that
 * scripts/check_fatbin.py --write-registers reads out of the nvcc build (the most
 * over targets and instantiations); 0 when the table lacks it or is off. */
int kernel_registers(const char *launch_name);
/* The identifier a kernel expression names: "(k_red_block<T>)" -> "k_red_block". */
std::string kernel_identifier(const char *expr);
/* Counts a launch of the kernel a launch names, by identifier (aug_emu_launches). */
void count_launch(const char *launch_name);
constexpr uint64_t kRegistersPerBlock = 65536; /* every target, sm_75..sm_100 */

struct KernelAttr {
    int max_dyn = (int)kSharedPerBlock; /* cudaFuncAttributeMaxDynamicSharedMemorySize */
    bool max_dyn_set = false;           /* opted in: static + dynamic may reach 227 KiB */
    int carveout = -1;
    long static_bytes = -1; /* AUG_SHARED bytes, learned at the first launch; -1 unknown */
    int regs = 0;           /* registers per thread from the register table, learned at the first launch; 0 unknown */
};
/* Resident blocks per SM of a kernel with these attributes at this block size and
 * dynamic shared memory (cudaOccupancyMaxActiveBlocksPerMultiprocessor's rule). */
int occupancy_blocks(const KernelAttr &k, int block_threads, size_t dyn_bytes);
/* Copy of a kernel's attributes (default ones if never set). */
KernelAttr kernel_attr(const void *kfn);
void kernel_set_static_bytes(const void *kfn, size_t bytes);
void kernel_set_registers(const void *kfn, int regs);

/* One launch, queued on a stream and executed by its thread. */
struct LaunchRec {
    std::string name;
    const void *kfn = nullptr;
    dim3 grid, block;
    size_t dyn = 0;         /* dynamic shared bytes */
    size_t shmem_limit = 0; /* static + dynamic allowed (48 KiB or the opt-in) */
    void (*run)(void *) = nullptr;
    void *call = nullptr;
    void (*destroy)(void *) = nullptr;
    int device = 0;
    std::shared_ptr<std::atomic<int>> err_slot; /* the launching thread's last error */
    ~LaunchRec() {
        if (destroy) destroy(call);
    }
};

Executor *executor_create();
void executor_destroy(Executor *ex);
/* Runs every block of the launch on this (stream) thread; on a failure records it
 * (sticky on the device, or the launching thread's error for a configuration
 * problem found while running) and prints the diagnostic. */
void execute_launch(Executor &ex, LaunchRec &L);

/* The memory-efficiency counter (emu_memstats.cpp), called by execute_launch on the
 * stream's thread: before a launch's first block, after each block (ok: it ran to
 * the end), after its last. They do nothing while recording is off. */
void memstats_launch_begin(const LaunchRec &L);
void memstats_block_end(bool ok);
void memstats_launch_end(const LaunchRec &L);

/* ---- devices, memory ------------------------------------------------------------ */
struct StreamImpl;
struct Device {
    int id = 0;
    std::atomic<int> sticky{0}; /* cudaErrorLaunchFailure after a kernel fault */
    size_t used = 0;            /* device bytes allocated (under State::mu) */
    StreamImpl *legacy = nullptr;
    /* Held while an operation is queued on the legacy stream or a blocking stream,
     * so each such pair is ordered one way or the other (emu_stream.cpp). */
    std::mutex order_mu;
    std::vector<StreamImpl *> blocking; /* live blocking streams (under order_mu) */
    cudaDeviceProp prop;
};

enum AllocKind { ALLOC_NONE, ALLOC_DEVICE, ALLOC_PINNED, ALLOC_REGISTERED };
struct Alloc {
    size_t size;
    int device;
    AllocKind kind;
};
struct PtrInfo {
    AllocKind kind = ALLOC_NONE;
    int device = -1;
    const char *base = nullptr;
    size_t size = 0;
};
/* The registered allocation containing p, if any. */
PtrInfo lookup_ptr(const void *p);
/* Counts a host wait of the calling thread in the API call api (emu_hostwait.cpp). */
void host_wait(const char *api);
/* Is p pageable host memory (neither device memory nor pinned or registered)? */
bool host_pageable(const void *p);
/* Does [p, p + n) lie inside the allocation? */
inline bool in_range(const PtrInfo &i, const void *p, size_t n) {
    return (const char *)p >= i.base && (size_t)((const char *)p - i.base) <= i.size &&
           n <= i.size - (size_t)((const char *)p - i.base);
}

struct State {
    std::mutex mu; /* everything below */
    std::vector<Device *> devs;
    std::map<uintptr_t, Alloc> allocs;
    std::set<StreamImpl *> streams; /* all live streams, legacy ones included */
    std::set<void *> events;
    std::map<const void *, KernelAttr> kattr;
};
State &state(); /* created at the first API call, never destroyed */

extern std::atomic<bool> g_forked;   /* set in a fork() child of an initialised process (AUG_EMU_FORK=always:
                                      * of any process): every call fails */
extern std::atomic<bool> g_shutdown; /* set at process exit */

/* ---- per host thread --------------------------------------------------------------- */
int &cur_device();
std::shared_ptr<std::atomic<int>> &thread_err_slot();
/* Records e as the thread's last error (unless success) and returns it. */
cudaError_t rec(cudaError_t e);
/* The check every API call starts with: fork child, unloading, initialisation. */
cudaError_t api_enter();
/* api_enter plus a valid current device without a sticky fault. */
cudaError_t enter_dev();
cudaError_t check_dev(int dev);
/* The sticky error of a device (cudaSuccess if healthy). */
cudaError_t device_sticky(int dev);
/* Marks the device faulted and prints the one-line diagnostic. */
void device_fault(int dev, const std::string &msg, cudaError_t err = cudaErrorLaunchFailure);
/* A note on stderr when AUG_EMU_VERBOSE=1. */
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Checks a copy's direction against the registry (inferring cudaMemcpyDefault) and
 * that [dst, +dn) and [src, +sn) stay inside their allocations. */
cudaError_t check_copy(void *dst, size_t dn, const void *src, size_t sn, cudaMemcpyKind *kind, const char *api);
/* Checks that [p, +n) is device memory (of `device` unless it is -1). */
cudaError_t check_device_range(const void *p, size_t n, const char *api, const char *what, int device);

/* ---- streams (emu_stream.cpp) ------------------------------------------------------- */
/* How far a stream has got; shared with the operations of other streams that wait
 * for it (they may outlive the stream). */
struct Progress {
    std::mutex m;
    std::condition_variable cv;
    std::atomic<uint64_t> done{0};   /* completed operations: changed under m, read without it */
    std::atomic<bool> exited{false}; /* the stream's thread has ended: set under m */
};
/* An operation of another stream that must complete first: its sequence number. */
struct Dep {
    std::shared_ptr<Progress> p;
    uint64_t seq;
};

struct StreamImpl {
    uint32_t magic = 0x53545245u;
    int device = 0;
    unsigned flags = 0;
    int priority = 0;
    bool legacy = false;     /* the device's legacy default stream (handle 0) */
    bool per_thread = false; /* a host thread's cudaStreamPerThread */
    std::mutex m;
    std::condition_variable cv_work;
    struct Op {
        std::function<void(Executor &)> fn;
        bool always;           /* runs even when the device has faulted (event records) */
        std::vector<Dep> deps; /* the legacy stream's implicit synchronisation */
    };
    std::deque<Op> q;
    /* Queued operations: changed under m (and the device's order_mu unless the
     * stream is non-blocking), also read without them. */
    std::atomic<uint64_t> enq{0};
    std::shared_ptr<Progress> prog = std::make_shared<Progress>();
    bool stop = false;
    std::thread th;
    Executor *ex = nullptr; /* the thread's executor (kept reachable: a fork child's LSan) */
    /* Ordered with the legacy stream (cudaStreamPerThread included)? */
    bool blocking() const { return !legacy && !(flags & cudaStreamNonBlocking); }
};

/* Maps a handle (0 and cudaStreamLegacy: the current device's legacy stream;
 * cudaStreamPerThread: the calling thread's stream of the current device) to a live
 * stream, or nullptr with *err set. */
StreamImpl *resolve_stream(cudaStream_t s, cudaError_t *err);
/* Queues an operation; returns its sequence number. On the legacy stream it waits
 * for the work queued so far on the device's blocking streams; on a blocking stream,
 * for the work queued so far on the legacy stream. */
uint64_t enqueue(StreamImpl *s, std::function<void(Executor &)> fn, bool always = false);
/* Waits until the stream has completed operation seq (all queued ones if 0). */
void stream_wait(StreamImpl *s, uint64_t seq = 0);
/* Waits for the work queued so far on every stream of the device. */
void device_wait_idle(int dev);
StreamImpl *stream_new(int dev, unsigned flags, int priority, bool legacy);
/* Stops the stream threads at exit (bounded wait). */
void streams_shutdown();

} /* namespace aug_emu */

#endif
