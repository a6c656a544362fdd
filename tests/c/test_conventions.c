/* test_conventions.c: the conventions every image op shares (aug/conventions.h,
 * docs/semantics.md "Conventions of image ops"): the one interpolation
 * vocabulary and its old spellings (aug_warp_interp, aug_resize_interp and their
 * constants), the message of an op that lacks a mode, and the layout check. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "aug/aug.h"

static void expect_error(aug_status st, aug_status want, const char *needle) {
    assert_int_equal(st, want);
    if (!strstr(aug_last_error(), needle)) fail_msg("message \"%s\" lacks \"%s\"", aug_last_error(), needle);
}

static aug_tensor *mk(int ndim, const int64_t *shape) {
    aug_tensor *t = aug_tensor_empty(ndim, shape, AUG_UINT8, aug_cpu_device());
    assert_non_null(t);
    memset(aug_tensor_ptr(t), 7, (size_t)aug_tensor_size(t));
    return t;
}

/* Every name and alias, any case; the canonical names back; unknown names. */
static void test_interp_names(void **state) {
    (void)state;
    static const struct {
        const char *name;
        aug_interp mode;
    } names[] = {{"linear", AUG_INTERP_LINEAR},       {"Bilinear", AUG_INTERP_LINEAR},
                 {"INTER_LINEAR", AUG_INTERP_LINEAR}, {"nearest", AUG_INTERP_NEAREST},
                 {"inter_nearest", AUG_INTERP_NEAREST}, {"AREA", AUG_INTERP_AREA},
                 {"inter_area", AUG_INTERP_AREA},     {"cubic", AUG_INTERP_CUBIC},
                 {"BiCubic", AUG_INTERP_CUBIC},       {"inter_cubic", AUG_INTERP_CUBIC}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        aug_interp m = (aug_interp)99;
        assert_int_equal(aug_interp_from_name("f", names[i].name, &m), AUG_OK);
        assert_int_equal(m, names[i].mode);
    }
    assert_string_equal(aug_interp_name(AUG_INTERP_LINEAR), "linear");
    assert_string_equal(aug_interp_name(AUG_INTERP_NEAREST), "nearest");
    assert_string_equal(aug_interp_name(AUG_INTERP_AREA), "area");
    assert_string_equal(aug_interp_name(AUG_INTERP_CUBIC), "cubic");
    assert_null(aug_interp_name((aug_interp)5));
    aug_interp m = AUG_INTERP_AREA;
    expect_error(aug_interp_from_name("f", "lanczos", &m), AUG_ERR_VALUE,
                 "f: unknown interpolation 'lanczos' (expected 'linear', 'nearest', 'area' or 'cubic')");
    assert_int_equal(m, AUG_INTERP_AREA); /* untouched */
    expect_error(aug_interp_from_name(NULL, NULL, &m), AUG_ERR_VALUE, "aug_interp_from_name: interpolation is NULL");
}

/* The old spellings compile and are the same type and values. */
static void test_interp_old_spellings(void **state) {
    (void)state;
    aug_warp_interp w = AUG_WARP_LINEAR;
    aug_resize_interp r = AUG_RESIZE_AREA;
    aug_interp u = w;
    assert_int_equal(u, AUG_INTERP_LINEAR);
    assert_int_equal(AUG_WARP_NEAREST, AUG_INTERP_NEAREST);
    assert_int_equal(AUG_RESIZE_NEAREST, AUG_INTERP_NEAREST);
    assert_int_equal(AUG_RESIZE_LINEAR, AUG_INTERP_LINEAR);
    assert_int_equal(r, AUG_INTERP_AREA);
    /* the default of the warp options is linear, and zero is linear */
    assert_int_equal(aug_warp_options_default().interpolation, AUG_INTERP_LINEAR);
    assert_int_equal(AUG_INTERP_LINEAR, 0);
    assert_int_equal(aug_warp_interp_from_name(NULL, "bilinear", &w), AUG_OK);
    assert_int_equal(w, AUG_INTERP_LINEAR);
    assert_int_equal(aug_warp_interp_from_name(NULL, "inter_area", &w), AUG_OK);
    assert_int_equal(w, AUG_INTERP_AREA);
}

/* An op that lacks a mode names the op, the mode and the modes it takes; the
 * resize takes all three under either spelling. */
static void test_interp_unsupported(void **state) {
    (void)state;
    int64_t s3[3] = {6, 5, 3}, d3[3] = {3, 4, 4};
    aug_tensor *src = mk(3, s3), *dst = mk(3, d3), *r = NULL;
    static const float ID[6] = {1, 0, 0, 0, 1, 0};
    aug_warp_options o = aug_warp_options_default();
    o.interpolation = AUG_INTERP_AREA;
    expect_error(aug_warp_affine_ex(src, dst, ID, NULL, 1, &o), AUG_ERR_VALUE,
                 "aug_warp_affine_ex: interpolation 'area' is not supported (linear, nearest, cubic)");
    o.interpolation = AUG_INTERP_NEAREST;
    assert_int_equal(aug_warp_affine_ex(src, dst, ID, NULL, 1, &o), AUG_OK);
    expect_error(aug_resize(src, NULL, 3, 3, (aug_interp)9, 0, &r), AUG_ERR_VALUE,
                 "aug_resize: interpolation 9 is not an aug_interp (linear, nearest, area)");
    expect_error(aug_resize(src, NULL, 3, 3, AUG_INTERP_CUBIC, 0, &r), AUG_ERR_VALUE,
                 "aug_resize: interpolation 'cubic' is not supported (linear, nearest, area)");
    aug_tensor *a = NULL, *b = NULL;
    assert_int_equal(aug_resize(src, NULL, 3, 2, AUG_RESIZE_AREA, 0, &a), AUG_OK);
    assert_int_equal(aug_resize(src, NULL, 3, 2, AUG_INTERP_AREA, 0, &b), AUG_OK);
    assert_memory_equal(aug_tensor_ptr(a), aug_tensor_ptr(b), 3 * 2 * 3);
    aug_tensor_free(a), aug_tensor_free(b);
    aug_tensor_free(src), aug_tensor_free(dst);
}

/* aug_layout_check: the list, the message, no layout passes. */
static void test_layout_check(void **state) {
    (void)state;
    assert_int_equal(aug_layout_check("f", NULL, "CHW", "NCHW,CHW"), AUG_OK);
    assert_int_equal(aug_layout_check("f", NULL, "NCHW", "NCHW,CHW"), AUG_OK);
    assert_int_equal(aug_layout_check("f", NULL, NULL, "NCHW,CHW"), AUG_OK);
    assert_int_equal(aug_layout_check("f", NULL, "", "NCHW"), AUG_OK);
    expect_error(aug_layout_check("f", NULL, "NHWC", "NCHW,CHW"), AUG_ERR_VALUE,
                 "f: layout 'NHWC' is not supported (NCHW, CHW)");
    expect_error(aug_layout_check("g", "out_layout", "NCH", "NCHW,NHWC"), AUG_ERR_VALUE,
                 "g: out_layout 'NCH' is not supported (NCHW, NHWC)");
}

/* The warp's and crop_mirror_normalize's layout strings equal their old enum /
 * flag spellings; a bad string names the field. */
static void test_layout_strings(void **state) {
    (void)state;
    int64_t s3[3] = {3, 6, 5}, d3[3] = {4, 4, 3};
    aug_tensor *src = mk(3, s3);
    for (int64_t k = 0; k < aug_tensor_size(src); k++) ((uint8_t *)aug_tensor_ptr(src))[k] = (uint8_t)(k * 7);
    aug_tensor *a = mk(3, d3), *b = mk(3, d3);
    static const float M[6] = {1, 0, 0.5f, 0, 1, 0.25f};
    aug_warp_options o = aug_warp_options_default();
    o.src_layout = AUG_WARP_LAYOUT_CHW, o.dst_layout = AUG_WARP_LAYOUT_HWC;
    assert_int_equal(aug_warp_affine_ex(src, a, M, NULL, 2, &o), AUG_OK);
    o = aug_warp_options_default();
    o.layout = "CHW", o.out_layout = "HWC";
    assert_int_equal(aug_warp_affine_ex(src, b, M, NULL, 2, &o), AUG_OK);
    assert_memory_equal(aug_tensor_ptr(a), aug_tensor_ptr(b), 4 * 4 * 3);
    assert_string_equal(b->layout, "HWC");
    o.out_layout = "NHWC";
    expect_error(aug_warp_affine_ex(src, b, M, NULL, 2, &o), AUG_ERR_VALUE,
                 "aug_warp_affine_ex: out_layout 'NHWC' is not supported (CHW, HWC)");
    o.out_layout = NULL, o.layout = "HCW";
    expect_error(aug_warp_affine_ex(src, b, M, NULL, 2, &o), AUG_ERR_VALUE,
                 "aug_warp_affine_ex: layout 'HCW' is not supported (HWC, CHW, NHWC, NCHW)");

    aug_cmn_params p = aug_cmn_params_default();
    aug_tensor *x = NULL, *y = NULL;
    p.in_chw = 1, p.out_nhwc = 1;
    assert_int_equal(aug_crop_mirror_normalize(src, AUG_FLOAT32, &p, &x), AUG_OK);
    p = aug_cmn_params_default();
    p.layout = "CHW", p.out_layout = "HWC";
    assert_int_equal(aug_crop_mirror_normalize(src, AUG_FLOAT32, &p, &y), AUG_OK);
    assert_memory_equal(aug_tensor_ptr(x), aug_tensor_ptr(y), 3 * 6 * 5 * sizeof(float));
    assert_string_equal(y->layout, "HWC");
    aug_tensor_free(y), y = NULL;
    p.layout = "NCWH";
    expect_error(aug_crop_mirror_normalize(src, AUG_FLOAT32, &p, &y), AUG_ERR_VALUE,
                 "aug_crop_mirror_normalize: layout 'NCWH' is not supported (HWC, CHW)");
    /* a tensor labelled "CHW" is read as CHW when neither spelling says */
    p = aug_cmn_params_default();
    p.out_nhwc = 1;
    assert_int_equal(aug_tensor_set_layout(src, "CHW"), AUG_OK);
    assert_int_equal(aug_crop_mirror_normalize(src, AUG_FLOAT32, &p, &y), AUG_OK);
    assert_memory_equal(aug_tensor_ptr(x), aug_tensor_ptr(y), 3 * 6 * 5 * sizeof(float));
    aug_tensor_free(x), aug_tensor_free(y);
    aug_tensor_free(src), aug_tensor_free(a), aug_tensor_free(b);
}

/* The channels-first ops refuse a tensor labelled otherwise, with the one message. */
static void test_channels_first_only(void **state) {
    (void)state;
    int64_t s3[3] = {6, 5, 3};
    aug_tensor *t = mk(3, s3), *r = NULL;
    assert_int_equal(aug_tensor_set_layout(t, "HWC"), AUG_OK);
    expect_error(aug_adjust_brightness(t, 1.5, &r), AUG_ERR_VALUE,
                 "aug_adjust_brightness: layout 'HWC' is not supported (NCHW, CHW)");
    expect_error(aug_box_blur_single(t, 3, &r), AUG_ERR_VALUE, "layout 'HWC' is not supported (NCHW, CHW)");
    assert_int_equal(aug_tensor_set_layout(t, ""), AUG_OK);
    assert_int_equal(aug_box_blur_single(t, 3, &r), AUG_OK); /* unlabelled: read as CHW */
    aug_tensor_free(r), aug_tensor_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interp_names),       cmocka_unit_test(test_interp_old_spellings),
        cmocka_unit_test(test_interp_unsupported), cmocka_unit_test(test_layout_check),
        cmocka_unit_test(test_layout_strings),     cmocka_unit_test(test_channels_first_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
