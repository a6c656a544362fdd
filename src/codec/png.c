/* codec/png.c: PNG decoding with libspng (header; row-by-row decodes, whole
 * image or a region, that stop on the caller's interrupt check; codec/png.h). */
#include "codec/png.h"

#include "codec/convert.h"
#include "codec/poll.h"

#include <spng.h>
#include <string.h>

#include "core/error.h"

/* Ancillary chunks libspng may keep in memory (text, ICC profiles): a bound
 * so a small hostile file cannot make it allocate gigabytes. */
#define PNG_CHUNK_CACHE ((size_t)64 << 20)

static aug_status spng_fail(const char *func, int err) {
    return aug__error(AUG_ERR_JPEG, func, "PNG: %s", spng_strerror(err));
}

/* A context reading data, or NULL with an error. */
static spng_ctx *open_ctx(const char *func, const void *data, size_t size, aug_status *st) {
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    spng_ctx *ctx = spng_ctx_new(SPNG_CTX_IGNORE_ADLER32); /* the zlib checksum too, see below */
#else
    spng_ctx *ctx = spng_ctx_new(0);
#endif
    if (ctx == NULL) {
        *st = aug__error(AUG_ERR_MEMORY, func, "out of memory (libspng context)");
        return NULL;
    }
    int err = spng_set_png_buffer(ctx, data, size);
    if (err == 0) err = spng_set_chunk_limits(ctx, PNG_CHUNK_CACHE, PNG_CHUNK_CACHE);
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    /* Fuzz builds only (tests/fuzz/run.sh defines the libFuzzer convention's macro):
     * CRCs (and the image data's Adler-32) are not checked, so a mutated chunk
     * reaches the parsers behind them instead of failing its checksum (fuzz_png
     * stayed at ~180 edges with them). */
    if (err == 0) err = spng_set_crc_action(ctx, SPNG_CRC_USE, SPNG_CRC_USE);
#endif
    if (err != 0) {
        *st = spng_fail(func, err);
        spng_ctx_free(ctx);
        return NULL;
    }
    return ctx;
}

static aug_status read_desc(const char *func, spng_ctx *ctx, aug_png_desc *desc) {
    struct spng_ihdr ihdr;
    int err = spng_get_ihdr(ctx, &ihdr);
    if (err != 0) return spng_fail(func, err);
    struct spng_trns trns;
    err = spng_get_trns(ctx, &trns);
    if (err != 0 && err != SPNG_ECHUNKAVAIL) return spng_fail(func, err);
    aug_png_desc d;
    memset(&d, 0, sizeof d);
    d.height = (int64_t)ihdr.height;
    d.width = (int64_t)ihdr.width;
    d.bit_depth = ihdr.bit_depth;
    d.colour_type = ihdr.color_type;
    d.interlaced = ihdr.interlace_method != 0;
    d.transparency = err == 0;
    switch (ihdr.color_type) {
    case SPNG_COLOR_TYPE_GRAYSCALE: d.colour_space = "Grayscale", d.channels = d.transparency ? 2 : 1; break;
    case SPNG_COLOR_TYPE_TRUECOLOR: d.colour_space = "RGB", d.channels = d.transparency ? 4 : 3; break;
    case SPNG_COLOR_TYPE_INDEXED: d.colour_space = "Palette", d.channels = d.transparency ? 4 : 3; break;
    case SPNG_COLOR_TYPE_GRAYSCALE_ALPHA: d.colour_space = "GrayscaleAlpha", d.channels = 2; break;
    case SPNG_COLOR_TYPE_TRUECOLOR_ALPHA: d.colour_space = "RGBA", d.channels = 4; break;
    default: return aug__error(AUG_ERR_JPEG, func, "PNG: invalid colour type %d", (int)ihdr.color_type);
    }
    *desc = d;
    return AUG_OK;
}

aug_status aug__png_describe(const char *func, const void *data, size_t size, aug_png_desc *desc) {
    aug_status st = AUG_OK;
    spng_ctx *ctx = open_ctx(func, data, size, &st);
    if (ctx == NULL) return st;
    st = read_desc(func, ctx, desc);
    spng_ctx_free(ctx);
    return st;
}

size_t aug__png_pixel_bytes(const aug_png_desc *desc) { return desc->bit_depth == 16 ? 8 : 4; }

/* After spng_decode_image(..., SPNG_DECODE_PROGRESSIVE): every row (every pass's
 * rows of an Adam7 file, placed at their final pixels) into dst, the whole image
 * of row_len bytes per row; 0 or a libspng error (negative ones too: SPNG_IO_EOF
 * is -1), *stopped set when the interrupt check asked to stop. */
static int decode_rows(spng_ctx *ctx, uint8_t *dst, size_t row_len, aug__row_poll *poll, int *stopped) {
    int err = 0;
    *stopped = 0;
    while (err == 0) {
        if ((*stopped = aug__poll_stop(poll)) != 0) return 0;
        struct spng_row_info ri;
        err = spng_get_row_info(ctx, &ri);
        if (err == 0) err = spng_decode_row(ctx, dst + (size_t)ri.row_num * row_len, row_len);
    }
    return err == SPNG_EOI ? 0 : err; /* SPNG_EOI: the last row was decoded */
}

aug_status aug__png_decode_rgba(const char *func, const void *data, size_t size, const aug_png_desc *desc, void *dst) {
    aug_status st = AUG_OK;
    aug__row_poll poll;
    aug__poll_begin(&poll);
    spng_ctx *ctx = open_ctx(func, data, size, &st);
    if (ctx == NULL) return st;
    int fmt = desc->bit_depth == 16 ? SPNG_FMT_RGBA16 : SPNG_FMT_RGBA8;
    size_t row_len = (size_t)desc->width * aug__png_pixel_bytes(desc), len = 0;
    int err = spng_decoded_image_size(ctx, fmt, &len);
    if (err == 0 && len != row_len * (size_t)desc->height)
        st = aug__error(AUG_ERR_JPEG, func, "PNG: libspng's image size %zu is not %zu bytes", len,
                        row_len * (size_t)desc->height);
    else if (err == 0)
        err = spng_decode_image(ctx, NULL, 0, fmt, SPNG_DECODE_TRNS | SPNG_DECODE_PROGRESSIVE);
    int stopped = 0;
    if (err == 0 && st == AUG_OK && (err = decode_rows(ctx, dst, row_len, &poll, &stopped)) == 0 && stopped)
        st = aug__interrupted(func);
    /* the chunks after the image data up to IEND: a file cut after its pixels
     * (the last IDAT's CRC, IEND) is an error too, as a truncated JPEG is */
    if (err == 0 && st == AUG_OK) err = spng_decode_chunks(ctx);
    if (err != 0) st = spng_fail(func, err);
    spng_ctx_free(ctx);
    return st;
}

aug_status aug__png_decode_region(const char *func, const void *data, size_t size, const aug_png_desc *desc,
                                  int64_t y, int64_t x, int64_t h, int64_t w, void *row, void *dst,
                                  int out_channels, int dst16) {
    aug_status st = AUG_OK;
    aug__row_poll poll;
    aug__poll_begin(&poll);
    spng_ctx *ctx = open_ctx(func, data, size, &st);
    if (ctx == NULL) return st;
    int src16 = desc->bit_depth == 16;
    int fmt = src16 ? SPNG_FMT_RGBA16 : SPNG_FMT_RGBA8;
    size_t row_len = (size_t)desc->width * aug__png_pixel_bytes(desc), len = 0;
    int err = spng_decoded_image_size(ctx, fmt, &len);
    if (err == 0 && len != row_len * (size_t)desc->height)
        st = aug__error(AUG_ERR_JPEG, func, "PNG: libspng's image size %zu is not %zu bytes", len,
                        row_len * (size_t)desc->height);
    else if (err == 0)
        err = spng_decode_image(ctx, NULL, 0, fmt, SPNG_DECODE_TRNS | SPNG_DECODE_PROGRESSIVE);
    /* every row is decoded (the ones below the region too), so that damage anywhere
     * in the image data is found as a whole decode finds it */
    for (int64_t r = 0; err == 0 && st == AUG_OK && r < desc->height; r++) {
        if (aug__poll_stop(&poll)) {
            st = aug__interrupted(func);
            break;
        }
        err = spng_decode_row(ctx, row, row_len);
        if (err == SPNG_EOI && r == desc->height - 1) err = 0;
        if (err == 0 && r >= y && r < y + h)
            aug__convert_image(row, 4, src16, desc->width, 0, x, 1, w,
                               (uint8_t *)dst + ((size_t)(r - y) * (size_t)w * (size_t)out_channels << dst16),
                               out_channels, dst16);
    }
    if (err == 0 && st == AUG_OK) err = spng_decode_chunks(ctx);
    if (err != 0) st = spng_fail(func, err);
    spng_ctx_free(ctx);
    return st;
}
