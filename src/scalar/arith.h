/* scalar/arith.h: the scalar rules of POS NEG ADD SUB MUL ABS MIN MAX CLAMP on
 * one compute type (semantics §7, §8; private, shared by every backend).
 *
 * Integers saturate: the exact result is clamped to the ctype's range. 8/16-bit
 * types widen to int32, which holds every exact result; wider add/sub detect the
 * wrap-around branch-free; wider products use the exact-product helpers of
 * hd.h. -(-128) = 127 in int8, -x = 0 for unsigned types. Floats are IEEE (no
 * contraction: builds pass -ffp-contract=off / --fmad=false); MIN/MAX return NaN
 * when either operand is NaN; CLAMP(v, lo, hi) = MIN(MAX(v, lo), hi), so lo > hi
 * gives hi. BOOL (values 0/1, read as x != 0) has MUL = MIN = and, MAX = or.
 * Names: aug__<op>_<suffix> with the suffixes of scalar/cast.h. */
#ifndef AUG_SCALAR_ARITH_H
#define AUG_SCALAR_ARITH_H

#include "hd.h"

/* 8/16-bit signed: W holds every exact sum, difference and product; the clamp is
 * two independent selects so GCC turns it into vector min/max. */
#define AUG__DEF_NARROW_SIGNED(S, T, TMIN, TMAX, W)                                              \
    AUG_HD T aug__sat_##S(W r) {                                                                 \
        r = r < (TMIN) ? (TMIN) : r;                                                             \
        r = r > (TMAX) ? (TMAX) : r;                                                             \
        return (T)r;                                                                             \
    }                                                                                            \
    AUG_HD T aug__add_##S(T x, T y) { return aug__sat_##S((W)x + (W)y); }                       \
    AUG_HD T aug__sub_##S(T x, T y) { return aug__sat_##S((W)x - (W)y); }                       \
    AUG_HD T aug__mul_##S(T x, T y) { return aug__sat_##S((W)x * (W)y); }                       \
    AUG_HD T aug__neg_##S(T x) { return x == (TMIN) ? (T)(TMAX) : (T)-x; }                       \
    AUG_HD T aug__abs_##S(T x) { return x >= 0 ? x : aug__neg_##S(x); }

/* 32/64-bit signed add/sub without a wider type: wrap in the unsigned type, and on
 * overflow (the operands' signs agree and the result's differs) take the limit of
 * the sign of x, (x >> (bits-1)) ^ TMAX. Branch-free, so the loops vectorise. */
#define AUG__DEF_ADDSUB_SIGNED(S, T, U, TMAX, SHIFT)                                             \
    AUG_HD T aug__add_##S(T x, T y) {                                                            \
        T r = (T)((U)x + (U)y);                                                                  \
        T lim = (T)((x >> (SHIFT)) ^ (TMAX));                                                    \
        return ((x ^ r) & (y ^ r)) < 0 ? lim : r;                                                \
    }                                                                                            \
    AUG_HD T aug__sub_##S(T x, T y) {                                                            \
        T r = (T)((U)x - (U)y);                                                                  \
        T lim = (T)((x >> (SHIFT)) ^ (TMAX));                                                    \
        return ((x ^ y) & (x ^ r)) < 0 ? lim : r;                                                \
    }

/* 32/64/128-bit signed mul, neg, abs. */
#define AUG__DEF_MUL_SIGNED(S, T, TMIN, TMAX)                                                    \
    AUG_HD T aug__mul_##S(T x, T y) {                                                            \
        T r;                                                                                     \
        return aug__mul_ovf_##S(x, y, &r) ? (((x < 0) != (y < 0)) ? (TMIN) : (TMAX)) : r;        \
    }                                                                                            \
    AUG_HD T aug__neg_##S(T x) { return x == (TMIN) ? (TMAX) : -x; }                             \
    AUG_HD T aug__abs_##S(T x) { return x >= 0 ? x : aug__neg_##S(x); }

/* 8/16/32-bit unsigned: WM holds every exact product; sums wrap exactly when they
 * overflow (r < x), which vectorises as a compare and a blend. */
#define AUG__DEF_NARROW_UNSIGNED(S, T, TMAX, WM)                                                 \
    AUG_HD T aug__add_##S(T x, T y) {                                                            \
        T r = (T)(x + y);                                                                        \
        return r < x ? (T)(TMAX) : r;                                                            \
    }                                                                                            \
    AUG_HD T aug__sub_##S(T x, T y) { return (T)(x > y ? x - y : 0); }                           \
    AUG_HD T aug__mul_##S(T x, T y) {                                                            \
        WM r = (WM)x * (WM)y;                                                                    \
        return (T)(r > (TMAX) ? (TMAX) : r);                                                     \
    }                                                                                            \
    AUG_HD T aug__neg_##S(T x) { (void)x; return 0; }                                            \
    AUG_HD T aug__abs_##S(T x) { return x; }

/* 128-bit signed add/sub: wrap in the unsigned type; an overflow saturates toward
 * the sign of the exact result (the sign of y for +, of -y for -). */
AUG_HD aug__i128 aug__add_i128(aug__i128 x, aug__i128 y) {
    aug__i128 r = (aug__i128)((aug__u128)x + (aug__u128)y);
    return ((x ^ r) & (y ^ r)) < 0 ? (y > 0 ? AUG__I128_MAX : AUG__I128_MIN) : r;
}
AUG_HD aug__i128 aug__sub_i128(aug__i128 x, aug__i128 y) {
    aug__i128 r = (aug__i128)((aug__u128)x - (aug__u128)y);
    return ((x ^ y) & (x ^ r)) < 0 ? (y < 0 ? AUG__I128_MAX : AUG__I128_MIN) : r;
}

AUG_HD uint64_t aug__add_u64(uint64_t x, uint64_t y) {
    uint64_t r = x + y;
    return r < x ? UINT64_MAX : r;
}
AUG_HD uint64_t aug__sub_u64(uint64_t x, uint64_t y) { return x > y ? x - y : 0; }
AUG_HD uint64_t aug__mul_u64(uint64_t x, uint64_t y) {
    uint64_t r;
    return aug__mul_ovf_u64(x, y, &r) ? UINT64_MAX : r;
}
AUG_HD uint64_t aug__neg_u64(uint64_t x) { (void)x; return 0; }
AUG_HD uint64_t aug__abs_u64(uint64_t x) { return x; }

/* Ordering ops of an integer type. */
#define AUG__DEF_INT_ORDER(S, T)                                                                 \
    AUG_HD T aug__pos_##S(T x) { return x; }                                                     \
    AUG_HD T aug__min_##S(T x, T y) { return y < x ? y : x; }                                    \
    AUG_HD T aug__max_##S(T x, T y) { return y > x ? y : x; }                                    \
    AUG_HD T aug__clamp_##S(T v, T lo, T hi) { return aug__min_##S(aug__max_##S(v, lo), hi); }

AUG__DEF_NARROW_SIGNED(i8, int8_t, INT8_MIN, INT8_MAX, int32_t)
AUG__DEF_NARROW_SIGNED(i16, int16_t, INT16_MIN, INT16_MAX, int32_t)
AUG__DEF_ADDSUB_SIGNED(i32, int32_t, uint32_t, INT32_MAX, 31)
AUG__DEF_MUL_SIGNED(i32, int32_t, INT32_MIN, INT32_MAX)
AUG__DEF_ADDSUB_SIGNED(i64, int64_t, uint64_t, INT64_MAX, 63)
AUG__DEF_MUL_SIGNED(i64, int64_t, INT64_MIN, INT64_MAX)
AUG__DEF_MUL_SIGNED(i128, aug__i128, AUG__I128_MIN, AUG__I128_MAX)
AUG__DEF_NARROW_UNSIGNED(u8, uint8_t, UINT8_MAX, uint32_t)
AUG__DEF_NARROW_UNSIGNED(u16, uint16_t, UINT16_MAX, uint32_t)
AUG__DEF_NARROW_UNSIGNED(u32, uint32_t, UINT32_MAX, uint64_t)
AUG__DEF_INT_ORDER(i8, int8_t)
AUG__DEF_INT_ORDER(i16, int16_t)
AUG__DEF_INT_ORDER(i32, int32_t)
AUG__DEF_INT_ORDER(i64, int64_t)
AUG__DEF_INT_ORDER(i128, aug__i128)
AUG__DEF_INT_ORDER(u8, uint8_t)
AUG__DEF_INT_ORDER(u16, uint16_t)
AUG__DEF_INT_ORDER(u32, uint32_t)
AUG__DEF_INT_ORDER(u64, uint64_t)

/* Floats: IEEE; MIN/MAX return the NaN operand when either is NaN (three selects,
 * which vectorise as compare-and-blend). */
#define AUG__DEF_FLOAT(S, T, FABS)                                                               \
    AUG_HD T aug__pos_##S(T x) { return x; }                                                     \
    AUG_HD T aug__neg_##S(T x) { return -x; }                                                    \
    AUG_HD T aug__abs_##S(T x) { return FABS(x); }                                               \
    AUG_HD T aug__add_##S(T x, T y) { return x + y; }                                            \
    AUG_HD T aug__sub_##S(T x, T y) { return x - y; }                                            \
    AUG_HD T aug__mul_##S(T x, T y) { return x * y; }                                            \
    AUG_HD T aug__min_##S(T x, T y) {                                                            \
        T r = y < x ? y : x;                                                                     \
        r = y != y ? y : r;                                                                      \
        return x != x ? x : r;                                                                   \
    }                                                                                            \
    AUG_HD T aug__max_##S(T x, T y) {                                                            \
        T r = y > x ? y : x;                                                                     \
        r = y != y ? y : r;                                                                      \
        return x != x ? x : r;                                                                   \
    }                                                                                            \
    AUG_HD T aug__clamp_##S(T v, T lo, T hi) { return aug__min_##S(aug__max_##S(v, lo), hi); }

AUG__DEF_FLOAT(f32, float, fabsf)
AUG__DEF_FLOAT(f64, double, fabs)

/* Bool: values 0/1, read defensively as x != 0. */
AUG_HD uint8_t aug__pos_b(uint8_t x) { return (uint8_t)(x != 0); }
AUG_HD uint8_t aug__min_b(uint8_t x, uint8_t y) { return (uint8_t)((x != 0) & (y != 0)); }
AUG_HD uint8_t aug__max_b(uint8_t x, uint8_t y) { return (uint8_t)((x != 0) | (y != 0)); }
AUG_HD uint8_t aug__clamp_b(uint8_t v, uint8_t lo, uint8_t hi) { return aug__min_b(aug__max_b(v, lo), hi); }

#undef AUG__DEF_NARROW_SIGNED
#undef AUG__DEF_ADDSUB_SIGNED
#undef AUG__DEF_MUL_SIGNED
#undef AUG__DEF_NARROW_UNSIGNED
#undef AUG__DEF_INT_ORDER
#undef AUG__DEF_FLOAT

#endif
