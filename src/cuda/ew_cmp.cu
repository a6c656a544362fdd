/* cuda/ew_cmp.cu: the "cmp" kernel family on the GPU: EQ NE LT LE GT GE writing
 * bool, with scalar/cmp.h's rules (the CPU's): equal ctypes natively, the mixed
 * (I128, FLOAT64) pairs exactly. */
#include "cuda/ew.cuh"
#include "scalar/cmp.h"

#define DEF_CMP(S, TA, TB)                                  \
    AUG__EW_DEF2(eq_##S, TA, TB, uint8_t, aug__eq_##S)      \
    AUG__EW_DEF2(ne_##S, TA, TB, uint8_t, aug__ne_##S)      \
    AUG__EW_DEF2(lt_##S, TA, TB, uint8_t, aug__lt_##S)      \
    AUG__EW_DEF2(le_##S, TA, TB, uint8_t, aug__le_##S)      \
    AUG__EW_DEF2(gt_##S, TA, TB, uint8_t, aug__gt_##S)      \
    AUG__EW_DEF2(ge_##S, TA, TB, uint8_t, aug__ge_##S)

DEF_CMP(b, uint8_t, uint8_t)
DEF_CMP(i8, int8_t, int8_t)
DEF_CMP(i16, int16_t, int16_t)
DEF_CMP(i32, int32_t, int32_t)
DEF_CMP(i64, int64_t, int64_t)
DEF_CMP(i128, aug__i128, aug__i128)
DEF_CMP(u8, uint8_t, uint8_t)
DEF_CMP(u16, uint16_t, uint16_t)
DEF_CMP(u32, uint32_t, uint32_t)
DEF_CMP(u64, uint64_t, uint64_t)
DEF_CMP(f32, float, float)
DEF_CMP(f64, double, double)
DEF_CMP(if, aug__i128, double)
DEF_CMP(fi, double, aug__i128)

typedef struct cmp_launchers {
    aug__ew_launcher k[AUG__CMP_SLOTS]; /* core/kernel_slots.h order */
} cmp_launchers;

#define ENTRY(S) {{l_eq_##S, l_ne_##S, l_lt_##S, l_le_##S, l_gt_##S, l_ge_##S}}

aug__ew_launcher aug__cuda_cmp_launcher(aug_op op, int ctype_a, int ctype_b) {
    static const cmp_launchers none = {{NULL, NULL, NULL, NULL, NULL, NULL}};
    static const cmp_launchers table[AUG__CMP_ROWS] = {
        ENTRY(b),   ENTRY(i8),  ENTRY(i16), ENTRY(i32), ENTRY(i64), ENTRY(u8),  ENTRY(u16),
        ENTRY(u32), ENTRY(u64), none,       none,       ENTRY(f32), ENTRY(f64), ENTRY(i128),
        ENTRY(if),  ENTRY(fi), /* AUG__CMP_ROW_IF, AUG__CMP_ROW_FI */
    };
    const int slot = aug__cmp_slot(op), row = aug__cmp_row(ctype_a, ctype_b);
    return slot < 0 || row < 0 ? NULL : table[row].k[slot];
}
