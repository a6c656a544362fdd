/* scalar/blur.h: the per-element rules of the blurs (semantics §13,
 * docs/filters.md; private, shared by every backend).
 *
 * The Gaussian kernel size, the Gaussian weight, and the exact rounding of an
 * 8-bit box mean. The tap lists themselves (normalised weights, clipped windows,
 * tail weights) are computed once on the host by core/blur.c. */
#ifndef AUG_SCALAR_BLUR_H
#define AUG_SCALAR_BLUR_H

#include "hd.h"

/* Largest kernel size used internally: kernels wider than this behave exactly
 * like a flat average for any image that fits in memory, and the bound keeps
 * every offset sum inside int64. */
#define AUG__KSIZE_CAP (((int64_t)1 << 62) - 1)

/* The Gaussian kernel size: 1 (a copy) for sigma <= 0, else
 * max(3, int(sigma * 6.6 - 2.3) | 1) (int truncates toward zero), then
 * min(max_ksize) when max_ksize > 0. sigma must not be NaN. */
AUG_HD int64_t aug__gaussian_ksize64(double sigma, int64_t max_ksize) {
    if (!(sigma > 0.0)) return 1;
    double t = sigma * 6.6 - 2.3;
    int64_t k0 = t < (double)AUG__KSIZE_CAP ? (int64_t)t : AUG__KSIZE_CAP;
    int64_t k = k0 | 1;
    if (k < 3) k = 3;
    if (max_ksize > 0 && k > max_ksize) k = max_ksize;
    return k;
}

/* The unnormalised weight of offset i: exp(-i^2 / s2), s2 = 2 sigma^2. */
AUG_HD double aug__gaussian_weight(double i, double s2) { return exp(-(i * i) / s2); }

/* ---- the 8-bit box mean ---------------------------------------------------------
 * Largest box ksize the 8-bit kernels take: window sums of up to 16^2 * 255 =
 * 65280 (plus the rounding bias) fit uint16 lanes. The mean of a sum of kk =
 * ksize^2 bytes is rounded half to even exactly: t = sum + kk/2, q = floor(t /
 * kk) = mulhi16(t >> shift, mul) >> post (mul 0: the shift alone) with a
 * reciprocal proven exact for every t that can occur (tests/c/test_filters.c
 * checks each one exhaustively), and for even kk a tie (t == q kk) takes q & ~1. */
#define AUG__BOX8_MAX 16

typedef struct aug__box8_div {
    int shift, post;
    uint16_t mul;
} aug__box8_div;

AUG_HD aug__box8_div aug__box8_div_for(int64_t ksize) {
    uint32_t d = (uint32_t)(ksize * ksize);
    aug__box8_div r = {0, 0, 0};
    while (!(d & 1)) d >>= 1, r.shift++;
    if (d == 1) return r; /* a power of two: the shift alone */
    /* the largest s with ceil(2^s / d) < 2^16 */
    int s = 16;
    while ((((uint64_t)1 << (s + 1)) + d - 1) / d < 65536) s++;
    r.mul = (uint16_t)((((uint64_t)1 << s) + d - 1) / d);
    r.post = s - 16;
    return r;
}

AUG_HD uint8_t aug__box8_mean(uint32_t sum, uint32_t kk, aug__box8_div dv) {
    uint32_t t = sum + kk / 2, q = t >> dv.shift;
    if (dv.mul) q = ((q * dv.mul) >> 16) >> dv.post;
    if (!(kk & 1) && q * kk == t) q &= ~1u; /* an exact .5: to even */
    return (uint8_t)q;
}

/* The 8-bit Gaussian's store: clamp to 0 .. 255 and round half to even (v is
 * never NaN: finite weights of 8-bit values). */
AUG_HD uint8_t aug__blur8_round(float v) {
    v = v < 0.0f ? 0.0f : (v > 255.0f ? 255.0f : v);
    v = (v + 0x1p23f) - 0x1p23f; /* round half to even: 0 <= v < 2^23 */
    return (uint8_t)(int32_t)v;
}

#endif
