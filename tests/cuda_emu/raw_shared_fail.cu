/* raw_shared_fail.cu: must NOT compile in the emulation build (ctest
 * cuda_emu_raw_shared_rejected): raw __shared__ would give every emulated thread
 * its own array. Kernels use AUG_SHARED / AUG_SHARED_DYN from compat.h. */
#include "compat.h"

AUG_GLOBAL void k_raw_shared(float *out) {
    __shared__ float s[128];
    s[threadIdx.x] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = s[127 - threadIdx.x];
}
