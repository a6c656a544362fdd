/* cuda/warp_stage.cuh: the fixed-point affine warp's staged pixel path
 * (aug__k_warp_u8_tile; included by cuda/warp.cu after the pixel path, whose
 * types and helpers it uses).
 *
 * For packed uint8 pixels (HWC, channel stride 1, column stride C, 1-4
 * channels), or planar ones (CHW: column stride 1, each channel plane warped
 * as an image of one channel), with 32-bit indices: a block takes a tile of
 * STAGE_TX x STAGE_TY output pixels of a plane at a time. One thread finds the bounding box of the tile's
 * source footprint (stage_box: the unbounded source coordinates of the tile's
 * four corner samples, their cells and the neighbours beside them, clamped to
 * the image); the block loads that box's rows into shared memory as whole
 * aligned 8-byte words, neighbouring threads on neighbouring words (coalesced,
 * through AUG_LD so the emulator measures them), waits at a barrier, and then
 * each thread computes its pixels as the pixel path does (pix_pixel, pix_mix,
 * the same cells from cell_index and the same arithmetic), reading a row's two
 * neighbours from shared memory where both lie in the box and from global
 * memory (pix_row) otherwise: a border's reflected or wrapped taps, or a box
 * over STAGE_BYTES (a big shrink or supersampling), for which the block stages
 * nothing. So the results are the pixel path's, bit for bit, whichever memory
 * a tap comes from, and the border rule stays windex's alone. The tile loop,
 * box and load (stage_tiles, stage_box with the taps' margins, stage_load) also
 * serve the nearest and bicubic staged kernels (cuda/warp_stage_interp.cuh). */

#define STAGE_TX 32
#define STAGE_TY 8
#define STAGE_PIXELS (STAGE_TX * STAGE_TY)
#define STAGE_PLANAR 2 /* warp_args.pix of a launch of planar images */
#define STAGE_BYTES 16384 /* a box of at most 16 KiB: 4 blocks per SM use 64 of 228 KiB */

/* The staged box of a tile (block-shared): columns [x0, x0 + cols) and rows
 * [y0, y0 + rows) of the source, each row at rb bytes in shared memory from the
 * aligned word holding its first byte (rows == 0: nothing staged). */
enum { SB_X0, SB_Y0, SB_COLS, SB_ROWS, SB_RB, SB_N };

/* A side's box [lo, hi] from the extreme unbounded coordinates v0, v1 of the
 * tile's samples on a side of n pixels: the cells' floors less ml and plus mh
 * (the taps beside them: bilinear 0 and 2, the second for the fixed-point
 * rounding up; nearest 0 and 1; bicubic 1 and 2), clamped to the side (a tile
 * beyond it keeps the edge, which a replicating border reads); 0 for a NaN
 * coordinate. */
AUG_DEV int stage_side(double v0, double v1, int32_t n, int ml, int mh, int32_t *lo, int32_t *hi) {
    const double a = v0 < v1 ? v0 : v1, b = v0 < v1 ? v1 : v0;
    if (!(a <= b)) return 0;
    const double top = (double)(n - 1), f = aug__warp_floor(a) - (double)ml, e = aug__warp_floor(b) + (double)mh;
    *lo = f <= 0.0 ? 0 : f >= top ? n - 1 : (int32_t)f;
    *hi = e <= 0.0 ? 0 : e >= top ? n - 1 : (int32_t)e;
    return 1;
}

/* The box of the tile at output (tx0, ty0) of image im into box[SB_*]
 * (one thread): s samples per side, the taps ml before and mh after each
 * sample's cell (stage_side). */
AUG_DEV void stage_box(const warp_args &a, const img_t<int32_t> &im, int32_t tx0, int32_t ty0, int C, int s, int ml,
                       int mh, int32_t *box) {
    const int32_t tx1 = tx0 + STAGE_TX - 1 < (int32_t)a.Wt ? tx0 + STAGE_TX - 1 : (int32_t)a.Wt - 1;
    const int32_t ty1 = ty0 + STAGE_TY - 1 < (int32_t)a.Ht ? ty0 + STAGE_TY - 1 : (int32_t)a.Ht - 1;
    const double X0 = (double)tx0 + aug__warp_offset(0, s), X1 = (double)tx1 + aug__warp_offset(s - 1, s);
    const double Y0 = (double)ty0 + aug__warp_offset(0, s), Y1 = (double)ty1 + aug__warp_offset(s - 1, s);
    /* the affine map is monotone in X and in Y: its extremes over the tile are at corners */
    const double r0 = aug__warp_rowterm(im.m(1), Y0, im.m(2)), r1 = aug__warp_rowterm(im.m(1), Y1, im.m(2));
    const double q0 = aug__warp_rowterm(im.m(4), Y0, im.m(5)), q1 = aug__warp_rowterm(im.m(4), Y1, im.m(5));
    const double x00 = im.m(0) * X0 + r0, x01 = im.m(0) * X1 + r0, x10 = im.m(0) * X0 + r1, x11 = im.m(0) * X1 + r1;
    const double y00 = im.m(3) * X0 + q0, y01 = im.m(3) * X1 + q0, y10 = im.m(3) * X0 + q1, y11 = im.m(3) * X1 + q1;
    const double xa = x00 < x01 ? x00 : x01, xb = x10 < x11 ? x10 : x11, xc = x00 < x01 ? x01 : x00,
                 xd = x10 < x11 ? x11 : x10;
    const double ya = y00 < y01 ? y00 : y01, yb = y10 < y11 ? y10 : y11, yc = y00 < y01 ? y01 : y00,
                 yd = y10 < y11 ? y11 : y10;
    int32_t bx0 = 0, bx1 = -1, by0 = 0, by1 = -1, rows = 0, rb = 0;
    if (stage_side(xa < xb ? xa : xb, xc < xd ? xd : xc, im.W(), ml, mh, &bx0, &bx1) &&
        stage_side(ya < yb ? ya : yb, yc < yd ? yd : yc, im.H(), ml, mh, &by0, &by1)) {
        /* a row's bytes from the aligned word holding its first one, whole words */
        const int64_t wb = ((int64_t)(bx1 - bx0 + 1) * C + 7 + 7) / 8 * 8;
        rb = wb <= STAGE_BYTES ? (int32_t)wb : 8;
        const int32_t h = by1 - by0 + 1;
        rows = wb <= STAGE_BYTES && h <= STAGE_BYTES / rb ? h : 0; /* 0: too big, the taps from global memory */
    }
    box[SB_X0] = bx0, box[SB_Y0] = by0, box[SB_COLS] = bx1 - bx0 + 1, box[SB_ROWS] = rows, box[SB_RB] = rb;
}

/* The first byte of box row y's pixels (column x0) in global memory. */
AUG_DEV const char *stage_row(const img_t<int32_t> &im, const int32_t *box, int32_t y, int C) {
    return im.base() + (y * im.sh() + box[SB_X0] * C);
}

/* The block loads the box's rows into words (all threads; whole aligned words
 * where they lie inside the image's bytes, else the row's own bytes of them). */
AUG_DEV void stage_load(const img_t<int32_t> &im, const int32_t *box, int C, uint64_t *words) {
    const int32_t rows = box[SB_ROWS], nw = box[SB_RB] / 8, len = box[SB_COLS] * C;
    const char *lo = ldv(&im.w->lo), *hi = ldv(&im.w->hi);
    for (int32_t i = (int32_t)threadIdx.x; i < rows * nw; i += (int32_t)blockDim.x) {
        const int32_t r = i / nw, k = i - r * nw;
        const char *rs = stage_row(im, box, box[SB_Y0] + r, C);
        const char *w0 = (const char *)((uintptr_t)rs & ~(uintptr_t)7) + 8 * k;
        uint64_t v = 0;
        if (w0 >= lo && w0 + 8 <= hi) {
            v = AUG_LD((const uint64_t *)(const void *)w0);
        } else {
            for (int b = 0; b < 8; b++)
                if (w0 + b >= rs && w0 + b < rs + len) v |= (uint64_t)AUG_LD((const uint8_t *)w0 + b) << (8 * b);
        }
        words[i] = v;
    }
}

/* The C bytes of a staged pixel as a little-endian value. */
AUG_DEV uint32_t stage_px(const uint8_t *p, int C) {
    uint32_t v = 0;
    AUG_UNROLL
    for (int c = 0; c < 4; c++) {
        if (c >= C) break;
        v |= (uint32_t)p[c] << (8 * c);
    }
    return v;
}

/* A cell row's two neighbours (columns x0, x1, row y; -1: outside) as pix_row
 * gives them: from the box when the row and both columns inside lie in it. */
AUG_DEV void stage_pair(const img_t<int32_t> &im, const int32_t *box, const uint8_t *sm, int32_t y, int32_t x0,
                        int32_t x1, int C, uint32_t *p0, uint32_t *p1) {
    const uint32_t cols = (uint32_t)box[SB_COLS];
    const uint32_t ry = (uint32_t)(y - box[SB_Y0]), c0 = (uint32_t)(x0 - box[SB_X0]), c1 = (uint32_t)(x1 - box[SB_X0]);
    if (y >= 0 && ry < (uint32_t)box[SB_ROWS] && (x0 < 0 || c0 < cols) && (x1 < 0 || c1 < cols)) {
        const uint8_t *row = sm + ry * (uint32_t)box[SB_RB] + ((uintptr_t)stage_row(im, box, y, C) & 7);
        if (x0 >= 0) *p0 = stage_px(row + c0 * (uint32_t)C, C);
        if (x1 >= 0) *p1 = stage_px(row + c1 * (uint32_t)C, C);
        return;
    }
    const int v = y >= 0;
    pix_row<int32_t>(im, v ? y * im.sh() : 0, x0 * im.sw(), x1 * im.sw(), v & (x0 >= 0), v & (x1 >= 0), C, p0, p1);
}

/* The staged path's sampler: pix_sample's cell and arithmetic, the bytes from
 * the box (stage_pair). */
struct pix_staged {
    const warp_args &a;
    const img_t<int32_t> &im;
    const int32_t *box;
    const uint8_t *sm;
    int C;
    AUG_DEV void operator()(double sx, double sy, int s, uint32_t *acc) const {
        const int32_t qx = aug__warp_fixed_pos(sx), qy = aug__warp_fixed_pos(sy);
        const cell_ix<int32_t> k =
            cell_index<int32_t>(im, (int32_t)aug__warp_fixed_cell(qx), (int32_t)aug__warp_fixed_cell(qy));
        uint32_t p00 = 0, p01 = 0, p10 = 0, p11 = 0;
        stage_pair(im, box, sm, k.y0, k.x0, k.x1, C, &p00, &p01);
        stage_pair(im, box, sm, k.y1, k.x0, k.x1, C, &p10, &p11);
        const int vx0 = k.x0 >= 0, vx1 = k.x1 >= 0, vy0 = k.y0 >= 0, vy1 = k.y1 >= 0;
        pix_mix(a, vy0 & vx0, vy0 & vx1, vy1 & vx0, vy1 & vx1, p00, p01, p10, p11, aug__warp_fixed_frac(qx),
                aug__warp_fixed_frac(qy), C, s, acc, im.c);
    }
};

/* Tile t's image n, plane and first output pixel (tx0, ty0). */
struct stage_tile {
    uint32_t n, plane, tx0, ty0;
};
AUG_DEV stage_tile stage_tile_of(const warp_args &a, uint32_t t) {
    const uint32_t tw = ((uint32_t)a.Wt + STAGE_TX - 1) / STAGE_TX, th = ((uint32_t)a.Ht + STAGE_TY - 1) / STAGE_TY;
    const uint32_t planes = a.pix == STAGE_PLANAR ? (uint32_t)a.C : 1;
    const uint32_t r = t / tw, q = r / th, n = q / planes;
    return {n, q - n * planes, (t - r * tw) * STAGE_TX, (r - q * th) * STAGE_TY};
}

/* The staged kernels' loop: tile t of a.slots (the tiles of a plane row-major,
 * an image's planes one after another: one plane of C channels for packed
 * pixels, C planes of 1 for a planar image (a.pix == STAGE_PLANAR), then the
 * next image) by block t % gridDim.x, any block size. Per tile, thread 0 finds
 * the box (stage_box: s samples per side when ss, else 1; margins ml, mh), the
 * block loads it into words, and tile(t, im, n, tx0, ty0, C) computes the tile's
 * outputs from it (box and words block-shared; t: stage_tile_of gives the rest). */
template <typename F>
AUG_DEV void stage_tiles(const warp_args &a, uint64_t *words, int32_t *box, bool ss, int ml, int mh, const F &tile) {
    const int C = a.pix == STAGE_PLANAR ? 1 : (int)a.C;
    for (uint32_t t = blockIdx.x; t < (uint32_t)a.slots; t += gridDim.x) {
        const stage_tile k = stage_tile_of(a, t);
        const img_t<int32_t> im = {&a.img[k.n], (int32_t)k.plane};
        if (threadIdx.x == 0) stage_box(a, im, (int32_t)k.tx0, (int32_t)k.ty0, C, ss ? im.s() : 1, ml, mh, box);
        __syncthreads();
        stage_load(im, box, C, words);
        __syncthreads();
        tile(t, im, k.n, k.tx0, k.ty0, C);
        __syncthreads(); /* the next tile overwrites the box */
    }
}

/* The bilinear tile: each thread's pixels (all C channels) by pix_pixel with the staged sampler. */
struct tile_bilinear {
    const warp_args &a;
    const int32_t *box;
    const uint64_t *words;
    AUG_DEV void operator()(uint32_t, const img_t<int32_t> &im, uint32_t n, uint32_t tx0, uint32_t ty0, int C) const {
        const uint32_t Wt = (uint32_t)a.Wt, Ht = (uint32_t)a.Ht;
        const pix_staged g = {a, im, box, (const uint8_t *)words, C};
        for (uint32_t p = threadIdx.x; p < STAGE_PIXELS; p += blockDim.x) {
            const uint32_t x = tx0 + p % STAGE_TX, y = ty0 + p / STAGE_TX;
            if (x < Wt && y < Ht) pix_pixel<int32_t>(a, im, (int32_t)n, (int32_t)x, (int32_t)y, C, g);
        }
    }
};

/* The staged kernel of the fixed-point (bilinear) warp. */
AUG_GLOBAL void aug__k_warp_u8_tile(warp_args a) {
    AUG_SHARED(uint64_t, words, STAGE_BYTES / 8);
    AUG_SHARED(int32_t, box, SB_N);
    const tile_bilinear f = {a, box, words};
    stage_tiles(a, words, box, true, 0, 2, f);
}
