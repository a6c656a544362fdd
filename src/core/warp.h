/* core/warp.h: the affine-warp plan the core hands to a backend (private).
 *
 * The core (core/warp.c) has validated everything: n >= 1 images src[i]
 * (H_i, W_i, C) on the plan's device, dst (n, C, Ht, Wt) C-contiguous on the same
 * device and not overlapping any source, finite matrices, supersampling >= 1,
 * and the background read into C host doubles. The backend runs semantics §13's
 * definition (docs/warp.md states the arithmetic a backend must follow). */
#ifndef AUG_CORE_WARP_H
#define AUG_CORE_WARP_H
#include "backend.h"

struct aug__warp_plan {
    const char *func;                 /* "aug_warp_affine" / "aug_warp_affine_batch", for messages */
    int64_t n;                        /* number of images, >= 1 */
    const aug_tensor *const *src;     /* n borrowed tensors (H_i, W_i, C), any strides and dtype */
    aug_tensor *dst;                  /* (n, C, Ht, Wt) view, C-contiguous, any dtype */
    int64_t channels, height, width;  /* C, Ht, Wt */
    const float *matrices;            /* 6n values, host memory, finite */
    const int *supersampling;         /* n values >= 1, host memory */
    const double *background;         /* C values, host memory (zeros when none was given) */
    aug__exec exec;
};

#endif
