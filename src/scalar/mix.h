/* scalar/mix.h: the per-value rule of aug_mix_mirror (MixUp's blend of an image
 * with its mirror in the batch), shared by the CPU and CUDA backends (private).
 *
 * The blend is a * w + b * v in the image's dtype exactly as augpy's mul / add
 * compose it today (timm's x.mul_(lam).add_(x.flip(0).mul_(1 - lam))): the
 * weights rounded to the compute type (float32 for float32, float16 and
 * bfloat16, as a weak scalar is; float64 for float64), each product rounded,
 * then the sum rounded. float16 / bfloat16 compute in float32 and round each
 * product and the sum to their own format (IEEE: +-inf beyond the range), as
 * mul and add do (semantics §1, §9). No FMA: -ffp-contract=off and nvcc's
 * --fmad=false keep the products separate. */
#ifndef AUG_SCALAR_MIX_H
#define AUG_SCALAR_MIX_H

#include "float16.h"

/* What a mixed image's value becomes at one position (uniform over a row segment). */
enum {
    AUG__MIX_KEEP = 0,  /* its own value: weights exactly (1, 0) and no box (timm skips lam = 1) */
    AUG__MIX_CUT = 1,   /* inside its box: the mirror's value */
    AUG__MIX_BLEND = 2  /* a * w + b * v */
};

AUG_HD float aug__mix_f32(float a, float b, float w, float v) {
    const float p = a * w, q = b * v;
    return p + q;
}

AUG_HD double aug__mix_f64(double a, double b, double w, double v) {
    const double p = a * w, q = b * v;
    return p + q;
}

AUG_HD aug__f16 aug__mix_f16(aug__f16 a, aug__f16 b, float w, float v) {
    const aug__f16 p = aug__f32_to_f16_ieee(aug__f16_to_f32(a) * w), q = aug__f32_to_f16_ieee(aug__f16_to_f32(b) * v);
    return aug__f32_to_f16_ieee(aug__f16_to_f32(p) + aug__f16_to_f32(q));
}

AUG_HD aug__bf16 aug__mix_bf16(aug__bf16 a, aug__bf16 b, float w, float v) {
    const aug__bf16 p = aug__f32_to_bf16_ieee(aug__bf16_to_f32(a) * w),
                    q = aug__f32_to_bf16_ieee(aug__bf16_to_f32(b) * v);
    return aug__f32_to_bf16_ieee(aug__bf16_to_f32(p) + aug__bf16_to_f32(q));
}

#endif
