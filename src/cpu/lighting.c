/* cpu/lighting.c: the CPU lighting kernel (semantics §13, manual 3.1.4.3).
 *
 * Every value goes through aug__lighting_value (scalar/lighting.h) in double and is
 * stored with saturate_cast. For 8- and 16-bit integer images (and bool) the
 * result depends only on the input value, so a table of 256 / 65536 results is
 * built per (image, channel) with the same function and then applied; that is
 * faster than evaluating exp/atanh/pow per pixel once a plane holds more values
 * than the table, and gives bit-identical results (8-bit tables through
 * aug__cpu_lut8, 64 values per AVX-512 VBMI step). Other dtypes are converted
 * chunk by chunk to double, evaluated and converted back with saturation.
 * Work is split into (plane, table segment) and then (plane, chunk) tasks; each
 * value's result does not depend on the split, so results are the same for any
 * thread count. */
#include <stdlib.h>
#include <string.h>
#include "cpu.h"
#include "core/lighting.h"
#include "cpu/convert.h"
#include "cpu/lut8.h"
#include "cpu/pool.h"
#include "cpu/simd.h"
#include "core/error.h"
#include "core/tensor_impl.h"

/* Values per task: 16 Ki values (16 KiB of uint8, ~7 us) amortise a task's hand-out
 * (~0.1 us) and split a 480x640 plane into 19 tasks, so two or more threads end
 * within a fraction of a task of each other. */
#define LIGHT_CHUNK ((int64_t)1 << 14)
/* Values converted to double at a time in the generic path (fits in L1). */
#define LIGHT_BLOCK 512
/* Planes whose tables are built and applied together: bounds table memory to
 * 64 * 256 B for 8-bit and 16 * 128 KiB for 16-bit images. */
#define LIGHT_GROUP8 64
#define LIGHT_GROUP16 16

typedef struct {
    const aug__lighting_plan *plan;
    const double *gg, *gc, *ct;   /* per image, per (image, channel), per image */
    int dtype;
    int64_t esize;
    int64_t plane0;               /* first plane of the current group */
    int64_t chunks;               /* chunks per plane */
    int bits;                     /* table index bits (8 or 16); 0 = no table */
    char *tables;                 /* one table per plane of the group */
} light_ctx;

static double plane_gamma(const light_ctx *k, int64_t plane) {
    int64_t img = plane / k->plan->c;
    return (double)k->gg[img] * k->gc[plane];
}

/* The input value a table index stands for (signed types are offset). */
static double table_value(int dtype, int64_t i) {
    switch (dtype) {
    case AUG_INT8: return (double)(i - 128);
    case AUG_INT16: return (double)(i - 32768);
    default: return (double)i;
    }
}

/* Table entries per build task: a quarter of an 8-bit table (~2 us of exp/pow),
 * so even a single RGB image's three tables spread evenly over the threads. */
#define LIGHT_TABLE_SEG 64

static void build_table_task(void *ctx, int64_t task, int worker) {
    (void)worker;
    light_ctx *k = ctx;
    const aug__lighting_plan *p = k->plan;
    int64_t size = (int64_t)1 << k->bits, segs = size / LIGHT_TABLE_SEG;
    int64_t local = task / segs, i0 = task % segs * LIGHT_TABLE_SEG;
    int64_t plane = k->plane0 + local, img = plane / p->c;
    char *t = k->tables + local * size * k->esize;
    double g = plane_gamma(k, plane), c = k->ct[img];
    for (int64_t i = i0; i < i0 + LIGHT_TABLE_SEG; i++) {
        double x = table_value(k->dtype, i);
        if (k->dtype == AUG_BOOL && i > 1) x = 1.0; /* bool bytes are 0 or 1; never read */
        aug__store_f64(aug__lighting_value(x, p->vmin, p->vmax, c, g), k->dtype, t + i * k->esize);
    }
}

static void apply_table_task(void *ctx, int64_t task, int worker) {
    (void)worker;
    light_ctx *k = ctx;
    const aug__lighting_plan *p = k->plan;
    int64_t local = task / k->chunks, chunk = task % k->chunks;
    int64_t plane = k->plane0 + local;
    int64_t start = chunk * LIGHT_CHUNK, n = p->hw - start < LIGHT_CHUNK ? p->hw - start : LIGHT_CHUNK;
    int64_t off = plane * p->hw + start;
    if (k->bits == 8) {
        const uint8_t *t = (const uint8_t *)k->tables + local * 256;
        const uint8_t *src = (const uint8_t *)p->src + off;
        uint8_t *dst = (uint8_t *)p->dst + off;
        /* int8 indexes with the sign bit flipped: x + 128 */
        aug__cpu_lut8(t, src, dst, n, k->dtype == AUG_INT8 ? 0x80 : 0, aug__simd_level());
    } else {
        const uint16_t *t = (const uint16_t *)k->tables + local * 65536;
        const uint16_t *src = (const uint16_t *)(const void *)p->src + off;
        uint16_t *dst = (uint16_t *)(void *)p->dst + off;
        uint16_t flip = k->dtype == AUG_INT16 ? 0x8000 : 0;
        for (int64_t i = 0; i < n; i++) dst[i] = t[(uint16_t)(src[i] ^ flip)];
    }
}

static void direct_task(void *ctx, int64_t task, int worker) {
    (void)worker;
    light_ctx *k = ctx;
    const aug__lighting_plan *p = k->plan;
    int64_t plane = task / k->chunks, chunk = task % k->chunks, img = plane / p->c;
    int64_t start = chunk * LIGHT_CHUNK, n = p->hw - start < LIGHT_CHUNK ? p->hw - start : LIGHT_CHUNK;
    int64_t off = (plane * p->hw + start) * k->esize;
    const char *src = p->src + off;
    char *dst = p->dst + off;
    double g = plane_gamma(k, plane), c = k->ct[img], buf[LIGHT_BLOCK];
    for (int64_t i = 0; i < n; i += LIGHT_BLOCK) {
        int64_t m = n - i < LIGHT_BLOCK ? n - i : LIGHT_BLOCK;
        aug__convert(src + i * k->esize, k->esize, k->dtype, (char *)buf, sizeof(double), AUG_FLOAT64, m);
        for (int64_t j = 0; j < m; j++) buf[j] = aug__lighting_value(buf[j], p->vmin, p->vmax, c, g);
        aug__convert((const char *)buf, sizeof(double), AUG_FLOAT64, dst + i * k->esize, k->esize, k->dtype, m);
    }
}

aug_status aug__cpu_lighting(const aug__lighting_plan *plan) {
    const char *func = plan->func;
    int64_t nplanes = plan->n * plan->c;
    light_ctx k = {plan, plan->gg, plan->gc, plan->ct, (int)plan->im->dtype, aug__dtype_size(plan->im->dtype),
                   0, 0, 0, NULL};
    k.chunks = (plan->hw + LIGHT_CHUNK - 1) / LIGHT_CHUNK;
    switch (k.dtype) {
    case AUG_UINT8: case AUG_INT8: case AUG_BOOL: k.bits = 8; break;
    case AUG_UINT16: case AUG_INT16: k.bits = 16; break;
    default: k.bits = 0;
    }
    /* A table costs 2^bits evaluations; evaluating directly costs hw. */
    if (k.bits && plan->hw <= ((int64_t)1 << k.bits)) k.bits = 0;
    if (!k.bits) {
        aug__parallel_for(nplanes * k.chunks, direct_task, &k);
        return AUG_OK;
    }
    int64_t group = k.bits == 8 ? LIGHT_GROUP8 : LIGHT_GROUP16;
    if (group > nplanes) group = nplanes;
    k.tables = malloc((size_t)(group << k.bits) * (size_t)k.esize);
    if (!k.tables) return AUG__NOMEM(func);
    for (k.plane0 = 0; k.plane0 < nplanes; k.plane0 += group) {
        int64_t m = nplanes - k.plane0 < group ? nplanes - k.plane0 : group;
        aug__parallel_for(m * (((int64_t)1 << k.bits) / LIGHT_TABLE_SEG), build_table_task, &k);
        aug__parallel_for(m * k.chunks, apply_table_task, &k);
    }
    free(k.tables);
    return AUG_OK;
}
