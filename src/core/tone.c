/* core/tone.c: the tone ops of include/aug/colour.h (aug_invert, ...), their
 * backend-neutral half: the image's checks, each op's operands per image, the
 * output and the plan (core/tone.h). */
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
