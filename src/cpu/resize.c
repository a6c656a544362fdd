/* cpu/resize.c: the CPU resize (docs/resize.md), the plan of core/resize.h run
 * separably per image, in strips of output rows (one task each):
 *  1. every source row the strip's output rows read is converted to the compute
 *     type (float or double, channels interleaved) and filtered horizontally
 *     with the x taps into the strip's buffer of (rows, Wo, C) values;
 *  2. each output row is the y-weighted sum of its rows of that buffer, stored
 *     with saturate_cast.
 * Both sums follow scalar/resize.h (first product, then each next one added,
 * no contraction: the library is built with -ffp-contract=off), so every value
 * equals the CUDA kernel's, which evaluates the same sums per output value.
 * Images whose taps are all single weights of 1 (nearest, same size) copy the
 * tapped elements (exact for every dtype). Rows are split into tasks; a value
 * never depends on the split, so results are the same for any thread count. */
#include <stdlib.h>
#include <string.h>
#include "cpu.h"
#include "core/resize.h"
#include "core/tensor_impl.h"
#include "cpu/convert.h"
#include "cpu/pool.h"
#include "scalar/resize.h"

/* Values per task: enough work to amortise a task's hand-out. */
#define RS_TASK_VALUES ((int64_t)1 << 14)
/* Output values per strip (the source rows it reads stay in cache), and the
 * fewest strips an image is split into when it has the rows. */
#define RS_STRIP_VALUES ((int64_t)1 << 16)
#define RS_MIN_STRIPS 8
/* Bytes after a row buffer that a vector load or store may touch. */
#define RS_SLACK 16

typedef struct rs_ctx {
    const aug__resize_plan *p;
    const aug__resize_image *m;
    int64_t C, Wo, Ho;
    int ct, dt;                 /* compute and output ctypes */
    int64_t ces;                /* compute element size */
    int64_t rows_per_task;
    int failed;                 /* a task could not allocate its scratch */
} rs_ctx;

/* Horizontal pass of one source row (already converted, (W, C) interleaved).
 * The one- and two-tap cases (nearest-like and linear outputs) and the common
 * channel counts are spelled out so the compiler keeps everything in
 * registers; every case computes the same sum in the same order. */
#define RS_HPASS_C(T, FIRST, NEXT, CC)                                                                   \
    for (int64_t x = 0; x < Wo; x++) {                                                                  \
        const T *w = wt + tx[x].woff;                                                                   \
        const T *v = row + tx[x].first * (CC);                                                          \
        const int64_t n = tx[x].count;                                                                  \
        T *o = out + x * (CC);                                                                          \
        if (n == 2) {                                                                                   \
            const T w0 = w[0], w1 = w[1];                                                               \
            for (int64_t c = 0; c < (CC); c++) o[c] = NEXT(FIRST(w0, v[c]), w1, v[(CC) + c]);           \
        } else {                                                                                        \
            for (int64_t c = 0; c < (CC); c++) {                                                        \
                T acc = FIRST(w[0], v[c]);                                                              \
                for (int64_t k = 1; k < n; k++) acc = NEXT(acc, w[k], v[k * (CC) + c]);                 \
                o[c] = acc;                                                                             \
            }                                                                                           \
        }                                                                                               \
    }
#define RS_HPASS(T, WF, FIRST, NEXT)                                                                     \
    static void hpass_##T(const aug__resize_plan *p, const aug__resize_image *m, int64_t C, const T *row, \
                          T *out) {                                                                      \
        const aug__resize_tap *tx = p->taps + m->xtab;                                                   \
        const T *wt = p->WF;                                                                             \
        const int64_t Wo = p->Wo;                                                                        \
        switch (C) {                                                                                     \
        case 1: RS_HPASS_C(T, FIRST, NEXT, 1) break;                                                     \
        case 3: RS_HPASS_C(T, FIRST, NEXT, 3) break;                                                     \
        case 4: RS_HPASS_C(T, FIRST, NEXT, 4) break;                                                     \
        default: RS_HPASS_C(T, FIRST, NEXT, C) break;                                                    \
        }                                                                                                \
    }
RS_HPASS(float, w32, aug__resize_first_f32, aug__resize_next_f32)
RS_HPASS(double, w64, aug__resize_first_f64, aug__resize_next_f64)
#undef RS_HPASS
#undef RS_HPASS_C

#if defined(__SSE2__)
#include <emmintrin.h>
/* The float horizontal pass of 3- and 4-channel rows with SSE2: one pixel's
 * channels in one vector (a 3-channel pixel reads and writes one float of the
 * next pixel: the row buffer has slack, and the store's extra float is
 * rewritten by the next pixel; the row's last pixel stores only its own
 * channels, since the next row belongs to another task). The same products
 * and sums per value as hpass_float. */
static int hpass_float_sse2(const aug__resize_plan *p, const aug__resize_image *m, int64_t C, const float *row,
                            float *out) {
    if (C != 3 && C != 4) return 0;
    const aug__resize_tap *tx = p->taps + m->xtab;
    for (int64_t x = 0; x < p->Wo; x++) {
        const float *w = p->w32 + tx[x].woff;
        const float *v = row + tx[x].first * C;
        __m128 acc = _mm_mul_ps(_mm_set1_ps(w[0]), _mm_loadu_ps(v));
        for (int64_t k = 1; k < tx[x].count; k++)
            acc = _mm_add_ps(acc, _mm_mul_ps(_mm_set1_ps(w[k]), _mm_loadu_ps(v + k * C)));
        if (C == 4 || x + 1 < p->Wo) {
            _mm_storeu_ps(out + x * C, acc);
        } else {
            float last[4];
            _mm_storeu_ps(last, acc);
            memcpy(out + x * C, last, 3 * sizeof(float));
        }
    }
    return 1;
}
#else
static int hpass_float_sse2(const aug__resize_plan *p, const aug__resize_image *m, int64_t C, const float *row,
                            float *out) {
    (void)p, (void)m, (void)C, (void)row, (void)out;
    return 0;
}
#endif

/* Vertical sum of the rows h[0 .. n) (each len values apart by `pitch`). */
#define RS_VPASS(T, FIRST, NEXT)                                                                        \
    static void vpass_##T(const T *w, int64_t n, const T *h, int64_t pitch, int64_t len, T *out) {      \
        for (int64_t j = 0; j < len; j++) out[j] = FIRST(w[0], h[j]);                                   \
        for (int64_t k = 1; k < n; k++) {                                                               \
            const T wk = w[k], *hk = h + k * pitch;                                                     \
            for (int64_t j = 0; j < len; j++) out[j] = NEXT(out[j], wk, hk[j]);                         \
        }                                                                                               \
    }
RS_VPASS(float, aug__resize_first_f32, aug__resize_next_f32)
RS_VPASS(double, aug__resize_first_f64, aug__resize_next_f64)
#undef RS_VPASS

/* Whether a row's (W, C) values lie packed in C order (channel stride one element). */
static int packed(int64_t sc, int64_t sw, int64_t C, int64_t es) { return (C == 1 || sc == es) && sw == C * es; }

/* Source row r converted to the compute type and filtered horizontally into out. */
static void hpass_row(const rs_ctx *k, int64_t r, char *row, char *out) {
    const aug__resize_image *m = k->m;
    const char *src = m->src + r * m->sh;
    int64_t es = aug__dtype_size((aug_dtype)m->src_dtype);
    if (packed(m->sc, m->sw, k->C, es))
        aug__convert(src, es, m->src_dtype, row, k->ces, k->ct, m->W * k->C);
    else
        for (int64_t c = 0; c < k->C; c++)
            aug__convert(src + c * m->sc, m->sw, m->src_dtype, row + c * k->ces, k->C * k->ces, k->ct, m->W);
    if (k->ct == AUG_FLOAT32) {
        if (!hpass_float_sse2(k->p, m, k->C, (const float *)(void *)row, (float *)(void *)out))
            hpass_float(k->p, m, k->C, (const float *)(void *)row, (float *)(void *)out);
    } else {
        hpass_double(k->p, m, k->C, (const double *)(void *)row, (double *)(void *)out);
    }
}

static int64_t round16(int64_t v) { return (v + 15) & ~(int64_t)15; }

/* A strip of output rows [y0, y1): the source rows its windows read are
 * filtered horizontally into a strip buffer (kept in cache; rows shared with
 * the neighbouring strips are filtered again there, with the same result),
 * then each output row is the y-weighted sum of its rows, stored. */
static void strip_task(void *ctx, int64_t task, int worker) {
    (void)worker;
    rs_ctx *k = ctx;
    const aug__resize_plan *p = k->p;
    const aug__resize_image *m = k->m;
    const aug__resize_tap *ty = p->taps + m->ytab;
    int64_t y0 = task * k->rows_per_task, y1 = y0 + k->rows_per_task, len = k->Wo * k->C;
    if (y1 > k->Ho) y1 = k->Ho;
    int64_t lo = ty[y0].first, hi = lo;
    for (int64_t y = y0; y < y1; y++) {
        lo = ty[y].first < lo ? ty[y].first : lo;
        hi = ty[y].first + ty[y].count > hi ? ty[y].first + ty[y].count : hi;
    }
    int64_t span = hi - lo;
    int64_t rowb = round16(m->W * k->C * k->ces + RS_SLACK), hb = round16(span * len * k->ces + RS_SLACK);
    int64_t accb = round16(len * k->ces);
    char *mem = malloc((size_t)(rowb + hb + accb + span));
    if (!mem) {
        __atomic_store_n(&k->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    char *row = mem, *hbuf = mem + rowb, *acc = hbuf + hb, *used = acc + accb;
    memset(used, 0, (size_t)span);
    for (int64_t y = y0; y < y1; y++) memset(used + (ty[y].first - lo), 1, (size_t)ty[y].count);
    for (int64_t r = 0; r < span; r++)
        if (used[r]) hpass_row(k, lo + r, row, hbuf + r * len * k->ces);
    int64_t des = aug__dtype_size((aug_dtype)k->dt);
    for (int64_t y = y0; y < y1; y++) {
        const char *h = hbuf + (ty[y].first - lo) * len * k->ces;
        if (k->ct == AUG_FLOAT32)
            vpass_float(p->w32 + ty[y].woff, ty[y].count, (const float *)(const void *)h, len, len,
                        (float *)(void *)acc);
        else
            vpass_double(p->w64 + ty[y].woff, ty[y].count, (const double *)(const void *)h, len, len,
                         (double *)(void *)acc);
        char *dst = m->dst + y * m->dh;
        if (packed(m->dc, m->dw, k->C, des))
            aug__convert(acc, k->ces, k->ct, dst, des, k->dt, len);
        else
            for (int64_t c = 0; c < k->C; c++)
                aug__convert(acc + c * k->ces, k->C * k->ces, k->ct, dst + c * m->dc, m->dw, k->dt, k->Wo);
    }
    free(mem);
}

/* One packed output row of a gather image: pixels of N bytes copied from their taps. */
#define RS_GATHER(N)                                                                                           \
    for (int64_t x = 0; x < k->Wo; x++) memcpy(drow + x * (N), srow + tx[x].first * (N), (size_t)(N))

/* The copy of tapped elements: output row y of a gather image. */
static void gather_task(void *ctx, int64_t task, int worker) {
    (void)worker;
    rs_ctx *k = ctx;
    const aug__resize_plan *p = k->p;
    const aug__resize_image *m = k->m;
    const aug__resize_tap *tx = p->taps + m->xtab, *ty = p->taps + m->ytab;
    int64_t y0 = task * k->rows_per_task, y1 = y0 + k->rows_per_task;
    if (y1 > k->Ho) y1 = k->Ho;
    int same = m->src_dtype == k->dt;
    int64_t es = aug__dtype_size((aug_dtype)k->dt);
    int pk = same && packed(m->sc, m->sw, k->C, es) && packed(m->dc, m->dw, k->C, es);
    const int64_t px = k->C * es;
    for (int64_t y = y0; y < y1; y++) {
        const char *srow = m->src + ty[y].first * m->sh;
        char *drow = m->dst + y * m->dh;
        if (pk && px == 3) {
            for (int64_t x = 0; x < k->Wo; x++) {
                const char *s = srow + tx[x].first * 3;
                drow[3 * x] = s[0], drow[3 * x + 1] = s[1], drow[3 * x + 2] = s[2];
            }
            continue;
        }
        if (pk && px == 1) {
            for (int64_t x = 0; x < k->Wo; x++) drow[x] = srow[tx[x].first];
            continue;
        }
        if (pk) { /* a constant size inlines the copy (16-bit RGB: 6 bytes, 3x faster than the call) */
            switch (px) {
            case 2: RS_GATHER(2); break;
            case 4: RS_GATHER(4); break;
            case 6: RS_GATHER(6); break;
            case 8: RS_GATHER(8); break;
            case 12: RS_GATHER(12); break;
            default: RS_GATHER(px); break;
            }
            continue;
        }
        for (int64_t x = 0; x < k->Wo; x++) {
            const char *s = srow + tx[x].first * m->sw;
            char *d = drow + x * m->dw;
            if (!same) {
                aug__convert(s, m->sc, m->src_dtype, d, m->dc, k->dt, k->C);
                continue;
            }
            switch (es) {
            case 1:
                for (int64_t c = 0; c < k->C; c++) d[c * m->dc] = s[c * m->sc];
                break;
            default:
                for (int64_t c = 0; c < k->C; c++) memcpy(d + c * m->dc, s + c * m->sc, (size_t)es);
                break;
            }
        }
    }
}

static aug_status resize_image(const aug__resize_plan *p, const aug__resize_image *m) {
    rs_ctx k = {0};
    k.p = p, k.m = m, k.C = p->C, k.Wo = p->Wo, k.Ho = p->Ho;
    k.ct = m->compute, k.dt = p->dst_dtype;
    k.ces = m->compute == AUG_FLOAT32 ? 4 : 8;
    int64_t per_row = p->Wo * p->C > 0 ? p->Wo * p->C : 1;
    if (m->gather) {
        k.rows_per_task = RS_TASK_VALUES / per_row > 0 ? RS_TASK_VALUES / per_row : 1;
        aug__parallel_for((p->Ho + k.rows_per_task - 1) / k.rows_per_task, gather_task, &k);
        return AUG_OK;
    }
    /* strips of RS_STRIP_VALUES output values, but at least RS_MIN_STRIPS of them
     * where the image has the rows (so a few threads share one image evenly) */
    int64_t rpt = RS_STRIP_VALUES / per_row > 0 ? RS_STRIP_VALUES / per_row : 1;
    int64_t most = (p->Ho + RS_MIN_STRIPS - 1) / RS_MIN_STRIPS;
    k.rows_per_task = rpt < most ? rpt : most > 0 ? most : 1;
    aug__parallel_for((p->Ho + k.rows_per_task - 1) / k.rows_per_task, strip_task, &k);
    return k.failed ? AUG__NOMEM(p->func) : AUG_OK;
}

aug_status aug__cpu_resize(const aug__resize_plan *p) {
    aug_status st = AUG_OK;
    for (int64_t i = 0; i < p->n && !st; i++) st = resize_image(p, &p->img[i]);
    return st;
}
