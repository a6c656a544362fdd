/* core/colour.c: the colour functions (include/aug/colour.h), the backend-neutral
 * half: argument checks, the per-image step lists, output allocation, the plan
 * (with aug_color_jitter_lighting's lighting values); and
 * ColorJitter's parameter sampling. */
#include <math.h>
#include "aug/conventions.h"
#include <stdio.h>
#include <stdlib.h>
#include "aug/colour.h"
#include "colour.h"
#include "scalar/random.h"
#include "tensor_impl.h"

/* The image: (N, C, H, W) or (C, H, W), any strides, uint8, uint16 or float32
 * (float32 only when float_only), C = 1 or 3 (only 3 when only3). Fills dims = n, c, h, w. */
static aug_status check_image(const char *func, const aug_tensor *im, int only3, int float_only, int64_t dims[4]) {
    char sa[96];
    aug_status st = aug__tensor_check(func, im);
    if (!st) st = aug_layout_check(func, NULL, im->layout, "NCHW,CHW");
    if (st) return st;
    if (im->ndim != 4 && im->ndim != 3)
        return aug__error(AUG_ERR_VALUE, func, "image must be (N, C, H, W) or (C, H, W), got shape %s",
                          aug_shape_str(im->ndim, im->shape, sa, sizeof sa));
    if (float_only ? im->dtype != AUG_FLOAT32
                   : (im->dtype != AUG_UINT8 && im->dtype != AUG_UINT16 && im->dtype != AUG_FLOAT32))
        return aug__error(AUG_ERR_TYPE, func, "image dtype %s is not supported (%s)", aug_dtype_name(im->dtype),
                          float_only ? "float32 only" : "uint8, uint16 or float32");
    int off = im->ndim - 3;
    dims[0] = off ? im->shape[0] : 1, dims[1] = im->shape[off], dims[2] = im->shape[off + 1],
    dims[3] = im->shape[off + 2];
    if (only3 ? dims[1] != 3 : (dims[1] != 1 && dims[1] != 3))
        return aug__error(AUG_ERR_VALUE, func, "image has %lld channels but %s is needed", (long long)dims[1],
                          only3 ? "3 (RGB)" : "1 or 3");
    return AUG_OK;
}

/* out == im is allowed; any other overlap is not. */
static aug_status check_overlap(const char *func, const aug_tensor *im, const aug_tensor *res) {
    if (res->storage && res->storage == im->storage && aug_tensor_ptr(res) != aug_tensor_ptr(im)) {
        int64_t a_bytes = aug_tensor_size(im) * aug__dtype_size(im->dtype);
        int64_t b_bytes = aug_tensor_size(res) * aug__dtype_size(res->dtype);
        const char *a = aug_tensor_ptr(im), *b = aug_tensor_ptr(res);
        if (a < b + b_bytes && b < a + a_bytes)
            return aug__error(AUG_ERR_VALUE, func, "out partially overlaps the image (only out == image is allowed)");
    }
    return AUG_OK;
}

/* Plans and runs `plan` (kind, img filled) on im; out as in image.h, with
 * out_shape the result's shape. */
static aug_status run(aug__colour_plan *plan, const aug_tensor *im, const int64_t *out_shape, aug_tensor **out) {
    const char *func = plan->func;
    if (!out) return aug__error(AUG_ERR_VALUE, func, "out is NULL");
    aug__need need = {AUG__FAMILY_COLOUR, 0, im->dtype, AUG_DTYPE_AUTO};
    const aug__backend *be = aug__backend_supporting(func, im->device, &need);
    if (!be) return aug_last_status();
    aug_tensor *res = *out;
    aug_status st;
    if (!res) {
        res = aug_tensor_empty(im->ndim, out_shape, im->dtype, im->device);
        if (!res) return aug_last_status();
    } else {
        char sa[96], sb[96], da[32], db[32];
        if ((st = aug__tensor_check(func, res))) return st;
        int same = res->ndim == im->ndim && res->dtype == im->dtype;
        for (int i = 0; same && i < im->ndim; i++) same = res->shape[i] == out_shape[i];
        if (!same)
            return aug__error(AUG_ERR_VALUE, func, "out is %s %s but %s %s is needed", aug_dtype_name(res->dtype),
                              aug_shape_str(res->ndim, res->shape, sa, sizeof sa), aug_dtype_name(im->dtype),
                              aug_shape_str(im->ndim, out_shape, sb, sizeof sb));
        if (!aug__device_eq(res->device, im->device))
            return aug__error(AUG_ERR_VALUE, func, "out is on device %s but the image is on %s",
                              aug__device_str(res->device, da, sizeof da), aug__device_str(im->device, db, sizeof db));
        if (!aug_tensor_is_contiguous(res)) return aug__error(AUG_ERR_VALUE, func, "out must be contiguous");
        if ((st = check_overlap(func, im, res))) return st;
    }
    /* A strided image (a crop, a flipped or transposed view of a batch) is read from
     * one contiguous copy, so out may then be anything contiguous. */
    aug_tensor *packed = NULL; /* (out == a strided image was refused above: out must be contiguous) */
    if (!aug_tensor_is_contiguous(im) && !(packed = aug_tensor_contiguous(im))) {
        st = aug_last_status();
        goto fail;
    }
    aug_tensor_set_layout(res, im->ndim == 4 ? "NCHW" : "CHW");
    plan->src = (const char *)aug_tensor_ptr(packed ? packed : im);
    plan->dst = (char *)aug_tensor_ptr(res);
    plan->u8 = im->dtype == AUG_UINT8    ? AUG__COLOUR_CLS_U8
               : im->dtype == AUG_UINT16 ? AUG__COLOUR_CLS_U16
                                         : AUG__COLOUR_CLS_F;
    plan->exec = aug__exec_for(im->device);
    st = plan->n * plan->h * plan->w > 0 ? aug__dispatch_colour(be, plan) : AUG_OK;
    aug_tensor_free(packed);
    if (st == AUG_OK) {
        *out = res;
        return AUG_OK;
    }
fail:
    if (!*out) aug_tensor_free(res);
    return st;
}

static const char *const step_names[4] = {"brightness", "contrast", "saturation", "hue"};

/* A factor: finite and >= 0, or a hue in [-0.5, 0.5]. index < 0: a single value. */
static aug_status check_factor(const char *func, int kind, int64_t index, double f) {
    char where[48] = "";
    if (index >= 0) snprintf(where, sizeof where, "[%lld]", (long long)index);
    if (kind == AUG__COLOUR_HUE) {
        if (!(f >= -0.5 && f <= 0.5))
            return aug__error(AUG_ERR_VALUE, func, "hue%s = %g must be in [-0.5, 0.5]", where, f);
    } else if (!(isfinite(f) && f >= 0.0)) {
        return aug__error(AUG_ERR_VALUE, func, "%s%s = %g must be finite and >= 0", step_names[kind], where, f);
    }
    return AUG_OK;
}

static aug__colour_step make_step(int kind, double f) {
    aug__colour_step s;
    s.kind = kind;
    s.ratio = (float)f;
    s.alpha = (float)(1.0 - f); /* torch: alpha = 1.0 - ratio in double, then float32 */
    return s;
}

static aug_status check_lighting(const char *func, const aug_jitter_lighting *l, int64_t n, int64_t c, double *params);

/* aug_color_jitter, with the lighting l after the steps (NULL: none). */
static aug_status jitter(const char *func, const aug_tensor *im, const double *brightness, const double *contrast,
                         const double *saturation, const double *hue, const int32_t *order,
                         const aug_jitter_lighting *l, aug_tensor **out) {
    int64_t d[4] = {0, 0, 0, 0};
    aug_status st = check_image(func, im, 0, 0, d);
    if (st) return st;
    const double *factors[4] = {brightness, contrast, saturation, hue};
    int64_t n = d[0];
    aug__colour_image *img = malloc((size_t)(n + 1) * sizeof *img);
    if (!img) return AUG__NOMEM(func);
    int any_contrast = 0;
    for (int64_t i = 0; i < n; i++) {
        int seen = 0;
        img[i].nsteps = 0, img[i].contrast_at = -1;
        for (int k = 0; k < 4; k++) {
            int kind = order ? order[4 * i + k] : k;
            if (kind < 0 || kind > 3 || (seen & (1 << kind))) {
                free(img);
                return aug__error(AUG_ERR_VALUE, func,
                                  "order[%lld] = (%d, %d, %d, %d) is not a permutation of 0, 1, 2, 3", (long long)i,
                                  (int)order[4 * i], (int)order[4 * i + 1], (int)order[4 * i + 2],
                                  (int)order[4 * i + 3]);
            }
            seen |= 1 << kind;
            if (!factors[kind]) continue;
            if ((st = check_factor(func, kind, i, factors[kind][i]))) {
                free(img);
                return st;
            }
            if (kind == AUG__COLOUR_CONTRAST) img[i].contrast_at = img[i].nsteps, any_contrast = 1;
            img[i].step[img[i].nsteps++] = make_step(kind, factors[kind][i]);
        }
    }
    aug__colour_plan plan = {.func = func,
                             .kind = AUG__COLOUR_JITTER,
                             .n = n,
                             .c = d[1],
                             .h = d[2],
                             .w = d[3],
                             .out_c = (int)d[1],
                             .img = img,
                             .any_contrast = any_contrast};
    /* the lighting's values: n * c per-plane gammas, then n contrasts */
    double *light = NULL;
    if (l) {
        int64_t planes = n * d[1];
        size_t bytes = (size_t)(planes + n + 1) * sizeof(double);
        if (!(light = malloc(bytes))) {
            free(img);
            return AUG__NOMEM(func);
        }
        if ((st = check_lighting(func, l, n, d[1], light))) {
            free(img);
            free(light);
            return st;
        }
        plan.light_gamma = light, plan.light_contrast = light + planes;
        plan.light_vmin = l->vmin, plan.light_vmax = l->vmax;
    }
    st = run(&plan, im, im->shape, out);
    free(img);
    free(light);
    return st;
}

aug_status aug_color_jitter(const aug_tensor *im, const double *brightness, const double *contrast,
                            const double *saturation, const double *hue, const int32_t *order, aug_tensor **out) {
    return jitter("aug_color_jitter", im, brightness, contrast, saturation, hue, order, NULL, out);
}

aug_status aug_color_jitter_lighting(const aug_tensor *im, const double *brightness, const double *contrast,
                                     const double *saturation, const double *hue, const int32_t *order,
                                     const aug_jitter_lighting *lighting, aug_tensor **out) {
    return jitter("aug_color_jitter_lighting", im, brightness, contrast, saturation, hue, order, lighting, out);
}

/* The lighting's parameters rounded to float32 (aug_lighting's tensors) and
 * checked as aug_lighting checks them: params gets n * c per-plane gammas
 * gammagray * gammacolor (the product in double, as aug_lighting's backends
 * form it), then n contrasts. */
static aug_status check_lighting(const char *func, const aug_jitter_lighting *l, int64_t n, int64_t c, double *params) {
    if (!l->gammagrays || !l->gammacolors || !l->contrasts)
        return aug__error(AUG_ERR_VALUE, func, "lighting->%s is NULL",
                          !l->gammagrays    ? "gammagrays"
                          : !l->gammacolors ? "gammacolors"
                                            : "contrasts");
    if (!(isfinite(l->vmin) && isfinite(l->vmax) && l->vmin < l->vmax))
        return aug__error(AUG_ERR_VALUE, func, "vmin = %g and vmax = %g must be finite with vmin < vmax", l->vmin,
                          l->vmax);
    for (int64_t i = 0; i < n; i++) {
        double g = (float)l->gammagrays[i], k = (float)l->contrasts[i];
        if (!(isfinite(g) && g > 0.0))
            return aug__error(AUG_ERR_VALUE, func, "gammagrays[%lld] = %g must be finite and > 0 (as float32)",
                              (long long)i, l->gammagrays[i]);
        if (!(k >= -1.0 && k <= 1.0))
            return aug__error(AUG_ERR_VALUE, func, "contrasts[%lld] = %g is outside [-1, 1]", (long long)i,
                              l->contrasts[i]);
        params[n * c + i] = k;
    }
    for (int64_t q = 0; q < n * c; q++) {
        double g = (float)l->gammacolors[q];
        if (!(isfinite(g) && g > 0.0))
            return aug__error(AUG_ERR_VALUE, func, "gammacolors[%lld] = %g must be finite and > 0 (as float32)",
                              (long long)q, l->gammacolors[q]);
        params[q] = (double)(float)l->gammagrays[q / c] * g;
    }
    return AUG_OK;
}

/* One step with one factor for every image. */
static aug_status single(const char *func, int kind, const aug_tensor *im, double factor, aug_tensor **out) {
    aug_status st = check_factor(func, kind, -1, factor);
    if (st) return st;
    int64_t d[4] = {0, 0, 0, 0};
    if ((st = check_image(func, im, 0, 0, d))) return st;
    aug__colour_image *img = malloc((size_t)(d[0] + 1) * sizeof *img);
    if (!img) return AUG__NOMEM(func);
    for (int64_t i = 0; i < d[0]; i++) {
        img[i].nsteps = 1;
        img[i].contrast_at = kind == AUG__COLOUR_CONTRAST ? 0 : -1;
        img[i].step[0] = make_step(kind, factor);
    }
    aug__colour_plan plan = {.func = func,
                             .kind = AUG__COLOUR_JITTER,
                             .n = d[0],
                             .c = d[1],
                             .h = d[2],
                             .w = d[3],
                             .out_c = (int)d[1],
                             .img = img,
                             .any_contrast = kind == AUG__COLOUR_CONTRAST};
    st = run(&plan, im, im->shape, out);
    free(img);
    return st;
}

aug_status aug_adjust_brightness(const aug_tensor *im, double factor, aug_tensor **out) {
    return single("aug_adjust_brightness", AUG__COLOUR_BRIGHTNESS, im, factor, out);
}
aug_status aug_adjust_contrast(const aug_tensor *im, double factor, aug_tensor **out) {
    return single("aug_adjust_contrast", AUG__COLOUR_CONTRAST, im, factor, out);
}
aug_status aug_adjust_saturation(const aug_tensor *im, double factor, aug_tensor **out) {
    return single("aug_adjust_saturation", AUG__COLOUR_SATURATION, im, factor, out);
}
aug_status aug_adjust_hue(const aug_tensor *im, double factor, aug_tensor **out) {
    return single("aug_adjust_hue", AUG__COLOUR_HUE, im, factor, out);
}

aug_status aug_rgb_to_grayscale(const aug_tensor *im, int num_output_channels, aug_tensor **out) {
    const char *func = "aug_rgb_to_grayscale";
    if (num_output_channels != 1 && num_output_channels != 3)
        return aug__error(AUG_ERR_VALUE, func, "num_output_channels must be 1 or 3, got %d", num_output_channels);
    int64_t d[4] = {0, 0, 0, 0}, shape[4];
    aug_status st = check_image(func, im, 0, 0, d);
    if (st) return st;
    for (int i = 0; i < im->ndim; i++) shape[i] = im->shape[i];
    shape[im->ndim - 3] = num_output_channels;
    aug__colour_plan plan = {.func = func,
                             .kind = AUG__COLOUR_GRAY,
                             .n = d[0],
                             .c = d[1],
                             .h = d[2],
                             .w = d[3],
                             .out_c = num_output_channels};
    return run(&plan, im, shape, out);
}

static aug_status hsv(const char *func, aug__colour_kind kind, const aug_tensor *im, aug_tensor **out) {
    int64_t d[4] = {0, 0, 0, 0};
    aug_status st = check_image(func, im, 1, 1, d);
    if (st) return st;
    aug__colour_plan plan = {.func = func, .kind = kind, .n = d[0], .c = 3, .h = d[2], .w = d[3], .out_c = 3};
    return run(&plan, im, im->shape, out);
}
aug_status aug_rgb_to_hsv(const aug_tensor *im, aug_tensor **out) {
    return hsv("aug_rgb_to_hsv", AUG__COLOUR_TO_HSV, im, out);
}
aug_status aug_hsv_to_rgb(const aug_tensor *im, aug_tensor **out) {
    return hsv("aug_hsv_to_rgb", AUG__COLOUR_FROM_HSV, im, out);
}

/* ---- parameter sampling ------------------------------------------------------------ */

static aug_status check_range(const char *func, int kind, const double *r, const double *dst) {
    if (!r) return AUG_OK;
    const char *name = step_names[kind];
    if (!dst) return aug__error(AUG_ERR_VALUE, func, "the %s output is NULL but a %s range is given", name, name);
    if (!(isfinite(r[0]) && isfinite(r[1]) && r[0] <= r[1]))
        return aug__error(AUG_ERR_VALUE, func, "%s range (%g, %g) must be finite with min <= max", name, r[0], r[1]);
    if (kind == AUG__COLOUR_HUE ? (r[0] < -0.5 || r[1] > 0.5) : r[0] < 0.0)
        return aug__error(AUG_ERR_VALUE, func, "%s range (%g, %g) must lie in %s", name, r[0], r[1],
                          kind == AUG__COLOUR_HUE ? "[-0.5, 0.5]" : "[0, inf)");
    return AUG_OK;
}

static aug_status map_params(const char *func, int64_t n, const double *u, const double *const ranges[4],
                             int random_order, double *const outs[4], int32_t *order) {
    aug_status st;
    if (n < 0) return aug__error(AUG_ERR_VALUE, func, "n = %lld must be >= 0", (long long)n);
    for (int k = 0; k < 4; k++)
        if ((st = check_range(func, k, ranges[k], outs[k]))) return st;
    if (!order) return aug__error(AUG_ERR_VALUE, func, "order is NULL");
    if (n > 0 && !u) return aug__error(AUG_ERR_VALUE, func, "u is NULL");
    for (int64_t i = 0; i < n; i++) {
        const double *ui = u + 7 * i;
        for (int k = 0; k < 7; k++)
            if (!(ui[k] >= 0.0 && ui[k] < 1.0))
                return aug__error(AUG_ERR_VALUE, func, "u[%lld] = %g is not in [0, 1)", (long long)(7 * i + k), ui[k]);
        for (int k = 0; k < 4; k++) {
            if (!ranges[k]) continue;
            double v = ranges[k][0] + ui[k] * (ranges[k][1] - ranges[k][0]);
            outs[k][i] = v > ranges[k][1] ? ranges[k][1] : v;
        }
        int32_t p[4] = {0, 1, 2, 3};
        for (int k = 3; random_order && k >= 1; k--) {
            int j = (int)(ui[4 + 3 - k] * (double)(k + 1));
            int32_t t = p[k];
            p[k] = p[j], p[j] = t;
        }
        for (int k = 0; k < 4; k++) order[4 * i + k] = p[k];
    }
    return AUG_OK;
}

aug_status aug_color_jitter_params(int64_t n, const double *u, const double *brightness_range,
                                   const double *contrast_range, const double *saturation_range,
                                   const double *hue_range, int random_order, double *brightness, double *contrast,
                                   double *saturation, double *hue, int32_t *order) {
    const double *const ranges[4] = {brightness_range, contrast_range, saturation_range, hue_range};
    double *const outs[4] = {brightness, contrast, saturation, hue};
    return map_params("aug_color_jitter_params", n, u, ranges, random_order, outs, order);
}

aug_status aug_color_jitter_sample(aug_rng *rng, int64_t n, const double *brightness_range,
                                   const double *contrast_range, const double *saturation_range,
                                   const double *hue_range, int random_order, double *brightness, double *contrast,
                                   double *saturation, double *hue, int32_t *order) {
    const char *func = "aug_color_jitter_sample";
    const double *const ranges[4] = {brightness_range, contrast_range, saturation_range, hue_range};
    double *const outs[4] = {brightness, contrast, saturation, hue};
    if (!rng) return aug__error(AUG_ERR_VALUE, func, "rng is NULL");
    if (n < 0) return aug__error(AUG_ERR_VALUE, func, "n = %lld must be >= 0", (long long)n);
    aug_status st;
    for (int k = 0; k < 4; k++)
        if ((st = check_range(func, k, ranges[k], outs[k]))) return st;
    int64_t shape[2] = {n, 7};
    aug_tensor *t = aug_tensor_empty(2, shape, AUG_FLOAT64, aug_rng_device(rng));
    if (!t) return aug_last_status();
    double *u = malloc((size_t)(7 * n + 1) * sizeof(double));
    st = !u ? AUG__NOMEM(func) : aug_rng_uniform(rng, t, 0.0, 1.0);
    if (st == AUG_OK) st = aug_tensor_read(t, u, (size_t)(7 * n) * sizeof(double), 1);
    if (st == AUG_OK) st = map_params(func, n, u, ranges, random_order, outs, order);
    free(u);
    aug_tensor_free(t);
    return st;
}

aug_status aug_color_jitter_sample_states(const aug_rng_state *states, int64_t n, const double *brightness_range,
                                          const double *contrast_range, const double *saturation_range,
                                          const double *hue_range, int random_order, double *brightness,
                                          double *contrast, double *saturation, double *hue, int32_t *order) {
    const char *func = "aug_color_jitter_sample_states";
    const double *const ranges[4] = {brightness_range, contrast_range, saturation_range, hue_range};
    double *const outs[4] = {brightness, contrast, saturation, hue};
    if (n < 0) return aug__error(AUG_ERR_VALUE, func, "n = %lld must be >= 0", (long long)n);
    if (n > 0 && !states) return aug__error(AUG_ERR_VALUE, func, "states is NULL");
    aug_status st;
    for (int k = 0; k < 4; k++)
        if ((st = check_range(func, k, ranges[k], outs[k]))) return st;
    if (!order) return aug__error(AUG_ERR_VALUE, func, "order is NULL");
    if ((uint64_t)n > (SIZE_MAX / sizeof(double) - 1) / 7) return AUG__NOMEM(func);
    double *u = malloc((size_t)(7 * n + 1) * sizeof(double));
    if (!u) return AUG__NOMEM(func);
    /* element j of a float64 uniform [0, 1) fill: 52 bits of block j's first draw
     * (m = 1, o = 0, d = 1 and the clamp to [0, prev(1)] change no value) */
    for (int64_t i = 0; i < n; i++) {
        const uint32_t key[2] = {(uint32_t)states[i].seed, (uint32_t)(states[i].seed >> 32)};
        for (int j = 0; j < 7; j++) {
            uint32_t x[4];
            aug__philox_element(key, states[i].calls, (uint64_t)j, x);
            u[7 * i + j] = aug__unit52(x[0], x[1]);
        }
    }
    st = map_params(func, n, u, ranges, random_order, outs, order);
    free(u);
    return st;
}
