/* test_ops_bitwise.c: & | ^ ~ << >> through the public API (semantics §7): every
 * integral dtype pair (bool logical), on the exact operand values (infinite two's
 * complement) saturated once into the promoted type, shifts as values
 * (x << k = x * 2^k saturated, x >> k = floor(x / 2^k), counts >= the width,
 * negative counts shifting the other way), weak scalar and
 * typed counts, contiguous / broadcast / reversed / strided, errors, threads.
 * References work on exact __int128 values. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "aug/aug.h"
#include "helpers/th_ops.h"

static const aug_dtype INTEGRAL[9] = {AUG_BOOL,  AUG_INT8,   AUG_INT16,  AUG_INT32, AUG_INT64,
                                      AUG_UINT8, AUG_UINT16, AUG_UINT32, AUG_UINT64};

/* x * 2^k (k any integer), exact then saturated to r. */
static th_num ref_shift_left(th_i128 x, th_i128 k, aug_dtype r) {
    if (k >= 0) {
        if (x == 0) return th_i(0);
        if (k >= 64) return th_sat(th_i(x > 0 ? th_imax(AUG_UINT64) : th_imin(AUG_INT64) - 1), r);
        return th_sat(th_i(x * ((th_i128)1 << k)), r); /* |x| < 2^64, k < 64: fits */
    }
    th_i128 m = -k;
    if (m >= 100) return th_i(x < 0 ? -1 : 0);
    return th_sat(th_i(x >> m), r); /* floor for negatives (arithmetic shift) */
}

static th_num ref_bitwise(aug_op op, th_num a, th_num b, aug_dtype da, aug_dtype db, aug_dtype r) {
    (void)da;
    (void)db;
    th_i128 x = a.i, y = b.i; /* exact: two's complement sign-extended without end */
    if (r == AUG_BOOL) {
        switch (op) {
        case AUG_OP_AND: return th_i(x && y);
        case AUG_OP_OR: return th_i(x || y);
        default: return th_i((x != 0) != (y != 0));
        }
    }
    switch (op) {
    case AUG_OP_AND: return th_sat(th_i(x & y), r);
    case AUG_OP_OR: return th_sat(th_i(x | y), r);
    case AUG_OP_XOR: return th_sat(th_i(x ^ y), r);
    case AUG_OP_LSHIFT: return ref_shift_left(x, y, r);
    default: return ref_shift_left(x, -y, r);
    }
}

#define NV 23

static void test_logic_all_pairs(void **state) {
    (void)state;
    const aug_op ops[3] = {AUG_OP_AND, AUG_OP_OR, AUG_OP_XOR};
    uint64_t seed = 11;
    for (int o = 0; o < 3; o++)
        for (int i = 0; i < 9; i++)
            for (int j = 0; j < 9; j++) {
                th_num va[NV], vb[NV];
                th_values(INTEGRAL[i], va, NV, &seed);
                th_values(INTEGRAL[j], vb, NV, &seed);
                aug_dtype r = th_promote(INTEGRAL[i], INTEGRAL[j]);
                assert_true(th_check_pairs(ops[o], INTEGRAL[i], va, INTEGRAL[j], vb, NV, r, ref_bitwise));
            }
}

/* Shift counts: small, around the widths, negative, huge. */
static void count_values(aug_dtype t, th_num *out, int n, uint64_t *seed) {
    const int ks[] = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, -1, -2, -7, -8, -9, -31,
                      -32, -33, -63, -64, -65, -128, 5, -5};
    int m = (int)(sizeof ks / sizeof ks[0]);
    for (int i = 0; i < n; i++) {
        if (i < m && (th_is_signed(t) || ks[i] >= 0))
            out[i] = th_sat(th_i(ks[i]), t);
        else
            out[i] = th_random(t, seed);
    }
}

static void test_shift_all_pairs(void **state) {
    (void)state;
    uint64_t seed = 13;
    for (int o = 0; o < 2; o++)
        for (int i = 0; i < 9; i++)
            for (int j = 0; j < 9; j++) {
                aug_dtype da = INTEGRAL[i], db = INTEGRAL[j];
                if (da == AUG_BOOL && db == AUG_BOOL) continue; /* rejected: test_promote */
                th_num va[40], vb[40];
                th_values(da, va, 40, &seed);
                count_values(db, vb, 40, &seed);
                aug_dtype r = th_promote(da, db);
                assert_true(th_check_pairs(o ? AUG_OP_RSHIFT : AUG_OP_LSHIFT, da, va, db, vb, 40, r, ref_bitwise));
            }
}

static void test_invert(void **state) {
    (void)state;
    uint64_t seed = 17;
    for (int i = 0; i < 9; i++) {
        aug_dtype d = INTEGRAL[i];
        int64_t n = 77;
        th_num v[77];
        th_values(d, v, (int)n, &seed);
        aug_tensor *t = th_tensor(1, &n, d, v), *rev = th_reversed(t), *o1 = NULL, *o2 = NULL;
        assert_int_equal(aug_unary(AUG_OP_INVERT, t, &o1), AUG_OK);
        assert_int_equal(aug_unary(AUG_OP_INVERT, rev, &o2), AUG_OK);
        assert_int_equal(o1->dtype, d);
        for (int64_t k = 0; k < n; k++) {
            th_i128 x = v[k].i, want = d == AUG_BOOL ? !x : th_is_signed(d) ? -x - 1 : th_imax(d) - x;
            assert_true(th_get_flat(o1, k).i == want);
            th_i128 y = v[n - 1 - k].i, want2 = d == AUG_BOOL ? !y : th_is_signed(d) ? -y - 1 : th_imax(d) - y;
            assert_true(th_get_flat(o2, k).i == want2);
        }
        aug_tensor_free(o1);
        aug_tensor_free(o2);
        aug_tensor_free(rev);
        aug_tensor_free(t);
    }
}

/* Weak counts and operands: exact shift semantics survive the saturating cast of
 * the count (a negative count on an unsigned type shifts the other way). */
static void test_scalars(void **state) {
    (void)state;
    const int64_t ks[] = {0, 1, 3, 7, 8, 9, 40, 63, 64, 100, 200, 300, 1000, -1, -3, -8, -9, -100, -300, INT64_MIN,
                          INT64_MAX};
    uint64_t seed = 19;
    for (int i = 1; i < 9; i++) {
        aug_dtype d = INTEGRAL[i];
        int64_t n = 30;
        th_num v[30];
        th_values(d, v, (int)n, &seed);
        aug_tensor *t = th_tensor(1, &n, d, v);
        for (size_t c = 0; c < sizeof ks / sizeof ks[0]; c++)
            for (int o = 0; o < 2; o++) {
                aug_op op = o ? AUG_OP_RSHIFT : AUG_OP_LSHIFT;
                aug_tensor *out = NULL;
                assert_int_equal(aug_binary_scalar(op, t, aug_scalar_int(ks[c]), &out), AUG_OK);
                assert_int_equal(out->dtype, d);
                for (int64_t k = 0; k < n; k++) {
                    th_i128 cnt = o ? -(th_i128)ks[c] : (th_i128)ks[c];
                    th_num want = ref_shift_left(v[k].i, cnt, d);
                    if (!th_num_eq(want, th_get_flat(out, k))) {
                        char a[64], b[64];
                        print_error("%s %s %lld: element %s: got %s\n", aug_dtype_name(d), aug_op_name(op),
                                    (long long)ks[c], th_num_str(v[k], a, 64), th_num_str(th_get_flat(out, k), b, 64));
                    }
                    assert_true(th_num_eq(want, th_get_flat(out, k)));
                }
                aug_tensor_free(out);
            }
        /* & | ^ with weak ints: on the scalar's exact value (u8 & -1 is u8, u8 | 300 is 255) */
        const int64_t ws[] = {0, 1, -1, 300, -300, 0x55, INT64_MIN};
        for (size_t c = 0; c < sizeof ws / sizeof ws[0]; c++)
            for (int o = 0; o < 3; o++) {
                aug_op op = o == 0 ? AUG_OP_AND : o == 1 ? AUG_OP_OR : AUG_OP_XOR;
                aug_tensor *out = NULL;
                assert_int_equal(aug_binary_rscalar(op, aug_scalar_int(ws[c]), t, &out), AUG_OK);
                for (int64_t k = 0; k < n; k++)
                    assert_true(th_num_eq(ref_bitwise(op, th_i(ws[c]), v[k], d, d, d), th_get_flat(out, k)));
                aug_tensor_free(out);
            }
        aug_tensor_free(t);
    }
    /* the semantics page's examples: shifts saturate; >> of negatives floors */
    int64_t n = 4;
    th_num u[4] = {th_i(1), th_i(100), th_i(-100), th_i(-1)};
    aug_tensor *t = th_tensor(1, &n, AUG_INT8, u), *out = NULL;
    assert_int_equal(aug_binary_scalar(AUG_OP_LSHIFT, t, aug_scalar_int(2), &out), AUG_OK);
    assert_true(th_get_flat(out, 0).i == 4 && th_get_flat(out, 1).i == 127 && th_get_flat(out, 2).i == -128 &&
                th_get_flat(out, 3).i == -4);
    aug_tensor_free(out);
    out = NULL;
    assert_int_equal(aug_binary_scalar(AUG_OP_RSHIFT, t, aug_scalar_int(3), &out), AUG_OK);
    assert_true(th_get_flat(out, 0).i == 0 && th_get_flat(out, 1).i == 12 && th_get_flat(out, 2).i == -13 &&
                th_get_flat(out, 3).i == -1);
    aug_tensor_free(out);
    out = NULL;
    assert_int_equal(aug_binary_scalar(AUG_OP_RSHIFT, t, aug_scalar_int(8), &out), AUG_OK);
    assert_true(th_get_flat(out, 0).i == 0 && th_get_flat(out, 2).i == -1);
    aug_tensor_free(out);
    /* a typed count */
    aug_scalar c;
    assert_int_equal(aug_scalar_typed_int(1, AUG_UINT8, &c), AUG_OK);
    out = NULL;
    assert_int_equal(aug_binary_scalar(AUG_OP_LSHIFT, t, c, &out), AUG_OK);
    assert_int_equal(out->dtype, AUG_INT16);
    assert_true(th_get_flat(out, 1).i == 200 && th_get_flat(out, 2).i == -200);
    aug_tensor_free(out);
    aug_tensor_free(t);
    /* issue 11 (DALI): an operand beyond R takes part with its exact value */
    n = 1;
    th_num m128[1] = {th_i(-128)}, big[1] = {th_i((th_i128)1 << 63)}, one[1] = {th_i(1)};
    aug_tensor *a = th_tensor(1, &n, AUG_INT8, m128), *u64t = th_tensor(1, &n, AUG_UINT64, big);
    aug_tensor *k = th_tensor(1, &n, AUG_INT8, one);
    out = NULL;
    assert_int_equal(aug_binary(AUG_OP_AND, a, u64t, &out), AUG_OK); /* exact 2^63 saturates */
    assert_int_equal(out->dtype, AUG_INT64);
    assert_true(th_get_flat(out, 0).i == INT64_MAX);
    aug_tensor_free(out);
    out = NULL;
    assert_int_equal(aug_binary(AUG_OP_RSHIFT, u64t, k, &out), AUG_OK); /* exact 2^62 fits */
    assert_true(th_get_flat(out, 0).i == (th_i128)1 << 62);
    aug_tensor_free(out);
    out = NULL;
    assert_int_equal(aug_binary_scalar(AUG_OP_AND, u64t, aug_scalar_int(-1), &out), AUG_OK); /* u64 & -1 = u64 */
    assert_true(th_get_flat(out, 0).i == (th_i128)1 << 63);
    aug_tensor_free(out);
    aug_tensor_free(a);
    aug_tensor_free(u64t);
    aug_tensor_free(k);
}

static void test_errors_and_threads(void **state) {
    (void)state;
    int64_t s234[3] = {2, 3, 4}, s233[3] = {2, 3, 3};
    aug_tensor *a = aug_tensor_zeros(3, s234, AUG_INT8, aug_cpu_device());
    aug_tensor *b = aug_tensor_zeros(3, s233, AUG_INT8, aug_cpu_device());
    aug_tensor *out = NULL;
    assert_int_equal(aug_binary(AUG_OP_AND, a, b, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_and: cannot broadcast shapes (2, 3, 4) and (2, 3, 3)");
    assert_int_equal(aug_binary(AUG_OP_RSHIFT, a, b, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_rshift: cannot broadcast shapes (2, 3, 4) and (2, 3, 3)");
    aug_tensor *f = aug_tensor_zeros(3, s234, AUG_FLOAT32, aug_cpu_device());
    assert_int_equal(aug_binary(AUG_OP_XOR, a, f, &out), AUG_ERR_TYPE);
    assert_string_equal(aug_last_error(), "aug_xor: Inputs to bitwise operator `^` must be of integral type.");
    assert_null(out);
    aug_tensor_free(f);
    aug_tensor_free(a);
    aug_tensor_free(b);
    /* in place, then 1 vs 2 threads */
    int64_t n = 150001;
    uint64_t seed = 23;
    th_num *v = malloc(sizeof(th_num) * (size_t)n), *w = malloc(sizeof(th_num) * (size_t)n);
    th_values(AUG_UINT16, v, (int)n, &seed);
    count_values(AUG_INT8, w, (int)n, &seed);
    aug_tensor *x = th_tensor(1, &n, AUG_UINT16, v), *k = th_tensor(1, &n, AUG_INT8, w);
    aug_tensor *o1 = NULL, *o2 = NULL;
    assert_int_equal(aug_set_num_threads(1), AUG_OK);
    assert_int_equal(aug_binary(AUG_OP_LSHIFT, x, k, &o1), AUG_OK);
    assert_int_equal(aug_set_num_threads(2), AUG_OK);
    assert_int_equal(aug_binary(AUG_OP_LSHIFT, x, k, &o2), AUG_OK);
    assert_int_equal(aug_set_num_threads(0), AUG_OK);
    assert_int_equal(o1->dtype, AUG_INT32);
    assert_memory_equal(aug_tensor_ptr(o1), aug_tensor_ptr(o2), (size_t)n * 4);
    out = x;
    assert_int_equal(aug_binary(AUG_OP_XOR, x, x, &out), AUG_OK);
    for (int64_t i = 0; i < n; i += 997) assert_true(th_get_flat(x, i).i == 0);
    aug_tensor_free(o1);
    aug_tensor_free(o2);
    aug_tensor_free(x);
    aug_tensor_free(k);
    free(v);
    free(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_logic_all_pairs),
        cmocka_unit_test(test_shift_all_pairs),
        cmocka_unit_test(test_invert),
        cmocka_unit_test(test_scalars),
        cmocka_unit_test(test_errors_and_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
