/* aug/random.h: reproducible random fills (semantics §11), counter-based Philox-4x32-10.
 *
 * A generator is a 64-bit seed and a 64-bit call counter n. Every successful
 * fill call uses the current n and then increments it (also for empty targets);
 * a failed call leaves it unchanged. Element i of the target (its index in C
 * order, 0-based, whatever the strides) of call n draws from ONE Philox-4x32-10
 * block, the one at
 *
 *     counter = (lo32(i), hi32(i), lo32(n), hi32(n)),  key = (lo32(seed), hi32(seed))
 *
 * (Random123's philox4x32_R(10, counter, key), word 0 first). Its four output
 * words x0..x3 make two 64-bit draws a = x0 | x1 << 32 and b = x2 | x3 << 32.
 * No two elements share a block, so the values are the same for any thread
 * count, any split of the work, any strides (a strided view gets the same values
 * in C order as a contiguous tensor of the same shape) and on every backend. The
 * exact mapping (a CUDA backend must reproduce it):
 *
 * uniform(vmin, vmax), integer dtypes and bool (bool = the integers {0, 1}):
 *   lo = max(ceil(vmin), dtype min), hi = min(ceil(vmax) - 1, dtype max): every
 *   integer the dtype can hold in [ceil(vmin), vmax) is equally likely (values
 *   outside the dtype's range are never drawn; an empty range is an error).
 *   count = hi - lo + 1 (1 ... 2^64).
 *   8/16/32-bit and bool: value = lo + floor(a * count / 2^64)   (bias <= count / 2^64 <= 2^-32)
 *   64-bit:               value = lo + floor(w * count / 2^128), w = a | b << 64 (bias <= 2^-64)
 * uniform(vmin, vmax), float dtypes:
 *   u = asdouble(0x3ff0000000000000 | a >> 12) - 1.0        (52 random bits, [0, 1))
 *   (float32/float16/bfloat16 first clip vmin to >= -max and vmax to <= next(max),
 *   2^128 or 2^16 for float16, so the range is clipped to the dtype as for integers)
 *   v = m * (o + u * d) in double, with (m, o, d) = (1, vmin, vmax - vmin), or
 *       (2, vmin / 2, vmax / 2 - vmin / 2) when vmax - vmin overflows;
 *   (rounded to nearest in double), clamped to [lo_T, hi_T], the smallest value of
 *   the dtype T >= vmin and the largest < vmax, then, for float32, float16 and
 *   bfloat16, rounded toward -inf to float32 and from there toward -inf to the
 *   16-bit format: every value x of T in the range gets the share of [x, next(x)),
 *   vmin (if representable) occurs and vmax never does. float64 takes v as is.
 *   No value of T in [vmin, vmax) is an error.
 * gaussian(mean, std), Box-Muller with the first output of the pair:
 *   float64 and the 32/64-bit integer dtypes, in double with libm:
 *     u1 = ((a >> 11) + 1) * 2^-53 in (0, 1],  u2 = (b >> 11) * 2^-53 in [0, 1)
 *     z = sqrt(-2 log u1) * cos(2 pi u2),  v = mean + std * z
 *   float32, float16, bfloat16, bool and the 8/16-bit integer dtypes, in float32:
 *     u1 = (float)(int32)(x0 >> 1) * 2^-31 + 2^-32 in (0, 1]   (|z| reaches 6.66)
 *     u2 = (x2 >> 8) * 2^-24 in [0, 1)
 *     z = sqrt(-2 log u1) * cos(2 pi u2) with float32 polynomials (a few ulp);
 *     v = mean + std * (double)z in double
 *   Integer targets round v half to even, then saturate (semantics §2); bool gets
 *   round(v) != 0. Float targets round to nearest even (float16/bfloat16 through
 *   float32), finite values beyond the range saturating to +-max finite.
 *   Gaussian values agree across backends within the semantics §8 ulp bounds (semantics §17),
 *   uniform values bit for bit.
 *
 * Errors (aug_status, message in aug_last_error()): AUG_ERR_VALUE for NaN/inf
 * parameters, vmin >= vmax, std < 0, a range with no value of the target dtype,
 * a target on another device than the generator. Ownership: aug_rng_new returns a
 * new generator the caller frees with aug_rng_free; targets are borrowed.
 * A generator must not be used by two threads at once (the fills themselves run
 * on the worker pool). */
#ifndef AUG_RANDOM_H
#define AUG_RANDOM_H

#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque generator: seed, call counter, device. */
typedef struct aug_rng aug_rng;

/* The generator's full state: fills continue identically after set_state. */
typedef struct aug_rng_state {
    uint64_t seed;
    uint64_t calls;   /* the counter n of the next fill */
} aug_rng_state;

/* New generator for `device` (validated) with the given seed, or one read from
 * the OS entropy source (getrandom) when seed is NULL. Starts at call 0. New;
 * NULL with an error on failure. */
AUG_API aug_rng *aug_rng_new(aug_device device, const uint64_t *seed);
AUG_API void aug_rng_free(aug_rng *rng); /* NULL is fine */

AUG_API aug_device aug_rng_device(const aug_rng *rng);
AUG_API aug_status aug_rng_get_state(const aug_rng *rng, aug_rng_state *out);
AUG_API aug_status aug_rng_set_state(aug_rng *rng, const aug_rng_state *state);

/* Fill target (any dtype, any strides) with uniform values in [vmin, vmax). */
AUG_API aug_status aug_rng_uniform(aug_rng *rng, aug_tensor *target, double vmin, double vmax);
/* Fill target with normal values of the given mean and standard deviation (std >= 0). */
AUG_API aug_status aug_rng_gaussian(aug_rng *rng, aug_tensor *target, double mean, double std);

/* The Philox-4x32-10 block function, Random123's philox4x32_R(10, ctr, key)
 * (for known-answer tests and other implementations). */
AUG_API void aug_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

/* Per-sample streams (docs/random.md): every random draw of a data pipeline is a
 * pure function of (seed, epoch, sample, stream). Image k of a stage named
 * `stream` draws as image 0 of a generator at the state
 * {aug_stream_seed(seed, epoch, stream), sample}, with sample =
 * aug_sample_id(key bytes) of the sample's key. With (all arithmetic mod 2^64)
 *
 *   splitmix64(x): z = x + 0x9E3779B97F4A7C15;
 *                  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
 *                  z = (z ^ (z >> 27)) * 0x94D049BB133111EB;  return z ^ (z >> 31)
 *   fnv1a64(bytes): h = 0xCBF29CE484222325; for each byte b: h ^= b, h *= 0x100000001B3
 *
 * aug_stream_seed = splitmix64(splitmix64(splitmix64(seed) ^ epoch) ^ fnv1a64(stream)),
 * stream a NUL-terminated string (its bytes without the NUL; NULL is the empty
 * string ""), and aug_sample_id = splitmix64(fnv1a64(key[0 .. len))), key NULL
 * the empty key (len is then ignored). Pure functions: no state, no errors,
 * the arguments are only read. */
AUG_API uint64_t aug_stream_seed(uint64_t seed, uint64_t epoch, const char *stream);
AUG_API uint64_t aug_sample_id(const void *key, size_t len);

#ifdef __cplusplus
}
#endif
#endif
