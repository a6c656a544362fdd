/* core/mix.c: aug_mix_mirror (MixUp / CutMix of a batch with its mirror, as
 * timm's Mixup mixes), the backend-neutral half: the checks of the batch, the
 * weights and the boxes, each image's part (aug__mix_image), the plan.
 *
 * Nothing is written unless every check passes. The batch is mixed in place, so
 * a view that puts two positions on one value (a zero stride) is refused: the
 * pair's values would be read after one of them was written. */
#include <math.h>
#include <stdlib.h>
#include "aug/image.h"
#include "mix.h"
#include "tensor_impl.h"

#define FUNC "aug_mix_mirror"

/* Image k's part from its entry e (0 when count is 1) of weights and boxes. */
static aug_status image_part(const double *weights, const int64_t *boxes, int64_t e, int64_t h, int64_t w,
                             aug__mix_image *m) {
    m->x1 = m->y1 = m->x2 = m->y2 = 0;
    m->w = 1.0, m->v = 0.0, m->pad_ = 0;
    if (weights) {
        m->w = weights[2 * e], m->v = weights[2 * e + 1];
        if (!isfinite(m->w) || !isfinite(m->v))
            return aug__error(AUG_ERR_VALUE, FUNC, "weights[%lld] = (%g, %g) must be finite", (long long)e, m->w,
                              m->v);
    }
    if (boxes) {
        const int64_t *b = boxes + 4 * e;
        if (!(0 <= b[0] && b[0] <= b[2] && b[2] <= w && 0 <= b[1] && b[1] <= b[3] && b[3] <= h))
            return aug__error(AUG_ERR_VALUE, FUNC,
                              "boxes[%lld] = (%lld, %lld, %lld, %lld) is not inside the %lld x %lld image "
                              "(0 <= x1 <= x2 <= W, 0 <= y1 <= y2 <= H)",
                              (long long)e, (long long)b[0], (long long)b[1], (long long)b[2], (long long)b[3],
                              (long long)w, (long long)h);
        if (b[0] < b[2] && b[1] < b[3]) {
            m->x1 = b[0], m->y1 = b[1], m->x2 = b[2], m->y2 = b[3];
            m->kind = AUG__MIX_CUT;
            return AUG_OK;
        }
    }
    m->kind = m->w == 1.0 && m->v == 0.0 ? AUG__MIX_KEEP : AUG__MIX_BLEND;
    return AUG_OK;
}

aug_status aug_mix_mirror(aug_tensor *images, const double *weights, const int64_t *boxes, int64_t count) {
    char sa[96];
    aug_status st = aug__tensor_check(FUNC, images);
    if (st) return st;
    if (images->ndim != 4)
        return aug__error(AUG_ERR_VALUE, FUNC, "images must be (N, C, H, W), got shape %s",
                          aug_shape_str(images->ndim, images->shape, sa, sizeof sa));
    if ((st = aug_layout_check(FUNC, "images", images->layout, "NCHW"))) return st;
    const aug_dtype t = images->dtype;
    if (t != AUG_FLOAT16 && t != AUG_BFLOAT16 && t != AUG_FLOAT32 && t != AUG_FLOAT64)
        return aug__error(AUG_ERR_TYPE, FUNC, "images must be float16, bfloat16, float32 or float64, not %s",
                          aug_dtype_name(t));
    const int64_t n = images->shape[0], h = images->shape[2], w = images->shape[3];
    if (count != 1 && count != n)
        return aug__error(AUG_ERR_VALUE, FUNC, "count = %lld must be 1 or the batch size %lld", (long long)count,
                          (long long)n);
    for (int d = 0; d < 4; d++)
        if (images->shape[d] > 1 && images->strides[d] == 0)
            return aug__error(AUG_ERR_VALUE, FUNC, "images has stride 0 in dimension %d: two positions on one value "
                              "cannot be mixed in place", d);
    aug__mix_image *parts = malloc((size_t)(n + 1) * sizeof *parts);
    if (!parts) return AUG__NOMEM(FUNC);
    int64_t writes = 0;
    for (int64_t k = 0; k < n && st == AUG_OK; k++) {
        st = image_part(weights, boxes, count == 1 ? 0 : k, h, w, &parts[k]);
        writes += parts[k].kind != AUG__MIX_KEEP;
    }
    if (st == AUG_OK && writes && aug_tensor_size(images) > 0) {
        aug__need need = {AUG__FAMILY_MIX, 0, t, AUG_DTYPE_AUTO};
        const aug__backend *be = aug__backend_supporting(FUNC, images->device, &need);
        if (!be) {
            st = aug_last_status();
        } else {
            aug__mix_plan plan = {FUNC, images, (char *)aug_tensor_ptr(images), (int)t,
                                  n, images->shape[1], h, w,
                                  images->strides[0], images->strides[1], images->strides[2], images->strides[3],
                                  parts, aug__exec_for(images->device)};
            st = aug__dispatch_mix_mirror(be, &plan);
        }
    }
    free(parts);
    return st;
}
