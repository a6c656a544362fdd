/* core/iter.c: the one strided iteration engine (contract in iter.h).
 *
 * Steps of aug__iter_run:
 *  1. check operands; broadcast every input to the output's shape (byte stride 0
 *     on broadcast dimensions);
 *  2. an input whose memory range intersects the output's, unless it is the
 *     identical view with the same dtype, is first copied to a private contiguous
 *     buffer (so in-place ops like `t[1:] = t[:-1]` read the old values);
 *  3. drop extent-1 dimensions, make the output's strides positive (reversing a
 *     dimension for every operand keeps the element correspondence), order the
 *     dimensions by decreasing output stride, and merge adjacent dimensions that
 *     are contiguous for every operand;
 *  4. cut the C-order iteration space into tasks of TASK_ELEMS elements (a fixed
 *     size, so the split never depends on the thread count) and run them on the
 *     pool. Within a task the inner dimension is walked in runs. Without any
 *     conversion the kernel gets whole runs with the operands' own byte strides
 *     (contiguous runs have stride == itemsize, which kernels vectorise); otherwise
 *     runs are cut into blocks of BLOCK elements, inputs whose dtype differs from
 *     their ctype are converted into per-task buffers, and a buffered result is
 *     converted into the output with saturation. When an input is transposed
 *     relative to the output (its inner stride crosses cache lines), the two inner
 *     dimensions are walked in TILE x TILE tiles instead, one band of rows per task.
 *     A broadcast value copied into a run (a fill) is converted once per run.
 * Every element is computed by the same kernel on the same values whatever the
 * thread count, so results are identical for any number of threads. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "iter.h"
#include "pool.h"
#include "tensor_impl.h"

/* 64K elements: large enough that the pool's hand-off (a few microseconds) is
 * negligible even for a 1-byte copy, small enough to balance 2-16 workers on a
 * one-megapixel image. */
#define TASK_ELEMS ((int64_t)1 << 16)
/* 1024 elements: a conversion buffer is at most 16 KiB (i128), so the buffers of a
 * block stay in L1/L2 between the conversion and the kernel. */
#define BLOCK ((int64_t)1024)
#define MAX_OPS (AUG__MAX_INPUTS + 1)
/* Tile edge for transposed operands: a 64 x 64 tile of 8-byte elements reads 512
 * cache lines (32 KiB) of the transposed input, which stay in L1/L2 while the
 * tile's rows are written. */
#define TILE ((int64_t)64)

typedef struct plan {
    int nin, nops, ndim;          /* operand nin is the output; ndim >= 1 */
    int64_t shape[AUG_MAX_DIMS];
    int64_t size;
    char *base[MAX_OPS];
    int64_t stride[MAX_OPS][AUG_MAX_DIMS]; /* bytes */
    int dtype[MAX_OPS], ctype[MAX_OPS];
    int64_t csize[MAX_OPS];
    int convert[MAX_OPS];         /* operand goes through a conversion buffer */
    int any_convert;
    int64_t nbands;               /* > 0: tiled walk with this many row bands per outer index */
    aug__kernel kernel;
    aug__kernel_ctx kctx;         /* what every kernel call receives as ctx */
    atomic_int failed;            /* a task could not allocate its buffers */
} plan;

static int64_t ctype_bytes(int ctype) { return ctype < (int)AUG_NUM_DTYPES ? aug__dtype_size((aug_dtype)ctype) : 16; }

/* ---- one task ------------------------------------------------------------------- */

static void run_converted(const plan *p, char **ptr, int64_t n, const int64_t *st, char **buf) {
    char *data[MAX_OPS];
    int64_t kst[MAX_OPS];
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
        if (p->convert[out]) aug__convert(buf[out], p->csize[out], p->ctype[out], dst, st[out], p->dtype[out], m);
    }
}

/* Fills n elements of `size` bytes at dst (byte stride st) with the element at v. */
static void fill_run(char *dst, int64_t st, int64_t size, int64_t n, const void *v) {
#define FILL_(T)                                                          \
    do {                                                                  \
        T x;                                                              \
        memcpy(&x, v, sizeof x);                                          \
        if (st == (int64_t)sizeof x)                                      \
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
    int64_t idx[AUG_MAX_DIMS], rem = begin, st[MAX_OPS];
    for (int d = inner; d >= 0; d--) {
        idx[d] = rem % p->shape[d];
        rem /= p->shape[d];
    }
    for (int i = 0; i < p->nops; i++) st[i] = p->stride[i][inner];
    for (int64_t pos = begin; pos < end;) {
        int64_t n = p->shape[inner] - idx[inner];
        if (n > end - pos) n = end - pos;
        char *ptr[MAX_OPS];
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
    char *base[MAX_OPS];
    int64_t st[MAX_OPS];
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
            char *ptr[MAX_OPS];
            for (int i = 0; i < p->nops; i++) ptr[i] = base[i] + r * p->stride[i][rd] + c0 * st[i];
            run_one(p, ptr, n, st, buf);
        }
    }
}

static void task_fn(void *vctx, int64_t task, int worker) {
    plan *p = vctx;
    (void)worker;
    char *buf[MAX_OPS] = {0};
    char *mem = NULL;
    if (p->kernel && p->any_convert) {
        size_t total = 0, at[MAX_OPS];
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

/* ---- setup ---------------------------------------------------------------------- */

/* Byte strides of t broadcast to out's shape, over out's dimensions. */
static aug_status broadcast_strides(const char *func, const aug_tensor *t, const aug_tensor *out, int64_t *bst) {
    int lead = out->ndim - t->ndim;
    int64_t item = aug__dtype_size(t->dtype);
    for (int d = 0; d < out->ndim; d++) {
        int s = d - lead;
        bst[d] = 0;
        if (s >= 0 && t->shape[s] == out->shape[d] && out->shape[d] > 1 &&
            __builtin_mul_overflow(t->strides[s], item, &bst[d]))
            return aug__error(AUG_ERR_OVERFLOW, func, "tensor strides are too large");
    }
    return AUG_OK;
}

/* Address range [lo, hi) touched by a view with byte strides bst over `shape`. */
static void byte_range(const char *base, int ndim, const int64_t *shape, const int64_t *bst, int64_t item,
                       uintptr_t *lo, uintptr_t *hi) {
    uintptr_t l = (uintptr_t)base, h = (uintptr_t)base + (uintptr_t)item;
    for (int d = 0; d < ndim; d++) {
        int64_t span = bst[d] * (shape[d] - 1);
        if (span < 0)
            l -= (uintptr_t)(-span);
        else
            h += (uintptr_t)span;
    }
    *lo = l;
    *hi = h;
}

/* A packed copy of t (its own shape and dtype) in a fresh buffer: *tmp describes it
 * and *mem must be freed by the caller. */
static aug_status private_copy(const char *func, const aug_tensor *t, aug_tensor *tmp, char **mem) {
    int64_t n = aug__shape_size(t->ndim, t->shape), item = aug__dtype_size(t->dtype);
    size_t bytes = (size_t)(n * item);
    *mem = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!*mem) return aug__error(AUG_ERR_MEMORY, func, "out of memory (failed to allocate %zu bytes)", bytes);
    aug__tensor_0d(tmp, *mem, t->dtype);
    tmp->ndim = t->ndim;
    memcpy(tmp->shape, t->shape, sizeof tmp->shape);
    aug__contiguous_strides(t->ndim, t->shape, tmp->strides);
    aug__iter copy = {.func = func, .nin = 1, .in = {t}, .in_ctype = {(int)t->dtype}, .out = tmp,
                      .out_ctype = (int)t->dtype, .kernel = NULL, .ctx = NULL};
    aug_status st = aug__iter_run(&copy);
    if (st != AUG_OK) {
        free(*mem);
        *mem = NULL;
    }
    return st;
}

static aug_status check_operand(const char *func, const aug_tensor *t, const char *what) {
    aug_status st = aug__tensor_check(func, t);
    if (st != AUG_OK) return st;
    if (t->storage && t->device.type != AUG_DEVICE_CPU) {
        char b[48];
        return aug__error(AUG_ERR_VALUE, func, "the cpu engine cannot access %s on %s", what,
                          aug__device_str(t->device, b, sizeof b));
    }
    if (!t->data && aug__shape_size(t->ndim, t->shape) != 0)
        return aug__error(AUG_ERR_VALUE, func, "%s has no data", what);
    return AUG_OK;
}

/* Drop extent-1 dims, flip negative output strides, sort by output stride, merge. */
static void simplify(plan *p, const aug_tensor *out, int64_t (*bst)[AUG_MAX_DIMS]) {
    int nd = 0;
    for (int d = 0; d < out->ndim; d++) {
        if (out->shape[d] == 1) continue;
        p->shape[nd] = out->shape[d];
        for (int i = 0; i < p->nops; i++) p->stride[i][nd] = bst[i][d];
        nd++;
    }
    for (int d = 0; d < nd; d++) {
        if (p->stride[p->nin][d] >= 0) continue;
        for (int i = 0; i < p->nops; i++) {
            p->base[i] += p->stride[i][d] * (p->shape[d] - 1);
            p->stride[i][d] = -p->stride[i][d];
        }
    }
    /* Stable insertion sort, outermost = largest output stride. */
    for (int d = 1; d < nd; d++)
        for (int e = d; e > 0 && p->stride[p->nin][e - 1] < p->stride[p->nin][e]; e--) {
            int64_t s = p->shape[e];
            p->shape[e] = p->shape[e - 1];
            p->shape[e - 1] = s;
            for (int i = 0; i < p->nops; i++) {
                s = p->stride[i][e];
                p->stride[i][e] = p->stride[i][e - 1];
                p->stride[i][e - 1] = s;
            }
        }
    int j = 0;
    for (int d = 1; d < nd; d++) {
        int merge = 1;
        for (int i = 0; i < p->nops && merge; i++) merge = p->stride[i][j] == p->stride[i][d] * p->shape[d];
        if (merge) {
            p->shape[j] *= p->shape[d];
            for (int i = 0; i < p->nops; i++) p->stride[i][j] = p->stride[i][d];
        } else {
            j++;
            p->shape[j] = p->shape[d];
            for (int i = 0; i < p->nops; i++) p->stride[i][j] = p->stride[i][d];
        }
    }
    p->ndim = nd ? j + 1 : 1;
    if (nd == 0) { /* one element */
        p->shape[0] = 1;
        for (int i = 0; i < p->nops; i++) p->stride[i][0] = 0;
    }
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

aug_status aug__iter_run(const aug__iter *it) {
    const char *func = it && it->func ? it->func : "aug__iter_run";
    if (!it) return aug__error(AUG_ERR_VALUE, func, "iteration is NULL");
    if (it->nin < 1 || it->nin > AUG__MAX_INPUTS)
        return aug__error(AUG_ERR_VALUE, func, "number of inputs %d is out of range (1 to %d)", it->nin,
                          AUG__MAX_INPUTS);
    if (!it->kernel && it->nin != 1)
        return aug__error(AUG_ERR_VALUE, func, "a copy (no kernel) takes exactly one input, not %d", it->nin);
    const aug_tensor *out = it->out;
    aug_status st = check_operand(func, out, "the output");
    if (st != AUG_OK) return st;
    for (int i = 0; i < it->nin; i++) {
        if ((st = check_operand(func, it->in[i], "an input")) != AUG_OK) return st;
        const aug_tensor *t = it->in[i];
        if ((st = aug__check_broadcast_to(func, t->ndim, t->shape, out->ndim, out->shape)) != AUG_OK) return st;
        if (it->kernel && (it->in_ctype[i] < 0 || it->in_ctype[i] >= AUG__NUM_CTYPES))
            return aug__error(AUG_ERR_VALUE, func, "invalid compute type %d", it->in_ctype[i]);
    }
    if (it->kernel && (it->out_ctype < 0 || it->out_ctype >= AUG__NUM_CTYPES))
        return aug__error(AUG_ERR_VALUE, func, "invalid compute type %d", it->out_ctype);
    int64_t size = aug__shape_size(out->ndim, out->shape);
    if (size == 0) return AUG_OK;
    for (int d = 0; d < out->ndim; d++)
        if (out->shape[d] > 1 && out->strides[d] == 0)
            return aug__error(AUG_ERR_VALUE, func,
                              "the output has a zero stride on axis %d, so several elements share one memory "
                              "location; write to a contiguous tensor instead", d);

    /* On the stack: aug__parallel_for returns only when every task has finished, and
     * small ops are dominated by allocator calls otherwise. */
    plan pl;
    memset(&pl, 0, sizeof pl);
    plan *p = &pl;
    const aug_tensor *in[AUG__MAX_INPUTS];
    char *tmp_mem[AUG__MAX_INPUTS] = {0};
    aug_tensor tmp[AUG__MAX_INPUTS];
    int64_t bst[MAX_OPS][AUG_MAX_DIMS];
    p->nin = it->nin;
    p->nops = it->nin + 1;
    p->size = size;
    p->kernel = it->kernel;
    p->kctx.op = it->ctx;
    st = broadcast_strides(func, out, out, bst[p->nin]);
    char *out_base = out->data + out->byte_offset;
    uintptr_t out_lo, out_hi;
    byte_range(out_base, out->ndim, out->shape, bst[p->nin], aug__dtype_size(out->dtype), &out_lo, &out_hi);
    int same_view_copy = 0;
    for (int i = 0; i < p->nin && st == AUG_OK; i++) {
        in[i] = it->in[i];
        if ((st = broadcast_strides(func, in[i], out, bst[i])) != AUG_OK) break;
        char *b = in[i]->data + in[i]->byte_offset;
        uintptr_t lo, hi;
        byte_range(b, out->ndim, out->shape, bst[i], aug__dtype_size(in[i]->dtype), &lo, &hi);
        if (lo >= out_hi || out_lo >= hi) continue; /* disjoint */
        int identical = b == out_base && in[i]->dtype == out->dtype &&
                        memcmp(bst[i], bst[p->nin], (size_t)out->ndim * sizeof(int64_t)) == 0;
        if (identical) {
            same_view_copy = !it->kernel;
            continue;
        }
        if ((st = private_copy(func, in[i], &tmp[i], &tmp_mem[i])) != AUG_OK) break;
        in[i] = &tmp[i];
        st = broadcast_strides(func, in[i], out, bst[i]);
    }
    if (st == AUG_OK && !same_view_copy) {
        for (int i = 0; i < p->nops; i++) {
            const aug_tensor *t = i < p->nin ? in[i] : out;
            p->base[i] = t->data + t->byte_offset;
            p->dtype[i] = (int)t->dtype;
            p->ctype[i] = !it->kernel ? (int)t->dtype : i < p->nin ? it->in_ctype[i] : it->out_ctype;
            p->csize[i] = ctype_bytes(p->ctype[i]);
            p->convert[i] = p->dtype[i] != p->ctype[i];
            p->any_convert |= p->convert[i];
        }
        simplify(p, out, bst);
        p->kctx.stream_out = !p->convert[p->nin] && aug_tensor_is_contiguous(out) &&
                             size * aug__dtype_size(out->dtype) >= AUG__STREAM_MIN_BYTES;
        atomic_init(&p->failed, 0);
        int64_t ntasks = (size + TASK_ELEMS - 1) / TASK_ELEMS;
        if (choose_tiles(p)) {
            p->nbands = (p->shape[p->ndim - 2] + TILE - 1) / TILE;
            ntasks = size / (p->shape[p->ndim - 2] * p->shape[p->ndim - 1]) * p->nbands;
        }
        aug__parallel_for(ntasks, task_fn, p);
        if (atomic_load(&p->failed)) st = AUG__NOMEM(func);
    }
    for (int i = 0; i < it->nin; i++) free(tmp_mem[i]);
    return st;
}
