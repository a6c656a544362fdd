/* tests/fuzz/fuzz_view.c: libFuzzer target for tensors over foreign storage and
 * their views (include/aug/tensor.h): aug_tensor_from_storage with fuzzed shapes,
 * strides (zero, negative, INT64_MIN/MAX) and byte offsets, then a chain of up to
 * eight of aug_tensor_index (ints, slices with any start/stop/step, None,
 * Ellipsis, invalid kinds), aug_tensor_permute, aug_tensor_reshape,
 * aug_tensor_broadcast_to, aug_tensor_view, aug_tensor_contiguous and
 * aug_tensor_get_item. Build and run: tests/fuzz/run.sh.
 * Checked, beyond ASan/UBSan/leaks: every view the library returns reaches only
 * bytes inside its storage (fuzz_util.h: fz_check_view computes the range and
 * touches both ends), layouts are empty or one letter per dim, a view shares the
 * base's storage; contiguous() gives a contiguous tensor equal element-wise (bytes)
 * to its input; index results have NumPy's shape for plain int/slice indices; a
 * failure returns NULL with a message naming the function. */
#include "fuzz_util.h"

static int starts_with(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* Byte address of element `idx` (a flat C-order index) of t. */
static const char *elem(const aug_tensor *t, int64_t flat) {
    int64_t off = t->byte_offset, item = aug_tensor_itemsize(t);
    for (int d = t->ndim - 1; d >= 0; d--) {
        int64_t i = flat % t->shape[d];
        flat /= t->shape[d];
        off += i * t->strides[d] * item;
    }
    return t->data + off;
}

static aug_tensor *op_index(fuzz_reader *r, const aug_tensor *t) {
    int n = fz_u8(r) % (AUG_MAX_DIMS + 3);
    aug_index idx[AUG_MAX_DIMS + 2];
    int plain = 1; /* only ints and slices: the result's shape is predictable */
    int64_t expect[AUG_MAX_DIMS];
    int ne = 0, d = 0;
    for (int k = 0; k < n; k++) {
        memset(&idx[k], 0, sizeof idx[k]);
        uint8_t kind = fz_u8(r);
        idx[k].kind = kind < 250 ? (aug_index_kind)(kind % 4) : (aug_index_kind)(kind - 240); /* some invalid */
        idx[k].i = fz_i64(r, -6, 6);
        idx[k].start = fz_i64(r, -6, 6);
        idx[k].stop = fz_i64(r, -6, 6);
        idx[k].step = fz_i64(r, -3, 3);
        uint8_t has = fz_u8(r);
        idx[k].has_start = has & 1;
        idx[k].has_stop = (has >> 1) & 1;
        if (idx[k].kind == AUG_INDEX_NEWAXIS || idx[k].kind == AUG_INDEX_ELLIPSIS || kind >= 250) plain = 0;
        if (plain && d < t->ndim && idx[k].kind == AUG_INDEX_SLICE && idx[k].step != 0 && !idx[k].has_start &&
            !idx[k].has_stop && idx[k].step == 1)
            expect[ne++] = t->shape[d];
        else if (plain && idx[k].kind == AUG_INDEX_SLICE)
            plain = 0; /* a general slice length is checked by the view invariants only */
        d++;
    }
    aug_tensor *v = aug_tensor_index(t, n, idx);
    if (v == NULL) {
        CHECK(starts_with(aug_last_error(), "aug_tensor_index: "));
        return NULL;
    }
    if (plain) {
        for (int j = n; j < t->ndim; j++) expect[ne++] = t->shape[j];
        CHECK(v->ndim == ne);
        for (int j = 0; j < ne; j++) CHECK(v->shape[j] == expect[j]);
    }
    return v;
}

static aug_tensor *apply(fuzz_reader *r, const aug_tensor *t) {
    uint8_t op = fz_u8(r) % 7;
    switch (op) {
    case 0: return op_index(r, t);
    case 1: {
        int perm[AUG_MAX_DIMS];
        for (int j = 0; j < AUG_MAX_DIMS; j++) perm[j] = (int)fz_i64(r, -AUG_MAX_DIMS, AUG_MAX_DIMS);
        aug_tensor *v = aug_tensor_permute(t, perm);
        if (v == NULL) CHECK(starts_with(aug_last_error(), "aug_tensor_permute: "));
        return v;
    }
    case 2: {
        int ndim = (int)fz_i64(r, -1, AUG_MAX_DIMS + 1);
        int64_t shape[AUG_MAX_DIMS + 2];
        for (int j = 0; j < AUG_MAX_DIMS + 2; j++) shape[j] = fz_i64(r, -2, 8);
        aug_tensor *v = aug_tensor_reshape(t, ndim, shape);
        if (v == NULL) {
            CHECK(starts_with(aug_last_error(), "aug_tensor_reshape: "));
        } else {
            CHECK(aug_tensor_size(v) == aug_tensor_size(t) && aug_tensor_ptr(v) == aug_tensor_ptr(t));
        }
        return v;
    }
    case 3: {
        int ndim = (int)fz_i64(r, -1, AUG_MAX_DIMS + 1);
        int64_t shape[AUG_MAX_DIMS + 2];
        for (int j = 0; j < AUG_MAX_DIMS + 2; j++) shape[j] = fz_i64(r, -1, 5);
        aug_tensor *v = aug_tensor_broadcast_to(t, ndim, shape);
        if (v == NULL) {
            CHECK(starts_with(aug_last_error(), "aug_tensor_broadcast_to: "));
        } else {
            CHECK(v->ndim == ndim);
            for (int j = 0; j < ndim; j++) CHECK(v->shape[j] == shape[j]);
        }
        return v;
    }
    case 4: {
        aug_tensor *v = aug_tensor_view(t);
        CHECK(v != NULL && v->ndim == t->ndim && aug_tensor_ptr(v) == aug_tensor_ptr(t));
        return v;
    }
    case 5: {
        /* A broadcast view can stand for terabytes; copy only what fits in 64 MiB
         * (bigger copies just test malloc). */
        if (aug_tensor_size(t) > ((int64_t)1 << 26) / aug_tensor_itemsize(t)) return NULL;
        aug_tensor *c = aug_tensor_contiguous(t);
        if (c == NULL) {
            CHECK(aug_last_error()[0] != '\0'); /* memory only */
            return NULL;
        }
        CHECK(aug_tensor_is_contiguous(c) && c->ndim == t->ndim && c->dtype == t->dtype);
        /* Element by element through elem() (a division per dim per element) costs
         * seconds for 2^26 one-byte elements under ASan, past libFuzzer's timeout
         * (an input of 109 bytes took 40 s): at most 2^16 elements are compared,
         * evenly spread, the last one included. */
        int64_t n = aug_tensor_size(t), item = aug_tensor_itemsize(t), step = n > 65536 ? n / 65536 : 1;
        for (int64_t i = 0; i < n; i += step) CHECK(memcmp(elem(t, i), elem(c, i), (size_t)item) == 0);
        if (n > 0) CHECK(memcmp(elem(t, n - 1), elem(c, n - 1), (size_t)item) == 0);
        return c;
    }
    default: {
        int64_t index[AUG_MAX_DIMS];
        for (int j = 0; j < AUG_MAX_DIMS; j++) index[j] = fz_i64(r, -5, 5);
        aug_scalar s;
        aug_status st = aug_tensor_get_item(t, index, &s);
        if (st != AUG_OK) CHECK(starts_with(aug_last_error(), "aug_tensor_get_item: "));
        return NULL;
    }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_reader r = {data, size, 0};
    aug_tensor *t = fz_tensor(&r, 0);
    if (t == NULL) return 0;
    fz_check_view(t);
    int steps = 1 + fz_u8(&r) % 8;
    for (int s = 0; s < steps; s++) {
        aug_tensor *v = apply(&r, t);
        if (v == NULL) continue;
        fz_check_view(v);
        CHECK(v->dtype == t->dtype);
        aug_tensor_free(t);
        t = v;
    }
    aug_tensor_free(t);
    return 0;
}
