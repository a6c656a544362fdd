/* cuda/nvjpeg_api.h: the nvJPEG functions the CUDA module calls, as one list
 * (private). cuda/jpeg.cu resolves them with dlsym from libnvjpeg.so.13 at run
 * time, so the module loads without nvJPEG; tests/c/nvjpeg_link_check.c
 * links them against the library the build found, so a missing or renamed
 * symbol fails the build instead of a GPU machine.
 *
 * AUG__NVJPEG_API(X): X(name, (parameter types)) for each. */
#ifndef AUG_CUDA_NVJPEG_API_H
#define AUG_CUDA_NVJPEG_API_H

#include <nvjpeg.h>

#define AUG__NVJPEG_API(X)                                                                                     \
    X(nvjpegCreateExV2, (nvjpegBackend_t, nvjpegDevAllocatorV2_t *, nvjpegPinnedAllocatorV2_t *, unsigned int, \
                         nvjpegHandle_t *))                                                                    \
    X(nvjpegDestroy, (nvjpegHandle_t))                                                                         \
    X(nvjpegSetDeviceMemoryPadding, (size_t, nvjpegHandle_t))                                                  \
    X(nvjpegSetPinnedMemoryPadding, (size_t, nvjpegHandle_t))                                                  \
    X(nvjpegDecoderCreate, (nvjpegHandle_t, nvjpegBackend_t, nvjpegJpegDecoder_t *))                           \
    X(nvjpegDecoderDestroy, (nvjpegJpegDecoder_t))                                                             \
    X(nvjpegDecoderStateCreate, (nvjpegHandle_t, nvjpegJpegDecoder_t, nvjpegJpegState_t *))                    \
    X(nvjpegJpegStateDestroy, (nvjpegJpegState_t))                                                             \
    X(nvjpegBufferPinnedCreateV2, (nvjpegHandle_t, nvjpegPinnedAllocatorV2_t *, nvjpegBufferPinned_t *))       \
    X(nvjpegBufferPinnedDestroy, (nvjpegBufferPinned_t))                                                       \
    X(nvjpegBufferDeviceCreateV2, (nvjpegHandle_t, nvjpegDevAllocatorV2_t *, nvjpegBufferDevice_t *))          \
    X(nvjpegBufferDeviceDestroy, (nvjpegBufferDevice_t))                                                       \
    X(nvjpegStateAttachPinnedBuffer, (nvjpegJpegState_t, nvjpegBufferPinned_t))                                \
    X(nvjpegStateAttachDeviceBuffer, (nvjpegJpegState_t, nvjpegBufferDevice_t))                                \
    X(nvjpegJpegStreamCreate, (nvjpegHandle_t, nvjpegJpegStream_t *))                                          \
    X(nvjpegJpegStreamDestroy, (nvjpegJpegStream_t))                                                           \
    X(nvjpegJpegStreamParse, (nvjpegHandle_t, const unsigned char *, size_t, int, int, nvjpegJpegStream_t))    \
    X(nvjpegDecodeParamsCreate, (nvjpegHandle_t, nvjpegDecodeParams_t *))                                      \
    X(nvjpegDecodeParamsDestroy, (nvjpegDecodeParams_t))                                                       \
    X(nvjpegDecodeParamsSetOutputFormat, (nvjpegDecodeParams_t, nvjpegOutputFormat_t))                         \
    X(nvjpegDecoderJpegSupported, (nvjpegJpegDecoder_t, nvjpegJpegStream_t, nvjpegDecodeParams_t, int *))      \
    X(nvjpegDecodeJpegHost, (nvjpegHandle_t, nvjpegJpegDecoder_t, nvjpegJpegState_t, nvjpegDecodeParams_t,     \
                             nvjpegJpegStream_t))                                                              \
    X(nvjpegDecodeJpegTransferToDevice, (nvjpegHandle_t, nvjpegJpegDecoder_t, nvjpegJpegState_t,               \
                                         nvjpegJpegStream_t, cudaStream_t))                                    \
    X(nvjpegDecodeJpegDevice, (nvjpegHandle_t, nvjpegJpegDecoder_t, nvjpegJpegState_t, nvjpegImage_t *,        \
                               cudaStream_t))                                                          \
    X(nvjpegJpegStateCreate, (nvjpegHandle_t, nvjpegJpegState_t *))                                            \
    X(nvjpegDecodeBatchedInitialize, (nvjpegHandle_t, nvjpegJpegState_t, int, int, nvjpegOutputFormat_t))      \
    X(nvjpegDecodeBatchedSupported, (nvjpegHandle_t, nvjpegJpegStream_t, int *))                               \
    X(nvjpegDecodeBatched, (nvjpegHandle_t, nvjpegJpegState_t, const unsigned char *const *, const size_t *,   \
                            nvjpegImage_t *, cudaStream_t))

#endif
