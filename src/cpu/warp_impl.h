/* cpu/warp_impl.h: what cpu/warp.c (driver, double and uint8 kernels) and
 * cpu/warp_float.c (float32 kernel) share (private). The arithmetic of a sample
 * is scalar/warp.h's, shared with the CUDA backend. */
#ifndef AUG_CPU_WARP_IMPL_H
#define AUG_CPU_WARP_IMPL_H
#include <stdint.h>
#include "core/warp.h"
#include "scalar/warp.h"

/* Output pixels per inner block: the coordinate and accumulator buffers stay on
 * the stack and in L1. */
#define CHUNK 64
/* Channels per pass of the accumulating loops (their buffers are CGROUP x CHUNK). */
#define CGROUP 16

typedef struct warp_ctx {
    const aug__warp_plan *plan;
    int64_t rows_per_task, tasks_per_image;
    char *dst;                    /* element [0, 0, 0, 0] */
    int64_t dn, dc, dy, dx;       /* its element strides (image, channel, row, pixel) */
    int64_t dst_item;
    aug_dtype dst_dtype;
    int simd;                     /* AUG__SIMD_* level of this call */
    const uint8_t *bg_u8;         /* the background as bytes when every value is an integer in
                                   * [0, 255] (else NULL: no fixed-point kernel) */
    const float *bg_f32;          /* the background rounded to float32 when every value is finite
                                   * there (else NULL: no float32 kernel) */
    const char *bg_dst;           /* the background converted to dst_dtype (nearest kernel) */
} warp_ctx;

/* One image's geometry, shared by all kernels. */
typedef struct warp_img {
    const char *base;             /* element [0, 0, 0] */
    int64_t H, W, C;
    int64_t sh, sw, sc;           /* strides in bytes */
    aug_dtype dtype;
    double m[6];
    int s;
    int border;                   /* aug_warp_border */
    double d[64];                 /* sample offsets d[k] for k < min(s, 64); larger s computes them */
} warp_img;

static inline double warp_sample_offset(const warp_img *im, int k) {
    return k < 64 ? im->d[k] : aug__warp_offset(k, im->s);
}

#define warp_floor_small aug__warp_floor
#define warp_clampd aug__warp_clamp

/* Element offset of output value (n, c, y, x). */
static inline int64_t warp_dst_at(const warp_ctx *cx, int64_t n, int64_t c, int64_t y, int64_t x) {
    return n * cx->dn + c * cx->dc + y * cx->dy + x * cx->dx;
}

/* The float32 kernel's rows (cpu/warp_float.c). */
AUG__HIDDEN void aug__warp_rows_float(const warp_ctx *cx, const warp_img *im, int64_t n, int64_t y0, int64_t y1);
/* The nearest-neighbour rows (cpu/warp_nearest.c); bg_dst: the C background
 * values converted to the destination dtype (C * dst_item bytes). */
AUG__HIDDEN void aug__warp_rows_nearest(const warp_ctx *cx, const warp_img *im, const char *bg_dst, int64_t n,
                                        int64_t y0, int64_t y1);

#endif
