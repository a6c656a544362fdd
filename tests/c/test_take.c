/* test_take.c: aug_take / aug_put (advanced-index copies) on the CPU against a
 * reference written here from the tensor's elements (every dtype size, negative
 * and repeated indices, strided and broadcast operands, the last of repeated
 * writes winning, a value cast from another dtype or overlapping the tensor,
 * errors); tests/c/parity/cases_misc.c compares the CUDA backend with it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "aug/aug.h"
#include "helpers/th_cuda.h"
#include "helpers/th_ops.h"

static const aug_dtype SIZES[4] = {AUG_UINT8, AUG_INT16, AUG_FLOAT32, AUG_INT64};

static aug_tensor *pattern(int ndim, const int64_t *shape, aug_dtype dt, aug_device dev, uint64_t seed) {
    aug_tensor *t = aug_tensor_empty(ndim, shape, dt, CPU);
    assert_non_null(t);
    th_fill_pattern(t, seed);
    if (dev.type == AUG_DEVICE_CPU) return t;
    aug_tensor *d = aug_tensor_to(t, dev);
    aug_tensor_free(t);
    assert_non_null(d);
    return d;
}

/* t (2, 3, 4) taken along its first two dims: out[b, :] == t[i0[b], i1[b], :]. */
static void test_take_reference(void **state) {
    (void)state;
    const int64_t shape[3] = {2, 3, 4};
    const int64_t i0[5] = {1, -1, 0, 0, -2}, i1[5] = {2, 0, -3, 2, 1}, *idx[2] = {i0, i1};
    for (int s = 0; s < 4; s++) {
        aug_tensor *t = pattern(3, shape, SIZES[s], CPU, 7 + (uint64_t)s), *out = NULL;
        assert_int_equal(aug_take(t, 2, idx, 5, &out), AUG_OK);
        assert_int_equal(out->ndim, 2);
        assert_int_equal(out->shape[0], 5);
        assert_int_equal(out->shape[1], 4);
        for (int b = 0; b < 5; b++)
            for (int r = 0; r < 4; r++) {
                int64_t src[3] = {(i0[b] + 2) % 2, (i1[b] + 3) % 3, r}, dst[2] = {b, r};
                assert_true(th_num_eq(th_get(t, src), th_get(out, dst)));
            }
        /* into a strided out (a reversed view), and k = ndim (one element per row) */
        aug_tensor *big = aug_tensor_empty(2, (int64_t[]){5, 8}, SIZES[s], CPU);
        aug_index ix[2] = {{AUG_INDEX_SLICE, 0, 0, 0, -1, 0, 0}, {AUG_INDEX_SLICE, 0, 0, 0, 2, 0, 0}};
        aug_tensor *view = aug_tensor_index(big, 2, ix);
        assert_int_equal(aug_take(t, 2, idx, 5, &view), AUG_OK);
        for (int b = 0; b < 5; b++)
            for (int r = 0; r < 4; r++)
                assert_true(th_num_eq(th_get(out, (int64_t[]){b, r}), th_get(view, (int64_t[]){b, r})));
        const int64_t i2[5] = {3, 3, 0, -1, 2}, *idx3[3] = {i0, i1, i2};
        aug_tensor *one = NULL;
        assert_int_equal(aug_take(t, 3, idx3, 5, &one), AUG_OK);
        assert_int_equal(one->ndim, 1);
        for (int b = 0; b < 5; b++)
            assert_true(th_num_eq(th_get(one, (int64_t[]){b}),
                                  th_get(t, (int64_t[]){(i0[b] + 2) % 2, (i1[b] + 3) % 3, (i2[b] + 4) % 4})));
        aug_tensor_free(one), aug_tensor_free(view), aug_tensor_free(big), aug_tensor_free(out), aug_tensor_free(t);
    }
}

/* put: repeated rows, the last wins; a float64 value broadcast and saturated. */
static void test_put_reference(void **state) {
    (void)state;
    const int64_t shape[2] = {4, 3};
    const int64_t i0[5] = {1, -3, 3, 1, 0}, *idx[1] = {i0};
    th_num vals[15];
    for (int i = 0; i < 15; i++) vals[i] = th_f(i * 100.0 - 500.5);
    aug_tensor *v = th_tensor(2, (int64_t[]){5, 3}, AUG_FLOAT64, vals);
    for (int s = 0; s < 4; s++) {
        aug_tensor *t = pattern(2, shape, SIZES[s], CPU, 3), *ref = aug_tensor_to(t, CPU);
        assert_int_equal(aug_put(t, 1, idx, 5, v), AUG_OK);
        for (int b = 0; b < 5; b++) /* the reference: every write in order */
            for (int r = 0; r < 3; r++)
                th_set(ref, (int64_t[]){(i0[b] + 4) % 4, r}, th_sat(vals[b * 3 + r], SIZES[s]));
        for (int i = 0; i < 12; i++) assert_true(th_num_eq(th_get_flat(t, i), th_get_flat(ref, i)));
        /* a value broadcast over the rows: a (3,) tensor */
        aug_tensor *row = aug_tensor_full(1, (int64_t[]){3}, SIZES[s], CPU, &(aug_scalar){0});
        th_set_flat(row, 1, th_i(7));
        assert_int_equal(aug_put(t, 1, idx, 5, row), AUG_OK);
        assert_true(th_num_eq(th_get(t, (int64_t[]){1, 1}), th_i(7)));
        assert_true(th_num_eq(th_get(t, (int64_t[]){2, 1}), th_get(ref, (int64_t[]){2, 1})));
        aug_tensor_free(row), aug_tensor_free(ref), aug_tensor_free(t);
    }
    aug_tensor_free(v);
}

/* A value that is a view of the tensor is read before anything is written. */
static void test_put_overlap(void **state) {
    (void)state;
    th_num vals[6] = {th_i(0), th_i(1), th_i(2), th_i(3), th_i(4), th_i(5)};
    aug_tensor *t = th_tensor(1, (int64_t[]){6}, AUG_INT32, vals);
    aug_index ix = {AUG_INDEX_SLICE, 0, 0, 3, 1, 1, 1};
    aug_tensor *head = aug_tensor_index(t, 1, &ix); /* t[0:3] */
    const int64_t i0[3] = {1, 2, 3}, *idx[1] = {i0};
    assert_int_equal(aug_put(t, 1, idx, 3, head), AUG_OK); /* t[[1, 2, 3]] = t[0:3] */
    const int want[6] = {0, 0, 1, 2, 4, 5};
    for (int i = 0; i < 6; i++) assert_true(th_num_eq(th_get_flat(t, i), th_i(want[i])));
    aug_tensor_free(head), aug_tensor_free(t);
}

static void test_errors(void **state) {
    (void)state;
    aug_tensor *t = aug_tensor_zeros(2, (int64_t[]){2, 3}, AUG_UINT8, CPU), *out = NULL;
    const int64_t bad[2] = {0, 2}, ok[2] = {0, 1}, *idx[2] = {bad, ok};
    assert_int_equal(aug_take(t, 1, idx, 2, &out), AUG_ERR_INDEX);
    assert_string_equal(aug_last_error(), "aug_take: index 2 is out of bounds for axis 0 with size 2");
    assert_null(out);
    const int64_t bad1[2] = {-4, 1}, *idx2[2] = {ok, bad1};
    assert_int_equal(aug_put(t, 2, idx2, 2, t), AUG_ERR_INDEX);
    assert_string_equal(aug_last_error(), "aug_put: index -4 is out of bounds for axis 1 with size 3");
    idx2[1] = ok;
    assert_int_equal(aug_take(t, 3, idx, 2, &out), AUG_ERR_VALUE);
    assert_int_equal(aug_take(t, 0, idx, 2, &out), AUG_ERR_VALUE);
    out = aug_tensor_zeros(2, (int64_t[]){2, 4}, AUG_UINT8, CPU);
    assert_int_equal(aug_take(t, 1, idx2, 2, &out), AUG_ERR_VALUE);
    assert_true(strstr(aug_last_error(), "out must be a uint8 tensor of shape (2, 3)") != NULL);
    aug_tensor *v = aug_tensor_zeros(1, (int64_t[]){4}, AUG_UINT8, CPU);
    assert_int_equal(aug_put(t, 1, idx2, 2, v), AUG_ERR_VALUE);
    aug_tensor *empty = NULL;
    assert_int_equal(aug_take(t, 1, idx2, 0, &empty), AUG_OK);
    assert_int_equal(empty->shape[0], 0);
    aug_tensor_free(empty), aug_tensor_free(v), aug_tensor_free(out), aug_tensor_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_take_reference), cmocka_unit_test(test_put_reference),
        cmocka_unit_test(test_put_overlap),    cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
