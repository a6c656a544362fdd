/* core/random.h: the random-fill plan handed to the backends (private).
 *
 * The core (src/core/random.c) validates the parameters, turns them into the
 * per-dtype constants below and picks the call number; a backend only maps
 * Philox blocks to values as include/aug/random.h documents. */
#ifndef AUG_CORE_RANDOM_H
#define AUG_CORE_RANDOM_H

#include "backend.h"

typedef enum aug__random_kind { AUG__RANDOM_UNIFORM, AUG__RANDOM_GAUSSIAN } aug__random_kind;

struct aug__random_plan {
    const char *func;
    aug__random_kind kind;
    aug_tensor *target;       /* any dtype and strides, size >= 1 */
    uint32_t key[2];          /* lo32(seed), hi32(seed) */
    uint64_t call;            /* the call number n */
    /* uniform, integer and bool targets: value = lo + draw * count (see random.h) */
    int64_t ilo;              /* lo (fits the dtype) */
    uint64_t count_m1;        /* count - 1, so count = 2^64 fits */
    /* uniform, float targets: v = m * (o + u * d), clamped to [flo, fhi] (values of T) */
    double m, o, d, flo, fhi;
    /* gaussian */
    double mean, std;
};

/* Random123's Philox-4x32-10 of n consecutive counters (i0 + j, call): the four
 * output words of counter j land in x0[j] ... x3[j]. Uses the best vector path
 * of the CPU (src/cpu/random_philox.c); level picks one for tests:
 * AUG__SIMD_NONE (portable, Random123 itself), AUG__SIMD_AVX2, AUG__SIMD_AVX512
 * (each falls back to the next lower one the CPU has), or -1 = best. */
AUG__HIDDEN void aug__philox_run(int level, const uint32_t key[2], uint64_t call, uint64_t i0, int64_t n,
                                 uint32_t *x0, uint32_t *x1, uint32_t *x2, uint32_t *x3);

/* float32 Box-Muller pieces of the CPU kernel, exposed for tests:
 * ln(x) for x in (0, 1] and cos(2 pi u) for u in [0, 1). */
AUG__HIDDEN float aug__rng_logf(float x);
AUG__HIDDEN float aug__rng_cos2pif(float u);

#endif
