/* cpu/kernels.h: the CPU kernel families (private).
 *
 * Each family file returns the 1-D kernel (cpu/iter.h signature) for an op and
 * compute type (ctype), or NULL when it has none. The core (core/elementwise.c)
 * chooses ctypes; these conventions are the contract between the two:
 *
 *  arith   POS NEG ADD SUB MUL ABS MIN MAX CLAMP COPY
 *          ctype: BOOL (MUL/MIN/MAX/CLAMP only, values 0/1), INT8..UINT64 (saturate
 *          to their own range), AUG__I128 (exact; MUL saturates at the i128 range),
 *          FLOAT32, FLOAT64. Output ctype == input ctype.
 *  div     TRUEDIV (FLOAT32/FLOAT64), FLOORDIV MOD DIV_RNE POW (INT8..UINT64,
 *          AUG__I128, FLOAT32, FLOAT64). Output ctype == input ctype.
 *  cmp     EQ NE LT LE GT GE on (a, b) ctypes: equal ctypes (BOOL, INT8..UINT64,
 *          AUG__I128, FLOAT32, FLOAT64), or mixed (AUG__I128, FLOAT64) /
 *          (FLOAT64, AUG__I128) compared exactly. Output ctype BOOL.
 *  bitwise AND OR XOR INVERT LSHIFT RSHIFT: BOOL (not the shifts), INT8..UINT64.
 *          Output ctype == input ctype.
 *  math    FABS FLOOR CEIL FPOW SQRT RSQRT CBRT EXP LOG LOG2 LOG10 SIN COS TAN ASIN
 *          ACOS ATAN ATAN2 SINH COSH TANH ASINH ACOSH ATANH FMA: FLOAT32, FLOAT64.
 *  where   WHERE: condition ctype BOOL; x, y and output on one ctype (BOOL,
 *          INT8..UINT64, AUG__I128, FLOAT32, FLOAT64).
 *
 * float16/bfloat16 never reach a kernel: the core computes them in FLOAT32.
 * The families write their kernels and lookup tables with cpu/loops.h. */
#ifndef AUG_CPU_KERNELS_H
#define AUG_CPU_KERNELS_H

#include "cpu/iter.h"
#include "aug/ops.h"
#include "core/kernel_slots.h"

AUG__HIDDEN aug__kernel aug__cpu_arith_kernel(aug_op op, int ctype);
AUG__HIDDEN aug__kernel aug__cpu_div_kernel(aug_op op, int ctype);
AUG__HIDDEN aug__kernel aug__cpu_cmp_kernel(aug_op op, int ctype_a, int ctype_b);
AUG__HIDDEN aug__kernel aug__cpu_bitwise_kernel(aug_op op, int ctype);
AUG__HIDDEN aug__kernel aug__cpu_math_kernel(aug_op op, int ctype);
AUG__HIDDEN aug__kernel aug__cpu_where_kernel(int ctype);

#endif
