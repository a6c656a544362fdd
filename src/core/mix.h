/* core/mix.h: the mix_mirror plan handed to the backends (private).
 *
 * The core checks the batch, the weights and the boxes and resolves what each
 * image becomes (aug__mix_image); the backend walks the mirrored pairs (i,
 * j = N - 1 - i, i <= j) and applies scalar/mix.h's rule per value, reading both
 * images' original values before writing either. */
#ifndef AUG_CORE_MIX_H
#define AUG_CORE_MIX_H

#include "backend.h"
#include "scalar/mix.h"

/* One image's part: AUG__MIX_CUT inside [x1, x2) x [y1, y2) (non-empty), the
 * image's own value elsewhere; AUG__MIX_BLEND everywhere (w, v); AUG__MIX_KEEP
 * nowhere (the image is not written). 48 bytes, uploaded as is to a GPU. */
typedef struct aug__mix_image {
    int64_t x1, y1, x2, y2;
    double w, v;
    int32_t kind;
    int32_t pad_;
} aug__mix_image;

struct aug__mix_plan {
    const char *func;
    aug_tensor *im;                /* (N, C, H, W), any strides without overlap; mixed in place */
    char *base;                    /* im's value [0, 0, 0, 0] (device memory of the backend) */
    int dtype;                     /* AUG_FLOAT16, AUG_BFLOAT16, AUG_FLOAT32 or AUG_FLOAT64 */
    int64_t n, c, h, w;            /* extents */
    int64_t sn, sc, sh, sw;        /* strides in elements (any sign) */
    const aug__mix_image *images;  /* n entries (host) */
    aug__exec exec;
};

#endif
