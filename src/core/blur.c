/* core/blur.c: aug_box_blur_single, aug_gaussian_blur_single, aug_gaussian_blur,
 * aug_gaussian_ksize and aug_pil_gaussian_blur(_single) (semantics §13, manual
 * 3.1.4.4), the backend-neutral half: argument checks, output allocation, and
 * the 1-D taps (the PIL boxes, core/blur_pil.c) the backends apply.
 *
 * Kernel window: k taps at offsets -k/2 .. -k/2 + k - 1 (k/2 rounded down), so an
 * even k reads one more pixel up/left than down/right (the manual's half-pixel
 * shift). Gaussian weights exp(-i^2 / (2 sigma^2)) are normalised over that
 * window, whether it is the natural size or clipped by max_ksize. Outputs are
 * contiguous; an input that is strided (a crop, a flipped or transposed view)
 * or that the output overlaps (in place) is read from a packed temporary copy. */
#include <math.h>
#include "aug/conventions.h"
#include <stdlib.h>
#include <limits.h>
#include "aug/image.h"
#include "blur.h"
#include "tensor_impl.h"

/* Gaussian sums over ranges longer than this use the Euler-Maclaurin formula;
 * only kernels with sigma > ~1e4 reach it, where its error is far below double
 * rounding, and it keeps huge sigmas from costing O(ksize). */
#define DIRECT_SUM_MAX ((int64_t)1 << 16)

int aug_gaussian_ksize(double sigma, int max_ksize) {
    if (isnan(sigma)) return aug__error(AUG_ERR_VALUE, "aug_gaussian_ksize", "sigma is NaN"), 0;
    int64_t k = aug__gaussian_ksize64(sigma, max_ksize > 0 ? max_ksize : 0);
    return k > INT_MAX ? INT_MAX : (int)k;
}

#define gauss aug__gaussian_weight

/* sum of exp(-i^2 / (2 sigma^2)) for integers 0 <= a <= i <= b. */
static double gauss_sum_pos(int64_t a, int64_t b, double sigma) {
    double s2 = 2.0 * sigma * sigma, sum = 0.0;
    if (b - a <= DIRECT_SUM_MAX) {
        for (int64_t i = b; i >= a; i--) sum += gauss((double)i, s2); /* small terms first */
        return sum;
    }
    /* Euler-Maclaurin: integral + (f(a) + f(b))/2 + (f'(b) - f'(a))/12 - (f'''(b) - f'''(a))/720 */
    double x = (double)a, y = (double)b, fa = gauss(x, s2), fb = gauss(y, s2), s_2 = sigma * sigma;
    double integral = sigma * sqrt(M_PI / 2.0) * (erfc(x / (sigma * M_SQRT2)) - erfc(y / (sigma * M_SQRT2)));
    double d1a = -x / s_2 * fa, d1b = -y / s_2 * fb;
    double d3a = (3.0 * x / (s_2 * s_2) - x * x * x / (s_2 * s_2 * s_2)) * fa;
    double d3b = (3.0 * y / (s_2 * s_2) - y * y * y / (s_2 * s_2 * s_2)) * fb;
    return integral + 0.5 * (fa + fb) + (d1b - d1a) / 12.0 - (d3b - d3a) / 720.0;
}

/* The same over any a <= b (the function is even). */
static double gauss_sum(int64_t a, int64_t b, double sigma) {
    if (a > b) return 0.0;
    if (a >= 0) return gauss_sum_pos(a, b, sigma);
    if (b < 0) return gauss_sum_pos(-b, -a, sigma);
    return gauss_sum_pos(0, -a, sigma) + gauss_sum_pos(0, b, sigma) - 1.0; /* i = 0 counted twice */
}

aug_status aug__blur_taps(const char *func, int64_t k, double sigma, int64_t L, aug__taps *t) {
    int64_t a = -(k / 2), b = a + k - 1;
    t->lo = a > -(L - 1) ? a : -(L - 1);
    t->hi = b < L - 1 ? b : L - 1;
    if (t->lo > t->hi) t->lo = t->hi = 0; /* cannot happen for k >= 1, L >= 1: a <= 0 <= b */
    t->w = malloc((size_t)(t->hi - t->lo + 1) * sizeof(double));
    if (!t->w) return AUG__NOMEM(func);
    if (sigma == 0.0) {
        for (int64_t i = t->lo; i <= t->hi; i++) t->w[i - t->lo] = 1.0;
        t->tail_lo = (double)(t->lo - a);
        t->tail_hi = (double)(b - t->hi);
        t->sym = t->lo == -t->hi;
        return AUG_OK;
    }
    double s2 = 2.0 * sigma * sigma;
    double total = gauss_sum(a, b, sigma);
    for (int64_t i = t->lo; i <= t->hi; i++) t->w[i - t->lo] = gauss((double)i, s2) / total;
    t->tail_lo = gauss_sum(a, t->lo - 1, sigma) / total;
    t->tail_hi = gauss_sum(t->hi + 1, b, sigma) / total;
    t->sym = t->lo == -t->hi;
    for (int64_t j = 0, n = t->hi - t->lo + 1; t->sym && j < n / 2; j++)
        t->sym = (float)t->w[j] == (float)t->w[n - 1 - j];
    return AUG_OK;
}

/* The accumulation type of the generic path: float32 where that keeps integer
 * results within +-1 of the float64 definition (8/16-bit inputs, 16-bit floats,
 * float32) and float64 otherwise. The box blur adds weights of 1, exact integer
 * sums while they stay below 2^24: up to 256^2 * 255 for 8-bit values, 16^2 *
 * 65535 for 16-bit ones. */
static int blur_acc(aug_dtype dtype, int box, int64_t ksize) {
    switch (dtype) {
    case AUG_UINT8: case AUG_INT8: case AUG_BOOL:
        return !box || ksize <= 256 ? AUG_FLOAT32 : AUG_FLOAT64;
    case AUG_UINT16: case AUG_INT16:
        return !box || ksize <= 16 ? AUG_FLOAT32 : AUG_FLOAT64;
    case AUG_FLOAT16: case AUG_BFLOAT16: case AUG_FLOAT32:
        return AUG_FLOAT32;
    default:
        return AUG_FLOAT64;
    }
}

/* The PIL boxes of a plan: one radius (radii NULL) or one per image, read from
 * their device, each finite and in [0, AUG__PIL_RADIUS_MAX]. */
static aug_status make_boxes(aug__blur_plan *plan, const aug_tensor *radii, double radius) {
    const char *func = plan->func;
    int64_t nt = radii ? plan->n : 1;
    float *f = malloc((size_t)nt * sizeof(float));
    aug__pilbox *pil = malloc((size_t)nt * sizeof(aug__pilbox));
    aug_status st = f && pil ? AUG_OK : AUG__NOMEM(func);
    if (st == AUG_OK && radii) st = aug_tensor_read(radii, f, (size_t)nt * sizeof(float), 1);
    plan->nt = nt;
    plan->pil = pil;
    for (int64_t i = 0; st == AUG_OK && i < nt; i++) {
        double r = radii ? (double)f[i] : radius;
        if (!(r >= 0.0 && r <= AUG__PIL_RADIUS_MAX)) {
            st = radii ? aug__error(AUG_ERR_VALUE, func, "radii[%lld] = %g must be in [0, %g]", (long long)i, r,
                                    AUG__PIL_RADIUS_MAX)
                       : aug__error(AUG_ERR_VALUE, func, "radius = %g must be in [0, %g]", r, AUG__PIL_RADIUS_MAX);
            break;
        }
        pil[i] = aug__pil_box((float)r);
    }
    free(f);
    return st;
}

/* The kernels of a plan (see core/blur.h): sizes and taps of every image, from
 * one sigma (sigmas NULL; box: sigma 0) or per-image sigmas read from their
 * device. On success the caller frees with free_kernels. */
static aug_status make_kernels(aug__blur_plan *plan, const aug_tensor *sigmas, double sigma, int64_t max_ksize) {
    const char *func = plan->func;
    if (plan->kind == AUG__BLUR_PIL) return make_boxes(plan, sigmas, sigma);
    int64_t nt = sigmas ? plan->n : 1;
    double *sig = malloc((size_t)nt * sizeof(double));
    float *f = sigmas ? malloc((size_t)nt * sizeof(float)) : NULL;
    int64_t *ks = malloc((size_t)nt * sizeof(int64_t));
    aug__taps *taps = calloc((size_t)(2 * nt), sizeof(aug__taps));
    aug_status st = sig && ks && taps && (!sigmas || f) ? AUG_OK : AUG__NOMEM(func);
    if (st == AUG_OK && sigmas) st = aug_tensor_read(sigmas, f, (size_t)nt * sizeof(float), 1);
    plan->nt = nt;
    plan->ks = ks;
    plan->tv = taps;
    plan->th = taps ? taps + nt : NULL;
    plan->kmax = 1;
    for (int64_t i = 0; st == AUG_OK && i < nt; i++) {
        sig[i] = sigmas ? (double)f[i] : sigma;
        if (!isfinite(sig[i])) {
            st = aug__error(AUG_ERR_VALUE, func, "sigmas[%lld] = %g must be finite", (long long)i, sig[i]);
            break;
        }
        ks[i] = plan->kind == AUG__BLUR_BOX ? plan->ksize : aug__gaussian_ksize64(sig[i], max_ksize);
        if (ks[i] > plan->kmax) plan->kmax = ks[i];
        if (ks[i] == 1) continue;
        double s = plan->kind == AUG__BLUR_BOX ? 0.0 : sig[i];
        st = aug__blur_taps(func, ks[i], s, plan->h, &taps[i]);
        if (st == AUG_OK) st = aug__blur_taps(func, ks[i], s, plan->w, &taps[nt + i]);
    }
    free(sig);
    free(f);
    return st;
}

static void free_kernels(aug__blur_plan *plan) {
    free((void *)plan->pil);
    for (int64_t i = 0; plan->tv && i < 2 * plan->nt; i++) free(plan->tv[i].w);
    free((void *)plan->tv);
    free((void *)plan->ks);
}

/* Checks `in` (ndim 3 or 4, contiguous) and the output, allocates it if needed,
 * makes a temporary copy of the input when they overlap, and runs the plan
 * (plan->func, kind and ksize set by the caller). */
static aug_status blur_run(aug__blur_plan *plan, const aug_tensor *in, int ndim, aug_tensor **out, int copy_only,
                           const aug_tensor *sigmas, double sigma, int64_t max_ksize) {
    const char *func = plan->func;
    char sa[96], da[32], db[32];
    aug_status st = aug__tensor_check(func, in);
    if (!st) st = aug_layout_check(func, NULL, in->layout, "NCHW,CHW");
    if (st) return st;
    if (!out) return aug__error(AUG_ERR_VALUE, func, "out is NULL");
    if (in->ndim != ndim)
        return aug__error(AUG_ERR_VALUE, func, "input must be %s, got shape %s", ndim == 3 ? "(C, H, W)" : "(N, C, H, W)",
                          aug_shape_str(in->ndim, in->shape, sa, sizeof sa));
    const int strided = !aug_tensor_is_contiguous(in); /* read through a packed temporary copy */
    if (sigmas) {
        const aug_tensor *s = sigmas;
        if ((st = aug__tensor_check(func, s))) return st;
        const char *what = plan->kind == AUG__BLUR_PIL ? "radii" : "sigmas";
        if (s->dtype != AUG_FLOAT32)
            return aug__error(AUG_ERR_TYPE, func, "%s must be float32, not %s", what, aug_dtype_name(s->dtype));
        if (s->device.type != AUG_DEVICE_CPU && !aug__device_eq(s->device, in->device)) /* the CPU: no wait */
            return aug__error(AUG_ERR_VALUE, func, "%s is on device %s but the input is on %s", what,
                              aug__device_str(s->device, da, sizeof da), aug__device_str(in->device, db, sizeof db));
        if (s->ndim != 1 || s->shape[0] != in->shape[0])
            return aug__error(AUG_ERR_VALUE, func, "%s has shape %s but (%lld,) is needed", what,
                              aug_shape_str(s->ndim, s->shape, sa, sizeof sa), (long long)in->shape[0]);
    }
    if (plan->kind == AUG__BLUR_PIL && in->dtype != AUG_UINT8)
        return aug__error(AUG_ERR_TYPE, func, "input must be uint8 (PIL's 8-bit images), not %s",
                          aug_dtype_name(in->dtype));
    aug__need need = {AUG__FAMILY_BLUR, (int)plan->kind, in->dtype, AUG_DTYPE_AUTO};
    const aug__backend *be = aug__backend_supporting(func, in->device, &need);
    if (!be) return aug_last_status();
    plan->exec = aug__exec_for(in->device);

    aug_tensor *res = NULL;
    if ((st = aug__out_like(func, out, in, "the input", &res))) return st;
    aug_tensor_set_layout(res, ndim == 3 ? "CHW" : "NCHW");

    int off = ndim - 3;
    plan->n = off ? in->shape[0] : 1;
    plan->c = in->shape[off];
    plan->h = in->shape[off + 1];
    plan->w = in->shape[off + 2];
    plan->out = res;
    plan->in = in;
    plan->src = aug_tensor_ptr(in);
    plan->dst = aug_tensor_ptr(res);
    aug_tensor *tmp = NULL;
    if (!copy_only && (st = make_kernels(plan, sigmas, sigma, max_ksize)) != AUG_OK) {
        free_kernels(plan);
        if (!*out) aug_tensor_free(res);
        return st;
    }
    int64_t bytes = aug_tensor_size(in) * aug__dtype_size(in->dtype);
    const char *pa = aug_tensor_ptr(in), *pb = aug_tensor_ptr(res);
    int overlap = res->storage && res->storage == in->storage && bytes > 0 && pa < pb + bytes && pb < pa + bytes;
    if (copy_only) {
        st = pa == pb && !strided ? AUG_OK : aug__copy(func, in, res); /* aug__copy handles overlap like memmove */
    } else {
        if (overlap || strided) {
            tmp = aug__tensor_empty(func, in->ndim, in->shape, in->dtype, in->device);
            st = tmp ? aug__copy(func, in, tmp) : AUG_ERR_MEMORY;
            plan->in = tmp;
            if (tmp) plan->src = aug_tensor_ptr(tmp);
        }
        int box = plan->kind == AUG__BLUR_BOX, u8 = in->dtype == AUG_UINT8 || in->dtype == AUG_INT8;
        plan->path = plan->kind == AUG__BLUR_PIL ? AUG__BLUR_PIL8
                     : !u8 ? AUG__BLUR_GENERIC
                     : !box ? AUG__BLUR_GAUSS8
                     : plan->ksize <= AUG__BOX8_MAX ? AUG__BLUR_BOX8 : AUG__BLUR_GENERIC;
        plan->acc = blur_acc(in->dtype, box, plan->kmax);
        if (!st && plan->n * plan->c * plan->h * plan->w > 0) st = aug__dispatch_blur(be, plan);
        free_kernels(plan);
    }
    aug_tensor_free(tmp);
    if (st) {
        if (!*out) aug_tensor_free(res);
        return st;
    }
    *out = res;
    return AUG_OK;
}

aug_status aug_box_blur_single(const aug_tensor *in, int ksize, aug_tensor **out) {
    const char *func = "aug_box_blur_single";
    if (ksize < 1) return aug__error(AUG_ERR_VALUE, func, "ksize = %d must be >= 1", ksize);
    aug__blur_plan plan = {.func = func, .kind = AUG__BLUR_BOX, .ksize = ksize};
    return blur_run(&plan, in, 3, out, ksize == 1, NULL, 0.0, 0);
}

aug_status aug_gaussian_blur_single(const aug_tensor *in, double sigma, aug_tensor **out) {
    const char *func = "aug_gaussian_blur_single";
    if (!isfinite(sigma)) return aug__error(AUG_ERR_VALUE, func, "sigma = %g must be finite", sigma);
    aug__blur_plan plan = {.func = func, .kind = AUG__BLUR_GAUSSIAN};
    return blur_run(&plan, in, 3, out, sigma <= 0.0, NULL, sigma, 0);
}

aug_status aug_gaussian_blur(const aug_tensor *in, const aug_tensor *sigmas, int max_ksize, aug_tensor **out) {
    const char *func = "aug_gaussian_blur";
    if (max_ksize < 1) return aug__error(AUG_ERR_VALUE, func, "max_ksize = %d must be >= 1", max_ksize);
    if (!sigmas) return aug__error(AUG_ERR_VALUE, func, "sigmas is NULL");
    aug__blur_plan plan = {.func = func, .kind = AUG__BLUR_GAUSSIAN};
    return blur_run(&plan, in, 4, out, 0, sigmas, 0.0, max_ksize);
}

aug_status aug_pil_gaussian_blur_single(const aug_tensor *in, double radius, aug_tensor **out) {
    const char *func = "aug_pil_gaussian_blur_single";
    aug__blur_plan plan = {.func = func, .kind = AUG__BLUR_PIL};
    if (!(radius >= 0.0 && radius <= AUG__PIL_RADIUS_MAX)) /* NaN too */
        return aug__error(AUG_ERR_VALUE, func, "radius = %g must be in [0, %g]", radius, AUG__PIL_RADIUS_MAX);
    return blur_run(&plan, in, 3, out, 0, NULL, radius, 0);
}

aug_status aug_pil_gaussian_blur(const aug_tensor *in, const aug_tensor *radii, aug_tensor **out) {
    const char *func = "aug_pil_gaussian_blur";
    if (!radii) return aug__error(AUG_ERR_VALUE, func, "radii is NULL");
    aug__blur_plan plan = {.func = func, .kind = AUG__BLUR_PIL};
    return blur_run(&plan, in, 4, out, 0, radii, 0.0, 0);
}
