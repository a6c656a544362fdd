/* cpu/blur_pil.c: PIL's GaussianBlur on the CPU (the AUG__BLUR_PIL8 path of
 * core/blur.h; semantics §13): per (image, channel) plane, 3 box passes along
 * each row, then 3 down the columns, each pass a running window sum rounded to
 * uint8 ((ww * sum + fw * (the two next values) + 2^23) >> 24). A row pass reads
 * a line copy with r + 1 edge values of margin (or clamps indices when r + 1
 * exceeds the width); a column pass keeps one running sum per column and moves
 * whole rows, which the compiler vectorises. Integer arithmetic throughout: the
 * result does not depend on the thread count or the SIMD level. */
#include <stdlib.h>
#include <string.h>
#include "cpu.h"
#include "core/blur.h"
#include "cpu/pool.h"
#include "core/error.h"

#define HALF ((uint32_t)1 << 23)

static inline int64_t clampi(int64_t i, int64_t n) { return i < 0 ? 0 : i >= n ? n - 1 : i; }

static inline uint8_t box_value(uint32_t sum, uint32_t edges, const aug__pilbox *b) {
    return (uint8_t)((sum * b->ww + edges * b->fw + HALF) >> 24);
}

/* One pass over a line x of n values into o, indices clamped (any r). */
static void line_clamped(const uint8_t *x, uint8_t *o, int64_t n, const aug__pilbox *b) {
    const int64_t r = b->r;
    uint32_t sum = (uint32_t)(r + 1) * x[0];
    for (int64_t k = 1; k <= r && k < n; k++) sum += x[k];
    if (r > n - 1) sum += (uint32_t)(r - (n - 1)) * x[n - 1];
    for (int64_t j = 0; j < n; j++) {
        const uint32_t in = x[clampi(j + r + 1, n)];
        o[j] = box_value(sum, x[clampi(j - r - 1, n)] + in, b);
        sum += in - x[clampi(j - r, n)];
    }
}

/* The same over p[0 .. n - 1] whose r + 1 values either side are the edge values. */
static void line_padded(const uint8_t *p, uint8_t *o, int64_t n, const aug__pilbox *b) {
    const int64_t r = b->r;
    uint32_t sum = 0;
    for (int64_t k = -r; k <= r; k++) sum += p[k];
    for (int64_t j = 0; j < n; j++) {
        o[j] = box_value(sum, (uint32_t)p[j - r - 1] + p[j + r + 1], b);
        sum += (uint32_t)p[j + r + 1] - p[j - r];
    }
}

static inline void pad(uint8_t *p, int64_t n, int64_t m) {
    memset(p - m, p[0], (size_t)m);
    memset(p + n, p[n - 1], (size_t)m);
}

/* 3 passes along each of the H rows of src (W wide) into dst; a and b hold W + 2 (r + 1). */
static void rows3(const uint8_t *src, uint8_t *dst, int64_t H, int64_t W, const aug__pilbox *bx, uint8_t *a,
                  uint8_t *b) {
    const int64_t m = bx->r + 1;
    for (int64_t y = 0; y < H; y++) {
        const uint8_t *in = src + y * W;
        uint8_t *out = dst + y * W;
        if (m > W) {
            line_clamped(in, a, W, bx);
            line_clamped(a, b, W, bx);
            line_clamped(b, out, W, bx);
            continue;
        }
        memcpy(a + m, in, (size_t)W);
        pad(a + m, W, m);
        line_padded(a + m, b + m, W, bx);
        pad(b + m, W, m);
        line_padded(b + m, a + m, W, bx);
        pad(a + m, W, m);
        line_padded(a + m, out, W, bx);
    }
}

/* One pass down the columns of src (H x W) into dst; acc holds W sums. */
static void cols(const uint8_t *restrict src, uint8_t *restrict dst, int64_t H, int64_t W, const aug__pilbox *b,
                 uint32_t *restrict acc) {
    const int64_t r = b->r;
    const uint32_t ww = b->ww, fw = b->fw;
    for (int64_t x = 0; x < W; x++) acc[x] = (uint32_t)(r + 1) * src[x];
    for (int64_t k = 1; k <= r && k < H; k++)
        for (int64_t x = 0; x < W; x++) acc[x] += src[k * W + x];
    if (r > H - 1)
        for (int64_t x = 0; x < W; x++) acc[x] += (uint32_t)(r - (H - 1)) * src[(H - 1) * W + x];
    for (int64_t y = 0; y < H; y++) {
        const uint8_t *restrict lo = src + clampi(y - r - 1, H) * W, *restrict hi = src + clampi(y + r + 1, H) * W;
        const uint8_t *restrict gone = src + clampi(y - r, H) * W; /* leaves the window */
        uint8_t *restrict o = dst + y * W;
        for (int64_t x = 0; x < W; x++) {
            const uint32_t s = acc[x];
            o[x] = (uint8_t)((s * ww + ((uint32_t)lo[x] + hi[x]) * fw + HALF) >> 24);
            acc[x] = s + hi[x] - gone[x];
        }
    }
}

typedef struct {
    const aug__blur_plan *plan;
    int failed;
} pil_ctx;

static void pil_task(void *ctx, int64_t plane, int worker) {
    (void)worker;
    pil_ctx *k = ctx;
    const aug__blur_plan *p = k->plan;
    const int64_t H = p->h, W = p->w, hw = H * W, img = plane / p->c;
    const aug__pilbox *b = &p->pil[p->nt == 1 ? 0 : img];
    const uint8_t *src = (const uint8_t *)p->src + plane * hw;
    uint8_t *dst = (uint8_t *)p->dst + plane * hw;
    if (b->copy) {
        memcpy(dst, src, (size_t)hw);
        return;
    }
    const int64_t m = b->r + 1 > W ? 0 : b->r + 1, line = W + 2 * m;
    uint8_t *t = malloc((size_t)(2 * hw + 2 * line));
    uint32_t *acc = malloc((size_t)W * sizeof(uint32_t));
    if (!t || !acc) {
        free(t);
        free(acc);
        __atomic_store_n(&k->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    uint8_t *p1 = t, *p2 = t + hw, *la = t + 2 * hw, *lb = la + line;
    rows3(src, p1, H, W, b, la, lb);
    cols(p1, p2, H, W, b, acc);
    cols(p2, p1, H, W, b, acc);
    cols(p1, dst, H, W, b, acc);
    free(acc);
    free(t);
}

aug_status aug__cpu_blur_pil(const aug__blur_plan *plan) {
    pil_ctx k = {plan, 0};
    aug__parallel_for(plan->n * plan->c, pil_task, &k);
    return k.failed ? AUG__NOMEM(plan->func) : AUG_OK;
}
