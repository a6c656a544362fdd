/* test_kernels_math.c: the CPU "math" kernel family called directly. Every float32
 * result must lie within 2 ulp of the long double libm value rounded to float, every
 * float64 result within 4 ulp (semantics §8); out-of-domain arguments give NaN; FMA is
 * checked bit for bit against an exact __float128 evaluation. The float32 rules
 * that go through double (scalar/math.h: tan, atan2, pow) are swept over millions
 * of inputs against long double and must be correctly rounded but for the one
 * double rounding (<= 0.5 ulp + 2^-20: what makes them independent of the
 * platform's float library, CUDA's tanf/atan2f/powf reaching 3-4 ulp). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "cpu/kernels.h"
#include "helpers/th_float.h"
#include "helpers/th_ops.h"

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint64_t rnd(void) { return th_rand(&rng_state); }
static double rnd_unit(void) { return (double)(rnd() >> 11) / 9007199254740992.0; } /* [0, 1) */

/* ---- the functions and their references ------------------------------------------ */

static long double rsqrtl_(long double x) { return 1.0L / sqrtl(x); }

typedef enum { DOM_ALL, DOM_UNIT, DOM_POS, DOM_GE1, DOM_TRIG, DOM_EXP } domain;

static const struct {
    aug_op op;
    const char *name;
    long double (*ref)(long double);
    domain dom; /* where most samples are drawn besides the random-bit ones */
} UNARY[] = {
    { AUG_OP_FABS, "fabs", fabsl, DOM_ALL },     { AUG_OP_FLOOR, "floor", floorl, DOM_ALL },
    { AUG_OP_CEIL, "ceil", ceill, DOM_ALL },     { AUG_OP_SQRT, "sqrt", sqrtl, DOM_POS },
    { AUG_OP_RSQRT, "rsqrt", rsqrtl_, DOM_POS }, { AUG_OP_CBRT, "cbrt", cbrtl, DOM_ALL },
    { AUG_OP_EXP, "exp", expl, DOM_EXP },        { AUG_OP_LOG, "log", logl, DOM_POS },
    { AUG_OP_LOG2, "log2", log2l, DOM_POS },     { AUG_OP_LOG10, "log10", log10l, DOM_POS },
    { AUG_OP_SIN, "sin", sinl, DOM_TRIG },       { AUG_OP_COS, "cos", cosl, DOM_TRIG },
    { AUG_OP_TAN, "tan", tanl, DOM_TRIG },       { AUG_OP_ASIN, "asin", asinl, DOM_UNIT },
    { AUG_OP_ACOS, "acos", acosl, DOM_UNIT },    { AUG_OP_ATAN, "atan", atanl, DOM_ALL },
    { AUG_OP_SINH, "sinh", sinhl, DOM_EXP },     { AUG_OP_COSH, "cosh", coshl, DOM_EXP },
    { AUG_OP_TANH, "tanh", tanhl, DOM_EXP },     { AUG_OP_ASINH, "asinh", asinhl, DOM_ALL },
    { AUG_OP_ACOSH, "acosh", acoshl, DOM_GE1 },  { AUG_OP_ATANH, "atanh", atanhl, DOM_UNIT },
};
#define NUM_UNARY ((int)(sizeof UNARY / sizeof UNARY[0]))

/* A sample: 1/4 random bits (every exponent, NaN, inf), 1/4 log-uniform magnitude
 * of either sign, 1/2 uniform over the function's interesting range. */
static double sample(domain dom, int is_f32) {
    uint64_t k = rnd() % 4;
    if (k == 0) {
        if (is_f32) {
            uint32_t u = (uint32_t)rnd();
            float f;
            memcpy(&f, &u, 4);
            return f;
        }
        uint64_t u = rnd();
        double d;
        memcpy(&d, &u, 8);
        return d;
    }
    if (k == 1) {
        double m = exp2((rnd_unit() - 0.5) * (is_f32 ? 60.0 : 200.0));
        return (rnd() & 1) ? -m : m;
    }
    double u = rnd_unit();
    switch (dom) {
    case DOM_UNIT: return 2.0 * u - 1.0;
    case DOM_POS: return 100.0 * u;
    case DOM_GE1: return 1.0 + 20.0 * u;
    case DOM_TRIG: return (u - 0.5) * 40.0;
    case DOM_EXP: return (u - 0.5) * (is_f32 ? 180.0 : 1420.0);
    default: return (u - 0.5) * 20.0;
    }
}

static const double SPECIALS[] = { 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 0.999, -0.999,
                                   1.001, 3.14159265358979, 1e-30, -1e-30, 1e-40, 88.7, 89.0, -104.0,
                                   710.0, -745.5, 1e30, -1e30, 1e300, INFINITY, -INFINITY, NAN,
                                   FLT_MAX, -FLT_MAX, FLT_MIN, DBL_MIN, 4.9e-324, DBL_MAX };
#define NUM_SPECIALS ((int)(sizeof SPECIALS / sizeof SPECIALS[0]))

#define NS 50000

static void run1(aug_op op, int ctype, const void *in, int64_t sin, void *out, int64_t sout, int64_t n) {
    char *data[2] = { (char *)in, (char *)out };
    int64_t st[2] = { sin, sout };
    aug__kernel k = aug__cpu_math_kernel(op, ctype);
    assert_non_null(k);
    k(data, n, st, NULL);
}

static void test_unary_float32(void **state) {
    (void)state;
    static float x[NS], y[NS];
    int bad = 0;
    for (int f = 0; f < NUM_UNARY; f++) {
        for (int i = 0; i < NS; i++)
            x[i] = i < NUM_SPECIALS ? (float)SPECIALS[i] : (float)sample(UNARY[f].dom, 1);
        run1(UNARY[f].op, AUG_FLOAT32, x, 4, y, 4, NS);
        for (int i = 0; i < NS; i++) {
            float want = (float)UNARY[f].ref(x[i]);
            uint64_t d = th_ulp32(y[i], want);
            if (d > 2 && bad++ < 10)
                print_error("float32 %s(%a) = %a, want %a (%llu ulp)\n", UNARY[f].name, x[i], y[i], want,
                            (unsigned long long)d);
        }
    }
    assert_int_equal(bad, 0);
}

static void test_unary_float64(void **state) {
    (void)state;
    static double x[NS], y[NS];
    int bad = 0;
    for (int f = 0; f < NUM_UNARY; f++) {
        for (int i = 0; i < NS; i++) x[i] = i < NUM_SPECIALS ? SPECIALS[i] : sample(UNARY[f].dom, 0);
        run1(UNARY[f].op, AUG_FLOAT64, x, 8, y, 8, NS);
        for (int i = 0; i < NS; i++) {
            double want = (double)UNARY[f].ref(x[i]);
            uint64_t d = th_ulp64(y[i], want);
            if (d > 4 && bad++ < 10)
                print_error("float64 %s(%a) = %a, want %a (%llu ulp)\n", UNARY[f].name, x[i], y[i], want,
                            (unsigned long long)d);
        }
    }
    assert_int_equal(bad, 0);
}

static float u32(aug_op op, float x) {
    float r;
    run1(op, AUG_FLOAT32, &x, 4, &r, 4, 1);
    return r;
}
static double u64(aug_op op, double x) {
    double r;
    run1(op, AUG_FLOAT64, &x, 8, &r, 8, 1);
    return r;
}

/* Out of domain -> NaN; poles -> inf of the right sign (IEEE / C Annex F). */
static void test_domains(void **state) {
    (void)state;
    const aug_op nan_ops[] = { AUG_OP_SQRT, AUG_OP_RSQRT, AUG_OP_LOG, AUG_OP_LOG2, AUG_OP_LOG10 };
    for (size_t i = 0; i < sizeof nan_ops / sizeof nan_ops[0]; i++) {
        assert_true(isnan(u32(nan_ops[i], -1.0f)));
        assert_true(isnan(u64(nan_ops[i], -1.0)));
        assert_true(isnan(u32(nan_ops[i], NAN)));
        assert_true(isnan(u64(nan_ops[i], NAN)));
    }
    assert_true(u32(AUG_OP_LOG, 0.0f) == -INFINITY);
    assert_true(u64(AUG_OP_LOG, -0.0) == -INFINITY);
    assert_true(u32(AUG_OP_LOG2, 0.0f) == -INFINITY);
    assert_true(u64(AUG_OP_LOG10, 0.0) == -INFINITY);
    assert_true(isnan(u32(AUG_OP_ACOSH, 0.5f)));
    assert_true(isnan(u64(AUG_OP_ACOSH, 0.5)));
    assert_true(u32(AUG_OP_ACOSH, 1.0f) == 0.0f);
    assert_true(u32(AUG_OP_ATANH, 1.0f) == INFINITY);
    assert_true(u64(AUG_OP_ATANH, -1.0) == -INFINITY);
    assert_true(isnan(u32(AUG_OP_ATANH, 1.5f)));
    assert_true(isnan(u64(AUG_OP_ATANH, -2.0)));
    assert_true(isnan(u32(AUG_OP_ASIN, 1.0001f)));
    assert_true(isnan(u64(AUG_OP_ACOS, -1.5)));
    assert_true(isnan(u32(AUG_OP_SIN, INFINITY)));
    assert_true(isnan(u64(AUG_OP_COS, -INFINITY)));
    assert_true(isnan(u32(AUG_OP_TAN, INFINITY)));
    assert_true(u32(AUG_OP_RSQRT, 0.0f) == INFINITY);
    assert_true(u64(AUG_OP_RSQRT, -0.0) == -INFINITY);
    assert_true(u32(AUG_OP_RSQRT, INFINITY) == 0.0f);
    assert_true(u32(AUG_OP_RSQRT, 4.0f) == 0.5f);
    assert_true(u64(AUG_OP_SQRT, 2.0) == sqrt(2.0));
    assert_true(u32(AUG_OP_EXP, -INFINITY) == 0.0f);
    assert_true(u32(AUG_OP_EXP, 100.0f) == INFINITY);
    assert_true(u64(AUG_OP_EXP, 0.0) == 1.0);
    assert_true(u32(AUG_OP_CBRT, -27.0f) == -3.0f);
    assert_true(u64(AUG_OP_FABS, -0.0) == 0.0 && !signbit(u64(AUG_OP_FABS, -0.0)));
    assert_true(u32(AUG_OP_FLOOR, -2.5f) == -3.0f);
    assert_true(u64(AUG_OP_CEIL, -2.5) == -2.0);
    assert_true(u32(AUG_OP_TANH, INFINITY) == 1.0f);
    assert_true(u64(AUG_OP_ASINH, -INFINITY) == -INFINITY);
    /* No kernels outside FLOAT32/FLOAT64 or for other ops. */
    assert_null(aug__cpu_math_kernel(AUG_OP_SIN, AUG_INT32));
    assert_null(aug__cpu_math_kernel(AUG_OP_SIN, AUG_FLOAT16));
    assert_null(aug__cpu_math_kernel(AUG_OP_ADD, AUG_FLOAT32));
    assert_null(aug__cpu_math_kernel(AUG_OP_POW, AUG_FLOAT64));
}

/* ---- binary: FPOW, ATAN2 ------------------------------------------------------------ */

static void run2(aug_op op, int ctype, const void *a, int64_t sa, const void *b, int64_t sb, void *o,
                 int64_t so, int64_t n) {
    char *data[3] = { (char *)a, (char *)b, (char *)o };
    int64_t st[3] = { sa, sb, so };
    aug__kernel k = aug__cpu_math_kernel(op, ctype);
    assert_non_null(k);
    k(data, n, st, NULL);
}

static void test_binary(void **state) {
    (void)state;
    enum { N = 20000 };
    static float af[N], bf[N], of[N];
    static double ad[N], bd[N], od[N];
    const aug_op ops[2] = { AUG_OP_FPOW, AUG_OP_ATAN2 };
    const char *const names[2] = { "fpow", "atan2" };
    long double (*const refs[2])(long double, long double) = { powl, atan2l };
    int bad = 0;
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < N; i++) {
            int s = i < NUM_SPECIALS * NUM_SPECIALS;
            double a = s ? SPECIALS[i / NUM_SPECIALS] : sample(k == 0 ? DOM_POS : DOM_ALL, 0);
            double b = s ? SPECIALS[i % NUM_SPECIALS] : sample(DOM_ALL, 0);
            if (!s && k == 0 && i % 3 == 0) a = -a, b = floor(b); /* negative base, integer power */
            ad[i] = a; bd[i] = b; af[i] = (float)a; bf[i] = (float)b;
        }
        run2(ops[k], AUG_FLOAT32, af, 4, bf, 4, of, 4, N);
        run2(ops[k], AUG_FLOAT64, ad, 8, bd, 8, od, 8, N);
        for (int i = 0; i < N; i++) {
            float wf = (float)refs[k](af[i], bf[i]);
            double wd = (double)refs[k](ad[i], bd[i]);
            if (th_ulp32(of[i], wf) > 2 && bad++ < 10)
                print_error("float32 %s(%a, %a) = %a want %a\n", names[k], af[i], bf[i], of[i], wf);
            if (th_ulp64(od[i], wd) > 4 && bad++ < 10)
                print_error("float64 %s(%a, %a) = %a want %a\n", names[k], ad[i], bd[i], od[i], wd);
        }
    }
    assert_int_equal(bad, 0);
    float r;
    float x = -8.0f, y = 1.0f / 3.0f;
    run2(AUG_OP_FPOW, AUG_FLOAT32, &x, 4, &y, 4, &r, 4, 1);
    assert_true(isnan(r));
    x = 0.0f; y = -1.0f;
    run2(AUG_OP_FPOW, AUG_FLOAT32, &x, 4, &y, 4, &r, 4, 1);
    assert_true(r == INFINITY);
    double rd, xd = 0.0, yd = -1.0;
    run2(AUG_OP_ATAN2, AUG_FLOAT64, &xd, 8, &yd, 8, &rd, 8, 1); /* atan2(0, -1) = pi */
    assert_true(rd == 3.141592653589793);
}

/* ---- float32 through double: tan, atan2, pow ------------------------------------- */

/* |y - r| in units of the float32 ulp at r (real-valued, so a correctly rounded
 * result is <= 0.5). A reference beyond FLT_MAX compares to the rounded value. */
static double ulp_error32(float y, long double r) {
    if (isnan(y) || isnan(r)) return isnan(y) && isnan(r) ? 0.0 : INFINITY;
    if (isinf((float)r) || isinf(y)) return y == (float)r ? 0.0 : INFINITY;
    int e;
    frexpl(r, &e); /* |r| in [2^(e-1), 2^e): ulp 2^(e-24), subnormals 2^-149 */
    if (e < -125) e = -125;
    return (double)(fabsl((long double)y - r) / ldexpl(1.0L, e - 24));
}

/* A float32 sample: odd draws uniform over [lo, hi), even ones random bits (every
 * exponent, inf, NaN). */
static float sample32(long i, double lo, double hi) {
    if (i & 1) return (float)(lo + (hi - lo) * rnd_unit());
    uint32_t u = (uint32_t)rnd();
    float f;
    memcpy(&f, &u, 4);
    return f;
}

#define SWEEP (1 << 20)

static void test_float32_through_double(void **state) {
    (void)state;
    static float a[SWEEP], b[SWEEP], o[SWEEP], p[SWEEP];
    double worst[3] = {0, 0, 0};
    int bad = 0;
    for (int pass = 0; pass < 4; pass++) { /* 4 Mi inputs per function */
        /* tan: a stride through every bit pattern, and [-20, 20) */
        for (long i = 0; i < SWEEP; i++) {
            uint32_t u = (uint32_t)(i * 4096 + pass * 1024) + (uint32_t)(rnd() & 1023);
            memcpy(&a[i], &u, 4);
            if (i & 1) a[i] = sample32(i, -20.0, 20.0);
        }
        run1(AUG_OP_TAN, AUG_FLOAT32, a, 4, o, 4, SWEEP);
        for (long i = 0; i < SWEEP; i++) {
            double e = ulp_error32(o[i], tanl(a[i]));
            if (e > worst[0]) worst[0] = e;
            if (e > 0.5 + 0x1p-20 && bad++ < 10) print_error("tan(%a) = %a (%.3f ulp)\n", a[i], o[i], e);
        }
        for (long i = 0; i < SWEEP; i++) {
            a[i] = sample32(i, -4.0, 4.0);
            b[i] = sample32(i, -4.0, 4.0);
        }
        run2(AUG_OP_ATAN2, AUG_FLOAT32, a, 4, b, 4, o, 4, SWEEP);
        for (long i = 0; i < SWEEP; i++) {
            double e = ulp_error32(o[i], atan2l(a[i], b[i]));
            if (e > worst[1]) worst[1] = e;
            if (e > 0.5 + 0x1p-20 && bad++ < 10) print_error("atan2(%a, %a) = %a (%.3f ulp)\n", a[i], b[i], o[i], e);
        }
        /* pow: bases in [0, 10) and exponents in [-30, 30), half of them integers
         * with negative bases, and random bits */
        for (long i = 0; i < SWEEP; i++) {
            a[i] = sample32(i, 0.0, 10.0);
            b[i] = sample32(i, -30.0, 30.0);
            if ((i & 3) == 1) a[i] = -a[i], b[i] = floorf(b[i]);
        }
        run2(AUG_OP_FPOW, AUG_FLOAT32, a, 4, b, 4, o, 4, SWEEP);
        char *data[3] = {(char *)a, (char *)b, (char *)p};
        int64_t st[3] = {4, 4, 4};
        aug__cpu_div_kernel(AUG_OP_POW, AUG_FLOAT32)(data, SWEEP, st, NULL); /* `**`: the same rule */
        for (long i = 0; i < SWEEP; i++) {
            double e = ulp_error32(o[i], powl(a[i], b[i]));
            if (e > worst[2]) worst[2] = e;
            if (e > 0.5 + 0x1p-20 && bad++ < 10) print_error("fpow(%a, %a) = %a (%.3f ulp)\n", a[i], b[i], o[i], e);
            if (memcmp(&o[i], &p[i], 4) != 0 && bad++ < 10)
                print_error("pow(%a, %a) = %a, fpow %a\n", a[i], b[i], p[i], o[i]);
        }
    }
    print_message("float32 worst ulp over 4 Mi inputs each: tan %.6f, atan2 %.6f, pow %.6f\n", worst[0], worst[1],
                  worst[2]);
    assert_int_equal(bad, 0);
}

/* ---- FMA: one rounding ---------------------------------------------------------------- */

static void run3(int ctype, const void *a, int64_t sa, const void *b, int64_t sb, const void *c, int64_t sc,
                 void *o, int64_t so, int64_t n) {
    char *data[4] = { (char *)a, (char *)b, (char *)c, (char *)o };
    int64_t st[4] = { sa, sb, sc, so };
    aug__kernel k = aug__cpu_math_kernel(AUG_OP_FMA, ctype);
    assert_non_null(k);
    k(data, n, st, NULL);
}

/* a*b is exact in __float128 (2*53 <= 113 bits); c is drawn near a*b so the sum is
 * exact too, and the cast to the type is then the one correct rounding. */
static void test_fma(void **state) {
    (void)state;
    enum { N = 5000 };
    static double a[N], b[N], c[N], o[N];
    static float af[N], bf[N], cf[N], of[N];
    for (int i = 0; i < N; i++) {
        a[i] = (rnd_unit() - 0.5) * 8; b[i] = (rnd_unit() - 0.5) * 8;
        c[i] = -(a[i] * b[i]) * (1.0 + (rnd_unit() - 0.5) * 1e-6);
        af[i] = (float)a[i]; bf[i] = (float)b[i];
        cf[i] = -(af[i] * bf[i]) * (1.0f + (float)(rnd_unit() - 0.5) * 1e-3f);
    }
    run3(AUG_FLOAT64, a, 8, b, 8, c, 8, o, 8, N);
    run3(AUG_FLOAT32, af, 4, bf, 4, cf, 4, of, 4, N);
    int bad = 0;
    for (int i = 0; i < N; i++) {
        double w = (double)((__float128)a[i] * (__float128)b[i] + (__float128)c[i]);
        float wf = (float)((__float128)af[i] * (__float128)bf[i] + (__float128)cf[i]);
        if (memcmp(&w, &o[i], 8) != 0 && bad++ < 10)
            print_error("fma64 %a %a %a = %a want %a\n", a[i], b[i], c[i], o[i], w);
        if (memcmp(&wf, &of[i], 4) != 0 && bad++ < 10)
            print_error("fma32 %a %a %a = %a want %a\n", af[i], bf[i], cf[i], of[i], wf);
    }
    assert_int_equal(bad, 0);
    /* The classic case that separate rounding gets wrong: (1+e)(1-e) - 1 = -e^2. */
    double x = 1.0 + 0x1p-27, y = 1.0 - 0x1p-27, z = -1.0, r;
    run3(AUG_FLOAT64, &x, 8, &y, 8, &z, 8, &r, 8, 1);
    assert_true(r == -0x1p-54);
    float xf = 1.0f + 0x1p-13f, yf = 1.0f - 0x1p-13f, zf = -1.0f, rf;
    run3(AUG_FLOAT32, &xf, 4, &yf, 4, &zf, 4, &rf, 4, 1);
    assert_true(rf == -0x1p-26f);
    /* Broadcast scalar multiplier (stride 0) and strided addend/output. */
    double s = 3.0, cs[8], os[16];
    for (int i = 0; i < 8; i++) cs[i] = i;
    run3(AUG_FLOAT64, &s, 0, a, 8, cs, 8, os, 16, 8);
    for (int i = 0; i < 8; i++) assert_true(os[2 * i] == fma(3.0, a[i], (double)i));
    z = NAN;
    run3(AUG_FLOAT64, &x, 8, &y, 8, &z, 8, &r, 8, 1);
    assert_true(isnan(r));
}

/* Strided, reversed and broadcast layouts give the contiguous results. */
static void test_layouts(void **state) {
    (void)state;
    enum { N = 50 };
    double x[N], y[N], ys[3 * N];
    float xf[N], yf[2 * N], yc[N];
    for (int i = 0; i < N; i++) { x[i] = (i - 20) * 0.37; xf[i] = (float)x[i]; }
    for (int f = 0; f < NUM_UNARY; f++) {
        run1(UNARY[f].op, AUG_FLOAT64, x, 8, y, 8, N);
        run1(UNARY[f].op, AUG_FLOAT64, x + N - 1, -8, ys, 24, N);
        for (int i = 0; i < N; i++) assert_true(th_ulp64(ys[3 * i], y[N - 1 - i]) == 0);
        run1(UNARY[f].op, AUG_FLOAT32, xf, 4, yc, 4, N);
        run1(UNARY[f].op, AUG_FLOAT32, xf + 7, 0, yf, 8, N);
        for (int i = 0; i < N; i++) assert_true(th_ulp32(yf[2 * i], yc[7]) == 0);
    }
    double b = 0.5, o1[N], o2[2 * N];
    run2(AUG_OP_ATAN2, AUG_FLOAT64, x, 8, &b, 0, o1, 8, N);
    run2(AUG_OP_ATAN2, AUG_FLOAT64, &b, 0, x, 8, o2, 16, N);
    for (int i = 0; i < N; i++) {
        assert_true(o1[i] == atan2(x[i], 0.5));
        assert_true(o2[2 * i] == atan2(0.5, x[i]));
    }
    /* In place: output over the input. */
    double z[N];
    memcpy(z, x, sizeof z);
    run1(AUG_OP_SQRT, AUG_FLOAT64, z, 8, z, 8, N);
    for (int i = 0; i < N; i++) assert_true(th_ulp64(z[i], sqrt(x[i])) == 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unary_float32),
        cmocka_unit_test(test_unary_float64),
        cmocka_unit_test(test_domains),
        cmocka_unit_test(test_binary),
        cmocka_unit_test(test_float32_through_double),
        cmocka_unit_test(test_fma),
        cmocka_unit_test(test_layouts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
