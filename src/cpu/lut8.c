/* cpu/lut8.c: aug__cpu_lut8, a byte table lookup over a run (cpu/lut8.h).
 *
 * Portable: 8 values per step from one 64-bit load (fewer loads and loop
 * branches than a byte loop). AVX-512 VBMI (Ice Lake, Zen 4 and later): the
 * table lives in four zmm registers; vpermi2b looks up 64 bytes at once in the
 * 128-entry halves (index bits 0..6), and the index's top bit picks the half,
 * so 64 values cost a load, two permutes, a blend and a store instead of 64
 * dependent loads. Both give the table's bytes, so results are identical. */
#include <stdatomic.h>
#include <string.h>
#include "cpu/lut8.h"
#include "cpu/simd.h"
#if AUG__X86
#include <immintrin.h>
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define LUT_SHIFT(b) (56 - 8 * (b))
#else
#define LUT_SHIFT(b) (8 * (b))
#endif

static void lut8_portable(const uint8_t *t, const uint8_t *src, uint8_t *dst, int64_t n, uint8_t flip) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, src + i, 8);
        for (int b = 0; b < 8; b++) dst[i + b] = t[(uint8_t)(v >> LUT_SHIFT(b)) ^ flip];
    }
    for (; i < n; i++) dst[i] = t[src[i] ^ flip];
}

#if AUG__X86
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) static void lut8_vbmi(const uint8_t *t, const uint8_t *src,
                                                                             uint8_t *dst, int64_t n, uint8_t flip) {
    const __m512i t0 = _mm512_loadu_si512((const void *)t), t1 = _mm512_loadu_si512((const void *)(t + 64));
    const __m512i t2 = _mm512_loadu_si512((const void *)(t + 128)), t3 = _mm512_loadu_si512((const void *)(t + 192));
    const __m512i f = _mm512_set1_epi8((char)flip);
#define LUT_64(v)                                                                                                      \
    _mm512_mask_blend_epi8(_mm512_movepi8_mask(v), _mm512_permutex2var_epi8(t0, (v), t1),                              \
                           _mm512_permutex2var_epi8(t2, (v), t3))
    int64_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m512i v = _mm512_xor_si512(_mm512_loadu_si512((const void *)(src + i)), f);
        _mm512_storeu_si512((void *)(dst + i), LUT_64(v));
    }
    if (i < n) {
        __mmask64 m = _cvtu64_mask64(~0ULL >> (64 - (n - i)));
        __m512i v = _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, src + i), f);
        _mm512_mask_storeu_epi8(dst + i, m, LUT_64(v));
    }
#undef LUT_64
}
#endif

int aug__cpu_lut8_vector(int level) {
#if AUG__X86
    /* -1 until the first call (threads racing compute the same value) */
    static atomic_int vbmi = -1;
    int has = atomic_load_explicit(&vbmi, memory_order_relaxed);
    if (has < 0) {
        __builtin_cpu_init();
        has = __builtin_cpu_supports("avx512vbmi") != 0;
        atomic_store_explicit(&vbmi, has, memory_order_relaxed);
    }
    return level >= AUG__SIMD_AVX512 && has;
#else
    (void)level;
    return 0;
#endif
}

void aug__cpu_lut8(const uint8_t table[256], const uint8_t *src, uint8_t *dst, int64_t n, uint8_t flip, int level) {
#if AUG__X86
    if (aug__cpu_lut8_vector(level)) {
        lut8_vbmi(table, src, dst, n, flip);
        return;
    }
#endif
    lut8_portable(table, src, dst, n, flip);
}
