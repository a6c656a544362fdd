/* cuda/compat.h: the only CUDA include of the CUDA backend's .cu files (private).
 *
 * nvcc: the real <cuda_runtime.h> and <cublas_v2.h>, and the macros below expand
 * to plain CUDA. The emulation build (AUG_CUDA_EMU, g++ compiling the same .cu
 * files as C++; see tests/cuda_emu and docs/cuda.md): the host emulation
 * of the CUDA execution model, with the same macros.
 *
 *   AUG_GLOBAL                 __global__ __launch_bounds__(AUG_BLOCK_THREADS, 1): a kernel.
 *                              The launch settings reach every kernel with any block
 *                              size the API accepts (up to 1024 threads), so ptxas must
 *                              keep each within 64 registers per thread (65536 per block
 *                              / 1024), or a large block fails with
 *                              cudaErrorLaunchOutOfResources
 *   AUG_GLOBAL_BOUNDED(n)      __global__ __launch_bounds__(n, 1): a kernel that needs more
 *                              registers than that (at most 65536 / n); its launcher caps
 *                              the block at n threads (aug__cuda_bounded, cuda/cuda.h).
 *                              Both ask for one resident block only: with the bare
 *                              __launch_bounds__(512) ptxas aimed at two and spilled
 *                              k_red_block at 64 registers (96 without spills here).
 *                              scripts/check_fatbin.py checks registers x threads.
 *   AUG_DEV                    __device__ __forceinline__ (a device helper)
 *   AUG_LAUNCH(k, grid, block, shmem_bytes, stream, args...)
 *                              launch kernel k (a template instantiation goes in
 *                              parentheses: AUG_LAUNCH((k_add<float>), ...)). It
 *                              returns nothing: errors surface through
 *                              cudaGetLastError()/cudaPeekAtLastError(), so check
 *                              after every launch, as with <<<>>>.
 *   AUG_LAUNCH_NAMED(k, name, grid, block, shmem_bytes, stream, args...)
 *                              the same for a kernel chosen at run time (a pointer
 *                              k): name is its kernel's name, which the emulation
 *                              looks its registers up by (tests/cuda_emu)
 *   AUG_SHARED(T, name, count) inside a kernel or device function: a block-shared
 *                              array of count (a compile-time constant) T, used as
 *                              `T *name` / name[i]. At most 48 KiB per array.
 *   AUG_SHARED_DYN(T, name)    `T *name` pointing at the launch's dynamic shared
 *                              memory (the shmem_bytes of AUG_LAUNCH; 16-byte aligned).
 *   AUG_UNROLL                 before a loop with a constant trip count: unroll it.
 *   AUG_NO_UNROLL              before a loop to keep as a loop (a large body).
 *   AUG_CHECK_ALIGNED(p, T)    before a typed global access of T at p: the emulation
 *                              faults (cudaErrorMisalignedAddress) on a misaligned p.
 *   AUG_CHECK_LOAD(p, T), AUG_CHECK_STORE(p, T)
 *                              AUG_CHECK_ALIGNED, and the access recorded for the
 *                              emulation's memory-efficiency counter (scalar/hd.h
 *                              AUG__MEM_LOAD); nvcc: nothing.
 *   AUG_LD(p), AUG_ST(p, v)    *(p) and *(p) = (v), a global load or store (p a typed
 *                              pointer) recorded for the same counter; nvcc: just those.
 *
 * Raw __shared__ does not compile in the emulation build: use the macros. */
#ifndef AUG_CUDA_COMPAT_H
#define AUG_CUDA_COMPAT_H

#if defined(AUG_CUDA_EMU)
#include "cuda_emu.h" /* tests/cuda_emu is on the include path of the emulation build */
#else
#include <cuda_runtime.h>
#include <cublas_v2.h>
#endif

/* The most threads per block the API accepts on every target (sm_75..sm_100). */
#define AUG_BLOCK_THREADS 1024
#define AUG_GLOBAL __global__ __launch_bounds__(AUG_BLOCK_THREADS, 1)
#define AUG_GLOBAL_BOUNDED(n) __global__ __launch_bounds__(n, 1)
#define AUG_DEV __device__ __forceinline__

/* Unroll the next loop fully (its trip count is a constant), so arrays it indexes
 * stay in registers; or not at all. */
#if defined(AUG_CUDA_EMU)
#define AUG_UNROLL _Pragma("GCC unroll 16")
#define AUG_NO_UNROLL _Pragma("GCC unroll 1")
#else
#define AUG_UNROLL _Pragma("unroll")
#define AUG_NO_UNROLL _Pragma("unroll 1")
#endif

/* AUG_CHECK_ALIGNED(p, T): before a typed global access of T at p (the kernels'
 * load and store helpers over tensor memory, which may be imported at any
 * address). The emulation fails the block with a sticky cudaErrorMisalignedAddress
 * when p is not aligned for T, as a GPU's load or store does; nvcc: nothing. */
#if defined(AUG_CUDA_EMU)
#define AUG_CHECK_ALIGNED(p, T)                                                              \
    (((uintptr_t)(const void *)(p) % alignof(T)) ? ::aug_emu::misaligned(__FILE__, __LINE__, \
                                                                         (const void *)(p), alignof(T)) \
                                                 : (void)0)
#else
#define AUG_CHECK_ALIGNED(p, T) ((void)0)
#endif

/* The kernels' typed global accesses: checked, and recorded by the emulation while
 * its memory counter is on (tests/cuda_emu/emu_mem.h); nothing under nvcc. */
#ifndef AUG__MEM_LOAD
#define AUG__MEM_LOAD(p, n) ((void)0)
#define AUG__MEM_STORE(p, n) ((void)0)
#endif
#define AUG_CHECK_LOAD(p, T) (AUG_CHECK_ALIGNED(p, T), AUG__MEM_LOAD(p, sizeof(T)))
#define AUG_CHECK_STORE(p, T) (AUG_CHECK_ALIGNED(p, T), AUG__MEM_STORE(p, sizeof(T)))
#define AUG_LD(p) (AUG__MEM_LOAD((p), sizeof *(p)), *(p))
#define AUG_ST(p, v) (AUG__MEM_STORE((p), sizeof *(p)), *(p) = (v))

#if defined(AUG_CUDA_EMU)

#define AUG_LAUNCH(kernel, grid, block, shmem_bytes, stream, ...) \
    ::aug_emu::launch((kernel), #kernel, (grid), (block), (shmem_bytes), (stream), ##__VA_ARGS__)
#define AUG_LAUNCH_NAMED(kernel, name, grid, block, shmem_bytes, stream, ...) \
    ::aug_emu::launch((kernel), (name), (grid), (block), (shmem_bytes), (stream), ##__VA_ARGS__)

/* A function-local static names the declaration site: every thread of a block
 * calling it gets the same block-shared buffer (filled with 0xFF before each block). */
#define AUG_SHARED(T, name, count)                                                                   \
    static_assert((count) > 0 && sizeof(T) * (count) <= 48u * 1024u,                                 \
                  "AUG_SHARED: count must be a positive constant and the array at most 48 KiB");    \
    static_assert(std::is_trivially_default_constructible<T>::value,                               \
                  "AUG_SHARED: shared arrays hold trivially constructible types");                 \
    static const ::aug_emu::SharedSite name##_aug_site = {sizeof(T) * (count), alignof(T), #name, __FILE__, \
                                                          __LINE__};                                 \
    T *const name = static_cast<T *>(::aug_emu::shared_static(&name##_aug_site))

#define AUG_SHARED_DYN(T, name) T *const name = static_cast<T *>(::aug_emu::shared_dynamic())

#else /* nvcc */

#define AUG_LAUNCH(kernel, grid, block, shmem_bytes, stream, ...) \
    kernel<<<(grid), (block), (shmem_bytes), (stream)>>>(__VA_ARGS__)
#define AUG_LAUNCH_NAMED(kernel, name, grid, block, shmem_bytes, stream, ...) \
    ((void)(name), kernel<<<(grid), (block), (shmem_bytes), (stream)>>>(__VA_ARGS__))

#define AUG_SHARED(T, name, count)                                                                   \
    static_assert((count) > 0 && sizeof(T) * (count) <= 48u * 1024u,                                 \
                  "AUG_SHARED: count must be a positive constant and the array at most 48 KiB");    \
    __shared__ T name##_aug_storage[(count)];                                                        \
    T *const name = name##_aug_storage

/* One extern array for every use (same name and type everywhere, so declarations in
 * different kernels of a file agree), 16-byte aligned. */
#define AUG_SHARED_DYN(T, name)                                       \
    extern __shared__ __align__(16) unsigned char aug_dyn_smem_[];    \
    T *const name = reinterpret_cast<T *>(aug_dyn_smem_)

#endif

#endif /* AUG_CUDA_COMPAT_H */
