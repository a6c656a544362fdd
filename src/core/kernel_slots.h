/* core/kernel_slots.h: which kernel an elementwise op runs (private; C11 and the
 * CUDA module's C++).
 *
 * Each backend keeps, per op family, a table of per-ctype records of kernels;
 * a record is an array indexed by the op's slot below. These functions give a
 * plan's family, an op's slot (-1: not this family) and a comparison's ctype
 * pair's table row, so the choice of kernel for (op, ctypes) is written once for
 * every backend. */
#ifndef AUG_CORE_KERNEL_SLOTS_H
#define AUG_CORE_KERNEL_SLOTS_H

#include "aug/ops.h"
#include "scalar/cast.h"

/* The kernel family of op (the FAMILY column of AUG_OP_LIST) when the plan's
 * ctypes (ctype[0 .. nin-1] the inputs, ctype[nin] the result) fit one of its
 * kernels: one ctype throughout, for a comparison any two inputs and a bool
 * result, for where a bool condition and one ctype for the rest; -1 otherwise. */
enum { AUG__KFAM_ARITH, AUG__KFAM_DIV, AUG__KFAM_CMP, AUG__KFAM_BITWISE, AUG__KFAM_MATH, AUG__KFAM_WHERE };
static inline int aug__kernel_family(aug_op op, int nin, const int *ctype) {
    static const unsigned char family[AUG_NUM_OPS] = {
#define AUG__KFAM_(e, sym, arity, name, cls, fam, b, py) AUG__KFAM_##fam,
        AUG_OP_LIST(AUG__KFAM_)
#undef AUG__KFAM_
    };
    if ((int)op < 0 || op >= AUG_NUM_OPS) return -1;
    if (family[op] == AUG__KFAM_CMP) return ctype[nin] == AUG__CT_BOOL ? AUG__KFAM_CMP : -1;
    if (family[op] == AUG__KFAM_WHERE) /* a bool condition, x, y and the result in one ctype */
        return nin == 3 && ctype[0] == AUG__CT_BOOL && ctype[1] == ctype[2] && ctype[3] == ctype[2]
                   ? AUG__KFAM_WHERE : -1;
    for (int i = 1; i <= nin; i++)
        if (ctype[i] != ctype[0]) return -1;
    return family[op];
}

enum {
    AUG__ARITH_POS, AUG__ARITH_NEG, AUG__ARITH_ADD, AUG__ARITH_SUB, AUG__ARITH_MUL, AUG__ARITH_ABS,
    AUG__ARITH_MIN, AUG__ARITH_MAX, AUG__ARITH_CLAMP, AUG__ARITH_SLOTS
};
static inline int aug__arith_slot(aug_op op) {
    switch (op) {
    case AUG_OP_POS: case AUG_OP_COPY: return AUG__ARITH_POS;
    case AUG_OP_NEG: return AUG__ARITH_NEG;
    case AUG_OP_ADD: return AUG__ARITH_ADD;
    case AUG_OP_SUB: return AUG__ARITH_SUB;
    case AUG_OP_MUL: return AUG__ARITH_MUL;
    case AUG_OP_ABS: return AUG__ARITH_ABS;
    case AUG_OP_MIN: return AUG__ARITH_MIN;
    case AUG_OP_MAX: return AUG__ARITH_MAX;
    case AUG_OP_CLAMP: return AUG__ARITH_CLAMP;
    default: return -1;
    }
}

enum { AUG__DIV_TRUEDIV, AUG__DIV_FLOORDIV, AUG__DIV_MOD, AUG__DIV_RNE, AUG__DIV_POW, AUG__DIV_SLOTS };
static inline int aug__div_slot(aug_op op) {
    switch (op) {
    case AUG_OP_TRUEDIV: return AUG__DIV_TRUEDIV;
    case AUG_OP_FLOORDIV: return AUG__DIV_FLOORDIV;
    case AUG_OP_MOD: return AUG__DIV_MOD;
    case AUG_OP_DIV_RNE: return AUG__DIV_RNE;
    case AUG_OP_POW: return AUG__DIV_POW;
    default: return -1;
    }
}

enum { AUG__BIT_AND, AUG__BIT_OR, AUG__BIT_XOR, AUG__BIT_INV, AUG__BIT_SHL, AUG__BIT_SHR, AUG__BIT_SLOTS };
static inline int aug__bitwise_slot(aug_op op) {
    switch (op) {
    case AUG_OP_AND: return AUG__BIT_AND;
    case AUG_OP_OR: return AUG__BIT_OR;
    case AUG_OP_XOR: return AUG__BIT_XOR;
    case AUG_OP_INVERT: return AUG__BIT_INV;
    case AUG_OP_LSHIFT: return AUG__BIT_SHL;
    case AUG_OP_RSHIFT: return AUG__BIT_SHR;
    default: return -1;
    }
}

enum { AUG__CMP_EQ, AUG__CMP_NE, AUG__CMP_LT, AUG__CMP_LE, AUG__CMP_GT, AUG__CMP_GE, AUG__CMP_SLOTS };
static inline int aug__cmp_slot(aug_op op) {
    switch (op) {
    case AUG_OP_EQ: return AUG__CMP_EQ;
    case AUG_OP_NE: return AUG__CMP_NE;
    case AUG_OP_LT: return AUG__CMP_LT;
    case AUG_OP_LE: return AUG__CMP_LE;
    case AUG_OP_GT: return AUG__CMP_GT;
    case AUG_OP_GE: return AUG__CMP_GE;
    default: return -1;
    }
}

/* A comparison's table row: its ctype when both operands have the same one;
 * the exact int128 x float64 comparisons (the integer-with-float rule) in
 * rows AUG__CMP_ROW_IF and AUG__CMP_ROW_FI after the ctypes; -1 otherwise. */
enum { AUG__CMP_ROW_IF = AUG__NUM_CTYPES, AUG__CMP_ROW_FI, AUG__CMP_ROWS };
static inline int aug__cmp_row(int ctype_a, int ctype_b) {
    if (ctype_a == AUG__CT_I128 && ctype_b == AUG__CT_FLOAT64) return AUG__CMP_ROW_IF;
    if (ctype_a == AUG__CT_FLOAT64 && ctype_b == AUG__CT_I128) return AUG__CMP_ROW_FI;
    if (ctype_a != ctype_b || ctype_a < 0 || ctype_a >= AUG__NUM_CTYPES) return -1;
    return ctype_a;
}

#endif
