/* cpu/noise.c: the CPU fused Gaussian noise (aug_rng_gaussian_noise).
 *
 * x's elements in C order are cut into fixed tasks of TASK elements, each into
 * runs along the last dimension (and at image boundaries when std is per
 * image), each run into blocks of BLOCK: the block's Philox words come from the
 * vectorised aug__philox_run (as the random fills), the noise values from
 * scalar/normalize.h's aug__noise_draw (the float32 fill's rule), x is converted
 * to the compute type by aug__convert, added (aug__noise_add_*) and converted to
 * the output by aug__convert. Element i's value depends only on (seed, call, i,
 * x[i]), so any split and thread count give the same bytes.
 *
 * 8/16-bit integer x and out take the table rule (scalar/noise_table.h) in
 * cpu/noise_table.c, run by run, with the fine guides built here once per call. */
#include <string.h>
#include "cpu.h"
#include "core/normalize.h"
#include "cpu/convert.h"
#include "cpu/noise_table.h"
#include "cpu/pool.h"
#include "cpu/random.h"
#include "cpu/simd.h"

#define TASK ((int64_t)1 << 15)
#define BLOCK 512

typedef struct noise_ctx {
    const aug__noise_plan *plan;
    int level;
    aug__noise_fine fine; /* the table rule's fine guides (words NULL: the portable rule) */
} noise_ctx;

/* noise[j] for the block's words; p holds this image's std. */
static inline __attribute__((always_inline)) void draw_block(const aug__rand_params *pp, int64_t m, const uint32_t *x0,
                                                             const uint32_t *x2, float *noise) {
    const aug__rand_params par = *pp;
    for (int64_t j = 0; j < m; j++) noise[j] = aug__noise_draw(&par, x0[j], x2[j]);
}
static void draw_base(const aug__rand_params *p, int64_t m, const uint32_t *x0, const uint32_t *x2, float *noise) {
    draw_block(p, m, x0, x2, noise);
}
#if AUG__X86
__attribute__((target("avx2"))) static void draw_avx2(const aug__rand_params *p, int64_t m, const uint32_t *x0,
                                                     const uint32_t *x2, float *noise) {
    draw_block(p, m, x0, x2, noise);
}
__attribute__((target("avx512f,avx512dq,avx512vl,avx512bw"))) static void
draw_avx512(const aug__rand_params *p, int64_t m, const uint32_t *x0, const uint32_t *x2, float *noise) {
    draw_block(p, m, x0, x2, noise);
}
#endif

/* Elements i0 ... i0 + n - 1 of one image: x at xs, out at os (byte strides). */
static void noise_run(const noise_ctx *c, const aug__rand_params *p, int64_t i0, int64_t n, const char *x, int64_t xs,
                      char *out, int64_t os) {
    const aug__noise_plan *g = c->plan;
    _Alignas(64) uint32_t w0[BLOCK], w1[BLOCK], w2[BLOCK], w3[BLOCK];
    _Alignas(64) float noise[BLOCK];
    _Alignas(64) double buf[BLOCK];
    for (int64_t off = 0; off < n; off += BLOCK) {
        const int64_t m = n - off < BLOCK ? n - off : BLOCK;
        aug__philox_run(c->level, p->key, p->call, (uint64_t)(i0 + off), m, w0, w1, w2, w3);
#if AUG__X86
        if (c->level >= AUG__SIMD_AVX512)
            draw_avx512(p, m, w0, w2, noise);
        else if (c->level >= AUG__SIMD_AVX2)
            draw_avx2(p, m, w0, w2, noise);
        else
#endif
            draw_base(p, m, w0, w2, noise);
        if (g->ct == AUG__CT_FLOAT32) {
            float *f = (float *)(void *)buf;
            aug__convert(x + off * xs, xs, g->x_dtype, (char *)f, (int64_t)sizeof(float), AUG_FLOAT32, m);
            for (int64_t j = 0; j < m; j++) f[j] = aug__noise_add_f32(f[j], noise[j]);
            aug__convert((const char *)f, (int64_t)sizeof(float), AUG_FLOAT32, out + off * os, os, g->out_dtype, m);
        } else {
            aug__convert(x + off * xs, xs, g->x_dtype, (char *)buf, (int64_t)sizeof(double), AUG_FLOAT64, m);
            for (int64_t j = 0; j < m; j++) buf[j] = aug__noise_add_f64(buf[j], noise[j]);
            aug__convert((const char *)buf, (int64_t)sizeof(double), AUG_FLOAT64, out + off * os, os, g->out_dtype, m);
        }
    }
}

static void noise_task(void *ctx, int64_t task, int worker) {
    (void)worker;
    const noise_ctx *c = ctx;
    const aug__noise_plan *g = c->plan;
    const int64_t s = task * TASK, e = s + TASK < g->n ? s + TASK : g->n;
    const int nd = g->ndim > 0 ? g->ndim : 1, last = nd - 1;
    int64_t shape[AUG_MAX_DIMS], xs[AUG_MAX_DIMS], os[AUG_MAX_DIMS];
    for (int d = 0; d < nd; d++) {
        shape[d] = g->ndim > 0 ? g->shape[d] : 1;
        xs[d] = g->ndim > 0 ? g->xs[d] : 0;
        os[d] = g->ndim > 0 ? g->os[d] : 0;
    }
    int64_t idx[AUG_MAX_DIMS], rem = s, xo = 0, oo = 0;
    for (int d = last; d >= 0; d--) {
        idx[d] = rem % shape[d];
        rem /= shape[d];
        xo += idx[d] * xs[d];
        oo += idx[d] * os[d];
    }
    aug__rand_params p = g->p;
    const uint32_t *table = g->table, *fine = c->fine.words;
    for (int64_t i = s; i < e;) {
        int64_t len = shape[last] - idx[last];
        if (len > e - i) len = e - i;
        if (g->stds) { /* stop at the image boundary; this image's std */
            const int64_t img = i / g->per_image, end = (img + 1) * g->per_image;
            if (len > end - i) len = end - i;
            p.std = g->stds[img];
            if (g->table_of) table = g->table + g->table_of[img];
            if (g->table_of && fine) fine = c->fine.words + c->fine.of[img];
        }
        if (table)
            aug__noise_table_run(c->level, g, &p, table, fine, i, len, g->x + xo, xs[last], g->out + oo, os[last]);
        else noise_run(c, &p, i, len, g->x + xo, xs[last], g->out + oo, os[last]);
        i += len;
        xo += len * xs[last];
        oo += len * os[last];
        idx[last] += len;
        for (int d = last; d > 0 && idx[d] == shape[d]; d--) { /* carry */
            xo -= idx[d] * xs[d];
            oo -= idx[d] * os[d];
            idx[d] = 0;
            idx[d - 1]++;
            xo += xs[d - 1];
            oo += os[d - 1];
        }
    }
}

aug_status aug__cpu_gaussian_noise(const aug__noise_plan *plan) {
    noise_ctx c = {plan, aug__simd_level(), {NULL, NULL}};
    /* the fine guides serve the AVX2 path only; without them (no memory, too
     * many thresholds) the portable rule gives the same bytes */
    if (plan->table && c.level >= AUG__SIMD_AVX2) aug__noise_fine_build(plan, &c.fine);
    aug__parallel_for((plan->n + TASK - 1) / TASK, noise_task, &c);
    aug__noise_fine_free(&c.fine);
    return AUG_OK;
}
