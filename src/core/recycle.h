/* core/recycle.h: short lists of freed blocks kept for reuse (private). A small op
 * allocates and frees a tensor struct and a small storage block per call; keeping
 * up to AUG__RECYCLE_MAX of each saves the allocator round trips. The lists are
 * empty under AddressSanitizer (so a use after free is still caught), and fork()
 * leaves them consistent and unlocked in the child (pthread_atfork). */
#ifndef AUG_CORE_RECYCLE_H
#define AUG_CORE_RECYCLE_H

#include "error.h"

#define AUG__RECYCLE_MAX 64

typedef enum { AUG__RECYCLE_TENSOR, AUG__RECYCLE_STORAGE, AUG__RECYCLE_KINDS } aug__recycle_kind;

/* A kept block of that kind, or NULL (then allocate one). */
AUG__HIDDEN void *aug__recycle_get(aug__recycle_kind kind);
/* Keeps p for reuse: 1, or 0 when the list is full (then the caller frees it). */
AUG__HIDDEN int aug__recycle_put(aug__recycle_kind kind, void *p);

#endif
