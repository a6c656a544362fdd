/* emu_block.cpp: the block scheduler of the CUDA emulation.
 *
 * A launch runs on its stream's host thread, one block after another (in forward,
 * reverse or shuffled block order). Within a block every GPU thread is a fiber
 * (emu_fiber.h). Threads are started in the chosen thread order; a thread runs
 * until it finishes or waits at a barrier or warp operation. A finished thread's
 * stack ("carrier") directly starts the next unstarted thread, so a kernel that
 * never waits costs about a function call per thread and uses one stack.
 *
 * When every live thread waits, the scheduler resolves the phase: a complete
 * __syncthreads() releases everybody (in the chosen order, reshuffled for each
 * phase); anything else is an error. A warp operation completes as soon as the
 * last lane of its mask arrives. Errors become a sticky launch failure of the
 * device with a one-line diagnostic (see execute_launch):
 *   - a barrier that exited threads will never reach ("barrier reached by N of M
 *     threads"), threads of one phase at different __syncthreads() call sites;
 *   - a warp operation whose mask names a lane that has exited, waits at a
 *     barrier or at another warp operation (kind, mask or call site differ;
 *     __syncwarp may differ in site, as on sm_70+), or does not exist; a caller
 *     missing from its own mask; a shuffle reading a lane outside the mask; a
 *     shuffle width that is not a power of two <= 32; __trap().
 *   - a misaligned typed global access (AUG_CHECK_ALIGNED in the kernels' load and
 *     store helpers, cuda/compat.h): sticky cudaErrorMisalignedAddress, as on a GPU.
 * Block-shared memory (AUG_SHARED sites and the dynamic area) is a set of exact-size
 * heap buffers per launch (so ASan sees overruns), filled with 0xFF before every
 * block so that reading before a missing __syncthreads() shows garbage. */
#include "emu_fiber.h"
#include "emu_internal.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <csignal>
#include <cstdlib>
#include <unistd.h>

__thread aug_emu::ThreadView *aug_emu_cur __attribute__((tls_model("initial-exec"))) = nullptr;

namespace aug_emu {

enum TState : uint8_t { T_UNSTARTED, T_RUNNING, T_READY, T_BARRIER, T_WARP, T_DONE, T_FAILED };

struct Carrier {
    FiberStack stack;
    FiberCtx ctx;
    void *fake = nullptr; /* ASan fake-stack handle while switched out */
};

struct ThreadState : ThreadView {
    Executor *ex;
    int lin; /* linear index in the block: x + y*bx + z*bx*by; warp = lin/32 */
    TState st;
    Carrier *carrier;
    /* what the thread waits at */
    const char *file;
    int line;
    int op; /* WarpOp, or BarrierKind at a barrier */
    unsigned mask;
    unsigned long long val;
    int b, width;
    unsigned long long result;
};

struct Executor {
    FiberCtx sched; /* the stream thread's own context */
    void *sched_fake = nullptr;
    const void *sched_lo = nullptr;
    size_t sched_size = 0;
    std::vector<Carrier *> pool, all;
    Carrier *starting = nullptr, *exiting = nullptr;

    LaunchRec *L = nullptr;
    BlockView bv;
    std::vector<ThreadState> th;
    std::vector<int> order, runq, batch;
    std::vector<unsigned> warp_waiting; /* per warp: lanes waiting at a warp operation */
    int n = 0, next = 0, live = 0, n_warp = 0;
    int mode = ORDER_FORWARD;
    uint64_t rng = 1, launches = 0;
    bool failed = false, config_fail = false;
    int fault_error = 0; /* the sticky error of the block's failure (0: cudaErrorLaunchFailure) */
    std::string msg;

    struct Site {
        const SharedSite *s;
        void *p;
    };
    std::vector<Site> sites;
    size_t static_bytes = 0;
    void *dyn = nullptr;
    void *altstack = nullptr; /* the stream thread's signal stack */
};

/* ---- helpers ------------------------------------------------------------------------- */

static std::string fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static std::string fmt(const char *f, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    return buf;
}

static uint64_t next_rand(uint64_t &s) { /* splitmix64 */
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void shuffle(std::vector<int> &v, uint64_t &rng) {
    for (size_t i = v.size(); i > 1; i--) std::swap(v[i - 1], v[next_rand(rng) % i]);
}

static ThreadState *cur() {
    ThreadView *v = aug_emu_cur;
    if (!v) {
        fprintf(stderr, "aug cuda_emu: a device-only function (barrier, warp operation, AUG_SHARED) "
                        "was called outside a kernel\n");
        abort();
    }
    return static_cast<ThreadState *>(v);
}

static bool same_site(const ThreadState &a, const ThreadState &b) {
    return a.line == b.line && (a.file == b.file || strcmp(a.file, b.file) == 0);
}

static const char *op_name(int op) {
    switch (op) {
    case WOP_SHFL_IDX: return "__shfl_sync";
    case WOP_SHFL_UP: return "__shfl_up_sync";
    case WOP_SHFL_DOWN: return "__shfl_down_sync";
    case WOP_SHFL_XOR: return "__shfl_xor_sync";
    case WOP_BALLOT: return "__ballot_sync";
    case WOP_ANY: return "__any_sync";
    case WOP_ALL: return "__all_sync";
    default: return "__syncwarp";
    }
}

/* A message built without the heap: a failing fiber never returns, so nothing on
 * its stack is ever destroyed (a std::string temporary there would leak). */
struct Msg {
    char s[1024];
    size_t n = 0;
    Msg() { s[0] = 0; }
    Msg &add(const char *f, ...) __attribute__((format(printf, 2, 3))) {
        va_list ap;
        va_start(ap, f);
        int k = vsnprintf(s + n, sizeof s - n, f, ap);
        va_end(ap);
        if (k > 0) n = std::min(sizeof s - 1, n + (size_t)k);
        return *this;
    }
};
#define WHO_F "thread (%u,%u,%u) (warp %d lane %d)"
#define WHO_A(t) (t).tid.x, (t).tid.y, (t).tid.z, (t).lin / 32, (t).lin % 32
#define AT_F "%s:%d"
#define AT_A(t) (t).file, (t).line

/* ---- switching -------------------------------------------------------------------------- */

static Carrier *get_carrier(Executor &ex) {
    if (!ex.pool.empty()) {
        Carrier *c = ex.pool.back();
        ex.pool.pop_back();
        return c;
    }
    Carrier *c = new Carrier;
    if (!stack_alloc(&c->stack, config().stack_bytes)) {
        fprintf(stderr, "aug cuda_emu: cannot map a %zu-byte fiber stack\n", config().stack_bytes);
        abort();
    }
    ex.all.push_back(c);
    return c;
}

/* Back on the scheduler's stack: recycle a carrier whose last thread finished. */
static void after_switch(Executor &ex) {
    asan_finish_switch(ex.sched_fake, nullptr, nullptr);
    aug_emu_cur = nullptr;
    if (ex.exiting) {
        ex.pool.push_back(ex.exiting);
        ex.exiting = nullptr;
    }
}

static void carrier_main(void *p) {
    Executor &ex = *static_cast<Executor *>(p);
    Carrier *c = ex.starting;
    asan_finish_switch(nullptr, &ex.sched_lo, &ex.sched_size);
    while (!ex.failed && ex.next < ex.n) {
        ThreadState *t = &ex.th[ex.order[ex.next++]];
        t->carrier = c;
        t->st = T_RUNNING;
        aug_emu_cur = t;
        ex.L->run(ex.L->call);
        t->st = T_DONE;
        ex.live--;
    }
    ex.exiting = c;
    asan_start_switch(nullptr, ex.sched_lo, ex.sched_size); /* this fiber is finished */
    ctx_switch(&c->ctx, &ex.sched);
    __builtin_unreachable();
}

static void start_carrier(Executor &ex) {
    Carrier *c = get_carrier(ex);
    ctx_init(&c->ctx, &c->stack, carrier_main, &ex);
    ex.starting = c;
    asan_start_switch(&ex.sched_fake, c->stack.lo, c->stack.size);
    ctx_switch(&ex.sched, &c->ctx);
    after_switch(ex);
}

static void resume(Executor &ex, ThreadState *t) {
    t->st = T_RUNNING;
    aug_emu_cur = t;
    Carrier *c = t->carrier;
    asan_start_switch(&ex.sched_fake, c->stack.lo, c->stack.size);
    ctx_switch(&ex.sched, &c->ctx);
    after_switch(ex);
}

/* From a thread: give control to the scheduler until resumed. */
static void park(ThreadState *t) {
    Executor &ex = *t->ex;
    Carrier *c = t->carrier;
    asan_start_switch(&c->fake, ex.sched_lo, ex.sched_size);
    ctx_switch(&c->ctx, &ex.sched);
    asan_finish_switch(c->fake, &ex.sched_lo, &ex.sched_size);
}

/* From a thread: record the block's failure and never run again. */
[[noreturn]] static void fail_thread(ThreadState *t, const Msg &m) {
    Executor &ex = *t->ex;
    if (!ex.failed) {
        ex.failed = true;
        ex.msg = m.s; /* the executor owns (and later frees) the copy */
    }
    t->st = T_FAILED;
    park(t);
    abort(); /* not resumed */
}

static void fail_sched(Executor &ex, const Msg &m) {
    if (!ex.failed) {
        ex.failed = true;
        ex.msg = m.s;
    }
}

/* ---- warp operations ------------------------------------------------------------------ */

static bool compatible(const ThreadState &u, const ThreadState &t) {
    if (u.op != t.op || u.mask != t.mask) return false;
    if (t.op == WOP_SYNCWARP) return true; /* bar.warp.sync may be at different sites (sm_70+) */
    return same_site(u, t) && u.width == t.width;
}

/* Why lane `lane` of t's warp cannot take part in t's operation (appended to m;
 * true), or false if it can or has simply not arrived yet. */
static bool lane_problem(Executor &ex, const ThreadState &t, int lane, Msg &m) {
    int idx = (t.lin & ~31) + lane;
    if (idx < ex.n) { /* fast path: no message to build */
        const ThreadState &u = ex.th[idx];
        if (u.st != T_DONE && u.st != T_BARRIER && (u.st != T_WARP || compatible(u, t))) return false;
    }
    m.add(WHO_F ": %s at " AT_F " with mask 0x%08x: ", WHO_A(t), op_name(t.op), AT_A(t), t.mask);
    if (idx >= ex.n) {
        m.add("lane %d does not exist (the block has %d threads)", lane, ex.n);
        return true;
    }
    const ThreadState &u = ex.th[idx];
    if (u.st == T_DONE) m.add("lane %d has exited", lane);
    else if (u.st == T_BARRIER) m.add("lane %d waits at __syncthreads() at " AT_F, lane, AT_A(u));
    else
        m.add("lane %d waits at %s at " AT_F " with mask 0x%08x%s", lane, op_name(u.op), AT_A(u), u.mask,
              u.op == t.op && u.mask == t.mask && same_site(u, t) ? " and another width" : "");
    return true;
}

/* The source lane of a shuffle, PTX shfl.sync semantics: c = ((32 - width) << 8)
 * | clamp, clamp 0 for .up and 31 otherwise; segmask = c[12:8]; a lane reads from
 * j, or keeps its own value when j is outside its segment (pval false). */
static int shfl_source(const ThreadState &u) {
    int lane = u.lin & 31;
    int c = ((32 - u.width) << 8) | (u.op == WOP_SHFL_UP ? 0 : 0x1f);
    int bval = u.b & 31, cval = c & 31, segmask = (c >> 8) & 31;
    int max_lane = (lane & segmask) | (cval & ~segmask);
    int min_lane = lane & segmask;
    int j;
    bool p;
    switch (u.op) {
    case WOP_SHFL_UP: j = lane - bval; p = j >= max_lane; break;
    case WOP_SHFL_DOWN: j = lane + bval; p = j <= max_lane; break;
    case WOP_SHFL_XOR: j = lane ^ bval; p = j <= max_lane; break;
    default: j = min_lane | (bval & ~segmask); p = j <= max_lane; break;
    }
    return p ? j : lane;
}

/* All lanes of t's mask have arrived: compute every lane's result and make them
 * ready (in lane order; the next batch applies the thread order). */
static void complete_group(Executor &ex, ThreadState *t) {
    int base = t->lin & ~31;
    unsigned ballot = 0;
    for (unsigned m = t->mask; m; m &= m - 1) {
        int L = __builtin_ctz(m);
        if (ex.th[base + L].val) ballot |= 1u << L;
    }
    for (unsigned m = t->mask; m; m &= m - 1) {
        int L = __builtin_ctz(m);
        ThreadState &u = ex.th[base + L];
        switch (t->op) {
        case WOP_BALLOT: u.result = ballot; break;
        case WOP_ANY: u.result = ballot != 0; break;
        case WOP_ALL: u.result = ballot == t->mask; break;
        case WOP_SYNCWARP: u.result = 0; break;
        default: {
            int j = shfl_source(u);
            if (!((t->mask >> j) & 1u))
                fail_thread(t, Msg().add(WHO_F ": %s at " AT_F " reads lane %d, outside its mask 0x%08x", WHO_A(u),
                                         op_name(u.op), AT_A(u), j, u.mask));
            u.result = ex.th[base + j].val;
        }
        }
    }
    for (unsigned m = t->mask; m; m &= m - 1) {
        ThreadState &u = ex.th[base + __builtin_ctz(m)];
        u.st = T_READY;
        ex.n_warp--;
        ex.runq.push_back(u.lin);
    }
    ex.warp_waiting[(size_t)(t->lin >> 5)] &= ~t->mask;
}

unsigned long long warp_op(const char *file, int line, int op, unsigned mask, unsigned long long value, int b,
                           int width) {
    ThreadState *t = cur();
    Executor &ex = *t->ex;
    int lane = t->lin & 31;
    t->file = file;
    t->line = line;
    t->op = op;
    t->mask = mask;
    t->val = value;
    t->b = b;
    t->width = width;
    if (op <= WOP_SHFL_XOR && (width < 1 || width > 32 || (width & (width - 1)) != 0))
        fail_thread(t, Msg().add(WHO_F ": %s at " AT_F ": width %d is not a power of two in [1, 32]", WHO_A(*t),
                                 op_name(op), AT_A(*t), width));
    if (!((mask >> lane) & 1u))
        fail_thread(t, Msg().add(WHO_F ": %s at " AT_F " with mask 0x%08x that does not include the calling lane",
                                 WHO_A(*t), op_name(op), AT_A(*t), mask));
    t->st = T_WARP;
    ex.n_warp++;
    unsigned &waiting = ex.warp_waiting[(size_t)(t->lin >> 5)];
    waiting |= 1u << lane;
    /* Complete when the last lane of the mask arrives, if they all agree (else the
     * error is reported now). A group that cannot complete (a lane exited, waits at a
     * barrier, ...) is diagnosed when the block can make no more progress (resolve). */
    if ((waiting & mask) == mask) {
        for (unsigned m = mask; m; m &= m - 1) {
            Msg p;
            if (lane_problem(ex, *t, __builtin_ctz(m), p)) fail_thread(t, p);
        }
        complete_group(ex, t);
    }
    park(t);
    return t->result;
}

unsigned activemask() {
    ThreadState *t = cur();
    Executor &ex = *t->ex;
    unsigned m = 0;
    int base = t->lin & ~31;
    for (int L = 0; L < 32 && base + L < ex.n; L++)
        if (ex.th[base + L].st != T_DONE) m |= 1u << L;
    return m;
}

/* ---- barriers ---------------------------------------------------------------------------- */

int barrier(const char *file, int line, int kind, int pred) {
    ThreadState *t = cur();
    t->file = file;
    t->line = line;
    t->op = kind;
    t->val = (unsigned long long)pred;
    t->st = T_BARRIER;
    park(t);
    return (int)t->result;
}

/* Every live thread waits. Release a complete, consistent __syncthreads(), or fail. */
static void resolve(Executor &ex) {
    if (ex.n_warp > 0) {
        for (ThreadState &t : ex.th) {
            if (t.st != T_WARP) continue;
            for (unsigned m = t.mask; m; m &= m - 1) {
                Msg p;
                if (lane_problem(ex, t, __builtin_ctz(m), p)) return fail_sched(ex, p);
            }
        }
        return fail_sched(ex, Msg().add("deadlock: every live thread waits and no warp operation can complete"));
    }
    const ThreadState *first = nullptr;
    for (const ThreadState &t : ex.th)
        if (t.st == T_BARRIER) {
            first = &t;
            break;
        }
    if (!first) return fail_sched(ex, Msg().add("deadlock: every live thread waits, none at a barrier"));
    if (ex.live < ex.n) {
        const ThreadState *gone = nullptr;
        for (const ThreadState &t : ex.th)
            if (t.st == T_DONE) {
                gone = &t;
                break;
            }
        return fail_sched(ex, Msg().add("__syncthreads() at " AT_F ": barrier reached by %d of %d threads (%d "
                                        "exited before it, e.g. thread (%u,%u,%u))",
                                        AT_A(*first), ex.live, ex.n, ex.n - ex.live, gone->tid.x, gone->tid.y,
                                  gone->tid.z));
    }
    int count = 0;
    for (const ThreadState &t : ex.th) {
        if (!same_site(t, *first)) {
            int a = 0;
            for (const ThreadState &u : ex.th) a += same_site(u, *first);
            return fail_sched(ex, Msg().add("threads of one phase wait at different barriers: %d at "
                                            "__syncthreads() at " AT_F ", %d elsewhere, e.g. " WHO_F " at " AT_F,
                                            a, AT_A(*first), ex.n - a, WHO_A(t), AT_A(t)));
        }
        count += t.val != 0;
    }
    unsigned long long r = 0;
    switch (first->op) {
    case BAR_COUNT: r = (unsigned long long)count; break;
    case BAR_AND: r = count == ex.n; break;
    case BAR_OR: r = count != 0; break;
    default: break;
    }
    ex.runq.clear();
    for (ThreadState &t : ex.th) {
        t.result = r;
        t.st = T_READY;
    }
    for (int i = 0; i < ex.n; i++) ex.runq.push_back(ex.mode == ORDER_REVERSE ? ex.n - 1 - i : i);
}

static void order_batch(Executor &ex, std::vector<int> &b) {
    switch (ex.mode) {
    case ORDER_FORWARD:
        if (!std::is_sorted(b.begin(), b.end())) std::sort(b.begin(), b.end());
        break;
    case ORDER_REVERSE:
        if (!std::is_sorted(b.begin(), b.end(), std::greater<int>())) std::sort(b.begin(), b.end(), std::greater<int>());
        break;
    default: shuffle(b, ex.rng);
    }
}

/* Abandon the fibers of a failed block: their stacks go back to the pool. */
static void abandon(Executor &ex) {
    for (ThreadState &t : ex.th) {
        if (t.carrier && t.st != T_DONE && t.st != T_UNSTARTED) {
            stack_unpoison(&t.carrier->stack);
            ex.pool.push_back(t.carrier);
        }
        t.carrier = nullptr;
    }
}

static bool run_block(Executor &ex) {
    for (ThreadState &t : ex.th) {
        t.st = T_UNSTARTED;
        t.carrier = nullptr;
    }
    ex.next = 0;
    ex.live = ex.n;
    ex.n_warp = 0;
    ex.runq.clear();
    ex.warp_waiting.assign((size_t)(ex.n + 31) / 32, 0u);
    if (ex.mode == ORDER_SHUFFLE) shuffle(ex.order, ex.rng);
    for (;;) {
        if (ex.failed) break;
        if (ex.next < ex.n) {
            start_carrier(ex);
            continue;
        }
        if (!ex.runq.empty()) {
            ex.batch.swap(ex.runq);
            ex.runq.clear();
            order_batch(ex, ex.batch);
            for (int i : ex.batch) {
                if (ex.failed) break;
                resume(ex, &ex.th[i]);
            }
            ex.batch.clear();
            continue;
        }
        if (ex.live == 0) break;
        resolve(ex);
    }
    if (ex.failed) abandon(ex);
    return !ex.failed;
}

/* ---- shared memory ------------------------------------------------------------------------ */

void *shared_static(const SharedSite *s) {
    ThreadState *t = cur();
    Executor &ex = *t->ex;
    for (const Executor::Site &e : ex.sites)
        if (e.s == s) return e.p;
    size_t align = s->align < sizeof(void *) ? sizeof(void *) : s->align;
    size_t total = (ex.static_bytes + s->align - 1) / s->align * s->align + s->bytes;
    if (total > kSharedPerBlock || total + ex.L->dyn > ex.L->shmem_limit) {
        ex.config_fail = true;
        ex.static_bytes = total; /* remembered: later launches are refused up front */
        if (total > kSharedPerBlock)
            fail_thread(t, Msg().add("AUG_SHARED %s at %s:%d brings the block's static shared memory to %zu bytes, over "
                               "the 48 KiB (49152) a kernel may declare statically",
                               s->name, s->file, s->line, total));
        fail_thread(t, Msg().add("AUG_SHARED %s at %s:%d: static %zu + dynamic %zu bytes of shared memory exceed the "
                           "kernel's limit of %zu (cudaFuncAttributeMaxDynamicSharedMemorySize)",
                           s->name, s->file, s->line, total, ex.L->dyn, ex.L->shmem_limit));
    }
    void *p = nullptr;
    if (posix_memalign(&p, align, s->bytes ? s->bytes : 1) != 0) {
        fprintf(stderr, "aug cuda_emu: out of host memory for shared memory\n");
        abort();
    }
    memset(p, 0xff, s->bytes);
    ex.sites.push_back({s, p});
    ex.static_bytes = total;
    return p;
}

void *shared_dynamic() { return cur()->ex->dyn; }

void trap(const char *file, int line, const char *what) {
    ThreadState *t = cur();
    fail_thread(t, Msg().add(WHO_F ": %s at %s:%d", WHO_A(*t), what, file, line));
}

void misaligned(const char *file, int line, const void *p, size_t align) {
    ThreadState *t = cur();
    if (!t->ex->failed) t->ex->fault_error = cudaErrorMisalignedAddress;
    fail_thread(t, Msg().add(WHO_F ": a %zu-byte access at %p (address mod %zu = %zu) at %s:%d", WHO_A(*t), align, p,
                             align, (size_t)((uintptr_t)p % align), file, line));
}

/* ---- launches ------------------------------------------------------------------------------ */

/* A GPU thread that overflows its fiber stack hits the guard page below it. The
 * stream threads handle SIGSEGV on an alternate stack, name the problem if the
 * address is the running fiber's guard page, then hand the fault to the previous
 * handler (ASan's, or the default: a core dump). */
static struct sigaction g_prev_segv;

static void segv_handler(int sig, siginfo_t *si, void *ctx) {
    ThreadState *t = static_cast<ThreadState *>(aug_emu_cur);
    if (t && t->carrier) {
        const char *a = static_cast<const char *>(si->si_addr);
        const FiberStack &s = t->carrier->stack;
        if (a >= static_cast<const char *>(s.map) && a < static_cast<const char *>(s.lo)) {
            static const char msg[] = "aug cuda_emu: a GPU thread overflowed its fiber stack "
                                      "(raise AUG_EMU_STACK_KB)\n";
            if (write(2, msg, sizeof msg - 1) < 0) { /* nothing to do */
            }
        }
    }
    sigaction(SIGSEGV, &g_prev_segv, nullptr); /* the faulting access repeats under it */
    (void)sig, (void)ctx;
}

Executor *executor_create() {
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = segv_handler;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGSEGV, &sa, &g_prev_segv);
    });
    Executor *ex = new Executor;
    /* This stream thread's alternate signal stack (freed with the thread's executor;
     * stream threads never return to code that could use it afterwards). */
    stack_t ss;
    memset(&ss, 0, sizeof ss);
    ss.ss_size = 64 * 1024;
    ss.ss_sp = malloc(ss.ss_size);
    ex->altstack = ss.ss_sp;
    if (ss.ss_sp) sigaltstack(&ss, nullptr);
    return ex;
}

void executor_destroy(Executor *ex) {
    if (ex->altstack) {
        stack_t ss;
        memset(&ss, 0, sizeof ss);
        ss.ss_flags = SS_DISABLE;
        sigaltstack(&ss, nullptr);
        free(ex->altstack);
    }
    for (Carrier *c : ex->all) {
        stack_free(&c->stack);
        delete c;
    }
    delete ex;
}

static uint64_t gcd(uint64_t a, uint64_t b) {
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

void execute_launch(Executor &ex, LaunchRec &L) {
    if (device_sticky(L.device) != cudaSuccess) return;
    const Config &cfg = config();
    if (!cfg.fault_kernel.empty() && L.name.find(cfg.fault_kernel) != std::string::npos) {
        device_fault(L.device, "kernel " + L.name + ": injected by AUG_EMU_FAULT", (cudaError_t)cfg.fault_error);
        return;
    }
    ex.L = &L;
    ex.failed = ex.config_fail = false;
    ex.fault_error = 0;
    ex.msg.clear();
    ex.mode = g_order.load();
    ex.rng = config().seed ^ (0x9e3779b97f4a7c15ull * ++ex.launches);
    ex.bv.bdim = L.block;
    ex.bv.gdim = L.grid;
    int n = (int)(L.block.x * L.block.y * L.block.z);
    ex.n = n;
    ex.th.resize((size_t)n);
    ex.order.resize((size_t)n);
    for (int i = 0; i < n; i++) {
        ThreadState &t = ex.th[(size_t)i];
        t.tid = make_uint3(i % L.block.x, (i / L.block.x) % L.block.y, i / (L.block.x * L.block.y));
        t.blk = &ex.bv;
        t.ex = &ex;
        t.lin = i;
        ex.order[(size_t)i] = ex.mode == ORDER_REVERSE ? n - 1 - i : i;
    }
    ex.dyn = malloc(L.dyn ? L.dyn : 1); /* exact size: ASan catches overruns */
    if (!ex.dyn) abort();

    uint64_t gx = L.grid.x, gy = L.grid.y, nblocks = gx * gy * L.grid.z;
    uint64_t a = 1, c = 0; /* shuffled block order: k -> (a k + c) mod nblocks, gcd(a, nblocks) = 1 */
    if (ex.mode == ORDER_SHUFFLE && nblocks > 1) {
        do a = next_rand(ex.rng) % nblocks; while (a == 0 || gcd(a, nblocks) != 1);
        c = next_rand(ex.rng) % nblocks;
    }
    bool ok = true;
    memstats_launch_begin(L);
    for (uint64_t k = 0; k < nblocks && ok; k++) {
        uint64_t bi = k;
        if (ex.mode == ORDER_REVERSE) bi = nblocks - 1 - k;
        else if (ex.mode == ORDER_SHUFFLE) bi = (uint64_t)(((unsigned __int128)a * k + c) % nblocks);
        ex.bv.bid = make_uint3((unsigned)(bi % gx), (unsigned)(bi / gx % gy), (unsigned)(bi / (gx * gy)));
        for (const Executor::Site &e : ex.sites) memset(e.p, 0xff, e.s->bytes);
        memset(ex.dyn, 0xff, L.dyn);
        ok = run_block(ex);
        memstats_block_end(ok);
        if (k == 0 || !ok) kernel_set_static_bytes(L.kfn, ex.static_bytes);
    }
    memstats_launch_end(L);
    if (!ok) {
        std::string where = fmt("kernel %s, block (%u,%u,%u) of grid (%u,%u,%u) x block (%u,%u,%u)", L.name.c_str(),
                                ex.bv.bid.x, ex.bv.bid.y, ex.bv.bid.z, L.grid.x, L.grid.y, L.grid.z, L.block.x,
                                L.block.y, L.block.z);
        if (ex.config_fail) {
            /* Only learnable by running (the static size of AUG_SHARED sites): refused like
             * a launch with too much shared memory, not a sticky fault. */
            fprintf(stderr, "aug cuda_emu: launch refused (cudaErrorInvalidValue): %s: %s\n", where.c_str(),
                    ex.msg.c_str());
            L.err_slot->store(cudaErrorInvalidValue);
        } else {
            device_fault(L.device, where + ": " + ex.msg,
                         ex.fault_error ? (cudaError_t)ex.fault_error : cudaErrorLaunchFailure);
        }
    }
    for (const Executor::Site &e : ex.sites) free(e.p);
    ex.sites.clear();
    ex.static_bytes = 0;
    free(ex.dyn);
    ex.dyn = nullptr;
    ex.L = nullptr;
}

} /* namespace aug_emu */
