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
    aug__ew_launcher k[6]; /* EQ NE LT LE GT GE */
} cmp_launchers;

#define ENTRY(S) {{l_eq_##S, l_ne_##S, l_lt_##S, l_le_##S, l_gt_##S, l_ge_##S}}

aug__ew_launcher aug__cuda_cmp_launcher(aug_op op, int ctype_a, int ctype_b) {
    static const cmp_launchers none = {{NULL, NULL, NULL, NULL, NULL, NULL}};
    static const cmp_launchers table[AUG__NUM_CTYPES] = {
        ENTRY(b),   ENTRY(i8),  ENTRY(i16), ENTRY(i32), ENTRY(i64), ENTRY(u8),  ENTRY(u16),
        ENTRY(u32), ENTRY(u64), none,       none,       ENTRY(f32), ENTRY(f64), ENTRY(i128),
    };
    static const cmp_launchers mif = ENTRY(if), mfi = ENTRY(fi);
    int idx;
    switch (op) {
    case AUG_OP_EQ: idx = 0; break;
    case AUG_OP_NE: idx = 1; break;
    case AUG_OP_LT: idx = 2; break;
    case AUG_OP_LE: idx = 3; break;
    case AUG_OP_GT: idx = 4; break;
    case AUG_OP_GE: idx = 5; break;
    default: return NULL;
    }
    if (ctype_a == AUG__I128 && ctype_b == AUG__CT_FLOAT64) return mif.k[idx];
    if (ctype_a == AUG__CT_FLOAT64 && ctype_b == AUG__I128) return mfi.k[idx];
    if (ctype_a != ctype_b || ctype_a < 0 || ctype_a >= AUG__NUM_CTYPES) return NULL;
    return table[ctype_a].k[idx];
}
