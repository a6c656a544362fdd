/* scalar/philox.h: Philox-4x32-10, the counter-based generator behind every
 * random fill (semantics §11; private, shared by every backend).
 *
 * Salmon et al., "Parallel random numbers: as easy as 1, 2, 3" (SC'11), as
 * Random123 defines philox4x32_R(10, ctr, key): ten rounds of two 32x32->64
 * multiplies, the key bumped by the Weyl constants before rounds 2 to 10. The
 * CPU's vector paths (cpu/random_philox.c) run the same rounds and are tested
 * equal to this function, which the tests check against Random123 itself. */
#ifndef AUG_SCALAR_PHILOX_H
#define AUG_SCALAR_PHILOX_H

#include "hd.h"

#define AUG__PHILOX_M0 0xD2511F53u /* multipliers */
#define AUG__PHILOX_M1 0xCD9E8D57u
#define AUG__PHILOX_W0 0x9E3779B9u /* key schedule: golden ratio, sqrt(3) - 1 */
#define AUG__PHILOX_W1 0xBB67AE85u

/* out = Philox-4x32-10(ctr, key). */
AUG_HD_ALWAYS void aug__philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]) {
    uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3], k0 = key[0], k1 = key[1];
    for (int r = 0; r < 10; r++) {
        if (r > 0) {
            k0 += AUG__PHILOX_W0;
            k1 += AUG__PHILOX_W1;
        }
        uint64_t p0 = (uint64_t)AUG__PHILOX_M0 * c0, p1 = (uint64_t)AUG__PHILOX_M1 * c2;
        uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0, hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

/* The block of element i of fill call n: counter (lo32(i), hi32(i), lo32(n), hi32(n)). */
AUG_HD_ALWAYS void aug__philox_element(const uint32_t key[2], uint64_t call, uint64_t i, uint32_t out[4]) {
    uint32_t ctr[4] = {(uint32_t)i, (uint32_t)(i >> 32), (uint32_t)call, (uint32_t)(call >> 32)};
    aug__philox4x32_10(ctr, key, out);
}

#endif
