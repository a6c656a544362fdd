/* cuda/take.cu: the CUDA backend's advanced-index copies (aug__take_plan,
 * core/plan.h): the two offset tables are uploaded once, then one grid-stride
 * kernel moves element r of row j for every (j, r), the element's bytes copied
 * as one word of the item size. The rows of a scatter are distinct (the core
 * keeps the last of repeated ones), so their order does not matter. */
#include <string.h>
#include "cuda/cuda.h"

typedef struct take_args {
    int put, itemsize, ndim;
    int64_t n, rest;
    const int64_t *t_off, *o_off; /* device copies */
    char *t_base, *o_base;
    int64_t shape[AUG_MAX_DIMS], t_st[AUG_MAX_DIMS], o_st[AUG_MAX_DIMS];
} take_args;

template <class W>
AUG_GLOBAL void aug__k_take(take_args a) {
    const int64_t total = a.n * a.rest, step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += step) {
        int64_t j = i / a.rest, r = i - j * a.rest, ts = a.t_off[j], os = a.o_off[j];
        for (int d = a.ndim - 1; d >= 0; d--) {
            int64_t e = a.shape[d], q = r / e, x = r - q * e;
            r = q;
            ts += x * a.t_st[d];
            os += x * a.o_st[d];
        }
        W *t = (W *)(void *)(a.t_base + ts), *o = (W *)(void *)(a.o_base + os);
        AUG_CHECK_ALIGNED(t, W);
        AUG_CHECK_ALIGNED(o, W);
        if (a.put) AUG_ST(t, AUG_LD(o));
        else AUG_ST(o, AUG_LD(t));
    }
}

aug_status aug__cuda_take(const aug__take_plan *p) {
    const char *func = p->func;
    const aug__exec *e = &p->exec;
    const int dev = e->device.id;
    const cudaStream_t stream = aug__cuda_stream(e);
    aug_status st = aug__cuda_use(func, dev);
    if (st) return st;
    const size_t bytes = (size_t)p->n * sizeof(int64_t);
    int64_t *doff = (int64_t *)aug__cuda_tmp_alloc(func, dev, 2 * bytes, stream);
    if (!doff) return AUG_ERR_MEMORY; /* tmp_alloc recorded its error */
    /* the host tables are freed after return: the ring holds copies of them */
    st = aug__cuda_upload(func, doff, p->t_off, bytes, stream);
    if (st == AUG_OK) st = aug__cuda_upload(func, doff + p->n, p->o_off, bytes, stream);
    if (st) {
        aug__cuda_tmp_free(dev, doff, 2 * bytes, stream);
        return st;
    }
    take_args a;
    memset(&a, 0, sizeof a);
    a.put = p->put;
    a.itemsize = p->itemsize;
    a.ndim = p->ndim;
    a.n = p->n;
    a.rest = p->rest;
    a.t_off = doff;
    a.o_off = doff + p->n;
    a.t_base = p->t_base;
    a.o_base = p->o_base;
    for (int d = 0; d < p->ndim; d++) {
        a.shape[d] = p->shape[d];
        a.t_st[d] = p->t_st[d];
        a.o_st[d] = p->o_st[d];
    }
    aug__cuda_grid g = aug__cuda_grid_for(e, p->n * p->rest, 256);
    switch (p->itemsize) {
    case 1: AUG_LAUNCH(aug__k_take<uint8_t>, g.blocks, g.threads, 0, stream, a); break;
    case 2: AUG_LAUNCH(aug__k_take<uint16_t>, g.blocks, g.threads, 0, stream, a); break;
    case 4: AUG_LAUNCH(aug__k_take<uint32_t>, g.blocks, g.threads, 0, stream, a); break;
    default: AUG_LAUNCH(aug__k_take<uint64_t>, g.blocks, g.threads, 0, stream, a); break;
    }
    st = aug__cuda_launched(func, "aug__k_take", g.blocks, g.threads);
    aug__cuda_tmp_free(dev, doff, 2 * bytes, stream);
    return st;
}
