/* test_image_ops.c: aug_image_ops_batch (aug/policy.h) against its definition
 * written out here: each image's ops through their own functions one by one,
 * the result copied into batch[i]. Every op kind, uint8 / uint16 / float32,
 * 1, 2 and 3 threads, a strided batch (PIL's blur on uint8 only); on the
 * emulated CUDA device the same bytes as the CPU; then the argument errors
 * (refused before any image changes) and an op's error with their messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
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

#define NIMG 5
/* image i runs OPS[OFFSETS[i]] ... OPS[OFFSETS[i + 1] - 1]; image 2 none */
static const aug_image_op OPS[] = {
    {AUG_IMAGE_OP_WARP_AFFINE, 0, {0.9f, -0.3f, 1.5f, 0.25f, 1.1f, -2.0f}},
    {AUG_IMAGE_OP_BRIGHTNESS, 1.4, {0}},
    {AUG_IMAGE_OP_POSTERIZE, 3, {0}},
    {AUG_IMAGE_OP_SOLARIZE, 0.4, {0}}, /* scaled to the dtype's range below */
    {AUG_IMAGE_OP_SOLARIZE_ADD, 40, {0}},
    {AUG_IMAGE_OP_PIL_GAUSSIAN_BLUR, 1.3, {0}}, /* uint8 only: identity for the other dtypes below */
    {AUG_IMAGE_OP_EQUALIZE, 0, {0}},
    {AUG_IMAGE_OP_AUTOCONTRAST, 0, {0}},
    {AUG_IMAGE_OP_SHARPNESS, 1.7, {0}},
    {AUG_IMAGE_OP_CONTRAST, 0.5, {0}},
    {AUG_IMAGE_OP_SATURATION, 1.3, {0}},
    {AUG_IMAGE_OP_IDENTITY, 0, {0}},
    {AUG_IMAGE_OP_INVERT, 0, {0}},
    {AUG_IMAGE_OP_WARP_AFFINE, 0, {1.0f, 0.0f, 3.0f, 0.0f, 1.0f, 0.0f}},
    {AUG_IMAGE_OP_PIL_GAUSSIAN_BLUR, 0.45, {0}},
    {AUG_IMAGE_OP_PIL_GAUSSIAN_BLUR, 0.0, {0}}, /* a copy */
};
static const int64_t OFFSETS[NIMG + 1] = {0, 2, 6, 6, 12, 16};

static double bound_of(aug_dtype dt) { return dt == AUG_UINT8 ? 255.0 : dt == AUG_UINT16 ? 65535.0 : 1.0; }

/* OPS with solarize's threshold in dt's range (uint8 / uint16 have no solarize-add above 127 here);
 * PIL's blur (uint8 only) as identity for the other dtypes. */
static void ops_for(aug_dtype dt, aug_image_op *ops) {
    memcpy(ops, OPS, sizeof OPS);
    ops[3].arg *= bound_of(dt);
    for (size_t j = 0; j < sizeof OPS / sizeof OPS[0]; j++)
        if (ops[j].kind == AUG_IMAGE_OP_PIL_GAUSSIAN_BLUR && dt != AUG_UINT8) ops[j].kind = AUG_IMAGE_OP_IDENTITY;
}

/* The definition: each op of image i by its function, then copied back. */
static void reference(aug_tensor *batch, const aug_image_op *ops, const aug_tensor *bg, aug_interp interp) {
    aug_warp_options o = aug_warp_options_default();
    o.interpolation = interp;
    o.layout = o.out_layout = "CHW";
    for (int64_t i = 0; i < NIMG; i++) {
        aug_index ix = {.kind = AUG_INDEX_INT, .i = i};
        aug_tensor *v = aug_tensor_index(batch, 1, &ix), *cur = NULL;
        assert_non_null(v);
        assert_int_equal(aug_tensor_set_layout(v, "CHW"), AUG_OK);
        for (int64_t j = OFFSETS[i]; j < OFFSETS[i + 1]; j++) {
            const aug_tensor *in = cur ? cur : v;
            aug_tensor *r = NULL, *below = NULL, *sum = NULL;
            double a = ops[j].arg;
            int32_t bits = (int32_t)a;
            aug_status s = AUG_OK;
            switch (ops[j].kind) {
            case AUG_IMAGE_OP_WARP_AFFINE:
                r = aug_tensor_empty(3, in->shape, in->dtype, in->device);
                s = aug_warp_affine_ex(in, r, ops[j].matrix, bg, 1, &o);
                break;
            case AUG_IMAGE_OP_BRIGHTNESS: s = aug_adjust_brightness(in, a, &r); break;
            case AUG_IMAGE_OP_CONTRAST: s = aug_adjust_contrast(in, a, &r); break;
            case AUG_IMAGE_OP_SATURATION: s = aug_adjust_saturation(in, a, &r); break;
            case AUG_IMAGE_OP_SHARPNESS: s = aug_adjust_sharpness(in, &a, 1, &r); break;
            case AUG_IMAGE_OP_POSTERIZE: s = aug_posterize(in, &bits, 1, &r); break;
            case AUG_IMAGE_OP_SOLARIZE: s = aug_solarize(in, &a, 1, &r); break;
            case AUG_IMAGE_OP_SOLARIZE_ADD: {
                assert_int_equal(aug_functional_scalar("t", AUG_OP_LT, in, aug_scalar_int(128), 0, &below), AUG_OK);
                assert_int_equal(aug_functional_scalar("t", AUG_OP_ADD, in, aug_scalar_int((int64_t)a), 0, &sum),
                                 AUG_OK);
                aug_operand w[3] = {aug_operand_tensor(below), aug_operand_tensor(sum), aug_operand_tensor(in)};
                s = aug_elementwise("t", AUG_OP_WHERE, 3, w, AUG_DTYPE_AUTO, AUG_DTYPE_AUTO, &r);
                break;
            }
            case AUG_IMAGE_OP_AUTOCONTRAST: s = aug_autocontrast(in, &r); break;
            case AUG_IMAGE_OP_EQUALIZE: s = aug_equalize(in, &r); break;
            case AUG_IMAGE_OP_INVERT: s = aug_invert(in, &r); break;
            case AUG_IMAGE_OP_PIL_GAUSSIAN_BLUR: s = aug_pil_gaussian_blur_single(in, a, &r); break;
            default: break;
            }
            assert_int_equal(s, AUG_OK);
            aug_tensor_free(below);
            aug_tensor_free(sum);
            if (r) aug_tensor_free(cur), cur = r;
        }
        if (cur) assert_int_equal(aug_copy(cur, v), AUG_OK);
        aug_tensor_free(cur);
        aug_tensor_free(v);
    }
}

/* batch (a copy of src on dev) through aug_image_ops_batch, and its bytes. */
static unsigned char *run(const aug_tensor *src, aug_device dev, const aug_image_op *ops, const aug_tensor *bg,
                          aug_interp interp, size_t *n) {
    aug_tensor *b = aug_tensor_to(src, dev), *bgd = bg ? aug_tensor_to(bg, dev) : NULL;
    assert_non_null(b);
    assert_int_equal(aug_image_ops_batch(b, ops, OFFSETS, bgd, interp), AUG_OK);
    unsigned char *out = th_bytes_of(b, n);
    aug_tensor_free(b);
    aug_tensor_free(bgd);
    return out;
}

static void test_cpu(void **state) {
    (void)state;
    const aug_dtype dts[3] = {AUG_UINT8, AUG_UINT16, AUG_FLOAT32};
    const int64_t shape[4] = {NIMG, 3, 9, 13};
    int before = aug_get_num_threads();
    for (int d = 0; d < 3; d++) {
        aug_image_op ops[sizeof OPS / sizeof OPS[0]];
        ops_for(dts[d], ops);
        aug_tensor *src = aug_tensor_empty(4, shape, dts[d], CPU);
        th_fill_pattern(src, 7 + (uint64_t)d);
        if (dts[d] == AUG_FLOAT32) { /* in [0, 1], where the ops are defined */
            float *p = aug_tensor_ptr(src);
            for (int64_t k = 0; k < aug_tensor_size(src); k++) p[k] = (float)((k * 37) % 101) / 100.0f;
        }
        double fill[3] = {0.25 * bound_of(dts[d]), 0, bound_of(dts[d])};
        aug_tensor *bg = th_from_doubles(fill, 1, (int64_t[]){3}, AUG_FLOAT64, CPU);
        for (int interp = 0; interp < 2; interp++) {
            aug_interp ip = interp ? AUG_INTERP_NEAREST : AUG_INTERP_LINEAR;
            aug_tensor *want = aug_tensor_to(src, CPU);
            reference(want, ops, bg, ip);
            size_t nw, ng;
            unsigned char *w = th_bytes_of(want, &nw);
            for (int threads = 1; threads <= 3; threads++) {
                assert_int_equal(aug_set_num_threads(threads), AUG_OK);
                unsigned char *g = run(src, CPU, ops, bg, ip, &ng);
                assert_int_equal(ng, nw);
                if (memcmp(g, w, nw) != 0) fail_msg("dtype %d interp %d threads %d differs", d, interp, threads);
                free(g);
            }
            /* a strided batch: every other column of a wider one */
            aug_tensor *wide = aug_tensor_zeros(4, (int64_t[]){NIMG, 3, 9, 26}, dts[d], CPU);
            aug_index ix[4] = {{.kind = AUG_INDEX_ELLIPSIS}, {.kind = AUG_INDEX_SLICE, .step = 2}};
            aug_tensor *strided = aug_tensor_index(wide, 2, ix);
            assert_int_equal(aug_copy(src, strided), AUG_OK);
            assert_int_equal(aug_image_ops_batch(strided, ops, OFFSETS, bg, ip), AUG_OK);
            unsigned char *g = th_bytes_of(strided, &ng);
            if (memcmp(g, w, nw) != 0) fail_msg("dtype %d interp %d: the strided batch differs", d, interp);
            free(g);
            free(w);
            aug_tensor_free(strided);
            aug_tensor_free(wide);
            aug_tensor_free(want);
        }
        aug_tensor_free(bg);
        aug_tensor_free(src);
    }
    assert_int_equal(aug_set_num_threads(before), AUG_OK);
}

static void test_cuda(void **state) {
    (void)state;
    NEED_CUDA();
    aug_image_op ops[sizeof OPS / sizeof OPS[0]];
    ops_for(AUG_UINT8, ops);
    aug_tensor *src = aug_tensor_empty(4, (int64_t[]){NIMG, 3, 9, 13}, AUG_UINT8, CPU);
    th_fill_pattern(src, 3);
    double fill[3] = {128, 20, 250};
    aug_tensor *bg = th_from_doubles(fill, 1, (int64_t[]){3}, AUG_FLOAT64, CPU);
    size_t na, nb;
    unsigned char *a = run(src, CPU, ops, bg, AUG_INTERP_LINEAR, &na), *b = run(src, TH_CUDA0, ops, bg,
                                                                                AUG_INTERP_LINEAR, &nb);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na);
    free(a);
    free(b);
    aug_tensor_free(bg);
    aug_tensor_free(src);
}

static void test_errors(void **state) {
    (void)state;
    aug_tensor *b = aug_tensor_zeros(4, (int64_t[]){2, 3, 4, 4}, AUG_UINT8, CPU);
    aug_tensor *three = aug_tensor_zeros(3, (int64_t[]){3, 4, 4}, AUG_UINT8, CPU);
    aug_tensor *nhwc = aug_tensor_zeros(4, (int64_t[]){2, 4, 4, 3}, AUG_UINT8, CPU);
    assert_int_equal(aug_tensor_set_layout(nhwc, "NHWC"), AUG_OK);
    aug_image_op inv = {AUG_IMAGE_OP_INVERT, 0, {0}}, bad = {(aug_image_op_kind)42, 0, {0}};
    aug_image_op post = {AUG_IMAGE_OP_POSTERIZE, 2.5, {0}}, add = {AUG_IMAGE_OP_SOLARIZE_ADD, 0.5, {0}};
    aug_image_op dark = {AUG_IMAGE_OP_BRIGHTNESS, -1, {0}};
    const int64_t ok[3] = {0, 1, 1}, second[3] = {0, 0, 1}, start[3] = {1, 1, 1}, down[3] = {0, 1, 0};
    expect(aug_image_ops_batch(NULL, &inv, ok, NULL, AUG_INTERP_LINEAR), AUG_ERR_VALUE,
           "aug_image_ops_batch: batch is NULL");
    expect(aug_image_ops_batch(b, &inv, NULL, NULL, AUG_INTERP_LINEAR), AUG_ERR_VALUE,
           "aug_image_ops_batch: offsets is NULL");
    expect(aug_image_ops_batch(three, &inv, ok, NULL, AUG_INTERP_LINEAR), AUG_ERR_VALUE,
           "aug_image_ops_batch: batch must be (N, C, H, W), got 3 dimensions");
    expect(aug_image_ops_batch(nhwc, &inv, ok, NULL, AUG_INTERP_LINEAR), AUG_ERR_VALUE,
           "batch must have layout 'NCHW' (or none), got 'NHWC'");
    expect(aug_image_ops_batch(b, &inv, ok, NULL, AUG_INTERP_CUBIC), AUG_ERR_VALUE,
           "interpolation must be linear or nearest, got 3");
    expect(aug_image_ops_batch(b, &inv, start, NULL, AUG_INTERP_LINEAR), AUG_ERR_VALUE, "offsets[0] must be 0, got 1");
    expect(aug_image_ops_batch(b, &inv, down, NULL, AUG_INTERP_LINEAR), AUG_ERR_VALUE,
           "offsets must not decrease: offsets[2] = 0 < 1");
    expect(aug_image_ops_batch(b, NULL, ok, NULL, AUG_INTERP_LINEAR), AUG_ERR_VALUE, "ops is NULL with 1 ops");
    expect(aug_image_ops_batch(b, &bad, ok, NULL, AUG_INTERP_LINEAR), AUG_ERR_VALUE, "ops[0]: no op kind 42");
    expect(aug_image_ops_batch(b, &post, ok, NULL, AUG_INTERP_LINEAR), AUG_ERR_VALUE,
           "ops[0]: posterize needs an integer argument in [0, 32], got 2.5");
    expect(aug_image_ops_batch(b, &add, ok, NULL, AUG_INTERP_LINEAR), AUG_ERR_VALUE,
           "ops[0]: solarize_add needs an integer argument, got 0.5");
    expect(aug_image_ops_batch(b, &dark, second, NULL, AUG_INTERP_LINEAR), AUG_ERR_VALUE,
           "aug_image_ops_batch: image 1, op 0: aug_adjust_brightness: ");
    /* the blur's radius and dtype, refused before any image changes (image 0's invert not run) */
    const double radii[3] = {-0.5, NAN, 2e6};
    const char *radius_msgs[3] = {"got -0.5", "got nan", "got 2e+06"};
    for (int r = 0; r < 3; r++) {
        aug_image_op pair[2] = {inv, {AUG_IMAGE_OP_PIL_GAUSSIAN_BLUR, radii[r], {0}}};
        const int64_t two[3] = {0, 1, 2};
        expect(aug_image_ops_batch(b, pair, two, NULL, AUG_INTERP_LINEAR), AUG_ERR_VALUE,
               "aug_image_ops_batch: ops[1]: pil_gaussian_blur's radius must be in [0, 1e+06], ");
        if (!strstr(aug_last_error(), radius_msgs[r])) fail_msg("'%s' lacks '%s'", aug_last_error(), radius_msgs[r]);
        size_t nb;
        unsigned char *bytes = th_bytes_of(b, &nb);
        for (size_t k = 0; k < nb; k++)
            if (bytes[k]) fail_msg("radius %g: byte %zu changed", radii[r], k);
        free(bytes);
    }
    aug_tensor *b16 = aug_tensor_zeros(4, (int64_t[]){2, 3, 4, 4}, AUG_UINT16, CPU);
    aug_image_op blur = {AUG_IMAGE_OP_PIL_GAUSSIAN_BLUR, 1.0, {0}}, next = {(aug_image_op_kind)13, 0, {0}};
    expect(aug_image_ops_batch(b16, &blur, ok, NULL, AUG_INTERP_LINEAR), AUG_ERR_TYPE,
           "aug_image_ops_batch: ops[0]: pil_gaussian_blur takes uint8, got uint16");
    expect(aug_image_ops_batch(b, &next, ok, NULL, AUG_INTERP_LINEAR), AUG_ERR_VALUE, "ops[0]: no op kind 13");
    aug_tensor_free(b16);
    /* no ops at all: nothing to do */
    const int64_t none[3] = {0, 0, 0};
    assert_int_equal(aug_image_ops_batch(b, NULL, none, NULL, AUG_INTERP_LINEAR), AUG_OK);
    aug_tensor_free(b);
    aug_tensor_free(three);
    aug_tensor_free(nhwc);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_cpu), cmocka_unit_test(test_cuda),
                                       cmocka_unit_test(test_errors)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
