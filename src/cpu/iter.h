/* cpu/iter.h: the CPU's strided loop executor (private).
 *
 * Every elementwise plan (arithmetic, casts, copies, fills) runs through
 * aug__cpu_loop_run: it splits the plan's coalesced loop (core/plan.h) over the
 * worker pool, converts inputs whose dtype differs from the kernel's compute
 * type into small per-block buffers, calls the kernel on 1-D runs, and converts
 * the kernel's output back into the output with saturation. Kernels therefore
 * exist per (op, compute type), not per pair of input dtypes (NumPy's inner-loop
 * design). */
#ifndef AUG_CPU_ITER_H
#define AUG_CPU_ITER_H

#include "core/plan.h"

/* A 1-D inner loop. data[0..nin-1] are the inputs, data[nin] the output; strides
 * are in bytes (0 for a broadcast input). n >= 1. ctx points to an aug__kernel_ctx
 * from the executor (kernels called directly may get NULL: no hints, no op context). */
typedef void (*aug__kernel)(char **data, int64_t n, const int64_t *strides, void *ctx);

/* What a kernel is told besides its operands. */
typedef struct aug__kernel_ctx {
    void *op;        /* the op's constant context */
    int stream_out;  /* the output is contiguous and larger than the caches are worth
                        (AUG__STREAM_MIN_BYTES): non-temporal stores may be used */
} aug__kernel_ctx;

/* Outputs at least this large are written with non-temporal stores by kernels that
 * can: they are not re-read from cache anyway, and skipping the read-for-ownership
 * of every output line saves a quarter of the memory traffic of a binary op (a
 * uint8 add of 64 MiB: 19 ms -> 15 ms on one core of the development machine). */
#define AUG__STREAM_MIN_BYTES ((int64_t)16 << 20)

/* Runs `loop` with `kernel` reading the inputs in their ctypes and writing the
 * output's ctype. kernel NULL: a one-input conversion from the input's dtype to
 * the output's (the ctypes are ignored). Results do not depend on the number of
 * threads. AUG_ERR_MEMORY if a conversion buffer cannot be allocated. */
AUG__HIDDEN aug_status aug__cpu_loop_run(const char *func, const aug__loop *loop, aug__kernel kernel, void *ctx);

/* Plans and runs one CPU iteration with a caller's kernel: the inputs broadcast
 * to out, partial overlaps copied first, then aug__cpu_loop_run. Inputs may be
 * 0-d tensors with storage == NULL whose data points at a caller-owned element
 * (how scalars enter). For tests and internal users; kernel NULL: nin must be 1
 * (a saturating copy). */
typedef struct aug__iter {
    const char *func;                        /* for error messages */
    int nin;                                 /* 1 ... AUG__MAX_INPUTS */
    const aug_tensor *in[AUG__MAX_INPUTS];   /* any shape broadcastable to out's */
    int in_ctype[AUG__MAX_INPUTS];           /* ctype the kernel reads for input i */
    aug_tensor *out;                         /* written; may overlap inputs */
    int out_ctype;                           /* ctype the kernel writes */
    aug__kernel kernel;
    void *ctx;
} aug__iter;

AUG__HIDDEN aug_status aug__iter_run(const aug__iter *it);

#endif
