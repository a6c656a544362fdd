/* test_ops_arith.c: + - * unary + - abs, min, max, clamp, the augpy functional
 * forms and fma through the public API (semantics §5-§9), against references computed
 * here: exact __int128 arithmetic saturated by the helpers' reference
 * saturate_cast for integer results; for float results the op evaluated in C in
 * the compute precision (float for results up to float32 when every integral
 * operand fits float32 exactly, double otherwise) and rounded to the result dtype
 * as IEEE does (+-inf beyond its range; semantics §7).
 * Every dtype pair, contiguous / broadcast / reversed / strided operands, 0-d and
 * empty tensors, weak scalars and typed constants, out= (wrong shape, aliasing,
 * other dtype), error texts, and 1 vs 2 threads. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "aug/aug.h"
#include "helpers/th_ops.h"

/* ---- reference ------------------------------------------------------------------------ */

static int uses_double(int nin, const aug_dtype *d, aug_dtype r) {
    if (r == AUG_FLOAT64) return 1;
    for (int i = 0; i < nin; i++)
        if (th_is_integral(d[i]) && th_value_bits(d[i]) > 24) return 1;
    return 0;
}

static th_i128 sat_mul_i128(th_i128 a, th_i128 b) {
    th_i128 r;
    if (!__builtin_mul_overflow(a, b, &r)) return r;
    th_i128 mx = (th_i128)(((unsigned __int128)1 << 127) - 1);
    return ((a < 0) != (b < 0)) ? -mx - 1 : mx;
}

static double fop(aug_op op, int nin, const double *x) {
    int nan = 0;
    for (int i = 0; i < nin; i++) nan = nan || isnan(x[i]);
    switch (op) {
    case AUG_OP_POS: return x[0];
    case AUG_OP_NEG: return -x[0];
    case AUG_OP_ABS: return fabs(x[0]);
    case AUG_OP_ADD: return x[0] + x[1];
    case AUG_OP_SUB: return x[0] - x[1];
    case AUG_OP_MUL: return x[0] * x[1];
    case AUG_OP_MIN: return nan ? NAN : (x[1] < x[0] ? x[1] : x[0]);
    case AUG_OP_MAX: return nan ? NAN : (x[1] > x[0] ? x[1] : x[0]);
    default: { /* CLAMP */
        if (nan) return NAN;
        double m = x[1] > x[0] ? x[1] : x[0];
        return x[2] < m ? x[2] : m;
    }
    }
}

/* op on exact values x[] whose dtypes are d[], result dtype r. */
static th_num ref_arith(aug_op op, int nin, const th_num *x, const aug_dtype *d, aug_dtype r) {
    if (th_is_float(r)) {
        int dbl = uses_double(nin, d, r);
        double v[3] = {0, 0, 0};
        for (int i = 0; i < nin; i++) {
            long double e = th_num_ld(x[i]);
            v[i] = dbl ? (double)e : (double)(float)e;
        }
        double res = fop(op, nin, v);
        if (!dbl) res = (double)(float)res; /* float arithmetic: one rounding to float */
        return th_ieee(th_f(res), r);        /* IEEE to the result dtype: +-inf beyond it */
    }
    th_i128 a = x[0].i, b = nin > 1 ? x[1].i : 0, c = nin > 2 ? x[2].i : 0, v;
    switch (op) {
    case AUG_OP_POS: v = a; break;
    case AUG_OP_NEG: v = -a; break;
    case AUG_OP_ABS: v = a < 0 ? -a : a; break;
    case AUG_OP_ADD: v = a + b; break;
    case AUG_OP_SUB: v = a - b; break;
    case AUG_OP_MUL: v = sat_mul_i128(a, b); break;
    case AUG_OP_MIN: v = b < a ? b : a; break;
    case AUG_OP_MAX: v = b > a ? b : a; break;
    default: v = b > a ? b : a; v = c < v ? c : v; break;
    }
    return th_sat(th_i(v), r);
}

static int check_value(const char *what, th_num want, th_num got, int64_t k) {
    if (th_num_eq(want, got)) return 1;
    char a[64], b[64];
    print_error("%s: element %lld: got %s want %s\n", what, (long long)k, th_num_str(got, a, 64), th_num_str(want, b, 64));
    return 0;
}

/* ---- every dtype pair (broadcast, contiguous, reversed, strided: th_check_pairs) ---- */

#define NV 19

static th_num ref_pair(aug_op op, th_num a, th_num b, aug_dtype da, aug_dtype db, aug_dtype r) {
    th_num x[2] = {a, b};
    aug_dtype d[2] = {da, db};
    return ref_arith(op, 2, x, d, r);
}

static void check_pair(aug_op op, aug_dtype da, aug_dtype db, uint64_t *seed) {
    th_num va[NV], vb[NV];
    th_values(da, va, NV, seed);
    th_values(db, vb, NV, seed);
    assert_true(th_check_pairs(op, da, va, db, vb, NV, th_promote(da, db), ref_pair));
}

static void test_binary_all_pairs(void **state) {
    (void)state;
    const aug_op ops[] = {AUG_OP_ADD, AUG_OP_SUB, AUG_OP_MUL, AUG_OP_MIN, AUG_OP_MAX};
    uint64_t seed = 12345;
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (int i = 0; i < TH_NUM_DTYPES; i++)
            for (int j = 0; j < TH_NUM_DTYPES; j++) {
                aug_dtype da = TH_DTYPES[i], db = TH_DTYPES[j];
                if (da == AUG_BOOL && db == AUG_BOOL && ops[o] != AUG_OP_MUL) continue; /* test_promote */
                check_pair(ops[o], da, db, &seed);
            }
}

static void test_unary(void **state) {
    (void)state;
    const aug_op ops[] = {AUG_OP_POS, AUG_OP_NEG, AUG_OP_ABS};
    uint64_t seed = 777;
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (int i = 0; i < TH_NUM_DTYPES; i++) {
            aug_dtype d = TH_DTYPES[i];
            if (d == AUG_BOOL) continue; /* rejected: test_promote */
            int64_t n = 101;
            th_num v[101];
            th_values(d, v, (int)n, &seed);
            aug_tensor *t = th_tensor(1, &n, d, v), *rev = th_reversed(t), *str = th_slice1(t, 0, 2);
            aug_tensor *o1 = NULL, *o2 = NULL, *o3 = NULL;
            assert_int_equal(aug_unary(ops[o], t, &o1), AUG_OK);
            assert_int_equal(aug_unary(ops[o], rev, &o2), AUG_OK);
            assert_int_equal(aug_unary(ops[o], str, &o3), AUG_OK);
            assert_int_equal(o1->dtype, d);
            int ok = 1;
            for (int64_t k = 0; k < n && ok; k++) {
                ok = check_value(aug_dtype_name(d), ref_arith(ops[o], 1, &v[k], &d, d), th_get_flat(o1, k), k) &&
                     check_value(aug_dtype_name(d), ref_arith(ops[o], 1, &v[n - 1 - k], &d, d), th_get_flat(o2, k), k);
                if (ok && k % 2 == 0)
                    ok = check_value(aug_dtype_name(d), ref_arith(ops[o], 1, &v[k], &d, d), th_get_flat(o3, k / 2), k);
            }
            assert_true(ok);
            aug_tensor_free(o1);
            aug_tensor_free(o2);
            aug_tensor_free(o3);
            aug_tensor_free(rev);
            aug_tensor_free(str);
            aug_tensor_free(t);
        }
    /* the semantics page's examples */
    int64_t n = 2;
    th_num v[2] = {th_i(-128), th_i(5)};
    aug_tensor *t = th_tensor(1, &n, AUG_INT8, v), *out = NULL;
    assert_int_equal(aug_unary(AUG_OP_NEG, t, &out), AUG_OK);
    assert_true(th_get_flat(out, 0).i == 127 && th_get_flat(out, 1).i == -5);
    aug_tensor_free(out);
    out = NULL;
    assert_int_equal(aug_unary(AUG_OP_ABS, t, &out), AUG_OK);
    assert_true(th_get_flat(out, 0).i == 127);
    aug_tensor_free(out);
    aug_tensor_free(t);
}

static void test_clamp(void **state) {
    (void)state;
    uint64_t seed = 4242;
    for (int i = 0; i < TH_NUM_DTYPES; i++)
        for (int j = 0; j < TH_NUM_DTYPES; j++) {
            aug_dtype d[3] = {TH_DTYPES[i], TH_DTYPES[j], TH_DTYPES[(i + 2 * j + 1) % TH_NUM_DTYPES]};
            aug_dtype r = th_promote(th_promote(d[0], d[1]), d[2]);
            int64_t n = 40;
            th_num v[3][40];
            for (int k = 0; k < 3; k++) th_values(d[k], v[k], (int)n, &seed);
            aug_tensor *t[3];
            for (int k = 0; k < 3; k++) t[k] = th_tensor(1, &n, d[k], v[k]);
            aug_operand in[3] = {aug_operand_tensor(t[0]), aug_operand_tensor(t[1]), aug_operand_tensor(t[2])};
            aug_tensor *out = NULL;
            assert_int_equal(aug_elementwise(NULL, AUG_OP_CLAMP, 3, in, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, &out), AUG_OK);
            assert_int_equal(out->dtype, r);
            int ok = 1;
            for (int64_t k = 0; k < n && ok; k++) {
                th_num x[3] = {v[0][k], v[1][k], v[2][k]};
                ok = check_value("clamp", ref_arith(AUG_OP_CLAMP, 3, x, d, r), th_get_flat(out, k), k);
            }
            assert_true(ok);
            aug_tensor_free(out);
            /* lo and hi as 0-d tensors (broadcast) */
            aug_tensor *lo = aug_tensor_index(t[1], 1, &(aug_index){.kind = AUG_INDEX_INT, .i = 3});
            aug_tensor *hi = aug_tensor_index(t[2], 1, &(aug_index){.kind = AUG_INDEX_INT, .i = 5});
            aug_operand in0[3] = {aug_operand_tensor(t[0]), aug_operand_tensor(lo), aug_operand_tensor(hi)};
            out = NULL;
            assert_int_equal(aug_elementwise(NULL, AUG_OP_CLAMP, 3, in0, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, &out), AUG_OK);
            for (int64_t k = 0; k < n && ok; k++) {
                th_num x[3] = {v[0][k], v[1][3], v[2][5]};
                ok = check_value("clamp 0-d", ref_arith(AUG_OP_CLAMP, 3, x, d, r), th_get_flat(out, k), k);
            }
            assert_true(ok);
            aug_tensor_free(out);
            aug_tensor_free(lo);
            aug_tensor_free(hi);
            for (int k = 0; k < 3; k++) aug_tensor_free(t[k]);
        }
    /* lo > hi gives hi; NaN propagates */
    int64_t n = 3;
    th_num v[3] = {th_f(1.0), th_f(NAN), th_f(9.0)};
    aug_tensor *t = th_tensor(1, &n, AUG_FLOAT32, v), *out = NULL;
    aug_operand in[3] = {aug_operand_tensor(t), aug_operand_scalar(aug_scalar_float(5.0)),
                         aug_operand_scalar(aug_scalar_float(2.0))};
    assert_int_equal(aug_elementwise(NULL, AUG_OP_CLAMP, 3, in, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, &out), AUG_OK);
    assert_true(th_get_flat(out, 0).f == 2.0 && isnan(th_get_flat(out, 1).f) && th_get_flat(out, 2).f == 2.0);
    aug_tensor_free(out);
    aug_tensor_free(t);
}

/* ---- weak scalars and typed constants -------------------------------------------------- */

typedef struct wcase {
    int isf;
    int64_t i;
    int big; /* UINT64_MAX */
    double f;
} wcase;

static aug_scalar wscalar(const wcase *c) {
    if (c->big) return aug_scalar_uint(UINT64_MAX);
    return c->isf ? aug_scalar_float(c->f) : aug_scalar_int(c->i);
}
static th_num wvalue(const wcase *c) {
    if (c->big) return th_i((th_i128)UINT64_MAX);
    return c->isf ? th_f(c->f) : th_i(c->i);
}

static void test_weak_scalars(void **state) {
    (void)state;
    const wcase cases[] = {{0, 0, 0, 0},       {0, 1, 0, 0},        {0, -1, 0, 0},      {0, 300, 0, 0},
                           {0, -300, 0, 0},    {0, 1LL << 40, 0, 0}, {0, INT64_MIN, 0, 0}, {0, 0, 1, 0},
                           {1, 0, 0, 0.5},     {1, 0, 0, -2.5},     {1, 0, 0, 0.1},     {1, 0, 0, 1e10},
                           {1, 0, 0, NAN},     {1, 0, 0, INFINITY}, {1, 0, 0, 1e300}};
    const aug_op ops[] = {AUG_OP_ADD, AUG_OP_SUB, AUG_OP_MUL, AUG_OP_MIN, AUG_OP_MAX};
    uint64_t seed = 99;
    for (int i = 0; i < TH_NUM_DTYPES; i++) {
        aug_dtype d = TH_DTYPES[i];
        int64_t n = 30;
        th_num v[30];
        th_values(d, v, (int)n, &seed);
        aug_tensor *t = th_tensor(1, &n, d, v);
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
            for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
                for (int refl = 0; refl < 2; refl++) {
                    aug_dtype r = cases[c].isf ? (th_is_float(d) ? d : AUG_FLOAT32) : (d == AUG_BOOL ? AUG_INT32 : d);
                    /* the scalar as it enters: exact for integer results, rounded to the
                     * result's float dtype otherwise (NEP 50; IEEE: +-inf beyond its range) */
                    th_num s = wvalue(&cases[c]);
                    aug_dtype sd = AUG_INT64;
                    if (th_is_float(r)) {
                        s = th_ieee(s, r);
                        sd = r;
                    }
                    aug_tensor *out = NULL;
                    aug_status st = refl ? aug_binary_rscalar(ops[o], wscalar(&cases[c]), t, &out)
                                         : aug_binary_scalar(ops[o], t, wscalar(&cases[c]), &out);
                    if (st != AUG_OK) print_error("%s\n", aug_last_error());
                    assert_int_equal(st, AUG_OK);
                    assert_int_equal(out->dtype, r);
                    int ok = 1;
                    for (int64_t k = 0; k < n && ok; k++) {
                        th_num x[2] = {refl ? s : v[k], refl ? v[k] : s};
                        aug_dtype dd[2] = {refl ? sd : d, refl ? d : sd};
                        char what[96];
                        snprintf(what, sizeof what, "%s %s scalar case %d refl %d", aug_dtype_name(d),
                                 aug_op_name(ops[o]), (int)c, refl);
                        ok = check_value(what, ref_arith(ops[o], 2, x, dd, r), th_get_flat(out, k), k);
                    }
                    assert_true(ok);
                    aug_tensor_free(out);
                }
        aug_tensor_free(t);
    }
}

static void test_seed_examples_and_constants(void **state) {
    (void)state;
    int64_t n = 4;
    th_num v[4] = {th_i(0), th_i(1), th_i(100), th_i(255)};
    aug_tensor *t = th_tensor(1, &n, AUG_UINT8, v), *out = NULL;
    /* u8 + 300 saturates, - 300 gives 0 */
    assert_int_equal(aug_binary_scalar(AUG_OP_ADD, t, aug_scalar_int(300), &out), AUG_OK);
    for (int k = 0; k < 4; k++) assert_true(th_get_flat(out, k).i == 255);
    aug_tensor_free(out);
    out = NULL;
    assert_int_equal(aug_binary_scalar(AUG_OP_SUB, t, aug_scalar_int(300), &out), AUG_OK);
    for (int k = 0; k < 4; k++) assert_true(th_get_flat(out, k).i == 0);
    aug_tensor_free(out);
    out = NULL;
    /* a typed int16 constant makes the result int16, exact */
    aug_scalar c;
    assert_int_equal(aug_scalar_typed_int(300, AUG_INT16, &c), AUG_OK);
    assert_int_equal(aug_binary_scalar(AUG_OP_ADD, t, c, &out), AUG_OK);
    assert_int_equal(out->dtype, AUG_INT16);
    assert_true(th_get_flat(out, 3).i == 555);
    aug_tensor_free(out);
    out = NULL;
    /* a typed uint8 constant saturates at construction */
    assert_int_equal(aug_scalar_typed_int(300, AUG_UINT8, &c), AUG_OK);
    assert_int_equal(aug_binary_rscalar(AUG_OP_SUB, c, t, &out), AUG_OK);
    assert_int_equal(out->dtype, AUG_UINT8);
    assert_true(th_get_flat(out, 0).i == 255 && th_get_flat(out, 2).i == 155 && th_get_flat(out, 3).i == 0);
    aug_tensor_free(out);
    aug_tensor_free(t);
    /* int64 + uint64 max (weak) stays int64 and saturates; int64 min - 1 too */
    th_num w[2] = {th_i(-5), th_i(INT64_MIN)};
    n = 2;
    t = th_tensor(1, &n, AUG_INT64, w);
    out = NULL;
    assert_int_equal(aug_binary_scalar(AUG_OP_ADD, t, aug_scalar_uint(UINT64_MAX), &out), AUG_OK);
    assert_true(th_get_flat(out, 0).i == INT64_MAX && th_get_flat(out, 1).i == (th_i128)UINT64_MAX + INT64_MIN);
    aug_tensor_free(out);
    out = NULL;
    assert_int_equal(aug_binary_scalar(AUG_OP_SUB, t, aug_scalar_int(1), &out), AUG_OK);
    assert_true(th_get_flat(out, 0).i == -6 && th_get_flat(out, 1).i == INT64_MIN);
    aug_tensor_free(out);
    aug_tensor_free(t);
}

/* ---- shapes, out=, errors -------------------------------------------------------------- */

static void test_shapes_and_errors(void **state) {
    (void)state;
    int64_t s234[3] = {2, 3, 4}, s233[3] = {2, 3, 3}, s23[2] = {2, 3}, s22[2] = {2, 2}, s03[2] = {0, 3}, s3[1] = {3};
    aug_tensor *a = aug_tensor_zeros(3, s234, AUG_UINT8, aug_cpu_device());
    aug_tensor *b = aug_tensor_zeros(3, s233, AUG_UINT8, aug_cpu_device());
    aug_tensor *out = NULL;
    assert_int_equal(aug_binary(AUG_OP_ADD, a, b, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_add: cannot broadcast shapes (2, 3, 4) and (2, 3, 3)");
    assert_int_equal(aug_binary(AUG_OP_MUL, a, b, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_mul: cannot broadcast shapes (2, 3, 4) and (2, 3, 3)");
    assert_null(out);
    aug_tensor *x = aug_tensor_zeros(2, s23, AUG_INT16, aug_cpu_device());
    aug_tensor *wrong = aug_tensor_zeros(2, s22, AUG_INT16, aug_cpu_device());
    out = wrong;
    assert_int_equal(aug_binary(AUG_OP_ADD, x, x, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_add: output shape (2, 2) does not match the broadcast shape (2, 3)");
    assert_ptr_equal(out, wrong);
    /* an out that would only broadcast is still wrong */
    aug_tensor *big = aug_tensor_zeros(3, s234, AUG_INT16, aug_cpu_device());
    aug_tensor *row = aug_tensor_zeros(1, s3, AUG_INT16, aug_cpu_device());
    out = row;
    assert_int_equal(aug_binary(AUG_OP_SUB, x, x, &out), AUG_ERR_VALUE);
    assert_true(th_error_has("aug_sub: output shape (3,) does not match the broadcast shape (2, 3)"));
    aug_tensor_free(big);
    aug_tensor_free(row);
    aug_tensor_free(wrong);
    /* empty and 0-d */
    aug_tensor *e = aug_tensor_zeros(2, s03, AUG_INT8, aug_cpu_device());
    aug_tensor *r3 = aug_tensor_zeros(1, s3, AUG_UINT8, aug_cpu_device());
    out = NULL;
    assert_int_equal(aug_binary(AUG_OP_ADD, e, r3, &out), AUG_OK);
    assert_int_equal(out->ndim, 2);
    assert_int_equal(out->shape[0], 0);
    assert_int_equal(out->shape[1], 3);
    assert_int_equal(out->dtype, AUG_INT16);
    assert_int_equal(aug_binary(AUG_OP_ADD, e, r3, &out), AUG_OK); /* into the empty out */
    aug_tensor_free(out);
    out = NULL;
    assert_int_equal(aug_unary(AUG_OP_NEG, e, &out), AUG_OK);
    assert_int_equal(aug_tensor_size(out), 0);
    aug_tensor_free(out);
    th_num v0 = th_i(-100), v1 = th_i(100);
    aug_tensor *z0 = th_tensor(0, NULL, AUG_INT8, &v0), *z1 = th_tensor(0, NULL, AUG_INT8, &v1);
    out = NULL;
    assert_int_equal(aug_binary(AUG_OP_SUB, z0, z1, &out), AUG_OK);
    assert_int_equal(out->ndim, 0);
    assert_true(th_get_flat(out, 0).i == -128);
    aug_tensor_free(out);
    /* 0-d with a 2-D tensor broadcasts */
    out = NULL;
    assert_int_equal(aug_binary(AUG_OP_ADD, x, z1, &out), AUG_OK);
    assert_int_equal(out->ndim, 2);
    assert_int_equal(out->dtype, AUG_INT16);
    assert_true(th_get_flat(out, 5).i == 100);
    aug_tensor_free(out);
    aug_tensor_free(z0);
    aug_tensor_free(z1);
    aug_tensor_free(e);
    aug_tensor_free(r3);
    aug_tensor_free(x);
    aug_tensor_free(a);
    aug_tensor_free(b);
}

static void test_out_argument(void **state) {
    (void)state;
    int64_t n = 6;
    th_num va[6] = {th_i(0), th_i(1), th_i(2), th_i(3), th_i(200), th_i(255)};
    th_num vb[6] = {th_i(255), th_i(100), th_i(7), th_i(3), th_i(100), th_i(1)};
    aug_tensor *a = th_tensor(1, &n, AUG_UINT8, va), *b = th_tensor(1, &n, AUG_UINT8, vb);
    /* in place: a += b */
    aug_tensor *out = a;
    assert_int_equal(aug_binary(AUG_OP_ADD, a, b, &out), AUG_OK);
    assert_ptr_equal(out, a);
    for (int k = 0; k < 6; k++) assert_true(th_get_flat(a, k).i == th_sat(th_i(va[k].i + vb[k].i), AUG_UINT8).i);
    /* out = a reversed view of b: the engine must read b before overwriting it */
    aug_tensor *rb = th_reversed(b);
    out = rb;
    assert_int_equal(aug_binary(AUG_OP_SUB, b, a, &out), AUG_OK);
    for (int k = 0; k < 6; k++) {
        th_i128 want = th_sat(th_i(vb[k].i - th_sat(th_i(va[k].i + vb[k].i), AUG_UINT8).i), AUG_UINT8).i;
        assert_true(th_get_flat(b, 5 - k).i == want);
    }
    aug_tensor_free(rb);
    /* another dtype: computed as the operator (uint8, saturating), stored with saturate_cast */
    th_num one = th_i(200), two = th_i(100);
    aug_tensor *p = th_tensor(1, &n, AUG_UINT8, (th_num[6]){one, one, one, one, one, one});
    aug_tensor *q = th_tensor(1, &n, AUG_UINT8, (th_num[6]){two, two, two, two, two, two});
    aug_tensor *o16 = aug_tensor_zeros(1, &n, AUG_INT16, aug_cpu_device());
    out = o16;
    assert_int_equal(aug_binary(AUG_OP_ADD, p, q, &out), AUG_OK);
    assert_true(th_get_flat(o16, 0).i == 255);
    /* t_uint8 += 0.5 rounds half to even */
    th_num h[6] = {th_i(0), th_i(1), th_i(2), th_i(3), th_i(254), th_i(255)};
    aug_tensor *u = th_tensor(1, &n, AUG_UINT8, h);
    out = u;
    assert_int_equal(aug_binary_scalar(AUG_OP_ADD, u, aug_scalar_float(0.5), &out), AUG_OK);
    const int want[6] = {0, 2, 2, 4, 254, 255};
    for (int k = 0; k < 6; k++) assert_true(th_get_flat(u, k).i == want[k]);
    /* the result override sets a new tensor's dtype only */
    aug_operand in[2] = {aug_operand_tensor(p), aug_operand_tensor(q)};
    out = NULL;
    assert_int_equal(aug_elementwise(NULL, AUG_OP_ADD, 2, in, AUG_DTYPE_AUTO, AUG_INT32, &out), AUG_OK);
    assert_int_equal(out->dtype, AUG_INT32);
    assert_true(th_get_flat(out, 0).i == 255);
    aug_tensor_free(out);
    /* a compute override: evaluated in int32, so exact */
    out = NULL;
    assert_int_equal(aug_elementwise(NULL, AUG_OP_ADD, 2, in, AUG_INT32, AUG_INT32, &out), AUG_OK);
    assert_true(th_get_flat(out, 0).i == 300);
    aug_tensor_free(out);
    /* compute float16: operands rounded to float16 first */
    th_num big = th_i(70000), tiny = th_f(1.0);
    aug_tensor *bi = th_tensor(0, NULL, AUG_INT32, &big), *bf = th_tensor(0, NULL, AUG_FLOAT32, &tiny);
    aug_operand in2[2] = {aug_operand_tensor(bi), aug_operand_tensor(bf)};
    out = NULL;
    assert_int_equal(aug_elementwise(NULL, AUG_OP_SUB, 2, in2, AUG_FLOAT16, AUG_FLOAT32, &out), AUG_OK);
    assert_true(th_get_flat(out, 0).f == 65504.0 - 1.0);
    aug_tensor_free(out);
    /* COPY with a compute override saturates through it */
    th_num cv[3] = {th_i(-5), th_i(300), th_i(7)};
    int64_t n3 = 3;
    aug_tensor *c16 = th_tensor(1, &n3, AUG_INT16, cv);
    aug_operand inc[1] = {aug_operand_tensor(c16)};
    out = NULL;
    assert_int_equal(aug_elementwise(NULL, AUG_OP_COPY, 1, inc, AUG_UINT8, AUG_DTYPE_AUTO, &out), AUG_OK);
    assert_int_equal(out->dtype, AUG_INT16);
    assert_true(th_get_flat(out, 0).i == 0 && th_get_flat(out, 1).i == 255 && th_get_flat(out, 2).i == 7);
    aug_tensor_free(out);
    out = NULL;
    assert_int_equal(aug_elementwise(NULL, AUG_OP_COPY, 1, inc, AUG_DTYPE_AUTO, AUG_INT8, &out), AUG_OK);
    assert_true(th_get_flat(out, 0).i == -5 && th_get_flat(out, 1).i == 127 && th_get_flat(out, 2).i == 7);
    aug_tensor_free(out);
    aug_tensor_free(c16);
    aug_tensor_free(bi);
    aug_tensor_free(bf);
    aug_tensor_free(u);
    aug_tensor_free(o16);
    aug_tensor_free(p);
    aug_tensor_free(q);
    aug_tensor_free(a);
    aug_tensor_free(b);
}

/* The SSE2 uint8/int8/uint16/int16 add/sub paths: long runs with tails, a broadcast
 * scalar on either side, in place. */
static void test_saturating_fast_paths(void **state) {
    (void)state;
    const aug_dtype ds[] = {AUG_UINT8, AUG_INT8, AUG_UINT16, AUG_INT16, AUG_INT32, AUG_UINT64};
    uint64_t seed = 5;
    for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++)
        for (int op = 0; op < 2; op++) {
            aug_op o = op ? AUG_OP_SUB : AUG_OP_ADD;
            aug_dtype d = ds[i];
            int64_t n = 100003;
            th_num *va = malloc(sizeof(th_num) * (size_t)n), *vb = malloc(sizeof(th_num) * (size_t)n);
            th_values(d, va, (int)n, &seed);
            th_values(d, vb, (int)n, &seed);
            aug_tensor *a = th_tensor(1, &n, d, va), *b = th_tensor(1, &n, d, vb), *out = NULL;
            assert_int_equal(aug_binary(o, a, b, &out), AUG_OK);
            aug_dtype dd[2] = {d, d};
            int ok = 1;
            for (int64_t k = 0; k < n && ok; k++) {
                th_num x[2] = {va[k], vb[k]};
                ok = check_value("fast", ref_arith(o, 2, x, dd, d), th_get_flat(out, k), k);
            }
            assert_true(ok);
            /* scalar on either side */
            aug_tensor *o2 = NULL, *o3 = NULL;
            assert_int_equal(aug_binary_scalar(o, a, aug_scalar_int(100), &o2), AUG_OK);
            assert_int_equal(aug_binary_rscalar(o, aug_scalar_int(100), a, &o3), AUG_OK);
            for (int64_t k = 0; k < n && ok; k++) {
                th_num x[2] = {va[k], th_i(100)}, y[2] = {th_i(100), va[k]};
                ok = check_value("fast scalar", ref_arith(o, 2, x, dd, d), th_get_flat(o2, k), k) &&
                     check_value("fast rscalar", ref_arith(o, 2, y, dd, d), th_get_flat(o3, k), k);
            }
            assert_true(ok);
            /* in place */
            aug_tensor *ip = a;
            assert_int_equal(aug_binary(o, a, b, &ip), AUG_OK);
            for (int64_t k = 0; k < n && ok; k++) ok = th_num_eq(th_get_flat(a, k), th_get_flat(out, k));
            assert_true(ok);
            aug_tensor_free(o2);
            aug_tensor_free(o3);
            aug_tensor_free(out);
            aug_tensor_free(a);
            aug_tensor_free(b);
            free(va);
            free(vb);
        }
}

static void test_threads_identical(void **state) {
    (void)state;
    int64_t s[2] = {300, 701}, r1 = 701;
    uint64_t seed = 31337;
    const aug_dtype pairs[][2] = {{AUG_INT8, AUG_UINT16}, {AUG_FLOAT16, AUG_INT32}, {AUG_UINT64, AUG_INT64},
                                  {AUG_FLOAT32, AUG_FLOAT64}};
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        th_num *va = malloc(sizeof(th_num) * 300 * 701), vb[701];
        th_values(pairs[p][0], va, 300 * 701, &seed);
        th_values(pairs[p][1], vb, 701, &seed);
        aug_tensor *a = th_tensor(2, s, pairs[p][0], va), *b = th_tensor(1, &r1, pairs[p][1], vb);
        aug_tensor *o1 = NULL, *o2 = NULL;
        assert_int_equal(aug_set_num_threads(1), AUG_OK);
        assert_int_equal(aug_binary(AUG_OP_MUL, a, b, &o1), AUG_OK);
        assert_int_equal(aug_set_num_threads(2), AUG_OK);
        assert_int_equal(aug_binary(AUG_OP_MUL, a, b, &o2), AUG_OK);
        assert_int_equal(aug_set_num_threads(0), AUG_OK);
        assert_memory_equal(aug_tensor_ptr(o1), aug_tensor_ptr(o2), (size_t)(aug_tensor_size(o1) * aug_tensor_itemsize(o1)));
        aug_tensor_free(o1);
        aug_tensor_free(o2);
        aug_tensor_free(a);
        aug_tensor_free(b);
        free(va);
    }
}

/* ---- augpy functional forms and fma (semantics §9) ------------------------------------------- */

static aug_tensor *u8vec(int n, const int *v) {
    th_num t[16];
    for (int i = 0; i < n; i++) t[i] = th_i(v[i]);
    int64_t s = n;
    return th_tensor(1, &s, AUG_UINT8, t);
}

static void expect_ints(const aug_tensor *t, int n, const long long *want) {
    for (int i = 0; i < n; i++) {
        th_num g = th_get_flat(t, i);
        if (g.i != want[i]) print_error("element %d: got %lld want %lld\n", i, (long long)g.i, want[i]);
        assert_true(g.i == want[i]);
    }
}

static void test_functional_scalar(void **state) {
    (void)state;
    const int v[8] = {0, 1, 2, 3, 5, 7, 200, 255};
    aug_tensor *t = u8vec(8, v), *out = NULL;
    assert_int_equal(aug_functional_scalar("aug_div", AUG_OP_DIV_RNE, t, aug_scalar_int(3), 0, &out), AUG_OK);
    assert_int_equal(out->dtype, AUG_UINT8);
    expect_ints(out, 8, (const long long[]){0, 0, 1, 1, 2, 2, 67, 85});
    aug_tensor_free(out);
    out = NULL;
    assert_int_equal(aug_functional_scalar("aug_div", AUG_OP_DIV_RNE, t, aug_scalar_int(2), 0, &out), AUG_OK);
    expect_ints(out, 8, (const long long[]){0, 0, 1, 2, 2, 4, 100, 128});
    aug_tensor_free(out);
    out = NULL;
    assert_int_equal(aug_functional_scalar("aug_div", AUG_OP_DIV_RNE, t, aug_scalar_int(0), 0, &out), AUG_OK);
    expect_ints(out, 8, (const long long[]){0, 255, 255, 255, 255, 255, 255, 255});
    aug_tensor_free(out);
    out = NULL;
    /* rdiv: 200 / x */
    assert_int_equal(aug_functional_scalar("aug_rdiv", AUG_OP_DIV_RNE, t, aug_scalar_int(200), 1, &out), AUG_OK);
    expect_ints(out, 8, (const long long[]){255, 200, 100, 67, 40, 29, 1, 1});
    aug_tensor_free(out);
    out = NULL;
    /* float scalar: true division in float32, then round half to even */
    assert_int_equal(aug_functional_scalar("aug_div", AUG_OP_DIV_RNE, t, aug_scalar_float(4.0), 0, &out), AUG_OK);
    expect_ints(out, 8, (const long long[]){0, 0, 0, 1, 1, 2, 50, 64});
    aug_tensor_free(out);
    out = NULL;
    assert_int_equal(aug_functional_scalar("aug_add", AUG_OP_ADD, t, aug_scalar_float(0.5), 0, &out), AUG_OK);
    assert_int_equal(out->dtype, AUG_UINT8);
    expect_ints(out, 8, (const long long[]){0, 2, 2, 4, 6, 8, 200, 255});
    aug_tensor_free(out);
    out = NULL;
    assert_int_equal(aug_functional_scalar("aug_add", AUG_OP_ADD, t, aug_scalar_int(300), 0, &out), AUG_OK);
    assert_int_equal(out->dtype, AUG_UINT8);
    expect_ints(out, 8, (const long long[]){255, 255, 255, 255, 255, 255, 255, 255});
    aug_tensor_free(out);
    out = NULL;
    /* rsub: 5 - x */
    assert_int_equal(aug_functional_scalar("aug_rsub", AUG_OP_SUB, t, aug_scalar_int(5), 1, &out), AUG_OK);
    expect_ints(out, 8, (const long long[]){5, 4, 3, 2, 0, 0, 0, 0});
    aug_tensor_free(out);
    out = NULL;
    /* comparisons are exact and return bool */
    assert_int_equal(aug_functional_scalar("aug_lt", AUG_OP_LT, t, aug_scalar_int(300), 0, &out), AUG_OK);
    assert_int_equal(out->dtype, AUG_BOOL);
    expect_ints(out, 8, (const long long[]){1, 1, 1, 1, 1, 1, 1, 1});
    aug_tensor_free(out);
    out = NULL;
    assert_int_equal(aug_functional_scalar("aug_ge", AUG_OP_GE, t, aug_scalar_float(2.5), 0, &out), AUG_OK);
    expect_ints(out, 8, (const long long[]){0, 0, 0, 1, 1, 1, 1, 1});
    aug_tensor_free(out);
    /* with out: written there, saturated */
    aug_tensor *o = aug_tensor_zeros(1, (int64_t[]){8}, AUG_INT8, aug_cpu_device());
    out = o;
    assert_int_equal(aug_functional_scalar("aug_mul", AUG_OP_MUL, t, aug_scalar_int(-1), 0, &out), AUG_OK);
    assert_ptr_equal(out, o);
    /* exact (integral scalar, integer tensor), then saturated into out's int8 */
    expect_ints(o, 8, (const long long[]){0, -1, -2, -3, -5, -7, -128, -128});
    aug_tensor_free(o);
    aug_tensor_free(t);
    /* signed: -5 / 2 = -2.5 -> -2, -7 / 2 = -3.5 -> -4, int8 min / -1 saturates */
    th_num sv[4] = {th_i(-5), th_i(-7), th_i(-128), th_i(9)};
    int64_t n = 4;
    aug_tensor *s = th_tensor(1, &n, AUG_INT8, sv);
    out = NULL;
    assert_int_equal(aug_functional_scalar("aug_div", AUG_OP_DIV_RNE, s, aug_scalar_int(2), 0, &out), AUG_OK);
    expect_ints(out, 4, (const long long[]){-2, -4, -64, 4});
    aug_tensor_free(out);
    out = NULL;
    assert_int_equal(aug_functional_scalar("aug_div", AUG_OP_DIV_RNE, s, aug_scalar_int(-1), 0, &out), AUG_OK);
    expect_ints(out, 4, (const long long[]){5, 7, 127, -9});
    aug_tensor_free(out);
    aug_tensor_free(s);
    /* int64 exact with a large scalar */
    th_num lv[2] = {th_i((th_i128)1 << 62), th_i(-((th_i128)1 << 62))};
    n = 2;
    aug_tensor *l = th_tensor(1, &n, AUG_INT64, lv);
    out = NULL;
    assert_int_equal(aug_functional_scalar("aug_mul", AUG_OP_MUL, l, aug_scalar_int(3), 0, &out), AUG_OK);
    assert_true(th_get_flat(out, 0).i == INT64_MAX && th_get_flat(out, 1).i == INT64_MIN);
    aug_tensor_free(out);
    out = NULL;
    assert_int_equal(aug_functional_scalar("aug_add", AUG_OP_ADD, l, aug_scalar_int(1), 0, &out), AUG_OK);
    assert_true(th_get_flat(out, 0).i == ((th_i128)1 << 62) + 1); /* exact: no trip through double */
    aug_tensor_free(out);
    aug_tensor_free(l);
    /* float16 tensor: computed in float32, rounded to float16 as IEEE does */
    th_num fv[2] = {th_f(1.0), th_f(65504.0)};
    aug_tensor *f = th_tensor(1, &n, AUG_FLOAT16, fv);
    out = NULL;
    assert_int_equal(aug_functional_scalar("aug_add", AUG_OP_ADD, f, aug_scalar_int(1000), 0, &out), AUG_OK);
    assert_int_equal(out->dtype, AUG_FLOAT16);
    assert_true(th_get_flat(out, 0).f == 1001.0 && th_get_flat(out, 1).f == INFINITY);
    aug_tensor_free(out);
    aug_tensor_free(f);
}

static void test_functional_tensor(void **state) {
    (void)state;
    const int a[6] = {200, 7, 5, 0, 255, 9}, b[6] = {3, 2, 2, 0, 1, 0};
    aug_tensor *ta = u8vec(6, a), *tb = u8vec(6, b), *out = NULL;
    assert_int_equal(aug_functional_tensor("aug_div", AUG_OP_DIV_RNE, ta, tb, &out), AUG_OK);
    assert_int_equal(out->dtype, AUG_UINT8);
    expect_ints(out, 6, (const long long[]){67, 4, 2, 0, 255, 255});
    aug_tensor_free(out);
    /* with out: computed in the promoted type (uint8, saturating), stored into int16 */
    aug_tensor *o = aug_tensor_zeros(1, (int64_t[]){6}, AUG_INT16, aug_cpu_device());
    out = o;
    assert_int_equal(aug_functional_tensor("aug_add", AUG_OP_ADD, ta, tb, &out), AUG_OK);
    expect_ints(o, 6, (const long long[]){203, 9, 7, 0, 255, 9});
    out = o;
    assert_int_equal(aug_functional_tensor("aug_sub", AUG_OP_SUB, tb, ta, &out), AUG_OK);
    expect_ints(o, 6, (const long long[]){0, 0, 0, 0, 0, 0});
    /* without out the operators' rules hold: int8 with uint8 -> int16 */
    th_num sv[6] = {th_i(-100), th_i(100), th_i(-7), th_i(0), th_i(127), th_i(-128)};
    int64_t n = 6;
    aug_tensor *s = th_tensor(1, &n, AUG_INT8, sv);
    out = NULL;
    assert_int_equal(aug_functional_tensor("aug_sub", AUG_OP_SUB, s, ta, &out), AUG_OK);
    assert_int_equal(out->dtype, AUG_INT16);
    expect_ints(out, 6, (const long long[]){-300, 93, -12, 0, -128, -137});
    aug_tensor_free(out);
    out = NULL;
    assert_int_equal(aug_functional_tensor("aug_div", AUG_OP_DIV_RNE, s, tb, &out), AUG_OK);
    assert_int_equal(out->dtype, AUG_INT16);
    expect_ints(out, 6, (const long long[]){-33, 50, -4, 0, 127, -32768});
    aug_tensor_free(out);
    /* comparisons return bool; with a bool out */
    aug_tensor *ob = aug_tensor_zeros(1, &n, AUG_BOOL, aug_cpu_device());
    out = ob;
    assert_int_equal(aug_functional_tensor("aug_gt", AUG_OP_GT, s, ta, &out), AUG_OK);
    expect_ints(ob, 6, (const long long[]){0, 1, 0, 0, 0, 0});
    /* float: division in the temp type, saturated into a uint8 out */
    th_num fv[6] = {th_f(1.5), th_f(2.5), th_f(-3.0), th_f(1000.0), th_f(NAN), th_f(0.25)};
    aug_tensor *f = th_tensor(1, &n, AUG_FLOAT32, fv);
    aug_tensor *o8 = aug_tensor_zeros(1, &n, AUG_UINT8, aug_cpu_device());
    out = o8;
    assert_int_equal(aug_functional_tensor("aug_mul", AUG_OP_MUL, f, tb, &out), AUG_OK);
    expect_ints(o8, 6, (const long long[]){4, 5, 0, 0, 0, 0});
    out = o8;
    assert_int_equal(aug_functional_tensor("aug_div", AUG_OP_DIV_RNE, ta, f, &out), AUG_OK);
    expect_ints(o8, 6, (const long long[]){133, 3, 0, 0, 0, 36});
    aug_tensor_free(o8);
    aug_tensor_free(f);
    aug_tensor_free(ob);
    aug_tensor_free(s);
    aug_tensor_free(o);
    aug_tensor_free(ta);
    aug_tensor_free(tb);
}

static void test_fma(void **state) {
    (void)state;
    /* one rounding: 3 * (1 + 2^-23) - 3 is 3 * 2^-23 fused, 2^-21 unfused */
    int64_t n = 3;
    th_num v1[3] = {th_f(1.0 + 0x1p-23), th_f(2.0), th_f(-1.5)};
    th_num v2[3] = {th_f(-3.0), th_f(1.0), th_f(0.25)};
    aug_tensor *t1 = th_tensor(1, &n, AUG_FLOAT32, v1), *t2 = th_tensor(1, &n, AUG_FLOAT32, v2), *out = NULL;
    assert_int_equal(aug_fma(3.0, t1, t2, &out), AUG_OK);
    assert_int_equal(out->dtype, AUG_FLOAT32);
    assert_true(th_get_flat(out, 0).f == 3 * 0x1p-23);
    assert_true(th_get_flat(out, 1).f == 7.0 && th_get_flat(out, 2).f == -4.25);
    aug_tensor_free(out);
    /* result dtype t2's: uint8, saturating */
    const int u[3] = {250, 1, 0};
    aug_tensor *tu = u8vec(3, u);
    out = NULL;
    assert_int_equal(aug_fma(3.0, t1, tu, &out), AUG_OK);
    assert_int_equal(out->dtype, AUG_UINT8);
    expect_ints(out, 3, (const long long[]){253, 7, 0});
    aug_tensor_free(out);
    /* any pairing, float64 temp for float64 */
    th_num d1[3] = {th_f(1.0 + 0x1p-52), th_f(0.5), th_f(-2.0)};
    aug_tensor *td = th_tensor(1, &n, AUG_FLOAT64, d1);
    th_num i2[3] = {th_i(-3), th_i(0), th_i(INT32_MAX)};
    aug_tensor *ti = th_tensor(1, &n, AUG_INT32, i2);
    out = NULL;
    assert_int_equal(aug_fma(3.0, td, ti, &out), AUG_OK);
    assert_int_equal(out->dtype, AUG_INT32);
    expect_ints(out, 3, (const long long[]){0, 2, INT32_MAX - 6});
    aug_tensor *of = aug_tensor_zeros(1, &n, AUG_FLOAT64, aug_cpu_device());
    aug_tensor *o2 = of;
    assert_int_equal(aug_fma(3.0, td, ti, &o2), AUG_OK);
    assert_true(th_get_flat(of, 0).f == 3 * 0x1p-52);
    aug_tensor_free(of);
    aug_tensor_free(out);
    aug_tensor_free(ti);
    aug_tensor_free(td);
    aug_tensor_free(tu);
    aug_tensor_free(t1);
    aug_tensor_free(t2);
}

/* Outputs of AUG__STREAM_MIN_BYTES and more take the non-temporal store path of the
 * SSE2 kernels; an output 1 byte off 16-byte alignment takes the ordinary one. Both
 * must give the exact saturated results. */
static void test_streaming_stores(void **state) {
    (void)state;
    const int64_t n = (17 << 20) + 5, m = n + 1;
    aug_tensor *a = aug_tensor_empty(1, &n, AUG_UINT8, aug_cpu_device());
    aug_tensor *b = aug_tensor_empty(1, &n, AUG_UINT8, aug_cpu_device());
    aug_tensor *big = aug_tensor_empty(1, &m, AUG_UINT8, aug_cpu_device());
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(big);
    uint8_t *pa = aug_tensor_ptr(a), *pb = aug_tensor_ptr(b);
    for (int64_t k = 0; k < n; k++) {
        pa[k] = (uint8_t)(k * 7919 >> 3);
        pb[k] = (uint8_t)(k * 104729 >> 5);
    }
    aug_index from1 = {.kind = AUG_INDEX_SLICE, .start = 1, .has_start = 1, .step = 1};
    aug_tensor *unaligned = aug_tensor_index(big, 1, &from1);
    assert_non_null(unaligned);
    for (int op = 0; op < 2; op++) {
        aug_op o = op ? AUG_OP_SUB : AUG_OP_ADD;
        aug_tensor *out = NULL, *sc = NULL;
        assert_int_equal(aug_binary(o, a, b, &out), AUG_OK);
        assert_int_equal(aug_binary(o, a, b, &unaligned), AUG_OK);
        assert_int_equal(aug_binary_scalar(o, a, aug_scalar_int(77), &sc), AUG_OK);
        const uint8_t *po = aug_tensor_ptr(out), *pu = aug_tensor_ptr(unaligned), *ps = aug_tensor_ptr(sc);
        int bad = 0;
        for (int64_t k = 0; k < n && !bad; k++) {
            int r = op ? pa[k] - pb[k] : pa[k] + pb[k], rs = op ? pa[k] - 77 : pa[k] + 77;
            r = r < 0 ? 0 : r > 255 ? 255 : r;
            rs = rs < 0 ? 0 : rs > 255 ? 255 : rs;
            bad = po[k] != r || pu[k] != r || ps[k] != rs;
        }
        assert_false(bad);
        aug_tensor_free(out);
        aug_tensor_free(sc);
    }
    aug_tensor_free(unaligned);
    aug_tensor_free(big);
    aug_tensor_free(a);
    aug_tensor_free(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_binary_all_pairs),
        cmocka_unit_test(test_unary),
        cmocka_unit_test(test_clamp),
        cmocka_unit_test(test_weak_scalars),
        cmocka_unit_test(test_seed_examples_and_constants),
        cmocka_unit_test(test_shapes_and_errors),
        cmocka_unit_test(test_out_argument),
        cmocka_unit_test(test_saturating_fast_paths),
        cmocka_unit_test(test_streaming_stores),
        cmocka_unit_test(test_threads_identical),
        cmocka_unit_test(test_functional_scalar),
        cmocka_unit_test(test_functional_tensor),
        cmocka_unit_test(test_fma),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
