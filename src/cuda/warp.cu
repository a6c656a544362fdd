/* cuda/warp.cu: the affine and perspective warps on the GPU (semantics §13,
 * docs/warp.md), HWC images of any strides and dtypes -> an NCHW batch, one
 * thread per output value. The perspective warp (its own kernel, the same
 * body with each sample's point from aug__warp_project: a point outside the
 * source plane reads the background under every border) is the CPU's
 * cpu/warp_persp.c.
 *
 * Each image takes the kernel aug__warp_kind picks (scalar/warp.h), as on the
 * CPU, and every step is scalar/warp.h's: coordinates in double without
 * contraction (the module is built with --fmad=false), then
 *  - exact: the double bilinear value, summed over the s*s samples (j outer,
 *    i inner), divided by s^2 when s > 1, stored with saturate_cast;
 *  - fixed point (uint8 -> uint8): 2^22-scaled integers, the byte of r for
 *    s = 1, else the rounded mean of the 32-bit sum;
 *  - float32: the float32 bilinear value, stored as is for s = 1, else summed
 *    in double and divided by s^2;
 *  - bicubic (the plan's interpolation, any dtypes; the *_cubic kernels): the
 *    double Keys value of the 4 x 4 taps (sample_cubic), summed and stored as
 *    the exact kernel's.
 * A neighbour outside the source takes the background (as a byte / float for
 * the fixed / float32 kernels) with the constant border; the other borders map
 * its index into the source (aug__warp_index). Nearest neighbour reads the one
 * value at floor(sx + 0.5), floor(sy + 0.5) of the pixel centre and stores it
 * exactly (integers through a 128-bit value, floats through double). The
 * output has any (N, C, H, W) element strides (NCHW or NHWC). So the results
 * are the CPU's bit for bit.
 *
 * Twelve kernels share the body (WARP_KERNEL): affine or perspective, any
 * bilinear / nearest image, every image in fixed point (*_u8) or every image
 * bicubic (*_cubic), 32-bit indices where every offset fits (index32) or 64-bit
 * ones (*_wide); their registers are listed by WARP_THREADS. A thirteenth,
 * aug__k_warp_u8_tile (cuda/warp_stage.cuh; aug__k_warp_u8_tall, its 32 x 32
 * tiles where their boxes fit), is the fixed-point affine pixel path with each
 * block's source box staged in shared memory, for packed pixels and for planar
 * (CHW) images plane by plane; aug__k_warp_persp_u8_tile (the
 * fixed-point perspective warp, cuda/warp_stage.cuh) and aug__k_warp_f32_tile
 * (float32 -> float32 affine, cuda/warp_stage_f32.cuh) stage the same boxes and
 * compute a value per thread; five more, aug__k_warp_nearest_u8_tile (and
 * aug__k_warp_nearest_u8_tall, its 32 x 32 tiles where their boxes fit),
 * aug__k_warp_cubic_u8_tile (and aug__k_warp_cubic_u8_tall) and the perspective
 * aug__k_warp_persp_nearest_u8_tile
 * and aug__k_warp_persp_cubic_u8_tile (cuda/warp_stage_interp.cuh), stage the
 * same tiles for the nearest and bicubic warps of uint8 sources and run the
 * value path's nearest / cubic on them. Into channels-last uint8 outputs (NHWC)
 * the staged uint8 kernels but aug__k_warp_persp_u8_tile put a tile's values in
 * shared memory and store its rows coalesced (warp_stage.cuh, stage_put_rows). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <type_traits>
#include "cuda/values.cuh"
#include "core/warp.h"
#include "scalar/warp.h"

/* One source image (as the host fills it; each thread narrows the sizes and
 * strides to its kernel's index type). */
typedef struct wimg {
    const char *base;      /* element [0, 0, 0] */
    const char *lo, *hi;   /* the bytes [lo, hi) its elements span (the pixel path's words stay inside) */
    int64_t H, W;
    int64_t sh, sw, sc;    /* strides in bytes */
    double m[9];           /* 6 values (affine) or 9 (a homography) */
    int dtype, s, kind, border;
} wimg;

/* Per-launch values: read from the kernel parameter space, never held in
 * registers across the loop. */
typedef struct warp_args {
    const wimg *img;
    const double *bg;      /* C values */
    const float *bgf;      /* C values (float32 kernel) */
    const uint8_t *bgb;    /* C values (fixed-point kernel) */
    char *dst;
    int64_t C, Ht, Wt, n;  /* n: values of the batch */
    int64_t dn, dc, dy, dx; /* output strides in bytes */
    int dst_dtype, nearest;
    int cfast;             /* c varies fastest in memory (NHWC, C > 1) */
    int pix;               /* the fixed-point affine kernel's pixel path (warp_pixels); the
                            * staged kernel's: 1, or STAGE_PLANAR: each channel plane an image
                            * of 1 channel (CHW) */
    int64_t slots;         /* its threads: 32 per tile of PIX_TX x PIX_TY outputs (the staged
                            * kernel: its tiles) */
} warp_args;

/* A value of the image table read where it is used: an asm volatile load,
 * which the compiler cannot hoist out of the sample loops, so an image's
 * fields hold no registers across them (the same address for a warp's threads
 * of one image, from L1). */
#if defined(AUG_CUDA_EMU)
template <typename T> AUG_DEV T ldv(const T *p) { return *p; }
#else
AUG_DEV int64_t ldv(const int64_t *p) {
    int64_t v;
    asm volatile("ld.global.nc.s64 %0, [%1];" : "=l"(v) : "l"(p));
    return v;
}
AUG_DEV int ldv(const int *p) {
    int v;
    asm volatile("ld.global.nc.s32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}
AUG_DEV double ldv(const double *p) {
    double v;
    asm volatile("ld.global.nc.f64 %0, [%1];" : "=d"(v) : "l"(p));
    return v;
}
AUG_DEV float ldv(const float *p) {
    float v;
    asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
}
AUG_DEV uint8_t ldv(const uint8_t *p) {
    unsigned v;
    asm volatile("ld.global.nc.u8 %0, [%1];" : "=r"(v) : "l"(p));
    return (uint8_t)v;
}
AUG_DEV const char *ldv(const char *const *p) { return (const char *)ldv((const int64_t *)(const void *)p); }
#endif

/* One image as a thread reads it: its table entry and the thread's channel,
 * the fields read at each use (ldv), with indices of type I (int32_t where
 * every offset fits, warp_run's index32; int64_t otherwise). */
template <typename I> struct img_t {
    const wimg *w;
    I c;
    AUG_DEV const char *base() const { return ldv(&w->base) + c * (I)ldv(&w->sc); } /* element [0, 0, c] */
    AUG_DEV double m(int k) const { return ldv(&w->m[k]); }
    AUG_DEV I H() const { return (I)ldv(&w->H); }
    AUG_DEV I W() const { return (I)ldv(&w->W); }
    AUG_DEV I sh() const { return (I)ldv(&w->sh); }
    AUG_DEV I sw() const { return (I)ldv(&w->sw); }
    AUG_DEV int dtype() const { return ldv(&w->dtype); }
    AUG_DEV int s() const { return ldv(&w->s); }
    AUG_DEV int kind() const { return ldv(&w->kind); }
    AUG_DEV int border() const { return ldv(&w->border); }
};

/* v, which the compiler cannot see through (so does not hoist what is computed from it). */
AUG_DEV uint32_t opaque(uint32_t v) {
#if !defined(AUG_CUDA_EMU)
    asm volatile("" : "+r"(v));
#endif
    return v;
}

/* The source index of a neighbour at integer position i on a side of n:
 * aug__warp_index's steps in the kernel's index type (int32_t: the sides are at
 * most 2^29, so 2n and every bounded cell fit; its % is a 32-bit one). */
template <typename I> AUG_DEV I windex(I i, I n, int border) {
    if (i >= 0 && i < n) return i;
    if (border == AUG__WB_CONSTANT) return -1;
    if (border == AUG__WB_REPLICATE || n == 1) return i < 0 ? 0 : n - 1;
    const I p = border == AUG__WB_REFLECT ? 2 * n - 2 : 2 * n;
    i %= p;
    if (i < 0) i += p;
    if (i < n) return i;
    return border == AUG__WB_REFLECT ? p - i : p - 1 - i;
}

/* The byte offsets of the four neighbours' columns and rows of a cell, and
 * which of them lie inside (an outside one, constant border, reads the
 * background; its offset is never used). */
template <typename I> struct cell {
    I ox0, ox1, oy0, oy1;
    int v00, v01, v10, v11;
};

/* The source indices of the four neighbours of the cell whose top-left
 * neighbour is (ix, iy) (bounded coordinates' floors): columns x0, x1 and rows
 * y0, y1, each -1 where it lies outside (constant border). */
template <typename I> struct cell_ix {
    I x0, x1, y0, y1;
};
template <typename I> AUG_DEV cell_ix<I> cell_index(const img_t<I> &im, I ix, I iy) {
    cell_ix<I> k;
    k.x0 = windex<I>(ix, im.W(), im.border()), k.x1 = windex<I>(ix + 1, im.W(), im.border());
    k.y0 = windex<I>(iy, im.H(), im.border()), k.y1 = windex<I>(iy + 1, im.H(), im.border());
    return k;
}

/* The same cell as byte offsets and flags. */
template <typename I> AUG_DEV cell<I> cell_at(const img_t<I> &im, I ix, I iy) {
    cell<I> k;
    const cell_ix<I> j = cell_index<I>(im, ix, iy);
    k.ox0 = j.x0 * im.sw(), k.ox1 = j.x1 * im.sw(), k.oy0 = j.y0 * im.sh(), k.oy1 = j.y1 * im.sh();
    const int vx0 = j.x0 >= 0, vx1 = j.x1 >= 0, vy0 = j.y0 >= 0, vy1 = j.y1 >= 0;
    k.v00 = vy0 & vx0, k.v01 = vy0 & vx1, k.v10 = vy1 & vx0, k.v11 = vy1 & vx1;
    return k;
}

/* The exact (double) sample of the thread's channel at (sx, sy). */
template <typename I> AUG_DEV double sample_f64(const img_t<I> &im, double sx, double sy, double b) {
    double fx0 = aug__warp_floor(sx), fy0 = aug__warp_floor(sy);
    cell<I> k = cell_at(im, (I)fx0, (I)fy0);
    if (!(k.v00 | k.v01 | k.v10 | k.v11)) return b;
    double a00 = k.v00 ? aug__load_f64(im.base() + (k.oy0 + k.ox0), im.dtype()) : b;
    double a01 = k.v01 ? aug__load_f64(im.base() + (k.oy0 + k.ox1), im.dtype()) : b;
    double a10 = k.v10 ? aug__load_f64(im.base() + (k.oy1 + k.ox0), im.dtype()) : b;
    double a11 = k.v11 ? aug__load_f64(im.base() + (k.oy1 + k.ox1), im.dtype()) : b;
    return aug__warp_bilinear_f64(a00, a01, a10, a11, sx - fx0, sy - fy0);
}

/* The float32 sample. */
template <typename I> AUG_DEV float sample_f32(const img_t<I> &im, double sx, double sy, float b) {
    double fx0 = aug__warp_floor(sx), fy0 = aug__warp_floor(sy);
    cell<I> k = cell_at(im, (I)fx0, (I)fy0);
    if (!(k.v00 | k.v01 | k.v10 | k.v11)) return b;
    float a00 = k.v00 ? aug__load_f32(im.base() + (k.oy0 + k.ox0), im.dtype()) : b;
    float a01 = k.v01 ? aug__load_f32(im.base() + (k.oy0 + k.ox1), im.dtype()) : b;
    float a10 = k.v10 ? aug__load_f32(im.base() + (k.oy1 + k.ox0), im.dtype()) : b;
    float a11 = k.v11 ? aug__load_f32(im.base() + (k.oy1 + k.ox1), im.dtype()) : b;
    return aug__warp_bilinear_f32(a00, a01, a10, a11, (float)(sx - fx0), (float)(sy - fy0));
}

/* The fixed-point sample: the 2^22-scaled bilinear value. */
template <typename I> AUG_DEV uint32_t sample_u8(const img_t<I> &im, double sx, double sy, uint32_t b) {
    int32_t qx = aug__warp_fixed_pos(sx), qy = aug__warp_fixed_pos(sy);
    cell<I> k = cell_at(im, (I)aug__warp_fixed_cell(qx), (I)aug__warp_fixed_cell(qy));
    const uint8_t *p = (const uint8_t *)im.base();
    uint32_t a00 = k.v00 ? AUG_LD(p + (k.oy0 + k.ox0)) : b, a01 = k.v01 ? AUG_LD(p + (k.oy0 + k.ox1)) : b;
    uint32_t a10 = k.v10 ? AUG_LD(p + (k.oy1 + k.ox0)) : b, a11 = k.v11 ? AUG_LD(p + (k.oy1 + k.ox1)) : b;
    return aug__warp_bilerp_u8(a00, a01, a10, a11, aug__warp_fixed_frac(qx), aug__warp_fixed_frac(qy));
}

/* The bicubic sample (scalar/warp.h's weights and sum order, as
 * cpu/warp_cubic.c): the 4 x 4 taps around (sx, sy) in double, a tap outside
 * the background (constant border), none inside the background exactly. One
 * tap at a time, in loops that are not unrolled: each tap's index, weight and
 * load (one copy of aug__load_f64's dtype switch) formed where it is used, the
 * sums ((w0 a0 + w1 a1) + w2 a2) + w3 a3 kept as running values, so that the
 * generic kernels stay within their 80 registers without spilling. tap(jy,
 * jx) gives an inside tap's value (tap_global; the staged kernel's from shared
 * memory). */
template <typename I, typename T>
AUG_DEV double sample_cubic(const img_t<I> &im, double sx, double sy, const double *bg, const T &tap) {
    const double fx0 = aug__warp_floor(sx), fy0 = aug__warp_floor(sy);
    const I ix = (I)fx0 - 1, iy = (I)fy0 - 1;
    if (aug__warp_cubic_outside(ix + 1, iy + 1, im.W(), im.H(), im.border())) return ldv(bg);
    const double tx = sx - fx0, ty = sy - fy0;
    double v = 0.0;
    AUG_NO_UNROLL
    for (int q = 0; q < 4; q++) {
        const I jy = windex<I>(iy + q, im.H(), im.border());
        double row = 0.0;
        AUG_NO_UNROLL
        for (int u = 0; u < 4; u++) {
            const I jx = windex<I>(ix + u, im.W(), im.border());
            const double w = aug__warp_cubic_weight(tx, u);
            const double a = jy >= 0 && jx >= 0 ? tap(jy, jx) : ldv(bg);
            row = u == 0 ? w * a : row + w * a;
        }
        const double t = aug__warp_cubic_weight(ty, q) * row;
        v = q == 0 ? t : v + t;
    }
    return v;
}

/* The perspective source point of sample (X, Y) (aug__warp_project on the matrix read now). */
template <typename I> AUG_DEV int project(const img_t<I> &im, double X, double Y, double *sx, double *sy) {
    double m[9];
    for (int k = 0; k < 9; k++) m[k] = im.m(k);
    return aug__warp_project(m, X, Y, im.W(), im.H(), im.border(), sx, sy);
}

/* Output value i's indices in the output's memory order (consecutive threads
 * write consecutive addresses): x fastest for NCHW, c fastest for NHWC; I
 * unsigned 32-bit divisions (i < 2^31) or 64-bit ones. */
template <typename I> struct pos {
    I n, c, y, x;
};
template <typename I, typename U> AUG_DEV pos<I> pos_of(const warp_args &a, U u) {
    const U C = (U)a.C, Wt = (U)a.Wt, Ht = (U)a.Ht;
    pos<I> p;
    if (a.cfast) {
        const U r = u / C, q = r / Wt, n = q / Ht;
        p.c = (I)(u - r * C), p.x = (I)(r - q * Wt), p.y = (I)(q - n * Ht), p.n = (I)n;
    } else {
        const U r = u / Wt, q = r / Ht, n = q / C;
        p.x = (I)(u - r * Wt), p.y = (I)(r - q * Ht), p.c = (I)(q - n * C), p.n = (I)n;
    }
    return p;
}

/* The output value's address. */
template <typename I> AUG_DEV char *out_at(const warp_args &a, const pos<I> &p) {
    return a.dst + (p.n * (I)a.dn + p.c * (I)a.dc + p.y * (I)a.dy + p.x * (I)a.dx);
}

/* sample_cubic's tap from global memory: the value at (jy, jx) of the image's dtype as double;
 * project: the perspective kernels' projection of a sample (project). */
template <typename I> struct tap_global {
    const img_t<I> &im;
    AUG_DEV double operator()(I jy, I jx) const {
        return aug__load_f64(im.base() + (jy * im.sh() + jx * im.sw()), im.dtype());
    }
    AUG_DEV int project(const img_t<I> &m, double X, double Y, double *sx, double *sy) const {
        return ::project<I>(m, X, Y, sx, sy);
    }
    /* cubic's store of value v at p */
    AUG_DEV void put(const warp_args &a, double v, const pos<I> &p) const {
        aug__store_f64(v, a.dst_dtype, out_at<I>(a, p));
    }
    enum { LEAN = 0 }; /* cubic's loop as it was */
};

/* ---- The fixed-point affine warp's pixel path -------------------------------
 * For uint8 images of at most 4 adjacent channels (HWC, channel stride 1),
 * affine, 32-bit indices (aug__k_warp_u8): one thread per output pixel, all C
 * channels, and a warp's 32 threads on a tile of PIX_TX x PIX_TY pixels, so
 * that a rotation's taps of a warp lie in a few neighbouring source rows. Each
 * neighbour row's two pixels (2C bytes) come as one or two aligned 8-byte
 * words (pix_span) instead of 4C byte loads: a warp-wide load then uses more of
 * the 32-byte sectors it touches, and a pixel costs fewer sectors (docs/cuda.md,
 * memory efficiency). The arithmetic is sample_u8's per channel, so the results
 * are unchanged. The perspective and 64-bit kernels keep the value path: with
 * this one they went over their registers (the perspective one spilled at 64). */
#ifndef PIX_TX
#define PIX_TX 16
#define PIX_TY 2
#endif
static_assert(PIX_TX * PIX_TY == 32, "a tile is one warp");

/* Bytes [p, p + len) (len <= 8) as a little-endian value (bytes past len
 * unspecified): the aligned 8-byte words holding them where those lie inside
 * the image's bytes [lo, hi), else one byte at a time. */
AUG_DEV uint64_t pix_span(const wimg *w, const char *p, int len) {
    const uintptr_t at = (uintptr_t)p, off = at & 7;
    const char *w0 = p - off;
    const int two = (int)off + len > 8;
    if (w0 >= ldv(&w->lo) && w0 + (two ? 16 : 8) <= ldv(&w->hi)) {
        const uint64_t *q = (const uint64_t *)(const void *)w0;
        uint64_t v = AUG_LD(q) >> (8 * off);
        if (two) v |= AUG_LD(q + 1) << (64 - 8 * off); /* off > 0 here */
        return v;
    }
    uint64_t v = 0;
    for (int b = 0; b < len; b++) v |= (uint64_t)AUG_LD((const uint8_t *)p + b) << (8 * b);
    return v;
}

/* The C bytes of a cell row's two neighbours at byte offsets ox0, ox1 of row oy
 * (v0, v1: inside), as C-byte values: one span when both lie within 8 bytes. */
template <typename I>
AUG_DEV void pix_row(const img_t<I> &im, I oy, I ox0, I ox1, int v0, int v1, int C, uint32_t *p0, uint32_t *p1) {
    const char *row = im.base() + oy;
    const I d = ox1 - ox0;
    if (v0 && v1 && d >= 0 && d + C <= 8) {
        const uint64_t v = pix_span(im.w, row + ox0, (int)d + C);
        *p0 = (uint32_t)v, *p1 = (uint32_t)(v >> (8 * d));
        return;
    }
    if (v0) *p0 = (uint32_t)pix_span(im.w, row + ox0, C);
    if (v1) *p1 = (uint32_t)pix_span(im.w, row + ox1, C);
}

/* A sample's fixed-point value v into a channel's accumulator. */
AUG_DEV void pix_add(uint32_t &acc, int s, uint32_t v) {
    if (s == 1) acc = aug__warp_fixed_s1(v);
    else acc += aug__warp_fixed_acc(v);
}

/* The bilinear value of every channel c < C from the four neighbours' C-byte
 * values (an outside one, v == 0, the background of channel c0 + c) added to
 * acc[c] (pix_add). */
AUG_DEV void pix_mix(const warp_args &a, int v00, int v01, int v10, int v11, uint32_t p00, uint32_t p01,
                     uint32_t p10, uint32_t p11, uint32_t fx, uint32_t fy, int C, int s, uint32_t *acc, int c0) {
    AUG_UNROLL
    for (int c = 0; c < 4; c++) {
        if (c >= C) break;
        const uint32_t b = ldv(&a.bgb[c0 + c]), sh = 8 * (uint32_t)c;
        pix_add(acc[c], s, aug__warp_bilerp_u8(v00 ? (p00 >> sh) & 0xff : b, v01 ? (p01 >> sh) & 0xff : b,
                                               v10 ? (p10 >> sh) & 0xff : b, v11 ? (p11 >> sh) & 0xff : b, fx, fy));
    }
}

/* sample_u8 of every channel c < C added to acc[c] (pix_add): the C bytes of
 * each neighbour from one or two spans of a row. */
template <typename I> AUG_DEV void pix_sample(const warp_args &a, const img_t<I> &im, double sx, double sy, int C,
                                              int s, uint32_t *acc) {
    const int32_t qx = aug__warp_fixed_pos(sx), qy = aug__warp_fixed_pos(sy);
    const cell<I> k = cell_at(im, (I)aug__warp_fixed_cell(qx), (I)aug__warp_fixed_cell(qy));
    const uint32_t fx = aug__warp_fixed_frac(qx), fy = aug__warp_fixed_frac(qy);
    uint32_t p00 = 0, p01 = 0, p10 = 0, p11 = 0;
    pix_row<I>(im, k.oy0, k.ox0, k.ox1, k.v00, k.v01, C, &p00, &p01);
    pix_row<I>(im, k.oy1, k.ox0, k.ox1, k.v10, k.v11, C, &p10, &p11);
    pix_mix(a, k.v00, k.v01, k.v10, k.v11, p00, p01, p10, p11, fx, fy, C, s, acc, (int)im.c);
}

/* Output pixel (n, y, x) of the pixel paths: its s*s samples (sample(sx, sy,
 * s, acc) adds one to every channel's accumulator), each channel stored (as
 * channel im.c + c: a plane of a planar image is channel im.c). */
AUG_DEV int stage_rows(const warp_args &a); /* cuda/warp_stage.cuh */
template <typename I, typename F>
AUG_DEV void pix_pixel(const warp_args &a, const img_t<I> &im, I n, I x, I y, int C, const F &sample,
                       uint8_t *rows = nullptr, uint32_t tw = 1, uint32_t th = 1) {
    const int s = im.s();
    uint32_t acc[4] = {0, 0, 0, 0};
    for (int j = 0; j < s; j++) {
        const double Y = (double)y + aug__warp_offset(j, s);
        const double bx = aug__warp_rowterm(im.m(1), Y, im.m(2));
        const double by = aug__warp_rowterm(im.m(4), Y, im.m(5));
        for (int k = 0; k < s; k++) {
            const double X = (double)x + aug__warp_offset(k, s);
            const double sx = aug__warp_coord_b(im.m(0), X, bx, im.W(), im.border());
            const double sy = aug__warp_coord_b(im.m(3), X, by, im.H(), im.border());
            sample(sx, sy, s, acc);
        }
    }
    char *out = a.dst + (n * (I)a.dn + y * (I)a.dy + x * (I)a.dx);
    /* the staged kernels' tile rows (tiles of tw x th pixels at multiples of tw, th), formed here
     * from an opaque flag: not held through the samples (ptxas spilled 40-44 bytes on sm_75) */
    uint8_t *const so = rows && opaque((uint32_t)stage_rows(a))
                            ? rows + (((uint32_t)y % th) * tw + (uint32_t)x % tw) * (uint32_t)C
                            : nullptr;
    AUG_UNROLL
    for (int c = 0; c < 4; c++) {
        if (c >= C) break;
        const uint8_t v = s == 1 ? (uint8_t)acc[c] : aug__warp_fixed_mean(acc[c], s);
        if (so) so[c] = v; /* the staged kernels' tile rows (stage_rows) */
        else AUG_ST((uint8_t *)(out + (im.c + (I)c) * (I)a.dc), v);
    }
}

/* The pixel path's sampler: every tap from global memory (pix_sample). */
template <typename I> struct pix_global {
    const warp_args &a;
    const img_t<I> &im;
    int C;
    AUG_DEV void operator()(double sx, double sy, int s, uint32_t *acc) const {
        pix_sample<I>(a, im, sx, sy, C, s, acc);
    }
};

/* The pixel path's loop (the affine warp): slot t is lane t % 32 of tile
 * t / 32, the tiles of an image row-major, the images one after another. */
template <typename I> AUG_DEV void warp_pixels(const warp_args &a) {
    typedef typename std::make_unsigned<I>::type U;
    const U step = (U)gridDim.x * (U)blockDim.x;
    const U Wt = (U)a.Wt, Ht = (U)a.Ht, tw = (Wt + PIX_TX - 1) / PIX_TX, th = (Ht + PIX_TY - 1) / PIX_TY;
    const int C = (int)a.C;
    for (U t = (U)blockIdx.x * (U)blockDim.x + (U)threadIdx.x; t < (U)a.slots; t += step) {
        const U lane = t % 32, tile = t / 32, r = tile / tw, n = r / th;
        const U x = (tile - r * tw) * PIX_TX + lane % PIX_TX, y = (r - n * th) * PIX_TY + lane / PIX_TX;
        if (x >= Wt || y >= Ht) continue;
        const img_t<I> im = {&a.img[n], 0};
        const pix_global<I> g = {a, im, C};
        pix_pixel<I>(a, im, (I)n, (I)x, (I)y, C, g);
    }
}

#include "cuda/warp_stage.cuh"
#include "cuda/warp_stage_f32.cuh"

/* Source value at p (ctype t) stored exactly into ctype dt at out (saturate_cast). */
AUG_DEV void copy_value(const char *p, int t, int dt, char *out) {
    if (t == AUG__CT_FLOAT16 || t == AUG__CT_BFLOAT16 || t == AUG__CT_FLOAT32 || t == AUG__CT_FLOAT64)
        aug__store_f64(aug__load_f64(p, t), dt, out);
    else
        aug__store_i128(aug__load_i128(p, t), dt, out);
}

/* Nearest neighbour: output value (n, c, y, x); copy(jy, jx, out) stores an
 * inside source value (copy_global; the staged kernel's from shared memory). */
template <bool PROJ, typename I, typename V>
AUG_DEV void nearest(const warp_args &a, const img_t<I> &im, I c, I y, I x, char *out, const V &copy) {
    double sx, sy;
    int inside = 1;
    if (PROJ) {
        inside = copy.project(im, (double)x, (double)y, &sx, &sy);
    } else {
        const double bx = aug__warp_rowterm(im.m(1), (double)y, im.m(2));
        const double by = aug__warp_rowterm(im.m(4), (double)y, im.m(5));
        sx = aug__warp_coord_b(im.m(0), (double)x, bx, im.W(), im.border());
        sy = aug__warp_coord_b(im.m(3), (double)x, by, im.H(), im.border());
    }
    const I jx = inside ? windex<I>((I)aug__warp_nearest_cell(sx), im.W(), im.border()) : -1;
    const I jy = inside ? windex<I>((I)aug__warp_nearest_cell(sy), im.H(), im.border()) : -1;
    if (jx < 0 || jy < 0) copy.background(a, ldv(&a.bg[c]), out);
    else copy(jy, jx, out);
}

/* nearest's copy from global memory (copy_value); project: tap_global's. */
template <typename I> struct copy_global {
    const warp_args &a;
    const img_t<I> &im;
    AUG_DEV void operator()(I jy, I jx, char *out) const {
        copy_value(im.base() + (jy * im.sh() + jx * im.sw()), im.dtype(), a.dst_dtype, out);
    }
    AUG_DEV void background(const warp_args &, double b, char *out) const { aug__store_f64(b, a.dst_dtype, out); }
    AUG_DEV int project(const img_t<I> &m, double X, double Y, double *sx, double *sy) const {
        return ::project<I>(m, X, Y, sx, sy);
    }
};

/* Registers per thread (cuobjdump -res-usage of the nvcc build: sm_75, sm_80,
 * sm_90, sm_100) and the 256-thread blocks an SM keeps resident from them
 * (65536 registers, allocated 8 per thread at a time; sm_80..sm_100 hold 2048
 * threads, sm_75 1024):
 *   aug__k_warp_u8              64 64 64 59   4 blocks (50%; the pixel path; before it
 *                                             45 44 45 48, 5 blocks)
 *   aug__k_warp_u8_tile         64 64 64 61   4 blocks (50%; 16 KiB of shared memory
 *                                             a block, + 1 KiB of NHWC tile rows: not the
 *                                             limit; 63 on sm_100 before the tile rows)
 *   aug__k_warp_u8_tall         64 64 64 63   4 blocks (50%; its 32 x 32 tiles, + 4 KiB)
 *   aug__k_warp_persp_u8_tile   64 64 64 58   4 blocks (50%; 16 KiB, a value per thread:
 *                                             a pixel per thread spilled 28-52 bytes)
 *   aug__k_warp_f32_tile        60 58 56 54   4 blocks (50%; 24 KiB a block, 100 of
 *                                             sm_90's 228; sm_75 2 blocks)
 *   aug__k_warp_persp_f32_tile  64 64 64 58   4 blocks (50%; as the two above)
 *   aug__k_warp_nearest_u8_tile 64 64 64 48   4 blocks (50%; warp_stage_interp.cuh; 58 56
 *                                             58 40 before the NHWC tile rows, no spill)
 *   aug__k_warp_nearest_u8_tall 64 64 64 48   4 blocks (50%; its 32 x 32 tiles)
 *   aug__k_warp_cubic_u8_tile   64 64 64 64   4 blocks (50%; no spill: its lanes on x
 *                                             for NHWC too, its tile found again per value;
 *                                             24 KiB a block, sm_75 2 blocks)
 *   aug__k_warp_cubic_u8_tall   64 64 64 64   4 blocks (50%; its 32 x 32 tiles)
 *   aug__k_warp_persp_nearest_u8_tile
 *                               64 64 64 50   4 blocks (50%; before: aug__k_warp_persp)
 *   aug__k_warp_persp_cubic_u8_tile
 *                               64 64 64 64   4 blocks (50%; no spill: the matrix read in
 *                                             place, Y formed per sample (tap_staged::LEAN);
 *                                             24 KiB; before: aug__k_warp_persp_cubic)
 *   aug__k_warp_persp_u8        63 61 62 58   4 blocks (50%)
 *   aug__k_warp, _persp         80 79 79 61   3 blocks (37.5%; sm_100 4)
 *                               80 80 80 64
 *   aug__k_warp_cubic           79 79 79 72   3 blocks (37.5%; sm_100 4)
 *   aug__k_warp_persp_cubic     80 80 80 72
 *   *_wide (64-bit indices)     56-100        2 blocks (25%) for the generic ones
 *                                             and the cubic ones (94, 96; sm_100 78)
 * (before: one kernel each, 126 on sm_75..sm_90, 2 blocks, 25%). The blocks'
 * bounds (WARP_BOUND) hold ptxas there: the fixed-point kernels with 32-bit
 * indices to 64 (AUG_BLOCK_THREADS, any block), the generic and cubic ones to
 * 80 (768 threads), none spilling; the wide ones keep 512 (128). Bicubic has
 * kernels of its own: inside the generic perspective kernel its path made
 * ptxas spill 72-120 bytes at 80 registers, whatever the sample's form. The generic kernels
 * switch over 13 source and 13 output dtypes (the exact and float32 loads,
 * saturate_cast stores, nearest's 128-bit copy), and with the reflecting
 * borders' fmod more than 64 values are live at once: held to 64
 * (__launch_bounds__(256, 4)) ptxas spilled 16-64 bytes, which cuda-check
 * rejects. What keeps them low: 32-bit indices where they fit (index32: no
 * 64-bit division or remainder), the image's fields and matrix read at each
 * use (ldv) instead of held across the sample loops, the output address formed
 * after them, and the fixed-point kernels without the other paths. */
#define WARP_THREADS 512
#define WARP_NARROW_THREADS 768 /* 65536 / 768: at most 80 registers */
#define WARP_BOUND(narrow, u8) ((narrow) ? ((u8) ? AUG_BLOCK_THREADS : WARP_NARROW_THREADS) : WARP_THREADS)

/* Bicubic: output value (n, c, y, x), the mean of its s*s samples (the exact
 * kernel's sum order and store; a sample outside the source plane is the
 * background; tap: sample_cubic's, and its projection). A loop of its own:
 * fewer values live than in the bilinear one. T::LEAN (the staged perspective
 * kernel): Y formed again for each sample from an opaque j, not held through
 * it (held, ptxas spilled 12 bytes at 64 registers). */
template <bool PROJ, typename I, typename T>
AUG_DEV void cubic(const warp_args &a, const img_t<I> &im, I c, I y, I x, int s, const pos<I> &p, const T &tap) {
    double acc = 0.0;
    for (int j = 0; j < s; j++) {
        const double Yj = (double)y + aug__warp_offset(j, s);
        for (int k = 0; k < s; k++) {
            const double Y = T::LEAN ? (double)y + aug__warp_offset((int)opaque((uint32_t)j), s) : Yj;
            const double X = (double)x + aug__warp_offset(k, s);
            double sx, sy;
            if (PROJ) {
                if (!tap.project(im, X, Y, &sx, &sy)) {
                    acc += ldv(&a.bg[c]);
                    continue;
                }
            } else {
                sx = aug__warp_coord_b(im.m(0), X, aug__warp_rowterm(im.m(1), Y, im.m(2)), im.W(), im.border());
                sy = aug__warp_coord_b(im.m(3), X, aug__warp_rowterm(im.m(4), Y, im.m(5)), im.H(), im.border());
            }
            acc += sample_cubic<I>(im, sx, sy, &a.bg[c], tap);
        }
    }
    tap.put(a, s > 1 ? acc / ((double)s * (double)s) : acc, p);
}

/* The body of both kernels: PROJ maps each sample with the homography. */
/* The kernels' specialisations: any bilinear / nearest image, every image
 * bilinear in fixed point, every image bicubic. */
enum { WARP_GENERIC = 0, WARP_U8 = 1, WARP_CUBIC = 2 };

template <bool PROJ, int MODE, typename I>
AUG_DEV void warp_body(const warp_args &a) {
    const bool U8 = MODE == WARP_U8;
    typedef typename std::make_unsigned<I>::type U; /* i + step < 2^32 for index32 */
    if (U8 && !PROJ && sizeof(I) == 4 && a.pix) { /* the others keep the value path: fewer registers */
        warp_pixels<I>(a);
        return;
    }
    const U step = (U)gridDim.x * (U)blockDim.x;
    for (U i = (U)blockIdx.x * (U)blockDim.x + (U)threadIdx.x; i < (U)a.n; i += step) {
        const pos<I> p = pos_of<I>(a, i);
        const I c = p.c, y = p.y, x = p.x;
        const img_t<I> im = {&a.img[p.n], c};
        const int s = im.s(), kind = U8 ? (int)AUG__WARP_FIXED : im.kind();
        if (MODE == WARP_CUBIC) {
            cubic<PROJ, I>(a, im, c, y, x, s, p, tap_global<I>{im});
            continue;
        }
        if (!U8 && a.nearest) {
            nearest<PROJ, I>(a, im, c, y, x, out_at<I>(a, p), copy_global<I>{a, im});
            continue;
        }
        double acc = 0.0;
        uint32_t acc8 = 0;
        float v1 = 0.0f;
        for (int j = 0; j < s; j++) {
            const double Y = (double)y + aug__warp_offset(j, s);
            const double bx = aug__warp_rowterm(im.m(1), Y, im.m(2));
            const double by = aug__warp_rowterm(im.m(4), Y, im.m(5));
            for (int k = 0; k < s; k++) {
                const double X = (double)x + aug__warp_offset(k, s);
                double sx, sy;
                if (PROJ) {
                    if (!project<I>(im, X, Y, &sx, &sy)) {
                        /* outside the source plane: the background (as sample_* give it with
                         * every neighbour outside) */
                        if (kind == AUG__WARP_FIXED) {
                            const uint32_t b = ldv(&a.bgb[c]), v = aug__warp_bilerp_u8(b, b, b, b, 0, 0);
                            if (s == 1) acc8 = aug__warp_fixed_s1(v);
                            else acc8 += aug__warp_fixed_acc(v);
                        } else if (kind == AUG__WARP_FLOAT) {
                            v1 = ldv(&a.bgf[c]);
                            acc += (double)v1;
                        } else {
                            acc += ldv(&a.bg[c]);
                        }
                        continue;
                    }
                } else {
                    sx = aug__warp_coord_b(im.m(0), X, bx, im.W(), im.border());
                    sy = aug__warp_coord_b(im.m(3), X, by, im.H(), im.border());
                }
                if (kind == AUG__WARP_FIXED) {
                    uint32_t v = sample_u8<I>(im, sx, sy, ldv(&a.bgb[c]));
                    if (s == 1) acc8 = aug__warp_fixed_s1(v);
                    else acc8 += aug__warp_fixed_acc(v);
                } else if (kind == AUG__WARP_FLOAT) {
                    v1 = sample_f32<I>(im, sx, sy, ldv(&a.bgf[c]));
                    acc += (double)v1;
                } else {
                    acc += sample_f64<I>(im, sx, sy, ldv(&a.bg[c]));
                }
            }
        }
        char *out = out_at<I>(a, p); /* formed here: not held through the samples */
        if (kind == AUG__WARP_FIXED) AUG_ST((uint8_t *)out, s == 1 ? (uint8_t)acc8 : aug__warp_fixed_mean(acc8, s));
        else if (kind == AUG__WARP_FLOAT && s == 1) aug__store_f32(v1, a.dst_dtype, out);
        else aug__store_f64(s > 1 ? acc / ((double)s * (double)s) : acc, a.dst_dtype, out);
    }
}

/* The twelve kernels: affine or perspective; any bilinear or nearest image
 * (aug__k_warp*), every image bilinear in fixed point (*_u8: uint8 -> uint8,
 * the ImageNet recipe's warp) or every image bicubic (*_cubic); 32-bit indices
 * or 64-bit ones (*_wide). Each has its own name, so the emulation's register
 * table (one count per name) holds each one's count. */
#define WARP_KERNEL(name, proj, mode, I)                                                                 \
    AUG_GLOBAL_BOUNDED(WARP_BOUND(sizeof(I) == 4, (mode) == WARP_U8)) void name(warp_args a) {          \
        warp_body<proj, mode, I>(a);                                                                     \
    }
WARP_KERNEL(aug__k_warp, false, WARP_GENERIC, int32_t)
WARP_KERNEL(aug__k_warp_persp, true, WARP_GENERIC, int32_t)
WARP_KERNEL(aug__k_warp_u8, false, WARP_U8, int32_t)
WARP_KERNEL(aug__k_warp_persp_u8, true, WARP_U8, int32_t)
WARP_KERNEL(aug__k_warp_cubic, false, WARP_CUBIC, int32_t)
WARP_KERNEL(aug__k_warp_persp_cubic, true, WARP_CUBIC, int32_t)
WARP_KERNEL(aug__k_warp_wide, false, WARP_GENERIC, int64_t)
WARP_KERNEL(aug__k_warp_persp_wide, true, WARP_GENERIC, int64_t)
WARP_KERNEL(aug__k_warp_u8_wide, false, WARP_U8, int64_t)
WARP_KERNEL(aug__k_warp_persp_u8_wide, true, WARP_U8, int64_t)
WARP_KERNEL(aug__k_warp_cubic_wide, false, WARP_CUBIC, int64_t)
WARP_KERNEL(aug__k_warp_persp_cubic_wide, true, WARP_CUBIC, int64_t)

#include "cuda/warp_stage_interp.cuh"

/* |stride| * (extent - 1), or -1 when it may exceed INT32_MAX. */
static int64_t span32(int64_t stride, int64_t extent) {
    const int64_t m = stride < 0 ? -stride : stride;
    if (extent <= 1 || m == 0) return 0;
    return m <= INT32_MAX && extent - 1 <= INT32_MAX / m ? m * (extent - 1) : -1;
}

/* Whether the 32-bit kernels hold every index of the launch: the output's
 * values (plus the grid's threads: the loop index stays below 2^32), every
 * byte offset from the output's and each image's first element (the sums of
 * |stride| * (extent - 1) at most INT32_MAX, so each partial sum fits), and
 * the sides (a reflecting border's period 2 * side and the cells beside it).
 * The emulation's AUG_EMU_WARP_INDEX64=1 takes the 64-bit kernels always (the
 * tests' way to run them on small images). */
static int index32(const warp_args *a, const wimg *img, int64_t n, int64_t threads) {
#ifdef AUG_CUDA_EMU
    const char *wide = getenv("AUG_EMU_WARP_INDEX64");
    if (wide && strcmp(wide, "1") == 0) return 0;
#endif
    if (a->n > INT32_MAX || a->slots > INT32_MAX || threads > INT32_MAX) return 0;
    const int64_t d[4] = {span32(a->dn, n), span32(a->dc, a->C), span32(a->dy, a->Ht), span32(a->dx, a->Wt)};
    int64_t sum = 0;
    for (int k = 0; k < 4; k++) {
        if (d[k] < 0) return 0;
        sum += d[k];
    }
    if (sum > INT32_MAX) return 0;
    for (int64_t k = 0; k < n; k++) {
        const wimg *m = &img[k];
        if (m->H > (1 << 29) || m->W > (1 << 29)) return 0;
        const int64_t h = span32(m->sh, m->H), w = span32(m->sw, m->W), c = span32(m->sc, a->C);
        if (h < 0 || w < 0 || c < 0 || h + w + c > INT32_MAX) return 0;
    }
    return 1;
}

/* The staged kernels (warp_stage*.cuh): none, the fixed-point affine and
 * perspective ones, the float32 affine one, the uint8 nearest and bicubic ones. */
enum {
    STAGE_NONE = 0,
    STAGE_U8,
    STAGE_PERSP_U8,
    STAGE_F32,
    STAGE_PERSP_F32,
    STAGE_F32_E2, /* STAGE_F32 / _PERSP_F32 + 2, + 4: the float32 kernels of 2- and 1-byte sources */
    STAGE_PERSP_F32_E2,
    STAGE_F32_E1,
    STAGE_PERSP_F32_E1,
    STAGE_NEAREST_U8,
    STAGE_NEAREST_U8_TALL,
    STAGE_CUBIC_U8,
    STAGE_CUBIC_U8_TALL,
    STAGE_U8_TALL,
    STAGE_PERSP_NEAREST_U8,
    STAGE_PERSP_CUBIC_U8
};

/* Launches the kernel of (proj, mode, narrow, stage). */
static aug_status launch(const char *func, int proj, int mode, int narrow, int stage, aug__cuda_grid g,
                         cudaStream_t stream, const warp_args &a) {
    const int u8 = mode == WARP_U8, cubic = mode == WARP_CUBIC;
#define WARP_LAUNCH(k)                                           \
    do {                                                         \
        AUG_LAUNCH(k, g.blocks, g.threads, 0, stream, a);        \
        return aug__cuda_launched(func, #k, g.blocks, g.threads); \
    } while (0)
    if (stage == STAGE_PERSP_U8) WARP_LAUNCH(aug__k_warp_persp_u8_tile);
    if (stage == STAGE_F32) WARP_LAUNCH(aug__k_warp_f32_tile);
    if (stage == STAGE_PERSP_F32) WARP_LAUNCH(aug__k_warp_persp_f32_tile);
    if (stage == STAGE_F32_E2) WARP_LAUNCH(aug__k_warp_f32_tile_e2);
    if (stage == STAGE_PERSP_F32_E2) WARP_LAUNCH(aug__k_warp_persp_f32_tile_e2);
    if (stage == STAGE_F32_E1) WARP_LAUNCH(aug__k_warp_f32_tile_e1);
    if (stage == STAGE_PERSP_F32_E1) WARP_LAUNCH(aug__k_warp_persp_f32_tile_e1);
    if (stage == STAGE_CUBIC_U8) WARP_LAUNCH(aug__k_warp_cubic_u8_tile);
    if (stage == STAGE_CUBIC_U8_TALL) WARP_LAUNCH(aug__k_warp_cubic_u8_tall);
    if (stage == STAGE_U8_TALL) WARP_LAUNCH(aug__k_warp_u8_tall);
    if (stage == STAGE_NEAREST_U8) WARP_LAUNCH(aug__k_warp_nearest_u8_tile);
    if (stage == STAGE_NEAREST_U8_TALL) WARP_LAUNCH(aug__k_warp_nearest_u8_tall);
    if (stage == STAGE_PERSP_CUBIC_U8) WARP_LAUNCH(aug__k_warp_persp_cubic_u8_tile);
    if (stage == STAGE_PERSP_NEAREST_U8) WARP_LAUNCH(aug__k_warp_persp_nearest_u8_tile);
    if (stage) WARP_LAUNCH(aug__k_warp_u8_tile);
    if (narrow) {
        if (proj && cubic) WARP_LAUNCH(aug__k_warp_persp_cubic);
        if (cubic) WARP_LAUNCH(aug__k_warp_cubic);
        if (proj && u8) WARP_LAUNCH(aug__k_warp_persp_u8);
        if (proj) WARP_LAUNCH(aug__k_warp_persp);
        if (u8) WARP_LAUNCH(aug__k_warp_u8);
        WARP_LAUNCH(aug__k_warp);
    }
    if (proj && cubic) WARP_LAUNCH(aug__k_warp_persp_cubic_wide);
    if (cubic) WARP_LAUNCH(aug__k_warp_cubic_wide);
    if (proj && u8) WARP_LAUNCH(aug__k_warp_persp_u8_wide);
    if (proj) WARP_LAUNCH(aug__k_warp_persp_wide);
    if (u8) WARP_LAUNCH(aug__k_warp_u8_wide);
    WARP_LAUNCH(aug__k_warp_wide);
#undef WARP_LAUNCH
}

static aug_status warp_run(const aug__warp_plan *p, int proj) {
    const char *func = p->func;
    const aug__exec *e = &p->exec;
    const int dev = e->device.id;
    const cudaStream_t stream = aug__cuda_stream(e);
    aug_status st = aug__cuda_use(func, dev);
    if (st) return st;
    const int64_t C = p->channels;
    /* the images, then the background as doubles, floats and bytes */
    const size_t oimg = 0, obg = (size_t)p->n * sizeof(wimg), obgf = obg + (size_t)C * sizeof(double);
    const size_t obgb = obgf + (size_t)C * sizeof(float), bytes = obgb + (size_t)C;
    char *host = (char *)malloc(bytes);
    if (!host) return AUG__NOMEM(func);
    double *bg = (double *)(void *)(host + obg);
    float *bgf = (float *)(void *)(host + obgf);
    uint8_t *bgb = (uint8_t *)(host + obgb);
    int bytes_ok = 1, floats_ok = 1;
    for (int64_t c = 0; c < C; c++) {
        bg[c] = p->background[c];
        bytes_ok &= aug__warp_bg_byte(bg[c], &bgb[c]);
        floats_ok &= aug__warp_bg_float(bg[c], &bgf[c]);
    }
    wimg *img = (wimg *)(void *)(host + oimg);
    for (int64_t n = 0; n < p->n; n++) {
        const aug_tensor *t = p->src[n];
        const int64_t item = aug__ctype_size((int)t->dtype);
        wimg *m = &img[n];
        memset(m, 0, sizeof *m);
        m->base = t->data + t->byte_offset;
        m->H = t->shape[0], m->W = t->shape[1];
        m->sh = t->strides[0] * item, m->sw = t->strides[1] * item, m->sc = t->strides[2] * item;
        m->lo = m->hi = m->base;
        const int64_t ext[3] = {m->H, m->W, C}, str[3] = {m->sh, m->sw, m->sc};
        int empty = 0;
        for (int d = 0; d < 3; d++) {
            const int64_t span = (ext[d] - 1) * str[d]; /* within the tensor's allocation */
            empty |= ext[d] == 0;
            if (span < 0) m->lo += span;
            else m->hi += span;
        }
        m->hi = empty ? m->base : m->hi + item;
        const int nm = proj ? 9 : 6;
        for (int k = 0; k < nm; k++) m->m[k] = (double)p->matrices[nm * n + k];
        m->dtype = (int)t->dtype;
        m->s = p->supersampling[n];
        m->border = p->border;
        m->kind = p->interp == AUG_WARP_CUBIC ? (int)AUG__WARP_CUBIC
                  : proj ? aug__warp_persp_kind(m->dtype, (int)p->dst->dtype, m->H, m->W, m->s, bytes_ok, floats_ok,
                                              m->border)
                       : aug__warp_kind(m->dtype, (int)p->dst->dtype, m->sc, m->H, m->W, m->s, bytes_ok, floats_ok,
                                        m->border);
    }
    warp_args a;
    a.dst = p->dst->data + p->dst->byte_offset;
    a.C = C, a.Ht = p->height, a.Wt = p->width, a.n = p->n * C * p->height * p->width;
    a.dst_dtype = (int)p->dst->dtype;
    const int64_t item = aug__ctype_size(a.dst_dtype);
    a.dn = p->dst->strides[0] * item, a.dc = p->dst->strides[1] * item;
    a.dy = p->dst->strides[2] * item, a.dx = p->dst->strides[3] * item;
    a.nearest = p->interp == AUG_WARP_NEAREST;
    a.cfast = p->dst->strides[1] == 1 && C > 1;
    int u8 = !a.nearest; /* every image in fixed point: the kernels without the other paths */
    for (int64_t k = 0; k < p->n; k++) u8 &= img[k].kind == AUG__WARP_FIXED;
    const int mode = p->interp == AUG_WARP_CUBIC ? WARP_CUBIC : u8 ? WARP_U8 : WARP_GENERIC;
    /* the pixel path: uint8 pixels of at most 4 adjacent channels */
    a.pix = !proj && mode == WARP_U8 && C >= 1 && C <= 4;
    for (int64_t k = 0; a.pix && k < p->n; k++) a.pix = C == 1 || img[k].sc == 1;
    a.slots = a.pix ? p->n * ((p->height + PIX_TY - 1) / PIX_TY) * ((p->width + PIX_TX - 1) / PIX_TX) * 32 : 0;
    aug__cuda_grid g = aug__cuda_grid_for(e, a.pix ? a.slots : a.n, 256);
    int narrow = index32(&a, img, p->n, (int64_t)g.blocks * g.threads);
    if (a.pix && !narrow) { /* the 64-bit kernels: the value path */
        a.pix = 0, a.slots = 0;
        g = aug__cuda_grid_for(e, a.n, 256);
        narrow = index32(&a, img, p->n, (int64_t)g.blocks * g.threads);
    }
    /* the staged paths, a block per tile of STAGE_TX x STAGE_TY outputs of a plane
     * (warp_stage*.cuh): fixed point (affine or perspective), the float32 kind (affine or
     * perspective, sources of one element size E, E-aligned: float32, 2- or 1-byte), or
     * nearest / bicubic of uint8 sources (affine or perspective, any output dtype), of packed
     * pixels (column stride C elements, 1-4 channels of channel stride 1) or planes of 1-element
     * columns (CHW) */
    int f32 = narrow && mode == WARP_GENERIC && !a.nearest && p->n > 0; /* the float32 kind, E-byte sources */
    const int64_t fe = f32 ? aug__ctype_size(img[0].dtype) : 1;
    for (int64_t k = 0; f32 && k < p->n; k++)
        f32 = img[k].kind == AUG__WARP_FLOAT && aug__ctype_size(img[k].dtype) == fe &&
              (((uintptr_t)img[k].base | (uintptr_t)img[k].sh | (uintptr_t)img[k].sc) & (uintptr_t)(fe - 1)) == 0;
    int interp8 = a.nearest || mode == WARP_CUBIC;
    for (int64_t k = 0; interp8 && k < p->n; k++) interp8 = img[k].dtype == AUG__CT_UINT8;
    const int64_t el = f32 ? fe : 1;
    int stage = !narrow                 ? STAGE_NONE
                : f32                   ? (proj ? STAGE_PERSP_F32 : STAGE_F32) + (fe == 2 ? 2 : fe == 1 ? 4 : 0)
                : interp8 && a.nearest  ? (proj ? STAGE_PERSP_NEAREST_U8 : STAGE_NEAREST_U8)
                : interp8               ? (proj ? STAGE_PERSP_CUBIC_U8 : STAGE_CUBIC_U8)
                : mode != WARP_U8       ? STAGE_NONE
                : proj                  ? STAGE_PERSP_U8
                                        : STAGE_U8;
    int packed = C <= 4, planar = C > 1;
    for (int64_t k = 0; stage && k < p->n; k++) {
        packed &= img[k].sw == C * el && (C == 1 || img[k].sc == el);
        planar &= img[k].sw == el;
    }
    if (!packed) stage = planar ? stage : STAGE_NONE;
    planar = !packed;
    /* the affine uint8 warps (bilinear, nearest, bicubic) on tiles STAGE_TY_TALL high
     * (aug__k_warp_u8_tall, _nearest_u8_tall, _cubic_u8_tall) wherever every image's box of
     * such a tile (a bound from the matrix: its columns and rows over 32 x 32 outputs plus the
     * taps, a row's alignment) fits the kernel's budget, else 32 x 8: the output rows stay 32
     * wide (whole sectors stored) while the box's rows widen, e.g. at 90 degrees from 8-9
     * pixels (a plane's rows 2 words in 1-2 sectors: 0.497 nearest, 0.554 bilinear) to 33, and
     * its edges cost less per output (CHW at 30 degrees 0.655 -> 0.734). A side's pixels: the
     * samples' span, 2 for its floors and count, the taps beside the cells (nearest 1, bilinear
     * 2, bicubic 3: stage_box's margins). Into channels-last uint8 of packed pixels the tile
     * rows store coalesced (stage_rows), so those take them too; into other NHWC (cfast)
     * outputs bilinear and bicubic keep 32 x 8: their lanes store a pixel's bytes C apart
     * (0.333), which weigh more against the tall tiles' fewer load sectors (rotated 30 degrees
     * 0.571 -> 0.535); nearest stores c fastest */
    const int rows8 = !planar && a.dst_dtype == AUG__CT_UINT8 && a.dc == 1 && a.dx == C; /* stage_rows */
    int tall = stage == STAGE_NEAREST_U8 || ((!a.cfast || rows8) && (stage == STAGE_U8 || stage == STAGE_CUBIC_U8));
    const double taps = stage == STAGE_NEAREST_U8 ? 3.0 : stage == STAGE_U8 ? 4.0 : 5.0;
    const double budget = stage == STAGE_CUBIC_U8 ? STAGE_CUBIC_BYTES : STAGE_BYTES;
    for (int64_t k = 0; tall && k < p->n; k++) {
        const double *m = img[k].m;
        const double cols = (fabs(m[0]) + fabs(m[1])) * STAGE_TY_TALL + taps;
        const double rows = (fabs(m[3]) + fabs(m[4])) * STAGE_TY_TALL + taps;
        tall = (cols * (double)(planar ? 1 : C) + 16.0) * rows <= budget;
    }
    if (tall)
        stage = stage == STAGE_NEAREST_U8 ? STAGE_NEAREST_U8_TALL
                : stage == STAGE_U8       ? STAGE_U8_TALL
                                          : STAGE_CUBIC_U8_TALL;
    if (stage) {
        warp_args b = a;
        b.pix = planar ? STAGE_PLANAR : 1;
        const int64_t ty = tall ? STAGE_TY_TALL : STAGE_TY;
        b.slots = p->n * (planar ? C : 1) * ((p->height + ty - 1) / ty) * ((p->width + STAGE_TX - 1) / STAGE_TX);
        const aug__cuda_grid gs = aug__cuda_grid_for(e, b.slots * STAGE_PIXELS, STAGE_PIXELS);
        if (index32(&b, img, p->n, (int64_t)gs.blocks * gs.threads)) a = b, g = gs;
        else stage = STAGE_NONE;
    }
    g.threads = aug__cuda_bounded(g.threads, WARP_BOUND(narrow, mode == WARP_U8));
    void *tmp = NULL;
    st = aug__cuda_tmp_upload(func, dev, host, bytes, stream, &tmp);
    free(host);
    if (st) return st;
    char *dev_mem = (char *)tmp;
    a.img = (const wimg *)(const void *)(dev_mem + oimg);
    a.bg = (const double *)(const void *)(dev_mem + obg);
    a.bgf = (const float *)(const void *)(dev_mem + obgf);
    a.bgb = (const uint8_t *)(dev_mem + obgb);
    st = launch(func, proj, mode, narrow, stage, g, stream, a);
    aug__cuda_tmp_free(dev, dev_mem, bytes, stream);
    return st;
}

aug_status aug__cuda_warp_affine(const aug__warp_plan *p) { return warp_run(p, 0); }
aug_status aug__cuda_warp_perspective(const aug__warp_plan *p) { return warp_run(p, 1); }
