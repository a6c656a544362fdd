/* core/invert.h: the invert plan handed to the backends, and its per-value rule
 * (private; aug_invert in aug/colour.h, docs/colour.md).
 *
 * The core checks the image, packs a strided one into a contiguous copy and
 * allocates the output; a backend maps n contiguous values with the rule below,
 * torchvision's invert: an unsigned integer x becomes max - x (uint8: 255 - x,
 * bitwise_not), a float x becomes 1 - x in its own type (its bound is 1.0).
 * The CPU (gcc, C11) and the CUDA kernels (nvcc, and g++ for the emulation)
 * compile the same rule. */
#ifndef AUG_CORE_INVERT_H
#define AUG_CORE_INVERT_H

#include "backend.h"
#include "scalar/hd.h"

struct aug__invert_plan {
    const char *func;
    int dtype;       /* AUG_UINT8, AUG_UINT16, AUG_FLOAT32 or AUG_FLOAT64 */
    int64_t n;       /* values, >= 1 */
    const char *src; /* n contiguous values (backend memory) */
    char *dst;       /* n contiguous values; == src (in place) or not overlapping it */
    aug__exec exec;
};

AUG_HD uint8_t aug__invert_u8(uint8_t x) { return (uint8_t)(0xffu ^ x); }
AUG_HD uint16_t aug__invert_u16(uint16_t x) { return (uint16_t)(0xffffu ^ x); }
AUG_HD float aug__invert_f32(float x) { return 1.0f - x; }
AUG_HD double aug__invert_f64(double x) { return 1.0 - x; }

#endif
