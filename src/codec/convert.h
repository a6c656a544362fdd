/* codec/convert.h: the host pixel conversions of the decoder's output modes
 * and dtypes (private; the rules are include/aug/image.h aug_decode_mode and
 * aug_decoder_decode_ex): channel counts 1 (gray), 2 (gray+alpha), 3 (RGB),
 * 4 (RGBA) and 8 or 16-bit samples, in and out. Every codec's pixels and the
 * core's JPEG modes go through here. */
#ifndef AUG_CODEC_CONVERT_H
#define AUG_CODEC_CONVERT_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* Converts the region (y, x, h, w) of a packed host image src (src_channels
 * 1..4 per pixel, 8-bit, or 16-bit host-endian when src16, src_width pixels per
 * row) to out_channels (1 gray, 2 gray+alpha, 3 RGB, 4 RGBA) packed pixels at
 * dst (h * w * out_channels samples, 8-bit, or 16-bit host-endian when dst16).
 * 16 -> 8 bits rounds (v * 255 + 32767) / 65535, 8 -> 16 is v * 257; the
 * channels are converted at the lower of the two depths (16-bit samples
 * narrowed first, 8-bit ones widened last, so an 8-bit source's 16-bit output
 * is its 8-bit output times 257): gray to colour repeats it, colour to gray is
 * Pillow's luma (19595 R + 38470 G + 7471 B + 2^15) >> 16, a missing alpha is
 * the depth's maximum. out_channels == src_channels copies every sample
 * (any count from 1 up). dst may be src itself when the region is the whole
 * image, neither is 16-bit and out_channels <= src_channels (walked forwards). */
AUG__HIDDEN void aug__convert_image(const void *src, int src_channels, int src16, int64_t src_width, int64_t y,
                                    int64_t x, int64_t h, int64_t w, void *dst, int out_channels, int dst16);

#endif
