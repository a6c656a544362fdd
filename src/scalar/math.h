/* scalar/math.h: the scalar rules of the math functions on FLOAT32 and FLOAT64
 * (semantics §8; private, shared by every backend).
 *
 * FLOAT32 uses the float functions of the platform's math library (glibc on the
 * host, CUDA's libdevice on the GPU), FLOAT64 the double ones; both keep within
 * semantics §8's 2 ulp (float32) and 4 ulp (float64) and return NaN outside each
 * function's domain. These are the only rules whose bits may differ between
 * backends (libdevice is not glibc); everything else is bit-identical.
 * RSQRT is 1 / sqrt(x): two correctly rounded steps, at most 1.5 ulp.
 *
 * Margins: glibc 2.36's float32 log10f, sinhf, tanhf, asinhf, acoshf and atanhf
 * reach exactly 2 ulp, the limit, and coshf is computed from expf like sinhf; so
 * float32 evaluates these seven in double and rounds once (<= 1 ulp, and
 * portable to libraries with worse float versions). CUDA documents its float
 * tanf at 4 ulp, atan2f at 3 and powf at 4 (its double versions at 1-2 ulp), so
 * float32 tan, atan2 and pow (FPOW, and `**` in scalar/div.h) go through double
 * too: correctly rounded but for a double rounding (test_kernels_math.c's sweep
 * measures 0.5 ulp at worst where glibc's float versions reach 1.3-1.5). glibc's double cbrt reaches
 * 3 ulp; on the host one Newton step in long double brings it to <= 1 (CUDA's
 * cbrt is within 1 ulp already and the GPU has no long double). FMA rounds once
 * (fmaf / fma): this file is the only place allowed to fuse a multiply and an
 * add, and only through that explicit call. */
#ifndef AUG_SCALAR_MATH_H
#define AUG_SCALAR_MATH_H

#include "hd.h"

AUG_HD float aug__rsqrt_f32(float x) { return 1.0f / sqrtf(x); }
AUG_HD double aug__rsqrt_f64(double x) { return 1.0 / sqrt(x); }

/* float32 through double: the double result is within 2^-50 relative, so the one
 * rounding to float is within 0.5 ulp plus a hair. Overflow rounds to inf, domain
 * errors stay NaN. */
AUG_HD float aug__log10_f32(float x) { return (float)log10((double)x); }
AUG_HD float aug__sinh_f32(float x) { return (float)sinh((double)x); }
AUG_HD float aug__cosh_f32(float x) { return (float)cosh((double)x); }
AUG_HD float aug__tanh_f32(float x) { return (float)tanh((double)x); }
AUG_HD float aug__asinh_f32(float x) { return (float)asinh((double)x); }
AUG_HD float aug__acosh_f32(float x) { return (float)acosh((double)x); }
AUG_HD float aug__atanh_f32(float x) { return (float)atanh((double)x); }
AUG_HD float aug__tan_f32(float x) { return (float)tan((double)x); }
AUG_HD float aug__atan2_f32(float y, float x) { return (float)atan2((double)y, (double)x); }
/* Float operands are exact in double, so pow's special cases (negative base with
 * a non-integer exponent, 1 ** NaN, 0 ** -1) are those of powf. */
AUG_HD float aug__fpow_f32(float x, float y) { return (float)pow((double)x, (double)y); }

#if defined(__CUDACC__)
AUG_HD double aug__cbrt_f64(double x) { return cbrt(x); }
#else
/* cbrt refined by one Newton step y -= (y^3 - x) / (3 y^2) in long double: the
 * step squares the relative error (2^-51 -> 2^-100), leaving the long double
 * rounding (2^-63), far below half a double ulp. 0, inf, NaN pass through. */
static inline double aug__cbrt_f64(double x) {
    double r = cbrt(x);
    if (r == 0.0 || !isfinite(r)) return r;
    long double y = r;
    y -= (y * y * y - (long double)x) / (3.0L * y * y);
    return (double)y;
}
#endif

/* X(OP, float32 function, float64 function): the unary functions. */
#define AUG__MATH_UNARY_LIST(X)         \
    X(FABS, fabsf, fabs)                \
    X(FLOOR, floorf, floor)             \
    X(CEIL, ceilf, ceil)                \
    X(SQRT, sqrtf, sqrt)                \
    X(RSQRT, aug__rsqrt_f32, aug__rsqrt_f64) \
    X(CBRT, cbrtf, aug__cbrt_f64)       \
    X(EXP, expf, exp)                   \
    X(LOG, logf, log)                   \
    X(LOG2, log2f, log2)                \
    X(LOG10, aug__log10_f32, log10)     \
    X(SIN, sinf, sin)                   \
    X(COS, cosf, cos)                   \
    X(TAN, aug__tan_f32, tan)           \
    X(ASIN, asinf, asin)                \
    X(ACOS, acosf, acos)                \
    X(ATAN, atanf, atan)                \
    X(SINH, aug__sinh_f32, sinh)        \
    X(COSH, aug__cosh_f32, cosh)        \
    X(TANH, aug__tanh_f32, tanh)        \
    X(ASINH, aug__asinh_f32, asinh)     \
    X(ACOSH, aug__acosh_f32, acosh)     \
    X(ATANH, aug__atanh_f32, atanh)

/* The binary functions, and FMA (ternary, one rounding). */
#define AUG__MATH_BINARY_LIST(X)        \
    X(FPOW, aug__fpow_f32, pow)         \
    X(ATAN2, aug__atan2_f32, atan2)
#define AUG__MATH_TERNARY_LIST(X)       \
    X(FMA, fmaf, fma)

#endif
