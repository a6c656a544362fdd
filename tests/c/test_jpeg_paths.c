/* test_jpeg_paths.c: the CPU decoder's two JPEG paths give the same pixels.
 * Baseline files decode with TurboJPEG (tjDecompress2), but images over
 * AUG__JPEG_POLLED_PIXELS, multi-scan files and every scaled or region decode go
 * through libjpeg's own API (cpu/jpeg_libjpeg.c), whose progress monitor polls
 * the interrupt check. That is only allowed because both use the same settings
 * (ISLOW IDCT, fancy upsampling, no merged upsampling, the same CMYK rule), so
 * here TurboJPEG's own decode, whole and DCT-scaled, is the reference for the
 * libjpeg path: whole images, every scale M/8 TurboJPEG offers, regions of the
 * scaled image, over gray, 4:4:4, 4:2:2, 4:2:0, 4:4:0, 4:1:1 and CMYK files of
 * odd sizes, bit-exact; and a baseline image over the threshold through the
 * public aug_decoder_decode against tjDecompress2. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <turbojpeg.h>

#include "aug/aug.h"
#include "cpu/jpeg.h"

typedef struct {
    unsigned char *buf;
    unsigned long size;
} jpeg;

/* A w x h image of TurboJPEG pixel format pf, gradients plus LCG noise. */
static jpeg encode(int w, int h, int pf, int subsamp) {
    int nc = tjPixelSize[pf];
    unsigned char *img = malloc((size_t)w * h * nc);
    assert_non_null(img);
    uint32_t x = 777;
    for (int y = 0; y < h; y++)
        for (int i = 0; i < w; i++)
            for (int c = 0; c < nc; c++) {
                x = x * 1103515245u + 12345u;
                img[((size_t)y * w + i) * nc + c] =
                    (unsigned char)((i * 255 / w + y * 255 / h * (c + 1) / 2 + (int)((x >> 16) % 61) - 30) & 255);
            }
    tjhandle tj = tjInitCompress();
    jpeg j = {NULL, 0};
    assert_int_equal(tjCompress2(tj, img, w, 0, h, pf, &j.buf, &j.size, subsamp, 85, 0), 0);
    tjDestroy(tj);
    free(img);
    return j;
}

/* TurboJPEG's decode at scale m/8 to packed RGB (*ow x *oh), as cpu/jpeg.c calls it
 * (ACCURATEDCT, no FASTUPSAMPLE; CMYK through aug__cpu_cmyk_to_rgb). */
static uint8_t *tj_decode(const jpeg *f, int m, int cmyk, int *ow, int *oh) {
    tjhandle tj = tjInitDecompress();
    int w, h, ss, cs;
    assert_int_equal(tjDecompressHeader3(tj, f->buf, f->size, &w, &h, &ss, &cs), 0);
    tjscalingfactor sf = {m, 8};
    *ow = TJSCALED(w, sf), *oh = TJSCALED(h, sf);
    size_t n = (size_t)*ow * (size_t)*oh;
    uint8_t *rgb = malloc(n * 3), *raw = cmyk ? malloc(n * 4) : rgb;
    assert_true(rgb != NULL && raw != NULL);
    int flags = TJFLAG_ACCURATEDCT | TJFLAG_STOPONWARNING;
    assert_int_equal(tjDecompress2(tj, f->buf, f->size, raw, *ow, 0, *oh, cmyk ? TJPF_CMYK : TJPF_RGB, flags), 0);
    if (cmyk) {
        aug__cpu_cmyk_to_rgb(raw, rgb, n);
        free(raw);
    }
    tjDestroy(tj);
    return rgb;
}

static int has_scale(int m) {
    int n = 0;
    tjscalingfactor *sf = tjGetScalingFactors(&n);
    for (int i = 0; i < n; i++)
        if (sf[i].num * 8 == m * sf[i].denom) return 1;
    return 0;
}

static void check_file(int w, int h, int pf, int subsamp) {
    jpeg f = encode(w, h, pf, subsamp);
    int cmyk = pf == TJPF_CMYK;
    aug__jpeg_header hd;
    assert_int_equal(aug__cpu_jpeg_header("t", NULL, f.buf, f.size, &hd), AUG_OK);
    assert_int_equal(hd.libjpeg, 0);
    /* whole image: the libjpeg path against TurboJPEG, and the decoder's own dispatch */
    int ow, oh;
    uint8_t *want = tj_decode(&f, 8, cmyk, &ow, &oh);
    size_t n = (size_t)w * (size_t)h * 3;
    uint8_t *got = malloc(n);
    assert_non_null(got);
    assert_int_equal(aug__libjpeg_decode("t", f.buf, f.size, &hd, got), AUG_OK);
    assert_memory_equal(got, want, n);
    aug__cpu_jpeg *j = aug__cpu_jpeg_new("t", 0);
    assert_non_null(j);
    memset(got, 0, n);
    assert_int_equal(aug__cpu_jpeg_decode("t", j, f.buf, f.size, &hd, got), AUG_OK);
    assert_memory_equal(got, want, n);
    aug__cpu_jpeg_free(j);
    free(got);
    free(want);
    /* every scale TurboJPEG has: the whole scaled image, then regions of it */
    for (int m = 1; m <= 16; m++) {
        if (!has_scale(m)) continue;
        want = tj_decode(&f, m, cmyk, &ow, &oh);
        int64_t rois[4][4] = {{0, 0, oh, ow},
                              {oh / 3, ow / 5, oh - oh / 3, ow / 2 + 1},
                              {oh - 1, 0, 1, ow},
                              {oh / 2, ow - 1, (oh + 1) / 2 - (oh > 1), 1}};
        for (int k = 0; k < 4; k++) {
            aug__jpeg_region r = {m, rois[k][0], rois[k][1], rois[k][2], rois[k][3], 0, 0, 0};
            if (r.h < 1 || r.w < 1) continue;
            got = malloc((size_t)(r.h * r.w * 3));
            assert_non_null(got);
            assert_int_equal(aug__libjpeg_decode_region("t", f.buf, f.size, &hd, &r, got), AUG_OK);
            for (int64_t y = 0; y < r.h; y++)
                assert_memory_equal(got + y * r.w * 3, want + ((r.y + y) * ow + r.x) * 3, (size_t)r.w * 3);
            free(got);
        }
        free(want);
    }
    tjFree(f.buf);
}

static void test_small_files_every_sampling(void **state) {
    (void)state;
    static const int sub[] = {TJSAMP_444, TJSAMP_422, TJSAMP_420, TJSAMP_440, TJSAMP_411};
    for (size_t i = 0; i < sizeof sub / sizeof sub[0]; i++) {
        check_file(75, 53, TJPF_RGB, sub[i]);
        check_file(131, 97, TJPF_RGB, sub[i]);
    }
    check_file(75, 53, TJPF_GRAY, TJSAMP_GRAY);
    check_file(131, 97, TJPF_GRAY, TJSAMP_GRAY);
    check_file(75, 53, TJPF_CMYK, TJSAMP_420);
    check_file(64, 64, TJPF_CMYK, TJSAMP_444);
}

/* Over the threshold (2^22 pixels) aug_decoder_decode takes the libjpeg path:
 * still TurboJPEG's pixels. 2100 x 2000 = 4.2e6 > 4194304; 4:2:0 and gray. */
static void test_large_baseline_through_the_decoder(void **state) {
    (void)state;
    static const int pf[] = {TJPF_RGB, TJPF_GRAY}, sub[] = {TJSAMP_420, TJSAMP_GRAY};
    aug_decoder *d = aug_decoder_new(aug_cpu_device(), 0, 0, 0);
    assert_non_null(d);
    for (int i = 0; i < 2; i++) {
        jpeg f = encode(2100, 2000, pf[i], sub[i]);
        int ow, oh;
        uint8_t *want = tj_decode(&f, 8, 0, &ow, &oh);
        aug_tensor *out = NULL;
        assert_int_equal(aug_decoder_decode(d, f.buf, f.size, NULL, &out), AUG_OK);
        assert_true(out->shape[0] == 2000 && out->shape[1] == 2100 && out->shape[2] == 3);
        assert_memory_equal(aug_tensor_ptr(out), want, (size_t)2100 * 2000 * 3);
        aug_tensor_free(out);
        free(want);
        tjFree(f.buf);
    }
    aug_decoder_free(d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_files_every_sampling),
        cmocka_unit_test(test_large_baseline_through_the_decoder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
