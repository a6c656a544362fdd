/* test_reduce.c: aug_reduce (sum, mean, min, max, all, any; semantics §10) against
 * references computed here: __int128 for integers (exact, then saturated by hand),
 * long double for floats (with a tolerance for the output's rounding), over every
 * dtype, axis set, keepdim and upcast, on contiguous, strided (negative steps,
 * permutations) and broadcast inputs; plus saturation edges, empty and 0-d
 * tensors, NaN propagation, thread-count independence, error messages, and the
 * SSE2 and AVX2 8-bit sums against their portable twin. */
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
#include "core/error.h"
#include "cpu/cpu.h"
#include "cpu/simd.h"

typedef __int128 i128;

static const aug_reduce_op OPS[] = {AUG_REDUCE_SUM, AUG_REDUCE_MIN, AUG_REDUCE_MAX,
                                    AUG_REDUCE_MEAN, AUG_REDUCE_ALL, AUG_REDUCE_ANY};
static const char *OP_NAMES[] = {"sum", "min", "max", "mean", "all", "any"};

/* ---- helpers ------------------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int is_float(aug_dtype t) { return aug_dtype_info(t)->kind == AUG_KIND_FLOAT; }
static int64_t isize(aug_dtype t) { return aug_dtype_info(t)->size; }

static aug_tensor *mk(aug_dtype dt, int ndim, const int64_t *shape) {
    aug_tensor *t = aug_tensor_empty(ndim, shape, dt, aug_cpu_device());
    if (!t) fail_msg("aug_tensor_empty: %s", aug_last_error());
    return t;
}

static i128 int_lo(aug_dtype t) { return aug_dtype_info(t)->imin; }
static i128 int_hi(aug_dtype t) { return (i128)aug_dtype_info(t)->umax; }

/* Store an integer (in range) or a float (rounded by the 16-bit converters). */
static void put(aug_dtype t, char *p, i128 iv, double fv) {
    switch (t) {
    case AUG_BOOL: *(uint8_t *)p = iv != 0; break;
    case AUG_INT8: *(int8_t *)p = (int8_t)iv; break;
    case AUG_UINT8: *(uint8_t *)p = (uint8_t)iv; break;
    case AUG_INT16: *(int16_t *)p = (int16_t)iv; break;
    case AUG_UINT16: *(uint16_t *)p = (uint16_t)iv; break;
    case AUG_INT32: *(int32_t *)p = (int32_t)iv; break;
    case AUG_UINT32: *(uint32_t *)p = (uint32_t)iv; break;
    case AUG_INT64: *(int64_t *)p = (int64_t)iv; break;
    case AUG_UINT64: *(uint64_t *)p = (uint64_t)iv; break;
    case AUG_FLOAT16: *(uint16_t *)p = aug_f64_to_f16(fv); break;
    case AUG_BFLOAT16: *(uint16_t *)p = aug_f64_to_bf16(fv); break;
    case AUG_FLOAT32: *(float *)p = (float)fv; break;
    case AUG_FLOAT64: *(double *)p = fv; break;
    default: fail();
    }
}

typedef struct val { i128 i; long double f; } val; /* f is set for every dtype */

static val get(aug_dtype t, const char *p) {
    val v = {0, 0};
    switch (t) {
    case AUG_BOOL: v.i = *(const uint8_t *)p != 0; break;
    case AUG_INT8: v.i = *(const int8_t *)p; break;
    case AUG_UINT8: v.i = *(const uint8_t *)p; break;
    case AUG_INT16: v.i = *(const int16_t *)p; break;
    case AUG_UINT16: v.i = *(const uint16_t *)p; break;
    case AUG_INT32: v.i = *(const int32_t *)p; break;
    case AUG_UINT32: v.i = *(const uint32_t *)p; break;
    case AUG_INT64: v.i = *(const int64_t *)p; break;
    case AUG_UINT64: v.i = *(const uint64_t *)p; break;
    case AUG_FLOAT16: v.f = aug_f16_to_f64(*(const uint16_t *)p); return v;
    case AUG_BFLOAT16: v.f = aug_bf16_to_f64(*(const uint16_t *)p); return v;
    case AUG_FLOAT32: v.f = *(const float *)p; return v;
    case AUG_FLOAT64: v.f = *(const double *)p; return v;
    default: fail();
    }
    v.f = (long double)v.i;
    return v;
}

/* Random contents of a contiguous tensor: integers over their full range (so sums
 * saturate), bool 0/1 with a bias, floats in [-100, 100). */
static void fill_random(aug_tensor *t, int bias_true) {
    int64_t n = aug_tensor_size(t), sz = isize(t->dtype);
    char *p = aug_tensor_ptr(t);
    for (int64_t k = 0; k < n; k++) {
        uint64_t r = rnd();
        if (t->dtype == AUG_BOOL) put(t->dtype, p + k * sz, (int)(r % 16) < bias_true, 0);
        else if (is_float(t->dtype)) put(t->dtype, p + k * sz, 0, ((double)(r >> 11) * 0x1p-53 - 0.5) * 200.0);
        else if (sz == 8) put(t->dtype, p + k * sz, int_lo(t->dtype) + (i128)r, 0);
        else put(t->dtype, p + k * sz,
                 int_lo(t->dtype) + (i128)(r % (uint64_t)(int_hi(t->dtype) - int_lo(t->dtype) + 1)), 0);
    }
}

static const char *elem_ptr(const aug_tensor *t, const int64_t *idx) {
    const char *p = aug_tensor_ptr(t);
    for (int d = 0; d < t->ndim; d++) p += idx[d] * t->strides[d] * isize(t->dtype);
    return p;
}

/* ---- the reference ------------------------------------------------------------ */

typedef struct ref {
    i128 isum, imin, imax;
    long double fsum, fabs, fmin, fmax;
    int nan, all, any;
    int64_t n, nfinite; /* elements, non-NaN elements */
} ref;

static uint32_t axes_mask(int ndim, int naxes, const int *axes) {
    uint32_t m = 0;
    if (naxes < 0) return ndim ? (1u << ndim) - 1 : 0;
    for (int i = 0; i < naxes; i++) m |= 1u << (axes[i] < 0 ? axes[i] + ndim : axes[i]);
    return m;
}

/* Reduces t over mask by brute force; one ref per output element (C order of the
 * kept dims). Caller frees. */
static ref *reference(const aug_tensor *t, uint32_t mask, int64_t *nout) {
    int64_t O = 1;
    for (int d = 0; d < t->ndim; d++)
        if (!(mask & (1u << d))) O *= t->shape[d];
    ref *r = calloc((size_t)(O ? O : 1), sizeof *r);
    assert_non_null(r);
    for (int64_t o = 0; o < O; o++) r[o].all = 1;
    *nout = O;
    /* odometer over t's multi-index: byte offset and output index kept in step */
    int64_t N = aug_tensor_size(t), idx[AUG_MAX_DIMS] = {0}, ostride[AUG_MAX_DIMS], off = 0, o = 0, acc = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        ostride[d] = (mask & (1u << d)) ? 0 : acc;
        if (!(mask & (1u << d))) acc *= t->shape[d];
    }
    const char *base = aug_tensor_ptr(t);
    int64_t sz = isize(t->dtype);
    for (int64_t k = 0; k < N; k++) {
        if (k > 0) {
            for (int d = t->ndim - 1; d >= 0; d--) {
                off += t->strides[d] * sz;
                o += ostride[d];
                if (++idx[d] < t->shape[d]) break;
                off -= t->shape[d] * t->strides[d] * sz;
                o -= t->shape[d] * ostride[d];
                idx[d] = 0;
            }
        }
        val v = get(t->dtype, base + off);
        ref *q = &r[o];
        q->isum += v.i;
        q->fsum += v.f;
        q->fabs += fabsl(v.f);
        if (q->n == 0 || v.i < q->imin) q->imin = v.i;
        if (q->n == 0 || v.i > q->imax) q->imax = v.i;
        if (v.f != v.f) {
            q->nan = 1;
        } else {
            if (q->nfinite == 0 || v.f < q->fmin) q->fmin = v.f;
            if (q->nfinite == 0 || v.f > q->fmax) q->fmax = v.f;
            q->nfinite++;
        }
        if (v.f == 0) q->all = 0; /* NaN != 0: true */
        else q->any = 1;
        q->n++;
    }
    return r;
}

/* Relative tolerance of one rounding into a float dtype (plus float64 slack). */
static long double out_tol(aug_dtype t) {
    switch (t) {
    case AUG_FLOAT16: return 0x1p-10L;
    case AUG_BFLOAT16: return 0x1p-7L;
    case AUG_FLOAT32: return 0x1p-23L;
    default: return 1e-12L;
    }
}

static i128 clamp_to(aug_dtype t, i128 v) {
    if (t == AUG_BOOL) return v != 0;
    return v < int_lo(t) ? int_lo(t) : v > int_hi(t) ? int_hi(t) : v;
}

/* Checks one result element against its reference. */
static void check_value(const char *what, aug_reduce_op op, aug_dtype in_t, aug_dtype out_t, const ref *q,
                        const char *p) {
    val got = get(out_t, p);
    int fin = is_float(in_t), fout = is_float(out_t);
    char msg[256];
    snprintf(msg, sizeof msg, "%s: op %s in %s out %s n=%lld", what, OP_NAMES[op], aug_dtype_name(in_t),
             aug_dtype_name(out_t), (long long)q->n);
    switch (op) {
    case AUG_REDUCE_SUM:
        if (!fin && !fout) {
            if (got.i != clamp_to(out_t, q->isum)) fail_msg("%s: got %lld want %lld (unsaturated)", msg,
                                                             (long long)got.i, (long long)clamp_to(out_t, q->isum));
        } else if (fout && !isfinite(q->fsum)) {
            if (!(got.f == q->fsum || (got.f != got.f && q->fsum != q->fsum)))
                fail_msg("%s: got %Lg want %Lg", msg, got.f, q->fsum);
        } else if (fout) {
            long double want = q->fsum, tol = out_tol(out_t) * (fin ? q->fabs : fabsl(want)) + 1e-300L;
            if (!(fabsl(got.f - want) <= tol)) fail_msg("%s: got %.17Lg want %.17Lg", msg, got.f, want);
        }
        break;
    case AUG_REDUCE_MEAN: {
        if (q->n == 0) {
            if (got.f == got.f) fail_msg("%s: empty mean is not NaN", msg);
            break;
        }
        long double want = (fin ? q->fsum : (long double)q->isum) / q->n;
        if (!isfinite(want)) {
            if (!(got.f == want || (got.f != got.f && want != want)))
                fail_msg("%s: got %Lg want %Lg", msg, got.f, want);
            break;
        }
        long double tol = out_tol(out_t) * (fin ? q->fabs / q->n : fabsl(want)) + 1e-300L;
        if (!(fabsl(got.f - want) <= tol)) fail_msg("%s: got %.17Lg want %.17Lg", msg, got.f, want);
        break;
    }
    case AUG_REDUCE_MIN:
    case AUG_REDUCE_MAX:
        if (fin) {
            if (q->nan) {
                if (got.f == got.f) fail_msg("%s: NaN did not propagate", msg);
            } else if (got.f != (op == AUG_REDUCE_MIN ? q->fmin : q->fmax)) {
                fail_msg("%s: got %Lg want %Lg", msg, got.f, op == AUG_REDUCE_MIN ? q->fmin : q->fmax);
            }
        } else if (got.i != clamp_to(out_t, op == AUG_REDUCE_MIN ? q->imin : q->imax)) {
            fail_msg("%s: got %lld", msg, (long long)got.i);
        }
        break;
    case AUG_REDUCE_ALL:
        if (got.i != q->all) fail_msg("%s: got %d", msg, (int)got.i);
        break;
    case AUG_REDUCE_ANY:
        if (got.i != q->any) fail_msg("%s: got %d", msg, (int)got.i);
        break;
    case AUG_REDUCE_ARGMIN:
    case AUG_REDUCE_ARGMAX: /* test_argminmax.c */
        fail_msg("%s: not checked here", msg);
    }
}

static aug_dtype expected_dtype(aug_reduce_op op, aug_dtype in, int upcast) {
    aug_kind k = aug_dtype_info(in)->kind;
    switch (op) {
    case AUG_REDUCE_SUM:
        if (!upcast) return in;
        return k == AUG_KIND_FLOAT ? AUG_FLOAT64 : k == AUG_KIND_INT ? AUG_INT64 : AUG_UINT64;
    case AUG_REDUCE_MEAN: return k == AUG_KIND_FLOAT ? in : AUG_FLOAT64;
    case AUG_REDUCE_ALL: case AUG_REDUCE_ANY: return AUG_BOOL;
    default: return in;
    }
}

/* Runs one reduction with a fresh output and checks shape, dtype and values
 * against r, the reference of t over these axes (NULL: computed here). */
static void run_check_ref(const char *what, aug_reduce_op op, const aug_tensor *t, int naxes, const int *axes,
                          int keepdim, int upcast, const ref *given) {
    aug_tensor *out = NULL;
    if (aug_reduce(op, t, naxes, axes, keepdim, upcast, &out) != AUG_OK)
        fail_msg("%s: op %s %s: %s", what, OP_NAMES[op], aug_dtype_name(t->dtype), aug_last_error());
    uint32_t mask = axes_mask(t->ndim, naxes, axes);
    assert_int_equal(out->dtype, expected_dtype(op, t->dtype, upcast));
    int ondim = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (mask & (1u << d)) {
            if (keepdim) assert_int_equal(out->shape[ondim++], 1);
        } else {
            assert_int_equal(out->shape[ondim++], t->shape[d]);
        }
    }
    assert_int_equal(out->ndim, ondim);
    int64_t O;
    ref *r = given ? NULL : reference(t, mask, &O);
    if (given) {
        O = 1;
        for (int d = 0; d < t->ndim; d++)
            if (!(mask & (1u << d))) O *= t->shape[d];
    }
    const ref *rr = given ? given : r;
    int64_t kept[AUG_MAX_DIMS], nk = 0, oidx[AUG_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++)
        if (!(mask & (1u << d))) kept[nk++] = d;
    for (int64_t o = 0; o < O; o++) {
        int64_t rem = o;
        for (int d = 0; d < out->ndim; d++) oidx[d] = 0;
        for (int64_t j = nk - 1; j >= 0; j--) {
            int d = (int)kept[j];
            int64_t c = rem % t->shape[d];
            rem /= t->shape[d];
            int od = keepdim ? d : (int)j;
            oidx[od] = c;
        }
        check_value(what, op, t->dtype, out->dtype, &rr[o], elem_ptr(out, oidx));
    }
    free(r);
    aug_tensor_free(out);
}

static void run_check(const char *what, aug_reduce_op op, const aug_tensor *t, int naxes, const int *axes,
                      int keepdim, int upcast) {
    run_check_ref(what, op, t, naxes, axes, keepdim, upcast, NULL);
}

/* The reference of t over these axes, for several run_check_ref calls. */
static ref *ref_of(const aug_tensor *t, int naxes, const int *axes) {
    int64_t O;
    return reference(t, axes_mask(t->ndim, naxes, axes), &O);
}

/* Every op (and sum with upcast) on t over the given axes, with and without keepdim. */
static void run_all_ops(const char *what, const aug_tensor *t, int naxes, const int *axes) {
    ref *r = ref_of(t, naxes, axes);
    for (int keep = 0; keep < 2; keep++) {
        for (size_t k = 0; k < sizeof OPS / sizeof OPS[0]; k++) {
            int64_t R = 1;
            uint32_t mask = axes_mask(t->ndim, naxes, axes);
            for (int d = 0; d < t->ndim; d++)
                if (mask & (1u << d)) R *= t->shape[d];
            if (R == 0 && aug_tensor_size(t) == 0 && (OPS[k] == AUG_REDUCE_MIN || OPS[k] == AUG_REDUCE_MAX))
                continue;
            run_check_ref(what, OPS[k], t, naxes, axes, keep, 0, r);
        }
        run_check_ref(what, AUG_REDUCE_SUM, t, naxes, axes, keep, 1, r);
    }
    free(r);
}

/* ---- tests --------------------------------------------------------------------- */

static void test_every_dtype_and_axis_set(void **state) {
    (void)state;
    static const int ax0[] = {0}, ax1[] = {1}, ax2[] = {2}, axm1[] = {-1}, ax02[] = {0, 2}, ax20[] = {2, 0},
                     axm3[] = {-3, 1}, ax012[] = {0, 1, 2};
    const struct { int n; const int *a; } sets[] = {
        {-1, NULL}, {0, NULL}, {1, ax0}, {1, ax1}, {1, ax2}, {1, axm1}, {2, ax02}, {2, ax20}, {2, axm3}, {3, ax012}};
    const int64_t shape[3] = {5, 7, 9};
    for (int dt = 0; dt < AUG_NUM_DTYPES; dt++) {
        aug_tensor *t = mk((aug_dtype)dt, 3, shape);
        fill_random(t, 14);
        for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++) run_all_ops("contiguous", t, sets[s].n, sets[s].a);
        aug_tensor_free(t);
    }
}

static aug_index sl(int64_t start, int64_t stop, int64_t step, int has_start, int has_stop) {
    aug_index ix;
    memset(&ix, 0, sizeof ix);
    ix.kind = AUG_INDEX_SLICE;
    ix.start = start;
    ix.stop = stop;
    ix.step = step;
    ix.has_start = has_start;
    ix.has_stop = has_stop;
    return ix;
}

static void test_strided_and_broadcast(void **state) {
    (void)state;
    static const int ax0[] = {0}, ax1[] = {1}, axm1[] = {-1}, ax02[] = {0, 2};
    const struct { int n; const int *a; } sets[] = {{-1, NULL}, {1, ax0}, {1, ax1}, {1, axm1}, {2, ax02}};
    const int64_t shape[3] = {5, 7, 9}, small[3] = {1, 7, 1};
    const int perm[3] = {2, 0, 1};
    for (int dt = 0; dt < AUG_NUM_DTYPES; dt++) {
        aug_tensor *t = mk((aug_dtype)dt, 3, shape), *b = mk((aug_dtype)dt, 3, small);
        fill_random(t, 10);
        fill_random(b, 8);
        aug_index idx[3] = {sl(0, 0, -1, 0, 0), sl(1, 7, 2, 1, 1), sl(0, 0, -2, 0, 0)};
        aug_tensor *v = aug_tensor_index(t, 3, idx);
        aug_tensor *p = aug_tensor_permute(t, perm);
        aug_tensor *bc = aug_tensor_broadcast_to(b, 3, shape);
        if (!v || !p || !bc) fail_msg("view: %s", aug_last_error());
        assert_int_equal(v->shape[0], 5);
        assert_int_equal(v->shape[1], 3);
        assert_int_equal(v->shape[2], 5);
        for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++) {
            run_all_ops("negative strides", v, sets[s].n, sets[s].a);
            run_all_ops("permuted", p, sets[s].n, sets[s].a);
            run_all_ops("broadcast", bc, sets[s].n, sets[s].a);
        }
        aug_tensor_free(v);
        aug_tensor_free(p);
        aug_tensor_free(bc);
        aug_tensor_free(t);
        aug_tensor_free(b);
    }
}

/* Reductions longer than one chunk (65536 elements): the chunked, combined path. */
static void test_large_chunked(void **state) {
    (void)state;
    static const int ax0[] = {0}, ax1[] = {1};
    int64_t n1[1] = {300007};
    aug_tensor *f = mk(AUG_FLOAT64, 1, n1);
    fill_random(f, 0);
    ref *rf = ref_of(f, -1, NULL);
    for (int k = 0; k < 4; k++) run_check_ref("large float64", OPS[k], f, -1, NULL, 0, 0, rf);
    free(rf);
    aug_tensor_free(f);

    int64_t s2[2] = {2, 65600};
    for (int dt = 0; dt < AUG_NUM_DTYPES; dt++) {
        aug_tensor *t = mk((aug_dtype)dt, 2, s2);
        fill_random(t, 15);
        ref *r1 = ref_of(t, 1, ax1);
        for (size_t k = 0; k < 6; k++) run_check_ref("large axis 1", OPS[k], t, 1, ax1, 0, 0, r1);
        run_check_ref("large axis 1 upcast", AUG_REDUCE_SUM, t, 1, ax1, 1, 1, r1);
        free(r1);
        run_check("large all", AUG_REDUCE_SUM, t, -1, NULL, 0, 1);
        /* transposed: axis 0 of the (65600, 2) view has stride 1, axis 1 stride 65600 */
        const int perm[2] = {1, 0};
        aug_tensor *tt = aug_tensor_permute(t, perm);
        assert_non_null(tt);
        run_check("large transposed axis 0", AUG_REDUCE_SUM, tt, 1, ax0, 0, 1);
        run_check("large transposed axis 0", AUG_REDUCE_MAX, tt, 1, ax0, 1, 0);
        aug_index rev[2] = {sl(0, 0, -1, 0, 0), sl(0, 0, -1, 0, 0)};
        aug_tensor *r = aug_tensor_index(t, 2, rev);
        assert_non_null(r);
        run_check("large reversed", AUG_REDUCE_SUM, r, -1, NULL, 0, 1);
        run_check("large reversed", AUG_REDUCE_MIN, r, 1, ax1, 0, 0);
        run_check("large reversed", AUG_REDUCE_MEAN, r, 1, ax1, 0, 0);
        aug_tensor_free(r);
        aug_tensor_free(tt);
        aug_tensor_free(t);
    }
}

static aug_tensor *vec_i(aug_dtype dt, int64_t n, const i128 *v) {
    aug_tensor *t = mk(dt, 1, &n);
    for (int64_t k = 0; k < n; k++) put(dt, (char *)aug_tensor_ptr(t) + k * isize(dt), v[k], (double)v[k]);
    return t;
}

static val reduce1(aug_reduce_op op, const aug_tensor *t, int upcast, aug_dtype want_dtype) {
    aug_tensor *out = NULL;
    if (aug_reduce(op, t, -1, NULL, 0, upcast, &out)) fail_msg("%s", aug_last_error());
    assert_int_equal(out->ndim, 0);
    assert_int_equal(out->dtype, want_dtype);
    val v = get(out->dtype, aug_tensor_ptr(out));
    aug_tensor_free(out);
    return v;
}

static void test_saturation(void **state) {
    (void)state;
    i128 *v = malloc(70000 * sizeof *v);
    assert_non_null(v);
    for (int k = 0; k < 70000; k++) v[k] = 1;
    aug_tensor *t = vec_i(AUG_UINT8, 300, v);
    assert_true(reduce1(AUG_REDUCE_SUM, t, 0, AUG_UINT8).i == 255);
    assert_true(reduce1(AUG_REDUCE_SUM, t, 1, AUG_UINT64).i == 300);
    aug_tensor_free(t);
    for (int k = 0; k < 70000; k++) v[k] = 255;
    t = vec_i(AUG_UINT8, 65536, v);
    assert_true(reduce1(AUG_REDUCE_SUM, t, 1, AUG_UINT64).i == (i128)65536 * 255);
    assert_true(reduce1(AUG_REDUCE_MEAN, t, 0, AUG_FLOAT64).f == 255.0L);
    aug_tensor_free(t);
    t = vec_i(AUG_UINT8, 70000, v);
    assert_true(reduce1(AUG_REDUCE_SUM, t, 1, AUG_UINT64).i == (i128)70000 * 255);
    aug_tensor_free(t);

    i128 big[3] = {INT64_MAX, INT64_MAX, 5};
    t = vec_i(AUG_INT64, 3, big);
    assert_true(reduce1(AUG_REDUCE_SUM, t, 0, AUG_INT64).i == INT64_MAX);
    assert_true(reduce1(AUG_REDUCE_SUM, t, 1, AUG_INT64).i == INT64_MAX);
    aug_tensor_free(t);
    i128 neg[2] = {INT64_MIN, -1};
    t = vec_i(AUG_INT64, 2, neg);
    assert_true(reduce1(AUG_REDUCE_SUM, t, 0, AUG_INT64).i == INT64_MIN);
    aug_tensor_free(t);
    i128 back[3] = {INT64_MAX, 1, -5}; /* the exact sum is in range: no intermediate clamp */
    t = vec_i(AUG_INT64, 3, back);
    assert_true(reduce1(AUG_REDUCE_SUM, t, 0, AUG_INT64).i == (i128)INT64_MAX - 4);
    aug_tensor_free(t);
    i128 u[2] = {UINT64_MAX, 1};
    t = vec_i(AUG_UINT64, 2, u);
    assert_true(reduce1(AUG_REDUCE_SUM, t, 1, AUG_UINT64).i == (i128)UINT64_MAX);
    assert_true(reduce1(AUG_REDUCE_MEAN, t, 0, AUG_FLOAT64).f == (long double)(0x1p63));
    aug_tensor_free(t);
    i128 i8v[3] = {-128, -128, 100};
    t = vec_i(AUG_INT8, 3, i8v);
    assert_true(reduce1(AUG_REDUCE_SUM, t, 0, AUG_INT8).i == -128);
    assert_true(reduce1(AUG_REDUCE_SUM, t, 1, AUG_INT64).i == -156);
    aug_tensor_free(t);
    i128 bv[3] = {1, 1, 1};
    t = vec_i(AUG_BOOL, 3, bv);
    assert_true(reduce1(AUG_REDUCE_SUM, t, 0, AUG_BOOL).i == 1);
    assert_true(reduce1(AUG_REDUCE_SUM, t, 1, AUG_UINT64).i == 3);
    assert_true(reduce1(AUG_REDUCE_MEAN, t, 0, AUG_FLOAT64).f == 1.0L);
    aug_tensor_free(t);
    free(v);

    /* float32: a float64 sum beyond the float32 range rounds to inf as IEEE does
     * (semantics §10, issue 11); an `out` of another dtype would saturate. */
    int64_t two = 2;
    t = mk(AUG_FLOAT32, 1, &two);
    ((float *)aug_tensor_ptr(t))[0] = 3e38f;
    ((float *)aug_tensor_ptr(t))[1] = 3e38f;
    assert_true(reduce1(AUG_REDUCE_SUM, t, 0, AUG_FLOAT32).f == INFINITY);
    int64_t none = 1;
    aug_tensor *o16 = aug_tensor_empty(0, &none, AUG_FLOAT16, aug_cpu_device());
    assert_int_equal(aug_reduce(AUG_REDUCE_SUM, t, -1, NULL, 0, 0, &o16), AUG_OK);
    assert_true(get(AUG_FLOAT16, aug_tensor_ptr(o16)).f == 65504.0L); /* out of another dtype: saturates */
    aug_tensor_free(o16);
    assert_true(reduce1(AUG_REDUCE_SUM, t, 1, AUG_FLOAT64).f == (long double)((double)3e38f * 2.0));
    aug_tensor_free(t);
    /* -0.0 is kept */
    t = mk(AUG_FLOAT64, 1, &two);
    ((double *)aug_tensor_ptr(t))[0] = -0.0;
    ((double *)aug_tensor_ptr(t))[1] = -0.0;
    val z = reduce1(AUG_REDUCE_SUM, t, 0, AUG_FLOAT64);
    assert_true(z.f == 0 && signbit(z.f));
    aug_tensor_free(t);
}

static void expect_error(aug_status st, aug_status want, const char *text) {
    assert_int_equal(st, want);
    if (strcmp(aug_last_error(), text) != 0) fail_msg("error text \"%s\", want \"%s\"", aug_last_error(), text);
}

static void test_empty(void **state) {
    (void)state;
    int64_t z = 0;
    aug_tensor *e = mk(AUG_FLOAT32, 1, &z), *out = NULL;
    assert_true(reduce1(AUG_REDUCE_SUM, e, 0, AUG_FLOAT32).f == 0);
    assert_true(reduce1(AUG_REDUCE_SUM, e, 1, AUG_FLOAT64).f == 0);
    val m = reduce1(AUG_REDUCE_MEAN, e, 0, AUG_FLOAT32);
    assert_true(m.f != m.f);
    assert_true(reduce1(AUG_REDUCE_ALL, e, 0, AUG_BOOL).i == 1);
    assert_true(reduce1(AUG_REDUCE_ANY, e, 0, AUG_BOOL).i == 0);
    expect_error(aug_reduce(AUG_REDUCE_MIN, e, -1, NULL, 0, 0, &out), AUG_ERR_VALUE,
                 "aug_min: zero-size tensor to reduction operation min which has no identity");
    expect_error(aug_reduce(AUG_REDUCE_MAX, e, -1, NULL, 0, 0, &out), AUG_ERR_VALUE,
                 "aug_max: zero-size tensor to reduction operation max which has no identity");
    assert_null(out);
    aug_tensor_free(e);

    static const int ax0[] = {0}, ax1[] = {1};
    int64_t s30[2] = {3, 0};
    e = mk(AUG_INT32, 2, s30);
    run_check("empty (3,0) axis 1", AUG_REDUCE_SUM, e, 1, ax1, 0, 0);
    run_check("empty (3,0) axis 1", AUG_REDUCE_MEAN, e, 1, ax1, 1, 0);
    run_check("empty (3,0) axis 1", AUG_REDUCE_ALL, e, 1, ax1, 0, 0);
    run_check("empty (3,0) axis 0", AUG_REDUCE_MIN, e, 1, ax0, 0, 0); /* empty result: no error */
    expect_error(aug_reduce(AUG_REDUCE_MIN, e, 1, ax1, 0, 0, &out), AUG_ERR_VALUE,
                 "aug_min: zero-size tensor to reduction operation min which has no identity");
    assert_null(out);
    aug_tensor_free(e);
}

static void test_zero_dim(void **state) {
    (void)state;
    aug_tensor *t = mk(AUG_INT16, 0, NULL), *out = NULL;
    *(int16_t *)aug_tensor_ptr(t) = -7;
    assert_true(reduce1(AUG_REDUCE_SUM, t, 0, AUG_INT16).i == -7);
    assert_true(reduce1(AUG_REDUCE_SUM, t, 1, AUG_INT64).i == -7);
    assert_true(reduce1(AUG_REDUCE_MIN, t, 0, AUG_INT16).i == -7);
    assert_true(reduce1(AUG_REDUCE_MEAN, t, 0, AUG_FLOAT64).f == -7.0L);
    assert_true(reduce1(AUG_REDUCE_ALL, t, 0, AUG_BOOL).i == 1);
    assert_int_equal(aug_reduce(AUG_REDUCE_MAX, t, 0, NULL, 1, 0, &out), AUG_OK);
    assert_int_equal(out->ndim, 0);
    assert_int_equal(*(int16_t *)aug_tensor_ptr(out), -7);
    aug_tensor_free(out);
    out = NULL;
    static const int ax0[] = {0};
    expect_error(aug_reduce(AUG_REDUCE_SUM, t, 1, ax0, 0, 0, &out), AUG_ERR_VALUE,
                 "aug_sum: axis 0 is out of bounds for tensor of dimension 0");
    aug_tensor_free(t);
}

static void test_nan_and_inf(void **state) {
    (void)state;
    static const aug_dtype fts[] = {AUG_FLOAT16, AUG_BFLOAT16, AUG_FLOAT32, AUG_FLOAT64};
    static const int ax1[] = {1};
    const int64_t sizes[] = {100, 66000};
    for (size_t f = 0; f < 4; f++) {
        for (size_t s = 0; s < 2; s++) {
            int64_t n = sizes[s];
            const int64_t where[3] = {0, n / 2 + 1, n - 1};
            for (int w = 0; w < 3; w++) {
                aug_tensor *t = mk(fts[f], 1, &n);
                fill_random(t, 0);
                put(fts[f], (char *)aug_tensor_ptr(t) + where[w] * isize(fts[f]), 0, NAN);
                ref *r = ref_of(t, -1, NULL);
                for (int k = 0; k < 6; k++) run_check_ref("nan", OPS[k], t, -1, NULL, 0, 0, r);
                free(r);
                aug_tensor_free(t);
            }
        }
        /* one NaN row of a 2-D tensor only poisons that row */
        int64_t s2[2] = {4, 70000};
        aug_tensor *t = mk(fts[f], 2, s2);
        fill_random(t, 0);
        put(fts[f], (char *)aug_tensor_ptr(t) + (2 * 70000 + 12345) * isize(fts[f]), 0, NAN);
        put(fts[f], (char *)aug_tensor_ptr(t) + (1 * 70000 + 5) * isize(fts[f]), 0, INFINITY);
        put(fts[f], (char *)aug_tensor_ptr(t) + (3 * 70000 + 5) * isize(fts[f]), 0, -INFINITY);
        ref *r = ref_of(t, 1, ax1);
        for (int k = 0; k < 6; k++) run_check_ref("nan row", OPS[k], t, 1, ax1, 0, 0, r);
        free(r);
        aug_tensor_free(t);
        /* inf + -inf = NaN */
        int64_t two = 2;
        t = mk(fts[f], 1, &two);
        put(fts[f], aug_tensor_ptr(t), 0, INFINITY);
        put(fts[f], (char *)aug_tensor_ptr(t) + isize(fts[f]), 0, -INFINITY);
        val v = reduce1(AUG_REDUCE_SUM, t, 0, fts[f]);
        assert_true(v.f != v.f);
        assert_true(reduce1(AUG_REDUCE_MAX, t, 0, fts[f]).f == INFINITY);
        assert_true(reduce1(AUG_REDUCE_MIN, t, 0, fts[f]).f == -INFINITY);
        aug_tensor_free(t);
    }
}

/* Byte-identical results for 1, 2 and 5 threads. */
static void test_thread_count_independence(void **state) {
    (void)state;
    static const int ax0[] = {0}, ax1[] = {1};
    int64_t n = 1000000, sq[2] = {1000, 1000}, wide[2] = {4, 300000};
    aug_tensor *ins[3] = {mk(AUG_FLOAT32, 1, &n), mk(AUG_FLOAT32, 2, sq), mk(AUG_FLOAT32, 2, wide)};
    for (int i = 0; i < 3; i++) fill_random(ins[i], 0);
    struct { int in; int naxes; const int *axes; int upcast; } cases[] = {
        {0, -1, NULL, 0}, {0, -1, NULL, 1}, {1, 1, ax0, 0}, {1, 1, ax1, 1}, {2, 1, ax1, 1}, {2, 1, ax0, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        aug_tensor *first = NULL;
        const int threads[3] = {1, 2, 5};
        for (int k = 0; k < 3; k++) {
            assert_int_equal(aug_set_num_threads(threads[k]), AUG_OK);
            aug_tensor *out = NULL;
            if (aug_reduce(AUG_REDUCE_SUM, ins[cases[c].in], cases[c].naxes, cases[c].axes, 0, cases[c].upcast, &out))
                fail_msg("%s", aug_last_error());
            if (!first) {
                first = out;
                continue;
            }
            size_t bytes = (size_t)(aug_tensor_size(out) * isize(out->dtype));
            if (memcmp(aug_tensor_ptr(first), aug_tensor_ptr(out), bytes) != 0)
                fail_msg("case %zu differs with %d threads", c, threads[k]);
            aug_tensor_free(out);
        }
        aug_tensor_free(first);
    }
    aug_set_num_threads(0);
    run_check("1e6 float32 sum", AUG_REDUCE_SUM, ins[0], -1, NULL, 0, 1);
    for (int i = 0; i < 3; i++) aug_tensor_free(ins[i]);
}

static void test_errors(void **state) {
    (void)state;
    int64_t s2[2] = {2, 3};
    aug_tensor *t = mk(AUG_FLOAT32, 2, s2), *out = NULL;
    fill_random(t, 0);
    static const int a3[] = {3}, am3[] = {-3}, dup[] = {1, -1}, ok1[] = {1};
    expect_error(aug_reduce(AUG_REDUCE_SUM, t, 1, a3, 0, 0, &out), AUG_ERR_VALUE,
                 "aug_sum: axis 3 is out of bounds for tensor of dimension 2");
    expect_error(aug_reduce(AUG_REDUCE_MEAN, t, 1, am3, 0, 0, &out), AUG_ERR_VALUE,
                 "aug_mean: axis -3 is out of bounds for tensor of dimension 2");
    expect_error(aug_reduce(AUG_REDUCE_MAX, t, 2, dup, 0, 0, &out), AUG_ERR_VALUE,
                 "aug_max: duplicate value in 'axis'");
    assert_int_equal(aug_reduce(AUG_REDUCE_ANY, t, 2, NULL, 0, 0, &out), AUG_ERR_VALUE);
    assert_non_null(strstr(aug_last_error(), "aug_any: "));
    assert_int_equal(aug_reduce(AUG_REDUCE_ALL, NULL, -1, NULL, 0, 0, &out), AUG_ERR_VALUE);
    assert_non_null(strstr(aug_last_error(), "aug_all: "));
    assert_non_null(strstr(aug_last_error(), "NULL"));
    expect_error(aug_reduce(AUG_REDUCE_MIN, t, -1, NULL, 0, 0, NULL), AUG_ERR_VALUE, "aug_min: out is NULL");
    expect_error(aug_reduce((aug_reduce_op)99, t, -1, NULL, 0, 0, &out), AUG_ERR_VALUE,
                 "aug_reduce: invalid reduction op 99");
    assert_null(out);

    int64_t s3 = 3, s21[2] = {2, 1};
    aug_tensor *bad = mk(AUG_FLOAT32, 1, &s3), *bad2 = mk(AUG_FLOAT32, 2, s21), *keep = bad;
    expect_error(aug_reduce(AUG_REDUCE_SUM, t, 1, ok1, 0, 0, &bad), AUG_ERR_VALUE,
                 "aug_sum: out has shape (3,) but the reduction result has shape (2,)");
    assert_ptr_equal(bad, keep);
    expect_error(aug_reduce(AUG_REDUCE_SUM, t, 1, ok1, 0, 0, &bad2), AUG_ERR_VALUE,
                 "aug_sum: out has shape (2, 1) but the reduction result has shape (2,)");
    assert_int_equal(aug_reduce(AUG_REDUCE_SUM, t, 1, ok1, 1, 0, &bad2), AUG_OK); /* keepdim matches */
    int64_t one = 1;
    aug_tensor *o1 = mk(AUG_FLOAT32, 1, &one), *bcast = aug_tensor_broadcast_to(o1, 1, &s2[0]);
    assert_non_null(bcast);
    expect_error(aug_reduce(AUG_REDUCE_SUM, t, 1, ok1, 0, 0, &bcast), AUG_ERR_VALUE,
                 "aug_sum: out is a broadcast view (stride 0 on dim 0) and cannot be written");
    aug_tensor_free(bcast);
    aug_tensor_free(o1);
    aug_tensor_free(bad);
    aug_tensor_free(bad2);
    aug_tensor_free(t);
}

static void test_given_out(void **state) {
    (void)state;
    static const int ax1[] = {1}, ax0[] = {0};
    int64_t s2[2] = {2, 3}, two = 2, four = 4;
    aug_tensor *t = mk(AUG_UINT8, 2, s2);
    const uint8_t vals[6] = {200, 200, 200, 1, 2, 3};
    memcpy(aug_tensor_ptr(t), vals, 6);
    /* the exact sum is saturate-cast into the given out's dtype */
    aug_tensor *o8 = mk(AUG_INT8, 1, &two), *o16 = mk(AUG_UINT16, 1, &two), *of = mk(AUG_FLOAT32, 1, &two);
    assert_int_equal(aug_reduce(AUG_REDUCE_SUM, t, 1, ax1, 0, 0, &o8), AUG_OK);
    assert_int_equal(((int8_t *)aug_tensor_ptr(o8))[0], 127);
    assert_int_equal(((int8_t *)aug_tensor_ptr(o8))[1], 6);
    assert_int_equal(aug_reduce(AUG_REDUCE_SUM, t, 1, ax1, 0, 0, &o16), AUG_OK);
    assert_int_equal(((uint16_t *)aug_tensor_ptr(o16))[0], 600);
    assert_int_equal(aug_reduce(AUG_REDUCE_MEAN, t, 1, ax1, 0, 0, &of), AUG_OK);
    assert_true(((float *)aug_tensor_ptr(of))[0] == 200.0f && ((float *)aug_tensor_ptr(of))[1] == 2.0f);
    assert_int_equal(aug_reduce(AUG_REDUCE_MEAN, t, 1, ax1, 0, 0, &o8), AUG_OK); /* mean into int8: rounds */
    assert_int_equal(((int8_t *)aug_tensor_ptr(o8))[0], 127);
    assert_int_equal(((int8_t *)aug_tensor_ptr(o8))[1], 2);

    /* a strided out: every other element of a (4,) tensor */
    aug_tensor *base = mk(AUG_INT32, 1, &four);
    memset(aug_tensor_ptr(base), 0xff, 16);
    aug_index ev = sl(0, 0, 2, 0, 0);
    aug_tensor *sv = aug_tensor_index(base, 1, &ev);
    assert_non_null(sv);
    assert_int_equal(aug_reduce(AUG_REDUCE_SUM, t, 1, ax1, 0, 0, &sv), AUG_OK);
    const int32_t *b = aug_tensor_ptr(base);
    assert_int_equal(b[0], 600);
    assert_int_equal(b[1], -1);
    assert_int_equal(b[2], 6);
    assert_int_equal(b[3], -1);

    /* out aliasing the input: column sums written into row 0 of the input */
    int64_t s33[2] = {3, 3};
    aug_tensor *a = mk(AUG_FLOAT64, 2, s33);
    double *ap = aug_tensor_ptr(a);
    for (int k = 0; k < 9; k++) ap[k] = k + 1;
    aug_index row0[1];
    memset(row0, 0, sizeof row0);
    row0[0].kind = AUG_INDEX_INT;
    row0[0].i = 0;
    aug_tensor *r0 = aug_tensor_index(a, 1, row0);
    assert_non_null(r0);
    assert_int_equal(aug_reduce(AUG_REDUCE_SUM, a, 1, ax0, 0, 0, &r0), AUG_OK);
    assert_true(ap[0] == 12 && ap[1] == 15 && ap[2] == 18);
    assert_true(ap[3] == 4 && ap[8] == 9);

    aug_tensor_free(r0);
    aug_tensor_free(a);
    aug_tensor_free(sv);
    aug_tensor_free(base);
    aug_tensor_free(o8);
    aug_tensor_free(o16);
    aug_tensor_free(of);
    aug_tensor_free(t);
}

/* min/max order -0.0 before +0.0 whatever the visiting order; row (one output at a
 * time) and column (tiles of outputs) traversals give identical bytes. */
static void test_signed_zero_and_traversal_order(void **state) {
    (void)state;
    static const aug_dtype fts[] = {AUG_FLOAT16, AUG_BFLOAT16, AUG_FLOAT32, AUG_FLOAT64};
    static const int ax0[] = {0}, ax1[] = {1};
    const int perm[2] = {1, 0};
    for (size_t f = 0; f < 4; f++) {
        int64_t two = 2;
        aug_tensor *t = mk(fts[f], 1, &two);
        char *p = aug_tensor_ptr(t);
        for (int order = 0; order < 2; order++) {
            put(fts[f], p + order * isize(fts[f]), 0, 0.0);
            put(fts[f], p + (1 - order) * isize(fts[f]), 0, -0.0);
            val mn = reduce1(AUG_REDUCE_MIN, t, 0, fts[f]), mx = reduce1(AUG_REDUCE_MAX, t, 0, fts[f]);
            assert_true(mn.f == 0 && signbit(mn.f));
            assert_true(mx.f == 0 && !signbit(mx.f));
            assert_true(reduce1(AUG_REDUCE_ANY, t, 0, AUG_BOOL).i == 0);
        }
        aug_tensor_free(t);

        /* X (300, 70) reduced over axis 0 walks columns; the packed transpose reduced
         * over axis 1 walks rows: same elements, same order, same bytes. Likewise
         * for a reduction longer than a chunk. */
        const int64_t shapes[2][2] = {{300, 70}, {70000, 3}};
        for (int sh = 0; sh < 2; sh++) {
            aug_tensor *x = mk(fts[f], 2, shapes[sh]);
            fill_random(x, 0);
            aug_tensor *xt = aug_tensor_permute(x, perm);
            aug_tensor *xtc = aug_tensor_contiguous(xt);
            assert_non_null(xtc);
            for (int k = 0; k < 6; k++) {
                aug_tensor *a = NULL, *b = NULL;
                assert_int_equal(aug_reduce(OPS[k], x, 1, ax0, 0, 0, &a), AUG_OK);
                assert_int_equal(aug_reduce(OPS[k], xtc, 1, ax1, 0, 0, &b), AUG_OK);
                assert_int_equal(a->shape[0], b->shape[0]);
                if (memcmp(aug_tensor_ptr(a), aug_tensor_ptr(b), (size_t)(a->shape[0] * isize(a->dtype))))
                    fail_msg("%s %s: column and row traversals differ", aug_dtype_name(fts[f]), OP_NAMES[k]);
                aug_tensor_free(a);
                aug_tensor_free(b);
            }
            aug_tensor_free(xtc);
            aug_tensor_free(xt);
            aug_tensor_free(x);
        }
    }
}

/* One 8-bit sum at every level this CPU runs against a naive sum. */
static void check_sum8(const uint8_t *p, int64_t len, aug_dtype dt, int off, int fill) {
    int64_t want = 0;
    for (int64_t k = 0; k < len; k++) want += dt == AUG_BOOL ? p[k] != 0 : dt == AUG_INT8 ? (int8_t)p[k] : p[k];
    for (int level = AUG__SIMD_NONE; level <= aug__simd_cpu_level(); level++) {
        int64_t got = aug__cpu_sum8(p, len, dt, level);
        if (got != want)
            fail_msg("sum8 dtype %d level %d len %lld off %d fill %d: %lld != %lld", (int)dt, level,
                     (long long)len, off, fill, (long long)got, (long long)want);
    }
}

/* Every 8-bit sum path this CPU runs (portable, SSE2, AVX2, AVX-512) against a naive sum:
 * every length 0..600 (all vector/tail splits of the 16-, 32-, 64-, 128- and 256-byte
 * loops) from 32 start offsets, plus long runs, over random bytes (with zeros) and
 * constant runs of the extremes. */
static void test_sum8_paths(void **state) {
    (void)state;
    enum { MAXN = 200000, PAD = 32 };
    uint8_t *buf = malloc(MAXN + PAD);
    assert_non_null(buf);
    const aug_dtype dts[3] = {AUG_BOOL, AUG_INT8, AUG_UINT8};
    const int fills[] = {-1, 0x00, 0x01, 0x7f, 0x80, 0xff}; /* -1: random */
    const int64_t longs[] = {4095, 4097, 65536, 65537, MAXN};
    for (size_t f = 0; f < sizeof fills / sizeof fills[0]; f++) {
        for (int k = 0; k < MAXN + PAD; k++) buf[k] = fills[f] < 0 ? (uint8_t)rnd() : (uint8_t)fills[f];
        if (fills[f] < 0)
            for (int k = 0; k < 400; k += 7) buf[k] = 0; /* zeros for the bool count */
        for (int d = 0; d < 3; d++) {
            for (int64_t len = 0; len <= 600; len++)
                for (int off = 0; off < PAD; off++) check_sum8(buf + off, len, dts[d], off, fills[f]);
            for (size_t l = 0; l < sizeof longs / sizeof longs[0]; l++)
                for (int off = 0; off < PAD; off += 9) check_sum8(buf + off, longs[l], dts[d], off, fills[f]);
        }
    }
    free(buf);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_dtype_and_axis_set),
        cmocka_unit_test(test_strided_and_broadcast),
        cmocka_unit_test(test_large_chunked),
        cmocka_unit_test(test_saturation),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_zero_dim),
        cmocka_unit_test(test_nan_and_inf),
        cmocka_unit_test(test_thread_count_independence),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_given_out),
        cmocka_unit_test(test_signed_zero_and_traversal_order),
        cmocka_unit_test(test_sum8_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
