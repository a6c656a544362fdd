/* test_jpeg_encode.c: aug_jpeg_encode (aug/image.h): a smooth image encoded and
 * decoded again (aug_decoder_decode) stays close to itself, more so at a higher
 * quality; the HWC image and its CHW view give the same file; a gray image
 * gives a one-component file, an RGB one 4:2:0 (aug_jpeg_describe); on the
 * emulated CUDA device the file equals the CPU's byte for byte; then the
 * argument errors with their messages. The pixels against Pillow's encoder:
 * tests/python/test_jpeg_encode.py. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "aug/aug.h"
#include "helpers/th_cuda.h"

enum { H = 24, W = 40 };

static void expect(aug_status got, aug_status want, const char *msg) {
    assert_int_equal(got, want);
    if (strstr(aug_last_error(), msg) == NULL) fail_msg("'%s' does not contain '%s'", aug_last_error(), msg);
}

/* A smooth (H, W, c) uint8 image on the CPU. */
static aug_tensor *smooth(int c) {
    aug_tensor *t = aug_tensor_empty(3, (int64_t[]){H, W, c}, AUG_UINT8, CPU);
    assert_non_null(t);
    uint8_t *p = aug_tensor_ptr(t);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int k = 0; k < c; k++) p[(y * W + x) * c + k] = (uint8_t)(40 + 2 * x + 2 * y + 20 * k);
    assert_int_equal(aug_tensor_set_layout(t, "HWC"), AUG_OK);
    return t;
}

/* The mean absolute difference between im (H, W, 3) and the decode of file. */
static double round_trip_error(const aug_tensor *im, const aug_tensor *file) {
    aug_decoder *d = aug_decoder_new(CPU, 0, 0, 0);
    assert_non_null(d);
    aug_tensor *back = NULL;
    assert_int_equal(aug_decoder_decode(d, aug_tensor_ptr(file), (size_t)aug_tensor_size(file), NULL, &back), AUG_OK);
    assert_int_equal(back->shape[0], H);
    assert_int_equal(back->shape[1], W);
    const uint8_t *a = aug_tensor_ptr(im), *b = aug_tensor_ptr(back);
    double sum = 0;
    for (int i = 0; i < H * W * 3; i++) sum += abs((int)a[i] - (int)b[i]);
    aug_tensor_free(back);
    aug_decoder_free(d);
    return sum / (H * W * 3);
}

static aug_tensor *encode(const aug_tensor *im, const char *layout, int quality) {
    aug_tensor *file = NULL;
    assert_int_equal(aug_jpeg_encode(im, layout, quality, &file), AUG_OK);
    assert_int_equal(file->ndim, 1);
    assert_int_equal(file->dtype, AUG_UINT8);
    assert_true(file->device.type == AUG_DEVICE_CPU);
    const uint8_t *p = aug_tensor_ptr(file);
    assert_true(p[0] == 0xFF && p[1] == 0xD8); /* SOI */
    return file;
}

static void test_cpu(void **state) {
    (void)state;
    aug_tensor *rgb = smooth(3);
    aug_tensor *hi = encode(rgb, NULL, 95), *lo = encode(rgb, NULL, 5);
    double e_hi = round_trip_error(rgb, hi), e_lo = round_trip_error(rgb, lo);
    if (!(e_hi < 2.0)) fail_msg("mean error %.3f at quality 95", e_hi);
    assert_true(e_lo > e_hi);
    assert_true(aug_tensor_size(lo) < aug_tensor_size(hi));
    aug_jpeg_desc desc;
    assert_int_equal(aug_jpeg_describe(aug_tensor_ptr(hi), (size_t)aug_tensor_size(hi), &desc), AUG_OK);
    assert_string_equal(desc.sampling, "4:2:0");
    assert_int_equal(desc.components, 3);
    assert_int_equal(desc.progressive, 0);
    /* the CHW view of the same pixels: the same file */
    aug_tensor *chw = aug_tensor_permute(rgb, (int[]){2, 0, 1});
    assert_non_null(chw);
    assert_int_equal(aug_tensor_set_layout(chw, "CHW"), AUG_OK);
    aug_tensor *f2 = encode(chw, NULL, 95);
    assert_int_equal(aug_tensor_size(f2), aug_tensor_size(hi));
    assert_memory_equal(aug_tensor_ptr(f2), aug_tensor_ptr(hi), (size_t)aug_tensor_size(hi));
    /* gray: one component */
    aug_tensor *gray = smooth(1), *gf = encode(gray, "HWC", 50);
    assert_int_equal(aug_jpeg_describe(aug_tensor_ptr(gf), (size_t)aug_tensor_size(gf), &desc), AUG_OK);
    assert_int_equal(desc.components, 1);
    aug_tensor_free(rgb), aug_tensor_free(hi), aug_tensor_free(lo), aug_tensor_free(chw), aug_tensor_free(f2);
    aug_tensor_free(gray), aug_tensor_free(gf);
}

static void test_cuda(void **state) {
    (void)state;
    NEED_CUDA();
    aug_tensor *rgb = smooth(3), *dev = aug_tensor_to(rgb, TH_CUDA0);
    assert_non_null(dev);
    aug_tensor *a = encode(rgb, NULL, 70), *b = encode(dev, NULL, 70);
    assert_int_equal(aug_tensor_size(a), aug_tensor_size(b));
    assert_memory_equal(aug_tensor_ptr(a), aug_tensor_ptr(b), (size_t)aug_tensor_size(a));
    aug_tensor_free(rgb), aug_tensor_free(dev), aug_tensor_free(a), aug_tensor_free(b);
}

static void test_errors(void **state) {
    (void)state;
    aug_tensor *rgb = smooth(3), *res = NULL;
    expect(aug_jpeg_encode(rgb, NULL, 75, NULL), AUG_ERR_VALUE, "aug_jpeg_encode: out is NULL");
    expect(aug_jpeg_encode(rgb, NULL, 0, &res), AUG_ERR_VALUE, "aug_jpeg_encode: quality must be in 1..100, got 0");
    expect(aug_jpeg_encode(rgb, NULL, 101, &res), AUG_ERR_VALUE, "quality must be in 1..100, got 101");
    aug_tensor *f = aug_tensor_empty(3, (int64_t[]){H, W, 3}, AUG_FLOAT32, CPU);
    expect(aug_jpeg_encode(f, "HWC", 75, &res), AUG_ERR_TYPE, "aug_jpeg_encode: image must be uint8, not float32");
    aug_tensor *four = smooth(4);
    expect(aug_jpeg_encode(four, NULL, 75, &res), AUG_ERR_VALUE,
           "aug_jpeg_encode: image must have 1 or 3 channels, got 4 (layout HWC)");
    aug_tensor *empty = aug_tensor_empty(3, (int64_t[]){0, W, 3}, AUG_UINT8, CPU);
    expect(aug_jpeg_encode(empty, "HWC", 75, &res), AUG_ERR_VALUE, "aug_jpeg_encode: image of 0 x 40");
    aug_tensor *batch = aug_tensor_empty(4, (int64_t[]){2, 3, H, W}, AUG_UINT8, CPU);
    expect(aug_jpeg_encode(batch, "NCHW", 75, &res), AUG_ERR_VALUE, "aug_jpeg_encode");
    assert_null(res);
    aug_tensor_free(rgb), aug_tensor_free(f), aug_tensor_free(four), aug_tensor_free(empty), aug_tensor_free(batch);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_cpu), cmocka_unit_test(test_cuda),
                                       cmocka_unit_test(test_errors)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
