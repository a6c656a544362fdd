/* core/normalize.h: the crop_mirror_normalize and Gaussian noise plans handed
 * to the backends (private).
 *
 * The core checks the images, windows and parameters, turns mean/std/scale/
 * shift into DALI's per-channel float pair (mean', inv), resolves the fill value
 * of every output channel, and describes each image by its window in input
 * coordinates; a backend writes every output value with scalar/normalize.h. */
#ifndef AUG_CORE_NORMALIZE_H
#define AUG_CORE_NORMALIZE_H

#include "backend.h"
#include "scalar/normalize.h"

/* One image of a crop_mirror_normalize plan. Output column x of the window reads
 * input column ax + x, or ax + ow - 1 - x when mirrored; row y reads ay + y;
 * positions outside [0, h) x [0, w) take the fill value. */
typedef struct aug__cmn_image {
    const char *src;              /* input value (0, 0, channel 0), backend memory */
    int64_t h, w;                 /* input extent */
    int64_t sy, sx, sc;           /* input byte strides of rows, columns, channels */
    int64_t ay, ax;               /* window anchor (may be negative with padding) */
    int64_t mirror;               /* 0 or 1 (int64 keeps the struct free of padding) */
} aug__cmn_image;

struct aug__cmn_plan {
    const char *func;
    int64_t n;                    /* images */
    int64_t c, cout;              /* input channels, output channels (cout >= c) */
    int64_t oh, ow;               /* output window */
    int in_dtype, out_dtype;      /* every image has in_dtype */
    int nhwc;                     /* output (n, oh, ow, cout) instead of (n, cout, oh, ow) */
    int normalize;                /* 0: values are converted without the formula */
    const aug__cmn_image *images; /* n descriptors (host) */
    const float *mean, *inv;      /* cout values each (host); channels >= c unused */
    const char *fill;             /* cout values of out_dtype (host), saturate_cast already */
    char *dst;                    /* the output, C-contiguous, backend memory */
    aug__exec exec;
};

/* The fused Gaussian noise: out[i] = aug__noise_value(...) for element i of x
 * in C order (shape, byte strides of x and out; any strides). */
struct aug__noise_plan {
    const char *func;
    aug__rand_params p;           /* key, call; mean; std of the scalar case */
    const double *stds;           /* NULL, or one std per slice along dim 0 (host) */
    int64_t per_image;            /* elements per slice along dim 0 (stds only) */
    int x_dtype, out_dtype, ct;   /* ct: AUG__CT_FLOAT32 or AUG__CT_FLOAT64 */
    int ndim;
    int64_t shape[AUG_MAX_DIMS];
    int64_t xs[AUG_MAX_DIMS], os[AUG_MAX_DIMS]; /* byte strides */
    const char *x;
    char *out;
    int64_t n;                    /* elements, >= 1 */
    aug__exec exec;
};

#endif
