/* scalar/normalize.h: the per-value rules of crop_mirror_normalize and of the
 * fused Gaussian noise (include/aug/normalize.h; private, shared by every
 * backend). */
#ifndef AUG_SCALAR_NORMALIZE_H
#define AUG_SCALAR_NORMALIZE_H

#include "cast.h"
#include "random.h"

/* ---- crop_mirror_normalize -------------------------------------------------------- */

/* DALI's CPU formula in float32 IEEE arithmetic (no contraction: the builds pass
 * -ffp-contract=off / --fmad=false): mean and inv are the host's per-channel
 * float(fma(-shift, std / scale, mean)) and float(scale / std). */
AUG_HD float aug__cmn_norm(float x, float mean, float inv) { return (x - mean) * inv; }

/* An input value of ctype t at p as float32 / float64 (saturate_cast: the
 * conversion table's): aug__cmn_load_f32 and aug__noise_load_f64. */
#define AUG__LOAD_AS_(NAME, RT, DST)                   \
    AUG_HD RT NAME(const void *p, int t) {             \
        AUG__MEM_LOAD(p, aug__ctype_size(t));          \
        switch (t) {                                   \
            AUG__CTYPE_LIST(AUG__LOAD_AS_CASE_##DST)   \
        default:                                       \
            return (RT)0;                              \
        }                                              \
    }
#define AUG__LOAD_AS_CASE_(N, DST) \
    case AUG__CT_##N: {            \
        AUG__CT_T(N) x;            \
        memcpy(&x, p, sizeof x);   \
        return AUG__CV(N, DST, x); \
    }
#define AUG__LOAD_AS_CASE_FLOAT32(N) AUG__LOAD_AS_CASE_(N, FLOAT32)
#define AUG__LOAD_AS_CASE_FLOAT64(N) AUG__LOAD_AS_CASE_(N, FLOAT64)
AUG__LOAD_AS_(aug__cmn_load_f32, float, FLOAT32)
AUG__LOAD_AS_(aug__noise_load_f64, double, FLOAT64)
#undef AUG__LOAD_AS_
#undef AUG__LOAD_AS_CASE_
#undef AUG__LOAD_AS_CASE_FLOAT32
#undef AUG__LOAD_AS_CASE_FLOAT64

/* v stored into an element of ctype t at p (saturate_cast from float32: the
 * conversion table's, as the CPU's aug__convert from FLOAT32). */
AUG_HD void aug__cmn_store_f32(float v, int t, void *p) {
    AUG__MEM_STORE(p, aug__ctype_size(t));
    switch (t) {
#define AUG__CMN_STORE_(N)                            \
    case AUG__CT_##N: {                               \
        AUG__CT_T(N) y = AUG__CV(FLOAT32, N, v);      \
        memcpy(p, &y, sizeof y);                      \
        break;                                        \
    }
        AUG__CTYPE_LIST(AUG__CMN_STORE_)
#undef AUG__CMN_STORE_
    default:
        break;
    }
}

/* One output value from the input value at src (ctype in_t) into dst (ctype
 * out_t): normalised when `normalize`, else converted directly (exact for
 * integers into wider integers, as DALI's ConvertSat of the element). */
AUG_HD void aug__cmn_value(const void *src, int in_t, void *dst, int out_t, int normalize, float mean, float inv) {
    if (normalize) {
        aug__cmn_store_f32(aug__cmn_norm(aug__cmn_load_f32(src, in_t), mean, inv), out_t, dst);
        return;
    }
    aug__i128 iv;
    double fv;
    if (aug__load_wide(src, in_t, &iv, &fv)) aug__store_f64(fv, out_t, dst);
    else aug__store_i128(iv, out_t, dst);
}

/* ---- Gaussian noise ------------------------------------------------------------------- */

/* The noise value of element i: exactly what the float32 Gaussian fill with
 * params p (p->mean, p->std: this element's image) stores there. */
AUG_HD_ALWAYS float aug__noise_draw(const aug__rand_params *p, uint32_t x0, uint32_t x2) {
    return aug__gauss_to_f32(p, aug__normal_f32(x0, x2));
}

/* x + noise in ctype ct (FLOAT32 or FLOAT64: the temp type of promote(x dtype,
 * float32)), as augpy.add(x, noise, out=) computes it; the caller stores the
 * result with saturate_cast (aug__cmn_store_f32 / aug__store_f64). */
AUG_HD float aug__noise_add_f32(float x, float noise) { return x + noise; }
AUG_HD double aug__noise_add_f64(double x, float noise) { return x + (double)noise; }

/* The whole rule for element i of the fill described by p: x at xp (ctype x_t)
 * to out at op (ctype out_t). */
AUG_HD void aug__noise_value(const aug__rand_params *p, uint64_t i, const void *xp, int x_t, int ct, void *op,
                             int out_t) {
    uint32_t b[4];
    aug__philox_element(p->key, p->call, i, b);
    const float noise = aug__noise_draw(p, b[0], b[2]);
    if (ct == AUG__CT_FLOAT32)
        aug__cmn_store_f32(aug__noise_add_f32(aug__cmn_load_f32(xp, x_t), noise), out_t, op);
    else
        aug__store_f64(aug__noise_add_f64(aug__noise_load_f64(xp, x_t), noise), out_t, op);
}

#endif
