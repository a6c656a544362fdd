/* cuda/elementwise.cu: the CUDA backend's elementwise entry (core/plan.h): every
 * operator and math function, casts, copies, fills and fma.
 *
 * A plan's operands may be of any dtype while its op computes in ctypes. The
 * conversions are kernels of their own here (aug__k_conv_<D>: any dtype to
 * ctype D, scalar/cast.h's rule), so the op kernels of the family files exist
 * once per (op, ctype), as on the CPU, and stay small:
 *  - a plain copy (casts, copies, fills) is one conversion kernel;
 *  - an input whose dtype differs from its ctype, or whose address or strides
 *    are not aligned to it, is first converted into a contiguous temporary in
 *    the plan's iteration order; a scalar input is converted on the host and
 *    passed by value;
 *  - an output whose dtype differs from its ctype is written into a temporary
 *    and converted into the output afterwards (a float result into its own
 *    float dtype by aug__k_conv_ieee: rounded as IEEE does, +-inf beyond the
 *    range).
 * Everything is queued on the plan's stream; temporaries go back to the
 * stream-ordered pool right after queuing (cuda/memory.cu). */
#include <string.h>
#include "cuda/ew.cuh"

/* ---- conversion kernels ----------------------------------------------------------------- */

typedef struct conv_args {
    int ndim;
    int64_t shape[AUG_MAX_DIMS];
    int64_t size;
    const char *src; /* NULL: the value sval, for every element */
    int64_t sst[AUG_MAX_DIMS];
    int src_t;
    int dst_t; /* aug__k_conv_ieee only */
    char *dst;
    int64_t dst_st[AUG_MAX_DIMS];
    AUG__ALIGN16 unsigned char sval[16];
} conv_args;

/* One element of any ctype at p (or the scalar) into ctype D at q; memcpy: the
 * addresses need not be aligned. */
#define CONV_CASE(D, S)                                          \
    case AUG__CT_##S: {                                          \
        AUG__CT_T(S) x;                                          \
        memcpy(&x, p, sizeof x);                                 \
        AUG__CT_T(D) y = AUG__CV(S, D, x);                       \
        memcpy(q, &y, sizeof y);                                 \
        break;                                                   \
    }
#define DEF_CONV(D)                                                                            \
    AUG_GLOBAL void aug__k_conv_##D(conv_args a) {                                             \
        const int64_t step = (int64_t)gridDim.x * blockDim.x;                                  \
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.size; i += step) { \
            int64_t so = 0, dof = 0, r = i;                                                    \
            for (int d = a.ndim - 1; d >= 0; d--) {                                            \
                int64_t e = a.shape[d], t = r / e, idx = r - t * e;                            \
                r = t;                                                                         \
                so += idx * a.sst[d];                                                          \
                dof += idx * a.dst_st[d];                                                      \
            }                                                                                  \
            const void *p = a.src ? (const void *)(a.src + so) : (const void *)a.sval;         \
            void *q = a.dst + dof;                                                             \
            switch (a.src_t) {                                                                 \
                AUG__CTYPE_LIST_WITH(CONV_CASE, D)                                             \
            default:                                                                           \
                break;                                                                         \
            }                                                                                  \
        }                                                                                      \
    }
AUG__CTYPE_LIST(DEF_CONV)

/* A float result (FLOAT32 or FLOAT64 at p) into its own narrower float dtype,
 * rounded as IEEE does (scalar/cast.h aug__ieee_narrowing; the loop's ieee_out). */
AUG_GLOBAL void aug__k_conv_ieee(conv_args a) {
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.size; i += step) {
        int64_t so = 0, dof = 0, r = i;
        for (int d = a.ndim - 1; d >= 0; d--) {
            int64_t e = a.shape[d], t = r / e, idx = r - t * e;
            r = t;
            so += idx * a.sst[d];
            dof += idx * a.dst_st[d];
        }
        const char *p = a.src + so;
        if (a.src_t == AUG__CT_FLOAT32) {
            float x;
            memcpy(&x, p, sizeof x);
            aug__ieee_store_f32(x, a.dst_t, a.dst + dof);
        } else {
            double x;
            memcpy(&x, p, sizeof x);
            aug__ieee_store_f64(x, a.dst_t, a.dst + dof);
        }
    }
}

typedef void (*conv_kernel)(conv_args);
static const conv_kernel conv_kernels[AUG__NUM_CTYPES] = {
#define CONV_ENTRY(D) aug__k_conv_##D,
    AUG__CTYPE_LIST(CONV_ENTRY)
#undef CONV_ENTRY
};
static const char *const conv_names[AUG__NUM_CTYPES] = {
#define CONV_NAME(D) "aug__k_conv_" #D,
    AUG__CTYPE_LIST(CONV_NAME)
#undef CONV_NAME
};

/* Queues the conversion of `size` elements of a loop shape: src (dtype src_t,
 * byte strides sst; NULL: the scalar at sval) into dst (ctype dst_t, strides dst_st). */
static aug_status convert(const char *func, const aug__exec *e, int ndim, const int64_t *shape, int64_t size,
                          const char *src, const int64_t *sst, int src_t, const void *sval, char *dst,
                          const int64_t *dst_st, int dst_t) {
    conv_args a;
    memset(&a, 0, sizeof a);
    a.ndim = ndim;
    a.size = size;
    a.src = src;
    a.src_t = src_t;
    a.dst = dst;
    for (int d = 0; d < ndim; d++) {
        a.shape[d] = shape[d];
        a.sst[d] = src ? sst[d] : 0;
        a.dst_st[d] = dst_st[d];
    }
    if (!src) memcpy(a.sval, sval, 16);
    aug__cuda_grid g = aug__cuda_grid_for(e, size, 256);
    AUG_LAUNCH_NAMED(conv_kernels[dst_t], conv_names[dst_t], g.blocks, g.threads, 0, aug__cuda_stream(e), a);
    return aug__cuda_launched(func, conv_names[dst_t], g.blocks, g.threads);
}

/* Queues the IEEE store of a buffered float result src (ctype src_t, strides sst)
 * into dst (dtype dst_t, strides dst_st). */
static aug_status convert_ieee(const char *func, const aug__exec *e, const aug__loop *l, const char *src,
                               const int64_t *sst, int src_t, char *dst, const int64_t *dst_st, int dst_t) {
    conv_args a;
    memset(&a, 0, sizeof a);
    a.ndim = l->ndim;
    a.size = l->size;
    a.src = src;
    a.src_t = src_t;
    a.dst_t = dst_t;
    a.dst = dst;
    for (int d = 0; d < l->ndim; d++) {
        a.shape[d] = l->shape[d];
        a.sst[d] = sst[d];
        a.dst_st[d] = dst_st[d];
    }
    aug__cuda_grid g = aug__cuda_grid_for(e, l->size, 256);
    AUG_LAUNCH(aug__k_conv_ieee, g.blocks, g.threads, 0, aug__cuda_stream(e), a);
    return aug__cuda_launched(func, "aug__k_conv_ieee", g.blocks, g.threads);
}

/* ---- the entry --------------------------------------------------------------------------- */

/* The op kernel of the plan's op and ctypes, from the op's family. */
static aug__ew_launcher find_launcher(aug_op op, int nin, const int *ctype) {
    switch (aug__kernel_family(op, nin, ctype)) {
    case AUG__KFAM_ARITH: return aug__cuda_arith_launcher(op, ctype[0]);
    case AUG__KFAM_DIV: return aug__cuda_div_launcher(op, ctype[0]);
    case AUG__KFAM_CMP: return aug__cuda_cmp_launcher(op, ctype[0], ctype[1]);
    case AUG__KFAM_BITWISE: return aug__cuda_bitwise_launcher(op, ctype[0]);
    case AUG__KFAM_MATH: return aug__cuda_math_launcher(op, ctype[0]);
    case AUG__KFAM_WHERE: return aug__cuda_where_launcher(ctype[1]);
    default: return NULL;
    }
}

/* Operand k can be read or written in place: its dtype is its ctype and its
 * address and strides are multiples of the element size. */
static int direct(const aug__loop *l, int k) {
    if (l->dtype[k] != l->ctype[k]) return 0;
    int64_t sz = aug__ctype_size(l->ctype[k]);
    if ((uintptr_t)l->base[k] % (uintptr_t)sz) return 0;
    for (int d = 0; d < l->ndim; d++)
        if (l->stride[k][d] % sz) return 0;
    return 1;
}

/* C-order byte strides of the loop shape for elements of sz bytes. */
static void packed_strides(const aug__loop *l, int64_t sz, int64_t *st) {
    for (int d = l->ndim - 1; d >= 0; d--) {
        st[d] = sz;
        sz *= l->shape[d];
    }
}

aug_status aug__cuda_elementwise(const aug__ew_plan *plan) {
    const char *func = plan->func;
    const aug__loop *l = &plan->loop;
    const aug__exec *e = &plan->exec;
    const int dev = e->device.id, nin = l->nin;
    const cudaStream_t stream = aug__cuda_stream(e);
    aug_status st = aug__cuda_use(func, dev);
    if (st) return st;

    /* A copy through no narrower ctype: one conversion, input dtype -> output dtype. */
    if (plan->op == AUG_OP_COPY && nin == 1 && l->ctype[0] == l->dtype[0] &&
        (l->ctype[1] == l->dtype[0] || l->ctype[1] == l->dtype[1]))
        return convert(func, e, l->ndim, l->shape, l->size, l->base[0], l->stride[0], l->dtype[0], l->scalar[0],
                       l->base[1], l->stride[1], l->dtype[1]);

    aug__ew_launcher launch = find_launcher(plan->op, nin, l->ctype);
    if (!launch) return aug__error(AUG_ERR_TYPE, func, "no CUDA kernel for %s", aug__cuda_host->op_name(plan->op));
    aug__ew_args a;
    memset(&a, 0, sizeof a);
    a.ndim = l->ndim;
    a.size = l->size;
    memcpy(a.shape, l->shape, sizeof a.shape);
    char *tmp[AUG__MAX_OPS] = {NULL, NULL, NULL, NULL};
    size_t tmp_bytes[AUG__MAX_OPS] = {0, 0, 0, 0};
    for (int k = 0; k <= nin && st == AUG_OK; k++) {
        const int64_t csz = aug__ctype_size(l->ctype[k]);
        if (k < nin && !l->base[k]) { /* a scalar: converted here, passed by value */
            aug__cuda_host->convert_one(l->scalar[k], l->dtype[k], a.sval[k], l->ctype[k]);
            continue;
        }
        if (direct(l, k)) {
            a.base[k] = l->base[k];
            memcpy(a.stride[k], l->stride[k], sizeof a.stride[k]);
            continue;
        }
        tmp_bytes[k] = (size_t)(l->size * csz);
        tmp[k] = (char *)aug__cuda_tmp_alloc(func, dev, tmp_bytes[k], stream);
        if (!tmp[k]) {
            st = AUG_ERR_MEMORY;
            break;
        }
        a.base[k] = tmp[k];
        packed_strides(l, csz, a.stride[k]);
        if (k < nin)
            st = convert(func, e, l->ndim, l->shape, l->size, l->base[k], l->stride[k], l->dtype[k], NULL, tmp[k],
                         a.stride[k], l->ctype[k]);
    }
    if (st == AUG_OK) st = launch(func, &a, e);
    if (st == AUG_OK && tmp[nin]) {
        if (l->ieee_out && aug__ieee_narrowing(l->ctype[nin], l->dtype[nin]))
            st = convert_ieee(func, e, l, tmp[nin], a.stride[nin], l->ctype[nin], l->base[nin], l->stride[nin],
                              l->dtype[nin]);
        else
            st = convert(func, e, l->ndim, l->shape, l->size, tmp[nin], a.stride[nin], l->ctype[nin], NULL,
                         l->base[nin], l->stride[nin], l->dtype[nin]);
    }
    for (int k = 0; k <= nin; k++)
        if (tmp[k]) aug__cuda_tmp_free(dev, tmp[k], tmp_bytes[k], stream);
    return st;
}
