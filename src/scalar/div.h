/* scalar/div.h: the scalar rules of TRUEDIV, FLOORDIV, MOD, DIV_RNE and POW on
 * one compute type (semantics §7, §9; private, shared by every backend).
 *
 * Integer ctypes compute natively and saturate to their own range; AUG__I128 is
 * exact (saturating only at the i128 range, which the store then clamps to the
 * output dtype). Nothing here has C undefined behaviour: the INT_MIN / -1 and
 * x / 0 cases are decided before any C division.
 *
 *   FLOORDIV  floor(a / b); x // 0 -> max (x > 0), min (x < 0), 0 (x == 0).
 *   MOD       Python: sign of the divisor, a == (a // b) * b + a % b; x % 0 -> 0.
 *   DIV_RNE   exact quotient rounded half to even (augpy div); x / 0 as FLOORDIV.
 *   POW       exact x**y saturated; y < 0: round half to even of the real power
 *             (1, +-1 for -1, 0 for |x| >= 2, max for 0 like +inf); 0**0 = 1.
 * Floats: TRUEDIV and DIV_RNE are IEEE a / b, FLOORDIV and MOD NumPy's
 * `floor_divide` and `remainder` (npy_divmod, below), POW pow() (float32
 * through double: scalar/math.h's FPOW rule). */
#ifndef AUG_SCALAR_DIV_H
#define AUG_SCALAR_DIV_H

#include "hd.h"
#include "math.h" /* scalar/math.h (this folder's): aug__fpow_f32 */

/* ---- signed integers ---------------------------------------------------------
 * S: suffix, T: the type, U / US: its unsigned counterpart and that one's suffix. */
#define AUG__DEF_SIGNED_DIV(S, T, U, US, TMIN, TMAX)                                  \
    AUG_HD T aug__floordiv_##S(T a, T b) {                                            \
        if (b == 0) return a > 0 ? (T)(TMAX) : (a < 0 ? (T)(TMIN) : (T)0);            \
        if (b == -1) return a == (T)(TMIN) ? (T)(TMAX) : (T)-a;                       \
        T q = (T)(a / b), r = (T)(a % b);                                             \
        if (r != 0 && ((r < 0) != (b < 0))) q--;                                      \
        return q;                                                                     \
    }                                                                                 \
    AUG_HD T aug__mod_##S(T a, T b) {                                                 \
        if (b == 0 || b == -1) return 0; /* -1: avoids TMIN % -1 */                   \
        T r = (T)(a % b);                                                             \
        if (r != 0 && ((r < 0) != (b < 0))) r = (T)(r + b);                           \
        return r;                                                                     \
    }                                                                                 \
    AUG_HD T aug__divrne_##S(T a, T b) {                                              \
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
    AUG_HD T aug__pow_##S(T a, T b) {                                                 \
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
            if ((e & 1) && (aug__mul_ovf_##US(r, m, &r) || r > lim))                  \
                return neg ? (T)(TMIN) : (T)(TMAX);                                   \
            e >>= 1;                                                                  \
            if (!e) break;                                                            \
            /* m >= 2 and a set bit remains: a square beyond lim saturates. */        \
            if (aug__mul_ovf_##US(m, m, &m) || m > lim)                               \
                return neg ? (T)(TMIN) : (T)(TMAX);                                   \
        }                                                                             \
        return neg ? (T)((U)0 - r) : (T)r;                                            \
    }

/* ---- unsigned integers ---------------------------------------------------------- */

#define AUG__DEF_UNSIGNED_DIV(S, T, TMAX)                                             \
    AUG_HD T aug__floordiv_##S(T a, T b) { return b == 0 ? (a ? (T)(TMAX) : 0) : (T)(a / b); } \
    AUG_HD T aug__mod_##S(T a, T b) { return b == 0 ? (T)0 : (T)(a % b); }            \
    AUG_HD T aug__divrne_##S(T a, T b) {                                              \
        if (b == 0) return a ? (T)(TMAX) : 0;                                         \
        T q = (T)(a / b), r = (T)(a % b), rest = (T)(b - r);                          \
        if (r != 0 && (r > rest || (r == rest && (q & 1)))) q++;                      \
        return q;                                                                     \
    }                                                                                 \
    AUG_HD T aug__pow_##S(T a, T b) {                                                 \
        if (a <= 1) return b == 0 ? (T)1 : a;                                         \
        T r = 1, m = a, e = b;                                                        \
        for (;;) {                                                                    \
            if ((e & 1) && aug__mul_ovf_##S(r, m, &r)) return (T)(TMAX);              \
            e >>= 1;                                                                  \
            if (!e) break;                                                            \
            if (aug__mul_ovf_##S(m, m, &m)) return (T)(TMAX);                         \
        }                                                                             \
        return r;                                                                     \
    }

AUG__DEF_SIGNED_DIV(i8, int8_t, uint8_t, u8, INT8_MIN, INT8_MAX)
AUG__DEF_SIGNED_DIV(i16, int16_t, uint16_t, u16, INT16_MIN, INT16_MAX)
AUG__DEF_SIGNED_DIV(i32, int32_t, uint32_t, u32, INT32_MIN, INT32_MAX)
AUG__DEF_SIGNED_DIV(i64, int64_t, uint64_t, u64, INT64_MIN, INT64_MAX)
AUG__DEF_SIGNED_DIV(i128, aug__i128, aug__u128, u128, AUG__I128_MIN, AUG__I128_MAX)
AUG__DEF_UNSIGNED_DIV(u8, uint8_t, UINT8_MAX)
AUG__DEF_UNSIGNED_DIV(u16, uint16_t, UINT16_MAX)
AUG__DEF_UNSIGNED_DIV(u32, uint32_t, UINT32_MAX)
AUG__DEF_UNSIGNED_DIV(u64, uint64_t, UINT64_MAX)

#undef AUG__DEF_SIGNED_DIV
#undef AUG__DEF_UNSIGNED_DIV

/* ---- floats -------------------------------------------------------------------- */

AUG_HD float aug__truediv_f32(float a, float b) { return a / b; }
AUG_HD double aug__truediv_f64(double a, double b) { return a / b; }
AUG_HD float aug__pow_f32(float a, float b) { return aug__fpow_f32(a, b); }
AUG_HD double aug__pow_f64(double a, double b) { return pow(a, b); }

/* NumPy's npy_divmod, step for step in the type itself (semantics §7): the floor
 * of the exact quotient, which a rounded a / b can miss (1.0 // 0.1 is 9, while
 * 1.0 / 0.1 rounds to 10), and the remainder with the divisor's sign.
 *   mod = fmod(a, b)                          exact
 *   b == 0: a / b and mod (NaN)               +-inf or NaN, NaN
 *   div = (a - mod) / b                       very nearly the integer quotient
 *   mod != 0, (b < 0) != (mod < 0): mod += b, div -= 1
 *   mod == 0: mod = copysign(0, b)
 *   div != 0: floor(div), plus 1 if div - floor(div) > 0.5 (snaps a quotient
 *             that rounded just below an integer)
 *   div == 0: copysign(0, a / b)
 * inf // x and inf % x are NaN (fmod(inf, x) is NaN), x // inf is 0 or -1. */
#define AUG__DEF_FLOAT_DIVMOD(S, T, FMOD, FLOOR, COPYSIGN)                            \
    AUG_HD T aug__divmod_##S(T a, T b, T *mod) {                                      \
        T m = FMOD(a, b);                                                             \
        if (b == (T)0) {                                                              \
            *mod = m;                                                                 \
            return a / b;                                                             \
        }                                                                             \
        T div = (a - m) / b;                                                          \
        if (m != (T)0) { /* NaN included, as NumPy's `if (mod)` */                    \
            if ((b < (T)0) != (m < (T)0)) {                                           \
                m += b;                                                               \
                div -= (T)1;                                                          \
            }                                                                         \
        } else {                                                                      \
            m = COPYSIGN((T)0, b);                                                    \
        }                                                                             \
        T q;                                                                          \
        if (div != (T)0) {                                                            \
            q = FLOOR(div);                                                           \
            if (div - q > (T)0.5) q += (T)1;                                          \
        } else {                                                                      \
            q = COPYSIGN((T)0, a / b);                                                \
        }                                                                             \
        *mod = m;                                                                     \
        return q;                                                                     \
    }                                                                                 \
    AUG_HD T aug__floordiv_##S(T a, T b) {                                            \
        T m;                                                                          \
        return aug__divmod_##S(a, b, &m);                                             \
    }                                                                                 \
    AUG_HD T aug__mod_##S(T a, T b) {                                                 \
        T m;                                                                          \
        (void)aug__divmod_##S(a, b, &m);                                              \
        return m;                                                                     \
    }

AUG__DEF_FLOAT_DIVMOD(f32, float, fmodf, floorf, copysignf)
AUG__DEF_FLOAT_DIVMOD(f64, double, fmod, floor, copysign)

#undef AUG__DEF_FLOAT_DIVMOD

#endif
