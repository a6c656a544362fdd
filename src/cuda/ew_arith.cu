/* cuda/ew_arith.cu: the "arith" kernel family on the GPU: POS NEG ADD SUB MUL
 * ABS MIN MAX CLAMP COPY on one ctype, with scalar/arith.h's rules (the same
 * functions the CPU kernels call). */
#include "cuda/ew.cuh"
#include "scalar/arith.h"

#define DEF_ARITH(S, T)                                 \
    AUG__EW_DEF1(pos_##S, T, T, aug__pos_##S)           \
    AUG__EW_DEF1(neg_##S, T, T, aug__neg_##S)           \
    AUG__EW_DEF1(abs_##S, T, T, aug__abs_##S)           \
    AUG__EW_DEF2(add_##S, T, T, T, aug__add_##S)        \
    AUG__EW_DEF2(sub_##S, T, T, T, aug__sub_##S)        \
    AUG__EW_DEF2(mul_##S, T, T, T, aug__mul_##S)        \
    AUG__EW_DEF2(min_##S, T, T, T, aug__min_##S)        \
    AUG__EW_DEF2(max_##S, T, T, T, aug__max_##S)        \
    AUG__EW_DEF3(clamp_##S, T, aug__clamp_##S)

DEF_ARITH(i8, int8_t)
DEF_ARITH(i16, int16_t)
DEF_ARITH(i32, int32_t)
DEF_ARITH(i64, int64_t)
DEF_ARITH(i128, aug__i128)
DEF_ARITH(u8, uint8_t)
DEF_ARITH(u16, uint16_t)
DEF_ARITH(u32, uint32_t)
DEF_ARITH(u64, uint64_t)
DEF_ARITH(f32, float)
DEF_ARITH(f64, double)
AUG__EW_DEF1(pos_b, uint8_t, uint8_t, aug__pos_b)
AUG__EW_DEF2(min_b, uint8_t, uint8_t, uint8_t, aug__min_b)
AUG__EW_DEF2(max_b, uint8_t, uint8_t, uint8_t, aug__max_b)
AUG__EW_DEF3(clamp_b, uint8_t, aug__clamp_b)

typedef struct arith_launchers {
    aug__ew_launcher k[AUG__ARITH_SLOTS]; /* core/kernel_slots.h order */
} arith_launchers;

#define ENTRY(S) {{l_pos_##S, l_neg_##S, l_add_##S, l_sub_##S, l_mul_##S, l_abs_##S, l_min_##S, l_max_##S, l_clamp_##S}}

aug__ew_launcher aug__cuda_arith_launcher(aug_op op, int ctype) {
    static const arith_launchers none = {{NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL}};
    /* bool: MUL and MIN are both logical and; no NEG/ADD/SUB/ABS (semantics §7) */
    static const arith_launchers b = {{l_pos_b, NULL, NULL, NULL, l_min_b, NULL, l_min_b, l_max_b, l_clamp_b}};
    static const arith_launchers table[AUG__NUM_CTYPES] = {
        b,         ENTRY(i8),  ENTRY(i16), ENTRY(i32), ENTRY(i64), ENTRY(u8),  ENTRY(u16),
        ENTRY(u32), ENTRY(u64), none,      none,       ENTRY(f32), ENTRY(f64), ENTRY(i128),
    };
    const int slot = aug__arith_slot(op);
    return slot < 0 || ctype < 0 || ctype >= AUG__NUM_CTYPES ? NULL : table[ctype].k[slot];
}
