/* aug/device.h: devices, streams, events, synchronisation, memory and launch
 * settings (semantics §4).
 *
 * Devices are `cpu` (always) and `cuda:N` (when the CUDA module is loaded and a
 * GPU, or the emulated one, is present). Work on a CUDA device is asynchronous:
 * every operation is queued on the calling thread's current stream of that
 * device, and a caller synchronises with aug_stream_synchronize,
 * aug_event_synchronize or aug_synchronize before reading results on the host
 * by other means than aug's own copies (which wait). The CPU backend runs work
 * as it is submitted: its streams and events exist and work, and are complete
 * as soon as a call returns, so code written for a GPU runs unchanged.
 *
 * Ownership: aug_stream_new / aug_event_new return new objects the caller frees;
 * aug_default_stream and aug_current_stream return borrowed streams (a default
 * stream lives as long as the process). */
#ifndef AUG_DEVICE_H
#define AUG_DEVICE_H

#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- devices ----------------------------------------------------------------- */

/* Number of devices of a type: 1 for AUG_DEVICE_CPU; for AUG_DEVICE_CUDA the
 * GPUs the CUDA module sees (0 without the module, a driver or a GPU). */
AUG_API int aug_device_count(aug_device_type type);

/* AUG_OK if dev exists; otherwise an error naming it ("device cuda:3 is not
 * available (2 CUDA devices)") with AUG_ERR_CUDA for CUDA devices, AUG_ERR_VALUE
 * else. */
AUG_API aug_status aug_device_check(aug_device dev);

/* Why CUDA is unavailable, or "" when it is: "no CUDA device (...)", "no CUDA
 * module (libaug_cuda.so was not found)", "CUDA disabled by AUG_CUDA_BACKEND=off",
 * the loader's message for a module that fails to load ... Borrowed, static. */
AUG_API const char *aug_cuda_status(void);

/* The cudaDeviceProp fields of augpy's CudaDeviceProp. For the CPU: the host's
 * model name, one "multiprocessor" per usable core with one "core" each, host
 * memory as global memory, warp size 1, CUDA's grid limits, 0 elsewhere. */
typedef struct aug_device_props {
    char name[256];
    int major, minor;                  /* compute capability (0.0 for the CPU) */
    int multiProcessorCount;
    int coresPerMultiprocessor;        /* CUDA cores per SM, from the compute capability */
    int numCudaCores;                  /* multiProcessorCount * coresPerMultiprocessor */
    size_t totalGlobalMem;
    size_t totalConstMem;
    size_t sharedMemPerBlock;
    size_t sharedMemPerMultiprocessor;
    int regsPerBlock;
    int regsPerMultiprocessor;
    int warpSize;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    int maxThreadsPerMultiProcessor;
    int l2CacheSize;
    int streamPrioritiesSupported;
    int leastStreamPriority;           /* numerically largest priority (lowest urgency) */
    int greatestStreamPriority;        /* numerically smallest (most urgent) */
} aug_device_props;

AUG_API aug_status aug_device_properties(aug_device dev, aug_device_props *out);

/* The calling thread's current device (initially aug_default_device()), and
 * setting it (the device must exist). */
AUG_API aug_device aug_current_device(void);
AUG_API aug_status aug_set_current_device(aug_device dev);

/* ---- streams and events ------------------------------------------------------ */

typedef struct aug_stream aug_stream;
typedef struct aug_event aug_event;

/* A new stream on dev with a priority within the device's range (lower numbers
 * are more urgent; 0 is the default; the CPU accepts only 0). New. */
AUG_API aug_stream *aug_stream_new(aug_device dev, int priority);
AUG_API void aug_stream_free(aug_stream *s); /* NULL is fine; waits for its work first */

/* The device's default stream (borrowed, never freed). */
AUG_API aug_stream *aug_default_stream(aug_device dev);
/* The calling thread's current stream of dev (its default stream unless set),
 * and setting it for the stream's device. Borrowed: the caller keeps a stream
 * it makes current alive while it is current. */
AUG_API aug_stream *aug_current_stream(aug_device dev);
AUG_API aug_status aug_set_current_stream(aug_stream *s);

AUG_API aug_device aug_stream_device(const aug_stream *s);
AUG_API int aug_stream_priority(const aug_stream *s);
/* The backend's handle (a cudaStream_t on CUDA, NULL on the CPU), for interop. */
AUG_API void *aug_stream_handle(const aug_stream *s);

/* Blocks until all work queued on s has finished. */
AUG_API aug_status aug_stream_synchronize(aug_stream *s);
/* 1 if all work queued on s has finished, 0 if not; -1 with an error set. */
AUG_API int aug_stream_query(aug_stream *s);
/* Work queued on s after this call waits until e's last recorded point is reached;
 * e may be of another device of s's type (cuda:1's stream waiting for cuda:0). */
AUG_API aug_status aug_stream_wait_event(aug_stream *s, aug_event *e);

/* A new event on dev (timing enabled). New; free with aug_event_free. */
AUG_API aug_event *aug_event_new(aug_device dev);
AUG_API void aug_event_free(aug_event *e); /* NULL is fine */
/* Records the point reached by s (NULL: the current stream of e's device). */
AUG_API aug_status aug_event_record(aug_event *e, aug_stream *s);
/* 1 if the recorded point was reached (or nothing was recorded), 0 if not; -1 on error. */
AUG_API int aug_event_query(aug_event *e);
AUG_API aug_status aug_event_synchronize(aug_event *e);
/* Milliseconds between two recorded events of one device. */
AUG_API aug_status aug_event_elapsed_ms(aug_event *start, aug_event *end, float *ms);

/* Blocks until all work on dev has finished. */
AUG_API aug_status aug_synchronize(aug_device dev);

/* ---- memory ------------------------------------------------------------------------ */

/* Memory of dev in bytes: used, free and total. CUDA: used is the device's
 * total minus its free memory (aug's tensors, the memory cached for reuse, and
 * every other user of the GPU). CPU: host memory, free is MemAvailable and used
 * total minus that. */
AUG_API aug_status aug_device_meminfo(aug_device dev, size_t *used, size_t *free, size_t *total);
/* Returns the device memory cached for reuse to the device (CUDA; AUG_OK and
 * nothing to do on the CPU). */
AUG_API aug_status aug_device_release(aug_device dev);

/* Host memory for asynchronous copies from and to dev: page-locked on a CUDA
 * device (plain aligned memory for the CPU). NULL with an error when out of
 * memory. Free with aug_host_free(dev, ptr). On a CUDA device the blocks come
 * from a cache (no device synchronisation): a freed block is handed out again
 * only after the copies queued into or out of it through this library
 * (aug_tensor_read / aug_tensor_write and the other copies) have run; a copy
 * queued by other means (cudaMemcpyAsync of your own) must have finished before
 * aug_host_free. */
AUG_API void *aug_host_alloc(aug_device dev, size_t nbytes);
AUG_API void aug_host_free(aug_device dev, void *ptr); /* NULL is fine */

/* Makes work queued on a foreign stream of dev (a raw cudaStream_t handle, as
 * DLPack's __dlpack__(stream=...) passes: 1 is the legacy default stream, 2 the
 * per-thread one) wait for the work queued so far on dev's current stream.
 * A no-op on the CPU. */
AUG_API aug_status aug_stream_sync_handle(aug_device dev, void *handle);

/* ---- launch settings ----------------------------------------------------------------- */

/* The calling thread's launch settings for the CUDA kernels it starts:
 * blocks_per_sm (blocks per multiprocessor) and threads (per block); 0 means
 * automatic, valid on every GPU. The CPU backend ignores them. Negative values
 * are AUG_ERR_VALUE; values a GPU refuses (threads > 1024) fail at launch with
 * AUG_ERR_CUDA. augpy sets them around each call from its keyword arguments. */
AUG_API aug_status aug_set_launch(int blocks_per_sm, int threads);
AUG_API void aug_get_launch(int *blocks_per_sm, int *threads);

#ifdef __cplusplus
}
#endif
#endif
