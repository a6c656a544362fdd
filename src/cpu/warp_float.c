/* cpu/warp_float.c: the float32 kernel of the CPU affine warp (semantics §13).
 *
 * Taken (aug__warp_kind, scalar/warp.h) for sources of dtype float32, float16,
 * bfloat16, uint8, int8, uint16, int16 or bool (non-empty) and a destination of
 * any dtype but float64 (which keeps the double kernel), when every background
 * value is finite as a float32 and the uint8 fixed-point kernel does not apply.
 * Wider sources (32/64-bit integers, float64) keep the double kernel: float32
 * cannot hold their values.
 *
 * Arithmetic, per output pixel (x, y) and sample (i, j) (a CUDA backend
 * reproduces it bit for bit with __dmul_rn/__dadd_rn, __fmul_rn/__fadd_rn and
 * round-to-nearest conversions, no FMA):
 *   X = (double)x + d[i], Y = (double)y + d[j],  d[k] = (2k + 1 - s) / (2s)
 *   sx = clamp(m00*X + (m01*Y + m02), -2, W+1),  sy = clamp(m10*X + (m11*Y + m12), -2, H+1)   (double)
 *   x0 = floor(sx), y0 = floor(sy)                                                            (double, exact)
 *   fx = (float)(sx - x0), fy = (float)(sy - y0)    (the difference is exact; one rounding to float32)
 *   gx = 1.0f - fx, gy = 1.0f - fy                                                             (float32)
 *   v = gy*(gx*v00 + fx*v01) + fy*(gx*v10 + fx*v11)                       (float32, left to right)
 * where vab is the source value converted to float32 (exact for every dtype taken)
 * or, outside the source, the background rounded to float32. A sample whose four
 * neighbours are all outside is the background exactly (the definition's value:
 * the weights sum to 1). s = 1: v is stored with saturate_cast (straight into a
 * float32 destination). s > 1: the s*s float32 values are summed in double
 * (j outer, i inner), divided by s*s in double and stored with saturate_cast.
 * Accuracy: the position error is below 2^-25 px per axis (fx rounded to float32) and
 * the interpolation is within about 3 float32 ulps of max|v|, well inside the
 * 1e-5 relative tolerance tests/python/test_warp.py applies against float64.
 *
 * The AVX2 version (float32 sources, and uint16 ones with adjacent channels;
 * positive strides, int32 element offsets)
 * does 8 output pixels per step: coordinates as 2 x 4 doubles with the same
 * operations (mul, add, max, min, floor, one conversion) and the interpolation as
 * 8-lane float32 mul/add. Sources with adjacent channels (HWC, at most 4 channels)
 * load each neighbour's channels with one masked 4-lane load per pixel (two pixels
 * per vector, then a 4 x 4 transpose into the channel planes): on AMD Zen 4 this
 * halves the time of the 8-lane gathers (one per neighbour and channel), which
 * other layouts keep.
 * Steps with a pixel on the border go through the portable per-pixel code, steps
 * entirely outside store the background; so its bytes equal the portable
 * kernel's (tests/c/test_warp.c checks). */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "cpu.h"
#include "cpu/convert.h"
#include "cpu/simd.h"
#include "warp_impl.h"
#if AUG__X86
#include <immintrin.h>
#endif

/* Loads of one source element as float32 (exact for each of these dtypes). */
#define FL_BOOL(p) (float)(*(const uint8_t *)(p) != 0)
#define FL_INT8(p) (float)*(const int8_t *)(p)
#define FL_INT16(p) (float)*(const int16_t *)(p)
#define FL_UINT8(p) (float)*(const uint8_t *)(p)
#define FL_UINT16(p) (float)*(const uint16_t *)(p)
#define FL_FLOAT16(p) aug__f16_to_f32(*(const uint16_t *)(p))
#define FL_BFLOAT16(p) aug__bf16_to_f32(*(const uint16_t *)(p))
#define FL_FLOAT32(p) (*(const float *)(p))

/* One sample at (sx, sy) (clamped) for channels c0 .. c0+cn-1: o[c * ostride]. */
#define DEF_PIXEL(E)                                                                                           \
    static inline void pixel_##E(const warp_img *im, const float *bg, double sx, double sy, int64_t c0, int cn,  \
                                 float *o, int64_t ostride) {                                                   \
        double flx = warp_floor_small(sx), fly = warp_floor_small(sy);                                         \
        int64_t ix = (int64_t)flx, iy = (int64_t)fly;                                                          \
        float fx = (float)(sx - flx), fy = (float)(sy - fly);                                                  \
        const int64_t sw = im->sw, sc = im->sc;                                                                \
        if (ix >= 0 && ix < im->W - 1 && iy >= 0 && iy < im->H - 1) {                                          \
            const char *p0 = im->base + iy * im->sh + ix * sw + c0 * sc, *p1 = p0 + im->sh;                    \
            for (int c = 0; c < cn; c++, p0 += sc, p1 += sc)                                                   \
                o[c * ostride] = aug__warp_bilinear_f32(FL_##E(p0), FL_##E(p0 + sw), FL_##E(p1), FL_##E(p1 + sw), \
                                                        fx, fy);                                               \
            return;                                                                                            \
        }                                                                                                      \
        if (im->border != AUG__WB_CONSTANT) { /* every neighbour maps to a source pixel */                    \
            int64_t jx0 = aug__warp_index(ix, im->W, im->border), jx1 = aug__warp_index(ix + 1, im->W, im->border); \
            int64_t jy0 = aug__warp_index(iy, im->H, im->border), jy1 = aug__warp_index(iy + 1, im->H, im->border); \
            const char *q00 = im->base + (jy0 * im->sh + jx0 * sw + c0 * sc);                                 \
            const char *q01 = im->base + (jy0 * im->sh + jx1 * sw + c0 * sc);                                 \
            const char *q10 = im->base + (jy1 * im->sh + jx0 * sw + c0 * sc);                                 \
            const char *q11 = im->base + (jy1 * im->sh + jx1 * sw + c0 * sc);                                 \
            for (int c = 0; c < cn; c++) {                                                                     \
                int64_t oc = c * sc;                                                                           \
                o[c * ostride] = aug__warp_bilinear_f32(FL_##E(q00 + oc), FL_##E(q01 + oc), FL_##E(q10 + oc),  \
                                                        FL_##E(q11 + oc), fx, fy);                             \
            }                                                                                                  \
            return;                                                                                            \
        }                                                                                                      \
        int vx0 = ix >= 0 && ix < im->W, vx1 = ix + 1 >= 0 && ix + 1 < im->W;                                  \
        int vy0 = iy >= 0 && iy < im->H, vy1 = iy + 1 >= 0 && iy + 1 < im->H;                                  \
        if (!(vx0 | vx1) || !(vy0 | vy1)) {                                                                    \
            for (int c = 0; c < cn; c++) o[c * ostride] = bg[c0 + c];                                          \
            return;                                                                                            \
        }                                                                                                      \
        /* byte offsets; a pointer is formed only for a neighbour inside */                                    \
        int64_t o00 = iy * im->sh + ix * sw + c0 * sc;                                                         \
        int64_t o01 = o00 + sw, o10 = o00 + im->sh, o11 = o10 + sw;                                            \
        int v00 = vy0 & vx0, v01 = vy0 & vx1, v10 = vy1 & vx0, v11 = vy1 & vx1;                                \
        for (int c = 0; c < cn; c++) {                                                                         \
            int64_t oc = c * sc;                                                                               \
            float b = bg[c0 + c];                                                                              \
            float a00 = v00 ? FL_##E(im->base + (o00 + oc)) : b, a01 = v01 ? FL_##E(im->base + (o01 + oc)) : b; \
            float a10 = v10 ? FL_##E(im->base + (o10 + oc)) : b, a11 = v11 ? FL_##E(im->base + (o11 + oc)) : b; \
            o[c * ostride] = aug__warp_bilinear_f32(a00, a01, a10, a11, fx, fy);                               \
        }                                                                                                      \
    }

/* Sample (i, j) of output pixels x0+k0 .. x0+cw-1 of one row; bx = m01*Y + m02,
 * by = m11*Y + m12, di = d[i]. Writes out[c * ostride + k]. */
#define DEF_ROW(E)                                                                                             \
    DEF_PIXEL(E)                                                                                               \
    static void row_##E(const warp_img *im, const float *bg, double bx, double by, double di, int64_t x0,       \
                        int k0, int cw, int64_t c0, int cn, float *out, int64_t ostride) {                     \
        const double *m = im->m;                                                                               \
        double w = (double)im->W, h = (double)im->H;                                                           \
        int32_t xs = (int32_t)x0; /* Wt < 2^31 (checked by the driver) */                                     \
        double sx[CHUNK], sy[CHUNK]; /* a separate (vectorisable) coordinate pass */                           \
        if (im->border == AUG__WB_CONSTANT || im->border == AUG__WB_REPLICATE)                                 \
            for (int k = k0; k < cw; k++) {                                                                    \
                double X = (double)(xs + k) + di;                                                              \
                sx[k] = aug__warp_coord(m[0], X, bx, w), sy[k] = aug__warp_coord(m[3], X, by, h);              \
            }                                                                                                  \
        else                                                                                                   \
            for (int k = k0; k < cw; k++) {                                                                    \
                double X = (double)(xs + k) + di;                                                              \
                sx[k] = aug__warp_coord_b(m[0], X, bx, im->W, im->border);                                     \
                sy[k] = aug__warp_coord_b(m[3], X, by, im->H, im->border);                                     \
            }                                                                                                  \
        for (int k = k0; k < cw; k++) pixel_##E(im, bg, sx[k], sy[k], c0, cn, out + k, ostride);               \
    }
DEF_ROW(BOOL)
DEF_ROW(INT8)
DEF_ROW(INT16)
DEF_ROW(UINT8)
DEF_ROW(UINT16)
DEF_ROW(FLOAT16)
DEF_ROW(BFLOAT16)
DEF_ROW(FLOAT32)

typedef void (*row_fn)(const warp_img *, const float *, double, double, double, int64_t, int, int, int64_t, int,
                       float *, int64_t);
static const row_fn ROWS[AUG_NUM_DTYPES] = {
    [AUG_BOOL] = row_BOOL,       [AUG_INT8] = row_INT8,         [AUG_INT16] = row_INT16,
    [AUG_UINT8] = row_UINT8,     [AUG_UINT16] = row_UINT16,     [AUG_FLOAT16] = row_FLOAT16,
    [AUG_BFLOAT16] = row_BFLOAT16, [AUG_FLOAT32] = row_FLOAT32,
};

#if AUG__X86
/* The cn <= 4 adjacent uint16 channels of one pixel as float32 lanes (0 beyond cn),
 * reading only those 2 * cn bytes (the pixel may end the image). */
__attribute__((target("avx2"))) static inline __m128 load_u16_pixel(const uint16_t *p, int cn) {
    uint32_t a = p[0];
    __m128i v;
    switch (cn) {
    case 1: v = _mm_cvtsi32_si128((int)a); break;
    case 2: memcpy(&a, p, 4), v = _mm_cvtsi32_si128((int)a); break;
    case 3: memcpy(&a, p, 4), v = _mm_insert_epi16(_mm_cvtsi32_si128((int)a), (int16_t)p[2], 2); break;
    default: v = _mm_loadl_epi64((const __m128i *)(const void *)p); break;
    }
    return _mm_cvtepi32_ps(_mm_cvtepu16_epi32(v));
}

/* Sample (i, j) of output pixels x0 .. x0+cw-1 of one row, 8 per step, float32
 * source, or uint16 with adjacent channels (HWC, cn <= 4: the pixel-major loads
 * below, widened exactly to float32; other uint16 layouts do no step); returns
 * how many pixels it did (a multiple of 8; row_FLOAT32 / row_UINT16 does the rest). */
__attribute__((target("avx2"))) static int row_f32_avx2(const warp_img *im, const float *bg, double bx, double by,
                                                         double di, int64_t x0, int cw, int64_t c0, int cn,
                                                         float *out, int64_t ostride) {
    const int u16 = im->dtype == AUG_UINT16, es = u16 ? 2 : 4;
    /* pixel-major loads when the channels are adjacent elements (HWC) and at most 4 */
    const int pm = im->sc == es && cn <= 4;
    if (u16 && !pm) return 0;
#define PIXEL(SX, SY, O)                                                                                   \
    (u16 ? pixel_UINT16(im, bg, SX, SY, c0, cn, O, ostride) : pixel_FLOAT32(im, bg, SX, SY, c0, cn, O, ostride))
    const double *m = im->m;
    warp_coords_avx2 kc;
    warp_coords_init(im, bx, by, di, &kc);
    const __m256i minus1 = _mm256_set1_epi32(-1);
    const __m256i wl = _mm256_set1_epi32((int32_t)(im->W - 1)), hl = _mm256_set1_epi32((int32_t)(im->H - 1));
    const int32_t esh = (int32_t)(im->sh / es), esw = (int32_t)(im->sw / es);
    const __m256i vsh = _mm256_set1_epi32(esh), vsw = _mm256_set1_epi32(esw);
    const __m256 one = _mm256_set1_ps(1.0f);
    const int64_t esc = im->sc / es;
    const float *base = (const float *)im->base + c0 * esc;
    const uint16_t *base16 = (const uint16_t *)im->base + c0 * esc;
    const __m128i cmask = _mm_cmpgt_epi32(_mm_set1_epi32(cn), _mm_setr_epi32(0, 1, 2, 3));
    const __m256i pair = _mm256_setr_epi32(0, 0, 0, 0, 4, 4, 4, 4);
    const int reflecting = im->border == AUG__WB_REFLECT || im->border == AUG__WB_SYMMETRIC;
    int k = 0;
    for (; k + 8 <= cw; k += 8) {
        warp_xy8 sc;
        if (warp_coords8(&kc, (int32_t)(x0 + k), reflecting, &sc)) {
            for (int l = 0; l < 8; l++) {
                double X = (double)((int32_t)x0 + k + l) + di;
                PIXEL(aug__warp_coord_b(m[0], X, bx, im->W, im->border), aug__warp_coord_b(m[3], X, by, im->H, im->border),
                      out + k + l);
            }
            continue;
        }
        const __m256d sx0 = sc.x0, sx1 = sc.x1, sy0 = sc.y0, sy1 = sc.y1;
        __m256d fx0 = _mm256_floor_pd(sx0), fx1 = _mm256_floor_pd(sx1);
        __m256d fy0 = _mm256_floor_pd(sy0), fy1 = _mm256_floor_pd(sy1);
        __m256i ix = _mm256_setr_m128i(_mm256_cvttpd_epi32(fx0), _mm256_cvttpd_epi32(fx1));
        __m256i iy = _mm256_setr_m128i(_mm256_cvttpd_epi32(fy0), _mm256_cvttpd_epi32(fy1));
        /* every neighbour outside: x0 < -1 or x0 > W - 1 (same in y) */
        __m256i outside = _mm256_or_si256(
            _mm256_or_si256(_mm256_cmpgt_epi32(minus1, ix), _mm256_cmpgt_epi32(ix, wl)),
            _mm256_or_si256(_mm256_cmpgt_epi32(minus1, iy), _mm256_cmpgt_epi32(iy, hl)));
        if (im->border == AUG__WB_CONSTANT && _mm256_movemask_epi8(outside) == -1) {
            for (int c = 0; c < cn; c++) _mm256_storeu_ps(out + c * ostride + k, _mm256_set1_ps(bg[c0 + c]));
            continue;
        }
        /* interior: 0 <= x0 < W - 1 and 0 <= y0 < H - 1 */
        __m256i inside = _mm256_and_si256(
            _mm256_and_si256(_mm256_cmpgt_epi32(ix, minus1), _mm256_cmpgt_epi32(wl, ix)),
            _mm256_and_si256(_mm256_cmpgt_epi32(iy, minus1), _mm256_cmpgt_epi32(hl, iy)));
        if (_mm256_movemask_epi8(inside) != -1) {
            double sx[8], sy[8];
            _mm256_storeu_pd(sx, sx0), _mm256_storeu_pd(sx + 4, sx1);
            _mm256_storeu_pd(sy, sy0), _mm256_storeu_pd(sy + 4, sy1);
            for (int l = 0; l < 8; l++) PIXEL(sx[l], sy[l], out + k + l);
            continue;
        }
        __m256 fx = _mm256_setr_m128(_mm256_cvtpd_ps(_mm256_sub_pd(sx0, fx0)), _mm256_cvtpd_ps(_mm256_sub_pd(sx1, fx1)));
        __m256 fy = _mm256_setr_m128(_mm256_cvtpd_ps(_mm256_sub_pd(sy0, fy0)), _mm256_cvtpd_ps(_mm256_sub_pd(sy1, fy1)));
        __m256 gx = _mm256_sub_ps(one, fx), gy = _mm256_sub_ps(one, fy);
        __m256i o00 = _mm256_add_epi32(_mm256_mullo_epi32(iy, vsh), _mm256_mullo_epi32(ix, vsw));
        if (pm) {
            /* channels adjacent (HWC): per pixel, each neighbour's cn <= 4 channels in one
             * masked 4-lane load; pixels l and l + 4 share a vector; the same float32
             * operations per value as the gathers below */
            int32_t off[8];
            _mm256_storeu_si256((__m256i *)off, o00);
            __m256 r[4];
            for (int l = 0; l < 4; l++) {
                const float *pa = base + off[l], *pb = base + off[l + 4];
                const uint16_t *qa = base16 + off[l], *qb = base16 + off[l + 4];
#define PM_LOAD(D)                                                                                             \
    (u16 ? _mm256_insertf128_ps(_mm256_castps128_ps256(load_u16_pixel(qa + (D), cn)), load_u16_pixel(qb + (D), cn), 1) \
         : _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_maskload_ps(pa + (D), cmask)),                      \
                                _mm_maskload_ps(pb + (D), cmask), 1))
                __m256 v00 = PM_LOAD(0), v01 = PM_LOAD(esw), v10 = PM_LOAD(esh), v11 = PM_LOAD(esh + esw);
#undef PM_LOAD
                __m256i sel = _mm256_add_epi32(_mm256_set1_epi32(l), pair);
                __m256 wfx = _mm256_permutevar8x32_ps(fx, sel), wgx = _mm256_permutevar8x32_ps(gx, sel);
                __m256 wfy = _mm256_permutevar8x32_ps(fy, sel), wgy = _mm256_permutevar8x32_ps(gy, sel);
                __m256 t = _mm256_add_ps(_mm256_mul_ps(wgx, v00), _mm256_mul_ps(wfx, v01));
                __m256 b = _mm256_add_ps(_mm256_mul_ps(wgx, v10), _mm256_mul_ps(wfx, v11));
                r[l] = _mm256_add_ps(_mm256_mul_ps(wgy, t), _mm256_mul_ps(wfy, b));
            }
            /* 4 x 4 transpose in each 128-bit half: channel c of pixels 0..3 | 4..7 */
            __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpacklo_ps(r[2], r[3]);
            __m256 t2 = _mm256_unpackhi_ps(r[0], r[1]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
            __m256 ch[4] = {_mm256_shuffle_ps(t0, t1, 0x44), _mm256_shuffle_ps(t0, t1, 0xEE),
                            _mm256_shuffle_ps(t2, t3, 0x44), _mm256_shuffle_ps(t2, t3, 0xEE)};
            for (int c = 0; c < cn; c++) _mm256_storeu_ps(out + c * ostride + k, ch[c]);
            continue;
        }
        const float *p = base;
        for (int c = 0; c < cn; c++, p += esc) {
            __m256 v00 = _mm256_i32gather_ps(p, o00, 4), v01 = _mm256_i32gather_ps(p + esw, o00, 4);
            __m256 v10 = _mm256_i32gather_ps(p + esh, o00, 4), v11 = _mm256_i32gather_ps(p + esh + esw, o00, 4);
            __m256 t = _mm256_add_ps(_mm256_mul_ps(gx, v00), _mm256_mul_ps(fx, v01));
            __m256 b = _mm256_add_ps(_mm256_mul_ps(gx, v10), _mm256_mul_ps(fx, v11));
            _mm256_storeu_ps(out + c * ostride + k, _mm256_add_ps(_mm256_mul_ps(gy, t), _mm256_mul_ps(fy, b)));
        }
    }
    return k;
#undef PIXEL
}
#endif

/* One sample's values into the double sums (s > 1): acc[k] = 0.0 + (double)f[k]
 * for the first sample (the sum starts at +0.0, so -0.0 samples give +0.0 as on
 * every path), acc[k] += (double)f[k] for the others; and the mean acc[k] / ss
 * (ss = s * s: for a power of two, the multiply by its inverse is the same
 * correctly rounded quotient). */
#define ACC_BODY                                                                                                       \
    if (first)                                                                                                         \
        for (int k = 0; k < n; k++) acc[k] = 0.0 + (double)f[k];                                                       \
    else                                                                                                               \
        for (int k = 0; k < n; k++) acc[k] += (double)f[k];
#define MEAN_BODY                                                                                                      \
    if ((s & (s - 1)) == 0) {                                                                                          \
        double inv = 1.0 / ((double)s * (double)s);                                                                    \
        for (int k = 0; k < n; k++) acc[k] *= inv;                                                                     \
    } else {                                                                                                           \
        double ss = (double)s * (double)s;                                                                             \
        for (int k = 0; k < n; k++) acc[k] /= ss;                                                                      \
    }
static void accumulate_plain(double *acc, const float *f, int n, int first) { ACC_BODY }
static void mean_plain(double *acc, int n, int s) { MEAN_BODY }
#if AUG__X86
__attribute__((target("avx2"))) static void accumulate_avx2(double *acc, const float *f, int n, int first) {
    ACC_BODY
}
__attribute__((target("avx2"))) static void mean_avx2(double *acc, int n, int s) { MEAN_BODY }
#endif
static void accumulate(double *acc, const float *f, int n, int first, int avx2) {
#if AUG__X86
    if (avx2) {
        accumulate_avx2(acc, f, n, first);
        return;
    }
#endif
    (void)avx2;
    accumulate_plain(acc, f, n, first);
}
static void mean(double *acc, int n, int s, int avx2) {
#if AUG__X86
    if (avx2) {
        mean_avx2(acc, n, s);
        return;
    }
#endif
    (void)avx2;
    mean_plain(acc, n, s);
}

void aug__warp_rows_float(const warp_ctx *cx, const warp_img *im, int64_t n, int64_t y0, int64_t y1) {
    const aug__warp_plan *pl = cx->plan;
    int64_t C = pl->channels, Wt = pl->width;
    const float *bg = cx->bg_f32;
    row_fn row = ROWS[im->dtype];
    int s = im->s;
    float fbuf[CGROUP * CHUNK];
    double acc[CGROUP * CHUNK];
    /* s = 1 into a float32 destination: straight into the output planes */
    int direct = s == 1 && cx->dst_dtype == AUG_FLOAT32 && cx->dx == 1;
    int avx2 = 0;
#if AUG__X86
    /* gathers take int32 element offsets: positive row/column strides and the
     * farthest element (plus the channel span) below 2^31 */
    int64_t asc = im->sc < 0 ? -im->sc : im->sc;
    int64_t es = im->dtype == AUG_UINT16 ? 2 : 4;
    avx2 = cx->simd >= AUG__SIMD_AVX2 && (im->dtype == AUG_FLOAT32 || (im->dtype == AUG_UINT16 && im->sc == 2)) &&
           im->sh > 0 && im->sw > 0 &&
           (im->border == AUG__WB_CONSTANT || im->border == AUG__WB_REPLICATE || (im->W >= 4 && im->H >= 4)) &&
           ((im->H + 2) * im->sh + (im->W + 2) * im->sw + im->C * asc) / es < INT32_MAX && Wt < INT32_MAX - 8;
#endif
    /* column blocks outside, rows inside: a tile of the output reads a compact
     * region of the source, which stays in cache */
    for (int64_t x0 = 0; x0 < Wt; x0 += CHUNK) {
        int cw = (int)(Wt - x0 < CHUNK ? Wt - x0 : CHUNK);
        for (int64_t y = y0; y < y1; y++) {
            for (int64_t c0 = 0; c0 < C; c0 += CGROUP) {
                int cn = (int)(C - c0 < CGROUP ? C - c0 : CGROUP);
                float *out = fbuf;
                int64_t ostride = CHUNK;
                if (direct) out = (float *)cx->dst + warp_dst_at(cx, n, c0, y, x0), ostride = cx->dc;
                for (int j = 0; j < s; j++) {
                    double Y = (double)y + warp_sample_offset(im, j);
                    double bx = aug__warp_rowterm(im->m[1], Y, im->m[2]), by = aug__warp_rowterm(im->m[4], Y, im->m[5]);
                    for (int i = 0; i < s; i++) {
                        double di = warp_sample_offset(im, i);
                        int k = 0;
#if AUG__X86
                        if (avx2) k = row_f32_avx2(im, bg, bx, by, di, x0, cw, c0, cn, out, ostride);
#endif
                        row(im, bg, bx, by, di, x0, k, cw, c0, cn, out, ostride);
                        if (s > 1)
                            for (int c = 0; c < cn; c++)
                                accumulate(acc + c * CHUNK, fbuf + c * CHUNK, cw, i == 0 && j == 0, avx2);
                    }
                }
                if (direct) continue;
                for (int c = 0; c < cn; c++) {
                    char *dst = cx->dst + warp_dst_at(cx, n, c0 + c, y, x0) * cx->dst_item;
                    if (s == 1) {
                        aug__convert((const char *)(fbuf + c * CHUNK), sizeof(float), AUG_FLOAT32, dst,
                                     cx->dx * cx->dst_item, cx->dst_dtype, cw);
                        continue;
                    }
                    double *a = acc + c * CHUNK;
                    mean(a, cw, s, avx2);
                    aug__convert((const char *)a, sizeof(double), AUG_FLOAT64, dst, cx->dx * cx->dst_item,
                                 cx->dst_dtype, cw);
                }
            }
        }
    }
}
