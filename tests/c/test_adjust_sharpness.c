/* test_adjust_sharpness.c: aug_adjust_sharpness (aug/colour.h) against
 * torchvision v2's definition written out here: per channel, each interior value
 * x becomes x + (1 - factor) * (blurred - x), blurred the 3 x 3 convolution with
 * 1/13 around 5/13 (float32 multiply-adds row by row, as torch's CPU conv2d
 * runs them; rounded half to even for uint8), clamped to [0, bound] and
 * truncated for uint8; the border clamped; a channel of at most 2 rows or
 * columns returned as it is. uint8 and float32 (values outside [0, 1] too),
 * channels first and last, one factor or one per image, in place; then the
 * argument errors. On the emulated CUDA device too when one is present; the
 * device against the CPU on random views: tests/c/parity/cases_colour.c. */
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

static float clampf(float x, float bound) { return x < 0.0f ? 0.0f : x > bound ? bound : x; }

/* The definition on one channel (h x w float32 values at step ps). */
static void want_channel(const float *in, float *out, int64_t h, int64_t w, int64_t ps, double factor, int u8) {
    const float bound = u8 ? 255.0f : 1.0f, a = (float)(1.0 / 13.0), b = (float)(5.0 / 13.0);
    const float alpha = (float)(1.0 - factor);
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++) {
            const float v = in[(y * w + x) * ps];
            if (h <= 2 || w <= 2) {
                out[(y * w + x) * ps] = v;
                continue;
            }
            if (y == 0 || x == 0 || y == h - 1 || x == w - 1) {
                out[(y * w + x) * ps] = clampf(v, bound);
                continue;
            }
            float acc = 0.0f;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++)
                    acc = fmaf(in[((y + dy) * w + x + dx) * ps], dy == 0 && dx == 0 ? b : a, acc);
            if (u8) acc = nearbyintf(acc);
            out[(y * w + x) * ps] = clampf(fmaf(acc - v, alpha, v), bound);
        }
}

static void check(aug_device dev, aug_dtype t, int last, int batch, int64_t H, int64_t W, int per_image, int inplace) {
    enum { N = 3, C = 3 };
    const int n = batch ? N : 1;
    const int64_t HW = H * W, PER = C * HW;
    aug_tensor *h = batch ? aug_tensor_empty(4, last ? (int64_t[]){N, H, W, C} : (int64_t[]){N, C, H, W}, t, CPU)
                          : aug_tensor_empty(3, last ? (int64_t[]){H, W, C} : (int64_t[]){C, H, W}, t, CPU);
    if (last) assert_int_equal(aug_tensor_set_layout(h, batch ? "NHWC" : "HWC"), AUG_OK);
    const int64_t ps = last ? C : 1, cs = last ? 1 : HW;
    const int u8 = t == AUG_UINT8;
    float *in = malloc((size_t)(n * PER) * sizeof(float)), *want = malloc((size_t)(n * PER) * sizeof(float));
    uint32_t s = 7u;
    for (int64_t i = 0; i < n * PER; i++) {
        s = s * 1664525u + 1013904223u;
        in[i] = u8 ? (float)(s >> 24) : (float)(s >> 8) / 16777216.0f * 1.2f - 0.1f;
        if (u8) ((uint8_t *)aug_tensor_ptr(h))[i] = (uint8_t)in[i];
        else ((float *)aug_tensor_ptr(h))[i] = in[i];
    }
    const double factors[N] = {0.0, 0.37, 2.5};
    for (int i = 0; i < n; i++)
        for (int c = 0; c < C; c++)
            want_channel(in + i * PER + c * cs, want + i * PER + c * cs, H, W, ps, factors[per_image ? i : 1], u8);
    aug_tensor *x = aug_tensor_to(h, dev), *r = NULL;
    const double *f = per_image ? factors : &factors[1];
    assert_int_equal(aug_adjust_sharpness(x, f, per_image ? n : 1, inplace ? &x : &r), AUG_OK);
    if (inplace) r = x, x = NULL;
    assert_string_equal(r->layout, h->layout);
    void *v = host_values(r);
    for (int64_t i = 0; i < n * PER; i++) {
        const float g = u8 ? (float)((uint8_t *)v)[i] : ((float *)v)[i], w = u8 ? (float)(uint8_t)want[i] : want[i];
        if (memcmp(&g, &w, 4)) fail_msg("%lld x %lld, value %lld: %.9g, want %.9g", (long long)H, (long long)W, (long long)i, g, w);
    }
    free(v), free(in), free(want), aug_tensor_free(r), aug_tensor_free(x), aug_tensor_free(h);
}

static void check_all(aug_device dev) {
    for (int t = 0; t < 2; t++)
        for (int last = 0; last < 2; last++)
            for (int batch = 0; batch < 2; batch++) {
                const aug_dtype dt = t ? AUG_FLOAT32 : AUG_UINT8;
                check(dev, dt, last, batch, 21, 35, batch, !batch); /* 21 rows: two CPU bands */
                check(dev, dt, last, batch, 2, 9, 0, 0);            /* returned as it is */
                check(dev, dt, last, batch, 3, 3, batch, batch);
                check(dev, dt, last, batch, 4, 600, 1, 0); /* the CPU's 256-column steps */
            }
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
    aug_tensor *batch = aug_tensor_empty(4, (int64_t[]){3, 3, 4, 4}, AUG_UINT8, CPU), *res = NULL;
    const double one = 1.0, neg = -0.5, nan = NAN, inf = INFINITY, two[2] = {1, 2}, bad3[3] = {1, 2, -1};
    expect(aug_adjust_sharpness(batch, &one, 1, NULL), AUG_ERR_VALUE, "aug_adjust_sharpness: out is NULL");
    expect(aug_adjust_sharpness(batch, NULL, 1, &res), AUG_ERR_VALUE, "aug_adjust_sharpness: factor is NULL");
    expect(aug_adjust_sharpness(batch, two, 2, &res), AUG_ERR_VALUE,
           "aug_adjust_sharpness: factor has 2 values for 3 images (give 1, or one per image)");
    expect(aug_adjust_sharpness(batch, &neg, 1, &res), AUG_ERR_VALUE,
           "aug_adjust_sharpness: factor must be a finite number >= 0, got -0.5");
    expect(aug_adjust_sharpness(batch, &nan, 1, &res), AUG_ERR_VALUE, "factor must be a finite number >= 0, got nan");
    expect(aug_adjust_sharpness(batch, &inf, 1, &res), AUG_ERR_VALUE, "factor must be a finite number >= 0, got inf");
    expect(aug_adjust_sharpness(batch, bad3, 3, &res), AUG_ERR_VALUE, "got -1 (image 2)");
    aug_tensor *one_im = aug_tensor_empty(3, (int64_t[]){3, 4, 4}, AUG_UINT8, CPU);
    expect(aug_adjust_sharpness(one_im, two, 2, &res), AUG_ERR_VALUE,
           "aug_adjust_sharpness: factor has 2 values for 1 image (give 1)");
    aug_tensor *i8 = aug_tensor_empty(2, (int64_t[]){4, 4}, AUG_INT8, CPU);
    expect(aug_adjust_sharpness(i8, &one, 1, &res), AUG_ERR_TYPE, "aug_adjust_sharpness: image dtype int8 is not supported");
    assert_null(res);
    aug_tensor_free(batch), aug_tensor_free(one_im), aug_tensor_free(i8);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_cpu), cmocka_unit_test(test_cuda),
                                       cmocka_unit_test(test_errors)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
