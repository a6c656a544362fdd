/* tests/fuzz/fuzz_jpeg.c: libFuzzer target for the JPEG front (aug_jpeg_info,
 * aug_decoder_decode) on arbitrary bytes. Build and run: tests/fuzz/run.sh.
 *
 * The input is the file itself (so any JPEG is a seed); how it is decoded comes
 * from a hash of its bytes: no buffer, a buffer of exactly / more than / less
 * than H*W*3 bytes, a buffer of random size, or a buffer of the wrong dtype or
 * not contiguous. One decoder lives for the whole run, so every input is decoded
 * by a decoder that has seen earlier failures (it recreates its TurboJPEG handle
 * after an error); after each failure the same decoder must still decode a known
 * good file. Checked here, beyond ASan/UBSan/leaks:
 * - aug_jpeg_info and the decoder agree on the header (same size, or both fail);
 * - success: (H, W, 3) uint8 "HWC", contiguous; with a buffer, a view of its first
 *   H*W*3 bytes (same storage and address); bytes past H*W*3 are never written;
 * - failure: *out untouched, a status, and a message "aug_decoder_decode: ...".
 * Headers over 2^22 pixels are only checked for their size (decoding a hostile
 * header at the decoder's default limit, 2^28 pixels, would take seconds and
 * gigabytes per input, which says nothing about memory safety). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"

/* Largest image decoded here: 2^22 pixels (12 MiB of RGB, well under a second
 * under ASan); larger headers only go through aug_jpeg_info and the buffer checks. */
#define MAX_DECODE_PIXELS ((int64_t)1 << 22)
/* Random buffer sizes stay under 1 MiB. */
#define MAX_RANDOM_BUFFER ((int64_t)1 << 20)
#define SENTINEL 0xA5

/* A valid JPEG (made by tests/fuzz/make_seeds.py with Pillow). */
static const unsigned char good_jpeg[] = {
    255, 216, 255, 224, 0, 16, 74, 70, 73, 70, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 255, 219, 0, 67, 0, 3, 2, 2, 3, 2, 2,
    3, 3, 3, 3, 4, 3, 3, 4, 5, 8, 5, 5, 4, 4, 5, 10, 7, 7, 6, 8, 12, 10, 12, 12, 11, 10, 11, 11, 13, 14, 18, 16,
    13, 14, 17, 14, 11, 11, 16, 22, 16, 17, 19, 20, 21, 21, 21, 12, 15, 23, 24, 22, 20, 24, 18, 20, 21, 20, 255,
    219, 0, 67, 1, 3, 4, 4, 5, 4, 5, 9, 5, 5, 9, 20, 13, 11, 13, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20,
    20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20,
    20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 255, 192, 0, 17, 8, 0, 2, 0, 3, 3, 1, 34, 0, 2, 17, 1, 3, 17, 1,
    255, 196, 0, 31, 0, 0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 255,
    196, 0, 181, 16, 0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 125, 1, 2, 3, 0, 4, 17, 5, 18, 33, 49, 65, 6,
    19, 81, 97, 7, 34, 113, 20, 50, 129, 145, 161, 8, 35, 66, 177, 193, 21, 82, 209, 240, 36, 51, 98, 114, 130, 9,
    10, 22, 23, 24, 25, 26, 37, 38, 39, 40, 41, 42, 52, 53, 54, 55, 56, 57, 58, 67, 68, 69, 70, 71, 72, 73, 74,
    83, 84, 85, 86, 87, 88, 89, 90, 99, 100, 101, 102, 103, 104, 105, 106, 115, 116, 117, 118, 119, 120, 121, 122,
    131, 132, 133, 134, 135, 136, 137, 138, 146, 147, 148, 149, 150, 151, 152, 153, 154, 162, 163, 164, 165, 166,
    167, 168, 169, 170, 178, 179, 180, 181, 182, 183, 184, 185, 186, 194, 195, 196, 197, 198, 199, 200, 201, 202,
    210, 211, 212, 213, 214, 215, 216, 217, 218, 225, 226, 227, 228, 229, 230, 231, 232, 233, 234, 241, 242, 243,
    244, 245, 246, 247, 248, 249, 250, 255, 196, 0, 31, 1, 0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1,
    2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 255, 196, 0, 181, 17, 0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 119, 0, 1,
    2, 3, 17, 4, 5, 33, 49, 6, 18, 65, 81, 7, 97, 113, 19, 34, 50, 129, 8, 20, 66, 145, 161, 177, 193, 9, 35, 51,
    82, 240, 21, 98, 114, 209, 10, 22, 36, 52, 225, 37, 241, 23, 24, 25, 26, 38, 39, 40, 41, 42, 53, 54, 55, 56,
    57, 58, 67, 68, 69, 70, 71, 72, 73, 74, 83, 84, 85, 86, 87, 88, 89, 90, 99, 100, 101, 102, 103, 104, 105, 106,
    115, 116, 117, 118, 119, 120, 121, 122, 130, 131, 132, 133, 134, 135, 136, 137, 138, 146, 147, 148, 149, 150,
    151, 152, 153, 154, 162, 163, 164, 165, 166, 167, 168, 169, 170, 178, 179, 180, 181, 182, 183, 184, 185, 186,
    194, 195, 196, 197, 198, 199, 200, 201, 202, 210, 211, 212, 213, 214, 215, 216, 217, 218, 226, 227, 228, 229,
    230, 231, 232, 233, 234, 242, 243, 244, 245, 246, 247, 248, 249, 250, 255, 218, 0, 12, 3, 1, 0, 2, 17, 3, 17,
    0, 63, 0, 241, 74, 40, 162, 172, 254, 213, 63, 255, 217
};

static aug_decoder *decoder;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    /* host_padding 1000: the CMYK scratch buffer grows with padding (covers that path). */
    decoder = aug_decoder_new(aug_cpu_device(), 0, 1000, 0);
    CHECK(decoder != NULL);
    return 0;
}

static uint64_t fnv1a(const uint8_t *p, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static int starts_with(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* The shared decoder must still work after a failure. */
static void decode_good(void) {
    aug_tensor *out = NULL;
    CHECK(aug_decoder_decode(decoder, good_jpeg, sizeof good_jpeg, NULL, &out) == AUG_OK);
    CHECK(out->ndim == 3 && out->shape[0] == 2 && out->shape[1] == 3 && out->shape[2] == 3);
    const uint8_t *p = aug_tensor_ptr(out);
    /* Lossy, but a flat colour comes back within a few levels. */
    for (int i = 0; i < 6; i++)
        CHECK(abs(p[3 * i] - 200) <= 4 && abs(p[3 * i + 1] - 30) <= 4 && abs(p[3 * i + 2] - 90) <= 4);
    aug_tensor_free(out);
}

static aug_tensor *make_buffer(int64_t n, aug_dtype dtype) {
    aug_tensor *b = aug_tensor_empty(1, &n, dtype, aug_cpu_device());
    CHECK(b != NULL);
    memset(aug_tensor_ptr(b), SENTINEL, (size_t)(n * aug_tensor_itemsize(b)));
    return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint64_t h = fnv1a(data, size);
    int64_t H = -1, W = -1;
    aug_status info = aug_jpeg_info(data, size, &H, &W);
    if (info == AUG_OK) {
        CHECK(H >= 1 && H <= 65535 && W >= 1 && W <= 65535);
    } else {
        CHECK(starts_with(aug_last_error(), "aug_jpeg_info: "));
        CHECK(H == -1 && W == -1);
    }
    int64_t need = info == AUG_OK ? H * W * 3 : 0;
    int too_big = info == AUG_OK && H * W > MAX_DECODE_PIXELS;

    /* The buffer: none, or chosen from the hash. */
    int mode = (int)(h % 8);
    uint64_t r = h >> 3;
    aug_tensor *buffer = NULL, *base = NULL;
    int64_t buf_bytes = 0;
    int expect_buffer_error = 0;
    switch (mode) {
    case 0: case 1: case 2: break; /* no buffer: the common case */
    case 3: buf_bytes = need; break;
    case 4: buf_bytes = need + (int64_t)(r % 97); break;
    case 5: buf_bytes = need > 0 ? need - 1 - (int64_t)(r % (uint64_t)need) : 0; break;
    case 6: buf_bytes = (int64_t)(r % (uint64_t)MAX_RANDOM_BUFFER); break;
    case 7: break; /* wrong dtype / not contiguous, below */
    }
    if (mode >= 3 && mode <= 6) {
        if (buf_bytes > MAX_DECODE_PIXELS * 3 + 97) buf_bytes = 0; /* keep memory bounded */
        buffer = make_buffer(buf_bytes, AUG_UINT8);
        expect_buffer_error = buf_bytes < need;
    } else if (mode == 7) {
        int64_t n = need < MAX_RANDOM_BUFFER ? need + 1 : 16;
        if (r & 1) {
            buffer = make_buffer(n, (r & 2) ? AUG_INT8 : AUG_FLOAT32);
        } else {
            /* every other byte of a 2n buffer: uint8 but not contiguous (when n > 1) */
            base = make_buffer(2 * n, AUG_UINT8);
            aug_index ix = {.kind = AUG_INDEX_SLICE, .step = 2};
            buffer = aug_tensor_index(base, 1, &ix);
            CHECK(buffer != NULL);
        }
        expect_buffer_error = info == AUG_OK && (buffer->dtype != AUG_UINT8 || !aug_tensor_is_contiguous(buffer));
    }

    if (too_big && !(buffer != NULL && expect_buffer_error)) {
        /* Only the size check of an oversized header (a too-small buffer fails before decoding). */
        aug_tensor_free(buffer);
        aug_tensor_free(base);
        return 0;
    }

    aug_tensor sentinel_out;
    aug_tensor *out = &sentinel_out;
    aug_status st = aug_decoder_decode(decoder, data, size, buffer, &out);
    if (st == AUG_OK) {
        CHECK(info == AUG_OK); /* the decoder's header reader agrees with aug_jpeg_info */
        CHECK(out != &sentinel_out && out != NULL);
        CHECK(out->ndim == 3 && out->shape[0] == H && out->shape[1] == W && out->shape[2] == 3);
        CHECK(out->dtype == AUG_UINT8 && strcmp(out->layout, "HWC") == 0 && aug_tensor_is_contiguous(out));
        CHECK(!expect_buffer_error);
        /* Touch every pixel (ASan checks the memory is there). */
        const uint8_t *p = aug_tensor_ptr(out);
        unsigned acc = 0;
        for (int64_t i = 0; i < need; i++) acc += p[i];
        (void)acc;
        if (buffer != NULL) {
            CHECK(out->storage == buffer->storage && aug_tensor_ptr(out) == aug_tensor_ptr(buffer));
        }
        aug_tensor_free(out);
    } else {
        CHECK(out == &sentinel_out); /* untouched */
        CHECK(starts_with(aug_last_error(), "aug_decoder_decode: "));
        if (info != AUG_OK) CHECK(st == AUG_ERR_JPEG);
        /* The decoder's pixel limit (aug_decoder_set_limit, default 2^28) is checked before the buffer. */
        if (expect_buffer_error && H * W <= aug_decoder_limit(decoder)) CHECK(st == AUG_ERR_VALUE || st == AUG_ERR_TYPE);
        if (info == AUG_OK && H * W > aug_decoder_limit(decoder)) CHECK(st == AUG_ERR_JPEG);
        decode_good();
    }
    if (buffer != NULL && buffer->dtype == AUG_UINT8 && aug_tensor_is_contiguous(buffer)) {
        /* Bytes past the image are never written, whatever happened. */
        const uint8_t *p = aug_tensor_ptr(buffer);
        for (int64_t i = need; i < buf_bytes; i++) CHECK(p[i] == SENTINEL);
    }
    aug_tensor_free(buffer);
    aug_tensor_free(base);
    return 0;
}
