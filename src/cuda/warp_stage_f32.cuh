/* cuda/warp_stage_f32.cuh: the float32 warps' staged path, affine
 * (aug__k_warp_f32_tile) and perspective (aug__k_warp_persp_f32_tile; its box
 * from stage_box_persp's corners, as the fixed-point perspective warp's);
 * included by cuda/warp.cu after cuda/warp_stage.cuh, whose per-value staged
 * path it instantiates.
 *
 * For images warped bilinearly by the float32 kernel (every image of the
 * launch of kind AUG__WARP_FLOAT: the float32 sources, aug__warp_float_source,
 * into anything but float64), packed pixels (HWC: channel stride E bytes,
 * column stride E C, 1-4 channels) or planar ones (CHW: column stride E bytes,
 * each channel plane warped as an image of one channel), E-aligned, with
 * 32-bit indices, E the source element's bytes, the same for every image of
 * the launch: 4 (float32: *_f32_tile), 2 (uint16, int16, float16, bfloat16:
 * *_f32_tile_e2) or 1 (uint8, int8, bool: *_f32_tile_e1); a kernel per element
 * size, the dtype within it read per image (stage_f32_of). A block takes a tile
 * of STAGE_TX x STAGE_TY output pixels of a plane at a time, loads its source
 * box's bytes (stage_box, stage_load, a pixel's E C or E bytes) and computes
 * each output value as the generic kernel's float32 path does (stage_values:
 * sample_f32's taps converted to float32 as aug__load_f32 does, from the box
 * where they lie in it, else from global memory; the sum, and the store into
 * the output's dtype, aug__store_f32 for s = 1, else aug__store_f64 of the
 * double mean): the results are the generic kernel's (the CPU's) bit for bit. */

/* The float32 box's budget: an RGB pixel is 12 bytes, 4 times the uint8 one, and
 * a 2x shrink's box (about 19 KiB rotated by 7 degrees) fits. 4 blocks of 256 a
 * SM (the registers' limit) hold 100 KiB of sm_80..sm_100's 164-228; sm_75's 64
 * KiB hold 2. */
#define STAGE_F32_BYTES 24576

/* A source element's bits r (its storage type's size) of ctype t as float32,
 * aug__load_f32's conversion (AUG__CV); the element size's ctypes among the
 * float32 kernel's sources (aug__warp_float_source). */
AUG_DEV float stage_f32_of(uint8_t r, int t) {
    if (t == AUG__CT_INT8) return AUG__CV(INT8, FLOAT32, (int8_t)r);
    if (t == AUG__CT_BOOL) return AUG__CV(BOOL, FLOAT32, r);
    return AUG__CV(UINT8, FLOAT32, r);
}
AUG_DEV float stage_f32_of(uint16_t r, int t) {
    if (t == AUG__CT_INT16) return AUG__CV(INT16, FLOAT32, (int16_t)r);
    if (t == AUG__CT_FLOAT16) return AUG__CV(FLOAT16, FLOAT32, r);
    if (t == AUG__CT_BFLOAT16) return AUG__CV(BFLOAT16, FLOAT32, r);
    return AUG__CV(UINT16, FLOAT32, r);
}
AUG_DEV float stage_f32_of(float r, int) { return r; }

/* warp_body's float32 store into ctype t at out: v1 (the sample) for s = 1,
 * else the double sum over s^2. Not inlined: the two stores' dtype switches
 * inlined into the perspective kernels spilled 12 bytes at 64 registers
 * (sm_75..sm_90); called, they spill nothing (no stack frame). */
__device__ __attribute__((noinline)) void stage_f32_put(float v1, double sum, int s, int t, char *out) {
    if (s == 1) aug__store_f32(v1, t, out);
    else aug__store_f64(sum / ((double)s * (double)s), t, out);
}

/* The float32 kind of sources whose elements are R (uint8_t, uint16_t: their
 * bits; float: float32): sample_f32 (the cell from aug__warp_floor, no
 * neighbour inside: the background, else aug__warp_bilinear_f32 of the four,
 * the background for one outside), warp_body's float32 sum (the last sample
 * for s = 1, else the double sum divided by s^2) and its stores into the
 * output's dtype. */
template <typename R> struct stage_f32 {
    typedef R T;
    enum { BYTES = STAGE_F32_BYTES };
    struct acc_t {
        double sum;
        float v1;
    };
    static AUG_DEV float bg(const warp_args &a, int32_t c) { return ldv(&a.bgf[c]); }
    static AUG_DEV float outside(float b) { return b; }
    /* a neighbour (stage_tap's; b outside) as float32 */
    static AUG_DEV float tap(const img_t<int32_t> &im, const int32_t *box, const uint8_t *sm, int32_t y, int32_t x,
                             int P, int coff, float b) {
        if (y < 0 || x < 0) return b;
        return stage_f32_of(stage_tap<R>(im, box, sm, y, x, P, coff, R()), sizeof(R) == 4 ? 0 : im.dtype());
    }
    static AUG_DEV float sample(const img_t<int32_t> &im, const int32_t *box, const uint8_t *sm, double sx, double sy,
                                int P, int coff, float b) {
        const double fx0 = aug__warp_floor(sx), fy0 = aug__warp_floor(sy);
        const cell_ix<int32_t> k = cell_index<int32_t>(im, (int32_t)fx0, (int32_t)fy0);
        if ((k.x0 < 0 && k.x1 < 0) || (k.y0 < 0 && k.y1 < 0)) return b; /* no neighbour inside */
        const float a00 = tap(im, box, sm, k.y0, k.x0, P, coff, b);
        const float a01 = tap(im, box, sm, k.y0, k.x1, P, coff, b);
        const float a10 = tap(im, box, sm, k.y1, k.x0, P, coff, b);
        const float a11 = tap(im, box, sm, k.y1, k.x1, P, coff, b);
        return aug__warp_bilinear_f32(a00, a01, a10, a11, (float)(sx - fx0), (float)(sy - fy0));
    }
    static AUG_DEV void add(acc_t &acc, int s, float v) {
        (void)s;
        acc.v1 = v;
        acc.sum += (double)v;
    }
    static AUG_DEV void store(const warp_args &a, const acc_t &acc, int s, char *out) {
        stage_f32_put(acc.v1, acc.sum, s, a.dst_dtype, out);
    }
};

/* The float32 affine and perspective warps' staged kernels, sources of E-byte elements. */
#define WARP_F32_TILE(name, proj, R)                                                                                   \
    AUG_GLOBAL void name(warp_args a) {                                                                                \
        AUG_SHARED(uint64_t, words, STAGE_F32_BYTES / 8);                                                              \
        AUG_SHARED(int32_t, box, SB_N + 5);                                                                            \
        stage_values<proj, stage_f32<R>>(a, words, box);                                                               \
    }
WARP_F32_TILE(aug__k_warp_f32_tile, false, float)
WARP_F32_TILE(aug__k_warp_persp_f32_tile, true, float)
WARP_F32_TILE(aug__k_warp_f32_tile_e2, false, uint16_t)
WARP_F32_TILE(aug__k_warp_persp_f32_tile_e2, true, uint16_t)
WARP_F32_TILE(aug__k_warp_f32_tile_e1, false, uint8_t)
WARP_F32_TILE(aug__k_warp_persp_f32_tile_e1, true, uint8_t)
#undef WARP_F32_TILE
