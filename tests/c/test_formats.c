/* test_formats.c: WebP and TIFF decoding and the uint16 output through
 * aug_decoder_decode_ex / aug_image_describe. The files are encoded here
 * from known samples with the libraries' own encoders (libwebp's, libtiff's
 * writer): lossless WebP and every TIFF layout must give the samples back
 * bit for bit, lossy WebP libwebp's own RGB decode (WebPDecodeRGB). Errors:
 * truncation, hostile headers, refused variants, pages, dtypes. The Python
 * suite (tests/python/test_formats.py) checks against independent decoders. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <tiffio.h>
#include <webp/decode.h>
#include <webp/encode.h>

#include "aug/aug.h"
#include "helpers/th_cuda.h"

enum { H = 23, W = 37 };

static uint16_t sample_at(int i, int c, int bits) {
    unsigned v = (unsigned)(i * 7919 + c * 104729 + (i / W) * 31) * 2654435761u >> 7;
    return (uint16_t)(bits == 16 ? v & 0xffffu : v & 0xffu);
}

static aug_tensor *decode(aug_decoder *d, const void *data, size_t size, const int64_t *roi, aug_decode_mode mode,
                          aug_dtype dtype, int page, aug_status want) {
    aug_decode_options o = aug_decode_options_default();
    o.roi = roi, o.mode = mode, o.dtype = dtype, o.page = page;
    aug_tensor *t = NULL;
    aug_status st = aug_decoder_decode_ex(d, data, size, &o, NULL, &t);
    if (st != want) fail_msg("status %d, not %d: %s", (int)st, (int)want, aug_last_error());
    return t;
}

/* ---- WebP ----------------------------------------------------------------------------------- */

static void test_webp_lossless_and_lossy(void **state) {
    (void)state;
    uint8_t rgba[H * W * 4];
    /* alpha >= 1: under alpha 0 the lossless encoder may change the colour */
    for (int i = 0; i < H * W; i++)
        for (int c = 0; c < 4; c++) rgba[i * 4 + c] = (uint8_t)(sample_at(i, c, 8) | (c == 3));
    uint8_t *lossless = NULL, *lossy = NULL;
    size_t n1 = WebPEncodeLosslessRGBA(rgba, W, H, W * 4, &lossless);
    size_t n2 = WebPEncodeRGB(rgba, W, H, W * 4 / 4 * 4, 75, &lossy); /* reads RGBA rows as RGB: any pattern */
    assert_true(n1 > 0 && n2 > 0);
    assert_int_equal(aug_image_format_of(lossless, n1), AUG_FORMAT_WEBP);
    assert_string_equal(aug_image_format_name(AUG_FORMAT_WEBP), "webp");
    aug_image_desc desc;
    assert_int_equal(aug_image_describe(lossless, n1, 0, &desc), AUG_OK);
    assert_true(desc.height == H && desc.width == W && desc.channels == 4 && desc.alpha && !desc.animated);
    assert_string_equal(desc.compression, "lossless");
    aug_decoder *d = aug_decoder_new(CPU, 0, 0, 0);
    /* lossless: the samples, unchanged (RGBA), and in uint16 times 257 */
    aug_tensor *t = decode(d, lossless, n1, NULL, AUG_DECODE_UNCHANGED, AUG_UINT8, 0, AUG_OK);
    assert_int_equal(t->shape[2], 4);
    assert_memory_equal(aug_tensor_ptr(t), rgba, sizeof rgba);
    aug_tensor_free(t);
    int64_t roi[4] = {3, 5, 9, 11};
    t = decode(d, lossless, n1, roi, AUG_DECODE_RGB, AUG_UINT16, 0, AUG_OK);
    assert_int_equal(t->dtype, AUG_UINT16);
    const uint16_t *p = aug_tensor_ptr(t);
    for (int y = 0; y < 9; y++)
        for (int x = 0; x < 11; x++)
            for (int c = 0; c < 3; c++)
                assert_int_equal(p[(y * 11 + x) * 3 + c], rgba[((y + 3) * W + x + 5) * 4 + c] * 257);
    aug_tensor_free(t);
    /* lossy: libwebp's own RGB decode */
    int w = 0, h = 0;
    uint8_t *ref = WebPDecodeRGB(lossy, n2, &w, &h);
    assert_true(ref != NULL && w == W && h == H);
    t = decode(d, lossy, n2, NULL, AUG_DECODE_RGB, AUG_UINT8, 0, AUG_OK);
    assert_memory_equal(aug_tensor_ptr(t), ref, (size_t)H * W * 3);
    aug_tensor_free(t);
    assert_int_equal(aug_image_describe(lossy, n2, 0, &desc), AUG_OK);
    assert_true(desc.channels == 3 && !desc.alpha);
    assert_string_equal(desc.compression, "lossy");
    /* truncated: libwebp's status named */
    for (size_t cut = 12; cut < n1; cut += n1 / 5) {
        assert_null(decode(d, lossless, cut, NULL, AUG_DECODE_RGB, AUG_UINT8, 0, AUG_ERR_JPEG));
        assert_true(strncmp(aug_last_error(), "aug_decoder_decode_ex: WebP: ", 29) == 0);
    }
    /* page is TIFF's */
    assert_null(decode(d, lossless, n1, NULL, AUG_DECODE_RGB, AUG_UINT8, 1, AUG_ERR_VALUE));
    assert_string_equal(aug_last_error(),
                        "aug_decoder_decode_ex: page 1 is for TIFF files: a webp file has one image (page 0)");
    WebPFree(ref);
    WebPFree(lossless);
    WebPFree(lossy);
    aug_decoder_free(d);
}

/* ---- TIFF ----------------------------------------------------------------------------------- */

typedef struct {
    int spp, bits, tiled, planar;
    uint16_t compression;
} layout;

/* A TIFF of the samples sample_at(i, c, bits) written by libtiff, read back into memory. */
static uint8_t *write_tiff(const layout *l, size_t *size) {
    char path[] = "/tmp/aug_test_formats_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    TIFF *tif = TIFFOpen(path, "w");
    assert_non_null(tif);
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)W);
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)H);
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, (uint16_t)l->bits);
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)l->spp);
    TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, l->spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
    TIFFSetField(tif, TIFFTAG_PLANARCONFIG, l->planar ? PLANARCONFIG_SEPARATE : PLANARCONFIG_CONTIG);
    TIFFSetField(tif, TIFFTAG_COMPRESSION, l->compression);
    if (l->spp == 2 || l->spp == 4) {
        uint16_t extra = EXTRASAMPLE_UNASSALPHA;
        TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, (uint16_t)1, &extra);
    }
    int planes = l->planar ? l->spp : 1, per = l->planar ? 1 : l->spp, bs = l->bits / 8;
    if (l->tiled) {
        enum { TW = 16, TH = 16 };
        TIFFSetField(tif, TIFFTAG_TILEWIDTH, (uint32_t)TW);
        TIFFSetField(tif, TIFFTAG_TILELENGTH, (uint32_t)TH);
        uint8_t *buf = calloc((size_t)TW * TH * (size_t)per, (size_t)bs);
        for (int p = 0; p < planes; p++)
            for (int ty = 0; ty < H; ty += TH)
                for (int tx = 0; tx < W; tx += TW) {
                    for (int y = 0; y < TH; y++)
                        for (int x = 0; x < TW; x++)
                            for (int c = 0; c < per; c++) {
                                int iy = ty + y, ix = tx + x, k = (y * TW + x) * per + c;
                                uint16_t v = iy < H && ix < W ? sample_at(iy * W + ix, c + p, l->bits) : 0;
                                if (bs == 2) ((uint16_t *)buf)[k] = v;
                                else buf[k] = (uint8_t)v;
                            }
                    assert_true(TIFFWriteEncodedTile(tif, TIFFComputeTile(tif, (uint32_t)tx, (uint32_t)ty, 0,
                                                                          (uint16_t)p),
                                                     buf, (tmsize_t)TW * TH * per * bs) >= 0);
                }
        free(buf);
    } else {
        TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, (uint32_t)5);
        uint8_t *row = calloc((size_t)W * (size_t)per, (size_t)bs);
        for (int p = 0; p < planes; p++)
            for (int y = 0; y < H; y++) {
                for (int x = 0; x < W * per; x++) {
                    uint16_t v = sample_at(y * W + x / per, x % per + p, l->bits);
                    if (bs == 2) ((uint16_t *)row)[x] = v;
                    else row[x] = (uint8_t)v;
                }
                assert_true(TIFFWriteScanline(tif, row, (uint32_t)y, (uint16_t)p) >= 0);
            }
        free(row);
    }
    TIFFClose(tif);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc((size_t)n);
    assert_int_equal(fread(data, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    unlink(path);
    *size = (size_t)n;
    return data;
}

static void test_tiff_layouts(void **state) {
    (void)state;
    static const uint16_t comps[] = {COMPRESSION_NONE, COMPRESSION_LZW, COMPRESSION_ADOBE_DEFLATE,
                                     COMPRESSION_PACKBITS};
    aug_decoder *d = aug_decoder_new(CPU, 0, 0, 0);
    int cases = 0;
    for (int spp = 1; spp <= 4; spp++)
        for (int bits = 8; bits <= 16; bits += 8)
            for (int tiled = 0; tiled < 2; tiled++)
                for (int planar = 0; planar < 2; planar++) {
                    if (planar && spp == 1) continue;
                    layout l = {spp, bits, tiled, planar, comps[(spp + bits / 8 + tiled + planar) % 4]};
                    size_t size = 0;
                    uint8_t *data = write_tiff(&l, &size);
                    aug_image_desc desc;
                    assert_int_equal(aug_image_describe(data, size, 0, &desc), AUG_OK);
                    assert_true(desc.format == AUG_FORMAT_TIFF && desc.height == H && desc.width == W &&
                                desc.channels == spp && desc.bit_depth == bits && desc.tiled == tiled &&
                                desc.planar == planar && desc.pages == 1);
                    int64_t rois[2][4] = {{0, 0, H, W}, {7, 11, 13, 19}};
                    for (int r = 0; r < 2; r++) {
                        const int64_t *roi = rois[r];
                        aug_tensor *t = decode(d, data, size, roi, AUG_DECODE_UNCHANGED, AUG_UINT16, 0, AUG_OK);
                        const uint16_t *p = aug_tensor_ptr(t);
                        for (int64_t y = 0; y < roi[2]; y++)
                            for (int64_t x = 0; x < roi[3]; x++)
                                for (int c = 0; c < spp; c++) {
                                    uint16_t v = sample_at((int)((y + roi[0]) * W + x + roi[1]), c, bits);
                                    uint16_t got = p[(y * roi[3] + x) * spp + c];
                                    if (got != (bits == 16 ? v : v * 257))
                                        fail_msg("spp %d bits %d tiled %d planar %d comp %u roi %d: (%lld, %lld, "
                                                 "%d) = %u, not %u", spp, bits, tiled, planar,
                                                 (unsigned)l.compression, r, (long long)y, (long long)x, c, got,
                                                 bits == 16 ? v : v * 257);
                                }
                        aug_tensor_free(t);
                    }
                    /* uint8 RGB: 16-bit rounded, gray repeated */
                    aug_tensor *t = decode(d, data, size, NULL, AUG_DECODE_RGB, AUG_UINT8, 0, AUG_OK);
                    const uint8_t *q = aug_tensor_ptr(t);
                    for (int i = 0; i < H * W; i++) {
                        unsigned v = sample_at(i, spp >= 3 ? 1 : 0, bits);
                        unsigned want = bits == 16 ? (v * 255u + 32767u) / 65535u : v;
                        assert_int_equal(q[i * 3 + 1], want);
                    }
                    aug_tensor_free(t);
                    /* truncated: libtiff's reason, never a crash */
                    assert_null(decode(d, data, size * 2 / 3, NULL, AUG_DECODE_RGB, AUG_UINT8, 0, AUG_ERR_JPEG));
                    assert_true(strncmp(aug_last_error(), "aug_decoder_decode_ex: TIFF: ", 29) == 0);
                    free(data);
                    cases++;
                }
    assert_int_equal(cases, 28);
    aug_decoder_free(d);
}

/* A little-endian TIFF of one IFD of SHORT/LONG tags, pixels not included. */
static size_t tiff_header(uint8_t *out, uint32_t h, uint32_t w, uint16_t bps, uint16_t fmt, uint32_t tile) {
    uint32_t tags[][3] = {{256, 4, w}, {257, 4, h}, {258, 3, bps}, {259, 3, 1}, {262, 3, 1}, {273, 4, 8},
                          {277, 3, 1}, {278, 4, h}, {279, 4, 1}, {322, 4, tile}, {323, 4, tile}, {324, 4, 8},
                          {325, 4, 1}, {339, 3, fmt}};
    int n = 0;
    uint8_t *p = out + 12;
    memcpy(out, "II*\0\x0c\0\0\0\0\0\0\0", 12);
    for (size_t i = 0; i < sizeof tags / sizeof *tags; i++) {
        int strip = tags[i][0] >= 273 && tags[i][0] <= 279 && tags[i][0] != 277;
        int tiletag = tags[i][0] >= 322 && tags[i][0] <= 325;
        if ((tile && strip) || (!tile && tiletag)) continue;
        n++;
    }
    p[0] = (uint8_t)n, p[1] = 0, p += 2;
    for (size_t i = 0; i < sizeof tags / sizeof *tags; i++) {
        int strip = tags[i][0] >= 273 && tags[i][0] <= 279 && tags[i][0] != 277;
        int tiletag = tags[i][0] >= 322 && tags[i][0] <= 325;
        if ((tile && strip) || (!tile && tiletag)) continue;
        uint16_t tag = (uint16_t)tags[i][0], type = (uint16_t)tags[i][1];
        uint32_t one = 1, v = tags[i][2];
        memcpy(p, &tag, 2), memcpy(p + 2, &type, 2), memcpy(p + 4, &one, 4);
        memset(p + 8, 0, 4);
        if (type == 3) memcpy(p + 8, &v, 2); /* little-endian host: the low half */
        else memcpy(p + 8, &v, 4);
        p += 12;
    }
    memset(p, 0, 4);
    return (size_t)(p + 4 - out);
}

static void test_tiff_hostile_and_refused(void **state) {
    (void)state;
    uint8_t buf[256];
    aug_decoder *d = aug_decoder_new(CPU, 0, 0, 0);
    size_t n = tiff_header(buf, 1000000, 1000000, 8, 1, 0);
    aug_image_desc desc;
    assert_int_equal(aug_image_describe(buf, n, 0, &desc), AUG_OK);
    assert_int_equal(desc.height, 1000000);
    assert_null(decode(d, buf, n, NULL, AUG_DECODE_RGB, AUG_UINT8, 0, AUG_ERR_JPEG));
    assert_non_null(strstr(aug_last_error(), "image of 1000000 x 1000000 = 1000000000000 pixels is larger than the "
                                             "decoder's limit of 268435456 pixels"));
    n = tiff_header(buf, 16, 16, 8, 1, 65536);
    assert_null(decode(d, buf, n, NULL, AUG_DECODE_RGB, AUG_UINT8, 0, AUG_ERR_JPEG));
    assert_string_equal(aug_last_error(), "aug_decoder_decode_ex: TIFF: a tile of 65536 x 65536 = 4294967296 pixels "
                                          "is larger than the decoder's limit of 268435456 pixels");
    n = tiff_header(buf, 4, 4, 32, 3, 0);
    assert_int_equal(aug_image_describe(buf, n, 0, &desc), AUG_ERR_JPEG);
    assert_string_equal(aug_last_error(), "aug_image_describe: TIFF: sample format 3 is not supported (1, unsigned "
                                          "integers; 2 is signed, 3 floating point)");
    n = tiff_header(buf, 4, 4, 1, 1, 0);
    assert_null(decode(d, buf, n, NULL, AUG_DECODE_RGB, AUG_UINT8, 0, AUG_ERR_JPEG));
    assert_string_equal(aug_last_error(), "aug_decoder_decode_ex: TIFF: 1 bits per sample is not supported (8 or 16)");
    n = tiff_header(buf, 4, 4, 8, 1, 0);
    assert_null(decode(d, buf, n, NULL, AUG_DECODE_RGB, AUG_UINT8, 1, AUG_ERR_VALUE));
    assert_string_equal(aug_last_error(), "aug_decoder_decode_ex: page 1 is not in the TIFF file's 1 page (0..0)");
    assert_null(decode(d, buf, n, NULL, AUG_DECODE_RGB, AUG_FLOAT32, 0, AUG_ERR_TYPE));
    assert_string_equal(aug_last_error(), "aug_decoder_decode_ex: dtype float32 is not supported (uint8 or uint16)");
    assert_int_equal(aug_image_format_of("MM\0*", 4), AUG_FORMAT_TIFF);
    assert_int_equal(aug_image_format_of("II+\0", 4), AUG_FORMAT_TIFF);
    assert_int_equal(aug_image_format_of("II*", 3), AUG_FORMAT_UNKNOWN);
    assert_null(aug_image_format_name(AUG_FORMAT_UNKNOWN));
    aug_decoder_free(d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_webp_lossless_and_lossy),
        cmocka_unit_test(test_tiff_layouts),
        cmocka_unit_test(test_tiff_hostile_and_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
