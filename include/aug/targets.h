/* aug/targets.h: co-transforms of detection targets (bounding boxes, keypoints)
 * by the affine matrix of a geometric op (docs/targets.md).
 *
 * The matrix is the one the warps take: the INVERSE map, output pixel ->
 * source pixel, 6 floats row-major (aug_make_affine_matrix, docs/warp.md).
 * Targets need the forward map, so these functions invert it in double.
 *
 * Coordinate conventions (those of albumentations):
 * - keypoints are pixel-centre coordinates, like the matrix: (0, 0) is the
 *   centre of the top-left pixel, so a keypoint maps as p' = F p with F the
 *   forward map; it is visible in an output of Ht x Wt when 0 <= x < Wt and
 *   0 <= y < Ht.
 * - box coordinates are pixel EDGES: a box (0, 0, W, H) covers the whole
 *   image (pascal_voc). A corner maps as p' = F (p - 0.5) + 0.5, so a
 *   horizontal flip gives x' = W - x for boxes and x' = W - 1 - x for keypoints.
 * Normalised box coordinates are the pixel ones divided by the image width and
 * height (input: the source size, output: the target size).
 *
 * The math runs on the host in double. Tensors on a CUDA device are copied to
 * the host and the results come back on the same device. Ownership: the
 * aug_tensor ** results are NEW tensors the caller frees; inputs are borrowed.
 * Errors: aug_status with "aug_<function>: ..." messages; nothing is written on
 * error. */
#ifndef AUG_TARGETS_H
#define AUG_TARGETS_H

#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Box layouts (4 columns). */
typedef enum aug_box_format {
    AUG_BOX_XYXY = 0,  /* x_min, y_min, x_max, y_max (pascal_voc; albumentations when normalised) */
    AUG_BOX_XYWH = 1,  /* x_min, y_min, width, height (coco) */
    AUG_BOX_CXCYWH = 2 /* centre x, centre y, width, height (yolo when normalised) */
} aug_box_format;

/* "xyxy", "xywh" or "cxcywh" (exact, lower case) -> *out. AUG_ERR_VALUE naming
 * func and the string otherwise. */
AUG_API aug_status aug_box_format_parse(const char *name, aug_box_format *out, const char *func);

typedef struct aug_box_params {
    aug_box_format format;
    int normalized;        /* coordinates are fractions of the image width / height */
    double min_area;       /* drop boxes whose visible (clipped) area is below this, in output pixels; >= 0 */
    double min_visibility; /* drop boxes whose visible area is below this fraction of the transformed,
                            * unclipped area; in [0, 1] */
} aug_box_params;

/* xyxy, pixel coordinates, min_area 0, min_visibility 0. */
AUG_API aug_box_params aug_box_params_default(void);

/* The forward map of an inverse warp matrix: fwd[6] (row-major 2x3, double)
 * with fwd(inv(p)) = p. AUG_ERR_VALUE for a non-finite or singular matrix. */
AUG_API aug_status aug_affine_forward(const float matrix[6], double fwd[6]);

/* Host form. boxes: n rows of 4 doubles in params->format. Each box becomes the
 * enclosing axis-aligned box of its four transformed corners, is clipped to the
 * target image [0, target_width] x [0, target_height] and kept when its clipped
 * area is > 0, >= min_area and >= min_visibility * its unclipped area. The kept
 * boxes are written, in order and in the input's format, to out (room for n
 * rows), the input row of each to keep[] (room for n; may be NULL), their
 * number to *kept. Errors (AUG_ERR_VALUE naming the row and value): a NaN or
 * infinite coordinate, x_max < x_min or y_max < y_min (xyxy), a negative width
 * or height, sizes <= 0, params out of range, a singular matrix. */
AUG_API aug_status aug_boxes_affine_host(int64_t n, const double *boxes, const float matrix[6], int64_t source_height,
                                         int64_t source_width, int64_t target_height, int64_t target_width,
                                         const aug_box_params *params, double *out, int64_t *keep, int64_t *kept);

/* Tensor form. boxes (n, 4), any real dtype (not bool), any strides, on any
 * device. *out: a new (kept, 4) tensor (float64 for float64 input, else
 * float32) on boxes' device; *keep (may be NULL): a new (kept,) int64 tensor of
 * the input rows kept, on the same device. */
AUG_API aug_status aug_boxes_affine(const aug_tensor *boxes, const float matrix[6], int64_t source_height,
                                    int64_t source_width, int64_t target_height, int64_t target_width,
                                    const aug_box_params *params, aug_tensor **out, aug_tensor **keep);

/* A batch with ragged boxes as a padded tensor: boxes (N, M, 4), counts[N]
 * (host; NULL: M each; 0 <= counts[i] <= M) valid rows per image, matrices[6N],
 * source_sizes[2N] (height, width per image) in host memory, one target size.
 * *out: new (N, M, 4) tensor (dtype as aug_boxes_affine) with image i's kept
 * boxes in its first out_counts[i] rows and zeros after; *keep (may be NULL):
 * new (N, M) int64 tensor of the kept rows' indices within image i, -1 after.
 * out_counts[N] in host memory. The same as N calls of aug_boxes_affine. */
AUG_API aug_status aug_boxes_affine_batch(const aug_tensor *boxes, const int64_t *counts, const float *matrices,
                                          const int64_t *source_sizes, int64_t target_height, int64_t target_width,
                                          const aug_box_params *params, aug_tensor **out, int64_t *out_counts,
                                          aug_tensor **keep);

/* Keypoints: n rows of ncols in {2, 3, 4} doubles: x, y [, angle [, scale]], in
 * pixel-centre coordinates, the angle in degrees (clockwise on the screen, as
 * the y axis points down). (x, y) -> F (x, y); the angle becomes that of the
 * transformed direction F_lin (cos a, sin a) in [0, 360) (rotations add their
 * angle, a horizontal flip gives 180 - a), the scale is multiplied by
 * sqrt(|det F_lin|). A keypoint is visible when 0 <= x < target_width and
 * 0 <= y < target_height. remove_invisible != 0: only the visible rows are
 * written to out (in order); else all n. keep[] (room for n; may be NULL)
 * receives the input rows of the visible ones, *kept their number (the rows
 * written: *kept with remove_invisible, else n). Errors: NaN or infinite values, ncols, sizes, a
 * singular matrix. */
AUG_API aug_status aug_keypoints_affine_host(int64_t n, int ncols, const double *keypoints, const float matrix[6],
                                             int64_t target_height, int64_t target_width, int remove_invisible,
                                             double *out, int64_t *keep, int64_t *kept);

/* Tensor form: keypoints (n, 2|3|4), any real dtype, any device; *out new
 * (rows, ncols) float32 (float64 for float64 input) on its device; *keep (may be
 * NULL) new (visible,) int64 of the visible input rows. */
AUG_API aug_status aug_keypoints_affine(const aug_tensor *keypoints, const float matrix[6], int64_t target_height,
                                        int64_t target_width, int remove_invisible, aug_tensor **out,
                                        aug_tensor **keep);

#ifdef __cplusplus
}
#endif
#endif
