/* test_colour.c: the colour C API (aug/colour.h). ColorJitter's sampling from an
 * aug_rng against its definition over the generator's own uniform draws; argument
 * errors with their messages; uint8 brightness over every value against the
 * rule written out here; the contrast mean of a two-valued image by hand;
 * aug_color_jitter_lighting against aug_color_jitter then aug_lighting. The
 * CUDA backend against these: tests/c/parity/cases_colour.c; the per-value
 * match with torchvision is tests/python/test_colour.py's. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "aug/aug.h"
#include "helpers/th_cuda.h"

/* The sampler equals aug_color_jitter_params over the (n, 7) uniforms of the same call. */
static void test_sample_follows_definition(void **state) {
    (void)state;
    enum { N = 300 };
    const uint64_t seed = 99;
    aug_rng *rng = aug_rng_new(CPU, &seed), *ref = aug_rng_new(CPU, &seed);
    const double br[2] = {0.6, 1.4}, hr[2] = {-0.1, 0.1};
    double b[N], h[N], b2[N], h2[N], u[7 * N];
    int32_t order[4 * N], order2[4 * N];
    assert_int_equal(aug_color_jitter_sample(rng, N, br, NULL, NULL, hr, 1, b, NULL, NULL, h, order), AUG_OK);
    aug_tensor *t = aug_tensor_empty(2, (int64_t[]){N, 7}, AUG_FLOAT64, CPU);
    assert_int_equal(aug_rng_uniform(ref, t, 0.0, 1.0), AUG_OK);
    memcpy(u, aug_tensor_ptr(t), sizeof u);
    assert_int_equal(aug_color_jitter_params(N, u, br, NULL, NULL, hr, 1, b2, NULL, NULL, h2, order2), AUG_OK);
    assert_memory_equal(b, b2, sizeof b);
    assert_memory_equal(h, h2, sizeof h);
    assert_memory_equal(order, order2, sizeof order);
    int seen[24] = {0};
    for (int i = 0; i < N; i++) {
        assert_true(b[i] >= 0.6 && b[i] <= 1.4 && h[i] >= -0.1 && h[i] <= 0.1);
        assert_true(fabs(b[i] - (0.6 + u[7 * i] * 0.8)) < 1e-15);
        int used = 0, code = 0;
        for (int k = 0; k < 4; k++) {
            assert_true(order[4 * i + k] >= 0 && order[4 * i + k] < 4);
            used |= 1 << order[4 * i + k];
            code = code * 4 + order[4 * i + k];
        }
        assert_int_equal(used, 15);
        for (int p = 0; p < 24; p++)
            if (seen[p] == code + 1)
                break;
            else if (!seen[p]) {
                seen[p] = code + 1;
                break;
            }
    }
    assert_true(seen[23] != 0); /* all 24 orders occur in 300 draws */
    aug_rng_state s;
    assert_int_equal(aug_rng_get_state(rng, &s), AUG_OK);
    assert_int_equal((int)s.calls, 1);
    /* random_order 0: the identity order */
    assert_int_equal(aug_color_jitter_sample(rng, 2, br, NULL, NULL, NULL, 0, b, NULL, NULL, NULL, order), AUG_OK);
    for (int k = 0; k < 8; k++) assert_int_equal(order[k], k % 4);
    aug_tensor_free(t);
    aug_rng_free(rng);
    aug_rng_free(ref);
}

static void expect(aug_status got, aug_status want, const char *msg) {
    assert_int_equal(got, want);
    if (strstr(aug_last_error(), msg) == NULL) fail_msg("'%s' does not contain '%s'", aug_last_error(), msg);
}

static void test_errors(void **state) {
    (void)state;
    const uint64_t seed = 1;
    aug_rng *rng = aug_rng_new(CPU, &seed);
    const double ok[2] = {0.5, 1.5}, bad_order[2] = {1.5, 0.5}, neg[2] = {-0.1, 1.0}, hue[2] = {-0.6, 0.1};
    double out[4];
    int32_t order[16];
    expect(aug_color_jitter_sample(rng, 2, ok, NULL, NULL, NULL, 1, NULL, NULL, NULL, NULL, order), AUG_ERR_VALUE,
           "aug_color_jitter_sample: the brightness output is NULL");
    expect(aug_color_jitter_sample(rng, 2, bad_order, NULL, NULL, NULL, 1, out, NULL, NULL, NULL, order), AUG_ERR_VALUE,
           "brightness range (1.5, 0.5) must be finite with min <= max");
    expect(aug_color_jitter_sample(rng, 2, NULL, NULL, neg, NULL, 1, NULL, NULL, out, NULL, order), AUG_ERR_VALUE,
           "saturation range (-0.1, 1) must lie in [0, inf)");
    expect(aug_color_jitter_sample(rng, 2, NULL, NULL, NULL, hue, 1, NULL, NULL, NULL, out, order), AUG_ERR_VALUE,
           "hue range (-0.6, 0.1) must lie in [-0.5, 0.5]");
    expect(aug_color_jitter_sample(rng, -1, NULL, NULL, NULL, NULL, 1, NULL, NULL, NULL, NULL, order), AUG_ERR_VALUE,
           "n = -1 must be >= 0");
    expect(aug_color_jitter_sample(NULL, 1, NULL, NULL, NULL, NULL, 1, NULL, NULL, NULL, NULL, order), AUG_ERR_VALUE,
           "rng is NULL");
    aug_rng_state s;
    assert_int_equal(aug_rng_get_state(rng, &s), AUG_OK);
    assert_int_equal((int)s.calls, 0); /* failed calls draw nothing */
    const double u[7] = {0.5, 0.5, 0.5, 0.5, 0.5, 1.0, 0.5};
    expect(aug_color_jitter_params(1, u, ok, NULL, NULL, NULL, 1, out, NULL, NULL, NULL, order), AUG_ERR_VALUE,
           "aug_color_jitter_params: u[5] = 1 is not in [0, 1)");

    aug_tensor *im = aug_tensor_empty(4, (int64_t[]){2, 3, 4, 5}, AUG_UINT8, CPU), *res = NULL;
    memset(aug_tensor_ptr(im), 100, 120);
    expect(aug_adjust_brightness(im, -1.0, &res), AUG_ERR_VALUE, "aug_adjust_brightness: brightness = -1 must be");
    expect(aug_adjust_hue(im, NAN, &res), AUG_ERR_VALUE, "aug_adjust_hue: hue = nan must be in [-0.5, 0.5]");
    const double f2[2] = {1.0, INFINITY};
    expect(aug_color_jitter(im, NULL, f2, NULL, NULL, NULL, &res), AUG_ERR_VALUE,
           "aug_color_jitter: contrast[1] = inf must be finite and >= 0");
    const int32_t perm[8] = {0, 1, 2, 3, 1, 1, 2, 3};
    expect(aug_color_jitter(im, NULL, NULL, NULL, NULL, perm, &res), AUG_ERR_VALUE,
           "aug_color_jitter: order[1] = (1, 1, 2, 3) is not a permutation of 0, 1, 2, 3");
    expect(aug_rgb_to_grayscale(im, 2, &res), AUG_ERR_VALUE, "num_output_channels must be 1 or 3, got 2");
    expect(aug_rgb_to_hsv(im, &res), AUG_ERR_TYPE, "aug_rgb_to_hsv: image dtype uint8 is not supported");
    expect(aug_adjust_saturation(im, 1.0, NULL), AUG_ERR_VALUE, "aug_adjust_saturation: out is NULL");
    aug_tensor *four = aug_tensor_empty(3, (int64_t[]){4, 2, 2}, AUG_FLOAT32, CPU);
    expect(aug_adjust_contrast(four, 1.0, &res), AUG_ERR_VALUE, "image has 4 channels but 1 or 3 is needed");
    aug_tensor *half = aug_tensor_empty(3, (int64_t[]){3, 2, 2}, AUG_FLOAT16, CPU);
    expect(aug_adjust_contrast(half, 1.0, &res), AUG_ERR_TYPE, "image dtype float16 is not supported");
    assert_null(res);
    aug_tensor_free(half), aug_tensor_free(four);
    aug_tensor_free(im);
    aug_rng_free(rng);
}

/* uint8 brightness over every value: trunc(clamp((float)x * (float)f, 0, 255)). */
static void test_brightness_every_value(void **state) {
    (void)state;
    aug_tensor *im = aug_tensor_empty(3, (int64_t[]){1, 16, 16}, AUG_UINT8, CPU);
    uint8_t *p = aug_tensor_ptr(im);
    for (int i = 0; i < 256; i++) p[i] = (uint8_t)i;
    const double fs[4] = {0.0, 0.37, 1.0, 1.7};
    for (int k = 0; k < 4; k++) {
        aug_tensor *out = NULL;
        assert_int_equal(aug_adjust_brightness(im, fs[k], &out), AUG_OK);
        const uint8_t *o = aug_tensor_ptr(out);
        for (int i = 0; i < 256; i++) {
            float v = (float)i * (float)fs[k];
            v = v > 255.0f ? 255.0f : v;
            assert_int_equal(o[i], (int)v);
        }
        aug_tensor_free(out);
    }
    aug_tensor_free(im);
}

/* Half the pixels 0, half 255, three channels: the gray of white is floor(254.97) = 254, the
 * mean 127; contrast 0.5: 255 -> trunc(127.5 + 63.5) = 191, 0 -> trunc(63.5) = 63. In place. */
static void test_contrast_by_hand(void **state) {
    (void)state;
    aug_tensor *im = aug_tensor_empty(3, (int64_t[]){3, 2, 4}, AUG_UINT8, CPU);
    uint8_t *p = aug_tensor_ptr(im);
    for (int i = 0; i < 24; i++) p[i] = (uint8_t)(i % 8 < 4 ? 255 : 0);
    aug_tensor *out = im;
    assert_int_equal(aug_adjust_contrast(im, 0.5, &out), AUG_OK);
    assert_ptr_equal(out, im);
    for (int i = 0; i < 24; i++) assert_int_equal(p[i], i % 8 < 4 ? 191 : 63);
    aug_tensor_free(im);
}

/* A float32 tensor of n values on `where`. */
static aug_tensor *f32_tensor(const float *v, int64_t n, aug_device where) {
    aug_tensor *t = aug_tensor_empty(1, &n, AUG_FLOAT32, CPU);
    assert_non_null(t);
    memcpy(aug_tensor_ptr(t), v, (size_t)n * sizeof(float));
    aug_tensor *r = aug_tensor_to(t, where);
    aug_tensor_free(t);
    return r;
}

/* aug_color_jitter_lighting: aug_color_jitter then aug_lighting (float32 parameter
 * tensors of the values) byte for byte on the CPU (on a CUDA device:
 * tests/c/parity/cases_colour.c); lighting NULL is aug_color_jitter; the
 * lighting's argument errors. */
static void test_jitter_lighting(void **state) {
    (void)state;
    const aug_dtype dts[2] = {AUG_UINT8, AUG_FLOAT32};
    enum { N = 4 };
    const uint64_t seed = 9;
    aug_rng *rng = aug_rng_new(CPU, &seed);
    const double br[2] = {0.2, 1.8}, hr[2] = {-0.5, 0.5};
    double b[N], c[N], s[N], h[N];
    int32_t order[4 * N];
    assert_int_equal(aug_color_jitter_sample(rng, N, br, br, br, hr, 1, b, c, s, h, order), AUG_OK);
    const double gg[N] = {1.0, 0.45, 2.2, 1.3}, ct[N] = {-1.0, 1.0, 0.35, -0.6};
    const double gc[3 * N] = {1.0, 1.1, 0.9, 0.7, 1.0, 1.4, 1.0, 1.0, 1.0, 0.5, 2.0, 1.2};
    for (int d = 0; d < 2; d++)
        for (int ch = 1; ch <= 3; ch += 2)
            {
                aug_device where = CPU;
                aug_tensor *x0 = aug_tensor_empty(4, (int64_t[]){N, ch, 21, 25}, dts[d], CPU);
                uint64_t st = 777;
                for (int64_t i = 0; i < aug_tensor_size(x0); i++) {
                    st = st * 6364136223846793005ull + 1442695040888963407ull;
                    if (dts[d] == AUG_UINT8)
                        ((uint8_t *)aug_tensor_ptr(x0))[i] = (uint8_t)(st >> 56);
                    else
                        ((float *)aug_tensor_ptr(x0))[i] = (float)(st >> 40) / 16777216.0f * 1.2f - 0.1f;
                }
                aug_tensor *x = aug_tensor_to(x0, where);
                assert_non_null(x);
                const double vmax = dts[d] == AUG_UINT8 ? 255.0 : 1.0;
                float fgg[N], fgc[3 * N], fct[N];
                for (int i = 0; i < N; i++) fgg[i] = (float)gg[i], fct[i] = (float)ct[i];
                for (int i = 0; i < N * ch; i++) fgc[i] = (float)gc[i];
                aug_tensor *tgg = f32_tensor(fgg, N, where), *tgc = f32_tensor(fgc, N * ch, where);
                aug_tensor *tct = f32_tensor(fct, N, where);
                assert_true(tgg && tgc && tct);
                aug_jitter_lighting l = {gg, gc, ct, 0.0, vmax};
                for (int steps = 0; steps < 3; steps++) {
                    const double *bb = steps == 2 ? NULL : b, *cc = steps == 1 ? NULL : c, *ss = steps ? NULL : s;
                    aug_tensor *want = NULL, *got = NULL, *plain = NULL, *cpu = NULL;
                    assert_int_equal(aug_color_jitter(x, bb, cc, ss, h, order, &want), AUG_OK);
                    assert_int_equal(aug_lighting(want, tgg, tgc, tct, 0.0, vmax, &want), AUG_OK);
                    assert_int_equal(aug_color_jitter_lighting(x, bb, cc, ss, h, order, &l, &got), AUG_OK);
                    size_t na, nb;
                    unsigned char *ba = th_bytes_of(want, &na), *bg = th_bytes_of(got, &nb);
                    assert_int_equal(na, nb);
                    th_compare("jitter_lighting", dts[d], ba, bg, na, 0);
                    free(bg);
                    free(ba);
                    assert_int_equal(aug_color_jitter_lighting(x, bb, cc, ss, h, order, NULL, &got), AUG_OK);
                    assert_int_equal(aug_color_jitter(x, bb, cc, ss, h, order, &plain), AUG_OK);
                    ba = th_bytes_of(plain, &na), bg = th_bytes_of(got, &nb);
                    th_compare("jitter_lighting NULL", dts[d], ba, bg, na, 0);
                    free(ba), free(bg);
                    aug_tensor_free(want), aug_tensor_free(got), aug_tensor_free(plain), aug_tensor_free(cpu);
                }
                aug_tensor_free(tgg), aug_tensor_free(tgc), aug_tensor_free(tct);
                aug_tensor_free(x), aug_tensor_free(x0);
            }
    aug_tensor *im = aug_tensor_empty(4, (int64_t[]){N, 3, 4, 5}, AUG_UINT8, CPU), *res = NULL;
    memset(aug_tensor_ptr(im), 100, (size_t)aug_tensor_size(im));
    const double bad_ct[N] = {0.0, 0.0, 0.0, 1.5}, bad_gg[N] = {1.0, NAN, 1.0, 1.0};
    aug_jitter_lighting l = {gg, gc, bad_ct, 0.0, 255.0};
    expect(aug_color_jitter_lighting(im, b, NULL, NULL, NULL, NULL, &l, &res), AUG_ERR_VALUE,
           "aug_color_jitter_lighting: contrasts[3] = 1.5 is outside [-1, 1]");
    l.contrasts = ct, l.gammagrays = bad_gg;
    expect(aug_color_jitter_lighting(im, b, NULL, NULL, NULL, NULL, &l, &res), AUG_ERR_VALUE,
           "aug_color_jitter_lighting: gammagrays[1] = nan must be finite and > 0");
    l.gammagrays = gg, l.vmin = 255.0;
    expect(aug_color_jitter_lighting(im, b, NULL, NULL, NULL, NULL, &l, &res), AUG_ERR_VALUE,
           "aug_color_jitter_lighting: vmin = 255 and vmax = 255 must be finite with vmin < vmax");
    l.vmin = 0.0, l.gammacolors = NULL;
    expect(aug_color_jitter_lighting(im, b, NULL, NULL, NULL, NULL, &l, &res), AUG_ERR_VALUE,
           "aug_color_jitter_lighting: lighting->gammacolors is NULL");
    l.gammacolors = gc;
    const double neg[N] = {1.0, 1.0, -2.0, 1.0};
    expect(aug_color_jitter_lighting(im, neg, NULL, NULL, NULL, NULL, &l, &res), AUG_ERR_VALUE,
           "aug_color_jitter_lighting: brightness[2] = -2 must be finite and >= 0");
    assert_null(res);
    aug_tensor_free(im);
    aug_rng_free(rng);
}

/* rgb_to_grayscale against torchvision's rule written out, fmaf(b, 0.114, fmaf(g, 0.587,
 * r * 0.2989)) (truncated for uint8), on sizes that end the CPU's 256-pixel blocks and 8-lane
 * vectors mid-way, into a new tensor and in place (out == the image), 1 and 3 output
 * channels, uint8 and float32. */
static void test_grayscale_rule_and_in_place(void **state) {
    (void)state;
    const int64_t sizes[][3] = {{1, 1, 1}, {2, 3, 5}, {3, 17, 31}, {1, 16, 16}, {2, 61, 97}};
    uint32_t x = 12345;
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
        for (int f32 = 0; f32 < 2; f32++) {
            const int64_t n = sizes[k][0], hw = sizes[k][1] * sizes[k][2];
            const int64_t shape[4] = {n, 3, sizes[k][1], sizes[k][2]};
            aug_tensor *im = aug_tensor_empty(4, shape, f32 ? AUG_FLOAT32 : AUG_UINT8, CPU);
            aug_tensor *copy = aug_tensor_empty(4, shape, f32 ? AUG_FLOAT32 : AUG_UINT8, CPU);
            assert_non_null(im);
            for (int64_t i = 0; i < n * 3 * hw; i++) {
                x = x * 1664525u + 1013904223u;
                uint8_t v = (uint8_t)(x >> 24);
                if (f32) ((float *)aug_tensor_ptr(im))[i] = (float)v / 255.0f;
                else ((uint8_t *)aug_tensor_ptr(im))[i] = v;
            }
            memcpy(aug_tensor_ptr(copy), aug_tensor_ptr(im), (size_t)(n * 3 * hw) * (f32 ? 4 : 1));
            for (int oc = 1; oc <= 3; oc += 2) {
                aug_tensor *res = NULL;
                assert_int_equal(aug_rgb_to_grayscale(im, oc, &res), AUG_OK);
                for (int64_t i = 0; i < n; i++)
                    for (int64_t q = 0; q < hw; q++) {
                        float rgb[3];
                        for (int c = 0; c < 3; c++) {
                            int64_t at = (i * 3 + c) * hw + q;
                            rgb[c] = f32 ? ((const float *)aug_tensor_ptr(im))[at]
                                         : (float)((const uint8_t *)aug_tensor_ptr(im))[at];
                        }
                        float gray = fmaf(rgb[2], 0.114f, fmaf(rgb[1], 0.587f, rgb[0] * 0.2989f));
                        for (int c = 0; c < oc; c++) {
                            int64_t at = (i * oc + c) * hw + q;
                            if (f32) assert_true(((const float *)aug_tensor_ptr(res))[at] == gray);
                            else assert_int_equal(((const uint8_t *)aug_tensor_ptr(res))[at], (uint8_t)truncf(gray));
                        }
                    }
                if (oc == 3) { /* in place: the same values */
                    aug_tensor *same = copy;
                    assert_int_equal(aug_rgb_to_grayscale(copy, 3, &same), AUG_OK);
                    assert_ptr_equal(same, copy);
                    assert_memory_equal(aug_tensor_ptr(copy), aug_tensor_ptr(res), (size_t)(n * 3 * hw) * (f32 ? 4 : 1));
                }
                aug_tensor_free(res);
            }
            aug_tensor_free(im);
            aug_tensor_free(copy);
        }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sample_follows_definition), cmocka_unit_test(test_errors),
        cmocka_unit_test(test_brightness_every_value),    cmocka_unit_test(test_contrast_by_hand),
        cmocka_unit_test(test_jitter_lighting),        cmocka_unit_test(test_grayscale_rule_and_in_place),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
