/* core/noise.c: aug_rng_gaussian_noise, the fused "draw, scale, add, saturate"
 * (include/aug/normalize.h): argument checks, the compute type, the plan.
 *
 * For 8/16-bit integer x and out the noise is the integer
 * round(mean + std * N(0, 1)) drawn by inverse CDF from one 32-bit Philox word
 * per element (scalar/noise_table.h; the tables are built here, per distinct
 * std, by core/noise_table.c). Otherwise it is exactly the float32 Gaussian fill
 * of the generator's current state (core/random.c) followed by
 * augpy.add(x, noise, out=out): the backend draws element i's Philox block, maps
 * it with the float32 fill's rule and adds it in the add's compute type
 * (scalar/normalize.h), without the noise tensor. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "aug/normalize.h"
#include "normalize.h"
#include "tensor_impl.h"

#define FUNC "aug_rng_gaussian_noise"

static aug_status check_std(double v, const char *name, long long i) {
    if (!(isfinite(v) && v >= 0.0)) {
        if (i < 0) return aug__error(AUG_ERR_VALUE, FUNC, "%s = %g must be finite and >= 0", name, v);
        return aug__error(AUG_ERR_VALUE, FUNC, "%s[%lld] = %g must be finite and >= 0", name, i, v);
    }
    return AUG_OK;
}

/* stds: float32, 1-D with x->shape[0] values on x's device or the CPU (read without
 * waiting for x's device); values read and checked. */
static aug_status read_stds(const aug_tensor *x, const aug_tensor *stds, double **vals) {
    char sa[96], da[32], db[32];
    aug_status st = aug__tensor_check(FUNC, stds);
    if (st) return st;
    if (stds->dtype != AUG_FLOAT32)
        return aug__error(AUG_ERR_TYPE, FUNC, "stds must be float32, not %s", aug_dtype_name(stds->dtype));
    if (stds->device.type != AUG_DEVICE_CPU && !aug__device_eq(stds->device, x->device))
        return aug__error(AUG_ERR_VALUE, FUNC, "stds is on %s but x is on %s",
                          aug__device_str(stds->device, da, sizeof da), aug__device_str(x->device, db, sizeof db));
    if (x->ndim < 1) return aug__error(AUG_ERR_VALUE, FUNC, "per-image stds need x with a first (image) axis");
    if (stds->ndim != 1 || stds->shape[0] != x->shape[0])
        return aug__error(AUG_ERR_VALUE, FUNC, "stds has shape %s but (%lld,) is needed (one per image)",
                          aug_shape_str(stds->ndim, stds->shape, sa, sizeof sa), (long long)x->shape[0]);
    int64_t n = stds->shape[0];
    float *f = malloc((size_t)(n + 1) * sizeof(float));
    double *d = malloc((size_t)(n + 1) * sizeof(double));
    if (!f || !d) {
        free(f), free(d);
        return AUG__NOMEM(FUNC);
    }
    st = aug_tensor_read(stds, f, (size_t)n * sizeof(float), 1);
    for (int64_t i = 0; st == AUG_OK && i < n; i++) {
        d[i] = f[i];
        st = check_std(d[i], "stds", (long long)i);
    }
    free(f);
    if (st) free(d);
    else *vals = d;
    return st;
}

/* Same view: same first byte, shape and strides. */
static int same_view(const aug_tensor *a, const aug_tensor *b) {
    if (aug_tensor_ptr(a) != aug_tensor_ptr(b) || a->ndim != b->ndim || a->dtype != b->dtype) return 0;
    for (int k = 0; k < a->ndim; k++)
        if (a->shape[k] != b->shape[k] || (a->shape[k] > 1 && a->strides[k] != b->strides[k])) return 0;
    return 1;
}

aug_status aug_rng_gaussian_noise(aug_rng *rng, const aug_tensor *x, double mean, double std, const aug_tensor *stds,
                                  aug_tensor **out) {
    char sa[96], sb[96], da[32], db[32];
    if (!rng) return aug__error(AUG_ERR_VALUE, FUNC, "rng is NULL");
    if (!out) return aug__error(AUG_ERR_VALUE, FUNC, "out is NULL");
    aug_status st = aug__tensor_check(FUNC, x);
    if (st) return st;
    if (!aug__device_eq(x->device, aug_rng_device(rng)))
        return aug__error(AUG_ERR_VALUE, FUNC, "x is on %s, the generator on %s",
                          aug__device_str(x->device, da, sizeof da), aug__device_str(aug_rng_device(rng), db, sizeof db));
    if (!isfinite(mean)) return aug__error(AUG_ERR_VALUE, FUNC, "mean must be finite, got %g", mean);
    if (!stds && (st = check_std(std, "std", -1))) return st;
    double *svals = NULL;
    if (stds && (st = read_stds(x, stds, &svals))) return st;

    aug_tensor *res = *out;
    if (res) {
        if ((st = aug__tensor_check(FUNC, res))) goto done;
        if (!aug__device_eq(res->device, x->device)) {
            st = aug__error(AUG_ERR_VALUE, FUNC, "out is on %s but x is on %s", aug__device_str(res->device, da, sizeof da),
                            aug__device_str(x->device, db, sizeof db));
            goto done;
        }
        int same = res->ndim == x->ndim;
        for (int k = 0; same && k < x->ndim; k++) same = res->shape[k] == x->shape[k];
        if (!same) {
            st = aug__error(AUG_ERR_VALUE, FUNC, "out has shape %s but x has shape %s",
                            aug_shape_str(res->ndim, res->shape, sa, sizeof sa), aug_shape_str(x->ndim, x->shape, sb, sizeof sb));
            goto done;
        }
        if ((st = aug__check_no_self_overlap(FUNC, res, "out"))) goto done;
        if (res->storage && res->storage == x->storage && !same_view(res, x)) {
            st = aug__error(AUG_ERR_VALUE, FUNC, "out overlaps x (only out = x itself is allowed)");
            goto done;
        }
    } else {
        res = aug__tensor_empty(FUNC, x->ndim, x->shape, x->dtype, x->device);
        if (!res) {
            st = aug_last_status();
            goto done;
        }
        if (x->layout[0]) aug_tensor_set_layout(res, x->layout);
    }
    aug_rng_state state;
    aug_rng_get_state(rng, &state);
    aug__noise_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.func = FUNC;
    plan.p.kind = AUG__RANDOM_GAUSSIAN;
    plan.p.dtype = AUG__CT_FLOAT32;
    plan.p.key[0] = (uint32_t)state.seed;
    plan.p.key[1] = (uint32_t)(state.seed >> 32);
    plan.p.call = state.calls;
    plan.p.mean = mean;
    plan.p.std = std;
    plan.stds = svals;
    plan.n = aug_tensor_size(x);
    plan.per_image = svals && x->shape[0] > 0 ? plan.n / x->shape[0] : 0;
    plan.x_dtype = (int)x->dtype;
    plan.out_dtype = (int)res->dtype;
    /* augpy.add(x, noise, out=)'s compute type: the temp type of the promoted one */
    plan.ct = aug_dtype_info(aug_promote(x->dtype, AUG_FLOAT32))->temp == AUG_FLOAT64 ? AUG__CT_FLOAT64
                                                                                   : AUG__CT_FLOAT32;
    /* The dims in C order, those of extent 1 dropped and each merged into the one
     * before it when both strides chain: the same element order, and runs along
     * the last dim as long as the layouts allow (an HWC image is one run). */
    const int64_t xe = aug__dtype_size(x->dtype), oe = aug__dtype_size(res->dtype);
    int nd = 0;
    for (int k = 0; k < x->ndim; k++) {
        const int64_t ext = x->shape[k], xs = x->strides[k] * xe, os = res->strides[k] * oe;
        if (ext == 1) continue;
        if (nd > 0 && plan.xs[nd - 1] == xs * ext && plan.os[nd - 1] == os * ext) {
            plan.shape[nd - 1] *= ext;
            plan.xs[nd - 1] = xs, plan.os[nd - 1] = os;
            continue;
        }
        plan.shape[nd] = ext, plan.xs[nd] = xs, plan.os[nd] = os;
        nd++;
    }
    if (nd == 0) plan.shape[0] = 1, plan.xs[0] = plan.os[0] = 0, nd = 1;
    plan.ndim = nd;
    plan.x = (const char *)aug_tensor_ptr(x);
    plan.out = (char *)aug_tensor_ptr(res);
    plan.exec = aug__exec_for(x->device);
    uint32_t *twords = NULL, *tof = NULL;
    if (plan.n > 0 && aug__noise_table_dtype(plan.x_dtype) && aug__noise_table_dtype(plan.out_dtype)) {
        st = aug__noise_tables(FUNC, plan.x_dtype, plan.out_dtype, mean, std, svals, svals ? x->shape[0] : 0,
                               &twords, &plan.table_words, &tof);
        plan.table = twords, plan.table_of = tof;
    }
    if (st == AUG_OK && plan.n > 0) {
        aug__need need = {AUG__FAMILY_NOISE, 0, res->dtype, x->dtype};
        const aug__backend *be = aug__backend_supporting(FUNC, x->device, &need);
        st = be ? aug__dispatch_gaussian_noise(be, &plan) : aug_last_status();
    }
    free(twords), free(tof);
    if (st == AUG_OK) {
        state.calls++; /* one call of the generator, as the fill it stands for */
        aug_rng_set_state(rng, &state);
        *out = res;
    } else if (!*out) {
        aug_tensor_free(res);
    }
done:
    free(svals);
    return st;
}
