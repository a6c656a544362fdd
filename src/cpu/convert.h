/* cpu/convert.h: the CPU's saturating conversion of element runs (private).
 *
 * aug__convert converts n elements between any two ctypes (scalar/cast.h's
 * rule), strides in bytes; the engine uses it to fill compute buffers and to
 * store results, and the image kernels to load and store rows. */
#ifndef AUG_CPU_CONVERT_H
#define AUG_CPU_CONVERT_H

#include "core/ctype.h"

AUG__HIDDEN void aug__convert(const char *src, int64_t src_stride, int src_t,
                              char *dst, int64_t dst_stride, int dst_t, int64_t n);

/* As aug__convert, except that a float ctype narrowing to a float dtype
 * (scalar/cast.h aug__ieee_narrowing) rounds as IEEE arithmetic does: +-inf
 * beyond the range. The store of an op's float result into its own dtype. */
AUG__HIDDEN void aug__convert_ieee(const char *src, int64_t src_stride, int src_t,
                                   char *dst, int64_t dst_stride, int dst_t, int64_t n);

/* Contiguous float32/float64 -> 8/16/32-bit integers at SIMD level `level` (at
 * most aug__simd_cpu_level()); a test hook comparing the SIMD paths with the
 * portable loop. */
AUG__HIDDEN void aug__convert_contig(const char *src, int src_t, char *dst, int dst_t, int64_t n, int level);

#endif
