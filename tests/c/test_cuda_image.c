/* test_cuda_image.c: the CUDA backend's image functions against the CPU
 * backend: lighting, the blurs and the affine warp on every dtype, shape
 * classes (one image, batches, small planes, odd sizes, in place) and their
 * errors, with results compared byte for byte (8- and 16-bit lighting and the
 * 8-bit blurs exactly on a GPU too; float results within semantics §8 on a
 * GPU, exactly on the emulated devices, which use the host's libm).
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

static const aug_dtype ALL[13] = {AUG_BOOL,   AUG_INT8,    AUG_INT16,   AUG_INT32,  AUG_INT64,
                                  AUG_UINT8,  AUG_UINT16,  AUG_UINT32,  AUG_UINT64, AUG_FLOAT16,
                                  AUG_BFLOAT16, AUG_FLOAT32, AUG_FLOAT64};

/* A float32 1-D tensor of n values on dev. */
static aug_tensor *floats_on(const float *v, int64_t n, aug_device dev) {
    aug_tensor *h = aug_tensor_empty(1, &n, AUG_FLOAT32, CPU);
    assert_non_null(h);
    memcpy(aug_tensor_ptr(h), v, (size_t)n * sizeof(float));
    if (dev.type == AUG_DEVICE_CPU) return h;
    aug_tensor *d = aug_tensor_to(h, dev);
    assert_non_null(d);
    aug_tensor_free(h);
    return d;
}

/* An image of the shape and dtype with pattern values, on the CPU, and its copy on CUDA. */
static void image_pair(int ndim, const int64_t *shape, aug_dtype t, uint64_t seed, aug_tensor **cpu,
                       aug_tensor **gpu) {
    *cpu = aug_tensor_empty(ndim, shape, t, CPU);
    assert_non_null(*cpu);
    th_fill_pattern(*cpu, seed);
    *gpu = aug_tensor_to(*cpu, TH_CUDA0);
    assert_non_null(*gpu);
}

/* Fails unless the CPU and CUDA results hold the same values (floats: semantics §8). */
static void same_result(const char *what, const aug_tensor *a, const aug_tensor *b, int tolerant) {
    assert_int_equal(a->ndim, b->ndim);
    for (int d = 0; d < a->ndim; d++) assert_int_equal(a->shape[d], b->shape[d]);
    assert_int_equal(a->dtype, b->dtype);
    assert_int_equal(b->device.type, AUG_DEVICE_CUDA);
    size_t na, nb;
    unsigned char *x = th_bytes_of(a, &na), *y = th_bytes_of(b, &nb);
    assert_int_equal(na, nb);
    th_compare(what, a->dtype, x, y, na, tolerant);
    free(x), free(y);
}

/* ---- lighting --------------------------------------------------------------- */

/* The lighting of one image or batch on both backends, separately and in place. */
static void check_lighting(int ndim, const int64_t *shape, aug_dtype t, const float *gg, const float *gc,
                           const float *ct, double vmin, double vmax) {
    char what[128];
    int64_t n = ndim == 4 ? shape[0] : 1, c = shape[ndim - 3];
    snprintf(what, sizeof what, "lighting %s %lldx%lld", aug_dtype_name(t), (long long)n, (long long)c);
    aug_tensor *im, *gim;
    image_pair(ndim, shape, t, (uint64_t)t + 11, &im, &gim);
    aug_tensor *p[3] = {floats_on(gg, n, CPU), floats_on(gc, n * c, CPU), floats_on(ct, n, CPU)};
    aug_tensor *q[3] = {floats_on(gg, n, TH_CUDA0), floats_on(gc, n * c, TH_CUDA0), floats_on(ct, n, TH_CUDA0)};
    aug_tensor *r = NULL, *gr = NULL;
    assert_int_equal(aug_lighting(im, p[0], p[1], p[2], vmin, vmax, &r), AUG_OK);
    assert_int_equal(aug_lighting(gim, q[0], q[1], q[2], vmin, vmax, &gr), AUG_OK);
    int tolerant = t == AUG_FLOAT16 || t == AUG_BFLOAT16 || t == AUG_FLOAT32 || t == AUG_FLOAT64;
    same_result(what, r, gr, tolerant);
    assert_string_equal(gr->layout, ndim == 4 ? "NCHW" : "CHW");
    /* in place */
    assert_int_equal(aug_lighting(gim, q[0], q[1], q[2], vmin, vmax, &gim), AUG_OK);
    same_result(what, r, gim, tolerant);
    aug_tensor_free(r), aug_tensor_free(gr), aug_tensor_free(im), aug_tensor_free(gim);
    for (int i = 0; i < 3; i++) aug_tensor_free(p[i]), aug_tensor_free(q[i]);
}

static void test_lighting(void **state) {
    (void)state;
    NEED_CUDA();
    const float gg[3] = {1.0f, 0.5f, 2.2f}, ct[3] = {0.0f, 0.7f, -0.4f};
    const float gc[9] = {1.0f, 1.3f, 0.8f, 1.0f, 1.0f, 1.0f, 0.6f, 1.9f, 1.1f};
    /* a batch with planes larger than the 8-bit table, and the (C, H, W) form with small planes */
    const int64_t batch[4] = {3, 3, 20, 17}, one[3] = {3, 5, 7};
    for (int i = 0; i < 13; i++) {
        aug_dtype t = ALL[i];
        double vmin = t == AUG_INT8 ? -128 : t == AUG_INT16 ? -32768 : 0;
        double vmax = t == AUG_BOOL ? 1 : t == AUG_INT8 ? 127 : t == AUG_INT16 ? 32767 : t == AUG_UINT16 ? 65535 : 255;
        check_lighting(4, batch, t, gg, gc, ct, vmin, vmax);
        check_lighting(3, one, t, gg + 1, gc + 3, ct + 1, vmin, vmax);
    }
    /* more planes than one upload group of 16-bit tables (16) */
    enum { N = 6, C = 3 };
    float g2[N], c2[N], k2[N * C];
    for (int i = 0; i < N; i++) g2[i] = 0.5f + 0.25f * (float)i, c2[i] = -1.0f + 0.4f * (float)i;
    for (int i = 0; i < N * C; i++) k2[i] = 0.7f + 0.05f * (float)i;
    const int64_t many[4] = {N, C, 9, 11};
    check_lighting(4, many, AUG_UINT16, g2, k2, c2, 0, 65535);
    check_lighting(4, many, AUG_INT16, g2, k2, c2, -1000, 1000);
    check_lighting(4, many, AUG_UINT8, g2, k2, c2, 10, 200);
}

static void test_lighting_errors(void **state) {
    (void)state;
    NEED_CUDA();
    const int64_t shape[4] = {2, 3, 4, 4};
    aug_tensor *im = aug_tensor_zeros(4, shape, AUG_UINT8, TH_CUDA0), *out = NULL;
    const float one[6] = {1, 1, 1, 1, 1, 1}, zero[2] = {0, 0}, bad[2] = {1, -2};
    aug_tensor *g = floats_on(one, 2, TH_CUDA0), *gc = floats_on(one, 6, TH_CUDA0), *k = floats_on(zero, 2, TH_CUDA0);
    aug_tensor *gcpu = floats_on(one, 2, CPU), *kbad = floats_on(bad, 2, TH_CUDA0);
    /* parameters on another device than the image */
    assert_int_equal(aug_lighting(im, gcpu, gc, k, 0, 255, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_lighting: gammagrays is on device cpu but the image is on cuda:0");
    /* values read back from the device are checked */
    assert_int_equal(aug_lighting(im, g, gc, kbad, 0, 255, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_lighting: contrasts[1] = -2 must be in [-1, 1]");
    assert_int_equal(aug_lighting(im, kbad, gc, k, 0, 255, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_lighting: gammagrays[1] = -2 must be finite and > 0");
    /* an output that partly overlaps the image */
    int64_t flat = 2 * 3 * 4 * 4 + 16, strides[4] = {48, 16, 4, 1};
    aug_tensor *big = aug_tensor_zeros(1, &flat, AUG_UINT8, TH_CUDA0);
    aug_tensor *a = aug_tensor_from_storage(big->storage, 0, 4, shape, strides, AUG_UINT8);
    aug_tensor *b = aug_tensor_from_storage(big->storage, 16, 4, shape, strides, AUG_UINT8);
    assert_non_null(a), assert_non_null(b);
    assert_int_equal(aug_lighting(a, g, gc, k, 0, 255, &b), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_lighting: out partially overlaps the image (only out == image is allowed)");
    assert_null(out);
    aug_tensor_free(a), aug_tensor_free(b), aug_tensor_free(big);
    aug_tensor_free(im), aug_tensor_free(g), aug_tensor_free(gc), aug_tensor_free(k), aug_tensor_free(gcpu);
    aug_tensor_free(kbad);
}

/* ---- blur ------------------------------------------------------------------- */

enum { BOX, GAUSS, GAUSS_BATCH };

/* One blur on both backends (into new outputs, then in place on the GPU). */
static void check_blur(int kind, int ndim, const int64_t *shape, aug_dtype t, int ksize, double sigma,
                       const float *sigmas, int max_ksize) {
    char what[160];
    snprintf(what, sizeof what, "%s %s %lldx%lld ksize %d sigma %g max_ksize %d",
             kind == BOX ? "box" : "gaussian", aug_dtype_name(t), (long long)shape[ndim - 2],
             (long long)shape[ndim - 1], ksize, sigma, max_ksize);
    aug_tensor *im, *gim, *r = NULL, *gr = NULL, *s = NULL, *gs = NULL;
    image_pair(ndim, shape, t, (uint64_t)t * 7 + 3, &im, &gim);
    aug_status a, b;
    if (kind == BOX) {
        a = aug_box_blur_single(im, ksize, &r), b = aug_box_blur_single(gim, ksize, &gr);
    } else if (kind == GAUSS) {
        a = aug_gaussian_blur_single(im, sigma, &r), b = aug_gaussian_blur_single(gim, sigma, &gr);
    } else {
        s = floats_on(sigmas, shape[0], CPU), gs = floats_on(sigmas, shape[0], TH_CUDA0);
        a = aug_gaussian_blur(im, s, max_ksize, &r), b = aug_gaussian_blur(gim, gs, max_ksize, &gr);
    }
    assert_int_equal(a, AUG_OK);
    assert_int_equal(b, AUG_OK);
    same_result(what, r, gr, 0);
    assert_string_equal(gr->layout, ndim == 4 ? "NCHW" : "CHW");
    /* in place: the core blurs a temporary copy */
    if (kind == BOX) b = aug_box_blur_single(gim, ksize, &gim);
    else if (kind == GAUSS) b = aug_gaussian_blur_single(gim, sigma, &gim);
    else b = aug_gaussian_blur(gim, gs, max_ksize, &gim);
    assert_int_equal(b, AUG_OK);
    same_result(what, r, gim, 0);
    aug_tensor_free(r), aug_tensor_free(gr), aug_tensor_free(im), aug_tensor_free(gim);
    aug_tensor_free(s), aug_tensor_free(gs);
}

static void test_blur_box(void **state) {
    (void)state;
    NEED_CUDA();
    const int64_t img[3] = {2, 13, 21}, thin[3] = {1, 1, 9}, tall[3] = {3, 11, 1};
    for (int i = 0; i < 13; i++) {
        check_blur(BOX, 3, img, ALL[i], 3, 0, NULL, 0);
        check_blur(BOX, 3, img, ALL[i], 4, 0, NULL, 0); /* even: shifted window */
    }
    /* the 8-bit exact path up to its limit, the generic one beyond, windows wider than the image */
    const aug_dtype u8[4] = {AUG_UINT8, AUG_INT8, AUG_UINT16, AUG_FLOAT32};
    const int ks[6] = {2, 7, 16, 17, 40, 300};
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 6; k++) check_blur(BOX, 3, img, u8[i], ks[k], 0, NULL, 0);
    check_blur(BOX, 3, thin, AUG_UINT8, 5, 0, NULL, 0);
    check_blur(BOX, 3, tall, AUG_INT16, 5, 0, NULL, 0);
}

static void test_blur_gaussian(void **state) {
    (void)state;
    NEED_CUDA();
    const int64_t img[3] = {3, 17, 23}, small[3] = {1, 2, 3};
    const double sig[5] = {0.4, 1.0, 2.3, 7.5, 60.0}; /* 60: taps clipped to the image, tails */
    for (int i = 0; i < 13; i++) check_blur(GAUSS, 3, img, ALL[i], 0, 1.6, NULL, 0);
    for (int k = 0; k < 5; k++) {
        check_blur(GAUSS, 3, img, AUG_UINT8, 0, sig[k], NULL, 0);
        check_blur(GAUSS, 3, img, AUG_INT8, 0, sig[k], NULL, 0);
        check_blur(GAUSS, 3, img, AUG_FLOAT64, 0, sig[k], NULL, 0);
        check_blur(GAUSS, 3, small, AUG_UINT8, 0, sig[k], NULL, 0);
    }
    /* per-image sigmas: copies (<= 0), max_ksize clipping (an even, asymmetric window) */
    const int64_t batch[4] = {5, 2, 15, 12};
    const float sigmas[5] = {1.2f, 0.0f, 3.3f, -1.0f, 9.0f};
    for (int i = 0; i < 13; i++) check_blur(GAUSS_BATCH, 4, batch, ALL[i], 0, 0, sigmas, 9);
    check_blur(GAUSS_BATCH, 4, batch, AUG_UINT8, 0, 0, sigmas, 4);
    check_blur(GAUSS_BATCH, 4, batch, AUG_INT8, 0, 0, sigmas, 1000);
    check_blur(GAUSS_BATCH, 4, batch, AUG_FLOAT32, 0, 0, sigmas, 6);
}

static void test_blur_errors(void **state) {
    (void)state;
    NEED_CUDA();
    const int64_t shape[4] = {2, 1, 4, 4};
    aug_tensor *im = aug_tensor_zeros(4, shape, AUG_UINT8, TH_CUDA0), *out = NULL;
    const float bad[2] = {1.0f, NAN};
    aug_tensor *s = floats_on(bad, 2, TH_CUDA0), *scpu = floats_on(bad, 2, CPU);
    assert_int_equal(aug_gaussian_blur(im, s, 5, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_gaussian_blur: sigmas[1] = nan must be finite");
    assert_int_equal(aug_gaussian_blur(im, scpu, 5, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_gaussian_blur: sigmas is on device cpu but the input is on cuda:0");
    assert_null(out);
    aug_tensor_free(im), aug_tensor_free(s), aug_tensor_free(scpu);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lighting),
        cmocka_unit_test(test_lighting_errors),
        cmocka_unit_test(test_blur_box),
        cmocka_unit_test(test_blur_gaussian),
        cmocka_unit_test(test_blur_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
