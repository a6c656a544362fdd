/* cublas_link_check.c: links every cuBLAS function the CUDA module resolves at
 * run time (src/cuda/cublas_api.h) against the libcublas the build found, so a
 * missing or renamed symbol fails `make cuda`. Running it prints the count; it
 * never calls cuBLAS (that needs a GPU). */
#include <stdio.h>
#include "cuda/cublas_api.h"

#define AUG__CUBLAS_REF(name, params) (void *)(size_t)&name,
static void *const refs[] = {AUG__CUBLAS_API(AUG__CUBLAS_REF)};

int main(void) {
    int n = 0;
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++) n += refs[i] != NULL;
    printf("cuBLAS: %d of %zu functions linked\n", n, sizeof refs / sizeof refs[0]);
    return n == (int)(sizeof refs / sizeof refs[0]) ? 0 : 1;
}
