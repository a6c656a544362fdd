/* test_cuda_parity.c: the CUDA backend against the CPU backend, in the style of
 * ggml's test-backend-ops: every elementwise op on every dtype pairing (and
 * scalars), contiguous / strided / negative-stride / broadcast / 0-d / empty
 * operands, every reduction over every axis set, random fills, gemm, with
 * results compared byte for byte (math functions within the ulp bounds of
 * semantics §8); errors must match too. Launch settings, streams, events, the
 * stream-ordered allocator and copies between devices are checked as well.
 *
 * It runs on every CUDA device present: the emulated ones when the test runs
 * with AUG_CUDA_BACKEND=emu (ctest sets it), a real GPU otherwise. Without a
 * CUDA device the tests skip, unless AUG_REQUIRE_CUDA=1 (CI), which fails. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "aug/aug.h"

#include "helpers/th_cuda.h"

#define CUDA0 TH_CUDA0

static const aug_dtype ALL[13] = {AUG_BOOL,   AUG_INT8,    AUG_INT16,   AUG_INT32,  AUG_INT64,
                                  AUG_UINT8,  AUG_UINT16,  AUG_UINT32,  AUG_UINT64, AUG_FLOAT16,
                                  AUG_BFLOAT16, AUG_FLOAT32, AUG_FLOAT64};

static int is_math(aug_op op) {
    switch (op) {
#define X_(e, sym, arity, name, cls, fam, b, py) case AUG_OP_##e: return AUG__FAM_IS_MATH_##fam;
#define AUG__FAM_IS_MATH_ARITH 0
#define AUG__FAM_IS_MATH_DIV (op == AUG_OP_POW || op == AUG_OP_TRUEDIV || op == AUG_OP_FLOORDIV || op == AUG_OP_MOD)
#define AUG__FAM_IS_MATH_CMP 0
#define AUG__FAM_IS_MATH_BITWISE 0
#define AUG__FAM_IS_MATH_MATH 1
#define AUG__FAM_IS_MATH_WHERE 0
        AUG_OP_LIST(X_)
#undef X_
    default: return 0;
    }
}

/* ---- elementwise ----------------------------------------------------------------- */

/* The operand layouts. */
enum { L_CONTIG, L_STRIDED, L_NEGATIVE, L_BROADCAST, L_ZERO_D, L_EMPTY, L_COUNT };
static const char *const LAYOUT_NAMES[L_COUNT] = {"contiguous", "strided", "negative-stride", "broadcast", "0-d",
                                                  "empty"};

/* An operand of dtype t on the CPU in layout l with the output shape (3, 5)
 * (broadcast: (1, 5); empty: (0, 5); 0-d: ()). *base (to free) holds the storage. */
static aug_tensor *operand(aug_dtype t, int l, int k, aug_tensor **base) {
    int64_t shape[2] = {3, 5};
    *base = NULL;
    switch (l) {
    case L_CONTIG: {
        aug_tensor *x = aug_tensor_empty(2, shape, t, CPU);
        th_fill_pattern(x, (uint64_t)(k + 1));
        return x;
    }
    case L_STRIDED:
    case L_NEGATIVE: {
        int64_t big[2] = {6, 10};
        *base = aug_tensor_empty(2, big, t, CPU);
        th_fill_pattern(*base, (uint64_t)(k + 7));
        aug_index ix[2];
        memset(ix, 0, sizeof ix);
        ix[0].kind = ix[1].kind = AUG_INDEX_SLICE;
        ix[0].step = l == L_NEGATIVE ? -2 : 2;
        ix[1].step = l == L_NEGATIVE ? -2 : 2;
        return aug_tensor_index(*base, 2, ix);
    }
    case L_BROADCAST: {
        int64_t one[2] = {1, 5};
        aug_tensor *x = aug_tensor_empty(2, one, t, CPU);
        th_fill_pattern(x, (uint64_t)(k + 3));
        return x;
    }
    case L_ZERO_D: {
        aug_tensor *x = aug_tensor_empty(0, NULL, t, CPU);
        th_fill_pattern(x, (uint64_t)(k + 5));
        return x;
    }
    default: {
        int64_t e[2] = {0, 5};
        return aug_tensor_empty(2, e, t, CPU);
    }
    }
}

/* The same op on the CPU and on dev: same status, same message, same bytes. */
static void check_op(aug_op op, int nin, aug_tensor *const *cpu_in, aug_device dev, const char *what) {
    aug_operand in_c[3], in_g[3];
    aug_tensor *g[3] = {NULL, NULL, NULL};
    for (int i = 0; i < nin; i++) {
        in_c[i] = aug_operand_tensor(cpu_in[i]);
        g[i] = aug_tensor_to(cpu_in[i], dev);
        assert_non_null(g[i]);
        in_g[i] = aug_operand_tensor(g[i]);
    }
    aug_tensor *rc = NULL, *rg = NULL;
    aug_clear_error();
    aug_status sc = aug_elementwise(NULL, op, nin, in_c, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, &rc);
    char msg_c[1024];
    snprintf(msg_c, sizeof msg_c, "%s", aug_last_error());
    aug_clear_error();
    aug_status sg = aug_elementwise(NULL, op, nin, in_g, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, &rg);
    if (sc != sg) fail_msg("%s: cpu status %d (%s), cuda %d (%s)", what, sc, msg_c, sg, aug_last_error());
    if (sc != AUG_OK) {
        assert_string_equal(msg_c, aug_last_error());
    } else {
        assert_int_equal(rc->dtype, rg->dtype);
        assert_int_equal(rc->ndim, rg->ndim);
        assert_true(rg->device.type == dev.type && rg->device.id == dev.id);
        size_t na, nb;
        unsigned char *a = th_bytes_of(rc, &na), *b = th_bytes_of(rg, &nb);
        assert_int_equal(na, nb);
        th_compare(what, rc->dtype, a, b, na, is_math(op));
        free(a);
        free(b);
    }
    aug_tensor_free(rc);
    aug_tensor_free(rg);
    for (int i = 0; i < nin; i++) aug_tensor_free(g[i]);
}

static void free3(aug_tensor **t, aug_tensor **base, int n) {
    for (int i = 0; i < n; i++) {
        aug_tensor_free(t[i]);
        aug_tensor_free(base[i]);
    }
}

/* Every op on every dtype (pairs for binary ops), contiguous operands. */
static void test_ops_dtypes(void **state) {
    (void)state;
    NEED_CUDA();
    for (int op = 0; op < AUG_NUM_OPS; op++) {
        int nin = aug_op_arity((aug_op)op);
        for (int a = 0; a < 13; a++)
            for (int b = 0; b < (nin >= 2 ? 13 : 1); b++) {
                aug_tensor *in[3], *base[3];
                aug_dtype dt[3] = {ALL[a], ALL[b], ALL[(a + b) % 13]};
                if (nin == 3 && op == AUG_OP_CLAMP) dt[2] = ALL[b];
                for (int i = 0; i < nin; i++) in[i] = operand(dt[i], L_CONTIG, i, &base[i]);
                char what[128];
                snprintf(what, sizeof what, "%s(%s, %s)", aug_op_name((aug_op)op), aug_dtype_name(dt[0]),
                         nin > 1 ? aug_dtype_name(dt[1]) : "-");
                check_op((aug_op)op, nin, in, CUDA0, what);
                free3(in, base, nin);
            }
    }
}

/* Every layout pairing on a few dtype pairs (same dtype: the direct kernels;
 * mixed: the conversions into ctypes). */
static void test_ops_layouts(void **state) {
    (void)state;
    NEED_CUDA();
    static const aug_op ops[] = {AUG_OP_ADD, AUG_OP_MUL, AUG_OP_FLOORDIV, AUG_OP_LT, AUG_OP_AND, AUG_OP_SQRT,
                                 AUG_OP_NEG, AUG_OP_CLAMP, AUG_OP_FMA, AUG_OP_COPY, AUG_OP_POW, AUG_OP_LSHIFT};
    static const aug_dtype pairs[][2] = {{AUG_UINT8, AUG_UINT8},    {AUG_FLOAT32, AUG_FLOAT32},
                                         {AUG_INT64, AUG_UINT64},   {AUG_FLOAT16, AUG_INT32},
                                         {AUG_BOOL, AUG_INT8},      {AUG_FLOAT64, AUG_BFLOAT16}};
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        int nin = aug_op_arity(ops[o]);
        for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++)
            for (int la = 0; la < L_COUNT; la++)
                for (int lb = 0; lb < (nin > 1 ? L_COUNT : 1); lb++) {
                    aug_tensor *in[3], *base[3];
                    int lay[3] = {la, lb, (la + lb) % L_COUNT};
                    aug_dtype dt[3] = {pairs[p][0], pairs[p][1], pairs[p][1]};
                    for (int i = 0; i < nin; i++) in[i] = operand(dt[i], lay[i], i, &base[i]);
                    char what[160];
                    snprintf(what, sizeof what, "%s(%s %s, %s %s)", aug_op_name(ops[o]), LAYOUT_NAMES[la],
                             aug_dtype_name(dt[0]), nin > 1 ? LAYOUT_NAMES[lb] : "", nin > 1 ? aug_dtype_name(dt[1]) : "");
                    check_op(ops[o], nin, in, CUDA0, what);
                    free3(in, base, nin);
                }
    }
}

/* Weak Python scalars and typed constants next to tensors of every dtype. */
static void test_ops_scalars(void **state) {
    (void)state;
    NEED_CUDA();
    static const aug_op ops[] = {AUG_OP_ADD, AUG_OP_SUB, AUG_OP_MUL, AUG_OP_TRUEDIV, AUG_OP_FLOORDIV, AUG_OP_MOD,
                                 AUG_OP_POW, AUG_OP_EQ, AUG_OP_LT, AUG_OP_AND, AUG_OP_RSHIFT, AUG_OP_MAX};
    aug_scalar sc[5];
    sc[0] = aug_scalar_int(300);
    sc[1] = aug_scalar_int(-7);
    sc[2] = aug_scalar_float(2.5);
    sc[3] = aug_scalar_uint(UINT64_MAX);
    assert_int_equal(aug_scalar_typed_int(3, AUG_INT16, &sc[4]), AUG_OK);
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (int d = 0; d < 13; d++)
            for (int k = 0; k < 5; k++)
                for (int rev = 0; rev < 2; rev++) {
                    aug_tensor *base, *t = operand(ALL[d], L_STRIDED, 0, &base);
                    aug_tensor *g = aug_tensor_to(t, CUDA0);
                    aug_operand ic[2], ig[2];
                    ic[rev] = aug_operand_tensor(t);
                    ic[!rev] = aug_operand_scalar(sc[k]);
                    ig[rev] = aug_operand_tensor(g);
                    ig[!rev] = aug_operand_scalar(sc[k]);
                    aug_tensor *rc = NULL, *rg = NULL;
                    aug_status a = aug_elementwise(NULL, ops[o], 2, ic, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, &rc);
                    aug_status b = aug_elementwise(NULL, ops[o], 2, ig, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, &rg);
                    assert_int_equal(a, b);
                    if (a == AUG_OK) {
                        size_t na, nb;
                        unsigned char *x = th_bytes_of(rc, &na), *y = th_bytes_of(rg, &nb);
                        char what[128];
                        snprintf(what, sizeof what, "%s with scalar %d on %s", aug_op_name(ops[o]), k,
                                 aug_dtype_name(ALL[d]));
                        th_compare(what, rc->dtype, x, y, na, is_math(ops[o]));
                        free(x);
                        free(y);
                    }
                    aug_tensor_free(rc);
                    aug_tensor_free(rg);
                    aug_tensor_free(g);
                    aug_tensor_free(t);
                    aug_tensor_free(base);
                }
}

/* Casts between every pair, fills, and copies into strided and overlapping views. */
static void test_casts_fills(void **state) {
    (void)state;
    NEED_CUDA();
    for (int a = 0; a < 13; a++)
        for (int b = 0; b < 13; b++)
            for (int l = 0; l < L_COUNT; l++) {
                aug_tensor *base, *t = operand(ALL[a], l, 0, &base);
                aug_tensor *g = aug_tensor_to(t, CUDA0);
                aug_tensor *rc = NULL, *rg = NULL;
                assert_int_equal(aug_cast(t, ALL[b], &rc), AUG_OK);
                assert_int_equal(aug_cast(g, ALL[b], &rg), AUG_OK);
                size_t na, nb;
                unsigned char *x = th_bytes_of(rc, &na), *y = th_bytes_of(rg, &nb);
                th_compare("cast", ALL[b], x, y, na, 0);
                free(x);
                free(y);
                aug_scalar v = aug_scalar_float(-1234.5);
                assert_int_equal(aug_fill(rc, &v), AUG_OK);
                assert_int_equal(aug_fill(rg, &v), AUG_OK);
                x = th_bytes_of(rc, &na), y = th_bytes_of(rg, &nb);
                th_compare("fill", ALL[b], x, y, na, 0);
                free(x);
                free(y);
                aug_tensor_free(rc);
                aug_tensor_free(rg);
                aug_tensor_free(g);
                aug_tensor_free(t);
                aug_tensor_free(base);
            }
    /* an overlapping copy t[1:] = t[:-1] reads the old values on both */
    int64_t n = 1000;
    aug_tensor *c = aug_tensor_empty(1, &n, AUG_INT32, CPU);
    th_fill_pattern(c, 11);
    aug_tensor *g = aug_tensor_to(c, CUDA0);
    aug_index lo = {AUG_INDEX_SLICE, 0, 0, -1, 1, 0, 1}, hi = {AUG_INDEX_SLICE, 0, 1, 0, 1, 1, 0};
    aug_tensor *cs = aug_tensor_index(c, 1, &lo), *cd = aug_tensor_index(c, 1, &hi);
    aug_tensor *gs = aug_tensor_index(g, 1, &lo), *gd = aug_tensor_index(g, 1, &hi);
    assert_int_equal(aug_copy(cs, cd), AUG_OK);
    assert_int_equal(aug_copy(gs, gd), AUG_OK);
    size_t na, nb;
    unsigned char *x = th_bytes_of(c, &na), *y = th_bytes_of(g, &nb);
    assert_memory_equal(x, y, na);
    free(x);
    free(y);
    aug_tensor_free(cs), aug_tensor_free(cd), aug_tensor_free(gs), aug_tensor_free(gd);
    aug_tensor_free(c), aug_tensor_free(g);
}

/* ---- reductions --------------------------------------------------------------------- */

static void check_reduce(aug_tensor *t, int naxes, const int *axes, int keepdim, int upcast, const char *what) {
    aug_tensor *g = aug_tensor_to(t, CUDA0);
    for (int op = AUG_REDUCE_SUM; op <= AUG_REDUCE_ARGMAX; op++) {
        aug_tensor *rc = NULL, *rg = NULL;
        aug_clear_error();
        aug_status a = aug_reduce((aug_reduce_op)op, t, naxes, axes, keepdim, upcast, &rc);
        aug_status b = aug_reduce((aug_reduce_op)op, g, naxes, axes, keepdim, upcast, &rg);
        if (a != b) fail_msg("%s op %d: cpu %d cuda %d (%s)", what, op, a, b, aug_last_error());
        if (a == AUG_OK) {
            size_t na, nb;
            unsigned char *x = th_bytes_of(rc, &na), *y = th_bytes_of(rg, &nb);
            assert_int_equal(na, nb);
            char w[200];
            snprintf(w, sizeof w, "%s reduce op %d", what, op);
            th_compare(w, rc->dtype, x, y, na, 0); /* the same summation order: identical */
            free(x);
            free(y);
        }
        aug_tensor_free(rc);
        aug_tensor_free(rg);
    }
    aug_tensor_free(g);
}

static void test_reductions(void **state) {
    (void)state;
    NEED_CUDA();
    static const int axes_sets[][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {1, 2, 0}, {2, 0, 2}, {2, 1, 2}};
    for (int d = 0; d < 13; d++) {
        int64_t shape[3] = {3, 41, 7};
        aug_tensor *t = aug_tensor_empty(3, shape, ALL[d], CPU);
        th_fill_pattern(t, (uint64_t)d + 100);
        char what[64];
        snprintf(what, sizeof what, "%s (3, 41, 7)", aug_dtype_name(ALL[d]));
        check_reduce(t, -1, NULL, 0, 0, what);
        check_reduce(t, -1, NULL, 0, 1, what);
        for (size_t k = 0; k < sizeof axes_sets / sizeof axes_sets[0]; k++)
            check_reduce(t, axes_sets[k][0], &axes_sets[k][1], (int)(k & 1), (int)(k >> 1 & 1), what);
        aug_tensor_free(t);
    }
    /* long reductions: several chunks of 65536 (a float sum's order matters),
     * over a strided view, and an empty one */
    static const aug_dtype long_dt[] = {AUG_FLOAT32, AUG_FLOAT64, AUG_FLOAT16, AUG_UINT8, AUG_INT64};
    for (size_t k = 0; k < sizeof long_dt / sizeof long_dt[0]; k++) {
        int64_t shape[2] = {2, 150001};
        aug_tensor *t = aug_tensor_empty(2, shape, long_dt[k], CPU);
        th_fill_pattern(t, 77);
        int ax1 = 1;
        check_reduce(t, -1, NULL, 0, 0, "long, all axes");
        check_reduce(t, 1, &ax1, 0, 1, "long, axis 1");
        aug_index ix[2] = {{AUG_INDEX_SLICE, 0, 0, 0, 1, 0, 0}, {AUG_INDEX_SLICE, 0, 0, 0, 3, 0, 0}};
        aug_tensor *v = aug_tensor_index(t, 2, ix);
        check_reduce(v, 1, &ax1, 1, 0, "long strided");
        aug_tensor_free(v);
        aug_tensor_free(t);
    }
    int64_t e[2] = {0, 4};
    aug_tensor *t = aug_tensor_empty(2, e, AUG_FLOAT32, CPU);
    int ax0 = 0;
    check_reduce(t, 1, &ax0, 0, 0, "empty");
    aug_tensor_free(t);
}

/* ---- random, gemm -------------------------------------------------------------------- */

static void test_random(void **state) {
    (void)state;
    NEED_CUDA();
    uint64_t seed = 12345;
    for (int d = 0; d < 13; d++)
        for (int kind = 0; kind < 2; kind++) {
            aug_rng *rc = aug_rng_new(CPU, &seed), *rg = aug_rng_new(CUDA0, &seed);
            assert_non_null(rg);
            int64_t shape[2] = {37, 129};
            aug_tensor *c = aug_tensor_empty(2, shape, ALL[d], CPU), *g = aug_tensor_empty(2, shape, ALL[d], CUDA0);
            aug_index ix[2] = {{AUG_INDEX_SLICE, 0, 0, 0, 2, 0, 0}, {AUG_INDEX_SLICE, 0, 0, 0, -3, 0, 0}};
            aug_tensor *cv = aug_tensor_index(c, 2, ix), *gv = aug_tensor_index(g, 2, ix);
            for (int call = 0; call < 2; call++) {
                aug_tensor *tc = call ? cv : c, *tg = call ? gv : g;
                if (kind == 0) {
                    assert_int_equal(aug_rng_uniform(rc, tc, -100.5, 250), AUG_OK);
                    assert_int_equal(aug_rng_uniform(rg, tg, -100.5, 250), AUG_OK);
                } else {
                    assert_int_equal(aug_rng_gaussian(rc, tc, 3, 40), AUG_OK);
                    assert_int_equal(aug_rng_gaussian(rg, tg, 3, 40), AUG_OK);
                }
                size_t na, nb;
                unsigned char *x = th_bytes_of(tc, &na), *y = th_bytes_of(tg, &nb);
                /* uniform: identical; float64-based Gaussians use the platform's log/cos */
                th_compare(kind ? "gaussian" : "uniform", ALL[d], x, y, na, kind);
                free(x);
                free(y);
            }
            aug_tensor_free(cv), aug_tensor_free(gv), aug_tensor_free(c), aug_tensor_free(g);
            aug_rng_free(rc);
            aug_rng_free(rg);
        }
}

static void test_gemm(void **state) {
    (void)state;
    NEED_CUDA();
    for (int f64 = 0; f64 < 2; f64++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++) {
                aug_dtype dt = f64 ? AUG_FLOAT64 : AUG_FLOAT32;
                int64_t sa[2] = {ta ? 19 : 13, ta ? 13 : 19}, sb[2] = {tb ? 7 : 19, tb ? 19 : 7};
                aug_tensor *a = aug_tensor_empty(2, sa, dt, CPU), *b = aug_tensor_empty(2, sb, dt, CPU);
                aug_rng *rng = aug_rng_new(CPU, &(uint64_t){42});
                assert_int_equal(aug_rng_uniform(rng, a, -4, 4), AUG_OK);
                assert_int_equal(aug_rng_uniform(rng, b, -4, 4), AUG_OK);
                aug_rng_free(rng);
                int perm[2] = {1, 0};
                aug_tensor *ca = ta ? aug_tensor_permute(a, perm) : aug_tensor_view(a);
                aug_tensor *cb = tb ? aug_tensor_permute(b, perm) : aug_tensor_view(b);
                aug_tensor *ga = aug_tensor_to(ca, CUDA0), *gb = aug_tensor_to(cb, CUDA0);
                if (ta) { /* the transposed view on the device too */
                    aug_tensor *t = aug_tensor_permute(ga, perm), *u = aug_tensor_contiguous(t);
                    aug_tensor_free(ga), aug_tensor_free(t);
                    ga = aug_tensor_permute(u, perm);
                    aug_tensor_free(u);
                }
                aug_tensor *rc = NULL, *rg = NULL;
                assert_int_equal(aug_gemm(ca, cb, &rc, 1.5, 0.0), AUG_OK);
                assert_int_equal(aug_gemm(ga, gb, &rg, 1.5, 0.0), AUG_OK);
                aug_tensor *back = aug_tensor_to(rg, CPU);
                aug_tensor *diff = NULL;
                assert_int_equal(aug_binary(AUG_OP_SUB, rc, back, &diff), AUG_OK);
                aug_tensor *mx = NULL;
                aug_tensor *ad = NULL;
                assert_int_equal(aug_unary(AUG_OP_ABS, diff, &ad), AUG_OK);
                assert_int_equal(aug_reduce(AUG_REDUCE_MAX, ad, -1, NULL, 0, 1, &mx), AUG_OK);
                double m = f64 ? *(double *)aug_tensor_ptr(mx) : *(float *)aug_tensor_ptr(mx);
                assert_true(m <= (f64 ? 1e-9 : 1e-3));
                aug_tensor_free(mx), aug_tensor_free(ad), aug_tensor_free(diff), aug_tensor_free(back);
                aug_tensor_free(rc), aug_tensor_free(rg), aug_tensor_free(ga), aug_tensor_free(gb);
                aug_tensor_free(ca), aug_tensor_free(cb), aug_tensor_free(a), aug_tensor_free(b);
            }
}

/* ---- launch settings, streams, memory, devices ------------------------------------------- */

static void test_launch_settings(void **state) {
    (void)state;
    NEED_CUDA();
    int64_t n = 100003;
    aug_tensor *t = aug_tensor_empty(1, &n, AUG_UINT8, CPU);
    th_fill_pattern(t, 3);
    aug_tensor *g = aug_tensor_to(t, CUDA0), *ref = NULL;
    assert_int_equal(aug_binary_scalar(AUG_OP_ADD, t, aug_scalar_int(77), &ref), AUG_OK);
    size_t nr;
    unsigned char *want = th_bytes_of(ref, &nr);
    static const int cfg[][2] = {{0, 0}, {1, 1}, {1, 32}, {8, 512}, {3, 1024}, {100, 64}};
    for (size_t k = 0; k < sizeof cfg / sizeof cfg[0]; k++) {
        assert_int_equal(aug_set_launch(cfg[k][0], cfg[k][1]), AUG_OK);
        aug_tensor *r = NULL;
        assert_int_equal(aug_binary_scalar(AUG_OP_ADD, g, aug_scalar_int(77), &r), AUG_OK);
        size_t nb;
        unsigned char *got = th_bytes_of(r, &nb);
        assert_memory_equal(want, got, nr);
        free(got);
        aug_tensor_free(r);
        aug_rng *rg = aug_rng_new(CUDA0, &(uint64_t){9});
        aug_tensor *u = aug_tensor_empty(1, &n, AUG_FLOAT32, CUDA0);
        assert_int_equal(aug_rng_uniform(rg, u, 0, 1), AUG_OK);
        aug_tensor *s = NULL;
        assert_int_equal(aug_reduce(AUG_REDUCE_SUM, u, -1, NULL, 0, 1, &s), AUG_OK);
        static double first = -1;
        aug_tensor *sc = aug_tensor_to(s, CPU);
        double v = *(double *)aug_tensor_ptr(sc);
        if (k == 0) first = v;
        assert_true(v == first); /* the same draws and the same summation order */
        aug_tensor_free(sc), aug_tensor_free(s), aug_tensor_free(u);
        aug_rng_free(rg);
    }
    /* a configuration every GPU refuses: a clear error, nothing run */
    assert_int_equal(aug_set_launch(0, 4096), AUG_OK);
    aug_tensor *r = NULL;
    aug_clear_error();
    assert_int_equal(aug_binary_scalar(AUG_OP_ADD, g, aug_scalar_int(1), &r), AUG_ERR_CUDA);
    assert_non_null(strstr(aug_last_error(), "refused the launch"));
    assert_null(r);
    assert_int_equal(aug_set_launch(-1, 0), AUG_ERR_VALUE);
    assert_int_equal(aug_set_launch(0, 0), AUG_OK);
    free(want);
    aug_tensor_free(ref), aug_tensor_free(g), aug_tensor_free(t);
}

static void test_streams_events(void **state) {
    (void)state;
    NEED_CUDA();
    int64_t n = 1 << 18;
    aug_stream *s1 = aug_stream_new(CUDA0, 0), *s2 = aug_stream_new(CUDA0, 0);
    assert_non_null(s1);
    assert_non_null(s2);
    aug_event *ev = aug_event_new(CUDA0), *t0 = aug_event_new(CUDA0);
    aug_tensor *a = aug_tensor_zeros(1, &n, AUG_INT32, CUDA0); /* on the default stream */
    assert_int_equal(aug_synchronize(CUDA0), AUG_OK);
    /* on s1: a += 1, 50 times; on s2 after the event: b = a * 2 */
    assert_int_equal(aug_set_current_stream(s1), AUG_OK);
    assert_int_equal(aug_event_record(t0, NULL), AUG_OK);
    for (int i = 0; i < 50; i++) assert_int_equal(aug_binary_scalar(AUG_OP_ADD, a, aug_scalar_int(1), &a), AUG_OK);
    assert_int_equal(aug_event_record(ev, s1), AUG_OK);
    assert_int_equal(aug_set_current_stream(s2), AUG_OK);
    assert_int_equal(aug_stream_wait_event(s2, ev), AUG_OK);
    aug_tensor *b = NULL;
    assert_int_equal(aug_binary_scalar(AUG_OP_MUL, a, aug_scalar_int(2), &b), AUG_OK);
    assert_int_equal(aug_stream_synchronize(s2), AUG_OK);
    assert_int_equal(aug_stream_query(s2), 1);
    assert_int_equal(aug_event_query(ev), 1);
    float ms = -1;
    assert_int_equal(aug_event_elapsed_ms(t0, ev, &ms), AUG_OK);
    assert_true(ms >= 0);
    aug_tensor *bc = aug_tensor_to(b, CPU);
    const int32_t *p = aug_tensor_ptr(bc);
    for (int64_t i = 0; i < n; i += 997) assert_int_equal(p[i], 100);
    assert_int_equal(aug_set_current_stream(aug_default_stream(CUDA0)), AUG_OK);
    aug_tensor_free(bc), aug_tensor_free(b), aug_tensor_free(a);
    aug_event_free(ev), aug_event_free(t0);
    aug_stream_free(s1), aug_stream_free(s2);
}

/* A block freed while a kernel on another stream still reads it is not handed
 * to that other stream's allocations until the work is done. */
static void test_allocator_reuse(void **state) {
    (void)state;
    NEED_CUDA();
    int64_t n = 1 << 16;
    aug_stream *s1 = aug_stream_new(CUDA0, 0), *s2 = aug_stream_new(CUDA0, 0);
    aug_tensor *src = aug_tensor_empty(1, &n, AUG_FLOAT32, CUDA0);
    aug_scalar one = aug_scalar_float(1.0);
    assert_int_equal(aug_fill(src, &one), AUG_OK);
    assert_int_equal(aug_synchronize(CUDA0), AUG_OK);
    assert_int_equal(aug_set_current_stream(s1), AUG_OK);
    aug_tensor *tmp = NULL;
    assert_int_equal(aug_binary_scalar(AUG_OP_ADD, src, aug_scalar_float(1.0), &tmp), AUG_OK); /* tmp = 2 */
    aug_tensor *acc = NULL;
    assert_int_equal(aug_unary(AUG_OP_POS, tmp, &acc), AUG_OK);
    for (int i = 0; i < 20; i++) /* keep s1 busy reading tmp */
        assert_int_equal(aug_binary(AUG_OP_ADD, acc, tmp, &acc), AUG_OK);
    aug_tensor_free(tmp); /* freed on s1 while s1 still has work reading it */
    assert_int_equal(aug_set_current_stream(s2), AUG_OK);
    aug_tensor *other = aug_tensor_empty(1, &n, AUG_FLOAT32, CUDA0);
    aug_scalar big = aug_scalar_float(1000.0);
    assert_int_equal(aug_fill(other, &big), AUG_OK);
    assert_int_equal(aug_synchronize(CUDA0), AUG_OK);
    aug_tensor *c = aug_tensor_to(acc, CPU);
    const float *p = aug_tensor_ptr(c);
    for (int64_t i = 0; i < n; i += 511) assert_true(p[i] == 42.0f);
    assert_int_equal(aug_set_current_stream(aug_default_stream(CUDA0)), AUG_OK);
    aug_tensor_free(c), aug_tensor_free(other), aug_tensor_free(acc), aug_tensor_free(src);
    aug_stream_free(s1), aug_stream_free(s2);
    size_t used, fr, total;
    assert_int_equal(aug_device_meminfo(CUDA0, &used, &fr, &total), AUG_OK);
    assert_true(total > 0 && used <= total);
    assert_int_equal(aug_device_release(CUDA0), AUG_OK);
}

static void test_devices_and_copies(void **state) {
    (void)state;
    NEED_CUDA();
    aug_device_props p;
    assert_int_equal(aug_device_properties(CUDA0, &p), AUG_OK);
    assert_true(p.multiProcessorCount > 0 && p.numCudaCores == p.multiProcessorCount * p.coresPerMultiprocessor);
    assert_true(p.maxThreadsPerBlock >= 1024);
    int64_t shape[2] = {4, 6};
    aug_tensor *c = aug_tensor_empty(2, shape, AUG_INT16, CPU);
    th_fill_pattern(c, 5);
    int ndev = aug_device_count(AUG_DEVICE_CUDA);
    aug_device last = {AUG_DEVICE_CUDA, ndev - 1};
    aug_tensor *g0 = aug_tensor_to(c, CUDA0), *g1 = aug_tensor_to(g0, last), *back = aug_tensor_to(g1, CPU);
    assert_memory_equal(aug_tensor_ptr(c), aug_tensor_ptr(back), 48);
    /* aug_copy across devices, into a strided view */
    int perm[2] = {1, 0};
    aug_tensor *z = aug_tensor_zeros(2, (int64_t[]){6, 4}, AUG_INT16, last);
    aug_tensor *zt = aug_tensor_permute(z, perm);
    assert_int_equal(aug_copy(c, zt), AUG_OK);
    aug_tensor *zb = aug_tensor_to(zt, CPU);
    assert_memory_equal(aug_tensor_ptr(c), aug_tensor_ptr(zb), 48);
    /* mixing devices in one op: a ValueError naming both */
    aug_tensor *r = NULL;
    aug_clear_error();
    assert_int_equal(aug_binary(AUG_OP_ADD, c, g0, &r), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_add: operands are on different devices (cpu and cuda:0)");
    /* a device that does not exist */
    aug_device bad = {AUG_DEVICE_CUDA, ndev};
    assert_null(aug_tensor_to(c, bad));
    assert_int_equal(aug_last_status(), AUG_ERR_CUDA);
    aug_tensor_free(zb), aug_tensor_free(zt), aug_tensor_free(z);
    aug_tensor_free(back), aug_tensor_free(g1), aug_tensor_free(g0), aug_tensor_free(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ops_dtypes),      cmocka_unit_test(test_ops_layouts),
        cmocka_unit_test(test_ops_scalars),     cmocka_unit_test(test_casts_fills),
        cmocka_unit_test(test_reductions),      cmocka_unit_test(test_random),
        /* the families once more in blocks of 1024 threads: every kernel must take
         * them, which its registers decide (the emulation refuses a block of more than
         * 64 Ki registers, counted from the fatbinary: tests/cuda_emu/kernel_registers.txt) */
        AT_1024(test_ops_dtypes),               AT_1024(test_casts_fills),
        AT_1024(test_reductions),               AT_1024(test_random),
        cmocka_unit_test(test_gemm),            cmocka_unit_test(test_launch_settings),
        cmocka_unit_test(test_streams_events),  cmocka_unit_test(test_allocator_reuse),
        cmocka_unit_test(test_devices_and_copies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
