/* cuda/autotone.cu: the autotone ops on the GPU (core/autotone.h's plan and rules).
 *
 * equalize and autocontrast: one block per plane (a channel of an image; the
 * blocks take plane after plane): the block's threads gather the plane's
 * statistics in shared memory (a histogram by integer atomics, in global
 * memory for uint16's 65536 bins; a minimum and a
 * maximum, whose rules in core/autotone.h make the order irrelevant), one
 * thread turns them into the plane's lookup table or stretch, and the block
 * maps the plane (in place is fine: the plane is read whole first). So both
 * backends store the same bits. Channels-last images (HWC) go one block per image
 * instead (aug__k_autocontrast_px, aug__k_equalize_px: up to PX_CHANNELS
 * channels): a block of a multiple of C threads walks the image's values in
 * memory order, so thread t always meets channel t mod C and a warp reads
 * consecutive values (a block per plane read every C-th value: a third of each
 * sector used for RGB). adjust_sharpness: one thread per value (grid-
 * stride), each from its 3 x 3 neighbourhood in src (the core hands a copy for
 * in place), with its image's 1 - factor: by value when one serves every
 * image, else from a device copy uploaded through the staging ring. */
#include <stdio.h>
#include "cuda/cuda.h"
#include "core/autotone.h"

#define THREADS 256

/* Where plane `plane` starts and its pixel step. */
struct geo {
    int64_t channels, hw, ps, cs;
};

AUG_DEV int64_t plane_base(const geo &g, int64_t plane) {
    const int64_t img = plane / g.channels, ch = plane - img * g.channels;
    return img * g.channels * g.hw + ch * g.cs;
}

AUG_DEV float load(const uint8_t *s, int64_t i) { return (float)AUG_LD(s + i); }
AUG_DEV float load(const uint16_t *s, int64_t i) { return (float)AUG_LD(s + i); }
AUG_DEV float load(const float *s, int64_t i) { return AUG_LD(s + i); }
AUG_DEV void store(uint8_t *d, int64_t i, float v) { AUG_ST(d + i, (uint8_t)v); }
AUG_DEV void store(uint16_t *d, int64_t i, float v) { AUG_ST(d + i, (uint16_t)v); }
AUG_DEV void store(float *d, int64_t i, float v) { AUG_ST(d + i, v); }

/* The value class of T (core/autotone.h): 1 uint8, 2 uint16, 0 float32. */
template <typename T> AUG_DEV int cls_of() { return sizeof(T) == 1 ? 1 : sizeof(T) == 2 ? 2 : 0; }

template <typename T>
AUG_GLOBAL_BOUNDED(THREADS) void aug__k_autocontrast(const T *src, T *dst, geo g, int64_t planes) {
    AUG_SHARED(float, lo, THREADS);
    AUG_SHARED(float, hi, THREADS);
    const int cls = cls_of<T>();
    for (int64_t p = blockIdx.x; p < planes; p += gridDim.x) {
        const int64_t base = plane_base(g, p);
        float l = INFINITY, h = -INFINITY;
        for (int64_t i = threadIdx.x; i < g.hw; i += blockDim.x) {
            const float x = load(src, base + i * g.ps);
            l = aug__autotone_min(l, x), h = aug__autotone_max(h, x);
        }
        lo[threadIdx.x] = l, hi[threadIdx.x] = h;
        __syncthreads();
        for (unsigned n = blockDim.x; n > 1;) { /* any block size: fold the top half onto the bottom */
            const unsigned half = (n + 1) / 2;
            if (threadIdx.x + half < n) {
                lo[threadIdx.x] = aug__autotone_min(lo[threadIdx.x], lo[threadIdx.x + half]);
                hi[threadIdx.x] = aug__autotone_max(hi[threadIdx.x], hi[threadIdx.x + half]);
            }
            n = half;
            __syncthreads();
        }
        const aug__autotone_stretch st = aug__autocontrast_stretch(lo[0], hi[0], cls);
        for (int64_t i = threadIdx.x; i < g.hw; i += blockDim.x) {
            const int64_t k = base + i * g.ps;
            if (cls == 1) store(dst, k, (float)aug__autocontrast_u8((uint8_t)load(src, k), st));
            else if (cls == 2) store(dst, k, (float)aug__autocontrast_u16((uint16_t)load(src, k), st));
            else store(dst, k, aug__autocontrast_f32(load(src, k), st));
        }
        __syncthreads(); /* lo[0], hi[0] read by all before the next plane */
    }
}

/* Channels-last, one block per image of C <= blockDim.x channels: the threads
 * that walk the values, a multiple of lcm(C, 32) where the block allows (each warp
 * reads whole aligned runs of 32 values), else of C; thread t only meets channel
 * t mod C. */
AUG_DEV int64_t px_threads(int64_t C) {
    const int64_t two = (C & -C) < 32 ? (C & -C) : 32, l = 32 * C / two;
    return blockDim.x >= l ? blockDim.x / l * l : blockDim.x / C * C;
}

template <typename T>
AUG_GLOBAL_BOUNDED(THREADS) void aug__k_autocontrast_px(const T *src, T *dst, geo g, int64_t images) {
    AUG_SHARED(float, lo, THREADS);
    AUG_SHARED(float, hi, THREADS);
    const int cls = cls_of<T>();
    const int64_t C = g.channels, per = C * g.hw, tc = px_threads(C);
    for (int64_t img = blockIdx.x; img < images; img += gridDim.x) {
        const int64_t base = img * per;
        float l = INFINITY, h = -INFINITY;
        for (int64_t i = threadIdx.x; threadIdx.x < tc && i < per; i += tc) {
            const float x = load(src, base + i);
            l = aug__autotone_min(l, x), h = aug__autotone_max(h, x);
        }
        lo[threadIdx.x] = l, hi[threadIdx.x] = h;
        __syncthreads();
        for (int64_t n = tc / C; n > 1;) { /* fold the top half of each channel's threads onto the bottom */
            const int64_t half = (n + 1) / 2;
            if (threadIdx.x + half * C < n * C) {
                lo[threadIdx.x] = aug__autotone_min(lo[threadIdx.x], lo[threadIdx.x + half * C]);
                hi[threadIdx.x] = aug__autotone_max(hi[threadIdx.x], hi[threadIdx.x + half * C]);
            }
            n = half;
            __syncthreads();
        }
        const int64_t c = threadIdx.x % C;
        const aug__autotone_stretch st = aug__autocontrast_stretch(lo[c], hi[c], cls);
        for (int64_t i = threadIdx.x; threadIdx.x < tc && i < per; i += tc) {
            const int64_t k = base + i;
            if (cls == 1) store(dst, k, (float)aug__autocontrast_u8((uint8_t)load(src, k), st));
            else if (cls == 2) store(dst, k, (float)aug__autocontrast_u16((uint16_t)load(src, k), st));
            else store(dst, k, aug__autocontrast_f32(load(src, k), st));
        }
        __syncthreads(); /* lo, hi read by all before the next image */
    }
}

AUG_DEV uint8_t level(const uint8_t *s, int64_t i) { return AUG_LD(s + i); }
AUG_DEV uint8_t level(const float *s, int64_t i) { return aug__equalize_level(AUG_LD(s + i)); }
AUG_DEV void put_level(uint8_t *d, int64_t i, uint8_t l) { AUG_ST(d + i, l); }
AUG_DEV void put_level(float *d, int64_t i, uint8_t l) { AUG_ST(d + i, aug__equalize_value(l)); }

template <typename T>
AUG_GLOBAL_BOUNDED(THREADS) void aug__k_equalize(const T *src, T *dst, geo g, int64_t planes) {
    AUG_SHARED(uint32_t, hist, 256);
    AUG_SHARED(uint8_t, lut, 256);
    for (int64_t p = blockIdx.x; p < planes; p += gridDim.x) {
        const int64_t base = plane_base(g, p);
        for (unsigned k = threadIdx.x; k < 256; k += blockDim.x) hist[k] = 0;
        __syncthreads();
        for (int64_t i = threadIdx.x; i < g.hw; i += blockDim.x) atomicAdd(&hist[level(src, base + i * g.ps)], 1u);
        __syncthreads();
        if (threadIdx.x == 0) aug__equalize_lut(hist, lut);
        __syncthreads();
        for (int64_t i = threadIdx.x; i < g.hw; i += blockDim.x) {
            const int64_t k = base + i * g.ps;
            put_level(dst, k, lut[level(src, k)]);
        }
        __syncthreads(); /* lut read by all before the next plane's histogram */
    }
}

/* Channels of an image the one-block-per-image kernels take. */
#define PX_CHANNELS 4

template <typename T>
AUG_GLOBAL_BOUNDED(THREADS) void aug__k_equalize_px(const T *src, T *dst, geo g, int64_t images) {
    AUG_SHARED(uint32_t, hist, 256 * PX_CHANNELS);
    AUG_SHARED(uint8_t, lut, 256 * PX_CHANNELS);
    const int64_t C = g.channels, per = C * g.hw, tc = px_threads(C);
    const unsigned c = (unsigned)(threadIdx.x % C);
    for (int64_t img = blockIdx.x; img < images; img += gridDim.x) {
        const int64_t base = img * per;
        for (unsigned k = threadIdx.x; k < 256 * C; k += blockDim.x) hist[k] = 0;
        __syncthreads();
        for (int64_t i = threadIdx.x; threadIdx.x < tc && i < per; i += tc)
            atomicAdd(&hist[c * 256 + level(src, base + i)], 1u);
        __syncthreads();
        if (threadIdx.x < C) aug__equalize_lut(hist + threadIdx.x * 256, lut + threadIdx.x * 256);
        __syncthreads();
        for (int64_t i = threadIdx.x; threadIdx.x < tc && i < per; i += tc) {
            const int64_t k = base + i;
            put_level(dst, k, lut[c * 256 + level(src, k)]);
        }
        __syncthreads(); /* lut read by all before the next image's histograms */
    }
}

/* uint16: 65536 bins per plane, in global memory (hists, luts: 65536 entries
 * per block; the blocks take plane after plane). The table from the histogram
 * in parallel: thread t sums its run of `per` bins and finds its highest bin
 * present, thread 0 turns the sums into each run's count before it (in run
 * order) and settles d, each thread fills its run's entries
 * (aug__equalize16_entry: integer arithmetic, so the CPU's serial table is
 * the same). */
AUG_GLOBAL_BOUNDED(THREADS) void aug__k_equalize16(const uint16_t *src, uint16_t *dst, geo g, int64_t planes,
                                                   uint32_t *hists, uint16_t *luts) {
    AUG_SHARED(uint64_t, before, THREADS); /* a run's count, then the count of the bins before it */
    AUG_SHARED(uint32_t, high, THREADS);   /* a run's highest bin present + 1, 0: none */
    AUG_SHARED(uint64_t, dd, 1);
    uint32_t *hist = hists + (int64_t)blockIdx.x * 65536;
    uint16_t *lut = luts + (int64_t)blockIdx.x * 65536;
    const unsigned per = (65536u + blockDim.x - 1) / blockDim.x, k0 = threadIdx.x * per;
    const unsigned k1 = k0 + per < 65536u ? k0 + per : 65536u;
    for (int64_t p = blockIdx.x; p < planes; p += gridDim.x) {
        const int64_t base = plane_base(g, p);
        for (unsigned k = threadIdx.x; k < 65536u; k += blockDim.x) hist[k] = 0;
        __syncthreads();
        for (int64_t i = threadIdx.x; i < g.hw; i += blockDim.x) atomicAdd(&hist[AUG_LD(src + base + i * g.ps)], 1u);
        __syncthreads();
        uint64_t sum = 0;
        uint32_t top = 0;
        for (unsigned k = k0; k < k1; k++) {
            sum += hist[k];
            if (hist[k]) top = k + 1;
        }
        before[threadIdx.x] = sum, high[threadIdx.x] = top;
        __syncthreads();
        if (threadIdx.x == 0) {
            uint64_t cum = 0;
            uint32_t t = 0;
            for (unsigned j = 0; j < blockDim.x; j++) {
                const uint64_t n = before[j];
                before[j] = cum, cum += n;
                if (high[j]) t = high[j];
            }
            dd[0] = cum - (t ? hist[t - 1] : 0);
        }
        __syncthreads();
        const uint64_t d = dd[0];
        uint64_t cum = before[threadIdx.x];
        for (unsigned k = k0; k < k1; k++) {
            const uint32_t h = hist[k];
            if (h) lut[k] = d == 0 ? (uint16_t)k : k == 0 ? 0 : aug__equalize16_entry(cum, d); /* absent: unread */
            cum += h;
        }
        __syncthreads();
        for (int64_t i = threadIdx.x; i < g.hw; i += blockDim.x) {
            const int64_t k = base + i * g.ps;
            AUG_ST(dst + k, lut[AUG_LD(src + k)]);
        }
        __syncthreads(); /* lut read by all before the next plane's histogram */
    }
}

/* Blocks of a uint16 equalize: each holds 384 KiB of device scratch. */
#define EQ16_BLOCKS 32

template <typename T>
AUG_GLOBAL_BOUNDED(THREADS) void aug__k_sharpness(const T *src, T *dst, geo g, int64_t h, int64_t w, int64_t total,
                                                   const float *alphas, float one) {
    const int cls = cls_of<T>(), small = h <= 2 || w <= 2;
    const int64_t per_image = g.channels * g.hw;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
        /* i is the i-th stored value: its image, channel and pixel */
        const int64_t img = i / per_image, r = i - img * per_image;
        const int64_t ch = g.ps > 1 ? r % g.channels : r / g.hw, pix = g.ps > 1 ? r / g.channels : r % g.hw;
        const int64_t y = pix / w, x = pix - y * w, base = img * per_image + ch * g.cs;
        float out = load(src, i);
        if (!small && y > 0 && y < h - 1 && x > 0 && x < w - 1) {
            float v[9];
            AUG_UNROLL
            for (int k = 0; k < 9; k++) v[k] = load(src, base + ((y + k / 3 - 1) * w + x + k % 3 - 1) * g.ps);
            out = aug__sharpness_blend(v, alphas ? alphas[img] : one, cls);
        } else if (!small && !cls) {
            out = aug__sharpness_border_f32(out);
        }
        store(dst, i, out);
    }
}

template <typename T>
static aug_status launch_equalize(const aug__autotone_plan *p, aug__cuda_grid gr, cudaStream_t stream, const T *src,
                                  T *dst, const geo &g, int64_t planes, const char *name) {
    AUG_LAUNCH((aug__k_equalize<T>), gr.blocks, gr.threads, 0, stream, src, dst, g, planes);
    return aug__cuda_launched(p->func, name, gr.blocks, gr.threads);
}

/* uint16: the 65536-bin kernel with its scratch (overload resolution picks
 * this over the template). */
static aug_status launch_equalize(const aug__autotone_plan *p, aug__cuda_grid gr, cudaStream_t stream,
                                  const uint16_t *src, uint16_t *dst, const geo &g, int64_t planes, const char *) {
    const int dev = p->exec.device.id;
    if (gr.blocks > EQ16_BLOCKS) gr.blocks = EQ16_BLOCKS;
    const size_t hist_bytes = (size_t)gr.blocks * 65536 * sizeof(uint32_t);
    const size_t bytes = hist_bytes + (size_t)gr.blocks * 65536 * sizeof(uint16_t);
    char *scratch = (char *)aug__cuda_tmp_alloc(p->func, dev, bytes, stream);
    if (!scratch) return AUG_ERR_MEMORY; /* tmp_alloc records its error */
    AUG_LAUNCH(aug__k_equalize16, gr.blocks, gr.threads, 0, stream, src, dst, g, planes,
               (uint32_t *)(void *)scratch, (uint16_t *)(void *)(scratch + hist_bytes));
    aug_status st = aug__cuda_launched(p->func, "aug__k_equalize16", gr.blocks, gr.threads);
    aug__cuda_tmp_free(dev, scratch, bytes, stream);
    return st;
}

template <typename T>
static void launch_equalize_px(aug__cuda_grid gr, cudaStream_t stream, const T *src, T *dst, const geo &g,
                               int64_t images) {
    AUG_LAUNCH((aug__k_equalize_px<T>), gr.blocks, gr.threads, 0, stream, src, dst, g, images);
}
/* uint16 has no one-block-per-image equalize (65536 bins per channel): never called. */
static void launch_equalize_px(aug__cuda_grid, cudaStream_t, const uint16_t *, uint16_t *, const geo &, int64_t) {}

template <typename T> static aug_status launch(const aug__autotone_plan *p, const char *name) {
    const aug__exec *e = &p->exec;
    cudaStream_t stream = aug__cuda_stream(e);
    const int64_t hw = p->height * p->width, planes = p->images * p->channels;
    const geo g = {p->channels, hw, p->channels_last ? p->channels : 1, p->channels_last ? 1 : hw};
    const T *src = (const T *)(const void *)p->src;
    T *dst = (T *)(void *)p->dst;
    if (p->kind != AUG__AUTOTONE_SHARPNESS) {
        aug__cuda_grid gr = aug__cuda_grid_for(e, planes * THREADS, THREADS);
        gr.threads = aug__cuda_bounded(gr.threads, THREADS); /* the shared arrays' size */
        const int eq = p->kind == AUG__AUTOTONE_EQUALIZE;
        if (g.ps > 1 && g.channels <= PX_CHANNELS && (int64_t)gr.threads >= g.channels &&
            gr.threads <= THREADS && !(eq && sizeof(T) == 2)) { /* channels last: a block per image */
            char pxname[80];
            snprintf(pxname, sizeof pxname, "%s_px%s", eq ? "aug__k_equalize" : "aug__k_autocontrast",
                     name + (eq ? 15 : 19)); /* the <type> of name */
            if ((int64_t)gr.blocks > p->images) gr.blocks = (unsigned)p->images;
            if (eq) launch_equalize_px(gr, stream, src, dst, g, p->images);
            else AUG_LAUNCH((aug__k_autocontrast_px<T>), gr.blocks, gr.threads, 0, stream, src, dst, g, p->images);
            return aug__cuda_launched(p->func, pxname, gr.blocks, gr.threads);
        }
        if (eq) return launch_equalize(p, gr, stream, src, dst, g, planes, name);
        AUG_LAUNCH((aug__k_autocontrast<T>), gr.blocks, gr.threads, 0, stream, src, dst, g, planes);
        return aug__cuda_launched(p->func, name, gr.blocks, gr.threads);
    }
    const int64_t total = planes * hw;
    aug__cuda_grid gr = aug__cuda_grid_for(e, total, THREADS);
    void *alphas = NULL;
    const size_t bytes = (size_t)p->alphas * sizeof(float);
    if (p->alphas > 1) {
        aug_status st = aug__cuda_tmp_upload(p->func, e->device.id, p->alpha, bytes, stream, &alphas);
        if (st) return st;
    }
    AUG_LAUNCH((aug__k_sharpness<T>), gr.blocks, gr.threads, 0, stream, src, dst, g, p->height, p->width, total,
               (const float *)alphas, p->alpha[0]);
    aug_status st = aug__cuda_launched(p->func, name, gr.blocks, gr.threads);
    if (alphas) aug__cuda_tmp_free(e->device.id, alphas, bytes, stream);
    return st;
}

aug_status aug__cuda_autotone(const aug__autotone_plan *p) {
    static const char *const kernels[AUG__AUTOTONE_NKINDS] = {"aug__k_autocontrast", "aug__k_equalize",
                                                              "aug__k_sharpness"};
    aug_status st = aug__cuda_use(p->func, p->exec.device.id);
    if (st) return st;
    if (p->kind < 0 || p->kind >= AUG__AUTOTONE_NKINDS)
        return aug__error(AUG_ERR_VALUE, p->func, "unknown autotone operation %d", p->kind);
    char name[64];
    switch (p->dtype) {
    case AUG_UINT8: return snprintf(name, sizeof name, "%s<uint8_t>", kernels[p->kind]), launch<uint8_t>(p, name);
    case AUG_UINT16: return snprintf(name, sizeof name, "%s<uint16_t>", kernels[p->kind]), launch<uint16_t>(p, name);
    case AUG_FLOAT32: return snprintf(name, sizeof name, "%s<float>", kernels[p->kind]), launch<float>(p, name);
    default: return aug__error(AUG_ERR_TYPE, p->func, "dtype %d is not supported on CUDA", p->dtype);
    }
}
