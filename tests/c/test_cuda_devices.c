/* test_cuda_devices.c: streams, events and copies on a machine with two CUDA
 * devices (the emulated cuda:0 and cuda:1, tests/cuda_emu, which model the
 * driver's per-device rules: each device has its own legacy default stream, the
 * NULL handle is the CURRENT device's, an event is recorded only onto a stream
 * of its own device).
 *
 * The CUDA runtime's current device is the one the last call touched
 * (aug_synchronize(cuda:0) leaves cuda:0 current); every check below makes
 * cuda:0 current and then uses cuda:1's streams and events:
 * - aug_stream_synchronize / aug_stream_query of cuda:1's default stream wait
 *   for / see cuda:1's work (an event recorded after it says when it is done);
 * - aug_event_record of a cuda:1 event onto cuda:1's default stream works, and
 *   a stream of cuda:1 waits for an event of cuda:0;
 * - a copy cuda:0 -> cuda:1 whose destination block the pool hands back from a
 *   tensor that slow work on cuda:1 still writes lands after that work.
 * "Slow work" is an elementwise chain over 4 Mi floats: tens of milliseconds on
 * the emulation, far more than the calls that race with it. Without two
 * devices the tests skip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "aug/aug.h"

#include "helpers/th_cuda.h"

static const aug_device CUDA1 = {AUG_DEVICE_CUDA, 1};
#define SLOW_N ((int64_t)1 << 22)

static void need_two(void) {
    if (!th_have_cuda() || aug_device_count(AUG_DEVICE_CUDA) < 2) skip();
}

/* The thread's current device (and the CUDA runtime's) becomes cuda:0. */
static void make_cuda0_current(void) {
    assert_int_equal(aug_set_current_device(TH_CUDA0), AUG_OK);
    assert_int_equal(aug_synchronize(TH_CUDA0), AUG_OK);
}

/* n floats of v on dev. */
static aug_tensor *full(aug_device dev, int64_t n, double v) {
    aug_scalar s = aug_scalar_float(v);
    aug_tensor *t = aug_tensor_full(1, &n, AUG_FLOAT32, dev, &s);
    assert_non_null(t);
    return t;
}

/* Queues slow work on dev's current stream; returns its result (SLOW_N floats,
 * each exp(exp(0) * 2) - 1 = e^2 - 1 once the work is done). */
static aug_tensor *slow(aug_device dev) {
    aug_tensor *x = full(dev, SLOW_N, 0), *y = NULL, *z = NULL, *w = NULL;
    assert_int_equal(aug_unary(AUG_OP_EXP, x, &y), AUG_OK);
    assert_int_equal(aug_binary(AUG_OP_ADD, y, y, &z), AUG_OK);
    assert_int_equal(aug_unary(AUG_OP_EXP, z, &w), AUG_OK);
    aug_tensor *r = NULL;
    assert_int_equal(aug_binary_scalar(AUG_OP_SUB, w, aug_scalar_float(1), &r), AUG_OK);
    aug_tensor_free(x), aug_tensor_free(y), aug_tensor_free(z), aug_tensor_free(w);
    return r;
}

static void test_sync_and_query_the_default_stream_of_another_device(void **state) {
    (void)state;
    need_two();
    aug_stream *def1 = aug_default_stream(CUDA1);
    assert_non_null(def1);
    aug_event *done = aug_event_new(CUDA1);
    assert_non_null(done);
    for (int round = 0; round < 2; round++) {
        aug_tensor *r = slow(CUDA1);
        assert_int_equal(aug_event_record(done, def1), AUG_OK);
        make_cuda0_current();
        if (round == 0) {
            /* pending, then done: the stream is done only after the event */
            int q = aug_stream_query(def1);
            assert_true(q == 0 || q == 1);
            if (q == 1 && aug_event_query(done) != 1)
                fail_msg("aug_stream_query(cuda:1 default) said done while cuda:1's work was pending");
        }
        assert_int_equal(aug_stream_synchronize(def1), AUG_OK);
        if (aug_event_query(done) != 1)
            fail_msg("aug_stream_synchronize(cuda:1 default) returned before cuda:1's work was done");
        assert_int_equal(aug_stream_query(def1), 1);
        aug_tensor_free(r);
    }
    aug_event_free(done);
}

static void test_events_of_another_device(void **state) {
    (void)state;
    need_two();
    aug_event *a = aug_event_new(CUDA1), *b = aug_event_new(CUDA1);
    assert_non_null(a), assert_non_null(b);
    make_cuda0_current();
    assert_int_equal(aug_event_record(a, NULL), AUG_OK); /* cuda:1's current stream: its default */
    aug_tensor *r = slow(CUDA1);
    make_cuda0_current();
    assert_int_equal(aug_event_record(b, aug_default_stream(CUDA1)), AUG_OK);
    assert_int_equal(aug_event_synchronize(b), AUG_OK);
    assert_int_equal(aug_event_query(b), 1);
    float ms = -1;
    assert_int_equal(aug_event_elapsed_ms(a, b, &ms), AUG_OK);
    assert_true(ms >= 0);
    /* a stream of its own on cuda:1 too */
    aug_stream *s1 = aug_stream_new(CUDA1, 0);
    assert_non_null(s1);
    make_cuda0_current();
    assert_int_equal(aug_event_record(a, s1), AUG_OK);
    assert_int_equal(aug_stream_synchronize(s1), AUG_OK);
    assert_int_equal(aug_event_query(a), 1);
    /* events of two devices have no elapsed time */
    aug_event *c = aug_event_new(TH_CUDA0);
    assert_non_null(c);
    assert_int_equal(aug_event_record(c, NULL), AUG_OK);
    assert_int_equal(aug_event_synchronize(c), AUG_OK);
    assert_int_equal(aug_event_elapsed_ms(c, b, &ms), AUG_ERR_VALUE);
    aug_stream_free(s1);
    aug_event_free(a), aug_event_free(b), aug_event_free(c);
    aug_tensor_free(r);
}

static void test_stream_waits_for_an_event_of_another_device(void **state) {
    (void)state;
    need_two();
    aug_stream *s1 = aug_stream_new(CUDA1, 0);
    aug_event *e0 = aug_event_new(TH_CUDA0);
    assert_non_null(s1), assert_non_null(e0);
    aug_tensor *r = slow(TH_CUDA0);
    assert_int_equal(aug_event_record(e0, NULL), AUG_OK);
    assert_int_equal(aug_stream_wait_event(s1, e0), AUG_OK);
    assert_int_equal(aug_stream_wait_event(aug_default_stream(CUDA1), e0), AUG_OK);
    /* cuda:1's work queued now runs after cuda:0's */
    assert_int_equal(aug_set_current_stream(s1), AUG_OK);
    aug_tensor *t = full(CUDA1, 4, 3);
    assert_int_equal(aug_stream_synchronize(s1), AUG_OK);
    if (aug_event_query(e0) != 1) fail_msg("cuda:1's stream did not wait for the event of cuda:0");
    assert_int_equal(aug_set_current_stream(aug_default_stream(CUDA1)), AUG_OK);
    assert_int_equal(aug_stream_synchronize(aug_default_stream(CUDA1)), AUG_OK);
    aug_tensor_free(t), aug_tensor_free(r);
    aug_stream_free(s1), aug_event_free(e0);
}

/* The destination of a cuda:0 -> cuda:1 copy reuses the block of a result that
 * cuda:1's default stream is still computing (freed at once: the pool hands it
 * to the next allocation of that stream). The copy must land after that work,
 * so the destination holds the copied values, not the computed ones. */
static void test_peer_copy_after_the_destination_work(void **state) {
    (void)state;
    need_two();
    aug_tensor *src = full(TH_CUDA0, SLOW_N, 5);
    assert_int_equal(aug_synchronize(TH_CUDA0), AUG_OK);
    for (int round = 0; round < 3; round++) {
        aug_tensor *r = slow(CUDA1);
        const void *block = aug_tensor_ptr(r);
        aug_tensor_free(r); /* still being written on cuda:1 */
        make_cuda0_current();
        aug_tensor *dst = aug_tensor_to(src, CUDA1);
        assert_non_null(dst);
        if (aug_tensor_ptr(dst) != block) fail_msg("the pool did not hand back the freed block (round %d)", round);
        aug_tensor *h = aug_tensor_to(dst, CPU);
        assert_non_null(h);
        const float *p = (const float *)aug_tensor_ptr(h);
        int64_t bad = 0;
        for (int64_t i = 0; i < SLOW_N; i++) bad += p[i] != 5.0f;
        if (bad)
            fail_msg("round %d: %lld of %lld elements were overwritten by cuda:1's earlier work", round, (long long)bad,
                     (long long)SLOW_N);
        aug_tensor_free(h), aug_tensor_free(dst);
    }
    aug_tensor_free(src);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sync_and_query_the_default_stream_of_another_device),
        cmocka_unit_test(test_events_of_another_device),
        cmocka_unit_test(test_stream_waits_for_an_event_of_another_device),
        cmocka_unit_test(test_peer_copy_after_the_destination_work),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
