/* cpu/kernels_math.c: the "math" kernel family (cpu/kernels.h): the DALI math
 * functions on FLOAT32 and FLOAT64 (semantics §8).
 *
 * Unary ops read data[0] and write data[1]; FPOW and ATAN2 read data[0], data[1];
 * FMA reads three inputs and rounds once. Which function computes each op, and
 * with what precision, is scalar/math.h's list, shared with the CUDA backend. */
#include "cpu/kernels.h"
#include "cpu/loops.h"
#include "scalar/math.h"

#define X_UNARY(OP, F32, F64)                      \
    DEF_UNARY_KERNEL(k_##OP##_f32, float, F32)     \
    DEF_UNARY_KERNEL(k_##OP##_f64, double, F64)
#define X_BINARY(OP, F32, F64)                     \
    DEF_BINARY_KERNEL(k_##OP##_f32, float, F32)    \
    DEF_BINARY_KERNEL(k_##OP##_f64, double, F64)
#define X_TERNARY(OP, F32, F64)                    \
    DEF_TERNARY_KERNEL(k_##OP##_f32, float, F32)   \
    DEF_TERNARY_KERNEL(k_##OP##_f64, double, F64)

AUG__MATH_UNARY_LIST(X_UNARY)
AUG__MATH_BINARY_LIST(X_BINARY)
AUG__MATH_TERNARY_LIST(X_TERNARY)

aug__kernel aug__cpu_math_kernel(aug_op op, int ctype) {
    if (ctype != AUG__CT_FLOAT32 && ctype != AUG__CT_FLOAT64) return NULL;
    const int f32 = ctype == AUG__CT_FLOAT32;
    switch (op) {
#define X_CASE(OP, F32, F64) \
    case AUG_OP_##OP: return f32 ? k_##OP##_f32 : k_##OP##_f64;
    AUG__MATH_UNARY_LIST(X_CASE)
    AUG__MATH_BINARY_LIST(X_CASE)
    AUG__MATH_TERNARY_LIST(X_CASE)
#undef X_CASE
    default: return NULL;
    }
}
