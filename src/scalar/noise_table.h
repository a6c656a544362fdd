/* scalar/noise_table.h: the per-element rule of the fused Gaussian noise on
 * integer images (8/16-bit x into 8/16-bit out; docs/semantics.md §11.2,
 * docs/normalize.md; private, shared by every backend).
 *
 * The noise k of element i is an integer drawn by inverse CDF from one 32-bit
 * Philox word: u = word (i mod 4) of the block of counter (floor(i / 4), call),
 * k = the smallest integer with u < Q(k), Q the quantised CDF of
 * round(mean + std * N(0, 1)) that core/noise_table.c tabulates on the host (the
 * same table for every backend); out = saturate(x + k). A table is words of one
 * uint32 array:
 *   t[0]           kmin (int32 bits): k when u < q[0]
 *   t[1]           m, the thresholds (k = kmin + m when every q[j] <= u)
 *   t[2 .. 2+G)    the guide: g[b] = #{j : q[j] <= b * 2^(32 - GUIDE_BITS)}
 *   t[2+G .. +m)   q[j] = Q(kmin + j), non-decreasing, each in (0, 2^32)
 * The guide only shortens the search (Chen and Asau's index table): it gives a
 * count <= the answer, so k is the same with any guide. */
#ifndef AUG_SCALAR_NOISE_TABLE_H
#define AUG_SCALAR_NOISE_TABLE_H

#include "cast.h"
#include "philox.h"

#define AUG__NOISE_GUIDE_BITS 10
#define AUG__NOISE_GUIDE (1u << AUG__NOISE_GUIDE_BITS)
#define AUG__NOISE_HEADER (2u + AUG__NOISE_GUIDE) /* words before q */

/* k for the 32-bit uniform u from table t. */
AUG_HD_ALWAYS int32_t aug__noise_table_k(const uint32_t *t, uint32_t u) {
    const uint32_t m = t[1];
    const uint32_t *q = t + AUG__NOISE_HEADER;
    uint32_t c = t[2 + (u >> (32 - AUG__NOISE_GUIDE_BITS))];
    while (c < m && q[c] <= u) c++;
    return (int32_t)t[0] + (int32_t)c;
}

/* The word of element i: word i mod 4 of Philox block (floor(i / 4), call). */
AUG_HD_ALWAYS uint32_t aug__noise_table_word(const uint32_t key[2], uint64_t call, uint64_t i) {
    uint32_t b[4];
    aug__philox_element(key, call, i >> 2, b);
    const uint32_t j = (uint32_t)(i & 3); /* selects, not an index: no local memory on the GPU */
    return j == 0 ? b[0] : j == 1 ? b[1] : j == 2 ? b[2] : b[3];
}

/* An 8/16-bit integer value at p (ctype t) as int32. */
AUG_HD_ALWAYS int32_t aug__noise_int_load(const void *p, int t) {
    switch (t) {
    case AUG__CT_INT8: { int8_t v; memcpy(&v, p, 1); return v; }
    case AUG__CT_UINT8: { uint8_t v; memcpy(&v, p, 1); return v; }
    case AUG__CT_INT16: { int16_t v; memcpy(&v, p, 2); return v; }
    default: { uint16_t v; memcpy(&v, p, 2); return v; }
    }
}

/* v saturated into an 8/16-bit integer element at p (ctype t). */
AUG_HD_ALWAYS void aug__noise_int_store(int32_t v, int t, void *p) {
    switch (t) {
    case AUG__CT_INT8: { int8_t y = (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v); memcpy(p, &y, 1); return; }
    case AUG__CT_UINT8: { uint8_t y = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); memcpy(p, &y, 1); return; }
    case AUG__CT_INT16: {
        int16_t y = (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v);
        memcpy(p, &y, 2);
        return;
    }
    default: { uint16_t y = (uint16_t)(v < 0 ? 0 : v > 65535 ? 65535 : v); memcpy(p, &y, 2); return; }
    }
}

/* 1 when the integer rule applies: x and out both int8, uint8, int16 or uint16. */
AUG_HD_ALWAYS int aug__noise_table_dtype(int t) {
    return t == AUG__CT_INT8 || t == AUG__CT_UINT8 || t == AUG__CT_INT16 || t == AUG__CT_UINT16;
}

/* The rule for an element whose word is u: x at xp (ctype x_t) plus the noise
 * of table t, saturated into out at op (ctype out_t). */
AUG_HD_ALWAYS void aug__noise_table_apply(const uint32_t *t, uint32_t u, const void *xp, int x_t, void *op,
                                          int out_t) {
    aug__noise_int_store(aug__noise_int_load(xp, x_t) + aug__noise_table_k(t, u), out_t, op);
}

/* The whole rule for element i. */
AUG_HD void aug__noise_table_value(const uint32_t *t, const uint32_t key[2], uint64_t call, uint64_t i,
                                   const void *xp, int x_t, void *op, int out_t) {
    aug__noise_table_apply(t, aug__noise_table_word(key, call, i), xp, x_t, op, out_t);
}

#endif
