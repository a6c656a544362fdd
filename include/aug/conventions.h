/* aug/conventions.h: the conventions every image op shares (docs/semantics.md,
 * "Conventions of image ops"): one interpolation vocabulary and the image
 * layout strings.
 *
 * Interpolation: aug_interp, named "linear" (the default of every op; also
 * "bilinear", "inter_linear"), "nearest" ("inter_nearest"), "area"
 * ("inter_area") and "cubic" ("bicubic", "inter_cubic"), case-insensitive.
 * aug_warp_interp and aug_resize_interp (and their AUG_WARP_* / AUG_RESIZE_*
 * constants) are the old spellings of the same type; an op that lacks a mode
 * (warp has no "area", resize no "cubic") fails with
 * "<func>: interpolation 'area' is not supported (linear, nearest, cubic)".
 *
 * Layouts are strings everywhere: "HW", "HWC", "CHW" (an image), "NHWC", "NCHW"
 * (a batch). A function that takes a layout takes `const char *layout` for its
 * input and `out_layout` for its output; NULL takes the tensor's layout string
 * (aug_tensor_set_layout), else the function's documented default. An op that
 * reads fewer layouts says so with aug_layout_check's message. */
#ifndef AUG_CONVENTIONS_H
#define AUG_CONVENTIONS_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum aug_interp {
    AUG_INTERP_LINEAR = 0,  /* bilinear (warp: the mean of s*s samples; resize: OpenCV's INTER_LINEAR) */
    AUG_INTERP_NEAREST = 1, /* the nearest source value, never blended (masks, labels) */
    AUG_INTERP_AREA = 2,    /* OpenCV's INTER_AREA (resize only) */
    AUG_INTERP_CUBIC = 3    /* Keys' cubic convolution, a = -0.75, 4x4 taps (OpenCV's INTER_CUBIC, torch's
                             * bicubic; warp only: docs/warp.md "Bicubic") */
} aug_interp;

/* The mode of a name, case-insensitive: "linear" (also "bilinear",
 * "inter_linear"), "nearest" ("inter_nearest"), "area" ("inter_area"), "cubic"
 * ("bicubic", "inter_cubic"). AUG_ERR_VALUE "func: unknown interpolation
 * 'lanczos' (expected 'linear', 'nearest', 'area' or 'cubic')" otherwise (func NULL: "aug_interp_from_name"); *out is
 * written only on success. */
AUG_API aug_status aug_interp_from_name(const char *func, const char *name, aug_interp *out);
/* The canonical name: "linear", "nearest", "area", "cubic"; NULL for other values. */
AUG_API const char *aug_interp_name(aug_interp interp);

/* Whether layout (NULL or "" pass: no layout) is one of `supported`, a
 * comma-separated list such as "NCHW,CHW". AUG_ERR_VALUE
 * "func: <what> 'NHWC' is not supported (NCHW, CHW)" otherwise (what NULL:
 * "layout"). Every image op checks its layouts with this message. */
AUG_API aug_status aug_layout_check(const char *func, const char *what, const char *layout, const char *supported);

#ifdef __cplusplus
}
#endif
#endif
