/* test_random.c: the random fills (semantics §11, include/aug/random.h).
 *
 * Philox-4x32-10 against Random123's published known-answer vectors
 * (tests/kat_vectors of github.com/DEShawResearch/random123), the AVX2 and
 * AVX-512 Philox runs against Random123's scalar function and against the
 * portable run over 10^8 words at random counters, the documented value
 * mapping recomputed here from the raw Philox words (exact for uniform draws and
 * double Box-Muller, a tolerance for the float32 Box-Muller), identical bytes for
 * 1, 2 and 5 threads and for every vector path, strided views against contiguous
 * tensors, endpoints, error messages, and state save/restore. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <Random123/philox.h>
#include "aug/aug.h"
#include "core/error.h"
#include "cpu/random.h"
#include "cpu/simd.h"

typedef unsigned __int128 u128;

static const aug_dtype ALL[] = {AUG_BOOL,   AUG_INT8,   AUG_INT16,   AUG_INT32,   AUG_INT64,
                                AUG_UINT8,  AUG_UINT16, AUG_UINT32,  AUG_UINT64,  AUG_FLOAT16,
                                AUG_BFLOAT16, AUG_FLOAT32, AUG_FLOAT64};
#define NALL 13

static aug_tensor *new1(int64_t n, aug_dtype t) {
    aug_tensor *x = aug_tensor_zeros(1, &n, t, aug_cpu_device());
    assert_non_null(x);
    return x;
}

static aug_rng *new_rng(uint64_t seed) {
    aug_rng *r = aug_rng_new(aug_cpu_device(), &seed);
    assert_non_null(r);
    return r;
}

/* Philox words of element i, call n, via Random123's scalar function itself
 * (the library's own implementation, scalar/philox.h, is checked against it). */
static void words(uint64_t seed, uint64_t n, uint64_t i, uint32_t x[4]) {
    philox4x32_ctr_t c = {{(uint32_t)i, (uint32_t)(i >> 32), (uint32_t)n, (uint32_t)(n >> 32)}};
    philox4x32_key_t k = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
    c = philox4x32_R(10, c, k);
    for (int w = 0; w < 4; w++) x[w] = c.v[w];
}

/* aug_philox4x32_10 (scalar/philox.h) equals Random123's philox4x32_R(10, ...)
 * on counters and keys spread over the whole 128/64-bit ranges. */
static void test_philox_vs_random123(void **state) {
    (void)state;
    uint64_t z = 0x9e3779b97f4a7c15ull;
    for (int t = 0; t < 100000; t++) {
        uint32_t ctr[4], key[2], got[4], want[4];
        for (int w = 0; w < 6; w++) {
            z += 0x9e3779b97f4a7c15ull; /* splitmix64 */
            uint64_t r = z;
            r = (r ^ (r >> 30)) * 0xbf58476d1ce4e5b9ull;
            r = (r ^ (r >> 27)) * 0x94d049bb133111ebull;
            r ^= r >> 31;
            if (w < 4) ctr[w] = (uint32_t)r;
            else key[w - 4] = (uint32_t)r;
        }
        aug_philox4x32_10(ctr, key, got);
        words(key[0] | (uint64_t)key[1] << 32, ctr[2] | (uint64_t)ctr[3] << 32, ctr[0] | (uint64_t)ctr[1] << 32,
              want);
        assert_memory_equal(got, want, sizeof got);
    }
}

/* ---- Philox ------------------------------------------------------------------------- */

static const struct { uint32_t ctr[4], key[2], out[4]; } KAT[] = {
    {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

static void test_known_answers(void **state) {
    (void)state;
    for (int v = 0; v < 3; v++) {
        uint32_t out[4];
        aug_philox4x32_10(KAT[v].ctr, KAT[v].key, out);
        assert_memory_equal(out, KAT[v].out, sizeof out);
        /* every vector path, with the KAT counter as (i, call) placed in the middle of a run */
        uint64_t i = KAT[v].ctr[0] | (uint64_t)KAT[v].ctr[1] << 32;
        uint64_t call = KAT[v].ctr[2] | (uint64_t)KAT[v].ctr[3] << 32;
        int levels[] = {AUG__SIMD_NONE, AUG__SIMD_AVX2, AUG__SIMD_AVX512};
        for (int l = 0; l < 3; l++) {
            uint32_t x[4][64];
            aug__philox_run(levels[l], KAT[v].key, call, i - 37, 64, x[0], x[1], x[2], x[3]);
            for (int w = 0; w < 4; w++) assert_int_equal(x[w][37], KAT[v].out[w]);
        }
    }
}

static void test_philox_paths(void **state) {
    (void)state;
    /* runs crossing the 2^32 boundary of the low counter word, odd lengths */
    static uint32_t ref[4][1003], got[4][1003];
    const uint32_t key[2] = {0x12345678, 0x9abcdef0};
    uint64_t starts[] = {0, 0xffffff00u, 0x1fffffe11ull, UINT64_MAX - 500};
    for (int s = 0; s < 4; s++) {
        for (int64_t j = 0; j < 1003; j++) {
            uint32_t x[4];
            words(key[0] | (uint64_t)key[1] << 32, 77, starts[s] + (uint64_t)j, x);
            for (int w = 0; w < 4; w++) ref[w][j] = x[w];
        }
        int levels[] = {AUG__SIMD_NONE, AUG__SIMD_AVX2, AUG__SIMD_AVX512, -1};
        for (int l = 0; l < 4; l++) {
            memset(got, 0, sizeof got);
            aug__philox_run(levels[l], key, 77, starts[s], 1003, got[0], got[1], got[2], got[3]);
            assert_memory_equal(got, ref, sizeof ref);
        }
    }
}

/* The AVX2 and AVX-512 runs equal the portable one (scalar/philox.h) over 10^8
 * 32-bit words (2.5e7 blocks): 100 windows of 250 000 counters, each with a
 * random key, call and start anywhere in the 64-bit range (some just below a
 * 2^32 carry of the low word), in runs of random odd and even lengths. */
static uint64_t splitmix(uint64_t *z) {
    uint64_t r = (*z += 0x9e3779b97f4a7c15ull);
    r = (r ^ (r >> 30)) * 0xbf58476d1ce4e5b9ull;
    r = (r ^ (r >> 27)) * 0x94d049bb133111ebull;
    return r ^ (r >> 31);
}

static void test_philox_paths_1e8(void **state) {
    (void)state;
    enum { RUN = 4099 };
    static uint32_t ref[4][RUN], got[4][RUN];
    uint64_t z = 0xd1b54a32d192ed03ull;
    for (int win = 0; win < 100; win++) {
        const uint64_t seed = splitmix(&z), call = splitmix(&z);
        uint64_t start = splitmix(&z);
        if (win % 4 == 1) start = (start | 0xffffffffull) - 1000; /* crosses a low-word carry */
        const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
        for (int64_t done = 0; done < 250000;) {
            int64_t n = 1 + (int64_t)(splitmix(&z) % RUN);
            if (n > 250000 - done) n = 250000 - done;
            const uint64_t i0 = start + (uint64_t)done;
            aug__philox_run(AUG__SIMD_NONE, key, call, i0, n, ref[0], ref[1], ref[2], ref[3]);
            const int levels[2] = {AUG__SIMD_AVX2, AUG__SIMD_AVX512};
            for (int l = 0; l < 2; l++) {
                aug__philox_run(levels[l], key, call, i0, n, got[0], got[1], got[2], got[3]);
                for (int w = 0; w < 4; w++)
                    if (memcmp(got[w], ref[w], (size_t)n * sizeof(uint32_t)))
                        fail_msg("level %d: seed %llx call %llx counters %llx + %lld differ", levels[l],
                                 (unsigned long long)seed, (unsigned long long)call, (unsigned long long)i0,
                                 (long long)n);
            }
            done += n;
        }
    }
}

/* ---- the documented mapping ---------------------------------------------------------- */

static double unit52(uint32_t lo, uint32_t hi) {
    uint64_t a = ((uint64_t)lo | (uint64_t)hi << 32) >> 12;
    return (double)a * 0x1p-52;
}

static void test_uniform_mapping(void **state) {
    (void)state;
    const uint64_t seed = 0xdeadbeefcafe1234ull;
    const int64_t n = 3000;
    aug_rng *rng = new_rng(seed);
    aug_rng_state st0 = {seed, 5};
    aug_rng_set_state(rng, &st0);
    /* float64 in [-2.5, 7) */
    aug_tensor *t = new1(n, AUG_FLOAT64);
    assert_int_equal(aug_rng_uniform(rng, t, -2.5, 7.0), AUG_OK);
    for (int64_t i = 0; i < n; i++) {
        uint32_t x[4];
        words(seed, 5, (uint64_t)i, x);
        double want = -2.5 + unit52(x[0], x[1]) * 9.5;
        assert_true(((double *)aug_tensor_ptr(t))[i] == want);
    }
    aug_tensor_free(t);
    /* float32 in [0, 1) */
    t = new1(n, AUG_FLOAT32);
    assert_int_equal(aug_rng_uniform(rng, t, 0.0, 1.0), AUG_OK);
    for (int64_t i = 0; i < n; i++) {
        uint32_t x[4];
        words(seed, 6, (uint64_t)i, x);
        double v = unit52(x[0], x[1]);
        float want = (float)v; /* rounded down to float32 */
        if ((double)want > v) want = nextafterf(want, -INFINITY);
        assert_true(((float *)aug_tensor_ptr(t))[i] == want);
    }
    aug_tensor_free(t);
    /* int16 in [-1000.5, 1000.5): integers -1000 ... 1000, count 2001 */
    t = new1(n, AUG_INT16);
    assert_int_equal(aug_rng_uniform(rng, t, -1000.5, 1000.5), AUG_OK);
    for (int64_t i = 0; i < n; i++) {
        uint32_t x[4];
        words(seed, 7, (uint64_t)i, x);
        uint64_t a = (uint64_t)x[0] | (uint64_t)x[1] << 32;
        int64_t want = -1000 + (int64_t)(((u128)a * 2001) >> 64);
        assert_int_equal(((int16_t *)aug_tensor_ptr(t))[i], want);
    }
    aug_tensor_free(t);
    /* uint64 in [10, 1e19): 128-bit draw, count = 1e19 - 10 */
    t = new1(n, AUG_UINT64);
    assert_int_equal(aug_rng_uniform(rng, t, 10.0, 1e19), AUG_OK);
    u128 cnt = (u128)10000000000000000000ull - 10;
    for (int64_t i = 0; i < n; i++) {
        uint32_t x[4];
        words(seed, 8, (uint64_t)i, x);
        u128 w = (u128)x[0] | (u128)x[1] << 32 | (u128)x[2] << 64 | (u128)x[3] << 96;
        /* floor(w * cnt / 2^128) by 64-bit limbs */
        u128 lo = (w & UINT64_MAX) * cnt, hi = (w >> 64) * cnt;
        uint64_t want = 10 + (uint64_t)((hi + (lo >> 64)) >> 64);
        assert_true(((uint64_t *)aug_tensor_ptr(t))[i] == want);
    }
    aug_tensor_free(t);
    /* int64 over its whole range: count 2^64, the value is lo + the high draw */
    t = new1(n, AUG_INT64);
    assert_int_equal(aug_rng_uniform(rng, t, -0x1p63, 0x1p63), AUG_OK);
    for (int64_t i = 0; i < n; i++) {
        uint32_t x[4];
        words(seed, 9, (uint64_t)i, x);
        uint64_t want = (uint64_t)INT64_MIN + ((uint64_t)x[2] | (uint64_t)x[3] << 32);
        assert_true((uint64_t)((int64_t *)aug_tensor_ptr(t))[i] == want);
    }
    aug_tensor_free(t);
    aug_rng_free(rng);
}

static void test_gaussian_mapping(void **state) {
    (void)state;
    const uint64_t seed = 42;
    const int64_t n = 5000;
    aug_rng *rng = new_rng(seed);
    aug_tensor *t = new1(n, AUG_FLOAT64);
    aug_tensor *f = new1(n, AUG_FLOAT32);
    assert_int_equal(aug_rng_gaussian(rng, t, 1.5, 2.0), AUG_OK);
    assert_int_equal(aug_rng_gaussian(rng, f, 1.5, 2.0), AUG_OK);
    double maxerr = 0;
    for (int64_t i = 0; i < n; i++) {
        uint32_t x[4];
        words(seed, 0, (uint64_t)i, x);
        uint64_t a = (uint64_t)x[0] | (uint64_t)x[1] << 32, b = (uint64_t)x[2] | (uint64_t)x[3] << 32;
        double u1 = (double)((a >> 11) + 1) * 0x1p-53, u2 = (double)(b >> 11) * 0x1p-53;
        double want = 1.5 + 2.0 * (sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
        assert_true(((double *)aug_tensor_ptr(t))[i] == want);
        /* float32 path: same formula from its 32/24-bit uniforms, a few float ulp */
        words(seed, 1, (uint64_t)i, x);
        double v1 = (double)(float)(int32_t)(x[0] >> 1) * 0x1p-31 + 0x1p-32;
        double v2 = (double)(x[2] >> 8) * 0x1p-24;
        double z = sqrt(-2.0 * log((float)v1)) * cos(6.283185307179586 * v2);
        double err = fabs(((float *)aug_tensor_ptr(f))[i] - (1.5 + 2.0 * z)) / (1.0 + fabs(1.5 + 2.0 * z));
        if (err > maxerr) maxerr = err;
    }
    assert_true(maxerr < 4e-7);
    aug_tensor_free(t);
    aug_tensor_free(f);
    aug_rng_free(rng);
    /* the float32 pieces over their whole domains */
    for (int k = 0; k <= 100000; k++) {
        float u = (float)k / 100000.0f * 0.99999994f;
        assert_true(fabs(aug__rng_cos2pif(u) - cos(6.283185307179586 * (double)u)) < 3e-7);
        float x = ldexpf(1.0f + (float)k / 100000.0f, -1 - k % 32);
        if (x > 1.0f) x = 1.0f;
        assert_true(fabs(aug__rng_logf(x) - log((double)x)) < 3e-7 * (1.0 + fabs(log((double)x))));
    }
}

/* ---- reproducibility ----------------------------------------------------------------- */

static void fill(aug_rng *rng, aug_tensor *t, int gaussian, aug_dtype dt) {
    aug_status st;
    if (gaussian)
        st = aug_rng_gaussian(rng, t, 3.0, dt == AUG_FLOAT16 || aug_dtype_info(dt)->kind != AUG_KIND_FLOAT ? 50.0 : 1e3);
    else
        st = aug_rng_uniform(rng, t, -100.0, 200.0);
    assert_int_equal(st, AUG_OK);
}

static void test_threads_and_paths(void **state) {
    (void)state;
    const int64_t n = 100003; /* several tasks, a ragged end */
    int threads[] = {1, 2, 5};
    int levels[] = {AUG__SIMD_NONE, AUG__SIMD_AVX2, AUG__SIMD_AVX512};
    for (int d = 0; d < NALL; d++) {
        for (int g = 0; g < 2; g++) {
            aug_tensor *ref = NULL;
            for (int k = 0; k < 3; k++) {
                for (int l = 0; l < 3; l++) {
                    aug_set_num_threads(threads[k]);
                    aug__random_level = levels[l];
                    aug_rng *rng = new_rng(1234);
                    aug_tensor *t = new1(n, ALL[d]);
                    fill(rng, t, g, ALL[d]);
                    if (ref == NULL) {
                        ref = t;
                    } else {
                        if (memcmp(aug_tensor_ptr(t), aug_tensor_ptr(ref), (size_t)(n * aug_tensor_itemsize(t))))
                            fail_msg("%s %s: threads %d level %d differ", aug_dtype_name(ALL[d]),
                                     g ? "gaussian" : "uniform", threads[k], levels[l]);
                        aug_tensor_free(t);
                    }
                    aug_rng_free(rng);
                }
            }
            aug_tensor_free(ref);
        }
    }
    aug__random_level = -1;
    aug_set_num_threads(0);
}

static void test_strided(void **state) {
    (void)state;
    /* a (6, 7, 300) buffer viewed as [::-2, :, 1::3] permuted to (300/3, 3, 7) */
    int64_t shape[3] = {6, 7, 300};
    for (int d = 0; d < NALL; d++) {
        for (int g = 0; g < 2; g++) {
            aug_tensor *buf = aug_tensor_zeros(3, shape, ALL[d], aug_cpu_device());
            aug_index idx[3] = {{.kind = AUG_INDEX_SLICE, .step = -2},
                                {.kind = AUG_INDEX_SLICE, .step = 1},
                                {.kind = AUG_INDEX_SLICE, .start = 1, .has_start = 1, .step = 3}};
            aug_tensor *v = aug_tensor_index(buf, 3, idx);
            int perm[3] = {2, 0, 1};
            aug_tensor *p = aug_tensor_permute(v, perm);
            assert_non_null(p);
            assert_false(aug_tensor_is_contiguous(p));
            aug_tensor *c = aug_tensor_empty(3, p->shape, ALL[d], aug_cpu_device());
            aug_rng *r1 = new_rng(99), *r2 = new_rng(99);
            fill(r1, p, g, ALL[d]);
            fill(r2, c, g, ALL[d]);
            aug_tensor *pc = aug_tensor_contiguous(p);
            assert_memory_equal(aug_tensor_ptr(pc), aug_tensor_ptr(c), (size_t)(aug_tensor_size(c) * aug_tensor_itemsize(c)));
            aug_tensor_free(pc);
            aug_tensor_free(c);
            aug_tensor_free(p);
            aug_tensor_free(v);
            aug_tensor_free(buf);
            aug_rng_free(r1);
            aug_rng_free(r2);
        }
    }
    /* a broadcast view (stride 0) or any view whose elements share memory is refused */
    aug_tensor *one = new1(1, AUG_FLOAT64);
    ((double *)aug_tensor_ptr(one))[0] = -1.0;
    int64_t five = 5;
    aug_tensor *b = aug_tensor_broadcast_to(one, 1, &five);
    aug_rng *r1 = new_rng(7);
    assert_int_equal(aug_rng_uniform(r1, b, 0, 1), AUG_ERR_VALUE);
    assert_string_equal(aug_last_error(), "aug_rng_uniform: target has a zero stride on axis 0, so several elements "
                                          "share one memory location; write to a contiguous tensor instead");
    assert_int_equal(aug_rng_gaussian(r1, b, 0, 1), AUG_ERR_VALUE);
    assert_true(((double *)aug_tensor_ptr(one))[0] == -1.0);
    aug_tensor_free(b);
    aug_tensor_free(one);
    aug_rng_free(r1);
}

/* ---- ranges, errors, state ----------------------------------------------------------- */

static void test_endpoints(void **state) {
    (void)state;
    aug_rng *rng = new_rng(5);
    const int64_t n = 200000;
    /* uint8 [0, 256): every value occurs */
    aug_tensor *t = new1(n, AUG_UINT8);
    assert_int_equal(aug_rng_uniform(rng, t, 0, 256), AUG_OK);
    int seen[256] = {0};
    for (int64_t i = 0; i < n; i++) seen[((uint8_t *)aug_tensor_ptr(t))[i]] = 1;
    for (int v = 0; v < 256; v++) assert_true(seen[v]);
    aug_tensor_free(t);
    /* float32 [1, 1 + 2^-22): exactly the values 1 and 1 + 2^-23, vmax never */
    t = new1(n, AUG_FLOAT32);
    assert_int_equal(aug_rng_uniform(rng, t, 1.0, 1.0 + 0x1p-22), AUG_OK);
    int64_t c1 = 0, c2 = 0;
    for (int64_t i = 0; i < n; i++) {
        float v = ((float *)aug_tensor_ptr(t))[i];
        c1 += v == 1.0f;
        c2 += v == 1.0f + 0x1p-23f;
    }
    assert_int_equal(c1 + c2, n);
    assert_true(c1 > n * 0.49 && c2 > n * 0.49); /* rounding down: half each */
    aug_tensor_free(t);
    /* float16 [0.1, 0.1005): every value of float16 in range, 0.1 itself is not one */
    t = new1(n, AUG_FLOAT16);
    assert_int_equal(aug_rng_uniform(rng, t, 0.1, 0.1005), AUG_OK);
    for (int64_t i = 0; i < n; i++) {
        double v = aug_f16_to_f64(((uint16_t *)aug_tensor_ptr(t))[i]);
        assert_true(v >= 0.1 && v < 0.1005);
    }
    aug_tensor_free(t);
    /* bool: [0, 2) is a coin, [0.5, 1.5) is always true */
    t = new1(n, AUG_BOOL);
    assert_int_equal(aug_rng_uniform(rng, t, 0.5, 1.5), AUG_OK);
    for (int64_t i = 0; i < n; i++) assert_int_equal(((uint8_t *)aug_tensor_ptr(t))[i], 1);
    aug_tensor_free(t);
    /* integer ranges beyond the dtype are clipped to it: int8 [-1000, 1000) */
    t = new1(n, AUG_INT8);
    assert_int_equal(aug_rng_uniform(rng, t, -1000, 1000), AUG_OK);
    int64_t lo = 0, hi = 0;
    for (int64_t i = 0; i < n; i++) {
        int8_t v = ((int8_t *)aug_tensor_ptr(t))[i];
        lo += v == -128;
        hi += v == 127;
    }
    assert_true(lo > 400 && lo < 1200 && hi > 400 && hi < 1200); /* about n / 256 each */
    aug_tensor_free(t);
    /* gaussian int8 mean 5 std 80 saturates */
    t = new1(n, AUG_INT8);
    assert_int_equal(aug_rng_gaussian(rng, t, 5, 80), AUG_OK);
    lo = hi = 0;
    for (int64_t i = 0; i < n; i++) {
        int8_t v = ((int8_t *)aug_tensor_ptr(t))[i];
        lo += v == -128;
        hi += v == 127;
    }
    assert_true(lo > 0.04 * n && hi > 0.055 * n); /* P(z < -1.67) = 0.047, P(z >= 1.52) = 0.064 */
    aug_tensor_free(t);
    aug_rng_free(rng);
}

static void expect_error(aug_status st, aug_status want, const char *prefix, const char *part) {
    assert_int_equal(st, want);
    const char *msg = aug_last_error();
    if (strncmp(msg, prefix, strlen(prefix)) != 0 || strstr(msg, part) == NULL)
        fail_msg("unexpected message '%s' (want '%s' ... '%s')", msg, prefix, part);
}

static void test_errors(void **state) {
    (void)state;
    aug_rng *rng = new_rng(1);
    aug_tensor *f = new1(10, AUG_FLOAT32), *i8 = new1(10, AUG_INT8), *h = new1(10, AUG_FLOAT16);
    expect_error(aug_rng_uniform(rng, f, 1.0, 1.0), AUG_ERR_VALUE, "aug_rng_uniform: ", "vmin must be < vmax");
    expect_error(aug_rng_uniform(rng, f, 2.0, 1.0), AUG_ERR_VALUE, "aug_rng_uniform: ", "vmin=2");
    expect_error(aug_rng_uniform(rng, f, NAN, 1.0), AUG_ERR_VALUE, "aug_rng_uniform: ", "vmin must be finite");
    expect_error(aug_rng_uniform(rng, f, 0.0, INFINITY), AUG_ERR_VALUE, "aug_rng_uniform: ", "vmax must be finite");
    expect_error(aug_rng_uniform(rng, i8, 0.2, 0.9), AUG_ERR_VALUE, "aug_rng_uniform: ", "no int8 value");
    expect_error(aug_rng_uniform(rng, i8, 200, 300), AUG_ERR_VALUE, "aug_rng_uniform: ", "no int8 value");
    expect_error(aug_rng_uniform(rng, h, 0.1, 0.10001), AUG_ERR_VALUE, "aug_rng_uniform: ", "no float16 value");
    expect_error(aug_rng_uniform(rng, h, 70000, 80000), AUG_ERR_VALUE, "aug_rng_uniform: ", "no float16 value");
    expect_error(aug_rng_uniform(NULL, f, 0, 1), AUG_ERR_VALUE, "aug_rng_uniform: ", "rng is NULL");
    expect_error(aug_rng_uniform(rng, NULL, 0, 1), AUG_ERR_VALUE, "aug_rng_uniform: ", "NULL");
    expect_error(aug_rng_gaussian(rng, f, 0.0, -1.0), AUG_ERR_VALUE, "aug_rng_gaussian: ", "std must be >= 0");
    expect_error(aug_rng_gaussian(rng, f, NAN, 1.0), AUG_ERR_VALUE, "aug_rng_gaussian: ", "mean must be finite");
    expect_error(aug_rng_gaussian(rng, f, 0.0, INFINITY), AUG_ERR_VALUE, "aug_rng_gaussian: ", "std must be finite");
    aug_device cuda = {AUG_DEVICE_CUDA, 0};
    assert_null(aug_rng_new(cuda, NULL));
    assert_true(strncmp(aug_last_error(), "aug_rng_new: ", 13) == 0);
    aug_device cpu1 = {AUG_DEVICE_CPU, 1};
    assert_null(aug_rng_new(cpu1, NULL));
    /* failed calls do not count */
    aug_rng_state s;
    assert_int_equal(aug_rng_get_state(rng, &s), AUG_OK);
    assert_int_equal(s.calls, 0);
    aug_tensor_free(f);
    aug_tensor_free(i8);
    aug_tensor_free(h);
    aug_rng_free(rng);
    aug_rng_free(NULL);
}

static void test_state(void **state) {
    (void)state;
    aug_rng *rng = new_rng(2024);
    aug_tensor *a = new1(1000, AUG_FLOAT32), *b = new1(1000, AUG_FLOAT32);
    int64_t zero = 0;
    aug_tensor *empty = aug_tensor_empty(1, &zero, AUG_FLOAT32, aug_cpu_device());
    assert_int_equal(aug_rng_uniform(rng, empty, 0, 1), AUG_OK); /* counts as a call */
    aug_rng_state s;
    assert_int_equal(aug_rng_get_state(rng, &s), AUG_OK);
    assert_true(s.seed == 2024 && s.calls == 1);
    assert_int_equal(aug_rng_gaussian(rng, a, 0, 1), AUG_OK);
    assert_int_equal(aug_rng_set_state(rng, &s), AUG_OK);
    assert_int_equal(aug_rng_gaussian(rng, b, 0, 1), AUG_OK);
    assert_memory_equal(aug_tensor_ptr(a), aug_tensor_ptr(b), 4000);
    /* the next call differs */
    assert_int_equal(aug_rng_gaussian(rng, b, 0, 1), AUG_OK);
    assert_true(memcmp(aug_tensor_ptr(a), aug_tensor_ptr(b), 4000) != 0);
    assert_int_equal(aug_rng_get_state(rng, &s), AUG_OK);
    assert_int_equal(s.calls, 3);
    /* entropy seeds differ */
    aug_rng *e1 = aug_rng_new(aug_cpu_device(), NULL), *e2 = aug_rng_new(aug_cpu_device(), NULL);
    aug_rng_state s1, s2;
    aug_rng_get_state(e1, &s1);
    aug_rng_get_state(e2, &s2);
    assert_true(s1.seed != s2.seed);
    expect_error(aug_rng_get_state(NULL, &s), AUG_ERR_VALUE, "aug_rng_get_state: ", "rng is NULL");
    expect_error(aug_rng_set_state(rng, NULL), AUG_ERR_VALUE, "aug_rng_set_state: ", "state is NULL");
    aug_rng_free(e1);
    aug_rng_free(e2);
    aug_tensor_free(a);
    aug_tensor_free(b);
    aug_tensor_free(empty);
    aug_rng_free(rng);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_answers),
        cmocka_unit_test(test_philox_vs_random123),   cmocka_unit_test(test_philox_paths),
        cmocka_unit_test(test_philox_paths_1e8),
        cmocka_unit_test(test_uniform_mapping), cmocka_unit_test(test_gaussian_mapping),
        cmocka_unit_test(test_threads_and_paths), cmocka_unit_test(test_strided),
        cmocka_unit_test(test_endpoints),       cmocka_unit_test(test_errors),
        cmocka_unit_test(test_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
