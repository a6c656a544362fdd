/* aug/common.h: status codes, the thread-local error message, export macros.
 *
 * Every fallible aug call returns aug_status (AUG_OK == 0) or NULL and leaves a
 * message of the form "aug_add: cannot broadcast shapes (2, 3) and (4,)" in
 * aug_last_error(). The library never aborts, exits or prints on a caller's mistake. */
#ifndef AUG_COMMON_H
#define AUG_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define AUG_API __declspec(dllexport)
#else
#define AUG_API __attribute__((visibility("default")))
#endif

/* Maximum number of tensor dimensions (semantics §3). */
#define AUG_MAX_DIMS 8

typedef enum aug_status {
    AUG_OK = 0,
    AUG_ERR_VALUE = 1,   /* bad argument value (Python ValueError) */
    AUG_ERR_TYPE = 2,    /* bad dtype / argument type (TypeError) */
    AUG_ERR_INDEX = 3,   /* index out of range (IndexError) */
    AUG_ERR_MEMORY = 4,  /* allocation failed (augpy.MemoryError) */
    AUG_ERR_OVERFLOW = 5,/* size arithmetic overflowed (OverflowError / ValueError) */
    AUG_ERR_CUDA = 6,    /* CUDA runtime (CudaError) */
    AUG_ERR_CURAND = 7,  /* cuRAND (CuRandError) */
    AUG_ERR_CUBLAS = 8,  /* cuBLAS / BLAS (CuBlasError) */
    AUG_ERR_JPEG = 9,    /* JPEG decoding (NvJpegError) */
    AUG_ERR_RUNTIME = 10,/* anything else (RuntimeError) */
    AUG_ERR_INTERRUPTED = 11 /* the thread's interrupt check asked to stop (KeyboardInterrupt) */
} aug_status;

/* The message of the last failed call on this thread ("" if none). Borrowed;
 * valid until the next failing aug call on the same thread. */
AUG_API const char *aug_last_error(void);

/* The two parts of that message: the function ("aug_add") and the detail after
 * "func: " ("cannot broadcast ..."). Borrowed, valid as aug_last_error(). */
AUG_API const char *aug_last_error_function(void);
AUG_API const char *aug_last_error_detail(void);

/* The status of the last failed call on this thread (AUG_OK if none). */
AUG_API aug_status aug_last_status(void);

/* Clears the thread's error. */
AUG_API void aug_clear_error(void);

/* Number of worker threads used by the CPU backend (AUG_NUM_THREADS or the
 * number of available cores). aug_set_num_threads(n) changes it; n <= 0 restores
 * the default. Results never depend on it. */
AUG_API int aug_get_num_threads(void);
AUG_API aug_status aug_set_num_threads(int n);

/* A cap for the calling thread: its own calls use at most n of the workers above
 * (n = 1: they run on the calling thread alone); n <= 0 removes the cap (the
 * default, also of every new thread). For threads that already work in parallel
 * with each other, one image each, whose calls would otherwise wake the pool's
 * workers onto cores those threads occupy. aug_get_thread_num_threads returns the
 * cap (0: none). Results never depend on it. */
AUG_API int aug_get_thread_num_threads(void);
AUG_API aug_status aug_set_thread_num_threads(int n);

/* Interrupting long calls (Ctrl-C). A check installed on a thread is polled by the
 * CPU backend's calls made from that thread, between tasks (image rows, chunks of
 * elements), about every 10 ms: elementwise ops, copies, reductions, random fills,
 * warps, lighting and blurs. When it returns nonzero the call hands out no more
 * tasks, waits for the tasks already running (each one short), and returns
 * AUG_ERR_INTERRUPTED; the output then holds partial results (some elements
 * written, others not). The check runs on the calling thread; NULL removes it.
 * aug_get_interrupt_check returns the thread's current one (to restore it).
 * Decodes on the CPU poll it too and return AUG_ERR_INTERRUPTED with nothing
 * returned: PNG files between rows, JPEG files that decode through libjpeg's API
 * (progressive, region or scaled decodes, images over 2^22 pixels) per row of
 * blocks. Not polled: gemm (BLAS), a whole baseline JPEG of at most 2^22 pixels
 * (TurboJPEG), work queued on a CUDA device. */
typedef int (*aug_interrupt_check)(void *ctx);
AUG_API void aug_set_interrupt_check(aug_interrupt_check check, void *ctx);
AUG_API void aug_get_interrupt_check(aug_interrupt_check *check, void **ctx);

/* Library version string, e.g. "0.1.0". */
AUG_API const char *aug_version(void);

#ifdef __cplusplus
}
#endif
#endif
