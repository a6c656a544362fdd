/* test_kernels_div.c: the CPU "div" kernel family (TRUEDIV FLOORDIV MOD DIV_RNE POW)
 * called directly, against references written from first principles here:
 * sign/magnitude arithmetic on unsigned __int128 for the integer ops (so even the
 * i128 ctype is checked exactly), long double / __float128 for the float ops. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu/kernels.h"
#include "helpers/th_float.h"
#include "helpers/th_ops.h"

typedef unsigned __int128 u128;
typedef __int128 i128;

/* ---- integer ctypes ---------------------------------------------------------- */

typedef struct ictype {
    int ctype;
    const char *name;
    int size;
    int is_signed;
    i128 lo, hi;
} ictype;

#define I128_MAX_ ((i128)(((u128)1 << 127) - 1))
#define I128_MIN_ (-I128_MAX_ - 1)

static const ictype ICTYPES[] = {
    { AUG_INT8, "int8", 1, 1, INT8_MIN, INT8_MAX },
    { AUG_INT16, "int16", 2, 1, INT16_MIN, INT16_MAX },
    { AUG_INT32, "int32", 4, 1, INT32_MIN, INT32_MAX },
    { AUG_INT64, "int64", 8, 1, INT64_MIN, INT64_MAX },
    { AUG_UINT8, "uint8", 1, 0, 0, UINT8_MAX },
    { AUG_UINT16, "uint16", 2, 0, 0, UINT16_MAX },
    { AUG_UINT32, "uint32", 4, 0, 0, UINT32_MAX },
    { AUG_UINT64, "uint64", 8, 0, 0, UINT64_MAX },
    { AUG__I128, "i128", 16, 1, I128_MIN_, I128_MAX_ },
};
#define NUM_ICTYPES ((int)(sizeof ICTYPES / sizeof ICTYPES[0]))

static void put_int(const ictype *t, void *p, i128 v) {
    switch (t->size) {
    case 1: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
    case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    case 8: { uint64_t x = (uint64_t)v; memcpy(p, &x, 8); break; }
    default: memcpy(p, &v, 16); break;
    }
}

static i128 get_int(const ictype *t, const void *p) {
    switch (t->size) {
    case 1: { uint8_t x; memcpy(&x, p, 1); return t->is_signed ? (i128)(int8_t)x : (i128)x; }
    case 2: { uint16_t x; memcpy(&x, p, 2); return t->is_signed ? (i128)(int16_t)x : (i128)x; }
    case 4: { uint32_t x; memcpy(&x, p, 4); return t->is_signed ? (i128)(int32_t)x : (i128)x; }
    case 8: { uint64_t x; memcpy(&x, p, 8); return t->is_signed ? (i128)(int64_t)x : (i128)x; }
    default: { i128 x; memcpy(&x, p, 16); return x; }
    }
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) { return th_rand(&rng_state); }

/* A random value of the type: full-width bits, or a small magnitude. */
static i128 rnd_int(const ictype *t) {
    u128 bits = ((u128)rnd() << 64) | rnd();
    if (rnd() % 3 == 0) bits &= 0x3ff;  /* small values make interesting quotients */
    if (rnd() % 2 == 0 && t->is_signed) bits = (u128)0 - bits;
    i128 v;
    switch (t->size) {
    case 1: v = t->is_signed ? (i128)(int8_t)bits : (i128)(uint8_t)bits; break;
    case 2: v = t->is_signed ? (i128)(int16_t)bits : (i128)(uint16_t)bits; break;
    case 4: v = t->is_signed ? (i128)(int32_t)bits : (i128)(uint32_t)bits; break;
    case 8: v = t->is_signed ? (i128)(int64_t)bits : (i128)(uint64_t)bits; break;
    default: v = (i128)bits; break;
    }
    return v;
}

/* Edge values of the type, then random ones. Returns the count. */
static int int_values(const ictype *t, i128 *v, int nrand) {
    const i128 cand[] = { t->lo, t->lo + 1, t->lo / 2, -3, -2, -1, 0, 1, 2, 3, 5, 7, 10, 100,
                          t->hi / 2, t->hi / 2 + 1, t->hi - 1, t->hi,
                          INT64_MIN, INT64_MAX, (i128)UINT64_MAX, (i128)INT32_MIN - 1 };
    int n = 0;
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) {
        if (cand[i] < t->lo || cand[i] > t->hi) continue;
        int dup = 0;
        for (int j = 0; j < n; j++) dup |= v[j] == cand[i];
        if (!dup) v[n++] = cand[i];
    }
    for (int i = 0; i < nrand; i++) v[n++] = rnd_int(t);
    return n;
}

/* Signed magnitude -> value clamped to [lo, hi]. */
static i128 clamp_sm(int neg, u128 mag, i128 lo, i128 hi) {
    if (mag == 0) return 0;
    if (neg) {
        u128 lim = lo < 0 ? (u128)0 - (u128)lo : 0; /* |lo| */
        if (mag >= lim) return lo;
        return -(i128)mag;
    }
    return mag > (u128)hi ? hi : (i128)mag;
}

static u128 mag_of(i128 v) { return v < 0 ? (u128)0 - (u128)v : (u128)v; }

static i128 ref_div_by_zero(i128 a, const ictype *t) { return a > 0 ? t->hi : (a < 0 ? t->lo : 0); }

/* Python a // b: the quotient of the magnitudes, rounded toward -inf. */
static i128 ref_floordiv(i128 a, i128 b, const ictype *t) {
    if (b == 0) return ref_div_by_zero(a, t);
    u128 ua = mag_of(a), ub = mag_of(b), q = ua / ub, r = ua % ub;
    int neg = (a < 0) != (b < 0);
    if (neg && r != 0) q += 1;
    return clamp_sm(neg, q, t->lo, t->hi);
}

/* Python a % b: sign of b; magnitude r or |b| - r. */
static i128 ref_mod(i128 a, i128 b, const ictype *t) {
    if (b == 0) return 0;
    u128 ua = mag_of(a), ub = mag_of(b), r = ua % ub;
    if (r == 0) return 0;
    u128 m = ((a < 0) == (b < 0)) ? r : ub - r;
    return clamp_sm(b < 0, m, t->lo, t->hi);
}

/* a / b exactly, rounded half to even. */
static i128 ref_divrne(i128 a, i128 b, const ictype *t) {
    if (b == 0) return ref_div_by_zero(a, t);
    u128 ua = mag_of(a), ub = mag_of(b), q = ua / ub, r = ua % ub;
    if (2 * r > ub || (2 * r == ub && (q & 1))) q += 1;
    return clamp_sm((a < 0) != (b < 0), q, t->lo, t->hi);
}

/* a ** b by repeated multiplication of magnitudes (stopping once beyond 2^127). */
static i128 ref_pow(i128 a, i128 b, const ictype *t) {
    if (b < 0) {
        if (a == 0) return t->hi; /* +inf */
        if (a == 1 || a == -1) return (b % 2 != 0) ? a : 1;
        /* |a| >= 2: |a ** b| <= 1/2; round half to even the long double value. */
        long double r = powl((long double)a, (long double)b);
        return (i128)nearbyintl(r);
    }
    int neg = a < 0 && (b % 2 != 0);
    u128 ua = mag_of(a), m = 1;
    const u128 cap = (u128)1 << 127;
    if (ua <= 1) return b == 0 ? 1 : (neg ? -(i128)ua : (i128)ua);
    for (i128 i = 0; i < b; i++) {
        if (m > cap / ua) { m = cap + 1; break; }
        m *= ua;
        if (m > cap) break;
    }
    return clamp_sm(neg, m, t->lo, t->hi);
}

typedef i128 (*ref_fn)(i128, i128, const ictype *);

static const struct { aug_op op; const char *name; ref_fn ref; } IOPS[] = {
    { AUG_OP_FLOORDIV, "floordiv", ref_floordiv },
    { AUG_OP_MOD, "mod", ref_mod },
    { AUG_OP_DIV_RNE, "div_rne", ref_divrne },
    { AUG_OP_POW, "pow", ref_pow },
};

static void fmt_i128(char *buf, i128 v) {
    char tmp[48];
    int n = 0;
    u128 m = mag_of(v);
    do { tmp[n++] = (char)('0' + (int)(m % 10)); m /= 10; } while (m);
    int k = 0;
    if (v < 0) buf[k++] = '-';
    while (n) buf[k++] = tmp[--n];
    buf[k] = 0;
}

static int report_int(const char *op, const ictype *t, i128 a, i128 b, i128 got, i128 want) {
    char sa[48], sb[48], sg[48], sw[48];
    fmt_i128(sa, a); fmt_i128(sb, b); fmt_i128(sg, got); fmt_i128(sw, want);
    print_error("%s %s(%s, %s) = %s, want %s\n", t->name, op, sa, sb, sg, sw);
    return 1;
}

/* Every pair of values, contiguous; then strided, broadcast and in-place layouts. */
static void check_int_op(int oi, const ictype *t) {
    aug__kernel k = aug__cpu_div_kernel(IOPS[oi].op, t->ctype);
    assert_non_null(k);
    i128 vals[64];
    int nv = int_values(t, vals, 24);
    if (IOPS[oi].op == AUG_OP_POW) /* exponents that saturate late: 0..9, 31, 63 */
        for (int e = 0; e < 10; e++) vals[nv++] = e;
    const int n = nv * nv, es = t->size;
    char *a = malloc((size_t)n * es), *b = malloc((size_t)n * es), *o = malloc((size_t)n * es);
    for (int i = 0; i < nv; i++)
        for (int j = 0; j < nv; j++) {
            put_int(t, a + (i * nv + j) * es, vals[i]);
            put_int(t, b + (i * nv + j) * es, vals[j]);
        }
    char *data[3] = { a, b, o };
    int64_t st[3] = { es, es, es };
    k(data, n, st, NULL);
    int bad = 0;
    for (int i = 0; i < n && bad < 10; i++) {
        i128 x = get_int(t, a + i * es), y = get_int(t, b + i * es);
        i128 want = IOPS[oi].ref(x, y, t), got = get_int(t, o + i * es);
        if (got != want) bad += report_int(IOPS[oi].name, t, x, y, got, want);
    }

    /* The values once, contiguous: v[i] = vals[i]. b broadcast (stride 0) against a
     * contiguous a (fast path); a walked backwards, b broadcast, out strided (generic
     * path); a broadcast against a contiguous b. */
    char *v = malloc((size_t)nv * es);
    for (int i = 0; i < nv; i++) put_int(t, v + i * es, vals[i]);
    for (int j = 0; j < nv && bad < 10; j++) {
        char *d1[3] = { v, v + j * es, o };
        int64_t s1[3] = { es, 0, es };
        k(d1, nv, s1, NULL);
        for (int i = 0; i < nv; i++) {
            i128 want = IOPS[oi].ref(vals[i], vals[j], t), got = get_int(t, o + i * es);
            if (got != want) bad += report_int(IOPS[oi].name, t, vals[i], vals[j], got, want);
        }
        char *d2[3] = { v + (nv - 1) * es, v + j * es, o };
        int64_t s2[3] = { -(int64_t)es, 0, 2 * es };
        k(d2, nv, s2, NULL);
        for (int i = 0; i < nv; i++) {
            i128 x = vals[nv - 1 - i], want = IOPS[oi].ref(x, vals[j], t), got = get_int(t, o + i * 2 * es);
            if (got != want) bad += report_int(IOPS[oi].name, t, x, vals[j], got, want);
        }
        char *d3[3] = { v + j * es, v, o };
        int64_t s3[3] = { 0, es, es };
        k(d3, nv, s3, NULL);
        for (int i = 0; i < nv; i++) {
            i128 want = IOPS[oi].ref(vals[j], vals[i], t), got = get_int(t, o + i * es);
            if (got != want) bad += report_int(IOPS[oi].name, t, vals[j], vals[i], got, want);
        }
    }
    free(v);
    /* In place: out is a. */
    {
        char *acopy = malloc((size_t)n * es);
        memcpy(acopy, a, (size_t)n * es);
        char *d4[3] = { a, b, a };
        k(d4, n, st, NULL);
        for (int i = 0; i < n && bad < 10; i++) {
            i128 x = get_int(t, acopy + i * es), y = get_int(t, b + i * es), got = get_int(t, a + i * es);
            i128 want = IOPS[oi].ref(x, y, t);
            if (got != want) bad += report_int(IOPS[oi].name, t, x, y, got, want);
        }
        free(acopy);
    }
    free(a); free(b); free(o);
    assert_int_equal(bad, 0);
}

static void test_int_ops(void **state) {
    (void)state;
    for (int t = 0; t < NUM_ICTYPES; t++)
        for (int oi = 0; oi < 4; oi++) check_int_op(oi, &ICTYPES[t]);
}

/* int8 and uint8: every one of the 65536 pairs, for every op. */
static void test_int8_exhaustive(void **state) {
    (void)state;
    enum { N = 65536 };
    static char a[N], b[N], o[N];
    const int tis[2] = { 0, 4 }; /* int8, uint8 */
    for (int k = 0; k < 2; k++) {
        const ictype *t = &ICTYPES[tis[k]];
        for (int i = 0; i < N; i++) {
            a[i] = (char)(i >> 8);
            b[i] = (char)(i & 255);
        }
        for (int oi = 0; oi < 4; oi++) {
            char *data[3] = { a, b, o };
            const int64_t st[3] = { 1, 1, 1 };
            aug__cpu_div_kernel(IOPS[oi].op, t->ctype)(data, N, st, NULL);
            int bad = 0;
            for (int i = 0; i < N && bad < 10; i++) {
                i128 x = get_int(t, a + i), y = get_int(t, b + i), got = get_int(t, o + i);
                i128 want = IOPS[oi].ref(x, y, t);
                if (got != want) bad += report_int(IOPS[oi].name, t, x, y, got, want);
            }
            assert_int_equal(bad, 0);
        }
    }
}

/* One kernel call on a single pair, for the named cases of semantics.md. */
static i128 int1(aug_op op, int ti, i128 a, i128 b) {
    const ictype *t = &ICTYPES[ti];
    char x[16], y[16], r[16];
    put_int(t, x, a); put_int(t, y, b);
    char *data[3] = { x, y, r };
    int64_t st[3] = { t->size, t->size, t->size };
    aug__cpu_div_kernel(op, t->ctype)(data, 1, st, NULL);
    return get_int(t, r);
}

static void test_int_named_cases(void **state) {
    (void)state;
    enum { I8 = 0, I16, I32, I64, U8, U16, U32, U64, W };
    assert_true(int1(AUG_OP_FLOORDIV, I8, -7, 2) == -4);
    assert_true(int1(AUG_OP_FLOORDIV, I8, 7, -2) == -4);
    assert_true(int1(AUG_OP_FLOORDIV, I8, -128, -1) == 127);
    assert_true(int1(AUG_OP_FLOORDIV, I64, INT64_MIN, -1) == INT64_MAX);
    assert_true(int1(AUG_OP_FLOORDIV, W, I128_MIN_, -1) == I128_MAX_);
    assert_true(int1(AUG_OP_FLOORDIV, I16, 5, 0) == INT16_MAX);
    assert_true(int1(AUG_OP_FLOORDIV, I16, -5, 0) == INT16_MIN);
    assert_true(int1(AUG_OP_FLOORDIV, I16, 0, 0) == 0);
    assert_true(int1(AUG_OP_FLOORDIV, W, 5, 0) == I128_MAX_);
    assert_true(int1(AUG_OP_FLOORDIV, W, -5, 0) == I128_MIN_);
    assert_true(int1(AUG_OP_FLOORDIV, U8, 200, 0) == 255);
    assert_true(int1(AUG_OP_MOD, I8, -7, 2) == 1);
    assert_true(int1(AUG_OP_MOD, I8, 7, -2) == -1);
    assert_true(int1(AUG_OP_MOD, I8, -128, -1) == 0);
    assert_true(int1(AUG_OP_MOD, I32, 9, 0) == 0);
    assert_true(int1(AUG_OP_MOD, U64, 9, 0) == 0);
    assert_true(int1(AUG_OP_DIV_RNE, U8, 200, 3) == 67);
    assert_true(int1(AUG_OP_DIV_RNE, U8, 5, 2) == 2);
    assert_true(int1(AUG_OP_DIV_RNE, U8, 7, 2) == 4);
    assert_true(int1(AUG_OP_DIV_RNE, I8, -5, 2) == -2);
    assert_true(int1(AUG_OP_DIV_RNE, I8, -7, 2) == -4);
    assert_true(int1(AUG_OP_DIV_RNE, I8, -128, -1) == 127);
    assert_true(int1(AUG_OP_DIV_RNE, I8, 3, 0) == 127);
    assert_true(int1(AUG_OP_DIV_RNE, I8, -3, 0) == -128);
    assert_true(int1(AUG_OP_DIV_RNE, I8, 0, 0) == 0);
    assert_true(int1(AUG_OP_DIV_RNE, U32, 0, 0) == 0);
    assert_true(int1(AUG_OP_POW, U8, 16, 2) == 255);
    assert_true(int1(AUG_OP_POW, U8, 3, 5) == 243);
    assert_true(int1(AUG_OP_POW, I8, -2, 7) == -128);
    assert_true(int1(AUG_OP_POW, I8, -2, 8) == 127);
    assert_true(int1(AUG_OP_POW, I8, -3, 5) == -128);
    assert_true(int1(AUG_OP_POW, I8, 1, -1) == 1);
    assert_true(int1(AUG_OP_POW, I8, -1, -1) == -1);
    assert_true(int1(AUG_OP_POW, I8, -1, -2) == 1);
    assert_true(int1(AUG_OP_POW, I8, 2, -1) == 0);
    assert_true(int1(AUG_OP_POW, I8, -2, -1) == 0);
    assert_true(int1(AUG_OP_POW, I8, 0, -1) == 127);
    assert_true(int1(AUG_OP_POW, I8, 0, 0) == 1);
    assert_true(int1(AUG_OP_POW, U64, 0, 0) == 1);
    assert_true(int1(AUG_OP_POW, I64, -2, 63) == INT64_MIN);
    assert_true(int1(AUG_OP_POW, I64, 2, 62) == (i128)1 << 62);
    assert_true(int1(AUG_OP_POW, I64, 3, 39) == (i128)4052555153018976267ll);
    assert_true(int1(AUG_OP_POW, I64, 3, 40) == INT64_MAX);
    assert_true(int1(AUG_OP_POW, I64, -3, 41) == INT64_MIN);
    assert_true(int1(AUG_OP_POW, U64, 2, 64) == (i128)UINT64_MAX);
    assert_true(int1(AUG_OP_POW, U64, 3, 40) == (i128)12157665459056928801ull);
    assert_true(int1(AUG_OP_POW, W, -2, 127) == I128_MIN_);
    assert_true(int1(AUG_OP_POW, W, 2, 127) == I128_MAX_);
    assert_true(int1(AUG_OP_POW, W, -1, I128_MIN_) == 1);
    assert_true(int1(AUG_OP_POW, W, -1, I128_MAX_) == -1);
    assert_true(int1(AUG_OP_POW, W, 10, 38) == (i128)10000000000000000000ull * (i128)10000000000000000000ull);
    assert_true(int1(AUG_OP_POW, W, 0, -5) == I128_MAX_);
    assert_true(int1(AUG_OP_POW, I16, 7, 5) == 16807);
    assert_true(int1(AUG_OP_POW, U16, 7, 6) == 65535);
    /* No TRUEDIV kernel for integer ctypes; no kernels for other ops. */
    assert_null(aug__cpu_div_kernel(AUG_OP_TRUEDIV, AUG_INT32));
    assert_null(aug__cpu_div_kernel(AUG_OP_ADD, AUG_FLOAT32));
    assert_null(aug__cpu_div_kernel(AUG_OP_FLOORDIV, AUG_BOOL));
    assert_null(aug__cpu_div_kernel(AUG_OP_FLOORDIV, AUG_FLOAT16));
}

/* ---- floats ------------------------------------------------------------------ */

/* Bit-identical, or both NaN. */
static int same32(float a, float b) { return isnan(a) ? isnan(b) : memcmp(&a, &b, 4) == 0; }
static int same64(double a, double b) { return isnan(a) ? isnan(b) : memcmp(&a, &b, 8) == 0; }

static float rnd_f32(void) {
    switch (rnd() % 4) {
    case 0: { uint32_t u = (uint32_t)rnd(); float f; memcpy(&f, &u, 4); return f; } /* any bits */
    case 1: return (float)((int)(rnd() % 41) - 20); /* small integers: exact quotients, ties */
    default: return (float)(((double)(rnd() >> 11) / 9007199254740992.0 - 0.5) * 200.0);
    }
}
static double rnd_f64(void) {
    switch (rnd() % 4) {
    case 0: { uint64_t u = rnd(); double d; memcpy(&d, &u, 8); return d; }
    case 1: return (double)((int)(rnd() % 41) - 20);
    default: return ((double)(rnd() >> 11) / 9007199254740992.0 - 0.5) * 200.0;
    }
}

/* NumPy remainder from its definition: exact fmod (fmodl is exact), moved into the
 * divisor's sign by adding b once (in __float128, then rounded to the type), a zero
 * result signed like b. */
static __float128 ref_mod_q(long double a, long double b) {
    if (b == 0 || isinf(a) || isnan(a) || isnan(b)) return NAN;
    long double m = fmodl(a, b);
    if (m == 0) return b < 0 ? -0.0L : 0.0L;
    __float128 q = m;
    if ((m < 0) != (b < 0)) q += (__float128)b; /* exact unless the exponents differ by > 60 */
    return q;
}

/* Floor division from first principles: a = q b + r exactly with r = fmod(a, b)
 * (exact), so the exact quotient's floor is (a - r) / b, less 1 when r is non-zero
 * and its sign differs from b's; computed in __float128 and rounded once. Zero
 * takes the sign of a / b, x // 0 is a / b, NaN from fmod (inf // x) stays NaN.
 * NumPy's (a - r) / b rounds twice (relative error ~2^-p), which its snap to
 * the nearest integer corrects only while |q| < 2^(p-1): from 2^(p-2) on *loose
 * is set, and the result may differ by one unit there. */
static double ref_floordiv_q(double a, double b, int p, int *loose) {
    *loose = 0;
    if (b == 0) return a / b;
    double r = fmod(a, b);
    if (isnan(r)) return NAN;
    __float128 q = ((__float128)a - (__float128)r) / (__float128)b;
    if (r != 0 && ((r < 0) != (b < 0))) q -= 1;
    double d = (double)q;
    if (d == 0) return copysign(0.0, a / b);
    double fl = floor(d);
    if (fabs(fl) >= ldexp(1.0, p - 2)) *loose = 1;
    return fl;
}

#define NF 4000
#define FAIL(...) do { print_error(__VA_ARGS__); bad++; } while (0)

static void run_f32(aug_op op, const float *a, const float *b, float *o, int n) {
    char *data[3] = { (char *)a, (char *)b, (char *)o };
    int64_t st[3] = { 4, 4, 4 };
    aug__cpu_div_kernel(op, AUG_FLOAT32)(data, n, st, NULL);
}
static void run_f64(aug_op op, const double *a, const double *b, double *o, int n) {
    char *data[3] = { (char *)a, (char *)b, (char *)o };
    int64_t st[3] = { 8, 8, 8 };
    aug__cpu_div_kernel(op, AUG_FLOAT64)(data, n, st, NULL);
}

static void test_float32_ops(void **state) {
    (void)state;
    static float a[NF], b[NF], o[NF];
    for (int i = 0; i < NF; i++) { a[i] = rnd_f32(); b[i] = rnd_f32(); }
    int bad = 0;
    /* TRUEDIV and DIV_RNE: IEEE quotient. float / float in long double (64-bit
     * significand >= 2*24+2) rounded to float is the correctly rounded quotient. */
    const aug_op divs[2] = { AUG_OP_TRUEDIV, AUG_OP_DIV_RNE };
    for (int d = 0; d < 2; d++) {
        run_f32(divs[d], a, b, o, NF);
        for (int i = 0; i < NF && bad < 10; i++) {
            float want = (float)((long double)a[i] / b[i]);
            if (!same32(o[i], want)) FAIL("f32 div %g/%g = %g want %g\n", a[i], b[i], o[i], want);
        }
    }
    run_f32(AUG_OP_FLOORDIV, a, b, o, NF);
    for (int i = 0; i < NF && bad < 10; i++) {
        int loose;
        float want = (float)ref_floordiv_q(a[i], b[i], 24, &loose);
        if (!same32(o[i], want) && !(loose && (fabsf(o[i] - want) <= 1.0f || th_ulp32(o[i], want) <= 1)))
            FAIL("f32 // %g %g = %g want %g\n", a[i], b[i], o[i], want);
    }
    run_f32(AUG_OP_MOD, a, b, o, NF);
    for (int i = 0; i < NF && bad < 10; i++) {
        float want = (float)ref_mod_q(a[i], b[i]);
        if (!same32(o[i], want)) FAIL("f32 %% %g %g = %g want %g\n", a[i], b[i], o[i], want);
    }
    /* pow: within 2 ulp of the long double value rounded (semantics §8). */
    for (int i = 0; i < NF; i++) { a[i] = fabsf(a[i]); b[i] = (float)((int)(rnd() % 200) - 100) / 8.0f; }
    run_f32(AUG_OP_POW, a, b, o, NF);
    for (int i = 0; i < NF && bad < 10; i++) {
        float want = (float)powl(a[i], b[i]);
        if (th_ulp32(o[i], want) > 2) FAIL("f32 pow %g %g = %g want %g\n", a[i], b[i], o[i], want);
    }
    assert_int_equal(bad, 0);
}

static void test_float64_ops(void **state) {
    (void)state;
    static double a[NF], b[NF], o[NF];
    for (int i = 0; i < NF; i++) { a[i] = rnd_f64(); b[i] = rnd_f64(); }
    int bad = 0;
    /* __float128 (113-bit significand >= 2*53+2): double rounding is innocuous. */
    const aug_op divs[2] = { AUG_OP_TRUEDIV, AUG_OP_DIV_RNE };
    for (int d = 0; d < 2; d++) {
        run_f64(divs[d], a, b, o, NF);
        for (int i = 0; i < NF && bad < 10; i++) {
            double want = (double)((__float128)a[i] / (__float128)b[i]);
            if (!same64(o[i], want)) FAIL("f64 div %g/%g = %g want %g\n", a[i], b[i], o[i], want);
        }
    }
    run_f64(AUG_OP_FLOORDIV, a, b, o, NF);
    for (int i = 0; i < NF && bad < 10; i++) {
        int loose;
        double want = ref_floordiv_q(a[i], b[i], 53, &loose);
        if (!same64(o[i], want) && !(loose && (fabs(o[i] - want) <= 1.0 || th_ulp64(o[i], want) <= 1)))
            FAIL("f64 // %g %g = %g want %g\n", a[i], b[i], o[i], want);
    }
    run_f64(AUG_OP_MOD, a, b, o, NF);
    for (int i = 0; i < NF && bad < 10; i++) {
        double want = (double)ref_mod_q(a[i], b[i]);
        if (!same64(o[i], want)) FAIL("f64 %% %g %g = %g want %g\n", a[i], b[i], o[i], want);
    }
    for (int i = 0; i < NF; i++) { a[i] = fabs(a[i]); b[i] = (double)((int)(rnd() % 200) - 100) / 8.0; }
    run_f64(AUG_OP_POW, a, b, o, NF);
    for (int i = 0; i < NF && bad < 10; i++) {
        double want = (double)powl(a[i], b[i]);
        if (th_ulp64(o[i], want) > 4) FAIL("f64 pow %g %g = %g want %g\n", a[i], b[i], o[i], want);
    }
    assert_int_equal(bad, 0);
}

static float f32op(aug_op op, float a, float b) {
    float r;
    run_f32(op, &a, &b, &r, 1);
    return r;
}
static double f64op(aug_op op, double a, double b) {
    double r;
    run_f64(op, &a, &b, &r, 1);
    return r;
}

static void test_float_specials(void **state) {
    (void)state;
    const float inf = INFINITY;
    assert_true(f32op(AUG_OP_TRUEDIV, 1, 0) == inf);
    assert_true(f32op(AUG_OP_TRUEDIV, -1, 0) == -inf);
    assert_true(isnan(f32op(AUG_OP_TRUEDIV, 0, 0)));
    assert_true(f32op(AUG_OP_FLOORDIV, 1, 0) == inf);
    assert_true(f32op(AUG_OP_FLOORDIV, -1, 0) == -inf);
    assert_true(isnan(f32op(AUG_OP_FLOORDIV, 0, 0)));
    assert_true(f32op(AUG_OP_FLOORDIV, -7, 2) == -4);
    assert_true(f32op(AUG_OP_FLOORDIV, 7.5f, -2) == -4);
    assert_true(isnan(f32op(AUG_OP_FLOORDIV, NAN, 2)));
    assert_true(f32op(AUG_OP_MOD, -7, 2) == 1);
    assert_true(f32op(AUG_OP_MOD, 7, -2) == -1);
    assert_true(f32op(AUG_OP_MOD, 5.5f, 2) == 1.5f);
    assert_true(isnan(f32op(AUG_OP_MOD, 5, 0)));
    assert_true(isnan(f32op(AUG_OP_MOD, inf, 3)));
    assert_true(isnan(f32op(AUG_OP_MOD, NAN, 3)));
    assert_true(isnan(f32op(AUG_OP_MOD, 3, NAN)));
    assert_true(f32op(AUG_OP_MOD, 5, inf) == 5);
    assert_true(f32op(AUG_OP_MOD, -5, inf) == inf);
    float z = f32op(AUG_OP_MOD, 4, -2);
    assert_true(z == 0 && signbit(z));
    z = f32op(AUG_OP_MOD, -4, 2);
    assert_true(z == 0 && !signbit(z));
    assert_true(f32op(AUG_OP_DIV_RNE, 5, 2) == 2.5f);
    assert_true(f32op(AUG_OP_POW, 0, -1) == inf);
    assert_true(f32op(AUG_OP_POW, 2, 10) == 1024);
    assert_true(f32op(AUG_OP_POW, NAN, 0) == 1);
    assert_true(isnan(f32op(AUG_OP_POW, -8, 1.0f / 3)));

    assert_true(f64op(AUG_OP_TRUEDIV, 1, 0) == INFINITY);
    assert_true(isnan(f64op(AUG_OP_TRUEDIV, 0, 0)));
    assert_true(f64op(AUG_OP_FLOORDIV, -1, 0) == -INFINITY);
    assert_true(f64op(AUG_OP_FLOORDIV, -7, 2) == -4);
    assert_true(f64op(AUG_OP_MOD, -7, 2) == 1);
    assert_true(f64op(AUG_OP_MOD, 7, -2) == -1);
    assert_true(isnan(f64op(AUG_OP_MOD, 1, 0)));
    assert_true(isnan(f64op(AUG_OP_MOD, -INFINITY, 3)));
    assert_true(f64op(AUG_OP_MOD, -5, INFINITY) == INFINITY);
    double zd = f64op(AUG_OP_MOD, 0, -3);
    assert_true(zd == 0 && signbit(zd));
    assert_true(f64op(AUG_OP_MOD, -1e-300, 1e300) == 1e300);
    assert_true(f64op(AUG_OP_POW, -2, 3) == -8);
    assert_true(f64op(AUG_OP_POW, 0, -1) == INFINITY);
    assert_true(isnan(f64op(AUG_OP_POW, -8, 1.0 / 3)));
}

/* Float kernels through the strided and broadcast paths agree with contiguous. */
static void test_float_layouts(void **state) {
    (void)state;
    const aug_op ops[5] = { AUG_OP_TRUEDIV, AUG_OP_FLOORDIV, AUG_OP_MOD, AUG_OP_DIV_RNE, AUG_OP_POW };
    enum { N = 64 };
    double a[N], b[N], o[N], os[3 * N], ref[N];
    float af[N], bf[N], of[2 * N], reff[N];
    for (int i = 0; i < N; i++) {
        a[i] = rnd_f64(); b[i] = (double)(i % 7) - 3.5;
        af[i] = (float)a[i]; bf[i] = (float)b[i];
    }
    for (int k = 0; k < 5; k++) {
        for (int i = 0; i < N; i++) ref[i] = f64op(ops[k], a[i], b[3]);
        char *d[3] = { (char *)(a + N - 1), (char *)(b + 3), (char *)os };
        int64_t st[3] = { -8, 0, 24 };
        aug__cpu_div_kernel(ops[k], AUG_FLOAT64)(d, N, st, NULL);
        for (int i = 0; i < N; i++) assert_true(same64(os[3 * i], ref[N - 1 - i]));
        char *d2[3] = { (char *)a, (char *)(b + 3), (char *)o };
        int64_t st2[3] = { 8, 0, 8 };
        aug__cpu_div_kernel(ops[k], AUG_FLOAT64)(d2, N, st2, NULL);
        for (int i = 0; i < N; i++) assert_true(same64(o[i], ref[i]));

        for (int i = 0; i < N; i++) reff[i] = f32op(ops[k], af[5], bf[i]);
        char *d3[3] = { (char *)(af + 5), (char *)bf, (char *)of };
        int64_t st3[3] = { 0, 4, 8 };
        aug__cpu_div_kernel(ops[k], AUG_FLOAT32)(d3, N, st3, NULL);
        for (int i = 0; i < N; i++) assert_true(same32(of[2 * i], reff[i]));
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int_ops),
        cmocka_unit_test(test_int8_exhaustive),
        cmocka_unit_test(test_int_named_cases),
        cmocka_unit_test(test_float32_ops),
        cmocka_unit_test(test_float64_ops),
        cmocka_unit_test(test_float_specials),
        cmocka_unit_test(test_float_layouts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
