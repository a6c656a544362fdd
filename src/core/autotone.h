/* core/autotone.h: the autotone family's plan and rules (private; aug_equalize,
 * aug_autocontrast and aug_adjust_sharpness in aug/colour.h, docs/colour.md).
 *
 * An autotone op maps each channel of each image through what it learns from
 * that whole channel (a "plane" of H x W values): torchvision v2's equalize (a
 * 256-bin histogram, then a lookup table; 65536 bins for uint16), autocontrast (the plane's minimum
 * and maximum, then a linear stretch) and adjust_sharpness (a 3 x 3 smoothing
 * of the plane blended with it, its border kept). Unlike the tone family's
 * per-value rules these need the image's geometry: the plan carries N, C, H, W
 * and whether the channels are last (HWC, NHWC) or first (CHW, NCHW, HW).
 * The core checks the image, packs a strided one (or one sharpened in place)
 * into a contiguous copy, allocates the output and prepares the per-image
 * operands; a backend runs the rules below plane by plane. The CPU (gcc, C11)
 * and the CUDA kernels (nvcc, and g++ for the emulation) compile the same
 * rules; the statistics are order-free (integer counts, a minimum and a
 * maximum with NaN and signed zeros settled), so both backends store the same
 * bits. The float32 arithmetic is torchvision's, operation for operation
 * (fused multiply-adds where its CPU kernels fuse them).
 *
 * The rules take the value class cls of the image: 0 float32 (bound 1), 1
 * uint8 (bound 255), 2 uint16 (bound 65535, torchvision v2's _max_value);
 * integer results are truncated as torch's .to(dtype) after its clamp. */
#ifndef AUG_CORE_AUTOTONE_H
#define AUG_CORE_AUTOTONE_H

#include <math.h>
#include "backend.h"
#include "scalar/hd.h"

enum aug__autotone_kind {
    AUG__AUTOTONE_AUTOCONTRAST,
    AUG__AUTOTONE_EQUALIZE,
    AUG__AUTOTONE_SHARPNESS,
    AUG__AUTOTONE_NKINDS
};

struct aug__autotone_plan {
    const char *func;
    int kind;                /* enum aug__autotone_kind */
    int dtype;               /* AUG_UINT8, AUG_UINT16 or AUG_FLOAT32 */
    int channels_last;       /* 1: (N, H, W, C) values, else (N, C, H, W) */
    int64_t images, channels, height, width; /* each >= 1; H * W < 2^31 */
    const float *alpha;      /* sharpness: host memory, 1 - factor per image (alphas values) */
    int64_t alphas;          /* 1 (every image) or images */
    const char *src;         /* images * channels * height * width contiguous values (backend memory) */
    char *dst;               /* the same count; == src only for autocontrast and equalize */
    aug__exec exec;
};

/* ---- autocontrast ---- */

/* The running minimum and maximum of a plane: any NaN wins, and -0 is below +0,
 * so that the result does not depend on the order the values come in. */
AUG_HD float aug__autotone_min(float a, float b) {
    return (b < a || b != b || (b == a && signbit(b))) ? b : a;
}
AUG_HD float aug__autotone_max(float a, float b) {
    return (b > a || b != b || (b == a && !signbit(b))) ? b : a;
}

/* The value class of a dtype (see above). */
AUG_HD int aug__autotone_cls(int dtype) { return dtype == AUG_UINT8 ? 1 : dtype == AUG_UINT16 ? 2 : 0; }

/* A plane's offset and divisor from its minimum and maximum (as float32; bound
 * 255 for uint8, 65535 for uint16, 1 for float32): a flat plane (lo == hi)
 * keeps its values (offset 0, divisor 1), else (x - lo) / ((hi - lo) * (1 /
 * bound)), 1 / bound a float32 as torch converts the Python scalar. */
typedef struct aug__autotone_stretch {
    float off, inv;
} aug__autotone_stretch;

AUG_HD aug__autotone_stretch aug__autocontrast_stretch(float lo, float hi, int cls) {
    aug__autotone_stretch s;
    if (hi == lo) {
        s.off = 0.0f, s.inv = 1.0f;
    } else {
        s.off = lo, s.inv = (hi - lo) * (cls == 2 ? (float)(1.0 / 65535.0) : cls ? (float)(1.0 / 255.0) : 1.0f);
    }
    return s;
}
AUG_HD float aug__autocontrast_f32(float x, aug__autotone_stretch s) {
    const float y = (x - s.off) / s.inv;
    return y < 0.0f ? 0.0f : y > 1.0f ? 1.0f : y; /* NaN stays NaN */
}
AUG_HD uint8_t aug__autocontrast_u8(uint8_t x, aug__autotone_stretch s) {
    const float y = ((float)x - s.off) / s.inv;
    return (uint8_t)(y < 0.0f ? 0.0f : y > 255.0f ? 255.0f : y); /* truncated, as torch's .to(uint8) */
}
AUG_HD uint16_t aug__autocontrast_u16(uint16_t x, aug__autotone_stretch s) {
    const float y = ((float)x - s.off) / s.inv;
    return (uint16_t)(y < 0.0f ? 0.0f : y > 65535.0f ? 65535.0f : y); /* truncated, as torch's .to(uint16) */
}

/* ---- equalize ---- */

/* A float32 value as the uint8 level equalize bins it by: torchvision's
 * to_dtype(scale=True), x * 255.999 truncated; outside [0, 1] (where torch's
 * conversion is undefined) clamped to 0..255, NaN to 0. */
AUG_HD uint8_t aug__equalize_level(float x) {
    const float y = x * (float)255.999;
    return (uint8_t)(y >= 0.0f ? (y < 255.0f ? y : 255.0f) : 0.0f);
}
/* A level back to float32, as to_dtype(scale=True) does: l * (1 / 255). */
AUG_HD float aug__equalize_value(uint8_t l) { return (float)l * (float)(1.0 / 255.0); }

/* The lookup table of a plane's 256-bin histogram (PIL's rule as torchvision
 * v2 writes it): step = (values - count of the highest level present) / 255;
 * step 0 leaves the levels as they are, else lut[0] = 0 and lut[k] =
 * min((cum[k - 1] + step / 2) / step, 255), cum the running count. */
AUG_HD void aug__equalize_lut(const uint32_t *hist, uint8_t *lut) {
    uint32_t total = 0, top = 0;
    for (int k = 0; k < 256; k++) {
        total += hist[k];
        if (hist[k]) top = hist[k];
    }
    const uint32_t step = (total - top) / 255u;
    if (step == 0) {
        for (int k = 0; k < 256; k++) lut[k] = (uint8_t)k;
        return;
    }
    uint32_t cum = 0;
    lut[0] = 0;
    for (int k = 1; k < 256; k++) {
        cum += hist[k - 1];
        const uint32_t v = (uint32_t)(((uint64_t)cum + step / 2u) / step);
        lut[k] = (uint8_t)(v > 255u ? 255u : v);
    }
}

/* uint16: 65536 bins and the same rule with the step kept exact, d / 65535
 * with d = values - count of the highest level present: lut[k] =
 * min(floor((cum[k - 1] * 65535 + floor(d / 2)) / d), 65535), d = 0 leaving
 * the levels as they are. (PIL's integer step, d / 65535 rounded down, is 0
 * for any plane of fewer than 65536 + top values, a 224 x 224 one among them,
 * and would leave it unchanged.) cum < 2^31: the product fits 64 bits. Only the
 * entries of levels present are computed (the others are never read). The
 * entry of level k from cum = cum[k - 1] and d > 0: */
AUG_HD uint16_t aug__equalize16_entry(uint64_t cum, uint64_t d) {
    const uint64_t v = (cum * 65535u + d / 2u) / d;
    return (uint16_t)(v > 65535u ? 65535u : v);
}

/* ---- adjust_sharpness ---- */

/* The blend of an interior value x with its 3 x 3 neighbourhood v (row by row,
 * v[4] == x): torchvision's conv2d with the kernel 1/13 around 5/13, summed in
 * this order with fused multiply-adds (as oneDNN does), rounded to an integer
 * for uint8 and uint16 (half to even), then x + alpha * (blurred - x) fused,
 * alpha = 1 - factor; the result clamped to [0, bound] (the caller truncates
 * integers). cls: the value class. */
AUG_HD float aug__sharpness_blend(const float *v, float alpha, int cls) {
    const float a = (float)(1.0 / 13.0), b = (float)(5.0 / 13.0);
    float acc = fmaf(v[0], a, 0.0f);
    acc = fmaf(v[1], a, acc);
    acc = fmaf(v[2], a, acc);
    acc = fmaf(v[3], a, acc);
    acc = fmaf(v[4], b, acc);
    acc = fmaf(v[5], a, acc);
    acc = fmaf(v[6], a, acc);
    acc = fmaf(v[7], a, acc);
    acc = fmaf(v[8], a, acc);
    if (cls) acc = rintf(acc);
    const float y = fmaf(acc - v[4], alpha, v[4]), bound = cls == 2 ? 65535.0f : cls ? 255.0f : 1.0f;
    return y < 0.0f ? 0.0f : y > bound ? bound : y;
}
/* A border value of a plane of at least 3 x 3: kept, clamped to [0, bound] as
 * torchvision clamps the whole output (planes of 2 rows or columns or fewer are
 * returned as they are, unclamped). */
AUG_HD float aug__sharpness_border_f32(float x) { return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }

#endif
