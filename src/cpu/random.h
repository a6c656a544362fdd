/* cpu/random.h: the CPU's Philox runs (private; src/cpu/random_philox.c).
 *
 * aug__philox_run computes Philox-4x32-10 (scalar/philox.h) of n consecutive
 * counters (i0 + j, call): the four output words of counter j land in x0[j] ...
 * x3[j]. level picks a path for tests: AUG__SIMD_NONE (portable: the shared
 * scalar function), AUG__SIMD_AVX2, AUG__SIMD_AVX512 (each falls back to the
 * next lower one the CPU has), or -1 = the best. */
#ifndef AUG_CPU_RANDOM_H
#define AUG_CPU_RANDOM_H

#include "core/random.h"

AUG__HIDDEN void aug__philox_run(int level, const uint32_t key[2], uint64_t call, uint64_t i0, int64_t n,
                                 uint32_t *x0, uint32_t *x1, uint32_t *x2, uint32_t *x3);

/* Vector level of the fill kernels: -1 = best available; tests set 0, 2 or 3 to
 * compare the paths (AUG__SIMD_NONE, AUG__SIMD_AVX2, AUG__SIMD_AVX512). */
AUG__HIDDEN extern int aug__random_level;

#endif
