/* cpu/gemm.c: aug__cpu_gemm through CBLAS (cblas_sgemm / cblas_dgemm, row-major).
 *
 * The core (core/gemm.c) guarantees float32/float64 operands of one dtype, matching
 * shapes, and BLAS-compatible strides: A and B row-major (column stride 1) or
 * column-major (row stride 1, passed as a transpose), C row-major; leading
 * dimensions come from the strides. k == 0 is handled here (C = beta * C, with
 * beta == 0 writing exact zeros so garbage in C never leaks), as are empty outputs. */
#include <limits.h>
#include <cblas.h>
#include "cpu.h"

/* Transpose flag and leading dimension of t for a row-major BLAS call; 0 if the
 * layout is not one BLAS takes. */
static int blas_operand(const aug_tensor *t, enum CBLAS_TRANSPOSE *trans, int64_t *ld) {
    int64_t rows = t->shape[0], cols = t->shape[1];
    int64_t mincols = cols > 1 ? cols : 1, minrows = rows > 1 ? rows : 1;
    if ((cols <= 1 || t->strides[1] == 1) && (rows <= 1 || t->strides[0] >= mincols)) {
        *trans = CblasNoTrans;
        *ld = rows <= 1 ? mincols : t->strides[0];
        return 1;
    }
    if ((rows <= 1 || t->strides[0] == 1) && (cols <= 1 || t->strides[1] >= minrows)) {
        *trans = CblasTrans;
        *ld = cols <= 1 ? minrows : t->strides[1];
        return 1;
    }
    return 0;
}

static void *elem0(const aug_tensor *t) { return t->data + t->byte_offset; }

/* C = beta * C over the (m, n) row-major C with leading dimension ldc. */
static void scale_c(aug_tensor *C, int64_t ldc, double beta) {
    int64_t m = C->shape[0], n = C->shape[1];
    for (int64_t i = 0; i < m; i++) {
        if (C->dtype == AUG_FLOAT32) {
            float *row = (float *)elem0(C) + i * ldc;
            for (int64_t j = 0; j < n; j++) row[j] = beta == 0.0 ? 0.0f : (float)(beta * row[j]);
        } else {
            double *row = (double *)elem0(C) + i * ldc;
            for (int64_t j = 0; j < n; j++) row[j] = beta == 0.0 ? 0.0 : beta * row[j];
        }
    }
}

aug_status aug__cpu_gemm(const char *func, const aug_tensor *A, const aug_tensor *B, aug_tensor *C, double alpha,
                         double beta) {
    enum CBLAS_TRANSPOSE ta, tb, tc;
    int64_t lda, ldb, ldc;
    int64_t m = C->shape[0], n = C->shape[1], k = A->shape[1];
    if (m == 0 || n == 0) return AUG_OK;
    if (!blas_operand(C, &tc, &ldc) || tc != CblasNoTrans)
        return aug__error(AUG_ERR_VALUE, func, "C strides are not BLAS-compatible");
    if (k == 0 || alpha == 0.0) {
        /* BLAS would not read A or B either; doing it here makes beta == 0 exact. */
        scale_c(C, ldc, beta);
        return AUG_OK;
    }
    if (!blas_operand(A, &ta, &lda) || !blas_operand(B, &tb, &ldb))
        return aug__error(AUG_ERR_VALUE, func, "operand strides are not BLAS-compatible");
    if (m > INT_MAX || n > INT_MAX || k > INT_MAX || lda > INT_MAX || ldb > INT_MAX || ldc > INT_MAX)
        return aug__error(AUG_ERR_VALUE, func, "matrix dimensions exceed the BLAS limit of %d", INT_MAX);
    if (C->dtype == AUG_FLOAT32)
        cblas_sgemm(CblasRowMajor, ta, tb, (int)m, (int)n, (int)k, (float)alpha, elem0(A), (int)lda, elem0(B),
                    (int)ldb, (float)beta, elem0(C), (int)ldc);
    else
        cblas_dgemm(CblasRowMajor, ta, tb, (int)m, (int)n, (int)k, alpha, elem0(A), (int)lda, elem0(B), (int)ldb,
                    beta, elem0(C), (int)ldc);
    return AUG_OK;
}
