/* cpu/colour.c: the CPU colour kernels (aug/colour.h, docs/colour.md).
 *
 * Pixels are processed in blocks of BLOCK: the channel planes of a block are
 * read once, every step of the image runs over the block, the block is stored
 * (one pass over the pixels). uint16 images are widened into float32 block
 * planes and run the float path's loops with the uint16 rules (bound 65535,
 * truncation; scalar/colour.h), stored back as uint16. For uint8, consecutive
 * steps that map each value on its own (brightness, contrast; with one channel
 * every step) are composed into one 256-entry table per image, built with the
 * same scalar rules, so the tables give the bits of the per-value evaluation.
 * Saturation and hue run per pixel (scalar/colour.h), in a plain and an AVX2+FMA
 * build of the same code (fmaf is exact, so both give the same bits). A hue step
 * that comes first (last) reads the image (writes the output) itself instead of
 * the block copy: for adjust_hue the block is never copied, which also keeps the
 * loads and stores spread over the computation (float32 batches that do not fit
 * in the cache ran at half speed with the copies).
 *
 * An image with a contrast step needs the grayscale mean of the image after
 * the steps before it: a first pass runs those steps per row, stores the row in
 * the output (the main pass goes on from there) and sums the row's grayscale
 * left to right in double (uint8: exactly, in integers), then the row sums are
 * added in row order (the CUDA backend sums in the same order, so float32 means
 * agree).
 *
 * aug_color_jitter_lighting's lighting is one more stage after the steps:
 * uint8 through per-(image, channel) tables (aug__colour_light_table, one
 * task per table) composed into the last table when the last stage is one (so
 * brightness/contrast + lighting is one lookup per value); float32 per value
 * in double (scalar/lighting.h), stored as aug_lighting stores float32. */
#include <stdlib.h>
#include <string.h>
#include "cpu.h"
#include "core/colour.h"
#include "scalar/cast.h"
#include "cpu/lut8.h"
#include "cpu/pool.h"
#include "cpu/simd.h"
#include "core/error.h"

/* Pixels per block: three planes of 256 floats stay in L1. */
#define BLOCK 256
/* Pixels per task of the main pass: 16 Ki pixels (~50 us with saturation and hue)
 * amortise a task's hand-out; a 224x224 image is 4 tasks. */
#define CHUNK ((int64_t)1 << 14)

/* STAGE_LUT: one table for every channel; STAGE_CLUT: a table per channel (the
 * fused lighting's, composed with the table before it); STAGE_LIGHT: the fused
 * lighting per float32 value. */
enum { STAGE_LUT, STAGE_STEP, STAGE_CLUT, STAGE_LIGHT };
/* Table slots per image: 0..3 for the steps' tables, LIGHT_SLOT + channel for
 * the lighting's. */
#define LUT_SLOTS 8
#define LIGHT_SLOT 4

/* The stages of one image for steps [from, to): tables and per-pixel steps. */
typedef struct stages {
    int n;
    int type[5];
    int arg[5]; /* STAGE_LUT, STAGE_CLUT: table slot; STAGE_STEP: step index */
} stages;

typedef struct col_ctx {
    const aug__colour_plan *p;
    int64_t hw;
    float *means;   /* n */
    double *rowsum; /* n * h */
    stages *st;     /* n (the current pass's stages) */
    uint8_t *luts;  /* n * LUT_SLOTS * 256 */
    uint8_t *light; /* uint8 with the fused lighting: n * c tables (aug__colour_light_table) */
    int fma;        /* the CPU has FMA: use the AVX2+FMA block steps */
    int simd;       /* aug__simd_level(): the table lookups' path (aug__cpu_lut8) */
} col_ctx;

/* The AVX2+FMA builds (the library's -fno-trapping-math lets the compiler turn
 * the rules' selects into blends; -ffp-contract=off keeps every other multiply
 * and add apart). */
#define FMA_FN __attribute__((target("avx2,fma")))

/* ---- one step over a block ---------------------------------------------------------- */

/* adjust_hue (aug__colour_hue, factor ratio) over m pixels of float planes
 * (r, g, b) into (r2, g2, b2), in two passes over the block: its two halves,
 * RGB -> turned HSV into hh, ss, vv, then HSV -> RGB. One loop of the whole
 * rule is one long dependency chain per vector (three divisions, three
 * roundings) that stalls the out-of-order window; two shorter loops run about
 * twice as fast. The output may be the input. */
#define HUE_LOOP(r, g, b, r2, g2, b2)                                                                                  \
    {                                                                                                                  \
        _Alignas(32) float hh[BLOCK], ss[BLOCK], vv[BLOCK];                                                            \
        for (int64_t i = 0; i < m; i++) aug__colour_hue_hsv((r)[i], (g)[i], (b)[i], ratio, &hh[i], &ss[i], &vv[i]);    \
        for (int64_t i = 0; i < m; i++)                                                                                \
            aug__colour_hsv_to_rgb_unit(hh[i], ss[i], vv[i], &(r2)[i], &(g2)[i], &(b2)[i]);                            \
    }

/* Step k of image d over m pixels of the block planes pl; each kind is its own
 * loop over the scalar rule, so the compiler can vectorise it. uint8 planes
 * only see saturation and hue (their per-value steps are tables). A hue step
 * reads its pixels from in and writes them to out where those are not NULL
 * (the image's planes at the block, so that a first or last hue step needs no
 * copy of the block). */
#define STEP_BODY                                                                                                      \
    const int kind = d->step[k].kind;                                                                                  \
    const float ratio = d->step[k].ratio, alpha = d->step[k].alpha;                                                    \
    const void *const *hin = in ? in : (const void *const *)pl;                                                        \
    void *const *hout = out ? out : pl;                                                                                \
    if (p->u8 == AUG__COLOUR_CLS_U8) {                                                                                 \
        uint8_t *r = pl[0], *g = pl[1], *b = pl[2];                                                                    \
        if (kind == AUG__COLOUR_SATURATION) {                                                                          \
            /* as float planes (the hue step's reason: 8 lanes per vector, no spills) */                               \
            _Alignas(32) float f0[BLOCK], f1[BLOCK], f2[BLOCK];                                                        \
            for (int64_t i = 0; i < m; i++) f0[i] = r[i], f1[i] = g[i], f2[i] = b[i];                                  \
            for (int64_t i = 0; i < m; i++) aug__colour_step_saturation(1, ratio, alpha, &f0[i], &f1[i], &f2[i]);      \
            for (int64_t i = 0; i < m; i++) r[i] = (uint8_t)f0[i], g[i] = (uint8_t)f1[i], b[i] = (uint8_t)f2[i];       \
        } else {                                                                                                       \
            /* aug__colour_step_hue's uint8 path, as float planes: 8 lanes per vector, no spills */                    \
            const uint8_t *r0 = hin[0], *g0 = hin[1], *b0 = hin[2];                                                    \
            uint8_t *r1 = hout[0], *g1 = hout[1], *b1 = hout[2];                                                       \
            _Alignas(32) float f0[BLOCK], f1[BLOCK], f2[BLOCK];                                                        \
            for (int64_t i = 0; i < m; i++) {                                                                          \
                f0[i] = (float)r0[i] * AUG__COLOUR_U8_TO_F;                                                            \
                f1[i] = (float)g0[i] * AUG__COLOUR_U8_TO_F;                                                            \
                f2[i] = (float)b0[i] * AUG__COLOUR_U8_TO_F;                                                            \
            }                                                                                                          \
            HUE_LOOP(f0, f1, f2, f0, f1, f2)                                                                           \
            for (int64_t i = 0; i < m; i++) {                                                                          \
                r1[i] = (uint8_t)truncf(f0[i] * AUG__COLOUR_F_TO_U8);                                                  \
                g1[i] = (uint8_t)truncf(f1[i] * AUG__COLOUR_F_TO_U8);                                                  \
                b1[i] = (uint8_t)truncf(f2[i] * AUG__COLOUR_F_TO_U8);                                                  \
            }                                                                                                          \
        }                                                                                                              \
    } else {                                                                                                           \
        float *r = pl[0], *g = pl[1], *b = pl[2];                                                                      \
        if (kind == AUG__COLOUR_SATURATION) {                                                                          \
            for (int64_t i = 0; i < m; i++) aug__colour_step_saturation(p->u8, ratio, alpha, &r[i], &g[i], &b[i]);     \
        } else if (kind == AUG__COLOUR_HUE && p->u8) {                                                                 \
            /* uint16 (in the block planes: a uint16 plan never reads or writes the image here) */                     \
            for (int64_t i = 0; i < m; i++)                                                                            \
                r[i] *= AUG__COLOUR_U16_TO_F, g[i] *= AUG__COLOUR_U16_TO_F, b[i] *= AUG__COLOUR_U16_TO_F;              \
            HUE_LOOP(r, g, b, r, g, b)                                                                                 \
            for (int64_t i = 0; i < m; i++) {                                                                          \
                r[i] = aug__colour_f_to_u16(r[i]);                                                                     \
                g[i] = aug__colour_f_to_u16(g[i]);                                                                     \
                b[i] = aug__colour_f_to_u16(b[i]);                                                                     \
            }                                                                                                          \
        } else if (kind == AUG__COLOUR_HUE) {                                                                          \
            const float *r0 = hin[0], *g0 = hin[1], *b0 = hin[2];                                                      \
            float *r1 = hout[0], *g1 = hout[1], *b1 = hout[2];                                                         \
            HUE_LOOP(r0, g0, b0, r1, g1, b1)                                                                           \
        } else {                                                                                                       \
            float *planes[3] = {r, g, b};                                                                              \
            for (int64_t c = 0; c < p->c; c++)                                                                         \
                for (int64_t i = 0; i < m; i++)                                                                        \
                    planes[c][i] = aug__colour_step_value(kind, p->u8, ratio, alpha, mean, planes[c][i]);              \
        }                                                                                                              \
    }

static void step_plain(const aug__colour_plan *p, const aug__colour_image *d, int k, float mean, void *const pl[3],
                       const void *const in[3], void *const out[3], int64_t m){STEP_BODY}

FMA_FN static void step_fma(const aug__colour_plan *p, const aug__colour_image *d, int k, float mean, void *const pl[3],
                            const void *const in[3], void *const out[3], int64_t m) {
    STEP_BODY
}

/* The sum of the floored grayscale (or the values, c = 1) of m uint8 pixels. */
#define GRAY_SUM_BODY                                                                                                  \
    const uint8_t *r = planes[0], *g = planes[1], *b = planes[2];                                                      \
    int32_t s = 0; /* at most BLOCK * 255 */                                                                           \
    if (c != 3) {                                                                                                      \
        for (int64_t i = 0; i < m; i++) s += r[i];                                                                     \
    } else {                                                                                                           \
        for (int64_t i = 0; i < m; i++) s += (int32_t)aug__colour_mean_term(3, 1, r[i], g[i], b[i]);                   \
    }                                                                                                                  \
    return s;

static int32_t u8_gray_sum_plain(void *const planes[3], int c, int64_t m){GRAY_SUM_BODY} FMA_FN static int32_t
    u8_gray_sum_fma(void *const planes[3], int c, int64_t m) {
    GRAY_SUM_BODY
}

/* ---- stages ------------------------------------------------------------------------ */

/* Stages of image i for steps [from, to), tables written to luts (4 * 256). */
static void make_stages(const aug__colour_plan *p, int64_t i, int from, int to, float mean, stages *s, uint8_t *luts) {
    const aug__colour_image *d = &p->img[i];
    s->n = 0;
    int nlut = 0;
    for (int k = from; k < to; k++) {
        int kind = d->step[k].kind;
        int per_value = kind == AUG__COLOUR_BRIGHTNESS || kind == AUG__COLOUR_CONTRAST;
        if (p->c == 1 && !per_value) continue; /* saturation and hue leave one channel as it is */
        if (p->u8 != AUG__COLOUR_CLS_U8 || !per_value) {
            s->type[s->n] = STAGE_STEP, s->arg[s->n++] = k;
            continue;
        }
        uint8_t *t;
        if (s->n > 0 && s->type[s->n - 1] == STAGE_LUT) {
            t = luts + 256 * s->arg[s->n - 1];
        } else {
            t = luts + 256 * nlut;
            for (int x = 0; x < 256; x++) t[x] = (uint8_t)x;
            s->type[s->n] = STAGE_LUT, s->arg[s->n++] = nlut++;
        }
        for (int x = 0; x < 256; x++) {
            float v = t[x], u = 0.0f, w = 0.0f;
            aug__colour_steps(d, k, k + 1, 1, 1, mean, &v, &u, &w);
            t[x] = (uint8_t)v;
        }
    }
}

/* Appends image i's fused lighting to its main-pass stages s: uint8 through its
 * per-channel tables (light), composed with a last table stage; float32 a
 * per-value stage. */
static void add_lighting(const aug__colour_plan *p, const uint8_t *light_tables, int64_t i, stages *s, uint8_t *luts) {
    if (!p->light_gamma) return;
    if (p->u8 != AUG__COLOUR_CLS_U8) {
        s->type[s->n] = STAGE_LIGHT, s->arg[s->n++] = 0;
        return;
    }
    const int last = s->n > 0 && s->type[s->n - 1] == STAGE_LUT;
    const uint8_t *t = last ? luts + 256 * s->arg[s->n - 1] : NULL;
    const uint8_t *light = light_tables + i * p->c * 256;
    for (int64_t c = 0; c < p->c; c++)
        for (int v = 0; v < 256; v++) luts[256 * (LIGHT_SLOT + c) + v] = light[c * 256 + (t ? t[v] : v)];
    if (!last) s->n++;
    s->type[s->n - 1] = STAGE_CLUT, s->arg[s->n - 1] = LIGHT_SLOT;
}

/* The fused lighting of image i over m pixels of float32 block planes, into
 * out (the output at the block) or, where out is NULL, in place. uint16 (never
 * given out): each value stored as aug_lighting stores uint16 (saturate_cast),
 * held in the float plane. */
static void light_block(const aug__colour_plan *p, int64_t i, void *const pl[3], void *const out[3], int64_t m) {
    for (int64_t c = 0; c < p->c; c++) {
        const float *v = pl[c];
        float *o = out ? out[c] : pl[c];
        const double g = p->light_gamma[i * p->c + c], k = p->light_contrast[i];
        double d[BLOCK];
        for (int64_t q = 0; q < m; q++) d[q] = v[q];
        for (int64_t q = 0; q < m; q++) d[q] = aug__lighting_value(d[q], p->light_vmin, p->light_vmax, k, g);
        if (p->u8 == AUG__COLOUR_CLS_U16) {
            for (int64_t q = 0; q < m; q++) {
                uint16_t u;
                aug__store_f64(d[q], AUG__CT_UINT16, &u);
                o[q] = u;
            }
            continue;
        }
        for (int64_t q = 0; q < m; q++) o[q] = aug__cvk_ID_DF(d[q], 0, 0, 0, 0); /* aug__store_f64's float32 store */
    }
}

/* Stage j of image i is a table or the fused lighting: it can write the
 * output itself (no copy of the block out). */
static int table_stage(const col_ctx *x, int64_t i, int j) {
    const stages *s = &x->st[i];
    return j >= 0 && j < s->n && (s->type[j] == STAGE_LUT || s->type[j] == STAGE_CLUT || s->type[j] == STAGE_LIGHT);
}

/* Stage j of image i is a hue step. */
static int hue_stage(const col_ctx *x, int64_t i, int j) {
    const stages *s = &x->st[i];
    return j >= 0 && j < s->n && s->type[j] == STAGE_STEP && x->p->img[i].step[s->arg[j]].kind == AUG__COLOUR_HUE;
}

/* Runs image i's stages over m pixels of the block planes pl. in (out), where
 * not NULL, are the image's planes at the block, which a first (last) stage
 * that is a hue step reads from (writes to) in place of pl; a last table or
 * lighting stage writes out too. */
static void run_stages(const col_ctx *x, int64_t i, float mean, void *const pl[3], const void *const in[3],
                       void *const out[3], int64_t m) {
    const aug__colour_plan *p = x->p;
    const stages *s = &x->st[i];
    for (int j = 0; j < s->n; j++) {
        const void *const *sin = j == 0 ? in : NULL;
        void *const *sout = j == s->n - 1 ? out : NULL;
        if (s->type[j] == STAGE_LUT || s->type[j] == STAGE_CLUT) {
            for (int64_t c = 0; c < p->c; c++) {
                const uint8_t *t = x->luts + (i * LUT_SLOTS + s->arg[j] + (s->type[j] == STAGE_CLUT ? c : 0)) * 256;
                aug__cpu_lut8(t, pl[c], sout ? sout[c] : pl[c], m, 0, x->simd);
            }
        } else if (s->type[j] == STAGE_LIGHT) {
            light_block(p, i, pl, sout, m);
        } else if (x->fma) {
            step_fma(p, &p->img[i], s->arg[j], mean, pl, sin, sout, m);
        } else {
            step_plain(p, &p->img[i], s->arg[j], mean, pl, sin, sout, m);
        }
    }
}

/* memcpy through the C library's: GCC expands the block copies below (at most
 * BLOCK pixels, a bound it sees) inline as `rep movsq`, whose start-up costs
 * more than the copy of a few hundred bytes. */
__attribute__((noinline)) static void copy_plane(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }

/* Bytes per value of the plan's image. */
static size_t elem_size(const aug__colour_plan *p) {
    return p->u8 == AUG__COLOUR_CLS_U8 ? 1 : p->u8 == AUG__COLOUR_CLS_U16 ? sizeof(uint16_t) : sizeof(float);
}

/* Loads m pixels from pixel offset q of image i of base (the source or the
 * output) into the block planes (uint16 widened to float planes). */
static void load_block(const aug__colour_plan *p, const char *base, int64_t hw, int64_t i, int64_t q, int64_t m,
                       void *planes[3]) {
    size_t es = elem_size(p);
    for (int64_t c = 0; c < p->c; c++) {
        const char *from = base + ((i * p->c + c) * hw + q) * (int64_t)es;
        if (p->u8 != AUG__COLOUR_CLS_U16) {
            copy_plane(planes[c], from, (size_t)m * es);
            continue;
        }
        const uint16_t *u = (const uint16_t *)(const void *)from;
        float *f = planes[c];
        for (int64_t j = 0; j < m; j++) f[j] = u[j];
    }
}

/* The first step of the main pass: after the contrast pre-pass, which stored the
 * image as it is before its contrast step in the output, the contrast step. */
static int main_from(const aug__colour_plan *p, int64_t i) {
    return p->img[i].contrast_at > 0 ? p->img[i].contrast_at : 0;
}

/* Stores the block planes (uint16: integers in [0, 65535] held in floats). */
static void store_block(const aug__colour_plan *p, int64_t hw, int64_t i, int64_t q, int64_t m, void *planes[3]) {
    size_t es = elem_size(p);
    for (int64_t c = 0; c < p->c; c++) {
        char *to = p->dst + ((i * p->c + c) * hw + q) * (int64_t)es;
        if (p->u8 != AUG__COLOUR_CLS_U16) {
            copy_plane(to, planes[c], (size_t)m * es);
            continue;
        }
        uint16_t *u = (uint16_t *)(void *)to;
        const float *f = planes[c];
        for (int64_t j = 0; j < m; j++) u[j] = (uint16_t)f[j];
    }
}

/* ---- passes -------------------------------------------------------------------------- */

static void light_table_task(void *ctx, int64_t plane, int worker) {
    (void)worker;
    col_ctx *x = ctx;
    aug__colour_light_table(x->p, plane, x->light + plane * 256);
}

static void pre_stages_task(void *ctx, int64_t i, int worker) {
    (void)worker;
    col_ctx *x = ctx;
    int at = x->p->img[i].contrast_at;
    x->st[i].n = 0;
    if (at > 0) make_stages(x->p, i, 0, at, 0.0f, &x->st[i], x->luts + i * LUT_SLOTS * 256);
}

static void main_stages_task(void *ctx, int64_t i, int worker) {
    (void)worker;
    col_ctx *x = ctx;
    make_stages(x->p, i, main_from(x->p, i), x->p->img[i].nsteps, x->means[i], &x->st[i],
                x->luts + i * LUT_SLOTS * 256);
    add_lighting(x->p, x->light, i, &x->st[i], x->luts + i * LUT_SLOTS * 256);
}

/* The grayscale sum of row y of image i after the steps before its contrast step;
 * the row after those steps is stored in the output, where the main pass picks
 * it up (so no step runs twice). */
static void row_sum_task(void *ctx, int64_t task, int worker) {
    (void)worker;
    col_ctx *x = ctx;
    const aug__colour_plan *p = x->p;
    int64_t i = task / p->h, y = task % p->h;
    if (p->img[i].contrast_at < 0) return;
    _Alignas(32) float buf[3][BLOCK];
    void *planes[3] = {buf[0], buf[1], buf[2]};
    double sum = 0.0;
    int64_t isum = 0; /* uint8: the terms are integers, so any order gives the exact sum */
    for (int64_t q = 0; q < p->w; q += BLOCK) {
        int64_t m = p->w - q < BLOCK ? p->w - q : BLOCK;
        load_block(p, p->src, x->hw, i, y * p->w + q, m, planes);
        run_stages(x, i, 0.0f, planes, NULL, NULL, m);
        if (p->img[i].contrast_at > 0) store_block(p, x->hw, i, y * p->w + q, m, planes);
        if (p->u8 == AUG__COLOUR_CLS_U8) {
            isum += x->fma ? u8_gray_sum_fma(planes, (int)p->c, m) : u8_gray_sum_plain(planes, (int)p->c, m);
            continue;
        }
        for (int64_t j = 0; j < m; j++)
            sum += (double)aug__colour_mean_term((int)p->c, p->u8, buf[0][j], p->c == 3 ? buf[1][j] : 0.0f,
                                                 p->c == 3 ? buf[2][j] : 0.0f);
    }
    x->rowsum[task] = p->u8 == AUG__COLOUR_CLS_U8 ? (double)isum : sum;
}

static void main_task(void *ctx, int64_t task, int worker) {
    (void)worker;
    col_ctx *x = ctx;
    const aug__colour_plan *p = x->p;
    int64_t chunks = (x->hw + CHUNK - 1) / CHUNK;
    int64_t i = task / chunks, q0 = task % chunks * CHUNK, q1 = q0 + CHUNK < x->hw ? q0 + CHUNK : x->hw;
    const stages *s = &x->st[i];
    const char *base = main_from(p, i) > 0 ? p->dst : p->src;
    if (p->u8 == AUG__COLOUR_CLS_U8 && s->n <= 1 && (s->n == 0 || s->type[0] == STAGE_LUT || s->type[0] == STAGE_CLUT)) {
        /* one table (or none): straight from the source to the output */
        for (int64_t c = 0; c < p->c; c++) {
            const uint8_t *t =
                x->luts + (i * LUT_SLOTS + (s->n ? s->arg[0] + (s->type[0] == STAGE_CLUT ? c : 0) : 0)) * 256;
            const uint8_t *src = (const uint8_t *)base + (i * p->c + c) * x->hw;
            uint8_t *dst = (uint8_t *)p->dst + (i * p->c + c) * x->hw;
            if (!s->n) {
                if (dst != src) memcpy(dst + q0, src + q0, (size_t)(q1 - q0));
                continue;
            }
            aug__cpu_lut8(t, src + q0, dst + q0, q1 - q0, 0, x->simd);
        }
        return;
    }
    _Alignas(32) float buf[3][BLOCK];
    void *planes[3] = {buf[0], buf[1], buf[2]};
    /* a hue step first (last) reads (writes) the image's planes itself: no copy
     * of the block in (out); its two passes let the output be the input */
    const int direct = p->u8 != AUG__COLOUR_CLS_U16; /* uint16 goes through float block planes */
    const int hue_first = direct && hue_stage(x, i, 0);
    const int hue_last = direct && (hue_stage(x, i, s->n - 1) || table_stage(x, i, s->n - 1)); /* writes the output */
    const size_t es = elem_size(p);
    for (int64_t q = q0; q < q1; q += BLOCK) {
        int64_t m = q1 - q < BLOCK ? q1 - q : BLOCK;
        const void *in[3];
        void *out[3];
        for (int64_t c = 0; c < 3 && c < p->c; c++) {
            const int64_t at = ((i * p->c + c) * x->hw + q) * (int64_t)es;
            in[c] = base + at, out[c] = p->dst + at;
        }
        if (!hue_first) load_block(p, base, x->hw, i, q, m, planes);
        run_stages(x, i, x->means[i], planes, hue_first ? in : NULL, hue_last ? out : NULL, m);
        if (!hue_last) store_block(p, x->hw, i, q, m, planes);
    }
}

/* ---- grayscale and HSV ------------------------------------------------------------- */

/* rgb_to_grayscale of m <= BLOCK RGB pixels (planes r, g, b) into o, the gray of
 * each (uint8: truncated), through a block copy so that the output may be the
 * input (in place) and the loops still vectorise; the scalar rule's bits. */
#define GRAY_BODY(T, U8)                                                                                               \
    {                                                                                                                  \
        T tmp[BLOCK];                                                                                                  \
        for (int64_t q = 0; q < m; q++) {                                                                              \
            float v = aug__colour_gray((float)r[q], (float)g[q], (float)b[q]);                                         \
            tmp[q] = (T)(U8 ? truncf(v) : v);                                                                          \
        }                                                                                                              \
        for (int64_t c = 0; c < oc; c++) memcpy(o + c * hw, tmp, sizeof(T) * (size_t)m);                               \
    }
static void gray_u8(const uint8_t *r, const uint8_t *g, const uint8_t *b, uint8_t *o, int64_t m, int64_t oc,
                    int64_t hw) GRAY_BODY(uint8_t, 1)
static void gray_f32(const float *r, const float *g, const float *b, float *o, int64_t m, int64_t oc,
                     int64_t hw) GRAY_BODY(float, 0)
#if AUG__X86
FMA_FN static void gray_u8_fma(const uint8_t *r, const uint8_t *g, const uint8_t *b, uint8_t *o, int64_t m,
                               int64_t oc, int64_t hw) GRAY_BODY(uint8_t, 1)
FMA_FN static void gray_f32_fma(const float *r, const float *g, const float *b, float *o, int64_t m, int64_t oc,
                                int64_t hw) GRAY_BODY(float, 0)
#endif
#undef GRAY_BODY

/* Pixels [q0, q1) of RGB image i (uint8 or float32) into its gray in out_c channels, BLOCK at a time. */
static void gray_task_range(const col_ctx *x, int64_t i, int64_t q0, int64_t q1) {
    const aug__colour_plan *p = x->p;
    int64_t hw = x->hw, oc = p->out_c;
    for (int64_t q = q0; q < q1; q += BLOCK) {
        int64_t m = q1 - q < BLOCK ? q1 - q : BLOCK;
        if (p->u8 == AUG__COLOUR_CLS_U8) {
            const uint8_t *s = (const uint8_t *)p->src + i * 3 * hw + q;
            uint8_t *o = (uint8_t *)p->dst + i * oc * hw + q;
#if AUG__X86
            if (x->fma) {
                gray_u8_fma(s, s + hw, s + 2 * hw, o, m, oc, hw);
                continue;
            }
#endif
            gray_u8(s, s + hw, s + 2 * hw, o, m, oc, hw);
        } else {
            const float *s = (const float *)(const void *)p->src + i * 3 * hw + q;
            float *o = (float *)(void *)p->dst + i * oc * hw + q;
#if AUG__X86
            if (x->fma) {
                gray_f32_fma(s, s + hw, s + 2 * hw, o, m, oc, hw);
                continue;
            }
#endif
            gray_f32(s, s + hw, s + 2 * hw, o, m, oc, hw);
        }
    }
}

static void convert_task(void *ctx, int64_t task, int worker) {
    (void)worker;
    col_ctx *x = ctx;
    const aug__colour_plan *p = x->p;
    int64_t chunks = (x->hw + CHUNK - 1) / CHUNK;
    int64_t i = task / chunks, q0 = task % chunks * CHUNK, q1 = q0 + CHUNK < x->hw ? q0 + CHUNK : x->hw;
    int64_t hw = x->hw, oc = p->out_c;
    if (p->kind == AUG__COLOUR_GRAY && p->c == 3 && p->u8 != AUG__COLOUR_CLS_U16) { /* uint16: the loop below */
        gray_task_range(x, i, q0, q1);
        return;
    }
    for (int64_t q = q0; q < q1; q++) {
        float v[3] = {0.0f, 0.0f, 0.0f};
        for (int64_t c = 0; c < p->c; c++) {
            int64_t at = (i * p->c + c) * hw + q;
            v[c] = p->u8 == AUG__COLOUR_CLS_U8    ? (float)((const uint8_t *)p->src)[at]
                   : p->u8 == AUG__COLOUR_CLS_U16 ? (float)((const uint16_t *)(const void *)p->src)[at]
                                                  : ((const float *)(const void *)p->src)[at];
        }
        float o[3];
        if (p->kind == AUG__COLOUR_GRAY) {
            float gray = p->c == 3 ? aug__colour_gray(v[0], v[1], v[2]) : v[0];
            o[0] = o[1] = o[2] = p->u8 ? truncf(gray) : gray;
        } else if (p->kind == AUG__COLOUR_TO_HSV) {
            aug__colour_rgb_to_hsv(v[0], v[1], v[2], &o[0], &o[1], &o[2]);
        } else {
            aug__colour_hsv_to_rgb(v[0], v[1], v[2], &o[0], &o[1], &o[2]);
        }
        for (int64_t c = 0; c < oc; c++) {
            int64_t at = (i * oc + c) * hw + q;
            if (p->u8 == AUG__COLOUR_CLS_U8)
                ((uint8_t *)p->dst)[at] = (uint8_t)o[c];
            else if (p->u8 == AUG__COLOUR_CLS_U16)
                ((uint16_t *)(void *)p->dst)[at] = (uint16_t)o[c];
            else
                ((float *)(void *)p->dst)[at] = o[c];
        }
    }
}

aug_status aug__cpu_colour(const aug__colour_plan *p) {
    const char *func = p->func;
    col_ctx x = {p, p->h * p->w, NULL, NULL, NULL, NULL, NULL, 0, 0};
    int64_t chunks = (x.hw + CHUNK - 1) / CHUNK;
    x.simd = aug__simd_level();
    x.fma = x.simd >= AUG__SIMD_AVX2 && __builtin_cpu_supports("fma");
    if (p->kind != AUG__COLOUR_JITTER) {
        aug__parallel_for(p->n * chunks, convert_task, &x);
        return AUG_OK;
    }
    x.means = calloc((size_t)p->n, sizeof(float));
    x.st = malloc((size_t)p->n * sizeof(stages));
    x.luts = malloc((size_t)p->n * LUT_SLOTS * 256);
    x.rowsum = p->any_contrast ? malloc((size_t)(p->n * p->h) * sizeof(double)) : NULL;
    const int light_u8 = p->light_gamma && p->u8 == AUG__COLOUR_CLS_U8;
    x.light = light_u8 ? malloc((size_t)(p->n * p->c) * 256) : NULL;
    aug_status st = AUG_OK;
    if (!x.means || !x.st || !x.luts || (p->any_contrast && !x.rowsum) || (light_u8 && !x.light)) {
        st = AUG__NOMEM(func);
    } else {
        if (light_u8) aug__parallel_for(p->n * p->c, light_table_task, &x);
        if (p->any_contrast) {
            aug__parallel_for(p->n, pre_stages_task, &x);
            aug__parallel_for(p->n * p->h, row_sum_task, &x);
            for (int64_t i = 0; i < p->n; i++) {
                if (p->img[i].contrast_at < 0) continue;
                double sum = 0.0;
                for (int64_t y = 0; y < p->h; y++) sum += x.rowsum[i * p->h + y];
                x.means[i] = aug__colour_mean(sum, x.hw);
            }
        }
        aug__parallel_for(p->n, main_stages_task, &x);
        aug__parallel_for(p->n * chunks, main_task, &x);
    }
    free(x.means);
    free(x.st);
    free(x.luts);
    free(x.rowsum);
    free(x.light);
    return st;
}
