/* cpu/backend.c: the CPU backend table (core/backend.h).
 *
 * Host memory is 64-byte aligned (one cache line, and the widest SIMD vector,
 * AVX-512) and sizes are rounded up to a multiple of 64, so a zero-byte request
 * still returns a unique, freeable pointer. The compute entries live in their
 * family files (cpu.h). */
#include <stdlib.h>
#include <string.h>
#include "cpu.h"
#include "core/tensor_impl.h"

#define CPU_ALIGN 64

static void *cpu_alloc(int device_id, size_t nbytes) {
    (void)device_id;
    if (nbytes > SIZE_MAX - CPU_ALIGN) return NULL;
    size_t rounded = (nbytes + CPU_ALIGN - 1) / CPU_ALIGN * CPU_ALIGN;
    if (rounded == 0) rounded = CPU_ALIGN;
    return aligned_alloc(CPU_ALIGN, rounded);
}

static void cpu_free(int device_id, void *ptr) {
    (void)device_id;
    free(ptr);
}

static aug_status cpu_memcpy(void *dst, aug_device dst_dev, const void *src, aug_device src_dev, size_t n) {
    if (dst_dev.type != AUG_DEVICE_CPU || src_dev.type != AUG_DEVICE_CPU) {
        char a[48], b[48];
        return aug__error(AUG_ERR_VALUE, "aug_copy", "the cpu backend cannot copy from %s to %s",
                          aug__device_str(src_dev, a, sizeof a), aug__device_str(dst_dev, b, sizeof b));
    }
    if (n > 0) memmove(dst, src, n);
    return AUG_OK;
}

const aug__backend aug__cpu_backend = {
    .name = "cpu",
    .type = AUG_DEVICE_CPU,
    .alloc = cpu_alloc,
    .free = cpu_free,
    .memcpy = cpu_memcpy,
    .elementwise = aug__cpu_elementwise,
    .reduce = aug__cpu_reduce,
    .gemm = aug__cpu_gemm,
    .random = aug__cpu_random,
    .warp_affine = aug__cpu_warp_affine,
    .lighting = aug__cpu_lighting,
    .blur = aug__cpu_blur,
};
