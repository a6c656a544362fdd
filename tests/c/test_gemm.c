/* test_gemm.c: aug_gemm (semantics §9) against a naive long double triple loop, over
 * float32/float64, contiguous, transposed, sub-matrix, negative-stride and
 * broadcast operands, given / transposed / strided / new C, alpha and beta,
 * empty dimensions (k == 0 included), C aliasing an operand, and the error
 * messages for bad shapes, dtypes and layouts. */
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

static uint64_t rng_state = 0x243f6a8885a308d3ull;
static double rnd_unit(void) { /* splitmix64 -> [-1, 1) */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1p-52 - 1.0;
}

static aug_tensor *mk(aug_dtype dt, int64_t r, int64_t c) {
    int64_t shape[2] = {r, c};
    aug_tensor *t = aug_tensor_empty(2, shape, dt, aug_cpu_device());
    if (!t) fail_msg("aug_tensor_empty: %s", aug_last_error());
    return t;
}

static void fill(aug_tensor *t, double value_or_nan_for_random) {
    int64_t n = aug_tensor_size(t);
    for (int64_t k = 0; k < n; k++) {
        double v = isnan(value_or_nan_for_random) ? rnd_unit() : value_or_nan_for_random;
        if (t->dtype == AUG_FLOAT32) ((float *)aug_tensor_ptr(t))[k] = (float)v;
        else ((double *)aug_tensor_ptr(t))[k] = v;
    }
}

static double at(const aug_tensor *t, int64_t i, int64_t j) {
    int64_t off = i * t->strides[0] + j * t->strides[1];
    return t->dtype == AUG_FLOAT32 ? ((const float *)aug_tensor_ptr(t))[off] : ((const double *)aug_tensor_ptr(t))[off];
}

static aug_index sl(int64_t start, int64_t stop, int64_t step, int has) {
    aug_index ix;
    memset(&ix, 0, sizeof ix);
    ix.kind = AUG_INDEX_SLICE;
    ix.start = start;
    ix.stop = stop;
    ix.step = step;
    ix.has_start = ix.has_stop = has;
    return ix;
}

enum { L_CONTIG, L_TRANS, L_SUB, L_NEG, L_BCAST, L_TRANS_SUB, NUM_LAYOUTS };
static const char *LAYOUT_NAMES[] = {"contiguous", "transposed", "sub-matrix", "negative", "broadcast",
                                     "transposed sub-matrix"};

/* An (r, c) operand in the given layout, random contents. */
static aug_tensor *make_operand(aug_dtype dt, int64_t r, int64_t c, int layout) {
    const int perm[2] = {1, 0};
    aug_tensor *base = NULL, *v = NULL;
    switch (layout) {
    case L_CONTIG:
        v = mk(dt, r, c);
        fill(v, NAN);
        return v;
    case L_TRANS:
        base = mk(dt, c, r);
        fill(base, NAN);
        v = aug_tensor_permute(base, perm);
        break;
    case L_SUB: {
        base = mk(dt, r + 2, c + 3);
        fill(base, NAN);
        aug_index idx[2] = {sl(1, r + 1, 1, 1), sl(2, c + 2, 1, 1)};
        v = aug_tensor_index(base, 2, idx);
        break;
    }
    case L_NEG: {
        base = mk(dt, r, c);
        fill(base, NAN);
        aug_index idx[2] = {sl(0, 0, -1, 0), sl(0, 0, -1, 0)};
        v = aug_tensor_index(base, 2, idx);
        break;
    }
    case L_BCAST: {
        base = mk(dt, 1, c);
        fill(base, NAN);
        int64_t shape[2] = {r, c};
        v = aug_tensor_broadcast_to(base, 2, shape);
        break;
    }
    default: {
        base = mk(dt, c + 3, r + 2);
        fill(base, NAN);
        aug_index idx[2] = {sl(2, c + 2, 1, 1), sl(1, r + 1, 1, 1)};
        aug_tensor *s = aug_tensor_index(base, 2, idx);
        if (!s) fail_msg("%s", aug_last_error());
        v = aug_tensor_permute(s, perm);
        aug_tensor_free(s);
        break;
    }
    }
    if (!v) fail_msg("view: %s", aug_last_error());
    assert_int_equal(v->shape[0], r);
    assert_int_equal(v->shape[1], c);
    aug_tensor_free(base); /* the view keeps the storage alive */
    return v;
}

/* Checks C (after) == alpha * A @ B + beta * C0, with C0 the (m, n) values before. */
static void check(const char *what, const aug_tensor *A, const aug_tensor *B, const double *c0, const aug_tensor *C,
                  double alpha, double beta) {
    int64_t m = A->shape[0], k = A->shape[1], n = B->shape[1];
    long double eps = A->dtype == AUG_FLOAT32 ? 0x1p-23L : 0x1p-52L;
    assert_int_equal(C->shape[0], m);
    assert_int_equal(C->shape[1], n);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            long double s = 0, bound = 0;
            for (int64_t p = 0; p < k; p++) {
                long double x = (long double)at(A, i, p) * at(B, p, j);
                s += x;
                bound += fabsl(x);
            }
            long double want = alpha * s + (c0 ? beta * (long double)c0[i * n + j] : 0);
            bound = fabsl(alpha) * bound + (c0 ? fabsl(beta * (long double)c0[i * n + j]) : 0);
            long double got = at(C, i, j);
            if (!(fabsl(got - want) <= (k + 4) * eps * bound + 1e-300L))
                fail_msg("%s: C[%lld, %lld] = %.17Lg, want %.17Lg", what, (long long)i, (long long)j, got, want);
        }
}

static void test_layouts_and_sizes(void **state) {
    (void)state;
    const int64_t sizes[][3] = {{1, 1, 1}, {3, 4, 5}, {17, 33, 9}, {6, 1, 7}, {40, 30, 50}, {5, 0, 7}, {0, 3, 4},
                                {4, 3, 0}};
    const aug_dtype dts[2] = {AUG_FLOAT32, AUG_FLOAT64};
    const int perm[2] = {1, 0};
    char what[200];
    for (int d = 0; d < 2; d++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            for (int la = 0; la < NUM_LAYOUTS; la++)
                for (int lb = 0; lb < NUM_LAYOUTS; lb++)
                    for (int cv = 0; cv < 4; cv++) {
                        int64_t m = sizes[s][0], k = sizes[s][1], n = sizes[s][2];
                        aug_tensor *A = make_operand(dts[d], m, k, la), *B = make_operand(dts[d], k, n, lb);
                        aug_tensor *C = NULL, *cbase = NULL;
                        double alpha = 1.5, beta = -0.5;
                        if (cv == 1) {
                            C = mk(dts[d], m, n);
                            fill(C, NAN);
                        } else if (cv == 2) { /* column-major C */
                            cbase = mk(dts[d], n, m);
                            fill(cbase, NAN);
                            C = aug_tensor_permute(cbase, perm);
                        } else if (cv == 3) { /* row-strided sub-matrix C */
                            cbase = mk(dts[d], m + 1, n + 4);
                            fill(cbase, 7.0);
                            aug_index idx[2] = {sl(1, m + 1, 1, 1), sl(1, n + 1, 1, 1)};
                            C = aug_tensor_index(cbase, 2, idx);
                            for (int64_t i = 0; i < m; i++)
                                for (int64_t j = 0; j < n; j++) {
                                    int64_t off = i * C->strides[0] + j * C->strides[1];
                                    if (C->dtype == AUG_FLOAT32) ((float *)aug_tensor_ptr(C))[off] = (float)rnd_unit();
                                    else ((double *)aug_tensor_ptr(C))[off] = rnd_unit();
                                }
                        }
                        double *c0 = NULL;
                        if (C) {
                            c0 = malloc((size_t)(m * n + 1) * sizeof *c0);
                            assert_non_null(c0);
                            for (int64_t i = 0; i < m; i++)
                                for (int64_t j = 0; j < n; j++) c0[i * n + j] = at(C, i, j);
                        }
                        snprintf(what, sizeof what, "%s (%lld, %lld, %lld) A %s B %s C variant %d",
                                 aug_dtype_name(dts[d]), (long long)m, (long long)k, (long long)n, LAYOUT_NAMES[la],
                                 LAYOUT_NAMES[lb], cv);
                        aug_tensor *given = C;
                        if (aug_gemm(A, B, &C, alpha, beta) != AUG_OK) fail_msg("%s: %s", what, aug_last_error());
                        if (given) assert_ptr_equal(C, given);
                        assert_int_equal(C->dtype, dts[d]);
                        check(what, A, B, c0, C, alpha, beta);
                        if (cv == 3) { /* elements outside the view untouched */
                            for (int64_t j = 0; j < n + 4; j++) assert_true(at(cbase, 0, j) == 7.0);
                            for (int64_t i = 0; i < m + 1; i++) assert_true(at(cbase, i, 0) == 7.0);
                        }
                        free(c0);
                        aug_tensor_free(C);
                        aug_tensor_free(cbase);
                        aug_tensor_free(A);
                        aug_tensor_free(B);
                    }
}

static void test_beta_and_empty_k(void **state) {
    (void)state;
    for (int d = 0; d < 2; d++) {
        aug_dtype dt = d ? AUG_FLOAT64 : AUG_FLOAT32;
        aug_tensor *A = make_operand(dt, 6, 5, L_CONTIG), *B = make_operand(dt, 5, 4, L_CONTIG);
        /* beta == 0: NaN garbage in C never leaks into the result */
        aug_tensor *C = mk(dt, 6, 4);
        for (int64_t i = 0; i < 24; i++) {
            if (dt == AUG_FLOAT32) ((float *)aug_tensor_ptr(C))[i] = NAN;
            else ((double *)aug_tensor_ptr(C))[i] = NAN;
        }
        assert_int_equal(aug_gemm(A, B, &C, 2.0, 0.0), AUG_OK);
        check("beta 0 over NaN", A, B, NULL, C, 2.0, 0.0);
        /* a new C ignores beta */
        aug_tensor *N = NULL;
        assert_int_equal(aug_gemm(A, B, &N, 1.0, 5.0), AUG_OK);
        check("new C", A, B, NULL, N, 1.0, 0.0);
        /* alpha == 0: C = beta * C */
        double c0[24];
        for (int64_t i = 0; i < 24; i++) c0[i] = at(N, i / 4, i % 4);
        assert_int_equal(aug_gemm(A, B, &N, 0.0, 3.0), AUG_OK);
        for (int64_t i = 0; i < 24; i++) assert_true(fabs(at(N, i / 4, i % 4) - 3.0 * c0[i]) <= 1e-6 * fabs(c0[i]));
        aug_tensor_free(N);
        aug_tensor_free(C);
        aug_tensor_free(A);
        aug_tensor_free(B);

        /* k == 0: C = beta * C, and exact zeros for beta == 0 or a new C */
        A = mk(dt, 3, 0);
        B = mk(dt, 0, 2);
        C = mk(dt, 3, 2);
        fill(C, 4.0);
        assert_int_equal(aug_gemm(A, B, &C, 1.0, 0.25), AUG_OK);
        for (int64_t i = 0; i < 6; i++) assert_true(at(C, i / 2, i % 2) == 1.0);
        for (int64_t i = 0; i < 6; i++) {
            if (dt == AUG_FLOAT32) ((float *)aug_tensor_ptr(C))[i] = NAN;
            else ((double *)aug_tensor_ptr(C))[i] = NAN;
        }
        assert_int_equal(aug_gemm(A, B, &C, 1.0, 0.0), AUG_OK);
        for (int64_t i = 0; i < 6; i++) assert_true(at(C, i / 2, i % 2) == 0.0);
        N = NULL;
        assert_int_equal(aug_gemm(A, B, &N, 1.0, 0.0), AUG_OK);
        assert_int_equal(N->shape[0], 3);
        assert_int_equal(N->shape[1], 2);
        for (int64_t i = 0; i < 6; i++) assert_true(at(N, i / 2, i % 2) == 0.0);
        aug_tensor_free(N);
        aug_tensor_free(C);
        aug_tensor_free(A);
        aug_tensor_free(B);
    }
}

/* C is also an operand: the result must be computed from the old values. */
static void test_aliasing(void **state) {
    (void)state;
    aug_tensor *A = make_operand(AUG_FLOAT64, 8, 8, L_CONTIG), *B = make_operand(AUG_FLOAT64, 8, 8, L_CONTIG);
    double c0[64];
    for (int i = 0; i < 64; i++) c0[i] = at(A, i / 8, i % 8);
    aug_tensor *copy = mk(AUG_FLOAT64, 8, 8);
    memcpy(aug_tensor_ptr(copy), c0, sizeof c0);
    aug_tensor *C = A;
    assert_int_equal(aug_gemm(A, B, &C, 1.0, 1.0), AUG_OK);
    assert_ptr_equal(C, A);
    check("C is A", copy, B, c0, A, 1.0, 1.0);
    aug_tensor_free(copy);
    aug_tensor_free(A);
    aug_tensor_free(B);
}

static void expect_error(aug_status st, aug_status want, const char *text) {
    assert_int_equal(st, want);
    if (strcmp(aug_last_error(), text) != 0) fail_msg("error text \"%s\", want \"%s\"", aug_last_error(), text);
}

static void test_errors(void **state) {
    (void)state;
    aug_tensor *A = mk(AUG_FLOAT32, 2, 3), *B = mk(AUG_FLOAT32, 4, 5), *C = NULL;
    expect_error(aug_gemm(A, B, &C, 1, 0), AUG_ERR_VALUE,
                 "aug_gemm: shapes (2, 3) and (4, 5) are not aligned: 3 (dim 1) != 4 (dim 0)");
    assert_null(C);
    aug_tensor *U = aug_tensor_empty(2, (int64_t[]){3, 5}, AUG_UINT8, aug_cpu_device());
    expect_error(aug_gemm(U, B, &C, 1, 0), AUG_ERR_TYPE,
                 "aug_gemm: gemm requires float32 or float64 tensors, got uint8");
    aug_tensor *I = aug_tensor_empty(2, (int64_t[]){3, 5}, AUG_INT32, aug_cpu_device());
    expect_error(aug_gemm(A, I, &C, 1, 0), AUG_ERR_TYPE,
                 "aug_gemm: gemm requires float32 or float64 tensors, got int32");
    aug_tensor *D = mk(AUG_FLOAT64, 3, 5);
    expect_error(aug_gemm(A, D, &C, 1, 0), AUG_ERR_TYPE,
                 "aug_gemm: gemm requires tensors of one dtype, got float32, float64 and float32");
    aug_tensor *T3 = aug_tensor_empty(3, (int64_t[]){2, 3, 4}, AUG_FLOAT32, aug_cpu_device());
    expect_error(aug_gemm(T3, B, &C, 1, 0), AUG_ERR_VALUE,
                 "aug_gemm: gemm requires 2-D tensors, got A with shape (2, 3, 4)");
    aug_tensor *B35 = mk(AUG_FLOAT32, 3, 5), *C22 = mk(AUG_FLOAT32, 2, 2), *keep = C22;
    expect_error(aug_gemm(A, B35, &C22, 1, 0), AUG_ERR_VALUE,
                 "aug_gemm: C has shape (2, 2) but A @ B has shape (2, 5)");
    assert_ptr_equal(C22, keep);
    aug_tensor *C25 = mk(AUG_FLOAT32, 2, 5);
    aug_index rev[2] = {sl(0, 0, -1, 0), sl(0, 0, 1, 0)};
    aug_tensor *Cneg = aug_tensor_index(C25, 2, rev);
    assert_non_null(Cneg);
    expect_error(aug_gemm(A, B35, &Cneg, 1, 0), AUG_ERR_VALUE,
                 "aug_gemm: C must be contiguous (or a transposed contiguous matrix)");
    expect_error(aug_gemm(A, B35, NULL, 1, 0), AUG_ERR_VALUE, "aug_gemm: C is NULL");
    assert_int_equal(aug_gemm(NULL, B35, &C, 1, 0), AUG_ERR_VALUE);
    assert_non_null(strstr(aug_last_error(), "aug_gemm: "));
    assert_null(C);
    aug_tensor_free(Cneg);
    aug_tensor_free(C25);
    aug_tensor_free(C22);
    aug_tensor_free(B35);
    aug_tensor_free(T3);
    aug_tensor_free(D);
    aug_tensor_free(I);
    aug_tensor_free(U);
    aug_tensor_free(A);
    aug_tensor_free(B);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layouts_and_sizes),
        cmocka_unit_test(test_beta_and_empty_k),
        cmocka_unit_test(test_aliasing),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
