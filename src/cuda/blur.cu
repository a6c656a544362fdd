/* cuda/blur.cu: the box and Gaussian blurs on the GPU (semantics §13, manual
 * 3.1.4.4), in the CPU backend's exact order of operations, so results are
 * the CPU's bit for bit (the taps are core/blur.c's, computed on the host; the
 * module is built with --fmad=false and uses fmaf only where the CPU does).
 *
 * Each plan path (core/blur.h) has its kernels, one thread per output value:
 *  - GENERIC, T = float or double (the plan's acc): a vertical pass writes
 *    sum_j (T)w[j] * x[clamp(y + lo + j)] into a T buffer, taking the taps four
 *    at a time as ((w0 x0 + w1 x1) + w2 x2) + w3 x3 added to the running sum
 *    (the CPU's row loops), then the rest one by one, then the nonzero tails;
 *    a horizontal pass does the same over the buffer's row with edges
 *    replicated, adds tail_lo * v[0] + tail_hi * v[W - 1] when a tail is
 *    nonzero, and stores (T to the dtype; the box divides by ksize^2 in double
 *    first);
 *  - BOX8: the exact integer window sum and scalar/blur.h's rounded mean, one
 *    kernel over shared-memory tiles of 16 rows (see BOX8 below);
 *  - GAUSS8: cpu/blur_uint8.c's float32 order (pairs of mirrored taps, singles,
 *    tails, fmaf) and aug__blur8_round.
 * Images whose kernel size is 1 are copied. Planes go through the T buffer in
 * groups that keep it at most 64 MiB, queued one after the other on the
 * plan's stream. Both passes run as shared-memory tiles (every line value a
 * tile's windows read is loaded and converted once) whenever the plan's widest
 * window fits in 48 KiB (with 32-bit indices unless the group is past 2^31); the
 * plain kernels, one value per thread reading global memory, take the rest. All
 * compute each value the same way.
 * PIL8 (PIL's GaussianBlur) is cuda/blur_pil.cu's. */
#include <string.h>
#include <stdlib.h>
#include "cuda/values.cuh"
#include "core/blur.h"

#define GROUP_BYTES ((int64_t)64 << 20)

/* One 1-D pass of one image (core/blur.h's aug__taps, its weights at w). */
typedef struct pass_d {
    int64_t lo, hi, w;
    double tail_lo, tail_hi;
    int sym;
} pass_d;
typedef struct image_d {
    pass_d v, h;
    int copy;
} image_d;

typedef struct blur_args {
    const char *src;
    char *dst;
    void *buf;              /* the group's T values (GENERIC, GAUSS8) */
    const image_d *img;     /* nt entries */
    const double *w;        /* every pass's weights */
    int64_t nt, c, H, W, plane0, n; /* the group: planes plane0 .., n values */
    int64_t ksize;          /* BOX8 */
    double box_div;         /* GENERIC box: ksize^2; Gaussian: 0 */
    int dtype;
    unsigned flip;          /* BOX8, GAUSS8: 0x80 for int8 */
} blur_args;

/* Where value i of the group lies, and its image's kernels. */
typedef struct pos_d {
    int64_t plane, y, x;
    const image_d *im;
} pos_d;

AUG_DEV pos_d blur_pos(const blur_args &a, int64_t i) {
    pos_d p;
    const int64_t hw = a.H * a.W, q = i / hw, r = i - q * hw;
    p.plane = a.plane0 + q;
    p.y = r / a.W;
    p.x = r - p.y * a.W;
    p.im = a.img + (a.nt == 1 ? 0 : p.plane / a.c);
    return p;
}

AUG_DEV int64_t clampi(int64_t v, int64_t n) { return v < 0 ? 0 : (v >= n ? n - 1 : v); }
/* The 32-bit tiles' (blur_index32). */
AUG_DEV int clampi(int v, int n) { return v < 0 ? 0 : (v >= n ? n - 1 : v); }

/* ---- GENERIC ---------------------------------------------------------------------- */

/* sum_j (T)w[j] * val(base + j * step) over n taps in the CPU's order: groups of
 * four, then singles (val(k): the k-th value along the pass, clamped). */
template <typename T, typename I, typename V> AUG_DEV T tap_sum(const double *w, I n, I first, const V &val) {
    T acc = (T)0;
    I j = 0;
    for (; j + 4 <= n; j += 4) {
        T s = (T)w[j] * val(first + j) + (T)w[j + 1] * val(first + j + 1) + (T)w[j + 2] * val(first + j + 2) +
              (T)w[j + 3] * val(first + j + 3);
        acc = j == 0 ? s : acc + s;
    }
    for (; j < n; j++) {
        T s = (T)w[j] * val(first + j);
        acc = j == 0 ? s : acc + s;
    }
    return acc;
}

/* Value x of a pass's line (clamped to the line) from global memory: a column
 * of the source image converted to T, or a row of the T buffer. I: the index
 * type (int64_t, or int for the 32-bit tiles). */
template <typename T, typename I = int64_t> struct col_val {
    const char *col; /* the plane's column x */
    I H, rstride;
    int dtype;
    AUG_DEV T operator()(I r) const { return aug__load_as(col + clampi(r, H) * rstride, dtype, (T)0); }
};

template <typename T, typename I = int64_t> struct row_val {
    const T *row;
    I W;
    AUG_DEV T operator()(I x) const { return AUG_LD(row + clampi(x, W)); }
};

/* The same from a shared-memory tile holding the line's values base .. base +
 * span - 1 (clamped when loaded); values outside the tile (the tails' edge
 * values) come from `line`. */
template <typename T, typename L, typename I = int64_t> struct tile_val {
    const T *sh;
    I base, span, stride; /* sh[(x - base) * stride] */
    L line;
    AUG_DEV T operator()(I x) const {
        const I k = x - base;
        return k >= 0 && k < span ? sh[k * stride] : line(x);
    }
};

/* Vertical value at row y (the CPU's order, then the nonzero tails). I: the index
 * type (int64_t, or int for the 32-bit tiles below). */
template <typename T, typename V, typename I>
AUG_DEV T v_generic(const blur_args &a, const pass_d &t, I y, const V &val) {
    T acc = tap_sum<T, I>(a.w + t.w, (I)(t.hi - t.lo + 1), y + (I)t.lo, val);
    if (t.tail_lo != 0.0) acc = acc + (T)t.tail_lo * val((I)0);
    if (t.tail_hi != 0.0) acc = acc + (T)t.tail_hi * val((I)(a.H - 1));
    return acc;
}

/* Horizontal value at column x, stored into the output at byte offset `at`. */
template <typename T, typename V, typename I>
AUG_DEV void h_generic(const blur_args &a, const pass_d &t, I x, int64_t at, const V &val) {
    T acc = tap_sum<T, I>(a.w + t.w, (I)(t.hi - t.lo + 1), x + (I)t.lo, val);
    if (t.tail_lo != 0.0 || t.tail_hi != 0.0)
        acc = acc + ((T)t.tail_lo * val((I)0) + (T)t.tail_hi * val((I)(a.W - 1)));
    if (a.box_div != 0.0) aug__store_f64((double)acc / a.box_div, a.dtype, a.dst + at);
    else aug__store_as(acc, a.dtype, a.dst + at);
}

template <typename T> AUG_GLOBAL void aug__k_blur_v(blur_args a) {
    const int64_t step = (int64_t)gridDim.x * blockDim.x, es = aug__ctype_size(a.dtype);
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += step) {
        pos_d p = blur_pos(a, i);
        if (p.im->copy) continue;
        col_val<T> val = {a.src + (p.plane * a.H * a.W + p.x) * es, a.H, a.W * es, a.dtype};
        AUG_ST((T *)a.buf + i, v_generic<T>(a, p.im->v, p.y, val));
    }
}

template <typename T> AUG_GLOBAL void aug__k_blur_h(blur_args a) {
    const int64_t step = (int64_t)gridDim.x * blockDim.x, es = aug__ctype_size(a.dtype);
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += step) {
        pos_d p = blur_pos(a, i);
        const int64_t at = (a.plane0 * a.H * a.W + i) * es;
        if (p.im->copy) {
            memcpy(a.dst + at, a.src + at, (size_t)es);
            continue;
        }
        h_generic<T>(a, p.im->h, p.x, at, row_val<T>{(const T *)a.buf + (i - p.x), a.W});
    }
}

/* ---- BOX8 -------------------------------------------------------------------------
 * A block computes a tile of BOX8_ROWS rows x blockDim.x columns of one plane.
 * It stages the tile and its halo (ksize - 1 more rows and columns, edges
 * replicated, flipped for int8) in shared memory with coalesced byte loads,
 * each source byte of the tile's windows read once; then each thread sums the
 * k bytes of its column's window on every staged row (hs, 16 bits: at most
 * 16 x 255) and slides a k-row window down its column: s += hs[y + k - 1] -
 * hs[y - 1]. The window sums are the same integers as the CPU's
 * (cpu/blur_uint8.c), so aug__box8_mean stores the same bytes. Global loads per
 * output: (R + k - 1)(T + k - 1) / (R T) for R = 16 rows and T threads (1.1 for
 * k = 3 and T = 256, 2.0 for k = 16), against k^2 before. */

#define BOX8_ROWS 16
/* hs of 31 rows x 512 threads (31 KiB) plus the bytes (16 KiB) fit 48 KiB at
 * ksize 16 (AUG__BOX8_MAX): blocks of at most 512 threads, capped at launch. */
#define BOX8_THREADS 512

/* Shared bytes of a box tile of tw threads: hs, then the staged bytes. */
static size_t box8_shared(int64_t tw, int64_t k) {
    return (size_t)((BOX8_ROWS + k - 1) * tw * 2 + (BOX8_ROWS + k - 1) * (tw + k - 1));
}

AUG_GLOBAL_BOUNDED(BOX8_THREADS) void aug__k_blur_box8_tiled(blur_args a) {
    AUG_SHARED_DYN(uint16_t, hs);
    const int64_t tw = blockDim.x, k = a.ksize, o = -(k / 2), hw = a.H * a.W, tid = threadIdx.x;
    const int64_t rows = BOX8_ROWS + k - 1, cols = tw + k - 1;
    uint8_t *raw = (uint8_t *)(hs + rows * tw);
    const int64_t tx = (a.W + tw - 1) / tw, ty = (a.H + BOX8_ROWS - 1) / BOX8_ROWS, planes = a.n / hw;
    const uint32_t kk = (uint32_t)(k * k);
    const aug__box8_div dv = aug__box8_div_for(k);
    for (int64_t tile = blockIdx.x; tile < planes * ty * tx; tile += gridDim.x) {
        const int64_t q = tile / (ty * tx), rem = tile - q * ty * tx, y0 = rem / tx * BOX8_ROWS, x0 = rem % tx * tw;
        const int64_t plane = (a.plane0 + q) * hw;
        const uint8_t *src = (const uint8_t *)a.src + plane;
        for (int64_t r = 0; r < rows; r++) { /* consecutive threads, consecutive bytes of a row */
            const uint8_t *line = src + clampi(y0 + o + r, a.H) * a.W;
            for (int64_t c = tid; c < cols; c += tw)
                raw[r * cols + c] = (uint8_t)(AUG_LD(line + clampi(x0 + o + c, a.W)) ^ a.flip);
        }
        __syncthreads();
        for (int64_t r = 0; r < rows; r++) { /* each thread's column only: no barrier before the slide */
            const uint8_t *w = raw + r * cols + tid;
            uint32_t s = 0;
            for (int64_t c = 0; c < k; c++) s += w[c];
            hs[r * tw + tid] = (uint16_t)s;
        }
        const int64_t x = x0 + tid;
        if (x < a.W) {
            uint32_t s = 0;
            for (int64_t r = 0; r < k; r++) s += hs[r * tw + tid];
            uint8_t *out = (uint8_t *)a.dst + plane + x;
            for (int64_t y = 0; y < BOX8_ROWS && y0 + y < a.H; y++) {
                if (y) s = s + hs[(y + k - 1) * tw + tid] - hs[(y - 1) * tw + tid];
                AUG_ST(out + (y0 + y) * a.W, (uint8_t)(aug__box8_mean(s, kk, dv) ^ a.flip));
            }
        }
        __syncthreads(); /* the next tile overwrites raw */
    }
}

/* ---- GAUSS8 ----------------------------------------------------------------------- */

/* fmaf over the taps in cpu/blur_uint8.c's order: mirrored pairs then the
 * centre when symmetric, else every tap in order. I: the index type (int64_t, or
 * int for the 32-bit tiles below). */
template <typename V, typename I> AUG_DEV float gauss8_sum(const pass_d &t, const double *w, I at, const V &val) {
    float acc = 0.0f;
    const I lo = (I)t.lo, hi = (I)t.hi;
    if (t.sym) {
        for (I i = 1; i <= hi; i++) acc = fmaf((float)w[hi + i], val(at - i) + val(at + i), acc);
        return fmaf((float)w[hi], val(at), acc);
    }
    for (I j = 0; j <= hi - lo; j++) acc = fmaf((float)w[j], val(at + lo + j), acc);
    return acc;
}

template <typename I = int64_t> struct col8_val {
    const uint8_t *col; /* the plane's column x */
    I H, W;
    unsigned flip;
    AUG_DEV float operator()(I r) const { return (float)(uint8_t)(AUG_LD(col + clampi(r, H) * W) ^ flip); }
};

template <typename V, typename I> AUG_DEV float v_gauss8(const blur_args &a, const pass_d &t, I y, const V &val) {
    float acc = gauss8_sum(t, a.w + t.w, y, val);
    const float tl = (float)t.tail_lo, tr = (float)t.tail_hi;
    if (tl != 0.0f) acc = fmaf(tl, val((I)0), acc);
    if (tr != 0.0f) acc = fmaf(tr, val((I)(a.H - 1)), acc);
    return acc;
}

template <typename V, typename I>
AUG_DEV void h_gauss8(const blur_args &a, const pass_d &t, I x, int64_t at, const V &val) {
    float acc = gauss8_sum(t, a.w + t.w, x, val);
    const float c0 = (float)t.tail_lo * val((I)0), c1 = (float)t.tail_hi * val((I)(a.W - 1));
    if (c0 != 0.0f) acc = acc + c0;
    if (c1 != 0.0f) acc = acc + c1;
    AUG_ST((uint8_t *)a.dst + at, (uint8_t)(aug__blur8_round(acc) ^ a.flip));
}

AUG_GLOBAL void aug__k_blur_gauss8_v(blur_args a) {
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += step) {
        pos_d p = blur_pos(a, i);
        if (p.im->copy) continue;
        col8_val<> val = {(const uint8_t *)a.src + p.plane * a.H * a.W + p.x, a.H, a.W, a.flip};
        AUG_ST((float *)a.buf + i, v_gauss8(a, p.im->v, p.y, val));
    }
}

AUG_GLOBAL void aug__k_blur_gauss8_h(blur_args a) {
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += step) {
        pos_d p = blur_pos(a, i);
        const int64_t at = a.plane0 * a.H * a.W + i;
        if (p.im->copy) {
            ((uint8_t *)a.dst)[at] = ((const uint8_t *)a.src)[at];
            continue;
        }
        h_gauss8(a, p.im->h, p.x, at, row_val<float>{(const float *)a.buf + (i - p.x), a.W});
    }
}

/* ---- shared-memory tiles ------------------------------------------------------------
 * A block computes a tile of its plane: the horizontal pass blockDim.x
 * consecutive values of one row, the vertical pass blockDim.x columns times
 * TILE_ROWS rows. It first loads every line value the tile's taps read (each
 * once, converted) into dynamic shared memory, then computes exactly as the
 * plain kernels above from there. Tiles never straddle planes, so a block
 * agrees on its image's taps and on copying. The launcher takes these when the
 * widest tap window of the plan fits in shared memory. */

#define TILE_ROWS 16

/* T: the buffer / accumulation type; GAUSS8: the 8-bit Gaussian's rules. These
 * 64-bit tiles keep 71-94 registers per thread on sm_75 .. sm_100 (the vertical one
 * spilled at 64): blocks of at most 512 threads, capped at launch. The launcher
 * takes them only for groups past 2^31 (blur_index32; the 32-bit tiles below). */
#define TILED_THREADS 512

template <typename T, int GAUSS8> AUG_GLOBAL_BOUNDED(TILED_THREADS) void aug__k_blur_v_tiled(blur_args a) {
    AUG_SHARED_DYN(T, sh);
    const int64_t tw = blockDim.x, es = aug__ctype_size(a.dtype), hw = a.H * a.W;
    const int64_t tx = (a.W + tw - 1) / tw, ty = (a.H + TILE_ROWS - 1) / TILE_ROWS, planes = a.n / hw;
    for (int64_t tile = blockIdx.x; tile < planes * ty * tx; tile += gridDim.x) {
        const int64_t q = tile / (ty * tx), rem = tile - q * ty * tx, y0 = rem / tx * TILE_ROWS, x0 = rem % tx * tw;
        const int64_t x = x0 + threadIdx.x, xc = x < a.W ? x : a.W - 1;
        pos_d p = blur_pos(a, q * hw);
        if (p.im->copy) continue; /* the whole block skips: no barrier is left waiting */
        const pass_d &t = p.im->v;
        const int64_t base = y0 + t.lo, span = TILE_ROWS + t.hi - t.lo;
        const char *col = a.src + ((p.plane * a.H) * a.W + xc) * es;
        for (int64_t k = 0; k < span; k++) { /* each thread loads its column */
            const char *e = col + clampi(base + k, a.H) * a.W * es;
            sh[k * tw + threadIdx.x] = GAUSS8 ? (T)(uint8_t)(AUG_LD((const uint8_t *)e) ^ a.flip) : aug__load_as(e, a.dtype, (T)0);
        }
        __syncthreads();
        for (int64_t y = y0; x < a.W && y < y0 + TILE_ROWS && y < a.H; y++) {
            T *out = (T *)a.buf + q * hw + y * a.W + x;
            if constexpr (GAUSS8) {
                tile_val<T, col8_val<>> val = {sh + threadIdx.x, base, span, tw,
                                             {(const uint8_t *)col, a.H, a.W, a.flip}};
                AUG_ST(out, (T)v_gauss8(a, t, y, val));
            } else {
                tile_val<T, col_val<T>> val = {sh + threadIdx.x, base, span, tw, {col, a.H, a.W * es, a.dtype}};
                AUG_ST(out, v_generic<T>(a, t, y, val));
            }
        }
        __syncthreads();
    }
}

template <typename T, int GAUSS8> AUG_GLOBAL_BOUNDED(TILED_THREADS) void aug__k_blur_h_tiled(blur_args a) {
    AUG_SHARED_DYN(T, sh);
    const int64_t tw = blockDim.x, es = GAUSS8 ? 1 : aug__ctype_size(a.dtype), tx = (a.W + tw - 1) / tw;
    const int64_t rows = a.n / a.W;
    for (int64_t tile = blockIdx.x; tile < rows * tx; tile += gridDim.x) {
        const int64_t r = tile / tx, x0 = (tile - r * tx) * tw, x = x0 + threadIdx.x;
        const int64_t i = r * a.W + x, at = (a.plane0 * a.H * a.W + i) * es;
        pos_d p = blur_pos(a, r * a.W);
        if (p.im->copy) {
            if (x < a.W) memcpy(a.dst + at, a.src + at, (size_t)es);
            continue;
        }
        const pass_d &t = p.im->h;
        const int64_t base = x0 + t.lo, span = tw + t.hi - t.lo;
        const T *row = (const T *)a.buf + r * a.W;
        for (int64_t k = threadIdx.x; k < span; k += tw) sh[k] = AUG_LD(row + clampi(base + k, a.W));
        __syncthreads();
        if (x < a.W) {
            tile_val<T, row_val<T>> val = {sh, base, span, 1, {row, a.W}};
            if constexpr (GAUSS8) h_gauss8(a, t, x, at, val);
            else h_generic<T>(a, t, x, at, val);
        }
        __syncthreads();
    }
}

/* ---- tiles with 32-bit indices ------------------------------------------------------
 * The tiles of aug__k_blur_v_tiled / aug__k_blur_h_tiled, value for value (the
 * same rules: v_generic / h_generic, v_gauss8 / h_gauss8), with 32-bit indices
 * inside the group (its n values, plane numbers and a plane's bytes at most
 * INT32_MAX: blur_index32) and each plane's first byte in 64 bits. The 64-bit
 * tiles take 71-94 registers (sm_75 .. sm_100): 2 blocks of 256 threads per SM,
 * occupancy 0.25; these, at most 256 threads a block, stay within 64 (4 blocks,
 * 0.5) without spills (sm_75 / sm_80 / sm_90 / sm_100): gauss8_v 62 / 56 / 64 / 64,
 * gauss8_h 57 / 48 / 56 / 56, f32_v 63 / 63 / 64 / 60, f32_h 64 / 64 / 62 / 48,
 * f64_v 63 / 63 / 63 / 60, f64_h 64 / 64 / 64 / 63. One kernel name per type: the
 * emulation's register table holds one count per name. */
/* The vertical tile (blockDim.x columns x TILE_ROWS rows of one plane). */
template <typename T, int GAUSS8> AUG_DEV void blur_v_tile32(const blur_args &a) {
    AUG_SHARED_DYN(T, sh);
    const int tw = (int)blockDim.x, H = (int)a.H, W = (int)a.W, hw = H * W;
    const int es = GAUSS8 ? 1 : aug__ctype_size(a.dtype);
    const int tx = (W + tw - 1) / tw, ty = (H + TILE_ROWS - 1) / TILE_ROWS;
    const unsigned tiles = (unsigned)(a.n / hw) * (unsigned)(ty * tx);
    for (unsigned tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int q = (int)(tile / (unsigned)(ty * tx)), rem = (int)tile - q * ty * tx;
        const int y0 = rem / tx * TILE_ROWS, x0 = rem % tx * tw;
        const int x = x0 + (int)threadIdx.x, xc = x < W ? x : W - 1;
        const int plane = (int)a.plane0 + q;
        const image_d *im = a.img + (a.nt == 1 ? 0 : plane / (int)a.c);
        if (im->copy) continue; /* the whole block skips: no barrier is left waiting */
        const pass_d &t = im->v;
        const int base = y0 + (int)t.lo, span = TILE_ROWS + (int)(t.hi - t.lo);
        const char *col = a.src + ((int64_t)plane * hw + xc) * es;
        for (int k = 0; x < W && k < span; k++) { /* each thread its column (read by it alone) */
            const char *e = col + clampi(base + k, H) * (W * es);
            sh[k * tw + (int)threadIdx.x] =
                GAUSS8 ? (T)(uint8_t)(AUG_LD((const uint8_t *)e) ^ a.flip) : aug__load_as(e, a.dtype, (T)0);
        }
        __syncthreads();
        for (int y = y0; x < W && y < y0 + TILE_ROWS && y < H; y++) {
            T *out = (T *)a.buf + (q * hw + y * W + x);
            if constexpr (GAUSS8) {
                tile_val<T, col8_val<int>, int> val = {sh + threadIdx.x, base, span, tw,
                                                 {(const uint8_t *)col, H, W, a.flip}};
                AUG_ST(out, v_gauss8(a, t, y, val));
            } else {
                tile_val<T, col_val<T, int>, int> val = {sh + threadIdx.x, base, span, tw, {col, H, W * es, a.dtype}};
                AUG_ST(out, v_generic<T>(a, t, y, val));
            }
        }
        __syncthreads();
    }
}

/* The horizontal tile (blockDim.x consecutive values of one row of the buffer). */
template <typename T, int GAUSS8> AUG_DEV void blur_h_tile32(const blur_args &a) {
    AUG_SHARED_DYN(T, sh);
    const int tw = (int)blockDim.x, H = (int)a.H, W = (int)a.W, tx = (W + tw - 1) / tw;
    const int es = GAUSS8 ? 1 : aug__ctype_size(a.dtype);
    const unsigned tiles = (unsigned)(a.n / a.W) * (unsigned)tx;
    for (unsigned tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int r = (int)(tile / (unsigned)tx), x0 = ((int)tile - r * tx) * tw, x = x0 + (int)threadIdx.x;
        const int64_t at = (a.plane0 * a.H * a.W + (r * W + x)) * es;
        const int plane = (int)a.plane0 + r / H;
        const image_d *im = a.img + (a.nt == 1 ? 0 : plane / (int)a.c);
        if (im->copy) {
            if (x < W) memcpy(a.dst + at, a.src + at, (size_t)es);
            continue;
        }
        const pass_d &t = im->h;
        /* the windows of the tile's values inside the row: the last tile may be narrower */
        const int base = x0 + (int)t.lo, span = (W - x0 < tw ? W - x0 : tw) + (int)(t.hi - t.lo);
        const T *row = (const T *)a.buf + r * W;
        for (int k = (int)threadIdx.x; k < span; k += tw) sh[k] = AUG_LD(row + clampi(base + k, W));
        __syncthreads();
        if (x < W) {
            tile_val<T, row_val<T, int>, int> val = {sh, base, span, 1, {row, W}};
            if constexpr (GAUSS8) h_gauss8(a, t, x, at, val);
            else h_generic<T>(a, t, x, at, val);
        }
        __syncthreads();
    }
}

#define TILED32_THREADS 256
/* 4 blocks of 256 threads per SM: at most 64 registers a thread */
#define TILED32 __global__ __launch_bounds__(TILED32_THREADS, 4)
TILED32 void aug__k_blur_gauss8_v_tiled(blur_args a) { blur_v_tile32<float, 1>(a); }
TILED32 void aug__k_blur_gauss8_h_tiled(blur_args a) { blur_h_tile32<float, 1>(a); }
TILED32 void aug__k_blur_f32_v_tiled(blur_args a) { blur_v_tile32<float, 0>(a); }
TILED32 void aug__k_blur_f32_h_tiled(blur_args a) { blur_h_tile32<float, 0>(a); }
TILED32 void aug__k_blur_f64_v_tiled(blur_args a) { blur_v_tile32<double, 0>(a); }
TILED32 void aug__k_blur_f64_h_tiled(blur_args a) { blur_h_tile32<double, 0>(a); }

/* ---- the entry -------------------------------------------------------------------- */

/* The plan's taps as image_d entries followed by every weight, in one host
 * buffer (freed by the caller). */
static void *pack_taps(const aug__blur_plan *p, size_t *bytes) {
    size_t head = (size_t)p->nt * sizeof(image_d), nw = 0;
    for (int64_t i = 0; i < p->nt; i++)
        if (p->ks[i] != 1) nw += (size_t)(p->tv[i].hi - p->tv[i].lo + 1 + p->th[i].hi - p->th[i].lo + 1);
    *bytes = head + nw * sizeof(double);
    char *mem = (char *)calloc(1, *bytes);
    if (!mem) return NULL;
    image_d *img = (image_d *)(void *)mem;
    double *w = (double *)(void *)(mem + head);
    int64_t at = 0;
    for (int64_t i = 0; i < p->nt; i++) {
        img[i].copy = p->ks[i] == 1;
        if (img[i].copy) continue;
        const aug__taps *src[2] = {&p->tv[i], &p->th[i]};
        pass_d *dst[2] = {&img[i].v, &img[i].h};
        for (int k = 0; k < 2; k++) {
            int64_t n = src[k]->hi - src[k]->lo + 1;
            *dst[k] = pass_d{src[k]->lo, src[k]->hi, at, src[k]->tail_lo, src[k]->tail_hi, src[k]->sym};
            memcpy(w + at, src[k]->w, (size_t)n * sizeof(double));
            at += n;
        }
    }
    return mem;
}

typedef void (*blur_kernel)(blur_args);

static aug_status launch(const char *func, const aug__exec *e, blur_kernel k, const char *name, const blur_args &a) {
    aug__cuda_grid g = aug__cuda_grid_for(e, a.n, 256);
    AUG_LAUNCH_NAMED(k, name, g.blocks, g.threads, 0, aug__cuda_stream(e), a);
    return aug__cuda_launched(func, name, g.blocks, g.threads);
}

/* One pass's kernels: plain (one value per thread, lines from global memory) and tiled. */
typedef struct pass_kernels {
    blur_kernel plain, tiled;
    const char *plain_name, *tiled_name;
} pass_kernels;

/* A pass over the group: tiled when the tile of its widest window (span = the
 * largest hi - lo of the plan's taps for this pass) fits in 48 KiB of shared
 * memory, else plain. bound: the tiled kernel's most threads per block. */
static aug_status run_pass(const char *func, const aug__exec *e, const pass_kernels &k, const blur_args &a,
                           int vertical, int64_t span, size_t tsize, unsigned bound = TILED_THREADS) {
    aug__cuda_grid g = aug__cuda_grid_for(e, a.n, 256);
    g.threads = aug__cuda_bounded(g.threads, bound); /* the tile width is the block */
    const int64_t tw = g.threads, planes = a.n / (a.H * a.W), tx = (a.W + tw - 1) / tw;
    const int64_t lines = vertical ? TILE_ROWS + span : 1, width = vertical ? tw : tw + span;
    const size_t shmem = (size_t)(lines * width) * tsize;
    if (tw < 1 || tw > 1024 || shmem > ((size_t)48 << 10)) return launch(func, e, k.plain, k.plain_name, a);
    const int64_t tiles = vertical ? planes * ((a.H + TILE_ROWS - 1) / TILE_ROWS) * tx : a.n / a.W * tx;
    aug__cuda_grid t = aug__cuda_grid_for(e, tiles * tw, 256);
    t.threads = aug__cuda_bounded(t.threads, bound);
    AUG_LAUNCH_NAMED(k.tiled, k.tiled_name, t.blocks, t.threads, shmem, aug__cuda_stream(e), a);
    return aug__cuda_launched(func, k.tiled_name, t.blocks, t.threads);
}

#define PASS(plain, tiled) pass_kernels{plain, tiled, #plain, #tiled}

/* Whether the 32-bit tiles hold every index of group a, es bytes a source value:
 * its values, its plane numbers and a plane's bytes below 2^31. The emulation's
 * AUG_EMU_BLUR_INDEX64=1 takes the 64-bit tiles always (the tests' way to run
 * them on small images). */
static int blur_index32(const blur_args &a, int64_t es) {
#ifdef AUG_CUDA_EMU
    const char *wide = getenv("AUG_EMU_BLUR_INDEX64");
    if (wide && strcmp(wide, "1") == 0) return 0;
#endif
    return a.n <= INT32_MAX && a.H * a.W * es <= INT32_MAX && a.plane0 + a.n / (a.H * a.W) <= INT32_MAX;
}

aug_status aug__cuda_blur_pil(const aug__blur_plan *p); /* cuda/blur_pil.cu */

aug_status aug__cuda_blur(const aug__blur_plan *p) {
    if (p->path == AUG__BLUR_PIL8) return aug__cuda_blur_pil(p);
    const char *func = p->func;
    const aug__exec *e = &p->exec;
    const int dev = e->device.id;
    const cudaStream_t stream = aug__cuda_stream(e);
    aug_status st = aug__cuda_use(func, dev);
    if (st) return st;
    size_t tbytes = 0;
    void *taps = pack_taps(p, &tbytes);
    void *dtaps = taps ? aug__cuda_tmp_alloc(func, dev, tbytes, stream) : NULL;
    if (!dtaps) {
        free(taps);
        return taps ? AUG_ERR_MEMORY : AUG__NOMEM(func); /* tmp_alloc recorded its error */
    }
    st = aug__cuda_upload(func, dtaps, taps, tbytes, stream); /* taps is freed at once */
    free(taps);
    if (st) {
        aug__cuda_tmp_free(dev, dtaps, tbytes, stream);
        return st;
    }

    const int64_t hw = p->h * p->w, planes = p->n * p->c;
    int64_t vspan = 0, hspan = 0; /* the widest windows (hi - lo) of the images blurred */
    for (int64_t i = 0; i < p->nt; i++) {
        if (p->ks[i] == 1) continue;
        if (p->tv[i].hi - p->tv[i].lo > vspan) vspan = p->tv[i].hi - p->tv[i].lo;
        if (p->th[i].hi - p->th[i].lo > hspan) hspan = p->th[i].hi - p->th[i].lo;
    }
    const int64_t tsize = p->path == AUG__BLUR_BOX8 ? 0 : p->path == AUG__BLUR_GAUSS8 || p->acc == AUG_FLOAT32 ? 4 : 8;
    int64_t group = tsize ? GROUP_BYTES / (hw * tsize) : planes;
    if (group < 1) group = 1;
    if (group > planes) group = planes;
    size_t bbytes = (size_t)(group * hw * tsize);
    void *buf = bbytes ? aug__cuda_tmp_alloc(func, dev, bbytes, stream) : NULL;
    if (bbytes && !buf) st = AUG_ERR_MEMORY;
    blur_args a;
    memset(&a, 0, sizeof a);
    a.src = p->src, a.dst = p->dst, a.buf = buf;
    a.img = (const image_d *)dtaps;
    a.w = (const double *)(const void *)((const char *)dtaps + (size_t)p->nt * sizeof(image_d));
    a.nt = p->nt, a.c = p->c, a.H = p->h, a.W = p->w, a.ksize = p->ksize, a.dtype = (int)p->in->dtype;
    a.box_div = p->kind == AUG__BLUR_BOX ? (double)p->ksize * (double)p->ksize : 0.0;
    a.flip = p->in->dtype == AUG_INT8 ? 0x80u : 0u;
    for (int64_t q0 = 0; st == AUG_OK && q0 < planes; q0 += group) {
        a.plane0 = q0;
        a.n = (planes - q0 < group ? planes - q0 : group) * hw;
        switch (p->path) {
        case AUG__BLUR_BOX8: {
            aug__cuda_grid g = aug__cuda_grid_for(e, a.n, 256);
            g.threads = aug__cuda_bounded(g.threads, BOX8_THREADS); /* the tile width is the block */
            const int64_t tw = g.threads;
            const int64_t tiles = a.n / hw * ((p->h + BOX8_ROWS - 1) / BOX8_ROWS) * ((p->w + tw - 1) / tw);
            aug__cuda_grid t = aug__cuda_grid_for(e, tiles * tw, 256);
            t.threads = g.threads;
            AUG_LAUNCH(aug__k_blur_box8_tiled, t.blocks, t.threads, box8_shared(tw, p->ksize), stream, a);
            st = aug__cuda_launched(func, "aug__k_blur_box8_tiled", t.blocks, t.threads);
            break;
        }
        default: { /* GAUSS8, GENERIC: the 32-bit tiles when the group's indices fit */
            const int i32 = blur_index32(a, p->path == AUG__BLUR_GAUSS8 ? 1 : aug__ctype_size(a.dtype));
            pass_kernels v, h;
            if (p->path == AUG__BLUR_GAUSS8) {
                v = i32 ? PASS(aug__k_blur_gauss8_v, aug__k_blur_gauss8_v_tiled)
                        : PASS(aug__k_blur_gauss8_v, (aug__k_blur_v_tiled<float, 1>));
                h = i32 ? PASS(aug__k_blur_gauss8_h, aug__k_blur_gauss8_h_tiled)
                        : PASS(aug__k_blur_gauss8_h, (aug__k_blur_h_tiled<float, 1>));
            } else if (p->acc == AUG_FLOAT32) {
                v = i32 ? PASS(aug__k_blur_v<float>, aug__k_blur_f32_v_tiled)
                        : PASS(aug__k_blur_v<float>, (aug__k_blur_v_tiled<float, 0>));
                h = i32 ? PASS(aug__k_blur_h<float>, aug__k_blur_f32_h_tiled)
                        : PASS(aug__k_blur_h<float>, (aug__k_blur_h_tiled<float, 0>));
            } else {
                v = i32 ? PASS(aug__k_blur_v<double>, aug__k_blur_f64_v_tiled)
                        : PASS(aug__k_blur_v<double>, (aug__k_blur_v_tiled<double, 0>));
                h = i32 ? PASS(aug__k_blur_h<double>, aug__k_blur_f64_h_tiled)
                        : PASS(aug__k_blur_h<double>, (aug__k_blur_h_tiled<double, 0>));
            }
            const unsigned bound = i32 ? TILED32_THREADS : TILED_THREADS;
            st = run_pass(func, e, v, a, 1, vspan, (size_t)tsize, bound);
            if (!st) st = run_pass(func, e, h, a, 0, hspan, (size_t)tsize, bound);
        }
        }
    }
    if (buf) aug__cuda_tmp_free(dev, buf, bbytes, stream);
    aug__cuda_tmp_free(dev, dtaps, tbytes, stream);
    return st;
}
