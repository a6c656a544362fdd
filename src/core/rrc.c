/* core/rrc.c: torchvision's RandomResizedCrop sampler on the library's Philox
 * generator, and the scaled-decode plan of any warp (aug/rrc.h). Host arithmetic
 * in double; the matrices are rounded to float32 once. */
#include <math.h>
#include <string.h>

#include "aug/rrc.h"
#include "error.h"

static const char PLAN[] = "aug_plan_decode";
static const char RRC[] = "aug_random_resized_crop";

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* The smaller singular value of [[a, b], [c, d]]. */
static double sigma_min(double a, double b, double c, double d) {
    double s1 = a * a + b * b + c * c + d * d, det = a * d - b * c;
    double disc = sqrt(fmax(0.0, s1 * s1 - 4.0 * det * det));
    return sqrt(fmax(0.0, (s1 - disc) / 2.0));
}

/* One axis of the roi: the range [lo, hi] of positions read, its neighbours
 * and a pixel of margin, clipped to [0, size); at least one pixel. */
static void roi_axis(double lo, double hi, int64_t size, int64_t *start, int64_t *len) {
    double fl = floor(lo) - 1.0, fh = floor(hi) + 3.0; /* exclusive end */
    int64_t s = fl < 0.0 ? 0 : fl >= (double)size ? size - 1 : (int64_t)fl;
    int64_t e = fh > (double)size ? size : fh <= 1.0 ? 1 : (int64_t)fh;
    if (e <= s) e = s + 1, s = clamp64(s, 0, size - 1), e = s + 1;
    *start = s, *len = e - s;
}

/* The plan at scale M (scale_m < 0: the smallest power of two that keeps
 * sigma_min M/8 >= 1; 0: no DCT scaling, M = 8 with the given supersampling). */
static aug_status plan_decode(const char *func, const float matrix[6], int64_t src_height, int64_t src_width,
                              int64_t out_height, int64_t out_width, int supersampling, int scale_m, int use_roi,
                              aug_decode_plan *plan) {
    if (matrix == NULL || plan == NULL) return aug__error(AUG_ERR_VALUE, func, "matrix or plan is NULL");
    if (src_height <= 0 || src_width <= 0 || out_height <= 0 || out_width <= 0)
        return aug__error(AUG_ERR_VALUE, func, "sizes must be positive, got source (%lld, %lld), output (%lld, %lld)",
                          (long long)src_height, (long long)src_width, (long long)out_height, (long long)out_width);
    for (int i = 0; i < 6; i++)
        if (!isfinite(matrix[i]))
            return aug__error(AUG_ERR_VALUE, func, "matrix[%d][%d] = %g is not finite", i / 3, i % 3,
                              (double)matrix[i]);
    if (supersampling < 1 || supersampling > AUG_MAX_SUPERSAMPLING)
        return aug__error(AUG_ERR_VALUE, func, "supersampling must be in [1, %d], got %d", AUG_MAX_SUPERSAMPLING,
                          supersampling);
    double m[6];
    for (int i = 0; i < 6; i++) m[i] = (double)matrix[i];
    int M = scale_m > 0 ? scale_m : 8, dct_scale = scale_m != 0;
    if (scale_m < 0) {
        double smin = sigma_min(m[0], m[1], m[3], m[4]);
        /* powers of two only: libjpeg-turbo has SIMD IDCTs for 8, 4, 2 and 1; its
         * 3..7-point ones (and the 10..14-point chroma ones they pair with under
         * 4:2:0) are scalar and make a 5/8..7/8 decode slower than a full one */
        while (M > 1 && smin * (double)(M / 2) >= 8.0 - 1e-9) M /= 2;
    }
    aug_decode_plan p;
    memset(&p, 0, sizeof p);
    p.scale_m = M;
    p.supersampling = supersampling;
    float f[6];
    memcpy(f, matrix, sizeof f);
    double k = (double)M / 8.0;
    if (M != 8) {
        double a[6] = {m[0] * k, m[1] * k, (m[2] + 0.5) * k - 0.5, m[3] * k, m[4] * k, (m[5] + 0.5) * k - 0.5};
        for (int i = 0; i < 6; i++) f[i] = (float)a[i];
    }
    if (dct_scale) {
        /* the decode already averaged (8/M)^2 source pixels per scaled pixel (its
         * box-like prefilter); below 2 scaled pixels per output pixel every one of
         * them lies within the bilinear kernel's 2-pixel support of an output */
        double r = sqrt(fabs(m[0] * m[4] - m[1] * m[3])) * k, s = ceil(r - 1.0 - 1e-9);
        if (!(s >= 1.0)) s = 1.0;
        if (s < (double)supersampling) p.supersampling = (int)s;
    }
    int64_t sh = (src_height * M + 7) / 8, sw = (src_width * M + 7) / 8;
    p.roi[0] = 0, p.roi[1] = 0, p.roi[2] = sh, p.roi[3] = sw;
    if (use_roi) {
        double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
        for (int c = 0; c < 4; c++) {
            double X = (c & 1) ? (double)out_width - 0.5 : -0.5, Y = (c & 2) ? (double)out_height - 0.5 : -0.5;
            double sx = (double)f[0] * X + (double)f[1] * Y + (double)f[2];
            double sy = (double)f[3] * X + (double)f[4] * Y + (double)f[5];
            xlo = fmin(xlo, sx), xhi = fmax(xhi, sx), ylo = fmin(ylo, sy), yhi = fmax(yhi, sy);
        }
        roi_axis(ylo, yhi, sh, &p.roi[0], &p.roi[2]);
        roi_axis(xlo, xhi, sw, &p.roi[1], &p.roi[3]);
        f[2] = (float)((double)f[2] - (double)p.roi[1]);
        f[5] = (float)((double)f[5] - (double)p.roi[0]);
    }
    memcpy(p.matrix, f, sizeof f);
    *plan = p;
    return AUG_OK;
}

aug_status aug_plan_decode(const float matrix[6], int64_t src_height, int64_t src_width, int64_t out_height,
                           int64_t out_width, int supersampling, int dct_scale, int use_roi, aug_decode_plan *plan) {
    return plan_decode(PLAN, matrix, src_height, src_width, out_height, out_width, supersampling, dct_scale ? -1 : 0,
                       use_roi, plan);
}

aug_status aug_plan_decode_at(const float matrix[6], int64_t src_height, int64_t src_width, int64_t out_height,
                              int64_t out_width, int supersampling, int scale_m, int use_roi, aug_decode_plan *plan) {
    static const char func[] = "aug_plan_decode_at";
    if (scale_m != 1 && scale_m != 2 && scale_m != 4 && scale_m != 8)
        return aug__error(AUG_ERR_VALUE, func, "scale_m must be 1, 2, 4 or 8 (the decode's scale M/8), got %d",
                          scale_m);
    return plan_decode(func, matrix, src_height, src_width, out_height, out_width, supersampling, scale_m, use_roi,
                       plan);
}

aug_rrc_params aug_rrc_params_default(void) {
    aug_rrc_params p = {0.08, 1.0, 3.0 / 4.0, 4.0 / 3.0, 0.0, 3, 1, 1};
    return p;
}

/* The Philox block i of call n: two 64-bit draws. */
static void block(const aug_rng_state *s, uint64_t i, uint64_t out[2]) {
    uint32_t ctr[4] = {(uint32_t)i, (uint32_t)(i >> 32), (uint32_t)s->calls, (uint32_t)(s->calls >> 32)};
    uint32_t key[2] = {(uint32_t)s->seed, (uint32_t)(s->seed >> 32)};
    uint32_t x[4];
    aug_philox4x32_10(ctr, key, x);
    out[0] = (uint64_t)x[0] | (uint64_t)x[1] << 32;
    out[1] = (uint64_t)x[2] | (uint64_t)x[3] << 32;
}

static double unit(uint64_t a) { return (double)(a >> 11) * 0x1p-53; }

/* floor(a * count / 2^64): a uniform integer in [0, count). */
static int64_t below(uint64_t a, int64_t count) {
    return (int64_t)(((unsigned __int128)a * (unsigned __int128)(uint64_t)count) >> 64);
}

static aug_status check_range(const char *func, const char *name, double lo, double hi) {
    if (!isfinite(lo) || !isfinite(hi) || !(lo > 0.0) || lo > hi)
        return aug__error(AUG_ERR_VALUE, func, "%s range (%g, %g) must be finite with 0 < min <= max", name, lo, hi);
    return AUG_OK;
}

/* torchvision's get_params for one H x W image, image k of call s. */
static void sample(const aug_rng_state *s, uint64_t k, int64_t H, int64_t W, const aug_rrc_params *p, int64_t crop[4]) {
    double area = (double)H * (double)W, lr0 = log(p->ratio_min), lr1 = log(p->ratio_max);
    for (uint64_t t = 0; t < 10; t++) {
        uint64_t u[2];
        block(s, 16 * k + t, u);
        double target = area * (p->scale_min + unit(u[0]) * (p->scale_max - p->scale_min));
        double aspect = exp(lr0 + unit(u[1]) * (lr1 - lr0));
        double w = nearbyint(sqrt(target * aspect)), h = nearbyint(sqrt(target / aspect));
        if (w > 0.0 && w <= (double)W && h > 0.0 && h <= (double)H) {
            int64_t ih = (int64_t)h, iw = (int64_t)w;
            block(s, 16 * k + 10, u);
            crop[0] = below(u[0], H - ih + 1), crop[1] = below(u[1], W - iw + 1), crop[2] = ih, crop[3] = iw;
            return;
        }
    }
    double in_ratio = (double)W / (double)H;
    int64_t w = W, h = H;
    if (in_ratio < p->ratio_min)
        h = (int64_t)nearbyint((double)w / p->ratio_min);
    else if (in_ratio > p->ratio_max)
        w = (int64_t)nearbyint((double)h * p->ratio_max);
    h = clamp64(h, 1, H), w = clamp64(w, 1, W);
    crop[0] = (H - h) / 2, crop[1] = (W - w) / 2, crop[2] = h, crop[3] = w;
}

/* The checks both samplers share (all but the generator / states). */
static aug_status check_args(const char *func, int64_t n, const int64_t *heights, const int64_t *widths,
                             int64_t out_height, int64_t out_width, const aug_rrc_params *p, const aug_rrc *out) {
    if (p == NULL) return aug__error(AUG_ERR_VALUE, func, "params is NULL");
    if (n < 0) return aug__error(AUG_ERR_VALUE, func, "n must be >= 0, got %lld", (long long)n);
    if (n > 0 && (heights == NULL || widths == NULL || out == NULL))
        return aug__error(AUG_ERR_VALUE, func, "heights, widths or out is NULL");
    if (out_height <= 0 || out_width <= 0)
        return aug__error(AUG_ERR_VALUE, func, "output size must be positive, got (%lld, %lld)", (long long)out_height,
                          (long long)out_width);
    aug_status st;
    if ((st = check_range(func, "scale", p->scale_min, p->scale_max)) != AUG_OK ||
        (st = check_range(func, "ratio", p->ratio_min, p->ratio_max)) != AUG_OK)
        return st;
    if (!(p->hflip >= 0.0 && p->hflip <= 1.0))
        return aug__error(AUG_ERR_VALUE, func, "hflip probability must be in [0, 1], got %g", p->hflip);
    if (p->max_supersampling < 1 || p->max_supersampling > AUG_MAX_SUPERSAMPLING)
        return aug__error(AUG_ERR_VALUE, func, "max_supersampling must be in [1, %d], got %d", AUG_MAX_SUPERSAMPLING,
                          p->max_supersampling);
    for (int64_t k = 0; k < n; k++)
        if (heights[k] <= 0 || widths[k] <= 0)
            return aug__error(AUG_ERR_VALUE, func, "image %lld has size (%lld, %lld); sizes must be positive",
                              (long long)k, (long long)heights[k], (long long)widths[k]);
    return AUG_OK;
}

/* The one per-image sampler: image k of call s (blocks 16k + 0..11), an H x W
 * image warped to out_height x out_width. Arguments checked by check_args. */
static aug_status draw_image(const char *func, const aug_rng_state *s, uint64_t k, int64_t H, int64_t W,
                             int64_t out_height, int64_t out_width, const aug_rrc_params *p, aug_rrc *out) {
    aug_rrc r;
    memset(&r, 0, sizeof r);
    sample(s, k, H, W, p, r.crop);
    uint64_t u[2];
    block(s, 16 * k + 11, u);
    r.hflip = unit(u[0]) < p->hflip;
    double sx = (double)r.crop[3] / (double)out_width, sy = (double)r.crop[2] / (double)out_height;
    double m[6] = {sx, 0.0, (double)r.crop[1] + 0.5 * sx - 0.5, 0.0, sy, (double)r.crop[0] + 0.5 * sy - 0.5};
    if (r.hflip) m[0] = -sx, m[2] = (double)r.crop[1] + ((double)out_width - 0.5) * sx - 0.5;
    for (int i = 0; i < 6; i++) r.matrix[i] = (float)m[i];
    double ss = ceil(sqrt(sx * sy) - 1e-9);
    if (!(ss >= 1.0)) ss = 1.0;
    if (ss > (double)p->max_supersampling) ss = (double)p->max_supersampling;
    r.supersampling = (int)ss;
    aug_status st =
        aug_plan_decode(r.matrix, H, W, out_height, out_width, r.supersampling, p->dct_scale, p->use_roi, &r.plan);
    if (st != AUG_OK) return aug__error(st, func, "%s", aug_last_error());
    *out = r;
    return AUG_OK;
}

aug_status aug_random_resized_crop(aug_rng *rng, int64_t n, const int64_t *heights, const int64_t *widths,
                                   int64_t out_height, int64_t out_width, const aug_rrc_params *params, aug_rrc *out) {
    if (rng == NULL || params == NULL) return aug__error(AUG_ERR_VALUE, RRC, "rng or params is NULL");
    aug_status st = check_args(RRC, n, heights, widths, out_height, out_width, params, out);
    if (st != AUG_OK) return st;
    aug_rng_state s;
    if ((st = aug_rng_get_state(rng, &s)) != AUG_OK) return st;
    for (int64_t k = 0; k < n; k++)
        if ((st = draw_image(RRC, &s, (uint64_t)k, heights[k], widths[k], out_height, out_width, params, &out[k])) !=
            AUG_OK)
            return st;
    s.calls++;
    return aug_rng_set_state(rng, &s);
}

aug_status aug_random_resized_crop_states(const aug_rng_state *states, int64_t n, const int64_t *heights,
                                          const int64_t *widths, int64_t out_height, int64_t out_width,
                                          const aug_rrc_params *params, aug_rrc *out) {
    static const char func[] = "aug_random_resized_crop_states";
    if (n > 0 && states == NULL) return aug__error(AUG_ERR_VALUE, func, "states is NULL");
    aug_status st = check_args(func, n, heights, widths, out_height, out_width, params, out);
    for (int64_t k = 0; st == AUG_OK && k < n; k++)
        st = draw_image(func, &states[k], 0, heights[k], widths[k], out_height, out_width, params, &out[k]);
    return st;
}

aug_status aug_resize_center_crop_matrix(int64_t src_height, int64_t src_width, int64_t resize, int64_t out_height,
                                         int64_t out_width, int max_supersampling, float matrix[6],
                                         int *supersampling) {
    static const char func[] = "aug_resize_center_crop_matrix";
    if (matrix == NULL) return aug__error(AUG_ERR_VALUE, func, "matrix is NULL");
    if (src_height <= 0 || src_width <= 0 || out_height <= 0 || out_width <= 0 || resize <= 0)
        return aug__error(AUG_ERR_VALUE, func,
                          "sizes must be positive, got source (%lld, %lld), resize %lld, output (%lld, %lld)",
                          (long long)src_height, (long long)src_width, (long long)resize, (long long)out_height,
                          (long long)out_width);
    if (max_supersampling < 1 || max_supersampling > AUG_MAX_SUPERSAMPLING)
        return aug__error(AUG_ERR_VALUE, func, "max_supersampling must be in [1, %d], got %d", AUG_MAX_SUPERSAMPLING,
                          max_supersampling);
    int64_t shortest = src_height < src_width ? src_height : src_width;
    int64_t longest = src_height < src_width ? src_width : src_height;
    const double other_d = (double)resize * (double)longest / (double)shortest;
    if (!(other_d < 0x1p62)) /* NaN too: the longer side after the resize does not fit an int64 */
        return aug__error(AUG_ERR_VALUE, func, "resizing the %lld x %lld source's shorter side to %lld makes its "
                          "longer side %.4g pixels", (long long)src_height, (long long)src_width, (long long)resize,
                          other_d);
    int64_t other = (int64_t)other_d;
    if (other < 1) other = 1;
    int64_t rh = src_height <= src_width ? resize : other, rw = src_height <= src_width ? other : resize;
    double top = nearbyint((double)(rh - out_height) / 2.0), left = nearbyint((double)(rw - out_width) / 2.0);
    double ky = (double)src_height / (double)rh, kx = (double)src_width / (double)rw;
    double m[6] = {kx, 0.0, (left + 0.5) * kx - 0.5, 0.0, ky, (top + 0.5) * ky - 0.5};
    for (int i = 0; i < 6; i++) matrix[i] = (float)m[i];
    if (supersampling) {
        double ss = ceil((double)shortest / (double)resize - 1e-9);
        if (!(ss >= 1.0)) ss = 1.0;
        if (ss > (double)max_supersampling) ss = (double)max_supersampling;
        *supersampling = (int)ss;
    }
    return AUG_OK;
}
