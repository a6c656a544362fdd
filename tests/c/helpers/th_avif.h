/* th_avif.h: AVIF files for the C tests (test_avif.c, the parity harness's
 * AVIF case), encoded with libavif's own encoder (whichever AV1 encoder it
 * has: aom on Debian). Lossless files use 4:4:4 with the identity matrix and
 * quantizer 0 (gray: 4:0:0), so they decode to their samples exactly. */
#ifndef TH_AVIF_H
#define TH_AVIF_H

#include <stddef.h>
#include <stdint.h>

/* An AVIF of h x w pixels of channels samples (1 gray, 2 gray + alpha,
 * 3 RGB, 4 RGBA) from px (h * w * channels values of depth bits: 8, 10 or
 * 12), lossless or at quantizer 30. malloc'ed bytes (*size of them), or NULL
 * when libavif cannot encode (the test then fails on its own). */
uint8_t *th_avif_encode(const uint16_t *px, int h, int w, int channels, int depth, int lossless, size_t *size);

#endif
