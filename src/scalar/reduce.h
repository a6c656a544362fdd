/* scalar/reduce.h: the order and the rules of the reductions (semantics §10;
 * private, shared by every backend).
 *
 * Integers and bool accumulate exactly (i128) and saturate once, on store.
 * Floats (float16/bfloat16 read as float) accumulate in float64 in a fixed
 * order, so results are bit-identical for any thread count and on every backend:
 *  - the reduced range of each output is cut into chunks of AUG__RED_CHUNK
 *    elements counted from its start, each chunk into blocks of AUG__RED_BLOCK;
 *  - within a block, element j goes into lane j % AUG__RED_LANES (each lane summed
 *    in order, starting from -0.0, the identity of IEEE addition); the block's
 *    value is aug__red_lanes_fold of its lanes;
 *  - the blocks of a chunk, and then the chunks of an output, are combined by a
 *    binary counter (aug__red_pw_push / aug__red_pw_total): a balanced tree over
 *    each power-of-two run of values, the runs folded from the smallest up.
 * min/max compare keys that order like the values with -0.0 < +0.0 (flip the
 * magnitude bits of negatives), so the result never depends on the visiting
 * order, not even in the sign of a zero; a NaN is tracked apart and wins.
 * argmin/argmax compare an arg key (aug__red_arg_fkey / the integer itself) and
 * keep the smaller index on equal keys (aug__red_arg_wins): the first minimum /
 * maximum in C order of the reduced axes, whatever order partial results meet in. */
#ifndef AUG_SCALAR_REDUCE_H
#define AUG_SCALAR_REDUCE_H

#include "aug/ops.h"
#include "cast.h"

/* Elements per chunk: large enough to amortise a CPU task (~64 KiB of uint8),
 * small enough that a 2-core or 64-core pool has work for every thread on a few
 * MiB. Also bounds every run a kernel sees, so 8..32-bit sums fit in int64. */
#define AUG__RED_CHUNK ((int64_t)1 << 16)
/* Float block: 16 rows of 8 lanes, summed in order. */
#define AUG__RED_BLOCK 128
#define AUG__RED_LANES 8
/* Within a chunk at most 512 blocks: the stack holds at most 10 entries. */
#define AUG__RED_PW_SMALL 12

AUG_HD double aug__red_lanes_fold(const double *l) {
    return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
}

/* Push one value at level 0; equal levels merge (a binary counter), so every sum
 * is a balanced tree over the pushed values. The stack holds one entry per set bit
 * of the number of values pushed. */
AUG_HD void aug__red_pw_push(double *v, int8_t *level, int *n, double x) {
    int8_t l = 0;
    while (*n > 0 && level[*n - 1] == l) {
        x = v[--*n] + x;
        l++;
    }
    v[*n] = x;
    level[(*n)++] = l;
}

/* Total of the stack (0.0 when empty), folded from the smallest entry down. */
AUG_HD double aug__red_pw_total(const double *v, int n) {
    if (n == 0) return 0.0;
    double t = v[n - 1];
    for (int i = n - 2; i >= 0; i--) t = v[i] + t;
    return t;
}

/* The min/max key of a float's bits u (U unsigned, S the signed type of the same
 * width, MAG the magnitude mask), and whether u is a NaN (INF: the bits of +inf). */
#define AUG__RED_FKEY(U, S, MAG, u) ((S)((u) ^ (((U)0 - ((u) >> (sizeof(U) * 8 - 1))) & (U)(MAG))))
#define AUG__RED_FNAN(U, MAG, INF, u) (((u) & (U)(MAG)) > (U)(INF))

/* The float value of a min/max key of ctype t (the flip is an involution). */
AUG_HD double aug__red_fkey_value(int t, aug__i128 key) {
    switch (t) {
    case AUG__CT_FLOAT16: {
        int16_t k = (int16_t)key;
        return aug__f16_to_f32((uint16_t)(k < 0 ? k ^ 0x7fff : k));
    }
    case AUG__CT_BFLOAT16: {
        int16_t k = (int16_t)key;
        return aug__bf16_to_f32((uint16_t)(k < 0 ? k ^ 0x7fff : k));
    }
    case AUG__CT_FLOAT32: {
        int32_t k = (int32_t)key;
        return aug__bits_f32((uint32_t)(k < 0 ? k ^ 0x7fffffff : k));
    }
    default: {
        int64_t k = (int64_t)key;
        return aug__bits_f64((uint64_t)(k < 0 ? k ^ INT64_MAX : k));
    }
    }
}

/* The argmin/argmax key of a float value v (float16/bfloat16/float32 read exactly
 * as double): keys order like the values with -0.0 == +0.0 (NumPy's argmax sees no
 * difference), and every NaN has the one key beyond all others in the direction of
 * the op, so a NaN wins and, among NaNs, the first one. Integers are their own keys. */
AUG_HD aug__i128 aug__red_arg_fkey(int is_max, double v) {
    if (v != v) return is_max ? (aug__i128)INT64_MAX + 1 : (aug__i128)INT64_MIN - 1;
    if (v == 0.0) v = 0.0; /* -0.0 -> +0.0 */
    uint64_t u = aug__f64_bits(v);
    return (aug__i128)AUG__RED_FKEY(uint64_t, int64_t, 0x7fffffffffffffffull, u);
}

/* Whether the candidate (key x at index ix) replaces the best so far (key b at
 * index ib; ib < 0: none yet): a strictly better key, or an equal key at a smaller
 * index. Order free, so runs, threads and chunks may merge in any order. */
AUG_HD int aug__red_arg_wins(int is_max, aug__i128 x, int64_t ix, aug__i128 b, int64_t ib) {
    if (ib < 0) return 1;
    if (x != b) return is_max ? x > b : x < b;
    return ix < ib;
}

/* What is stored for an output (saturate_cast into out_t): i is the exact integer
 * sum or min/max (float min/max: the key), f the float sum, flag the all/any
 * result or, for float min/max, "a NaN was seen"; R the reduced count; arg the
 * argmin/argmax index. With ieee (out_t is the result's own dtype), a float sum or
 * mean rounds to a narrower float out_t as IEEE arithmetic does: +-inf beyond the
 * range (semantics §10). */
AUG_HD void aug__red_store(aug_reduce_op op, int is_float, int in_t, int out_t, int ieee, aug__i128 i, double f,
                           int flag, int64_t R, int64_t arg, void *dst) {
    switch (op) {
    case AUG_REDUCE_SUM:
        if (is_float && ieee) aug__ieee_store_f64(f, out_t, dst);
        else if (is_float) aug__store_f64(f, out_t, dst);
        else aug__store_i128(i, out_t, dst);
        break;
    case AUG_REDUCE_MEAN: {
        double m = R == 0 ? (double)NAN : (is_float ? f : (double)i) / (double)R;
        if (ieee) aug__ieee_store_f64(m, out_t, dst);
        else aug__store_f64(m, out_t, dst);
        break;
    }
    case AUG_REDUCE_MIN:
    case AUG_REDUCE_MAX:
        if (is_float) aug__store_f64(flag ? NAN : aug__red_fkey_value(in_t, i), out_t, dst);
        else aug__store_i128(i, out_t, dst);
        break;
    case AUG_REDUCE_ALL:
    case AUG_REDUCE_ANY:
        aug__store_i128(flag != 0, out_t, dst);
        break;
    case AUG_REDUCE_ARGMIN:
    case AUG_REDUCE_ARGMAX:
        aug__store_i128(arg, out_t, dst);
        break;
    }
}

#endif
