/* test_decode_interrupt.c: long decodes poll the thread's interrupt check
 * (aug_set_interrupt_check). A PNG (plain, and Adam7, whose rows come pass by
 * pass) and a baseline JPEG over 2^22 pixels (decoded through libjpeg's API for
 * this) are decoded with a check that asks to stop: AUG_ERR_INTERRUPTED,
 * "func: interrupted; nothing is returned", *out untouched, the check run; with
 * a check that never stops the same decodes succeed and the check still ran
 * (every 10 ms: the images are large enough to take longer than that); the
 * decoder works afterwards. Python's side (SIGALRM, KeyboardInterrupt within
 * milliseconds): tests/python/test_decode_interrupt.py. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <spng.h>
#include <turbojpeg.h>

#include "aug/aug.h"

#define CPU aug_cpu_device()

typedef struct {
    int calls, stop;
} check_state;

static int check(void *ctx) {
    check_state *s = ctx;
    s->calls++;
    return s->stop;
}

/* An h x w 8-bit gray PNG of a pattern, interlaced (Adam7) or not. */
static void *encode_png(uint32_t h, uint32_t w, int interlace, size_t *size) {
    uint8_t *px = malloc((size_t)h * w);
    assert_non_null(px);
    for (size_t i = 0; i < (size_t)h * w; i++) px[i] = (uint8_t)(i % w + i / w);
    spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
    assert_non_null(ctx);
    spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1);
    struct spng_ihdr ihdr = {w, h, 8, SPNG_COLOR_TYPE_GRAYSCALE, 0, 0, (uint8_t)interlace};
    assert_int_equal(spng_set_ihdr(ctx, &ihdr), 0);
    assert_int_equal(spng_encode_image(ctx, px, (size_t)h * w, SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE), 0);
    int err = 0;
    void *buf = spng_get_png_buffer(ctx, size, &err);
    assert_int_equal(err, 0);
    spng_ctx_free(ctx);
    free(px);
    return buf;
}

/* A w x h baseline 4:2:0 JPEG of gradients (TurboJPEG). */
static unsigned char *encode_jpeg(int w, int h, unsigned long *size) {
    unsigned char *img = malloc((size_t)w * h * 3), *buf = NULL;
    assert_non_null(img);
    for (size_t i = 0; i < (size_t)w * h * 3; i++) img[i] = (unsigned char)(i % 251 + i / (size_t)(w * 3));
    tjhandle tj = tjInitCompress();
    assert_int_equal(tjCompress2(tj, img, w, 0, h, TJPF_RGB, &buf, size, TJSAMP_420, 90, 0), 0);
    tjDestroy(tj);
    free(img);
    return buf;
}

/* Decodes data (roi: a region in gray, else the whole image in RGB) with a check
 * that stops, then one that does not. */
static void interrupt_then_decode(aug_decoder *d, const void *data, size_t size, const int64_t *roi,
                                  const char *func) {
    check_state s = {0, 1};
    aug_tensor *out = (aug_tensor *)&s; /* must stay as it is on failure */
    aug_set_interrupt_check(check, &s);
    aug_status st = roi ? aug_decoder_decode_as(d, data, size, roi, 1, 1, AUG_DECODE_GRAY, NULL, &out)
                        : aug_decoder_decode(d, data, size, NULL, &out);
    aug_set_interrupt_check(NULL, NULL);
    assert_int_equal(st, AUG_ERR_INTERRUPTED);
    assert_ptr_equal(out, (aug_tensor *)&s);
    assert_true(s.calls >= 1);
    char want[128];
    snprintf(want, sizeof want, "%s: interrupted; nothing is returned", func);
    assert_string_equal(aug_last_error(), want);

    check_state go = {0, 0};
    aug_set_interrupt_check(check, &go);
    out = NULL;
    st = roi ? aug_decoder_decode_as(d, data, size, roi, 1, 1, AUG_DECODE_GRAY, NULL, &out)
             : aug_decoder_decode(d, data, size, NULL, &out);
    aug_set_interrupt_check(NULL, NULL);
    assert_int_equal(st, AUG_OK);
    assert_true(go.calls >= 1);
    aug_tensor_free(out);
}

static void test_png_stops(void **state) {
    (void)state;
    aug_decoder *d = aug_decoder_new(CPU, 0, 0, 0);
    assert_non_null(d);
    for (int interlace = 0; interlace <= 1; interlace++) {
        size_t size = 0;
        void *png = encode_png(4096, 8192, interlace, &size); /* 33 Mpixel: far over 10 ms to decode */
        int64_t roi[4] = {100, 200, 300, 400};
        interrupt_then_decode(d, png, size, NULL, "aug_decoder_decode");
        interrupt_then_decode(d, png, size, roi, "aug_decoder_decode_as");
        free(png);
    }
    size_t size = 0;
    void *small = encode_png(5, 7, 1, &size);
    aug_tensor *out = NULL;
    assert_int_equal(aug_decoder_decode(d, small, size, NULL, &out), AUG_OK);
    assert_int_equal(out->shape[0], 5);
    aug_tensor_free(out);
    free(small);
    aug_decoder_free(d);
}

static void test_large_baseline_jpeg_stops(void **state) {
    (void)state;
    aug_decoder *d = aug_decoder_new(CPU, 0, 0, 0);
    assert_non_null(d);
    unsigned long size = 0;
    unsigned char *jpg = encode_jpeg(4096, 4096, &size); /* 2^24 pixels, over the 2^22 of TurboJPEG's path */
    interrupt_then_decode(d, jpg, size, NULL, "aug_decoder_decode");
    tjFree(jpg);
    aug_decoder_free(d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_png_stops),
        cmocka_unit_test(test_large_baseline_jpeg_stops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
