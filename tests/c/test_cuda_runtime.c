/* test_cuda_runtime.c: the CUDA backend's runtime on every launch setting and
 * stream: launch settings (the same bytes and the same summation order for any
 * blocks / threads, a configuration every GPU refuses), streams and events, the
 * stream-ordered allocator's reuse, device properties and copies between devices.
 * (The CPU-vs-CUDA comparisons of every op are tests/c/parity/, test_cuda_parity.)
 *
 * It runs on every CUDA device present: the emulated ones when the test runs
 * with AUG_CUDA_BACKEND=emu (ctest sets it), a real GPU otherwise. Without a
 * CUDA device the tests skip, unless AUG_REQUIRE_CUDA=1 (CI), which fails. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "aug/aug.h"

#include "helpers/th_cuda.h"

#define CUDA0 TH_CUDA0

static void test_launch_settings(void **state) {
    (void)state;
    NEED_CUDA();
    int64_t n = 100003;
    aug_tensor *t = aug_tensor_empty(1, &n, AUG_UINT8, CPU);
    th_fill_pattern(t, 3);
    aug_tensor *g = aug_tensor_to(t, CUDA0), *ref = NULL;
    assert_int_equal(aug_binary_scalar(AUG_OP_ADD, t, aug_scalar_int(77), &ref), AUG_OK);
    size_t nr;
    unsigned char *want = th_bytes_of(ref, &nr);
    static const int cfg[][2] = {{0, 0}, {1, 1}, {1, 32}, {8, 512}, {3, 1024}, {100, 64}};
    for (size_t k = 0; k < sizeof cfg / sizeof cfg[0]; k++) {
        assert_int_equal(aug_set_launch(cfg[k][0], cfg[k][1]), AUG_OK);
        aug_tensor *r = NULL;
        assert_int_equal(aug_binary_scalar(AUG_OP_ADD, g, aug_scalar_int(77), &r), AUG_OK);
        size_t nb;
        unsigned char *got = th_bytes_of(r, &nb);
        assert_memory_equal(want, got, nr);
        free(got);
        aug_tensor_free(r);
        aug_rng *rg = aug_rng_new(CUDA0, &(uint64_t){9});
        aug_tensor *u = aug_tensor_empty(1, &n, AUG_FLOAT32, CUDA0);
        assert_int_equal(aug_rng_uniform(rg, u, 0, 1), AUG_OK);
        aug_tensor *s = NULL;
        assert_int_equal(aug_reduce(AUG_REDUCE_SUM, u, -1, NULL, 0, 1, &s), AUG_OK);
        static double first = -1;
        aug_tensor *sc = aug_tensor_to(s, CPU);
        double v = *(double *)aug_tensor_ptr(sc);
        if (k == 0) first = v;
        assert_true(v == first); /* the same draws and the same summation order */
        aug_tensor_free(sc), aug_tensor_free(s), aug_tensor_free(u);
        aug_rng_free(rg);
    }
    /* a configuration every GPU refuses: a clear error, nothing run */
    assert_int_equal(aug_set_launch(0, 4096), AUG_OK);
    aug_tensor *r = NULL;
    aug_clear_error();
    assert_int_equal(aug_binary_scalar(AUG_OP_ADD, g, aug_scalar_int(1), &r), AUG_ERR_CUDA);
    assert_non_null(strstr(aug_last_error(), "refused the launch"));
    assert_null(r);
    assert_int_equal(aug_set_launch(-1, 0), AUG_ERR_VALUE);
    assert_int_equal(aug_set_launch(0, 0), AUG_OK);
    free(want);
    aug_tensor_free(ref), aug_tensor_free(g), aug_tensor_free(t);
}

static void test_streams_events(void **state) {
    (void)state;
    NEED_CUDA();
    int64_t n = 1 << 18;
    aug_stream *s1 = aug_stream_new(CUDA0, 0), *s2 = aug_stream_new(CUDA0, 0);
    assert_non_null(s1);
    assert_non_null(s2);
    aug_event *ev = aug_event_new(CUDA0), *t0 = aug_event_new(CUDA0);
    aug_tensor *a = aug_tensor_zeros(1, &n, AUG_INT32, CUDA0); /* on the default stream */
    assert_int_equal(aug_synchronize(CUDA0), AUG_OK);
    /* on s1: a += 1, 50 times; on s2 after the event: b = a * 2 */
    assert_int_equal(aug_set_current_stream(s1), AUG_OK);
    assert_int_equal(aug_event_record(t0, NULL), AUG_OK);
    for (int i = 0; i < 50; i++) assert_int_equal(aug_binary_scalar(AUG_OP_ADD, a, aug_scalar_int(1), &a), AUG_OK);
    assert_int_equal(aug_event_record(ev, s1), AUG_OK);
    assert_int_equal(aug_set_current_stream(s2), AUG_OK);
    assert_int_equal(aug_stream_wait_event(s2, ev), AUG_OK);
    aug_tensor *b = NULL;
    assert_int_equal(aug_binary_scalar(AUG_OP_MUL, a, aug_scalar_int(2), &b), AUG_OK);
    assert_int_equal(aug_stream_synchronize(s2), AUG_OK);
    assert_int_equal(aug_stream_query(s2), 1);
    assert_int_equal(aug_event_query(ev), 1);
    float ms = -1;
    assert_int_equal(aug_event_elapsed_ms(t0, ev, &ms), AUG_OK);
    assert_true(ms >= 0);
    aug_tensor *bc = aug_tensor_to(b, CPU);
    const int32_t *p = aug_tensor_ptr(bc);
    for (int64_t i = 0; i < n; i += 997) assert_int_equal(p[i], 100);
    assert_int_equal(aug_set_current_stream(aug_default_stream(CUDA0)), AUG_OK);
    aug_tensor_free(bc), aug_tensor_free(b), aug_tensor_free(a);
    aug_event_free(ev), aug_event_free(t0);
    aug_stream_free(s1), aug_stream_free(s2);
}

/* A block freed while a kernel on another stream still reads it is not handed
 * to that other stream's allocations until the work is done. */
static void test_allocator_reuse(void **state) {
    (void)state;
    NEED_CUDA();
    int64_t n = 1 << 16;
    aug_stream *s1 = aug_stream_new(CUDA0, 0), *s2 = aug_stream_new(CUDA0, 0);
    aug_tensor *src = aug_tensor_empty(1, &n, AUG_FLOAT32, CUDA0);
    aug_scalar one = aug_scalar_float(1.0);
    assert_int_equal(aug_fill(src, &one), AUG_OK);
    assert_int_equal(aug_synchronize(CUDA0), AUG_OK);
    assert_int_equal(aug_set_current_stream(s1), AUG_OK);
    aug_tensor *tmp = NULL;
    assert_int_equal(aug_binary_scalar(AUG_OP_ADD, src, aug_scalar_float(1.0), &tmp), AUG_OK); /* tmp = 2 */
    aug_tensor *acc = NULL;
    assert_int_equal(aug_unary(AUG_OP_POS, tmp, &acc), AUG_OK);
    for (int i = 0; i < 20; i++) /* keep s1 busy reading tmp */
        assert_int_equal(aug_binary(AUG_OP_ADD, acc, tmp, &acc), AUG_OK);
    aug_tensor_free(tmp); /* freed on s1 while s1 still has work reading it */
    assert_int_equal(aug_set_current_stream(s2), AUG_OK);
    aug_tensor *other = aug_tensor_empty(1, &n, AUG_FLOAT32, CUDA0);
    aug_scalar big = aug_scalar_float(1000.0);
    assert_int_equal(aug_fill(other, &big), AUG_OK);
    assert_int_equal(aug_synchronize(CUDA0), AUG_OK);
    aug_tensor *c = aug_tensor_to(acc, CPU);
    const float *p = aug_tensor_ptr(c);
    for (int64_t i = 0; i < n; i += 511) assert_true(p[i] == 42.0f);
    assert_int_equal(aug_set_current_stream(aug_default_stream(CUDA0)), AUG_OK);
    aug_tensor_free(c), aug_tensor_free(other), aug_tensor_free(acc), aug_tensor_free(src);
    aug_stream_free(s1), aug_stream_free(s2);
    size_t used, fr, total;
    assert_int_equal(aug_device_meminfo(CUDA0, &used, &fr, &total), AUG_OK);
    assert_true(total > 0 && used <= total);
    assert_int_equal(aug_device_release(CUDA0), AUG_OK);
}

static void test_devices_and_copies(void **state) {
    (void)state;
    NEED_CUDA();
    aug_device_props p;
    assert_int_equal(aug_device_properties(CUDA0, &p), AUG_OK);
    assert_true(p.multiProcessorCount > 0 && p.numCudaCores == p.multiProcessorCount * p.coresPerMultiprocessor);
    assert_true(p.maxThreadsPerBlock >= 1024);
    int64_t shape[2] = {4, 6};
    aug_tensor *c = aug_tensor_empty(2, shape, AUG_INT16, CPU);
    th_fill_pattern(c, 5);
    int ndev = aug_device_count(AUG_DEVICE_CUDA);
    aug_device last = {AUG_DEVICE_CUDA, ndev - 1};
    aug_tensor *g0 = aug_tensor_to(c, CUDA0), *g1 = aug_tensor_to(g0, last), *back = aug_tensor_to(g1, CPU);
    assert_memory_equal(aug_tensor_ptr(c), aug_tensor_ptr(back), 48);
    /* aug_copy across devices, into a strided view */
    int perm[2] = {1, 0};
    aug_tensor *z = aug_tensor_zeros(2, (int64_t[]){6, 4}, AUG_INT16, last);
    aug_tensor *zt = aug_tensor_permute(z, perm);
    assert_int_equal(aug_copy(c, zt), AUG_OK);
    aug_tensor *zb = aug_tensor_to(zt, CPU);
    assert_memory_equal(aug_tensor_ptr(c), aug_tensor_ptr(zb), 48);
    /* mixing devices in one op: a ValueError naming both */
    aug_tensor *r = NULL;
    aug_clear_error();
    assert_int_equal(aug_binary(AUG_OP_ADD, c, g0, &r), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_add: operands are on different devices (cpu and cuda:0)");
    /* a device that does not exist */
    aug_device bad = {AUG_DEVICE_CUDA, ndev};
    assert_null(aug_tensor_to(c, bad));
    assert_int_equal(aug_last_status(), AUG_ERR_CUDA);
    aug_tensor_free(zb), aug_tensor_free(zt), aug_tensor_free(z);
    aug_tensor_free(back), aug_tensor_free(g1), aug_tensor_free(g0), aug_tensor_free(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_launch_settings),  cmocka_unit_test(test_streams_events),
        cmocka_unit_test(test_allocator_reuse),  cmocka_unit_test(test_devices_and_copies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
