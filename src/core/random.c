/* core/random.c: the random generator object and the validation of random fills
 * (semantics §11; the value mapping is documented in include/aug/random.h).
 *
 * A generator holds a seed, the call counter and its device. uniform/gaussian
 * check the target and parameters, derive the per-dtype constants of the plan
 * (integer range, float clamp bounds), hand the plan to the backend of the
 * target's device and, once it succeeded, count the call. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include "aug/random.h"
#include "random.h"
#include "ctype.h"
#include "tensor_impl.h"

struct aug_rng {
    uint64_t seed;
    uint64_t calls;
    aug_device device;
};

/* ---- life cycle ------------------------------------------------------------------------ */

static aug_status entropy_seed(const char *func, uint64_t *out) {
    unsigned char *p = (unsigned char *)out;
    size_t got = 0;
    while (got < sizeof *out) {
        ssize_t r = getrandom(p + got, sizeof *out - got, 0);
        if (r < 0) {
            if (errno == EINTR) continue;
            return aug__error(AUG_ERR_RUNTIME, func, "cannot read the OS entropy source (getrandom: errno %d)",
                              errno);
        }
        got += (size_t)r;
    }
    return AUG_OK;
}

aug_rng *aug_rng_new(aug_device device, const uint64_t *seed) {
    static const char func[] = "aug_rng_new";
    if (aug__backend_for(func, device) == NULL) return NULL;
    uint64_t s;
    if (seed != NULL)
        s = *seed;
    else if (entropy_seed(func, &s) != AUG_OK)
        return NULL;
    aug_rng *rng = malloc(sizeof *rng);
    if (rng == NULL) {
        AUG__NOMEM(func);
        return NULL;
    }
    rng->seed = s;
    rng->calls = 0;
    rng->device = device;
    return rng;
}

void aug_rng_free(aug_rng *rng) { free(rng); }

void aug_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]) {
    aug__philox4x32_10(ctr, key, out);
}

aug_device aug_rng_device(const aug_rng *rng) {
    return rng ? rng->device : aug_cpu_device();
}

aug_status aug_rng_get_state(const aug_rng *rng, aug_rng_state *out) {
    if (rng == NULL || out == NULL)
        return aug__error(AUG_ERR_VALUE, "aug_rng_get_state", "%s is NULL", rng ? "out" : "rng");
    out->seed = rng->seed;
    out->calls = rng->calls;
    return AUG_OK;
}

aug_status aug_rng_set_state(aug_rng *rng, const aug_rng_state *state) {
    if (rng == NULL || state == NULL)
        return aug__error(AUG_ERR_VALUE, "aug_rng_set_state", "%s is NULL", rng ? "state" : "rng");
    rng->seed = state->seed;
    rng->calls = state->calls;
    return AUG_OK;
}

/* ---- values of a float dtype ------------------------------------------------------------ */

/* x (finite) rounded to the float dtype t, finite values beyond its range
 * saturating to +-max finite (semantics §2). */
static double round_to(aug_dtype t, double x) {
    switch (t) {
    case AUG_FLOAT32: return (double)(float)fmin(fmax(x, -FLT_MAX), FLT_MAX);
    case AUG_FLOAT16: return aug_f16_to_f64(aug_f64_to_f16(x));
    case AUG_BFLOAT16: return aug_bf16_to_f64(aug_f64_to_bf16(x));
    default: return x;
    }
}

/* The neighbour of the 16-bit float with bits h towards +inf (up) or -inf. */
static uint16_t step16(uint16_t h, int up) {
    if ((h & 0x7fffu) == 0) return up ? 0x0001u : 0x8001u; /* +-0 -> smallest subnormal */
    return (uint16_t)(((h & 0x8000u) != 0) == (up != 0) ? h - 1u : h + 1u);
}

/* The next value of dtype t above (up) or below x, a finite value of t; may be +-inf. */
static double step_value(aug_dtype t, double x, int up) {
    switch (t) {
    case AUG_FLOAT32: return (double)nextafterf((float)x, up ? INFINITY : -INFINITY);
    case AUG_FLOAT16: return aug_f16_to_f64(step16(aug_f64_to_f16(x), up));
    case AUG_BFLOAT16: return aug_bf16_to_f64(step16(aug_f64_to_bf16(x), up));
    default: return nextafter(x, up ? INFINITY : -INFINITY);
    }
}

/* ---- plans ---------------------------------------------------------------------------- */

static aug_status check_common(const char *func, const aug_rng *rng, const aug_tensor *target) {
    if (rng == NULL) return aug__error(AUG_ERR_VALUE, func, "rng is NULL");
    aug_status st = aug__tensor_check(func, target);
    if (st != AUG_OK) return st;
    if (!aug__device_eq(target->device, rng->device)) {
        char a[32], b[32];
        return aug__error(AUG_ERR_VALUE, func, "target is on %s, the generator on %s",
                          aug__device_str(target->device, a, sizeof a), aug__device_str(rng->device, b, sizeof b));
    }
    return aug__check_no_self_overlap(func, target, "target");
}

static aug_status check_finite(const char *func, const char *name, double v) {
    if (!isfinite(v)) return aug__error(AUG_ERR_VALUE, func, "%s must be finite, got %g", name, v);
    return AUG_OK;
}

static aug_status uniform_params(aug__random_plan *plan, double vmin, double vmax) {
    const char *func = plan->func;
    aug_dtype t = plan->target->dtype;
    aug__rand_params *p = &plan->p;
    const aug_dtype_traits *tr = aug_dtype_info(t);
    if (tr->kind == AUG_KIND_FLOAT) {
        double lo = round_to(t, vmin), hi = round_to(t, vmax);
        if (lo < vmin) lo = step_value(t, lo, 1);
        if (hi >= vmax) hi = step_value(t, hi, 0);
        if (!(lo <= hi) || isinf(lo) || isinf(hi))
            return aug__error(AUG_ERR_VALUE, func, "no %s value in [%.17g, %.17g)", tr->name, vmin, vmax);
        p->flo = lo;
        p->fhi = hi;
        /* Clip the range to the dtype's finite values, as for integers: [-max, max]
         * is [-max, next(max)) with next(max) = 2^16 (float16) or 2^128. */
        if (t != AUG_FLOAT64) {
            double top = t == AUG_FLOAT16 ? 0x1p16 : 0x1p128;
            vmin = fmax(vmin, -tr->fmax);
            vmax = fmin(vmax, top);
        }
        p->m = 1.0;
        p->o = vmin;
        p->d = vmax - vmin;
        if (isinf(p->d)) { /* |vmin|, |vmax| near DBL_MAX: halve everything (exact) */
            p->m = 2.0;
            p->o = vmin * 0.5;
            p->d = vmax * 0.5 - vmin * 0.5;
        }
        return AUG_OK;
    }
    /* Integers and bool: [max(ceil(vmin), min), min(ceil(vmax) - 1, max)]. Clamping
     * the doubles to +-2^65 first keeps the conversions exact and in range. */
    aug__i128 dmin = tr->kind == AUG_KIND_INT ? (aug__i128)tr->imin : 0;
    aug__i128 dmax = t == AUG_BOOL ? 1 : (aug__i128)tr->umax;
    aug__i128 lo = (aug__i128)ceil(fmax(vmin, -0x1p65));
    aug__i128 hi = (aug__i128)ceil(fmin(vmax, 0x1p65)) - 1;
    if (lo < dmin) lo = dmin;
    if (hi > dmax) hi = dmax;
    if (lo > hi)
        return aug__error(AUG_ERR_VALUE, func, "no %s value in [%.17g, %.17g)", tr->name, vmin, vmax);
    p->ilo = (int64_t)lo;
    p->count_m1 = (uint64_t)(hi - lo);
    return AUG_OK;
}

static aug_status run(aug_rng *rng, aug__random_plan *plan) {
    aug_tensor *t = plan->target;
    plan->n = aug_tensor_size(t);
    if (plan->n > 0) {
        aug__need need = {AUG__FAMILY_RANDOM, plan->p.kind, t->dtype, AUG_DTYPE_AUTO};
        const aug__backend *be = aug__backend_supporting(plan->func, t->device, &need);
        if (be == NULL) return aug_last_status();
        plan->p.dtype = (int)t->dtype;
        plan->p.key[0] = (uint32_t)rng->seed;
        plan->p.key[1] = (uint32_t)(rng->seed >> 32);
        plan->p.call = rng->calls;
        plan->base = (char *)aug_tensor_ptr(t);
        plan->aliased = aug__coalesce(t, &plan->nd, plan->shape, plan->bstride);
        plan->exec = aug__exec_for(t->device);
        aug_status st = aug__dispatch_random(be, plan);
        if (st != AUG_OK) return st;
    }
    rng->calls++; /* wraps after 2^64 calls, as the counter word does */
    return AUG_OK;
}

aug_status aug_rng_uniform(aug_rng *rng, aug_tensor *target, double vmin, double vmax) {
    static const char func[] = "aug_rng_uniform";
    aug_status st = check_common(func, rng, target);
    if (st == AUG_OK) st = check_finite(func, "vmin", vmin);
    if (st == AUG_OK) st = check_finite(func, "vmax", vmax);
    if (st != AUG_OK) return st;
    if (!(vmin < vmax))
        return aug__error(AUG_ERR_VALUE, func, "vmin must be < vmax, got vmin=%.17g, vmax=%.17g", vmin, vmax);
    aug__random_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.func = func;
    plan.p.kind = AUG__RANDOM_UNIFORM;
    plan.target = target;
    st = uniform_params(&plan, vmin, vmax);
    return st != AUG_OK ? st : run(rng, &plan);
}

aug_status aug_rng_gaussian(aug_rng *rng, aug_tensor *target, double mean, double std) {
    static const char func[] = "aug_rng_gaussian";
    aug_status st = check_common(func, rng, target);
    if (st == AUG_OK) st = check_finite(func, "mean", mean);
    if (st == AUG_OK) st = check_finite(func, "std", std);
    if (st != AUG_OK) return st;
    if (std < 0) return aug__error(AUG_ERR_VALUE, func, "std must be >= 0, got %.17g", std);
    aug__random_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.func = func;
    plan.p.kind = AUG__RANDOM_GAUSSIAN;
    plan.p.mean = mean;
    plan.p.std = std;
    plan.target = target;
    return run(rng, &plan);
}
