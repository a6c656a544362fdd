/* core/jpeg.h: the JPEG decoder's backend interface (private).
 *
 * core/jpeg.c holds the public, backend-neutral front (aug_decoder_*,
 * aug_jpeg_info: argument and device checks, output allocation, the `buffer`
 * rules); a backend supplies the stateful decoder below. The CPU backend is
 * libjpeg-turbo's TurboJPEG API (src/cpu/jpeg.c); the CUDA backend will add
 * nvJPEG beside it. A decoder is not thread-safe: one per thread. */
#ifndef AUG_CORE_JPEG_H
#define AUG_CORE_JPEG_H

#include <stdint.h>
#include "error.h"

/* What a JPEG header says, as far as the front needs it. */
typedef struct aug__jpeg_header {
    int64_t height, width;
    int components;   /* 1 gray, 3 YCbCr/RGB, 4 CMYK/YCCK */
    int libjpeg;      /* CPU: decode with the libjpeg-API fallback (TurboJPEG refused the header) */
} aug__jpeg_header;

/* Largest image decoded, in pixels: 2^31 keeps every row pitch and pixel
 * count inside TurboJPEG's int arithmetic with room to spare and bounds the
 * memory a hostile header can make us allocate (6 GiB of RGB). */
#define AUG__JPEG_MAX_PIXELS ((int64_t)1 << 31)

typedef struct aug__cpu_jpeg aug__cpu_jpeg;

/* A TurboJPEG decompressor plus a scratch buffer; host_padding bytes are added
 * whenever the scratch buffer grows. NULL with an error naming func. */
AUG__HIDDEN aug__cpu_jpeg *aug__cpu_jpeg_new(const char *func, size_t host_padding);
AUG__HIDDEN void aug__cpu_jpeg_free(aug__cpu_jpeg *j);

/* Reads the header (j may be NULL: a temporary decompressor is used).
 * AUG_ERR_JPEG "func: <libjpeg-turbo's message>" on bad data. */
AUG__HIDDEN aug_status aug__cpu_jpeg_header(const char *func, aug__cpu_jpeg *j, const void *data, size_t size,
                                            aug__jpeg_header *h);

/* Decodes to packed RGB (h->height * h->width * 3 bytes at dst, host memory),
 * h from aug__cpu_jpeg_header on the same data. Warnings (e.g. a truncated
 * file) are errors. On error dst holds unspecified bytes. */
AUG__HIDDEN aug_status aug__cpu_jpeg_decode(const char *func, aug__cpu_jpeg *j, const void *data, size_t size,
                                            const aug__jpeg_header *h, uint8_t *dst);

/* The CPU fallback for files TurboJPEG 2.1 refuses but libjpeg decodes
 * (sampling factors TurboJPEG cannot name; src/cpu/jpeg_libjpeg.c), with the
 * same output and error policy. The header read sets h->libjpeg. */
AUG__HIDDEN aug_status aug__libjpeg_header(const char *func, const void *data, size_t size, aug__jpeg_header *h);
AUG__HIDDEN aug_status aug__libjpeg_decode(const char *func, const void *data, size_t size, const aug__jpeg_header *h,
                                           uint8_t *dst);

/* Stored (Adobe-inverted) CMYK samples -> packed RGB as Pillow's "CMYK;I" +
 * convert('RGB'); npixels pixels. */
AUG__HIDDEN void aug__cpu_cmyk_to_rgb(const uint8_t *src, uint8_t *dst, size_t npixels);

#endif
