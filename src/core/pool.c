/* core/pool.c: the CPU worker pool behind aug__parallel_for.
 *
 * One process-wide pool of pthreads, created lazily. The calling thread is worker
 * 0 and takes part; workers 1 ... n-1 sleep on a condition variable between jobs
 * (no spinning), and take tasks from a shared atomic counter while a job runs.
 * The pool serves one job at a time: a caller that finds it busy (another thread's
 * job, or a nested call from inside a task) runs its own tasks serially on its own
 * thread, so nesting never deadlocks. One-task jobs run inline without waking
 * anyone. After fork() the child starts with no workers and spawns new ones on
 * demand (pthread_atfork).
 *
 * The pool size is AUG_NUM_THREADS when set (an integer >= 1), else the number of
 * CPUs in the affinity mask, capped at AUG__MAX_WORKERS; aug_set_num_threads
 * overrides it. Results never depend on it: tasks are fixed by the caller. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>
#include "pool.h"

typedef struct pool {
    pthread_mutex_t lock;
    pthread_cond_t wake;      /* workers wait here for a new job */
    pthread_cond_t done;      /* the job's caller waits here for its helpers */
    int busy;                 /* a job owns the pool */
    int nspawned;             /* worker threads alive: indices 1 ... nspawned */
    uint64_t generation;      /* bumped for every job */
    int nhelpers;             /* workers 1 ... nhelpers take part in the current job */
    int active;               /* helpers of the current job that have not finished */
    aug__task_fn fn;
    void *ctx;
    int64_t ntasks;
    atomic_llong next;        /* next task index to hand out */
} pool;

static pool g_pool = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .wake = PTHREAD_COND_INITIALIZER,
    .done = PTHREAD_COND_INITIALIZER,
};
static atomic_int g_num_threads; /* 0 until first use */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void run_tasks(pool *p, aug__task_fn fn, void *ctx, int64_t ntasks, int worker) {
    for (;;) {
        int64_t t = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
        if (t >= ntasks) break;
        fn(ctx, t, worker);
    }
}

static void *worker_main(void *arg) {
    pool *p = &g_pool;
    int index = (int)(intptr_t)arg;
    /* Spawned just before the generation bump of the job that needs it: treat
     * whatever generation it finds as new, so it joins that job. */
    uint64_t seen = UINT64_MAX;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (p->generation == seen) pthread_cond_wait(&p->wake, &p->lock);
        seen = p->generation;
        if (index > p->nhelpers) continue; /* not part of this job */
        aug__task_fn fn = p->fn;
        void *ctx = p->ctx;
        int64_t ntasks = p->ntasks;
        pthread_mutex_unlock(&p->lock);
        run_tasks(p, fn, ctx, ntasks, index);
        pthread_mutex_lock(&p->lock);
        if (--p->active == 0) pthread_cond_signal(&p->done);
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
    p->nhelpers = 0;
    p->active = 0;
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

static void run_serial(int64_t ntasks, aug__task_fn fn, void *ctx) {
    for (int64_t t = 0; t < ntasks; t++) fn(ctx, t, 0);
}

void aug__parallel_for(int64_t ntasks, aug__task_fn fn, void *ctx) {
    if (ntasks <= 0 || !fn) return;
    int nthreads = aug_get_num_threads();
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
    p->busy = 1;
    p->fn = fn;
    p->ctx = ctx;
    p->ntasks = ntasks;
    atomic_store_explicit(&p->next, 0, memory_order_relaxed);
    p->nhelpers = want;
    p->active = want;
    p->generation++;
    if (want > 0) pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);

    run_tasks(p, fn, ctx, ntasks, 0);

    pthread_mutex_lock(&p->lock);
    while (p->active > 0) pthread_cond_wait(&p->done, &p->lock);
    p->busy = 0;
    pthread_mutex_unlock(&p->lock);
}
