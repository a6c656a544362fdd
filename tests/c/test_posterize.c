/* test_posterize.c: aug_posterize (aug/colour.h) against torchvision v2's
 * definition written out here: an integer keeps its high bits ((x >> s) << s
 * with s = value bits - bits; bits >= value bits: unchanged), a float becomes
 * clamp(floor(x * 2^bits), 0, 2^bits - 1) / 2^bits, computed exactly in double
 * (a power-of-two scaling) and rounded to the image's type. Every uint8 value
 * for every bits 0..9, uint16 and float batches with one bits per image, float
 * specials, in place; then the argument errors with their messages. On the
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

static uint32_t want_int(uint32_t x, int value_bits, int bits) {
    if (bits >= value_bits) return x;
    const int s = value_bits - bits;
    return bits == 0 ? 0 : (x >> s) << s;
}

static double want_float(double x, int bits) {
    const double levels = ldexp(1.0, bits);
    double y = floor(x * levels);
    if (y < 0) y = 0;
    if (y > levels - 1) y = levels - 1;
    return y / levels;
}

/* Every uint8 value for bits 0..9 (one bits for the image), in place too. */
static void check_uint8(aug_device dev) {
    aug_tensor *h = aug_tensor_empty(2, (int64_t[]){16, 16}, AUG_UINT8, CPU);
    for (int i = 0; i < 256; i++) ((uint8_t *)aug_tensor_ptr(h))[i] = (uint8_t)i;
    aug_tensor *x = aug_tensor_to(h, dev);
    for (int32_t b = 0; b <= 9; b++) {
        aug_tensor *r = NULL;
        assert_int_equal(aug_posterize(x, &b, 1, &r), AUG_OK);
        uint8_t *v = host_values(r);
        for (int i = 0; i < 256; i++)
            if (v[i] != want_int((uint32_t)i, 8, b)) fail_msg("bits %d: %d -> %d", b, i, v[i]);
        free(v), aug_tensor_free(r);
    }
    const int32_t four = 4;
    assert_int_equal(aug_posterize(x, &four, 1, &x), AUG_OK); /* in place */
    uint8_t *v = host_values(x);
    for (int i = 0; i < 256; i++) assert_int_equal(v[i], i & 0xf0);
    free(v), aug_tensor_free(x), aug_tensor_free(h);
}

/* A uint16 (N, H, W, C) batch with one bits per image: image n by its own. */
static void check_uint16_batch(aug_device dev) {
    enum { N = 4, PER = 2 * 3 * 1000 };
    aug_tensor *h = aug_tensor_empty(4, (int64_t[]){N, 2, 1000, 3}, AUG_UINT16, CPU);
    uint16_t *src = aug_tensor_ptr(h);
    for (int i = 0; i < N * PER; i++) src[i] = (uint16_t)(i * 2654435761u >> 16);
    assert_int_equal(aug_tensor_set_layout(h, "NHWC"), AUG_OK);
    aug_tensor *x = aug_tensor_to(h, dev), *r = NULL;
    const int32_t bits[N] = {0, 5, 15, 16};
    assert_int_equal(aug_posterize(x, bits, N, &r), AUG_OK);
    assert_string_equal(r->layout, "NHWC");
    uint16_t *v = host_values(r);
    for (int n = 0; n < N; n++)
        for (int i = 0; i < PER; i++)
            if (v[n * PER + i] != want_int(src[n * PER + i], 16, bits[n]))
                fail_msg("image %d bits %d: %d -> %d", n, bits[n], src[n * PER + i], v[n * PER + i]);
    free(v), aug_tensor_free(r), aug_tensor_free(x), aug_tensor_free(h);
}

/* float32 and float64 batches of 3 images (bits 0, 3, 24, 32), specials included. */
static void check_floats(aug_device dev) {
    enum { N = 4, PER = 12 };
    const double in[PER] = {0.0, 1.0, 0.999, 0.5, 0.3, -0.1, 1.5, 0.12345678, INFINITY, -INFINITY, 1e30, 0.75};
    const int32_t bits[N] = {0, 3, 24, 32};
    double vals[N * PER];
    for (int n = 0; n < N; n++) memcpy(vals + n * PER, in, sizeof in);
    for (int k = 0; k < 2; k++) {
        aug_dtype t = k ? AUG_FLOAT64 : AUG_FLOAT32;
        aug_tensor *x = th_from_doubles(vals, 4, (int64_t[]){N, 1, 3, 4}, t, dev), *r = NULL;
        assert_int_equal(aug_posterize(x, bits, N, &r), AUG_OK);
        void *v = host_values(r);
        for (int n = 0; n < N; n++)
            for (int i = 0; i < PER; i++) {
                double xi = k ? in[i] : (double)(float)in[i];
                double got = k ? ((double *)v)[n * PER + i] : (double)((float *)v)[n * PER + i];
                double want = want_float(xi, bits[n]);
                if (!k) want = (double)(float)want;
                if (!(got == want)) fail_msg("%s bits %d: %.17g -> %.17g, want %.17g", aug_dtype_name(t), bits[n], xi, got, want);
            }
        free(v);
        /* NaN stays NaN */
        double nan_in = NAN;
        aug_tensor *xn = th_from_doubles(&nan_in, 2, (int64_t[]){1, 1}, t, dev), *rn = NULL;
        assert_int_equal(aug_posterize(xn, &bits[1], 1, &rn), AUG_OK);
        v = host_values(rn);
        assert_true(k ? isnan(((double *)v)[0]) : isnan(((float *)v)[0]));
        free(v);
        aug_tensor_free(xn), aug_tensor_free(rn), aug_tensor_free(x), aug_tensor_free(r);
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
    const int32_t four = 4, bad3[3] = {4, 33, 2}, neg = -1, ok2[2] = {1, 2};
    expect(aug_posterize(batch, &four, 1, NULL), AUG_ERR_VALUE, "aug_posterize: out is NULL");
    expect(aug_posterize(batch, NULL, 1, &res), AUG_ERR_VALUE, "aug_posterize: bits is NULL");
    expect(aug_posterize(batch, ok2, 2, &res), AUG_ERR_VALUE,
           "aug_posterize: bits has 2 values for 3 images (give 1, or one per image)");
    expect(aug_posterize(batch, ok2, 0, &res), AUG_ERR_VALUE, "aug_posterize: bits has 0 values for 3 images");
    expect(aug_posterize(batch, bad3, 3, &res), AUG_ERR_VALUE, "aug_posterize: bits must be in [0, 32], got 33 (image 1)");
    expect(aug_posterize(batch, &neg, 1, &res), AUG_ERR_VALUE, "aug_posterize: bits must be in [0, 32], got -1");
    aug_tensor *i16 = aug_tensor_empty(2, (int64_t[]){4, 4}, AUG_INT16, CPU);
    expect(aug_posterize(i16, &four, 1, &res), AUG_ERR_TYPE, "aug_posterize: image dtype int16 is not supported");
    aug_tensor *flat = aug_tensor_empty(1, (int64_t[]){16}, AUG_UINT8, CPU);
    expect(aug_posterize(flat, &four, 1, &res), AUG_ERR_VALUE, "aug_posterize: image must be (H, W)");
    /* a single image takes one value only */
    aug_tensor *one = aug_tensor_empty(3, (int64_t[]){3, 4, 4}, AUG_UINT8, CPU);
    expect(aug_posterize(one, ok2, 2, &res), AUG_ERR_VALUE, "aug_posterize: bits has 2 values for 1 image (give 1)");
    assert_null(res);
    aug_tensor_free(batch), aug_tensor_free(i16), aug_tensor_free(flat), aug_tensor_free(one);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_cpu), cmocka_unit_test(test_cuda),
                                       cmocka_unit_test(test_errors)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
