/* cuda/cuda.h: what the files of the CUDA backend module share (private).
 *
 * The module (libaug_cuda.so, or libaug_cuda_emu.so from the same sources) is
 * loaded by core/cuda_module.c and talks to libaug only through the host API it
 * receives (core/backend.h): errors go through aug__error, defined here over
 * host->verror. Every CUDA runtime call goes through AUG_CUDA (records file,
 * line and cudaGetErrorString, returns AUG_ERR_CUDA), every launch through
 * AUG_LAUNCH (cuda/compat.h) followed by aug__cuda_launched. */
#ifndef AUG_CUDA_CUDA_H
#define AUG_CUDA_CUDA_H

#include "cuda/compat.h"
#include "core/backend.h"

extern const aug__host_api *aug__cuda_host;

/* Records the failure of `call` (a cudaError_t) for func: "func: CUDA error
 * cudaErrorX (text) in what (file:line)". Returns AUG_ERR_CUDA, or
 * AUG_ERR_MEMORY for cudaErrorMemoryAllocation. */
aug_status aug__cuda_fail(const char *func, cudaError_t err, const char *what, const char *file, int line);

/* 1 for the errors after which the context is unusable: a kernel faulted
 * (cudaErrorIllegalAddress, cudaErrorMisalignedAddress, cudaErrorLaunchFailure,
 * ...), and every later CUDA call of the process returns the same error
 * (driver_types.h: "the process must be terminated and relaunched"). */
int aug__cuda_sticky(cudaError_t err);
/* Records a sticky error seen by `what` for func, by name, as a broken context:
 * "func: the CUDA context of cuda:N is broken (cudaErrorX: text, seen by what):
 * ... restart the process". Returns AUG_ERR_CUDA. */
aug_status aug__cuda_broken(const char *func, cudaError_t err, const char *what);

/* What an error of cudaErrorInitializationError adds: the usual cause is a
 * process forked after its parent started CUDA. */
#define AUG__CUDA_FORK_HINT                                                                                     \
    "; a process forked after CUDA started in its parent cannot use CUDA: start worker processes with the "    \
    "'spawn' method (multiprocessing.get_context('spawn'), torch.multiprocessing, "                            \
    "DataLoader(multiprocessing_context='spawn'))"

/* NULL when libaug's host API fits this module (ABI, op list, dtypes), else why
 * not (cuda/probe.cu). */
const char *aug__cuda_host_check(const aug__host_api *host);

/* Evaluates a CUDA runtime call; on failure records it and returns from the
 * calling function with the status. */
#define AUG_CUDA(func, call)                                                               \
    do {                                                                                   \
        cudaError_t aug_cuda_err_ = (call);                                                \
        if (aug_cuda_err_ != cudaSuccess)                                                  \
            return aug__cuda_fail((func), aug_cuda_err_, #call, __FILE__, __LINE__);       \
    } while (0)

/* After every AUG_LAUNCH: the launch's configuration error, if any
 * (cudaGetLastError), as "func: the GPU refused the launch of <kernel> with
 * <blocks> blocks of <threads> threads: <reason>". */
aug_status aug__cuda_launched(const char *func, const char *kernel, unsigned blocks, unsigned threads);

/* Makes dev the calling thread's CUDA device. */
aug_status aug__cuda_use(const char *func, int device_id);

/* What launches need to know of a device (cached at module start). */
typedef struct aug__cuda_dev {
    int sms;                  /* multiprocessors */
    int max_threads;          /* per block */
    int max_grid_x;
    int major, minor;
    size_t shared_per_block;
} aug__cuda_dev;
const aug__cuda_dev *aug__cuda_device(int device_id);

/* A launch shape for a grid-stride loop over n items: threads per block from
 * the plan's launch settings (0: `dflt`), blocks enough for n but at most
 * blocks_per_sm * SMs (0: 8 per SM). Out-of-range settings are passed on and
 * refused by the launch itself. */
typedef struct aug__cuda_grid {
    unsigned blocks, threads;
} aug__cuda_grid;
aug__cuda_grid aug__cuda_grid_for(const aug__exec *e, int64_t n, unsigned dflt);
/* The same with blocks at most what the SMs hold at once of `kernel` (a
 * __global__ function, launched with no dynamic shared memory):
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor x SMs, from its registers and
 * shared memory, unless the plan's launch settings give blocks_per_sm. A grid
 * of resident blocks only: no block waits for another to finish, and a
 * grid-stride loop covers the rest. */
aug__cuda_grid aug__cuda_grid_occ(const aug__exec *e, int64_t n, unsigned dflt, const void *kernel);

/* The threads per block of a kernel declared AUG_GLOBAL_BOUNDED(bound): a count the
 * API accepts (<= AUG_BLOCK_THREADS) but over the bound runs as `bound` threads
 * (no result depends on the block size: the kernels' orders come from the data);
 * more is passed on, for the launch to refuse. */
static inline unsigned aug__cuda_bounded(unsigned threads, unsigned bound) {
    return threads > bound && threads <= AUG_BLOCK_THREADS ? bound : threads;
}

/* The stream of a plan. */
static inline cudaStream_t aug__cuda_stream(const aug__exec *e) { return (cudaStream_t)e->stream_handle; }

/* Device memory from the module's stream-ordered pool (cuda/memory.cu), for
 * temporaries of one plan: usable by work queued on `stream` from now on;
 * freeing it with work still queued on `stream` is safe. */
void *aug__cuda_tmp_alloc(const char *func, int device_id, size_t nbytes, cudaStream_t stream);
void aug__cuda_tmp_free(int device_id, void *ptr, size_t nbytes, cudaStream_t stream);
/* Copies n bytes of host memory to dst in stream order through the current
 * device's page-locked staging ring (cuda/staging.cu), without waiting for the
 * stream: the caller may free or reuse the host buffer at once, and the call
 * returns while the stream is busy (it waits only when the ring is full of
 * queued copies, for the oldest). */
aug_status aug__cuda_upload(const char *func, void *dst, const void *src, size_t n, cudaStream_t stream);
/* The staging rings of ndevices devices, empty until their first upload (0 when out of memory). */
int aug__cuda_staging_init(int ndevices);
/* *dst = aug__cuda_tmp_alloc of n bytes holding a copy of host memory src
 * (uploaded as aug__cuda_upload does); on an error *dst is NULL. Free with
 * aug__cuda_tmp_free. */
aug_status aug__cuda_tmp_upload(const char *func, int device_id, const void *src, size_t n, cudaStream_t stream,
                                void **dst);

/* aug__cuda_<entry>(plan) of every family of the registry (core/backend.h),
 * each in its family's file. */
#define X_(F, entry, plan_t, what) aug_status aug__cuda_##entry(const plan_t *plan);
AUG__COMPUTE_FAMILIES(X_)
#undef X_
/* cuda/jpeg.cu (nvJPEG; in the emulated module only when built with nvjpeg.h,
 * AUG_EMU_NVJPEG: otherwise it decodes on the CPU) */
aug_status aug__cuda_jpeg_new(const char *func, int device_id, size_t device_padding, size_t host_padding,
                              int gpu_huffman, void **decoder);
void aug__cuda_jpeg_free(void *decoder);
const char *aug__cuda_jpeg_backend(void *decoder);
aug_status aug__cuda_jpeg_decode(const char *func, void *decoder, const void *data, size_t size,
                                 const aug__jpeg_header *h, uint8_t *dst, const aug__exec *exec);
aug_status aug__cuda_jpeg_decode_batch(const char *func, void *decoder, int n, const void *const *data,
                                       const size_t *size, const aug__jpeg_header *h, uint8_t *const *dst, int *done,
                                       const aug__exec *exec);
#if defined(AUG_CUDA_EMU) && !defined(AUG_EMU_NVJPEG)
#define AUG__CUDA_JPEG(entry) NULL
#else
#define AUG__CUDA_JPEG(entry) entry
#endif
int aug__cuda_supports(const aug__need *need);

/* cuda/dynlib.cu: a library opened at run time (never closed): soname (e.g.
 * "libcublas.so.13"), the environment variable that names its file instead
 * (env), the NVIDIA wheel's folder name (wheel: nvidia/<wheel>/lib) and the
 * folder the build found it in (build_dir, or NULL). NULL with why filled (the
 * first failure and where it looked) when nothing opens. */
void *aug__cuda_dlopen(const char *soname, const char *env, const char *wheel, const char *build_dir, char *why,
                       size_t why_size);
void *aug__cuda_dlsym(void *lib, const char *name);
/* Whether NVIDIA's driver library (libcuda.so.1) opens: the CUDA runtime reports
 * a machine without it as cudaErrorInsufficientDriver, as it does an old driver. */
int aug__cuda_driver_present(void);

/* cuda/memory.cu: the memory entries and module start/stop of the pool (which
 * starts the staging rings too). */
void *aug__cuda_alloc(int device_id, size_t nbytes, void *stream);
void aug__cuda_free(int device_id, void *ptr, size_t nbytes, void *stream);
aug_status aug__cuda_memcpy(void *dst, aug_device dst_dev, const void *src, aug_device src_dev, size_t n,
                            void *stream, int blocking);
aug_status aug__cuda_meminfo(int device_id, size_t *used, size_t *free_bytes, size_t *total);
aug_status aug__cuda_release(int device_id);
void *aug__cuda_host_alloc(size_t nbytes);
void aug__cuda_host_free(void *ptr);
/* aug__cuda_host_free once the work queued on stream (of device_id) so far has run: a
 * block nvJPEG frees with a copy still queued is not handed out before it. */
void aug__cuda_host_free_after(void *ptr, size_t nbytes, int device_id, cudaStream_t stream);
int aug__cuda_pool_init(int ndevices);

#endif
