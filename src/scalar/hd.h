/* scalar/hd.h: the portability layer of the shared scalar headers (private).
 *
 * Every per-element rule of the library (saturating casts, each operator's
 * scalar rule, float16/bfloat16, Philox and its value mapping, the warp sample,
 * blur taps, the lighting curve, the reduction order) lives once, in the
 * headers of src/scalar/. gcc compiles them as C11 for the CPU backend, nvcc as
 * CUDA for the GPU kernels, and g++ as C++ for the emulated CUDA build
 * (tests/cuda_emu), so the backends cannot drift apart.
 *
 * The headers stay inside the common subset of C11 and C++17: no compound
 * literals, no designated initializers, no implicit void* conversions, no
 * compiler builtins nvcc rejects in device code (__builtin_mul_overflow); bit
 * casts go through memcpy (valid in CUDA device code and folded to register
 * moves by every compiler). They never branch on __CUDA_ARCH__: a rule must give
 * the same bits everywhere. */
#ifndef AUG_SCALAR_HD_H
#define AUG_SCALAR_HD_H

#include <stdint.h>
#include <string.h>
#include <math.h>

/* A function usable on the host and in CUDA device code. */
#if defined(__CUDACC__)
#define AUG_HD __host__ __device__ __forceinline__
#else
#define AUG_HD static inline
#endif
/* The same, always inlined: for rules the CPU compiles into several vector
 * variants of one loop (target("avx2") clones inline them only when forced). */
#if defined(__CUDACC__)
#define AUG_HD_ALWAYS __host__ __device__ __forceinline__
#else
#define AUG_HD_ALWAYS static inline __attribute__((always_inline))
#endif

/* 16-byte alignment of a member, in C and in C++. */
#if defined(__cplusplus)
#define AUG__ALIGN16 alignas(16)
#else
#define AUG__ALIGN16 _Alignas(16)
#endif

/* The exact integer compute type (every integer and bool value fits, and the
 * sum or difference of two of them cannot overflow it). nvcc supports it in
 * device code (multiplication, division and conversions included). */
#if defined(__GNUC__) && !defined(__cplusplus)
__extension__ typedef __int128 aug__i128;
__extension__ typedef unsigned __int128 aug__u128;
#else
typedef __int128 aug__i128;
typedef unsigned __int128 aug__u128;
#endif

/* ---- global memory accesses, for the CUDA emulation's counter ---------------------
 * AUG__MEM_LOAD(p, n) / AUG__MEM_STORE(p, n): the code at this line is about to read
 * or write n bytes at p, which may be global memory. The emulated CUDA build
 * (tests/cuda_emu/emu_memstats.cpp) records the access of the running GPU thread
 * while recording is on (AUG_EMU_MEMSTATS=1 or aug_emu_memstats_enable), keeping only
 * addresses in device or page-locked allocations (a kernel's local buffers and
 * host-side uses of a helper are dropped), and reports each kernel's memory
 * efficiency; everywhere else (the CPU backend's C, nvcc) they are nothing, so the
 * code a GPU runs does not change. */
#if defined(AUG_CUDA_EMU) && defined(__cplusplus)
#include "emu_mem.h" /* tests/cuda_emu, on the emulation build's include path */
#endif
#ifndef AUG__MEM_LOAD
#define AUG__MEM_LOAD(p, n) ((void)0)
#define AUG__MEM_STORE(p, n) ((void)0)
#endif

#define AUG__I128_MAX ((aug__i128)(((aug__u128)1 << 127) - 1))
#define AUG__I128_MIN (-AUG__I128_MAX - 1)

/* ---- bit casts -------------------------------------------------------------- */

AUG_HD float aug__bits_f32(uint32_t w) { float f; memcpy(&f, &w, sizeof f); return f; }
AUG_HD uint32_t aug__f32_bits(float f) { uint32_t w; memcpy(&w, &f, sizeof w); return w; }
AUG_HD double aug__bits_f64(uint64_t w) { double f; memcpy(&f, &w, sizeof f); return f; }
AUG_HD uint64_t aug__f64_bits(double f) { uint64_t w; memcpy(&w, &f, sizeof w); return w; }

/* c ? a : b as bit masks (compilers keep ?: chains on these as branches). */
AUG_HD uint32_t aug__sel_u32(int c, uint32_t a, uint32_t b) {
    uint32_t m = 0u - (uint32_t)(c != 0);
    return (a & m) | (b & ~m);
}

/* Leading zeros of a non-zero 64-bit value (both compilers accept the builtin
 * in host and device code). */
AUG_HD int aug__clz64(uint64_t x) { return __builtin_clzll(x); }

/* ---- exact products ------------------------------------------------------------
 * Each returns 1 when the exact product does not fit the type (then *r is
 * unspecified), else 0 with *r the product. Written without
 * __builtin_mul_overflow, which nvcc refuses in device code. */

AUG_HD int aug__mul_ovf_u8(uint8_t a, uint8_t b, uint8_t *r) {
    uint32_t p = (uint32_t)a * (uint32_t)b;
    *r = (uint8_t)p;
    return p > UINT8_MAX;
}
AUG_HD int aug__mul_ovf_u16(uint16_t a, uint16_t b, uint16_t *r) {
    uint32_t p = (uint32_t)a * (uint32_t)b;
    *r = (uint16_t)p;
    return p > UINT16_MAX;
}
AUG_HD int aug__mul_ovf_i32(int32_t a, int32_t b, int32_t *r) {
    int64_t p = (int64_t)a * (int64_t)b;
    *r = (int32_t)p;
    return p < INT32_MIN || p > INT32_MAX;
}
AUG_HD int aug__mul_ovf_u32(uint32_t a, uint32_t b, uint32_t *r) {
    uint64_t p = (uint64_t)a * (uint64_t)b;
    *r = (uint32_t)p;
    return p > UINT32_MAX;
}
AUG_HD int aug__mul_ovf_i64(int64_t a, int64_t b, int64_t *r) {
    aug__i128 p = (aug__i128)a * (aug__i128)b;
    *r = (int64_t)p;
    return p < INT64_MIN || p > INT64_MAX;
}
AUG_HD int aug__mul_ovf_u64(uint64_t a, uint64_t b, uint64_t *r) {
    aug__u128 p = (aug__u128)a * (aug__u128)b;
    *r = (uint64_t)p;
    return (p >> 64) != 0;
}
/* 128-bit unsigned: with a = a1 2^64 + a0 and b = b1 2^64 + b0 the product fits
 * only if a1 or b1 is zero, the cross term fits 64 bits, and adding it (shifted)
 * to a0 b0 does not carry out. */
AUG_HD int aug__mul_ovf_u128(aug__u128 a, aug__u128 b, aug__u128 *r) {
    uint64_t a1 = (uint64_t)(a >> 64), a0 = (uint64_t)a, b1 = (uint64_t)(b >> 64), b0 = (uint64_t)b;
    aug__u128 low = (aug__u128)a0 * b0;
    *r = a * b;
    if (a1 != 0 && b1 != 0) return 1;
    aug__u128 cross = (aug__u128)a1 * b0 + (aug__u128)a0 * b1; /* one term is zero */
    if ((cross >> 64) != 0) return 1;
    aug__u128 hi = cross << 64;
    return low + hi < low;
}
/* 128-bit signed through magnitudes: the limit is 2^127 - 1, or 2^127 for a
 * negative product. */
AUG_HD int aug__mul_ovf_i128(aug__i128 a, aug__i128 b, aug__i128 *r) {
    int neg = (a < 0) != (b < 0);
    aug__u128 ma = a < 0 ? (aug__u128)0 - (aug__u128)a : (aug__u128)a;
    aug__u128 mb = b < 0 ? (aug__u128)0 - (aug__u128)b : (aug__u128)b;
    aug__u128 m;
    if (aug__mul_ovf_u128(ma, mb, &m)) return 1;
    aug__u128 lim = ((aug__u128)1 << 127) - (neg ? 0u : 1u);
    if (m > lim) return 1;
    *r = neg ? (aug__i128)((aug__u128)0 - m) : (aug__i128)m;
    return 0;
}

/* ---- rounding ------------------------------------------------------------------
 * Round to the nearest integer, ties to even, without libm (rint is a library
 * call on baseline x86-64): adding and subtracting 2^52 (2^23) leaves no
 * fraction bits under the default rounding mode; |x| >= 2^52 (2^23) is already
 * an integer, and NaN/inf pass through. A select, so loops vectorise. Needs IEEE
 * round-to-nearest additions, which both the host (SSE2) and CUDA (add.rn) do. */
AUG_HD double aug__rne_f64(double x) {
    double a = fabs(x);
    double t = a + 0x1p52;
    t = t - 0x1p52;
    return copysign(a < 0x1p52 ? t : a, x);
}
AUG_HD float aug__rne_f32(float x) {
    float a = fabsf(x);
    float t = a + 0x1p23f;
    t = t - 0x1p23f;
    return copysignf(a < 0x1p23f ? t : a, x);
}

#endif
