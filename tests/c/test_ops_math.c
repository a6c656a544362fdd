/* test_ops_math.c: the math functions and fma through the public API (aug_unary,
 * aug_binary, aug_fma), semantics §8 and §9: result dtypes (integral inputs -> float32,
 * floats keep theirs), accuracy against long double libm (float32 within 2 ulp,
 * float64 within 4 ulp, float16 / bfloat16 computed in float32 and rounded once,
 * so within one 16-bit step of the correctly rounded value), out-of-domain NaN,
 * strided and broadcast operands, outputs saturated into an integer `out`, and
 * fma's single rounding and result dtype. */
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

static uint64_t rng_state = 0x8CB92BA72F3D8DD7ull;
static uint64_t rnd(void) { return th_rand(&rng_state); }
static double rnd_unit(void) { return (double)(rnd() >> 11) / 9007199254740992.0; }

static aug_tensor *mk(aug_dtype dt, int ndim, const int64_t *shape) {
    aug_tensor *t = aug_tensor_empty(ndim, shape, dt, aug_cpu_device());
    if (!t) fail_msg("aug_tensor_empty: %s", aug_last_error());
    return t;
}

/* Ordered integers for ulp distances of the 16-bit formats (sign-magnitude bits;
 * th_ulp32 / th_ulp64 measure float32 and float64). */
static int64_t ord_bits(uint64_t bits, int nbits) {
    uint64_t sign = (uint64_t)1 << (nbits - 1), mag = bits & (sign - 1);
    return (bits & sign) ? -(int64_t)mag : (int64_t)mag;
}
static uint64_t dist(int64_t a, int64_t b) { return a > b ? (uint64_t)(a - b) : (uint64_t)(b - a); }
static uint64_t ulp16(uint16_t a, uint16_t b, int half) {
    float fa = half ? th_half_to_float(a) : th_bf16_to_float(a);
    float fb = half ? th_half_to_float(b) : th_bf16_to_float(b);
    if (isnan(fa) || isnan(fb)) return isnan(fa) && isnan(fb) ? 0 : UINT64_MAX;
    return dist(ord_bits(a, 16), ord_bits(b, 16));
}

/* ---- the functions ---------------------------------------------------------------- */

static long double rsqrtl_(long double x) { return 1.0L / sqrtl(x); }

static const struct {
    aug_op op;
    long double (*ref)(long double);
    double lo, hi; /* where most samples are drawn */
} UNARY[] = {
    { AUG_OP_FABS, fabsl, -50, 50 },    { AUG_OP_FLOOR, floorl, -50, 50 },  { AUG_OP_CEIL, ceill, -50, 50 },
    { AUG_OP_SQRT, sqrtl, 0, 1000 },    { AUG_OP_RSQRT, rsqrtl_, 0, 1000 }, { AUG_OP_CBRT, cbrtl, -1000, 1000 },
    { AUG_OP_EXP, expl, -80, 80 },      { AUG_OP_LOG, logl, 0, 1000 },      { AUG_OP_LOG2, log2l, 0, 1000 },
    { AUG_OP_LOG10, log10l, 0, 1000 },  { AUG_OP_SIN, sinl, -20, 20 },      { AUG_OP_COS, cosl, -20, 20 },
    { AUG_OP_TAN, tanl, -20, 20 },      { AUG_OP_ASIN, asinl, -1, 1 },      { AUG_OP_ACOS, acosl, -1, 1 },
    { AUG_OP_ATAN, atanl, -50, 50 },    { AUG_OP_SINH, sinhl, -20, 20 },    { AUG_OP_COSH, coshl, -20, 20 },
    { AUG_OP_TANH, tanhl, -10, 10 },    { AUG_OP_ASINH, asinhl, -50, 50 },  { AUG_OP_ACOSH, acoshl, 1, 50 },
    { AUG_OP_ATANH, atanhl, -1, 1 },
};
#define NUM_UNARY ((int)(sizeof UNARY / sizeof UNARY[0]))

static const double SPECIALS[] = { 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 1e-3, 100.0, -100.0,
                                   INFINITY, -INFINITY, NAN };
#define NUM_SPECIALS ((int)(sizeof SPECIALS / sizeof SPECIALS[0]))

/* Float inputs of every float dtype: the result keeps the dtype. */
static void test_unary_floats(void **state) {
    (void)state;
    enum { N = 600 };
    const aug_dtype dts[4] = { AUG_FLOAT32, AUG_FLOAT64, AUG_FLOAT16, AUG_BFLOAT16 };
    const int64_t shape[1] = { N };
    int bad = 0;
    for (int f = 0; f < NUM_UNARY; f++)
        for (int d = 0; d < 4; d++) {
            aug_tensor *x = mk(dts[d], 1, shape), *y = NULL;
            char *px = aug_tensor_ptr(x);
            double vals[N];
            for (int i = 0; i < N; i++) {
                double v = i < NUM_SPECIALS ? SPECIALS[i] : UNARY[f].lo + (UNARY[f].hi - UNARY[f].lo) * rnd_unit();
                if (i >= NUM_SPECIALS && i % 5 == 0) v = -v * 1.5; /* some outside the domain */
                switch (dts[d]) {
                case AUG_FLOAT32: ((float *)px)[i] = (float)v; vals[i] = (float)v; break;
                case AUG_FLOAT64: ((double *)px)[i] = v; vals[i] = v; break;
                case AUG_FLOAT16:
                    ((uint16_t *)px)[i] = th_float_to_half((float)v);
                    vals[i] = th_half_to_float(((uint16_t *)px)[i]);
                    break;
                default:
                    ((uint16_t *)px)[i] = th_float_to_bf16((float)v);
                    vals[i] = th_bf16_to_float(((uint16_t *)px)[i]);
                    break;
                }
            }
            if (aug_unary(UNARY[f].op, x, &y) != AUG_OK)
                fail_msg("%s: %s", aug_op_name(UNARY[f].op), aug_last_error());
            assert_int_equal(y->dtype, dts[d]);
            const char *py = aug_tensor_ptr(y);
            for (int i = 0; i < N; i++) {
                long double r = UNARY[f].ref(vals[i]);
                uint64_t e, lim;
                switch (dts[d]) {
                case AUG_FLOAT32: e = th_ulp32(((const float *)py)[i], (float)r); lim = 2; break;
                case AUG_FLOAT64: e = th_ulp64(((const double *)py)[i], (double)r); lim = 4; break;
                case AUG_FLOAT16: e = ulp16(((const uint16_t *)py)[i], th_float_to_half((float)r), 1); lim = 1; break;
                default: e = ulp16(((const uint16_t *)py)[i], th_float_to_bf16((float)r), 0); lim = 1; break;
                }
                if (e > lim && bad++ < 10)
                    print_error("%s %s(%a): %llu steps off\n", aug_dtype_name(dts[d]), aug_op_name(UNARY[f].op),
                                vals[i], (unsigned long long)e);
            }
            aug_tensor_free(x); aug_tensor_free(y);
        }
    assert_int_equal(bad, 0);
}

/* Integral inputs compute to float32 (values exact in float32, so the reference is
 * unambiguous whichever float ctype the core picks). */
static void test_unary_integral(void **state) {
    (void)state;
    enum { N = 101 };
    const aug_dtype dts[6] = { AUG_INT8, AUG_UINT8, AUG_INT16, AUG_INT32, AUG_INT64, AUG_UINT64 };
    const int64_t shape[1] = { N };
    int bad = 0;
    for (int d = 0; d < 6; d++) {
        int uns = dts[d] == AUG_UINT8 || dts[d] == AUG_UINT64;
        int64_t v[N];
        for (int i = 0; i < N; i++) v[i] = uns ? i * 2 : i - 50;
        aug_tensor *x = mk(dts[d], 1, shape);
        char *px = aug_tensor_ptr(x);
        for (int i = 0; i < N; i++) {
            switch (dts[d]) {
            case AUG_INT8: ((int8_t *)px)[i] = (int8_t)v[i]; break;
            case AUG_UINT8: ((uint8_t *)px)[i] = (uint8_t)v[i]; break;
            case AUG_INT16: ((int16_t *)px)[i] = (int16_t)v[i]; break;
            case AUG_INT32: ((int32_t *)px)[i] = (int32_t)v[i]; break;
            case AUG_INT64: ((int64_t *)px)[i] = v[i]; break;
            default: ((uint64_t *)px)[i] = (uint64_t)v[i]; break;
            }
        }
        for (int f = 0; f < NUM_UNARY; f++) {
            aug_tensor *y = NULL;
            if (aug_unary(UNARY[f].op, x, &y) != AUG_OK)
                fail_msg("%s: %s", aug_op_name(UNARY[f].op), aug_last_error());
            assert_int_equal(y->dtype, AUG_FLOAT32);
            const float *py = aug_tensor_ptr(y);
            for (int i = 0; i < N; i++) {
                float want = (float)UNARY[f].ref((long double)v[i]);
                if (th_ulp32(py[i], want) > 2 && bad++ < 10)
                    print_error("%s %s(%lld) = %a want %a\n", aug_dtype_name(dts[d]), aug_op_name(UNARY[f].op),
                                (long long)v[i], py[i], want);
            }
            aug_tensor_free(y);
        }
        aug_tensor_free(x);
    }
    assert_int_equal(bad, 0);
}

static float un32(aug_op op, float v) {
    const int64_t one[1] = { 1 };
    aug_tensor *x = mk(AUG_FLOAT32, 1, one), *y = NULL;
    *(float *)aug_tensor_ptr(x) = v;
    assert_int_equal(aug_unary(op, x, &y), AUG_OK);
    float r = *(float *)aug_tensor_ptr(y);
    aug_tensor_free(x); aug_tensor_free(y);
    return r;
}

static void test_domains_and_out(void **state) {
    (void)state;
    assert_true(isnan(un32(AUG_OP_SQRT, -1.0f)));
    assert_true(un32(AUG_OP_LOG, 0.0f) == -INFINITY);
    assert_true(isnan(un32(AUG_OP_LOG, -1.0f)));
    assert_true(isnan(un32(AUG_OP_ACOSH, 0.5f)));
    assert_true(un32(AUG_OP_ATANH, 1.0f) == INFINITY);
    assert_true(isnan(un32(AUG_OP_ASIN, 2.0f)));
    assert_true(un32(AUG_OP_RSQRT, 0.25f) == 2.0f);
    /* int8 input, out of domain: float32 NaN. */
    const int64_t s3[1] = { 3 };
    aug_tensor *i8 = mk(AUG_INT8, 1, s3), *y = NULL;
    int8_t *pi = aug_tensor_ptr(i8);
    pi[0] = 0; pi[1] = -4; pi[2] = 4;
    assert_int_equal(aug_unary(AUG_OP_ACOSH, i8, &y), AUG_OK);
    assert_int_equal(y->dtype, AUG_FLOAT32);
    assert_true(isnan(((float *)aug_tensor_ptr(y))[0]));
    aug_tensor_free(y); y = NULL;
    assert_int_equal(aug_unary(AUG_OP_SQRT, i8, &y), AUG_OK);
    const float *py = aug_tensor_ptr(y);
    assert_true(py[0] == 0.0f && isnan(py[1]) && py[2] == 2.0f);
    aug_tensor_free(y);
    aug_tensor_free(i8);
    /* Written into a uint8 `out`: saturate_cast (round half to even, NaN -> 0). */
    const int64_t s6[1] = { 6 };
    aug_tensor *x = mk(AUG_FLOAT32, 1, s6), *o = mk(AUG_UINT8, 1, s6), *oo = o;
    const float xv[6] = { 0.0f, 2.0f, 6.25f, 100.0f, 1e6f, -1.0f };
    memcpy(aug_tensor_ptr(x), xv, sizeof xv);
    assert_int_equal(aug_unary(AUG_OP_SQRT, x, &oo), AUG_OK);
    assert_ptr_equal(oo, o);
    const uint8_t want[6] = { 0, 1, 2, 10, 255, 0 };
    assert_memory_equal(aug_tensor_ptr(o), want, 6);
    aug_tensor_free(x); aug_tensor_free(o);
    /* Overflow (issue 11): the float32 result rounds as IEEE does whether it was
     * computed in float32 (int16) or float64 (int32, int64), so exp, sinh, cosh of
     * 100 are inf; an out= of another dtype (float16) receives the compute type's
     * value through saturate_cast instead. */
    const aug_dtype ints[3] = { AUG_INT16, AUG_INT32, AUG_INT64 };
    const aug_op big[3] = { AUG_OP_EXP, AUG_OP_SINH, AUG_OP_COSH };
    const int64_t s1[1] = { 1 };
    for (int i = 0; i < 3; i++) {
        aug_tensor *v = mk(ints[i], 1, s1);
        memset(aug_tensor_ptr(v), 0, (size_t)aug_dtype_info(ints[i])->size);
        *(uint8_t *)aug_tensor_ptr(v) = 100; /* little-endian */
        for (int k = 0; k < 3; k++) {
            aug_tensor *r = NULL;
            assert_int_equal(aug_unary(big[k], v, &r), AUG_OK);
            assert_int_equal(r->dtype, AUG_FLOAT32);
            assert_true(*(float *)aug_tensor_ptr(r) == INFINITY);
            aug_tensor_free(r);
        }
        aug_tensor *h = mk(AUG_FLOAT16, 1, s1), *hh = h;
        assert_int_equal(aug_unary(AUG_OP_EXP, v, &hh), AUG_OK);
        /* int16: float32 itself overflowed (inf stays inf); wider: the finite float64 saturates */
        assert_true(th_half_to_float(*(uint16_t *)aug_tensor_ptr(h)) == (i == 0 ? INFINITY : 65504.0f));
        aug_tensor_free(h);
        aug_tensor_free(v);
    }
}

/* Reversed and transposed views, and a broadcast (stride 0) view. */
static void test_unary_layouts(void **state) {
    (void)state;
    enum { R = 4, C = 5 };
    const int64_t shape[2] = { R, C };
    aug_tensor *x = mk(AUG_FLOAT64, 2, shape);
    double *px = aug_tensor_ptr(x);
    for (int i = 0; i < R * C; i++) px[i] = 0.1 * i - 0.7;
    aug_index idx[2] = { { .kind = AUG_INDEX_SLICE, .step = -1 }, { .kind = AUG_INDEX_SLICE, .step = 2 } };
    aug_tensor *v = aug_tensor_index(x, 2, idx), *y = NULL;
    assert_non_null(v);
    assert_int_equal(aug_unary(AUG_OP_SIN, v, &y), AUG_OK);
    const double *py = aug_tensor_ptr(y);
    for (int i = 0; i < R; i++)
        for (int j = 0; j < 3; j++) assert_true(th_ulp64(py[i * 3 + j], (double)sinl(px[(R - 1 - i) * C + 2 * j])) <= 4);
    aug_tensor_free(y); y = NULL;
    const int perm[2] = { 1, 0 };
    aug_tensor *t = aug_tensor_permute(x, perm);
    assert_int_equal(aug_unary(AUG_OP_EXP, t, &y), AUG_OK);
    py = aug_tensor_ptr(y);
    for (int j = 0; j < C; j++)
        for (int i = 0; i < R; i++) assert_true(th_ulp64(py[j * R + i], (double)expl(px[i * C + j])) <= 4);
    aug_tensor_free(y); y = NULL;
    const int64_t big[3] = { 3, R, C };
    aug_tensor *bv = aug_tensor_broadcast_to(x, 3, big);
    assert_non_null(bv);
    assert_int_equal(aug_unary(AUG_OP_CBRT, bv, &y), AUG_OK);
    py = aug_tensor_ptr(y);
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < R * C; i++) assert_true(th_ulp64(py[k * R * C + i], (double)cbrtl(px[i])) <= 4);
    aug_tensor_free(y);
    aug_tensor_free(bv); aug_tensor_free(t); aug_tensor_free(v); aug_tensor_free(x);
}

/* ---- fpow, atan2 --------------------------------------------------------------------- */

static void test_binary(void **state) {
    (void)state;
    enum { R = 6, C = 7 };
    const aug_op ops[2] = { AUG_OP_FPOW, AUG_OP_ATAN2 };
    long double (*const refs[2])(long double, long double) = { powl, atan2l };
    const int64_t sa[2] = { R, 1 }, sb[1] = { C };
    int bad = 0;
    for (int k = 0; k < 2; k++) {
        /* float32 (R,1) with float64 (C,) -> float64 (R,C); float32 with float32. */
        aug_tensor *a = mk(AUG_FLOAT32, 2, sa), *b = mk(AUG_FLOAT64, 1, sb), *b32 = mk(AUG_FLOAT32, 1, sb);
        float *pa = aug_tensor_ptr(a), *pb32 = aug_tensor_ptr(b32);
        double *pb = aug_tensor_ptr(b);
        for (int i = 0; i < R; i++) pa[i] = (float)(rnd_unit() * 10 - (k ? 5 : 0));
        for (int j = 0; j < C; j++) { pb32[j] = (float)(rnd_unit() * 8 - 4); pb[j] = pb32[j]; }
        pa[0] = 0.0f;
        aug_tensor *o = NULL, *o32 = NULL;
        assert_int_equal(aug_binary(ops[k], a, b, &o), AUG_OK);
        assert_int_equal(o->dtype, AUG_FLOAT64);
        assert_int_equal(aug_binary(ops[k], a, b32, &o32), AUG_OK);
        assert_int_equal(o32->dtype, AUG_FLOAT32);
        const double *po = aug_tensor_ptr(o);
        const float *po32 = aug_tensor_ptr(o32);
        for (int i = 0; i < R; i++)
            for (int j = 0; j < C; j++) {
                long double r = refs[k](pa[i], pb[j]);
                if (th_ulp64(po[i * C + j], (double)r) > 4 && bad++ < 5)
                    print_error("f64 %s(%g, %g)\n", aug_op_name(ops[k]), pa[i], pb[j]);
                if (th_ulp32(po32[i * C + j], (float)r) > 2 && bad++ < 5)
                    print_error("f32 %s(%g, %g)\n", aug_op_name(ops[k]), pa[i], pb[j]);
            }
        aug_tensor_free(o); aug_tensor_free(o32);
        aug_tensor_free(a); aug_tensor_free(b); aug_tensor_free(b32);
    }
    assert_int_equal(bad, 0);
    /* Integral operands -> float32: fpow(2, -1) = 0.5 (not the integer pow's 0). */
    const int64_t s4[1] = { 4 };
    aug_tensor *x = mk(AUG_INT8, 1, s4), *e = mk(AUG_INT8, 1, s4), *o = NULL;
    const int8_t xv[4] = { 2, -8, 0, 3 }, ev[4] = { -1, 3, -1, 2 };
    memcpy(aug_tensor_ptr(x), xv, 4);
    memcpy(aug_tensor_ptr(e), ev, 4);
    assert_int_equal(aug_binary(AUG_OP_FPOW, x, e, &o), AUG_OK);
    assert_int_equal(o->dtype, AUG_FLOAT32);
    const float w[4] = { 0.5f, -512.0f, INFINITY, 9.0f };
    assert_memory_equal(aug_tensor_ptr(o), w, sizeof w);
    aug_tensor_free(o); o = NULL;
    assert_int_equal(aug_binary(AUG_OP_ATAN2, x, e, &o), AUG_OK);
    assert_int_equal(o->dtype, AUG_FLOAT32);
    for (int i = 0; i < 4; i++) assert_true(th_ulp32(((float *)aug_tensor_ptr(o))[i], (float)atan2l(xv[i], ev[i])) <= 2);
    aug_tensor_free(o); o = NULL;
    /* float16 ** float16 stays float16: 1.5 ** 2 = 2.25 exactly. */
    aug_tensor *h = mk(AUG_FLOAT16, 1, s4), *h2 = mk(AUG_FLOAT16, 1, s4);
    for (int i = 0; i < 4; i++) {
        ((uint16_t *)aug_tensor_ptr(h))[i] = th_float_to_half(1.5f);
        ((uint16_t *)aug_tensor_ptr(h2))[i] = th_float_to_half((float)i);
    }
    assert_int_equal(aug_binary(AUG_OP_FPOW, h, h2, &o), AUG_OK);
    assert_int_equal(o->dtype, AUG_FLOAT16);
    const float wh[4] = { 1.0f, 1.5f, 2.25f, 3.375f };
    for (int i = 0; i < 4; i++) assert_true(th_half_to_float(((uint16_t *)aug_tensor_ptr(o))[i]) == wh[i]);
    aug_tensor_free(o);
    aug_tensor_free(h); aug_tensor_free(h2); aug_tensor_free(x); aug_tensor_free(e);
}

/* ---- fma --------------------------------------------------------------------------------- */

static void test_fma(void **state) {
    (void)state;
    const int64_t one[1] = { 1 }, s3[1] = { 3 };
    /* float64: one rounding, (1+e)(1-e) - 1 = -e^2 exactly. */
    aug_tensor *a = mk(AUG_FLOAT64, 1, one), *b = mk(AUG_FLOAT64, 1, one), *o = NULL;
    *(double *)aug_tensor_ptr(a) = 1.0 - 0x1p-27;
    *(double *)aug_tensor_ptr(b) = -1.0;
    assert_int_equal(aug_fma(1.0 + 0x1p-27, a, b, &o), AUG_OK);
    assert_int_equal(o->dtype, AUG_FLOAT64);
    assert_true(*(double *)aug_tensor_ptr(o) == -0x1p-54);
    aug_tensor_free(o); o = NULL;
    aug_tensor_free(a); aug_tensor_free(b);
    /* float32 likewise (scalar exact in float32; 1 - 2^-26 is not a float32). */
    a = mk(AUG_FLOAT32, 1, one); b = mk(AUG_FLOAT32, 1, one);
    *(float *)aug_tensor_ptr(a) = 1.0f - 0x1p-13f;
    *(float *)aug_tensor_ptr(b) = -1.0f;
    assert_int_equal(aug_fma(1.0 + 0x1p-13, a, b, &o), AUG_OK);
    assert_int_equal(o->dtype, AUG_FLOAT32);
    assert_true(*(float *)aug_tensor_ptr(o) == -0x1p-26f);
    aug_tensor_free(o); o = NULL;
    aug_tensor_free(a); aug_tensor_free(b);

    /* uint8, uint8: float32 temp, uint8 result, saturated, half to even. */
    aug_tensor *u1 = mk(AUG_UINT8, 1, s3), *u2 = mk(AUG_UINT8, 1, s3);
    const uint8_t v1[3] = { 200, 3, 5 }, v2[3] = { 100, 0, 0 };
    memcpy(aug_tensor_ptr(u1), v1, 3);
    memcpy(aug_tensor_ptr(u2), v2, 3);
    assert_int_equal(aug_fma(2.0, u1, u2, &o), AUG_OK);
    assert_int_equal(o->dtype, AUG_UINT8);
    const uint8_t w1[3] = { 255, 6, 10 };
    assert_memory_equal(aug_tensor_ptr(o), w1, 3);
    aug_tensor_free(o); o = NULL;
    assert_int_equal(aug_fma(0.5, u1, u2, &o), AUG_OK);
    const uint8_t w2[3] = { 200, 2, 2 }; /* 100 + 100, 1.5 -> 2, 2.5 -> 2 */
    assert_memory_equal(aug_tensor_ptr(o), w2, 3);
    aug_tensor_free(o); o = NULL;
    assert_int_equal(aug_fma(-1.0, u1, u2, &o), AUG_OK);
    const uint8_t w3[3] = { 0, 0, 0 };
    assert_memory_equal(aug_tensor_ptr(o), w3, 3);
    aug_tensor_free(o); o = NULL;

    /* float32 t1 with uint8 t2: result uint8 (t2's dtype). int8 t1 with float32 t2:
     * result float32. */
    aug_tensor *f = mk(AUG_FLOAT32, 1, s3);
    const float fv[3] = { 1.5f, 2.5f, -3.0f };
    memcpy(aug_tensor_ptr(f), fv, sizeof fv);
    const uint8_t v3[3] = { 0, 0, 10 };
    memcpy(aug_tensor_ptr(u2), v3, 3);
    assert_int_equal(aug_fma(1.0, f, u2, &o), AUG_OK);
    assert_int_equal(o->dtype, AUG_UINT8);
    const uint8_t w4[3] = { 2, 2, 7 };
    assert_memory_equal(aug_tensor_ptr(o), w4, 3);
    aug_tensor_free(o); o = NULL;
    aug_tensor *i8 = mk(AUG_INT8, 1, s3);
    const int8_t iv[3] = { -128, 1, 127 };
    memcpy(aug_tensor_ptr(i8), iv, 3);
    assert_int_equal(aug_fma(0.25, i8, f, &o), AUG_OK);
    assert_int_equal(o->dtype, AUG_FLOAT32);
    const float w5[3] = { -30.5f, 2.75f, 28.75f };
    assert_memory_equal(aug_tensor_ptr(o), w5, sizeof w5);
    aug_tensor_free(o); o = NULL;

    /* int32: float64 temp; 3e9 + 5 saturates, 0.5 * (2^30 + 1) rounds half to even. */
    aug_tensor *j1 = mk(AUG_INT32, 1, s3), *j2 = mk(AUG_INT32, 1, s3);
    const int32_t jv1[3] = { 1000000000, (1 << 30) + 1, -1000000000 }, jv2[3] = { 5, 0, -5 };
    memcpy(aug_tensor_ptr(j1), jv1, sizeof jv1);
    memcpy(aug_tensor_ptr(j2), jv2, sizeof jv2);
    assert_int_equal(aug_fma(3.0, j1, j2, &o), AUG_OK);
    assert_int_equal(o->dtype, AUG_INT32);
    assert_true(((int32_t *)aug_tensor_ptr(o))[0] == INT32_MAX);
    assert_true(((int32_t *)aug_tensor_ptr(o))[2] == INT32_MIN);
    aug_tensor_free(o); o = NULL;
    assert_int_equal(aug_fma(0.5, j1, j2, &o), AUG_OK);
    assert_true(((int32_t *)aug_tensor_ptr(o))[1] == 536870912);
    aug_tensor_free(o); o = NULL;

    /* float16: computed in float32 (one fmaf), rounded once to float16. */
    enum { N = 200 };
    const int64_t sn[1] = { N };
    aug_tensor *h1 = mk(AUG_FLOAT16, 1, sn), *h2 = mk(AUG_FLOAT16, 1, sn);
    uint16_t *ph1 = aug_tensor_ptr(h1), *ph2 = aug_tensor_ptr(h2);
    for (int i = 0; i < N; i++) {
        ph1[i] = th_float_to_half((float)(rnd_unit() * 200 - 100));
        ph2[i] = th_float_to_half((float)(rnd_unit() * 2 - 1));
    }
    assert_int_equal(aug_fma(3.0, h1, h2, &o), AUG_OK);
    assert_int_equal(o->dtype, AUG_FLOAT16);
    for (int i = 0; i < N; i++) {
        /* 3a + b is exact in long double for half inputs; rounded to float, then half. */
        float r32 = (float)(3.0L * th_half_to_float(ph1[i]) + th_half_to_float(ph2[i]));
        assert_int_equal(((uint16_t *)aug_tensor_ptr(o))[i], th_float_to_half(r32));
    }
    aug_tensor_free(o); o = NULL;

    /* Broadcast (R,1) with (C,), and an explicit out. */
    const int64_t sr[2] = { 2, 1 }, sc[1] = { 3 }, so[2] = { 2, 3 };
    aug_tensor *c1 = mk(AUG_FLOAT64, 2, sr), *c2 = mk(AUG_FLOAT64, 1, sc), *out = mk(AUG_INT16, 2, so), *oo = out;
    ((double *)aug_tensor_ptr(c1))[0] = 10; ((double *)aug_tensor_ptr(c1))[1] = -10;
    for (int j = 0; j < 3; j++) ((double *)aug_tensor_ptr(c2))[j] = j + 0.5;
    assert_int_equal(aug_fma(2.0, c1, c2, &oo), AUG_OK);
    assert_ptr_equal(oo, out);
    const int16_t w6[6] = { 20, 22, 22, -20, -18, -18 }; /* 20.5 -> 20, 21.5 -> 22, 22.5 -> 22, ... */
    assert_memory_equal(aug_tensor_ptr(out), w6, sizeof w6);

    aug_tensor_free(c1); aug_tensor_free(c2); aug_tensor_free(out);
    aug_tensor_free(h1); aug_tensor_free(h2); aug_tensor_free(j1); aug_tensor_free(j2);
    aug_tensor_free(i8); aug_tensor_free(f); aug_tensor_free(u1); aug_tensor_free(u2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unary_floats),
        cmocka_unit_test(test_unary_integral),
        cmocka_unit_test(test_domains_and_out),
        cmocka_unit_test(test_unary_layouts),
        cmocka_unit_test(test_binary),
        cmocka_unit_test(test_fma),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
