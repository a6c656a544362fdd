/* test_iter.c: the strided iteration engine, directly (aug__iter_run with test
 * kernels and conversions) and through aug_copy / aug_fill / aug_cast: strided,
 * negative-step, broadcast, transposed and overlapping operands checked element
 * by element against reference loops, and byte-identical results for 1, 2 and 7
 * threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "aug/aug.h"
#include "cpu/iter.h"
#include "core/tensor_impl.h"

#define CPU aug_cpu_device()
#define ERR_IS(st_expr, code, text)                                    \
    do {                                                               \
        aug_clear_error();                                             \
        assert_int_equal((st_expr), (code));                           \
        assert_string_equal(aug_last_error(), (text));                 \
    } while (0)

/* ---- helpers ------------------------------------------------------------------- */

static aug_tensor *make(int ndim, const int64_t *shape, aug_dtype dt) {
    aug_tensor *t = aug_tensor_empty(ndim, shape, dt, CPU);
    assert_non_null(t);
    return t;
}

static char *elem_ptr(const aug_tensor *t, const int64_t *idx) {
    int64_t off = t->byte_offset;
    for (int d = 0; d < t->ndim; d++) off += idx[d] * t->strides[d] * aug_tensor_itemsize(t);
    return t->data + off;
}

/* Multi-index of C-order position k in shape; idx of t's broadcast source. */
static void unravel(int64_t k, int ndim, const int64_t *shape, int64_t *idx) {
    for (int d = ndim - 1; d >= 0; d--) {
        idx[d] = k % shape[d];
        k /= shape[d];
    }
}
static void src_index(const aug_tensor *src, const aug_tensor *dst, const int64_t *di, int64_t *si) {
    int lead = dst->ndim - src->ndim;
    for (int d = 0; d < src->ndim; d++) si[d] = src->shape[d] == 1 ? 0 : di[d + lead];
}

/* Value of an element as double (all test values are exact in double). */
static double get(const aug_tensor *t, const int64_t *idx) {
    const char *p = elem_ptr(t, idx);
    switch (t->dtype) {
    case AUG_UINT8: return *(const uint8_t *)p;
    case AUG_INT8: return *(const int8_t *)p;
    case AUG_INT16: return *(const int16_t *)p;
    case AUG_INT32: return *(const int32_t *)p;
    case AUG_INT64: return (double)*(const int64_t *)p;
    case AUG_FLOAT32: return *(const float *)p;
    case AUG_FLOAT64: return *(const double *)p;
    default: fail_msg("unexpected dtype");
    }
    return 0;
}
static void fill_pattern(aug_tensor *t, int seed) {
    int64_t n = aug_tensor_size(t), idx[AUG_MAX_DIMS];
    for (int64_t k = 0; k < n; k++) {
        unravel(k, t->ndim, t->shape, idx);
        char *p = elem_ptr(t, idx);
        int64_t v = (k * 7919 + seed * 104729) % 1000 - 500; /* -500 ... 499 */
        switch (t->dtype) {
        case AUG_UINT8: *(uint8_t *)p = (uint8_t)(v & 0xff); break;
        case AUG_INT8: *(int8_t *)p = (int8_t)(v % 128); break;
        case AUG_INT16: *(int16_t *)p = (int16_t)(v * 61); break;
        case AUG_INT32: *(int32_t *)p = (int32_t)(v * 4000001); break;
        case AUG_INT64: *(int64_t *)p = v * INT64_C(18014398509481); break;
        case AUG_FLOAT32: *(float *)p = (float)v * 0.75f; break;
        case AUG_FLOAT64: *(double *)p = (double)v * 1.25; break;
        default: fail_msg("unexpected dtype");
        }
    }
}
/* saturate_cast of an exact double to an integer dtype (round half to even). */
static double sat(double v, aug_dtype dt) {
    double lo, hi;
    switch (dt) {
    case AUG_UINT8: lo = 0, hi = 255; break;
    case AUG_INT8: lo = -128, hi = 127; break;
    case AUG_INT16: lo = -32768, hi = 32767; break;
    case AUG_INT32: lo = -2147483648.0, hi = 2147483647.0; break;
    case AUG_FLOAT32: return (double)(float)v;
    case AUG_FLOAT64: return v;
    default: fail_msg("unexpected dtype"); return 0;
    }
    if (isnan(v)) return 0;
    v = nearbyint(v);
    return v < lo ? lo : v > hi ? hi : v;
}

/* dst == saturate_cast(src broadcast), element by element. */
static void check_copy(const aug_tensor *src_before, const aug_tensor *dst) {
    int64_t n = aug_tensor_size(dst), di[AUG_MAX_DIMS], si[AUG_MAX_DIMS];
    for (int64_t k = 0; k < n; k++) {
        unravel(k, dst->ndim, dst->shape, di);
        src_index(src_before, dst, di, si);
        double want = sat(get(src_before, si), dst->dtype), got = get(dst, di);
        if (want != got) fail_msg("element %lld: want %g got %g", (long long)k, want, got);
    }
}

/* ---- aug_copy ------------------------------------------------------------------ */

static void test_copy_negative_step_cast(void **state) {
    (void)state;
    int64_t shape[2] = {37, 41};
    aug_tensor *src = make(2, shape, AUG_INT16);
    fill_pattern(src, 1);
    aug_index ix[2] = {{.kind = AUG_INDEX_SLICE, .step = -3}, {.kind = AUG_INDEX_SLICE, .start = 30, .has_start = 1, .step = -2}};
    aug_tensor *v = aug_tensor_index(src, 2, ix);
    aug_tensor *dst = make(v->ndim, v->shape, AUG_UINT8);
    assert_int_equal(aug_copy(v, dst), AUG_OK);
    check_copy(v, dst);
    aug_tensor_free(dst);
    dst = make(v->ndim, v->shape, AUG_FLOAT32);
    assert_int_equal(aug_copy(v, dst), AUG_OK);
    check_copy(v, dst);
    aug_tensor_free(dst);
    aug_tensor_free(v);
    aug_tensor_free(src);
}

static void test_copy_float_to_int(void **state) {
    (void)state;
    const float in[] = {2.5f, -2.5f, 3.5f, 0.5f, -0.5f, 1e10f, -1e10f, NAN, INFINITY, -INFINITY, 127.5f, -128.5f, 126.5f};
    int64_t n = sizeof in / sizeof *in;
    aug_tensor *src = make(1, &n, AUG_FLOAT32);
    memcpy(aug_tensor_ptr(src), in, sizeof in);
    aug_tensor *dst = make(1, &n, AUG_INT8);
    assert_int_equal(aug_copy(src, dst), AUG_OK);
    const int8_t want[] = {2, -2, 4, 0, 0, 127, -128, 0, 127, -128, 127, -128, 126};
    assert_memory_equal(aug_tensor_ptr(dst), want, sizeof want);
    aug_tensor_free(dst);
    aug_tensor_free(src);
}

static void test_copy_broadcast_transposed(void **state) {
    (void)state;
    int64_t s31[2] = {3, 1}, s234[3] = {2, 3, 4};
    aug_tensor *src = make(2, s31, AUG_INT32);
    fill_pattern(src, 2);
    aug_tensor *dst = make(3, s234, AUG_INT16);
    assert_int_equal(aug_copy(src, dst), AUG_OK);
    check_copy(src, dst);
    aug_tensor_free(dst);
    aug_tensor_free(src);

    /* transposed source into a packed destination, and the reverse */
    int64_t s[3] = {5, 70, 300};
    aug_tensor *a = make(3, s, AUG_FLOAT64);
    fill_pattern(a, 3);
    int perm[3] = {2, 0, 1};
    aug_tensor *at = aug_tensor_permute(a, perm);
    aug_tensor *d = make(3, at->shape, AUG_INT32);
    assert_int_equal(aug_copy(at, d), AUG_OK);
    check_copy(at, d);
    aug_tensor *dt = aug_tensor_permute(d, (int[3]){1, 2, 0}); /* (5, 70, 300) view of d */
    aug_tensor *c = make(3, s, AUG_UINT8);
    fill_pattern(c, 4);
    assert_int_equal(aug_copy(c, dt), AUG_OK);
    check_copy(c, dt);
    aug_tensor_free(c);
    aug_tensor_free(dt);
    aug_tensor_free(d);
    aug_tensor_free(at);
    aug_tensor_free(a);

    /* a transposed source walked in tiles: the closely strided dimension is the
     * outermost one, extents are not multiples of the tile, one step is negative */
    int64_t sb[3] = {150, 7, 130};
    aug_tensor *base = make(3, sb, AUG_INT16);
    fill_pattern(base, 17);
    aug_tensor *tr = aug_tensor_permute(base, (int[3]){2, 1, 0}); /* (130, 7, 150) */
    aug_index flip[3] = {{.kind = AUG_INDEX_SLICE, .step = 1}, {.kind = AUG_INDEX_SLICE, .step = 1},
                         {.kind = AUG_INDEX_SLICE, .step = -1}};
    aug_tensor *trf = aug_tensor_index(tr, 3, flip);
    for (int k = 0; k < 2; k++) {
        aug_tensor *src = k ? trf : tr;
        aug_tensor *o8 = make(3, src->shape, AUG_INT8), *o16 = make(3, src->shape, AUG_INT16);
        assert_int_equal(aug_copy(src, o8), AUG_OK);
        check_copy(src, o8);
        assert_int_equal(aug_copy(src, o16), AUG_OK);
        check_copy(src, o16);
        aug_tensor_free(o8);
        aug_tensor_free(o16);
    }
    aug_tensor_free(trf);
    aug_tensor_free(tr);
    aug_tensor_free(base);
}

static void test_copy_eight_dims(void **state) {
    (void)state;
    int64_t s[8] = {2, 3, 1, 4, 2, 3, 2, 5};
    aug_tensor *a = make(8, s, AUG_INT16);
    fill_pattern(a, 5);
    int perm[8] = {7, 3, 0, 2, 5, 1, 6, 4};
    aug_tensor *p = aug_tensor_permute(a, perm);
    aug_index ix[3] = {{.kind = AUG_INDEX_ELLIPSIS}, {.kind = AUG_INDEX_SLICE, .step = -1}, {.kind = AUG_INDEX_SLICE, .step = -1}};
    aug_tensor *v = aug_tensor_index(p, 3, ix);
    aug_tensor *d = make(8, v->shape, AUG_INT8);
    assert_int_equal(aug_copy(v, d), AUG_OK);
    check_copy(v, d);
    aug_tensor_free(d);
    aug_tensor_free(v);
    aug_tensor_free(p);
    aug_tensor_free(a);
}

/* dst = src shifted by one element inside one buffer: the old values are copied. */
static void test_copy_overlap(void **state) {
    (void)state;
    for (int dir = 0; dir < 2; dir++) {
        int64_t n = 200003; /* several tasks */
        aug_tensor *a = make(1, &n, AUG_INT32);
        fill_pattern(a, 6);
        int32_t *old = malloc((size_t)n * sizeof *old);
        memcpy(old, aug_tensor_ptr(a), (size_t)n * sizeof *old);
        aug_index lo = {.kind = AUG_INDEX_SLICE, .stop = -1, .has_stop = 1, .step = 1};
        aug_index hi = {.kind = AUG_INDEX_SLICE, .start = 1, .has_start = 1, .step = 1};
        aug_tensor *s = aug_tensor_index(a, 1, dir ? &hi : &lo), *d = aug_tensor_index(a, 1, dir ? &lo : &hi);
        assert_int_equal(aug_copy(s, d), AUG_OK);
        const int32_t *now = aug_tensor_ptr(a);
        for (int64_t i = 0; i < n - 1; i++) assert_int_equal(now[dir ? i : i + 1], old[dir ? i + 1 : i]);
        assert_int_equal(now[dir ? n - 1 : 0], old[dir ? n - 1 : 0]);
        aug_tensor_free(s);
        aug_tensor_free(d);
        free(old);
        aug_tensor_free(a);
    }
    /* reversed onto itself: t[:] = t[::-1] */
    int64_t n = 1001;
    aug_tensor *a = make(1, &n, AUG_INT16);
    fill_pattern(a, 7);
    aug_tensor *keep = make(1, &n, AUG_INT16);
    assert_int_equal(aug_copy(a, keep), AUG_OK);
    aug_index rev = {.kind = AUG_INDEX_SLICE, .step = -1};
    aug_tensor *r = aug_tensor_index(a, 1, &rev);
    assert_int_equal(aug_copy(r, a), AUG_OK);
    const int16_t *k = aug_tensor_ptr(keep), *now = aug_tensor_ptr(a);
    for (int64_t i = 0; i < n; i++) assert_int_equal(now[i], k[n - 1 - i]);
    /* the identical view onto itself is a no-op */
    assert_int_equal(aug_copy(a, a), AUG_OK);
    for (int64_t i = 0; i < n; i++) assert_int_equal(now[i], k[n - 1 - i]);
    /* overlapping memory of another dtype: int16 pairs read as int32 into int16 */
    int64_t half = 500;
    aug_tensor *as32 = aug_tensor_from_storage(a->storage, 0, 1, &half, NULL, AUG_INT32);
    int32_t *exp32 = malloc(500 * sizeof *exp32);
    memcpy(exp32, aug_tensor_ptr(as32), 500 * sizeof *exp32);
    aug_index first = {.kind = AUG_INDEX_SLICE, .stop = 500, .has_stop = 1, .step = 1};
    aug_tensor *d16 = aug_tensor_index(a, 1, &first);
    assert_int_equal(aug_copy(as32, d16), AUG_OK);
    for (int i = 0; i < 500; i++) assert_int_equal(now[i], exp32[i] > 32767 ? 32767 : exp32[i] < -32768 ? -32768 : exp32[i]);
    free(exp32);
    aug_tensor_free(d16);
    aug_tensor_free(as32);
    aug_tensor_free(r);
    aug_tensor_free(keep);
    aug_tensor_free(a);
}

static void test_copy_errors(void **state) {
    (void)state;
    int64_t s3 = 3, s24[2] = {2, 4};
    aug_tensor *a = make(1, &s3, AUG_UINT8), *b = make(2, s24, AUG_UINT8);
    ERR_IS(aug_copy(a, b), AUG_ERR_VALUE, "aug_copy: cannot broadcast shape (3,) to (2, 4)");
    ERR_IS(aug_copy(b, a), AUG_ERR_VALUE, "aug_copy: cannot broadcast shape (2, 4) to (3,)");
    ERR_IS(aug_copy(NULL, b), AUG_ERR_VALUE, "aug_copy: tensor is NULL");
    ERR_IS(aug_copy(a, NULL), AUG_ERR_VALUE, "aug_copy: tensor is NULL");
    /* writing into a broadcast view would make the result depend on the thread count */
    aug_tensor *bv = aug_tensor_broadcast_to(a, 2, (int64_t[2]){2, 3});
    ERR_IS(aug_copy(b, bv), AUG_ERR_VALUE, "aug_copy: cannot broadcast shape (2, 4) to (2, 3)");
    int64_t s23[2] = {2, 3};
    aug_tensor *c = make(2, s23, AUG_UINT8);
    ERR_IS(aug_copy(c, bv), AUG_ERR_VALUE,
           "aug_copy: the output has a zero stride on axis 0, so several elements share one memory location; "
           "write to a contiguous tensor instead");
    aug_tensor_free(c);
    aug_tensor_free(bv);
    /* zero-size copies succeed without touching memory */
    int64_t z[2] = {0, 4};
    aug_tensor *e = make(2, z, AUG_UINT8);
    assert_int_equal(aug_copy(b, e) == AUG_OK ? 1 : 0, 0); /* (2,4) -> (0,4) is not a broadcast */
    aug_tensor *e1 = make(2, (int64_t[2]){0, 1}, AUG_UINT8);
    assert_int_equal(aug_copy(e1, e), AUG_OK);
    aug_tensor_free(e1);
    aug_tensor_free(e);
    aug_tensor_free(a);
    aug_tensor_free(b);
}

/* Outputs whose elements share memory are refused by every writer (the result would
 * depend on the thread count); distinct strided views are accepted. */
static void test_self_overlapping_out(void **state) {
    (void)state;
    int64_t n = 64;
    aug_tensor *base = make(1, &n, AUG_FLOAT32);
    memset(aug_tensor_ptr(base), 0, 64 * 4);
    int64_t s33[2] = {3, 3}, st11[2] = {1, 1};
    aug_tensor *ovl = aug_tensor_from_storage(base->storage, 0, 2, s33, st11, AUG_FLOAT32);
    assert_non_null(ovl);
    aug_tensor *src = make(2, s33, AUG_FLOAT32);
    memset(aug_tensor_ptr(src), 0, 9 * 4);
    const char *tail = "the output has self-overlapping strides (shape (3, 3), strides (1, 1)): axis 1 steps by 1 "
                       "elements but the axes with smaller strides span 3, so its elements may share memory and "
                       "the result would depend on the order of writes; write to a contiguous tensor instead";
    char want[400];
    snprintf(want, sizeof want, "aug_copy: %s", tail);
    ERR_IS(aug_copy(src, ovl), AUG_ERR_VALUE, want);
    aug_scalar one = aug_scalar_int(1);
    snprintf(want, sizeof want, "aug_fill: %s", tail);
    ERR_IS(aug_fill(ovl, &one), AUG_ERR_VALUE, want);
    aug_tensor *outp = ovl;
    aug_clear_error();
    assert_int_equal(aug_binary_scalar(AUG_OP_ADD, src, one, &outp), AUG_ERR_VALUE);
    assert_non_null(strstr(aug_last_error(), "self-overlapping strides"));
    int64_t s733[3] = {7, 3, 3};
    aug_tensor *r = make(3, s733, AUG_FLOAT32), *rout = ovl;
    memset(aug_tensor_ptr(r), 0, 63 * 4);
    aug_clear_error();
    assert_int_equal(aug_reduce(AUG_REDUCE_SUM, r, 1, (int[]){0}, 0, 0, &rout), AUG_ERR_VALUE);
    assert_non_null(strstr(aug_last_error(), "out has self-overlapping strides"));
    aug_rng *rng = aug_rng_new(CPU, &(uint64_t){1});
    aug_clear_error();
    assert_int_equal(aug_rng_uniform(rng, ovl, 0, 1), AUG_ERR_VALUE);
    assert_non_null(strstr(aug_last_error(), "aug_rng_uniform: target has self-overlapping strides"));
    for (int i = 0; i < 64; i++) assert_true(((float *)aug_tensor_ptr(base))[i] == 0.0f); /* nothing written */
    /* distinct: a transposed, stepped and flipped view of (6, 8) */
    int64_t sh[2] = {4, 3}, stv[2] = {-2, 16};
    aug_tensor *ok = aug_tensor_from_storage(base->storage, 4 * 6, 2, sh, stv, AUG_FLOAT32);
    assert_non_null(ok);
    aug_scalar two = aug_scalar_float(2.0);
    assert_int_equal(aug_fill(ok, &two), AUG_OK);
    int written = 0;
    for (int i = 0; i < 64; i++) written += ((float *)aug_tensor_ptr(base))[i] == 2.0f;
    assert_int_equal(written, 12);
    assert_int_equal(aug_rng_uniform(rng, ok, 0, 1), AUG_OK);
    aug_rng_free(rng);
    aug_tensor_free(ok);
    aug_tensor_free(r);
    aug_tensor_free(src);
    aug_tensor_free(ovl);
    aug_tensor_free(base);
}

/* ---- aug_fill and aug_cast ------------------------------------------------------ */

static void test_fill(void **state) {
    (void)state;
    int64_t s[2] = {4, 6};
    aug_tensor *t = make(2, s, AUG_INT16);
    memset(aug_tensor_ptr(t), 0, 48);
    aug_index ix[2] = {{.kind = AUG_INDEX_SLICE, .start = 1, .has_start = 1, .step = 2},
                       {.kind = AUG_INDEX_SLICE, .step = -3}};
    aug_tensor *v = aug_tensor_index(t, 2, ix);
    aug_scalar x = aug_scalar_int(100000);
    assert_int_equal(aug_fill(v, &x), AUG_OK);
    const int16_t *p = aug_tensor_ptr(t);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 6; j++) assert_int_equal(p[i * 6 + j], (i % 2 == 1 && j % 3 == 2) ? 32767 : 0);
    aug_tensor_free(v);

    x = aug_scalar_float(-3.5);
    assert_int_equal(aug_fill(t, &x), AUG_OK);
    for (int i = 0; i < 24; i++) assert_int_equal(p[i], -4);
    x = aug_scalar_uint(UINT64_MAX);
    assert_int_equal(aug_fill(t, &x), AUG_OK);
    for (int i = 0; i < 24; i++) assert_int_equal(p[i], 32767);
    x = aug_scalar_bool(1);
    assert_int_equal(aug_fill(t, &x), AUG_OK);
    for (int i = 0; i < 24; i++) assert_int_equal(p[i], 1);
    aug_tensor_free(t);

    /* int64 values beyond 2^53 stay exact */
    t = make(1, s, AUG_INT64);
    x = aug_scalar_int(INT64_MAX - 3);
    assert_int_equal(aug_fill(t, &x), AUG_OK);
    for (int i = 0; i < 4; i++) assert_true(((int64_t *)aug_tensor_ptr(t))[i] == INT64_MAX - 3);
    /* a typed scalar holds its dtype's value (here uint8 200) */
    x = (aug_scalar){.dtype = AUG_UINT8, .weak = 0, .v.u = 200};
    assert_int_equal(aug_fill(t, &x), AUG_OK);
    for (int i = 0; i < 4; i++) assert_true(((int64_t *)aug_tensor_ptr(t))[i] == 200);
    x = (aug_scalar){.dtype = AUG_FLOAT32, .weak = 0, .v.f = 1.5};
    assert_int_equal(aug_fill(t, &x), AUG_OK);
    for (int i = 0; i < 4; i++) assert_true(((int64_t *)aug_tensor_ptr(t))[i] == 2);
    ERR_IS(aug_fill(t, NULL), AUG_ERR_VALUE, "aug_fill: value is NULL");
    x.dtype = (aug_dtype)99;
    ERR_IS(aug_fill(t, &x), AUG_ERR_TYPE, "aug_fill: invalid scalar dtype 99");
    x = aug_scalar_int(1);
    ERR_IS(aug_fill(NULL, &x), AUG_ERR_VALUE, "aug_fill: tensor is NULL");
    aug_tensor_free(t);
}

static void test_cast(void **state) {
    (void)state;
    int64_t s[2] = {3, 4};
    aug_tensor *a = make(2, s, AUG_FLOAT64);
    fill_pattern(a, 8);
    aug_tensor_set_layout(a, "HW");
    aug_tensor *r = NULL;
    assert_int_equal(aug_cast(a, AUG_UINT8, &r), AUG_OK);
    assert_non_null(r);
    assert_int_equal(r->dtype, AUG_UINT8);
    assert_string_equal(r->layout, "HW");
    check_copy(a, r);
    aug_tensor *row = aug_tensor_index(a, 1, &(aug_index){.kind = AUG_INDEX_INT, .i = 1});
    assert_int_equal(aug_cast(row, AUG_DTYPE_AUTO, &r), AUG_OK); /* into *out, broadcasting */
    check_copy(row, r);
    ERR_IS(aug_cast(a, AUG_INT8, &r), AUG_ERR_TYPE, "aug_cast: dtype int8 does not match out's dtype uint8");
    ERR_IS(aug_cast(a, (aug_dtype)77, &r), AUG_ERR_TYPE, "aug_cast: invalid dtype 77");
    ERR_IS(aug_cast(a, AUG_INT8, NULL), AUG_ERR_VALUE, "aug_cast: out is NULL");
    ERR_IS(aug_cast(NULL, AUG_INT8, &r), AUG_ERR_VALUE, "aug_cast: tensor is NULL");
    aug_tensor *same = NULL;
    assert_int_equal(aug_cast(a, AUG_DTYPE_AUTO, &same), AUG_OK);
    assert_int_equal(same->dtype, AUG_FLOAT64);
    assert_memory_equal(aug_tensor_ptr(same), aug_tensor_ptr(a), 96);
    aug_tensor_free(same);
    aug_tensor_free(row);
    aug_tensor_free(r);
    aug_tensor_free(a);
}

/* ---- aug__iter_run with kernels ----------------------------------------------- */

static void add_f64(char **d, int64_t n, const int64_t *s, void *ctx) {
    for (int64_t i = 0; i < n; i++)
        *(double *)(d[2] + i * s[2]) = *(const double *)(d[0] + i * s[0]) + *(const double *)(d[1] + i * s[1]);
}
static void add_i128(char **d, int64_t n, const int64_t *s, void *ctx) {
    for (int64_t i = 0; i < n; i++) {
        aug__i128 a, b;
        memcpy(&a, d[0] + i * s[0], 16);
        memcpy(&b, d[1] + i * s[1], 16);
        a += b;
        memcpy(d[2] + i * s[2], &a, 16);
    }
}
/* a*b + c in float64, three inputs */
static void madd_f64(char **d, int64_t n, const int64_t *s, void *ctx) {
    for (int64_t i = 0; i < n; i++)
        *(double *)(d[3] + i * s[3]) = *(const double *)(d[0] + i * s[0]) * *(const double *)(d[1] + i * s[1]) +
                                       *(const double *)(d[2] + i * s[2]);
}
typedef struct seen {
    atomic_llong max_n;
    atomic_int bad_stride;
    int64_t want_stride;
} seen;
static void add_u8_record(char **d, int64_t n, const int64_t *s, void *ctx) {
    seen *r = ((aug__kernel_ctx *)ctx)->op;
    long long m = atomic_load(&r->max_n);
    while (n > m && !atomic_compare_exchange_weak(&r->max_n, &m, n)) {}
    for (int k = 0; k < 3; k++)
        if (s[k] != r->want_stride) atomic_store(&r->bad_stride, 1);
    for (int64_t i = 0; i < n; i++) {
        int v = (uint8_t)d[0][i * s[0]] + (uint8_t)d[1][i * s[1]];
        d[2][i * s[2]] = (char)(uint8_t)(v > 255 ? 255 : v);
    }
}

static aug__iter iter2(const aug_tensor *a, const aug_tensor *b, aug_tensor *out, int ct, aug__kernel k) {
    aug__iter it = {.func = "test", .nin = 2, .in = {a, b}, .in_ctype = {ct, ct}, .out = out, .out_ctype = ct,
                    .kernel = k};
    return it;
}

static void test_kernel_conversions(void **state) {
    (void)state;
    int64_t sa[2] = {50, 3000}, sb[1] = {3000};
    aug_tensor *a = make(2, sa, AUG_UINT8), *b = make(1, sb, AUG_INT16), *o = make(2, sa, AUG_INT8);
    fill_pattern(a, 9);
    fill_pattern(b, 10);
    aug__iter it = iter2(a, b, o, AUG_FLOAT64, add_f64);
    assert_int_equal(aug__iter_run(&it), AUG_OK);
    int64_t idx[2];
    for (int64_t k = 0; k < 150000; k++) {
        unravel(k, 2, sa, idx);
        assert_true(get(o, idx) == sat(get(a, idx) + get(b, idx + 1), AUG_INT8));
    }
    /* scalar 0-d storage-less input, float32 output through a float64 kernel */
    double three = 3.25;
    aug_tensor sc;
    aug__tensor_0d(&sc, &three, AUG_FLOAT64);
    aug_tensor *of = make(2, sa, AUG_FLOAT32);
    it = iter2(a, &sc, of, AUG_FLOAT64, add_f64);
    assert_int_equal(aug__iter_run(&it), AUG_OK);
    for (int64_t k = 0; k < 150000; k += 7) {
        unravel(k, 2, sa, idx);
        assert_true(get(of, idx) == get(a, idx) + 3.25);
    }
    /* three inputs, broadcast in different dims */
    int64_t sc1[2] = {50, 1};
    aug_tensor *c = make(2, sc1, AUG_INT32);
    fill_pattern(c, 11);
    aug__iter it3 = {.func = "test", .nin = 3, .in = {a, b, c}, .in_ctype = {AUG_FLOAT64, AUG_FLOAT64, AUG_FLOAT64},
                     .out = of, .out_ctype = AUG_FLOAT64, .kernel = madd_f64};
    assert_int_equal(aug__iter_run(&it3), AUG_OK);
    for (int64_t k = 0; k < 150000; k += 5) {
        unravel(k, 2, sa, idx);
        int64_t ci[2] = {idx[0], 0};
        assert_true(get(of, idx) == (double)(float)(get(a, idx) * get(b, idx + 1) + get(c, ci)));
    }
    aug_tensor_free(c);
    aug_tensor_free(of);
    aug_tensor_free(a);
    aug_tensor_free(b);
    aug_tensor_free(o);

    /* exact i128 compute type: int64 max + int64 max saturates on store */
    int64_t n = 5;
    aug_tensor *x = make(1, &n, AUG_INT64), *y = make(1, &n, AUG_INT64), *z = make(1, &n, AUG_INT64);
    int64_t xv[5] = {INT64_MAX, INT64_MIN, -5, INT64_MAX, 7}, yv[5] = {INT64_MAX, -1, 3, INT64_MIN, 8};
    memcpy(aug_tensor_ptr(x), xv, sizeof xv);
    memcpy(aug_tensor_ptr(y), yv, sizeof yv);
    it = iter2(x, y, z, AUG__I128, add_i128);
    assert_int_equal(aug__iter_run(&it), AUG_OK);
    int64_t zv[5] = {INT64_MAX, INT64_MIN, -2, -1, 15};
    assert_memory_equal(aug_tensor_ptr(z), zv, sizeof zv);
    aug_tensor_free(x);
    aug_tensor_free(y);
    aug_tensor_free(z);
}

static void test_kernel_fast_path(void **state) {
    (void)state;
    int64_t s[2] = {300, 1000};
    aug_tensor *a = make(2, s, AUG_UINT8), *b = make(2, s, AUG_UINT8), *o = make(2, s, AUG_UINT8);
    fill_pattern(a, 12);
    fill_pattern(b, 13);
    seen r = {.want_stride = 1};
    aug__iter it = iter2(a, b, o, AUG_UINT8, add_u8_record);
    it.ctx = &r;
    assert_int_equal(aug__iter_run(&it), AUG_OK);
    assert_int_equal(atomic_load(&r.bad_stride), 0);     /* contiguous runs: stride == itemsize */
    assert_true(atomic_load(&r.max_n) > 1024);            /* whole runs, not blocks, without conversion */
    int64_t idx[2];
    for (int64_t k = 0; k < 300000; k += 3) {
        unravel(k, 2, s, idx);
        double v = get(a, idx) + get(b, idx);
        assert_true(get(o, idx) == (v > 255 ? 255 : v));
    }
    /* in place: out is the identical view of input 0 */
    it = iter2(a, b, a, AUG_UINT8, add_u8_record);
    it.ctx = &r;
    assert_int_equal(aug__iter_run(&it), AUG_OK);
    assert_memory_equal(aug_tensor_ptr(a), aug_tensor_ptr(o), 300000);
    aug_tensor_free(a);
    aug_tensor_free(b);
    aug_tensor_free(o);
}

/* out = a[1:] and input a[:-1] partially overlap: the kernel must see old values. */
static void test_kernel_overlap(void **state) {
    (void)state;
    int64_t n = 100000;
    aug_tensor *a = make(1, &n, AUG_FLOAT64);
    fill_pattern(a, 14);
    double *old = malloc((size_t)n * sizeof *old);
    memcpy(old, aug_tensor_ptr(a), (size_t)n * sizeof *old);
    aug_index lo = {.kind = AUG_INDEX_SLICE, .stop = -1, .has_stop = 1, .step = 1};
    aug_index hi = {.kind = AUG_INDEX_SLICE, .start = 1, .has_start = 1, .step = 1};
    aug_tensor *in = aug_tensor_index(a, 1, &lo), *out = aug_tensor_index(a, 1, &hi);
    double one = 1;
    aug_tensor sc;
    aug__tensor_0d(&sc, &one, AUG_FLOAT64);
    aug__iter it = iter2(in, &sc, out, AUG_FLOAT64, add_f64);
    assert_int_equal(aug__iter_run(&it), AUG_OK);
    const double *now = aug_tensor_ptr(a);
    for (int64_t i = 1; i < n; i++) assert_true(now[i] == old[i - 1] + 1);
    free(old);
    aug_tensor_free(in);
    aug_tensor_free(out);
    aug_tensor_free(a);
}

static void test_iter_errors(void **state) {
    (void)state;
    int64_t s3 = 3, s4 = 4;
    aug_tensor *a = make(1, &s3, AUG_FLOAT64), *b = make(1, &s4, AUG_FLOAT64);
    aug__iter it = iter2(a, b, b, AUG_FLOAT64, add_f64);
    ERR_IS(aug__iter_run(&it), AUG_ERR_VALUE, "test: cannot broadcast shape (3,) to (4,)");
    it = iter2(b, b, b, AUG_FLOAT64, add_f64);
    it.nin = 0;
    ERR_IS(aug__iter_run(&it), AUG_ERR_VALUE, "test: number of inputs 0 is out of range (1 to 3)");
    it = iter2(b, b, b, AUG_FLOAT64, NULL);
    ERR_IS(aug__iter_run(&it), AUG_ERR_VALUE, "test: a copy (no kernel) takes exactly one input, not 2");
    it = iter2(b, b, b, 99, add_f64);
    ERR_IS(aug__iter_run(&it), AUG_ERR_VALUE, "test: invalid compute type 99");
    it = iter2(b, NULL, b, AUG_FLOAT64, add_f64);
    ERR_IS(aug__iter_run(&it), AUG_ERR_VALUE, "test: tensor is NULL");
    ERR_IS(aug__iter_run(NULL), AUG_ERR_VALUE, "aug__iter_run: iteration is NULL");
    /* zero-size: returns at once, the kernel is never called */
    int64_t z = 0;
    aug_tensor *e = make(1, &z, AUG_FLOAT64);
    it = iter2(e, e, e, AUG_FLOAT64, NULL);
    it.nin = 1;
    assert_int_equal(aug__iter_run(&it), AUG_OK);
    aug_tensor_free(e);
    aug_tensor_free(a);
    aug_tensor_free(b);
}

/* ---- thread-count independence -------------------------------------------------- */

static void run_mixed(aug_tensor *out_f32, aug_tensor *out_u8, const aug_tensor *a, const aug_tensor *b) {
    aug__iter it = iter2(a, b, out_f32, AUG_FLOAT64, add_f64);
    assert_int_equal(aug__iter_run(&it), AUG_OK);
    assert_int_equal(aug_copy(a, out_u8), AUG_OK);
}

static void test_thread_counts(void **state) {
    (void)state;
    int64_t s[3] = {7, 301, 257}; /* 541K elements: 9 tasks */
    aug_tensor *a = make(3, s, AUG_FLOAT32), *b0 = make(2, s + 1, AUG_INT16);
    fill_pattern(a, 15);
    fill_pattern(b0, 16);
    int perm[2] = {1, 0};
    aug_tensor *bt = aug_tensor_permute(b0, perm); /* (257, 301): transposed */
    aug_tensor *b = aug_tensor_contiguous(bt);     /* then viewed transposed again below */
    aug_tensor *bv = aug_tensor_permute(b, perm);
    aug_tensor *ref_f = NULL, *ref_u = NULL;
    int counts[3] = {1, 2, 7};
    int before = aug_get_num_threads();
    for (int c = 0; c < 3; c++) {
        assert_int_equal(aug_set_num_threads(counts[c]), AUG_OK);
        assert_int_equal(aug_get_num_threads(), counts[c]);
        aug_tensor *of = make(3, s, AUG_FLOAT32), *ou = make(3, s, AUG_UINT8);
        run_mixed(of, ou, a, bv);
        if (!ref_f) {
            ref_f = of;
            ref_u = ou;
            continue;
        }
        assert_memory_equal(aug_tensor_ptr(of), aug_tensor_ptr(ref_f), (size_t)aug_tensor_size(of) * 4);
        assert_memory_equal(aug_tensor_ptr(ou), aug_tensor_ptr(ref_u), (size_t)aug_tensor_size(ou));
        aug_tensor_free(of);
        aug_tensor_free(ou);
    }
    int64_t idx[3];
    for (int64_t k = 0; k < aug_tensor_size(ref_f); k++) {
        unravel(k, 3, s, idx);
        assert_true(get(ref_f, idx) == (double)(float)(get(a, idx) + get(b0, idx + 1)));
        assert_true(get(ref_u, idx) == sat(get(a, idx), AUG_UINT8));
    }
    assert_int_equal(aug_set_num_threads(0), AUG_OK);
    assert_true(aug_get_num_threads() >= 1);
    aug_set_num_threads(before);
    aug_tensor_free(ref_f);
    aug_tensor_free(ref_u);
    aug_tensor_free(bv);
    aug_tensor_free(b);
    aug_tensor_free(bt);
    aug_tensor_free(b0);
    aug_tensor_free(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_negative_step_cast), cmocka_unit_test(test_copy_float_to_int),
        cmocka_unit_test(test_copy_broadcast_transposed), cmocka_unit_test(test_copy_eight_dims),
        cmocka_unit_test(test_copy_overlap),          cmocka_unit_test(test_copy_errors),
        cmocka_unit_test(test_fill),                  cmocka_unit_test(test_cast),
        cmocka_unit_test(test_kernel_conversions),    cmocka_unit_test(test_kernel_fast_path),
        cmocka_unit_test(test_kernel_overlap),        cmocka_unit_test(test_iter_errors),
        cmocka_unit_test(test_thread_counts),         cmocka_unit_test(test_self_overlapping_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
