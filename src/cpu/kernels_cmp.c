/* cpu/kernels_cmp.c: the "cmp" kernel family (cpu/kernels.h): EQ NE LT LE GT GE,
 * writing bool (0/1).
 *
 * Equal ctypes compare natively (BOOL as x != 0; floats per IEEE: NaN compares
 * false except !=). The mixed pairs (AUG__I128, FLOAT64) and (FLOAT64, AUG__I128)
 * compare an integer with a double exactly through aug__cmp_i128_f64 (no rounding
 * of either value), which is how the core compares int64 with float64 or a weak
 * scalar with a tensor (SPEC 7: exact mathematical comparison). */
#include "cpu/kernels.h"
#include "cpu/loops.h"

/* The relations, as DEF_CMP_KERNEL (cpu/loops.h) takes them: REL(x, y) is 0 or 1. */
#define REL_EQ(x, y) ((x) == (y))
#define REL_NE(x, y) ((x) != (y))
#define REL_LT(x, y) ((x) < (y))
#define REL_LE(x, y) ((x) <= (y))
#define REL_GT(x, y) ((x) > (y))
#define REL_GE(x, y) ((x) >= (y))

#define DEF_CMP_KERNELS(S, T)                                                                    \
    DEF_CMP_KERNEL(k_eq_##S, T, T, REL_EQ)                                                       \
    DEF_CMP_KERNEL(k_ne_##S, T, T, REL_NE)                                                       \
    DEF_CMP_KERNEL(k_lt_##S, T, T, REL_LT)                                                       \
    DEF_CMP_KERNEL(k_le_##S, T, T, REL_LE)                                                       \
    DEF_CMP_KERNEL(k_gt_##S, T, T, REL_GT)                                                       \
    DEF_CMP_KERNEL(k_ge_##S, T, T, REL_GE)

DEF_CMP_KERNELS(i8, int8_t)
DEF_CMP_KERNELS(i16, int16_t)
DEF_CMP_KERNELS(i32, int32_t)
DEF_CMP_KERNELS(i64, int64_t)
DEF_CMP_KERNELS(i128, aug__i128)
DEF_CMP_KERNELS(u8, uint8_t)
DEF_CMP_KERNELS(u16, uint16_t)
DEF_CMP_KERNELS(u32, uint32_t)
DEF_CMP_KERNELS(u64, uint64_t)
DEF_CMP_KERNELS(f32, float)
DEF_CMP_KERNELS(f64, double)

/* bool: the truth values, whatever nonzero byte a foreign buffer holds. */
#define B(x) ((x) != 0)
#define REL_B_EQ(x, y) (B(x) == B(y))
#define REL_B_NE(x, y) (B(x) != B(y))
#define REL_B_LT(x, y) (B(x) < B(y))
#define REL_B_LE(x, y) (B(x) <= B(y))
#define REL_B_GT(x, y) (B(x) > B(y))
#define REL_B_GE(x, y) (B(x) >= B(y))
DEF_CMP_KERNEL(k_eq_b, uint8_t, uint8_t, REL_B_EQ)
DEF_CMP_KERNEL(k_ne_b, uint8_t, uint8_t, REL_B_NE)
DEF_CMP_KERNEL(k_lt_b, uint8_t, uint8_t, REL_B_LT)
DEF_CMP_KERNEL(k_le_b, uint8_t, uint8_t, REL_B_LE)
DEF_CMP_KERNEL(k_gt_b, uint8_t, uint8_t, REL_B_GT)
DEF_CMP_KERNEL(k_ge_b, uint8_t, uint8_t, REL_B_GE)

/* Mixed exact pairs. aug__cmp_i128_f64(i, d) is -1, 0, 1 for i <, ==, > d and 2
 * when d is NaN; every relation but != is false on NaN. */
static inline int cmp_if(aug__i128 i, double d) { return aug__cmp_i128_f64(i, d); }
/* Relation of a double to an integer: the reverse of cmp_if, NaN kept as 2. */
static inline int cmp_fi(double d, aug__i128 i) {
    int c = aug__cmp_i128_f64(i, d);
    return c == 2 ? 2 : -c;
}
#define REL_M_EQ(c) ((c) == 0)
#define REL_M_NE(c) ((c) != 0)
#define REL_M_LT(c) ((c) == -1)
#define REL_M_LE(c) ((c) == -1 || (c) == 0)
#define REL_M_GT(c) ((c) == 1)
#define REL_M_GE(c) ((c) == 1 || (c) == 0)
static inline int if_eq(aug__i128 x, double y) { int c = cmp_if(x, y); return REL_M_EQ(c); }
static inline int if_ne(aug__i128 x, double y) { int c = cmp_if(x, y); return REL_M_NE(c); }
static inline int if_lt(aug__i128 x, double y) { int c = cmp_if(x, y); return REL_M_LT(c); }
static inline int if_le(aug__i128 x, double y) { int c = cmp_if(x, y); return REL_M_LE(c); }
static inline int if_gt(aug__i128 x, double y) { int c = cmp_if(x, y); return REL_M_GT(c); }
static inline int if_ge(aug__i128 x, double y) { int c = cmp_if(x, y); return REL_M_GE(c); }
static inline int fi_eq(double x, aug__i128 y) { int c = cmp_fi(x, y); return REL_M_EQ(c); }
static inline int fi_ne(double x, aug__i128 y) { int c = cmp_fi(x, y); return REL_M_NE(c); }
static inline int fi_lt(double x, aug__i128 y) { int c = cmp_fi(x, y); return REL_M_LT(c); }
static inline int fi_le(double x, aug__i128 y) { int c = cmp_fi(x, y); return REL_M_LE(c); }
static inline int fi_gt(double x, aug__i128 y) { int c = cmp_fi(x, y); return REL_M_GT(c); }
static inline int fi_ge(double x, aug__i128 y) { int c = cmp_fi(x, y); return REL_M_GE(c); }
DEF_CMP_KERNEL(k_eq_if, aug__i128, double, if_eq)
DEF_CMP_KERNEL(k_ne_if, aug__i128, double, if_ne)
DEF_CMP_KERNEL(k_lt_if, aug__i128, double, if_lt)
DEF_CMP_KERNEL(k_le_if, aug__i128, double, if_le)
DEF_CMP_KERNEL(k_gt_if, aug__i128, double, if_gt)
DEF_CMP_KERNEL(k_ge_if, aug__i128, double, if_ge)
DEF_CMP_KERNEL(k_eq_fi, double, aug__i128, fi_eq)
DEF_CMP_KERNEL(k_ne_fi, double, aug__i128, fi_ne)
DEF_CMP_KERNEL(k_lt_fi, double, aug__i128, fi_lt)
DEF_CMP_KERNEL(k_le_fi, double, aug__i128, fi_le)
DEF_CMP_KERNEL(k_gt_fi, double, aug__i128, fi_gt)
DEF_CMP_KERNEL(k_ge_fi, double, aug__i128, fi_ge)

/* ---- lookup ------------------------------------------------------------------------- */

typedef struct cmp_kernels {
    aug__kernel k[6]; /* EQ NE LT LE GT GE */
} cmp_kernels;

#define CMP_ENTRY(S) {{ k_eq_##S, k_ne_##S, k_lt_##S, k_le_##S, k_gt_##S, k_ge_##S }}

aug__kernel aug__cpu_cmp_kernel(aug_op op, int ctype_a, int ctype_b) {
    static const cmp_kernels table[KSLOT_COUNT] = {
        [KSLOT_B] = CMP_ENTRY(b),       [KSLOT_I8] = CMP_ENTRY(i8),   [KSLOT_I16] = CMP_ENTRY(i16),
        [KSLOT_I32] = CMP_ENTRY(i32),   [KSLOT_I64] = CMP_ENTRY(i64), [KSLOT_I128] = CMP_ENTRY(i128),
        [KSLOT_U8] = CMP_ENTRY(u8),     [KSLOT_U16] = CMP_ENTRY(u16), [KSLOT_U32] = CMP_ENTRY(u32),
        [KSLOT_U64] = CMP_ENTRY(u64),   [KSLOT_F32] = CMP_ENTRY(f32), [KSLOT_F64] = CMP_ENTRY(f64),
    };
    static const cmp_kernels mif = CMP_ENTRY(if), mfi = CMP_ENTRY(fi);
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
    if (ctype_a == AUG__I128 && ctype_b == (int)AUG_FLOAT64) return mif.k[idx];
    if (ctype_a == (int)AUG_FLOAT64 && ctype_b == AUG__I128) return mfi.k[idx];
    if (ctype_a != ctype_b) return NULL;
    const int slot = ctype_slot(ctype_a);
    return slot < 0 ? NULL : table[slot].k[idx];
}
