/* cpu/autotone.c: the autotone ops on the CPU (core/autotone.h's plan and rules).
 *
 * equalize and autocontrast: one task per plane (a channel of an image): its
 * statistics (a histogram, 65536 bins for uint16 in a buffer of the task's; a
 * minimum and a maximum), then its values mapped (src == dst, in place, is
 * fine: the plane is read whole before it is written); uint8 planes through a
 * 256-entry table of the rule (cpu/lut8.h). adjust_sharpness: one task per band
 * of ROWS rows of a plane, each value from its 3 x 3 neighbourhood in src (never
 * dst: the core hands a copy when the op runs in place), a row at a time through
 * float buffers, with an AVX2+FMA build of the row loop where the CPU has FMA. A
 * plane's value (y, x) is at plane + (y * W + x) * ps, ps = C for channels last,
 * else 1. */
#include <stdlib.h>
#include <string.h>
#include "cpu.h"
#include "core/autotone.h"
#include "cpu/lut8.h"
#include "cpu/pool.h"
#include "cpu/simd.h"

#define ROWS 16 /* rows per sharpness task */

typedef struct geo {
    const aug__autotone_plan *p;
    int64_t hw, ps, cs; /* values per plane, pixel step, channel step */
    volatile int *failed; /* set by a task that ran out of memory */
} geo;

/* The first value of plane `plane` (= image * C + channel). */
static int64_t plane_base(const geo *g, int64_t plane) {
    const int64_t img = plane / g->p->channels, ch = plane - img * g->p->channels;
    return img * g->p->channels * g->hw + ch * g->cs;
}

/* d[i * ps] = lut[s[i * ps]] for i < n (d may be s): aug__cpu_lut8 for a contiguous plane. */
static void map_u8(const uint8_t lut[256], const uint8_t *s, uint8_t *d, int64_t n, int64_t ps) {
    if (ps == 1) {
        aug__cpu_lut8(lut, s, d, n, 0, aug__simd_level());
        return;
    }
    for (int64_t i = 0; i < n; i++) d[i * ps] = lut[s[i * ps]];
}

static void autocontrast_plane(const geo *g, int64_t base) {
    const aug__autotone_plan *p = g->p;
    const int64_t n = g->hw, ps = g->ps;
    if (p->dtype == AUG_UINT8) {
        const uint8_t *s = (const uint8_t *)p->src + base;
        uint8_t *d = (uint8_t *)p->dst + base, lo = 255, hi = 0;
        if (ps == 1) { /* vectorises */
            for (int64_t i = 0; i < n; i++) lo = s[i] < lo ? s[i] : lo;
            for (int64_t i = 0; i < n; i++) hi = s[i] > hi ? s[i] : hi;
        } else {
            for (int64_t i = 0; i < n; i++) {
                const uint8_t x = s[i * ps];
                lo = x < lo ? x : lo, hi = x > hi ? x : hi;
            }
        }
        /* the rule is a function of the value: its table gives the same bytes */
        const aug__autotone_stretch st = aug__autocontrast_stretch((float)lo, (float)hi, 1);
        uint8_t lut[256];
        for (int v = 0; v < 256; v++) lut[v] = aug__autocontrast_u8((uint8_t)v, st);
        map_u8(lut, s, d, n, ps);
    } else if (p->dtype == AUG_UINT16) {
        const uint16_t *s = (const uint16_t *)(const void *)p->src + base;
        uint16_t *d = (uint16_t *)(void *)p->dst + base, lo = 65535, hi = 0;
        for (int64_t i = 0; i < n; i++) {
            const uint16_t x = s[i * ps];
            lo = x < lo ? x : lo, hi = x > hi ? x : hi;
        }
        const aug__autotone_stretch st = aug__autocontrast_stretch((float)lo, (float)hi, 2);
        for (int64_t i = 0; i < n; i++) d[i * ps] = aug__autocontrast_u16(s[i * ps], st);
    } else {
        const float *s = (const float *)(const void *)p->src + base;
        float *d = (float *)(void *)p->dst + base, lo = INFINITY, hi = -INFINITY;
        for (int64_t i = 0; i < n; i++) lo = aug__autotone_min(lo, s[i * ps]), hi = aug__autotone_max(hi, s[i * ps]);
        const aug__autotone_stretch st = aug__autocontrast_stretch(lo, hi, 0);
        for (int64_t i = 0; i < n; i++) d[i * ps] = aug__autocontrast_f32(s[i * ps], st);
    }
}

/* uint16: a 65536-bin histogram and table (work: 384 KiB of the task's own). */
static void equalize16_plane(const geo *g, int64_t base, uint32_t *hist, uint16_t *lut) {
    const aug__autotone_plan *p = g->p;
    const int64_t n = g->hw, ps = g->ps;
    const uint16_t *s = (const uint16_t *)(const void *)p->src + base;
    uint16_t *d = (uint16_t *)(void *)p->dst + base;
    memset(hist, 0, 65536 * sizeof *hist);
    for (int64_t i = 0; i < n; i++) hist[s[i * ps]]++;
    uint64_t top = 0, cum = 0;
    for (int k = 0; k < 65536; k++)
        if (hist[k]) top = hist[k];
    const uint64_t dd = (uint64_t)n - top;
    if (dd == 0) {
        if (d != s)
            for (int64_t i = 0; i < n; i++) d[i * ps] = s[i * ps];
        return;
    }
    lut[0] = 0;
    for (int k = 1; k < 65536; k++) {
        cum += hist[k - 1];
        if (hist[k]) lut[k] = aug__equalize16_entry(cum, dd); /* an absent level is never looked up */
    }
    for (int64_t i = 0; i < n; i++) d[i * ps] = lut[s[i * ps]];
}

static void equalize_plane(const geo *g, int64_t base) {
    const aug__autotone_plan *p = g->p;
    const int64_t n = g->hw, ps = g->ps;
    if (p->dtype == AUG_UINT16) {
        uint32_t *hist = malloc(65536 * (sizeof(uint32_t) + sizeof(uint16_t)));
        if (!hist) { /* recorded for the caller: the plan fails as a whole */
            g->failed[0] = 1;
            return;
        }
        equalize16_plane(g, base, hist, (uint16_t *)(void *)(hist + 65536));
        free(hist);
        return;
    }
    uint32_t hist[256] = {0};
    uint8_t lut[256];
    if (p->dtype == AUG_UINT8) {
        const uint8_t *s = (const uint8_t *)p->src + base;
        uint8_t *d = (uint8_t *)p->dst + base;
        if (ps == 1) { /* four histograms: runs of one value do not wait on their own increments */
            uint32_t h4[3][256] = {{0}};
            int64_t i = 0;
            for (; i + 4 <= n; i += 4) hist[s[i]]++, h4[0][s[i + 1]]++, h4[1][s[i + 2]]++, h4[2][s[i + 3]]++;
            for (; i < n; i++) hist[s[i]]++;
            for (int v = 0; v < 256; v++) hist[v] += h4[0][v] + h4[1][v] + h4[2][v];
        } else {
            for (int64_t i = 0; i < n; i++) hist[s[i * ps]]++;
        }
        aug__equalize_lut(hist, lut);
        map_u8(lut, s, d, n, ps);
    } else {
        const float *s = (const float *)(const void *)p->src + base;
        float *d = (float *)(void *)p->dst + base;
        for (int64_t i = 0; i < n; i++) hist[aug__equalize_level(s[i * ps])]++;
        aug__equalize_lut(hist, lut);
        for (int64_t i = 0; i < n; i++) d[i * ps] = aug__equalize_value(lut[aug__equalize_level(s[i * ps])]);
    }
}

static void stats_task(void *ctx, int64_t task, int worker) {
    (void)worker;
    const geo *g = ctx;
    const int64_t base = plane_base(g, task);
    if (g->p->kind == AUG__AUTOTONE_EQUALIZE) equalize_plane(g, base);
    else autocontrast_plane(g, base);
}

/* ---- adjust_sharpness ---- */

#define CHUNK 256 /* columns per step of a row: its three source rows are float buffers on the stack */

/* o[i] for i in [ia, ib) from the float rows r0, r1, r2 (i - 1 .. i + 1). The
 * rule's fmaf calls are exact roundings whatever the build: the AVX2+FMA build
 * makes them one instruction each and vectorises the loop; the portable one
 * calls libm. Both give the same bits. */
#define BLEND_ROW(name, attr)                                                                                  \
    attr static void name(const float *r0, const float *r1, const float *r2, float *o, int64_t ia, int64_t ib, \
                          float alpha, int cls) {                                                              \
        if (cls == 1)                                                                                          \
            for (int64_t i = ia; i < ib; i++) {                                                                \
                const float v[9] = {r0[i - 1], r0[i], r0[i + 1], r1[i - 1], r1[i], r1[i + 1], r2[i - 1], r2[i], r2[i + 1]}; \
                o[i] = aug__sharpness_blend(v, alpha, 1);                                                      \
            }                                                                                                  \
        else if (cls == 2)                                                                                     \
            for (int64_t i = ia; i < ib; i++) {                                                                \
                const float v[9] = {r0[i - 1], r0[i], r0[i + 1], r1[i - 1], r1[i], r1[i + 1], r2[i - 1], r2[i], r2[i + 1]}; \
                o[i] = aug__sharpness_blend(v, alpha, 2);                                                      \
            }                                                                                                  \
        else                                                                                                   \
            for (int64_t i = ia; i < ib; i++) {                                                                \
                const float v[9] = {r0[i - 1], r0[i], r0[i + 1], r1[i - 1], r1[i], r1[i + 1], r2[i - 1], r2[i], r2[i + 1]}; \
                o[i] = aug__sharpness_blend(v, alpha, 0);                                                      \
            }                                                                                                  \
    }
BLEND_ROW(blend_row_plain, )
#if AUG__X86
BLEND_ROW(blend_row_fma, __attribute__((target("avx2,fma"))))
#endif
#undef BLEND_ROW

typedef void (*blend_row_fn)(const float *, const float *, const float *, float *, int64_t, int64_t, float, int);

typedef struct sharp_ctx {
    geo g;
    blend_row_fn blend;
} sharp_ctx;

/* n values from src + at, step ps, as float32 into buf. */
static void load_row(const aug__autotone_plan *p, int64_t at, int64_t ps, int64_t n, float *buf) {
    if (p->dtype == AUG_UINT8) {
        const uint8_t *s = (const uint8_t *)p->src + at;
        if (ps == 1) /* vectorises */
            for (int64_t i = 0; i < n; i++) buf[i] = (float)s[i];
        else
            for (int64_t i = 0; i < n; i++) buf[i] = (float)s[i * ps];
    } else if (p->dtype == AUG_UINT16) {
        for (int64_t i = 0; i < n; i++) buf[i] = (float)((const uint16_t *)(const void *)p->src)[at + i * ps];
    } else {
        for (int64_t i = 0; i < n; i++) buf[i] = ((const float *)(const void *)p->src)[at + i * ps];
    }
}

static void store_row(const aug__autotone_plan *p, int64_t at, int64_t ps, int64_t n, const float *buf) {
    if (p->dtype == AUG_UINT8) {
        uint8_t *d = (uint8_t *)p->dst + at;
        if (ps == 1)
            for (int64_t i = 0; i < n; i++) d[i] = (uint8_t)buf[i];
        else
            for (int64_t i = 0; i < n; i++) d[i * ps] = (uint8_t)buf[i];
    } else if (p->dtype == AUG_UINT16) {
        for (int64_t i = 0; i < n; i++) ((uint16_t *)(void *)p->dst)[at + i * ps] = (uint16_t)buf[i];
    } else {
        for (int64_t i = 0; i < n; i++) ((float *)(void *)p->dst)[at + i * ps] = buf[i];
    }
}

/* A band of ROWS rows of a plane, CHUNK columns at a time: buffer index i is
 * column x0 - 1 + i. Border values (and every value of a plane of at most 2
 * rows or columns) are kept, float32 ones clamped as torchvision clamps the
 * whole output of a larger plane. */
static void sharpness_task(void *ctx, int64_t task, int worker) {
    (void)worker;
    const sharp_ctx *c = ctx;
    const aug__autotone_plan *p = c->g.p;
    const int64_t h = p->height, w = p->width, bands = (h + ROWS - 1) / ROWS;
    const int64_t plane = task / bands, y0 = (task - plane * bands) * ROWS, y1 = y0 + ROWS < h ? y0 + ROWS : h;
    const int64_t base = plane_base(&c->g, plane), ps = c->g.ps;
    const float alpha = p->alpha[p->alphas > 1 ? plane / p->channels : 0];
    const int cls = aug__autotone_cls(p->dtype), small = h <= 2 || w <= 2;
    float rows[3][CHUNK + 2], o[CHUNK + 2];
    for (int64_t y = y0; y < y1; y++)
        for (int64_t x0 = 0; x0 < w; x0 += CHUNK) {
            const int64_t x1 = x0 + CHUNK < w ? x0 + CHUNK : w;
            if (small || y == 0 || y == h - 1) {
                load_row(p, base + (y * w + x0) * ps, ps, x1 - x0, o + 1);
                if (!small && !cls)
                    for (int64_t i = 1; i <= x1 - x0; i++) o[i] = aug__sharpness_border_f32(o[i]);
                store_row(p, base + (y * w + x0) * ps, ps, x1 - x0, o + 1);
                continue;
            }
            const int64_t lo = x0 > 0 ? x0 - 1 : 0, hi = x1 < w ? x1 + 1 : w;
            for (int k = 0; k < 3; k++) load_row(p, base + ((y + k - 1) * w + lo) * ps, ps, hi - lo, rows[k] + (lo - x0 + 1));
            const int64_t a = x0 > 0 ? x0 : 1, b = x1 < w ? x1 : w - 1; /* the interior columns */
            c->blend(rows[0], rows[1], rows[2], o, a - x0 + 1, b - x0 + 1, alpha, cls);
            if (x0 == 0) o[1] = cls ? rows[1][1] : aug__sharpness_border_f32(rows[1][1]);
            if (x1 == w) o[w - x0] = cls ? rows[1][w - x0] : aug__sharpness_border_f32(rows[1][w - x0]);
            store_row(p, base + (y * w + x0) * ps, ps, x1 - x0, o + 1);
        }
}

aug_status aug__cpu_autotone(const aug__autotone_plan *plan) {
    if (plan->dtype != AUG_UINT8 && plan->dtype != AUG_UINT16 && plan->dtype != AUG_FLOAT32)
        return aug__error(AUG_ERR_TYPE, plan->func, "dtype %s is not supported",
                          aug_dtype_name((aug_dtype)plan->dtype));
    volatile int failed = 0;
    geo g = {plan, plan->height * plan->width, plan->channels_last ? plan->channels : 1,
             plan->channels_last ? 1 : plan->height * plan->width, &failed};
    const int64_t planes = plan->images * plan->channels;
    switch (plan->kind) {
    case AUG__AUTOTONE_AUTOCONTRAST:
    case AUG__AUTOTONE_EQUALIZE:
        aug__parallel_for(planes, stats_task, &g);
        return failed ? aug__error(AUG_ERR_MEMORY, plan->func, "out of host memory for a 65536-bin histogram")
                      : AUG_OK;
    case AUG__AUTOTONE_SHARPNESS: {
        sharp_ctx c = {g, blend_row_plain};
#if AUG__X86
        if (aug__simd_level() >= AUG__SIMD_AVX2 && __builtin_cpu_supports("fma")) c.blend = blend_row_fma;
#endif
        aug__parallel_for(planes * ((plan->height + ROWS - 1) / ROWS), sharpness_task, &c);
        return AUG_OK;
    }
    default: return aug__error(AUG_ERR_VALUE, plan->func, "unknown autotone operation %d", plan->kind);
    }
}
