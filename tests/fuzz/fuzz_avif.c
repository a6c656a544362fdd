/* tests/fuzz/fuzz_avif.c: libFuzzer target for AVIF decoding (aug_image_describe,
 * aug_decoder_decode_ex in every mode and dtype, with a roi) on arbitrary bytes;
 * the harness is fuzz_image.h. An input that is not an AVIF gets the brand
 * 'avif' written over its 'ftyp' box's major brand when it starts with one (of
 * at least 16 bytes), else a 20-byte 'ftyp' box ('avif', 'mif1') in front. */
#include "aug/aug.h"

#define FUZZ_FORMAT AUG_FORMAT_AVIF
#include "fuzz_image.h"

static size_t with_magic(const uint8_t *data, size_t size, uint8_t **buf) {
    static const uint8_t ftyp[20] = {0, 0, 0, 20, 'f', 't', 'y', 'p', 'a', 'v', 'i', 'f', 0, 0, 0, 0,
                                     'm', 'i', 'f', '1'};
    *buf = malloc(size + sizeof ftyp);
    CHECK(*buf != NULL);
    if (size > 0) memcpy(*buf, data, size);
    if (aug_image_format_of(data, size) == AUG_FORMAT_AVIF) return size;
    if (size >= 16 && memcmp(data + 4, "ftyp", 4) == 0 &&
        ((uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 | (uint32_t)data[2] << 8 | data[3]) >= 16) {
        memcpy(*buf + 8, "avif", 4);
        return size;
    }
    memcpy(*buf, ftyp, sizeof ftyp);
    if (size > 0) memcpy(*buf + sizeof ftyp, data, size);
    return size + sizeof ftyp;
}
