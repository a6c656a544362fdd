/* cpu/kernels_bitwise.c: the "bitwise" kernel family (cpu/kernels.h): AND OR XOR
 * INVERT on BOOL and INT8..UINT64, LSHIFT RSHIFT on INT8..UINT64 (SPEC 7).
 *
 * BOOL is logical: and, or, xor (!=) and not of the truth values. The core casts
 * both shift operands to the result type first (saturating), so the count has the
 * value's ctype. Shifts are defined on values, never by C's shift rules:
 *   x << k  = x * 2^k, saturated to the type (0 stays 0; counts >= the bit width
 *             saturate every nonzero x);
 *   x >> k  = floor(x / 2^k): arithmetic for negatives, so counts >= the bit width
 *             give 0 for x >= 0 and -1 for x < 0;
 *   a negative count shifts the other way: x << -k == x >> k and x >> -k == x << k
 *             (NumPy leaves this undefined; the mathematical reading x * 2^k holds
 *             for every integer k this way). */
#include "cpu/kernels.h"
#include "cpu/loops.h"

/* ---- scalar ops --------------------------------------------------------------------- */

#define DEF_LOGIC(S, T)                                                                          \
    static inline T and_##S(T x, T y) { return (T)(x & y); }                                     \
    static inline T or_##S(T x, T y) { return (T)(x | y); }                                      \
    static inline T xor_##S(T x, T y) { return (T)(x ^ y); }                                     \
    static inline T inv_##S(T x) { return (T)~x; }

/* Shifts by a non-negative magnitude k (uint64_t, any size). */
#define DEF_SHIFT_SIGNED(S, T, U, TMIN, TMAX, BITS)                                              \
    static inline T shl_mag_##S(T x, uint64_t k) {                                               \
        if (x == 0) return 0;                                                                    \
        if (k >= (BITS)) return x > 0 ? (T)(TMAX) : (T)(TMIN);                                   \
        if (x > (T)((TMAX) >> k)) return (T)(TMAX);                                              \
        if (x < (T)((TMIN) >> k)) return (T)(TMIN);                                              \
        return (T)((U)x << k);                                                                   \
    }                                                                                            \
    static inline T shr_mag_##S(T x, uint64_t k) {                                               \
        if (k >= (BITS)) return x < 0 ? (T)-1 : (T)0;                                            \
        return (T)(x >> k);                                                                      \
    }                                                                                            \
    static inline int neg_##S(T k) { return k < 0; }                                             \
    static inline uint64_t mag_##S(T k) { return k < 0 ? (uint64_t)0 - (uint64_t)k : (uint64_t)k; } \
    static inline T shl_##S(T x, T k) { return k >= 0 ? shl_mag_##S(x, mag_##S(k)) : shr_mag_##S(x, mag_##S(k)); } \
    static inline T shr_##S(T x, T k) { return k >= 0 ? shr_mag_##S(x, mag_##S(k)) : shl_mag_##S(x, mag_##S(k)); }

#define DEF_SHIFT_UNSIGNED(S, T, TMAX, BITS)                                                     \
    static inline int neg_##S(T k) { (void)k; return 0; }                                        \
    static inline uint64_t mag_##S(T k) { return (uint64_t)k; }                                  \
    static inline T shl_##S(T x, T k) {                                                          \
        if (x == 0) return 0;                                                                    \
        if (k >= (BITS) || x > (T)((TMAX) >> k)) return (T)(TMAX);                               \
        return (T)(x << k);                                                                      \
    }                                                                                            \
    static inline T shr_##S(T x, T k) { return k >= (BITS) ? (T)0 : (T)(x >> k); }

DEF_LOGIC(i8, int8_t)
DEF_LOGIC(i16, int16_t)
DEF_LOGIC(i32, int32_t)
DEF_LOGIC(i64, int64_t)
DEF_LOGIC(u8, uint8_t)
DEF_LOGIC(u16, uint16_t)
DEF_LOGIC(u32, uint32_t)
DEF_LOGIC(u64, uint64_t)
DEF_SHIFT_SIGNED(i8, int8_t, uint8_t, INT8_MIN, INT8_MAX, 8)
DEF_SHIFT_SIGNED(i16, int16_t, uint16_t, INT16_MIN, INT16_MAX, 16)
DEF_SHIFT_SIGNED(i32, int32_t, uint32_t, INT32_MIN, INT32_MAX, 32)
DEF_SHIFT_SIGNED(i64, int64_t, uint64_t, INT64_MIN, INT64_MAX, 64)
DEF_SHIFT_UNSIGNED(u8, uint8_t, UINT8_MAX, 8)
DEF_SHIFT_UNSIGNED(u16, uint16_t, UINT16_MAX, 16)
DEF_SHIFT_UNSIGNED(u32, uint32_t, UINT32_MAX, 32)
DEF_SHIFT_UNSIGNED(u64, uint64_t, UINT64_MAX, 64)

/* bool: logical, on truth values. */
static inline uint8_t and_b(uint8_t x, uint8_t y) { return (uint8_t)((x != 0) & (y != 0)); }
static inline uint8_t or_b(uint8_t x, uint8_t y) { return (uint8_t)((x != 0) | (y != 0)); }
static inline uint8_t xor_b(uint8_t x, uint8_t y) { return (uint8_t)((x != 0) ^ (y != 0)); }
static inline uint8_t inv_b(uint8_t x) { return (uint8_t)(x == 0); }

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
            if ((LEFT) != neg_##S(k))                                                            \
                shl_run_##S(data[0], data[2], n, mag_##S(k));                                    \
            else                                                                                 \
                shr_run_##S(data[0], data[2], n, mag_##S(k));                                    \
            return;                                                                              \
        }                                                                                        \
        BINARY_BODY(T, T, T, FN)                                                                 \
    }

#define DEF_LOGIC_KERNELS(S, T)                                                                  \
    DEF_BINARY_KERNEL(k_and_##S, T, and_##S)                                                     \
    DEF_BINARY_KERNEL(k_or_##S, T, or_##S)                                                       \
    DEF_BINARY_KERNEL(k_xor_##S, T, xor_##S)                                                     \
    DEF_UNARY_KERNEL(k_inv_##S, T, inv_##S)
#define DEF_INT_KERNELS(S, T)                                                                    \
    DEF_LOGIC_KERNELS(S, T)                                                                      \
    DEF_SHIFT_KERNEL(k_shl_##S, S, T, 1, shl_##S)                                                \
    DEF_SHIFT_KERNEL(k_shr_##S, S, T, 0, shr_##S)

DEF_SHIFT_RUNS_SIGNED(i8, int8_t, uint8_t, INT8_MIN, INT8_MAX, 8)
DEF_SHIFT_RUNS_SIGNED(i16, int16_t, uint16_t, INT16_MIN, INT16_MAX, 16)
DEF_SHIFT_RUNS_SIGNED(i32, int32_t, uint32_t, INT32_MIN, INT32_MAX, 32)
DEF_SHIFT_RUNS_SIGNED(i64, int64_t, uint64_t, INT64_MIN, INT64_MAX, 64)
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

/* ---- lookup ------------------------------------------------------------------------- */

typedef struct bitwise_kernels {
    aug__kernel and_, or_, xor_, inv, shl, shr;
} bitwise_kernels;

#define BITWISE_ENTRY(S) { k_and_##S, k_or_##S, k_xor_##S, k_inv_##S, k_shl_##S, k_shr_##S }

aug__kernel aug__cpu_bitwise_kernel(aug_op op, int ctype) {
    static const bitwise_kernels table[KSLOT_COUNT] = {
        [KSLOT_B] = { k_and_b, k_or_b, k_xor_b, k_inv_b, NULL, NULL },
        [KSLOT_I8] = BITWISE_ENTRY(i8),   [KSLOT_I16] = BITWISE_ENTRY(i16),
        [KSLOT_I32] = BITWISE_ENTRY(i32), [KSLOT_I64] = BITWISE_ENTRY(i64),
        [KSLOT_U8] = BITWISE_ENTRY(u8),   [KSLOT_U16] = BITWISE_ENTRY(u16),
        [KSLOT_U32] = BITWISE_ENTRY(u32), [KSLOT_U64] = BITWISE_ENTRY(u64),
    };
    const int slot = ctype_slot(ctype);
    if (slot < 0) return NULL;
    const bitwise_kernels *k = &table[slot];
    switch (op) {
    case AUG_OP_AND: return k->and_;
    case AUG_OP_OR: return k->or_;
    case AUG_OP_XOR: return k->xor_;
    case AUG_OP_INVERT: return k->inv;
    case AUG_OP_LSHIFT: return k->shl;
    case AUG_OP_RSHIFT: return k->shr;
    default: return NULL;
    }
}
