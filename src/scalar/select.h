/* scalar/select.h: the scalar rule of WHERE (private, shared by every backend).
 *
 * where(cond, x, y) is x where cond is true, else y. The core reads the
 * condition as bool (scalar/cast.h: any non-zero value, NaN included, is true)
 * and x, y already converted to the result's ctype, so the rule is a pure
 * selection: no arithmetic, no rounding, the chosen operand's bits unchanged
 * (a NaN payload or -0.0 is kept). Names: aug__where_<suffix> with the suffixes
 * of scalar/cast.h. */
#ifndef AUG_SCALAR_SELECT_H
#define AUG_SCALAR_SELECT_H

#include "hd.h"

#define AUG__DEF_WHERE(S, T) \
    AUG_HD T aug__where_##S(uint8_t c, T x, T y) { return c ? x : y; }

AUG__DEF_WHERE(b, uint8_t)
AUG__DEF_WHERE(i8, int8_t)
AUG__DEF_WHERE(i16, int16_t)
AUG__DEF_WHERE(i32, int32_t)
AUG__DEF_WHERE(i64, int64_t)
AUG__DEF_WHERE(u8, uint8_t)
AUG__DEF_WHERE(u16, uint16_t)
AUG__DEF_WHERE(u32, uint32_t)
AUG__DEF_WHERE(u64, uint64_t)
AUG__DEF_WHERE(f32, float)
AUG__DEF_WHERE(f64, double)
AUG__DEF_WHERE(i128, aug__i128)

#endif
