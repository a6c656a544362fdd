/* core/cast_float16.c: float64 <-> float16 / bfloat16 bit conversions (SPEC 2).
 *
 * float64 is rounded to the 16-bit format directly (one rounding, half to even),
 * never through float32, which would round twice. Finite values beyond the range
 * saturate to the largest finite value; inf stays inf; NaN stays a (quiet) NaN of
 * the same sign. Decoding is exact. The float32 forms live in ctype.h. */
#include <string.h>
#include "ctype.h"

static uint64_t f64_bits(double x) {
    uint64_t w;
    memcpy(&w, &x, sizeof w);
    return w;
}

/* Rounds |x|'s bits with the exponent rebased by `rebias` to a format keeping
 * `keep` mantissa bits: drop 52 - keep bits, ties to even; a carry moves into the
 * exponent, which the callers have kept below the format's infinity. */
static uint16_t round_normal(uint64_t a, uint64_t rebias, int keep) {
    int drop = 52 - keep;
    uint64_t r = a - (rebias << 52);
    r = (r + (((uint64_t)1 << (drop - 1)) - 1) + ((r >> drop) & 1)) >> drop;
    return (uint16_t)r;
}

uint16_t aug_f64_to_f16(double x) {
    uint64_t w = f64_bits(x);
    uint16_t sign = (uint16_t)((w >> 48) & 0x8000u);
    uint64_t a = w & 0x7fffffffffffffffull;
    double ax = fabs(x);
    if (x != x) return (uint16_t)(sign | 0x7e00u | ((a >> 42) & 0x3ffu));
    if (ax == INFINITY) return (uint16_t)(sign | 0x7c00u);
    if (ax >= 65504.0) return (uint16_t)(sign | 0x7bffu); /* largest finite float16 */
    if (ax < 0x1p-14) {                                   /* subnormal: units of 2^-24 */
        double t = aug__rne_f64(ax * 0x1p24);             /* exact scaling, t <= 1024 */
        return (uint16_t)(sign | (uint16_t)t);
    }
    return (uint16_t)(sign | round_normal(a, 1023 - 15, 10));
}

uint16_t aug_f64_to_bf16(double x) {
    uint64_t w = f64_bits(x);
    uint16_t sign = (uint16_t)((w >> 48) & 0x8000u);
    uint64_t a = w & 0x7fffffffffffffffull;
    double ax = fabs(x);
    if (x != x) return (uint16_t)(sign | 0x7fc0u | ((a >> 45) & 0x7fu));
    if (ax == INFINITY) return (uint16_t)(sign | 0x7f80u);
    if (ax >= 0x1.fep127) return (uint16_t)(sign | 0x7f7fu); /* largest finite bfloat16 */
    if (ax < 0x1p-126) {                                     /* subnormal: units of 2^-133 */
        double t = aug__rne_f64(ax * 0x1p133);
        return (uint16_t)(sign | (uint16_t)t);
    }
    return (uint16_t)(sign | round_normal(a, 1023 - 127, 7));
}

double aug_f16_to_f64(uint16_t h) { return (double)aug__f16_to_f32(h); }
double aug_bf16_to_f64(uint16_t h) { return (double)aug__bf16_to_f32(h); }
