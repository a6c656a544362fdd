/* cpu/blur_uint8.h: the 8-bit box and Gaussian blur row-band kernels (private;
 * cpu/blur.c calls them, tests/c/test_filters.c checks SIMD against portable). */
#ifndef AUG_CPU_BLUR_UINT8_H
#define AUG_CPU_BLUR_UINT8_H

#include <stdint.h>
#include "core/blur.h"
#include "scalar/blur.h"


/* Output rows [y0, y1) of one H x W plane. flip = 0x80 for int8 (values biased
 * by 128 through the sign bit), 0 for uint8. level: AUG__SIMD_* to use (the
 * portable path for anything below AVX2). Return 0, or -1 when scratch memory
 * runs out. */
AUG__HIDDEN int aug__blur_box8_rows(int64_t ksize, const uint8_t *src, uint8_t *dst, int64_t H, int64_t W,
                                    int64_t y0, int64_t y1, uint8_t flip, int level);
AUG__HIDDEN int aug__blur_gauss8_rows(const aug__taps *tv, const aug__taps *th, const uint8_t *src, uint8_t *dst,
                                      int64_t H, int64_t W, int64_t y0, int64_t y1, uint8_t flip, int level);
/* cpu/blur_pil.c: the PIL8 path (PIL's GaussianBlur) of aug__cpu_blur. */
AUG__HIDDEN aug_status aug__cpu_blur_pil(const aug__blur_plan *plan);

#endif
