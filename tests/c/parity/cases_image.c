/* cases_image.c: parity cases of the lighting, blur and warp families (ported
 * from the former tests/c/test_cuda_image.c, with random image sizes added):
 * lighting of one image and of batches on every dtype, separately and in place
 * (8- and 16-bit exactly, floats within semantics §8 on a GPU: exactly on the
 * emulated devices, which use the host's libm); box and Gaussian blurs, per-image
 * sigmas, windows wider than the image, in place, the 8-bit box's tiles (edges,
 * many planes, narrow blocks, a channels-last buffer); the affine warp on every dtype
 * pair, every kernel (fixed point, float32, exact), channel counts, supersampling,
 * source views (reversed rows, strided channels, CHW) and every option (on
 * uint16, int16 and float16 images too); the perspective warp alike, with
 * homographies whose w turns negative inside the output (points outside the
 * source plane); bicubic, affine and perspective, on every option and dtype pair.
 * MixUp / CutMix with the mirrored batch (mix_mirror) of random views.
 * The float blurs' tiles (blur/float_tiles) must reach the 32-bit kernels, or with
 * AUG_EMU_BLUR_INDEX64=1 the 64-bit ones (the emulator's launch counts). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/backend.h"
#include "scalar/blur.h"
#include "helpers/th_cuda.h"
#include "parity/harness.h"

static const aug_dtype ALL[13] = {AUG_BOOL,   AUG_INT8,    AUG_INT16,   AUG_INT32,  AUG_INT64,
                                  AUG_UINT8,  AUG_UINT16,  AUG_UINT32,  AUG_UINT64, AUG_FLOAT16,
                                  AUG_BFLOAT16, AUG_FLOAT32, AUG_FLOAT64};

/* An image of the shape and dtype with pattern values, on the CPU, and its copy on the device. */
static void image_pair(ph_run *r, int ndim, const int64_t *shape, aug_dtype t, uint64_t seed, aug_tensor **cpu,
                       aug_tensor **gpu) {
    *cpu = aug_tensor_empty(ndim, shape, t, CPU);
    assert_non_null(*cpu);
    th_fill_pattern(*cpu, seed);
    *gpu = aug_tensor_to(*cpu, ph_dev(r));
    assert_non_null(*gpu);
    ph_inputs(r, 1, (const aug_tensor *const *)cpu);
}

/* ---- lighting --------------------------------------------------------------- */

/* The lighting of one image or batch on both backends, separately and in place. */
static void check_lighting(ph_run *r, int ndim, const int64_t *shape, aug_dtype t, const float *gg, const float *gc,
                           const float *ct, double vmin, double vmax) {
    char what[128];
    int64_t n = ndim == 4 ? shape[0] : 1, c = shape[ndim - 3];
    snprintf(what, sizeof what, "lighting %s %lldx%lld", aug_dtype_name(t), (long long)n, (long long)c);
    aug_tensor *im, *gim;
    image_pair(r, ndim, shape, t, (uint64_t)t + 11, &im, &gim);
    aug_tensor *p[3] = {th_floats_on(gg, n, CPU), th_floats_on(gc, n * c, CPU), th_floats_on(ct, n, CPU)};
    aug_tensor *q[3] = {th_floats_on(gg, n, ph_dev(r)), th_floats_on(gc, n * c, ph_dev(r)), th_floats_on(ct, n, ph_dev(r))};
    aug_tensor *rc = NULL, *gr = NULL;
    assert_int_equal(aug_lighting(im, p[0], p[1], p[2], vmin, vmax, &rc), AUG_OK);
    assert_int_equal(aug_lighting(gim, q[0], q[1], q[2], vmin, vmax, &gr), AUG_OK);
    ph_check(r, what, rc, gr);
    assert_string_equal(gr->layout, ndim == 4 ? "NCHW" : "CHW");
    /* in place */
    assert_int_equal(aug_lighting(gim, q[0], q[1], q[2], vmin, vmax, &gim), AUG_OK);
    ph_check(r, what, rc, gim);
    aug_tensor_free(rc), aug_tensor_free(gr), aug_tensor_free(im), aug_tensor_free(gim);
    for (int i = 0; i < 3; i++) aug_tensor_free(p[i]), aug_tensor_free(q[i]);
}

static void run_lighting(ph_run *r, const ph_case *c) {
    (void)c;
    const float gg[3] = {1.0f, 0.5f, 2.2f}, ct[3] = {0.0f, 0.7f, -0.4f};
    const float gc[9] = {1.0f, 1.3f, 0.8f, 1.0f, 1.0f, 1.0f, 0.6f, 1.9f, 1.1f};
    /* a batch with planes larger than the 8-bit table, and the (C, H, W) form with small planes */
    const int64_t batch[4] = {3, 3, 20, 17}, one[3] = {3, 5, 7};
    for (int i = 0; i < 13; i++) {
        aug_dtype t = ALL[i];
        double vmin = t == AUG_INT8 ? -128 : t == AUG_INT16 ? -32768 : 0;
        double vmax = t == AUG_BOOL ? 1 : t == AUG_INT8 ? 127 : t == AUG_INT16 ? 32767 : t == AUG_UINT16 ? 65535 : 255;
        check_lighting(r, 4, batch, t, gg, gc, ct, vmin, vmax);
        check_lighting(r, 3, one, t, gg + 1, gc + 3, ct + 1, vmin, vmax);
    }
    /* more planes than one upload group of 16-bit tables (16) */
    enum { N = 6, C = 3 };
    float g2[N], c2[N], k2[N * C];
    for (int i = 0; i < N; i++) g2[i] = 0.5f + 0.25f * (float)i, c2[i] = -1.0f + 0.4f * (float)i;
    for (int i = 0; i < N * C; i++) k2[i] = 0.7f + 0.05f * (float)i;
    const int64_t many[4] = {N, C, 9, 11};
    check_lighting(r, 4, many, AUG_UINT16, g2, k2, c2, 0, 65535);
    check_lighting(r, 4, many, AUG_INT16, g2, k2, c2, -1000, 1000);
    check_lighting(r, 4, many, AUG_UINT8, g2, k2, c2, 10, 200);
    { /* a random batch and plane size */
        aug_dtype t = ALL[ph_range(r, 0, 12)];
        const int64_t rs[4] = {ph_range(r, 1, 3), 3, ph_range(r, 1, 24), ph_range(r, 1, 24)};
        double vmin = t == AUG_INT8 ? -128 : t == AUG_INT16 ? -32768 : 0;
        double vmax = t == AUG_BOOL ? 1 : t == AUG_INT8 ? 127 : t == AUG_INT16 ? 32767 : t == AUG_UINT16 ? 65535 : 255;
        check_lighting(r, 4, rs, t, gg, gc, ct, vmin, vmax);
    }
}

/* ---- blur ------------------------------------------------------------------- */

enum { BOX, GAUSS, GAUSS_BATCH, PIL, PIL_BATCH };

/* One blur on both backends (into new outputs, then in place on the GPU). */
static void check_blur(ph_run *r, int kind, int ndim, const int64_t *shape, aug_dtype t, int ksize, double sigma,
                       const float *sigmas, int max_ksize) {
    char what[160];
    snprintf(what, sizeof what, "%s %s %lldx%lld ksize %d sigma %g max_ksize %d",
             kind == BOX ? "box" : kind >= PIL ? "pil" : "gaussian", aug_dtype_name(t), (long long)shape[ndim - 2],
             (long long)shape[ndim - 1], ksize, sigma, max_ksize);
    aug_tensor *im, *gim, *rc = NULL, *gr = NULL, *s = NULL, *gs = NULL;
    image_pair(r, ndim, shape, t, (uint64_t)t * 7 + 3, &im, &gim);
    aug_status a, b;
    if (kind == BOX) {
        a = aug_box_blur_single(im, ksize, &rc), b = aug_box_blur_single(gim, ksize, &gr);
    } else if (kind == GAUSS) {
        a = aug_gaussian_blur_single(im, sigma, &rc), b = aug_gaussian_blur_single(gim, sigma, &gr);
    } else if (kind == PIL) {
        a = aug_pil_gaussian_blur_single(im, sigma, &rc), b = aug_pil_gaussian_blur_single(gim, sigma, &gr);
    } else if (kind == PIL_BATCH) {
        s = th_floats_on(sigmas, shape[0], CPU), gs = th_floats_on(sigmas, shape[0], ph_dev(r));
        a = aug_pil_gaussian_blur(im, s, &rc), b = aug_pil_gaussian_blur(gim, gs, &gr);
    } else {
        s = th_floats_on(sigmas, shape[0], CPU), gs = th_floats_on(sigmas, shape[0], ph_dev(r));
        a = aug_gaussian_blur(im, s, max_ksize, &rc), b = aug_gaussian_blur(gim, gs, max_ksize, &gr);
    }
    assert_int_equal(a, AUG_OK);
    assert_int_equal(b, AUG_OK);
    ph_check(r, what, rc, gr);
    assert_string_equal(gr->layout, ndim == 4 ? "NCHW" : "CHW");
    /* in place: the core blurs a temporary copy */
    if (kind == BOX) b = aug_box_blur_single(gim, ksize, &gim);
    else if (kind == GAUSS) b = aug_gaussian_blur_single(gim, sigma, &gim);
    else if (kind == PIL) b = aug_pil_gaussian_blur_single(gim, sigma, &gim);
    else if (kind == PIL_BATCH) b = aug_pil_gaussian_blur(gim, gs, &gim);
    else b = aug_gaussian_blur(gim, gs, max_ksize, &gim);
    assert_int_equal(b, AUG_OK);
    ph_check(r, what, rc, gim);
    aug_tensor_free(rc), aug_tensor_free(gr), aug_tensor_free(im), aug_tensor_free(gim);
    aug_tensor_free(s), aug_tensor_free(gs);
}

static void run_blur_box(ph_run *r, const ph_case *c) {
    (void)c;
    const int64_t img[3] = {2, 13, 21}, thin[3] = {1, 1, 9}, tall[3] = {3, 11, 1};
    for (int i = 0; i < 13; i++) {
        check_blur(r, BOX, 3, img, ALL[i], 3, 0, NULL, 0);
        check_blur(r, BOX, 3, img, ALL[i], 4, 0, NULL, 0); /* even: shifted window */
    }
    /* the 8-bit exact path up to its limit, the generic one beyond, windows wider than the image */
    const aug_dtype u8[4] = {AUG_UINT8, AUG_INT8, AUG_UINT16, AUG_FLOAT32};
    const int ks[6] = {2, 7, 16, 17, 40, 300};
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 6; k++) check_blur(r, BOX, 3, img, u8[i], ks[k], 0, NULL, 0);
    check_blur(r, BOX, 3, thin, AUG_UINT8, 5, 0, NULL, 0);
    check_blur(r, BOX, 3, tall, AUG_INT16, 5, 0, NULL, 0);
    for (int k = 0; k < 2; k++) { /* random sizes and windows */
        const int64_t rs[3] = {ph_range(r, 1, 3), ph_range(r, 1, 24), ph_range(r, 1, 24)};
        check_blur(r, BOX, 3, rs, ALL[ph_range(r, 0, 12)], (int)ph_range(r, 1, 30), 0, NULL, 0);
    }
}

/* A Gaussian (ksize 0) or box blur of a view on both backends. */
static void check_blur_view(ph_run *r, const char *what, const aug_tensor *im, const aug_tensor *gim, int ksize,
                            double sigma) {
    aug_tensor *rc = NULL, *gr = NULL;
    if (ksize) {
        assert_int_equal(aug_box_blur_single(im, ksize, &rc), AUG_OK);
        assert_int_equal(aug_box_blur_single(gim, ksize, &gr), AUG_OK);
    } else {
        assert_int_equal(aug_gaussian_blur_single(im, sigma, &rc), AUG_OK);
        assert_int_equal(aug_gaussian_blur_single(gim, sigma, &gr), AUG_OK);
    }
    ph_check(r, what, rc, gr);
    aug_tensor_free(rc), aug_tensor_free(gr);
}

/* The 8-bit box's shared-memory tiles (src/cuda/blur.cu, 16 rows x the block's
 * threads): planes several tiles across and down with odd remainders, every
 * window of the exact path, many planes (the box takes one (C, H, W) image: its
 * planes are the batch), blocks of 8 and 5 threads (windows wider than the
 * tile), and a channels-last buffer seen as CHW (a permuted view). */
static void run_blur_box8_tiles(ph_run *r, const ph_case *c) {
    (void)c;
    const int64_t wide[3] = {2, 37, 301}, planes[3] = {7, 19, 45}, long_row[3] = {1, 18, 1100};
    for (int k = 1; k <= AUG__BOX8_MAX; k++) check_blur(r, BOX, 3, wide, k % 2 ? AUG_UINT8 : AUG_INT8, k, 0, NULL, 0);
    check_blur(r, BOX, 3, planes, AUG_UINT8, 5, 0, NULL, 0);
    check_blur(r, BOX, 3, planes, AUG_INT8, 16, 0, NULL, 0);
    check_blur(r, BOX, 3, long_row, AUG_UINT8, 9, 0, NULL, 0);
    int blocks = 0, threads = 0;
    aug_get_launch(&blocks, &threads);
    const int narrow[2] = {8, 5};
    for (int i = 0; i < 2; i++) { /* the harness's setup restores the setting if a check fails */
        assert_int_equal(aug_set_launch(blocks, narrow[i]), AUG_OK);
        check_blur(r, BOX, 3, wide, AUG_UINT8, 16, 0, NULL, 0);
        check_blur(r, BOX, 3, planes, AUG_INT8, 11, 0, NULL, 0);
    }
    assert_int_equal(aug_set_launch(blocks, threads), AUG_OK);
    const int64_t hwc[3] = {23, 29, 3};
    const int perm[3] = {2, 0, 1};
    aug_tensor *im, *gim;
    image_pair(r, 3, hwc, AUG_UINT8, 5, &im, &gim);
    aug_tensor *v = aug_tensor_permute(im, perm), *gv = aug_tensor_permute(gim, perm);
    assert_non_null(v);
    assert_non_null(gv);
    for (int k = 2; k <= AUG__BOX8_MAX; k += 7) check_blur_view(r, "box uint8 HWC buffer as CHW", v, gv, k, 0);
    aug_tensor_free(v), aug_tensor_free(gv), aug_tensor_free(im), aug_tensor_free(gim);
    for (int k = 0; k < 2; k++) { /* random sizes and windows */
        const int64_t rs[3] = {ph_range(r, 1, 6), ph_range(r, 1, 70), ph_range(r, 1, 600)};
        check_blur(r, BOX, 3, rs, k ? AUG_INT8 : AUG_UINT8, (int)ph_range(r, 1, AUG__BOX8_MAX), 0, NULL, 0);
    }
}

static void run_blur_gaussian(ph_run *r, const ph_case *c) {
    (void)c;
    const int64_t img[3] = {3, 17, 23}, small[3] = {1, 2, 3};
    const double sig[5] = {0.4, 1.0, 2.3, 7.5, 60.0}; /* 60: taps clipped to the image, tails */
    for (int i = 0; i < 13; i++) check_blur(r, GAUSS, 3, img, ALL[i], 0, 1.6, NULL, 0);
    for (int k = 0; k < 5; k++) {
        check_blur(r, GAUSS, 3, img, AUG_UINT8, 0, sig[k], NULL, 0);
        check_blur(r, GAUSS, 3, img, AUG_INT8, 0, sig[k], NULL, 0);
        check_blur(r, GAUSS, 3, img, AUG_FLOAT64, 0, sig[k], NULL, 0);
        check_blur(r, GAUSS, 3, small, AUG_UINT8, 0, sig[k], NULL, 0);
    }
    /* per-image sigmas: copies (<= 0), max_ksize clipping (an even, asymmetric window) */
    const int64_t batch[4] = {5, 2, 15, 12};
    const float sigmas[5] = {1.2f, 0.0f, 3.3f, -1.0f, 9.0f};
    for (int i = 0; i < 13; i++) check_blur(r, GAUSS_BATCH, 4, batch, ALL[i], 0, 0, sigmas, 9);
    check_blur(r, GAUSS_BATCH, 4, batch, AUG_UINT8, 0, 0, sigmas, 4);
    check_blur(r, GAUSS_BATCH, 4, batch, AUG_INT8, 0, 0, sigmas, 1000);
    check_blur(r, GAUSS_BATCH, 4, batch, AUG_FLOAT32, 0, 0, sigmas, 6);
    for (int k = 0; k < 2; k++) { /* random sizes and sigmas */
        const int64_t rs[3] = {ph_range(r, 1, 3), ph_range(r, 1, 24), ph_range(r, 1, 24)};
        check_blur(r, GAUSS, 3, rs, ALL[ph_range(r, 0, 12)], 0, 0.3 + (double)ph_range(r, 0, 40) / 10.0, NULL, 0);
    }
}

/* The generic blurs' shared-memory tiles (float taps: float32 sums for float32,
 * float16, 16-bit images and uint8 boxes past 16, float64 sums for float64 and
 * 32/64-bit integers), 32-bit kernels (aug__k_blur_f32_* / _f64_*) or, with
 * AUG_EMU_BLUR_INDEX64=1, the 64-bit ones: planes several tiles across and down
 * with odd remainders, windows wider than a 16-row tile and than the image,
 * batches with per-image sigmas (copies among them, clipped windows), blocks of 8
 * and 5 threads (windows wider than the tile), a channels-last buffer seen as CHW. */
static void run_blur_float_tiles(ph_run *r, const ph_case *c) {
    (void)c;
    const char *wide = getenv("AUG_EMU_BLUR_INDEX64");
    const int index64 = wide && strcmp(wide, "1") == 0;
    const char *kernels[6] = {"aug__k_blur_f32_v_tiled", "aug__k_blur_f32_h_tiled", "aug__k_blur_f64_v_tiled",
                              "aug__k_blur_f64_h_tiled", "aug__k_blur_v_tiled", "aug__k_blur_h_tiled"};
    long long before[6];
    for (int k = 0; k < 6; k++) before[k] = th_emu_launches(kernels[k]);
    const int64_t img[3] = {2, 37, 301}, planes[3] = {7, 19, 45};
    const double sig[4] = {0.7, 2.3, 7.5, 60.0};
    for (int k = 0; k < 4; k++) {
        check_blur(r, GAUSS, 3, img, AUG_FLOAT32, 0, sig[k], NULL, 0);
        check_blur(r, GAUSS, 3, img, AUG_FLOAT64, 0, sig[k], NULL, 0);
    }
    const aug_dtype other[5] = {AUG_INT16, AUG_UINT16, AUG_FLOAT16, AUG_BFLOAT16, AUG_INT32};
    for (int i = 0; i < 5; i++) check_blur(r, GAUSS, 3, planes, other[i], 0, 1.9, NULL, 0);
    const int ks[4] = {2, 5, 16, 40};
    for (int k = 0; k < 4; k++) {
        check_blur(r, BOX, 3, img, AUG_FLOAT32, ks[k], 0, NULL, 0);
        check_blur(r, BOX, 3, planes, AUG_FLOAT64, ks[k], 0, NULL, 0);
    }
    check_blur(r, BOX, 3, img, AUG_UINT8, 31, 0, NULL, 0);  /* float32 sums past the 8-bit path */
    check_blur(r, BOX, 3, planes, AUG_INT16, 17, 0, NULL, 0); /* float64 sums */
    const int64_t batch[4] = {5, 3, 23, 270};
    const float sigmas[5] = {1.2f, 0.0f, 3.3f, -1.0f, 9.0f};
    const int maxk[3] = {9, 6, 1000};
    for (int k = 0; k < 3; k++) {
        check_blur(r, GAUSS_BATCH, 4, batch, AUG_FLOAT32, 0, 0, sigmas, maxk[k]);
        check_blur(r, GAUSS_BATCH, 4, batch, AUG_FLOAT64, 0, 0, sigmas, maxk[k]);
    }
    int blocks = 0, threads = 0;
    aug_get_launch(&blocks, &threads);
    const int narrow[2] = {8, 5};
    for (int i = 0; i < 2; i++) { /* the harness's setup restores the setting if a check fails */
        assert_int_equal(aug_set_launch(blocks, narrow[i]), AUG_OK);
        check_blur(r, GAUSS, 3, img, AUG_FLOAT32, 0, 7.5, NULL, 0);
        check_blur(r, BOX, 3, planes, AUG_FLOAT64, 16, 0, NULL, 0);
        check_blur(r, GAUSS_BATCH, 4, batch, AUG_FLOAT32, 0, 0, sigmas, 9);
    }
    assert_int_equal(aug_set_launch(blocks, threads), AUG_OK);
    const int64_t hwc[3] = {23, 29, 3};
    const int perm[3] = {2, 0, 1};
    for (int d = 0; d < 2; d++) {
        aug_tensor *im, *gim;
        image_pair(r, 3, hwc, d ? AUG_FLOAT64 : AUG_FLOAT32, 9, &im, &gim);
        aug_tensor *v = aug_tensor_permute(im, perm), *gv = aug_tensor_permute(gim, perm);
        assert_non_null(v);
        assert_non_null(gv);
        check_blur_view(r, d ? "gaussian float64 HWC buffer as CHW" : "gaussian float32 HWC buffer as CHW", v, gv, 0,
                        2.1);
        check_blur_view(r, d ? "box float64 HWC buffer as CHW" : "box float32 HWC buffer as CHW", v, gv, 7, 0);
        aug_tensor_free(v), aug_tensor_free(gv), aug_tensor_free(im), aug_tensor_free(gim);
    }
    for (int k = 0; k < 2; k++) { /* random sizes and sigmas */
        const int64_t rs[3] = {ph_range(r, 1, 4), ph_range(r, 1, 60), ph_range(r, 1, 600)};
        check_blur(r, GAUSS, 3, rs, k ? AUG_FLOAT64 : AUG_FLOAT32, 0, 0.3 + (double)ph_range(r, 0, 80) / 10.0, NULL,
                   0);
    }
    if (before[0] < 0) return; /* a GPU: no launch counts */
    for (int k = 0; k < 6; k++) { /* the 32-bit tiles, or only the 64-bit ones */
        const long long ran = th_emu_launches(kernels[k]) - before[k];
        if (index64 ? (k < 4 ? ran != 0 : ran == 0) : (k < 4 ? ran == 0 : ran != 0))
            fail_msg("blur/float_tiles (AUG_EMU_BLUR_INDEX64=%d): %s launched %lld times", index64, kernels[k], ran);
    }
}

/* PIL's GaussianBlur (uint8 only): radii 0 (a copy), below 1 (r 0), timm's range, wider than the image. */
static void run_blur_pil(ph_run *r, const ph_case *c) {
    (void)c;
    const int64_t img[3] = {3, 17, 23}, tiny[3] = {1, 1, 1}, small[3] = {2, 2, 3};
    const double rad[6] = {0.0, 0.3, 1.0, 1.7, 2.0, 40.0};
    for (int k = 0; k < 6; k++) {
        check_blur(r, PIL, 3, img, AUG_UINT8, 0, rad[k], NULL, 0);
        check_blur(r, PIL, 3, tiny, AUG_UINT8, 0, rad[k], NULL, 0);
        check_blur(r, PIL, 3, small, AUG_UINT8, 0, rad[k], NULL, 0);
    }
    const int64_t batch[4] = {5, 3, 15, 12};
    const float radii[5] = {1.2f, 0.0f, 3.3f, 0.1f, 9.0f};
    check_blur(r, PIL_BATCH, 4, batch, AUG_UINT8, 0, 0, radii, 0);
    for (int k = 0; k < 3; k++) { /* random sizes and radii */
        const int64_t rs[3] = {ph_range(r, 1, 3), ph_range(r, 1, 40), ph_range(r, 1, 40)};
        check_blur(r, PIL, 3, rs, AUG_UINT8, 0, (double)ph_range(r, 0, 60) / 10.0, NULL, 0);
    }
}

/* PIL's GaussianBlur through cuda/blur_pil.cu's transposes (32 x 32 tiles staged in shared memory) and
 * column passes: planes several tiles across and down with partial edge tiles, exact tiles, one row
 * and one column, radii wider than the plane, per-image radii over many planes; then blocks of 5, 33
 * and 1024 threads, one block per SM (132 on the emulated device: blocks loop over the 210 tiles of
 * 3 x 200 x 300 planes). */
static void run_blur_pil_tiles(ph_run *r, const ph_case *c) {
    (void)c;
    const int64_t shapes[5][3] = {{2, 70, 45}, {1, 33, 97}, {1, 1, 300}, {3, 300, 1}, {1, 64, 64}};
    const double rad[4] = {0.6, 2.5, 9.0, 120.0};
    for (int i = 0; i < 5; i++)
        for (int k = 0; k < 4; k++) check_blur(r, PIL, 3, shapes[i], AUG_UINT8, 0, rad[k], NULL, 0);
    const int64_t batch[4] = {7, 3, 41, 35};
    const float radii[7] = {0.0f, 1.4f, 50.0f, 0.2f, 3.7f, 2.0f, 17.0f};
    check_blur(r, PIL_BATCH, 4, batch, AUG_UINT8, 0, 0, radii, 0);
    int blocks = 0, threads = 0;
    aug_get_launch(&blocks, &threads);
    const int launch[3][2] = {{0, 5}, {1, 33}, {1, 1024}};
    const int64_t many[3] = {3, 200, 300};
    for (int i = 0; i < 3; i++) { /* the harness's setup restores the setting if a check fails */
        assert_int_equal(aug_set_launch(launch[i][0], launch[i][1]), AUG_OK);
        check_blur(r, PIL, 3, many, AUG_UINT8, 0, 3.1, NULL, 0);
        check_blur(r, PIL_BATCH, 4, batch, AUG_UINT8, 0, 0, radii, 0);
    }
    assert_int_equal(aug_set_launch(blocks, threads), AUG_OK);
}

/* ---- warp ------------------------------------------------------------------- */

/* A warp of n images on both backends: sources (H_i, W_i, C) of dtype st, the
 * same views on each device (layout 1: rows reversed; 2: channels strided, not
 * packed; 3: a CHW tensor passed as is, with o->src_layout CHW), into
 * (n, C, Ht, Wt) of dtype dt, or (n, Ht, Wt, C) for o->dst_layout HWC. o NULL:
 * aug_warp_affine_batch, else aug_warp_affine_batch_ex with o; proj:
 * aug_warp_perspective_batch with the affine matrices and a last row
 * (g, h, 1) whose w = g X + h Y + 1 turns <= 0 in part of the output. */
static void check_warp_gen(ph_run *r, int64_t n, const int64_t (*hw)[2], int64_t C, aug_dtype st, aug_dtype dt, int64_t Ht,
                           int64_t Wt, const double *bgv, aug_dtype bgt, int s, int layout, uint64_t seed,
                           const aug_warp_options *o, int proj) {
    char what[200];
    snprintf(what, sizeof what,
             "warp %s -> %s, %lld images, C %lld, s %d, layout %d, background %s, interp %d, border %d, dst %d",
             aug_dtype_name(st), aug_dtype_name(dt), (long long)n, (long long)C, s, layout,
             bgv ? aug_dtype_name(bgt) : "none", o ? (int)o->interpolation : -1, o ? (int)o->border : -1,
             o ? (int)o->dst_layout : -1);
    if (proj) strncat(what, ", perspective", sizeof what - strlen(what) - 1);
    aug_tensor *hs[4], *gs[4], *hv[4], *gv[4];
    float m[24], m9[36];
    int ss[4];
    for (int64_t i = 0; i < n; i++) {
        int64_t H = hw[i][0], W = hw[i][1];
        int64_t shape[3] = {H, W, C}, cshape[3] = {C, H, W};
        image_pair(r, 3, layout >= 2 ? cshape : shape, st, seed + (uint64_t)i, &hs[i], &gs[i]);
        aug_tensor *base[2] = {hs[i], gs[i]}, **view[2] = {&hv[i], &gv[i]};
        for (int d = 0; d < 2; d++) {
            aug_tensor *t = base[d];
            if (layout == 1) { /* rows reversed: a negative stride */
                int64_t str[3] = {-t->strides[0], t->strides[1], t->strides[2]};
                int64_t off = t->byte_offset + (H - 1) * t->strides[0] * aug_tensor_itemsize(t);
                *view[d] = aug_tensor_from_storage(t->storage, off, 3, shape, str, st);
            } else if (layout == 3) { /* CHW, read by the src_layout option */
                *view[d] = aug_tensor_view(t);
            } else if (layout == 2) { /* CHW memory seen as HWC */
                int perm[3] = {1, 2, 0};
                *view[d] = aug_tensor_permute(t, perm);
            } else {
                *view[d] = aug_tensor_view(t);
            }
            assert_non_null(*view[d]);
        }
        aug_affine_params p = aug_affine_params_default();
        p.angle = 17.0 + 41.0 * (double)i, p.scale = 0.7 + 0.3 * (double)i, p.shearx = 0.1, p.shifty = 0.3;
        p.hmirror = (int)(i & 1);
        assert_int_equal(aug_make_affine_matrix(m + 6 * i, H, W, Ht, Wt, &p, NULL), AUG_OK);
        ss[i] = s + (int)(i % 2);
        /* w = 1 - X / (0.7 Wt) (image 0), 1 + Y / (0.6 Ht) - X / Wt (image 1, ...): negative at the far side */
        for (int k = 0; k < 6; k++) m9[9 * i + k] = m[6 * i + k];
        m9[9 * i + 6] = (float)(-1.0 / (0.7 * (double)Wt + (double)i));
        m9[9 * i + 7] = (float)(i ? 1.0 / (0.6 * (double)Ht) : 0.01 * (double)i);
        m9[9 * i + 8] = 1.0f;
    }
    aug_tensor *hb = NULL, *gb = NULL;
    if (bgv) {
        hb = aug_tensor_empty(1, &C, AUG_FLOAT64, CPU);
        memcpy(aug_tensor_ptr(hb), bgv, (size_t)C * sizeof(double));
        aug_tensor *cast = NULL;
        assert_int_equal(aug_cast(hb, bgt, &cast), AUG_OK);
        aug_tensor_free(hb);
        hb = cast;
        gb = aug_tensor_to(hb, ph_dev(r));
    }
    int64_t dshape[4] = {n, C, Ht, Wt}, hshape[4] = {n, Ht, Wt, C};
    const int64_t *ds = o && o->dst_layout == AUG_WARP_LAYOUT_HWC ? hshape : dshape;
    aug_tensor *hd = aug_tensor_empty(4, ds, dt, CPU), *gd = aug_tensor_empty(4, ds, dt, ph_dev(r));
    if (proj) {
        aug_warp_options oo = o ? *o : aug_warp_options_default();
        if (layout == 3) oo.src_layout = AUG_WARP_LAYOUT_CHW;
        assert_int_equal(aug_warp_perspective_batch(n, (const aug_tensor *const *)hv, hd, m9, hb, ss, &oo), AUG_OK);
        assert_int_equal(aug_warp_perspective_batch(n, (const aug_tensor *const *)gv, gd, m9, gb, ss, &oo), AUG_OK);
    } else if (!o) {
        assert_int_equal(aug_warp_affine_batch(n, (const aug_tensor *const *)hv, hd, m, hb, ss), AUG_OK);
        assert_int_equal(aug_warp_affine_batch(n, (const aug_tensor *const *)gv, gd, m, gb, ss), AUG_OK);
    } else {
        aug_warp_options oo = *o;
        if (layout == 3) oo.src_layout = AUG_WARP_LAYOUT_CHW;
        assert_int_equal(aug_warp_affine_batch_ex(n, (const aug_tensor *const *)hv, hd, m, hb, ss, &oo), AUG_OK);
        assert_int_equal(aug_warp_affine_batch_ex(n, (const aug_tensor *const *)gv, gd, m, gb, ss, &oo), AUG_OK);
    }
    ph_check(r, what, hd, gd);
    for (int64_t i = 0; i < n; i++)
        aug_tensor_free(hs[i]), aug_tensor_free(gs[i]), aug_tensor_free(hv[i]), aug_tensor_free(gv[i]);
    aug_tensor_free(hb), aug_tensor_free(gb), aug_tensor_free(hd), aug_tensor_free(gd);
}

static void check_warp_opts(ph_run *r, int64_t n, const int64_t (*hw)[2], int64_t C, aug_dtype st, aug_dtype dt,
                            int64_t Ht, int64_t Wt, const double *bgv, aug_dtype bgt, int s, int layout, uint64_t seed,
                            const aug_warp_options *o) {
    check_warp_gen(r, n, hw, C, st, dt, Ht, Wt, bgv, bgt, s, layout, seed, o, 0);
}

static void check_warp(ph_run *r, int64_t n, const int64_t (*hw)[2], int64_t C, aug_dtype st, aug_dtype dt, int64_t Ht,
                       int64_t Wt, const double *bgv, aug_dtype bgt, int s, int layout, uint64_t seed) {
    check_warp_opts(r, n, hw, C, st, dt, Ht, Wt, bgv, bgt, s, layout, seed, NULL);
}

/* The options on both backends: every border with both interpolations and both
 * output layouts over the kernels' dtype pairs and the 16-bit images, and
 * nearest on every pair. */
static void run_warp_options(ph_run *r, const ph_case *c) {
    (void)c;
    const int64_t sizes[3][2] = {{17, 11}, {5, 23}, {1, 1}}, one[1][2] = {{9, 13}};
    const double bytes[4] = {0, 255, 17, 3}, floats[4] = {0.5, -2, 1e3, 9}, words[4] = {0, 65535, 40000, 3};
    for (int interp = 0; interp < 2; interp++)
        for (int border = 0; border < 4; border++)
            for (int dl = 0; dl < 2; dl++) {
                aug_warp_options o = aug_warp_options_default();
                o.interpolation = (aug_warp_interp)interp, o.border = (aug_warp_border)border;
                o.dst_layout = dl ? AUG_WARP_LAYOUT_HWC : AUG_WARP_LAYOUT_CHW;
                for (int s = 1; s <= 3; s += 2)
                    for (int layout = 0; layout < 4; layout++) {
                        check_warp_opts(r, 3, sizes, 4, AUG_UINT8, AUG_UINT8, 12, 14, bytes, AUG_UINT8, s, layout, 1, &o);
                        check_warp_opts(r, 3, sizes, 4, AUG_UINT8, AUG_UINT8, 12, 14, floats, AUG_FLOAT64, s, layout, 2,
                                        &o);
                        check_warp_opts(r, 2, sizes, 3, AUG_FLOAT32, AUG_INT16, 9, 10, floats, AUG_FLOAT32, s, layout, 3,
                                        &o);
                        check_warp_opts(r, 2, sizes, 3, AUG_INT32, AUG_UINT8, 9, 10, floats, AUG_FLOAT64, s, layout, 5,
                                        &o);
                        check_warp_opts(r, 2, sizes, 1, AUG_FLOAT64, AUG_FLOAT32, 9, 10, NULL, AUG_UINT8, s, layout, 6,
                                        &o);
                        /* 16-bit images (issue 31): uint16 -> uint16 with 16-bit backgrounds, int16, float16 */
                        check_warp_opts(r, 3, sizes, 4, AUG_UINT16, AUG_UINT16, 12, 14, words, AUG_UINT16, s, layout, 7,
                                        &o);
                        check_warp_opts(r, 2, sizes, 3, AUG_INT16, AUG_INT16, 9, 10, floats, AUG_FLOAT64, s, layout, 8,
                                        &o);
                        check_warp_opts(r, 2, sizes, 3, AUG_FLOAT16, AUG_FLOAT16, 9, 10, floats, AUG_FLOAT32, s, layout,
                                        9, &o);
                    }
            }
    const double bg[3] = {7, 200.5, -3};
    for (int border = 0; border < 4; border += 3) {
        aug_warp_options o = aug_warp_options_default();
        o.interpolation = AUG_WARP_NEAREST, o.border = (aug_warp_border)border;
        for (int a = 0; a < 13; a++)
            for (int b = 0; b < 13; b++) check_warp_opts(r, 1, one, 3, ALL[a], ALL[b], 6, 8, bg, AUG_FLOAT32, 1, 0, 5, &o);
    }
}

/* The perspective warp: the kernels' dtype pairs (fixed point, float32, exact)
 * with every border, both interpolations and output layouts, s = 1 and 3 (and
 * 2 and 4 on the second image), source views; then nearest on every pair. */
static void run_warp_persp(ph_run *r, const ph_case *c) {
    (void)c;
    const int64_t sizes[3][2] = {{17, 11}, {5, 23}, {1, 1}}, one[1][2] = {{9, 13}};
    const double bytes[4] = {0, 255, 17, 3}, floats[4] = {0.5, -2, 1e3, 9}, bg[3] = {7, 200.5, -3};
    const double words[4] = {0, 65535, 40000, 3};
    for (int interp = 0; interp < 2; interp++)
        for (int border = 0; border < 4; border++)
            for (int s = 1; s <= 3; s += 2) {
                aug_warp_options o = aug_warp_options_default();
                o.interpolation = (aug_warp_interp)interp, o.border = (aug_warp_border)border;
                o.dst_layout = (s + border) % 2 ? AUG_WARP_LAYOUT_HWC : AUG_WARP_LAYOUT_CHW;
                const int layout = (border + interp) % 4;
                check_warp_gen(r, 3, sizes, 4, AUG_UINT8, AUG_UINT8, 12, 14, bytes, AUG_UINT8, s, layout, 1, &o, 1);
                check_warp_gen(r, 3, sizes, 4, AUG_UINT8, AUG_UINT8, 12, 14, floats, AUG_FLOAT64, s, layout, 2, &o, 1);
                check_warp_gen(r, 2, sizes, 3, AUG_FLOAT32, AUG_INT16, 9, 10, floats, AUG_FLOAT32, s, layout, 3, &o, 1);
                check_warp_gen(r, 2, sizes, 3, AUG_INT32, AUG_UINT8, 9, 10, floats, AUG_FLOAT64, s, layout, 5, &o, 1);
                check_warp_gen(r, 2, sizes, 1, AUG_FLOAT64, AUG_FLOAT32, 9, 10, NULL, AUG_UINT8, s, layout, 6, &o, 1);
                check_warp_gen(r, 3, sizes, 4, AUG_UINT16, AUG_UINT16, 12, 14, words, AUG_UINT16, s, layout, 7, &o, 1);
                check_warp_gen(r, 2, sizes, 3, AUG_INT16, AUG_INT16, 9, 10, floats, AUG_FLOAT64, s, layout, 8, &o, 1);
                check_warp_gen(r, 2, sizes, 3, AUG_FLOAT16, AUG_FLOAT16, 9, 10, floats, AUG_FLOAT32, s, layout, 9, &o,
                               1);
            }
    aug_warp_options o = aug_warp_options_default();
    o.interpolation = AUG_WARP_NEAREST;
    for (int a = 0; a < 13; a++)
        for (int b = 0; b < 13; b++) check_warp_gen(r, 1, one, 3, ALL[a], ALL[b], 6, 8, bg, AUG_FLOAT32, 1, 0, 5, &o, 1);
    for (int a = 0; a < 13; a++) check_warp_gen(r, 1, one, 3, ALL[a], ALL[a], 7, 5, NULL, AUG_UINT8, 2, 0, 9, NULL, 1);
}

static void run_warp_dtypes(ph_run *r, const ph_case *c) {
    (void)c;
    const int64_t one[1][2] = {{9, 13}};
    const double bg[3] = {7, 200.5, -3};
    for (int a = 0; a < 13; a++)
        for (int b = 0; b < 13; b++) check_warp(r, 1, one, 3, ALL[a], ALL[b], 6, 8, bg, AUG_FLOAT32, 1, 0, 5);
    for (int a = 0; a < 13; a++) check_warp(r, 1, one, 3, ALL[a], ALL[a], 7, 5, NULL, AUG_UINT8, 2, 0, 9);
}

static void run_warp_kernels(ph_run *r, const ph_case *c) {
    (void)c;
    const int64_t sizes[3][2] = {{17, 11}, {5, 23}, {1, 1}};
    const double bytes[4] = {0, 255, 17, 3}, floats[4] = {0.5, -2, 1e3, 9}, huge[4] = {1e300, 0, 1, 2};
    for (int s = 1; s <= 3; s++)
        for (int layout = 0; layout < 3; layout++) {
            /* fixed point (packed uint8, byte background), and its neighbours */
            check_warp(r, 3, sizes, 4, AUG_UINT8, AUG_UINT8, 12, 14, bytes, AUG_UINT8, s, layout, 1);
            check_warp(r, 3, sizes, 4, AUG_UINT8, AUG_UINT8, 12, 14, floats, AUG_FLOAT64, s, layout, 2);
            /* float32 kernel, and the exact one for wide types / float64 / a huge background */
            check_warp(r, 2, sizes, 3, AUG_FLOAT32, AUG_INT16, 9, 10, floats, AUG_FLOAT32, s, layout, 3);
            check_warp(r, 2, sizes, 3, AUG_UINT16, AUG_FLOAT32, 9, 10, bytes, AUG_UINT8, s, layout, 4);
            check_warp(r, 2, sizes, 3, AUG_INT32, AUG_UINT8, 9, 10, floats, AUG_FLOAT64, s, layout, 5);
            check_warp(r, 2, sizes, 3, AUG_FLOAT32, AUG_FLOAT64, 9, 10, NULL, AUG_UINT8, s, layout, 6);
            check_warp(r, 2, sizes, 3, AUG_FLOAT32, AUG_FLOAT32, 9, 10, huge, AUG_FLOAT64, s, layout, 7);
        }
    /* channel counts 1 and 5, supersampling 4 */
    const double five[5] = {9, 0, 255, 128, 3};
    for (int l = 0; l < 3; l++) {
        check_warp(r, 3, sizes, 1, AUG_UINT8, AUG_UINT8, 11, 13, five, AUG_UINT8, 4, l, 10);
        check_warp(r, 3, sizes, 5, AUG_UINT8, AUG_UINT8, 11, 13, five, AUG_UINT8, 4, l, 11);
        check_warp(r, 2, sizes, 1, AUG_FLOAT32, AUG_UINT8, 8, 9, five, AUG_FLOAT32, 4, l, 12);
        check_warp(r, 2, sizes, 5, AUG_INT16, AUG_FLOAT64, 8, 9, five, AUG_FLOAT64, 4, l, 13);
    }
    /* many channels (more than the CPU's channel group) and supersampling 15 / 16 (the largest) */
    const double many[20] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
    check_warp(r, 1, sizes, 20, AUG_UINT8, AUG_UINT8, 4, 5, many, AUG_UINT8, 1, 0, 8);
    check_warp(r, 1, sizes, 2, AUG_UINT8, AUG_UINT8, 3, 4, NULL, AUG_UINT8, 16, 0, 9);
    check_warp(r, 2, sizes, 2, AUG_UINT8, AUG_UINT8, 3, 4, NULL, AUG_UINT8, 15, 0, 9);
    for (int k = 0; k < 6; k++) { /* random source and target sizes, channels, dtypes, views */
        int64_t rs[3][2];
        for (int i = 0; i < 3; i++) rs[i][0] = ph_range(r, 1, 30), rs[i][1] = ph_range(r, 1, 30);
        check_warp(r, 3, (const int64_t(*)[2])rs, ph_range(r, 1, 5), ALL[ph_range(r, 1, 12)], ALL[ph_range(r, 1, 12)],
                   ph_range(r, 1, 20), ph_range(r, 1, 20), five, AUG_FLOAT64, (int)ph_range(r, 1, 4),
                   (int)ph_range(r, 0, 2), ph_rand(r) % 100);
    }
}
/* Bicubic (the *_cubic kernels), affine (proj 0) or perspective (1): every
 * border and both output layouts over the dtype pairs, s = 1 and 3 (2 and 4
 * on the second image), the source views; then every dtype pair. */
static void run_warp_cubic_gen(ph_run *r, int proj) {
    const int64_t sizes[3][2] = {{17, 11}, {5, 23}, {1, 1}}, one[1][2] = {{9, 13}};
    const double bytes[4] = {0, 255, 17, 3}, floats[4] = {0.5, -2, 1e3, 9}, bg[3] = {7, 200.5, -3};
    const double words[4] = {0, 65535, 40000, 3};
    for (int border = 0; border < 4; border++)
        for (int s = 1; s <= 3; s += 2)
            for (int layout = 0; layout < 4; layout++) {
                aug_warp_options o = aug_warp_options_default();
                o.interpolation = AUG_WARP_CUBIC, o.border = (aug_warp_border)border;
                o.dst_layout = (s + border + layout) % 2 ? AUG_WARP_LAYOUT_HWC : AUG_WARP_LAYOUT_CHW;
                check_warp_gen(r, 3, sizes, 4, AUG_UINT8, AUG_UINT8, 12, 14, bytes, AUG_UINT8, s, layout, 1, &o, proj);
                check_warp_gen(r, 3, sizes, 4, AUG_UINT8, AUG_UINT8, 12, 14, floats, AUG_FLOAT64, s, layout, 2, &o,
                               proj);
                check_warp_gen(r, 2, sizes, 3, AUG_FLOAT32, AUG_INT16, 9, 10, floats, AUG_FLOAT32, s, layout, 3, &o,
                               proj);
                check_warp_gen(r, 2, sizes, 3, AUG_INT32, AUG_UINT8, 9, 10, floats, AUG_FLOAT64, s, layout, 5, &o, proj);
                check_warp_gen(r, 2, sizes, 1, AUG_FLOAT64, AUG_FLOAT32, 9, 10, NULL, AUG_UINT8, s, layout, 6, &o, proj);
                check_warp_gen(r, 3, sizes, 4, AUG_UINT16, AUG_UINT16, 12, 14, words, AUG_UINT16, s, layout, 7, &o,
                               proj);
                check_warp_gen(r, 2, sizes, 3, AUG_FLOAT16, AUG_FLOAT16, 9, 10, floats, AUG_FLOAT32, s, layout, 9, &o,
                               proj);
            }
    aug_warp_options o = aug_warp_options_default();
    o.interpolation = AUG_WARP_CUBIC;
    for (int a = 0; a < 13; a++)
        for (int b = 0; b < 13; b++)
            check_warp_gen(r, 1, one, 3, ALL[a], ALL[b], 6, 8, bg, AUG_FLOAT32, 1 + (a + b) % 2, 0, 5, &o, proj);
}

static void run_warp_cubic(ph_run *r, const ph_case *c) {
    (void)c;
    run_warp_cubic_gen(r, 0);
}

static void run_warp_cubic_persp(ph_run *r, const ph_case *c) {
    (void)c;
    run_warp_cubic_gen(r, 1);
}

/* ---- mix_mirror ---------------------------------------------------------------- */

/* aug_mix_mirror of a random batch view (every float dtype, contiguous, strided,
 * reversed, permuted; odd and even N, N = 1) on both backends: random boxes
 * (empty, partial, touching the edges, whole), weights (some exactly (1, 0)),
 * one entry for all or one per image. */
static void run_mix_mirror(ph_run *r, const ph_case *cs) {
    for (int d = 0; d < ph_ndtypes(cs); d++)
        for (int layout = PH_L_CONTIG; layout <= PH_L_PERMUTED; layout++)
            for (int rep = 0; rep < 2; rep++) {
                const aug_dtype t = ph_dtype(cs, d);
                const int64_t shape[4] = {ph_range(r, 1, 7), ph_range(r, 1, 4), ph_range(r, 1, 23), ph_range(r, 1, 45)};
                aug_tensor *x, *xd;
                ph_operand(r, t, layout, 4, shape, &x, &xd);
                ph_inputs(r, 1, (const aug_tensor *const *)&x);
                const int64_t n = x->shape[0], h = x->shape[2], w = x->shape[3];
                const int64_t count = ph_rand(r) % 3 ? n : 1;
                double weights[14];
                int64_t boxes[28];
                for (int64_t k = 0; k < count; k++) {
                    const double lam = (double)(ph_rand(r) % 1001) / 1000.0;
                    const int kind = (int)(ph_rand(r) % 5); /* blend, (1, 0), float32 lam, box, whole image */
                    weights[2 * k] = kind == 1 ? 1.0 : kind == 2 ? (double)(float)lam : lam;
                    weights[2 * k + 1] = kind == 1 ? 0.0 : kind == 2 ? (double)(1.0f - (float)lam) : 1.0 - lam;
                    int64_t *b = boxes + 4 * k;
                    b[0] = ph_range(r, 0, w), b[2] = ph_range(r, b[0], w);
                    b[1] = ph_range(r, 0, h), b[3] = ph_range(r, b[1], h);
                    if (kind < 3) b[0] = b[2] = b[1] = b[3] = 0;
                    if (kind == 4) b[0] = b[1] = 0, b[2] = w, b[3] = h;
                }
                const int with_boxes = (int)(ph_rand(r) % 4);
                assert_int_equal(aug_mix_mirror(x, weights, with_boxes ? boxes : NULL, count), AUG_OK);
                assert_int_equal(aug_mix_mirror(xd, weights, with_boxes ? boxes : NULL, count), AUG_OK);
                ph_check(r, "mix_mirror", x, xd);
                aug_tensor_free(x), aug_tensor_free(xd);
            }
}

static const ph_case CASES[] = {
    /* floats within semantics §8 on a GPU (powf / expf); 8- and 16-bit exactly */
    {"lighting/lighting", AUG__FAMILY_LIGHTING, -1, PH_DTYPES_ALL, 0, 4, NULL, PH_BOUND_ULP8, run_lighting},
    {"blur/box", AUG__FAMILY_BLUR, 0, PH_DTYPES_ALL, 0, 4, NULL, PH_BOUND_EXACT, run_blur_box},
    {"blur/box8_tiles", AUG__FAMILY_BLUR, 0, (1u << AUG_UINT8) | (1u << AUG_INT8), 0, 4, NULL, PH_BOUND_EXACT,
     run_blur_box8_tiles},
    {"blur/gaussian", AUG__FAMILY_BLUR, 1, PH_DTYPES_ALL, 0, 4, NULL, PH_BOUND_EXACT, run_blur_gaussian},
    {"blur/float_tiles", AUG__FAMILY_BLUR, 1, (1u << AUG_FLOAT32) | (1u << AUG_FLOAT64), 0, 4, NULL,
     PH_BOUND_EXACT, run_blur_float_tiles},
    {"blur/pil", AUG__FAMILY_BLUR, 2, 1u << AUG_UINT8, 0, 4, NULL, PH_BOUND_EXACT, run_blur_pil},
    {"blur/pil_tiles", AUG__FAMILY_BLUR, 2, 1u << AUG_UINT8, 0, 4, NULL, PH_BOUND_EXACT, run_blur_pil_tiles},
    {"warp/kernels", AUG__FAMILY_WARP, -1, PH_DTYPES_ALL, 0, 3, NULL, PH_BOUND_EXACT, run_warp_kernels},
    {"warp/dtypes", AUG__FAMILY_WARP, -1, PH_DTYPES_ALL, 0, 3, NULL, PH_BOUND_EXACT, run_warp_dtypes},
    {"warp/options", AUG__FAMILY_WARP, -1, PH_DTYPES_ALL, 0, 3, NULL, PH_BOUND_EXACT, run_warp_options},
    {"warp/perspective", AUG__FAMILY_WARP_PERSP, -1, PH_DTYPES_ALL, 0, 3, NULL, PH_BOUND_EXACT, run_warp_persp},
    {"warp/cubic", AUG__FAMILY_WARP, -1, PH_DTYPES_ALL, 0, 3, NULL, PH_BOUND_EXACT, run_warp_cubic},
    {"warp/cubic_perspective", AUG__FAMILY_WARP_PERSP, -1, PH_DTYPES_ALL, 0, 3, NULL, PH_BOUND_EXACT,
     run_warp_cubic_persp},
    {"mix/mirror", AUG__FAMILY_MIX, -1,
     (1u << AUG_FLOAT16) | (1u << AUG_BFLOAT16) | (1u << AUG_FLOAT32) | (1u << AUG_FLOAT64), 0, 4, NULL,
     PH_BOUND_EXACT, run_mix_mirror},
};
const ph_case_list ph_cases_image = {CASES, sizeof CASES / sizeof CASES[0]};
