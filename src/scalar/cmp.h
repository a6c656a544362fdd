/* scalar/cmp.h: the scalar rules of EQ NE LT LE GT GE, writing bool 0/1
 * (semantics §7; private, shared by every backend).
 *
 * Equal ctypes compare natively (BOOL as x != 0; floats per IEEE: NaN compares
 * false except !=). The mixed pairs (I128, FLOAT64) and (FLOAT64, I128) compare
 * an integer with a double exactly through aug__cmp_i128_f64 (no rounding of
 * either value): that is how int64 meets float64, or a weak scalar a tensor.
 * Names: aug__<rel>_<suffix>, the mixed ones aug__<rel>_if / aug__<rel>_fi. */
#ifndef AUG_SCALAR_CMP_H
#define AUG_SCALAR_CMP_H

#include "cast.h"

#define AUG__DEF_CMP(S, T)                                                              \
    AUG_HD uint8_t aug__eq_##S(T x, T y) { return (uint8_t)(x == y); }                  \
    AUG_HD uint8_t aug__ne_##S(T x, T y) { return (uint8_t)(x != y); }                  \
    AUG_HD uint8_t aug__lt_##S(T x, T y) { return (uint8_t)(x < y); }                   \
    AUG_HD uint8_t aug__le_##S(T x, T y) { return (uint8_t)(x <= y); }                  \
    AUG_HD uint8_t aug__gt_##S(T x, T y) { return (uint8_t)(x > y); }                   \
    AUG_HD uint8_t aug__ge_##S(T x, T y) { return (uint8_t)(x >= y); }

AUG__DEF_CMP(i8, int8_t)
AUG__DEF_CMP(i16, int16_t)
AUG__DEF_CMP(i32, int32_t)
AUG__DEF_CMP(i64, int64_t)
AUG__DEF_CMP(i128, aug__i128)
AUG__DEF_CMP(u8, uint8_t)
AUG__DEF_CMP(u16, uint16_t)
AUG__DEF_CMP(u32, uint32_t)
AUG__DEF_CMP(u64, uint64_t)
AUG__DEF_CMP(f32, float)
AUG__DEF_CMP(f64, double)

/* bool: the truth values, whatever non-zero byte a foreign buffer holds. */
AUG_HD uint8_t aug__eq_b(uint8_t x, uint8_t y) { return (uint8_t)((x != 0) == (y != 0)); }
AUG_HD uint8_t aug__ne_b(uint8_t x, uint8_t y) { return (uint8_t)((x != 0) != (y != 0)); }
AUG_HD uint8_t aug__lt_b(uint8_t x, uint8_t y) { return (uint8_t)((x != 0) < (y != 0)); }
AUG_HD uint8_t aug__le_b(uint8_t x, uint8_t y) { return (uint8_t)((x != 0) <= (y != 0)); }
AUG_HD uint8_t aug__gt_b(uint8_t x, uint8_t y) { return (uint8_t)((x != 0) > (y != 0)); }
AUG_HD uint8_t aug__ge_b(uint8_t x, uint8_t y) { return (uint8_t)((x != 0) >= (y != 0)); }

/* Mixed exact pairs. aug__cmp_i128_f64(i, d) is -1, 0, 1 for i <, ==, > d and 2
 * when d is NaN; every relation but != is false on NaN. The (double, integer)
 * order reverses the result and keeps NaN as 2. */
AUG_HD int aug__cmp_f64_i128(double d, aug__i128 i) {
    int c = aug__cmp_i128_f64(i, d);
    return c == 2 ? 2 : -c;
}
#define AUG__DEF_CMP_MIXED(S, TA, TB, CMP)                                              \
    AUG_HD uint8_t aug__eq_##S(TA x, TB y) { return (uint8_t)(CMP(x, y) == 0); }        \
    AUG_HD uint8_t aug__ne_##S(TA x, TB y) { return (uint8_t)(CMP(x, y) != 0); }        \
    AUG_HD uint8_t aug__lt_##S(TA x, TB y) { return (uint8_t)(CMP(x, y) == -1); }       \
    AUG_HD uint8_t aug__le_##S(TA x, TB y) { int c = CMP(x, y); return (uint8_t)(c == -1 || c == 0); } \
    AUG_HD uint8_t aug__gt_##S(TA x, TB y) { return (uint8_t)(CMP(x, y) == 1); }        \
    AUG_HD uint8_t aug__ge_##S(TA x, TB y) { int c = CMP(x, y); return (uint8_t)(c == 1 || c == 0); }
AUG__DEF_CMP_MIXED(if, aug__i128, double, aug__cmp_i128_f64)
AUG__DEF_CMP_MIXED(fi, double, aug__i128, aug__cmp_f64_i128)

#undef AUG__DEF_CMP
#undef AUG__DEF_CMP_MIXED

#endif
