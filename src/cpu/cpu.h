/* cpu/cpu.h: compute entries of the CPU backend table (private).
 *
 * core/backend.h declares the backend interface; src/cpu/backend.c fills the
 * `aug__cpu_backend` table with these functions, each implemented in its own
 * family file (elementwise.c, reduce.c, gemm.c, random.c, warp.c, lighting.c,
 * blur.c; plans in core/plan.h and the src/core family headers). */
#ifndef AUG_CPU_CPU_H
#define AUG_CPU_CPU_H

#include "core/backend.h"

AUG__HIDDEN aug_status aug__cpu_elementwise(const aug__ew_plan *plan);
AUG__HIDDEN aug_status aug__cpu_reduce(const aug__reduce_plan *plan);
AUG__HIDDEN aug_status aug__cpu_gemm(const aug__gemm_plan *plan);
AUG__HIDDEN aug_status aug__cpu_random(const aug__random_plan *plan);
AUG__HIDDEN aug_status aug__cpu_warp_affine(const aug__warp_plan *plan);
AUG__HIDDEN aug_status aug__cpu_lighting(const aug__lighting_plan *plan);
AUG__HIDDEN aug_status aug__cpu_colour(const aug__colour_plan *plan);
AUG__HIDDEN aug_status aug__cpu_blur(const aug__blur_plan *plan);
AUG__HIDDEN aug_status aug__cpu_crop_mirror_normalize(const aug__cmn_plan *plan);
AUG__HIDDEN aug_status aug__cpu_gaussian_noise(const aug__noise_plan *plan);
AUG__HIDDEN aug_status aug__cpu_take(const aug__take_plan *plan);
AUG__HIDDEN aug_status aug__cpu_resize(const aug__resize_plan *plan);

/* ---- test hooks (hidden; tests/c reach them through the static library) ---- */

/* Contiguous 8-bit sums with an explicit SIMD path (cpu/reduce.c). dt is
 * AUG_BOOL (counts non-zero bytes), AUG_INT8 or AUG_UINT8; level (AUG__SIMD_*,
 * at most aug__simd_cpu_level()) picks the path, falling back to the best one
 * built below it (AVX-512 has its own path). */
AUG__HIDDEN int64_t aug__cpu_sum8(const void *p, int64_t n, aug_dtype dt, int level);
/* The affine warp with an explicit SIMD level (cpu/warp.c). */
AUG__HIDDEN aug_status aug__cpu_warp_affine_level(const aug__warp_plan *plan, int level);

#endif
