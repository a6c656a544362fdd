/* cuda/gemm.cu: C = alpha * op(A) @ op(B) + beta * C with cuBLAS (semantics §9).
 *
 * The plan is in row-major BLAS terms (core/plan.h); cuBLAS is column-major, and
 * a row-major matrix is the column-major matrix of its transpose, so the call
 * computes C^T = op(B)^T @ op(A)^T: the operands swap and keep their own
 * transpose flags. k == 0 or alpha == 0 scale C by beta (beta == 0 writes exact
 * zeros; cuBLAS reads neither A nor B then, as the BLAS reference says). One
 * cuBLAS handle per device and host thread, bound to the plan's stream.
 *
 * libcublas.so.13 is opened at the first gemm (cuda/dynlib.cu: AUG_CUBLAS_LIBRARY,
 * the loader's path, the NVIDIA wheels' folders, the build's AUG_CUBLAS_LIBDIR),
 * not linked: without it gemm on a CUDA device fails with AUG_ERR_CUBLAS saying
 * so, and every other op runs. */
#include <pthread.h>
#include <stdio.h>
#include "cuda/cuda.h"
#include "cuda/cublas_api.h"

/* ---- loading ------------------------------------------------------------------------ */

static struct {
#define AUG__CUBLAS_PTR(name, params) cublasStatus_t(*name) params;
    AUG__CUBLAS_API(AUG__CUBLAS_PTR)
#undef AUG__CUBLAS_PTR
} api;
static pthread_once_t cb_once = PTHREAD_ONCE_INIT;
static char cb_error[1024]; /* empty: loaded */

static void cb_load(void) {
#ifdef AUG_CUBLAS_LIBDIR
    const char *build_dir = AUG_CUBLAS_LIBDIR;
#else
    const char *build_dir = NULL;
#endif
    char why[768];
    void *so = aug__cuda_dlopen("libcublas.so.13", "AUG_CUBLAS_LIBRARY", "cublas", build_dir, why, sizeof why);
    if (!so) {
        snprintf(cb_error, sizeof cb_error,
                 "cuBLAS is not available, so gemm cannot run on a CUDA device (every other op can): %s. Install "
                 "the nvidia-cublas wheel, or set AUG_CUBLAS_LIBRARY to a libcublas.so.13",
                 why);
        return;
    }
#define AUG__CUBLAS_SYM(name, params)                                                                                  \
    if (!(*(void **)&api.name = aug__cuda_dlsym(so, #name))) {                                                         \
        snprintf(cb_error, sizeof cb_error, "cuBLAS lacks %s (a libcublas older than 13.0?)", #name);                  \
        return;                                                                                                        \
    }
    AUG__CUBLAS_API(AUG__CUBLAS_SYM)
#undef AUG__CUBLAS_SYM
}

/* ---- gemm --------------------------------------------------------------------------- */

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
    pthread_once(&cb_once, cb_load);
    if (cb_error[0]) return aug__error(AUG_ERR_CUBLAS, func, "%s", cb_error);
    if (!handles[dev]) CUBLAS(func, api.cublasCreate_v2(&handles[dev]));
    cublasHandle_t h = handles[dev];
    CUBLAS(func, api.cublasSetStream_v2(h, aug__cuda_stream(&p->exec)));
    const int m = (int)p->m, n = (int)p->n, k = (int)p->k;
    const cublasOperation_t ta = p->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, tb = p->trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    /* k == 0: cuBLAS needs valid leading dimensions even for unread operands */
    const int lda = p->lda > 0 ? (int)p->lda : 1, ldb = p->ldb > 0 ? (int)p->ldb : 1;
    if (p->dtype == AUG_FLOAT32) {
        const float alpha = (float)p->alpha, beta = (float)p->beta;
        CUBLAS(func,
               api.cublasSgemm_v2(h, tb, ta, n, m, k, &alpha, (const float *)(const void *)p->b, ldb,
                                  (const float *)(const void *)p->a, lda, &beta, (float *)(void *)p->c, (int)p->ldc));
    } else {
        const double alpha = p->alpha, beta = p->beta;
        CUBLAS(func,
               api.cublasDgemm_v2(h, tb, ta, n, m, k, &alpha, (const double *)(const void *)p->b, ldb,
                                  (const double *)(const void *)p->a, lda, &beta, (double *)(void *)p->c, (int)p->ldc));
    }
    return AUG_OK;
}
