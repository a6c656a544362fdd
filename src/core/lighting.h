/* core/lighting.h: the lighting plan handed to the backends (private).
 *
 * The core checks shapes, dtypes and devices and allocates the output; the
 * backend reads the parameter values (they live on the image's device), checks
 * them with aug__lighting_check_params and applies scalar/lighting.h's formula
 * per value. */
#ifndef AUG_CORE_LIGHTING_H
#define AUG_CORE_LIGHTING_H

#include "backend.h"
#include "scalar/lighting.h"

struct aug__lighting_plan {
    const char *func;
    const aug_tensor *im;          /* (N, C, H, W) or (C, H, W), contiguous */
    aug_tensor *out;               /* same shape and dtype, contiguous; may be im */
    const aug_tensor *gammagrays;  /* float32, N values */
    const aug_tensor *gammacolors; /* float32, N*C values in C order ([N*C] or (N, C)) */
    const aug_tensor *contrasts;   /* float32, N values */
    int64_t n, c, hw;              /* images, channels, values per channel plane */
    double vmin, vmax;             /* finite, vmin < vmax */
    aug__exec exec;
};

/* Checks parameter values read by a backend: gammas finite and > 0, contrasts
 * in [-1, 1] (NaN is rejected everywhere). AUG_ERR_VALUE naming func, the
 * parameter and its index otherwise. */
AUG__HIDDEN aug_status aug__lighting_check_params(const char *func, int64_t n, int64_t c, const double *gammagrays,
                                                  const double *gammacolors, const double *contrasts);

#endif
