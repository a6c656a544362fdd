/* test_targets.c: boxes and keypoints through warp matrices (aug/targets.h).
 *
 * Against values worked out by hand: the identity keeps everything, a
 * horizontal flip maps box edges x -> W - x and keypoints x -> W - 1 - x (twice:
 * the identity), a 90 degree rotation swaps the axes, a box that leaves the image
 * is dropped, clipping and the min_area / min_visibility filters, the three box
 * formats and normalised coordinates, the angle and scale of keypoints, the
 * padded batch form; every error path names the function and the value. On a
 * CUDA device against these: tests/c/parity/cases_misc.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>
#include "aug/aug.h"
#include "helpers/th_cuda.h"

static const float IDENTITY[6] = {1, 0, 0, 0, 1, 0};

static void expect_error(aug_status st, aug_status want, const char *needle) {
    assert_int_equal(st, want);
    if (!strstr(aug_last_error(), needle)) fail_msg("message \"%s\" lacks \"%s\"", aug_last_error(), needle);
}

static void near(double a, double b) {
    if (!(fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b)))) fail_msg("%.17g != %.17g", a, b);
}

static void test_identity(void **state) {
    (void)state;
    double in[8] = {1, 2, 30, 40, 0, 0, 64, 48}, out[8];
    int64_t keep[2], kept = -1;
    aug_box_params p = aug_box_params_default();
    assert_int_equal(aug_boxes_affine_host(2, in, IDENTITY, 48, 64, 48, 64, &p, out, keep, &kept), AUG_OK);
    assert_int_equal(kept, 2);
    for (int i = 0; i < 8; i++) near(out[i], in[i]);
    assert_int_equal(keep[0], 0);
    assert_int_equal(keep[1], 1);
    double kp[8] = {0, 0, 10, 2, 63.5, 47.5, 350, 1}, ko[8];
    assert_int_equal(aug_keypoints_affine_host(2, 4, kp, IDENTITY, 48, 64, 1, ko, keep, &kept), AUG_OK);
    assert_int_equal(kept, 2);
    for (int i = 0; i < 8; i++) near(ko[i], kp[i]);
}

static void test_flip_twice(void **state) {
    (void)state;
    const int64_t W = 64, H = 48;
    /* the exact flip: output pixel x reads source pixel W - 1 - x */
    const float flip[6] = {-1, 0, (float)(W - 1), 0, 1, 0};
    double in[4] = {1, 2, 30, 40}, once[4], twice[4];
    int64_t kept;
    aug_box_params p = aug_box_params_default();
    assert_int_equal(aug_boxes_affine_host(1, in, flip, H, W, H, W, &p, once, NULL, &kept), AUG_OK);
    assert_int_equal(kept, 1);
    near(once[0], 64 - 30), near(once[1], 2), near(once[2], 64 - 1), near(once[3], 40);
    assert_int_equal(aug_boxes_affine_host(1, once, flip, H, W, H, W, &p, twice, NULL, &kept), AUG_OK);
    for (int i = 0; i < 4; i++) near(twice[i], in[i]);
    double kp[3] = {5, 7, 30}, k1[3], k2[3];
    assert_int_equal(aug_keypoints_affine_host(1, 3, kp, flip, H, W, 1, k1, NULL, &kept), AUG_OK);
    near(k1[0], 63 - 5), near(k1[1], 7), near(k1[2], 150);
    assert_int_equal(aug_keypoints_affine_host(1, 3, k1, flip, H, W, 1, k2, NULL, &kept), AUG_OK);
    for (int i = 0; i < 3; i++) near(k2[i], kp[i]);
}

static void test_rotate_90_and_scale(void **state) {
    (void)state;
    /* the inverse map of "x' = 2 (H - 1 - y), y' = 2 x" (pixel centres): x = y'/2, y = H - 1 - x'/2 */
    const int64_t H = 10, W = 20;
    float m[6] = {0, 0.5f, 0, -0.5f, 0, (float)(H - 1)};
    double kp[4] = {3, 4, 0, 1.5}, ko[4];
    int64_t kept;
    assert_int_equal(aug_keypoints_affine_host(1, 4, kp, m, 2 * W, 2 * H, 0, ko, NULL, &kept), AUG_OK);
    near(ko[0], 2 * (H - 1 - 4)), near(ko[1], 2 * 3), near(ko[2], 90), near(ko[3], 3.0);
    /* box edges e = centre + 0.5: x' = 2 (H - 1 - (y - 0.5)) + 0.5 = 2 (H - y) - 0.5, y' = 2 x - 0.5 */
    double b[4] = {2, 1, 6, 3}, bo[4];
    aug_box_params p = aug_box_params_default();
    assert_int_equal(aug_boxes_affine_host(1, b, m, H, W, 2 * W, 2 * H, &p, bo, NULL, &kept), AUG_OK);
    near(bo[0], 2 * (H - 3) - 0.5), near(bo[1], 3.5), near(bo[2], 2 * (H - 1) - 0.5), near(bo[3], 11.5);
}

static void test_drop_and_clip(void **state) {
    (void)state;
    /* translation by +40 px in x: inverse map x_src = x_out - 40 */
    float m[6] = {1, 0, -40, 0, 1, 0};
    double in[16] = {0, 0, 10, 10, 30, 0, 60, 10, 70, 0, 80, 10, 20, 20, 30, 30}, out[16];
    int64_t keep[4], kept;
    aug_box_params p = aug_box_params_default();
    assert_int_equal(aug_boxes_affine_host(4, in, m, 64, 100, 64, 64, &p, out, keep, &kept), AUG_OK);
    /* box 0 -> (40, 0, 50, 10); box 1 -> (70, ...) clipped away? x 70..100 -> outside: dropped;
     * box 2 -> 110..120 dropped; box 3 -> (60, 20, 70, 30) clipped to (60, 20, 64, 30) */
    assert_int_equal(kept, 2);
    assert_int_equal(keep[0], 0);
    assert_int_equal(keep[1], 3);
    near(out[0], 40), near(out[2], 50);
    near(out[4], 60), near(out[5], 20), near(out[6], 64), near(out[7], 30);
    p.min_visibility = 0.5; /* box 3 keeps 4/10 of its area */
    assert_int_equal(aug_boxes_affine_host(4, in, m, 64, 100, 64, 64, &p, out, keep, &kept), AUG_OK);
    assert_int_equal(kept, 1);
    p.min_visibility = 0.4;
    assert_int_equal(aug_boxes_affine_host(4, in, m, 64, 100, 64, 64, &p, out, keep, &kept), AUG_OK);
    assert_int_equal(kept, 2);
    p.min_visibility = 0, p.min_area = 41; /* box 3's visible area is 40 */
    assert_int_equal(aug_boxes_affine_host(4, in, m, 64, 100, 64, 64, &p, out, keep, &kept), AUG_OK);
    assert_int_equal(kept, 1);
    assert_int_equal(keep[0], 0);
    /* keypoints: flagged or dropped */
    double kp[6] = {10, 5, 30, 5, 23.9, 5}, ko[6];
    assert_int_equal(aug_keypoints_affine_host(3, 2, kp, m, 64, 64, 0, ko, keep, &kept), AUG_OK);
    assert_int_equal(kept, 2);
    assert_int_equal(keep[0], 0);
    assert_int_equal(keep[1], 2);
    near(ko[2], 70);
    assert_int_equal(aug_keypoints_affine_host(3, 2, kp, m, 64, 64, 1, ko, keep, &kept), AUG_OK);
    near(ko[0], 50), near(ko[2], 63.9);
}

static void test_formats(void **state) {
    (void)state;
    /* scale by 2 with the pixel grids aligned: x_src + 0.5 = (x + 0.5) / 2 */
    float m[6] = {0.5f, 0, -0.25f, 0, 0.5f, -0.25f};
    aug_box_params p = aug_box_params_default();
    double xyxy[4] = {4, 6, 10, 8}, o[4];
    int64_t kept;
    assert_int_equal(aug_boxes_affine_host(1, xyxy, m, 20, 20, 40, 40, &p, o, NULL, &kept), AUG_OK);
    /* edges: x' = 2 x */
    near(o[0], 8), near(o[1], 12), near(o[2], 20), near(o[3], 16);
    p.format = AUG_BOX_XYWH;
    double xywh[4] = {4, 6, 6, 2};
    assert_int_equal(aug_boxes_affine_host(1, xywh, m, 20, 20, 40, 40, &p, o, NULL, &kept), AUG_OK);
    near(o[0], 8), near(o[1], 12), near(o[2], 12), near(o[3], 4);
    p.format = AUG_BOX_CXCYWH, p.normalized = 1;
    double yolo[4] = {7.0 / 20, 7.0 / 20, 6.0 / 20, 2.0 / 20};
    assert_int_equal(aug_boxes_affine_host(1, yolo, m, 20, 20, 40, 40, &p, o, NULL, &kept), AUG_OK);
    near(o[0], 14.0 / 40), near(o[1], 14.0 / 40), near(o[2], 12.0 / 40), near(o[3], 4.0 / 40);
    aug_box_format f;
    assert_int_equal(aug_box_format_parse("cxcywh", &f, NULL), AUG_OK);
    assert_int_equal(f, AUG_BOX_CXCYWH);
    expect_error(aug_box_format_parse("yolo", &f, "aug_x"), AUG_ERR_VALUE, "aug_x: unknown box format 'yolo'");
}

static void test_errors(void **state) {
    (void)state;
    aug_box_params p = aug_box_params_default();
    double o[8];
    int64_t kept = 99;
    double bad[4] = {10, 0, 5, 4};
    expect_error(aug_boxes_affine_host(1, bad, IDENTITY, 8, 8, 8, 8, &p, o, NULL, &kept), AUG_ERR_VALUE,
                 "aug_boxes_affine_host: box 0 has x_max < x_min (5 < 10)");
    assert_int_equal(kept, 99);
    double nan_box[8] = {0, 0, 1, 1, 0, NAN, 1, 1};
    expect_error(aug_boxes_affine_host(2, nan_box, IDENTITY, 8, 8, 8, 8, &p, o, NULL, &kept), AUG_ERR_VALUE,
                 "box 1 has a non-finite coordinate nan");
    p.format = AUG_BOX_XYWH;
    double neg[4] = {0, 0, -1, 4};
    expect_error(aug_boxes_affine_host(1, neg, IDENTITY, 8, 8, 8, 8, &p, o, NULL, &kept), AUG_ERR_VALUE,
                 "box 0 has a negative width -");
    p = aug_box_params_default();
    p.min_visibility = 2;
    expect_error(aug_boxes_affine_host(0, NULL, IDENTITY, 8, 8, 8, 8, &p, o, NULL, &kept), AUG_ERR_VALUE,
                 "min_visibility must be in [0, 1], got 2");
    p = aug_box_params_default();
    p.min_area = -1;
    expect_error(aug_boxes_affine_host(0, NULL, IDENTITY, 8, 8, 8, 8, &p, o, NULL, &kept), AUG_ERR_VALUE,
                 "min_area must be finite and >= 0, got -1");
    p = aug_box_params_default();
    float sing[6] = {1, 2, 0, 2, 4, 0};
    expect_error(aug_boxes_affine_host(0, NULL, sing, 8, 8, 8, 8, &p, o, NULL, &kept), AUG_ERR_VALUE, "is singular");
    expect_error(aug_boxes_affine_host(0, NULL, IDENTITY, 0, 8, 8, 8, &p, o, NULL, &kept), AUG_ERR_VALUE,
                 "source size must be positive, got (0, 8)");
    double kp[5] = {1, 2, 3, 4, 5};
    expect_error(aug_keypoints_affine_host(1, 5, kp, IDENTITY, 8, 8, 1, o, NULL, &kept), AUG_ERR_VALUE,
                 "aug_keypoints_affine_host: keypoints must have 2, 3 or 4 columns");
    double kn[2] = {1, INFINITY};
    expect_error(aug_keypoints_affine_host(1, 2, kn, IDENTITY, 8, 8, 1, o, NULL, &kept), AUG_ERR_VALUE,
                 "keypoint 0 has a non-finite value inf (column 1)");
    /* tensors: shapes and dtypes */
    int64_t s3[2] = {2, 3};
    aug_tensor *t = aug_tensor_zeros(2, s3, AUG_FLOAT32, CPU), *r = NULL;
    expect_error(aug_boxes_affine(t, IDENTITY, 8, 8, 8, 8, &p, &r, NULL), AUG_ERR_VALUE,
                 "aug_boxes_affine: boxes must have shape (n, 4), got (2, 3)");
    aug_tensor_free(t);
    int64_t s4[2] = {2, 4};
    t = aug_tensor_zeros(2, s4, AUG_BOOL, CPU);
    expect_error(aug_boxes_affine(t, IDENTITY, 8, 8, 8, 8, &p, &r, NULL), AUG_ERR_TYPE, "boxes must have a real dtype");
    aug_tensor_free(t);
    assert_null(r);
}

static void run_tensor_forms(aug_device dev) {
    float m[6] = {1, 0, -40, 0, 1, 0};
    double in[16] = {0, 0, 10, 10, 30, 0, 60, 10, 70, 0, 80, 10, 20, 20, 30, 30};
    int64_t shape[2] = {4, 4};
    aug_tensor *b = th_from_doubles(in, 2, shape, AUG_INT32, dev), *o = NULL, *k = NULL;
    aug_box_params p = aug_box_params_default();
    assert_int_equal(aug_boxes_affine(b, m, 64, 100, 64, 64, &p, &o, &k), AUG_OK);
    assert_int_equal(o->device.type, dev.type);
    assert_int_equal(o->dtype, AUG_FLOAT32);
    assert_int_equal(o->shape[0], 2);
    aug_tensor *oh = aug_tensor_to(o, CPU), *kh = aug_tensor_to(k, CPU);
    const float *ov = aug_tensor_ptr(oh);
    const int64_t *kv = aug_tensor_ptr(kh);
    assert_true(ov[0] == 40 && ov[6] == 64);
    assert_int_equal(kv[1], 3);
    aug_tensor_free(oh), aug_tensor_free(kh), aug_tensor_free(o), aug_tensor_free(k);
    /* batch: image 0 has 4 boxes, image 1 the first 1 with the identity */
    double bb[32];
    memcpy(bb, in, sizeof in);
    memcpy(bb + 16, in, sizeof in);
    int64_t s3[3] = {2, 4, 4}, counts[2] = {4, 1}, oc[2];
    float ms[12] = {1, 0, -40, 0, 1, 0, 1, 0, 0, 0, 1, 0};
    int64_t sizes[4] = {64, 100, 64, 64};
    aug_tensor *bt = th_from_doubles(bb, 3, s3, AUG_FLOAT64, dev);
    o = k = NULL;
    assert_int_equal(aug_boxes_affine_batch(bt, counts, ms, sizes, 64, 64, &p, &o, oc, &k), AUG_OK);
    assert_int_equal(oc[0], 2);
    assert_int_equal(oc[1], 1);
    assert_int_equal(o->dtype, AUG_FLOAT64);
    oh = aug_tensor_to(o, CPU), kh = aug_tensor_to(k, CPU);
    const double *bv = aug_tensor_ptr(oh);
    kv = aug_tensor_ptr(kh);
    near(bv[4], 60), near(bv[8], 0), near(bv[16], 0), near(bv[18], 10), near(bv[20], 0);
    assert_true(kv[0] == 0 && kv[1] == 3 && kv[2] == -1 && kv[4] == 0 && kv[5] == -1);
    aug_tensor_free(oh), aug_tensor_free(kh), aug_tensor_free(o), aug_tensor_free(k);
    counts[1] = 5;
    expect_error(aug_boxes_affine_batch(bt, counts, ms, sizes, 64, 64, &p, &o, oc, &k), AUG_ERR_VALUE,
                 "aug_boxes_affine_batch: counts[1] = 5 is outside [0, 4]");
    counts[1] = 1;
    bb[16 + 2] = -5;
    aug_tensor_free(bt);
    bt = th_from_doubles(bb, 3, s3, AUG_FLOAT64, dev);
    expect_error(aug_boxes_affine_batch(bt, counts, ms, sizes, 64, 64, &p, &o, oc, &k), AUG_ERR_VALUE,
                 "aug_boxes_affine_batch: image 1: box 0 has x_max < x_min (-5 < 0)");
    aug_tensor_free(bt);
    aug_tensor_free(b);
    /* keypoints */
    double kp[6] = {10, 5, 30, 5, 23.9, 5};
    int64_t ks[2] = {3, 2};
    aug_tensor *kt = th_from_doubles(kp, 2, ks, AUG_FLOAT32, dev);
    o = k = NULL;
    assert_int_equal(aug_keypoints_affine(kt, m, 64, 64, 0, &o, &k), AUG_OK);
    assert_int_equal(o->shape[0], 3);
    assert_int_equal(k->shape[0], 2);
    assert_int_equal(o->device.type, dev.type);
    aug_tensor_free(o), aug_tensor_free(k);
    assert_int_equal(aug_keypoints_affine(kt, m, 64, 64, 1, &o, NULL), AUG_OK);
    assert_int_equal(o->shape[0], 2);
    aug_tensor_free(o), aug_tensor_free(kt);
}

static void test_tensors_cpu(void **state) {
    (void)state;
    run_tensor_forms(CPU);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity),
        cmocka_unit_test(test_flip_twice),
        cmocka_unit_test(test_rotate_90_and_scale),
        cmocka_unit_test(test_drop_and_clip),
        cmocka_unit_test(test_formats),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_tensors_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
