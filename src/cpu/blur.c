/* cpu/blur.c: the CPU box and Gaussian blurs (semantics §13, manual 3.1.4.4).
 *
 * Both are separable passes with replicated edges over the taps of core/blur.h.
 * A task is a block of rows of one (image, channel) plane: the input rows the
 * block reads are converted once into an accumulation type T, then for each
 * output row the vertical pass sums tap-weighted rows into a row buffer, the
 * buffer is edge-padded, and the horizontal pass sums tap-weighted shifts of it.
 * Only the final value is rounded (saturate_cast into the output dtype).
 *
 * T is the plan's accumulation type (core/blur.c picks it). The box blur adds
 * weights of 1 (exact integer sums) and divides the sum by ksize^2 once, in
 * double, so an integer box blur is the exact mean rounded half to even. The row loops take 4 taps per pass over the row (fewer
 * loads and stores of the accumulator) and are compiled twice, portable and AVX2
 * (taken when the CPU has it); -ffp-contract=off keeps both bit-identical. Every
 * output row is computed the same way whatever the task split, so results do not
 * depend on the thread count. */
#include <stdlib.h>
#include <string.h>
#include "cpu.h"
#include "core/blur.h"
#include "blur_uint8.h"
#include "cpu/convert.h"
#include "cpu/pool.h"
#include "cpu/simd.h"
#include "core/error.h"
#include "core/tensor_impl.h"

/* Rows per task: enough that the ksize - 1 extra rows a block converts stay a
 * small overhead, few enough that one 480-row plane feeds several threads. */
#define BLUR_ROWS 32

typedef struct {
    const aug__blur_plan *plan;
    int dtype, acc;          /* input/output dtype; AUG_FLOAT32 or AUG_FLOAT64 */
    int64_t esize;
    const aug__taps *tv, *th;/* per image (nt entries) */
    const int64_t *ks;       /* kernel size per image (1: copy) */
    int nt;                  /* 1: the same taps for every image; else n */
    double box_div;          /* box: ksize^2; gaussian: 0 */
    int64_t rows, blocks;    /* rows per task, blocks per plane */
    int u8;                  /* the plan takes cpu/blur_uint8.c (BOX8, GAUSS8) */
    int failed;
} blur_ctx;

#define AUG__ALWAYS_INLINE static inline __attribute__((always_inline))

/* Row kernels for T = float (f) and double (d). acc = (first ? 0 : acc) + sum of
 * w[j] * p[j][x] over 4 taps; hconv4 does the same over shifts of one row. */
#define BLUR_KERNELS(T, S)                                                                                   \
    AUG__ALWAYS_INLINE void vsum4_##S(T *restrict acc, const T *restrict p0, const T *restrict p1,           \
                                      const T *restrict p2, const T *restrict p3, T w0, T w1, T w2, T w3,    \
                                      int64_t n, int first) {                                                \
        if (first)                                                                                           \
            for (int64_t x = 0; x < n; x++) acc[x] = w0 * p0[x] + w1 * p1[x] + w2 * p2[x] + w3 * p3[x];     \
        else                                                                                                 \
            for (int64_t x = 0; x < n; x++) acc[x] += w0 * p0[x] + w1 * p1[x] + w2 * p2[x] + w3 * p3[x];    \
    }                                                                                                        \
    AUG__ALWAYS_INLINE void vsum1_##S(T *restrict acc, const T *restrict p0, T w0, int64_t n, int first) {   \
        if (first)                                                                                           \
            for (int64_t x = 0; x < n; x++) acc[x] = w0 * p0[x];                                             \
        else                                                                                                 \
            for (int64_t x = 0; x < n; x++) acc[x] += w0 * p0[x];                                            \
    }                                                                                                        \
    /* One output row: vertical taps from `rows` (row r at rows + (r - r0) * W), tails from first/last,   \
     * padding into hb, horizontal taps into out. */                                                          \
    AUG__ALWAYS_INLINE void row_##S(const T *rows, int64_t r0, const T *first_row, const T *last_row,        \
                                    int64_t y, int64_t H, int64_t W, const T *wv, const aug__taps *tv,       \
                                    const T *wh, const aug__taps *th, T *vrow, T *hb, T *out) {              \
        int64_t nv = tv->hi - tv->lo + 1, nh = th->hi - th->lo + 1, j = 0;                                   \
        const T *p[4];                                                                                       \
        for (; j + 4 <= nv; j += 4) {                                                                        \
            for (int q = 0; q < 4; q++) {                                                                    \
                int64_t r = y + tv->lo + j + q;                                                              \
                r = r < 0 ? 0 : (r >= H ? H - 1 : r);                                                       \
                p[q] = rows + (r - r0) * W;                                                                  \
            }                                                                                                \
            vsum4_##S(vrow, p[0], p[1], p[2], p[3], wv[j], wv[j + 1], wv[j + 2], wv[j + 3], W, j == 0);      \
        }                                                                                                    \
        for (; j < nv; j++) {                                                                                \
            int64_t r = y + tv->lo + j;                                                                      \
            r = r < 0 ? 0 : (r >= H ? H - 1 : r);                                                            \
            vsum1_##S(vrow, rows + (r - r0) * W, wv[j], W, j == 0);                                          \
        }                                                                                                    \
        if (tv->tail_lo != 0.0) vsum1_##S(vrow, first_row, (T)tv->tail_lo, W, 0);                            \
        if (tv->tail_hi != 0.0) vsum1_##S(vrow, last_row, (T)tv->tail_hi, W, 0);                             \
        int64_t left = -th->lo;                                                                              \
        for (int64_t x = 0; x < left; x++) hb[x] = vrow[0];                                                  \
        memcpy(hb + left, vrow, (size_t)W * sizeof(T));                                                      \
        for (int64_t x = left + W; x < W + nh - 1; x++) hb[x] = vrow[W - 1];                                 \
        j = 0;                                                                                               \
        for (; j + 4 <= nh; j += 4)                                                                          \
            vsum4_##S(out, hb + j, hb + j + 1, hb + j + 2, hb + j + 3, wh[j], wh[j + 1], wh[j + 2], wh[j + 3],\
                      W, j == 0);                                                                            \
        for (; j < nh; j++) vsum1_##S(out, hb + j, wh[j], W, j == 0);                                        \
        T c = (T)th->tail_lo * vrow[0] + (T)th->tail_hi * vrow[W - 1];                                       \
        if (th->tail_lo != 0.0 || th->tail_hi != 0.0)                                                        \
            for (int64_t x = 0; x < W; x++) out[x] += c;                                                     \
    }                                                                                                        \
    static void rows_##S##_portable(const T *rows, int64_t r0, const T *f, const T *l, int64_t y, int64_t H,  \
                                    int64_t W, const T *wv, const aug__taps *tv, const T *wh,                \
                                    const aug__taps *th, T *vrow, T *hb, T *out) {                           \
        row_##S(rows, r0, f, l, y, H, W, wv, tv, wh, th, vrow, hb, out);                                     \
    }                                                                                                        \
    BLUR_AVX2_CLONE(T, S)

#if AUG__X86
#define BLUR_AVX2_CLONE(T, S)                                                                                \
    __attribute__((target("avx2"))) static void rows_##S##_avx2(                                            \
        const T *rows, int64_t r0, const T *f, const T *l, int64_t y, int64_t H, int64_t W, const T *wv,     \
        const aug__taps *tv, const T *wh, const aug__taps *th, T *vrow, T *hb, T *out) {                     \
        row_##S(rows, r0, f, l, y, H, W, wv, tv, wh, th, vrow, hb, out);                                     \
    }
#else
#define BLUR_AVX2_CLONE(T, S)
#endif

BLUR_KERNELS(float, f)
BLUR_KERNELS(double, d)

/* One block of output rows [y0, y1) of one plane, accumulating in T. Returns 0,
 * or -1 when scratch memory runs out. */
#define BLUR_BLOCK(T, S, CT)                                                                                  \
    static int block_##S(const blur_ctx *k, const aug__taps *tv, const aug__taps *th, const char *src,        \
                         char *dst, int64_t y0, int64_t y1) {                                                 \
        int64_t H = k->plan->h, W = k->plan->w, es = k->esize;                                               \
        int64_t r0 = y0 + tv->lo < 0 ? 0 : y0 + tv->lo, r1 = y1 - 1 + tv->hi >= H ? H - 1 : y1 - 1 + tv->hi;  \
        int64_t nr = r1 - r0 + 1, nv = tv->hi - tv->lo + 1, nh = th->hi - th->lo + 1;                        \
        int tails = tv->tail_lo != 0.0 || tv->tail_hi != 0.0;                                                \
        size_t count = (size_t)((nr + (tails ? 2 : 0) + 2) * W + (W + nh - 1) + nv + nh);                    \
        T *buf = malloc(count * sizeof(T));                                                                  \
        double *q = k->box_div != 0.0 ? malloc((size_t)W * sizeof(double)) : NULL;                           \
        if (!buf || (k->box_div != 0.0 && !q)) {                                                             \
            free(buf);                                                                                       \
            free(q);                                                                                         \
            return -1;                                                                                       \
        }                                                                                                    \
        T *rows = buf, *extra = rows + nr * W, *vrow = extra + (tails ? 2 * W : 0), *orow = vrow + W;        \
        T *hb = orow + W, *wv = hb + W + nh - 1, *wh = wv + nv;                                              \
        for (int64_t j = 0; j < nv; j++) wv[j] = (T)tv->w[j];                                                \
        for (int64_t j = 0; j < nh; j++) wh[j] = (T)th->w[j];                                                \
        aug__convert(src + r0 * W * es, es, k->dtype, (char *)rows, sizeof(T), CT, nr * W);                   \
        if (tails) {                                                                                         \
            aug__convert(src, es, k->dtype, (char *)extra, sizeof(T), CT, W);                                \
            aug__convert(src + (H - 1) * W * es, es, k->dtype, (char *)(extra + W), sizeof(T), CT, W);        \
        }                                                                                                    \
        int avx2 = aug__simd_level() >= AUG__SIMD_AVX2;                                                      \
        for (int64_t y = y0; y < y1; y++) {                                                                  \
            if (avx2) BLUR_CALL_AVX2(S, rows, r0, extra, extra + W, y, H, W, wv, tv, wh, th, vrow, hb, orow); \
            else rows_##S##_portable(rows, r0, extra, extra + W, y, H, W, wv, tv, wh, th, vrow, hb, orow);   \
            char *o = dst + y * W * es;                                                                      \
            if (q) {                                                                                         \
                for (int64_t x = 0; x < W; x++) q[x] = (double)orow[x] / k->box_div;                         \
                aug__convert((const char *)q, sizeof(double), AUG_FLOAT64, o, es, k->dtype, W);              \
            } else {                                                                                         \
                aug__convert((const char *)orow, sizeof(T), CT, o, es, k->dtype, W);                         \
            }                                                                                                \
        }                                                                                                    \
        free(q);                                                                                             \
        free(buf);                                                                                           \
        return 0;                                                                                            \
    }

#if AUG__X86
#define BLUR_CALL_AVX2(S, ...) rows_##S##_avx2(__VA_ARGS__)
#else
#define BLUR_CALL_AVX2(S, ...) rows_##S##_portable(__VA_ARGS__)
#endif

BLUR_BLOCK(float, f, AUG_FLOAT32)
BLUR_BLOCK(double, d, AUG_FLOAT64)

static void blur_task(void *ctx, int64_t task, int worker) {
    (void)worker;
    blur_ctx *k = ctx;
    const aug__blur_plan *p = k->plan;
    int64_t plane = task / k->blocks, blk = task % k->blocks, img = plane / p->c;
    int64_t y0 = blk * k->rows, y1 = y0 + k->rows < p->h ? y0 + k->rows : p->h;
    int64_t pbytes = p->h * p->w * k->esize;
    const char *src = p->src + plane * pbytes;
    char *dst = p->dst + plane * pbytes;
    int t = k->nt == 1 ? 0 : (int)img;
    if (k->ks[t] == 1) { /* sigma <= 0 or max_ksize 1: an exact copy */
        int64_t rb = p->w * k->esize;
        memcpy(dst + y0 * rb, src + y0 * rb, (size_t)((y1 - y0) * rb));
        return;
    }
    int r, level = aug__simd_level();
    uint8_t flip = k->dtype == AUG_INT8 ? 0x80 : 0;
    if (p->path == AUG__BLUR_GAUSS8)
        r = aug__blur_gauss8_rows(&k->tv[t], &k->th[t], (const uint8_t *)src, (uint8_t *)dst, p->h, p->w, y0, y1, flip,
                                  level);
    else if (p->path == AUG__BLUR_BOX8)
        r = aug__blur_box8_rows(p->ksize, (const uint8_t *)src, (uint8_t *)dst, p->h, p->w, y0, y1, flip, level);
    else
        r = k->acc == AUG_FLOAT32 ? block_f(k, &k->tv[t], &k->th[t], src, dst, y0, y1)
                                  : block_d(k, &k->tv[t], &k->th[t], src, dst, y0, y1);
    if (r) __atomic_store_n(&k->failed, 1, __ATOMIC_RELAXED);
}

aug_status aug__cpu_blur(const aug__blur_plan *plan) {
    const char *func = plan->func;
    if (plan->path == AUG__BLUR_PIL8) return aug__cpu_blur_pil(plan);
    const int64_t n = plan->n;
    const int box = plan->kind == AUG__BLUR_BOX;
    blur_ctx k = {plan, (int)plan->in->dtype, plan->acc,
                  aug__dtype_size(plan->in->dtype), plan->tv, plan->th, plan->ks, (int)plan->nt,
                  box ? (double)plan->ksize * (double)plan->ksize : 0.0, BLUR_ROWS, 0, 0, 0};
    int64_t planes = n * plan->c, threads = aug_get_num_threads();
    k.u8 = plan->path != AUG__BLUR_GENERIC;
    if (k.u8) {
        /* the 8-bit kernels read the input rows directly (no per-block
         * conversion to amortise): one band per plane on one thread, else
         * about 4 bands per thread for balance, at least BLUR_ROWS / 2 rows */
        int64_t want = threads > 1 ? 4 * threads : 1, bands = (want + planes - 1) / planes;
        k.rows = (plan->h + bands - 1) / bands;
        if (k.rows < BLUR_ROWS / 2) k.rows = BLUR_ROWS / 2;
    } else if (planes * ((plan->h + k.rows - 1) / k.rows) < 8 * threads) {
        /* enough tasks for the pool: shrink the blocks for few, small planes */
        k.rows = planes * plan->h / (8 * threads);
        if (k.rows < 4) k.rows = 4;
    }
    k.blocks = (plan->h + k.rows - 1) / k.rows;
    aug__parallel_for(planes * k.blocks, blur_task, &k);
    return k.failed ? AUG__NOMEM(func) : AUG_OK;
}
