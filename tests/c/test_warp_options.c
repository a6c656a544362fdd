/* test_warp_options.c: aug_warp_affine_ex / aug_warp_affine_batch_ex and
 * aug_warp_options (docs/warp.md): the border index rule written out by hand,
 * the AVX2 and portable CPU kernels agreeing byte for byte with every border and
 * both output layouts, the defaults equal to aug_warp_affine, nearest copying
 * 64-bit values exactly, replicate far outside giving the edge pixel, CHW and HW
 * sources, and every error path of the options. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "aug/aug.h"
#include "cpu/simd.h"
#include "core/warp.h"
#include "cpu/cpu.h"
#include "scalar/warp.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double urand(double lo, double hi) { return lo + (hi - lo) * (double)(rnd() >> 11) * 0x1p-53; }

static aug_tensor *mk(aug_dtype dt, int ndim, const int64_t *shape) {
    aug_tensor *t = aug_tensor_empty(ndim, shape, dt, aug_cpu_device());
    assert_non_null(t);
    return t;
}

static aug_tensor *random_image(aug_dtype dt, int ndim, const int64_t *shape) {
    aug_tensor *t = mk(dt, ndim, shape);
    int64_t n = aug_tensor_size(t);
    if (dt == AUG_UINT8)
        for (int64_t k = 0; k < n; k++) ((uint8_t *)aug_tensor_ptr(t))[k] = (uint8_t)rnd();
    else if (dt == AUG_FLOAT32)
        for (int64_t k = 0; k < n; k++) ((float *)aug_tensor_ptr(t))[k] = (float)urand(-100, 100);
    else if (dt == AUG_INT64)
        for (int64_t k = 0; k < n; k++) ((int64_t *)aug_tensor_ptr(t))[k] = (int64_t)rnd();
    return t;
}

static void expect_error(aug_status st, aug_status want, const char *needle) {
    assert_int_equal(st, want);
    if (!strstr(aug_last_error(), needle)) fail_msg("message \"%s\" lacks \"%s\"", aug_last_error(), needle);
}

static const float IDENTITY[6] = {1, 0, 0, 0, 1, 0};

/* The border rule on a side of 4 pixels for positions -9 .. 12, and 1 pixel. */
static void test_border_index(void **state) {
    (void)state;
    static const int64_t rep[22] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3};
    static const int64_t r101[22] = {3, 2, 1, 0, 1, 2, 3, 2, 1, 0, 1, 2, 3, 2, 1, 0, 1, 2, 3, 2, 1, 0};
    static const int64_t sym[22] = {0, 0, 1, 2, 3, 3, 2, 1, 0, 0, 1, 2, 3, 3, 2, 1, 0, 0, 1, 2, 3, 3};
    for (int64_t i = -9; i <= 12; i++) {
        int k = (int)(i + 9);
        assert_int_equal(aug__warp_index(i, 4, AUG__WB_CONSTANT), i >= 0 && i < 4 ? i : -1);
        assert_int_equal(aug__warp_index(i, 4, AUG__WB_REPLICATE), rep[k]);
        assert_int_equal(aug__warp_index(i, 4, AUG__WB_REFLECT), r101[k]);
        assert_int_equal(aug__warp_index(i, 4, AUG__WB_SYMMETRIC), sym[k]);
        for (int b = 1; b < 4; b++) assert_int_equal(aug__warp_index(i, 1, b), 0);
    }
    /* bound: clamps, or reduces by the period keeping the fraction */
    assert_true(aug__warp_bound(-100.25, 4, AUG__WB_REPLICATE) == -2.0);
    assert_true(aug__warp_bound(100.25, 4, AUG__WB_CONSTANT) == 5.0);
    assert_true(aug__warp_bound(6000.25, 4, AUG__WB_REFLECT) == 0.25);  /* period 6 */
    assert_true(aug__warp_bound(-6000.75, 4, AUG__WB_REFLECT) == -0.75); /* kept: >= -2 */
    assert_true(aug__warp_bound(-6003.25, 4, AUG__WB_REFLECT) == 2.75);  /* -3.25 + 6 */
    assert_true(aug__warp_bound(-1.75, 4, AUG__WB_SYMMETRIC) == -1.75);
    assert_true(aug__warp_bound(-2.25, 4, AUG__WB_SYMMETRIC) == 5.75);  /* period 8 */
}

/* AVX2 and portable kernels: equal bytes for uint8 (fixed point) and float32
 * sources, every border, CHW and HWC outputs, s = 1..3, bilinear and nearest. */
static void test_simd_options_agree(void **state) {
    (void)state;
    if (aug__simd_cpu_level() < AUG__SIMD_AVX2) skip();
    for (int it = 0; it < 192; it++) {
        aug_dtype sdt = it % 2 ? AUG_FLOAT32 : AUG_UINT8;
        int border = (it / 2) % 4, hwc = (it / 8) % 2, ss = 1 + it % 3;
        int64_t C = 1 + (int64_t)(rnd() % 4), H = 2 + (int64_t)(rnd() % 60), W = 2 + (int64_t)(rnd() % 60);
        int64_t Ht = 1 + (int64_t)(rnd() % 40), Wt = 1 + (int64_t)(rnd() % 90);
        int64_t sshape[3] = {H, W, C}, cshape[4] = {1, C, Ht, Wt}, hshape[4] = {1, Ht, Wt, C};
        aug_tensor *src = random_image(sdt, 3, sshape);
        aug_tensor *da = mk(sdt, 4, hwc ? hshape : cshape), *db = mk(sdt, 4, hwc ? hshape : cshape);
        aug_tensor *va = da, *vb = db;
        if (hwc) {
            int perm[4] = {0, 3, 1, 2};
            va = aug_tensor_permute(da, perm), vb = aug_tensor_permute(db, perm);
        }
        aug_affine_params p = aug_affine_params_default();
        p.angle = urand(-180, 180), p.scale = urand(0.2, 3), p.shearx = urand(-0.3, 0.3);
        p.hmirror = (int)(rnd() & 1), p.shifty = urand(-1, 1);
        float m[6];
        assert_int_equal(aug_make_affine_matrix(m, H, W, Ht, Wt, &p, NULL), AUG_OK);
        double bg[4] = {(double)(rnd() & 0xff), 3, 250, 0};
        const aug_tensor *srcs[1] = {src};
        aug__warp_plan plan = {.func = "test", .n = 1, .src = srcs, .dst = va, .channels = C, .height = Ht,
                               .width = Wt, .matrices = m, .supersampling = &ss, .background = bg,
                               .interp = (it / 16) % 3 == 2 ? AUG_WARP_NEAREST : AUG_WARP_LINEAR, .border = border};
        assert_int_equal(aug__cpu_warp_affine_level(&plan, AUG__SIMD_NONE), AUG_OK);
        plan.dst = vb;
        assert_int_equal(aug__cpu_warp_affine_level(&plan, AUG__SIMD_AVX2), AUG_OK);
        if (memcmp(aug_tensor_ptr(da), aug_tensor_ptr(db), (size_t)(aug_tensor_size(da) * aug_tensor_itemsize(da))))
            fail_msg("iteration %d (%s, border %d, hwc %d, s %d, interp %d): AVX2 and portable kernels differ", it,
                     aug_dtype_name(sdt), border, hwc, ss, plan.interp);
        if (hwc) aug_tensor_free(va), aug_tensor_free(vb);
        aug_tensor_free(src), aug_tensor_free(da), aug_tensor_free(db);
    }
}

/* NULL options and the defaults give aug_warp_affine's bytes. */
static void test_defaults_equal_legacy(void **state) {
    (void)state;
    int64_t sshape[3] = {23, 31, 3}, dshape[3] = {3, 17, 19};
    aug_tensor *src = random_image(AUG_UINT8, 3, sshape);
    aug_tensor *a = mk(AUG_UINT8, 3, dshape), *b = mk(AUG_UINT8, 3, dshape), *c = mk(AUG_UINT8, 3, dshape);
    aug_affine_params p = aug_affine_params_default();
    p.angle = 33;
    float m[6];
    int s;
    assert_int_equal(aug_make_affine_matrix(m, 23, 31, 17, 19, &p, &s), AUG_OK);
    aug_warp_options o = aug_warp_options_default();
    assert_int_equal(aug_warp_affine(src, a, m, NULL, 2), AUG_OK);
    assert_int_equal(aug_warp_affine_ex(src, b, m, NULL, 2, NULL), AUG_OK);
    assert_int_equal(aug_warp_affine_ex(src, c, m, NULL, 2, &o), AUG_OK);
    assert_memory_equal(aug_tensor_ptr(a), aug_tensor_ptr(b), 3 * 17 * 19);
    assert_memory_equal(aug_tensor_ptr(a), aug_tensor_ptr(c), 3 * 17 * 19);
    assert_string_equal(c->layout, "CHW");
    /* a CHW copy of the source, labelled: the default reads the label */
    int64_t chw[3] = {3, 23, 31};
    aug_tensor *csrc = mk(AUG_UINT8, 3, chw);
    for (int64_t k = 0; k < 3; k++)
        for (int64_t y = 0; y < 23; y++)
            for (int64_t x = 0; x < 31; x++)
                ((uint8_t *)aug_tensor_ptr(csrc))[(k * 23 + y) * 31 + x] =
                    ((const uint8_t *)aug_tensor_ptr(src))[(y * 31 + x) * 3 + k];
    assert_int_equal(aug_tensor_set_layout(csrc, "CHW"), AUG_OK);
    memset(aug_tensor_ptr(b), 0, 3 * 17 * 19);
    assert_int_equal(aug_warp_affine_ex(csrc, b, m, NULL, 2, NULL), AUG_OK);
    assert_memory_equal(aug_tensor_ptr(a), aug_tensor_ptr(b), 3 * 17 * 19);
    /* HWC output: the same values interleaved */
    int64_t hshape[3] = {17, 19, 3};
    aug_tensor *h = mk(AUG_UINT8, 3, hshape);
    o.dst_layout = AUG_WARP_LAYOUT_HWC;
    assert_int_equal(aug_warp_affine_ex(src, h, m, NULL, 2, &o), AUG_OK);
    assert_string_equal(h->layout, "HWC");
    for (int64_t k = 0; k < 3; k++)
        for (int64_t q = 0; q < 17 * 19; q++)
            assert_int_equal(((uint8_t *)aug_tensor_ptr(h))[q * 3 + k], ((uint8_t *)aug_tensor_ptr(a))[k * 17 * 19 + q]);
    aug_tensor_free(src), aug_tensor_free(csrc), aug_tensor_free(a), aug_tensor_free(b), aug_tensor_free(c);
    aug_tensor_free(h);
}

/* Nearest on int64: the identity copies every value exactly, a half-pixel shift
 * rounds up, and outside pixels take the background; 2-D in and out. */
static void test_nearest_int64(void **state) {
    (void)state;
    int64_t shape[2] = {5, 6}, dshape[2] = {5, 6};
    aug_tensor *src = random_image(AUG_INT64, 2, shape), *dst = mk(AUG_INT64, 2, dshape);
    const int64_t *sp = aug_tensor_ptr(src);
    int64_t *dp = aug_tensor_ptr(dst);
    aug_warp_options o = aug_warp_options_default();
    o.interpolation = AUG_WARP_NEAREST;
    int64_t one = 1;
    aug_tensor *bg = mk(AUG_INT32, 1, &one);
    *(int32_t *)aug_tensor_ptr(bg) = -1;
    assert_int_equal(aug_warp_affine_ex(src, dst, IDENTITY, bg, 3, &o), AUG_OK);
    assert_string_equal(dst->layout, "HW");
    assert_memory_equal(sp, dp, 30 * sizeof(int64_t));
    const float half[6] = {1, 0, 0.5f, 0, 1, -0.5f}; /* sx = x + 0.5 -> x + 1; sy = y - 0.5 -> y */
    assert_int_equal(aug_warp_affine_ex(src, dst, half, bg, 1, &o), AUG_OK);
    for (int64_t y = 0; y < 5; y++)
        for (int64_t x = 0; x < 6; x++) assert_true(dp[y * 6 + x] == (x + 1 < 6 ? sp[y * 6 + x + 1] : -1));
    o.border = AUG_WARP_BORDER_REPLICATE;
    assert_int_equal(aug_warp_affine_ex(src, dst, half, bg, 1, &o), AUG_OK);
    for (int64_t y = 0; y < 5; y++) assert_true(dp[y * 6 + 5] == sp[y * 6 + 5]);
    aug_tensor_free(src), aug_tensor_free(dst), aug_tensor_free(bg);
}

/* Replicate far outside gives the edge pixel exactly (uint8 fixed point, float32, double). */
static void test_replicate_far(void **state) {
    (void)state;
    const aug_dtype dts[3] = {AUG_UINT8, AUG_FLOAT32, AUG_INT64};
    for (int d = 0; d < 3; d++) {
        int64_t shape[3] = {4, 5, 2}, dshape[3] = {2, 3, 3};
        aug_tensor *src = random_image(dts[d], 3, shape), *dst = mk(AUG_FLOAT64, 3, dshape);
        aug_tensor *s64 = NULL;
        assert_int_equal(aug_cast(src, AUG_FLOAT64, &s64), AUG_OK);
        const float far[6] = {0, 0, -1e6f, 0, 0, 1e7f}; /* every pixel -> (x, y) = (-1e6, 1e7): bottom-left */
        aug_warp_options o = aug_warp_options_default();
        o.border = AUG_WARP_BORDER_REPLICATE;
        assert_int_equal(aug_warp_affine_ex(src, dst, far, NULL, 2, &o), AUG_OK);
        const double *sp = aug_tensor_ptr(s64), *dp = aug_tensor_ptr(dst);
        for (int64_t c = 0; c < 2; c++)
            for (int64_t q = 0; q < 9; q++) assert_true(dp[c * 9 + q] == sp[(3 * 5 + 0) * 2 + c]);
        aug_tensor_free(src), aug_tensor_free(dst), aug_tensor_free(s64);
    }
}

static void test_options_errors(void **state) {
    (void)state;
    int64_t s3[3] = {10, 10, 3}, d3[3] = {3, 8, 8}, d4[4] = {1, 3, 8, 8}, d1[1] = {8}, d5[5] = {1, 1, 3, 8, 8};
    aug_tensor *src = random_image(AUG_UINT8, 3, s3), *dst = mk(AUG_UINT8, 3, d3), *dst4 = mk(AUG_UINT8, 4, d4);
    aug_tensor *flat = mk(AUG_UINT8, 1, d1), *dst5 = mk(AUG_UINT8, 5, d5);
    aug_warp_options o = aug_warp_options_default();
    o.interpolation = (aug_warp_interp)7;
    expect_error(aug_warp_affine_ex(src, dst, IDENTITY, NULL, 1, &o), AUG_ERR_VALUE,
                 "aug_warp_affine_ex: interpolation 7 is not an aug_warp_interp");
    o = aug_warp_options_default(), o.border = (aug_warp_border)-1;
    expect_error(aug_warp_affine_ex(src, dst, IDENTITY, NULL, 1, &o), AUG_ERR_VALUE,
                 "aug_warp_affine_ex: border -1 is not an aug_warp_border");
    o = aug_warp_options_default(), o.src_layout = (aug_warp_layout)3;
    expect_error(aug_warp_affine_ex(src, dst, IDENTITY, NULL, 1, &o), AUG_ERR_VALUE, "src_layout 3");
    o = aug_warp_options_default(), o.dst_layout = (aug_warp_layout)9;
    const aug_tensor *one[1] = {src};
    int ss = 1;
    expect_error(aug_warp_affine_batch_ex(1, one, dst4, IDENTITY, NULL, &ss, &o), AUG_ERR_VALUE,
                 "aug_warp_affine_batch_ex: dst_layout 9");
    /* names */
    aug_warp_interp wi;
    aug_warp_border wb;
    aug_warp_layout wl;
    expect_error(aug_warp_interp_from_name("f", "lanczos", &wi), AUG_ERR_VALUE,
                 "f: unknown interpolation 'lanczos' (expected 'linear', 'nearest', 'area' or 'cubic')");
    expect_error(aug_warp_border_from_name(NULL, "wrap", &wb), AUG_ERR_VALUE,
                 "aug_warp_border_from_name: unknown border 'wrap'");
    expect_error(aug_warp_layout_from_name("g", "HCW", &wl), AUG_ERR_VALUE, "g: unknown layout 'HCW'");
    expect_error(aug_warp_layout_from_name("g", NULL, &wl), AUG_ERR_VALUE, "g: layout is NULL");
    assert_int_equal(aug_warp_border_from_name("f", "Reflect_101", &wb), AUG_OK);
    assert_int_equal(wb, AUG_WARP_BORDER_REFLECT);
    assert_int_equal(aug_warp_layout_from_name("f", "nhwc", &wl), AUG_OK);
    assert_int_equal(wl, AUG_WARP_LAYOUT_HWC);
    assert_int_equal(aug_warp_interp_from_name("f", "NEAREST", &wi), AUG_OK);
    assert_int_equal(wi, AUG_WARP_NEAREST);
    /* layout labels that contradict the option */
    o = aug_warp_options_default(), o.src_layout = AUG_WARP_LAYOUT_CHW;
    assert_int_equal(aug_tensor_set_layout(src, "HWC"), AUG_OK);
    expect_error(aug_warp_affine_ex(src, dst, IDENTITY, NULL, 1, &o), AUG_ERR_VALUE,
                 "aug_warp_affine_ex: src image 0 has layout \"HWC\" but the options ask for CHW");
    /* ranks */
    expect_error(aug_warp_affine_ex(flat, dst, IDENTITY, NULL, 1, NULL), AUG_ERR_VALUE,
                 "aug_warp_affine_ex: src must be (H, W, C), (C, H, W) or (H, W), got shape (8,)");
    expect_error(aug_warp_affine_ex(src, flat, IDENTITY, NULL, 1, NULL), AUG_ERR_VALUE,
                 "aug_warp_affine_ex: dst must be (C, H, W) or (H, W), got shape (8,)");
    expect_error(aug_warp_affine_batch_ex(1, one, dst5, IDENTITY, NULL, &ss, NULL), AUG_ERR_VALUE,
                 "dst must be (N, C, H, W) or (N, H, W)");
    o = aug_warp_options_default(), o.dst_layout = AUG_WARP_LAYOUT_HWC;
    expect_error(aug_warp_affine_ex(src, dst, IDENTITY, NULL, 1, &o), AUG_ERR_VALUE,
                 "src image 0 has 3 channels but dst has 8");
    /* the functions without options keep refusing 2-D images */
    int64_t hw[2] = {8, 8};
    aug_tensor *mask = mk(AUG_UINT8, 2, hw);
    expect_error(aug_warp_affine(mask, dst, IDENTITY, NULL, 1), AUG_ERR_VALUE, "aug_warp_affine: src must be (H, W, C), got");
    aug_tensor_free(src), aug_tensor_free(dst), aug_tensor_free(dst4), aug_tensor_free(flat), aug_tensor_free(dst5);
    aug_tensor_free(mask);
}

/* The CPU's mean by multiplication equals scalar/warp.h's division for every
 * s in [2, 16] and every quotient bucket (both ends of each). */
static void test_fixed_mean_recip(void **state) {
    (void)state;
    for (int s = 2; s <= AUG__WARP_FP_MAX_S; s++) {
        uint32_t ss = (uint32_t)(s * s), recip = aug__warp_fixed_recip(s), half = ss << 15;
        uint64_t amax = (uint64_t)ss * 255u << 16; /* the largest sum */
        for (uint64_t t = 0; t <= (amax + half) >> 16; t++) {
            uint64_t lo = (t << 16) >= half ? (t << 16) - half : 0, hi = lo + 65535;
            if (hi > amax) hi = amax;
            if (lo > amax) break;
            if (aug__warp_fixed_mean((uint32_t)lo, s) != aug__warp_fixed_mean_r((uint32_t)lo, s, recip) ||
                aug__warp_fixed_mean((uint32_t)hi, s) != aug__warp_fixed_mean_r((uint32_t)hi, s, recip))
                fail_msg("s %d, t %llu: the reciprocal mean differs", s, (unsigned long long)t);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_border_index),         cmocka_unit_test(test_simd_options_agree),
        cmocka_unit_test(test_defaults_equal_legacy), cmocka_unit_test(test_nearest_int64),
        cmocka_unit_test(test_replicate_far),        cmocka_unit_test(test_options_errors),
        cmocka_unit_test(test_fixed_mean_recip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
