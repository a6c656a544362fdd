/* aug/image.h: image functions. semantics §13 (augpy manual 3.1.4).
 *
 * Layouts: decoded images are (H, W, C) "HWC"; warp output, lighting and blur
 * work on (C, H, W) "CHW" images or (N, C, H, W) "NCHW" batches. Every function
 * takes every dtype and any channel count, and stores with saturate_cast.
 *
 * Output convention (as in ops.h): `aug_tensor **out`; *out == NULL allocates a
 * new tensor of the input's shape and dtype (caller frees), otherwise the result
 * is written into *out (same shape and dtype as required; may be the input for
 * lighting and blur). Parameter tensors (background, gammas, contrasts, sigmas) live on
 * the image's device. Errors: aug_status with "aug_<function>: ..." messages. */
#ifndef AUG_IMAGE_H
#define AUG_IMAGE_H

#include "conventions.h"
#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- affine transforms ---------------------------------------------------- */

typedef enum aug_warp_scale_mode {
    AUG_WARP_SCALE_SHORTEST = 0, /* scale relative to the shortest side: fill the canvas, crop */
    AUG_WARP_SCALE_LONGEST = 1   /* relative to the longest side: the whole image fits */
} aug_warp_scale_mode;

/* Parameters of aug_make_affine_matrix (manual 3.1.4.2). All must be finite. */
typedef struct aug_affine_params {
    double angle;      /* clockwise, degrees, about the image centre */
    double scale;      /* != 0 */
    double aspect;     /* != 0 */
    double shifty, shiftx; /* -1 .. 1: fraction of the free space */
    double sheary, shearx;
    int hmirror, vmirror;
    aug_warp_scale_mode scale_mode;
    int max_supersampling; /* 1 .. AUG_MAX_SUPERSAMPLING */
} aug_affine_params;

/* The largest supersampling factor: a warp costs s*s samples per output pixel,
 * so an unbounded s (99999) would run for hours. */
#define AUG_MAX_SUPERSAMPLING 16

/* The defaults: angle 0, scale 1, aspect 1, no shift/shear/mirror, SHORTEST,
 * max_supersampling 3. */
AUG_API aug_affine_params aug_affine_params_default(void);

/* Writes the 2x3 inverse map (output pixel -> source pixel, OpenCV's
 * WARP_INVERSE_MAP), row-major float32, into out[6], computed in double by the
 * semantics §13 formula; *supersampling (may be NULL) receives
 * max(1, min(max_supersampling, ceil(r))). Sizes > 0; AUG_ERR_VALUE for a zero
 * scale or aspect, a non-finite parameter, max_supersampling outside
 * [1, AUG_MAX_SUPERSAMPLING], or a matrix
 * that does not fit float32. out is written only on success. */
AUG_API aug_status aug_make_affine_matrix(float out[6], int64_t source_height, int64_t source_width,
                                          int64_t target_height, int64_t target_width,
                                          const aug_affine_params *params, int *supersampling);

/* ---- warp ------------------------------------------------------------------ */

/* One image: src (H, W, C) with any strides -> dst (C, Ht, Wt) C-contiguous; any
 * dtypes in and out. Output pixel (x, y) is the mean of s*s samples at
 * (x - o + i/s, y - o + j/s), o = (s-1)/(2s), each mapped through the matrix
 * (sx = m00*X + m01*Y + m02, sy = m10*X + m11*Y + m12) and sampled bilinearly;
 * neighbours outside the source take the background value; stored with
 * saturate_cast (semantics §13; docs/warp.md gives the arithmetic). matrix: 6 finite
 * floats as from aug_make_affine_matrix (host memory). background: NULL (zeros)
 * or a tensor of any shape and dtype holding exactly C values, on src's device
 * or on the CPU (read without waiting for the GPU).
 * supersampling in [1, AUG_MAX_SUPERSAMPLING] (else AUG_ERR_VALUE naming the
 * function and the value). dst must not overlap src; its layout is set to "CHW". */
AUG_API aug_status aug_warp_affine(const aug_tensor *src, aug_tensor *dst, const float matrix[6],
                                   const aug_tensor *background, int supersampling);

/* A batch: n images src[i] (H_i, W_i, C) -> dst (n, C, Ht, Wt) (layout set to
 * "NCHW"); matrices[6n] and supersampling[n] in host memory. The images may have
 * different sizes; everything else as aug_warp_affine. */
AUG_API aug_status aug_warp_affine_batch(int64_t n, const aug_tensor *const *src, aug_tensor *dst,
                                         const float *matrices, const aug_tensor *background,
                                         const int *supersampling);

/* Options of aug_warp_affine_ex / aug_warp_affine_batch_ex (docs/warp.md).
 * aug_warp_options_default() gives the behaviour of aug_warp_affine: bilinear,
 * constant border (the background), source layout from the tensor, output
 * (C, Ht, Wt) / (N, C, Ht, Wt). */
/* The interpolation: aug_interp (aug/conventions.h); aug_warp_interp and its
 * constants are its old spelling. LINEAR: bilinear, the mean of s*s samples;
 * NEAREST: the source value at floor(sx + 0.5), floor(sy + 0.5) of the pixel
 * centre, never blended (masks, labels), supersampling ignored; CUBIC: Keys'
 * cubic convolution (a = -0.75, OpenCV's INTER_CUBIC) over the 4 x 4 source
 * values around each sample, in double, the mean of s*s samples stored with
 * saturate_cast (docs/warp.md "Bicubic"). Warp has no AREA (AUG_ERR_VALUE
 * "interpolation 'area' is not supported (linear, nearest, cubic)"). */
typedef aug_interp aug_warp_interp;
#define AUG_WARP_LINEAR AUG_INTERP_LINEAR
#define AUG_WARP_NEAREST AUG_INTERP_NEAREST
#define AUG_WARP_CUBIC AUG_INTERP_CUBIC

typedef enum aug_warp_border {
    AUG_WARP_BORDER_CONSTANT = 0,  /* outside pixels take the background value (OpenCV BORDER_CONSTANT) */
    AUG_WARP_BORDER_REPLICATE = 1, /* aaaa|abcd|dddd (BORDER_REPLICATE) */
    AUG_WARP_BORDER_REFLECT = 2,   /* dcb|abcd|cba, the edge not repeated (BORDER_REFLECT_101; torchvision's
                                    * and albumentations' "reflect", NumPy's "reflect") */
    AUG_WARP_BORDER_SYMMETRIC = 3  /* cba|abcd|dcb, the edge repeated (BORDER_REFLECT; NumPy's "symmetric") */
} aug_warp_border;

typedef enum aug_warp_layout {
    AUG_WARP_LAYOUT_AUTO = 0, /* source: "CHW" if the tensor's layout string says so, else HWC;
                               * output: CHW */
    AUG_WARP_LAYOUT_HWC = 1,  /* (H, W, C); a batch output (N, H, W, C) */
    AUG_WARP_LAYOUT_CHW = 2   /* (C, H, W); a batch output (N, C, H, W) */
} aug_warp_layout;

typedef struct aug_warp_options {
    aug_warp_interp interpolation;
    aug_warp_border border;
    /* the layouts as enums: the old spelling, used where the string below is NULL */
    aug_warp_layout src_layout, dst_layout;
    /* The layouts as strings (aug/conventions.h), NULL by default: layout, the
     * source images' ("HWC" or "CHW"; "NHWC" / "NCHW" name a batch's images the
     * same way), overrides src_layout; out_layout, the output's ("CHW" / "HWC",
     * a batch's "NCHW" / "NHWC"), overrides dst_layout. Others: AUG_ERR_VALUE
     * "func: layout 'X' is not supported (HWC, CHW, NHWC, NCHW)". */
    const char *layout, *out_layout;
} aug_warp_options;

AUG_API aug_warp_options aug_warp_options_default(void);

/* The enum value of a name, case-insensitive: the interpolation as
 * aug_interp_from_name (its old spelling; "area" is accepted and refused by the
 * warp); "constant", "replicate" (also "edge"), "reflect" (also
 * "reflect_101", "reflect101"), "symmetric"; "HWC" / "CHW" (a batch's "NHWC" /
 * "NCHW" too). AUG_ERR_VALUE naming func and the string for anything else. */
AUG_API aug_status aug_warp_interp_from_name(const char *func, const char *name, aug_warp_interp *out);
AUG_API aug_status aug_warp_border_from_name(const char *func, const char *name, aug_warp_border *out);
AUG_API aug_status aug_warp_layout_from_name(const char *func, const char *name, aug_warp_layout *out);

/* aug_warp_affine with options (NULL: the defaults). src: (H, W, C) or (C, H, W)
 * by opts->src_layout, or (H, W) (one channel, any layout option). dst:
 * (C, Ht, Wt) or (Ht, Wt, C) by opts->dst_layout, or (Ht, Wt) for one channel;
 * any dtype, C-contiguous; its layout string becomes "CHW", "HWC" or "HW".
 * A layout option that contradicts the tensor's layout string ("CHW" asked
 * for a tensor labelled "HWC", or the reverse) is AUG_ERR_VALUE, as are enum
 * values out of range. Borders other than constant map each neighbour's index
 * into the source (docs/warp.md); the background is then unused. */
AUG_API aug_status aug_warp_affine_ex(const aug_tensor *src, aug_tensor *dst, const float matrix[6],
                                      const aug_tensor *background, int supersampling,
                                      const aug_warp_options *opts);

/* The batch with options: src[i] as in aug_warp_affine_ex; dst (N, C, Ht, Wt),
 * (N, Ht, Wt, C) or (N, Ht, Wt) (one channel), layout "NCHW", "NHWC" or "NHW". */
AUG_API aug_status aug_warp_affine_batch_ex(int64_t n, const aug_tensor *const *src, aug_tensor *dst,
                                            const float *matrices, const aug_tensor *background,
                                            const int *supersampling, const aug_warp_options *opts);

/* The perspective warp (docs/warp.md "Perspective"): aug_warp_affine_ex with a
 * 3 x 3 homography, matrix[9] row-major in host memory, the inverse map (output
 * pixel -> source pixel, as cv2.warpPerspective with WARP_INVERSE_MAP): sample
 * (X, Y) reads the source at (u / w, v / w), (u, v, w) = matrix . (X, Y, 1). A
 * sample with w <= 0, or whose point is not finite, lies outside the source
 * plane and takes the background value whatever the border. Every value must
 * be finite and the determinant nonzero (else AUG_ERR_VALUE naming the function
 * and the matrix). Interpolation, borders, supersampling, layouts, dtypes and
 * opts (NULL: the defaults) as aug_warp_affine_ex; a matrix whose last row is
 * (0, 0, 1) gives aug_warp_affine_ex's result with its first two rows, bit for
 * bit, except that a background that is not a byte (uint8 -> uint8) or not a
 * finite float32 value makes every border take the wider kernel. */
AUG_API aug_status aug_warp_perspective(const aug_tensor *src, aug_tensor *dst, const float matrix[9],
                                        const aug_tensor *background, int supersampling,
                                        const aug_warp_options *opts);

/* The batch: src[i] as in aug_warp_perspective, matrices[9n], supersampling[n];
 * dst as in aug_warp_affine_batch_ex. */
AUG_API aug_status aug_warp_perspective_batch(int64_t n, const aug_tensor *const *src, aug_tensor *dst,
                                              const float *matrices, const aug_tensor *background,
                                              const int *supersampling, const aug_warp_options *opts);

/* ---- lighting ---------------------------------------------------------------- */

/* Contrast and gamma per image and channel (semantics §13, manual 3.1.4.3). im is
 * (N, C, H, W), or (C, H, W) taken as N = 1, any dtype and strides (a strided
 * view is read through one packed temporary copy). Parameters
 * are float32 tensors on im's device or on the CPU (read without waiting for
 * the GPU; from a GPU they are read back): gammagrays [N], gammacolors [N*C] or
 * (N, C) (C order: image-major), contrasts [N]. Per value x of image n, channel
 * c: v = clip((x - vmin) / (vmax - vmin), 0, 1); v = (1 - |k|) v + |k| f(v) with
 * k = contrasts[n], f = f_pos (k >= 0) or f_neg (k < 0); v = v^(gammagrays[n] *
 * gammacolors[n, c]); result saturate_cast(v (vmax - vmin) + vmin), computed in
 * double. Errors (AUG_ERR_VALUE unless noted): vmin, vmax not finite or vmin >=
 * vmax; a gamma that is NaN, infinite or <= 0; a contrast outside [-1, 1] or NaN;
 * parameter shapes; parameters not float32 (AUG_ERR_TYPE). *out: NULL -> new
 * tensor (caller frees), else same shape and dtype, contiguous; it may be im
 * itself (in place) but must not overlap it otherwise. The result's layout is
 * set to "NCHW" ("CHW" for a 3-D image). */
AUG_API aug_status aug_lighting(const aug_tensor *im, const aug_tensor *gammagrays, const aug_tensor *gammacolors,
                                const aug_tensor *contrasts, double vmin, double vmax, aug_tensor **out);

/* ---- blur -------------------------------------------------------------------- */

/* Blurs (semantics §13, manual 3.1.4.4). Inputs of any strides (a strided view
 * is read through one packed temporary copy), any dtype and channel
 * count; edges replicated; one rounding at the end (saturate_cast). A kernel of
 * size k covers offsets -k/2 .. -k/2 + k - 1 (k/2 rounded down): an even k shifts
 * the result up/left by half a pixel. *out: NULL -> new tensor (caller frees),
 * else same shape and dtype, contiguous; *out may be (or overlap) the input, which
 * is then read from a temporary copy. The result's layout is set to "CHW" /
 * "NCHW". */

/* in (C, H, W); mean over the ksize x ksize window; ksize >= 1. */
AUG_API aug_status aug_box_blur_single(const aug_tensor *in, int ksize, aug_tensor **out);
/* in (C, H, W); sigma finite; ksize = aug_gaussian_ksize(sigma, 0); weights
 * exp(-i^2 / (2 sigma^2)) normalised to sum 1; sigma <= 0 copies. */
AUG_API aug_status aug_gaussian_blur_single(const aug_tensor *in, double sigma, aug_tensor **out);
/* in (N, C, H, W); sigmas float32 [N] on in's device or the CPU (read without
 * waiting for the GPU; from a GPU they are read back) (finite; <= 0 copies that
 * image); per image ksize = aug_gaussian_ksize(sigmas[n], max_ksize), weights
 * renormalised over the clipped window. max_ksize >= 1. */
AUG_API aug_status aug_gaussian_blur(const aug_tensor *in, const aug_tensor *sigmas, int max_ksize,
                                     aug_tensor **out);
/* PIL's ImageFilter.GaussianBlur(radius), bit-exact with Pillow (semantics §13):
 * uint8 only (another dtype: AUG_ERR_TYPE). The radius, as float32, gives
 * Pillow's extended box radius b (3 passes of variance radius^2 / 3 each), r =
 * int(b), ww = int(2^24 / (2 b + 1)) (float32), fw = (2^24 - (2 r + 1) ww) / 2;
 * 3 passes along W, then 3 along H, each out[j] = (ww * sum_{|k| <= r} x[j + k]
 * + fw * (x[j - r - 1] + x[j + r + 1]) + 2^23) >> 24, indices clamped to the
 * line. Radius 0 (or a box of 0) copies; a radius outside [0, 1e6] or NaN is
 * AUG_ERR_VALUE. in (C, H, W). */
AUG_API aug_status aug_pil_gaussian_blur_single(const aug_tensor *in, double radius, aug_tensor **out);
/* The same on a batch (N, C, H, W) with one radius per image: radii float32 [N]
 * on in's device or the CPU. */
AUG_API aug_status aug_pil_gaussian_blur(const aug_tensor *in, const aug_tensor *radii, aug_tensor **out);
/* The kernel size the Gaussian blurs use: 1 (a copy) for sigma <= 0, else
 * max(3, int(sigma * 6.6 - 2.3) | 1), then min(max_ksize) if max_ksize > 0;
 * INT_MAX if larger. NaN: 0 with an AUG_ERR_VALUE error set. */
AUG_API int aug_gaussian_ksize(double sigma, int max_ksize);

/* ---- mixing a batch with its mirror (MixUp / CutMix as timm's Mixup) ---------- */

/* Mixes a float batch (N, C, H, W) (float16, bfloat16, float32 or float64; any
 * strides, e.g. a slice of a bigger batch or an NHWC buffer viewed as NCHW, but
 * no two positions on one value) in place with its mirror, in one pass: for each
 * pair i, j = N - 1 - i (odd N: the middle image with itself) and each position
 * p, from the original values a = images[i](p), b = images[j](p), image i becomes
 *   - with a non-empty box (x1, y1, x2, y2) = boxes[4i .. 4i + 3] (x1 < x2, y1 < y2):
 *     b at the columns [x1, x2) of the rows [y1, y2) of every channel, a elsewhere
 *     (CutMix);
 *   - else with (w, v) = weights[2i], weights[2i + 1]: a * w + b * v in the dtype,
 *     rounded as augpy's mul and add round it (each product, then the sum; the
 *     weights rounded to float32 for the 16- and 32-bit floats: exactly torch's
 *     x.mul_(w).add_(mirror.mul_(v)) of MixUp); (w, v) exactly (1, 0) leaves the
 *     image as it is, as timm skips lam = 1 (not a * 1 + b * 0, which turns -0 into
 *     +0 and a non-finite b into NaN);
 * and image j the same with its own box or weights and a, b swapped.
 * count: 1 (one box and one pair of weights for every image) or N. weights NULL:
 * (1, 0) for every image; boxes NULL: no box (an empty box, x1 == x2 or y1 == y2,
 * is no box either). Boxes must lie in the image (0 <= x1 <= x2 <= W, 0 <= y1 <=
 * y2 <= H); weights must be finite. Errors (nothing written): AUG_ERR_TYPE for
 * another dtype, AUG_ERR_VALUE for the shape, count, a box, a weight, a layout
 * other than NCHW. On a GPU the entries go through the staging ring: no host
 * wait. */
AUG_API aug_status aug_mix_mirror(aug_tensor *images, const double *weights, const int64_t *boxes, int64_t count);

/* ---- JPEG decoding ----------------------------------------------------------- */

/* A decoder (CPU: libjpeg-turbo's TurboJPEG API; CUDA: nvJPEG when it is
 * installed, see aug_decoder_engine). It keeps its decompressor and scratch
 * memory between calls. Not thread-safe: use one per thread. */
typedef struct aug_decoder aug_decoder;

/* New decoder for device. The paddings are the manual's memory hints (bytes
 * added to scratch buffers when they grow: host_padding to host buffers,
 * device_padding to nvJPEG's device buffers); gpu_huffman asks nvJPEG to
 * decode Huffman codes on the GPU (its GPU_HYBRID backend) instead of the CPU.
 * A CUDA decoder's output lives on its device and is ready in stream order
 * (the current stream of the calling thread). NULL with an error if the device
 * is unavailable. New; free with aug_decoder_free. */
AUG_API aug_decoder *aug_decoder_new(aug_device device, size_t device_padding, size_t host_padding,
                                     int gpu_huffman);
AUG_API void aug_decoder_free(aug_decoder *d); /* NULL is fine */
/* What decodes the pixels: "libjpeg-turbo" (a CPU decoder), "nvjpeg" (a CUDA
 * decoder using nvJPEG's hybrid backend; files it refuses, e.g. CMYK, are
 * decoded on the CPU and uploaded) or "libjpeg-turbo+upload" (a CUDA decoder
 * without nvJPEG: every image is decoded on the CPU and copied to the device,
 * queued on the current stream). NULL for NULL. */
AUG_API const char *aug_decoder_engine(const aug_decoder *d);
/* Which backend decodes: aug_decoder_engine's answer, except on the "nvjpeg"
 * engine: "hardware (batched; other files: hybrid)" where the device has JPEG
 * decode engines (A100/H100/H200; other files: "hybrid+gpu_huffman" with
 * gpu_huffman), else "hybrid" or "hybrid+gpu_huffman" followed by why not
 * hardware, e.g. "hybrid (no hardware decoder: nvjpegCreateExV2 failed with
 * NVJPEG_STATUS_ARCH_MISMATCH)". NULL for NULL. */
AUG_API const char *aug_decoder_jpeg_backend(const aug_decoder *d);
/* The largest image, in pixels (height * width), d decodes: larger ones are
 * refused with AUG_ERR_JPEG naming the size and the limit, after reading the
 * header and before anything is allocated for the pixels, on every device.
 * The default, 2^28 (16384 x 16384, 768 MiB of RGB), stops a small hostile
 * file from making the decoder allocate gigabytes. max_pixels in [1, 2^31]
 * (else AUG_ERR_VALUE). aug_decoder_limit returns the limit (0 for NULL). */
AUG_API aug_status aug_decoder_set_limit(aug_decoder *d, int64_t max_pixels);
AUG_API int64_t aug_decoder_limit(const aug_decoder *d);
/* The decode cost bound of progressive (and arithmetic multi-scan) JPEGs, whose
 * decode keeps every coefficient of the whole image (2 bytes per sample of each
 * component: 6 bytes per pixel for 4:4:4 colour, 3 for 4:2:0) and reads the data
 * once per scan. Such a file is refused with AUG_ERR_JPEG, before anything is
 * decoded, when its whole image is over the decoder's limit (above; whatever
 * the roi or scale) or its scans x pixels are over max_scan_pixels (default
 * 2^32: a usual 10-scan 16384 x 16384 file passes, a 500-scan file built to
 * make decoding take minutes does not above about 2900 x 2900). On the CPU such
 * files decode through libjpeg's API, which polls the thread's interrupt check
 * (aug_set_interrupt_check), so a long one stops when asked. max_scan_pixels >= 1
 * (else AUG_ERR_VALUE); aug_decoder_scan_limit returns it (0 for NULL). */
AUG_API aug_status aug_decoder_set_scan_limit(aug_decoder *d, int64_t max_scan_pixels);
AUG_API int64_t aug_decoder_scan_limit(const aug_decoder *d);

/* Image size of a JPEG from its header, without decoding it. AUG_ERR_JPEG with
 * libjpeg-turbo's message if the header cannot be read ("not a JPEG or PNG
 * file (starts with ...)" as aug_decoder_decode for other data). aug_jpeg_describe
 * says more. */
AUG_API aug_status aug_jpeg_info(const void *data, size_t size, int64_t *height, int64_t *width);

/* What a JPEG header says (aug_jpeg_describe). */
typedef struct aug_jpeg_desc {
    int64_t height, width; /* of the full image */
    int channels;          /* of the decoded output: always 3 (RGB) */
    int components;        /* in the file: 1 (gray), 3 (YCbCr/RGB) or 4 (CMYK/YCCK) */
    /* "Grayscale", "YCbCr", "RGB", "CMYK" or "YCCK" (a static string) */
    const char *colour_space;
    /* "4:4:4", "4:2:2", "4:2:0", "4:4:0", "4:1:1", "4:1:0" (Cb and Cr 1x1, Y's
     * factors 1x1 2x1 2x2 1x2 4x1 4x2; for 4 components the 4th like Y),
     * "4:0:0" for grayscale, otherwise the factors "HxV,HxV,HxV[,HxV]" */
    char sampling[40];
    int progressive; /* 1 for a progressive (SOF2) file */
} aug_jpeg_desc;

/* Describes a JPEG from its header alone (libjpeg's jpeg_read_header: no
 * entropy data is read). AUG_ERR_JPEG with libjpeg's message if the header
 * cannot be read or the colour space is not one the decoder converts to RGB
 * (the same files the decoder refuses at its header); AUG_ERR_VALUE for NULL
 * arguments. On error *desc is untouched. */
AUG_API aug_status aug_jpeg_describe(const void *data, size_t size, aug_jpeg_desc *desc);

/* Decode to (H, W, 3) uint8 RGB with layout "HWC" into a NEW tensor *out
 * (caller frees). Baseline, progressive, restart markers, grayscale (R=G=B)
 * and CMYK/YCCK (converted as Pillow's convert('RGB') does, Adobe polarity)
 * are supported; the output is pixel-identical to Pillow's
 * Image.open(f).convert('RGB') (accurate IDCT, fancy upsampling).
 * buffer: NULL allocates fresh memory; otherwise a contiguous uint8 tensor on
 * the decoder's device with at least H*W*3 elements (else AUG_ERR_VALUE /
 * AUG_ERR_TYPE), and *out is a view of its first H*W*3 elements (sharing its
 * memory). Errors: a corrupt or truncated file, libjpeg-turbo warnings
 * included ("Premature end of JPEG file"), give AUG_ERR_JPEG with
 * libjpeg-turbo's message; images over the decoder's limit
 * (aug_decoder_set_limit, default 2^28 pixels) give AUG_ERR_JPEG too. Data
 * that starts neither a JPEG (FF D8) nor a PNG (its 8-byte signature) gives
 * AUG_ERR_JPEG "func: not a JPEG, PNG, WebP, TIFF or AVIF file (starts with 3c 68 74 6d 6c 3e 0a 3c)",
 * its first (up to 8) bytes in hex, or "(empty)" for 0 bytes; every entry
 * below (decode, info, describe) checks this first. On any error *out is untouched
 * and nothing half-decoded is returned (the buffer's bytes are then unspecified). */
AUG_API aug_status aug_decoder_decode(aug_decoder *d, const void *data, size_t size, const aug_tensor *buffer,
                                      aug_tensor **out);

/* Decode a batch of files at once where the device's decoder has a batched
 * path: on a CUDA decoder whose nvJPEG backend is the hardware one
 * (aug_decoder_jpeg_backend "hardware ..."), the files the JPEG engines take
 * (whole baseline JPEGs, not CMYK, within the decoder's limits, complete) are
 * decoded in ONE batched nvJPEG call, out[i] each one's (H, W, 3) uint8 RGB
 * image with layout "HWC" (the bytes of aug_decoder_decode, queued on the
 * current stream). out[i] is NULL for every other file (another format, a
 * progressive, CMYK or corrupt file, or each file of a batched call that
 * failed, nvJPEG naming no file) and on other decoders for all: decode those
 * one by one with aug_decoder_decode, which gives each file its own result or
 * error. No host waits while the decoder's buffers are free. Returns AUG_OK, or
 * an error (memory, the device; AUG_ERR_VALUE for NULL arguments or n < 0)
 * with every out[i] NULL. */
AUG_API aug_status aug_decoder_decode_batch(aug_decoder *d, int n, const void *const *data, const size_t *size,
                                            aug_tensor **out);

/* Decode only part of the image: DCT-domain downscaling (or upscaling) by
 * scale_num / scale_denom, then the region roi = {y, x, h, w} of the SCALED
 * image (libjpeg's and djpeg -crop's convention: roi is in output pixels).
 * The scale must equal M/8 for an integer M in 1..16 (libjpeg-turbo's
 * factors: 1/8, 1/4, 3/8, 1/2, 5/8, 3/4, 7/8, 1, 9/8, ..., 2; e.g. 1/2 or
 * 2/4), else AUG_ERR_VALUE. The scaled image is ceil(H * M / 8) x
 * ceil(W * M / 8) (libjpeg's rounding). roi NULL: the whole scaled image;
 * otherwise y, x >= 0, h, w >= 1 and y + h, x + w within the scaled image
 * (else AUG_ERR_VALUE naming the values and the scaled size). Output:
 * (h, w, 3) uint8 RGB, layout "HWC", exactly the requested pixels: libjpeg's
 * jpeg_crop_scanline widens the column range to iMCU boundaries and the exact
 * columns are copied out; rows above roi are skipped (jpeg_skip_scanlines),
 * rows below are not decoded, so damage after the last needed row is not
 * detected. Pixels equal libjpeg-turbo's own scaled / cropped decode (djpeg
 * -scale M/8 -crop ...); every colour space and sampling of aug_decoder_decode
 * works (CMYK/YCCK converted as there). A region or scale decode always runs on
 * the CPU with libjpeg's API; a CUDA decoder decodes on the CPU and uploads,
 * as its fallback does. The decoder's limit (aug_decoder_set_limit) bounds the
 * OUTPUT, h * w pixels. scale 1/1 with roi NULL is aug_decoder_decode. Other
 * rules (buffer, errors, *out) as aug_decoder_decode. */
AUG_API aug_status aug_decoder_decode_region(aug_decoder *d, const void *data, size_t size, const int64_t *roi,
                                             int scale_num, int scale_denom, const aug_tensor *buffer,
                                             aug_tensor **out);

/* ---- JPEG encoding (docs/jpeg.md "Encoding") ---------------------------------- */

/* Encodes one uint8 image as a baseline JPEG file with libjpeg-turbo
 * (tjCompress2): quality 1..100 (libjpeg's jpeg_set_quality scaling of the
 * standard tables), 4:2:0 chroma for 3 channels (RGB) and one component for 1
 * channel, the accurate integer DCT, the standard Huffman tables: PIL's default
 * JPEG settings. image: "HW", "HWC" or "CHW" (layout NULL: its layout string,
 * else the rules of aug/resize.h), any strides, on any device (a device tensor
 * is read back to the host, waiting for it), 1 or 3 channels, sides 1..65535.
 * *out: a NEW 1-D uint8 CPU tensor holding the file (caller frees). Errors:
 * AUG_ERR_VALUE for quality outside 1..100 (naming it), another channel count
 * or size; AUG_ERR_TYPE for a dtype other than uint8; AUG_ERR_JPEG with
 * libjpeg-turbo's message. */
AUG_API aug_status aug_jpeg_encode(const aug_tensor *image, const char *layout, int quality, aug_tensor **out);

/* ---- PNG and output channels (docs/jpeg.md "PNG" and "Channels") ------------ */

/* The file formats a decoder reads, told apart by their first bytes (JPEG:
 * FF D8 FF; PNG: the 8-byte signature 89 'PNG' 0D 0A 1A 0A; WebP: 'RIFF', 4
 * bytes, 'WEBP'; TIFF: 'II' 2A 00 or 'MM' 00 2A, BigTIFF 'II' 2B 00 or 'MM' 00 2B;
 * AVIF: an ISO BMFF 'ftyp' box first whose major or a compatible brand is
 * 'avif' or 'avis'). */
typedef enum aug_image_format {
    AUG_FORMAT_UNKNOWN = 0,
    AUG_FORMAT_JPEG = 1,
    AUG_FORMAT_PNG = 2,
    AUG_FORMAT_WEBP = 3,
    AUG_FORMAT_TIFF = 4,
    AUG_FORMAT_AVIF = 5
} aug_image_format;
/* The number of formats, AUG_FORMAT_UNKNOWN included (the formats are 1 ..
 * AUG_FORMAT_COUNT - 1; augpy.supported_formats lists them). */
#define AUG_FORMAT_COUNT 6
/* The format of data from its magic bytes (AUG_FORMAT_UNKNOWN for NULL,
 * too short or other data; no error is set). */
AUG_API aug_image_format aug_image_format_of(const void *data, size_t size);
/* "jpeg", "png", "webp", "tiff" or "avif" (static strings); NULL for any other value. */
AUG_API const char *aug_image_format_name(aug_image_format format);

/* The channels of a decode (aug_decoder_decode_as). Conversions (both formats):
 * gray from colour is Pillow's convert('L'): L = (19595 R + 38470 G + 7471 B
 * + 2^15) >> 16 (ITU-R 601-2, exact for R = G = B); gray to colour repeats L;
 * a missing alpha is 255 (opaque); dropping alpha ignores it (no compositing,
 * as Pillow's convert('RGB')). */
typedef enum aug_decode_mode {
    AUG_DECODE_RGB = 0,        /* 3 channels (the default of aug_decoder_decode) */
    AUG_DECODE_GRAY = 1,       /* 1 channel */
    AUG_DECODE_GRAY_ALPHA = 2, /* 2 channels: L, A */
    AUG_DECODE_RGBA = 3,       /* 4 channels */
    AUG_DECODE_UNCHANGED = 4   /* the file's own: JPEG 1 (gray) or 3; PNG 1, 2, 3 or 4 (below) */
} aug_decode_mode;

/* What a PNG header (IHDR, tRNS) says (aug_png_describe). */
typedef struct aug_png_desc {
    int64_t height, width;
    int channels;         /* of AUG_DECODE_UNCHANGED: gray 1, gray+alpha 2, RGB 3, RGBA 4; a tRNS
                             chunk adds alpha (gray 2, RGB and palette 4); palette without it 3 */
    int bit_depth;        /* 1, 2, 4, 8 or 16 (per sample; palette: of the index) */
    int colour_type;      /* PNG's: 0 gray, 2 RGB, 3 palette, 4 gray+alpha, 6 RGBA */
    const char *colour_space; /* "Grayscale", "RGB", "Palette", "GrayscaleAlpha", "RGBA" (static) */
    int interlaced;       /* Adam7 */
    int transparency;     /* a tRNS chunk before the image data */
} aug_png_desc;

/* Describes a PNG from its chunks before the image data (libspng; no pixel is
 * decoded). AUG_ERR_JPEG (the decoders' error) with libspng's message for a
 * file that is not a readable PNG; AUG_ERR_VALUE for NULL arguments. */
AUG_API aug_status aug_png_describe(const void *data, size_t size, aug_png_desc *desc);

/* aug_decoder_decode_region for JPEG or PNG (told apart by magic bytes) with
 * the output's channels chosen by mode: (h, w, C) uint8, layout "HWC", C = 3
 * (RGB), 1 (GRAY), 2 (GRAY_ALPHA), 4 (RGBA) or the file's own (UNCHANGED).
 * JPEG: decoded to RGB exactly as aug_decoder_decode_region (roi, scale), then
 * converted on the host (a CUDA decoder then decodes on the CPU and uploads,
 * unless mode gives RGB). PNG (libspng, every colour type, bit depth and
 * Adam7 interlacing; no gamma or colour management, as Pillow): palette and
 * tRNS expanded, 16-bit samples rounded to 8 bits as (v * 255 + 32767) / 65535
 * (the nearest 8-bit value; Pillow keeps the high byte instead, v >> 8), 1/2/4
 * bit gray scaled to 0..255; always decoded whole on the CPU (a CUDA decoder
 * uploads it), roi then cuts the result and the limit (aug_decoder_set_limit)
 * bounds the whole image; the scale must be 1 (DCT scaling is JPEG's;
 * AUG_ERR_VALUE otherwise). Errors: data in neither format, a corrupt or
 * truncated PNG (libspng's message, CRC and Adler-32 checked) give
 * AUG_ERR_JPEG "aug_decoder_decode_as: ..."; mode outside the enum
 * AUG_ERR_VALUE. buffer, *out and the other rules as aug_decoder_decode; the
 * buffer needs h * w * C elements. aug_decoder_decode and
 * aug_decoder_decode_region decode PNG too (mode RGB). */
AUG_API aug_status aug_decoder_decode_as(aug_decoder *d, const void *data, size_t size, const int64_t *roi,
                                         int scale_num, int scale_denom, aug_decode_mode mode,
                                         const aug_tensor *buffer, aug_tensor **out);

/* ---- WebP, TIFF, AVIF, 16-bit output and pages (docs/formats.md) ------------- */

/* What a file's header says, for every format (aug_image_describe). */
typedef struct aug_image_desc {
    aug_image_format format;
    int64_t height, width;    /* of the page (TIFF) or the canvas (an animated WebP) */
    int channels;             /* of AUG_DECODE_UNCHANGED: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA (TIFF: the
                                 samples per pixel of a gray or RGB page, the extra ones kept, at most 4) */
    int bit_depth;            /* the file's depth per sample: 16 for 16-bit PNG and TIFF, 8, 10 or 12 for
                                 AVIF, otherwise 8 (PNG's 1, 2 and 4-bit files: 8) */
    int alpha;                /* 1 when the last channel is alpha (TIFF: an extra sample, whatever its kind) */
    int pages;                /* TIFF: the directories (pages) of the file; WebP, AVIF: the frames; others 1 */
    int animated;             /* WebP, AVIF: an animation / a sequence (the decode gives its first frame) */
    int tiled, planar;        /* TIFF: tiles rather than strips; PlanarConfiguration 2 (separate planes) */
    const char *colour_space; /* static: JPEG and PNG as their describes; WebP "RGB" / "RGBA"; TIFF
                                 "MinIsBlack", "MinIsWhite", "RGB", "Palette" or "YCbCr"; AVIF the chroma
                                 subsampling "YUV444", "YUV422", "YUV420" or "YUV400" (gray) */
    const char *compression;  /* static: WebP "lossy", "lossless" or "mixed" (an animation's frames differ);
                                 TIFF "none", "lzw", "deflate", "packbits", "jpeg", "zstd", "lzma", "webp" or
                                 "other"; JPEG "jpeg"; PNG "deflate"; AVIF "av1" */
} aug_image_desc;

/* Describes page `page` (0 the first; TIFF only, else it must be 0) of a file of
 * any format from its header (no pixel decoded). AUG_ERR_JPEG (the decoders'
 * error) naming the function and the decoder's reason for data that is not a
 * readable file of a known format, or a TIFF variant the decoder refuses
 * (sample formats other than unsigned integers, bit depths other than 8 and
 * 16, CMYK or Lab, more than 4 samples per pixel); AUG_ERR_VALUE for NULL
 * arguments or a page outside the file. On error *desc is untouched. */
AUG_API aug_status aug_image_describe(const void *data, size_t size, int page, aug_image_desc *desc);

/* The options of aug_decoder_decode_ex. */
typedef struct aug_decode_options {
    const int64_t *roi;         /* NULL, or {y, x, h, w} of the (scaled) image, as aug_decoder_decode_region */
    int scale_num, scale_denom; /* JPEG's DCT scaling M/8; 1/1 for the other formats */
    aug_decode_mode mode;       /* the output's channels */
    aug_dtype dtype;            /* AUG_UINT8 (the default) or AUG_UINT16 */
    int page;                   /* TIFF: the directory to decode (0 the first); 0 for the other formats */
} aug_decode_options;

/* The defaults: whole image, scale 1/1, RGB, uint8, page 0. */
AUG_API aug_decode_options aug_decode_options_default(void);

/* aug_decoder_decode_as with a dtype and a page (opts NULL: the defaults).
 * JPEG, PNG, WebP (libwebp: lossy, lossless, alpha; an animation gives its
 * first frame, composited on its canvas as libwebp's WebPAnimDecoder does) and
 * TIFF (libtiff: strips or tiles, chunky or planar, 8 or 16-bit unsigned
 * samples, 1-4 samples per pixel, gray (MinIsBlack, MinIsWhite inverted), RGB,
 * 8-bit palette, YCbCr in JPEG-compressed files; every compression libtiff
 * reads) and AVIF (libavif: 8/10/12-bit, alpha, 4:0:0 gray, a sequence's
 * first frame; YUV to RGB by libavif's avifImageYUVToRGB with the file's CICP)
 * are told apart by their magic bytes. dtype AUG_UINT8: 16-bit samples
 * round to 8 bits as (v * 255 + 32767) / 65535, 10/12-bit AVIF ones in
 * libavif's conversion to 8 bits (rounded to nearest); AUG_UINT16: 16-bit
 * samples are kept, 8-bit ones scaled by 257 (v * 257: 0 -> 0, 255 -> 65535,
 * and the rounding to 8 bits gives v back) and d-bit AVIF ones to
 * round(v * 65535 / (2^d - 1)); other dtypes AUG_ERR_TYPE. The gray
 * conversions are aug_decode_mode's in either depth. WebP, TIFF and AVIF decode on
 * the CPU (a CUDA decoder uploads, as for PNG); the scale must be 1; roi cuts
 * the image (a TIFF decodes only the strips or tiles the roi touches, so damage
 * elsewhere is not seen; a WebP or AVIF decodes whole) and the decoder's limit bounds
 * the whole image (the page's), checked before anything is allocated; a
 * TIFF's tile must be within the limit too. page: the TIFF directory (0 the
 * first; AUG_ERR_VALUE naming the page and the page count when it is not in
 * the file, or when it is not 0 for another format). Errors: a corrupt or
 * truncated file, a refused variant (aug_image_describe): AUG_ERR_JPEG
 * "aug_decoder_decode_ex: ..." naming the value. buffer: a contiguous tensor of
 * the dtype with h * w * C elements. The rest as aug_decoder_decode_as. */
AUG_API aug_status aug_decoder_decode_ex(aug_decoder *d, const void *data, size_t size,
                                         const aug_decode_options *opts, const aug_tensor *buffer,
                                         aug_tensor **out);

/* aug_decoder_decode_region that may return a strided view instead of a
 * compact image: for a JPEG region or scaled decode (RGB or grayscale file) on a
 * CPU decoder, libjpeg writes the band it decodes (the region widened to the
 * left to an iMCU boundary and by a few columns for the upsampling) straight
 * into the result's memory, and *out is the (h, w, 3) view of the region's
 * columns, rows (w + 68) * 3 bytes apart: the same pixels without the copy of
 * each row (what aug_warp_affine and the other ops read as well). With buffer,
 * the buffer needs h * (w + 68) * 3 elements for the view, else the decode is
 * compact in it, as with every other decode (whole images, CMYK files, CUDA
 * decoders, PNG), which gives aug_decoder_decode_region's contiguous result. */
AUG_API aug_status aug_decoder_decode_view(aug_decoder *d, const void *data, size_t size, const int64_t *roi,
                                           int scale_num, int scale_denom, const aug_tensor *buffer,
                                           aug_tensor **out);

#ifdef __cplusplus
}
#endif
#endif
