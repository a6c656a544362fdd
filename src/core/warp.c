/* core/warp.c: aug_warp_affine / aug_warp_affine_batch and aug_warp_perspective
 * / aug_warp_perspective_batch (semantics §13), the backend-neutral half: the options (interpolation, border, layouts) and their
 * names, argument checks, the (H, W, C) views of CHW / HW sources, the
 * background read into host doubles, the (N, C, Ht, Wt) view of the output
 * with its layout's strides, the layout string, and the dispatch to the backend's
 * warp_affine or warp_perspective entry (src/cpu/warp.c on the CPU). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "aug/image.h"
#include "backend.h"
#include "conventions.h"
#include "tensor_impl.h"
#include "warp.h"

/* The C background values as doubles (zeros for NULL). */
static aug_status read_background(const char *func, const aug_tensor *bg, aug_device dev, int64_t C,
                                  double *out) {
    for (int64_t c = 0; c < C; c++) out[c] = 0.0;
    if (!bg) return AUG_OK;
    aug_status st = aug__tensor_check(func, bg);
    if (st) return st;
    char buf[32], buf2[32];
    if (bg->device.type != AUG_DEVICE_CPU && !aug__device_eq(bg->device, dev)) /* the CPU: read without a wait */
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

/* ---- names and options ------------------------------------------------------------ */

aug_warp_options aug_warp_options_default(void) {
    aug_warp_options o = {AUG_WARP_LINEAR, AUG_WARP_BORDER_CONSTANT, AUG_WARP_LAYOUT_AUTO, AUG_WARP_LAYOUT_AUTO,
                          NULL, NULL};
    return o;
}

typedef struct name_value {
    const char *name;
    int value;
} name_value;

static aug_status from_name(const char *func, const char *what, const char *name, const name_value *table,
                            const char *valid, int *out) {
    if (!name) return aug__error(AUG_ERR_VALUE, func, "%s is NULL", what);
    for (const name_value *e = table; e->name; e++)
        if (!strcasecmp(name, e->name)) {
            *out = e->value;
            return AUG_OK;
        }
    return aug__error(AUG_ERR_VALUE, func, "unknown %s '%.40s' (expected %s)", what, name, valid);
}

aug_status aug_warp_interp_from_name(const char *func, const char *name, aug_warp_interp *out) {
    return aug_interp_from_name(func ? func : "aug_warp_interp_from_name", name, out);
}

aug_status aug_warp_border_from_name(const char *func, const char *name, aug_warp_border *out) {
    static const name_value t[] = {{"constant", AUG_WARP_BORDER_CONSTANT},   {"replicate", AUG_WARP_BORDER_REPLICATE},
                                   {"edge", AUG_WARP_BORDER_REPLICATE},      {"reflect", AUG_WARP_BORDER_REFLECT},
                                   {"reflect_101", AUG_WARP_BORDER_REFLECT}, {"reflect101", AUG_WARP_BORDER_REFLECT},
                                   {"symmetric", AUG_WARP_BORDER_SYMMETRIC}, {NULL, 0}};
    int v = 0;
    aug_status st = from_name(func ? func : "aug_warp_border_from_name", "border", name, t,
                              "'constant', 'replicate', 'reflect' or 'symmetric'", &v);
    if (!st) *out = (aug_warp_border)v;
    return st;
}

aug_status aug_warp_layout_from_name(const char *func, const char *name, aug_warp_layout *out) {
    static const name_value t[] = {{"HWC", AUG_WARP_LAYOUT_HWC},   {"CHW", AUG_WARP_LAYOUT_CHW},
                                   {"NHWC", AUG_WARP_LAYOUT_HWC},  {"NCHW", AUG_WARP_LAYOUT_CHW}, {NULL, 0}};
    int v = 0;
    aug_status st = from_name(func ? func : "aug_warp_layout_from_name", "layout", name, t,
                              "'HWC', 'CHW', 'NHWC' or 'NCHW'", &v);
    if (!st) *out = (aug_warp_layout)v;
    return st;
}

static const char *layout_name(int layout) { return layout == AUG_WARP_LAYOUT_CHW ? "CHW" : "HWC"; }

/* The layout the functions without options use: HWC whatever the label says,
 * no 2-D images (their behaviour before the options existed). */
#define LEGACY_LAYOUT (-1)

/* The (H, W, C) view of source image i (into *view): a 2-D (H, W) image is one
 * channel, a CHW image has its strides permuted. */
static aug_status source_view(const char *func, const aug_tensor *s, int64_t i, int batch, int layout,
                              aug_tensor *view) {
    char sbuf[128];
    const char *label = s->layout;
    *view = *s;
    if (s->ndim == 2 && layout != LEGACY_LAYOUT) {
        view->ndim = 3;
        view->shape[2] = 1;
        view->strides[2] = 1;
        view->layout[0] = '\0';
        return AUG_OK;
    }
    if (s->ndim != 3)
        return aug__error(AUG_ERR_VALUE, func, "src%s must be (H, W, C)%s, got shape %s", batch ? " images" : "",
                          layout == LEGACY_LAYOUT ? "" : ", (C, H, W) or (H, W)",
                          aug_shape_str(s->ndim, s->shape, sbuf, sizeof sbuf));
    int chw = layout == AUG_WARP_LAYOUT_CHW || (layout == AUG_WARP_LAYOUT_AUTO && !strcmp(label, "CHW"));
    if (layout > AUG_WARP_LAYOUT_AUTO && (!strcmp(label, "CHW") || !strcmp(label, "HWC")) &&
        strcmp(label, layout_name(layout)))
        return aug__error(AUG_ERR_VALUE, func, "src image %lld has layout \"%s\" but the options ask for %s",
                          (long long)i, label, layout_name(layout));
    if (chw) {
        view->shape[0] = s->shape[1], view->strides[0] = s->strides[1];
        view->shape[1] = s->shape[2], view->strides[1] = s->strides[2];
        view->shape[2] = s->shape[0], view->strides[2] = s->strides[0];
    }
    view->layout[0] = '\0';
    return AUG_OK;
}

/* Matrix i of a batch (nm values each: 6 affine, 9 a homography): every value
 * finite, and a homography's determinant (in double) nonzero. */
static aug_status check_matrix(const char *func, const float *m, int nm, int64_t i, int batch) {
    char which[48] = "matrix";
    if (batch) snprintf(which, sizeof which, "matrix %lld", (long long)i);
    for (int k = 0; k < nm; k++)
        if (!isfinite(m[k]))
            return aug__error(AUG_ERR_VALUE, func, "%s has a non-finite value %g at [%d][%d]", which, (double)m[k],
                              k / 3, k % 3);
    if (nm == 9) {
        double a = m[0], b = m[1], c = m[2], d = m[3], e = m[4], f = m[5], g = m[6], h = m[7], k = m[8];
        double det = a * (e * k - f * h) - b * (d * k - f * g) + c * (d * h - e * g);
        if (det == 0.0 || !isfinite(det))
            return aug__error(AUG_ERR_VALUE, func,
                              "%s is singular (determinant %g): [[%g, %g, %g], [%g, %g, %g], [%g, %g, %g]]", which,
                              det, a, b, c, d, e, f, g, h, k);
    }
    return AUG_OK;
}

static aug_status warp_run(const char *func, int64_t n, const aug_tensor *const *src, aug_tensor *dst, int batch,
                           const float *matrices, const aug_tensor *background, const int *supersampling,
                           const aug_warp_options *opts, int legacy, int projective) {
    const int nm = projective ? 9 : 6;
    char sbuf[128], buf[32], buf2[32];
    aug_warp_options o = opts ? *opts : aug_warp_options_default();
    aug_status st = aug__tensor_check(func, dst);
    if (st) return st;
    if ((unsigned)o.interpolation > AUG_INTERP_CUBIC)
        return aug__error(AUG_ERR_VALUE, func, "interpolation %d is not an aug_warp_interp", (int)o.interpolation);
    if ((st = aug__interp_check(func, o.interpolation,
                                AUG__INTERP_BIT(AUG_INTERP_LINEAR) | AUG__INTERP_BIT(AUG_INTERP_NEAREST) |
                                    AUG__INTERP_BIT(AUG_INTERP_CUBIC))))
        return st;
    if ((unsigned)o.border > AUG_WARP_BORDER_SYMMETRIC)
        return aug__error(AUG_ERR_VALUE, func, "border %d is not an aug_warp_border", (int)o.border);
    if ((unsigned)o.src_layout > AUG_WARP_LAYOUT_CHW)
        return aug__error(AUG_ERR_VALUE, func, "src_layout %d is not an aug_warp_layout", (int)o.src_layout);
    if ((unsigned)o.dst_layout > AUG_WARP_LAYOUT_CHW)
        return aug__error(AUG_ERR_VALUE, func, "dst_layout %d is not an aug_warp_layout", (int)o.dst_layout);
    /* the layout strings override the enums (aug/conventions.h) */
    if (o.layout) {
        if ((st = aug_layout_check(func, "layout", o.layout, "HWC,CHW,NHWC,NCHW"))) return st;
        o.src_layout = strstr(o.layout, "CHW") ? AUG_WARP_LAYOUT_CHW : AUG_WARP_LAYOUT_HWC;
    }
    if (o.out_layout) {
        if ((st = aug_layout_check(func, "out_layout", o.out_layout, batch ? "NCHW,NHWC" : "CHW,HWC"))) return st;
        o.dst_layout = strstr(o.out_layout, "CHW") ? AUG_WARP_LAYOUT_CHW : AUG_WARP_LAYOUT_HWC;
    }
    if (n < 1) return aug__error(AUG_ERR_VALUE, func, "the batch needs at least one image, got %lld", (long long)n);
    if (!src) return aug__error(AUG_ERR_VALUE, func, "src is NULL");
    if (!matrices) return aug__error(AUG_ERR_VALUE, func, "matrix is NULL");
    if (!supersampling) return aug__error(AUG_ERR_VALUE, func, "supersampling is NULL");
    /* dst: the channel dimension exists for 4-D batches and 3-D single images */
    int b = batch ? 1 : 0, has_c = dst->ndim == 3 + b;
    int hwc = o.dst_layout == AUG_WARP_LAYOUT_HWC;
    if (dst->ndim != 3 + b && (legacy || dst->ndim != 2 + b))
        return aug__error(AUG_ERR_VALUE, func, "dst must be %s, got shape %s",
                          legacy ? (batch ? "(N, C, H, W)" : "(C, H, W)")
                          : batch ? (hwc ? "(N, H, W, C) or (N, H, W)" : "(N, C, H, W) or (N, H, W)")
                                  : (hwc ? "(H, W, C) or (H, W)" : "(C, H, W) or (H, W)"),
                          aug_shape_str(dst->ndim, dst->shape, sbuf, sizeof sbuf));
    if (batch && dst->shape[0] != n)
        return aug__error(AUG_ERR_VALUE, func, "dst holds %lld images (shape %s) but %lld source images were given",
                          (long long)dst->shape[0], aug_shape_str(dst->ndim, dst->shape, sbuf, sizeof sbuf),
                          (long long)n);
    if (!aug_tensor_is_contiguous(dst))
        return aug__error(AUG_ERR_VALUE, func, "dst must be contiguous");
    int64_t C, Ht, Wt;
    if (!has_c) C = 1, Ht = dst->shape[b], Wt = dst->shape[b + 1];
    else if (hwc) Ht = dst->shape[b], Wt = dst->shape[b + 1], C = dst->shape[b + 2];
    else C = dst->shape[b], Ht = dst->shape[b + 1], Wt = dst->shape[b + 2];
    aug_tensor vstack[1];
    const aug_tensor *pstack[1];
    aug_tensor *views = n == 1 ? vstack : malloc((size_t)n * sizeof(aug_tensor));
    const aug_tensor **pviews = n == 1 ? pstack : malloc((size_t)n * sizeof(aug_tensor *));
    if (!views || !pviews) {
        if (views != vstack) free(views);
        if (pviews != pstack) free(pviews);
        return AUG__NOMEM(func);
    }
    for (int64_t i = 0; i < n && !st; i++) {
        const aug_tensor *s = src[i];
        if ((st = aug__tensor_check(func, s))) break;
        if ((st = source_view(func, s, i, batch, legacy ? LEGACY_LAYOUT : (int)o.src_layout, &views[i]))) break;
        pviews[i] = &views[i];
        if (views[i].shape[2] != C) {
            st = aug__error(AUG_ERR_VALUE, func, "src image %lld has %lld channels but dst has %lld", (long long)i,
                            (long long)views[i].shape[2], (long long)C);
            break;
        }
        if (!aug__device_eq(s->device, dst->device)) {
            st = aug__error(AUG_ERR_VALUE, func, "src is on %s but dst is on %s",
                            aug__device_str(s->device, buf, sizeof buf),
                            aug__device_str(dst->device, buf2, sizeof buf2));
            break;
        }
        if (aug__tensors_overlap(s, dst)) {
            st = aug__error(AUG_ERR_VALUE, func, "dst overlaps src image %lld", (long long)i);
            break;
        }
        if (supersampling[i] < 1 || supersampling[i] > AUG_MAX_SUPERSAMPLING) {
            st = aug__error(AUG_ERR_VALUE, func, "supersampling must be in [1, %d], got %d", AUG_MAX_SUPERSAMPLING,
                            supersampling[i]);
            break;
        }
        st = check_matrix(func, matrices + nm * i, nm, i, batch);
    }
    double bg_stack[16];
    double *bg = NULL;
    if (!st) {
        bg = C <= 16 ? bg_stack : malloc((size_t)C * sizeof(double));
        if (!bg) st = AUG__NOMEM(func);
    }
    if (!st) st = read_background(func, background, dst->device, C, bg);
    aug__need need = {projective ? AUG__FAMILY_WARP_PERSP : AUG__FAMILY_WARP, 0, dst->dtype, src[0] ? src[0]->dtype : AUG_DTYPE_AUTO};
    const aug__backend *be = st ? NULL : aug__backend_supporting(func, dst->device, &need);
    if (!st && !be) st = aug_last_status();
    if (!st) {
        static const char *const names[2][2][2] = {{{"HW", "HW"}, {"CHW", "HWC"}}, {{"NHW", "NHW"}, {"NCHW", "NHWC"}}};
        st = aug_tensor_set_layout(dst, names[b][has_c][hwc]);
    }
    if (!st && aug_tensor_size(dst) > 0) {
        /* The backend always sees an (N, C, Ht, Wt) view with the layout's strides. */
        aug_tensor view = *dst;
        view.ndim = 4;
        view.shape[0] = n, view.shape[1] = C, view.shape[2] = Ht, view.shape[3] = Wt;
        view.strides[0] = C * Ht * Wt;
        if (hwc && has_c) view.strides[1] = 1, view.strides[2] = Wt * C, view.strides[3] = C;
        else view.strides[1] = Ht * Wt, view.strides[2] = Wt, view.strides[3] = 1;
        view.layout[0] = '\0';
        aug__warp_plan plan = {.func = func, .n = n, .src = pviews, .dst = &view, .channels = C, .height = Ht,
                               .width = Wt, .matrices = matrices, .supersampling = supersampling,
                               .background = bg, .exec = aug__exec_for(dst->device),
                               .interp = (int)o.interpolation, .border = (int)o.border};
        st = projective ? aug__dispatch_warp_perspective(be, &plan) : aug__dispatch_warp_affine(be, &plan);
    }
    if (bg && bg != bg_stack) free(bg);
    if (views != vstack) free(views);
    if (pviews != pstack) free(pviews);
    return st;
}

aug_status aug_warp_affine(const aug_tensor *src, aug_tensor *dst, const float matrix[6],
                           const aug_tensor *background, int supersampling) {
    const aug_tensor *one[1] = {src};
    return warp_run("aug_warp_affine", 1, one, dst, 0, matrix, background, &supersampling, NULL, 1, 0);
}

aug_status aug_warp_affine_batch(int64_t n, const aug_tensor *const *src, aug_tensor *dst, const float *matrices,
                                 const aug_tensor *background, const int *supersampling) {
    return warp_run("aug_warp_affine_batch", n, src, dst, 1, matrices, background, supersampling, NULL, 1, 0);
}

aug_status aug_warp_affine_ex(const aug_tensor *src, aug_tensor *dst, const float matrix[6],
                              const aug_tensor *background, int supersampling, const aug_warp_options *opts) {
    const aug_tensor *one[1] = {src};
    return warp_run("aug_warp_affine_ex", 1, one, dst, 0, matrix, background, &supersampling, opts, 0, 0);
}

aug_status aug_warp_affine_batch_ex(int64_t n, const aug_tensor *const *src, aug_tensor *dst, const float *matrices,
                                    const aug_tensor *background, const int *supersampling,
                                    const aug_warp_options *opts) {
    return warp_run("aug_warp_affine_batch_ex", n, src, dst, 1, matrices, background, supersampling, opts, 0, 0);
}

aug_status aug_warp_perspective(const aug_tensor *src, aug_tensor *dst, const float matrix[9],
                                const aug_tensor *background, int supersampling, const aug_warp_options *opts) {
    const aug_tensor *one[1] = {src};
    return warp_run("aug_warp_perspective", 1, one, dst, 0, matrix, background, &supersampling, opts, 0, 1);
}

aug_status aug_warp_perspective_batch(int64_t n, const aug_tensor *const *src, aug_tensor *dst,
                                      const float *matrices, const aug_tensor *background, const int *supersampling,
                                      const aug_warp_options *opts) {
    return warp_run("aug_warp_perspective_batch", n, src, dst, 1, matrices, background, supersampling, opts, 0, 1);
}
