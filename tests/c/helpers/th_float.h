/* th_float.h: float helpers for the div and math tests (test_ops_div.c,
 * test_ops_math.c, test_kernels_div.c, test_kernels_math.c): bit patterns, the
 * IEEE half and bfloat16 formats on float (semantics §2 rounding, written here, not taken
 * from aug), and distances in units in the last place. */
#ifndef TH_FLOAT_H
#define TH_FLOAT_H

#include <stdint.h>

float th_f32_of_bits(uint32_t u);
uint32_t th_bits_of_f32(float f);

/* IEEE half -> float (exact). */
float th_half_to_float(uint16_t h);
/* float -> half, round half to even; finite beyond the range -> +-65504 (semantics §2). */
uint16_t th_float_to_half(float f);
float th_bf16_to_float(uint16_t h);
/* float -> bfloat16, round half to even; finite overflow -> max finite. */
uint16_t th_float_to_bf16(float f);

/* Distance between a and b in representable values (ulp); NaN matches only NaN
 * (0), NaN against a number is UINT64_MAX. */
uint64_t th_ulp32(float a, float b);
uint64_t th_ulp64(double a, double b);

#endif
