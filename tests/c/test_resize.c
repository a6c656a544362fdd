/* test_resize.c: aug_resize / aug_resize_batch and the flip / crop views on
 * the CUDA backend against the CPU backend, byte for byte (the two evaluate
 * the same float / double sums in the same order, docs/resize.md): every
 * dtype, every interpolation, up- and downscaling with odd sizes, every layout,
 * strided (flipped, cropped) inputs, outputs of another dtype, batches of
 * images of different sizes; and the C API's errors. tests/python/test_resize.py
 * checks the values against a NumPy reference, cv2 and Pillow.
 *
 * Runs on the emulated CUDA devices (ctest sets AUG_CUDA_BACKEND=emu) or a real
 * GPU; without a CUDA device the parity tests skip unless AUG_REQUIRE_CUDA=1. */
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

typedef struct mode {
    aug_resize_interp interp;
    int aa;
} mode;
static const mode MODES[4] = {{AUG_RESIZE_NEAREST, 0}, {AUG_RESIZE_LINEAR, 0}, {AUG_RESIZE_LINEAR, 1},
                              {AUG_RESIZE_AREA, 0}};

/* A pattern image on the CPU and its copy on cuda:0. */
static void pair(int ndim, const int64_t *shape, aug_dtype t, uint64_t seed, const char *layout, aug_tensor **cpu,
                 aug_tensor **gpu) {
    *cpu = aug_tensor_empty(ndim, shape, t, CPU);
    assert_non_null(*cpu);
    th_fill_pattern(*cpu, seed);
    if (layout) assert_int_equal(aug_tensor_set_layout(*cpu, layout), AUG_OK);
    *gpu = aug_tensor_to(*cpu, TH_CUDA0);
    assert_non_null(*gpu);
    if (layout) assert_int_equal(aug_tensor_set_layout(*gpu, layout), AUG_OK);
}

static void same(const char *what, const aug_tensor *a, const aug_tensor *b) {
    assert_int_equal(a->ndim, b->ndim);
    for (int d = 0; d < a->ndim; d++) assert_int_equal(a->shape[d], b->shape[d]);
    assert_int_equal(a->dtype, b->dtype);
    assert_string_equal(a->layout, b->layout);
    size_t na, nb;
    unsigned char *x = th_bytes_of(a, &na), *y = th_bytes_of(b, &nb);
    assert_int_equal(na, nb);
    th_compare(what, a->dtype, x, y, na, 0);
    free(x), free(y);
}

/* One resize on both backends (into a new tensor, or into an `odt` output). */
static void check(const char *layout, int ndim, const int64_t *shape, aug_dtype t, int64_t h, int64_t w, mode m,
                  aug_dtype odt) {
    char what[160];
    snprintf(what, sizeof what, "resize %s %s (%lld x %lld) -> %s %lldx%lld interp %d aa %d", layout ? layout : "-",
             aug_dtype_name(t), (long long)shape[0], (long long)shape[1], aug_dtype_name(odt), (long long)h,
             (long long)w, (int)m.interp, m.aa);
    aug_tensor *a, *g, *ra = NULL, *rg = NULL;
    pair(ndim, shape, t, (uint64_t)t * 7 + (uint64_t)h, layout, &a, &g);
    if (odt != t) {
        aug_tensor *probe = NULL;
        assert_int_equal(aug_resize(a, layout, h, w, AUG_RESIZE_NEAREST, 0, &probe), AUG_OK);
        ra = aug_tensor_empty(probe->ndim, probe->shape, odt, CPU);
        rg = aug_tensor_empty(probe->ndim, probe->shape, odt, TH_CUDA0);
        aug_tensor_free(probe);
    }
    if (aug_resize(a, layout, h, w, m.interp, m.aa, &ra) != AUG_OK) fail_msg("%s: %s", what, aug_last_error());
    if (aug_resize(g, layout, h, w, m.interp, m.aa, &rg) != AUG_OK) fail_msg("%s: %s", what, aug_last_error());
    same(what, ra, rg);
    aug_tensor_free(a), aug_tensor_free(g), aug_tensor_free(ra), aug_tensor_free(rg);
}

static void test_every_dtype(void **state) {
    (void)state;
    NEED_CUDA();
    const int64_t sizes[][4] = {{7, 63, 65, 1}, {63, 65, 7, 7}, {13, 17, 40, 9}, {1, 1, 3, 5}, {24, 40, 9, 15}};
    for (int k = 0; k < 13; k++)
        for (int mi = 0; mi < 4; mi++)
            for (int s = 0; s < 5; s++) {
                const int64_t shape[3] = {sizes[s][0], sizes[s][1], 3};
                check("HWC", 3, shape, ALL[k], sizes[s][2], sizes[s][3], MODES[mi], ALL[k]);
            }
}

static void test_layouts_and_out_dtypes(void **state) {
    (void)state;
    NEED_CUDA();
    const int64_t chw[3] = {2, 19, 23}, nchw[4] = {3, 2, 19, 23}, nhwc[4] = {3, 19, 23, 4}, hw[2] = {19, 23};
    for (int mi = 0; mi < 4; mi++) {
        check("CHW", 3, chw, AUG_UINT8, 10, 31, MODES[mi], AUG_UINT8);
        check(NULL, 4, nchw, AUG_FLOAT32, 10, 31, MODES[mi], AUG_FLOAT32);
        check("NHWC", 4, nhwc, AUG_INT16, 8, 11, MODES[mi], AUG_INT16);
        check(NULL, 2, hw, AUG_UINT16, 40, 5, MODES[mi], AUG_UINT16);
        const int64_t hwc[3] = {19, 23, 3};
        check("HWC", 3, hwc, AUG_UINT8, 10, 31, MODES[mi], AUG_FLOAT32);
        check("HWC", 3, hwc, AUG_UINT8, 10, 31, MODES[mi], AUG_FLOAT64);
        check("HWC", 3, hwc, AUG_FLOAT64, 10, 31, MODES[mi], AUG_INT8);
        check("HWC", 3, hwc, AUG_INT64, 10, 31, MODES[mi], AUG_FLOAT16);
    }
}

/* Flipped and cropped views resize on both backends like their copies. */
static void test_views(void **state) {
    (void)state;
    NEED_CUDA();
    const int64_t shape[3] = {30, 41, 3};
    aug_tensor *a, *g;
    pair(3, shape, AUG_FLOAT32, 3, "HWC", &a, &g);
    for (int mi = 0; mi < 4; mi++) {
        aug_tensor *va = aug_flip(a, NULL, 1, 1), *vg = aug_flip(g, NULL, 1, 1);
        aug_tensor *ca = aug_crop(va, NULL, 3, 4, 20, 30), *cg = aug_crop(vg, NULL, 3, 4, 20, 30);
        assert_non_null(ca), assert_non_null(cg);
        assert_true(ca->strides[0] < 0 && ca->strides[1] < 0);
        aug_tensor *copy = aug_tensor_contiguous(ca), *ra = NULL, *rg = NULL, *rc = NULL;
        assert_int_equal(aug_resize(ca, NULL, 13, 9, MODES[mi].interp, MODES[mi].aa, &ra), AUG_OK);
        assert_int_equal(aug_resize(cg, NULL, 13, 9, MODES[mi].interp, MODES[mi].aa, &rg), AUG_OK);
        assert_int_equal(aug_resize(copy, NULL, 13, 9, MODES[mi].interp, MODES[mi].aa, &rc), AUG_OK);
        same("resize of a flipped crop", ra, rg);
        same("resize of a flipped crop vs its copy", ra, rc);
        aug_tensor_free(va), aug_tensor_free(vg), aug_tensor_free(ca), aug_tensor_free(cg);
        aug_tensor_free(copy), aug_tensor_free(ra), aug_tensor_free(rg), aug_tensor_free(rc);
    }
    aug_tensor_free(a), aug_tensor_free(g);
}

static void test_batch(void **state) {
    (void)state;
    NEED_CUDA();
    const int64_t sizes[4][2] = {{7, 9}, {65, 63}, {7, 9}, {1, 100}};
    aug_tensor *a[4], *g[4];
    for (int i = 0; i < 4; i++) {
        const int64_t shape[3] = {sizes[i][0], sizes[i][1], 3};
        pair(3, shape, AUG_UINT8, (uint64_t)i, "HWC", &a[i], &g[i]);
    }
    const char *layouts[2] = {"NCHW", "NHWC"};
    for (int l = 0; l < 2; l++)
        for (int mi = 0; mi < 4; mi++) {
            const int64_t nchw[4] = {4, 3, 16, 24}, nhwc[4] = {4, 16, 24, 3};
            const int64_t *shape = l ? nhwc : nchw;
            aug_tensor *da = aug_tensor_zeros(4, shape, AUG_FLOAT32, CPU), *dg = aug_tensor_zeros(4, shape, AUG_FLOAT32, TH_CUDA0);
            assert_int_equal(aug_resize_batch(4, (const aug_tensor *const *)a, NULL, da, layouts[l], MODES[mi].interp,
                                              MODES[mi].aa), AUG_OK);
            assert_int_equal(aug_resize_batch(4, (const aug_tensor *const *)g, NULL, dg, layouts[l], MODES[mi].interp,
                                              MODES[mi].aa), AUG_OK);
            assert_string_equal(da->layout, layouts[l]);
            same("resize_batch", da, dg);
            aug_tensor_free(da), aug_tensor_free(dg);
        }
    for (int i = 0; i < 4; i++) aug_tensor_free(a[i]), aug_tensor_free(g[i]);
}

static void test_flip_batch_and_center_crop(void **state) {
    (void)state;
    NEED_CUDA();
    const int64_t shape[4] = {4, 3, 5, 6};
    aug_tensor *a, *g, *ra = NULL, *rg = NULL;
    pair(4, shape, AUG_INT16, 9, "NCHW", &a, &g);
    const uint8_t flags[4] = {1, 0, 1, 0};
    assert_int_equal(aug_flip_batch(a, NULL, flags, 4, 1, 1, &ra), AUG_OK);
    assert_int_equal(aug_flip_batch(g, NULL, flags, 4, 1, 1, &rg), AUG_OK);
    same("flip_batch", ra, rg);
    assert_int_equal(aug_flip_batch(g, NULL, flags, 4, 1, 1, &g), AUG_OK); /* in place */
    same("flip_batch in place", ra, g);
    aug_tensor *ca = aug_center_crop(a, NULL, 8, 3), *cg = aug_center_crop(g, NULL, 8, 3);
    assert_non_null(ca), assert_non_null(cg);
    assert_int_equal(ca->shape[2], 8), assert_int_equal(ca->shape[3], 3);
    aug_tensor_free(ca), aug_tensor_free(cg);
    aug_tensor_free(a), aug_tensor_free(g), aug_tensor_free(ra), aug_tensor_free(rg);
}

static void test_errors(void **state) {
    (void)state;
    const int64_t shape[3] = {8, 9, 3};
    aug_tensor *t = aug_tensor_zeros(3, shape, AUG_UINT8, CPU), *r = NULL;
    assert_int_equal(aug_resize(t, NULL, 0, 4, AUG_RESIZE_LINEAR, 1, &r), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_resize: size (0, 4) must be in [1, 2147483647]");
    assert_int_equal(aug_resize(t, NULL, 4, (int64_t)1 << 31, AUG_RESIZE_LINEAR, 1, &r), AUG_ERR_VALUE);
    assert_int_equal(aug_resize(t, NULL, 4, 4, (aug_resize_interp)3, 1, &r), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_resize: interpolation 3 is not an aug_interp (linear, nearest, area)");
    assert_int_equal(aug_resize(t, "CHW", 4, 4, AUG_RESIZE_LINEAR, 1, &r), AUG_OK); /* no layout: the argument's */
    assert_string_equal(r->layout, "CHW");
    assert_int_equal(r->shape[0], 8), assert_int_equal(r->shape[1], 4), assert_int_equal(r->shape[2], 4);
    aug_tensor_free(r), r = NULL;
    assert_int_equal(aug_tensor_set_layout(t, "HWC"), AUG_OK);
    assert_int_equal(aug_resize(t, "CHW", 4, 4, AUG_RESIZE_LINEAR, 1, &r), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_resize: layout 'CHW' was given but the tensor's layout is 'HWC'");
    assert_int_equal(aug_resize(t, NULL, 4, 4, AUG_RESIZE_LINEAR, 1, NULL), AUG_ERR_VALUE);
    assert_int_equal(aug_resize(NULL, NULL, 4, 4, AUG_RESIZE_LINEAR, 1, &r), AUG_ERR_VALUE);
    assert_null(r);
    assert_null(aug_crop(t, NULL, 5, 0, 5, 9));
    assert_string_equal(aug_last_error(), "aug_crop: crop (y=5, x=0, h=5, w=9) does not fit the image (H=8, W=9): "
                                          "y, x >= 0, h, w >= 1, y + h <= H, x + w <= W");
    assert_null(aug_center_crop(t, NULL, 0, 3));
    assert_string_equal(aug_last_error(), "aug_center_crop: size (h=0, w=3) must be >= 1");
    assert_null(aug_flip(t, "NHWC", 1, 0));
    assert_string_equal(aug_last_error(), "aug_flip: layout 'NHWC' was given but the tensor's layout is 'HWC'");
    int64_t oh, ow;
    assert_int_equal(aug_resize_shorter_side(333, 500, 224, &oh, &ow), AUG_OK);
    assert_int_equal(oh, 224), assert_int_equal(ow, 336);
    assert_int_equal(aug_resize_shorter_side(333, 500, 0, &oh, &ow), AUG_ERR_VALUE);
    const aug_tensor *one[1] = {t};
    const int64_t dshape[4] = {2, 3, 4, 4};
    aug_tensor *d = aug_tensor_zeros(4, dshape, AUG_UINT8, CPU);
    assert_int_equal(aug_resize_batch(1, one, NULL, d, NULL, AUG_RESIZE_AREA, 0), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(),
                        "aug_resize_batch: dst holds 2 images (shape (2, 3, 4, 4)) but 1 source images were given");
    assert_int_equal(aug_resize_batch(0, one, NULL, d, NULL, AUG_RESIZE_AREA, 0), AUG_ERR_VALUE);
    aug_tensor_free(d), aug_tensor_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_dtype),
        cmocka_unit_test(test_layouts_and_out_dtypes),
        cmocka_unit_test(test_views),
        cmocka_unit_test(test_batch),
        cmocka_unit_test(test_flip_batch_and_center_crop),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
