/* codec/jpeg_encode.h: JPEG encoding with libjpeg-turbo's TurboJPEG API
 * (private; the front is core/jpeg_encode.c, the contract include/aug/image.h
 * aug_jpeg_encode). A host codec below the core, as codec/png.h. */
#ifndef AUG_CODEC_JPEG_ENCODE_H
#define AUG_CODEC_JPEG_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "aug/image.h"
#include "core/error.h"

/* Encodes packed pixels (height rows of width * channels bytes, host memory;
 * channels 3: RGB, 1: gray) at quality 1..100 with 4:2:0 chroma (a gray image:
 * one component), the accurate integer DCT and the standard Huffman tables
 * (tjCompress2 with TJFLAG_ACCURATEDCT: what PIL's and OpenCV's JPEG encoders
 * write by default). *data
 * is a new malloc'd buffer of *size bytes (free()). AUG_ERR_JPEG
 * "func: <libjpeg-turbo's message>" when TurboJPEG fails, AUG_ERR_MEMORY. */
AUG__HIDDEN aug_status aug__jpeg_encode_packed(const char *func, const uint8_t *pixels, int height, int width,
                                               int channels, int quality, uint8_t **data, size_t *size);

#endif
