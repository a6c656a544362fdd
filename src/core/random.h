/* core/random.h: the random-fill plan handed to the backends (private).
 *
 * The core (src/core/random.c) validates the parameters, turns them into the
 * per-dtype constants of aug__rand_params and picks the call number; a backend
 * maps Philox blocks to values with scalar/random.h, element i of the target (in
 * C order) from the block of counter (i, call). */
#ifndef AUG_CORE_RANDOM_H
#define AUG_CORE_RANDOM_H

#include "backend.h"
#include "scalar/random.h"

struct aug__random_plan {
    const char *func;
    aug__rand_params p;
    aug_tensor *target;       /* any dtype and strides, size >= 1 */
    /* the target's dims coalesced in C order (aug__coalesce): element i in C
     * order lives at base + sum(idx[d] * bstride[d]) */
    char *base;
    int nd;
    int64_t shape[AUG_MAX_DIMS], bstride[AUG_MAX_DIMS];
    int64_t n;                /* elements */
    int aliased;              /* a zero stride: elements share memory, the last in C order must win */
    aug__exec exec;
};

#endif
