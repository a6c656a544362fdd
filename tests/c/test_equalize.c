/* test_equalize.c: aug_equalize (aug/colour.h) against torchvision v2's
 * definition written out here: per channel, a 256-bin histogram, step = (values
 * - count of the highest level present) / 255, step 0 leaves the channel as it
 * is, else level k -> min((cum[k - 1] + step / 2) / step, 255), level 0 -> 0;
 * a float32 value is binned as trunc(x * 255.999) and comes back as level / 255
 * (times the float32 1/255). uint8 CHW, HWC and NCHW / NHWC batches with flat,
 * two-valued and random channels, float32 with out-of-range values and NaN, in
 * place; then the argument errors. On the emulated CUDA device too when one is
 * present; the device against the CPU on random views: tests/c/parity/cases_colour.c.
 * uint16 images against NumPy: tests/python/test_u16_autotone.py. */
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

/* The definition on one channel of n levels at step ps: levels in, levels out. */
static void want_channel(const uint8_t *in, uint8_t *out, int64_t n, int64_t ps) {
    int64_t hist[256] = {0}, cum = 0, lut[256];
    for (int64_t i = 0; i < n; i++) hist[in[i * ps]]++;
    int top = 255;
    while (hist[top] == 0) top--;
    const int64_t step = (n - hist[top]) / 255;
    for (int k = 0; k < 256; k++) {
        lut[k] = step == 0 ? k : k == 0 ? 0 : (cum + step / 2) / step > 255 ? 255 : (cum + step / 2) / step;
        cum += hist[k];
    }
    for (int64_t i = 0; i < n; i++) out[i * ps] = (uint8_t)lut[in[i * ps]];
}

static uint8_t level(float x) {
    const double y = (double)(x * 255.999f);
    return y != y || y < 0 ? 0 : y > 255 ? 255 : (uint8_t)y;
}

/* (N, C, H, W) or (N, H, W, C) uint8 / float32 images: channel 0 flat, channel 1
 * two values, the rest random (float32: from [-0.2, 1.2) with a NaN). */
static void check(aug_device dev, aug_dtype t, int last, int batch, int inplace) {
    enum { N = 3, C = 4, H = 13, W = 21, HW = H * W, PER = C * HW };
    const int n = batch ? N : 1;
    aug_tensor *h = batch ? aug_tensor_empty(4, last ? (int64_t[]){N, H, W, C} : (int64_t[]){N, C, H, W}, t, CPU)
                          : aug_tensor_empty(3, last ? (int64_t[]){H, W, C} : (int64_t[]){C, H, W}, t, CPU);
    if (last) assert_int_equal(aug_tensor_set_layout(h, batch ? "NHWC" : "HWC"), AUG_OK);
    const int64_t ps = last ? C : 1, cs = last ? 1 : HW;
    uint32_t s = 12345u;
    uint8_t *lv = malloc((size_t)n * PER), *want = malloc((size_t)n * PER);
    for (int i = 0; i < n; i++)
        for (int c = 0; c < C; c++)
            for (int k = 0; k < HW; k++) {
                s = s * 1664525u + 1013904223u;
                const int64_t at = (int64_t)i * PER + c * cs + k * ps;
                if (t == AUG_UINT8) {
                    const uint8_t v = c == 0 ? 77 : c == 1 ? ((s >> 24) < 80 ? 10 : 200) : (uint8_t)(s >> 24);
                    ((uint8_t *)aug_tensor_ptr(h))[at] = v;
                } else {
                    float v = c == 0 ? 0.5f : (float)(s >> 8) / 16777216.0f * 1.4f - 0.2f;
                    if (c == 2 && k == 5) v = NAN;
                    ((float *)aug_tensor_ptr(h))[at] = v;
                }
            }
    for (int64_t i = 0; i < (int64_t)n * PER; i++)
        lv[i] = t == AUG_UINT8 ? ((uint8_t *)aug_tensor_ptr(h))[i] : level(((float *)aug_tensor_ptr(h))[i]);
    for (int i = 0; i < n; i++)
        for (int c = 0; c < C; c++) want_channel(lv + i * PER + c * cs, want + i * PER + c * cs, HW, ps);
    aug_tensor *x = aug_tensor_to(h, dev), *r = NULL;
    assert_int_equal(aug_equalize(x, inplace ? &x : &r), AUG_OK);
    if (inplace) r = x, x = NULL;
    assert_string_equal(r->layout, h->layout);
    void *v = host_values(r);
    for (int64_t i = 0; i < (int64_t)n * PER; i++) {
        if (t == AUG_UINT8) {
            if (((uint8_t *)v)[i] != want[i]) fail_msg("value %lld: %d, want %d", (long long)i, ((uint8_t *)v)[i], want[i]);
        } else {
            const float w = (float)want[i] * (float)(1.0 / 255.0), g = ((float *)v)[i];
            if (memcmp(&w, &g, 4)) fail_msg("value %lld: %.9g, want %.9g", (long long)i, g, w);
        }
    }
    free(v), free(lv), free(want), aug_tensor_free(r), aug_tensor_free(x), aug_tensor_free(h);
}

static void check_all(aug_device dev) {
    for (int t = 0; t < 2; t++)
        for (int last = 0; last < 2; last++)
            for (int batch = 0; batch < 2; batch++) check(dev, t ? AUG_FLOAT32 : AUG_UINT8, last, batch, batch && !last);
    /* an (H, W) image, every level once: step 1, every level kept */
    aug_tensor *h = aug_tensor_empty(2, (int64_t[]){16, 16}, AUG_UINT8, CPU);
    for (int i = 0; i < 256; i++) ((uint8_t *)aug_tensor_ptr(h))[i] = (uint8_t)i;
    aug_tensor *x = aug_tensor_to(h, dev), *r = NULL;
    assert_int_equal(aug_equalize(x, &r), AUG_OK);
    uint8_t *v = host_values(r), want[256];
    want_channel(aug_tensor_ptr(h), want, 256, 1);
    assert_memory_equal(v, want, 256);
    free(v), aug_tensor_free(r), aug_tensor_free(x), aug_tensor_free(h);
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
    aug_tensor *im = aug_tensor_empty(3, (int64_t[]){3, 4, 4}, AUG_UINT8, CPU), *res = NULL;
    expect(aug_equalize(im, NULL), AUG_ERR_VALUE, "aug_equalize: out is NULL");
    aug_tensor *i16 = aug_tensor_empty(2, (int64_t[]){4, 4}, AUG_INT16, CPU);
    expect(aug_equalize(i16, &res), AUG_ERR_TYPE, "aug_equalize: image dtype int16 is not supported (uint8, uint16 or float32)");
    aug_tensor *flat = aug_tensor_empty(1, (int64_t[]){16}, AUG_UINT8, CPU);
    expect(aug_equalize(flat, &res), AUG_ERR_VALUE, "aug_equalize: image must be (H, W)");
    assert_int_equal(aug_tensor_set_layout(im, "HWC"), AUG_OK);
    aug_tensor *other = aug_tensor_empty(3, (int64_t[]){3, 4, 5}, AUG_UINT8, CPU);
    expect(aug_equalize(im, &other), AUG_ERR_VALUE, "aug_equalize");
    assert_null(res);
    aug_tensor_free(im), aug_tensor_free(i16), aug_tensor_free(flat), aug_tensor_free(other);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_cpu), cmocka_unit_test(test_cuda),
                                       cmocka_unit_test(test_errors)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
