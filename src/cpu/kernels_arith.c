/* cpu/kernels_arith.c: the "arith" kernel family (cpu/kernels.h): POS NEG ADD SUB
 * MUL ABS MIN MAX CLAMP COPY on one compute type (SPEC 7, 8).
 *
 * Integers saturate: the exact result is clamped to the ctype's range. 8/16-bit
 * types widen to int32, which holds every exact result; wider add/sub detect the
 * wrap-around branch-free; wider products and AUG__I128 use the overflow builtins. -(-128) = 127 in int8, -x = 0 for unsigned types.
 * Floats are IEEE (no contraction: the build passes -ffp-contract=off); MIN/MAX
 * return NaN when either operand is NaN; CLAMP(v, lo, hi) = MIN(MAX(v, lo), hi), so
 * lo > hi gives hi. BOOL (values 0/1) has MUL = MIN = and, MAX = or, CLAMP.
 *
 * Every kernel has contiguous fast paths (all strides equal to the element size, or
 * one broadcast input with stride 0) written as plain indexed loops GCC vectorises.
 * Saturating add/sub of the 8/16-bit types, the uint8 hot path of image pipelines,
 * use the SSE2 saturating instructions directly; the portable loop handles tails
 * and non-SSE2 builds. The loops themselves are cpu/loops.h's. */
#include <math.h>
#include "cpu/kernels.h"
#include "cpu/loops.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* ---- scalar ops ------------------------------------------------------------------- */

/* 8/16-bit signed: W holds every exact sum, difference and product; the clamp is
 * two independent selects so GCC turns it into vector min/max. */
#define DEF_NARROW_SIGNED(S, T, TMIN, TMAX, W)                                                   \
    static inline T sat_##S(W r) {                                                               \
        r = r < (TMIN) ? (TMIN) : r;                                                             \
        r = r > (TMAX) ? (TMAX) : r;                                                             \
        return (T)r;                                                                             \
    }                                                                                            \
    static inline T add_##S(T x, T y) { return sat_##S((W)x + (W)y); }                          \
    static inline T sub_##S(T x, T y) { return sat_##S((W)x - (W)y); }                          \
    static inline T mul_##S(T x, T y) { return sat_##S((W)x * (W)y); }                          \
    static inline T neg_##S(T x) { return x == (TMIN) ? (T)(TMAX) : (T)-x; }                     \
    static inline T abs_##S(T x) { return x >= 0 ? x : neg_##S(x); }

/* 32/64-bit signed add/sub without a wider type: wrap in the unsigned type, and on
 * overflow (the operands' signs agree and the result's differs) take the limit of
 * the sign of x, (x >> (bits-1)) ^ TMAX. Branch-free, so the loops vectorise. */
#define DEF_ADDSUB_SIGNED(S, T, U, TMAX, SHIFT)                                                  \
    static inline T add_##S(T x, T y) {                                                          \
        T r = (T)((U)x + (U)y);                                                                  \
        T lim = (T)((x >> (SHIFT)) ^ (TMAX));                                                    \
        return ((x ^ r) & (y ^ r)) < 0 ? lim : r;                                                \
    }                                                                                            \
    static inline T sub_##S(T x, T y) {                                                          \
        T r = (T)((U)x - (U)y);                                                                  \
        T lim = (T)((x >> (SHIFT)) ^ (TMAX));                                                    \
        return ((x ^ y) & (x ^ r)) < 0 ? lim : r;                                                \
    }

/* 32/64-bit signed mul, neg, abs (the product needs the wider type or a builtin). */
#define DEF_MUL_SIGNED(S, T, TMIN, TMAX)                                                         \
    static inline T mul_##S(T x, T y) {                                                          \
        T r;                                                                                     \
        return __builtin_mul_overflow(x, y, &r) ? (((x < 0) != (y < 0)) ? (TMIN) : (TMAX)) : r;  \
    }                                                                                            \
    static inline T neg_##S(T x) { return x == (TMIN) ? (TMAX) : -x; }                           \
    static inline T abs_##S(T x) { return x >= 0 ? x : neg_##S(x); }

/* 8/16/32-bit unsigned: WM holds every exact product; sums wrap exactly when they
 * overflow (r < x), which vectorises as a compare and a blend. */
#define DEF_NARROW_UNSIGNED(S, T, TMAX, WM)                                                      \
    static inline T add_##S(T x, T y) {                                                          \
        T r = (T)(x + y);                                                                        \
        return r < x ? (T)(TMAX) : r;                                                            \
    }                                                                                            \
    static inline T sub_##S(T x, T y) { return (T)(x > y ? x - y : 0); }                         \
    static inline T mul_##S(T x, T y) {                                                          \
        WM r = (WM)x * (WM)y;                                                                    \
        return (T)(r > (TMAX) ? (TMAX) : r);                                                     \
    }                                                                                            \
    static inline T neg_##S(T x) { (void)x; return 0; }                                          \
    static inline T abs_##S(T x) { return x; }

/* 128-bit signed: overflow builtins, saturating toward the sign. */
#define DEF_WIDE_SIGNED(S, T, TMIN, TMAX)                                                        \
    static inline T add_##S(T x, T y) {                                                          \
        T r;                                                                                     \
        return __builtin_add_overflow(x, y, &r) ? (y > 0 ? (TMAX) : (TMIN)) : r;                 \
    }                                                                                            \
    static inline T sub_##S(T x, T y) {                                                          \
        T r;                                                                                     \
        return __builtin_sub_overflow(x, y, &r) ? (y < 0 ? (TMAX) : (TMIN)) : r;                 \
    }                                                                                            \
    DEF_MUL_SIGNED(S, T, TMIN, TMAX)

#define DEF_WIDE_UNSIGNED(S, T, TMAX)                                                            \
    static inline T add_##S(T x, T y) {                                                          \
        T r = x + y;                                                                             \
        return r < x ? (TMAX) : r;                                                               \
    }                                                                                            \
    static inline T sub_##S(T x, T y) { return x > y ? x - y : 0; }                             \
    static inline T mul_##S(T x, T y) {                                                          \
        T r;                                                                                     \
        return __builtin_mul_overflow(x, y, &r) ? (TMAX) : r;                                    \
    }                                                                                            \
    static inline T neg_##S(T x) { (void)x; return 0; }                                          \
    static inline T abs_##S(T x) { return x; }

/* Ordering ops of an integer type. */
#define DEF_INT_ORDER(S, T)                                                                      \
    static inline T pos_##S(T x) { return x; }                                                   \
    static inline T min_##S(T x, T y) { return y < x ? y : x; }                                  \
    static inline T max_##S(T x, T y) { return y > x ? y : x; }                                  \
    static inline T clamp_##S(T v, T lo, T hi) { return min_##S(max_##S(v, lo), hi); }

DEF_NARROW_SIGNED(i8, int8_t, INT8_MIN, INT8_MAX, int32_t)
DEF_NARROW_SIGNED(i16, int16_t, INT16_MIN, INT16_MAX, int32_t)
DEF_ADDSUB_SIGNED(i32, int32_t, uint32_t, INT32_MAX, 31)
DEF_MUL_SIGNED(i32, int32_t, INT32_MIN, INT32_MAX)
DEF_ADDSUB_SIGNED(i64, int64_t, uint64_t, INT64_MAX, 63)
DEF_MUL_SIGNED(i64, int64_t, INT64_MIN, INT64_MAX)
DEF_WIDE_SIGNED(i128, aug__i128, AUG__I128_MIN, AUG__I128_MAX)
DEF_NARROW_UNSIGNED(u8, uint8_t, UINT8_MAX, uint32_t)
DEF_NARROW_UNSIGNED(u16, uint16_t, UINT16_MAX, uint32_t)
DEF_NARROW_UNSIGNED(u32, uint32_t, UINT32_MAX, uint64_t)
DEF_WIDE_UNSIGNED(u64, uint64_t, UINT64_MAX)
DEF_INT_ORDER(i8, int8_t)
DEF_INT_ORDER(i16, int16_t)
DEF_INT_ORDER(i32, int32_t)
DEF_INT_ORDER(i64, int64_t)
DEF_INT_ORDER(i128, aug__i128)
DEF_INT_ORDER(u8, uint8_t)
DEF_INT_ORDER(u16, uint16_t)
DEF_INT_ORDER(u32, uint32_t)
DEF_INT_ORDER(u64, uint64_t)

/* Floats: IEEE; MIN/MAX return the NaN operand when either is NaN (three selects,
 * which vectorise as compare-and-blend). */
#define DEF_FLOAT(S, T, FABS)                                                                    \
    static inline T pos_##S(T x) { return x; }                                                   \
    static inline T neg_##S(T x) { return -x; }                                                  \
    static inline T abs_##S(T x) { return FABS(x); }                                             \
    static inline T add_##S(T x, T y) { return x + y; }                                          \
    static inline T sub_##S(T x, T y) { return x - y; }                                          \
    static inline T mul_##S(T x, T y) { return x * y; }                                          \
    static inline T min_##S(T x, T y) {                                                          \
        T r = y < x ? y : x;                                                                     \
        r = y != y ? y : r;                                                                      \
        return x != x ? x : r;                                                                   \
    }                                                                                            \
    static inline T max_##S(T x, T y) {                                                          \
        T r = y > x ? y : x;                                                                     \
        r = y != y ? y : r;                                                                      \
        return x != x ? x : r;                                                                   \
    }                                                                                            \
    static inline T clamp_##S(T v, T lo, T hi) { return min_##S(max_##S(v, lo), hi); }

DEF_FLOAT(f32, float, fabsf)
DEF_FLOAT(f64, double, fabs)

/* Bool: values 0/1, read defensively as x != 0. */
static inline uint8_t pos_b(uint8_t x) { return (uint8_t)(x != 0); }
static inline uint8_t min_b(uint8_t x, uint8_t y) { return (uint8_t)((x != 0) & (y != 0)); }
static inline uint8_t max_b(uint8_t x, uint8_t y) { return (uint8_t)((x != 0) | (y != 0)); }
static inline uint8_t clamp_b(uint8_t v, uint8_t lo, uint8_t hi) { return min_b(max_b(v, lo), hi); }

/* ---- 1-D loops (the generic ones are cpu/loops.h's) --------------------------------- */

#ifdef __SSE2__
/* SSE2 saturating add/sub: 16 bytes per instruction for contiguous or broadcast
 * operands; VFN is the vector op, SET1 broadcasts a scalar. Identical results to
 * the portable FN, which does the tail and the strided case. When the engine says
 * the output is large (aug__kernel_ctx.stream_out) and the run is 16-byte aligned,
 * the stores are non-temporal. */
#define SSE2_RUN(STORE, EXPR)                                                                    \
    for (; i + lanes <= n; i += lanes) STORE((__m128i *)(void *)(qo + i * es0), EXPR)
#define SSE2_LOADA _mm_loadu_si128((const __m128i *)(const void *)(qa + i * es0))
#define SSE2_LOADB _mm_loadu_si128((const __m128i *)(const void *)(qb + i * es0))
#define SSE2_RUNS(STORE, VFN)                                                                    \
    do {                                                                                         \
        if (s0 && s1) SSE2_RUN(STORE, VFN(SSE2_LOADA, SSE2_LOADB));                              \
        else if (s0) SSE2_RUN(STORE, VFN(SSE2_LOADA, bb));                                       \
        else if (s1) SSE2_RUN(STORE, VFN(ba, SSE2_LOADB));                                       \
        else SSE2_RUN(STORE, VFN(ba, bb));                                                       \
    } while (0)
#define DEF_SSE2_KERNEL(NAME, T, FN, VFN, SET1)                                                  \
    static void NAME(char **data, int64_t n, const int64_t *strides, void *ctx) {                \
        const int64_t es0 = (int64_t)sizeof(T), lanes = 16 / es0;                                \
        const int64_t s0 = strides[0], s1 = strides[1];                                          \
        if (strides[2] == es0 && (s0 == es0 || s0 == 0) && (s1 == es0 || s1 == 0) && n >= lanes) { \
            const char *qa = data[0], *qb = data[1];                                             \
            char *qo = data[2];                                                                  \
            T xa, xb;                                                                            \
            LOAD(xa, qa);                                                                        \
            LOAD(xb, qb);                                                                        \
            const __m128i ba = SET1(xa), bb = SET1(xb);                                          \
            int64_t i = 0;                                                                       \
            const aug__kernel_ctx *kc = ctx;                                                     \
            if (kc && kc->stream_out && ((uintptr_t)qo & 15) == 0) {                             \
                SSE2_RUNS(_mm_stream_si128, VFN);                                                \
                _mm_sfence();                                                                    \
            } else {                                                                             \
                SSE2_RUNS(_mm_storeu_si128, VFN);                                                \
            }                                                                                    \
            for (; i < n; i++) {                                                                 \
                T x, y, r;                                                                       \
                LOAD(x, qa + i * s0);                                                            \
                LOAD(y, qb + i * s1);                                                            \
                r = FN(x, y);                                                                    \
                STORE(qo + i * es0, r);                                                          \
            }                                                                                    \
            return;                                                                              \
        }                                                                                        \
        BINARY_BODY(T, T, T, FN)                                                                 \
    }
#define SET1_8(v) _mm_set1_epi8((char)(v))
#define SET1_16(v) _mm_set1_epi16((short)(v))
DEF_SSE2_KERNEL(k_add_u8, uint8_t, add_u8, _mm_adds_epu8, SET1_8)
DEF_SSE2_KERNEL(k_sub_u8, uint8_t, sub_u8, _mm_subs_epu8, SET1_8)
DEF_SSE2_KERNEL(k_add_i8, int8_t, add_i8, _mm_adds_epi8, SET1_8)
DEF_SSE2_KERNEL(k_sub_i8, int8_t, sub_i8, _mm_subs_epi8, SET1_8)
DEF_SSE2_KERNEL(k_add_u16, uint16_t, add_u16, _mm_adds_epu16, SET1_16)
DEF_SSE2_KERNEL(k_sub_u16, uint16_t, sub_u16, _mm_subs_epu16, SET1_16)
DEF_SSE2_KERNEL(k_add_i16, int16_t, add_i16, _mm_adds_epi16, SET1_16)
DEF_SSE2_KERNEL(k_sub_i16, int16_t, sub_i16, _mm_subs_epi16, SET1_16)
#else
DEF_BINARY_KERNEL(k_add_u8, uint8_t, add_u8)
DEF_BINARY_KERNEL(k_sub_u8, uint8_t, sub_u8)
DEF_BINARY_KERNEL(k_add_i8, int8_t, add_i8)
DEF_BINARY_KERNEL(k_sub_i8, int8_t, sub_i8)
DEF_BINARY_KERNEL(k_add_u16, uint16_t, add_u16)
DEF_BINARY_KERNEL(k_sub_u16, uint16_t, sub_u16)
DEF_BINARY_KERNEL(k_add_i16, int16_t, add_i16)
DEF_BINARY_KERNEL(k_sub_i16, int16_t, sub_i16)
#endif

/* The ops other than add/sub of one numeric ctype. */
#define DEF_COMMON_KERNELS(S, T)                                                                 \
    DEF_UNARY_KERNEL(k_pos_##S, T, pos_##S)                                                      \
    DEF_UNARY_KERNEL(k_neg_##S, T, neg_##S)                                                      \
    DEF_UNARY_KERNEL(k_abs_##S, T, abs_##S)                                                      \
    DEF_BINARY_KERNEL(k_mul_##S, T, mul_##S)                                                     \
    DEF_BINARY_KERNEL(k_min_##S, T, min_##S)                                                     \
    DEF_BINARY_KERNEL(k_max_##S, T, max_##S)                                                     \
    DEF_TERNARY_KERNEL(k_clamp_##S, T, clamp_##S)
#define DEF_ADDSUB_KERNELS(S, T)                                                                 \
    DEF_BINARY_KERNEL(k_add_##S, T, add_##S)                                                     \
    DEF_BINARY_KERNEL(k_sub_##S, T, sub_##S)

DEF_COMMON_KERNELS(i8, int8_t)
DEF_COMMON_KERNELS(i16, int16_t)
DEF_COMMON_KERNELS(i32, int32_t)
DEF_COMMON_KERNELS(i64, int64_t)
DEF_COMMON_KERNELS(i128, aug__i128)
DEF_COMMON_KERNELS(u8, uint8_t)
DEF_COMMON_KERNELS(u16, uint16_t)
DEF_COMMON_KERNELS(u32, uint32_t)
DEF_COMMON_KERNELS(u64, uint64_t)
DEF_COMMON_KERNELS(f32, float)
DEF_COMMON_KERNELS(f64, double)
DEF_ADDSUB_KERNELS(i32, int32_t)
DEF_ADDSUB_KERNELS(i64, int64_t)
DEF_ADDSUB_KERNELS(i128, aug__i128)
DEF_ADDSUB_KERNELS(u32, uint32_t)
DEF_ADDSUB_KERNELS(u64, uint64_t)
DEF_ADDSUB_KERNELS(f32, float)
DEF_ADDSUB_KERNELS(f64, double)

DEF_UNARY_KERNEL(k_pos_b, uint8_t, pos_b)
DEF_BINARY_KERNEL(k_min_b, uint8_t, min_b)
DEF_BINARY_KERNEL(k_max_b, uint8_t, max_b)
DEF_TERNARY_KERNEL(k_clamp_b, uint8_t, clamp_b)

/* ---- lookup ------------------------------------------------------------------------- */

typedef struct arith_kernels {
    aug__kernel pos, neg, add, sub, mul, abs, min, max, clamp;
} arith_kernels;

#define ARITH_ENTRY(S) { k_pos_##S, k_neg_##S, k_add_##S, k_sub_##S, k_mul_##S, k_abs_##S, \
                         k_min_##S, k_max_##S, k_clamp_##S }

aug__kernel aug__cpu_arith_kernel(aug_op op, int ctype) {
    static const arith_kernels table[KSLOT_COUNT] = {
        /* bool: MUL and MIN are both logical and; no NEG/ADD/SUB/ABS (SPEC 7). */
        [KSLOT_B] = { k_pos_b, NULL, NULL, NULL, k_min_b, NULL, k_min_b, k_max_b, k_clamp_b },
        [KSLOT_I8] = ARITH_ENTRY(i8),   [KSLOT_I16] = ARITH_ENTRY(i16), [KSLOT_I32] = ARITH_ENTRY(i32),
        [KSLOT_I64] = ARITH_ENTRY(i64), [KSLOT_I128] = ARITH_ENTRY(i128),
        [KSLOT_U8] = ARITH_ENTRY(u8),   [KSLOT_U16] = ARITH_ENTRY(u16), [KSLOT_U32] = ARITH_ENTRY(u32),
        [KSLOT_U64] = ARITH_ENTRY(u64), [KSLOT_F32] = ARITH_ENTRY(f32), [KSLOT_F64] = ARITH_ENTRY(f64),
    };
    const int slot = ctype_slot(ctype);
    if (slot < 0) return NULL;
    const arith_kernels *k = &table[slot];
    switch (op) {
    case AUG_OP_POS:
    case AUG_OP_COPY: return k->pos;
    case AUG_OP_NEG: return k->neg;
    case AUG_OP_ADD: return k->add;
    case AUG_OP_SUB: return k->sub;
    case AUG_OP_MUL: return k->mul;
    case AUG_OP_ABS: return k->abs;
    case AUG_OP_MIN: return k->min;
    case AUG_OP_MAX: return k->max;
    case AUG_OP_CLAMP: return k->clamp;
    default: return NULL;
    }
}
