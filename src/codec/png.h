/* codec/png.h: PNG decoding with libspng and the host pixel conversions of the
 * decoder's output modes (private; the front is core/jpeg.c, the contract
 * include/aug/image.h aug_decoder_decode_as). src/codec/ is the layer below the
 * core: host file formats that every backend's decoder uses (the CUDA decoder
 * decodes PNGs here and uploads them), so the core may include it, and it
 * includes nothing of the core but its error and visibility helpers. */
#ifndef AUG_CODEC_PNG_H
#define AUG_CODEC_PNG_H

#include <stddef.h>
#include <stdint.h>

#include "aug/image.h"
#include "core/error.h"

/* The header (IHDR and a tRNS before the image data). AUG_ERR_JPEG
 * "func: <libspng's message>" for data that is not a readable PNG. */
AUG__HIDDEN aug_status aug__png_describe(const char *func, const void *data, size_t size, aug_png_desc *desc);

/* Bytes per pixel of aug__png_decode_rgba's output for desc: 4 (8-bit RGBA)
 * or 8 (16-bit RGBA, host-endian) when bit_depth is 16. */
AUG__HIDDEN size_t aug__png_pixel_bytes(const aug_png_desc *desc);

/* Decodes the whole image to RGBA at dst (height * width * pixel bytes,
 * host memory): palette, tRNS and low bit depths expanded, no gamma; row by row
 * (an Adam7 file pass by pass), polling the calling thread's interrupt check
 * (aug_set_interrupt_check) every 10 ms: AUG_ERR_INTERRUPTED "func: interrupted;
 * nothing is returned" when it asked to stop (dst then holds part of the image).
 * Corrupt or truncated data: AUG_ERR_JPEG "func: <libspng's message>". */
AUG__HIDDEN aug_status aug__png_decode_rgba(const char *func, const void *data, size_t size, const aug_png_desc *desc,
                                            void *dst);

/* Decodes a non-interlaced PNG row by row (libspng's progressive reads) and
 * converts the region (y, x, h, w) of it straight into dst (h * w *
 * out_channels packed 8-bit pixels, host memory), as aug__png_decode_rgba and
 * aug__convert_pixels would, with one row of RGBA (row: width * pixel bytes)
 * as the only scratch. Every row is decoded; the errors (and the interrupt
 * polling) are aug__png_decode_rgba's. Adam7 files need the whole image: use
 * that one. */
AUG__HIDDEN aug_status aug__png_decode_region(const char *func, const void *data, size_t size,
                                              const aug_png_desc *desc, int64_t y, int64_t x, int64_t h, int64_t w,
                                              void *row, uint8_t *dst, int out_channels);

/* Converts the region (y, x, h, w) of a packed host image src (src_channels 3
 * or 4 per pixel, 8-bit, or 16-bit host-endian when src16, src_width pixels
 * per row) to out_channels (1 gray, 2 gray+alpha, 3 RGB, 4 RGBA) packed 8-bit
 * pixels at dst (h * w * out_channels bytes), by the rules of
 * aug_decode_mode. dst may be src itself when the region is the whole image,
 * src is 8-bit and out_channels <= src_channels (it is walked forwards). */
AUG__HIDDEN void aug__convert_pixels(const void *src, int src_channels, int src16, int64_t src_width, int64_t y,
                                     int64_t x, int64_t h, int64_t w, uint8_t *dst, int out_channels);

#endif
