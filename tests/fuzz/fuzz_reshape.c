/* tests/fuzz/fuzz_reshape.c: libFuzzer target for DALI's reshape (aug_reshape,
 * aug_reshape_batch; include/aug/reshape.h). Build and run: tests/fuzz/run.sh.
 *
 * The bytes describe input tensors (fuzz_util.h: any dtype, 0-8 dims, zero-size
 * dims, contiguous or not, misaligned offsets, a layout) and the arguments: which
 * of shape_input / shape / rel_shape / src_dims are given (several at once
 * included), their lengths (-1 .. 9) and values (small ones, wildcards, zero,
 * INT64_MIN/MAX; rel_shape NaN, inf, huge, denormal), a layout of raw bytes
 * (non-ASCII, longer than 8) and a dtype (AUTO, every dtype, invalid values).
 * Checked, beyond ASan/UBSan/leaks:
 * - success: the view has the input's storage and first-element address, its
 *   volume * itemsize equals the input's bytes, it is contiguous, ndim <= 8, its
 *   layout is empty or one letter per dim (the requested one when given), its
 *   dtype the requested one, an explicit shape without wildcard is kept as given;
 *   every reachable element lies inside the storage;
 * - failure: out stays NULL (every out[i] for a batch) and aug_last_error()
 *   starts with "aug_reshape". */
#include "fuzz_util.h"

#define MAX_BATCH 4

typedef struct arg_store {
    int64_t shape_input[AUG_MAX_DIMS + 2], shape[AUG_MAX_DIMS + 2];
    float rel[AUG_MAX_DIMS + 2];
    int src[AUG_MAX_DIMS + 2];
    char layout[16];
} arg_store;

/* Length of an argument array: mostly 0..8, sometimes -1 or 9 (invalid). */
static int fz_len(fuzz_reader *r) {
    uint8_t v = fz_u8(r);
    if (v >= 250) return v & 1 ? -1 : AUG_MAX_DIMS + 1;
    return v % (AUG_MAX_DIMS + 1);
}

static void fz_args(fuzz_reader *r, aug_reshape_args *a, arg_store *s) {
    *a = aug_reshape_args_init();
    uint8_t flags = fz_u8(r);
    /* Mostly one shape source (the legal case), sometimes several. */
    int src = flags & 3, many = (flags & 0xC0) == 0xC0;
    if (src == 1 || (many && (flags & 4))) {
        a->has_shape_input = 1;
        a->shape_input_ndim = fz_len(r);
        for (int i = 0; i < AUG_MAX_DIMS + 1; i++) s->shape_input[i] = fz_i64(r, -2, 12);
        a->shape_input = (fz_u8(r) == 255) ? NULL : s->shape_input;
    }
    if (src == 2 || (many && (flags & 8))) {
        a->has_shape = 1;
        a->shape_ndim = fz_len(r);
        for (int i = 0; i < AUG_MAX_DIMS + 1; i++) s->shape[i] = fz_i64(r, -2, 12);
        a->shape = (fz_u8(r) == 255) ? NULL : s->shape;
    }
    if (src == 3 || (many && (flags & 16))) {
        a->has_rel_shape = 1;
        a->rel_ndim = fz_len(r);
        for (int i = 0; i < AUG_MAX_DIMS + 1; i++) s->rel[i] = fz_f32(r);
        a->rel_shape = (fz_u8(r) == 255) ? NULL : s->rel;
    }
    if (flags & 32) {
        a->has_src_dims = 1;
        a->src_ndim = fz_len(r);
        for (int i = 0; i < AUG_MAX_DIMS + 1; i++) s->src[i] = (int)fz_i64(r, -2, 8);
        a->src_dims = (fz_u8(r) == 255) ? NULL : s->src;
    }
    uint8_t lsel = fz_u8(r);
    if (lsel < 128) {
        a->layout = NULL;
    } else {
        int n = lsel % 11; /* 0..10 characters: "" clears, > 8 is too long */
        for (int i = 0; i < n; i++) {
            uint8_t c = fz_u8(r);
            s->layout[i] = (char)(c ? c : 'X'); /* any byte but NUL: non-ASCII included */
        }
        s->layout[n] = '\0';
        a->layout = s->layout;
    }
    uint8_t dsel = fz_u8(r);
    if (dsel < 128) a->dtype = AUG_DTYPE_AUTO;
    else if (dsel < 250) a->dtype = (aug_dtype)(dsel % AUG_NUM_DTYPES);
    else a->dtype = (aug_dtype)(dsel & 1 ? AUG_NUM_DTYPES : -2); /* invalid */
}

static int starts_with(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

static void check_result(const aug_tensor *in, const aug_reshape_args *a, const aug_tensor *out) {
    CHECK(out != NULL);
    fz_check_view(out);
    CHECK(out->storage == in->storage);
    CHECK(aug_tensor_ptr(out) == aug_tensor_ptr(in));
    CHECK(aug_tensor_size(out) * aug_tensor_itemsize(out) == aug_tensor_size(in) * aug_tensor_itemsize(in));
    CHECK(aug_tensor_is_contiguous(out));
    CHECK(out->ndim <= AUG_MAX_DIMS);
    size_t ll = strlen(out->layout);
    CHECK(ll == 0 || ll == (size_t)out->ndim);
    if (a->layout != NULL) CHECK(strcmp(out->layout, a->layout) == 0);
    CHECK(out->dtype == (a->dtype == AUG_DTYPE_AUTO ? in->dtype : a->dtype));
    const int64_t *shape = a->has_shape ? a->shape : a->has_shape_input ? a->shape_input : NULL;
    int n = a->has_shape ? a->shape_ndim : a->shape_input_ndim;
    if (shape != NULL) {
        int wild = 0;
        for (int i = 0; i < n; i++) wild |= shape[i] < 0;
        CHECK(out->ndim == n);
        if (!wild)
            for (int i = 0; i < n; i++) CHECK(out->shape[i] == shape[i]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_reader r = {data, size, 0};
    uint8_t top = fz_u8(&r);
    if ((top & 3) != 3) {
        /* aug_reshape on one tensor */
        aug_tensor *t = fz_tensor(&r, 1);
        if (t == NULL) return 0;
        aug_reshape_args a;
        arg_store s;
        memset(&s, 0, sizeof s);
        fz_args(&r, &a, &s);
        aug_tensor *out = NULL;
        aug_status st = aug_reshape(t, &a, &out);
        if (st == AUG_OK) {
            check_result(t, &a, out);
            aug_tensor_free(out);
        } else {
            CHECK(out == NULL);
            CHECK(starts_with(aug_last_error(), "aug_reshape"));
        }
        aug_tensor_free(t);
        return 0;
    }
    /* aug_reshape_batch: n samples, nargs 1, n or something else */
    int n = fz_u8(&r) % (MAX_BATCH + 1);
    aug_tensor *in[MAX_BATCH] = {0};
    for (int i = 0; i < n; i++) {
        in[i] = fz_tensor(&r, 1);
        if (in[i] == NULL) {
            for (int k = 0; k < i; k++) aug_tensor_free(in[k]);
            return 0;
        }
    }
    int nargs = fz_u8(&r) % 3 == 0 ? 1 : n;
    if (fz_u8(&r) == 255) nargs = (int)(fz_u8(&r) % (MAX_BATCH + 1));
    aug_reshape_args args[MAX_BATCH];
    arg_store stores[MAX_BATCH];
    memset(stores, 0, sizeof stores);
    for (int j = 0; j < nargs; j++) fz_args(&r, &args[j], &stores[j]);
    aug_tensor *out[MAX_BATCH];
    for (int i = 0; i < MAX_BATCH; i++) out[i] = (aug_tensor *)(uintptr_t)0x1; /* must be overwritten */
    aug_status st = aug_reshape_batch(n, (const aug_tensor *const *)in, args, nargs, out);
    if (st == AUG_OK) {
        CHECK(nargs == 1 || nargs == n);
        for (int i = 0; i < n; i++) {
            check_result(in[i], &args[nargs == 1 ? 0 : i], out[i]);
            aug_tensor_free(out[i]);
        }
    } else {
        for (int i = 0; i < n; i++) CHECK(out[i] == NULL);
        CHECK(starts_with(aug_last_error(), "aug_reshape"));
    }
    for (int i = 0; i < n; i++) aug_tensor_free(in[i]);
    return 0;
}
