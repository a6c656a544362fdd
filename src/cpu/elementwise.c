/* cpu/elementwise.c: the CPU backend's elementwise entry (cpu/cpu.h).
 *
 * Looks up the 1-D kernel for the plan's op and ctypes in the kernel families of
 * cpu/kernels.h and runs it through the one iteration engine (core/iter.h), which
 * broadcasts, converts operands into the ctypes and saturates the result into the
 * output's dtype. A one-input COPY through no narrower ctype needs no kernel: the
 * engine's conversion is the whole operation; otherwise COPY is the arith family's
 * identity on the ctype (so a compute override saturates on the way). */
#include <stdio.h>
#include <string.h>
#include "cpu.h"
#include "cpu/kernels.h"

static aug__kernel find_kernel(const aug__ew_plan *p) {
    const aug_op op = p->op;
    const int c = p->in_ctype[0];
    switch (op) {
    case AUG_OP_EQ: case AUG_OP_NE: case AUG_OP_LT: case AUG_OP_LE: case AUG_OP_GT: case AUG_OP_GE:
        if (p->nin != 2 || p->out_ctype != (int)AUG_BOOL) return NULL;
        return aug__cpu_cmp_kernel(op, c, p->in_ctype[1]);
    default:
        break;
    }
    /* Every other family reads and writes one ctype. */
    for (int i = 1; i < p->nin; i++)
        if (p->in_ctype[i] != c) return NULL;
    if (p->out_ctype != c) return NULL;
    switch (op) {
    case AUG_OP_POS: case AUG_OP_NEG: case AUG_OP_ADD: case AUG_OP_SUB: case AUG_OP_MUL: case AUG_OP_ABS:
    case AUG_OP_MIN: case AUG_OP_MAX: case AUG_OP_CLAMP: case AUG_OP_COPY:
        return aug__cpu_arith_kernel(op, c);
    case AUG_OP_TRUEDIV: case AUG_OP_FLOORDIV: case AUG_OP_MOD: case AUG_OP_DIV_RNE: case AUG_OP_POW:
        return aug__cpu_div_kernel(op, c);
    case AUG_OP_AND: case AUG_OP_OR: case AUG_OP_XOR: case AUG_OP_INVERT: case AUG_OP_LSHIFT:
    case AUG_OP_RSHIFT:
        return aug__cpu_bitwise_kernel(op, c);
    default:
        return aug__cpu_math_kernel(op, c);
    }
}

/* A one-input COPY whose ctypes add no intermediate saturation: the engine's
 * direct conversion from the input's dtype to the output's is the whole job. */
static int plain_copy(const aug__ew_plan *p) {
    if (p->op != AUG_OP_COPY || p->nin != 1) return 0;
    int in_t = (int)p->in[0]->dtype;
    return p->in_ctype[0] == in_t && (p->out_ctype == in_t || p->out_ctype == (int)p->out->dtype);
}

aug_status aug__cpu_elementwise(const aug__ew_plan *plan) {
    int valid = plan && plan->out && plan->nin >= 1 && plan->nin <= AUG__MAX_INPUTS;
    for (int i = 0; valid && i < plan->nin; i++) valid = plan->in[i] != NULL;
    if (!valid) return aug__error(AUG_ERR_VALUE, plan ? plan->func : NULL, "invalid elementwise plan");
    aug__kernel k = NULL;
    if (!plain_copy(plan)) {
        k = find_kernel(plan);
        if (!k) {
            char types[64];
            if (plan->nin == 2 && plan->in_ctype[0] != plan->in_ctype[1])
                snprintf(types, sizeof types, "%s and %s", aug__ctype_name(plan->in_ctype[0]),
                         aug__ctype_name(plan->in_ctype[1]));
            else
                snprintf(types, sizeof types, "%s", aug__ctype_name(plan->in_ctype[0]));
            return aug__error(AUG_ERR_TYPE, plan->func, "no CPU kernel for %s on %s", aug_op_name(plan->op), types);
        }
    }
    aug__iter it;
    memset(&it, 0, sizeof it);
    it.func = plan->func;
    it.nin = plan->nin;
    for (int i = 0; i < plan->nin; i++) {
        it.in[i] = plan->in[i];
        it.in_ctype[i] = plan->in_ctype[i];
    }
    it.out = plan->out;
    it.out_ctype = plan->out_ctype;
    it.kernel = k;
    it.ctx = NULL;
    return aug__iter_run(&it);
}
