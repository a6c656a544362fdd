/* cuda/resize.cu: resize on the GPU (docs/resize.md), one thread per output
 * value of the batch, any source and output strides.
 *
 * The tap tables come from the core (core/resize.h) and are uploaded with the
 * image descriptors. A thread evaluates scalar/resize.h's sums for its value:
 * for each y tap the x-weighted sum of that source row (left to right), then
 * the y-weighted sum of those (top to bottom), in float or double without
 * contraction (--fmad=false) -- the very operations the CPU's separable passes
 * perform for that value, so results are the CPU's bit for bit. A gather image
 * copies the tapped element (exactly, or with saturate_cast into another dtype). */
#include <stdlib.h>
#include <string.h>
#include "cuda/values.cuh"
#include "core/resize.h"
#include "scalar/resize.h"

typedef struct resize_args {
    const aug__resize_image *img;
    const aug__resize_tap *taps;
    const float *w32;
    const double *w64;
    int64_t C, Ho, Wo, n;  /* n: values of the batch */
    int dst_dtype, chw;
} resize_args;

/* The tapped element copied: same dtype byte for byte, else through the exact value. */
AUG_DEV void copy_value(const char *s, int st, char *d, int dt) {
    if (st == dt) {
        AUG__MEM_LOAD(s, aug__ctype_size(st)), AUG__MEM_STORE(d, aug__ctype_size(st));
        memcpy(d, s, (size_t)aug__ctype_size(st));
        return;
    }
    aug__i128 iv;
    double fv;
    if (aug__load_wide(s, st, &iv, &fv)) aug__store_f64(fv, dt, d);
    else aug__store_i128(iv, dt, d);
}

AUG_GLOBAL void aug__k_resize(resize_args a) {
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += step) {
        int64_t x, y, c, n;
        if (a.chw) {
            x = i % a.Wo;
            const int64_t r = i / a.Wo;
            y = r % a.Ho;
            const int64_t q = r / a.Ho;
            c = q % a.C, n = q / a.C;
        } else {
            c = i % a.C;
            const int64_t r = i / a.C;
            x = r % a.Wo;
            const int64_t q = r / a.Wo;
            y = q % a.Ho, n = q / a.Ho;
        }
        const aug__resize_image &m = a.img[n];
        const aug__resize_tap &tx = a.taps[m.xtab + x], &ty = a.taps[m.ytab + y];
        char *out = m.dst + y * m.dh + x * m.dw + c * m.dc;
        const char *base = m.src + ty.first * m.sh + tx.first * m.sw + c * m.sc;
        if (m.gather) {
            copy_value(base, m.src_dtype, out, a.dst_dtype);
        } else if (m.compute == AUG_FLOAT32) {
            const float *wx = a.w32 + tx.woff, *wy = a.w32 + ty.woff;
            float acc = 0.0f;
            for (int64_t ky = 0; ky < ty.count; ky++) {
                const char *row = base + ky * m.sh;
                float h = aug__resize_first_f32(wx[0], aug__load_f32(row, m.src_dtype));
                for (int64_t kx = 1; kx < tx.count; kx++)
                    h = aug__resize_next_f32(h, wx[kx], aug__load_f32(row + kx * m.sw, m.src_dtype));
                acc = ky == 0 ? aug__resize_first_f32(wy[0], h) : aug__resize_next_f32(acc, wy[ky], h);
            }
            aug__store_f32(acc, a.dst_dtype, out);
        } else {
            const double *wx = a.w64 + tx.woff, *wy = a.w64 + ty.woff;
            double acc = 0.0;
            for (int64_t ky = 0; ky < ty.count; ky++) {
                const char *row = base + ky * m.sh;
                double h = aug__resize_first_f64(wx[0], aug__load_f64(row, m.src_dtype));
                for (int64_t kx = 1; kx < tx.count; kx++)
                    h = aug__resize_next_f64(h, wx[kx], aug__load_f64(row + kx * m.sw, m.src_dtype));
                acc = ky == 0 ? aug__resize_first_f64(wy[0], h) : aug__resize_next_f64(acc, wy[ky], h);
            }
            aug__store_f64(acc, a.dst_dtype, out);
        }
    }
}

static size_t align8(size_t v) { return (v + 7) & ~(size_t)7; }

aug_status aug__cuda_resize(const aug__resize_plan *p) {
    const char *func = p->func;
    const aug__exec *e = &p->exec;
    const int dev = e->device.id;
    const cudaStream_t stream = aug__cuda_stream(e);
    aug_status st = aug__cuda_use(func, dev);
    if (st) return st;
    /* the images, the taps, the float32 and the double weights, in one upload */
    const size_t oimg = 0, otap = align8(oimg + (size_t)p->n * sizeof(aug__resize_image));
    const size_t ow32 = align8(otap + (size_t)p->ntaps * sizeof(aug__resize_tap));
    const size_t ow64 = align8(ow32 + (size_t)p->nw * sizeof(float));
    const size_t bytes = ow64 + (size_t)p->nw * sizeof(double);
    char *host = (char *)malloc(bytes);
    if (!host) return AUG__NOMEM(func);
    memcpy(host + oimg, p->img, (size_t)p->n * sizeof(aug__resize_image));
    memcpy(host + otap, p->taps, (size_t)p->ntaps * sizeof(aug__resize_tap));
    memcpy(host + ow32, p->w32, (size_t)p->nw * sizeof(float));
    memcpy(host + ow64, p->w64, (size_t)p->nw * sizeof(double));
    void *tmp = NULL;
    st = aug__cuda_tmp_upload(func, dev, host, bytes, stream, &tmp);
    free(host);
    if (st) return st;
    char *dev_mem = (char *)tmp;
    resize_args a;
    a.img = (const aug__resize_image *)(const void *)(dev_mem + oimg);
    a.taps = (const aug__resize_tap *)(const void *)(dev_mem + otap);
    a.w32 = (const float *)(const void *)(dev_mem + ow32);
    a.w64 = (const double *)(const void *)(dev_mem + ow64);
    a.C = p->C, a.Ho = p->Ho, a.Wo = p->Wo, a.n = p->n * p->C * p->Ho * p->Wo;
    a.dst_dtype = p->dst_dtype, a.chw = p->chw;
    aug__cuda_grid g = aug__cuda_grid_for(e, a.n, 256);
    AUG_LAUNCH(aug__k_resize, g.blocks, g.threads, 0, stream, a);
    st = aug__cuda_launched(func, "aug__k_resize", g.blocks, g.threads);
    aug__cuda_tmp_free(dev, dev_mem, bytes, stream);
    return st;
}
