/* cpu/noise_table.h: the CPU's integer Gaussian noise by table (private;
 * src/cpu/noise_table.c; the rule is scalar/noise_table.h's, docs/semantics.md
 * §11.2). cpu/noise.c hands every run of an image with an integer table here. */
#ifndef AUG_CPU_NOISE_TABLE_H
#define AUG_CPU_NOISE_TABLE_H

#include "core/normalize.h"

/* The fine guides of one call: fine + of[img] (of NULL: one table) is the
 * image's guide of AUG__NOISE_FINE words, derived from its table. */
typedef struct aug__noise_fine {
    uint32_t *words;
    uint32_t *of;
} aug__noise_fine;

#define AUG__NOISE_FINE_BITS 12
#define AUG__NOISE_FINE (1u << AUG__NOISE_FINE_BITS)

/* Builds the fine guides of plan's tables (plan->table not NULL). Returns 0; 1
 * when a table has too many thresholds for them, -1 when memory runs out (both:
 * nothing held, the portable rule applies). aug__noise_fine_free frees. */
AUG__HIDDEN int aug__noise_fine_build(const aug__noise_plan *plan, aug__noise_fine *f);
AUG__HIDDEN void aug__noise_fine_free(aug__noise_fine *f);

/* Elements i0 ... i0 + n - 1 of one image: x at xs, out at os (byte strides),
 * table t with its fine guide g (g NULL: the portable rule only). level: the
 * AUG__SIMD_* level to use. */
AUG__HIDDEN void aug__noise_table_run(int level, const aug__noise_plan *plan, const aug__rand_params *p,
                                      const uint32_t *t, const uint32_t *g, int64_t i0, int64_t n, const char *x,
                                      int64_t xs, char *out, int64_t os);

/* For the tests: out[j] = saturate(x[j] + k(u[j])) for uint8 x and out by the
 * path of level (AUG__SIMD_NONE: the portable rule; AVX2, AVX512: the fine
 * guide of t, built here). Returns 0, or -1 when the guide cannot be built. */
AUG__HIDDEN int aug__noise_table_u8(int level, const uint32_t *t, const uint32_t *u, int64_t n, const uint8_t *x,
                                    uint8_t *out);

#endif
