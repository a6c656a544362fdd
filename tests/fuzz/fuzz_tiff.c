/* tests/fuzz/fuzz_tiff.c: libFuzzer target for TIFF decoding (aug_image_describe,
 * aug_decoder_decode_ex in every mode and dtype, pages 0-2, with a roi) on
 * arbitrary bytes; the harness is fuzz_image.h. Inputs lacking a TIFF magic get
 * 'II' 2A 00 in front. */
#include "aug/aug.h"

#define FUZZ_FORMAT AUG_FORMAT_TIFF
#include "fuzz_image.h"

static size_t with_magic(const uint8_t *data, size_t size, uint8_t **buf) {
    *buf = malloc(size + 4);
    CHECK(*buf != NULL);
    if (aug_image_format_of(data, size) == AUG_FORMAT_TIFF) {
        memcpy(*buf, data, size);
        return size;
    }
    memcpy(*buf, "II*\0", 4);
    memcpy(*buf + 4, data, size);
    return size + 4;
}
