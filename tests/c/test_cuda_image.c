/* test_cuda_image.c: the CUDA backend's image functions against the CPU
 * backend: lighting, the blurs and the affine warp on every dtype, shape
 * classes (one image, batches, small planes, odd sizes, in place) and their
 * errors, with results compared byte for byte (8- and 16-bit lighting and the
 * 8-bit blurs exactly on a GPU too; float results within semantics §8 on a
 * GPU, exactly on the emulated devices, which use the host's libm).
 *
 * It runs on every CUDA device present: the emulated ones when the test runs
 * with AUG_CUDA_BACKEND=emu (ctest sets it), a real GPU otherwise. Without a
 * CUDA device the tests skip, unless AUG_REQUIRE_CUDA=1 (CI), which fails. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <turbojpeg.h>

#include "aug/aug.h"
#include "helpers/th_cuda.h"

static const aug_dtype ALL[13] = {AUG_BOOL,   AUG_INT8,    AUG_INT16,   AUG_INT32,  AUG_INT64,
                                  AUG_UINT8,  AUG_UINT16,  AUG_UINT32,  AUG_UINT64, AUG_FLOAT16,
                                  AUG_BFLOAT16, AUG_FLOAT32, AUG_FLOAT64};

/* A float32 1-D tensor of n values on dev. */
static aug_tensor *floats_on(const float *v, int64_t n, aug_device dev) {
    aug_tensor *h = aug_tensor_empty(1, &n, AUG_FLOAT32, CPU);
    assert_non_null(h);
    memcpy(aug_tensor_ptr(h), v, (size_t)n * sizeof(float));
    if (dev.type == AUG_DEVICE_CPU) return h;
    aug_tensor *d = aug_tensor_to(h, dev);
    assert_non_null(d);
    aug_tensor_free(h);
    return d;
}

/* An image of the shape and dtype with pattern values, on the CPU, and its copy on CUDA. */
static void image_pair(int ndim, const int64_t *shape, aug_dtype t, uint64_t seed, aug_tensor **cpu,
                       aug_tensor **gpu) {
    *cpu = aug_tensor_empty(ndim, shape, t, CPU);
    assert_non_null(*cpu);
    th_fill_pattern(*cpu, seed);
    *gpu = aug_tensor_to(*cpu, TH_CUDA0);
    assert_non_null(*gpu);
}

/* Fails unless the CPU and CUDA results hold the same values (floats: semantics §8). */
static void same_result(const char *what, const aug_tensor *a, const aug_tensor *b, int tolerant) {
    assert_int_equal(a->ndim, b->ndim);
    for (int d = 0; d < a->ndim; d++) assert_int_equal(a->shape[d], b->shape[d]);
    assert_int_equal(a->dtype, b->dtype);
    assert_int_equal(b->device.type, AUG_DEVICE_CUDA);
    size_t na, nb;
    unsigned char *x = th_bytes_of(a, &na), *y = th_bytes_of(b, &nb);
    assert_int_equal(na, nb);
    th_compare(what, a->dtype, x, y, na, tolerant);
    free(x), free(y);
}

/* ---- lighting --------------------------------------------------------------- */

/* The lighting of one image or batch on both backends, separately and in place. */
static void check_lighting(int ndim, const int64_t *shape, aug_dtype t, const float *gg, const float *gc,
                           const float *ct, double vmin, double vmax) {
    char what[128];
    int64_t n = ndim == 4 ? shape[0] : 1, c = shape[ndim - 3];
    snprintf(what, sizeof what, "lighting %s %lldx%lld", aug_dtype_name(t), (long long)n, (long long)c);
    aug_tensor *im, *gim;
    image_pair(ndim, shape, t, (uint64_t)t + 11, &im, &gim);
    aug_tensor *p[3] = {floats_on(gg, n, CPU), floats_on(gc, n * c, CPU), floats_on(ct, n, CPU)};
    aug_tensor *q[3] = {floats_on(gg, n, TH_CUDA0), floats_on(gc, n * c, TH_CUDA0), floats_on(ct, n, TH_CUDA0)};
    aug_tensor *r = NULL, *gr = NULL;
    assert_int_equal(aug_lighting(im, p[0], p[1], p[2], vmin, vmax, &r), AUG_OK);
    assert_int_equal(aug_lighting(gim, q[0], q[1], q[2], vmin, vmax, &gr), AUG_OK);
    int tolerant = t == AUG_FLOAT16 || t == AUG_BFLOAT16 || t == AUG_FLOAT32 || t == AUG_FLOAT64;
    same_result(what, r, gr, tolerant);
    assert_string_equal(gr->layout, ndim == 4 ? "NCHW" : "CHW");
    /* in place */
    assert_int_equal(aug_lighting(gim, q[0], q[1], q[2], vmin, vmax, &gim), AUG_OK);
    same_result(what, r, gim, tolerant);
    aug_tensor_free(r), aug_tensor_free(gr), aug_tensor_free(im), aug_tensor_free(gim);
    for (int i = 0; i < 3; i++) aug_tensor_free(p[i]), aug_tensor_free(q[i]);
}

static void test_lighting(void **state) {
    (void)state;
    NEED_CUDA();
    const float gg[3] = {1.0f, 0.5f, 2.2f}, ct[3] = {0.0f, 0.7f, -0.4f};
    const float gc[9] = {1.0f, 1.3f, 0.8f, 1.0f, 1.0f, 1.0f, 0.6f, 1.9f, 1.1f};
    /* a batch with planes larger than the 8-bit table, and the (C, H, W) form with small planes */
    const int64_t batch[4] = {3, 3, 20, 17}, one[3] = {3, 5, 7};
    for (int i = 0; i < 13; i++) {
        aug_dtype t = ALL[i];
        double vmin = t == AUG_INT8 ? -128 : t == AUG_INT16 ? -32768 : 0;
        double vmax = t == AUG_BOOL ? 1 : t == AUG_INT8 ? 127 : t == AUG_INT16 ? 32767 : t == AUG_UINT16 ? 65535 : 255;
        check_lighting(4, batch, t, gg, gc, ct, vmin, vmax);
        check_lighting(3, one, t, gg + 1, gc + 3, ct + 1, vmin, vmax);
    }
    /* more planes than one upload group of 16-bit tables (16) */
    enum { N = 6, C = 3 };
    float g2[N], c2[N], k2[N * C];
    for (int i = 0; i < N; i++) g2[i] = 0.5f + 0.25f * (float)i, c2[i] = -1.0f + 0.4f * (float)i;
    for (int i = 0; i < N * C; i++) k2[i] = 0.7f + 0.05f * (float)i;
    const int64_t many[4] = {N, C, 9, 11};
    check_lighting(4, many, AUG_UINT16, g2, k2, c2, 0, 65535);
    check_lighting(4, many, AUG_INT16, g2, k2, c2, -1000, 1000);
    check_lighting(4, many, AUG_UINT8, g2, k2, c2, 10, 200);
}

static void test_lighting_errors(void **state) {
    (void)state;
    NEED_CUDA();
    const int64_t shape[4] = {2, 3, 4, 4};
    aug_tensor *im = aug_tensor_zeros(4, shape, AUG_UINT8, TH_CUDA0), *out = NULL;
    const float one[6] = {1, 1, 1, 1, 1, 1}, zero[2] = {0, 0}, bad[2] = {1, -2};
    aug_tensor *g = floats_on(one, 2, TH_CUDA0), *gc = floats_on(one, 6, TH_CUDA0), *k = floats_on(zero, 2, TH_CUDA0);
    aug_tensor *gcpu = floats_on(one, 2, CPU), *kbad = floats_on(bad, 2, TH_CUDA0);
    /* parameters on another device than the image */
    assert_int_equal(aug_lighting(im, gcpu, gc, k, 0, 255, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_lighting: gammagrays is on device cpu but the image is on cuda:0");
    /* values read back from the device are checked */
    assert_int_equal(aug_lighting(im, g, gc, kbad, 0, 255, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_lighting: contrasts[1] = -2 must be in [-1, 1]");
    assert_int_equal(aug_lighting(im, kbad, gc, k, 0, 255, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_lighting: gammagrays[1] = -2 must be finite and > 0");
    /* an output that partly overlaps the image */
    int64_t flat = 2 * 3 * 4 * 4 + 16, strides[4] = {48, 16, 4, 1};
    aug_tensor *big = aug_tensor_zeros(1, &flat, AUG_UINT8, TH_CUDA0);
    aug_tensor *a = aug_tensor_from_storage(big->storage, 0, 4, shape, strides, AUG_UINT8);
    aug_tensor *b = aug_tensor_from_storage(big->storage, 16, 4, shape, strides, AUG_UINT8);
    assert_non_null(a), assert_non_null(b);
    assert_int_equal(aug_lighting(a, g, gc, k, 0, 255, &b), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_lighting: out partially overlaps the image (only out == image is allowed)");
    assert_null(out);
    aug_tensor_free(a), aug_tensor_free(b), aug_tensor_free(big);
    aug_tensor_free(im), aug_tensor_free(g), aug_tensor_free(gc), aug_tensor_free(k), aug_tensor_free(gcpu);
    aug_tensor_free(kbad);
}

/* ---- blur ------------------------------------------------------------------- */

enum { BOX, GAUSS, GAUSS_BATCH };

/* One blur on both backends (into new outputs, then in place on the GPU). */
static void check_blur(int kind, int ndim, const int64_t *shape, aug_dtype t, int ksize, double sigma,
                       const float *sigmas, int max_ksize) {
    char what[160];
    snprintf(what, sizeof what, "%s %s %lldx%lld ksize %d sigma %g max_ksize %d",
             kind == BOX ? "box" : "gaussian", aug_dtype_name(t), (long long)shape[ndim - 2],
             (long long)shape[ndim - 1], ksize, sigma, max_ksize);
    aug_tensor *im, *gim, *r = NULL, *gr = NULL, *s = NULL, *gs = NULL;
    image_pair(ndim, shape, t, (uint64_t)t * 7 + 3, &im, &gim);
    aug_status a, b;
    if (kind == BOX) {
        a = aug_box_blur_single(im, ksize, &r), b = aug_box_blur_single(gim, ksize, &gr);
    } else if (kind == GAUSS) {
        a = aug_gaussian_blur_single(im, sigma, &r), b = aug_gaussian_blur_single(gim, sigma, &gr);
    } else {
        s = floats_on(sigmas, shape[0], CPU), gs = floats_on(sigmas, shape[0], TH_CUDA0);
        a = aug_gaussian_blur(im, s, max_ksize, &r), b = aug_gaussian_blur(gim, gs, max_ksize, &gr);
    }
    assert_int_equal(a, AUG_OK);
    assert_int_equal(b, AUG_OK);
    same_result(what, r, gr, 0);
    assert_string_equal(gr->layout, ndim == 4 ? "NCHW" : "CHW");
    /* in place: the core blurs a temporary copy */
    if (kind == BOX) b = aug_box_blur_single(gim, ksize, &gim);
    else if (kind == GAUSS) b = aug_gaussian_blur_single(gim, sigma, &gim);
    else b = aug_gaussian_blur(gim, gs, max_ksize, &gim);
    assert_int_equal(b, AUG_OK);
    same_result(what, r, gim, 0);
    aug_tensor_free(r), aug_tensor_free(gr), aug_tensor_free(im), aug_tensor_free(gim);
    aug_tensor_free(s), aug_tensor_free(gs);
}

static void test_blur_box(void **state) {
    (void)state;
    NEED_CUDA();
    const int64_t img[3] = {2, 13, 21}, thin[3] = {1, 1, 9}, tall[3] = {3, 11, 1};
    for (int i = 0; i < 13; i++) {
        check_blur(BOX, 3, img, ALL[i], 3, 0, NULL, 0);
        check_blur(BOX, 3, img, ALL[i], 4, 0, NULL, 0); /* even: shifted window */
    }
    /* the 8-bit exact path up to its limit, the generic one beyond, windows wider than the image */
    const aug_dtype u8[4] = {AUG_UINT8, AUG_INT8, AUG_UINT16, AUG_FLOAT32};
    const int ks[6] = {2, 7, 16, 17, 40, 300};
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 6; k++) check_blur(BOX, 3, img, u8[i], ks[k], 0, NULL, 0);
    check_blur(BOX, 3, thin, AUG_UINT8, 5, 0, NULL, 0);
    check_blur(BOX, 3, tall, AUG_INT16, 5, 0, NULL, 0);
}

static void test_blur_gaussian(void **state) {
    (void)state;
    NEED_CUDA();
    const int64_t img[3] = {3, 17, 23}, small[3] = {1, 2, 3};
    const double sig[5] = {0.4, 1.0, 2.3, 7.5, 60.0}; /* 60: taps clipped to the image, tails */
    for (int i = 0; i < 13; i++) check_blur(GAUSS, 3, img, ALL[i], 0, 1.6, NULL, 0);
    for (int k = 0; k < 5; k++) {
        check_blur(GAUSS, 3, img, AUG_UINT8, 0, sig[k], NULL, 0);
        check_blur(GAUSS, 3, img, AUG_INT8, 0, sig[k], NULL, 0);
        check_blur(GAUSS, 3, img, AUG_FLOAT64, 0, sig[k], NULL, 0);
        check_blur(GAUSS, 3, small, AUG_UINT8, 0, sig[k], NULL, 0);
    }
    /* per-image sigmas: copies (<= 0), max_ksize clipping (an even, asymmetric window) */
    const int64_t batch[4] = {5, 2, 15, 12};
    const float sigmas[5] = {1.2f, 0.0f, 3.3f, -1.0f, 9.0f};
    for (int i = 0; i < 13; i++) check_blur(GAUSS_BATCH, 4, batch, ALL[i], 0, 0, sigmas, 9);
    check_blur(GAUSS_BATCH, 4, batch, AUG_UINT8, 0, 0, sigmas, 4);
    check_blur(GAUSS_BATCH, 4, batch, AUG_INT8, 0, 0, sigmas, 1000);
    check_blur(GAUSS_BATCH, 4, batch, AUG_FLOAT32, 0, 0, sigmas, 6);
}

static void test_blur_errors(void **state) {
    (void)state;
    NEED_CUDA();
    const int64_t shape[4] = {2, 1, 4, 4};
    aug_tensor *im = aug_tensor_zeros(4, shape, AUG_UINT8, TH_CUDA0), *out = NULL;
    const float bad[2] = {1.0f, NAN};
    aug_tensor *s = floats_on(bad, 2, TH_CUDA0), *scpu = floats_on(bad, 2, CPU);
    assert_int_equal(aug_gaussian_blur(im, s, 5, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_gaussian_blur: sigmas[1] = nan must be finite");
    assert_int_equal(aug_gaussian_blur(im, scpu, 5, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_gaussian_blur: sigmas is on device cpu but the input is on cuda:0");
    assert_null(out);
    aug_tensor_free(im), aug_tensor_free(s), aug_tensor_free(scpu);
}

/* ---- warp ------------------------------------------------------------------- */

/* A warp of n images on both backends: sources (H_i, W_i, C) of dtype st, the
 * same views on each device (layout 1: rows reversed; 2: channels strided, not
 * packed; 3: a CHW tensor passed as is, with o->src_layout CHW), into
 * (n, C, Ht, Wt) of dtype dt, or (n, Ht, Wt, C) for o->dst_layout HWC. o NULL:
 * aug_warp_affine_batch, else aug_warp_affine_batch_ex with o. */
static void check_warp_opts(int64_t n, const int64_t (*hw)[2], int64_t C, aug_dtype st, aug_dtype dt, int64_t Ht,
                            int64_t Wt, const double *bgv, aug_dtype bgt, int s, int layout, uint64_t seed,
                            const aug_warp_options *o) {
    char what[200];
    snprintf(what, sizeof what,
             "warp %s -> %s, %lld images, C %lld, s %d, layout %d, background %s, interp %d, border %d, dst %d",
             aug_dtype_name(st), aug_dtype_name(dt), (long long)n, (long long)C, s, layout,
             bgv ? aug_dtype_name(bgt) : "none", o ? (int)o->interpolation : -1, o ? (int)o->border : -1,
             o ? (int)o->dst_layout : -1);
    aug_tensor *hs[4], *gs[4], *hv[4], *gv[4];
    float m[24];
    int ss[4];
    for (int64_t i = 0; i < n; i++) {
        int64_t H = hw[i][0], W = hw[i][1];
        int64_t shape[3] = {H, W, C}, cshape[3] = {C, H, W};
        image_pair(3, layout >= 2 ? cshape : shape, st, seed + (uint64_t)i, &hs[i], &gs[i]);
        aug_tensor *base[2] = {hs[i], gs[i]}, **view[2] = {&hv[i], &gv[i]};
        for (int d = 0; d < 2; d++) {
            aug_tensor *t = base[d];
            if (layout == 1) { /* rows reversed: a negative stride */
                int64_t str[3] = {-t->strides[0], t->strides[1], t->strides[2]};
                int64_t off = t->byte_offset + (H - 1) * t->strides[0] * aug_tensor_itemsize(t);
                *view[d] = aug_tensor_from_storage(t->storage, off, 3, shape, str, st);
            } else if (layout == 3) { /* CHW, read by the src_layout option */
                *view[d] = aug_tensor_view(t);
            } else if (layout == 2) { /* CHW memory seen as HWC */
                int perm[3] = {1, 2, 0};
                *view[d] = aug_tensor_permute(t, perm);
            } else {
                *view[d] = aug_tensor_view(t);
            }
            assert_non_null(*view[d]);
        }
        aug_affine_params p = aug_affine_params_default();
        p.angle = 17.0 + 41.0 * (double)i, p.scale = 0.7 + 0.3 * (double)i, p.shearx = 0.1, p.shifty = 0.3;
        p.hmirror = (int)(i & 1);
        assert_int_equal(aug_make_affine_matrix(m + 6 * i, H, W, Ht, Wt, &p, NULL), AUG_OK);
        ss[i] = s + (int)(i % 2);
    }
    aug_tensor *hb = NULL, *gb = NULL;
    if (bgv) {
        hb = aug_tensor_empty(1, &C, AUG_FLOAT64, CPU);
        memcpy(aug_tensor_ptr(hb), bgv, (size_t)C * sizeof(double));
        aug_tensor *cast = NULL;
        assert_int_equal(aug_cast(hb, bgt, &cast), AUG_OK);
        aug_tensor_free(hb);
        hb = cast;
        gb = aug_tensor_to(hb, TH_CUDA0);
    }
    int64_t dshape[4] = {n, C, Ht, Wt}, hshape[4] = {n, Ht, Wt, C};
    const int64_t *ds = o && o->dst_layout == AUG_WARP_LAYOUT_HWC ? hshape : dshape;
    aug_tensor *hd = aug_tensor_empty(4, ds, dt, CPU), *gd = aug_tensor_empty(4, ds, dt, TH_CUDA0);
    if (!o) {
        assert_int_equal(aug_warp_affine_batch(n, (const aug_tensor *const *)hv, hd, m, hb, ss), AUG_OK);
        assert_int_equal(aug_warp_affine_batch(n, (const aug_tensor *const *)gv, gd, m, gb, ss), AUG_OK);
    } else {
        aug_warp_options oo = *o;
        if (layout == 3) oo.src_layout = AUG_WARP_LAYOUT_CHW;
        assert_int_equal(aug_warp_affine_batch_ex(n, (const aug_tensor *const *)hv, hd, m, hb, ss, &oo), AUG_OK);
        assert_int_equal(aug_warp_affine_batch_ex(n, (const aug_tensor *const *)gv, gd, m, gb, ss, &oo), AUG_OK);
    }
    same_result(what, hd, gd, 0);
    for (int64_t i = 0; i < n; i++)
        aug_tensor_free(hs[i]), aug_tensor_free(gs[i]), aug_tensor_free(hv[i]), aug_tensor_free(gv[i]);
    aug_tensor_free(hb), aug_tensor_free(gb), aug_tensor_free(hd), aug_tensor_free(gd);
}

static void check_warp(int64_t n, const int64_t (*hw)[2], int64_t C, aug_dtype st, aug_dtype dt, int64_t Ht,
                       int64_t Wt, const double *bgv, aug_dtype bgt, int s, int layout, uint64_t seed) {
    check_warp_opts(n, hw, C, st, dt, Ht, Wt, bgv, bgt, s, layout, seed, NULL);
}

/* The options on both backends: every border with both interpolations and both
 * output layouts over the kernels' dtype pairs, and nearest on every pair. */
static void test_warp_options(void **state) {
    (void)state;
    NEED_CUDA();
    const int64_t sizes[3][2] = {{17, 11}, {5, 23}, {1, 1}}, one[1][2] = {{9, 13}};
    const double bytes[4] = {0, 255, 17, 3}, floats[4] = {0.5, -2, 1e3, 9};
    for (int interp = 0; interp < 2; interp++)
        for (int border = 0; border < 4; border++)
            for (int dl = 0; dl < 2; dl++) {
                aug_warp_options o = aug_warp_options_default();
                o.interpolation = (aug_warp_interp)interp, o.border = (aug_warp_border)border;
                o.dst_layout = dl ? AUG_WARP_LAYOUT_HWC : AUG_WARP_LAYOUT_CHW;
                for (int s = 1; s <= 3; s += 2)
                    for (int layout = 0; layout < 4; layout++) {
                        check_warp_opts(3, sizes, 4, AUG_UINT8, AUG_UINT8, 12, 14, bytes, AUG_UINT8, s, layout, 1, &o);
                        check_warp_opts(3, sizes, 4, AUG_UINT8, AUG_UINT8, 12, 14, floats, AUG_FLOAT64, s, layout, 2,
                                        &o);
                        check_warp_opts(2, sizes, 3, AUG_FLOAT32, AUG_INT16, 9, 10, floats, AUG_FLOAT32, s, layout, 3,
                                        &o);
                        check_warp_opts(2, sizes, 3, AUG_INT32, AUG_UINT8, 9, 10, floats, AUG_FLOAT64, s, layout, 5,
                                        &o);
                        check_warp_opts(2, sizes, 1, AUG_FLOAT64, AUG_FLOAT32, 9, 10, NULL, AUG_UINT8, s, layout, 6,
                                        &o);
                    }
            }
    const double bg[3] = {7, 200.5, -3};
    for (int border = 0; border < 4; border += 3) {
        aug_warp_options o = aug_warp_options_default();
        o.interpolation = AUG_WARP_NEAREST, o.border = (aug_warp_border)border;
        for (int a = 0; a < 13; a++)
            for (int b = 0; b < 13; b++) check_warp_opts(1, one, 3, ALL[a], ALL[b], 6, 8, bg, AUG_FLOAT32, 1, 0, 5, &o);
    }
}

static void test_warp_dtypes(void **state) {
    (void)state;
    NEED_CUDA();
    const int64_t one[1][2] = {{9, 13}};
    const double bg[3] = {7, 200.5, -3};
    for (int a = 0; a < 13; a++)
        for (int b = 0; b < 13; b++) check_warp(1, one, 3, ALL[a], ALL[b], 6, 8, bg, AUG_FLOAT32, 1, 0, 5);
    for (int a = 0; a < 13; a++) check_warp(1, one, 3, ALL[a], ALL[a], 7, 5, NULL, AUG_UINT8, 2, 0, 9);
}

static void test_warp_kernels(void **state) {
    (void)state;
    NEED_CUDA();
    const int64_t sizes[3][2] = {{17, 11}, {5, 23}, {1, 1}};
    const double bytes[4] = {0, 255, 17, 3}, floats[4] = {0.5, -2, 1e3, 9}, huge[4] = {1e300, 0, 1, 2};
    for (int s = 1; s <= 3; s++)
        for (int layout = 0; layout < 3; layout++) {
            /* fixed point (packed uint8, byte background), and its neighbours */
            check_warp(3, sizes, 4, AUG_UINT8, AUG_UINT8, 12, 14, bytes, AUG_UINT8, s, layout, 1);
            check_warp(3, sizes, 4, AUG_UINT8, AUG_UINT8, 12, 14, floats, AUG_FLOAT64, s, layout, 2);
            /* float32 kernel, and the exact one for wide types / float64 / a huge background */
            check_warp(2, sizes, 3, AUG_FLOAT32, AUG_INT16, 9, 10, floats, AUG_FLOAT32, s, layout, 3);
            check_warp(2, sizes, 3, AUG_UINT16, AUG_FLOAT32, 9, 10, bytes, AUG_UINT8, s, layout, 4);
            check_warp(2, sizes, 3, AUG_INT32, AUG_UINT8, 9, 10, floats, AUG_FLOAT64, s, layout, 5);
            check_warp(2, sizes, 3, AUG_FLOAT32, AUG_FLOAT64, 9, 10, NULL, AUG_UINT8, s, layout, 6);
            check_warp(2, sizes, 3, AUG_FLOAT32, AUG_FLOAT32, 9, 10, huge, AUG_FLOAT64, s, layout, 7);
        }
    /* channel counts 1 and 5, supersampling 4 */
    const double five[5] = {9, 0, 255, 128, 3};
    for (int l = 0; l < 3; l++) {
        check_warp(3, sizes, 1, AUG_UINT8, AUG_UINT8, 11, 13, five, AUG_UINT8, 4, l, 10);
        check_warp(3, sizes, 5, AUG_UINT8, AUG_UINT8, 11, 13, five, AUG_UINT8, 4, l, 11);
        check_warp(2, sizes, 1, AUG_FLOAT32, AUG_UINT8, 8, 9, five, AUG_FLOAT32, 4, l, 12);
        check_warp(2, sizes, 5, AUG_INT16, AUG_FLOAT64, 8, 9, five, AUG_FLOAT64, 4, l, 13);
    }
    /* many channels (more than the CPU's channel group) and supersampling 15 / 16 (the largest) */
    const double many[20] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
    check_warp(1, sizes, 20, AUG_UINT8, AUG_UINT8, 4, 5, many, AUG_UINT8, 1, 0, 8);
    check_warp(1, sizes, 2, AUG_UINT8, AUG_UINT8, 3, 4, NULL, AUG_UINT8, 16, 0, 9);
    check_warp(2, sizes, 2, AUG_UINT8, AUG_UINT8, 3, 4, NULL, AUG_UINT8, 15, 0, 9);
}

static void test_warp_errors(void **state) {
    (void)state;
    NEED_CUDA();
    const int64_t s[3] = {4, 4, 3}, d[3] = {3, 2, 2};
    aug_tensor *src = aug_tensor_zeros(3, s, AUG_UINT8, TH_CUDA0), *dst = aug_tensor_empty(3, d, AUG_UINT8, TH_CUDA0);
    aug_tensor *bgc = aug_tensor_zeros(1, &d[0], AUG_UINT8, CPU), *csrc = aug_tensor_zeros(3, s, AUG_UINT8, CPU);
    const float m[6] = {1, 0, 0, 0, 1, 0};
    assert_int_equal(aug_warp_affine(src, dst, m, bgc, 1), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_warp_affine: background is on cpu but the images are on cuda:0");
    assert_int_equal(aug_warp_affine(csrc, dst, m, NULL, 1), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_warp_affine: src is on cpu but dst is on cuda:0");
    /* dst overlapping the source on the device */
    int64_t shape[3] = {3, 2, 2}, str[3] = {4, 2, 1};
    aug_tensor *over = aug_tensor_from_storage(src->storage, 0, 3, shape, str, AUG_UINT8);
    assert_int_equal(aug_warp_affine(src, over, m, NULL, 1), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_warp_affine: dst overlaps src image 0");
    aug_tensor_free(over), aug_tensor_free(src), aug_tensor_free(dst), aug_tensor_free(bgc), aug_tensor_free(csrc);
}

/* ---- JPEG ------------------------------------------------------------------- */

/* A w x h image of pf (RGB, gray or CMYK) with gradients and noise, as a JPEG. */
static unsigned char *encode_jpeg(int w, int h, int pf, int subsamp, int flags, unsigned long *size) {
    int nc = tjPixelSize[pf];
    unsigned char *img = malloc((size_t)w * (size_t)h * (size_t)nc), *buf = NULL;
    uint32_t x = 777;
    for (int i = 0; i < w * h * nc; i++) {
        x = x * 1103515245u + 12345u;
        img[i] = (unsigned char)((i % (w * nc)) * 255 / (w * nc) + (int)((x >> 16) % 31));
    }
    tjhandle tj = tjInitCompress();
    assert_int_equal(tjCompress2(tj, img, w, 0, h, pf, &buf, size, subsamp, 85, flags), 0);
    tjDestroy(tj);
    free(img);
    return buf;
}

/* The CUDA decoder's pixels against the CPU decoder's: identical when the CPU
 * decodes them (the fallback); nvJPEG's IDCT and upsampling differ slightly. */
static void same_pixels(const char *what, const aug_tensor *cpu, const aug_tensor *gpu, int exact) {
    size_t na, nb;
    unsigned char *x = th_bytes_of(cpu, &na), *y = th_bytes_of(gpu, &nb);
    assert_int_equal(na, nb);
    if (exact) {
        if (memcmp(x, y, na) != 0) fail_msg("%s: the CUDA decoder's pixels differ from the CPU's", what);
    } else {
        double sum = 0;
        for (size_t i = 0; i < na; i++) sum += abs((int)x[i] - (int)y[i]);
        if (sum / (double)na > 1.0) fail_msg("%s: mean difference %g from the CPU's pixels", what, sum / (double)na);
    }
    free(x), free(y);
}

static void test_jpeg_decode(void **state) {
    (void)state;
    NEED_CUDA();
    aug_decoder *dc = aug_decoder_new(CPU, 0, 0, 0), *dg = aug_decoder_new(TH_CUDA0, 1024, 4096, 1);
    assert_non_null(dc), assert_non_null(dg);
    assert_string_equal(aug_decoder_engine(dc), "libjpeg-turbo");
    const char *engine = aug_decoder_engine(dg);
    assert_true(strcmp(engine, "nvjpeg") == 0 || strcmp(engine, "libjpeg-turbo+upload") == 0);
    const int kinds[6][3] = {{TJPF_RGB, TJSAMP_420, 0}, {TJPF_RGB, TJSAMP_444, TJFLAG_PROGRESSIVE},
                             {TJPF_GRAY, TJSAMP_GRAY, 0}, {TJPF_CMYK, TJSAMP_444, 0},
                             {TJPF_RGB, TJSAMP_422, 0}, {TJPF_RGB, TJSAMP_411, 0}};
    const int sizes[3][2] = {{64, 48}, {17, 5}, {301, 203}};
    for (int k = 0; k < 6; k++)
        for (int z = 0; z < 3; z++) {
            char what[64];
            snprintf(what, sizeof what, "kind %d, %dx%d", k, sizes[z][0], sizes[z][1]);
            unsigned long size;
            unsigned char *j = encode_jpeg(sizes[z][0], sizes[z][1], kinds[k][0], kinds[k][1], kinds[k][2], &size);
            aug_tensor *a = NULL, *b = NULL;
            assert_int_equal(aug_decoder_decode(dc, j, size, NULL, &a), AUG_OK);
            assert_int_equal(aug_decoder_decode(dg, j, size, NULL, &b), AUG_OK);
            assert_int_equal(b->device.type, AUG_DEVICE_CUDA);
            assert_string_equal(b->layout, "HWC");
            /* nvJPEG refuses CMYK: the fallback decodes those on the CPU */
            same_pixels(what, a, b, strcmp(engine, "nvjpeg") != 0 || kinds[k][0] == TJPF_CMYK);
            aug_tensor_free(a), aug_tensor_free(b);
            tjFree(j);
        }
    aug_decoder_free(dc), aug_decoder_free(dg);
}

static void test_jpeg_buffer_and_errors(void **state) {
    (void)state;
    NEED_CUDA();
    aug_decoder *dg = aug_decoder_new(TH_CUDA0, 0, 0, 0), *dc = aug_decoder_new(CPU, 0, 0, 0);
    unsigned long size;
    unsigned char *j = encode_jpeg(40, 30, TJPF_RGB, TJSAMP_420, 0, &size);
    int64_t n = 40 * 30 * 3 + 100;
    aug_tensor *buf = aug_tensor_zeros(1, &n, AUG_UINT8, TH_CUDA0), *cbuf = aug_tensor_zeros(1, &n, AUG_UINT8, CPU);
    aug_tensor *ref = NULL, *t = NULL;
    assert_int_equal(aug_decoder_decode(dc, j, size, NULL, &ref), AUG_OK);
    assert_int_equal(aug_synchronize(TH_CUDA0), AUG_OK); /* the zeros are written before another stream uses buf */
    /* into a device buffer: a view of its memory, on a stream of its own */
    aug_stream *s = aug_stream_new(TH_CUDA0, 0), *prev = aug_current_stream(TH_CUDA0);
    assert_int_equal(aug_set_current_stream(s), AUG_OK);
    assert_int_equal(aug_decoder_decode(dg, j, size, buf, &t), AUG_OK);
    assert_int_equal(aug_set_current_stream(prev), AUG_OK);
    assert_ptr_equal(aug_tensor_ptr(t), aug_tensor_ptr(buf));
    assert_int_equal(aug_stream_synchronize(s), AUG_OK);
    same_pixels("buffer", ref, t, strcmp(aug_decoder_engine(dg), "nvjpeg") != 0);
    aug_tensor_free(t);
    t = NULL;
    /* a buffer on another device, a truncated file: errors, nothing returned */
    assert_int_equal(aug_decoder_decode(dg, j, size, cbuf, &t), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_decoder_decode: buffer is on cpu, the decoder on cuda:0");
    size_t before_n, after_n;
    unsigned char *before = th_bytes_of(buf, &before_n);
    assert_int_equal(aug_decoder_decode(dg, j, size / 2, buf, &t), AUG_ERR_JPEG);
    assert_null(t);
    if (strcmp(aug_decoder_engine(dg), "nvjpeg") != 0) { /* the fallback copies only a whole image */
        unsigned char *after = th_bytes_of(buf, &after_n);
        assert_memory_equal(before, after, before_n);
        free(after);
    }
    free(before);
    /* still usable */
    assert_int_equal(aug_decoder_decode(dg, j, size, NULL, &t), AUG_OK);
    aug_tensor_free(t), aug_tensor_free(ref), aug_tensor_free(buf), aug_tensor_free(cbuf);
    aug_stream_free(s);
    aug_decoder_free(dg), aug_decoder_free(dc);
    tjFree(j);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lighting),
        /* the families once more in blocks of 1024 threads (test_cuda_parity.c says why) */
        AT_1024(test_lighting),
        AT_1024(test_blur_box),
        AT_1024(test_blur_gaussian),
        AT_1024(test_warp_kernels),
        AT_1024(test_warp_options),
        cmocka_unit_test(test_lighting_errors),
        cmocka_unit_test(test_blur_box),
        cmocka_unit_test(test_blur_gaussian),
        cmocka_unit_test(test_blur_errors),
        cmocka_unit_test(test_warp_dtypes),
        cmocka_unit_test(test_warp_kernels),
        cmocka_unit_test(test_warp_errors),
        cmocka_unit_test(test_warp_options),
        cmocka_unit_test(test_jpeg_decode),
        cmocka_unit_test(test_jpeg_buffer_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
