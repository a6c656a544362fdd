/* test_warp_perspective.c: aug_warp_perspective / aug_warp_perspective_batch
 * (docs/warp.md "Perspective") on the CPU: the identity homography copies, a
 * homography whose last row is (0, 0, 1) gives aug_warp_affine_ex's bytes for
 * every kernel, border and interpolation, the exact kernel against the
 * definition written out here (u / w, v / w, bilinear, w <= 0 the background
 * under every border), the uint8 constant-border images' AVX2 step (the
 * affine fixed-point kernel fed projected coordinates) against the portable
 * one and within 1 of the definition, and every error (singular, non-finite,
 * NULL). The CUDA
 * backend is compared with the CPU by the parity harness (cases_image.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "aug/aug.h"
#include "core/warp.h"
#include "cpu/cpu.h"
#include "cpu/simd.h"

static uint64_t rng_state = 0x243f6a8885a308d3ull;
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

static aug_tensor *random_image(aug_dtype dt, int64_t H, int64_t W, int64_t C) {
    int64_t shape[3] = {H, W, C};
    aug_tensor *t = mk(dt, 3, shape);
    int64_t n = aug_tensor_size(t);
    for (int64_t k = 0; k < n; k++) {
        if (dt == AUG_UINT8) ((uint8_t *)aug_tensor_ptr(t))[k] = (uint8_t)rnd();
        else if (dt == AUG_FLOAT32) ((float *)aug_tensor_ptr(t))[k] = (float)urand(-100, 100);
        else if (dt == AUG_INT32) ((int32_t *)aug_tensor_ptr(t))[k] = (int32_t)(rnd() % 100000) - 50000;
        else fail_msg("dtype %d", (int)dt);
    }
    return t;
}

static void expect_error(aug_status st, const char *needle) {
    assert_int_equal(st, AUG_ERR_VALUE);
    if (!strstr(aug_last_error(), needle)) fail_msg("message \"%s\" lacks \"%s\"", aug_last_error(), needle);
}

static aug_tensor *background(int64_t C, const double *v) {
    aug_tensor *b = mk(AUG_FLOAT64, 1, &C);
    memcpy(aug_tensor_ptr(b), v, (size_t)C * sizeof(double));
    return b;
}

/* The identity copies the image (into CHW), every border, both interpolations. */
static void test_identity_copies(void **state) {
    (void)state;
    const float eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    aug_tensor *src = random_image(AUG_UINT8, 13, 17, 3);
    int64_t ds[3] = {3, 13, 17};
    for (int interp = 0; interp < 2; interp++)
        for (int border = 0; border < 4; border++) {
            aug_warp_options o = aug_warp_options_default();
            o.interpolation = (aug_warp_interp)interp, o.border = (aug_warp_border)border;
            aug_tensor *dst = mk(AUG_UINT8, 3, ds);
            assert_int_equal(aug_warp_perspective(src, dst, eye, NULL, 1, &o), AUG_OK);
            const uint8_t *a = aug_tensor_ptr(src), *b = aug_tensor_ptr(dst);
            for (int64_t c = 0; c < 3; c++)
                for (int64_t y = 0; y < 13; y++)
                    for (int64_t x = 0; x < 17; x++) assert_int_equal(b[(c * 13 + y) * 17 + x], a[(y * 17 + x) * 3 + c]);
            assert_string_equal(dst->layout, "CHW");
            aug_tensor_free(dst);
        }
    aug_tensor_free(src);
}

/* A homography with last row (0, 0, 1) is warp_affine_ex, byte for byte. */
static void test_affine_equal(void **state) {
    (void)state;
    const aug_dtype sd[3] = {AUG_UINT8, AUG_FLOAT32, AUG_INT32}, dd[3] = {AUG_UINT8, AUG_FLOAT32, AUG_FLOAT64};
    const double bgv[4] = {3, 250, 0, 17};
    for (int it = 0; it < 96; it++) {
        int kind = it % 3, border = (it / 3) % 4, interp = (it / 12) % 2, s = 1 + (it / 24) % 3;
        int64_t C = 1 + (int64_t)(rnd() % 4), H = 1 + (int64_t)(rnd() % 40), W = 1 + (int64_t)(rnd() % 40);
        int64_t Ht = 1 + (int64_t)(rnd() % 30), Wt = 1 + (int64_t)(rnd() % 30);
        aug_tensor *src = random_image(sd[kind], H, W, C), *bg = background(C, bgv);
        int64_t ds[3] = {C, Ht, Wt};
        aug_tensor *a = mk(dd[kind], 3, ds), *b = mk(dd[kind], 3, ds);
        aug_affine_params p = aug_affine_params_default();
        p.angle = urand(-180, 180), p.scale = urand(0.3, 2.5), p.shearx = urand(-0.3, 0.3), p.shifty = urand(-1, 1);
        float m[6], m9[9];
        assert_int_equal(aug_make_affine_matrix(m, H, W, Ht, Wt, &p, NULL), AUG_OK);
        for (int k = 0; k < 6; k++) m9[k] = m[k];
        m9[6] = 0.0f, m9[7] = 0.0f, m9[8] = 1.0f;
        aug_warp_options o = aug_warp_options_default();
        o.interpolation = (aug_warp_interp)interp, o.border = (aug_warp_border)border;
        assert_int_equal(aug_warp_affine_ex(src, a, m, bg, s, &o), AUG_OK);
        assert_int_equal(aug_warp_perspective(src, b, m9, bg, s, &o), AUG_OK);
        if (memcmp(aug_tensor_ptr(a), aug_tensor_ptr(b), (size_t)(aug_tensor_size(a) * aug_tensor_itemsize(a))))
            fail_msg("it %d: kind %d border %d interp %d s %d: perspective differs from affine", it, kind, border,
                     interp, s);
        aug_tensor_free(src), aug_tensor_free(bg), aug_tensor_free(a), aug_tensor_free(b);
    }
}

/* The definition, in double: the source point (u / w, v / w) of sample (X, Y);
 * outside the plane (w <= 0) the background; else bilinear with each
 * neighbour outside the background (constant) or clamped into the image
 * (replicate). */
static double reference(const int32_t *img, int64_t H, int64_t W, int64_t C, int64_t c, const double *m, double X,
                        double Y, int replicate, double bg) {
    double w = m[6] * X + (m[7] * Y + m[8]);
    if (!(w > 0)) return bg;
    double sx = (m[0] * X + (m[1] * Y + m[2])) / w, sy = (m[3] * X + (m[4] * Y + m[5])) / w;
    if (!replicate && (sx < -2 || sx > (double)W + 1 || sy < -2 || sy > (double)H + 1)) return bg;
    sx = fmin(fmax(sx, -2.0), (double)W + 1), sy = fmin(fmax(sy, -2.0), (double)H + 1);
    double fx0 = floor(sx), fy0 = floor(sy), fx = sx - fx0, fy = sy - fy0, v[4];
    for (int q = 0; q < 4; q++) {
        int64_t ix = (int64_t)fx0 + (q & 1), iy = (int64_t)fy0 + (q >> 1);
        if (replicate) ix = ix < 0 ? 0 : ix >= W ? W - 1 : ix, iy = iy < 0 ? 0 : iy >= H ? H - 1 : iy;
        v[q] = ix >= 0 && ix < W && iy >= 0 && iy < H ? (double)img[(iy * W + ix) * C + c] : bg;
    }
    return (1 - fy) * ((1 - fx) * v[0] + fx * v[1]) + fy * ((1 - fx) * v[2] + fx * v[3]);
}

static void test_definition(void **state) {
    (void)state;
    const int64_t H = 21, W = 27, C = 2, Ht = 19, Wt = 23;
    const double bgv[2] = {-7.5, 1234.0};
    aug_tensor *src = random_image(AUG_INT32, H, W, C), *bg = background(C, bgv);
    /* a tilt (w = 1 - X / 15 + Y / 60: negative on the right of the output) and a mild one */
    const float ms[2][9] = {{1.1f, 0.2f, -1.5f, -0.1f, 0.9f, 2.0f, -1.0f / 15.0f, 1.0f / 60.0f, 1.0f},
                            {0.8f, -0.1f, 3.0f, 0.05f, 1.2f, -1.0f, 0.004f, -0.003f, 0.95f}};
    int64_t ds[3] = {C, Ht, Wt};
    for (int mi = 0; mi < 2; mi++)
        for (int rep = 0; rep < 2; rep++)
            for (int s = 1; s <= 2; s++) {
                aug_warp_options o = aug_warp_options_default();
                o.border = rep ? AUG_WARP_BORDER_REPLICATE : AUG_WARP_BORDER_CONSTANT;
                aug_tensor *dst = mk(AUG_FLOAT64, 3, ds);
                assert_int_equal(aug_warp_perspective(src, dst, ms[mi], bg, s, &o), AUG_OK);
                double m[9];
                for (int k = 0; k < 9; k++) m[k] = (double)ms[mi][k];
                const double *out = aug_tensor_ptr(dst);
                int outside = 0;
                for (int64_t c = 0; c < C; c++)
                    for (int64_t y = 0; y < Ht; y++)
                        for (int64_t x = 0; x < Wt; x++) {
                            double want = 0.0;
                            for (int j = 0; j < s; j++)
                                for (int i = 0; i < s; i++) {
                                    double d = s == 1 ? 0.0 : (2.0 * i + 1.0 - s) / (2.0 * s);
                                    double e = s == 1 ? 0.0 : (2.0 * j + 1.0 - s) / (2.0 * s);
                                    want += reference(aug_tensor_ptr(src), H, W, C, c, m, (double)x + d, (double)y + e,
                                                      rep, bgv[c]);
                                }
                            want /= (double)(s * s);
                            double got = out[(c * Ht + y) * Wt + x];
                            if (fabs(got - want) > 1e-9 * (1.0 + fabs(want)))
                                fail_msg("matrix %d rep %d s %d (%lld, %lld, %lld): %.17g, want %.17g", mi, rep, s,
                                         (long long)c, (long long)y, (long long)x, got, want);
                            if (mi == 0 && m[6] * x + (m[7] * y + m[8]) <= 0) {
                                outside++;
                                if (s == 1) assert_true(got == bgv[c]); /* the background, even with replicate */
                            }
                        }
                if (mi == 0) assert_true(outside > 20);
                aug_tensor_free(dst);
            }
    aug_tensor_free(src), aug_tensor_free(bg);
}

/* uint8 -> uint8, constant border: the AVX2 and portable kernels give the same
 * bytes, within 1 of the exact (float64 output) kernel; outside the plane the
 * background byte. Sizes and tails of every 8-pixel step, C 1..4, s 1..2. */
static void test_fixed_simd_agree(void **state) {
    (void)state;
    for (int it = 0; it < 48; it++) {
        int64_t C = 1 + it % 4, H = 8 + (int64_t)(rnd() % 50), W = 8 + (int64_t)(rnd() % 50);
        int64_t Ht = 1 + (int64_t)(rnd() % 40), Wt = 1 + (int64_t)(rnd() % 60);
        int ss = 1 + (it / 4) % 2;
        aug_tensor *src = random_image(AUG_UINT8, H, W, C);
        int64_t ds[4] = {1, C, Ht, Wt};
        aug_tensor *a = mk(AUG_UINT8, 4, ds), *b = mk(AUG_UINT8, 4, ds), *e = mk(AUG_FLOAT64, 4, ds);
        /* w = 1 + g X + h Y crosses 0 inside the output for about half the iterations */
        float m[9] = {(float)urand(0.5, 2.0), (float)urand(-0.3, 0.3), (float)urand(-5, 5),
                      (float)urand(-0.3, 0.3), (float)urand(0.5, 2.0), (float)urand(-5, 5),
                      (float)urand(-1.5, 1.0) / (float)Wt, (float)urand(-0.5, 0.5) / (float)Ht, 1.0f};
        double bg[4] = {(double)(rnd() & 0xff), 3, 250, 0};
        const aug_tensor *srcs[1] = {src};
        aug__warp_plan plan = {.func = "test", .n = 1, .src = srcs, .dst = a, .channels = C, .height = Ht,
                               .width = Wt, .matrices = m, .supersampling = &ss, .background = bg,
                               .interp = AUG_WARP_LINEAR, .border = AUG_WARP_BORDER_CONSTANT};
        assert_int_equal(aug__cpu_warp_perspective_level(&plan, AUG__SIMD_NONE), AUG_OK);
        if (aug__simd_cpu_level() >= AUG__SIMD_AVX2) {
            plan.dst = b;
            assert_int_equal(aug__cpu_warp_perspective_level(&plan, AUG__SIMD_AVX2), AUG_OK);
            if (memcmp(aug_tensor_ptr(a), aug_tensor_ptr(b), (size_t)aug_tensor_size(a)))
                fail_msg("iteration %d: AVX2 and portable kernels differ", it);
        }
        plan.dst = e;
        assert_int_equal(aug__cpu_warp_perspective_level(&plan, AUG__SIMD_NONE), AUG_OK);
        const uint8_t *pa = aug_tensor_ptr(a);
        const double *pe = aug_tensor_ptr(e);
        for (int64_t k = 0; k < aug_tensor_size(a); k++)
            if (fabs((double)pa[k] - pe[k]) > 1.0 + 1e-9) fail_msg("iteration %d value %lld: %d, exact %g", it,
                                                                  (long long)k, pa[k], pe[k]);
        aug_tensor_free(src), aug_tensor_free(a), aug_tensor_free(b), aug_tensor_free(e);
    }
}

static void test_errors(void **state) {
    (void)state;
    aug_tensor *src = random_image(AUG_UINT8, 8, 8, 3);
    int64_t ds[3] = {3, 4, 4}, bs[4] = {2, 3, 4, 4};
    aug_tensor *dst = mk(AUG_UINT8, 3, ds), *bdst = mk(AUG_UINT8, 4, bs);
    const float singular[9] = {1, 2, 3, 2, 4, 6, 0, 0, 1}, zero[9] = {0};
    float nan9[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    nan9[7] = NAN;
    expect_error(aug_warp_perspective(src, dst, singular, NULL, 1, NULL), "aug_warp_perspective: matrix is singular");
    expect_error(aug_warp_perspective(src, dst, zero, NULL, 1, NULL), "determinant 0");
    expect_error(aug_warp_perspective(src, dst, nan9, NULL, 1, NULL),
                 "aug_warp_perspective: matrix has a non-finite value nan at [2][1]");
    expect_error(aug_warp_perspective(src, dst, NULL, NULL, 1, NULL), "aug_warp_perspective: matrix is NULL");
    expect_error(aug_warp_perspective(src, dst, singular + 0, NULL, 0, NULL), "supersampling must be in [1, 16], got 0");
    const aug_tensor *two[2] = {src, src};
    float ms[18] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0};
    const int ss[2] = {1, 1};
    expect_error(aug_warp_perspective_batch(2, two, bdst, ms, NULL, ss, NULL),
                 "aug_warp_perspective_batch: matrix 1 is singular");
    ms[17] = 1.0f;
    assert_int_equal(aug_warp_perspective_batch(2, two, bdst, ms, NULL, ss, NULL), AUG_OK);
    assert_string_equal(bdst->layout, "NCHW");
    aug_tensor_free(src), aug_tensor_free(dst), aug_tensor_free(bdst);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity_copies),
        cmocka_unit_test(test_affine_equal),
        cmocka_unit_test(test_definition),
        cmocka_unit_test(test_fixed_simd_agree),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
