/* core/plan.h: the plans the core hands to a backend (private).
 *
 * The core checks every argument, decides result and compute types, allocates
 * outputs and turns each call into a plan; a backend only executes plans. Plans
 * are plain structs of integers and pointers, readable from a .cu file, and
 * describe the work completely: the backend never looks at broadcasting rules,
 * overlap or dtype promotion.
 *
 * The elementwise and reduction plans carry a coalesced iteration space: the
 * planner (core/plan.c) broadcasts every input to the output's shape (byte
 * stride 0 on broadcast dimensions), copies an input that partially overlaps the
 * output to a private buffer first (so `t[1:] = t[:-1]` reads the old values),
 * drops extent-1 dimensions, makes the output's strides positive (reversing a
 * dimension for every operand keeps the element correspondence), orders the
 * dimensions by decreasing output stride, and merges adjacent dimensions that
 * are contiguous for every operand. The element at multi-index idx of operand k
 * lives at base[k] + sum(idx[d] * stride[k][d]). */
#ifndef AUG_CORE_PLAN_H
#define AUG_CORE_PLAN_H

#include "aug/device.h"
#include "aug/ops.h"
#include "ctype.h"

#define AUG__MAX_INPUTS 3
#define AUG__MAX_OPS (AUG__MAX_INPUTS + 1)

/* Launch settings for a GPU (aug_set_launch; 0 = automatic). */
typedef struct aug__launch {
    int blocks_per_sm;
    int threads;
} aug__launch;

/* Where and how a plan runs: the device, its stream (never NULL in a plan handed
 * to a backend) and the launch settings of the calling thread. */
typedef struct aug__exec {
    aug_device device;
    aug_stream *stream;
    void *stream_handle;      /* the backend's handle of stream (aug_stream_handle) */
    aug__launch launch;
} aug__exec;

/* A coalesced strided loop over the output's elements. */
typedef struct aug__loop {
    int nin;                                     /* inputs, 1 ... AUG__MAX_INPUTS; operand nin is the output */
    int ndim;                                    /* >= 1 */
    int64_t shape[AUG_MAX_DIMS];
    int64_t size;                                /* elements, >= 1 */
    char *base[AUG__MAX_OPS];                    /* element (0, ..., 0); NULL for a scalar input */
    int64_t stride[AUG__MAX_OPS][AUG_MAX_DIMS];  /* bytes; 0 on broadcast dims and for scalars */
    int dtype[AUG__MAX_OPS];                     /* element type in memory */
    int ctype[AUG__MAX_OPS];                     /* type the op reads (inputs) and writes (output) */
    int out_contiguous;                          /* the output tensor is C-contiguous */
    int ieee_out;                                /* a float result narrows to the output's float dtype as
                                                    IEEE arithmetic does (scalar/cast.h aug__ieee_narrowing:
                                                    +-inf beyond the range), not by saturate_cast */
    /* the value of each scalar input, one element of its dtype (host memory) */
    AUG__ALIGN16 unsigned char scalar[AUG__MAX_INPUTS][16];
} aug__loop;

/* An elementwise job (arithmetic, math, casts, copies, fills): out = op(in...)
 * computed in the ctypes. op AUG_OP_COPY with one input is a saturating copy;
 * when its ctypes equal the operands' dtypes it is a plain conversion. */
typedef struct aug__ew_plan {
    const char *func;
    aug_op op;
    aug__loop loop;
    aug__exec exec;
} aug__ew_plan;

/* A reduction job over in's elements; out has one element per kept position.
 * Reduced and kept dimensions are each coalesced (C order kept), with byte
 * strides; R and O count reduced elements per output and outputs. */
typedef struct aug__reduce_plan {
    const char *func;
    aug_reduce_op op;
    int in_dtype, out_dtype;
    const char *in0;                             /* element (0, ..., 0) of the input */
    char *out0;                                  /* its output element */
    int nr;                                      /* reduced dims (0 ... 8) */
    int64_t rext[AUG_MAX_DIMS], rst[AUG_MAX_DIMS];
    int no;                                      /* kept dims (0 ... 8) */
    int64_t oext[AUG_MAX_DIMS], ost_in[AUG_MAX_DIMS], ost_out[AUG_MAX_DIMS];
    int64_t R, O;
    int ieee_out;                                /* a float sum or mean narrows to out_dtype as IEEE
                                                    arithmetic does (the result's own dtype), not by
                                                    saturate_cast (an `out` of another dtype) */
    aug__exec exec;
} aug__reduce_plan;

/* A matrix product C = alpha * op(A) @ op(B) + beta * C in row-major BLAS terms
 * (what cblas_?gemm with CblasRowMajor and cuBLAS with swapped operands take):
 * C is (m, n) with leading dimension ldc; op(A) is (m, k), A stored row-major
 * (trans_a = 0, leading dimension lda >= k) or as its transpose (trans_a = 1,
 * lda >= m); likewise B. All dimensions fit int. beta is 0 for a new C: then C's
 * old contents must not leak into the result (not even NaN). */
typedef struct aug__gemm_plan {
    const char *func;
    aug_dtype dtype;                             /* AUG_FLOAT32 or AUG_FLOAT64 */
    int64_t m, n, k;
    const char *a, *b;
    char *c;
    int trans_a, trans_b;
    int64_t lda, ldb, ldc;
    double alpha, beta;
    aug__exec exec;
} aug__gemm_plan;

/* The operands of an elementwise plan as the core has them. A storage-less 0-d
 * input is a host scalar: its element is copied into the plan. */
typedef struct aug__ew_operands {
    int nin;
    const aug_tensor *in[AUG__MAX_INPUTS];
    int in_ctype[AUG__MAX_INPUTS];
    aug_tensor *out;
    int out_ctype;
    int ieee_out;  /* the loop's ieee_out: the output holds the op's own float result dtype */
    int checked;   /* the caller has checked every input (aug__tensor_check), and each is a host
                    * scalar or has out's shape and device: the planner skips those checks */
} aug__ew_operands;

/* A gather (aug_take) or scatter (aug_put) of n rows: row j of the indexed
 * tensor starts at t_base + t_off[j], row j of the other side (the packed
 * result, or the value) at o_base + o_off[j] (byte offsets, host arrays); a row
 * is `rest` elements of `itemsize` bytes over the rest dims (shape, byte strides
 * t_st / o_st; ndim 0: one element). put == 0: other <- t; put == 1: t <- other,
 * the rows' t_off all different (the core keeps the last of repeated ones). */
typedef struct aug__take_plan {
    const char *func;
    int put;
    int itemsize;
    int64_t n;
    const int64_t *t_off, *o_off;
    char *t_base, *o_base;
    int ndim;
    int64_t shape[AUG_MAX_DIMS];
    int64_t rest;
    int64_t t_st[AUG_MAX_DIMS], o_st[AUG_MAX_DIMS];
    aug__exec exec;
} aug__take_plan;

/* Temporaries a plan refers to (private copies of overlapping inputs); freed by
 * aug__plan_release once the backend has queued the work (their storage is
 * returned to the device's stream-ordered pool). */
typedef struct aug__plan_temps {
    aug_tensor *t[AUG__MAX_INPUTS];
} aug__plan_temps;

/* The execution context of the calling thread for dev (its current stream and
 * launch settings). */
AUG__HIDDEN aug__exec aug__exec_for(aug_device dev);

/* Builds the loop of an elementwise plan for `ops` (checked: operands on
 * plan->exec.device, broadcastable to out, valid ctypes; out without repeated
 * elements). *noop is set when nothing needs to run (an empty output, or a copy
 * of a view onto itself). Temporaries go to *temps (release them after
 * running). */
AUG__HIDDEN aug_status aug__plan_elementwise(aug__ew_plan *plan, const aug__ew_operands *ops, int *noop,
                                             aug__plan_temps *temps);
AUG__HIDDEN void aug__plan_release(aug__plan_temps *temps);

/* Fills the geometry of a reduction plan: in (any strides) reduced over the
 * axes in mask into out, a view with in's ndim (extent 1 and stride 0 on the
 * reduced axes). */
AUG__HIDDEN void aug__plan_reduce(aug__reduce_plan *plan, const aug_tensor *in, uint32_t mask, const aug_tensor *out);

/* Coalesces the dims of t in C order (extent-1 dims dropped; a dim merged into
 * the next inner one when it steps exactly over it): *nd >= 1 dims with shape
 * and byte strides; returns 1 when some elements alias (a zero stride on an
 * extent > 1), so a writer must visit them in C order. */
AUG__HIDDEN int aug__coalesce(const aug_tensor *t, int *nd, int64_t *shape, int64_t *bstride);

#endif
