/* cpu/simd.h: which x86 vector paths the kernels take (private).
 *
 * The build baseline is x86-64 (SSE2), so the SSE2 paths are compiled in whenever
 * __SSE2__ is defined. AVX2 kernels are compiled function by function with
 * __attribute__((target("avx2"))) and taken only when the CPU (and OS) support
 * them, so the library still runs on SSE2-only machines. Portable C is the
 * reference every vector path is tested against (STYLE 7). */
#ifndef AUG_CPU_SIMD_H
#define AUG_CPU_SIMD_H

#include "core/error.h"

#if defined(__x86_64__) || defined(__i386__)
#define AUG__X86 1
#else
#define AUG__X86 0
#endif

#define AUG__SIMD_NONE 0 /* portable C */
#define AUG__SIMD_SSE2 1
#define AUG__SIMD_AVX2 2
#define AUG__SIMD_AVX512 3 /* AVX-512 F, DQ, VL and BW (kernels that have no such path use their AVX2 one) */

/* The highest level this build and CPU support (what the tests compare). */
AUG__HIDDEN int aug__simd_cpu_level(void);

/* The level the kernels use: aug__simd_cpu_level(), capped at SSE2 when the
 * environment variable AUG_SIMD is "sse2", at AVX2 when it is "avx2" (the
 * tests compare an AVX-512 machine's AVX2 paths too). Decided on first use and
 * cached. */
AUG__HIDDEN int aug__simd_level(void);

#endif
