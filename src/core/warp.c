/* core/warp.c: aug_warp_affine / aug_warp_affine_batch (semantics §13), the
 * backend-neutral half: argument checks, the background read into host doubles,
 * the (N, C, Ht, Wt) view of the output, the "CHW"/"NCHW" layout, and the
 * dispatch to the backend's warp_affine entry (src/cpu/warp.c on the CPU). */
#include <math.h>
#include <stdlib.h>
#include "aug/image.h"
#include "backend.h"
#include "tensor_impl.h"
#include "warp.h"

/* Byte range [lo, hi) a non-empty tensor's elements span inside its storage. */
static void byte_extent(const aug_tensor *t, int64_t *lo, int64_t *hi) {
    int64_t item = aug__dtype_size(t->dtype);
    int64_t a = t->byte_offset, b = t->byte_offset;
    for (int d = 0; d < t->ndim; d++) {
        int64_t span = (t->shape[d] - 1) * t->strides[d] * item;
        if (span < 0) a += span;
        else b += span;
    }
    *lo = a;
    *hi = b + item;
}

static int overlaps(const aug_tensor *a, const aug_tensor *b) {
    if (!a->storage || a->storage != b->storage || aug_tensor_size(a) == 0 || aug_tensor_size(b) == 0) return 0;
    int64_t alo, ahi, blo, bhi;
    byte_extent(a, &alo, &ahi);
    byte_extent(b, &blo, &bhi);
    return alo < bhi && blo < ahi;
}

/* The C background values as doubles (zeros for NULL). */
static aug_status read_background(const char *func, const aug_tensor *bg, aug_device dev, int64_t C,
                                  double *out) {
    for (int64_t c = 0; c < C; c++) out[c] = 0.0;
    if (!bg) return AUG_OK;
    aug_status st = aug__tensor_check(func, bg);
    if (st) return st;
    char buf[32], buf2[32];
    if (!aug__device_eq(bg->device, dev))
        return aug__error(AUG_ERR_VALUE, func, "background is on %s but the images are on %s",
                          aug__device_str(bg->device, buf, sizeof buf), aug__device_str(dev, buf2, sizeof buf2));
    int64_t n = aug_tensor_size(bg);
    if (n != C) {
        char sbuf[128];
        return aug__error(AUG_ERR_VALUE, func, "background has %lld values (shape %s) but the images have %lld channels",
                          (long long)n, aug_shape_str(bg->ndim, bg->shape, sbuf, sizeof sbuf), (long long)C);
    }
    int64_t idx[AUG_MAX_DIMS];
    for (int64_t k = 0; k < n; k++) {
        int64_t rem = k;
        for (int d = bg->ndim - 1; d >= 0; d--) {
            idx[d] = rem % bg->shape[d];
            rem /= bg->shape[d];
        }
        aug_scalar v;
        if ((st = aug_tensor_get_item(bg, idx, &v))) return st;
        switch (aug_dtype_info(v.dtype)->kind) {
        case AUG_KIND_FLOAT: out[k] = v.v.f; break;
        case AUG_KIND_UINT: out[k] = (double)v.v.u; break;
        default: out[k] = (double)v.v.i; break;
        }
        if (isnan(out[k])) return aug__error(AUG_ERR_VALUE, func, "background value %lld is NaN", (long long)k);
    }
    return AUG_OK;
}

static aug_status warp_run(const char *func, int64_t n, const aug_tensor *const *src, aug_tensor *dst, int batch,
                           const float *matrices, const aug_tensor *background, const int *supersampling) {
    char sbuf[128], buf[32], buf2[32];
    aug_status st = aug__tensor_check(func, dst);
    if (st) return st;
    if (n < 1) return aug__error(AUG_ERR_VALUE, func, "the batch needs at least one image, got %lld", (long long)n);
    if (!src) return aug__error(AUG_ERR_VALUE, func, "src is NULL");
    if (!matrices) return aug__error(AUG_ERR_VALUE, func, "matrix is NULL");
    if (!supersampling) return aug__error(AUG_ERR_VALUE, func, "supersampling is NULL");
    int want = batch ? 4 : 3;
    if (dst->ndim != want)
        return aug__error(AUG_ERR_VALUE, func, "dst must be %s, got shape %s", batch ? "(N, C, H, W)" : "(C, H, W)",
                          aug_shape_str(dst->ndim, dst->shape, sbuf, sizeof sbuf));
    if (batch && dst->shape[0] != n)
        return aug__error(AUG_ERR_VALUE, func, "dst holds %lld images (shape %s) but %lld source images were given",
                          (long long)dst->shape[0], aug_shape_str(dst->ndim, dst->shape, sbuf, sizeof sbuf),
                          (long long)n);
    if (!aug_tensor_is_contiguous(dst))
        return aug__error(AUG_ERR_VALUE, func, "dst must be contiguous");
    int64_t C = dst->shape[want - 3], Ht = dst->shape[want - 2], Wt = dst->shape[want - 1];
    for (int64_t i = 0; i < n; i++) {
        const aug_tensor *s = src[i];
        if ((st = aug__tensor_check(func, s))) return st;
        if (s->ndim != 3)
            return aug__error(AUG_ERR_VALUE, func, "src%s must be (H, W, C), got shape %s", batch ? " images" : "",
                              aug_shape_str(s->ndim, s->shape, sbuf, sizeof sbuf));
        if (s->shape[2] != C)
            return aug__error(AUG_ERR_VALUE, func, "src image %lld has %lld channels but dst has %lld", (long long)i,
                              (long long)s->shape[2], (long long)C);
        if (!aug__device_eq(s->device, dst->device))
            return aug__error(AUG_ERR_VALUE, func, "src is on %s but dst is on %s",
                              aug__device_str(s->device, buf, sizeof buf),
                              aug__device_str(dst->device, buf2, sizeof buf2));
        if (overlaps(s, dst)) return aug__error(AUG_ERR_VALUE, func, "dst overlaps src image %lld", (long long)i);
        if (supersampling[i] < 1 || supersampling[i] > AUG_MAX_SUPERSAMPLING)
            return aug__error(AUG_ERR_VALUE, func, "supersampling must be in [1, %d], got %d", AUG_MAX_SUPERSAMPLING,
                              supersampling[i]);
        for (int k = 0; k < 6; k++)
            if (!isfinite(matrices[6 * i + k]))
                return batch ? aug__error(AUG_ERR_VALUE, func, "matrix %lld has a non-finite value %g at [%d][%d]",
                                          (long long)i, (double)matrices[6 * i + k], k / 3, k % 3)
                             : aug__error(AUG_ERR_VALUE, func, "matrix has a non-finite value %g at [%d][%d]",
                                          (double)matrices[6 * i + k], k / 3, k % 3);
    }
    double bg_stack[16];
    double *bg = C <= 16 ? bg_stack : malloc((size_t)C * sizeof(double));
    if (!bg) return AUG__NOMEM(func);
    st = read_background(func, background, dst->device, C, bg);
    aug__need need = {AUG__FAMILY_WARP, 0, dst->dtype, n > 0 ? src[0]->dtype : AUG_DTYPE_AUTO};
    const aug__backend *be = st ? NULL : aug__backend_supporting(func, dst->device, &need);
    if (!st && !be) st = aug_last_status();
    if (!st) st = aug_tensor_set_layout(dst, batch ? "NCHW" : "CHW");
    if (!st && aug_tensor_size(dst) > 0) {
        /* The backend always sees (N, C, Ht, Wt). */
        aug_tensor view = *dst;
        if (!batch) {
            view.ndim = 4;
            for (int d = 3; d > 0; d--) view.shape[d] = dst->shape[d - 1], view.strides[d] = dst->strides[d - 1];
            view.shape[0] = 1;
            view.strides[0] = C * Ht * Wt;
            view.layout[0] = '\0';
        }
        aug__warp_plan plan = {.func = func, .n = n, .src = src, .dst = &view, .channels = C, .height = Ht,
                               .width = Wt, .matrices = matrices, .supersampling = supersampling,
                               .background = bg, .exec = aug__exec_for(dst->device)};
        st = be->warp_affine(&plan);
    }
    if (bg != bg_stack) free(bg);
    return st;
}

aug_status aug_warp_affine(const aug_tensor *src, aug_tensor *dst, const float matrix[6],
                           const aug_tensor *background, int supersampling) {
    const aug_tensor *one[1] = {src};
    return warp_run("aug_warp_affine", 1, one, dst, 0, matrix, background, &supersampling);
}

aug_status aug_warp_affine_batch(int64_t n, const aug_tensor *const *src, aug_tensor *dst, const float *matrices,
                                 const aug_tensor *background, const int *supersampling) {
    return warp_run("aug_warp_affine_batch", n, src, dst, 1, matrices, background, supersampling);
}
