/* cpu/reduce.c: the CPU reductions (sum, mean, min, max, all, any, argmin, argmax),
 * semantics §10.
 * The order and the per-output rules are scalar/reduce.h's (shared with the
 * CUDA backend); this file walks the input and schedules the work.
 *
 * The core (core/reduce.c) has chosen the result dtype and hands over a plan whose
 * `out` has the input's ndim with extent 1 on the reduced axes. Here:
 *  - integers and bool accumulate exactly in __int128 and are saturated once, on
 *    store (core/ctype.h helpers);
 *  - floats (float16/bfloat16 read as float) accumulate in float64: blocks of
 *    RED_BLOCK elements are summed in 8 interleaved lanes, block sums are combined
 *    pairwise by a binary-counter stack, so the error grows O(log n);
 *  - min/max propagate NaN and order -0.0 before +0.0; all/any test x != 0 (NaN is
 *    true).
 * Determinism: the reduced range of every output element is cut into chunks of
 * RED_CHUNK elements (float sums; RED_ICHUNK for the exact reductions, whose
 * result no cut can change) counted from its start, independent of the thread count.
 * Each chunk gives a partial; partials are combined in chunk order with the same
 * pairwise stack. Threads only decide who computes which chunk, never the order
 * of any floating-point addition, so results are bit-identical for any number of
 * threads. The reduced sub-space is visited in C order of the input's reduced dims,
 * either one output at a time (runs) or a tile of outputs at a time (columns, for
 * reductions over outer axes); both apply the same steps to each output. */
#include <stdlib.h>
#include <math.h>
#include "core/backend.h"
#include "core/ctype.h"
#include "scalar/reduce.h"
#include "cpu/pool.h"
#include "cpu/simd.h"
#include "cpu/cpu.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if AUG__X86
#include <immintrin.h>
#endif

#define RED_CHUNK AUG__RED_CHUNK
#define RED_ICHUNK (RED_CHUNK * 4)
#define RED_BLOCK AUG__RED_BLOCK
#define RED_LANES AUG__RED_LANES
#define RED_PW_SMALL AUG__RED_PW_SMALL

#define pw_push aug__red_pw_push
#define pw_total aug__red_pw_total
_Static_assert(RED_CHUNK / RED_BLOCK < (1 << RED_PW_SMALL), "chunk stack too small");
_Static_assert(RED_CHUNK % RED_BLOCK == 0 && RED_BLOCK % RED_LANES == 0, "blocks must tile chunks");

/* ---- accumulator state ------------------------------------------------------ */

typedef struct red_state {
    aug__i128 i;              /* integer sum or min/max; float min/max key (RED_FKEY) */
    double f;                 /* float sum (set by state_finish) */
    int64_t n;                /* elements seen */
    int flag;                 /* all/any; float min/max: a NaN was seen */
    int64_t arg, base;        /* argmin/argmax: best index (-1: none; key in i), index of the first element */
    int cnt;                  /* float sum: elements in the current block */
    double lane[RED_LANES];   /* float sum: lanes of the current block */
    double pw[RED_PW_SMALL];  /* float sum: finished blocks (pairwise stack) */
    int8_t pw_level[RED_PW_SMALL];
    int pw_n;
} red_state;

static void push_block(red_state *s, double x) { pw_push(s->pw, s->pw_level, &s->pw_n, x); }

typedef struct red_partial {
    aug__i128 i;
    double f;
    int64_t n;
    int flag;
    int64_t arg;
} red_partial;

/* -0.0 is the identity of IEEE addition (0.0 would turn a sum of -0.0 into 0.0). */
static void lanes_reset(double *lane) {
    for (int k = 0; k < RED_LANES; k++) lane[k] = -0.0;
}

#define lanes_fold aug__red_lanes_fold

static void state_init(red_state *s, aug_reduce_op op, int64_t base) {
    s->arg = -1;
    s->base = base;
    s->i = 0;
    s->f = 0.0;
    s->n = 0;
    s->flag = op == AUG_REDUCE_ALL;
    s->cnt = 0;
    s->pw_n = 0;
    lanes_reset(s->lane);
}

static red_partial state_finish(red_state *s, int float_sum) {
    red_partial r = {s->i, s->f, s->n, s->flag, s->arg};
    if (float_sum) {
        if (s->cnt > 0) push_block(s, lanes_fold(s->lane));
        r.f = s->n ? pw_total(s->pw, s->pw_n) : 0.0;
    }
    return r;
}

typedef void (*run_fn)(const char *p, int64_t n, int64_t st, red_state *s);

/* ---- contiguous integer sums ------------------------------------------------ */

static int64_t sum8_portable(const uint8_t *p, int64_t n, aug_dtype dt) {
    int64_t total = 0;
    while (n > 0) {
        /* 65536 * 255 < 2^32: a block fits the 32-bit lanes GCC vectorises. */
        int64_t m = n < RED_CHUNK ? n : RED_CHUNK;
        if (dt == AUG_UINT8) {
            uint32_t s = 0;
            for (int64_t i = 0; i < m; i++) s += p[i];
            total += s;
        } else if (dt == AUG_INT8) {
            int32_t s = 0;
            for (int64_t i = 0; i < m; i++) s += (int8_t)p[i];
            total += s;
        } else {
            uint32_t s = 0;
            for (int64_t i = 0; i < m; i++) s += p[i] != 0;
            total += s;
        }
        p += m;
        n -= m;
    }
    return total;
}

#ifdef __SSE2__
/* psadbw against zero sums 8 bytes into a 64-bit lane: 16 bytes per instruction.
 * int8 is biased to uint8 by flipping the sign bit (x ^ 0x80 = x + 128); bool
 * maps every non-zero byte to 1 with an unsigned min. */
static int64_t sum8_sse2(const uint8_t *p, int64_t n, aug_dtype dt) {
    const __m128i zero = _mm_setzero_si128();
    const __m128i flip = _mm_set1_epi8((char)0x80), one = _mm_set1_epi8(1);
    __m128i a0 = zero, a1 = zero, a2 = zero, a3 = zero;
    int64_t i = 0;
#define RED_LOAD8(off) _mm_loadu_si128((const __m128i *)(p + i + (off)))
#define RED_MAP8(v) (dt == AUG_INT8 ? _mm_xor_si128((v), flip) : dt == AUG_BOOL ? _mm_min_epu8((v), one) : (v))
    for (; i + 64 <= n; i += 64) {
        a0 = _mm_add_epi64(a0, _mm_sad_epu8(RED_MAP8(RED_LOAD8(0)), zero));
        a1 = _mm_add_epi64(a1, _mm_sad_epu8(RED_MAP8(RED_LOAD8(16)), zero));
        a2 = _mm_add_epi64(a2, _mm_sad_epu8(RED_MAP8(RED_LOAD8(32)), zero));
        a3 = _mm_add_epi64(a3, _mm_sad_epu8(RED_MAP8(RED_LOAD8(48)), zero));
    }
    for (; i + 16 <= n; i += 16) a0 = _mm_add_epi64(a0, _mm_sad_epu8(RED_MAP8(RED_LOAD8(0)), zero));
#undef RED_LOAD8
#undef RED_MAP8
    a0 = _mm_add_epi64(_mm_add_epi64(a0, a1), _mm_add_epi64(a2, a3));
    int64_t lanes[2];
    _mm_storeu_si128((__m128i *)lanes, a0);
    int64_t s = lanes[0] + lanes[1];
    if (dt == AUG_INT8) s -= 128 * i;
    return s + sum8_portable(p + i, n - i, dt);
}
#endif

#if AUG__X86
/* sum8_sse2 on 32-byte vectors: 128 bytes per iteration in 4 independent
 * accumulators (vpsadbw's 3-cycle latency would serialise a single one). Each
 * 64-bit lane gains at most 8 * 255 per vector, so none can overflow. The mapping
 * is a constant per call, so the switch picks one of three straight loops. */
__attribute__((target("avx2"))) static int64_t sum8_avx2(const uint8_t *p, int64_t n, aug_dtype dt) {
    const __m256i zero = _mm256_setzero_si256();
    const __m256i flip = _mm256_set1_epi8((char)0x80), one = _mm256_set1_epi8(1);
    __m256i a0 = zero, a1 = zero, a2 = zero, a3 = zero;
    int64_t i = 0;
#define RED_SAD32(MAP, off) _mm256_sad_epu8(MAP(_mm256_loadu_si256((const __m256i *)(p + i + (off)))), zero)
#define RED_LOOP32(MAP)                                                                 \
    for (; i + 128 <= n; i += 128) {                                                    \
        a0 = _mm256_add_epi64(a0, RED_SAD32(MAP, 0));                                   \
        a1 = _mm256_add_epi64(a1, RED_SAD32(MAP, 32));                                  \
        a2 = _mm256_add_epi64(a2, RED_SAD32(MAP, 64));                                  \
        a3 = _mm256_add_epi64(a3, RED_SAD32(MAP, 96));                                  \
    }                                                                                   \
    for (; i + 32 <= n; i += 32) a0 = _mm256_add_epi64(a0, RED_SAD32(MAP, 0))
#define RED_AS_U8(v) (v)
#define RED_I8_TO_U8(v) _mm256_xor_si256((v), flip)
#define RED_NONZERO(v) _mm256_min_epu8((v), one)
    switch (dt) {
    case AUG_UINT8: RED_LOOP32(RED_AS_U8); break;
    case AUG_INT8: RED_LOOP32(RED_I8_TO_U8); break;
    default: RED_LOOP32(RED_NONZERO); break;
    }
#undef RED_SAD32
#undef RED_LOOP32
#undef RED_AS_U8
#undef RED_I8_TO_U8
#undef RED_NONZERO
    a0 = _mm256_add_epi64(_mm256_add_epi64(a0, a1), _mm256_add_epi64(a2, a3));
    int64_t lanes[4];
    _mm256_storeu_si256((__m256i *)lanes, a0);
    int64_t s = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    if (dt == AUG_INT8) s -= 128 * i;
    return s + sum8_portable(p + i, n - i, dt); /* under 32 bytes left */
}

/* sum8_avx2 on 64-byte vectors, one accumulator (a stream from memory is
 * bandwidth-bound: on a 64 MiB input one chain measured 3% faster than four),
 * then one masked load for the last 1..63 bytes (the bytes it leaves out are
 * zero after the mapping, so nothing is biased twice). Each 64-bit lane gains at
 * most 8 * 255 per vector. */
__attribute__((target("avx512f,avx512bw"))) static int64_t sum8_avx512(const uint8_t *p, int64_t n, aug_dtype dt) {
    const __m512i zero = _mm512_setzero_si512();
    const __m512i flip = _mm512_set1_epi8((char)0x80), one = _mm512_set1_epi8(1);
    __m512i acc = zero;
    int64_t i = 0;
#define RED_LOOP64(MAP)                                                                                      \
    for (; i + 64 <= n; i += 64)                                                                             \
        acc = _mm512_add_epi64(acc, _mm512_sad_epu8(MAP(_mm512_loadu_si512((const void *)(p + i))), zero));  \
    if (i < n) {                                                                                             \
        __mmask64 m = _cvtu64_mask64(~0ULL >> (64 - (n - i)));                                              \
        acc = _mm512_add_epi64(acc, _mm512_sad_epu8(_mm512_maskz_mov_epi8(m, MAP(_mm512_maskz_loadu_epi8(m, p + i))), zero)); \
    }
#define RED_AS_U8(v) (v)
#define RED_I8_TO_U8(v) _mm512_xor_si512((v), flip)
#define RED_NONZERO(v) _mm512_min_epu8((v), one)
    switch (dt) {
    case AUG_UINT8: RED_LOOP64(RED_AS_U8); break;
    case AUG_INT8: RED_LOOP64(RED_I8_TO_U8); break;
    default: RED_LOOP64(RED_NONZERO); break;
    }
#undef RED_LOOP64
#undef RED_AS_U8
#undef RED_I8_TO_U8
#undef RED_NONZERO
    int64_t s = _mm512_reduce_add_epi64(acc);
    if (dt == AUG_INT8) s -= 128 * n;
    return s;
}
#endif

int64_t aug__cpu_sum8(const void *p, int64_t n, aug_dtype dt, int level) {
#if AUG__X86
    if (level >= AUG__SIMD_AVX512) return sum8_avx512((const uint8_t *)p, n, dt);
    if (level >= AUG__SIMD_AVX2) return sum8_avx2((const uint8_t *)p, n, dt);
#endif
#ifdef __SSE2__
    if (level >= AUG__SIMD_SSE2) return sum8_sse2((const uint8_t *)p, n, dt);
#endif
    return sum8_portable((const uint8_t *)p, n, dt);
}

/* ---- per-dtype run kernels ---------------------------------------------------- */

#define LD_B(q) (*(const uint8_t *)(q) != 0)
#define LD_I8(q) (*(const int8_t *)(q))
#define LD_U8(q) (*(const uint8_t *)(q))
#define LD_I16(q) (*(const int16_t *)(q))
#define LD_U16(q) (*(const uint16_t *)(q))
#define LD_I32(q) (*(const int32_t *)(q))
#define LD_U32(q) (*(const uint32_t *)(q))
#define LD_I64(q) (*(const int64_t *)(q))
#define LD_U64(q) (*(const uint64_t *)(q))
#define LD_F16(q) ((double)aug__f16_to_f32(*(const uint16_t *)(q)))
#define LD_BF16(q) ((double)aug__bf16_to_f32(*(const uint16_t *)(q)))
#define LD_F32(q) ((double)*(const float *)(q))
#define LD_F64(q) (*(const double *)(q))

/* Integer kernels. ACC is wide enough for a run of RED_ICHUNK elements (int64 for
 * 8..32-bit types, __int128 for 64-bit); 8-bit contiguous runs use aug__cpu_sum8. */
#define RED_INT_KERNELS(N, T, ACC, LD, SUM8)                                          \
    static void sum_##N(const char *p, int64_t n, int64_t st, red_state *s) {        \
        ACC a = 0;                                                                    \
        if (st == (int64_t)sizeof(T)) {                                               \
            if (SUM8 != AUG_NUM_DTYPES) a = (ACC)aug__cpu_sum8(p, n, (aug_dtype)SUM8, aug__simd_level()); \
            else for (int64_t i = 0; i < n; i++) a += LD(p + i * (int64_t)sizeof(T)); \
        } else {                                                                      \
            for (int64_t i = 0; i < n; i++) a += LD(p + i * st);                      \
        }                                                                             \
        s->i += a;                                                                    \
        s->n += n;                                                                    \
    }                                                                                 \
    static void min_##N(const char *p, int64_t n, int64_t st, red_state *s) {        \
        T m = LD(p);                                                                  \
        if (st == (int64_t)sizeof(T)) {                                               \
            for (int64_t i = 1; i < n; i++) { T x = LD(p + i * (int64_t)sizeof(T)); m = x < m ? x : m; } \
        } else {                                                                      \
            for (int64_t i = 1; i < n; i++) { T x = LD(p + i * st); m = x < m ? x : m; } \
        }                                                                             \
        if (s->n == 0 || (aug__i128)m < s->i) s->i = m;                              \
        s->n += n;                                                                    \
    }                                                                                 \
    static void max_##N(const char *p, int64_t n, int64_t st, red_state *s) {        \
        T m = LD(p);                                                                  \
        if (st == (int64_t)sizeof(T)) {                                               \
            for (int64_t i = 1; i < n; i++) { T x = LD(p + i * (int64_t)sizeof(T)); m = x > m ? x : m; } \
        } else {                                                                      \
            for (int64_t i = 1; i < n; i++) { T x = LD(p + i * st); m = x > m ? x : m; } \
        }                                                                             \
        if (s->n == 0 || (aug__i128)m > s->i) s->i = m;                              \
        s->n += n;                                                                    \
    }                                                                                 \
    static void all_##N(const char *p, int64_t n, int64_t st, red_state *s) {        \
        s->n += n;                                                                    \
        if (!s->flag) return;                                                         \
        for (int64_t i = 0; i < n; i++)                                               \
            if (LD(p + i * st) == 0) { s->flag = 0; return; }                         \
    }                                                                                 \
    static void any_##N(const char *p, int64_t n, int64_t st, red_state *s) {        \
        s->n += n;                                                                    \
        if (s->flag) return;                                                          \
        for (int64_t i = 0; i < n; i++)                                               \
            if (LD(p + i * st) != 0) { s->flag = 1; return; }                         \
    }                                                                                 \
    static void col_sum_##N(const char *p, int64_t cnt, int64_t so, red_state *s) {  \
        for (int64_t k = 0; k < cnt; k++) {                                           \
            s[k].i += LD(p + k * so);                                                 \
            s[k].n++;                                                                 \
        }                                                                             \
    }                                                                                 \
    static void col_min_##N(const char *p, int64_t cnt, int64_t so, red_state *s) {  \
        for (int64_t k = 0; k < cnt; k++) {                                           \
            T x = LD(p + k * so);                                                     \
            if (s[k].n++ == 0 || x < s[k].i) s[k].i = x;                              \
        }                                                                             \
    }                                                                                 \
    static void col_max_##N(const char *p, int64_t cnt, int64_t so, red_state *s) {  \
        for (int64_t k = 0; k < cnt; k++) {                                           \
            T x = LD(p + k * so);                                                     \
            if (s[k].n++ == 0 || x > s[k].i) s[k].i = x;                              \
        }                                                                             \
    }                                                                                 \
    static void col_all_##N(const char *p, int64_t cnt, int64_t so, red_state *s) {  \
        for (int64_t k = 0; k < cnt; k++) {                                           \
            s[k].flag &= LD(p + k * so) != 0;                                         \
            s[k].n++;                                                                 \
        }                                                                             \
    }                                                                                 \
    static void col_any_##N(const char *p, int64_t cnt, int64_t so, red_state *s) {  \
        for (int64_t k = 0; k < cnt; k++) {                                           \
            s[k].flag |= LD(p + k * so) != 0;                                         \
            s[k].n++;                                                                 \
        }                                                                             \
    }

RED_INT_KERNELS(b, uint8_t, int64_t, LD_B, AUG_BOOL)
RED_INT_KERNELS(i8, int8_t, int64_t, LD_I8, AUG_INT8)
RED_INT_KERNELS(u8, uint8_t, int64_t, LD_U8, AUG_UINT8)
RED_INT_KERNELS(i16, int16_t, int64_t, LD_I16, AUG_NUM_DTYPES)
RED_INT_KERNELS(u16, uint16_t, int64_t, LD_U16, AUG_NUM_DTYPES)
RED_INT_KERNELS(i32, int32_t, int64_t, LD_I32, AUG_NUM_DTYPES)
RED_INT_KERNELS(u32, uint32_t, int64_t, LD_U32, AUG_NUM_DTYPES)
RED_INT_KERNELS(i64, int64_t, aug__i128, LD_I64, AUG_NUM_DTYPES)
RED_INT_KERNELS(u64, uint64_t, aug__i128, LD_U64, AUG_NUM_DTYPES)

/* Float kernels. The sum feeds element j of a block into lane j % 8, each lane in
 * order; a full block folds its lanes pairwise and goes onto the stack. The
 * contiguous full-block loop does exactly the same additions in a form GCC
 * vectorises. */
#define RED_FLOAT_KERNELS(N, T, LD)                                                   \
    static void sum_##N(const char *p, int64_t n, int64_t st, red_state *s) {        \
        s->n += n;                                                                    \
        while (n > 0) {                                                               \
            if (s->cnt == 0 && n >= RED_BLOCK && st == (int64_t)sizeof(T)) {          \
                double l[RED_LANES];                                                  \
                lanes_reset(l);                                                       \
                for (int j = 0; j < RED_BLOCK; j += RED_LANES)                        \
                    for (int k = 0; k < RED_LANES; k++)                               \
                        l[k] += LD(p + (int64_t)(j + k) * (int64_t)sizeof(T));        \
                push_block(s, lanes_fold(l));                                       \
                p += RED_BLOCK * (int64_t)sizeof(T);                                  \
                n -= RED_BLOCK;                                                       \
                continue;                                                             \
            }                                                                         \
            int64_t m = RED_BLOCK - s->cnt;                                           \
            if (m > n) m = n;                                                         \
            for (int64_t i = 0; i < m; i++, s->cnt++) s->lane[s->cnt % RED_LANES] += LD(p + i * st); \
            p += m * st;                                                              \
            n -= m;                                                                   \
            if (s->cnt == RED_BLOCK) {                                                \
                push_block(s, lanes_fold(s->lane));                                 \
                lanes_reset(s->lane);                                                 \
                s->cnt = 0;                                                           \
            }                                                                         \
        }                                                                             \
    }                                                                                 \
    /* Column kernels: one element (the same reduced position) for each of cnt     \
     * output states; the same per-element steps as the run kernels above. */       \
    static void col_sum_##N(const char *p, int64_t cnt, int64_t so, red_state *s) {  \
        int c = s[0].cnt, lane = c % RED_LANES;                                       \
        for (int64_t k = 0; k < cnt; k++) {                                           \
            s[k].lane[lane] += LD(p + k * so);                                        \
            s[k].cnt = c + 1;                                                         \
            s[k].n++;                                                                 \
        }                                                                             \
        if (c + 1 == RED_BLOCK)                                                       \
            for (int64_t k = 0; k < cnt; k++) {                                       \
                push_block(&s[k], lanes_fold(s[k].lane));                             \
                lanes_reset(s[k].lane);                                               \
                s[k].cnt = 0;                                                         \
            }                                                                         \
    }

RED_FLOAT_KERNELS(f16, uint16_t, LD_F16)
RED_FLOAT_KERNELS(bf16, uint16_t, LD_BF16)
RED_FLOAT_KERNELS(f32, float, LD_F32)
RED_FLOAT_KERNELS(f64, double, LD_F64)

/* Float min/max/all/any work on the bits. min/max compare a key that orders like
 * the values with -0.0 < +0.0 (flip the magnitude bits of negatives), so the result
 * never depends on the visiting order, not even in the sign of a zero; a NaN sets
 * the flag instead (its key is ignored). all/any test the magnitude bits (NaN is
 * non-zero). Integer compares vectorise where double compares do not. */
#define RED_FKEY AUG__RED_FKEY
#define RED_FKEY_KERNELS(N, U, S, MAG, INF)                                           \
    static void min_##N(const char *p, int64_t n, int64_t st, red_state *s) {        \
        S m = RED_FKEY(U, S, MAG, *(const U *)p);                                     \
        int nan = 0;                                                                  \
        if (st == (int64_t)sizeof(U)) {                                               \
            const U *q = (const U *)p;                                                \
            for (int64_t i = 0; i < n; i++) {                                         \
                U u = q[i];                                                           \
                S k = RED_FKEY(U, S, MAG, u);                                         \
                m = k < m ? k : m;                                                    \
                nan |= (u & (U)(MAG)) > (U)(INF);                                     \
            }                                                                         \
        } else {                                                                      \
            for (int64_t i = 0; i < n; i++) {                                         \
                U u = *(const U *)(p + i * st);                                       \
                S k = RED_FKEY(U, S, MAG, u);                                         \
                m = k < m ? k : m;                                                    \
                nan |= (u & (U)(MAG)) > (U)(INF);                                     \
            }                                                                         \
        }                                                                             \
        if (s->n == 0 || m < s->i) s->i = m;                                          \
        s->flag |= nan;                                                               \
        s->n += n;                                                                    \
    }                                                                                 \
    static void max_##N(const char *p, int64_t n, int64_t st, red_state *s) {        \
        S m = RED_FKEY(U, S, MAG, *(const U *)p);                                     \
        int nan = 0;                                                                  \
        if (st == (int64_t)sizeof(U)) {                                               \
            const U *q = (const U *)p;                                                \
            for (int64_t i = 0; i < n; i++) {                                         \
                U u = q[i];                                                           \
                S k = RED_FKEY(U, S, MAG, u);                                         \
                m = k > m ? k : m;                                                    \
                nan |= (u & (U)(MAG)) > (U)(INF);                                     \
            }                                                                         \
        } else {                                                                      \
            for (int64_t i = 0; i < n; i++) {                                         \
                U u = *(const U *)(p + i * st);                                       \
                S k = RED_FKEY(U, S, MAG, u);                                         \
                m = k > m ? k : m;                                                    \
                nan |= (u & (U)(MAG)) > (U)(INF);                                     \
            }                                                                         \
        }                                                                             \
        if (s->n == 0 || m > s->i) s->i = m;                                          \
        s->flag |= nan;                                                               \
        s->n += n;                                                                    \
    }                                                                                 \
    static void all_##N(const char *p, int64_t n, int64_t st, red_state *s) {        \
        s->n += n;                                                                    \
        if (!s->flag) return;                                                         \
        for (int64_t i = 0; i < n; i++)                                               \
            if ((*(const U *)(p + i * st) & (U)(MAG)) == 0) { s->flag = 0; return; }  \
    }                                                                                 \
    static void any_##N(const char *p, int64_t n, int64_t st, red_state *s) {        \
        s->n += n;                                                                    \
        if (s->flag) return;                                                          \
        for (int64_t i = 0; i < n; i++)                                               \
            if ((*(const U *)(p + i * st) & (U)(MAG)) != 0) { s->flag = 1; return; }  \
    }                                                                                 \
    static void col_min_##N(const char *p, int64_t cnt, int64_t so, red_state *s) {  \
        for (int64_t k = 0; k < cnt; k++) {                                           \
            U u = *(const U *)(p + k * so);                                           \
            S key = RED_FKEY(U, S, MAG, u);                                           \
            if (s[k].n++ == 0 || key < s[k].i) s[k].i = key;                          \
            s[k].flag |= (u & (U)(MAG)) > (U)(INF);                                   \
        }                                                                             \
    }                                                                                 \
    static void col_max_##N(const char *p, int64_t cnt, int64_t so, red_state *s) {  \
        for (int64_t k = 0; k < cnt; k++) {                                           \
            U u = *(const U *)(p + k * so);                                           \
            S key = RED_FKEY(U, S, MAG, u);                                           \
            if (s[k].n++ == 0 || key > s[k].i) s[k].i = key;                          \
            s[k].flag |= (u & (U)(MAG)) > (U)(INF);                                   \
        }                                                                             \
    }                                                                                 \
    static void col_all_##N(const char *p, int64_t cnt, int64_t so, red_state *s) {  \
        for (int64_t k = 0; k < cnt; k++) {                                           \
            s[k].flag &= (*(const U *)(p + k * so) & (U)(MAG)) != 0;                  \
            s[k].n++;                                                                 \
        }                                                                             \
    }                                                                                 \
    static void col_any_##N(const char *p, int64_t cnt, int64_t so, red_state *s) {  \
        for (int64_t k = 0; k < cnt; k++) {                                           \
            s[k].flag |= (*(const U *)(p + k * so) & (U)(MAG)) != 0;                  \
            s[k].n++;                                                                 \
        }                                                                             \
    }

RED_FKEY_KERNELS(f16, uint16_t, int16_t, 0x7fffu, 0x7c00u)
RED_FKEY_KERNELS(bf16, uint16_t, int16_t, 0x7fffu, 0x7f80u)
RED_FKEY_KERNELS(f32, uint32_t, int32_t, 0x7fffffffu, 0x7f800000u)
RED_FKEY_KERNELS(f64, uint64_t, int64_t, 0x7fffffffffffffffull, 0x7ff0000000000000ull)

/* argmin/argmax. A run is searched in two passes: the best native value (a loop
 * like min/max, which vectorises), then the first index holding it (blocks of 64
 * tested at once); only that element goes through the rule of scalar/reduce.h (its
 * key, aug__red_arg_fkey for floats, against the state, aug__red_arg_wins). Native
 * order equals the key order (float values convert exactly), so the index found is
 * the first minimum / maximum of the run, as the one-pass rule would find. Floats
 * compare a key of the bits with -0.0 (key -1) folded onto +0.0 (key 0), then look
 * for its bit pattern (either zero for +-0.0); a NaN anywhere makes the first NaN
 * the run's candidate. Column kernels apply the rule to each element. The index of
 * an element is base + the elements seen, so chunks count from their start. */
#define RED_ARG_BEST(T, LD, CMP)                                                      \
    if (st == (int64_t)sizeof(T)) {                                                   \
        for (int64_t i = 1; i < n; i++) { T x = LD(p + i * (int64_t)sizeof(T)); best = x CMP best ? x : best; } \
    } else {                                                                          \
        for (int64_t i = 1; i < n; i++) { T x = LD(p + i * st); best = x CMP best ? x : best; } \
    }
/* i = the first index in [0, n) where MATCH(element pointer) holds (one exists):
 * blocks of 64 tested at once (vectorised when contiguous), then one by one. */
#define RED_ARG_FIND(T, MATCH, i)                                                     \
    do {                                                                              \
        const int64_t step_ = st == (int64_t)sizeof(T) ? (int64_t)sizeof(T) : st;     \
        if (st == (int64_t)sizeof(T)) {                                               \
            for (; i + 64 <= n; i += 64) {                                            \
                int hit_ = 0;                                                         \
                for (int64_t j_ = 0; j_ < 64; j_++) hit_ |= MATCH(p + (i + j_) * (int64_t)sizeof(T)); \
                if (hit_) break;                                                      \
            }                                                                         \
        }                                                                             \
        while (!MATCH(p + i * step_)) i++;                                            \
    } while (0)
#define RED_ARG_TAKE(KEY, i)                                                          \
    do {                                                                              \
        aug__i128 key_ = (KEY);                                                       \
        int64_t ix_ = s->base + s->n + (i);                                           \
        if (aug__red_arg_wins(mx, key_, ix_, s->i, s->arg)) { s->i = key_; s->arg = ix_; } \
        s->n += n;                                                                    \
    } while (0)
#define RED_ARG_INT_RUN(N, T, LD)                                                     \
    static void arg_##N(const char *p, int64_t n, int64_t st, red_state *s, int mx) { \
        T best = LD(p);                                                               \
        if (mx) { RED_ARG_BEST(T, LD, >) } else { RED_ARG_BEST(T, LD, <) }            \
        int64_t i = 0;                                                                \
        RED_ARG_FIND(T, MATCH_##N, i);                                                \
        RED_ARG_TAKE((aug__i128)best, i);                                             \
    }
/* Floats: the key of the bits with -0.0 (key -1) folded onto +0.0 (key 0), and a
 * NaN flag, in one pass; the best key then names one bit pattern (+-0.0: both). */
#define RED_ARG_FLOAT_RUN(N, U, S, MAG, INF, LDF)                                     \
    static inline S akey_##N(U u) {                                                   \
        S k = RED_FKEY(U, S, MAG, u);                                                 \
        return k == (S)-1 ? (S)0 : k;                                                 \
    }                                                                                 \
    static void arg_##N(const char *p, int64_t n, int64_t st, red_state *s, int mx) { \
        S best = akey_##N(*(const U *)p);                                             \
        U nan = 0;                                                                    \
        if (st == (int64_t)sizeof(U)) {                                               \
            const U *q = (const U *)p;                                                \
            if (mx) for (int64_t i = 0; i < n; i++) { S k = akey_##N(q[i]); best = k > best ? k : best; nan |= (U)((q[i] & (U)(MAG)) > (U)(INF)); } \
            else for (int64_t i = 0; i < n; i++) { S k = akey_##N(q[i]); best = k < best ? k : best; nan |= (U)((q[i] & (U)(MAG)) > (U)(INF)); } \
        } else {                                                                      \
            for (int64_t i = 0; i < n; i++) {                                         \
                U u = *(const U *)(p + i * st);                                       \
                S k = akey_##N(u);                                                    \
                best = mx ? (k > best ? k : best) : (k < best ? k : best);            \
                nan |= (U)((u & (U)(MAG)) > (U)(INF));                                \
            }                                                                         \
        }                                                                             \
        int64_t i = 0;                                                                \
        if (nan) {                                                                    \
            RED_ARG_FIND(U, FNAN_##N, i);                                             \
        } else {                                                                      \
            /* the bits of the best key (an involution); 0 stands for +-0.0 */       \
            const U want = (U)((U)best ^ (((U)0 - ((U)best >> (sizeof(U) * 8 - 1))) & (U)(MAG))); \
            if (best == 0) RED_ARG_FIND(U, FZERO_##N, i);                             \
            else RED_ARG_FIND(U, FBITS_##N, i);                                       \
        }                                                                             \
        RED_ARG_TAKE(aug__red_arg_fkey(mx, LDF(p + i * st)), i);                      \
    }
#define MATCH_b(q) (LD_B(q) == best)
#define MATCH_i8(q) (LD_I8(q) == best)
#define MATCH_u8(q) (LD_U8(q) == best)
#define MATCH_i16(q) (LD_I16(q) == best)
#define MATCH_u16(q) (LD_U16(q) == best)
#define MATCH_i32(q) (LD_I32(q) == best)
#define MATCH_u32(q) (LD_U32(q) == best)
#define MATCH_i64(q) (LD_I64(q) == best)
#define MATCH_u64(q) (LD_U64(q) == best)
#define FNAN_f16(q) ((*(const uint16_t *)(q) & 0x7fffu) > 0x7c00u)
#define FNAN_bf16(q) ((*(const uint16_t *)(q) & 0x7fffu) > 0x7f80u)
#define FNAN_f32(q) ((*(const uint32_t *)(q) & 0x7fffffffu) > 0x7f800000u)
#define FNAN_f64(q) ((*(const uint64_t *)(q) & 0x7fffffffffffffffull) > 0x7ff0000000000000ull)
#define FZERO_f16(q) ((*(const uint16_t *)(q) & 0x7fffu) == 0)
#define FZERO_bf16(q) ((*(const uint16_t *)(q) & 0x7fffu) == 0)
#define FZERO_f32(q) ((*(const uint32_t *)(q) & 0x7fffffffu) == 0)
#define FZERO_f64(q) ((*(const uint64_t *)(q) & 0x7fffffffffffffffull) == 0)
#define FBITS_f16(q) (*(const uint16_t *)(q) == want)
#define FBITS_bf16(q) (*(const uint16_t *)(q) == want)
#define FBITS_f32(q) (*(const uint32_t *)(q) == want)
#define FBITS_f64(q) (*(const uint64_t *)(q) == want)
#define RED_ARG_KERNELS(N, KEY)                                                       \
    static void argmin_##N(const char *p, int64_t n, int64_t st, red_state *s) { arg_##N(p, n, st, s, 0); } \
    static void argmax_##N(const char *p, int64_t n, int64_t st, red_state *s) { arg_##N(p, n, st, s, 1); } \
    static void col_arg_##N(const char *p, int64_t cnt, int64_t so, red_state *s, int mx) { \
        for (int64_t k = 0; k < cnt; k++) {                                           \
            aug__i128 key = KEY(p + k * so, mx);                                      \
            int64_t ix = s[k].base + s[k].n++;                                        \
            if (aug__red_arg_wins(mx, key, ix, s[k].i, s[k].arg)) { s[k].i = key; s[k].arg = ix; } \
        }                                                                             \
    }                                                                                 \
    static void col_argmin_##N(const char *p, int64_t cnt, int64_t so, red_state *s) { col_arg_##N(p, cnt, so, s, 0); } \
    static void col_argmax_##N(const char *p, int64_t cnt, int64_t so, red_state *s) { col_arg_##N(p, cnt, so, s, 1); }

RED_ARG_INT_RUN(b, uint8_t, LD_B)
RED_ARG_INT_RUN(i8, int8_t, LD_I8)
RED_ARG_INT_RUN(u8, uint8_t, LD_U8)
RED_ARG_INT_RUN(i16, int16_t, LD_I16)
RED_ARG_INT_RUN(u16, uint16_t, LD_U16)
RED_ARG_INT_RUN(i32, int32_t, LD_I32)
RED_ARG_INT_RUN(u32, uint32_t, LD_U32)
RED_ARG_INT_RUN(i64, int64_t, LD_I64)
RED_ARG_INT_RUN(u64, uint64_t, LD_U64)
RED_ARG_FLOAT_RUN(f16, uint16_t, int16_t, 0x7fffu, 0x7c00u, LD_F16)
RED_ARG_FLOAT_RUN(bf16, uint16_t, int16_t, 0x7fffu, 0x7f80u, LD_BF16)
RED_ARG_FLOAT_RUN(f32, uint32_t, int32_t, 0x7fffffffu, 0x7f800000u, LD_F32)
RED_ARG_FLOAT_RUN(f64, uint64_t, int64_t, 0x7fffffffffffffffull, 0x7ff0000000000000ull, LD_F64)

#define AK_b(q, mx) ((aug__i128)LD_B(q))
#define AK_i8(q, mx) ((aug__i128)LD_I8(q))
#define AK_u8(q, mx) ((aug__i128)LD_U8(q))
#define AK_i16(q, mx) ((aug__i128)LD_I16(q))
#define AK_u16(q, mx) ((aug__i128)LD_U16(q))
#define AK_i32(q, mx) ((aug__i128)LD_I32(q))
#define AK_u32(q, mx) ((aug__i128)LD_U32(q))
#define AK_i64(q, mx) ((aug__i128)LD_I64(q))
#define AK_u64(q, mx) ((aug__i128)LD_U64(q))
#define AK_f16(q, mx) aug__red_arg_fkey(mx, LD_F16(q))
#define AK_bf16(q, mx) aug__red_arg_fkey(mx, LD_BF16(q))
#define AK_f32(q, mx) aug__red_arg_fkey(mx, LD_F32(q))
#define AK_f64(q, mx) aug__red_arg_fkey(mx, LD_F64(q))
RED_ARG_KERNELS(b, AK_b)
RED_ARG_KERNELS(i8, AK_i8)
RED_ARG_KERNELS(u8, AK_u8)
RED_ARG_KERNELS(i16, AK_i16)
RED_ARG_KERNELS(u16, AK_u16)
RED_ARG_KERNELS(i32, AK_i32)
RED_ARG_KERNELS(u32, AK_u32)
RED_ARG_KERNELS(i64, AK_i64)
RED_ARG_KERNELS(u64, AK_u64)
RED_ARG_KERNELS(f16, AK_f16)
RED_ARG_KERNELS(bf16, AK_bf16)
RED_ARG_KERNELS(f32, AK_f32)
RED_ARG_KERNELS(f64, AK_f64)

typedef void (*col_fn)(const char *p, int64_t cnt, int64_t so, red_state *s);

/* The run kernel (*run) and column kernel (*col) for an op and input dtype. */
static int pick_kernels(aug_reduce_op op, aug_dtype dt, run_fn *run, col_fn *col) {
#define RED_PICK(N)                                                                   \
    switch (op) {                                                                     \
    case AUG_REDUCE_SUM: case AUG_REDUCE_MEAN: *run = sum_##N; *col = col_sum_##N; return 1; \
    case AUG_REDUCE_MIN: *run = min_##N; *col = col_min_##N; return 1;               \
    case AUG_REDUCE_MAX: *run = max_##N; *col = col_max_##N; return 1;               \
    case AUG_REDUCE_ALL: *run = all_##N; *col = col_all_##N; return 1;               \
    case AUG_REDUCE_ANY: *run = any_##N; *col = col_any_##N; return 1;               \
    case AUG_REDUCE_ARGMIN: *run = argmin_##N; *col = col_argmin_##N; return 1;      \
    case AUG_REDUCE_ARGMAX: *run = argmax_##N; *col = col_argmax_##N; return 1;      \
    }                                                                                 \
    return 0
    switch (dt) {
    case AUG_BOOL: RED_PICK(b);
    case AUG_INT8: RED_PICK(i8);
    case AUG_UINT8: RED_PICK(u8);
    case AUG_INT16: RED_PICK(i16);
    case AUG_UINT16: RED_PICK(u16);
    case AUG_INT32: RED_PICK(i32);
    case AUG_UINT32: RED_PICK(u32);
    case AUG_INT64: RED_PICK(i64);
    case AUG_UINT64: RED_PICK(u64);
    case AUG_FLOAT16: RED_PICK(f16);
    case AUG_BFLOAT16: RED_PICK(bf16);
    case AUG_FLOAT32: RED_PICK(f32);
    case AUG_FLOAT64: RED_PICK(f64);
    default: return 0;
    }
#undef RED_PICK
}

/* ---- geometry and driver ------------------------------------------------------ */

/* Outputs handled together: a tile is up to RED_TILE consecutive outputs along the
 * innermost kept dim (their states live on the stack, ~7 KiB). */
#define RED_TILE 32
/* Up to this many reduced elements per output, column order beats one short run
 * per output (per-output overhead dominates). */
#define RED_SHORT 16
/* Chunk partials kept on the stack (24 KiB: a reduction to one value of up to 2^27
 * elements (2^25 for float sums) allocates nothing); more are allocated. */
#define RED_PARTS_LOCAL 512

typedef struct red_ctx {
    aug_reduce_op op;
    int is_float, float_sum;
    aug_dtype in_t;
    int out_t, ieee_out;
    run_fn run;
    col_fn col;
    int column;                           /* walk tiles row by row (see red_tile) */
    const char *in0;
    char *out0;
    int nr;                               /* reduced dims (coalesced, C order; the plan's) */
    int64_t rext[AUG_MAX_DIMS], rst[AUG_MAX_DIMS];
    int no;                               /* kept dims (coalesced; the plan's) */
    int64_t oext[AUG_MAX_DIMS], ost_in[AUG_MAX_DIMS], ost_out[AUG_MAX_DIMS];
    int64_t R, O, nchunks, chunk; /* chunk: reduced elements per chunk */
    int64_t ninner, so_in, so_out;        /* innermost kept dim: extent, byte strides */
    int64_t tile, tiles_per_row, ntiles, tiles_per_task; /* tile: outputs per tile */
    red_partial *parts;
} red_ctx;

/* Reduced position r -> multi-index and byte offset. */
static int64_t red_unravel(const red_ctx *c, int64_t r, int64_t *idx) {
    int64_t off = 0;
    for (int d = c->nr - 1; d >= 0; d--) {
        idx[d] = r % c->rext[d];
        r /= c->rext[d];
        off += idx[d] * c->rst[d];
    }
    return off;
}

/* Advances a reduced multi-index by one step of dim `d` (with carry into outer
 * dims), keeping the byte pointer in step. */
static const char *red_step(const red_ctx *c, int d, int64_t *idx, const char *p) {
    for (; d >= 0; d--) {
        if (++idx[d] < c->rext[d]) return p + c->rst[d];
        p -= (c->rext[d] - 1) * c->rst[d];
        idx[d] = 0;
    }
    return p;
}

/* Visit reduced elements [r0, r1) (C order) of the output element whose first
 * input element is at base, as runs along the innermost reduced dim. */
static void red_range(const red_ctx *c, const char *base, int64_t r0, int64_t r1, red_state *s) {
    if (c->nr == 0) {
        c->run(base, 1, 0, s);
        return;
    }
    int64_t idx[AUG_MAX_DIMS];
    int inner = c->nr - 1;
    const char *p = base + red_unravel(c, r0, idx);
    int64_t left = r1 - r0;
    for (;;) {
        int64_t m = c->rext[inner] - idx[inner];
        if (m > left) m = left;
        c->run(p, m, c->rst[inner], s);
        left -= m;
        if (left == 0) return;
        /* the run ended the row: back to its start, then one step of the next dim */
        p -= idx[inner] * c->rst[inner];
        idx[inner] = 0;
        p = red_step(c, inner - 1, idx, p);
    }
}

/* Reduce [r0, r1) for the cnt outputs whose first input elements are at
 * in + k * so_in. Column order visits one reduced position for all of them before
 * the next (cache-friendly when the outputs are closer in memory than the reduced
 * elements); both orders perform the same operations on each state. */
static void red_tile(const red_ctx *c, const char *in, int64_t cnt, int64_t r0, int64_t r1, red_state *s) {
    if (!c->column || c->nr == 0) {
        for (int64_t k = 0; k < cnt; k++) red_range(c, in + k * c->so_in, r0, r1, &s[k]);
        return;
    }
    int64_t idx[AUG_MAX_DIMS];
    const char *p = in + red_unravel(c, r0, idx);
    for (int64_t r = r0;;) {
        c->col(p, cnt, c->so_in, s);
        if (++r == r1) return;
        p = red_step(c, c->nr - 1, idx, p);
    }
}

/* Pointers of output o (C order over the kept dims). */
static void outer_ptrs(const red_ctx *c, int64_t o, const char **in, char **out) {
    *in = c->in0;
    *out = c->out0;
    for (int d = c->no - 1; d >= 0; d--) {
        int64_t i = o % c->oext[d];
        o /= c->oext[d];
        *in += i * c->ost_in[d];
        *out += i * c->ost_out[d];
    }
}

static void tile_start(const red_ctx *c, int64_t tile, int64_t *o0, int64_t *cnt, const char **in, char **out) {
    int64_t row = tile / c->tiles_per_row, start = (tile % c->tiles_per_row) * c->tile;
    *o0 = row * c->ninner + start;
    *cnt = c->ninner - start < c->tile ? c->ninner - start : c->tile;
    outer_ptrs(c, *o0, in, out);
}

static void red_store(const red_ctx *c, const red_partial *r, char *dst) {
    aug__red_store(c->op, c->is_float, (int)c->in_t, c->out_t, c->ieee_out, r->i, r->f, r->flag, c->R, r->arg, dst);
}

/* One task: with one chunk, whole outputs of tiles_per_task tiles, stored at
 * once; with several, one (tile, chunk) pair whose partials go to c->parts. */
static void red_task(void *ctx, int64_t task, int worker) {
    const red_ctx *c = ctx;
    red_state s[RED_TILE];
    int64_t o0, cnt;
    const char *in;
    char *out;
    if (c->nchunks <= 1) {
        int64_t t1 = (task + 1) * c->tiles_per_task < c->ntiles ? (task + 1) * c->tiles_per_task : c->ntiles;
        for (int64_t tile = task * c->tiles_per_task; tile < t1; tile++) {
            tile_start(c, tile, &o0, &cnt, &in, &out);
            for (int64_t k = 0; k < cnt; k++) state_init(&s[k], c->op, 0);
            if (c->R > 0) red_tile(c, in, cnt, 0, c->R, s);
            for (int64_t k = 0; k < cnt; k++) {
                red_partial r = state_finish(&s[k], c->float_sum);
                red_store(c, &r, out + k * c->so_out);
            }
        }
        return;
    }
    int64_t tile = task / c->nchunks, ch = task % c->nchunks;
    int64_t r0 = ch * c->chunk, r1 = r0 + c->chunk < c->R ? r0 + c->chunk : c->R;
    tile_start(c, tile, &o0, &cnt, &in, &out);
    for (int64_t k = 0; k < cnt; k++) state_init(&s[k], c->op, r0);
    red_tile(c, in, cnt, r0, r1, s);
    for (int64_t k = 0; k < cnt; k++) c->parts[(o0 + k) * c->nchunks + ch] = state_finish(&s[k], c->float_sum);
}

/* Combines the chunk partials of one output element in chunk order (float sums
 * with the same pairwise stack, one level per chunk). */
static red_partial combine(const red_ctx *c, const red_partial *p, int64_t n) {
    red_partial r = p[0];
    double pw[64];
    int8_t level[64];
    int npw = 0;
    pw_push(pw, level, &npw, p[0].f);
    for (int64_t k = 1; k < n; k++) {
        const red_partial *q = &p[k];
        switch (c->op) {
        case AUG_REDUCE_SUM:
        case AUG_REDUCE_MEAN:
            r.i += q->i;
            pw_push(pw, level, &npw, q->f);
            break;
        case AUG_REDUCE_MIN: /* integers, or float keys */
            r.i = q->i < r.i ? q->i : r.i;
            break;
        case AUG_REDUCE_MAX:
            r.i = q->i > r.i ? q->i : r.i;
            break;
        case AUG_REDUCE_ARGMIN:
        case AUG_REDUCE_ARGMAX:
            if (aug__red_arg_wins(c->op == AUG_REDUCE_ARGMAX, q->i, q->arg, r.i, r.arg)) {
                r.i = q->i;
                r.arg = q->arg;
            }
            break;
        default:
            break;
        }
        if (c->op == AUG_REDUCE_ALL) r.flag = r.flag && q->flag;
        else r.flag = r.flag || q->flag;
        r.n += q->n;
    }
    if (c->float_sum) r.f = pw_total(pw, npw);
    return r;
}

/* The plan's geometry (core/plan.c), plus the innermost kept dim. */
static void red_geometry(red_ctx *c, const aug__reduce_plan *plan) {
    c->in0 = plan->in0;
    c->out0 = plan->out0;
    c->nr = plan->nr;
    c->no = plan->no;
    memcpy(c->rext, plan->rext, sizeof c->rext);
    memcpy(c->rst, plan->rst, sizeof c->rst);
    memcpy(c->oext, plan->oext, sizeof c->oext);
    memcpy(c->ost_in, plan->ost_in, sizeof c->ost_in);
    memcpy(c->ost_out, plan->ost_out, sizeof c->ost_out);
    c->R = plan->R;
    c->O = plan->O;
    c->ninner = c->no ? c->oext[c->no - 1] : 1;
    c->so_in = c->no ? c->ost_in[c->no - 1] : 0;
    c->so_out = c->no ? c->ost_out[c->no - 1] : 0;
}

static int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

aug_status aug__cpu_reduce(const aug__reduce_plan *plan) {
    const char *func = plan->func;
    red_ctx c;
    memset(&c, 0, sizeof c);
    c.op = plan->op;
    if (!pick_kernels(plan->op, (aug_dtype)plan->in_dtype, &c.run, &c.col) ||
        !aug_dtype_is_valid((aug_dtype)plan->out_dtype))
        return aug__error(AUG_ERR_VALUE, func, "invalid reduction plan");
    c.is_float = aug_dtype_info((aug_dtype)plan->in_dtype)->kind == AUG_KIND_FLOAT;
    c.float_sum = c.is_float && (c.op == AUG_REDUCE_SUM || c.op == AUG_REDUCE_MEAN);
    c.in_t = (aug_dtype)plan->in_dtype;
    c.out_t = plan->out_dtype;
    c.ieee_out = plan->ieee_out;
    red_geometry(&c, plan);
    if (c.O == 0) return AUG_OK;
    if (c.R == 0 && (c.op == AUG_REDUCE_MIN || c.op == AUG_REDUCE_MAX))
        return aug__error(AUG_ERR_VALUE, func, "zero-size tensor to reduction operation %s which has no identity",
                          c.op == AUG_REDUCE_MIN ? "min" : "max");
    if (c.R == 0 && (c.op == AUG_REDUCE_ARGMIN || c.op == AUG_REDUCE_ARGMAX))
        return aug__error(AUG_ERR_VALUE, func, "attempt to get %s of an empty sequence",
                          c.op == AUG_REDUCE_ARGMIN ? "argmin" : "argmax");
    /* Everything below depends on shapes and strides only, never on the threads. */
    c.column = c.no > 0 && c.nr > 0 && (abs64(c.so_in) < abs64(c.rst[c.nr - 1]) || c.R <= RED_SHORT);
    /* Column order needs a tile of outputs; one output at a time needs none, and
     * single-output tiles give long reductions one task per (output, chunk). */
    c.tile = c.column ? RED_TILE : 1;
    c.tiles_per_row = (c.ninner + c.tile - 1) / c.tile;
    c.ntiles = c.O / c.ninner * c.tiles_per_row;
    /* Exact reductions (integers, bool, and every min/max/all/any/arg) give the same
     * result for any cut: their chunks are RED_ICHUNK long, fewer partials and task
     * hand-outs. Float sums keep RED_CHUNK, the cut their rounding depends on. */
    c.chunk = c.float_sum ? RED_CHUNK : RED_ICHUNK;
    c.nchunks = (c.R + c.chunk - 1) / c.chunk;
    if (c.nchunks <= 1) {
        /* About one chunk of input per task. */
        int64_t per_tile = (c.R > 0 ? c.R : 1) * (c.ninner < c.tile ? c.ninner : c.tile);
        c.tiles_per_task = per_tile < RED_CHUNK ? RED_CHUNK / per_tile : 1;
        aug__parallel_for((c.ntiles + c.tiles_per_task - 1) / c.tiles_per_task, red_task, &c);
        return AUG_OK;
    }
    /* O * nchunks <= size / RED_CHUNK + O, and O <= size / RED_CHUNK here. Up to
     * RED_PARTS_LOCAL partials live on the stack. */
    red_partial local[RED_PARTS_LOCAL];
    c.parts = c.O * c.nchunks <= RED_PARTS_LOCAL ? local : malloc((size_t)(c.O * c.nchunks) * sizeof *c.parts);
    if (!c.parts) return AUG__NOMEM(func);
    aug__parallel_for(c.ntiles * c.nchunks, red_task, &c);
    for (int64_t o = 0; o < c.O; o++) {
        const char *ip;
        char *op;
        outer_ptrs(&c, o, &ip, &op);
        red_partial r = combine(&c, c.parts + o * c.nchunks, c.nchunks);
        red_store(&c, &r, op);
    }
    if (c.parts != local) free(c.parts);
    return AUG_OK;
}
