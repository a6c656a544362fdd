/* cuda/reduce.cu: the CUDA reductions (sum, mean, min, max, all, any),
 * semantics §10, bit-identical to the CPU's (scalar/reduce.h gives the order).
 *
 * The plan (core/plan.h) lists the reduced and the kept dimensions. The reduced
 * range of each output is cut into chunks of AUG__RED_CHUNK elements and each
 * chunk into blocks of AUG__RED_BLOCK, as on the CPU:
 *  - small reductions (one chunk, or many outputs): one GPU thread per output
 *    runs the whole sequence itself (k_red_thread);
 *  - otherwise one GPU block per (output, chunk) (k_red_block): thread t sums
 *    the float blocks t, t + T, ... in their lanes and keeps the block values in
 *    shared memory, then thread 0 combines them in block order with the
 *    pairwise stack; integer sums, min/max keys and flags are exact or order
 *    free and are combined across threads in any order. With several chunks the
 *    chunk partials go to a temporary and k_red_combine folds them per output
 *    in chunk order, again with the pairwise stack.
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
};
template <> struct red_traits<red_b> {
    static const int is_float = 0;
    AUG_DEV static aug__i128 ival(red_b x) { return x.v != 0; }
    AUG_DEV static double fval(red_b x) { return x.v != 0; }
    AUG_DEV static aug__i128 key(red_b x) { return x.v != 0; }
    AUG_DEV static int nan(red_b x) { (void)x; return 0; }
    AUG_DEV static int nonzero(red_b x) { return x.v != 0; }
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
    };
FLOAT_TRAITS(red_f16, uint16_t, int16_t, 0x7fffu, 0x7c00u, (double)aug__f16_to_f32(x.v))
FLOAT_TRAITS(red_bf16, uint16_t, int16_t, 0x7fffu, 0x7f80u, (double)aug__bf16_to_f32(x.v))
FLOAT_TRAITS(red_f32, uint32_t, int32_t, 0x7fffffffu, 0x7f800000u, (double)aug__bits_f32(x.v))
FLOAT_TRAITS(red_f64, uint64_t, int64_t, 0x7fffffffffffffffull, 0x7ff0000000000000ull, aug__bits_f64(x.v))

/* The plan's geometry as a kernel argument. */
typedef struct red_args {
    int op, in_t, out_t;
    const char *in0;
    char *out0;
    int nr, no;
    int64_t rext[AUG_MAX_DIMS], rst[AUG_MAX_DIMS];
    int64_t oext[AUG_MAX_DIMS], ost_in[AUG_MAX_DIMS], ost_out[AUG_MAX_DIMS];
    int64_t R, O, nchunks;
} red_args;

/* A partial result: exact integer sum or min/max (float: key), float sum, flag
 * (all/any, float min/max: NaN seen), elements seen. */
typedef struct red_part {
    aug__i128 i;
    double f;
    int flag;
    int64_t n;
} red_part;

/* What one thread of a block hands over (no float sum: that goes by blocks),
 * 32 bytes, so 1024 threads fit the 48 KiB of static shared memory. */
typedef struct red_tpart {
    aug__i128 i;
    int64_t n;
    int flag;
} red_tpart;

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
}

/* Everything but float sums, for one element x. */
template <class T>
AUG_DEV void part_add(red_part *p, int op, T x) {
    typedef red_traits<T> R;
    switch (op) {
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

/* Merges q into p (order free: exact sums, min/max, flags). */
AUG_DEV void part_merge(red_part *p, const red_part *q, int op) {
    if (q->n == 0) return;
    switch (op) {
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

/* The lanes value of float block [r0, r1) of an output (scalar/reduce.h). */
template <class T>
AUG_DEV double block_value(const red_args &a, const char *base, int64_t r0, int64_t r1) {
    double lane[AUG__RED_LANES];
    for (int k = 0; k < AUG__RED_LANES; k++) lane[k] = -0.0;
    for (int64_t r = r0; r < r1; r++) {
        T x;
        memcpy(&x, elem(a, base, r), sizeof x);
        lane[(r - r0) % AUG__RED_LANES] += red_traits<T>::fval(x);
    }
    return aug__red_lanes_fold(lane);
}

/* Chunk c of output (in base) by one thread: its partial. */
template <class T>
AUG_DEV red_part chunk_serial(const red_args &a, const char *base, int64_t c) {
    red_part p;
    part_init(&p, a.op);
    int64_t r0 = c * AUG__RED_CHUNK, r1 = r0 + AUG__RED_CHUNK < a.R ? r0 + AUG__RED_CHUNK : a.R;
    const int float_sum = red_traits<T>::is_float && (a.op == AUG_REDUCE_SUM || a.op == AUG_REDUCE_MEAN);
    if (float_sum) {
        double pw[AUG__RED_PW_SMALL];
        int8_t lv[AUG__RED_PW_SMALL];
        int npw = 0;
        for (int64_t b = r0; b < r1; b += AUG__RED_BLOCK)
            aug__red_pw_push(pw, lv, &npw, block_value<T>(a, base, b, b + AUG__RED_BLOCK < r1 ? b + AUG__RED_BLOCK : r1));
        p.f = r1 > r0 ? aug__red_pw_total(pw, npw) : 0.0;
        p.n = r1 - r0;
        return p;
    }
    for (int64_t r = r0; r < r1; r++) {
        T x;
        memcpy(&x, elem(a, base, r), sizeof x);
        part_add<T>(&p, a.op, x);
    }
    return p;
}

/* Folds chunk partials in chunk order (the CPU's combine) and stores. */
AUG_DEV void finish(const red_args &a, const red_part *parts, int64_t n, int stride, int is_float, char *out) {
    red_part r = parts[0];
    double pw[64];
    int8_t lv[64];
    int npw = 0;
    aug__red_pw_push(pw, lv, &npw, parts[0].f);
    for (int64_t k = 1; k < n; k++) {
        const red_part *q = &parts[k * stride];
        part_merge(&r, q, a.op);
        if (is_float && (a.op == AUG_REDUCE_SUM || a.op == AUG_REDUCE_MEAN)) aug__red_pw_push(pw, lv, &npw, q->f);
    }
    if (n > 1 && is_float) r.f = aug__red_pw_total(pw, npw);
    aug__red_store((aug_reduce_op)a.op, is_float, a.in_t, a.out_t, r.i, r.f, r.flag, a.R, out);
}

/* One thread per output, the whole reduced range (every chunk, in order). */
template <class T>
AUG_GLOBAL void k_red_thread(red_args a) {
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; o < a.O; o += step) {
        const char *base;
        char *out;
        out_ptrs(a, o, &base, &out);
        red_part parts[1];
        if (a.nchunks <= 1) {
            parts[0] = chunk_serial<T>(a, base, 0);
            aug__red_store((aug_reduce_op)a.op, red_traits<T>::is_float, a.in_t, a.out_t, parts[0].i, parts[0].f,
                           parts[0].flag, a.R, out);
            continue;
        }
        /* several chunks: the partials one after another, as finish() folds them */
        red_part r = chunk_serial<T>(a, base, 0);
        double pw[64];
        int8_t lv[64];
        int npw = 0;
        aug__red_pw_push(pw, lv, &npw, r.f);
        for (int64_t c = 1; c < a.nchunks; c++) {
            red_part q = chunk_serial<T>(a, base, c);
            part_merge(&r, &q, a.op);
            aug__red_pw_push(pw, lv, &npw, q.f);
        }
        if (red_traits<T>::is_float) r.f = aug__red_pw_total(pw, npw);
        aug__red_store((aug_reduce_op)a.op, red_traits<T>::is_float, a.in_t, a.out_t, r.i, r.f, r.flag, a.R, out);
    }
}

#define MAX_THREADS 1024
#define BLOCKS_PER_CHUNK (AUG__RED_CHUNK / AUG__RED_BLOCK)

/* One GPU block per (output, chunk); parts: the chunk partials ([O][nchunks]),
 * or NULL with one chunk (then the result is stored directly). */
template <class T>
AUG_GLOBAL void k_red_block(red_args a, red_part *parts) {
    AUG_SHARED(double, bval, BLOCKS_PER_CHUNK);
    AUG_SHARED(red_tpart, tpart, MAX_THREADS);
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
            for (int64_t b = threadIdx.x; b < nb; b += blockDim.x) {
                int64_t b0 = r0 + b * AUG__RED_BLOCK, b1 = b0 + AUG__RED_BLOCK < r1 ? b0 + AUG__RED_BLOCK : r1;
                bval[b] = block_value<T>(a, base, b0, b1);
            }
        } else {
            for (int64_t r = r0 + threadIdx.x; r < r1; r += blockDim.x) {
                T x;
                memcpy(&x, elem(a, base, r), sizeof x);
                part_add<T>(&p, a.op, x);
            }
        }
        tpart[threadIdx.x].i = p.i;
        tpart[threadIdx.x].n = p.n;
        tpart[threadIdx.x].flag = p.flag;
        __syncthreads();
        if (threadIdx.x == 0) {
            red_part r;
            part_init(&r, a.op);
            if (float_sum) {
                double pw[AUG__RED_PW_SMALL];
                int8_t lv[AUG__RED_PW_SMALL];
                int npw = 0;
                for (int64_t b = 0; b < nb; b++) aug__red_pw_push(pw, lv, &npw, bval[b]);
                r.f = aug__red_pw_total(pw, npw);
                r.n = r1 - r0;
            } else {
                for (unsigned t = 0; t < blockDim.x; t++) {
                    red_part q;
                    q.i = tpart[t].i;
                    q.f = 0.0;
                    q.n = tpart[t].n;
                    q.flag = tpart[t].flag;
                    part_merge(&r, &q, a.op);
                }
            }
            if (parts)
                parts[o * a.nchunks + c] = r;
            else
                aug__red_store((aug_reduce_op)a.op, red_traits<T>::is_float, a.in_t, a.out_t, r.i, r.f, r.flag, a.R,
                               out);
        }
        __syncthreads();
    }
}

/* One thread per output: fold its chunk partials. */
AUG_GLOBAL void k_red_combine(red_args a, const red_part *parts, int is_float) {
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; o < a.O; o += step) {
        const char *base;
        char *out;
        out_ptrs(a, o, &base, &out);
        finish(a, parts + o * a.nchunks, a.nchunks, 1, is_float, out);
    }
}

/* ---- the entry ---------------------------------------------------------------------------- */

typedef void (*red_kernel)(red_args);
typedef void (*red_block_kernel)(red_args, red_part *);

template <class T>
static aug_status run(const char *func, const aug__exec *e, const red_args *a) {
    const int dev = e->device.id;
    const cudaStream_t stream = aug__cuda_stream(e);
    /* Many outputs or short ranges: a thread per output keeps every GPU thread busy. */
    if (a->R <= 4 * AUG__RED_BLOCK || a->O >= (int64_t)aug__cuda_device(dev)->sms * 2048) {
        aug__cuda_grid g = aug__cuda_grid_for(e, a->O, 128);
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
    if (a->nchunks <= 1) {
        AUG_LAUNCH((k_red_block<T>), g.blocks, g.threads, 0, stream, *a, (red_part *)NULL);
        return aug__cuda_launched(func, "k_red_block", g.blocks, g.threads);
    }
    size_t bytes = (size_t)(a->O * a->nchunks) * sizeof(red_part);
    red_part *parts = (red_part *)aug__cuda_tmp_alloc(func, dev, bytes, stream);
    if (!parts) return AUG_ERR_MEMORY;
    AUG_LAUNCH((k_red_block<T>), g.blocks, g.threads, 0, stream, *a, parts);
    aug_status st = aug__cuda_launched(func, "k_red_block", g.blocks, g.threads);
    if (st == AUG_OK) {
        aug__cuda_grid g2 = aug__cuda_grid_for(e, a->O, 128);
        AUG_LAUNCH(k_red_combine, g2.blocks, g2.threads, 0, stream, *a, (const red_part *)parts,
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
