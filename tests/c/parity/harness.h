/* harness.h: the CUDA parity harness (in the manner of ggml's test-backend-ops):
 * each op registers one ph_case in its family's cases_*.c file; harness.c runs
 * every case on every CUDA device present (the emulated cuda:0 and cuda:1 under
 * ctest, a real GPU under scripts/gpu_check.sh) against the CPU backend: with the
 * automatic launch settings on all devices but the last, in blocks of 1024
 * threads on the last (with one device: both on it).
 *
 * Shapes, strides and parameters come from a seed (AUG_PARITY_SEED=<n> replays
 * a run, AUG_PARITY_FILTER=<substring>[,<substring>...] runs the cases whose
 * name has one of them); a
 * failure prints the seed, the case, the device, the inputs' dtypes, shapes and
 * strides and the first differing element (CPU value, device value, ulp
 * distance). A family of src/core/backend.h without a case fails the run. */
#ifndef PH_HARNESS_H
#define PH_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include "aug/aug.h"

/* How close the device's result must be to the CPU's. */
typedef enum ph_bound_kind {
    PH_EXACT,  /* byte for byte (any two NaNs match: payloads are not specified) */
    PH_ULP,    /* floats within `ulp` ulps of the larger magnitude (semantics §8: transcendentals) */
    PH_ABS,    /* floats within `tol` absolutely (gemm: cuBLAS's order of summation) */
    PH_MEAN    /* the mean absolute difference at most `tol`, each at most `max` (nvJPEG's IDCT) */
} ph_bound_kind;

typedef struct ph_bound {
    ph_bound_kind kind;
    double tol; /* PH_ABS / PH_MEAN */
    double max; /* PH_MEAN: the largest difference allowed; 0: no bound */
} ph_bound;

/* semantics §8's bounds for transcendentals: 2 ulp float32, 4 float64, 1 of the 16-bit floats' own */
#define PH_BOUND_EXACT {PH_EXACT, 0, 0}
#define PH_BOUND_ULP8 {PH_ULP, 0, 0}

/* Operand layouts the generators draw from (one bit each in ph_case.layouts). */
enum {
    PH_L_CONTIG,    /* C-contiguous */
    PH_L_STRIDED,   /* every dim stepped by 2 or 3 */
    PH_L_NEGATIVE,  /* negative steps (reversed) */
    PH_L_PERMUTED,  /* dims permuted in memory (a transpose) */
    PH_L_BROADCAST, /* some dims of extent 1, or stride 0 */
    PH_L_ZERO_D,    /* a 0-d tensor */
    PH_L_EMPTY,     /* one extent 0 */
    PH_L_COUNT
};
#define PH_LAYOUTS_ALL ((1u << PH_L_COUNT) - 1)
#define PH_LAYOUTS_VIEWS ((1u << PH_L_CONTIG) | (1u << PH_L_STRIDED) | (1u << PH_L_NEGATIVE) | (1u << PH_L_PERMUTED))
#define PH_DTYPES_ALL 0x1fffu /* one bit per aug_dtype 0..12 */

typedef struct ph_run ph_run;
typedef struct ph_case ph_case;

/* One case: an op of a family, the dtypes and layouts its run draws from, its
 * parameters and its bound; run() draws shapes and strides from r, computes on
 * the CPU and on ph_dev(r), and compares with ph_check* (any number of times). */
struct ph_case {
    const char *name;   /* "<family>/<op>[/<what>]", unique */
    int family;         /* an aug__family value (src/core/backend.h) */
    int op;             /* the op within the family (aug_op, aug_reduce_op, ...), or -1 */
    unsigned dtypes;    /* 1 << aug_dtype of the input dtypes it runs on */
    unsigned layouts;   /* 1 << PH_L_* of the operand layouts it draws */
    int max_ndim;       /* random shapes have 1..max_ndim dims (0: the case's own shapes) */
    const void *params; /* the case's parameters (the run's own struct), or NULL */
    ph_bound bound;
    void (*run)(ph_run *r, const ph_case *c);
};

/* The registry: each cases_*.c file defines one list. */
typedef struct ph_case_list {
    const ph_case *cases;
    size_t n;
} ph_case_list;
extern const ph_case_list ph_cases_elementwise, ph_cases_reduce, ph_cases_misc, ph_cases_image, ph_cases_resize,
    ph_cases_colour, ph_cases_normalize, ph_cases_decode, ph_cases_warp;

/* ---- what a run uses ---------------------------------------------------------- */

aug_device ph_dev(const ph_run *r);
int ph_threads(const ph_run *r);                  /* the run's block size: 0 automatic, or 1024 */
uint64_t ph_rand(ph_run *r);                      /* the case's random stream (from the seed) */
int64_t ph_range(ph_run *r, int64_t lo, int64_t hi); /* uniform in [lo, hi] */
/* A random shape of 1..max_ndim dims of extents 1..max_extent (odd sizes likely),
 * the largest extents halved until it holds at most max_elems elements. */
int ph_shape(ph_run *r, int max_ndim, int64_t max_extent, int64_t max_elems, int64_t *shape);
/* The i-th dtype of c->dtypes (i < ph_ndtypes(c)). */
int ph_ndtypes(const ph_case *c);
aug_dtype ph_dtype(const ph_case *c, int i);

/* A pair of operands with the same values and the same view structure (shape,
 * strides, offset) over a base filled with th_fill_pattern: *cpu on the CPU,
 * *dev on ph_dev(r). layout is a PH_L_*; shape the extents the op sees (the
 * layout may change them: broadcast puts 1s, 0-d drops them, empty puts a 0). */
void ph_operand(ph_run *r, aug_dtype t, int layout, int ndim, const int64_t *shape, aug_tensor **cpu,
                aug_tensor **dev);
/* A pattern tensor on the CPU and its copy on the device (contiguous). */
void ph_pair(ph_run *r, int ndim, const int64_t *shape, aug_dtype t, aug_tensor **cpu, aug_tensor **dev);
/* The inputs to name on a failure (dtype, shape, strides of each); n <= 4. */
void ph_inputs(ph_run *r, int n, const aug_tensor *const *t);

/* Compares a CPU result with the device's under c->bound (or `bound`): same
 * dtype and shape, then the values; counts the comparison and its bytes. */
void ph_check(ph_run *r, const char *what, const aug_tensor *cpu, const aug_tensor *dev);
void ph_check_bound(ph_run *r, const char *what, const aug_tensor *cpu, const aug_tensor *dev, ph_bound bound);
/* The same status on both, and the same message when it is an error. */
void ph_check_status(ph_run *r, const char *what, aug_status cpu, const char *cpu_msg, aug_status dev);

#endif
