/* cuda/invert.cu: aug_invert on the GPU (core/invert.h's plan and rule).
 *
 * One grid-stride kernel per dtype over the n contiguous values, each value
 * through the rule the CPU runs (core/invert.h), so both backends store the
 * same bits (src == dst, in place, is fine: each thread reads its value before
 * writing it). */
#include "cuda/cuda.h"
#include "core/invert.h"

AUG_DEV uint8_t invert_value(uint8_t x) { return aug__invert_u8(x); }
AUG_DEV uint16_t invert_value(uint16_t x) { return aug__invert_u16(x); }
AUG_DEV float invert_value(float x) { return aug__invert_f32(x); }
AUG_DEV double invert_value(double x) { return aug__invert_f64(x); }

template <typename T> AUG_GLOBAL void aug__k_invert(const T *src, T *dst, int64_t n) {
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) dst[i] = invert_value(src[i]);
}

template <typename T> static aug_status launch(const aug__invert_plan *p, const char *name) {
    const aug__exec *e = &p->exec;
    aug__cuda_grid g = aug__cuda_grid_for(e, p->n, 256);
    AUG_LAUNCH((aug__k_invert<T>), g.blocks, g.threads, 0, aug__cuda_stream(e), (const T *)(const void *)p->src,
               (T *)(void *)p->dst, p->n);
    return aug__cuda_launched(p->func, name, g.blocks, g.threads);
}

aug_status aug__cuda_invert(const aug__invert_plan *p) {
    aug_status st = aug__cuda_use(p->func, p->exec.device.id);
    if (st) return st;
    switch (p->dtype) {
    case AUG_UINT8: return launch<uint8_t>(p, "aug__k_invert<uint8_t>");
    case AUG_UINT16: return launch<uint16_t>(p, "aug__k_invert<uint16_t>");
    case AUG_FLOAT32: return launch<float>(p, "aug__k_invert<float>");
    case AUG_FLOAT64: return launch<double>(p, "aug__k_invert<double>");
    default: return aug__error(AUG_ERR_TYPE, p->func, "invert of dtype %d is not supported on CUDA", p->dtype);
    }
}
