/* core/recycle.c: the free lists of core/recycle.h. Each list is a fixed array
 * behind a spin flag held for a few instructions; pthread_atfork takes every flag
 * before fork() and drops it after in the parent and the child, so a child never
 * inherits a flag held by a thread that no longer exists. */
#include "recycle.h"
#include <pthread.h>
#include <stdatomic.h>

#if defined(__SANITIZE_ADDRESS__)
#define RECYCLE_ON 0 /* every block goes back to the allocator, where ASan watches it */
#else
#define RECYCLE_ON 1
#endif

typedef struct {
    void *items[AUG__RECYCLE_MAX];
    int n;
    atomic_flag busy;
} recycle_list;

static recycle_list lists[AUG__RECYCLE_KINDS] = {{.busy = ATOMIC_FLAG_INIT}, {.busy = ATOMIC_FLAG_INIT}};
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void take(recycle_list *l) {
    while (atomic_flag_test_and_set_explicit(&l->busy, memory_order_acquire)) {
    }
}

static void drop(recycle_list *l) { atomic_flag_clear_explicit(&l->busy, memory_order_release); }

static void atfork_prepare(void) {
    for (int k = 0; k < AUG__RECYCLE_KINDS; k++) take(&lists[k]);
}

static void atfork_after(void) {
    for (int k = AUG__RECYCLE_KINDS - 1; k >= 0; k--) drop(&lists[k]);
}

static void install_atfork(void) { pthread_atfork(atfork_prepare, atfork_after, atfork_after); }

void *aug__recycle_get(aug__recycle_kind kind) {
    recycle_list *l = &lists[kind];
    void *p = NULL;
    take(l);
    if (l->n > 0) p = l->items[--l->n];
    drop(l);
    return p;
}

int aug__recycle_put(aug__recycle_kind kind, void *p) {
    if (!RECYCLE_ON) return 0;
    pthread_once(&atfork_once, install_atfork); /* before the first block is kept */
    recycle_list *l = &lists[kind];
    int kept = 0;
    take(l);
    if (l->n < AUG__RECYCLE_MAX) {
        l->items[l->n++] = p;
        kept = 1;
    }
    drop(l);
    return kept;
}
