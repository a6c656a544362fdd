/* codec/avif.h: AVIF decoding with libavif (private; the front is
 * core/jpeg.c, the contract include/aug/image.h aug_decoder_decode_ex): the
 * primary image of a still AVIF, or the first frame of an image sequence,
 * 8, 10 or 12-bit, 4:4:4 / 4:2:2 / 4:2:0 / 4:0:0 (gray), with or without
 * alpha, converted to RGB by libavif's own avifImageYUVToRGB with the file's
 * CICP matrix and range. libavif's AV1 decoder (dav1d, libgav1 or aom: its
 * choice) runs on one thread. */
#ifndef AUG_CODEC_AVIF_H
#define AUG_CODEC_AVIF_H

#include <stddef.h>
#include <stdint.h>

#include "aug/image.h"
#include "core/error.h"

/* The header (libavif's parse: no AV1 data decoded, nothing of the size of
 * the image allocated): size, depth (8, 10 or 12), alpha, frame count,
 * channels (4:0:0 files 1, or 2 with alpha; others 3 or 4), colour_space the
 * chroma subsampling ("YUV444", "YUV422", "YUV420", "YUV400"), compression
 * "av1". Any size is described (the decoder's limit is the caller's check).
 * AUG_ERR_JPEG "func: AVIF: <libavif's result>: <its diagnostic>" for data
 * that is not a readable AVIF. */
AUG__HIDDEN aug_status aug__avif_describe(const char *func, const void *data, size_t size, aug_image_desc *desc);

/* Decodes the whole image (described as desc) to channels 3 (RGB) or 4
 * (RGBA) packed pixels at dst (desc->height * desc->width * channels
 * samples, host memory); a file without alpha gets the maximum; a file with
 * alpha must be decoded to RGBA (libavif 0.11's RGB output of it is the colour
 * premultiplied by alpha). wide 0:
 * 8-bit samples, libavif's conversion straight to 8 bits (a 10/12-bit file
 * rounded to nearest in it, as Pillow's AVIF plugin decodes); wide 1 (10 and
 * 12-bit files only): 16-bit host-endian samples, libavif's conversion at the
 * file's depth d, then round(v * 65535 / (2^d - 1)). max_pixels bounds
 * libavif's own image size limit as well. Corrupt or truncated data:
 * AUG_ERR_JPEG "func: AVIF: <libavif's result>: <its diagnostic>". */
AUG__HIDDEN aug_status aug__avif_decode(const char *func, const void *data, size_t size, const aug_image_desc *desc,
                                        int64_t max_pixels, int channels, int wide, void *dst);

#endif
