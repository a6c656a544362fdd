/* cpu/jpeg.h: the CPU's JPEG decoder (private).
 *
 * libjpeg-turbo's TurboJPEG API (src/cpu/jpeg.c), with a libjpeg-API fallback
 * for sampling factors TurboJPEG 2.1 cannot name (src/cpu/jpeg_libjpeg.c). The
 * backend table's jpeg_* entries (core/backend.h) are these functions; the
 * front (argument checks, size limit, output allocation) is core/jpeg.c. A
 * decoder is not thread-safe: one per thread. */
#ifndef AUG_CPU_JPEG_H
#define AUG_CPU_JPEG_H

#include <stdint.h>
#include "core/backend.h"

typedef struct aug__cpu_jpeg aug__cpu_jpeg;

/* A TurboJPEG decompressor plus a scratch buffer; host_padding bytes are added
 * whenever the scratch buffer grows. NULL with an error naming func. */
AUG__HIDDEN aug__cpu_jpeg *aug__cpu_jpeg_new(const char *func, size_t host_padding);
AUG__HIDDEN void aug__cpu_jpeg_free(aug__cpu_jpeg *j);

/* The backend-table entries (core/backend.h) over the functions of this header. */
AUG__HIDDEN aug_status aug__cpu_jpeg_open(const char *func, int device_id, size_t device_padding,
                                          size_t host_padding, int gpu_huffman, void **decoder);
AUG__HIDDEN void aug__cpu_jpeg_close(void *decoder);
AUG__HIDDEN aug_status aug__cpu_jpeg_header_entry(const char *func, void *decoder, const void *data, size_t size,
                                                  aug__jpeg_header *h);
AUG__HIDDEN aug_status aug__cpu_jpeg_decode_entry(const char *func, void *decoder, const void *data, size_t size,
                                                  const aug__jpeg_header *h, uint8_t *dst, const aug__exec *exec);

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
 * same output and error policy; aug__cpu_jpeg_decode also sends multi-scan files
 * and large images here, as its progress monitor polls the interrupt check
 * (AUG_ERR_INTERRUPTED). The header read sets h->libjpeg. */
AUG__HIDDEN aug_status aug__libjpeg_header(const char *func, const void *data, size_t size, aug__jpeg_header *h);
AUG__HIDDEN aug_status aug__libjpeg_decode(const char *func, const void *data, size_t size, const aug__jpeg_header *h,
                                           uint8_t *dst);

/* The header's description with libjpeg's reader (any file libjpeg reads). */
AUG__HIDDEN aug_status aug__libjpeg_describe(const char *func, const void *data, size_t size, aug_jpeg_desc *desc);
/* Region r of the scaled image to packed RGB at dst (r->h * r->w * 3 bytes;
 * r->pitch > 0: the band's rows at that pitch, r->skip set, see
 * aug__jpeg_region): DCT scaling, jpeg_crop_scanline (the band widened to iMCU
 * columns, the exact columns copied out), jpeg_skip_scanlines above the
 * region; rows below it are not decoded. Same output rules and error policy as
 * aug__libjpeg_decode. */
AUG__HIDDEN aug_status aug__libjpeg_decode_region(const char *func, const void *data, size_t size,
                                                  const aug__jpeg_header *h, aug__jpeg_region *r, uint8_t *dst);

/* Stored (Adobe-inverted) CMYK samples -> packed RGB as Pillow's "CMYK;I" +
 * convert('RGB'); npixels pixels. */
AUG__HIDDEN void aug__cpu_cmyk_to_rgb(const uint8_t *src, uint8_t *dst, size_t npixels);

#endif
