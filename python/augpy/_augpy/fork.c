/* _augpy/fork.c: per-object locks that survive fork().
 *
 * Decoder and RandomNumberGenerator serialise their calls with a lock that is
 * held while the GIL is released. If another thread of the parent is inside
 * such a call when a thread forks (a DataLoader worker, multiprocessing with
 * the fork start method), the child inherits the lock held by a thread that
 * does not exist there, and its first call on the object waits forever. A
 * pthread_atfork child handler counts forks; each lock records the count it
 * was last used under, and the first use after a fork (with the GIL held, so
 * no other thread of the child can have touched the object since) replaces a
 * lock that was held at fork time. The old lock is leaked, not freed: freeing
 * a held lock is undefined. */
#include "augpy.h"
#include <pthread.h>
#include <pythread.h>
#include <stdatomic.h>

static atomic_ulong g_forks;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void after_fork_child(void) { atomic_fetch_add(&g_forks, 1); }

static void register_once(void) { pthread_atfork(NULL, NULL, after_fork_child); }

unsigned long augpy_fork_generation(void) {
    pthread_once(&g_once, register_once);
    return atomic_load(&g_forks);
}

PyThread_type_lock augpy_forksafe_lock_new(unsigned long *generation) {
    pthread_once(&g_once, register_once);
    *generation = atomic_load(&g_forks);
    return PyThread_allocate_lock();
}

int augpy_forksafe_lock_check(PyThread_type_lock *lock, unsigned long *generation) {
    unsigned long now = atomic_load(&g_forks);
    if (*generation == now) return 0;
    *generation = now;
    if (PyThread_acquire_lock(*lock, NOWAIT_LOCK)) { /* free at fork time: keep it */
        PyThread_release_lock(*lock);
        return 0;
    }
    PyThread_type_lock fresh = PyThread_allocate_lock();
    if (fresh == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *lock = fresh; /* the parent's held lock is leaked on purpose */
    return 1;
}
