/* cuda/vec.cuh: the contiguous fast path's vector loads and stores (private;
 * the elementwise, conversion, fill and random-fill kernels).
 *
 * A kernel over contiguous operands lets each thread take V consecutive
 * elements, V = 16 / (the widest operand's element size): the widest operand
 * moves as one 16-byte load or store, a narrower one as one V x size-byte
 * access (a 4-element float -> uint8 cast: one float4 load, one 32-bit store).
 * The elements before the first boundary at which every operand is so aligned
 * (the head) and those after the last whole vector (the tail) go through the
 * kernel's one-element path, with typed accesses of the element's own size.
 * The host side (aug__vec_split) decides whether the operands allow it and
 * where the head ends; the kernels take the split in aug__vec_span. */
#ifndef AUG_CUDA_VEC_CUH
#define AUG_CUDA_VEC_CUH

#include <string.h>
#include "cuda/cuda.h"

/* The unsigned type of B bytes that one load or store moves. */
template <int B> struct aug__vbits;
template <> struct aug__vbits<1> { typedef uint8_t type; };
template <> struct aug__vbits<2> { typedef uint16_t type; };
template <> struct aug__vbits<4> { typedef uint32_t type; };
template <> struct aug__vbits<8> { typedef uint2 type; };
template <> struct aug__vbits<16> { typedef uint4 type; };

/* V for operands of these types: 16 / the largest size. */
template <class T, class... Ts> struct aug__vmax {
    static constexpr int value = (int)sizeof(T) > aug__vmax<Ts...>::value ? (int)sizeof(T) : aug__vmax<Ts...>::value;
};
template <class T> struct aug__vmax<T> {
    static constexpr int value = (int)sizeof(T);
};
template <class... Ts> __host__ __device__ constexpr int aug__vwidth() { return 16 / aug__vmax<Ts...>::value; }

/* V elements of T at p (aligned to V * sizeof(T)) into x, in one access. */
template <class T, int V> AUG_DEV void aug__vload(const T *p, T (&x)[V]) {
    typedef typename aug__vbits<V * (int)sizeof(T)>::type W;
    AUG_CHECK_LOAD(p, W);
    const W w = *(const W *)(const void *)p;
    memcpy(x, &w, sizeof w);
}
/* x stored as V elements of T at p (aligned to V * sizeof(T)), in one access. */
template <class T, int V> AUG_DEV void aug__vstore(T *p, const T (&x)[V]) {
    typedef typename aug__vbits<V * (int)sizeof(T)>::type W;
    W w;
    memcpy(&w, x, sizeof w);
    AUG_CHECK_STORE(p, W);
    *(W *)(void *)p = w;
}

/* The split of n contiguous elements: elements [0, head) and [head + nvec * V,
 * n) one by one, [head, head + nvec * V) as nvec vectors. vec 0: no fast path. */
typedef struct aug__vec_span {
    int vec;
    int64_t head, nvec;
} aug__vec_span;

/* Element r of the one-by-one elements (r < head + tail): its index. */
template <int V> AUG_DEV int64_t aug__vec_rest_index(const aug__vec_span &s, int64_t r) {
    return r < s.head ? r : s.head + s.nvec * V + (r - s.head);
}

/* Host: the split for n contiguous elements of nops operands at base[k] with
 * element sizes size[k] (NULL bases, scalars passed by value, take no part),
 * moved v at a time (the kernel's V). vec 0 when some base is not a multiple
 * of its size, or when no head aligns every operand at once (a uint8 view one
 * byte in beside a float32 tensor). */
static inline aug__vec_span aug__vec_split(int64_t n, int nops, char *const *base, const int *size, int v) {
    aug__vec_span s = {0, 0, 0};
    if (v < 1 || n <= 0) return s;
    int64_t head = -1;
    for (int k = 0; k < nops; k++) {
        if (!base[k]) continue;
        const uintptr_t p = (uintptr_t)base[k], sz = (uintptr_t)size[k];
        if (p % sz) return s;
        const int64_t h = (int64_t)((v - (p / sz) % (uintptr_t)v) % (uintptr_t)v);
        if (head >= 0 && h != head) return s;
        head = h;
    }
    if (head < 0) head = 0;
    if (head > n) head = n;
    s.vec = v;
    s.head = head;
    s.nvec = (n - head) / v;
    return s;
}

/* Host: the work items of a split (a launch's n): the larger of the vectors and
 * the one-by-one elements. */
static inline int64_t aug__vec_items(const aug__vec_span &s, int64_t n) {
    const int64_t rest = n - s.nvec * s.vec;
    return s.nvec > rest ? s.nvec : rest;
}

#endif
