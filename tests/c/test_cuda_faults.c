/* test_cuda_faults.c: the CUDA backend's failure paths, on the emulated devices
 * (tests/cuda_emu), which model them: a machine without cuBLAS, and a kernel
 * fault that leaves a sticky error.
 *
 * - cuBLAS is opened at run time (cuda/dynlib.cu): with the emulator's stand-in
 *   absent (AUG_EMU_NO_CUBLAS=1), gemm on a CUDA device fails with
 *   AUG_ERR_CUBLAS saying cuBLAS is not available, and every other op works
 *   (gemm on the CPU too).
 * - After a kernel fault (AUG_EMU_FAULT=aug__k_random:cudaErrorIllegalAddress:
 *   the random fill faults as an out-of-bounds access would), the next calls on
 *   that device report the broken context by the error's name and say to
 *   restart the process; an allocation says so too, not "out of memory". The
 *   other device is unaffected.
 *
 * main sets both variables before the library starts, so the binary runs alone;
 * without the emulated devices (a real GPU) the tests skip. */
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

static int emulated(void) {
    const char *b = getenv("AUG_CUDA_BACKEND");
    return b && strcmp(b, "emu") == 0 && th_have_cuda();
}

static aug_tensor *filled(int64_t rows, int64_t cols, aug_device dev) {
    int64_t shape[2] = {rows, cols};
    aug_tensor *t = aug_tensor_empty(2, shape, AUG_FLOAT32, CPU);
    assert_non_null(t);
    float *p = (float *)aug_tensor_ptr(t);
    for (int64_t i = 0; i < rows * cols; i++) p[i] = (float)(i % 7) - 3.0f;
    if (dev.type == AUG_DEVICE_CPU) return t;
    aug_tensor *d = aug_tensor_to(t, dev);
    aug_tensor_free(t);
    assert_non_null(d);
    return d;
}

static void test_gemm_without_cublas(void **state) {
    (void)state;
    if (!emulated()) skip();
    aug_tensor *a = filled(4, 3, TH_CUDA0), *b = filled(3, 5, TH_CUDA0), *c = NULL;
    assert_int_equal(aug_gemm(a, b, &c, 1.0, 0.0), AUG_ERR_CUBLAS);
    assert_null(c);
    const char *msg = aug_last_error();
    if (!strstr(msg, "cuBLAS is not available") || !strstr(msg, "libcublas.so.13") ||
        !strstr(msg, "AUG_CUBLAS_LIBRARY"))
        fail_msg("unclear message: %s", msg);
    /* everything else works on the device, and gemm on the CPU */
    aug_tensor *s = NULL;
    assert_int_equal(aug_binary(AUG_OP_ADD, a, a, &s), AUG_OK);
    aug_tensor *h = aug_tensor_to(s, CPU);
    assert_non_null(h);
    assert_true(((const float *)aug_tensor_ptr(h))[1] == -4.0f);
    aug_tensor *ca = filled(4, 3, CPU), *cb = filled(3, 5, CPU), *cc = NULL;
    assert_int_equal(aug_gemm(ca, cb, &cc, 1.0, 0.0), AUG_OK);
    aug_tensor_free(cc), aug_tensor_free(ca), aug_tensor_free(cb);
    aug_tensor_free(h), aug_tensor_free(s), aug_tensor_free(a), aug_tensor_free(b);
}

static void expect_broken(aug_status st, const char *what) {
    const char *msg = aug_last_error();
    if (st != AUG_ERR_CUDA || !strstr(msg, "cudaErrorIllegalAddress") || !strstr(msg, "broken") ||
        !strstr(msg, "restart the process") || strstr(msg, "out of memory"))
        fail_msg("%s: status %d, message: %s", what, (int)st, msg);
}

static void test_sticky_fault_is_named(void **state) {
    (void)state;
    if (!emulated()) skip();
    aug_device cuda1 = {AUG_DEVICE_CUDA, 1};
    int64_t shape[1] = {1000};
    aug_tensor *t = aug_tensor_empty(1, shape, AUG_FLOAT32, cuda1);
    assert_non_null(t);
    aug_rng *rng = aug_rng_new(cuda1, NULL);
    assert_non_null(rng);
    aug_status st = aug_rng_uniform(rng, t, 0.0, 1.0); /* faults on the device, maybe after returning */
    if (st == AUG_OK) {
        aug_tensor *h = aug_tensor_to(t, CPU);
        assert_null(h);
        st = aug_last_status();
    }
    expect_broken(st, "the call after the fault");
    /* an allocation the pool cannot serve from its cache reaches cudaMalloc */
    int64_t big[1] = {(int64_t)3 << 20};
    aug_tensor *u = aug_tensor_empty(1, big, AUG_UINT8, cuda1);
    assert_null(u);
    expect_broken(aug_last_status(), "an allocation");
    assert_string_equal(aug_last_error_function(), "aug_tensor_empty");
    /* cuda:0 is another context */
    aug_tensor *z = filled(2, 2, TH_CUDA0), *s = NULL;
    assert_int_equal(aug_binary(AUG_OP_ADD, z, z, &s), AUG_OK);
    aug_tensor_free(s), aug_tensor_free(z);
    aug_rng_free(rng);
    aug_tensor_free(t);
}

int main(void) {
    setenv("AUG_EMU_NO_CUBLAS", "1", 1);
    setenv("AUG_EMU_FAULT", "aug__k_random:cudaErrorIllegalAddress", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemm_without_cublas),
        cmocka_unit_test(test_sticky_fault_is_named), /* last: it breaks cuda:1 */
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
