/* cpu/lut8.h: a 256-entry byte table applied to a run of bytes (private; the
 * uint8 tables of lighting and colour). */
#ifndef AUG_CPU_LUT8_H
#define AUG_CPU_LUT8_H

#include <stdint.h>
#include "core/error.h"

/* dst[i] = table[src[i] ^ flip] for i < n (flip 0x80 indexes int8 values as
 * x + 128); src == dst is allowed. level: aug__simd_level() or lower (the tests
 * compare every level this CPU runs). */
AUG__HIDDEN void aug__cpu_lut8(const uint8_t table[256], const uint8_t *src, uint8_t *dst, int64_t n, uint8_t flip,
                               int level);

/* Whether aug__cpu_lut8 at this level has a vector path on this CPU (the tests'
 * question; AVX-512 VBMI). */
AUG__HIDDEN int aug__cpu_lut8_vector(int level);

#endif
