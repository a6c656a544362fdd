/* tests/fuzz/fuzz_png.c: libFuzzer target for PNG decoding (aug_png_describe,
 * aug_decoder_decode_as in every mode, with a roi) on arbitrary bytes. Build and
 * run: tests/fuzz/run.sh 60 fuzz_png.
 *
 * The input is the file itself with the PNG signature forced on (so every input
 * takes the PNG path; any PNG is a seed); the mode and roi come from a hash of
 * its bytes. One decoder lives for the whole run (its scratch memory is reused
 * across inputs). Checked here, beyond ASan/UBSan/leaks:
 * - aug_png_describe and the decoder agree on the header (same size, or both fail);
 * - success: (h, w, C) uint8 "HWC" with C of the mode, h, w of the roi;
 * - failure: *out untouched, a message "aug_decoder_decode_as: ...".
 * Headers over 2^22 pixels are refused by the decoder's limit (set here). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"

#define MAX_DECODE_PIXELS ((int64_t)1 << 22)

static aug_decoder *decoder;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    decoder = aug_decoder_new(aug_cpu_device(), 0, 1000, 0);
    CHECK(decoder != NULL);
    CHECK(aug_decoder_set_limit(decoder, MAX_DECODE_PIXELS) == AUG_OK);
    return 0;
}

static uint64_t fnv1a(const uint8_t *p, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a};
    uint8_t *buf = malloc(size + 8);
    CHECK(buf != NULL);
    size_t n = size;
    if (size >= 8 && memcmp(data, sig, 8) == 0) {
        memcpy(buf, data, size);
    } else {
        memcpy(buf, sig, 8);
        memcpy(buf + 8, data, size);
        n = size + 8;
    }
    CHECK(aug_image_format_of(buf, n) == AUG_FORMAT_PNG);
    uint64_t h = fnv1a(buf, n);
    aug_png_desc desc;
    aug_status info = aug_png_describe(buf, n, &desc);
    if (info == AUG_OK) {
        CHECK(desc.height >= 1 && desc.width >= 1 && desc.channels >= 1 && desc.channels <= 4);
    } else {
        CHECK(strncmp(aug_last_error(), "aug_png_describe: ", 18) == 0);
    }
    aug_decode_mode mode = (aug_decode_mode)(h % 5);
    int64_t roi[4] = {0, 0, 0, 0}, *r = NULL;
    if (info == AUG_OK && (h >> 3) % 2) {
        uint64_t q = h >> 4;
        roi[0] = (int64_t)(q % (uint64_t)desc.height), q /= 7;
        roi[1] = (int64_t)(q % (uint64_t)desc.width), q /= 7;
        roi[2] = 1 + (int64_t)(q % (uint64_t)(desc.height - roi[0])), q /= 7;
        roi[3] = 1 + (int64_t)(q % (uint64_t)(desc.width - roi[1]));
        r = roi;
    }
    aug_tensor *out = NULL;
    aug_status st = aug_decoder_decode_as(decoder, buf, n, r, 1, 1, mode, NULL, &out);
    if (st == AUG_OK) {
        CHECK(info == AUG_OK);
        static const int nch[] = {3, 1, 2, 4};
        int c = mode == AUG_DECODE_UNCHANGED ? desc.channels : nch[mode];
        CHECK(out->ndim == 3 && out->shape[2] == c && out->dtype == AUG_UINT8);
        CHECK(out->shape[0] == (r ? roi[2] : desc.height) && out->shape[1] == (r ? roi[3] : desc.width));
        aug_tensor_free(out);
    } else {
        CHECK(out == NULL);
        CHECK(strncmp(aug_last_error(), "aug_decoder_decode_as: ", 23) == 0);
        CHECK(st == AUG_ERR_JPEG || st == AUG_ERR_MEMORY);
    }
    free(buf);
    return 0;
}
