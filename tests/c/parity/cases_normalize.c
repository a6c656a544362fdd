/* cases_normalize.c: parity cases of the normalize and noise families (from
 * the former tests/c/test_cuda_normalize.c), byte for byte (float32 / float64
 * IEEE arithmetic and conversions through the shared scalar rules: identical on
 * a GPU too): crop_mirror_normalize of every input dtype into several output
 * dtypes, mirrored, padded, NHWC, explicit anchors, a reversed view, random
 * image and crop sizes; Gaussian noise per batch and per image, into another
 * dtype on a second call (the call counters agree); the integer noise rule
 * (8/16-bit x and out: the host's tables) for several stds, per image with
 * image sizes that are not multiples of 4 (a Philox block across images), into
 * every other 8/16-bit integer dtype. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/backend.h"
#include "helpers/th_cuda.h"
#include "parity/harness.h"

/* Three images (HWC, C = 3) of random sizes >= min on both devices; the third a view with rows and columns reversed. */
static void images(ph_run *r, aug_dtype t, int64_t min, aug_tensor *cpu[3], aug_tensor *gpu[3], aug_tensor *keep[2]) {
    for (int i = 0; i < 3; i++) {
        const int64_t shape[3] = {ph_range(r, min, min + 8), ph_range(r, min, min + 8), 3};
        ph_pair(r, 3, shape, t, &cpu[i], &gpu[i]);
    }
    aug_index ix[2] = {{AUG_INDEX_SLICE, 0, 0, 0, -1, 0, 0}, {AUG_INDEX_SLICE, 0, 0, 0, -1, 0, 0}};
    keep[0] = cpu[2], keep[1] = gpu[2];
    cpu[2] = aug_tensor_index(keep[0], 2, ix);
    gpu[2] = aug_tensor_index(keep[1], 2, ix);
    assert_non_null(cpu[2]), assert_non_null(gpu[2]);
    ph_inputs(r, 3, (const aug_tensor *const *)cpu);
}

static void run_cmn(ph_run *r, const ph_case *c) {
    const aug_dtype outs[5] = {AUG_FLOAT32, AUG_FLOAT16, AUG_UINT8, AUG_INT8, AUG_INT64};
    const float mean[3] = {12.5f, -3.0f, 100.0f}, sd[3] = {3.0f, 0.25f, 40.0f}, fill[4] = {-1, 2.5f, 300, 7};
    const uint8_t mirror[3] = {1, 0, 1};
    const int64_t anchors[6] = {-2, 1, 3, -3, 0, 0};
    for (int i = 0; i < ph_ndtypes(c); i++) {
        aug_tensor *hc[3], *g[3], *keep[2];
        images(r, ph_dtype(c, i), 19, hc, g, keep);
        for (int o = 0; o < 5; o++)
            for (int variant = 0; variant < 3; variant++) {
                aug_cmn_params p = aug_cmn_params_default();
                p.crop_h = 18, p.crop_w = 19; /* > 256 values: the CPU tables of 8-bit inputs */
                p.mean = mean, p.nmean = 3, p.std = sd, p.nstd = 3, p.scale = 1.5f, p.shift = 0.25f;
                p.mirror = mirror;
                if (variant == 1) { /* padding, channel padding, NHWC, explicit anchors, a random crop size */
                    p.oob = AUG_OOB_PAD, p.pad_output = 1, p.out_nhwc = 1, p.anchors = anchors;
                    p.fill = fill, p.nfill = 4;
                    p.crop_h = ph_range(r, 1, 30), p.crop_w = ph_range(r, 1, 30);
                }
                if (variant == 2) p.nmean = 0, p.nstd = 0, p.crop_pos_x = 0.9f; /* no normalisation */
                aug_tensor *rc = NULL, *rg = NULL;
                assert_int_equal(aug_crop_mirror_normalize_batch(3, (const aug_tensor *const *)hc, outs[o], &p, &rc),
                                 AUG_OK);
                assert_int_equal(aug_crop_mirror_normalize_batch(3, (const aug_tensor *const *)g, outs[o], &p, &rg),
                                 AUG_OK);
                char what[96];
                snprintf(what, sizeof what, "cmn -> %s variant %d", aug_dtype_name(outs[o]), variant);
                ph_check(r, what, rc, rg);
                assert_string_equal(rg->layout, variant == 1 ? "NHWC" : "NCHW");
                aug_tensor_free(rc), aug_tensor_free(rg);
            }
        for (int k = 0; k < 3; k++) aug_tensor_free(hc[k]), aug_tensor_free(g[k]);
        aug_tensor_free(keep[0]), aug_tensor_free(keep[1]);
    }
}

static void run_noise(ph_run *r, const ph_case *c) {
    const float stds[3] = {0.0f, 4.0f, 250.0f};
    for (int i = 0; i < ph_ndtypes(c); i++)
        for (int per_image = 0; per_image < 2; per_image++) {
            const int64_t shape[4] = {3, ph_range(r, 1, 3), ph_range(r, 1, 9), ph_range(r, 1, 50)};
            aug_tensor *xc, *xg;
            ph_pair(r, 4, shape, ph_dtype(c, i), &xc, &xg);
            ph_inputs(r, 1, (const aug_tensor *const *)&xc);
            int64_t three = 3;
            aug_tensor *sc = aug_tensor_empty(1, &three, AUG_FLOAT32, CPU);
            memcpy(aug_tensor_ptr(sc), stds, sizeof stds);
            aug_tensor *sg = aug_tensor_to(sc, ph_dev(r));
            uint64_t seed = 77 + (ph_rand(r) & 0xff);
            aug_rng *rc = aug_rng_new(CPU, &seed), *rg = aug_rng_new(ph_dev(r), &seed);
            aug_tensor *oc = NULL, *og = NULL;
            assert_int_equal(aug_rng_gaussian_noise(rc, xc, 1.5, 30.0, per_image ? sc : NULL, &oc), AUG_OK);
            assert_int_equal(aug_rng_gaussian_noise(rg, xg, 1.5, 30.0, per_image ? sg : NULL, &og), AUG_OK);
            ph_check(r, per_image ? "noise per image" : "noise", oc, og);
            aug_tensor *fc = aug_tensor_empty(4, shape, AUG_UINT8, CPU), *fg = aug_tensor_empty(4, shape, AUG_UINT8, ph_dev(r));
            assert_int_equal(aug_rng_gaussian_noise(rc, xc, 0.0, 9.0, NULL, &fc), AUG_OK);
            assert_int_equal(aug_rng_gaussian_noise(rg, xg, 0.0, 9.0, NULL, &fg), AUG_OK);
            ph_check(r, "noise into uint8, second call", fc, fg);
            aug_tensor_free(fc), aug_tensor_free(fg), aug_tensor_free(oc), aug_tensor_free(og);
            aug_tensor_free(xc), aug_tensor_free(xg), aug_tensor_free(sc), aug_tensor_free(sg);
            aug_rng_free(rc), aug_rng_free(rg);
        }
}

static void run_noise_table(ph_run *r, const ph_case *c) {
    const aug_dtype outs[4] = {AUG_UINT8, AUG_INT8, AUG_INT16, AUG_UINT16};
    const float stds[4] = {0.5f, 3.0f, 8.0f, 30.0f};
    for (int i = 0; i < ph_ndtypes(c); i++)
        for (int o = 0; o < 4; o++) {
            const int64_t shape[4] = {4, ph_range(r, 1, 5), ph_range(r, 30, 90), 3};
            aug_tensor *xc, *xg;
            ph_pair(r, 4, shape, ph_dtype(c, i), &xc, &xg);
            ph_inputs(r, 1, (const aug_tensor *const *)&xc);
            int64_t four = 4;
            aug_tensor *sc = aug_tensor_empty(1, &four, AUG_FLOAT32, CPU);
            memcpy(aug_tensor_ptr(sc), stds, sizeof stds);
            aug_tensor *sg = aug_tensor_to(sc, ph_dev(r));
            uint64_t seed = 0x5eed0000u + (ph_rand(r) & 0xffff);
            aug_rng *rc = aug_rng_new(CPU, &seed), *rg = aug_rng_new(ph_dev(r), &seed);
            for (int per_image = 0; per_image < 2; per_image++) {
                aug_tensor *oc = aug_tensor_empty(4, shape, outs[o], CPU);
                aug_tensor *og = aug_tensor_empty(4, shape, outs[o], ph_dev(r));
                const double mean = per_image ? -0.5 : 2.25, std = (double)stds[ph_range(r, 0, 3)];
                assert_int_equal(aug_rng_gaussian_noise(rc, xc, mean, std, per_image ? sc : NULL, &oc), AUG_OK);
                assert_int_equal(aug_rng_gaussian_noise(rg, xg, mean, std, per_image ? sg : NULL, &og), AUG_OK);
                char what[96];
                snprintf(what, sizeof what, "integer noise -> %s%s", aug_dtype_name(outs[o]),
                         per_image ? " per image" : "");
                ph_check(r, what, oc, og);
                aug_tensor_free(oc), aug_tensor_free(og);
            }
            aug_tensor_free(xc), aug_tensor_free(xg), aug_tensor_free(sc), aug_tensor_free(sg);
            aug_rng_free(rc), aug_rng_free(rg);
        }
}

static const ph_case CASES[] = {
    {"normalize/crop_mirror_normalize", AUG__FAMILY_NORMALIZE, -1, PH_DTYPES_ALL, 0, 3, NULL, PH_BOUND_EXACT, run_cmn},
    {"noise/gaussian_noise", AUG__FAMILY_NOISE, -1, PH_DTYPES_ALL, 0, 4, NULL, PH_BOUND_EXACT, run_noise},
    {"noise/gaussian_noise/integer", AUG__FAMILY_NOISE, -1,
     (1u << AUG_UINT8) | (1u << AUG_INT8) | (1u << AUG_INT16) | (1u << AUG_UINT16), 0, 4, NULL, PH_BOUND_EXACT,
     run_noise_table},
};
const ph_case_list ph_cases_normalize = {CASES, sizeof CASES / sizeof CASES[0]};
