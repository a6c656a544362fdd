/* cuda/blur_pil.cu: PIL's GaussianBlur on the GPU (the AUG__BLUR_PIL8 path of
 * core/blur.h; semantics §13), the CPU's integer arithmetic (cpu/blur_pil.c), so
 * results are the CPU's bit for bit. Six launches of one kernel, one thread per
 * line: 3 passes along the rows, then 3 down the columns (adjacent threads take
 * adjacent columns: coalesced), each a running window sum over the line with
 * indices clamped, rounded to uint8. The passes go src -> tmp -> dst -> tmp ->
 * dst -> tmp -> dst through one temporary of the batch's size; the boxes (the
 * plan's nt aug__pilbox) are uploaded once. */
#include <string.h>
#include "cuda/values.cuh"
#include "core/blur.h"

typedef struct pil_args {
    const uint8_t *src;
    uint8_t *dst;
    const aug__pilbox *box; /* nt entries */
    int64_t nt, c;
    int64_t lines, len;     /* lines per plane, values per line */
    int64_t es, ls, plane;  /* value stride, line stride, values per plane */
    int64_t n;              /* lines of the batch */
} pil_args;

AUG_DEV int64_t pil_clamp(int64_t v, int64_t n) { return v < 0 ? 0 : (v >= n ? n - 1 : v); }

AUG_GLOBAL void aug__k_blur_pil(pil_args a) {
    const int64_t step = (int64_t)gridDim.x * blockDim.x, n = a.len, es = a.es;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += step) {
        const int64_t plane = i / a.lines, l = i - plane * a.lines;
        const aug__pilbox b = a.box[a.nt == 1 ? 0 : plane / a.c];
        const uint8_t *x = a.src + plane * a.plane + l * a.ls;
        uint8_t *o = a.dst + plane * a.plane + l * a.ls;
        if (b.copy) {
            for (int64_t j = 0; j < n; j++) AUG_ST(o + j * es, AUG_LD(x + j * es));
            continue;
        }
        const int64_t r = b.r;
        uint32_t sum = (uint32_t)(r + 1) * AUG_LD(x);
        for (int64_t k = 1; k <= r && k < n; k++) sum += AUG_LD(x + k * es);
        if (r > n - 1) sum += (uint32_t)(r - (n - 1)) * AUG_LD(x + (n - 1) * es);
        for (int64_t j = 0; j < n; j++) {
            const uint32_t in = AUG_LD(x + pil_clamp(j + r + 1, n) * es);
            const uint32_t edges = AUG_LD(x + pil_clamp(j - r - 1, n) * es) + in;
            AUG_ST(o + j * es, (uint8_t)((sum * b.ww + edges * b.fw + ((uint32_t)1 << 23)) >> 24));
            sum += in - AUG_LD(x + pil_clamp(j - r, n) * es);
        }
    }
}

static aug_status pass(const char *func, const aug__exec *e, pil_args a, const void *src, void *dst) {
    a.src = (const uint8_t *)src;
    a.dst = (uint8_t *)dst;
    aug__cuda_grid g = aug__cuda_grid_for(e, a.n, 256);
    AUG_LAUNCH_NAMED(aug__k_blur_pil, "aug__k_blur_pil", g.blocks, g.threads, 0, aug__cuda_stream(e), a);
    return aug__cuda_launched(func, "aug__k_blur_pil", g.blocks, g.threads);
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
    pil_args rows, cols;
    memset(&rows, 0, sizeof rows);
    rows.box = (const aug__pilbox *)dbox;
    rows.nt = p->nt, rows.c = p->c, rows.plane = p->h * p->w;
    cols = rows;
    rows.lines = p->h, rows.len = p->w, rows.es = 1, rows.ls = p->w, rows.n = p->n * p->c * p->h;
    cols.lines = p->w, cols.len = p->h, cols.es = p->w, cols.ls = 1, cols.n = p->n * p->c * p->w;
    st = pass(func, e, rows, p->src, tmp);
    if (!st) st = pass(func, e, rows, tmp, p->dst);
    if (!st) st = pass(func, e, rows, p->dst, tmp);
    if (!st) st = pass(func, e, cols, tmp, p->dst);
    if (!st) st = pass(func, e, cols, p->dst, tmp);
    if (!st) st = pass(func, e, cols, tmp, p->dst);
    aug__cuda_tmp_free(dev, tmp, tbytes, stream);
    aug__cuda_tmp_free(dev, dbox, bbytes, stream);
    return st;
}
