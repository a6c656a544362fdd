/* test_png_rrc.c: PNG decoding through aug_decoder_decode_as (every mode, the
 * roi, truncation, the limit) and aug/rrc.h (aug_random_resized_crop,
 * aug_plan_decode, aug_plan_decode_at, aug_resize_center_crop_matrix). PNGs are encoded with
 * libspng's encoder from known samples; the expected pixels are computed here
 * from the samples by the documented rules (Pillow's luma, 16-bit rounding). A
 * CUDA decoder against these: tests/c/parity/cases_decode.c. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <spng.h>

#include "aug/aug.h"
#include "helpers/th_cuda.h"

/* An h x w PNG of colour type ct, bit depth 8 or 16, from samples (channels per pixel). */
static void *encode(uint32_t h, uint32_t w, uint8_t ct, uint8_t depth, const void *samples, size_t len, size_t *size) {
    spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    assert_non_null(ctx);
    spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1);
    struct spng_ihdr ihdr = {w, h, depth, ct, 0, 0, 0};
    assert_int_equal(spng_set_ihdr(ctx, &ihdr), 0);
    assert_int_equal(spng_encode_image(ctx, samples, len, SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE), 0);
    int err = 0;
    void *buf = spng_get_png_buffer(ctx, size, &err);
    assert_int_equal(err, 0);
    spng_ctx_free(ctx);
    return buf;
}

static uint8_t luma(unsigned r, unsigned g, unsigned b) {
    return (uint8_t)((r * 19595u + g * 38470u + b * 7471u + 0x8000u) >> 16);
}

static void test_png_modes(void **state) {
    (void)state;
    enum { H = 13, W = 17 };
    uint8_t rgba[H * W * 4];
    for (int i = 0; i < H * W * 4; i++) rgba[i] = (uint8_t)(i * 37 + i / 7);
    size_t size = 0;
    void *png = encode(H, W, SPNG_COLOR_TYPE_TRUECOLOR_ALPHA, 8, rgba, sizeof rgba, &size);
    assert_int_equal(aug_image_format_of(png, size), AUG_FORMAT_PNG);
    aug_png_desc desc;
    assert_int_equal(aug_png_describe(png, size, &desc), AUG_OK);
    assert_int_equal(desc.height, H);
    assert_int_equal(desc.width, W);
    assert_int_equal(desc.channels, 4);
    assert_string_equal(desc.colour_space, "RGBA");
    aug_decoder *d = aug_decoder_new(CPU, 0, 0, 0);
    static const int nch[] = {3, 1, 2, 4, 4};
    for (int mode = 0; mode <= 4; mode++) {
        aug_tensor *t = NULL;
        assert_int_equal(aug_decoder_decode_as(d, png, size, NULL, 1, 1, (aug_decode_mode)mode, NULL, &t), AUG_OK);
        assert_int_equal(t->shape[2], nch[mode]);
        const uint8_t *p = aug_tensor_ptr(t);
        for (int i = 0; i < H * W; i++) {
            const uint8_t *s = rgba + 4 * i;
            uint8_t L = luma(s[0], s[1], s[2]);
            uint8_t want[4] = {s[0], s[1], s[2], s[3]};
            if (nch[mode] == 1) want[0] = L;
            if (nch[mode] == 2) want[0] = L, want[1] = s[3];
            for (int c = 0; c < nch[mode]; c++) assert_int_equal(p[i * nch[mode] + c], want[c]);
        }
        aug_tensor_free(t);
    }
    /* roi and aug_decoder_decode (RGB) */
    int64_t roi[4] = {2, 3, 4, 5};
    aug_tensor *t = NULL;
    assert_int_equal(aug_decoder_decode_region(d, png, size, roi, 1, 1, NULL, &t), AUG_OK);
    const uint8_t *p = aug_tensor_ptr(t);
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 5; x++)
            for (int c = 0; c < 3; c++) assert_int_equal(p[(y * 5 + x) * 3 + c], rgba[((y + 2) * W + x + 3) * 4 + c]);
    aug_tensor_free(t);
    t = NULL;
    assert_int_equal(aug_decoder_decode_region(d, png, size, NULL, 1, 2, NULL, &t), AUG_ERR_VALUE);
    assert_non_null(strstr(aug_last_error(), "aug_decoder_decode_region: scale 4/8 is for JPEG files"));
    assert_int_equal(aug_decoder_decode_as(d, png, size, NULL, 1, 1, (aug_decode_mode)5, NULL, &t), AUG_ERR_VALUE);
    assert_non_null(strstr(aug_last_error(), "aug_decoder_decode_as: mode 5"));
    /* every truncation fails cleanly (libspng does not read IEND's CRC: the
     * last 4 bytes may be missing) */
    for (size_t n = 0; n + 4 < size; n++) {
        if (aug_decoder_decode(d, png, n, NULL, &t) != AUG_ERR_JPEG) fail_msg("n = %zu of %zu", n, size);
        assert_non_null(strstr(aug_last_error(), "aug_decoder_decode:"));
    }
    assert_null(t);
    assert_int_equal(aug_decoder_set_limit(d, H * W - 1), AUG_OK);
    assert_int_equal(aug_decoder_decode(d, png, size, NULL, &t), AUG_ERR_JPEG);
    assert_non_null(strstr(aug_last_error(), "larger than the decoder's limit"));
    aug_decoder_free(d);
    free(png);
}

static void test_png_16bit_gray(void **state) {
    (void)state;
    enum { H = 5, W = 7 };
    uint16_t v[H * W]; /* SPNG_FMT_PNG samples are host-endian */
    for (int i = 0; i < H * W; i++) v[i] = (uint16_t)(i * 1927 + 129);
    size_t size = 0;
    void *png = encode(H, W, SPNG_COLOR_TYPE_GRAYSCALE, 16, v, sizeof v, &size);
    aug_decoder *d = aug_decoder_new(CPU, 0, 0, 0);
    aug_tensor *t = NULL;
    assert_int_equal(aug_decoder_decode_as(d, png, size, NULL, 1, 1, AUG_DECODE_UNCHANGED, NULL, &t), AUG_OK);
    assert_int_equal(t->shape[2], 1);
    const uint8_t *p = aug_tensor_ptr(t);
    for (int i = 0; i < H * W; i++) assert_int_equal(p[i], ((unsigned)v[i] * 255u + 32767u) / 65535u);
    aug_tensor_free(t);
    aug_decoder_free(d);
    free(png);
}

static void test_rrc(void **state) {
    (void)state;
    aug_rng *rng = aug_rng_new(CPU, &(uint64_t){42});
    aug_rrc_params p = aug_rrc_params_default();
    p.hflip = 0.5;
    int64_t hs[64], ws[64];
    for (int i = 0; i < 64; i++) hs[i] = 100 + i * 7, ws[i] = 300 - i * 3;
    aug_rrc out[64];
    assert_int_equal(aug_random_resized_crop(rng, 64, hs, ws, 32, 48, &p, out), AUG_OK);
    aug_rng_state st;
    aug_rng_get_state(rng, &st);
    assert_int_equal(st.calls, 1);
    for (int i = 0; i < 64; i++) {
        const aug_rrc *r = &out[i];
        assert_true(r->crop[0] >= 0 && r->crop[1] >= 0 && r->crop[2] >= 1 && r->crop[3] >= 1);
        assert_true(r->crop[0] + r->crop[2] <= hs[i] && r->crop[1] + r->crop[3] <= ws[i]);
        double sx = (double)r->crop[3] / 48.0;
        double x0 = r->matrix[2],
               want = r->hflip ? (double)r->crop[1] + 47.5 * sx - 0.5 : (double)r->crop[1] + 0.5 * sx - 0.5;
        assert_true(fabs(x0 - want) < 1e-3);
        assert_true(r->plan.scale_m >= 1 && r->plan.scale_m <= 8);
        int64_t sh = (hs[i] * r->plan.scale_m + 7) / 8, sw = (ws[i] * r->plan.scale_m + 7) / 8;
        assert_true(r->plan.roi[0] + r->plan.roi[2] <= sh && r->plan.roi[1] + r->plan.roi[3] <= sw);
    }
    /* bad input leaves the counter */
    aug_rrc_params bad = p;
    bad.scale_min = 0.9, bad.scale_max = 0.1;
    assert_int_equal(aug_random_resized_crop(rng, 64, hs, ws, 32, 48, &bad, out), AUG_ERR_VALUE);
    assert_non_null(strstr(aug_last_error(), "aug_random_resized_crop: scale range (0.9, 0.1)"));
    bad = p, bad.ratio_min = NAN;
    assert_int_equal(aug_random_resized_crop(rng, 64, hs, ws, 32, 48, &bad, out), AUG_ERR_VALUE);
    bad = p, bad.hflip = -0.1;
    assert_int_equal(aug_random_resized_crop(rng, 64, hs, ws, 32, 48, &bad, out), AUG_ERR_VALUE);
    assert_int_equal(aug_random_resized_crop(rng, 64, hs, ws, 0, 48, &p, out), AUG_ERR_VALUE);
    assert_int_equal(aug_random_resized_crop(rng, -1, hs, ws, 32, 48, &p, out), AUG_ERR_VALUE);
    hs[5] = 0;
    assert_int_equal(aug_random_resized_crop(rng, 64, hs, ws, 32, 48, &p, out), AUG_ERR_VALUE);
    assert_non_null(strstr(aug_last_error(), "image 5 has size (0,"));
    aug_rng_get_state(rng, &st);
    assert_int_equal(st.calls, 1);
    aug_rng_free(rng);
}

/* aug_plan_decode of a diagonal matrix (sx, sy) from 1000 x 1000 to 100 x 100
 * with supersampling 3: its scale M and supersampling. */
static void expect_scale(float sx, float sy, int dct_scale, int want_m, int want_s) {
    float m[6] = {sx, 0.0f, 0.0f, 0.0f, sy, 0.0f};
    aug_decode_plan p;
    assert_int_equal(aug_plan_decode(m, 1000, 1000, 100, 100, 3, dct_scale, 1, &p), AUG_OK);
    assert_int_equal(p.scale_m, want_m);
    assert_int_equal(p.supersampling, want_s);
}

static void test_plan(void **state) {
    (void)state;
    float m[6] = {2.5f, 0.0f, 10.0f, 0.0f, 2.5f, 20.0f};
    aug_decode_plan p;
    assert_int_equal(aug_plan_decode(m, 1000, 1000, 100, 100, 3, 1, 0, &p), AUG_OK);
    assert_int_equal(p.scale_m, 4); /* 2.5 px per output px: 1/2 leaves 1.25, 1/4 would leave 0.63 */
    assert_int_equal(p.roi[2], 500);
    assert_true(fabsf(p.matrix[0] - 1.25f) < 1e-6f && fabsf(p.matrix[2] - (10.5f * 0.5f - 0.5f)) < 1e-5f);
    assert_int_equal(p.supersampling, 1); /* 1.25 < 2 scaled px per output px */
    /* 1.7 px per output px: 8 (the old 5/8 is a scalar IDCT), one sample for 1.7 < 2 */
    expect_scale(1.7f, 1.7f, 1, 8, 1);
    /* anisotropic 1.5 x 4.5: sigma_min 1.5 keeps 8; r = sqrt(6.75) = 2.6 -> ceil(1.6) = 2 */
    expect_scale(1.5f, 4.5f, 1, 8, 2);
    /* dct_scale off keeps the given supersampling */
    expect_scale(1.7f, 1.7f, 0, 8, 3);
    /* 8.5 px per output px: 1/8 leaves 1.06 */
    expect_scale(8.5f, 8.5f, 1, 1, 1);
    assert_int_equal(aug_plan_decode(m, 1000, 1000, 100, 100, 3, 0, 1, &p), AUG_OK);
    assert_int_equal(p.scale_m, 8);
    assert_int_equal(p.roi[0], 17); /* footprint from 20 - 1.25: floor(18.75) - 1 margin */
    assert_int_equal(p.roi[1], 7);
    assert_true(fabsf(p.matrix[2] - 3.0f) < 1e-6f && fabsf(p.matrix[5] - 3.0f) < 1e-6f);
    assert_int_equal(aug_plan_decode(m, 0, 1000, 100, 100, 3, 1, 1, &p), AUG_ERR_VALUE);
    assert_int_equal(aug_plan_decode(m, 10, 1000, 100, 100, 0, 1, 1, &p), AUG_ERR_VALUE);
    m[4] = NAN;
    assert_int_equal(aug_plan_decode(m, 10, 1000, 100, 100, 1, 1, 1, &p), AUG_ERR_VALUE);
    assert_non_null(strstr(aug_last_error(), "aug_plan_decode: matrix[1][1]"));
    float c[6];
    int s = 0;
    assert_int_equal(aug_resize_center_crop_matrix(480, 640, 256, 224, 224, 3, c, &s), AUG_OK);
    /* 480 x 640 -> 256 x 341, crop top 16, left round(58.5) = 58 (half to even) */
    assert_true(fabsf(c[0] - 640.0f / 341.0f) < 1e-6f);
    assert_true(fabs((double)c[2] - (58.5 * 640.0 / 341.0 - 0.5)) < 1e-4);
    assert_true(fabs((double)c[5] - (16.5 * 480.0 / 256.0 - 0.5)) < 1e-4);
    assert_int_equal(s, 2);
    assert_int_equal(aug_resize_center_crop_matrix(480, 640, 0, 224, 224, 3, c, &s), AUG_ERR_VALUE);
}

/* aug_plan_decode_at: the planner's plan at a given scale; at the planner's own
 * choice it is that plan (a recorded scale replays), for any affine (here a
 * rotation by 45 degrees, mirrored, with shear); other scales are refused. */
static void test_plan_at(void **state) {
    (void)state;
    const double c = 3.0 * sqrt(0.5);
    float m[6] = {(float)-c, (float)c + 0.4f, 700.0f, (float)c, (float)c, -40.0f};
    aug_decode_plan p, q;
    assert_int_equal(aug_plan_decode(m, 1000, 1400, 100, 120, 3, 1, 1, &p), AUG_OK);
    assert_int_equal(p.scale_m, 4); /* sigma_min of the sheared rotation: ~2.8 */
    assert_int_equal(aug_plan_decode_at(m, 1000, 1400, 100, 120, 3, p.scale_m, 1, &q), AUG_OK);
    assert_memory_equal(&p, &q, sizeof p);
    for (int k = 1; k <= 8; k *= 2) {
        assert_int_equal(aug_plan_decode_at(m, 1000, 1400, 100, 120, 3, k, 1, &q), AUG_OK);
        assert_int_equal(q.scale_m, k);
        assert_true(fabsf(q.matrix[0] - m[0] * (float)k / 8.0f) < 1e-5f);
        assert_true(q.roi[2] <= (1000 * k + 7) / 8 && q.roi[3] <= (1400 * k + 7) / 8);
    }
    for (int k = 0; k <= 16; k++) {
        if (k == 1 || k == 2 || k == 4 || k == 8) continue;
        memset(&q, 0x5a, sizeof q);
        assert_int_equal(aug_plan_decode_at(m, 1000, 1400, 100, 120, 3, k, 1, &q), AUG_ERR_VALUE);
        assert_non_null(strstr(aug_last_error(), "aug_plan_decode_at: scale_m must be 1, 2, 4 or 8"));
        assert_int_equal(q.scale_m, 0x5a5a5a5a); /* untouched */
    }
    assert_int_equal(aug_plan_decode_at(m, 1000, 1400, 100, 120, 0, 4, 1, &q), AUG_ERR_VALUE);
    assert_non_null(strstr(aug_last_error(), "aug_plan_decode_at: supersampling"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_png_modes), cmocka_unit_test(test_png_16bit_gray),
        cmocka_unit_test(test_rrc),       cmocka_unit_test(test_plan),
        cmocka_unit_test(test_plan_at),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
