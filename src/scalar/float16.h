/* scalar/float16.h: float16 and bfloat16 as bits, to and from float32/float64
 * (semantics §1, §2; private, shared by every backend).
 *
 * Decoding is exact. Encoding rounds half to even once (float64 is rounded to
 * the 16-bit format directly, never through float32, which would round twice),
 * keeps inf, and turns NaN into a quiet NaN of the same sign. A finite value
 * beyond the range saturates to the largest finite value (the conversions,
 * semantics §2), or with the _ieee variants rounds to +-inf as IEEE arithmetic
 * does (float results, semantics §7). The float32 directions are branch-free so
 * conversion loops vectorise. */
#ifndef AUG_SCALAR_FLOAT16_H
#define AUG_SCALAR_FLOAT16_H

#include "hd.h"

typedef uint16_t aug__f16;
typedef uint16_t aug__bf16;

AUG_HD float aug__f16_to_f32(aug__f16 h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, a = h & 0x7fffu;
    uint32_t w = (a << 13) + 0x38000000u;                  /* rebias the exponent: 127 - 15 = 112 */
    w = aug__sel_u32(a >= 0x7c00u, w + 0x38000000u, w);    /* inf/NaN: exponent 31 + 2 * 112 = 255 */
    float sub = (float)(int32_t)a * 0x1p-24f;              /* zero/subnormal: a * 2^-24, exact */
    w = aug__sel_u32(a < 0x0400u, aug__f32_bits(sub), w);
    return aug__bits_f32(sign | w);
}

/* sat: 1 saturates finite values beyond 65504, 0 rounds |x| >= 65520 to inf (a
 * constant at every call site, so the select folds; always inlined, or the
 * conversion loops stop vectorising). */
AUG_HD_ALWAYS aug__f16 aug__f32_to_f16_r(float x, int sat) {
    uint32_t w = aug__f32_bits(x);
    uint32_t sign = (w >> 16) & 0x8000u, a = w & 0x7fffffffu;
    /* normal: rebias 127 -> 15, drop 13 mantissa bits with ties to even; a carry
     * moves into the exponent */
    uint32_t r = a - 0x38000000u;
    uint32_t h = (r + 0xfffu + ((r >> 13) & 1u)) >> 13;
    /* |x| < 2^-14, subnormal: |x| * 2^24 (exact, < 1024) plus 2^23 rounds to an
     * integer that sits in the low mantissa bits (1024 is the smallest normal) */
    float t = aug__bits_f32(a) * 0x1p24f + 0x1p23f;
    h = aug__sel_u32(a < 0x38800000u, aug__f32_bits(t) - 0x4b000000u, h);
    h = aug__sel_u32(a >= 0x477fe000u, 0x7bffu, h); /* |x| >= 65504, the largest finite: saturate */
    h = aug__sel_u32(!sat && a >= 0x477ff000u, 0x7c00u, h); /* IEEE: |x| >= 65520 rounds to inf */
    h = aug__sel_u32(a > 0x7f800000u, 0x7e00u | ((a >> 13) & 0x3ffu), h); /* NaN, made quiet */
    h = aug__sel_u32(a == 0x7f800000u, 0x7c00u, h);
    return (uint16_t)(sign | h);
}

AUG_HD aug__f16 aug__f32_to_f16(float x) { return aug__f32_to_f16_r(x, 1); }
AUG_HD aug__f16 aug__f32_to_f16_ieee(float x) { return aug__f32_to_f16_r(x, 0); }

AUG_HD float aug__bf16_to_f32(aug__bf16 h) { return aug__bits_f32((uint32_t)h << 16); }

AUG_HD_ALWAYS aug__bf16 aug__f32_to_bf16_r(float x, int sat) {
    uint32_t w = aug__f32_bits(x);
    uint32_t a = w & 0x7fffffffu;
    if (a > 0x7f800000u) /* NaN: keep sign and top payload, set the quiet bit */
        return (uint16_t)((w >> 16) | 0x40u);
    /* drop the low 16 bits, ties to even (subnormals included); cannot carry into the sign */
    uint32_t r = (w + 0x7fffu + ((w >> 16) & 1u)) >> 16;
    if (sat && (r & 0x7fffu) == 0x7f80u && a != 0x7f800000u) /* rounded up to inf: saturate */
        r = (r & 0x8000u) | 0x7f7fu;
    return (uint16_t)r;
}

AUG_HD aug__bf16 aug__f32_to_bf16(float x) { return aug__f32_to_bf16_r(x, 1); }
AUG_HD aug__bf16 aug__f32_to_bf16_ieee(float x) { return aug__f32_to_bf16_r(x, 0); }

/* Rounds |x|'s bits with the exponent rebased by `rebias` to a format keeping
 * `keep` mantissa bits: drop 52 - keep bits, ties to even; a carry moves into the
 * exponent, which the callers have kept below the format's infinity. */
AUG_HD uint16_t aug__f64_round16(uint64_t a, uint64_t rebias, int keep) {
    int drop = 52 - keep;
    uint64_t r = a - (rebias << 52);
    r = (r + (((uint64_t)1 << (drop - 1)) - 1) + ((r >> drop) & 1)) >> drop;
    return (uint16_t)r;
}

AUG_HD aug__f16 aug__f64_to_f16_r(double x, int sat) {
    uint64_t w = aug__f64_bits(x);
    uint16_t sign = (uint16_t)((w >> 48) & 0x8000u);
    uint64_t a = w & 0x7fffffffffffffffull;
    double ax = fabs(x);
    if (x != x) return (uint16_t)(sign | 0x7e00u | ((a >> 42) & 0x3ffu));
    if (ax == INFINITY || (!sat && ax >= 65520.0)) return (uint16_t)(sign | 0x7c00u);
    if (ax >= 65504.0) return (uint16_t)(sign | 0x7bffu); /* largest finite float16 */
    if (ax < 0x1p-14) {                                   /* subnormal: units of 2^-24 */
        double t = aug__rne_f64(ax * 0x1p24);             /* exact scaling, t <= 1024 */
        return (uint16_t)(sign | (uint16_t)t);
    }
    return (uint16_t)(sign | aug__f64_round16(a, 1023 - 15, 10));
}

AUG_HD aug__bf16 aug__f64_to_bf16_r(double x, int sat) {
    uint64_t w = aug__f64_bits(x);
    uint16_t sign = (uint16_t)((w >> 48) & 0x8000u);
    uint64_t a = w & 0x7fffffffffffffffull;
    double ax = fabs(x);
    if (x != x) return (uint16_t)(sign | 0x7fc0u | ((a >> 45) & 0x7fu));
    if (ax == INFINITY || (!sat && ax >= 0x1.ffp127)) return (uint16_t)(sign | 0x7f80u);
    if (ax >= 0x1.fep127) return (uint16_t)(sign | 0x7f7fu); /* largest finite bfloat16 */
    if (ax < 0x1p-126) {                                     /* subnormal: units of 2^-133 */
        double t = aug__rne_f64(ax * 0x1p133);
        return (uint16_t)(sign | (uint16_t)t);
    }
    return (uint16_t)(sign | aug__f64_round16(a, 1023 - 127, 7));
}

AUG_HD aug__f16 aug__f64_to_f16(double x) { return aug__f64_to_f16_r(x, 1); }
AUG_HD aug__f16 aug__f64_to_f16_ieee(double x) { return aug__f64_to_f16_r(x, 0); }
AUG_HD aug__bf16 aug__f64_to_bf16(double x) { return aug__f64_to_bf16_r(x, 1); }
AUG_HD aug__bf16 aug__f64_to_bf16_ieee(double x) { return aug__f64_to_bf16_r(x, 0); }

#endif
