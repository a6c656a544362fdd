/* cuda/resize.cu: resize on the GPU (docs/resize.md), any source and output strides.
 *
 * The tap tables come from the core (core/resize.h) and are uploaded with the
 * image descriptors. A thread evaluates scalar/resize.h's sums for its value:
 * for each y tap the x-weighted sum of that source row (left to right), then
 * the y-weighted sum of those (top to bottom), in float or double without
 * contraction (--fmad=false) -- the very operations the CPU's separable passes
 * perform for that value, so results are the CPU's bit for bit. A gather image
 * copies the tapped element (exactly, or with saturate_cast into another dtype).
 *
 * Two kernels. aug__k_resize_rows (the usual case: sources whose pixels of a row
 * lie side by side, CHW planes or interleaved HWC) gives a block T consecutive
 * output values of one row (of one plane for CHW output, of all channels for
 * HWC output); for each y tap the block first copies the source row's span its
 * values tap into shared memory, in 4-byte words read by consecutive threads
 * (coalesced: a 2x shrink no longer reads every other byte per request), and each
 * thread then sums its taps from there. aug__k_resize (one thread per output value,
 * taps read from global memory) takes the rest: gathers, other strides, spans over
 * the shared-memory budget. */
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

/* The x-weighted sum of count taps from row (one element every step bytes). */
AUG_DEV float hsum(const char *row, int64_t step, const float *w, int64_t count, int dt) {
    float h = aug__resize_first_f32(w[0], aug__load_f32(row, dt));
    for (int64_t k = 1; k < count; k++) h = aug__resize_next_f32(h, w[k], aug__load_f32(row + k * step, dt));
    return h;
}
AUG_DEV double hsum(const char *row, int64_t step, const double *w, int64_t count, int dt) {
    double h = aug__resize_first_f64(w[0], aug__load_f64(row, dt));
    for (int64_t k = 1; k < count; k++) h = aug__resize_next_f64(h, w[k], aug__load_f64(row + k * step, dt));
    return h;
}
AUG_DEV float vstep(float acc, int64_t ky, float w, float h) {
    return ky == 0 ? aug__resize_first_f32(w, h) : aug__resize_next_f32(acc, w, h);
}
AUG_DEV double vstep(double acc, int64_t ky, double w, double h) {
    return ky == 0 ? aug__resize_first_f64(w, h) : aug__resize_next_f64(acc, w, h);
}
AUG_DEV void store_acc(float v, int dt, char *out) { aug__store_f32(v, dt, out); }
AUG_DEV void store_acc(double v, int dt, char *out) { aug__store_f64(v, dt, out); }

/* Bytes [g, g + len) of global memory to sm + (g mod 4). A short span (under 128
 * bytes) byte by byte, thread t taking the byte at t of the 32-byte sector g lies
 * in (each warp one whole sector); a longer one as whole 4-byte words by
 * consecutive threads from the first 32-byte boundary (four whole sectors a warp),
 * the bytes before it and the last len mod 4 one per thread. */
AUG_DEV void stage_span(const char *g, int64_t len, unsigned char *sm) {
    unsigned char *s = sm + (uintptr_t)g % 4;
    if (len < 128) {
        const int64_t lead = (int64_t)((uintptr_t)g % 32);
        for (int64_t e = threadIdx.x - lead; e < len; e += blockDim.x)
            if (e >= 0) s[e] = AUG_LD((const unsigned char *)g + e);
        return;
    }
    const int64_t head = (int64_t)((32 - (uintptr_t)g % 32) % 32);
    const int64_t words = (len - head) / 4, tail = len - head - words * 4;
    const uint32_t *gw = (const uint32_t *)(const void *)(g + head);
    uint32_t *sw = (uint32_t *)(void *)(s + head);
    for (int64_t k = threadIdx.x; k < words; k += blockDim.x) sw[k] = AUG_LD(gw + k);
    for (int64_t e = threadIdx.x; e < head + tail; e += blockDim.x) {
        const int64_t b = e < head ? e : e + words * 4;
        s[b] = AUG_LD((const unsigned char *)g + b);
    }
}

/* One block per segment: T = blockDim.x consecutive values of an output row,
 * `segs` segments per row (a.chw: a row of one plane, Wo values; else Wo * C
 * values, channels fastest). */
template <typename F>
AUG_DEV void resize_segment(const resize_args &a, const aug__resize_image &m, int64_t xs, int64_t y, int64_t plane,
                            unsigned char *sm) {
    const int64_t cr = a.chw ? 1 : a.C;
    const int64_t v0 = xs * blockDim.x, vend = v0 + blockDim.x < a.Wo * cr ? v0 + blockDim.x : a.Wo * cr;
    const int64_t v = v0 + threadIdx.x, x = v / cr, c = a.chw ? plane : v - x * cr;
    const aug__resize_tap &ty = a.taps[m.ytab + y], &t0 = a.taps[m.xtab + v0 / cr];
    const aug__resize_tap &tl = a.taps[m.xtab + (vend - 1) / cr];
    const int64_t lo = t0.first, len = (tl.first + tl.count - lo) * m.sw;
    const F *w = sizeof(F) == 4 ? (const F *)(const void *)a.w32 : (const F *)(const void *)a.w64;
    F acc = 0;
    const aug__resize_tap *tx = v < vend ? &a.taps[m.xtab + x] : &t0;
    for (int64_t ky = 0; ky < ty.count; ky++) {
        const char *g = m.src + (ty.first + ky) * m.sh + plane * m.sc + lo * m.sw;
        __syncthreads(); /* the previous row's span read by all */
        stage_span(g, len, sm);
        __syncthreads();
        if (v < vend) {
            const char *p = (const char *)sm + ((uintptr_t)g & 3) + (tx->first - lo) * m.sw + (a.chw ? 0 : c * m.sc);
            acc = vstep(acc, ky, w[ty.woff + ky], hsum(p, m.sw, w + tx->woff, tx->count, m.src_dtype));
        }
    }
    if (v < vend) store_acc(acc, a.dst_dtype, m.dst + y * m.dh + x * m.dw + c * m.dc);
}

AUG_GLOBAL void aug__k_resize_rows(resize_args a, int64_t segs, int64_t nseg) {
    AUG_SHARED_DYN(unsigned char, sm);
    for (int64_t s = blockIdx.x; s < nseg; s += gridDim.x) {
        const int64_t xs = s % segs, r = s / segs, y = r % a.Ho, q = r / a.Ho;
        const int64_t plane = a.chw ? q % a.C : 0;
        const aug__resize_image &m = a.img[a.chw ? q / a.C : q];
        if (m.compute == AUG_FLOAT32) resize_segment<float>(a, m, xs, y, plane, sm);
        else resize_segment<double>(a, m, xs, y, plane, sm);
    }
}

/* Whether the block-per-segment kernel can take the plan with T threads per
 * block: every image interpolates (no gather) with its source's pixels side by
 * side (CHW output: sw == element size; HWC: C elements per pixel, sc == element
 * size) and monotone x taps; returns the shared memory a block needs (the
 * longest span of a segment), 0 when it cannot or the span exceeds 48 KiB. */
static size_t rows_shared_bytes(const aug__resize_plan *p, int64_t T) {
    const int64_t cr = p->chw ? 1 : p->C, nv = p->Wo * cr;
    int64_t most = 0;
    for (int64_t n = 0; n < p->n; n++) {
        const aug__resize_image *m = &p->img[n];
        const int64_t es = aug__ctype_size(m->src_dtype);
        if (m->gather || m->sw != es * cr || (!p->chw && p->C > 1 && m->sc != es)) return 0;
        for (int64_t v0 = 0; v0 < nv; v0 += T) {
            const int64_t v1 = v0 + T < nv ? v0 + T : nv;
            const aug__resize_tap *t0 = &p->taps[m->xtab + v0 / cr];
            const aug__resize_tap *tl = &p->taps[m->xtab + (v1 - 1) / cr];
            for (int64_t x = v0 / cr; x <= (v1 - 1) / cr; x++) { /* the span is the first's start to the last's end */
                const aug__resize_tap *t = &p->taps[m->xtab + x];
                if (t->first < t0->first || t->first + t->count > tl->first + tl->count) return 0;
            }
            const int64_t len = (tl->first + tl->count - t0->first) * m->sw;
            if (len > most) most = len;
        }
    }
    const size_t bytes = (size_t)most + 8; /* a word of alignment either side */
    return bytes <= ((size_t)48 << 10) ? bytes : 0;
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
    const size_t shmem = g.threads >= 1 && g.threads <= 1024 ? rows_shared_bytes(p, g.threads) : 0;
    if (shmem) {
        const int64_t segs = (p->Wo * (p->chw ? 1 : p->C) + g.threads - 1) / g.threads;
        const int64_t nseg = segs * p->n * p->Ho * (p->chw ? p->C : 1);
        if ((int64_t)g.blocks > nseg) g.blocks = (unsigned)nseg;
        AUG_LAUNCH(aug__k_resize_rows, g.blocks, g.threads, shmem, stream, a, segs, nseg);
        st = aug__cuda_launched(func, "aug__k_resize_rows", g.blocks, g.threads);
    } else {
        AUG_LAUNCH(aug__k_resize, g.blocks, g.threads, 0, stream, a);
        st = aug__cuda_launched(func, "aug__k_resize", g.blocks, g.threads);
    }
    aug__cuda_tmp_free(dev, dev_mem, bytes, stream);
    return st;
}
