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

/* ---- decoders ----------------------------------------------------------------------- */

enum { HYBRID, GPU, KINDS };

/* One image in flight. nvjpegDecodeJpegHost writes the image into the slot's
 * pinned buffer at once, while TransferToDevice (pinned -> device buffer) and
 * DecodeJpegDevice (device buffer -> destination) only queue work on the plan's
 * stream: the buffers stay in use until that work has run, which `done`, recorded
 * after it, tells. */
typedef struct jslot {
    nvjpegJpegState_t state[KINDS]; /* GPU: NULL without gpu_huffman */
    nvjpegBufferPinned_t pinned;
    nvjpegBufferDevice_t devbuf; /* one per slot: two plan streams may run two images at once */
    nvjpegJpegStream_t stream;
    cudaEvent_t done;
} jslot;

/* Two slots used in turn (NVIDIA's decoupled-decoding sample): image k's host
 * phase overlaps image k-1's queued work, and waits only for image k-2's. */
enum { SLOTS = 2 };

typedef struct nvj {
    int device;
    int next; /* the slot of the next image */
    nvjpegHandle_t handle;
    nvjpegJpegDecoder_t dec[KINDS]; /* GPU: NULL without gpu_huffman */
    jslot slots[SLOTS];
    nvjpegDecodeParams_t params;
} nvj;

void aug__cuda_jpeg_free(void *decoder) {
    nvj *j = (nvj *)decoder;
    if (!j) return;
    cudaSetDevice(j->device);
    /* queued transfers and decodes still use the buffers */
    for (int i = 0; i < SLOTS; i++)
        if (j->slots[i].done) cudaEventSynchronize(j->slots[i].done);
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
    NV(func, nvjpegBufferPinnedCreate(j->handle, NULL, &sl->pinned));
    NV(func, nvjpegBufferDeviceCreate(j->handle, NULL, &sl->devbuf));
    for (int k = 0; k < KINDS && j->dec[k]; k++) {
        NV(func, nvjpegDecoderStateCreate(j->handle, j->dec[k], &sl->state[k]));
        NV(func, nvjpegStateAttachPinnedBuffer(sl->state[k], sl->pinned));
        NV(func, nvjpegStateAttachDeviceBuffer(sl->state[k], sl->devbuf));
    }
    NV(func, nvjpegJpegStreamCreate(j->handle, &sl->stream));
    AUG_CUDA(func, cudaEventCreateWithFlags(&sl->done, cudaEventDisableTiming));
    return AUG_OK;
}

static aug_status setup(const char *func, nvj *j, size_t device_padding, size_t host_padding, int gpu_huffman) {
    NV(func, nvjpegCreateEx(NVJPEG_BACKEND_DEFAULT, NULL, NULL, 0, &j->handle));
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
    return AUG_OK;
}

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

aug_status aug__cuda_jpeg_decode(const char *func, void *decoder, const void *data, size_t size,
                                 const aug__jpeg_header *h, uint8_t *dst, const aug__exec *exec) {
    nvj *j = (nvj *)decoder;
    if (h->components == 4 || h->libjpeg) return AUG__JPEG_REFUSED; /* CMYK/YCCK, odd sampling */
    aug_status st = aug__cuda_use(func, j->device);
    if (st) return st;
    const cudaStream_t stream = aug__cuda_stream(exec);
    jslot *sl = &j->slots[j->next];
    /* the image before last may still be queued (on any stream) reading this slot's buffers */
    AUG_CUDA(func, cudaEventSynchronize(sl->done));
    nvjpegStatus_t s = api.nvjpegJpegStreamParse(j->handle, (const unsigned char *)data, size, 0, 0, sl->stream);
    if (refusal(s)) return AUG__JPEG_REFUSED;
    if (s != NVJPEG_STATUS_SUCCESS) return nv_fail(func, "nvjpegJpegStreamParse", s);
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
    j->next = (j->next + 1) % SLOTS;
    const cudaError_t recorded = cudaEventRecord(sl->done, stream);
    if (recorded != cudaSuccess) cudaStreamSynchronize(stream); /* no event: free the slot now */
    if (s != NVJPEG_STATUS_SUCCESS) return nv_fail(func, call, s);
    if (recorded != cudaSuccess)
        return aug__cuda_fail(func, recorded, "cudaEventRecord(slot done, stream)", __FILE__, __LINE__);
    return AUG_OK;
}
#endif
