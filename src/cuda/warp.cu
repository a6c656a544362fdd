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
 *    in double and divided by s^2.
 * A neighbour outside the source takes the background (as a byte / float for
 * the fixed / float32 kernels) with the constant border; the other borders map
 * its index into the source (aug__warp_index). Nearest neighbour reads the one
 * value at floor(sx + 0.5), floor(sy + 0.5) of the pixel centre and stores it
 * exactly (integers through a 128-bit value, floats through double). The
 * output has any (N, C, H, W) element strides (NCHW or NHWC). So the results
 * are the CPU's bit for bit. */
#include <stdlib.h>
#include <string.h>
#include "cuda/values.cuh"
#include "core/warp.h"
#include "scalar/warp.h"

/* One source image. */
typedef struct wimg {
    const char *base;      /* element [0, 0, 0] */
    int64_t H, W;
    int64_t sh, sw, sc;    /* strides in bytes */
    double m[9];           /* 6 values (affine) or 9 (a homography) */
    int dtype, s, kind, border;
} wimg;

typedef struct warp_args {
    const wimg *img;
    const double *bg;      /* C values */
    const float *bgf;      /* C values (float32 kernel) */
    const uint8_t *bgb;    /* C values (fixed-point kernel) */
    char *dst;
    int64_t C, Ht, Wt, n;  /* n: values of the batch */
    int64_t dn, dc, dy, dx; /* output element strides */
    int dst_dtype, nearest;
} warp_args;

/* The source indices of the four neighbours of a cell (-1: outside, constant
 * border) and which of them lie inside. */
typedef struct cell {
    int64_t x0, x1, y0, y1;
    int v00, v01, v10, v11;
} cell;

AUG_DEV cell cell_at(const wimg &im, double fx0, double fy0) {
    cell k;
    const int64_t ix = (int64_t)fx0, iy = (int64_t)fy0;
    k.x0 = aug__warp_index(ix, im.W, im.border), k.x1 = aug__warp_index(ix + 1, im.W, im.border);
    k.y0 = aug__warp_index(iy, im.H, im.border), k.y1 = aug__warp_index(iy + 1, im.H, im.border);
    int vx0 = k.x0 >= 0, vx1 = k.x1 >= 0, vy0 = k.y0 >= 0, vy1 = k.y1 >= 0;
    k.v00 = vy0 & vx0, k.v01 = vy0 & vx1, k.v10 = vy1 & vx0, k.v11 = vy1 & vx1;
    return k;
}

/* Byte offset of neighbour (dx, dy) of the cell, channel c (formed only for a neighbour inside). */
AUG_DEV int64_t at(const wimg &im, const cell &k, int dx, int dy, int64_t c) {
    return (dy ? k.y1 : k.y0) * im.sh + (dx ? k.x1 : k.x0) * im.sw + c * im.sc;
}

/* The exact (double) sample of channel c at (sx, sy). */
AUG_DEV double sample_f64(const wimg &im, double sx, double sy, int64_t c, double b) {
    double fx0 = aug__warp_floor(sx), fy0 = aug__warp_floor(sy);
    cell k = cell_at(im, fx0, fy0);
    if (!(k.v00 | k.v01 | k.v10 | k.v11)) return b;
    double a00 = k.v00 ? aug__load_f64(im.base + at(im, k, 0, 0, c), im.dtype) : b;
    double a01 = k.v01 ? aug__load_f64(im.base + at(im, k, 1, 0, c), im.dtype) : b;
    double a10 = k.v10 ? aug__load_f64(im.base + at(im, k, 0, 1, c), im.dtype) : b;
    double a11 = k.v11 ? aug__load_f64(im.base + at(im, k, 1, 1, c), im.dtype) : b;
    return aug__warp_bilinear_f64(a00, a01, a10, a11, sx - fx0, sy - fy0);
}

/* The float32 sample. */
AUG_DEV float sample_f32(const wimg &im, double sx, double sy, int64_t c, float b) {
    double fx0 = aug__warp_floor(sx), fy0 = aug__warp_floor(sy);
    cell k = cell_at(im, fx0, fy0);
    if (!(k.v00 | k.v01 | k.v10 | k.v11)) return b;
    float a00 = k.v00 ? aug__load_f32(im.base + at(im, k, 0, 0, c), im.dtype) : b;
    float a01 = k.v01 ? aug__load_f32(im.base + at(im, k, 1, 0, c), im.dtype) : b;
    float a10 = k.v10 ? aug__load_f32(im.base + at(im, k, 0, 1, c), im.dtype) : b;
    float a11 = k.v11 ? aug__load_f32(im.base + at(im, k, 1, 1, c), im.dtype) : b;
    return aug__warp_bilinear_f32(a00, a01, a10, a11, (float)(sx - fx0), (float)(sy - fy0));
}

/* The fixed-point sample: the 2^22-scaled bilinear value. */
AUG_DEV uint32_t sample_u8(const wimg &im, double sx, double sy, int64_t c, uint32_t b) {
    int32_t qx = aug__warp_fixed_pos(sx), qy = aug__warp_fixed_pos(sy);
    cell k = cell_at(im, (double)aug__warp_fixed_cell(qx), (double)aug__warp_fixed_cell(qy));
    const uint8_t *p = (const uint8_t *)im.base;
    uint32_t a00 = k.v00 ? p[at(im, k, 0, 0, c)] : b, a01 = k.v01 ? p[at(im, k, 1, 0, c)] : b;
    uint32_t a10 = k.v10 ? p[at(im, k, 0, 1, c)] : b, a11 = k.v11 ? p[at(im, k, 1, 1, c)] : b;
    return aug__warp_bilerp_u8(a00, a01, a10, a11, aug__warp_fixed_frac(qx), aug__warp_fixed_frac(qy));
}

/* Source value at p (ctype t) stored exactly into ctype dt at out (saturate_cast). */
AUG_DEV void copy_value(const char *p, int t, int dt, char *out) {
    if (t == AUG__CT_FLOAT16 || t == AUG__CT_BFLOAT16 || t == AUG__CT_FLOAT32 || t == AUG__CT_FLOAT64)
        aug__store_f64(aug__load_f64(p, t), dt, out);
    else
        aug__store_i128(aug__load_i128(p, t), dt, out);
}

/* Nearest neighbour: output value (n, c, y, x). */
template <bool PROJ>
AUG_DEV void nearest(const warp_args &a, const wimg &im, int64_t c, int64_t y, int64_t x, char *out) {
    double sx, sy;
    int inside = 1;
    if (PROJ) {
        inside = aug__warp_project(im.m, (double)x, (double)y, im.W, im.H, im.border, &sx, &sy);
    } else {
        const double bx = aug__warp_rowterm(im.m[1], (double)y, im.m[2]);
        const double by = aug__warp_rowterm(im.m[4], (double)y, im.m[5]);
        sx = aug__warp_coord_b(im.m[0], (double)x, bx, im.W, im.border);
        sy = aug__warp_coord_b(im.m[3], (double)x, by, im.H, im.border);
    }
    const int64_t jx = inside ? aug__warp_index(aug__warp_nearest_cell(sx), im.W, im.border) : -1;
    const int64_t jy = inside ? aug__warp_index(aug__warp_nearest_cell(sy), im.H, im.border) : -1;
    if (jx < 0 || jy < 0) aug__store_f64(a.bg[c], a.dst_dtype, out);
    else copy_value(im.base + (jy * im.sh + jx * im.sw + c * im.sc), im.dtype, a.dst_dtype, out);
}

/* The warp sample took 96-114 registers per thread, more than the 64 of a
 * 1024-thread block: blocks of at most 512 threads (65536 / 512 = 128 registers
 * each), capped at launch. */
#define WARP_THREADS 512

/* The body of both kernels: PROJ maps each sample with the homography. */
template <bool PROJ>
AUG_DEV void warp_body(const warp_args &a) {
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += step) {
        /* value i in the output's memory order (consecutive threads write
         * consecutive addresses): x fastest for NCHW, c fastest for NHWC */
        int64_t x, y, c, n;
        if (a.dc == 1 && a.C > 1) {
            const int64_t r = i / a.C, q = r / a.Wt;
            c = i % a.C, x = r % a.Wt, y = q % a.Ht, n = q / a.Ht;
        } else {
            const int64_t r = i / a.Wt, q = r / a.Ht;
            x = i % a.Wt, y = r % a.Ht, c = q % a.C, n = q / a.C;
        }
        const wimg &im = a.img[n];
        const int s = im.s;
        char *out = a.dst + (n * a.dn + c * a.dc + y * a.dy + x * a.dx) * aug__ctype_size(a.dst_dtype);
        if (a.nearest) {
            nearest<PROJ>(a, im, c, y, x, out);
            continue;
        }
        double acc = 0.0;
        uint32_t acc8 = 0;
        float v1 = 0.0f;
        for (int j = 0; j < s; j++) {
            const double Y = (double)y + aug__warp_offset(j, s);
            const double bx = aug__warp_rowterm(im.m[1], Y, im.m[2]), by = aug__warp_rowterm(im.m[4], Y, im.m[5]);
            for (int k = 0; k < s; k++) {
                const double X = (double)x + aug__warp_offset(k, s);
                double sx, sy;
                if (PROJ) {
                    if (!aug__warp_project(im.m, X, Y, im.W, im.H, im.border, &sx, &sy)) {
                        /* outside the source plane: the background (as sample_* give it with
                         * every neighbour outside) */
                        if (im.kind == AUG__WARP_FIXED) {
                            const uint32_t b = a.bgb[c], v = aug__warp_bilerp_u8(b, b, b, b, 0, 0);
                            if (s == 1) acc8 = aug__warp_fixed_s1(v);
                            else acc8 += aug__warp_fixed_acc(v);
                        } else if (im.kind == AUG__WARP_FLOAT) {
                            v1 = a.bgf[c];
                            acc += (double)v1;
                        } else {
                            acc += a.bg[c];
                        }
                        continue;
                    }
                } else {
                    sx = aug__warp_coord_b(im.m[0], X, bx, im.W, im.border);
                    sy = aug__warp_coord_b(im.m[3], X, by, im.H, im.border);
                }
                if (im.kind == AUG__WARP_FIXED) {
                    uint32_t v = sample_u8(im, sx, sy, c, a.bgb[c]);
                    if (s == 1) acc8 = aug__warp_fixed_s1(v);
                    else acc8 += aug__warp_fixed_acc(v);
                } else if (im.kind == AUG__WARP_FLOAT) {
                    v1 = sample_f32(im, sx, sy, c, a.bgf[c]);
                    acc += (double)v1;
                } else {
                    acc += sample_f64(im, sx, sy, c, a.bg[c]);
                }
            }
        }
        if (im.kind == AUG__WARP_FIXED) *(uint8_t *)out = s == 1 ? (uint8_t)acc8 : aug__warp_fixed_mean(acc8, s);
        else if (im.kind == AUG__WARP_FLOAT && s == 1) aug__store_f32(v1, a.dst_dtype, out);
        else aug__store_f64(s > 1 ? acc / ((double)s * (double)s) : acc, a.dst_dtype, out);
    }
}

AUG_GLOBAL_BOUNDED(WARP_THREADS) void aug__k_warp(warp_args a) { warp_body<false>(a); }
AUG_GLOBAL_BOUNDED(WARP_THREADS) void aug__k_warp_persp(warp_args a) { warp_body<true>(a); }

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
        const int nm = proj ? 9 : 6;
        for (int k = 0; k < nm; k++) m->m[k] = (double)p->matrices[nm * n + k];
        m->dtype = (int)t->dtype;
        m->s = p->supersampling[n];
        m->border = p->border;
        m->kind = proj ? aug__warp_persp_kind(m->dtype, (int)p->dst->dtype, m->H, m->W, m->s, bytes_ok, floats_ok,
                                              m->border)
                       : aug__warp_kind(m->dtype, (int)p->dst->dtype, m->sc, m->H, m->W, m->s, bytes_ok, floats_ok,
                                        m->border);
    }
    void *tmp = NULL;
    st = aug__cuda_tmp_upload(func, dev, host, bytes, stream, &tmp);
    free(host);
    if (st) return st;
    char *dev_mem = (char *)tmp;
    warp_args a;
    a.img = (const wimg *)(const void *)(dev_mem + oimg);
    a.bg = (const double *)(const void *)(dev_mem + obg);
    a.bgf = (const float *)(const void *)(dev_mem + obgf);
    a.bgb = (const uint8_t *)(dev_mem + obgb);
    a.dst = p->dst->data + p->dst->byte_offset;
    a.C = C, a.Ht = p->height, a.Wt = p->width, a.n = p->n * C * p->height * p->width;
    a.dst_dtype = (int)p->dst->dtype;
    a.dn = p->dst->strides[0], a.dc = p->dst->strides[1], a.dy = p->dst->strides[2], a.dx = p->dst->strides[3];
    a.nearest = p->interp == AUG_WARP_NEAREST;
    aug__cuda_grid g = aug__cuda_grid_for(e, a.n, 256);
    g.threads = aug__cuda_bounded(g.threads, WARP_THREADS);
    if (proj) {
        AUG_LAUNCH(aug__k_warp_persp, g.blocks, g.threads, 0, stream, a);
        st = aug__cuda_launched(func, "aug__k_warp_persp", g.blocks, g.threads);
    } else {
        AUG_LAUNCH(aug__k_warp, g.blocks, g.threads, 0, stream, a);
        st = aug__cuda_launched(func, "aug__k_warp", g.blocks, g.threads);
    }
    aug__cuda_tmp_free(dev, dev_mem, bytes, stream);
    return st;
}

aug_status aug__cuda_warp_affine(const aug__warp_plan *p) { return warp_run(p, 0); }
aug_status aug__cuda_warp_perspective(const aug__warp_plan *p) { return warp_run(p, 1); }
