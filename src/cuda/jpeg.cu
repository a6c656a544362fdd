/* cuda/jpeg.cu: JPEG decoding with nvJPEG (semantics §13 "Decoder"), the CUDA
 * backend's jpeg_* entries (core/backend.h; the front, header reading and the
 * CPU-decode-and-upload fallback are core/jpeg.c's).
 *
 * libnvjpeg.so.13 is loaded on first use (cuda/dynlib.cu: AUG_NVJPEG_LIBRARY,
 * the dynamic linker's path, the NVIDIA wheels' folders, the nvidia-nvjpeg
 * wheel's directory the build found, AUG_NVJPEG_LIBDIR); without it a CUDA
 * decoder uses the fallback. A decoder holds one nvJPEG handle with nvJPEG's
 * decoupled API: the hybrid decoder (Huffman on the CPU) and, with gpu_huffman,
 * the GPU_HYBRID one (Huffman on the GPU) for the files it supports. Output:
 * interleaved RGB straight into the destination, queued on the plan's stream.
 *
 * The host phase of an image writes a pinned buffer that its queued transfer
 * reads later, so images take two slots in turn, each with its own pinned and
 * device buffer (device_padding / host_padding are their growth paddings), jpeg
 * stream and decoder states, and an event recorded after its queued work: a
 * slot is reused only once that event has completed (the image before last).
 *
 * Backend (chosen per decoder at creation, aug__cuda_jpeg_backend reports it):
 * where nvjpegCreateExV2(NVJPEG_BACKEND_HARDWARE) succeeds (A100/H100/H200:
 * the JPEG decode engines), the files the hardware takes
 * (nvjpegDecodeBatchedSupported: baseline, one scan) are decoded with the
 * batched API on a second handle, one batched state per slot; the rest, and
 * everything on a device without the engines (ARCH_MISMATCH or any failure
 * while setting the hardware up, whose reason the report names), take the
 * decoupled path above. The hardware path is proven only on the emulator's
 * stand-in (tests/cuda_emu/emu_nvjpeg.cpp, AUG_EMU_NVJPEG_HW).
 *
 * Batches (aug__cuda_jpeg_decode_batch, the core's aug_decoder_decode_batch):
 * the files of a batch that the engines take go into ONE nvjpegDecodeBatched
 * call on the next slot's batched state, initialised for that many images
 * (nvjpegDecodeBatchedInitialize again only when the count changes: a state
 * decodes exactly the batch size it was initialised with, RGBI); a single
 * image re-initialises its slot for one. The rest, and every file of a batched
 * call that fails (nvJPEG does not say which file failed), are left to the
 * single-image path, so each file gets its own result or error.
 *
 * Host waits: a slot's event is queried before it is waited for, so a free
 * slot costs no cudaEventSynchronize.
 *
 * Memory: both handles and every buffer allocate through the v2 allocators
 * below, i.e. augpy's stream-ordered device pool (cuda/memory.cu) and its
 * page-locked cache, so a buffer that grows mid-batch never reaches cudaFree or
 * cudaFreeHost (which would wait for the whole device).
 *
 * Files nvJPEG does not take (CMYK/YCCK, sampling it lacks, anything it
 * answers JPEG_NOT_SUPPORTED) go back to the core as AUG__JPEG_REFUSED and are
 * decoded on the CPU. A bad or truncated file is AUG_ERR_JPEG naming nvJPEG's
 * status. The emulated module compiles this file when the build found nvjpeg.h
 * (AUG_EMU_NVJPEG) and then opens the emulator's stand-in nvJPEG
 * (tests/cuda_emu/emu_nvjpeg.cpp) when AUG_EMU_NVJPEG=1 is set; otherwise it
 * has no jpeg entries or no nvJPEG, and every image takes the fallback. */
#if !defined(AUG_CUDA_EMU) || defined(AUG_EMU_NVJPEG)
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cuda/cuda.h"
#include "cuda/nvjpeg_api.h"

/* ---- loading ------------------------------------------------------------------------ */

static struct {
#define AUG__NVJPEG_PTR(name, params) nvjpegStatus_t(*name) params;
    AUG__NVJPEG_API(AUG__NVJPEG_PTR)
#undef AUG__NVJPEG_PTR
} api;
static pthread_once_t nv_once = PTHREAD_ONCE_INIT;
static char nv_error[512]; /* empty: loaded */

static void nv_load(void) {
#ifdef AUG_NVJPEG_LIBDIR
    const char *build_dir = AUG_NVJPEG_LIBDIR;
#else
    const char *build_dir = NULL;
#endif
    char why[384];
#ifdef AUG_CUDA_EMU
    const char *env = NULL; /* the emulator answers libnvjpeg.so.13 itself: never a real one */
#else
    const char *env = "AUG_NVJPEG_LIBRARY";
#endif
    void *so = aug__cuda_dlopen("libnvjpeg.so.13", env, "nvjpeg", build_dir, why, sizeof why);
    if (!so) {
        snprintf(nv_error, sizeof nv_error, "nvJPEG is not available (%s; set AUG_NVJPEG_LIBRARY to libnvjpeg.so.13)",
                 why);
        return;
    }
#define AUG__NVJPEG_SYM(name, params)                                                                   \
    if (!(*(void **)&api.name = aug__cuda_dlsym(so, #name))) {                                          \
        snprintf(nv_error, sizeof nv_error, "nvJPEG lacks %s (a libnvjpeg older than 13.0?)", #name);   \
        return;                                                                                         \
    }
    AUG__NVJPEG_API(AUG__NVJPEG_SYM)
#undef AUG__NVJPEG_SYM
}

static const char *status_name(nvjpegStatus_t s) {
    switch (s) {
    case NVJPEG_STATUS_SUCCESS: return "NVJPEG_STATUS_SUCCESS";
    case NVJPEG_STATUS_NOT_INITIALIZED: return "NVJPEG_STATUS_NOT_INITIALIZED";
    case NVJPEG_STATUS_INVALID_PARAMETER: return "NVJPEG_STATUS_INVALID_PARAMETER";
    case NVJPEG_STATUS_BAD_JPEG: return "NVJPEG_STATUS_BAD_JPEG";
    case NVJPEG_STATUS_JPEG_NOT_SUPPORTED: return "NVJPEG_STATUS_JPEG_NOT_SUPPORTED";
    case NVJPEG_STATUS_ALLOCATOR_FAILURE: return "NVJPEG_STATUS_ALLOCATOR_FAILURE";
    case NVJPEG_STATUS_EXECUTION_FAILED: return "NVJPEG_STATUS_EXECUTION_FAILED";
    case NVJPEG_STATUS_ARCH_MISMATCH: return "NVJPEG_STATUS_ARCH_MISMATCH";
    case NVJPEG_STATUS_INTERNAL_ERROR: return "NVJPEG_STATUS_INTERNAL_ERROR";
    case NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED: return "NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED";
    case NVJPEG_STATUS_INCOMPLETE_BITSTREAM: return "NVJPEG_STATUS_INCOMPLETE_BITSTREAM";
    default: return "an unknown nvJPEG status";
    }
}

/* "func: nvJPEG failed in <call>: NVJPEG_STATUS_X" (memory: AUG_ERR_MEMORY, else AUG_ERR_JPEG). */
static aug_status nv_fail(const char *func, const char *call, nvjpegStatus_t s) {
    aug_status st = s == NVJPEG_STATUS_ALLOCATOR_FAILURE ? AUG_ERR_MEMORY : AUG_ERR_JPEG;
    return aug__error(st, func, "nvJPEG failed in %s: %s", call, status_name(s));
}
#define NV(func, call)                                                                                  \
    do {                                                                                                \
        nvjpegStatus_t nv_s_ = api.call;                                                                \
        if (nv_s_ != NVJPEG_STATUS_SUCCESS) return nv_fail((func), #call, nv_s_);                       \
    } while (0)

/* ---- allocators: augpy's pools (nvjpegDevAllocatorV2_t / nvjpegPinnedAllocatorV2_t, ctx = the decoder) ---- */

typedef struct nvj nvj;
static int nvj_device(void *ctx);

static int dev_malloc(void *ctx, void **ptr, size_t size, cudaStream_t stream) {
    *ptr = aug__cuda_alloc(nvj_device(ctx), size ? size : 1, stream);
    return *ptr ? 0 : 1;
}
static int dev_free(void *ctx, void *ptr, size_t size, cudaStream_t stream) {
    aug__cuda_free(nvj_device(ctx), ptr, size ? size : 1, stream); /* stream-ordered: no wait */
    return 0;
}
static int pinned_malloc(void *ctx, void **ptr, size_t size, cudaStream_t stream) {
    (void)ctx, (void)stream;
    *ptr = aug__cuda_host_alloc(size);
    return *ptr ? 0 : 1;
}
static int pinned_free(void *ctx, void *ptr, size_t size, cudaStream_t stream) {
    /* reused only once the work queued on stream so far has run */
    aug__cuda_host_free_after(ptr, size, nvj_device(ctx), stream);
    return 0;
}

/* ---- decoders ----------------------------------------------------------------------- */

enum { HYBRID, GPU, KINDS };

/* One image in flight. nvjpegDecodeJpegHost writes the image into the slot's
 * pinned buffer at once, while TransferToDevice (pinned -> device buffer) and
 * DecodeJpegDevice (device buffer -> destination) only queue work on the plan's
 * stream: the buffers stay in use until that work has run, which `done`, recorded
 * after it, tells. hw: the slot's batched state on the hardware handle. */
typedef struct jslot {
    nvjpegJpegState_t state[KINDS]; /* GPU: NULL without gpu_huffman */
    nvjpegJpegState_t hw;           /* NULL without the hardware backend */
    int hw_batch;                   /* the batch size hw was initialised for */
    nvjpegBufferPinned_t pinned;
    nvjpegBufferDevice_t devbuf; /* one per slot: two plan streams may run two images at once */
    nvjpegJpegStream_t stream;
    cudaEvent_t done;
} jslot;

/* Two slots used in turn (NVIDIA's decoupled-decoding sample): image k's host
 * phase overlaps image k-1's queued work, and waits only for image k-2's. */
enum { SLOTS = 2 };

struct nvj {
    int device;
    int next; /* the slot of the next image */
    nvjpegHandle_t handle;
    nvjpegHandle_t hw; /* the hardware backend's handle, or NULL */
    nvjpegJpegDecoder_t dec[KINDS]; /* GPU: NULL without gpu_huffman */
    jslot slots[SLOTS];
    nvjpegDecodeParams_t params;
    nvjpegDevAllocatorV2_t dev_alloc;
    nvjpegPinnedAllocatorV2_t pinned_alloc;
    char backend[256]; /* aug__cuda_jpeg_backend's answer */
};

static int nvj_device(void *ctx) { return ((nvj *)ctx)->device; }

/* The hardware handle and its slot states, destroyed (their queued work is over). */
static void hw_free(nvj *j) {
    for (int i = 0; i < SLOTS; i++)
        if (j->slots[i].hw) {
            api.nvjpegJpegStateDestroy(j->slots[i].hw);
            j->slots[i].hw = NULL;
        }
    if (j->hw) api.nvjpegDestroy(j->hw);
    j->hw = NULL;
}

void aug__cuda_jpeg_free(void *decoder) {
    nvj *j = (nvj *)decoder;
    if (!j) return;
    cudaSetDevice(j->device);
    /* queued transfers and decodes still use the buffers */
    for (int i = 0; i < SLOTS; i++)
        if (j->slots[i].done) cudaEventSynchronize(j->slots[i].done);
    hw_free(j);
    if (j->params) api.nvjpegDecodeParamsDestroy(j->params);
    for (int i = 0; i < SLOTS; i++) {
        jslot *sl = &j->slots[i];
        if (sl->stream) api.nvjpegJpegStreamDestroy(sl->stream);
        for (int k = 0; k < KINDS; k++)
            if (sl->state[k]) api.nvjpegJpegStateDestroy(sl->state[k]);
        if (sl->pinned) api.nvjpegBufferPinnedDestroy(sl->pinned);
        if (sl->devbuf) api.nvjpegBufferDeviceDestroy(sl->devbuf);
        if (sl->done) cudaEventDestroy(sl->done);
    }
    for (int k = 0; k < KINDS; k++)
        if (j->dec[k]) api.nvjpegDecoderDestroy(j->dec[k]);
    if (j->handle) api.nvjpegDestroy(j->handle);
    free(j);
}

static aug_status setup_slot(const char *func, nvj *j, jslot *sl) {
    NV(func, nvjpegBufferPinnedCreateV2(j->handle, &j->pinned_alloc, &sl->pinned));
    NV(func, nvjpegBufferDeviceCreateV2(j->handle, &j->dev_alloc, &sl->devbuf));
    for (int k = 0; k < KINDS && j->dec[k]; k++) {
        NV(func, nvjpegDecoderStateCreate(j->handle, j->dec[k], &sl->state[k]));
        NV(func, nvjpegStateAttachPinnedBuffer(sl->state[k], sl->pinned));
        NV(func, nvjpegStateAttachDeviceBuffer(sl->state[k], sl->devbuf));
    }
    NV(func, nvjpegJpegStreamCreate(j->handle, &sl->stream));
    AUG_CUDA(func, cudaEventCreateWithFlags(&sl->done, cudaEventDisableTiming));
    return AUG_OK;
}

/* The hardware backend, where the device has the engines: NULL on success, else
 * the call that failed (its status in *s); the caller then falls back. */
static const char *setup_hw(nvj *j, size_t device_padding, size_t host_padding, nvjpegStatus_t *s) {
#define HW(call)                                                                                        \
    if ((*s = api.call) != NVJPEG_STATUS_SUCCESS) return #call;
    HW(nvjpegCreateExV2(NVJPEG_BACKEND_HARDWARE, &j->dev_alloc, &j->pinned_alloc, 0, &j->hw));
    HW(nvjpegSetDeviceMemoryPadding(device_padding, j->hw));
    HW(nvjpegSetPinnedMemoryPadding(host_padding, j->hw));
    for (int i = 0; i < SLOTS; i++) {
        HW(nvjpegJpegStateCreate(j->hw, &j->slots[i].hw));
        HW(nvjpegDecodeBatchedInitialize(j->hw, j->slots[i].hw, 1, 1, NVJPEG_OUTPUT_RGBI));
        j->slots[i].hw_batch = 1;
    }
#undef HW
    return NULL;
}

static aug_status setup(const char *func, nvj *j, size_t device_padding, size_t host_padding, int gpu_huffman) {
    j->dev_alloc.dev_malloc = dev_malloc;
    j->dev_alloc.dev_free = dev_free;
    j->dev_alloc.dev_ctx = j;
    j->pinned_alloc.pinned_malloc = pinned_malloc;
    j->pinned_alloc.pinned_free = pinned_free;
    j->pinned_alloc.pinned_ctx = j;
    NV(func, nvjpegCreateExV2(NVJPEG_BACKEND_DEFAULT, &j->dev_alloc, &j->pinned_alloc, 0, &j->handle));
    NV(func, nvjpegSetDeviceMemoryPadding(device_padding, j->handle));
    NV(func, nvjpegSetPinnedMemoryPadding(host_padding, j->handle));
    const nvjpegBackend_t backend[KINDS] = {NVJPEG_BACKEND_HYBRID, NVJPEG_BACKEND_GPU_HYBRID};
    for (int k = 0; k < (gpu_huffman ? KINDS : 1); k++)
        NV(func, nvjpegDecoderCreate(j->handle, backend[k], &j->dec[k]));
    for (int i = 0; i < SLOTS; i++) {
        aug_status st = setup_slot(func, j, &j->slots[i]);
        if (st) return st;
    }
    NV(func, nvjpegDecodeParamsCreate(j->handle, &j->params));
    NV(func, nvjpegDecodeParamsSetOutputFormat(j->params, NVJPEG_OUTPUT_RGBI));
    const char *soft = gpu_huffman ? "hybrid+gpu_huffman" : "hybrid";
    nvjpegStatus_t s = NVJPEG_STATUS_SUCCESS;
    const char *failed = setup_hw(j, device_padding, host_padding, &s);
    if (!failed) {
        snprintf(j->backend, sizeof j->backend, "hardware (batched; other files: %s)", soft);
    } else {
        hw_free(j);
        /* "nvjpegCreateExV2(NVJPEG_BACKEND_HARDWARE, ...)": the call's name up to its '(' */
        snprintf(j->backend, sizeof j->backend, "%s (no hardware decoder: %.*s failed with %s)", soft,
                 (int)strcspn(failed, "("), failed, status_name(s));
    }
    return AUG_OK;
}

const char *aug__cuda_jpeg_backend(void *decoder) { return decoder ? ((nvj *)decoder)->backend : NULL; }

aug_status aug__cuda_jpeg_new(const char *func, int device_id, size_t device_padding, size_t host_padding,
                              int gpu_huffman, void **decoder) {
    pthread_once(&nv_once, nv_load);
    if (nv_error[0]) return aug__error(AUG_ERR_JPEG, func, "%s", nv_error);
    aug_status st = aug__cuda_use(func, device_id);
    if (st) return st;
    nvj *j = (nvj *)calloc(1, sizeof *j);
    if (!j) return AUG__NOMEM(func);
    j->device = device_id;
    st = setup(func, j, device_padding, host_padding, gpu_huffman);
    if (st) {
        aug__cuda_jpeg_free(j);
        return st;
    }
    *decoder = j;
    return AUG_OK;
}

/* Whether decoder k takes the file parsed into sl (nvjpegDecoderJpegSupported answers 0 for yes). */
static int supported(const nvj *j, const jslot *sl, int k) {
    int answer = 1;
    return j->dec[k] && api.nvjpegDecoderJpegSupported(j->dec[k], sl->stream, j->params, &answer) ==
                            NVJPEG_STATUS_SUCCESS && answer == 0;
}

/* A status meaning "not this file": the CPU decodes it instead. */
static int refusal(nvjpegStatus_t s) {
    return s == NVJPEG_STATUS_JPEG_NOT_SUPPORTED || s == NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED ||
           s == NVJPEG_STATUS_ARCH_MISMATCH;
}

/* After the slot's work is queued (or failed to be): the slot turns, `done` follows that work. */
static aug_status finish(const char *func, nvj *j, jslot *sl, cudaStream_t stream, const char *call, nvjpegStatus_t s) {
    j->next = (j->next + 1) % SLOTS;
    const cudaError_t recorded = cudaEventRecord(sl->done, stream);
    if (recorded != cudaSuccess) cudaStreamSynchronize(stream); /* no event: free the slot now */
    if (s != NVJPEG_STATUS_SUCCESS) return nv_fail(func, call, s);
    if (recorded != cudaSuccess)
        return aug__cuda_fail(func, recorded, "cudaEventRecord(slot done, stream)", __FILE__, __LINE__);
    return AUG_OK;
}

/* The slot's state for batches of n (its queued work is over): 0, or the failed call's status. */
static nvjpegStatus_t hw_batch(nvj *j, jslot *sl, int n) {
    if (sl->hw_batch == n) return NVJPEG_STATUS_SUCCESS;
    sl->hw_batch = 0;
    nvjpegStatus_t s = api.nvjpegDecodeBatchedInitialize(j->hw, sl->hw, n, 1, NVJPEG_OUTPUT_RGBI);
    if (s == NVJPEG_STATUS_SUCCESS) sl->hw_batch = n;
    return s;
}

/* Before a slot is reused: its queued work (the image before last) is over. The
 * event is queried first, so a free slot costs no host wait. */
static aug_status slot_wait(const char *func, const jslot *sl) {
    const cudaError_t q = cudaEventQuery(sl->done);
    if (q == cudaSuccess) return AUG_OK;
    if (q != cudaErrorNotReady) return aug__cuda_fail(func, q, "cudaEventQuery(slot done)", __FILE__, __LINE__);
    AUG_CUDA(func, cudaEventSynchronize(sl->done));
    return AUG_OK;
}

/* The hardware engines: one batched call of one image into dst (RGBI). */
static aug_status decode_hw(const char *func, nvj *j, jslot *sl, const void *data, size_t size,
                            const aug__jpeg_header *h, uint8_t *dst, cudaStream_t stream) {
    nvjpegStatus_t s = hw_batch(j, sl, 1);
    if (s != NVJPEG_STATUS_SUCCESS) return nv_fail(func, "nvjpegDecodeBatchedInitialize", s);
    nvjpegImage_t img;
    memset(&img, 0, sizeof img);
    img.channel[0] = dst;
    img.pitch[0] = (size_t)h->width * 3;
    const unsigned char *const bits[1] = {(const unsigned char *)data};
    const size_t lengths[1] = {size};
    s = api.nvjpegDecodeBatched(j->hw, sl->hw, bits, lengths, &img, stream);
    if (refusal(s)) return AUG__JPEG_REFUSED; /* nothing queued: the CPU decodes it */
    return finish(func, j, sl, stream, "nvjpegDecodeBatched", s);
}

aug_status aug__cuda_jpeg_decode(const char *func, void *decoder, const void *data, size_t size,
                                 const aug__jpeg_header *h, uint8_t *dst, const aug__exec *exec) {
    nvj *j = (nvj *)decoder;
    if (h->components == 4 || h->libjpeg) return AUG__JPEG_REFUSED; /* CMYK/YCCK, odd sampling */
    aug_status st = aug__cuda_use(func, j->device);
    if (st) return st;
    const cudaStream_t stream = aug__cuda_stream(exec);
    jslot *sl = &j->slots[j->next];
    /* the image before last may still be queued (on any stream) reading this slot's buffers */
    if ((st = slot_wait(func, sl)) != AUG_OK) return st;
    nvjpegStatus_t s = api.nvjpegJpegStreamParse(j->handle, (const unsigned char *)data, size, 0, 0, sl->stream);
    if (refusal(s)) return AUG__JPEG_REFUSED;
    if (s != NVJPEG_STATUS_SUCCESS) return nv_fail(func, "nvjpegJpegStreamParse", s);
    int hw_ok = 1;
    if (j->hw && api.nvjpegDecodeBatchedSupported(j->hw, sl->stream, &hw_ok) == NVJPEG_STATUS_SUCCESS && hw_ok == 0)
        return decode_hw(func, j, sl, data, size, h, dst, stream);
    const int k = supported(j, sl, GPU) ? GPU : HYBRID;
    if (k == HYBRID && !supported(j, sl, HYBRID)) return AUG__JPEG_REFUSED;
    nvjpegImage_t img;
    memset(&img, 0, sizeof img);
    img.channel[0] = dst;
    img.pitch[0] = (size_t)h->width * 3;
    s = api.nvjpegDecodeJpegHost(j->handle, j->dec[k], sl->state[k], j->params, sl->stream);
    if (refusal(s)) return AUG__JPEG_REFUSED;
    if (s != NVJPEG_STATUS_SUCCESS) return nv_fail(func, "nvjpegDecodeJpegHost", s);
    /* from here work may be queued: the slot is busy until `done`, even after a failure */
    const char *call = "nvjpegDecodeJpegTransferToDevice";
    s = api.nvjpegDecodeJpegTransferToDevice(j->handle, j->dec[k], sl->state[k], sl->stream, stream);
    if (s == NVJPEG_STATUS_SUCCESS) {
        call = "nvjpegDecodeJpegDevice";
        s = api.nvjpegDecodeJpegDevice(j->handle, j->dec[k], sl->state[k], &img, stream);
    }
    return finish(func, j, sl, stream, call, s);
}
/* The files of a batch that the engines take, in one nvjpegDecodeBatched call
 * on the next slot (see the top of this file); done[i] = 1 for those. */
aug_status aug__cuda_jpeg_decode_batch(const char *func, void *decoder, int n, const void *const *data,
                                       const size_t *size, const aug__jpeg_header *h, uint8_t *const *dst, int *done,
                                       const aug__exec *exec) {
    nvj *j = (nvj *)decoder;
    for (int i = 0; i < n; i++) done[i] = 0;
    if (!j->hw || n < 1) return AUG_OK;
    aug_status st = aug__cuda_use(func, j->device);
    if (st) return st;
    const cudaStream_t stream = aug__cuda_stream(exec);
    jslot *sl = &j->slots[j->next];
    if ((st = slot_wait(func, sl)) != AUG_OK) return st;
    int *take = (int *)malloc((size_t)n * sizeof *take);
    const unsigned char **bits = (const unsigned char **)malloc((size_t)n * sizeof *bits);
    size_t *lengths = (size_t *)malloc((size_t)n * sizeof *lengths);
    nvjpegImage_t *img = (nvjpegImage_t *)calloc((size_t)n, sizeof *img);
    if (!take || !bits || !lengths || !img) {
        free(take), free(bits), free(lengths), free(img);
        return AUG__NOMEM(func);
    }
    /* the engines' files: parsed on the slot's jpeg stream, nvjpegDecodeBatchedSupported answers 0 */
    int k = 0;
    for (int i = 0; i < n; i++) {
        int unsupported = 1;
        if (h[i].components == 4 || h[i].libjpeg ||
            api.nvjpegJpegStreamParse(j->handle, (const unsigned char *)data[i], size[i], 0, 0, sl->stream) !=
                NVJPEG_STATUS_SUCCESS ||
            api.nvjpegDecodeBatchedSupported(j->hw, sl->stream, &unsupported) != NVJPEG_STATUS_SUCCESS || unsupported)
            continue;
        take[k] = i;
        bits[k] = (const unsigned char *)data[i];
        lengths[k] = size[i];
        img[k].channel[0] = dst[i];
        img[k].pitch[0] = (size_t)h[i].width * 3;
        k++;
    }
    if (k > 0 && hw_batch(j, sl, k) == NVJPEG_STATUS_SUCCESS) {
        const nvjpegStatus_t s = api.nvjpegDecodeBatched(j->hw, sl->hw, bits, lengths, img, stream);
        /* work may be queued even when it failed: the slot turns and its event follows it */
        st = finish(func, j, sl, stream, "nvjpegDecodeBatched", NVJPEG_STATUS_SUCCESS);
        if (st == AUG_OK && s == NVJPEG_STATUS_SUCCESS)
            for (int m = 0; m < k; m++) done[take[m]] = 1;
    }
    free(take), free(bits), free(lengths), free(img);
    return st;
}
#endif
