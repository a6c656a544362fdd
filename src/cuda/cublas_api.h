/* cuda/cublas_api.h: the cuBLAS functions the CUDA module calls, as one list
 * (private). cuda/gemm.cu resolves them with dlsym from libcublas.so.13 at run
 * time (found by cuda/dynlib.cu), so the module loads and everything but gemm
 * runs without cuBLAS; tests/c/cublas_link_check.c links them against the
 * library the build found, so a missing or renamed symbol fails the build. The
 * emulated module resolves them the same way, to the emulator's stand-in
 * (tests/cuda_emu/emu_cublas.cpp). The names are the exported ones
 * (cublas_v2.h maps cublasCreate to cublasCreate_v2, ...).
 *
 * AUG__CUBLAS_API(X): X(name, (parameter types)) for each. */
#ifndef AUG_CUDA_CUBLAS_API_H
#define AUG_CUDA_CUBLAS_API_H

#include <cublas_v2.h>

#define AUG__CUBLAS_API(X)                                                                                             \
    X(cublasCreate_v2, (cublasHandle_t *))                                                                             \
    X(cublasSetStream_v2, (cublasHandle_t, cudaStream_t))                                                              \
    X(cublasSgemm_v2, (cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const float *,             \
                       const float *, int, const float *, int, const float *, float *, int))                           \
    X(cublasDgemm_v2, (cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const double *,            \
                       const double *, int, const double *, int, const double *, double *, int))

#endif
