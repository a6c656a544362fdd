/* aug/resize.h: resize (nearest, bilinear, area; antialiased downscale) and
 * the geometric views flip, crop and center_crop. docs/resize.md states the
 * arithmetic.
 *
 * Layouts: an image is "HW", "HWC" (as decoded) or "CHW"; a batch "NHWC" or
 * "NCHW". A `layout` argument names the input's layout; NULL takes the tensor's
 * layout string, and a tensor without one counts as "HW" (2-D), "HWC" (3-D) or
 * "NCHW" (4-D) (aug/conventions.h). A layout argument that differs from the
 * tensor's non-empty layout is an error (AUG_ERR_VALUE), as is one whose length
 * is not ndim, and one the function does not read ("func: layout 'NHWC' is not
 * supported (HW, HWC, CHW)", aug_layout_check's message).
 * Inputs may have any strides (views: crops, flips, transposes). Errors:
 * aug_status / NULL with "aug_<function>: ..." messages (aug_last_error()). */
#ifndef AUG_RESIZE_H
#define AUG_RESIZE_H

#include "conventions.h"
#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- resize ------------------------------------------------------------------ */

/* The interpolation: aug_interp (aug/conventions.h); aug_resize_interp and its
 * constants are its old spelling (the names compile unchanged; the values are
 * aug_interp's: LINEAR 0, NEAREST 1, AREA 2).
 * NEAREST: cv2.INTER_NEAREST, source index floor(x * (1 / (out / in)));
 * LINEAR: cv2.INTER_LINEAR (antialias off), Pillow's BILINEAR on downscale (on);
 * AREA: cv2.INTER_AREA. */
typedef aug_interp aug_resize_interp;
#define AUG_RESIZE_NEAREST AUG_INTERP_NEAREST
#define AUG_RESIZE_LINEAR AUG_INTERP_LINEAR
#define AUG_RESIZE_AREA AUG_INTERP_AREA

/* Resizes src to (height, width) (1 ... 2^31 - 1 each): an image (H, W[, C]) /
 * (C, H, W) or a batch (N, ...) whose images all take the same size. Every dtype
 * and channel count; stored with saturate_cast.
 *  - NEAREST: the value at (floor(y * sy), floor(x * sx)) with s = 1 / (out / in)
 *    in double, clamped to the last index (OpenCV's INTER_NEAREST); exact.
 *  - LINEAR: each axis separately; position p = (o + 0.5) * s - 0.5, two taps
 *    (1 - t, t) at floor(p) (OpenCV's INTER_LINEAR, edges clamped). With
 *    antialias != 0, an axis that shrinks (in > out) takes Pillow's triangle
 *    filter widened by in / out instead (Pillow's BILINEAR, torchvision's
 *    antialias=True); growing axes are unchanged.
 *  - AREA: OpenCV's INTER_AREA: when neither axis grows, the mean over each
 *    output pixel's footprint (partial pixels weighted); otherwise OpenCV's
 *    area-weighted linear interpolation. antialias is ignored.
 * The weighted sums run horizontally first, then vertically, in float32 for
 * sources float32 holds exactly (8/16-bit, bool, float16, bfloat16, float32) when
 * the output is not float64, in double otherwise; taps whose weights are all a
 * single 1 (same size, nearest) copy exactly. docs/resize.md has the details.
 * *out: NULL -> a new contiguous tensor of src's dtype and layout (caller frees);
 * otherwise a tensor on src's device with src's shape except H and W, any dtype
 * and strides, not overlapping src; its layout is set. */
AUG_API aug_status aug_resize(const aug_tensor *src, const char *layout, int64_t height, int64_t width,
                              aug_resize_interp interp, int antialias, aug_tensor **out);

/* Resizes n >= 1 images src[i] (each "HW", "HWC" or "CHW" per `layout`, any
 * sizes, strides and dtype, the same channel count) into dst (n, C, height,
 * width) ("NCHW") or (n, height, width, C) ("NHWC"), any dtype, on the images'
 * device, not overlapping them. out_layout: "NCHW", "NHWC" or NULL (dst's
 * layout, "NCHW" when it has none); it is set on dst. Otherwise as aug_resize. */
AUG_API aug_status aug_resize_batch(int64_t n, const aug_tensor *const *src, const char *layout, aug_tensor *dst,
                                    const char *out_layout, aug_resize_interp interp, int antialias);

/* The output size that makes the shorter side `size` and keeps the aspect
 * ratio (torchvision's resize with an int size): shorter = size, longer =
 * floor(size * longer / shorter), at least 1. AUG_ERR_VALUE unless all are >= 1. */
AUG_API aug_status aug_resize_shorter_side(int64_t height, int64_t width, int64_t size, int64_t *out_height,
                                           int64_t *out_width);

/* The sizes of an image or batch under `layout` (the rules above): *n images
 * (1 without N), *h, *w, *c channels (1 without C); NULL pointers are skipped. */
AUG_API aug_status aug_image_dims(const aug_tensor *t, const char *layout, int64_t *n, int64_t *h, int64_t *w,
                                  int64_t *c);

/* ---- flip, crop (views) -------------------------------------------------------- */

/* A view of t mirrored left-right (horizontal != 0) and/or upside down
 * (vertical != 0): negative strides, no copy, the same storage. New (caller
 * frees); NULL with an error. */
AUG_API aug_tensor *aug_flip(const aug_tensor *t, const char *layout, int horizontal, int vertical);

/* A view of rows [y, y + h) and columns [x, x + w) of every image of t; y, x >= 0,
 * h, w >= 1, y + h <= H, x + w <= W (else AUG_ERR_VALUE naming the values and the
 * image size). New (caller frees); NULL with an error. */
AUG_API aug_tensor *aug_crop(const aug_tensor *t, const char *layout, int64_t y, int64_t x, int64_t h, int64_t w);

/* The centred (h, w) crop, torchvision's CenterCrop: per axis, a crop that fits
 * starts at round-half-even((size - crop) / 2) and is a view; one larger than the
 * image pads it with zeros, (crop - size) / 2 (floor) before and the rest after,
 * and then the result is a new contiguous tensor. h, w >= 1. New (caller frees). */
AUG_API aug_tensor *aug_center_crop(const aug_tensor *t, const char *layout, int64_t h, int64_t w);

/* A batch (N, ...) ("NCHW" or "NHWC") in which image i is flipped where flags[i]
 * != 0 (n = N flags in host memory) and copied as it is otherwise: a copy into
 * *out (NULL: a new contiguous tensor, caller frees; else same shape and dtype on
 * the same device, any strides, which may be t itself: in place). */
AUG_API aug_status aug_flip_batch(const aug_tensor *t, const char *layout, const uint8_t *flags, int64_t n,
                                  int horizontal, int vertical, aug_tensor **out);

#ifdef __cplusplus
}
#endif
#endif
