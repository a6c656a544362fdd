/* cuda/ew.cuh: the elementwise kernels' loop and launchers (private; included
 * by cuda/elementwise.cu and the cuda/ew_*.cu family files).
 *
 * An op kernel reads operands already in their compute types (ctypes) and
 * writes the output's ctype: cuda/elementwise.cu first converts an operand whose
 * dtype differs (or whose address is not aligned to its ctype) into a contiguous
 * temporary, and converts a buffered result into the output, so kernels exist
 * per (op, ctype), the same families as the CPU's, with the per-element rule
 * taken from the shared scalar headers (src/scalar). Each kernel is a
 * grid-stride loop over the plan's coalesced iteration space: thread t of the
 * grid computes elements t, t + G, t + 2G, ... (G the number of threads in the
 * grid); an element's offsets come from its C-order index, so any launch shape
 * computes the same values. When every array operand is contiguous and the
 * operands align together (cuda/vec.cuh), the launcher sets the split a.vs and
 * the kernel takes the fast path instead: thread t moves vectors t, t + G, ...
 * of V elements with one 16-byte access to the widest operand, then the
 * peeled head and tail elements one by one. */
#ifndef AUG_CUDA_EW_CUH
#define AUG_CUDA_EW_CUH

#include "cuda/cuda.h"
#include "core/kernel_slots.h"
#include "cuda/vec.cuh"

/* A plan's loop as a kernel argument: device pointers and byte strides over the
 * coalesced shape; scalar inputs (base NULL) carry their value, in the ctype. */
typedef struct aug__ew_args {
    int ndim;
    int64_t shape[AUG_MAX_DIMS];
    int64_t size;
    char *base[AUG__MAX_OPS];
    int64_t stride[AUG__MAX_OPS][AUG_MAX_DIMS];
    AUG__ALIGN16 unsigned char sval[AUG__MAX_INPUTS][16];
    aug__vec_span vs; /* vs.vec: the contiguous fast path (ndim 1, strides = element sizes) */
} aug__ew_args;

/* The elements per vector of an op kernel over element types Ts with functor F:
 * 16 bytes of the widest, but at most 8 elements (sixteen uint8 lanes of a
 * two-input op spilled at 64 registers on sm_100) and at most F::vcap (the
 * math family: 1, its transcendentals unrolled twice spilled too). */
#ifndef AUG__EW_VCAP
#define AUG__EW_VCAP 8
#endif
template <class F, class... Ts> __host__ __device__ constexpr int aug__ew_v() {
    return aug__vwidth<Ts...>() < F::vcap ? aug__vwidth<Ts...>() : F::vcap;
}

/* Host: the launch's split when the entry found every array operand contiguous
 * (a->vs.vec set), with the kernel's v; element sizes from the strides. */
static inline aug__ew_args aug__ew_split(const aug__ew_args *a, int nops, int v) {
    aug__ew_args b = *a;
    if (!b.vs.vec) return b;
    int size[AUG__MAX_OPS];
    for (int k = 0; k < nops; k++) size[k] = b.base[k] ? (int)b.stride[k][0] : 1;
    b.vs = aug__vec_split(b.size, nops, b.base, size, v);
    return b;
}

/* Byte offsets of element i for the first nops operands. */
AUG_DEV void aug__ew_offsets(const aug__ew_args &a, int64_t i, int nops, int64_t *off) {
    for (int k = 0; k < nops; k++) off[k] = 0;
    if (a.ndim == 1) {
        for (int k = 0; k < nops; k++) off[k] = i * a.stride[k][0];
        return;
    }
    for (int d = a.ndim - 1; d >= 0; d--) {
        int64_t e = a.shape[d], q = i / e, idx = i - q * e;
        i = q;
        for (int k = 0; k < nops; k++) off[k] += idx * a.stride[k][d];
    }
}

/* Operand k of ctype T at element offset off. */
template <class T>
AUG_DEV T aug__ew_load(const aug__ew_args &a, int k, int64_t off) {
    if (!a.base[k]) {
        T v;
        memcpy(&v, a.sval[k], sizeof v);
        return v;
    }
    const char *p = a.base[k] + off;
    AUG_CHECK_LOAD(p, T);
    return *(const T *)(const void *)p;
}

/* The result of ctype T stored at element offset off of the output (operand k). */
template <class T>
AUG_DEV void aug__ew_store(const aug__ew_args &a, int k, int64_t off, T v) {
    char *p = a.base[k] + off;
    AUG_CHECK_STORE(p, T);
    *(T *)(void *)p = v;
}

/* V elements of operand k of ctype T from element i0 on (the fast path; a
 * scalar: its value V times). */
template <class T, int V>
AUG_DEV void aug__ew_vload(const aug__ew_args &a, int k, int64_t i0, T (&x)[V]) {
    if (!a.base[k]) {
        T v;
        memcpy(&v, a.sval[k], sizeof v);
        AUG_UNROLL
        for (int t = 0; t < V; t++) x[t] = v;
        return;
    }
    aug__vload<T, V>((const T *)(const void *)a.base[k] + i0, x);
}
template <class T, int V>
AUG_DEV void aug__ew_vstore(const aug__ew_args &a, int k, int64_t i0, const T (&x)[V]) {
    aug__vstore<T, V>((T *)(void *)a.base[k] + i0, x);
}

/* A kernel's loop: one(off) computes the element at byte offsets off[0..NOPS),
 * vec(i0) the V elements from index i0 on (the fast path, a.vs.vec). */
template <int NOPS, int V, class One, class Vec>
AUG_DEV void aug__ew_run(const aug__ew_args &a, One one, Vec vec) {
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    const int64_t t0 = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int64_t off[NOPS];
    if (a.vs.vec) {
        for (int64_t j = t0; j < a.vs.nvec; j += step) vec(a.vs.head + j * V);
        const int64_t rest = a.size - a.vs.nvec * V;
        for (int64_t r = t0; r < rest; r += step) {
            const int64_t i = aug__vec_rest_index<V>(a.vs, r);
            AUG_UNROLL
            for (int k = 0; k < NOPS; k++) off[k] = i * a.stride[k][0];
            one(off);
        }
        return;
    }
    for (int64_t i = t0; i < a.size; i += step) {
        aug__ew_offsets(a, i, NOPS, off);
        one(off);
    }
}

template <class TA, class TO, class F>
AUG_GLOBAL void aug__k_unary(aug__ew_args a, F f) {
    constexpr int V = aug__ew_v<F, TA, TO>();
    aug__ew_run<2, V>(
        a,
        [&](const int64_t *off) { aug__ew_store<TO>(a, 1, off[1], f(aug__ew_load<TA>(a, 0, off[0]))); },
        [&](int64_t i0) {
            TA x[V];
            TO r[V];
            aug__ew_vload<TA, V>(a, 0, i0, x);
            AUG_UNROLL
            for (int t = 0; t < V; t++) r[t] = f(x[t]);
            aug__ew_vstore<TO, V>(a, 1, i0, r);
        });
}

template <class TA, class TB, class TO, class F>
AUG_GLOBAL void aug__k_binary(aug__ew_args a, F f) {
    constexpr int V = aug__ew_v<F, TA, TB, TO>();
    aug__ew_run<3, V>(
        a,
        [&](const int64_t *off) {
            aug__ew_store<TO>(a, 2, off[2], f(aug__ew_load<TA>(a, 0, off[0]), aug__ew_load<TB>(a, 1, off[1])));
        },
        [&](int64_t i0) {
            TA x[V];
            TB y[V];
            TO r[V];
            aug__ew_vload<TA, V>(a, 0, i0, x);
            aug__ew_vload<TB, V>(a, 1, i0, y);
            AUG_UNROLL
            for (int t = 0; t < V; t++) r[t] = f(x[t], y[t]);
            aug__ew_vstore<TO, V>(a, 2, i0, r);
        });
}

/* Three inputs of ctypes TA, T, T (TA: where's bool condition, or T). */
template <class TA, class T, class F>
AUG_DEV void aug__ew_run3(const aug__ew_args &a, F f) {
    constexpr int V = aug__ew_v<F, TA, T>();
    aug__ew_run<4, V>(
        a,
        [&](const int64_t *off) {
            aug__ew_store<T>(a, 3, off[3],
                             f(aug__ew_load<TA>(a, 0, off[0]), aug__ew_load<T>(a, 1, off[1]),
                               aug__ew_load<T>(a, 2, off[2])));
        },
        [&](int64_t i0) {
            TA x[V];
            T y[V], z[V], r[V];
            aug__ew_vload<TA, V>(a, 0, i0, x);
            aug__ew_vload<T, V>(a, 1, i0, y);
            aug__ew_vload<T, V>(a, 2, i0, z);
            AUG_UNROLL
            for (int t = 0; t < V; t++) r[t] = f(x[t], y[t], z[t]);
            aug__ew_vstore<T, V>(a, 3, i0, r);
        });
}

template <class T, class F>
AUG_GLOBAL void aug__k_ternary(aug__ew_args a, F f) {
    aug__ew_run3<T, T>(a, f);
}

/* Runs an op kernel for a plan: the launch shape from the plan's settings. */
typedef aug_status (*aug__ew_launcher)(const char *func, const aug__ew_args *a, const aug__exec *e);

/* Functors over the shared scalar rules, and their launchers:
 * AUG__EW_DEF{1,2,3}(NAME, types..., FN) defines functor f_NAME and launcher
 * l_NAME. */
#define AUG__EW_LAUNCH_BODY(KERNEL, NOPS, V)                                                   \
    const aug__ew_args b = aug__ew_split(a, NOPS, V);                                          \
    aug__cuda_grid g = aug__cuda_grid_occ(e, b.vs.vec ? aug__vec_items(b.vs, b.size) : b.size, 256, \
                                          (const void *)KERNEL);                               \
    AUG_LAUNCH(KERNEL, g.blocks, g.threads, 0, aug__cuda_stream(e), b, f);                     \
    return aug__cuda_launched(func, #KERNEL, g.blocks, g.threads);

#define AUG__EW_DEF1(NAME, TA, TO, FN)                                                         \
    struct f_##NAME {                                                                          \
        static constexpr int vcap = AUG__EW_VCAP;                                              \
        AUG_DEV TO operator()(TA x) const { return (TO)FN(x); }                                \
    };                                                                                         \
    static aug_status l_##NAME(const char *func, const aug__ew_args *a, const aug__exec *e) {  \
        f_##NAME f;                                                                            \
        AUG__EW_LAUNCH_BODY((aug__k_unary<TA, TO, f_##NAME>), 2, (aug__ew_v<f_##NAME, TA, TO>())) \
    }
#define AUG__EW_DEF2(NAME, TA, TB, TO, FN)                                                     \
    struct f_##NAME {                                                                          \
        static constexpr int vcap = AUG__EW_VCAP;                                              \
        AUG_DEV TO operator()(TA x, TB y) const { return (TO)FN(x, y); }                       \
    };                                                                                         \
    static aug_status l_##NAME(const char *func, const aug__ew_args *a, const aug__exec *e) {  \
        f_##NAME f;                                                                            \
        AUG__EW_LAUNCH_BODY((aug__k_binary<TA, TB, TO, f_##NAME>), 3, (aug__ew_v<f_##NAME, TA, TB, TO>())) \
    }
#define AUG__EW_DEF3(NAME, T, FN)                                                              \
    struct f_##NAME {                                                                          \
        static constexpr int vcap = AUG__EW_VCAP;                                              \
        AUG_DEV T operator()(T x, T y, T z) const { return FN(x, y, z); }                      \
    };                                                                                         \
    static aug_status l_##NAME(const char *func, const aug__ew_args *a, const aug__exec *e) {  \
        f_##NAME f;                                                                            \
        AUG__EW_LAUNCH_BODY((aug__k_ternary<T, f_##NAME>), 4, (aug__ew_v<f_##NAME, T>())) \
    }

/* The family tables are positional (C++ has no array designators): one row per
 * ctype in the order of scalar/cast.h's list. */
static_assert(AUG__NUM_CTYPES == 14 && AUG__CT_FLOAT16 == 9 && AUG__CT_I128 == 13,
              "the positional tables of src/cuda/ew_*.cu follow scalar/cast.h's ctype list");

/* The family lookups (cuda/ew_<family>.cu): the launcher of op on ctype(s), or
 * NULL. Same ctype contract as the CPU families (cpu/kernels.h). */
aug__ew_launcher aug__cuda_arith_launcher(aug_op op, int ctype);
aug__ew_launcher aug__cuda_div_launcher(aug_op op, int ctype);
aug__ew_launcher aug__cuda_cmp_launcher(aug_op op, int ctype_a, int ctype_b);
aug__ew_launcher aug__cuda_bitwise_launcher(aug_op op, int ctype);
aug__ew_launcher aug__cuda_math_launcher(aug_op op, int ctype);
aug__ew_launcher aug__cuda_where_launcher(int ctype);

#endif
