/* cpu/kernels_arith.c: the "arith" kernel family (cpu/kernels.h): POS NEG ADD SUB
 * MUL ABS MIN MAX CLAMP COPY on one compute type (semantics §7, §8). The scalar
 * rules (saturation, NaN-propagating min/max, bool logic) are scalar/arith.h's,
 * shared with the CUDA backend.
 *
 * Every kernel has contiguous fast paths (all strides equal to the element size, or
 * one broadcast input with stride 0) written as plain indexed loops GCC vectorises.
 * Saturating add/sub of the 8/16-bit types, the uint8 hot path of image pipelines,
 * use the SSE2 saturating instructions directly; the portable loop handles tails
 * and non-SSE2 builds. The loops themselves are cpu/loops.h's. */
#include <math.h>
#include "cpu/kernels.h"
#include "cpu/loops.h"
#include "scalar/arith.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

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
DEF_SSE2_KERNEL(k_add_u8, uint8_t, aug__add_u8, _mm_adds_epu8, SET1_8)
DEF_SSE2_KERNEL(k_sub_u8, uint8_t, aug__sub_u8, _mm_subs_epu8, SET1_8)
DEF_SSE2_KERNEL(k_add_i8, int8_t, aug__add_i8, _mm_adds_epi8, SET1_8)
DEF_SSE2_KERNEL(k_sub_i8, int8_t, aug__sub_i8, _mm_subs_epi8, SET1_8)
DEF_SSE2_KERNEL(k_add_u16, uint16_t, aug__add_u16, _mm_adds_epu16, SET1_16)
DEF_SSE2_KERNEL(k_sub_u16, uint16_t, aug__sub_u16, _mm_subs_epu16, SET1_16)
DEF_SSE2_KERNEL(k_add_i16, int16_t, aug__add_i16, _mm_adds_epi16, SET1_16)
DEF_SSE2_KERNEL(k_sub_i16, int16_t, aug__sub_i16, _mm_subs_epi16, SET1_16)
#else
DEF_BINARY_KERNEL(k_add_u8, uint8_t, aug__add_u8)
DEF_BINARY_KERNEL(k_sub_u8, uint8_t, aug__sub_u8)
DEF_BINARY_KERNEL(k_add_i8, int8_t, aug__add_i8)
DEF_BINARY_KERNEL(k_sub_i8, int8_t, aug__sub_i8)
DEF_BINARY_KERNEL(k_add_u16, uint16_t, aug__add_u16)
DEF_BINARY_KERNEL(k_sub_u16, uint16_t, aug__sub_u16)
DEF_BINARY_KERNEL(k_add_i16, int16_t, aug__add_i16)
DEF_BINARY_KERNEL(k_sub_i16, int16_t, aug__sub_i16)
#endif

/* The ops other than add/sub of one numeric ctype. */
#define DEF_COMMON_KERNELS(S, T)                                                                 \
    DEF_UNARY_KERNEL(k_pos_##S, T, aug__pos_##S)                                                 \
    DEF_UNARY_KERNEL(k_neg_##S, T, aug__neg_##S)                                                 \
    DEF_UNARY_KERNEL(k_abs_##S, T, aug__abs_##S)                                                 \
    DEF_BINARY_KERNEL(k_mul_##S, T, aug__mul_##S)                                                \
    DEF_BINARY_KERNEL(k_min_##S, T, aug__min_##S)                                                \
    DEF_BINARY_KERNEL(k_max_##S, T, aug__max_##S)                                                \
    DEF_TERNARY_KERNEL(k_clamp_##S, T, aug__clamp_##S)
#define DEF_ADDSUB_KERNELS(S, T)                                                                 \
    DEF_BINARY_KERNEL(k_add_##S, T, aug__add_##S)                                                \
    DEF_BINARY_KERNEL(k_sub_##S, T, aug__sub_##S)

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

DEF_UNARY_KERNEL(k_pos_b, uint8_t, aug__pos_b)
DEF_BINARY_KERNEL(k_min_b, uint8_t, aug__min_b)
DEF_BINARY_KERNEL(k_max_b, uint8_t, aug__max_b)
DEF_TERNARY_KERNEL(k_clamp_b, uint8_t, aug__clamp_b)

/* ---- lookup ------------------------------------------------------------------------- */

typedef struct arith_kernels {
    aug__kernel k[AUG__ARITH_SLOTS]; /* core/kernel_slots.h order */
} arith_kernels;

#define ARITH_ENTRY(S) {{ k_pos_##S, k_neg_##S, k_add_##S, k_sub_##S, k_mul_##S, k_abs_##S,      \
                          k_min_##S, k_max_##S, k_clamp_##S }}

aug__kernel aug__cpu_arith_kernel(aug_op op, int ctype) {
    static const arith_kernels table[AUG__NUM_CTYPES] = {
        /* bool: MUL and MIN are both logical and; no NEG/ADD/SUB/ABS (semantics §7). */
        [AUG__CT_BOOL] = {{ k_pos_b, NULL, NULL, NULL, k_min_b, NULL, k_min_b, k_max_b, k_clamp_b }},
        [AUG__CT_INT8] = ARITH_ENTRY(i8),   [AUG__CT_INT16] = ARITH_ENTRY(i16), [AUG__CT_INT32] = ARITH_ENTRY(i32),
        [AUG__CT_INT64] = ARITH_ENTRY(i64), [AUG__CT_I128] = ARITH_ENTRY(i128),
        [AUG__CT_UINT8] = ARITH_ENTRY(u8),   [AUG__CT_UINT16] = ARITH_ENTRY(u16), [AUG__CT_UINT32] = ARITH_ENTRY(u32),
        [AUG__CT_UINT64] = ARITH_ENTRY(u64), [AUG__CT_FLOAT32] = ARITH_ENTRY(f32), [AUG__CT_FLOAT64] = ARITH_ENTRY(f64),
    };
    const int slot = aug__arith_slot(op);
    return slot < 0 || ctype < 0 || ctype >= AUG__NUM_CTYPES ? NULL : table[ctype].k[slot];
}
