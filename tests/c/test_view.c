/* test_view.c: NumPy basic indexing (checked against a table generated with
 * Python's own slicing), permute, reshape, broadcast_to, contiguous, and how
 * layout strings follow views. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "aug/aug.h"

#define CPU aug_cpu_device()
#define NULL_ERR(expr, code, text)                                     \
    do {                                                               \
        aug_clear_error();                                             \
        assert_null(expr);                                             \
        assert_int_equal(aug_last_status(), (code));                   \
        assert_string_equal(aug_last_error(), (text));                 \
    } while (0)

/* For n in {0, 3, 5}, start and stop in VALS (HAS = 0: omitted), step in STEPS:
 * the set of indices Python's list(range(n))[start:stop:step] selects, as a bit
 * mask encoded '0'-'9', 'A'-'V' (the order is ascending for step > 0, else
 * descending). Generated with CPython. */
static const int64_t NS[] = {0, 3, 5};
static const int VAL_HAS[] = {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
static const int64_t VALS[] = {0, INT64_MIN, -9, -4, -1, 0, 1, 3, 5, 9, INT64_MAX};
static const int64_t STEPS[] = {1, 2, -1, -3, 100, -100, INT64_MIN, INT64_MAX};
static const char SLICE_TABLE[] =
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000007574144100740440007404400074044031001001006404401144144175001001750010017500100175001001"
    "750010010000000000000000000000003100100100000000110010017500100175001001750010017500100175001001"
    "000000000000000000000000310010010000000011001001750010017500100175001001750010017500100100000000"
    "000000000000000031001001000000001100100175001001750010017500100175001001447444440074044000740440"
    "007404400000000000640440004404404400400444004004440040044400400475111111001101100011011000110110"
    "310010010000000011001001750010017500100175001001750010016232222200320220003202200032022022002002"
    "002202200000000062002002620020026200200262002002007404400074044000740440007404400000000000640440"
    "004404400000000000000000000000000000000000740440007404400074044000740440000000000064044000440440"
    "000000000000000000000000000000000074044000740440007404400074044000000000006404400044044000000000"
    "000000000000000000000000007404400074044000740440007404400000000000640440004404400000000000000000"
    "0000000000000000VLVI1GG100VI0GG000VI0GG011SG1GG1F500100100UI0GG011SG1GG175GG1GG1VL001001VL001001"
    "VL001001VL001001000000000000000011001001F5001001000000001100100175001001VL001001VL001001VL001001"
    "VL001001000000000000000011001001F5001001000000001100100175001001VL001001VL001001VL001001UA322222"
    "003202200032022000000000EA002002002202200000000062002002UA002002UA002002UA002002GGVIGGGG00VI0GG0"
    "00VI0GG000SG0GG00000000000UI0GG000SG0GG000GG0GG0GG00G00GGG00G00GGG00G00GVL1111110011011000110110"
    "11001001F5001001000000001100100175001001VL001001VL001001VL001001UA322222003202200032022000000000"
    "EA002002002202200000000062002002UA002002UA002002UA002002O8F9888800F9088000F9088000C8088088008008"
    "00E8088000C8088000000000O8008008O8008008O800800800VI0GG000VI0GG000VI0GG000SG0GG00000000000UI0GG0"
    "00SG0GG000GG0GG000000000000000000000000000VI0GG000VI0GG000VI0GG000SG0GG00000000000UI0GG000SG0GG0"
    "00GG0GG000000000000000000000000000VI0GG000VI0GG000VI0GG000SG0GG00000000000UI0GG000SG0GG000GG0GG0"
    "000000000000000000000000";

/* A tensor of `shape` whose element at C-order position i holds i (int32). */
static aug_tensor *arange(int ndim, const int64_t *shape) {
    aug_tensor *t = aug_tensor_empty(ndim, shape, AUG_INT32, CPU);
    assert_non_null(t);
    int32_t *p = aug_tensor_ptr(t);
    for (int64_t i = 0; i < aug_tensor_size(t); i++) p[i] = (int32_t)i;
    return t;
}

/* Checks t's shape and its elements (read via get_item in C order) against want. */
static void expect_values(const aug_tensor *t, int ndim, const int64_t *shape, const int32_t *want) {
    assert_int_equal(t->ndim, ndim);
    for (int d = 0; d < ndim; d++) assert_int_equal(t->shape[d], shape[d]);
    int64_t n = aug_tensor_size(t), idx[AUG_MAX_DIMS] = {0};
    for (int64_t k = 0; k < n; k++) {
        int64_t r = k;
        for (int d = ndim - 1; d >= 0; d--) {
            idx[d] = r % shape[d];
            r /= shape[d];
        }
        aug_scalar v;
        assert_int_equal(aug_tensor_get_item(t, idx, &v), AUG_OK);
        assert_int_equal(v.v.i, want[k]);
    }
}

static aug_index I(int64_t i) { return (aug_index){.kind = AUG_INDEX_INT, .i = i}; }
static aug_index S(int has_start, int64_t start, int has_stop, int64_t stop, int64_t step) {
    return (aug_index){.kind = AUG_INDEX_SLICE, .start = start, .stop = stop, .step = step,
                       .has_start = has_start, .has_stop = has_stop};
}
static const aug_index ALL = {.kind = AUG_INDEX_SLICE, .step = 1};
static const aug_index NEW = {.kind = AUG_INDEX_NEWAXIS};
static const aug_index ELL = {.kind = AUG_INDEX_ELLIPSIS};

static void test_slices_against_python(void **state) {
    (void)state;
    size_t k = 0;
    for (size_t a = 0; a < sizeof NS / sizeof *NS; a++) {
        aug_tensor *t = arange(1, &NS[a]);
        for (size_t b = 0; b < 11; b++)
            for (size_t c = 0; c < 11; c++)
                for (size_t s = 0; s < 8; s++, k++) {
                    char ch = SLICE_TABLE[k];
                    int mask = ch <= '9' ? ch - '0' : ch - 'A' + 10;
                    int32_t want[8];
                    int64_t cnt = 0;
                    for (int i = 0; i < 5; i++)
                        if (mask & (1 << i)) want[cnt++] = i;
                    if (STEPS[s] < 0)
                        for (int64_t i = 0; i < cnt / 2; i++) {
                            int32_t tmp = want[i];
                            want[i] = want[cnt - 1 - i];
                            want[cnt - 1 - i] = tmp;
                        }
                    aug_index ix = S(VAL_HAS[b], VALS[b], VAL_HAS[c], VALS[c], STEPS[s]);
                    aug_tensor *v = aug_tensor_index(t, 1, &ix);
                    assert_non_null(v);
                    expect_values(v, 1, &cnt, want);
                    aug_tensor_free(v);
                }
        aug_tensor_free(t);
    }
    assert_int_equal(k, sizeof SLICE_TABLE - 1);
}

static void test_index_multi(void **state) {
    (void)state;
    int64_t shape[3] = {3, 4, 5};
    aug_tensor *t = arange(3, shape);

    aug_index a[3] = {I(1), S(0, 0, 0, 0, -2), S(1, 3, 1, 0, -1)}; /* t[1, ::-2, 3:0:-1] */
    aug_tensor *v = aug_tensor_index(t, 3, a);
    int64_t sa[2] = {2, 3};
    int32_t wa[6] = {38, 37, 36, 28, 27, 26};
    expect_values(v, 2, sa, wa);
    assert_int_equal(v->strides[0], -10);
    assert_int_equal(v->strides[1], -1);
    aug_tensor_free(v);

    aug_index b[2] = {ELL, I(2)}; /* t[..., 2] */
    v = aug_tensor_index(t, 2, b);
    int64_t sb[2] = {3, 4};
    int32_t wb[12];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) wb[i * 4 + j] = i * 20 + j * 5 + 2;
    expect_values(v, 2, sb, wb);
    aug_tensor_free(v);

    aug_index c[5] = {NEW, I(1), ELL, NEW, I(-1)}; /* t[None, 1, ..., None, -1] */
    v = aug_tensor_index(t, 5, c);
    int64_t sc[3] = {1, 4, 1};
    int32_t wc[4] = {24, 29, 34, 39};
    expect_values(v, 3, sc, wc);
    aug_tensor_free(v);

    aug_index d[3] = {I(1), I(1), I(3)}; /* t[1, 1, 3] is 0-d */
    v = aug_tensor_index(t, 3, d);
    int32_t wd[1] = {28};
    expect_values(v, 0, NULL, wd);
    aug_tensor_free(v);

    aug_index e[3] = {ALL, NEW, S(1, 10, 0, 0, 1)}; /* t[:, None, 10:] */
    v = aug_tensor_index(t, 3, e);
    int64_t se[4] = {3, 1, 0, 5};
    expect_values(v, 4, se, NULL);
    aug_tensor_free(v);

    aug_index f[3] = {I(0), ELL, I(0)}; /* t[0, ..., 0] */
    v = aug_tensor_index(t, 3, f);
    int64_t sf[1] = {4};
    int32_t wf[4] = {0, 5, 10, 15};
    expect_values(v, 1, sf, wf);
    aug_tensor_free(v);

    aug_index g[1] = {I(-1)}; /* t[-1] */
    v = aug_tensor_index(t, 1, g);
    int64_t sg[2] = {4, 5};
    int32_t wg[20];
    for (int i = 0; i < 20; i++) wg[i] = 40 + i;
    expect_values(v, 2, sg, wg);
    /* a view shares memory with its base */
    ((int32_t *)aug_tensor_ptr(v))[0] = -7;
    int64_t i40[3] = {2, 0, 0};
    aug_scalar x;
    aug_tensor_get_item(t, i40, &x);
    assert_int_equal(x.v.i, -7);
    ((int32_t *)aug_tensor_ptr(v))[0] = 40;
    aug_tensor_free(v);

    v = aug_tensor_index(t, 0, NULL); /* t[()] and t[...] are the whole tensor */
    int32_t wall[60];
    for (int i = 0; i < 60; i++) wall[i] = i;
    expect_values(v, 3, shape, wall);
    aug_tensor_free(v);
    aug_index h[2] = {ELL, NEW}; /* t[..., None] */
    v = aug_tensor_index(t, 2, h);
    int64_t sh[4] = {3, 4, 5, 1};
    expect_values(v, 4, sh, wall);
    aug_tensor_free(v);
    aug_tensor_free(t);
}

static void test_index_errors(void **state) {
    (void)state;
    int64_t shape[2] = {3, 4};
    aug_tensor *t = arange(2, shape);
    aug_index a[1] = {I(3)};
    NULL_ERR(aug_tensor_index(t, 1, a), AUG_ERR_INDEX, "aug_tensor_index: index 3 is out of bounds for axis 0 with size 3");
    aug_index b[2] = {I(0), I(-5)};
    NULL_ERR(aug_tensor_index(t, 2, b), AUG_ERR_INDEX, "aug_tensor_index: index -5 is out of bounds for axis 1 with size 4");
    aug_index c[3] = {I(0), I(0), I(0)};
    NULL_ERR(aug_tensor_index(t, 3, c), AUG_ERR_INDEX,
             "aug_tensor_index: too many indices for tensor: tensor is 2-dimensional, but 3 were indexed");
    aug_index c3[4] = {ALL, ALL, NEW, ALL};
    NULL_ERR(aug_tensor_index(t, 4, c3), AUG_ERR_INDEX,
             "aug_tensor_index: too many indices for tensor: tensor is 2-dimensional, but 3 were indexed");
    aug_index d[1] = {S(0, 0, 0, 0, 0)};
    NULL_ERR(aug_tensor_index(t, 1, d), AUG_ERR_VALUE, "aug_tensor_index: slice step cannot be zero");
    aug_index d2[2] = {I(3), S(0, 0, 0, 0, 0)}; /* faults reported in index order (NumPy) */
    NULL_ERR(aug_tensor_index(t, 2, d2), AUG_ERR_INDEX, "aug_tensor_index: index 3 is out of bounds for axis 0 with size 3");
    aug_index d3[2] = {S(0, 0, 0, 0, 0), I(4)};
    NULL_ERR(aug_tensor_index(t, 2, d3), AUG_ERR_VALUE, "aug_tensor_index: slice step cannot be zero");
    aug_index e[2] = {ELL, ELL};
    NULL_ERR(aug_tensor_index(t, 2, e), AUG_ERR_VALUE, "aug_tensor_index: an index can only have a single ellipsis ('...')");
    aug_index f[1] = {{.kind = (aug_index_kind)9}};
    NULL_ERR(aug_tensor_index(t, 1, f), AUG_ERR_VALUE, "aug_tensor_index: invalid index kind 9 at position 0");
    NULL_ERR(aug_tensor_index(NULL, 1, a), AUG_ERR_VALUE, "aug_tensor_index: tensor is NULL");
    NULL_ERR(aug_tensor_index(t, 1, NULL), AUG_ERR_VALUE, "aug_tensor_index: index array is NULL");
    NULL_ERR(aug_tensor_index(t, -1, a), AUG_ERR_VALUE, "aug_tensor_index: number of indices -1 is negative");
    aug_index many[7] = {NEW, NEW, NEW, NEW, NEW, NEW, NEW};
    NULL_ERR(aug_tensor_index(t, 7, many), AUG_ERR_INDEX,
             "aug_tensor_index: the result would have 9 dimensions (at most 8 are supported)");
    aug_tensor *v = aug_tensor_index(t, 6, many); /* 8 is fine */
    assert_non_null(v);
    assert_int_equal(v->ndim, 8);
    aug_tensor_free(v);
    aug_tensor_free(t);
}

static void test_index_layout(void **state) {
    (void)state;
    int64_t shape[3] = {4, 6, 3};
    aug_tensor *t = arange(3, shape);
    aug_tensor_set_layout(t, "HWC");
    aug_index a[2] = {S(1, 1, 0, 0, 1), S(0, 0, 0, 0, 2)};
    aug_tensor *v = aug_tensor_index(t, 2, a);
    assert_string_equal(v->layout, "HWC");
    aug_tensor_free(v);
    aug_index b[1] = {I(0)};
    v = aug_tensor_index(t, 1, b);
    assert_string_equal(v->layout, "WC");
    aug_tensor_free(v);
    aug_index c[2] = {ELL, I(1)};
    v = aug_tensor_index(t, 2, c);
    assert_string_equal(v->layout, "HW");
    aug_tensor_free(v);
    aug_index d[1] = {NEW};
    v = aug_tensor_index(t, 1, d);
    assert_string_equal(v->layout, "");
    aug_tensor_free(v);
    aug_index e[3] = {I(0), I(0), I(0)};
    v = aug_tensor_index(t, 3, e);
    assert_string_equal(v->layout, "");
    aug_tensor_free(v);
    aug_tensor_free(t);
}

static void test_permute(void **state) {
    (void)state;
    int64_t shape[3] = {2, 3, 4};
    aug_tensor *t = arange(3, shape);
    aug_tensor_set_layout(t, "HWC");
    int perm[3] = {2, 0, -2};
    aug_tensor *p = aug_tensor_permute(t, perm);
    assert_non_null(p);
    assert_string_equal(p->layout, "CHW");
    int64_t sp[3] = {4, 2, 3};
    int32_t w[24];
    for (int c = 0; c < 4; c++)
        for (int h = 0; h < 2; h++)
            for (int x = 0; x < 3; x++) w[c * 6 + h * 3 + x] = h * 12 + x * 4 + c;
    expect_values(p, 3, sp, w);
    aug_tensor_free(p);
    int rep[3] = {0, 0, 1};
    NULL_ERR(aug_tensor_permute(t, rep), AUG_ERR_VALUE, "aug_tensor_permute: repeated axis 0 in permutation");
    int oob[3] = {0, 1, 3};
    NULL_ERR(aug_tensor_permute(t, oob), AUG_ERR_VALUE,
             "aug_tensor_permute: axis 3 is out of bounds for tensor of dimension 3");
    NULL_ERR(aug_tensor_permute(t, NULL), AUG_ERR_VALUE, "aug_tensor_permute: perm is NULL");
    NULL_ERR(aug_tensor_permute(NULL, perm), AUG_ERR_VALUE, "aug_tensor_permute: tensor is NULL");
    aug_tensor_free(t);
}

static void test_reshape(void **state) {
    (void)state;
    int64_t shape[2] = {2, 3};
    aug_tensor *t = arange(2, shape);
    aug_tensor_set_layout(t, "HW");
    int64_t s1[2] = {3, -1};
    aug_tensor *r = aug_tensor_reshape(t, 2, s1);
    assert_non_null(r);
    int64_t w1[2] = {3, 2};
    int32_t vals[6] = {0, 1, 2, 3, 4, 5};
    expect_values(r, 2, w1, vals);
    assert_string_equal(r->layout, "HW"); /* same ndim: kept */
    assert_int_equal(r->strides[0], 2);
    aug_tensor_free(r);
    int64_t s2[3] = {-1, 1, 2};
    r = aug_tensor_reshape(t, 3, s2);
    int64_t w2[3] = {3, 1, 2};
    expect_values(r, 3, w2, vals);
    assert_string_equal(r->layout, "");
    aug_tensor_free(r);
    int64_t s3[1] = {6};
    r = aug_tensor_reshape(t, 1, s3);
    expect_values(r, 1, s3, vals);
    aug_tensor_free(r);

    int64_t bad[2] = {4, -1};
    NULL_ERR(aug_tensor_reshape(t, 2, bad), AUG_ERR_VALUE, "aug_tensor_reshape: cannot reshape tensor of size 6 into shape (4, -1)");
    int64_t bad2[2] = {4, 2};
    NULL_ERR(aug_tensor_reshape(t, 2, bad2), AUG_ERR_VALUE, "aug_tensor_reshape: cannot reshape tensor of size 6 into shape (4, 2)");
    int64_t two[2] = {-1, -1};
    NULL_ERR(aug_tensor_reshape(t, 2, two), AUG_ERR_VALUE,
             "aug_tensor_reshape: can only specify one unknown dimension (-1) in shape (-1, -1)");
    int64_t neg[2] = {-2, -3};
    NULL_ERR(aug_tensor_reshape(t, 2, neg), AUG_ERR_VALUE, "aug_tensor_reshape: negative extent -2 in shape (-2, -3)");
    int64_t big[2] = {INT64_C(1) << 62, 4};
    NULL_ERR(aug_tensor_reshape(t, 2, big), AUG_ERR_VALUE,
             "aug_tensor_reshape: cannot reshape tensor of size 6 into shape (4611686018427387904, 4)");
    int64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 6};
    NULL_ERR(aug_tensor_reshape(t, 9, nine), AUG_ERR_VALUE, "aug_tensor_reshape: ndim 9 is out of range (0 to 8)");
    NULL_ERR(aug_tensor_reshape(t, 2, NULL), AUG_ERR_VALUE, "aug_tensor_reshape: shape is NULL");
    NULL_ERR(aug_tensor_reshape(NULL, 2, s1), AUG_ERR_VALUE, "aug_tensor_reshape: tensor is NULL");
    r = aug_tensor_reshape(t, 8, nine + 1);
    assert_non_null(r);
    aug_tensor_free(r);
    /* An empty tensor's new shape follows NumPy's size rule too (the zero extent does not count). */
    aug_tensor *empty = aug_tensor_zeros(1, (int64_t[]){0}, AUG_INT16, CPU);
    int64_t zbig[3] = {0, INT64_C(1) << 62, 4};
    NULL_ERR(aug_tensor_reshape(empty, 3, zbig), AUG_ERR_VALUE,
             "aug_tensor_reshape: array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum "
             "possible size (shape (0, 4611686018427387904, 4), dtype int16)");
    int64_t zok[3] = {0, INT64_C(1) << 40, 4};
    r = aug_tensor_reshape(empty, 3, zok);
    assert_non_null(r);
    aug_tensor_free(r);
    aug_tensor_free(empty);

    int perm[2] = {1, 0};
    aug_tensor *p = aug_tensor_permute(t, perm);
    NULL_ERR(aug_tensor_reshape(p, 1, s3), AUG_ERR_VALUE,
             "aug_tensor_reshape: tensor is not contiguous; call contiguous() first");
    aug_tensor_free(p);
    aug_tensor_free(t);

    aug_tensor *one = arange(0, NULL); /* 0-d <-> (1, 1) */
    int64_t s11[2] = {1, -1};
    r = aug_tensor_reshape(one, 2, s11);
    int64_t w11[2] = {1, 1};
    expect_values(r, 2, w11, vals);
    aug_tensor *back = aug_tensor_reshape(r, 0, NULL);
    expect_values(back, 0, NULL, vals);
    aug_tensor_free(back);
    aug_tensor_free(r);
    aug_tensor_free(one);

    int64_t zs[2] = {0, 3};
    aug_tensor *z = arange(2, zs);
    int64_t zr[2] = {-1, 3};
    r = aug_tensor_reshape(z, 2, zr);
    assert_non_null(r);
    assert_int_equal(r->shape[0], 0);
    aug_tensor_free(r);
    int64_t zr2[2] = {0, -1}; /* ambiguous, as in NumPy */
    NULL_ERR(aug_tensor_reshape(z, 2, zr2), AUG_ERR_VALUE, "aug_tensor_reshape: cannot reshape tensor of size 0 into shape (0, -1)");
    aug_tensor_free(z);
}

static void test_broadcast_to(void **state) {
    (void)state;
    int64_t shape[2] = {3, 1};
    aug_tensor *t = arange(2, shape);
    aug_tensor_set_layout(t, "HW");
    int64_t to[3] = {2, 3, 4};
    aug_tensor *b = aug_tensor_broadcast_to(t, 3, to);
    assert_non_null(b);
    assert_int_equal(b->strides[0], 0);
    assert_int_equal(b->strides[1], 1);
    assert_int_equal(b->strides[2], 0);
    assert_string_equal(b->layout, "");
    int32_t w[24];
    for (int i = 0; i < 24; i++) w[i] = (i / 4) % 3;
    expect_values(b, 3, to, w);
    aug_tensor_free(b);
    int64_t same[2] = {3, 5};
    b = aug_tensor_broadcast_to(t, 2, same);
    assert_string_equal(b->layout, "HW");
    aug_tensor_free(b);
    int64_t bad[3] = {2, 3, 2};
    int64_t s32[2] = {3, 2};
    aug_tensor *t2 = arange(2, s32);
    NULL_ERR(aug_tensor_broadcast_to(t2, 3, to), AUG_ERR_VALUE,
             "aug_tensor_broadcast_to: cannot broadcast shape (3, 2) to (2, 3, 4)");
    NULL_ERR(aug_tensor_broadcast_to(t2, 1, bad + 2), AUG_ERR_VALUE,
             "aug_tensor_broadcast_to: cannot broadcast shape (3, 2) to (2,)");
    int64_t neg[2] = {3, -1};
    NULL_ERR(aug_tensor_broadcast_to(t2, 2, neg), AUG_ERR_VALUE,
             "aug_tensor_broadcast_to: negative extent -1 in shape (3, -1)");
    NULL_ERR(aug_tensor_broadcast_to(t2, 2, NULL), AUG_ERR_VALUE, "aug_tensor_broadcast_to: shape is NULL");
    NULL_ERR(aug_tensor_broadcast_to(NULL, 2, same), AUG_ERR_VALUE, "aug_tensor_broadcast_to: tensor is NULL");
    NULL_ERR(aug_tensor_broadcast_to(t2, 9, same), AUG_ERR_VALUE, "aug_tensor_broadcast_to: ndim 9 is out of range (0 to 8)");
    aug_tensor_free(t2);
    int64_t z[2] = {3, 0};
    b = aug_tensor_broadcast_to(t, 2, z);
    assert_non_null(b);
    assert_int_equal(aug_tensor_size(b), 0);
    aug_tensor_free(b);
    aug_tensor_free(t);
}

static void test_contiguous(void **state) {
    (void)state;
    int64_t shape[3] = {3, 4, 5};
    aug_tensor *t = arange(3, shape);
    aug_tensor *c = aug_tensor_contiguous(t);
    assert_ptr_equal(aug_tensor_ptr(c), aug_tensor_ptr(t)); /* already packed: a view */
    aug_tensor_free(c);
    aug_tensor_set_layout(t, "HWC");
    int perm[3] = {2, 0, 1};
    aug_tensor *p = aug_tensor_permute(t, perm);
    aug_index ix[1] = {S(0, 0, 0, 0, -1)};
    aug_tensor *pr = aug_tensor_index(p, 1, ix); /* negative stride too */
    c = aug_tensor_contiguous(pr);
    assert_non_null(c);
    assert_true(aug_tensor_is_contiguous(c));
    assert_ptr_not_equal(aug_tensor_ptr(c), aug_tensor_ptr(t));
    assert_string_equal(c->layout, "CHW");
    int64_t sc[3] = {5, 3, 4};
    int32_t w[60];
    for (int k = 0; k < 5; k++)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 4; j++) w[k * 12 + i * 4 + j] = i * 20 + j * 5 + (4 - k);
    expect_values(c, 3, sc, w);
    const int32_t *raw = aug_tensor_ptr(c);
    for (int i = 0; i < 60; i++) assert_int_equal(raw[i], w[i]);
    aug_tensor_free(c);
    aug_tensor_free(pr);
    aug_tensor_free(p);
    aug_tensor_free(t);
    NULL_ERR(aug_tensor_contiguous(NULL), AUG_ERR_VALUE, "aug_tensor_contiguous: tensor is NULL");
    NULL_ERR(aug_tensor_view(NULL), AUG_ERR_VALUE, "aug_tensor_view: tensor is NULL");
}

/* Found by tests/fuzz/fuzz_view.c. A zero-size tensor over foreign storage may
 * have any strides (none is ever used to step): indexing it must not multiply
 * them into a signed overflow (UBSan). broadcast_to follows NumPy's size rule. */
static void free_ctx(void *p) { free(p); }

static void test_fuzz_regressions(void **state) {
    void *mem = malloc(16);
    assert_non_null(mem);
    aug_storage *s = aug_storage_wrap(mem, 16, CPU, free_ctx, mem);
    aug_tensor *t = aug_tensor_from_storage(s, 0, 2, (int64_t[]){3, 0}, (int64_t[]){INT64_MAX, 1}, AUG_UINT8);
    aug_storage_release(s);
    assert_non_null(t);
    aug_scalar v;
    aug_clear_error();
    assert_int_equal(aug_tensor_get_item(t, (int64_t[]){2, 0}, &v), AUG_ERR_INDEX);
    assert_string_equal(aug_last_error(), "aug_tensor_get_item: index 0 is out of bounds for axis 1 with size 0");
    aug_index i2 = {.kind = AUG_INDEX_INT, .i = 2};
    aug_tensor *r = aug_tensor_index(t, 1, &i2);
    assert_non_null(r);
    assert_int_equal(r->ndim, 1);
    assert_int_equal(r->shape[0], 0);
    assert_int_equal(r->byte_offset, 0);
    aug_tensor_free(r);
    aug_index sl = {.kind = AUG_INDEX_SLICE, .start = 2, .stop = 3, .step = 1, .has_start = 1, .has_stop = 1};
    r = aug_tensor_index(t, 1, &sl);
    assert_non_null(r);
    assert_int_equal(r->shape[0], 1);
    assert_int_equal(r->shape[1], 0);
    assert_int_equal(r->byte_offset, 0);
    aug_tensor_free(r);
    aug_tensor_free(t);

    aug_tensor *one = aug_tensor_zeros(1, (int64_t[]){1}, AUG_INT8, CPU);
    NULL_ERR(aug_tensor_broadcast_to(one, 2, (int64_t[]){INT64_MAX, 2}), AUG_ERR_VALUE,
             "aug_tensor_broadcast_to: array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size "
             "(shape (9223372036854775807, 2), dtype int8)");
    aug_tensor *f8 = aug_tensor_zeros(1, (int64_t[]){1}, AUG_FLOAT64, CPU);
    /* 2^61 float64 values are 2^64 bytes even though one extent is 0 (NumPy's rule). */
    NULL_ERR(aug_tensor_broadcast_to(f8, 2, (int64_t[]){(int64_t)1 << 61, 0}), AUG_ERR_VALUE,
             "aug_tensor_broadcast_to: array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size "
             "(shape (2305843009213693952, 0), dtype float64)");
    r = aug_tensor_broadcast_to(one, 3, (int64_t[]){(int64_t)1 << 61, 3, 1});
    assert_non_null(r);
    assert_int_equal(aug_tensor_size(r), (int64_t)3 << 61);
    aug_tensor_free(r);
    aug_tensor_free(f8);
    aug_tensor_free(one);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slices_against_python), cmocka_unit_test(test_index_multi),
        cmocka_unit_test(test_index_errors),          cmocka_unit_test(test_index_layout),
        cmocka_unit_test(test_permute),               cmocka_unit_test(test_reshape),
        cmocka_unit_test(test_broadcast_to), cmocka_unit_test(test_fuzz_regressions),          cmocka_unit_test(test_contiguous),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
