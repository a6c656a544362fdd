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
#include "scalar/noise_table.h"

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
 * in C order (shape, byte strides of x and out, any strides; the core merges
 * the dims that chain and drops those of extent 1), or, when table is
 * set (8/16-bit integer x and out), aug__noise_table_value(...) with the table
 * at table + table_of[image] (table + 0 when table_of is NULL). */
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
    const uint32_t *table;        /* NULL (the float rule), or the integer rule's tables (host) */
    int64_t table_words;          /* words at table */
    const uint32_t *table_of;     /* NULL, or the word offset of image n's table (host, stds only) */
    aug__exec exec;
};

/* core/noise_table.c: K, the largest |k| the output can show from any x. */
AUG__HIDDEN int64_t aug__noise_table_kmax(int x_t, int out_t);
/* Words of the table of (mean, std) clipped to [-K, K] (an upper bound), and its
 * build into t (returns the words used). */
AUG__HIDDEN int64_t aug__noise_table_words(double mean, double std, int64_t K);
AUG__HIDDEN int64_t aug__noise_table_build(double mean, double std, int64_t K, uint32_t *t);
/* The tables of one call: one for std (stds NULL), or one per distinct value of
 * stds[0 .. nimg) with table_of[n] the offset of image n's; free() both. */
AUG__HIDDEN aug_status aug__noise_tables(const char *func, int x_t, int out_t, double mean, double std,
                                         const double *stds, int64_t nimg, uint32_t **words, int64_t *nwords,
                                         uint32_t **table_of);

#endif
