/* core/backend.h: the backend interface (private).
 *
 * The C core is backend-neutral: it validates arguments, decides result and
 * compute types, allocates outputs and then hands a plan to the backend of the
 * output's device. The CPU backend (src/cpu) implements every entry; the CUDA
 * backend (src/cuda, later) implements the same table. The core never includes
 * CUDA headers. */
#ifndef AUG_CORE_BACKEND_H
#define AUG_CORE_BACKEND_H

#include "aug/ops.h"
#include "iter.h"

/* An elementwise job: the core has already chosen every ctype and allocated out. */
typedef struct aug__ew_plan {
    const char *func;
    aug_op op;                               /* AUG_OP_COPY with nin = 1: saturating copy */
    int nin;
    const aug_tensor *in[AUG__MAX_INPUTS];   /* tensors or storage-less 0-d scalars */
    int in_ctype[AUG__MAX_INPUTS];
    aug_tensor *out;
    int out_ctype;
} aug__ew_plan;

/* A reduction job. `out` has in's ndim with extent 1 on every reduced axis
 * (axis_mask bit d set), and the dtype the core chose. */
typedef struct aug__reduce_plan {
    const char *func;
    aug_reduce_op op;
    const aug_tensor *in;
    uint32_t axis_mask;
    aug_tensor *out;
} aug__reduce_plan;

/* Plans of the other op families, each defined in its family's private core
 * header (random.h, warp.h, lighting.h, blur.h in src/core). */
typedef struct aug__random_plan aug__random_plan;
typedef struct aug__warp_plan aug__warp_plan;
typedef struct aug__lighting_plan aug__lighting_plan;
typedef struct aug__blur_plan aug__blur_plan;

typedef struct aug__backend {
    const char *name;                 /* "cpu" */
    aug_device_type type;
    /* Raw memory; alloc returns NULL on failure without setting an error. */
    void *(*alloc)(int device_id, size_t nbytes);
    void (*free)(int device_id, void *ptr);
    /* Byte copy between this backend's device and the host or itself. */
    aug_status (*memcpy)(void *dst, aug_device dst_dev, const void *src, aug_device src_dev, size_t n);
    aug_status (*elementwise)(const aug__ew_plan *plan);
    aug_status (*reduce)(const aug__reduce_plan *plan);
    /* C = alpha * op(A) @ op(B) + beta * C, shapes and dtypes already checked. */
    aug_status (*gemm)(const char *func, const aug_tensor *A, const aug_tensor *B, aug_tensor *C,
                       double alpha, double beta);
    aug_status (*random)(const aug__random_plan *plan);       /* uniform / gaussian fills */
    aug_status (*warp_affine)(const aug__warp_plan *plan);    /* affine warp HWC -> CHW, batched */
    aug_status (*lighting)(const aug__lighting_plan *plan);   /* contrast + gamma, NCHW */
    aug_status (*blur)(const aug__blur_plan *plan);           /* box / gaussian, NCHW */
} aug__backend;

/* The backend serving a device; NULL with an error naming func if unavailable. */
AUG__HIDDEN const aug__backend *aug__backend_for(const char *func, aug_device dev);

AUG__HIDDEN extern const aug__backend aug__cpu_backend;

#endif
