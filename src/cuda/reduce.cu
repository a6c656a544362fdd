/* cuda/reduce.cu: the CUDA reductions (sum, mean, min, max, all, any, argmin, argmax),
 * semantics §10, bit-identical to the CPU's (scalar/reduce.h gives the order).
 *
 * The plan (core/plan.h) lists the reduced and the kept dimensions. The reduced
 * range of each output is cut into chunks of AUG__RED_CHUNK elements and each
 * chunk into blocks of AUG__RED_BLOCK, as on the CPU:
 *  - short reductions (one block of AUG__RED_BLOCK elements at most): one GPU
 *    thread per output runs the whole sequence itself (k_red_thread);
 *  - otherwise one GPU block per (output, chunk) (k_red_block): thread t sums
 *    the float blocks t, t + T, ... in their lanes and keeps the block values in
 *    shared memory (each warp reads its 32 blocks coalesced, one 32-byte sector
 *    of each at a time, through a tile of shared memory: stage_block_values),
 *    then the block combines them in block order in the
 *    pairwise tree (pw_tree: the binary counter's tree, in place, no stack);
 *    integer sums, min/max keys and flags are exact or order free and are
 *    combined across threads in any order. With several chunks the chunk
 *    partials go to a temporary and k_red_combine folds them per output in
 *    chunk order, again in the pairwise tree.
 * So every floating-point addition happens in the same order as on the CPU,
 * whatever the launch shape. */
#include <string.h>
#include "cuda/cuda.h"
#include "scalar/reduce.h"

/* Per-dtype reading: the value (integers exactly as i128, floats as double) and,
 * for floats, the min/max key of the stored bits. */
template <class T> struct red_traits;
#define INT_TRAITS(T)                                                        \
    template <> struct red_traits<T> {                                       \
        static const int is_float = 0;                                       \
        AUG_DEV static aug__i128 ival(T x) { return (aug__i128)x; }          \
        AUG_DEV static double fval(T x) { return (double)x; }                \
        AUG_DEV static aug__i128 key(T x) { return (aug__i128)x; }           \
        AUG_DEV static int nan(T x) { (void)x; return 0; }                   \
        AUG_DEV static int nonzero(T x) { return x != 0; }                   \
        AUG_DEV static aug__i128 akey(T x, int mx) { (void)mx; return (aug__i128)x; } \
    };
INT_TRAITS(int8_t)
INT_TRAITS(int16_t)
INT_TRAITS(int32_t)
INT_TRAITS(int64_t)
INT_TRAITS(uint16_t)
INT_TRAITS(uint32_t)
INT_TRAITS(uint64_t)
/* uint8 and bool share the storage type: bool reads as x != 0 (tag types). */
struct red_u8 { uint8_t v; };
struct red_b { uint8_t v; };
template <> struct red_traits<red_u8> {
    static const int is_float = 0;
    AUG_DEV static aug__i128 ival(red_u8 x) { return x.v; }
    AUG_DEV static double fval(red_u8 x) { return x.v; }
    AUG_DEV static aug__i128 key(red_u8 x) { return x.v; }
    AUG_DEV static int nan(red_u8 x) { (void)x; return 0; }
    AUG_DEV static int nonzero(red_u8 x) { return x.v != 0; }
    AUG_DEV static aug__i128 akey(red_u8 x, int mx) { (void)mx; return x.v; }
};
template <> struct red_traits<red_b> {
    static const int is_float = 0;
    AUG_DEV static aug__i128 ival(red_b x) { return x.v != 0; }
    AUG_DEV static double fval(red_b x) { return x.v != 0; }
    AUG_DEV static aug__i128 key(red_b x) { return x.v != 0; }
    AUG_DEV static int nan(red_b x) { (void)x; return 0; }
    AUG_DEV static int nonzero(red_b x) { return x.v != 0; }
    AUG_DEV static aug__i128 akey(red_b x, int mx) { (void)mx; return x.v != 0; }
};
#define FLOAT_TRAITS(TAG, U, S, MAG, INF, CONV)                                                  \
    struct TAG { U v; };                                                                         \
    template <> struct red_traits<TAG> {                                                         \
        static const int is_float = 1;                                                           \
        AUG_DEV static aug__i128 ival(TAG x) { (void)x; return 0; }                              \
        AUG_DEV static double fval(TAG x) { return CONV; }                                       \
        AUG_DEV static aug__i128 key(TAG x) { return AUG__RED_FKEY(U, S, MAG, x.v); }           \
        AUG_DEV static int nan(TAG x) { return AUG__RED_FNAN(U, MAG, INF, x.v); }               \
        AUG_DEV static int nonzero(TAG x) { return (x.v & (U)(MAG)) != 0; }                     \
        AUG_DEV static aug__i128 akey(TAG x, int mx) { return aug__red_arg_fkey(mx, CONV); }   \
    };
FLOAT_TRAITS(red_f16, uint16_t, int16_t, 0x7fffu, 0x7c00u, (double)aug__f16_to_f32(x.v))
FLOAT_TRAITS(red_bf16, uint16_t, int16_t, 0x7fffu, 0x7f80u, (double)aug__bf16_to_f32(x.v))
FLOAT_TRAITS(red_f32, uint32_t, int32_t, 0x7fffffffu, 0x7f800000u, (double)aug__bits_f32(x.v))
FLOAT_TRAITS(red_f64, uint64_t, int64_t, 0x7fffffffffffffffull, 0x7ff0000000000000ull, aug__bits_f64(x.v))

/* The plan's geometry as a kernel argument. */
typedef struct red_args {
    int op, in_t, out_t, ieee_out;
    const char *in0;
    char *out0;
    int nr, no;
    int64_t rext[AUG_MAX_DIMS], rst[AUG_MAX_DIMS];
    int64_t oext[AUG_MAX_DIMS], ost_in[AUG_MAX_DIMS], ost_out[AUG_MAX_DIMS];
    int64_t R, O, nchunks;
} red_args;

/* A partial result: exact integer sum or min/max (float: key; argmin/argmax: the
 * arg key), float sum, flag (all/any, float min/max: NaN seen), elements seen,
 * argmin/argmax index (-1: none yet). */
typedef struct red_part {
    aug__i128 i;
    double f;
    int flag;
    int64_t n;
    int64_t arg;
} red_part;

/* What one thread of a block hands over (no float sum: that goes by blocks),
 * 32 bytes, so 1024 threads fit the 48 KiB of static shared memory: for
 * argmin/argmax `n` carries the index (the count is not needed there). */
typedef struct red_tpart {
    aug__i128 i;
    int64_t n;
    int flag;
} red_tpart;

AUG_DEV int is_arg_op(int op) { return op == AUG_REDUCE_ARGMIN || op == AUG_REDUCE_ARGMAX; }

AUG_DEV void out_ptrs(const red_args &a, int64_t o, const char **in, char **out) {
    *in = a.in0;
    *out = a.out0;
    for (int d = a.no - 1; d >= 0; d--) {
        int64_t e = a.oext[d], q = o / e, i = o - q * e;
        o = q;
        *in += i * a.ost_in[d];
        *out += i * a.ost_out[d];
    }
}

AUG_DEV const char *elem(const red_args &a, const char *base, int64_t r) {
    if (a.nr == 1) return base + r * a.rst[0];
    for (int d = a.nr - 1; d >= 0; d--) {
        int64_t e = a.rext[d], q = r / e, i = r - q * e;
        r = q;
        base += i * a.rst[d];
    }
    return base;
}

AUG_DEV void part_init(red_part *p, int op) {
    p->i = 0;
    p->f = 0.0;
    p->flag = op == AUG_REDUCE_ALL;
    p->n = 0;
    p->arg = -1;
}

/* Everything but float sums, for one element x at reduced position r. */
template <class T>
AUG_DEV void part_add(red_part *p, int op, T x, int64_t r) {
    typedef red_traits<T> R;
    switch (op) {
    case AUG_REDUCE_ARGMIN:
    case AUG_REDUCE_ARGMAX: {
        const int mx = op == AUG_REDUCE_ARGMAX;
        aug__i128 k = R::akey(x, mx);
        if (aug__red_arg_wins(mx, k, r, p->i, p->arg)) {
            p->i = k;
            p->arg = r;
        }
        break;
    }
    case AUG_REDUCE_SUM:
    case AUG_REDUCE_MEAN:
        if (!R::is_float) p->i += R::ival(x);
        break;
    case AUG_REDUCE_MIN:
        if (p->n == 0 || R::key(x) < p->i) p->i = R::key(x);
        p->flag |= R::nan(x);
        break;
    case AUG_REDUCE_MAX:
        if (p->n == 0 || R::key(x) > p->i) p->i = R::key(x);
        p->flag |= R::nan(x);
        break;
    case AUG_REDUCE_ALL: p->flag &= R::nonzero(x); break;
    default: p->flag |= R::nonzero(x); break;
    }
    p->n++;
}

/* Merges q into p (order free: exact sums, min/max, flags, arg keys with the
 * smaller index on ties). */
AUG_DEV void part_merge(red_part *p, const red_part *q, int op) {
    if (q->n == 0) return;
    switch (op) {
    case AUG_REDUCE_ARGMIN:
    case AUG_REDUCE_ARGMAX:
        if (q->arg >= 0 && aug__red_arg_wins(op == AUG_REDUCE_ARGMAX, q->i, q->arg, p->i, p->arg)) {
            p->i = q->i;
            p->arg = q->arg;
        }
        break;
    case AUG_REDUCE_MIN:
        if (p->n == 0 || q->i < p->i) p->i = q->i;
        p->flag |= q->flag;
        break;
    case AUG_REDUCE_MAX:
        if (p->n == 0 || q->i > p->i) p->i = q->i;
        p->flag |= q->flag;
        break;
    case AUG_REDUCE_ALL: p->flag &= q->flag; break;
    case AUG_REDUCE_ANY: p->flag |= q->flag; break;
    default: p->i += q->i; break;
    }
    p->n += q->n;
}

/* The lanes value of float block [r0, r1) of an output (scalar/reduce.h): element
 * j of the block into lane j % 8, each lane in order. The lanes are indexed by
 * constants only, so they stay in registers. */
template <class T>
AUG_DEV double block_value(const red_args &a, const char *base, int64_t r0, int64_t r1) {
    double lane[AUG__RED_LANES];
AUG_UNROLL
    for (int k = 0; k < AUG__RED_LANES; k++) lane[k] = -0.0;
    int64_t r = r0;
    for (; r + AUG__RED_LANES <= r1; r += AUG__RED_LANES) {
AUG_UNROLL
        for (int k = 0; k < AUG__RED_LANES; k++) {
            T x;
            AUG__MEM_LOAD(elem(a, base, r + k), sizeof x);
            memcpy(&x, elem(a, base, r + k), sizeof x);
            lane[k] += red_traits<T>::fval(x);
        }
    }
AUG_UNROLL
    for (int k = 0; k < AUG__RED_LANES; k++)
        if (r + k < r1) {
            T x;
            AUG__MEM_LOAD(elem(a, base, r + k), sizeof x);
            memcpy(&x, elem(a, base, r + k), sizeof x);
            lane[k] += red_traits<T>::fval(x);
        }
    return aug__red_lanes_fold(lane);
}

/* The block values bval[b] of float blocks b of a chunk [r0, r1) (nb blocks), as
 * block_value computes them, with coalesced loads: lane l of a warp owns block
 * b0 + l (b0: the warp's first thread index, then + blockDim.x, as the plain loop
 * takes them). The warp stages its 32 blocks through its tile of shared memory,
 * S = 32 / sizeof(T) elements of each block at a time (one 32-byte sector per
 * block: float16 16, float32 8, float64 4; lanes l, l + nlanes, ... load entries
 * (block, element) so that neighbouring lanes read neighbouring elements of a
 * block), then each lane adds its block's S values into its lanes in index order,
 * exactly block_value's order (lane k: elements k, k + 8, ...). Each block's row of
 * the tile is padded to S + 1 elements, so the lanes' reads of their rows fall in
 * different banks. A round takes G = max(S, AUG__RED_LANES) elements, so a value's
 * lane is a constant of the unrolled loops and the lanes stay in registers. */
#define RED_STAGE_S(T) (32 / (int)sizeof(T))
template <class T>
AUG_DEV void stage_block_values(const red_args &a, const char *base, int64_t r0, int64_t r1, int64_t nb, double *bval,
                                T *tile) {
    constexpr int S = RED_STAGE_S(T), G = S > AUG__RED_LANES ? S : AUG__RED_LANES;
    const int lane = (int)(threadIdx.x % 32);
    const int64_t wbase = (int64_t)threadIdx.x - lane;
    const int nlanes = blockDim.x - wbase < 32 ? (int)(blockDim.x - wbase) : 32;
    const unsigned mask = nlanes == 32 ? 0xffffffffu : (1u << nlanes) - 1u;
    T *mine = tile + (threadIdx.x / 32) * 32 * (S + 1);
    for (int64_t b0 = wbase; b0 < nb; b0 += blockDim.x) {
        const int64_t b = b0 + lane;
        const int64_t bs = r0 + b * AUG__RED_BLOCK;
        const int64_t len = b >= nb ? 0 : r1 - bs < AUG__RED_BLOCK ? r1 - bs : AUG__RED_BLOCK;
        double lanes[AUG__RED_LANES];
AUG_UNROLL
        for (int k = 0; k < AUG__RED_LANES; k++) lanes[k] = -0.0;
        for (int64_t j = 0; j < AUG__RED_BLOCK; j += G) {
AUG_UNROLL
            for (int h = 0; h < G / S; h++) {
                for (int t = lane; t < nlanes * S; t += nlanes) {
                    const int m = t / S, e = t % S;
                    const int64_t bm = r0 + (b0 + m) * AUG__RED_BLOCK, r = bm + j + h * S + e;
                    if (b0 + m < nb && r < r1) {
                        AUG__MEM_LOAD(elem(a, base, r), sizeof(T));
                        memcpy(&mine[m * (S + 1) + e], elem(a, base, r), sizeof(T));
                    }
                }
                __syncwarp(mask);
AUG_UNROLL
                for (int e = 0; e < S; e++)
                    if (j + h * S + e < len)
                        lanes[(h * S + e) % AUG__RED_LANES] += red_traits<T>::fval(mine[lane * (S + 1) + e]);
                __syncwarp(mask);
            }
        }
        if (b < nb) bval[b] = aug__red_lanes_fold(lanes);
    }
}

/* The pairwise (binary counter) total of v[0 .. n-1] of a block's shared or
 * global array, computed in place without a stack: each power-of-two run of
 * the counter (n's set bits, highest first) is a perfect tree, left + right
 * level by level (threads of the block share the levels); the runs are then
 * folded from the smallest up, as aug__red_pw_total does. Every thread of the
 * block must call it; thread 0 gets the total. */
AUG_DEV double pw_tree(double *v, int64_t n) {
    for (int64_t step = 1; step < n; step *= 2) {
        for (int64_t i = (int64_t)threadIdx.x * 2 * step; i + step < n; i += (int64_t)blockDim.x * 2 * step) {
            /* i + 2 step stays inside i's run: runs start at multiples of their size */
            int64_t run_end = (i | (2 * step - 1)) + 1;
            if (run_end <= n) v[i] = v[i] + v[i + step];
        }
        __syncthreads();
    }
    double t = 0.0;
    if (threadIdx.x == 0) {
        int first = 1;
        for (int bit = 0; bit < 63; bit++) {
            int64_t size = (int64_t)1 << bit;
            if (!(n & size)) continue;
            int64_t start = n & ~((size << 1) - 1);
            t = first ? v[start] : v[start] + t;
            first = 0;
        }
    }
    __syncthreads();
    return t;
}

/* The whole reduction of one output (R <= AUG__RED_BLOCK: one chunk, one block)
 * by one thread. */
template <class T>
AUG_DEV red_part short_serial(const red_args &a, const char *base) {
    red_part p;
    part_init(&p, a.op);
    if (red_traits<T>::is_float && (a.op == AUG_REDUCE_SUM || a.op == AUG_REDUCE_MEAN)) {
        p.f = a.R > 0 ? block_value<T>(a, base, 0, a.R) : 0.0;
        p.n = a.R;
        return p;
    }
    for (int64_t r = 0; r < a.R; r++) {
        T x;
        AUG__MEM_LOAD(elem(a, base, r), sizeof x);
        memcpy(&x, elem(a, base, r), sizeof x);
        part_add<T>(&p, a.op, x, r);
    }
    return p;
}

/* k_red_thread and k_red_block took 66 and 88 registers per thread (sm_100), more
 * than the 64 of a 1024-thread block: blocks of at most 512 threads (up to 128
 * registers each; check_fatbin's table has the counts), capped at launch. */
#define RED_THREADS 512

/* One thread per output, R <= AUG__RED_BLOCK: a single block, no stack. */
template <class T>
AUG_GLOBAL_BOUNDED(RED_THREADS) void k_red_thread(red_args a) {
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; o < a.O; o += step) {
        const char *base;
        char *out;
        out_ptrs(a, o, &base, &out);
        red_part r = short_serial<T>(a, base);
        aug__red_store((aug_reduce_op)a.op, red_traits<T>::is_float, a.in_t, a.out_t, a.ieee_out, r.i, r.f, r.flag,
                       a.R, r.arg, out);
    }
}

#define MAX_THREADS 1024
#define BLOCKS_PER_CHUNK (AUG__RED_CHUNK / AUG__RED_BLOCK)

/* One GPU block per (output, chunk); parts: the chunk partials ([O][nchunks]),
 * or NULL with one chunk (then the result is stored directly). */
template <class T>
AUG_GLOBAL_BOUNDED(RED_THREADS) void k_red_block(red_args a, red_part *parts) {
    AUG_SHARED(double, bval, BLOCKS_PER_CHUNK);
    AUG_SHARED(red_tpart, tpart, RED_THREADS);
    const int float_sum = red_traits<T>::is_float && (a.op == AUG_REDUCE_SUM || a.op == AUG_REDUCE_MEAN);
    const int64_t work = a.O * a.nchunks;
    for (int64_t w = blockIdx.x; w < work; w += gridDim.x) {
        const int64_t o = w / a.nchunks, c = w - o * a.nchunks;
        const char *base;
        char *out;
        out_ptrs(a, o, &base, &out);
        const int64_t r0 = c * AUG__RED_CHUNK, r1 = r0 + AUG__RED_CHUNK < a.R ? r0 + AUG__RED_CHUNK : a.R;
        const int64_t nb = (r1 - r0 + AUG__RED_BLOCK - 1) / AUG__RED_BLOCK;
        red_part p;
        part_init(&p, a.op);
        if (float_sum) {
            if constexpr (red_traits<T>::is_float) {
                /* (RED_THREADS / 32) warps' tiles: at most 20 KiB (float64), beside bval's 4 and tpart's 16 */
                AUG_SHARED(T, tile, RED_THREADS * (RED_STAGE_S(T) + 1));
                stage_block_values<T>(a, base, r0, r1, nb, bval, tile);
            }
        } else {
            for (int64_t r = r0 + threadIdx.x; r < r1; r += blockDim.x) {
                T x;
                AUG__MEM_LOAD(elem(a, base, r), sizeof x);
                memcpy(&x, elem(a, base, r), sizeof x);
                part_add<T>(&p, a.op, x, r);
            }
        }
        tpart[threadIdx.x].i = p.i;
        tpart[threadIdx.x].n = is_arg_op(a.op) ? p.arg : p.n;
        tpart[threadIdx.x].flag = p.flag;
        __syncthreads();
        double total = float_sum ? pw_tree(bval, nb) : 0.0;
        if (threadIdx.x == 0) {
            red_part r;
            part_init(&r, a.op);
            if (float_sum) {
                r.f = total;
                r.n = r1 - r0;
            } else {
                for (unsigned t = 0; t < blockDim.x; t++) {
                    red_part q;
                    q.i = tpart[t].i;
                    q.f = 0.0;
                    q.n = tpart[t].n;
                    q.flag = tpart[t].flag;
                    q.arg = -1;
                    if (is_arg_op(a.op)) {
                        q.arg = tpart[t].n;
                        q.n = q.arg >= 0;
                    }
                    part_merge(&r, &q, a.op);
                }
            }
            if (parts)
                parts[o * a.nchunks + c] = r;
            else
                aug__red_store((aug_reduce_op)a.op, red_traits<T>::is_float, a.in_t, a.out_t, a.ieee_out, r.i, r.f,
                               r.flag, a.R, r.arg, out);
        }
        __syncthreads();
    }
}

/* One block per output: fold its chunk partials in chunk order (the CPU's
 * combine: the same pairwise tree over the chunk sums, exact merges of the
 * rest). The float sums are combined in place in fsum ([O][nchunks]). */
AUG_GLOBAL void k_red_combine(red_args a, const red_part *parts, double *fsum, int is_float) {
    for (int64_t o = blockIdx.x; o < a.O; o += gridDim.x) {
        const red_part *p = parts + o * a.nchunks;
        double *f = fsum + o * a.nchunks;
        for (int64_t c = threadIdx.x; c < a.nchunks; c += blockDim.x) f[c] = p[c].f;
        __syncthreads();
        double total = pw_tree(f, a.nchunks);
        if (threadIdx.x == 0) {
            red_part r = p[0];
            for (int64_t c = 1; c < a.nchunks; c++) part_merge(&r, &p[c], a.op);
            if (is_float) r.f = total;
            const char *base;
            char *out;
            out_ptrs(a, o, &base, &out);
            aug__red_store((aug_reduce_op)a.op, is_float, a.in_t, a.out_t, a.ieee_out, r.i, r.f, r.flag, a.R, r.arg,
                           out);
        }
        __syncthreads();
    }
}

/* ---- the entry ---------------------------------------------------------------------------- */

typedef void (*red_kernel)(red_args);
typedef void (*red_block_kernel)(red_args, red_part *);

template <class T>
static aug_status run(const char *func, const aug__exec *e, const red_args *a) {
    const int dev = e->device.id;
    const cudaStream_t stream = aug__cuda_stream(e);
    /* Short ranges: a thread per output keeps every GPU thread busy. */
    if (a->R <= AUG__RED_BLOCK) {
        aug__cuda_grid g = aug__cuda_grid_for(e, a->O, 128);
        g.threads = aug__cuda_bounded(g.threads, RED_THREADS);
        AUG_LAUNCH((k_red_thread<T>), g.blocks, g.threads, 0, stream, *a);
        return aug__cuda_launched(func, "k_red_thread", g.blocks, g.threads);
    }
    aug__cuda_grid g = aug__cuda_grid_for(e, a->O * a->nchunks * 256, 256);
    if (e->launch.blocks_per_sm <= 0) {
        int64_t work = a->O * a->nchunks, cap = (int64_t)aug__cuda_device(dev)->max_grid_x;
        g.blocks = (unsigned)(work < cap ? work : cap);
    }
    if (g.threads > MAX_THREADS)
        return aug__error(AUG_ERR_CUDA, func, "a reduction block has at most %d threads, %u were requested",
                          MAX_THREADS, g.threads);
    g.threads = aug__cuda_bounded(g.threads, RED_THREADS);
    if (a->nchunks <= 1) {
        AUG_LAUNCH((k_red_block<T>), g.blocks, g.threads, 0, stream, *a, (red_part *)NULL);
        return aug__cuda_launched(func, "k_red_block", g.blocks, g.threads);
    }
    size_t bytes = (size_t)(a->O * a->nchunks) * (sizeof(red_part) + sizeof(double));
    red_part *parts = (red_part *)aug__cuda_tmp_alloc(func, dev, bytes, stream);
    if (!parts) return AUG_ERR_MEMORY;
    double *fsum = (double *)(void *)(parts + a->O * a->nchunks);
    AUG_LAUNCH((k_red_block<T>), g.blocks, g.threads, 0, stream, *a, parts);
    aug_status st = aug__cuda_launched(func, "k_red_block", g.blocks, g.threads);
    if (st == AUG_OK) {
        aug__cuda_grid g2 = aug__cuda_grid_for(e, a->O * 128, 128);
        if (e->launch.blocks_per_sm <= 0) g2.blocks = (unsigned)(a->O < g.blocks ? a->O : g.blocks);
        AUG_LAUNCH(k_red_combine, g2.blocks, g2.threads, 0, stream, *a, (const red_part *)parts, fsum,
                   (int)red_traits<T>::is_float);
        st = aug__cuda_launched(func, "k_red_combine", g2.blocks, g2.threads);
    }
    aug__cuda_tmp_free(dev, parts, bytes, stream);
    return st;
}

aug_status aug__cuda_reduce(const aug__reduce_plan *plan) {
    const char *func = plan->func;
    aug_status st = aug__cuda_use(func, plan->exec.device.id);
    if (st) return st;
    red_args a;
    memset(&a, 0, sizeof a);
    a.op = (int)plan->op;
    a.in_t = plan->in_dtype;
    a.out_t = plan->out_dtype;
    a.ieee_out = plan->ieee_out;
    a.in0 = plan->in0;
    a.out0 = plan->out0;
    a.nr = plan->nr;
    a.no = plan->no;
    memcpy(a.rext, plan->rext, sizeof a.rext);
    memcpy(a.rst, plan->rst, sizeof a.rst);
    memcpy(a.oext, plan->oext, sizeof a.oext);
    memcpy(a.ost_in, plan->ost_in, sizeof a.ost_in);
    memcpy(a.ost_out, plan->ost_out, sizeof a.ost_out);
    a.R = plan->R;
    a.O = plan->O;
    a.nchunks = (a.R + AUG__RED_CHUNK - 1) / AUG__RED_CHUNK;
    if (a.O == 0) return AUG_OK;
    const aug__exec *e = &plan->exec;
    switch (plan->in_dtype) {
    case AUG__CT_BOOL: return run<red_b>(func, e, &a);
    case AUG__CT_INT8: return run<int8_t>(func, e, &a);
    case AUG__CT_INT16: return run<int16_t>(func, e, &a);
    case AUG__CT_INT32: return run<int32_t>(func, e, &a);
    case AUG__CT_INT64: return run<int64_t>(func, e, &a);
    case AUG__CT_UINT8: return run<red_u8>(func, e, &a);
    case AUG__CT_UINT16: return run<uint16_t>(func, e, &a);
    case AUG__CT_UINT32: return run<uint32_t>(func, e, &a);
    case AUG__CT_UINT64: return run<uint64_t>(func, e, &a);
    case AUG__CT_FLOAT16: return run<red_f16>(func, e, &a);
    case AUG__CT_BFLOAT16: return run<red_bf16>(func, e, &a);
    case AUG__CT_FLOAT32: return run<red_f32>(func, e, &a);
    case AUG__CT_FLOAT64: return run<red_f64>(func, e, &a);
    default: return aug__error(AUG_ERR_TYPE, func, "invalid reduction dtype %d", plan->in_dtype);
    }
}
