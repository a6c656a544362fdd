/* test_ops_cmp.c: == != < <= > >= through the public API (semantics §7, §19): bool
 * results, the exact mathematical comparison of any two dtypes (references compare
 * the exact values as long doubles, which hold every int64/uint64 and double), NaN
 * (false except !=), weak scalars compared with their exact value (a weak float
 * next to a float tensor rounded to its dtype first, NEP 50), typed constants,
 * every dtype pair contiguous / broadcast / reversed / strided, out=, errors. */
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
#include "helpers/th_ops.h"

static const aug_op CMP_OPS[6] = {AUG_OP_EQ, AUG_OP_NE, AUG_OP_LT, AUG_OP_LE, AUG_OP_GT, AUG_OP_GE};

static int ref_rel(aug_op op, th_num a, th_num b) {
    if (th_num_is_nan(a) || th_num_is_nan(b)) return op == AUG_OP_NE;
    long double x = th_num_ld(a), y = th_num_ld(b);
    switch (op) {
    case AUG_OP_EQ: return x == y;
    case AUG_OP_NE: return x != y;
    case AUG_OP_LT: return x < y;
    case AUG_OP_LE: return x <= y;
    case AUG_OP_GT: return x > y;
    default: return x >= y;
    }
}

static th_num ref_cmp(aug_op op, th_num a, th_num b, aug_dtype da, aug_dtype db, aug_dtype r) {
    (void)da;
    (void)db;
    (void)r;
    return th_i(ref_rel(op, a, b));
}

#define NV 21

static void test_all_pairs(void **state) {
    (void)state;
    uint64_t seed = 2024;
    for (int o = 0; o < 6; o++)
        for (int i = 0; i < TH_NUM_DTYPES; i++)
            for (int j = 0; j < TH_NUM_DTYPES; j++) {
                aug_dtype da = TH_DTYPES[i], db = TH_DTYPES[j];
                th_num va[NV], vb[NV];
                th_values(da, va, NV, &seed);
                th_values(db, vb, NV, &seed);
                /* some equal values across the pair, where representable */
                for (int k = 0; k < 4; k++) vb[NV - 1 - k] = th_sat(va[k], db);
                assert_true(th_check_pairs(CMP_OPS[o], da, va, db, vb, NV, AUG_BOOL, ref_cmp));
            }
}

/* Values where rounding either side would give a wrong answer. */
static void test_exactness(void **state) {
    (void)state;
    int64_t n = 6;
    th_num iv[6] = {th_i(INT64_MAX), th_i(INT64_MIN), th_i(((th_i128)1 << 53) + 1), th_i(-1), th_i(16777217),
                    th_i(0)};
    th_num fv[6] = {th_f(0x1p63), th_f(-0x1p63), th_f(0x1p53), th_f(-1.0), th_f(16777216.0), th_f(-0.0)};
    aug_tensor *ti = th_tensor(1, &n, AUG_INT64, iv), *tf = th_tensor(1, &n, AUG_FLOAT64, fv);
    aug_tensor *tf32 = th_tensor(1, &n, AUG_FLOAT32, fv);
    for (int o = 0; o < 6; o++) {
        aug_tensor *o1 = NULL, *o2 = NULL, *o3 = NULL;
        assert_int_equal(aug_binary(CMP_OPS[o], ti, tf, &o1), AUG_OK);
        assert_int_equal(aug_binary(CMP_OPS[o], tf, ti, &o2), AUG_OK);
        assert_int_equal(aug_binary(CMP_OPS[o], ti, tf32, &o3), AUG_OK);
        for (int k = 0; k < n; k++) {
            assert_int_equal((int)th_get_flat(o1, k).i, ref_rel(CMP_OPS[o], iv[k], fv[k]));
            assert_int_equal((int)th_get_flat(o2, k).i, ref_rel(CMP_OPS[o], fv[k], iv[k]));
            assert_int_equal((int)th_get_flat(o3, k).i, ref_rel(CMP_OPS[o], iv[k], th_sat(fv[k], AUG_FLOAT32)));
        }
        aug_tensor_free(o1);
        aug_tensor_free(o2);
        aug_tensor_free(o3);
    }
    /* -1 < 2**64 - 1 across int64 / uint64 */
    th_num a = th_i(-1), b = th_i((th_i128)UINT64_MAX);
    aug_tensor *sa = th_tensor(0, NULL, AUG_INT64, &a), *sb = th_tensor(0, NULL, AUG_UINT64, &b), *out = NULL;
    assert_int_equal(aug_binary(AUG_OP_LT, sa, sb, &out), AUG_OK);
    assert_int_equal(out->ndim, 0);
    assert_true(th_get_flat(out, 0).i == 1);
    aug_tensor_free(out);
    aug_tensor_free(sa);
    aug_tensor_free(sb);
    aug_tensor_free(ti);
    aug_tensor_free(tf);
    aug_tensor_free(tf32);
}

typedef struct scase {
    int kind; /* 0 int, 1 uint64, 2 float */
    int64_t i;
    double f;
} scase;

static void test_weak_scalars(void **state) {
    (void)state;
    const scase cases[] = {{0, 0, 0},          {0, 1, 0},          {0, -1, 0},         {0, 300, 0},
                           {0, -300, 0},       {0, 127, 0},        {0, 128, 0},        {0, 65535, 0},
                           {0, 16777217, 0},   {0, INT64_MAX, 0},  {0, INT64_MIN, 0},  {1, 0, 0},
                           {2, 0, 0.5},        {2, 0, -0.5},       {2, 0, 0.1},        {2, 0, 255.0},
                           {2, 0, 255.5},      {2, 0, 1e300},      {2, 0, NAN},        {2, 0, INFINITY},
                           {2, 0, -INFINITY},  {2, 0, 0x1p63},     {2, 0, 65504.0},    {2, 0, 65520.0}};
    uint64_t seed = 7;
    for (int i = 0; i < TH_NUM_DTYPES; i++) {
        aug_dtype d = TH_DTYPES[i];
        int64_t n = 40;
        th_num v[40];
        th_values(d, v, (int)n, &seed);
        /* include values next to the cases */
        v[30] = th_sat(th_i(127), d);
        v[31] = th_sat(th_i(128), d);
        v[32] = th_sat(th_f(0.5), d);
        v[33] = th_sat(th_i(255), d);
        v[34] = th_sat(th_f(0.1), d);
        v[35] = th_sat(th_i(16777216), d);
        aug_tensor *t = th_tensor(1, &n, d, v);
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            aug_scalar s = cases[c].kind == 0   ? aug_scalar_int(cases[c].i)
                           : cases[c].kind == 1 ? aug_scalar_uint(UINT64_MAX)
                                                : aug_scalar_float(cases[c].f);
            th_num sv = cases[c].kind == 0 ? th_i(cases[c].i)
                        : cases[c].kind == 1 ? th_i((th_i128)UINT64_MAX)
                                             : th_f(cases[c].f);
            if (cases[c].kind == 2 && th_is_float(d)) sv = th_sat(sv, d); /* NEP 50 */
            for (int o = 0; o < 6; o++)
                for (int refl = 0; refl < 2; refl++) {
                    aug_tensor *out = NULL;
                    aug_status st = refl ? aug_binary_rscalar(CMP_OPS[o], s, t, &out)
                                         : aug_binary_scalar(CMP_OPS[o], t, s, &out);
                    assert_int_equal(st, AUG_OK);
                    assert_int_equal(out->dtype, AUG_BOOL);
                    for (int64_t k = 0; k < n; k++) {
                        int want = refl ? ref_rel(CMP_OPS[o], sv, v[k]) : ref_rel(CMP_OPS[o], v[k], sv);
                        int got = (int)th_get_flat(out, k).i;
                        if (got != want) {
                            char a[64];
                            print_error("%s %s case %d refl %d element %lld (%s): got %d\n", aug_dtype_name(d),
                                        aug_op_name(CMP_OPS[o]), (int)c, refl, (long long)k, th_num_str(v[k], a, 64), got);
                        }
                        assert_int_equal(got, want);
                    }
                    aug_tensor_free(out);
                }
        }
        aug_tensor_free(t);
    }
    /* the headline cases */
    int64_t n = 3;
    th_num u[3] = {th_i(0), th_i(200), th_i(255)};
    aug_tensor *t = th_tensor(1, &n, AUG_UINT8, u), *out = NULL;
    assert_int_equal(aug_binary_scalar(AUG_OP_LT, t, aug_scalar_int(300), &out), AUG_OK);
    for (int k = 0; k < 3; k++) assert_true(th_get_flat(out, k).i == 1);
    aug_tensor_free(out);
    out = NULL;
    assert_int_equal(aug_binary_scalar(AUG_OP_EQ, t, aug_scalar_int(255 + 256), &out), AUG_OK);
    for (int k = 0; k < 3; k++) assert_true(th_get_flat(out, k).i == 0);
    aug_tensor_free(out);
    aug_tensor_free(t);
    th_num f = th_sat(th_f(0.1), AUG_FLOAT32);
    aug_tensor *tf = th_tensor(1, (int64_t[]){1}, AUG_FLOAT32, &f);
    out = NULL;
    assert_int_equal(aug_binary_scalar(AUG_OP_EQ, tf, aug_scalar_float(0.1), &out), AUG_OK);
    assert_true(th_get_flat(out, 0).i == 1);
    aug_tensor_free(out);
    aug_tensor_free(tf);
}

static void test_typed_constants(void **state) {
    (void)state;
    int64_t n = 4;
    th_num u[4] = {th_i(0), th_i(44), th_i(255), th_i(100)};
    aug_tensor *t = th_tensor(1, &n, AUG_UINT8, u), *out = NULL;
    aug_scalar c;
    assert_int_equal(aug_scalar_typed_int(300, AUG_INT16, &c), AUG_OK);
    assert_int_equal(aug_binary_scalar(AUG_OP_LT, t, c, &out), AUG_OK);
    for (int k = 0; k < 4; k++) assert_true(th_get_flat(out, k).i == 1);
    aug_tensor_free(out);
    out = NULL;
    assert_int_equal(aug_scalar_typed_int(300, AUG_UINT8, &c), AUG_OK); /* saturates to 255 */
    assert_int_equal(aug_binary_scalar(AUG_OP_EQ, t, c, &out), AUG_OK);
    assert_true(th_get_flat(out, 2).i == 1 && th_get_flat(out, 1).i == 0);
    aug_tensor_free(out);
    out = NULL;
    assert_int_equal(aug_scalar_typed_float(44.1, AUG_BFLOAT16, &c), AUG_OK); /* bfloat16(44.1) == 44 */
    assert_int_equal(aug_binary_rscalar(AUG_OP_EQ, c, t, &out), AUG_OK);
    assert_true(th_get_flat(out, 1).i == 1 && th_get_flat(out, 0).i == 0);
    aug_tensor_free(out);
    out = NULL;
    assert_int_equal(aug_binary_scalar(AUG_OP_NE, t, aug_scalar_bool(1), &out), AUG_OK);
    assert_true(th_get_flat(out, 0).i == 1 && th_get_flat(out, 1).i == 1);
    aug_tensor_free(out);
    aug_tensor_free(t);
}

static void test_nan_and_zero(void **state) {
    (void)state;
    const aug_dtype fl[4] = {AUG_FLOAT16, AUG_BFLOAT16, AUG_FLOAT32, AUG_FLOAT64};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            int64_t n = 3;
            th_num a[3] = {th_f(NAN), th_f(1.0), th_f(-0.0)}, b[3] = {th_f(NAN), th_f(NAN), th_f(0.0)};
            aug_tensor *ta = th_tensor(1, &n, fl[i], a), *tb = th_tensor(1, &n, fl[j], b);
            for (int o = 0; o < 6; o++) {
                aug_tensor *out = NULL;
                assert_int_equal(aug_binary(CMP_OPS[o], ta, tb, &out), AUG_OK);
                int nan_want = CMP_OPS[o] == AUG_OP_NE;
                int zero_want = CMP_OPS[o] == AUG_OP_EQ || CMP_OPS[o] == AUG_OP_LE || CMP_OPS[o] == AUG_OP_GE;
                assert_int_equal((int)th_get_flat(out, 0).i, nan_want);
                assert_int_equal((int)th_get_flat(out, 1).i, nan_want);
                assert_int_equal((int)th_get_flat(out, 2).i, zero_want);
                aug_tensor_free(out);
            }
            aug_tensor_free(ta);
            aug_tensor_free(tb);
        }
}

static void test_out_and_errors(void **state) {
    (void)state;
    int64_t s234[3] = {2, 3, 4}, s233[3] = {2, 3, 3}, n = 5;
    aug_tensor *a = aug_tensor_zeros(3, s234, AUG_INT8, aug_cpu_device());
    aug_tensor *b = aug_tensor_zeros(3, s233, AUG_FLOAT32, aug_cpu_device());
    aug_tensor *out = NULL;
    assert_int_equal(aug_binary(AUG_OP_LT, a, b, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_lt: cannot broadcast shapes (2, 3, 4) and (2, 3, 3)");
    assert_null(out);
    aug_tensor_free(a);
    aug_tensor_free(b);
    /* a uint8 out receives 0/1; an out aliasing an input */
    th_num v[5] = {th_i(-3), th_i(0), th_i(7), th_i(100), th_i(-100)};
    aug_tensor *t = th_tensor(1, &n, AUG_INT16, v), *o8 = aug_tensor_zeros(1, &n, AUG_UINT8, aug_cpu_device());
    out = o8;
    assert_int_equal(aug_binary_scalar(AUG_OP_GE, t, aug_scalar_int(0), &out), AUG_OK);
    const int want[5] = {0, 1, 1, 1, 0};
    for (int k = 0; k < 5; k++) assert_true(th_get_flat(o8, k).i == want[k]);
    out = t;
    assert_int_equal(aug_binary_scalar(AUG_OP_GT, t, aug_scalar_int(5), &out), AUG_OK);
    const int want2[5] = {0, 0, 1, 1, 0};
    for (int k = 0; k < 5; k++) assert_true(th_get_flat(t, k).i == want2[k]);
    /* 1 vs 2 threads */
    int64_t big = 200001;
    uint64_t seed = 3;
    th_num *vv = malloc(sizeof(th_num) * (size_t)big);
    th_values(AUG_INT64, vv, (int)big, &seed);
    aug_tensor *ti = th_tensor(1, &big, AUG_INT64, vv);
    th_values(AUG_FLOAT64, vv, (int)big, &seed);
    aug_tensor *tf = th_tensor(1, &big, AUG_FLOAT64, vv);
    aug_tensor *o1 = NULL, *o2 = NULL;
    assert_int_equal(aug_set_num_threads(1), AUG_OK);
    assert_int_equal(aug_binary(AUG_OP_LE, ti, tf, &o1), AUG_OK);
    assert_int_equal(aug_set_num_threads(2), AUG_OK);
    assert_int_equal(aug_binary(AUG_OP_LE, ti, tf, &o2), AUG_OK);
    assert_int_equal(aug_set_num_threads(0), AUG_OK);
    assert_memory_equal(aug_tensor_ptr(o1), aug_tensor_ptr(o2), (size_t)big);
    free(vv);
    aug_tensor_free(o1);
    aug_tensor_free(o2);
    aug_tensor_free(ti);
    aug_tensor_free(tf);
    aug_tensor_free(o8);
    aug_tensor_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_pairs),
        cmocka_unit_test(test_exactness),
        cmocka_unit_test(test_weak_scalars),
        cmocka_unit_test(test_typed_constants),
        cmocka_unit_test(test_nan_and_zero),
        cmocka_unit_test(test_out_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
