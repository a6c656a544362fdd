/* cpu/normalize.c: the CPU crop_mirror_normalize (include/aug/normalize.h).
 *
 * One task per (image, output channel, block of output rows). A row's in-image part is a
 * strided run of the input (negative column stride when mirrored), converted to
 * float32 by aug__convert, normalised with scalar/normalize.h's aug__cmn_norm and
 * converted to the output dtype by aug__convert (the conversion table's rule, as
 * the CUDA kernel's per-value aug__cmn_value); the rest of the row takes the
 * channel's fill value. 8-bit inputs (uint8, int8, bool) go through a table
 * per channel of the 256 results of aug__cmn_value (the CUDA kernel's function),
 * so a value is one load: the same bytes, about 4x faster; uint8 -> float32
 * into consecutive floats (CHW / NCHW output) from CHW planes or HWC pixels,
 * mirrored or not, computes the same float32 expression in vectorised loops
 * instead. Each value is
 * computed the same way whatever the split, so results do not depend on the
 * thread count. */
#include <stdlib.h>
#include <string.h>
#include "cpu.h"
#include "core/error.h"
#include "core/normalize.h"
#include "cpu/convert.h"
#include "cpu/pool.h"
#include "cpu/simd.h"

/* Values converted at a time (1 KiB of float32: stays in L1). */
#define CMN_BLOCK 256
/* Output values per task (whole rows). */
#define CMN_TASK 16384

static void fill_run(char *dst, int64_t stride, const char *value, int64_t osize, int64_t n) {
    for (int64_t i = 0; i < n; i++) memcpy(dst + i * stride, value, (size_t)osize);
}

typedef struct cmn_ctx {
    const aug__cmn_plan *plan;
    const char *tables; /* NULL, or cout tables of 256 output values (8-bit inputs) */
    int64_t rows_per_task;
} cmn_ctx;

/* uint8 -> float32 into consecutive floats from a run of stride ss (+-1: CHW
 * planes; +-3, +-4: HWC pixels; negative when mirrored): the table's values
 * (aug__cmn_value stores the float32 aug__cmn_norm((float)x) unchanged), computed
 * in loops with constant strides that the compiler vectorises (with shuffles for
 * the pixel strides) instead of loaded one by one. Plain (SSE2) and AVX2 builds
 * of the same loops. Returns 0 for other strides. */
#define NORM_U8_F32_BODY                                                                                               \
    switch (ss) {                                                                                                      \
    case 1: for (int64_t i = 0; i < n; i++) d[i] = aug__cmn_norm((float)s[i], mean, inv); return 1;                    \
    case -1: for (int64_t i = 0; i < n; i++) d[i] = aug__cmn_norm((float)s[-i], mean, inv); return 1;                  \
    case 3: for (int64_t i = 0; i < n; i++) d[i] = aug__cmn_norm((float)s[3 * i], mean, inv); return 1;                \
    case -3: for (int64_t i = 0; i < n; i++) d[i] = aug__cmn_norm((float)s[-3 * i], mean, inv); return 1;              \
    case 4: for (int64_t i = 0; i < n; i++) d[i] = aug__cmn_norm((float)s[4 * i], mean, inv); return 1;                \
    case -4: for (int64_t i = 0; i < n; i++) d[i] = aug__cmn_norm((float)s[-4 * i], mean, inv); return 1;              \
    default: return 0;                                                                                                 \
    }

static int norm_u8_f32_plain(const uint8_t *s, int64_t ss, float *d, int64_t n, float mean, float inv) {
    NORM_U8_F32_BODY
}
#if AUG__X86
__attribute__((target("avx2"))) static int norm_u8_f32_avx2(const uint8_t *s, int64_t ss, float *d, int64_t n,
                                                             float mean, float inv) {
    NORM_U8_F32_BODY
}
#endif

static int norm_u8_f32(const uint8_t *s, int64_t ss, float *d, int64_t n, float mean, float inv) {
#if AUG__X86
    if (aug__simd_level() >= AUG__SIMD_AVX2) return norm_u8_f32_avx2(s, ss, d, n, mean, inv);
#endif
    return norm_u8_f32_plain(s, ss, d, n, mean, inv);
}

/* Output row y of channel ch of image img. */
static void cmn_row(const aug__cmn_plan *p, const char *tables, int64_t img, int64_t ch, int64_t y) {
    const int64_t osize = aug__ctype_size(p->out_dtype);
    const aug__cmn_image *im = &p->images[img];
    char *row;
    int64_t ds;
    if (p->nhwc) {
        row = p->dst + (((img * p->oh + y) * p->ow) * p->cout + ch) * osize;
        ds = p->cout * osize;
    } else {
        row = p->dst + ((img * p->cout + ch) * p->oh + y) * p->ow * osize;
        ds = osize;
    }
    const char *fill = p->fill + ch * osize;
    const int64_t sy = im->ay + y;
    if (ch >= p->c || sy < 0 || sy >= im->h) {
        fill_run(row, ds, fill, osize, p->ow);
        return;
    }
    /* output columns [x0, x1) read inside the image */
    int64_t x0, x1;
    if (im->mirror) {
        x0 = im->ax + p->ow - im->w, x1 = im->ax + p->ow;
    } else {
        x0 = -im->ax, x1 = im->w - im->ax;
    }
    x0 = x0 < 0 ? 0 : x0 > p->ow ? p->ow : x0;
    x1 = x1 < x0 ? x0 : x1 > p->ow ? p->ow : x1;
    fill_run(row, ds, fill, osize, x0);
    fill_run(row + x1 * ds, ds, fill, osize, p->ow - x1);
    const int64_t sx0 = im->mirror ? im->ax + p->ow - 1 - x0 : im->ax + x0;
    const int64_t ss = im->mirror ? -im->sx : im->sx;
    const char *src = im->src + sy * im->sy + ch * im->sc + sx0 * im->sx;
    char *dst = row + x0 * ds;
    const int64_t n = x1 - x0;
    if (p->normalize && p->in_dtype == AUG__CT_UINT8 && p->out_dtype == AUG__CT_FLOAT32 && ds == 4) {
        float *d;
        memcpy(&d, &dst, sizeof d); /* dst is float32-aligned: an element of the float32 output */
        if (norm_u8_f32((const uint8_t *)src, ss, d, n, p->mean[ch], p->inv[ch])) return;
    }
    if (tables) {
        const char *tab = tables + ch * 256 * osize;
        const uint8_t *s8 = (const uint8_t *)src;
        switch (osize) {
        case 1:
            for (int64_t i = 0; i < n; i++) dst[i * ds] = tab[s8[i * ss]];
            break;
        case 2:
            for (int64_t i = 0; i < n; i++) memcpy(dst + i * ds, tab + 2 * s8[i * ss], 2);
            break;
        case 4:
            for (int64_t i = 0; i < n; i++) memcpy(dst + i * ds, tab + 4 * s8[i * ss], 4);
            break;
        default:
            for (int64_t i = 0; i < n; i++) memcpy(dst + i * ds, tab + osize * s8[i * ss], (size_t)osize);
            break;
        }
        return;
    }
    if (!p->normalize) {
        aug__convert(src, ss, p->in_dtype, dst, ds, p->out_dtype, n);
        return;
    }
    const float mean = p->mean[ch], inv = p->inv[ch];
    float buf[CMN_BLOCK];
    for (int64_t i = 0; i < n; i += CMN_BLOCK) {
        const int64_t m = n - i < CMN_BLOCK ? n - i : CMN_BLOCK;
        aug__convert(src + i * ss, ss, p->in_dtype, (char *)buf, (int64_t)sizeof(float), AUG_FLOAT32, m);
        for (int64_t j = 0; j < m; j++) buf[j] = aug__cmn_norm(buf[j], mean, inv);
        aug__convert((const char *)buf, (int64_t)sizeof(float), AUG_FLOAT32, dst + i * ds, ds, p->out_dtype, m);
    }
}

/* One task: rows_per_task consecutive output rows of one (image, channel). */
static void cmn_task(void *ctx, int64_t task, int worker) {
    (void)worker;
    const cmn_ctx *k = ctx;
    const aug__cmn_plan *p = k->plan;
    const int64_t blocks = (p->oh + k->rows_per_task - 1) / k->rows_per_task;
    const int64_t plane = task / blocks, y0 = task % blocks * k->rows_per_task;
    const int64_t y1 = y0 + k->rows_per_task < p->oh ? y0 + k->rows_per_task : p->oh;
    for (int64_t y = y0; y < y1; y++) cmn_row(p, k->tables, plane / p->cout, plane % p->cout, y);
}

aug_status aug__cpu_crop_mirror_normalize(const aug__cmn_plan *plan) {
    /* about CMN_TASK values per task: a 224-wide row alone costs less than handing it out */
    int64_t rows = CMN_TASK / (plan->ow > 0 ? plan->ow : 1);
    cmn_ctx k = {plan, NULL, rows < 1 ? 1 : rows};
    char *tables = NULL;
    const int64_t osize = aug__ctype_size(plan->out_dtype);
    /* a table costs 256 evaluations per channel: worth it once the images hold more values */
    if (aug__ctype_size(plan->in_dtype) == 1 && plan->normalize && plan->n * plan->oh * plan->ow > 256) {
        tables = malloc((size_t)(plan->c * 256 * osize));
        if (!tables) return AUG__NOMEM(plan->func);
        for (int64_t ch = 0; ch < plan->c; ch++)
            for (int v = 0; v < 256; v++) {
                _Alignas(16) uint8_t b[16] = {0}; /* one byte used; the load reads 1 */
                b[0] = (uint8_t)v;
                aug__cmn_value(b, plan->in_dtype, tables + (ch * 256 + v) * osize, plan->out_dtype, 1,
                               plan->mean[ch], plan->inv[ch]);
            }
        k.tables = tables;
    }
    aug__parallel_for(plan->n * plan->cout * ((plan->oh + k.rows_per_task - 1) / k.rows_per_task), cmn_task, &k);
    free(tables);
    return AUG_OK;
}
