/* test_pil_blur.c: aug_pil_gaussian_blur(_single) (aug/image.h; PIL's
 * ImageFilter.GaussianBlur) against the definition written out here: Pillow's
 * extended box radius in float32, then 3 passes along W and 3 along H of
 * out[j] = (ww * sum_{|k| <= r} x[clamp(j + k)] + fw * (x[clamp(j - r - 1)] +
 * x[clamp(j + r + 1)]) + 2^23) >> 24, summed naively per value. Random sizes
 * and radii (0, below 1, wider than the image, 1 x 1 and 2 x 3 images), a batch
 * with per-image radii, in place, a strided view; on the emulated CUDA device
 * too; then the errors with their messages. The device against the CPU:
 * tests/c/parity/cases_image.c ("blur/pil"). */
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

static int64_t cl(int64_t i, int64_t n) { return i < 0 ? 0 : i >= n ? n - 1 : i; }

/* One pass over n values at stride s of x into o (same stride). */
static void ref_pass(const uint8_t *x, uint8_t *o, int64_t n, int64_t s, int64_t r, uint32_t ww, uint32_t fw) {
    for (int64_t j = 0; j < n; j++) {
        uint64_t sum = 0;
        for (int64_t k = -r; k <= r; k++) sum += x[cl(j + k, n) * s];
        uint64_t v = sum * ww + (uint64_t)(x[cl(j - r - 1, n) * s] + x[cl(j + r + 1, n) * s]) * fw + (1u << 23);
        o[j * s] = (uint8_t)(v >> 24);
    }
}

/* The definition on planes of H x W values (in place in v). */
static void ref_blur(uint8_t *v, int64_t planes, int64_t H, int64_t W, float radius) {
    float sigma2 = radius * radius / 3.0f;
    float L = (float)sqrt(12.0 * (double)sigma2 + 1.0), l = (float)floor(((double)L - 1.0) / 2.0);
    float a = (2.0f * l + 1.0f) * (l * (l + 1.0f) - 3.0f * sigma2);
    a = a / (6.0f * (sigma2 - (l + 1.0f) * (l + 1.0f)));
    float box = l + a;
    if (radius == 0.0f || box == 0.0f) return;
    int64_t r = (int64_t)box;
    uint32_t ww = (uint32_t)((float)(1 << 24) / (box * 2.0f + 1.0f));
    uint32_t fw = ((1u << 24) - (uint32_t)(2 * r + 1) * ww) / 2;
    uint8_t *t = malloc((size_t)(H * W));
    assert_non_null(t);
    for (int64_t p = 0; p < planes; p++) {
        uint8_t *q = v + p * H * W;
        for (int pass = 0; pass < 3; pass++) {
            for (int64_t y = 0; y < H; y++) ref_pass(q + y * W, t + y * W, W, 1, r, ww, fw);
            memcpy(q, t, (size_t)(H * W));
        }
        for (int pass = 0; pass < 3; pass++) {
            for (int64_t x = 0; x < W; x++) ref_pass(q + x, t + x, H, W, r, ww, fw);
            memcpy(q, t, (size_t)(H * W));
        }
    }
    free(t);
}

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next(void) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

static aug_tensor *random_image(int ndim, const int64_t *shape, aug_device dev, uint8_t **host) {
    aug_tensor *h = aug_tensor_empty(ndim, shape, AUG_UINT8, CPU);
    assert_non_null(h);
    int64_t n = aug_tensor_size(h);
    uint8_t *p = aug_tensor_ptr(h);
    for (int64_t i = 0; i < n; i++) p[i] = (uint8_t)(next() >> 56);
    *host = malloc((size_t)(n ? n : 1));
    memcpy(*host, p, (size_t)n);
    aug_tensor *d = aug_tensor_to(h, dev);
    aug_tensor_free(h);
    return d;
}

static void check_values(const aug_tensor *got, const uint8_t *want, const char *what, double radius) {
    size_t n = (size_t)aug_tensor_size(got);
    uint8_t *v = malloc(n ? n : 1);
    assert_int_equal(aug_tensor_read(got, v, n, 1), AUG_OK);
    for (size_t i = 0; i < n; i++)
        if (v[i] != want[i]) fail_msg("%s radius %g: value %zu is %d, want %d", what, radius, i, v[i], want[i]);
    free(v);
}

static void check_device(aug_device dev) {
    const double radii[] = {0.0, 1e-30, 0.05, 0.5, 1.0, 1.3, 2.0, 3.7, 10.0, 100.0, 5000.0};
    const int64_t sizes[][3] = {{1, 1, 1}, {1, 2, 3}, {3, 2, 3}, {3, 17, 23}, {2, 40, 5}, {1, 1, 30}, {3, 64, 64}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t k = 0; k < sizeof radii / sizeof radii[0]; k++) {
            if (radii[k] > 200 && sizes[s][0] * sizes[s][1] * sizes[s][2] > 100) continue; /* the naive sums */
            uint8_t *want;
            aug_tensor *im = random_image(3, sizes[s], dev, &want), *res = NULL;
            ref_blur(want, sizes[s][0], sizes[s][1], sizes[s][2], (float)radii[k]);
            assert_int_equal(aug_pil_gaussian_blur_single(im, radii[k], &res), AUG_OK);
            assert_string_equal(res->layout, "CHW");
            check_values(res, want, "single", radii[k]);
            assert_int_equal(aug_pil_gaussian_blur_single(im, radii[k], &im), AUG_OK); /* in place */
            check_values(im, want, "in place", radii[k]);
            aug_tensor_free(im), aug_tensor_free(res), free(want);
        }
    /* random sizes and radii */
    for (int k = 0; k < 40; k++) {
        const int64_t shape[3] = {1 + (int64_t)(next() % 3), 1 + (int64_t)(next() % 33), 1 + (int64_t)(next() % 33)};
        double radius = (double)(next() % 1000) / 100.0;
        uint8_t *want;
        aug_tensor *im = random_image(3, shape, dev, &want), *res = NULL;
        ref_blur(want, shape[0], shape[1], shape[2], (float)radius);
        assert_int_equal(aug_pil_gaussian_blur_single(im, radius, &res), AUG_OK);
        check_values(res, want, "random", radius);
        aug_tensor_free(im), aug_tensor_free(res), free(want);
    }
    /* a batch, one radius per image (on the CPU, then on the image's device) */
    const int64_t bs[4] = {4, 3, 19, 26};
    const float br[4] = {1.5f, 0.0f, 0.7f, 30.0f};
    uint8_t *want;
    aug_tensor *im = random_image(4, bs, dev, &want), *res = NULL;
    for (int i = 0; i < 4; i++) ref_blur(want + i * 3 * 19 * 26, 3, 19, 26, br[i]);
    for (int where = 0; where < 2; where++) {
        aug_tensor *rad = th_floats_on(br, 4, where ? dev : CPU);
        assert_int_equal(aug_pil_gaussian_blur(im, rad, &res), AUG_OK);
        assert_string_equal(res->layout, "NCHW");
        check_values(res, want, "batch", -1);
        aug_tensor_free(rad);
    }
    /* a strided view: every other column of the batch's first image */
    aug_tensor *v = aug_tensor_view(im);
    v->ndim = 3;
    v->shape[0] = 3, v->shape[1] = 19, v->shape[2] = 13;
    v->strides[0] = 19 * 26, v->strides[1] = 26, v->strides[2] = 2;
    uint8_t *packed = malloc(3 * 19 * 13), *all = malloc(4 * 3 * 19 * 26);
    assert_int_equal(aug_tensor_read(im, all, 4 * 3 * 19 * 26, 1), AUG_OK);
    for (int i = 0; i < 3 * 19 * 13; i++) packed[i] = all[(i / 13) * 26 + (i % 13) * 2];
    ref_blur(packed, 3, 19, 13, 2.5f);
    aug_tensor *vr = NULL;
    assert_int_equal(aug_pil_gaussian_blur_single(v, 2.5, &vr), AUG_OK);
    check_values(vr, packed, "strided", 2.5);
    aug_tensor_free(v), aug_tensor_free(vr), free(packed), free(all);
    aug_tensor_free(im), aug_tensor_free(res), free(want);
}

static void test_cpu(void **state) {
    (void)state;
    check_device(CPU);
}

static void test_cuda(void **state) {
    (void)state;
    if (!th_have_cuda()) skip();
    check_device(TH_CUDA0);
}

static void test_errors(void **state) {
    (void)state;
    aug_tensor *im = aug_tensor_empty(3, (int64_t[]){3, 4, 4}, AUG_UINT8, CPU), *res = NULL;
    expect(aug_pil_gaussian_blur_single(im, -1.0, &res), AUG_ERR_VALUE,
           "aug_pil_gaussian_blur_single: radius = -1 must be in [0, 1e+06]");
    expect(aug_pil_gaussian_blur_single(im, NAN, &res), AUG_ERR_VALUE, "aug_pil_gaussian_blur_single: radius = nan");
    expect(aug_pil_gaussian_blur_single(im, 2e6, &res), AUG_ERR_VALUE, "radius = 2e+06 must be in [0, 1e+06]");
    expect(aug_pil_gaussian_blur_single(im, 1.0, NULL), AUG_ERR_VALUE, "aug_pil_gaussian_blur_single: out is NULL");
    aug_tensor *f = aug_tensor_empty(3, (int64_t[]){3, 4, 4}, AUG_FLOAT32, CPU);
    expect(aug_pil_gaussian_blur_single(f, 1.0, &res), AUG_ERR_TYPE,
           "aug_pil_gaussian_blur_single: input must be uint8 (PIL's 8-bit images), not float32");
    aug_tensor *u16 = aug_tensor_empty(3, (int64_t[]){3, 4, 4}, AUG_UINT16, CPU);
    expect(aug_pil_gaussian_blur_single(u16, 1.0, &res), AUG_ERR_TYPE, "not uint16");
    aug_tensor *b = aug_tensor_empty(4, (int64_t[]){2, 3, 4, 4}, AUG_UINT8, CPU);
    expect(aug_pil_gaussian_blur(b, NULL, &res), AUG_ERR_VALUE, "aug_pil_gaussian_blur: radii is NULL");
    aug_tensor *r2 = th_floats_on((const float[]){1.0f, -2.0f}, 2, CPU);
    expect(aug_pil_gaussian_blur(b, r2, &res), AUG_ERR_VALUE, "aug_pil_gaussian_blur: radii[1] = -2 must be in [0");
    aug_tensor *rn = th_floats_on((const float[]){NAN, 1.0f}, 2, CPU);
    expect(aug_pil_gaussian_blur(b, rn, &res), AUG_ERR_VALUE, "aug_pil_gaussian_blur: radii[0] = nan");
    aug_tensor *r3 = th_floats_on((const float[]){1.0f, 1.0f, 1.0f}, 3, CPU);
    expect(aug_pil_gaussian_blur(b, r3, &res), AUG_ERR_VALUE, "aug_pil_gaussian_blur: radii has shape (3,)");
    expect(aug_pil_gaussian_blur(im, r2, &res), AUG_ERR_VALUE, "aug_pil_gaussian_blur: input must be (N, C, H, W)");
    assert_null(res);
    aug_tensor_free(im), aug_tensor_free(f), aug_tensor_free(u16), aug_tensor_free(b), aug_tensor_free(r2);
    aug_tensor_free(rn), aug_tensor_free(r3);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_cpu), cmocka_unit_test(test_cuda),
                                       cmocka_unit_test(test_errors)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
