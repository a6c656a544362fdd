/* codec/png.h: PNG decoding with libspng (private; the front is core/jpeg.c, the contract
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
 * out_channels packed pixels, 16-bit when dst16, host memory), as aug__png_decode_rgba and
 * aug__convert_image (codec/convert.h) would, with one row of RGBA (row: width * pixel bytes)
 * as the only scratch. Every row is decoded; the errors (and the interrupt
 * polling) are aug__png_decode_rgba's. Adam7 files need the whole image: use
 * that one. */
AUG__HIDDEN aug_status aug__png_decode_region(const char *func, const void *data, size_t size,
                                              const aug_png_desc *desc, int64_t y, int64_t x, int64_t h, int64_t w,
                                              void *row, void *dst, int out_channels, int dst16);

#endif
