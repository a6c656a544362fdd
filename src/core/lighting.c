/* core/lighting.c: aug_lighting (semantics §13, manual 3.1.4.3), the backend-neutral
 * half: argument checks, output allocation, the plan for the backend.
 *
 * The image is (N, C, H, W), or (C, H, W) taken as one image, any strides (a
 * strided one is packed into a contiguous temporary first); the output is
 * contiguous. Parameters are float32 tensors
 * on the image's device or on the CPU: gammagrays [N], gammacolors [N*C] or (N,
 * C), contrasts [N]. Their values are read to the host and checked here (from
 * the CPU without waiting for the image's device; from the device with a wait). */
#include <math.h>
#include <stdlib.h>
#include "aug/image.h"
#include "lighting.h"
#include "tensor_impl.h"

#define FUNC "aug_lighting"

/* Gammas finite and > 0, contrasts in [-1, 1] (NaN is rejected everywhere). */
static aug_status check_params(const char *func, int64_t n, int64_t c, const double *gammagrays,
                                      const double *gammacolors, const double *contrasts) {
    for (int64_t i = 0; i < n; i++) {
        double g = gammagrays[i], k = contrasts[i];
        if (!(isfinite(g) && g > 0.0))
            return aug__error(AUG_ERR_VALUE, func, "gammagrays[%lld] = %g must be finite and > 0", (long long)i, g);
        if (!(k >= -1.0 && k <= 1.0))
            return aug__error(AUG_ERR_VALUE, func, "contrasts[%lld] = %g must be in [-1, 1]", (long long)i, k);
    }
    for (int64_t i = 0; i < n * c; i++) {
        double g = gammacolors[i];
        if (!(isfinite(g) && g > 0.0))
            return aug__error(AUG_ERR_VALUE, func, "gammacolors[%lld] = %g must be finite and > 0", (long long)i, g);
    }
    return AUG_OK;
}

/* A float32 parameter tensor's values in C order, as doubles (from any device). */
static aug_status read_param(const aug_tensor *t, double *dst) {
    int64_t n = aug_tensor_size(t);
    float *f = malloc((size_t)(n + 1) * sizeof(float));
    if (!f) return AUG__NOMEM(FUNC);
    aug_status st = aug_tensor_read(t, f, (size_t)n * sizeof(float), 1);
    for (int64_t i = 0; st == AUG_OK && i < n; i++) dst[i] = f[i];
    free(f);
    return st;
}

/* A parameter tensor: float32 on dev or the CPU with `count` values, 1-D, or (n, c) when c2 > 0. */
static aug_status check_param(const aug_tensor *p, const char *name, int64_t count, int64_t n, int64_t c2,
                              aug_device dev) {
    char sa[96], da[32], db[32];
    if (!p) return aug__error(AUG_ERR_VALUE, FUNC, "%s is NULL", name);
    aug_status st = aug__tensor_check(FUNC, p);
    if (st) return st;
    if (p->dtype != AUG_FLOAT32)
        return aug__error(AUG_ERR_TYPE, FUNC, "%s must be float32, not %s", name, aug_dtype_name(p->dtype));
    if (p->device.type != AUG_DEVICE_CPU && !aug__device_eq(p->device, dev))
        return aug__error(AUG_ERR_VALUE, FUNC, "%s is on device %s but the image is on %s", name,
                          aug__device_str(p->device, da, sizeof da), aug__device_str(dev, db, sizeof db));
    int ok = (p->ndim == 1 && p->shape[0] == count) ||
             (c2 > 0 && p->ndim == 2 && p->shape[0] == n && p->shape[1] == c2);
    if (!ok) {
        if (c2 > 0)
            return aug__error(AUG_ERR_VALUE, FUNC, "%s has shape %s but (%lld,) or (%lld, %lld) is needed", name,
                              aug_shape_str(p->ndim, p->shape, sa, sizeof sa), (long long)count, (long long)n,
                              (long long)c2);
        return aug__error(AUG_ERR_VALUE, FUNC, "%s has shape %s but (%lld,) is needed", name,
                          aug_shape_str(p->ndim, p->shape, sa, sizeof sa), (long long)count);
    }
    return AUG_OK;
}

static aug_status lighting_run(const aug_tensor *im, const aug_tensor *gammagrays, const aug_tensor *gammacolors,
                               const aug_tensor *contrasts, double vmin, double vmax, aug_tensor **out);

/* A strided image (a crop, a flipped or transposed view of a batch) is packed
 * into one contiguous temporary first; values are read from it, so out may
 * then be anything contiguous (even memory the view reads). */
aug_status aug_lighting(const aug_tensor *im, const aug_tensor *gammagrays, const aug_tensor *gammacolors,
                        const aug_tensor *contrasts, double vmin, double vmax, aug_tensor **out) {
    char sa[96];
    aug_status st = aug__tensor_check(FUNC, im);
    if (!st) st = aug_layout_check(FUNC, NULL, im->layout, "NCHW,CHW");
    if (st) return st;
    if (!out) return aug__error(AUG_ERR_VALUE, FUNC, "out is NULL");
    if (im->ndim != 4 && im->ndim != 3)
        return aug__error(AUG_ERR_VALUE, FUNC, "image must be (N, C, H, W) or (C, H, W), got shape %s",
                          aug_shape_str(im->ndim, im->shape, sa, sizeof sa));
    if (aug_tensor_is_contiguous(im)) return lighting_run(im, gammagrays, gammacolors, contrasts, vmin, vmax, out);
    if (*out && *out == im) return aug__error(AUG_ERR_VALUE, FUNC, "out must be contiguous (in place needs a contiguous image)");
    aug_tensor *packed = aug_tensor_contiguous(im);
    if (!packed) return aug_last_status();
    aug_tensor *res = *out;
    st = lighting_run(packed, gammagrays, gammacolors, contrasts, vmin, vmax, &res);
    aug_tensor_free(packed);
    if (st == AUG_OK) *out = res;
    return st;
}

static aug_status lighting_run(const aug_tensor *im, const aug_tensor *gammagrays, const aug_tensor *gammacolors,
                               const aug_tensor *contrasts, double vmin, double vmax, aug_tensor **out) {
    aug_status st;
    if (!(isfinite(vmin) && isfinite(vmax) && vmin < vmax))
        return aug__error(AUG_ERR_VALUE, FUNC, "vmin = %g and vmax = %g must be finite with vmin < vmax", vmin,
                          vmax);
    int off = im->ndim - 3;
    int64_t n = off ? im->shape[0] : 1, c = im->shape[off], hw = im->shape[off + 1] * im->shape[off + 2];
    if ((st = check_param(gammagrays, "gammagrays", n, n, 0, im->device)) ||
        (st = check_param(gammacolors, "gammacolors", n * c, n, c, im->device)) ||
        (st = check_param(contrasts, "contrasts", n, n, 0, im->device)))
        return st;
    aug__need need = {AUG__FAMILY_LIGHTING, 0, im->dtype, AUG_DTYPE_AUTO};
    const aug__backend *be = aug__backend_supporting(FUNC, im->device, &need);
    if (!be) return aug_last_status();
    /* the parameters' values, on the host, checked */
    double *params = malloc((size_t)(2 * n + n * c + 1) * sizeof(double));
    if (!params) return AUG__NOMEM(FUNC);
    double *gg = params, *gc = params + n, *ct = params + n + n * c;
    if ((st = read_param(gammagrays, gg)) || (st = read_param(gammacolors, gc)) || (st = read_param(contrasts, ct)) ||
        (st = check_params(FUNC, n, c, gg, gc, ct))) {
        free(params);
        return st;
    }

    aug_tensor *res = NULL;
    if ((st = aug__out_like(FUNC, out, im, "the image", &res))) {
        free(params);
        return st;
    }
    /* Values are read and written at the same index, so out == im is fine;
     * any other overlap would read values already written. */
    if (res->storage && res->storage == im->storage && aug_tensor_ptr(res) != aug_tensor_ptr(im)) {
        int64_t bytes = aug_tensor_size(im) * aug__dtype_size(im->dtype);
        const char *a = aug_tensor_ptr(im), *b = aug_tensor_ptr(res);
        if (a < b + bytes && b < a + bytes) {
            free(params);
            return aug__error(AUG_ERR_VALUE, FUNC, "out partially overlaps the image (only out == image is allowed)");
        }
    }
    aug_tensor_set_layout(res, off ? "NCHW" : "CHW");

    aug__lighting_plan plan = {FUNC, im, res, (const char *)aug_tensor_ptr(im), (char *)aug_tensor_ptr(res), gg, gc, ct, n, c, hw, vmin, vmax, aug__exec_for(im->device)};
    st = n * c * hw > 0 ? aug__dispatch_lighting(be, &plan) : AUG_OK;
    free(params);
    if (st) {
        if (!*out) aug_tensor_free(res);
        return st;
    }
    *out = res;
    return AUG_OK;
}
