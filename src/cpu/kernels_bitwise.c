/* cpu/kernels_bitwise.c: the "bitwise" kernel family (cpu/kernels.h): AND OR XOR
 * INVERT on BOOL, INT8..UINT64 and I128, LSHIFT RSHIFT on INT8..UINT64 and I128
 * (semantics §7).
 * The scalar rules (logical bool ops, shifts defined on values with saturation
 * and negative counts reversing the direction) are scalar/bitwise.h's, shared
 * with the CUDA backend; runs with a broadcast count hoist the direction here. */
#include "cpu/kernels.h"
#include "cpu/loops.h"
#include "scalar/bitwise.h"

/* ---- 1-D loops (the generic ones are cpu/loops.h's) --------------------------------- */

/* Runs with one broadcast count (the usual `x << 2`): the direction, the limits and
 * the shift are loop-invariant, so the loops are a uniform shift and selects, which
 * vectorise. Same results as shl_/shr_ element by element. */
#define DEF_SHIFT_RUNS_SIGNED(S, T, U, TMIN, TMAX, BITS)                                         \
    static void shl_run_##S(const char *pa, char *po, int64_t n, uint64_t m) {                   \
        const int64_t es = (int64_t)sizeof(T);                                                   \
        T x, r;                                                                                  \
        if (m >= (BITS)) {                                                                       \
            for (int64_t i = 0; i < n; i++) {                                                    \
                LOAD(x, pa + i * es);                                                            \
                r = x > 0 ? (T)(TMAX) : (x < 0 ? (T)(TMIN) : (T)0);                              \
                STORE(po + i * es, r);                                                           \
            }                                                                                    \
            return;                                                                              \
        }                                                                                        \
        const int sh = (int)m;                                                                   \
        const T hi = (T)((TMAX) >> sh), lo = (T)((TMIN) >> sh);                                  \
        for (int64_t i = 0; i < n; i++) {                                                        \
            LOAD(x, pa + i * es);                                                                \
            r = (T)((U)x << sh);                                                                 \
            r = x > hi ? (T)(TMAX) : r;                                                          \
            r = x < lo ? (T)(TMIN) : r;                                                          \
            STORE(po + i * es, r);                                                               \
        }                                                                                        \
    }                                                                                            \
    static void shr_run_##S(const char *pa, char *po, int64_t n, uint64_t m) {                   \
        const int64_t es = (int64_t)sizeof(T);                                                   \
        const int sh = m >= (BITS) ? (BITS) - 1 : (int)m; /* floor: -1 or 0 beyond the width */  \
        T x, r;                                                                                  \
        for (int64_t i = 0; i < n; i++) {                                                        \
            LOAD(x, pa + i * es);                                                                \
            r = (T)(x >> sh);                                                                    \
            STORE(po + i * es, r);                                                               \
        }                                                                                        \
    }

#define DEF_SHIFT_RUNS_UNSIGNED(S, T, TMAX, BITS)                                                \
    static void shl_run_##S(const char *pa, char *po, int64_t n, uint64_t m) {                   \
        const int64_t es = (int64_t)sizeof(T);                                                   \
        const int sh = m >= (BITS) ? 0 : (int)m;                                                 \
        const T hi = m >= (BITS) ? (T)0 : (T)((TMAX) >> sh);                                     \
        T x, r;                                                                                  \
        for (int64_t i = 0; i < n; i++) {                                                        \
            LOAD(x, pa + i * es);                                                                \
            r = (T)(x << sh);                                                                    \
            r = x > hi ? (T)(TMAX) : r;                                                          \
            STORE(po + i * es, r);                                                               \
        }                                                                                        \
    }                                                                                            \
    static void shr_run_##S(const char *pa, char *po, int64_t n, uint64_t m) {                   \
        const int64_t es = (int64_t)sizeof(T);                                                   \
        T x, r;                                                                                  \
        if (m >= (BITS)) {                                                                       \
            r = 0;                                                                               \
            for (int64_t i = 0; i < n; i++) STORE(po + i * es, r);                               \
            return;                                                                              \
        }                                                                                        \
        const int sh = (int)m;                                                                   \
        for (int64_t i = 0; i < n; i++) {                                                        \
            LOAD(x, pa + i * es);                                                                \
            r = (T)(x >> sh);                                                                    \
            STORE(po + i * es, r);                                                               \
        }                                                                                        \
    }

/* A shift kernel: LEFT 1 for <<, 0 for >>; a negative count reverses it. */
#define DEF_SHIFT_KERNEL(NAME, S, T, LEFT, FN)                                                   \
    static void NAME(char **data, int64_t n, const int64_t *strides, void *ctx) {                \
        (void)ctx;                                                                               \
        const int64_t es0 = (int64_t)sizeof(T);                                                  \
        if (strides[1] == 0 && strides[0] == es0 && strides[2] == es0) {                         \
            T k;                                                                                 \
            LOAD(k, data[1]);                                                                    \
            if ((LEFT) != aug__shneg_##S(k))                                                     \
                shl_run_##S(data[0], data[2], n, aug__shmag_##S(k));                             \
            else                                                                                 \
                shr_run_##S(data[0], data[2], n, aug__shmag_##S(k));                             \
            return;                                                                              \
        }                                                                                        \
        BINARY_BODY(T, T, T, FN)                                                                 \
    }

#define DEF_LOGIC_KERNELS(S, T)                                                                  \
    DEF_BINARY_KERNEL(k_and_##S, T, aug__and_##S)                                                \
    DEF_BINARY_KERNEL(k_or_##S, T, aug__or_##S)                                                  \
    DEF_BINARY_KERNEL(k_xor_##S, T, aug__xor_##S)                                                \
    DEF_UNARY_KERNEL(k_inv_##S, T, aug__inv_##S)
#define DEF_INT_KERNELS(S, T)                                                                    \
    DEF_LOGIC_KERNELS(S, T)                                                                      \
    DEF_SHIFT_KERNEL(k_shl_##S, S, T, 1, aug__shl_##S)                                           \
    DEF_SHIFT_KERNEL(k_shr_##S, S, T, 0, aug__shr_##S)

DEF_SHIFT_RUNS_SIGNED(i8, int8_t, uint8_t, INT8_MIN, INT8_MAX, 8)
DEF_SHIFT_RUNS_SIGNED(i16, int16_t, uint16_t, INT16_MIN, INT16_MAX, 16)
DEF_SHIFT_RUNS_SIGNED(i32, int32_t, uint32_t, INT32_MIN, INT32_MAX, 32)
DEF_SHIFT_RUNS_SIGNED(i64, int64_t, uint64_t, INT64_MIN, INT64_MAX, 64)
DEF_SHIFT_RUNS_SIGNED(i128, aug__i128, aug__u128, AUG__I128_MIN, AUG__I128_MAX, 128)
DEF_SHIFT_RUNS_UNSIGNED(u8, uint8_t, UINT8_MAX, 8)
DEF_SHIFT_RUNS_UNSIGNED(u16, uint16_t, UINT16_MAX, 16)
DEF_SHIFT_RUNS_UNSIGNED(u32, uint32_t, UINT32_MAX, 32)
DEF_SHIFT_RUNS_UNSIGNED(u64, uint64_t, UINT64_MAX, 64)

DEF_LOGIC_KERNELS(b, uint8_t)
DEF_INT_KERNELS(i8, int8_t)
DEF_INT_KERNELS(i16, int16_t)
DEF_INT_KERNELS(i32, int32_t)
DEF_INT_KERNELS(i64, int64_t)
DEF_INT_KERNELS(u8, uint8_t)
DEF_INT_KERNELS(u16, uint16_t)
DEF_INT_KERNELS(u32, uint32_t)
DEF_INT_KERNELS(u64, uint64_t)
DEF_INT_KERNELS(i128, aug__i128)

/* ---- lookup ------------------------------------------------------------------------- */

typedef struct bitwise_kernels {
    aug__kernel k[AUG__BIT_SLOTS]; /* core/kernel_slots.h order */
} bitwise_kernels;

#define BITWISE_ENTRY(S) {{ k_and_##S, k_or_##S, k_xor_##S, k_inv_##S, k_shl_##S, k_shr_##S }}

aug__kernel aug__cpu_bitwise_kernel(aug_op op, int ctype) {
    static const bitwise_kernels table[AUG__NUM_CTYPES] = {
        [AUG__CT_BOOL] = {{ k_and_b, k_or_b, k_xor_b, k_inv_b, NULL, NULL }},
        [AUG__CT_INT8] = BITWISE_ENTRY(i8),   [AUG__CT_INT16] = BITWISE_ENTRY(i16),
        [AUG__CT_INT32] = BITWISE_ENTRY(i32), [AUG__CT_INT64] = BITWISE_ENTRY(i64),
        [AUG__CT_UINT8] = BITWISE_ENTRY(u8),   [AUG__CT_UINT16] = BITWISE_ENTRY(u16),
        [AUG__CT_UINT32] = BITWISE_ENTRY(u32), [AUG__CT_UINT64] = BITWISE_ENTRY(u64),
        [AUG__CT_I128] = BITWISE_ENTRY(i128), /* exact operands beyond R (semantics §7) */
    };
    const int slot = aug__bitwise_slot(op);
    return slot < 0 || ctype < 0 || ctype >= AUG__NUM_CTYPES ? NULL : table[ctype].k[slot];
}
