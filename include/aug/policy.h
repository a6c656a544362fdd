/* aug/policy.h: a batch's per-image op lists in one call (docs/policies.md,
 * "Speed"): the automatic augmentation policies (RandAugment, TrivialAugmentWide,
 * timm's RandAugment) give every image of a batch its own short list of ops;
 * aug_image_ops_batch runs image i's list on batch[i], in place. On the CPU the
 * images are spread over the worker pool (aug_get_num_threads), each image's
 * ops one after another on one thread, so no op is a pool job of its own; on
 * other devices the images run in order on the calling thread's stream, the
 * call returning without waiting for the device (no op of the list waits on
 * the host, nor does the loop between them). The result is bit for bit that
 * of calling the ops one by one (each through its own function, below) and
 * copying the result into batch[i]. */
#ifndef AUG_POLICY_H
#define AUG_POLICY_H

#include "tensor.h"
#include "conventions.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The ops, each as the function named (on the image (C, H, W), layout "CHW"). */
typedef enum aug_image_op_kind {
    AUG_IMAGE_OP_IDENTITY = 0,     /* nothing */
    AUG_IMAGE_OP_WARP_AFFINE = 1,  /* aug_warp_affine_ex(matrix, the call's background and interpolation,
                                    * supersampling 1, layouts "CHW"), same size */
    AUG_IMAGE_OP_BRIGHTNESS = 2,   /* aug_adjust_brightness(arg) */
    AUG_IMAGE_OP_CONTRAST = 3,     /* aug_adjust_contrast(arg) */
    AUG_IMAGE_OP_SATURATION = 4,   /* aug_adjust_saturation(arg) */
    AUG_IMAGE_OP_SHARPNESS = 5,    /* aug_adjust_sharpness(arg) */
    AUG_IMAGE_OP_POSTERIZE = 6,    /* aug_posterize(bits = arg, an integer) */
    AUG_IMAGE_OP_SOLARIZE = 7,     /* aug_solarize(threshold = arg) */
    AUG_IMAGE_OP_SOLARIZE_ADD = 8, /* timm's SolarizeAdd: x < 128 ? x + arg (saturating) : x; arg an integer */
    AUG_IMAGE_OP_AUTOCONTRAST = 9, /* aug_autocontrast */
    AUG_IMAGE_OP_EQUALIZE = 10,    /* aug_equalize */
    AUG_IMAGE_OP_INVERT = 11,      /* aug_invert */
    AUG_IMAGE_OP_PIL_GAUSSIAN_BLUR = 12 /* aug_pil_gaussian_blur_single(radius = arg): PIL's GaussianBlur
                                         * (timm's GaussianBlur), uint8 only; radius 0 copies */
} aug_image_op_kind;

typedef struct aug_image_op {
    aug_image_op_kind kind;
    double arg;       /* the op's number (unused by the ops without one) */
    float matrix[6];  /* WARP_AFFINE: the inverse map, as aug_warp_affine_ex takes it */
} aug_image_op;

/* batch: (N, C, H, W) on any device, layout "NCHW" or none, any strides; offsets: N + 1 nondecreasing indices into ops, offsets[0]
 * = 0: image i runs ops[offsets[i]] ... ops[offsets[i + 1] - 1] in that order
 * and the result is written back into batch[i]. background: the warps' fill
 * (as aug_warp_affine_ex: NULL for zeros, or one value per channel: on the
 * CPU, or on the batch's device, read back once per call, one host wait);
 * interpolation: the warps' (linear or nearest). Errors (AUG_ERR_VALUE unless
 * the op's own function says otherwise): a bad batch, offsets or op kind, a
 * posterize / solarize-add argument that is not an integer in range, a blur
 * radius outside [0, 1e6] or NaN, a blur on a batch that is not uint8
 * (AUG_ERR_TYPE), all refused before any image changes; and any error of an
 * op, as "aug_image_ops_batch: image i, op j: <its message>"; images other than the failing one may then hold their results. Borrows
 * everything. */
AUG_API aug_status aug_image_ops_batch(aug_tensor *batch, const aug_image_op *ops, const int64_t *offsets,
                                       const aug_tensor *background, aug_interp interpolation);

#ifdef __cplusplus
}
#endif

#endif
