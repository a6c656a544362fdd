/* cuda/gemm.cu: C = alpha * op(A) @ op(B) + beta * C with cuBLAS (semantics §9).
 *
 * The plan is in row-major BLAS terms (core/plan.h); cuBLAS is column-major, and
 * a row-major matrix is the column-major matrix of its transpose, so the call
 * computes C^T = op(B)^T @ op(A)^T: the operands swap and keep their own
 * transpose flags. k == 0 or alpha == 0 scale C by beta (beta == 0 writes exact
 * zeros; cuBLAS reads neither A nor B then, as the BLAS reference says). One
 * cuBLAS handle per device and host thread, bound to the plan's stream. */
#include "cuda/cuda.h"

#define MAX_DEVICES 64
static __thread cublasHandle_t handles[MAX_DEVICES];

static const char *status_name(cublasStatus_t s) {
    switch (s) {
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    default: return "CUBLAS_STATUS_UNKNOWN";
    }
}

#define CUBLAS(func, call)                                                                       \
    do {                                                                                         \
        cublasStatus_t s_ = (call);                                                              \
        if (s_ != CUBLAS_STATUS_SUCCESS)                                                         \
            return aug__error(s_ == CUBLAS_STATUS_ALLOC_FAILED ? AUG_ERR_MEMORY : AUG_ERR_CUBLAS, \
                              (func), "cuBLAS error %s in %s", status_name(s_), #call);          \
    } while (0)

aug_status aug__cuda_gemm(const aug__gemm_plan *p) {
    const char *func = p->func;
    const int dev = p->exec.device.id;
    aug_status st = aug__cuda_use(func, dev);
    if (st) return st;
    if (dev < 0 || dev >= MAX_DEVICES) return aug__error(AUG_ERR_CUDA, func, "device cuda:%d is out of range", dev);
    if (!handles[dev]) CUBLAS(func, cublasCreate(&handles[dev]));
    cublasHandle_t h = handles[dev];
    CUBLAS(func, cublasSetStream(h, aug__cuda_stream(&p->exec)));
    const int m = (int)p->m, n = (int)p->n, k = (int)p->k;
    const cublasOperation_t ta = p->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, tb = p->trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    /* k == 0: cuBLAS needs valid leading dimensions even for unread operands */
    const int lda = p->lda > 0 ? (int)p->lda : 1, ldb = p->ldb > 0 ? (int)p->ldb : 1;
    if (p->dtype == AUG_FLOAT32) {
        const float alpha = (float)p->alpha, beta = (float)p->beta;
        CUBLAS(func, cublasSgemm(h, tb, ta, n, m, k, &alpha, (const float *)(const void *)p->b, ldb,
                                 (const float *)(const void *)p->a, lda, &beta, (float *)(void *)p->c, (int)p->ldc));
    } else {
        const double alpha = p->alpha, beta = p->beta;
        CUBLAS(func, cublasDgemm(h, tb, ta, n, m, k, &alpha, (const double *)(const void *)p->b, ldb,
                                 (const double *)(const void *)p->a, lda, &beta, (double *)(void *)p->c, (int)p->ldc));
    }
    return AUG_OK;
}
