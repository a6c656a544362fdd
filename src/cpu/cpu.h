/* cpu/cpu.h: entry points of the CPU backend table (private).
 *
 * core/backend.h declares the backend interface; src/cpu/backend.c fills the
 * `aug__cpu_backend` table with these functions. Each is implemented in its own
 * family file: elementwise.c, reduce.c, gemm.c. */
#ifndef AUG_CPU_CPU_H
#define AUG_CPU_CPU_H

#include "core/backend.h"

/* Runs an elementwise plan (core/backend.h) on the CPU through aug__iter_run. */
AUG__HIDDEN aug_status aug__cpu_elementwise(const aug__ew_plan *plan);
/* Runs a reduction plan on the CPU. */
AUG__HIDDEN aug_status aug__cpu_reduce(const aug__reduce_plan *plan);
/* C = alpha * (A @ B) + beta * C (shapes and dtypes already checked by the core). */
AUG__HIDDEN aug_status aug__cpu_gemm(const char *func, const aug_tensor *A, const aug_tensor *B, aug_tensor *C,
                                     double alpha, double beta);

/* The other families: src/cpu/random.c, warp.c, lighting.c, blur.c. Plans in
 * the matching src/core headers. */
AUG__HIDDEN aug_status aug__cpu_random(const aug__random_plan *plan);
AUG__HIDDEN aug_status aug__cpu_warp_affine(const aug__warp_plan *plan);
AUG__HIDDEN aug_status aug__cpu_lighting(const aug__lighting_plan *plan);
AUG__HIDDEN aug_status aug__cpu_blur(const aug__blur_plan *plan);

#endif
