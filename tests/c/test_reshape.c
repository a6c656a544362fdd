/* test_reshape.c: aug_reshape / aug_reshape_batch (DALI fn.reshape, semantics §12): the
 * seed's examples, DALI's test cases (dali/test/python/operator_1/test_reshape.py),
 * layouts, dtype reinterpretation against the raw bytes, views sharing storage,
 * and every error message. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "aug/aug.h"

#define CPU aug_cpu_device()

static aug_tensor *make(int ndim, const int64_t *shape, aug_dtype dt) {
    aug_tensor *t = aug_tensor_zeros(ndim, shape, dt, CPU);
    assert_non_null(t);
    return t;
}

static void expect_shape(const aug_tensor *t, int ndim, const int64_t *shape) {
    assert_int_equal(t->ndim, ndim);
    for (int d = 0; d < ndim; d++) assert_int_equal(t->shape[d], shape[d]);
    /* C-contiguous strides */
    int64_t s = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        assert_int_equal(t->strides[d], s);
        s *= shape[d] > 0 ? shape[d] : 1;
    }
}

static aug_tensor *ok(const aug_tensor *t, const aug_reshape_args *a) {
    aug_tensor *out = NULL;
    aug_clear_error();
    aug_status st = aug_reshape(t, a, &out);
    if (st != AUG_OK) fail_msg("unexpected error: %s", aug_last_error());
    assert_non_null(out);
    assert_ptr_equal(aug_tensor_ptr(out), aug_tensor_ptr(t));
    return out;
}

static void err(const aug_tensor *t, const aug_reshape_args *a, aug_status code, const char *text) {
    aug_tensor *out = NULL;
    aug_clear_error();
    assert_int_equal(aug_reshape(t, a, &out), code);
    assert_null(out);
    assert_string_equal(aug_last_error(), text);
}

static void test_seed_examples(void **state) {
    int64_t s480[3] = {480, 640, 3}, s300[3] = {300, 200, 1};
    aug_tensor *t = make(3, s480, AUG_UINT8), *u = make(3, s300, AUG_UINT8);
    aug_reshape_args a = aug_reshape_args_init();
    float rel[2] = {0.5f, -1.0f};
    a.has_rel_shape = 1, a.rel_ndim = 2, a.rel_shape = rel;
    aug_tensor *r = ok(t, &a);
    expect_shape(r, 2, (int64_t[]){240, 3840});
    aug_tensor_free(r);

    a = aug_reshape_args_init();
    int64_t sh[2] = {240, -1};
    a.has_shape = 1, a.shape_ndim = 2, a.shape = sh;
    r = ok(t, &a);
    expect_shape(r, 2, (int64_t[]){240, 3840});
    aug_tensor_free(r);
    /* the same through shape_input */
    a = aug_reshape_args_init();
    a.has_shape_input = 1, a.shape_input_ndim = 2, a.shape_input = sh;
    r = ok(t, &a);
    expect_shape(r, 2, (int64_t[]){240, 3840});
    aug_tensor_free(r);

    a = aug_reshape_args_init();
    int src[3] = {-1, 1, 0};
    a.has_src_dims = 1, a.src_ndim = 3, a.src_dims = src;
    r = ok(u, &a);
    expect_shape(r, 3, (int64_t[]){1, 200, 300});
    aug_tensor_free(r);
    float rel3[3] = {-1.0f, 0.5f, 2.0f};
    a.has_rel_shape = 1, a.rel_ndim = 3, a.rel_shape = rel3;
    r = ok(u, &a);
    expect_shape(r, 3, (int64_t[]){1, 100, 600});
    aug_tensor_free(r);
    aug_tensor_free(t);
    aug_tensor_free(u);
}

/* DALI's test_reshape_src_dims_arg table. */
static void test_dali_src_dims_table(void **state) {
    struct {
        int nsrc;
        int src[4];
        int nrel;
        float rel[3];
        int64_t in[3];
        int nout;
        int64_t out[4];
    } cases[] = {
        {2, {0, 1}, 0, {0}, {200, 300, 1}, 2, {200, 300}},
        {3, {1, 2, 0}, 0, {0}, {10, 20, 30}, 3, {20, 30, 10}},
        {1, {1}, 0, {0}, {1, 2, 1}, 1, {2}},
        {4, {2, -1, 1, 0}, 0, {0}, {10, 20, 30}, 4, {30, 1, 20, 10}},
        {2, {-1, 2}, 0, {0}, {1, 1, 30}, 2, {1, 30}},
        {3, {2, 0, 1}, 3, {0.5f, 0.5f, -1}, {200, 300, 100}, 3, {50, 100, 1200}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        aug_tensor *t = make(3, cases[i].in, AUG_UINT8);
        aug_reshape_args a = aug_reshape_args_init();
        a.has_src_dims = 1, a.src_ndim = cases[i].nsrc, a.src_dims = cases[i].src;
        if (cases[i].nrel) a.has_rel_shape = 1, a.rel_ndim = cases[i].nrel, a.rel_shape = cases[i].rel;
        aug_tensor *r = ok(t, &a);
        expect_shape(r, cases[i].nout, cases[i].out);
        aug_tensor_free(r);
        aug_tensor_free(t);
    }
    /* src_dims = [] on a [1] tensor: 0-d */
    aug_tensor *t = make(1, (int64_t[]){1}, AUG_FLOAT32);
    aug_reshape_args a = aug_reshape_args_init();
    a.has_src_dims = 1, a.src_ndim = 0;
    aug_tensor *r = ok(t, &a);
    assert_int_equal(r->ndim, 0);
    aug_tensor_free(r);
    aug_tensor_free(t);
    /* trailing wildcard adds a dimension (DALI test_trailing_wildcard) */
    t = make(2, (int64_t[]){480, 640}, AUG_UINT8);
    a = aug_reshape_args_init();
    float rel[3] = {1, 1, -1};
    a.has_rel_shape = 1, a.rel_ndim = 3, a.rel_shape = rel;
    r = ok(t, &a);
    expect_shape(r, 3, (int64_t[]){480, 640, 1});
    aug_tensor_free(r);
    aug_tensor_free(t);
}

static void test_rounding_float32(void **state) {
    /* 0.5 * 5 = 2.5 rounds half away from zero to 3 (half-to-even would give 2) */
    aug_tensor *t = make(2, (int64_t[]){5, 6}, AUG_UINT8);
    aug_reshape_args a = aug_reshape_args_init();
    float rel[2] = {0.5f, -1};
    a.has_rel_shape = 1, a.rel_ndim = 2, a.rel_shape = rel;
    aug_tensor *r = ok(t, &a);
    expect_shape(r, 2, (int64_t[]){3, 10});
    aug_tensor_free(r);
    aug_tensor_free(t);
    /* float32(5/6) * 3 is 2.4999999404 in double but exactly 2.5 in float32: the
     * product is computed in float32 as DALI does, so the extent is 3 */
    t = make(2, (int64_t[]){3, 10}, AUG_UINT8);
    float rel2[2] = {0.8333333134651184f, 1};
    a.rel_shape = rel2;
    r = ok(t, &a);
    expect_shape(r, 2, (int64_t[]){3, 10});
    aug_tensor_free(r);
    /* src_dims -1 counts as an input extent of 1: 2 * 1 = 2 */
    int src[3] = {0, -1, 1};
    float rel3[3] = {1, 2, 0.5f};
    a.has_src_dims = 1, a.src_ndim = 3, a.src_dims = src, a.rel_ndim = 3, a.rel_shape = rel3;
    r = ok(t, &a);
    expect_shape(r, 3, (int64_t[]){3, 2, 5});
    aug_tensor_free(r);
    aug_tensor_free(t);
}

static void test_layouts(void **state) {
    aug_tensor *t = make(3, (int64_t[]){4, 6, 3}, AUG_UINT8);
    assert_int_equal(aug_tensor_set_layout(t, "HWC"), AUG_OK);
    aug_reshape_args a = aug_reshape_args_init();
    int64_t same[3] = {6, 4, 3}, flat[2] = {4, -1};
    a.has_shape = 1, a.shape_ndim = 3, a.shape = same;
    aug_tensor *r = ok(t, &a);
    assert_string_equal(r->layout, "HWC"); /* same ndim: kept */
    aug_tensor_free(r);
    a.shape_ndim = 2, a.shape = flat;
    r = ok(t, &a);
    assert_string_equal(r->layout, ""); /* other ndim: cleared */
    aug_tensor_free(r);
    a.layout = "ab";
    r = ok(t, &a);
    assert_string_equal(r->layout, "ab");
    aug_tensor_free(r);
    a.layout = "abc";
    err(t, &a, AUG_ERR_VALUE, "aug_reshape: Requested layout 'abc' is not compatible with a 2D shape");
    a = aug_reshape_args_init();
    a.layout = ""; /* layout alone is not a no-op */
    r = ok(t, &a);
    assert_string_equal(r->layout, "");
    expect_shape(r, 3, (int64_t[]){4, 6, 3});
    aug_tensor_free(r);
    a.layout = "CHW";
    r = ok(t, &a);
    assert_string_equal(r->layout, "CHW");
    assert_string_equal(t->layout, "HWC"); /* the input is untouched */
    aug_tensor_free(r);
    aug_tensor_free(t);
}

static void test_dtype(void **state) {
    aug_tensor *t = make(2, (int64_t[]){3, 8}, AUG_UINT8);
    uint8_t *p = aug_tensor_ptr(t);
    for (int i = 0; i < 24; i++) p[i] = (uint8_t)(i * 37 + 1);
    aug_reshape_args a = aug_reshape_args_init();
    a.dtype = AUG_INT32;
    aug_tensor *r = ok(t, &a);
    expect_shape(r, 2, (int64_t[]){3, 2});
    assert_int_equal(r->dtype, AUG_INT32);
    int32_t expect;
    memcpy(&expect, p + 12, 4);
    assert_int_equal(((int32_t *)aug_tensor_ptr(r))[3], expect);
    /* and back: int32 -> uint8 multiplies the innermost extent */
    aug_tensor *back = ok(r, &(aug_reshape_args){.dtype = AUG_UINT8});
    expect_shape(back, 2, (int64_t[]){3, 8});
    aug_tensor_free(back);
    /* wildcard inferred in bytes */
    int64_t sh[2] = {-1, 3};
    a.has_shape = 1, a.shape_ndim = 2, a.shape = sh, a.dtype = AUG_UINT16;
    aug_tensor *w = ok(t, &a);
    expect_shape(w, 2, (int64_t[]){4, 3});
    aug_tensor_free(w);
    /* innermost 8 bytes not divisible by 3-byte... use int64 on 12 bytes */
    aug_tensor *t12 = make(2, (int64_t[]){2, 12}, AUG_UINT8);
    a = aug_reshape_args_init();
    a.dtype = AUG_INT64;
    err(t12, &a, AUG_ERR_VALUE,
        "aug_reshape: The size, in bytes, of the innermost dimension is not divisible by the sizes of the requested "
        "output type. Innermost extent: 12 (12 bytes); int64 has 8 bytes.");
    aug_tensor_free(t12);
    /* 0-d of another itemsize without a shape */
    aug_tensor *z = make(0, NULL, AUG_INT32);
    a.dtype = AUG_UINT8;
    err(z, &a, AUG_ERR_VALUE,
        "aug_reshape: cannot reinterpret a 0-d sample of int32 (4 bytes) as uint8 (1 bytes) without a shape");
    aug_tensor_free(z);
    /* misaligned view */
    aug_index ix = {.kind = AUG_INDEX_SLICE, .start = 1, .has_start = 1, .step = 1};
    aug_tensor *flat = ok(t, &(aug_reshape_args){.has_shape = 1, .shape_ndim = 1, .shape = (int64_t[]){24},
                                                 .dtype = AUG_DTYPE_AUTO});
    aug_tensor *tail = aug_tensor_index(flat, 1, &ix);
    assert_non_null(tail);
    a = aug_reshape_args_init();
    a.has_shape = 1, a.shape_ndim = 1, a.shape = (int64_t[]){-1};
    a.dtype = AUG_UINT8; /* same itemsize: fine */
    aug_tensor *v = NULL;
    assert_int_equal(aug_reshape(tail, &a, &v), AUG_OK);
    aug_tensor_free(v);
    a.shape = (int64_t[]){23};
    a.dtype = AUG_INT8;
    v = NULL;
    assert_int_equal(aug_reshape(tail, &a, &v), AUG_OK);
    aug_tensor_free(v);
    aug_tensor_free(tail);
    aug_tensor_free(flat);
    aug_tensor_free(r);
    aug_tensor_free(t);
}

static void test_writes_through(void **state) {
    aug_tensor *t = make(2, (int64_t[]){2, 3}, AUG_INT16);
    aug_tensor *r = ok(t, &(aug_reshape_args){.has_shape = 1, .shape_ndim = 1, .shape = (int64_t[]){-1},
                                              .dtype = AUG_DTYPE_AUTO});
    aug_scalar v = aug_scalar_int(-7);
    assert_int_equal(aug_fill(r, &v), AUG_OK);
    aug_scalar got;
    assert_int_equal(aug_tensor_get_item(t, (int64_t[]){1, 2}, &got), AUG_OK);
    assert_int_equal(got.v.i, -7);
    aug_tensor_free(t); /* the view keeps the storage alive */
    assert_int_equal(aug_tensor_get_item(r, (int64_t[]){5}, &got), AUG_OK);
    assert_int_equal(got.v.i, -7);
    aug_tensor_free(r);
}

static void test_batch(void **state) {
    aug_tensor *a0 = make(2, (int64_t[]){4, 6}, AUG_UINT8), *a1 = make(2, (int64_t[]){2, 5}, AUG_UINT8);
    const aug_tensor *in[2] = {a0, a1};
    aug_tensor *out[2];
    aug_reshape_args shared = aug_reshape_args_init();
    shared.has_shape = 1, shared.shape_ndim = 1, shared.shape = (int64_t[]){-1};
    assert_int_equal(aug_reshape_batch(2, in, &shared, 1, out), AUG_OK);
    expect_shape(out[0], 1, (int64_t[]){24});
    expect_shape(out[1], 1, (int64_t[]){10});
    aug_tensor_free(out[0]);
    aug_tensor_free(out[1]);
    /* per-sample rows */
    int64_t rows[2][2] = {{3, 8}, {-1, 2}};
    aug_reshape_args per[2] = {aug_reshape_args_init(), aug_reshape_args_init()};
    for (int i = 0; i < 2; i++) per[i].has_shape_input = 1, per[i].shape_input_ndim = 2, per[i].shape_input = rows[i];
    assert_int_equal(aug_reshape_batch(2, in, per, 2, out), AUG_OK);
    expect_shape(out[0], 2, (int64_t[]){3, 8});
    expect_shape(out[1], 2, (int64_t[]){5, 2});
    aug_tensor_free(out[0]);
    aug_tensor_free(out[1]);
    /* a failure in sample 1 frees sample 0 and names the sample */
    rows[1][0] = 3;
    aug_clear_error();
    assert_int_equal(aug_reshape_batch(2, in, per, 2, out), AUG_ERR_VALUE);
    assert_null(out[0]);
    assert_null(out[1]);
    assert_string_equal(aug_last_error(),
                        "aug_reshape: Input and output samples must occupy the same size in bytes. Sample index: 1, "
                        "actual volume: 10 (10 bytes), requested volume: 6 (6 bytes), input shape: (2, 5), "
                        "requested shape: (3, 2)");
    aug_clear_error();
    aug_reshape_args per3[3] = {per[0], per[1], per[1]};
    assert_int_equal(aug_reshape_batch(2, in, per3, 3, out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_reshape: The new shape must have same number of samples. Got 3, expected 2");
    aug_tensor_free(a0);
    aug_tensor_free(a1);
}

static void test_errors(void **state) {
    aug_tensor *t = make(3, (int64_t[]){10, 20, 20}, AUG_UINT8);
    aug_reshape_args a = aug_reshape_args_init();
    err(t, &a, AUG_ERR_VALUE, "aug_reshape: `reshape` is no-op: arguments specify neither new shape, layout nor type.");
    int64_t sh[3] = {-1, 2, -1};
    float rel[2] = {1, 1};
    a.has_shape = 1, a.shape_ndim = 3, a.shape = sh;
    a.has_rel_shape = 1, a.rel_ndim = 2, a.rel_shape = rel;
    err(t, &a, AUG_ERR_VALUE,
        "aug_reshape: Shape input, `shape` argument and `rel_shape` argument are mutually exclusive");
    a.has_rel_shape = 0;
    a.has_shape_input = 1, a.shape_input_ndim = 3, a.shape_input = sh;
    err(t, &a, AUG_ERR_VALUE,
        "aug_reshape: Shape input, `shape` argument and `rel_shape` argument are mutually exclusive");
    a.has_shape_input = 0;
    err(t, &a, AUG_ERR_VALUE, "aug_reshape: Only one negative extent is allowed; got: (-1, 2, -1)");
    int64_t z[2] = {0, -1};
    a.shape_ndim = 2, a.shape = z;
    err(t, &a, AUG_ERR_VALUE, "aug_reshape: Extent of 0 is illegal; got: (0, -1)");
    int64_t s400[2] = {20, 20};
    a.shape = s400;
    err(t, &a, AUG_ERR_VALUE,
        "aug_reshape: Input and output samples must occupy the same size in bytes. Sample index: 0, actual volume: "
        "4000 (4000 bytes), requested volume: 400 (400 bytes), input shape: (10, 20, 20), requested shape: (20, 20)");
    int src2[2] = {2, 0};
    a = aug_reshape_args_init();
    a.has_src_dims = 1, a.src_ndim = 2, a.src_dims = src2;
    err(t, &a, AUG_ERR_VALUE,
        "aug_reshape: The volume of the new shape should match the one of the original shape. Requested a shape with "
        "200 elements but the original shape has 4000 elements.");
    int src3[3] = {2, 0, 1};
    float rel2[2] = {1, -1};
    a.src_ndim = 3, a.src_dims = src3;
    a.has_rel_shape = 1, a.rel_ndim = 2, a.rel_shape = rel2;
    err(t, &a, AUG_ERR_VALUE, "aug_reshape: `src_dims` and `rel_shape` have different lengths: 3 vs 2");
    int bad[3] = {0, 1, 3};
    a = aug_reshape_args_init();
    a.has_src_dims = 1, a.src_ndim = 3, a.src_dims = bad;
    err(t, &a, AUG_ERR_VALUE,
        "aug_reshape: `src_dims[2] == 3` is out of bounds. The indices in `src_dims` should be either valid "
        "dimension indices in range [0..2] or -1 to insert a new dimension.");
    a.has_shape = 1, a.shape_ndim = 1, a.shape = (int64_t[]){-1};
    err(t, &a, AUG_ERR_VALUE, "aug_reshape: `src_dims` cannot be combined with `shape`: it is used with `rel_shape` or alone");
    a = aug_reshape_args_init();
    a.has_rel_shape = 1, a.rel_ndim = 0, a.rel_shape = rel;
    err(t, &a, AUG_ERR_VALUE, "aug_reshape: `rel_shape` specified as an empty list");
    float rz[2] = {0.5f, 0};
    a.rel_ndim = 2, a.rel_shape = rz;
    err(t, &a, AUG_ERR_VALUE, "aug_reshape: Extent of 0 is illegal; got: (0.5, 0)");
    float rn[3] = {-1, 0.5f, -2};
    a.rel_ndim = 3, a.rel_shape = rn;
    err(t, &a, AUG_ERR_VALUE, "aug_reshape: Only one negative extent is allowed; got: (-1, 0.5, -2)");
    float r4[4] = {1, 1, 1, 1};
    a.rel_ndim = 4, a.rel_shape = r4;
    err(t, &a, AUG_ERR_VALUE,
        "aug_reshape: `rel_shape` has more elements (4) than there are dimensions in the input (3). To add new "
        "dimensions, use `src_dims` to specify the mapping between input and output dimensions.");
    aug_tensor_free(t);

    /* DALI's test_invalid_wildcard and test_wildcard_zero_volume */
    aug_tensor *u = make(2, (int64_t[]){480, 640}, AUG_UINT8);
    float inv[3] = {1, -1, 1};
    a.rel_ndim = 3, a.rel_shape = inv;
    err(u, &a, AUG_ERR_VALUE,
        "aug_reshape: `rel_shape` has more elements (3) than there are dimensions in the input (2). To add new "
        "dimensions, use `src_dims` to specify the mapping between input and output dimensions.");
    aug_tensor_free(u);
    aug_tensor *e = make(2, (int64_t[]){320, 0}, AUG_UINT8);
    float w1[2] = {-1, 1};
    a.rel_ndim = 2, a.rel_shape = w1;
    err(e, &a, AUG_ERR_VALUE,
        "aug_reshape: Cannot infer the extent of dimension 0 when the volume of remaining dimensions is 0. Input "
        "shape: (320, 0)");
    /* more output than input dims with the wildcard inside the input's dims */
    a = aug_reshape_args_init();
    a.has_shape = 1, a.shape_ndim = 3, a.shape = (int64_t[]){-1, 1, 1};
    aug_tensor *r = ok(e, &a); /* other volume 1: inferred 0 */
    expect_shape(r, 3, (int64_t[]){0, 1, 1});
    aug_tensor_free(r);
    aug_tensor_free(e);

    /* non-contiguous input */
    aug_tensor *m = make(2, (int64_t[]){4, 6}, AUG_UINT8);
    aug_tensor *p = aug_tensor_permute(m, (int[]){1, 0});
    a = aug_reshape_args_init();
    a.has_shape = 1, a.shape_ndim = 1, a.shape = (int64_t[]){24};
    err(p, &a, AUG_ERR_VALUE, "aug_reshape: tensor is not contiguous; call contiguous() first");
    aug_tensor_free(p);
    aug_tensor_free(m);

    /* NULLs and bad args */
    aug_tensor *out = NULL;
    aug_clear_error();
    assert_int_equal(aug_reshape(NULL, &a, &out), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_reshape: tensor is NULL");
    assert_int_equal(aug_reshape(NULL, &a, NULL), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_reshape: out is NULL");
    a.shape_ndim = 9;
    aug_tensor *q = make(1, (int64_t[]){1}, AUG_UINT8);
    err(q, &a, AUG_ERR_VALUE, "aug_reshape: `shape` has 9 elements; the output can have at most 8 dimensions");
    a = aug_reshape_args_init();
    a.dtype = (aug_dtype)99;
    err(q, &a, AUG_ERR_TYPE, "aug_reshape: invalid dtype 99");
    a.dtype = AUG_DTYPE_AUTO;
    float nan_rel[1] = {NAN};
    a.has_rel_shape = 1, a.rel_ndim = 1, a.rel_shape = nan_rel;
    err(q, &a, AUG_ERR_VALUE, "aug_reshape: `rel_shape` must be finite; got: (nan,)");
    aug_tensor_free(q);
}

/* Found by tests/fuzz/fuzz_reshape.c: a rel_shape can give a zero-size output
 * whose other extents multiply past int64 (0 * 8e18 * 12 bytes is fine; the
 * strides' running product 12 * 8e18 is not). It is a valid empty view; its
 * strides must be computed without a signed overflow (UBSan). */
static void test_zero_size_huge_extents(void **state) {
    aug_tensor *t = make(3, (int64_t[]){0, 2, 3}, AUG_UINT8);
    float rel[3] = {1.0f, 4e18f, 4.0f};
    aug_reshape_args a = aug_reshape_args_init();
    a.has_rel_shape = 1, a.rel_ndim = 3, a.rel_shape = rel;
    aug_tensor *v = ok(t, &a);
    assert_int_equal(v->ndim, 3);
    assert_int_equal(v->shape[0], 0);
    assert_int_equal(v->shape[1], (int64_t)roundf(4e18f * 2.0f));
    assert_int_equal(v->shape[2], 12);
    assert_int_equal(v->strides[2], 1);
    assert_int_equal(v->strides[1], 12);
    assert_int_equal(aug_tensor_size(v), 0);
    aug_tensor_free(v);
    aug_tensor_free(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_examples), cmocka_unit_test(test_dali_src_dims_table),
        cmocka_unit_test(test_rounding_float32), cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_dtype),
        cmocka_unit_test(test_writes_through), cmocka_unit_test(test_batch),
        cmocka_unit_test(test_errors), cmocka_unit_test(test_zero_size_huge_extents),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
