/* cpu/kernels_div.c: the "div" kernel family (cpu/kernels.h): TRUEDIV, FLOORDIV,
 * MOD, DIV_RNE and POW on one compute type (semantics §7, §9). The scalar rules
 * (floor division, Python modulo, round-half-even division, exact powers, all
 * saturating; IEEE for floats) are scalar/div.h's, shared with the CUDA backend. */
#include <math.h>
#include "cpu/kernels.h"
#include "cpu/loops.h"
#include "scalar/div.h"

/* ---- kernels (cpu/loops.h) -------------------------------------------------- */

/* The four integer ops of one ctype. */
#define AUG__DEF_INT_KERNELS(S, T)                                                               \
    DEF_BINARY_KERNEL(k_floordiv_##S, T, aug__floordiv_##S)                                      \
    DEF_BINARY_KERNEL(k_mod_##S, T, aug__mod_##S)                                                \
    DEF_BINARY_KERNEL(k_divrne_##S, T, aug__divrne_##S)                                          \
    DEF_BINARY_KERNEL(k_pow_##S, T, aug__pow_##S)

AUG__DEF_INT_KERNELS(i8, int8_t)
AUG__DEF_INT_KERNELS(i16, int16_t)
AUG__DEF_INT_KERNELS(i32, int32_t)
AUG__DEF_INT_KERNELS(i64, int64_t)
AUG__DEF_INT_KERNELS(i128, aug__i128)
AUG__DEF_INT_KERNELS(u8, uint8_t)
AUG__DEF_INT_KERNELS(u16, uint16_t)
AUG__DEF_INT_KERNELS(u32, uint32_t)
AUG__DEF_INT_KERNELS(u64, uint64_t)

DEF_BINARY_KERNEL(k_truediv_f32, float, aug__truediv_f32)
DEF_BINARY_KERNEL(k_truediv_f64, double, aug__truediv_f64)
DEF_BINARY_KERNEL(k_floordiv_f32, float, aug__floordiv_f32)
DEF_BINARY_KERNEL(k_floordiv_f64, double, aug__floordiv_f64)
DEF_BINARY_KERNEL(k_mod_f32, float, aug__mod_f32)
DEF_BINARY_KERNEL(k_mod_f64, double, aug__mod_f64)
DEF_BINARY_KERNEL(k_pow_f32, float, aug__pow_f32)
DEF_BINARY_KERNEL(k_pow_f64, double, aug__pow_f64)

/* ---- lookup ------------------------------------------------------------------- */

typedef struct div_kernels {
    aug__kernel k[AUG__DIV_SLOTS]; /* core/kernel_slots.h order */
} div_kernels;

/* True division of integers is evaluated in float32/float64 by the core. */
#define AUG__INT_ENTRY(S) {{ NULL, k_floordiv_##S, k_mod_##S, k_divrne_##S, k_pow_##S }}

aug__kernel aug__cpu_div_kernel(aug_op op, int ctype) {
    static const div_kernels table[AUG__NUM_CTYPES] = {
        [AUG__CT_INT8] = AUG__INT_ENTRY(i8),   [AUG__CT_INT16] = AUG__INT_ENTRY(i16),
        [AUG__CT_INT32] = AUG__INT_ENTRY(i32), [AUG__CT_INT64] = AUG__INT_ENTRY(i64),
        [AUG__CT_I128] = AUG__INT_ENTRY(i128),
        [AUG__CT_UINT8] = AUG__INT_ENTRY(u8),   [AUG__CT_UINT16] = AUG__INT_ENTRY(u16),
        [AUG__CT_UINT32] = AUG__INT_ENTRY(u32), [AUG__CT_UINT64] = AUG__INT_ENTRY(u64),
        /* Float DIV_RNE is plain IEEE division (augpy div on floats). */
        [AUG__CT_FLOAT32] = {{ k_truediv_f32, k_floordiv_f32, k_mod_f32, k_truediv_f32, k_pow_f32 }},
        [AUG__CT_FLOAT64] = {{ k_truediv_f64, k_floordiv_f64, k_mod_f64, k_truediv_f64, k_pow_f64 }},
    };
    const int slot = aug__div_slot(op);
    return slot < 0 || ctype < 0 || ctype >= AUG__NUM_CTYPES ? NULL : table[ctype].k[slot];
}
