/* test_mix.c: aug_mix_mirror (aug/image.h) against the definition written out
 * here: MixUp's a * w + b * v with each product and the sum rounded in the
 * dtype (float32 products computed exactly in double and rounded once, float16
 * through GCC's _Float16, bfloat16 rounded from float32's bits here), CutMix's
 * box taking the mirror's values, weights (1, 0) leaving an image as it is;
 * on the CPU and on the emulated CUDA device: odd and even batches, N = 1,
 * boxes touching every edge, empty boxes, one entry for all, every float dtype,
 * views (a slice of a bigger batch, reversed images, an NHWC buffer viewed as
 * NCHW: the values outside the view untouched); then the argument errors with
 * their messages. The device against the CPU on random views:
 * tests/c/parity/cases_image.c ("mix/mirror"). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "aug/aug.h"
#include "helpers/th_cuda.h"

static void expect(aug_status got, aug_status want, const char *msg) {
    assert_int_equal(got, want);
    if (strstr(aug_last_error(), msg) == NULL) fail_msg("'%s' does not contain '%s'", aug_last_error(), msg);
}

/* ---- the definition ---------------------------------------------------------- */

static uint16_t bf16_bits(float f) { /* round to nearest even from float32's bits (no NaN here) */
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
static float bf16_value(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
/* x (a float32 value) rounded to the dtype */
static double round_to(aug_dtype t, float x) {
    switch (t) {
    case AUG_FLOAT16: return (double)(_Float16)x;
    case AUG_BFLOAT16: return (double)bf16_value(bf16_bits(x));
    default: return (double)x;
    }
}

static double blend(aug_dtype t, double a, double b, double w, double v) {
    if (t == AUG_FLOAT64) {
        double p = a * w, q = b * v;
        return p + q;
    }
    /* a, b: values of the dtype; a product of two floats is exact in double */
    float p = (float)(a * (double)(float)w), q = (float)(b * (double)(float)v);
    float p2 = (float)round_to(t, p), q2 = (float)round_to(t, q);
    return round_to(t, p2 + q2);
}

/* The mixed batch (N, C, H, W) of x (C order) into y; weights / boxes per image
 * (count 1 or N, either may be NULL), as the header defines it. */
static void reference(aug_dtype t, const int64_t *s, const double *x, const double *weights, const int64_t *boxes,
                      int64_t count, double *y) {
    const int64_t n = s[0], c = s[1], h = s[2], w = s[3], img = c * h * w;
    for (int64_t i = 0; i < n; i++) {
        const int64_t e = count == 1 ? 0 : i, j = n - 1 - i;
        const int64_t *bx = boxes ? boxes + 4 * e : NULL;
        const int cut = bx && bx[0] < bx[2] && bx[1] < bx[3];
        const double wi = weights ? weights[2 * e] : 1.0, vi = weights ? weights[2 * e + 1] : 0.0;
        for (int64_t ch = 0; ch < c; ch++)
            for (int64_t yy = 0; yy < h; yy++)
                for (int64_t xx = 0; xx < w; xx++) {
                    const int64_t o = ch * h * w + yy * w + xx;
                    const double a = x[i * img + o], b = x[j * img + o];
                    double r;
                    if (cut) r = yy >= bx[1] && yy < bx[3] && xx >= bx[0] && xx < bx[2] ? b : a;
                    else if (wi == 1.0 && vi == 0.0) r = a;
                    else r = blend(t, a, b, wi, vi);
                    y[i * img + o] = r;
                }
    }
}

/* ---- tensors of doubles --------------------------------------------------------- */

static void to_bytes(aug_dtype t, const double *v, int64_t n, void *dst) {
    for (int64_t k = 0; k < n; k++) switch (t) {
        case AUG_FLOAT64: ((double *)dst)[k] = v[k]; break;
        case AUG_FLOAT32: ((float *)dst)[k] = (float)v[k]; break;
        case AUG_FLOAT16: { _Float16 h = (_Float16)(float)v[k]; memcpy((char *)dst + 2 * k, &h, 2); break; }
        default: ((uint16_t *)dst)[k] = bf16_bits((float)v[k]); break;
        }
}
static void from_bytes(aug_dtype t, const void *src, int64_t n, double *v) {
    for (int64_t k = 0; k < n; k++) switch (t) {
        case AUG_FLOAT64: v[k] = ((const double *)src)[k]; break;
        case AUG_FLOAT32: v[k] = ((const float *)src)[k]; break;
        case AUG_FLOAT16: { _Float16 h; memcpy(&h, (const char *)src + 2 * k, 2); v[k] = (double)h; break; }
        default: v[k] = bf16_value(((const uint16_t *)src)[k]); break;
        }
}
/* t's values (any strides, any device) as doubles, C order (caller frees). */
static double *values(const aug_tensor *t) {
    const int64_t n = aug_tensor_size(t);
    const size_t bytes = (size_t)n * aug_tensor_itemsize(t);
    void *raw = malloc(bytes + 8);
    double *v = malloc((size_t)(n + 1) * sizeof(double));
    assert_non_null(raw), assert_non_null(v);
    assert_int_equal(aug_tensor_read(t, raw, bytes, 1), AUG_OK);
    from_bytes(t->dtype, raw, n, v);
    free(raw);
    return v;
}
/* Random values of the dtype (some negative zeros among them) into t. */
static void fill(aug_tensor *t, uint64_t seed) {
    const int64_t n = aug_tensor_size(t);
    double *v = malloc((size_t)(n + 1) * sizeof(double));
    void *raw = malloc((size_t)n * aug_tensor_itemsize(t) + 8);
    for (int64_t k = 0; k < n; k++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        v[k] = ((double)(seed >> 11) * 0x1p-53 - 0.5) * 6.0;
        if (k % 17 == 5) v[k] = -0.0;
    }
    to_bytes(t->dtype, v, n, raw);
    assert_int_equal(aug_tensor_write(t, raw, (size_t)n * aug_tensor_itemsize(t)), AUG_OK);
    free(v), free(raw);
}
/* Bitwise equality of two doubles (so -0 != +0 and NaN == NaN). */
static int same(double a, double b) { return memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b)); }

/* A view of base: the shape, element strides and offset (elements). */
static aug_tensor *view(const aug_tensor *base, const int64_t *shape, const int64_t *strides, int64_t offset) {
    aug_tensor *v = aug_tensor_view(base);
    assert_non_null(v);
    v->ndim = 4;
    for (int d = 0; d < 4; d++) v->shape[d] = shape[d], v->strides[d] = strides[d];
    v->byte_offset += offset * aug_tensor_itemsize(base);
    return v;
}

/* Mixes im (a view of base, or base itself) and checks it against the reference,
 * and base's values outside the view unchanged. */
static void check(const char *what, aug_tensor *base, aug_tensor *im, const double *weights, const int64_t *boxes,
                  int64_t count) {
    const int64_t n = aug_tensor_size(im), nb = aug_tensor_size(base);
    double *x = values(im), *b0 = values(base), *want = malloc((size_t)(n + 1) * sizeof(double));
    reference(im->dtype, im->shape, x, weights, boxes, count, want);
    if (aug_mix_mirror(im, weights, boxes, count) != AUG_OK) fail_msg("%s: %s", what, aug_last_error());
    double *got = values(im), *b1 = values(base);
    for (int64_t k = 0; k < n; k++)
        if (!same(got[k], want[k]))
            fail_msg("%s %s: value %lld is %.17g, want %.17g (from %.17g)", what, aug_dtype_name(im->dtype),
                     (long long)k, got[k], want[k], x[k]);
    /* the base changed only where the view's values changed */
    int64_t changed = 0, view_changed = 0;
    for (int64_t k = 0; k < nb; k++) changed += !same(b0[k], b1[k]);
    for (int64_t k = 0; k < n; k++) view_changed += !same(x[k], got[k]);
    assert_int_equal(changed, view_changed);
    free(x), free(b0), free(want), free(got), free(b1);
}

static const aug_dtype FLOATS[4] = {AUG_FLOAT32, AUG_FLOAT64, AUG_FLOAT16, AUG_BFLOAT16};

static void check_device(aug_device dev) {
    for (int ti = 0; ti < 4; ti++) {
        const aug_dtype t = FLOATS[ti];
        /* an odd batch: boxes on every edge, the whole image, an empty box (a blend), (1, 0), per image */
        {
            const int64_t s[4] = {7, 3, 9, 11};
            aug_tensor *im = aug_tensor_empty(4, s, t, dev);
            fill(im, 1 + (uint64_t)ti);
            const double w[14] = {0.3, 0.7, 1.0, 0.0, 0.25, 0.75, 0.6180339887, 1.0 - 0.6180339887, 1.0, 0.0,
                                  0.9, 0.1, -0.5, 2.0};
            const int64_t b[28] = {0, 0, 4, 3,  7, 5, 11, 9,  0, 0, 11, 9,  0, 0, 0, 0,
                                   3, 3, 3, 8,  0, 0, 0, 0,  2, 0, 5, 1};
            check("odd batch", im, im, w, b, 7);
            check("weights only", im, im, w, NULL, 7);
            check("boxes only", im, im, NULL, b, 7);
            aug_tensor_free(im);
        }
        /* an even batch with one entry for all (timm's 'batch' mode), N = 1, N = 2 */
        for (int64_t n = 1; n <= 4; n++) {
            const int64_t s[4] = {n, 2, 5, 6};
            aug_tensor *im = aug_tensor_empty(4, s, t, dev);
            fill(im, 10 + (uint64_t)n);
            const double w[2] = {0.8123456789, 1.0 - 0.8123456789};
            const int64_t b[4] = {1, 2, 6, 5};
            check("one for all (blend)", im, im, w, NULL, 1);
            check("one for all (box)", im, im, w, b, 1);
            aug_tensor_free(im);
        }
        /* views: a slice of a bigger batch with reversed images and rows; an NHWC buffer as NCHW */
        {
            const int64_t big[4] = {6, 4, 8, 10};
            aug_tensor *base = aug_tensor_empty(4, big, t, dev);
            fill(base, 77);
            const int64_t vs[4] = {5, 3, 6, 7}, st[4] = {-320, 80, -10, 1};
            aug_tensor *v = view(base, vs, st, 5 * 320 + 7 * 10 + 2);
            const double w[10] = {0.1, 0.9, 0.2, 0.8, 0.3, 0.7, 0.4, 0.6, 1.0, 0.0};
            const int64_t b[20] = {0, 0, 0, 0, 1, 1, 7, 6, 0, 0, 0, 0, 2, 0, 3, 6, 0, 0, 7, 6};
            check("slice view", base, v, w, b, 5);
            aug_tensor_free(v);
            const int64_t nhwc[4] = {4, 5, 6, 3}; /* N, H, W, C in memory */
            aug_tensor *buf = aug_tensor_empty(4, nhwc, t, dev);
            fill(buf, 78);
            const int64_t cs[4] = {4, 3, 5, 6}, cst[4] = {90, 1, 18, 3};
            aug_tensor *p = view(buf, cs, cst, 0);
            const int64_t b2[16] = {0, 0, 0, 0, 1, 1, 6, 5, 2, 0, 3, 5, 0, 0, 6, 5};
            check("NHWC buffer as NCHW", buf, p, w, b2, 4);
            aug_tensor_free(p), aug_tensor_free(buf), aug_tensor_free(base);
        }
    }
    /* (1, 0) keeps -0 and does not let a NaN or inf mirror in; a blend does */
    {
        const int64_t s[4] = {2, 1, 1, 2};
        aug_tensor *im = aug_tensor_empty(4, s, AUG_FLOAT32, dev);
        const float v[4] = {-0.0f, 1.0f, NAN, INFINITY};
        assert_int_equal(aug_tensor_write(im, v, sizeof v), AUG_OK);
        const double w[4] = {1.0, 0.0, 0.5, 0.5};
        assert_int_equal(aug_mix_mirror(im, w, NULL, 2), AUG_OK);
        float r[4];
        assert_int_equal(aug_tensor_read(im, r, sizeof r, 1), AUG_OK);
        assert_true(r[0] == 0.0f && signbit(r[0]) && r[1] == 1.0f);
        assert_true(isnan(r[2]) && r[3] == INFINITY);
        aug_tensor_free(im);
    }
}

static void test_cpu(void **state) {
    (void)state;
    check_device(CPU);
}

static void test_cuda(void **state) {
    (void)state;
    NEED_CUDA();
    check_device(TH_CUDA0);
}

static void test_errors(void **state) {
    (void)state;
    const int64_t s4[4] = {2, 3, 4, 5}, s3[3] = {3, 4, 5};
    const double w[4] = {0.5, 0.5, 0.5, 0.5}, nanw[4] = {0.5, NAN, 0.5, 0.5};
    const int64_t ok[8] = {0, 0, 5, 4, 0, 0, 0, 0}, out1[8] = {0, 0, 6, 4, 0, 0, 0, 0},
                  out2[8] = {0, 0, 0, 0, 3, 1, 2, 4}, out3[8] = {-1, 0, 2, 2, 0, 0, 0, 0};
    aug_tensor *im = aug_tensor_empty(4, s4, AUG_FLOAT32, CPU), *i3 = aug_tensor_empty(3, s3, AUG_FLOAT32, CPU);
    aug_tensor *u8 = aug_tensor_empty(4, s4, AUG_UINT8, CPU);
    fill(im, 5);
    double *before = values(im);
    expect(aug_mix_mirror(NULL, w, NULL, 2), AUG_ERR_VALUE, "aug_mix_mirror");
    expect(aug_mix_mirror(i3, w, NULL, 2), AUG_ERR_VALUE, "images must be (N, C, H, W), got shape (3, 4, 5)");
    expect(aug_mix_mirror(u8, w, NULL, 2), AUG_ERR_TYPE,
           "images must be float16, bfloat16, float32 or float64, not uint8");
    expect(aug_mix_mirror(im, w, NULL, 3), AUG_ERR_VALUE, "count = 3 must be 1 or the batch size 2");
    expect(aug_mix_mirror(im, w, NULL, 0), AUG_ERR_VALUE, "count = 0 must be 1 or the batch size 2");
    expect(aug_mix_mirror(im, nanw, NULL, 2), AUG_ERR_VALUE, "weights[0] = (0.5, nan) must be finite");
    expect(aug_mix_mirror(im, w, out1, 2), AUG_ERR_VALUE, "boxes[0] = (0, 0, 6, 4) is not inside the 5 x 4 image");
    expect(aug_mix_mirror(im, w, out2, 2), AUG_ERR_VALUE, "boxes[1] = (3, 1, 2, 4) is not inside");
    expect(aug_mix_mirror(im, w, out3, 2), AUG_ERR_VALUE, "boxes[0] = (-1, 0, 2, 2) is not inside");
    aug_tensor *bc = aug_tensor_view(im);
    bc->strides[0] = 0;
    expect(aug_mix_mirror(bc, w, NULL, 2), AUG_ERR_VALUE, "images has stride 0 in dimension 0");
    aug_tensor_free(bc);
    assert_int_equal(aug_tensor_set_layout(im, "NHWC"), AUG_OK);
    expect(aug_mix_mirror(im, w, ok, 2), AUG_ERR_VALUE, "'NHWC' is not supported (NCHW)");
    assert_int_equal(aug_tensor_set_layout(im, ""), AUG_OK);
    /* nothing was written by a refused call */
    double *after = values(im);
    assert_memory_equal(before, after, (size_t)aug_tensor_size(im) * sizeof(double));
    /* a box only in some images, weights (1, 0) elsewhere: fine; an empty batch too */
    assert_int_equal(aug_mix_mirror(im, NULL, ok, 2), AUG_OK);
    const int64_t s0[4] = {0, 3, 4, 5};
    aug_tensor *e = aug_tensor_empty(4, s0, AUG_FLOAT32, CPU);
    assert_int_equal(aug_mix_mirror(e, w, NULL, 0), AUG_OK);
    free(before), free(after);
    aug_tensor_free(e), aug_tensor_free(im), aug_tensor_free(i3), aug_tensor_free(u8);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_cpu), cmocka_unit_test(test_cuda),
                                       AT_1024(test_cuda), cmocka_unit_test(test_errors)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
