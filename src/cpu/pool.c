/* cpu/pool.c: the CPU worker pool behind aug__parallel_for.
 *
 * One process-wide pool of pthreads, created lazily. The calling thread is worker
 * 0 and takes part; workers 1 ... n-1 take tasks from atomic counters (one per
 * contiguous range of tasks, see pool_range) while a job runs. Between jobs a
 * worker polls for the next job for a short, bounded time (POOL_SPIN_NS) and then
 * sleeps on a condition variable: waking a sleeping thread costs tens of
 * microseconds (more in a VM), as much as a whole small image job, and
 * back-to-back calls are the common case. The caller spins
 * the same bounded time for its helpers before sleeping. A helper joins a job only
 * while it is open; the caller closes it once every task has been handed out, so
 * a helper that wakes late is never waited for.
 * The pool serves one job at a time: a caller that finds it busy (another thread's
 * job, or a nested call from inside a task) runs its own tasks serially on its own
 * thread, so nesting never deadlocks. One-task jobs run inline without waking
 * anyone. After fork() the child starts with no workers and spawns new ones on
 * demand (pthread_atfork).
 *
 * Interruption: the caller (worker 0) polls its thread's aug_interrupt_check
 * between tasks, every POLL_NS at most; a nonzero answer sets the job's `cancel`
 * flag, which every worker reads before taking a task, so the job ends after the
 * tasks in flight. The thread's `interrupted` flag then makes later jobs of the
 * same call return at once, until the backend entry takes it.
 *
 * The pool size is AUG_NUM_THREADS when set (an integer >= 1), else the number of
 * CPUs in the affinity mask, capped at AUG__MAX_WORKERS; aug_set_num_threads
 * overrides it, and aug_set_thread_num_threads caps it for the calls of one thread.
 * Results never depend on it: tasks are fixed by the caller. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "cpu/pool.h"

/* How long an idle worker (or a caller waiting for its helpers) polls before
 * sleeping: longer than a condition-variable wake-up (~10-50 us) and than the
 * gap between back-to-back calls from Python, short enough that an idle process
 * burns at most this much CPU per worker after each job. Idle workers poll only
 * while jobs come that close together: when the last job started more than
 * POOL_SPIN_NS after the one before it ended (a warp per decoded image, say),
 * polling would only have burnt CPU that the caller's other threads need, so
 * workers sleep at once until a job comes quickly again. */
#define POOL_SPIN_NS 50000

/* How often the caller polls its interrupt check (10 ms). */
#define POLL_NS 10000000

static _Thread_local aug_interrupt_check t_check;
static _Thread_local void *t_check_ctx;
static _Thread_local int64_t t_polled;  /* when the check last ran */
static _Thread_local int t_interrupted; /* the check asked to stop; taken by aug__interrupt_take */

void aug_set_interrupt_check(aug_interrupt_check check, void *ctx) {
    t_check = check;
    t_check_ctx = ctx;
    t_polled = 0;
}

void aug_get_interrupt_check(aug_interrupt_check *check, void **ctx) {
    if (check) *check = t_check;
    if (ctx) *ctx = t_check_ctx;
}

int aug__interrupt_take(void) {
    int r = t_interrupted;
    t_interrupted = 0;
    return r;
}

typedef struct pool {
    pthread_mutex_t lock;
    pthread_cond_t wake;      /* sleeping workers wait here for a new job */
    pthread_cond_t done;      /* the job's caller waits here for its helpers */
    int busy;                 /* a job owns the pool */
    int nspawned;             /* worker threads alive: indices 1 ... nspawned */
    int nsleeping;            /* workers waiting on `wake` */
    atomic_ullong generation; /* bumped (under the lock) for every job; polled without it */
    int nhelpers;             /* workers 1 ... nhelpers may take part in the current job */
    int open;                 /* helpers may still join the current job */
    atomic_int active;        /* helpers that joined the current job and have not finished */
    aug__task_fn fn;
    void *ctx;
    int nranges;              /* task ranges of the current job (one per taking part) */
    atomic_int cancel;        /* the caller was interrupted: hand out no more tasks */
} pool;

/* The tasks of a job are cut into one contiguous range per thread taking part;
 * a thread hands out the tasks of its own range first and then takes from the
 * others'. Contiguous tasks touch neighbouring data (image rows), so a core
 * tends to get the same part of an image from call to call and find it in its
 * own cache (measured: ~5% off a 2-thread 224x224 warp). Every task is still handed out exactly once (one counter per
 * range), and which thread runs it never changes the result. */
typedef struct pool_range {
    _Alignas(64) atomic_llong next; /* next task of the range to hand out */
    int64_t end;
} pool_range;

static pool g_pool = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .wake = PTHREAD_COND_INITIALIZER,
    .done = PTHREAD_COND_INITIALIZER,
};
static pool_range g_ranges[AUG__MAX_WORKERS];
static atomic_llong g_job_end; /* when the last job ended (now_ns; 0: none yet) */
static atomic_int g_idle_spin = 1; /* idle workers poll before sleeping */
static atomic_int g_num_threads; /* 0 until first use */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Polls until the generation differs from `seen` (returns 1) or POOL_SPIN_NS
 * have passed (returns 0). */
static int spin_for_generation(pool *p, uint64_t seen) {
    int64_t t0 = 0;
    for (unsigned i = 0;; i++) {
        if (atomic_load_explicit(&p->generation, memory_order_acquire) != seen) return 1;
        cpu_relax();
        if ((i & 63) == 0) { /* the clock every 64 polls: a few microseconds */
            int64_t t = now_ns();
            if (i == 0) t0 = t;
            else if (t - t0 > POOL_SPIN_NS) return 0;
        }
    }
}

/* Polls until no helper is active (returns 1) or POOL_SPIN_NS have passed. */
static int spin_for_helpers(pool *p) {
    int64_t t0 = 0;
    for (unsigned i = 0;; i++) {
        if (atomic_load_explicit(&p->active, memory_order_acquire) == 0) return 1;
        cpu_relax();
        if ((i & 63) == 0) {
            int64_t t = now_ns();
            if (i == 0) t0 = t;
            else if (t - t0 > POOL_SPIN_NS) return 0;
        }
    }
}

/* The interrupt poll's clock: CLOCK_MONOTONIC_COARSE where there is one (about
 * 5 ns a read against 22 for CLOCK_MONOTONIC; libjpeg's progress monitor polls
 * per row, 1% of a training recipe's time with the precise clock), whose ticks
 * of 1-4 ms are well inside POLL_NS. */
static int64_t poll_ns(void) {
#ifdef CLOCK_MONOTONIC_COARSE
    struct timespec t;
    if (clock_gettime(CLOCK_MONOTONIC_COARSE, &t) == 0) return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
#endif
    return now_ns();
}

/* The calling thread's interrupt check, run when POLL_NS have passed since the
 * last run; 1 once it asked to stop (cpu/pool.h). */
int aug__interrupt_poll(void) {
    if (t_interrupted) return 1;
    if (!t_check) return 0;
    int64_t t = poll_ns();
    if (t_polled == 0) t_polled = t;
    if (t - t_polled < POLL_NS) return 0;
    t_polled = t;
    if (t_check(t_check_ctx)) t_interrupted = 1;
    return t_interrupted;
}

static void run_tasks(pool *p, int nranges, aug__task_fn fn, void *ctx, int worker) {
    for (int i = 0; i < nranges; i++) {
        pool_range *r = &g_ranges[(worker + i) % nranges];
        for (;;) {
            if (atomic_load_explicit(&p->cancel, memory_order_relaxed)) return;
            if (worker == 0 && aug__interrupt_poll()) {
                atomic_store_explicit(&p->cancel, 1, memory_order_relaxed);
                return;
            }
            int64_t t = atomic_fetch_add_explicit(&r->next, 1, memory_order_relaxed);
            if (t >= r->end) break;
            fn(ctx, t, worker);
        }
    }
}

static void *worker_main(void *arg) {
    pool *p = &g_pool;
    int index = (int)(intptr_t)arg;
    /* Spawned just before the generation bump of the job that needs it: treat
     * whatever generation it finds as new, so it joins that job. */
    uint64_t seen = UINT64_MAX;
    for (;;) {
        if (atomic_load_explicit(&g_idle_spin, memory_order_relaxed)) spin_for_generation(p, seen);
        pthread_mutex_lock(&p->lock);
        while (atomic_load_explicit(&p->generation, memory_order_relaxed) == seen) {
            p->nsleeping++;
            pthread_cond_wait(&p->wake, &p->lock);
            p->nsleeping--;
        }
        seen = atomic_load_explicit(&p->generation, memory_order_relaxed);
        if (index > p->nhelpers || !p->open) { /* not part of this job, or it is closed */
            pthread_mutex_unlock(&p->lock);
            continue;
        }
        atomic_fetch_add_explicit(&p->active, 1, memory_order_relaxed);
        aug__task_fn fn = p->fn;
        void *ctx = p->ctx;
        int nranges = p->nranges;
        pthread_mutex_unlock(&p->lock);
        run_tasks(p, nranges, fn, ctx, index);
        /* release: the caller may return (and free ctx) once it reads 0 */
        if (atomic_fetch_sub_explicit(&p->active, 1, memory_order_acq_rel) == 1) {
            pthread_mutex_lock(&p->lock);
            pthread_cond_signal(&p->done);
            pthread_mutex_unlock(&p->lock);
        }
    }
    return NULL;
}

/* fork() handlers: hold the lock across fork so the child sees a consistent
 * state, then give the child an empty pool (its worker threads do not exist). */
static void atfork_prepare(void) { pthread_mutex_lock(&g_pool.lock); }
static void atfork_parent(void) { pthread_mutex_unlock(&g_pool.lock); }
static void atfork_child(void) {
    pool *p = &g_pool;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    p->busy = 0;
    p->nspawned = 0;
    p->nsleeping = 0;
    p->nhelpers = 0;
    p->open = 0;
    atomic_store(&p->active, 0);
    atomic_store(&p->cancel, 0);
}

static int parse_positive(const char *s) {
    if (!s || !*s) return 0;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end != '\0' || v < 1) return 0;
    return v > AUG__MAX_WORKERS ? AUG__MAX_WORKERS : (int)v;
}

static int default_threads(void) {
    int n = parse_positive(getenv("AUG_NUM_THREADS"));
    if (n > 0) return n;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        n = CPU_COUNT(&set);
    else
        n = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    return n > AUG__MAX_WORKERS ? AUG__MAX_WORKERS : n;
}

static void init_once(void) {
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
    int expected = 0;
    atomic_compare_exchange_strong(&g_num_threads, &expected, default_threads());
}

int aug_get_num_threads(void) {
    pthread_once(&g_once, init_once);
    return atomic_load(&g_num_threads);
}

aug_status aug_set_num_threads(int n) {
    pthread_once(&g_once, init_once);
    if (n > AUG__MAX_WORKERS)
        return aug__error(AUG_ERR_VALUE, "aug_set_num_threads", "%d threads requested; at most %d are supported", n,
                          AUG__MAX_WORKERS);
    atomic_store(&g_num_threads, n <= 0 ? default_threads() : n);
    return AUG_OK;
}

static _Thread_local int t_cap; /* aug_set_thread_num_threads (0: none) */

int aug_get_thread_num_threads(void) { return t_cap; }

aug_status aug_set_thread_num_threads(int n) {
    if (n > AUG__MAX_WORKERS)
        return aug__error(AUG_ERR_VALUE, "aug_set_thread_num_threads",
                          "%d threads requested; at most %d are supported", n, AUG__MAX_WORKERS);
    t_cap = n <= 0 ? 0 : n;
    return AUG_OK;
}

static void run_serial(int64_t ntasks, aug__task_fn fn, void *ctx) {
    for (int64_t t = 0; t < ntasks; t++) {
        if (aug__interrupt_poll()) return;
        fn(ctx, t, 0);
    }
}

void aug__parallel_for(int64_t ntasks, aug__task_fn fn, void *ctx) {
    if (ntasks <= 0 || !fn || t_interrupted) return;
    int nthreads = aug_get_num_threads();
    if (t_cap > 0 && t_cap < nthreads) nthreads = t_cap;
    if (ntasks == 1 || nthreads <= 1) {
        run_serial(ntasks, fn, ctx);
        return;
    }
    pool *p = &g_pool;
    pthread_mutex_lock(&p->lock);
    if (p->busy) { /* another job (or our own caller, when nested) owns the pool */
        pthread_mutex_unlock(&p->lock);
        run_serial(ntasks, fn, ctx);
        return;
    }
    int want = (int64_t)nthreads - 1 < ntasks - 1 ? nthreads - 1 : (int)(ntasks - 1);
    while (p->nspawned < want) {
        pthread_t th;
        pthread_attr_t attr;
        int ok = pthread_attr_init(&attr) == 0;
        if (ok) {
            pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
            ok = pthread_create(&th, &attr, worker_main, (void *)(intptr_t)(p->nspawned + 1)) == 0;
            pthread_attr_destroy(&attr);
        }
        if (!ok) break; /* run with the workers we have */
        p->nspawned++;
    }
    if (want > p->nspawned) want = p->nspawned;
    int64_t last = atomic_load_explicit(&g_job_end, memory_order_relaxed);
    atomic_store_explicit(&g_idle_spin, last == 0 || now_ns() - last <= POOL_SPIN_NS, memory_order_relaxed);
    p->busy = 1;
    p->fn = fn;
    p->ctx = ctx;
    /* range r: q or q + 1 tasks, the longer ones first (no overflow for any ntasks) */
    p->nranges = want + 1;
    int64_t q = ntasks / p->nranges, rem = ntasks % p->nranges, start = 0;
    for (int r = 0; r < p->nranges; r++) {
        atomic_store_explicit(&g_ranges[r].next, start, memory_order_relaxed);
        start += q + (r < rem);
        g_ranges[r].end = start;
    }
    p->nhelpers = want;
    p->open = want > 0;
    atomic_store_explicit(&p->cancel, 0, memory_order_relaxed);
    atomic_store_explicit(&p->active, 0, memory_order_relaxed);
    /* release: a polling worker that sees the new generation then takes the lock */
    atomic_fetch_add_explicit(&p->generation, 1, memory_order_release);
    if (want > 0 && p->nsleeping > 0) pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);

    run_tasks(p, p->nranges, fn, ctx, 0);

    /* Every task is handed out: close the job, so late helpers skip it, and wait
     * for the ones that joined. */
    pthread_mutex_lock(&p->lock);
    p->open = 0;
    pthread_mutex_unlock(&p->lock);
    if (!spin_for_helpers(p)) {
        pthread_mutex_lock(&p->lock);
        while (atomic_load_explicit(&p->active, memory_order_acquire) > 0) pthread_cond_wait(&p->done, &p->lock);
        pthread_mutex_unlock(&p->lock);
    }
    atomic_store_explicit(&g_job_end, now_ns(), memory_order_relaxed);
    pthread_mutex_lock(&p->lock);
    p->busy = 0;
    pthread_mutex_unlock(&p->lock);
}
