/* scalar/lighting.h: the lighting curve of one value (semantics §13; private,
 * shared by every backend). */
#ifndef AUG_SCALAR_LIGHTING_H
#define AUG_SCALAR_LIGHTING_H

#include "hd.h"

/* In double for one value x: normalise and clip, contrast c (|c| <= 1), gamma
 * g = gammagray * gammacolor; returns the denormalised value before
 * saturate_cast. The constants are the contract's: f_pos is a logistic curve
 * scaled so f_pos(0) = 0 and f_pos(1) = 1 (6.279 = 12.558 / 2 centres it at
 * 0.5); f_neg is its inverse shape, an atanh curve with the same end points.
 * Backends evaluate it on the host into per-plane tables (8/16-bit dtypes), so
 * the platform's exp/atanh/pow do not make them differ. */
AUG_HD double aug__lighting_value(double x, double vmin, double vmax, double c, double g) {
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
