/* cases_resize.c: parity cases of the resize family (ported from the parity
 * part of tests/c/test_resize.c, with random sizes added; that file keeps the
 * C API's errors): every dtype and interpolation, up- and downscaling with odd
 * sizes, every layout, outputs of another dtype, flipped and cropped views,
 * batches of images of different sizes, and flip_batch in place; byte for byte
 * (the two evaluate the same float / double sums in the same order). */
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

static const aug_dtype ALL[13] = {AUG_BOOL,   AUG_INT8,    AUG_INT16,   AUG_INT32,  AUG_INT64,
                                  AUG_UINT8,  AUG_UINT16,  AUG_UINT32,  AUG_UINT64, AUG_FLOAT16,
                                  AUG_BFLOAT16, AUG_FLOAT32, AUG_FLOAT64};

typedef struct mode {
    aug_resize_interp interp;
    int aa;
} mode;
static const mode MODES[4] = {{AUG_RESIZE_NEAREST, 0}, {AUG_RESIZE_LINEAR, 0}, {AUG_RESIZE_LINEAR, 1},
                              {AUG_RESIZE_AREA, 0}};

/* A pattern image on the CPU and its copy on cuda:0. */
static void pair(ph_run *r, int ndim, const int64_t *shape, aug_dtype t, uint64_t seed, const char *layout, aug_tensor **cpu,
                 aug_tensor **gpu) {
    *cpu = aug_tensor_empty(ndim, shape, t, CPU);
    assert_non_null(*cpu);
    th_fill_pattern(*cpu, seed);
    if (layout) assert_int_equal(aug_tensor_set_layout(*cpu, layout), AUG_OK);
    *gpu = aug_tensor_to(*cpu, ph_dev(r));
    assert_non_null(*gpu);
    if (layout) assert_int_equal(aug_tensor_set_layout(*gpu, layout), AUG_OK);
    ph_inputs(r, 1, (const aug_tensor *const *)cpu);
}

static void same(ph_run *r, const char *what, const aug_tensor *a, const aug_tensor *b) {
    assert_string_equal(a->layout, b->layout);
    ph_check(r, what, a, b);
}

/* One resize on both backends (into a new tensor, or into an `odt` output). */
static void check(ph_run *r, const char *layout, int ndim, const int64_t *shape, aug_dtype t, int64_t h, int64_t w, mode m,
                  aug_dtype odt) {
    char what[160];
    snprintf(what, sizeof what, "resize %s %s (%lld x %lld) -> %s %lldx%lld interp %d aa %d", layout ? layout : "-",
             aug_dtype_name(t), (long long)shape[0], (long long)shape[1], aug_dtype_name(odt), (long long)h,
             (long long)w, (int)m.interp, m.aa);
    aug_tensor *a, *g, *ra = NULL, *rg = NULL;
    pair(r, ndim, shape, t, (uint64_t)t * 7 + (uint64_t)h, layout, &a, &g);
    if (odt != t) {
        aug_tensor *probe = NULL;
        assert_int_equal(aug_resize(a, layout, h, w, AUG_RESIZE_NEAREST, 0, &probe), AUG_OK);
        ra = aug_tensor_empty(probe->ndim, probe->shape, odt, CPU);
        rg = aug_tensor_empty(probe->ndim, probe->shape, odt, ph_dev(r));
        aug_tensor_free(probe);
    }
    if (aug_resize(a, layout, h, w, m.interp, m.aa, &ra) != AUG_OK) fail_msg("%s: %s", what, aug_last_error());
    if (aug_resize(g, layout, h, w, m.interp, m.aa, &rg) != AUG_OK) fail_msg("%s: %s", what, aug_last_error());
    same(r, what, ra, rg);
    aug_tensor_free(a), aug_tensor_free(g), aug_tensor_free(ra), aug_tensor_free(rg);
}

static void run_every_dtype(ph_run *r, const ph_case *c) {
    (void)c;
    const int64_t sizes[][4] = {{7, 63, 65, 1}, {63, 65, 7, 7}, {13, 17, 40, 9}, {1, 1, 3, 5}, {24, 40, 9, 15}};
    for (int k = 0; k < 13; k++)
        for (int mi = 0; mi < 4; mi++)
            for (int s = 0; s < 5; s++) {
                const int64_t shape[3] = {sizes[s][0], sizes[s][1], 3};
                check(r, "HWC", 3, shape, ALL[k], sizes[s][2], sizes[s][3], MODES[mi], ALL[k]);
            }
    for (int k = 0; k < 16; k++) { /* random sizes, up or down in each direction */
        const int64_t shape[3] = {ph_range(r, 1, 70), ph_range(r, 1, 70), ph_range(r, 1, 4)};
        check(r, "HWC", 3, shape, ALL[ph_range(r, 0, 12)], ph_range(r, 1, 70), ph_range(r, 1, 70),
              MODES[ph_range(r, 0, 3)], ALL[ph_range(r, 0, 12)]);
    }
}

static void run_layouts_and_out_dtypes(ph_run *r, const ph_case *c) {
    (void)c;
    const int64_t chw[3] = {2, 19, 23}, nchw[4] = {3, 2, 19, 23}, nhwc[4] = {3, 19, 23, 4}, hw[2] = {19, 23};
    for (int mi = 0; mi < 4; mi++) {
        check(r, "CHW", 3, chw, AUG_UINT8, 10, 31, MODES[mi], AUG_UINT8);
        check(r, NULL, 4, nchw, AUG_FLOAT32, 10, 31, MODES[mi], AUG_FLOAT32);
        check(r, "NHWC", 4, nhwc, AUG_INT16, 8, 11, MODES[mi], AUG_INT16);
        check(r, NULL, 2, hw, AUG_UINT16, 40, 5, MODES[mi], AUG_UINT16);
        const int64_t hwc[3] = {19, 23, 3};
        check(r, "HWC", 3, hwc, AUG_UINT8, 10, 31, MODES[mi], AUG_FLOAT32);
        check(r, "HWC", 3, hwc, AUG_UINT8, 10, 31, MODES[mi], AUG_FLOAT64);
        check(r, "HWC", 3, hwc, AUG_FLOAT64, 10, 31, MODES[mi], AUG_INT8);
        check(r, "HWC", 3, hwc, AUG_INT64, 10, 31, MODES[mi], AUG_FLOAT16);
    }
}

/* Flipped and cropped views resize on both backends like their copies. */
static void run_views(ph_run *r, const ph_case *c) {
    (void)c;
    const int64_t shape[3] = {30, 41, 3};
    aug_tensor *a, *g;
    pair(r, 3, shape, AUG_FLOAT32, 3, "HWC", &a, &g);
    for (int mi = 0; mi < 4; mi++) {
        aug_tensor *va = aug_flip(a, NULL, 1, 1), *vg = aug_flip(g, NULL, 1, 1);
        aug_tensor *ca = aug_crop(va, NULL, 3, 4, 20, 30), *cg = aug_crop(vg, NULL, 3, 4, 20, 30);
        assert_non_null(ca), assert_non_null(cg);
        assert_true(ca->strides[0] < 0 && ca->strides[1] < 0);
        aug_tensor *copy = aug_tensor_contiguous(ca), *ra = NULL, *rg = NULL, *rc = NULL;
        assert_int_equal(aug_resize(ca, NULL, 13, 9, MODES[mi].interp, MODES[mi].aa, &ra), AUG_OK);
        assert_int_equal(aug_resize(cg, NULL, 13, 9, MODES[mi].interp, MODES[mi].aa, &rg), AUG_OK);
        assert_int_equal(aug_resize(copy, NULL, 13, 9, MODES[mi].interp, MODES[mi].aa, &rc), AUG_OK);
        same(r, "resize of a flipped crop", ra, rg);
        same(r, "resize of a flipped crop's copy", rc, rg);
        aug_tensor_free(va), aug_tensor_free(vg), aug_tensor_free(ca), aug_tensor_free(cg);
        aug_tensor_free(copy), aug_tensor_free(ra), aug_tensor_free(rg), aug_tensor_free(rc);
    }
    aug_tensor_free(a), aug_tensor_free(g);
}

static void run_batch(ph_run *r, const ph_case *c) {
    (void)c;
    const int64_t sizes[4][2] = {{7, 9}, {65, 63}, {7, 9}, {1, 100}};
    aug_tensor *a[4], *g[4];
    for (int i = 0; i < 4; i++) {
        const int64_t shape[3] = {sizes[i][0], sizes[i][1], 3};
        pair(r, 3, shape, AUG_UINT8, (uint64_t)i, "HWC", &a[i], &g[i]);
    }
    const char *layouts[2] = {"NCHW", "NHWC"};
    for (int l = 0; l < 2; l++)
        for (int mi = 0; mi < 4; mi++) {
            const int64_t nchw[4] = {4, 3, 16, 24}, nhwc[4] = {4, 16, 24, 3};
            const int64_t *shape = l ? nhwc : nchw;
            aug_tensor *da = aug_tensor_zeros(4, shape, AUG_FLOAT32, CPU), *dg = aug_tensor_zeros(4, shape, AUG_FLOAT32, ph_dev(r));
            assert_int_equal(aug_resize_batch(4, (const aug_tensor *const *)a, NULL, da, layouts[l], MODES[mi].interp,
                                              MODES[mi].aa), AUG_OK);
            assert_int_equal(aug_resize_batch(4, (const aug_tensor *const *)g, NULL, dg, layouts[l], MODES[mi].interp,
                                              MODES[mi].aa), AUG_OK);
            assert_string_equal(da->layout, layouts[l]);
            same(r, "resize_batch", da, dg);
            aug_tensor_free(da), aug_tensor_free(dg);
        }
    for (int i = 0; i < 4; i++) aug_tensor_free(a[i]), aug_tensor_free(g[i]);
}

static void run_flip_batch_and_center_crop(ph_run *r, const ph_case *c) {
    (void)c;
    const int64_t shape[4] = {4, 3, 5, 6};
    aug_tensor *a, *g, *ra = NULL, *rg = NULL;
    pair(r, 4, shape, AUG_INT16, 9, "NCHW", &a, &g);
    const uint8_t flags[4] = {1, 0, 1, 0};
    assert_int_equal(aug_flip_batch(a, NULL, flags, 4, 1, 1, &ra), AUG_OK);
    assert_int_equal(aug_flip_batch(g, NULL, flags, 4, 1, 1, &rg), AUG_OK);
    same(r, "flip_batch", ra, rg);
    assert_int_equal(aug_flip_batch(g, NULL, flags, 4, 1, 1, &g), AUG_OK); /* in place */
    same(r, "flip_batch in place", ra, g);
    aug_tensor *ca = aug_center_crop(a, NULL, 8, 3), *cg = aug_center_crop(g, NULL, 8, 3);
    assert_non_null(ca), assert_non_null(cg);
    assert_int_equal(ca->shape[2], 8), assert_int_equal(ca->shape[3], 3);
    aug_tensor_free(ca), aug_tensor_free(cg);
    aug_tensor_free(a), aug_tensor_free(g), aug_tensor_free(ra), aug_tensor_free(rg);
}

static const ph_case CASES[] = {
    {"resize/every-dtype", AUG__FAMILY_RESIZE, -1, PH_DTYPES_ALL, 0, 3, NULL, PH_BOUND_EXACT, run_every_dtype},
    {"resize/layouts+out-dtypes", AUG__FAMILY_RESIZE, -1, PH_DTYPES_ALL, 0, 4, NULL, PH_BOUND_EXACT,
     run_layouts_and_out_dtypes},
    {"resize/views", AUG__FAMILY_RESIZE, -1, 1u << AUG_FLOAT32, 0, 3, NULL, PH_BOUND_EXACT, run_views},
    {"resize/batch", AUG__FAMILY_RESIZE, -1, 1u << AUG_UINT8, 0, 4, NULL, PH_BOUND_EXACT, run_batch},
    /* flip_batch copies reversed views (the elementwise copy); center_crop is a view */
    {"elementwise/flip_batch", AUG__FAMILY_ELEMENTWISE, -1, 1u << AUG_INT16, 0, 4, NULL, PH_BOUND_EXACT,
     run_flip_batch_and_center_crop},
};
const ph_case_list ph_cases_resize = {CASES, sizeof CASES / sizeof CASES[0]};
