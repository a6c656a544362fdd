/* core/noise_table.c: the inverse-CDF tables of the integer Gaussian noise
 * (scalar/noise_table.h has the layout and the per-element rule; the
 * distribution is docs/semantics.md §11.2's), built on the host once per
 * distinct std of a call and handed to every backend as data.
 *
 * Q(k) = floor(2^32 * Phi((k + 0.5 - mean) / std) + 0.5), Phi(t) =
 * erfc(-t / sqrt 2) / 2 in double (the C library's erfc), made non-decreasing;
 * std = 0 puts all the mass on rne(mean). The table keeps only the k whose Q
 * lies strictly inside (0, 2^32), and clips k to [-K, K], K = the largest change
 * the output can show from any x (the clipped values saturate alike). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "normalize.h"
#include "scalar/noise_table.h"

static void int_range(int t, int64_t *lo, int64_t *hi) {
    switch (t) {
    case AUG__CT_INT8: *lo = -128, *hi = 127; return;
    case AUG__CT_UINT8: *lo = 0, *hi = 255; return;
    case AUG__CT_INT16: *lo = -32768, *hi = 32767; return;
    default: *lo = 0, *hi = 65535; return;
    }
}

int64_t aug__noise_table_kmax(int x_t, int out_t) {
    int64_t xl, xh, ol, oh;
    int_range(x_t, &xl, &xh);
    int_range(out_t, &ol, &oh);
    return oh - xl > xh - ol ? oh - xl : xh - ol;
}

/* Q(k) as a double in [0, 2^32]. */
static double quantised_cdf(int64_t k, double mean, double std) {
    const double t = ((double)k + 0.5 - mean) / std;
    return floor(ldexp(0.5 * erfc(-t * 0.70710678118654752440), 32) + 0.5);
}

/* The k range [lo, hi] (clipped to [-K, K]) outside which Q is 0 or 2^32:
 * Phi(-6.5) * 2^32 < 0.2 rounds to 0. */
static void span(double mean, double std, int64_t K, int64_t *lo, int64_t *hi) {
    double a = floor(mean - 6.5 * std) - 1.0, b = ceil(mean + 6.5 * std) + 1.0;
    a = a < (double)-K ? (double)-K : a > (double)K ? (double)K : a;
    b = b < (double)-K ? (double)-K : b > (double)K ? (double)K : b;
    *lo = (int64_t)a, *hi = (int64_t)b;
}

int64_t aug__noise_table_words(double mean, double std, int64_t K) {
    if (std == 0.0) return AUG__NOISE_HEADER;
    int64_t lo, hi;
    span(mean, std, K, &lo, &hi);
    return AUG__NOISE_HEADER + (hi - lo);
}

int64_t aug__noise_table_build(double mean, double std, int64_t K, uint32_t *t) {
    int64_t kmin, m = 0;
    uint32_t *q = t + AUG__NOISE_HEADER;
    if (std == 0.0) {
        double r = nearbyint(mean); /* the default rounding mode: half to even */
        kmin = r < (double)-K ? -K : r > (double)K ? K : (int64_t)r;
    } else {
        int64_t lo, hi;
        span(mean, std, K, &lo, &hi);
        kmin = lo;
        double prev = 0.0;
        for (int64_t k = lo; k < hi; k++) {
            double v = quantised_cdf(k, mean, std);
            v = v < prev ? prev : v; /* non-decreasing */
            prev = v;
            if (v >= 4294967296.0) break; /* k itself is the last value: u < 2^32 always */
            if (v <= 0.0 && m == 0) {     /* u < 0 never: k is never drawn */
                kmin = k + 1;
                continue;
            }
            q[m++] = (uint32_t)v;
        }
    }
    t[0] = (uint32_t)(int32_t)kmin;
    t[1] = (uint32_t)m;
    uint32_t c = 0;
    for (uint32_t b = 0; b < AUG__NOISE_GUIDE; b++) {
        const uint32_t start = b << (32 - AUG__NOISE_GUIDE_BITS);
        while (c < (uint32_t)m && q[c] <= start) c++;
        t[2 + b] = c;
    }
    return AUG__NOISE_HEADER + m;
}

typedef struct std_ix {
    double std;
    int64_t img;
} std_ix;

static int by_std(const void *a, const void *b) {
    const std_ix *x = a, *y = b;
    return x->std < y->std ? -1 : x->std > y->std ? 1 : (x->img > y->img) - (x->img < y->img);
}

aug_status aug__noise_tables(const char *func, int x_t, int out_t, double mean, double std, const double *stds,
                             int64_t nimg, uint32_t **words, int64_t *nwords, uint32_t **table_of) {
    const int64_t K = aug__noise_table_kmax(x_t, out_t);
    *words = NULL, *table_of = NULL, *nwords = 0;
    if (!stds) {
        uint32_t *t = malloc((size_t)aug__noise_table_words(mean, std, K) * sizeof(uint32_t));
        if (!t) return AUG__NOMEM(func);
        *nwords = aug__noise_table_build(mean, std, K, t);
        *words = t;
        return AUG_OK;
    }
    std_ix *ix = malloc((size_t)(nimg + 1) * sizeof *ix);
    uint32_t *of = malloc((size_t)(nimg + 1) * sizeof *of);
    if (!ix || !of) goto nomem;
    for (int64_t i = 0; i < nimg; i++) ix[i].std = stds[i], ix[i].img = i;
    qsort(ix, (size_t)nimg, sizeof *ix, by_std);
    int64_t total = 0;
    for (int64_t i = 0; i < nimg; i++)
        if (i == 0 || ix[i].std != ix[i - 1].std) total += aug__noise_table_words(mean, ix[i].std, K);
    if (total >= ((int64_t)1 << 31)) {
        free(ix), free(of);
        return aug__error(AUG_ERR_MEMORY, func, "the noise tables of %lld images need %lld words (> 2^31)",
                          (long long)nimg, (long long)total);
    }
    uint32_t *t = malloc((size_t)(total + 1) * sizeof(uint32_t));
    if (!t) goto nomem;
    int64_t at = 0, cur = 0;
    for (int64_t i = 0; i < nimg; i++) {
        if (i == 0 || ix[i].std != ix[i - 1].std) {
            cur = at;
            at += aug__noise_table_build(mean, ix[i].std, K, t + at);
        }
        of[ix[i].img] = (uint32_t)cur;
    }
    free(ix);
    *words = t, *nwords = at, *table_of = of;
    return AUG_OK;
nomem:
    free(ix), free(of);
    return AUG__NOMEM(func);
}
