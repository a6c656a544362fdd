/* cuda/warp_stage_f32.cuh: the float32 warps' staged path, affine
 * (aug__k_warp_f32_tile) and perspective (aug__k_warp_persp_f32_tile; its box
 * from stage_box_persp's corners, as the fixed-point perspective warp's);
 * included by cuda/warp.cu after cuda/warp_stage.cuh, whose per-value staged
 * path it instantiates.
 *
 * For float32 images warped bilinearly into float32 (every image of the
 * launch of kind AUG__WARP_FLOAT), packed pixels (HWC: channel stride 4 bytes,
 * column stride 4C, 1-4 channels) or planar ones (CHW: column stride 4 bytes,
 * each channel plane warped as an image of one channel), 4-byte aligned, with
 * 32-bit indices: a block takes a tile of STAGE_TX x STAGE_TY output pixels of
 * a plane at a time, loads its source box (stage_box, stage_load, a pixel's 4C
 * or 4 bytes) and computes each output value as the generic kernel's float32
 * path does (stage_values), its neighbours from the box where they lie in it:
 * the results are the generic kernel's (the CPU's) bit for bit. */

/* The float32 box's budget: an RGB pixel is 12 bytes, 4 times the uint8 one, and
 * a 2x shrink's box (about 19 KiB rotated by 7 degrees) fits. 4 blocks of 256 a
 * SM (the registers' limit) hold 100 KiB of sm_80..sm_100's 164-228; sm_75's 64
 * KiB hold 2. */
#define STAGE_F32_BYTES 24576

/* The float32 kind: sample_f32 (the cell from aug__warp_floor, no neighbour
 * inside: the background, else aug__warp_bilinear_f32 of the four, the
 * background for one outside), warp_body's float32 sum (the last sample for
 * s = 1, else the double sum divided by s^2) and its stores. */
struct stage_f32 {
    typedef float T;
    enum { BYTES = STAGE_F32_BYTES };
    struct acc_t {
        double sum;
        float v1;
    };
    static AUG_DEV float bg(const warp_args &a, int32_t c) { return ldv(&a.bgf[c]); }
    static AUG_DEV float outside(float b) { return b; }
    static AUG_DEV float sample(const img_t<int32_t> &im, const int32_t *box, const uint8_t *sm, double sx, double sy,
                                int P, int coff, float b) {
        const double fx0 = aug__warp_floor(sx), fy0 = aug__warp_floor(sy);
        const cell_ix<int32_t> k = cell_index<int32_t>(im, (int32_t)fx0, (int32_t)fy0);
        if ((k.x0 < 0 && k.x1 < 0) || (k.y0 < 0 && k.y1 < 0)) return b; /* no neighbour inside */
        const float a00 = stage_tap<float>(im, box, sm, k.y0, k.x0, P, coff, b);
        const float a01 = stage_tap<float>(im, box, sm, k.y0, k.x1, P, coff, b);
        const float a10 = stage_tap<float>(im, box, sm, k.y1, k.x0, P, coff, b);
        const float a11 = stage_tap<float>(im, box, sm, k.y1, k.x1, P, coff, b);
        return aug__warp_bilinear_f32(a00, a01, a10, a11, (float)(sx - fx0), (float)(sy - fy0));
    }
    static AUG_DEV void add(acc_t &acc, int s, float v) {
        (void)s;
        acc.v1 = v;
        acc.sum += (double)v;
    }
    static AUG_DEV void store(const acc_t &acc, int s, char *out) {
        if (s == 1) aug__store_f32(acc.v1, AUG__CT_FLOAT32, out);
        else aug__store_f64(acc.sum / ((double)s * (double)s), AUG__CT_FLOAT32, out);
    }
};

/* The float32 affine warp's staged kernel. */
AUG_GLOBAL void aug__k_warp_f32_tile(warp_args a) {
    AUG_SHARED(uint64_t, words, STAGE_F32_BYTES / 8);
    AUG_SHARED(int32_t, box, SB_N + 5);
    stage_values<false, stage_f32>(a, words, box);
}

/* The float32 perspective warp's staged kernel. */
AUG_GLOBAL void aug__k_warp_persp_f32_tile(warp_args a) {
    AUG_SHARED(uint64_t, words, STAGE_F32_BYTES / 8);
    AUG_SHARED(int32_t, box, SB_N + 5);
    stage_values<true, stage_f32>(a, words, box);
}
