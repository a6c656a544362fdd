/* test_invert.c: aug_invert (aug/colour.h) against torchvision's definition
 * written out here (uint8 255 - x, uint16 65535 - x, float 1 - x, per value):
 * every uint8 and uint16 value, float specials, each image layout (the result
 * keeping the layout string), a strided view, in place, an empty image; then
 * the argument errors with their messages. On the emulated CUDA device too when
 * one is present; the device against the CPU on random views:
 * tests/c/parity/cases_colour.c. */
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

/* A view of t with the given shape, element strides and offset (in elements). */
static aug_tensor *view(const aug_tensor *t, int ndim, const int64_t *shape, const int64_t *strides, int64_t offset) {
    aug_tensor *v = aug_tensor_view(t);
    assert_non_null(v);
    v->ndim = ndim;
    for (int d = 0; d < ndim; d++) v->shape[d] = shape[d], v->strides[d] = strides[d];
    v->byte_offset += offset * aug_tensor_itemsize(t);
    return v;
}

/* t's values, copied to the host. */
static void *host_values(const aug_tensor *t) {
    size_t n = (size_t)aug_tensor_size(t) * (size_t)aug_tensor_itemsize(t);
    void *v = malloc(n ? n : 1);
    assert_non_null(v);
    assert_int_equal(aug_tensor_read(t, v, n, 1), AUG_OK);
    return v;
}

/* Every uint8 and uint16 value, in layouts HW, HWC, NCHW (strings kept), on dev. */
static void check_integers(aug_device dev) {
    const int64_t s8[4] = {4, 2, 4, 8}, s16[2] = {256, 256};
    aug_tensor *h8 = aug_tensor_empty(4, s8, AUG_UINT8, CPU), *h16 = aug_tensor_empty(2, s16, AUG_UINT16, CPU);
    for (int i = 0; i < 256; i++) ((uint8_t *)aug_tensor_ptr(h8))[i] = (uint8_t)i;
    for (int i = 0; i < 65536; i++) ((uint16_t *)aug_tensor_ptr(h16))[i] = (uint16_t)i;
    assert_int_equal(aug_tensor_set_layout(h8, "NCHW"), AUG_OK);
    aug_tensor *x8 = aug_tensor_to(h8, dev), *x16 = aug_tensor_to(h16, dev), *r8 = NULL, *r16 = NULL;
    assert_int_equal(aug_invert(x8, &r8), AUG_OK);
    assert_int_equal(aug_invert(x16, &r16), AUG_OK);
    assert_string_equal(r8->layout, "NCHW");
    assert_int_equal(r16->dtype, AUG_UINT16);
    uint8_t *v8 = host_values(r8);
    uint16_t *v16 = host_values(r16);
    for (int i = 0; i < 256; i++)
        if (v8[i] != 255 - i) fail_msg("uint8 %d -> %d, want %d", i, v8[i], 255 - i);
    for (int i = 0; i < 65536; i++)
        if (v16[i] != 65535 - i) fail_msg("uint16 %d -> %d, want %d", i, v16[i], 65535 - i);
    free(v8), free(v16);
    /* in place, twice: the image again */
    assert_int_equal(aug_invert(r8, &r8), AUG_OK);
    assert_int_equal(aug_invert(r8, &r8), AUG_OK);
    v8 = host_values(r8);
    for (int i = 0; i < 256; i++) assert_int_equal(v8[i], 255 - i);
    free(v8);
    aug_tensor_free(h8), aug_tensor_free(h16), aug_tensor_free(x8), aug_tensor_free(x16);
    aug_tensor_free(r8), aug_tensor_free(r16);
}

/* float32 and float64: 1 - x, specials included (no clamp: torchvision has none). */
static void check_floats(aug_device dev) {
    const double in[8] = {0.0, 1.0, 0.25, -0.5, 2.0, INFINITY, -INFINITY, 0.1};
    for (int k = 0; k < 2; k++) {
        aug_dtype t = k ? AUG_FLOAT64 : AUG_FLOAT32;
        aug_tensor *x = th_from_doubles(in, 3, (int64_t[]){2, 2, 2}, t, dev), *r = NULL;
        assert_int_equal(aug_tensor_set_layout(x, "HWC"), AUG_OK);
        assert_int_equal(aug_invert(x, &r), AUG_OK);
        assert_string_equal(r->layout, "HWC");
        void *v = host_values(r);
        for (int i = 0; i < 8; i++) {
            double got = k ? ((double *)v)[i] : (double)((float *)v)[i];
            double want = k ? 1.0 - in[i] : (double)(1.0f - (float)in[i]);
            if (!(got == want)) fail_msg("%s %g -> %g, want %g", aug_dtype_name(t), in[i], got, want);
        }
        free(v);
        /* NaN stays NaN */
        double nan_in = NAN;
        aug_tensor *xn = th_from_doubles(&nan_in, 2, (int64_t[]){1, 1}, t, dev), *rn = NULL;
        assert_int_equal(aug_invert(xn, &rn), AUG_OK);
        v = host_values(rn);
        assert_true(k ? isnan(((double *)v)[0]) : isnan(((float *)v)[0]));
        free(v);
        aug_tensor_free(xn), aug_tensor_free(rn), aug_tensor_free(x), aug_tensor_free(r);
    }
}

/* A strided view (every other column, reversed rows) is read as its values;
 * an empty image gives an empty result. */
static void check_views(aug_device dev) {
    const int64_t shape[3] = {3, 5, 6};
    aug_tensor *h = aug_tensor_empty(3, shape, AUG_UINT8, CPU);
    for (int i = 0; i < 90; i++) ((uint8_t *)aug_tensor_ptr(h))[i] = (uint8_t)(i * 7);
    aug_tensor *x = aug_tensor_to(h, dev);
    aug_tensor *v = view(x, 3, (int64_t[]){3, 5, 3}, (int64_t[]){30, -6, 2}, 4 * 6), *r = NULL;
    assert_false(aug_tensor_is_contiguous(v));
    assert_int_equal(aug_invert(v, &r), AUG_OK);
    uint8_t *got = host_values(r);
    const uint8_t *src = aug_tensor_ptr(h);
    for (int c = 0; c < 3; c++)
        for (int y = 0; y < 5; y++)
            for (int k = 0; k < 3; k++)
                assert_int_equal(got[(c * 5 + y) * 3 + k], 255 - src[(c * 5 + (4 - y)) * 6 + 2 * k]);
    free(got);
    aug_tensor *e = aug_tensor_empty(4, (int64_t[]){0, 3, 4, 4}, AUG_FLOAT32, dev), *re = NULL;
    assert_int_equal(aug_invert(e, &re), AUG_OK);
    assert_int_equal(aug_tensor_size(re), 0);
    aug_tensor_free(e), aug_tensor_free(re), aug_tensor_free(v), aug_tensor_free(r);
    aug_tensor_free(x), aug_tensor_free(h);
}

static void test_cpu(void **state) {
    (void)state;
    check_integers(CPU), check_floats(CPU), check_views(CPU);
}

static void test_cuda(void **state) {
    (void)state;
    if (!th_have_cuda()) skip();
    aug_device dev = {AUG_DEVICE_CUDA, 0};
    check_integers(dev), check_floats(dev), check_views(dev);
}

static void test_errors(void **state) {
    (void)state;
    aug_tensor *im = aug_tensor_empty(3, (int64_t[]){3, 4, 4}, AUG_UINT8, CPU), *res = NULL;
    expect(aug_invert(im, NULL), AUG_ERR_VALUE, "aug_invert: out is NULL");
    expect(aug_invert(NULL, &res), AUG_ERR_VALUE, "aug_invert: ");
    aug_tensor *i32 = aug_tensor_empty(2, (int64_t[]){4, 4}, AUG_INT32, CPU);
    expect(aug_invert(i32, &res), AUG_ERR_TYPE,
           "aug_invert: image dtype int32 is not supported (uint8, uint16, float32 or float64)");
    aug_tensor *flat = aug_tensor_empty(1, (int64_t[]){16}, AUG_UINT8, CPU);
    expect(aug_invert(flat, &res), AUG_ERR_VALUE, "aug_invert: image must be (H, W), (H, W, C), (C, H, W), "
                                                  "(N, H, W, C) or (N, C, H, W), got shape (16,)");
    aug_tensor *five = aug_tensor_empty(5, (int64_t[]){1, 1, 3, 4, 4}, AUG_UINT8, CPU);
    expect(aug_invert(five, &res), AUG_ERR_VALUE, "got shape (1, 1, 3, 4, 4)");
    aug_tensor *odd = aug_tensor_empty(3, (int64_t[]){3, 4, 4}, AUG_UINT8, CPU);
    assert_int_equal(aug_tensor_set_layout(odd, "XYZ"), AUG_OK);
    expect(aug_invert(odd, &res), AUG_ERR_VALUE,
           "aug_invert: layout 'XYZ' is not supported (HW, HWC, CHW, NHWC, NCHW)");
    aug_tensor *small = aug_tensor_empty(3, (int64_t[]){3, 4, 3}, AUG_UINT8, CPU);
    expect(aug_invert(im, &small), AUG_ERR_VALUE, "aug_invert: out has shape (3, 4, 3) but the image has shape");
    aug_tensor *f = aug_tensor_empty(3, (int64_t[]){3, 4, 4}, AUG_FLOAT32, CPU);
    expect(aug_invert(im, &f), AUG_ERR_TYPE, "aug_invert: out has dtype float32 but the image has dtype uint8");
    /* out overlapping the image other than exactly: refused, nothing written */
    aug_tensor *big = aug_tensor_empty(1, (int64_t[]){64}, AUG_UINT8, CPU);
    aug_tensor *a = view(big, 2, (int64_t[]){4, 8}, (int64_t[]){8, 1}, 0);
    aug_tensor *b = view(big, 2, (int64_t[]){4, 8}, (int64_t[]){8, 1}, 8);
    expect(aug_invert(a, &b), AUG_ERR_VALUE, "aug_invert: out partially overlaps the image");
    /* a strided out is refused (out must be contiguous) */
    aug_tensor *wide = aug_tensor_empty(2, (int64_t[]){4, 16}, AUG_UINT8, CPU);
    aug_tensor *half = view(wide, 2, (int64_t[]){4, 8}, (int64_t[]){16, 2}, 0);
    expect(aug_invert(a, &half), AUG_ERR_VALUE, "aug_invert: out must be contiguous");
    aug_tensor_free(im), aug_tensor_free(i32), aug_tensor_free(flat), aug_tensor_free(five), aug_tensor_free(odd);
    aug_tensor_free(small), aug_tensor_free(f), aug_tensor_free(big), aug_tensor_free(a);
    aug_tensor_free(b), aug_tensor_free(wide), aug_tensor_free(half);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_cpu), cmocka_unit_test(test_cuda),
                                       cmocka_unit_test(test_errors)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
