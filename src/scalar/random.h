/* scalar/random.h: the mapping from Philox blocks to values of every dtype
 * (semantics §11, include/aug/random.h documents it; private, shared by every
 * backend).
 *
 * Element i of a fill gets the block x0..x3 of its counter (scalar/philox.h)
 * and the functions below turn it into one value of the target's dtype. The
 * parameters (aug__rand_params) are derived once per call by the core
 * (core/random.c). Uniform values are bit-identical on every backend; the
 * float64 / 32- and 64-bit integer Gaussians use the platform's log and cos and
 * agree within the ulp bounds of semantics §8; the float32-based Gaussian uses
 * the polynomials below and is bit-identical too. */
#ifndef AUG_SCALAR_RANDOM_H
#define AUG_SCALAR_RANDOM_H

#include "cast.h"
#include "philox.h"

typedef enum aug__random_kind { AUG__RANDOM_UNIFORM, AUG__RANDOM_GAUSSIAN } aug__random_kind;

typedef struct aug__rand_params {
    int kind;                 /* aug__random_kind */
    int dtype;                /* the target's dtype */
    uint32_t key[2];          /* lo32(seed), hi32(seed) */
    uint64_t call;            /* the call number n */
    /* uniform, integer and bool targets: value = lo + draw * count */
    int64_t ilo;              /* lo (fits the dtype) */
    uint64_t count_m1;        /* count - 1, so count = 2^64 fits */
    /* uniform, float targets: v = m * (o + u * d), clamped to [flo, fhi] (values of T) */
    double m, o, d, flo, fhi;
    /* gaussian */
    double mean, std;
} aug__rand_params;

AUG_HD_ALWAYS uint64_t aug__draw64(uint32_t lo, uint32_t hi) { return (uint64_t)lo | (uint64_t)hi << 32; }

/* ---- uniform ---------------------------------------------------------------------- */

/* Uniform in [0, 1) with 52 bits. */
AUG_HD_ALWAYS double aug__unit52(uint32_t lo, uint32_t hi) {
    return aug__bits_f64(0x3ff0000000000000ull | aug__draw64(lo, hi) >> 12) - 1.0;
}

AUG_HD_ALWAYS double aug__uniform_f(const aug__rand_params *p, uint32_t lo, uint32_t hi) {
    double v = p->m * (p->o + aug__unit52(lo, hi) * p->d);
    v = v < p->flo ? p->flo : v;
    return v > p->fhi ? p->fhi : v;
}

/* v rounded toward -inf to float32 (v is within the finite float range). Round to
 * nearest would give the lowest value of a range half its share and the highest
 * one and a half; rounding down gives every value x the share of [x, next(x)). */
AUG_HD_ALWAYS float aug__floor_f32(double v) {
    float f = (float)v;
    uint32_t b = aug__f32_bits(f);
    uint32_t down = f > 0.0f ? b - 1u : (f == 0.0f ? 0x80000001u : b + 1u);
    return (double)f > v ? aug__bits_f32(down) : f;
}

/* The 16-bit float below h when h's value exceeds f (the same rounding down). */
AUG_HD_ALWAYS uint16_t aug__floor16(uint16_t h, float hv, float f) {
    uint16_t down = (h & 0x7fffu) == 0 ? (uint16_t)0x8001u : (h & 0x8000u) ? (uint16_t)(h + 1u) : (uint16_t)(h - 1u);
    return hv > f ? down : h;
}

AUG_HD_ALWAYS float aug__uniform_f32(const aug__rand_params *p, uint32_t lo, uint32_t hi) {
    return aug__floor_f32(aug__uniform_f(p, lo, hi));
}
AUG_HD_ALWAYS uint16_t aug__uniform_f16(const aug__rand_params *p, uint32_t lo, uint32_t hi) {
    float f = aug__floor_f32(aug__uniform_f(p, lo, hi));
    uint16_t h = aug__f32_to_f16(f);
    return aug__floor16(h, aug__f16_to_f32(h), f);
}
AUG_HD_ALWAYS uint16_t aug__uniform_bf16(const aug__rand_params *p, uint32_t lo, uint32_t hi) {
    float f = aug__floor_f32(aug__uniform_f(p, lo, hi));
    uint16_t h = aug__f32_to_bf16(f);
    return aug__floor16(h, aug__bf16_to_f32(h), f);
}

/* 8/16/32-bit integers and bool: lo + floor(a * count / 2^64). */
AUG_HD_ALWAYS uint64_t aug__uniform_narrow(const aug__rand_params *p, uint32_t x0, uint32_t x1) {
    return (uint64_t)p->ilo + (uint64_t)(((aug__u128)aug__draw64(x0, x1) * (p->count_m1 + 1)) >> 64);
}
/* 64-bit integers: lo + floor(w * count / 2^128) for the 128-bit draw w = b:a. */
AUG_HD_ALWAYS uint64_t aug__uniform_wide(const aug__rand_params *p, uint32_t x0, uint32_t x1, uint32_t x2,
                                         uint32_t x3) {
    uint64_t a = aug__draw64(x0, x1), b = aug__draw64(x2, x3), r;
    if (p->count_m1 == UINT64_MAX) {
        r = b;
    } else {
        const uint64_t cnt = p->count_m1 + 1;
        aug__u128 hi = (aug__u128)b * cnt, lo_p = (aug__u128)a * cnt;
        r = (uint64_t)((hi + (lo_p >> 64)) >> 64);
    }
    return (uint64_t)p->ilo + r;
}

/* ---- gaussian ---------------------------------------------------------------------- */

/* ln(x) for positive normal x: x = 2^e * m with m in [sqrt(1/2), sqrt(2)) (the
 * bit pattern of sqrt(1/2), 0x3f3504f3, splits the exponent from the mantissa),
 * ln(m) = 2 atanh(s) with s = (m - 1) / (m + 1), |s| <= 0.1716, whose series to
 * s^9 leaves an error below 1e-9. Branch-free so loops vectorise; IEEE float32
 * operations only (no contraction), so every backend gets the same bits. */
AUG_HD_ALWAYS float aug__rng_logf(float x) {
    uint32_t t = aug__f32_bits(x) - 0x3f3504f3u;
    float e = (float)((int32_t)t >> 23);
    float m = aug__bits_f32((t & 0x007fffffu) + 0x3f3504f3u);
    float f = m - 1.0f;
    float s = f / (2.0f + f), s2 = s * s;
    float p = s2 * (0.6666666667f + s2 * (0.4f + s2 * (0.2857142857f + s2 * 0.2222222222f)));
    return e * 0.69314718056f + (2.0f * s + s * p);
}

/* cos(2 pi u) for u in [0, 1): with t = u or u - 1 in [-1/2, 1/2] (exact),
 * cos(2 pi t) = sin(2 pi (1/4 - |t|)) and 1/4 - |t| in [-1/4, 1/4] is exact, so
 * only sin on [-pi/2, pi/2] is needed: Taylor to x^13 (next term below 7e-10). */
AUG_HD_ALWAYS float aug__rng_cos2pif(float u) {
    float t = u > 0.5f ? u - 1.0f : u;
    float x = (0.25f - fabsf(t)) * 6.28318530718f, x2 = x * x;
    float p = -1.6666666667e-1f +
              x2 * (8.3333333333e-3f +
                    x2 * (-1.9841269841e-4f + x2 * (2.7557319224e-6f + x2 * (-2.5052108385e-8f + x2 * 1.6059043837e-10f))));
    return x + x * (x2 * p);
}

/* A standard normal value in float32 from the words x0, x2 of one block. */
AUG_HD_ALWAYS float aug__normal_f32(uint32_t x0, uint32_t x2) {
    float u1 = (float)(int32_t)(x0 >> 1) * 0x1p-31f + 0x1p-32f; /* (0, 1] */
    float u2 = (float)(int32_t)(x2 >> 8) * 0x1p-24f;            /* [0, 1) */
    return sqrtf(-2.0f * aug__rng_logf(u1)) * aug__rng_cos2pif(u2);
}

/* A standard normal value in double (the platform's log and cos) from the two
 * 64-bit draws. */
AUG_HD_ALWAYS double aug__normal_f64(uint64_t a, uint64_t b) {
    double u1 = (double)((a >> 11) + 1) * 0x1p-53; /* (0, 1] */
    double u2 = (double)(b >> 11) * 0x1p-53;       /* [0, 1) */
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* mean + std * z in double, saturated to +-FLT_MAX for the float32-based stores. */
AUG_HD_ALWAYS float aug__gauss_to_f32(const aug__rand_params *p, float z) {
    double v = p->mean + p->std * (double)z;
    v = v < -0x1.fffffep127 ? -0x1.fffffep127 : v;
    return (float)(v > 0x1.fffffep127 ? 0x1.fffffep127 : v);
}

/* Round half to even and saturate into [lo, hi] (8/16-bit integer targets). */
AUG_HD_ALWAYS int32_t aug__rne_sat(double v, double lo, double hi) {
    double r = aug__rne_f64(v);
    r = r < lo ? lo : r;
    return (int32_t)(r > hi ? hi : r);
}

/* mean + std * z for the float32-based small integers and bool. */
AUG_HD_ALWAYS double aug__gauss_small(const aug__rand_params *p, uint32_t x0, uint32_t x2) {
    return p->mean + p->std * (double)aug__normal_f32(x0, x2);
}

/* ---- one element ----------------------------------------------------------------------- */

/* Element i of the fill described by p, stored at out (one element of p->dtype). */
AUG_HD void aug__random_element(const aug__rand_params *p, uint64_t i, void *out) {
    uint32_t x[4];
    aug__philox_element(p->key, p->call, i, x);
    if (p->kind == AUG__RANDOM_UNIFORM) {
        switch (p->dtype) {
        case AUG__CT_FLOAT64: { double v = aug__uniform_f(p, x[0], x[1]); memcpy(out, &v, 8); return; }
        case AUG__CT_FLOAT32: { float v = aug__uniform_f32(p, x[0], x[1]); memcpy(out, &v, 4); return; }
        case AUG__CT_FLOAT16: { uint16_t v = aug__uniform_f16(p, x[0], x[1]); memcpy(out, &v, 2); return; }
        case AUG__CT_BFLOAT16: { uint16_t v = aug__uniform_bf16(p, x[0], x[1]); memcpy(out, &v, 2); return; }
        case AUG__CT_INT64:
        case AUG__CT_UINT64: { uint64_t v = aug__uniform_wide(p, x[0], x[1], x[2], x[3]); memcpy(out, &v, 8); return; }
        default: {
            uint64_t v = aug__uniform_narrow(p, x[0], x[1]); /* in the target's range: a plain narrowing */
            switch (aug__ctype_size(p->dtype)) {
            case 1: { uint8_t b = (uint8_t)v; memcpy(out, &b, 1); return; }
            case 2: { uint16_t h = (uint16_t)v; memcpy(out, &h, 2); return; }
            default: { uint32_t w = (uint32_t)v; memcpy(out, &w, 4); return; }
            }
        }
        }
    }
    switch (p->dtype) {
    case AUG__CT_FLOAT32: { float v = aug__gauss_to_f32(p, aug__normal_f32(x[0], x[2])); memcpy(out, &v, 4); return; }
    case AUG__CT_FLOAT16: {
        uint16_t v = aug__f32_to_f16(aug__gauss_to_f32(p, aug__normal_f32(x[0], x[2])));
        memcpy(out, &v, 2);
        return;
    }
    case AUG__CT_BFLOAT16: {
        uint16_t v = aug__f32_to_bf16(aug__gauss_to_f32(p, aug__normal_f32(x[0], x[2])));
        memcpy(out, &v, 2);
        return;
    }
#define AUG__GSMALL_(N)                                                                             \
    case AUG__CT_##N: {                                                                             \
        AUG__CT_T(N) v = (AUG__CT_T(N))aug__rne_sat(aug__gauss_small(p, x[0], x[2]), AUG__CT_FMIN(N), \
                                                    AUG__CT_FMAX(N));                               \
        memcpy(out, &v, sizeof v);                                                                  \
        return;                                                                                     \
    }
        AUG__GSMALL_(INT8)
        AUG__GSMALL_(UINT8)
        AUG__GSMALL_(INT16)
        AUG__GSMALL_(UINT16)
#undef AUG__GSMALL_
    case AUG__CT_BOOL: {
        uint8_t v = (uint8_t)(aug__rne_f64(aug__gauss_small(p, x[0], x[2])) != 0.0);
        memcpy(out, &v, 1);
        return;
    }
    default: /* float64 and the 32/64-bit integers: double precision */
        aug__store_f64(p->mean + p->std * aug__normal_f64(aug__draw64(x[0], x[1]), aug__draw64(x[2], x[3])), p->dtype,
                       out);
        return;
    }
}

#endif
