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
 * strides may be negative). */
#define OUTSIDE INT64_MIN
static void nearest_offsets(const warp_img *im, int64_t y, int64_t x0, int cw, int64_t *off) {
    const double *m = im->m;
    double Y = (double)y;
    double bx = aug__warp_rowterm(m[1], Y, m[2]), by = aug__warp_rowterm(m[4], Y, m[5]);
    int32_t xs = (int32_t)x0; /* Wt < 2^31 */
    for (int k = 0; k < cw; k++) {
        double X = (double)(xs + k);
        int64_t ix = aug__warp_nearest_cell(aug__warp_coord_b(m[0], X, bx, im->W, im->border));
        int64_t iy = aug__warp_nearest_cell(aug__warp_coord_b(m[3], X, by, im->H, im->border));
        int64_t jx = aug__warp_index(ix, im->W, im->border), jy = aug__warp_index(iy, im->H, im->border);
        off[k] = jx < 0 || jy < 0 ? OUTSIDE : jy * im->sh + jx * im->sw;
    }
}

#define GATHER(T)                                                                     \
    for (int k = 0; k < cw; k++) {                                                    \
        T v = 0;                                                                      \
        if (off[k] != OUTSIDE) memcpy(&v, base + off[k], sizeof v);                         \
        memcpy(buf + k * (int64_t)sizeof v, &v, sizeof v);                            \
    }

void aug__warp_rows_nearest(const warp_ctx *cx, const warp_img *im, const char *bg_dst, int64_t n, int64_t y0,
                            int64_t y1) {
    const aug__warp_plan *pl = cx->plan;
    int64_t C = pl->channels, Wt = pl->width, item = aug_dtype_info(im->dtype)->size, di = cx->dst_item;
    int64_t off[CHUNK];
    _Alignas(8) char buf[CHUNK * 8];
    for (int64_t x0 = 0; x0 < Wt; x0 += CHUNK) {
        int cw = (int)(Wt - x0 < CHUNK ? Wt - x0 : CHUNK);
        for (int64_t y = y0; y < y1; y++) {
            nearest_offsets(im, y, x0, cw, off);
            for (int64_t c = 0; c < C; c++) {
                const char *base = im->base + c * im->sc;
                switch (item) {
                case 1: GATHER(uint8_t) break;
                case 2: GATHER(uint16_t) break;
                case 4: GATHER(uint32_t) break;
                default: GATHER(uint64_t) break;
                }
                char *out = cx->dst + warp_dst_at(cx, n, c, y, x0) * di;
                aug__convert(buf, item, im->dtype, out, cx->dx * di, cx->dst_dtype, cw);
                for (int k = 0; k < cw; k++)
                    if (off[k] == OUTSIDE) memcpy(out + k * cx->dx * di, bg_dst + c * di, (size_t)di);
            }
        }
    }
}
