/* nvjpeg_link_check.c: links every nvJPEG function the CUDA module resolves at
 * run time (src/cuda/nvjpeg_api.h) against the libnvjpeg the build found (the
 * nvidia-nvjpeg wheel's), so a missing or renamed symbol fails `make cuda`.
 * Running it prints the count; it never calls nvJPEG (that needs a GPU). */
#include <stdio.h>
#include "cuda/nvjpeg_api.h"

#define AUG__NVJPEG_REF(name, params) (void *)(size_t)&name,
static void *const refs[] = {AUG__NVJPEG_API(AUG__NVJPEG_REF)};

int main(void) {
    int n = 0;
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++) n += refs[i] != NULL;
    printf("nvJPEG: %d of %zu functions linked\n", n, sizeof refs / sizeof refs[0]);
    return n == (int)(sizeof refs / sizeof refs[0]) ? 0 : 1;
}
