/* cpu/cpu.h: compute entries of the CPU backend table (private).
 *
 * core/backend.h declares the backend interface and the family registry;
 * src/cpu/backend.c's run entry calls these functions, each implemented in its
 * own family file (elementwise.c, reduce.c, gemm.c, random.c, warp.c,
 * lighting.c, blur.c, ...; plans in core/plan.h and the src/core family headers). */
#ifndef AUG_CPU_CPU_H
#define AUG_CPU_CPU_H

#include "core/backend.h"

/* aug__cpu_<entry>(plan) of every family of the registry (core/backend.h). */
#define X_(F, entry, plan_t, what) AUG__HIDDEN aug_status aug__cpu_##entry(const plan_t *plan);
AUG__COMPUTE_FAMILIES(X_)
#undef X_

/* ---- test hooks (hidden; tests/c reach them through the static library) ---- */

/* Contiguous 8-bit sums with an explicit SIMD path (cpu/reduce.c). dt is
 * AUG_BOOL (counts non-zero bytes), AUG_INT8 or AUG_UINT8; level (AUG__SIMD_*,
 * at most aug__simd_cpu_level()) picks the path, falling back to the best one
 * built below it (AVX-512 has its own path). */
AUG__HIDDEN int64_t aug__cpu_sum8(const void *p, int64_t n, aug_dtype dt, int level);
/* The affine warp with an explicit SIMD level (cpu/warp.c). */
AUG__HIDDEN aug_status aug__cpu_warp_affine_level(const aug__warp_plan *plan, int level);
/* The perspective warp with an explicit SIMD level (cpu/warp.c). */
AUG__HIDDEN aug_status aug__cpu_warp_perspective_level(const aug__warp_plan *plan, int level);

#endif
