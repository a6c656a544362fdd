/* cpu/pool.h: the CPU worker pool (private).
 *
 * aug__parallel_for runs fn(ctx, task, worker) for task in [0, ntasks) on up to
 * aug_get_num_threads() threads (the caller is worker 0). Tasks must not depend on
 * which worker runs them. Safe to call from several threads at once (a caller that
 * finds the pool busy runs its tasks itself) and after fork(). */
#ifndef AUG_CPU_POOL_H
#define AUG_CPU_POOL_H

#include <stdint.h>
#include "core/error.h"

typedef void (*aug__task_fn)(void *ctx, int64_t task, int worker);

AUG__HIDDEN void aug__parallel_for(int64_t ntasks, aug__task_fn fn, void *ctx);

/* Interruption (aug_set_interrupt_check). aug__parallel_for polls the calling
 * thread's check between tasks; once it returned nonzero the job hands out no more
 * tasks and every later aug__parallel_for of the thread returns at once, until
 * aug__interrupt_take, which reports (1) and clears it. The CPU backend's entries
 * clear it before and take it after running a plan (cpu/backend.c). */
AUG__HIDDEN int aug__interrupt_take(void);
/* For long single-threaded work outside aug__parallel_for (a JPEG decode's
 * progress monitor): runs the calling thread's check when 10 ms have passed
 * since its last run; 1 once it asked to stop (then taken as above). */
AUG__HIDDEN int aug__interrupt_poll(void);

/* Upper bound on the `worker` argument + 1 (for per-worker scratch arrays). */
#define AUG__MAX_WORKERS 256

#endif
