/* cuda/ew_math.cu: the "math" kernel family on the GPU: the DALI math functions
 * on FLOAT32 and FLOAT64, each computed by the function scalar/math.h names
 * (CUDA's libdevice here, glibc on the CPU: the one family whose bits may differ
 * between backends, within semantics §8's ulp bounds). FMA rounds once. */
/* One element per access on the contiguous path: these kernels are bound by
 * their arithmetic, and two float64 transcendentals unrolled side by side
 * spilled at 64 registers on sm_100 (cuda/ew.cuh, aug__ew_v). */
#define AUG__EW_VCAP 1
#include "cuda/ew.cuh"
#include "scalar/math.h"

#define X_UNARY(OP, F32, F64)                          \
    AUG__EW_DEF1(OP##_f32, float, float, F32)          \
    AUG__EW_DEF1(OP##_f64, double, double, F64)
#define X_BINARY(OP, F32, F64)                         \
    AUG__EW_DEF2(OP##_f32, float, float, float, F32)   \
    AUG__EW_DEF2(OP##_f64, double, double, double, F64)
#define X_TERNARY(OP, F32, F64)                        \
    AUG__EW_DEF3(OP##_f32, float, F32)                 \
    AUG__EW_DEF3(OP##_f64, double, F64)

AUG__MATH_UNARY_LIST(X_UNARY)
AUG__MATH_BINARY_LIST(X_BINARY)
AUG__MATH_TERNARY_LIST(X_TERNARY)

aug__ew_launcher aug__cuda_math_launcher(aug_op op, int ctype) {
    if (ctype != AUG__CT_FLOAT32 && ctype != AUG__CT_FLOAT64) return NULL;
    const int f32 = ctype == AUG__CT_FLOAT32;
    switch (op) {
#define X_CASE(OP, F32, F64) \
    case AUG_OP_##OP: return f32 ? l_##OP##_f32 : l_##OP##_f64;
        AUG__MATH_UNARY_LIST(X_CASE)
        AUG__MATH_BINARY_LIST(X_CASE)
        AUG__MATH_TERNARY_LIST(X_CASE)
#undef X_CASE
    default: return NULL;
    }
}
