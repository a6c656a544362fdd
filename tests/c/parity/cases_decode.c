/* cases_decode.c: parity cases of the JPEG family: a CUDA decoder's pixels
 * against the CPU decoder's for 4:2:0 / 4:4:4 progressive / gray / CMYK / 4:2:2
 * / 4:1:1 JPEGs of fixed and random sizes, into a device buffer on a stream of
 * its own, and PNGs in every decode mode with a region (decoded on the CPU and
 * uploaded), and WebP, 16-bit TIFF and 8/10-bit AVIF files in every mode and
 * both output dtypes (the same). Identical where the CPU decodes (the fallback, CMYK, PNG). On
 * the 'nvjpeg' engine the files nvJPEG decodes are compared with libjpeg-turbo's
 * fast-upsampling decode (nvJPEG replicates chroma; helpers/th_jpeg.h): exactly
 * on the emulation's stand-in, within IDCT rounding on a GPU (a mean absolute
 * difference of at most 1, none above 8); tests/c/test_cuda_nvjpeg.c covers its
 * two-slot pipeline. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <spng.h>
#include <turbojpeg.h>
#include <webp/encode.h>

#include "core/backend.h"
#include "helpers/th_avif.h"
#include "helpers/th_cuda.h"
#include "helpers/th_jpeg.h"
#include "parity/harness.h"

/* A w x h image of pf (RGB, gray or CMYK) with gradients and noise, as a JPEG. */
static unsigned char *encode_jpeg(int w, int h, int pf, int subsamp, int flags, unsigned long *size) {
    int nc = tjPixelSize[pf];
    unsigned char *img = malloc((size_t)w * (size_t)h * (size_t)nc), *buf = NULL;
    uint32_t x = 777;
    for (int i = 0; i < w * h * nc; i++) {
        x = x * 1103515245u + 12345u;
        img[i] = (unsigned char)((i % (w * nc)) * 255 / (w * nc) + (int)((x >> 16) % 31));
    }
    tjhandle tj = tjInitCompress();
    assert_int_equal(tjCompress2(tj, img, w, 0, h, pf, &buf, size, subsamp, 85, flags), 0);
    tjDestroy(tj);
    free(img);
    return buf;
}

/* The reference for dg's decode of the file (cpu: the CPU decoder's) and how
 * close it must be: on the 'nvjpeg' engine, for the files nvJPEG decodes,
 * libjpeg-turbo's fast-upsampling decode; otherwise the CPU decoder's pixels.
 * A new tensor; the caller frees it. */
static aug_tensor *jpeg_reference(const aug_decoder *dg, const aug_tensor *cpu, const unsigned char *j,
                                  unsigned long size, ph_bound *bound) {
    int w = 0, h = 0;
    unsigned char *px = NULL;
    *bound = (ph_bound){PH_EXACT, 0, 0};
    if (strcmp(aug_decoder_engine(dg), "nvjpeg") == 0) px = th_nvjpeg_reference(j, size, &w, &h);
    aug_tensor *ref = aug_tensor_empty(cpu->ndim, cpu->shape, AUG_UINT8, CPU);
    assert_non_null(ref);
    size_t n = (size_t)aug_tensor_size(cpu);
    if (px == NULL) {
        memcpy(aug_tensor_ptr(ref), aug_tensor_ptr(cpu), n);
        return ref;
    }
    assert_int_equal((size_t)w * (size_t)h * 3, n);
    memcpy(aug_tensor_ptr(ref), px, n);
    free(px);
    const char *b = getenv("AUG_CUDA_BACKEND");
    if (!(b && strcmp(b, "emu") == 0)) *bound = (ph_bound){PH_MEAN, TH_NVJPEG_MEAN, TH_NVJPEG_MAX};
    return ref;
}

static void run_jpeg(ph_run *r, const ph_case *c) {
    aug_decoder *dc = aug_decoder_new(CPU, 0, 0, 0), *dg = aug_decoder_new(ph_dev(r), 1024, 4096, 1);
    assert_non_null(dc), assert_non_null(dg);
    const char *engine = aug_decoder_engine(dg);
    assert_true(strcmp(engine, "nvjpeg") == 0 || strcmp(engine, "libjpeg-turbo+upload") == 0);
    const int kinds[6][3] = {{TJPF_RGB, TJSAMP_420, 0}, {TJPF_RGB, TJSAMP_444, TJFLAG_PROGRESSIVE},
                             {TJPF_GRAY, TJSAMP_GRAY, 0}, {TJPF_CMYK, TJSAMP_444, 0},
                             {TJPF_RGB, TJSAMP_422, 0}, {TJPF_RGB, TJSAMP_411, 0}};
    int sizes[4][2] = {{64, 48}, {17, 5}, {301, 203}, {(int)ph_range(r, 1, 120), (int)ph_range(r, 1, 120)}};
    for (int k = 0; k < 6; k++)
        for (int z = 0; z < 4; z++) {
            char what[64];
            snprintf(what, sizeof what, "jpeg kind %d, %dx%d", k, sizes[z][0], sizes[z][1]);
            unsigned long size;
            unsigned char *j = encode_jpeg(sizes[z][0], sizes[z][1], kinds[k][0], kinds[k][1], kinds[k][2], &size);
            aug_tensor *a = NULL, *b = NULL;
            assert_int_equal(aug_decoder_decode(dc, j, size, NULL, &a), AUG_OK);
            assert_int_equal(aug_decoder_decode(dg, j, size, NULL, &b), AUG_OK);
            assert_string_equal(b->layout, "HWC");
            ph_bound bound;
            aug_tensor *ref = jpeg_reference(dg, a, j, size, &bound);
            ph_inputs(r, 1, (const aug_tensor *const *)&a);
            ph_check_bound(r, what, ref, b, bound);
            aug_tensor_free(a), aug_tensor_free(b), aug_tensor_free(ref);
            tjFree(j);
        }
    /* into a device buffer: a view of its memory, on a stream of its own */
    unsigned long size;
    unsigned char *j = encode_jpeg(40, 30, TJPF_RGB, TJSAMP_420, 0, &size);
    int64_t n = 40 * 30 * 3 + 100;
    aug_tensor *buf = aug_tensor_zeros(1, &n, AUG_UINT8, ph_dev(r)), *cpu = NULL, *t = NULL;
    assert_int_equal(aug_decoder_decode(dc, j, size, NULL, &cpu), AUG_OK);
    ph_bound bound;
    aug_tensor *ref = jpeg_reference(dg, cpu, j, size, &bound);
    aug_tensor_free(cpu);
    assert_int_equal(aug_synchronize(ph_dev(r)), AUG_OK); /* the zeros are written before another stream uses buf */
    aug_stream *s = aug_stream_new(ph_dev(r), 0), *prev = aug_current_stream(ph_dev(r));
    assert_int_equal(aug_set_current_stream(s), AUG_OK);
    assert_int_equal(aug_decoder_decode(dg, j, size, buf, &t), AUG_OK);
    assert_int_equal(aug_set_current_stream(prev), AUG_OK);
    assert_ptr_equal(aug_tensor_ptr(t), aug_tensor_ptr(buf));
    assert_int_equal(aug_stream_synchronize(s), AUG_OK);
    ph_check_bound(r, "jpeg into a device buffer", ref, t, bound);
    aug_tensor_free(t), aug_tensor_free(ref), aug_tensor_free(buf);
    aug_stream_free(s);
    tjFree(j);
    aug_decoder_free(dc), aug_decoder_free(dg);
}

static void *encode_png(uint32_t h, uint32_t w, uint8_t ct, uint8_t depth, const void *samples, size_t len,
                        size_t *size) {
    spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1);
    struct spng_ihdr ihdr = {.width = w, .height = h, .bit_depth = depth, .color_type = ct};
    spng_set_ihdr(ctx, &ihdr);
    assert_int_equal(spng_encode_image(ctx, samples, len, SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE), 0);
    int err = 0;
    void *out = spng_get_png_buffer(ctx, size, &err);
    assert_int_equal(err, 0);
    spng_ctx_free(ctx);
    return out;
}

/* A CUDA decoder decodes PNG on the CPU and uploads: the same bytes, every mode. */
static void run_png(ph_run *r, const ph_case *c) {
    const uint32_t H = (uint32_t)ph_range(r, 8, 20), W = (uint32_t)ph_range(r, 8, 20);
    uint8_t *ga = malloc((size_t)H * W * 2);
    for (uint32_t i = 0; i < H * W * 2; i++) ga[i] = (uint8_t)(i * 53 + 7);
    size_t size = 0;
    void *png = encode_png(H, W, SPNG_COLOR_TYPE_GRAYSCALE_ALPHA, 8, ga, (size_t)H * W * 2, &size);
    aug_decoder *cpu = aug_decoder_new(CPU, 0, 0, 0), *gpu = aug_decoder_new(ph_dev(r), 0, 0, 0);
    assert_non_null(gpu);
    int64_t roi[4] = {1, 2, ph_range(r, 1, H - 1), ph_range(r, 1, W - 2)};
    for (int mode = 0; mode <= 4; mode++) {
        aug_tensor *a = NULL, *b = NULL;
        assert_int_equal(aug_decoder_decode_as(cpu, png, size, roi, 1, 1, (aug_decode_mode)mode, NULL, &a), AUG_OK);
        assert_int_equal(aug_decoder_decode_as(gpu, png, size, roi, 1, 1, (aug_decode_mode)mode, NULL, &b), AUG_OK);
        ph_inputs(r, 1, (const aug_tensor *const *)&a);
        ph_check(r, "png decode_as", a, b);
        aug_tensor_free(a), aug_tensor_free(b);
    }
    /* a truncated file: the same error on both */
    aug_tensor *t = NULL, *u = NULL;
    aug_clear_error();
    aug_status sc = aug_decoder_decode(cpu, png, size / 2, NULL, &t);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", aug_last_error());
    aug_status sg = aug_decoder_decode(gpu, png, size / 2, NULL, &u);
    ph_check_status(r, "png truncated", sc, msg, sg);
    assert_int_equal(sg, AUG_ERR_JPEG);
    assert_null(u);
    aug_tensor_free(t);
    aug_decoder_free(cpu), aug_decoder_free(gpu);
    free(png), free(ga);
}

/* An uncompressed little-endian h x w RGB TIFF of 16-bit samples, one strip. */
static uint8_t *tiff16(uint32_t h, uint32_t w, const uint16_t *rgb, size_t *size) {
    static const uint16_t tag[] = {256, 257, 258, 259, 262, 273, 277, 278, 279};
    uint32_t data_at = 8 + 2 + 9 * 12 + 4 + 8, bytes = h * w * 6;
    uint32_t val[] = {w, h, data_at - 8, 1, 2, data_at, 3, h, bytes};
    uint8_t *b = calloc(data_at + bytes, 1);
    memcpy(b, "II*\0\x08\0\0\0\x09\0", 10);
    for (int i = 0; i < 9; i++) {
        uint8_t *e = b + 10 + 12 * i;
        uint16_t type = tag[i] == 258 ? 3 : 4, count = tag[i] == 258 ? 3 : 1;
        memcpy(e, &tag[i], 2), memcpy(e + 2, &type, 2), memcpy(e + 4, &count, 2);
        memcpy(e + 8, &val[i], 4);
    }
    uint16_t bps[3] = {16, 16, 16}; /* BitsPerSample's three values, at data_at - 8 */
    memcpy(b + data_at - 8, bps, 6);
    memcpy(b + data_at, rgb, bytes);
    *size = data_at + bytes;
    return b;
}

/* WebP and TIFF reach a CUDA decoder as a CPU decode and an upload: the same values, every mode
 * and dtype (the 16-bit TIFF's samples through the 16-bit staging copy). */
static void run_webp_tiff(ph_run *r, const ph_case *c) {
    (void)c;
    const int H = (int)ph_range(r, 8, 20), W = (int)ph_range(r, 8, 20);
    uint8_t *rgba = malloc((size_t)H * W * 4);
    uint16_t *rgb16 = malloc((size_t)H * W * 6);
    for (int i = 0; i < H * W * 4; i++) rgba[i] = (uint8_t)(i * 53 + 7);
    for (int i = 0; i < H * W * 3; i++) rgb16[i] = (uint16_t)(i * 40503u + 11);
    uint8_t *webp = NULL;
    size_t nw = WebPEncodeLosslessRGBA(rgba, W, H, W * 4, &webp), nt = 0;
    uint8_t *tif = tiff16((uint32_t)H, (uint32_t)W, rgb16, &nt);
    assert_true(nw > 0);
    aug_decoder *cpu = aug_decoder_new(CPU, 0, 0, 0), *gpu = aug_decoder_new(ph_dev(r), 0, 0, 0);
    assert_non_null(gpu);
    int64_t roi[4] = {1, 2, ph_range(r, 1, H - 1), ph_range(r, 1, W - 2)};
    for (int f = 0; f < 2; f++)
        for (int mode = 0; mode <= 4; mode++)
            for (int wide = 0; wide < 2; wide++) {
                aug_decode_options o = aug_decode_options_default();
                o.mode = (aug_decode_mode)mode, o.dtype = wide ? AUG_UINT16 : AUG_UINT8, o.roi = mode % 2 ? roi : NULL;
                aug_tensor *a = NULL, *b = NULL;
                const void *data = f ? (const void *)tif : webp;
                size_t n = f ? nt : nw;
                assert_int_equal(aug_decoder_decode_ex(cpu, data, n, &o, NULL, &a), AUG_OK);
                assert_int_equal(aug_decoder_decode_ex(gpu, data, n, &o, NULL, &b), AUG_OK);
                ph_inputs(r, 1, (const aug_tensor *const *)&a);
                ph_check(r, f ? "tiff decode_ex" : "webp decode_ex", a, b);
                aug_tensor_free(a), aug_tensor_free(b);
            }
    aug_decoder_free(cpu), aug_decoder_free(gpu);
    WebPFree(webp);
    free(tif), free(rgba), free(rgb16);
}

/* AVIF reaches a CUDA decoder as a CPU decode and an upload: the same values for a lossy 8-bit
 * RGB file and a lossless 10-bit RGBA one, every mode and dtype, whole and cut. */
static void run_avif(ph_run *r, const ph_case *c) {
    (void)c;
    const int H = (int)ph_range(r, 8, 20), W = (int)ph_range(r, 8, 20);
    uint16_t *px = malloc(sizeof *px * (size_t)H * (size_t)W * 4);
    assert_non_null(px);
    for (int i = 0; i < H * W * 4; i++) px[i] = (uint16_t)((i * 40503u + 11u) & 1023u);
    size_t n[2] = {0, 0};
    uint8_t *files[2] = {NULL, NULL};
    uint16_t *px8 = malloc(sizeof *px8 * (size_t)H * (size_t)W * 3);
    assert_non_null(px8);
    for (int i = 0; i < H * W * 3; i++) px8[i] = (uint16_t)(px[i] >> 2);
    files[0] = th_avif_encode(px8, H, W, 3, 8, 0, &n[0]);
    files[1] = th_avif_encode(px, H, W, 4, 10, 1, &n[1]);
    assert_true(files[0] != NULL && files[1] != NULL);
    aug_decoder *cpu = aug_decoder_new(CPU, 0, 0, 0), *gpu = aug_decoder_new(ph_dev(r), 0, 0, 0);
    assert_non_null(gpu);
    int64_t roi[4] = {1, 2, ph_range(r, 1, H - 1), ph_range(r, 1, W - 2)};
    for (int f = 0; f < 2; f++)
        for (int mode = 0; mode <= 4; mode++)
            for (int wide = 0; wide < 2; wide++) {
                aug_decode_options o = aug_decode_options_default();
                o.mode = (aug_decode_mode)mode, o.dtype = wide ? AUG_UINT16 : AUG_UINT8, o.roi = mode % 2 ? roi : NULL;
                aug_tensor *a = NULL, *b = NULL;
                assert_int_equal(aug_decoder_decode_ex(cpu, files[f], n[f], &o, NULL, &a), AUG_OK);
                assert_int_equal(aug_decoder_decode_ex(gpu, files[f], n[f], &o, NULL, &b), AUG_OK);
                ph_inputs(r, 1, (const aug_tensor *const *)&a);
                ph_check(r, "avif decode_ex", a, b);
                aug_tensor_free(a), aug_tensor_free(b);
            }
    aug_decoder_free(cpu), aug_decoder_free(gpu);
    free(files[0]), free(files[1]), free(px), free(px8);
}

static const ph_case CASES[] = {
    {"jpeg/decode", AUG__FAMILY_JPEG, -1, 1u << AUG_UINT8, 0, 3, NULL, PH_BOUND_EXACT, run_jpeg},
    /* PNG reaches a CUDA decoder as a CPU decode and an upload (the JPEG family's fallback) */
    {"jpeg/png", AUG__FAMILY_JPEG, -1, 1u << AUG_UINT8, 0, 3, NULL, PH_BOUND_EXACT, run_png},
    {"jpeg/webp_tiff", AUG__FAMILY_JPEG, -1, 1u << AUG_UINT8, 0, 3, NULL, PH_BOUND_EXACT, run_webp_tiff},
    {"jpeg/avif", AUG__FAMILY_JPEG, -1, 1u << AUG_UINT8, 0, 3, NULL, PH_BOUND_EXACT, run_avif},
};
const ph_case_list ph_cases_decode = {CASES, sizeof CASES / sizeof CASES[0]};
