/* test_noise_table.c: the CPU's vector paths of the integer Gaussian noise
 * (src/cpu/noise_table.c) give the shared rule's k (scalar/noise_table.h) for
 * every word that can sit on an edge: each threshold q[j] and its neighbours,
 * each fine bucket's first and last value, 0 and 2^32 - 1, and random words,
 * for tables from a fraction of a level to many thresholds per bucket. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/normalize.h"
#include "cpu/noise_table.h"
#include "cpu/simd.h"
#include "scalar/noise_table.h"

static uint32_t lcg(uint32_t *s) { return *s = *s * 1664525u + 1013904223u; }

static void test_vector_paths_equal_the_rule(void **state) {
    (void)state;
    const int cpu = aug__simd_cpu_level();
    if (cpu < AUG__SIMD_AVX2) skip();
    /* (mean, std): |mean| + 6.5 std + 2 < 128, so x = 128 shows every k unsaturated */
    const double dists[][2] = {{0.0, 0.3}, {0.5, 1.0}, {-3.0, 2.5}, {0.0, 8.0}, {1.25, 15.0}, {2.0, 0.0}};
    uint32_t seed = 7;
    for (size_t d = 0; d < sizeof dists / sizeof *dists; d++) {
        const int64_t K = 255;
        uint32_t *t = malloc((size_t)aug__noise_table_words(dists[d][0], dists[d][1], K) * sizeof(uint32_t));
        assert_non_null(t);
        aug__noise_table_build(dists[d][0], dists[d][1], K, t);
        const uint32_t m = t[1], *q = t + AUG__NOISE_HEADER;
        const int64_t n = 3 * (int64_t)m + 2 * AUG__NOISE_FINE + 2 + 4099; /* odd: every tail length */
        uint32_t *u = malloc((size_t)n * sizeof(uint32_t));
        uint8_t *x = malloc((size_t)n), *want = malloc((size_t)n), *got = malloc((size_t)n);
        assert_non_null(u);
        assert_non_null(x);
        assert_non_null(want);
        assert_non_null(got);
        int64_t i = 0;
        for (uint32_t j = 0; j < m; j++) u[i++] = q[j] - 1, u[i++] = q[j], u[i++] = q[j] + 1;
        for (uint32_t b = 0; b < AUG__NOISE_FINE; b++) {
            const uint32_t lo = b << (32 - AUG__NOISE_FINE_BITS);
            u[i++] = lo, u[i++] = lo + ((1u << (32 - AUG__NOISE_FINE_BITS)) - 1);
        }
        u[i++] = 0, u[i++] = UINT32_MAX;
        while (i < n) u[i++] = lcg(&seed);
        for (int64_t j = 0; j < n; j++) x[j] = 128;
        for (int64_t j = 0; j < n; j++) want[j] = (uint8_t)(128 + aug__noise_table_k(t, u[j]));
        assert_int_equal(aug__noise_table_u8(AUG__SIMD_NONE, t, u, n, x, got), 0);
        assert_memory_equal(want, got, (size_t)n);
        for (int level = AUG__SIMD_AVX2; level <= cpu; level++) {
            assert_int_equal(aug__noise_table_u8(level, t, u, n, x, got), 0);
            for (int64_t j = 0; j < n; j++)
                if (got[j] != want[j])
                    fail_msg("level %d, std %g: u = %u gives k = %d, the rule %d", level, dists[d][1], (unsigned)u[j],
                             got[j] - 128, want[j] - 128);
        }
        free(t), free(u), free(x), free(want), free(got);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_vector_paths_equal_the_rule)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
