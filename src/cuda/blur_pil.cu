/* cuda/blur_pil.cu: PIL's GaussianBlur on the GPU (the AUG__BLUR_PIL8 path of
 * core/blur.h; semantics §13), the CPU's integer arithmetic (cpu/blur_pil.c), so
 * results are the CPU's bit for bit. As on the CPU, every pass runs down the
 * columns (one thread per column, adjacent threads on adjacent bytes of a row:
 * coalesced), and the row passes run down the columns of each plane's transpose:
 *
 *   src --transpose--> tmp; 3 column passes tmp -> dst -> tmp -> dst (W x H planes);
 *   dst --transpose--> tmp; 3 column passes tmp -> dst -> tmp -> dst (H x W planes).
 *
 * Before, one kernel per pass took one line per thread, so in the 3 row passes
 * the 32 lanes of a warp read 32 different rows (one byte of each 32-byte
 * sector). The transpose stages 32 x 32 tiles through shared memory: rows are
 * read and written 32 bytes at a time. A thread runs its column's three passes
 * one after the other (each column depends on itself only), so each phase is one
 * launch. Each pass is a running window sum with indices clamped, rounded to
 * uint8; the window sums are integers, equal to the CPU's in any order. The
 * loops stay loops (AUG_NO_UNROLL): unrolled, the column kernel took 64 registers
 * (50% occupancy at 256 threads), as loops 40 (75%; 48 on sm_75), the transpose 30.
 * One temporary of the batch's size; the boxes (the plan's nt aug__pilbox) are
 * uploaded once. */
#include <string.h>
#include "cuda/values.cuh"
#include "core/blur.h"

enum { PIL_TILE = 32 };

typedef struct pil_args {
    const uint8_t *src;
    uint8_t *dst, *tmp;
    const aug__pilbox *box; /* nt entries */
    int64_t nt, c;
    int64_t planes, h, w;   /* planes of h x w values (a transpose: of the source) */
} pil_args;

AUG_DEV int64_t pil_clamp(int64_t v, int64_t n) { return v < 0 ? 0 : (v >= n ? n - 1 : v); }

/* dst's planes (w x h) = the transposes of src's (h x w), a 32 x 32 tile per block
 * at a time: any block size, consecutive threads on consecutive bytes of a row. */
AUG_GLOBAL void aug__k_blur_pil_t(pil_args a) {
    AUG_SHARED(uint8_t, tile, PIL_TILE * (PIL_TILE + 1));
    const int64_t h = a.h, w = a.w, hw = h * w, ty = (h + PIL_TILE - 1) / PIL_TILE, tx = (w + PIL_TILE - 1) / PIL_TILE;
    for (int64_t t = blockIdx.x; t < a.planes * ty * tx; t += gridDim.x) {
        const int64_t q = t / (ty * tx), rem = t - q * ty * tx, y0 = rem / tx * PIL_TILE, x0 = rem % tx * PIL_TILE;
        const uint8_t *src = a.src + q * hw;
        uint8_t *dst = a.dst + q * hw;
        AUG_NO_UNROLL
        for (int i = (int)threadIdx.x; i < PIL_TILE * PIL_TILE; i += (int)blockDim.x) {
            const int64_t y = y0 + i / PIL_TILE, x = x0 + i % PIL_TILE;
            if (y < h && x < w) tile[i / PIL_TILE * (PIL_TILE + 1) + i % PIL_TILE] = AUG_LD(src + y * w + x);
        }
        __syncthreads();
        AUG_NO_UNROLL
        for (int i = (int)threadIdx.x; i < PIL_TILE * PIL_TILE; i += (int)blockDim.x) {
            const int64_t x = x0 + i / PIL_TILE, y = y0 + i % PIL_TILE; /* dst row x, column y */
            if (y < h && x < w) AUG_ST(dst + x * h + y, tile[i % PIL_TILE * (PIL_TILE + 1) + i / PIL_TILE]);
        }
        __syncthreads(); /* the next tile overwrites the tile */
    }
}

/* One pass down a column of n values s apart, x into o: out[j] = (ww * sum_{|k| <= r}
 * x[j + k] + fw * (x[j - r - 1] + x[j + r + 1]) + 2^23) >> 24, indices clamped; the
 * value leaving the window is the next step's x[j - r - 1]. */
AUG_DEV void pil_col(const uint8_t *x, uint8_t *o, int64_t n, int64_t s, const aug__pilbox &b) {
    if (b.copy) {
        for (int64_t j = 0; j < n; j++) AUG_ST(o + j * s, AUG_LD(x + j * s));
        return;
    }
    const int64_t r = b.r;
    uint32_t lo = AUG_LD(x), sum = (uint32_t)(r + 1) * lo;
    AUG_NO_UNROLL
    for (int64_t k = 1; k <= r && k < n; k++) sum += AUG_LD(x + k * s);
    if (r > n - 1) sum += (uint32_t)(r - (n - 1)) * AUG_LD(x + (n - 1) * s);
    AUG_NO_UNROLL
    for (int64_t j = 0; j < n; j++) {
        const uint32_t in = AUG_LD(x + pil_clamp(j + r + 1, n) * s), out = AUG_LD(x + pil_clamp(j - r, n) * s);
        AUG_ST(o + j * s, (uint8_t)((sum * b.ww + (lo + in) * b.fw + ((uint32_t)1 << 23)) >> 24));
        sum += in - out;
        lo = out;
    }
}

/* The three passes down each column of tmp's planes (h x w): tmp -> dst -> tmp ->
 * dst; a thread per (plane, column), each column its own thread's only. */
AUG_GLOBAL void aug__k_blur_pil_cols(pil_args a) {
    const int64_t step = (int64_t)gridDim.x * blockDim.x, hw = a.h * a.w;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.planes * a.w; i += step) {
        const int64_t plane = i / a.w, at = plane * hw + (i - plane * a.w);
        const aug__pilbox b = a.box[a.nt == 1 ? 0 : plane / a.c];
        pil_col(a.tmp + at, a.dst + at, a.h, a.w, b);
        pil_col(a.dst + at, a.tmp + at, a.h, a.w, b);
        pil_col(a.tmp + at, a.dst + at, a.h, a.w, b);
    }
}

static aug_status transpose(const char *func, const aug__exec *e, pil_args a) {
    const int64_t tiles = a.planes * ((a.h + PIL_TILE - 1) / PIL_TILE) * ((a.w + PIL_TILE - 1) / PIL_TILE);
    const aug__cuda_grid one = aug__cuda_grid_occ(e, 1, 256, (const void *)aug__k_blur_pil_t);
    const aug__cuda_grid g = aug__cuda_grid_occ(e, tiles * one.threads, 256, (const void *)aug__k_blur_pil_t);
    AUG_LAUNCH(aug__k_blur_pil_t, g.blocks, g.threads, 0, aug__cuda_stream(e), a);
    return aug__cuda_launched(func, "aug__k_blur_pil_t", g.blocks, g.threads);
}

static aug_status columns(const char *func, const aug__exec *e, pil_args a) {
    const aug__cuda_grid g = aug__cuda_grid_occ(e, a.planes * a.w, 256, (const void *)aug__k_blur_pil_cols);
    AUG_LAUNCH(aug__k_blur_pil_cols, g.blocks, g.threads, 0, aug__cuda_stream(e), a);
    return aug__cuda_launched(func, "aug__k_blur_pil_cols", g.blocks, g.threads);
}

aug_status aug__cuda_blur_pil(const aug__blur_plan *p) {
    const char *func = p->func;
    const aug__exec *e = &p->exec;
    const int dev = e->device.id;
    const cudaStream_t stream = aug__cuda_stream(e);
    aug_status st = aug__cuda_use(func, dev);
    if (st) return st;
    const size_t bbytes = (size_t)p->nt * sizeof(aug__pilbox), tbytes = (size_t)(p->n * p->c * p->h * p->w);
    void *dbox = NULL;
    if ((st = aug__cuda_tmp_upload(func, dev, p->pil, bbytes, stream, &dbox))) return st;
    void *tmp = aug__cuda_tmp_alloc(func, dev, tbytes, stream);
    if (!tmp) {
        aug__cuda_tmp_free(dev, dbox, bbytes, stream);
        return AUG_ERR_MEMORY; /* tmp_alloc recorded its error */
    }
    pil_args a;
    memset(&a, 0, sizeof a);
    a.box = (const aug__pilbox *)dbox;
    a.nt = p->nt, a.c = p->c, a.planes = p->n * p->c;
    a.tmp = (uint8_t *)tmp, a.dst = (uint8_t *)p->dst;
    pil_args rows = a, cols = a; /* rows: the planes' transposes (w x h) */
    rows.h = p->w, rows.w = p->h, cols.h = p->h, cols.w = p->w;
    a.src = (const uint8_t *)p->src, a.dst = (uint8_t *)tmp, a.h = p->h, a.w = p->w;
    st = transpose(func, e, a);              /* src (h x w) -> tmp (w x h) */
    if (!st) st = columns(func, e, rows);    /* the 3 row passes, into dst (w x h) */
    a.src = (const uint8_t *)p->dst, a.h = p->w, a.w = p->h;
    if (!st) st = transpose(func, e, a);     /* dst (w x h) -> tmp (h x w) */
    if (!st) st = columns(func, e, cols);    /* the 3 column passes, into dst */
    aug__cuda_tmp_free(dev, tmp, tbytes, stream);
    aug__cuda_tmp_free(dev, dbox, bbytes, stream);
    return st;
}
