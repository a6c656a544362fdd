/* cases_misc.c: parity cases of the random, gemm and take families and of the
 * box / keypoint targets: uniform and Gaussian fills of every dtype from the
 * same seed (into a strided view on a second call: the call counters agree),
 * gemm with transposed operands (cuBLAS sums in its own order: within PH_ABS),
 * take / put with negative and repeated indices, and the targets' tensor forms. */
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

/* ---- random ----------------------------------------------------------------------- */

static void run_random(ph_run *r, const ph_case *c) {
    uint64_t seed = 12345 + (ph_rand(r) & 0xffff);
    for (int d = 0; d < ph_ndtypes(c); d++) {
        aug_dtype t = ph_dtype(c, d);
        aug_rng *rc = aug_rng_new(CPU, &seed), *rg = aug_rng_new(ph_dev(r), &seed);
        assert_non_null(rg);
        int64_t shape[AUG_MAX_DIMS];
        int nd = ph_shape(r, c->max_ndim, 130, 5000, shape);
        if (d == 0) nd = 2, shape[0] = 37, shape[1] = 129;
        aug_tensor *tc = aug_tensor_empty(nd, shape, t, CPU), *tg = aug_tensor_empty(nd, shape, t, ph_dev(r));
        aug_index ix[2] = {{AUG_INDEX_SLICE, 0, 0, 0, 2, 0, 0}, {AUG_INDEX_SLICE, 0, 0, 0, -3, 0, 0}};
        int nix = nd < 2 ? nd : 2;
        aug_tensor *vc = aug_tensor_index(tc, nix, ix), *vg = aug_tensor_index(tg, nix, ix);
        for (int call = 0; call < 2; call++) {
            aug_tensor *xc = call ? vc : tc, *xg = call ? vg : tg;
            ph_inputs(r, 1, (const aug_tensor *const *)&xc);
            if (c->op == 0) {
                assert_int_equal(aug_rng_uniform(rc, xc, -100.5, 250), AUG_OK);
                assert_int_equal(aug_rng_uniform(rg, xg, -100.5, 250), AUG_OK);
            } else {
                assert_int_equal(aug_rng_gaussian(rc, xc, 3, 40), AUG_OK);
                assert_int_equal(aug_rng_gaussian(rg, xg, 3, 40), AUG_OK);
            }
            ph_check(r, call ? "into a strided view" : "contiguous", xc, xg);
        }
        aug_tensor_free(vc), aug_tensor_free(vg), aug_tensor_free(tc), aug_tensor_free(tg);
        aug_rng_free(rc), aug_rng_free(rg);
    }
}

/* ---- gemm ------------------------------------------------------------------------- */

static void run_gemm(ph_run *r, const ph_case *c) {
    for (int f64 = 0; f64 < 2; f64++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++) {
                aug_dtype dt = f64 ? AUG_FLOAT64 : AUG_FLOAT32;
                int64_t m = ph_range(r, 1, 20), k = ph_range(r, 1, 20), n = ph_range(r, 1, 20);
                if (!ta && !tb) m = 13, k = 19, n = 7;
                int64_t sa[2] = {ta ? k : m, ta ? m : k}, sb[2] = {tb ? n : k, tb ? k : n};
                aug_tensor *a = aug_tensor_empty(2, sa, dt, CPU), *b = aug_tensor_empty(2, sb, dt, CPU);
                aug_rng *rng = aug_rng_new(CPU, &(uint64_t){42});
                assert_int_equal(aug_rng_uniform(rng, a, -4, 4), AUG_OK);
                assert_int_equal(aug_rng_uniform(rng, b, -4, 4), AUG_OK);
                aug_rng_free(rng);
                int perm[2] = {1, 0};
                aug_tensor *ca = ta ? aug_tensor_permute(a, perm) : aug_tensor_view(a);
                aug_tensor *cb = tb ? aug_tensor_permute(b, perm) : aug_tensor_view(b);
                aug_tensor *ga = aug_tensor_to(a, ph_dev(r)), *gb = aug_tensor_to(b, ph_dev(r));
                aug_tensor *va = ta ? aug_tensor_permute(ga, perm) : aug_tensor_view(ga);
                aug_tensor *vb = tb ? aug_tensor_permute(gb, perm) : aug_tensor_view(gb);
                const aug_tensor *in[2] = {ca, cb};
                ph_inputs(r, 2, in);
                aug_tensor *rc = NULL, *rg = NULL;
                assert_int_equal(aug_gemm(ca, cb, &rc, 1.5, 0.0), AUG_OK);
                assert_int_equal(aug_gemm(va, vb, &rg, 1.5, 0.0), AUG_OK);
                ph_check_bound(r, "gemm", rc, rg, (ph_bound){PH_ABS, f64 ? 1e-9 : 1e-3, 0});
                aug_tensor_free(rc), aug_tensor_free(rg), aug_tensor_free(ga), aug_tensor_free(gb);
                aug_tensor_free(va), aug_tensor_free(vb);
                aug_tensor_free(ca), aug_tensor_free(cb), aug_tensor_free(a), aug_tensor_free(b);
            }
}

/* ---- take / put -------------------------------------------------------------------- */

static void run_take(ph_run *r, const ph_case *c) {
    const int64_t shape[4] = {3, 4, 5, 2};
    enum { N = 40 };
    int64_t i0[N], i1[N];
    for (int b = 0; b < N; b++) i0[b] = ph_range(r, -3, 2), i1[b] = ph_range(r, -4, 3);
    i0[0] = -3, i1[0] = 3, i0[1] = i0[2] = 2, i1[1] = i1[2] = 0; /* the ends, a repeated index */
    const int64_t *idx[2] = {i0, i1};
    for (int s = 0; s < ph_ndtypes(c); s++) {
        aug_tensor *tc, *tg, *oc = NULL, *og = NULL;
        ph_pair(r, 4, shape, ph_dtype(c, s), &tc, &tg);
        ph_inputs(r, 1, (const aug_tensor *const *)&tc);
        assert_int_equal(aug_take(tc, 2, idx, N, &oc), AUG_OK);
        assert_int_equal(aug_take(tg, 2, idx, N, &og), AUG_OK);
        ph_check(r, "aug_take", oc, og);
        aug_tensor *vc = aug_tensor_empty(3, (int64_t[]){N, 5, 2}, AUG_FLOAT64, CPU);
        th_fill_pattern(vc, 5);
        assert_int_equal(aug_put(tc, 2, idx, N, vc), AUG_OK);
        assert_int_equal(aug_put(tg, 2, idx, N, vc), AUG_OK); /* a host value, copied to the device */
        ph_check(r, "aug_put (the last of repeated writes wins)", tc, tg);
        aug_tensor_free(vc), aug_tensor_free(oc), aug_tensor_free(og), aug_tensor_free(tc), aug_tensor_free(tg);
    }
}

/* ---- targets: boxes and keypoints ------------------------------------------------- */

/* tests/c/test_targets.c's tensor forms (which check the CPU's values) on both devices. */
static void run_targets(ph_run *r, const ph_case *c) {
    aug_device dv[2] = {CPU, ph_dev(r)};
    float m[6] = {1, 0, -40, 0, 1, 0};
    double in[16] = {0, 0, 10, 10, 30, 0, 60, 10, 70, 0, 80, 10, 20, 20, 30, 30};
    for (int i = 4; i < 16; i++) in[i] += (double)ph_range(r, 0, 3); /* boxes stay ordered */
    int64_t shape[2] = {4, 4}, s3[3] = {2, 4, 4}, counts[2] = {4, 1}, oc[2][2], ks[2] = {3, 2};
    double bb[32], kp[6] = {10, 5, 30, 5, 23.9, 5};
    memcpy(bb, in, sizeof in), memcpy(bb + 16, in, sizeof in);
    float ms[12] = {1, 0, -40, 0, 1, 0, 1, 0, 0, 0, 1, 0};
    int64_t sizes[4] = {64, 100, 64, 64};
    aug_box_params p = aug_box_params_default();
    aug_tensor *o[2][5] = {{NULL}}, *k[2][5] = {{NULL}};
    for (int d = 0; d < 2; d++) {
        aug_tensor *b = th_from_doubles(in, 2, shape, AUG_INT32, dv[d]), *bt = th_from_doubles(bb, 3, s3, AUG_FLOAT64, dv[d]);
        aug_tensor *kt = th_from_doubles(kp, 2, ks, AUG_FLOAT32, dv[d]);
        assert_int_equal(aug_boxes_affine(b, m, 64, 100, 64, 64, &p, &o[d][0], &k[d][0]), AUG_OK);
        assert_int_equal(aug_boxes_affine_batch(bt, counts, ms, sizes, 64, 64, &p, &o[d][1], oc[d], &k[d][1]), AUG_OK);
        assert_int_equal(aug_keypoints_affine(kt, m, 64, 64, 0, &o[d][2], &k[d][2]), AUG_OK);
        assert_int_equal(aug_keypoints_affine(kt, m, 64, 64, 1, &o[d][3], NULL), AUG_OK);
        aug_tensor_free(b), aug_tensor_free(bt), aug_tensor_free(kt);
    }
    assert_true(oc[0][0] == oc[1][0] && oc[0][1] == oc[1][1]);
    static const char *const what[4] = {"boxes_affine", "boxes_affine_batch", "keypoints_affine",
                                        "keypoints_affine (drop)"};
    for (int i = 0; i < 4; i++) {
        ph_check(r, what[i], o[0][i], o[1][i]);
        if (k[0][i]) ph_check(r, what[i], k[0][i], k[1][i]);
        for (int d = 0; d < 2; d++) aug_tensor_free(o[d][i]), aug_tensor_free(k[d][i]);
    }
}

static const ph_case CASES[] = {
    {"random/uniform", AUG__FAMILY_RANDOM, 0, PH_DTYPES_ALL, 0, 3, NULL, PH_BOUND_EXACT, run_random},
    /* float64-based Gaussians use the platform's log / cos */
    {"random/gaussian", AUG__FAMILY_RANDOM, 1, PH_DTYPES_ALL, 0, 3, NULL, PH_BOUND_ULP8, run_random},
    {"gemm/gemm", AUG__FAMILY_GEMM, -1, (1u << AUG_FLOAT32) | (1u << AUG_FLOAT64), 0, 2, NULL, {PH_ABS, 1e-3, 0},
     run_gemm},
    {"take/take+put", AUG__FAMILY_TAKE, -1, (1u << AUG_UINT8) | (1u << AUG_INT16) | (1u << AUG_FLOAT32) | (1u << AUG_INT64),
     0, 4, NULL, PH_BOUND_EXACT, run_take},
    /* not a backend family: the core computes targets on the host for tensors of any device */
    {"targets/boxes+keypoints", -1, -1, 0, 0, 0, NULL, PH_BOUND_EXACT, run_targets},
};
const ph_case_list ph_cases_misc = {CASES, sizeof CASES / sizeof CASES[0]};
