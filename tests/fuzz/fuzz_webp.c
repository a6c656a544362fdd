/* tests/fuzz/fuzz_webp.c: libFuzzer target for WebP decoding (aug_image_describe,
 * aug_decoder_decode_ex in every mode and dtype, with a roi) on arbitrary bytes;
 * the harness is fuzz_image.h. Inputs lacking 'RIFF' size 'WEBP' get it in front. */
#include "aug/aug.h"

#define FUZZ_FORMAT AUG_FORMAT_WEBP
#include "fuzz_image.h"

static size_t with_magic(const uint8_t *data, size_t size, uint8_t **buf) {
    *buf = malloc(size + 12);
    CHECK(*buf != NULL);
    if (size >= 12 && memcmp(data, "RIFF", 4) == 0 && memcmp(data + 8, "WEBP", 4) == 0) {
        memcpy(*buf, data, size);
        return size;
    }
    uint32_t riff = (uint32_t)(size + 4); /* the RIFF size: 'WEBP' and the chunks */
    memcpy(*buf, "RIFF", 4);
    for (int i = 0; i < 4; i++) (*buf)[4 + i] = (uint8_t)(riff >> (8 * i));
    memcpy(*buf + 8, "WEBP", 4);
    memcpy(*buf + 12, data, size);
    return size + 12;
}
