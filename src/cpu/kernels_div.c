/* cpu/kernels_div.c: the "div" kernel family (cpu/kernels.h): TRUEDIV, FLOORDIV,
 * MOD, DIV_RNE and POW on one compute type (SPEC 7, 9).
 *
 * Integer ctypes (INT8..UINT64) compute natively and saturate to their own range;
 * AUG__I128 is exact (saturating only at the i128 range, which the engine then
 * clamps to the output dtype). No operation here has C undefined behaviour: the
 * INT_MIN / -1 and x / 0 cases are decided before any C division.
 *
 *   FLOORDIV  floor(a / b); x // 0 -> max (x > 0), min (x < 0), 0 (x == 0).
 *   MOD       Python: sign of the divisor, a == (a // b) * b + a % b; x % 0 -> 0.
 *   DIV_RNE   exact quotient rounded half to even (augpy div); x / 0 as FLOORDIV.
 *   POW       exact x**y saturated; y < 0: round half to even of the real power
 *             (1, +-1 for -1, 0 for |x| >= 2, max for 0 like +inf); 0**0 = 1.
 * Floats: TRUEDIV and DIV_RNE are IEEE a / b, FLOORDIV floor(a / b), MOD NumPy's
 * `remainder`, POW pow(). */
#include <math.h>
#include "cpu/kernels.h"
#include "cpu/loops.h"

/* ---- signed integer scalar ops ---------------------------------------------- */

/* T: the type, U: its unsigned counterpart (same width), S: suffix. */
#define AUG__DEF_SIGNED_OPS(S, T, U, TMIN, TMAX)                                      \
    static inline T floordiv_##S(T a, T b) {                                          \
        if (b == 0) return a > 0 ? (T)(TMAX) : (a < 0 ? (T)(TMIN) : (T)0);            \
        if (b == -1) return a == (T)(TMIN) ? (T)(TMAX) : (T)-a;                       \
        T q = (T)(a / b), r = (T)(a % b);                                             \
        if (r != 0 && ((r < 0) != (b < 0))) q--;                                      \
        return q;                                                                     \
    }                                                                                 \
    static inline T mod_##S(T a, T b) {                                               \
        if (b == 0 || b == -1) return 0; /* -1: avoids TMIN % -1 */                   \
        T r = (T)(a % b);                                                             \
        if (r != 0 && ((r < 0) != (b < 0))) r = (T)(r + b);                           \
        return r;                                                                     \
    }                                                                                 \
    static inline T divrne_##S(T a, T b) {                                            \
        if (b == 0) return a > 0 ? (T)(TMAX) : (a < 0 ? (T)(TMIN) : (T)0);            \
        if (b == -1) return a == (T)(TMIN) ? (T)(TMAX) : (T)-a;                       \
        T q = (T)(a / b), r = (T)(a % b);                                             \
        if (r != 0) {                                                                 \
            /* Compare |r| with |b| - |r| in unsigned magnitudes (2|r| may overflow); \
             * rounding away from zero cannot overflow: |b| >= 2 there. */            \
            U ur = r < 0 ? (U)((U)0 - (U)r) : (U)r;                                   \
            U ub = b < 0 ? (U)((U)0 - (U)b) : (U)b;                                   \
            U rest = (U)(ub - ur);                                                    \
            if (ur > rest || (ur == rest && (q & 1)))                                 \
                q = (T)(((a < 0) != (b < 0)) ? q - 1 : q + 1);                        \
        }                                                                             \
        return q;                                                                     \
    }                                                                                 \
    static inline T pow_##S(T a, T b) {                                               \
        if (b < 0) {                                                                  \
            if (a == 1) return 1;                                                     \
            if (a == -1) return (b & 1) ? (T)-1 : (T)1;                               \
            return a == 0 ? (T)(TMAX) : (T)0; /* |a| >= 2: |a**b| <= 1/2 -> 0 */      \
        }                                                                             \
        const int neg = a < 0 && (b & 1);                                             \
        U m = a < 0 ? (U)((U)0 - (U)a) : (U)a;                                        \
        if (m <= 1) return b == 0 ? (T)1 : (neg ? (T)-(T)m : (T)m);                   \
        /* |result| may reach |TMIN| = TMAX + 1 when the result is negative. */       \
        const U lim = neg ? (U)((U)(TMAX) + 1) : (U)(TMAX);                           \
        U r = 1, e = (U)b;                                                            \
        for (;;) {                                                                    \
            if ((e & 1) && (__builtin_mul_overflow(r, m, &r) || r > lim))             \
                return neg ? (T)(TMIN) : (T)(TMAX);                                   \
            e >>= 1;                                                                  \
            if (!e) break;                                                            \
            /* m >= 2 and a set bit remains: a square beyond lim saturates. */        \
            if (__builtin_mul_overflow(m, m, &m) || m > lim)                          \
                return neg ? (T)(TMIN) : (T)(TMAX);                                   \
        }                                                                             \
        return neg ? (T)((U)0 - r) : (T)r;                                            \
    }

/* ---- unsigned integer scalar ops -------------------------------------------- */

#define AUG__DEF_UNSIGNED_OPS(S, T, TMAX)                                             \
    static inline T floordiv_##S(T a, T b) { return b == 0 ? (a ? (T)(TMAX) : 0) : (T)(a / b); } \
    static inline T mod_##S(T a, T b) { return b == 0 ? (T)0 : (T)(a % b); }          \
    static inline T divrne_##S(T a, T b) {                                            \
        if (b == 0) return a ? (T)(TMAX) : 0;                                         \
        T q = (T)(a / b), r = (T)(a % b), rest = (T)(b - r);                          \
        if (r != 0 && (r > rest || (r == rest && (q & 1)))) q++;                      \
        return q;                                                                     \
    }                                                                                 \
    static inline T pow_##S(T a, T b) {                                               \
        if (a <= 1) return b == 0 ? (T)1 : a;                                         \
        T r = 1, m = a, e = b;                                                        \
        for (;;) {                                                                    \
            if ((e & 1) && __builtin_mul_overflow(r, m, &r)) return (T)(TMAX);        \
            e >>= 1;                                                                  \
            if (!e) break;                                                            \
            if (__builtin_mul_overflow(m, m, &m)) return (T)(TMAX);                   \
        }                                                                             \
        return r;                                                                     \
    }

AUG__DEF_SIGNED_OPS(i8, int8_t, uint8_t, INT8_MIN, INT8_MAX)
AUG__DEF_SIGNED_OPS(i16, int16_t, uint16_t, INT16_MIN, INT16_MAX)
AUG__DEF_SIGNED_OPS(i32, int32_t, uint32_t, INT32_MIN, INT32_MAX)
AUG__DEF_SIGNED_OPS(i64, int64_t, uint64_t, INT64_MIN, INT64_MAX)
AUG__DEF_SIGNED_OPS(i128, aug__i128, aug__u128, AUG__I128_MIN, AUG__I128_MAX)
AUG__DEF_UNSIGNED_OPS(u8, uint8_t, UINT8_MAX)
AUG__DEF_UNSIGNED_OPS(u16, uint16_t, UINT16_MAX)
AUG__DEF_UNSIGNED_OPS(u32, uint32_t, UINT32_MAX)
AUG__DEF_UNSIGNED_OPS(u64, uint64_t, UINT64_MAX)

/* ---- float scalar ops ------------------------------------------------------- */

static inline float truediv_f32(float a, float b) { return a / b; }
static inline double truediv_f64(double a, double b) { return a / b; }
static inline float floordiv_f32(float a, float b) { return floorf(a / b); }
static inline double floordiv_f64(double a, double b) { return floor(a / b); }
static inline float pow_f32(float a, float b) { return powf(a, b); }
static inline double pow_f64(double a, double b) { return pow(a, b); }

/* NumPy `remainder`: fmod, moved into the divisor's sign; a zero result takes the
 * divisor's sign; x % 0 and inf % b are NaN (from fmod). */
static inline float mod_f32(float a, float b) {
    float m = fmodf(a, b);
    if (m != 0.0f) {
        if ((b < 0.0f) != (m < 0.0f)) m += b;
    } else {
        m = copysignf(0.0f, b);
    }
    return m;
}
static inline double mod_f64(double a, double b) {
    double m = fmod(a, b);
    if (m != 0.0) {
        if ((b < 0.0) != (m < 0.0)) m += b;
    } else {
        m = copysign(0.0, b);
    }
    return m;
}

/* ---- kernels (cpu/loops.h) -------------------------------------------------- */

/* The four integer ops of one ctype. */
#define AUG__DEF_INT_KERNELS(S, T)                                                    \
    DEF_BINARY_KERNEL(k_floordiv_##S, T, floordiv_##S)                                \
    DEF_BINARY_KERNEL(k_mod_##S, T, mod_##S)                                          \
    DEF_BINARY_KERNEL(k_divrne_##S, T, divrne_##S)                                    \
    DEF_BINARY_KERNEL(k_pow_##S, T, pow_##S)

AUG__DEF_INT_KERNELS(i8, int8_t)
AUG__DEF_INT_KERNELS(i16, int16_t)
AUG__DEF_INT_KERNELS(i32, int32_t)
AUG__DEF_INT_KERNELS(i64, int64_t)
AUG__DEF_INT_KERNELS(i128, aug__i128)
AUG__DEF_INT_KERNELS(u8, uint8_t)
AUG__DEF_INT_KERNELS(u16, uint16_t)
AUG__DEF_INT_KERNELS(u32, uint32_t)
AUG__DEF_INT_KERNELS(u64, uint64_t)

DEF_BINARY_KERNEL(k_truediv_f32, float, truediv_f32)
DEF_BINARY_KERNEL(k_truediv_f64, double, truediv_f64)
DEF_BINARY_KERNEL(k_floordiv_f32, float, floordiv_f32)
DEF_BINARY_KERNEL(k_floordiv_f64, double, floordiv_f64)
DEF_BINARY_KERNEL(k_mod_f32, float, mod_f32)
DEF_BINARY_KERNEL(k_mod_f64, double, mod_f64)
DEF_BINARY_KERNEL(k_pow_f32, float, pow_f32)
DEF_BINARY_KERNEL(k_pow_f64, double, pow_f64)

/* ---- lookup ------------------------------------------------------------------- */

typedef struct div_kernels {
    aug__kernel truediv, floordiv, mod, divrne, pow;
} div_kernels;

/* True division of integers is evaluated in float32/float64 by the core. */
#define AUG__INT_ENTRY(S) { NULL, k_floordiv_##S, k_mod_##S, k_divrne_##S, k_pow_##S }

aug__kernel aug__cpu_div_kernel(aug_op op, int ctype) {
    static const div_kernels table[KSLOT_COUNT] = {
        [KSLOT_I8] = AUG__INT_ENTRY(i8),   [KSLOT_I16] = AUG__INT_ENTRY(i16),
        [KSLOT_I32] = AUG__INT_ENTRY(i32), [KSLOT_I64] = AUG__INT_ENTRY(i64),
        [KSLOT_I128] = AUG__INT_ENTRY(i128),
        [KSLOT_U8] = AUG__INT_ENTRY(u8),   [KSLOT_U16] = AUG__INT_ENTRY(u16),
        [KSLOT_U32] = AUG__INT_ENTRY(u32), [KSLOT_U64] = AUG__INT_ENTRY(u64),
        /* Float DIV_RNE is plain IEEE division (augpy div on floats). */
        [KSLOT_F32] = { k_truediv_f32, k_floordiv_f32, k_mod_f32, k_truediv_f32, k_pow_f32 },
        [KSLOT_F64] = { k_truediv_f64, k_floordiv_f64, k_mod_f64, k_truediv_f64, k_pow_f64 },
    };
    const int slot = ctype_slot(ctype);
    if (slot < 0) return NULL;
    const div_kernels *k = &table[slot];
    switch (op) {
    case AUG_OP_TRUEDIV: return k->truediv;
    case AUG_OP_FLOORDIV: return k->floordiv;
    case AUG_OP_MOD: return k->mod;
    case AUG_OP_DIV_RNE: return k->divrne;
    case AUG_OP_POW: return k->pow;
    default: return NULL;
    }
}
