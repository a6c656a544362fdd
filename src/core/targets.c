/* core/targets.c: boxes and keypoints through the affine matrix of a geometric op
 * (aug/targets.h, docs/targets.md).
 *
 * Host-side math in double: the warp matrix (output -> source) is inverted into the
 * forward map, box corners and keypoints go through it, boxes are clipped and
 * filtered. Tensors are read into host float64 copies (from any device, any
 * strides) and the results are made on the host and moved to the input's device. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "aug/targets.h"
#include "error.h"

static const char *const FORMAT_NAMES[] = {"xyxy", "xywh", "cxcywh"};

aug_status aug_box_format_parse(const char *name, aug_box_format *out, const char *func) {
    if (!func) func = "aug_box_format_parse";
    if (!name) return aug__error(AUG_ERR_VALUE, func, "box format is NULL");
    for (int i = 0; i < 3; i++)
        if (strcmp(name, FORMAT_NAMES[i]) == 0) {
            if (out) *out = (aug_box_format)i;
            return AUG_OK;
        }
    return aug__error(AUG_ERR_VALUE, func, "unknown box format '%.40s' (expected 'xyxy', 'xywh' or 'cxcywh')", name);
}

aug_box_params aug_box_params_default(void) {
    aug_box_params p = {.format = AUG_BOX_XYXY, .normalized = 0, .min_area = 0.0, .min_visibility = 0.0};
    return p;
}

static aug_status forward_map(const char *func, const float matrix[6], double f[6]) {
    if (!matrix) return aug__error(AUG_ERR_VALUE, func, "matrix is NULL");
    for (int i = 0; i < 6; i++)
        if (!isfinite(matrix[i]))
            return aug__error(AUG_ERR_VALUE, func, "matrix element [%d][%d] = %g is not finite", i / 3, i % 3,
                              (double)matrix[i]);
    double a = matrix[0], b = matrix[1], e = matrix[2], c = matrix[3], d = matrix[4], g = matrix[5];
    double det = a * d - b * c;
    /* A matrix this close to singular maps the image to (almost) a line: no target survives. */
    double norm = fmax(fmax(fabs(a), fabs(b)), fmax(fabs(c), fabs(d)));
    if (!(fabs(det) > 1e-12 * norm * norm) || !isfinite(1.0 / det))
        return aug__error(AUG_ERR_VALUE, func, "matrix [[%g, %g], [%g, %g]] is singular (determinant %g)", a, b, c, d,
                          det);
    /* src = A dst + t  =>  dst = A^-1 src - A^-1 t */
    f[0] = d / det, f[1] = -b / det, f[3] = -c / det, f[4] = a / det;
    f[2] = -(f[0] * e + f[1] * g);
    f[5] = -(f[3] * e + f[4] * g);
    return AUG_OK;
}

aug_status aug_affine_forward(const float matrix[6], double fwd[6]) {
    static const char func[] = "aug_affine_forward";
    if (!fwd) return aug__error(AUG_ERR_VALUE, func, "fwd is NULL");
    double f[6];
    aug_status st = forward_map(func, matrix, f);
    if (st == AUG_OK) memcpy(fwd, f, sizeof f);
    return st;
}

static aug_status check_sizes(const char *func, const char *what, int64_t h, int64_t w) {
    if (h <= 0 || w <= 0)
        return aug__error(AUG_ERR_VALUE, func, "%s size must be positive, got (%lld, %lld)", what, (long long)h,
                          (long long)w);
    return AUG_OK;
}

static aug_status check_box_params(const char *func, const aug_box_params *p) {
    if (!p) return aug__error(AUG_ERR_VALUE, func, "params is NULL");
    if ((int)p->format < 0 || (int)p->format > 2)
        return aug__error(AUG_ERR_VALUE, func, "invalid box format %d", (int)p->format);
    if (!(p->min_area >= 0.0) || !isfinite(p->min_area))
        return aug__error(AUG_ERR_VALUE, func, "min_area must be finite and >= 0, got %g", p->min_area);
    if (!(p->min_visibility >= 0.0 && p->min_visibility <= 1.0))
        return aug__error(AUG_ERR_VALUE, func, "min_visibility must be in [0, 1], got %g", p->min_visibility);
    return AUG_OK;
}

/* Row i's 4 values -> x0, y0, x1, y1 in source pixels; checks them. */
static aug_status box_to_xyxy(const char *func, int64_t i, const double *v, const aug_box_params *p, double sw,
                              double sh, double r[4]) {
    for (int k = 0; k < 4; k++)
        if (!isfinite(v[k]))
            return aug__error(AUG_ERR_VALUE, func, "box %lld has a non-finite coordinate %g (column %d)", (long long)i,
                              v[k], k);
    double a = v[0], b = v[1], c = v[2], d = v[3];
    if (p->format == AUG_BOX_XYXY) {
        if (c < a) return aug__error(AUG_ERR_VALUE, func, "box %lld has x_max < x_min (%g < %g)", (long long)i, c, a);
        if (d < b) return aug__error(AUG_ERR_VALUE, func, "box %lld has y_max < y_min (%g < %g)", (long long)i, d, b);
        r[0] = a, r[1] = b, r[2] = c, r[3] = d;
    } else {
        if (c < 0) return aug__error(AUG_ERR_VALUE, func, "box %lld has a negative width %g", (long long)i, c);
        if (d < 0) return aug__error(AUG_ERR_VALUE, func, "box %lld has a negative height %g", (long long)i, d);
        if (p->format == AUG_BOX_XYWH)
            r[0] = a, r[1] = b;
        else
            r[0] = a - c / 2, r[1] = b - d / 2;
        r[2] = r[0] + c, r[3] = r[1] + d;
    }
    if (p->normalized) r[0] *= sw, r[2] *= sw, r[1] *= sh, r[3] *= sh;
    return AUG_OK;
}

static void xyxy_to_box(const double r[4], const aug_box_params *p, double tw, double th, double *v) {
    double x0 = r[0], y0 = r[1], x1 = r[2], y1 = r[3];
    if (p->normalized) x0 /= tw, x1 /= tw, y0 /= th, y1 /= th;
    if (p->format == AUG_BOX_XYXY)
        v[0] = x0, v[1] = y0, v[2] = x1, v[3] = y1;
    else if (p->format == AUG_BOX_XYWH)
        v[0] = x0, v[1] = y0, v[2] = x1 - x0, v[3] = y1 - y0;
    else
        v[0] = (x0 + x1) / 2, v[1] = (y0 + y1) / 2, v[2] = x1 - x0, v[3] = y1 - y0;
}

/* min / max of finite values (fmin / fmax are library calls that also handle NaN). */
static inline double mn(double a, double b) { return a < b ? a : b; }
static inline double mx(double a, double b) { return a > b ? a : b; }
static inline double clampd(double v, double hi) { return mn(mx(v, 0.0), hi); }

static aug_status boxes_host(const char *func, int64_t n, const double *boxes, const float matrix[6], int64_t sh,
                             int64_t sw, int64_t th, int64_t tw, const aug_box_params *p, double *out, int64_t *keep,
                             int64_t *kept) {
    aug_status st;
    double f[6];
    if ((st = check_sizes(func, "source", sh, sw)) || (st = check_sizes(func, "target", th, tw)) ||
        (st = check_box_params(func, p)) || (st = forward_map(func, matrix, f)))
        return st;
    if (n < 0) return aug__error(AUG_ERR_VALUE, func, "negative box count %lld", (long long)n);
    if (n > 0 && (!boxes || !out)) return aug__error(AUG_ERR_VALUE, func, "boxes or out is NULL");
    if (!kept) return aug__error(AUG_ERR_VALUE, func, "kept is NULL");
    /* Validate everything first: nothing is written on error. */
    for (int64_t i = 0; i < n; i++) {
        double r[4];
        if ((st = box_to_xyxy(func, i, boxes + 4 * i, p, (double)sw, (double)sh, r))) return st;
    }
    /* Edge coordinates: p' = F (p - 0.5) + 0.5 = F p + t' */
    double tx = f[2] + 0.5 - 0.5 * (f[0] + f[1]), ty = f[5] + 0.5 - 0.5 * (f[3] + f[4]);
    double W = (double)tw, H = (double)th;
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        double r[4];
        box_to_xyxy(func, i, boxes + 4 * i, p, (double)sw, (double)sh, r);
        double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
        for (int c = 0; c < 4; c++) {
            double px = r[(c & 1) ? 2 : 0], py = r[(c & 2) ? 3 : 1];
            double qx = f[0] * px + f[1] * py + tx, qy = f[3] * px + f[4] * py + ty;
            x0 = mn(x0, qx), x1 = mx(x1, qx), y0 = mn(y0, qy), y1 = mx(y1, qy);
        }
        double area = (x1 - x0) * (y1 - y0);
        double c[4] = {clampd(x0, W), clampd(y0, H), clampd(x1, W), clampd(y1, H)};
        double carea = (c[2] - c[0]) * (c[3] - c[1]);
        if (!(carea > 0.0) || carea < p->min_area || carea < p->min_visibility * area) continue;
        xyxy_to_box(c, p, W, H, out + 4 * k);
        if (keep) keep[k] = i;
        k++;
    }
    *kept = k;
    return AUG_OK;
}

aug_status aug_boxes_affine_host(int64_t n, const double *boxes, const float matrix[6], int64_t source_height,
                                 int64_t source_width, int64_t target_height, int64_t target_width,
                                 const aug_box_params *params, double *out, int64_t *keep, int64_t *kept) {
    return boxes_host("aug_boxes_affine_host", n, boxes, matrix, source_height, source_width, target_height,
                      target_width, params, out, keep, kept);
}

/* ---- tensors <-> host arrays ------------------------------------------------------------ */

/* A host float64 C-contiguous copy of t (new), after checking its shape. */
static aug_tensor *host_copy(const char *func, const aug_tensor *t, const char *name) {
    if (!t) {
        aug__error(AUG_ERR_VALUE, func, "%s is NULL", name);
        return NULL;
    }
    if (!aug_dtype_is_valid(t->dtype) || t->dtype == AUG_BOOL) {
        aug__error(AUG_ERR_TYPE, func, "%s must have a real dtype, got %s", name, aug_dtype_name(t->dtype));
        return NULL;
    }
    aug_tensor *h = aug_tensor_empty(t->ndim, t->shape, AUG_FLOAT64, aug_cpu_device());
    if (!h) return NULL;
    if (aug_copy(t, h) != AUG_OK) {
        aug_tensor_free(h);
        return NULL;
    }
    return h;
}

static aug_dtype result_dtype(const aug_tensor *t) { return t->dtype == AUG_FLOAT64 ? AUG_FLOAT64 : AUG_FLOAT32; }

/* A new tensor of dtype on dev holding the host doubles v (shape ndim/shape). */
static aug_tensor *make_result(const double *v, int ndim, const int64_t *shape, aug_dtype dtype, aug_device dev) {
    aug_tensor *h = aug_tensor_empty(ndim, shape, AUG_FLOAT64, aug_cpu_device());
    if (!h) return NULL;
    size_t n = (size_t)aug_tensor_size(h);
    if (n) memcpy(aug_tensor_ptr(h), v, n * sizeof(double));
    aug_tensor *r = aug_tensor_empty(ndim, shape, dtype, dev);
    if (r && aug_copy(h, r) != AUG_OK) {
        aug_tensor_free(r);
        r = NULL;
    }
    aug_tensor_free(h);
    return r;
}

static aug_tensor *make_index(const int64_t *v, int ndim, const int64_t *shape, aug_device dev) {
    aug_tensor *h = aug_tensor_empty(ndim, shape, AUG_INT64, aug_cpu_device());
    if (!h) return NULL;
    size_t n = (size_t)aug_tensor_size(h);
    if (n) memcpy(aug_tensor_ptr(h), v, n * sizeof(int64_t));
    if (dev.type == AUG_DEVICE_CPU) return h;
    aug_tensor *r = aug_tensor_to(h, dev);
    aug_tensor_free(h);
    return r;
}

static void *xmalloc(size_t n) { return malloc(n ? n : 1); }

aug_status aug_boxes_affine(const aug_tensor *boxes, const float matrix[6], int64_t source_height, int64_t source_width,
                            int64_t target_height, int64_t target_width, const aug_box_params *params, aug_tensor **out,
                            aug_tensor **keep) {
    static const char func[] = "aug_boxes_affine";
    if (!out) return aug__error(AUG_ERR_VALUE, func, "out is NULL");
    if (boxes && (boxes->ndim != 2 || boxes->shape[1] != 4)) {
        char s[96];
        return aug__error(AUG_ERR_VALUE, func, "boxes must have shape (n, 4), got %s",
                          aug_shape_str(boxes->ndim, boxes->shape, s, sizeof s));
    }
    aug_tensor *h = host_copy(func, boxes, "boxes");
    if (!h) return aug_last_status();
    int64_t n = h->shape[0], kept = 0;
    double *res = xmalloc((size_t)n * 4 * sizeof(double));
    int64_t *idx = xmalloc((size_t)n * sizeof(int64_t));
    aug_tensor *o = NULL, *kp = NULL;
    aug_status st = AUG_ERR_MEMORY;
    if (!res || !idx) {
        AUG__NOMEM(func);
        goto done;
    }
    st = boxes_host(func, n, aug_tensor_ptr(h), matrix, source_height, source_width, target_height, target_width,
                    params, res, idx, &kept);
    if (st != AUG_OK) goto done;
    int64_t shape[2] = {kept, 4};
    o = make_result(res, 2, shape, result_dtype(boxes), boxes->device);
    if (o && keep) kp = make_index(idx, 1, shape, boxes->device);
    if (!o || (keep && !kp)) {
        st = aug_last_status();
        aug_tensor_free(o);
        goto done;
    }
    *out = o;
    if (keep) *keep = kp;
done:
    free(res);
    free(idx);
    aug_tensor_free(h);
    return st;
}

aug_status aug_boxes_affine_batch(const aug_tensor *boxes, const int64_t *counts, const float *matrices,
                                  const int64_t *source_sizes, int64_t target_height, int64_t target_width,
                                  const aug_box_params *params, aug_tensor **out, int64_t *out_counts,
                                  aug_tensor **keep) {
    static const char func[] = "aug_boxes_affine_batch";
    if (!out || !out_counts) return aug__error(AUG_ERR_VALUE, func, "out or out_counts is NULL");
    if (!matrices || !source_sizes) return aug__error(AUG_ERR_VALUE, func, "matrices or source_sizes is NULL");
    if (boxes && (boxes->ndim != 3 || boxes->shape[2] != 4)) {
        char s[96];
        return aug__error(AUG_ERR_VALUE, func, "boxes must have shape (N, M, 4), got %s",
                          aug_shape_str(boxes->ndim, boxes->shape, s, sizeof s));
    }
    aug_tensor *h = host_copy(func, boxes, "boxes");
    if (!h) return aug_last_status();
    int64_t N = h->shape[0], M = h->shape[1];
    aug_status st = AUG_OK;
    for (int64_t i = 0; i < N && counts; i++)
        if (counts[i] < 0 || counts[i] > M) {
            st = aug__error(AUG_ERR_VALUE, func, "counts[%lld] = %lld is outside [0, %lld]", (long long)i,
                            (long long)counts[i], (long long)M);
            break;
        }
    size_t total = (size_t)N * (size_t)M;
    double *res = calloc(total * 4 + 1, sizeof(double));
    int64_t *idx = xmalloc(total * sizeof(int64_t));
    int64_t *nk = xmalloc((size_t)N * sizeof(int64_t));
    aug_tensor *o = NULL, *kp = NULL;
    if (st == AUG_OK && (!res || !idx || !nk)) st = AUG__NOMEM(func);
    const double *in = aug_tensor_ptr(h);
    for (int64_t i = 0; i < N && st == AUG_OK; i++) {
        int64_t m = counts ? counts[i] : M;
        st = boxes_host(func, m, in + 4 * M * i, matrices + 6 * i, source_sizes[2 * i], source_sizes[2 * i + 1],
                        target_height, target_width, params, res + 4 * M * i, idx + M * i, &nk[i]);
        if (st != AUG_OK) {
            /* Say which image: the row message alone is ambiguous in a batch. */
            char detail[512];
            snprintf(detail, sizeof detail, "%s", aug_last_error_detail());
            st = aug__error(st, func, "image %lld: %s", (long long)i, detail);
        }
        for (int64_t j = nk[i]; j < M && st == AUG_OK; j++) idx[M * i + j] = -1;
    }
    if (st == AUG_OK) {
        int64_t shape[3] = {N, M, 4};
        o = make_result(res, 3, shape, result_dtype(boxes), boxes->device);
        if (o && keep) kp = make_index(idx, 2, shape, boxes->device);
        if (!o || (keep && !kp)) {
            st = aug_last_status();
            aug_tensor_free(o);
        } else {
            *out = o;
            if (keep) *keep = kp;
            memcpy(out_counts, nk, (size_t)N * sizeof(int64_t));
        }
    }
    free(res);
    free(idx);
    free(nk);
    aug_tensor_free(h);
    return st;
}

/* ---- keypoints ----------------------------------------------------------------------------- */

static aug_status keypoints_host(const char *func, int64_t n, int ncols, const double *kp, const float matrix[6],
                                 int64_t th, int64_t tw, int remove_invisible, double *out, int64_t *keep,
                                 int64_t *kept) {
    aug_status st;
    double f[6];
    if ((st = check_sizes(func, "target", th, tw)) || (st = forward_map(func, matrix, f))) return st;
    if (ncols < 2 || ncols > 4)
        return aug__error(AUG_ERR_VALUE, func, "keypoints must have 2, 3 or 4 columns (x, y, angle, scale), got %d",
                          ncols);
    if (n < 0) return aug__error(AUG_ERR_VALUE, func, "negative keypoint count %lld", (long long)n);
    if (n > 0 && (!kp || !out)) return aug__error(AUG_ERR_VALUE, func, "keypoints or out is NULL");
    if (!kept) return aug__error(AUG_ERR_VALUE, func, "kept is NULL");
    for (int64_t i = 0; i < n; i++)
        for (int c = 0; c < ncols; c++)
            if (!isfinite(kp[i * ncols + c]))
                return aug__error(AUG_ERR_VALUE, func, "keypoint %lld has a non-finite value %g (column %d)",
                                  (long long)i, kp[i * ncols + c], c);
    double scale = sqrt(fabs(f[0] * f[4] - f[1] * f[3]));
    const double deg = 3.14159265358979323846 / 180.0;
    int64_t k = 0, w = 0;
    for (int64_t i = 0; i < n; i++) {
        const double *v = kp + i * ncols;
        double x = f[0] * v[0] + f[1] * v[1] + f[2], y = f[3] * v[0] + f[4] * v[1] + f[5];
        int visible = x >= 0 && x < (double)tw && y >= 0 && y < (double)th;
        if (visible) {
            if (keep) keep[k] = i;
            k++;
        }
        if (!visible && remove_invisible) continue;
        double *o = out + w * ncols;
        o[0] = x, o[1] = y;
        if (ncols >= 3) {
            double ca = cos(v[2] * deg), sa = sin(v[2] * deg);
            double a = atan2(f[3] * ca + f[4] * sa, f[0] * ca + f[1] * sa) / deg;
            if (a < 0) a += 360.0;
            if (a >= 360.0) a -= 360.0;
            o[2] = a;
        }
        if (ncols == 4) o[3] = v[3] * scale;
        w++;
    }
    *kept = k;
    return AUG_OK;
}

aug_status aug_keypoints_affine_host(int64_t n, int ncols, const double *keypoints, const float matrix[6],
                                     int64_t target_height, int64_t target_width, int remove_invisible, double *out,
                                     int64_t *keep, int64_t *kept) {
    return keypoints_host("aug_keypoints_affine_host", n, ncols, keypoints, matrix, target_height, target_width,
                          remove_invisible, out, keep, kept);
}

aug_status aug_keypoints_affine(const aug_tensor *keypoints, const float matrix[6], int64_t target_height,
                                int64_t target_width, int remove_invisible, aug_tensor **out, aug_tensor **keep) {
    static const char func[] = "aug_keypoints_affine";
    if (!out) return aug__error(AUG_ERR_VALUE, func, "out is NULL");
    if (keypoints && (keypoints->ndim != 2 || keypoints->shape[1] < 2 || keypoints->shape[1] > 4)) {
        char s[96];
        return aug__error(AUG_ERR_VALUE, func, "keypoints must have shape (n, 2), (n, 3) or (n, 4), got %s",
                          aug_shape_str(keypoints->ndim, keypoints->shape, s, sizeof s));
    }
    aug_tensor *h = host_copy(func, keypoints, "keypoints");
    if (!h) return aug_last_status();
    int64_t n = h->shape[0], kept = 0;
    int ncols = (int)h->shape[1];
    double *res = xmalloc((size_t)n * (size_t)ncols * sizeof(double));
    int64_t *idx = xmalloc((size_t)n * sizeof(int64_t));
    aug_tensor *o = NULL, *kt = NULL;
    aug_status st = AUG_ERR_MEMORY;
    if (!res || !idx) {
        AUG__NOMEM(func);
        goto done;
    }
    st = keypoints_host(func, n, ncols, aug_tensor_ptr(h), matrix, target_height, target_width, remove_invisible, res,
                        idx, &kept);
    if (st != AUG_OK) goto done;
    int64_t shape[2] = {remove_invisible ? kept : n, ncols};
    o = make_result(res, 2, shape, result_dtype(keypoints), keypoints->device);
    int64_t kshape[1] = {kept};
    if (o && keep) kt = make_index(idx, 1, kshape, keypoints->device);
    if (!o || (keep && !kt)) {
        st = aug_last_status();
        aug_tensor_free(o);
        goto done;
    }
    *out = o;
    if (keep) *keep = kt;
done:
    free(res);
    free(idx);
    aug_tensor_free(h);
    return st;
}
