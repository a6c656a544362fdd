/* cuda/random.cu: the CUDA random fills (semantics §11). Element i of the target
 * (C order) takes the Philox block of counter (i, call) and scalar/random.h's
 * mapping, the CPU's own functions, so uniform values are bit-identical to the
 * CPU's for any launch shape (the Gaussian's float64 path uses CUDA's log and
 * cos, within the ulp bounds of semantics §8). A target whose elements alias (a
 * zero stride) is filled by one thread in C order, so the last one wins as on
 * the CPU. A contiguous target takes the fast path (cuda/vec.cuh): each thread
 * computes V elements and stores them with one 16-byte store. */
#include <string.h>
#include "cuda/cuda.h"
#include "core/random.h"
#include "cuda/vec.cuh"

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
        AUG__MEM_STORE(a.base + off, aug__ctype_size(a.p.dtype));
        aug__random_element(&a.p, (uint64_t)i, a.base + off);
    }
}

/* Element i of the fill as the bits of its T-sized dtype (scalar/random.h
 * stores the element's bytes; a 16-byte buffer holds any dtype's). */
template <class T> AUG_DEV T random_bits(const aug__rand_params *p, int64_t i) {
    aug__i128 w = 0;
    aug__random_element(p, (uint64_t)i, &w);
    return (T)w; /* the low bytes: little-endian, as the element is stored */
}

/* A contiguous target of elements of sizeof(T) bytes, split as vs. */
typedef struct randv_args {
    aug__rand_params p;
    char *base;
    int64_t n;
    aug__vec_span vs;
} randv_args;

template <class T> AUG_GLOBAL void aug__k_randomv(randv_args a) {
    constexpr int V = aug__vwidth<T>();
    T *dst = (T *)(void *)a.base;
    const int64_t step = (int64_t)gridDim.x * blockDim.x, t0 = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    constexpr int B = 8 * (int)sizeof(T);
    for (int64_t j = t0; j < a.vs.nvec; j += step) {
        const int64_t i0 = a.vs.head + j * V;
        /* the V elements shifted in at the top of a 128-bit word (lo, hi), so
         * element 0 ends in the lowest bytes; a loop, not V copies of Philox */
        uint64_t q[2] = {0, 0};
        AUG_NO_UNROLL
        for (int t = 0; t < V; t++) {
            const uint64_t v = (uint64_t)random_bits<T>(&a.p, i0 + t);
            if (B == 64) {
                q[0] = q[1];
                q[1] = v;
            } else {
                q[0] = (q[0] >> (B % 64)) | (q[1] << ((64 - B) % 64));
                q[1] = (q[1] >> (B % 64)) | (v << ((64 - B) % 64));
            }
        }
        aug__vstore<uint64_t, 2>((uint64_t *)(void *)(dst + i0), q);
    }
    const int64_t rest = a.n - a.vs.nvec * V;
    for (int64_t r = t0; r < rest; r += step) {
        const int64_t i = aug__vec_rest_index<V>(a.vs, r);
        AUG_CHECK_STORE(dst + i, T);
        dst[i] = random_bits<T>(&a.p, i);
    }
}

/* The fast path of a contiguous, unaliased target whose address aligns to its
 * element size; 0 (and nothing queued) otherwise. */
static int random_fast(const aug__random_plan *plan, aug_status *st) {
    const int sz = aug__ctype_size(plan->p.dtype);
    if (plan->aliased || plan->nd != 1 || plan->bstride[0] != sz || sz > 8) return 0;
    randv_args a;
    memset(&a, 0, sizeof a);
    a.vs = aug__vec_split(plan->n, 1, (char *const *)&plan->base, &sz, 16 / sz);
    if (!a.vs.vec) return 0;
    a.p = plan->p;
    a.base = plan->base;
    a.n = plan->n;
    void (*k)(randv_args);
    switch (sz) {
    case 1: k = aug__k_randomv<uint8_t>; break;
    case 2: k = aug__k_randomv<uint16_t>; break;
    case 4: k = aug__k_randomv<uint32_t>; break;
    default: k = aug__k_randomv<uint64_t>; break;
    }
    const aug__exec *e = &plan->exec;
    aug__cuda_grid g = aug__cuda_grid_occ(e, aug__vec_items(a.vs, a.n), 256, (const void *)k);
    AUG_LAUNCH_NAMED(k, "aug__k_randomv", g.blocks, g.threads, 0, aug__cuda_stream(e), a);
    *st = aug__cuda_launched(plan->func, "aug__k_randomv", g.blocks, g.threads);
    return 1;
}

aug_status aug__cuda_random(const aug__random_plan *plan) {
    const char *func = plan->func;
    const aug__exec *e = &plan->exec;
    aug_status st = aug__cuda_use(func, e->device.id);
    if (st) return st;
    if (random_fast(plan, &st)) return st;
    rand_args a;
    memset(&a, 0, sizeof a);
    a.p = plan->p;
    a.base = plan->base;
    a.nd = plan->nd;
    memcpy(a.shape, plan->shape, sizeof a.shape);
    memcpy(a.bstride, plan->bstride, sizeof a.bstride);
    a.n = plan->n;
    aug__cuda_grid g = aug__cuda_grid_occ(e, a.n, 256, (const void *)aug__k_random);
    if (plan->aliased) g.blocks = g.threads = 1;
    AUG_LAUNCH(aug__k_random, g.blocks, g.threads, 0, aug__cuda_stream(e), a);
    return aug__cuda_launched(func, "aug__k_random", g.blocks, g.threads);
}
