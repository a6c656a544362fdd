/* aug/normalize.h: crop_mirror_normalize (DALI's fn.crop_mirror_normalize) and
 * the fused Gaussian noise (docs/normalize.md).
 *
 * Output convention as in image.h: `aug_tensor **out`; *out == NULL allocates a
 * new tensor (caller frees), otherwise the result is written into *out (shape
 * and dtype as required, C-contiguous). Errors: aug_status with
 * "aug_<function>: ..." messages; nothing is written on a caller's mistake. */
#ifndef AUG_NORMALIZE_H
#define AUG_NORMALIZE_H

#include "random.h"
#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- crop_mirror_normalize ---------------------------------------------------- */

/* What happens to a crop window that reaches outside its image (DALI's
 * out_of_bounds_policy). */
typedef enum aug_oob_policy {
    AUG_OOB_ERROR = 0, /* AUG_ERR_VALUE naming the image, window and size (DALI's default) */
    AUG_OOB_PAD = 1,   /* values outside the image take fill_values */
    AUG_OOB_TRIM = 2   /* the window is cut to the image ("trim_to_shape") */
} aug_oob_policy;

/* The parameters of aug_crop_mirror_normalize. Arrays are host memory and are
 * only read during the call. */
typedef struct aug_cmn_params {
    int in_chw;              /* input layout: 0 (H, W, C) "HWC", 1 (C, H, W) "CHW" */
    int out_nhwc;            /* output layout: 0 channels first (N)CHW, 1 channels last (N)HWC */
    /* crop window size; 0 takes the image's extent (all images must then give
     * the same output size) */
    int64_t crop_h, crop_w;
    /* window position in [0, 1] as DALI's crop_pos_y / crop_pos_x: anchor =
     * round-half-away-from-zero(pos * (extent - crop)), the product in double */
    float crop_pos_y, crop_pos_x;
    const float *crop_pos;   /* NULL, or 2 n values (y, x) per image overriding the two above */
    const int64_t *anchors;  /* NULL, or 2 n explicit window anchors (y, x) per image (may be negative) */
    const uint8_t *mirror;   /* NULL, or n flags: non-zero flips that image's window horizontally */
    const float *mean;       /* NULL (0) or nmean values: 1 or C (input channels) */
    int nmean;
    const float *std;        /* NULL (1) or nstd values: 1 or C; finite and != 0 */
    int nstd;
    float scale, shift;      /* output = scale * (input - mean) / std + shift; scale finite != 0 */
    const float *fill;       /* NULL (0) or nfill values: 1, C or the output channel count */
    int nfill;
    aug_oob_policy oob;
    int pad_output;          /* pad the channels to the next power of two (3 -> 4), as DALI */
    /* The layouts as strings (aug/conventions.h), NULL by default: layout, the
     * input images' ("HWC" or "CHW"); out_layout, the output's ("NCHW" / "NHWC",
     * for one image "CHW" / "HWC"); other strings: AUG_ERR_VALUE "func: layout
     * 'X' is not supported (HWC, CHW)". NULL takes the flags in_chw / out_nhwc
     * above (the old spelling); with in_chw 0 an image 0 labelled "CHW" is read as CHW. */
    const char *layout, *out_layout;
} aug_cmn_params;

/* Defaults: layouts NULL (the flags: HWC in, or CHW for an image labelled
 * "CHW"; NCHW out), whole image, positions 0.5, no mirror, mean 0, std 1,
 * scale 1, shift 0, fill 0, AUG_OOB_ERROR, no channel padding. */
AUG_API aug_cmn_params aug_cmn_params_default(void);

/* Crop, mirror, normalise and convert n images src[i] ((H_i, W_i, C) or (C,
 * H_i, W_i) as p->in_chw says; any dtype, any strides, all on one device, the
 * same C) into out (n, C', h, w) or (n, h, w, C') of dtype out_dtype (C' = C,
 * or the next power of two with pad_output). Per output value, as DALI's CPU
 * operator computes it: mean' = float(fma(-shift, std / scale, mean)) and
 * inv = float(scale / std) in double per channel, then
 * saturate_cast<out_dtype>((float(x) - mean') * inv) in float32 IEEE
 * arithmetic, where float(x) is saturate_cast<float32>(x); when every mean' is
 * 0 and every inv is 1 the value is saturate_cast<out_dtype>(x) directly.
 * Values outside the image (AUG_OOB_PAD) and padded channels take the fill
 * value (padded channels take 0 unless the policy is AUG_OOB_PAD, as DALI),
 * saturate_cast to out_dtype. saturate_cast rounds half to even (DALI's CPU
 * rounds half away from zero; its GPU half to even). The output's layout is set
 * to "NCHW" / "NHWC". *out as above (a new one is C-contiguous). */
AUG_API aug_status aug_crop_mirror_normalize_batch(int64_t n, const aug_tensor *const *src, aug_dtype out_dtype,
                                                   const aug_cmn_params *p, aug_tensor **out);
/* One image: src 3-D, out (C', h, w) or (h, w, C'), layout "CHW" / "HWC". */
AUG_API aug_status aug_crop_mirror_normalize(const aug_tensor *src, aug_dtype out_dtype, const aug_cmn_params *p,
                                             aug_tensor **out);

/* ---- fused Gaussian noise -------------------------------------------------------- */

/* x and out both int8, uint8, int16 or uint16: out = saturate(x + k), k the
 * integer round(mean + std_n * N(0, 1)) drawn exactly by inverse CDF from one
 * 32-bit Philox word per element (word i mod 4 of counter (i / 4, call)), its
 * CDF quantised to 2^-32 (docs/semantics.md 11.2: the same bytes on every
 * backend). Otherwise:
 * out = saturate_cast<out dtype>(x + noise) in one pass, where noise is exactly
 * the float32 tensor aug_rng_gaussian(rng, noise, mean, std_n) would fill with
 * the generator's current state (element i in C order of x draws counter (i,
 * call); float32(mean + std_n * z) with z the float32 Box-Muller value), and
 * the addition is augpy.add(x, noise, out=out)'s: in the temp type of
 * promote(x dtype, float32), stored into out with saturate_cast. std_n is std
 * or, when stds is non-NULL, stds[n] for the n-th slice along x's first axis
 * (stds: float32, x->shape[0] values, on x's device or the CPU, which reads
 * them without waiting for the GPU). mean finite, std values
 * finite and >= 0. Counts one call of the generator, as the fill would. x:
 * any dtype and strides; *out: NULL -> new C-contiguous tensor of x's shape
 * and dtype, else x's shape (any dtype, any non-self-overlapping strides); it
 * may be x itself (same view) but must not otherwise overlap it. */
AUG_API aug_status aug_rng_gaussian_noise(aug_rng *rng, const aug_tensor *x, double mean, double std,
                                          const aug_tensor *stds, aug_tensor **out);

#ifdef __cplusplus
}
#endif

#endif
