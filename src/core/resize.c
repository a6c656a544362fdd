/* core/resize.c: aug_resize / aug_resize_batch, the backend-neutral half:
 * layouts, argument checks, the output, the tap tables of every image
 * (scalar/resize.h) and the dispatch to the backend's resize entry. The image
 * layout rules shared with the flip and crop views are here too
 * (aug__image_layout, core/resize_layout.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "aug/resize.h"
#include "backend.h"
#include "resize.h"
#include "conventions.h"
#include "resize_layout.h"
#include "scalar/resize.h"
#include "tensor_impl.h"

/* ---- layouts ------------------------------------------------------------------- */

static const char *const LAYOUTS[] = {"HW", "HWC", "CHW", "NHWC", "NCHW"};

aug_status aug__image_layout(const char *func, const aug_tensor *t, const char *layout, int kinds,
                             aug__img_layout *L) {
    char sbuf[128];
    const char *name = layout;
    if (t->layout[0] != '\0') {
        if (layout && strcmp(layout, t->layout) != 0)
            return aug__error(AUG_ERR_VALUE, func, "layout '%s' was given but the tensor's layout is '%s'", layout,
                              t->layout);
        name = t->layout;
    }
    if (!name) {
        name = t->ndim == 2 ? "HW" : t->ndim == 3 ? "HWC" : t->ndim == 4 ? "NCHW" : NULL;
        if (!name)
            return aug__error(AUG_ERR_VALUE, func,
                              "a tensor of shape %s without a layout: images are HW, HWC or CHW, batches NHWC or NCHW",
                              aug_shape_str(t->ndim, t->shape, sbuf, sizeof sbuf));
    }
    int which = -1;
    for (int i = 0; i < 5; i++)
        if (strcmp(name, LAYOUTS[i]) == 0) which = i;
    int batch = which >= 3;
    if (which < 0 || (batch && !(kinds & AUG__LAYOUT_BATCH)) || (!batch && !(kinds & AUG__LAYOUT_IMAGE))) {
        const char *want = kinds == AUG__LAYOUT_BATCH   ? "NHWC,NCHW"
                           : kinds == AUG__LAYOUT_IMAGE ? "HW,HWC,CHW"
                                                        : "HW,HWC,CHW,NHWC,NCHW";
        aug_status bad = aug_layout_check(func, NULL, name, want);
        return bad ? bad : aug__error(AUG_ERR_VALUE, func, "layout '%s' is not supported", name);
    }
    int nd = (int)strlen(name);
    if (t->ndim != nd)
        return aug__error(AUG_ERR_VALUE, func, "layout '%s' has %d dimensions but the tensor has shape %s", name, nd,
                          aug_shape_str(t->ndim, t->shape, sbuf, sizeof sbuf));
    memset(L, 0, sizeof *L);
    strcpy(L->name, name);
    L->nd = nd;
    L->n_ax = L->c_ax = -1;
    for (int d = 0; d < nd; d++) {
        switch (name[d]) {
        case 'N': L->n_ax = d; break;
        case 'H': L->h_ax = d; break;
        case 'W': L->w_ax = d; break;
        default: L->c_ax = d; break;
        }
    }
    L->N = L->n_ax >= 0 ? t->shape[L->n_ax] : 1;
    L->C = L->c_ax >= 0 ? t->shape[L->c_ax] : 1;
    L->H = t->shape[L->h_ax];
    L->W = t->shape[L->w_ax];
    L->sn = L->n_ax >= 0 ? t->strides[L->n_ax] : 0;
    L->sc = L->c_ax >= 0 ? t->strides[L->c_ax] : 0;
    L->sh = t->strides[L->h_ax];
    L->sw = t->strides[L->w_ax];
    return AUG_OK;
}

aug_status aug_image_dims(const aug_tensor *t, const char *layout, int64_t *n, int64_t *h, int64_t *w, int64_t *c) {
    static const char func[] = "aug_image_dims";
    aug__img_layout L;
    aug_status st = aug__tensor_check(func, t);
    if (st || (st = aug__image_layout(func, t, layout, AUG__LAYOUT_IMAGE | AUG__LAYOUT_BATCH, &L))) return st;
    if (n) *n = L.N;
    if (h) *h = L.H;
    if (w) *w = L.W;
    if (c) *c = L.C;
    return AUG_OK;
}

/* ---- overlap ---------------------------------------------------------------------- */

/* ---- tap tables ------------------------------------------------------------------- */

typedef struct tables {
    aug__resize_tap *taps;
    double *w64;
    int64_t ntaps, nw, cap_taps, cap_w;
    double *scratch;       /* one output's weights */
    int64_t cap_scratch;
} tables;

static int grow(void **p, int64_t *cap, int64_t need, size_t item) {
    if (need <= *cap) return 1;
    int64_t c = *cap ? *cap : 256;
    while (c < need) c *= 2;
    void *q = realloc(*p, (size_t)c * item);
    if (!q) return 0;
    *p = q;
    *cap = c;
    return 1;
}

/* Appends the taps of one axis (out entries); *start gets the first entry,
 * *single whether every entry is one tap of weight 1. */
static aug_status add_axis(const char *func, tables *tb, int mode, int64_t in, int64_t out, int64_t *start,
                           int *single) {
    int64_t cap = aug__resize_max_taps(mode, in, out);
    if (!grow((void **)&tb->scratch, &tb->cap_scratch, cap, sizeof(double)) ||
        !grow((void **)&tb->taps, &tb->cap_taps, tb->ntaps + out, sizeof(aug__resize_tap)))
        return AUG__NOMEM(func);
    *start = tb->ntaps;
    *single = 1;
    for (int64_t o = 0; o < out; o++) {
        int64_t first;
        int n = aug__resize_taps(mode, in, out, o, &first, tb->scratch, cap);
        if (!grow((void **)&tb->w64, &tb->cap_w, tb->nw + n, sizeof(double))) return AUG__NOMEM(func);
        aug__resize_tap *e = &tb->taps[tb->ntaps++];
        e->first = first;
        e->woff = tb->nw;
        e->count = n;
        memcpy(tb->w64 + tb->nw, tb->scratch, (size_t)n * sizeof(double));
        tb->nw += n;
        if (n != 1 || tb->scratch[0] != 1.0) *single = 0;
    }
    return AUG_OK;
}

/* ---- the run ---------------------------------------------------------------------- */

typedef struct rs_src {
    const aug_tensor *t;
    aug__img_layout L;
} rs_src;

/* Plans and runs n source images (the images of srcs, each with L.N images)
 * into dst, whose geometry is D (D.N images in total). */
static aug_status run(const char *func, int64_t nsrc, const rs_src *srcs, const aug_tensor *dst,
                      const aug__img_layout *D, aug_interp mode, int antialias) {
    aug_status st = AUG_OK;
    /* the backends' numbering (scalar/resize.h): 0 nearest, 1 linear, 2 area */
    int interp = mode == AUG_INTERP_NEAREST ? 0 : mode == AUG_INTERP_LINEAR ? 1 : 2;
    int64_t total = D->N, Ho = D->H, Wo = D->W, C = D->C;
    if (total == 0 || C == 0) return AUG_OK;
    aug_dtype sdt0 = srcs[0].t->dtype;
    aug__need need = {AUG__FAMILY_RESIZE, interp, dst->dtype, sdt0};
    const aug__backend *be = aug__backend_supporting(func, dst->device, &need);
    if (!be) return aug_last_status();
    aug__resize_image *img = calloc((size_t)total, sizeof *img);
    tables tb = {0};
    if (!img) return AUG__NOMEM(func);
    int64_t dsz = aug__dtype_size(dst->dtype), k = 0;
    int64_t prevH = -1, prevW = -1, xtab = 0, ytab = 0;
    int gather = 0;
    for (int64_t s = 0; s < nsrc && !st; s++) {
        const aug_tensor *t = srcs[s].t;
        const aug__img_layout *L = &srcs[s].L;
        int64_t ssz = aug__dtype_size(t->dtype);
        for (int64_t i = 0; i < L->N; i++, k++) {
            aug__resize_image *m = &img[k];
            if (L->H != prevH || L->W != prevW) {
                int mx = aug__resize_axis_mode(interp, antialias, L->W, Wo, L->H, Ho);
                int my = aug__resize_axis_mode(interp, antialias, L->H, Ho, L->W, Wo);
                int gx, gy;
                if ((st = add_axis(func, &tb, mx, L->W, Wo, &xtab, &gx)) ||
                    (st = add_axis(func, &tb, my, L->H, Ho, &ytab, &gy)))
                    break;
                gather = gx && gy;
                prevH = L->H, prevW = L->W;
            }
            m->src = (const char *)aug_tensor_ptr(t) + i * L->sn * ssz;
            m->dst = (char *)aug_tensor_ptr(dst) + k * D->sn * dsz;
            m->H = L->H, m->W = L->W;
            m->sh = L->sh * ssz, m->sw = L->sw * ssz, m->sc = L->sc * ssz;
            m->dh = D->sh * dsz, m->dw = D->sw * dsz, m->dc = D->sc * dsz;
            m->xtab = xtab, m->ytab = ytab;
            m->src_dtype = (int)t->dtype;
            m->compute = aug__resize_float_source((int)t->dtype) && dst->dtype != AUG_FLOAT64 ? AUG_FLOAT32
                                                                                              : AUG_FLOAT64;
            m->gather = gather;
        }
    }
    float *w32 = st ? NULL : malloc((size_t)(tb.nw + 1) * sizeof(float));
    if (!st && !w32) st = AUG__NOMEM(func);
    if (!st) {
        for (int64_t i = 0; i < tb.nw; i++) w32[i] = (float)tb.w64[i];
        aug__resize_plan plan = {func, total, C, Ho, Wo, img, tb.taps, tb.w64, w32, tb.ntaps, tb.nw,
                                 (int)dst->dtype, D->c_ax >= 0 && D->c_ax < D->h_ax, aug__exec_for(dst->device)};
        st = aug__dispatch_resize(be, &plan);
    }
    free(w32);
    free(tb.taps), free(tb.w64), free(tb.scratch), free(img);
    return st;
}

static aug_status check_args(const char *func, int64_t height, int64_t width, aug_interp interp) {
    if (height < 1 || width < 1 || height > INT32_MAX || width > INT32_MAX)
        return aug__error(AUG_ERR_VALUE, func, "size (%lld, %lld) must be in [1, %d]", (long long)height,
                          (long long)width, INT32_MAX);
    aug_status st = aug__interp_check(func, interp,
                                      AUG__INTERP_BIT(AUG_INTERP_LINEAR) | AUG__INTERP_BIT(AUG_INTERP_NEAREST) |
                                          AUG__INTERP_BIT(AUG_INTERP_AREA));
    if (st) return st;
    return AUG_OK;
}

/* The output's checks: device, no overlap with a source, distinct elements. */
static aug_status check_dst(const char *func, const aug_tensor *dst, int64_t nsrc, const rs_src *srcs) {
    char b1[32], b2[32];
    for (int64_t i = 0; i < nsrc; i++) {
        if (!aug__device_eq(srcs[i].t->device, dst->device))
            return aug__error(AUG_ERR_VALUE, func, "the image is on %s but the output is on %s",
                              aug__device_str(srcs[i].t->device, b1, sizeof b1),
                              aug__device_str(dst->device, b2, sizeof b2));
        if (aug__tensors_overlap(srcs[i].t, dst))
            return nsrc > 1 ? aug__error(AUG_ERR_VALUE, func, "the output overlaps image %lld", (long long)i)
                            : aug__error(AUG_ERR_VALUE, func, "the output overlaps the image");
    }
    return aug__check_no_self_overlap(func, dst, "the output");
}

static aug_status check_source(const char *func, const aug__img_layout *L, int64_t index, int batch) {
    if (L->H < 1 || L->W < 1) {
        if (batch)
            return aug__error(AUG_ERR_VALUE, func, "image %lld is empty (H = %lld, W = %lld)", (long long)index,
                              (long long)L->H, (long long)L->W);
        return aug__error(AUG_ERR_VALUE, func, "the image is empty (H = %lld, W = %lld)", (long long)L->H,
                          (long long)L->W);
    }
    return AUG_OK;
}

aug_status aug_resize(const aug_tensor *src, const char *layout, int64_t height, int64_t width,
                      aug_resize_interp interp, int antialias, aug_tensor **out) {
    static const char func[] = "aug_resize";
    char sbuf[128], sbuf2[128];
    aug_status st = aug__tensor_check(func, src);
    if (st) return st;
    if (!out) return aug__error(AUG_ERR_VALUE, func, "out is NULL");
    if ((st = check_args(func, height, width, interp))) return st;
    rs_src s;
    memset(&s, 0, sizeof s);
    s.t = src;
    if ((st = aug__image_layout(func, src, layout, AUG__LAYOUT_IMAGE | AUG__LAYOUT_BATCH, &s.L))) return st;
    if ((st = check_source(func, &s.L, 0, 0))) return st;
    int64_t shape[AUG_MAX_DIMS];
    memcpy(shape, src->shape, sizeof(int64_t) * (size_t)src->ndim);
    shape[s.L.h_ax] = height;
    shape[s.L.w_ax] = width;
    aug_tensor *res = *out;
    if (res) {
        if ((st = aug__tensor_check(func, res))) return st;
        int same = res->ndim == src->ndim;
        for (int d = 0; same && d < src->ndim; d++) same = res->shape[d] == shape[d];
        if (!same)
            return aug__error(AUG_ERR_VALUE, func, "out has shape %s but the result has shape %s",
                              aug_shape_str(res->ndim, res->shape, sbuf, sizeof sbuf),
                              aug_shape_str(src->ndim, shape, sbuf2, sizeof sbuf2));
        if ((st = check_dst(func, res, 1, &s))) return st;
    } else {
        res = aug__tensor_empty(func, src->ndim, shape, src->dtype, src->device);
        if (!res) return aug_last_status();
    }
    aug__img_layout D = s.L;
    D.H = height, D.W = width;
    D.sn = D.n_ax >= 0 ? res->strides[D.n_ax] : 0;
    D.sc = D.c_ax >= 0 ? res->strides[D.c_ax] : 0;
    D.sh = res->strides[D.h_ax], D.sw = res->strides[D.w_ax];
    st = aug_tensor_set_layout(res, s.L.name);
    if (!st) st = run(func, 1, &s, res, &D, interp, antialias);
    if (st) {
        if (!*out) aug_tensor_free(res);
        return st;
    }
    *out = res;
    return AUG_OK;
}

aug_status aug_resize_batch(int64_t n, const aug_tensor *const *src, const char *layout, aug_tensor *dst,
                            const char *out_layout, aug_resize_interp interp, int antialias) {
    static const char func[] = "aug_resize_batch";
    char sbuf[128];
    aug_status st = aug__tensor_check(func, dst);
    if (st) return st;
    if (n < 1) return aug__error(AUG_ERR_VALUE, func, "the batch needs at least one image, got %lld", (long long)n);
    if (!src) return aug__error(AUG_ERR_VALUE, func, "src is NULL");
    if (dst->ndim != 4)
        return aug__error(AUG_ERR_VALUE, func, "dst must be (N, C, H, W) or (N, H, W, C), got shape %s",
                          aug_shape_str(dst->ndim, dst->shape, sbuf, sizeof sbuf));
    const char *dl = out_layout ? out_layout : dst->layout[0] ? dst->layout : "NCHW";
    if ((st = aug_layout_check(func, "out_layout", dl, "NCHW,NHWC"))) return st;
    aug__img_layout D;
    aug_tensor probe = *dst;
    strcpy(probe.layout, dl);
    if ((st = aug__image_layout(func, &probe, NULL, AUG__LAYOUT_BATCH, &D))) return st;
    if (D.N != n)
        return aug__error(AUG_ERR_VALUE, func, "dst holds %lld images (shape %s) but %lld source images were given",
                          (long long)D.N, aug_shape_str(dst->ndim, dst->shape, sbuf, sizeof sbuf), (long long)n);
    if ((st = check_args(func, D.H, D.W, interp))) return st;
    rs_src *srcs = calloc((size_t)n, sizeof *srcs);
    if (!srcs) return AUG__NOMEM(func);
    for (int64_t i = 0; i < n && !st; i++) {
        srcs[i].t = src[i];
        if ((st = aug__tensor_check(func, src[i]))) break;
        if ((st = aug__image_layout(func, src[i], layout, AUG__LAYOUT_IMAGE, &srcs[i].L))) break;
        if ((st = check_source(func, &srcs[i].L, i, 1))) break;
        if (srcs[i].L.C != D.C)
            st = aug__error(AUG_ERR_VALUE, func, "image %lld has %lld channels but dst has %lld", (long long)i,
                            (long long)srcs[i].L.C, (long long)D.C);
    }
    if (!st) st = check_dst(func, dst, n, srcs);
    if (!st) st = aug_tensor_set_layout(dst, dl);
    if (!st) st = run(func, n, srcs, dst, &D, interp, antialias);
    free(srcs);
    return st;
}

aug_status aug_resize_shorter_side(int64_t height, int64_t width, int64_t size, int64_t *out_height,
                                   int64_t *out_width) {
    static const char func[] = "aug_resize_shorter_side";
    if (height < 1 || width < 1 || size < 1)
        return aug__error(AUG_ERR_VALUE, func, "height %lld, width %lld and size %lld must be >= 1",
                          (long long)height, (long long)width, (long long)size);
    if (!out_height || !out_width) return aug__error(AUG_ERR_VALUE, func, "out_height / out_width is NULL");
    int64_t s = height <= width ? height : width, l = height <= width ? width : height;
    /* torchvision: int(size * long / short), the product exact, the quotient rounded once */
    if (size > ((int64_t)1 << 31) || l > ((int64_t)1 << 31))
        return aug__error(AUG_ERR_VALUE, func, "size %lld or side %lld is too large", (long long)size, (long long)l);
    double q = (double)(size * l) / (double)s;
    if (q > (double)INT32_MAX)
        return aug__error(AUG_ERR_VALUE, func, "the longer side %lld * %lld / %lld is too large", (long long)size,
                          (long long)l, (long long)s);
    int64_t lo = q < 1.0 ? 1 : (int64_t)q;
    *out_height = height <= width ? size : lo;
    *out_width = height <= width ? lo : size;
    return AUG_OK;
}
