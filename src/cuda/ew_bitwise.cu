/* cuda/ew_bitwise.cu: the "bitwise" kernel family on the GPU: AND OR XOR INVERT
 * on BOOL, INT8..UINT64 and I128, LSHIFT RSHIFT on INT8..UINT64 and I128, with
 * scalar/bitwise.h's rules (the CPU's: shifts on values, saturating, negative
 * counts reversing the direction). */
#include "cuda/ew.cuh"
#include "scalar/bitwise.h"

#define DEF_LOGIC(S, T)                                 \
    AUG__EW_DEF2(and_##S, T, T, T, aug__and_##S)        \
    AUG__EW_DEF2(or_##S, T, T, T, aug__or_##S)          \
    AUG__EW_DEF2(xor_##S, T, T, T, aug__xor_##S)        \
    AUG__EW_DEF1(inv_##S, T, T, aug__inv_##S)
#define DEF_INT(S, T)                                   \
    DEF_LOGIC(S, T)                                     \
    AUG__EW_DEF2(shl_##S, T, T, T, aug__shl_##S)        \
    AUG__EW_DEF2(shr_##S, T, T, T, aug__shr_##S)

DEF_LOGIC(b, uint8_t)
DEF_INT(i8, int8_t)
DEF_INT(i16, int16_t)
DEF_INT(i32, int32_t)
DEF_INT(i64, int64_t)
DEF_INT(u8, uint8_t)
DEF_INT(u16, uint16_t)
DEF_INT(u32, uint32_t)
DEF_INT(u64, uint64_t)
DEF_INT(i128, aug__i128)

typedef struct bitwise_launchers {
    aug__ew_launcher k[AUG__BIT_SLOTS]; /* core/kernel_slots.h order */
} bitwise_launchers;

#define ENTRY(S) {{l_and_##S, l_or_##S, l_xor_##S, l_inv_##S, l_shl_##S, l_shr_##S}}

aug__ew_launcher aug__cuda_bitwise_launcher(aug_op op, int ctype) {
    static const bitwise_launchers none = {{NULL, NULL, NULL, NULL, NULL, NULL}};
    static const bitwise_launchers b = {{l_and_b, l_or_b, l_xor_b, l_inv_b, NULL, NULL}};
    static const bitwise_launchers table[AUG__NUM_CTYPES] = {
        b,          ENTRY(i8),  ENTRY(i16), ENTRY(i32), ENTRY(i64), ENTRY(u8), ENTRY(u16),
        ENTRY(u32), ENTRY(u64), none,       none,       none,       none,      ENTRY(i128),
    };
    const int slot = aug__bitwise_slot(op);
    return slot < 0 || ctype < 0 || ctype >= AUG__NUM_CTYPES ? NULL : table[ctype].k[slot];
}
