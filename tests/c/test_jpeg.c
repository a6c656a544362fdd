/* test_jpeg.c: aug_decoder_* and aug_jpeg_info. JPEGs are encoded in the test
 * with TurboJPEG's tjCompress2 from synthetic images; decoded pixels are
 * compared with TurboJPEG's own tjDecompress2 (default flags: accurate IDCT,
 * fancy upsampling) and, for flat images, with exact colours; CMYK against the
 * closed form of Pillow's conversion; truncation, buffer rules, NULL args.
 * Files with sampling factors TurboJPEG 2.1 cannot name (the libjpeg fallback)
 * are encoded with libjpeg's compressor and compared with libjpeg's own decode
 * (JDCT_ISLOW, fancy upsampling, JCS_RGB / JCS_CMYK: Pillow's settings). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <cmocka.h>
#include <jpeglib.h>
#include <turbojpeg.h>

#include "aug/aug.h"

#define CPU aug_cpu_device()

typedef struct {
    unsigned char *buf;
    unsigned long size;
} jpeg;

/* A w x h image of pf (3 or 4 channels, or 1 for gray) with gradients plus
 * deterministic noise, encoded with tjCompress2. */
static jpeg encode(int w, int h, int pf, int subsamp, int quality, int flags) {
    int nc = tjPixelSize[pf];
    unsigned char *img = malloc((size_t)w * h * nc);
    assert_non_null(img);
    uint32_t x = 12345;
    for (int y = 0; y < h; y++)
        for (int i = 0; i < w; i++)
            for (int c = 0; c < nc; c++) {
                x = x * 1103515245u + 12345u; /* LCG noise */
                int v = (i * 255 / w + y * 255 / h * (c + 1) / 2 + (int)((x >> 16) % 41) - 20) & 255;
                img[((size_t)y * w + i) * nc + c] = (unsigned char)v;
            }
    tjhandle tj = tjInitCompress();
    assert_non_null(tj);
    jpeg j = {NULL, 0};
    assert_int_equal(tjCompress2(tj, img, w, 0, h, pf, &j.buf, &j.size, subsamp, quality, flags), 0);
    tjDestroy(tj);
    free(img);
    return j;
}

static jpeg encode_flat(int w, int h, int pf, const unsigned char *px, int subsamp) {
    int nc = tjPixelSize[pf];
    unsigned char *img = malloc((size_t)w * h * nc);
    assert_non_null(img);
    for (int i = 0; i < w * h; i++) memcpy(img + (size_t)i * nc, px, nc);
    tjhandle tj = tjInitCompress();
    jpeg j = {NULL, 0};
    assert_int_equal(tjCompress2(tj, img, w, 0, h, pf, &j.buf, &j.size, subsamp, 100, 0), 0);
    tjDestroy(tj);
    free(img);
    return j;
}

/* TurboJPEG's own decode with default flags (the reference). */
static unsigned char *reference(const jpeg *j, int pf, int *w, int *h) {
    tjhandle tj = tjInitDecompress();
    int ss, cs;
    assert_int_equal(tjDecompressHeader3(tj, j->buf, j->size, w, h, &ss, &cs), 0);
    unsigned char *out = malloc((size_t)*w * *h * tjPixelSize[pf]);
    assert_int_equal(tjDecompress2(tj, j->buf, j->size, out, *w, 0, *h, pf, 0), 0);
    tjDestroy(tj);
    return out;
}

static aug_tensor *decode_ok(aug_decoder *d, const jpeg *j, const aug_tensor *buffer) {
    aug_tensor *t = NULL;
    aug_status st = aug_decoder_decode(d, j->buf, j->size, buffer, &t);
    if (st != AUG_OK) fail_msg("decode failed: %s", aug_last_error());
    assert_non_null(t);
    assert_int_equal(t->ndim, 3);
    assert_int_equal(t->dtype, AUG_UINT8);
    assert_int_equal(t->shape[2], 3);
    assert_string_equal(t->layout, "HWC");
    assert_true(aug_tensor_is_contiguous(t));
    return t;
}

static void test_matches_turbojpeg(void **state) {
    static const int samps[] = {TJSAMP_444, TJSAMP_422, TJSAMP_420, TJSAMP_440, TJSAMP_411, TJSAMP_GRAY};
    static const int sizes[][2] = {{53, 37}, {64, 48}, {17, 1}, {1, 9}};
    aug_decoder *d = aug_decoder_new(CPU, 0, 0, 0);
    assert_non_null(d);
    for (size_t s = 0; s < sizeof samps / sizeof *samps; s++)
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++)
            for (int prog = 0; prog < 2; prog++) {
                jpeg j = encode(sizes[z][0], sizes[z][1], TJPF_RGB, samps[s], 90, prog ? TJFLAG_PROGRESSIVE : 0);
                int w, h;
                unsigned char *ref = reference(&j, TJPF_RGB, &w, &h);
                int64_t ih, iw;
                assert_int_equal(aug_jpeg_info(j.buf, j.size, &ih, &iw), AUG_OK);
                assert_int_equal(ih, h);
                assert_int_equal(iw, w);
                aug_tensor *t = decode_ok(d, &j, NULL);
                assert_int_equal(t->shape[0], h);
                assert_int_equal(t->shape[1], w);
                assert_memory_equal(aug_tensor_ptr(t), ref, (size_t)w * h * 3);
                aug_tensor_free(t);
                free(ref);
                tjFree(j.buf);
            }
    aug_decoder_free(d);
}

static void test_flat_exact(void **state) {
    /* Flat gray at quality 100: DC only, quantiser 1, so the value is exact. */
    aug_decoder *d = aug_decoder_new(CPU, 0, 0, 0);
    const unsigned char g = 200;
    jpeg j = encode_flat(19, 11, TJPF_GRAY, &g, TJSAMP_GRAY);
    aug_tensor *t = decode_ok(d, &j, NULL);
    assert_int_equal(t->shape[0], 11);
    assert_int_equal(t->shape[1], 19);
    const unsigned char *p = aug_tensor_ptr(t);
    for (int i = 0; i < 11 * 19 * 3; i++) assert_int_equal(p[i], g);
    aug_tensor_free(t);
    tjFree(j.buf);
    aug_decoder_free(d);
}

/* RGB = round(s_c * s_k / 255) of the stored CMYK samples: Pillow's
 * inverted-CMYK conversion in closed form. */
static void assert_cmyk_rgb(const aug_tensor *t, const unsigned char *cmyk, int npix) {
    const unsigned char *p = aug_tensor_ptr(t);
    for (int i = 0; i < npix; i++)
        for (int c = 0; c < 3; c++) {
            unsigned sc = cmyk[4 * i + c], sk = cmyk[4 * i + 3];
            assert_int_equal(p[3 * i + c], (sc * sk * 2 + 255) / 510);
        }
}

static void test_cmyk(void **state) {
    /* tjCompress2 writes TJPF_CMYK as a YCCK JPEG. RGB = round(s_c * s_k / 255)
     * of the stored samples (Pillow's inverted-CMYK conversion in closed form). */
    aug_decoder *d = aug_decoder_new(CPU, 0, 1000, 0);
    for (int flat = 0; flat < 2; flat++) {
        static const unsigned char px[4] = {30, 140, 250, 180};
        jpeg j = flat ? encode_flat(13, 7, TJPF_CMYK, px, TJSAMP_444) : encode(45, 29, TJPF_CMYK, TJSAMP_420, 85, 0);
        int w, h;
        unsigned char *cmyk = reference(&j, TJPF_CMYK, &w, &h);
        aug_tensor *t = decode_ok(d, &j, NULL);
        assert_cmyk_rgb(t, cmyk, w * h);
        aug_tensor_free(t);
        free(cmyk);
        tjFree(j.buf);
    }
    aug_decoder_free(d);
}

static void expect_jpeg_error(aug_decoder *d, const void *data, size_t size, const aug_tensor *buffer) {
    aug_tensor *sentinel = (aug_tensor *)(uintptr_t)0x1234, *t = sentinel;
    aug_clear_error();
    assert_int_equal(aug_decoder_decode(d, data, size, buffer, &t), AUG_ERR_JPEG);
    assert_ptr_equal(t, sentinel);
    assert_int_equal(strncmp(aug_last_error(), "aug_decoder_decode: ", 20), 0);
    assert_true(strlen(aug_last_error()) > 20);
}

static void test_truncated_and_garbage(void **state) {
    aug_decoder *d = aug_decoder_new(CPU, 0, 0, 0);
    int64_t shape[1] = {64 * 48 * 3};
    aug_tensor *buf = aug_tensor_zeros(1, shape, AUG_UINT8, CPU);
    for (int prog = 0; prog < 2; prog++) {
        jpeg j = encode(64, 48, TJPF_RGB, TJSAMP_420, 90, prog ? TJFLAG_PROGRESSIVE : 0);
        for (unsigned long n = 1; n < j.size - 1; n += j.size / 23 + 1) {
            expect_jpeg_error(d, j.buf, n, NULL);
            expect_jpeg_error(d, j.buf, n, buf);
        }
        for (unsigned long n = j.size - 4; n < j.size - 1; n++) expect_jpeg_error(d, j.buf, n, NULL);
        /* The decoder is still usable after errors. */
        aug_tensor *t = decode_ok(d, &j, NULL);
        aug_tensor_free(t);
        tjFree(j.buf);
    }
    static const char text[] = "this is not a JPEG file at all";
    expect_jpeg_error(d, text, sizeof text, NULL);
    assert_string_equal(aug_last_error(),
                        "aug_decoder_decode: not a JPEG, PNG, WebP, TIFF or AVIF file (starts with 74 68 69 73 20 69 73 20)");
    int64_t h, w;
    assert_int_equal(aug_jpeg_info(text, sizeof text, &h, &w), AUG_ERR_JPEG);
    assert_int_equal(strncmp(aug_last_error(), "aug_jpeg_info: ", 15), 0);
    aug_tensor_free(buf);
    aug_decoder_free(d);
}

/* Data that starts neither a JPEG (FF D8) nor a PNG (8-byte signature): every
 * entry says so with the first (up to 8) bytes in hex; FF D8 and a whole PNG
 * signature go on to the decoders, which give their own reasons. */
static void test_not_an_image(void **state) {
    static const struct {
        const char *data;
        size_t size;
        const char *hex;
    } cases[] = {
        {"<html>\n<head><title>404 Not Found</title>", 40, "(starts with 3c 68 74 6d 6c 3e 0a 3c)"},
        {"", 0, "(empty)"},
        {"GIF", 3, "(starts with 47 49 46)"},
        {"\xff", 1, "(starts with ff)"},
        {"\xff\xd9\xff\xe0", 4, "(starts with ff d9 ff e0)"},
        {"\x89PNG\r\n\x1a", 7, "(starts with 89 50 4e 47 0d 0a 1a)"}, /* a PNG's signature is 8 bytes */
        {"\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09", 10, "(starts with 00 01 02 03 04 05 06 07)"},
    };
    aug_decoder *d = aug_decoder_new(CPU, 0, 0, 0);
    assert_non_null(d);
    char want[160];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const void *data = cases[i].data;
        size_t n = cases[i].size;
        aug_tensor *t = NULL;
        int64_t h, w;
        aug_jpeg_desc jd;
        aug_png_desc pd;
        assert_int_equal(aug_decoder_decode(d, data, n, NULL, &t), AUG_ERR_JPEG);
        snprintf(want, sizeof want, "aug_decoder_decode: not a JPEG, PNG, WebP, TIFF or AVIF file %s", cases[i].hex);
        assert_string_equal(aug_last_error(), want);
        assert_null(t);
        assert_int_equal(aug_decoder_decode_as(d, data, n, NULL, 1, 1, AUG_DECODE_GRAY, NULL, &t), AUG_ERR_JPEG);
        snprintf(want, sizeof want, "aug_decoder_decode_as: not a JPEG, PNG, WebP, TIFF or AVIF file %s", cases[i].hex);
        assert_string_equal(aug_last_error(), want);
        assert_int_equal(aug_jpeg_info(data, n, &h, &w), AUG_ERR_JPEG);
        snprintf(want, sizeof want, "aug_jpeg_info: not a JPEG, PNG, WebP, TIFF or AVIF file %s", cases[i].hex);
        assert_string_equal(aug_last_error(), want);
        assert_int_equal(aug_jpeg_describe(data, n, &jd), AUG_ERR_JPEG);
        snprintf(want, sizeof want, "aug_jpeg_describe: not a JPEG, PNG, WebP, TIFF or AVIF file %s", cases[i].hex);
        assert_string_equal(aug_last_error(), want);
        assert_int_equal(aug_png_describe(data, n, &pd), AUG_ERR_JPEG);
        snprintf(want, sizeof want, "aug_png_describe: not a JPEG, PNG, WebP, TIFF or AVIF file %s", cases[i].hex);
        assert_string_equal(aug_last_error(), want);
        assert_string_equal(aug_last_error_detail(), want + strlen("aug_png_describe: "));
    }
    /* FF D8 starts a JPEG: a truncated one keeps libjpeg-turbo's reason */
    jpeg j = encode(64, 48, TJPF_RGB, TJSAMP_420, 90, 0);
    expect_jpeg_error(d, j.buf, 2, NULL);
    assert_null(strstr(aug_last_error(), "not a JPEG, PNG, WebP, TIFF or AVIF file"));
    expect_jpeg_error(d, j.buf, j.size - 10, NULL);
    assert_string_equal(aug_last_error(), "aug_decoder_decode: Premature end of JPEG file");
    tjFree(j.buf);
    aug_decoder_free(d);
}

static void test_buffer(void **state) {
    aug_decoder *d = aug_decoder_new(CPU, 0, 0, 0);
    jpeg j = encode(21, 10, TJPF_RGB, TJSAMP_422, 90, 0);
    int w, h;
    unsigned char *ref = reference(&j, TJPF_RGB, &w, &h);
    int64_t exact[1] = {21 * 10 * 3}, bigger[2] = {7, 200}, small[1] = {21 * 10 * 3 - 1};
    aug_tensor *b1 = aug_tensor_empty(1, exact, AUG_UINT8, CPU), *b2 = aug_tensor_empty(2, bigger, AUG_UINT8, CPU);
    aug_tensor *t = decode_ok(d, &j, b1);
    assert_ptr_equal(aug_tensor_ptr(t), aug_tensor_ptr(b1));
    assert_memory_equal(aug_tensor_ptr(t), ref, (size_t)w * h * 3);
    aug_tensor_free(t);
    t = decode_ok(d, &j, b2);
    assert_ptr_equal(aug_tensor_ptr(t), aug_tensor_ptr(b2));
    assert_int_equal(t->shape[0], 10);
    assert_memory_equal(aug_tensor_ptr(t), ref, (size_t)w * h * 3);
    aug_tensor_free(b2); /* the view keeps the storage alive */
    assert_memory_equal(aug_tensor_ptr(t), ref, (size_t)w * h * 3);
    aug_tensor_free(t);

    aug_tensor *out = NULL;
    aug_tensor *bs = aug_tensor_empty(1, small, AUG_UINT8, CPU);
    assert_int_equal(aug_decoder_decode(d, j.buf, j.size, bs, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(),
                        "aug_decoder_decode: buffer of 629 elements is too small for the 10 x 21 x 3 image "
                        "(630 elements)");
    assert_null(out);
    aug_tensor *bf = aug_tensor_empty(1, exact, AUG_FLOAT32, CPU);
    assert_int_equal(aug_decoder_decode(d, j.buf, j.size, bf, &out), AUG_ERR_TYPE);
    assert_string_equal(aug_last_error(), "aug_decoder_decode: buffer must be uint8, not float32");
    int64_t two[2] = {630, 2};
    aug_tensor *b2d = aug_tensor_empty(2, two, AUG_UINT8, CPU);
    aug_index idx[2] = {{.kind = AUG_INDEX_SLICE, .start = 0, .stop = 630, .step = 1},
                        {.kind = AUG_INDEX_INT, .start = 0}};
    aug_tensor *col = aug_tensor_index(b2d, 2, idx);
    assert_non_null(col);
    assert_int_equal(aug_decoder_decode(d, j.buf, j.size, col, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_decoder_decode: buffer must be a contiguous tensor");
    assert_null(out);
    aug_tensor_free(col);
    aug_tensor_free(b2d);
    aug_tensor_free(bs);
    aug_tensor_free(bf);
    aug_tensor_free(b1);
    free(ref);
    tjFree(j.buf);
    aug_decoder_free(d);
}

static void test_null_args(void **state) {
    aug_decoder *d = aug_decoder_new(CPU, 16777216, 8388608, 1);
    assert_non_null(d);
    jpeg j = encode(8, 8, TJPF_RGB, TJSAMP_444, 90, 0);
    aug_tensor *out = NULL;
    assert_int_equal(aug_decoder_decode(NULL, j.buf, j.size, NULL, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_decoder_decode: decoder is NULL");
    assert_int_equal(aug_decoder_decode(d, j.buf, j.size, NULL, NULL), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_decoder_decode: out is NULL");
    assert_int_equal(aug_decoder_decode(d, NULL, 10, NULL, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_decoder_decode: data is NULL (size 10)");
    assert_int_equal(aug_decoder_decode(d, NULL, 0, NULL, &out), AUG_ERR_JPEG);
    assert_string_equal(aug_last_error(), "aug_decoder_decode: not a JPEG, PNG, WebP, TIFF or AVIF file (empty)");
    assert_null(out);
    int64_t h, w;
    assert_int_equal(aug_jpeg_info(j.buf, j.size, NULL, &w), AUG_ERR_VALUE);
    assert_int_equal(aug_jpeg_info(j.buf, 0, &h, &w), AUG_ERR_JPEG);
    aug_decoder_free(NULL);
    aug_decoder_free(d);
    tjFree(j.buf);

    assert_null(aug_decoder_new((aug_device){AUG_DEVICE_CPU, 1}, 0, 0, 0));
    assert_int_equal(aug_last_status(), AUG_ERR_VALUE);
    aug_decoder *g = aug_decoder_new((aug_device){AUG_DEVICE_CUDA, 0}, 0, 0, 0);
    if (aug_device_count(AUG_DEVICE_CUDA) > 0) { /* a GPU machine (make gpu-check) */
        assert_non_null(g);
        aug_decoder_free(g);
    } else {
        assert_null(g);
        assert_int_equal(aug_last_status(), AUG_ERR_CUDA);
        assert_int_equal(strncmp(aug_last_error(), "aug_decoder_new: ", 17), 0);
    }
}

/* ---- libjpeg-API files: sampling factors of our choice ---- */

typedef struct {
    int nc;            /* components: 1, 3 or 4 */
    J_COLOR_SPACE in, jcs; /* input pixels, colour space in the file */
    int f[4][2];       /* h, v sampling factor per component */
} lj_kind;

/* libjpeg's default error_exit prints and exit()s: a failing encode ends the
 * test run loudly, which is what a broken fixture should do. */
static jpeg lj_encode(int w, int h, const lj_kind *k, int progressive, int restart_rows,
                      const jpeg_scan_info *script, int nscans) {
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr err;
    c.err = jpeg_std_error(&err);
    jpeg_create_compress(&c);
    jpeg mem = {NULL, 0};
    jpeg_mem_dest(&c, &mem.buf, &mem.size);
    c.image_width = (JDIMENSION)w;
    c.image_height = (JDIMENSION)h;
    c.input_components = k->nc;
    c.in_color_space = k->in;
    jpeg_set_defaults(&c);
    jpeg_set_colorspace(&c, k->jcs);
    jpeg_set_quality(&c, 90, TRUE);
    for (int i = 0; i < k->nc; i++) {
        c.comp_info[i].h_samp_factor = k->f[i][0];
        c.comp_info[i].v_samp_factor = k->f[i][1];
    }
    if (progressive) jpeg_simple_progression(&c);
    if (script != NULL) {
        c.scan_info = script;
        c.num_scans = nscans;
    }
    c.restart_in_rows = restart_rows;
    jpeg_start_compress(&c, TRUE);
    unsigned char *row = malloc((size_t)w * k->nc);
    assert_non_null(row);
    uint32_t x = 777;
    while (c.next_scanline < c.image_height) {
        int y = (int)c.next_scanline;
        for (int i = 0; i < w * k->nc; i++) {
            x = x * 1103515245u + 12345u; /* LCG noise on gradients */
            row[i] = (unsigned char)((i / k->nc * 255 / w + y * 255 / h * (i % k->nc + 1) / 2 +
                                      (int)((x >> 16) % 41) - 20) & 255);
        }
        JSAMPROW r = row;
        jpeg_write_scanlines(&c, &r, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    free(row);
    return mem;
}

/* libjpeg's own decode with Pillow's settings: the reference. */
static unsigned char *lj_reference(const jpeg *j, J_COLOR_SPACE out, int *w, int *h) {
    struct jpeg_decompress_struct c;
    struct jpeg_error_mgr err;
    c.err = jpeg_std_error(&err);
    jpeg_create_decompress(&c);
    jpeg_mem_src(&c, j->buf, j->size);
    assert_int_equal(jpeg_read_header(&c, TRUE), JPEG_HEADER_OK);
    c.dct_method = JDCT_ISLOW;
    c.do_fancy_upsampling = TRUE;
    c.out_color_space = out;
    jpeg_start_decompress(&c);
    *w = (int)c.output_width;
    *h = (int)c.output_height;
    size_t pitch = (size_t)c.output_width * c.output_components;
    unsigned char *px = malloc(pitch * c.output_height);
    assert_non_null(px);
    while (c.output_scanline < c.output_height) {
        JSAMPROW r = px + pitch * c.output_scanline;
        assert_int_equal(jpeg_read_scanlines(&c, &r, 1), 1);
    }
    assert_int_equal(err.num_warnings, 0);
    jpeg_finish_decompress(&c);
    jpeg_destroy_decompress(&c);
    return px;
}

static int turbojpeg_refuses(const jpeg *j) {
    tjhandle tj = tjInitDecompress();
    int w, h, ss, cs;
    int r = tjDecompressHeader3(tj, j->buf, j->size, &w, &h, &ss, &cs) != 0 || ss < 0;
    tjDestroy(tj);
    return r;
}

#define YCC(a, b, c, d, e, f) {3, JCS_RGB, JCS_YCbCr, {{a, b}, {c, d}, {e, f}}}
/* The first 8 kinds are refused by TurboJPEG 2.1 (the libjpeg fallback), the
 * rest are forms it accepts (the TurboJPEG path, compared the same way). */
static const lj_kind odd_kinds[] = {
    YCC(1, 4, 1, 1, 1, 1), /* 4:4:1 (h1v4) */
    YCC(4, 2, 1, 1, 1, 1), /* 4:1:0 */
    YCC(2, 1, 1, 1, 2, 1), /* Cb subsampled, Cr not */
    YCC(2, 2, 1, 1, 2, 2), /* Cb 4:2:0, Cr full */
    YCC(4, 1, 2, 1, 1, 1), /* Cb 2:1, Cr 4:1 */
    YCC(3, 1, 1, 1, 1, 1), /* 3:1 horizontally (integral, box upsampling) */
    YCC(3, 2, 1, 1, 1, 1),
    {3, JCS_RGB, JCS_RGB, {{2, 2}, {1, 1}, {2, 1}}}, /* RGB file, G 2x2 and B 1x2 subsampled */
    YCC(2, 2, 2, 1, 2, 1), /* 4:4:0 written with a 2x2 luma (TurboJPEG names it) */
    YCC(2, 2, 1, 2, 1, 2), /* 4:2:2 written with a 2x2 luma */
    YCC(1, 2, 1, 1, 1, 1), /* 4:4:0 */
    YCC(2, 1, 2, 1, 2, 1), /* 4:4:4 with 2x1 factors everywhere */
    YCC(4, 1, 1, 1, 1, 1), /* 4:1:1 */
    {1, JCS_GRAYSCALE, JCS_GRAYSCALE, {{2, 2}}},    /* gray with factors > 1 (ignored) */
};

static void test_odd_sampling_factors(void **state) {
    static const int sizes[][2] = {{53, 37}, {64, 64}, {17, 1}, {1, 9}, {33, 70}};
    aug_decoder *d = aug_decoder_new(CPU, 0, 0, 0);
    int64_t bshape[1] = {70 * 70 * 3};
    aug_tensor *buf = aug_tensor_empty(1, bshape, AUG_UINT8, CPU);
    for (size_t k = 0; k < sizeof odd_kinds / sizeof *odd_kinds; k++)
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++)
            for (int mode = 0; mode < 3; mode++) { /* baseline, progressive, restart markers */
                jpeg j = lj_encode(sizes[z][0], sizes[z][1], &odd_kinds[k], mode == 1, mode == 2, NULL, 0);
                if (turbojpeg_refuses(&j) != (k < 8)) fail_msg("kind %zu: TurboJPEG refusal is not %d", k, k < 8);
                int w, h;
                unsigned char *ref = lj_reference(&j, JCS_RGB, &w, &h);
                int64_t ih, iw;
                assert_int_equal(aug_jpeg_info(j.buf, j.size, &ih, &iw), AUG_OK);
                assert_int_equal(ih, h);
                assert_int_equal(iw, w);
                aug_tensor *t = decode_ok(d, &j, mode == 2 ? buf : NULL);
                if (mode == 2) assert_ptr_equal(aug_tensor_ptr(t), aug_tensor_ptr(buf));
                assert_int_equal(t->shape[0], h);
                assert_int_equal(t->shape[1], w);
                if (memcmp(aug_tensor_ptr(t), ref, (size_t)w * h * 3) != 0)
                    fail_msg("kind %zu size %dx%d mode %d differs from libjpeg", k, w, h, mode);
                aug_tensor_free(t);
                free(ref);
                free(j.buf);
            }
    aug_tensor_free(buf);
    aug_decoder_free(d);
}

static void test_odd_sampling_cmyk(void **state) {
    static const lj_kind kinds[] = {
        {4, JCS_CMYK, JCS_YCCK, {{1, 4}, {1, 1}, {1, 1}, {1, 4}}},
        {4, JCS_CMYK, JCS_YCCK, {{2, 2}, {2, 1}, {1, 2}, {1, 1}}},
        {4, JCS_CMYK, JCS_CMYK, {{2, 1}, {1, 1}, {1, 2}, {2, 2}}},
    };
    aug_decoder *d = aug_decoder_new(CPU, 0, 0, 0);
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
        for (int prog = 0; prog < 2; prog++) {
            jpeg j = lj_encode(45, 29, &kinds[k], prog, 0, NULL, 0);
            assert_true(turbojpeg_refuses(&j));
            int w, h;
            unsigned char *cmyk = lj_reference(&j, JCS_CMYK, &w, &h);
            aug_tensor *t = decode_ok(d, &j, NULL);
            assert_cmyk_rgb(t, cmyk, w * h);
            aug_tensor_free(t);
            free(cmyk);
            free(j.buf);
        }
    aug_decoder_free(d);
}

static void test_odd_sampling_corrupt(void **state) {
    /* Truncations at many offsets raise (never a crash, never an image);
     * seeded byte flips raise or decode; the decoder stays usable. */
    aug_decoder *d = aug_decoder_new(CPU, 0, 0, 0);
    int64_t shape[1] = {48 * 40 * 3};
    aug_tensor *buf = aug_tensor_zeros(1, shape, AUG_UINT8, CPU);
    uint32_t x = 99;
    int flips_ok = 0, flips_err = 0;
    for (size_t k = 0; k < 8; k++)
        for (int prog = 0; prog < 2; prog++) {
            jpeg j = lj_encode(48, 40, &odd_kinds[k], prog, 0, NULL, 0);
            for (unsigned long n = 1; n < j.size - 1; n += j.size / 29 + 1) {
                expect_jpeg_error(d, j.buf, n, NULL);
                expect_jpeg_error(d, j.buf, n, buf);
            }
            for (unsigned long n = j.size - 4; n < j.size - 1; n++) expect_jpeg_error(d, j.buf, n, NULL);
            unsigned char *copy = malloc(j.size);
            for (int r = 0; r < 40; r++) {
                memcpy(copy, j.buf, j.size);
                for (int m = 0; m < 3; m++) {
                    x = x * 1103515245u + 12345u;
                    copy[(x >> 8) % j.size] = (unsigned char)(x >> 24);
                }
                aug_tensor *t = NULL;
                if (aug_decoder_decode(d, copy, j.size, r % 2 ? buf : NULL, &t) == AUG_OK) {
                    assert_int_equal(t->shape[2], 3);
                    aug_tensor_free(t);
                    flips_ok++;
                } else {
                    assert_null(t);
                    assert_int_equal(strncmp(aug_last_error(), "aug_decoder_decode: ", 20), 0);
                    flips_err++;
                }
            }
            free(copy);
            int w, h;
            unsigned char *ref = lj_reference(&j, JCS_RGB, &w, &h);
            aug_tensor *t = decode_ok(d, &j, NULL);
            assert_memory_equal(aug_tensor_ptr(t), ref, (size_t)w * h * 3);
            aug_tensor_free(t);
            free(ref);
            free(j.buf);
        }
    assert_true(flips_err > 0);
    aug_tensor_free(buf);
    aug_decoder_free(d);
}

static void test_odd_sampling_scan_limit(void **state) {
    /* A progressive file with 1 + 3 * 63 * 3 = 568 scans (each AC coefficient
     * of each component alone, in three successive-approximation passes) is
     * refused like TurboJPEG's LIMITSCANS does; 501 is the first refused count. */
    static jpeg_scan_info script[1 + 3 * 63 * 3];
    int n = 0;
    script[n++] = (jpeg_scan_info){3, {0, 1, 2}, 0, 0, 0, 0};
    for (int pass = 0; pass < 3; pass++)
        for (int c = 0; c < 3; c++)
            for (int k = 1; k <= 63; k++)
                script[n++] = (jpeg_scan_info){1, {c}, k, k, pass == 0 ? 0 : 3 - pass, 2 - pass};
    jpeg j = lj_encode(24, 24, &odd_kinds[0], 0, 0, script, n);
    assert_true(turbojpeg_refuses(&j));
    aug_decoder *d = aug_decoder_new(CPU, 0, 0, 0);
    expect_jpeg_error(d, j.buf, j.size, NULL);
    assert_string_equal(aug_last_error(), "aug_decoder_decode: Progressive JPEG image has more than 500 scans");
    free(j.buf);
    aug_decoder_free(d);
}

/* The decoder's pixel limit: default 2^28, settable in [1, 2^31], checked from the
 * header before the pixels are allocated (a header claiming 16385 x 16384). */
static void test_pixel_limit(void **state) {
    (void)state;
    aug_decoder *d = aug_decoder_new(CPU, 0, 0, 0);
    assert_non_null(d);
    assert_int_equal(aug_decoder_limit(d), (int64_t)1 << 28);
    assert_int_equal(aug_decoder_limit(NULL), 0);
    jpeg j = encode(40, 30, TJPF_RGB, TJSAMP_420, 90, 0);
    aug_tensor *t = decode_ok(d, &j, NULL);
    aug_tensor_free(t);
    assert_int_equal(aug_decoder_set_limit(d, 1199), AUG_OK);
    assert_int_equal(aug_decoder_limit(d), 1199);
    expect_jpeg_error(d, j.buf, j.size, NULL);
    assert_non_null(strstr(aug_last_error(), "image of 30 x 40 = 1200 pixels is larger than the decoder's limit of 1199"));
    assert_int_equal(aug_decoder_set_limit(d, 1200), AUG_OK);
    t = decode_ok(d, &j, NULL);
    aug_tensor_free(t);
    /* out of range: the limit stays */
    assert_int_equal(aug_decoder_set_limit(d, 0), AUG_ERR_VALUE);
    assert_non_null(strstr(aug_last_error(), "aug_decoder_set_limit: max_pixels must be in [1, 2^31], got 0"));
    assert_int_equal(aug_decoder_set_limit(d, ((int64_t)1 << 31) + 1), AUG_ERR_VALUE);
    assert_int_equal(aug_decoder_set_limit(NULL, 5), AUG_ERR_VALUE);
    assert_int_equal(aug_decoder_limit(d), 1200);
    /* a header claiming 16385 x 16384: refused at the default limit */
    unsigned char *big = malloc(j.size);
    assert_non_null(big);
    memcpy(big, j.buf, j.size);
    size_t sof = 0;
    while (sof + 1 < j.size && !(big[sof] == 0xFF && big[sof + 1] == 0xC0)) sof++;
    assert_true(sof + 9 < j.size);
    big[sof + 5] = 0x40, big[sof + 6] = 0x01; /* height 16385 */
    big[sof + 7] = 0x40, big[sof + 8] = 0x00; /* width 16384 */
    assert_int_equal(aug_decoder_set_limit(d, (int64_t)1 << 28), AUG_OK);
    expect_jpeg_error(d, big, j.size, NULL);
    assert_non_null(strstr(aug_last_error(), "16385 x 16384 = 268451840 pixels is larger than the decoder's limit "
                                             "of 268435456 pixels"));
    free(big);
    free(j.buf);
    aug_decoder_free(d);
}

/* The scan budget of progressive files (scans x pixels, default 2^32): a
 * baseline file ignores it; a progressive one is refused over it, by name, and
 * region decodes of it are held to the whole image's pixel limit. */
static void test_scan_limit(void **state) {
    (void)state;
    aug_decoder *d = aug_decoder_new(CPU, 0, 0, 0);
    assert_non_null(d);
    assert_int_equal(aug_decoder_scan_limit(d), (int64_t)1 << 32);
    assert_int_equal(aug_decoder_scan_limit(NULL), 0);
    jpeg base = encode(40, 30, TJPF_RGB, TJSAMP_420, 90, 0);
    jpeg prog = encode(40, 30, TJPF_RGB, TJSAMP_420, 90, TJFLAG_PROGRESSIVE);
    int scans = 0; /* SOS markers: FF DA is always one (entropy-coded FF bytes are followed by 00) */
    for (size_t i = 0; i + 1 < prog.size; i++) scans += prog.buf[i] == 0xFF && prog.buf[i + 1] == 0xDA;
    assert_true(scans > 1);
    assert_int_equal(aug_decoder_set_scan_limit(d, (int64_t)scans * 1200 - 1), AUG_OK);
    aug_tensor *t = decode_ok(d, &base, NULL);
    aug_tensor_free(t);
    expect_jpeg_error(d, prog.buf, prog.size, NULL);
    char want[160];
    snprintf(want, sizeof want, "progressive JPEG of %d scans x 1200 pixels = %d scan-pixels is over the decoder's "
             "limit of %d", scans, scans * 1200, scans * 1200 - 1);
    assert_non_null(strstr(aug_last_error(), want));
    assert_int_equal(aug_decoder_set_scan_limit(d, (int64_t)scans * 1200), AUG_OK);
    t = decode_ok(d, &prog, NULL);
    aug_tensor_free(t);
    /* a region of a progressive file: the whole image against max_pixels */
    int64_t roi[4] = {0, 0, 10, 10};
    assert_int_equal(aug_decoder_set_limit(d, 100), AUG_OK);
    assert_int_equal(aug_decoder_decode_region(d, base.buf, base.size, roi, 1, 1, NULL, &t), AUG_OK);
    aug_tensor_free(t);
    t = NULL;
    assert_int_equal(aug_decoder_decode_region(d, prog.buf, prog.size, roi, 1, 1, NULL, &t), AUG_ERR_JPEG);
    assert_null(t);
    assert_non_null(
        strstr(aug_last_error(), "image of 30 x 40 = 1200 pixels is larger than the decoder's limit of 100"));
    assert_int_equal(aug_decoder_set_scan_limit(d, 0), AUG_ERR_VALUE);
    assert_non_null(strstr(aug_last_error(), "aug_decoder_set_scan_limit: max_scan_pixels must be >= 1, got 0"));
    assert_int_equal(aug_decoder_set_scan_limit(NULL, 5), AUG_ERR_VALUE);
    assert_int_equal(aug_decoder_scan_limit(d), (int64_t)scans * 1200);
    free(base.buf);
    free(prog.buf);
    aug_decoder_free(d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches_turbojpeg), cmocka_unit_test(test_flat_exact), cmocka_unit_test(test_scan_limit),
        cmocka_unit_test(test_cmyk),              cmocka_unit_test(test_truncated_and_garbage),
        cmocka_unit_test(test_buffer),            cmocka_unit_test(test_null_args),
        cmocka_unit_test(test_odd_sampling_factors), cmocka_unit_test(test_odd_sampling_cmyk),
        cmocka_unit_test(test_odd_sampling_corrupt), cmocka_unit_test(test_odd_sampling_scan_limit),
        cmocka_unit_test(test_pixel_limit),          cmocka_unit_test(test_not_an_image),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
