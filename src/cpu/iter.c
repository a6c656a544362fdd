/* cpu/iter.c: the CPU's strided loop executor (contract in cpu/iter.h).
 *
 * The core's planner (core/plan.c) has broadcast, de-overlapped and coalesced the
 * operands. Here:
 *  1. the iteration space is cut into tasks of TASK_ELEMS elements in C order (a
 *     fixed size, so the split never depends on the thread count) run on the
 *     pool. Within a task the inner dimension is walked in runs. Without any
 *     conversion the kernel gets whole runs with the operands' own byte strides
 *     (contiguous runs have stride == itemsize, which kernels vectorise);
 *     otherwise runs are cut into blocks of BLOCK elements, inputs whose dtype
 *     differs from their ctype are converted into per-task buffers, and a
 *     buffered result is converted into the output with saturation (or, for a
 *     float result in its own dtype, rounded as IEEE does: the loop's ieee_out);
 *  2. when an input is transposed relative to the output (its inner stride
 *     crosses cache lines), the two inner dimensions are walked in TILE x TILE
 *     tiles instead, one band of rows per task;
 *  3. a broadcast value copied into a run (a fill) is converted once per run.
 * Every element is computed by the same kernel on the same values whatever the
 * thread count, so results are identical for any number of threads. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "cpu/convert.h"
#include "cpu/iter.h"
#include "cpu/pool.h"
#include "core/tensor_impl.h"

/* 64K elements: large enough that the pool's hand-off (a few microseconds) is
 * negligible even for a 1-byte copy, small enough to balance 2-16 workers on a
 * one-megapixel image. */
#define TASK_ELEMS ((int64_t)1 << 16)
/* 1024 elements: a conversion buffer is at most 16 KiB (i128), so the buffers of a
 * block stay in L1/L2 between the conversion and the kernel. */
#define BLOCK ((int64_t)1024)
/* Tile edge for transposed operands: a 64 x 64 tile of 8-byte elements reads 512
 * cache lines (32 KiB) of the transposed input, which stay in L1/L2 while the
 * tile's rows are written. */
#define TILE ((int64_t)64)

typedef struct plan {
    int nin, nops, ndim;          /* operand nin is the output; ndim >= 1 */
    int64_t shape[AUG_MAX_DIMS];
    int64_t size;
    char *base[AUG__MAX_OPS];
    int64_t stride[AUG__MAX_OPS][AUG_MAX_DIMS]; /* bytes */
    int dtype[AUG__MAX_OPS], ctype[AUG__MAX_OPS];
    int64_t csize[AUG__MAX_OPS];
    int convert[AUG__MAX_OPS];    /* operand goes through a conversion buffer */
    int any_convert;
    int ieee_out;                 /* the result is stored with aug__convert_ieee */
    int64_t nbands;               /* > 0: tiled walk with this many row bands per outer index */
    aug__kernel kernel;
    aug__kernel_ctx kctx;         /* what every kernel call receives as ctx */
    atomic_int failed;            /* a task could not allocate its buffers */
} plan;

/* ---- one task ------------------------------------------------------------------- */

static void run_converted(const plan *p, char **ptr, int64_t n, const int64_t *st, char **buf) {
    char *data[AUG__MAX_OPS];
    int64_t kst[AUG__MAX_OPS];
    const int out = p->nin;
    for (int64_t off = 0; off < n; off += BLOCK) {
        int64_t m = n - off < BLOCK ? n - off : BLOCK;
        for (int i = 0; i < p->nin; i++) {
            char *src = ptr[i] + off * st[i];
            if (!p->convert[i]) {
                data[i] = src;
                kst[i] = st[i];
            } else if (st[i] == 0) { /* broadcast: convert the one value */
                aug__convert(src, 0, p->dtype[i], buf[i], 0, p->ctype[i], 1);
                data[i] = buf[i];
                kst[i] = 0;
            } else {
                aug__convert(src, st[i], p->dtype[i], buf[i], p->csize[i], p->ctype[i], m);
                data[i] = buf[i];
                kst[i] = p->csize[i];
            }
        }
        char *dst = ptr[out] + off * st[out];
        data[out] = p->convert[out] ? buf[out] : dst;
        kst[out] = p->convert[out] ? p->csize[out] : st[out];
        p->kernel(data, m, kst, (void *)&p->kctx);
        if (p->convert[out]) {
            if (p->ieee_out)
                aug__convert_ieee(buf[out], p->csize[out], p->ctype[out], dst, st[out], p->dtype[out], m);
            else
                aug__convert(buf[out], p->csize[out], p->ctype[out], dst, st[out], p->dtype[out], m);
        }
    }
}

/* Fills n elements of `size` bytes at dst (byte stride st) with the element at v
 * (typed stores only where dst is aligned: a view may start at any byte). */
static void fill_run(char *dst, int64_t st, int64_t size, int64_t n, const void *v) {
#define FILL_(T)                                                          \
    do {                                                                  \
        T x;                                                              \
        memcpy(&x, v, sizeof x);                                          \
        if (st == (int64_t)sizeof x && (uintptr_t)dst % sizeof x == 0)    \
            for (int64_t i = 0; i < n; i++) ((T *)(void *)dst)[i] = x;    \
        else                                                              \
            for (int64_t i = 0; i < n; i++) memcpy(dst + i * st, &x, sizeof x); \
    } while (0)
    switch (size) {
    case 1:
        if (st == 1) {
            memset(dst, *(const unsigned char *)v, (size_t)n);
            return;
        }
        FILL_(uint8_t);
        return;
    case 2: FILL_(uint16_t); return;
    case 4: FILL_(uint32_t); return;
    default: FILL_(uint64_t); return;
    }
#undef FILL_
}

/* One 1-D run of n elements at ptr with byte strides st. */
static void run_one(const plan *p, char **ptr, int64_t n, const int64_t *st, char **buf) {
    if (p->kernel) {
        if (p->any_convert)
            run_converted(p, ptr, n, st, buf);
        else
            p->kernel(ptr, n, st, (void *)&p->kctx);
    } else if (st[0] == 0 && n > 1) { /* a fill: convert the value once */
        _Alignas(16) char v[16];
        aug__convert(ptr[0], 0, p->dtype[0], v, 0, p->dtype[1], 1);
        fill_run(ptr[1], st[1], p->csize[1], n, v);
    } else {
        aug__convert(ptr[0], st[0], p->dtype[0], ptr[1], st[1], p->dtype[1], n);
    }
}

/* Tasks of a linear walk: TASK_ELEMS consecutive elements in C order. */
static void walk_linear(const plan *p, int64_t task, char **buf) {
    const int nd = p->ndim, inner = nd - 1;
    int64_t begin = task * TASK_ELEMS, end = p->size - begin < TASK_ELEMS ? p->size : begin + TASK_ELEMS;
    int64_t idx[AUG_MAX_DIMS], rem = begin, st[AUG__MAX_OPS];
    for (int d = inner; d >= 0; d--) {
        idx[d] = rem % p->shape[d];
        rem /= p->shape[d];
    }
    for (int i = 0; i < p->nops; i++) st[i] = p->stride[i][inner];
    for (int64_t pos = begin; pos < end;) {
        int64_t n = p->shape[inner] - idx[inner];
        if (n > end - pos) n = end - pos;
        char *ptr[AUG__MAX_OPS];
        for (int i = 0; i < p->nops; i++) {
            ptr[i] = p->base[i];
            for (int d = 0; d < nd; d++) ptr[i] += idx[d] * p->stride[i][d];
        }
        run_one(p, ptr, n, st, buf);
        pos += n;
        idx[inner] += n;
        for (int d = inner; d > 0 && idx[d] == p->shape[d]; d--) {
            idx[d] = 0;
            idx[d - 1]++;
        }
    }
}

/* Tasks of a tiled walk: one band of TILE rows of the two inner dimensions (for
 * one index of the outer ones), visited in TILE x TILE tiles so an input that is
 * transposed relative to the output reuses its cache lines within a tile. */
static void walk_tiled(const plan *p, int64_t task, char **buf) {
    const int nd = p->ndim, rd = nd - 2, cd = nd - 1;
    const int64_t R = p->shape[rd], C = p->shape[cd];
    int64_t outer = task / p->nbands, r0 = task % p->nbands * TILE, r1 = R - r0 < TILE ? R : r0 + TILE;
    char *base[AUG__MAX_OPS];
    int64_t st[AUG__MAX_OPS];
    for (int i = 0; i < p->nops; i++) {
        base[i] = p->base[i];
        st[i] = p->stride[i][cd];
    }
    for (int d = rd - 1; d >= 0; d--) {
        int64_t k = outer % p->shape[d];
        outer /= p->shape[d];
        for (int i = 0; i < p->nops; i++) base[i] += k * p->stride[i][d];
    }
    for (int64_t c0 = 0; c0 < C; c0 += TILE) {
        int64_t n = C - c0 < TILE ? C - c0 : TILE;
        for (int64_t r = r0; r < r1; r++) {
            char *ptr[AUG__MAX_OPS];
            for (int i = 0; i < p->nops; i++) ptr[i] = base[i] + r * p->stride[i][rd] + c0 * st[i];
            run_one(p, ptr, n, st, buf);
        }
    }
}

static void task_fn(void *vctx, int64_t task, int worker) {
    plan *p = vctx;
    (void)worker;
    char *buf[AUG__MAX_OPS] = {0};
    char *mem = NULL;
    if (p->kernel && p->any_convert) {
        size_t total = 0, at[AUG__MAX_OPS];
        for (int i = 0; i < p->nops; i++) {
            at[i] = total;
            if (p->convert[i]) total += (size_t)(BLOCK * p->csize[i]);
        }
        mem = aligned_alloc(64, total); /* total is a multiple of 64: BLOCK * size */
        if (!mem) {
            atomic_store(&p->failed, 1);
            return;
        }
        for (int i = 0; i < p->nops; i++)
            if (p->convert[i]) buf[i] = mem + at[i];
    }
    if (p->nbands)
        walk_tiled(p, task, buf);
    else
        walk_linear(p, task, buf);
    free(mem);
}

/* Tile when an input walks the inner dimension across cache lines (more than 64
 * bytes per step) while another dimension of at least TILE elements steps it more
 * closely (a transposed input). That dimension is moved next to the inner one, so
 * the tiles pair it with the inner dimension. Returns 1 if tiling. */
static int choose_tiles(plan *p) {
    const int cd = p->ndim - 1;
    if (p->ndim < 2 || p->shape[cd] < TILE) return 0;
    for (int i = 0; i < p->nin; i++) {
        int64_t sc = llabs(p->stride[i][cd]), best = sc;
        int k = -1;
        for (int d = 0; d < cd; d++)
            if (p->shape[d] >= TILE && llabs(p->stride[i][d]) < best) {
                best = llabs(p->stride[i][d]);
                k = d;
            }
        if (sc <= 64 || k < 0) continue;
        for (int d = k; d < cd - 1; d++) { /* rotate dimension k to position cd - 1 */
            int64_t t = p->shape[d];
            p->shape[d] = p->shape[d + 1];
            p->shape[d + 1] = t;
            for (int j = 0; j < p->nops; j++) {
                t = p->stride[j][d];
                p->stride[j][d] = p->stride[j][d + 1];
                p->stride[j][d + 1] = t;
            }
        }
        return 1;
    }
    return 0;
}

/* ---- running a loop plan --------------------------------------------------------- */

/* A plan of at most one conversion block, one dimension and no conversion: the
 * kernel runs on the caller's thread at once. Small ops from Python are this case,
 * and the task machinery (the plan copy, the pool's hand-off) would cost more than
 * the kernel. Same result as the general path: one task, one run. */
static int run_tiny(const aug__loop *loop, aug__kernel kernel, void *ctx) {
    if (!kernel || loop->ndim != 1 || loop->size > BLOCK) return 0;
    char *ptr[AUG__MAX_OPS];
    int64_t st[AUG__MAX_OPS];
    for (int i = 0; i <= loop->nin; i++) {
        if (loop->dtype[i] != loop->ctype[i]) return 0;
        ptr[i] = loop->base[i] ? loop->base[i] : (char *)loop->scalar[i];
        st[i] = loop->stride[i][0];
    }
    aug__kernel_ctx kctx = {ctx, 0};
    kernel(ptr, loop->size, st, &kctx);
    return 1;
}

aug_status aug__cpu_loop_run(const char *func, const aug__loop *loop, aug__kernel kernel, void *ctx) {
    if (run_tiny(loop, kernel, ctx)) return AUG_OK;
    /* On the stack: aug__parallel_for returns only when every task has finished, and
     * small ops are dominated by allocator calls otherwise. */
    plan pl;
    memset(&pl, 0, sizeof pl);
    plan *p = &pl;
    p->nin = loop->nin;
    p->nops = loop->nin + 1;
    p->ndim = loop->ndim;
    p->size = loop->size;
    p->kernel = kernel;
    p->kctx.op = ctx;
    memcpy(p->shape, loop->shape, sizeof p->shape);
    for (int i = 0; i < p->nops; i++) {
        /* a scalar input reads the plan's element, with stride 0 everywhere */
        p->base[i] = loop->base[i] ? loop->base[i] : (char *)loop->scalar[i];
        memcpy(p->stride[i], loop->stride[i], sizeof p->stride[i]);
        p->dtype[i] = loop->dtype[i];
        p->ctype[i] = kernel ? loop->ctype[i] : loop->dtype[i];
        p->csize[i] = aug__ctype_size(p->ctype[i]);
        p->convert[i] = p->dtype[i] != p->ctype[i];
        p->any_convert |= p->convert[i];
    }
    p->ieee_out = kernel != NULL && loop->ieee_out;
    p->kctx.stream_out = !p->convert[p->nin] && loop->out_contiguous &&
                         p->size * aug__ctype_size(p->dtype[p->nin]) >= AUG__STREAM_MIN_BYTES;
    atomic_init(&p->failed, 0);
    int64_t ntasks = (p->size + TASK_ELEMS - 1) / TASK_ELEMS;
    if (choose_tiles(p)) {
        p->nbands = (p->shape[p->ndim - 2] + TILE - 1) / TILE;
        ntasks = p->size / (p->shape[p->ndim - 2] * p->shape[p->ndim - 1]) * p->nbands;
    }
    aug__parallel_for(ntasks, task_fn, p);
    return atomic_load(&p->failed) ? AUG__NOMEM(func) : AUG_OK;
}

/* ---- plan and run ------------------------------------------------------------------ */

aug_status aug__iter_run(const aug__iter *it) {
    const char *func = it && it->func ? it->func : "aug__iter_run";
    if (!it) return aug__error(AUG_ERR_VALUE, func, "iteration is NULL");
    if (it->nin < 1 || it->nin > AUG__MAX_INPUTS)
        return aug__error(AUG_ERR_VALUE, func, "number of inputs %d is out of range (1 to %d)", it->nin,
                          AUG__MAX_INPUTS);
    if (!it->kernel && it->nin != 1)
        return aug__error(AUG_ERR_VALUE, func, "a copy (no kernel) takes exactly one input, not %d", it->nin);
    aug_status st = aug__tensor_check(func, it->out);
    if (st != AUG_OK) return st;
    aug__ew_operands ops;
    memset(&ops, 0, sizeof ops);
    ops.nin = it->nin;
    for (int i = 0; i < it->nin; i++) {
        if ((st = aug__tensor_check(func, it->in[i])) != AUG_OK) return st;
        ops.in[i] = it->in[i];
        ops.in_ctype[i] = it->kernel ? it->in_ctype[i] : (int)it->in[i]->dtype;
    }
    ops.out = it->out;
    ops.out_ctype = it->kernel ? it->out_ctype : (int)it->out->dtype;
    aug__ew_plan ew;
    memset(&ew, 0, sizeof ew);
    ew.func = func;
    ew.op = it->kernel ? AUG_OP_POS : AUG_OP_COPY; /* only the copy's no-op rule looks at it */
    ew.exec.device = aug_cpu_device();
    int noop;
    aug__plan_temps temps;
    st = aug__plan_elementwise(&ew, &ops, &noop, &temps);
    if (st == AUG_OK && !noop) st = aug__cpu_loop_run(func, &ew.loop, it->kernel, it->ctx);
    aug__plan_release(&temps);
    return st;
}
