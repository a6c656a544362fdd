/* cpu/elementwise.c: the CPU backend's elementwise entry (cpu/cpu.h).
 *
 * Looks up the 1-D kernel for the plan's op and ctypes in the kernel families of
 * cpu/kernels.h and runs the plan's loop with it (cpu/iter.h), which converts
 * operands into the ctypes and saturates the result into the output's dtype. A
 * one-input COPY through no narrower ctype needs no kernel: the executor's
 * conversion is the whole operation; otherwise COPY is the arith family's
 * identity on the ctype (so a compute override saturates on the way). */
#include <stdio.h>
#include <string.h>
#include "cpu.h"
#include "cpu/kernels.h"

/* The kernel of op on the plan's ctypes, from the op's family (AUG_OP_LIST). */
static aug__kernel find_kernel(aug_op op, int nin, const int *ctype) {
    switch (aug__kernel_family(op, nin, ctype)) {
    case AUG__KFAM_ARITH: return aug__cpu_arith_kernel(op, ctype[0]);
    case AUG__KFAM_DIV: return aug__cpu_div_kernel(op, ctype[0]);
    case AUG__KFAM_CMP: return aug__cpu_cmp_kernel(op, ctype[0], ctype[1]);
    case AUG__KFAM_BITWISE: return aug__cpu_bitwise_kernel(op, ctype[0]);
    case AUG__KFAM_MATH: return aug__cpu_math_kernel(op, ctype[0]);
    case AUG__KFAM_WHERE: return aug__cpu_where_kernel(ctype[1]);
    default: return NULL;
    }
}

/* A one-input COPY whose ctypes add no intermediate saturation: the executor's
 * direct conversion from the input's dtype to the output's is the whole job. */
static int plain_copy(aug_op op, const aug__loop *l) {
    if (op != AUG_OP_COPY || l->nin != 1) return 0;
    return l->ctype[0] == l->dtype[0] && (l->ctype[1] == l->dtype[0] || l->ctype[1] == l->dtype[1]);
}

aug_status aug__cpu_elementwise(const aug__ew_plan *plan) {
    aug__kernel k = NULL;
    if (!plain_copy(plan->op, &plan->loop)) {
        k = find_kernel(plan->op, plan->loop.nin, plan->loop.ctype);
        if (!k) return aug__error(AUG_ERR_TYPE, plan->func, "no CPU kernel for %s", aug_op_name(plan->op));
    }
    return aug__cpu_loop_run(plan->func, &plan->loop, k, NULL);
}
