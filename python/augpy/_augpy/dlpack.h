/* _augpy/dlpack.h: the DLPack ABI (structs and constants) used by dlpack.c.
 *
 * Written from the public DLPack specification (https://dmlc.github.io/dlpack/,
 * version 1.1). Only the binary layout matters: these structs are exchanged with
 * other frameworks through PyCapsules named "dltensor" (legacy, DLManagedTensor)
 * and "dltensor_versioned" (DLPack >= 1.0, DLManagedTensorVersioned). Enum-typed
 * fields of the specification are written as fixed-width integers here: a C enum
 * is an int, so the layout is identical. */
#ifndef AUGPY_DLPACK_H
#define AUGPY_DLPACK_H

#include <stdint.h>

/* The DLPack version this extension produces and understands. */
#define AUGPY_DLPACK_MAJOR 1
#define AUGPY_DLPACK_MINOR 1

/* Device types (DLDeviceType). */
enum {
    kDLCPU = 1,
    kDLCUDA = 2,
    kDLCUDAHost = 3,     /* pinned host memory: readable from the CPU */
    kDLOpenCL = 4,
    kDLVulkan = 7,
    kDLMetal = 8,
    kDLVPI = 9,
    kDLROCM = 10,
    kDLROCMHost = 11,
    kDLExtDev = 12,
    kDLCUDAManaged = 13, /* unified memory: readable from the CPU */
    kDLOneAPI = 14,
    kDLWebGPU = 15,
    kDLHexagon = 16,
    kDLMAIA = 17
};

/* Type codes (DLDataTypeCode). */
enum {
    kDLInt = 0,
    kDLUInt = 1,
    kDLFloat = 2,
    kDLOpaqueHandle = 3,
    kDLBfloat = 4,
    kDLComplex = 5,
    kDLBool = 6
};

/* Bits of DLManagedTensorVersioned.flags. */
#define DLPACK_FLAG_BITMASK_READ_ONLY (UINT64_C(1) << 0)
#define DLPACK_FLAG_BITMASK_IS_COPIED (UINT64_C(1) << 1)
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (UINT64_C(1) << 2)

typedef struct {
    uint32_t major;
    uint32_t minor;
} DLPackVersion;

typedef struct {
    int32_t device_type; /* DLDeviceType */
    int32_t device_id;
} DLDevice;

typedef struct {
    uint8_t code;   /* DLDataTypeCode */
    uint8_t bits;
    uint16_t lanes;
} DLDataType;

typedef struct {
    void *data;           /* for CPU tensors the address of the allocation or first element */
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;       /* ndim entries (NULL allowed for ndim == 0) */
    int64_t *strides;     /* ndim entries in elements; NULL = compact row-major */
    uint64_t byte_offset; /* first element at (char *)data + byte_offset */
} DLTensor;

/* Legacy (pre-1.0) managed tensor, capsule name "dltensor". */
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

/* Versioned managed tensor (DLPack >= 1.0), capsule name "dltensor_versioned". */
typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;

#endif
