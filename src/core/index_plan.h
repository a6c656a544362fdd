/* core/index_plan.h: the plan of one NumPy index with index tensors (private to
 * index_plan.c and index.c, which runs it through aug_take / aug_put). */
#ifndef AUG_CORE_INDEX_PLAN_H
#define AUG_CORE_INDEX_PLAN_H

#include "aug/index.h"
#include "error.h"

/* With B the broadcast shape of the index arrays (nB elements) and `rest` the
 * dimensions the basic items leave, the result has shape out_shape: rest with B
 * inserted at position p. perm takes the result's dimensions to (B, rest) order. */
typedef struct aug__index_plan {
    int advanced;                   /* 0: no index tensor; V is t[items], a view */
    aug_tensor *V;                  /* t with the basic items applied, advanced dims whole (owned) */
    int nadv;                       /* index arrays (one per advanced dim of V) */
    int advdim[AUG_MAX_DIMS];       /* their dimensions in V */
    const int64_t *idx[AUG_MAX_DIMS]; /* each broadcast to B, nB values in C order */
    int64_t *owned[AUG_MAX_DIMS];   /* the host arrays the plan frees */
    int nowned;
    int nb;
    int64_t B[AUG_MAX_DIMS];
    int64_t nB;
    int nrest;
    int p;
    int out_ndim;
    int64_t out_shape[AUG_MAX_DIMS];
    int perm[AUG_MAX_DIMS];
} aug__index_plan;

/* Plans t[items]: checks the items (errors prefixed by func), reads the index
 * tensors to the host, applies the basic items as the view V. On error nothing is
 * left to free; on success the caller frees with aug__index_plan_free. */
AUG__HIDDEN aug_status aug__index_plan_build(const char *func, const aug_tensor *t, int n, const aug_index_item *items,
                                             aug__index_plan *P);
AUG__HIDDEN void aug__index_plan_free(aug__index_plan *P);

/* The last recorded error again, as func's (a failed internal call reports under
 * the public function the caller used). Returns st, or the recorded status when
 * st is AUG_OK. */
AUG__HIDDEN aug_status aug__index_reraise(const char *func, aug_status st);

#endif
