/* cpu/warp.c: SCAFFOLD, replaced by the warp family. */
#include "cpu.h"
#include "core/warp.h"
#include "core/error.h"
aug_status aug__cpu_warp_affine(const aug__warp_plan *plan) {
    return aug__error(AUG_ERR_RUNTIME, plan->func, "scaffold");
}
