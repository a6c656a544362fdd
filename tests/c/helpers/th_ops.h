/* th_ops.h: test helpers for the elementwise operator tests (test_ops_*.c,
 * test_promote.c): exact numbers, a reference saturate_cast written from semantics §2
 * (independent of aug's cast code), the semantics §6 promotion table, tensors built
 * from and read back into exact numbers, and test values per dtype. The kernel
 * tests (test_kernels_*.c) use its random generator (th_rand). */
#ifndef TH_OPS_H
#define TH_OPS_H

#include <stdint.h>
#include "aug/aug.h"

typedef __int128 th_i128;

/* A number held exactly: an integer (isf == 0) or a double (every value of every
 * dtype is a double exactly). */
typedef struct th_num {
    int isf;
    th_i128 i;
    double f;
} th_num;

static inline th_num th_i(th_i128 v) { th_num n = {0, v, 0.0}; return n; }
static inline th_num th_f(double v) { th_num n = {1, 0, v}; return n; }

extern const aug_dtype TH_DTYPES[13];
#define TH_NUM_DTYPES 13

int th_is_float(aug_dtype t);
int th_is_integral(aug_dtype t); /* bool, int, uint */
int th_is_signed(aug_dtype t);   /* int kinds */
int th_size(aug_dtype t);
th_i128 th_imin(aug_dtype t);    /* integral dtypes (bool: 0) */
th_i128 th_imax(aug_dtype t);    /* integral dtypes (bool: 1) */
double th_fmax(aug_dtype t);     /* largest finite value of a float dtype */
int th_value_bits(aug_dtype t);  /* integral: value bits (bool 1, int8 7, uint8 8, ...) */

/* semantics §6 table, written out independently of aug_promote. */
aug_dtype th_promote(aug_dtype a, aug_dtype b);

/* float16 / bfloat16 bits from a double (round half to even; finite values beyond
 * the range saturate to the largest finite value; inf and NaN kept) and back. */
uint16_t th_f16_bits(double v);
double th_f16_value(uint16_t h);
uint16_t th_bf16_bits(double v);
double th_bf16_value(uint16_t h);

/* Reference saturate_cast (semantics §2) of an exact value into dtype t; the result is
 * the value t then holds. */
th_num th_sat(th_num v, aug_dtype t);

/* IEEE rounding (semantics §7, "Float results") of a value into float dtype t:
 * round half to even, +-inf beyond the range (|v| >= max + half an ulp), NaN
 * kept; th_sat for other dtypes. */
th_num th_ieee(th_num v, aug_dtype t);

/* IEEE rounding of a double into float32 (overflow -> inf), as a double. */
double th_round_f32(double v);

/* Exact comparison helpers. */
int th_num_eq(th_num a, th_num b);        /* same value; NaN equals NaN; -0 == 0 */
int th_num_is_nan(th_num a);
long double th_num_ld(th_num a);
char *th_num_str(th_num a, char *buf, int len);

/* Element access (index of t->ndim entries, or the flat C-order index). */
th_num th_get(const aug_tensor *t, const int64_t *idx);
void th_set(aug_tensor *t, const int64_t *idx, th_num v); /* v must be representable */
th_num th_get_flat(const aug_tensor *t, int64_t i);
void th_set_flat(aug_tensor *t, int64_t i, th_num v);

/* A new contiguous CPU tensor holding vals (n = product of shape). */
aug_tensor *th_tensor(int ndim, const int64_t *shape, aug_dtype t, const th_num *vals);
/* Test values of dtype t: the range ends, 0, +-1 and neighbours, then random
 * values (floats add +-0, +-inf, NaN, halves, subnormals). Fills n values. */
void th_values(aug_dtype t, th_num *out, int n, uint64_t *seed);
uint64_t th_rand(uint64_t *state);
th_num th_random(aug_dtype t, uint64_t *seed); /* one random value as in th_values */

/* A view of t reversed along every axis (negative strides, via aug_tensor_index). */
aug_tensor *th_reversed(const aug_tensor *t);
/* A 1-D view t[start::step] of a 1-D tensor. */
aug_tensor *th_slice1(const aug_tensor *t, int64_t start, int64_t step);

/* Reference of a binary op on exact values a (dtype da) and b (dtype db) with
 * result dtype r. */
typedef th_num (*th_ref2)(aug_op op, th_num a, th_num b, aug_dtype da, aug_dtype db, aug_dtype r);

/* Runs aug_binary(op) on every pair of va[n] x vb[n] four ways: broadcast
 * (n, 1) with (1, n), contiguous n*n vectors, both reversed, and step-3 slices of
 * a vector and a reversed vector; checks the result dtype r and every element
 * against ref (printing the first mismatch). Returns 1 if all match. */
int th_check_pairs(aug_op op, aug_dtype da, const th_num *va, aug_dtype db, const th_num *vb, int n, aug_dtype r,
                   th_ref2 ref);

/* The error message of the last failed call contains `needle`. */
int th_error_has(const char *needle);

#endif
