/* test_jpeg_region.c: aug_decoder_decode_region (DCT scaling + roi) and
 * aug_jpeg_describe. The reference for every region is libjpeg's own full
 * decode at the same scale (jpeg_start_decompress with scale_num/8, JDCT_ISLOW,
 * fancy upsampling: no cropping involved) cut with memcpy, so a region must
 * equal the full decode's pixels exactly at every alignment. Files are encoded
 * with TurboJPEG (named samplings, gray, CMYK) and libjpeg (factors TurboJPEG
 * 2.1 cannot name). Bad scales and rois, the output-size limit, buffers. */
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
    int cmyk; /* 4 components: region views are compact */
} jpeg;

/* A w x h image of TurboJPEG pixel format pf, gradients plus LCG noise. */
static jpeg tj_encode(int w, int h, int pf, int subsamp, int flags) {
    int nc = tjPixelSize[pf];
    unsigned char *img = malloc((size_t)w * h * nc);
    assert_non_null(img);
    uint32_t x = 4242;
    for (int y = 0; y < h; y++)
        for (int i = 0; i < w; i++)
            for (int c = 0; c < nc; c++) {
                x = x * 1103515245u + 12345u;
                img[((size_t)y * w + i) * nc + c] =
                    (unsigned char)((i * 255 / w + y * 255 / h * (c + 1) / 2 + (int)((x >> 16) % 41) - 20) & 255);
            }
    tjhandle tj = tjInitCompress();
    jpeg j = {NULL, 0, pf == TJPF_CMYK};
    assert_int_equal(tjCompress2(tj, img, w, 0, h, pf, &j.buf, &j.size, subsamp, 90, flags), 0);
    tjDestroy(tj);
    free(img);
    return j;
}

/* A YCbCr file with Y sampled hf x vf and Cb, Cr 1x1 (libjpeg's compressor). */
static jpeg lj_encode(int w, int h, int hf, int vf) {
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr err;
    c.err = jpeg_std_error(&err);
    jpeg_create_compress(&c);
    jpeg j = {NULL, 0, 0};
    jpeg_mem_dest(&c, &j.buf, &j.size);
    c.image_width = (JDIMENSION)w;
    c.image_height = (JDIMENSION)h;
    c.input_components = 3;
    c.in_color_space = JCS_RGB;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, 90, TRUE);
    c.comp_info[0].h_samp_factor = hf;
    c.comp_info[0].v_samp_factor = vf;
    for (int k = 1; k < 3; k++) c.comp_info[k].h_samp_factor = c.comp_info[k].v_samp_factor = 1;
    jpeg_start_compress(&c, TRUE);
    unsigned char *row = malloc((size_t)w * 3);
    uint32_t x = 99;
    while (c.next_scanline < c.image_height) {
        for (int i = 0; i < w * 3; i++) {
            x = x * 1103515245u + 12345u;
            row[i] = (unsigned char)((i * 85 / w + (int)c.next_scanline * 3 + (int)((x >> 16) % 41)) & 255);
        }
        JSAMPROW r = row;
        jpeg_write_scanlines(&c, &r, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    free(row);
    return j;
}

/* Pillow's CMYK;I -> RGB on stored samples (as the decoder documents). */
static unsigned char cmyk_channel(unsigned sc, unsigned sk) {
    unsigned t = (255u - sc) * sk + 128;
    return (unsigned char)(sk - (((t >> 8) + t) >> 8));
}

/* libjpeg's full decode at scale m/8 to packed RGB (CMYK converted). */
static unsigned char *lj_full(const jpeg *j, int m, int *w, int *h) {
    struct jpeg_decompress_struct c;
    struct jpeg_error_mgr err;
    c.err = jpeg_std_error(&err);
    jpeg_create_decompress(&c);
    jpeg_mem_src(&c, j->buf, j->size);
    assert_int_equal(jpeg_read_header(&c, TRUE), JPEG_HEADER_OK);
    int cmyk = c.num_components == 4;
    c.dct_method = JDCT_ISLOW;
    c.do_fancy_upsampling = TRUE;
    c.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
    c.scale_num = (unsigned)m;
    c.scale_denom = 8;
    jpeg_start_decompress(&c);
    *w = (int)c.output_width;
    *h = (int)c.output_height;
    size_t nc = (size_t)c.output_components, pitch = (size_t)*w * nc;
    unsigned char *px = malloc(pitch * (size_t)*h), *rgb = malloc((size_t)*w * *h * 3);
    assert_non_null(px);
    while (c.output_scanline < c.output_height) {
        JSAMPROW r = px + pitch * c.output_scanline;
        assert_int_equal(jpeg_read_scanlines(&c, &r, 1), 1);
    }
    jpeg_finish_decompress(&c);
    jpeg_destroy_decompress(&c);
    for (size_t i = 0; i < (size_t)*w * *h; i++)
        for (int k = 0; k < 3; k++)
            rgb[i * 3 + k] = cmyk ? cmyk_channel(px[i * 4 + k], px[i * 4 + 3]) : px[i * nc + (nc == 1 ? 0 : k)];
    free(px);
    return rgb;
}

/* Every roi of a grid of positions and sizes at scale m/8 equals the full decode cut. */
static void check_regions(aug_decoder *d, const jpeg *j, int m, const char *what) {
    int W, H;
    unsigned char *ref = lj_full(j, m, &W, &H);
    static const int pos[] = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33};
    static const int ext[] = {1, 2, 7, 8, 16, 19};
    for (size_t a = 0; a < sizeof pos / sizeof *pos; a++)
        for (size_t b = 0; b < sizeof pos / sizeof *pos; b += 2)
            for (size_t e = 0; e < sizeof ext / sizeof *ext; e++) {
                int64_t roi[4] = {pos[b], pos[a], ext[e], ext[(e + a) % 6]};
                if (roi[0] + roi[2] > H || roi[1] + roi[3] > W) continue;
                aug_tensor *t = NULL;
                if (aug_decoder_decode_region(d, j->buf, j->size, roi, m, 8, NULL, &t) != AUG_OK)
                    fail_msg("%s m=%d: %s", what, m, aug_last_error());
                assert_int_equal(t->shape[0], roi[2]);
                assert_int_equal(t->shape[1], roi[3]);
                assert_string_equal(t->layout, "HWC");
                const unsigned char *p = aug_tensor_ptr(t);
                for (int y = 0; y < roi[2]; y++)
                    if (memcmp(p + (size_t)y * roi[3] * 3, ref + ((size_t)(roi[0] + y) * W + roi[1]) * 3,
                               (size_t)roi[3] * 3) != 0)
                        fail_msg("%s m=%d roi (%lld,%lld,%lld,%lld) row %d differs from the full decode", what, m,
                                 (long long)roi[0], (long long)roi[1], (long long)roi[2], (long long)roi[3], y);
                aug_tensor_free(t);
                /* the band view: the same pixels, rows (w + 68) * 3 bytes apart (CMYK: compact) */
                t = NULL;
                if (aug_decoder_decode_view(d, j->buf, j->size, roi, m, 8, NULL, &t) != AUG_OK)
                    fail_msg("%s m=%d view: %s", what, m, aug_last_error());
                assert_int_equal(t->shape[0], roi[2]);
                assert_int_equal(t->shape[1], roi[3]);
                assert_int_equal(t->strides[0], j->cmyk ? roi[3] * 3 : (roi[3] + 68) * 3);
                assert_string_equal(t->layout, "HWC");
                p = aug_tensor_ptr(t);
                for (int y = 0; y < roi[2]; y++)
                    if (memcmp(p + (size_t)y * (size_t)t->strides[0],
                               ref + ((size_t)(roi[0] + y) * W + roi[1]) * 3, (size_t)roi[3] * 3) != 0)
                        fail_msg("%s m=%d view roi (%lld,%lld,%lld,%lld) row %d differs from the full decode", what,
                                 m, (long long)roi[0], (long long)roi[1], (long long)roi[2], (long long)roi[3], y);
                aug_tensor_free(t);
            }
    /* roi NULL: the whole scaled image */
    aug_tensor *t = NULL;
    assert_int_equal(aug_decoder_decode_region(d, j->buf, j->size, NULL, m * 2, 16, NULL, &t), AUG_OK);
    assert_int_equal(t->shape[0], H);
    assert_int_equal(t->shape[1], W);
    assert_memory_equal(aug_tensor_ptr(t), ref, (size_t)W * H * 3);
    aug_tensor_free(t);
    free(ref);
}

static void test_regions_match_full_decode(void **state) {
    static const int samps[] = {TJSAMP_420, TJSAMP_422, TJSAMP_444, TJSAMP_440, TJSAMP_411, TJSAMP_GRAY};
    static const int scales[] = {8, 4, 3, 1, 11, 16};
    aug_decoder *d = aug_decoder_new(CPU, 0, 0, 0);
    char what[64];
    for (size_t s = 0; s < sizeof samps / sizeof *samps; s++)
        for (int prog = 0; prog < 2; prog++) {
            jpeg j = tj_encode(61, 45, TJPF_RGB, samps[s], prog ? TJFLAG_PROGRESSIVE : 0);
            for (size_t m = 0; m < sizeof scales / sizeof *scales; m++) {
                snprintf(what, sizeof what, "subsamp %d prog %d", samps[s], prog);
                check_regions(d, &j, scales[m], what);
            }
            tjFree(j.buf);
        }
    jpeg c = tj_encode(50, 41, TJPF_CMYK, TJSAMP_420, 0);
    check_regions(d, &c, 8, "CMYK");
    check_regions(d, &c, 4, "CMYK");
    tjFree(c.buf);
    jpeg o = lj_encode(47, 39, 1, 4); /* TurboJPEG 2.1 refuses Y 1x4: the libjpeg path already */
    check_regions(d, &o, 8, "Y 1x4");
    check_regions(d, &o, 5, "Y 1x4");
    free(o.buf);
    aug_decoder_free(d);
}

static void test_describe(void **state) {
    static const struct {
        int pf, samp, flags;
        const char *cs, *sampling;
        int components;
    } cases[] = {
        {TJPF_RGB, TJSAMP_444, 0, "YCbCr", "4:4:4", 3},          {TJPF_RGB, TJSAMP_422, 0, "YCbCr", "4:2:2", 3},
        {TJPF_RGB, TJSAMP_420, TJFLAG_PROGRESSIVE, "YCbCr", "4:2:0", 3},
        {TJPF_RGB, TJSAMP_440, 0, "YCbCr", "4:4:0", 3},          {TJPF_RGB, TJSAMP_411, 0, "YCbCr", "4:1:1", 3},
        {TJPF_GRAY, TJSAMP_GRAY, 0, "Grayscale", "4:0:0", 1},   {TJPF_CMYK, TJSAMP_444, 0, "YCCK", "4:4:4", 4},
        {TJPF_CMYK, TJSAMP_420, 0, "YCCK", "4:2:0", 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        jpeg j = tj_encode(33, 21, cases[i].pf, cases[i].samp, cases[i].flags);
        aug_jpeg_desc s;
        if (aug_jpeg_describe(j.buf, j.size, &s) != AUG_OK) fail_msg("%s", aug_last_error());
        assert_int_equal(s.height, 21);
        assert_int_equal(s.width, 33);
        assert_int_equal(s.channels, 3);
        assert_int_equal(s.components, cases[i].components);
        assert_string_equal(s.colour_space, cases[i].cs);
        assert_string_equal(s.sampling, cases[i].sampling);
        assert_int_equal(s.progressive, cases[i].flags != 0);
        tjFree(j.buf);
    }
    jpeg o = lj_encode(20, 10, 1, 4);
    aug_jpeg_desc s;
    assert_int_equal(aug_jpeg_describe(o.buf, o.size, &s), AUG_OK);
    assert_string_equal(s.sampling, "1x4,1x1,1x1");
    assert_string_equal(s.colour_space, "YCbCr");
    /* bad input: desc untouched */
    memset(&s, 0x5a, sizeof s);
    aug_jpeg_desc before = s;
    assert_int_equal(aug_jpeg_describe(o.buf, 100, &s), AUG_ERR_JPEG);
    assert_non_null(strstr(aug_last_error(), "aug_jpeg_describe: "));
    assert_int_equal(aug_jpeg_describe("not a jpeg", 10, &s), AUG_ERR_JPEG);
    assert_int_equal(aug_jpeg_describe(o.buf, 0, &s), AUG_ERR_JPEG);
    assert_int_equal(aug_jpeg_describe(NULL, 5, &s), AUG_ERR_VALUE);
    assert_int_equal(aug_jpeg_describe(o.buf, o.size, NULL), AUG_ERR_VALUE);
    assert_memory_equal(&s, &before, sizeof s);
    free(o.buf);
}

static void expect_value_error(aug_decoder *d, const jpeg *j, const int64_t *roi, int num, int den,
                               const char *needle) {
    aug_tensor *t = NULL;
    assert_int_equal(aug_decoder_decode_region(d, j->buf, j->size, roi, num, den, NULL, &t), AUG_ERR_VALUE);
    assert_null(t);
    if (strstr(aug_last_error(), needle) == NULL) fail_msg("'%s' lacks '%s'", aug_last_error(), needle);
    assert_non_null(strstr(aug_last_error(), "aug_decoder_decode_region: "));
}

static void test_bad_region_args(void **state) {
    aug_decoder *d = aug_decoder_new(CPU, 0, 0, 0);
    jpeg j = tj_encode(61, 45, TJPF_RGB, TJSAMP_420, 0);
    static const int bad_scales[][2] = {{0, 1}, {-1, 2}, {1, 0}, {1, -8}, {3, 1}, {1, 3}, {1, 16}, {17, 8}};
    for (size_t i = 0; i < sizeof bad_scales / sizeof *bad_scales; i++)
        expect_value_error(d, &j, NULL, bad_scales[i][0], bad_scales[i][1], "is not one of libjpeg-turbo's factors");
    static const int64_t bad_rois[][4] = {{-1, 0, 1, 1}, {0, -1, 1, 1}, {0, 0, 0, 1}, {0, 0, 1, 0}, {0, 0, 46, 1},
                                          {0, 0, 1, 62}, {45, 0, 1, 1}, {0, 61, 1, 1}, {44, 60, 2, 1},
                                          {0, 0, INT64_MAX, 1}, {INT64_MAX, 0, 1, 1}};
    for (size_t i = 0; i < sizeof bad_rois / sizeof *bad_rois; i++)
        expect_value_error(d, &j, bad_rois[i], 1, 1, "is not inside the decoded image of 45 x 61");
    int64_t in_full_not_scaled[4] = {20, 20, 8, 8}; /* the 1/2 image is 23 x 31 */
    expect_value_error(d, &j, in_full_not_scaled, 1, 2, "is not inside the scaled image of 23 x 31");
    aug_tensor *t = NULL;
    int64_t ok[4] = {0, 0, 1, 1};
    assert_int_equal(aug_decoder_decode_region(NULL, j.buf, j.size, ok, 1, 1, NULL, &t), AUG_ERR_VALUE);
    assert_int_equal(aug_decoder_decode_region(d, j.buf, j.size, ok, 1, 1, NULL, NULL), AUG_ERR_VALUE);
    assert_int_equal(aug_decoder_decode_region(d, j.buf, 0, ok, 1, 1, NULL, &t), AUG_ERR_JPEG);
    assert_int_equal(aug_decoder_decode_region(d, j.buf, j.size / 2, NULL, 1, 2, NULL, &t), AUG_ERR_JPEG);
    assert_non_null(strstr(aug_last_error(), "Premature end of JPEG file"));
    int64_t bottom[4] = {40, 0, 5, 61};
    assert_int_equal(aug_decoder_decode_region(d, j.buf, j.size / 2, bottom, 1, 1, NULL, &t), AUG_ERR_JPEG);
    assert_null(t);
    /* documented: rows below the region are not read, so the first row of a
     * file truncated halfway decodes */
    assert_int_equal(aug_decoder_decode_region(d, j.buf, j.size / 2, ok, 1, 1, NULL, &t), AUG_OK);
    aug_tensor_free(t);
    t = NULL;
    /* equivalent spellings of one factor */
    assert_int_equal(aug_decoder_decode_region(d, j.buf, j.size, NULL, 2, 4, NULL, &t), AUG_OK);
    assert_int_equal(t->shape[0], 23);
    assert_int_equal(t->shape[1], 31);
    aug_tensor_free(t);
    tjFree(j.buf);
    aug_decoder_free(d);
}

/* The limit bounds the output; a buffer takes a region like a full decode. */
static void test_region_limit_and_buffer(void **state) {
    aug_decoder *d = aug_decoder_new(CPU, 0, 0, 0);
    jpeg j = tj_encode(61, 45, TJPF_RGB, TJSAMP_422, 0);
    assert_int_equal(aug_decoder_set_limit(d, 100), AUG_OK);
    aug_tensor *t = NULL;
    assert_int_equal(aug_decoder_decode(d, j.buf, j.size, NULL, &t), AUG_ERR_JPEG);
    int64_t roi[4] = {10, 20, 10, 10}, big[4] = {0, 0, 10, 11};
    assert_int_equal(aug_decoder_decode_region(d, j.buf, j.size, roi, 1, 1, NULL, &t), AUG_OK);
    aug_tensor_free(t);
    t = NULL;
    assert_int_equal(aug_decoder_decode_region(d, j.buf, j.size, big, 1, 1, NULL, &t), AUG_ERR_JPEG);
    assert_non_null(strstr(aug_last_error(), "image of 10 x 11 = 110 pixels is larger than the decoder's limit"));
    assert_int_equal(aug_decoder_decode_region(d, j.buf, j.size, NULL, 1, 8, NULL, &t), AUG_OK); /* 6 x 8 */
    assert_int_equal(t->shape[0], 6);
    assert_int_equal(t->shape[1], 8);
    aug_tensor_free(t);
    assert_int_equal(aug_decoder_set_limit(d, 1 << 20), AUG_OK);
    int64_t bshape[1] = {10 * 10 * 3};
    aug_tensor *buf = aug_tensor_empty(1, bshape, AUG_UINT8, CPU);
    assert_int_equal(aug_decoder_decode_region(d, j.buf, j.size, roi, 1, 1, buf, &t), AUG_OK);
    assert_ptr_equal(aug_tensor_ptr(t), aug_tensor_ptr(buf));
    aug_tensor_free(t);
    t = NULL;
    assert_int_equal(aug_decoder_decode_region(d, j.buf, j.size, big, 1, 1, buf, &t), AUG_ERR_VALUE);
    assert_null(t);
    aug_tensor_free(buf);
    tjFree(j.buf);
    aug_decoder_free(d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_regions_match_full_decode),
        cmocka_unit_test(test_describe),
        cmocka_unit_test(test_bad_region_args),
        cmocka_unit_test(test_region_limit_and_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
