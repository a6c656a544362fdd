/* test_cuda_errors.c: the CUDA backend's argument errors and their messages:
 * lighting, blur and warp parameters on another device than the image, values
 * read back from the device, partly overlapping outputs; crop_mirror_normalize
 * and Gaussian noise; a decoder's buffer on another device and truncated files
 * (the buffer left as it was, the decoder still usable). (The CPU-vs-CUDA
 * comparisons are tests/c/parity/, test_cuda_parity.)
 *
 * Runs on the emulated devices under ctest (AUG_CUDA_BACKEND=emu), on a real
 * GPU otherwise; skips without a CUDA device unless AUG_REQUIRE_CUDA=1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <turbojpeg.h>

#include "aug/aug.h"
#include "helpers/th_cuda.h"

static void test_lighting_errors(void **state) {
    (void)state;
    NEED_CUDA();
    const int64_t shape[4] = {2, 3, 4, 4};
    aug_tensor *im = aug_tensor_zeros(4, shape, AUG_UINT8, TH_CUDA0), *out = NULL;
    const float one[6] = {1, 1, 1, 1, 1, 1}, zero[2] = {0, 0}, bad[2] = {1, -2};
    aug_tensor *g = th_floats_on(one, 2, TH_CUDA0), *gc = th_floats_on(one, 6, TH_CUDA0), *k = th_floats_on(zero, 2, TH_CUDA0);
    aug_tensor *gcpu = th_floats_on(one, 2, CPU), *kbad = th_floats_on(bad, 2, TH_CUDA0);
    /* parameters on the CPU are read there (no wait for the GPU); on another GPU they are refused */
    assert_int_equal(aug_lighting(im, gcpu, gc, k, 0, 255, &out), AUG_OK);
    aug_tensor_free(out);
    out = NULL;
    if (aug_device_count(AUG_DEVICE_CUDA) > 1) {
        aug_tensor *g1 = th_floats_on(one, 2, (aug_device){AUG_DEVICE_CUDA, 1});
        assert_int_equal(aug_lighting(im, g1, gc, k, 0, 255, &out), AUG_ERR_VALUE);
        assert_string_equal(aug_last_error(), "aug_lighting: gammagrays is on device cuda:1 but the image is on cuda:0");
        aug_tensor_free(g1);
    }
    /* values read back from the device are checked */
    assert_int_equal(aug_lighting(im, g, gc, kbad, 0, 255, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_lighting: contrasts[1] = -2 must be in [-1, 1]");
    assert_int_equal(aug_lighting(im, kbad, gc, k, 0, 255, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_lighting: gammagrays[1] = -2 must be finite and > 0");
    /* an output that partly overlaps the image */
    int64_t flat = 2 * 3 * 4 * 4 + 16, strides[4] = {48, 16, 4, 1};
    aug_tensor *big = aug_tensor_zeros(1, &flat, AUG_UINT8, TH_CUDA0);
    aug_tensor *a = aug_tensor_from_storage(big->storage, 0, 4, shape, strides, AUG_UINT8);
    aug_tensor *b = aug_tensor_from_storage(big->storage, 16, 4, shape, strides, AUG_UINT8);
    assert_non_null(a), assert_non_null(b);
    assert_int_equal(aug_lighting(a, g, gc, k, 0, 255, &b), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_lighting: out partially overlaps the image (only out == image is allowed)");
    assert_null(out);
    aug_tensor_free(a), aug_tensor_free(b), aug_tensor_free(big);
    aug_tensor_free(im), aug_tensor_free(g), aug_tensor_free(gc), aug_tensor_free(k), aug_tensor_free(gcpu);
    aug_tensor_free(kbad);
}

static void test_blur_errors(void **state) {
    (void)state;
    NEED_CUDA();
    const int64_t shape[4] = {2, 1, 4, 4};
    aug_tensor *im = aug_tensor_zeros(4, shape, AUG_UINT8, TH_CUDA0), *out = NULL;
    const float bad[2] = {1.0f, NAN};
    aug_tensor *s = th_floats_on(bad, 2, TH_CUDA0), *scpu = th_floats_on(bad, 2, CPU);
    assert_int_equal(aug_gaussian_blur(im, s, 5, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_gaussian_blur: sigmas[1] = nan must be finite");
    assert_int_equal(aug_gaussian_blur(im, scpu, 5, &out), AUG_ERR_VALUE); /* host sigmas are checked too */
    assert_string_equal(aug_last_error(), "aug_gaussian_blur: sigmas[1] = nan must be finite");
    if (aug_device_count(AUG_DEVICE_CUDA) > 1) {
        aug_tensor *s1 = th_floats_on(bad, 2, (aug_device){AUG_DEVICE_CUDA, 1});
        assert_int_equal(aug_gaussian_blur(im, s1, 5, &out), AUG_ERR_VALUE);
        assert_string_equal(aug_last_error(), "aug_gaussian_blur: sigmas is on device cuda:1 but the input is on cuda:0");
        aug_tensor_free(s1);
    }
    assert_null(out);
    aug_tensor_free(im), aug_tensor_free(s), aug_tensor_free(scpu);
}

static void test_warp_errors(void **state) {
    (void)state;
    NEED_CUDA();
    const int64_t s[3] = {4, 4, 3}, d[3] = {3, 2, 2};
    aug_tensor *src = aug_tensor_zeros(3, s, AUG_UINT8, TH_CUDA0), *dst = aug_tensor_empty(3, d, AUG_UINT8, TH_CUDA0);
    aug_tensor *bgc = aug_tensor_zeros(1, &d[0], AUG_UINT8, CPU), *csrc = aug_tensor_zeros(3, s, AUG_UINT8, CPU);
    const float m[6] = {1, 0, 0, 0, 1, 0};
    assert_int_equal(aug_warp_affine(src, dst, m, bgc, 1), AUG_OK); /* a host background: read without a wait */
    if (aug_device_count(AUG_DEVICE_CUDA) > 1) {
        aug_tensor *bg1 = aug_tensor_zeros(1, &d[0], AUG_UINT8, (aug_device){AUG_DEVICE_CUDA, 1});
        assert_int_equal(aug_warp_affine(src, dst, m, bg1, 1), AUG_ERR_VALUE);
        assert_string_equal(aug_last_error(), "aug_warp_affine: background is on cuda:1 but the images are on cuda:0");
        aug_tensor_free(bg1);
    }
    assert_int_equal(aug_warp_affine(csrc, dst, m, NULL, 1), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_warp_affine: src is on cpu but dst is on cuda:0");
    /* dst overlapping the source on the device */
    int64_t shape[3] = {3, 2, 2}, str[3] = {4, 2, 1};
    aug_tensor *over = aug_tensor_from_storage(src->storage, 0, 3, shape, str, AUG_UINT8);
    assert_int_equal(aug_warp_affine(src, over, m, NULL, 1), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_warp_affine: dst overlaps src image 0");
    aug_tensor_free(over), aug_tensor_free(src), aug_tensor_free(dst), aug_tensor_free(bgc), aug_tensor_free(csrc);
}

static void test_normalize_errors(void **state) {
    (void)state;
    NEED_CUDA();
    const int64_t shape[3] = {4, 5, 3};
    aug_tensor *g = aug_tensor_empty(3, shape, AUG_UINT8, TH_CUDA0), *c = aug_tensor_empty(3, shape, AUG_UINT8, CPU);
    aug_tensor *out = NULL;
    aug_cmn_params p = aug_cmn_params_default();
    p.crop_h = 5;
    assert_int_equal(aug_crop_mirror_normalize(g, AUG_FLOAT32, &p, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_crop_mirror_normalize: the crop window of image 0 reaches outside it: "
                                          "rows [-1, 4) of 4 (set out_of_bounds_policy to pad or trim_to_shape)");
    const aug_tensor *mixed[2] = {g, c};
    p.crop_h = 2;
    assert_int_equal(aug_crop_mirror_normalize_batch(2, mixed, AUG_FLOAT32, &p, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_crop_mirror_normalize_batch: image 1 is on another device than image 0");
    float sd = -0.0f;
    p.std = &sd, p.nstd = 1;
    assert_int_equal(aug_crop_mirror_normalize(g, AUG_FLOAT32, &p, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_crop_mirror_normalize: std[0] must not be 0");
    assert_null(out);
    uint64_t seed = 1;
    aug_rng *r = aug_rng_new(CPU, &seed);
    assert_int_equal(aug_rng_gaussian_noise(r, g, 0.0, 1.0, NULL, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_rng_gaussian_noise: x is on cuda:0, the generator on cpu");
    assert_int_equal(aug_rng_gaussian_noise(r, c, 0.0, -1.0, NULL, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_rng_gaussian_noise: std = -1 must be finite and >= 0");
    assert_null(out);
    aug_rng_free(r);
    aug_tensor_free(g), aug_tensor_free(c);
}


/* A 40 x 30 RGB JPEG. */
static unsigned char *encode_jpeg(unsigned long *size) {
    unsigned char img[40 * 30 * 3], *buf = NULL;
    for (int i = 0; i < 40 * 30 * 3; i++) img[i] = (unsigned char)(i * 7);
    tjhandle tj = tjInitCompress();
    assert_int_equal(tjCompress2(tj, img, 40, 0, 30, TJPF_RGB, &buf, size, TJSAMP_420, 85, 0), 0);
    tjDestroy(tj);
    return buf;
}

static void test_decoder_errors(void **state) {
    (void)state;
    NEED_CUDA();
    aug_decoder *dg = aug_decoder_new(TH_CUDA0, 0, 0, 0);
    unsigned long size;
    unsigned char *j = encode_jpeg(&size);
    int64_t n = 40 * 30 * 3 + 100;
    aug_tensor *buf = aug_tensor_zeros(1, &n, AUG_UINT8, TH_CUDA0), *cbuf = aug_tensor_zeros(1, &n, AUG_UINT8, CPU);
    aug_tensor *t = NULL;
    /* a buffer on another device, a truncated file: errors, nothing returned */
    assert_int_equal(aug_decoder_decode(dg, j, size, cbuf, &t), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_decoder_decode: buffer is on cpu, the decoder on cuda:0");
    size_t before_n, after_n;
    unsigned char *before = th_bytes_of(buf, &before_n);
    assert_int_equal(aug_decoder_decode(dg, j, size / 2, buf, &t), AUG_ERR_JPEG);
    assert_null(t);
    /* libjpeg-turbo's words on every engine (nvJPEG itself decodes a cut file: the core refuses it first) */
    assert_non_null(strstr(aug_last_error(), "aug_decoder_decode: Premature end of JPEG file"));
    if (strcmp(aug_decoder_engine(dg), "nvjpeg") != 0) { /* the fallback copies only a whole image */
        unsigned char *after = th_bytes_of(buf, &after_n);
        assert_memory_equal(before, after, before_n);
        free(after);
    }
    free(before);
    /* still usable */
    assert_int_equal(aug_decoder_decode(dg, j, size, NULL, &t), AUG_OK);
    aug_tensor_free(t), aug_tensor_free(buf), aug_tensor_free(cbuf);
    aug_decoder_free(dg);
    tjFree(j);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lighting_errors),  cmocka_unit_test(test_blur_errors),
        cmocka_unit_test(test_warp_errors),      cmocka_unit_test(test_normalize_errors),
        cmocka_unit_test(test_decoder_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
