/* test_warp_cubic.c: the bicubic warp's C side (AUG_WARP_CUBIC; docs/warp.md
 * "Bicubic"): Keys' weights (a = -0.75) at fractions where they are exact, the
 * all-outside rule, an integer shift reproducing a source exactly (any dtype
 * and border), a sample between pixels written out by hand, the perspective
 * warp with an affine last row equal to the affine warp, and the options'
 * errors naming the modes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "aug/aug.h"
#include "scalar/warp.h"

static aug_tensor *mk(aug_dtype dt, int ndim, const int64_t *shape) {
    aug_tensor *t = aug_tensor_empty(ndim, shape, dt, aug_cpu_device());
    assert_non_null(t);
    return t;
}

/* Weights at t = 0, 1/2 and 1/4: sums of exact binary fractions. */
static void test_weights(void **state) {
    (void)state;
    double w[4];
    aug__warp_cubic_weights(0.0, w);
    assert_true(w[0] == 0.0 && w[1] == 1.0 && w[2] == 0.0 && w[3] == 0.0);
    aug__warp_cubic_weights(0.5, w);
    assert_true(w[0] == -0.09375 && w[1] == 0.59375 && w[2] == 0.59375 && w[3] == -0.09375);
    aug__warp_cubic_weights(0.25, w);
    /* Keys: w(1.25) = a (1.25^3 - 5 * 1.25^2 + 8 * 1.25 - 4), w(0.25) = (a + 2) 0.25^3 - (a + 3) 0.25^2 + 1, ... */
    assert_true(w[0] == -0.10546875 && w[1] == 0.87890625 && w[2] == 0.26171875 && w[3] == -0.03515625);
    for (int q = 0; q < 4; q++) assert_true(aug__warp_cubic_weight(0.25, q) == w[q]);
    /* every tap outside only under the constant border */
    assert_true(aug__warp_cubic_outside(-3, 5, 10, 10, AUG__WB_CONSTANT));
    assert_false(aug__warp_cubic_outside(-2, 5, 10, 10, AUG__WB_CONSTANT)); /* tap -2 + 2 = 0 is inside */
    assert_true(aug__warp_cubic_outside(4, 11, 10, 10, AUG__WB_CONSTANT));
    assert_false(aug__warp_cubic_outside(4, 10, 10, 10, AUG__WB_CONSTANT));
    assert_false(aug__warp_cubic_outside(-30, 5, 10, 10, AUG__WB_REPLICATE));
}

/* An integer shift samples at t = 0 (weights 0, 1, 0, 0): the source exactly,
 * for int32 and float64 images (values a double holds) and every border. */
static void test_integer_shift_exact(void **state) {
    (void)state;
    const int64_t H = 9, W = 11, C = 2, Ht = 6, Wt = 7;
    int64_t ss[3] = {H, W, C}, ds[3] = {C, Ht, Wt};
    const aug_dtype dts[2] = {AUG_INT32, AUG_FLOAT64};
    const float m[6] = {1, 0, 3, 0, 1, 2};
    for (int d = 0; d < 2; d++)
        for (int border = 0; border < 4; border++) {
            aug_tensor *src = mk(dts[d], 3, ss), *dst = mk(dts[d], 3, ds);
            for (int64_t k = 0; k < H * W * C; k++) {
                const int32_t v = (int32_t)(k * 2654435761u) >> 3;
                if (dts[d] == AUG_INT32)
                    ((int32_t *)aug_tensor_ptr(src))[k] = v;
                else
                    ((double *)aug_tensor_ptr(src))[k] = (double)v * 0.125;
            }
            aug_warp_options o = aug_warp_options_default();
            o.interpolation = AUG_WARP_CUBIC, o.border = (aug_warp_border)border;
            assert_int_equal(aug_warp_affine_ex(src, dst, m, NULL, 1, &o), AUG_OK);
            for (int64_t c = 0; c < C; c++)
                for (int64_t y = 0; y < Ht; y++)
                    for (int64_t x = 0; x < Wt; x++) {
                        const int64_t s = ((y + 2) * W + (x + 3)) * C + c, t = (c * Ht + y) * Wt + x;
                        if (dts[d] == AUG_INT32)
                            assert_int_equal(((int32_t *)aug_tensor_ptr(dst))[t], ((int32_t *)aug_tensor_ptr(src))[s]);
                        else
                            assert_true(((double *)aug_tensor_ptr(dst))[t] == ((double *)aug_tensor_ptr(src))[s]);
                    }
            aug_tensor_free(src), aug_tensor_free(dst);
        }
}

/* One sample at (1.5, 1.25) of a 4 x 4 float64 image, by hand, and one next to
 * the corner with the constant border (taps outside read the background). */
static void test_sample_by_hand(void **state) {
    (void)state;
    int64_t ss[3] = {4, 4, 1}, ds[3] = {1, 1, 1};
    aug_tensor *src = mk(AUG_FLOAT64, 3, ss), *dst = mk(AUG_FLOAT64, 3, ds);
    double *a = aug_tensor_ptr(src);
    for (int k = 0; k < 16; k++) a[k] = (double)((k * 7) % 16) - 3.0;
    const double wx[4] = {-0.09375, 0.59375, 0.59375, -0.09375},
                 wy[4] = {-0.10546875, 0.87890625, 0.26171875, -0.03515625};
    double r[4];
    for (int j = 0; j < 4; j++)
        r[j] = ((wx[0] * a[4 * j] + wx[1] * a[4 * j + 1]) + wx[2] * a[4 * j + 2]) + wx[3] * a[4 * j + 3];
    const double want = ((wy[0] * r[0] + wy[1] * r[1]) + wy[2] * r[2]) + wy[3] * r[3];
    aug_warp_options o = aug_warp_options_default();
    o.interpolation = AUG_WARP_CUBIC;
    const float m[6] = {1, 0, 1.5f, 0, 1, 1.25f};
    assert_int_equal(aug_warp_affine_ex(src, dst, m, NULL, 1, &o), AUG_OK);
    assert_true(*(double *)aug_tensor_ptr(dst) == want);
    /* (-0.5, 0): column taps -2, -1 outside (background 10), 0 and 1 inside; rows -1 .. 2 */
    int64_t one = 1;
    aug_tensor *bg = mk(AUG_FLOAT64, 1, &one);
    *(double *)aug_tensor_ptr(bg) = 10.0;
    const float m2[6] = {1, 0, -0.5f, 0, 1, 0};
    assert_int_equal(aug_warp_affine_ex(src, dst, m2, bg, 1, &o), AUG_OK);
    double rows[4];
    for (int j = -1; j < 3; j++) {
        double t[4];
        for (int u = 0; u < 4; u++) {
            const int x = -2 + u;
            t[u] = j >= 0 && x >= 0 ? a[4 * j + x] : 10.0;
        }
        rows[j + 1] = ((wx[0] * t[0] + wx[1] * t[1]) + wx[2] * t[2]) + wx[3] * t[3];
    }
    const double want2 = ((0.0 * rows[0] + 1.0 * rows[1]) + 0.0 * rows[2]) + 0.0 * rows[3];
    assert_true(*(double *)aug_tensor_ptr(dst) == want2);
    aug_tensor_free(src), aug_tensor_free(dst), aug_tensor_free(bg);
}

/* warp_perspective with the last row (0, 0, 1) is warp_affine, bit for bit. */
static void test_perspective_affine_rows(void **state) {
    (void)state;
    int64_t ss[3] = {13, 17, 3}, ds[3] = {3, 9, 11};
    aug_tensor *src = mk(AUG_UINT8, 3, ss), *a = mk(AUG_UINT8, 3, ds), *b = mk(AUG_UINT8, 3, ds);
    for (int64_t k = 0; k < 13 * 17 * 3; k++) ((uint8_t *)aug_tensor_ptr(src))[k] = (uint8_t)(k * 37 + (k >> 3) * 11);
    const float m6[6] = {1.3f, 0.2f, -1.5f, -0.25f, 1.1f, 2.0f},
                m9[9] = {1.3f, 0.2f, -1.5f, -0.25f, 1.1f, 2.0f, 0, 0, 1};
    for (int border = 0; border < 4; border++)
        for (int s = 1; s <= 2; s++) {
            aug_warp_options o = aug_warp_options_default();
            o.interpolation = AUG_WARP_CUBIC, o.border = (aug_warp_border)border;
            assert_int_equal(aug_warp_affine_ex(src, a, m6, NULL, s, &o), AUG_OK);
            assert_int_equal(aug_warp_perspective(src, b, m9, NULL, s, &o), AUG_OK);
            assert_memory_equal(aug_tensor_ptr(a), aug_tensor_ptr(b), 3 * 9 * 11);
        }
    aug_tensor_free(src), aug_tensor_free(a), aug_tensor_free(b);
}

static void test_errors(void **state) {
    (void)state;
    int64_t ss[3] = {5, 5, 1}, ds[3] = {1, 3, 3};
    aug_tensor *src = mk(AUG_UINT8, 3, ss), *dst = mk(AUG_UINT8, 3, ds);
    const float m[6] = {1, 0, 0, 0, 1, 0};
    aug_warp_options o = aug_warp_options_default();
    o.interpolation = (aug_warp_interp)4;
    assert_int_equal(aug_warp_affine_ex(src, dst, m, NULL, 1, &o), AUG_ERR_VALUE);
    assert_non_null(strstr(aug_last_error(), "aug_warp_affine_ex: interpolation 4 is not an aug_warp_interp"));
    aug_warp_interp wi = AUG_WARP_LINEAR;
    assert_int_equal(aug_warp_interp_from_name(NULL, "BiCubic", &wi), AUG_OK);
    assert_int_equal(wi, AUG_WARP_CUBIC);
    assert_string_equal(aug_interp_name(AUG_WARP_CUBIC), "cubic");
    aug_tensor_free(src), aug_tensor_free(dst);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_weights),        cmocka_unit_test(test_integer_shift_exact),
        cmocka_unit_test(test_sample_by_hand), cmocka_unit_test(test_perspective_affine_rows),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
