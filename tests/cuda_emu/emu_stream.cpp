/* emu_stream.cpp: streams, events, kernel launches and copies of the CUDA emulation.
 *
 * Every stream, including each device's default stream, has a FIFO of operations
 * (kernel, copy, memset, event record, event wait, host function, cuBLAS call)
 * executed in order by the stream's own host thread (started at its first
 * operation), so a missing synchronisation shows up as a wrong result.
 * Priorities are accepted and reported, not scheduled.
 *
 * The legacy default stream (handles 0 and cudaStreamLegacy, one per device) is
 * synchronised with the device's blocking streams as in CUDA, by explicit
 * dependencies rather than a lock held while work runs: an operation queued on the
 * legacy stream first waits for the operations queued so far on every blocking
 * stream of the device, and one queued on a blocking stream first waits for those
 * queued so far on the legacy stream. Streams created with cudaStreamNonBlocking
 * are exempt both ways, and blocking streams still run concurrently with each
 * other. The queueing itself happens under the device's order_mu, so each legacy /
 * blocking pair is ordered one way or the other even when host threads race.
 * cudaStreamPerThread is a blocking stream of the calling host thread and current
 * device, created at its first use and destroyed (after its work) when the thread
 * exits.
 *
 * Semantics kept from CUDA: async copies happen when the stream reaches them (so
 * also from pageable memory: the host buffer must stay valid until then); a
 * synchronous cudaMemcpy/cudaMemset goes through the current device's legacy
 * stream (so after the blocking streams' earlier work) and waits; cudaFree and
 * cudaDeviceSynchronize wait for every stream of the device; cudaStreamWaitEvent
 * waits for the event's most recent record at the time of the call (a
 * never-recorded event: no wait); event times come from a steady clock when the
 * record executes.
 *
 * Devices, as the programming guide's "Stream and Event Behavior" puts them: each
 * device has its own legacy stream, and the handles 0 / cudaStreamLegacy /
 * cudaStreamPerThread mean the CURRENT device's (so cudaStreamSynchronize(0) and
 * cudaStreamQuery(0) with cuda:0 current never look at cuda:1's work); streams and
 * events belong to the device current when they were created. A launch into a
 * stream of another device than the current one is cudaErrorInvalidResourceHandle,
 * and so are cudaEventRecord of an event onto a stream of another device and
 * cudaEventElapsedTime of events of two devices; copies, cudaStreamSynchronize /
 * Query of a stream handle, cudaEventSynchronize / Query and cudaStreamWaitEvent
 * (a stream waiting for another device's event) work whatever device is current.
 *
 * Launch configuration errors (block > 1024 threads or over (1024, 1024, 64), grid
 * over (2^31-1, 65535, 65535), a zero dimension: cudaErrorInvalidConfiguration; too
 * much shared memory: cudaErrorInvalidValue; more registers than a block may have,
 * from the kernel's count in the fatbinary (kernel_registers):
 * cudaErrorLaunchOutOfResources) are not sticky and the kernel does not run.
 * Once a device has faulted its streams skip queued work (records still complete,
 * so nothing waits forever). */
#include "emu_internal.h"

#include <algorithm>
#include <cstdio>
#include <pthread.h>

namespace aug_emu {

struct Record {
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    std::chrono::steady_clock::time_point t;
};

struct EventImpl {
    int device = 0;
    unsigned flags = 0;
    std::mutex m;
    std::shared_ptr<Record> cur; /* the most recent record, null if never recorded */
};

static const auto kPoll = std::chrono::milliseconds(50); /* bounded waits notice exit */

/* A condition-variable wake-up costs tens of microseconds on a small VM; for the
 * common launch/copy/synchronise ping-pong, both sides first poll for a short while
 * (yielding the CPU) before they sleep. */
static const auto kSpin = std::chrono::microseconds(100);
template <class Pred>
static bool spin_until(Pred p) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0;; i++) {
        if (p()) return true;
        if ((i & 15) == 15 && std::chrono::steady_clock::now() - t0 > kSpin) return false;
        std::this_thread::yield();
    }
}

/* Waits until p has completed operation target (or its thread has ended). */
static void progress_wait(Progress &p, uint64_t target) {
    if (spin_until([&p, target] { return p.done.load() >= target; })) return;
    std::unique_lock<std::mutex> lk(p.m);
    while (p.done.load() < target && !p.exited.load() && !g_shutdown.load()) p.cv.wait_for(lk, kPoll);
}

static void wait_record(Record &r) {
    std::unique_lock<std::mutex> lk(r.m);
    while (!r.done && !g_shutdown.load()) r.cv.wait_for(lk, kPoll);
}

static void stream_main(StreamImpl *s) {
    char name[16];
    snprintf(name, sizeof name, "emu-d%d-%s", s->device, s->legacy ? "legacy" : s->per_thread ? "thread" : "stream");
    pthread_setname_np(pthread_self(), name);
    Executor *ex = executor_create();
    {
        std::lock_guard<std::mutex> lk(s->m);
        s->ex = ex;
    }
    Progress &pr = *s->prog;
    for (;;) {
        StreamImpl::Op op;
        spin_until([s, &pr] { return s->enq.load() != pr.done.load() || g_shutdown.load(); });
        {
            std::unique_lock<std::mutex> lk(s->m);
            s->cv_work.wait(lk, [s] { return s->stop || !s->q.empty() || g_shutdown.load(); });
            if (g_shutdown.load() || s->q.empty()) break; /* exit: queued work is dropped */
            op = std::move(s->q.front());
            s->q.pop_front();
        }
        for (const Dep &d : op.deps) progress_wait(*d.p, d.seq); /* legacy-stream ordering */
        op.deps.clear();
        if (!g_shutdown.load() && (op.always || device_sticky(s->device) == cudaSuccess)) op.fn(*ex);
        op.fn = nullptr; /* release captures (launch records) before counting it done */
        {
            std::lock_guard<std::mutex> lk(pr.m);
            pr.done++;
        }
        pr.cv.notify_all();
    }
    {
        std::lock_guard<std::mutex> lk(s->m);
        s->ex = nullptr;
    }
    executor_destroy(ex);
    {
        std::lock_guard<std::mutex> lk(pr.m);
        pr.exited = true;
    }
    pr.cv.notify_all();
}

StreamImpl *stream_new(int dev, unsigned flags, int priority, bool legacy) {
    StreamImpl *s = new StreamImpl;
    s->device = dev;
    s->flags = flags;
    s->priority = priority;
    s->legacy = legacy;
    State &st = state();
    if (s->blocking()) {
        Device &d = *st.devs[(size_t)dev];
        std::lock_guard<std::mutex> lk(d.order_mu);
        d.blocking.push_back(s);
    }
    std::lock_guard<std::mutex> lk(st.mu);
    st.streams.insert(s);
    return s;
}

/* A dependency on the operations queued so far on t, unless they are all done.
 * The caller holds t's device's order_mu, so t->enq does not move. */
static void add_tail_dep(std::vector<Dep> &deps, StreamImpl *t) {
    uint64_t tail = t->enq.load();
    if (t->prog->done.load() < tail) deps.push_back(Dep{t->prog, tail});
}

uint64_t enqueue(StreamImpl *s, std::function<void(Executor &)> fn, bool always) {
    StreamImpl::Op op{std::move(fn), always, {}};
    std::unique_lock<std::mutex> order;
    if (s->legacy || s->blocking()) {
        Device &d = *state().devs[(size_t)s->device];
        order = std::unique_lock<std::mutex>(d.order_mu);
        if (s->legacy) {
            for (StreamImpl *b : d.blocking) add_tail_dep(op.deps, b);
        } else {
            add_tail_dep(op.deps, d.legacy);
        }
    }
    uint64_t seq;
    {
        std::lock_guard<std::mutex> lk(s->m);
        if (!s->th.joinable() && !s->prog->exited.load()) s->th = std::thread(stream_main, s);
        s->q.push_back(std::move(op));
        seq = ++s->enq;
    }
    if (order.owns_lock()) order.unlock();
    s->cv_work.notify_one();
    return seq;
}

void stream_wait(StreamImpl *s, uint64_t seq) { progress_wait(*s->prog, seq ? seq : s->enq.load()); }

static std::vector<StreamImpl *> device_streams(int dev) {
    State &st = state();
    std::lock_guard<std::mutex> lk(st.mu);
    std::vector<StreamImpl *> v;
    for (StreamImpl *s : st.streams)
        if (s->device == dev || dev < 0) v.push_back(s);
    return v;
}

/* Through the streams' Progress: a stream destroyed meanwhile stays safe to wait for. */
void device_wait_idle(int dev) {
    std::vector<Dep> tails;
    {
        State &st = state();
        std::lock_guard<std::mutex> lk(st.mu);
        for (StreamImpl *s : st.streams)
            if (s->device == dev) tails.push_back(Dep{s->prog, s->enq.load()});
    }
    for (const Dep &d : tails) progress_wait(*d.p, d.seq);
}

/* Waits for the work of a stream already removed from State::streams, then stops
 * its thread and frees it. */
static void stream_release(StreamImpl *s) {
    stream_wait(s);
    if (s->blocking()) {
        Device &d = *state().devs[(size_t)s->device];
        std::lock_guard<std::mutex> lk(d.order_mu);
        auto it = std::find(d.blocking.begin(), d.blocking.end(), s);
        if (it != d.blocking.end()) d.blocking.erase(it);
    }
    {
        std::lock_guard<std::mutex> lk(s->m);
        s->stop = true;
    }
    s->cv_work.notify_all();
    if (s->th.joinable()) s->th.join();
    delete s;
}

void streams_shutdown() {
    std::vector<StreamImpl *> all = device_streams(-1);
    for (StreamImpl *s : all) {
        {
            std::lock_guard<std::mutex> lk(s->m);
            s->stop = true;
        }
        s->cv_work.notify_all();
        s->prog->cv.notify_all();
    }
    /* A thread stuck in a kernel that never ends (a spin-wait across blocks cannot
     * finish here) must not hang the exit: give each 2 s, then detach it. */
    for (StreamImpl *s : all) {
        if (!s->th.joinable()) continue;
        Progress &pr = *s->prog;
        std::unique_lock<std::mutex> lk(pr.m);
        bool ok = pr.cv.wait_for(lk, std::chrono::seconds(2), [&pr] { return pr.exited.load(); });
        lk.unlock();
        if (ok) s->th.join();
        else s->th.detach();
    }
}

/* The calling thread's cudaStreamPerThread streams, one per device, released (after
 * their work) when the thread exits. A thread ending after exit() has begun leaves
 * them to streams_shutdown; a fork child leaves the parent's alone. */
struct PerThreadStreams {
    StreamImpl *s[8] = {}; /* AUG_EMU_DEVICES <= 8 */
    ~PerThreadStreams() {
        for (StreamImpl *p : s) {
            if (!p || g_forked.load() || g_shutdown.load()) continue;
            State &st = state();
            {
                std::lock_guard<std::mutex> lk(st.mu);
                st.streams.erase(p);
            }
            stream_release(p);
        }
    }
};

static StreamImpl *per_thread_stream(int dev) {
    static thread_local PerThreadStreams pts;
    StreamImpl *&s = pts.s[dev];
    if (!s) {
        s = stream_new(dev, cudaStreamDefault, 0, false);
        s->per_thread = true;
    }
    return s;
}

StreamImpl *resolve_stream(cudaStream_t h, cudaError_t *err) {
    *err = cudaSuccess;
    if (h == nullptr || h == cudaStreamLegacy || h == cudaStreamPerThread) {
        int d = cur_device();
        if ((*err = check_dev(d)) != cudaSuccess) return nullptr;
        if (h == cudaStreamPerThread) return per_thread_stream(d);
        return state().devs[(size_t)d]->legacy;
    }
    StreamImpl *s = reinterpret_cast<StreamImpl *>(h);
    State &st = state();
    std::lock_guard<std::mutex> lk(st.mu);
    if (!st.streams.count(s)) {
        *err = cudaErrorInvalidResourceHandle;
        return nullptr;
    }
    return s;
}

static EventImpl *resolve_event(cudaEvent_t h) {
    EventImpl *e = reinterpret_cast<EventImpl *>(h);
    State &st = state();
    std::lock_guard<std::mutex> lk(st.mu);
    return st.events.count(e) ? e : nullptr;
}

/* ---- launches -------------------------------------------------------------------------- */

void launch_submit(const char *name, const void *kfn, dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
                   void (*run)(void *), void *call, void (*destroy)(void *)) {
    std::shared_ptr<LaunchRec> L = std::make_shared<LaunchRec>();
    L->run = run;
    L->call = call;
    L->destroy = destroy; /* frees the arguments when the record goes, also on error */
    if (enter_dev() != cudaSuccess) return;
    int dev = cur_device();
    cudaError_t e;
    StreamImpl *s = resolve_stream(stream, &e);
    if (!s) {
        rec(e);
        return;
    }
    if (s->device != dev) {
        note("launch of %s: the stream belongs to device %d, the current device is %d", name, s->device, dev);
        rec(cudaErrorInvalidResourceHandle);
        return;
    }
    uint64_t threads = (uint64_t)block.x * block.y * block.z;
    if (!grid.x || !grid.y || !grid.z || !block.x || !block.y || !block.z || block.x > 1024 || block.y > 1024 ||
        block.z > 64 || threads > (uint64_t)kMaxThreadsPerBlock || grid.x > 2147483647u || grid.y > 65535 ||
        grid.z > 65535) {
        note("launch of %s: invalid configuration grid (%u,%u,%u) block (%u,%u,%u)", name, grid.x, grid.y, grid.z,
             block.x, block.y, block.z);
        rec(cudaErrorInvalidConfiguration);
        return;
    }
    /* Registers, allocated per thread in units of 8 (256 per warp): a block of more
     * than 64 Ki is refused, as the GPU refuses it. */
    count_launch(name);
    if (int regs = kernel_registers(name)) {
        kernel_set_registers(kfn, regs);
        uint64_t need = (uint64_t)((regs + 7) / 8 * 8) * 32 * ((threads + 31) / 32);
        if (need > kRegistersPerBlock) {
            note("launch of %s: %d registers x %llu threads need %llu > %llu registers", name, regs,
                 (unsigned long long)threads, (unsigned long long)need, (unsigned long long)kRegistersPerBlock);
            rec(cudaErrorLaunchOutOfResources);
            return;
        }
    }
    /* Shared memory: dynamic <= the kernel's maximum (48 KiB minus its static use
     * unless raised with cudaFuncSetAttribute), static + dynamic <= 48 KiB or the
     * 227 KiB opt-in. The static size is known from earlier launches; a first launch
     * checks it while running (emu_block.cpp). */
    KernelAttr k = kernel_attr(kfn);
    size_t stat = k.static_bytes < 0 ? 0 : (size_t)k.static_bytes;
    size_t total_max = k.max_dyn_set ? kSharedPerBlockOptin : kSharedPerBlock;
    size_t dyn_max = k.max_dyn_set ? (size_t)k.max_dyn : (stat < kSharedPerBlock ? kSharedPerBlock - stat : 0);
    if (stat > kSharedPerBlock || shmem > dyn_max || stat + shmem > total_max) {
        note("launch of %s: %zu static + %zu dynamic shared bytes exceed the kernel's limit", name, stat, shmem);
        rec(cudaErrorInvalidValue);
        return;
    }
    L->name = name;
    L->kfn = kfn;
    L->grid = grid;
    L->block = block;
    L->dyn = shmem;
    L->shmem_limit = total_max;
    L->device = dev;
    L->err_slot = thread_err_slot();
    enqueue(s, [L](Executor &ex) { execute_launch(ex, *L); });
}

/* ---- copies ---------------------------------------------------------------------------- */

static cudaError_t copy_async(void *dst, const void *src, size_t n, cudaMemcpyKind kind, cudaStream_t stream,
                              bool sync, const char *api) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    StreamImpl *s = resolve_stream(sync ? nullptr : stream, &e);
    if (!s) return rec(e);
    if ((e = device_sticky(s->device)) != cudaSuccess) return rec(e);
    if ((e = check_copy(dst, n, src, n, &kind, api)) != cudaSuccess) return rec(e);
    if (n == 0) return cudaSuccess;
    if (sync) host_wait(api);
    else if ((kind == cudaMemcpyHostToDevice && host_pageable(src)) ||
             (kind == cudaMemcpyDeviceToHost && host_pageable(dst)))
        host_wait("cudaMemcpyAsync (pageable host memory)");
    uint64_t seq = enqueue(s, [dst, src, n](Executor &) { memcpy(dst, src, n); });
    if (!sync) return cudaSuccess;
    stream_wait(s, seq);
    return rec(device_sticky(s->device));
}

} /* namespace aug_emu */

using namespace aug_emu;

extern "C" {

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
    return copy_async(dst, src, count, kind, nullptr, true, "cudaMemcpy");
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream) {
    return copy_async(dst, src, count, kind, stream, false, "cudaMemcpyAsync");
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                              enum cudaMemcpyKind kind, cudaStream_t stream) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    StreamImpl *s = resolve_stream(stream, &e);
    if (!s) return rec(e);
    if ((e = device_sticky(s->device)) != cudaSuccess) return rec(e);
    if (width > dpitch || width > spitch) return rec(cudaErrorInvalidPitchValue);
    if (width == 0 || height == 0) return cudaSuccess;
    size_t dspan = (height - 1) * dpitch + width, sspan = (height - 1) * spitch + width;
    if ((e = check_copy(dst, dspan, src, sspan, &kind, "cudaMemcpy2DAsync")) != cudaSuccess) return rec(e);
    if ((kind == cudaMemcpyHostToDevice && host_pageable(src)) || (kind == cudaMemcpyDeviceToHost && host_pageable(dst)))
        host_wait("cudaMemcpy2DAsync (pageable host memory)");
    enqueue(s, [=](Executor &) {
        for (size_t r = 0; r < height; r++) memcpy((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
    });
    return cudaSuccess;
}

cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
                                cudaStream_t stream) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    if ((e = check_dev(dstDevice)) != cudaSuccess || (e = check_dev(srcDevice)) != cudaSuccess) return rec(e);
    StreamImpl *s = resolve_stream(stream, &e);
    if (!s) return rec(e);
    if ((e = device_sticky(s->device)) != cudaSuccess) return rec(e);
    if ((e = check_device_range(dst, count, "cudaMemcpyPeerAsync", "destination", dstDevice)) != cudaSuccess ||
        (e = check_device_range(src, count, "cudaMemcpyPeerAsync", "source", srcDevice)) != cudaSuccess)
        return rec(e);
    if (count) enqueue(s, [=](Executor &) { memcpy(dst, src, count); });
    return cudaSuccess;
}

static cudaError_t memset_impl(void *p, int value, size_t count, cudaStream_t stream, bool sync) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    StreamImpl *s = resolve_stream(sync ? nullptr : stream, &e);
    if (!s) return rec(e);
    if ((e = device_sticky(s->device)) != cudaSuccess) return rec(e);
    if ((e = check_device_range(p, count, sync ? "cudaMemset" : "cudaMemsetAsync", "destination", -1)) != cudaSuccess)
        return rec(e);
    if (count == 0) return cudaSuccess;
    if (sync) host_wait("cudaMemset");
    uint64_t seq = enqueue(s, [=](Executor &) { memset(p, value & 0xff, count); });
    if (sync) stream_wait(s, seq);
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream) {
    return memset_impl(devPtr, value, count, stream, false);
}

cudaError_t cudaMemset(void *devPtr, int value, size_t count) { return memset_impl(devPtr, value, count, nullptr, true); }

/* ---- streams ---------------------------------------------------------------------------- */

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority) {
    cudaError_t e = enter_dev();
    if (e != cudaSuccess) return e;
    if (!pStream || (flags & ~(unsigned)cudaStreamNonBlocking)) return rec(cudaErrorInvalidValue);
    /* Clamped into [greatest, least] = [-5, 0], as CUDA does. */
    priority = priority < -5 ? -5 : priority > 0 ? 0 : priority;
    *pStream = reinterpret_cast<cudaStream_t>(stream_new(cur_device(), flags, priority, false));
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags) {
    return cudaStreamCreateWithPriority(pStream, flags, 0);
}

cudaError_t cudaStreamCreate(cudaStream_t *pStream) { return cudaStreamCreateWithPriority(pStream, 0, 0); }

/* Waits for the stream's work, then stops and joins its thread. */
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread)
        return rec(cudaErrorInvalidResourceHandle);
    StreamImpl *s = reinterpret_cast<StreamImpl *>(stream);
    State &st = state();
    {
        std::lock_guard<std::mutex> lk(st.mu);
        if (!st.streams.count(s) || s->legacy || s->per_thread) return rec(cudaErrorInvalidResourceHandle);
        st.streams.erase(s);
    }
    stream_release(s);
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    StreamImpl *s = resolve_stream(stream, &e);
    if (!s) return rec(e);
    host_wait("cudaStreamSynchronize");
    stream_wait(s);
    return rec(device_sticky(s->device));
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    StreamImpl *s = resolve_stream(stream, &e);
    if (!s) return rec(e);
    if ((e = device_sticky(s->device)) != cudaSuccess) return rec(e);
    uint64_t queued = s->enq.load();
    return s->prog->done.load() >= queued ? cudaSuccess : cudaErrorNotReady; /* not an error: not recorded */
}

cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    StreamImpl *s = resolve_stream(hStream, &e);
    if (!s) return rec(e);
    if (!priority) return rec(cudaErrorInvalidValue);
    *priority = s->priority;
    return cudaSuccess;
}

cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    StreamImpl *s = resolve_stream(hStream, &e);
    if (!s) return rec(e);
    if (!flags) return rec(cudaErrorInvalidValue);
    *flags = s->flags;
    return cudaSuccess;
}

cudaError_t cudaStreamGetDevice(cudaStream_t hStream, int *device) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    StreamImpl *s = resolve_stream(hStream, &e);
    if (!s) return rec(e);
    if (!device) return rec(cudaErrorInvalidValue);
    *device = s->device;
    return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    StreamImpl *s = resolve_stream(stream, &e);
    if (!s) return rec(e);
    EventImpl *ev = resolve_event(event);
    if (!ev) return rec(cudaErrorInvalidResourceHandle);
    if (flags & ~1u) return rec(cudaErrorInvalidValue);
    if ((e = device_sticky(s->device)) != cudaSuccess) return rec(e);
    std::shared_ptr<Record> r;
    {
        std::lock_guard<std::mutex> lk(ev->m);
        r = ev->cur; /* the most recent record now; later records do not matter */
    }
    if (r) enqueue(s, [r](Executor &) { wait_record(*r); }, true);
    return cudaSuccess;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    StreamImpl *s = resolve_stream(stream, &e);
    if (!s) return rec(e);
    if (!fn) return rec(cudaErrorInvalidValue);
    if ((e = device_sticky(s->device)) != cudaSuccess) return rec(e);
    enqueue(s, [fn, userData](Executor &) { fn(userData); });
    return cudaSuccess;
}

/* ---- events ------------------------------------------------------------------------------ */

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags) {
    cudaError_t e = enter_dev();
    if (e != cudaSuccess) return e;
    unsigned known = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
    if (!event || (flags & ~known)) return rec(cudaErrorInvalidValue);
    if ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming)) return rec(cudaErrorInvalidValue);
    EventImpl *ev = new EventImpl;
    ev->device = cur_device();
    ev->flags = flags;
    State &st = state();
    std::lock_guard<std::mutex> lk(st.mu);
    st.events.insert(ev);
    *event = reinterpret_cast<cudaEvent_t>(ev);
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *event) { return cudaEventCreateWithFlags(event, cudaEventDefault); }

cudaError_t cudaEventDestroy(cudaEvent_t event) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    EventImpl *ev = reinterpret_cast<EventImpl *>(event);
    State &st = state();
    {
        std::lock_guard<std::mutex> lk(st.mu);
        if (!st.events.erase(ev)) return rec(cudaErrorInvalidResourceHandle);
    }
    delete ev; /* pending records own their Record, not the event */
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    EventImpl *ev = resolve_event(event);
    if (!ev) return rec(cudaErrorInvalidResourceHandle);
    StreamImpl *s = resolve_stream(stream, &e);
    if (!s) return rec(e);
    if (s->device != ev->device) {
        note("cudaEventRecord: the event belongs to device %d, the stream to device %d", ev->device, s->device);
        return rec(cudaErrorInvalidResourceHandle);
    }
    if ((e = device_sticky(s->device)) != cudaSuccess) return rec(e);
    std::shared_ptr<Record> r = std::make_shared<Record>();
    enqueue(s,
            [r](Executor &) {
                {
                    std::lock_guard<std::mutex> lk(r->m);
                    r->t = std::chrono::steady_clock::now();
                    r->done = true;
                }
                r->cv.notify_all();
            },
            true);
    /* Published once queued: a cudaStreamWaitEvent racing with this call cannot make
     * a blocking stream wait for a record that the legacy stream would wait for. */
    {
        std::lock_guard<std::mutex> lk(ev->m);
        ev->cur = r;
    }
    return cudaSuccess;
}

static std::shared_ptr<Record> current_record(EventImpl *ev) {
    std::lock_guard<std::mutex> lk(ev->m);
    return ev->cur;
}

static bool record_done(Record &r) {
    std::lock_guard<std::mutex> lk(r.m);
    return r.done;
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    EventImpl *ev = resolve_event(event);
    if (!ev) return rec(cudaErrorInvalidResourceHandle);
    if ((e = device_sticky(ev->device)) != cudaSuccess) return rec(e);
    std::shared_ptr<Record> r = current_record(ev);
    return !r || record_done(*r) ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    EventImpl *ev = resolve_event(event);
    if (!ev) return rec(cudaErrorInvalidResourceHandle);
    std::shared_ptr<Record> r = current_record(ev);
    host_wait("cudaEventSynchronize");
    if (r) wait_record(*r);
    return rec(device_sticky(ev->device));
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
    cudaError_t e = api_enter();
    if (e != cudaSuccess) return e;
    if (!ms) return rec(cudaErrorInvalidValue);
    EventImpl *a = resolve_event(start), *b = resolve_event(end);
    if (!a || !b) return rec(cudaErrorInvalidResourceHandle);
    if (a->device != b->device) {
        note("cudaEventElapsedTime: the events belong to devices %d and %d", a->device, b->device);
        return rec(cudaErrorInvalidResourceHandle);
    }
    if ((a->flags | b->flags) & cudaEventDisableTiming) return rec(cudaErrorInvalidResourceHandle);
    std::shared_ptr<Record> ra = current_record(a), rb = current_record(b);
    if (!ra || !rb) return rec(cudaErrorInvalidResourceHandle); /* never recorded */
    if (!record_done(*ra) || !record_done(*rb)) return cudaErrorNotReady;
    std::lock_guard<std::mutex> la(ra->m);
    std::chrono::steady_clock::time_point ta = ra->t;
    std::chrono::steady_clock::time_point tb;
    if (rb == ra) tb = ta;
    else {
        std::lock_guard<std::mutex> lb(rb->m);
        tb = rb->t;
    }
    *ms = std::chrono::duration<float, std::milli>(tb - ta).count();
    return cudaSuccess;
}

} /* extern "C" */
