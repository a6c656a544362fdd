/* test_argminmax.c: aug_reduce's ARGMIN / ARGMAX (semantics §10) against a brute-force
 * reference written here (NumPy's rules: the first minimum / maximum in C order of
 * the reduced axes; the first NaN wins; -0.0 equals +0.0): every dtype, all axes and
 * each single axis, keepdim, reversed and permuted views, ties and NaNs across the
 * 65536-element chunks, a given out= of another dtype, and the errors, on the CPU
 * (tests/c/parity/cases_reduce.c compares the CUDA backend with it). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "aug/aug.h"
#include "helpers/th_cuda.h"

typedef __int128 i128;

static uint64_t rng_state = 0x243f6a8885a308d3ull;
static uint64_t rnd(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static const aug_dtype ALL[] = {AUG_BOOL,   AUG_INT8,   AUG_UINT8,   AUG_INT16,     AUG_UINT16,
                                AUG_INT32,  AUG_UINT32, AUG_INT64,   AUG_UINT64,    AUG_FLOAT16,
                                AUG_BFLOAT16, AUG_FLOAT32, AUG_FLOAT64};
#define NDT ((int)(sizeof ALL / sizeof ALL[0]))

static int is_float(aug_dtype t) { return aug_dtype_info(t)->kind == AUG_KIND_FLOAT; }
static int64_t isize(aug_dtype t) { return aug_dtype_info(t)->size; }

/* One element as (integer, double); floats through the library's converters. */
typedef struct val { i128 i; double f; } val;

static val get(aug_dtype t, const char *p) {
    val v = {0, 0};
    switch (t) {
    case AUG_BOOL: v.i = *(const uint8_t *)p != 0; break;
    case AUG_INT8: v.i = *(const int8_t *)p; break;
    case AUG_UINT8: v.i = *(const uint8_t *)p; break;
    case AUG_INT16: v.i = *(const int16_t *)p; break;
    case AUG_UINT16: v.i = *(const uint16_t *)p; break;
    case AUG_INT32: v.i = *(const int32_t *)p; break;
    case AUG_UINT32: v.i = *(const uint32_t *)p; break;
    case AUG_INT64: v.i = *(const int64_t *)p; break;
    case AUG_UINT64: v.i = *(const uint64_t *)p; break;
    case AUG_FLOAT16: v.f = aug_f16_to_f64(*(const uint16_t *)p); break;
    case AUG_BFLOAT16: v.f = aug_bf16_to_f64(*(const uint16_t *)p); break;
    case AUG_FLOAT32: v.f = *(const float *)p; break;
    case AUG_FLOAT64: v.f = *(const double *)p; break;
    default: fail();
    }
    return v;
}

static void put(aug_dtype t, char *p, i128 iv, double fv) {
    switch (t) {
    case AUG_BOOL: *(uint8_t *)p = iv != 0; break;
    case AUG_INT8: *(int8_t *)p = (int8_t)iv; break;
    case AUG_UINT8: *(uint8_t *)p = (uint8_t)iv; break;
    case AUG_INT16: *(int16_t *)p = (int16_t)iv; break;
    case AUG_UINT16: *(uint16_t *)p = (uint16_t)iv; break;
    case AUG_INT32: *(int32_t *)p = (int32_t)iv; break;
    case AUG_UINT32: *(uint32_t *)p = (uint32_t)iv; break;
    case AUG_INT64: *(int64_t *)p = (int64_t)iv; break;
    case AUG_UINT64: *(uint64_t *)p = (uint64_t)iv; break;
    case AUG_FLOAT16: *(uint16_t *)p = aug_f64_to_f16(fv); break;
    case AUG_BFLOAT16: *(uint16_t *)p = aug_f64_to_bf16(fv); break;
    case AUG_FLOAT32: *(float *)p = (float)fv; break;
    case AUG_FLOAT64: *(double *)p = fv; break;
    default: fail();
    }
}

/* Few distinct values (many ties); integers include the dtype's extremes, floats
 * -0.0, +0.0, +-inf and NaNs (nan_rate of 64). */
static void fill(aug_tensor *t, int nan_rate) {
    const aug_dtype_traits *tr = aug_dtype_info(t->dtype);
    int64_t n = aug_tensor_size(t), sz = isize(t->dtype);
    char *p = aug_tensor_ptr(t);
    for (int64_t k = 0; k < n; k++) {
        uint64_t r = rnd();
        int c = (int)(r % 8);
        if (is_float(t->dtype)) {
            static const double fv[8] = {-0.0, 0.0, 1.5, -1.5, 3.0, -3.0, INFINITY, -INFINITY};
            double v = (int)(r >> 8 & 63) < nan_rate ? NAN : fv[c];
            put(t->dtype, p + k * sz, 0, v);
        } else {
            i128 lo = tr->imin, hi = (i128)tr->umax;
            i128 iv = c == 0 ? lo : c == 1 ? hi : (i128)(r >> 8) % 5;
            if (iv > hi) iv = hi;
            put(t->dtype, p + k * sz, iv, 0);
        }
    }
}

/* The brute-force argmin / argmax over mask, one index per output (C order of the
 * kept dims). NumPy's rule: scan in C order of the reduced dims, take a NaN at
 * once (and keep it), else replace only on a strictly better value. */
static int64_t *reference(const aug_tensor *t, uint32_t mask, int is_max, int64_t *nout) {
    int64_t O = 1;
    for (int d = 0; d < t->ndim; d++)
        if (!(mask & (1u << d))) O *= t->shape[d];
    *nout = O;
    int64_t *res = calloc((size_t)O + 1, sizeof *res);
    val *best = calloc((size_t)O + 1, sizeof *best);
    int64_t *cnt = calloc((size_t)O + 1, sizeof *cnt);
    int *nan = calloc((size_t)O + 1, sizeof *nan);
    assert_true(res && best && cnt && nan);
    int64_t N = aug_tensor_size(t), idx[AUG_MAX_DIMS] = {0};
    int fl = is_float(t->dtype);
    for (int64_t k = 0; k < N; k++) {
        if (k > 0)
            for (int d = t->ndim - 1; d >= 0; d--) {
                if (++idx[d] < t->shape[d]) break;
                idx[d] = 0;
            }
        int64_t o = 0, r = 0;
        const char *p = aug_tensor_ptr(t);
        for (int d = 0; d < t->ndim; d++) {
            p += idx[d] * t->strides[d] * isize(t->dtype);
            if (mask & (1u << d)) r = r * t->shape[d] + idx[d];
            else o = o * t->shape[d] + idx[d];
        }
        val v = get(t->dtype, p);
        int take;
        if (cnt[o] == 0) take = 1;
        else if (nan[o]) take = 0;
        else if (fl && v.f != v.f) take = 1;
        else if (fl) take = is_max ? v.f > best[o].f : v.f < best[o].f;
        else take = is_max ? v.i > best[o].i : v.i < best[o].i;
        if (take) {
            best[o] = v;
            res[o] = r;
            nan[o] = fl && v.f != v.f;
        }
        cnt[o]++;
    }
    free(best);
    free(cnt);
    free(nan);
    return res;
}

/* Runs the op on t (on dev) and checks every output element. */
static void check(const aug_tensor *t, aug_device dev, int naxes, const int *axes, int keepdim, const char *what) {
    for (int mx = 0; mx < 2; mx++) {
        aug_reduce_op op = mx ? AUG_REDUCE_ARGMAX : AUG_REDUCE_ARGMIN;
        uint32_t mask = 0;
        if (naxes < 0) mask = t->ndim ? (1u << t->ndim) - 1 : 0;
        else mask = 1u << (axes[0] < 0 ? axes[0] + t->ndim : axes[0]);
        int64_t O;
        int64_t *ref = reference(t, mask, mx, &O);
        aug_tensor *src = dev.type == AUG_DEVICE_CPU ? (aug_tensor *)t : aug_tensor_to(t, dev);
        assert_non_null(src);
        aug_tensor *out = NULL;
        aug_status st = aug_reduce(op, src, naxes, axes, keepdim, 0, &out);
        if (st != AUG_OK) fail_msg("%s: %s", what, aug_last_error());
        assert_int_equal(out->dtype, AUG_INT64);
        int want_ndim = 0;
        for (int d = 0; d < t->ndim; d++) want_ndim += keepdim || !(mask & (1u << d));
        assert_int_equal(out->ndim, want_ndim);
        aug_tensor *host = aug_tensor_to(out, aug_cpu_device());
        aug_tensor *packed = aug_tensor_contiguous(host);
        assert_int_equal(aug_tensor_size(packed), O);
        const int64_t *got = aug_tensor_ptr(packed);
        for (int64_t o = 0; o < O; o++)
            if (got[o] != ref[o])
                fail_msg("%s %s %s axis %d keepdim %d output %lld: got %lld, want %lld", what,
                         mx ? "argmax" : "argmin", aug_dtype_name(t->dtype), naxes < 0 ? 99 : axes[0], keepdim,
                         (long long)o, (long long)got[o], (long long)ref[o]);
        aug_tensor_free(packed);
        aug_tensor_free(host);
        aug_tensor_free(out);
        if (src != t) aug_tensor_free(src);
        free(ref);
    }
}

/* The CPU (the CUDA backend is compared with it by tests/c/parity/cases_reduce.c). */
static int ndevices(aug_device *devs) {
    devs[0] = aug_cpu_device();
    return 1;
}

static void test_every_dtype_and_axis(void **state) {
    (void)state;
    aug_device devs[2];
    int nd = ndevices(devs);
    for (int k = 0; k < NDT; k++) {
        int64_t shape[3] = {3, 41, 7};
        aug_tensor *t = aug_tensor_empty(3, shape, ALL[k], aug_cpu_device());
        fill(t, 4);
        /* a reversed middle axis and a permutation of the same memory */
        aug_index ix[2] = {{.kind = AUG_INDEX_SLICE, .step = 1}, {.kind = AUG_INDEX_SLICE, .step = -1}};
        aug_tensor *rev = aug_tensor_index(t, 2, ix);
        const int perm[3] = {2, 0, 1};
        aug_tensor *per = aug_tensor_permute(t, perm);
        assert_true(rev && per);
        const aug_tensor *views[3] = {t, rev, per};
        static const char *names[3] = {"contiguous", "reversed", "permuted"};
        for (int di = 0; di < nd; di++)
            for (int v = 0; v < 3; v++) {
                check(views[v], devs[di], -1, NULL, 0, names[v]);
                check(views[v], devs[di], -1, NULL, 1, names[v]);
                for (int ax = -3; ax < 3; ax++) check(views[v], devs[di], 1, &ax, ax & 1, names[v]);
            }
        aug_tensor_free(rev);
        aug_tensor_free(per);
        aug_tensor_free(t);
    }
}

/* Several chunks of 65536 on one output: ties and NaNs in later chunks must not
 * beat an earlier equal value or NaN; long columns (reduced outer axis) too. */
static void test_long(void **state) {
    (void)state;
    aug_device devs[2];
    int nd = ndevices(devs);
    static const aug_dtype dts[] = {AUG_FLOAT32, AUG_UINT8, AUG_INT64, AUG_FLOAT16};
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
        int64_t shape[2] = {2, 200003};
        aug_tensor *t = aug_tensor_empty(2, shape, dts[k], aug_cpu_device());
        char *p = aug_tensor_ptr(t);
        int64_t sz = isize(dts[k]);
        for (int64_t i = 0; i < 2 * 200003; i++) put(dts[k], p + i * sz, (i128)(i % 7), (double)(i % 7));
        /* row 0: the extremes first appear in the third chunk, again later */
        put(dts[k], p + 140000 * sz, 100, 100.0);
        put(dts[k], p + 190000 * sz, 100, 100.0);
        put(dts[k], p + 150000 * sz, 0, -100.0);
        put(dts[k], p + 199000 * sz, 0, -100.0);
        if (is_float(dts[k])) { /* row 1: NaNs in chunks 2 and 3 */
            put(dts[k], p + (200003 + 70000) * sz, 0, NAN);
            put(dts[k], p + (200003 + 131073) * sz, 0, NAN);
        }
        int ax1 = 1, ax0 = 0;
        for (int di = 0; di < nd; di++) {
            check(t, devs[di], -1, NULL, 0, "long all");
            check(t, devs[di], 1, &ax1, 0, "long axis 1");
            check(t, devs[di], 1, &ax0, 1, "long axis 0");
            const int perm[2] = {1, 0};
            aug_tensor *tt = aug_tensor_permute(t, perm);
            check(tt, devs[di], 1, &ax0, 0, "long columns");
            aug_tensor_free(tt);
        }
        aug_tensor_free(t);
    }
}

/* The CPU finds a run's best value, then its first position by bit pattern: +-0.0
 * must match either zero, and the block search must find late and early hits. */
static void test_signed_zeros_in_long_runs(void **state) {
    (void)state;
    aug_device devs[2];
    int nd = ndevices(devs);
    static const aug_dtype dts[] = {AUG_FLOAT16, AUG_BFLOAT16, AUG_FLOAT32, AUG_FLOAT64};
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
        int64_t shape[2] = {3, 100000};
        aug_tensor *t = aug_tensor_empty(2, shape, dts[k], aug_cpu_device());
        char *p = aug_tensor_ptr(t);
        int64_t sz = isize(dts[k]);
        for (int64_t i = 0; i < 3 * 100000; i++) put(dts[k], p + i * sz, 0, (i % 100000) < 50000 ? -1.0 : 1.0);
        /* row 0: max +-0.0 late (-0.0 first); row 1: min -0.0 early then +0.0; row 2: -0.0 at 63, 64 */
        for (int64_t i = 0; i < 100000; i++) put(dts[k], p + i * sz, 0, -1.0);
        put(dts[k], p + 90001 * sz, 0, -0.0);
        put(dts[k], p + 95000 * sz, 0, 0.0);
        for (int64_t i = 0; i < 100000; i++) put(dts[k], p + (100000 + i) * sz, 0, 1.0);
        put(dts[k], p + (100000 + 5) * sz, 0, -0.0);
        put(dts[k], p + (100000 + 70) * sz, 0, 0.0);
        put(dts[k], p + (200000 + 63) * sz, 0, -0.0);
        put(dts[k], p + (200000 + 64) * sz, 0, -0.0);
        int ax1 = 1;
        for (int di = 0; di < nd; di++) check(t, devs[di], 1, &ax1, 0, "signed zeros");
        aug_tensor_free(t);
    }
}

static void test_out_and_errors(void **state) {
    (void)state;
    int64_t shape[2] = {2, 3};
    aug_tensor *t = aug_tensor_zeros(2, shape, AUG_FLOAT32, aug_cpu_device());
    float *p = aug_tensor_ptr(t);
    p[4] = 9.0f;
    int ax1 = 1;
    /* out= of another dtype: the index saturate_cast into it */
    int64_t oshape[1] = {2};
    aug_tensor *o8 = aug_tensor_empty(1, oshape, AUG_UINT8, aug_cpu_device());
    assert_int_equal(aug_reduce(AUG_REDUCE_ARGMAX, t, 1, &ax1, 0, 0, &o8), AUG_OK);
    assert_int_equal(((uint8_t *)aug_tensor_ptr(o8))[0], 0);
    assert_int_equal(((uint8_t *)aug_tensor_ptr(o8))[1], 1);
    aug_tensor_free(o8);
    /* two axes */
    aug_tensor *out = NULL;
    int two[2] = {0, 1};
    assert_int_equal(aug_reduce(AUG_REDUCE_ARGMIN, t, 2, two, 0, 0, &out), AUG_ERR_VALUE);
    assert_non_null(strstr(aug_last_error(), "aug_argmin"));
    /* an empty reduction, even with an empty result */
    int64_t eshape[2] = {0, 3};
    aug_tensor *e = aug_tensor_empty(2, eshape, AUG_INT32, aug_cpu_device());
    int ax0 = 0;
    assert_int_equal(aug_reduce(AUG_REDUCE_ARGMAX, e, 1, &ax0, 0, 0, &out), AUG_ERR_VALUE);
    assert_non_null(strstr(aug_last_error(), "attempt to get argmax of an empty sequence"));
    assert_int_equal(aug_reduce(AUG_REDUCE_ARGMAX, e, -1, NULL, 0, 0, &out), AUG_ERR_VALUE);
    /* reducing the non-empty axis of an empty tensor: an empty result */
    assert_int_equal(aug_reduce(AUG_REDUCE_ARGMAX, e, 1, &ax1, 0, 0, &out), AUG_OK);
    assert_int_equal(aug_tensor_size(out), 0);
    aug_tensor_free(out);
    /* 0-d: index 0 */
    aug_tensor *z = aug_tensor_zeros(0, NULL, AUG_UINT16, aug_cpu_device());
    out = NULL;
    assert_int_equal(aug_reduce(AUG_REDUCE_ARGMIN, z, -1, NULL, 0, 0, &out), AUG_OK);
    assert_int_equal(out->ndim, 0);
    assert_int_equal(*(int64_t *)aug_tensor_ptr(out), 0);
    aug_tensor_free(out);
    aug_tensor_free(z);
    aug_tensor_free(e);
    aug_tensor_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_dtype_and_axis),
        cmocka_unit_test(test_long),
        cmocka_unit_test(test_signed_zeros_in_long_runs),
        cmocka_unit_test(test_out_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
