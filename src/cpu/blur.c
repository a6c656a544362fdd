/* cpu/blur.c: SCAFFOLD, replaced by the blur family. */
#include "cpu.h"
#include "core/blur.h"
#include "core/error.h"
aug_status aug__cpu_blur(const aug__blur_plan *plan) {
    return aug__error(AUG_ERR_RUNTIME, plan->func, "scaffold");
}
