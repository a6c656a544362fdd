/* cuda/tone.cu: the tone ops on the GPU (core/tone.h's plan and rules).
 *
 * One kernel per kind and dtype (generated from AUG__TONE_KINDS), each value
 * through the rule the CPU runs (core/tone.h), so both backends store the same
 * bits (src == dst, in place, is fine: each thread reads its value before
 * writing it). The values are cut into chunks of CHUNK values that never span
 * two images; a block takes chunk after chunk (grid-stride) and reads its
 * image's operands once per chunk: by value when one set serves every image,
 * else from a device copy uploaded through the staging ring (no host wait). */
#include <stdio.h>
#include "cuda/cuda.h"
#include "core/tone.h"

#define THREADS 256
#define PER_THREAD 4
#define CHUNK ((int64_t)THREADS * PER_THREAD)

template <int K> struct tone_rule;
#define RULE(K, name)                                                                                        \
    template <> struct tone_rule<AUG__TONE_##K> {                                                            \
        static AUG_DEV uint8_t apply(uint8_t x, const aug__tone_arg *a) { return aug__tone_##name##_u8(x, a); } \
        static AUG_DEV uint16_t apply(uint16_t x, const aug__tone_arg *a) { return aug__tone_##name##_u16(x, a); } \
        static AUG_DEV float apply(float x, const aug__tone_arg *a) { return aug__tone_##name##_f32(x, a); }     \
        static AUG_DEV double apply(double x, const aug__tone_arg *a) { return aug__tone_##name##_f64(x, a); }   \
    };
AUG__TONE_KINDS(RULE)
#undef RULE

template <int K, typename T>
AUG_GLOBAL void aug__k_tone(const T *src, T *dst, int64_t per_image, int64_t chunks_per_image, int64_t chunks,
                            const aug__tone_arg *args, aug__tone_arg one) {
    for (int64_t c = blockIdx.x; c < chunks; c += gridDim.x) {
        const int64_t img = c / chunks_per_image, first = (c - img * chunks_per_image) * CHUNK;
        const int64_t end = first + CHUNK < per_image ? first + CHUNK : per_image;
        const aug__tone_arg a = args ? args[img] : one;
        const T *s = src + img * per_image;
        T *d = dst + img * per_image;
        for (int64_t i = first + threadIdx.x; i < end; i += blockDim.x) AUG_ST(d + i, tone_rule<K>::apply(AUG_LD(s + i), &a));
    }
}

template <int K, typename T> static aug_status launch(const aug__tone_plan *p, const char *name) {
    const aug__exec *e = &p->exec;
    cudaStream_t stream = aug__cuda_stream(e);
    const int64_t cpi = (p->per_image + CHUNK - 1) / CHUNK, chunks = cpi * p->images;
    aug__cuda_grid g = aug__cuda_grid_for(e, chunks * THREADS, THREADS);
    void *args = NULL;
    const size_t bytes = (size_t)p->images * sizeof(aug__tone_arg);
    if (p->images > 1) {
        aug_status st = aug__cuda_tmp_upload(p->func, e->device.id, p->args, bytes, stream, &args);
        if (st) return st;
    }
    AUG_LAUNCH((aug__k_tone<K, T>), g.blocks, g.threads, 0, stream, (const T *)(const void *)p->src,
               (T *)(void *)p->dst, p->per_image, cpi, chunks, (const aug__tone_arg *)args, p->args[0]);
    aug_status st = aug__cuda_launched(p->func, name, g.blocks, g.threads);
    if (args) aug__cuda_tmp_free(e->device.id, args, bytes, stream);
    return st;
}

template <int K> static aug_status launch_dtype(const aug__tone_plan *p, const char *kernel) {
    char name[96];
    switch (p->dtype) {
    case AUG_UINT8: return snprintf(name, sizeof name, "%s<uint8_t>", kernel), launch<K, uint8_t>(p, name);
    case AUG_UINT16: return snprintf(name, sizeof name, "%s<uint16_t>", kernel), launch<K, uint16_t>(p, name);
    case AUG_FLOAT32: return snprintf(name, sizeof name, "%s<float>", kernel), launch<K, float>(p, name);
    case AUG_FLOAT64: return snprintf(name, sizeof name, "%s<double>", kernel), launch<K, double>(p, name);
    default: return aug__error(AUG_ERR_TYPE, p->func, "dtype %d is not supported on CUDA", p->dtype);
    }
}

aug_status aug__cuda_tone(const aug__tone_plan *p) {
    aug_status st = aug__cuda_use(p->func, p->exec.device.id);
    if (st) return st;
    switch (p->kind) {
#define CASE(K, name) \
    case AUG__TONE_##K: return launch_dtype<AUG__TONE_##K>(p, "aug__k_tone<" #name ">");
        AUG__TONE_KINDS(CASE)
#undef CASE
    default: return aug__error(AUG_ERR_VALUE, p->func, "unknown tone operation %d", p->kind);
    }
}
