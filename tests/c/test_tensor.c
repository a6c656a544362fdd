/* test_tensor.c: tensor creation, storage lifetime, properties, layouts, element
 * access, devices, shape formatting and broadcasting of shapes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "aug/aug.h"
#include "core/tensor_impl.h"

/* Lets the allocation-failure test see NULL from malloc instead of an ASan report. */
__attribute__((visibility("default"), used)) const char *__asan_default_options(void);
__attribute__((visibility("default"), used)) const char *__asan_default_options(void) {
    return "allocator_may_return_null=1";
}

#define CPU aug_cpu_device()
#define ERR_IS(st_expr, code, text)                                    \
    do {                                                               \
        aug_clear_error();                                             \
        assert_int_equal((st_expr), (code));                           \
        assert_string_equal(aug_last_error(), (text));                 \
    } while (0)
#define NULL_ERR(expr, code, text)                                     \
    do {                                                               \
        aug_clear_error();                                             \
        assert_null(expr);                                             \
        assert_int_equal(aug_last_status(), (code));                   \
        assert_string_equal(aug_last_error(), (text));                 \
    } while (0)

static void test_empty_basic(void **state) {
    (void)state;
    int64_t shape[3] = {2, 3, 4};
    aug_tensor *t = aug_tensor_empty(3, shape, AUG_INT16, CPU);
    assert_non_null(t);
    assert_int_equal(t->ndim, 3);
    assert_int_equal(t->dtype, AUG_INT16);
    assert_int_equal(t->strides[0], 12);
    assert_int_equal(t->strides[1], 4);
    assert_int_equal(t->strides[2], 1);
    assert_int_equal(t->byte_offset, 0);
    assert_int_equal(aug_tensor_size(t), 24);
    assert_int_equal(aug_tensor_itemsize(t), 2);
    assert_true(aug_tensor_is_contiguous(t));
    assert_true(((uintptr_t)aug_tensor_ptr(t) & 63) == 0);
    assert_int_equal(t->device.type, AUG_DEVICE_CPU);
    assert_string_equal(t->layout, "");
    aug_tensor_free(t);
    aug_tensor_free(NULL);
}

static void test_empty_0d_and_zero_size(void **state) {
    (void)state;
    aug_tensor *t = aug_tensor_empty(0, NULL, AUG_FLOAT64, CPU);
    assert_non_null(t);
    assert_int_equal(t->ndim, 0);
    assert_int_equal(aug_tensor_size(t), 1);
    assert_non_null(aug_tensor_ptr(t));
    aug_tensor_free(t);

    int64_t z[3] = {3, 0, 5};
    t = aug_tensor_empty(3, z, AUG_UINT8, CPU);
    assert_non_null(t);
    assert_int_equal(aug_tensor_size(t), 0);
    assert_true(aug_tensor_is_contiguous(t));
    /* NumPy's strides for zero-size shapes: zero extents count as 1. */
    assert_int_equal(t->strides[0], 5);
    assert_int_equal(t->strides[1], 5);
    assert_int_equal(t->strides[2], 1);
    assert_non_null(aug_tensor_ptr(t));
    aug_tensor_free(t);
}

static void test_ndim_limits(void **state) {
    (void)state;
    int64_t s9[9] = {1, 2, 1, 2, 1, 2, 1, 2, 1};
    aug_tensor *t = aug_tensor_empty(8, s9, AUG_INT32, CPU);
    assert_non_null(t);
    assert_int_equal(aug_tensor_size(t), 16);
    aug_tensor_free(t);
    NULL_ERR(aug_tensor_empty(9, s9, AUG_INT32, CPU), AUG_ERR_VALUE, "aug_tensor_empty: ndim 9 is out of range (0 to 8)");
    NULL_ERR(aug_tensor_empty(-1, s9, AUG_INT32, CPU), AUG_ERR_VALUE, "aug_tensor_empty: ndim -1 is out of range (0 to 8)");
    NULL_ERR(aug_tensor_empty(2, NULL, AUG_INT32, CPU), AUG_ERR_VALUE, "aug_tensor_empty: shape is NULL");
    NULL_ERR(aug_tensor_zeros(9, s9, AUG_INT32, CPU), AUG_ERR_VALUE, "aug_tensor_zeros: ndim 9 is out of range (0 to 8)");
}

static void test_bad_shapes(void **state) {
    (void)state;
    int64_t neg[2] = {2, -3};
    NULL_ERR(aug_tensor_empty(2, neg, AUG_UINT8, CPU), AUG_ERR_VALUE,
             "aug_tensor_empty: negative extent -3 in shape (2, -3)");
    int64_t big[2] = {INT64_C(1) << 32, INT64_C(1) << 32}; /* 2^64 elements */
    NULL_ERR(aug_tensor_empty(2, big, AUG_UINT8, CPU), AUG_ERR_VALUE,
             "aug_tensor_empty: array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size "
             "(shape (4294967296, 4294967296), dtype uint8)");
    int64_t bytes[1] = {INT64_C(1) << 61}; /* fits in int64, but 2^64 bytes of int64 do not */
    NULL_ERR(aug_tensor_empty(1, bytes, AUG_INT64, CPU), AUG_ERR_VALUE,
             "aug_tensor_empty: array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size "
             "(shape (2305843009213693952,), dtype int64)");
    int64_t zbig[3] = {0, INT64_C(1) << 62, 4}; /* NumPy's rule: non-zero extents must fit too */
    NULL_ERR(aug_tensor_empty(3, zbig, AUG_UINT8, CPU), AUG_ERR_VALUE,
             "aug_tensor_empty: array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size "
             "(shape (0, 4611686018427387904, 4), dtype uint8)");
    int64_t s1[1] = {4};
    NULL_ERR(aug_tensor_empty(1, s1, (aug_dtype)42, CPU), AUG_ERR_TYPE, "aug_tensor_empty: invalid dtype 42");
    NULL_ERR(aug_tensor_empty(1, s1, AUG_DTYPE_AUTO, CPU), AUG_ERR_TYPE, "aug_tensor_empty: invalid dtype -1");
    /* Representable but impossible to allocate: a memory error, not a crash. */
    int64_t huge[1] = {INT64_C(1) << 61};
    aug_clear_error();
    assert_null(aug_tensor_empty(1, huge, AUG_UINT8, CPU));
    assert_int_equal(aug_last_status(), AUG_ERR_MEMORY);
}

static void test_shape_size(void **state) {
    (void)state;
    int64_t a[3] = {2, 3, 4}, b[2] = {INT64_C(1) << 32, INT64_C(1) << 31}, c[2] = {INT64_C(1) << 31, INT64_C(1) << 32};
    assert_int_equal(aug__shape_size(3, a), 24);
    assert_int_equal(aug__shape_size(0, NULL), 1);
    assert_int_equal(aug__shape_size(2, b), -1); /* 2^63 > INT64_MAX */
    assert_int_equal(aug__shape_size(2, c), -1);
    int64_t d[3] = {INT64_C(1) << 40, INT64_C(1) << 40, 0};
    assert_int_equal(aug__shape_size(3, d), 0);
    int64_t e[2] = {3, -1};
    assert_int_equal(aug__shape_size(2, e), -1);
    int64_t f[2] = {INT64_MAX, 1};
    assert_int_equal(aug__shape_size(2, f), INT64_MAX);
}

static void test_devices(void **state) {
    (void)state;
    int64_t s[1] = {4};
    char want[1024];
    const int ncuda = aug_device_count(AUG_DEVICE_CUDA);
    aug_device cuda = {AUG_DEVICE_CUDA, ncuda}; /* one past the last CUDA device */
    if (ncuda == 0)
        snprintf(want, sizeof want, "aug_tensor_empty: device cuda:0 is not available (%s)", aug_cuda_status());
    else
        snprintf(want, sizeof want, "aug_tensor_empty: device cuda:%d is not available (%d CUDA device%s)", ncuda,
                 ncuda, ncuda == 1 ? "" : "s");
    NULL_ERR(aug_tensor_empty(1, s, AUG_UINT8, cuda), AUG_ERR_CUDA, want);
    aug_device cuda_neg = {AUG_DEVICE_CUDA, -1};
    aug_clear_error();
    assert_null(aug_tensor_zeros(1, s, AUG_UINT8, cuda_neg));
    assert_int_not_equal(aug_last_status(), AUG_OK);
    aug_device bad = {(aug_device_type)7, 0};
    NULL_ERR(aug_tensor_empty(1, s, AUG_UINT8, bad), AUG_ERR_VALUE, "aug_tensor_empty: invalid device type 7");

    aug_device d = aug_cpu_device();
    assert_int_equal(d.type, AUG_DEVICE_CPU);
    assert_int_equal(d.id, 0);
    unsetenv("AUG_DEVICE");
    d = aug_default_device(); /* cuda:0 when there is a CUDA device */
    assert_int_equal(d.type, ncuda ? AUG_DEVICE_CUDA : AUG_DEVICE_CPU);
    assert_int_equal(d.id, 0);
    setenv("AUG_DEVICE", "cpu", 1);
    aug_clear_error();
    d = aug_default_device();
    assert_int_equal(d.type, AUG_DEVICE_CPU);
    assert_int_equal(aug_last_status(), AUG_OK);
    setenv("AUG_DEVICE", "cuda", 1);
    aug_clear_error();
    d = aug_default_device();
    if (ncuda) {
        assert_int_equal(d.type, AUG_DEVICE_CUDA);
        assert_int_equal(aug_last_status(), AUG_OK);
    } else { /* not available: cpu, with the reason recorded */
        assert_int_equal(d.type, AUG_DEVICE_CPU);
        assert_int_equal(aug_last_status(), AUG_ERR_CUDA);
        snprintf(want, sizeof want, "aug_default_device: AUG_DEVICE=cuda requests cuda, but %s; using cpu",
                 aug_cuda_status());
        assert_string_equal(aug_last_error(), want);
    }
    setenv("AUG_DEVICE", "cuda:99", 1);
    aug_clear_error();
    d = aug_default_device();
    assert_int_equal(d.type, AUG_DEVICE_CPU);
    assert_int_equal(aug_last_status(), AUG_ERR_CUDA);
    setenv("AUG_DEVICE", "tpu", 1);
    d = aug_default_device();
    assert_int_equal(d.type, AUG_DEVICE_CPU);
    assert_string_equal(aug_last_error(), "aug_default_device: AUG_DEVICE=tpu is not one of cpu, cuda, cuda:N; using cpu");
    unsetenv("AUG_DEVICE");
}

static void test_zeros_full(void **state) {
    (void)state;
    int64_t s[2] = {3, 5};
    aug_tensor *z = aug_tensor_zeros(2, s, AUG_FLOAT32, CPU);
    assert_non_null(z);
    const float *zf = aug_tensor_ptr(z);
    for (int i = 0; i < 15; i++) assert_true(zf[i] == 0.0f);
    aug_tensor_free(z);

    aug_scalar v = aug_scalar_int(300);
    aug_tensor *f = aug_tensor_full(2, s, AUG_UINT8, CPU, &v);
    assert_non_null(f);
    const uint8_t *fu = aug_tensor_ptr(f);
    for (int i = 0; i < 15; i++) assert_int_equal(fu[i], 255);
    aug_tensor_free(f);

    v = aug_scalar_float(2.5); /* round half to even */
    f = aug_tensor_full(2, s, AUG_INT8, CPU, &v);
    assert_non_null(f);
    for (int i = 0; i < 15; i++) assert_int_equal(((const int8_t *)aug_tensor_ptr(f))[i], 2);
    aug_tensor_free(f);

    v = aug_scalar_uint(UINT64_MAX); /* never rounded through float */
    f = aug_tensor_full(1, s, AUG_UINT64, CPU, &v);
    assert_non_null(f);
    for (int i = 0; i < 3; i++) assert_true(((const uint64_t *)aug_tensor_ptr(f))[i] == UINT64_MAX);
    aug_tensor_free(f);

    v = aug_scalar_int(INT64_MAX - 1);
    f = aug_tensor_full(1, s, AUG_INT64, CPU, &v);
    assert_non_null(f);
    for (int i = 0; i < 3; i++) assert_true(((const int64_t *)aug_tensor_ptr(f))[i] == INT64_MAX - 1);
    aug_tensor_free(f);

    NULL_ERR(aug_tensor_full(2, s, AUG_UINT8, CPU, NULL), AUG_ERR_VALUE, "aug_tensor_full: value is NULL");
}

static void test_empty_like_layout(void **state) {
    (void)state;
    int64_t s[3] = {4, 5, 3};
    aug_tensor *t = aug_tensor_empty(3, s, AUG_UINT8, CPU);
    assert_int_equal(aug_tensor_set_layout(t, "HWC"), AUG_OK);
    assert_string_equal(t->layout, "HWC");
    aug_tensor *l = aug_tensor_empty_like(t, AUG_DTYPE_AUTO);
    assert_non_null(l);
    assert_int_equal(l->dtype, AUG_UINT8);
    assert_string_equal(l->layout, "HWC");
    assert_memory_equal(l->shape, s, sizeof s);
    aug_tensor_free(l);
    l = aug_tensor_empty_like(t, AUG_FLOAT32);
    assert_int_equal(l->dtype, AUG_FLOAT32);
    aug_tensor_free(l);
    NULL_ERR(aug_tensor_empty_like(NULL, AUG_FLOAT32), AUG_ERR_VALUE, "aug_tensor_empty_like: tensor is NULL");

    ERR_IS(aug_tensor_set_layout(t, "HW"), AUG_ERR_VALUE,
           "aug_tensor_set_layout: layout \"HW\" has 2 characters but the tensor has 3 dimensions");
    assert_string_equal(t->layout, "HWC");
    ERR_IS(aug_tensor_set_layout(t, "ABCDEFGHIJ"), AUG_ERR_VALUE,
           "aug_tensor_set_layout: layout \"ABCDEFGHI\" has more than 8 characters but the tensor has 3 dimensions");
    assert_int_equal(aug_tensor_set_layout(t, ""), AUG_OK);
    assert_string_equal(t->layout, "");
    assert_int_equal(aug_tensor_set_layout(t, "CHW"), AUG_OK);
    assert_int_equal(aug_tensor_set_layout(t, NULL), AUG_OK);
    assert_string_equal(t->layout, "");
    ERR_IS(aug_tensor_set_layout(NULL, "HWC"), AUG_ERR_VALUE, "aug_tensor_set_layout: tensor is NULL");
    aug_tensor_free(t);
}

static void test_properties_null(void **state) {
    (void)state;
    aug_clear_error();
    assert_int_equal(aug_tensor_size(NULL), -1);
    assert_string_equal(aug_last_error(), "aug_tensor_size: tensor is NULL");
    assert_int_equal(aug_tensor_itemsize(NULL), -1);
    assert_int_equal(aug_tensor_is_contiguous(NULL), 0);
    assert_null(aug_tensor_ptr(NULL));
    aug_scalar out;
    int64_t i0 = 0;
    ERR_IS(aug_tensor_get_item(NULL, &i0, &out), AUG_ERR_VALUE, "aug_tensor_get_item: tensor is NULL");
    aug_storage_retain(NULL);
    aug_storage_release(NULL);
    assert_null(aug_storage_ptr(NULL));
    assert_int_equal(aug_storage_nbytes(NULL), 0);
}

static void test_is_contiguous(void **state) {
    (void)state;
    int64_t s[3] = {2, 1, 3};
    aug_tensor *t = aug_tensor_empty(3, s, AUG_INT32, CPU);
    t->strides[1] = 12345; /* extent-1 dims are ignored */
    assert_true(aug_tensor_is_contiguous(t));
    int perm[3] = {2, 1, 0};
    aug_tensor *p = aug_tensor_permute(t, perm);
    assert_false(aug_tensor_is_contiguous(p));
    aug_tensor_free(p);
    aug_tensor_free(t);
}

static int g_deleted;
static void deleter(void *ctx) {
    g_deleted++;
    free(ctx);
}

static void test_storage_lifetime(void **state) {
    (void)state;
    g_deleted = 0;
    int32_t *mem = malloc(12 * sizeof *mem);
    for (int i = 0; i < 12; i++) mem[i] = i;
    aug_storage *s = aug_storage_wrap(mem, 12 * sizeof *mem, CPU, deleter, mem);
    assert_non_null(s);
    assert_ptr_equal(aug_storage_ptr(s), mem);
    assert_int_equal(aug_storage_nbytes(s), 48);
    int64_t shape[2] = {3, 4};
    aug_tensor *base = aug_tensor_from_storage(s, 0, 2, shape, NULL, AUG_INT32);
    assert_non_null(base);
    aug_storage_release(s); /* the tensor holds its own reference */
    assert_int_equal(g_deleted, 0);
    aug_index idx[2] = {{.kind = AUG_INDEX_SLICE, .step = -1}, {.kind = AUG_INDEX_INT, .i = 2}};
    aug_tensor *view = aug_tensor_index(base, 2, idx);
    assert_non_null(view);
    aug_tensor *view2 = aug_tensor_view(view);
    aug_tensor_free(base); /* free the base before its views */
    assert_int_equal(g_deleted, 0);
    aug_scalar v;
    int64_t i0 = 0;
    assert_int_equal(aug_tensor_get_item(view, &i0, &v), AUG_OK);
    assert_int_equal(v.v.i, 10);
    aug_tensor_free(view);
    assert_int_equal(g_deleted, 0);
    aug_tensor_free(view2);
    assert_int_equal(g_deleted, 1);

    /* A wrap without a deleter leaves the memory alone. */
    char buf[16];
    s = aug_storage_wrap(buf, sizeof buf, CPU, NULL, NULL);
    aug_storage_release(s);
    /* Zero bytes with a NULL pointer is allowed; a NULL pointer with bytes is not. */
    s = aug_storage_wrap(NULL, 0, CPU, NULL, NULL);
    assert_non_null(s);
    aug_storage_release(s);
    NULL_ERR(aug_storage_wrap(NULL, 8, CPU, NULL, NULL), AUG_ERR_VALUE, "aug_storage_wrap: ptr is NULL but nbytes is 8");
}

static void *retain_release(void *arg) {
    aug_storage *s = arg;
    for (int i = 0; i < 10000; i++) {
        aug_storage_retain(s);
        aug_storage_release(s);
    }
    return NULL;
}

static void test_storage_threads(void **state) {
    (void)state;
    g_deleted = 0;
    void *mem = malloc(8);
    aug_storage *s = aug_storage_wrap(mem, 8, CPU, deleter, mem);
    pthread_t th[4];
    for (int i = 0; i < 4; i++) pthread_create(&th[i], NULL, retain_release, s);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    assert_int_equal(g_deleted, 0);
    aug_storage_release(s);
    assert_int_equal(g_deleted, 1);
}

static void test_from_storage_bounds(void **state) {
    (void)state;
    char *mem = malloc(24);
    aug_storage *s = aug_storage_wrap(mem, 24, CPU, free, mem);
    int64_t shape[2] = {2, 3}, st[2] = {3, 1};
    aug_tensor *t = aug_tensor_from_storage(s, 0, 2, shape, st, AUG_INT32);
    assert_non_null(t);
    aug_tensor_free(t);
    NULL_ERR(aug_tensor_from_storage(s, 4, 2, shape, st, AUG_INT32), AUG_ERR_VALUE,
             "aug_tensor_from_storage: a int32 view with shape (2, 3) at byte offset 4 does not fit in a storage of 24 bytes");
    int64_t nst[2] = {-3, -1}; /* reversed view: element [0, 0] is the last one */
    t = aug_tensor_from_storage(s, 20, 2, shape, nst, AUG_INT32);
    assert_non_null(t);
    aug_tensor_free(t);
    assert_null(aug_tensor_from_storage(s, 16, 2, shape, nst, AUG_INT32));
    int64_t hst[2] = {INT64_MAX / 2, 1};
    assert_null(aug_tensor_from_storage(s, 0, 2, shape, hst, AUG_INT32));
    int64_t zshape[2] = {0, 3};
    t = aug_tensor_from_storage(s, 24, 2, zshape, NULL, AUG_INT32);
    assert_non_null(t);
    assert_int_equal(aug_tensor_size(t), 0);
    aug_tensor_free(t);
    NULL_ERR(aug_tensor_from_storage(NULL, 0, 2, shape, st, AUG_INT32), AUG_ERR_VALUE,
             "aug_tensor_from_storage: storage is NULL");
    aug_storage_release(s);
}

static void test_get_item(void **state) {
    (void)state;
    int64_t shape[2] = {3, 4};
    aug_tensor *t = aug_tensor_empty(2, shape, AUG_INT16, CPU);
    int16_t *p = aug_tensor_ptr(t);
    for (int i = 0; i < 12; i++) p[i] = (int16_t)(i * 100 - 600);
    aug_scalar v;
    int64_t ix[2] = {-1, -1};
    assert_int_equal(aug_tensor_get_item(t, ix, &v), AUG_OK);
    assert_int_equal(v.dtype, AUG_INT16);
    assert_int_equal(v.weak, 0);
    assert_int_equal(v.v.i, 500);
    int64_t bad[2] = {5, 0};
    ERR_IS(aug_tensor_get_item(t, bad, &v), AUG_ERR_INDEX,
           "aug_tensor_get_item: index 5 is out of bounds for axis 0 with size 3");
    int64_t bad2[2] = {0, -5};
    ERR_IS(aug_tensor_get_item(t, bad2, &v), AUG_ERR_INDEX,
           "aug_tensor_get_item: index -5 is out of bounds for axis 1 with size 4");
    ERR_IS(aug_tensor_get_item(t, NULL, &v), AUG_ERR_VALUE, "aug_tensor_get_item: index is NULL");
    ERR_IS(aug_tensor_get_item(t, ix, NULL), AUG_ERR_VALUE, "aug_tensor_get_item: out is NULL");
    aug_tensor_free(t);

    t = aug_tensor_empty(1, shape, AUG_UINT64, CPU);
    ((uint64_t *)aug_tensor_ptr(t))[2] = UINT64_MAX;
    int64_t i2 = 2;
    assert_int_equal(aug_tensor_get_item(t, &i2, &v), AUG_OK);
    assert_true(v.v.u == UINT64_MAX);
    aug_tensor_free(t);

    t = aug_tensor_empty(0, NULL, AUG_FLOAT32, CPU);
    *(float *)aug_tensor_ptr(t) = 1.5f;
    assert_int_equal(aug_tensor_get_item(t, NULL, &v), AUG_OK);
    assert_true(v.v.f == 1.5);
    aug_tensor_free(t);
}

static void test_shape_str(void **state) {
    (void)state;
    char b[64];
    int64_t s[3] = {2, 3, 4};
    assert_string_equal(aug_shape_str(3, s, b, sizeof b), "(2, 3, 4)");
    assert_string_equal(aug_shape_str(1, s, b, sizeof b), "(2,)");
    assert_string_equal(aug_shape_str(0, NULL, b, sizeof b), "()");
    assert_string_equal(aug_shape_str(3, s, b, 5), "(2, ");
    assert_null(aug_shape_str(3, s, NULL, 10));
}

static void test_broadcast_shapes(void **state) {
    (void)state;
    int64_t a[3] = {2, 3, 4}, b[3] = {2, 3, 3}, c[2] = {1, 4}, z[2] = {0, 1}, out[AUG_MAX_DIMS];
    int n = -1;
    assert_int_equal(aug_broadcast_shapes("aug_add", 3, a, 2, c, &n, out), AUG_OK);
    assert_int_equal(n, 3);
    assert_int_equal(out[0], 2);
    assert_int_equal(out[1], 3);
    assert_int_equal(out[2], 4);
    ERR_IS(aug_broadcast_shapes("aug_add", 3, a, 3, b, &n, out), AUG_ERR_VALUE,
           "aug_add: cannot broadcast shapes (2, 3, 4) and (2, 3, 3)");
    assert_int_equal(aug_broadcast_shapes("f", 2, z, 1, a + 2, &n, out), AUG_OK); /* (0, 1) with (4,) */
    assert_int_equal(n, 2);
    assert_int_equal(out[0], 0);
    assert_int_equal(out[1], 4);
    assert_int_equal(aug_broadcast_shapes("f", 0, NULL, 2, z, &n, out), AUG_OK);
    assert_int_equal(n, 2);
    int64_t z3[1] = {0}, three[1] = {3};
    ERR_IS(aug_broadcast_shapes("f", 1, z3, 1, three, &n, out), AUG_ERR_VALUE, "f: cannot broadcast shapes (0,) and (3,)");
    int64_t neg[1] = {-2};
    ERR_IS(aug_broadcast_shapes("f", 1, neg, 1, three, &n, out), AUG_ERR_VALUE, "f: negative extent -2 in shape (-2,)");
    ERR_IS(aug_broadcast_shapes("f", 1, three, 1, three, NULL, out), AUG_ERR_VALUE, "f: output pointer is NULL");
    int64_t s9[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    ERR_IS(aug_broadcast_shapes("f", 9, s9, 1, three, &n, out), AUG_ERR_VALUE, "f: ndim 9 is out of range (0 to 8)");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_basic),     cmocka_unit_test(test_empty_0d_and_zero_size),
        cmocka_unit_test(test_ndim_limits),     cmocka_unit_test(test_bad_shapes),
        cmocka_unit_test(test_shape_size),      cmocka_unit_test(test_devices),
        cmocka_unit_test(test_zeros_full),      cmocka_unit_test(test_empty_like_layout),
        cmocka_unit_test(test_properties_null), cmocka_unit_test(test_is_contiguous),
        cmocka_unit_test(test_storage_lifetime), cmocka_unit_test(test_storage_threads),
        cmocka_unit_test(test_from_storage_bounds), cmocka_unit_test(test_get_item),
        cmocka_unit_test(test_shape_str),       cmocka_unit_test(test_broadcast_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
