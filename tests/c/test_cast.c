/* tests/c/test_cast.c: aug__convert and the cast API (semantics §2) against an
 * independent reference.
 *
 * The reference works on exact values: long double (64-bit significand, so every
 * int64/uint64, float16, bfloat16, float32 and float64 value is exact) and
 * __int128. It rounds with nearbyintl (round half to even) on scaled values and
 * with plain integer arithmetic, and decodes/encodes the 16-bit formats from their
 * field definitions; it never calls aug to compute an expected value. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/ctype.h"
#include "cpu/convert.h"
#include "cpu/simd.h"

typedef __int128 i128;
typedef unsigned __int128 u128;
#define NCT AUG__NUM_CTYPES
#define I128_HI ((i128)(((u128)1 << 127) - 1))
#define I128_LO (-I128_HI - 1)

/* ---- the reference ---------------------------------------------------------- */

enum { K_BOOL, K_SINT, K_UINT, K_FLOAT };
typedef struct {
    int size, kind;
    i128 lo, hi;          /* integer range */
    int p, emin;          /* float: significand bits, smallest normal exponent */
    long double maxf;     /* float: largest finite */
} ct_info;

static ct_info info[NCT];

static void init_info(void) {
    static int done;
    if (done) return;
    done = 1;
    const struct { int size, kind, bits; } t[NCT] = {
        {1, K_BOOL, 1},  {1, K_SINT, 8},   {2, K_SINT, 16},  {4, K_SINT, 32},  {8, K_SINT, 64},
        {1, K_UINT, 8},  {2, K_UINT, 16},  {4, K_UINT, 32},  {8, K_UINT, 64},  {2, K_FLOAT, 0},
        {2, K_FLOAT, 0}, {4, K_FLOAT, 0},  {8, K_FLOAT, 0},  {16, K_SINT, 128}};
    for (int c = 0; c < NCT; c++) {
        info[c].size = t[c].size;
        info[c].kind = t[c].kind;
        if (t[c].kind == K_SINT) {
            info[c].hi = t[c].bits == 128 ? I128_HI : ((i128)1 << (t[c].bits - 1)) - 1;
            info[c].lo = -info[c].hi - 1;
        } else if (t[c].kind == K_UINT) {
            info[c].hi = ((i128)1 << t[c].bits) - 1;
        } else if (t[c].kind == K_BOOL) {
            info[c].hi = 1;
        }
    }
    info[AUG_FLOAT16].p = 11, info[AUG_FLOAT16].emin = -14, info[AUG_FLOAT16].maxf = 65504.0L;
    info[AUG_BFLOAT16].p = 8, info[AUG_BFLOAT16].emin = -126;
    info[AUG_BFLOAT16].maxf = ldexpl(255, 120);
    info[AUG_FLOAT32].p = 24, info[AUG_FLOAT32].emin = -126;
    info[AUG_FLOAT32].maxf = ldexpl((1 << 24) - 1, 104);
    info[AUG_FLOAT64].p = 53, info[AUG_FLOAT64].emin = -1022;
    info[AUG_FLOAT64].maxf = ldexpl((long double)((1ull << 53) - 1), 971);
}

/* An exact value: an integer (is_int) or a long double (finite, inf or NaN). */
typedef struct { int is_int; i128 q; long double x; } xval;

static xval xi(i128 q) { xval v = {1, q, 0}; return v; }
static xval xf(long double x) { xval v = {0, 0, x}; return v; }

/* 16-bit formats from their fields. */
static long double dec16(uint16_t h, int bf) {
    int mb = bf ? 7 : 10, eb = bf ? 8 : 5, bias = (1 << (eb - 1)) - 1;
    int e = (h >> mb) & ((1 << eb) - 1), m = h & ((1 << mb) - 1);
    long double v;
    if (e == (1 << eb) - 1) v = m ? NAN : INFINITY;
    else if (e == 0) v = ldexpl(m, 1 - bias - mb);
    else v = ldexpl(m + (1 << mb), e - bias - mb);
    return (h & 0x8000) ? -v : v;
}

/* Bits of an exactly representable value (positive finite bit patterns are ordered
 * like their values: binary search). */
static uint16_t enc16(long double v, int bf) {
    if (isnan(v)) return bf ? 0x7fc0 : 0x7e00;
    uint16_t sign = signbit(v) ? 0x8000 : 0;
    long double a = fabsl(v);
    unsigned lo = 0, hi = bf ? 0x7f80 : 0x7c00; /* inf */
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        if (dec16((uint16_t)mid, bf) < a) lo = mid + 1;
        else hi = mid;
    }
    assert_true(dec16((uint16_t)lo, bf) == a);
    return (uint16_t)(sign | lo);
}

/* Round to a float format: p significant bits, exponent floor emin, half to even
 * once; finite values beyond maxf saturate. */
static long double ref_round(xval v, int ct) {
    const ct_info *f = &info[ct];
    if (v.is_int) {
        if (v.q == 0) return 0.0L;
        u128 m = v.q < 0 ? -(u128)v.q : (u128)v.q;
        int len = 0;
        while (len < 128 && (m >> len) != 0) len++;
        long double r;
        if (len <= f->p) {
            r = (long double)(uint64_t)m;
        } else {
            int sh = len - f->p;
            u128 k = m >> sh, rem = m & (((u128)1 << sh) - 1), half = (u128)1 << (sh - 1);
            if (rem > half || (rem == half && (k & 1))) k++;
            r = ldexpl((long double)(uint64_t)k, sh);
        }
        if (r > f->maxf) r = f->maxf;
        return v.q < 0 ? -r : r;
    }
    long double x = v.x;
    if (isnan(x) || isinf(x) || x == 0) return x;
    long double a = fabsl(x);
    int ex;
    frexpl(a, &ex);
    int e = ex - 1 < f->emin ? f->emin : ex - 1;
    long double r = ldexpl(nearbyintl(ldexpl(a, f->p - 1 - e)), e - (f->p - 1));
    if (r > f->maxf) r = f->maxf;
    return copysignl(r, x);
}

static i128 ref_int(xval v, int ct) {
    i128 lo = info[ct].lo, hi = info[ct].hi, q;
    if (v.is_int) {
        q = v.q;
    } else {
        long double x = v.x;
        if (isnan(x)) return 0;
        long double r = nearbyintl(x);
        if (r >= 0x1p127L) return hi;
        if (r < -0x1p127L) return lo;
        q = (i128)r;
    }
    return q < lo ? lo : (q > hi ? hi : q);
}

/* Expected element bytes of ct for value v; *is_nan set for a NaN float result. */
static void ref_store(xval v, int ct, unsigned char *out, int *is_nan) {
    *is_nan = 0;
    memset(out, 0, 16);
    if (info[ct].kind == K_BOOL) {
        out[0] = v.is_int ? v.q != 0 : v.x != 0 || isnan(v.x);
        return;
    }
    if (info[ct].kind != K_FLOAT) {
        i128 q = ref_int(v, ct);
        for (int i = 0; i < info[ct].size; i++) out[i] = (unsigned char)(q >> (8 * i)); /* little endian */
        return;
    }
    long double r = ref_round(v, ct);
    *is_nan = isnan(r);
    if (ct == AUG_FLOAT16 || ct == AUG_BFLOAT16) {
        uint16_t h = enc16(r, ct == AUG_BFLOAT16);
        memcpy(out, &h, 2);
    } else if (ct == AUG_FLOAT32) {
        float f = (float)r; /* exact */
        memcpy(out, &f, 4);
    } else {
        double d = (double)r;
        memcpy(out, &d, 8);
    }
}

/* The exact value an element of ct holds. */
static xval ref_load(const unsigned char *p, int ct) {
    if (info[ct].kind == K_FLOAT) {
        uint16_t h;
        float f;
        double d;
        switch (ct) {
        case AUG_FLOAT16: memcpy(&h, p, 2); return xf(dec16(h, 0));
        case AUG_BFLOAT16: memcpy(&h, p, 2); return xf(dec16(h, 1));
        case AUG_FLOAT32: memcpy(&f, p, 4); return xf(f);
        default: memcpy(&d, p, 8); return xf(d);
        }
    }
    if (info[ct].kind == K_BOOL) return xi(p[0] != 0);
    u128 u = 0;
    for (int i = info[ct].size - 1; i >= 0; i--) u = (u << 8) | p[i];
    int bits = 8 * info[ct].size;
    i128 q = (i128)u;
    if (info[ct].kind == K_SINT && bits < 128 && (u >> (bits - 1)) & 1) q = (i128)(u - ((u128)1 << bits));
    return xi(q);
}

static int xcmp(xval a, xval b) { /* both finite or inf, not NaN */
    if (a.is_int && b.is_int) return a.q < b.q ? -1 : a.q > b.q;
    long double x = a.is_int ? (long double)a.q : a.x, y = b.is_int ? (long double)b.q : b.x;
    return x < y ? -1 : x > y;
}

/* ---- source elements -------------------------------------------------------- */

static uint64_t rng_state;
static uint64_t rnd(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#define MAXE 16384
typedef struct { unsigned char b[16]; } elem;

static int ncand;
static xval cand[14000];

static void add_cand(xval v) {
    assert_true(ncand < (int)(sizeof cand / sizeof cand[0]));
    cand[ncand++] = v;
}

static void init_cands(void) {
    if (ncand) return;
    for (int k = 0; k < 127; k++) {
        i128 p = (i128)1 << k;
        for (int d = -1; d <= 1; d++) { add_cand(xi(p + d)); add_cand(xi(-p + d)); }
    }
    add_cand(xi(I128_HI));
    add_cand(xi(I128_HI - 1));
    add_cand(xi(I128_LO));
    add_cand(xi(I128_LO + 1));
    /* ties and near-ties for every precision: k * 2^s + 2^(s-1) + {-1, 0, 1} */
    /* odd and even k of 8, 11, 24 and 53 significant bits (bfloat16, float16, float32,
     * float64), so ties go both ways and a lost sticky bit shows */
    static const int64_t ks[] = {1, 2, 3, 5, 6, 126, 127, 129, 130, 254, 255, 257, 2046, 2047, 2049,
                                 0xfffffe, 0xffffff, 0x1000001, ((int64_t)1 << 52) + 2,
                                 ((int64_t)1 << 53) - 1, ((int64_t)1 << 53) - 2};
    for (int s = 1; s < 100; s++)
        for (size_t j = 0; j < sizeof ks / sizeof ks[0]; j++) {
            if (ks[j] >= ((int64_t)1 << 52) && s > 70) continue; /* stay below 2^127 */
            i128 v = ((i128)ks[j] << s) + ((i128)1 << (s - 1));
            for (int d = -1; d <= 1; d++) { add_cand(xi(v + d)); add_cand(xi(-v - d)); }
        }
    static const long double fs[] = {
        0.0L, 0.5L, 1.5L, 2.5L, 0.49999997L, 0.5000001L, 127.5L, 128.5L, 254.5L, 255.5L, 255.49L, 256.5L,
        32767.5L, 32768.5L, 65535.5L, 65504.0L, 65519.0L, 65519.99L, 65520.0L, 65536.0L, 16777217.0L,
        2147483647.5L, 2147483648.0L, 4294967295.5L, 0x1p53L + 1, 0x1p63L, 0x1p64L, 0x1p64L - 2048,
        0x1p127L, 0x1.fep127L, 0x1.ffp127L, 3.4028235e38L, 1e30L, 1e300L, 0x1p-14L, 0x1p-15L, 0x1p-24L,
        0x1p-25L, 0x3p-26L, 0x1p-26L, 0x1.8p-25L, 0x1p-126L, 0x1p-133L, 0x1p-134L, 0x1.8p-134L, 0x1p-149L,
        0x1p-150L, 0x1p-1074L, 0x1p-1022L, 1e-40L, 0.1L, 1.0L / 3, INFINITY, NAN};
    for (size_t j = 0; j < sizeof fs / sizeof fs[0]; j++) {
        add_cand(xf(fs[j]));
        add_cand(xf(-fs[j]));
    }
    add_cand(xf(DBL_MAX));
    add_cand(xf(-DBL_MAX));
    add_cand(xf(FLT_MAX));
    add_cand(xf(-FLT_MAX));
}

/* Exactly representable candidates of ct, then random bit patterns. */
static int make_elems(int ct, elem *out, xval *vals) {
    init_info();
    init_cands();
    int n = 0, nan_dummy;
    for (int j = 0; j < ncand && n < MAXE; j++) {
        xval v = cand[j];
        if (info[ct].kind == K_FLOAT) {
            if (v.is_int) {
                if (v.q > ((i128)1 << 100) || v.q < -((i128)1 << 100)) continue;
                long double x = (long double)v.q;
                if ((i128)x != v.q) continue;
                v = xf(x);
            }
            long double r = ref_round(v, ct);
            if (!(r == v.x || (isnan(r) && isnan(v.x))) || (v.x == 0 && !signbit(r) != !signbit(v.x))) continue;
        } else {
            if (!v.is_int || v.q < info[ct].lo || v.q > info[ct].hi) continue;
        }
        ref_store(v, ct, out[n].b, &nan_dummy);
        n++;
    }
    rng_state = 0x1234 + (uint64_t)ct;
    for (int j = 0; j < 2500 && n < MAXE; j++, n++) {
        uint64_t r0 = rnd(), r1 = rnd();
        memcpy(out[n].b, &r0, 8);
        memcpy(out[n].b + 8, &r1, 8);
        if (info[ct].kind == K_BOOL) out[n].b[0] &= 1;
        if (ct == AUG__I128 && (j & 1)) { /* also moderate magnitudes */
            int s = (int)(r1 % 120);
            i128 q = (i128)(r0 >> (r1 & 63)) << (s / 2);
            memcpy(out[n].b, &q, 16);
        }
    }
    for (int j = 0; j < n; j++) vals[j] = ref_load(out[j].b, ct);
    return n;
}

/* ---- helpers --------------------------------------------------------------- */

static elem src_e[MAXE], exp_e[MAXE];
static xval src_v[MAXE];
static int exp_nan[MAXE];
static unsigned char buf_a[MAXE * 16 * 3], buf_b[MAXE * 16 * 3];

static void check_elem(const unsigned char *got, int ct, int j, int s, int d, const char *what) {
    int ok;
    if (exp_nan[j]) ok = info[ct].kind == K_FLOAT && isnan(ref_load(got, ct).x);
    else ok = memcmp(got, exp_e[j].b, (size_t)info[ct].size) == 0;
    if (!ok) {
        xval v = src_v[j], g = ref_load(got, ct), e = ref_load(exp_e[j].b, ct);
        print_error("%s %s -> %s: element %d (value %.21Lg / int %lld) gave %.21Lg (int %lld), expected %.21Lg "
                    "(int %lld)\n",
                    what, aug__ctype_name(s), aug__ctype_name(d), j, v.is_int ? (long double)v.q : v.x,
                    (long long)v.q, g.is_int ? (long double)g.q : g.x, (long long)g.q,
                    e.is_int ? (long double)e.q : e.x, (long long)e.q);
        fail();
    }
}

/* ---- tests ----------------------------------------------------------------- */

/* Every ordered pair of the 14 ctypes: contiguous, strided with gaps, reversed. */
static void test_all_pairs(void **state) {
    (void)state;
    assert_int_equal(fegetround(), FE_TONEAREST);
    for (int s = 0; s < NCT; s++) {
        int n = make_elems(s, src_e, src_v);
        int ss = info[s].size;
        for (int d = 0; d < NCT; d++) {
            int ds = info[d].size;
            for (int j = 0; j < n; j++) ref_store(src_v[j], d, exp_e[j].b, &exp_nan[j]);
            /* same-dtype conversion is a copy: NaN payloads kept bit for bit */
            if (s == d)
                for (int j = 0; j < n; j++) exp_nan[j] = 0, memcpy(exp_e[j].b, src_e[j].b, 16);
            for (int j = 0; j < n; j++) memcpy(buf_a + j * ss, src_e[j].b, (size_t)ss);
            memset(buf_b, 0xa5, sizeof buf_b);
            if (s < AUG_NUM_DTYPES && d < AUG_NUM_DTYPES)
                assert_int_equal(aug_cast_run(buf_a, ss, (aug_dtype)s, buf_b, ds, (aug_dtype)d, n), AUG_OK);
            else
                aug__convert((char *)buf_a, ss, s, (char *)buf_b, ds, d, n);
            for (int j = 0; j < n; j++) check_elem(buf_b + j * ds, d, j, s, d, "contiguous");
            /* strided: source every 3rd slot, destination every 2nd */
            for (int j = 0; j < n; j++) memcpy(buf_a + 3 * j * ss, src_e[j].b, (size_t)ss);
            memset(buf_b, 0xa5, sizeof buf_b);
            aug__convert((char *)buf_a, 3 * ss, s, (char *)buf_b, 2 * ds, d, n);
            for (int j = 0; j < n; j++) {
                check_elem(buf_b + 2 * j * ds, d, j, s, d, "strided");
                assert_int_equal(buf_b[(2 * j + 1) * ds], 0xa5); /* gaps untouched */
            }
            /* reversed: negative source stride */
            for (int j = 0; j < n; j++) memcpy(buf_a + j * ss, src_e[j].b, (size_t)ss);
            aug__convert((char *)buf_a + (n - 1) * ss, -ss, s, (char *)buf_b, ds, d, n);
            for (int j = 0; j < n; j++) check_elem(buf_b + (n - 1 - j) * ds, d, j, s, d, "reversed");
            /* the element helpers agree with the run */
            if (s == AUG__I128 || s == AUG_FLOAT64) {
                for (int j = 0; j < n; j++) {
                    unsigned char out[16];
                    if (s == AUG__I128) {
                        i128 q;
                        memcpy(&q, src_e[j].b, 16);
                        aug__store_i128(q, d, out);
                    } else {
                        double x;
                        memcpy(&x, src_e[j].b, 8);
                        aug__store_f64(x, d, out);
                    }
                    if (s != d) check_elem(out, d, j, s, d, "store helper");
                }
            }
        }
    }
}

static int xval_sort(const void *a, const void *b) { return xcmp(*(const xval *)a, *(const xval *)b); }

/* a <= b implies cast(a) <= cast(b) over sorted sweeps of every source type. */
static void test_monotone(void **state) {
    (void)state;
    static xval sorted[70000];
    static elem ein[70000];
    for (int s = 0; s < NCT; s++) {
        int n = 0;
        if (s == AUG_FLOAT16 || s == AUG_BFLOAT16) {
            for (unsigned h = 0; h < 65536; h++) {
                uint16_t b = (uint16_t)h;
                if (!isnan(dec16(b, s == AUG_BFLOAT16))) sorted[n++] = xf(dec16(b, s == AUG_BFLOAT16));
            }
        } else {
            int m = make_elems(s, src_e, src_v);
            for (int j = 0; j < m; j++)
                if (src_v[j].is_int || !isnan(src_v[j].x)) sorted[n++] = src_v[j];
        }
        qsort(sorted, (size_t)n, sizeof sorted[0], xval_sort);
        int dummy;
        for (int j = 0; j < n; j++) ref_store(sorted[j], s, ein[j].b, &dummy);
        for (int d = 0; d < NCT; d++) {
            /* x != 0 is not monotone over negative values: bool is exempt (semantics §2's bool rule) */
            if (d == AUG_BOOL) continue;
            int ss = info[s].size, ds = info[d].size;
            static unsigned char in[70000 * 16], out[70000 * 16];
            for (int j = 0; j < n; j++) memcpy(in + j * ss, ein[j].b, (size_t)ss);
            aug__convert((char *)in, ss, s, (char *)out, ds, d, n);
            for (int j = 1; j < n; j++) {
                xval a = ref_load(out + (j - 1) * ds, d), b = ref_load(out + j * ds, d);
                assert_false(!a.is_int && isnan(a.x));
                if (xcmp(a, b) > 0) {
                    print_error("%s -> %s not monotone at %d\n", aug__ctype_name(s), aug__ctype_name(d), j);
                    fail();
                }
            }
        }
    }
}

/* Decode -> encode gives back every non-NaN pattern; decoding matches the fields. */
static void test_f16_bf16_roundtrip(void **state) {
    (void)state;
    init_info();
    for (int bf = 0; bf < 2; bf++) {
        for (unsigned h = 0; h < 65536; h++) {
            uint16_t b = (uint16_t)h, back;
            long double ref = dec16(b, bf);
            double d = bf ? aug_bf16_to_f64(b) : aug_f16_to_f64(b);
            float f;
            aug__convert((char *)&b, 2, bf ? AUG_BFLOAT16 : AUG_FLOAT16, (char *)&f, 4, AUG_FLOAT32, 1);
            if (isnan(ref)) {
                assert_true(isnan(d) && isnan(f));
                assert_true(isnan(bf ? aug_bf16_to_f64(aug_f64_to_bf16(d)) : aug_f16_to_f64(aug_f64_to_f16(d))));
                continue;
            }
            assert_true((long double)d == ref && !signbit(d) == !signbit(ref));
            assert_true((long double)f == ref);
            back = bf ? aug_f64_to_bf16(d) : aug_f64_to_f16(d);
            assert_int_equal(back, b);
            aug__convert((char *)&f, 4, AUG_FLOAT32, (char *)&back, 2, bf ? AUG_BFLOAT16 : AUG_FLOAT16, 1);
            assert_int_equal(back, b);
        }
    }
}

/* float32 and float64 -> float16/bfloat16 over a dense sweep of float32 bit patterns
 * and of float64 values between neighbouring 16-bit values. */
static void test_narrow_sweep(void **state) {
    (void)state;
    init_info();
    static const int cts[2] = {AUG_FLOAT16, AUG_BFLOAT16};
    for (uint64_t w = 0; w < (1ull << 32); w += 16381) {
        uint32_t u = (uint32_t)w;
        float f;
        memcpy(&f, &u, 4);
        for (int k = 0; k < 2; k++) {
            unsigned char e[16];
            int nan;
            uint16_t got;
            ref_store(xf(f), cts[k], e, &nan);
            aug__convert((char *)&f, 4, AUG_FLOAT32, (char *)&got, 2, cts[k], 1);
            if (nan) assert_true(isnan(dec16(got, k)));
            else assert_memory_equal(&got, e, 2);
            double d = (double)f + (double)f * 0x1p-30; /* not a float32: tests the direct float64 path */
            ref_store(xf(d), cts[k], e, &nan);
            got = k ? aug_f64_to_bf16(d) : aug_f64_to_f16(d);
            if (nan) assert_true(isnan(dec16(got, k)));
            else assert_memory_equal(&got, e, 2);
        }
    }
}

/* The float32/float64 -> int paths for contiguous runs at every SIMD level this CPU
 * runs (portable, SSE2, AVX2), and aug__convert's own choice, against the portable
 * strided loop: every run length up to 100 (all splits of the 32-, 16-, 8- and
 * 4-element vector loops and the scalar tail), longer runs, misaligned destinations
 * and in place. The specials are rounding ties and the edges of each range. */
static void test_simd_matches_portable(void **state) {
    (void)state;
    enum { N = 4200 };
    static double src64[N], spread64[N * 2];
    static float src32[N], spread32[N * 2];
    static unsigned char a[N * 4 + 16], b[N * 4];
    static const double specials[] = {
        0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5, 0.49999997, -0.49999997, 126.5, 127.5, 128.0, -127.5, -128.5,
        -129.0, 253.5, 254.5, 255.5, 256.0, -1.0, 32767.5, -32768.5, 65534.5, 65535.5, 65536.0, 8388607.5,
        2147483520.0, 2147483647.5, 2147483648.0, -2147483648.0, -2147483648.5, -2147483904.0, 0x1p40,
        FLT_MAX, -FLT_MAX, 1e300, -1e300, INFINITY, -INFINITY, NAN, -NAN, 0x1p-1074, -0.0, 0.0};
    rng_state = 99;
    for (int i = 0; i < N; i++) {
        uint64_t r = rnd();
        if (i % 3 == 0) src64[i] = specials[r % (sizeof specials / sizeof specials[0])];
        else if (i % 3 == 1) src64[i] = (double)((int64_t)(r % 200000) - 100000) * 0.5;
        else memcpy(&src64[i], &r, 8);
        src32[i] = i % 3 == 2 ? (float)(int32_t)r * 0x1p-15f : (float)src64[i];
        if (i % 3 == 2 && (r & 0x100)) memcpy(&src32[i], &r, 4); /* any bits, NaNs included */
        spread64[2 * i] = src64[i];
        spread32[2 * i] = src32[i];
    }
    static const int dts[] = {AUG_UINT8, AUG_INT8, AUG_UINT16, AUG_INT16, AUG_INT32};
    const int top = aug__simd_cpu_level();
    for (int f64 = 0; f64 < 2; f64++) {
        const char *s = f64 ? (const char *)src64 : (const char *)src32;
        const char *sp = f64 ? (const char *)spread64 : (const char *)spread32;
        int st = f64 ? AUG_FLOAT64 : AUG_FLOAT32, ss = f64 ? 8 : 4;
        for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
            int ds = aug__ctype_size(dts[k]);
            for (int n = 1; n < N; n = n < 100 ? n + 1 : n * 3) {
                aug__convert(sp, 2 * ss, st, (char *)b, ds, dts[k], n); /* portable: strided */
                for (int off = 0; off < 3; off++) {
                    /* level top + 1: aug__convert's own choice */
                    for (int level = AUG__SIMD_NONE; level <= top + 1; level++) {
                        memset(a, 0xa5, sizeof a);
                        if (level > top) aug__convert(s, ss, st, (char *)a + off, ds, dts[k], n);
                        else aug__convert_contig(s, st, (char *)a + off, dts[k], n, level);
                        if (memcmp(a + off, b, (size_t)(n * ds)) != 0)
                            fail_msg("from %s to dtype %d, n %d, off %d, level %d", f64 ? "f64" : "f32", dts[k],
                                     n, off, level);
                        assert_int_equal(a[off + n * ds], 0xa5); /* nothing written past the run */
                    }
                }
            }
            /* in place where the element sizes allow it */
            if (ds == ss) {
                static unsigned char inplace[N * 8];
                aug__convert(sp, 2 * ss, st, (char *)b, ds, dts[k], N);
                for (int level = AUG__SIMD_NONE; level <= top; level++) {
                    memcpy(inplace, s, (size_t)(N * ss));
                    aug__convert_contig((char *)inplace, st, (char *)inplace, dts[k], N, level);
                    assert_memory_equal(inplace, b, (size_t)(N * ds));
                }
            }
        }
    }
}

static void test_load_wide(void **state) {
    (void)state;
    for (int s = 0; s < NCT; s++) {
        int n = make_elems(s, src_e, src_v);
        for (int j = 0; j < n; j++) {
            i128 q = 12345;
            double f = 0.25;
            int is_float = aug__load_wide(src_e[j].b, s, &q, &f);
            assert_int_equal(is_float, info[s].kind == K_FLOAT);
            if (is_float) assert_true(isnan(src_v[j].x) ? isnan(f) : (long double)f == src_v[j].x);
            else assert_true(q == src_v[j].q);
        }
    }
}

static void test_cmp_i128_f64(void **state) {
    (void)state;
    const i128 is[] = {0, 1, -1, 2, ((i128)1 << 53), ((i128)1 << 53) + 1, ((i128)1 << 63) - 1, (i128)1 << 63,
                       ((i128)1 << 64) - 1, (i128)1 << 64, ((i128)1 << 100) + 1, (i128)1 << 100, I128_HI,
                       I128_LO, I128_LO + 1, -((i128)1 << 63), -((i128)1 << 100) - 1};
    const double ds[] = {0.0, -0.0, 0.5, -0.5, 1.0, 1.5, -1.5, 0x1p53, 0x1p53 + 2, 0x1p63, 0x1p64, 0x1p100,
                         -0x1p100, 0x1p127, -0x1p127, 0x1.fffffffffffffp126, 1e300, -1e300, INFINITY,
                         -INFINITY, DBL_MIN, -0x1p63, 0x1p63 - 1024};
    for (size_t a = 0; a < sizeof is / sizeof is[0]; a++) {
        for (size_t b = 0; b < sizeof ds / sizeof ds[0]; b++) {
            for (int sg = 0; sg < 2; sg++) { /* each pair in both signs */
                if (is[a] == I128_LO && sg) continue;
                i128 x = sg ? -is[a] : is[a];
                double d = ds[b];
                int exp;
                /* reference: doubles >= 2^64 in magnitude are integers, exact in i128 below
                 * 2^127; smaller ones compare exactly in long double when |x| < 2^64 */
                if (d >= 0x1p127 || d < -0x1p127) exp = d > 0 ? -1 : 1;
                else if (fabs(d) >= 0x1p64) exp = x < (i128)d ? -1 : x > (i128)d;
                else if (x >= ((i128)1 << 64)) exp = 1;
                else if (x <= -((i128)1 << 64)) exp = -1;
                else exp = (long double)x < (long double)d ? -1 : (long double)x > (long double)d;
                if (aug__cmp_i128_f64(x, d) != exp) {
                    print_error("cmp(%.17Lg, %.17g) = %d, expected %d\n", (long double)x, d,
                                aug__cmp_i128_f64(x, d), exp);
                    fail();
                }
            }
        }
        assert_int_equal(aug__cmp_i128_f64(is[a], NAN), 2);
    }
}

static long double scalar_value(const aug_scalar *s) {
    switch (aug_dtype_info(s->dtype)->kind) {
    case AUG_KIND_FLOAT: return s->v.f;
    case AUG_KIND_UINT: return (long double)s->v.u;
    default: return (long double)s->v.i;
    }
}

static void check_limits(aug_dtype f, aug_dtype t, int hmin, long double vmin, int hmax, long double vmax) {
    int a, b;
    aug_scalar lo, hi;
    assert_int_equal(aug_cast_limits(f, t, &a, &lo, &b, &hi), AUG_OK);
    assert_int_equal(a, hmin);
    assert_int_equal(b, hmax);
    assert_int_equal(lo.dtype, t);
    assert_int_equal(hi.dtype, t);
    long double l = scalar_value(&lo), h = scalar_value(&hi);
    if (hmin) assert_true(l == vmin);
    if (hmax) assert_true(h == vmax);
}

static void test_cast_limits(void **state) {
    (void)state;
    init_info();
    /* semantics §2 / seed examples */
    check_limits(AUG_UINT16, AUG_UINT32, 0, 0, 0, 0);
    check_limits(AUG_UINT64, AUG_INT32, 0, 0, 1, 2147483647.0L);
    check_limits(AUG_FLOAT64, AUG_INT16, 1, -32768, 1, 32767);
    check_limits(AUG_FLOAT32, AUG_UINT64, 1, 0, 1, 18446744073709551615.0L);
    /* the cast rules */
    check_limits(AUG_FLOAT64, AUG_FLOAT32, 1, -FLT_MAX, 1, FLT_MAX);
    check_limits(AUG_FLOAT32, AUG_FLOAT64, 0, 0, 0, 0);
    check_limits(AUG_BFLOAT16, AUG_FLOAT16, 1, -65504, 1, 65504);
    check_limits(AUG_FLOAT16, AUG_BFLOAT16, 0, 0, 0, 0);
    check_limits(AUG_FLOAT32, AUG_BFLOAT16, 1, -info[AUG_BFLOAT16].maxf, 1, info[AUG_BFLOAT16].maxf);
    check_limits(AUG_INT64, AUG_FLOAT16, 1, -65504, 1, 65504);
    check_limits(AUG_UINT64, AUG_FLOAT16, 0, 0, 1, 65504);
    check_limits(AUG_UINT16, AUG_FLOAT16, 0, 0, 1, 65504);
    check_limits(AUG_INT16, AUG_FLOAT16, 0, 0, 0, 0);
    check_limits(AUG_UINT64, AUG_FLOAT32, 0, 0, 0, 0);
    check_limits(AUG_INT64, AUG_BFLOAT16, 0, 0, 0, 0);
    check_limits(AUG_FLOAT16, AUG_INT32, 1, -2147483648.0L, 1, 2147483647.0L);
    check_limits(AUG_INT8, AUG_UINT8, 1, 0, 0, 0);
    check_limits(AUG_INT8, AUG_BOOL, 1, 0, 1, 1);
    check_limits(AUG_UINT8, AUG_BOOL, 0, 0, 1, 1);
    check_limits(AUG_BOOL, AUG_BOOL, 0, 0, 0, 0);
    check_limits(AUG_BOOL, AUG_INT8, 0, 0, 0, 0);
    check_limits(AUG_FLOAT64, AUG_BOOL, 1, 0, 1, 1);
    /* for every pair: a limit bounds all finite results of the edge sweep and is reached;
     * with no limit the extreme source value (or -inf/inf) casts to itself */
    for (int f = 0; f < AUG_NUM_DTYPES; f++) {
        int n = make_elems(f, src_e, src_v);
        for (int t = 0; t < AUG_NUM_DTYPES; t++) {
            int hmin, hmax;
            aug_scalar lo, hi;
            assert_int_equal(aug_cast_limits((aug_dtype)f, (aug_dtype)t, &hmin, &lo, &hmax, &hi), AUG_OK);
            long double l = scalar_value(&lo), h = scalar_value(&hi);
            int reach_lo = 0, reach_hi = 0;
            xval vmin = xf(INFINITY), vmax = xf(-INFINITY);
            for (int j = 0; j < n; j++) {
                unsigned char out[16];
                if (!src_v[j].is_int && isnan(src_v[j].x)) continue;
                aug__convert((char *)src_e[j].b, 0, f, (char *)out, 0, t, 1);
                xval r = ref_load(out, t);
                long double rv = r.is_int ? (long double)r.q : r.x;
                if (xcmp(src_v[j], vmin) < 0) vmin = src_v[j];
                if (xcmp(src_v[j], vmax) > 0) vmax = src_v[j];
                if (isinf(rv)) continue;
                if (hmin) {
                    assert_true(rv >= l);
                    reach_lo |= rv == l;
                }
                if (hmax) {
                    assert_true(rv <= h);
                    reach_hi |= rv == h;
                }
            }
            if (reach_lo != hmin || reach_hi != hmax) {
                print_error("%s -> %s: limits (%d %Lg, %d %Lg) reached (%d, %d)\n", aug_dtype_name((aug_dtype)f),
                            aug_dtype_name((aug_dtype)t), hmin, l, hmax, h, reach_lo, reach_hi);
                fail();
            }
            for (int side = 0; side < 2; side++) {
                if (side ? hmax : hmin) continue;
                xval v = side ? vmax : vmin;
                unsigned char in[16], out[16];
                int nan;
                ref_store(v, f, in, &nan);
                aug__convert((char *)in, 0, f, (char *)out, 0, t, 1);
                xval r = ref_load(out, t);
                if (info[t].kind != K_FLOAT || r.is_int || isinf(r.x) || r.x == 0) {
                    assert_int_equal(xcmp(r, v), 0);
                } else { /* rounded, not saturated: within one unit of the last place */
                    long double x = v.is_int ? (long double)v.q : v.x;
                    assert_true(fabsl(r.x - x) <= fabsl(x) * ldexpl(1, 1 - info[t].p));
                }
            }
        }
    }
}

static void test_errors(void **state) {
    (void)state;
    char a[8] = {0}, b[8];
    aug_clear_error();
    assert_int_equal(aug_cast_run(a, 1, (aug_dtype)99, b, 1, AUG_UINT8, 1), AUG_ERR_TYPE);
    assert_string_equal(aug_last_error(), "aug_cast_run: invalid source dtype 99");
    assert_int_equal(aug_cast_run(a, 1, AUG_UINT8, b, 1, (aug_dtype)-3, 1), AUG_ERR_TYPE);
    assert_string_equal(aug_last_error(), "aug_cast_run: invalid destination dtype -3");
    assert_int_equal(aug_cast_run(a, 1, AUG_UINT8, b, 1, AUG_INT8, -1), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_cast_run: n must be >= 0, got -1");
    assert_int_equal(aug_cast_run(NULL, 1, AUG_UINT8, b, 1, AUG_INT8, 2), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_cast_run: src is NULL");
    assert_int_equal(aug_cast_run(a, 1, AUG_UINT8, NULL, 1, AUG_INT8, 2), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_cast_run: dst is NULL");
    assert_int_equal(aug_cast_run(NULL, 1, AUG_UINT8, NULL, 1, AUG_INT8, 0), AUG_OK); /* nothing to do */

    aug_scalar s = aug_scalar_int(3);
    assert_int_equal(aug_scalar_store(NULL, AUG_UINT8, b), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_scalar_store: scalar is NULL");
    assert_int_equal(aug_scalar_store(&s, AUG_UINT8, NULL), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_scalar_store: dst is NULL");
    assert_int_equal(aug_scalar_store(&s, (aug_dtype)13, b), AUG_ERR_TYPE);
    assert_string_equal(aug_last_error(), "aug_scalar_store: invalid destination dtype 13");
    s.dtype = (aug_dtype)42;
    assert_int_equal(aug_scalar_store(&s, AUG_UINT8, b), AUG_ERR_TYPE);
    assert_string_equal(aug_last_error(), "aug_scalar_store: invalid scalar dtype 42");

    int h1, h2;
    aug_scalar l, h;
    assert_int_equal(aug_cast_limits((aug_dtype)99, AUG_UINT8, &h1, &l, &h2, &h), AUG_ERR_TYPE);
    assert_string_equal(aug_last_error(), "aug_cast_limits: invalid source dtype 99");
    assert_int_equal(aug_cast_limits(AUG_UINT8, AUG_INT8, NULL, &l, &h2, &h), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_cast_limits: output pointer is NULL");
    /* the internal routine ignores invalid ctypes and empty runs */
    aug__convert(a, 1, 99, b, 1, AUG_UINT8, 1);
    aug__convert(NULL, 1, AUG_UINT8, NULL, 1, AUG_INT8, 0);
}

static void test_scalar_store(void **state) {
    (void)state;
    uint8_t u8;
    int8_t i8;
    uint16_t h;
    float f;
    int64_t i64;
    aug_scalar s = aug_scalar_float(254.5);
    assert_int_equal(aug_scalar_store(&s, AUG_UINT8, &u8), AUG_OK);
    assert_int_equal(u8, 254);
    s = aug_scalar_float(-1e9);
    assert_int_equal(aug_scalar_store(&s, AUG_INT8, &i8), AUG_OK);
    assert_int_equal(i8, -128);
    s = aug_scalar_float(NAN);
    assert_int_equal(aug_scalar_store(&s, AUG_INT8, &i8), AUG_OK);
    assert_int_equal(i8, 0);
    assert_int_equal(aug_scalar_store(&s, AUG_BOOL, &u8), AUG_OK);
    assert_int_equal(u8, 1);
    s = aug_scalar_uint(UINT64_MAX);
    assert_int_equal(aug_scalar_store(&s, AUG_INT64, &i64), AUG_OK);
    assert_true(i64 == INT64_MAX);
    assert_int_equal(aug_scalar_store(&s, AUG_FLOAT16, &h), AUG_OK);
    assert_int_equal(h, 0x7bff);
    s = aug_scalar_int(((int64_t)1 << 62) + ((int64_t)1 << 38) + 1); /* rounding via double would give 2^62 */
    assert_int_equal(aug_scalar_store(&s, AUG_FLOAT32, &f), AUG_OK);
    assert_true(f == 0x1p62f + 0x1p39f);
    s = aug_scalar_bool(7);
    assert_int_equal(aug_scalar_store(&s, AUG_FLOAT32, &f), AUG_OK);
    assert_true(f == 1.0f);
    /* a non-canonical bool byte reads as true */
    uint8_t two = 2;
    assert_int_equal(aug_cast_run(&two, 1, AUG_BOOL, &i8, 1, AUG_INT8, 1), AUG_OK);
    assert_int_equal(i8, 1);
}

int main(void) {
    init_info();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_pairs),       cmocka_unit_test(test_monotone),
        cmocka_unit_test(test_f16_bf16_roundtrip), cmocka_unit_test(test_narrow_sweep),
        cmocka_unit_test(test_simd_matches_portable), cmocka_unit_test(test_load_wide),
        cmocka_unit_test(test_cmp_i128_f64),    cmocka_unit_test(test_cast_limits),
        cmocka_unit_test(test_errors),          cmocka_unit_test(test_scalar_store),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
