/* cpu/reduce.c: the CPU reductions (sum, mean, min, max, all, any), SPEC 10.
 *
 * The core (core/reduce.c) has chosen the result dtype and hands over a plan whose
 * `out` has the input's ndim with extent 1 on the reduced axes. Here:
 *  - integers and bool accumulate exactly in __int128 and are saturated once, on
 *    store (core/ctype.h helpers);
 *  - floats (float16/bfloat16 read as float) accumulate in float64: blocks of
 *    RED_BLOCK elements are summed in 8 interleaved lanes, block sums are combined
 *    pairwise by a binary-counter stack, so the error grows O(log n);
 *  - min/max propagate NaN; all/any test x != 0 (NaN is true).
 * Determinism: the reduced range of every output element is cut into chunks of
 * RED_CHUNK elements counted from its start, independent of the thread count.
 * Each chunk gives a partial; partials are combined in chunk order with the same
 * pairwise stack. Threads only decide who computes which chunk, never the order
 * of any floating-point addition, so results are bit-identical for any number of
 * threads. The reduced sub-space is visited in C order of the input's reduced dims. */
#include <stdlib.h>
#include <math.h>
#include "core/backend.h"
#include "core/ctype.h"
#include "core/pool.h"
#include "cpu/cpu.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Elements per chunk: large enough to amortise a task (~64 KiB of uint8), small
 * enough that a 2-core or 64-core pool has work for every thread on a few MiB.
 * Also bounds every run a kernel sees, so 8..32-bit sums fit in int64/uint32. */
#define RED_CHUNK ((int64_t)1 << 16)
/* Float block: 16 rows of 8 lanes, summed in order (RED_CHUNK is a multiple). */
#define RED_BLOCK 128
#define RED_LANES 8

/* Contiguous 8-bit sums, exposed (hidden) so the tests can check the SSE2 path
 * against the portable one. dt is AUG_BOOL (counts non-zero bytes), AUG_INT8 or
 * AUG_UINT8; portable != 0 forces the plain loop. */
AUG__HIDDEN int64_t aug__cpu_sum8(const void *p, int64_t n, aug_dtype dt, int portable);

/* ---- pairwise stack ----------------------------------------------------------- */

typedef struct pw_stack {
    double v[64];
    int level[64];
    int n;
} pw_stack;

/* Push one value at level 0; equal levels merge (a binary counter), so every sum
 * is a balanced tree over the pushed values. */
static void pw_push(pw_stack *s, double x) {
    int level = 0;
    while (s->n > 0 && s->level[s->n - 1] == level) {
        x = s->v[--s->n] + x;
        level++;
    }
    s->v[s->n] = x;
    s->level[s->n++] = level;
}

/* Total of the stack (0.0 when empty), folded from the smallest entry down. */
static double pw_total(const pw_stack *s) {
    if (s->n == 0) return 0.0;
    double t = s->v[s->n - 1];
    for (int i = s->n - 2; i >= 0; i--) t = s->v[i] + t;
    return t;
}

/* ---- accumulator state ------------------------------------------------------ */

typedef struct red_state {
    aug__i128 i;              /* integer sum, or integer min/max */
    double f;                 /* float min/max */
    int64_t n;                /* elements seen */
    int flag;                 /* all/any; float min/max: a NaN was seen */
    int cnt;                  /* float sum: elements in the current block */
    double lane[RED_LANES];   /* float sum: lanes of the current block */
    pw_stack pw;              /* float sum: finished blocks */
} red_state;

typedef struct red_partial {
    aug__i128 i;
    double f;
    int64_t n;
    int flag;
} red_partial;

/* -0.0 is the identity of IEEE addition (0.0 would turn a sum of -0.0 into 0.0). */
static void lanes_reset(double *lane) {
    for (int k = 0; k < RED_LANES; k++) lane[k] = -0.0;
}

static double lanes_fold(const double *l) {
    return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
}

static void state_init(red_state *s, aug_reduce_op op) {
    s->i = 0;
    s->f = 0.0;
    s->n = 0;
    s->flag = op == AUG_REDUCE_ALL;
    s->cnt = 0;
    s->pw.n = 0;
    lanes_reset(s->lane);
}

static red_partial state_finish(red_state *s, int float_sum) {
    red_partial r = {s->i, s->f, s->n, s->flag};
    if (float_sum) {
        if (s->cnt > 0) pw_push(&s->pw, lanes_fold(s->lane));
        r.f = s->n ? pw_total(&s->pw) : 0.0;
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

int64_t aug__cpu_sum8(const void *p, int64_t n, aug_dtype dt, int portable) {
#ifdef __SSE2__
    if (!portable) return sum8_sse2((const uint8_t *)p, n, dt);
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

/* Integer kernels. ACC is wide enough for a run of RED_CHUNK elements (int64 for
 * 8..32-bit types, __int128 for 64-bit); 8-bit contiguous runs use aug__cpu_sum8. */
#define RED_INT_KERNELS(N, T, ACC, LD, SUM8)                                          \
    static void sum_##N(const char *p, int64_t n, int64_t st, red_state *s) {        \
        ACC a = 0;                                                                    \
        if (st == (int64_t)sizeof(T)) {                                               \
            if (SUM8 != AUG_NUM_DTYPES) a = (ACC)aug__cpu_sum8(p, n, (aug_dtype)SUM8, 0); \
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
                pw_push(&s->pw, lanes_fold(l));                                       \
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
                pw_push(&s->pw, lanes_fold(s->lane));                                 \
                lanes_reset(s->lane);                                                 \
                s->cnt = 0;                                                           \
            }                                                                         \
        }                                                                             \
    }                                                                                 \
    static void min_##N(const char *p, int64_t n, int64_t st, red_state *s) {        \
        double m = s->n ? s->f : LD(p);                                               \
        int nan = s->flag;                                                            \
        for (int64_t i = 0; i < n; i++) {                                             \
            double x = LD(p + i * st);                                                \
            m = x < m ? x : m;                                                        \
            nan |= x != x;                                                            \
        }                                                                             \
        s->f = m;                                                                     \
        s->flag = nan;                                                                \
        s->n += n;                                                                    \
    }                                                                                 \
    static void max_##N(const char *p, int64_t n, int64_t st, red_state *s) {        \
        double m = s->n ? s->f : LD(p);                                               \
        int nan = s->flag;                                                            \
        for (int64_t i = 0; i < n; i++) {                                             \
            double x = LD(p + i * st);                                                \
            m = x > m ? x : m;                                                        \
            nan |= x != x;                                                            \
        }                                                                             \
        s->f = m;                                                                     \
        s->flag = nan;                                                                \
        s->n += n;                                                                    \
    }                                                                                 \
    static void all_##N(const char *p, int64_t n, int64_t st, red_state *s) {        \
        s->n += n;                                                                    \
        if (!s->flag) return;                                                         \
        for (int64_t i = 0; i < n; i++)                                               \
            if (LD(p + i * st) == 0.0) { s->flag = 0; return; }                       \
    }                                                                                 \
    static void any_##N(const char *p, int64_t n, int64_t st, red_state *s) {        \
        s->n += n;                                                                    \
        if (s->flag) return;                                                          \
        for (int64_t i = 0; i < n; i++)                                               \
            if (LD(p + i * st) != 0.0) { s->flag = 1; return; }                       \
    }

RED_FLOAT_KERNELS(f16, uint16_t, LD_F16)
RED_FLOAT_KERNELS(bf16, uint16_t, LD_BF16)
RED_FLOAT_KERNELS(f32, float, LD_F32)
RED_FLOAT_KERNELS(f64, double, LD_F64)

static run_fn pick_run(aug_reduce_op op, aug_dtype dt) {
#define RED_PICK(N)                                                                   \
    switch (op) {                                                                     \
    case AUG_REDUCE_SUM: case AUG_REDUCE_MEAN: return sum_##N;                        \
    case AUG_REDUCE_MIN: return min_##N;                                              \
    case AUG_REDUCE_MAX: return max_##N;                                              \
    case AUG_REDUCE_ALL: return all_##N;                                              \
    case AUG_REDUCE_ANY: return any_##N;                                              \
    }                                                                                 \
    return NULL
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
    default: return NULL;
    }
#undef RED_PICK
}

/* ---- geometry and driver ------------------------------------------------------ */

typedef struct red_ctx {
    aug_reduce_op op;
    int is_float;
    int out_t;
    run_fn run;
    const char *in0;
    char *out0;
    int nr;                               /* reduced dims (coalesced, C order) */
    int64_t rext[AUG_MAX_DIMS], rst[AUG_MAX_DIMS];
    int no;                               /* kept dims (coalesced) */
    int64_t oext[AUG_MAX_DIMS], ost_in[AUG_MAX_DIMS], ost_out[AUG_MAX_DIMS];
    int64_t R, O, nchunks, group;
    red_partial *parts;
} red_ctx;

/* Visit reduced elements [r0, r1) (C order) of the output element whose first
 * input element is at base. r1 - r0 <= RED_CHUNK. */
static void red_range(const red_ctx *c, const char *base, int64_t r0, int64_t r1, red_state *s) {
    if (c->nr == 0) {
        c->run(base, 1, 0, s);
        return;
    }
    int64_t idx[AUG_MAX_DIMS];
    int inner = c->nr - 1;
    int64_t rem = r0;
    for (int d = inner; d >= 0; d--) {
        idx[d] = rem % c->rext[d];
        rem /= c->rext[d];
    }
    int64_t left = r1 - r0;
    while (left > 0) {
        const char *p = base;
        for (int d = 0; d < c->nr; d++) p += idx[d] * c->rst[d];
        int64_t m = c->rext[inner] - idx[inner];
        if (m > left) m = left;
        c->run(p, m, c->rst[inner], s);
        left -= m;
        idx[inner] += m;
        for (int d = inner; d > 0 && idx[d] == c->rext[d]; d--) {
            idx[d] = 0;
            idx[d - 1]++;
        }
    }
}

/* Walks the kept (outer) dims in C order, tracking input and output pointers. */
typedef struct outer_it {
    int64_t idx[AUG_MAX_DIMS];
    const char *in;
    char *out;
} outer_it;

static void outer_start(const red_ctx *c, int64_t o, outer_it *it) {
    it->in = c->in0;
    it->out = c->out0;
    for (int d = c->no - 1; d >= 0; d--) {
        it->idx[d] = o % c->oext[d];
        o /= c->oext[d];
        it->in += it->idx[d] * c->ost_in[d];
        it->out += it->idx[d] * c->ost_out[d];
    }
}

static void outer_next(const red_ctx *c, outer_it *it) {
    for (int d = c->no - 1; d >= 0; d--) {
        it->in += c->ost_in[d];
        it->out += c->ost_out[d];
        if (++it->idx[d] < c->oext[d]) return;
        it->in -= c->oext[d] * c->ost_in[d];
        it->out -= c->oext[d] * c->ost_out[d];
        it->idx[d] = 0;
    }
}

static void red_store(const red_ctx *c, const red_partial *r, char *dst) {
    switch (c->op) {
    case AUG_REDUCE_SUM:
        if (c->is_float) aug__store_f64(r->f, c->out_t, dst);
        else aug__store_i128(r->i, c->out_t, dst);
        break;
    case AUG_REDUCE_MEAN:
        if (c->R == 0) aug__store_f64(NAN, c->out_t, dst);
        else aug__store_f64((c->is_float ? r->f : (double)r->i) / (double)c->R, c->out_t, dst);
        break;
    case AUG_REDUCE_MIN:
    case AUG_REDUCE_MAX:
        if (c->is_float) aug__store_f64(r->flag ? NAN : r->f, c->out_t, dst);
        else aug__store_i128(r->i, c->out_t, dst);
        break;
    case AUG_REDUCE_ALL:
    case AUG_REDUCE_ANY:
        aug__store_i128(r->flag != 0, c->out_t, dst);
        break;
    }
}

/* Small reductions (R <= RED_CHUNK): a task reduces `group` whole output elements. */
static void task_outer(void *ctx, int64_t task, int worker) {
    const red_ctx *c = ctx;
    int64_t o0 = task * c->group, o1 = o0 + c->group < c->O ? o0 + c->group : c->O;
    int float_sum = c->is_float && (c->op == AUG_REDUCE_SUM || c->op == AUG_REDUCE_MEAN);
    outer_it it;
    red_state s;
    outer_start(c, o0, &it);
    for (int64_t o = o0; o < o1; o++) {
        state_init(&s, c->op);
        if (c->R > 0) red_range(c, it.in, 0, c->R, &s);
        red_partial r = state_finish(&s, float_sum);
        red_store(c, &r, it.out);
        outer_next(c, &it);
    }
}

/* Large reductions: task = (output element, chunk); partials combined afterwards. */
static void task_chunk(void *ctx, int64_t task, int worker) {
    const red_ctx *c = ctx;
    int64_t o = task / c->nchunks, ch = task % c->nchunks;
    int64_t r0 = ch * RED_CHUNK, r1 = r0 + RED_CHUNK < c->R ? r0 + RED_CHUNK : c->R;
    outer_it it;
    red_state s;
    outer_start(c, o, &it);
    state_init(&s, c->op);
    red_range(c, it.in, r0, r1, &s);
    c->parts[task] = state_finish(&s, c->is_float && (c->op == AUG_REDUCE_SUM || c->op == AUG_REDUCE_MEAN));
}

/* Combines the chunk partials of one output element in chunk order. */
static red_partial combine(const red_ctx *c, const red_partial *p, int64_t n) {
    red_partial r = p[0];
    pw_stack pw;
    pw.n = 0;
    pw_push(&pw, p[0].f);
    for (int64_t k = 1; k < n; k++) {
        const red_partial *q = &p[k];
        switch (c->op) {
        case AUG_REDUCE_SUM:
        case AUG_REDUCE_MEAN:
            r.i += q->i;
            pw_push(&pw, q->f);
            break;
        case AUG_REDUCE_MIN:
            if (c->is_float) r.f = q->f < r.f ? q->f : r.f;
            else r.i = q->i < r.i ? q->i : r.i;
            break;
        case AUG_REDUCE_MAX:
            if (c->is_float) r.f = q->f > r.f ? q->f : r.f;
            else r.i = q->i > r.i ? q->i : r.i;
            break;
        default:
            break;
        }
        if (c->op == AUG_REDUCE_ALL) r.flag = r.flag && q->flag;
        else r.flag = r.flag || q->flag;
        r.n += q->n;
    }
    if (c->op == AUG_REDUCE_SUM || c->op == AUG_REDUCE_MEAN) r.f = pw_total(&pw);
    return r;
}

/* Splits the input's dims into reduced and kept lists, drops extent-1 dims and
 * merges neighbours whose strides chain (C order is preserved). */
static void red_geometry(red_ctx *c, const aug__reduce_plan *plan) {
    const aug_tensor *in = plan->in, *out = plan->out;
    int64_t isz = aug__ctype_size(in->dtype), osz = aug__ctype_size(out->dtype);
    c->nr = c->no = 0;
    c->R = c->O = 1;
    for (int d = 0; d < in->ndim; d++) {
        int64_t e = in->shape[d];
        if (plan->axis_mask & (1u << d)) {
            c->R *= e;
            if (e == 1) continue;
            int64_t st = in->strides[d] * isz;
            if (c->nr > 0 && c->rst[c->nr - 1] == st * e) {
                c->rext[c->nr - 1] *= e;
                c->rst[c->nr - 1] = st;
            } else {
                c->rext[c->nr] = e;
                c->rst[c->nr++] = st;
            }
        } else {
            c->O *= e;
            if (e == 1) continue;
            int64_t si = in->strides[d] * isz, so = out->strides[d] * osz;
            int k = c->no - 1;
            if (k >= 0 && c->ost_in[k] == si * e && c->ost_out[k] == so * e) {
                c->oext[k] *= e;
                c->ost_in[k] = si;
                c->ost_out[k] = so;
            } else {
                c->oext[c->no] = e;
                c->ost_in[c->no] = si;
                c->ost_out[c->no++] = so;
            }
        }
    }
}

aug_status aug__cpu_reduce(const aug__reduce_plan *plan) {
    const char *func = plan->func;
    const aug_tensor *in = plan->in;
    red_ctx c;
    c.op = plan->op;
    c.is_float = aug_dtype_is_valid(in->dtype) && aug_dtype_info(in->dtype)->kind == AUG_KIND_FLOAT;
    c.out_t = (int)plan->out->dtype;
    c.run = pick_run(plan->op, in->dtype);
    if (!c.run || !aug_dtype_is_valid(plan->out->dtype) || plan->out->ndim != in->ndim)
        return aug__error(AUG_ERR_VALUE, func, "invalid reduction plan");
    c.in0 = (const char *)in->data + in->byte_offset;
    c.out0 = plan->out->data + plan->out->byte_offset;
    c.parts = NULL;
    red_geometry(&c, plan);
    if (c.O == 0) return AUG_OK;
    if (c.R == 0 && (c.op == AUG_REDUCE_MIN || c.op == AUG_REDUCE_MAX))
        return aug__error(AUG_ERR_VALUE, func, "zero-size tensor to reduction operation %s which has no identity",
                          c.op == AUG_REDUCE_MIN ? "min" : "max");
    c.nchunks = (c.R + RED_CHUNK - 1) / RED_CHUNK;
    if (c.nchunks <= 1) {
        /* Enough output elements per task to cover about one chunk of input. */
        c.group = c.R > 0 ? RED_CHUNK / c.R : RED_CHUNK;
        if (c.group < 1) c.group = 1;
        aug__parallel_for((c.O + c.group - 1) / c.group, task_outer, &c);
        return AUG_OK;
    }
    /* O * nchunks <= size / RED_CHUNK + O, and O <= size / RED_CHUNK here. */
    int64_t ntasks = c.O * c.nchunks;
    c.parts = malloc((size_t)ntasks * sizeof *c.parts);
    if (!c.parts) return AUG__NOMEM(func);
    aug__parallel_for(ntasks, task_chunk, &c);
    outer_it it;
    outer_start(&c, 0, &it);
    for (int64_t o = 0; o < c.O; o++) {
        red_partial r = combine(&c, c.parts + o * c.nchunks, c.nchunks);
        red_store(&c, &r, it.out);
        outer_next(&c, &it);
    }
    free(c.parts);
    return AUG_OK;
}
