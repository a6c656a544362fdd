/* test_autocontrast.c: aug_autocontrast (aug/colour.h) against torchvision v2's
 * definition written out here: per channel, lo and hi its minimum and maximum
 * (float32), a flat channel kept, else (x - lo) / ((hi - lo) * (1 / bound)) in
 * float32, clamped to [0, bound] and truncated for uint8 (bound 255; 1.0 for
 * float32); a NaN makes its channel NaN. uint8 and float32, channels first and
 * last, single images and batches, in place; then the argument errors. On the
 * emulated CUDA device too when one is present; the device against the CPU on
 * random views: tests/c/parity/cases_colour.c. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "aug/aug.h"
#include "helpers/th_cuda.h"

static void expect(aug_status got, aug_status want, const char *msg) {
    assert_int_equal(got, want);
    if (strstr(aug_last_error(), msg) == NULL) fail_msg("'%s' does not contain '%s'", aug_last_error(), msg);
}

static void *host_values(const aug_tensor *t) {
    size_t n = (size_t)aug_tensor_size(t) * (size_t)aug_tensor_itemsize(t);
    void *v = malloc(n ? n : 1);
    assert_non_null(v);
    assert_int_equal(aug_tensor_read(t, v, n, 1), AUG_OK);
    return v;
}

/* The definition on one channel of n float32 values at step ps. */
static void want_channel(const float *in, float *out, int64_t n, int64_t ps, float bound) {
    float lo = in[0], hi = in[0];
    int nan = 0;
    for (int64_t i = 0; i < n; i++) {
        const float x = in[i * ps];
        nan |= x != x;
        if (x < lo) lo = x;
        if (x > hi) hi = x;
    }
    const float off = hi == lo ? 0.0f : lo, inv = hi == lo ? 1.0f : (hi - lo) * (1.0f / bound);
    for (int64_t i = 0; i < n; i++) {
        const float y = nan ? NAN : (in[i * ps] - off) / inv;
        out[i * ps] = y != y ? y : fminf(fmaxf(y, 0.0f), bound);
    }
}

static void check(aug_device dev, aug_dtype t, int last, int batch, int inplace) {
    enum { N = 3, C = 4, H = 11, W = 19, HW = H * W, PER = C * HW };
    const int n = batch ? N : 1;
    aug_tensor *h = batch ? aug_tensor_empty(4, last ? (int64_t[]){N, H, W, C} : (int64_t[]){N, C, H, W}, t, CPU)
                          : aug_tensor_empty(3, last ? (int64_t[]){H, W, C} : (int64_t[]){C, H, W}, t, CPU);
    if (last) assert_int_equal(aug_tensor_set_layout(h, batch ? "NHWC" : "HWC"), AUG_OK);
    const int64_t ps = last ? C : 1, cs = last ? 1 : HW;
    const float bound = t == AUG_UINT8 ? 255.0f : 1.0f;
    float *in = malloc((size_t)n * PER * sizeof(float)), *want = malloc((size_t)n * PER * sizeof(float));
    uint32_t s = 99u;
    for (int i = 0; i < n; i++)
        for (int c = 0; c < C; c++)
            for (int k = 0; k < HW; k++) {
                s = s * 1664525u + 1013904223u;
                const int64_t at = (int64_t)i * PER + c * cs + k * ps;
                /* channel 0 flat, 1 narrow, 2 wide (a NaN in float32 image 0), 3 random */
                float v = c == 0 ? 0.3f * bound : c == 1 ? (0.4f + (float)(s >> 8) / 16777216.0f * 0.2f) * bound
                                                         : (float)(s >> 8) / 16777216.0f * 1.3f * bound - 0.1f * bound;
                if (t == AUG_UINT8) v = (float)(uint8_t)fminf(fmaxf(v, 0.0f), 255.0f);
                if (t == AUG_FLOAT32 && c == 2 && i == 0 && k == 7) v = NAN;
                in[at] = v;
                if (t == AUG_UINT8) ((uint8_t *)aug_tensor_ptr(h))[at] = (uint8_t)v;
                else ((float *)aug_tensor_ptr(h))[at] = v;
            }
    for (int i = 0; i < n; i++)
        for (int c = 0; c < C; c++) want_channel(in + i * PER + c * cs, want + i * PER + c * cs, HW, ps, bound);
    aug_tensor *x = aug_tensor_to(h, dev), *r = NULL;
    assert_int_equal(aug_autocontrast(x, inplace ? &x : &r), AUG_OK);
    if (inplace) r = x, x = NULL;
    assert_string_equal(r->layout, h->layout);
    void *v = host_values(r);
    for (int64_t i = 0; i < (int64_t)n * PER; i++) {
        if (t == AUG_UINT8) {
            if (((uint8_t *)v)[i] != (uint8_t)want[i])
                fail_msg("value %lld: %d, want %d", (long long)i, ((uint8_t *)v)[i], (uint8_t)want[i]);
        } else {
            const float g = ((float *)v)[i];
            if (!(g == want[i] || (g != g && want[i] != want[i])))
                fail_msg("value %lld: %.9g, want %.9g", (long long)i, g, want[i]);
        }
    }
    free(v), free(in), free(want), aug_tensor_free(r), aug_tensor_free(x), aug_tensor_free(h);
}

static void check_all(aug_device dev) {
    for (int t = 0; t < 2; t++)
        for (int last = 0; last < 2; last++)
            for (int batch = 0; batch < 2; batch++) check(dev, t ? AUG_FLOAT32 : AUG_UINT8, last, batch, batch && last);
}

static void test_cpu(void **state) {
    (void)state;
    check_all(CPU);
}

static void test_cuda(void **state) {
    (void)state;
    if (!th_have_cuda()) skip();
    check_all((aug_device){AUG_DEVICE_CUDA, 0});
}

static void test_errors(void **state) {
    (void)state;
    aug_tensor *res = NULL;
    expect(aug_autocontrast(NULL, &res), AUG_ERR_VALUE, "aug_autocontrast");
    aug_tensor *im = aug_tensor_empty(3, (int64_t[]){3, 4, 4}, AUG_UINT8, CPU);
    expect(aug_autocontrast(im, NULL), AUG_ERR_VALUE, "aug_autocontrast: out is NULL");
    aug_tensor *f64 = aug_tensor_empty(2, (int64_t[]){4, 4}, AUG_FLOAT64, CPU);
    expect(aug_autocontrast(f64, &res), AUG_ERR_TYPE, "aug_autocontrast: image dtype float64 is not supported (uint8, uint16 or float32)");
    aug_tensor *five = aug_tensor_empty(5, (int64_t[]){1, 1, 3, 4, 4}, AUG_UINT8, CPU);
    expect(aug_autocontrast(five, &res), AUG_ERR_VALUE, "aug_autocontrast: image must be (H, W)");
    assert_null(res);
    aug_tensor_free(im), aug_tensor_free(f64), aug_tensor_free(five);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_cpu), cmocka_unit_test(test_cuda),
                                       cmocka_unit_test(test_errors)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
