/* cpu/gemm.c: aug__cpu_gemm through CBLAS (cblas_sgemm / cblas_dgemm, row-major).
 *
 * The core (core/gemm.c) hands over a plan in row-major BLAS terms (core/plan.h).
 * k == 0 and alpha == 0 are handled here (C = beta * C, with beta == 0 writing
 * exact zeros so garbage in C never leaks), as BLAS would not read A or B. */
#include <cblas.h>
#include "cpu.h"

/* C = beta * C over the (m, n) row-major C. */
static void scale_c(const aug__gemm_plan *p) {
    for (int64_t i = 0; i < p->m; i++) {
        if (p->dtype == AUG_FLOAT32) {
            float *row = (float *)(void *)p->c + i * p->ldc;
            for (int64_t j = 0; j < p->n; j++) row[j] = p->beta == 0.0 ? 0.0f : (float)(p->beta * row[j]);
        } else {
            double *row = (double *)(void *)p->c + i * p->ldc;
            for (int64_t j = 0; j < p->n; j++) row[j] = p->beta == 0.0 ? 0.0 : p->beta * row[j];
        }
    }
}

aug_status aug__cpu_gemm(const aug__gemm_plan *p) {
    if (p->k == 0 || p->alpha == 0.0) {
        scale_c(p);
        return AUG_OK;
    }
    enum CBLAS_TRANSPOSE ta = p->trans_a ? CblasTrans : CblasNoTrans, tb = p->trans_b ? CblasTrans : CblasNoTrans;
    if (p->dtype == AUG_FLOAT32)
        cblas_sgemm(CblasRowMajor, ta, tb, (int)p->m, (int)p->n, (int)p->k, (float)p->alpha,
                    (const float *)(const void *)p->a, (int)p->lda, (const float *)(const void *)p->b, (int)p->ldb,
                    (float)p->beta, (float *)(void *)p->c, (int)p->ldc);
    else
        cblas_dgemm(CblasRowMajor, ta, tb, (int)p->m, (int)p->n, (int)p->k, p->alpha,
                    (const double *)(const void *)p->a, (int)p->lda, (const double *)(const void *)p->b, (int)p->ldb,
                    p->beta, (double *)(void *)p->c, (int)p->ldc);
    return AUG_OK;
}
