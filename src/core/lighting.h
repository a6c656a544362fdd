/* core/lighting.h: the lighting plan handed to the backends (private).
 *
 * The core checks shapes, dtypes, devices and the parameter values (read from
 * the image's device into host doubles) and allocates the output; the backend
 * applies scalar/lighting.h's formula per value (8- and 16-bit dtypes through
 * per-plane tables built on the host, so every backend stores the same bits). */
#ifndef AUG_CORE_LIGHTING_H
#define AUG_CORE_LIGHTING_H

#include "backend.h"
#include "scalar/lighting.h"

struct aug__lighting_plan {
    const char *func;
    const aug_tensor *im;          /* (N, C, H, W) or (C, H, W), contiguous */
    aug_tensor *out;               /* same shape and dtype, contiguous; may be im */
    const char *src;               /* im's first value (device memory of the backend) */
    char *dst;                     /* out's first value; == src or not overlapping it */
    const double *gg;              /* gammagrays, N values (host) */
    const double *gc;              /* gammacolors, N*C values, image-major (host) */
    const double *ct;              /* contrasts, N values (host) */
    int64_t n, c, hw;              /* images, channels, values per channel plane */
    double vmin, vmax;             /* finite, vmin < vmax */
    aug__exec exec;
};


#endif
