/* tests/fuzz/fuzz_image.h: the body of the libFuzzer targets of the formats
 * decoded through aug_decoder_decode_ex (fuzz_png.c, fuzz_webp.c, fuzz_tiff.c,
 * fuzz_avif.c define FUZZ_FORMAT before including it, and with_magic after).
 * Build and run: tests/fuzz/run.sh 60 fuzz_png fuzz_webp fuzz_tiff fuzz_avif.
 *
 * The input is the file itself with the format's magic forced on when it lacks
 * it (so every input takes that format's path; any such file is a seed); the
 * mode, dtype, page and roi come from a hash of its bytes. One decoder lives for
 * the whole run (its scratch memory is reused across inputs). Checked here,
 * beyond ASan/UBSan/leaks:
 * - aug_image_describe and the decoder agree on the page (same size, or both fail);
 * - success: (h, w, C) "HWC" of the dtype, C of the mode, h, w of the roi;
 * - failure: *out untouched, a message "aug_decoder_decode_ex: ...".
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

/* Writes the magic over a copy of data, or in front of it: n bytes at *buf (caller frees). */
static size_t with_magic(const uint8_t *data, size_t size, uint8_t **buf);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *buf = NULL;
    size_t n = with_magic(data, size, &buf);
    CHECK(aug_image_format_of(buf, n) == FUZZ_FORMAT);
    uint64_t h = fnv1a(buf, n);
    int page = FUZZ_FORMAT == AUG_FORMAT_TIFF ? (int)(h >> 60) % 3 : 0;
    aug_image_desc desc;
    aug_status info = aug_image_describe(buf, n, page, &desc);
    if (info == AUG_OK) {
        CHECK(desc.format == FUZZ_FORMAT && desc.height >= 1 && desc.width >= 1 && desc.channels >= 1 &&
              desc.channels <= 4 &&
              (desc.bit_depth == 8 || desc.bit_depth == 16 ||
               (FUZZ_FORMAT == AUG_FORMAT_AVIF && (desc.bit_depth == 10 || desc.bit_depth == 12))));
    } else {
        CHECK(strncmp(aug_last_error(), "aug_image_describe: ", 20) == 0);
    }
    aug_decode_options o = aug_decode_options_default();
    o.mode = (aug_decode_mode)(h % 5);
    o.dtype = (h >> 3) % 2 ? AUG_UINT16 : AUG_UINT8;
    o.page = page;
    int64_t roi[4] = {0, 0, 0, 0};
    if (info == AUG_OK && (h >> 4) % 2) {
        uint64_t q = h >> 5;
        roi[0] = (int64_t)(q % (uint64_t)desc.height), q /= 7;
        roi[1] = (int64_t)(q % (uint64_t)desc.width), q /= 7;
        roi[2] = 1 + (int64_t)(q % (uint64_t)(desc.height - roi[0])), q /= 7;
        roi[3] = 1 + (int64_t)(q % (uint64_t)(desc.width - roi[1]));
        o.roi = roi;
    }
    aug_tensor *out = NULL;
    aug_status st = aug_decoder_decode_ex(decoder, buf, n, &o, NULL, &out);
    if (st == AUG_OK) {
        CHECK(info == AUG_OK);
        static const int nch[] = {3, 1, 2, 4};
        int c = o.mode == AUG_DECODE_UNCHANGED ? desc.channels : nch[o.mode];
        CHECK(out->ndim == 3 && out->shape[2] == c && out->dtype == o.dtype);
        CHECK(out->shape[0] == (o.roi ? roi[2] : desc.height) && out->shape[1] == (o.roi ? roi[3] : desc.width));
        aug_tensor_free(out);
    } else {
        CHECK(out == NULL);
        CHECK(strncmp(aug_last_error(), "aug_decoder_decode_ex: ", 23) == 0);
        CHECK(st == AUG_ERR_JPEG || st == AUG_ERR_MEMORY || (st == AUG_ERR_VALUE && page != 0));
    }
    free(buf);
    return 0;
}
