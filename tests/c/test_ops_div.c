/* test_ops_div.c: true division, floor division, modulo, augpy div and pow through
 * the public API (aug_binary, aug_binary_scalar/rscalar, aug_functional_*),
 * semantics §6, §7, §9: result dtypes, exact integer results saturated to the result dtype
 * (references from first principles on __int128 sign/magnitude), division and
 * modulo by zero, negative exponents, mixed-dtype exactness, weak scalars,
 * broadcast / strided / reversed / in-place operands, float16 and bfloat16 computed
 * in float32 and rounded once (with 16-bit rounding written here), float floor
 * division and remainder as NumPy's (npy_divmod) in the result type. */
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
#include "helpers/th_float.h"
#include "helpers/th_ops.h"

typedef __int128 i128;
typedef unsigned __int128 u128;

static uint64_t rng_state = 0xD1B54A32D192ED03ull;
static uint64_t rnd(void) { return th_rand(&rng_state); }

/* ---- integer dtypes ------------------------------------------------------------- */

static const aug_dtype INTS[] = { AUG_INT8, AUG_INT16, AUG_INT32, AUG_INT64,
                                  AUG_UINT8, AUG_UINT16, AUG_UINT32, AUG_UINT64 };
#define NUM_INTS 8

static void put_int(aug_dtype t, void *p, i128 v) {
    switch (th_size(t)) {
    case 1: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
    case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    default: { uint64_t x = (uint64_t)v; memcpy(p, &x, 8); break; }
    }
}
static i128 get_int(aug_dtype t, const void *p) {
    int s = th_is_signed(t);
    switch (th_size(t)) {
    case 1: { uint8_t x; memcpy(&x, p, 1); return s ? (i128)(int8_t)x : (i128)x; }
    case 2: { uint16_t x; memcpy(&x, p, 2); return s ? (i128)(int16_t)x : (i128)x; }
    case 4: { uint32_t x; memcpy(&x, p, 4); return s ? (i128)(int32_t)x : (i128)x; }
    default: { uint64_t x; memcpy(&x, p, 8); return s ? (i128)(int64_t)x : (i128)x; }
    }
}

static aug_tensor *mk(aug_dtype dt, int ndim, const int64_t *shape) {
    aug_tensor *t = aug_tensor_empty(ndim, shape, dt, aug_cpu_device());
    if (!t) fail_msg("aug_tensor_empty: %s", aug_last_error());
    return t;
}
static aug_tensor *mk_ints(aug_dtype dt, int ndim, const int64_t *shape, const i128 *v, int64_t n) {
    aug_tensor *t = mk(dt, ndim, shape);
    char *p = aug_tensor_ptr(t);
    for (int64_t i = 0; i < n; i++) put_int(dt, p + i * th_size(dt), v[i]);
    return t;
}
static i128 at_int(const aug_tensor *t, int64_t i) {
    return get_int(t->dtype, (const char *)aug_tensor_ptr(t) + i * th_size(t->dtype));
}

/* ---- references (exact, then clamped to [lo, hi]) ---------------------------------- */

static u128 mag(i128 v) { return v < 0 ? (u128)0 - (u128)v : (u128)v; }
static i128 clamp_sm(int neg, u128 m, i128 lo, i128 hi) {
    if (m == 0) return 0;
    if (neg) return m >= mag(lo) ? lo : -(i128)m;
    return m > (u128)hi ? hi : (i128)m;
}
static i128 ref_floordiv(i128 a, i128 b, i128 lo, i128 hi) {
    if (b == 0) return a > 0 ? hi : (a < 0 ? lo : 0);
    u128 q = mag(a) / mag(b), r = mag(a) % mag(b);
    int neg = (a < 0) != (b < 0);
    return clamp_sm(neg, q + (neg && r != 0), lo, hi);
}
static i128 ref_mod(i128 a, i128 b, i128 lo, i128 hi) {
    if (b == 0) return 0;
    u128 r = mag(a) % mag(b);
    if (r == 0) return 0;
    return clamp_sm(b < 0, ((a < 0) == (b < 0)) ? r : mag(b) - r, lo, hi);
}
static i128 ref_divrne(i128 a, i128 b, i128 lo, i128 hi) {
    if (b == 0) return a > 0 ? hi : (a < 0 ? lo : 0);
    u128 q = mag(a) / mag(b), r = mag(a) % mag(b);
    if (2 * r > mag(b) || (2 * r == mag(b) && (q & 1))) q++;
    return clamp_sm((a < 0) != (b < 0), q, lo, hi);
}
static i128 ref_pow(i128 a, i128 b, i128 lo, i128 hi) {
    if (b < 0) {
        if (a == 0) return hi;
        if (a == 1 || a == -1) return (b % 2 != 0) ? a : 1;
        return (i128)nearbyintl(powl((long double)a, (long double)b)); /* |.| <= 1/2 */
    }
    if (mag(a) <= 1) return b == 0 ? 1 : ((a < 0 && b % 2) ? -1 : (i128)mag(a));
    /* Stop once beyond every dtype's range (2^64): multiplying on could wrap u128. */
    u128 m = 1, cap = (u128)1 << 66;
    for (i128 i = 0; i < b; i++) {
        if (m > cap / mag(a)) { m = cap; break; }
        m *= mag(a);
    }
    return clamp_sm(a < 0 && b % 2 != 0, m, lo, hi);
}

typedef i128 (*ref_fn)(i128, i128, i128, i128);

static i128 rnd_int(aug_dtype t) {
    i128 lo = th_imin(t), hi = th_imax(t);
    u128 span = (u128)(hi - lo) + 1;
    u128 r = ((u128)rnd() << 64) | rnd();
    if (rnd() % 3 == 0) { /* small magnitudes: interesting quotients and powers */
        i128 v = (i128)(rnd() % 41) - 20;
        return v < lo ? -v : v;
    }
    return lo + (i128)(r % span);
}

static int int_values(aug_dtype t, i128 *v, int nrand) {
    const i128 lo = th_imin(t), hi = th_imax(t);
    const i128 cand[] = { lo, lo + 1, -3, -2, -1, 0, 1, 2, 3, 7, hi / 2, hi - 1, hi };
    int n = 0;
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) {
        int dup = cand[i] < lo || cand[i] > hi;
        for (int j = 0; j < n && !dup; j++) dup = v[j] == cand[i];
        if (!dup) v[n++] = cand[i];
    }
    for (int i = 0; i < nrand; i++) v[n++] = rnd_int(t);
    return n;
}

/* (nv, 1) op (nv,) -> (nv, nv): every pair, through broadcasting. */
static void check_int_grid(aug_op op, int functional, aug_dtype ta, aug_dtype tb, aug_dtype want_t,
                           ref_fn ref) {
    i128 va[40], vb[40];
    int na = int_values(ta, va, 12), nb = int_values(tb, vb, 12);
    if (op == AUG_OP_POW)
        for (int e = 0; e < 6; e++) vb[nb++] = e * 3 + 2; /* 2, 5, ..., 17 */
    const int64_t sa[2] = { na, 1 }, sb[1] = { nb };
    aug_tensor *a = mk_ints(ta, 2, sa, va, na), *b = mk_ints(tb, 1, sb, vb, nb), *o = NULL;
    aug_status st = functional ? aug_functional_tensor("aug_div", op, a, b, &o) : aug_binary(op, a, b, &o);
    if (st != AUG_OK)
        fail_msg("%s %s %s: %s", aug_op_name(op), aug_dtype_name(ta), aug_dtype_name(tb), aug_last_error());
    assert_int_equal(o->dtype, want_t);
    assert_int_equal(o->ndim, 2);
    assert_int_equal(o->shape[0], na);
    assert_int_equal(o->shape[1], nb);
    int bad = 0;
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++) {
            i128 got = at_int(o, i * nb + j), want = ref(va[i], vb[j], th_imin(want_t), th_imax(want_t));
            if (got != want && bad++ < 5)
                print_error("%s %s(%lld) %s(%lld) -> %s: got %lld want %lld\n", aug_op_name(op), aug_dtype_name(ta),
                            (long long)va[i], aug_dtype_name(tb), (long long)vb[j], aug_dtype_name(want_t),
                            (long long)got, (long long)want);
        }
    aug_tensor_free(a); aug_tensor_free(b); aug_tensor_free(o);
    assert_int_equal(bad, 0);
}

static void test_int_same_dtype(void **state) {
    (void)state;
    for (int t = 0; t < NUM_INTS; t++) {
        check_int_grid(AUG_OP_FLOORDIV, 0, INTS[t], INTS[t], INTS[t], ref_floordiv);
        check_int_grid(AUG_OP_MOD, 0, INTS[t], INTS[t], INTS[t], ref_mod);
        check_int_grid(AUG_OP_POW, 0, INTS[t], INTS[t], INTS[t], ref_pow);
        check_int_grid(AUG_OP_DIV_RNE, 1, INTS[t], INTS[t], INTS[t], ref_divrne);
    }
}

/* Mixed dtypes: promoted per semantics §6, computed exactly (no operand pre-saturated). */
static void test_int_mixed_dtypes(void **state) {
    (void)state;
    const struct { aug_dtype a, b, r; } pairs[] = {
        { AUG_INT8, AUG_UINT8, AUG_INT16 },   { AUG_UINT8, AUG_INT8, AUG_INT16 },
        { AUG_INT8, AUG_UINT64, AUG_INT64 },  { AUG_UINT64, AUG_INT8, AUG_INT64 },
        { AUG_INT64, AUG_UINT64, AUG_INT64 }, { AUG_INT32, AUG_UINT32, AUG_INT64 },
        { AUG_UINT16, AUG_INT32, AUG_INT32 }, { AUG_UINT8, AUG_UINT64, AUG_UINT64 },
        { AUG_INT16, AUG_INT64, AUG_INT64 },
    };
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        check_int_grid(AUG_OP_FLOORDIV, 0, pairs[k].a, pairs[k].b, pairs[k].r, ref_floordiv);
        check_int_grid(AUG_OP_MOD, 0, pairs[k].a, pairs[k].b, pairs[k].r, ref_mod);
        check_int_grid(AUG_OP_POW, 0, pairs[k].a, pairs[k].b, pairs[k].r, ref_pow);
        check_int_grid(AUG_OP_DIV_RNE, 1, pairs[k].a, pairs[k].b, pairs[k].r, ref_divrne);
    }
}

/* One-element helpers. */
static aug_tensor *scalar_tensor(aug_dtype t, i128 v) {
    const int64_t one[1] = { 1 };
    return mk_ints(t, 1, one, &v, 1);
}
static i128 bin1(aug_op op, aug_dtype ta, i128 a, aug_dtype tb, i128 b, aug_dtype want_t) {
    aug_tensor *x = scalar_tensor(ta, a), *y = scalar_tensor(tb, b), *o = NULL;
    if (aug_binary(op, x, y, &o) != AUG_OK) fail_msg("%s", aug_last_error());
    assert_int_equal(o->dtype, want_t);
    i128 r = at_int(o, 0);
    aug_tensor_free(x); aug_tensor_free(y); aug_tensor_free(o);
    return r;
}

static void test_int_named_cases(void **state) {
    (void)state;
    assert_true(bin1(AUG_OP_FLOORDIV, AUG_INT8, -7, AUG_INT8, 2, AUG_INT8) == -4);
    assert_true(bin1(AUG_OP_FLOORDIV, AUG_INT8, -128, AUG_INT8, -1, AUG_INT8) == 127);
    assert_true(bin1(AUG_OP_FLOORDIV, AUG_INT64, INT64_MIN, AUG_INT64, -1, AUG_INT64) == INT64_MAX);
    assert_true(bin1(AUG_OP_FLOORDIV, AUG_INT32, 5, AUG_INT32, 0, AUG_INT32) == INT32_MAX);
    assert_true(bin1(AUG_OP_FLOORDIV, AUG_INT32, -5, AUG_INT32, 0, AUG_INT32) == INT32_MIN);
    assert_true(bin1(AUG_OP_FLOORDIV, AUG_UINT16, 5, AUG_UINT16, 0, AUG_UINT16) == UINT16_MAX);
    assert_true(bin1(AUG_OP_FLOORDIV, AUG_INT8, 0, AUG_INT8, 0, AUG_INT8) == 0);
    /* int8 // uint8 -> int16: -128 // 0 = int16 min, 100 // 0 = int16 max. */
    assert_true(bin1(AUG_OP_FLOORDIV, AUG_INT8, -128, AUG_UINT8, 0, AUG_INT16) == INT16_MIN);
    assert_true(bin1(AUG_OP_FLOORDIV, AUG_INT8, 100, AUG_UINT8, 0, AUG_INT16) == INT16_MAX);
    assert_true(bin1(AUG_OP_MOD, AUG_INT8, -7, AUG_INT8, 2, AUG_INT8) == 1);
    assert_true(bin1(AUG_OP_MOD, AUG_INT8, 7, AUG_INT8, -2, AUG_INT8) == -1);
    assert_true(bin1(AUG_OP_MOD, AUG_INT64, 9, AUG_INT64, 0, AUG_INT64) == 0);
    /* -5 % (2^64 - 1) = 2^64 - 6, exactly, then saturated into int64. */
    assert_true(bin1(AUG_OP_MOD, AUG_INT8, -5, AUG_UINT64, UINT64_MAX, AUG_INT64) == INT64_MAX);
    assert_true(bin1(AUG_OP_FLOORDIV, AUG_INT64, -1, AUG_UINT64, UINT64_MAX, AUG_INT64) == -1);
    assert_true(bin1(AUG_OP_FLOORDIV, AUG_UINT64, UINT64_MAX, AUG_INT8, -1, AUG_INT64) == INT64_MIN);
    assert_true(bin1(AUG_OP_POW, AUG_UINT8, 16, AUG_UINT8, 2, AUG_UINT8) == 255);
    assert_true(bin1(AUG_OP_POW, AUG_INT8, -2, AUG_INT8, 7, AUG_INT8) == -128);
    assert_true(bin1(AUG_OP_POW, AUG_INT8, -2, AUG_INT8, 9, AUG_INT8) == -128);
    assert_true(bin1(AUG_OP_POW, AUG_INT8, 2, AUG_INT8, -1, AUG_INT8) == 0);
    assert_true(bin1(AUG_OP_POW, AUG_INT8, 1, AUG_INT8, -1, AUG_INT8) == 1);
    assert_true(bin1(AUG_OP_POW, AUG_INT8, -1, AUG_INT8, -3, AUG_INT8) == -1);
    assert_true(bin1(AUG_OP_POW, AUG_INT16, 0, AUG_INT16, -1, AUG_INT16) == INT16_MAX);
    assert_true(bin1(AUG_OP_POW, AUG_INT16, 0, AUG_INT16, 0, AUG_INT16) == 1);
    assert_true(bin1(AUG_OP_POW, AUG_UINT64, 3, AUG_UINT64, 40, AUG_UINT64) == (i128)12157665459056928801ull);
    assert_true(bin1(AUG_OP_POW, AUG_INT64, 3, AUG_INT64, 40, AUG_INT64) == INT64_MAX);
    /* uint8 ** int8 -> int16: 2 ** 15 = 32768 saturates to 32767, 2 ** -1 rounds to 0. */
    assert_true(bin1(AUG_OP_POW, AUG_UINT8, 2, AUG_INT8, 15, AUG_INT16) == INT16_MAX);
    assert_true(bin1(AUG_OP_POW, AUG_UINT8, 2, AUG_INT8, -1, AUG_INT16) == 0);
    assert_true(bin1(AUG_OP_POW, AUG_UINT8, 0, AUG_INT8, -1, AUG_INT16) == INT16_MAX);
}

/* ---- true division, result dtypes --------------------------------------------------- */

static void test_truediv(void **state) {
    (void)state;
    /* Integers (and bool with an integer) divide to float32; values small enough to
     * be exact in float32, so the quotient is the one correctly rounded float. */
    const aug_dtype ts[] = { AUG_INT8, AUG_UINT8, AUG_INT16, AUG_INT32, AUG_INT64, AUG_UINT64 };
    enum { N = 7 };
    const i128 va[N] = { -100, -1, 0, 0, 1, 7, 100 }, vb[N] = { 3, 0, 0, 5, 0, -2, 7 };
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
        for (size_t j = 0; j < sizeof ts / sizeof ts[0]; j++) {
            int sa = th_is_signed(ts[i]), sb = th_is_signed(ts[j]);
            const int64_t shape[1] = { N };
            i128 a2[N], b2[N];
            for (int k = 0; k < N; k++) {
                a2[k] = sa ? va[k] : (i128)mag(va[k]);
                b2[k] = sb ? vb[k] : (i128)mag(vb[k]);
            }
            aug_tensor *a = mk_ints(ts[i], 1, shape, a2, N), *b = mk_ints(ts[j], 1, shape, b2, N), *o = NULL;
            assert_int_equal(aug_binary(AUG_OP_TRUEDIV, a, b, &o), AUG_OK);
            assert_int_equal(o->dtype, AUG_FLOAT32);
            const float *r = aug_tensor_ptr(o);
            for (int k = 0; k < N; k++) {
                float want = (float)((long double)a2[k] / (long double)b2[k]);
                if (isnan(want)) assert_true(isnan(r[k]));
                else assert_true(r[k] == want);
            }
            aug_tensor_free(a); aug_tensor_free(b); aug_tensor_free(o);
        }
    /* bool / int8 -> float32; float32 / int32 -> float32; float64 / int8 -> float64. */
    aug_tensor *bo = scalar_tensor(AUG_UINT8, 1), *i8 = scalar_tensor(AUG_INT8, 4), *o = NULL;
    aug_tensor *bl = NULL;
    assert_int_equal(aug_cast(bo, AUG_BOOL, &bl), AUG_OK);
    assert_int_equal(aug_binary(AUG_OP_TRUEDIV, bl, i8, &o), AUG_OK);
    assert_int_equal(o->dtype, AUG_FLOAT32);
    assert_true(*(float *)aug_tensor_ptr(o) == 0.25f);
    aug_tensor_free(o); o = NULL;
    /* bool / bool is arithmetic on booleans: TypeError (DALI). */
    assert_int_equal(aug_binary(AUG_OP_TRUEDIV, bl, bl, &o), AUG_ERR_TYPE);
    assert_int_equal(aug_binary(AUG_OP_FLOORDIV, bl, bl, &o), AUG_ERR_TYPE);
    assert_int_equal(aug_binary(AUG_OP_POW, bl, bl, &o), AUG_ERR_TYPE);
    assert_null(o);
    /* int8 // bool stays int8. */
    assert_int_equal(aug_binary(AUG_OP_FLOORDIV, i8, bl, &o), AUG_OK);
    assert_int_equal(o->dtype, AUG_INT8);
    assert_true(at_int(o, 0) == 4);
    aug_tensor_free(o); o = NULL;
    const int64_t one[1] = { 1 };
    aug_tensor *f64 = mk(AUG_FLOAT64, 1, one);
    *(double *)aug_tensor_ptr(f64) = 3.0;
    assert_int_equal(aug_binary(AUG_OP_TRUEDIV, i8, f64, &o), AUG_OK);
    assert_int_equal(o->dtype, AUG_FLOAT64);
    assert_true(*(double *)aug_tensor_ptr(o) == 4.0 / 3.0);
    aug_tensor_free(o);
    aug_tensor_free(bo); aug_tensor_free(i8); aug_tensor_free(bl); aug_tensor_free(f64);
}

/* ---- weak scalars and augpy functional div ------------------------------------------ */

static void test_scalars(void **state) {
    (void)state;
    const int64_t shape[1] = { 6 };
    const i128 v[6] = { -100, -7, -1, 0, 5, 100 };
    aug_tensor *t = mk_ints(AUG_INT8, 1, shape, v, 6), *o = NULL;
    /* t // 0 keeps int8 and saturates. */
    assert_int_equal(aug_binary_scalar(AUG_OP_FLOORDIV, t, aug_scalar_int(0), &o), AUG_OK);
    assert_int_equal(o->dtype, AUG_INT8);
    const i128 w0[6] = { -128, -128, -128, 0, 127, 127 };
    for (int i = 0; i < 6; i++) assert_true(at_int(o, i) == w0[i]);
    aug_tensor_free(o); o = NULL;
    /* t % 1000: the scalar is used exactly (not saturated to 127 first). */
    assert_int_equal(aug_binary_scalar(AUG_OP_MOD, t, aug_scalar_int(1000), &o), AUG_OK);
    const i128 w1[6] = { 127, 127, 127, 0, 5, 100 };
    for (int i = 0; i < 6; i++) assert_true(at_int(o, i) == w1[i]);
    aug_tensor_free(o); o = NULL;
    /* 7 % t (reflected): Python semantics, x % 0 = 0. */
    assert_int_equal(aug_binary_rscalar(AUG_OP_MOD, aug_scalar_int(7), t, &o), AUG_OK);
    assert_int_equal(o->dtype, AUG_INT8);
    const i128 w2[6] = { -93, 0, 0, 0, 2, 7 };
    for (int i = 0; i < 6; i++) assert_true(at_int(o, i) == w2[i]);
    aug_tensor_free(o); o = NULL;
    /* t ** 3 saturates in int8; 2 ** t (reflected). */
    assert_int_equal(aug_binary_scalar(AUG_OP_POW, t, aug_scalar_int(3), &o), AUG_OK);
    const i128 w3[6] = { -128, -128, -1, 0, 125, 127 };
    for (int i = 0; i < 6; i++) assert_true(at_int(o, i) == w3[i]);
    aug_tensor_free(o); o = NULL;
    assert_int_equal(aug_binary_rscalar(AUG_OP_POW, aug_scalar_int(2), t, &o), AUG_OK);
    const i128 w4[6] = { 0, 0, 0, 1, 32, 127 };
    for (int i = 0; i < 6; i++) assert_true(at_int(o, i) == w4[i]);
    aug_tensor_free(o); o = NULL;
    /* A float scalar with an int tensor gives float32: t / 2.0, t // 2.5. */
    assert_int_equal(aug_binary_scalar(AUG_OP_FLOORDIV, t, aug_scalar_float(2.5), &o), AUG_OK);
    assert_int_equal(o->dtype, AUG_FLOAT32);
    const float w5[6] = { -40, -3, -1, 0, 2, 40 };
    for (int i = 0; i < 6; i++) assert_true(((float *)aug_tensor_ptr(o))[i] == w5[i]);
    aug_tensor_free(o); o = NULL;
    aug_tensor_free(t);

    /* uint8 ** 2 saturates and stays uint8. */
    const i128 u[4] = { 0, 3, 15, 16 };
    const int64_t s4[1] = { 4 };
    aug_tensor *tu = mk_ints(AUG_UINT8, 1, s4, u, 4);
    assert_int_equal(aug_binary_scalar(AUG_OP_POW, tu, aug_scalar_int(2), &o), AUG_OK);
    assert_int_equal(o->dtype, AUG_UINT8);
    const i128 w6[4] = { 0, 9, 225, 255 };
    for (int i = 0; i < 4; i++) assert_true(at_int(o, i) == w6[i]);
    aug_tensor_free(o); o = NULL;
    aug_tensor_free(tu);
}

static void test_functional_div(void **state) {
    (void)state;
    const int64_t shape[1] = { 6 };
    const i128 v[6] = { 200, 0, 5, 7, 255, 1 };
    aug_tensor *t = mk_ints(AUG_UINT8, 1, shape, v, 6), *o = NULL;
    /* div(t_u8, 3): real quotient rounded half to even (200/3 -> 67). */
    assert_int_equal(aug_functional_scalar("aug_div", AUG_OP_DIV_RNE, t, aug_scalar_int(3), 0, &o), AUG_OK);
    assert_int_equal(o->dtype, AUG_UINT8);
    const i128 w[6] = { 67, 0, 2, 2, 85, 0 };
    for (int i = 0; i < 6; i++) assert_true(at_int(o, i) == w[i]);
    aug_tensor_free(o); o = NULL;
    /* div(t, 2): ties to even. */
    assert_int_equal(aug_functional_scalar("aug_div", AUG_OP_DIV_RNE, t, aug_scalar_int(2), 0, &o), AUG_OK);
    const i128 w2[6] = { 100, 0, 2, 4, 128, 0 };
    for (int i = 0; i < 6; i++) assert_true(at_int(o, i) == w2[i]);
    aug_tensor_free(o); o = NULL;
    /* x / 0 saturates to max, 0 / 0 -> 0. */
    assert_int_equal(aug_functional_scalar("aug_div", AUG_OP_DIV_RNE, t, aug_scalar_int(0), 0, &o), AUG_OK);
    const i128 w3[6] = { 255, 0, 255, 255, 255, 255 };
    for (int i = 0; i < 6; i++) assert_true(at_int(o, i) == w3[i]);
    aug_tensor_free(o); o = NULL;
    /* rdiv: 510 / t, reflected. */
    assert_int_equal(aug_functional_scalar("aug_rdiv", AUG_OP_DIV_RNE, t, aug_scalar_int(510), 1, &o), AUG_OK);
    const i128 w4[6] = { 3, 255, 102, 73, 2, 255 };
    for (int i = 0; i < 6; i++) assert_true(at_int(o, i) == w4[i]);
    aug_tensor_free(o); o = NULL;
    /* A float scalar: computed in the temp type (float32), saturated into uint8. */
    assert_int_equal(aug_functional_scalar("aug_div", AUG_OP_DIV_RNE, t, aug_scalar_float(0.5), 0, &o), AUG_OK);
    assert_int_equal(o->dtype, AUG_UINT8);
    const i128 w5[6] = { 255, 0, 10, 14, 255, 2 };
    for (int i = 0; i < 6; i++) assert_true(at_int(o, i) == w5[i]);
    aug_tensor_free(o); o = NULL;
    /* Tensor / tensor (int8, int8): int8 with round half to even, -128 / -1 = 127. */
    const i128 a8[4] = { -128, -5, 7, 9 }, b8[4] = { -1, 2, 2, 0 };
    const int64_t s4[1] = { 4 };
    aug_tensor *a = mk_ints(AUG_INT8, 1, s4, a8, 4), *b = mk_ints(AUG_INT8, 1, s4, b8, 4);
    assert_int_equal(aug_functional_tensor("aug_div", AUG_OP_DIV_RNE, a, b, &o), AUG_OK);
    assert_int_equal(o->dtype, AUG_INT8);
    const i128 w6[4] = { 127, -2, 4, 127 };
    for (int i = 0; i < 4; i++) assert_true(at_int(o, i) == w6[i]);
    aug_tensor_free(o); o = NULL;
    /* With out (float32): computed in the promoted type (int8, exact, RNE) and then
     * cast, so -5 / 2 stores -2, not -2.5. */
    aug_tensor *of = mk(AUG_FLOAT32, 1, s4);
    o = of;
    assert_int_equal(aug_functional_tensor("aug_div", AUG_OP_DIV_RNE, a, b, &o), AUG_OK);
    assert_ptr_equal(o, of);
    const float w7[4] = { 127, -2, 4, 127 };
    for (int i = 0; i < 4; i++) assert_true(((float *)aug_tensor_ptr(of))[i] == w7[i]);
    aug_tensor_free(of);
    aug_tensor_free(a); aug_tensor_free(b); aug_tensor_free(t);
}

/* ---- layouts: strided, reversed, broadcast, in place ---------------------------------- */

static void test_layouts(void **state) {
    (void)state;
    enum { R = 5, C = 6 };
    i128 va[R * C], vb[C];
    for (int i = 0; i < R * C; i++) va[i] = (i128)(rnd() % 2001) - 1000;
    for (int j = 0; j < C; j++) vb[j] = (i128)(rnd() % 41) - 20;
    vb[2] = 0;
    const int64_t sa[2] = { R, C }, sb[1] = { C };
    aug_tensor *a = mk_ints(AUG_INT16, 2, sa, va, R * C), *b = mk_ints(AUG_INT16, 1, sb, vb, C);
    /* a[::-1, ::2] (reversed rows, every other column) // b[::2] broadcast over rows. */
    aug_index ia[2] = { { .kind = AUG_INDEX_SLICE, .step = -1 }, { .kind = AUG_INDEX_SLICE, .step = 2 } };
    aug_index ib[1] = { { .kind = AUG_INDEX_SLICE, .step = 2 } };
    aug_tensor *av = aug_tensor_index(a, 2, ia), *bv = aug_tensor_index(b, 1, ib);
    assert_non_null(av);
    assert_non_null(bv);
    const aug_op ops[3] = { AUG_OP_FLOORDIV, AUG_OP_MOD, AUG_OP_POW };
    const ref_fn refs[3] = { ref_floordiv, ref_mod, ref_pow };
    for (int k = 0; k < 3; k++) {
        aug_tensor *o = NULL;
        assert_int_equal(aug_binary(ops[k], av, bv, &o), AUG_OK);
        assert_int_equal(o->shape[0], R);
        assert_int_equal(o->shape[1], C / 2);
        for (int i = 0; i < R; i++)
            for (int j = 0; j < C / 2; j++) {
                i128 x = va[(R - 1 - i) * C + 2 * j], y = vb[2 * j];
                assert_true(at_int(o, i * (C / 2) + j) == refs[k](x, y, INT16_MIN, INT16_MAX));
            }
        aug_tensor_free(o);
    }
    /* Transposed view against a (C, 1) column: broadcast on both sides. */
    const int perm[2] = { 1, 0 };
    aug_tensor *at = aug_tensor_permute(a, perm);
    const int64_t sc[2] = { C, 1 };
    aug_tensor *col = mk_ints(AUG_INT16, 2, sc, vb, C), *o = NULL;
    assert_int_equal(aug_functional_tensor("aug_div", AUG_OP_DIV_RNE, at, col, &o), AUG_OK);
    for (int j = 0; j < C; j++)
        for (int i = 0; i < R; i++)
            assert_true(at_int(o, j * R + i) == ref_divrne(va[i * C + j], vb[j], INT16_MIN, INT16_MAX));
    aug_tensor_free(o);
    /* In place: a //= b (out aliases the first input). */
    o = a;
    assert_int_equal(aug_binary(AUG_OP_FLOORDIV, a, b, &o), AUG_OK);
    assert_ptr_equal(o, a);
    for (int i = 0; i < R * C; i++) assert_true(at_int(a, i) == ref_floordiv(va[i], vb[i % C], INT16_MIN, INT16_MAX));
    aug_tensor_free(at); aug_tensor_free(col);
    aug_tensor_free(av); aug_tensor_free(bv); aug_tensor_free(a); aug_tensor_free(b);
}

/* ---- floats, float16, bfloat16 -------------------------------------------------------- */

static float np_remainder(float a, float b) { /* NumPy remainder, first principles in long double */
    if (b == 0 || isinf(a) || isnan(a) || isnan(b)) return NAN;
    long double m = fmodl(a, b);
    if (m == 0) return b < 0 ? -0.0f : 0.0f;
    if ((m < 0) != (b < 0)) m += b;
    return (float)m;
}

/* NumPy floor_divide (npy_divmodf, numpy/_core/src/npymath/npy_math_internal.h),
 * written out in float: the floor of the exact quotient, so 1 // 0.1 is 9. */
static float np_floordiv(float a, float b) {
    float mod = fmodf(a, b);
    if (b == 0) return a / b;
    float div = (a - mod) / b;
    if (mod != 0) {
        if ((b < 0) != (mod < 0)) div -= 1.0f;
    }
    if (div == 0) return copysignf(0.0f, a / b);
    float fl = floorf(div);
    if (div - fl > 0.5f) fl += 1.0f;
    return fl;
}

static float ref_f32_op(aug_op op, float a, float b) {
    switch (op) {
    case AUG_OP_TRUEDIV: return (float)((long double)a / b);
    case AUG_OP_FLOORDIV: return np_floordiv(a, b);
    case AUG_OP_MOD: return np_remainder(a, b);
    default: return (float)powl(a, b);
    }
}

static int same_or_nan(float a, float b) { return (isnan(a) && isnan(b)) || th_bits_of_f32(a) == th_bits_of_f32(b); }

static void test_float16_bfloat16(void **state) {
    (void)state;
    enum { N = 400 };
    const aug_op ops[4] = { AUG_OP_TRUEDIV, AUG_OP_FLOORDIV, AUG_OP_MOD, AUG_OP_POW };
    for (int half = 0; half < 2; half++) {
        aug_dtype dt = half ? AUG_FLOAT16 : AUG_BFLOAT16;
        const int64_t shape[1] = { N };
        aug_tensor *a = mk(dt, 1, shape), *b = mk(dt, 1, shape);
        uint16_t *pa = aug_tensor_ptr(a), *pb = aug_tensor_ptr(b);
        for (int i = 0; i < N; i++) {
            float x = (float)((double)(rnd() % 20001) / 100.0 - 100.0);
            float y = (float)((double)(rnd() % 2001) / 200.0 - 5.0);
            if (i < 8) { const float sx[8] = { 1, -1, 0, 7, -7, INFINITY, NAN, 3 }; x = sx[i]; }
            if (i < 8) { const float sy[8] = { 0, 0, 0, 2, 2, 3, 1, -2 }; y = sy[i]; }
            pa[i] = half ? th_float_to_half(x) : th_float_to_bf16(x);
            pb[i] = half ? th_float_to_half(y) : th_float_to_bf16(y);
        }
        for (int k = 0; k < 4; k++) {
            aug_tensor *o = NULL;
            assert_int_equal(aug_binary(ops[k], a, b, &o), AUG_OK);
            assert_int_equal(o->dtype, dt);
            const uint16_t *po = aug_tensor_ptr(o);
            int bad = 0;
            for (int i = 0; i < N; i++) {
                float x = half ? th_half_to_float(pa[i]) : th_bf16_to_float(pa[i]);
                float y = half ? th_half_to_float(pb[i]) : th_bf16_to_float(pb[i]);
                float r = ref_f32_op(ops[k], x, y);
                uint16_t want = half ? th_float_to_half(r) : th_float_to_bf16(r);
                float got = half ? th_half_to_float(po[i]) : th_bf16_to_float(po[i]);
                float wantf = half ? th_half_to_float(want) : th_bf16_to_float(want);
                /* pow: the float32 pow may differ by an ulp before the 16-bit rounding. */
                int ok = same_or_nan(got, wantf) ||
                         (ops[k] == AUG_OP_POW && abs((int)po[i] - (int)want) <= 1);
                if (!ok && bad++ < 5)
                    print_error("%s %s(%g, %g) = %g, want %g\n", aug_dtype_name(dt), aug_op_name(ops[k]), x, y,
                                got, wantf);
            }
            aug_tensor_free(o);
            assert_int_equal(bad, 0);
        }
        aug_tensor_free(a); aug_tensor_free(b);
    }
    /* Mixed float16 / bfloat16 -> float32 (semantics §6). */
    const int64_t one[1] = { 1 };
    aug_tensor *h = mk(AUG_FLOAT16, 1, one), *bf = mk(AUG_BFLOAT16, 1, one), *o = NULL;
    *(uint16_t *)aug_tensor_ptr(h) = th_float_to_half(1.0f);
    *(uint16_t *)aug_tensor_ptr(bf) = th_float_to_bf16(3.0f);
    assert_int_equal(aug_binary(AUG_OP_TRUEDIV, h, bf, &o), AUG_OK);
    assert_int_equal(o->dtype, AUG_FLOAT32);
    assert_true(*(float *)aug_tensor_ptr(o) == 1.0f / 3.0f);
    aug_tensor_free(o); aug_tensor_free(h); aug_tensor_free(bf);
}

static void test_float32_float64(void **state) {
    (void)state;
    enum { N = 300 };
    const int64_t shape[1] = { N };
    aug_tensor *a = mk(AUG_FLOAT32, 1, shape), *b = mk(AUG_FLOAT32, 1, shape);
    aug_tensor *a64 = mk(AUG_FLOAT64, 1, shape), *b64 = mk(AUG_FLOAT64, 1, shape);
    float *pa = aug_tensor_ptr(a), *pb = aug_tensor_ptr(b);
    double *qa = aug_tensor_ptr(a64), *qb = aug_tensor_ptr(b64);
    for (int i = 0; i < N; i++) {
        pa[i] = (float)((double)(rnd() % 200001) / 1000.0 - 100.0);
        pb[i] = (float)((double)(rnd() % 2001) / 100.0 - 10.0);
        qa[i] = pa[i]; qb[i] = pb[i];
    }
    pb[0] = 0; pb[1] = -0.0f; qb[0] = 0; qb[1] = -0.0;
    const aug_op ops[4] = { AUG_OP_TRUEDIV, AUG_OP_FLOORDIV, AUG_OP_MOD, AUG_OP_POW };
    for (int k = 0; k < 4; k++) {
        aug_tensor *o = NULL, *o64 = NULL;
        assert_int_equal(aug_binary(ops[k], a, b, &o), AUG_OK);
        assert_int_equal(o->dtype, AUG_FLOAT32);
        /* float32 (op) float64 -> float64 */
        assert_int_equal(aug_binary(ops[k], a, b64, &o64), AUG_OK);
        assert_int_equal(o64->dtype, AUG_FLOAT64);
        const float *po = aug_tensor_ptr(o);
        const double *p64 = aug_tensor_ptr(o64);
        for (int i = 0; i < N; i++) {
            float want = ref_f32_op(ops[k], pa[i], pb[i]);
            if (ops[k] == AUG_OP_POW) {
                assert_true(th_ulp32(po[i], want) <= 2);
            } else {
                assert_true(same_or_nan(po[i], want));
            }
            if (ops[k] == AUG_OP_TRUEDIV) {
                double w = (double)((__float128)qa[i] / (__float128)qb[i]);
                assert_true((isnan(w) && isnan(p64[i])) || w == p64[i]);
            }
        }
        aug_tensor_free(o); aug_tensor_free(o64);
    }
    aug_tensor_free(a); aug_tensor_free(b); aug_tensor_free(a64); aug_tensor_free(b64);
    /* issue 11 (DALI): one rule whatever the integer operand's width, computed in
     * the result type float32 as NumPy does: 5 // 0.001f is 4999 (the exact quotient
     * lies just below 5000), 2^31 // 255 is 8421504 */
    const aug_dtype wide[6] = { AUG_UINT8, AUG_UINT16, AUG_UINT32, AUG_UINT64, AUG_INT32, AUG_INT64 };
    for (int w = 0; w < 6; w++) {
        const int64_t one[1] = { 1 };
        aug_tensor *x = mk(wide[w], 1, one), *y = mk(AUG_FLOAT32, 1, one), *o = NULL;
        memset(aug_tensor_ptr(x), 0, (size_t)aug_dtype_info(wide[w])->size);
        *(uint8_t *)aug_tensor_ptr(x) = 5; /* little-endian */
        *(float *)aug_tensor_ptr(y) = 0.001f;
        assert_int_equal(aug_binary(AUG_OP_FLOORDIV, x, y, &o), AUG_OK);
        assert_int_equal(o->dtype, AUG_FLOAT32);
        assert_true(*(float *)aug_tensor_ptr(o) == 4999.0f);
        aug_tensor_free(o);
        o = NULL;
        assert_int_equal(aug_binary(AUG_OP_MOD, x, y, &o), AUG_OK);
        assert_true(*(float *)aug_tensor_ptr(o) == np_remainder(5.0f, 0.001f));
        aug_tensor_free(o);
        aug_tensor_free(x); aug_tensor_free(y);
    }
    const aug_dtype divs[3] = { AUG_INT16, AUG_INT32, AUG_INT64 };
    for (int w = 0; w < 3; w++) {
        const int64_t one[1] = { 1 };
        aug_tensor *x = mk(AUG_FLOAT32, 1, one), *y = mk(divs[w], 1, one), *o = NULL;
        *(float *)aug_tensor_ptr(x) = 0x1p31f;
        memset(aug_tensor_ptr(y), 0, (size_t)aug_dtype_info(divs[w])->size);
        *(uint8_t *)aug_tensor_ptr(y) = 255;
        assert_int_equal(aug_binary(AUG_OP_FLOORDIV, x, y, &o), AUG_OK);
        assert_true(*(float *)aug_tensor_ptr(o) == np_floordiv(0x1p31f, 255.0f));
        assert_true(*(float *)aug_tensor_ptr(o) == 8421504.0f);
        aug_tensor_free(o);
        aug_tensor_free(x); aug_tensor_free(y);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int_same_dtype),
        cmocka_unit_test(test_int_mixed_dtypes),
        cmocka_unit_test(test_int_named_cases),
        cmocka_unit_test(test_truediv),
        cmocka_unit_test(test_scalars),
        cmocka_unit_test(test_functional_div),
        cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_float16_bfloat16),
        cmocka_unit_test(test_float32_float64),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
