/* cpu/kernels_cmp.c: the "cmp" kernel family (cpu/kernels.h): EQ NE LT LE GT GE,
 * writing bool (0/1). The scalar rules are scalar/cmp.h's, shared with the CUDA
 * backend: equal ctypes compare natively (bool by truth value, floats per IEEE),
 * the mixed pairs (I128, FLOAT64) and (FLOAT64, I128) exactly (semantics §7). */
#include "cpu/kernels.h"
#include "cpu/loops.h"
#include "scalar/cmp.h"

#define DEF_CMP_KERNELS(S, TA, TB)                                                               \
    DEF_CMP_KERNEL(k_eq_##S, TA, TB, aug__eq_##S)                                                \
    DEF_CMP_KERNEL(k_ne_##S, TA, TB, aug__ne_##S)                                                \
    DEF_CMP_KERNEL(k_lt_##S, TA, TB, aug__lt_##S)                                                \
    DEF_CMP_KERNEL(k_le_##S, TA, TB, aug__le_##S)                                                \
    DEF_CMP_KERNEL(k_gt_##S, TA, TB, aug__gt_##S)                                                \
    DEF_CMP_KERNEL(k_ge_##S, TA, TB, aug__ge_##S)

DEF_CMP_KERNELS(b, uint8_t, uint8_t)
DEF_CMP_KERNELS(i8, int8_t, int8_t)
DEF_CMP_KERNELS(i16, int16_t, int16_t)
DEF_CMP_KERNELS(i32, int32_t, int32_t)
DEF_CMP_KERNELS(i64, int64_t, int64_t)
DEF_CMP_KERNELS(i128, aug__i128, aug__i128)
DEF_CMP_KERNELS(u8, uint8_t, uint8_t)
DEF_CMP_KERNELS(u16, uint16_t, uint16_t)
DEF_CMP_KERNELS(u32, uint32_t, uint32_t)
DEF_CMP_KERNELS(u64, uint64_t, uint64_t)
DEF_CMP_KERNELS(f32, float, float)
DEF_CMP_KERNELS(f64, double, double)
DEF_CMP_KERNELS(if, aug__i128, double)
DEF_CMP_KERNELS(fi, double, aug__i128)

/* ---- lookup ------------------------------------------------------------------------- */

typedef struct cmp_kernels {
    aug__kernel k[AUG__CMP_SLOTS]; /* core/kernel_slots.h order */
} cmp_kernels;

#define CMP_ENTRY(S) {{ k_eq_##S, k_ne_##S, k_lt_##S, k_le_##S, k_gt_##S, k_ge_##S }}

aug__kernel aug__cpu_cmp_kernel(aug_op op, int ctype_a, int ctype_b) {
    static const cmp_kernels table[AUG__CMP_ROWS] = {
        [AUG__CT_BOOL] = CMP_ENTRY(b),     [AUG__CT_INT8] = CMP_ENTRY(i8),   [AUG__CT_INT16] = CMP_ENTRY(i16),
        [AUG__CT_INT32] = CMP_ENTRY(i32),  [AUG__CT_INT64] = CMP_ENTRY(i64), [AUG__CT_I128] = CMP_ENTRY(i128),
        [AUG__CT_UINT8] = CMP_ENTRY(u8),   [AUG__CT_UINT16] = CMP_ENTRY(u16), [AUG__CT_UINT32] = CMP_ENTRY(u32),
        [AUG__CT_UINT64] = CMP_ENTRY(u64), [AUG__CT_FLOAT32] = CMP_ENTRY(f32), [AUG__CT_FLOAT64] = CMP_ENTRY(f64),
        [AUG__CMP_ROW_IF] = CMP_ENTRY(if), [AUG__CMP_ROW_FI] = CMP_ENTRY(fi),
    };
    const int slot = aug__cmp_slot(op), row = aug__cmp_row(ctype_a, ctype_b);
    return slot < 0 || row < 0 ? NULL : table[row].k[slot];
}
