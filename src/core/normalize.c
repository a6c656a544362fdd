/* core/normalize.c: aug_crop_mirror_normalize (DALI's fn.crop_mirror_normalize),
 * the backend-neutral half: argument checks, crop windows, DALI's per-channel
 * constants, fill values, output allocation, the plan for the backend.
 *
 * Windows follow DALI's CropAttr: a crop of 0 takes the image's extent; the
 * anchor is round-half-away-from-zero(double(pos) * (extent - crop)) unless an
 * explicit anchor is given; a window reaching outside the image is an error,
 * padded (values outside take the fill value) or trimmed to the image, as the
 * policy says. Mirroring flips the (trimmed) window. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "aug/conventions.h"
#include "aug/normalize.h"
#include "normalize.h"
#include "tensor_impl.h"

#define FUNC "aug_crop_mirror_normalize"

aug_cmn_params aug_cmn_params_default(void) {
    aug_cmn_params p;
    memset(&p, 0, sizeof p);
    p.crop_pos_y = p.crop_pos_x = 0.5f;
    p.scale = 1.0f;
    p.oob = AUG_OOB_ERROR;
    return p;
}

/* The next power of two >= c (DALI's next_pow2 for pad_output). */
static int64_t next_pow2(int64_t c) {
    int64_t p = 1;
    while (p < c) p <<= 1;
    return p;
}

static aug_status check_values(const char *func, const char *name, const float *v, int count, int64_t c, int nonzero) {
    if (count < 0 || (count > 0 && !v))
        return aug__error(AUG_ERR_VALUE, func, "%s: %d values but no array", name, count);
    if (count != 0 && count != 1 && count != c)
        return aug__error(AUG_ERR_VALUE, func, "%s has %d values but the images have %lld channels (1 or %lld needed)",
                          name, count, (long long)c, (long long)c);
    for (int i = 0; i < count; i++) {
        if (!isfinite(v[i]))
            return aug__error(AUG_ERR_VALUE, func, "%s[%d] = %g must be finite", name, i, (double)v[i]);
        if (nonzero && v[i] == 0.0f)
            return aug__error(AUG_ERR_VALUE, func, "%s[%d] must not be 0", name, i);
    }
    return AUG_OK;
}

static aug_status check_params(const char *func, const aug_cmn_params *p, int64_t n, int64_t c, int64_t cout) {
    aug_status st;
    if ((st = check_values(func, "mean", p->mean, p->nmean, c, 0)) || (st = check_values(func, "std", p->std, p->nstd, c, 1)))
        return st;
    if (!isfinite(p->scale) || p->scale == 0.0f)
        return aug__error(AUG_ERR_VALUE, func, "scale = %g must be finite and != 0", (double)p->scale);
    if (!isfinite(p->shift)) return aug__error(AUG_ERR_VALUE, func, "shift = %g must be finite", (double)p->shift);
    if (p->nfill < 0 || (p->nfill > 0 && !p->fill))
        return aug__error(AUG_ERR_VALUE, func, "fill_values: %d values but no array", p->nfill);
    if (p->nfill > 1 && p->nfill != c && p->nfill != cout)
        return aug__error(AUG_ERR_VALUE, func,
                          "fill_values has %d values but the output has %lld channels (1, %lld or %lld needed)",
                          p->nfill, (long long)cout, (long long)c, (long long)cout);
    for (int i = 0; i < p->nfill; i++)
        if (isnan(p->fill[i])) return aug__error(AUG_ERR_VALUE, func, "fill_values[%d] is NaN", i);
    if (p->oob != AUG_OOB_ERROR && p->oob != AUG_OOB_PAD && p->oob != AUG_OOB_TRIM)
        return aug__error(AUG_ERR_VALUE, func, "out_of_bounds_policy %d is not one of error (0), pad (1), trim (2)",
                          (int)p->oob);
    if (p->crop_h < 0 || p->crop_w < 0)
        return aug__error(AUG_ERR_VALUE, func, "crop (%lld, %lld) must not be negative", (long long)p->crop_h,
                          (long long)p->crop_w);
    const float *pos = p->crop_pos;
    for (int64_t i = 0; i < (pos ? 2 * n : 2); i++) {
        float v = pos ? pos[i] : (i ? p->crop_pos_x : p->crop_pos_y);
        if (!(v >= 0.0f && v <= 1.0f))
            return aug__error(AUG_ERR_VALUE, func, "crop_pos_%s%s = %g must be in [0, 1]", i % 2 ? "x" : "y",
                              pos ? " of an image" : "", (double)v);
    }
    return AUG_OK;
}

/* One image's window: anchor and (possibly trimmed) size along one axis. */
static aug_status window(const char *func, int64_t i, const aug_cmn_params *p, int axis, int64_t extent,
                         int64_t *anchor, int64_t *size) {
    int64_t crop = axis == 0 ? p->crop_h : p->crop_w;
    if (crop == 0) crop = extent;
    int64_t a;
    if (p->anchors) {
        a = p->anchors[2 * i + axis];
    } else {
        float pos = p->crop_pos ? p->crop_pos[2 * i + axis] : (axis == 0 ? p->crop_pos_y : p->crop_pos_x);
        a = (int64_t)round((double)pos * (double)(extent - crop)); /* round: half away from zero, as DALI */
    }
    if (a < 0 || a + crop > extent) {
        if (p->oob == AUG_OOB_ERROR)
            return aug__error(AUG_ERR_VALUE, func,
                              "the crop window of image %lld reaches outside it: %s [%lld, %lld) of %lld (set "
                              "out_of_bounds_policy to pad or trim_to_shape)",
                              (long long)i, axis == 0 ? "rows" : "columns", (long long)a, (long long)(a + crop),
                              (long long)extent);
        if (p->oob == AUG_OOB_TRIM) {
            int64_t lo = a < 0 ? 0 : a, hi = a + crop > extent ? extent : a + crop;
            a = lo;
            crop = hi > lo ? hi - lo : 0;
        }
    }
    *anchor = a;
    *size = crop;
    return AUG_OK;
}

/* Checks *out or allocates it: (n, cout, oh, ow) / (n, oh, ow, cout), or 3-D for one image. */
static aug_status output(const char *func, aug_tensor **out, int ndim, const int64_t *shape, aug_dtype dt,
                         aug_device dev, aug_tensor **res) {
    char sa[96], sb[96], da[32], db[32];
    if (!*out) {
        *res = aug__tensor_empty(func, ndim, shape, dt, dev);
        return *res ? AUG_OK : aug_last_status();
    }
    aug_tensor *o = *out;
    aug_status st = aug__tensor_check(func, o);
    if (st) return st;
    if (!aug__device_eq(o->device, dev))
        return aug__error(AUG_ERR_VALUE, func, "out is on %s but the images are on %s",
                          aug__device_str(o->device, da, sizeof da), aug__device_str(dev, db, sizeof db));
    int same = o->ndim == ndim;
    for (int k = 0; same && k < ndim; k++) same = o->shape[k] == shape[k];
    if (!same)
        return aug__error(AUG_ERR_VALUE, func, "out has shape %s but %s is needed",
                          aug_shape_str(o->ndim, o->shape, sa, sizeof sa), aug_shape_str(ndim, shape, sb, sizeof sb));
    if (o->dtype != dt)
        return aug__error(AUG_ERR_TYPE, func, "out has dtype %s but %s was asked for", aug_dtype_name(o->dtype),
                          aug_dtype_name(dt));
    if (!aug_tensor_is_contiguous(o)) return aug__error(AUG_ERR_VALUE, func, "out must be contiguous");
    *res = o;
    return AUG_OK;
}

/* The layouts as strings (aug/conventions.h) or the old flags: p->layout
 * ("HWC" / "CHW"), else in_chw, else image 0's layout string when it is "CHW";
 * p->out_layout ("NCHW" / "NHWC", one image "CHW" / "HWC"), else out_nhwc. */
static aug_status resolve_layouts(const char *func, const aug_tensor *src0, int single, aug_cmn_params *p) {
    aug_status st;
    if (p->layout) {
        if ((st = aug_layout_check(func, "layout", p->layout, "HWC,CHW"))) return st;
        p->in_chw = !strcmp(p->layout, "CHW");
    } else if (!p->in_chw && src0 && !strcmp(src0->layout, "CHW"))
        p->in_chw = 1;
    if (p->out_layout) {
        if ((st = aug_layout_check(func, "out_layout", p->out_layout, single ? "CHW,HWC" : "NCHW,NHWC"))) return st;
        p->out_nhwc = strstr(p->out_layout, "HWC") != NULL;
    }
    return AUG_OK;
}

static aug_status run(const char *func, int64_t n, const aug_tensor *const *src, aug_dtype out_dtype,
                      const aug_cmn_params *p, aug_tensor **out, int single) {
    char sa[96];
    if (!p) return aug__error(AUG_ERR_VALUE, func, "params is NULL");
    if (!out) return aug__error(AUG_ERR_VALUE, func, "out is NULL");
    if (n < 1 || !src) return aug__error(AUG_ERR_VALUE, func, "no images (n = %lld)", (long long)n);
    if (!aug__dtype_ok(out_dtype)) return aug__error(AUG_ERR_TYPE, func, "invalid output dtype %d", (int)out_dtype);
    aug_status st;
    aug_cmn_params q = *p; /* the layouts resolved into in_chw / out_nhwc */
    if ((st = resolve_layouts(func, src[0], single, &q))) return st;
    p = &q;
    const int cdim = p->in_chw ? 0 : 2, hdim = p->in_chw ? 1 : 0;
    for (int64_t i = 0; i < n; i++) {
        const aug_tensor *t = src[i];
        if ((st = aug__tensor_check(func, t))) return st;
        if (t->ndim != 3)
            return aug__error(AUG_ERR_VALUE, func, "image %lld must be 3-D (%s), got shape %s", (long long)i,
                              p->in_chw ? "C, H, W" : "H, W, C", aug_shape_str(t->ndim, t->shape, sa, sizeof sa));
        if (t->dtype != src[0]->dtype)
            return aug__error(AUG_ERR_TYPE, func, "image %lld is %s but image 0 is %s", (long long)i,
                              aug_dtype_name(t->dtype), aug_dtype_name(src[0]->dtype));
        if (!aug__device_eq(t->device, src[0]->device))
            return aug__error(AUG_ERR_VALUE, func, "image %lld is on another device than image 0", (long long)i);
        if (t->shape[cdim] != src[0]->shape[cdim])
            return aug__error(AUG_ERR_VALUE, func, "image %lld has %lld channels but image 0 has %lld", (long long)i,
                              (long long)t->shape[cdim], (long long)src[0]->shape[cdim]);
    }
    const int64_t c = src[0]->shape[cdim];
    if (c < 1) return aug__error(AUG_ERR_VALUE, func, "the images have no channels");
    const int64_t cout = p->pad_output ? next_pow2(c) : c;
    if ((st = check_params(func, p, n, c, cout))) return st;

    aug__cmn_image *im = calloc((size_t)n, sizeof *im);
    float *consts = malloc((size_t)(2 * cout) * sizeof(float));
    char *fill = malloc((size_t)cout * 16);
    if (!im || !consts || !fill) {
        free(im), free(consts), free(fill);
        return AUG__NOMEM(func);
    }
    int64_t oh = -1, ow = -1;
    const int64_t esize = aug__dtype_size(src[0]->dtype);
    for (int64_t i = 0; i < n && !st; i++) {
        const aug_tensor *t = src[i];
        int64_t h = t->shape[hdim], w = t->shape[hdim + 1], ay, ax, wh, ww;
        if ((st = window(func, i, p, 0, h, &ay, &wh)) || (st = window(func, i, p, 1, w, &ax, &ww))) break;
        if (i > 0 && (wh != oh || ww != ow)) {
            st = aug__error(AUG_ERR_VALUE, func,
                            "image %lld gives a %lld x %lld window but image 0 a %lld x %lld one (a batch needs "
                            "one output size: give crop)",
                            (long long)i, (long long)wh, (long long)ww, (long long)oh, (long long)ow);
            break;
        }
        oh = wh, ow = ww;
        im[i].src = (const char *)aug_tensor_ptr(t);
        im[i].h = h, im[i].w = w;
        im[i].sy = t->strides[hdim] * esize, im[i].sx = t->strides[hdim + 1] * esize, im[i].sc = t->strides[cdim] * esize;
        im[i].ay = ay, im[i].ax = ax;
        im[i].mirror = p->mirror && p->mirror[i] ? 1 : 0;
    }
    /* DALI's constants, in double, rounded to float once */
    int normalize = 0;
    float *mean = consts, *inv = consts + cout;
    for (int64_t k = 0; k < cout; k++) {
        double m = p->nmean ? (double)p->mean[p->nmean == 1 ? 0 : (k < c ? k : 0)] : 0.0;
        double s = p->nstd ? (double)p->std[p->nstd == 1 ? 0 : (k < c ? k : 0)] : 1.0;
        mean[k] = (float)fma(-(double)p->shift, s / (double)p->scale, m);
        inv[k] = (float)((double)p->scale / s);
        if (k < c && (mean[k] != 0.0f || inv[k] != 1.0f)) normalize = 1;
        double f = 0.0;
        if (k < c || p->oob == AUG_OOB_PAD)
            f = p->nfill == 0 ? 0.0 : p->nfill == 1 ? (double)p->fill[0] : k < p->nfill ? (double)p->fill[k] : 0.0;
        aug__store_f64(f, (int)out_dtype, fill + k * 16);
    }
    const aug__backend *be = NULL;
    if (!st) {
        aug__need need = {AUG__FAMILY_NORMALIZE, 0, out_dtype, src[0]->dtype};
        be = aug__backend_supporting(func, src[0]->device, &need);
        if (!be) st = aug_last_status();
    }
    aug_tensor *res = NULL;
    if (!st) {
        int64_t shape4[4] = {n, cout, oh, ow};
        if (p->out_nhwc) shape4[1] = oh, shape4[2] = ow, shape4[3] = cout;
        st = single ? output(func, out, 3, shape4 + 1, out_dtype, src[0]->device, &res)
                    : output(func, out, 4, shape4, out_dtype, src[0]->device, &res);
    }
    for (int64_t i = 0; i < n && !st; i++)
        if (res->storage && res->storage == src[i]->storage)
            st = aug__error(AUG_ERR_VALUE, func, "out shares memory with image %lld", (long long)i);
    if (!st) {
        aug_tensor_set_layout(res, single ? (p->out_nhwc ? "HWC" : "CHW") : (p->out_nhwc ? "NHWC" : "NCHW"));
        /* the fill values, packed: cout values of out_dtype */
        const int64_t osize = aug__dtype_size(out_dtype);
        for (int64_t k = 1; k < cout; k++) memmove(fill + k * osize, fill + k * 16, (size_t)osize);
        aug__cmn_plan plan = {func, n, c, cout, oh, ow, (int)src[0]->dtype, (int)out_dtype, p->out_nhwc != 0,
                              normalize, im, mean, inv, fill, (char *)aug_tensor_ptr(res),
                              aug__exec_for(src[0]->device)};
        if (n * cout * oh * ow > 0) st = aug__dispatch_crop_mirror_normalize(be, &plan);
        if (!st) *out = res;
    }
    if (st && !*out) aug_tensor_free(res);
    free(im), free(consts), free(fill);
    return st;
}

aug_status aug_crop_mirror_normalize_batch(int64_t n, const aug_tensor *const *src, aug_dtype out_dtype,
                                           const aug_cmn_params *p, aug_tensor **out) {
    return run(FUNC "_batch", n, src, out_dtype, p, out, 0);
}

aug_status aug_crop_mirror_normalize(const aug_tensor *src, aug_dtype out_dtype, const aug_cmn_params *p,
                                     aug_tensor **out) {
    if (!src) return aug__error(AUG_ERR_VALUE, FUNC, "image is NULL");
    return run(FUNC, 1, &src, out_dtype, p, out, 1);
}
