/* core/lighting.h: the lighting plan handed to the backends, and the SPEC 13
 * lighting formula every backend evaluates (private).
 *
 * The core checks shapes, dtypes and devices and allocates the output; the
 * backend reads the parameter values (they live on the image's device), checks
 * them with aug__lighting_check_params and applies the formula per value. */
#ifndef AUG_CORE_LIGHTING_H
#define AUG_CORE_LIGHTING_H

#include <math.h>
#include "backend.h"

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

/* SPEC 13 in double for one value x: normalise and clip, contrast c (|c| <= 1),
 * gamma g = gammagray * gammacolor; returns the denormalised value before
 * saturate_cast. The constants are the SPEC's: f_pos is a logistic curve
 * scaled so f_pos(0) = 0 and f_pos(1) = 1 (6.279 = 12.558 / 2 centres it at
 * 0.5); f_neg is its inverse shape, an atanh curve with the same end points. */
static inline double aug__lighting_value(double x, double vmin, double vmax, double c, double g) {
    double range = vmax - vmin;
    double v = (x - vmin) / range;
    if (v < 0.0) v = 0.0;
    else if (v > 1.0) v = 1.0; /* NaN passes through, as in NumPy's clip */
    double a = fabs(c);
    double f = c >= 0.0 ? 1.0037575963899724 / (1.0 + exp(6.279 - 12.558 * v)) - 0.0018787981949862
                        : 0.1755606108304832 * atanh(1.986608 * v - 0.993304) + 0.5;
    v = (1.0 - a) * v + a * f;
    v = pow(v, g);
    return v * range + vmin;
}

#endif
