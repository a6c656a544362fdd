/* core/transform.c: aug_make_affine_matrix (semantics §13, manual 3.1.4.2).
 *
 * Builds the inverse map (output pixel -> source pixel, OpenCV's WARP_INVERSE_MAP)
 *   M = T(sw + wdelta*shiftx, sh + hdelta*shifty) . R(-angle) . diag(r*aspect*(+-1), r/aspect*(+-1))
 *       . [[1, shearx], [sheary, 1]] . T(-tw, -th)
 * with sw, sh, tw, th the half sizes and r the scale ratio, in double, and stores
 * it as float32. Also recommends a supersampling factor max(1, min(max, ceil(r))). */
#include <math.h>
#include "aug/image.h"
#include "error.h"

static const char FUNC[] = "aug_make_affine_matrix";

aug_affine_params aug_affine_params_default(void) {
    aug_affine_params p = {
        .angle = 0.0, .scale = 1.0, .aspect = 1.0,
        .shifty = 0.0, .shiftx = 0.0, .sheary = 0.0, .shearx = 0.0,
        .hmirror = 0, .vmirror = 0,
        .scale_mode = AUG_WARP_SCALE_SHORTEST,
        .max_supersampling = 3,
    };
    return p;
}

static aug_status check_finite(const char *name, double v) {
    if (!isfinite(v)) return aug__error(AUG_ERR_VALUE, FUNC, "%s must be finite, got %g", name, v);
    return AUG_OK;
}

aug_status aug_make_affine_matrix(float out[6], int64_t source_height, int64_t source_width,
                                  int64_t target_height, int64_t target_width,
                                  const aug_affine_params *params, int *supersampling) {
    if (!out) return aug__error(AUG_ERR_VALUE, FUNC, "out is NULL");
    if (!params) return aug__error(AUG_ERR_VALUE, FUNC, "params is NULL");
    if (source_height <= 0 || source_width <= 0)
        return aug__error(AUG_ERR_VALUE, FUNC, "source size must be positive, got (%lld, %lld)",
                          (long long)source_height, (long long)source_width);
    if (target_height <= 0 || target_width <= 0)
        return aug__error(AUG_ERR_VALUE, FUNC, "target size must be positive, got (%lld, %lld)",
                          (long long)target_height, (long long)target_width);
    const aug_affine_params *p = params;
    aug_status st;
    if ((st = check_finite("angle", p->angle)) || (st = check_finite("scale", p->scale)) ||
        (st = check_finite("aspect", p->aspect)) || (st = check_finite("shifty", p->shifty)) ||
        (st = check_finite("shiftx", p->shiftx)) || (st = check_finite("sheary", p->sheary)) ||
        (st = check_finite("shearx", p->shearx)))
        return st;
    if (p->scale == 0.0) return aug__error(AUG_ERR_VALUE, FUNC, "scale must not be 0");
    if (p->aspect == 0.0) return aug__error(AUG_ERR_VALUE, FUNC, "aspect must not be 0");
    if (p->scale_mode != AUG_WARP_SCALE_SHORTEST && p->scale_mode != AUG_WARP_SCALE_LONGEST)
        return aug__error(AUG_ERR_VALUE, FUNC, "invalid scale_mode %d", (int)p->scale_mode);
    if (p->max_supersampling < 1 || p->max_supersampling > AUG_MAX_SUPERSAMPLING)
        return aug__error(AUG_ERR_VALUE, FUNC, "max_supersampling must be in [1, %d], got %d", AUG_MAX_SUPERSAMPLING,
                          p->max_supersampling);

    double sw = (double)source_width / 2, sh = (double)source_height / 2;
    double tw = (double)target_width / 2, th = (double)target_height / 2;
    double ry = sh / th, rx = sw / tw;
    double r = p->scale_mode == AUG_WARP_SCALE_SHORTEST ? fmin(ry, rx) : fmax(ry, rx);
    r /= p->scale;
    double wdelta = fabs(sw - tw * r), hdelta = fabs(sh - th * r);
    double phi = -p->angle * 3.14159265358979323846 / 180.0;
    double c = cos(phi), s = sin(phi);
    double dx = r * p->aspect * (p->hmirror ? -1.0 : 1.0);
    double dy = r / p->aspect * (p->vmirror ? -1.0 : 1.0);
    /* A = R . diag(dx, dy) . Shear, with R = [[c, s], [-s, c]], Shear = [[1, shx], [shy, 1]] */
    double a00 = c * dx, a01 = s * dy, a10 = -s * dx, a11 = c * dy; /* R . D */
    double m00 = a00 + a01 * p->sheary, m01 = a00 * p->shearx + a01;
    double m10 = a10 + a11 * p->sheary, m11 = a10 * p->shearx + a11;
    /* then the translations: A . (-tw, -th) + (sw + wdelta*shiftx, sh + hdelta*shifty) */
    double m02 = -(m00 * tw + m01 * th) + (sw + wdelta * p->shiftx);
    double m12 = -(m10 * tw + m11 * th) + (sh + hdelta * p->shifty);
    double m[6] = {m00, m01, m02, m10, m11, m12};
    float f[6];
    for (int i = 0; i < 6; i++) {
        f[i] = (float)m[i];
        if (!isfinite(f[i]))
            return aug__error(AUG_ERR_VALUE, FUNC, "matrix element [%d][%d] = %g is not a finite float32", i / 3,
                              i % 3, m[i]);
    }
    for (int i = 0; i < 6; i++) out[i] = f[i];
    if (supersampling) {
        double ss = ceil(r);
        if (!(ss >= 1.0)) ss = 1.0;
        if (ss > (double)p->max_supersampling) ss = (double)p->max_supersampling;
        *supersampling = (int)ss;
    }
    return AUG_OK;
}
