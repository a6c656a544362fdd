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
 * NVJPEG_OUTPUT_RGBI and the default allocators; misuse (a phase out of order,
 * no attached buffer, a state of another decoder) is INVALID_PARAMETER. */
#include "emu_nvjpeg.h"
#include "emu_internal.h"

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
};
struct nvjpegJpegDecoder {
    nvjpegBackend_t backend;
};
struct nvjpegBufferPinned {
    nvjpegHandle *handle;
    unsigned char *p = nullptr;
    size_t cap = 0;
};
struct nvjpegBufferDevice {
    nvjpegHandle *handle;
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
};

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

bool takes(const nvjpegJpegDecoder *dec, const nvjpegJpegStream *s) {
    if (s->colorspace == TJCS_CMYK || s->colorspace == TJCS_YCCK) return false;
    return dec->backend != NVJPEG_BACKEND_GPU_HYBRID || !s->progressive;
}

} /* namespace */

extern "C" {

nvjpegStatus_t nvjpegCreateEx(nvjpegBackend_t backend, nvjpegDevAllocator_t *dev_allocator,
                              nvjpegPinnedAllocator_t *pinned_allocator, unsigned int flags, nvjpegHandle_t *handle) {
    if (!handle) return NVJPEG_STATUS_INVALID_PARAMETER;
    if (dev_allocator || pinned_allocator) return NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED;
    *handle = new nvjpegHandle;
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
    delete state;
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegBufferPinnedCreate(nvjpegHandle_t handle, nvjpegPinnedAllocator_t *allocator,
                                        nvjpegBufferPinned_t *buffer) {
    if (!handle || !buffer) return NVJPEG_STATUS_INVALID_PARAMETER;
    if (allocator) return NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED;
    *buffer = new nvjpegBufferPinned{handle};
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegBufferPinnedDestroy(nvjpegBufferPinned_t buffer) {
    if (buffer) free(buffer->p); /* no wait: queued copies must be over (the caller's duty) */
    delete buffer;
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegBufferDeviceCreate(nvjpegHandle_t handle, nvjpegDevAllocator_t *allocator,
                                        nvjpegBufferDevice_t *buffer) {
    if (!handle || !buffer) return NVJPEG_STATUS_INVALID_PARAMETER;
    if (allocator) return NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED;
    *buffer = new nvjpegBufferDevice{handle};
    return NVJPEG_STATUS_SUCCESS;
}

nvjpegStatus_t nvjpegBufferDeviceDestroy(nvjpegBufferDevice_t buffer) {
    if (buffer && buffer->p) cudaFree(buffer->p);
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
    if (params->format != NVJPEG_OUTPUT_RGBI) return NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED;
    if (!takes(decoder, stream)) return NVJPEG_STATUS_JPEG_NOT_SUPPORTED;
    state->phase = nvjpegJpegState::IDLE;
    const size_t need = (size_t)stream->width * (size_t)stream->height * 3;
    nvjpegBufferPinned *b = state->pinned;
    if (b->cap < need) { /* grows in place of the old block, which is freed at once */
        unsigned char *p = (unsigned char *)malloc(need + b->handle->pinned_padding);
        if (!p) return NVJPEG_STATUS_ALLOCATOR_FAILURE;
        free(b->p);
        b->p = p, b->cap = need + b->handle->pinned_padding;
    }
    if (!state->tj && !(state->tj = tjInitDecompress())) return NVJPEG_STATUS_ALLOCATOR_FAILURE;
    if (tjDecompress2(state->tj, stream->data.data(), (unsigned long)stream->data.size(), b->p, stream->width,
                      stream->width * 3, stream->height, TJPF_RGB, EMU_TJ_FLAGS) != 0 &&
        tjGetErrorCode(state->tj) != TJERR_WARNING) /* a warning: the image is complete (grey-filled if cut) */
        return NVJPEG_STATUS_BAD_JPEG;
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
    if (d->cap < bytes) {
        if (d->p && cudaFree(d->p) != cudaSuccess) return NVJPEG_STATUS_EXECUTION_FAILED;
        d->p = nullptr, d->cap = 0;
        if (cudaMalloc(&d->p, bytes + d->handle->device_padding) != cudaSuccess) return NVJPEG_STATUS_ALLOCATOR_FAILURE;
        d->cap = bytes + d->handle->device_padding;
    }
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

} /* extern "C" */

namespace aug_emu {

static char stand_in; /* the handle nvjpeg_open returns */

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
#define EMU_NVJPEG_ENTRY(fn, params) {#fn, (void *)&fn},
        AUG__NVJPEG_API(EMU_NVJPEG_ENTRY)
#undef EMU_NVJPEG_ENTRY
    };
    for (const auto &t : table)
        if (strcmp(t.name, name) == 0) return t.fn;
    return nullptr;
}

} /* namespace aug_emu */
