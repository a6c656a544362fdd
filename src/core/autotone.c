/* core/autotone.c: the autotone ops of include/aug/colour.h (aug_equalize,
 * aug_autocontrast, aug_adjust_sharpness), their backend-neutral half: the
 * image's geometry (channels first or last), the checks, each image's
 * operands, the output and the plan (core/autotone.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "aug/colour.h"
#include "aug/conventions.h"
#include "autotone.h"
#include "tensor_impl.h"

typedef struct geometry {
    int64_t n, c, h, w;
    int channels_last;
} geometry;

/* An image (H, W), (C, H, W), (H, W, C) or a batch (N, C, H, W), (N, H, W, C),
 * uint8, uint16 or float32. Its layout string says which; without one a 3-d image is
 * CHW and a 4-d one NCHW (torchvision's). */
static aug_status check_image(const char *func, const aug_tensor *im, geometry *g) {
    char sa[96];
    aug_status st = aug__tensor_check(func, im);
    if (!st) st = aug_layout_check(func, NULL, im->layout, "HW,HWC,CHW,NHWC,NCHW");
    if (st) return st;
    if (im->ndim < 2 || im->ndim > 4)
        return aug__error(AUG_ERR_VALUE, func,
                          "image must be (H, W), (C, H, W), (H, W, C) or (N, C, H, W), (N, H, W, C), got shape %s",
                          aug_shape_str(im->ndim, im->shape, sa, sizeof sa));
    if (im->dtype != AUG_UINT8 && im->dtype != AUG_UINT16 && im->dtype != AUG_FLOAT32)
        return aug__error(AUG_ERR_TYPE, func, "image dtype %s is not supported (uint8, uint16 or float32)",
                          aug_dtype_name(im->dtype));
    const char *layout = im->layout[0] ? im->layout : im->ndim == 2 ? "HW" : im->ndim == 3 ? "CHW" : "NCHW";
    if ((int)strlen(layout) != im->ndim)
        return aug__error(AUG_ERR_VALUE, func, "layout '%s' has %d dimensions but the image has shape %s", layout,
                          (int)strlen(layout), aug_shape_str(im->ndim, im->shape, sa, sizeof sa));
    const int64_t *s = im->shape;
    g->channels_last = layout[im->ndim - 1] == 'C';
    g->n = im->ndim == 4 ? s[0] : 1;
    g->c = im->ndim == 2 ? 1 : g->channels_last ? s[im->ndim - 1] : s[im->ndim - 3];
    g->h = g->channels_last ? s[im->ndim - 3] : s[im->ndim - 2];
    g->w = g->channels_last && im->ndim > 2 ? s[im->ndim - 2] : s[im->ndim - 1];
    if (g->h * g->w > INT32_MAX)
        return aug__error(AUG_ERR_VALUE, func, "a channel of %lld x %lld values is too large (at most 2^31 - 1)",
                          (long long)g->h, (long long)g->w);
    return AUG_OK;
}

/* Runs kind on im (checked, geometry g) into *out; alpha: count values (1 or
 * one per image) for sharpness, else NULL. */
static aug_status autotone_run(const char *func, int kind, const aug_tensor *im, const geometry *g,
                               const float *alpha, int64_t count, aug_tensor **out) {
    aug__need need = {AUG__FAMILY_AUTOTONE, kind, im->dtype, AUG_DTYPE_AUTO};
    const aug__backend *be = aug__backend_supporting(func, im->device, &need);
    if (!be) return aug_last_status();
    aug_tensor *res = NULL, *packed = NULL;
    aug_status st = aug__out_like(func, out, im, "the image", &res);
    if (st) return st;
    const int in_place = aug_tensor_ptr(res) == aug_tensor_ptr(im);
    if (res == *out && aug__tensors_overlap(res, im) && !in_place) {
        st = aug__error(AUG_ERR_VALUE, func, "out partially overlaps the image (only out == image is allowed)");
        goto fail;
    }
    /* A strided image is read from one contiguous copy; so is an image
     * sharpened in place (each value reads its neighbours). */
    if (!aug_tensor_is_contiguous(im) || (in_place && kind == AUG__AUTOTONE_SHARPNESS)) {
        aug_tensor *empty = aug_tensor_empty(im->ndim, im->shape, im->dtype, im->device);
        if (!empty || aug_copy(im, empty) != AUG_OK) {
            st = aug_last_status();
            aug_tensor_free(empty);
            goto fail;
        }
        packed = empty;
    }
    if (res != *out) aug_tensor_set_layout(res, im->layout);
    aug__autotone_plan plan = {.func = func,
                               .kind = kind,
                               .dtype = (int)im->dtype,
                               .channels_last = g->channels_last,
                               .images = g->n,
                               .channels = g->c,
                               .height = g->h,
                               .width = g->w,
                               .alpha = alpha,
                               .alphas = count,
                               .src = (const char *)aug_tensor_ptr(packed ? packed : im),
                               .dst = (char *)aug_tensor_ptr(res),
                               .exec = aug__exec_for(im->device)};
    st = aug_tensor_size(im) > 0 ? aug__dispatch_autotone(be, &plan) : AUG_OK;
    aug_tensor_free(packed);
    if (st == AUG_OK) {
        *out = res;
        return AUG_OK;
    }
fail:
    if (res != *out) aug_tensor_free(res);
    return st;
}

aug_status aug_equalize(const aug_tensor *im, aug_tensor **out) {
    static const char func[] = "aug_equalize";
    geometry g;
    if (!out) return aug__error(AUG_ERR_VALUE, func, "out is NULL");
    aug_status st = check_image(func, im, &g);
    return st ? st : autotone_run(func, AUG__AUTOTONE_EQUALIZE, im, &g, NULL, 0, out);
}

aug_status aug_autocontrast(const aug_tensor *im, aug_tensor **out) {
    static const char func[] = "aug_autocontrast";
    geometry g;
    if (!out) return aug__error(AUG_ERR_VALUE, func, "out is NULL");
    aug_status st = check_image(func, im, &g);
    return st ? st : autotone_run(func, AUG__AUTOTONE_AUTOCONTRAST, im, &g, NULL, 0, out);
}

aug_status aug_adjust_sharpness(const aug_tensor *im, const double *factor, int64_t count, aug_tensor **out) {
    static const char func[] = "aug_adjust_sharpness";
    geometry g;
    if (!out) return aug__error(AUG_ERR_VALUE, func, "out is NULL");
    aug_status st = check_image(func, im, &g);
    if (st) return st;
    if (!factor) return aug__error(AUG_ERR_VALUE, func, "factor is NULL");
    if (count != 1 && count != g.n)
        return g.n == 1 ? aug__error(AUG_ERR_VALUE, func, "factor has %lld values for 1 image (give 1)",
                                     (long long)count)
                        : aug__error(AUG_ERR_VALUE, func,
                                     "factor has %lld values for %lld images (give 1, or one per image)",
                                     (long long)count, (long long)g.n);
    for (int64_t i = 0; i < count; i++)
        if (!(factor[i] >= 0.0) || !isfinite(factor[i])) {
            char img[40] = "";
            if (count > 1) snprintf(img, sizeof img, " (image %lld)", (long long)i);
            return aug__error(AUG_ERR_VALUE, func, "factor must be a finite number >= 0, got %g%s", factor[i], img);
        }
    float *alpha = malloc((size_t)(count > 0 ? count : 1) * sizeof *alpha);
    if (!alpha) return aug__error(AUG_ERR_MEMORY, func, "out of host memory for %lld factors", (long long)count);
    for (int64_t i = 0; i < count; i++) alpha[i] = (float)(1.0 - factor[i]); /* torch's alpha, in float32 */
    st = autotone_run(func, AUG__AUTOTONE_SHARPNESS, im, &g, alpha, count, out);
    free(alpha);
    return st;
}
