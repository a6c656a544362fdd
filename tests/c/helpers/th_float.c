/* th_float.c: float helpers for the div and math tests (see th_float.h). */
#include <math.h>
#include <string.h>
#include "th_float.h"

float th_f32_of_bits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
uint32_t th_bits_of_f32(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

float th_half_to_float(uint16_t h) {
    int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    float v;
    if (e == 31) v = m ? NAN : INFINITY;
    else if (e == 0) v = ldexpf((float)m, -24);
    else v = ldexpf((float)(m + 1024), e - 25);
    return s ? -v : v;
}

uint16_t th_float_to_half(float f) {
    uint16_t s = signbit(f) ? 0x8000 : 0;
    float a = fabsf(f);
    if (isnan(f)) return 0x7e00;
    if (isinf(a)) return s | 0x7c00;
    /* Scale so that the half's last place is 1, then round to an integer (RNE). */
    int e;
    frexpf(a, &e); /* a = m * 2^e, m in [0.5, 1) */
    int q = e - 11 < -24 ? -24 : e - 11; /* exponent of the last place */
    double n = nearbyint(ldexp(a, -q));  /* exact: a has 24 bits */
    double v = ldexp(n, q);
    if (v > 65504.0) return s | 0x7bff;
    /* Re-encode v (a half value). */
    if (v == 0) return s;
    int ve;
    frexp(v, &ve);
    if (ve - 1 < -14) return s | (uint16_t)(n); /* subnormal: n < 1024 units of 2^-24 */
    uint16_t mant = (uint16_t)((int)ldexp(v, 11 - ve) - 1024);
    return s | (uint16_t)((ve - 1 + 15) << 10) | mant;
}

float th_bf16_to_float(uint16_t h) { return th_f32_of_bits((uint32_t)h << 16); }

uint16_t th_float_to_bf16(float f) {
    if (isnan(f)) return 0x7fc0;
    uint32_t u = th_bits_of_f32(f);
    uint32_t r = u + 0x7fff + ((u >> 16) & 1);
    uint16_t h = (uint16_t)(r >> 16);
    if (!isinf(f) && (h & 0x7fff) == 0x7f80) h = (uint16_t)((h & 0x8000) | 0x7f7f);
    return h;
}

/* Sign-magnitude bits as an ordered integer: adjacent floats differ by 1. */
static int64_t ord32(float f) {
    int32_t i;
    memcpy(&i, &f, 4);
    return i < 0 ? (int64_t)INT32_MIN - i : i;
}
static int64_t ord64(double d) {
    int64_t i;
    memcpy(&i, &d, 8);
    return i < 0 ? (int64_t)((uint64_t)INT64_MIN - (uint64_t)i) : i;
}

uint64_t th_ulp32(float a, float b) {
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0 : UINT64_MAX;
    int64_t d = ord32(a) - ord32(b);
    return (uint64_t)(d < 0 ? -d : d);
}
uint64_t th_ulp64(double a, double b) {
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0 : UINT64_MAX;
    int64_t x = ord64(a), y = ord64(b);
    return x > y ? (uint64_t)x - (uint64_t)y : (uint64_t)y - (uint64_t)x;
}
