/* cases_colour.c: parity cases of the colour family (from tests/c/test_colour.c,
 * which keeps the CPU's references): every colour function on uint8, uint16 and float32
 * images of 1 and 3 channels, byte for byte (float32 included: both backends
 * sum the contrast mean in the same order); aug_color_jitter_lighting on the
 * device against aug_color_jitter then aug_lighting there and against the CPU;
 * the contrast mean's rows over chunk and image edges, float32 rows whose sum
 * depends on the order;
 * aug_invert, aug_posterize and aug_solarize (the tone family) on 2-4-d views of every layout it reads and every
 * dtype it takes, out of place and in place; aug_equalize, aug_autocontrast and
 * aug_adjust_sharpness (the autotone family) likewise, uint16 included (equalize's
 * 65536 bins), channels first and last. */
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

enum { N = 4 };

/* An (N, ch, h, w) image of random bytes / uint16 values / floats in [-0.1, 1.1) on the CPU, and on the device. */
static void image(ph_run *r, aug_dtype t, int ch, int64_t h, int64_t w, aug_tensor **cpu, aug_tensor **dev) {
    *cpu = aug_tensor_empty(4, (int64_t[]){N, ch, h, w}, t, CPU);
    for (int64_t i = 0; i < aug_tensor_size(*cpu); i++) {
        uint64_t st = ph_rand(r);
        if (t == AUG_UINT8) ((uint8_t *)aug_tensor_ptr(*cpu))[i] = (uint8_t)(st >> 56);
        else if (t == AUG_UINT16) ((uint16_t *)aug_tensor_ptr(*cpu))[i] = (uint16_t)(st >> 48);
        else ((float *)aug_tensor_ptr(*cpu))[i] = (float)(st >> 40) / 16777216.0f * 1.2f - 0.1f;
    }
    *dev = aug_tensor_to(*cpu, ph_dev(r));
    assert_non_null(*dev);
    ph_inputs(r, 1, (const aug_tensor *const *)cpu);
}

static void sample(ph_run *r, double *b, double *c, double *s, double *h, int32_t *order) {
    uint64_t seed = ph_rand(r) % 1000;
    aug_rng *rng = aug_rng_new(CPU, &seed);
    const double br[2] = {0.2, 1.8}, hr[2] = {-0.5, 0.5};
    assert_int_equal(aug_color_jitter_sample(rng, N, br, br, br, hr, 1, b, c, s, h, order), AUG_OK);
    aug_rng_free(rng);
}

static void run_functions(ph_run *r, const ph_case *cs) {
    double b[N], c[N], s[N], h[N];
    int32_t order[4 * N];
    sample(r, b, c, s, h, order);
    for (int d = 0; d < ph_ndtypes(cs); d++)
        for (int ch = 1; ch <= 3; ch += 2)
            for (int size = 0; size < 2; size++) {
                aug_dtype t = ph_dtype(cs, d);
                aug_tensor *x, *xd;
                image(r, t, ch, size ? ph_range(r, 1, 40) : 19, size ? ph_range(r, 1, 40) : 23, &x, &xd);
                for (int f = 0; f < 8; f++) {
                    aug_tensor *a = NULL, *g = NULL;
                    aug_status sa, sb;
                    switch (f) {
                    case 0:
                        sa = aug_color_jitter(x, b, c, s, h, order, &a), sb = aug_color_jitter(xd, b, c, s, h, order, &g);
                        break;
                    case 1: sa = aug_adjust_brightness(x, 1.3, &a), sb = aug_adjust_brightness(xd, 1.3, &g); break;
                    case 2: sa = aug_adjust_contrast(x, 0.7, &a), sb = aug_adjust_contrast(xd, 0.7, &g); break;
                    case 3: sa = aug_adjust_saturation(x, 1.6, &a), sb = aug_adjust_saturation(xd, 1.6, &g); break;
                    case 4: sa = aug_adjust_hue(x, -0.2, &a), sb = aug_adjust_hue(xd, -0.2, &g); break;
                    case 5: sa = aug_rgb_to_grayscale(x, 3, &a), sb = aug_rgb_to_grayscale(xd, 3, &g); break;
                    case 6:
                        if (ch != 3 || t != AUG_FLOAT32) continue;
                        sa = aug_rgb_to_hsv(x, &a), sb = aug_rgb_to_hsv(xd, &g);
                        break;
                    default:
                        if (ch != 3 || t != AUG_FLOAT32) continue;
                        sa = aug_hsv_to_rgb(x, &a), sb = aug_hsv_to_rgb(xd, &g);
                        break;
                    }
                    static const char *const names[8] = {"color_jitter",   "adjust_brightness", "adjust_contrast",
                                                         "adjust_saturation", "adjust_hue",     "rgb_to_grayscale",
                                                         "rgb_to_hsv",     "hsv_to_rgb"};
                    assert_int_equal(sa, AUG_OK);
                    assert_int_equal(sb, AUG_OK);
                    ph_check(r, names[f], a, g);
                    aug_tensor_free(a), aug_tensor_free(g);
                }
                aug_tensor_free(x), aug_tensor_free(xd);
            }
}

/* The contrast mean's row pass (src/cuda/colour.cu: blocks of 32 rows, chunks
 * of 32 columns): widths of one, just under and over a chunk and of several,
 * heights that put a group's rows in two or more images, on every dtype with
 * adjust_contrast and color_jitter; and float32 images whose rows' double sums
 * depend on the order (1 + 2^-60 + ... - 1: 0 left to right, the tiny terms
 * vanish; summed first, they make the mean and the tiny pixels' outputs
 * differ), so an order other than the CPU's stores other bits. */
static void run_contrast_rows(ph_run *r, const ph_case *cs) {
    double b[N], c[N], s[N], h[N];
    int32_t order[4 * N];
    sample(r, b, c, s, h, order);
    const int64_t widths[6] = {1, 31, 33, 64, 97, 0};
    for (int d = 0; d < ph_ndtypes(cs); d++)
        for (int wi = 0; wi < 6; wi++) {
            aug_dtype t = ph_dtype(cs, d);
            const int ch = wi % 2 ? 3 : 1;
            const int64_t w = widths[wi] ? widths[wi] : ph_range(r, 1, 300), hh = ph_range(r, 1, 45);
            aug_tensor *x, *xd, *a = NULL, *g = NULL;
            image(r, t, ch, hh, w, &x, &xd);
            if (t == AUG_FLOAT32 && wi < 5) { /* every row 1, tiny, ..., tiny, -1: its sum 0 left to right */
                float *v = (float *)aug_tensor_ptr(x);
                for (int64_t i = 0; i < N * ch * hh; i++)
                    for (int64_t k = 0; k < w; k++)
                        v[i * w + k] = k == 0 ? 1.0f : k == w - 1 && w > 2 ? -1.0f : 0x1p-60f;
                aug_tensor_free(xd);
                xd = aug_tensor_to(x, ph_dev(r));
                assert_non_null(xd);
            }
            assert_int_equal(aug_adjust_contrast(x, 0.6, &a), AUG_OK);
            assert_int_equal(aug_adjust_contrast(xd, 0.6, &g), AUG_OK);
            ph_check(r, "adjust_contrast", a, g);
            aug_tensor_free(a), aug_tensor_free(g), a = g = NULL;
            assert_int_equal(aug_color_jitter(x, b, c, s, h, order, &a), AUG_OK);
            assert_int_equal(aug_color_jitter(xd, b, c, s, h, order, &g), AUG_OK);
            ph_check(r, "color_jitter", a, g);
            aug_tensor_free(a), aug_tensor_free(g), aug_tensor_free(x), aug_tensor_free(xd);
        }
}

static aug_tensor *f32_tensor(const float *v, int64_t n, aug_device where) {
    aug_tensor *t = aug_tensor_empty(1, &n, AUG_FLOAT32, CPU);
    memcpy(aug_tensor_ptr(t), v, (size_t)n * sizeof(float));
    aug_tensor *d = aug_tensor_to(t, where);
    aug_tensor_free(t);
    assert_non_null(d);
    return d;
}

static void run_jitter_lighting(ph_run *r, const ph_case *cs) {
    double b[N], c[N], s[N], h[N];
    int32_t order[4 * N];
    sample(r, b, c, s, h, order);
    const double gg[N] = {1.0, 0.45, 2.2, 1.3}, ct[N] = {-1.0, 1.0, 0.35, -0.6};
    const double gc[3 * N] = {1.0, 1.1, 0.9, 0.7, 1.0, 1.4, 1.0, 1.0, 1.0, 0.5, 2.0, 1.2};
    for (int d = 0; d < ph_ndtypes(cs); d++)
        for (int ch = 1; ch <= 3; ch += 2) {
            aug_dtype t = ph_dtype(cs, d);
            aug_tensor *x0, *x;
            image(r, t, ch, ph_range(r, 1, 30), ph_range(r, 1, 30), &x0, &x);
            const double vmax = t == AUG_UINT8 ? 255.0 : t == AUG_UINT16 ? 65535.0 : 1.0;
            float fgg[N], fgc[3 * N], fct[N];
            for (int i = 0; i < N; i++) fgg[i] = (float)gg[i], fct[i] = (float)ct[i];
            for (int i = 0; i < N * ch; i++) fgc[i] = (float)gc[i];
            aug_tensor *tgg = f32_tensor(fgg, N, ph_dev(r)), *tgc = f32_tensor(fgc, N * ch, ph_dev(r));
            aug_tensor *tct = f32_tensor(fct, N, ph_dev(r));
            aug_jitter_lighting l = {gg, gc, ct, 0.0, vmax};
            for (int steps = 0; steps < 3; steps++) {
                const double *bb = steps == 2 ? NULL : b, *cc = steps == 1 ? NULL : c, *ss = steps ? NULL : s;
                aug_tensor *want = NULL, *got = NULL, *plain = NULL, *gplain = NULL, *cpu = NULL;
                /* on the device: the fused call against its two steps */
                assert_int_equal(aug_color_jitter(x, bb, cc, ss, h, order, &want), AUG_OK);
                assert_int_equal(aug_lighting(want, tgg, tgc, tct, 0.0, vmax, &want), AUG_OK);
                assert_int_equal(aug_color_jitter_lighting(x, bb, cc, ss, h, order, &l, &got), AUG_OK);
                ph_check(r, "jitter_lighting against jitter then lighting on the device", want, got);
                assert_int_equal(aug_color_jitter_lighting(x0, bb, cc, ss, h, order, &l, &cpu), AUG_OK);
                ph_check(r, "jitter_lighting", cpu, got);
                aug_tensor_free(got), got = NULL;
                assert_int_equal(aug_color_jitter_lighting(x, bb, cc, ss, h, order, NULL, &got), AUG_OK);
                assert_int_equal(aug_color_jitter(x0, bb, cc, ss, h, order, &plain), AUG_OK);
                assert_int_equal(aug_color_jitter(x, bb, cc, ss, h, order, &gplain), AUG_OK);
                ph_check(r, "jitter_lighting without lighting", plain, got);
                ph_check(r, "color_jitter", plain, gplain);
                aug_tensor_free(want), aug_tensor_free(got), aug_tensor_free(plain), aug_tensor_free(gplain);
                aug_tensor_free(cpu);
            }
            aug_tensor_free(tgg), aug_tensor_free(tgc), aug_tensor_free(tct);
            aug_tensor_free(x), aug_tensor_free(x0);
        }
}

/* A tone op (its kind: 0 invert, 1 posterize, 2 solarize) on the image x with count
 * operands drawn into bits / thr (random bits in [0, 17], unchanged integers
 * included; thresholds anywhere in the dtype's range and below it). */
static aug_status tone(int kind, const aug_tensor *x, const int32_t *bits, const double *thr, int64_t count,
                       aug_tensor **out) {
    return kind == 0 ? aug_invert(x, out) : kind == 1 ? aug_posterize(x, bits, count, out)
                                                      : aug_solarize(x, thr, count, out);
}

/* A tone op of a random view (contiguous, strided, reversed, permuted: the core
 * packs it) with one operand for every image or one per image of a 4-d view,
 * then in place on a contiguous copy. */
static void run_tone(ph_run *r, const ph_case *cs, int kind) {
    static const char *const names[3][2] = {{"invert", "invert in place"},
                                            {"posterize", "posterize in place"},
                                            {"solarize", "solarize in place"}};
    for (int d = 0; d < ph_ndtypes(cs); d++)
        for (int layout = PH_L_CONTIG; layout <= PH_L_PERMUTED; layout++) {
            aug_dtype t = ph_dtype(cs, d);
            const double top = t == AUG_UINT8 ? 255.0 : t == AUG_UINT16 ? 65535.0 : 1.0;
            int64_t shape[4];
            int nd = 0;
            while (nd < 2) nd = ph_shape(r, cs->max_ndim, 40, 20000, shape);
            aug_tensor *x, *xd, *a = NULL, *g = NULL;
            ph_operand(r, t, layout, nd, shape, &x, &xd);
            ph_inputs(r, 1, (const aug_tensor *const *)&x);
            int32_t bits[40];
            double thr[40];
            const int64_t count = kind && nd == 4 && ph_rand(r) % 2 ? shape[0] : 1;
            for (int64_t i = 0; i < count; i++) {
                bits[i] = (int32_t)(ph_rand(r) % 18);
                thr[i] = top * ((double)(ph_rand(r) % 1101) / 1000.0 - 0.1);
            }
            assert_int_equal(tone(kind, x, bits, thr, count, &a), AUG_OK);
            assert_int_equal(tone(kind, xd, bits, thr, count, &g), AUG_OK);
            ph_check(r, names[kind][0], a, g);
            aug_tensor *in_place = aug_tensor_contiguous(xd);
            assert_non_null(in_place);
            assert_int_equal(tone(kind, in_place, bits, thr, count, &in_place), AUG_OK);
            ph_check(r, names[kind][1], a, in_place);
            aug_tensor_free(in_place), aug_tensor_free(a), aug_tensor_free(g);
            aug_tensor_free(x), aug_tensor_free(xd);
        }
}
static void run_invert(ph_run *r, const ph_case *cs) { run_tone(r, cs, 0); }
static void run_posterize(ph_run *r, const ph_case *cs) { run_tone(r, cs, 1); }
static void run_solarize(ph_run *r, const ph_case *cs) { run_tone(r, cs, 2); }

/* aug_equalize, aug_autocontrast or aug_adjust_sharpness (op 0, 1, 2) of a
 * random view, channels first (no layout) or last (HWC / NHWC), sharpness with
 * one factor or one per image, then in place. */
static void run_autotone_op(ph_run *r, const ph_case *cs, int op) {
    static const char *const names[3] = {"equalize", "autocontrast", "adjust_sharpness"};
    for (int d = 0; d < ph_ndtypes(cs); d++)
        for (int layout = PH_L_CONTIG; layout <= PH_L_PERMUTED; layout++) {
            aug_dtype t = ph_dtype(cs, d);
            int64_t shape[4];
            int nd = 0;
            while (nd < 2) nd = ph_shape(r, cs->max_ndim, 40, 20000, shape);
            aug_tensor *x, *xd, *a = NULL, *g = NULL;
            ph_operand(r, t, layout, nd, shape, &x, &xd);
            ph_inputs(r, 1, (const aug_tensor *const *)&x);
            if (nd > 2 && ph_rand(r) % 2) {
                assert_int_equal(aug_tensor_set_layout(x, nd == 3 ? "HWC" : "NHWC"), AUG_OK);
                assert_int_equal(aug_tensor_set_layout(xd, nd == 3 ? "HWC" : "NHWC"), AUG_OK);
            }
            double factor[40];
            const int64_t count = nd == 4 && ph_rand(r) % 2 ? shape[0] : 1;
            for (int64_t i = 0; i < count; i++) factor[i] = (double)(ph_rand(r) % 301) / 100.0;
            aug_tensor *in_place = aug_tensor_contiguous(xd);
            assert_non_null(in_place);
            aug_tensor_set_layout(in_place, xd->layout);
            switch (op) {
            case 0:
                assert_int_equal(aug_equalize(x, &a), AUG_OK);
                assert_int_equal(aug_equalize(xd, &g), AUG_OK);
                assert_int_equal(aug_equalize(in_place, &in_place), AUG_OK);
                break;
            case 1:
                assert_int_equal(aug_autocontrast(x, &a), AUG_OK);
                assert_int_equal(aug_autocontrast(xd, &g), AUG_OK);
                assert_int_equal(aug_autocontrast(in_place, &in_place), AUG_OK);
                break;
            default:
                assert_int_equal(aug_adjust_sharpness(x, factor, count, &a), AUG_OK);
                assert_int_equal(aug_adjust_sharpness(xd, factor, count, &g), AUG_OK);
                assert_int_equal(aug_adjust_sharpness(in_place, factor, count, &in_place), AUG_OK);
                break;
            }
            ph_check(r, names[op], a, g);
            ph_check(r, "in place", a, in_place);
            aug_tensor_free(in_place), aug_tensor_free(a), aug_tensor_free(g);
            aug_tensor_free(x), aug_tensor_free(xd);
        }
}
static void run_equalize(ph_run *r, const ph_case *cs) { run_autotone_op(r, cs, 0); }
static void run_autocontrast(ph_run *r, const ph_case *cs) { run_autotone_op(r, cs, 1); }
static void run_adjust_sharpness(ph_run *r, const ph_case *cs) { run_autotone_op(r, cs, 2); }

static const ph_case CASES[] = {
    {"colour/functions", AUG__FAMILY_COLOUR, -1, (1u << AUG_UINT8) | (1u << AUG_UINT16) | (1u << AUG_FLOAT32), 0, 4,
     NULL, PH_BOUND_EXACT, run_functions},
    {"colour/jitter_lighting", AUG__FAMILY_COLOUR, -1, (1u << AUG_UINT8) | (1u << AUG_UINT16) | (1u << AUG_FLOAT32), 0,
     4, NULL, PH_BOUND_EXACT, run_jitter_lighting},
    {"colour/contrast_rows", AUG__FAMILY_COLOUR, -1, (1u << AUG_UINT8) | (1u << AUG_UINT16) | (1u << AUG_FLOAT32), 0,
     4, NULL, PH_BOUND_EXACT, run_contrast_rows},
    {"tone/invert", AUG__FAMILY_TONE, -1,
     (1u << AUG_UINT8) | (1u << AUG_UINT16) | (1u << AUG_FLOAT32) | (1u << AUG_FLOAT64), PH_LAYOUTS_VIEWS, 4, NULL,
     PH_BOUND_EXACT, run_invert},
    {"tone/posterize", AUG__FAMILY_TONE, -1,
     (1u << AUG_UINT8) | (1u << AUG_UINT16) | (1u << AUG_FLOAT32) | (1u << AUG_FLOAT64), PH_LAYOUTS_VIEWS, 4, NULL,
     PH_BOUND_EXACT, run_posterize},
    {"tone/solarize", AUG__FAMILY_TONE, -1,
     (1u << AUG_UINT8) | (1u << AUG_UINT16) | (1u << AUG_FLOAT32) | (1u << AUG_FLOAT64), PH_LAYOUTS_VIEWS, 4, NULL,
     PH_BOUND_EXACT, run_solarize},
    {"autotone/equalize", AUG__FAMILY_AUTOTONE, -1, (1u << AUG_UINT8) | (1u << AUG_UINT16) | (1u << AUG_FLOAT32),
     PH_LAYOUTS_VIEWS, 4, NULL, PH_BOUND_EXACT, run_equalize},
    {"autotone/autocontrast", AUG__FAMILY_AUTOTONE, -1, (1u << AUG_UINT8) | (1u << AUG_UINT16) | (1u << AUG_FLOAT32),
     PH_LAYOUTS_VIEWS, 4, NULL, PH_BOUND_EXACT, run_autocontrast},
    {"autotone/adjust_sharpness", AUG__FAMILY_AUTOTONE, -1,
     (1u << AUG_UINT8) | (1u << AUG_UINT16) | (1u << AUG_FLOAT32), PH_LAYOUTS_VIEWS, 4, NULL, PH_BOUND_EXACT,
     run_adjust_sharpness},
};
const ph_case_list ph_cases_colour = {CASES, sizeof CASES / sizeof CASES[0]};
