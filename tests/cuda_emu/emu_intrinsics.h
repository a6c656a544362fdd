/* emu_intrinsics.h: CUDA device intrinsics with PTX semantics, for the g++
 * emulation build (included by cuda_emu.h).
 *
 * These are what make casts and arithmetic bit-exact against a GPU, so every rule
 * is written out with its source:
 *  - float -> integer (cvt.rni/rzi/rmi/rpi.sNN/uNN.fMM, PTX ISA "cvt"): the result
 *    is clamped to the destination range (cvt saturates float-to-integer
 *    conversions by default, .sat is redundant there); -inf/+inf clamp like any
 *    out-of-range value. NaN: "zero if source is not .f64 and destination is not
 *    .s64/.u64; otherwise 1 << (BitWidth(dst) - 1)", i.e. INT_MIN-style
 *    0x80000000 / 0x8000000000000000 (also for the unsigned destinations).
 *  - integer -> float (cvt.rn.fMM.sNN/uNN): round to nearest even, which is what
 *    the host's conversions do under the default rounding mode (the emulation
 *    never changes MXCSR; fiber switches preserve it).
 *  - __fadd_rn & co.: IEEE operations that nvcc never contracts into an FMA; the
 *    empty asm statements keep g++ from contracting them either.
 *  - bit operations: as documented in the CUDA math API (clz(0) = 32, ffs(0) = 0,
 *    ...), __byte_perm as PTX prmt.b32 in its generic mode. */
#ifndef AUG_EMU_INTRINSICS_H
#define AUG_EMU_INTRINSICS_H

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

/* An optimisation barrier on a floating-point value: the compiler must assume it
 * changed, so it cannot fuse the operation producing it with the one using it. */
#if defined(__x86_64__) || defined(__i386__)
#define AUG_EMU_OPAQUE(v) __asm__("" : "+x"(v))
#elif defined(__aarch64__)
#define AUG_EMU_OPAQUE(v) __asm__("" : "+w"(v))
#else
#define AUG_EMU_OPAQUE(v) __asm__("" : "+m"(v))
#endif

namespace aug_emu {

/* Rounding of the float->integer conversions: .rni (nearest even), .rzi (toward
 * zero), .rmi (toward -inf), .rpi (toward +inf). rint uses the current rounding
 * mode, which is round-to-nearest-even on every emulation thread. */
enum Rnd { RN, RZ, RD, RU };
template <class F>
inline F round_int(F x, Rnd r) {
    switch (r) {
    case RN: return std::rint(x);
    case RZ: return std::trunc(x);
    case RD: return std::floor(x);
    default: return std::ceil(x);
    }
}

template <class F>
constexpr F pow2(int n) {
    F r = 1;
    for (int i = 0; i < n; i++) r *= 2;
    return r;
}

/* cvt.<rnd>.<I>.<F>: round, then clamp to [min(I), max(I)], NaN as described in
 * the file comment. `hi` is 2^(bits of I, minus 1 if signed) as an exact F value;
 * an integer-valued r is in range iff lo <= r < hi (exact compares, no overflow). */
template <class I, class F>
inline I cvt_f2i(F x, Rnd rnd) {
    constexpr bool is_signed = std::numeric_limits<I>::is_signed;
    constexpr int bits = (int)sizeof(I) * 8;
    if (x != x) {
        /* NaN: 0 only for an f32 source and a destination of <= 32 bits. */
        if (sizeof(F) == 4 && bits <= 32) return 0;
        return (I)((uint64_t)1 << (bits - 1)); /* INT_MIN / 0x80..0 for unsigned */
    }
    constexpr F hi = pow2<F>(is_signed ? bits - 1 : bits);
    constexpr F lo = is_signed ? -hi : (F)0;
    F r = round_int(x, rnd);
    if (r >= hi) return std::numeric_limits<I>::max();
    if (r <= lo) return is_signed ? std::numeric_limits<I>::min() : (I)0; /* also -0.0 -> 0 */
    return (I)r;
}

} /* namespace aug_emu */

#define AUG_EMU_CVT_F2I(name, I, F)                                                         \
    inline I name##_rn(F x) { return aug_emu::cvt_f2i<I, F>(x, aug_emu::RN); }              \
    inline I name##_rz(F x) { return aug_emu::cvt_f2i<I, F>(x, aug_emu::RZ); }              \
    inline I name##_rd(F x) { return aug_emu::cvt_f2i<I, F>(x, aug_emu::RD); }              \
    inline I name##_ru(F x) { return aug_emu::cvt_f2i<I, F>(x, aug_emu::RU); }
AUG_EMU_CVT_F2I(__float2int, int, float)                /* NaN -> 0 */
AUG_EMU_CVT_F2I(__float2uint, unsigned, float)          /* NaN -> 0 */
AUG_EMU_CVT_F2I(__float2ll, long long, float)           /* NaN -> 0x8000000000000000 */
AUG_EMU_CVT_F2I(__float2ull, unsigned long long, float) /* NaN -> 0x8000000000000000 */
AUG_EMU_CVT_F2I(__double2int, int, double)              /* NaN -> 0x80000000 (INT_MIN) */
AUG_EMU_CVT_F2I(__double2uint, unsigned, double)        /* NaN -> 0x80000000 */
AUG_EMU_CVT_F2I(__double2ll, long long, double)         /* NaN -> 0x8000000000000000 */
AUG_EMU_CVT_F2I(__double2ull, unsigned long long, double) /* NaN -> 0x8000000000000000 */
#undef AUG_EMU_CVT_F2I

/* integer -> float, round to nearest even (cvt.rn.f32/f64.s32/u32/s64/u64). The
 * host conversions round to nearest even (cvtsi2ss/sd; g++'s unsigned 64-bit
 * sequence keeps a sticky bit, so it is correctly rounded too). */
inline float __int2float_rn(int x) { return (float)x; }
inline float __uint2float_rn(unsigned x) { return (float)x; }
inline float __ll2float_rn(long long x) { return (float)x; }
inline float __ull2float_rn(unsigned long long x) { return (float)x; }
inline double __int2double_rn(int x) { return (double)x; } /* exact */
inline double __uint2double_rn(unsigned x) { return (double)x; } /* exact */
inline double __ll2double_rn(long long x) { return (double)x; }
inline double __ull2double_rn(unsigned long long x) { return (double)x; }

/* __saturatef: clamp to [+0.0, 1.0], NaN -> +0.0 (PTX .sat: "NaN results are
 * flushed to +0.0f"). -0.0 gives +0.0: the interval's lower end is +0.0. */
inline float __saturatef(float x) {
    if (!(x > 0.0f)) return 0.0f; /* NaN, negatives, -0.0, +0.0 */
    return x < 1.0f ? x : 1.0f;
}

/* IEEE round-to-nearest arithmetic that is never contracted into an FMA (CUDA
 * guarantees this for the _rn intrinsics; AUG_EMU_OPAQUE makes g++ keep it). */
#define AUG_EMU_RN_OP(name, T, op)                  \
    inline T name(T a, T b) {                       \
        AUG_EMU_OPAQUE(a);                          \
        AUG_EMU_OPAQUE(b);                          \
        T r = a op b;                               \
        AUG_EMU_OPAQUE(r);                          \
        return r;                                   \
    }
AUG_EMU_RN_OP(__fadd_rn, float, +)
AUG_EMU_RN_OP(__fsub_rn, float, -)
AUG_EMU_RN_OP(__fmul_rn, float, *)
AUG_EMU_RN_OP(__fdiv_rn, float, /)
AUG_EMU_RN_OP(__dadd_rn, double, +)
AUG_EMU_RN_OP(__dsub_rn, double, -)
AUG_EMU_RN_OP(__dmul_rn, double, *)
AUG_EMU_RN_OP(__ddiv_rn, double, /)
#undef AUG_EMU_RN_OP
/* Fused multiply-add, one rounding (glibc's fma/fmaf are exact also without FMA
 * hardware). */
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
inline float __frcp_rn(float x) { return __fdiv_rn(1.0f, x); }
inline double __drcp_rn(double x) { return __ddiv_rn(1.0, x); }
inline float __fsqrt_rn(float x) { return std::sqrt(x); } /* correctly rounded (IEEE) */
inline double __dsqrt_rn(double x) { return std::sqrt(x); }

/* ---- integer intrinsics -------------------------------------------------------------- */
/* High halves of full products (mul.hi). */
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((uint64_t)a * b) >> 32); }
inline int __mulhi(int a, int b) { return (int)(((int64_t)a * b) >> 32); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
inline long long __mul64hi(long long a, long long b) {
    return (long long)(((__int128)a * b) >> 64);
}
/* clz(0) = 32 / 64 (the GCC builtins are undefined at 0). */
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
/* 1-based position of the least significant set bit, 0 for 0. */
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x) {
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    return __builtin_bswap32(x);
}
inline unsigned long long __brevll(unsigned long long x) {
    return ((unsigned long long)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32));
}
/* prmt.b32 generic mode: the 8 source bytes are {y, x} = {b7..b4, b3..b0}; result
 * byte n is selected by nibble n of s: its 3 low bits pick the byte, its msb
 * replicates that byte's sign bit over the result byte (PTX ISA "prmt"; the CUDA
 * math API documents only the 3-bit selection, which is the msb = 0 case). */
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
    uint64_t src = ((uint64_t)y << 32) | x;
    unsigned r = 0;
    for (int n = 0; n < 4; n++) {
        unsigned ctl = (s >> (4 * n)) & 0xfu;
        unsigned byte = (unsigned)(src >> (8 * (ctl & 7u))) & 0xffu;
        if (ctl & 8u) byte = (byte & 0x80u) ? 0xffu : 0u;
        r |= byte << (8 * n);
    }
    return r;
}

/* ---- bit casts ---------------------------------------------------------------------- */
namespace aug_emu {
template <class To, class From>
inline To bit_cast(From f) {
    static_assert(sizeof(To) == sizeof(From), "bit_cast size");
    To t;
    std::memcpy(&t, &f, sizeof t);
    return t;
}
} /* namespace aug_emu */
inline int __float_as_int(float x) { return aug_emu::bit_cast<int>(x); }
inline unsigned __float_as_uint(float x) { return aug_emu::bit_cast<unsigned>(x); }
inline float __int_as_float(int x) { return aug_emu::bit_cast<float>(x); }
inline float __uint_as_float(unsigned x) { return aug_emu::bit_cast<float>(x); }
inline long long __double_as_longlong(double x) { return aug_emu::bit_cast<long long>(x); }
inline double __longlong_as_double(long long x) { return aug_emu::bit_cast<double>(x); }
inline int __double2hiint(double x) { return (int)(aug_emu::bit_cast<unsigned long long>(x) >> 32); }
inline int __double2loint(double x) { return (int)aug_emu::bit_cast<unsigned long long>(x); }
inline double __hiloint2double(int hi, int lo) {
    return aug_emu::bit_cast<double>(((unsigned long long)(unsigned)hi << 32) | (unsigned)lo);
}

/* ---- min / max ------------------------------------------------------------------------
 * The overload set of CUDA's math_functions.hpp: mixed signed/unsigned pairs
 * compare as unsigned, float uses fminf/fmaxf (a NaN operand yields the other
 * one), float/double pairs compute in double. */
#define AUG_EMU_MINMAX(R, A, B)                                       \
    inline R min(A a, B b) { return (R)a < (R)b ? (R)a : (R)b; }      \
    inline R max(A a, B b) { return (R)a > (R)b ? (R)a : (R)b; }
AUG_EMU_MINMAX(int, int, int)
AUG_EMU_MINMAX(unsigned, unsigned, unsigned)
AUG_EMU_MINMAX(unsigned, int, unsigned)
AUG_EMU_MINMAX(unsigned, unsigned, int)
AUG_EMU_MINMAX(long, long, long)
AUG_EMU_MINMAX(unsigned long, unsigned long, unsigned long)
AUG_EMU_MINMAX(unsigned long, long, unsigned long)
AUG_EMU_MINMAX(unsigned long, unsigned long, long)
AUG_EMU_MINMAX(long long, long long, long long)
AUG_EMU_MINMAX(unsigned long long, unsigned long long, unsigned long long)
AUG_EMU_MINMAX(unsigned long long, long long, unsigned long long)
AUG_EMU_MINMAX(unsigned long long, unsigned long long, long long)
#undef AUG_EMU_MINMAX
inline float min(float a, float b) { return std::fmin(a, b); }
inline float max(float a, float b) { return std::fmax(a, b); }
inline double min(double a, double b) { return std::fmin(a, b); }
inline double max(double a, double b) { return std::fmax(a, b); }
inline double min(float a, double b) { return std::fmin((double)a, b); }
inline double max(float a, double b) { return std::fmax((double)a, b); }
inline double min(double a, float b) { return std::fmin(a, (double)b); }
inline double max(double a, float b) { return std::fmax(a, (double)b); }

#endif /* AUG_EMU_INTRINSICS_H */
