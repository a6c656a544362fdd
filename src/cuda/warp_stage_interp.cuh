/* cuda/warp_stage_interp.cuh: the staged affine warps of uint8 sources with
 * nearest-neighbour and bicubic interpolation (aug__k_warp_nearest_u8_tile,
 * aug__k_warp_cubic_u8_tile; included by cuda/warp.cu after the value path's
 * nearest and cubic, whose bodies they run).
 *
 * The tiles, boxes and loads are the bilinear staged kernel's (warp_stage.cuh,
 * stage_tiles: packed pixels or planar planes, a block per tile of STAGE_TX x
 * STAGE_TY outputs of a plane, the tile's source box in shared memory), with
 * the box widened to the interpolation's taps (nearest: the cell of
 * floor(c + 0.5), one after the floors; bicubic: one before and two after) and,
 * for nearest, one sample per pixel whatever s. Each thread then computes one
 * output value (channel, pixel) at a time, consecutive threads on consecutive
 * output values (x fastest for NCHW; for NHWC c fastest, nearest only; into
 * channels-last uint8 the values go to the tile rows, warp_stage.cuh's
 * stage_put_rows, whose rows the block stores), by the
 * value path's own nearest / cubic (the same coordinates, cells, border indices, Keys
 * weights and sum order, the same stores), a tap read from shared memory where
 * it lies in the box and from global memory otherwise (stage_byte: a
 * reflected or wrapped tap, or one outside the middle rows that the block
 * stages of a box over its budget, a strong shrink; STAGE_BYTES, bicubic's
 * STAGE_CUBIC_BYTES). The affine ones also run on 32 x 32 tiles where their
 * boxes fit (*_tall). So the results are the value path's, bit
 * for bit, whichever memory a tap comes from. */

/* The bicubic kernels' budget of a box: 24 KiB (their 4 x 4 taps widen a box by 3 pixels a
 * side; a 3x shrink rotated 30 degrees, s = 3, of 3 channels has boxes of about 22 KiB). 4
 * blocks per SM use 100 KiB of sm_90's 228; sm_75 (64 KiB) keeps 2 blocks of 256, half its
 * 1024 threads, as the float32 staged kernels. */
#define STAGE_CUBIC_BYTES 24576

/* Byte c of source pixel (y, x) (both inside the image; column stride C): from
 * the box when it lies there, else from global memory. */
AUG_DEV uint32_t stage_byte(const img_t<int32_t> &im, const int32_t *box, const uint8_t *sm, int32_t y, int32_t x,
                            int c, int C) {
    const int32_t row = y * im.sh() + box[SB_X0] * C, cx = x - box[SB_X0], at = cx * C + c; /* stage_row's bytes */
    const uint32_t ry = (uint32_t)(y - box[SB_Y0]);
    if (ry < (uint32_t)box[SB_ROWS] && (uint32_t)cx < (uint32_t)box[SB_COLS])
        return sm[ry * (uint32_t)box[SB_RB] + (((uint32_t)(uintptr_t)im.base() + (uint32_t)row) & 7) + (uint32_t)at];
    return AUG_LD((const uint8_t *)im.base() + (row + at));
}

/* The staged kernels' projection of a sample: aug__warp_project on the matrix
 * read in place (with project's copy of it the perspective bicubic kernel
 * spilled 4-8 bytes at 64 registers on sm_75..sm_90). */
AUG_DEV int project_staged(const img_t<int32_t> &im, double X, double Y, double *sx, double *sy) {
    return aug__warp_project(im.w->m, X, Y, im.W(), im.H(), im.border(), sx, sy);
}

/* nearest's copy of a staged byte (copy_value of a uint8 value). */
struct copy_staged {
    const warp_args &a;
    const img_t<int32_t> &im;
    const int32_t *box;
    const uint8_t *sm;
    int c, C;
    int rows; /* out in the tile rows (stage_rows): the byte put there */
    AUG_DEV void operator()(int32_t jy, int32_t jx, char *out) const {
        const uint32_t v = stage_byte(im, box, sm, jy, jx, c, C);
        if (rows) *(uint8_t *)out = (uint8_t)v;
        else aug__store_i128((aug__i128)v, a.dst_dtype, out);
    }
    AUG_DEV void background(const warp_args &, double b, char *out) const {
        if (rows) *(uint8_t *)out = AUG__CV(FLOAT64, UINT8, b);
        else aug__store_f64(b, a.dst_dtype, out);
    }
    AUG_DEV int project(const img_t<int32_t> &m, double X, double Y, double *sx, double *sy) const {
        return project_staged(m, X, Y, sx, sy);
    }
};

/* sample_cubic's tap from a staged byte (aug__load_f64 of a uint8 value). */
struct tap_staged {
    const warp_args &a;
    const img_t<int32_t> &im;
    const int32_t *box;
    const uint8_t *sm;
    int c;
    uint8_t *so; /* the value's place in the tile rows (stage_rows), else null */
    /* cubic's store: into the tile rows, or the output */
    AUG_DEV void put(const warp_args &, double v, const pos<int32_t> &p) const {
        if (so) *so = AUG__CV(FLOAT64, UINT8, v);
        else aug__store_f64(v, a.dst_dtype, out_at<int32_t>(a, p));
    }
    AUG_DEV double operator()(int32_t jy, int32_t jx) const {
        return (double)stage_byte(im, box, sm, jy, jx, c, a.pix == STAGE_PLANAR ? 1 : (int)a.C);
    }
    AUG_DEV int project(const img_t<int32_t> &m, double X, double Y, double *sx, double *sy) const {
        return project_staged(m, X, Y, sx, sy);
    }
    enum { LEAN = 1 }; /* cubic's Y formed per sample */
};

/* The value tile: thread p's output values p, p + blockDim.x, ... of the tile's
 * STAGE_TX x TY x C (channel c, pixel (x, y)): nearest (CUBIC false) or cubic,
 * affine or perspective (PROJ). */
template <bool PROJ, bool CUBIC, uint32_t TY = STAGE_TY> struct tile_values {
    const warp_args &a;
    const int32_t *box;
    const uint64_t *words;
    uint8_t *outs; /* the tile rows (stage_rows) */
    AUG_DEV void operator()(uint32_t t, const img_t<int32_t> &, uint32_t, uint32_t, uint32_t, int C) const {
        /* bicubic's lanes on x always (with NHWC's c fastest too, sm_100 spilled 16 bytes at 64 registers) */
        const uint32_t cfast = CUBIC ? 0 : (uint32_t)a.cfast;
        const uint32_t ty = TY, pixels = STAGE_TX * TY;
        const uint8_t *sm = (const uint8_t *)words;
        for (uint32_t v = threadIdx.x; v < pixels * (uint32_t)C; v += blockDim.x) {
            /* the tile's image, plane and corner found again for each value (opaque: not held
             * in registers through the samples) */
            const stage_tile k = stage_tile_of(a, opaque(t), ty);
            const uint32_t c = cfast ? v % (uint32_t)C : v / pixels, p = cfast ? v / (uint32_t)C : v % pixels;
            const uint32_t x = k.tx0 + p % STAGE_TX, y = k.ty0 + p / STAGE_TX;
            if (x >= (uint32_t)a.Wt || y >= (uint32_t)a.Ht) continue;
            const img_t<int32_t> im = {&a.img[k.n], (int32_t)k.plane};
            const int32_t oc = im.c + (int32_t)c; /* the output channel: a planar image's plane is one */
            const pos<int32_t> o = {(int32_t)k.n, oc, (int32_t)y, (int32_t)x};
            const int rows = stage_rows(a);
            uint8_t *so = outs + (p * (uint32_t)C + c); /* the tile rows' place of the value */
            if (CUBIC) {
                const tap_staged g = {a, im, box, sm, (int)c, rows ? so : nullptr};
                cubic<PROJ, int32_t>(a, im, oc, (int32_t)y, (int32_t)x, im.s(), o, g);
            } else {
                const copy_staged g = {a, im, box, sm, (int)c, C, rows};
                nearest<PROJ, int32_t>(a, im, oc, (int32_t)y, (int32_t)x, rows ? (char *)so : out_at<int32_t>(a, o), g);
            }
        }
    }
};

/* The staged kernels of uint8 sources: nearest (the box one tap after the
 * cells' floors, one sample a pixel) and bicubic (one tap before, two after,
 * s samples a side); affine, or perspective (*_persp_*: stage_box_persp's
 * boxes, each sample projected). *_tall: the affine kernels on tiles of
 * STAGE_TX x STAGE_TY_TALL outputs (warp_run takes them wherever their boxes
 * fit the budget: wider box rows, e.g. 33 pixels instead of 8-9 at 90 degrees,
 * and fewer taps loaded twice by neighbouring tiles; a compile-time height, as
 * a runtime one made the bicubic kernel spill at 64 registers). */
#define INTERP_KERNEL(NAME, PROJ, CUBIC, TY, BYTES, OUT_BYTES)                                             \
    AUG_GLOBAL void NAME(warp_args a) {                                                                      \
        AUG_SHARED(uint64_t, words, (BYTES) / 8);                                                            \
        AUG_SHARED(int32_t, box, SB_N);                                                                      \
        AUG_SHARED(uint8_t, outs, OUT_BYTES);                                                                \
        const tile_values<PROJ, CUBIC, TY> f = {a, box, words, outs};                                        \
        stage_tiles<PROJ>(a, words, box, CUBIC, (CUBIC) ? 1 : 0, (CUBIC) ? 2 : 1, f, TY, BYTES, outs);       \
    }
INTERP_KERNEL(aug__k_warp_nearest_u8_tile, false, false, STAGE_TY, STAGE_BYTES, STAGE_OUT_BYTES)
INTERP_KERNEL(aug__k_warp_nearest_u8_tall, false, false, STAGE_TY_TALL, STAGE_BYTES, STAGE_OUT_BYTES_TALL)
INTERP_KERNEL(aug__k_warp_cubic_u8_tile, false, true, STAGE_TY, STAGE_CUBIC_BYTES, STAGE_OUT_BYTES)
INTERP_KERNEL(aug__k_warp_cubic_u8_tall, false, true, STAGE_TY_TALL, STAGE_CUBIC_BYTES, STAGE_OUT_BYTES_TALL)
INTERP_KERNEL(aug__k_warp_persp_nearest_u8_tile, true, false, STAGE_TY, STAGE_BYTES, STAGE_OUT_BYTES)
INTERP_KERNEL(aug__k_warp_persp_cubic_u8_tile, true, true, STAGE_TY, STAGE_CUBIC_BYTES, STAGE_OUT_BYTES)
#undef INTERP_KERNEL
