/* cuda_emu.h: the host emulation of the CUDA execution model, device side.
 *
 * Included (through src/cuda/compat.h) by the backend's .cu files when g++
 * compiles them as C++ (AUG_CUDA_EMU). The real <cuda_runtime.h> and
 * <cublas_v2.h> supply the types, enums and API declarations; the runtime API
 * is implemented by the emulation library (emu_runtime.cpp, emu_stream.cpp,
 * emu_cublas.cpp). This header supplies what device code needs and g++ lacks:
 * the execution-space keywords, threadIdx/blockIdx/blockDim/gridDim/warpSize,
 * barriers, warp shuffles and votes, atomics, __ldg, min/max, and the
 * intrinsics with PTX semantics (emu_intrinsics.h).
 *
 * Every thread of a block is a fiber (emu_block.cpp): it runs until it
 * finishes or reaches a barrier or warp operation; the scheduler then checks
 * the rules a GPU relies on (all threads at one barrier, warp masks naming only
 * waiting lanes, ...) and resumes the threads in forward, reverse or shuffled
 * order (AUG_EMU_ORDER), so order-dependent kernels give different results.
 *
 * Every stream runs its work in order on a host thread of its own
 * (emu_stream.cpp), so ordinary streams really run concurrently and a missing
 * event wait shows up as a wrong result. The legacy default stream (0,
 * cudaStreamLegacy) is emulated: its work waits for the work queued before it on
 * the device's blocking streams, and their later work waits for it; streams
 * created with cudaStreamNonBlocking are exempt both ways. cudaMemcpy and
 * cudaMemset are legacy-stream work; cudaStreamPerThread is a blocking stream of
 * each host thread. Choices that differ from real CUDA: stream priorities are
 * not scheduled; cudaStreamDestroy waits for the stream's work; cudaDeviceReset
 * keeps streams and events; per-thread default stream builds are refused (below). */
#ifndef AUG_CUDA_EMU_H
#define AUG_CUDA_EMU_H

#if !defined(__cplusplus) || __cplusplus < 201703L
#error "cuda_emu.h: the emulation build compiles .cu files as C++17 (g++ -x c++ -std=c++17)"
#endif
#if defined(__CUDACC__)
#error "cuda_emu.h is for the g++ emulation build only; nvcc uses the real CUDA headers"
#endif
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#error "cuda_emu: per-thread default stream builds (_ptds/_ptsz symbols) are not emulated"
#endif

#include <cuda_runtime.h>
#include <cublas_v2.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>

/* ---- execution-space keywords ----------------------------------------------------
 * Under g++ crt/host_defines.h already defines these as empty; redefine them so the
 * meaning does not depend on the CUDA version. Kernels become ordinary functions.
 * __noinline__ is deliberately left alone: libstdc++ uses the word in attributes. */
#undef __global__
#define __global__
#undef __device__
#define __device__
#undef __host__
#define __host__
#undef __launch_bounds__
#define __launch_bounds__(...)
#ifndef __forceinline__
#define __forceinline__ __inline__ __attribute__((always_inline))
#endif
#ifndef __restrict__
#define __restrict__ __restrict
#endif

/* Raw __shared__ would silently give every thread its own array (host_defines.h
 * defines it as empty under g++). Make it a hard, readable error instead. */
#undef __shared__
#define __shared__                                                                   \
    _Pragma("GCC error \"raw __shared__ is not supported by the CUDA emulation: "   \
            "use AUG_SHARED(T, name, count) or AUG_SHARED_DYN(T, name) from compat.h\"")

namespace aug_emu {

/* What device code reads about the running thread (the scheduler's ThreadState
 * extends it). */
struct BlockView {
    uint3 bid;
    dim3 bdim;
    dim3 gdim;
};
struct ThreadView {
    uint3 tid;
    const BlockView *blk;
};

/* One AUG_SHARED declaration (a function-local static, constant-initialised). */
struct SharedSite {
    size_t bytes;
    size_t align;
    const char *name;
    const char *file;
    int line;
};

/* Warp operation codes (emu_block.cpp). */
enum WarpOp : int {
    WOP_SHFL_IDX,
    WOP_SHFL_UP,
    WOP_SHFL_DOWN,
    WOP_SHFL_XOR,
    WOP_BALLOT,
    WOP_ANY,
    WOP_ALL,
    WOP_SYNCWARP
};

/* Barrier kinds. */
enum BarrierKind : int { BAR_PLAIN, BAR_COUNT, BAR_AND, BAR_OR };

/* Scheduler entry points (emu_block.cpp). All must be called from kernel code. */
int barrier(const char *file, int line, int kind, int pred);
unsigned long long warp_op(const char *file, int line, int op, unsigned mask,
                           unsigned long long value, int b, int width);
unsigned activemask();
void *shared_static(const SharedSite *site);
void *shared_dynamic();
[[noreturn]] void trap(const char *file, int line, const char *what);
/* A typed access of `align` bytes at p that is not aligned: the block fails and
 * the device keeps cudaErrorMisalignedAddress (sticky), as a GPU's load does. */
[[noreturn]] void misaligned(const char *file, int line, const void *p, size_t align);

/* Launch submission (emu_stream.cpp): validates the configuration on the calling
 * thread, then queues the launch on the stream. Never returns an error itself;
 * errors go to cudaGetLastError() like a real launch. */
void launch_submit(const char *name, const void *kfn, dim3 grid, dim3 block, size_t shmem,
                   cudaStream_t stream, void (*run)(void *), void *call, void (*destroy)(void *));

/* A launch's kernel and its arguments, captured by value at launch time (converted
 * to the kernel's parameter types, as CUDA does); every thread calls the kernel
 * with copies of them. */
template <class... P>
struct KernelCall {
    void (*kernel)(P...);
    std::tuple<typename std::decay<P>::type...> args;
    static void run(void *self) {
        KernelCall *c = static_cast<KernelCall *>(self);
        std::apply(c->kernel, c->args);
    }
    static void destroy(void *self) { delete static_cast<KernelCall *>(self); }
};

template <class... P, class... A>
inline void launch(void (*kernel)(P...), const char *name, dim3 grid, dim3 block, size_t shmem,
                   cudaStream_t stream, A &&...args) {
    static_assert(sizeof...(P) == sizeof...(A), "AUG_LAUNCH: argument count does not match the kernel");
    KernelCall<P...> *c = new KernelCall<P...>{
        kernel, std::tuple<typename std::decay<P>::type...>(std::forward<A>(args)...)};
    launch_submit(name, reinterpret_cast<const void *>(kernel), grid, block, shmem, stream,
                  &KernelCall<P...>::run, c, &KernelCall<P...>::destroy);
}

} /* namespace aug_emu */

/* The running thread (a fiber of the stream's host thread). initial-exec: no
 * __tls_get_addr call on every threadIdx read, also inside a dlopen'd library
 * (8 bytes of glibc's static TLS surplus). */
extern __thread aug_emu::ThreadView *aug_emu_cur __attribute__((tls_model("initial-exec")));

/* Built-in variables, read-only like on a GPU. */
#define threadIdx (static_cast<const uint3 &>(aug_emu_cur->tid))
#define blockIdx (static_cast<const uint3 &>(aug_emu_cur->blk->bid))
#define blockDim (static_cast<const dim3 &>(aug_emu_cur->blk->bdim))
#define gridDim (static_cast<const dim3 &>(aug_emu_cur->blk->gdim))
/* A constant, not a macro: host code reads cudaDeviceProp::warpSize. */
constexpr int warpSize = 32;

/* ---- barriers -----------------------------------------------------------------------
 * Macros so each barrier knows its call site: threads of one phase waiting at
 * different __syncthreads() calls are reported (undefined behaviour on a GPU). */
#define __syncthreads() ((void)::aug_emu::barrier(__FILE__, __LINE__, ::aug_emu::BAR_PLAIN, 1))
#define __syncthreads_count(pred) ::aug_emu::barrier(__FILE__, __LINE__, ::aug_emu::BAR_COUNT, (pred) != 0)
#define __syncthreads_and(pred) ::aug_emu::barrier(__FILE__, __LINE__, ::aug_emu::BAR_AND, (pred) != 0)
#define __syncthreads_or(pred) ::aug_emu::barrier(__FILE__, __LINE__, ::aug_emu::BAR_OR, (pred) != 0)

/* ---- warp operations ----------------------------------------------------------------
 * Every lane named in the mask must reach a matching operation (same kind, same
 * mask, same call site except for __syncwarp, which sm_70+ allows at different
 * sites); the calling lane must be in its own mask; a shuffle may read only lanes
 * in the mask. Values travel as 64-bit words: 64-bit shuffles behave as the
 * hardware's pair of 32-bit shuffles with the same source lane. */
namespace aug_emu {
template <class T>
inline T shfl(const char *file, int line, int op, unsigned mask, T var, int b, int width) {
    static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 8,
                  "warp shuffles move types of at most 8 bytes");
    unsigned long long bits = 0;
    std::memcpy(&bits, &var, sizeof(T));
    bits = warp_op(file, line, op, mask, bits, b, width);
    T out;
    std::memcpy(&out, &bits, sizeof(T));
    return out;
}
template <class T>
inline T shfl_idx(const char *f, int l, unsigned mask, T var, int src, int width = 32) {
    return shfl(f, l, WOP_SHFL_IDX, mask, var, src, width);
}
template <class T>
inline T shfl_up(const char *f, int l, unsigned mask, T var, unsigned delta, int width = 32) {
    return shfl(f, l, WOP_SHFL_UP, mask, var, (int)delta, width);
}
template <class T>
inline T shfl_down(const char *f, int l, unsigned mask, T var, unsigned delta, int width = 32) {
    return shfl(f, l, WOP_SHFL_DOWN, mask, var, (int)delta, width);
}
template <class T>
inline T shfl_xor(const char *f, int l, unsigned mask, T var, int lane_mask, int width = 32) {
    return shfl(f, l, WOP_SHFL_XOR, mask, var, lane_mask, width);
}
} /* namespace aug_emu */

#define __shfl_sync(...) ::aug_emu::shfl_idx(__FILE__, __LINE__, __VA_ARGS__)
#define __shfl_up_sync(...) ::aug_emu::shfl_up(__FILE__, __LINE__, __VA_ARGS__)
#define __shfl_down_sync(...) ::aug_emu::shfl_down(__FILE__, __LINE__, __VA_ARGS__)
#define __shfl_xor_sync(...) ::aug_emu::shfl_xor(__FILE__, __LINE__, __VA_ARGS__)
#define __ballot_sync(mask, pred) \
    ((unsigned)::aug_emu::warp_op(__FILE__, __LINE__, ::aug_emu::WOP_BALLOT, (mask), (pred) != 0, 0, 32))
#define __any_sync(mask, pred) \
    ((int)::aug_emu::warp_op(__FILE__, __LINE__, ::aug_emu::WOP_ANY, (mask), (pred) != 0, 0, 32))
#define __all_sync(mask, pred) \
    ((int)::aug_emu::warp_op(__FILE__, __LINE__, ::aug_emu::WOP_ALL, (mask), (pred) != 0, 0, 32))
#define __syncwarp(...) \
    ((void)::aug_emu::warp_op(__FILE__, __LINE__, ::aug_emu::WOP_SYNCWARP, ::aug_emu::syncwarp_mask(__VA_ARGS__), 0, 0, 32))
/* Not a synchronising operation: the lanes of the warp that have not exited. */
#define __activemask() (::aug_emu::activemask())
#define __trap() ::aug_emu::trap(__FILE__, __LINE__, "__trap()")

namespace aug_emu {
inline unsigned syncwarp_mask() { return 0xffffffffu; }
inline unsigned syncwarp_mask(unsigned m) { return m; }
} /* namespace aug_emu */

/* ---- memory fences, read-only loads ----------------------------------------------
 * Blocks run one at a time on their stream's host thread, but streams run
 * concurrently, so fences and atomics are real ones. */
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
template <class T>
inline T __ldg(const T *p) { return *p; }

/* ---- atomics (relaxed, like CUDA's atomicXxx) --------------------------------------- */
#define AUG_EMU_ATOMIC_RMW(name, builtin, T) \
    inline T name(T *addr, T v) { return builtin(addr, v, __ATOMIC_RELAXED); }
#define AUG_EMU_ATOMIC_INT_TYPES(name, builtin)   \
    AUG_EMU_ATOMIC_RMW(name, builtin, int)          \
    AUG_EMU_ATOMIC_RMW(name, builtin, unsigned)     \
    AUG_EMU_ATOMIC_RMW(name, builtin, unsigned long long)
AUG_EMU_ATOMIC_INT_TYPES(atomicAdd, __atomic_fetch_add)
AUG_EMU_ATOMIC_RMW(atomicSub, __atomic_fetch_sub, int)
AUG_EMU_ATOMIC_RMW(atomicSub, __atomic_fetch_sub, unsigned)
AUG_EMU_ATOMIC_INT_TYPES(atomicOr, __atomic_fetch_or)
AUG_EMU_ATOMIC_INT_TYPES(atomicAnd, __atomic_fetch_and)
AUG_EMU_ATOMIC_INT_TYPES(atomicXor, __atomic_fetch_xor)
AUG_EMU_ATOMIC_INT_TYPES(atomicExch, __atomic_exchange_n)
#undef AUG_EMU_ATOMIC_INT_TYPES
#undef AUG_EMU_ATOMIC_RMW

namespace aug_emu {
/* Read-modify-write through compare-and-swap on the object's bits. */
template <class T, class F>
inline T atomic_update(T *addr, F f) {
    T old = __atomic_load_n(addr, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(addr, &old, f(old), true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    return old;
}
template <class T, class U, class F>
inline T atomic_update_bits(T *addr, F f) {
    static_assert(sizeof(T) == sizeof(U), "bit type");
    U *p = reinterpret_cast<U *>(addr);
    U old = __atomic_load_n(p, __ATOMIC_RELAXED);
    for (;;) {
        T v;
        std::memcpy(&v, &old, sizeof v);
        T nv = f(v);
        U nb;
        std::memcpy(&nb, &nv, sizeof nb);
        if (__atomic_compare_exchange_n(p, &old, nb, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return v;
    }
}
} /* namespace aug_emu */

inline float atomicAdd(float *a, float v) {
    return aug_emu::atomic_update_bits<float, uint32_t>(a, [v](float o) { return o + v; });
}
inline double atomicAdd(double *a, double v) {
    return aug_emu::atomic_update_bits<double, uint64_t>(a, [v](double o) { return o + v; });
}
inline float atomicExch(float *a, float v) {
    return aug_emu::atomic_update_bits<float, uint32_t>(a, [v](float) { return v; });
}
#define AUG_EMU_ATOMIC_MINMAX(T)                                                              \
    inline T atomicMin(T *a, T v) { return aug_emu::atomic_update(a, [v](T o) { return v < o ? v : o; }); } \
    inline T atomicMax(T *a, T v) { return aug_emu::atomic_update(a, [v](T o) { return v > o ? v : o; }); }
AUG_EMU_ATOMIC_MINMAX(int)
AUG_EMU_ATOMIC_MINMAX(unsigned)
AUG_EMU_ATOMIC_MINMAX(long long)
AUG_EMU_ATOMIC_MINMAX(unsigned long long)
#undef AUG_EMU_ATOMIC_MINMAX
/* ((old >= v) ? 0 : old + 1) and (((old == 0) || (old > v)) ? v : old - 1), as in CUDA. */
inline unsigned atomicInc(unsigned *a, unsigned v) {
    return aug_emu::atomic_update(a, [v](unsigned o) { return o >= v ? 0u : o + 1u; });
}
inline unsigned atomicDec(unsigned *a, unsigned v) {
    return aug_emu::atomic_update(a, [v](unsigned o) { return (o == 0u || o > v) ? v : o - 1u; });
}
#define AUG_EMU_ATOMIC_CAS(T)                                                                   \
    inline T atomicCAS(T *a, T compare, T v) {                                                  \
        __atomic_compare_exchange_n(a, &compare, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED); \
        return compare;                                                                         \
    }
AUG_EMU_ATOMIC_CAS(int)
AUG_EMU_ATOMIC_CAS(unsigned)
AUG_EMU_ATOMIC_CAS(unsigned long long)
AUG_EMU_ATOMIC_CAS(unsigned short)
#undef AUG_EMU_ATOMIC_CAS

#include "emu_intrinsics.h"
#include "emu_mem.h"

/* ---- C++ API overloads that cuda_runtime.h defines only under nvcc ----------------- */
template <class T>
static inline cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, T *entry) {
    return ::cudaFuncGetAttributes(attr, (const void *)entry);
}
template <class T>
static inline cudaError_t cudaFuncSetAttribute(T *func, enum cudaFuncAttribute attr, int value) {
    return ::cudaFuncSetAttribute((const void *)func, attr, value);
}

/* ---- libraries opened at run time (cuda/dynlib.cu) ------------------------------- */
namespace aug_emu {
/* dlopen(path, RTLD_NOW | RTLD_LOCAL), except that a path whose file name is
 * libcublas.so.13 opens the emulator's cuBLAS stand-in (emu_cublas.cpp), or fails
 * like a missing file when AUG_EMU_NO_CUBLAS=1, and one whose file name is
 * libnvjpeg.so.13 opens the nvJPEG stand-in (emu_nvjpeg.cpp) with AUG_EMU_NVJPEG=1,
 * else fails like a missing file (never a real nvJPEG). */
void *lib_open(const char *path);
/* dlsym, resolving the stand-ins' names (cublasCreate_v2, nvjpegCreateEx, ...) to them. */
void *lib_sym(void *lib, const char *name);
/* dlerror, or why lib_open refused the stand-in. */
const char *lib_error();
} /* namespace aug_emu */

/* ---- emulation-only controls (not CUDA; guard uses with #if AUG_CUDA_EMU) -------- */
extern "C" {
/* Thread order between barriers: "forward", "reverse" or "shuffle" (also the block
 * order). Returns 0, or -1 for an unknown name. Initially from AUG_EMU_ORDER.
 * Exported (the rest of the emulation is hidden), so dlsym finds them in a module. */
__attribute__((visibility("default"))) int aug_emu_set_order(const char *order);
/* The order in effect: "forward", "reverse" or "shuffle". */
__attribute__((visibility("default"))) const char *aug_emu_get_order(void);
}

#endif /* AUG_CUDA_EMU_H */
