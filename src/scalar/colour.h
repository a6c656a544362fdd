/* scalar/colour.h: the per-pixel colour rules (private, shared by every backend):
 * torchvision's adjust_brightness / contrast / saturation / hue, rgb_to_grayscale
 * and RGB <-> HSV, written as the float32 operations torch performs, in its order
 * (docs/colour.md gives the derivation).
 *
 * torch computes `a.mul(r).add_(b, alpha=s)` as fma(b, s, a * r) (its CPU kernels
 * use a fused multiply-add for add with alpha), so blend and grayscale use fmaf;
 * everything else is single float32 operations. uint8 values travel as floats
 * holding integers 0..255: every uint8 step ends with truncation (torch's
 * `.to(uint8)` after clamp), hue converts with x * (1/255) and back with
 * trunc(v * 255.999) (torchvision's to_dtype scale rule). uint16 values travel
 * the same way with the bound 65535 (torchvision v2's _max_value(uint16)); its
 * hue converts with x * (float)(1/65535) and back with min(trunc(v * 65536),
 * 65535): (float)65535.999 is 65536, so this is torchvision's to_dtype in
 * float32 with the saturation its `.to(uint16)` lacks (v = 1 gives 65535, not
 * a wrapped 0).
 *
 * The rules' `u8` argument is the value class of the plan: AUG__COLOUR_CLS_F
 * (float, bound 1), AUG__COLOUR_CLS_U8 or AUG__COLOUR_CLS_U16 (integers held in
 * floats, truncated after each step); nonzero means integer. */
#ifndef AUG_SCALAR_COLOUR_H
#define AUG_SCALAR_COLOUR_H

#include "hd.h"

/* Value classes (aug__colour_plan.u8). */
#define AUG__COLOUR_CLS_F 0
#define AUG__COLOUR_CLS_U8 1
#define AUG__COLOUR_CLS_U16 2

/* The steps of a jitter, torchvision ColorJitter's fn_idx numbering. */
#define AUG__COLOUR_BRIGHTNESS 0
#define AUG__COLOUR_CONTRAST 1
#define AUG__COLOUR_SATURATION 2
#define AUG__COLOUR_HUE 3

/* One step: kind, ratio = (float)factor, alpha = (float)(1.0 - factor) (blend
 * steps), or ratio = (float)hue_factor. */
typedef struct aug__colour_step {
    int kind;
    float ratio, alpha;
} aug__colour_step;

/* One image of a jitter: its steps in order (skipped ones left out); the
 * contrast step's position or -1 (the backend computes that image's mean of the
 * grayscale after the steps before it). */
typedef struct aug__colour_image {
    aug__colour_step step[4];
    int nsteps;
    int contrast_at;
} aug__colour_image;

/* clamp_(0, bound); NaN passes through as in torch.clamp. Two selects on v
 * rather than nested ones: GCC's vectoriser makes a nested select a three-way
 * blend of nine instructions, these two are four. */
AUG_HD_ALWAYS float aug__colour_clamp(float v, float bound) {
    float c = v > bound ? bound : v;
    c = v < 0.0f ? 0.0f : c;
    return c;
}

/* r.mul(0.2989).add_(g, alpha=0.587).add_(b, alpha=0.114) in float32. */
AUG_HD_ALWAYS float aug__colour_gray(float r, float g, float b) {
    return fmaf(b, 0.114f, fmaf(g, 0.587f, r * 0.2989f));
}

/* _blend: x.mul(ratio).add_(y, alpha=1 - ratio).clamp_(0, bound). */
AUG_HD_ALWAYS float aug__colour_blend(float x, float y, float ratio, float alpha, float bound) {
    return aug__colour_clamp(fmaf(y, alpha, x * ratio), bound);
}

/* fmod(a, 1) for finite a: the fractional part a - trunc(a) is a float and the
 * subtraction is exact, so this is fmodf's value (up to the sign of a zero
 * result, which no caller's result depends on) without a library call; the
 * hot loops vectorise. inf and NaN give NaN, as fmodf does. */
AUG_HD_ALWAYS float aug__colour_frac(float a) { return a - truncf(a); }

/* torchvision's _rgb_to_hsv for one pixel (float32, its operation order),
 * branch-free so that a loop of it vectorises. torchvision divides all three
 * of rc, gc, bc = (maxc - (r, g, b)) / crd and then picks hh = bc - gc (red
 * is the max), (rc + 2) - bc (green) or (gc + 4) - rc (blue): here the two
 * numerators of the picked hh are selected first and only they are divided,
 * as (a / crd + k) - c / crd with k = -0, 2, 4: the same operations on the
 * same values (x + -0 is x, bit for bit, for every x), one division fewer. */
AUG_HD_ALWAYS void aug__colour_rgb_to_hsv(float r, float g, float b, float *h, float *s, float *v) {
    float maxc = r > g ? r : g, minc = r < g ? r : g;
    maxc = maxc > b ? maxc : b;
    minc = minc < b ? minc : b;
    const int eqc = maxc == minc;
    const float cr = maxc - minc;
    *s = cr / (eqc ? 1.0f : maxc);
    const float crd = eqc ? 1.0f : cr;
    const int rmax = maxc == r, gmax = maxc == g;
    const float a = maxc - (rmax ? b : (gmax ? r : g)), c = maxc - (rmax ? g : (gmax ? b : r));
    const float k = rmax ? -0.0f : (gmax ? 2.0f : 4.0f);
    const float hh = (a / crd + k) - c / crd;
    /* h.mul_(1/6).add_(1).fmod_(1); (float)(1.0 / 6.0) = 0.16666667f */
    *h = aug__colour_frac(hh * 0.16666667f + 1.0f);
    *v = maxc;
}

/* The bits of a where the mask m is set, of b elsewhere: a select that stays
 * branch-free in scalar builds (vectorised, it is one blend). */
AUG_HD_ALWAYS uint32_t aug__colour_sel(uint32_t m, uint32_t a, uint32_t b) { return (a & m) | (b & ~m); }

/* _hsv_to_rgb's gather: the sector sec (0..5; 6 or NaN count as 0) picks
 * (r, g, b) from (v, p, q, t) as torchvision's table does,
 *     sector  0  1  2  3  4  5  6
 *          r  v  q  p  p  t  v  v
 *          g  t  v  v  q  p  p  t
 *          b  p  p  t  v  v  q  p
 * as a chain of bit selects on sec >= 1..6 (NaN passes none): twelve blends
 * after vectorising, and no branches in a scalar build. */
AUG_HD_ALWAYS void aug__colour_hsv_gather(float h6, float fi, float sec, float s, float v, float *r, float *g,
                                          float *b) {
    const float f = h6 - fi, sxf = s * f, oms = 1.0f - s;
    const uint32_t q = aug__f32_bits(aug__colour_clamp((1.0f - sxf) * v, 1.0f));
    const uint32_t t = aug__f32_bits(aug__colour_clamp((sxf + oms) * v, 1.0f));
    const uint32_t p = aug__f32_bits(aug__colour_clamp(oms * v, 1.0f)), vv = aug__f32_bits(v);
    const uint32_t ge1 = 0u - (uint32_t)(sec >= 1.0f), ge2 = 0u - (uint32_t)(sec >= 2.0f);
    const uint32_t ge3 = 0u - (uint32_t)(sec >= 3.0f), ge4 = 0u - (uint32_t)(sec >= 4.0f);
    const uint32_t ge5 = 0u - (uint32_t)(sec >= 5.0f), ge6 = 0u - (uint32_t)(sec >= 6.0f);
    uint32_t x0 = vv, x1 = t, x2 = p;
    x0 = aug__colour_sel(ge1, q, x0), x1 = aug__colour_sel(ge1, vv, x1);
    x0 = aug__colour_sel(ge2, p, x0), x2 = aug__colour_sel(ge2, t, x2);
    x1 = aug__colour_sel(ge3, q, x1), x2 = aug__colour_sel(ge3, vv, x2);
    x0 = aug__colour_sel(ge4, t, x0), x1 = aug__colour_sel(ge4, p, x1);
    x0 = aug__colour_sel(ge5, vv, x0), x2 = aug__colour_sel(ge5, q, x2);
    x1 = aug__colour_sel(ge6, t, x1), x2 = aug__colour_sel(ge6, p, x2);
    *r = aug__bits_f32(x0), *g = aug__bits_f32(x1), *b = aug__bits_f32(x2);
}

/* torchvision's _hsv_to_rgb for one pixel. The sector i = floor(6h) mod 6 (an
 * int32 remainder in torch) picks (r, g, b) from (v, p, q, t) as its gather
 * table does. Sectors of h outside +-2^30 (and NaN) count as sector 0. */
AUG_HD_ALWAYS void aug__colour_hsv_to_rgb(float h, float s, float v, float *r, float *g, float *b) {
    const float h6 = h * 6.0f, fi = floorf(h6);
    const float fc = fi >= -1073741824.0f && fi <= 1073741824.0f ? fi : 0.0f;
    int i = (int)fc % 6;
    i = i < 0 ? i + 6 : i;
    aug__colour_hsv_gather(h6, fi, (float)i, s, v, r, g, b);
}

/* aug__colour_hsv_to_rgb for h in [0, 1] or NaN (the hue step's h): floor(6h)
 * is 0..6 or NaN, where 6 and NaN are sector 0 as for the gather, so floor(6h)
 * is the gather's sector as it is (no int conversion, no remainder). */
AUG_HD_ALWAYS void aug__colour_hsv_to_rgb_unit(float h, float s, float v, float *r, float *g, float *b) {
    const float h6 = h * 6.0f, fi = floorf(h6);
    aug__colour_hsv_gather(h6, fi, fi, s, v, r, g, b);
}

/* torch.remainder(a, 1.0) for float32: fmod, then + 1 when negative. */
AUG_HD_ALWAYS float aug__colour_rem1(float a) {
    const float m = aug__colour_frac(a);
    return m < 0.0f ? m + 1.0f : m;
}

/* adjust_hue's first half on one float pixel: its HSV with h turned by hue.
 * rem1 leaves h in [0, 1] or NaN (m + 1 may round to 1), the domain of
 * aug__colour_hsv_to_rgb_unit, the second half. */
AUG_HD_ALWAYS void aug__colour_hue_hsv(float r, float g, float b, float hue, float *h, float *s, float *v) {
    aug__colour_rgb_to_hsv(r, g, b, h, s, v);
    *h = aug__colour_rem1(*h + hue);
}

/* adjust_hue of one float pixel (values nominally in [0, 1]). */
AUG_HD_ALWAYS void aug__colour_hue(float *r, float *g, float *b, float hue) {
    float h, s, v;
    aug__colour_hue_hsv(*r, *g, *b, hue, &h, &s, &v);
    aug__colour_hsv_to_rgb_unit(h, s, v, r, g, b);
}

/* uint8 -> float32 with scale: x.to(float32).mul_(1.0 / 255). */
#define AUG__COLOUR_U8_TO_F 0.0039215689f
/* float32 -> uint8 with scale: x.mul(255 + 1 - 1e-3).to(uint8). */
#define AUG__COLOUR_F_TO_U8 255.999f
/* uint16 -> float32: x.to(float32).mul_(1.0 / 65535) ((float)(1.0 / 65535)). */
#define AUG__COLOUR_U16_TO_F 1.5259022e-05f
/* float32 -> uint16: x.mul(65535 + 1 - 1e-3), (float)65535.999 = 65536. */
#define AUG__COLOUR_F_TO_U16 65536.0f

/* The clamp bound of value class cls: 1, 255 or 65535. */
AUG_HD_ALWAYS float aug__colour_bound(int cls) {
    return cls == AUG__COLOUR_CLS_U16 ? 65535.0f : cls ? 255.0f : 1.0f;
}

/* A hue result v in [0, 1] back to uint16: trunc(v * 65536) saturated at 65535. */
AUG_HD_ALWAYS float aug__colour_f_to_u16(float v) {
    const float y = truncf(v * AUG__COLOUR_F_TO_U16);
    return y > 65535.0f ? 65535.0f : y;
}

/* The steps on one pixel. u8: the values are uint8 integers held in floats
 * and the step truncates its result (torch's .to(uint8) after the clamp). */

/* adjust_brightness / adjust_contrast on one value (contrast: blend with mean). */
AUG_HD_ALWAYS float aug__colour_step_value(int kind, int u8, float ratio, float alpha, float mean, float x) {
    const float bound = aug__colour_bound(u8);
    float y = kind == AUG__COLOUR_BRIGHTNESS ? aug__colour_clamp(x * ratio, bound)
                                             : aug__colour_blend(x, mean, ratio, alpha, bound);
    return u8 ? truncf(y) : y;
}

/* adjust_saturation on an RGB pixel: blend with its grayscale (floored for uint8). */
AUG_HD_ALWAYS void aug__colour_step_saturation(int u8, float ratio, float alpha, float *r, float *g, float *b) {
    const float bound = aug__colour_bound(u8);
    float gray = aug__colour_gray(*r, *g, *b);
    if (u8) gray = floorf(gray);
    const float x0 = aug__colour_blend(*r, gray, ratio, alpha, bound);
    const float x1 = aug__colour_blend(*g, gray, ratio, alpha, bound);
    const float x2 = aug__colour_blend(*b, gray, ratio, alpha, bound);
    *r = u8 ? truncf(x0) : x0;
    *g = u8 ? truncf(x1) : x1;
    *b = u8 ? truncf(x2) : x2;
}

/* adjust_hue on an RGB pixel (uint8: through x * (1/255) and trunc(v * 255.999);
 * uint16: through x * (1/65535) and aug__colour_f_to_u16). */
AUG_HD_ALWAYS void aug__colour_step_hue(int u8, float hue, float *r, float *g, float *b) {
    if (u8 == AUG__COLOUR_CLS_U16) {
        float x0 = *r * AUG__COLOUR_U16_TO_F, x1 = *g * AUG__COLOUR_U16_TO_F, x2 = *b * AUG__COLOUR_U16_TO_F;
        aug__colour_hue(&x0, &x1, &x2, hue);
        *r = aug__colour_f_to_u16(x0);
        *g = aug__colour_f_to_u16(x1);
        *b = aug__colour_f_to_u16(x2);
    } else if (u8) {
        float x0 = *r * AUG__COLOUR_U8_TO_F, x1 = *g * AUG__COLOUR_U8_TO_F, x2 = *b * AUG__COLOUR_U8_TO_F;
        aug__colour_hue(&x0, &x1, &x2, hue);
        *r = truncf(x0 * AUG__COLOUR_F_TO_U8);
        *g = truncf(x1 * AUG__COLOUR_F_TO_U8);
        *b = truncf(x2 * AUG__COLOUR_F_TO_U8);
    } else {
        aug__colour_hue(r, g, b, hue);
    }
}

/* Steps [from, to) of image d on one pixel (c = 1 or 3 channels; with one
 * channel saturation and hue leave it unchanged, as in torchvision). mean: the
 * image's grayscale mean for the contrast step. */
AUG_HD_ALWAYS void aug__colour_steps(const aug__colour_image *d, int from, int to, int c, int u8, float mean, float *r,
                                     float *g, float *b) {
    for (int k = from; k < to; k++) {
        const int kind = d->step[k].kind;
        const float ratio = d->step[k].ratio, alpha = d->step[k].alpha;
        if (kind == AUG__COLOUR_BRIGHTNESS || kind == AUG__COLOUR_CONTRAST) {
            *r = aug__colour_step_value(kind, u8, ratio, alpha, mean, *r);
            if (c == 3) {
                *g = aug__colour_step_value(kind, u8, ratio, alpha, mean, *g);
                *b = aug__colour_step_value(kind, u8, ratio, alpha, mean, *b);
            }
        } else if (c == 3 && kind == AUG__COLOUR_SATURATION) {
            aug__colour_step_saturation(u8, ratio, alpha, r, g, b);
        } else if (c == 3 && kind == AUG__COLOUR_HUE) {
            aug__colour_step_hue(u8, ratio, r, g, b);
        }
    }
}

/* The value the contrast step averages for one pixel: the grayscale (floored
 * for uint8) of a 3-channel pixel, the value itself for one channel. */
AUG_HD_ALWAYS float aug__colour_mean_term(int c, int u8, float r, float g, float b) {
    if (c != 3) return r;
    float gray = aug__colour_gray(r, g, b);
    return u8 ? floorf(gray) : gray;
}

/* The mean from the exact-order sum (rows summed left to right in double, the
 * row sums in row order): (float)sum / (float)count, which is torch's float32
 * mean whenever the sum is exact in float32 (uint8 images below 2^24 / 255
 * pixels). For uint16 the sum is exact in double (below 2^53 / 65535 pixels)
 * and rounded once to float32 (torch's float32 sum of such an image rounds at
 * each step). */
AUG_HD_ALWAYS float aug__colour_mean(double sum, int64_t count) { return (float)sum / (float)count; }

#endif
