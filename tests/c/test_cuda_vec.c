/* test_cuda_vec.c: the contiguous fast path of the CUDA elementwise kernels,
 * casts, fills and random fills (src/cuda/vec.cuh): head and tail peeling.
 *
 * Views of lengths 0, 1, 15, 16, 17 and 1023 start 0..15 bytes into one buffer
 * (the same bytes on the CPU and on the device), so the first 16-byte boundary
 * falls on every element of the head, or the view is not even aligned to its
 * element (then the strided path runs). Each op (a binary op into a new tensor
 * and into a view, in place, casts between dtypes of different sizes, fills,
 * uniform random fills) runs on both, and the WHOLE buffer must then be equal
 * byte for byte: a value wrong at either end, or a byte written outside the
 * view, fails. The buffer's bytes have bit 6 clear, so no float is NaN or
 * infinite and raw bytes compare exactly. On the emulated device the fast
 * kernels must have run (aug_emu_launches, th_emu_launches: dlsym in the loaded
 * module) for aligned views, and not for views misaligned to their element. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "aug/aug.h"
#include "helpers/th_cuda.h"

enum { PAD = 64, MAXN = 1023, REGION = MAXN * 8 + PAD, BYTES = 3 * REGION };
static const int64_t LENS[] = {0, 1, 15, 16, 17, MAXN};

/* ---- the emulator's launch counts ---------------------------------------------------- */


/* ---- one buffer on both devices -------------------------------------------------------- */

typedef struct pair {
    aug_tensor *buf[2];   /* BYTES uint8: [0] on the CPU, [1] on cuda:0 */
    aug_storage *st[2];   /* their memory, for views at any byte offset */
} pair;

static void pair_new(pair *p, uint64_t seed) {
    int64_t n = BYTES;
    p->buf[0] = aug_tensor_empty(1, &n, AUG_UINT8, CPU);
    assert_non_null(p->buf[0]);
    uint8_t *b = aug_tensor_ptr(p->buf[0]);
    for (int64_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        b[i] = (uint8_t)(seed >> 56) & 0xbf; /* no float of any width is NaN or infinite */
    }
    p->buf[1] = aug_tensor_to(p->buf[0], TH_CUDA0);
    assert_non_null(p->buf[1]);
    for (int d = 0; d < 2; d++) {
        p->st[d] = aug_storage_wrap(aug_tensor_ptr(p->buf[d]), BYTES, d ? TH_CUDA0 : CPU, NULL, NULL);
        assert_non_null(p->st[d]);
    }
}

static void pair_free(pair *p) {
    for (int d = 0; d < 2; d++) aug_storage_release(p->st[d]), aug_tensor_free(p->buf[d]);
}

/* n elements of dtype t from byte off of region r, on device d. */
static aug_tensor *view(pair *p, int d, int r, int64_t off, int64_t n, aug_dtype t) {
    aug_tensor *v = aug_tensor_from_storage(p->st[d], (int64_t)r * REGION + off, 1, &n, NULL, t);
    assert_non_null(v);
    return v;
}

/* The whole buffers must be equal. */
static void pair_check(pair *p, const char *what, int64_t n, int64_t off) {
    size_t na, nb;
    unsigned char *a = th_bytes_of(p->buf[0], &na), *b = th_bytes_of(p->buf[1], &nb);
    assert_int_equal(na, nb);
    for (size_t i = 0; i < na; i++)
        if (a[i] != b[i])
            fail_msg("%s, n %lld, offset %lld: byte %zu (region %zu, +%zu) is %u on the CPU, %u on cuda:0", what,
                     (long long)n, (long long)off, i, i / REGION, i % REGION, a[i], b[i]);
    free(a), free(b);
}

/* ---- the ops ------------------------------------------------------------------------------ */

static const aug_dtype OP_TYPES[] = {AUG_UINT8, AUG_INT16, AUG_FLOAT16, AUG_FLOAT32, AUG_FLOAT64, AUG_INT64};

/* a + b (b at the same offset as a, or 2 elements further) into a new tensor,
 * copied into region 2; into a view of region 2 (*out given); a += a in place. */
static void test_binary(void **state) {
    (void)state;
    NEED_CUDA();
    pair p;
    pair_new(&p, 1);
    for (size_t ti = 0; ti < sizeof OP_TYPES / sizeof OP_TYPES[0]; ti++) {
        const aug_dtype t = OP_TYPES[ti];
        const int64_t sz = (int64_t)aug_dtype_info(t)->size;
        for (size_t li = 0; li < sizeof LENS / sizeof LENS[0]; li++)
            for (int64_t off = 0; off < 16; off++)
                for (int shift = 0; shift < 2; shift++) {
                    const int64_t n = LENS[li], boff = off + shift * 2 * sz;
                    char what[96];
                    snprintf(what, sizeof what, "add %s (b %s)", aug_dtype_name(t), shift ? "shifted" : "beside");
                    for (int d = 0; d < 2; d++) {
                        aug_tensor *a = view(&p, d, 0, off, n, t), *b = view(&p, d, 1, boff, n, t);
                        aug_tensor *r = NULL, *o = view(&p, d, 2, off, n, t);
                        assert_int_equal(aug_binary(AUG_OP_ADD, a, b, &r), AUG_OK);
                        assert_int_equal(aug_binary(AUG_OP_SUB, r, b, &o), AUG_OK); /* into the view */
                        assert_int_equal(aug_binary(AUG_OP_MUL, a, a, &a), AUG_OK); /* in place */
                        aug_tensor_free(a), aug_tensor_free(b), aug_tensor_free(r), aug_tensor_free(o);
                    }
                    pair_check(&p, what, n, off);
                }
    }
    pair_free(&p);
}

/* Casts between dtypes of different sizes (and a same-dtype copy): src at
 * offset off of region 0, dst at offset off2 of region 1 (aug_copy). */
static void test_cast(void **state) {
    (void)state;
    NEED_CUDA();
    static const aug_dtype pairs[][2] = {
        {AUG_UINT8, AUG_FLOAT32}, {AUG_FLOAT32, AUG_UINT8},    {AUG_INT16, AUG_FLOAT64}, {AUG_FLOAT64, AUG_FLOAT16},
        {AUG_FLOAT32, AUG_FLOAT32}, {AUG_BOOL, AUG_INT32},    {AUG_INT64, AUG_INT8},    {AUG_BFLOAT16, AUG_UINT16},
        {AUG_FLOAT16, AUG_FLOAT16}, {AUG_UINT16, AUG_FLOAT32}, {AUG_UINT8, AUG_BFLOAT16},
    };
    pair p;
    pair_new(&p, 2);
    for (size_t pi = 0; pi < sizeof pairs / sizeof pairs[0]; pi++) {
        const aug_dtype s = pairs[pi][0], t = pairs[pi][1];
        const long long before = th_emu_launches("aug__k_castv");
        for (size_t li = 0; li < sizeof LENS / sizeof LENS[0]; li++)
            for (int64_t off = 0; off < 16; off++)
                for (int64_t off2 = 0; off2 < 16; off2 += 3) {
                    const int64_t n = LENS[li];
                    char what[96];
                    snprintf(what, sizeof what, "cast %s -> %s (dst +%lld)", aug_dtype_name(s), aug_dtype_name(t),
                             (long long)off2);
                    for (int d = 0; d < 2; d++) {
                        aug_tensor *a = view(&p, d, 0, off, n, s), *o = view(&p, d, 1, off2, n, t);
                        assert_int_equal(aug_copy(a, o), AUG_OK);
                        aug_tensor_free(a), aug_tensor_free(o);
                    }
                    pair_check(&p, what, n, off);
                }
        /* the vector kernel serves copies and the casts to or from uint8 or float32 (docs/cuda.md);
         * the other pairs take the strided kernel */
        const int vec = s == t || s == AUG_UINT8 || t == AUG_UINT8 || s == AUG_FLOAT32 || t == AUG_FLOAT32;
        if (before >= 0) assert_int_equal(th_emu_launches("aug__k_castv") > before, vec);
    }
    pair_free(&p);
}

/* Fills of every op dtype (and bool) at every offset; a view misaligned to its
 * element takes the strided kernel. */
static void test_fill(void **state) {
    (void)state;
    NEED_CUDA();
    pair p;
    pair_new(&p, 3);
    aug_scalar v = aug_scalar_float(-1234.5);
    for (size_t ti = 0; ti <= sizeof OP_TYPES / sizeof OP_TYPES[0]; ti++) {
        const aug_dtype t = ti < sizeof OP_TYPES / sizeof OP_TYPES[0] ? OP_TYPES[ti] : AUG_BOOL;
        const int64_t sz = (int64_t)aug_dtype_info(t)->size;
        for (size_t li = 0; li < sizeof LENS / sizeof LENS[0]; li++)
            for (int64_t off = 0; off < 16; off++) {
                const int64_t n = LENS[li];
                const long long before = th_emu_launches("aug__k_fillv");
                for (int d = 0; d < 2; d++) {
                    aug_tensor *a = view(&p, d, 0, off, n, t);
                    assert_int_equal(aug_fill(a, &v), AUG_OK);
                    aug_tensor_free(a);
                }
                char what[64];
                snprintf(what, sizeof what, "fill %s", aug_dtype_name(t));
                pair_check(&p, what, n, off);
                if (before >= 0 && n > 0) assert_int_equal(th_emu_launches("aug__k_fillv") - before, off % sz == 0);
            }
    }
    pair_free(&p);
}

/* Uniform random fills from the same seed on both devices. */
static void test_random(void **state) {
    (void)state;
    NEED_CUDA();
    static const aug_dtype types[] = {AUG_UINT8, AUG_INT16, AUG_FLOAT32, AUG_FLOAT64, AUG_BFLOAT16};
    pair p;
    pair_new(&p, 4);
    const uint64_t seed = 1234;
    aug_rng *rng[2] = {aug_rng_new(CPU, &seed), aug_rng_new(TH_CUDA0, &seed)};
    assert_non_null(rng[0]);
    assert_non_null(rng[1]);
    const long long before = th_emu_launches("aug__k_randomv");
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++)
        for (size_t li = 0; li < sizeof LENS / sizeof LENS[0]; li++)
            for (int64_t off = 0; off < 16; off++) {
                const int64_t n = LENS[li];
                for (int d = 0; d < 2; d++) {
                    aug_tensor *a = view(&p, d, 0, off, n, types[ti]);
                    assert_int_equal(aug_rng_uniform(rng[d], a, -3.0, 100.0), AUG_OK);
                    aug_tensor_free(a);
                }
                char what[64];
                snprintf(what, sizeof what, "uniform %s", aug_dtype_name(types[ti]));
                pair_check(&p, what, n, off);
            }
    if (before >= 0) assert_true(th_emu_launches("aug__k_randomv") > before);
    aug_rng_free(rng[0]), aug_rng_free(rng[1]);
    pair_free(&p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_binary), cmocka_unit_test(test_cast), cmocka_unit_test(test_fill),
        cmocka_unit_test(test_random), AT_1024(test_binary),        AT_1024(test_cast),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
