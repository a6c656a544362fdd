/* tests/fuzz/fuzz_util.h: shared helpers of the libFuzzer targets: a reader that
 * turns the fuzz bytes into argument values (reading past the end gives zeros, so
 * every input is a valid program), a CHECK that aborts with the library's last
 * error, and a tensor over exactly-sized malloc'd storage (so ASan sees any
 * access outside it) whose reachable byte range can be checked. */
#ifndef AUG_FUZZ_UTIL_H
#define AUG_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aug/aug.h"

#define CHECK(cond)                                                                                              \
    do {                                                                                                         \
        if (!(cond)) {                                                                                           \
            fprintf(stderr, "%s:%d: check failed: %s (last error: %s)\n", __FILE__, __LINE__, #cond,             \
                    aug_last_error());                                                                           \
            abort();                                                                                             \
        }                                                                                                        \
    } while (0)

typedef struct fuzz_reader {
    const uint8_t *p;
    size_t n, pos;
} fuzz_reader;

static inline uint8_t fz_u8(fuzz_reader *r) { return r->pos < r->n ? r->p[r->pos++] : 0; }

static inline uint64_t fz_u64(fuzz_reader *r) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)fz_u8(r) << (8 * i);
    return v;
}

/* Mostly small values (what real arguments look like), sometimes any int64. */
static inline int64_t fz_i64(fuzz_reader *r, int64_t lo, int64_t hi) {
    uint8_t sel = fz_u8(r);
    if (sel < 200) return lo + (int64_t)(fz_u8(r) % (uint64_t)(hi - lo + 1));
    switch (sel % 8) {
    case 0: return INT64_MIN;
    case 1: return INT64_MAX;
    case 2: return INT64_MIN + 1;
    case 3: return (int64_t)1 << 62;
    case 4: return -((int64_t)1 << 32);
    default: return (int64_t)fz_u64(r);
    }
}

static inline float fz_f32(fuzz_reader *r) {
    uint8_t sel = fz_u8(r);
    if (sel < 160) return (float)((int)fz_u8(r) - 64) / 16.0f; /* -4 .. 11.9 in 1/16 steps */
    uint32_t bits = 0;
    for (int i = 0; i < 4; i++) bits |= (uint32_t)fz_u8(r) << (8 * i);
    float f;
    memcpy(&f, &bits, sizeof f); /* any float: NaN, inf, denormals, huge */
    return f;
}

static void fz_free_ctx(void *ctx) { free(ctx); }

/* A tensor described by the bytes: dtype, ndim 0..8, small extents (0 included),
 * strides contiguous, padded, permuted, zero or negative, a byte offset (possibly
 * misaligned), a layout. The storage is exactly the bytes the view reaches (plus a
 * tail taken from the bytes), malloc'd so ASan bounds it. NULL when the library
 * refuses the description (that refusal must carry a message). */
static aug_tensor *fz_tensor(fuzz_reader *r, int contiguous_bias) {
    aug_dtype dtype = (aug_dtype)(fz_u8(r) % AUG_NUM_DTYPES);
    int64_t item = aug_dtype_info(dtype)->size;
    int ndim = fz_u8(r) % (AUG_MAX_DIMS + 1);
    int64_t shape[AUG_MAX_DIMS], strides[AUG_MAX_DIMS];
    for (int d = 0; d < ndim; d++) shape[d] = fz_u8(r) % 5; /* 0..4: zero-size dims included */
    int kind = fz_u8(r) % (contiguous_bias ? 8 : 4);
    int64_t acc = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        strides[d] = acc;
        acc *= shape[d] ? shape[d] : 1;
    }
    if (kind == 1) { /* padded / arbitrary strides, negative and zero included */
        for (int d = 0; d < ndim; d++) strides[d] = fz_i64(r, -40, 40);
    } else if (kind == 2 && ndim >= 2) { /* a transposed contiguous block */
        int64_t t = strides[0];
        strides[0] = strides[ndim - 1];
        strides[ndim - 1] = t;
    } else if (kind == 3) { /* every other element */
        for (int d = 0; d < ndim; d++) strides[d] *= 2;
    }
    /* Reachable byte range relative to element 0; give up on overflow (the library must too). */
    int64_t lo = 0, hi = 0, size = 1;
    for (int d = 0; d < ndim; d++) size *= shape[d];
    if (size > 0)
        for (int d = 0; d < ndim; d++) {
            int64_t span;
            if (__builtin_mul_overflow(shape[d] - 1, strides[d], &span) || __builtin_mul_overflow(span, item, &span) ||
                __builtin_add_overflow(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi))
                return NULL;
        }
    if (lo < -(1 << 20) || hi > (1 << 20)) return NULL; /* storage stays under ~1 MiB */
    int64_t misalign = fz_u8(r) < 32 ? 1 : 0;
    int64_t offset = -lo + misalign + (int64_t)(fz_u8(r) % 3) * item;
    int64_t nbytes = size > 0 ? offset + hi + item : offset;
    nbytes += fz_u8(r) % 4; /* a tail */
    if (nbytes > (1 << 20)) return NULL;
    void *mem = malloc(nbytes > 0 ? (size_t)nbytes : 1);
    CHECK(mem != NULL);
    memset(mem, 0x5A, nbytes > 0 ? (size_t)nbytes : 1);
    aug_storage *s = aug_storage_wrap(mem, (size_t)nbytes, aug_cpu_device(), fz_free_ctx, mem);
    CHECK(s != NULL);
    aug_tensor *t = aug_tensor_from_storage(s, offset, ndim, shape, strides, dtype);
    aug_storage_release(s);
    if (t == NULL) {
        CHECK(aug_last_error()[0] != '\0');
        return NULL;
    }
    if (fz_u8(r) & 1) {
        char layout[AUG_MAX_DIMS + 1] = {0};
        for (int d = 0; d < ndim; d++) layout[d] = "NCHWDFXY"[fz_u8(r) % 8];
        CHECK(aug_tensor_set_layout(t, layout) == AUG_OK);
    }
    return t;
}

/* Every element the view can reach lies inside its storage: computes the byte
 * range from shape/strides/byte_offset and touches its two ends (ASan checks
 * the memory). Also checks the basic struct invariants. */
static void fz_check_view(const aug_tensor *t) {
    CHECK(t->ndim >= 0 && t->ndim <= AUG_MAX_DIMS);
    CHECK(aug_dtype_info(t->dtype) != NULL);
    size_t ll = strnlen(t->layout, AUG_MAX_DIMS + 1);
    CHECK(ll == 0 || ll == (size_t)t->ndim);
    int64_t item = aug_tensor_itemsize(t), size = 1;
    int zero = 0;
    for (int d = 0; d < t->ndim; d++) {
        CHECK(t->shape[d] >= 0);
        zero |= t->shape[d] == 0;
    }
    /* Extents may overflow int64 together only when one of them is 0. */
    for (int d = 0; d < t->ndim && !zero; d++) CHECK(!__builtin_mul_overflow(size, t->shape[d], &size));
    if (zero) size = 0;
    CHECK(size == aug_tensor_size(t));
    if (t->storage == NULL) return; /* a storage-less 0-d host scalar */
    CHECK(t->data == (char *)aug_storage_ptr(t->storage));
    int64_t nbytes = (int64_t)aug_storage_nbytes(t->storage);
    if (size == 0) {
        CHECK(t->byte_offset >= 0 && t->byte_offset <= nbytes);
        return;
    }
    int64_t lo = t->byte_offset, hi = t->byte_offset;
    for (int d = 0; d < t->ndim; d++) {
        int64_t span;
        CHECK(!__builtin_mul_overflow(t->shape[d] - 1, t->strides[d], &span));
        CHECK(!__builtin_mul_overflow(span, item, &span));
        CHECK(!__builtin_add_overflow(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi));
    }
    CHECK(lo >= 0 && hi + item <= nbytes);
    volatile char sink;
    sink = t->data[lo];
    sink = t->data[hi + item - 1];
    (void)sink;
}

#endif
