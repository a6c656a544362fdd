/* cuda/ew_div.cu: the "div" kernel family on the GPU: TRUEDIV FLOORDIV MOD
 * DIV_RNE POW on one ctype, with scalar/div.h's rules (the CPU's). */
#include "cuda/ew.cuh"
#include "scalar/div.h"

#define DEF_INT(S, T)                                        \
    AUG__EW_DEF2(floordiv_##S, T, T, T, aug__floordiv_##S)   \
    AUG__EW_DEF2(mod_##S, T, T, T, aug__mod_##S)             \
    AUG__EW_DEF2(divrne_##S, T, T, T, aug__divrne_##S)       \
    AUG__EW_DEF2(pow_##S, T, T, T, aug__pow_##S)
#define DEF_FLOAT(S, T)                                      \
    AUG__EW_DEF2(truediv_##S, T, T, T, aug__truediv_##S)     \
    AUG__EW_DEF2(floordiv_##S, T, T, T, aug__floordiv_##S)   \
    AUG__EW_DEF2(mod_##S, T, T, T, aug__mod_##S)             \
    AUG__EW_DEF2(pow_##S, T, T, T, aug__pow_##S)

DEF_INT(i8, int8_t)
DEF_INT(i16, int16_t)
DEF_INT(i32, int32_t)
DEF_INT(i64, int64_t)
DEF_INT(i128, aug__i128)
DEF_INT(u8, uint8_t)
DEF_INT(u16, uint16_t)
DEF_INT(u32, uint32_t)
DEF_INT(u64, uint64_t)
DEF_FLOAT(f32, float)
DEF_FLOAT(f64, double)

typedef struct div_launchers {
    aug__ew_launcher k[AUG__DIV_SLOTS]; /* core/kernel_slots.h order */
} div_launchers;

/* True division of integers is evaluated in float32/float64 by the core; float
 * DIV_RNE is IEEE division (augpy div on floats). */
#define INT(S) {{NULL, l_floordiv_##S, l_mod_##S, l_divrne_##S, l_pow_##S}}
#define FLT(S) {{l_truediv_##S, l_floordiv_##S, l_mod_##S, l_truediv_##S, l_pow_##S}}

aug__ew_launcher aug__cuda_div_launcher(aug_op op, int ctype) {
    static const div_launchers none = {{NULL, NULL, NULL, NULL, NULL}};
    static const div_launchers table[AUG__NUM_CTYPES] = {
        none,     INT(i8),  INT(i16), INT(i32), INT(i64), INT(u8),  INT(u16),
        INT(u32), INT(u64), none,     none,     FLT(f32), FLT(f64), INT(i128),
    };
    const int slot = aug__div_slot(op);
    return slot < 0 || ctype < 0 || ctype >= AUG__NUM_CTYPES ? NULL : table[ctype].k[slot];
}
