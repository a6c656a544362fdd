/* emu_nvjpeg.cpp: the nvJPEG stand-in of the CUDA emulation: the decoupled
 * decoding API that cuda/jpeg.cu calls (cuda/nvjpeg_api.h), modelled so that a
 * buffer reused too early gives a wrong image, as on a GPU.
 *
 *   nvjpegJpegStreamParse      keeps a copy of the file (BAD_JPEG unless its header reads)
 *   nvjpegDecodeJpegHost       decodes it at once, with libjpeg-turbo, the accurate
 *                              integer IDCT and FAST UPSAMPLING (chroma replicated,
 *                              as nvJPEG does: on an H200 its pixels are those of
 *                              TJFLAG_FASTUPSAMPLE up to IDCT rounding, not the CPU
 *                              decoder's fancy upsampling), INTO THE STATE'S
 *                              ATTACHED PINNED BUFFER (grown with the handle's
 *                              pinned padding). A file cut short decodes WITHOUT
 *                              AN ERROR, its missing rows grey, as on nvJPEG (the
 *                              core's marker walk must refuse it first); libjpeg's
 *                              other warnings too; its errors are BAD_JPEG.
 *   ...TransferToDevice        queues on the given stream a copy pinned buffer ->
 *                              attached device buffer (read when the stream gets there)
 *   nvjpegDecodeJpegDevice     queues device buffer -> the output image (RGBI)
 *
 * As with nvJPEG, the caller must keep a state's buffers untouched until its
 * queued work has run: here the pinned buffer is plain host memory, replaced
 * (freed) without waiting when it grows and freed without waiting when
 * destroyed, so early reuse shows as wrong pixels or, under ASan, a
 * use-after-free. Device buffers use cudaMalloc/cudaFree (which waits, as on a
 * GPU). Decoders: HYBRID takes every 1- or 3-component file, GPU_HYBRID only
 * baseline ones (not progressive); 4 components are JPEG_NOT_SUPPORTED. Only
 * NVJPEG_OUTPUT_RGBI; misuse (a phase out of order, no attached buffer, a
 * state of another decoder) is INVALID_PARAMETER.
 *
 * Allocators: handles take the v2 allocators (nvjpegCreateExV2) and buffers
 * theirs (nvjpegBuffer*CreateV2, else the handle's); with one, a buffer grows
 * through it (malloc then free of the old block, with the stream), else through
 * cudaMalloc/cudaFree or malloc/free. aug_emu_nvjpeg_counters counts both.
 *
 * The hardware backend (NVJPEG_BACKEND_HARDWARE): AUG_EMU_NVJPEG_HW says what
 * the emulated device has: unset or 0, no engines (nvjpegCreateExV2 answers
 * ARCH_MISMATCH, as off A100/H100/H200); 1, engines; "init-fails", engines
 * whose nvjpegDecodeBatchedInitialize answers INTERNAL_ERROR. The batched API
 * (nvjpegJpegStateCreate, nvjpegDecodeBatchedInitialize, ...Supported: baseline
 * 1- or 3-component files, nvjpegDecodeBatched) decodes each image as the
 * decoupled path does (the same libjpeg-turbo call), into a pinned then a
 * device buffer of the state, queued on the stream; hardware handles take no
 * decoupled decoders. Its constraints, as nvJPEG documents them: the output
 * format is the state's, fixed by nvjpegDecodeBatchedInitialize (RGBI only
 * here), and nvjpegDecodeBatched decodes exactly the batch_size images of that
 * initialisation (data, lengths and destinations hold batch_size entries; a
 * new size needs a new initialisation, made only once the state's queued work
 * is over); on a hardware handle every image must be one that
 * nvjpegDecodeBatchedSupported takes, else the call is JPEG_NOT_SUPPORTED; a
 * file that does not decode fails the whole call (BAD_JPEG), which then has
 * queued nothing. The images of a batch lie one after the other in the
 * state's pinned and device buffers (grown to the batch's sum), copied to the
 * device in one transfer and from there to each destination.
 *
 * Calls: every function reached through nvjpeg_sym (i.e. by cuda/jpeg.cu) is
 * counted (calls), and the batched calls, their images, the batched
 * initialisations and the decoupled host decodes separately
 * (aug_emu_nvjpeg_counters), so a test can count nvJPEG calls per batch. */
#include "emu_nvjpeg.h"
#include "emu_internal.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <turbojpeg.h>
#include "nvjpeg_api.h"

/* Warnings (premature end of data, stray bytes) do not stop the decode: nvJPEG decodes such files. */
#ifdef TJFLAG_LIMITSCANS
#define EMU_TJ_FLAGS (TJFLAG_ACCURATEDCT | TJFLAG_FASTUPSAMPLE | TJFLAG_LIMITSCANS)
#else
#define EMU_TJ_FLAGS (TJFLAG_ACCURATEDCT | TJFLAG_FASTUPSAMPLE)
#endif

struct nvjpegHandle {
    size_t device_padding = 0, pinned_padding = 0;
    bool hardware = false;
    nvjpegDevAllocatorV2_t dev{};
    nvjpegPinnedAllocatorV2_t pin{};
};
struct nvjpegJpegDecoder {
    nvjpegBackend_t backend;
};
struct nvjpegBufferPinned {
    nvjpegHandle *handle;
    nvjpegPinnedAllocatorV2_t alloc{};
    unsigned char *p = nullptr;
    size_t cap = 0;
};
struct nvjpegBufferDevice {
    nvjpegHandle *handle;
    nvjpegDevAllocatorV2_t alloc{};
    void *p = nullptr;
    size_t cap = 0;
};
struct nvjpegJpegStream {
    std::vector<unsigned char> data;
    bool parsed = false, progressive = false;
    int width = 0, height = 0, colorspace = 0;
};
struct nvjpegDecodeParams {
    nvjpegOutputFormat_t format = NVJPEG_OUTPUT_UNCHANGED;
};
struct nvjpegJpegState {
    enum Phase { IDLE, HOST_DONE, ON_DEVICE };
    nvjpegJpegDecoder *dec;
    nvjpegBufferPinned *pinned = nullptr;
    nvjpegBufferDevice *devbuf = nullptr;
    tjhandle tj = nullptr;
    Phase phase = IDLE;
    int width = 0, height = 0;
    /* batched (hardware handles): its own buffers, the batch size */
    nvjpegBufferPinned *bpinned = nullptr;
    nvjpegBufferDevice *bdev = nullptr;
    int batch = 0;
};

/* What the stand-in's buffers did (aug_emu_nvjpeg_counters). */
static struct {
    std::atomic<long> alloc_malloc, alloc_free; /* through a v2 allocator */
    std::atomic<long> cuda_malloc, cuda_free;   /* through cudaMalloc / cudaFree (no allocator) */
    std::atomic<long> batched_images;           /* decoded by nvjpegDecodeBatched */
    std::atomic<long> batched_calls;            /* nvjpegDecodeBatched calls */
    std::atomic<long> batched_inits;            /* nvjpegDecodeBatchedInitialize calls */
    std::atomic<long> host_decodes;             /* nvjpegDecodeJpegHost calls (the decoupled path) */
    std::atomic<long> calls;                    /* every call through nvjpeg_sym */
} counters;

namespace {

/* Whether the file's frame is progressive (SOF2, SOF6, SOF10, SOF14): the marker
 * segments before the first SOS. */
bool is_progressive(const unsigned char *d, size_t n) {
    size_t i = 2;
    while (i + 4 <= n && d[i] == 0xFF) {
        unsigned m = d[i + 1];
        if (m == 0xFF) { /* fill byte */
            i++;
            continue;
        }
        if (m == 0xDA) break; /* SOS */
        if (m == 0xC2 || m == 0xC6 || m == 0xCA || m == 0xCE) return true;
        i += 2 + ((size_t)d[i + 2] << 8 | d[i + 3]);
    }
    return false;
}

/* Grows b to hold need bytes (+ the handle's padding) through its allocator or malloc; the old block is freed at once. */
bool grow_pinned(nvjpegBufferPinned *b, size_t need, cudaStream_t s) {
    if (b->cap >= need) return true;
    const size_t size = need + b->handle->pinned_padding;
    void *p = nullptr;
    if (b->alloc.pinned_malloc) {
        if (b->alloc.pinned_malloc(b->alloc.pinned_ctx, &p, size, s) != 0) return false;
        counters.alloc_malloc++;
        if (b->p) b->alloc.pinned_free(b->alloc.pinned_ctx, b->p, b->cap, s), counters.alloc_free++;
    } else {
        if (!(p = malloc(size))) return false;
        free(b->p);
    }
    b->p = (unsigned char *)p, b->cap = size;
    return true;
}

void release_pinned(nvjpegBufferPinned *b) {
    if (!b || !b->p) return;
    if (b->alloc.pinned_free) b->alloc.pinned_free(b->alloc.pinned_ctx, b->p, b->cap, nullptr), counters.alloc_free++;
    else free(b->p); /* no wait: queued copies must be over (the caller's duty) */
}

/* Grows d through its allocator (stream-ordered) or cudaFree + cudaMalloc (which wait). */
nvjpegStatus_t grow_device(nvjpegBufferDevice *d, size_t bytes, cudaStream_t s) {
    if (d->cap >= bytes) return NVJPEG_STATUS_SUCCESS;
    const size_t size = bytes + d->handle->device_padding;
    if (d->alloc.dev_malloc) {
        void *p = nullptr;
        if (d->alloc.dev_malloc(d->alloc.dev_ctx, &p, size, s) != 0) return NVJPEG_STATUS_ALLOCATOR_FAILURE;
        counters.alloc_malloc++;
        if (d->p) d->alloc.dev_free(d->alloc.dev_ctx, d->p, d->cap, s), counters.alloc_free++;
        d->p = p, d->cap = size;
        return NVJPEG_STATUS_SUCCESS;
    }
    if (d->p) {
        counters.cuda_free++;
        if (cudaFree(d->p) != cudaSuccess) return NVJPEG_STATUS_EXECUTION_FAILED;
    }
    d->p = nullptr, d->cap = 0;
    counters.cuda_malloc++;
    if (cudaMalloc(&d->p, size) != cudaSuccess) return NVJPEG_STATUS_ALLOCATOR_FAILURE;
    d->cap = size;
    return NVJPEG_STATUS_SUCCESS;
}

void release_device(nvjpegBufferDevice *d) {
    if (!d || !d->p) return;
    if (d->alloc.dev_free) d->alloc.dev_free(d->alloc.dev_ctx, d->p, d->cap, nullptr), counters.alloc_free++;
    else counters.cuda_free++, cudaFree(d->p);
}

/* libjpeg-turbo decodes the parsed file into p (RGB rows): false on an error (warnings decode). */
bool tj_decode(tjhandle *tj, const nvjpegJpegStream *s, unsigned char *p) {
    if (!*tj && !(*tj = tjInitDecompress())) return false;
    return tjDecompress2(*tj, s->data.data(), (unsigned long)s->data.size(), p, s->width, s->width * 3, s->height,
                         TJPF_RGB, EMU_TJ_FLAGS) == 0 ||
           tjGetErrorCode(*tj) == TJERR_WARNING; /* a warning: the image is complete (grey-filled if cut) */
}

/* AUG_EMU_NVJPEG_HW: 0 no engines, 1 engines, 2 engines whose batched initialisation fails. */
int hw_knob() {
    const char *v = getenv("AUG_EMU_NVJPEG_HW");
    if (!v || !*v || strcmp(v, "0") == 0) return 0;
    return strcmp(v, "init-fails") == 0 ? 2 : 1;
}

bool takes(const nvjpegJpegDecoder *dec, const nvjpegJpegStream *s) {
    if (s->colorspace == TJCS_CMYK || s->colorspace == TJCS_YCCK) return false;
    return dec->backend != NVJPEG_BACKEND_GPU_HYBRID || !s->progressive;
}

} /* namespace */

extern "C" {

nvjpegStatus_t nvjpegCreateExV2(nvjpegBackend_t backend, nvjpegDevAllocatorV2_t *dev_allocator,
                                nvjpegPinnedAllocatorV2_t *pinned_allocator, unsigned int flags,
                                nvjpegHandle_t *handle) {
    if (!handle || flags) return NVJPEG_STATUS_INVALID_PARAMETER;
    if (backend == NVJPEG_BACKEND_HARDWARE && hw_knob() == 0) return NVJPEG_STATUS_ARCH_MISMATCH;
    if (backend != NVJPEG_BACKEND_DEFAULT && backend != NVJPEG_BACKEND_HYBRID && backend != NVJPEG_BACKEND_HARDWARE)
        return NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED;
    nvjpegHandle *h = new nvjpegHandle;
    h->hardware = backend == NVJPEG_BACKEND_HARDWARE;
    if (dev_allocator) h->dev = *dev_allocator;
    if (pinned_allocator) h->pin = *pinned_allocator;
    *handle = h;
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegDestroy(nvjpegHandle_t handle) {
    delete handle;
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegSetDeviceMemoryPadding(size_t padding, nvjpegHandle_t handle) {
    if (!handle) return NVJPEG_STATUS_INVALID_PARAMETER;
    handle->device_padding = padding;
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegSetPinnedMemoryPadding(size_t padding, nvjpegHandle_t handle) {
    if (!handle) return NVJPEG_STATUS_INVALID_PARAMETER;
    handle->pinned_padding = padding;
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegDecoderCreate(nvjpegHandle_t handle, nvjpegBackend_t backend, nvjpegJpegDecoder_t *decoder) {
    if (!handle || !decoder) return NVJPEG_STATUS_INVALID_PARAMETER;
    if (handle->hardware) return NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED;
    if (backend != NVJPEG_BACKEND_DEFAULT && backend != NVJPEG_BACKEND_HYBRID && backend != NVJPEG_BACKEND_GPU_HYBRID)
        return NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED;
    *decoder = new nvjpegJpegDecoder{backend == NVJPEG_BACKEND_DEFAULT ? NVJPEG_BACKEND_HYBRID : backend};
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegDecoderDestroy(nvjpegJpegDecoder_t decoder) {
    delete decoder;
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegDecoderStateCreate(nvjpegHandle_t handle, nvjpegJpegDecoder_t decoder,
                                        nvjpegJpegState_t *state) {
    if (!handle || !decoder || !state) return NVJPEG_STATUS_INVALID_PARAMETER;
    *state = new nvjpegJpegState{decoder};
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegJpegStateDestroy(nvjpegJpegState_t state) {
    if (state && state->tj) tjDestroy(state->tj);
    if (state && state->bpinned) release_pinned(state->bpinned), delete state->bpinned;
    if (state && state->bdev) release_device(state->bdev), delete state->bdev;
    delete state;
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegBufferPinnedCreateV2(nvjpegHandle_t handle, nvjpegPinnedAllocatorV2_t *allocator,
                                          nvjpegBufferPinned_t *buffer) {
    if (!handle || !buffer) return NVJPEG_STATUS_INVALID_PARAMETER;
    *buffer = new nvjpegBufferPinned{handle, allocator ? *allocator : handle->pin};
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegBufferPinnedDestroy(nvjpegBufferPinned_t buffer) {
    release_pinned(buffer);
    delete buffer;
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegBufferDeviceCreateV2(nvjpegHandle_t handle, nvjpegDevAllocatorV2_t *allocator,
                                          nvjpegBufferDevice_t *buffer) {
    if (!handle || !buffer) return NVJPEG_STATUS_INVALID_PARAMETER;
    *buffer = new nvjpegBufferDevice{handle, allocator ? *allocator : handle->dev};
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegBufferDeviceDestroy(nvjpegBufferDevice_t buffer) {
    release_device(buffer);
    delete buffer;
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegStateAttachPinnedBuffer(nvjpegJpegState_t state, nvjpegBufferPinned_t buffer) {
    if (!state) return NVJPEG_STATUS_INVALID_PARAMETER;
    state->pinned = buffer;
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegStateAttachDeviceBuffer(nvjpegJpegState_t state, nvjpegBufferDevice_t buffer) {
    if (!state) return NVJPEG_STATUS_INVALID_PARAMETER;
    state->devbuf = buffer;
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegJpegStreamCreate(nvjpegHandle_t handle, nvjpegJpegStream_t *stream) {
    if (!handle || !stream) return NVJPEG_STATUS_INVALID_PARAMETER;
    *stream = new nvjpegJpegStream;
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegJpegStreamDestroy(nvjpegJpegStream_t stream) {
    delete stream;
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegJpegStreamParse(nvjpegHandle_t handle, const unsigned char *data, size_t length,
                                     int save_metadata, int save_stream, nvjpegJpegStream_t stream) {
    if (!handle || !stream || (!data && length)) return NVJPEG_STATUS_INVALID_PARAMETER;
    stream->parsed = false;
    tjhandle tj = tjInitDecompress();
    if (!tj) return NVJPEG_STATUS_ALLOCATOR_FAILURE;
    int w = 0, h = 0, subsamp = 0, cs = 0;
    int rc = tjDecompressHeader3(tj, data, (unsigned long)length, &w, &h, &subsamp, &cs);
    tjDestroy(tj);
    if (rc != 0) return NVJPEG_STATUS_BAD_JPEG;
    stream->data.assign(data, data + length);
    stream->width = w, stream->height = h, stream->colorspace = cs;
    stream->progressive = is_progressive(data, length);
    stream->parsed = true;
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegDecodeParamsCreate(nvjpegHandle_t handle, nvjpegDecodeParams_t *params) {
    if (!handle || !params) return NVJPEG_STATUS_INVALID_PARAMETER;
    *params = new nvjpegDecodeParams;
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegDecodeParamsDestroy(nvjpegDecodeParams_t params) {
    delete params;
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegDecodeParamsSetOutputFormat(nvjpegDecodeParams_t params, nvjpegOutputFormat_t format) {
    if (!params) return NVJPEG_STATUS_INVALID_PARAMETER;
    params->format = format;
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegDecoderJpegSupported(nvjpegJpegDecoder_t decoder, nvjpegJpegStream_t stream,
                                          nvjpegDecodeParams_t params, int *is_supported) {
    if (!decoder || !stream || !params || !is_supported || !stream->parsed) return NVJPEG_STATUS_INVALID_PARAMETER;
    *is_supported = takes(decoder, stream) ? 0 : 1; /* nvJPEG: 0 means supported */
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegDecodeJpegHost(nvjpegHandle_t handle, nvjpegJpegDecoder_t decoder, nvjpegJpegState_t state,
                                    nvjpegDecodeParams_t params, nvjpegJpegStream_t stream) {
    if (!handle || !decoder || !state || !params || !stream || !stream->parsed || state->dec != decoder ||
        !state->pinned || !state->devbuf)
        return NVJPEG_STATUS_INVALID_PARAMETER;
    counters.host_decodes++;
    if (params->format != NVJPEG_OUTPUT_RGBI) return NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED;
    if (!takes(decoder, stream)) return NVJPEG_STATUS_JPEG_NOT_SUPPORTED;
    state->phase = nvjpegJpegState::IDLE;
    const size_t need = (size_t)stream->width * (size_t)stream->height * 3;
    nvjpegBufferPinned *b = state->pinned;
    if (!grow_pinned(b, need, nullptr)) return NVJPEG_STATUS_ALLOCATOR_FAILURE; /* the old block freed at once */
    if (!tj_decode(&state->tj, stream, b->p)) return state->tj ? NVJPEG_STATUS_BAD_JPEG : NVJPEG_STATUS_ALLOCATOR_FAILURE;
    state->width = stream->width, state->height = stream->height;
    state->phase = nvjpegJpegState::HOST_DONE;
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegDecodeJpegTransferToDevice(nvjpegHandle_t handle, nvjpegJpegDecoder_t decoder,
                                                nvjpegJpegState_t state, nvjpegJpegStream_t stream,
                                                cudaStream_t cuda_stream) {
    if (!handle || !decoder || !state || !stream || state->dec != decoder || state->phase != nvjpegJpegState::HOST_DONE)
        return NVJPEG_STATUS_INVALID_PARAMETER;
    const size_t bytes = (size_t)state->width * (size_t)state->height * 3;
    nvjpegBufferDevice *d = state->devbuf;
    nvjpegStatus_t grown = grow_device(d, bytes, cuda_stream);
    if (grown != NVJPEG_STATUS_SUCCESS) return grown;
    /* reads the pinned buffer when the stream gets there, not now */
    if (cudaMemcpyAsync(d->p, state->pinned->p, bytes, cudaMemcpyHostToDevice, cuda_stream) != cudaSuccess)
        return NVJPEG_STATUS_EXECUTION_FAILED;
    state->phase = nvjpegJpegState::ON_DEVICE;
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegDecodeJpegDevice(nvjpegHandle_t handle, nvjpegJpegDecoder_t decoder, nvjpegJpegState_t state,
                                      nvjpegImage_t *destination, cudaStream_t cuda_stream) {
    if (!handle || !decoder || !state || !destination || state->dec != decoder ||
        state->phase != nvjpegJpegState::ON_DEVICE)
        return NVJPEG_STATUS_INVALID_PARAMETER;
    const size_t row = (size_t)state->width * 3;
    if (!destination->channel[0] || destination->pitch[0] < row) return NVJPEG_STATUS_INVALID_PARAMETER;
    if (cudaMemcpy2DAsync(destination->channel[0], destination->pitch[0], state->devbuf->p, row, row,
                          (size_t)state->height, cudaMemcpyDeviceToDevice, cuda_stream) != cudaSuccess)
        return NVJPEG_STATUS_EXECUTION_FAILED;
    state->phase = nvjpegJpegState::IDLE;
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegJpegStateCreate(nvjpegHandle_t handle, nvjpegJpegState_t *state) {
    if (!handle || !state) return NVJPEG_STATUS_INVALID_PARAMETER;
    nvjpegJpegState *s = new nvjpegJpegState{nullptr};
    s->bpinned = new nvjpegBufferPinned{handle, handle->pin};
    s->bdev = new nvjpegBufferDevice{handle, handle->dev};
    *state = s;
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegDecodeBatchedInitialize(nvjpegHandle_t handle, nvjpegJpegState_t state, int batch_size,
                                             int max_cpu_threads, nvjpegOutputFormat_t output_format) {
    if (!handle || !state || !state->bpinned || batch_size < 1 || max_cpu_threads < 1)
        return NVJPEG_STATUS_INVALID_PARAMETER;
    counters.batched_inits++;
    if (output_format != NVJPEG_OUTPUT_RGBI) return NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED;
    if (handle->hardware && hw_knob() == 2) return NVJPEG_STATUS_INTERNAL_ERROR;
    state->batch = batch_size;
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegDecodeBatchedSupported(nvjpegHandle_t handle, nvjpegJpegStream_t stream, int *is_supported) {
    if (!handle || !stream || !is_supported || !stream->parsed) return NVJPEG_STATUS_INVALID_PARAMETER;
    const bool ok = stream->colorspace != TJCS_CMYK && stream->colorspace != TJCS_YCCK && !stream->progressive;
    *is_supported = ok ? 0 : 1; /* 0 means supported */
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegDecodeBatched(nvjpegHandle_t handle, nvjpegJpegState_t state, const unsigned char *const *data,
                                   const size_t *lengths, nvjpegImage_t *destinations, cudaStream_t cuda_stream) {
    if (!handle || !state || !state->bpinned || !state->batch || !data || !lengths || !destinations)
        return NVJPEG_STATUS_INVALID_PARAMETER;
    counters.batched_calls++;
    /* the whole batch is checked and decoded on the host before anything is queued */
    const int n = state->batch;
    std::vector<nvjpegJpegStream> s((size_t)n);
    std::vector<size_t> offset((size_t)n + 1, 0);
    for (int i = 0; i < n; i++) {
        nvjpegStatus_t st = nvjpegJpegStreamParse(handle, data[i], lengths[i], 0, 0, &s[i]);
        if (st != NVJPEG_STATUS_SUCCESS) return st;
        int unsupported = 1;
        nvjpegDecodeBatchedSupported(handle, &s[i], &unsupported);
        if (handle->hardware && unsupported) return NVJPEG_STATUS_JPEG_NOT_SUPPORTED;
        const size_t row = (size_t)s[i].width * 3;
        if (!destinations[i].channel[0] || destinations[i].pitch[0] < row) return NVJPEG_STATUS_INVALID_PARAMETER;
        offset[i + 1] = offset[i] + row * (size_t)s[i].height;
    }
    const size_t total = offset[n];
    /* image i at [offset[i], offset[i + 1]) of the state's buffers (the old blocks go at once when they grow) */
    if (!grow_pinned(state->bpinned, total, cuda_stream)) return NVJPEG_STATUS_ALLOCATOR_FAILURE;
    for (int i = 0; i < n; i++)
        if (!tj_decode(&state->tj, &s[i], state->bpinned->p + offset[i])) return NVJPEG_STATUS_BAD_JPEG;
    nvjpegStatus_t st = grow_device(state->bdev, total, cuda_stream);
    if (st != NVJPEG_STATUS_SUCCESS) return st;
    if (cudaMemcpyAsync(state->bdev->p, state->bpinned->p, total, cudaMemcpyHostToDevice, cuda_stream) != cudaSuccess)
        return NVJPEG_STATUS_EXECUTION_FAILED;
    for (int i = 0; i < n; i++) {
        const size_t row = (size_t)s[i].width * 3;
        if (cudaMemcpy2DAsync(destinations[i].channel[0], destinations[i].pitch[0],
                              (unsigned char *)state->bdev->p + offset[i], row, row, (size_t)s[i].height,
                              cudaMemcpyDeviceToDevice, cuda_stream) != cudaSuccess)
            return NVJPEG_STATUS_EXECUTION_FAILED;
    }
    counters.batched_images += n;
    return NVJPEG_STATUS_SUCCESS;
}

/* Test hook (ctypes over the emulated module): the counters, in the order of the struct; reset when reset. */
__attribute__((visibility("default"))) void aug_emu_nvjpeg_counters(long out[9], int reset) {
    std::atomic<long> *c[9] = {&counters.alloc_malloc, &counters.alloc_free,    &counters.cuda_malloc,
                               &counters.cuda_free,    &counters.batched_images, &counters.batched_calls,
                               &counters.batched_inits, &counters.host_decodes, &counters.calls};
    for (int i = 0; i < 9; i++) {
        out[i] = *c[i];
        if (reset) *c[i] = 0;
    }
}

} /* extern "C" */
namespace aug_emu {

static char stand_in; /* the handle nvjpeg_open returns */

/* fn, counted (counters.calls): what nvjpeg_sym hands out. */
template <auto F> struct counted;
template <typename... A, nvjpegStatus_t (*F)(A...)> struct counted<F> {
    static nvjpegStatus_t call(A... a) {
        counters.calls++;
        return F(a...);
    }
};

void *nvjpeg_open(const char **why) {
    const char *on = getenv("AUG_EMU_NVJPEG");
    if (on && *on && strcmp(on, "0") != 0) return &stand_in;
    *why = "libnvjpeg.so.13: cannot open shared object file: No such file or directory (the emulated nvJPEG is "
           "off: AUG_EMU_NVJPEG=1 turns it on)";
    return nullptr;
}

bool nvjpeg_is(const void *lib) { return lib == &stand_in; }

void *nvjpeg_sym(const char *name) {
    static const struct {
        const char *name;
        void *fn;
    } table[] = {
#define EMU_NVJPEG_ENTRY(fn, params) {#fn, (void *)&counted<&fn>::call},
        AUG__NVJPEG_API(EMU_NVJPEG_ENTRY)
#undef EMU_NVJPEG_ENTRY
    };
    for (const auto &t : table)
        if (strcmp(t.name, name) == 0) return t.fn;
    return nullptr;
}

} /* namespace aug_emu */
