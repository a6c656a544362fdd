/* cpu/autotone.c: the autotone ops on the CPU (core/autotone.h's plan and rules).
 *
 * equalize and autocontrast: one task per plane (a channel of an image): its
 * statistics (a histogram; a minimum and a maximum), then its values mapped
 * (src == dst, in place, is fine: the plane is read whole before it is
 * written). adjust_sharpness: one task per band of ROWS rows of a plane, each
 * value from its 3 x 3 neighbourhood in src (never dst: the core hands a copy
 * when the op runs in place). A plane's value (y, x) is at plane + (y * W + x) *
 * ps, ps = C for channels last, else 1. */
#include "cpu.h"
#include "core/autotone.h"
#include "cpu/pool.h"

#define ROWS 16 /* rows per sharpness task */

typedef struct geo {
    const aug__autotone_plan *p;
    int64_t hw, ps, cs; /* values per plane, pixel step, channel step */
} geo;

/* The first value of plane `plane` (= image * C + channel). */
static int64_t plane_base(const geo *g, int64_t plane) {
    const int64_t img = plane / g->p->channels, ch = plane - img * g->p->channels;
    return img * g->p->channels * g->hw + ch * g->cs;
}

static void autocontrast_plane(const geo *g, int64_t base) {
    const aug__autotone_plan *p = g->p;
    const int64_t n = g->hw, ps = g->ps;
    if (p->dtype == AUG_UINT8) {
        const uint8_t *s = (const uint8_t *)p->src + base;
        uint8_t *d = (uint8_t *)p->dst + base, lo = 255, hi = 0;
        for (int64_t i = 0; i < n; i++) {
            const uint8_t x = s[i * ps];
            lo = x < lo ? x : lo, hi = x > hi ? x : hi;
        }
        const aug__autotone_stretch st = aug__autocontrast_stretch((float)lo, (float)hi, 1);
        for (int64_t i = 0; i < n; i++) d[i * ps] = aug__autocontrast_u8(s[i * ps], st);
    } else {
        const float *s = (const float *)(const void *)p->src + base;
        float *d = (float *)(void *)p->dst + base, lo = INFINITY, hi = -INFINITY;
        for (int64_t i = 0; i < n; i++) lo = aug__autotone_min(lo, s[i * ps]), hi = aug__autotone_max(hi, s[i * ps]);
        const aug__autotone_stretch st = aug__autocontrast_stretch(lo, hi, 0);
        for (int64_t i = 0; i < n; i++) d[i * ps] = aug__autocontrast_f32(s[i * ps], st);
    }
}

static void equalize_plane(const geo *g, int64_t base) {
    const aug__autotone_plan *p = g->p;
    const int64_t n = g->hw, ps = g->ps;
    uint32_t hist[256] = {0};
    uint8_t lut[256];
    if (p->dtype == AUG_UINT8) {
        const uint8_t *s = (const uint8_t *)p->src + base;
        uint8_t *d = (uint8_t *)p->dst + base;
        for (int64_t i = 0; i < n; i++) hist[s[i * ps]]++;
        aug__equalize_lut(hist, lut);
        for (int64_t i = 0; i < n; i++) d[i * ps] = lut[s[i * ps]];
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

/* Value (y, x) of plane s as float32. */
static float at(const aug__autotone_plan *p, int64_t base, int64_t ps, int64_t w, int64_t y, int64_t x) {
    const int64_t i = base + (y * w + x) * ps;
    return p->dtype == AUG_UINT8 ? (float)((const uint8_t *)p->src)[i] : ((const float *)(const void *)p->src)[i];
}

static void sharpness_task(void *ctx, int64_t task, int worker) {
    (void)worker;
    const geo *g = ctx;
    const aug__autotone_plan *p = g->p;
    const int64_t h = p->height, w = p->width, bands = (h + ROWS - 1) / ROWS;
    const int64_t plane = task / bands, y0 = (task - plane * bands) * ROWS, y1 = y0 + ROWS < h ? y0 + ROWS : h;
    const int64_t base = plane_base(g, plane), ps = g->ps;
    const float alpha = p->alpha[p->alphas > 1 ? plane / p->channels : 0];
    const int u8 = p->dtype == AUG_UINT8, small = h <= 2 || w <= 2;
    for (int64_t y = y0; y < y1; y++)
        for (int64_t x = 0; x < w; x++) {
            float r = at(p, base, ps, w, y, x);
            if (!small && y > 0 && y < h - 1 && x > 0 && x < w - 1) {
                float v[9];
                for (int k = 0; k < 9; k++) v[k] = at(p, base, ps, w, y + k / 3 - 1, x + k % 3 - 1);
                r = aug__sharpness_blend(v, alpha, u8);
            } else if (!small && !u8) {
                r = aug__sharpness_border_f32(r);
            }
            const int64_t i = base + (y * w + x) * ps;
            if (u8) ((uint8_t *)p->dst)[i] = (uint8_t)r;
            else ((float *)(void *)p->dst)[i] = r;
        }
}

aug_status aug__cpu_autotone(const aug__autotone_plan *plan) {
    if (plan->dtype != AUG_UINT8 && plan->dtype != AUG_FLOAT32)
        return aug__error(AUG_ERR_TYPE, plan->func, "dtype %s is not supported",
                          aug_dtype_name((aug_dtype)plan->dtype));
    geo g = {plan, plan->height * plan->width, plan->channels_last ? plan->channels : 1,
             plan->channels_last ? 1 : plan->height * plan->width};
    const int64_t planes = plan->images * plan->channels;
    switch (plan->kind) {
    case AUG__AUTOTONE_AUTOCONTRAST:
    case AUG__AUTOTONE_EQUALIZE: aug__parallel_for(planes, stats_task, &g); return AUG_OK;
    case AUG__AUTOTONE_SHARPNESS:
        aug__parallel_for(planes * ((plan->height + ROWS - 1) / ROWS), sharpness_task, &g);
        return AUG_OK;
    default: return aug__error(AUG_ERR_VALUE, plan->func, "unknown autotone operation %d", plan->kind);
    }
}
