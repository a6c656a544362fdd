/* cpu/random.c: the CPU random fills (semantics §11), uniform and gaussian for all
 * 13 dtypes and any strides. The mapping from Philox blocks to values is
 * scalar/random.h's (shared with the CUDA backend, documented in
 * include/aug/random.h); this file only schedules it.
 *
 * The target's elements, in C order, are cut into fixed tasks of TASK elements
 * (independent of the thread count) and each task into blocks of BLOCK: for a
 * block the Philox words of its counters are made in one vectorised run
 * (random_philox.c), turned into values of the target dtype in a loop the
 * compiler vectorises (compiled once for the baseline and once each for AVX2 and
 * AVX-512, which give identical results: integer operations and IEEE float
 * operations without contraction), and stored, directly for contiguous runs or
 * through a small buffer for strided ones. Element i's value depends only on
 * (seed, call, i), so any split gives the same bytes. */
#include <string.h>
#include "cpu.h"
#include "cpu/pool.h"
#include "cpu/random.h"
#include "cpu/simd.h"

/* Elements per task: large enough to amortise the scheduling, small enough to
 * balance 16+ workers on a few MiB. */
#define TASK ((int64_t)1 << 15)
/* Elements per Philox run: the four word arrays and the value buffer (about
 * 12 KiB) stay in L1. */
#define BLOCK 512

int aug__random_level = -1;

/* ---- block transforms --------------------------------------------------------------------- */

typedef struct words {
    const uint32_t *x0, *x1, *x2, *x3;
} words;

#define LOOP(T, expr)                                          \
    do {                                                       \
        T *o_ = (T *)out;                                      \
        for (int64_t j = 0; j < m; j++) o_[j] = (T)(expr);     \
    } while (0)

/* The value loops call scalar/random.h's per-element rules; the parameters are
 * copied to a local first, so the compiler knows the stores cannot change them
 * and vectorises the loops. */
static inline __attribute__((always_inline)) void uniform_block(const aug__rand_params *pp, int64_t m, words w,
                                                                void *out) {
    const aug__rand_params par = *pp, *p = &par;
    const uint32_t *x0 = w.x0, *x1 = w.x1, *x2 = w.x2, *x3 = w.x3;
    switch (p->dtype) {
    case AUG_FLOAT64: LOOP(double, aug__uniform_f(p, x0[j], x1[j])); break;
    case AUG_FLOAT32: LOOP(float, aug__uniform_f32(p, x0[j], x1[j])); break;
    case AUG_FLOAT16: LOOP(uint16_t, aug__uniform_f16(p, x0[j], x1[j])); break;
    case AUG_BFLOAT16: LOOP(uint16_t, aug__uniform_bf16(p, x0[j], x1[j])); break;
    case AUG_BOOL: case AUG_UINT8: LOOP(uint8_t, aug__uniform_narrow(p, x0[j], x1[j])); break;
    case AUG_INT8: LOOP(int8_t, aug__uniform_narrow(p, x0[j], x1[j])); break;
    case AUG_INT16: LOOP(int16_t, aug__uniform_narrow(p, x0[j], x1[j])); break;
    case AUG_UINT16: LOOP(uint16_t, aug__uniform_narrow(p, x0[j], x1[j])); break;
    case AUG_INT32: LOOP(int32_t, aug__uniform_narrow(p, x0[j], x1[j])); break;
    case AUG_UINT32: LOOP(uint32_t, aug__uniform_narrow(p, x0[j], x1[j])); break;
    case AUG_INT64: case AUG_UINT64: LOOP(uint64_t, aug__uniform_wide(p, x0[j], x1[j], x2[j], x3[j])); break;
    default: break;
    }
}

static inline __attribute__((always_inline)) void gaussian_block(const aug__rand_params *pp, int64_t m, words w,
                                                                 void *out) {
    const aug__rand_params par = *pp, *p = &par;
    const uint32_t *x0 = w.x0, *x1 = w.x1, *x2 = w.x2, *x3 = w.x3;
    switch (p->dtype) {
    case AUG_FLOAT32: LOOP(float, aug__gauss_to_f32(p, aug__normal_f32(x0[j], x2[j]))); break;
    case AUG_FLOAT16: LOOP(uint16_t, aug__f32_to_f16(aug__gauss_to_f32(p, aug__normal_f32(x0[j], x2[j])))); break;
    case AUG_BFLOAT16: LOOP(uint16_t, aug__f32_to_bf16(aug__gauss_to_f32(p, aug__normal_f32(x0[j], x2[j])))); break;
#define SMALL_(N) LOOP(AUG__CT_T(N), aug__rne_sat(aug__gauss_small(p, x0[j], x2[j]), AUG__CT_FMIN(N), AUG__CT_FMAX(N)))
    case AUG_INT8: SMALL_(INT8); break;
    case AUG_UINT8: SMALL_(UINT8); break;
    case AUG_INT16: SMALL_(INT16); break;
    case AUG_UINT16: SMALL_(UINT16); break;
#undef SMALL_
    case AUG_BOOL: LOOP(uint8_t, aug__rne_f64(aug__gauss_small(p, x0[j], x2[j])) != 0.0); break;
    default: {
        /* float64 and the 32/64-bit integers: double precision with libm */
        char *o = (char *)out;
        const int64_t size = aug__ctype_size(p->dtype);
        for (int64_t j = 0; j < m; j++) {
            double v = p->mean + p->std * aug__normal_f64(aug__draw64(x0[j], x1[j]), aug__draw64(x2[j], x3[j]));
            aug__store_f64(v, p->dtype, o + j * size);
        }
        break;
    }
    }
}
#undef LOOP

static inline __attribute__((always_inline)) void transform(const aug__rand_params *p, int64_t m, words w,
                                                            void *out) {
    if (p->kind == AUG__RANDOM_UNIFORM)
        uniform_block(p, m, w, out);
    else
        gaussian_block(p, m, w, out);
}

static void transform_base(const aug__rand_params *p, int64_t m, words w, void *out) { transform(p, m, w, out); }
#if AUG__X86
__attribute__((target("avx2"))) static void transform_avx2(const aug__rand_params *p, int64_t m, words w,
                                                          void *out) {
    transform(p, m, w, out);
}
__attribute__((target("avx512f,avx512dq,avx512vl,avx512bw"))) static void
transform_avx512(const aug__rand_params *p, int64_t m, words w, void *out) {
    transform(p, m, w, out);
}
#endif

/* ---- scheduling ------------------------------------------------------------------------- */

typedef struct fill_ctx {
    const aug__random_plan *plan;  /* geometry: base, nd, shape, bstride (C order) */
    int level;                     /* resolved vector level */
    int64_t itemsize;
} fill_ctx;

/* Elements i0 ... i0 + n - 1 stored at dst + k * bstride. */
static void fill_run(const fill_ctx *c, int64_t i0, int64_t n, char *dst, int64_t bstride) {
    const aug__rand_params *p = &c->plan->p;
    _Alignas(64) uint32_t x0[BLOCK], x1[BLOCK], x2[BLOCK], x3[BLOCK];
    _Alignas(64) char tmp[BLOCK * 8];
    const words w = {x0, x1, x2, x3};
    int64_t isz = c->itemsize;
    for (int64_t off = 0; off < n; off += BLOCK) {
        int64_t m = n - off < BLOCK ? n - off : BLOCK;
        aug__philox_run(c->level, p->key, p->call, (uint64_t)(i0 + off), m, x0, x1, x2, x3);
        char *d = dst + off * bstride;
        /* directly into a contiguous run whose address is aligned (a view may start at any byte) */
        void *out = bstride == isz && (uintptr_t)d % (uintptr_t)isz == 0 ? (void *)d : (void *)tmp;
#if AUG__X86
        if (c->level >= AUG__SIMD_AVX512)
            transform_avx512(p, m, w, out);
        else if (c->level >= AUG__SIMD_AVX2)
            transform_avx2(p, m, w, out);
        else
#endif
            transform_base(p, m, w, out);
        if (out == tmp) {
            for (int64_t j = 0; j < m; j++) memcpy(d + j * bstride, tmp + j * isz, (size_t)isz);
        }
    }
}

static void fill_task(void *ctx, int64_t task, int worker) {
    (void)worker;
    const fill_ctx *c = ctx;
    const aug__random_plan *g = c->plan;
    int64_t s = task * TASK, e = s + TASK < g->n ? s + TASK : g->n;
    int last = g->nd - 1;
    /* unravel s into an index and a byte offset */
    int64_t idx[AUG_MAX_DIMS], rem = s, off = 0;
    for (int d = last; d >= 0; d--) {
        idx[d] = rem % g->shape[d];
        rem /= g->shape[d];
        off += idx[d] * g->bstride[d];
    }
    for (int64_t i = s; i < e;) {
        int64_t len = g->shape[last] - idx[last];
        if (len > e - i) len = e - i;
        fill_run(c, i, len, g->base + off, g->bstride[last]);
        i += len;
        off += len * g->bstride[last];
        idx[last] += len;
        for (int d = last; d > 0 && idx[d] == g->shape[d]; d--) { /* carry */
            off -= idx[d] * g->bstride[d];
            idx[d] = 0;
            idx[d - 1]++;
            off += g->bstride[d - 1];
        }
    }
}

/* The vector path of a fill: the requested one (tests), capped at what the CPU
 * has, or the default level (cpu/simd.h) when want < 0. */
static int resolve_level(int want) {
    int cpu = aug__simd_cpu_level();
    return want < 0 ? aug__simd_level() : want < cpu ? want : cpu;
}

aug_status aug__cpu_random(const aug__random_plan *plan) {
    fill_ctx c;
    c.plan = plan;
    c.itemsize = aug__ctype_size(plan->p.dtype);
    c.level = resolve_level(aug__random_level);
    int64_t ntasks = (plan->n + TASK - 1) / TASK;
    if (plan->aliased) { /* aliased elements: the last in C order must win */
        for (int64_t k = 0; k < ntasks; k++) fill_task(&c, k, 0);
    } else {
        aug__parallel_for(ntasks, fill_task, &c);
    }
    return AUG_OK;
}
