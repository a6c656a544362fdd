/* codec/webp.h: WebP decoding with libwebp (private; the front is
 * core/jpeg.c, the contract include/aug/image.h aug_decoder_decode_ex): still
 * images (lossy, lossless, alpha) through WebPDecode, animations' first frame
 * through libwebpdemux's WebPAnimDecoder. */
#ifndef AUG_CODEC_WEBP_H
#define AUG_CODEC_WEBP_H

#include <stddef.h>
#include <stdint.h>

#include "aug/image.h"
#include "core/error.h"

/* The header: canvas size, alpha, animation and frame count, lossy or
 * lossless (an animation's frames all walked: "mixed" when they differ).
 * Nothing of the size of the image is allocated. AUG_ERR_JPEG "func: WebP:
 * ..." for data that is not a readable WebP. */
AUG__HIDDEN aug_status aug__webp_describe(const char *func, const void *data, size_t size, aug_image_desc *desc);

/* Decodes the whole image (an animation: its first frame, composited on the
 * canvas) to channels 3 (RGB) or 4 (RGBA) packed 8-bit pixels at dst
 * (desc->height * desc->width * channels bytes, host memory); a file without
 * alpha gets 255. Corrupt or truncated data: AUG_ERR_JPEG "func: WebP:
 * <libwebp's status> (VP8_STATUS_...)". */
AUG__HIDDEN aug_status aug__webp_decode(const char *func, const void *data, size_t size, const aug_image_desc *desc,
                                        int channels, uint8_t *dst);

#endif
