/* core/resize_layout.h: the image layouts of resize, flip and crop (private).
 *
 * An image is "HW", "HWC" or "CHW", a batch "NHWC" or "NCHW"; aug__image_layout
 * resolves a tensor's layout (its layout string, an explicit argument, or the
 * default for its ndim, aug/resize.h) to the axes and their sizes and strides. */
#ifndef AUG_CORE_RESIZE_LAYOUT_H
#define AUG_CORE_RESIZE_LAYOUT_H

#include "aug/tensor.h"
#include "error.h"

enum { AUG__LAYOUT_IMAGE = 1, AUG__LAYOUT_BATCH = 2 };

typedef struct aug__img_layout {
    char name[8];
    int nd, n_ax, h_ax, w_ax, c_ax;   /* axes; -1 for an absent N or C */
    int64_t N, H, W, C;               /* 1 for an absent N or C */
    int64_t sn, sh, sw, sc;           /* element strides; 0 for an absent N or C */
} aug__img_layout;

/* Resolves t's layout: `layout` (may be NULL) must equal t's layout string when
 * both are given; the layout must be one of `kinds` (AUG__LAYOUT_IMAGE /
 * _BATCH) and have t->ndim letters. AUG_ERR_VALUE naming func otherwise. */
AUG__HIDDEN aug_status aug__image_layout(const char *func, const aug_tensor *t, const char *layout, int kinds,
                                         aug__img_layout *L);

#endif
