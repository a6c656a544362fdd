/* test_solarize.c: aug_solarize (aug/colour.h) against torchvision's definition
 * written out here: x >= threshold ? invert(x) : x, the comparison in float32
 * for the integer and float32 images (torch's promotion of an image against a
 * Python float) and in float64 for float64. Every uint8 value for several
 * thresholds, a uint16 batch with one threshold per image, floats with
 * thresholds that round differently in float32, specials, in place; then the
 * argument errors with their messages. On the emulated CUDA device too when one
 * is present; the device against the CPU on random views:
 * tests/c/parity/cases_colour.c. */
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

/* Every uint8 value against thresholds below, inside and at the top of the range. */
static void check_uint8(aug_device dev) {
    const double thresholds[] = {-3.0, 0.0, 127.5, 128.0, 254.9999999, 255.0};
    aug_tensor *h = aug_tensor_empty(3, (int64_t[]){16, 16, 1}, AUG_UINT8, CPU);
    for (int i = 0; i < 256; i++) ((uint8_t *)aug_tensor_ptr(h))[i] = (uint8_t)i;
    aug_tensor *x = aug_tensor_to(h, dev);
    for (size_t k = 0; k < sizeof thresholds / sizeof thresholds[0]; k++) {
        aug_tensor *r = NULL;
        assert_int_equal(aug_solarize(x, &thresholds[k], 1, &r), AUG_OK);
        uint8_t *v = host_values(r);
        const float t = (float)thresholds[k]; /* 254.9999999 is 255 in float32 */
        for (int i = 0; i < 256; i++) {
            const int want = (float)i >= t ? 255 - i : i;
            if (v[i] != want) fail_msg("threshold %.10g: %d -> %d, want %d", thresholds[k], i, v[i], want);
        }
        free(v), aug_tensor_free(r);
    }
    const double t128 = 128.0;
    assert_int_equal(aug_solarize(x, &t128, 1, &x), AUG_OK); /* in place */
    uint8_t *v = host_values(x);
    for (int i = 0; i < 256; i++) assert_int_equal(v[i], i >= 128 ? 255 - i : i);
    free(v), aug_tensor_free(x), aug_tensor_free(h);
}

/* A uint16 (N, C, H, W) batch with one threshold per image. */
static void check_uint16_batch(aug_device dev) {
    enum { N = 3, PER = 3 * 40 * 50 };
    aug_tensor *h = aug_tensor_empty(4, (int64_t[]){N, 3, 40, 50}, AUG_UINT16, CPU);
    uint16_t *src = aug_tensor_ptr(h);
    for (int i = 0; i < N * PER; i++) src[i] = (uint16_t)(i * 2654435761u >> 16);
    aug_tensor *x = aug_tensor_to(h, dev), *r = NULL;
    const double thr[N] = {0.0, 30000.5, 65535.0};
    assert_int_equal(aug_solarize(x, thr, N, &r), AUG_OK);
    uint16_t *v = host_values(r);
    for (int n = 0; n < N; n++)
        for (int i = 0; i < PER; i++) {
            const int s = src[n * PER + i], want = (float)s >= (float)thr[n] ? 65535 - s : s;
            if (v[n * PER + i] != want) fail_msg("image %d: %d -> %d, want %d", n, s, v[n * PER + i], want);
        }
    free(v), aug_tensor_free(r), aug_tensor_free(x), aug_tensor_free(h);
}

/* floats: 0.1 (float32 rounds it up: 0.1f >= 0.1f inverts, 0.1 as float64 too),
 * 0.30000000000000004 (above 0.3f in float64 only), NaN never >= anything. */
static void check_floats(aug_device dev) {
    enum { PER = 6 };
    const double in[PER] = {0.1, 0.3, 0.0999999, 1.0, NAN, -INFINITY};
    const double thr[2] = {0.1, 0.30000000000000004};
    double vals[2 * PER];
    memcpy(vals, in, sizeof in), memcpy(vals + PER, in, sizeof in);
    for (int k = 0; k < 2; k++) {
        aug_dtype t = k ? AUG_FLOAT64 : AUG_FLOAT32;
        aug_tensor *x = th_from_doubles(vals, 4, (int64_t[]){2, 1, 2, 3}, t, dev), *r = NULL;
        assert_int_equal(aug_solarize(x, thr, 2, &r), AUG_OK);
        void *v = host_values(r);
        for (int n = 0; n < 2; n++)
            for (int i = 0; i < PER; i++) {
                double got, want;
                if (k) {
                    got = ((double *)v)[n * PER + i];
                    want = in[i] >= thr[n] ? 1.0 - in[i] : in[i];
                } else {
                    const float xi = (float)in[i];
                    got = ((float *)v)[n * PER + i];
                    want = xi >= (float)thr[n] ? 1.0f - xi : xi;
                }
                if (!(got == want) && !(isnan(got) && isnan(want)))
                    fail_msg("%s threshold %.17g: %.17g -> %.17g, want %.17g", aug_dtype_name(t), thr[n], in[i], got,
                             want);
            }
        free(v), aug_tensor_free(x), aug_tensor_free(r);
    }
}

static void test_cpu(void **state) {
    (void)state;
    check_uint8(CPU), check_uint16_batch(CPU), check_floats(CPU);
}

static void test_cuda(void **state) {
    (void)state;
    if (!th_have_cuda()) skip();
    aug_device dev = {AUG_DEVICE_CUDA, 0};
    check_uint8(dev), check_uint16_batch(dev), check_floats(dev);
}

static void test_errors(void **state) {
    (void)state;
    aug_tensor *batch = aug_tensor_empty(4, (int64_t[]){3, 3, 4, 4}, AUG_UINT8, CPU), *res = NULL;
    const double t = 100.0, two[2] = {1, 2}, bad3[3] = {1, 256, 2}, nan = NAN;
    expect(aug_solarize(batch, &t, 1, NULL), AUG_ERR_VALUE, "aug_solarize: out is NULL");
    expect(aug_solarize(batch, NULL, 1, &res), AUG_ERR_VALUE, "aug_solarize: threshold is NULL");
    expect(aug_solarize(batch, two, 2, &res), AUG_ERR_VALUE,
           "aug_solarize: threshold has 2 values for 3 images (give 1, or one per image)");
    expect(aug_solarize(batch, bad3, 3, &res), AUG_ERR_VALUE,
           "aug_solarize: threshold must be <= 255, the largest uint8 value, got 256 (image 1)");
    expect(aug_solarize(batch, &nan, 1, &res), AUG_ERR_VALUE, "aug_solarize: threshold must be <= 255, the largest uint8 value, got nan");
    aug_tensor *f = aug_tensor_empty(2, (int64_t[]){4, 4}, AUG_FLOAT64, CPU);
    const double over = 1.5;
    expect(aug_solarize(f, &over, 1, &res), AUG_ERR_VALUE,
           "aug_solarize: threshold must be <= 1, the largest float64 value, got 1.5");
    aug_tensor *u16 = aug_tensor_empty(2, (int64_t[]){4, 4}, AUG_UINT16, CPU);
    const double big = 65536;
    expect(aug_solarize(u16, &big, 1, &res), AUG_ERR_VALUE, "threshold must be <= 65535, the largest uint16 value");
    aug_tensor *i32 = aug_tensor_empty(2, (int64_t[]){4, 4}, AUG_INT32, CPU);
    expect(aug_solarize(i32, &t, 1, &res), AUG_ERR_TYPE, "aug_solarize: image dtype int32 is not supported");
    assert_null(res);
    aug_tensor_free(batch), aug_tensor_free(f), aug_tensor_free(u16), aug_tensor_free(i32);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_cpu), cmocka_unit_test(test_cuda),
                                       cmocka_unit_test(test_errors)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
