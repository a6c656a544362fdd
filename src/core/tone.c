/* core/tone.c: the tone ops of include/aug/colour.h (aug_invert, ...), their
 * backend-neutral half: the image's checks, each op's operands per image, the
 * output and the plan (core/tone.h). */
#include <stdio.h>
#include <stdlib.h>
#include "aug/colour.h"
#include "aug/conventions.h"
#include "tone.h"
#include "tensor_impl.h"

/* An image of any layout convention: 2-d (H, W), 3-d or 4-d, uint8, uint16,
 * float32 or float64; a layout string, when it has one, among the image ones. */
static aug_status check_image(const char *func, const aug_tensor *im) {
    char sa[96];
    aug_status st = aug__tensor_check(func, im);
    if (!st) st = aug_layout_check(func, NULL, im->layout, "HW,HWC,CHW,NHWC,NCHW");
    if (st) return st;
    if (im->ndim < 2 || im->ndim > 4)
        return aug__error(AUG_ERR_VALUE, func,
                          "image must be (H, W), (H, W, C), (C, H, W), (N, H, W, C) or (N, C, H, W), got shape %s",
                          aug_shape_str(im->ndim, im->shape, sa, sizeof sa));
    if (im->dtype != AUG_UINT8 && im->dtype != AUG_UINT16 && im->dtype != AUG_FLOAT32 && im->dtype != AUG_FLOAT64)
        return aug__error(AUG_ERR_TYPE, func, "image dtype %s is not supported (uint8, uint16, float32 or float64)",
                          aug_dtype_name(im->dtype));
    return AUG_OK;
}

/* The images of im: N of an (N, ., ., .) batch, else 1. */
static int64_t image_count(const aug_tensor *im) { return im->ndim == 4 ? im->shape[0] : 1; }

/* Checks the count of a per-image parameter: 1 (every image) or one per image. */
static aug_status check_count(const char *func, const aug_tensor *im, const void *values, int64_t count,
                              const char *name) {
    const int64_t n = image_count(im);
    if (!values) return aug__error(AUG_ERR_VALUE, func, "%s is NULL", name);
    if (count != 1 && count != n)
        return n == 1 ? aug__error(AUG_ERR_VALUE, func, "%s has %lld values for 1 image (give 1)", name,
                                   (long long)count)
                      : aug__error(AUG_ERR_VALUE, func, "%s has %lld values for %lld images (give 1, or one per image)",
                                   name, (long long)count, (long long)n);
    return AUG_OK;
}

/* Runs kind on im (checked) with count operands (1, or one per image) into *out. */
static aug_status tone_run(const char *func, int kind, const aug_tensor *im, const aug__tone_arg *args,
                           int64_t count, aug_tensor **out) {
    aug__need need = {AUG__FAMILY_TONE, kind, im->dtype, AUG_DTYPE_AUTO};
    const aug__backend *be = aug__backend_supporting(func, im->device, &need);
    if (!be) return aug_last_status();
    aug_tensor *res = NULL, *packed = NULL;
    aug_status st = aug__out_like(func, out, im, "the image", &res);
    if (st) return st;
    if (res == *out && aug__tensors_overlap(res, im) && aug_tensor_ptr(res) != aug_tensor_ptr(im)) {
        st = aug__error(AUG_ERR_VALUE, func, "out partially overlaps the image (only out == image is allowed)");
        goto fail;
    }
    /* A strided image (a crop, a flipped or transposed view) is read from one
     * contiguous copy; out is contiguous (aug__out_like), so out == a strided
     * image is refused there. */
    if (!aug_tensor_is_contiguous(im) && !(packed = aug_tensor_contiguous(im))) {
        st = aug_last_status();
        goto fail;
    }
    if (res != *out) aug_tensor_set_layout(res, im->layout);
    const int64_t n = aug_tensor_size(im);
    aug__tone_plan plan = {.func = func,
                           .kind = kind,
                           .dtype = (int)im->dtype,
                           .images = count,
                           .per_image = count > 1 ? n / count : n,
                           .args = args,
                           .src = (const char *)aug_tensor_ptr(packed ? packed : im),
                           .dst = (char *)aug_tensor_ptr(res),
                           .exec = aug__exec_for(im->device)};
    st = n > 0 ? aug__dispatch_tone(be, &plan) : AUG_OK;
    aug_tensor_free(packed);
    if (st == AUG_OK) {
        *out = res;
        return AUG_OK;
    }
fail:
    if (res != *out) aug_tensor_free(res);
    return st;
}

aug_status aug_invert(const aug_tensor *im, aug_tensor **out) {
    static const aug__tone_arg none;
    if (!out) return aug__error(AUG_ERR_VALUE, "aug_invert", "out is NULL");
    aug_status st = check_image("aug_invert", im);
    return st ? st : tone_run("aug_invert", AUG__TONE_INVERT, im, &none, 1, out);
}

/* posterize's operands for image dtype t and bits (checked): the integer mask,
 * or levels = 2^bits, levels - 1 and 1 / levels in float32 and float64 (as torch
 * converts them: exact powers of two; levels - 1 rounded above 2^24). */
static aug__tone_arg posterize_arg(aug_dtype t, int32_t bits) {
    aug__tone_arg a;
    memset(&a, 0, sizeof a);
    const int vb = t == AUG_UINT8 ? 8 : 16;
    a.mask = bits >= vb ? (1u << vb) - 1u : ((1u << bits) - 1u) << (vb - bits);
    const double levels = (double)((uint64_t)1 << bits);
    a.d[0] = levels, a.d[1] = levels - 1.0, a.d[2] = 1.0 / levels;
    a.f[0] = (float)a.d[0], a.f[1] = (float)a.d[1], a.f[2] = (float)a.d[2];
    return a;
}

aug_status aug_posterize(const aug_tensor *im, const int32_t *bits, int64_t count, aug_tensor **out) {
    static const char func[] = "aug_posterize";
    if (!out) return aug__error(AUG_ERR_VALUE, func, "out is NULL");
    aug_status st = check_image(func, im);
    if (!st) st = check_count(func, im, bits, count, "bits");
    if (st) return st;
    for (int64_t i = 0; i < count; i++)
        if (bits[i] < 0 || bits[i] > 32)
            return count > 1 ? aug__error(AUG_ERR_VALUE, func, "bits must be in [0, 32], got %ld (image %lld)",
                                          (long)bits[i], (long long)i)
                             : aug__error(AUG_ERR_VALUE, func, "bits must be in [0, 32], got %ld", (long)bits[i]);
    aug__tone_arg *args = malloc((size_t)(count > 0 ? count : 1) * sizeof *args);
    if (!args) return aug__error(AUG_ERR_MEMORY, func, "out of host memory for %lld operands", (long long)count);
    for (int64_t i = 0; i < count; i++) args[i] = posterize_arg(im->dtype, bits[i]);
    st = tone_run(func, AUG__TONE_POSTERIZE, im, args, count, out);
    free(args);
    return st;
}

aug_status aug_solarize(const aug_tensor *im, const double *threshold, int64_t count, aug_tensor **out) {
    static const char func[] = "aug_solarize";
    if (!out) return aug__error(AUG_ERR_VALUE, func, "out is NULL");
    aug_status st = check_image(func, im);
    if (!st) st = check_count(func, im, threshold, count, "threshold");
    if (st) return st;
    const double bound = im->dtype == AUG_UINT8 ? 255.0 : im->dtype == AUG_UINT16 ? 65535.0 : 1.0;
    for (int64_t i = 0; i < count; i++)
        if (!(threshold[i] <= bound)) { /* NaN too */
            char img[40] = "";
            if (count > 1) snprintf(img, sizeof img, " (image %lld)", (long long)i);
            return aug__error(AUG_ERR_VALUE, func, "threshold must be <= %g, the largest %s value, got %g%s", bound,
                              aug_dtype_name(im->dtype), threshold[i], img);
        }
    aug__tone_arg *args = calloc((size_t)(count > 0 ? count : 1), sizeof *args);
    if (!args) return aug__error(AUG_ERR_MEMORY, func, "out of host memory for %lld operands", (long long)count);
    for (int64_t i = 0; i < count; i++) args[i].d[0] = threshold[i], args[i].f[0] = (float)threshold[i];
    st = tone_run(func, AUG__TONE_SOLARIZE, im, args, count, out);
    free(args);
    return st;
}
