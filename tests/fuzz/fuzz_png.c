/* tests/fuzz/fuzz_png.c: libFuzzer target for PNG decoding (aug_image_describe,
 * aug_decoder_decode_ex in every mode and dtype, with a roi) on arbitrary bytes;
 * the harness is fuzz_image.h. Inputs lacking the PNG signature get it in front
 * (any PNG is a seed). Build and run: tests/fuzz/run.sh 60 fuzz_png. */
#include "aug/aug.h"

#define FUZZ_FORMAT AUG_FORMAT_PNG
#include "fuzz_image.h"

static size_t with_magic(const uint8_t *data, size_t size, uint8_t **buf) {
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a};
    *buf = malloc(size + 8);
    CHECK(*buf != NULL);
    if (size >= 8 && memcmp(data, sig, 8) == 0) {
        memcpy(*buf, data, size);
        return size;
    }
    memcpy(*buf, sig, 8);
    memcpy(*buf + 8, data, size);
    return size + 8;
}
