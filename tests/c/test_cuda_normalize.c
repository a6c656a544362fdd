/* test_cuda_normalize.c: the CUDA backend's crop_mirror_normalize and fused
 * Gaussian noise against the CPU backend, byte for byte (both are float32 /
 * float64 IEEE arithmetic and conversions through the shared scalar rules:
 * identical on a GPU too), over every input and several output dtypes,
 * mirrored, padded, NHWC and strided inputs, per-image stds; and the C errors.
 *
 * Runs on the emulated devices under ctest (AUG_CUDA_BACKEND=emu), on a real
 * GPU otherwise; skips without a CUDA device unless AUG_REQUIRE_CUDA=1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "aug/aug.h"
#include "helpers/th_cuda.h"

static const aug_dtype ALL[13] = {AUG_BOOL,   AUG_INT8,    AUG_INT16,   AUG_INT32,  AUG_INT64,
                                  AUG_UINT8,  AUG_UINT16,  AUG_UINT32,  AUG_UINT64, AUG_FLOAT16,
                                  AUG_BFLOAT16, AUG_FLOAT32, AUG_FLOAT64};

static void same_bytes(const char *what, const aug_tensor *a, const aug_tensor *b) {
    assert_int_equal(a->ndim, b->ndim);
    for (int d = 0; d < a->ndim; d++) assert_int_equal(a->shape[d], b->shape[d]);
    assert_int_equal(a->dtype, b->dtype);
    size_t na, nb;
    unsigned char *x = th_bytes_of(a, &na), *y = th_bytes_of(b, &nb);
    assert_int_equal(na, nb);
    th_compare(what, a->dtype, x, y, na, 0);
    free(x), free(y);
}

/* Three images of different sizes (HWC, C = 3) on both devices; the third a flipped view. */
static void images(aug_dtype t, aug_tensor *cpu[3], aug_tensor *gpu[3], aug_tensor *keep[2]) {
    const int64_t shapes[3][3] = {{21, 23, 3}, {19, 26, 3}, {22, 22, 3}};
    for (int i = 0; i < 3; i++) {
        cpu[i] = aug_tensor_empty(3, shapes[i], t, CPU);
        assert_non_null(cpu[i]);
        th_fill_pattern(cpu[i], (uint64_t)(t * 7 + i));
        gpu[i] = aug_tensor_to(cpu[i], TH_CUDA0);
        assert_non_null(gpu[i]);
    }
    /* image 2 becomes a view with negative strides: rows and columns reversed */
    aug_index ix[2] = {{AUG_INDEX_SLICE, 0, 0, 0, -1, 0, 0}, {AUG_INDEX_SLICE, 0, 0, 0, -1, 0, 0}};
    keep[0] = cpu[2], keep[1] = gpu[2];
    cpu[2] = aug_tensor_index(keep[0], 2, ix);
    gpu[2] = aug_tensor_index(keep[1], 2, ix);
    assert_non_null(cpu[2]);
    assert_non_null(gpu[2]);
}

static void test_cmn_dtypes(void **state) {
    (void)state;
    NEED_CUDA();
    const aug_dtype outs[5] = {AUG_FLOAT32, AUG_FLOAT16, AUG_UINT8, AUG_INT8, AUG_INT64};
    const float mean[3] = {12.5f, -3.0f, 100.0f}, sd[3] = {3.0f, 0.25f, 40.0f}, fill[4] = {-1, 2.5f, 300, 7};
    const uint8_t mirror[3] = {1, 0, 1};
    const int64_t anchors[6] = {-2, 1, 3, -3, 0, 0};
    for (int i = 0; i < 13; i++) {
        aug_tensor *c[3], *g[3], *keep[2];
        images(ALL[i], c, g, keep);
        for (int o = 0; o < 5; o++)
            for (int variant = 0; variant < 3; variant++) {
                aug_cmn_params p = aug_cmn_params_default();
                p.crop_h = 18, p.crop_w = 19; /* > 256 values: the CPU tables of 8-bit inputs */
                p.mean = mean, p.nmean = 3, p.std = sd, p.nstd = 3, p.scale = 1.5f, p.shift = 0.25f;
                p.mirror = mirror;
                if (variant == 1) { /* padding, channel padding, NHWC, explicit anchors */
                    p.oob = AUG_OOB_PAD, p.pad_output = 1, p.out_nhwc = 1, p.anchors = anchors;
                    p.fill = fill, p.nfill = 4;
                }
                if (variant == 2) p.nmean = 0, p.nstd = 0, p.crop_pos_x = 0.9f; /* no normalisation */
                aug_tensor *rc = NULL, *rg = NULL;
                assert_int_equal(aug_crop_mirror_normalize_batch(3, (const aug_tensor *const *)c, outs[o], &p, &rc),
                                 AUG_OK);
                assert_int_equal(aug_crop_mirror_normalize_batch(3, (const aug_tensor *const *)g, outs[o], &p, &rg),
                                 AUG_OK);
                char what[96];
                snprintf(what, sizeof what, "cmn %s -> %s variant %d", aug_dtype_name(ALL[i]), aug_dtype_name(outs[o]),
                         variant);
                assert_int_equal(rg->device.type, AUG_DEVICE_CUDA);
                same_bytes(what, rc, rg);
                assert_string_equal(rg->layout, variant == 1 ? "NHWC" : "NCHW");
                aug_tensor_free(rc), aug_tensor_free(rg);
            }
        for (int k = 0; k < 3; k++) aug_tensor_free(c[k]), aug_tensor_free(g[k]);
        aug_tensor_free(keep[0]), aug_tensor_free(keep[1]);
    }
}

static void test_noise_dtypes(void **state) {
    (void)state;
    NEED_CUDA();
    const int64_t shape[4] = {3, 2, 7, 45};
    const float stds[3] = {0.0f, 4.0f, 250.0f};
    for (int i = 0; i < 13; i++) {
        for (int per_image = 0; per_image < 2; per_image++) {
            aug_tensor *xc = aug_tensor_empty(4, shape, ALL[i], CPU);
            assert_non_null(xc);
            th_fill_pattern(xc, (uint64_t)i + 3);
            aug_tensor *xg = aug_tensor_to(xc, TH_CUDA0);
            int64_t three = 3;
            aug_tensor *sc = aug_tensor_empty(1, &three, AUG_FLOAT32, CPU);
            memcpy(aug_tensor_ptr(sc), stds, sizeof stds);
            aug_tensor *sg = aug_tensor_to(sc, TH_CUDA0);
            uint64_t seed = 77;
            aug_rng *rc = aug_rng_new(CPU, &seed), *rg = aug_rng_new(TH_CUDA0, &seed);
            aug_tensor *oc = NULL, *og = NULL;
            assert_int_equal(aug_rng_gaussian_noise(rc, xc, 1.5, 30.0, per_image ? sc : NULL, &oc), AUG_OK);
            assert_int_equal(aug_rng_gaussian_noise(rg, xg, 1.5, 30.0, per_image ? sg : NULL, &og), AUG_OK);
            char what[64];
            snprintf(what, sizeof what, "noise %s per_image %d", aug_dtype_name(ALL[i]), per_image);
            same_bytes(what, oc, og);
            /* into another dtype, in place on a second call: the call counters agree */
            aug_tensor *fc = aug_tensor_empty(4, shape, AUG_UINT8, CPU), *fg = aug_tensor_empty(4, shape, AUG_UINT8, TH_CUDA0);
            assert_int_equal(aug_rng_gaussian_noise(rc, xc, 0.0, 9.0, NULL, &fc), AUG_OK);
            assert_int_equal(aug_rng_gaussian_noise(rg, xg, 0.0, 9.0, NULL, &fg), AUG_OK);
            same_bytes(what, fc, fg);
            aug_tensor_free(fc), aug_tensor_free(fg), aug_tensor_free(oc), aug_tensor_free(og);
            aug_tensor_free(xc), aug_tensor_free(xg), aug_tensor_free(sc), aug_tensor_free(sg);
            aug_rng_free(rc), aug_rng_free(rg);
        }
    }
}

static void test_errors(void **state) {
    (void)state;
    NEED_CUDA();
    const int64_t shape[3] = {4, 5, 3};
    aug_tensor *g = aug_tensor_empty(3, shape, AUG_UINT8, TH_CUDA0), *c = aug_tensor_empty(3, shape, AUG_UINT8, CPU);
    aug_tensor *out = NULL;
    aug_cmn_params p = aug_cmn_params_default();
    p.crop_h = 5;
    assert_int_equal(aug_crop_mirror_normalize(g, AUG_FLOAT32, &p, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_crop_mirror_normalize: the crop window of image 0 reaches outside it: "
                                          "rows [-1, 4) of 4 (set out_of_bounds_policy to pad or trim_to_shape)");
    const aug_tensor *mixed[2] = {g, c};
    p.crop_h = 2;
    assert_int_equal(aug_crop_mirror_normalize_batch(2, mixed, AUG_FLOAT32, &p, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_crop_mirror_normalize_batch: image 1 is on another device than image 0");
    float sd = -0.0f;
    p.std = &sd, p.nstd = 1;
    assert_int_equal(aug_crop_mirror_normalize(g, AUG_FLOAT32, &p, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_crop_mirror_normalize: std[0] must not be 0");
    assert_null(out);
    uint64_t seed = 1;
    aug_rng *r = aug_rng_new(CPU, &seed);
    assert_int_equal(aug_rng_gaussian_noise(r, g, 0.0, 1.0, NULL, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_rng_gaussian_noise: x is on cuda:0, the generator on cpu");
    assert_int_equal(aug_rng_gaussian_noise(r, c, 0.0, -1.0, NULL, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_rng_gaussian_noise: std = -1 must be finite and >= 0");
    assert_null(out);
    aug_rng_free(r);
    aug_tensor_free(g), aug_tensor_free(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cmn_dtypes),
        cmocka_unit_test(test_noise_dtypes),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
