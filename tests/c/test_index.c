/* test_index.c: aug_tensor_index_get / aug_tensor_index_put (aug/index.h), NumPy
 * indexing with index tensors, against NumPy's results written out by hand for
 * A = arange(24).reshape(2, 3, 4): mixed advanced and basic items (adjacent,
 * separated, ints next to arrays, an Ellipsis of no dimension separating),
 * masks, negative steps, None, broadcast index arrays, index dtypes, empty
 * results, 0-d indices, views for basic indexing, writes (scalars, broadcast
 * values, repeated indices, the one-mask WHERE path, partly broadcast values),
 * and the errors with their messages. Every case runs on the CPU and, when one
 * is present (AUG_CUDA_BACKEND=emu), on cuda:0 with host index tensors. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "aug/aug.h"
#include "helpers/th_cuda.h"

/* ---- helpers ----------------------------------------------------------------------- */

static aug_tensor *from_i64(aug_dtype dt, aug_device dev, int ndim, const int64_t *shape, const int64_t *vals) {
    aug_tensor *h = aug_tensor_empty(ndim, shape, AUG_INT64, CPU), *out = NULL;
    assert_non_null(h);
    assert_int_equal(aug_tensor_write(h, vals, (size_t)aug_tensor_size(h) * 8), AUG_OK);
    assert_int_equal(aug_cast(h, dt, &out), AUG_OK);
    aug_tensor_free(h);
    if (dev.type == AUG_DEVICE_CPU) return out;
    aug_tensor *d = aug_tensor_to(out, dev);
    aug_tensor_free(out);
    assert_non_null(d);
    return d;
}

/* A = arange(24).reshape(2, 3, 4), int32, on dev. */
static aug_tensor *arange_a(aug_device dev) {
    int64_t v[24];
    for (int i = 0; i < 24; i++) v[i] = i;
    return from_i64(AUG_INT32, dev, 3, (int64_t[]){2, 3, 4}, v);
}

static aug_tensor *ix1(aug_dtype dt, int n, const int64_t *v) { return from_i64(dt, CPU, 1, (int64_t[]){n}, v); }

static void expect(const char *what, const aug_tensor *t, int ndim, const int64_t *shape, const int64_t *vals) {
    assert_non_null(t);
    if (t->ndim != ndim) fail_msg("%s: ndim %d, want %d", what, t->ndim, ndim);
    for (int d = 0; d < ndim; d++)
        if (t->shape[d] != shape[d]) fail_msg("%s: extent %d is %lld, want %lld", what, d, (long long)t->shape[d],
                                              (long long)shape[d]);
    aug_tensor *c = NULL;
    assert_int_equal(aug_cast(t, AUG_INT64, &c), AUG_OK);
    int64_t n = aug_tensor_size(c), got[64];
    assert_true(n <= 64);
    assert_int_equal(aug_tensor_read(c, got, (size_t)n * 8, 1), AUG_OK);
    for (int64_t i = 0; i < n; i++)
        if (got[i] != vals[i]) fail_msg("%s: element %lld is %lld, want %lld", what, (long long)i, (long long)got[i],
                                        (long long)vals[i]);
    aug_tensor_free(c);
}

static aug_tensor *get(const aug_tensor *t, int n, const aug_index_item *items) {
    aug_tensor *out = NULL;
    if (aug_tensor_index_get(t, n, items, &out) != AUG_OK) fail_msg("unexpected error: %s", aug_last_error());
    return out;
}

static void get_error(const aug_tensor *t, int n, const aug_index_item *items, aug_status want, const char *msg) {
    aug_tensor *out = NULL;
    assert_int_equal(aug_tensor_index_get(t, n, items, &out), want);
    assert_null(out);
    assert_string_equal(aug_last_error(), msg);
}

#define I(v) ((aug_index_item){.kind = AUG_INDEX_INT, .i = (v)})
#define ALL ((aug_index_item){.kind = AUG_INDEX_SLICE, .step = 1})
#define STEP(s) ((aug_index_item){.kind = AUG_INDEX_SLICE, .step = (s)})
#define NEW ((aug_index_item){.kind = AUG_INDEX_NEWAXIS})
#define ELL ((aug_index_item){.kind = AUG_INDEX_ELLIPSIS})
#define TT(x) ((aug_index_item){.kind = AUG_INDEX_TENSOR, .tensor = (x)})
#define L(...) (int64_t[]){__VA_ARGS__}
#define EXPECT(what, t, nd, shape, ...) expect(what, t, nd, shape, L(__VA_ARGS__))

static int ndevices(aug_device *devs) {
    devs[0] = CPU;
    if (!th_have_cuda()) return 1;
    devs[1] = TH_CUDA0;
    return 2;
}

/* ---- reading --------------------------------------------------------------------- */

static void test_get_mixed(void **state) {
    (void)state;
    aug_device devs[2];
    for (int dv = 0, nd = ndevices(devs); dv < nd; dv++) {
        aug_tensor *A = arange_a(devs[dv]), *r;
        aug_tensor *i20 = ix1(AUG_INT64, 2, L(2, 0)), *i01 = ix1(AUG_INT64, 2, L(0, 1)), *i12 = ix1(AUG_INT32, 2, L(1, 2));
        aug_tensor *i02 = ix1(AUG_INT64, 2, L(0, 2)), *i13 = ix1(AUG_INT64, 2, L(1, 3)), *i201 = ix1(AUG_INT8, 3, L(2, 0, 1));
        aug_tensor *i10 = ix1(AUG_INT64, 2, L(1, 0)), *i3 = ix1(AUG_INT64, 1, L(3)), *i0 = ix1(AUG_INT64, 1, L(0));
        aug_tensor *i1 = ix1(AUG_INT64, 1, L(1)), *m1 = ix1(AUG_INT64, 1, L(-1)), *m3 = ix1(AUG_INT64, 1, L(-3));
        aug_tensor *col = from_i64(AUG_INT64, CPU, 2, L(2, 1), L(0, 1)), *row = from_i64(AUG_INT16, CPU, 2, L(1, 3), L(0, 1, 2));
        aug_tensor *u10 = ix1(AUG_UINT8, 2, L(1, 0)), *s3 = ix1(AUG_INT16, 1, L(3)), *g3 = ix1(AUG_UINT64, 1, L(3));

        r = get(A, 2, (aug_index_item[]){ALL, TT(i20)});
        EXPECT("A[:, [2, 0]]", r, 3, L(2, 2, 4), 8, 9, 10, 11, 0, 1, 2, 3, 20, 21, 22, 23, 12, 13, 14, 15);
        assert_true(r->device.type == A->device.type && r->storage != A->storage), aug_tensor_free(r);
        r = get(A, 3, (aug_index_item[]){TT(i01), ALL, TT(i12)}); /* separated: B first */
        EXPECT("A[[0, 1], :, [1, 2]]", r, 2, L(2, 3), 1, 5, 9, 14, 18, 22), aug_tensor_free(r);
        r = get(A, 3, (aug_index_item[]){ALL, TT(i02), TT(i13)}); /* adjacent: B in place */
        EXPECT("A[:, [0, 2], [1, 3]]", r, 2, L(2, 2), 1, 11, 13, 23), aug_tensor_free(r);
        r = get(A, 2, (aug_index_item[]){TT(col), TT(row)}); /* broadcast (2, 1) with (1, 3) */
        EXPECT("A[[[0], [1]], [[0, 1, 2]]]", r, 3, L(2, 3, 4), 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
               17, 18, 19, 20, 21, 22, 23), aug_tensor_free(r);
        r = get(A, 3, (aug_index_item[]){I(1), TT(i20), I(1)}); /* ints next to an array are advanced */
        EXPECT("A[1, [2, 0], 1]", r, 1, L(2), 21, 13), aug_tensor_free(r);
        r = get(A, 3, (aug_index_item[]){STEP(-1), TT(i201), STEP(2)});
        EXPECT("A[::-1, [2, 0, 1], ::2]", r, 3, L(2, 3, 2), 20, 22, 12, 14, 16, 18, 8, 10, 0, 2, 4, 6), aug_tensor_free(r);
        r = get(A, 2, (aug_index_item[]){NEW, TT(i10)});
        EXPECT("A[None, [1, 0]]", r, 4, L(1, 2, 3, 4), 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 0, 1, 2, 3, 4, 5,
               6, 7, 8, 9, 10, 11), aug_tensor_free(r);
        r = get(A, 2, (aug_index_item[]){ELL, TT(i3)});
        EXPECT("A[..., [3]]", r, 3, L(2, 3, 1), 3, 7, 11, 15, 19, 23), aug_tensor_free(r);
        r = get(A, 4, (aug_index_item[]){ALL, TT(i0), ELL, TT(i1)}); /* an Ellipsis of no dims separates */
        EXPECT("A[:, [0], ..., [1]]", r, 2, L(1, 2), 1, 13), aug_tensor_free(r);
        r = get(A, 2, (aug_index_item[]){TT(m1), TT(m3)});
        EXPECT("A[[-1], [-3]]", r, 2, L(1, 4), 12, 13, 14, 15), aug_tensor_free(r);
        r = get(A, 3, (aug_index_item[]){TT(u10), ALL, TT(s3)}); /* uint8 and int16 indices */
        EXPECT("A[uint8 [1, 0], :, int16 [3]]", r, 2, L(2, 3), 15, 19, 23, 3, 7, 11), aug_tensor_free(r);
        r = get(A, 3, (aug_index_item[]){I(0), I(0), TT(g3)});
        EXPECT("A[0, 0, uint64 [3]]", r, 1, L(1), 3), aug_tensor_free(r);

        aug_tensor *all[] = {i20, i01, i12, i02, i13, i201, i10, i3, i0, i1, m1, m3, col, row, u10, s3, g3, A};
        for (size_t k = 0; k < sizeof all / sizeof *all; k++) aug_tensor_free(all[k]);
    }
}

static void test_get_masks(void **state) {
    (void)state;
    aug_device devs[2];
    for (int dv = 0, nd = ndevices(devs); dv < nd; dv++) {
        aug_tensor *A = arange_a(devs[dv]), *r, *gt = NULL, *m5 = NULL;
        assert_int_equal(aug_binary_scalar(AUG_OP_GT, A, aug_scalar_int(20), &gt), AUG_OK); /* on A's device */
        r = get(A, 1, (aug_index_item[]){TT(gt)});
        EXPECT("A[A > 20]", r, 1, L(3), 21, 22, 23), aug_tensor_free(r);
        /* (3, 4) mask of A[1] % 3 == 0, after an int */
        aug_tensor *M = from_i64(AUG_BOOL, CPU, 2, L(3, 4), L(1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0));
        r = get(A, 2, (aug_index_item[]){I(1), TT(M)});
        EXPECT("A[1, M]", r, 1, L(4), 12, 15, 18, 21), aug_tensor_free(r);
        /* a mask over dims that do not merge (a strided view), and A % 5 == 0 over all */
        aug_tensor *V = get(A, 3, (aug_index_item[]){ALL, ALL, STEP(2)});
        aug_tensor *MV = from_i64(AUG_BOOL, CPU, 3, L(2, 3, 2), L(1, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0));
        r = get(V, 1, (aug_index_item[]){TT(MV)});
        EXPECT("A[:, :, ::2][MV]", r, 1, L(4), 0, 6, 16, 18), aug_tensor_free(r);
        assert_int_equal(aug_binary_scalar(AUG_OP_MOD, A, aug_scalar_int(5), &m5), AUG_OK);
        aug_tensor *z = NULL;
        assert_int_equal(aug_binary_scalar(AUG_OP_EQ, m5, aug_scalar_int(0), &z), AUG_OK);
        r = get(A, 1, (aug_index_item[]){TT(z)});
        EXPECT("A[A % 5 == 0]", r, 1, L(5), 0, 5, 10, 15, 20), aug_tensor_free(r);
        /* a 2-d mask after a slice: A[:, M2] */
        aug_tensor *M2 = from_i64(AUG_BOOL, CPU, 2, L(3, 4), L(0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0));
        r = get(A, 2, (aug_index_item[]){ALL, TT(M2)});
        EXPECT("A[:, M2]", r, 2, L(2, 2), 1, 10, 13, 22), aug_tensor_free(r);
        /* no entry selected: empty results */
        aug_tensor *none = from_i64(AUG_BOOL, CPU, 1, L(3), L(0, 0, 0)), *e = ix1(AUG_INT64, 0, L(0));
        r = get(A, 2, (aug_index_item[]){ALL, TT(none)});
        EXPECT("A[:, [False] * 3]", r, 3, L(2, 0, 4), 0), aug_tensor_free(r);
        r = get(A, 1, (aug_index_item[]){TT(e)});
        EXPECT("A[[]]", r, 3, L(0, 3, 4), 0), aug_tensor_free(r);
        aug_tensor *all[] = {gt, M, V, MV, m5, z, M2, none, e, A};
        for (size_t k = 0; k < sizeof all / sizeof *all; k++) aug_tensor_free(all[k]);
    }
}

/* Without index tensors: views; a 0-d integer tensor is an int. */
static void test_get_views(void **state) {
    (void)state;
    aug_tensor *A = arange_a(CPU), *zero_d = from_i64(AUG_INT16, CPU, 0, NULL, L(-1));
    aug_tensor *r = get(A, 2, (aug_index_item[]){TT(zero_d), STEP(-1)});
    assert_true(r->storage == A->storage);
    EXPECT("A[np.int16(-1), ::-1]", r, 2, L(3, 4), 20, 21, 22, 23, 16, 17, 18, 19, 12, 13, 14, 15);
    aug_tensor_free(r);
    r = get(A, 4, (aug_index_item[]){I(1), ELL, NEW, I(-1)});
    assert_true(r->storage == A->storage);
    EXPECT("A[1, ..., None, -1]", r, 2, L(3, 1), 15, 19, 23);
    aug_tensor_free(r);
    r = get(A, 3, (aug_index_item[]){I(1), I(2), I(3)});
    EXPECT("A[1, 2, 3]", r, 0, NULL, 23);
    aug_tensor_free(r);
    aug_tensor_free(zero_d);
    aug_tensor_free(A);
}

static void test_get_errors(void **state) {
    (void)state;
    aug_tensor *A = arange_a(CPU), *out = NULL;
    aug_tensor *i02 = ix1(AUG_INT64, 2, L(0, 2)), *m5 = ix1(AUG_INT64, 1, L(-5)), *f = NULL;
    aug_tensor *b3 = from_i64(AUG_BOOL, CPU, 1, L(3), L(1, 0, 1)), *i3 = ix1(AUG_INT64, 3, L(0, 1, 0));
    aug_tensor *b0 = from_i64(AUG_BOOL, CPU, 0, NULL, L(1)), *huge = NULL;
    assert_int_equal(aug_cast(i02, AUG_FLOAT32, &f), AUG_OK);
    aug_tensor *h = ix1(AUG_UINT64, 1, L(0));
    uint64_t big = UINT64_MAX;
    assert_int_equal(aug_tensor_write(h, &big, 8), AUG_OK);
    huge = h;
    get_error(A, 1, (aug_index_item[]){TT(i02)}, AUG_ERR_INDEX,
              "aug_tensor_index_get: index 2 is out of bounds for axis 0 with size 2");
    get_error(A, 2, (aug_index_item[]){ELL, TT(m5)}, AUG_ERR_INDEX,
              "aug_tensor_index_get: index -5 is out of bounds for axis 2 with size 4");
    get_error(A, 1, (aug_index_item[]){TT(huge)}, AUG_ERR_INDEX,
              "aug_tensor_index_get: index 18446744073709551615 is out of bounds for axis 0 with size 2");
    get_error(A, 2, (aug_index_item[]){I(0), TT(f)}, AUG_ERR_INDEX,
              "aug_tensor_index_get: arrays used as indices must be of integer (or boolean) type, got float32");
    get_error(A, 1, (aug_index_item[]){TT(b3)}, AUG_ERR_INDEX,
              "aug_tensor_index_get: boolean index did not match indexed tensor along axis 0; size of axis is 2 but "
              "size of corresponding boolean axis is 3");
    get_error(A, 2, (aug_index_item[]){TT(i02), TT(i3)}, AUG_ERR_INDEX,
              "aug_tensor_index_get: shape mismatch: indexing arrays could not be broadcast together with shapes "
              "(2,) (3,)");
    get_error(A, 4, (aug_index_item[]){TT(i3), TT(i3), TT(i3), TT(i3)}, AUG_ERR_INDEX,
              "aug_tensor_index_get: too many indices for tensor: tensor is 3-dimensional, but 4 were indexed");
    get_error(A, 2, (aug_index_item[]){ELL, ELL}, AUG_ERR_INDEX,
              "aug_tensor_index_get: an index can only have a single ellipsis ('...')");
    get_error(A, 1, (aug_index_item[]){TT(b0)}, AUG_ERR_INDEX,
              "aug_tensor_index_get: a 0-d boolean index is not supported");
    get_error(A, 1, (aug_index_item[]){TT(NULL)}, AUG_ERR_VALUE,
              "aug_tensor_index_get: item 0 is an index tensor but its tensor is NULL");
    get_error(A, 1, (aug_index_item[]){I(2)}, AUG_ERR_INDEX,
              "aug_tensor_index_get: index 2 is out of bounds for axis 0 with size 2");
    out = A; /* *out must be NULL */
    assert_int_equal(aug_tensor_index_get(A, 1, (aug_index_item[]){I(0)}, &out), AUG_ERR_VALUE);
    assert_ptr_equal(out, A);
    aug_tensor *all[] = {i02, m5, f, b3, i3, b0, huge, A};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++) aug_tensor_free(all[k]);
}

/* ---- writing ----------------------------------------------------------------------- */

static void test_put(void **state) {
    (void)state;
    aug_device devs[2];
    for (int dv = 0, nd = ndevices(devs); dv < nd; dv++) {
        aug_tensor *i01 = ix1(AUG_INT64, 2, L(0, 1)), *i12 = ix1(AUG_INT64, 2, L(1, 2)), *i02 = ix1(AUG_INT64, 2, L(0, 2));
        aug_tensor *A = arange_a(devs[dv]);
        assert_int_equal(aug_tensor_index_put(A, 3, (aug_index_item[]){TT(i01), ALL, TT(i12)},
                                              aug_operand_scalar(aug_scalar_int(7))), AUG_OK);
        EXPECT("A[[0, 1], :, [1, 2]] = 7", A, 3, L(2, 3, 4), 0, 7, 2, 3, 4, 7, 6, 7, 8, 7, 10, 11, 12, 13, 7, 15, 16, 17,
               7, 19, 20, 21, 7, 23);
        aug_tensor_free(A);
        A = arange_a(devs[dv]);
        aug_tensor *v4 = from_i64(AUG_INT64, CPU, 1, L(4), L(100, -1, 300, 4)); /* a host value, broadcast */
        assert_int_equal(aug_tensor_index_put(A, 2, (aug_index_item[]){ALL, TT(i02)}, aug_operand_tensor(v4)), AUG_OK);
        EXPECT("A[:, [0, 2]] = [100, -1, 300, 4]", A, 3, L(2, 3, 4), 100, -1, 300, 4, 4, 5, 6, 7, 100, -1, 300, 4, 100,
               -1, 300, 4, 16, 17, 18, 19, 100, -1, 300, 4);
        aug_tensor_free(A);
        /* one mask over the leading dims, one value per selected row (the WHERE path) */
        A = arange_a(devs[dv]);
        aug_tensor *M2 = from_i64(AUG_BOOL, CPU, 2, L(2, 3), L(1, 0, 1, 0, 0, 1));
        aug_tensor *vm = from_i64(AUG_INT8, CPU, 1, L(4), L(-1, -2, -3, -4));
        assert_int_equal(aug_tensor_index_put(A, 1, (aug_index_item[]){TT(M2)}, aug_operand_tensor(vm)), AUG_OK);
        EXPECT("A[M2] = [-1, -2, -3, -4]", A, 3, L(2, 3, 4), -1, -2, -3, -4, 4, 5, 6, 7, -1, -2, -3, -4, 12, 13, 14,
               15, 16, 17, 18, 19, -1, -2, -3, -4);
        aug_tensor_free(A);
        /* a value partly broadcast over the index dims: (2, 1, 4) into A[[[0], [1]], [[0, 1, 2]]] */
        A = arange_a(devs[dv]);
        aug_tensor *col = from_i64(AUG_INT64, CPU, 2, L(2, 1), L(0, 1)), *row = from_i64(AUG_INT64, CPU, 2, L(1, 3), L(0, 1, 2));
        aug_tensor *v3 = from_i64(AUG_INT32, devs[dv], 3, L(2, 1, 4), L(0, 10, 20, 30, 40, 50, 60, 70));
        assert_int_equal(aug_tensor_index_put(A, 2, (aug_index_item[]){TT(col), TT(row)}, aug_operand_tensor(v3)), AUG_OK);
        EXPECT("A[[[0], [1]], [[0, 1, 2]]] = v", A, 3, L(2, 3, 4), 0, 10, 20, 30, 0, 10, 20, 30, 0, 10, 20, 30, 40, 50,
               60, 70, 40, 50, 60, 70, 40, 50, 60, 70);
        aug_tensor_free(A);
        /* repeated indices: the last write wins; saturation to the dtype; basic items only */
        aug_tensor *z = aug_tensor_zeros(1, L(4), AUG_UINT8, devs[dv]), *rep = ix1(AUG_INT64, 4, L(1, 1, 3, 1));
        aug_tensor *v5 = from_i64(AUG_INT64, CPU, 1, L(4), L(5, 6, 700, 8));
        assert_int_equal(aug_tensor_index_put(z, 1, (aug_index_item[]){TT(rep)}, aug_operand_tensor(v5)), AUG_OK);
        EXPECT("z[[1, 1, 3, 1]] = [5, 6, 700, 8]", z, 1, L(4), 0, 8, 0, 255);
        assert_int_equal(aug_tensor_index_put(z, 1, (aug_index_item[]){(aug_index_item){.kind = AUG_INDEX_SLICE,
                                              .start = 1, .has_start = 1, .stop = 3, .has_stop = 1, .step = 1}},
                                              aug_operand_scalar(aug_scalar_float(-2.5))), AUG_OK);
        EXPECT("z[1:3] = -2.5", z, 1, L(4), 0, 0, 0, 255);
        aug_tensor *all[] = {i01, i12, i02, v4, M2, vm, col, row, v3, z, rep, v5};
        for (size_t k = 0; k < sizeof all / sizeof *all; k++) aug_tensor_free(all[k]);
    }
}

static void test_put_errors(void **state) {
    (void)state;
    aug_tensor *A = arange_a(CPU), *i01 = ix1(AUG_INT64, 2, L(0, 1)), *i05 = ix1(AUG_INT64, 2, L(0, 5));
    aug_tensor *v3 = ix1(AUG_INT64, 3, L(1, 2, 3));
    assert_int_equal(aug_tensor_index_put(A, 1, (aug_index_item[]){TT(i01)}, aug_operand_tensor(v3)), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_tensor_index_put: shape mismatch: value array of shape (3,) could not "
                                          "be broadcast to indexing result of shape (2, 3, 4)");
    assert_int_equal(aug_tensor_index_put(A, 2, (aug_index_item[]){ALL, TT(i05)}, aug_operand_scalar(aug_scalar_int(1))),
                     AUG_ERR_INDEX);
    assert_string_equal(aug_last_error(), "aug_tensor_index_put: index 5 is out of bounds for axis 1 with size 3");
    EXPECT("A unchanged", A, 3, L(2, 3, 4), 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
           21, 22, 23);
    aug_tensor_free(v3), aug_tensor_free(i05), aug_tensor_free(i01), aug_tensor_free(A);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_get_mixed), cmocka_unit_test(test_get_masks),  cmocka_unit_test(test_get_views),
        cmocka_unit_test(test_get_errors), cmocka_unit_test(test_put),       cmocka_unit_test(test_put_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
