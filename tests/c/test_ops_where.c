/* test_ops_where.c: the WHERE op (where(cond, x, y)) through aug_elementwise on the
 * CPU, against a reference written here: the condition is true when non-zero (NaN
 * included), the result dtype is the helpers' promotion of x and y alone, and the
 * chosen value is converted as an arithmetic result is (th_ieee: a float result
 * rounds as IEEE, integers saturate). Every (x, y)
 * dtype pair with a condition of each dtype, broadcast operands, weak scalars,
 * out= of another dtype, a compute override, the bit pattern of -0.0 and NaN kept,
 * and the type rules (bool allowed, the condition takes no part in promotion). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>
#include "aug/aug.h"
#include "helpers/th_ops.h"

static int truth(th_num c) { return c.isf ? (c.f != 0 || isnan(c.f)) : c.i != 0; }

/* where(cond (dc, shape (n, 1)), x (dx, (n, m)), y (dy, (m))) against the reference. */
static void check_pair(aug_dtype dc, aug_dtype dx, aug_dtype dy, uint64_t *seed) {
    enum { N = 6, M = 5 };
    th_num c[N], x[N * M], y[M];
    th_values(dc, c, N, seed);
    th_values(dx, x, N * M, seed);
    th_values(dy, y, M, seed);
    const int64_t sc[2] = {N, 1}, sx[2] = {N, M}, sy[1] = {M};
    aug_tensor *tc = th_tensor(2, sc, dc, c), *tx = th_tensor(2, sx, dx, x), *ty = th_tensor(1, sy, dy, y);
    aug_operand in[3] = {aug_operand_tensor(tc), aug_operand_tensor(tx), aug_operand_tensor(ty)};
    aug_tensor *out = NULL;
    assert_int_equal(aug_elementwise("aug_where", AUG_OP_WHERE, 3, in, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, &out), AUG_OK);
    aug_dtype r = th_promote(dx, dy);
    assert_int_equal(out->dtype, r);
    assert_int_equal(out->ndim, 2);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++) {
            th_num want = th_ieee(truth(c[i]) ? x[i * M + j] : y[j], r);
            th_num got = th_get_flat(out, i * M + j);
            if (!th_num_eq(got, want)) {
                char a[64], b[64];
                fail_msg("where(%s, %s, %s) [%d, %d]: got %s, want %s", aug_dtype_name(dc), aug_dtype_name(dx),
                         aug_dtype_name(dy), i, j, th_num_str(got, a, 64), th_num_str(want, b, 64));
            }
        }
    aug_tensor_free(out);
    aug_tensor_free(tc);
    aug_tensor_free(tx);
    aug_tensor_free(ty);
}

static void test_every_dtype_pair(void **state) {
    (void)state;
    uint64_t seed = 12345;
    for (int a = 0; a < TH_NUM_DTYPES; a++)
        for (int b = 0; b < TH_NUM_DTYPES; b++) check_pair(TH_DTYPES[(a + b) % TH_NUM_DTYPES], TH_DTYPES[a], TH_DTYPES[b], &seed);
}

/* The chosen element's bits are kept: -0.0 and a NaN payload. */
static void test_bits_kept(void **state) {
    (void)state;
    const int64_t s[1] = {3};
    th_num c[3] = {th_i(1), th_i(0), th_i(1)};
    th_num x[3] = {th_f(-0.0), th_f(1.0), th_f(NAN)};
    th_num y[3] = {th_f(5.0), th_f(-0.0), th_f(2.0)};
    aug_tensor *tc = th_tensor(1, s, AUG_BOOL, c), *tx = th_tensor(1, s, AUG_FLOAT64, x),
               *ty = th_tensor(1, s, AUG_FLOAT64, y);
    uint64_t payload = 0x7ff8000000001234ull;
    memcpy((double *)aug_tensor_ptr(tx) + 2, &payload, 8);
    aug_operand in[3] = {aug_operand_tensor(tc), aug_operand_tensor(tx), aug_operand_tensor(ty)};
    aug_tensor *out = NULL;
    assert_int_equal(aug_elementwise(NULL, AUG_OP_WHERE, 3, in, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, &out), AUG_OK);
    const double *o = aug_tensor_ptr(out);
    assert_true(o[0] == 0 && signbit(o[0]));
    assert_true(o[1] == 0 && signbit(o[1]));
    uint64_t bits;
    memcpy(&bits, &o[2], 8);
    assert_true(bits == payload);
    aug_tensor_free(out);
    aug_tensor_free(tc);
    aug_tensor_free(tx);
    aug_tensor_free(ty);
}

/* Scalars: a weak int next to an int8 tensor takes int8 (saturating), a weak float
 * makes float32, two weak scalars resolve against uint8; a scalar condition. */
static void test_scalars_out_and_override(void **state) {
    (void)state;
    const int64_t s[1] = {4};
    th_num c[4] = {th_i(1), th_i(0), th_i(5), th_i(0)};
    th_num x[4] = {th_i(-100), th_i(100), th_i(-7), th_i(3)};
    aug_tensor *tc = th_tensor(1, s, AUG_INT32, c), *tx = th_tensor(1, s, AUG_INT8, x);
    aug_tensor *out = NULL;
    aug_operand in[3] = {aug_operand_tensor(tc), aug_operand_tensor(tx), aug_operand_scalar(aug_scalar_int(300))};
    assert_int_equal(aug_elementwise(NULL, AUG_OP_WHERE, 3, in, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, &out), AUG_OK);
    assert_int_equal(out->dtype, AUG_INT8); /* the int32 condition takes no part */
    assert_true(th_num_eq(th_get_flat(out, 1), th_i(127)));
    assert_true(th_num_eq(th_get_flat(out, 2), th_i(-7)));
    aug_tensor_free(out);
    out = NULL;
    in[2] = aug_operand_scalar(aug_scalar_float(2.5));
    assert_int_equal(aug_elementwise(NULL, AUG_OP_WHERE, 3, in, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, &out), AUG_OK);
    assert_int_equal(out->dtype, AUG_FLOAT32);
    assert_true(th_num_eq(th_get_flat(out, 3), th_f(2.5)));
    assert_true(th_num_eq(th_get_flat(out, 0), th_f(-100)));
    aug_tensor_free(out);
    out = NULL;
    aug_operand w[3] = {aug_operand_tensor(tc), aug_operand_scalar(aug_scalar_int(7)), aug_operand_scalar(aug_scalar_int(9))};
    assert_int_equal(aug_elementwise(NULL, AUG_OP_WHERE, 3, w, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, &out), AUG_OK);
    assert_int_equal(out->dtype, AUG_UINT8);
    assert_true(th_num_eq(th_get_flat(out, 0), th_i(7)) && th_num_eq(th_get_flat(out, 1), th_i(9)));
    aug_tensor_free(out);
    /* a scalar condition and an out= of another dtype (saturated) */
    out = aug_tensor_zeros(1, s, AUG_UINT8, aug_cpu_device());
    aug_operand sc[3] = {aug_operand_scalar(aug_scalar_float(NAN)), aug_operand_tensor(tx), aug_operand_scalar(aug_scalar_int(1))};
    assert_int_equal(aug_elementwise(NULL, AUG_OP_WHERE, 3, sc, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, &out), AUG_OK);
    assert_true(th_num_eq(th_get_flat(out, 0), th_i(0)) && th_num_eq(th_get_flat(out, 1), th_i(100)));
    aug_tensor_free(out);
    /* a compute override: x and y cast to it, the condition still read as bool */
    out = NULL;
    th_num cf[4] = {th_f(0.25), th_f(0.0), th_f(NAN), th_f(-0.0)};
    aug_tensor *tcf = th_tensor(1, s, AUG_FLOAT32, cf);
    aug_operand ov[3] = {aug_operand_tensor(tcf), aug_operand_tensor(tx), aug_operand_scalar(aug_scalar_int(1000))};
    assert_int_equal(aug_elementwise(NULL, AUG_OP_WHERE, 3, ov, AUG_UINT8, AUG_UINT8, &out), AUG_OK);
    assert_int_equal(out->dtype, AUG_UINT8);
    assert_true(th_num_eq(th_get_flat(out, 0), th_i(0)));   /* -100 -> uint8 0 */
    assert_true(th_num_eq(th_get_flat(out, 1), th_i(255))); /* 1000 -> uint8 255 */
    assert_true(th_num_eq(th_get_flat(out, 2), th_i(0)));   /* NaN is true: -7 -> 0 */
    assert_true(th_num_eq(th_get_flat(out, 3), th_i(255)));
    aug_tensor_free(out);
    aug_tensor_free(tcf);
    aug_tensor_free(tc);
    aug_tensor_free(tx);
}

static void test_errors(void **state) {
    (void)state;
    const int64_t s2[1] = {2}, s3[1] = {3};
    aug_tensor *a = aug_tensor_zeros(1, s2, AUG_BOOL, aug_cpu_device());
    aug_tensor *b = aug_tensor_zeros(1, s3, AUG_FLOAT32, aug_cpu_device());
    aug_tensor *out = NULL;
    aug_operand in[3] = {aug_operand_tensor(a), aug_operand_tensor(b), aug_operand_tensor(b)};
    assert_int_equal(aug_elementwise("aug_where", AUG_OP_WHERE, 3, in, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, &out),
                     AUG_ERR_VALUE);
    assert_non_null(strstr(aug_last_error(), "aug_where"));
    assert_null(out);
    assert_int_equal(aug_op_arity(AUG_OP_WHERE), 3);
    assert_string_equal(aug_op_name(AUG_OP_WHERE), "where");
    aug_tensor_free(a);
    aug_tensor_free(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_dtype_pair),
        cmocka_unit_test(test_bits_kept),
        cmocka_unit_test(test_scalars_out_and_override),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
