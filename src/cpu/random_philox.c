/* cpu/random_philox.c: Philox-4x32-10 over runs of consecutive counters (semantics §11).
 *
 * The portable path is the shared scalar function (scalar/philox.h, the one
 * rule every backend uses). The vector paths run the same rounds on 8 (AVX2) or 16 (AVX-512)
 * counters at once, in structure-of-arrays form: a 32x32->64 multiply exists
 * only on even lanes (vpmuludq), so each Philox multiply is done twice (even
 * lanes, and odd lanes swapped down with vpshufd) and the high/low halves are
 * swapped and blended back (shuffles run beside the multiplies, not on their port).
 * Two vectors are in flight per iteration because one round's multiply-blend-xor
 * chain is longer than its throughput cost. The tests compare every path with
 * the portable one, Random123's known answers and Random123 itself. */
#include "cpu/random.h"
#include "cpu/simd.h"
#if AUG__X86
#include <immintrin.h>
#endif

static void philox_portable(const uint32_t key[2], uint64_t call, uint64_t i0, int64_t n, uint32_t *x0,
                            uint32_t *x1, uint32_t *x2, uint32_t *x3) {
    for (int64_t j = 0; j < n; j++) {
        uint32_t c[4];
        aug__philox_element(key, call, i0 + (uint64_t)j, c);
        x0[j] = c[0];
        x1[j] = c[1];
        x2[j] = c[2];
        x3[j] = c[3];
    }
}

#if AUG__X86
/* One Philox round on vectors v[0..3] of counters, key words k0, k1 (Random123's
 * _philox4x32round: hi1^c1^k0, lo1, hi0^c3^k1, lo0). */
#define AVX2_ROUND(v, k0, k1)                                                                    \
    do {                                                                                         \
        __m256i pe0 = _mm256_mul_epu32(v[0], m0), po0 = _mm256_mul_epu32(_mm256_shuffle_epi32(v[0], 0xb1), m0); \
        __m256i pe1 = _mm256_mul_epu32(v[2], m1), po1 = _mm256_mul_epu32(_mm256_shuffle_epi32(v[2], 0xb1), m1); \
        __m256i hi0 = _mm256_blend_epi32(_mm256_shuffle_epi32(pe0, 0xb1), po0, 0xaa);           \
        __m256i lo0 = _mm256_blend_epi32(pe0, _mm256_shuffle_epi32(po0, 0xb1), 0xaa);           \
        __m256i hi1 = _mm256_blend_epi32(_mm256_shuffle_epi32(pe1, 0xb1), po1, 0xaa);           \
        __m256i lo1 = _mm256_blend_epi32(pe1, _mm256_shuffle_epi32(po1, 0xb1), 0xaa);           \
        v[0] = _mm256_xor_si256(_mm256_xor_si256(hi1, v[1]), k0);                              \
        v[1] = lo1;                                                                              \
        v[2] = _mm256_xor_si256(_mm256_xor_si256(hi0, v[3]), k1);                              \
        v[3] = lo0;                                                                              \
    } while (0)

__attribute__((target("avx2"))) static void philox_avx2(const uint32_t key[2], uint64_t call, uint64_t i0,
                                                        int64_t n, uint32_t *x0, uint32_t *x1, uint32_t *x2,
                                                        uint32_t *x3) {
    const __m256i m0 = _mm256_set1_epi32((int)AUG__PHILOX_M0), m1 = _mm256_set1_epi32((int)AUG__PHILOX_M1);
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i bias = _mm256_set1_epi32(INT32_MIN);
    int64_t j = 0;
    for (; j + 16 <= n; j += 16) {
        __m256i a[4], b[4];
        for (int h = 0; h < 2; h++) {
            uint64_t i = i0 + (uint64_t)j + 8u * (uint64_t)h;
            __m256i base = _mm256_set1_epi32((int)(uint32_t)i);
            __m256i lo = _mm256_add_epi32(base, lanes);
            /* lanes whose low word wrapped carry into the high word */
            __m256i carry = _mm256_cmpgt_epi32(_mm256_xor_si256(base, bias), _mm256_xor_si256(lo, bias));
            __m256i *v = h ? b : a;
            v[0] = lo;
            v[1] = _mm256_sub_epi32(_mm256_set1_epi32((int)(uint32_t)(i >> 32)), carry);
            v[2] = _mm256_set1_epi32((int)(uint32_t)call);
            v[3] = _mm256_set1_epi32((int)(uint32_t)(call >> 32));
        }
        uint32_t k0 = key[0], k1 = key[1];
        for (int r = 0; r < 10; r++) {
            if (r > 0) { /* Random123's key schedule: bump before rounds 2..10 */
                k0 += AUG__PHILOX_W0;
                k1 += AUG__PHILOX_W1;
            }
            __m256i vk0 = _mm256_set1_epi32((int)k0), vk1 = _mm256_set1_epi32((int)k1);
            AVX2_ROUND(a, vk0, vk1);
            AVX2_ROUND(b, vk0, vk1);
        }
        uint32_t *out[4] = {x0, x1, x2, x3};
        for (int w = 0; w < 4; w++) {
            _mm256_storeu_si256((__m256i *)(out[w] + j), a[w]);
            _mm256_storeu_si256((__m256i *)(out[w] + j + 8), b[w]);
        }
    }
    if (j < n) philox_portable(key, call, i0 + (uint64_t)j, n - j, x0 + j, x1 + j, x2 + j, x3 + j);
}

/* As AVX2_ROUND; a masked vpshufd (0xb1 swaps the 32-bit halves of each 64-bit
 * lane) both moves and blends, so the shift port only does the multiplies. */
#define AVX512_ROUND(v, k0, k1)                                                                  \
    do {                                                                                         \
        __m512i pe0 = _mm512_mul_epu32(v[0], m0);                                                \
        __m512i po0 = _mm512_mul_epu32(_mm512_shuffle_epi32(v[0], (_MM_PERM_ENUM)0xb1), m0);     \
        __m512i pe1 = _mm512_mul_epu32(v[2], m1);                                                \
        __m512i po1 = _mm512_mul_epu32(_mm512_shuffle_epi32(v[2], (_MM_PERM_ENUM)0xb1), m1);     \
        __m512i hi0 = _mm512_mask_shuffle_epi32(po0, 0x5555, pe0, (_MM_PERM_ENUM)0xb1);        \
        __m512i lo0 = _mm512_mask_shuffle_epi32(pe0, 0xaaaa, po0, (_MM_PERM_ENUM)0xb1);        \
        __m512i hi1 = _mm512_mask_shuffle_epi32(po1, 0x5555, pe1, (_MM_PERM_ENUM)0xb1);        \
        __m512i lo1 = _mm512_mask_shuffle_epi32(pe1, 0xaaaa, po1, (_MM_PERM_ENUM)0xb1);        \
        v[0] = _mm512_ternarylogic_epi32(hi1, v[1], k0, 0x96); /* a ^ b ^ c */                 \
        v[1] = lo1;                                                                              \
        v[2] = _mm512_ternarylogic_epi32(hi0, v[3], k1, 0x96);                                  \
        v[3] = lo0;                                                                              \
    } while (0)

__attribute__((target("avx512f"))) static void philox_avx512(const uint32_t key[2], uint64_t call, uint64_t i0,
                                                             int64_t n, uint32_t *x0, uint32_t *x1,
                                                             uint32_t *x2, uint32_t *x3) {
    const __m512i m0 = _mm512_set1_epi32((int)AUG__PHILOX_M0), m1 = _mm512_set1_epi32((int)AUG__PHILOX_M1);
    const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    int64_t j = 0;
    for (; j + 32 <= n; j += 32) {
        __m512i a[4], b[4];
        for (int h = 0; h < 2; h++) {
            uint64_t i = i0 + (uint64_t)j + 16u * (uint64_t)h;
            __m512i base = _mm512_set1_epi32((int)(uint32_t)i);
            __m512i lo = _mm512_add_epi32(base, lanes);
            __mmask16 carry = _mm512_cmplt_epu32_mask(lo, base);
            __m512i *v = h ? b : a;
            __m512i hi = _mm512_set1_epi32((int)(uint32_t)(i >> 32));
            v[0] = lo;
            v[1] = _mm512_mask_add_epi32(hi, carry, hi, _mm512_set1_epi32(1));
            v[2] = _mm512_set1_epi32((int)(uint32_t)call);
            v[3] = _mm512_set1_epi32((int)(uint32_t)(call >> 32));
        }
        uint32_t k0 = key[0], k1 = key[1];
        for (int r = 0; r < 10; r++) {
            if (r > 0) {
                k0 += AUG__PHILOX_W0;
                k1 += AUG__PHILOX_W1;
            }
            __m512i vk0 = _mm512_set1_epi32((int)k0), vk1 = _mm512_set1_epi32((int)k1);
            AVX512_ROUND(a, vk0, vk1);
            AVX512_ROUND(b, vk0, vk1);
        }
        uint32_t *out[4] = {x0, x1, x2, x3};
        for (int w = 0; w < 4; w++) {
            _mm512_storeu_si512((void *)(out[w] + j), a[w]);
            _mm512_storeu_si512((void *)(out[w] + j + 16), b[w]);
        }
    }
    if (j < n) philox_avx2(key, call, i0 + (uint64_t)j, n - j, x0 + j, x1 + j, x2 + j, x3 + j);
}

#endif

void aug__philox_run(int level, const uint32_t key[2], uint64_t call, uint64_t i0, int64_t n, uint32_t *x0,
                     uint32_t *x1, uint32_t *x2, uint32_t *x3) {
#if AUG__X86
    int cpu = aug__simd_cpu_level();
    if (level < 0) level = aug__simd_level();
    if (level >= AUG__SIMD_AVX512 && cpu >= AUG__SIMD_AVX512) {
        philox_avx512(key, call, i0, n, x0, x1, x2, x3);
        return;
    }
    if (level >= AUG__SIMD_AVX2 && cpu >= AUG__SIMD_AVX2) {
        philox_avx2(key, call, i0, n, x0, x1, x2, x3);
        return;
    }
#else
    (void)level;
#endif
    philox_portable(key, call, i0, n, x0, x1, x2, x3);
}
