/* cpu/blur_pil.c: PIL's GaussianBlur on the CPU (the AUG__BLUR_PIL8 path of
 * core/blur.h; semantics §13): per (image, channel) plane, 3 box passes along
 * each row, then 3 down the columns, each pass a running window sum rounded to
 * uint8 ((ww * sum + fw * (the two next values) + 2^23) >> 24). Every pass is a
 * column pass, which keeps one running sum per column and moves whole rows (the
 * compiler vectorises it): the row passes run down the columns of the plane's
 * transpose, which is transposed back. Integer arithmetic throughout: the result
 * does not depend on the thread count or the SIMD level (portable or AVX2). */
#include <stdlib.h>
#include <string.h>
#include "cpu.h"
#include "core/blur.h"
#include "cpu/pool.h"
#include "cpu/simd.h"
#include "core/error.h"

#define HALF ((uint32_t)1 << 23)

static inline int64_t clampi(int64_t i, int64_t n) { return i < 0 ? 0 : i >= n ? n - 1 : i; }

/* dst (W x H) = the transpose of src (H x W), in 32 x 32 blocks. */
static void transpose(const uint8_t *restrict src, uint8_t *restrict dst, int64_t H, int64_t W) {
    enum { B = 32 };
    for (int64_t y0 = 0; y0 < H; y0 += B)
        for (int64_t x0 = 0; x0 < W; x0 += B) {
            const int64_t y1 = y0 + B < H ? y0 + B : H, x1 = x0 + B < W ? x0 + B : W;
            for (int64_t x = x0; x < x1; x++)
                for (int64_t y = y0; y < y1; y++) dst[x * H + y] = src[y * W + x];
        }
}

/* One pass down the columns of src (H x W) into dst; acc holds W sums. Compiled
 * twice (portable and AVX2, chosen by aug__simd_level), the same integer operations. */
static inline __attribute__((always_inline)) void cols_body(const uint8_t *restrict src, uint8_t *restrict dst,
                                                            int64_t H, int64_t W, const aug__pilbox *b,
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

static void cols_portable(const uint8_t *src, uint8_t *dst, int64_t H, int64_t W, const aug__pilbox *b,
                          uint32_t *acc) {
    cols_body(src, dst, H, W, b, acc);
}

#if AUG__X86
__attribute__((target("avx2"))) static void cols_avx2(const uint8_t *src, uint8_t *dst, int64_t H, int64_t W,
                                                      const aug__pilbox *b, uint32_t *acc) {
    cols_body(src, dst, H, W, b, acc);
}
#endif

typedef void (*cols_fn)(const uint8_t *, uint8_t *, int64_t, int64_t, const aug__pilbox *, uint32_t *);

typedef struct {
    const aug__blur_plan *plan;
    cols_fn cols;
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
    const int64_t wide = H > W ? H : W;
    uint8_t *t = calloc(2, (size_t)hw); /* two planes (zeroed: gcc cannot see transpose fill them) */
    uint32_t *acc = malloc((size_t)wide * sizeof(uint32_t));
    if (!t || !acc) {
        free(t);
        free(acc);
        __atomic_store_n(&k->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    uint8_t *p1 = t, *p2 = t + hw;
    const cols_fn cols = k->cols;
    transpose(src, p1, H, W); /* the row passes as column passes of the transpose (W x H) */
    cols(p1, p2, W, H, b, acc);
    cols(p2, p1, W, H, b, acc);
    cols(p1, p2, W, H, b, acc);
    transpose(p2, p1, W, H);
    cols(p1, p2, H, W, b, acc);
    cols(p2, p1, H, W, b, acc);
    cols(p1, dst, H, W, b, acc);
    free(acc);
    free(t);
}

aug_status aug__cpu_blur_pil(const aug__blur_plan *plan) {
    pil_ctx k = {plan, cols_portable, 0};
#if AUG__X86
    if (aug__simd_level() >= AUG__SIMD_AVX2) k.cols = cols_avx2;
#endif
    aug__parallel_for(plan->n * plan->c, pil_task, &k);
    return k.failed ? AUG__NOMEM(plan->func) : AUG_OK;
}
