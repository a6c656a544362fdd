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
    int aligned; /* src (or the scalar) and dst at addresses and strides that are multiples of their sizes */
    char *dst;
    int64_t dst_st[AUG_MAX_DIMS];
    AUG__ALIGN16 unsigned char sval[16];
} conv_args;

/* The element of type T at p, or v stored at q: typed when AL (the launch's
 * a.aligned: the addresses allow it), else through memcpy (a view of foreign
 * memory may start at any byte: byte accesses). Two whole loops, one per AL:
 * with the choice made per access, nvcc merged the two loads into the typed
 * one, which faults on a misaligned address. */
template <class T, bool AL> AUG_DEV T conv_get(const void *p) {
    T x;
    if (AL) {
        AUG_CHECK_LOAD(p, T);
        x = *(const T *)p;
    } else {
        AUG__MEM_LOAD(p, sizeof x);
        memcpy(&x, p, sizeof x);
    }
    return x;
}
template <class T, bool AL> AUG_DEV void conv_put(void *q, T v) {
    if (AL) {
        AUG_CHECK_STORE(q, T);
        *(T *)q = v;
    } else {
        AUG__MEM_STORE(q, sizeof v);
        memcpy(q, &v, sizeof v);
    }
}

/* The byte offsets of element i of a conversion's loop (source, destination). */
AUG_DEV void conv_offsets(const conv_args &a, int64_t i, int64_t *so, int64_t *dof) {
    *so = *dof = 0;
    for (int d = a.ndim - 1; d >= 0; d--) {
        int64_t e = a.shape[d], t = i / e, idx = i - t * e;
        i = t;
        *so += idx * a.sst[d];
        *dof += idx * a.dst_st[d];
    }
}

/* One element of any ctype at p (or the scalar) into ctype D at q. */
#define CONV_CASE(D, S)                                                                           \
    case AUG__CT_##S: conv_put<AUG__CT_T(D), AL>(q, AUG__CV(S, D, (conv_get<AUG__CT_T(S), AL>(p)))); break;
#define DEF_CONV(D)                                                                                \
    template <bool AL> AUG_DEV void conv_loop_##D(const conv_args &a) {                            \
        const int64_t step = (int64_t)gridDim.x * blockDim.x;                                      \
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.size; i += step) {  \
            int64_t so, dof;                                                                       \
            conv_offsets(a, i, &so, &dof);                                                         \
            const void *p = a.src ? (const void *)(a.src + so) : (const void *)a.sval;             \
            void *q = a.dst + dof;                                                                 \
            switch (a.src_t) {                                                                     \
                AUG__CTYPE_LIST_WITH(CONV_CASE, D)                                                 \
            default: break;                                                                        \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    AUG_GLOBAL void aug__k_conv_##D(conv_args a) {                                                 \
        if (a.aligned)                                                                             \
            conv_loop_##D<true>(a);                                                                \
        else                                                                                       \
            conv_loop_##D<false>(a);                                                               \
    }
AUG__CTYPE_LIST(DEF_CONV)

/* A float result (FLOAT32 or FLOAT64 at p) into its own narrower float dtype,
 * rounded as IEEE does (scalar/cast.h aug__ieee_narrowing; the loop's ieee_out). */
template <bool AL> AUG_DEV void conv_ieee_loop(const conv_args &a) {
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.size; i += step) {
        int64_t so, dof;
        conv_offsets(a, i, &so, &dof);
        const char *p = a.src + so;
        aug__i128 w = 0; /* the result's bytes (float16, bfloat16 or float32: 2 or 4) */
        if (a.src_t == AUG__CT_FLOAT32)
            aug__ieee_store_f32(conv_get<float, AL>(p), a.dst_t, &w);
        else
            aug__ieee_store_f64(conv_get<double, AL>(p), a.dst_t, &w);
        if (aug__ctype_size(a.dst_t) == 2)
            conv_put<uint16_t, AL>(a.dst + dof, (uint16_t)w);
        else
            conv_put<uint32_t, AL>(a.dst + dof, (uint32_t)w);
    }
}
AUG_GLOBAL void aug__k_conv_ieee(conv_args a) {
    if (a.aligned)
        conv_ieee_loop<true>(a);
    else
        conv_ieee_loop<false>(a);
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

/* ---- the conversions' contiguous fast path (cuda/vec.cuh) --------------------------------- */

/* n contiguous elements: src (NULL for a fill) into dst, split as vs; a fill's
 * value sval is already in dst's ctype (converted on the host by the CPU's rule). */
typedef struct convv_args {
    const char *src;
    char *dst;
    int64_t n;
    aug__vec_span vs;
    AUG__ALIGN16 unsigned char sval[16];
} convv_args;

/* The types of the fast path: every ctype but I128 (a 16-byte element beside a
 * 1-byte one would leave a 1-byte vector). */
#define CONVV_LIST(X) X(BOOL) X(INT8) X(INT16) X(INT32) X(INT64) X(UINT8) X(UINT16) X(UINT32) X(UINT64) \
    X(FLOAT16) X(BFLOAT16) X(FLOAT32) X(FLOAT64)
#define CONVV_LIST_WITH(X, A) X(A, BOOL) X(A, INT8) X(A, INT16) X(A, INT32) X(A, INT64) X(A, UINT8) \
    X(A, UINT16) X(A, UINT32) X(A, UINT64) X(A, FLOAT16) X(A, BFLOAT16) X(A, FLOAT32) X(A, FLOAT64)
#define CONVV_N 13
static_assert(AUG__CT_I128 == CONVV_N, "CONVV_LIST is scalar/cast.h's ctype list without I128, its last");

/* cv_S_D: scalar/cast.h's rule from ctype S to D as a functor. */
#define DEF_CV(D, S)                                                                           \
    struct cv_##S##_##D {                                                                      \
        AUG_DEV AUG__CT_T(D) operator()(AUG__CT_T(S) x) const { return AUG__CV(S, D, x); }     \
    };
#define DEF_CV_ROW(D) CONVV_LIST_WITH(DEF_CV, D)
CONVV_LIST(DEF_CV_ROW)

/* Casts and same-dtype copies: V elements of TS -> TD per vector. */
template <class TS, class TD, class CV> AUG_GLOBAL void aug__k_castv(convv_args a) {
    constexpr int V = aug__vwidth<TS, TD>();
    const CV cv;
    const TS *src = (const TS *)(const void *)a.src;
    TD *dst = (TD *)(void *)a.dst;
    const int64_t step = (int64_t)gridDim.x * blockDim.x, t0 = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int64_t j = t0; j < a.vs.nvec; j += step) {
        const int64_t i0 = a.vs.head + j * V;
        TS x[V];
        TD y[V];
        aug__vload<TS, V>(src + i0, x);
        AUG_UNROLL
        for (int t = 0; t < V; t++) y[t] = cv(x[t]);
        aug__vstore<TD, V>(dst + i0, y);
    }
    const int64_t rest = a.n - a.vs.nvec * V;
    for (int64_t r = t0; r < rest; r += step) {
        const int64_t i = aug__vec_rest_index<V>(a.vs, r);
        AUG_CHECK_LOAD(src + i, TS);
        AUG_CHECK_STORE(dst + i, TD);
        dst[i] = cv(src[i]);
    }
}

/* Fills: the value, V elements of T per 16-byte store. */
template <class T> AUG_GLOBAL void aug__k_fillv(convv_args a) {
    constexpr int V = aug__vwidth<T>();
    T v, y[V];
    memcpy(&v, a.sval, sizeof v);
    AUG_UNROLL
    for (int t = 0; t < V; t++) y[t] = v;
    T *dst = (T *)(void *)a.dst;
    const int64_t step = (int64_t)gridDim.x * blockDim.x, t0 = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int64_t j = t0; j < a.vs.nvec; j += step) aug__vstore<T, V>(dst + a.vs.head + j * V, y);
    const int64_t rest = a.n - a.vs.nvec * V;
    for (int64_t r = t0; r < rest; r += step) {
        const int64_t i = aug__vec_rest_index<V>(a.vs, r);
        AUG_CHECK_STORE(dst + i, T);
        dst[i] = v;
    }
}

typedef void (*convv_kernel)(convv_args);

/* The casts with a vector kernel: those to or from uint8 or float32, the dtypes of
 * images (46 pairs); the other 110 take the strided kernel, correct but scalar (each
 * pair costs nvcc seconds per architecture: all 156 were three quarters of this file's
 * build). A same-dtype copy moves bytes: one kernel per element size (castv_copy). */
static constexpr bool castv_on(int s, int d) {
    return s != d && (s == AUG__CT_UINT8 || s == AUG__CT_FLOAT32 || d == AUG__CT_UINT8 || d == AUG__CT_FLOAT32);
}
struct cv_same {
    template <class T> AUG_DEV T operator()(T x) const { return x; }
};
template <int S, int D, class TS, class TD, class CV> constexpr convv_kernel castv_entry() {
    if constexpr (castv_on(S, D))
        return aug__k_castv<TS, TD, CV>;
    else
        return nullptr;
}
static const convv_kernel castv_kernels[CONVV_N][CONVV_N] = { /* [src][dst] */
#define CASTV_ENTRY(S, D) castv_entry<AUG__CT_##S, AUG__CT_##D, AUG__CT_T(S), AUG__CT_T(D), cv_##S##_##D>(),
#define CASTV_ROW(S) {CONVV_LIST_WITH(CASTV_ENTRY, S)},
    CONVV_LIST(CASTV_ROW)
#undef CASTV_ROW
#undef CASTV_ENTRY
};
/* same-dtype copies by element size: 1, 2, 4, 8 bytes */
static const convv_kernel castv_copy[4] = {aug__k_castv<uint8_t, uint8_t, cv_same>,
                                           aug__k_castv<uint16_t, uint16_t, cv_same>,
                                           aug__k_castv<uint32_t, uint32_t, cv_same>,
                                           aug__k_castv<uint64_t, uint64_t, cv_same>};

/* The fast path of convert() when src (dtype src_t; NULL: a fill with the value
 * at sval) and dst (ctype dst_t) are contiguous in one dimension and align
 * together; 0 (and nothing queued) otherwise. */
static int convert_fast(const char *func, const aug__exec *e, int ndim, int64_t size, const char *src,
                        const int64_t *sst, int src_t, const void *sval, char *dst, const int64_t *dst_st,
                        int dst_t, aug_status *st) {
    if (ndim != 1 || src_t >= CONVV_N || dst_t >= CONVV_N) return 0;
    if (src && src_t != dst_t && !castv_kernels[src_t][dst_t]) return 0;
    int sz[2] = {aug__ctype_size(src_t), aug__ctype_size(dst_t)};
    if (dst_st[0] != sz[1] || (src && sst[0] != sz[0])) return 0;
    convv_args a;
    memset(&a, 0, sizeof a);
    char *base[2] = {(char *)src, dst};
    if (!src) sz[0] = sz[1]; /* a fill moves the destination's type only */
    a.vs = aug__vec_split(size, 2, base, sz, 16 / (sz[0] > sz[1] ? sz[0] : sz[1]));
    if (!a.vs.vec) return 0;
    a.src = src;
    a.dst = dst;
    a.n = size;
    convv_kernel k;
    const char *name;
    if (src) {
        k = src_t == dst_t ? castv_copy[sz[1] == 1 ? 0 : sz[1] == 2 ? 1 : sz[1] == 4 ? 2 : 3]
                           : castv_kernels[src_t][dst_t];
        name = "aug__k_castv";
    } else {
        aug__cuda_host->convert_one(sval, src_t, a.sval, dst_t);
        switch (sz[1]) {
        case 1: k = aug__k_fillv<uint8_t>; break;
        case 2: k = aug__k_fillv<uint16_t>; break;
        case 4: k = aug__k_fillv<uint32_t>; break;
        default: k = aug__k_fillv<uint64_t>; break;
        }
        name = "aug__k_fillv";
    }
    aug__cuda_grid g = aug__cuda_grid_occ(e, aug__vec_items(a.vs, size), 256, (const void *)k);
    AUG_LAUNCH_NAMED(k, name, g.blocks, g.threads, 0, aug__cuda_stream(e), a);
    *st = aug__cuda_launched(func, name, g.blocks, g.threads);
    return 1;
}

/* 1 when base and every stride of ndim dims are multiples of the element size sz. */
static int aligned_to(const char *base, int ndim, const int64_t *st, int64_t sz) {
    if ((uintptr_t)base % (uintptr_t)sz) return 0;
    for (int d = 0; d < ndim; d++)
        if (st[d] % sz) return 0;
    return 1;
}

/* Queues the conversion of `size` elements of a loop shape: src (dtype src_t,
 * byte strides sst; NULL: the scalar at sval) into dst (ctype dst_t, strides dst_st). */
static aug_status convert(const char *func, const aug__exec *e, int ndim, const int64_t *shape, int64_t size,
                          const char *src, const int64_t *sst, int src_t, const void *sval, char *dst,
                          const int64_t *dst_st, int dst_t) {
    aug_status fst;
    if (convert_fast(func, e, ndim, size, src, sst, src_t, sval, dst, dst_st, dst_t, &fst)) return fst;
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
    a.aligned = (!src || aligned_to(src, ndim, sst, aug__ctype_size(src_t))) &&
                aligned_to(dst, ndim, dst_st, aug__ctype_size(dst_t));
    aug__cuda_grid g = aug__cuda_grid_occ(e, size, 256, (const void *)conv_kernels[dst_t]);
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
    a.aligned = aligned_to(src, l->ndim, sst, aug__ctype_size(src_t)) &&
                aligned_to(dst, l->ndim, dst_st, aug__ctype_size(dst_t));
    aug__cuda_grid g = aug__cuda_grid_occ(e, l->size, 256, (const void *)aug__k_conv_ieee);
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

/* Whether an op kernel may take the fast path (cuda/vec.cuh): every array
 * operand (inputs as read, temporaries included, and the output) contiguous in
 * one coalesced dimension. The launcher splits with its kernel's V
 * (aug__ew_split). */
static int ew_contiguous(const aug__ew_args *a, const aug__loop *l, int nin) {
    for (int k = 0; k <= nin; k++)
        if (a->base[k] && (a->ndim != 1 || a->stride[k][0] != aug__ctype_size(l->ctype[k]))) return 0;
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
    if (st == AUG_OK) a.vs.vec = ew_contiguous(&a, l, nin);
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
