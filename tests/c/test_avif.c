/* test_avif.c: AVIF decoding through aug_decoder_decode_ex / aug_image_describe.
 * The files are encoded here with libavif's encoder (helpers/th_avif.h):
 * lossless 8, 10 and 12-bit RGB(A) (4:4:4, identity matrix) and gray + alpha
 * (4:0:0) files must give their samples back, in uint8 rounded from the file's
 * depth round(v * 255 / (2^d - 1)) and in uint16 scaled to
 * round(v * 65535 / (2^d - 1)) (8-bit: v * 257). Errors: truncation, hostile
 * 'ispe' sizes, pages, the scale; the format sniffing of 'ftyp' brands. The
 * Python suite (tests/python/test_avif.py) checks lossy files against Pillow. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "aug/aug.h"
#include "helpers/th_avif.h"
#include "helpers/th_cuda.h"

enum { H = 23, W = 37 };

static uint16_t sample_at(int i, int c, int depth) {
    unsigned v = (unsigned)(i * 7919 + c * 104729 + (i / W) * 31) * 2654435761u >> 7;
    return (uint16_t)(v & ((1u << depth) - 1u));
}

static uint16_t *samples(int channels, int depth) {
    uint16_t *px = malloc(sizeof *px * H * W * (size_t)channels);
    assert_non_null(px);
    for (int i = 0; i < H * W; i++)
        for (int c = 0; c < channels; c++) px[i * channels + c] = sample_at(i, c, depth);
    return px;
}

static aug_tensor *decode(aug_decoder *d, const void *data, size_t size, const int64_t *roi, aug_decode_mode mode,
                          aug_dtype dtype, aug_status want) {
    aug_decode_options o = aug_decode_options_default();
    o.roi = roi, o.mode = mode, o.dtype = dtype;
    aug_tensor *t = NULL;
    aug_status st = aug_decoder_decode_ex(d, data, size, &o, NULL, &t);
    if (st != want) fail_msg("status %d, not %d: %s", (int)st, (int)want, aug_last_error());
    return t;
}

static unsigned scaled(unsigned v, int depth, int bits) {
    unsigned max = (1u << depth) - 1u, top = (1u << bits) - 1u;
    return (v * top + max / 2u) / max;
}

/* Lossless RGB / RGBA at each depth: the samples back in both dtypes, whole and cut. */
static void test_avif_lossless_depths(void **state) {
    (void)state;
    aug_decoder *d = aug_decoder_new(CPU, 0, 0, 0);
    static const int depths[] = {8, 10, 12};
    for (int k = 0; k < 3; k++)
        for (int channels = 3; channels <= 4; channels++) {
            int depth = depths[k];
            uint16_t *px = samples(channels, depth);
            size_t n = 0;
            uint8_t *file = th_avif_encode(px, H, W, channels, depth, 1, &n);
            assert_non_null(file);
            assert_int_equal(aug_image_format_of(file, n), AUG_FORMAT_AVIF);
            aug_image_desc desc;
            assert_int_equal(aug_image_describe(file, n, 0, &desc), AUG_OK);
            assert_true(desc.format == AUG_FORMAT_AVIF && desc.height == H && desc.width == W);
            assert_true(desc.channels == channels && desc.alpha == (channels == 4) && desc.bit_depth == depth);
            assert_true(desc.pages == 1 && !desc.animated);
            assert_string_equal(desc.colour_space, "YUV444");
            assert_string_equal(desc.compression, "av1");
            aug_tensor *t8 = decode(d, file, n, NULL, AUG_DECODE_UNCHANGED, AUG_UINT8, AUG_OK);
            aug_tensor *t16 = decode(d, file, n, NULL, AUG_DECODE_UNCHANGED, AUG_UINT16, AUG_OK);
            assert_true(t8->shape[2] == channels && t16->dtype == AUG_UINT16);
            const uint8_t *p8 = aug_tensor_ptr(t8);
            const uint16_t *p16 = aug_tensor_ptr(t16);
            for (int i = 0; i < H * W * channels; i++) {
                if (p8[i] != scaled(px[i], depth, 8) || p16[i] != scaled(px[i], depth, 16))
                    fail_msg("depth %d, %d channels, sample %d: %u -> %u / %u, want %u / %u", depth, channels, i,
                             px[i], p8[i], p16[i], scaled(px[i], depth, 8), scaled(px[i], depth, 16));
            }
            /* a region in RGBA / gray: the whole decode's, cut and converted */
            int64_t roi[4] = {3, 5, 9, 11};
            aug_tensor *r = decode(d, file, n, roi, AUG_DECODE_RGBA, AUG_UINT16, AUG_OK);
            const uint16_t *pr = aug_tensor_ptr(r);
            for (int y = 0; y < 9; y++)
                for (int x = 0; x < 11; x++)
                    for (int c = 0; c < 4; c++) {
                        uint16_t want = c < 3 || channels == 4 ? p16[((y + 3) * W + x + 5) * channels + c] : 65535;
                        assert_int_equal(pr[(y * 11 + x) * 4 + c], want);
                    }
            aug_tensor_free(r);
            r = decode(d, file, n, roi, AUG_DECODE_GRAY, AUG_UINT8, AUG_OK);
            const uint8_t *pg = aug_tensor_ptr(r);
            for (int y = 0; y < 9; y++)
                for (int x = 0; x < 11; x++) {
                    const uint8_t *s = p8 + ((y + 3) * W + x + 5) * channels;
                    assert_int_equal(pg[y * 11 + x], (s[0] * 19595u + s[1] * 38470u + s[2] * 7471u + 0x8000u) >> 16);
                }
            aug_tensor_free(r);
            aug_tensor_free(t8), aug_tensor_free(t16);
            free(file), free(px);
        }
    aug_decoder_free(d);
}

/* 4:0:0 with alpha (10-bit): two channels of its own, gray repeated for RGB. */
static void test_avif_gray_alpha(void **state) {
    (void)state;
    uint16_t *px = samples(2, 10);
    size_t n = 0;
    uint8_t *file = th_avif_encode(px, H, W, 2, 10, 1, &n);
    assert_non_null(file);
    aug_image_desc desc;
    assert_int_equal(aug_image_describe(file, n, 0, &desc), AUG_OK);
    assert_true(desc.channels == 2 && desc.alpha && desc.bit_depth == 10);
    assert_string_equal(desc.colour_space, "YUV400");
    aug_decoder *d = aug_decoder_new(CPU, 0, 0, 0);
    aug_tensor *u = decode(d, file, n, NULL, AUG_DECODE_UNCHANGED, AUG_UINT16, AUG_OK);
    aug_tensor *rgba = decode(d, file, n, NULL, AUG_DECODE_RGBA, AUG_UINT8, AUG_OK);
    assert_int_equal(u->shape[2], 2);
    const uint16_t *pu = aug_tensor_ptr(u);
    const uint8_t *pc = aug_tensor_ptr(rgba);
    for (int i = 0; i < H * W; i++) {
        assert_int_equal(pu[i * 2], scaled(px[i * 2], 10, 16));
        assert_int_equal(pu[i * 2 + 1], scaled(px[i * 2 + 1], 10, 16));
        for (int c = 0; c < 3; c++) assert_int_equal(pc[i * 4 + c], scaled(px[i * 2], 10, 8));
        assert_int_equal(pc[i * 4 + 3], scaled(px[i * 2 + 1], 10, 8));
    }
    aug_tensor_free(u), aug_tensor_free(rgba);
    aug_decoder_free(d);
    free(file), free(px);
}

/* The 'ispe' box's width and height (the first one) set to h x w. */
static void set_ispe(uint8_t *file, size_t n, uint32_t h, uint32_t w) {
    for (size_t k = 0; k + 20 <= n; k++)
        if (memcmp(file + k, "ispe", 4) == 0) {
            const uint8_t be[8] = {w >> 24, w >> 16 & 255, w >> 8 & 255, w & 255,
                                   h >> 24, h >> 16 & 255, h >> 8 & 255, h & 255};
            memcpy(file + k + 8, be, 8); /* after the version and flags */
            return;
        }
    fail_msg("no ispe box");
}

static void test_avif_errors(void **state) {
    (void)state;
    uint16_t *px = samples(3, 8);
    size_t n = 0;
    uint8_t *file = th_avif_encode(px, H, W, 3, 8, 0, &n);
    assert_non_null(file);
    aug_decoder *d = aug_decoder_new(CPU, 0, 0, 0);
    aug_image_desc desc;
    assert_int_equal(aug_image_describe(file, n, 0, &desc), AUG_OK);
    assert_string_equal(desc.colour_space, "YUV420");
    /* truncated: libavif's result and diagnostic named */
    for (size_t k = 0; k < 6; k++) {
        size_t cut = k ? n * k / 6 : n - 1;
        assert_null(decode(d, file, cut, NULL, AUG_DECODE_RGB, AUG_UINT8, AUG_ERR_JPEG));
        assert_true(strncmp(aug_last_error(), "aug_decoder_decode_ex: AVIF: ", 29) == 0);
    }
    /* page and scale are other formats' */
    aug_decode_options o = aug_decode_options_default();
    aug_tensor *t = NULL;
    o.page = 1;
    assert_int_equal(aug_decoder_decode_ex(d, file, n, &o, NULL, &t), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(),
                        "aug_decoder_decode_ex: page 1 is for TIFF files: a avif file has one image (page 0)");
    o.page = 0, o.scale_num = 1, o.scale_denom = 2;
    assert_int_equal(aug_decoder_decode_ex(d, file, n, &o, NULL, &t), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(),
                        "aug_decoder_decode_ex: scale 4/8 is for JPEG files: a AVIF decodes at scale 1 "
                        "(DCT scaling is JPEG's)");
    /* hostile sizes: over the decoder's limit from the header alone; over libavif's own limit */
    set_ispe(file, n, 16000, 16000);
    assert_int_equal(aug_image_describe(file, n, 0, &desc), AUG_OK);
    assert_true(desc.height == 16000 && desc.width == 16000);
    assert_int_equal(aug_decoder_set_limit(d, 1 << 20), AUG_OK);
    assert_null(decode(d, file, n, NULL, AUG_DECODE_RGB, AUG_UINT8, AUG_ERR_JPEG));
    assert_string_equal(aug_last_error(), "aug_decoder_decode_ex: image of 16000 x 16000 = 256000000 pixels is "
                                          "larger than the decoder's limit of 1048576 pixels (raise it with "
                                          "aug_decoder_set_limit / Decoder(max_pixels=...), at most 2^31)");
    set_ispe(file, n, 1000000, 1000000);
    assert_int_equal(aug_image_describe(file, n, 0, &desc), AUG_ERR_JPEG);
    assert_non_null(strstr(aug_last_error(), "aug_image_describe: AVIF: "));
    assert_non_null(strstr(aug_last_error(), "1000000x1000000"));
    aug_decoder_free(d);
    free(file), free(px);
}

/* 'ftyp' brands: AVIF as the major or a compatible brand; HEIC and MP4 are not AVIF. */
static void test_avif_sniffing(void **state) {
    (void)state;
    static const uint8_t major[] = {0, 0, 0, 28, 'f', 't', 'y', 'p', 'a', 'v', 'i', 'f', 0, 0, 0, 0,
                                    'a', 'v', 'i', 'f', 'm', 'i', 'f', '1', 'm', 'i', 'a', 'f'};
    static const uint8_t compat[] = {0, 0, 0, 24, 'f', 't', 'y', 'p', 'm', 'i', 'f', '1', 0, 0, 0, 0,
                                     'm', 'i', 'a', 'f', 'a', 'v', 'i', 's'};
    static const uint8_t heic[] = {0, 0, 0, 24, 'f', 't', 'y', 'p', 'h', 'e', 'i', 'c', 0, 0, 0, 0,
                                   'm', 'i', 'f', '1', 'h', 'e', 'i', 'c'};
    /* 'avif' as the minor version, or past the box's end, is no brand */
    static const uint8_t minor[] = {0, 0, 0, 16, 'f', 't', 'y', 'p', 'm', 'i', 'f', '1', 'a', 'v', 'i', 'f',
                                    'a', 'v', 'i', 'f'};
    assert_int_equal(aug_image_format_of(major, sizeof major), AUG_FORMAT_AVIF);
    assert_int_equal(aug_image_format_of(compat, sizeof compat), AUG_FORMAT_AVIF);
    assert_int_equal(aug_image_format_of(heic, sizeof heic), AUG_FORMAT_UNKNOWN);
    assert_int_equal(aug_image_format_of(minor, sizeof minor), AUG_FORMAT_UNKNOWN);
    assert_int_equal(aug_image_format_of(major, 15), AUG_FORMAT_UNKNOWN);
    assert_string_equal(aug_image_format_name(AUG_FORMAT_AVIF), "avif");
    assert_null(aug_image_format_name(AUG_FORMAT_COUNT));
    aug_image_desc desc;
    assert_int_equal(aug_image_describe(major, sizeof major, 0, &desc), AUG_ERR_JPEG);
    assert_true(strncmp(aug_last_error(), "aug_image_describe: AVIF: ", 26) == 0);
    assert_int_equal(aug_image_describe(heic, sizeof heic, 0, &desc), AUG_ERR_JPEG);
    assert_string_equal(aug_last_error(), "aug_image_describe: not a JPEG, PNG, WebP, TIFF or AVIF file (starts with "
                                          "00 00 00 18 66 74 79 70)");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_avif_lossless_depths),
        cmocka_unit_test(test_avif_gray_alpha),
        cmocka_unit_test(test_avif_errors),
        cmocka_unit_test(test_avif_sniffing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
