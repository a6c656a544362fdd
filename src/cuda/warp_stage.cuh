/* cuda/warp_stage.cuh: the fixed-point affine warp's staged pixel path
 * (aug__k_warp_u8_tile; included by cuda/warp.cu after the pixel path, whose
 * types and helpers it uses), and the per-value staged path of the fixed-point
 * perspective warp (aug__k_warp_persp_u8_tile) and the float32 affine one
 * (cuda/warp_stage_f32.cuh), below.
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
 * memory (pix_row) otherwise: a border's reflected or wrapped taps, or the
 * rows of a box over STAGE_BYTES (a big shrink or supersampling) beyond its
 * middle rows, which the block stages (as many as fit; none where one row is
 * wider than the budget). So the results are the pixel path's, bit for bit,
 * whichever memory a tap comes from, and the border rule stays windex's
 * alone. A box is only ever a cache: a tap outside it is read from global
 * memory, so its bounds decide what a tile costs, never what it computes. The
 * tile loop, box and load (stage_tiles, stage_box with the taps' margins,
 * stage_load) also serve the nearest and bicubic staged kernels
 * (cuda/warp_stage_interp.cuh). Into channels-last uint8 outputs the tile's
 * values go to shared memory first and the block stores its rows
 * (stage_put_rows). */

#define STAGE_TX 32
#define STAGE_TY 8
#define STAGE_TY_TALL 32 /* aug__k_warp_nearest_u8_tall's tile height (warp_run: where its boxes fit) */
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

/* The box of source coordinates x in [x0, x1], y in [y0, y1] (unbounded; NaN:
 * nothing staged) with the taps ml before and mh after each cell (stage_side)
 * into box[SB_*], staged when it fits in `bytes`; a box of more rows than fit
 * keeps its middle rows (a rotated tile's taps are densest there; the others are
 * read from global memory: a 3x shrink rotated 30 degrees, HWC, has boxes of
 * about 20 KiB, whose blocks read every tap from global memory before, 0.497). */
AUG_DEV void stage_fit(const img_t<int32_t> &im, double x0, double x1, double y0, double y1, int C, int ml, int mh,
                       int32_t *box, int bytes) {
    int32_t bx0 = 0, bx1 = -1, by0 = 0, by1 = -1, rows = 0, rb = 0;
    if (stage_side(x0, x1, im.W(), ml, mh, &bx0, &bx1) && stage_side(y0, y1, im.H(), ml, mh, &by0, &by1)) {
        /* a row's bytes from the aligned word holding its first one, whole words */
        const int64_t wb = ((int64_t)(bx1 - bx0 + 1) * C + 7 + 7) / 8 * 8;
        rb = wb <= bytes ? (int32_t)wb : 8;
        const int32_t h = by1 - by0 + 1, fit = bytes / rb;
        /* a box of more rows than fit: its middle rows (0: a row too wide, the taps from global memory) */
        rows = wb <= bytes ? (h <= fit ? h : fit) : 0;
        by0 += (h - rows) / 2;
    }
    box[SB_X0] = bx0, box[SB_Y0] = by0, box[SB_COLS] = bx1 - bx0 + 1, box[SB_ROWS] = rows, box[SB_RB] = rb;
}

/* The output coordinates of the tile's extreme samples, X in [X0, X1] and Y
 * in [Y0, Y1] (its first pixel's first sample, its last pixel's last; ty: the
 * tile's height). */
struct stage_span {
    double X0, X1, Y0, Y1;
};
AUG_DEV stage_span stage_corners(const warp_args &a, int32_t tx0, int32_t ty0, int s, int32_t ty = STAGE_TY) {
    const int32_t tx1 = tx0 + STAGE_TX - 1 < (int32_t)a.Wt ? tx0 + STAGE_TX - 1 : (int32_t)a.Wt - 1;
    const int32_t ty1 = ty0 + ty - 1 < (int32_t)a.Ht ? ty0 + ty - 1 : (int32_t)a.Ht - 1;
    const stage_span t = {(double)tx0 + aug__warp_offset(0, s), (double)tx1 + aug__warp_offset(s - 1, s),
                          (double)ty0 + aug__warp_offset(0, s), (double)ty1 + aug__warp_offset(s - 1, s)};
    return t;
}

/* The box of the tile at output (tx0, ty0) of image im into box[SB_*]
 * (one thread): s samples per side, the taps ml before and mh after each
 * sample's cell (stage_side), staged when it fits in `bytes`; ty: the tile's height. */
AUG_DEV void stage_box(const warp_args &a, const img_t<int32_t> &im, int32_t tx0, int32_t ty0, int C, int s, int ml,
                       int mh, int32_t *box, int bytes = STAGE_BYTES, int32_t ty = STAGE_TY) {
    const stage_span t = stage_corners(a, tx0, ty0, s, ty);
    const double X0 = t.X0, X1 = t.X1, Y0 = t.Y0, Y1 = t.Y1;
    /* the affine map is monotone in X and in Y: its extremes over the tile are at corners */
    const double r0 = aug__warp_rowterm(im.m(1), Y0, im.m(2)), r1 = aug__warp_rowterm(im.m(1), Y1, im.m(2));
    const double q0 = aug__warp_rowterm(im.m(4), Y0, im.m(5)), q1 = aug__warp_rowterm(im.m(4), Y1, im.m(5));
    const double x00 = im.m(0) * X0 + r0, x01 = im.m(0) * X1 + r0, x10 = im.m(0) * X0 + r1, x11 = im.m(0) * X1 + r1;
    const double y00 = im.m(3) * X0 + q0, y01 = im.m(3) * X1 + q0, y10 = im.m(3) * X0 + q1, y11 = im.m(3) * X1 + q1;
    const double xa = x00 < x01 ? x00 : x01, xb = x10 < x11 ? x10 : x11, xc = x00 < x01 ? x01 : x00,
                 xd = x10 < x11 ? x11 : x10;
    const double ya = y00 < y01 ? y00 : y01, yb = y10 < y11 ? y10 : y11, yc = y00 < y01 ? y01 : y00,
                 yd = y10 < y11 ? y11 : y10;
    stage_fit(im, xa < xb ? xa : xb, xc < xd ? xd : xc, ya < yb ? ya : yb, yc < yd ? yd : yc, C, ml, mh, box, bytes);
}

/* The box of the tile at output (tx0, ty0) of image im under its homography
 * (aug__warp_project's u / w, v / w before the bound) into box[SB_*] (one
 * thread). w is affine in (X, Y), so where it is positive at the tile's four
 * corners it is positive over the tile, and on every line of the tile the map
 * is then a projective map of a line, monotone: the source coordinates' extremes
 * are at the corners. Up to rounding: a tap outside the box is read from global
 * memory, as every tap of a tile that stages nothing (a corner outside the
 * source plane, w <= 0: the denominator may change sign over the tile). The
 * coordinates are clamped to [-4, side + 4] first, which keeps the box (it is
 * clamped to the image) and their floors in range. s samples per side, the
 * taps ml before and mh after each cell (stage_box's); ty: the tile's height. */
AUG_DEV void stage_box_persp(const warp_args &a, const img_t<int32_t> &im, int32_t tx0, int32_t ty0, int C, int s,
                             int ml, int mh, int32_t *box, uint64_t *scratch, int bytes, int32_t ty = STAGE_TY) {
    const stage_span t = stage_corners(a, tx0, ty0, s, ty);
    volatile double *uv = (volatile double *)(void *)scratch; /* the corners' (u, v): fewer live registers */
    AUG_NO_UNROLL
    for (int k = 0; k < 4; k++) {
        const double X = k & 1 ? t.X1 : t.X0, Y = k & 2 ? t.Y1 : t.Y0;
        const double w = im.m(6) * X + aug__warp_rowterm(im.m(7), Y, im.m(8));
        const double u = (im.m(0) * X + aug__warp_rowterm(im.m(1), Y, im.m(2))) / w;
        const double v = (im.m(3) * X + aug__warp_rowterm(im.m(4), Y, im.m(5))) / w;
        const int ok = w > 0.0 && u - u == 0.0 && v - v == 0.0; /* inside the plane, finite */
        uv[2 * k] = ok ? aug__warp_clamp(u, -4.0, (double)im.W() + 4.0) : (double)NAN;
        uv[2 * k + 1] = aug__warp_clamp(v, -4.0, (double)im.H() + 4.0);
    }
    double x0 = uv[0], x1 = uv[0], y0 = uv[1], y1 = uv[1];
    AUG_NO_UNROLL
    for (int k = 1; k < 4; k++) {
        const double u = uv[2 * k], v = uv[2 * k + 1];
        x0 = u < x0 || u != u ? u : x0, x1 = u > x1 ? u : x1, y0 = v < y0 ? v : y0, y1 = v > y1 ? v : y1;
    }
    stage_fit(im, x0, x1, y0, y1, C, ml, mh, box, bytes);
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
AUG_DEV stage_tile stage_tile_of(const warp_args &a, uint32_t t, uint32_t ty = STAGE_TY) {
    const uint32_t tw = ((uint32_t)a.Wt + STAGE_TX - 1) / STAGE_TX, th = ((uint32_t)a.Ht + ty - 1) / ty;
    const uint32_t planes = a.pix == STAGE_PLANAR ? (uint32_t)a.C : 1;
    const uint32_t r = t / tw, q = r / th, n = q / planes;
    return {n, q - n * planes, (t - r * tw) * STAGE_TX, (r - q * th) * ty};
}

/* ---- Channels-last uint8 outputs ---------------------------------------------
 * Into an NHWC uint8 output (a pixel's C > 1 bytes adjacent: channel stride 1,
 * column stride C) a value per thread stores bytes C apart across a warp, or a
 * pixel per thread C-byte pixels C bytes apart: a third of each sector used at
 * C = 3. There the staged uint8 kernels put a tile's values into shared memory
 * (outs: the tile's rows of STAGE_TX * C bytes, pixel p's channel c at p * C + c)
 * and the block then stores each row's bytes (stage_put_rows), a warp's 32
 * threads on one aligned 32-byte sector of a row. The values are the same, only
 * where they are written first differs. */
#define STAGE_OUT_BYTES (STAGE_TX * STAGE_TY * 4)
#define STAGE_OUT_BYTES_TALL (STAGE_TX * STAGE_TY_TALL * 4)

/* Whether the launch's outputs take the tile rows: packed pixels into channels-last uint8. */
AUG_DEV int stage_rows(const warp_args &a) {
    return a.cfast && a.pix != STAGE_PLANAR && a.dst_dtype == AUG__CT_UINT8 && a.dc == 1 && a.dx == a.C;
}

/* The block stores the tile rows outs of image n's tile at (tx0, ty0) (ty rows): row r's
 * w * C bytes from the span of aligned 32-byte sectors holding them, sp bytes a row (all
 * threads; a thread's byte outside its row's bytes stores nothing). */
AUG_DEV void stage_put_rows(const warp_args &a, const uint8_t *outs, uint32_t n, uint32_t tx0, uint32_t ty0,
                            uint32_t ty, int C) {
    const uint32_t rb = STAGE_TX * (uint32_t)C, Wt = (uint32_t)a.Wt, Ht = (uint32_t)a.Ht;
    const uint32_t w = (Wt - tx0 < STAGE_TX ? Wt - tx0 : STAGE_TX) * (uint32_t)C, h = Ht - ty0 < ty ? Ht - ty0 : ty;
    const uint32_t sp = (w + 31 + 31) / 32 * 32; /* the sectors of a row of w bytes at any offset */
    for (uint32_t i = threadIdx.x; i < h * sp; i += blockDim.x) {
        const uint32_t r = i / sp, j = i - r * sp;
        char *row = a.dst + ((int32_t)n * (int32_t)a.dn + (int32_t)(ty0 + r) * (int32_t)a.dy +
                             (int32_t)tx0 * (int32_t)a.dx);
        const uint32_t b = j - (uint32_t)((uintptr_t)row & 31); /* wraps below the row's first byte */
        if (b < w) AUG_ST((uint8_t *)(row + b), outs[r * rb + b]);
    }
}

/* The staged kernels' loop: tile t of a.slots (the tiles of a plane row-major,
 * an image's planes one after another: one plane of C channels for packed
 * pixels, C planes of 1 for a planar image (a.pix == STAGE_PLANAR), then the
 * next image) by block t % gridDim.x, any block size. Per tile, thread 0 finds
 * the box (stage_box, PROJ: stage_box_persp, its scratch in words; s samples
 * per side when ss, else 1; margins ml, mh), the block loads it into words,
 * and tile(t, im, n, tx0, ty0, C) computes the tile's outputs from it (box and
 * words block-shared; t: stage_tile_of gives the rest). Tiles of STAGE_TX x ty
 * outputs. outs: the tile rows of channels-last uint8 outputs (stage_rows: tile
 * puts its values there, and the block stores them, stage_put_rows). */
template <bool PROJ = false, typename F>
AUG_DEV void stage_tiles(const warp_args &a, uint64_t *words, int32_t *box, bool ss, int ml, int mh, const F &tile,
                         uint32_t ty = STAGE_TY, int bytes = STAGE_BYTES, const uint8_t *outs = nullptr) {
    const int C = a.pix == STAGE_PLANAR ? 1 : (int)a.C;
    for (uint32_t t = blockIdx.x; t < (uint32_t)a.slots; t += gridDim.x) {
        const stage_tile k = stage_tile_of(a, t, ty);
        const img_t<int32_t> im = {&a.img[k.n], (int32_t)k.plane};
        if (threadIdx.x == 0) {
            if (PROJ)
                stage_box_persp(a, im, (int32_t)k.tx0, (int32_t)k.ty0, C, ss ? im.s() : 1, ml, mh, box, words, bytes,
                                (int32_t)ty);
            else
                stage_box(a, im, (int32_t)k.tx0, (int32_t)k.ty0, C, ss ? im.s() : 1, ml, mh, box, bytes, (int32_t)ty);
        }
        __syncthreads();
        stage_load(im, box, C, words);
        __syncthreads();
        tile(t, im, k.n, k.tx0, k.ty0, C);
        if (outs && stage_rows(a)) { /* the tile's values put in outs: its rows stored */
            __syncthreads();
            const stage_tile q = stage_tile_of(a, opaque(t), ty);
            stage_put_rows(a, outs, q.n, q.tx0, q.ty0, ty, C);
        }
        __syncthreads(); /* the next tile overwrites the box */
    }
}

/* The bilinear tile of STAGE_TX x TY outputs: each thread's pixels (all C channels) by pix_pixel
 * with the staged sampler. */
template <uint32_t TY = STAGE_TY> struct tile_bilinear {
    const warp_args &a;
    const int32_t *box;
    const uint64_t *words;
    uint8_t *outs; /* the tile rows (stage_rows) */
    AUG_DEV void operator()(uint32_t, const img_t<int32_t> &im, uint32_t n, uint32_t tx0, uint32_t ty0, int C) const {
        const uint32_t Wt = (uint32_t)a.Wt, Ht = (uint32_t)a.Ht;
        const pix_staged g = {a, im, box, (const uint8_t *)words, C};
        for (uint32_t p = threadIdx.x; p < STAGE_TX * TY; p += blockDim.x) {
            const uint32_t x = tx0 + p % STAGE_TX, y = ty0 + p / STAGE_TX;
            if (x < Wt && y < Ht)
                pix_pixel<int32_t>(a, im, (int32_t)n, (int32_t)x, (int32_t)y, C, g, outs, STAGE_TX, TY);
        }
    }
};

/* The staged kernel of the fixed-point (bilinear) warp; *_tall: on tiles of STAGE_TX x
 * STAGE_TY_TALL outputs (warp_run takes it wherever their boxes fit the budget: a box's rows
 * as wide as its columns are long, e.g. 33 pixels instead of 8-9 at 90 degrees, and fewer
 * of its edge sectors per output). */
AUG_GLOBAL void aug__k_warp_u8_tile(warp_args a) {
    AUG_SHARED(uint64_t, words, STAGE_BYTES / 8);
    AUG_SHARED(int32_t, box, SB_N);
    AUG_SHARED(uint8_t, outs, STAGE_OUT_BYTES);
    const tile_bilinear<> f = {a, box, words, outs};
    stage_tiles(a, words, box, true, 0, 2, f, STAGE_TY, STAGE_BYTES, outs);
}
AUG_GLOBAL void aug__k_warp_u8_tall(warp_args a) {
    AUG_SHARED(uint64_t, words, STAGE_BYTES / 8);
    AUG_SHARED(int32_t, box, SB_N);
    AUG_SHARED(uint8_t, outs, STAGE_OUT_BYTES_TALL);
    const tile_bilinear<STAGE_TY_TALL> f = {a, box, words, outs};
    stage_tiles(a, words, box, true, 0, 2, f, STAGE_TY_TALL, STAGE_BYTES, outs);
}

/* ---- The per-value staged path ----------------------------------------------
 * The fixed-point perspective warp (aug__k_warp_persp_u8_tile) and the float32
 * affine one (aug__k_warp_f32_tile, cuda/warp_stage_f32.cuh): the same tiles,
 * boxes (the perspective one from stage_box_persp) and loads (with a pixel's
 * P = C * sizeof(T) bytes, T the source's element), then one thread per output
 * value (pixel, channel), a warp's 32 on consecutive values in the output's
 * memory order (x fastest for NCHW, the channel for NHWC: whole stores), each
 * the value path's loop (warp_body: the same samples, sums and stores) with its
 * neighbours read from the box where they lie in it, else from global memory.
 * A value per thread rather than a pixel: with the projection, the pixel's
 * loop went over 64 registers (ptxas spilled 28-52 bytes). S gives the kind's
 * sample (the value path's sample_u8 or sample_f32 with stage_tap's reads),
 * its sum and its store: stage_u8 here, stage_f32 in warp_stage_f32.cuh. */

/* Neighbour (row y, column x; -1: outside) of the element at byte coff of a
 * pixel: from the box when it lies in it, else from global memory; b outside
 * (constant border). */
template <typename T>
AUG_DEV T stage_tap(const img_t<int32_t> &im, const int32_t *box, const uint8_t *sm, int32_t y, int32_t x, int P,
                    int coff, T b) {
    if (y < 0 || x < 0) return b;
    const uint32_t ry = (uint32_t)(y - box[SB_Y0]), cx = (uint32_t)(x - box[SB_X0]);
    if (ry < (uint32_t)box[SB_ROWS] && cx < (uint32_t)box[SB_COLS]) {
        const uint8_t *row = sm + ry * (uint32_t)box[SB_RB] + ((uintptr_t)stage_row(im, box, y, P) & 7);
        return *(const T *)(const void *)(row + cx * (uint32_t)P + (uint32_t)coff);
    }
    return AUG_LD((const T *)(const void *)(im.base() + (y * im.sh() + x * im.sw() + coff)));
}

/* The fixed-point kind: sample_u8 (b: the background byte), the sum of
 * warp_body's fixed-point path (pix_add) and its store. */
struct stage_u8 {
    typedef uint8_t T;
    enum { BYTES = STAGE_BYTES }; /* the box's budget */
    typedef uint32_t acc_t;
    static AUG_DEV uint32_t bg(const warp_args &a, int32_t c) { return ldv(&a.bgb[c]); }
    /* a sample outside the source plane */
    static AUG_DEV uint32_t outside(uint32_t b) { return aug__warp_bilerp_u8(b, b, b, b, 0, 0); }
    static AUG_DEV uint32_t sample(const img_t<int32_t> &im, const int32_t *box, const uint8_t *sm, double sx,
                                   double sy, int P, int coff, uint32_t b) {
        const int32_t qx = aug__warp_fixed_pos(sx), qy = aug__warp_fixed_pos(sy);
        const cell_ix<int32_t> k =
            cell_index<int32_t>(im, (int32_t)aug__warp_fixed_cell(qx), (int32_t)aug__warp_fixed_cell(qy));
        const uint8_t c = (uint8_t)b;
        const uint32_t a00 = stage_tap<uint8_t>(im, box, sm, k.y0, k.x0, P, coff, c);
        const uint32_t a01 = stage_tap<uint8_t>(im, box, sm, k.y0, k.x1, P, coff, c);
        const uint32_t a10 = stage_tap<uint8_t>(im, box, sm, k.y1, k.x0, P, coff, c);
        const uint32_t a11 = stage_tap<uint8_t>(im, box, sm, k.y1, k.x1, P, coff, c);
        return aug__warp_bilerp_u8(a00, a01, a10, a11, aug__warp_fixed_frac(qx), aug__warp_fixed_frac(qy));
    }
    static AUG_DEV void add(uint32_t &acc, int s, uint32_t v) { pix_add(acc, s, v); }
    static AUG_DEV void store(const warp_args &, uint32_t acc, int s, char *out) {
        AUG_ST((uint8_t *)out, s == 1 ? (uint8_t)acc : aug__warp_fixed_mean(acc, s));
    }
};

/* Output value (n, c, y, x) of kind S: channel c of image n (a planar image's
 * plane im.c: c == im.c, coff 0; packed pixels: coff c * sizeof(T)), warp_body's
 * loop; PROJ: each sample's point from the homography, a point outside the
 * source plane the background. */
template <bool PROJ, typename S>
AUG_DEV void stage_value(const warp_args &a, const img_t<int32_t> &im, const int32_t *box, const uint8_t *sm, int32_t n,
                         int32_t c, int32_t x, int32_t y, int P, int coff) {
    const int s = im.s();
    typename S::acc_t acc = typename S::acc_t();
    for (int j = 0; j < s; j++) {
        const double Y = (double)y + aug__warp_offset(j, s);
        const double bx = PROJ ? 0.0 : aug__warp_rowterm(im.m(1), Y, im.m(2));
        const double by = PROJ ? 0.0 : aug__warp_rowterm(im.m(4), Y, im.m(5));
        for (int k = 0; k < s; k++) {
            const double X = (double)x + aug__warp_offset(k, s);
            double sx, sy;
            if (PROJ) { /* the matrix read in place (project's copy of it took 20 more bytes of spill) */
                if (!aug__warp_project(im.w->m, X, Y, im.W(), im.H(), im.border(), &sx, &sy)) {
                    S::add(acc, s, S::outside(S::bg(a, c)));
                    continue;
                }
            } else {
                sx = aug__warp_coord_b(im.m(0), X, bx, im.W(), im.border());
                sy = aug__warp_coord_b(im.m(3), X, by, im.H(), im.border());
            }
            S::add(acc, s, S::sample(im, box, sm, sx, sy, P, coff, S::bg(a, c)));
        }
    }
    S::store(a, acc, s, a.dst + (n * (int32_t)a.dn + c * (int32_t)a.dc + y * (int32_t)a.dy + x * (int32_t)a.dx));
}

/* The per-value kernels' loop: tile t of a.slots as stage_tiles'
 * (a.pix STAGE_PLANAR: planar images), by block t % gridDim.x, any block size;
 * each tile's STAGE_PIXELS x C values (C: a pixel's channels, 1 for a plane) in
 * the output's memory order. words, box: the block's shared memory. */
template <bool PROJ, typename S> AUG_DEV void stage_values(const warp_args &a, uint64_t *words, int32_t *box) {
    /* the tile's x0, y0, image, plane and a pixel's channels: block-shared, read
     * where used (not held in registers through the values' loop) */
    volatile int32_t *tile = box + SB_N;
    const int E = (int)sizeof(typename S::T);
    for (uint32_t t = blockIdx.x; t < (uint32_t)a.slots; t += gridDim.x) {
        if (threadIdx.x == 0) {
            const stage_tile k = stage_tile_of(a, t);
            const int32_t tx0 = (int32_t)k.tx0, ty0 = (int32_t)k.ty0, C = a.pix == STAGE_PLANAR ? 1 : (int32_t)a.C;
            const img_t<int32_t> im = {&a.img[k.n], (int32_t)k.plane};
            tile[0] = tx0, tile[1] = ty0, tile[2] = (int32_t)k.n, tile[3] = im.c, tile[4] = C;
            if (PROJ)
                stage_box_persp(a, im, tx0, ty0, E * (int)C, im.s(), 0, 2, box, words, S::BYTES); /* bilinear */
            else
                stage_box(a, im, tx0, ty0, E * (int)C, im.s(), 0, 2, box, S::BYTES); /* bilinear taps */
        }
        __syncthreads();
        const img_t<int32_t> im = {&a.img[tile[2]], tile[3]};
        stage_load(im, box, E * tile[4], words);
        __syncthreads();
        /* value v: channel c (im.c + c: a plane's channel) of pixel p */
        for (uint32_t v = threadIdx.x; v < STAGE_PIXELS * (uint32_t)tile[4]; v += blockDim.x) {
            const uint32_t C = (uint32_t)tile[4];
            const uint32_t c = a.cfast ? v % C : v / STAGE_PIXELS, p = a.cfast ? v / C : v % STAGE_PIXELS;
            const uint32_t x = (uint32_t)tile[0] + p % STAGE_TX, y = (uint32_t)tile[1] + p / STAGE_TX;
            if (x < (uint32_t)a.Wt && y < (uint32_t)a.Ht) {
                const img_t<int32_t> iv = {&a.img[tile[2]], tile[3]};
                stage_value<PROJ, S>(a, iv, box, (const uint8_t *)words, tile[2], iv.c + (int32_t)c, (int32_t)x,
                                     (int32_t)y, E * (int)C, E * (int)c);
            }
        }
        __syncthreads(); /* the next tile overwrites the box */
    }
}

/* The fixed-point perspective warp's staged kernel. */
AUG_GLOBAL void aug__k_warp_persp_u8_tile(warp_args a) {
    AUG_SHARED(uint64_t, words, STAGE_BYTES / 8);
    AUG_SHARED(int32_t, box, SB_N + 5);
    stage_values<true, stage_u8>(a, words, box);
}
