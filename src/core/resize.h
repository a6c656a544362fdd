/* core/resize.h: the resize plan the core hands to a backend (private).
 *
 * The core (core/resize.c) has validated everything and built, per image, the
 * tap tables of both axes with scalar/resize.h (host memory): output column x
 * of image i reads taps[img[i].xtab + x], output row y taps[img[i].ytab + y];
 * a tap entry's weights are w64 / w32[woff .. woff + count). Images of one
 * size share their tables. Each image is (H, W, C) with byte strides, its
 * output (Ho, Wo, C) likewise (any strides; the output does not overlap the
 * sources and has no self-overlap). The backend evaluates scalar/resize.h's
 * sums (a `gather` image copies the tapped element with saturate_cast). */
#ifndef AUG_CORE_RESIZE_H
#define AUG_CORE_RESIZE_H
#include "backend.h"

typedef struct aug__resize_tap {
    int64_t first; /* first source index */
    int64_t woff;  /* first weight in w64 / w32 */
    int64_t count; /* taps, >= 1 */
} aug__resize_tap;

typedef struct aug__resize_image {
    const char *src;          /* element (0, 0, 0) */
    char *dst;                /* output element (0, 0, 0) */
    int64_t H, W;             /* source size, >= 1 */
    int64_t sh, sw, sc;       /* source byte strides */
    int64_t dh, dw, dc;       /* output byte strides */
    int64_t xtab, ytab;       /* first tap entry of the x (Wo entries) and y (Ho entries) tables */
    int src_dtype;
    int compute;              /* AUG_FLOAT32 or AUG_FLOAT64 */
    int gather;               /* every tap is a single weight 1: copy the element exactly */
} aug__resize_image;

struct aug__resize_plan {
    const char *func;
    int64_t n, C, Ho, Wo;              /* images (>= 1), channels, output size (>= 1) */
    const aug__resize_image *img;      /* n images (host) */
    const aug__resize_tap *taps;       /* ntaps entries (host) */
    const double *w64;                 /* nw weights (host) */
    const float *w32;                  /* the same, rounded to float32 */
    int64_t ntaps, nw;
    int dst_dtype;
    int chw;                           /* the output is channel-major (CHW / NCHW): hint for the loop order */
    aug__exec exec;
};

#endif
