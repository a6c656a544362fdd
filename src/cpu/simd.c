/* cpu/simd.c: run-time choice of the vector paths (cpu/simd.h). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "cpu/simd.h"

int aug__simd_cpu_level(void) {
    int level = AUG__SIMD_NONE;
#ifdef __SSE2__
    level = AUG__SIMD_SSE2;
#endif
#if AUG__X86
    /* libgcc/compiler-rt report avx2 only when the OS saves the YMM registers
     * (OSXSAVE and XCR0), so this also covers kernels without AVX support. */
    __builtin_cpu_init();
    if (level == AUG__SIMD_SSE2 && __builtin_cpu_supports("avx2")) level = AUG__SIMD_AVX2;
    if (level == AUG__SIMD_AVX2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw"))
        level = AUG__SIMD_AVX512;
#endif
    return level;
}

static int simd_choose(void) {
    int level = aug__simd_cpu_level();
    const char *env = getenv("AUG_SIMD");
    if (env && strcmp(env, "sse2") == 0 && level > AUG__SIMD_SSE2) level = AUG__SIMD_SSE2;
    if (env && strcmp(env, "avx2") == 0 && level > AUG__SIMD_AVX2) level = AUG__SIMD_AVX2;
    return level;
}

int aug__simd_level(void) {
    /* -1 until the first call. Threads racing on it compute the same value and
     * the value publishes nothing else, so relaxed ordering suffices. */
    static atomic_int cached = -1;
    int level = atomic_load_explicit(&cached, memory_order_relaxed);
    if (level < 0) {
        level = simd_choose();
        atomic_store_explicit(&cached, level, memory_order_relaxed);
    }
    return level;
}
