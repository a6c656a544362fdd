/* cases_reduce.c: parity cases of the reduce family, one per reduction op:
 * every dtype over the shape (3, 41, 7) and random shapes in views (strided,
 * reversed, permuted), all axes and each axis, two axes, with keepdim and
 * upcast, empty ones; then cases over every op at once (one fill): long
 * reductions of several chunks of 65536 (a float sum's order matters: identical
 * on both), a strided one; for argmin / argmax the long runs with late ties and
 * NaNs and the signed zeros of tests/c/test_argminmax.c (whose reference checks
 * the CPU); short rows and columns (the CUDA backend's k_red_rows and k_red_cols),
 * also at other launch settings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/backend.h"
#include "helpers/th_cuda.h"
#include "parity/harness.h"

static void check_op(ph_run *r, int op, const aug_tensor *t, const aug_tensor *g, int naxes,
                         const int *axes, int keepdim, int upcast, const char *what) {
    aug_tensor *rc = NULL, *rg = NULL;
    ph_inputs(r, 1, &t);
    char w[160];
    snprintf(w, sizeof w, "reduce op %d, %s: %d axes (%d, %d) keepdim %d upcast %d", op, what, naxes, naxes > 0 ? axes[0] : -1,
             naxes > 1 ? axes[1] : -1, keepdim, upcast);
    aug_clear_error();
    aug_status a = aug_reduce((aug_reduce_op)op, t, naxes, axes, keepdim, upcast, &rc);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", aug_last_error());
    aug_clear_error();
    aug_status b = aug_reduce((aug_reduce_op)op, g, naxes, axes, keepdim, upcast, &rg);
    ph_check_status(r, w, a, msg, b);
    if (a == AUG_OK) ph_check(r, w, rc, rg); /* the same summation order: identical */
    aug_tensor_free(rc), aug_tensor_free(rg);
}

/* The case's op, or with op -1 every op from SUM to ARGMAX (one fill for all). */
static void check_reduce(ph_run *r, const ph_case *c, const aug_tensor *t, const aug_tensor *g, int naxes,
                         const int *axes, int keepdim, int upcast, const char *what) {
    const int *ops = c->params;
    if (c->op >= 0) check_op(r, c->op, t, g, naxes, axes, keepdim, upcast, what);
    else
        for (int k = 0; ops[k] >= 0; k++) check_op(r, ops[k], t, g, naxes, axes, keepdim, upcast, what);
}

/* A float64 pattern written into a CPU tensor of dtype t and its device copy. */
static void from_values(ph_run *r, const double *v, int ndim, const int64_t *shape, aug_dtype t, aug_tensor **cpu,
                        aug_tensor **dev) {
    aug_tensor *h = aug_tensor_empty(ndim, shape, AUG_FLOAT64, CPU);
    memcpy(aug_tensor_ptr(h), v, (size_t)aug_tensor_size(h) * sizeof(double));
    *cpu = aug_tensor_empty(ndim, shape, t, CPU);
    assert_int_equal(aug_copy(h, *cpu), AUG_OK);
    *dev = aug_tensor_to(*cpu, ph_dev(r));
    assert_non_null(*dev);
    aug_tensor_free(h);
}

static void run_reduce(ph_run *r, const ph_case *c) {
    for (int d = 0; d < ph_ndtypes(c); d++)
        for (int k = 0; k < 2; k++) { /* the shape of old, then a random one in a view (in turn) */
            int64_t shape[AUG_MAX_DIMS] = {3, 41, 7};
            int nd = k ? ph_shape(r, c->max_ndim, 45, 1000, shape) : 3;
            int l = k ? PH_L_STRIDED + d % 3 : PH_L_CONTIG;
            aug_tensor *t, *g;
            ph_operand(r, ph_dtype(c, d), l, nd, shape, &t, &g);
            check_reduce(r, c, t, g, -1, NULL, 0, 0, "all");
            if (!k) check_reduce(r, c, t, g, -1, NULL, 1, 1, "all");
            int lo = k ? (int)ph_range(r, -nd, nd - 1) : -1, hi = k ? lo + 1 : nd; /* every axis; a random one */
            for (int ax = lo; ax < hi; ax++) check_reduce(r, c, t, g, 1, &ax, ax & 1, (ax >> 1) & 1, "one axis");
            if (nd >= 2) {
                int two[2] = {(int)ph_range(r, 0, nd - 1), 0};
                two[1] = (two[0] + (int)ph_range(r, 1, nd - 1)) % nd;
                check_reduce(r, c, t, g, 2, two, (int)(ph_rand(r) & 1), (int)(ph_rand(r) & 1), "two axes");
                int none[1] = {0};
                if (k) check_reduce(r, c, t, g, 0, none, 0, 0, "no axes");
            }
            aug_tensor_free(t), aug_tensor_free(g);
        }
    int64_t e[2] = {0, 4};
    aug_tensor *t = aug_tensor_empty(2, e, AUG_FLOAT32, CPU), *g = aug_tensor_to(t, ph_dev(r));
    int ax0 = 0;
    check_reduce(r, c, t, g, 1, &ax0, 0, 0, "empty");
    check_reduce(r, c, t, g, -1, NULL, 0, 0, "empty, all axes");
    aug_tensor_free(t), aug_tensor_free(g);
}

/* Several chunks of 65536 (a float sum's order matters), over a strided view too. */
static void run_long(ph_run *r, const ph_case *c) {
    static const aug_dtype long_dt[] = {AUG_FLOAT32, AUG_FLOAT64, AUG_FLOAT16, AUG_UINT8, AUG_INT64};
    for (size_t k = 0; k < sizeof long_dt / sizeof long_dt[0]; k++) {
        int64_t shape[2] = {2, 150001};
        aug_tensor *t, *g;
        ph_pair(r, 2, shape, long_dt[k], &t, &g);
        int ax1 = 1;
        check_reduce(r, c, t, g, -1, NULL, 0, 0, "long, all axes");
        check_reduce(r, c, t, g, 1, &ax1, 0, 1, "long, axis 1");
        aug_index ix[2] = {{AUG_INDEX_SLICE, 0, 0, 0, 1, 0, 0}, {AUG_INDEX_SLICE, 0, 0, 0, 3, 0, 0}};
        aug_tensor *v = aug_tensor_index(t, 2, ix), *vg = aug_tensor_index(g, 2, ix);
        check_reduce(r, c, v, vg, 1, &ax1, 1, 0, "long strided");
        aug_tensor_free(v), aug_tensor_free(vg), aug_tensor_free(t), aug_tensor_free(g);
    }
}

static int is_float(aug_dtype t) { return aug_dtype_info(t)->kind == AUG_KIND_FLOAT; }

/* argmin / argmax: ties and NaNs in later chunks must not beat an earlier equal
 * value or NaN; long columns; +-0.0 found by the block search early and late. */
static void run_arg_long(ph_run *r, const ph_case *c) {
    static const aug_dtype dts[] = {AUG_FLOAT32, AUG_UINT8, AUG_INT64, AUG_FLOAT16};
    enum { N = 200003 };
    double *v = malloc(sizeof(double) * 2 * N);
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
        for (int64_t i = 0; i < 2 * N; i++) v[i] = (double)(i % 7);
        v[140000] = v[190000] = 100, v[150000] = v[199000] = is_float(dts[k]) ? -100 : 0;
        if (is_float(dts[k])) v[N + 70000] = v[N + 131073] = NAN;
        int64_t shape[2] = {2, N};
        aug_tensor *t, *g;
        from_values(r, v, 2, shape, dts[k], &t, &g);
        int ax1 = 1, ax0 = 0;
        check_reduce(r, c, t, g, -1, NULL, 0, 0, "long all");
        check_reduce(r, c, t, g, 1, &ax1, 0, 0, "long axis 1");
        check_reduce(r, c, t, g, 1, &ax0, 1, 0, "long axis 0");
        const int perm[2] = {1, 0};
        aug_tensor *tt = aug_tensor_permute(t, perm), *gt = aug_tensor_permute(g, perm);
        check_reduce(r, c, tt, gt, 1, &ax0, 0, 0, "long columns");
        aug_tensor_free(tt), aug_tensor_free(gt), aug_tensor_free(t), aug_tensor_free(g);
    }
    static const aug_dtype fdt[] = {AUG_FLOAT16, AUG_BFLOAT16, AUG_FLOAT32, AUG_FLOAT64};
    enum { M = 100000 };
    for (size_t k = 0; k < sizeof fdt / sizeof fdt[0]; k++) {
        for (int64_t i = 0; i < M; i++) v[i] = -1.0, v[M + i] = 1.0, v[2 * M + i] = i < 50000 ? -1.0 : 1.0;
        v[90001] = -0.0, v[95000] = 0.0, v[M + 5] = -0.0, v[M + 70] = 0.0, v[2 * M + 63] = v[2 * M + 64] = -0.0;
        int64_t shape[2] = {3, M};
        aug_tensor *t, *g;
        from_values(r, v, 2, shape, fdt[k], &t, &g);
        int ax1 = 1;
        check_reduce(r, c, t, g, 1, &ax1, 0, 0, "signed zeros");
        aug_tensor_free(t), aug_tensor_free(g);
    }
    free(v);
}

/* Short rows (the reduced innermost axis of 1 .. 129 elements) and columns (axis 0
 * of (N, C), one of them over two chunks), every op; the short ones again at launch
 * settings of 1 and 33 threads per block, 2 blocks, and at 1024 threads (capped). */
static void run_rows_cols(ph_run *r, const ph_case *c) {
    static const aug_dtype dts[] = {AUG_FLOAT32, AUG_FLOAT64, AUG_FLOAT16, AUG_BFLOAT16, AUG_UINT8, AUG_INT64, AUG_BOOL};
    static const int64_t shapes[][2] = {{300, 1}, {700, 3}, {257, 8}, {130, 9}, {99, 17}, {70, 64}, {40, 127},
                                        {33, 128}, {9, 129}, {300, 33}, {5, 100}, {1000, 16}};
    int blocks = 0, threads = 0;
    aug_get_launch(&blocks, &threads);
    static const int launch[][2] = {{-1, -1}, {2, 1}, {2, 33}, {0, 1024}};
    for (size_t l = 0; l < sizeof launch / sizeof launch[0]; l++) {
        /* the harness's setup restores the setting if a check fails */
        assert_int_equal(aug_set_launch(launch[l][0] < 0 ? blocks : launch[l][0], launch[l][0] < 0 ? threads : launch[l][1]),
                         AUG_OK);
        for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++)
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
                aug_tensor *t, *g;
                ph_pair(r, 2, shapes[s], dts[k], &t, &g);
                int ax0 = 0, ax1 = 1;
                check_reduce(r, c, t, g, 1, &ax1, 0, 0, "short rows");
                check_reduce(r, c, t, g, 1, &ax0, 0, 0, "columns");
                aug_tensor_free(t), aug_tensor_free(g);
            }
    }
    assert_int_equal(aug_set_launch(blocks, threads), AUG_OK);
    for (size_t k = 0; k < 3; k++) { /* columns over two chunks: (65600, 12) */
        const int64_t shape[2] = {65600, 12};
        aug_tensor *t, *g;
        ph_pair(r, 2, shape, dts[k], &t, &g);
        int ax0 = 0;
        check_reduce(r, c, t, g, 1, &ax0, 0, 1, "long columns");
        aug_tensor_free(t), aug_tensor_free(g);
    }
}

static const int EVERY_OP[] = {AUG_REDUCE_SUM,  AUG_REDUCE_MIN, AUG_REDUCE_MAX,    AUG_REDUCE_MEAN,  AUG_REDUCE_ALL,
                               AUG_REDUCE_ANY, AUG_REDUCE_ARGMIN, AUG_REDUCE_ARGMAX, -1};
static const int ARG_OPS[] = {AUG_REDUCE_ARGMIN, AUG_REDUCE_ARGMAX, -1};

#define REDUCE(name, op) \
    {"reduce/" name, AUG__FAMILY_REDUCE, op, PH_DTYPES_ALL, PH_LAYOUTS_VIEWS, 4, NULL, PH_BOUND_EXACT, run_reduce}
static const ph_case CASES[] = {
    REDUCE("sum", AUG_REDUCE_SUM),       REDUCE("min", AUG_REDUCE_MIN),       REDUCE("max", AUG_REDUCE_MAX),
    REDUCE("mean", AUG_REDUCE_MEAN),     REDUCE("all", AUG_REDUCE_ALL),       REDUCE("any", AUG_REDUCE_ANY),
    REDUCE("argmin", AUG_REDUCE_ARGMIN), REDUCE("argmax", AUG_REDUCE_ARGMAX),
    {"reduce/long", AUG__FAMILY_REDUCE, -1, 0, 0, 2, EVERY_OP, PH_BOUND_EXACT, run_long},
    {"reduce/rows+columns", AUG__FAMILY_REDUCE, -1, 0, 0, 2, EVERY_OP, PH_BOUND_EXACT, run_rows_cols},
    {"reduce/argmin+argmax/long", AUG__FAMILY_REDUCE, -1, 0, 0, 2, ARG_OPS, PH_BOUND_EXACT, run_arg_long},
};
const ph_case_list ph_cases_reduce = {CASES, sizeof CASES / sizeof CASES[0]};
