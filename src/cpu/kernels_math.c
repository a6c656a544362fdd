/* cpu/kernels_math.c: the "math" kernel family (cpu/kernels.h): the DALI math
 * functions on FLOAT32 and FLOAT64 (SPEC 8).
 *
 * Unary ops read data[0] and write data[1]; FPOW and ATAN2 read data[0], data[1];
 * FMA reads three inputs and rounds once (fmaf / fma). FLOAT32 uses libm's float
 * functions (sinf, ...), FLOAT64 the double ones: glibc keeps them within the
 * SPEC's 2 ulp (float32) and 4 ulp (float64) bounds, and returns NaN outside each
 * function's domain (sqrt(-1), acosh(0.5), ...). RSQRT is 1 / sqrt(x): two
 * roundings, at most 1.5 ulp. This file is the only place allowed to fuse a
 * multiply and an add, and only through the explicit fma() call.
 *
 * Margins: glibc 2.36's float32 log10f, sinhf, tanhf, asinhf, acoshf and atanhf reach
 * exactly 2 ulp, the SPEC's limit, and coshf is computed from expf like sinhf; so
 * float32 evaluates these seven in double and rounds once (<= 1 ulp, and portable
 * to libms with worse float versions). glibc's double cbrt reaches 3 ulp; one
 * Newton step in long double brings it to <= 1. */
#include <math.h>
#include "cpu/kernels.h"
#include "cpu/loops.h"

static inline float rsqrt_f32(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt_f64(double x) { return 1.0 / sqrt(x); }

/* float32 through double: the double result is within 2^-50 relative, so the one
 * rounding to float is within 0.5 ulp plus a hair. Overflow rounds to inf, domain
 * errors stay NaN. */
static inline float log10_f32(float x) { return (float)log10((double)x); }
static inline float sinh_f32(float x) { return (float)sinh((double)x); }
static inline float cosh_f32(float x) { return (float)cosh((double)x); }
static inline float tanh_f32(float x) { return (float)tanh((double)x); }
static inline float asinh_f32(float x) { return (float)asinh((double)x); }
static inline float acosh_f32(float x) { return (float)acosh((double)x); }
static inline float atanh_f32(float x) { return (float)atanh((double)x); }

/* cbrt refined by one Newton step y -= (y^3 - x) / (3 y^2) in long double: the
 * step squares the relative error (2^-51 -> 2^-100), leaving the long double
 * rounding (2^-63), far below half a double ulp. 0, inf, NaN pass through. */
static inline double cbrt_f64(double x) {
    double r = cbrt(x);
    if (r == 0.0 || !isfinite(r)) return r;
    long double y = r;
    y -= (y * y * y - (long double)x) / (3.0L * y * y);
    return (double)y;
}

/* ---- kernels (cpu/loops.h) -------------------------------------------------- */

/* X(OP, float32 function, float64 function) */
#define AUG__MATH_UNARY_LIST(X)         \
    X(FABS, fabsf, fabs)                \
    X(FLOOR, floorf, floor)             \
    X(CEIL, ceilf, ceil)                \
    X(SQRT, sqrtf, sqrt)                \
    X(RSQRT, rsqrt_f32, rsqrt_f64)      \
    X(CBRT, cbrtf, cbrt_f64)            \
    X(EXP, expf, exp)                   \
    X(LOG, logf, log)                   \
    X(LOG2, log2f, log2)                \
    X(LOG10, log10_f32, log10)          \
    X(SIN, sinf, sin)                   \
    X(COS, cosf, cos)                   \
    X(TAN, tanf, tan)                   \
    X(ASIN, asinf, asin)                \
    X(ACOS, acosf, acos)                \
    X(ATAN, atanf, atan)                \
    X(SINH, sinh_f32, sinh)             \
    X(COSH, cosh_f32, cosh)             \
    X(TANH, tanh_f32, tanh)             \
    X(ASINH, asinh_f32, asinh)          \
    X(ACOSH, acosh_f32, acosh)          \
    X(ATANH, atanh_f32, atanh)

#define AUG__MATH_BINARY_LIST(X)        \
    X(FPOW, powf, pow)                  \
    X(ATAN2, atan2f, atan2)

#define AUG__X_UNARY(OP, F32, F64)                 \
    DEF_UNARY_KERNEL(k_##OP##_f32, float, F32)     \
    DEF_UNARY_KERNEL(k_##OP##_f64, double, F64)
#define AUG__X_BINARY(OP, F32, F64)                \
    DEF_BINARY_KERNEL(k_##OP##_f32, float, F32)    \
    DEF_BINARY_KERNEL(k_##OP##_f64, double, F64)

AUG__MATH_UNARY_LIST(AUG__X_UNARY)
AUG__MATH_BINARY_LIST(AUG__X_BINARY)
DEF_TERNARY_KERNEL(k_FMA_f32, float, fmaf)
DEF_TERNARY_KERNEL(k_FMA_f64, double, fma)

/* ---- lookup ------------------------------------------------------------------- */

aug__kernel aug__cpu_math_kernel(aug_op op, int ctype) {
    if (ctype != AUG_FLOAT32 && ctype != AUG_FLOAT64) return NULL;
    const int f32 = ctype == AUG_FLOAT32;
    switch (op) {
#define AUG__X_CASE(OP, F32, F64) \
    case AUG_OP_##OP: return f32 ? k_##OP##_f32 : k_##OP##_f64;
    AUG__MATH_UNARY_LIST(AUG__X_CASE)
    AUG__MATH_BINARY_LIST(AUG__X_CASE)
    AUG__X_CASE(FMA, fmaf, fma)
#undef AUG__X_CASE
    default: return NULL;
    }
}
