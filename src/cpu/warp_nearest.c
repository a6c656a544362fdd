/* cpu/warp_nearest.c: the nearest-neighbour kernel of the CPU affine warp
 * (aug_warp_options.interpolation = AUG_WARP_NEAREST; docs/warp.md).
 *
 * Output pixel (x, y) reads one source value: the pixel centre maps through
 * the inverse matrix exactly as a bilinear sample does (scalar/warp.h, double,
 * no contraction), sx = bound(m00*x + (m01*y + m02)) (same in y), and the cell
 * is (floor(sx + 0.5), floor(sy + 0.5)); the border maps it into the source or,
 * for the constant border, outside (the background). Supersampling is ignored:
 * a mean of samples would blend labels. The value is stored with saturate_cast
 * from the source dtype (exact: no detour through double, so int64 labels
 * survive); the background, a double, is saturate_cast to the destination
 * dtype. Values are gathered per channel into a row buffer of the source dtype
 * and converted in one aug__convert call. */
#include <stdint.h>
#include <string.h>
#include "cpu.h"
#include "cpu/convert.h"
#include "warp_impl.h"

/* Source byte offsets of the CHUNK pixels x0 .. x0+cw-1 of row y (OUTSIDE: none;
 * strides may be negative). The coordinates come first in a pass of their own
 * (the clamp of the constant / replicate borders vectorises). */
#define OUTSIDE INT64_MIN
static void nearest_offsets(const warp_img *im, int64_t y, int64_t x0, int cw, int64_t *off) {
    const double *m = im->m;
    double Y = (double)y;
    double bx = aug__warp_rowterm(m[1], Y, m[2]), by = aug__warp_rowterm(m[4], Y, m[5]);
    int32_t xs = (int32_t)x0; /* Wt < 2^31 */
    double sx[CHUNK], sy[CHUNK];
    if (im->border == AUG__WB_CONSTANT || im->border == AUG__WB_REPLICATE) {
        double w = (double)im->W, h = (double)im->H;
        for (int k = 0; k < cw; k++) {
            double X = (double)(xs + k);
            sx[k] = aug__warp_coord(m[0], X, bx, w), sy[k] = aug__warp_coord(m[3], X, by, h);
        }
    } else {
        for (int k = 0; k < cw; k++) {
            double X = (double)(xs + k);
            sx[k] = aug__warp_coord_b(m[0], X, bx, im->W, im->border);
            sy[k] = aug__warp_coord_b(m[3], X, by, im->H, im->border);
        }
    }
    const int64_t W = im->W, H = im->H, sh = im->sh, sw = im->sw;
    if (im->border == AUG__WB_CONSTANT) {
        for (int k = 0; k < cw; k++) {
            int64_t ix = aug__warp_nearest_cell(sx[k]), iy = aug__warp_nearest_cell(sy[k]);
            off[k] = (uint64_t)ix < (uint64_t)W && (uint64_t)iy < (uint64_t)H ? iy * sh + ix * sw : OUTSIDE;
        }
        return;
    }
    for (int k = 0; k < cw; k++) {
        int64_t jx = aug__warp_index(aug__warp_nearest_cell(sx[k]), W, im->border);
        int64_t jy = aug__warp_index(aug__warp_nearest_cell(sy[k]), H, im->border);
        off[k] = jy * sh + jx * sw;
    }
}

/* Same dtype in and out: values straight into the output (pixel stride dxb bytes). */
#define COPY(T)                                                                       \
    for (int k = 0; k < cw; k++) {                                                    \
        T v;                                                                          \
        memcpy(&v, off[k] != OUTSIDE ? base + off[k] : bgc, sizeof v);                \
        memcpy(out + k * dxb, &v, sizeof v);                                          \
    }
/* Else: gathered into buf (zeros outside), converted, the background written over. */
#define GATHER(T)                                                                     \
    for (int k = 0; k < cw; k++) {                                                    \
        T v = 0;                                                                      \
        if (off[k] != OUTSIDE) memcpy(&v, base + off[k], sizeof v);                   \
        memcpy(buf + k * (int64_t)sizeof v, &v, sizeof v);                            \
    }

void aug__warp_rows_nearest(const warp_ctx *cx, const warp_img *im, const char *bg_dst, int64_t n, int64_t y0,
                            int64_t y1) {
    const aug__warp_plan *pl = cx->plan;
    const int64_t C = pl->channels, Wt = pl->width, item = aug_dtype_info(im->dtype)->size, di = cx->dst_item;
    const int64_t dxb = cx->dx * di, sc = im->sc;
    /* a bool source may hold bytes other than 0 / 1: those go through the conversion */
    const int same = im->dtype == cx->dst_dtype && im->dtype != AUG_BOOL;
    int64_t off[CHUNK];
    _Alignas(8) char buf[CHUNK * 8];
    for (int64_t x0 = 0; x0 < Wt; x0 += CHUNK) {
        int cw = (int)(Wt - x0 < CHUNK ? Wt - x0 : CHUNK);
        for (int64_t y = y0; y < y1; y++) {
            nearest_offsets(im, y, x0, cw, off);
            for (int64_t c = 0; c < C; c++) {
                const char *base = im->base + c * sc, *bgc = bg_dst + c * di;
                char *out = cx->dst + warp_dst_at(cx, n, c, y, x0) * di;
                if (same) {
                    switch (item) {
                    case 1: COPY(uint8_t) break;
                    case 2: COPY(uint16_t) break;
                    case 4: COPY(uint32_t) break;
                    default: COPY(uint64_t) break;
                    }
                    continue;
                }
                switch (item) {
                case 1: GATHER(uint8_t) break;
                case 2: GATHER(uint16_t) break;
                case 4: GATHER(uint32_t) break;
                default: GATHER(uint64_t) break;
                }
                aug__convert(buf, item, im->dtype, out, dxb, cx->dst_dtype, cw);
                for (int k = 0; k < cw; k++)
                    if (off[k] == OUTSIDE) memcpy(out + k * dxb, bgc, (size_t)di);
            }
        }
    }
}
