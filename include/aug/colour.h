/* aug/colour.h: colour adjustments with torchvision's semantics (docs/colour.md):
 * brightness, contrast, saturation, hue (torchvision.transforms.v2.functional
 * adjust_*), invert, rgb_to_grayscale, RGB <-> HSV, and a batch jitter with per-image
 * factors and step order (ColorJitter) done in one pass over the pixels.
 *
 * Images are (N, C, H, W) batches or (C, H, W) single images, any strides (a
 * strided view is read from one contiguous copy), uint8 (values 0..255) or float32 (nominally 0..1), C = 1 or 3 (RGB). uint8
 * results match torchvision bit for bit (its float32 arithmetic, clamp, then
 * truncation); float32 results match it except for the contrast mean's
 * summation order. Output convention as in image.h: *out == NULL allocates a
 * new tensor (caller frees), otherwise *out must have the result's shape and
 * dtype, be contiguous, and may be the input itself (in place) where the shapes
 * agree. Errors: aug_status with "aug_<function>: ..." messages. */
#ifndef AUG_COLOUR_H
#define AUG_COLOUR_H

#include "tensor.h"
#include "random.h"

#ifdef __cplusplus
extern "C" {
#endif

/* x * factor, clamped to [0, max]; factor finite and >= 0. */
AUG_API aug_status aug_adjust_brightness(const aug_tensor *im, double factor, aug_tensor **out);
/* blend with the mean of each image's grayscale (floored for uint8): x * f +
 * mean * (1 - f), clamped; factor finite and >= 0. */
AUG_API aug_status aug_adjust_contrast(const aug_tensor *im, double factor, aug_tensor **out);
/* blend with the pixel's grayscale; factor finite and >= 0; a 1-channel image
 * is returned unchanged (torchvision's rule). */
AUG_API aug_status aug_adjust_saturation(const aug_tensor *im, double factor, aug_tensor **out);
/* rotate the hue by factor (in [-0.5, 0.5]) turns through HSV in float32; a
 * 1-channel image is returned unchanged. */
AUG_API aug_status aug_adjust_hue(const aug_tensor *im, double factor, aug_tensor **out);

/* torchvision's invert: 255 - x for uint8 (max - x for uint16), 1 - x for
 * float32 and float64 (its bound for floats is 1.0), per value. Unlike the
 * functions above it takes any image layout: (H, W), (H, W, C), (C, H, W),
 * (N, H, W, C) or (N, C, H, W) (a layout string, when the image has one, must be
 * one of those; the result keeps it), any channel count, any strides (a strided
 * image is read from one contiguous copy). Output as above: out may be the image
 * itself (in place) when it is contiguous. */
AUG_API aug_status aug_invert(const aug_tensor *im, aug_tensor **out);
/* torchvision's posterize, with invert's images: an integer keeps its high
 * bits[i] bits (x & mask; bits >= 8 for uint8, >= 16 for uint16: unchanged), a
 * float becomes clamp(floor(x * 2^bits), 0, 2^bits - 1) / 2^bits in its own type.
 * bits: count host values in [0, 32], 1 (every image) or one per image of an
 * (N, ., ., .) batch (count == N). */
AUG_API aug_status aug_posterize(const aug_tensor *im, const int32_t *bits, int64_t count, aug_tensor **out);
/* torchvision's solarize, with invert's images: x >= threshold[i] ? invert(x) :
 * x, compared as torch compares an image with a Python float (in float32 for
 * the integer and float32 images, float64 for float64). threshold: count host
 * values, each <= the dtype's largest value (255, 65535, 1.0 for floats) and not
 * NaN, 1 (every image) or one per image of an (N, ., ., .) batch. */
AUG_API aug_status aug_solarize(const aug_tensor *im, const double *threshold, int64_t count, aug_tensor **out);
/* torchvision v2's equalize, channel by channel: a 256-bin histogram of the
 * channel, then PIL's lookup table (step = (values - count of the highest level
 * present) / 255; step 0 leaves the channel as it is; else level k becomes
 * min((cum[k - 1] + step / 2) / step, 255), cum the running count). A float32
 * image is binned as torchvision bins it, level = trunc(x * 255.999) (outside
 * [0, 1], where torch's conversion is undefined: clamped to 0..255), and comes
 * back as level * (1 / 255). Images: uint8 or float32, (H, W), (C, H, W), (H, W,
 * C) or a batch (N, C, H, W), (N, H, W, C), any channel count, any strides; the
 * layout string says where the channels are (without one: channels first, as
 * torchvision), and is kept. out may be the image itself (in place). */
AUG_API aug_status aug_equalize(const aug_tensor *im, aug_tensor **out);
/* torchvision v2's autocontrast, with equalize's images: each channel
 * stretched from its [min, max] to [0, bound] (255 for uint8, 1.0 for float32)
 * in float32, (x - min) / ((max - min) * (1 / bound)) clamped (truncated for
 * uint8); a flat channel (min == max) is kept; a NaN in a float32 channel
 * makes the channel NaN (torch's amin / amax propagate it). */
AUG_API aug_status aug_autocontrast(const aug_tensor *im, aug_tensor **out);
/* torchvision v2's adjust_sharpness, with equalize's images: each interior
 * value x of a channel becomes x + (1 - factor) * (blurred - x), blurred its
 * 3 x 3 smoothing (1/13 around 5/13; rounded to an integer for uint8), clamped
 * to [0, bound] (truncated for uint8); the border values are kept (clamped);
 * a channel of at most 2 rows or columns is returned as it is. factor: count
 * host values, finite and >= 0 (0 blurs, 1 keeps, 2 sharpens), 1 (every image)
 * or one per image of a batch (count == N). */
AUG_API aug_status aug_adjust_sharpness(const aug_tensor *im, const double *factor, int64_t count, aug_tensor **out);

/* 0.2989 R + 0.587 G + 0.114 B (float32, truncated for uint8) into 1 or 3
 * identical channels (num_output_channels 1 or 3); a 1-channel input is copied
 * (repeated for 3). The output has C = num_output_channels. */
AUG_API aug_status aug_rgb_to_grayscale(const aug_tensor *im, int num_output_channels, aug_tensor **out);
/* float32 RGB (C = 3) -> HSV with h, s in [0, 1) / [0, 1] and v = max(R, G, B),
 * and back (torchvision's _rgb_to_hsv / _hsv_to_rgb). */
AUG_API aug_status aug_rgb_to_hsv(const aug_tensor *im, aug_tensor **out);
AUG_API aug_status aug_hsv_to_rgb(const aug_tensor *im, aug_tensor **out);

/* The batch jitter: image n goes through brightness[n], contrast[n],
 * saturation[n], hue[n] (host arrays of N values; NULL skips that step for
 * every image) in the order order[4n .. 4n + 3] (a permutation of 0 brightness,
 * 1 contrast, 2 saturation, 3 hue, torchvision's fn_idx; NULL: 0, 1, 2, 3), each
 * step exactly as the single functions above, in one pass over the pixels (two
 * for an image whose contrast step follows other steps: the first runs those,
 * sums the grayscale for the mean and stores the pixels in out, the second goes
 * on from there). Factor checks as above, per value. */
AUG_API aug_status aug_color_jitter(const aug_tensor *im, const double *brightness, const double *contrast,
                                    const double *saturation, const double *hue, const int32_t *order,
                                    aug_tensor **out);

/* ColorJitter's parameter sampling for n images from u, 7 uniform draws in
 * [0, 1) per image (image-major): factor = lo + u * (hi - lo) with u[7i + 0..3]
 * for brightness, contrast, saturation, hue; ranges are {lo, hi} (NULL: that
 * step is not sampled and its output array is not written); the order is a
 * Fisher-Yates shuffle of (0, 1, 2, 3) with j = floor(u * (k + 1)) for k = 3, 2,
 * 1 from u[7i + 4 .. 6], or 0, 1, 2, 3 when random_order is 0. Ranges: finite,
 * lo <= hi, lo >= 0 (hue: -0.5 <= lo, hi <= 0.5). Outputs: n values each, and
 * order 4n values; NULL outputs for non-NULL ranges are an error. */
AUG_API aug_status aug_color_jitter_params(int64_t n, const double *u, const double *brightness_range,
                                           const double *contrast_range, const double *saturation_range,
                                           const double *hue_range, int random_order, double *brightness,
                                           double *contrast, double *saturation, double *hue, int32_t *order);
/* The same with u drawn from rng: one uniform fill of a float64 (n, 7) tensor on
 * the generator's device (one call of its counter), so a batch's parameters are
 * reproducible from the seed. */
AUG_API aug_status aug_color_jitter_sample(aug_rng *rng, int64_t n, const double *brightness_range,
                                           const double *contrast_range, const double *saturation_range,
                                           const double *hue_range, int random_order, double *brightness,
                                           double *contrast, double *saturation, double *hue, int32_t *order);
/* The same with one generator state per image (the per-sample streams of
 * aug/random.h): image k's 7 uniforms are elements 0..6 of a float64 uniform
 * [0, 1) fill of call states[k].calls of a generator seeded states[k].seed
 * (element j: Philox block (counter (j, 0, lo32(c), hi32(c)), key the seed),
 * u = asdouble(0x3ff0000000000000 | a >> 12) - 1.0), i.e. exactly image 0 of
 * aug_color_jitter_sample on a generator at state states[k]. No generator is
 * advanced; states (n values) is borrowed. Errors as aug_color_jitter_sample
 * ("aug_color_jitter_sample_states: ..."), and for NULL states with n > 0;
 * the outputs are not written then. */
AUG_API aug_status aug_color_jitter_sample_states(const aug_rng_state *states, int64_t n,
                                                  const double *brightness_range, const double *contrast_range,
                                                  const double *saturation_range, const double *hue_range,
                                                  int random_order, double *brightness, double *contrast,
                                                  double *saturation, double *hue, int32_t *order);

/* ColorJitter fused with aug_lighting (image.h): aug_color_jitter's result
 * followed by aug_lighting of it, in one pass over the pixels (plus the
 * jitter's contrast pre-pass). The lighting's values are rounded to float32
 * first, so the bytes are those of aug_color_jitter then aug_lighting with
 * float32 tensors of these values (checked after the rounding as aug_lighting
 * checks them: gammas finite and > 0, contrasts in [-1, 1], vmin < vmax both
 * finite). lighting NULL: aug_color_jitter. uint8: per (image, channel) a
 * table of 256 results, composed with the jitter's last table where the last
 * step maps values on their own; float32: the curve per value in double from
 * the jitter's float32 result, stored as float32. */
typedef struct aug_jitter_lighting {
    const double *gammagrays;  /* N values */
    const double *gammacolors; /* N * C values, image-major */
    const double *contrasts;   /* N values, each in [-1, 1] */
    double vmin, vmax;         /* finite, vmin < vmax */
} aug_jitter_lighting;
AUG_API aug_status aug_color_jitter_lighting(const aug_tensor *im, const double *brightness, const double *contrast,
                                             const double *saturation, const double *hue, const int32_t *order,
                                             const aug_jitter_lighting *lighting, aug_tensor **out);

#ifdef __cplusplus
}
#endif
#endif
