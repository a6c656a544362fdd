/* cpu/random.c: SCAFFOLD, replaced by the random family. */
#include "cpu.h"
#include "core/random.h"
#include "core/error.h"
aug_status aug__cpu_random(const aug__random_plan *plan) {
    return aug__error(AUG_ERR_RUNTIME, plan->func, "scaffold");
}
