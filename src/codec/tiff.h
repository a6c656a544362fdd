/* codec/tiff.h: TIFF decoding with libtiff (private; the front is core/jpeg.c,
 * the contract include/aug/image.h aug_decoder_decode_ex): one page (IFD) of a
 * file in memory, strips or tiles, chunky or planar, 8 or 16-bit unsigned
 * samples, gray / RGB / palette / JPEG-YCbCr, any compression libtiff reads.
 * libtiff's messages are caught per file (never printed) and its single
 * allocations bounded, so a hostile file costs at most the bound. */
#ifndef AUG_CODEC_TIFF_H
#define AUG_CODEC_TIFF_H

#include <stddef.h>
#include <stdint.h>

#include "aug/image.h"
#include "core/error.h"

/* Page `page` of the file: size, channels (gray 1, gray + extra sample 2,
 * RGB 3, RGB + extra 4, palette 3), depth, pages, layout and compression.
 * AUG_ERR_JPEG "func: TIFF: ..." (libtiff's message) for data that is not a
 * readable TIFF or a variant the decoder refuses (naming the tag's value);
 * AUG_ERR_VALUE for a page outside the file. */
AUG__HIDDEN aug_status aug__tiff_describe(const char *func, const void *data, size_t size, int page,
                                          aug_image_desc *desc);

/* Decodes the region (y, x, h, w) of page `page` (described as desc) to
 * desc->channels packed samples per pixel at dst (h * w * channels, 8-bit,
 * or 16-bit host-endian when desc->bit_depth is 16; MinIsWhite inverted,
 * palette looked up as 8-bit RGB, the colour map's value >> 8 as libtiff and
 * Pillow do), reading only the strips or tiles the region touches. A tile of
 * more than max_pixels pixels is refused before its buffer is allocated.
 * Polls the thread's interrupt check between strips and tiles (codec/poll.h).
 * Corrupt or truncated data: AUG_ERR_JPEG "func: TIFF: <libtiff's message>". */
AUG__HIDDEN aug_status aug__tiff_decode(const char *func, const void *data, size_t size, int page,
                                        const aug_image_desc *desc, int64_t max_pixels, int64_t y, int64_t x,
                                        int64_t h, int64_t w, void *dst);

#endif
