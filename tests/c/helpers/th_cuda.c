/* th_cuda.c: the CUDA parity tests' shared helpers (th_cuda.h). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "helpers/th_cuda.h"

const aug_device TH_CUDA0 = {AUG_DEVICE_CUDA, 0};

static int find_module(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    if (info->dlpi_name && strstr(info->dlpi_name, "libaug_cuda")) {
        snprintf((char *)data, 4096, "%s", info->dlpi_name);
        return 1;
    }
    return 0;
}

void *th_emu_symbol(const char *name) {
    char path[4096] = "";
    dl_iterate_phdr(find_module, path);
    void *h = path[0] ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
    void *sym = h ? dlsym(h, name) : NULL;
    const char *b = getenv("AUG_CUDA_BACKEND");
    if (!sym && b && strcmp(b, "emu") == 0) fail_msg("the emulated module (%s) has no %s", path, name);
    return sym;
}

long long th_emu_launches(const char *name) {
    typedef long long (*launches_fn)(const char *);
    static launches_fn fn;
    if (!fn) fn = (launches_fn)(void (*)(void))th_emu_symbol("aug_emu_launches");
    return fn ? fn(name) : -1;
}

int th_have_cuda(void) {
    if (aug_device_count(AUG_DEVICE_CUDA) > 0) return 1;
    const char *req = getenv("AUG_REQUIRE_CUDA");
    if (req && strcmp(req, "1") == 0) fail_msg("no CUDA device: %s", aug_cuda_status());
    return 0;
}
/* ---- values ---------------------------------------------------------------------- */

/* A deterministic pattern of n elements of dtype t with the edge values of the
 * type first (0, 1, -1, min, max, half-way values, NaN, +-inf for floats). */
void th_fill_pattern(aug_tensor *t, uint64_t seed) {
    int64_t n = aug_tensor_size(t);
    int64_t item = aug_tensor_itemsize(t);
    double *vals = malloc(sizeof(double) * (size_t)(n ? n : 1));
    const aug_dtype_traits *tr = aug_dtype_info(t->dtype);
    static const double edges[] = {0, 1, -1, 2, -2, 0.5, -0.5, 1.5, 2.5, -2.5, 127, -128, 255, 256, 32767,
                                   -32768, 65535, 1e6, -1e6, 3e9, -3e9, 1e19, -1e19, 0.1, 7, -7, 3, 100};
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    for (int64_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double v;
        if (i < (int64_t)(sizeof edges / sizeof edges[0])) v = edges[i];
        else if (tr->kind == AUG_KIND_FLOAT) v = ((double)(int64_t)(x >> 11) / 0x1p52 - 0.5) * 600.0;
        else v = (double)(int64_t)(x % 601) - 300.0;
        if (tr->kind == AUG_KIND_FLOAT && i == 28) v = NAN;
        if (tr->kind == AUG_KIND_FLOAT && i == 29) v = INFINITY;
        if (tr->kind == AUG_KIND_FLOAT && i == 30) v = -INFINITY;
        vals[i] = v;
    }
    /* through a float64 tensor and a saturating cast: every dtype gets defined values */
    int64_t one = n;
    aug_tensor *d = aug_tensor_empty(1, &one, AUG_FLOAT64, CPU);
    assert_non_null(d);
    memcpy(aug_tensor_ptr(d), vals, (size_t)n * sizeof(double));
    aug_tensor *flat = aug_tensor_reshape(t, 1, &one);
    if (flat) {
        assert_int_equal(aug_copy(d, flat), AUG_OK);
        aug_tensor_free(flat);
    } else { /* not contiguous: element by element is slow; reshape a contiguous one and copy */
        aug_clear_error();
        aug_tensor *c = aug_tensor_empty(t->ndim, t->shape, t->dtype, CPU);
        aug_tensor *cf = aug_tensor_reshape(c, 1, &one);
        assert_int_equal(aug_copy(d, cf), AUG_OK);
        assert_int_equal(aug_copy(c, t), AUG_OK);
        aug_tensor_free(cf);
        aug_tensor_free(c);
    }
    (void)item;
    aug_tensor_free(d);
    free(vals);
}

/* Packed bytes of t (any device) in C order; caller frees. */
unsigned char *th_bytes_of(const aug_tensor *t, size_t *n) {
    *n = (size_t)(aug_tensor_size(t) * aug_tensor_itemsize(t));
    unsigned char *b = malloc(*n ? *n : 1);
    assert_int_equal(aug_tensor_read(t, b, *n, 1), AUG_OK);
    return b;
}

/* Compares two results of dtype t; transcendentals of float results may differ
 * by a few ulps between libm and libdevice (semantics §8: 2 ulp float32, 4
 * float64; float16/bfloat16 round from float32: 1 ulp of theirs). */
void th_compare(const char *what, aug_dtype t, const unsigned char *a, const unsigned char *b, size_t n,
                int tolerant) {
    if (memcmp(a, b, n) == 0) return;
    int64_t item = aug_dtype_info(t)->size, cnt = (int64_t)n / item;
    for (int64_t i = 0; i < cnt; i++) {
        if (memcmp(a + i * item, b + i * item, (size_t)item) == 0) continue;
        if (aug_dtype_info(t)->kind == AUG_KIND_FLOAT) {
            double x, y;
            if (t == AUG_FLOAT64) memcpy(&x, a + i * 8, 8), memcpy(&y, b + i * 8, 8);
            else if (t == AUG_FLOAT32) {
                float fx, fy;
                memcpy(&fx, a + i * 4, 4), memcpy(&fy, b + i * 4, 4);
                x = fx, y = fy;
            } else {
                uint16_t hx, hy;
                memcpy(&hx, a + i * 2, 2), memcpy(&hy, b + i * 2, 2);
                x = t == AUG_FLOAT16 ? aug_f16_to_f64(hx) : aug_bf16_to_f64(hx);
                y = t == AUG_FLOAT16 ? aug_f16_to_f64(hy) : aug_bf16_to_f64(hy);
            }
            if (isnan(x) && isnan(y)) continue; /* NaN payloads and signs are not specified */
            if (!tolerant) goto differ;
            double ulp = t == AUG_FLOAT64 ? 0x1p-52 : t == AUG_FLOAT32 ? 0x1p-23 : t == AUG_FLOAT16 ? 0x1p-10 : 0x1p-7;
            double lim = (t == AUG_FLOAT64 ? 4 : t == AUG_FLOAT32 ? 2 : 1) * ulp * fmax(fabs(x), 0x1p-1022);
            if (fabs(x - y) <= lim) continue;
        }
    differ:
        fail_msg("%s: element %lld of %s differs between cpu and cuda", what, (long long)i, aug_dtype_name(t));
    }
}

int th_threads_1024(void **state) {
    (void)state;
    return aug_set_launch(0, 1024) == AUG_OK ? 0 : -1;
}

int th_threads_auto(void **state) {
    (void)state;
    return aug_set_launch(0, 0) == AUG_OK ? 0 : -1;
}

aug_tensor *th_floats_on(const float *v, int64_t n, aug_device dev) {
    aug_tensor *h = aug_tensor_empty(1, &n, AUG_FLOAT32, CPU);
    assert_non_null(h);
    memcpy(aug_tensor_ptr(h), v, (size_t)n * sizeof(float));
    if (dev.type == AUG_DEVICE_CPU) return h;
    aug_tensor *d = aug_tensor_to(h, dev);
    assert_non_null(d);
    aug_tensor_free(h);
    return d;
}

aug_tensor *th_from_doubles(const double *v, int ndim, const int64_t *shape, aug_dtype dt, aug_device dev) {
    aug_tensor *h = aug_tensor_empty(ndim, shape, AUG_FLOAT64, CPU);
    assert_non_null(h);
    memcpy(aug_tensor_ptr(h), v, (size_t)aug_tensor_size(h) * sizeof(double));
    aug_tensor *t = aug_tensor_empty(ndim, shape, dt, dev);
    assert_int_equal(aug_copy(h, t), AUG_OK);
    aug_tensor_free(h);
    return t;
}
