/* cuda/reduce.cu: the CUDA reductions (sum, mean, min, max, all, any, argmin, argmax),
 * semantics §10, bit-identical to the CPU's (scalar/reduce.h gives the order).
 *
 * The plan (core/plan.h) lists the reduced and the kept dimensions. The reduced
 * range of each output is cut into chunks of AUG__RED_CHUNK elements and each
 * chunk into blocks of AUG__RED_BLOCK, as on the CPU. The kernel follows the layout:
 *  - short rows (R <= AUG__RED_BLOCK, the reduced innermost axis contiguous): a GPU
 *    block loads several rows at once, lanes on neighbouring elements, into shared
 *    memory, then one thread per row reduces its row from there (k_red_rows);
 *  - columns (the kept innermost axis contiguous, a 32-byte sector of outputs at
 *    least), and any other short range: one thread per (output, chunk), consecutive
 *    threads on consecutive outputs, so each reduced position is one coalesced
 *    read of the warp; the thread keeps the CPU's lanes and its binary counter of
 *    block values in registers (k_red_cols);
 *  - otherwise one GPU block per (output, chunk). Float sums (k_red_fsum): threads
 *    2t and 2t + 1 sum the float blocks t, t + T / 2, ... in their lanes (4 each)
 *    and keep the block values in shared memory (each warp reads its 16 blocks
 *    coalesced, one 32-byte sector of each or more at a time, through a tile of
 *    shared memory: stage_block_values),
 *    then the block combines them in block order in the
 *    pairwise tree (pw_tree: the binary counter's tree, in place, no stack).
 *    The rest (k_red_block): integer sums, min/max keys and flags are exact or
 *    order free, each thread takes elements t, t + T, ... and thread 0 merges.
 * With several chunks the chunk partials go to a temporary and k_red_combine folds
 * them per output in chunk order, again in the pairwise tree.
 * k_red_fsum and k_red_cols index in 32 bits (64 registers, 4 blocks of 256 threads:
 * occupancy 0.5); k_red_fsum_wide and k_red_cols_wide take reductions with an
 * index past 2^31.
 * So every floating-point addition happens in the same order as on the CPU,
 * whatever the launch shape. */
#include <stdlib.h>
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

/* The input and output of output o. I: the index type, int64_t, or uint32_t where
 * the launcher found every index below 2^31 (red_index32): 32-bit divisions are
 * a few instructions, 64-bit ones a call that holds registers across it. */
template <class I>
AUG_DEV void out_ptrs(const red_args &a, I o, const char **in, char **out) {
    *in = a.in0;
    *out = a.out0;
    for (int d = a.no - 1; d >= 0; d--) {
        I e = (I)a.oext[d], q = o / e, i = o - q * e;
        o = q;
        *in += (int64_t)i * a.ost_in[d];
        *out += (int64_t)i * a.ost_out[d];
    }
}

/* out_ptrs' input pointer alone (a kernel that stores late recomputes the output's). */
template <class I>
AUG_DEV const char *in_ptr(const red_args &a, I o) {
    const char *in = a.in0;
    for (int d = a.no - 1; d >= 0; d--) {
        I e = (I)a.oext[d], q = o / e, i = o - q * e;
        o = q;
        in += (int64_t)i * a.ost_in[d];
    }
    return in;
}

template <class I>
AUG_DEV const char *elem(const red_args &a, const char *base, I r) {
    if (a.nr == 1) return base + (int64_t)r * a.rst[0];
    for (int d = a.nr - 1; d >= 0; d--) {
        I e = (I)a.rext[d], q = r / e, i = r - q * e;
        r = q;
        base += (int64_t)i * a.rst[d];
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

/* Reduced position r of an output's elements: a load through the recording layer. */
template <class T, class I = int64_t>
AUG_DEV T load_at(const red_args &a, const char *base, I r) {
    T x;
    const char *p = elem(a, base, r);
    AUG__MEM_LOAD(p, sizeof x);
    memcpy(&x, p, sizeof x);
    return x;
}

/* The block values bval[b] of float blocks b of the n elements of a chunk from r0
 * (nb blocks), in the CPU's order (scalar/reduce.h: element j of a block into lane
 * j % 8, each lane in order, folded), with coalesced loads. Two neighbouring lanes
 * of a warp share a block: lane l takes block b0 + l / 2 (b0: the warp's first
 * pair, then + blockDim.x / 2) and, of its 8 lanes, the half h = l % 2 (lanes 4h ..
 * 4h + 3), so a thread keeps 4 accumulators instead of 8; the fold
 * ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)) is then each half's own
 * bracket plus one shuffle, the same additions as the CPU's. The warp stages its
 * blocks through its tile of shared memory, G = max(32 / sizeof(T), 8) elements of
 * each block at a time (one 32-byte sector of each block or more: float16 16,
 * float32 8, float64 8; lanes l, l + nlanes, ... load entries (block, element) so
 * that neighbouring lanes read neighbouring elements of a block), then each lane
 * adds its half's values of its block in index order (lane k: elements k, k + 8,
 * ...). Each block's row of the tile is padded to G + 1 elements against bank
 * conflicts. Offsets inside the chunk (at most AUG__RED_CHUNK) are 32-bit. The
 * block has an even number of threads (run() rounds an odd one up), so every lane
 * has its partner. */
#define RED_STAGE_G(T) (32 / (int)sizeof(T) > AUG__RED_LANES ? 32 / (int)sizeof(T) : AUG__RED_LANES)
#define RED_HALF (AUG__RED_LANES / 2)
static_assert(AUG__RED_LANES == 8, "stage_block_values folds two halves of 4 lanes (aug__red_lanes_fold)");
template <class T, class I>
AUG_DEV void stage_block_values(const red_args &a, const char *base, I r0, int n, int nb, double *bval, T *tile) {
    constexpr int G = RED_STAGE_G(T);
    const int lane = (int)(threadIdx.x % 32);
    const int wbase = (int)threadIdx.x - lane;
    const int nlanes = (int)blockDim.x - wbase < 32 ? (int)blockDim.x - wbase : 32;
    const unsigned mask = nlanes == 32 ? 0xffffffffu : (1u << nlanes) - 1u;
    const int m = lane / 2, h = lane % 2, pairs = nlanes / 2;
    T *mine = tile + (threadIdx.x / 32) * 16 * (G + 1);
    for (int b0 = wbase / 2; b0 < nb; b0 += (int)blockDim.x / 2) {
        const int b = b0 + m;
        const int len = b >= nb ? 0 : n - b * AUG__RED_BLOCK < AUG__RED_BLOCK ? n - b * AUG__RED_BLOCK : AUG__RED_BLOCK;
        double acc[RED_HALF];
AUG_UNROLL
        for (int k = 0; k < RED_HALF; k++) acc[k] = -0.0;
        for (int j = 0; j < AUG__RED_BLOCK; j += G) {
AUG_NO_UNROLL
            for (int t = lane; t < pairs * G; t += nlanes) {
                const int tm = t / G, e = t % G, off = (b0 + tm) * AUG__RED_BLOCK + j + e;
                if (b0 + tm < nb && off < n) mine[tm * (G + 1) + e] = load_at<T>(a, base, (I)(r0 + (I)off));
            }
            __syncwarp(mask);
AUG_UNROLL
            for (int i = 0; i < G / AUG__RED_LANES; i++)
AUG_UNROLL
                for (int k = 0; k < RED_HALF; k++) {
                    const int q = i * AUG__RED_LANES + h * RED_HALF + k;
                    if (j + q < len) acc[k] += red_traits<T>::fval(mine[m * (G + 1) + q]);
                }
            __syncwarp(mask);
        }
        const double mine_half = (acc[0] + acc[1]) + (acc[2] + acc[3]);
        const double other = __shfl_xor_sync(mask, mine_half, 1);
        if (h == 0 && b < nb) bval[b] = mine_half + other;
    }
}

/* The pairwise (binary counter) total of v[0 .. n-1] of a block's shared or
 * global array, computed in place without a stack: each power-of-two run of
 * the counter (n's set bits, highest first) is a perfect tree, left + right
 * level by level (threads of the block share the levels); the runs are then
 * folded from the smallest up, as aug__red_pw_total does. Every thread of the
 * block must call it; thread 0 gets the total. */
template <class I>
AUG_DEV double pw_tree(double *v, I n) {
    for (I step = 1; step < n; step *= 2) {
        for (I i = (I)threadIdx.x * 2 * step; i + step < n; i += (I)blockDim.x * 2 * step) {
            /* i + 2 step stays inside i's run: runs start at multiples of their size */
            I run_end = (i | (2 * step - 1)) + 1;
            if (run_end <= n) v[i] = v[i] + v[i + step];
        }
        __syncthreads();
    }
    double t = 0.0;
    if (threadIdx.x == 0) {
        int first = 1;
        for (int bit = 0; bit < (int)sizeof(I) * 8 - 1; bit++) {
            I size = (I)1 << bit;
            if (!(n & size)) continue;
            I start = n & ~((size << 1) - 1);
            t = first ? v[start] : v[start] + t;
            first = 0;
        }
    }
    __syncthreads();
    return t;
}

/* Every reduction kernel but k_red_combine: blocks of at most 256 threads, 4 of
 * them resident per SM where that fits without spills (ptxas keeps to 64 registers:
 * k_red_block, which took 108, and k_red_rows; half of an SM's 64 warps), 3 for
 * k_red_fsum and 2 for the float k_red_cols (below). The launchers cap the block at
 * 256 threads (no result depends on the block size). */
#define RED_BLOCK_THREADS 256
#define RED_BLOCK_MIN 4
/* AUG_GLOBAL_BOUNDED (cuda/compat.h) with m resident blocks instead of one. */
#define RED_GLOBAL_OCC(n, m) __global__ __launch_bounds__(n, m)

#define MAX_THREADS 1024
#define BLOCKS_PER_CHUNK (AUG__RED_CHUNK / AUG__RED_BLOCK)

/* The result r of chunk c of output o: the chunk partial ([O][nchunks]) where
 * there are several, else stored at out. */
template <class T>
AUG_DEV void put_part(const red_args &a, red_part *parts, int64_t o, int64_t c, char *out, const red_part &r) {
    if (parts)
        parts[o * a.nchunks + c] = r;
    else
        aug__red_store((aug_reduce_op)a.op, red_traits<T>::is_float, a.in_t, a.out_t, a.ieee_out, r.i, r.f, r.flag,
                       a.R, r.arg, out);
}

/* Float sums and means: one GPU block per (output, chunk), the chunk's float blocks
 * staged warp by warp (stage_block_values) into bval, then combined in block order
 * (pw_tree); parts as put_part takes it. I: the index type (out_ptrs). */
template <class T, class I>
AUG_DEV void fsum_body(const red_args &a, red_part *parts, double *bval, T *tile) {
    const I work = (I)(a.O * a.nchunks), nchunks = (I)a.nchunks;
    for (I w = blockIdx.x; w < work; w += gridDim.x) {
        const I c = w % nchunks, r0 = c * (I)AUG__RED_CHUNK;
        const int n = (int)(a.R - (int64_t)r0 < AUG__RED_CHUNK ? a.R - (int64_t)r0 : AUG__RED_CHUNK);
        const int nb = (n + AUG__RED_BLOCK - 1) / AUG__RED_BLOCK;
        stage_block_values<T, I>(a, in_ptr<I>(a, w / nchunks), r0, n, nb, bval, tile);
        __syncthreads();
        const double total = pw_tree(bval, nb);
        if (threadIdx.x == 0) {
            const I o = w / nchunks;
            const char *base;
            char *out;
            out_ptrs<I>(a, o, &base, &out);
            red_part r;
            part_init(&r, a.op);
            r.f = total;
            r.n = n;
            put_part<T>(a, parts, (int64_t)o, (int64_t)(w - o * nchunks), out, r);
        }
    }
}

/* The float sums' kernels: 32-bit indices (k_red_fsum, 4 blocks of 256 threads
 * resident, 64 registers, half of an SM's warps) and 64-bit ones for a reduction
 * with an index past 2^31 (k_red_fsum_wide: its 64-bit divisions are calls, and
 * at 64 registers they spilled 20-24 bytes on sm_100, so 3 blocks, at most 85).
 * Before the split (one kernel, 64-bit indices, 8 accumulators a thread): 80
 * registers, 3 blocks (37.5%). */
#define RED_FSUM_MIN 4
#define RED_FSUM_WIDE_MIN 3
#define RED_FSUM_SHARED(T)                                                                                  \
    AUG_SHARED(double, bval, BLOCKS_PER_CHUNK);                                                             \
    /* (RED_BLOCK_THREADS / 32) warps' tiles of 16 blocks: at most 9 KiB (float64), beside bval's 4 */      \
    AUG_SHARED(T, tile, RED_BLOCK_THREADS / 2 * (RED_STAGE_G(T) + 1))
template <class T>
RED_GLOBAL_OCC(RED_BLOCK_THREADS, RED_FSUM_MIN) void k_red_fsum(red_args a, red_part *parts) {
    RED_FSUM_SHARED(T);
    fsum_body<T, uint32_t>(a, parts, bval, tile);
}
template <class T>
RED_GLOBAL_OCC(RED_BLOCK_THREADS, RED_FSUM_WIDE_MIN) void k_red_fsum_wide(red_args a, red_part *parts) {
    RED_FSUM_SHARED(T);
    fsum_body<T, int64_t>(a, parts, bval, tile);
}

/* Everything but float sums: one GPU block per (output, chunk), thread t on the
 * elements t, t + T, ... (coalesced), the threads' parts merged by thread 0
 * (exact or order free); parts as put_part takes it. */
template <class T>
RED_GLOBAL_OCC(RED_BLOCK_THREADS, RED_BLOCK_MIN) void k_red_block(red_args a, red_part *parts) {
    AUG_SHARED(red_tpart, tpart, RED_BLOCK_THREADS);
    const int64_t work = a.O * a.nchunks;
    for (int64_t w = blockIdx.x; w < work; w += gridDim.x) {
        const int64_t r0 = (w % a.nchunks) * AUG__RED_CHUNK;
        const char *const base = in_ptr(a, w / a.nchunks);
        const int n = (int)(a.R - r0 < AUG__RED_CHUNK ? a.R - r0 : AUG__RED_CHUNK);
        red_part p;
        part_init(&p, a.op);
        for (int i = (int)threadIdx.x; i < n; i += (int)blockDim.x)
            part_add<T>(&p, a.op, load_at<T>(a, base, r0 + i), r0 + i);
        tpart[threadIdx.x].i = p.i;
        tpart[threadIdx.x].n = is_arg_op(a.op) ? p.arg : p.n;
        tpart[threadIdx.x].flag = p.flag;
        __syncthreads();
        if (threadIdx.x == 0) {
            red_part r;
            part_init(&r, a.op);
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
            const int64_t o = w / a.nchunks;
            const char *in;
            char *out;
            out_ptrs(a, o, &in, &out); /* (here: fewer registers live across the loop) */
            put_part<T>(a, parts, o, w - o * a.nchunks, out, r);
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

/* ---- outputs side by side: columns and short rows ------------------------------------------ */

/* The pairwise counter of one thread (aug__red_pw_push's stack as a binary
 * counter: run[i * stride] holds the finished run of 2^i values when bit i of cnt
 * is set; at most 512 blocks per chunk, so 10 runs). The runs live in shared
 * memory, the thread's own column of a block-wide array (in registers they took
 * 20 more and the kernel 110). */
#define RED_RUNS 10
AUG_DEV void runs_push(double *run, int stride, unsigned cnt, double x) {
    int i = 0;
    for (; (cnt >> i) & 1u; i++) x = run[i * stride] + x;
    run[i * stride] = x;
}

/* aug__red_pw_total of the counter: the runs folded from the smallest up. */
AUG_DEV double runs_total(const double *run, int stride, unsigned cnt) {
    double t = 0.0;
    int first = 1;
    for (int i = 0; i < RED_RUNS; i++)
        if ((cnt >> i) & 1u) {
            t = first ? run[i * stride] : run[i * stride] + t;
            first = 0;
        }
    return t;
}

/* The n elements of one output's chunk from r0 by one thread, in the CPU's order:
 * float sums in blocks of 8 lanes and the blocks through the counter (runs_push:
 * run, stride), the rest element by element. */
template <class T, class I>
AUG_DEV red_part chunk_serial(const red_args &a, const char *base, I r0, int n, double *run, int stride) {
    red_part p;
    part_init(&p, a.op);
    if (red_traits<T>::is_float && (a.op == AUG_REDUCE_SUM || a.op == AUG_REDUCE_MEAN)) {
        unsigned cnt = 0;
        for (int b = 0; b < n; b += AUG__RED_BLOCK, cnt++) {
            const int e = b + AUG__RED_BLOCK < n ? b + AUG__RED_BLOCK : n;
            double lane[AUG__RED_LANES];
AUG_UNROLL
            for (int k = 0; k < AUG__RED_LANES; k++) lane[k] = -0.0;
            int r = b;
            for (; r + AUG__RED_LANES <= e; r += AUG__RED_LANES) {
AUG_UNROLL
                for (int k = 0; k < AUG__RED_LANES; k++)
                    lane[k] += red_traits<T>::fval(load_at<T>(a, base, (I)(r0 + (I)(r + k))));
            }
AUG_UNROLL
            for (int k = 0; k < AUG__RED_LANES; k++)
                if (r + k < e) lane[k] += red_traits<T>::fval(load_at<T>(a, base, (I)(r0 + (I)(r + k))));
            runs_push(run, stride, cnt, aug__red_lanes_fold(lane));
        }
        p.f = runs_total(run, stride, cnt);
        p.n = n;
        return p;
    }
    for (int r = 0; r < n; r++) part_add<T>(&p, a.op, load_at<T>(a, base, (I)(r0 + (I)r)), (int64_t)r0 + r);
    return p;
}

/* Column reductions (the kept innermost axis contiguous, the reduced one not):
 * one thread per (output, chunk), consecutive threads on consecutive outputs of
 * the same chunk, so at each reduced position a warp reads 32 neighbouring
 * elements (coalesced) while each thread keeps the CPU's order for its own output.
 * parts: the chunk partials ([O][nchunks]) for k_red_combine, or NULL with one chunk.
 * I: the index type (out_ptrs). */
template <class T, class I>
AUG_DEV void cols_body(const red_args &a, red_part *parts, double *run) {
    const I work = (I)(a.O * a.nchunks), O = (I)a.O;
    for (I w = (I)blockIdx.x * blockDim.x + threadIdx.x; w < work; w += (I)gridDim.x * blockDim.x) {
        const I r0 = w / O * (I)AUG__RED_CHUNK;
        const int n = (int)(a.R - (int64_t)r0 < AUG__RED_CHUNK ? a.R - (int64_t)r0 : AUG__RED_CHUNK);
        const red_part r = chunk_serial<T, I>(a, in_ptr<I>(a, w % O), r0, n, run, (int)blockDim.x);
        const I c = w / O, o = w - c * O; /* (after the loop: fewer registers live across it) */
        const char *base;
        char *out;
        out_ptrs<I>(a, o, &base, &out); /* (again: fewer registers live across the loop) */
        put_part<T>(a, parts, (int64_t)o, (int64_t)c, out, r);
    }
}

/* The columns' kernels: 32-bit indices (k_red_cols) and 64-bit ones for a
 * reduction with an index past 2^31 (k_red_cols_wide). The float sums keep their
 * thread's counter in shared memory (RED_RUNS x 256 doubles, 20 KiB a block).
 * Before the split (one kernel, 64-bit indices): the float sums' 8 lanes and loads
 * in flight spilled 16 bytes at 64 registers (sm_90) and 20 at 80 (sm_100), so 2
 * resident blocks of 256 threads (at most 128 registers, 123 used: 25%); the
 * wide kernel keeps that bound. */
#define RED_COLS_FLOAT_MIN 4
#define RED_COLS_WIDE_FLOAT_MIN 2
#define RED_COLS_RUNS(T)                                                \
    double *run = NULL; /* the thread's counter (float sums) */         \
    if constexpr (red_traits<T>::is_float) {                            \
        AUG_SHARED(double, runs, RED_RUNS * RED_BLOCK_THREADS);         \
        run = runs + threadIdx.x;                                       \
    }
template <class T>
RED_GLOBAL_OCC(RED_BLOCK_THREADS, red_traits<T>::is_float ? RED_COLS_FLOAT_MIN : RED_BLOCK_MIN) void k_red_cols(red_args a,
                                                                                              red_part *parts) {
    RED_COLS_RUNS(T)
    cols_body<T, uint32_t>(a, parts, run);
}
template <class T>
RED_GLOBAL_OCC(RED_BLOCK_THREADS, red_traits<T>::is_float ? RED_COLS_WIDE_FLOAT_MIN : RED_BLOCK_MIN) void k_red_cols_wide(
    red_args a, red_part *parts) {
    RED_COLS_RUNS(T)
    cols_body<T, int64_t>(a, parts, run);
}

/* Short rows (R <= AUG__RED_BLOCK, the reduced innermost axis contiguous): a block
 * takes P = min(threads, tile elements / R) outputs at a time, its threads load the
 * P rows' P x R elements in index order (lanes on neighbouring elements: coalesced
 * when the rows are adjacent) into a tile of shared memory (16 KiB), then thread m
 * reduces row m from the tile in the CPU's order (one float block: 8 lanes, folded;
 * the rest element by element). The tile has one pad element per 32, against bank
 * conflicts on rows of a multiple of 32 elements. */
#define RED_ROWS_TILE_BYTES 16384
#define RED_ROWS_PAD(t) ((t) + (t) / 32)
template <class T>
RED_GLOBAL_OCC(RED_BLOCK_THREADS, RED_BLOCK_MIN) void k_red_rows(red_args a) {
    constexpr int TILE = RED_ROWS_TILE_BYTES / (int)sizeof(T);
    AUG_SHARED(T, tile, TILE + TILE / 32);
    const int R = (int)a.R;
    const int P = (int)blockDim.x < TILE / R ? (int)blockDim.x : TILE / R;
    const int float_sum = red_traits<T>::is_float && (a.op == AUG_REDUCE_SUM || a.op == AUG_REDUCE_MEAN);
    for (int64_t o0 = (int64_t)blockIdx.x * P; o0 < a.O; o0 += (int64_t)gridDim.x * P) {
        const int n = a.O - o0 < P ? (int)(a.O - o0) : P;
        for (int t = threadIdx.x; t < n * R; t += blockDim.x) {
            const int m = t / R, r = t - m * R;
            const char *base;
            char *out;
            out_ptrs(a, o0 + m, &base, &out);
            tile[RED_ROWS_PAD(t)] = load_at<T>(a, base, r);
        }
        __syncthreads();
        if ((int)threadIdx.x < n) {
            const int m = threadIdx.x;
            red_part p;
            part_init(&p, a.op);
            if (float_sum) {
                double lane[AUG__RED_LANES];
AUG_UNROLL
                for (int k = 0; k < AUG__RED_LANES; k++) lane[k] = -0.0;
                int r = 0;
                for (; r + AUG__RED_LANES <= R; r += AUG__RED_LANES) {
AUG_UNROLL
                    for (int k = 0; k < AUG__RED_LANES; k++)
                        lane[k] += red_traits<T>::fval(tile[RED_ROWS_PAD(m * R + r + k)]);
                }
AUG_UNROLL
                for (int k = 0; k < AUG__RED_LANES; k++)
                    if (r + k < R) lane[k] += red_traits<T>::fval(tile[RED_ROWS_PAD(m * R + r + k)]);
                p.f = aug__red_lanes_fold(lane);
                p.n = R;
            } else {
                for (int r = 0; r < R; r++) part_add<T>(&p, a.op, tile[RED_ROWS_PAD(m * R + r)], r);
            }
            const char *base;
            char *out;
            out_ptrs(a, o0 + m, &base, &out);
            aug__red_store((aug_reduce_op)a.op, red_traits<T>::is_float, a.in_t, a.out_t, a.ieee_out, p.i, p.f,
                           p.flag, a.R, p.arg, out);
        }
        __syncthreads();
    }
}

/* ---- the entry ---------------------------------------------------------------------------- */

enum { RED_K_BLOCK, RED_K_FSUM, RED_K_COLS };

/* Whether the 32-bit kernels (k_red_fsum, k_red_cols) hold every index of a
 * launch on grid g: the (output, chunk) items plus the grid's threads (the loop
 * index stays below 2^32), the outputs and the reduced positions all below 2^31
 * (each extent is at most its range). The emulation's AUG_EMU_RED_INDEX64=1 takes
 * the 64-bit ones always (the tests' way to run them on small tensors). */
static int red_index32(const red_args *a, aug__cuda_grid g) {
#ifdef AUG_CUDA_EMU
    const char *wide = getenv("AUG_EMU_RED_INDEX64");
    if (wide && strcmp(wide, "1") == 0) return 0;
#endif
    const int64_t threads = (int64_t)g.blocks * g.threads;
    return a->R <= INT32_MAX && a->O <= INT32_MAX && a->nchunks <= INT32_MAX / a->O && threads <= INT32_MAX;
}

/* k_red_block, k_red_fsum or k_red_cols (kind; the *_wide ones where an index
 * needs 64 bits) on grid g, with parts for the chunk partials (NULL: one chunk,
 * results stored directly). */
template <class T>
static aug_status launch_kind(const char *func, const red_args *a, aug__cuda_grid g, cudaStream_t stream, int kind,
                              red_part *parts) {
    const int i32 = red_index32(a, g);
    if constexpr (red_traits<T>::is_float) /* (k_red_fsum only for the float dtypes) */
        if (kind == RED_K_FSUM) {
            if (!i32) {
                AUG_LAUNCH((k_red_fsum_wide<T>), g.blocks, g.threads, 0, stream, *a, parts);
                return aug__cuda_launched(func, "k_red_fsum_wide", g.blocks, g.threads);
            }
            AUG_LAUNCH((k_red_fsum<T>), g.blocks, g.threads, 0, stream, *a, parts);
            return aug__cuda_launched(func, "k_red_fsum", g.blocks, g.threads);
        }
    switch (kind) {
    case RED_K_COLS:
        if (!i32) {
            AUG_LAUNCH((k_red_cols_wide<T>), g.blocks, g.threads, 0, stream, *a, parts);
            return aug__cuda_launched(func, "k_red_cols_wide", g.blocks, g.threads);
        }
        AUG_LAUNCH((k_red_cols<T>), g.blocks, g.threads, 0, stream, *a, parts);
        return aug__cuda_launched(func, "k_red_cols", g.blocks, g.threads);
    default:
        AUG_LAUNCH((k_red_block<T>), g.blocks, g.threads, 0, stream, *a, parts);
        return aug__cuda_launched(func, "k_red_block", g.blocks, g.threads);
    }
}

/* The kernel of `kind` on grid g; with several chunks their partials go to a
 * temporary, then k_red_combine folds them per output. */
template <class T>
static aug_status run_kind(const char *func, const aug__exec *e, const red_args *a, aug__cuda_grid g, int kind) {
    const int dev = e->device.id;
    const cudaStream_t stream = aug__cuda_stream(e);
    if (a->nchunks <= 1) return launch_kind<T>(func, a, g, stream, kind, NULL);
    size_t bytes = (size_t)(a->O * a->nchunks) * (sizeof(red_part) + sizeof(double));
    red_part *parts = (red_part *)aug__cuda_tmp_alloc(func, dev, bytes, stream);
    if (!parts) return AUG_ERR_MEMORY;
    double *fsum = (double *)(void *)(parts + a->O * a->nchunks);
    aug_status st = launch_kind<T>(func, a, g, stream, kind, parts);
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

template <class T>
static aug_status run(const char *func, const aug__exec *e, const red_args *a) {
    const int dev = e->device.id;
    const cudaStream_t stream = aug__cuda_stream(e);
    const int64_t es = (int64_t)sizeof(T);
    /* Short rows, contiguous: a block stages several rows at once. */
    if (a->R >= 1 && a->R <= AUG__RED_BLOCK && a->nr >= 1 && a->rst[a->nr - 1] == es) {
        aug__cuda_grid g = aug__cuda_grid_for(e, 1, 128);
        g.threads = aug__cuda_bounded(g.threads, RED_BLOCK_THREADS);
        const int64_t tile = RED_ROWS_TILE_BYTES / es, per = g.threads < tile / a->R ? g.threads : tile / a->R;
        unsigned threads = g.threads;
        g = aug__cuda_grid_for(e, (a->O + per - 1) / per * threads, threads);
        g.threads = threads;
        AUG_LAUNCH((k_red_rows<T>), g.blocks, g.threads, 0, stream, *a);
        return aug__cuda_launched(func, "k_red_rows", g.blocks, g.threads);
    }
    /* Outputs side by side in memory (a sector of them at least) or short ranges:
     * a thread per (output, chunk). */
    const int cols = a->no >= 1 && a->ost_in[a->no - 1] == es && a->oext[a->no - 1] * es >= 32;
    if (cols || a->R <= AUG__RED_BLOCK) {
        aug__cuda_grid g = aug__cuda_grid_for(e, a->O * a->nchunks, 128);
        g.threads = aug__cuda_bounded(g.threads, RED_BLOCK_THREADS);
        return run_kind<T>(func, e, a, g, RED_K_COLS);
    }
    aug__cuda_grid g = aug__cuda_grid_for(e, a->O * a->nchunks * 256, 256);
    if (e->launch.blocks_per_sm <= 0) {
        int64_t work = a->O * a->nchunks, cap = (int64_t)aug__cuda_device(dev)->max_grid_x;
        g.blocks = (unsigned)(work < cap ? work : cap);
    }
    if (g.threads > MAX_THREADS)
        return aug__error(AUG_ERR_CUDA, func, "a reduction block has at most %d threads, %u were requested",
                          MAX_THREADS, g.threads);
    g.threads = aug__cuda_bounded(g.threads, RED_BLOCK_THREADS);
    const int fsum = red_traits<T>::is_float && (a->op == AUG_REDUCE_SUM || a->op == AUG_REDUCE_MEAN);
    if (fsum && g.threads % 2) g.threads++; /* stage_block_values' lanes go in pairs */
    return run_kind<T>(func, e, a, g, fsum ? RED_K_FSUM : RED_K_BLOCK);
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
    a.nchunks = a.R > 0 ? (a.R + AUG__RED_CHUNK - 1) / AUG__RED_CHUNK : 1; /* an empty range: one chunk */
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
