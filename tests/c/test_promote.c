/* test_promote.c: result dtypes and type rules of the elementwise ops (semantics §6-§9)
 * through the public API: the 13x13 promotion table, per-op result dtypes, weak
 * scalars and typed constants, DALI's bool and bitwise errors with their text,
 * layouts, argument errors, and that every (op, dtype) combination the rules allow
 * reaches a kernel (with and without a compute override). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "aug/aug.h"
#include "helpers/th_ops.h"

static aug_tensor *small(aug_dtype t, int64_t n) {
    th_num v[8];
    for (int64_t i = 0; i < n; i++) v[i] = th_sat(th_i(i + 1), t);
    return th_tensor(1, &n, t, v);
}

static const aug_op MATH_OPS[] = {AUG_OP_FABS, AUG_OP_FLOOR, AUG_OP_CEIL,  AUG_OP_FPOW,  AUG_OP_SQRT,
                                  AUG_OP_RSQRT, AUG_OP_CBRT, AUG_OP_EXP,   AUG_OP_LOG,   AUG_OP_LOG2,
                                  AUG_OP_LOG10, AUG_OP_SIN,  AUG_OP_COS,   AUG_OP_TAN,   AUG_OP_ASIN,
                                  AUG_OP_ACOS,  AUG_OP_ATAN, AUG_OP_ATAN2, AUG_OP_SINH,  AUG_OP_COSH,
                                  AUG_OP_TANH,  AUG_OP_ASINH, AUG_OP_ACOSH, AUG_OP_ATANH};

static int is_math(aug_op op) {
    for (size_t i = 0; i < sizeof MATH_OPS / sizeof MATH_OPS[0]; i++)
        if (MATH_OPS[i] == op) return 1;
    return 0;
}
static int is_cmp(aug_op op) { return op >= AUG_OP_EQ && op <= AUG_OP_GE; }
static int is_bitwise(aug_op op) {
    return op == AUG_OP_AND || op == AUG_OP_OR || op == AUG_OP_XOR || op == AUG_OP_INVERT || op == AUG_OP_LSHIFT ||
           op == AUG_OP_RSHIFT;
}
static int bool_ok(aug_op op) {
    return op == AUG_OP_MUL || op == AUG_OP_AND || op == AUG_OP_OR || op == AUG_OP_XOR || op == AUG_OP_INVERT ||
           is_cmp(op) || op == AUG_OP_COPY || op == AUG_OP_WHERE;
}

/* The semantics page's answer for tensor operands of dtypes d[]: 0 and *r, or 1 for a type error. */
static int expected_result(aug_op op, int nin, const aug_dtype *d, aug_dtype *r) {
    if (op == AUG_OP_WHERE) { /* x and y promoted; the condition takes no part */
        *r = th_promote(d[1], d[2]);
        return 0;
    }
    aug_dtype p = d[0];
    int all_bool = d[0] == AUG_BOOL, any_float = th_is_float(d[0]);
    for (int i = 1; i < nin; i++) {
        p = th_promote(p, d[i]);
        all_bool = all_bool && d[i] == AUG_BOOL;
        any_float = any_float || th_is_float(d[i]);
    }
    if (is_bitwise(op) && any_float) return 1;
    if (all_bool && !bool_ok(op)) return 1;
    if (op == AUG_OP_POS || op == AUG_OP_NEG || op == AUG_OP_ABS || op == AUG_OP_INVERT || op == AUG_OP_COPY)
        *r = d[0];
    else if (is_cmp(op))
        *r = AUG_BOOL;
    else if (op == AUG_OP_TRUEDIV || is_math(op))
        *r = th_is_float(p) ? p : AUG_FLOAT32;
    else if (op == AUG_OP_FMA)
        *r = d[2];
    else
        *r = p;
    return 0;
}

static void test_op_names(void **state) {
    (void)state;
    assert_string_equal(aug_op_name(AUG_OP_ADD), "+");
    assert_string_equal(aug_op_name(AUG_OP_FLOORDIV), "//");
    assert_string_equal(aug_op_name(AUG_OP_LSHIFT), "<<");
    assert_string_equal(aug_op_name(AUG_OP_ATAN2), "atan2");
    assert_string_equal(aug_op_name(AUG_OP_COPY), "copy");
    assert_int_equal(aug_op_arity(AUG_OP_NEG), 1);
    assert_int_equal(aug_op_arity(AUG_OP_SUB), 2);
    assert_int_equal(aug_op_arity(AUG_OP_CLAMP), 3);
    assert_int_equal(aug_op_arity(AUG_OP_FMA), 3);
    assert_int_equal(aug_op_arity((aug_op)-1), 0);
    assert_int_equal(aug_op_arity(AUG_NUM_OPS), 0);
    assert_string_equal(aug_op_name(AUG_NUM_OPS), "invalid");
}

/* semantics §6 rows spelled out, and the table symmetric, for aug_op_result_dtype and a
 * real operation's output. */
static void test_promotion_table(void **state) {
    (void)state;
    static const struct { aug_dtype a, b, r; } rows[] = {
        {AUG_INT8, AUG_UINT8, AUG_INT16},      {AUG_INT8, AUG_UINT16, AUG_INT32},
        {AUG_INT8, AUG_UINT32, AUG_INT64},     {AUG_INT8, AUG_UINT64, AUG_INT64},
        {AUG_INT16, AUG_UINT8, AUG_INT16},     {AUG_INT32, AUG_UINT16, AUG_INT32},
        {AUG_INT64, AUG_UINT64, AUG_INT64},    {AUG_UINT8, AUG_UINT32, AUG_UINT32},
        {AUG_BOOL, AUG_FLOAT16, AUG_FLOAT16},  {AUG_FLOAT16, AUG_BFLOAT16, AUG_FLOAT32},
        {AUG_UINT64, AUG_BFLOAT16, AUG_BFLOAT16}, {AUG_FLOAT32, AUG_FLOAT64, AUG_FLOAT64},
        {AUG_INT64, AUG_FLOAT16, AUG_FLOAT16}, {AUG_BOOL, AUG_UINT8, AUG_UINT8},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) assert_int_equal(th_promote(rows[i].a, rows[i].b), rows[i].r);
    for (int i = 0; i < TH_NUM_DTYPES; i++)
        for (int j = 0; j < TH_NUM_DTYPES; j++) {
            aug_dtype a = TH_DTYPES[i], b = TH_DTYPES[j];
            assert_int_equal(aug_promote(a, b), th_promote(a, b));
            aug_tensor *ta = small(a, 2), *tb = small(b, 2), *out = NULL;
            aug_operand in[2] = {aug_operand_tensor(ta), aug_operand_tensor(tb)};
            aug_dtype r = AUG_DTYPE_AUTO;
            assert_int_equal(aug_op_result_dtype(NULL, AUG_OP_MUL, 2, in, &r), AUG_OK);
            assert_int_equal(r, th_promote(a, b));
            assert_int_equal(aug_binary(AUG_OP_MUL, ta, tb, &out), AUG_OK);
            assert_int_equal(out->dtype, th_promote(a, b));
            aug_tensor_free(out);
            aug_tensor_free(ta);
            aug_tensor_free(tb);
        }
}

/* Result dtypes and type errors of every op on every dtype (pair), tensors only. */
static void test_result_dtype_every_op(void **state) {
    (void)state;
    for (int op = 0; op < AUG_NUM_OPS; op++) {
        int nin = aug_op_arity((aug_op)op);
        for (int i = 0; i < TH_NUM_DTYPES; i++)
            for (int j = 0; j < (nin > 1 ? TH_NUM_DTYPES : 1); j++) {
                aug_dtype d[3] = {TH_DTYPES[i], TH_DTYPES[j], TH_DTYPES[(i + j) % TH_NUM_DTYPES]};
                aug_tensor *t[3] = {small(d[0], 1), small(d[1], 1), small(d[2], 1)};
                aug_operand in[3] = {aug_operand_tensor(t[0]), aug_operand_tensor(t[1]), aug_operand_tensor(t[2])};
                aug_dtype want = AUG_DTYPE_AUTO, got = AUG_DTYPE_AUTO;
                int err = expected_result((aug_op)op, nin, d, &want);
                aug_status st = aug_op_result_dtype(NULL, (aug_op)op, nin, in, &got);
                if (err) {
                    assert_int_equal(st, AUG_ERR_TYPE);
                    assert_true(th_error_has("Inputs to "));
                } else {
                    if (st != AUG_OK) print_error("op %s: %s\n", aug_op_name((aug_op)op), aug_last_error());
                    assert_int_equal(st, AUG_OK);
                    assert_int_equal(got, want);
                }
                for (int k = 0; k < 3; k++) aug_tensor_free(t[k]);
            }
    }
}

static aug_dtype result_of(aug_op op, aug_operand a, aug_operand b) {
    aug_operand in[2] = {a, b};
    aug_dtype r = AUG_DTYPE_AUTO;
    aug_status st = aug_op_result_dtype(NULL, op, 2, in, &r);
    if (st != AUG_OK) print_error("%s\n", aug_last_error());
    assert_int_equal(st, AUG_OK);
    return r;
}

static void test_weak_scalars(void **state) {
    (void)state;
    for (int i = 0; i < TH_NUM_DTYPES; i++) {
        aug_dtype d = TH_DTYPES[i];
        aug_tensor *t = small(d, 2);
        aug_operand ot = aug_operand_tensor(t);
        aug_operand wi = aug_operand_scalar(aug_scalar_int(5)), wf = aug_operand_scalar(aug_scalar_float(0.5));
        aug_operand wbig = aug_operand_scalar(aug_scalar_uint(UINT64_MAX));
        aug_dtype want_i = d == AUG_BOOL ? AUG_INT32 : d;
        aug_dtype want_f = th_is_float(d) ? d : AUG_FLOAT32;
        assert_int_equal(result_of(AUG_OP_ADD, ot, wi), want_i);
        assert_int_equal(result_of(AUG_OP_SUB, wi, ot), want_i);
        assert_int_equal(result_of(AUG_OP_ADD, ot, wbig), want_i);
        assert_int_equal(result_of(AUG_OP_MUL, wf, ot), want_f);
        assert_int_equal(result_of(AUG_OP_TRUEDIV, ot, wi), th_is_float(d) ? d : AUG_FLOAT32);
        assert_int_equal(result_of(AUG_OP_LT, ot, wf), AUG_BOOL);
        /* a bool scalar is a bool operand; typed constants promote like tensors */
        assert_int_equal(result_of(AUG_OP_MUL, ot, aug_operand_scalar(aug_scalar_bool(1))), d);
        aug_scalar c;
        assert_int_equal(aug_scalar_typed_int(7, AUG_INT32, &c), AUG_OK);
        assert_int_equal(result_of(AUG_OP_MAX, ot, aug_operand_scalar(c)), th_promote(d, AUG_INT32));
        assert_int_equal(aug_scalar_typed_float(1.5, AUG_FLOAT16, &c), AUG_OK);
        assert_int_equal(result_of(AUG_OP_MAX, aug_operand_scalar(c), ot), th_promote(AUG_FLOAT16, d));
        aug_tensor_free(t);
    }
    /* the seed's 5 - t and 0 - t on uint8 stay uint8 (and saturate) */
    int64_t n = 3;
    th_num v[3] = {th_i(0), th_i(3), th_i(200)};
    aug_tensor *t = th_tensor(1, &n, AUG_UINT8, v), *r = NULL;
    assert_int_equal(aug_binary_rscalar(AUG_OP_SUB, aug_scalar_int(5), t, &r), AUG_OK);
    assert_int_equal(r->dtype, AUG_UINT8);
    assert_true(th_get_flat(r, 0).i == 5 && th_get_flat(r, 1).i == 2 && th_get_flat(r, 2).i == 0);
    aug_tensor_free(r);
    r = NULL;
    assert_int_equal(aug_binary_rscalar(AUG_OP_SUB, aug_scalar_int(0), t, &r), AUG_OK);
    assert_int_equal(r->dtype, AUG_UINT8);
    assert_true(th_get_flat(r, 0).i == 0 && th_get_flat(r, 1).i == 0 && th_get_flat(r, 2).i == 0);
    aug_tensor_free(r);
    aug_tensor_free(t);
    /* three operands fold left to right: clamp(u8, i8 scalar const, f16) */
    aug_tensor *a = small(AUG_UINT8, 2), *h = small(AUG_FLOAT16, 2);
    aug_scalar c8;
    assert_int_equal(aug_scalar_typed_int(-3, AUG_INT8, &c8), AUG_OK);
    aug_operand in3[3] = {aug_operand_tensor(a), aug_operand_scalar(c8), aug_operand_tensor(h)};
    aug_dtype r3;
    assert_int_equal(aug_op_result_dtype(NULL, AUG_OP_CLAMP, 3, in3, &r3), AUG_OK);
    assert_int_equal(r3, AUG_FLOAT16);
    in3[2] = aug_operand_scalar(aug_scalar_float(2.0));
    assert_int_equal(aug_op_result_dtype(NULL, AUG_OP_CLAMP, 3, in3, &r3), AUG_OK);
    assert_int_equal(r3, AUG_FLOAT32);
    /* fma: t2's dtype */
    aug_operand f3[3] = {aug_operand_scalar(aug_scalar_float(2.0)), aug_operand_tensor(h), aug_operand_tensor(a)};
    assert_int_equal(aug_op_result_dtype(NULL, AUG_OP_FMA, 3, f3, &r3), AUG_OK);
    assert_int_equal(r3, AUG_UINT8);
    aug_tensor_free(a);
    aug_tensor_free(h);
}

static void expect_type_error(aug_op op, aug_dtype da, aug_dtype db, int with_b, const char *msg) {
    aug_tensor *a = small(da, 2), *b = small(db, 2), *out = NULL;
    aug_status st = with_b ? aug_binary(op, a, b, &out) : aug_unary(op, a, &out);
    assert_int_equal(st, AUG_ERR_TYPE);
    assert_int_equal(aug_last_status(), AUG_ERR_TYPE);
    assert_null(out);
    if (strcmp(aug_last_error(), msg) != 0) print_error("got \"%s\"\nwant \"%s\"\n", aug_last_error(), msg);
    assert_string_equal(aug_last_error(), msg);
    aug_tensor_free(a);
    aug_tensor_free(b);
}

static void test_bool_rules(void **state) {
    (void)state;
    expect_type_error(AUG_OP_ADD, AUG_BOOL, AUG_BOOL, 1,
                      "aug_add: Inputs to arithmetic operator `+` cannot be booleans. Consider using bitwise operator `|`.");
    expect_type_error(AUG_OP_SUB, AUG_BOOL, AUG_BOOL, 1,
                      "aug_sub: Inputs to arithmetic operator `-` cannot be booleans. Consider using bitwise operator `^`.");
    expect_type_error(AUG_OP_TRUEDIV, AUG_BOOL, AUG_BOOL, 1, "aug_truediv: Inputs to arithmetic operator `/` cannot be booleans.");
    expect_type_error(AUG_OP_FLOORDIV, AUG_BOOL, AUG_BOOL, 1, "aug_floordiv: Inputs to arithmetic operator `//` cannot be booleans.");
    expect_type_error(AUG_OP_POW, AUG_BOOL, AUG_BOOL, 1, "aug_pow: Inputs to arithmetic operator `**` cannot be booleans.");
    expect_type_error(AUG_OP_NEG, AUG_BOOL, AUG_BOOL, 0, "aug_neg: Inputs to arithmetic operator `-` cannot be booleans.");
    expect_type_error(AUG_OP_SQRT, AUG_BOOL, AUG_BOOL, 0, "aug_sqrt: Inputs to arithmetic operator `sqrt` cannot be booleans.");
    expect_type_error(AUG_OP_LSHIFT, AUG_BOOL, AUG_BOOL, 1, "aug_lshift: Inputs to bitwise operator `<<` cannot be booleans.");
    /* min, max and clamp are arithmetic too (DALI, issue 11) */
    expect_type_error(AUG_OP_MIN, AUG_BOOL, AUG_BOOL, 1, "aug_min: Inputs to arithmetic operator `min` cannot be booleans.");
    expect_type_error(AUG_OP_MAX, AUG_BOOL, AUG_BOOL, 1, "aug_max: Inputs to arithmetic operator `max` cannot be booleans.");
    /* a bool scalar is as boolean as a bool tensor */
    aug_tensor *b = small(AUG_BOOL, 2), *out = NULL;
    assert_int_equal(aug_binary_scalar(AUG_OP_ADD, b, aug_scalar_bool(1), &out), AUG_ERR_TYPE);
    assert_true(th_error_has("cannot be booleans"));
    /* ... but a weak int makes it int32 arithmetic */
    assert_int_equal(aug_binary_scalar(AUG_OP_ADD, b, aug_scalar_int(1), &out), AUG_OK);
    assert_int_equal(out->dtype, AUG_INT32);
    aug_tensor_free(out);
    /* allowed ops give bool */
    const aug_op ok[] = {AUG_OP_MUL, AUG_OP_AND, AUG_OP_OR, AUG_OP_XOR, AUG_OP_EQ, AUG_OP_LT};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        out = NULL;
        assert_int_equal(aug_binary(ok[i], b, b, &out), AUG_OK);
        assert_int_equal(out->dtype, AUG_BOOL);
        aug_tensor_free(out);
    }
    out = NULL;
    assert_int_equal(aug_unary(AUG_OP_INVERT, b, &out), AUG_OK);
    assert_int_equal(out->dtype, AUG_BOOL);
    aug_tensor_free(out);
    aug_tensor_free(b);
}

static void test_bitwise_float_rules(void **state) {
    (void)state;
    expect_type_error(AUG_OP_AND, AUG_FLOAT32, AUG_INT32, 1, "aug_and: Inputs to bitwise operator `&` must be of integral type.");
    expect_type_error(AUG_OP_OR, AUG_UINT8, AUG_FLOAT16, 1, "aug_or: Inputs to bitwise operator `|` must be of integral type.");
    expect_type_error(AUG_OP_XOR, AUG_BFLOAT16, AUG_BOOL, 1, "aug_xor: Inputs to bitwise operator `^` must be of integral type.");
    expect_type_error(AUG_OP_INVERT, AUG_FLOAT64, AUG_FLOAT64, 0, "aug_invert: Inputs to bitwise operator `~` must be of integral type.");
    expect_type_error(AUG_OP_LSHIFT, AUG_INT8, AUG_FLOAT64, 1, "aug_lshift: Inputs to bitwise operator `<<` must be of integral type.");
    expect_type_error(AUG_OP_RSHIFT, AUG_FLOAT32, AUG_UINT8, 1, "aug_rshift: Inputs to bitwise operator `>>` must be of integral type.");
    aug_tensor *t = small(AUG_INT32, 2), *out = NULL;
    assert_int_equal(aug_binary_scalar(AUG_OP_AND, t, aug_scalar_float(1.0), &out), AUG_ERR_TYPE);
    assert_true(th_error_has("must be of integral type"));
    assert_null(out);
    aug_tensor_free(t);
}

/* Every op on every dtype combination the rules allow runs (a kernel exists for
 * the ctypes the core picks), with tensors, weak scalars, typed constants and a
 * compute override. */
static void run_ok(aug_op op, int nin, const aug_operand *in, aug_dtype compute, aug_dtype want) {
    aug_tensor *out = NULL;
    aug_status st = aug_elementwise(NULL, op, nin, in, compute, AUG_DTYPE_AUTO, &out);
    if (st != AUG_OK) print_error("op %s compute %d: %s\n", aug_op_name(op), (int)compute, aug_last_error());
    assert_int_equal(st, AUG_OK);
    if (want != AUG_DTYPE_AUTO) assert_int_equal(out->dtype, want);
    aug_tensor_free(out);
}

static void test_every_op_reaches_a_kernel(void **state) {
    (void)state;
    aug_scalar consts[TH_NUM_DTYPES];
    for (int i = 0; i < TH_NUM_DTYPES; i++)
        assert_int_equal(aug_scalar_typed_int(3, TH_DTYPES[i], &consts[i]), AUG_OK);
    for (int op = 0; op < AUG_NUM_OPS; op++) {
        int nin = aug_op_arity((aug_op)op);
        for (int i = 0; i < TH_NUM_DTYPES; i++) {
            for (int j = 0; j < (nin > 1 ? TH_NUM_DTYPES : 1); j++) {
                aug_dtype d[3] = {TH_DTYPES[i], TH_DTYPES[j], TH_DTYPES[(i * 7 + j) % TH_NUM_DTYPES]};
                aug_tensor *t[3] = {small(d[0], 3), small(d[1], 3), small(d[2], 3)};
                aug_operand in[3] = {aug_operand_tensor(t[0]), aug_operand_tensor(t[1]), aug_operand_tensor(t[2])};
                aug_dtype want;
                if (!expected_result((aug_op)op, nin, d, &want)) run_ok((aug_op)op, nin, in, AUG_DTYPE_AUTO, want);
                if (nin > 1) {
                    /* weak int, weak float and a typed constant in the second place */
                    aug_operand s[3] = {aug_operand_scalar(aug_scalar_int(-300)), aug_operand_scalar(aug_scalar_float(2.5)),
                                        aug_operand_scalar(consts[j])};
                    for (int k = 0; k < 3; k++) {
                        aug_operand in2[3] = {in[0], s[k], in[2]};
                        aug_dtype r;
                        if (aug_op_result_dtype(NULL, (aug_op)op, nin, in2, &r) == AUG_OK)
                            run_ok((aug_op)op, nin, in2, AUG_DTYPE_AUTO, r);
                        else
                            assert_int_equal(aug_last_status(), AUG_ERR_TYPE);
                    }
                }
                for (int k = 0; k < 3; k++) aug_tensor_free(t[k]);
            }
            /* every compute dtype the op accepts */
            aug_dtype c = TH_DTYPES[i];
            aug_tensor *t0 = small(AUG_INT16, 3), *t1 = small(AUG_FLOAT32, 3), *t2 = small(AUG_UINT8, 3);
            aug_operand in[3] = {aug_operand_tensor(t0), aug_operand_tensor(t1), aug_operand_tensor(t2)};
            if (op == AUG_OP_FMA) in[0] = aug_operand_scalar(aug_scalar_float(2.0));
            aug_tensor *out = NULL;
            aug_status st = aug_elementwise(NULL, (aug_op)op, nin, in, c, AUG_DTYPE_AUTO, &out);
            int need_float = op == AUG_OP_TRUEDIV || op == AUG_OP_FMA || is_math((aug_op)op);
            int need_int = is_bitwise((aug_op)op);
            int ok = need_float ? th_is_float(c) : need_int ? th_is_integral(c) : 1;
            if ((op == AUG_OP_LSHIFT || op == AUG_OP_RSHIFT) && c == AUG_BOOL) ok = 0;
            if (c == AUG_BOOL && !is_bitwise((aug_op)op) && !bool_ok((aug_op)op)) ok = 0;
            if (ok && st != AUG_OK) print_error("op %s compute %s: %s\n", aug_op_name((aug_op)op), aug_dtype_name(c), aug_last_error());
            assert_int_equal(st, ok ? AUG_OK : AUG_ERR_TYPE);
            aug_tensor_free(out);
            aug_tensor_free(t0);
            aug_tensor_free(t1);
            aug_tensor_free(t2);
        }
    }
}

/* Two tensors of one dtype: the decision is kept after the first call (core/promote.c);
 * the second and third calls must give the first's result, and an error (bool rules,
 * bitwise on floats) must stay an error. */
static void test_same_dtype_decision_kept(void **state) {
    (void)state;
    for (int op = 0; op < AUG_NUM_OPS; op++) {
        if (aug_op_arity((aug_op)op) != 2) continue;
        for (int i = 0; i < TH_NUM_DTYPES; i++) {
            aug_dtype d[3] = {TH_DTYPES[i], TH_DTYPES[i], TH_DTYPES[i]};
            aug_tensor *t = small(d[0], 5);
            aug_operand in[2] = {aug_operand_tensor(t), aug_operand_tensor(t)};
            aug_dtype want;
            int err = expected_result((aug_op)op, 2, d, &want);
            /* compute = the dtype (the functional forms with out=): the first call's outcome
             * and result again on the next calls, equal to aug_op_result_dtype's */
            aug_status first = AUG_OK;
            aug_dtype first_dt = AUG_DTYPE_AUTO;
            for (int rep = 0; rep < 3; rep++) {
                aug_tensor *out = NULL;
                aug_status st = aug_elementwise(NULL, (aug_op)op, 2, in, d[0], AUG_DTYPE_AUTO, &out);
                if (rep == 0) first = st, first_dt = out ? out->dtype : AUG_DTYPE_AUTO;
                assert_int_equal(st, first);
                if (st == AUG_OK) assert_int_equal(out->dtype, first_dt);
                aug_tensor_free(out);
                aug_dtype r = AUG_DTYPE_AUTO;
                assert_int_equal(aug_op_result_dtype(NULL, (aug_op)op, 2, in, &r), err ? AUG_ERR_TYPE : AUG_OK);
                if (!err) assert_int_equal(r, want);
            }
            for (int rep = 0; rep < 3; rep++) {
                if (!err) {
                    run_ok((aug_op)op, 2, in, AUG_DTYPE_AUTO, want);
                } else {
                    aug_tensor *out = NULL;
                    assert_int_equal(aug_elementwise(NULL, (aug_op)op, 2, in, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, &out),
                                     AUG_ERR_TYPE);
                    assert_null(out);
                }
            }
            aug_tensor_free(t);
        }
    }
}

static void test_layouts(void **state) {
    (void)state;
    int64_t s3[3] = {2, 3, 4}, s2[2] = {3, 4};
    aug_tensor *a = aug_tensor_zeros(3, s3, AUG_UINT8, aug_cpu_device());
    aug_tensor *b = aug_tensor_zeros(2, s2, AUG_UINT8, aug_cpu_device());
    aug_tensor *c = aug_tensor_zeros(3, s3, AUG_UINT8, aug_cpu_device());
    assert_int_equal(aug_tensor_set_layout(a, "HWC"), AUG_OK);
    assert_int_equal(aug_tensor_set_layout(b, "WC"), AUG_OK);
    aug_tensor *out = NULL;
    assert_int_equal(aug_binary(AUG_OP_ADD, b, a, &out), AUG_OK);
    assert_string_equal(out->layout, "HWC");
    aug_tensor_free(out);
    out = NULL;
    assert_int_equal(aug_binary(AUG_OP_ADD, c, b, &out), AUG_OK); /* "WC" does not cover 3 dims */
    assert_string_equal(out->layout, "");
    aug_tensor_free(out);
    out = NULL;
    assert_int_equal(aug_tensor_set_layout(c, "CHW"), AUG_OK);
    assert_int_equal(aug_binary(AUG_OP_ADD, a, c, &out), AUG_ERR_VALUE);
    assert_true(th_error_has("aug_add: layouts"));
    assert_null(out);
    aug_tensor_free(a);
    aug_tensor_free(b);
    aug_tensor_free(c);
}

static void test_argument_errors(void **state) {
    (void)state;
    aug_tensor *t = small(AUG_INT32, 3), *out = NULL;
    assert_int_equal(aug_binary(AUG_OP_ADD, NULL, t, &out), AUG_ERR_VALUE);
    assert_true(th_error_has("aug_add: "));
    assert_int_equal(aug_binary(AUG_OP_ADD, t, t, NULL), AUG_ERR_VALUE);
    assert_int_equal(aug_unary(AUG_OP_NEG, NULL, &out), AUG_ERR_VALUE);
    aug_operand in[2] = {aug_operand_tensor(t), aug_operand_tensor(t)};
    assert_int_equal(aug_elementwise("aug_x", AUG_OP_ADD, 1, in, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, &out), AUG_ERR_VALUE);
    assert_true(th_error_has("aug_x: "));
    assert_int_equal(aug_elementwise("aug_x", (aug_op)999, 2, in, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, &out), AUG_ERR_VALUE);
    assert_int_equal(aug_elementwise("aug_x", AUG_OP_ADD, 2, NULL, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, &out), AUG_ERR_VALUE);
    assert_int_equal(aug_elementwise("aug_x", AUG_OP_ADD, 2, in, (aug_dtype)77, AUG_DTYPE_AUTO, &out), AUG_ERR_TYPE);
    assert_int_equal(aug_elementwise("aug_x", AUG_OP_ADD, 2, in, AUG_DTYPE_AUTO, (aug_dtype)77, &out), AUG_ERR_TYPE);
    aug_operand ws[2] = {aug_operand_scalar(aug_scalar_int(1)), aug_operand_scalar(aug_scalar_int(2))};
    assert_int_equal(aug_elementwise("aug_x", AUG_OP_ADD, 2, ws, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, &out), AUG_ERR_VALUE);
    aug_dtype r;
    assert_int_equal(aug_op_result_dtype("aug_x", AUG_OP_ADD, 2, ws, &r), AUG_ERR_VALUE);
    aug_scalar bad = aug_scalar_int(1);
    bad.dtype = (aug_dtype)50;
    assert_int_equal(aug_binary_scalar(AUG_OP_ADD, t, bad, &out), AUG_ERR_TYPE);
    assert_int_equal(aug_functional_scalar(NULL, AUG_OP_TRUEDIV, t, aug_scalar_int(1), 0, &out), AUG_ERR_VALUE);
    assert_int_equal(aug_fma(1.0, t, NULL, &out), AUG_ERR_VALUE);
    assert_null(out);
    /* a compute dtype the op cannot use */
    assert_int_equal(aug_elementwise("aug_x", AUG_OP_SQRT, 1, in, AUG_INT32, AUG_DTYPE_AUTO, &out), AUG_ERR_TYPE);
    assert_true(th_error_has("aug_x: cannot compute `sqrt` in int32"));
    aug_tensor_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_op_names),
        cmocka_unit_test(test_promotion_table),
        cmocka_unit_test(test_result_dtype_every_op),
        cmocka_unit_test(test_weak_scalars),
        cmocka_unit_test(test_bool_rules),
        cmocka_unit_test(test_bitwise_float_rules),
        cmocka_unit_test(test_every_op_reaches_a_kernel),
        cmocka_unit_test(test_same_dtype_decision_kept),
        cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_argument_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
