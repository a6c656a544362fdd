/* tests/c/test_lut8.c: aug__cpu_lut8 (cpu/lut8.c), every path this CPU runs
 * against a naive loop: lengths 0..300 and some long ones (every split of the
 * 8-byte and 64-byte steps and the masked tail) from 64 start offsets, flip 0
 * and 0x80, random tables and the identity, out of place and in place. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "cpu/lut8.h"
#include "cpu/simd.h"

static uint32_t rnd(uint32_t *s) {
    *s ^= *s << 13, *s ^= *s >> 17, *s ^= *s << 5;
    return *s;
}

static void check(const uint8_t *t, const uint8_t *src, int64_t n, uint8_t flip, int level, uint8_t *out,
                  uint8_t *inplace) {
    memset(out, 0xa5, (size_t)n + 64);
    aug__cpu_lut8(t, src, out, n, flip, level);
    memcpy(inplace, src, (size_t)n);
    aug__cpu_lut8(t, inplace, inplace, n, flip, level);
    for (int64_t i = 0; i < n; i++) {
        uint8_t want = t[src[i] ^ flip];
        if (out[i] != want || inplace[i] != want)
            fail_msg("level %d n %lld flip %d: [%lld] = %d / %d, want %d", level, (long long)n, flip, (long long)i,
                     out[i], inplace[i], want);
    }
    for (int k = 0; k < 64; k++)
        if (out[n + k] != 0xa5) fail_msg("level %d n %lld: wrote past the end", level, (long long)n);
}

static void test_lut8_paths(void **state) {
    (void)state;
    enum { MAXN = 5000, PAD = 128 };
    uint8_t *buf = malloc(MAXN + PAD), *out = malloc(MAXN + PAD), *inplace = malloc(MAXN + PAD);
    assert_non_null(buf), assert_non_null(out), assert_non_null(inplace);
    uint32_t s = 12345;
    for (int i = 0; i < MAXN + PAD; i++) buf[i] = (uint8_t)rnd(&s);
    uint8_t tables[2][256];
    for (int v = 0; v < 256; v++) tables[0][v] = (uint8_t)rnd(&s), tables[1][v] = (uint8_t)v;
    const int64_t longs[] = {511, 512, 513, 4095, 4097, MAXN};
    int vector_seen = 0;
    for (int level = AUG__SIMD_NONE; level <= aug__simd_cpu_level(); level++) {
        vector_seen |= aug__cpu_lut8_vector(level);
        for (int t = 0; t < 2; t++)
            for (int f = 0; f < 2; f++) {
                uint8_t flip = f ? 0x80 : 0;
                for (int off = 0; off < 64; off++)
                    for (int64_t n = 0; n <= 300; n++) check(tables[t], buf + off, n, flip, level, out, inplace);
                for (size_t k = 0; k < sizeof longs / sizeof *longs; k++)
                    check(tables[t], buf + 3, longs[k] - 3 < MAXN ? longs[k] : MAXN - 3, flip, level, out, inplace);
            }
    }
    printf("lut8: vector path %s on this CPU\n", vector_seen ? "tested" : "not available");
    free(buf), free(out), free(inplace);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_lut8_paths)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
