/* aug/ops.h: elementwise operators and math functions, fma, gemm, reductions.
 * semantics §6-10.
 *
 * Output convention: functions take `aug_tensor **out`. If *out is NULL a new
 * tensor of the op's result dtype and the broadcast shape is allocated and stored
 * in *out (the caller frees it). If *out is a tensor, the result is written there
 * with saturate_cast (its shape must equal the broadcast shape; it may alias an
 * input) and *out is left as is. A float result written into its own float dtype
 * (a new result, or an *out of that dtype) rounds as IEEE does instead: +-inf
 * beyond the range (semantics §7). On error *out is unchanged. */
#ifndef AUG_OPS_H
#define AUG_OPS_H

#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The one list of elementwise ops: every per-op table of the library (names,
 * arities, function names, result-dtype classes, kernel families, the bool rule,
 * the augpy math functions and Tensor methods) is generated from it.
 *   X(ENUM, symbol, arity, name, CLASS, FAMILY, BOOL, PY)
 *   symbol  the DALI / Python spelling used in messages ("+", "floor");
 *   name    the function name: "aug_<name>" prefixes errors of the operator
 *           conveniences, augpy.math.<name> is the Python function (PY);
 *   CLASS   how the result dtype follows from the operands (semantics §6-8):
 *           UNARY (the operand's), ARITH, DIV, BITWISE, SHIFT (promoted),
 *           TRUEDIV, MATH (float32 for integral operands, else promoted), CMP
 *           (bool), FMA (the third operand's), COPY (the operand's), WHERE
 *           (x and y promoted; the condition, operand 0, takes no part);
 *   FAMILY  the kernel family that computes it: ARITH, DIV, CMP, BITWISE, MATH,
 *           WHERE (where(cond, x, y): x where cond != 0, else y);
 *   BOOL    1 if the op is allowed on all-bool operands (DALI's rule, §7);
 *   PY      NONE, MATH (an augpy.math function) or METHOD (also a Tensor method,
 *           where NumPy has one). */
#define AUG_OP_LIST(X) \
    X(POS     , "+", 1, pos, UNARY, ARITH, 0, NONE) \
    X(NEG     , "-", 1, neg, UNARY, ARITH, 0, NONE) \
    X(ADD     , "+", 2, add, ARITH, ARITH, 0, NONE) \
    X(SUB     , "-", 2, sub, ARITH, ARITH, 0, NONE) \
    X(MUL     , "*", 2, mul, ARITH, ARITH, 1, NONE) \
    X(TRUEDIV , "/", 2, truediv, TRUEDIV, DIV, 0, NONE) \
    X(FLOORDIV, "//", 2, floordiv, DIV, DIV, 0, NONE) \
    X(MOD     , "%", 2, mod, DIV, DIV, 0, NONE) \
    X(POW     , "**", 2, pow, DIV, DIV, 0, METHOD) \
    X(DIV_RNE , "div", 2, div, DIV, DIV, 0, NONE) \
    X(EQ      , "==", 2, eq, CMP, CMP, 1, NONE) \
    X(NE      , "!=", 2, ne, CMP, CMP, 1, NONE) \
    X(LT      , "<", 2, lt, CMP, CMP, 1, NONE) \
    X(LE      , "<=", 2, le, CMP, CMP, 1, NONE) \
    X(GT      , ">", 2, gt, CMP, CMP, 1, NONE) \
    X(GE      , ">=", 2, ge, CMP, CMP, 1, NONE) \
    X(AND     , "&", 2, and, BITWISE, BITWISE, 1, NONE) \
    X(OR      , "|", 2, or, BITWISE, BITWISE, 1, NONE) \
    X(XOR     , "^", 2, xor, BITWISE, BITWISE, 1, NONE) \
    X(INVERT  , "~", 1, invert, UNARY, BITWISE, 1, NONE) \
    X(LSHIFT  , "<<", 2, lshift, SHIFT, BITWISE, 0, NONE) \
    X(RSHIFT  , ">>", 2, rshift, SHIFT, BITWISE, 0, NONE) \
    X(ABS     , "abs", 1, abs, UNARY, ARITH, 0, METHOD) \
    X(FABS    , "fabs", 1, fabs, MATH, MATH, 0, METHOD) \
    X(FLOOR   , "floor", 1, floor, MATH, MATH, 0, METHOD) \
    X(CEIL    , "ceil", 1, ceil, MATH, MATH, 0, METHOD) \
    X(FPOW    , "fpow", 2, fpow, MATH, MATH, 0, MATH) \
    X(MIN     , "min", 2, min, ARITH, ARITH, 0, MATH) \
    X(MAX     , "max", 2, max, ARITH, ARITH, 0, MATH) \
    X(CLAMP   , "clamp", 3, clamp, ARITH, ARITH, 0, MATH) \
    X(SQRT    , "sqrt", 1, sqrt, MATH, MATH, 0, METHOD) \
    X(RSQRT   , "rsqrt", 1, rsqrt, MATH, MATH, 0, MATH) \
    X(CBRT    , "cbrt", 1, cbrt, MATH, MATH, 0, METHOD) \
    X(EXP     , "exp", 1, exp, MATH, MATH, 0, METHOD) \
    X(LOG     , "log", 1, log, MATH, MATH, 0, METHOD) \
    X(LOG2    , "log2", 1, log2, MATH, MATH, 0, METHOD) \
    X(LOG10   , "log10", 1, log10, MATH, MATH, 0, METHOD) \
    X(SIN     , "sin", 1, sin, MATH, MATH, 0, METHOD) \
    X(COS     , "cos", 1, cos, MATH, MATH, 0, METHOD) \
    X(TAN     , "tan", 1, tan, MATH, MATH, 0, METHOD) \
    X(ASIN    , "asin", 1, asin, MATH, MATH, 0, METHOD) \
    X(ACOS    , "acos", 1, acos, MATH, MATH, 0, METHOD) \
    X(ATAN    , "atan", 1, atan, MATH, MATH, 0, METHOD) \
    X(ATAN2   , "atan2", 2, atan2, MATH, MATH, 0, METHOD) \
    X(SINH    , "sinh", 1, sinh, MATH, MATH, 0, METHOD) \
    X(COSH    , "cosh", 1, cosh, MATH, MATH, 0, METHOD) \
    X(TANH    , "tanh", 1, tanh, MATH, MATH, 0, METHOD) \
    X(ASINH   , "asinh", 1, asinh, MATH, MATH, 0, METHOD) \
    X(ACOSH   , "acosh", 1, acosh, MATH, MATH, 0, METHOD) \
    X(ATANH   , "atanh", 1, atanh, MATH, MATH, 0, METHOD) \
    X(FMA     , "fma", 3, fma, FMA, MATH, 0, NONE) \
    X(COPY    , "copy", 1, copy, COPY, ARITH, 1, NONE) \
    X(WHERE   , "where", 3, where, WHERE, WHERE, 1, NONE)

typedef enum aug_op {
#define AUG_X_(e, sym, arity, name, cls, fam, b, py) AUG_OP_##e,
    AUG_OP_LIST(AUG_X_)
#undef AUG_X_
    AUG_NUM_OPS
} aug_op;

AUG_API const char *aug_op_name(aug_op op); /* "+", "floor", ... */
AUG_API int aug_op_arity(aug_op op);

/* An operand: a tensor, or (tensor == NULL) a scalar. */
typedef struct aug_operand {
    const aug_tensor *tensor;
    aug_scalar scalar;
} aug_operand;

AUG_API aug_operand aug_operand_tensor(const aug_tensor *t);
AUG_API aug_operand aug_operand_scalar(aug_scalar s);

/* Result dtype of `op` on these operands per semantics §6-§8 (comparisons -> bool, true
 * division of integers -> float32, ...). Checks the bool and bitwise rules and
 * returns AUG_ERR_TYPE with DALI's message, prefixed by `func`. */
AUG_API aug_status aug_op_result_dtype(const char *func, aug_op op, int nin, const aug_operand *in,
                                       aug_dtype *result);

/* The one elementwise entry point. `compute` overrides the computation dtype
 * (AUG_DTYPE_AUTO: exact per semantics §6-§7); when given, every operand is first
 * saturate-cast to it and the op is evaluated in it (float16/bfloat16 in float32).
 * `result` overrides the dtype of a newly allocated *out (AUTO: per semantics.md).
 * `func` prefixes error messages ("aug_add"). At least one operand must be a tensor. */
AUG_API aug_status aug_elementwise(const char *func, aug_op op, int nin, const aug_operand *in,
                                   aug_dtype compute, aug_dtype result, aug_tensor **out);

/* Operator conveniences (semantics §7; tensor x tensor). */
AUG_API aug_status aug_unary(aug_op op, const aug_tensor *a, aug_tensor **out);
AUG_API aug_status aug_binary(aug_op op, const aug_tensor *a, const aug_tensor *b, aug_tensor **out);
/* tensor op scalar, and (reflected) scalar op tensor. */
AUG_API aug_status aug_binary_scalar(aug_op op, const aug_tensor *a, aug_scalar b, aug_tensor **out);
AUG_API aug_status aug_binary_rscalar(aug_op op, aug_scalar a, const aug_tensor *b, aug_tensor **out);

/* augpy functional forms (semantics §9). With a scalar: result has the tensor's dtype;
 * integral scalar on an integer tensor is exact, otherwise computed in the
 * tensor dtype's temp type and saturated. `op` is one of ADD SUB MUL DIV_RNE
 * (augpy div) and the comparisons; `reflected` computes scalar op tensor. */
AUG_API aug_status aug_functional_scalar(const char *func, aug_op op, const aug_tensor *t, aug_scalar s,
                                         int reflected, aug_tensor **out);
/* Tensor x tensor: as the operators, except integer division rounds half to even
 * (augpy div) and with *out given the computation is in the promoted type. */
AUG_API aug_status aug_functional_tensor(const char *func, aug_op op, const aug_tensor *a,
                                         const aug_tensor *b, aug_tensor **out);

/* r = scalar * t1 + t2 in the temp type of promote(t1, t2), one rounding;
 * new *out has t2's dtype. */
AUG_API aug_status aug_fma(double scalar, const aug_tensor *t1, const aug_tensor *t2, aug_tensor **out);
/* r = a * b + c for three operands, each a tensor or a scalar (at least one a
 * tensor), broadcast together (NumPy rules), one rounding, computed in the temp
 * type of promote(b, c) joined by a when a is a tensor (a scalar a stays exact
 * as in aug_fma). New *out: c's dtype when c is a tensor, else b's, else a's;
 * with *out given: stored into it with saturate_cast. aug_fma(s, t1, t2) is
 * aug_fma_operands(scalar s, t1, t2). */
AUG_API aug_status aug_fma_operands(aug_operand a, aug_operand b, aug_operand c, aug_tensor **out);

/* C = alpha * (A @ B) + beta * C for float32/float64 2-D tensors (contiguous or
 * transposed views). With *C NULL a new (m, n) tensor is allocated (beta ignored). */
AUG_API aug_status aug_gemm(const aug_tensor *A, const aug_tensor *B, aug_tensor **C,
                            double alpha, double beta);

/* ---- reductions (semantics §10) --------------------------------------------------- */

typedef enum aug_reduce_op {
    AUG_REDUCE_SUM, AUG_REDUCE_MIN, AUG_REDUCE_MAX, AUG_REDUCE_MEAN, AUG_REDUCE_ALL, AUG_REDUCE_ANY,
    AUG_REDUCE_ARGMIN, AUG_REDUCE_ARGMAX
} aug_reduce_op;

/* Reduce over `naxes` axes (negative allowed; naxes < 0 means all axes).
 * keepdim keeps reduced axes with extent 1. Result dtypes:
 *   SUM: input dtype (saturated), or with upcast int64 / uint64 / float64
 *        (bool counts as uint64);
 *   MIN/MAX: input dtype (NaN propagates; empty reduction -> ValueError);
 *   MEAN: floating input -> its dtype, integer/bool -> float64 (empty -> NaN);
 *   ALL/ANY: bool;
 *   ARGMIN/ARGMAX: int64, the index of the first minimum / maximum in C order of
 *        the reduced axes (all axes: the flat index; one axis: the index along it;
 *        at most one axis or all); a NaN is the result (the first NaN); -0.0 and
 *        +0.0 are equal; upcast is ignored; empty reduction -> ValueError.
 * Integers accumulate exactly; floats pairwise in float64; results do not depend
 * on the thread count. */
AUG_API aug_status aug_reduce(aug_reduce_op op, const aug_tensor *t, int naxes, const int *axes,
                              int keepdim, int upcast, aug_tensor **out);

#ifdef __cplusplus
}
#endif
#endif
