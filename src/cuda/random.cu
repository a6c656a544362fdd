/* cuda/random.cu: the CUDA random fills (semantics §11). Element i of the target
 * (C order) takes the Philox block of counter (i, call) and scalar/random.h's
 * mapping, the CPU's own functions, so uniform values are bit-identical to the
 * CPU's for any launch shape (the Gaussian's float64 path uses CUDA's log and
 * cos, within the ulp bounds of semantics §8). A target whose elements alias (a
 * zero stride) is filled by one thread in C order, so the last one wins as on
 * the CPU. */
#include <string.h>
#include "cuda/cuda.h"
#include "core/random.h"

typedef struct rand_args {
    aug__rand_params p;
    char *base;
    int nd;
    int64_t shape[AUG_MAX_DIMS], bstride[AUG_MAX_DIMS];
    int64_t n;
} rand_args;

AUG_GLOBAL void aug__k_random(rand_args a) {
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += step) {
        int64_t r = i, off = 0;
        for (int d = a.nd - 1; d >= 0; d--) {
            int64_t e = a.shape[d], q = r / e;
            off += (r - q * e) * a.bstride[d];
            r = q;
        }
        aug__random_element(&a.p, (uint64_t)i, a.base + off);
    }
}

aug_status aug__cuda_random(const aug__random_plan *plan) {
    const char *func = plan->func;
    const aug__exec *e = &plan->exec;
    aug_status st = aug__cuda_use(func, e->device.id);
    if (st) return st;
    rand_args a;
    memset(&a, 0, sizeof a);
    a.p = plan->p;
    a.base = plan->base;
    a.nd = plan->nd;
    memcpy(a.shape, plan->shape, sizeof a.shape);
    memcpy(a.bstride, plan->bstride, sizeof a.bstride);
    a.n = plan->n;
    aug__cuda_grid g = aug__cuda_grid_for(e, a.n, 256);
    if (plan->aliased) g.blocks = g.threads = 1;
    AUG_LAUNCH(aug__k_random, g.blocks, g.threads, 0, aug__cuda_stream(e), a);
    return aug__cuda_launched(func, "aug__k_random", g.blocks, g.threads);
}
