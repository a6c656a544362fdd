/* test_resize.c: the C API errors of aug_resize / aug_resize_batch and the flip /
 * crop views. The CUDA backend against the CPU's: tests/c/parity/cases_resize.c;
 * tests/python/test_resize.py checks the values against a NumPy reference, cv2
 * and Pillow. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "aug/aug.h"
#include "helpers/th_cuda.h"

static void test_errors(void **state) {
    (void)state;
    const int64_t shape[3] = {8, 9, 3};
    aug_tensor *t = aug_tensor_zeros(3, shape, AUG_UINT8, CPU), *r = NULL;
    assert_int_equal(aug_resize(t, NULL, 0, 4, AUG_RESIZE_LINEAR, 1, &r), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_resize: size (0, 4) must be in [1, 2147483647]");
    assert_int_equal(aug_resize(t, NULL, 4, (int64_t)1 << 31, AUG_RESIZE_LINEAR, 1, &r), AUG_ERR_VALUE);
    assert_int_equal(aug_resize(t, NULL, 4, 4, (aug_resize_interp)AUG_INTERP_CUBIC, 1, &r), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_resize: interpolation 'cubic' is not supported (linear, nearest, area)");
    assert_int_equal(aug_resize(t, NULL, 4, 4, (aug_resize_interp)9, 1, &r), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_resize: interpolation 9 is not an aug_interp (linear, nearest, area)");
    assert_int_equal(aug_resize(t, "CHW", 4, 4, AUG_RESIZE_LINEAR, 1, &r), AUG_OK); /* no layout: the argument's */
    assert_string_equal(r->layout, "CHW");
    assert_int_equal(r->shape[0], 8), assert_int_equal(r->shape[1], 4), assert_int_equal(r->shape[2], 4);
    aug_tensor_free(r), r = NULL;
    assert_int_equal(aug_tensor_set_layout(t, "HWC"), AUG_OK);
    assert_int_equal(aug_resize(t, "CHW", 4, 4, AUG_RESIZE_LINEAR, 1, &r), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_resize: layout 'CHW' was given but the tensor's layout is 'HWC'");
    assert_int_equal(aug_resize(t, NULL, 4, 4, AUG_RESIZE_LINEAR, 1, NULL), AUG_ERR_VALUE);
    assert_int_equal(aug_resize(NULL, NULL, 4, 4, AUG_RESIZE_LINEAR, 1, &r), AUG_ERR_VALUE);
    assert_null(r);
    assert_null(aug_crop(t, NULL, 5, 0, 5, 9));
    assert_string_equal(aug_last_error(), "aug_crop: crop (y=5, x=0, h=5, w=9) does not fit the image (H=8, W=9): "
                                          "y, x >= 0, h, w >= 1, y + h <= H, x + w <= W");
    assert_null(aug_center_crop(t, NULL, 0, 3));
    assert_string_equal(aug_last_error(), "aug_center_crop: size (h=0, w=3) must be >= 1");
    assert_null(aug_flip(t, "NHWC", 1, 0));
    assert_string_equal(aug_last_error(), "aug_flip: layout 'NHWC' was given but the tensor's layout is 'HWC'");
    int64_t oh, ow;
    assert_int_equal(aug_resize_shorter_side(333, 500, 224, &oh, &ow), AUG_OK);
    assert_int_equal(oh, 224), assert_int_equal(ow, 336);
    assert_int_equal(aug_resize_shorter_side(333, 500, 0, &oh, &ow), AUG_ERR_VALUE);
    const aug_tensor *one[1] = {t};
    const int64_t dshape[4] = {2, 3, 4, 4};
    aug_tensor *d = aug_tensor_zeros(4, dshape, AUG_UINT8, CPU);
    assert_int_equal(aug_resize_batch(1, one, NULL, d, NULL, AUG_RESIZE_AREA, 0), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(),
                        "aug_resize_batch: dst holds 2 images (shape (2, 3, 4, 4)) but 1 source images were given");
    assert_int_equal(aug_resize_batch(0, one, NULL, d, NULL, AUG_RESIZE_AREA, 0), AUG_ERR_VALUE);
    aug_tensor_free(d), aug_tensor_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
