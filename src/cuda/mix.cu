/* cuda/mix.cu: aug_mix_mirror on the GPU (core/mix.h's plan, scalar/mix.h's rule).
 *
 * One launch. A warp takes one row of a mirrored pair (i, j = N - 1 - i; a
 * channel, a row y) at a time, its lanes 32 consecutive columns, and each lane
 * reads both images' values before writing either (in place is fine: no other
 * thread touches the pair's position). A row's index is split into (pair,
 * channel, y) once per row, not per value. The images' parts (48 bytes each)
 * come from a device copy uploaded through the staging ring: no host wait. */
#include "cuda/cuda.h"
#include "core/mix.h"

#define THREADS 256

/* The rule per dtype: the storage type, the compute type of the weights, the blend. */
#define MIX_RULE(NAME, T_, CT_, FN)                                                  \
    struct NAME {                                                                    \
        typedef T_ T;                                                                \
        typedef CT_ CT;                                                              \
        static AUG_DEV T mix(T a, T b, CT w, CT v) { return FN(a, b, w, v); }        \
    };
MIX_RULE(mix_f32, float, float, aug__mix_f32)
MIX_RULE(mix_f64, double, double, aug__mix_f64)
MIX_RULE(mix_f16, aug__f16, float, aug__mix_f16)
MIX_RULE(mix_bf16, aug__bf16, float, aug__mix_bf16)
#undef MIX_RULE

typedef struct mix_args {
    char *base;
    int64_t pairs, n, c, h, w;
    int64_t sn, sc, sh, sw;     /* strides in elements */
    int64_t rows;               /* pairs * c * h */
    const aug__mix_image *parts; /* n entries (device) */
} mix_args;

/* An image's part on one row: CUT on the columns [x1, x2) (empty when its box
 * misses the row), `rest` elsewhere (KEEP for a boxed image); the weights in CT. */
template <typename CT> struct row_part {
    int64_t x1, x2;
    int rest;
    CT w, v;
};
template <typename CT> static AUG_DEV row_part<CT> part_of(const aug__mix_image *m, int64_t y) {
    row_part<CT> r;
    const int on = m->kind == AUG__MIX_CUT && y >= m->y1 && y < m->y2;
    r.x1 = on ? m->x1 : 0, r.x2 = on ? m->x2 : 0;
    r.rest = m->kind == AUG__MIX_CUT ? AUG__MIX_KEEP : m->kind;
    r.w = (CT)m->w, r.v = (CT)m->v;
    return r;
}
template <typename CT> static AUG_DEV int part_at(const row_part<CT> &r, int64_t x) {
    return x >= r.x1 && x < r.x2 ? AUG__MIX_CUT : r.rest;
}

template <typename R> AUG_GLOBAL void aug__k_mix_mirror(mix_args a) {
    typedef typename R::T T;
    typedef typename R::CT CT;
    const unsigned lanes = blockDim.x < 32u ? blockDim.x : 32u, warps = blockDim.x / lanes;
    const unsigned lane = threadIdx.x % lanes, warp = threadIdx.x / lanes;
    if (warp >= warps) return; /* a block of threads not a multiple of 32: the rest idle */
    for (int64_t r = (int64_t)blockIdx.x * warps + warp; r < a.rows; r += (int64_t)gridDim.x * warps) {
        const int64_t y = r % a.h, q = r / a.h, ch = q % a.c, i = q / a.c, j = a.n - 1 - i;
        const row_part<CT> mi = part_of<CT>(a.parts + i, y), mj = part_of<CT>(a.parts + j, y);
        const int middle = i == j;
        T *A = (T *)(void *)a.base + i * a.sn + ch * a.sc + y * a.sh;
        T *B = (T *)(void *)a.base + j * a.sn + ch * a.sc + y * a.sh;
        for (int64_t x = lane; x < a.w; x += lanes) {
            const int pi = part_at(mi, x), pj = middle ? AUG__MIX_KEEP : part_at(mj, x);
            if (pi == AUG__MIX_KEEP && pj == AUG__MIX_KEEP) continue;
            const T va = AUG_LD(A + x * a.sw), vb = AUG_LD(B + x * a.sw);
            if (pi != AUG__MIX_KEEP) AUG_ST(A + x * a.sw, pi == AUG__MIX_CUT ? vb : R::mix(va, vb, mi.w, mi.v));
            if (pj != AUG__MIX_KEEP) AUG_ST(B + x * a.sw, pj == AUG__MIX_CUT ? va : R::mix(vb, va, mj.w, mj.v));
        }
    }
}

template <typename R> static aug_status launch(const aug__mix_plan *p, const char *name) {
    const aug__exec *e = &p->exec;
    cudaStream_t stream = aug__cuda_stream(e);
    mix_args a = {p->base, (p->n + 1) / 2, p->n, p->c, p->h, p->w, p->sn, p->sc, p->sh, p->sw, 0, NULL};
    a.rows = a.pairs * p->c * p->h;
    /* one row per warp: grid_for's items are the rows' threads */
    aug__cuda_grid g = aug__cuda_grid_for(e, a.rows * 32, THREADS);
    void *parts = NULL;
    const size_t bytes = (size_t)p->n * sizeof(aug__mix_image);
    aug_status st = aug__cuda_tmp_upload(p->func, e->device.id, p->images, bytes, stream, &parts);
    if (st) return st;
    a.parts = (const aug__mix_image *)parts;
    AUG_LAUNCH(aug__k_mix_mirror<R>, g.blocks, g.threads, 0, stream, a);
    st = aug__cuda_launched(p->func, name, g.blocks, g.threads);
    aug__cuda_tmp_free(e->device.id, parts, bytes, stream);
    return st;
}

aug_status aug__cuda_mix_mirror(const aug__mix_plan *p) {
    aug_status st = aug__cuda_use(p->func, p->exec.device.id);
    if (st) return st;
    switch (p->dtype) {
    case AUG_FLOAT32: return launch<mix_f32>(p, "aug__k_mix_mirror<mix_f32>");
    case AUG_FLOAT64: return launch<mix_f64>(p, "aug__k_mix_mirror<mix_f64>");
    case AUG_FLOAT16: return launch<mix_f16>(p, "aug__k_mix_mirror<mix_f16>");
    case AUG_BFLOAT16: return launch<mix_bf16>(p, "aug__k_mix_mirror<mix_bf16>");
    default: return aug__error(AUG_ERR_TYPE, p->func, "dtype %d is not supported on CUDA", p->dtype);
    }
}
