/* core/promote.h: result dtypes and compute types of elementwise operations (private).
 *
 * core/promote.c decides, for an op and its operands, the dtype of a new result
 * (semantics §6-§8), enforces the bool and bitwise type rules, and chooses the ctype every
 * operand is read in and the kernel writes (the contract of cpu/kernels.h).
 * core/elementwise.c turns that decision into an aug__ew_plan. */
#ifndef AUG_CORE_PROMOTE_H
#define AUG_CORE_PROMOTE_H

#include "aug/ops.h"
#include "plan.h"

/* How an op's result dtype follows from its operands. */
typedef enum aug__op_class {
    AUG__CLASS_UNARY,   /* POS NEG ABS INVERT: the operand's dtype */
    AUG__CLASS_ARITH,   /* ADD SUB MUL MIN MAX CLAMP: promoted */
    AUG__CLASS_DIV,     /* FLOORDIV MOD POW DIV_RNE: promoted */
    AUG__CLASS_TRUEDIV, /* TRUEDIV: float32 for integral operands, else promoted */
    AUG__CLASS_MATH,    /* FABS ... ATANH, FPOW, ATAN2: as TRUEDIV */
    AUG__CLASS_CMP,     /* EQ ... GE: bool */
    AUG__CLASS_BITWISE, /* AND OR XOR: promoted, integral only */
    AUG__CLASS_SHIFT,   /* LSHIFT RSHIFT: promoted, integer only */
    AUG__CLASS_FMA,     /* FMA: the third operand's dtype (a scalar third: the second's, else the first's) */
    AUG__CLASS_COPY,    /* COPY: the operand's dtype */
    AUG__CLASS_WHERE    /* WHERE(cond, x, y): promote(x, y); cond is read as bool */
} aug__op_class;

AUG__HIDDEN aug__op_class aug__op_class_of(aug_op op);

/* "aug_add", "aug_truediv", "aug_sqrt": the func prefix used by the operator
 * conveniences (aug_unary, aug_binary, ...) for op. */
AUG__HIDDEN const char *aug__op_func(aug_op op);

/* Everything the core decides about one elementwise call. */
typedef struct aug__ew_decision {
    aug_op op;                          /* the op to run (a shift by a negative scalar count flips) */
    aug_dtype result;                   /* dtype of a newly allocated result */
    aug_scalar value[AUG__MAX_INPUTS];  /* scalar operands: the value to store in the 0-d element */
    aug_dtype elem[AUG__MAX_INPUTS];    /* scalar operands: the dtype of that element */
    aug_dtype precast[AUG__MAX_INPUTS]; /* tensor operands: AUTO, or a dtype to cast to first */
    int precast_ieee;                   /* the precasts round as IEEE arithmetic (+-inf beyond the
                                           range), not by saturate_cast */
    int in_ctype[AUG__MAX_INPUTS];
    int out_ctype;
} aug__ew_decision;

/* Result dtype per semantics §6-§8 with the type rules (bool, bitwise) checked; errors
 * are AUG_ERR_TYPE prefixed by func. Arguments must already be validated (op, nin
 * == arity, operands non-NULL with valid dtypes, at least one non-weak operand). */
AUG__HIDDEN aug_status aug__ew_result_dtype(const char *func, aug_op op, int nin, const aug_operand *in,
                                            aug_dtype *result);

/* The full decision for aug_elementwise. `compute` is AUG_DTYPE_AUTO or an
 * override (validated here against the op). Same preconditions as above. */
AUG__HIDDEN aug_status aug__ew_decide(const char *func, aug_op op, int nin, const aug_operand *in,
                                      aug_dtype compute, aug__ew_decision *d);

#endif
