/* core/flip_crop.c: aug_flip, aug_crop, aug_center_crop (views of an image or
 * batch: slices of its H and W axes, negative steps for flips, no copy) and
 * aug_flip_batch (a copy flipping the images a mask names). The layouts are
 * resize's (core/resize_layout.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "aug/resize.h"
#include "resize_layout.h"
#include "tensor_impl.h"

/* Slices: the whole axis, or [start, start + len), or the axis reversed. */
static void whole(aug_index *ix) {
    memset(ix, 0, sizeof *ix);
    ix->kind = AUG_INDEX_SLICE;
    ix->step = 1;
}
static void range(aug_index *ix, int64_t start, int64_t len) {
    whole(ix);
    ix->start = start, ix->stop = start + len;
    ix->has_start = ix->has_stop = 1;
}
static void reversed(aug_index *ix) {
    whole(ix);
    ix->step = -1;
}

/* The thread's last error again, prefixed by func instead. */
static aug_status rename_error(const char *func) {
    char msg[512];
    snprintf(msg, sizeof msg, "%s", aug_last_error_detail());
    return aug__error(aug_last_status(), func, "%s", msg);
}

/* t indexed with idx (one slice per axis), the layout kept; errors named func. */
static aug_tensor *view_of(const char *func, const aug_tensor *t, const aug__img_layout *L, const aug_index *idx) {
    aug_tensor *v = aug_tensor_index(t, t->ndim, idx);
    if (!v) {
        rename_error(func);
        return NULL;
    }
    if (aug_tensor_set_layout(v, L->name) != AUG_OK) {
        aug_tensor_free(v);
        return NULL;
    }
    return v;
}

static aug_tensor *flip_view(const char *func, const aug_tensor *t, const aug__img_layout *L, int horizontal,
                             int vertical) {
    aug_index idx[AUG_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++) whole(&idx[d]);
    if (horizontal) reversed(&idx[L->w_ax]);
    if (vertical) reversed(&idx[L->h_ax]);
    return view_of(func, t, L, idx);
}

aug_tensor *aug_flip(const aug_tensor *t, const char *layout, int horizontal, int vertical) {
    static const char func[] = "aug_flip";
    aug__img_layout L;
    if (aug__tensor_check(func, t) || aug__image_layout(func, t, layout, AUG__LAYOUT_IMAGE | AUG__LAYOUT_BATCH, &L))
        return NULL;
    return flip_view(func, t, &L, horizontal, vertical);
}

aug_tensor *aug_crop(const aug_tensor *t, const char *layout, int64_t y, int64_t x, int64_t h, int64_t w) {
    static const char func[] = "aug_crop";
    aug__img_layout L;
    if (aug__tensor_check(func, t) || aug__image_layout(func, t, layout, AUG__LAYOUT_IMAGE | AUG__LAYOUT_BATCH, &L))
        return NULL;
    if (y < 0 || x < 0 || h < 1 || w < 1 || h > L.H - y || w > L.W - x) {
        aug__error(AUG_ERR_VALUE, func,
                   "crop (y=%lld, x=%lld, h=%lld, w=%lld) does not fit the image (H=%lld, W=%lld): "
                   "y, x >= 0, h, w >= 1, y + h <= H, x + w <= W",
                   (long long)y, (long long)x, (long long)h, (long long)w, (long long)L.H, (long long)L.W);
        return NULL;
    }
    aug_index idx[AUG_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++) whole(&idx[d]);
    range(&idx[L.h_ax], y, h);
    range(&idx[L.w_ax], x, w);
    return view_of(func, t, &L, idx);
}

/* torchvision's offset of a crop that fits: round-half-even((size - crop) / 2). */
static int64_t centre_offset(int64_t size, int64_t crop) {
    int64_t d = size - crop, q = d / 2;
    return (d % 2 != 0 && q % 2 != 0) ? q + 1 : q; /* d odd: (d/2) is q + 0.5, ties to even */
}

aug_tensor *aug_center_crop(const aug_tensor *t, const char *layout, int64_t h, int64_t w) {
    static const char func[] = "aug_center_crop";
    aug__img_layout L;
    if (aug__tensor_check(func, t) || aug__image_layout(func, t, layout, AUG__LAYOUT_IMAGE | AUG__LAYOUT_BATCH, &L))
        return NULL;
    if (h < 1 || w < 1) {
        aug__error(AUG_ERR_VALUE, func, "size (h=%lld, w=%lld) must be >= 1", (long long)h, (long long)w);
        return NULL;
    }
    /* per axis: the source range [s0, s0 + n) and where it lands in the result */
    int64_t sy = 0, sx = 0, dy = 0, dx = 0, ny = h, nx = w;
    if (h <= L.H) sy = centre_offset(L.H, h);
    else dy = (h - L.H) / 2, ny = L.H;
    if (w <= L.W) sx = centre_offset(L.W, w);
    else dx = (w - L.W) / 2, nx = L.W;
    aug_index idx[AUG_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++) whole(&idx[d]);
    range(&idx[L.h_ax], sy, ny);
    range(&idx[L.w_ax], sx, nx);
    aug_tensor *part = view_of(func, t, &L, idx);
    if (!part || (h <= L.H && w <= L.W)) return part;
    /* larger than the image: zeros around it (torchvision pads, then crops) */
    int64_t shape[AUG_MAX_DIMS];
    memcpy(shape, t->shape, sizeof(int64_t) * (size_t)t->ndim);
    shape[L.h_ax] = h, shape[L.w_ax] = w;
    aug_tensor *res = aug_tensor_zeros(t->ndim, shape, t->dtype, t->device);
    aug_tensor *inner = NULL;
    aug_status st = res ? AUG_OK : rename_error(func);
    if (!st) {
        for (int d = 0; d < t->ndim; d++) whole(&idx[d]);
        range(&idx[L.h_ax], dy, ny);
        range(&idx[L.w_ax], dx, nx);
        inner = aug_tensor_index(res, t->ndim, idx);
        st = inner ? aug__copy(func, part, inner) : aug_last_status();
    }
    if (!st) st = aug_tensor_set_layout(res, L.name);
    aug_tensor_free(inner), aug_tensor_free(part);
    if (st) {
        aug_tensor_free(res);
        return NULL;
    }
    return res;
}

/* Byte range [lo, hi) a non-empty tensor's elements span inside its storage. */
static void extent(const aug_tensor *t, int64_t *lo, int64_t *hi) {
    int64_t item = aug__dtype_size(t->dtype), a = t->byte_offset, b = t->byte_offset;
    for (int d = 0; d < t->ndim; d++) {
        int64_t span = (t->shape[d] - 1) * t->strides[d] * item;
        if (span < 0) a += span;
        else b += span;
    }
    *lo = a;
    *hi = b + item;
}

aug_status aug_flip_batch(const aug_tensor *t, const char *layout, const uint8_t *flags, int64_t n, int horizontal,
                          int vertical, aug_tensor **out) {
    static const char func[] = "aug_flip_batch";
    aug__img_layout L;
    aug_status st = aug__tensor_check(func, t);
    if (st || (st = aug__image_layout(func, t, layout, AUG__LAYOUT_BATCH, &L))) return st;
    if (!out) return aug__error(AUG_ERR_VALUE, func, "out is NULL");
    if (n != L.N)
        return aug__error(AUG_ERR_VALUE, func, "%lld flags were given for a batch of %lld images", (long long)n,
                          (long long)L.N);
    if (n > 0 && !flags) return aug__error(AUG_ERR_VALUE, func, "flags is NULL");
    aug_tensor *res = *out;
    if (res) {
        char sa[128], sb[128], da[32], db[32];
        if ((st = aug__tensor_check(func, res))) return st;
        int same = res->ndim == t->ndim && res->dtype == t->dtype;
        for (int d = 0; same && d < t->ndim; d++) same = res->shape[d] == t->shape[d];
        if (!same)
            return aug__error(AUG_ERR_VALUE, func, "out (%s, %s) must have the batch's shape %s and dtype %s",
                              aug_shape_str(res->ndim, res->shape, sa, sizeof sa), aug_dtype_name(res->dtype),
                              aug_shape_str(t->ndim, t->shape, sb, sizeof sb), aug_dtype_name(t->dtype));
        if (!aug__device_eq(res->device, t->device))
            return aug__error(AUG_ERR_VALUE, func, "out is on %s but the batch is on %s",
                              aug__device_str(res->device, da, sizeof da), aug__device_str(t->device, db, sizeof db));
    } else {
        res = aug__tensor_empty(func, t->ndim, t->shape, t->dtype, t->device);
        if (!res) return aug_last_status();
    }
    /* in place: out is the batch (or the same view of it); any other overlap would
     * overwrite images before they are read */
    int in_place = res == t || (res->storage == t->storage && aug_tensor_ptr(res) == aug_tensor_ptr(t) &&
                                memcmp(res->strides, t->strides, sizeof(int64_t) * (size_t)t->ndim) == 0);
    if (!in_place && res->storage && res->storage == t->storage && aug_tensor_size(t) > 0) {
        int64_t a0, a1, b0, b1;
        extent(t, &a0, &a1);
        extent(res, &b0, &b1);
        if (a0 < b1 && b0 < a1) {
            if (!*out) aug_tensor_free(res);
            return aug__error(AUG_ERR_VALUE, func, "out overlaps the batch without being it");
        }
    }
    aug_index idx[AUG_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++) whole(&idx[d]);
    for (int64_t i = 0; i < n && !st; i++) {
        if (in_place && !flags[i]) continue;
        idx[L.n_ax].kind = AUG_INDEX_INT;
        idx[L.n_ax].i = i;
        aug_tensor *a = aug_tensor_index(t, t->ndim, idx), *b = aug_tensor_index(res, t->ndim, idx);
        aug_tensor *f = NULL;
        if (a && flags[i]) {
            aug_index fl[AUG_MAX_DIMS];
            for (int d = 0; d < t->ndim - 1; d++) whole(&fl[d]);
            int hd = L.h_ax - (L.h_ax > L.n_ax), wd = L.w_ax - (L.w_ax > L.n_ax);
            if (horizontal) reversed(&fl[wd]);
            if (vertical) reversed(&fl[hd]);
            f = aug_tensor_index(a, t->ndim - 1, fl);
        }
        const aug_tensor *from = flags[i] ? f : a;
        st = a && b && from ? aug__copy(func, from, b) : aug_last_status();
        aug_tensor_free(a), aug_tensor_free(b), aug_tensor_free(f);
    }
    if (!st) st = aug_tensor_set_layout(res, L.name);
    if (st) {
        if (!*out) aug_tensor_free(res);
        return st;
    }
    *out = res;
    return AUG_OK;
}
