/* th_jpeg.h: the reference for pixels decoded by nvJPEG (the CUDA tests
 * test_cuda_nvjpeg.c and the parity harness's JPEG cases).
 *
 * nvJPEG upsamples chroma by replication (libjpeg's "fast upsampling"), not
 * with libjpeg-turbo's default triangular ("fancy") filter that the CPU decoder
 * and Pillow use: on an H200 its 4:2:0 decodes differ from the CPU's by a mean
 * of 5.7 and at most 83 on noisy chroma, while libjpeg-turbo's own decode with
 * TJFLAG_FASTUPSAMPLE differs from nvJPEG's only by IDCT rounding. So the
 * reference is an independent libjpeg-turbo decode with TJFLAG_FASTUPSAMPLE and
 * the accurate integer IDCT: equal on the emulation (whose stand-in nvJPEG
 * decodes that way), within TH_NVJPEG_MEAN / TH_NVJPEG_MAX on a GPU. */
#ifndef TH_JPEG_H
#define TH_JPEG_H

#include <stddef.h>

/* IDCT rounding on a GPU: nvJPEG's IDCT against libjpeg's ISLOW moves a value
 * by 1 or 2 here and there (35320 of 921600 values of a 480x640 4:4:4 file on
 * an H200, a mean of 0.04); colour conversion can scale a chroma difference by
 * up to 1.8. The bounds leave room for that and still fail another image's
 * pixels (a mean of tens) or fancy upsampling's (a mean of 5.7, max 83). */
#define TH_NVJPEG_MEAN 1.0
#define TH_NVJPEG_MAX 8

/* libjpeg-turbo's RGB decode of the file with TJFLAG_FASTUPSAMPLE |
 * TJFLAG_ACCURATEDCT, malloc'd (h * w * 3 bytes), when nvJPEG decodes the file
 * on the 'nvjpeg' engine; NULL for files the engine leaves to the CPU (the
 * caller's reference is then the CPU decoder's): CMYK/YCCK, and headers
 * TurboJPEG refuses (the libjpeg fallback's sampling factors). */
unsigned char *th_nvjpeg_reference(const void *jpeg, size_t size, int *w, int *h);

/* Whether got matches ref (n bytes): byte for byte when exact, else within the
 * bounds above. On a mismatch why gets "mean |diff| M, max |diff| X at byte I". */
int th_nvjpeg_matches(const unsigned char *ref, const unsigned char *got, size_t n, int exact, char *why,
                      size_t why_size);

#endif
