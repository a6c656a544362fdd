/* core/warp.h: the warp plan the core hands to a backend (private): the
 * warp_affine family's (6 matrix values per image) and the warp_perspective
 * family's (9 values per image, a 3 x 3 homography with a nonzero determinant;
 * scalar/warp.h's aug__warp_project maps its samples).
 *
 * The core (core/warp.c) has validated everything: n >= 1 images src[i]
 * (H_i, W_i, C) on the plan's device (views: a CHW or HW source arrives as an
 * (H, W, C) view with permuted strides), dst an (n, C, Ht, Wt) view on the same
 * device with the strides of the output layout (NCHW: C-contiguous; NHWC:
 * channel stride 1, pixel stride C) not overlapping any source, finite matrices,
 * supersampling in [1, 16], the background read into C host doubles, and the
 * interpolation and border in range. The backend runs semantics §13's
 * definition (docs/warp.md states the arithmetic a backend must follow). */
#ifndef AUG_CORE_WARP_H
#define AUG_CORE_WARP_H
#include "backend.h"

struct aug__warp_plan {
    const char *func;                 /* "aug_warp_affine" / "aug_warp_perspective" / ..., for messages */
    int64_t n;                        /* number of images, >= 1 */
    const aug_tensor *const *src;     /* n borrowed tensors (H_i, W_i, C), any strides and dtype */
    aug_tensor *dst;                  /* (n, C, Ht, Wt) view (element strides by layout), any dtype */
    int64_t channels, height, width;  /* C, Ht, Wt */
    const float *matrices;            /* 6n values (warp_affine) or 9n (warp_perspective), host memory, finite */
    const int *supersampling;         /* n values >= 1, host memory */
    const double *background;         /* C values, host memory (zeros when none was given) */
    aug__exec exec;
    int interp;                       /* aug_warp_interp */
    int border;                       /* aug_warp_border */
};

#endif
