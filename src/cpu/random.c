/* cpu/random.c: the CPU random fills (SPEC 11), uniform and gaussian for all 13
 * dtypes and any strides. The mapping from Philox blocks to values is the one
 * documented in include/aug/random.h; this file only schedules it.
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
#include <float.h>
#include <math.h>
#include <string.h>
#include "cpu.h"
#include "core/ctype.h"
#include "core/error.h"
#include "core/pool.h"
#include "core/random.h"
#include "core/simd.h"

/* Elements per task: large enough to amortise the scheduling, small enough to
 * balance 16+ workers on a few MiB. */
#define TASK ((int64_t)1 << 15)
/* Elements per Philox run: the four word arrays and the value buffer (about
 * 12 KiB) stay in L1. */
#define BLOCK 512

/* Vector level of the kernels: -1 = best available; tests set 0, 2 or 3 to
 * compare the paths (AUG__SIMD_NONE, AUG__SIMD_AVX2, AUG__SIMD_AVX512). */
AUG__HIDDEN int aug__random_level = -1;

/* ---- float32 Box-Muller pieces ------------------------------------------------------------ */

static inline float f32_of(uint32_t w) { float f; memcpy(&f, &w, sizeof f); return f; }
static inline uint32_t bits_of(float f) { uint32_t w; memcpy(&w, &f, sizeof w); return w; }
static inline double f64_of(uint64_t w) { double f; memcpy(&f, &w, sizeof f); return f; }

/* ln(x) for positive normal x: x = 2^e * m with m in [sqrt(1/2), sqrt(2)) (the
 * bit pattern of sqrt(1/2), 0x3f3504f3, splits the exponent from the mantissa),
 * ln(m) = 2 atanh(s) with s = (m - 1) / (m + 1), |s| <= 0.1716, whose series to
 * s^9 leaves an error below 1e-9. Branch-free so loops vectorise. */
static inline __attribute__((always_inline)) float logf_inl(float x) {
    uint32_t t = bits_of(x) - 0x3f3504f3u;
    float e = (float)((int32_t)t >> 23);
    float m = f32_of((t & 0x007fffffu) + 0x3f3504f3u);
    float f = m - 1.0f;
    float s = f / (2.0f + f), s2 = s * s;
    float p = s2 * (0.6666666667f + s2 * (0.4f + s2 * (0.2857142857f + s2 * 0.2222222222f)));
    return e * 0.69314718056f + (2.0f * s + s * p);
}

/* cos(2 pi u) for u in [0, 1): with t = u or u - 1 in [-1/2, 1/2] (exact),
 * cos(2 pi t) = sin(2 pi (1/4 - |t|)) and 1/4 - |t| in [-1/4, 1/4] is exact, so
 * only sin on [-pi/2, pi/2] is needed: Taylor to x^13 (next term below 7e-10). */
static inline __attribute__((always_inline)) float cos2pif_inl(float u) {
    float t = u > 0.5f ? u - 1.0f : u;
    float x = (0.25f - fabsf(t)) * 6.28318530718f, x2 = x * x;
    float p = -1.6666666667e-1f +
              x2 * (8.3333333333e-3f +
                    x2 * (-1.9841269841e-4f + x2 * (2.7557319224e-6f + x2 * (-2.5052108385e-8f + x2 * 1.6059043837e-10f))));
    return x + x * (x2 * p);
}

float aug__rng_logf(float x) { return logf_inl(x); }
float aug__rng_cos2pif(float u) { return cos2pif_inl(u); }

/* A standard normal value in float32 from the words x0, x2 of one block. */
static inline __attribute__((always_inline)) float normal_f32(uint32_t x0, uint32_t x2) {
    float u1 = (float)(int32_t)(x0 >> 1) * 0x1p-31f + 0x1p-32f; /* (0, 1] */
    float u2 = (float)(int32_t)(x2 >> 8) * 0x1p-24f;            /* [0, 1) */
    return sqrtf(-2.0f * logf_inl(u1)) * cos2pif_inl(u2);
}

/* A standard normal value in double (libm) from the two 64-bit draws. */
static inline double normal_f64(uint64_t a, uint64_t b) {
    double u1 = (double)((a >> 11) + 1) * 0x1p-53; /* (0, 1] */
    double u2 = (double)(b >> 11) * 0x1p-53;       /* [0, 1) */
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

static inline uint64_t draw64(uint32_t lo, uint32_t hi) { return (uint64_t)lo | (uint64_t)hi << 32; }

/* ---- block transforms --------------------------------------------------------------------- */

typedef struct words {
    const uint32_t *x0, *x1, *x2, *x3;
} words;

/* Uniform in [0, 1) with 52 bits, exactly as random.h says. */
static inline __attribute__((always_inline)) double unit52(uint32_t lo, uint32_t hi) {
    return f64_of(0x3ff0000000000000u | draw64(lo, hi) >> 12) - 1.0;
}

static inline __attribute__((always_inline)) double uniform_f(const aug__random_plan *p, uint32_t lo,
                                                              uint32_t hi) {
    double v = p->m * (p->o + unit52(lo, hi) * p->d);
    v = v < p->flo ? p->flo : v;
    return v > p->fhi ? p->fhi : v;
}

/* v rounded toward -inf to float32 (v is within the finite float range). Round to
 * nearest would give the lowest value of a range half its share and the highest
 * one and a half; rounding down gives every value x the share of [x, next(x)). */
static inline __attribute__((always_inline)) float floor_f32(double v) {
    float f = (float)v;
    uint32_t b = bits_of(f);
    uint32_t down = f > 0.0f ? b - 1u : (f == 0.0f ? 0x80000001u : b + 1u);
    return (double)f > v ? f32_of(down) : f;
}

/* The 16-bit float below h when h's value exceeds f (the same rounding down). */
static inline __attribute__((always_inline)) uint16_t floor16(uint16_t h, float hv, float f) {
    uint16_t down = (h & 0x7fffu) == 0 ? (uint16_t)0x8001u : (h & 0x8000u) ? (uint16_t)(h + 1u) : (uint16_t)(h - 1u);
    return hv > f ? down : h;
}

static inline __attribute__((always_inline)) uint16_t uniform_f16(const aug__random_plan *p, uint32_t lo,
                                                                  uint32_t hi) {
    float f = floor_f32(uniform_f(p, lo, hi));
    uint16_t h = aug__f32_to_f16(f);
    return floor16(h, aug__f16_to_f32(h), f);
}

static inline __attribute__((always_inline)) uint16_t uniform_bf16(const aug__random_plan *p, uint32_t lo,
                                                                   uint32_t hi) {
    float f = floor_f32(uniform_f(p, lo, hi));
    uint16_t h = aug__f32_to_bf16(f);
    return floor16(h, aug__bf16_to_f32(h), f);
}

/* Gaussian value in double, saturated to +-FLT_MAX for the float32-based stores. */
static inline __attribute__((always_inline)) float gauss_to_f32(const aug__random_plan *p, float z) {
    double v = p->mean + p->std * (double)z;
    v = v < -FLT_MAX ? -FLT_MAX : v;
    return (float)(v > FLT_MAX ? FLT_MAX : v);
}

/* Round half to even and saturate into [lo, hi] (8/16-bit integer targets). */
static inline __attribute__((always_inline)) int32_t rne_sat(double v, double lo, double hi) {
    double r = aug__rne_f64(v);
    r = r < lo ? lo : r;
    return (int32_t)(r > hi ? hi : r);
}

#define LOOP(T, expr)                                          \
    do {                                                       \
        T *o_ = (T *)out;                                      \
        for (int64_t j = 0; j < m; j++) o_[j] = (T)(expr);     \
    } while (0)

static inline __attribute__((always_inline)) void uniform_block(const aug__random_plan *p, int64_t m, words w,
                                                                void *out) {
    const uint32_t *x0 = w.x0, *x1 = w.x1, *x2 = w.x2, *x3 = w.x3;
    const uint64_t cnt = p->count_m1 + 1; /* <= 2^32 for the narrow types */
    const uint64_t lo = (uint64_t)p->ilo;
    switch (p->target->dtype) {
    case AUG_FLOAT64: LOOP(double, uniform_f(p, x0[j], x1[j])); break;
    case AUG_FLOAT32: LOOP(float, floor_f32(uniform_f(p, x0[j], x1[j]))); break;
    case AUG_FLOAT16: LOOP(uint16_t, uniform_f16(p, x0[j], x1[j])); break;
    case AUG_BFLOAT16: LOOP(uint16_t, uniform_bf16(p, x0[j], x1[j])); break;
#define NARROW_(T) LOOP(T, lo + (uint64_t)(((aug__u128)draw64(x0[j], x1[j]) * cnt) >> 64))
    case AUG_BOOL: case AUG_UINT8: NARROW_(uint8_t); break;
    case AUG_INT8: NARROW_(int8_t); break;
    case AUG_INT16: NARROW_(int16_t); break;
    case AUG_UINT16: NARROW_(uint16_t); break;
    case AUG_INT32: NARROW_(int32_t); break;
    case AUG_UINT32: NARROW_(uint32_t); break;
#undef NARROW_
    case AUG_INT64:
    case AUG_UINT64: {
        /* floor(w * count / 2^128) for the 128-bit draw w = b:a and count <= 2^64 */
        uint64_t *o = (uint64_t *)out;
        for (int64_t j = 0; j < m; j++) {
            uint64_t a = draw64(x0[j], x1[j]), b = draw64(x2[j], x3[j]), r;
            if (p->count_m1 == UINT64_MAX) {
                r = b;
            } else {
                aug__u128 hi = (aug__u128)b * cnt, lo_p = (aug__u128)a * cnt;
                r = (uint64_t)((hi + (lo_p >> 64)) >> 64);
            }
            o[j] = lo + r;
        }
        break;
    }
    default: break;
    }
}

static inline __attribute__((always_inline)) void gaussian_block(const aug__random_plan *p, int64_t m, words w,
                                                                 void *out) {
    const uint32_t *x0 = w.x0, *x1 = w.x1, *x2 = w.x2, *x3 = w.x3;
    aug_dtype t = p->target->dtype;
    const aug_dtype_traits *tr = aug_dtype_info(t);
    double lo = tr->fmin, hi = tr->fmax;
    switch (t) {
    case AUG_FLOAT32: LOOP(float, gauss_to_f32(p, normal_f32(x0[j], x2[j]))); break;
    case AUG_FLOAT16: LOOP(uint16_t, aug__f32_to_f16(gauss_to_f32(p, normal_f32(x0[j], x2[j])))); break;
    case AUG_BFLOAT16: LOOP(uint16_t, aug__f32_to_bf16(gauss_to_f32(p, normal_f32(x0[j], x2[j])))); break;
#define SMALL_(T) LOOP(T, rne_sat(p->mean + p->std * (double)normal_f32(x0[j], x2[j]), lo, hi))
    case AUG_INT8: SMALL_(int8_t); break;
    case AUG_UINT8: SMALL_(uint8_t); break;
    case AUG_INT16: SMALL_(int16_t); break;
    case AUG_UINT16: SMALL_(uint16_t); break;
#undef SMALL_
    case AUG_BOOL: LOOP(uint8_t, aug__rne_f64(p->mean + p->std * (double)normal_f32(x0[j], x2[j])) != 0.0); break;
    default: {
        /* float64 and the 32/64-bit integers: double precision with libm */
        char *o = (char *)out;
        int64_t size = tr->size;
        for (int64_t j = 0; j < m; j++) {
            double v = p->mean + p->std * normal_f64(draw64(x0[j], x1[j]), draw64(x2[j], x3[j]));
            if (t == AUG_FLOAT64)
                memcpy(o + j * size, &v, sizeof v);
            else
                aug__store_f64(v, (int)t, o + j * size);
        }
        break;
    }
    }
}
#undef LOOP

static inline __attribute__((always_inline)) void transform(const aug__random_plan *p, int64_t m, words w,
                                                            void *out) {
    if (p->kind == AUG__RANDOM_UNIFORM)
        uniform_block(p, m, w, out);
    else
        gaussian_block(p, m, w, out);
}

static void transform_base(const aug__random_plan *p, int64_t m, words w, void *out) { transform(p, m, w, out); }
#if AUG__X86
__attribute__((target("avx2"))) static void transform_avx2(const aug__random_plan *p, int64_t m, words w,
                                                          void *out) {
    transform(p, m, w, out);
}
__attribute__((target("avx512f,avx512dq,avx512vl,avx512bw"))) static void
transform_avx512(const aug__random_plan *p, int64_t m, words w, void *out) {
    transform(p, m, w, out);
}
#endif

/* ---- scheduling ------------------------------------------------------------------------- */

typedef struct fill_ctx {
    const aug__random_plan *plan;
    int level;           /* resolved vector level */
    int64_t n;           /* elements */
    int64_t itemsize;
    char *base;          /* element [0, ..., 0] */
    int nd;              /* coalesced dims, >= 1 */
    int64_t shape[AUG_MAX_DIMS];
    int64_t bstride[AUG_MAX_DIMS]; /* bytes */
} fill_ctx;

/* Elements i0 ... i0 + n - 1 stored at dst + k * bstride. */
static void fill_run(const fill_ctx *c, int64_t i0, int64_t n, char *dst, int64_t bstride) {
    const aug__random_plan *p = c->plan;
    _Alignas(64) uint32_t x0[BLOCK], x1[BLOCK], x2[BLOCK], x3[BLOCK];
    _Alignas(64) char tmp[BLOCK * 8];
    const words w = {x0, x1, x2, x3};
    int64_t isz = c->itemsize;
    for (int64_t off = 0; off < n; off += BLOCK) {
        int64_t m = n - off < BLOCK ? n - off : BLOCK;
        aug__philox_run(c->level, p->key, p->call, (uint64_t)(i0 + off), m, x0, x1, x2, x3);
        char *d = dst + off * bstride;
        void *out = bstride == isz ? (void *)d : (void *)tmp;
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
    int64_t s = task * TASK, e = s + TASK < c->n ? s + TASK : c->n;
    int last = c->nd - 1;
    /* unravel s into an index and a byte offset */
    int64_t idx[AUG_MAX_DIMS], rem = s, off = 0;
    for (int d = last; d >= 0; d--) {
        idx[d] = rem % c->shape[d];
        rem /= c->shape[d];
        off += idx[d] * c->bstride[d];
    }
    for (int64_t i = s; i < e;) {
        int64_t len = c->shape[last] - idx[last];
        if (len > e - i) len = e - i;
        fill_run(c, i, len, c->base + off, c->bstride[last]);
        i += len;
        off += len * c->bstride[last];
        idx[last] += len;
        for (int d = last; d > 0 && idx[d] == c->shape[d]; d--) { /* carry */
            off -= idx[d] * c->bstride[d];
            idx[d] = 0;
            idx[d - 1]++;
            off += c->bstride[d - 1];
        }
    }
}

/* The vector path of a fill: the requested one (tests), capped at what the CPU
 * has, or the default level (core/simd.h) when want < 0. */
static int resolve_level(int want) {
    int cpu = aug__simd_cpu_level();
    return want < 0 ? aug__simd_level() : want < cpu ? want : cpu;
}

aug_status aug__cpu_random(const aug__random_plan *plan) {
    const aug_tensor *t = plan->target;
    fill_ctx c;
    c.plan = plan;
    c.n = aug_tensor_size(t);
    c.itemsize = aug_tensor_itemsize(t);
    c.base = aug_tensor_ptr(t);
    c.level = resolve_level(aug__random_level);
    /* Coalesce the dims in C order: drop extent-1 dims, merge a dim into the
     * next inner one when it steps exactly over it. */
    int serial = 0;
    c.nd = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (t->shape[d] == 1) continue;
        int64_t bs = t->strides[d] * c.itemsize;
        if (bs == 0) serial = 1; /* aliased elements: the last in C order must win */
        if (c.nd > 0 && c.bstride[c.nd - 1] == bs * t->shape[d]) {
            c.shape[c.nd - 1] *= t->shape[d];
            c.bstride[c.nd - 1] = bs;
        } else {
            c.shape[c.nd] = t->shape[d];
            c.bstride[c.nd] = bs;
            c.nd++;
        }
    }
    if (c.nd == 0) { /* 0-d or all extents 1 */
        c.shape[0] = 1;
        c.bstride[0] = c.itemsize;
        c.nd = 1;
    }
    int64_t ntasks = (c.n + TASK - 1) / TASK;
    if (serial) {
        for (int64_t k = 0; k < ntasks; k++) fill_task(&c, k, 0);
    } else {
        aug__parallel_for(ntasks, fill_task, &c);
    }
    return AUG_OK;
}
