/* scalar/bitwise.h: the scalar rules of AND OR XOR INVERT (BOOL, INT8..UINT64 and
 * I128) and LSHIFT RSHIFT (INT8..UINT64, I128) (semantics §7; private, shared by
 * every backend).
 *
 * BOOL is logical: and, or, xor (!=) and not of the truth values. Integers act
 * on their exact values, read as infinitely sign-extended two's complement, and
 * the result saturates into the result type R: the core computes in R when every
 * operand's value fits R, otherwise in AUG__I128 (which holds every operand
 * exactly; the store then saturates), so int8(-128) & uint64(2^63) is 2^63 before
 * it saturates. The count has the value's ctype. Shifts are defined on values,
 * never by C's shift rules:
 *   x << k  = x * 2^k, saturated to the type (0 stays 0; counts >= the bit width
 *             saturate every non-zero x);
 *   x >> k  = floor(x / 2^k): arithmetic for negatives, so counts >= the bit width
 *             give 0 for x >= 0 and -1 for x < 0;
 *   a negative count shifts the other way: x << -k == x >> k and x >> -k == x << k
 *             (NumPy leaves this undefined; the mathematical reading x * 2^k holds
 *             for every integer k this way).
 * aug__shl_mag_<S> / aug__shr_mag_<S> shift by a non-negative magnitude; kernels
 * with a broadcast count hoist the direction and use them. */
#ifndef AUG_SCALAR_BITWISE_H
#define AUG_SCALAR_BITWISE_H

#include "hd.h"

#define AUG__DEF_LOGIC(S, T)                                                                     \
    AUG_HD T aug__and_##S(T x, T y) { return (T)(x & y); }                                       \
    AUG_HD T aug__or_##S(T x, T y) { return (T)(x | y); }                                        \
    AUG_HD T aug__xor_##S(T x, T y) { return (T)(x ^ y); }                                       \
    AUG_HD T aug__inv_##S(T x) { return (T)~x; }

#define AUG__DEF_SHIFT_SIGNED(S, T, U, TMIN, TMAX, BITS)                                         \
    AUG_HD T aug__shl_mag_##S(T x, uint64_t k) {                                                 \
        if (x == 0) return 0;                                                                    \
        if (k >= (BITS)) return x > 0 ? (T)(TMAX) : (T)(TMIN);                                   \
        if (x > (T)((TMAX) >> k)) return (T)(TMAX);                                              \
        if (x < (T)((TMIN) >> k)) return (T)(TMIN);                                              \
        return (T)((U)x << k);                                                                   \
    }                                                                                            \
    AUG_HD T aug__shr_mag_##S(T x, uint64_t k) {                                                 \
        if (k >= (BITS)) return x < 0 ? (T)-1 : (T)0;                                            \
        return (T)(x >> k);                                                                      \
    }                                                                                            \
    AUG_HD int aug__shneg_##S(T k) { return k < 0; }                                             \
    AUG_HD uint64_t aug__shmag_##S(T k) { return k < 0 ? (uint64_t)0 - (uint64_t)k : (uint64_t)k; } \
    AUG_HD T aug__shl_##S(T x, T k) {                                                            \
        return k >= 0 ? aug__shl_mag_##S(x, aug__shmag_##S(k)) : aug__shr_mag_##S(x, aug__shmag_##S(k)); \
    }                                                                                            \
    AUG_HD T aug__shr_##S(T x, T k) {                                                            \
        return k >= 0 ? aug__shr_mag_##S(x, aug__shmag_##S(k)) : aug__shl_mag_##S(x, aug__shmag_##S(k)); \
    }

#define AUG__DEF_SHIFT_UNSIGNED(S, T, TMAX, BITS)                                                \
    AUG_HD int aug__shneg_##S(T k) { (void)k; return 0; }                                        \
    AUG_HD uint64_t aug__shmag_##S(T k) { return (uint64_t)k; }                                  \
    AUG_HD T aug__shl_mag_##S(T x, uint64_t k) {                                                 \
        if (x == 0) return 0;                                                                    \
        if (k >= (BITS) || x > (T)((TMAX) >> k)) return (T)(TMAX);                               \
        return (T)(x << k);                                                                      \
    }                                                                                            \
    AUG_HD T aug__shr_mag_##S(T x, uint64_t k) { return k >= (BITS) ? (T)0 : (T)(x >> k); }      \
    AUG_HD T aug__shl_##S(T x, T k) { return aug__shl_mag_##S(x, (uint64_t)k); }                \
    AUG_HD T aug__shr_##S(T x, T k) { return aug__shr_mag_##S(x, (uint64_t)k); }

AUG__DEF_LOGIC(i8, int8_t)
AUG__DEF_LOGIC(i16, int16_t)
AUG__DEF_LOGIC(i32, int32_t)
AUG__DEF_LOGIC(i64, int64_t)
AUG__DEF_LOGIC(u8, uint8_t)
AUG__DEF_LOGIC(u16, uint16_t)
AUG__DEF_LOGIC(u32, uint32_t)
AUG__DEF_LOGIC(u64, uint64_t)
AUG__DEF_LOGIC(i128, aug__i128)
AUG__DEF_SHIFT_SIGNED(i8, int8_t, uint8_t, INT8_MIN, INT8_MAX, 8)
AUG__DEF_SHIFT_SIGNED(i16, int16_t, uint16_t, INT16_MIN, INT16_MAX, 16)
AUG__DEF_SHIFT_SIGNED(i32, int32_t, uint32_t, INT32_MIN, INT32_MAX, 32)
AUG__DEF_SHIFT_SIGNED(i64, int64_t, uint64_t, INT64_MIN, INT64_MAX, 64)
/* i128: the counts are operand values of at most 64 bits, so the truncating
 * magnitude above is exact. */
AUG__DEF_SHIFT_SIGNED(i128, aug__i128, aug__u128, AUG__I128_MIN, AUG__I128_MAX, 128)
AUG__DEF_SHIFT_UNSIGNED(u8, uint8_t, UINT8_MAX, 8)
AUG__DEF_SHIFT_UNSIGNED(u16, uint16_t, UINT16_MAX, 16)
AUG__DEF_SHIFT_UNSIGNED(u32, uint32_t, UINT32_MAX, 32)
AUG__DEF_SHIFT_UNSIGNED(u64, uint64_t, UINT64_MAX, 64)

/* bool: logical, on truth values. */
AUG_HD uint8_t aug__and_b(uint8_t x, uint8_t y) { return (uint8_t)((x != 0) & (y != 0)); }
AUG_HD uint8_t aug__or_b(uint8_t x, uint8_t y) { return (uint8_t)((x != 0) | (y != 0)); }
AUG_HD uint8_t aug__xor_b(uint8_t x, uint8_t y) { return (uint8_t)((x != 0) ^ (y != 0)); }
AUG_HD uint8_t aug__inv_b(uint8_t x) { return (uint8_t)(x == 0); }

#undef AUG__DEF_LOGIC
#undef AUG__DEF_SHIFT_SIGNED
#undef AUG__DEF_SHIFT_UNSIGNED

#endif
