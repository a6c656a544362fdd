/* th_ops.c: test helpers for the elementwise operator tests (see th_ops.h).
 * Everything here is written from semantics.md, not from aug's sources: the reference
 * saturate_cast, the promotion table and the 16-bit float formats. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "th_ops.h"

const aug_dtype TH_DTYPES[13] = {AUG_BOOL,   AUG_INT8,   AUG_INT16,   AUG_INT32,   AUG_INT64,
                                 AUG_UINT8,  AUG_UINT16, AUG_UINT32,  AUG_UINT64,  AUG_FLOAT16,
                                 AUG_BFLOAT16, AUG_FLOAT32, AUG_FLOAT64};

int th_is_float(aug_dtype t) {
    return t == AUG_FLOAT16 || t == AUG_BFLOAT16 || t == AUG_FLOAT32 || t == AUG_FLOAT64;
}
int th_is_integral(aug_dtype t) { return !th_is_float(t); }
int th_is_signed(aug_dtype t) { return t == AUG_INT8 || t == AUG_INT16 || t == AUG_INT32 || t == AUG_INT64; }

int th_size(aug_dtype t) {
    switch (t) {
    case AUG_BOOL: case AUG_INT8: case AUG_UINT8: return 1;
    case AUG_INT16: case AUG_UINT16: case AUG_FLOAT16: case AUG_BFLOAT16: return 2;
    case AUG_INT32: case AUG_UINT32: case AUG_FLOAT32: return 4;
    default: return 8;
    }
}

th_i128 th_imin(aug_dtype t) {
    switch (t) {
    case AUG_INT8: return INT8_MIN;
    case AUG_INT16: return INT16_MIN;
    case AUG_INT32: return INT32_MIN;
    case AUG_INT64: return INT64_MIN;
    default: return 0;
    }
}

th_i128 th_imax(aug_dtype t) {
    switch (t) {
    case AUG_BOOL: return 1;
    case AUG_INT8: return INT8_MAX;
    case AUG_INT16: return INT16_MAX;
    case AUG_INT32: return INT32_MAX;
    case AUG_INT64: return INT64_MAX;
    case AUG_UINT8: return UINT8_MAX;
    case AUG_UINT16: return UINT16_MAX;
    case AUG_UINT32: return UINT32_MAX;
    case AUG_UINT64: return UINT64_MAX;
    default: return 0;
    }
}

double th_fmax(aug_dtype t) {
    switch (t) {
    case AUG_FLOAT16: return 65504.0;
    case AUG_BFLOAT16: return 0x1.fep127;
    case AUG_FLOAT32: return FLT_MAX;
    default: return DBL_MAX;
    }
}

int th_value_bits(aug_dtype t) {
    if (t == AUG_BOOL) return 1;
    return 8 * th_size(t) - (th_is_signed(t) ? 1 : 0);
}

/* ---- promotion (semantics §6) ------------------------------------------------------------- */

aug_dtype th_promote(aug_dtype a, aug_dtype b) {
    if (a == b) return a;
    if (a == AUG_BOOL) return b;
    if (b == AUG_BOOL) return a;
    int fa = th_is_float(a), fb = th_is_float(b);
    if (fa && fb) {
        if (a == AUG_FLOAT64 || b == AUG_FLOAT64) return AUG_FLOAT64;
        return AUG_FLOAT32; /* f16 with bf16, or either with f32 */
    }
    if (fa) return a;
    if (fb) return b;
    int sa = th_is_signed(a), sb = th_is_signed(b);
    int xa = 8 * th_size(a), xb = 8 * th_size(b);
    if (sa == sb) return xa >= xb ? a : b;
    int x = sa ? xa : xb, y = sa ? xb : xa; /* intX with uintY -> int(min(64, max(X, 2Y))) */
    int bits = x > 2 * y ? x : 2 * y;
    if (bits > 64) bits = 64;
    return bits == 8 ? AUG_INT8 : bits == 16 ? AUG_INT16 : bits == 32 ? AUG_INT32 : AUG_INT64;
}

/* ---- 16-bit floats ------------------------------------------------------------------------ */

/* Round |a| (finite, >= 0) to a binary format with p significand bits, smallest
 * normal exponent emin and largest emax; saturates to the largest finite value. */
static long double round_format(long double a, int p, int emin, int emax) {
    if (a == 0) return 0;
    int e;
    frexpl(a, &e);
    e -= 1; /* a in [2^e, 2^(e+1)) */
    if (e < emin) e = emin;
    long double ulp = ldexpl(1.0L, e - (p - 1));
    long double r = rintl(a / ulp) * ulp; /* default rounding mode: half to even */
    long double maxv = ldexpl(2.0L - ldexpl(1.0L, 1 - p), emax);
    return r > maxv ? maxv : r;
}

static uint16_t encode16(long double v, int p, int emin, int emax, int ebits) {
    int mbits = p - 1;
    uint16_t sign = (uint16_t)(signbit(v) ? 1u << 15 : 0u);
    uint16_t expall = (uint16_t)(((1u << ebits) - 1u) << mbits);
    if (isnan(v)) return (uint16_t)(sign | expall | (1u << (mbits - 1)));
    if (isinf(v)) return (uint16_t)(sign | expall);
    long double r = round_format(fabsl(v), p, emin, emax);
    if (r == 0) return sign;
    int e;
    frexpl(r, &e);
    e -= 1;
    if (e < emin) { /* subnormal: count of the smallest units */
        long double units = r / ldexpl(1.0L, emin - mbits);
        return (uint16_t)(sign | (uint16_t)units);
    }
    long double m = r / ldexpl(1.0L, e - mbits) - ldexpl(1.0L, mbits);
    int bias = (1 << (ebits - 1)) - 1;
    return (uint16_t)(sign | (uint16_t)((e + bias) << mbits) | (uint16_t)m);
}

static double decode16(uint16_t h, int p, int emin, int ebits) {
    int mbits = p - 1;
    int sign = h >> 15;
    int e = (h >> mbits) & ((1 << ebits) - 1);
    int m = h & ((1 << mbits) - 1);
    double v;
    if (e == (1 << ebits) - 1)
        v = m ? NAN : INFINITY;
    else if (e == 0)
        v = ldexp((double)m, emin - mbits);
    else
        v = ldexp((double)(m + (1 << mbits)), e - ((1 << (ebits - 1)) - 1) - mbits);
    return sign ? -v : v;
}

uint16_t th_f16_bits(double v) { return encode16(v, 11, -14, 15, 5); }
double th_f16_value(uint16_t h) { return decode16(h, 11, -14, 5); }
uint16_t th_bf16_bits(double v) { return encode16(v, 8, -126, 127, 8); }
double th_bf16_value(uint16_t h) { return decode16(h, 8, -126, 8); }

/* ---- reference saturate_cast (semantics §2) ------------------------------------------------ */

static th_num sat_float(long double v, aug_dtype t) {
    if (isnan(v)) return th_f(NAN);
    switch (t) {
    case AUG_FLOAT16: return th_f(th_f16_value(encode16(v, 11, -14, 15, 5)));
    case AUG_BFLOAT16: return th_f(th_bf16_value(encode16(v, 8, -126, 127, 8)));
    case AUG_FLOAT32: {
        float r = (float)v;
        if (isinf(r) && !isinf(v)) r = v > 0 ? FLT_MAX : -FLT_MAX;
        return th_f(r);
    }
    default: {
        double r = (double)v;
        if (isinf(r) && !isinf(v)) r = v > 0 ? DBL_MAX : -DBL_MAX;
        return th_f(r);
    }
    }
}

th_num th_sat(th_num v, aug_dtype t) {
    if (t == AUG_BOOL) return th_i(v.isf ? (v.f != 0 || isnan(v.f)) : v.i != 0);
    if (th_is_float(t)) return sat_float(v.isf ? (long double)v.f : (long double)v.i, t);
    th_i128 lo = th_imin(t), hi = th_imax(t);
    if (!v.isf) return th_i(v.i < lo ? lo : v.i > hi ? hi : v.i);
    if (isnan(v.f)) return th_i(0);
    double r = rint(v.f); /* half to even */
    if ((long double)r <= (long double)lo) return th_i(lo);
    if ((long double)r >= (long double)hi) return th_i(hi);
    return th_i((th_i128)r);
}

th_num th_ieee(th_num v, aug_dtype t) {
    if (!th_is_float(t)) return th_sat(v, t);
    long double x = v.isf ? (long double)v.f : (long double)v.i;
    /* the largest finite value plus half its ulp: ties go to inf (odd mantissa) */
    long double lim = t == AUG_FLOAT16 ? 65520.0L : t == AUG_BFLOAT16 ? 0x1.ffp127L
                      : t == AUG_FLOAT32 ? 0x1.ffffffp127L : 0x1.fffffffffffff8p1023L;
    if (!isnan(x) && fabsl(x) >= lim) return th_f(x > 0 ? INFINITY : -INFINITY);
    return th_sat(v, t);
}

double th_round_f32(double v) { return (double)(float)v; }

/* ---- numbers -------------------------------------------------------------------------- */

int th_num_is_nan(th_num a) { return a.isf && isnan(a.f); }

long double th_num_ld(th_num a) { return a.isf ? (long double)a.f : (long double)a.i; }

int th_num_eq(th_num a, th_num b) {
    if (th_num_is_nan(a) || th_num_is_nan(b)) return th_num_is_nan(a) && th_num_is_nan(b);
    if (!a.isf && !b.isf) return a.i == b.i;
    return th_num_ld(a) == th_num_ld(b);
}

char *th_num_str(th_num a, char *buf, int len) {
    if (a.isf) {
        snprintf(buf, (size_t)len, "%.17g", a.f);
    } else {
        th_i128 v = a.i;
        char tmp[64];
        int k = 0, neg = v < 0;
        unsigned __int128 m = neg ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
        do {
            tmp[k++] = (char)('0' + (int)(m % 10));
            m /= 10;
        } while (m && k < 60);
        int p = 0;
        if (neg && p < len - 1) buf[p++] = '-';
        while (k > 0 && p < len - 1) buf[p++] = tmp[--k];
        buf[p] = '\0';
    }
    return buf;
}

/* ---- element access -------------------------------------------------------------------- */

static char *elem_ptr(const aug_tensor *t, const int64_t *idx) {
    char *p = (char *)aug_tensor_ptr(t);
    for (int d = 0; d < t->ndim; d++) p += idx[d] * t->strides[d] * th_size(t->dtype);
    return p;
}

static th_num load(const void *p, aug_dtype t) {
    switch (t) {
    case AUG_BOOL: { uint8_t v; memcpy(&v, p, 1); return th_i(v); }
    case AUG_INT8: { int8_t v; memcpy(&v, p, 1); return th_i(v); }
    case AUG_INT16: { int16_t v; memcpy(&v, p, 2); return th_i(v); }
    case AUG_INT32: { int32_t v; memcpy(&v, p, 4); return th_i(v); }
    case AUG_INT64: { int64_t v; memcpy(&v, p, 8); return th_i(v); }
    case AUG_UINT8: { uint8_t v; memcpy(&v, p, 1); return th_i(v); }
    case AUG_UINT16: { uint16_t v; memcpy(&v, p, 2); return th_i(v); }
    case AUG_UINT32: { uint32_t v; memcpy(&v, p, 4); return th_i(v); }
    case AUG_UINT64: { uint64_t v; memcpy(&v, p, 8); return th_i(v); }
    case AUG_FLOAT16: { uint16_t v; memcpy(&v, p, 2); return th_f(th_f16_value(v)); }
    case AUG_BFLOAT16: { uint16_t v; memcpy(&v, p, 2); return th_f(th_bf16_value(v)); }
    case AUG_FLOAT32: { float v; memcpy(&v, p, 4); return th_f(v); }
    default: { double v; memcpy(&v, p, 8); return th_f(v); }
    }
}

static void store(void *p, aug_dtype t, th_num n) {
    /* integer targets keep the low bits; a float outside the int128 range (or
     * NaN) gives 0, the low bits of what x86 gives, without the undefined cast */
    th_i128 i = !n.isf ? n.i : (n.f > -0x1p127 && n.f < 0x1p127 ? (th_i128)n.f : 0);
    double f = n.isf ? n.f : (double)n.i;
    switch (t) {
    case AUG_BOOL: { uint8_t v = (uint8_t)(i != 0); memcpy(p, &v, 1); break; }
    case AUG_INT8: case AUG_UINT8: { uint8_t v = (uint8_t)i; memcpy(p, &v, 1); break; }
    case AUG_INT16: case AUG_UINT16: { uint16_t v = (uint16_t)i; memcpy(p, &v, 2); break; }
    case AUG_INT32: case AUG_UINT32: { uint32_t v = (uint32_t)i; memcpy(p, &v, 4); break; }
    case AUG_INT64: case AUG_UINT64: { uint64_t v = (uint64_t)i; memcpy(p, &v, 8); break; }
    case AUG_FLOAT16: { uint16_t v = th_f16_bits(f); memcpy(p, &v, 2); break; }
    case AUG_BFLOAT16: { uint16_t v = th_bf16_bits(f); memcpy(p, &v, 2); break; }
    case AUG_FLOAT32: { float v = (float)f; memcpy(p, &v, 4); break; }
    default: memcpy(p, &f, 8); break;
    }
}

th_num th_get(const aug_tensor *t, const int64_t *idx) { return load(elem_ptr(t, idx), t->dtype); }
void th_set(aug_tensor *t, const int64_t *idx, th_num v) { store(elem_ptr(t, idx), t->dtype, v); }

static void unflatten(const aug_tensor *t, int64_t i, int64_t *idx) {
    for (int d = t->ndim - 1; d >= 0; d--) {
        int64_t e = t->shape[d] > 0 ? t->shape[d] : 1;
        idx[d] = i % e;
        i /= e;
    }
}

th_num th_get_flat(const aug_tensor *t, int64_t i) {
    int64_t idx[AUG_MAX_DIMS];
    unflatten(t, i, idx);
    return th_get(t, idx);
}

void th_set_flat(aug_tensor *t, int64_t i, th_num v) {
    int64_t idx[AUG_MAX_DIMS];
    unflatten(t, i, idx);
    th_set(t, idx, v);
}

aug_tensor *th_tensor(int ndim, const int64_t *shape, aug_dtype t, const th_num *vals) {
    aug_tensor *r = aug_tensor_empty(ndim, shape, t, aug_cpu_device());
    if (!r) return NULL;
    int64_t n = aug_tensor_size(r);
    for (int64_t i = 0; i < n; i++) th_set_flat(r, i, vals[i]);
    return r;
}

/* ---- test values ------------------------------------------------------------------------ */

uint64_t th_rand(uint64_t *s) { /* xorshift64* */
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

static th_num random_value(aug_dtype t, uint64_t *seed) {
    uint64_t r = th_rand(seed);
    int mode = (int)(r % 4);
    uint64_t bits = th_rand(seed);
    if (t == AUG_BOOL) return th_i((th_i128)(bits & 1));
    if (!th_is_float(t)) {
        th_i128 lo = th_imin(t), hi = th_imax(t), v;
        if (mode == 0) {
            v = (th_i128)(bits % 41) - 20;
        } else if (mode == 1) {
            v = (th_i128)(bits % 64);
            v = (r & 64) ? hi - v : lo + v;
        } else {
            int nb = 8 * th_size(t);
            uint64_t mask = nb == 64 ? ~(uint64_t)0 : (((uint64_t)1 << nb) - 1);
            uint64_t u = bits & mask;
            if (th_is_signed(t) && (u >> (nb - 1)) & 1) v = (th_i128)u - ((th_i128)1 << nb);
            else v = (th_i128)u;
        }
        return th_sat(th_i(v), t);
    }
    double v;
    if (mode == 0) {
        v = (double)((int64_t)(bits % 401) - 200) / 4.0; /* halves and quarters */
    } else if (mode == 1) {
        v = (double)((int64_t)(bits % 2001) - 1000);
    } else {
        int emax = t == AUG_FLOAT16 ? 15 : t == AUG_FLOAT64 ? 1000 : 120;
        int e = (int)(th_rand(seed) % (uint64_t)(2 * emax + 1)) - emax;
        v = ldexp((double)(bits >> 11) / 9007199254740992.0 + 0.5, e);
        if (r & 128) v = -v;
    }
    return th_sat(th_f(v), t);
}

th_num th_random(aug_dtype t, uint64_t *seed) { return random_value(t, seed); }

void th_values(aug_dtype t, th_num *out, int n, uint64_t *seed) {
    th_num sp[24];
    int k = 0;
    if (t == AUG_BOOL) {
        sp[k++] = th_i(0);
        sp[k++] = th_i(1);
    } else if (!th_is_float(t)) {
        th_i128 lo = th_imin(t), hi = th_imax(t);
        sp[k++] = th_i(lo);
        sp[k++] = th_i(hi);
        sp[k++] = th_i(0);
        sp[k++] = th_i(1);
        sp[k++] = th_i(lo + 1);
        sp[k++] = th_i(hi - 1);
        sp[k++] = th_i(2);
        sp[k++] = th_i(hi / 2);
        sp[k++] = th_i(hi / 2 + 1);
        if (th_is_signed(t)) {
            sp[k++] = th_i(-1);
            sp[k++] = th_i(-2);
            sp[k++] = th_i(lo / 2);
            sp[k++] = th_i(lo / 2 - 1);
        } else {
            sp[k++] = th_i(3);
            sp[k++] = th_i(16);
        }
    } else {
        double m = th_fmax(t);
        const double vals[] = {0.0, -0.0, 1.0, -1.0, 0.5, -1.5, 2.5, m, -m, INFINITY, -INFINITY, NAN, 3.0, -7.0,
                               100.0, 65504.0, 1e-30, 1e30, 123.375};
        for (size_t j = 0; j < sizeof vals / sizeof vals[0]; j++) sp[k++] = th_sat(th_f(vals[j]), t);
    }
    for (int i = 0; i < n; i++) out[i] = i < k ? sp[i] : random_value(t, seed);
}

/* ---- views and errors ------------------------------------------------------------------ */

aug_tensor *th_reversed(const aug_tensor *t) {
    aug_index idx[AUG_MAX_DIMS];
    memset(idx, 0, sizeof idx);
    for (int d = 0; d < t->ndim; d++) {
        idx[d].kind = AUG_INDEX_SLICE;
        idx[d].step = -1;
    }
    return aug_tensor_index(t, t->ndim, idx);
}

aug_tensor *th_slice1(const aug_tensor *t, int64_t start, int64_t step) {
    aug_index idx;
    memset(&idx, 0, sizeof idx);
    idx.kind = AUG_INDEX_SLICE;
    idx.start = start;
    idx.has_start = 1;
    idx.step = step;
    return aug_tensor_index(t, 1, &idx);
}

int th_error_has(const char *needle) { return strstr(aug_last_error(), needle) != NULL; }

/* ---- pairwise checks ------------------------------------------------------------------ */

static int check_one(const char *what, const char *how, th_num want, th_num got, int64_t k) {
    if (th_num_eq(want, got)) return 1;
    char a[64], b[64];
    fprintf(stderr, "%s (%s): element %lld: got %s want %s\n", what, how, (long long)k, th_num_str(got, a, 64),
            th_num_str(want, b, 64));
    return 0;
}

int th_check_pairs(aug_op op, aug_dtype da, const th_num *va, aug_dtype db, const th_num *vb, int n, aug_dtype r,
                   th_ref2 ref) {
    char what[96];
    snprintf(what, sizeof what, "%s %s %s", aug_dtype_name(da), aug_op_name(op), aug_dtype_name(db));
    int ok = 1;
    int64_t sa[2] = {n, 1}, sb[2] = {1, n}, nn = (int64_t)n * n;
    th_num *fa = malloc(sizeof(th_num) * (size_t)nn), *fb = malloc(sizeof(th_num) * (size_t)nn);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            fa[i * n + j] = va[i];
            fb[i * n + j] = vb[j];
        }
    aug_tensor *a = th_tensor(2, sa, da, va), *b = th_tensor(2, sb, db, vb);
    aug_tensor *ca = th_tensor(1, &nn, da, fa), *cb = th_tensor(1, &nn, db, fb);
    aug_tensor *ra = th_reversed(ca), *rb = th_reversed(cb);
    aug_tensor *sa3 = th_slice1(ca, 1, 3), *rb3 = th_slice1(rb, 1, 3);
    const aug_tensor *xs[4] = {a, ca, ra, sa3}, *ys[4] = {b, cb, rb, rb3};
    const char *hows[4] = {"broadcast", "contiguous", "reversed", "strided"};
    for (int w = 0; w < 4 && ok; w++) {
        aug_tensor *out = NULL;
        if (aug_binary(op, xs[w], ys[w], &out) != AUG_OK) {
            fprintf(stderr, "%s (%s): %s\n", what, hows[w], aug_last_error());
            ok = 0;
            break;
        }
        if (out->dtype != r) {
            fprintf(stderr, "%s: result dtype %s, want %s\n", what, aug_dtype_name(out->dtype), aug_dtype_name(r));
            ok = 0;
        }
        int64_t m = aug_tensor_size(out);
        for (int64_t k = 0; k < m && ok; k++) {
            int64_t ia = k, ib = k; /* index into fa / fb */
            if (w == 2) ia = ib = nn - 1 - k;
            if (w == 3) {
                ia = 1 + 3 * k;
                ib = nn - 2 - 3 * k;
            }
            ok = check_one(what, hows[w], ref(op, fa[ia], fb[ib], da, db, r), th_get_flat(out, k), k);
        }
        aug_tensor_free(out);
    }
    aug_tensor_free(sa3);
    aug_tensor_free(rb3);
    aug_tensor_free(ra);
    aug_tensor_free(rb);
    aug_tensor_free(ca);
    aug_tensor_free(cb);
    aug_tensor_free(a);
    aug_tensor_free(b);
    free(fa);
    free(fb);
    return ok;
}
