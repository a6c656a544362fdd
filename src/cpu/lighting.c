/* cpu/lighting.c: SCAFFOLD, replaced by the lighting family. */
#include "cpu.h"
#include "core/lighting.h"
#include "core/error.h"
aug_status aug__cpu_lighting(const aug__lighting_plan *plan) {
    return aug__error(AUG_ERR_RUNTIME, plan->func, "scaffold");
}
