/* test_warp.c: aug_make_affine_matrix and aug_warp_affine(_batch) (semantics §13).
 *
 * The seed's matrix to 7 significant digits and the matrix formula written out
 * independently (composing the five 3x3 matrices); the identity warp equals the
 * input transposed to CHW for every dtype; a translation by whole pixels moves
 * the image and fills the background; a half-pixel shift averages neighbours
 * exactly; the uint8 fixed-point kernel against a long-double evaluation of the
 * definition (+-1) with and without supersampling; results independent of the
 * thread count; strided sources; the batch form; every error path; and the
 * float32 kernel (AVX2 == portable bytes, accuracy against long double); the
 * axis-aligned uint8 path (AVX2 == portable bytes); the AVX2 kernel's row loads
 * (translations, shears, rotations: AVX2 == portable == the fixed-point rule). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "aug/aug.h"
#include "cpu/simd.h"
#include "core/warp.h"
#include "cpu/cpu.h"

static uint64_t rng_state = 0x2545f4914f6cdd1dull;
static uint64_t rnd(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double urand(double lo, double hi) { return lo + (hi - lo) * (double)(rnd() >> 11) * 0x1p-53; }

static aug_tensor *mk(aug_dtype dt, int ndim, const int64_t *shape) {
    aug_tensor *t = aug_tensor_empty(ndim, shape, dt, aug_cpu_device());
    if (!t) fail_msg("aug_tensor_empty: %s", aug_last_error());
    return t;
}

static aug_tensor *mk_u8_image(int64_t H, int64_t W, int64_t C) {
    int64_t shape[3] = {H, W, C};
    aug_tensor *t = mk(AUG_UINT8, 3, shape);
    uint8_t *p = aug_tensor_ptr(t);
    for (int64_t k = 0; k < H * W * C; k++) p[k] = (uint8_t)(rnd() & 0xff);
    return t;
}

static void expect_error(aug_status st, aug_status want, const char *needle) {
    assert_int_equal(st, want);
    if (!strstr(aug_last_error(), needle)) fail_msg("message \"%s\" lacks \"%s\"", aug_last_error(), needle);
}

/* ---- make_affine_matrix ------------------------------------------------------------ */

static void test_matrix_seed(void **state) {
    (void)state;
    aug_affine_params p = aug_affine_params_default();
    p.angle = 10;
    float m[6];
    int s = 0;
    assert_int_equal(aug_make_affine_matrix(m, 480, 640, 224, 224, &p, &s), AUG_OK);
    const double want[6] = {2.1103022, -0.37210324, 125.3217, 0.37210324, 2.1103022, -38.029423};
    for (int k = 0; k < 6; k++) {
        double rel = fabs((double)m[k] - want[k]) / fabs(want[k]);
        if (rel > 5e-7) fail_msg("m[%d] = %.9g, want %.9g", k, (double)m[k], want[k]);
    }
    assert_int_equal(s, 3); /* r = 240/112 = 2.14 -> ceil 3 */
    p.max_supersampling = 2;
    assert_int_equal(aug_make_affine_matrix(m, 480, 640, 224, 224, &p, &s), AUG_OK);
    assert_int_equal(s, 2);
    p.scale = 4; /* r < 1 -> 1 */
    assert_int_equal(aug_make_affine_matrix(m, 480, 640, 224, 224, &p, &s), AUG_OK);
    assert_int_equal(s, 1);
    assert_int_equal(aug_make_affine_matrix(m, 480, 640, 224, 224, &p, NULL), AUG_OK);
}

typedef struct m3 { double a[3][3]; } m3;
static m3 mul(m3 x, m3 y) {
    m3 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            r.a[i][j] = 0;
            for (int k = 0; k < 3; k++) r.a[i][j] += x.a[i][k] * y.a[k][j];
        }
    return r;
}
static m3 mat(double a, double b, double c, double d, double e, double f) {
    m3 r = {{{a, b, c}, {d, e, f}, {0, 0, 1}}};
    return r;
}

static void test_matrix_formula(void **state) {
    (void)state;
    for (int it = 0; it < 500; it++) {
        int64_t Hs = 1 + (int64_t)(rnd() % 900), Ws = 1 + (int64_t)(rnd() % 900);
        int64_t Ht = 1 + (int64_t)(rnd() % 500), Wt = 1 + (int64_t)(rnd() % 500);
        aug_affine_params p = aug_affine_params_default();
        p.angle = urand(-360, 360);
        p.scale = urand(0.2, 3) * (rnd() % 8 == 0 ? -1 : 1);
        p.aspect = urand(0.5, 2);
        p.shifty = urand(-1, 1), p.shiftx = urand(-1, 1);
        p.sheary = urand(-0.5, 0.5), p.shearx = urand(-0.5, 0.5);
        p.hmirror = (int)(rnd() & 1), p.vmirror = (int)(rnd() & 1);
        p.scale_mode = (rnd() & 1) ? AUG_WARP_SCALE_LONGEST : AUG_WARP_SCALE_SHORTEST;
        p.max_supersampling = 1 + (int)(rnd() % 5);
        float m[6];
        int s;
        assert_int_equal(aug_make_affine_matrix(m, Hs, Ws, Ht, Wt, &p, &s), AUG_OK);
        double sw = Ws / 2.0, sh = Hs / 2.0, tw = Wt / 2.0, th = Ht / 2.0;
        double r = (p.scale_mode == AUG_WARP_SCALE_SHORTEST ? fmin(sh / th, sw / tw) : fmax(sh / th, sw / tw)) /
                   p.scale;
        double wd = fabs(sw - tw * r), hd = fabs(sh - th * r);
        double phi = -p.angle * M_PI / 180, c = cos(phi), sn = sin(phi);
        m3 M = mul(mul(mul(mul(mat(1, 0, sw + wd * p.shiftx, 0, 1, sh + hd * p.shifty), mat(c, sn, 0, -sn, c, 0)),
                           mat(r * p.aspect * (p.hmirror ? -1 : 1), 0, 0, 0, r / p.aspect * (p.vmirror ? -1 : 1),
                               0)),
                       mat(1, p.shearx, 0, p.sheary, 1, 0)),
                   mat(1, 0, -tw, 0, 1, -th));
        for (int k = 0; k < 6; k++) {
            double want = M.a[k / 3][k % 3];
            double tol = 1e-6 * (fabs(want) + 1e-3 * (sw + sh + 1));
            if (fabs((double)m[k] - want) > tol) fail_msg("iter %d m[%d] = %.9g, want %.9g", it, k, (double)m[k], want);
        }
        double ss = ceil(r);
        int want_s = ss < 1 ? 1 : (ss > p.max_supersampling ? p.max_supersampling : (int)ss);
        assert_int_equal(s, want_s);
    }
}

static void test_matrix_errors(void **state) {
    (void)state;
    float m[6] = {7, 7, 7, 7, 7, 7};
    aug_affine_params p = aug_affine_params_default();
    p.scale = 0;
    expect_error(aug_make_affine_matrix(m, 10, 10, 10, 10, &p, NULL), AUG_ERR_VALUE, "aug_make_affine_matrix: scale");
    assert_true(m[0] == 7); /* untouched on error */
    p = aug_affine_params_default();
    p.aspect = 0;
    expect_error(aug_make_affine_matrix(m, 10, 10, 10, 10, &p, NULL), AUG_ERR_VALUE, "aspect");
    p = aug_affine_params_default();
    p.angle = NAN;
    expect_error(aug_make_affine_matrix(m, 10, 10, 10, 10, &p, NULL), AUG_ERR_VALUE, "angle");
    p = aug_affine_params_default();
    p.shiftx = INFINITY;
    expect_error(aug_make_affine_matrix(m, 10, 10, 10, 10, &p, NULL), AUG_ERR_VALUE, "shiftx");
    p = aug_affine_params_default();
    expect_error(aug_make_affine_matrix(m, 0, 10, 10, 10, &p, NULL), AUG_ERR_VALUE, "source size");
    expect_error(aug_make_affine_matrix(m, 10, 10, 10, -1, &p, NULL), AUG_ERR_VALUE, "target size");
    p.max_supersampling = 0;
    expect_error(aug_make_affine_matrix(m, 10, 10, 10, 10, &p, NULL), AUG_ERR_VALUE, "max_supersampling");
    p.max_supersampling = AUG_MAX_SUPERSAMPLING + 1;
    expect_error(aug_make_affine_matrix(m, 10, 10, 10, 10, &p, NULL), AUG_ERR_VALUE,
                 "max_supersampling must be in [1, 16], got 17");
    p = aug_affine_params_default();
    p.scale_mode = (aug_warp_scale_mode)7;
    expect_error(aug_make_affine_matrix(m, 10, 10, 10, 10, &p, NULL), AUG_ERR_VALUE, "scale_mode");
    p = aug_affine_params_default();
    p.scale = 1e-300; /* r overflows float32 */
    expect_error(aug_make_affine_matrix(m, 10, 10, 10, 10, &p, NULL), AUG_ERR_VALUE, "float32");
    expect_error(aug_make_affine_matrix(NULL, 10, 10, 10, 10, &p, NULL), AUG_ERR_VALUE, "out is NULL");
    expect_error(aug_make_affine_matrix(m, 10, 10, 10, 10, NULL, NULL), AUG_ERR_VALUE, "params is NULL");
}

/* ---- warp ------------------------------------------------------------------------------ */

static const float IDENTITY[6] = {1, 0, 0, 0, 1, 0};

/* value of element k of a contiguous tensor as double */
static double at(const aug_tensor *t, int64_t k) {
    aug_scalar v;
    int64_t idx[AUG_MAX_DIMS], rem = k;
    for (int d = t->ndim - 1; d >= 0; d--) idx[d] = rem % t->shape[d], rem /= t->shape[d];
    if (aug_tensor_get_item(t, idx, &v)) fail_msg("%s", aug_last_error());
    switch (aug_dtype_info(v.dtype)->kind) {
    case AUG_KIND_FLOAT: return v.v.f;
    case AUG_KIND_UINT: return (double)v.v.u;
    default: return (double)v.v.i;
    }
}

static void test_identity_all_dtypes(void **state) {
    (void)state;
    for (int dt = 0; dt < AUG_NUM_DTYPES; dt++) {
        int64_t H = 7, W = 9, C = 3, dshape[3] = {C, H, W};
        aug_tensor *u8 = mk_u8_image(H, W, C), *src = NULL;
        /* values 0..255 are exact in every dtype but bool/int8; cast saturates those */
        assert_int_equal(aug_cast(u8, (aug_dtype)dt, &src), AUG_OK);
        aug_tensor *dst = mk((aug_dtype)dt, 3, dshape);
        assert_int_equal(aug_warp_affine(src, dst, IDENTITY, NULL, 1), AUG_OK);
        assert_string_equal(dst->layout, "CHW");
        for (int64_t c = 0; c < C; c++)
            for (int64_t y = 0; y < H; y++)
                for (int64_t x = 0; x < W; x++) {
                    double a = at(src, (y * W + x) * C + c), b = at(dst, (c * H + y) * W + x);
                    if (a != b) fail_msg("%s (%d,%d,%d): %g != %g", aug_dtype_name((aug_dtype)dt), (int)c, (int)y,
                                         (int)x, b, a);
                }
        aug_tensor_free(u8);
        aug_tensor_free(src);
        aug_tensor_free(dst);
    }
}

static void test_translation_and_background(void **state) {
    (void)state;
    int64_t H = 6, W = 8, C = 3, dshape[3] = {C, H, W}, bshape[1] = {3};
    aug_tensor *src = mk_u8_image(H, W, C), *dst = mk(AUG_UINT8, 3, dshape), *bg = mk(AUG_UINT16, 1, bshape);
    uint16_t *b = aug_tensor_ptr(bg);
    b[0] = 10, b[1] = 200, b[2] = 300; /* 300 saturates to 255 */
    const float shift[6] = {1, 0, 2, 0, 1, -1}; /* dst(x, y) = src(x + 2, y - 1) */
    const uint8_t *s = aug_tensor_ptr(src), *d = aug_tensor_ptr(dst);
    for (int path = 0; path < 2; path++) {
        /* path 0: uint16 background 300 is not a byte: the double kernel; path 1: bytes */
        if (path == 1) b[2] = 77;
        assert_int_equal(aug_warp_affine(src, dst, shift, bg, 1), AUG_OK);
        for (int64_t c = 0; c < C; c++)
            for (int64_t y = 0; y < H; y++)
                for (int64_t x = 0; x < W; x++) {
                    int64_t sx = x + 2, sy = y - 1;
                    int want = (sx < W && sy >= 0) ? s[(sy * W + sx) * C + c] : (b[c] > 255 ? 255 : b[c]);
                    assert_int_equal(d[(c * H + y) * W + x], want);
                }
    }
    /* far away: everything is background */
    const float away[6] = {1, 0, 1e6f, 0, 1, 0};
    assert_int_equal(aug_warp_affine(src, dst, away, bg, 3), AUG_OK);
    for (int64_t k = 0; k < C * H * W; k++) assert_int_equal(d[k], b[k / (H * W)]);
    aug_tensor_free(src);
    aug_tensor_free(dst);
    aug_tensor_free(bg);
}

static void test_half_pixel(void **state) {
    (void)state;
    /* x + 0.5: the mean of two horizontal neighbours, exactly (round half up in
     * the fixed-point kernel, half to even in the double one: odd sums differ) */
    int64_t H = 4, W = 6, C = 1, dshape[3] = {1, 4, 5};
    aug_tensor *src = mk_u8_image(H, W, C), *dst = mk(AUG_FLOAT64, 3, dshape);
    const float half[6] = {1, 0, 0.5f, 0, 1, 0};
    assert_int_equal(aug_warp_affine(src, dst, half, NULL, 1), AUG_OK);
    const uint8_t *s = aug_tensor_ptr(src);
    const double *d = aug_tensor_ptr(dst);
    for (int64_t y = 0; y < 4; y++)
        for (int64_t x = 0; x < 5; x++) assert_true(d[y * 5 + x] == (s[y * W + x] + s[y * W + x + 1]) / 2.0);
    aug_tensor_free(dst);
    aug_tensor_free(src);
}

/* Long-double evaluation of the semantics §13 definition for one output value. */
static long double ref_value(const uint8_t *src, int64_t H, int64_t W, int64_t C, const float *m, int s,
                             const double *bg, int64_t c, int64_t x, int64_t y) {
    long double sum = 0, o = (long double)(s - 1) / (2.0L * s);
    for (int j = 0; j < s; j++)
        for (int i = 0; i < s; i++) {
            long double X = x - o + (long double)i / s, Y = y - o + (long double)j / s;
            long double sx = m[0] * X + m[1] * Y + m[2], sy = m[3] * X + m[4] * Y + m[5];
            long double fx0 = floorl(sx), fy0 = floorl(sy), fx = sx - fx0, fy = sy - fy0;
            long double v[2][2];
            for (int dy = 0; dy < 2; dy++)
                for (int dx = 0; dx < 2; dx++) {
                    long double xx = fx0 + dx, yy = fy0 + dy;
                    v[dy][dx] = (xx >= 0 && xx < W && yy >= 0 && yy < H)
                                    ? src[((int64_t)yy * W + (int64_t)xx) * C + c]
                                    : bg[c];
                }
            sum += (1 - fy) * ((1 - fx) * v[0][0] + fx * v[0][1]) + fy * ((1 - fx) * v[1][0] + fx * v[1][1]);
        }
    return sum / (s * s);
}

static int sat_u8(long double v) {
    long double r = nearbyintl(v);
    return r < 0 ? 0 : r > 255 ? 255 : (int)r;
}

static void test_fixed_point_vs_reference(void **state) {
    (void)state;
    for (int it = 0; it < 24; it++) {
        int64_t H = 5 + (int64_t)(rnd() % 60), W = 5 + (int64_t)(rnd() % 60), C = 1 + (int64_t)(rnd() % 5);
        int64_t Ht = 1 + (int64_t)(rnd() % 40), Wt = 1 + (int64_t)(rnd() % 70), dshape[3] = {C, Ht, Wt};
        int s = 1 + (int)(it % 4);
        aug_tensor *src = mk_u8_image(H, W, C), *dst = mk(AUG_UINT8, 3, dshape), *bg = mk(AUG_UINT8, 1, &C);
        double bgv[8];
        for (int64_t c = 0; c < C; c++) ((uint8_t *)aug_tensor_ptr(bg))[c] = (uint8_t)(bgv[c] = (double)(rnd() & 0xff));
        aug_affine_params p = aug_affine_params_default();
        p.angle = urand(-180, 180), p.scale = urand(0.3, 3), p.shearx = urand(-0.3, 0.3);
        p.hmirror = (int)(rnd() & 1), p.shiftx = urand(-1, 1);
        float m[6];
        assert_int_equal(aug_make_affine_matrix(m, H, W, Ht, Wt, &p, NULL), AUG_OK);
        assert_int_equal(aug_warp_affine(src, dst, m, bg, s), AUG_OK);
        const uint8_t *sp = aug_tensor_ptr(src), *dp = aug_tensor_ptr(dst);
        for (int64_t c = 0; c < C; c++)
            for (int64_t y = 0; y < Ht; y++)
                for (int64_t x = 0; x < Wt; x++) {
                    int want = sat_u8(ref_value(sp, H, W, C, m, s, bgv, c, x, y));
                    int got = dp[(c * Ht + y) * Wt + x];
                    if (abs(got - want) > 1) fail_msg("it %d s %d (%d,%d,%d): %d vs %d", it, s, (int)c, (int)y,
                                                      (int)x, got, want);
                }
        aug_tensor_free(src);
        aug_tensor_free(dst);
        aug_tensor_free(bg);
    }
}

static void test_threads_and_strides(void **state) {
    (void)state;
    int64_t H = 90, W = 120, C = 3, dshape[3] = {C, 100, 130};
    aug_tensor *src = mk_u8_image(H, W, C);
    aug_affine_params p = aug_affine_params_default();
    p.angle = 33;
    float m[6];
    assert_int_equal(aug_make_affine_matrix(m, H, W, 100, 130, &p, NULL), AUG_OK);
    aug_tensor *ref = mk(AUG_UINT8, 3, dshape), *out = mk(AUG_UINT8, 3, dshape);
    int saved = aug_get_num_threads();
    for (int s = 1; s <= 2; s++) {
        aug_set_num_threads(1);
        assert_int_equal(aug_warp_affine(src, ref, m, NULL, s), AUG_OK);
        aug_set_num_threads(4);
        assert_int_equal(aug_warp_affine(src, out, m, NULL, s), AUG_OK);
        assert_memory_equal(aug_tensor_ptr(ref), aug_tensor_ptr(out), (size_t)aug_tensor_size(ref));
    }
    aug_set_num_threads(saved);
    /* a CHW copy viewed as HWC (channel stride != 1): the double kernel; same bytes */
    int perm_chw[3] = {2, 0, 1}, perm_hwc[3] = {1, 2, 0};
    aug_tensor *chw_view = aug_tensor_permute(src, perm_chw), *chw = aug_tensor_contiguous(chw_view);
    aug_tensor *hwc = aug_tensor_permute(chw, perm_hwc);
    assert_non_null(hwc);
    assert_int_equal(aug_warp_affine(src, ref, m, NULL, 1), AUG_OK);
    assert_int_equal(aug_warp_affine(hwc, out, m, NULL, 1), AUG_OK);
    const uint8_t *a = aug_tensor_ptr(ref), *b = aug_tensor_ptr(out);
    for (int64_t k = 0; k < aug_tensor_size(ref); k++) assert_true(abs(a[k] - b[k]) <= 1);
    aug_tensor_free(chw_view);
    aug_tensor_free(chw);
    aug_tensor_free(hwc);
    aug_tensor_free(src);
    aug_tensor_free(ref);
    aug_tensor_free(out);
}

static void test_batch(void **state) {
    (void)state;
    aug_tensor *imgs[3] = {mk_u8_image(30, 40, 4), mk_u8_image(50, 20, 4), mk_u8_image(16, 16, 4)};
    int64_t bshape[4] = {3, 4, 24, 24}, one[3] = {4, 24, 24};
    aug_tensor *dst = mk(AUG_FLOAT32, 4, bshape), *single = mk(AUG_FLOAT32, 3, one);
    float m[18];
    int ss[3] = {1, 2, 3};
    for (int i = 0; i < 3; i++) {
        aug_affine_params p = aug_affine_params_default();
        p.angle = 20.0 * i;
        assert_int_equal(aug_make_affine_matrix(m + 6 * i, imgs[i]->shape[0], imgs[i]->shape[1], 24, 24, &p, NULL),
                         AUG_OK);
    }
    assert_int_equal(aug_warp_affine_batch(3, (const aug_tensor *const *)imgs, dst, m, NULL, ss), AUG_OK);
    assert_string_equal(dst->layout, "NCHW");
    for (int i = 0; i < 3; i++) {
        assert_int_equal(aug_warp_affine(imgs[i], single, m + 6 * i, NULL, ss[i]), AUG_OK);
        assert_memory_equal((const float *)aug_tensor_ptr(dst) + i * 4 * 24 * 24, aug_tensor_ptr(single),
                            4 * 24 * 24 * sizeof(float));
    }
    for (int i = 0; i < 3; i++) aug_tensor_free(imgs[i]);
    aug_tensor_free(dst);
    aug_tensor_free(single);
}

static void test_warp_errors(void **state) {
    (void)state;
    int64_t s3[3] = {3, 8, 8}, s4[4] = {2, 3, 8, 8}, bad[2] = {8, 8}, four = 4;
    aug_tensor *src = mk_u8_image(10, 10, 3), *dst = mk(AUG_UINT8, 3, s3), *dst4 = mk(AUG_UINT8, 4, s4);
    aug_tensor *flat = mk(AUG_UINT8, 2, bad), *bg4 = mk(AUG_UINT8, 1, &four);
    expect_error(aug_warp_affine(src, flat, IDENTITY, NULL, 1), AUG_ERR_VALUE, "aug_warp_affine: dst must be (C, H, W)");
    expect_error(aug_warp_affine(flat, dst, IDENTITY, NULL, 1), AUG_ERR_VALUE, "src must be (H, W, C)");
    aug_tensor *src4 = mk_u8_image(10, 10, 4);
    expect_error(aug_warp_affine(src4, dst, IDENTITY, NULL, 1), AUG_ERR_VALUE, "4 channels but dst has 3");
    expect_error(aug_warp_affine(src, dst, IDENTITY, bg4, 1), AUG_ERR_VALUE, "background has 4 values");
    expect_error(aug_warp_affine(src, dst, IDENTITY, NULL, 0), AUG_ERR_VALUE,
                 "aug_warp_affine: supersampling must be in [1, 16], got 0");
    expect_error(aug_warp_affine(src, dst, IDENTITY, NULL, AUG_MAX_SUPERSAMPLING + 1), AUG_ERR_VALUE,
                 "aug_warp_affine: supersampling must be in [1, 16], got 17");
    expect_error(aug_warp_affine(src, dst, IDENTITY, NULL, 99999), AUG_ERR_VALUE, "got 99999");
    assert_int_equal(aug_warp_affine(src, dst, IDENTITY, NULL, AUG_MAX_SUPERSAMPLING), AUG_OK);
    const float nanm[6] = {1, 0, NAN, 0, 1, 0};
    expect_error(aug_warp_affine(src, dst, nanm, NULL, 1), AUG_ERR_VALUE, "non-finite");
    expect_error(aug_warp_affine(src, dst, NULL, NULL, 1), AUG_ERR_VALUE, "matrix is NULL");
    expect_error(aug_warp_affine(NULL, dst, IDENTITY, NULL, 1), AUG_ERR_VALUE, "aug_warp_affine");
    /* non-contiguous dst */
    int perm[3] = {0, 2, 1};
    aug_tensor *tr = aug_tensor_permute(dst, perm);
    expect_error(aug_warp_affine(src, tr, IDENTITY, NULL, 1), AUG_ERR_VALUE, "contiguous");
    /* dst overlapping src */
    int64_t shp[3] = {3, 3, 3};
    aug_tensor *big = mk_u8_image(9, 9, 3);
    aug_tensor *alias = aug_tensor_from_storage(big->storage, 0, 3, shp, (int64_t[]){9, 3, 1}, AUG_UINT8);
    assert_non_null(alias);
    expect_error(aug_warp_affine(big, alias, IDENTITY, NULL, 1), AUG_ERR_VALUE, "overlaps");
    /* batch */
    const aug_tensor *two[2] = {src, src}, *three[3] = {src, src, src};
    float m12[12] = {1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0};
    int ss[3] = {1, 1, 1};
    assert_int_equal(aug_warp_affine_batch(2, two, dst4, m12, NULL, ss), AUG_OK);
    expect_error(aug_warp_affine_batch(3, three, dst4, m12, NULL, ss), AUG_ERR_VALUE,
                 "aug_warp_affine_batch: dst holds 2 images");
    expect_error(aug_warp_affine_batch(2, two, dst, m12, NULL, ss), AUG_ERR_VALUE, "(N, C, H, W)");
    expect_error(aug_warp_affine_batch(0, two, dst4, m12, NULL, ss), AUG_ERR_VALUE, "at least one image");
    m12[7] = INFINITY;
    expect_error(aug_warp_affine_batch(2, two, dst4, m12, NULL, ss), AUG_ERR_VALUE, "matrix 1");
    m12[7] = 0;
    ss[1] = -3;
    expect_error(aug_warp_affine_batch(2, two, dst4, m12, NULL, ss), AUG_ERR_VALUE, "got -3");
    aug_tensor *tensors[] = {src, dst, dst4, flat, bg4, src4, tr, big, alias};
    for (size_t i = 0; i < sizeof tensors / sizeof *tensors; i++) aug_tensor_free(tensors[i]);
}

static void test_empty(void **state) {
    (void)state;
    int64_t s0[3] = {3, 0, 5}, sd[3] = {2, 3, 4}, e[3] = {0, 4, 2};
    aug_tensor *src = mk_u8_image(10, 10, 3), *dst = mk(AUG_UINT8, 3, s0);
    assert_int_equal(aug_warp_affine(src, dst, IDENTITY, NULL, 1), AUG_OK);
    /* an empty source: every output is background */
    aug_tensor *esrc = mk(AUG_UINT8, 3, e), *d2 = mk(AUG_INT16, 3, sd), *bg = mk(AUG_FLOAT32, 1, (int64_t[]){2});
    ((float *)aug_tensor_ptr(bg))[0] = -3.5f, ((float *)aug_tensor_ptr(bg))[1] = 1000.25f;
    assert_int_equal(aug_warp_affine(esrc, d2, IDENTITY, bg, 2), AUG_OK);
    const int16_t *d = aug_tensor_ptr(d2);
    for (int k = 0; k < 24; k++) assert_int_equal(d[k], k < 12 ? -4 : 1000); /* half to even */
    aug_tensor_free(src);
    aug_tensor_free(dst);
    aug_tensor_free(esrc);
    aug_tensor_free(d2);
    aug_tensor_free(bg);
}

/* The AVX2 uint8 kernel writes the same bytes as the portable one (s = 1, 2, 3). */
static void test_simd_paths_agree(void **state) {
    (void)state;
    if (aug__simd_cpu_level() < AUG__SIMD_AVX2) skip();
    for (int it = 0; it < 60; it++) {
        int64_t C = 1 + it % 4, H = 2 + (int64_t)(rnd() % 80), W = 2 + (int64_t)(rnd() % 80);
        int64_t Ht = 1 + (int64_t)(rnd() % 50), Wt = 1 + (int64_t)(rnd() % 90), dshape[4] = {1, C, Ht, Wt};
        aug_tensor *src = mk_u8_image(H, W, C), *a = mk(AUG_UINT8, 4, dshape), *b = mk(AUG_UINT8, 4, dshape);
        aug_affine_params p = aug_affine_params_default();
        p.angle = urand(-180, 180), p.scale = urand(0.3, 3), p.shearx = urand(-0.3, 0.3);
        p.hmirror = (int)(rnd() & 1), p.vmirror = (int)(rnd() & 1), p.shifty = urand(-1, 1);
        float m[6];
        assert_int_equal(aug_make_affine_matrix(m, H, W, Ht, Wt, &p, NULL), AUG_OK);
        if (it % 10 == 0) m[0] = 1, m[1] = 0, m[2] = 0, m[3] = 0, m[4] = 1, m[5] = 0; /* identity: edges exact */
        double bg[4] = {(double)(rnd() & 0xff), 3, 250, 0};
        const aug_tensor *srcs[1] = {src};
        int ss = 1 + it % 3;
        aug__warp_plan plan = {.func = "test", .n = 1, .src = srcs, .dst = a, .channels = C, .height = Ht,
                               .width = Wt, .matrices = m, .supersampling = &ss, .background = bg};
        assert_int_equal(aug__cpu_warp_affine_level(&plan, AUG__SIMD_NONE), AUG_OK);
        plan.dst = b;
        assert_int_equal(aug__cpu_warp_affine_level(&plan, AUG__SIMD_AVX2), AUG_OK);
        if (memcmp(aug_tensor_ptr(a), aug_tensor_ptr(b), (size_t)aug_tensor_size(a)) != 0)
            fail_msg("iteration %d: AVX2 and portable kernels differ", it);
        aug_tensor_free(src);
        aug_tensor_free(a);
        aug_tensor_free(b);
    }
}

/* Axis-aligned matrices (m01 = m10 = 0: crops, flips, resizes) take cpu/warp_axis.c's
 * separable path under AVX2: the same bytes as the portable kernel, for 1 to 4
 * channels, packed and pixel-strided (RGBX viewed as RGB) sources with padded rows,
 * up- and downscales, mirrors, crops reaching past every edge, every border mode,
 * output widths past one 256-column block (past several 64-column blocks when
 * supersampled), s = 1 to 4 (5: the kernel's own path), and sources allocated to
 * their last byte (ASan sees any load beyond it). */
static void test_axis_aligned_paths_agree(void **state) {
    (void)state;
    if (aug__simd_cpu_level() < AUG__SIMD_AVX2) skip();
    for (int it = 0; it < 400; it++) {
        int64_t C = 1 + it % 4, H = 2 + (int64_t)(rnd() % 90), W = 2 + (int64_t)(rnd() % 90);
        int64_t Ht = 1 + (int64_t)(rnd() % 40), Wt = 1 + (int64_t)(rnd() % (it % 9 == 0 ? 600 : 100));
        int64_t dshape[4] = {1, C, Ht, Wt};
        int strided = C == 3 && it % 2, padded = it % 5 == 1;
        int64_t pc = strided ? 4 : C, pw = padded ? W + 3 : W;
        /* plain malloc memory that ends at the view's last byte */
        size_t nbytes = (size_t)((H - 1) * pw * pc + (W - 1) * pc + C);
        uint8_t *mem = malloc(nbytes);
        assert_non_null(mem);
        for (size_t k = 0; k < nbytes; k++) mem[k] = (uint8_t)(rnd() & 0xff);
        aug_storage *st = aug_storage_wrap(mem, nbytes, aug_cpu_device(), free, mem);
        int64_t shp[3] = {H, W, C}, str[3] = {pw * pc, pc, 1};
        aug_tensor *src = aug_tensor_from_storage(st, 0, 3, shp, str, AUG_UINT8);
        assert_non_null(src);
        aug_storage_release(st);
        aug_tensor *a = mk(AUG_UINT8, 4, dshape), *b = mk(AUG_UINT8, 4, dshape);
        /* source box (x, y, w, h), partly outside now and then, mapped onto the output */
        double bw = urand(0.3, 2.5) * (double)W, bh = urand(0.3, 2.5) * (double)H;
        double bx = urand(-0.3, 1.0) * (double)W, by = urand(-0.3, 1.0) * (double)H;
        if (it % 3 == 0) bw = (double)W, bh = (double)H, bx = by = 0; /* whole image: edges exact */
        float m[6] = {(float)(bw / (double)Wt), 0, (float)bx, 0, (float)(bh / (double)Ht), (float)by};
        if (rnd() & 1) m[0] = -m[0], m[2] = (float)(bx + bw); /* horizontal flip */
        if (it % 4 == 2) m[4] = -m[4], m[5] = (float)(by + bh);
        double bg[4] = {(double)(rnd() & 0xff), 3, 250, 0};
        const aug_tensor *srcs[1] = {src};
        int ss = it < 120 ? 1 : 1 + (it / 4) % 5;
        aug__warp_plan plan = {.func = "test", .n = 1, .src = srcs, .dst = a, .channels = C, .height = Ht,
                               .width = Wt, .matrices = m, .supersampling = &ss, .background = bg,
                               .border = it % 4};
        assert_int_equal(aug__cpu_warp_affine_level(&plan, AUG__SIMD_NONE), AUG_OK);
        plan.dst = b;
        assert_int_equal(aug__cpu_warp_affine_level(&plan, AUG__SIMD_AVX2), AUG_OK);
        if (memcmp(aug_tensor_ptr(a), aug_tensor_ptr(b), (size_t)aug_tensor_size(a)) != 0)
            fail_msg("iteration %d (C %d, %dx%d -> %dx%d, s %d): axis-aligned and portable kernels differ", it,
                     (int)C, (int)H, (int)W, (int)Ht, (int)Wt, ss);
        aug_tensor_free(src);
        aug_tensor_free(a);
        aug_tensor_free(b);
    }
}

/* Planar sources (channel planes, CHW memory viewed as (H, W, C) with strides
 * (W, 1, H*W), as the policies warp their images) take the AVX2 kernel's 16-bit
 * loads (axis-aligned matrices: cpu/warp_axis.c per plane): the same bytes as the
 * portable kernel for 1 to 4 channels, s = 1 to 3, rotations, shears, scales, flips
 * and translations past every edge, every border mode, padded
 * planes, and sources allocated to their last byte (ASan sees a load beyond it). */
static void test_planar_simd_paths_agree(void **state) {
    (void)state;
    if (aug__simd_cpu_level() < AUG__SIMD_AVX2) skip();
    for (int it = 0; it < 120; it++) {
        int64_t C = 1 + it % 4, H = 2 + (int64_t)(rnd() % 70), W = 2 + (int64_t)(rnd() % 70);
        int64_t Ht = 1 + (int64_t)(rnd() % 50), Wt = 1 + (int64_t)(rnd() % 90), dshape[4] = {1, C, Ht, Wt};
        int64_t pw = it % 5 == 1 ? W + 5 : W, plane = H * pw + (it % 3 == 1 ? 7 : 0);
        size_t nbytes = (size_t)((C - 1) * plane + (H - 1) * pw + W);
        uint8_t *mem = malloc(nbytes);
        assert_non_null(mem);
        for (size_t k = 0; k < nbytes; k++) mem[k] = (uint8_t)(rnd() & 0xff);
        aug_storage *st = aug_storage_wrap(mem, nbytes, aug_cpu_device(), free, mem);
        int64_t shp[3] = {H, W, C}, str[3] = {pw, 1, plane};
        aug_tensor *src = aug_tensor_from_storage(st, 0, 3, shp, str, AUG_UINT8);
        assert_non_null(src);
        aug_storage_release(st);
        aug_tensor *a = mk(AUG_UINT8, 4, dshape), *b = mk(AUG_UINT8, 4, dshape);
        aug_affine_params p = aug_affine_params_default();
        p.angle = it % 4 == 3 ? 0 : urand(-180, 180), p.scale = urand(0.3, 3), p.shearx = urand(-0.3, 0.3);
        p.hmirror = (int)(rnd() & 1), p.shifty = urand(-1, 1);
        float m[6];
        assert_int_equal(aug_make_affine_matrix(m, H, W, Ht, Wt, &p, NULL), AUG_OK);
        if (it % 10 == 0) m[0] = 1, m[1] = 0, m[2] = 0, m[3] = 0, m[4] = 1, m[5] = 0; /* identity: edges exact */
        if (it % 10 == 5) m[0] = 1, m[1] = 0, m[2] = (float)urand(-9, 9), m[3] = 0, m[4] = 1, m[5] = 0.5f;
        if (it % 10 == 7) /* axis-aligned (cpu/warp_axis.c per plane): a scale, a flip, a shift */
            m[0] = (float)urand(-2, 2), m[1] = 0, m[2] = (float)urand(-5, 20), m[3] = 0, m[4] = (float)urand(0.3, 2),
            m[5] = (float)urand(-5, 5);
        double bg[4] = {(double)(rnd() & 0xff), 3, 250, 0};
        const aug_tensor *srcs[1] = {src};
        int ss = it % 10 == 5 || it % 10 == 7 ? 1 : 1 + it % 3;
        aug__warp_plan plan = {.func = "test", .n = 1, .src = srcs, .dst = a, .channels = C, .height = Ht,
                               .width = Wt, .matrices = m, .supersampling = &ss, .background = bg,
                               .border = (it / 3) % 4};
        assert_int_equal(aug__cpu_warp_affine_level(&plan, AUG__SIMD_NONE), AUG_OK);
        plan.dst = b;
        assert_int_equal(aug__cpu_warp_affine_level(&plan, AUG__SIMD_AVX2), AUG_OK);
        if (memcmp(aug_tensor_ptr(a), aug_tensor_ptr(b), (size_t)aug_tensor_size(a)) != 0)
            fail_msg("iteration %d (C %d, %dx%d -> %dx%d, s %d): planar AVX2 and portable kernels differ", it, (int)C,
                     (int)H, (int)W, (int)Ht, (int)Wt, ss);
        aug_tensor_free(src);
        aug_tensor_free(a);
        aug_tensor_free(b);
    }
}

/* The fixed-point rule written out for s = 1 and the constant border (the
 * header comment of cpu/warp.c): the byte of output (c, y, x). */
static int fixed_ref_s1(const uint8_t *sp, const int64_t *str, int64_t H, int64_t W, const float *m,
                        const double *bg, int64_t c, int64_t x, int64_t y) {
    double X = (double)x + 0.0, Y = (double)y + 0.0;
    double sx = (double)m[0] * X + ((double)m[1] * Y + (double)m[2]);
    double sy = (double)m[3] * X + ((double)m[4] * Y + (double)m[5]);
    sx = sx < -2.0 ? -2.0 : sx > (double)W + 1.0 ? (double)W + 1.0 : sx;
    sy = sy < -2.0 ? -2.0 : sy > (double)H + 1.0 ? (double)H + 1.0 : sy;
    int32_t qx = (int32_t)((sx + 16.0) * 2048.0 + 0.5), qy = (int32_t)((sy + 16.0) * 2048.0 + 0.5);
    int64_t ix = (qx >> 11) - 16, iy = (qy >> 11) - 16;
    int64_t fx = qx & 2047, fy = qy & 2047, v[2][2];
    for (int dy = 0; dy < 2; dy++)
        for (int dx = 0; dx < 2; dx++) {
            int64_t xx = ix + dx, yy = iy + dy;
            v[dy][dx] = xx >= 0 && xx < W && yy >= 0 && yy < H ? sp[yy * str[0] + xx * str[1] + c * str[2]]
                                                               : (int64_t)bg[c];
        }
    int64_t t = v[0][0] * (2048 - fx) + v[0][1] * fx, b = v[1][0] * (2048 - fx) + v[1][1] * fx;
    return (int)((t * (2048 - fy) + b * fy + (1 << 21)) >> 22);
}

/* Translations, shears and rotations (the policies' geometric ops) with fractional
 * offsets: groups of 8 pixels on one to a few source rows take the AVX2 kernel's
 * row loads (16-byte loads, cpu/warp.c's warp_rows8). The same bytes as the
 * portable kernel and, for s = 1 and the constant border, as the fixed-point rule
 * written out above, for widths 17, 23, 224 and others, 1 to 4 channels, planar
 * (CHW, padded rows and planes) and packed (RGB, RGBX viewed as RGB, padded rows)
 * sources at an offset in their memory, which ends at the view's last byte (ASan
 * sees a load beyond it; shifts towards the bottom right make the loads reach it). */
static void test_row_loads_paths_agree(void **state) {
    (void)state;
    const int widths[] = {17, 23, 224, 8, 9, 31, 40};
    int have_avx2 = aug__simd_cpu_level() >= AUG__SIMD_AVX2;
    for (int it = 0; it < 168; it++) {
        int64_t W = it < 84 ? widths[it % 7] : 8 + (int64_t)(rnd() % 60), C = 1 + (it / 7) % 4;
        int64_t H = W == 224 ? 12 + (int64_t)(rnd() % 20) : 3 + (int64_t)(rnd() % 30);
        int planar = it % 2 == 0, strided = !planar && C == 3 && it % 4 == 1, padded = it % 3 == 1;
        int64_t ofs = (int64_t)(rnd() % 3) * 5, pw = padded ? W + 1 + (int64_t)(rnd() % 7) : W;
        int64_t shp[3] = {H, W, C}, str[3];
        if (planar) {
            int64_t pl = H * pw + (it % 5 == 2 ? 3 : 0);
            str[0] = pw, str[1] = 1, str[2] = pl;
        } else {
            int64_t pc = strided ? 4 : C;
            str[0] = pw * pc, str[1] = pc, str[2] = 1;
        }
        size_t nbytes = (size_t)(ofs + (H - 1) * str[0] + (W - 1) * str[1] + (C - 1) * str[2] + 1);
        uint8_t *mem = malloc(nbytes);
        assert_non_null(mem);
        for (size_t k = 0; k < nbytes; k++) mem[k] = (uint8_t)(rnd() & 0xff);
        aug_storage *st = aug_storage_wrap(mem, nbytes, aug_cpu_device(), free, mem);
        aug_tensor *src = aug_tensor_from_storage(st, ofs, 3, shp, str, AUG_UINT8);
        assert_non_null(src);
        aug_storage_release(st);
        int64_t Ht = it % 3 == 2 ? H + 5 : H, Wt = it % 3 == 2 ? W + 11 : W, dshape[4] = {1, C, Ht, Wt};
        aug_tensor *a = mk(AUG_UINT8, 4, dshape), *b = mk(AUG_UINT8, 4, dshape);
        /* fractional shifts, mostly small (towards the last row and column) */
        double tx = urand(-1.5, 1.5), ty = urand(-1.5, 1.5);
        if (it % 4 == 3) tx = urand(-0.3 * (double)W, 0.3 * (double)W), ty = urand(-0.3 * (double)H, 0.3 * (double)H);
        float m[6] = {1, 0, (float)tx, 0, 1, (float)ty};
        int op = (it / 2) % 5;
        double v = urand(-0.3, 0.3), ang = urand(-0.52, 0.52); /* timm's magnitudes: shear 0.3, 30 degrees */
        if (op == 1) m[1] = (float)v, m[2] = (float)(tx - v * (double)H / 2); /* ShearX about the centre */
        if (op == 2) m[3] = (float)v, m[5] = (float)(ty - v * (double)W / 2); /* ShearY */
        if (op == 3 || op == 4) { /* a rotation about the centre; op 4: a small one */
            if (op == 4) ang *= 0.05;
            double cs = cos(ang), sn = sin(ang), cx = (double)W / 2, cy = (double)H / 2;
            m[0] = (float)cs, m[1] = (float)sn, m[2] = (float)(cx - cs * cx - sn * cy + tx);
            m[3] = (float)-sn, m[4] = (float)cs, m[5] = (float)(cy + sn * cx - cs * cy + ty);
        }
        double bg[4] = {(double)(rnd() & 0xff), 3, 250, 0};
        const aug_tensor *srcs[1] = {src};
        int ss = it % 6 == 5 ? 2 : 1, border = it % 8 < 5 ? 0 : (int)(rnd() % 4);
        aug__warp_plan plan = {.func = "test", .n = 1, .src = srcs, .dst = a, .channels = C, .height = Ht,
                               .width = Wt, .matrices = m, .supersampling = &ss, .background = bg,
                               .border = border};
        assert_int_equal(aug__cpu_warp_affine_level(&plan, AUG__SIMD_NONE), AUG_OK);
        if (have_avx2) {
            plan.dst = b;
            assert_int_equal(aug__cpu_warp_affine_level(&plan, AUG__SIMD_AVX2), AUG_OK);
            const uint8_t *pa = aug_tensor_ptr(a), *pb = aug_tensor_ptr(b);
            for (int64_t e = 0; e < aug_tensor_size(a); e++)
                if (pa[e] != pb[e])
                    fail_msg("iteration %d (op %d, %s, C %d, %dx%d, s %d, border %d): AVX2 %d, portable %d at "
                             "(%d, %d, %d)", it, op, planar ? "planar" : "packed", (int)C, (int)H, (int)W, ss, border,
                             pb[e], pa[e], (int)(e / (Ht * Wt)), (int)(e / Wt % Ht), (int)(e % Wt));
        }
        if (ss == 1 && border == 0) {
            const uint8_t *sp = aug_tensor_ptr(src), *pa = aug_tensor_ptr(a);
            for (int64_t c = 0; c < C; c++)
                for (int64_t y = 0; y < Ht; y++)
                    for (int64_t x = 0; x < Wt; x++) {
                        int want = fixed_ref_s1(sp, str, H, W, m, bg, c, x, y), got = pa[(c * Ht + y) * Wt + x];
                        if (got != want)
                            fail_msg("iteration %d (op %d): (%d, %d, %d) is %d, the rule gives %d", it, op, (int)c,
                                     (int)y, (int)x, got, want);
                    }
        }
        aug_tensor_free(src);
        aug_tensor_free(a);
        aug_tensor_free(b);
    }
}

/* The AVX2 float32 kernel writes the same bytes as the portable one (s = 1, 2, 3;
 * 1 to 5 channels; float32 and int16 destinations; a column-strided source), and
 * both stay within 1e-5 of the value range of a long-double evaluation. */
static void test_simd_float_paths_agree(void **state) {
    (void)state;
    int have_avx2 = aug__simd_cpu_level() >= AUG__SIMD_AVX2;
    for (int it = 0; it < 60; it++) {
        int64_t C = 1 + it % 5, H = 2 + (int64_t)(rnd() % 80), W = 2 + (int64_t)(rnd() % 80);
        int64_t Ht = 1 + (int64_t)(rnd() % 50), Wt = 1 + (int64_t)(rnd() % 90), dshape[4] = {1, C, Ht, Wt};
        int strided = it % 7 == 3;
        int64_t full[3] = {H, strided ? 2 * W : W, C};
        aug_tensor *buf = mk(AUG_FLOAT32, 3, full);
        float *fp = aug_tensor_ptr(buf);
        for (int64_t k = 0; k < aug_tensor_size(buf); k++) fp[k] = (float)urand(-100, 100);
        aug_tensor *src = buf;
        if (strided) {
            int64_t shp[3] = {H, W, C}, str[3] = {2 * W * C, 2 * C, 1};
            src = aug_tensor_from_storage(buf->storage, 0, 3, shp, str, AUG_FLOAT32);
            assert_non_null(src);
        }
        aug_dtype dt = it % 4 == 1 ? AUG_INT16 : AUG_FLOAT32;
        aug_tensor *a = mk(dt, 4, dshape), *b = mk(dt, 4, dshape);
        aug_affine_params p = aug_affine_params_default();
        p.angle = urand(-180, 180), p.scale = urand(0.3, 3), p.shearx = urand(-0.3, 0.3);
        p.hmirror = (int)(rnd() & 1), p.vmirror = (int)(rnd() & 1), p.shifty = urand(-1, 1);
        float m[6];
        assert_int_equal(aug_make_affine_matrix(m, H, W, Ht, Wt, &p, NULL), AUG_OK);
        if (it % 10 == 0) m[0] = 1, m[1] = 0, m[2] = 0, m[3] = 0, m[4] = 1, m[5] = 0; /* identity: edges exact */
        double bg[5] = {urand(-50, 50), 3, 250.5, 0, -7};
        const aug_tensor *srcs[1] = {src};
        int ss = 1 + it % 3;
        aug__warp_plan plan = {.func = "test", .n = 1, .src = srcs, .dst = a, .channels = C, .height = Ht,
                               .width = Wt, .matrices = m, .supersampling = &ss, .background = bg};
        assert_int_equal(aug__cpu_warp_affine_level(&plan, AUG__SIMD_NONE), AUG_OK);
        if (have_avx2) {
            plan.dst = b;
            assert_int_equal(aug__cpu_warp_affine_level(&plan, AUG__SIMD_AVX2), AUG_OK);
            if (memcmp(aug_tensor_ptr(a), aug_tensor_ptr(b), (size_t)(aug_tensor_size(a) * (dt == AUG_INT16 ? 2 : 4))))
                fail_msg("iteration %d: AVX2 and portable float32 kernels differ", it);
        }
        /* accuracy of the portable result against long double */
        const float *sp = aug_tensor_ptr(src);
        for (int64_t c = 0; c < C; c++)
            for (int64_t y = 0; y < Ht; y++)
                for (int64_t x = 0; x < Wt; x++) {
                    long double sum = 0, o = (long double)(ss - 1) / (2.0L * ss);
                    for (int j = 0; j < ss; j++)
                        for (int i = 0; i < ss; i++) {
                            long double X = x - o + (long double)i / ss, Y = y - o + (long double)j / ss;
                            long double sx = m[0] * X + m[1] * Y + m[2], sy = m[3] * X + m[4] * Y + m[5];
                            long double x0 = floorl(sx), y0 = floorl(sy), fx = sx - x0, fy = sy - y0, v[2][2];
                            for (int dy = 0; dy < 2; dy++)
                                for (int dx = 0; dx < 2; dx++) {
                                    long double xx = x0 + dx, yy = y0 + dy;
                                    v[dy][dx] = (xx >= 0 && xx < W && yy >= 0 && yy < H)
                                                    ? sp[(int64_t)yy * src->strides[0] + (int64_t)xx * src->strides[1] + c]
                                                    : bg[c];
                                }
                            sum += (1 - fy) * ((1 - fx) * v[0][0] + fx * v[0][1]) +
                                   fy * ((1 - fx) * v[1][0] + fx * v[1][1]);
                        }
                    long double want = sum / (ss * ss);
                    int64_t idx = (c * Ht + y) * Wt + x;
                    if (dt == AUG_FLOAT32) {
                        float got = ((const float *)aug_tensor_ptr(a))[idx];
                        if (fabsl(got - want) > 250.5L * 1e-5L)
                            fail_msg("it %d (%d,%d,%d): %.9g vs %.9Lg", it, (int)c, (int)y, (int)x, got, want);
                    }
                    else {
                        int got = ((const int16_t *)aug_tensor_ptr(a))[idx];
                        if (fabsl(got - nearbyintl(want)) > 1)
                            fail_msg("it %d (%d,%d,%d): %d vs %.9Lg", it, (int)c, (int)y, (int)x, got, want);
                    }
                }
        if (src != buf) aug_tensor_free(src);
        aug_tensor_free(buf);
        aug_tensor_free(a);
        aug_tensor_free(b);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matrix_seed),
        cmocka_unit_test(test_matrix_formula),
        cmocka_unit_test(test_matrix_errors),
        cmocka_unit_test(test_identity_all_dtypes),
        cmocka_unit_test(test_translation_and_background),
        cmocka_unit_test(test_half_pixel),
        cmocka_unit_test(test_fixed_point_vs_reference),
        cmocka_unit_test(test_threads_and_strides),
        cmocka_unit_test(test_batch),
        cmocka_unit_test(test_warp_errors),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_simd_paths_agree),
        cmocka_unit_test(test_axis_aligned_paths_agree),
        cmocka_unit_test(test_planar_simd_paths_agree),
        cmocka_unit_test(test_row_loads_paths_agree),
        cmocka_unit_test(test_simd_float_paths_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
