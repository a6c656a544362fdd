/* cuda/blur_pil.cu: PIL's GaussianBlur on the GPU (the AUG__BLUR_PIL8 path of
 * core/blur.h; semantics §13), the CPU's integer arithmetic (cpu/blur_pil.c), so
 * results are the CPU's bit for bit. As on the CPU, every pass runs down the
 * columns (one thread per column, adjacent threads on adjacent bytes of a row:
 * coalesced), and the row passes run down the columns of each plane's transpose:
 *
 *   src --transpose--> t1; 3 column passes t1 -> t2 -> t1 -> t2 (W x H planes);
 *   t2 --transpose--> t1; 3 column passes t1 -> t2 -> t1 -> dst (H x W planes).
 *
 * Before, one kernel per pass took one line per thread, so in the 3 row passes
 * the 32 lanes of a warp read 32 different rows (one byte of each 32-byte
 * sector). The transpose stages 32 x 32 tiles through shared memory: rows are
 * read and written 32 bytes at a time. A thread runs its column's three passes
 * one after the other (each column depends on itself only), so each phase is one
 * launch. The temporaries' rows of 8 bytes or more start on 32-byte sectors
 * (pil_pitch), and each plane's column threads start a warp, so a warp's 32
 * bytes of a row are one sector there whatever the image's width; only reading
 * src and writing dst follow the image's own rows.
 * Each pass is a running window sum with indices clamped, rounded to uint8; the
 * window sums are integers, equal to the CPU's in any order. The loops stay
 * loops (AUG_NO_UNROLL): unrolled, the column kernel took 64 registers on
 * sm_80..sm_100 (4 blocks of 256 threads per SM, 50%), as loops 40 (6 blocks,
 * 75%; sm_75 46); the transpose 26-30. A loop over the 3 passes instead of 3
 * inlined calls put 128 bytes on the stack. The boxes (the plan's nt
 * aug__pilbox) are uploaded once. */
#include <string.h>
#include "cuda/values.cuh"
#include "core/blur.h"

enum { PIL_TILE = 32 };

typedef struct pil_buf {
    uint8_t *p;
    int64_t pitch, plane; /* bytes from a row to the next, from a plane to the next */
} pil_buf;

typedef struct pil_args {
    pil_buf in, mid, out;   /* transpose: in -> out; columns: in -> mid -> in -> out */
    const aug__pilbox *box; /* nt entries */
    int64_t nt, c;
    int64_t planes, h, w; /* planes of h x w values (transpose: in's) */
    int64_t lanes;        /* columns: threads per plane (pil_pitch(w): a warp's multiple from 8 on) */
} pil_args;

AUG_DEV int64_t pil_clamp(int64_t v, int64_t n) { return v < 0 ? 0 : (v >= n ? n - 1 : v); }

/* out's planes (w x h) = the transposes of in's (h x w), a 32 x 32 tile per block
 * at a time: any block size, consecutive threads on consecutive bytes of a row. */
AUG_GLOBAL void aug__k_blur_pil_t(pil_args a) {
    AUG_SHARED(uint8_t, tile, PIL_TILE * (PIL_TILE + 1));
    const int64_t h = a.h, w = a.w, ty = (h + PIL_TILE - 1) / PIL_TILE, tx = (w + PIL_TILE - 1) / PIL_TILE;
    for (int64_t t = blockIdx.x; t < a.planes * ty * tx; t += gridDim.x) {
        const int64_t q = t / (ty * tx), rem = t - q * ty * tx, y0 = rem / tx * PIL_TILE, x0 = rem % tx * PIL_TILE;
        const uint8_t *src = a.in.p + q * a.in.plane;
        uint8_t *dst = a.out.p + q * a.out.plane;
        AUG_NO_UNROLL
        for (int i = (int)threadIdx.x; i < PIL_TILE * PIL_TILE; i += (int)blockDim.x) {
            const int64_t y = y0 + i / PIL_TILE, x = x0 + i % PIL_TILE;
            if (y < h && x < w) tile[i / PIL_TILE * (PIL_TILE + 1) + i % PIL_TILE] = AUG_LD(src + y * a.in.pitch + x);
        }
        __syncthreads();
        AUG_NO_UNROLL
        for (int i = (int)threadIdx.x; i < PIL_TILE * PIL_TILE; i += (int)blockDim.x) {
            const int64_t x = x0 + i / PIL_TILE, y = y0 + i % PIL_TILE; /* dst row x, column y */
            if (y < h && x < w) AUG_ST(dst + x * a.out.pitch + y, tile[i % PIL_TILE * (PIL_TILE + 1) + i / PIL_TILE]);
        }
        __syncthreads(); /* the next tile overwrites the tile */
    }
}

/* One pass down a column of n values, x (s apart) into o (os apart): out[j] =
 * (ww * sum_{|k| <= r} x[j + k] + fw * (x[j - r - 1] + x[j + r + 1]) + 2^23) >> 24,
 * indices clamped; the value leaving the window is the next step's x[j - r - 1]. */
AUG_DEV void pil_col(const uint8_t *x, int64_t s, uint8_t *o, int64_t os, int64_t n, const aug__pilbox &b) {
    if (b.copy) {
        for (int64_t j = 0; j < n; j++) AUG_ST(o + j * os, AUG_LD(x + j * s));
        return;
    }
    const int64_t r = b.r;
    uint32_t lo = AUG_LD(x), sum = (uint32_t)(r + 1) * lo;
    const int64_t last = r < n - 1 ? r : n - 1; /* the window's values past x[0] within the column */
    AUG_NO_UNROLL
    for (int64_t k = 1; k <= last; k++) sum += AUG_LD(x + k * s);
    if (r > n - 1) sum += (uint32_t)(r - (n - 1)) * AUG_LD(x + (n - 1) * s);
    AUG_NO_UNROLL
    for (int64_t j = 0; j < n; j++) {
        const uint32_t in = AUG_LD(x + pil_clamp(j + r + 1, n) * s), out = AUG_LD(x + pil_clamp(j - r, n) * s);
        AUG_ST(o + j * os, (uint8_t)((sum * b.ww + (lo + in) * b.fw + ((uint32_t)1 << 23)) >> 24));
        sum += in - out;
        lo = out;
    }
}

/* The three passes down each column of the planes (h x w): in -> mid -> in -> out;
 * a thread per (plane, column), each column its own thread's only. Each plane's
 * threads start a warp (lanes), so a warp's row bytes start a sector of in and mid. */
AUG_GLOBAL void aug__k_blur_pil_cols(pil_args a) {
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.planes * a.lanes; i += step) {
        const int64_t q = i / a.lanes, x = i - q * a.lanes;
        if (x >= a.w) continue;
        const aug__pilbox b = a.box[a.nt == 1 ? 0 : q / a.c];
        uint8_t *in = a.in.p + q * a.in.plane + x, *mid = a.mid.p + q * a.mid.plane + x;
        pil_col(in, a.in.pitch, mid, a.mid.pitch, a.h, b);
        pil_col(mid, a.mid.pitch, in, a.in.pitch, a.h, b);
        pil_col(in, a.in.pitch, a.out.p + q * a.out.plane + x, a.out.pitch, a.h, b);
    }
}

static pil_buf pil_b(uint8_t *p, int64_t pitch, int64_t plane) {
    pil_buf b = {p, pitch, plane};
    return b;
}

/* The row pitch of a temporary's lines of n values: whole 32-byte sectors from 8 on
 * (at most 4 times the bytes; narrower lines are packed). */
static int64_t pil_pitch(int64_t n) { return n < 8 ? n : (n + PIL_TILE - 1) / PIL_TILE * PIL_TILE; }

static aug_status transpose(const char *func, const aug__exec *e, pil_args a) {
    const int64_t tiles = a.planes * ((a.h + PIL_TILE - 1) / PIL_TILE) * ((a.w + PIL_TILE - 1) / PIL_TILE);
    const aug__cuda_grid one = aug__cuda_grid_occ(e, 1, 256, (const void *)aug__k_blur_pil_t);
    const aug__cuda_grid g = aug__cuda_grid_occ(e, tiles * one.threads, 256, (const void *)aug__k_blur_pil_t);
    AUG_LAUNCH(aug__k_blur_pil_t, g.blocks, g.threads, 0, aug__cuda_stream(e), a);
    return aug__cuda_launched(func, "aug__k_blur_pil_t", g.blocks, g.threads);
}

static aug_status columns(const char *func, const aug__exec *e, pil_args a) {
    a.lanes = pil_pitch(a.w);
    const aug__cuda_grid g = aug__cuda_grid_occ(e, a.planes * a.lanes, 256, (const void *)aug__k_blur_pil_cols);
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
    /* two temporaries whose rows start on 32-byte sectors (pil_pitch) */
    const int64_t p1 = pil_pitch(p->h), p2 = pil_pitch(p->w), planes = p->n * p->c;
    const int64_t tp = p->w * p1 > p->h * p2 ? p->w * p1 : p->h * p2;
    const size_t bbytes = (size_t)p->nt * sizeof(aug__pilbox), tbytes = (size_t)(2 * planes * tp);
    void *dbox = NULL;
    if ((st = aug__cuda_tmp_upload(func, dev, p->pil, bbytes, stream, &dbox))) return st;
    void *tmp = aug__cuda_tmp_alloc(func, dev, tbytes, stream);
    if (!tmp) {
        aug__cuda_tmp_free(dev, dbox, bbytes, stream);
        return AUG_ERR_MEMORY; /* tmp_alloc recorded its error */
    }
    uint8_t *t1 = (uint8_t *)tmp, *t2 = t1 + planes * tp;
    pil_args a;
    memset(&a, 0, sizeof a);
    a.box = (const aug__pilbox *)dbox;
    a.nt = p->nt, a.c = p->c, a.planes = planes;
    /* src (h x w) -> t1 (w x h); the 3 row passes down its columns: t1 -> t2 -> t1 -> t2 */
    a.in = pil_b((uint8_t *)p->src, p->w, p->h * p->w), a.out = pil_b(t1, p1, tp), a.h = p->h, a.w = p->w;
    st = transpose(func, e, a);
    a.in = pil_b(t1, p1, tp), a.mid = a.out = pil_b(t2, p1, tp), a.h = p->w, a.w = p->h;
    if (!st) st = columns(func, e, a);
    /* t2 (w x h) -> t1 (h x w); the 3 column passes: t1 -> t2 -> t1 -> dst */
    a.in = pil_b(t2, p1, tp), a.out = pil_b(t1, p2, tp);
    if (!st) st = transpose(func, e, a);
    a.in = pil_b(t1, p2, tp), a.mid = pil_b(t2, p2, tp), a.h = p->h, a.w = p->w;
    a.out = pil_b((uint8_t *)p->dst, p->w, p->h * p->w);
    if (!st) st = columns(func, e, a);
    aug__cuda_tmp_free(dev, tmp, tbytes, stream);
    aug__cuda_tmp_free(dev, dbox, bbytes, stream);
    return st;
}
