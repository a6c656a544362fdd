/* test_filters.c: aug_lighting, aug_box_blur_single, aug_gaussian_blur_single,
 * aug_gaussian_blur and aug_gaussian_ksize (semantics §13) through the C API: small
 * cases worked out by hand (exact values, rounding of ties), the semantics §13 formula
 * written out here for lighting, the error paths with their messages, and the
 * 8-bit blur kernels: the box division checked for every sum, and the SIMD
 * paths equal to the portable ones. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "aug/aug.h"
#include "core/blur.h"
#include "cpu/simd.h"
#include "cpu/blur_uint8.h"

static aug_tensor *make_u8(int ndim, const int64_t *shape, const uint8_t *vals) {
    aug_tensor *t = aug_tensor_empty(ndim, shape, AUG_UINT8, aug_cpu_device());
    assert_non_null(t);
    memcpy(aug_tensor_ptr(t), vals, (size_t)aug_tensor_size(t));
    return t;
}

static aug_tensor *make_f32(int64_t n, const float *vals) {
    aug_tensor *t = aug_tensor_empty(1, &n, AUG_FLOAT32, aug_cpu_device());
    assert_non_null(t);
    memcpy(aug_tensor_ptr(t), vals, (size_t)n * sizeof(float));
    return t;
}

static void expect_error(aug_status st, aug_status want, const char *needle) {
    assert_int_equal(st, want);
    if (!strstr(aug_last_error(), needle)) fail_msg("message '%s' lacks '%s'", aug_last_error(), needle);
}

static void test_ksize(void **state) {
    (void)state;
    assert_int_equal(aug_gaussian_ksize(0.0, 0), 1);
    assert_int_equal(aug_gaussian_ksize(-2.0, 0), 1);
    assert_int_equal(aug_gaussian_ksize(0.5, 0), 3);
    assert_int_equal(aug_gaussian_ksize(1.0, 0), 5);   /* int(4.3) | 1 */
    assert_int_equal(aug_gaussian_ksize(2.0, 0), 11);  /* int(10.9) | 1 */
    assert_int_equal(aug_gaussian_ksize(2.0, 6), 6);
    assert_int_equal(aug_gaussian_ksize(40.0, 0), 261);
    assert_int_equal(aug_gaussian_ksize(1e300, 0), 2147483647);
    assert_int_equal(aug_gaussian_ksize(NAN, 0), 0);
    assert_non_null(strstr(aug_last_error(), "aug_gaussian_ksize: sigma is NaN"));
}

/* Lighting with the semantics §13 formula written out here in double (the constants are
 * semantics §13's decimal ones; in long double f(0) would come out a hair below 0). */
static long double ref_light(double x, double vmin, double vmax, double c, double g) {
    double v = (x - vmin) / (vmax - vmin);
    v = v < 0 ? 0 : (v > 1 ? 1 : v);
    double f = c >= 0 ? 1.0037575963899724 / (1 + exp(6.279 - 12.558 * v)) - 0.0018787981949862
                      : 0.1755606108304832 * atanh(1.986608 * v - 0.993304) + 0.5;
    v = (1 - fabs(c)) * v + fabs(c) * f;
    return pow(v, g) * (vmax - vmin) + vmin;
}

static void test_lighting_values(void **state) {
    (void)state;
    int64_t shape[4] = {2, 2, 16, 20}; /* 320 values per plane: the table path */
    uint8_t vals[2 * 2 * 320];
    for (int i = 0; i < 1280; i++) vals[i] = (uint8_t)(i * 7 + i / 256);
    aug_tensor *im = make_u8(4, shape, vals);
    float gg[2] = {1.5f, 0.8f}, gc[4] = {1.0f, 1.2f, 0.9f, 1.0f}, ct[2] = {0.6f, -0.4f};
    aug_tensor *tg = make_f32(2, gg), *tc = make_f32(4, gc), *tk = make_f32(2, ct), *out = NULL;
    assert_int_equal(aug_lighting(im, tg, tc, tk, 0.0, 255.0, &out), AUG_OK);
    const uint8_t *o = aug_tensor_ptr(out);
    int off = 0;
    for (int i = 0; i < 1280; i++) {
        int n = i / 640, c = (i / 320) % 2;
        long double r = ref_light(vals[i], 0, 255, ct[n], (double)gg[n] * gc[n * 2 + c]);
        long double want = r < 0 ? 0 : (r > 255 ? 255 : nearbyintl(r));
        if (fabsl((long double)o[i] - want) > 0) off++;
        assert_true(fabsl((long double)o[i] - want) <= 1);
    }
    assert_true(off <= 2); /* only a value within 1e-12 of a .5 could differ */
    assert_string_equal(out->layout, "NCHW");
    /* in place gives the same */
    assert_int_equal(aug_lighting(im, tg, tc, tk, 0.0, 255.0, &im), AUG_OK);
    assert_memory_equal(aug_tensor_ptr(im), o, 1280);
    aug_tensor_free(out);
    aug_tensor_free(im);
    aug_tensor_free(tg);
    aug_tensor_free(tc);
    aug_tensor_free(tk);
}

static void test_lighting_errors(void **state) {
    (void)state;
    int64_t shape[4] = {2, 3, 2, 2}, s3[3] = {3, 2, 2};
    uint8_t vals[24] = {0};
    aug_tensor *im = make_u8(4, shape, vals), *im3 = make_u8(3, s3, vals), *out = NULL;
    float one[6] = {1, 1, 1, 1, 1, 1}, nan2[2] = {NAN, 0}, big[2] = {0, 1.5f};
    aug_tensor *g2 = make_f32(2, one), *g6 = make_f32(6, one), *g1 = make_f32(1, one), *z2 = make_f32(2, one);
    aug_tensor *n2 = make_f32(2, nan2), *b2 = make_f32(2, big);
    expect_error(aug_lighting(im, g1, g6, z2, 0, 255, &out), AUG_ERR_VALUE, "aug_lighting: gammagrays has shape (1,)");
    expect_error(aug_lighting(im, g2, g2, z2, 0, 255, &out), AUG_ERR_VALUE, "aug_lighting: gammacolors has shape");
    expect_error(aug_lighting(im, g2, g6, n2, 0, 255, &out), AUG_ERR_VALUE, "aug_lighting: contrasts[0] = nan");
    expect_error(aug_lighting(im, g2, g6, b2, 0, 255, &out), AUG_ERR_VALUE, "contrasts[1] = 1.5 must be in [-1, 1]");
    expect_error(aug_lighting(im, n2, g6, z2, 0, 255, &out), AUG_ERR_VALUE, "gammagrays[0] = nan");
    expect_error(aug_lighting(im, g2, g6, z2, 5, 5, &out), AUG_ERR_VALUE, "vmin = 5 and vmax = 5");
    expect_error(aug_lighting(im3, g2, g6, z2, 0, 255, &out), AUG_ERR_VALUE, "gammagrays has shape (2,)");
    expect_error(aug_lighting(g2, g2, g6, z2, 0, 255, &out), AUG_ERR_VALUE, "aug_lighting: image must be");
    expect_error(aug_lighting(im, g2, g6, z2, 0, 255, NULL), AUG_ERR_VALUE, "out is NULL");
    expect_error(aug_lighting(im, g2, g6, NULL, 0, 255, &out), AUG_ERR_VALUE, "contrasts is NULL");
    assert_null(out);
    aug_tensor *wrong = aug_tensor_empty(4, shape, AUG_INT8, aug_cpu_device());
    expect_error(aug_lighting(im, g2, g6, z2, 0, 255, &wrong), AUG_ERR_TYPE, "out has dtype int8");
    aug_tensor *i8 = aug_tensor_empty(1, (int64_t[]){2}, AUG_FLOAT64, aug_cpu_device());
    expect_error(aug_lighting(im, i8, g6, z2, 0, 255, &out), AUG_ERR_TYPE, "gammagrays must be float32, not float64");
    aug_tensor *ts[] = {im, im3, g2, g6, g1, z2, n2, b2, wrong, i8};
    for (size_t i = 0; i < sizeof ts / sizeof *ts; i++) aug_tensor_free(ts[i]);
}

static void test_box_blur_small(void **state) {
    (void)state;
    /* one 3x3 plane; k = 3 with replicated edges, worked out by hand */
    int64_t shape[3] = {1, 3, 3};
    uint8_t v[9] = {0, 9, 18, 27, 36, 45, 54, 63, 72};
    aug_tensor *in = make_u8(3, shape, v), *out = NULL;
    assert_int_equal(aug_box_blur_single(in, 3, &out), AUG_OK);
    /* top-left window rows {0,0,1} cols {0,0,1}: (0+0+9)*2 + (27+27+36) = 108 -> 12 */
    const uint8_t want[9] = {12, 18, 24, 30, 36, 42, 48, 54, 60}; /* 27 my + 9 mx, m in {1/3, 1, 5/3} */
    assert_memory_equal(aug_tensor_ptr(out), want, 9);
    assert_string_equal(out->layout, "CHW");
    /* k = 2: window offsets -1, 0; (0 + 9 + 27 + 36) / 4 = 18 at (1, 1) */
    assert_int_equal(aug_box_blur_single(in, 2, &out), AUG_OK);
    assert_int_equal(((uint8_t *)aug_tensor_ptr(out))[4], 18);
    /* ties round half to even: mean of {1, 2} over a 2x2 window ... (1+1+2+2)/4 = 1.5 -> 2, (1+1+0+0)/4 = .5 -> 0 */
    int64_t s2[3] = {1, 1, 2};
    uint8_t t2[2] = {1, 2}, t3[2] = {0, 1};
    aug_tensor *a = make_u8(3, s2, t2), *b = make_u8(3, s2, t3), *oa = NULL, *ob = NULL;
    assert_int_equal(aug_box_blur_single(a, 2, &oa), AUG_OK);
    assert_int_equal(aug_box_blur_single(b, 2, &ob), AUG_OK);
    assert_int_equal(((uint8_t *)aug_tensor_ptr(oa))[1], 2);
    assert_int_equal(((uint8_t *)aug_tensor_ptr(ob))[1], 0);
    /* in place */
    assert_int_equal(aug_box_blur_single(in, 3, &in), AUG_OK);
    assert_memory_equal(aug_tensor_ptr(in), want, 9);
    aug_tensor_free(in);
    aug_tensor_free(out);
    aug_tensor_free(a);
    aug_tensor_free(b);
    aug_tensor_free(oa);
    aug_tensor_free(ob);
}

static void test_gaussian_small(void **state) {
    (void)state;
    /* an impulse in float64: the result is the outer product of the normalised weights */
    int64_t shape[3] = {1, 7, 7};
    aug_tensor *in = aug_tensor_zeros(3, shape, AUG_FLOAT64, aug_cpu_device()), *out = NULL;
    ((double *)aug_tensor_ptr(in))[3 * 7 + 3] = 1.0;
    assert_int_equal(aug_gaussian_blur_single(in, 1.0, &out), AUG_OK); /* ksize 5 */
    double w[5], s = 0;
    for (int i = 0; i < 5; i++) s += w[i] = exp(-(double)((i - 2) * (i - 2)) / 2.0);
    const double *o = aug_tensor_ptr(out);
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 7; x++) {
            double want = (y >= 1 && y <= 5 && x >= 1 && x <= 5) ? w[y - 1] / s * w[x - 1] / s : 0.0;
            assert_true(fabs(o[y * 7 + x] - want) < 1e-15);
        }
    /* batch: sigma 0 copies image 0, max_ksize 3 clips image 1 to weights (e^-1/2, 1, e^-1/2) renormalised */
    int64_t bs[4] = {2, 1, 7, 7};
    aug_tensor *b = aug_tensor_zeros(4, bs, AUG_FLOAT64, aug_cpu_device()), *bo = NULL;
    ((double *)aug_tensor_ptr(b))[3 * 7 + 3] = 1.0;
    ((double *)aug_tensor_ptr(b))[49 + 3 * 7 + 3] = 1.0;
    float sg[2] = {0.0f, 1.0f};
    aug_tensor *ts = make_f32(2, sg);
    assert_int_equal(aug_gaussian_blur(b, ts, 3, &bo), AUG_OK);
    const double *q = aug_tensor_ptr(bo);
    double e = exp(-0.5), c = 1.0 / (1.0 + 2.0 * e);
    assert_true(q[3 * 7 + 3] == 1.0 && q[3 * 7 + 4] == 0.0);
    assert_true(fabs(q[49 + 3 * 7 + 3] - c * c) < 1e-15);
    assert_true(fabs(q[49 + 2 * 7 + 4] - c * e * c * e) < 1e-15);
    assert_true(q[49 + 1 * 7 + 3] == 0.0);
    aug_tensor_free(in);
    aug_tensor_free(out);
    aug_tensor_free(b);
    aug_tensor_free(bo);
    aug_tensor_free(ts);
}

static void test_blur_errors(void **state) {
    (void)state;
    int64_t s3[3] = {1, 2, 2}, s4[4] = {2, 1, 2, 2};
    uint8_t z[8] = {0};
    aug_tensor *in = make_u8(3, s3, z), *b = make_u8(4, s4, z), *out = NULL;
    float sg[2] = {1.0f, NAN};
    aug_tensor *ts = make_f32(2, sg), *t1 = make_f32(1, sg);
    expect_error(aug_box_blur_single(in, 0, &out), AUG_ERR_VALUE, "aug_box_blur_single: ksize = 0 must be >= 1");
    expect_error(aug_box_blur_single(b, 3, &out), AUG_ERR_VALUE, "aug_box_blur_single: input must be (C, H, W)");
    expect_error(aug_box_blur_single(NULL, 3, &out), AUG_ERR_VALUE, "aug_box_blur_single");
    expect_error(aug_gaussian_blur_single(in, NAN, &out), AUG_ERR_VALUE, "aug_gaussian_blur_single: sigma = nan");
    expect_error(aug_gaussian_blur_single(in, INFINITY, &out), AUG_ERR_VALUE, "must be finite");
    expect_error(aug_gaussian_blur(b, ts, 5, &out), AUG_ERR_VALUE, "aug_gaussian_blur: sigmas[1] = nan");
    expect_error(aug_gaussian_blur(b, t1, 5, &out), AUG_ERR_VALUE, "aug_gaussian_blur: sigmas has shape (1,)");
    expect_error(aug_gaussian_blur(b, ts, 0, &out), AUG_ERR_VALUE, "max_ksize = 0 must be >= 1");
    expect_error(aug_gaussian_blur(b, NULL, 3, &out), AUG_ERR_VALUE, "sigmas is NULL");
    aug_tensor *wrong = aug_tensor_empty(3, s3, AUG_INT16, aug_cpu_device());
    expect_error(aug_box_blur_single(in, 3, &wrong), AUG_ERR_TYPE, "out has dtype int16");
    assert_null(out);
    aug_tensor_free(in);
    aug_tensor_free(b);
    aug_tensor_free(ts);
    aug_tensor_free(t1);
    aug_tensor_free(wrong);
}

/* The box mean's reciprocal division: round half to even of sum / k^2, for every
 * sum 0 .. 255 k^2 and every k the 8-bit kernel takes. */
static void test_box8_division_exhaustive(void **state) {
    (void)state;
    for (int64_t k = 1; k <= AUG__BOX8_MAX; k++) {
        uint32_t kk = (uint32_t)(k * k);
        aug__box8_div dv = aug__box8_div_for(k);
        for (uint32_t sum = 0; sum <= 255 * kk; sum++) {
            uint32_t t = sum + kk / 2, q = t >> dv.shift;
            if (dv.mul) q = ((q * dv.mul) >> 16) >> dv.post;
            if (!(kk & 1) && q * kk == t) q &= ~1u;
            uint32_t want = sum / kk, rem = sum % kk; /* exact: to nearest, ties to even */
            if (2 * rem > kk || (2 * rem == kk && (want & 1))) want++;
            if (q != want) fail_msg("k=%d sum=%u: %u != %u", (int)k, sum, q, want);
        }
    }
}

static uint32_t lcg(uint32_t *s) { return *s = *s * 1664525u + 1013904223u; }

/* The AVX2 kernels (and the Gaussian's AVX-512 ones, where the CPU has them)
 * give the same bytes as the portable loops (tails included: widths that are
 * not multiples of the vector sizes), uint8 and int8. */
static void test_blur8_simd_equals_portable(void **state) {
    (void)state;
    int level = aug__simd_cpu_level();
    if (level < AUG__SIMD_AVX2) skip();
    const int64_t dims[][2] = {{37, 61}, {64, 80}, {5, 3}, {20, 33}, {30, 224}, {9, 95}};
    uint32_t seed = 1;
    for (size_t d = 0; d < sizeof dims / sizeof *dims; d++) {
        int64_t H = dims[d][0], W = dims[d][1], n = H * W;
        uint8_t *src = malloc((size_t)n), *a = malloc((size_t)n), *b = malloc((size_t)n);
        assert_non_null(src);
        assert_non_null(a);
        assert_non_null(b);
        for (int64_t i = 0; i < n; i++) src[i] = (uint8_t)(lcg(&seed) >> 24);
        for (int flip = 0; flip <= 0x80; flip += 0x80) {
            for (int64_t k = 1; k <= AUG__BOX8_MAX; k++) {
                assert_int_equal(aug__blur_box8_rows(k, src, a, H, W, 0, H, (uint8_t)flip, AUG__SIMD_NONE), 0);
                assert_int_equal(aug__blur_box8_rows(k, src, b, H, W, 0, H, (uint8_t)flip, level), 0);
                assert_memory_equal(a, b, (size_t)n);
                /* bands give the same rows as the whole plane */
                assert_int_equal(aug__blur_box8_rows(k, src, b, H, W, 0, H / 3, (uint8_t)flip, level), 0);
                assert_int_equal(aug__blur_box8_rows(k, src, b, H, W, H / 3, H, (uint8_t)flip, level), 0);
                assert_memory_equal(a, b, (size_t)n);
            }
            const double sigmas[] = {0.5, 1.0, 2.0, 3.5, 40.0};
            for (size_t si = 0; si < sizeof sigmas / sizeof *sigmas; si++)
                for (int64_t clip = 0; clip <= 1; clip++) { /* clip: an even, asymmetric window */
                    int64_t k = aug__gaussian_ksize64(sigmas[si], clip ? 6 : 0);
                    aug__taps tv, th;
                    assert_int_equal(aug__blur_taps("t", k, sigmas[si], H, &tv), AUG_OK);
                    assert_int_equal(aug__blur_taps("t", k, sigmas[si], W, &th), AUG_OK);
                    assert_int_equal(aug__blur_gauss8_rows(&tv, &th, src, a, H, W, 0, H, (uint8_t)flip, AUG__SIMD_NONE), 0);
                    for (int lv = AUG__SIMD_AVX2; lv <= level; lv++) {
                        assert_int_equal(aug__blur_gauss8_rows(&tv, &th, src, b, H, W, 0, H, (uint8_t)flip, lv), 0);
                        assert_memory_equal(a, b, (size_t)n);
                        assert_int_equal(aug__blur_gauss8_rows(&tv, &th, src, b, H, W, 0, H / 2, (uint8_t)flip, lv), 0);
                        assert_int_equal(aug__blur_gauss8_rows(&tv, &th, src, b, H, W, H / 2, H, (uint8_t)flip, lv), 0);
                        assert_memory_equal(a, b, (size_t)n);
                    }
                    free(tv.w);
                    free(th.w);
                }
        }
        free(src);
        free(a);
        free(b);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ksize),          cmocka_unit_test(test_lighting_values),
        cmocka_unit_test(test_lighting_errors), cmocka_unit_test(test_box_blur_small),
        cmocka_unit_test(test_gaussian_small), cmocka_unit_test(test_blur_errors),
        cmocka_unit_test(test_box8_division_exhaustive), cmocka_unit_test(test_blur8_simd_equals_portable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
