/* cpu/kernels_where.c: the "where" kernel family (cpu/kernels.h): WHERE(cond, x,
 * y) with a BOOL condition and x, y and the result on one ctype. The rule is
 * scalar/select.h's, shared with the CUDA backend. Fast paths: all contiguous,
 * and a contiguous condition with x and y broadcast (where(mask, 1, 0)). */
#include "cpu/kernels.h"
#include "cpu/loops.h"
#include "scalar/select.h"

#define DEF_WHERE_KERNEL(NAME, T, FN)                                                            \
    static void NAME(char **data, int64_t n, const int64_t *strides, void *ctx) {                \
        (void)ctx;                                                                               \
        const char *pc = data[0], *px = data[1], *py = data[2];                                  \
        char *po = data[3];                                                                      \
        const int64_t es = (int64_t)sizeof(T);                                                   \
        const int64_t sc = strides[0], sx = strides[1], sy = strides[2], so = strides[3];        \
        uint8_t c;                                                                               \
        T x, y, r;                                                                               \
        if (so == es && sc == 1 && sx == 0 && sy == 0) {                                         \
            LOAD(x, px);                                                                         \
            LOAD(y, py);                                                                         \
            for (int64_t i = 0; i < n; i++) {                                                    \
                LOAD(c, pc + i);                                                                 \
                r = FN(c, x, y);                                                                 \
                STORE(po + i * es, r);                                                           \
            }                                                                                    \
        } else if (so == es && sc == 1 && sx == es && sy == es) {                                \
            for (int64_t i = 0; i < n; i++) {                                                    \
                LOAD(c, pc + i);                                                                 \
                LOAD(x, px + i * es);                                                            \
                LOAD(y, py + i * es);                                                            \
                r = FN(c, x, y);                                                                 \
                STORE(po + i * es, r);                                                           \
            }                                                                                    \
        } else {                                                                                 \
            for (int64_t i = 0; i < n; i++, pc += sc, px += sx, py += sy, po += so) {            \
                LOAD(c, pc);                                                                     \
                LOAD(x, px);                                                                     \
                LOAD(y, py);                                                                     \
                r = FN(c, x, y);                                                                 \
                STORE(po, r);                                                                    \
            }                                                                                    \
        }                                                                                        \
    }

DEF_WHERE_KERNEL(k_where_b, uint8_t, aug__where_b)
DEF_WHERE_KERNEL(k_where_i8, int8_t, aug__where_i8)
DEF_WHERE_KERNEL(k_where_i16, int16_t, aug__where_i16)
DEF_WHERE_KERNEL(k_where_i32, int32_t, aug__where_i32)
DEF_WHERE_KERNEL(k_where_i64, int64_t, aug__where_i64)
DEF_WHERE_KERNEL(k_where_u8, uint8_t, aug__where_u8)
DEF_WHERE_KERNEL(k_where_u16, uint16_t, aug__where_u16)
DEF_WHERE_KERNEL(k_where_u32, uint32_t, aug__where_u32)
DEF_WHERE_KERNEL(k_where_u64, uint64_t, aug__where_u64)
DEF_WHERE_KERNEL(k_where_f32, float, aug__where_f32)
DEF_WHERE_KERNEL(k_where_f64, double, aug__where_f64)
DEF_WHERE_KERNEL(k_where_i128, aug__i128, aug__where_i128)

aug__kernel aug__cpu_where_kernel(int ctype) {
    static const aug__kernel table[AUG__NUM_CTYPES] = {
        [AUG__CT_BOOL] = k_where_b,     [AUG__CT_INT8] = k_where_i8,    [AUG__CT_INT16] = k_where_i16,
        [AUG__CT_INT32] = k_where_i32,  [AUG__CT_INT64] = k_where_i64,  [AUG__CT_UINT8] = k_where_u8,
        [AUG__CT_UINT16] = k_where_u16, [AUG__CT_UINT32] = k_where_u32, [AUG__CT_UINT64] = k_where_u64,
        [AUG__CT_FLOAT32] = k_where_f32, [AUG__CT_FLOAT64] = k_where_f64, [AUG__CT_I128] = k_where_i128,
    };
    return ctype < 0 || ctype >= AUG__NUM_CTYPES ? NULL : table[ctype];
}
