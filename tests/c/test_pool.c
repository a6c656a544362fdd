/* test_pool.c: the CPU worker pool (aug__parallel_for): every task runs exactly
 * once, worker indices are in range and never shared by two threads at once,
 * concurrent callers, nested calls from inside a task, workers that sleep between
 * jobs and are woken, thread-count settings, a thread's own cap and use after
 * fork(). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "aug/aug.h"
#include "cpu/pool.h"

typedef struct counts {
    int64_t n;
    atomic_int *hits;
    atomic_int in_use[AUG__MAX_WORKERS];
    atomic_int bad_worker;
    atomic_int max_worker;
} counts;

static void count_task(void *ctx, int64_t task, int worker) {
    counts *c = ctx;
    if (worker < 0 || worker >= aug_get_num_threads() || task < 0 || task >= c->n) {
        atomic_store(&c->bad_worker, 1);
        return;
    }
    if (atomic_exchange(&c->in_use[worker], 1) != 0) atomic_store(&c->bad_worker, 1);
    atomic_fetch_add(&c->hits[task], 1);
    int m = atomic_load(&c->max_worker);
    while (worker > m && !atomic_compare_exchange_weak(&c->max_worker, &m, worker)) {}
    atomic_store(&c->in_use[worker], 0);
}

static counts *counts_new(int64_t n) {
    counts *c = calloc(1, sizeof *c);
    c->n = n;
    c->hits = calloc((size_t)n, sizeof *c->hits);
    return c;
}
static void counts_check(counts *c) {
    for (int64_t i = 0; i < c->n; i++)
        if (atomic_load(&c->hits[i]) != 1) fail_msg("task %lld ran %d times", (long long)i, atomic_load(&c->hits[i]));
    assert_int_equal(atomic_load(&c->bad_worker), 0);
}
static void counts_free(counts *c) {
    free(c->hits);
    free(c);
}

static void test_many_tasks(void **state) {
    (void)state;
    int nt[4] = {1, 2, 4, 7};
    for (int k = 0; k < 4; k++) {
        assert_int_equal(aug_set_num_threads(nt[k]), AUG_OK);
        counts *c = counts_new(100000);
        aug__parallel_for(c->n, count_task, c);
        counts_check(c);
        assert_true(atomic_load(&c->max_worker) < nt[k]);
        counts_free(c);
    }
    aug_set_num_threads(4);
    for (int rep = 0; rep < 200; rep++) { /* many small jobs back to back */
        counts *c = counts_new(1 + rep % 9);
        aug__parallel_for(c->n, count_task, c);
        counts_check(c);
        counts_free(c);
    }
    aug_set_num_threads(0);
}

static void slow_task(void *ctx, int64_t task, int worker) {
    if (task % 3 == 0) usleep(200); /* longer than the pool's spin: the caller sleeps on its condvar */
    count_task(ctx, task, worker);
}

/* Jobs after idle gaps longer than the workers' bounded spin (they sleep and are
 * woken), jobs whose helpers outlast the caller's spin, and thread counts that
 * leave some spawned workers out of a job. */
static void test_sleep_and_wake(void **state) {
    (void)state;
    int nt[5] = {4, 2, 3, 1, 4};
    for (int rep = 0; rep < 40; rep++) {
        assert_int_equal(aug_set_num_threads(nt[rep % 5]), AUG_OK);
        if (rep % 2) usleep(2000);
        counts *c = counts_new(1 + rep * 7 % 50);
        aug__parallel_for(c->n, rep % 4 == 3 ? slow_task : count_task, c);
        counts_check(c);
        assert_true(atomic_load(&c->max_worker) < nt[rep % 5]);
        counts_free(c);
    }
    aug_set_num_threads(0);
}

static void never(void *ctx, int64_t task, int worker) { fail_msg("no task expected"); }
static void record_thread(void *ctx, int64_t task, int worker) {
    *(pthread_t *)ctx = pthread_self();
    assert_int_equal(worker, 0);
}

static void test_edge_sizes(void **state) {
    (void)state;
    aug__parallel_for(0, never, NULL);
    aug__parallel_for(-5, never, NULL);
    aug__parallel_for(3, NULL, NULL);
    aug_set_num_threads(4);
    pthread_t th = 0;
    aug__parallel_for(1, record_thread, &th); /* one task runs inline */
    assert_true(pthread_equal(th, pthread_self()));
    aug_set_num_threads(0);
}

static void *caller(void *arg) {
    for (int rep = 0; rep < 20; rep++) {
        counts *c = counts_new(5000);
        aug__parallel_for(c->n, count_task, c);
        for (int64_t i = 0; i < c->n; i++)
            if (atomic_load(&c->hits[i]) != 1) *(int *)arg = 1;
        counts_free(c);
    }
    return NULL;
}

static void test_concurrent_callers(void **state) {
    (void)state;
    aug_set_num_threads(3);
    pthread_t th[4];
    int bad[4] = {0};
    for (int i = 0; i < 4; i++) assert_int_equal(pthread_create(&th[i], NULL, caller, &bad[i]), 0);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < 4; i++) assert_int_equal(bad[i], 0);
    aug_set_num_threads(0);
}

typedef struct nested {
    atomic_llong inner_total;
    counts *inner[16];
} nested;

static void outer_task(void *ctx, int64_t task, int worker) {
    nested *n = ctx;
    aug__parallel_for(n->inner[task]->n, count_task, n->inner[task]); /* runs inline: the pool is busy */
    atomic_fetch_add(&n->inner_total, n->inner[task]->n);
}

static void test_nested(void **state) {
    (void)state;
    aug_set_num_threads(4);
    nested n = {0};
    for (int i = 0; i < 16; i++) n.inner[i] = counts_new(100 + i);
    aug__parallel_for(16, outer_task, &n);
    int64_t want = 0;
    for (int i = 0; i < 16; i++) {
        counts_check(n.inner[i]);
        want += n.inner[i]->n;
        counts_free(n.inner[i]);
    }
    assert_int_equal(atomic_load(&n.inner_total), want);
    aug_set_num_threads(0);
}

static void test_num_threads(void **state) {
    (void)state;
    assert_true(aug_get_num_threads() >= 1);
    assert_int_equal(aug_set_num_threads(5), AUG_OK);
    assert_int_equal(aug_get_num_threads(), 5);
    aug_clear_error();
    assert_int_equal(aug_set_num_threads(100000), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_set_num_threads: 100000 threads requested; at most 256 are supported");
    assert_int_equal(aug_get_num_threads(), 5);
    setenv("AUG_NUM_THREADS", "3", 1);
    assert_int_equal(aug_set_num_threads(0), AUG_OK); /* the default follows AUG_NUM_THREADS */
    assert_int_equal(aug_get_num_threads(), 3);
    setenv("AUG_NUM_THREADS", "junk", 1);
    assert_int_equal(aug_set_num_threads(-1), AUG_OK);
    assert_true(aug_get_num_threads() >= 1);
    unsetenv("AUG_NUM_THREADS");
    aug_set_num_threads(0);
}

static void sleepy_task(void *ctx, int64_t task, int worker) {
    struct timespec ts = {0, 100000};
    nanosleep(&ts, NULL);
    count_task(ctx, task, worker);
}

static void *thread_cap_of_new_thread(void *arg) {
    *(int *)arg = aug_get_thread_num_threads();
    return NULL;
}

/* aug_set_thread_num_threads: this thread's calls use at most that many workers
 * (worker indices below the cap), other threads keep theirs, errors leave it. */
static void test_thread_cap(void **state) {
    (void)state;
    assert_int_equal(aug_get_thread_num_threads(), 0);
    aug_set_num_threads(4);
    for (int cap = 1; cap <= 3; cap++) {
        assert_int_equal(aug_set_thread_num_threads(cap), AUG_OK);
        assert_int_equal(aug_get_thread_num_threads(), cap);
        counts *c = counts_new(64);
        aug__parallel_for(64, sleepy_task, c);
        counts_check(c);
        if (atomic_load(&c->max_worker) >= cap) fail_msg("cap %d: worker %d ran a task", cap, atomic_load(&c->max_worker));
        counts_free(c);
    }
    int other = -1;
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, thread_cap_of_new_thread, &other), 0);
    pthread_join(th, NULL);
    assert_int_equal(other, 0); /* a new thread has no cap */
    aug_clear_error();
    assert_int_equal(aug_set_thread_num_threads(100000), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(),
                        "aug_set_thread_num_threads: 100000 threads requested; at most 256 are supported");
    assert_int_equal(aug_get_thread_num_threads(), 3);
    assert_int_equal(aug_set_thread_num_threads(-5), AUG_OK);
    assert_int_equal(aug_get_thread_num_threads(), 0);
    counts *c = counts_new(64);
    aug__parallel_for(64, sleepy_task, c); /* no cap: all four may take part */
    counts_check(c);
    counts_free(c);
    aug_set_num_threads(0);
}

static void test_fork(void **state) {
    (void)state;
    aug_set_num_threads(4);
    counts *c = counts_new(10000);
    aug__parallel_for(c->n, count_task, c); /* the parent's workers exist now */
    counts_check(c);
    counts_free(c);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        counts *cc = counts_new(20000);
        aug__parallel_for(cc->n, count_task, cc);
        int ok = !atomic_load(&cc->bad_worker);
        for (int64_t i = 0; i < cc->n; i++) ok &= atomic_load(&cc->hits[i]) == 1;
        counts_free(cc);
        _exit(ok ? 0 : 3);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    aug_set_num_threads(0);
}

/* aug_set_interrupt_check: a check answering "stop" ends a long warp within a
 * short time with AUG_ERR_INTERRUPTED (on 1 and on several threads); the check is
 * only polled on its own thread, the next call runs in full, and removing it
 * restores uninterrupted calls. */
static atomic_int polls;
static int stop_now(void *ctx) {
    atomic_fetch_add(&polls, 1);
    return *(int *)ctx;
}

static int64_t ms_since(const struct timespec *t0) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)(t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* How soon an interrupted call returns: the first poll comes after the first ~10 ms task;
 * under ASan on a loaded 2-core machine that took over a second once (the uninterrupted
 * call takes tens of seconds there), so the bound is wider there. */
#if defined(__SANITIZE_ADDRESS__)
#define PROMPT_MS 5000
#else
#define PROMPT_MS 1000
#endif

static void test_interrupt(void **state) {
    (void)state;
    int64_t sshape[3] = {600, 600, 3}, dshape[3] = {3, 600, 600};
    aug_tensor *src = aug_tensor_zeros(3, sshape, AUG_FLOAT32, aug_cpu_device());
    aug_tensor *dst = aug_tensor_zeros(3, dshape, AUG_FLOAT32, aug_cpu_device());
    const float id[6] = {1, 0, 0, 0, 1, 0};
    int stop = 1;
    for (int threads = 1; threads <= 3; threads += 2) {
        assert_int_equal(aug_set_num_threads(threads), AUG_OK);
        aug_set_interrupt_check(stop_now, &stop);
        aug_interrupt_check fn = NULL;
        void *ctx = NULL;
        aug_get_interrupt_check(&fn, &ctx);
        assert_ptr_equal(fn, stop_now);
        assert_ptr_equal(ctx, &stop);
        atomic_store(&polls, 0);
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        /* 600*600*3 pixels * 256 samples: seconds without the check */
        assert_int_equal(aug_warp_affine(src, dst, id, NULL, 16), AUG_ERR_INTERRUPTED);
        assert_true(ms_since(&t0) < PROMPT_MS);
        assert_int_equal(atomic_load(&polls), 1);
        assert_string_equal(aug_last_error(), "aug_warp_affine: interrupted; the output holds partial results");
        /* the interruption does not outlive its call: the next one runs in full */
        stop = 0;
        int64_t n = 1000;
        aug_tensor *x = aug_tensor_zeros(1, &n, AUG_INT32, aug_cpu_device());
        aug_scalar one = aug_scalar_int(1);
        assert_int_equal(aug_fill(x, &one), AUG_OK);
        assert_int_equal(((int32_t *)aug_tensor_ptr(x))[999], 1);
        aug_tensor_free(x);
        aug_set_interrupt_check(NULL, NULL);
        stop = 1;
    }
    /* a check that never stops: the call completes */
    stop = 0;
    aug_set_interrupt_check(stop_now, &stop);
    int64_t s2[3] = {40, 40, 3}, d2[3] = {3, 40, 40};
    aug_tensor *a = aug_tensor_zeros(3, s2, AUG_FLOAT32, aug_cpu_device());
    aug_tensor *b = aug_tensor_zeros(3, d2, AUG_FLOAT32, aug_cpu_device());
    assert_int_equal(aug_warp_affine(a, b, id, NULL, 16), AUG_OK);
    aug_set_interrupt_check(NULL, NULL);
    assert_int_equal(aug_set_num_threads(0), AUG_OK);
    aug_tensor_free(a);
    aug_tensor_free(b);
    aug_tensor_free(src);
    aug_tensor_free(dst);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_many_tasks),  cmocka_unit_test(test_edge_sizes),  cmocka_unit_test(test_concurrent_callers),
        cmocka_unit_test(test_nested),      cmocka_unit_test(test_sleep_and_wake),
        cmocka_unit_test(test_num_threads), cmocka_unit_test(test_thread_cap),  cmocka_unit_test(test_fork),
        cmocka_unit_test(test_interrupt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
