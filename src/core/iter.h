/* core/iter.h: the one strided iteration engine (private).
 *
 * Every elementwise operation (arithmetic, casts, copies, fills) runs through
 * aug__iter_run. It broadcasts the inputs to the output's shape, coalesces
 * dimensions, splits the work over the worker pool, converts inputs whose dtype
 * differs from the kernel's compute type into small per-block buffers, calls the
 * kernel on 1-D runs, and converts the kernel's output back into the output tensor
 * with saturation. Kernels therefore exist per (op, compute type), not per pair of
 * input dtypes (NumPy's inner-loop design). */
#ifndef AUG_CORE_ITER_H
#define AUG_CORE_ITER_H

#include "aug/tensor.h"
#include "ctype.h"

#define AUG__MAX_INPUTS 3

/* A 1-D inner loop. data[0..nin-1] are the inputs, data[nin] the output; strides
 * are in bytes (0 for a broadcast input). n >= 1. ctx points to an aug__kernel_ctx
 * from the engine (kernels called directly may get NULL: no hints, no op context). */
typedef void (*aug__kernel)(char **data, int64_t n, const int64_t *strides, void *ctx);

/* What a kernel is told besides its operands. */
typedef struct aug__kernel_ctx {
    void *op;        /* aug__iter.ctx: the op's constant context */
    int stream_out;  /* the output is contiguous and larger than the caches are worth
                        (AUG__STREAM_MIN_BYTES): non-temporal stores may be used */
} aug__kernel_ctx;

/* Outputs at least this large are written with non-temporal stores by kernels that
 * can: they are not re-read from cache anyway, and skipping the read-for-ownership
 * of every output line saves a quarter of the memory traffic of a binary op (a
 * uint8 add of 64 MiB: 19 ms -> 15 ms on one core of the development machine). */
#define AUG__STREAM_MIN_BYTES ((int64_t)16 << 20)

typedef struct aug__iter {
    const char *func;                        /* for error messages */
    int nin;                                 /* 1 ... AUG__MAX_INPUTS */
    const aug_tensor *in[AUG__MAX_INPUTS];   /* any shape broadcastable to out's */
    int in_ctype[AUG__MAX_INPUTS];           /* ctype the kernel reads for input i */
    aug_tensor *out;                         /* written; may overlap inputs */
    int out_ctype;                           /* ctype the kernel writes */
    aug__kernel kernel;                      /* NULL: nin == 1, plain saturating copy */
    void *ctx;
} aug__iter;

/* Runs the iteration. Inputs may be 0-d tensors with storage == NULL whose data
 * points at a caller-owned element (how scalars enter). An input that partially
 * overlaps out (not the identical view) is copied first. Returns AUG_OK or an
 * error (memory). Results do not depend on the number of threads. */
AUG__HIDDEN aug_status aug__iter_run(const aug__iter *it);

/* A 0-d tensor over `elem` (which must stay alive during use), no storage. */
AUG__HIDDEN void aug__tensor_0d(aug_tensor *t, void *elem, aug_dtype dtype);

/* Number of elements with overflow check; -1 if the product exceeds INT64_MAX. */
AUG__HIDDEN int64_t aug__shape_size(int ndim, const int64_t *shape);

#endif
