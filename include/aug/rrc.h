/* aug/rrc.h: RandomResizedCrop parameters (torchvision's sampler on the
 * library's Philox generator) and scaled-decode plans: which libjpeg DCT scale
 * M/8 and which region to decode for a warp, with the warp matrix adjusted to
 * that decode (docs/rrc.md). Host-side arithmetic only: the results feed
 * aug_decoder_decode_region / aug_decoder_decode_as and aug_warp_affine. */
#ifndef AUG_RRC_H
#define AUG_RRC_H

#include "image.h"
#include "random.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How to decode an image for one warp: decode region roi = {y, x, h, w} of the
 * image scaled by scale_m/8, then warp it with matrix and supersampling. */
typedef struct aug_decode_plan {
    int scale_m;     /* 1..8 */
    int64_t roi[4];  /* in the scaled image, ceil(H*M/8) x ceil(W*M/8) (libjpeg's rounding) */
    float matrix[6]; /* output pixel -> pixel of the decoded region (aug_warp_affine's inverse map) */
    int supersampling;
} aug_decode_plan;

/* Plans the decode for a warp of a src_height x src_width image to
 * out_height x out_width with matrix (output pixel -> source pixel, as from
 * aug_make_affine_matrix) and supersampling (1..AUG_MAX_SUPERSAMPLING).
 *
 * dct_scale != 0: M is the smallest of 1, 2, 4, 8 for which the scaled image
 * still has at least one pixel per output pixel in every direction:
 * sigma_min * M/8 >= 1 with sigma_min the smaller singular value of the
 * matrix's 2x2 part (M = 8 when sigma_min < 2, e.g. when the warp enlarges
 * somewhere). Powers of two only: libjpeg-turbo's 8-, 4-, 2- and 1-point
 * IDCTs are SIMD, its 3..7-point ones (and the 6..14-point ones they pair
 * with for 4:2:0 chroma) scalar, which makes a 5/8..7/8 decode slower than a
 * full one. libjpeg's scaled pixel k averages
 * (its IDCT) source pixels [8k/M, 8(k+1)/M): its centre is source position
 * (k + 1/2) 8/M - 1/2, so the scaled matrix is A M/8 with translation
 * (t + 1/2) M/8 - 1/2. dct_scale == 0: M = 8.
 * The supersampling is recomputed for the decode:
 * min(supersampling, max(1, ceil(r M/8 - 1))) with r = sqrt(|det A|)
 * (make_affine_matrix's r when there is no shear): the decode already
 * averaged (8/M)^2 source pixels per scaled pixel (a box-like prefilter), and
 * below 2 scaled pixels per output pixel each of them lies within the
 * bilinear kernel's 2-pixel support of an output pixel, so s = 1 there
 * (r M/8 is in [1, 2) whenever M < 8 and the warp has no strong anisotropy).
 * dct_scale == 0 keeps the given supersampling.
 * use_roi != 0: roi is the bounding box of every pixel the warp can read (the
 * output footprint [-1/2, out - 1/2] mapped through the scaled matrix, its
 * bilinear neighbours and one pixel of margin), clipped to the scaled image
 * (at least 1 x 1), and the matrix's translation is moved to the roi's
 * origin: warping the roi decode equals warping the whole scaled decode (at
 * M = 8 exactly, as the region decode's pixels are the full decode's).
 * use_roi == 0: roi is the whole scaled image.
 * AUG_ERR_VALUE ("aug_plan_decode: ...") for NULL pointers, sizes <= 0, a
 * non-finite matrix value or supersampling outside [1, AUG_MAX_SUPERSAMPLING];
 * *plan is written only on success. */
AUG_API aug_status aug_plan_decode(const float matrix[6], int64_t src_height, int64_t src_width, int64_t out_height,
                                   int64_t out_width, int supersampling, int dct_scale, int use_roi,
                                   aug_decode_plan *plan);

/* aug_plan_decode at a given scale: scale_m (1, 2, 4 or 8) in place of the
 * planner's choice, everything else (the scaled matrix, the supersampling
 * rule, the roi) as aug_plan_decode with dct_scale != 0. So a plan whose
 * scale was recorded replays: aug_plan_decode_at(..., plan.scale_m, ...)
 * equals the aug_plan_decode(..., 1, ...) that chose it. A scale below the
 * planner's choice gives the warp fewer than one decoded pixel per output
 * pixel in some direction (allowed: the caller asked for it).
 * AUG_ERR_VALUE ("aug_plan_decode_at: ...") for scale_m not 1, 2, 4 or 8 and
 * as aug_plan_decode otherwise; *plan is written only on success. */
AUG_API aug_status aug_plan_decode_at(const float matrix[6], int64_t src_height, int64_t src_width,
                                      int64_t out_height, int64_t out_width, int supersampling, int scale_m,
                                      int use_roi, aug_decode_plan *plan);

/* Parameters of aug_random_resized_crop (torchvision's RandomResizedCrop). */
typedef struct aug_rrc_params {
    double scale_min, scale_max; /* area fraction of the crop: finite, 0 < min <= max (default 0.08, 1) */
    double ratio_min, ratio_max; /* aspect w/h: finite, 0 < min <= max (default 3/4, 4/3) */
    double hflip;                /* probability of a horizontal mirror, in [0, 1] (default 0) */
    int max_supersampling;       /* 1..AUG_MAX_SUPERSAMPLING (default 3) */
    int dct_scale;               /* plan a DCT-scaled decode (default 1; 0 for PNG) */
    int use_roi;                 /* plan a region decode (default 1) */
} aug_rrc_params;

AUG_API aug_rrc_params aug_rrc_params_default(void);

/* One image's crop, its warp and its decode plan. */
typedef struct aug_rrc {
    int64_t crop[4];      /* y, x, h, w in the full image (torchvision's i, j, h, w) */
    int hflip;            /* mirrored horizontally */
    float matrix[6];      /* output pixel -> full-image pixel: X -> x + (X + 1/2) w / out_w - 1/2
                             (pixel centres, as torchvision's resize); mirrored: out_w - 1 - X */
    int supersampling;    /* for matrix: max(1, min(max_supersampling, ceil(sqrt(h w / (out_h out_w)) - 1e-9))) */
    aug_decode_plan plan; /* aug_plan_decode(matrix, ..., params->dct_scale, params->use_roi) */
} aug_rrc;

/* Samples n crops, image k of size heights[k] x widths[k] (> 0), with
 * torchvision's RandomResizedCrop.get_params: up to 10 tries of area
 * fraction U(scale_min, scale_max) and aspect exp(U(log ratio_min, log
 * ratio_max)), w = round(sqrt(area * aspect)), h = round(sqrt(area / aspect))
 * (round half to even, as Python's round), accepted when 0 < w <= W and
 * 0 < h <= H, then y, x uniform integers in [0, H - h], [0, W - w]; else the
 * centre crop of the whole image clamped to the ratio range. Then mirror with
 * probability hflip and build the matrices for an out_height x out_width
 * output.
 * Draws: one call of rng's counter n (it then increments, as a fill does);
 * image k, try t reads Philox block (counter (lo32(i), hi32(i), lo32(n),
 * hi32(n)), key the seed) i = 16k + t, its two 64-bit draws a, b giving the area
 * and log-aspect uniforms (a >> 11) 2^-53; block 16k + 10 the position
 * (y = floor(a (H - h + 1) / 2^64), x likewise from b); block 16k + 11 the
 * mirror ((a >> 11) 2^-53 < hflip). So a batch is reproducible from (seed, n)
 * and image k's crop does not depend on n's other images.
 * AUG_ERR_VALUE ("aug_random_resized_crop: ...") for a NULL rng/out/sizes
 * (n > 0), n < 0, a size <= 0, a scale or ratio range that is not finite,
 * <= 0 or min > max, hflip outside [0, 1] or NaN, max_supersampling outside
 * [1, AUG_MAX_SUPERSAMPLING]; out and rng are untouched then. */
AUG_API aug_status aug_random_resized_crop(aug_rng *rng, int64_t n, const int64_t *heights, const int64_t *widths,
                                           int64_t out_height, int64_t out_width, const aug_rrc_params *params,
                                           aug_rrc *out);

/* The same crops with one generator state per image (the per-sample streams of
 * aug/random.h): image k is drawn exactly as image 0 of aug_random_resized_crop
 * on a generator at state states[k], i.e. its try t reads Philox block
 * (counter (t, 0, lo32(c), hi32(c)), key states[k].seed) with c =
 * states[k].calls, the position block 10 and the mirror block 11. So image k
 * depends only on states[k], heights[k], widths[k] and the parameters. No
 * generator is advanced; states, heights and widths are borrowed (n values
 * each), out gets n results. AUG_ERR_VALUE ("aug_random_resized_crop_states:
 * ...") as aug_random_resized_crop, and for NULL states with n > 0; out is
 * untouched then. */
AUG_API aug_status aug_random_resized_crop_states(const aug_rng_state *states, int64_t n, const int64_t *heights,
                                                  const int64_t *widths, int64_t out_height, int64_t out_width,
                                                  const aug_rrc_params *params, aug_rrc *out);

/* The evaluation transform of ImageNet models (torchvision's Resize(resize)
 * then CenterCrop((out_height, out_width))) as one warp matrix (output pixel
 * -> source pixel) for a src_height x src_width image: the shorter side
 * becomes resize, the longer int(resize * long / short) (truncated, as
 * torchvision), the crop starts at int(round((resized - out) / 2.0)) (half
 * to even), and pixel centres map as torchvision's resize. *supersampling
 * (may be NULL) gets max(1, min(max_supersampling, ceil(short / resize -
 * 1e-9))). AUG_ERR_VALUE ("aug_resize_center_crop_matrix: ...") for sizes or
 * resize <= 0 or max_supersampling outside [1, AUG_MAX_SUPERSAMPLING]. A crop
 * larger than the resized image reads outside it (background), as
 * torchvision's CenterCrop pads. */
AUG_API aug_status aug_resize_center_crop_matrix(int64_t src_height, int64_t src_width, int64_t resize,
                                                 int64_t out_height, int64_t out_width, int max_supersampling,
                                                 float matrix[6], int *supersampling);

#ifdef __cplusplus
}
#endif
#endif
